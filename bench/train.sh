#!/usr/bin/env bash
# train.sh -- the generator's performance cases of issue 4 (results in
# docs/performance.md, "Generated training steps"): wall time, peak memory,
# simulated and represented events and the step time of
#   k175     GPT-3 175B, TP 8 + SP, PP 8, selective recompute, batch 64, on
#            8 DGX A100 (Korthikanti et al.'s case; 64 GPUs)
#   gpt4k    GPT-3 175B, TP 8 + SP, PP 16, DP 32, 1F1B, 64 micro-batches,
#            selective recompute, on 512 DGX A100 (4,096 GPUs)
#   llama16k Llama 3 405B, TP 8 + SP, PP 16 (126 layers: 7 + 14 x 8 + 7),
#            DP 128, 1F1B, ZeRO-1, full recompute, global batch 2048
#            sequences of 8192 tokens (16M tokens), on 2,048 DGX H100
#            (16,384 GPUs)
#   llama16k-v4  llama16k with interleaved 1F1B, 4 chunks per stage (126
#            layers in 64 chunks of 2 and 1)
#   llama128k Llama 3 405B at 131,072 tokens (bench/models/), TP 8 + SP,
#            CP 16 (8,192 tokens per rank, K/V all-gathered), PP 16, DP 8,
#            ZeRO-1, full recompute, flash attention, 128 sequences (16M
#            tokens), on 2,048 DGX H100 -- Llama 3's long-context stage
#            (class mode keeps only the TP axis with CP and DP; ~75 s, 1.6 GB)
#   gpt4k-full  gpt4k with --symmetry off (every rank simulated; ~3 min)
# Each case runs `clustersim train` once under /usr/bin/time.
#   usage: bench/train.sh [CLUSTERSIM_BINARY] [case ...]
set -u
BIN=$(realpath "${1:-build/clustersim}")
shift 1 2>/dev/null
CASES=${*:-k175 gpt4k llama16k}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(dirname "$HERE")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
GPT4K=(--model gpt3-175b --tp 8 --pp 16 --dp 32 --sp --recompute selective --micro-batch 1 --global-batch 2048
       --schedule 1f1b --network-configuration="$HERE/networks/dgx_a100_512nodes.yml")
printf '%-11s %8s %10s %14s %16s %14s\n' case wall_s peak_MB step_time_s events_simulated events_represented
for c in $CASES; do
    case $c in
    k175) ARGS=(--model gpt3-175b --tp 8 --pp 8 --sp --recompute selective --global-batch 64
                --network-configuration="$SRC/examples/korthikanti/dgx_a100_8nodes.yml") ;;
    gpt4k) ARGS=("${GPT4K[@]}") ;;
    gpt4k-full) ARGS=("${GPT4K[@]}" --symmetry off) ;;
    llama16k) ARGS=(--model llama3-405b --device H100-SXM --tp 8 --pp 16 --dp 128 --sp --recompute full --zero 1
                    --micro-batch 1 --global-batch 2048
                    --network-configuration="$HERE/networks/dgx_h100_2048nodes.yml") ;;
    llama16k-v4) ARGS=(--model llama3-405b --device H100-SXM --tp 8 --pp 16 --dp 128 --sp --recompute full --zero 1
                    --micro-batch 1 --global-batch 2048 --virtual-stages 4
                    --network-configuration="$HERE/networks/dgx_h100_2048nodes.yml") ;;
    llama128k) ARGS=(--model "$HERE/models/llama3-405b-128k.json" --device H100-SXM --tp 8 --cp 16 --pp 16 --dp 8 --sp
                     --recompute full --flash-attention --zero 1 --micro-batch 1 --global-batch 128
                     --network-configuration="$HERE/networks/dgx_h100_2048nodes.yml") ;;
    *) echo "unknown case $c" >&2; continue ;;
    esac
    if ! /usr/bin/time -f '%e %M' -o "$TMP/time" "$BIN" train "${ARGS[@]}" --json "$TMP/$c.json" > "$TMP/$c.txt" 2>&1; then
        echo "$c: failed:" >&2
        cat "$TMP/$c.txt" >&2
        continue
    fi
    read -r wall kb < "$TMP/time"
    python3 - "$c" "$wall" "$kb" "$TMP/$c.json" <<'PY'
import json, sys
c, wall, kb, path = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
j = json.load(open(path))
sim = j["events"] * j["simulated_ranks"] // j["ranks"]
print(f"{c:<11} {wall:8.2f} {kb / 1024:10.0f} {j['iteration_time_ns'] / 1e9:14.4f} {sim:16d} {j['events']:14d}")
PY
done
