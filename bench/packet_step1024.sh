#!/usr/bin/env bash
# packet_step1024.sh -- issue 14's second performance goal: a full training
# step of a 1,024-GPU job on the packet backend (docs/performance.md, "A full
# 1,024-GPU training step on packet").  Llama 3 8B, TP 8, DP 128, 128
# sequences, full recomputation, H100, on 128 HGX-like servers (`servers`
# builder, rail-wired leaves of 32 NICs), --backend packet with its defaults.
# Each binary given runs the step under --max-wall WALL seconds, one after the
# other, alternating, ROUNDS times (the machine is shared: compare binaries in
# one session); a line per run: events dispatched, simulated ms reached, wall
# and CPU seconds, events per CPU-second, the load average at its start.
#
# The step uses the generator's default system (the nccl model since
# 2026-11-27); CS_STEP_ARGS adds options to train, e.g.
# CS_STEP_ARGS="--set system.collective-model=astra" for the astra-model step
# measured before (docs/performance.md).
#
# usage: [CS_STEP_ARGS=...] bench/packet_step1024.sh WALL ROUNDS CLUSTERSIM [CLUSTERSIM ...]
#   WALL 0: the whole step, no limit (about half an hour of CPU today)
set -u
WALL=$1
ROUNDS=$2
shift 2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
printf 'topology: [ Switch, Switch ]\nnpus_count: [ 8, 128 ]\nbandwidth: [ 450, 50 ]\nlatency: [ 500, 1000 ]\n' > "$TMP/n1024.yml"
printf '{"builder": "servers", "servers": 128, "nics_per_leaf": 32}\n' > "$TMP/srv.json"
printf '| binary | events | simulated ms | wall s | CPU s | Mevents / CPU-s | load avg |\n|---|---:|---:|---:|---:|---:|---:|\n'
for ((k = 0; k < ROUNDS; k++)); do
    for bin in "$@"; do
        load=$(cut -d' ' -f1 /proc/loadavg)
        rm -f "$TMP/step.json"
        lim=()
        [ "$WALL" != 0 ] && lim=(--max-wall "$WALL")
        # shellcheck disable=SC2206
        lim+=(${CS_STEP_ARGS:-})
        /usr/bin/time -f '%e %U %S' -o "$TMP/t.txt" "$bin" train --model llama3-8b --tp 8 --dp 128 --global-batch 128 \
            --recompute full --device H100-SXM --network-configuration="$TMP/n1024.yml" --topology "$TMP/srv.json" \
            --backend packet "${lim[@]}" --progress 600 --json "$TMP/step.json" > "$TMP/out.txt" 2> "$TMP/err.txt"
        python3 - "$bin" "$load" "$TMP/t.txt" "$TMP/err.txt" "$TMP/out.txt" "$TMP/step.json" <<'PY'
import re, sys
wall, user, sys_ = open(sys.argv[3]).read().split()[-3:]
cpu = float(user) + float(sys_)
text = open(sys.argv[4]).read() + open(sys.argv[5]).read()
m = re.search(r"interrupted at simulated time ([0-9.]+) ms after ([0-9]+) events", text)
if m:
    ms, ev = float(m.group(1)), int(m.group(2))
else:  # the whole step: its time and events from --json
    import json, os
    j = json.load(open(sys.argv[6])) if os.path.exists(sys.argv[6]) else {}
    ev = int(j.get("events", 0))
    ms = float(j["iteration_time_ns"]) / 1e6 if "iteration_time_ns" in j else float("nan")
print(f"| {sys.argv[1]} | {ev} | {ms:.3f} | {float(wall):.1f} | {cpu:.2f} | {ev / cpu / 1e6:.2f} | {sys.argv[2]} |")
PY
    done
done
