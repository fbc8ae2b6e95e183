#!/usr/bin/env bash
# cli_run.sh -- the clustersim program end to end: help, version, the example,
# outputs, determinism, and that the committed example traces are exactly what
# their generator writes.
. "$(dirname "$0")/lib_cli.sh"
EX="$CS_SOURCE_DIR/examples/pipeline"

"$CS_BIN" --version | grep -q '^clustersim [0-9]' && pass version || fail version
for c in "" run inspect; do
    if "$CS_BIN" $c --help >/dev/null 2>&1; then pass "help $c"; else fail "help $c"; fi
done
"$CS_BIN" run --help | grep -q -- '--workload-configuration=PREFIX' && pass "help lists ASTRA-sim flags" || fail "help lists ASTRA-sim flags"
"$CS_BIN" run --help-config | grep -q "preferred-dataset-splits" && "$CS_BIN" run --help-config | grep -q "remote-mem-bw" \
    && pass "help-config lists file keys" || fail "help-config lists file keys"
"$CS_BIN" bogus >/dev/null 2>&1; [ $? -eq 2 ] && pass "unknown command exits 2" || fail "unknown command exits 2"
"$CS_BIN" run --frobnicate=1 >/dev/null 2>&1; [ $? -eq 2 ] && pass "unknown option exits 2" || fail "unknown option exits 2"

# The committed example traces are our generator's output, byte for byte.
GEN="$CS_BUILD_DIR/examples/cs_example_pipeline"
mkdir -p "$CS_TMP/gen" && "$GEN" "$CS_TMP/gen"
same=1
for r in 0 1 2 3; do cmp -s "$CS_TMP/gen/pipeline.$r.et" "$EX/pipeline.$r.et" || same=0; done
[ $same -eq 1 ] && pass "example traces regenerate identically" || fail "example traces regenerate identically"

run_example() {
    "$CS_BIN" run --workload-configuration="$EX/pipeline" --network-configuration="$EX/network.yml" \
        --system-configuration="$EX/system.json" "$@"
}
out=$(run_example --out "$CS_TMP/o1" --trace "$CS_TMP/o1/trace.json" 2>&1) && pass "example runs" || fail "example runs: $out"
# Hand computation (docs/examples.md): a 16 MiB message over the switch takes
# 2*700 + 16777216/(150*2^30/1e9) = 105566.67 -> 105566 ns; stage 3's last
# forward ends at 11 ms + 3*105566 ns, its 8 backward passes take 16 ms, then its
# last gradient send 105566 ns: 27316698 + 105566 = 27422264 ns.  Stage 0 waits
# for stage 1's last gradient: 33633396 ns.
grep -q '"sim_time_ns": 33633396,' "$CS_TMP/o1/summary.json" && pass "example sim time" || fail "example sim time"
grep -q '"rank": 3, "finish_ns": 27422264,' "$CS_TMP/o1/summary.json" && pass "example stage-3 finish" || fail "example stage-3 finish"
head -1 "$CS_TMP/o1/ranks.csv" | grep -q '^rank,finish_ns,compute_ns,exposed_comm_ns' && pass "csv header has units" || fail "csv header"
case "$out" in *"simulated time"*"33.633 ms"*) pass "report shows time with unit" ;; *) fail "report: $out" ;; esac

# Same inputs, same outputs.
run_example --quiet --out "$CS_TMP/o2" --trace "$CS_TMP/o2/trace.json" >/dev/null 2>&1
cmp -s "$CS_TMP/o1/summary.json" "$CS_TMP/o2/summary.json" && pass "summary deterministic" || fail "summary deterministic"
cmp -s "$CS_TMP/o1/trace.json" "$CS_TMP/o2/trace.json" && pass "timeline deterministic" || fail "timeline deterministic"

# ASTRA-sim style invocation without the sub-command, and --json.
"$CS_BIN" --workload-configuration="$EX/pipeline" --network-configuration="$EX/network.yml" --quiet --json "$CS_TMP/s.json" \
    && grep -q '"schema_version": 1' "$CS_TMP/s.json" && pass "astra-style invocation" || fail "astra-style invocation"

# inspect
"$CS_BIN" inspect "$EX/pipeline.1.et" > "$CS_TMP/insp.txt" && grep -q "validation    ok" "$CS_TMP/insp.txt" \
    && grep -q "COMM_SEND    16" "$CS_TMP/insp.txt" && pass "inspect summary" || fail "inspect summary: $(cat "$CS_TMP/insp.txt")"
"$CS_BIN" inspect --json "$EX/pipeline.0.et" 2>/dev/null | grep -q '"name": "fwd_mb0"' && pass "inspect --json" || fail "inspect --json"
# The data-parallel example: one trace for all 32 ranks, overlapped all-reduces.
DP="$CS_SOURCE_DIR/examples/data_parallel"
"$CS_BUILD_DIR/examples/cs_example_data_parallel" "$CS_TMP/gen" && cmp -s "$CS_TMP/gen/dp.et" "$DP/dp.et" \
    && pass "data-parallel trace regenerates identically" || fail "data-parallel trace regenerates identically"
"$CS_BIN" run --workload-configuration="$DP/dp.et" --network-configuration="$DP/network.yml" \
    --system-configuration="$DP/system.json" --quiet --out "$CS_TMP/dp" 2>/dev/null || fail "data-parallel example runs"
# compute = 8x500 + 8x500 + 7x500 + 200 us = 11.7 ms on every rank; all ranks finish together
awk -F, 'NR > 1 { if ($3 != 11700000) bad = 1; f[$2] = 1; n++ } END { c = 0; for (k in f) c++; exit !(n == 32 && !bad && c == 1) }' \
    "$CS_TMP/dp/ranks.csv" && pass "data-parallel compute and symmetry" || fail "data-parallel compute and symmetry"
awk -F, 'NR == 2 { exit !($2 > $3 && $4 == $2 - $3) }' "$CS_TMP/dp/ranks.csv" \
    && pass "data-parallel exposed = finish - compute" || fail "data-parallel exposed = finish - compute"
finish
