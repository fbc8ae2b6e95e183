# cli_symmetry.sh -- --symmetry=auto|off end to end: the data-parallel example
# (one trace for all 32 ranks) simulated with one representative rank and with
# every rank gives identical summary.json (but for totals.symmetry),
# ranks.csv, collectives.csv and timeline; -v says which mode ran and why; a
# bad value is a usage error.  Owned by the system layer.
. "$(dirname "$0")/lib_cli.sh"
DP="$CS_SOURCE_DIR/examples/data_parallel"
run() { # run MODE DIR [extra args]
    local mode=$1 dir=$2; shift 2
    "$CS_BIN" run --workload-configuration="$DP/dp.et" --network-configuration="$DP/network.yml" \
        --system-configuration="$DP/system.json" --quiet --symmetry="$mode" --out "$CS_TMP/$dir" \
        --trace "$CS_TMP/$dir/trace.json" "$@"
}
run auto auto -v 2>"$CS_TMP/auto.err" || fail "symmetric run"
run off off -v 2>"$CS_TMP/off.err" || fail "full run"
grep -q 'symmetry applies' "$CS_TMP/auto.err" && pass "-v: symmetry applies" || fail "-v: symmetry applies"
grep -q 'symmetry does not apply: off' "$CS_TMP/off.err" && pass "-v: off" || fail "-v: off"
grep -q '"symmetry": "representative"' "$CS_TMP/auto/summary.json" && grep -q '"symmetry": "full"' "$CS_TMP/off/summary.json" \
    && pass "totals.symmetry" || fail "totals.symmetry"
sed 's/"symmetry": "[a-z]*"//' "$CS_TMP/auto/summary.json" >"$CS_TMP/a.json"
sed 's/"symmetry": "[a-z]*"//' "$CS_TMP/off/summary.json" >"$CS_TMP/o.json"
cmp -s "$CS_TMP/a.json" "$CS_TMP/o.json" && pass "summary.json identical" || fail "summary.json identical"
for f in ranks.csv collectives.csv trace.json; do
    cmp -s "$CS_TMP/auto/$f" "$CS_TMP/off/$f" && pass "$f identical" || fail "$f identical"
done
# a rank file set that differs beyond node ids: the full simulation, and -v says why
"$CS_BIN" run --workload-configuration="$CS_SOURCE_DIR/examples/pipeline/pipeline" \
    --network-configuration="$CS_SOURCE_DIR/examples/pipeline/network.yml" \
    --system-configuration="$CS_SOURCE_DIR/examples/pipeline/system.json" --quiet -v 2>"$CS_TMP/p.err" \
    && grep -q 'symmetry does not apply: the ranks run different graphs' "$CS_TMP/p.err" \
    && pass "-v: why not" || fail "-v: why not"
"$CS_BIN" run --workload-configuration="$DP/dp.et" --network-configuration="$DP/network.yml" \
    --symmetry=sometimes >/dev/null 2>"$CS_TMP/bad.err"
[ $? -eq 1 ] && grep -q 'expected one of auto, off' "$CS_TMP/bad.err" && pass "bad --symmetry exits 1" \
    || fail "bad --symmetry exits 1"
finish
