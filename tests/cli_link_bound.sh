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
finish
