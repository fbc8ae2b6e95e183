#!/usr/bin/env bash
# cli_megatron_versions.sh -- Megatron-LM's 2022 backward (docs/generator.md,
# "Megatron-LM versions"), end to end: with
# --async-tensor-model-parallel-allreduce every TP all-reduce of the backward
# runs beside its layer's weight-gradient GEMM.  GPT-3 22B (48 layers, TP 8,
# one micro-batch of 4, full recomputation) on one 8-GPU NVSwitch: each of
# the 2 x 48 backward all-reduces of the layers and the output layer's, s b
# h x 2 = 2048 x 4 x 6144 x 2 = 100,663,296 bytes each, is shorter than the
# GEMM beside it (the QKV's wgrad 951 us, the MLP's first layer's 1,263 us,
# the output layer's longer still; the all-reduce about 0.65 ms), so the
# step is shorter by 97 all-reduces, each timed on its own by `clustersim
# collective` with the plan's generated system file -- give or take 1 us per
# split (each of the 97 split nodes rounds to whole microseconds by itself;
# here the QKV's gain 1 us and the MLP's lose 1 us, so it is exact).  The
# flags reach train --json's plan; refusals name the key.
. "$(dirname "$0")/lib_cli.sh"
cd "$CS_TMP" || exit 1
printf 'topology: [ Switch ]\nnpus_count: [ 8 ]\nbandwidth: [ 279.4 ]\nlatency: [ 700.0 ]\n' > net.yml
P=(--model gpt3-22b --device A100-80GB --tp 8 --micro-batch 4 --global-batch 4 --recompute full
   --network-configuration=net.yml)
"$CS_BIN" generate "${P[@]}" --out g22 >/dev/null 2>err.txt || fail "generate: $(cat err.txt)"
"$CS_BIN" collective --network-configuration=net.yml --system-configuration=g22.system.json \
    -b 100663296 -e 100663296 --out ar.csv --quiet 2>err.txt || fail "collective: $(cat err.txt)"
T_AR=$(awk -F, 'NR == 2 { printf "%d", $6 * 1000 }' ar.csv)   # time_us -> ns (3 decimals: whole ns)
[ -n "$T_AR" ] && [ "$T_AR" -gt 0 ] && pass "collective: one 96 MiB all-reduce, $T_AR ns" \
    || fail "collective: no time in ar.csv: $(cat ar.csv)"
step() { python3 -c "import json,sys; print(int(json.load(open(sys.argv[1]))['iteration_time_ns']))" "$1"; }
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['plan'][sys.argv[2]])" "$1" "$2"; }
"$CS_BIN" train "${P[@]}" --json a.json --quiet 2>err.txt || fail "train: $(cat err.txt)"
"$CS_BIN" train "${P[@]}" --async-tensor-model-parallel-allreduce --json b.json --quiet 2>err.txt \
    || fail "train --async-tensor-model-parallel-allreduce: $(cat err.txt)"
A=$(step a.json) B=$(step b.json)
D=$((A - B - 97 * T_AR))
if [ "${D#-}" -le 97000 ]; then
    pass "async TP all-reduce: the step is 97 all-reduces shorter ($A - $B = 97 x $T_AR ns + $D ns of rounding)"
else
    fail "async TP all-reduce: $A - $B = $((A - B)) ns, expected 97 x $T_AR = $((97 * T_AR)) ns +- 97 us"
fi
[ "$(field a.json async_tensor_model_parallel_allreduce)" = False ] \
    && [ "$(field b.json async_tensor_model_parallel_allreduce)" = True ] \
    && pass "train --json: plan.async_tensor_model_parallel_allreduce" || fail "train --json: the async field"
# the same through the scenario key
"$CS_BIN" train "${P[@]}" --set plan.async-tensor-model-parallel-allreduce=true --json c.json --quiet 2>err.txt \
    || fail "train --set: $(cat err.txt)"
[ "$(step c.json)" = "$B" ] && pass "--set plan.async-tensor-model-parallel-allreduce=true: the same step" \
    || fail "--set: $(step c.json) ns, expected $B"
# gradient-accumulation fusion: one micro-batch, TP 8, no DP: the step is shorter by the
# accumulation kernels and 6 bytes per parameter of the optimizer; fp32 gradients in memory
"$CS_BIN" train "${P[@]}" --gradient-accumulation-fusion --json f.json --quiet 2>err.txt \
    || fail "train --gradient-accumulation-fusion: $(cat err.txt)"
[ "$(field f.json gradient_accumulation_fusion)" = True ] && [ "$(step f.json)" -lt "$A" ] \
    && pass "fusion: in the plan, a shorter step ($(step f.json) < $A ns)" || fail "fusion: $(step f.json) vs $A"
"$CS_BIN" train "${P[@]}" --gradient-accumulation-fusion --zero 2 --json z.json --quiet 2>err.txt \
    && fail "fusion with ZeRO-2: accepted" \
    || { grep -q -- "--gradient-accumulation-fusion: Megatron-LM.s fusion adds into its own fp32 gradient buffer" err.txt \
        && pass "fusion with ZeRO-2: refused, naming the key" || fail "fusion with ZeRO-2: $(cat err.txt)"; }
finish
