#!/usr/bin/env bash
# packet_cc.sh -- the congestion controls side by side on bench/packet.sh's
# 16:1 incast (hosts 60, 120, ..., 960 send 2 MB each to host 0 on the
# 1,024-host two-tier fat-tree, every link 50 GB/s (ASTRA-sim's GiB/s) and
# 1 us): per control, lossless (PFC, the default) and lossy (pfc off), the
# first and last flow done, the largest queue anywhere, drops, packets sent
# again and PFC pause.  Results in docs/network.md, "Swift".
# usage: bench/packet_cc.sh [CLUSTERSIM] [MKTRACE] [cc ...]
set -u
HERE=$(dirname "$(realpath "$0")")
BIN=$(realpath "${1:-build/clustersim}")
MK=$(realpath "${2:-build/tests/cs_mktrace}")
shift 2 2>/dev/null
CCS=${*:-none dcqcn dctcp timely hpcc swift}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1
. "$HERE/packet_scenario.sh"
packet_scenario 50 || exit 1
printf '| cc | PFC | first done (us) | last done (us) | largest queue (KB) | drops | retransmitted | PFC pause (us) |\n'
printf '|---|---|---:|---:|---:|---:|---:|---:|\n'
for cc in $CCS; do
    for pfc in true false; do
        "$BIN" run --workload-configuration=inc --network-configuration=net.yml --system-configuration=sys.json \
            --topology=ft.json --backend packet --set backend.packet.cc="$cc" --set backend.packet.pfc=$pfc \
            --quiet --out out >/dev/null 2>err.txt || { echo "| $cc | $pfc | failed: $(head -c 300 err.txt) |"; continue; }
        python3 - "$cc" "$pfc" <<'PY'
import csv, json, re, sys
s = json.load(open("out/summary.json"))["network_summary"]
fin = [float(r["finish_ns"]) for r in csv.DictReader(open("out/flows.csv"))]
q = max(int(r["max_queue_bytes"]) for r in csv.DictReader(open("out/links.csv")))
num = lambda pat: re.search(pat, s).group(1)
pause = re.search(r"PFC pause ([0-9.]+) us", s)
print(f"| {sys.argv[1]} | {'on' if sys.argv[2] == 'true' else 'off'} | {min(fin) / 1e3:.1f} | {max(fin) / 1e3:.1f} | "
      f"{q / 1e3:.0f} | {num(r'([0-9]+) dropped')} | {num(r'([0-9]+) retransmitted')} | "
      f"{pause.group(1) if pause else '0'} |")
PY
    done
done
