#!/usr/bin/env bash
# cli_link_bound.sh -- no link above its bandwidth, for every collective
# algorithm on the backends that share links (issue 11: concurrent chunks
# must share a link on analytical-congestion and flow).  Switch(8), 50 GB/s
# (53.6870912 bytes/ns per NPU link each way), a 4 MiB all-reduce in 4
# chunks, all 4 in flight: each NPU's bytes on its one link to the switch,
# over the collective's time, stay at or below 53.687 bytes/ns (the
# collective's own bytes_sent / 8 NPUs); on flow also every link's bytes
# over its busy time (within 0.1 %: a transfer ends on a whole ns, so a busy
# time falls short by under 1 ns per transfer -- e.g. 7,340,032 bytes in
# 136,710 busy ns is 0.007 % over) and its peak utilization, max-min's, at
# most 1 exactly (links.csv).  The
# congestion-unaware `analytical` backend is exempt by design (ASTRA-sim's
# semantics: concurrent messages do not share links).
. "$(dirname "$0")/lib_cli.sh"
: "${CS_MKTRACE:?}"
cd "$CS_TMP" || exit 1
printf 'topology: [ Switch ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' > n8.yml
"$CS_MKTRACE" ar.et "1 COLL ctype=0 size=4194304" || fail "mktrace"
for algo in ring direct halvingDoubling doubleBinaryTree inSwitch; do
    printf '{"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 4,\n "preferred-dataset-splits": 4, "all-reduce-implementation": ["%s"],\n "all-gather-implementation": ["ring"], "reduce-scatter-implementation": ["ring"],\n "all-to-all-implementation": ["ring"], "collective-optimization": "baseline", "local-mem-bw": 1600}\n' "$algo" > s.json
    for be in analytical-congestion flow; do
        "$CS_BIN" run --workload-configuration=ar.et --network-configuration=n8.yml --system-configuration=s.json \
            --backend $be --out o_${algo}_$be --quiet 2> e || { fail "$algo on $be: $(cat e)"; continue; }
        # collectives.csv: column 11 time_ns, 17 bytes_sent (all ranks)
        awk -F, 'NR == 2 { exit !($17 / 8 / $11 <= 53.6870912 * (1 + 1e-9)) }' o_${algo}_$be/collectives.csv ||
            { fail "$algo on $be: $(sed -n 2p o_${algo}_$be/collectives.csv | cut -d, -f11,17) -- above 53.687 bytes/ns per NPU"; continue; }
        if [ $be = flow ]; then
            awk -F, 'NR > 1 && $9 > 0 && ($9 > $6 * $10 * (1 + 1e-3) || $12 > 1 + 1e-9) { bad = $0 } END { if (bad) { print bad; exit 1 } }' \
                o_${algo}_$be/links.csv > bad || { fail "$algo on flow: a link above its bandwidth: $(cat bad)"; continue; }
        fi
        pass "$algo on $be: no link above its bandwidth"
    done
done
# collective-model nccl across nodes with nccl-collnet (docs/collectives.md "CollNet"): the in-network
# reductions run inSwitch on the NET dimension (4 nodes of Switch(8) at 400 bytes/ns, NICs at 40 bytes/ns
# each way, Switch(4) per rail).  Two all-reduces (the trace runs them one after the other): each NPU's
# bytes on its NIC over the run's time stay at or below 40 bytes/ns, and on flow every link's too.
# CollNet Chain (64 MiB), CollNet Direct (4 MiB), NVLS + SHARP (with nccl-nvls, 4 MiB: 58,208 to 5,802,247 B).
printf 'topology: [ Switch, Switch ]\nnpus_count: [ 8, 4 ]\nbandwidth: [ 372.52902984619140625, 37.252902984619140625 ]\nlatency: [ 0, 0 ]\n' > mn4.yml
printf '{"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 4,\n "preferred-dataset-splits": 1, "local-mem-bw": 1600, "collective-optimization": "localBWAware",\n "all-reduce-implementation": ["ring", "ring"], "collective-model": "nccl", "nccl-collnet": 1}\n' > cn.json
while read -r what size nvls; do
    "$CS_MKTRACE" cn.et "1 COLL ctype=0 size=$size; 2 COLL ctype=0 size=$size" || fail "mktrace"
    for be in analytical-congestion flow; do
        rm -rf o_cn
        "$CS_BIN" run --workload-configuration=cn.et --network-configuration=mn4.yml --system-configuration=cn.json \
            --set system.nccl-nvls=$nvls --backend $be --out o_cn --quiet 2> e || { fail "$what on $be: $(cat e)"; continue; }
        grep -q "nccl:$what/Simple" o_cn/collectives.csv || { fail "$what on $be: not chosen: $(cut -d, -f16 o_cn/collectives.csv)"; continue; }
        # both collectives' bytes (column 17) over the time from the first start to the last end (columns 9, 10)
        awk -F, 'NR > 1 { b += $17; if (NR == 2 || $9 < s) s = $9; if ($10 > e) e = $10 } END { exit !(b / 32 / (e - s) <= 40 * (1 + 1e-9)) }' \
            o_cn/collectives.csv || { fail "$what on $be: above 40 bytes/ns per NIC: $(cut -d, -f9,10,17 o_cn/collectives.csv)"; continue; }
        if [ $be = flow ]; then
            awk -F, 'NR > 1 && $9 > 0 && ($9 > $6 * $10 * (1 + 1e-3) || $12 > 1 + 1e-9) { bad = $0 } END { if (bad) { print bad; exit 1 } }' \
                o_cn/links.csv > bad || { fail "$what on flow: a link above its bandwidth: $(cat bad)"; continue; }
        fi
        pass "$what on $be: no link above its bandwidth"
    done
done <<'TABLE'
CollNetChain 67108864 0
CollNetDirect 4194304 0
NVLS 4194304 1
TABLE
finish
