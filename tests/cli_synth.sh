#!/usr/bin/env bash
# cli_synth.sh -- clustersim synth (docs/synth.md): a look-alike keeps the
# simulated behaviour while names, kernels and exact sizes are hidden.
#   - hand trace (2 ranks): a GPU chain 100 -> 200 -> 0 -> 300 us, an
#     all-reduce of 1,000,000 bytes, then 50 us; a CPU node of 40 us; a join
#     of 10 us.  The look-alike's step time equals the source's to the
#     picosecond with --size-bits 64; its inspect totals are 660 us on the
#     accelerator and 40 us on the CPU; with the default 8 bits the
#     all-reduce is 1,000,000 rounded to 8 significant bits: 2^19 <= 1e6 <
#     2^20, so 12 low bits go: 1e6 >> 12 = 244 rem 576 < 2048 -> 244 x 4096 =
#     999,424 bytes; no name of the source survives; inspect says what was kept;
#   - a 200-node chain (an all-reduce every 10th node): other seeds give other
#     bytes and the same step time; the same seed the same bytes;
#   - --noise 0.2 over 400 equal segments: the compute total within 4
#     standard errors (0.2 / sqrt(400) = 1 %) of the source's;
#   - a generated plan (TP 2 x PP 2 x DP 2): exact with --size-bits 64, within
#     2^-8 = 0.39 % with 8 bits (every byte count moves by at most that);
#   - bad flags and a missing source are refused by name; a failed run
#     leaves no file; ../shared's real Chakra traces run exactly (skipped when
#     ../shared is absent).
. "$(dirname "$0")/lib_cli.sh"
: "${CS_MKTRACE:?}"
cd "$CS_TMP" || exit 1
cat > n2.yml <<'NET'
topology: [ Switch ]
npus_count: [ 2 ]
bandwidth: [ 100 ]
latency: [ 500 ]
NET
cat > sys.json <<'SYS'
{"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1, "preferred-dataset-splits": 1,
 "all-reduce-implementation": ["ring"], "all-gather-implementation": ["ring"],
 "reduce-scatter-implementation": ["ring"], "all-to-all-implementation": ["ring"],
 "collective-optimization": "baseline", "local-mem-bw": 1600}
SYS
SPEC="1 COMP dur=100 name=secret_qkv; 2 COMP dur=200 data=1 name=secret_attn; 3 COMP dur=0 data=2 name=secret_nop;\
 4 COMP dur=300 data=3 name=secret_mlp; 5 COLL ctype=0 size=1000000 data=4 name=secret_ar;\
 6 COMP dur=50 data=5 name=secret_opt; 7 CPU dur=40 name=secret_loader; 8 COMP dur=10 data=6,7 name=secret_end"
"$CS_MKTRACE" --ranks hand "$SPEC" "$SPEC" || fail "mktrace"

step_ps() { # PREFIX NET SYS [flags]: the simulated step in ps
    local p=$1 net=$2 sys=$3
    shift 3
    "$CS_BIN" run --workload-configuration="$p" --network-configuration="$net" --system-configuration="$sys" \
        --out "o_$(basename "$p")" --quiet "$@" > /dev/null 2> err_run || { echo "run $p: $(cat err_run)" >&2; return 1; }
    python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['sim_time_ps'])" "o_$(basename "$p")/summary.json"
}

"$CS_BIN" synth --workload-configuration=hand --out s64 --size-bits 64 --quiet 2> e1 || fail "synth: $(cat e1)"
a=$(step_ps hand n2.yml sys.json) && b=$(step_ps s64 n2.yml sys.json) || fail "runs"
[ -n "$a" ] && [ "$a" = "$b" ] && pass "hand trace: the look-alike's step equals the source's ($a ps)" \
    || fail "hand trace: $a vs $b ps"
"$CS_BIN" inspect s64.0.et > i64.txt || fail "inspect s64: $(cat i64.txt)"
grep -q "compute       660 us on the accelerator, 40 us on the CPU" i64.txt \
    && grep -q "validation    ok" i64.txt && pass "look-alike: 660 us GPU + 40 us CPU, valid" || fail "inspect: $(cat i64.txt)"
grep -q "synthetic     written by clustersim synth; kept: every communication" i64.txt \
    && grep -q "synthetic     hidden: node names" i64.txt && pass "inspect says what was kept and hidden" \
    || fail "inspect kept/hidden: $(cat i64.txt)"

"$CS_BIN" synth --workload-configuration=hand --out s8 --quiet 2> e2 || fail "synth 8 bits: $(cat e2)"
"$CS_BIN" inspect s8.1.et > i8.txt || fail "inspect s8"
grep -q "collective    ALL_REDUCE           x1, 999424 bytes in all" i8.txt \
    && pass "8 significant bits: 1,000,000 -> 999,424 bytes (by hand)" || fail "rounding: $(cat i8.txt)"
if grep -a -q secret s8.0.et s8.1.et s64.0.et s8.synth.json; then fail "a source name survived"; else
    pass "no source name in the look-alike or its report"; fi
python3 - s8.synth.json <<'PY' && pass "synth.json: totals before/after, 4 segments per rank" || fail "synth.json"
import json, sys
d = json.load(open(sys.argv[1]))
s, t = d["source_totals"], d["synthetic_totals"]
ok = d["ranks"] == 2 and d["distinct_graphs"] == 1 and s["comp_us"] == t["comp_us"] == 2 * 700
ok = ok and s["compute_segments"] == 8 and s["comm_bytes"] == 2 * 1000000 and t["comm_bytes"] == 2 * 999424
ok = ok and abs(d["max_size_change_ratio"] - 576 / 1e6) < 1e-12 and d["options"]["size_bits"] == 8
sys.exit(0 if ok else 1)
PY

# a 200-node chain with an all-reduce every 10th node: seeds
chain=""
for i in $(seq 0 199); do
    dep=""; [ "$i" -gt 0 ] && dep=" data=$((i - 1))"
    if [ $((i % 10)) -eq 9 ]; then chain+="$i COLL ctype=0 size=$(((i + 1) * 1024))$dep; "
    else chain+="$i COMP dur=$((1 + i % 7))$dep; "; fi
done
"$CS_MKTRACE" --ranks chain "$chain" "$chain" || fail "mktrace chain"
for s in 1 2; do
    "$CS_BIN" synth --workload-configuration=chain --out c$s --seed $s --quiet 2> e3 || fail "synth seed $s: $(cat e3)"
done
"$CS_BIN" synth --workload-configuration=chain --out c1b --seed 1 --quiet || fail "synth again"
cmp -s c1.0.et c1b.0.et && cmp -s c1.synth.json c1b.synth.json && pass "same seed, same bytes" || fail "not deterministic"
cmp -s c1.0.et c2.0.et && fail "seeds 1 and 2 wrote the same trace" || pass "another seed, other bytes"
a=$(step_ps chain n2.yml sys.json) && b=$(step_ps c1 n2.yml sys.json) && c=$(step_ps c2 n2.yml sys.json) || fail "chain runs"
# sizes (i+1) x 1024 for i = 9, 19, .., 199 have at most 8 significant bits (k x 10 x 1024, k <= 20): exact
[ "$a" = "$b" ] && [ "$a" = "$c" ] && pass "chain: both seeds keep the step ($a ps)" || fail "chain: $a $b $c"

# noise: 400 independent segments of 100 us each
noise=""
for i in $(seq 1 400); do noise+="$i COMP dur=100; "; done
"$CS_MKTRACE" noise.et "$noise" || fail "mktrace noise"
"$CS_BIN" synth --workload-configuration=noise.et --out noisy.et --noise 0.2 --seed 3 --quiet 2> e4 \
    || fail "synth noise: $(cat e4)"
python3 - noisy.et.synth.json <<'PY' && pass "noise 0.2: compute total within 4 standard errors (4 %) of 40,000 us" \
    || fail "noise total"
import json, sys
d = json.load(open(sys.argv[1]))
t = d["synthetic_totals"]["comp_us"]
sys.exit(0 if abs(t / 40000 - 1) < 0.04 and t != 40000 and d["source_totals"]["comp_us"] == 40000 else 1)
PY

# a generated plan
mkdir -p g
"$CS_BIN" generate --model gpt3-6.7b --tp 2 --pp 2 --dp 2 --global-batch 16 --micro-batch 1 --out g/gpt > /dev/null 2> e5 \
    || fail "generate: $(cat e5)"
G=(--comm-group-configuration=g/gpt.comm_groups.json --comm-streams=4)
for bits in 64 8; do
    "$CS_BIN" synth --workload-configuration=g/gpt --out g/s$bits --size-bits $bits --quiet 2> e6 || fail "synth plan: $(cat e6)"
done
a=$(step_ps g/gpt g/gpt.network.yml g/gpt.system.json "${G[@]}") \
    && b=$(step_ps g/s64 g/gpt.network.yml g/gpt.system.json "${G[@]}") \
    && c=$(step_ps g/s8 g/gpt.network.yml g/gpt.system.json "${G[@]}") || fail "plan runs"
[ "$a" = "$b" ] && pass "generated plan, 64 bits: the same step ($a ps)" || fail "plan 64 bits: $a vs $b"
python3 -c "import sys; a,c=int(sys.argv[1]),int(sys.argv[2]); sys.exit(0 if abs(c-a)/a <= 2**-8 else 1)" "$a" "$c" \
    && pass "generated plan, 8 bits: within 0.39 % ($c vs $a ps)" || fail "plan 8 bits: $c vs $a ps"

# errors
expect_fail "--out is the source" "the source's prefix" "$CS_BIN" synth --workload-configuration=hand --out hand
expect_fail "--size-bits 0" "--size-bits '0': expected an integer from 1 to 64" \
    "$CS_BIN" synth --workload-configuration=hand --out x --size-bits 0
expect_fail "--noise -1" "--noise '-1': expected a coefficient of variation" \
    "$CS_BIN" synth --workload-configuration=hand --out x --noise -1
expect_fail "no trace" "nothere: no trace found; expected nothere.0.et" \
    "$CS_BIN" synth --workload-configuration=nothere --out x
expect_fail "--npus beyond the files" "hand.2.et" "$CS_BIN" synth --workload-configuration=hand --npus 3 --out x
mkdir -p ro && chmod 555 ro
if [ "$(id -u)" != 0 ]; then
    expect_fail "unwritable --out" "ro/s" "$CS_BIN" synth --workload-configuration=hand --out ro/s
    [ -z "$(ls ro)" ] && pass "a failed run leaves no file" || fail "files left: $(ls ro)"
fi
: > blocked
expect_fail "--out under a file" "blocked/s" "$CS_BIN" synth --workload-configuration=hand --out blocked/s

# real Chakra traces (../shared)
S="${CS_SHARED_DIR:-}/testdata/chakra"
if [ -d "$S" ]; then
    printf 'topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' > r8.yml
    printf 'topology: [ Ring ]\nnpus_count: [ 1 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' > r1.yml
    for c in "text_data_parallel_8npu/data_parallel r8.yml" "text_hybrid_dlrm_8npu/hybrid_dlrm r8.yml" \
             "repo_feeder_tests_1npu/chakra r1.yml"; do
        set -- $c
        n=$(basename "$1")
        "$CS_BIN" synth --workload-configuration="$S/$1" --out "real_$n" --size-bits 64 --quiet 2> e7 \
            || { fail "synth $1: $(cat e7)"; continue; }
        a=$(step_ps "$S/$1" "$2" sys.json 2>/dev/null) && b=$(step_ps "real_$n" "$2" sys.json 2>/dev/null) \
            && [ "$a" = "$b" ] && pass "real trace $n: the look-alike's step equals the source's ($a ps)" \
            || fail "real trace $n: $a vs $b"
    done
else
    echo "SKIP (part): ../shared/testdata/chakra is not present; real traces not checked"
fi
finish
