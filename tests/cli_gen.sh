#!/usr/bin/env bash
# cli_gen.sh -- clustersim generate / train end to end: generated traces run
# through `clustersim run` and give the same step time as `train`; plans that
# do not fit are refused with the breakdown; bad options are named.
. "$(dirname "$0")/lib_cli.sh"
P="$CS_TMP/g"
PLAN=(--model gpt3-6.7b --tp 2 --pp 2 --dp 2 --sp --recompute selective --global-batch 8)

"$CS_BIN" generate --help | grep -q -- '--recompute none|selective|full' && pass "generate help" || fail "generate help"
out=$("$CS_BIN" generate "${PLAN[@]}" --out "$P" 2>&1) && pass "generate" || fail "generate: $out"
n=$(ls "$P".*.et | wc -l); [ "$n" -eq 8 ] && pass "8 rank files" || fail "8 rank files: $n"
for f in comm_groups.json network.yml system.json; do [ -s "$P.$f" ] && pass "$f written" || fail "$f written"; done
"$CS_BIN" inspect "$P.5.et" >/dev/null 2>&1 && pass "inspect reads a generated trace" || fail "inspect generated trace"
run=$("$CS_BIN" run --workload-configuration="$P" --comm-group-configuration="$P.comm_groups.json" \
    --network-configuration="$P.network.yml" --system-configuration="$P.system.json" --comm-streams=4 \
    --json "$CS_TMP/run.json" --quiet 2>&1) && pass "run the generated traces" || fail "run: $run"
tr=$("$CS_BIN" train "${PLAN[@]}" --network-configuration="$P.network.yml" --system-configuration="$P.system.json" \
    --json "$CS_TMP/train.json" --quiet 2>&1) && pass "train" || fail "train: $tr"
a=$(grep -o '"sim_time_ns": *[0-9.]*' "$CS_TMP/run.json" | grep -o '[0-9.]*$')
b=$(grep -o '"iteration_time_ns": *[0-9.e+]*' "$CS_TMP/train.json" | grep -o '[0-9.e+]*$')
python3 -c "import sys; sys.exit(0 if abs(float('$a') - float('$b')) < 1 else 1)" 2>/dev/null \
    && pass "run and train agree ($a ns)" || fail "run ($a) and train ($b) agree"
grep -q '"mfu"' "$CS_TMP/train.json" && pass "train json has mfu" || fail "train json has mfu"

expect_fail "plan that does not fit" "does not fit in memory|weights|optimizer|activations|A100-80GB HBM 80.00 GB" \
    "$CS_BIN" generate --model gpt3-175b --tp 8 --out "$CS_TMP/no"
[ ! -e "$CS_TMP/no.0.et" ] && pass "nothing written for a refused plan" || fail "nothing written for a refused plan"
expect_fail "unknown preset" "--model gpt-9: unknown preset" "$CS_BIN" generate --model gpt-9 --out "$CS_TMP/x"
expect_fail "bad tp" "--tp 3: expected a divisor of heads" "$CS_BIN" generate --model gpt3-6.7b --tp 3 --out "$CS_TMP/x"
expect_fail "bad recompute" "--recompute some: expected none, selective or full" \
    "$CS_BIN" generate --model gpt3-6.7b --recompute some --out "$CS_TMP/x"
expect_fail "network size" "npus_count: expected 8 NPUs" \
    "$CS_BIN" train --model gpt3-6.7b --tp 4 --pp 2 --network-configuration="$CS_SOURCE_DIR/examples/pipeline/network.yml"
printf '{\n  "layers": 2,\n  "hidden": 64,\n  "heads": 4,\n  "vocab": 128,\n  "seq": "long"\n}\n' >"$CS_TMP/m.json"
expect_fail "model file error" "m.json:6: seq: expected an integer >= 1, got \"long\"" \
    "$CS_BIN" generate --model "$CS_TMP/m.json" --out "$CS_TMP/x"
"$CS_BIN" generate --model "$CS_SOURCE_DIR/models/llama3-8b.json" --tp 4 --sp --recompute full --dp 2 --zero 1 \
    --global-batch 4 --out "$CS_TMP/l" --quiet && pass "model file, GQA + SwiGLU, ZeRO-1" || fail "model file"
# MoE with expert parallelism (all-to-all) and FSDP: run on the files == train
MOE=(--model mixtral-8x7b --tp 2 --dp 8 --ep 2 --sp --recompute full --fsdp --global-batch 16)
"$CS_BIN" generate "${MOE[@]}" --out "$CS_TMP/moe" --quiet && pass "generate MoE + EP + FSDP" || fail "generate MoE"
run=$("$CS_BIN" run --workload-configuration="$CS_TMP/moe" --comm-group-configuration="$CS_TMP/moe.comm_groups.json" \
    --network-configuration="$CS_TMP/moe.network.yml" --system-configuration="$CS_TMP/moe.system.json" --comm-streams=4 \
    --json "$CS_TMP/mrun.json" --quiet 2>&1) && pass "run the MoE traces" || fail "run MoE: $run"
tr=$("$CS_BIN" train "${MOE[@]}" --network-configuration="$CS_TMP/moe.network.yml" \
    --system-configuration="$CS_TMP/moe.system.json" --json "$CS_TMP/mtrain.json" 2>&1) && pass "train MoE" || fail "train MoE: $tr"
echo "$tr" | grep -q "8 experts, top-2 routing; EP 2" && pass "MoE reported" || fail "MoE reported: $tr"
a=$(grep -o '"sim_time_ns": *[0-9.]*' "$CS_TMP/mrun.json" | grep -o '[0-9.]*$')
b=$(grep -o '"iteration_time_ns": *[0-9.e+]*' "$CS_TMP/mtrain.json" | grep -o '[0-9.e+]*$')
python3 -c "import sys; sys.exit(0 if abs(float('$a') - float('$b')) < 1 else 1)" 2>/dev/null \
    && pass "MoE run and train agree ($a ns)" || fail "MoE run ($a) and train ($b) agree"
expect_fail "bad ep" "--ep 3: expected a divisor of --dp" "$CS_BIN" generate --model mixtral-8x7b --dp 4 --ep 3 --out "$CS_TMP/x"
finish
