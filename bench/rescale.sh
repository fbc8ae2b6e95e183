#!/usr/bin/env bash
# rescale.sh -- time and peak memory of `clustersim rescale`: GPT-3 6.7B
# generated on 8 ranks (TP 2, PP 2, DP 2, 4 micro-batches per rank; 1,182 to
# 1,205 nodes per rank, about 90 KB per file) rescaled to DP 256 (1,024 ranks)
# and DP 4096 (16,384 ranks, about 1.5 GB of traces), each under
# /usr/bin/time -v: wall, user and system seconds, peak resident memory, and
# the bytes written.  The traces go to a temporary directory (TMPDIR) and are
# removed.
#   usage: bench/rescale.sh [CLUSTERSIM_BINARY] [TARGET_DP...]
set -u
BIN=${1:-build/clustersim}
shift
DPS=${*:-256 4096}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$BIN" generate --model gpt3-6.7b --tp 2 --pp 2 --dp 2 --micro-batch 1 --global-batch 8 --out "$TMP/s" >/dev/null || exit 1
printf '%-8s %-7s %8s %8s %8s %10s %10s\n' dp ranks wall_s user_s sys_s peak_MB written_MB
for dp in $DPS; do
    /usr/bin/time -v "$BIN" rescale --workload-configuration="$TMP/s" --comm-group-configuration="$TMP/s.comm_groups.json" \
        --tp 2 --pp 2 --to-dp "$dp" --out "$TMP/r" --quiet 2> "$TMP/time.txt" || { cat "$TMP/time.txt"; exit 1; }
    wall=$(grep 'Elapsed (wall' "$TMP/time.txt" | awk '{print $NF}' | awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }')
    user=$(grep 'User time' "$TMP/time.txt" | awk '{print $NF}')
    sys=$(grep 'System time' "$TMP/time.txt" | awk '{print $NF}')
    rss=$(grep 'Maximum resident' "$TMP/time.txt" | awk '{printf "%.1f", $NF / 1024}')
    mb=$(du -cm "$TMP"/r.* | tail -1 | awk '{print $1}')
    printf '%-8s %-7s %8s %8s %8s %10s %10s\n' "$dp" $((4 * dp)) "$wall" "$user" "$sys" "$rss" "$mb"
    rm -f "$TMP"/r.*
done
