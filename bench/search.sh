#!/usr/bin/env bash
# search.sh -- the plan search of issue 13 (docs/performance.md, "Plan
# search"): Llama 3 405B on 2,048 DGX H100 (16,384 GPUs), global batch 2048
# sequences of 8192 tokens, the default space; wall and CPU time, peak
# memory, plans estimated per second, the top 5 simulated.  A second case
# widens the space (CP 1-16, micro-batch 1-8) to measure the ranking tier
# alone (--top 0).  A third (issue 12's 100-plan bar) simulates the best
# 100 plans of GPT-3 175B on 128 DGX A100 (1,024 GPUs) at GPT-3's batch
# (1536 sequences of 2048 tokens), on one worker and on two (-j).
#   usage: bench/search.sh [CLUSTERSIM_BINARY [CASE...]]   CASE: default wide gpt1k-j1 gpt1k-j2
#   (no CASE: default and wide; the gpt1k cases take minutes)
set -u
BIN=$(realpath "${1:-build/clustersim}")
shift $(( $# < 1 ? $# : 1 ))
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
L405=(--model llama3-405b --device H100-SXM --network-configuration="$HERE/networks/dgx_h100_2048nodes.yml"
      --global-batch 2048 --no-progress)
G175=(--model gpt3-175b --network-configuration="$HERE/networks/dgx_a100_128nodes.yml" --global-batch 1536
      --top 100 --no-progress)
run() {
    local name=$1; shift
    # user + system CPU of the process and its workers (-j), as /usr/bin/time counts waited-for children
    /usr/bin/time -f '%e %U %S %M' -o "$TMP/time" "$BIN" search "$@" --out "$TMP/$name" > "$TMP/$name.txt" 2>&1 \
        || { echo "$name failed:"; cat "$TMP/$name.txt"; return; }
    read -r wall user sys kb < "$TMP/time"
    awk -v n="$name" -v w="$wall" -v u="$user" -v s="$sys" -v k="$kb" \
        'BEGIN { printf "%-9s wall %6.2f s  CPU %6.2f s  peak %5.0f MB (one process)\n", n, w, u + s, k / 1024 }'
    grep -E "space|estimates|best plan" "$TMP/$name.txt"
    sed -n '/simulated (/,/^$/p' "$TMP/$name.txt" | head -8
}
for c in ${*:-default wide}; do
    case $c in
    default) run default "${L405[@]}" ;;
    wide) run wide "${L405[@]}" --cp 1,2,4,8,16 --micro-batch 1,2,4,8 --virtual-stages 1,2,3,4,6,8 --top 0 ;;
    gpt1k-j1) run gpt1k-j1 "${G175[@]}" -j 1 ;;
    gpt1k-j2) run gpt1k-j2 "${G175[@]}" -j 2 ;;
    *) echo "search.sh: unknown case $c (default wide gpt1k-j1 gpt1k-j2)" >&2; exit 2 ;;
    esac
done
