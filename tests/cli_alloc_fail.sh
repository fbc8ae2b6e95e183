#!/usr/bin/env bash
# cli_alloc_fail.sh -- every allocation can fail: with allocation-failure
# injection (core/alloc.h, builds with CS_ALLOC_INJECT: the sanitizer
# build), each command below first runs clean listing the allocation sites
# it hits (CS_ALLOC_SITES) and counting its allocation calls
# (CS_ALLOC_COUNT); then it runs again once per site with that site's first
# call failing (CS_ALLOC_FAIL_SITE), and once per sampled call number
# (CS_ALLOC_FAIL_AT: SAMPLES calls spread over the run, and the last 8, which
# fall while the results are written).  Every failing run must:
#   - exit with status 3 (no crash, no abort, no other status);
#   - say "out of memory" on stderr, naming the site that failed and
#     "[injected]";
#   - have no AddressSanitizer / LeakSanitizer report (detect_leaks=1) and
#     no UndefinedBehaviorSanitizer one;
#   - leave no result file in the --out directory (summary.json, ranks.csv,
#     collectives.csv, links.csv, the --trace file kept there) and no
#     temporary file (*.tmp.*) anywhere in the scratch directory.
# Commands: `run` of the pipeline example (point-to-point, analytical, --out,
# --trace), `run` of the data-parallel example on the flow backend
# (collectives, links.csv), `train` of a small generated plan (--out,
# --trace), `inspect --json` of a trace, and two `run`s of a 4-rank trace
# with communicator groups, remote memory and point-to-point messages:
# analytical-congestion, and flow on a fat-tree built from topology.* keys
# with a random placement; and a `run` of custom collectives (a per-type
# graph, a per-node one on communicator groups); and `partition` of the
# examples/partition trace (--out and --json: partition.csv, summary.json).  Every site and every
# sampled call of each is tried (no sampling of sites: all take 30-60 s in
# the sanitizer build on 2 cores).  Skips (77) in a build without injection.
. "$(dirname "$0")/lib_cli.sh"
: "${CS_MKTRACE:?}"
cd "$CS_TMP" || exit 1
EX="$CS_SOURCE_DIR/examples"
SAMPLES=${CS_ALLOC_SAMPLES:-50}
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1"
unset CS_ALLOC_FAIL_AT CS_ALLOC_FAIL_SITE CS_ALLOC_COUNT CS_ALLOC_SITES

if ! CS_ALLOC_COUNT=1 "$CS_BIN" inspect "$EX/pipeline/pipeline.0.et" 2>&1 >/dev/null | grep -q "allocation calls"; then
    echo "SKIP: $CS_BIN has no allocation-failure injection (a build with -DCS_SANITIZE=ON, -DCS_INVARIANTS=ON or -DCS_ALLOC_INJECT=ON has)"
    exit 77
fi

# The commands; each writes its results into ./out (when it writes any).
CMD_run_p2p=("$CS_BIN" run --workload-configuration="$EX/pipeline/pipeline" --network-configuration="$EX/pipeline/network.yml"
    --system-configuration="$EX/pipeline/system.json" --out out --trace out/trace.json --quiet)
CMD_run_flow=("$CS_BIN" run --workload-configuration="$EX/data_parallel/dp.et"
    --network-configuration="$EX/data_parallel/network.yml" --system-configuration="$EX/data_parallel/system.json"
    --backend flow --out out --quiet)
CMD_train=("$CS_BIN" train --model gpt3-6.7b --tp 2 --pp 2 --dp 2 --global-batch 8
    --network-configuration="$EX/hgx_h100/network.yml" --out out --trace out/trace.json --quiet)
CMD_inspect=("$CS_BIN" inspect "$EX/pipeline/pipeline.0.et" --json)
"$CS_MKTRACE" --ranks w4 "1 LOAD tensor=65536; 2 COLL ctype=0 size=1048576 pg=1 data=1; 3 SEND size=65536 src=0 dst=2 tag=1 data=2" \
    "1 LOAD tensor=65536; 2 COLL ctype=0 size=1048576 pg=1 data=1" \
    "1 STORE tensor=4096; 2 COLL ctype=0 size=1048576 pg=2 data=1; 3 RECV size=65536 src=0 dst=2 tag=1 data=2" \
    "1 STORE tensor=4096; 2 COLL ctype=0 size=1048576 pg=2 data=1" || fail "mktrace w4"
printf 'topology: [ Ring, Switch ]\nnpus_count: [ 2, 2 ]\nbandwidth: [ 50, 25 ]\nlatency: [ 500, 1000 ]\n' > net4.yml
printf '{"1": [0, 1], "2": [2, 3]}\n' > groups.json
printf '{"memory-type": "PER_NODE_MEMORY_EXPANSION", "num-nodes": 2, "num-npus-per-node": 2,\n "remote-mem-latency": 1000, "remote-mem-bw": 32}\n' > mem.json
W4=(--workload-configuration=w4 --network-configuration=net4.yml --system-configuration="$EX/data_parallel/system.json"
    --comm-group-configuration=groups.json --remote-memory-configuration=mem.json --out out --quiet)
CMD_run_congestion=("$CS_BIN" run "${W4[@]}" --backend analytical-congestion)
CMD_partition=("$CS_BIN" partition --activations "$EX/partition/topics.txt" --workers 8 --out out --json out/p.json --quiet)
CMD_run_fattree=("$CS_BIN" run "${W4[@]}" --backend flow --set topology.builder=fat-tree
    --set topology.fat-tree.npus_per_leaf=2 --set topology.fat-tree.spines=2 --set topology.fat-tree.link_bandwidth=50
    --set topology.fat-tree.link_latency=500 --npu-placement random:7)

# custom collectives (*-implementation-custom, per-node-custom-implementation, a group's positions)
mkdir -p cg
"$CS_MKTRACE" --ranks cg/x "1 SEND dst=1 size=4096 tag=1; 2 RECV src=3 size=4096 tag=1; 3 COMP dur=1 data=2" \
    "1 SEND dst=2 size=4096 tag=1; 2 RECV src=0 size=4096 tag=1" "1 SEND dst=3 size=4096 tag=1; 2 RECV src=1 size=4096 tag=1" \
    "1 SEND dst=0 size=4096 tag=1; 2 RECV src=2 size=4096 tag=1" || fail "mktrace cg/x"
"$CS_MKTRACE" --ranks cg/g2 "1 SEND dst=1 size=4096 tag=2" "1 RECV src=0 size=4096 tag=2" || fail "mktrace cg/g2"
"$CS_MKTRACE" --ranks wc "1 COLL ctype=0 size=4096; 2 COLL ctype=0 size=4096 pg=1 data=1" \
    "1 COLL ctype=0 size=4096; 2 COLL ctype=0 size=4096 pg=1 data=1" \
    "1 COLL ctype=0 size=4096; 2 COLL ctype=0 size=4096 pg=2 data=1" \
    "1 COLL ctype=0 size=4096; 2 COLL ctype=0 size=4096 pg=2 data=1" || fail "mktrace wc"
printf '2: cg/g2\n' > nodes.yml
printf '{"scheduling-policy": "FIFO", "preferred-dataset-splits": 1, "local-mem-bw": 50,\n "all-reduce-implementation-custom": ["cg/x"], "per-node-custom-implementation": "nodes.yml"}\n' > custom.json
CMD_run_custom=("$CS_BIN" run --workload-configuration=wc --network-configuration=net4.yml --system-configuration=custom.json
    --comm-group-configuration=groups.json --out out --quiet)

TOTAL_RUNS=0
# inject NAME VAR VALUE [SITE]: one run of command NAME with VAR=VALUE; the
# checks above.  SITE: the site its message must name ("" = any).
inject() {
    local name=$1 var=$2 val=$3 site=${4:-}
    local -n cmd="CMD_$name"
    rm -rf out
    env "$var=$val" "${cmd[@]}" >/dev/null 2>err.txt
    local rc=$? what="$name $var=$val"
    TOTAL_RUNS=$((TOTAL_RUNS + 1))
    if [ "$rc" -ne 3 ]; then fail "$what: exit $rc, expected 3: $(head -c 600 err.txt)"; return; fi
    if ! grep -q "clustersim: out of memory: could not allocate .* at ${site}.*\[injected\]" err.txt; then
        fail "$what: stderr lacks \"out of memory ... at $site ... [injected]\": $(head -c 600 err.txt)"; return
    fi
    if grep -q "Sanitizer\|runtime error" err.txt; then fail "$what: sanitizer report: $(head -c 2000 err.txt)"; return; fi
    local left
    left=$(ls -A out 2>/dev/null | tr '\n' ' ')
    if [ -n "$left" ]; then fail "$what: out/ still holds: $left"; return; fi
    left=$(find . -name '*.tmp.*' | tr '\n' ' ')
    if [ -n "$left" ]; then fail "$what: temporary files left: $left"; rm -f $left; return; fi
    return 0
}

for name in run_p2p run_flow train inspect run_congestion run_fattree run_custom partition; do
    declare -n cmd="CMD_$name"
    rm -rf out
    if ! CS_ALLOC_SITES="sites.$name" CS_ALLOC_COUNT="count.$name" "${cmd[@]}" >/dev/null 2>err.txt; then
        fail "$name: clean run failed: $(head -c 600 err.txt)"
        unset -n cmd
        continue
    fi
    unset -n cmd
    calls=$(cat "count.$name")
    nsites=$(grep -c . "sites.$name")
    [ "$nsites" -gt 10 ] && [ "$calls" -gt "$nsites" ] || { fail "$name: $nsites sites, $calls calls?"; continue; }
    fails0=$FAILS runs0=$TOTAL_RUNS
    while read -r site n; do
        inject "$name" CS_ALLOC_FAIL_SITE "$site" "$site"
    done < "sites.$name"
    step=$(( calls / SAMPLES > 0 ? calls / SAMPLES : 1 ))
    for ((k = 1; k <= calls; k += step)); do inject "$name" CS_ALLOC_FAIL_AT "$k"; done
    for ((k = calls - 7; k <= calls; k++)); do [ "$k" -ge 1 ] && inject "$name" CS_ALLOC_FAIL_AT "$k"; done
    [ "$FAILS" -eq "$fails0" ] && pass "$name: $nsites sites and $((TOTAL_RUNS - runs0 - nsites)) of $calls calls failed one at a time: exit 3, named, no leak, no file left"
done
echo "$TOTAL_RUNS injected runs, $(cat sites.* | cut -d' ' -f1 | sort -u | wc -l) distinct sites"

# The mechanism itself: a site given by its file's tail, the N-th call at a
# site, a malformed value (ignored, said so), and the counts at exit.
site=$(head -1 sites.run_p2p | cut -d' ' -f1)
tail=${site##*/}
inject run_p2p CS_ALLOC_FAIL_SITE "$tail" "$site" && pass "CS_ALLOC_FAIL_SITE=$tail (a tail of the path)"
multi=$(awk '$2 >= 3 && $1 !~ /^\(/ {print $1; exit}' sites.run_p2p)
if [ -n "$multi" ]; then
    rm -rf out
    CS_ALLOC_FAIL_SITE="$multi:3" "${CMD_run_p2p[@]}" >/dev/null 2>err.txt
    rc=$?
    CS_ALLOC_FAIL_SITE="$multi" CS_ALLOC_COUNT=c1 "${CMD_run_p2p[@]}" >/dev/null 2>/dev/null
    CS_ALLOC_FAIL_SITE="$multi:3" CS_ALLOC_COUNT=c3 "${CMD_run_p2p[@]}" >/dev/null 2>/dev/null
    [ $rc -eq 3 ] && grep -q "at $multi" err.txt && [ "$(cat c3)" -gt "$(cat c1)" ] \
        && pass "CS_ALLOC_FAIL_SITE=$multi:3 fails the third call there (later than the first)" \
        || fail "CS_ALLOC_FAIL_SITE=$multi:3: exit $rc, $(cat c1) vs $(cat c3) calls: $(head -c 300 err.txt)"
fi
rm -rf out
CS_ALLOC_FAIL_SITE=nonsense "${CMD_run_p2p[@]}" >/dev/null 2>err.txt && grep -q "CS_ALLOC_FAIL_SITE=nonsense: expected FILE:LINE" err.txt \
    && pass "a malformed CS_ALLOC_FAIL_SITE is reported and ignored" || fail "malformed CS_ALLOC_FAIL_SITE: $(head -c 300 err.txt)"
CS_ALLOC_COUNT=1 "${CMD_inspect[@]}" 2>&1 >/dev/null | grep -q "^clustersim: $(cat count.inspect) allocation calls$" \
    && pass "CS_ALLOC_COUNT=1 prints the calls to stderr (the same count every run)" || fail "CS_ALLOC_COUNT=1"
finish
