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
#            (class mode: TP and DP axes, cp x pp = 256 representatives)
#   gpt4k-full  gpt4k with --symmetry off (every rank simulated; ~3 min)
#   gpt4k-tp4 GPT-3 175B, TP 4 + SP, PP 16, DP 64, selective recompute, on
#            512 DGX A100 (TP fills half a server: 32 representatives)
#   gpt4k-tp2 GPT-3 175B, TP 2 + SP, PP 32, DP 64, ZeRO-1, full recompute, on
#            512 DGX A100 (TP fills a quarter of a server: 128 representatives)
#   moe1k    Mixtral 8x7B, TP 8 + SP, PP 4, DP 32, EP 8, ZeRO-1, full
#            recompute, on 128 DGX A100 (1,024 GPUs; 32 representatives)
#   hsdp1k   Llama 3 70B, TP 8 + SP, DP 128 as HSDP (_HYBRID_SHARD_ZERO2,
#            shard groups of 16, no_sync), full recompute, on 128 DGX A100
#            (16 representatives)
#   llama128k-p2p  llama128k with ring attention (--cp-comm p2p)
#   l70-rail Llama 3 70B, TP 8 + SP, PP 4, DP 32, selective recompute, flash
#            attention, 512 sequences, on 128 HGX H100 (1,024 GPUs), the nccl
#            collective model, --backend flow on a rail-optimized 1:1 fabric
#            (bench/networks/hgx_h100_128nodes*; issue 11's benchmark: every
#            rank simulated)
#   l70-clos3  l70-rail on a plainly wired 2-tier Clos with 3:1 leaf uplinks
#   l70-ana  l70-rail on the analytical backend (class mode: 4 representatives)
#   llama8k-meta, llama16k-meta, llama128k-meta  Llama 3 405B as Meta trained
#            it (Dubey et al. 2024, Table 4's three rows; docs/validation.md):
#            TP 8 + SP, PP 16 with the layout E|(t|)*126L (8 chunks per
#            stage), FSDP SHARD_GRAD_OP under no_sync with fp32 gradients,
#            flash attention, no recompute (--no-memory-check), DP 64 / 128 /
#            CP 16 x DP 8; --symmetry require: with the generator's default
#            system (nccl model, per-communicator queues) class mode runs;
#            with shared queues it stops on all three (the full run itself is
#            not symmetric there: docs/performance.md, "FSDP with
#            interleaving") and each case fails fast and prints why; on
#            networks/dgx_h100_*nodes_nccl.yml (NCCL's bandwidths, what the
#            nccl model's B stands for; since 2026-11-28)
#   llama8k-meta-pc, llama16k-meta-pc, llama128k-meta-pc  the same with the
#            astra collective model and communicator-queues: per-communicator
#            (the figures measured before nccl became the default), on
#            networks/dgx_h100_*nodes.yml (the datasheet's links)
# Each case runs `clustersim train` once under /usr/bin/time.  The cases use
# the generator's default system (docs/generator.md: the nccl model since
# 2026-11-27) unless they say otherwise; CS_TRAIN_ARGS adds options to every
# case, e.g. CS_TRAIN_ARGS="--set system.collective-model=astra" for the
# figures measured with the astra model.
#   usage: [CS_TRAIN_ARGS=...] bench/train.sh [CLUSTERSIM_BINARY] [case ...]
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
printf '%-13s %8s %8s %10s %14s %16s %14s %6s\n' case wall_s user_s peak_MB step_time_s events_simulated events_represented ranks
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
    gpt4k-tp4) ARGS=(--model gpt3-175b --tp 4 --pp 16 --dp 64 --sp --recompute selective --global-batch 2048
                     --network-configuration="$HERE/networks/dgx_a100_512nodes.yml") ;;
    gpt4k-tp2) ARGS=(--model gpt3-175b --tp 2 --pp 32 --dp 64 --sp --recompute full --zero 1 --global-batch 2048
                     --network-configuration="$HERE/networks/dgx_a100_512nodes.yml") ;;
    moe1k) ARGS=(--model mixtral-8x7b --tp 8 --pp 4 --dp 32 --ep 8 --sp --recompute full --zero 1 --global-batch 1024
                 --network-configuration="$HERE/networks/dgx_a100_128nodes.yml") ;;
    hsdp1k) ARGS=(--model llama3-70b --tp 8 --dp 128 --fsdp-sharding-strategy _HYBRID_SHARD_ZERO2 --hsdp-shard-size 16
                  --fsdp-no-sync --sp --recompute full --global-batch 512
                  --network-configuration="$HERE/networks/dgx_a100_128nodes.yml") ;;
    llama128k-p2p) ARGS=(--model "$HERE/models/llama3-405b-128k.json" --device H100-SXM --tp 8 --cp 16 --cp-comm p2p
                     --pp 16 --dp 8 --sp --recompute full --flash-attention --zero 1 --micro-batch 1 --global-batch 128
                     --network-configuration="$HERE/networks/dgx_h100_2048nodes.yml") ;;
    l70-rail | l70-clos3 | l70-ana)
        ARGS=(--model llama3-70b --device H100-SXM --tp 8 --pp 4 --dp 32 --sp --recompute selective --flash-attention
              --global-batch 512 --set system.collective-model=nccl
              --network-configuration="$HERE/networks/hgx_h100_128nodes.yml")
        case $c in
        l70-rail) ARGS+=(--backend flow --topology "$HERE/networks/hgx_h100_128nodes_rail.json") ;;
        l70-clos3) ARGS+=(--backend flow --topology "$HERE/networks/hgx_h100_128nodes_clos3.json") ;;
        esac ;;
    llama8k-meta* | llama16k-meta* | llama128k-meta*)
        ARGS=(--model llama3-405b --device H100-SXM --tp 8 --pp 16 --sp --flash-attention --layout "E|(t|)*126L"
              --fsdp-sharding-strategy SHARD_GRAD_OP --fsdp-no-sync --fsdp-reduce-dtype fp32 --micro-batch 1
              --no-memory-check --symmetry require)
        case $c in *-pc) ARGS+=(--set system.collective-model=astra --set system.communicator-queues=per-communicator) ;; esac
        # the nccl model (default) on NCCL's bandwidths, the astra model (-pc) on the datasheet's
        NS=_nccl
        case $c in *-pc) NS= ;; esac
        case $c in
        llama8k-meta*) ARGS+=(--dp 64 --global-batch 2048 --network-configuration="$HERE/networks/dgx_h100_1024nodes$NS.yml") ;;
        llama16k-meta*) ARGS+=(--dp 128 --global-batch 2048 --network-configuration="$HERE/networks/dgx_h100_2048nodes$NS.yml") ;;
        *) ARGS+=(--cp 16 --dp 8 --seq 131072 --global-batch 128
                  --network-configuration="$HERE/networks/dgx_h100_2048nodes$NS.yml") ;;
        esac ;;
    *) echo "unknown case $c" >&2; continue ;;
    esac
    # shellcheck disable=SC2206
    EXTRA=(${CS_TRAIN_ARGS:-})
    ARGS+=("${EXTRA[@]}")
    if ! /usr/bin/time -f '%e %U %M' -o "$TMP/time" "$BIN" train "${ARGS[@]}" --json "$TMP/$c.json" > "$TMP/$c.txt" 2>&1; then
        echo "$c: failed:" >&2
        cat "$TMP/$c.txt" >&2
        continue
    fi
    read -r wall user kb < "$TMP/time"
    python3 - "$c" "$wall" "$user" "$kb" "$TMP/$c.json" <<'PY'
import json, sys
c, wall, user, kb, path = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
j = json.load(open(path))
sim = j["events"] * j["simulated_ranks"] // j["ranks"]
print(f"{c:<13} {wall:8.2f} {user:8.2f} {kb / 1024:10.0f} {j['iteration_time_ns'] / 1e9:14.4f} {sim:16d} "
      f"{j['events']:14d} {j['simulated_ranks']:6d}")
PY
done
