#!/usr/bin/env bash
# packet.sh -- the packet backend's performance scenarios of issue 14 (results
# in docs/performance.md, "Packet backend"): delivered bytes and events per
# CPU-second, wall and CPU time, peak memory, for
#   perm1k    a permutation on a 1,024-host two-tier fat-tree (32 leaves of
#             32 hosts, 32 spines, 1:1, 50 GB/s, 1 us per link): host r sends
#             2 MB to host (r * 389 + 17) mod 1024 (a fixed permutation)
#   incast16  16 hosts (60, 120, ..., 960) send 2 MB each to host 0 on the same fat-tree
#   step1k    a full ring all-reduce of 64 MiB over the 1,024 hosts (the
#             collective at the heart of a training step)
# with the backend's defaults (lossless, PFC, no congestion control) and,
# for perm1k, DCQCN.  usage: bench/packet.sh [CLUSTERSIM] [MKTRACE] [case ...]
set -u
HERE=$(dirname "$(realpath "$0")")
BIN=$(realpath "${1:-build/clustersim}")
MK=$(realpath "${2:-build/tests/cs_mktrace}")
shift 2 2>/dev/null
CASES=${*:-perm1k incast16 step1k}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1
. "$HERE/packet_scenario.sh"
packet_scenario 50 || exit 1
"$MK" ar.et "1 COLL ctype=0 size=67108864" || exit 1
printf '| case | cc | simulated | events | delivered GB | wall (s) | CPU (s) | peak RSS (MB) | GB / CPU-s | Mevents / CPU-s |\n'
printf '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n'
run() { # $1 case, $2 cc, rest: workload flags
    local c=$1 cc=$2
    shift 2
    /usr/bin/time -f '%e %U %S %M' -o t.txt "$BIN" run "$@" --network-configuration=net.yml \
        --system-configuration=sys.json --topology=ft.json --backend packet --set backend.packet.cc=$cc \
        --quiet --out out >/dev/null 2>err.txt || { echo "| $c | $cc | failed: $(head -c 300 err.txt) |"; return; }
    python3 - "$c" "$cc" <<'PY'
import json, sys
s = json.load(open("out/summary.json"))
wall, user, sys_, rss = open("t.txt").read().split()
cpu = float(user) + float(sys_)
ev = s["totals"]["events"]
gb = s["totals"]["network_bytes"] / 1e9
print(f"| {sys.argv[1]} | {sys.argv[2]} | {s['sim_time_ns'] / 1e3:.1f} us | {ev} | {gb:.3f} | {float(wall):.2f} | {cpu:.2f} | "
      f"{int(rss) / 1024:.0f} | {gb / cpu:.2f} | {ev / cpu / 1e6:.2f} |")
PY
}
for c in $CASES; do
    case $c in
    perm1k) run perm1k none --workload-configuration=perm; run perm1k dcqcn --workload-configuration=perm ;;
    incast16) run incast16 none --workload-configuration=inc ;;
    step1k) run step1k none --workload-configuration=ar.et ;;
    *) echo "unknown case $c" ;;
    esac
done
