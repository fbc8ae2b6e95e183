#!/usr/bin/env bash
# trace_load.sh -- the cost of reading one trace file per rank: N copies of a
# one-collective trace (PREFIX.<rank>.et) against the same trace given once
# (one file for every rank), on a 16 x 16 x 64 network (16,384 NPUs): wall,
# user and system time of `clustersim run` (the simulation itself is a
# symmetric all-reduce: about a millisecond), and, with strace installed, the
# system calls per rank file.
#   usage: bench/trace_load.sh [CLUSTERSIM_BINARY] [MKTRACE_BINARY] [REPEATS]
set -u
BIN=${1:-build/clustersim}
MK=${2:-build/tests/cs_mktrace}
REP=${3:-5}
N=16384
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$MK" "$TMP/ar.et" "1 COLL ctype=0 size=67108864" || exit 1
for i in $(seq 0 $((N - 1))); do cp "$TMP/ar.et" "$TMP/t.$i.et"; done
cat > "$TMP/n.yml" <<'NET'
topology: [ Ring, Switch, Switch ]
npus_count: [ 16, 16, 64 ]
bandwidth: [ 200, 100, 50 ]
latency: [ 500, 1000, 2000 ]
NET
cat > "$TMP/s.json" <<'SYS'
{"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1, "preferred-dataset-splits": 1,
 "all-reduce-implementation": ["ring", "ring", "ring"], "all-gather-implementation": ["ring", "ring", "ring"],
 "reduce-scatter-implementation": ["ring", "ring", "ring"], "all-to-all-implementation": ["ring", "ring", "ring"],
 "collective-optimization": "baseline", "local-mem-bw": 1600}
SYS
run() { "$BIN" run --workload-configuration="$1" --network-configuration="$TMP/n.yml" --system-configuration="$TMP/s.json" --quiet; }
printf '| workload | run | wall s | user s | sys s |\n|---|---:|---:|---:|---:|\n'
for w in t ar.et; do
    for k in $(seq 1 "$REP"); do
        /usr/bin/time -f "%e %U %S" -o "$TMP/time" bash -c "$(declare -f run); BIN=$BIN TMP=$TMP run $TMP/$w" || exit 1
        read -r wall user sys < "$TMP/time"
        printf '| %s | %d | %s | %s | %s |\n' "$([ $w = t ] && echo "$N rank files" || echo "one file")" "$k" "$wall" "$user" "$sys"
    done
done
if command -v strace > /dev/null; then
    strace -c -f -o "$TMP/strace" "$BIN" run --workload-configuration="$TMP/t" --network-configuration="$TMP/n.yml" \
        --system-configuration="$TMP/s.json" --quiet
    calls=$(awk '$NF == "total" { print $(NF-2) }' "$TMP/strace")
    printf '\nsystem calls with %d rank files: %s (%.1f per file)\n' "$N" "$calls" "$(awk -v c="$calls" -v n=$N 'BEGIN { print c / n }')"
fi
