#!/usr/bin/env bash
# flow.sh -- the flow backend's performance scenarios of issue 5 (results in
# docs/performance.md, "Flow backend"): wall time, peak memory and simulated
# time of
#   ring1k   64 MB ring all-reduce, 1,024 GPUs on one switch (Switch(1024))
#   rail16k  64 MB all-reduce, 16,384 GPUs = 2,048 HGX servers on a
#            rail-optimized fat-tree (ring in the server, halvingDoubling
#            across servers along each rail)
#   a2a1k    64 MB all-to-all, 1,024 GPUs on one switch, direct (all 1,023
#            peers at once: ~1M concurrent flows)
#   usage: bench/flow.sh [CLUSTERSIM_BINARY] [MKTRACE_BINARY] [case ...]
# With BASE=<another clustersim binary> in the environment, each case runs
# on BASE first and then on CLUSTERSIM_BINARY (side by side on the same
# loaded machine), and the script says whether their results (summary JSON
# without its wall-time fields) are identical.  CPU = user + system seconds.
set -u
BIN=$(realpath "${1:-build/clustersim}")
BASE=${BASE:+$(realpath "$BASE")}
MK=$(realpath "${2:-build/tests/cs_mktrace}")
shift 2 2>/dev/null
CASES=${*:-ring1k rail16k a2a1k}
TMP=$(mktemp -d)
cd "$TMP" || exit 1
"$MK" ar.et "1 COLL ctype=0 size=67108864" || exit 1
"$MK" a2a.et "1 COLL ctype=6 size=67108864" || exit 1
sys() { # $1 = list of algorithms, $2 = collective-optimization
    printf '{"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,\n'
    printf ' "preferred-dataset-splits": 4, "all-reduce-implementation": %s,\n' "$1"
    printf ' "all-gather-implementation": %s, "reduce-scatter-implementation": %s,\n' "$1" "$1"
    printf ' "all-to-all-implementation": %s, "collective-optimization": "%s", "local-mem-bw": 1600}\n' "$1" "$2"
}
printf 'topology: [ Switch ]\nnpus_count: [ 1024 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' > s1k.yml
printf 'topology: [ Switch, Switch ]\nnpus_count: [ 8, 2048 ]\nbandwidth: [ 450, 50 ]\nlatency: [ 0, 1000 ]\n' > rail.yml
printf '{"builder": "rail", "servers": 2048, "gpus_per_server": 8, "nvlink_bandwidth": 450,\n "nic_bandwidth": 50, "nic_latency": 1000, "spines": 64}\n' > rail.json
sys '["ring"]' baseline > ring.json
sys '["direct"]' baseline > direct.json
sys '["ring", "halvingDoubling"]' baseline > rail_sys.json
printf '| case | binary | wall (s) | CPU (s) | peak RSS (MB) | simulated | events | messages |\n|---|---|---:|---:|---:|---:|---:|---:|\n'
for c in $CASES; do
    case $c in
    ring1k) args=(--workload-configuration=ar.et --network-configuration=s1k.yml --system-configuration=ring.json) ;;
    rail16k) args=(--workload-configuration=ar.et --network-configuration=rail.yml --system-configuration=rail_sys.json --topology=rail.json) ;;
    a2a1k) args=(--workload-configuration=a2a.et --network-configuration=s1k.yml --system-configuration=direct.json) ;;
    *) echo "unknown case $c"; continue ;;
    esac
    for b in ${BASE:+"$BASE"} "$BIN"; do
        tag=new; [ -n "$BASE" ] && [ "$b" = "$BASE" ] && tag=base
        /usr/bin/time -f "%e %U %S %M" -o t.txt "$b" run "${args[@]}" --backend flow --no-progress --json $c.$tag.json > $c.txt 2> $c.err
        rc=$?
        read -r wall user sys rss < <(tail -1 t.txt)
        cpu=$(echo "$user + $sys" | bc)
        if [ $rc -ne 0 ]; then printf '| %s | %s | %s | %s | | failed: %s | | |\n' "$c" "$tag" "$wall" "$cpu" "$(head -c 100 $c.err)"; continue; fi
        sim=$(grep -o 'simulated time *[0-9.]* [a-z]*' $c.txt | sed 's/simulated time *//')
        evs=$(grep -o '[0-9]* events' $c.txt | cut -d' ' -f1)
        msgs=$(grep -o '[0-9]* network messages' $c.txt | cut -d' ' -f1)
        printf '| %s | %s | %s | %s | %d | %s | %s | %s |\n' "$c" "$tag" "$wall" "$cpu" $((rss / 1024)) "$sim" "$evs" "$msgs"
    done
    if [ -n "$BASE" ]; then
        # the results: every field but wall times, the echoed configuration (a newer binary echoes
        # keys the base does not know, e.g. system.nccl-cpu) and the event count (a change that
        # folds events may lower it; the table shows both counts)
        strip='import json,sys
def walk(d):
    if isinstance(d, dict):
        return {k: walk(v) for k, v in d.items() if "wall" not in k and k not in ("configuration", "events")}
    if isinstance(d, list):
        return [walk(v) for v in d]
    return d
print(json.dumps(walk(json.load(open(sys.argv[1]))), sort_keys=True, indent=0))'
        if cmp -s <(python3 -c "$strip" $c.base.json) <(python3 -c "$strip" $c.new.json); then
            echo "($c: results identical but the event count)"
        else echo "($c: RESULTS DIFFER)"; fi
    fi
done
rm -rf "$TMP"
