#!/usr/bin/env bash
# cases.sh -- run every ASTRA-sim reference case in ../shared/testdata/astra-sim
# through the clustersim program and print, per case: NPUs, wall time, the
# largest per-rank error against ASTRA-sim's finish times, and the total.
#   usage: bench/cases.sh [CLUSTERSIM_BINARY] [SHARED_DIR]
set -u
BIN=${1:-build/clustersim}
SHARED=${2:-../shared}
CASES="$SHARED/testdata/astra-sim/cases"
[ -d "$CASES" ] || { echo "no reference cases at $CASES"; exit 1; }
TMP=$(mktemp -d)
printf '| case | NPUs | backend | wall (s) | max error vs ASTRA-sim (%%) |\n|---|---:|---|---:|---:|\n'
total=0
for c in "$CASES"/*/; do
    name=$(basename "$c")
    prefix=$(sed -n 's/.*"workload_prefix": *"\([^"]*\)".*/\1/p' "$c/case.json")
    backend=$(sed -n 's/.*"backend": *"\([^"]*\)".*/\1/p' "$c/case.json")
    cg=empty; [ -f "$c/comm_group.json" ] && grep -q comm_group_configuration "$c/case.json" && cg="$c/comm_group.json"
    npus=$(($(wc -l < "$c/expected.tsv") - 1))
    t0=$(date +%s.%N)
    "$BIN" run --workload-configuration="$c/$prefix" --system-configuration="$c/system.json" \
        --network-configuration="$c/network.yml" --remote-memory-configuration="$c/memory.json" \
        --comm-group-configuration="$cg" --backend="$backend" --quiet --no-progress \
        --out "$TMP/$name" >/dev/null 2>"$TMP/$name.err"
    rc=$?
    t1=$(date +%s.%N)
    wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    total=$(awk -v a="$total" -v b="$wall" 'BEGIN { printf "%.3f", a + b }')
    if [ $rc -ne 0 ]; then
        printf '| %s | %d | %s | %.3f | failed: %s |\n' "$name" "$npus" "$backend" "$wall" "$(head -c 120 "$TMP/$name.err")"
        continue
    fi
    err=$(awk -F, 'NR==FNR { if (FNR > 1) { split($0, a, "\t"); ex[a[1]] = a[2] } next }
                   FNR > 1 { e = ex[$1]; d = ($2 - e) / (e > 0 ? e : 1) * 100; if (d < 0) d = -d; if (d > m) m = d }
                   END { printf "%.4f", m }' "$c/expected.tsv" "$TMP/$name/ranks.csv")
    printf '| %s | %d | %s | %.3f | %s |\n' "$name" "$npus" "$backend" "$wall" "$err"
done
printf '\ntotal wall time: %.2f s\n' "$total"
rm -rf "$TMP"
