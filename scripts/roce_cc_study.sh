#!/usr/bin/env bash
# roce_cc_study.sh -- does congestion control change the step time of
# all-reduce-heavy training traffic when PFC is on? (issue 14: reproduce,
# on our own runs, the qualitative finding of the RoCE-for-training
# literature; docs/network.md, "Congestion control under PFC").
#
# 128 GPUs, one 400 Gb/s NIC each, on examples/roce_clos: 16 leaves of 8,
# 4 spines, 3:1 oversubscribed uplinks (topology.json) or 1:1
# (topology_1to1.json); the packet backend, lossless (PFC on, the
# default), every congestion control it has with its documented defaults
# (backend.packet.cc: none, dcqcn, dctcp, timely, hpcc, swift).  Workloads:
#   ar256   one 256 MiB ring all-reduce (examples/roce_clos/allreduce_256m.et)
#   a2a64   one 64 MiB all-to-all, direct (alltoall_64m.et): many-to-one bursts
#   resnet  a ResNet-50 data-parallel training step (DP 128, 32 images per
#           GPU, 25 MB DDP buckets overlapping the backward; `train`)
# Printed per run: the simulated time (us), PFC pause summed over links
# (us), ECN marks, drops, the largest egress queue (KiB) and the CPU
# seconds of the run.  Nothing here is fitted: every parameter is the
# backend's default (docs/network.md lists them with their sources).
# CS_STUDY_SET=KEY=VALUE adds one --set to every run (e.g.
# backend.packet.queue_pairs=message: the model before queue pairs).
#   usage: scripts/roce_cc_study.sh [workload ...]    (default: all three)
set -eu
BIN=${CS_BIN:-build/clustersim}
E=$(cd "$(dirname "$0")/../examples/roce_clos" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
CCS="none dcqcn dctcp timely hpcc swift"
printf '%-7s %-5s %-7s %12s %12s %10s %6s %10s %7s\n' workload fabric cc time_us pfc_pause_us ecn_marks drops maxq_KiB cpu_s
one() { # workload fabric cc
    local w=$1 f=$2 cc=$3 topo out=$TMP/$1_$2_$3
    topo=$E/topology.json
    [ "$f" = 1:1 ] && topo=$E/topology_1to1.json
    local common=(--network-configuration="$E/network.yml" --topology "$topo" --backend packet
                  --set backend.packet.cc="$cc" --out "$out" --no-progress)
    [ -n "${CS_STUDY_SET:-}" ] && common+=(--set "$CS_STUDY_SET")
    case $w in
    ar256) /usr/bin/time -f %U -o "$out.cpu" "$BIN" run --workload-configuration="$E/allreduce_256m.et" \
               --system-configuration="$E/system.json" "${common[@]}" --quiet > "$out.log" 2>&1 ;;
    a2a64) /usr/bin/time -f %U -o "$out.cpu" "$BIN" run --workload-configuration="$E/alltoall_64m.et" \
               --system-configuration="$E/system.json" "${common[@]}" --quiet > "$out.log" 2>&1 ;;
    resnet) /usr/bin/time -f %U -o "$out.cpu" "$BIN" train --model resnet50 --dp 128 --global-batch 4096 \
               "${common[@]}" > "$out.log" 2>&1 ;;
    esac || { echo "$w $f $cc failed:"; cat "$out.log"; return 1; }
    local t
    t=$(grep -o '"sim_time_ns": [0-9.]*' "$out/summary.json" | grep -o '[0-9.]*$')
    # links.csv: ... drops,ecn_marks,pfc_paused_ns,max_queue_bytes (the last four columns)
    awk -F, -v w="$w" -v f="$f" -v cc="$cc" -v t="$t" -v cpu="$(tail -1 "$out.cpu")" '
        NR == 1 { next }
        { d += $(NF-3); e += $(NF-2); p += $(NF-1); if ($NF > q) q = $NF }
        END { printf "%-7s %-5s %-7s %12.1f %12.1f %10d %6d %10.1f %7.2f\n", w, f, cc, t / 1000, p / 1000, e, d, q / 1024, cpu }' \
        "$out/links.csv"
}
for w in ${*:-ar256 a2a64 resnet}; do
    for f in 3:1 1:1; do
        [ "$w" = resnet ] && [ "$f" = 1:1 ] && continue
        for cc in $CCS; do one "$w" "$f" "$cc"; done
    done
done
