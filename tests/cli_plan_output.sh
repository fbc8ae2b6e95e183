#!/usr/bin/env bash
# cli_plan_output.sh -- what `train` reports about a plan (issue 12, output):
# both FLOP counts -- the hardware FLOPs (every rank's generated matmuls)
# equal the model FLOPs without recomputation, and full recomputation adds
# exactly one forward pass of the layers (the model FLOPs / 3 less the LM
# head's 2 h V per token, which is not recomputed); HFU and MFU are those
# counts over step time x ranks x peak; train --json and summary.json carry
# the plan, memory per stage (parts summing to the total, the worst equal to
# memory_worst_stage_bytes) and the network; --seq sets the sequence; a
# wrong NPU count is reported before a memory overflow.
. "$(dirname "$0")/lib_cli.sh"
cd "$CS_TMP" || exit 1
cat > n8.yml <<'NET'
topology: [ Switch ]
npus_count: [ 8 ]
bandwidth: [ 419.1 ]
latency: [ 700.0 ]
NET
P=(--model gpt3-13b --device H100-SXM --tp 8 --dp 1 --global-batch 8 --network-configuration=n8.yml --quiet)
"$CS_BIN" train "${P[@]}" --recompute none --json none.json 2> e1 || fail "train: $(cat e1)"
"$CS_BIN" train "${P[@]}" --recompute full --json full.json --out full 2> e2 || fail "train: $(cat e2)"
python3 - none.json full.json full/summary.json <<'PY' && pass "hardware FLOPs: = model FLOPs without recomputation, + one forward of the layers with full" || fail "FLOPs"
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2])); s = json.load(open(sys.argv[3]))
h, V, T = 5120, 51200, 8 * 2048                   # gpt3-13b: hidden, vocabulary; global batch x seq tokens
near = lambda x, y: abs(x - y) <= 1e-9 * abs(y)
ok = near(a["hardware_flops"], a["model_flops"]) and near(b["model_flops"], a["model_flops"])
ok = ok and near(b["hardware_flops"] - a["hardware_flops"], a["model_flops"] / 3 - 2 * h * V * T)
peak = 989e12
for x in (a, b):
    t = x["iteration_time_ns"] * 1e-9
    ok = ok and near(x["hfu"], x["hardware_flops"] / (t * 8 * peak)) and near(x["mfu"], x["model_flops"] / (t * 8 * peak))
p = b["plan"]
ok = ok and (p["tp"], p["pp"], p["dp"], p["recompute"], p["micro_batches"]) == (8, 1, 1, "full", 8)
st = p["memory_per_stage"]
ok = ok and all(near(m["total_bytes"], m["weights_bytes"] + m["gradients_bytes"] + m["optimizer_bytes"] +
                     m["activations_bytes"]) for m in st)
ok = ok and max(m["total_bytes"] for m in st) == b["memory_worst_stage_bytes"]
ok = ok and b["network"]["npus_count"] == [8] and s["plan"] == p
sys.exit(0 if ok else (print(a, b), 1)[1])
PY
"$CS_BIN" train "${P[@]}" --seq 4096 --json s4.json 2> e3 || fail "train --seq: $(cat e3)"
python3 - s4.json <<'PY' && pass "--seq 4096: 8 x 4096 tokens per step" || fail "--seq"
import json, sys
a = json.load(open(sys.argv[1]))
sys.exit(0 if abs(a["tokens_per_s"] * a["iteration_time_ns"] * 1e-9 - 8 * 4096) < 1e-6 else 1)
PY
expect_fail "the NPU count before the memory" "npus_count: expected 64 NPUs|got 8" \
    "$CS_BIN" train --model gpt3-175b --device H100-SXM --tp 8 --dp 8 --global-batch 64 --network-configuration=n8.yml
expect_fail "--seq on a model without a sequence" "--seq: model.transformer.*|resnet50" \
    "$CS_BIN" train --model resnet50 --dp 8 --network-configuration=n8.yml --seq 4096
# --max-wall / --max-memory: a plan that simulates all 64 ranks (offloaded optimizer: no class mode;
# about 2 s and 50 MB here) stopped by either limit: exit 1, the limit named, no results
cat > n64.yml <<'NET'
topology: [ Switch, Switch ]
npus_count: [ 8, 8 ]
bandwidth: [ 419.1, 46.57 ]
latency: [ 700.0, 3000.0 ]
NET
echo '{"memory-type": "PER_NPU_MEMORY_EXPANSION", "remote-mem-latency": 1000, "remote-mem-bw": 64}' > mem.json
L=(--model gpt3-13b --device H100-SXM --tp 2 --pp 4 --dp 8 --global-batch 256 --network-configuration=n64.yml
   --remote-memory-configuration=mem.json --offload-optimizer --out lim)
expect_fail "--max-wall stops a long run" "passed --max-wall 0.2 s of wall time" "$CS_BIN" train "${L[@]}" --max-wall 0.2
[ ! -e lim/summary.json ] && pass "no results after --max-wall" || fail "results after --max-wall"
# the limit: what the program holds before the run (it says so when refusing 1 byte; a sanitizer
# build holds more) + 8 MB, which the 64-rank run passes
base=$("$CS_BIN" train "${L[@]}" --max-memory 1 2>&1 | sed -n 's/.*already holds \([0-9]*\) bytes.*/\1/p')
[ -n "$base" ] && pass "the resident memory before a run is reported ($base bytes)" || fail "no baseline: $base"
lim=$(( ${base:-0} + 8000000 ))
expect_fail "--max-memory stops a big run" "passed --max-memory $lim of resident memory" \
    "$CS_BIN" train "${L[@]}" --max-memory "$lim"
expect_fail "--max-wall 0 refused" "--max-wall '0'|> 0" "$CS_BIN" train "${L[@]}" --max-wall 0
expect_fail "--max-memory x refused" "--max-memory 'x'|8GiB" "$CS_BIN" train "${L[@]}" --max-memory x
expect_fail "--max-memory below what the program holds already" "--max-memory '1'|already holds|expected more than that" \
    "$CS_BIN" train "${L[@]}" --max-memory 1
# class mode simulates one representative per class: a report lane of another rank shows its
# representative's spans and says so; a --trace of such ranks warns that they are not in it
# (the astra model: with the nccl default H100's TP groups take NVLS, inSwitch on a group, which class
# mode does not take)
C=(--model gpt3-6.7b --device H100-SXM --tp 2 --dp 4 --global-batch 8 --network-configuration=n8.yml --quiet
   --set system.collective-model=astra)
"$CS_BIN" train "${C[@]}" --report rep.html --trace-ranks 3 2> rep.err || fail "report: $(cat rep.err)"
grep -q 'data-lane="rank 3 (stage 0; as rank 0, class mode)" data-state="compute"' rep.timeline.svg \
    && pass "report: a rank class mode did not simulate shows its representative's timeline, labelled" \
    || fail "class-mode lane: $(grep -o 'data-lane="[^"]*"' rep.timeline.svg | sort -u)"
"$CS_BIN" train "${C[@]}" --trace t.json --trace-ranks 0,3 2> tr.err
grep -q "1 chosen rank is not in the timeline (3 (as 0))" tr.err \
    && pass "--trace: ranks class mode did not simulate are named" || fail "trace warning: $(cat tr.err)"
expect_fail "--report into a missing directory" "--report: nodir/r.ranks.svg|cannot write" \
    "$CS_BIN" train "${C[@]}" --report nodir/r.html --out rout
[ ! -e rout/summary.json ] && pass "a refused report leaves no results" || fail "results after a refused report"
finish
