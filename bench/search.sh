#!/usr/bin/env bash
# search.sh -- the plan search of issue 13 (docs/performance.md, "Plan
# search"): Llama 3 405B on 2,048 DGX H100 (16,384 GPUs), global batch 2048
# sequences of 8192 tokens, the default space; wall and CPU time, peak
# memory, plans estimated per second, the top 5 simulated.  A second case
# widens the space (CP 1-16, micro-batch 1-8) to measure the ranking tier
# alone (--top 0).
#   usage: bench/search.sh [CLUSTERSIM_BINARY]
set -u
BIN=$(realpath "${1:-build/clustersim}")
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
BASE=(--model llama3-405b --device H100-SXM --network-configuration="$HERE/networks/dgx_h100_2048nodes.yml"
      --global-batch 2048 --no-progress)
run() {
    local name=$1; shift
    /usr/bin/time -f '%e %U %M' -o "$TMP/time" "$BIN" search "${BASE[@]}" "$@" --out "$TMP/$name" > "$TMP/$name.txt" 2>&1 \
        || { echo "$name failed:"; cat "$TMP/$name.txt"; return; }
    read -r wall user kb < "$TMP/time"
    printf '%-8s wall %6.2f s  user %6.2f s  peak %5.0f MB\n' "$name" "$wall" "$user" "$((kb / 1024))"
    grep -E "space|estimates|best plan" "$TMP/$name.txt"
    sed -n '/simulated (/,/^$/p' "$TMP/$name.txt" | head -8
}
run default
run wide --cp 1,2,4,8,16 --micro-batch 1,2,4,8 --virtual-stages 1,2,3,4,6,8 --top 0
