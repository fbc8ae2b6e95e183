#!/usr/bin/env bash
# cli_offload.sh -- plan.offload-optimizer (the memory-capacity axis of a
# COMET-style study): the optimizer state leaves HBM for remote memory, so a
# plan that does not fit fits; the step grows by the remote-memory model's
# closed form for loading and storing the state (docs/memory.md: latency +
# floor(bytes / bandwidth) per access, at the end of the step) less the HBM
# traffic the optimizer no longer makes (24 of its 54 bytes per
# parameter, at the device's streaming bandwidth, rounded to the
# microsecond as every generated duration); the cost model counts the
# remote capacity; without a remote memory, or in the search's estimate, it
# is refused by name.
. "$(dirname "$0")/lib_cli.sh"
cd "$CS_TMP" || exit 1
cat > n8.yml <<'NET'
topology: [ Switch ]
npus_count: [ 8 ]
bandwidth: [ 419.1 ]
latency: [ 700.0 ]
NET
echo '{"memory-type": "PER_NPU_MEMORY_EXPANSION", "remote-mem-latency": 1000, "remote-mem-bw": 64}' > mem.json
P=(--model gpt3-13b --device H100-SXM --tp 8 --dp 1 --global-batch 8 --network-configuration=n8.yml)
"$CS_BIN" train "${P[@]}" --out base --quiet 2> e0 || fail "train: $(cat e0)"
"$CS_BIN" train "${P[@]}" --remote-memory-configuration=mem.json --offload-optimizer --out off --quiet 2> e1 \
    || fail "train --offload-optimizer: $(cat e1)"
python3 - base/summary.json off/summary.json <<'PY' && pass "the step grows by the remote loads and stores, less the HBM traffic saved" || fail "offload time"
import json, math, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
S = b["cost"]["remote_memory_bytes"] / 8           # 12 bytes per parameter of a rank's shard, 8 TP ranks
shard = S / 12
mem = 2 * (1000 + math.floor(S / 64))              # ns: load + store, one access each at 64 bytes/ns
us = lambda bytes_: math.floor(bytes_ / (3350e9 * 0.80) * 1e6 + 0.5)   # H100 HBM x mem_eff, whole us
saved = (us(54 * shard) - us(30 * shard)) * 1000    # ns: 54 bytes per parameter, 30 offloaded
d = b["sim_time_ns"] - a["sim_time_ns"]
ok = abs(d - (mem - saved)) <= 1 and a["cost"]["remote_memory_bytes"] == 0
ok = ok and abs(S - 12 * 12.86e9 / 8) < 0.02 * S   # gpt3-13b's 12.86 B parameters
ok = ok and abs(b["cost"]["capex"]["remote_memory_usd"] - 8 * S / 1e9 * 4.0) < 1e-6 * 8 * S / 1e9 * 4.0
sys.exit(0 if ok else (print(d, mem - saved, S), 1)[1])
PY
Q=(--model gpt3-13b --device H100-SXM --tp 1 --dp 8 --global-batch 8 --sp --recompute selective --flash-attention
   --network-configuration=n8.yml)
expect_fail "without offload TP 1 x DP 8 does not fit" "does not fit in memory|optimizer 154.30 GB|> H100-SXM HBM 80.00 GB" \
    "$CS_BIN" train "${Q[@]}"
"$CS_BIN" train "${Q[@]}" --remote-memory-configuration=mem.json --offload-optimizer > q.txt 2> q.err \
    && grep -q "optimizer 0.00 GB + activations .* = 66.15 GB; optimizer 154.30 GB in remote memory" q.txt \
    && pass "with the optimizer state offloaded it fits (66.15 GB of HBM)" || fail "offload fit: $(cat q.err q.txt)"
expect_fail "offload without a remote memory" "--offload-optimizer|needs a remote memory|NO_MEMORY_EXPANSION" \
    "$CS_BIN" train "${P[@]}" --offload-optimizer
"$CS_BIN" search --model gpt3-13b --device H100-SXM --global-batch 8 --network-configuration=n8.yml \
    --set plan.offload-optimizer=true --tp 8 --pp 1 --no-progress --out s > s.txt 2> s.err
grep -q "estimate has no remote-memory model" s.err s.txt s/plans.csv 2>/dev/null \
    && pass "the search's estimate refuses offloaded plans by name" || fail "search: $(cat s.err s.txt)"
finish
