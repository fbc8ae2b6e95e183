#!/usr/bin/env bash
# validate_megatron.sh -- the weak-scaling table of Narayanan et al. 2021
# ("Efficient Large-Scale Language Model Training on GPU Clusters Using
# Megatron-LM", SC21, Table 1): GPT models of 1.7 B to 1 T parameters on
# 32 to 3,072 A100 80 GB GPUs (Selene: DGX A100 nodes, NVSwitch inside,
# 8 x 200 Gb/s HDR InfiniBand per node), sequence 2048, vocabulary 51200.
# Each row runs through `clustersim train` and its step time is turned into
# teraFLOP/s per GPU with the paper's own count (eq. 3, which includes full
# activation recomputation):
#     F = 96 B s l h^2 (1 + s / (6 h) + V / (16 l h))  per step, / (time x GPUs).
# The table gives tensor/pipeline sizes, GPUs and batch, not the micro-batch
# or the schedule: we run micro-batch 1, full recomputation, plain 1F1B.
# Prints published and simulated throughput per row (docs/validation.md).
#   usage: scripts/validate_megatron.sh [row ...]      (rows: 1.7b ... 1008b)
set -eu
BIN=${CS_BIN:-build/clustersim}
EX=$(cd "$(dirname "$0")/../examples/megatron" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# row  layers hidden  tp pp  gpus  batch  published TFLOP/s per GPU
ROWS="1.7b 24 2304 1 1 32 512 137
3.6b 30 3072 2 1 64 512 138
7.5b 36 4096 4 1 128 512 142
18.4b 40 6144 8 1 256 1024 135
39.1b 48 8192 8 2 512 1536 138
76.1b 60 10240 8 4 1024 1792 140
145.6b 80 12288 8 8 1536 2304 148
310.1b 96 16384 8 16 1920 2160 155
529.6b 105 20480 8 35 2520 2520 163
1008b 128 25600 8 64 3072 3072 163"
WANT=${*:-}
printf '%-8s %6s %4s %4s %5s %6s %10s %10s %10s %7s\n' model tp pp dp gpus batch step_s published simulated error
echo "$ROWS" | while read -r name l h tp pp gpus batch pub; do
    if [ -n "$WANT" ] && ! echo " $WANT " | grep -q " $name "; then continue; fi
    dp=$((gpus / (tp * pp)))
    printf 'topology: [ Switch, Switch ]\nnpus_count: [ 8, %d ]\nbandwidth: [ 279.4, 23.28 ]\nlatency: [ 700.0, 3000.0 ]\n' \
        $((gpus / 8)) > "$TMP/net.yml"
    "$BIN" train --model "$EX/gpt-$name.json" --device A100-80GB --tp "$tp" --pp "$pp" --dp "$dp" --recompute full \
        --micro-batch 1 --global-batch "$batch" --network-configuration="$TMP/net.yml" --json "$TMP/r.json" --quiet
    python3 - "$TMP/r.json" "$name" "$l" "$h" "$tp" "$pp" "$dp" "$gpus" "$batch" "$pub" <<'PY'
import json, sys
path, name = sys.argv[1], sys.argv[2]
l, h, tp, pp, dp, gpus, batch = (int(x) for x in sys.argv[3:10])
pub = float(sys.argv[10])
t = json.load(open(path))["iteration_time_ns"] / 1e9
s, V = 2048, 51200
F = 96 * batch * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h))
got = F / t / gpus / 1e12
print(f"{name:<8} {tp:6d} {pp:4d} {dp:4d} {gpus:5d} {batch:6d} {t:10.3f} {pub:10.0f} {got:10.1f} {100 * (got - pub) / pub:+6.1f}%")
PY
done
