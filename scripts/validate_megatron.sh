#!/usr/bin/env bash
# validate_megatron.sh -- the weak-scaling table of Narayanan et al. 2021
# ("Efficient Large-Scale Language Model Training on GPU Clusters Using
# Megatron-LM", SC21, Table 1): GPT models of 1.7 B to 1 T parameters on
# 32 to 3,072 A100 80 GB GPUs (Selene: DGX A100 nodes, NVSwitch inside,
# 8 x 200 Gb/s HDR InfiniBand per node), sequence 2048, vocabulary 51200.
# Each row runs with the plan of NVIDIA's own script for that table,
# Megatron-LM examples/sc21/run_table_1.sh: TP, PP, micro-batch (MBS),
# global batch, layers per virtual pipeline stage (interleaving), full
# ("uniform") recomputation, and the DDP flavour -- "torch" (PyTorch DDP:
# gradient all-reduce overlapped with the backward, clustersim's default)
# for the PP 1 rows, "local" (Megatron's own DDP: one all-reduce after the
# last backward, --no-overlap-grad-reduce) for the pipelined ones.
# Sequence parallelism did not exist yet (2021): none.
# The step time becomes teraFLOP/s per GPU with the paper's own count
# (eq. 3, which includes the recomputed forward pass):
#     F = 96 B s l h^2 (1 + s / (6 h) + V / (16 l h))  per step, / (time x GPUs);
# clustersim's HFU count (every generated matmul, recomputation included)
# is printed beside it.
# The collective model is the generator's default (nccl, docs/generator.md);
# CS_COLLECTIVE_MODEL=astra runs the ASTRA-sim model instead (the table
# before nccl became the default; docs/validation.md has both).
#   usage: scripts/validate_megatron.sh [row ...]      (rows: 1.7b ... 1008b)
set -eu
BIN=${CS_BIN:-build/clustersim}
# shellcheck source=scripts/validate_lib.sh
. "$(dirname "$0")/validate_lib.sh"   # MODEL_SET, the network (dgx_a100_net)
EX=$(cd "$(dirname "$0")/../examples/megatron" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# row  layers hidden  tp pp  gpus  batch  mbs  layers/virtual stage (0: not interleaved)  ddp  published TFLOP/s per GPU
ROWS="1.7b 24 2304 1 1 32 512 16 0 torch 137
3.6b 30 3072 2 1 64 512 16 0 torch 138
7.5b 36 4096 4 1 128 512 16 0 torch 142
18.4b 40 6144 8 1 256 1024 8 0 torch 135
39.1b 48 8192 8 2 512 1536 4 0 local 138
76.1b 60 10240 8 4 1024 1792 2 5 local 140
145.6b 80 12288 8 8 1536 2304 2 5 local 148
310.1b 96 16384 8 16 1920 2160 1 3 local 155
529.6b 105 20480 8 35 2520 2520 1 1 local 163
1008b 128 25600 8 64 3072 3072 1 0 local 163"
WANT=${*:-}
printf '%-8s %3s %3s %3s %5s %5s %3s %2s %5s %9s %9s %9s %9s %7s\n' \
    model tp pp dp gpus batch mbs v ddp step_s published eq3 hfu error
echo "$ROWS" | while read -r name l h tp pp gpus batch mbs lpv ddp pub; do
    if [ -n "$WANT" ] && ! echo " $WANT " | grep -q " $name "; then continue; fi
    dp=$((gpus / (tp * pp)))
    v=1
    [ "$lpv" -gt 0 ] && v=$((l / (pp * lpv)))
    extra=""
    [ "$v" -gt 1 ] && extra="--virtual-stages $v"
    [ "$ddp" = local ] && extra="$extra --no-overlap-grad-reduce"
    dgx_a100_net "$TMP/net.yml" $((gpus / 8))
    # shellcheck disable=SC2086
    "$BIN" train --model "$EX/gpt-$name.json" --device A100-80GB --tp "$tp" --pp "$pp" --dp "$dp" --recompute full \
        --micro-batch "$mbs" --global-batch "$batch" $extra $MODEL_SET --network-configuration="$TMP/net.yml" \
        --json "$TMP/r.json" --quiet
    python3 - "$TMP/r.json" "$name" "$l" "$h" "$tp" "$pp" "$dp" "$gpus" "$batch" "$mbs" "$v" "$ddp" "$pub" <<'PY'
import json, sys
path, name = sys.argv[1], sys.argv[2]
l, h, tp, pp, dp, gpus, batch, mbs, v = (int(x) for x in sys.argv[3:12])
ddp, pub = sys.argv[12], float(sys.argv[13])
r = json.load(open(path))
t = r["iteration_time_ns"] / 1e9
s, V = 2048, 51200
F = 96 * batch * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h))
got = F / t / gpus / 1e12
hfu = r["hardware_flops"] / t / gpus / 1e12
print(f"{name:<8} {tp:3d} {pp:3d} {dp:3d} {gpus:5d} {batch:5d} {mbs:3d} {v:2d} {ddp:>5} {t:9.3f} {pub:9.0f} {got:9.1f} {hfu:9.1f} {100 * (got - pub) / pub:+6.1f}%")
PY
done | tee "$TMP/out"
if [ -z "$WANT" ]; then
    awk '{ e = $NF; gsub(/[%+]/, "", e); if (e < 0) e = -e; s += e; n++ }
         END { printf "mean absolute error over %d rows: %.1f %%\n", n, s / n }' "$TMP/out"
fi
