#!/usr/bin/env bash
# cli_ref_congestion_memory.sh -- ASTRA-sim's reference results for the two
# models of docs/network.md and docs/memory.md: every `*_ca` case (run by
# ASTRA-sim's congestion-aware binary) under --backend analytical-congestion,
# and the remote-memory cases p01 (PER_NPU) and p04 (MEMORY_POOL), every rank
# within 0.1 % of ASTRA-sim's finish time (all are exact today).
# p04 is compared as a set of finish times: its ranks tie at the end of the
# all-reduce and queue at the pool in the order the collective layer completes
# them, which is ASTRA-sim's event-insertion order there (1, 2, 3, 0) and key
# order here (0, 1, 2, 3); the pool's staircase itself must be exact.
# Skips (77) without ../shared.
. "$(dirname "$0")/lib_cli.sh"
CASES="${CS_SHARED_DIR:-}/testdata/astra-sim/cases"
[ -d "$CASES" ] || { echo "skip: no reference data at $CASES"; exit 77; }

# finish times "rank finish" from a summary.json / an expected.tsv
ours() { grep -o '"rank": [0-9]*, "finish_ns": [0-9]*' "$1" | awk '{gsub(/,/, ""); print $2, $4}'; }
theirs() { awk 'NR > 1 { print $1, $2 }' "$1"; }

# compare NAME OURS THEIRS [sorted]: every line within 0.1 %
compare() {
    local name=$1 a=$2 b=$3 mode=${4:-}
    if [ "$mode" = sorted ]; then
        a=$(awk '{print $2}' <<<"$a" | sort -n | nl -v0 | awk '{print $1, $2}')
        b=$(awk '{print $2}' <<<"$b" | sort -n | nl -v0 | awk '{print $1, $2}')
    fi
    local bad
    bad=$(join <(sort -k1,1 <<<"$a") <(sort -k1,1 <<<"$b") |
          awk '{ d = $2 - $3; if (d < 0) d = -d; if (d > 0.001 * $3) print "rank " $1 ": " $2 " vs ASTRA-sim " $3 }')
    local n1 n2
    n1=$(wc -l <<<"$a"); n2=$(wc -l <<<"$b")
    if [ -z "$a" ] || [ "$n1" -ne "$n2" ]; then fail "$name: $n1 ranks vs $n2 expected"; return; fi
    [ -z "$bad" ] && pass "$name" || fail "$name: $(head -3 <<<"$bad" | tr '\n' ';')"
}

run_case() { # DIR BACKEND OUT
    local c=$1 be=$2 out=$3 pre extra=()
    pre=$(sed -n 's/.*"workload_prefix": *"\([^"]*\)".*/\1/p' "$c/case.json")
    [ -f "$c/comm_group.json" ] && extra+=(--comm-group-configuration="$c/comm_group.json")
    "$CS_BIN" run --workload-configuration="$c/$pre" --network-configuration="$c/network.yml" \
        --system-configuration="$c/system.json" --remote-memory-configuration="$c/memory.json" \
        --backend "$be" "${extra[@]}" --quiet --json "$out" 2>"$out.err"
}

for c in "$CASES"/*_ca; do
    [ -d "$c" ] || continue
    name=$(basename "$c")
    if run_case "$c" analytical-congestion "$CS_TMP/$name.json"; then
        compare "$name" "$(ours "$CS_TMP/$name.json")" "$(theirs "$c/expected.tsv")"
    else
        fail "$name: $(head -c 300 "$CS_TMP/$name.json.err")"
    fi
done

for name in p01_p2p_mixed_ring4_pernpu_cu p04_p2p_mixed_fc4_pool_cu; do
    c="$CASES/$name"
    [ -d "$c" ] || continue
    mode=""; [ "$name" = p04_p2p_mixed_fc4_pool_cu ] && mode=sorted
    if run_case "$c" analytical "$CS_TMP/$name.json"; then
        compare "$name${mode:+ (as a set)}" "$(ours "$CS_TMP/$name.json")" "$(theirs "$c/expected.tsv")" $mode
    else
        fail "$name: $(head -c 300 "$CS_TMP/$name.json.err")"
    fi
done
finish
