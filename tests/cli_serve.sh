#!/usr/bin/env bash
# cli_serve.sh -- `clustersim serve` and the serving steps (plan.phase
# prefill/decode; docs/inference.md) against closed forms worked by hand:
# KV-cache and weight bytes per GPU, a decode step's memory-bound GEMM and
# attention, the TP all-reduce by the ring closed form, the whole decode
# step as the sum of its chain, prefill FLOPs, the decode steps'
# interpolation against independent runs, static batching's latencies and
# percentiles, Poisson arrivals' determinism, and refusals.
. "$(dirname "$0")/lib_cli.sh"
cd "$CS_TMP" || exit 1
# A small Llama-shaped model (no biases, untied output layer, GeLU MLP):
# L = 2, h = 4096, a = 32 heads, g = 8 KV heads, head dim d = 128, f = 16384, V = 32000.
cat > tiny.json <<'M'
{"name": "tiny", "layers": 2, "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn_hidden": 16384, "vocab": 32000,
 "seq": 2048, "swiglu": false, "bias": false, "tied_embeddings": false}
M
cat > n2.yml <<'NET'
topology: [ Switch ]
npus_count: [ 2 ]
bandwidth: [ 450 ]
latency: [ 500 ]
NET
cat > n4.yml <<'NET'
topology: [ Switch ]
npus_count: [ 4 ]
bandwidth: [ 450 ]
latency: [ 500 ]
NET
# (the all-reduces below are worked by the astra model's ring closed form: the model is passed
# explicitly, the generator's default being nccl)
S=(--model tiny.json --device H100-SXM --tp 2 --network-configuration=n2.yml --quiet --set system.collective-model=astra)

# 1. memory per GPU: KV cache = 2 (K, V) x L x (g / tp) x d x (P + O) x B x 2 bytes
#    = 2 x 2 x 4 x 128 x (1000 + 24) x 8 x 2 = 33,554,432 bytes;
#    weights = 2 bytes x params / tp, params = L (h (h + 2 g d) + h^2 + 2 h f + 2 h) + V h + (h + V h)
#    = 2 x (25,165,824 + 16,777,216 + 134,217,728 + 8,192) + 131,072,000 + 131,076,096 = 614,486,016
#    -> 614,486,016 bytes per GPU.  With --pp 2 (tp 2 on 4 GPUs) stage 0 holds one layer: KV halves.
"$CS_BIN" serve "${S[@]}" --batch 8 --prompt-tokens 1000 --output-tokens 24 --out one 2> e1 || fail "serve: $(cat e1)"
"$CS_BIN" serve --model tiny.json --device H100-SXM --tp 2 --pp 2 --network-configuration=n4.yml --quiet \
    --batch 8 --prompt-tokens 1000 --output-tokens 24 --json pp2.json 2> e1b || fail "serve --pp 2: $(cat e1b)"
python3 - one/summary.json pp2.json <<'PY' && pass "KV cache and weights per GPU: the closed forms (tp 2; pp 2 halves the KV)" || fail "memory"
import json, sys
m = json.load(open(sys.argv[1]))["memory_per_gpu"]; q = json.load(open(sys.argv[2]))["memory_per_gpu"]
kv = 2 * 2 * (8 // 2) * 128 * (1000 + 24) * 8 * 2
ok = m["kv_cache_bytes"] == kv == 33554432 and m["weights_bytes"] == 614486016
ok = ok and m["total_bytes"] == kv + 614486016 and m["kv_tokens_per_sequence"] == 1024
ok = ok and q["kv_cache_bytes"] == kv / 2
sys.exit(0 if ok else (print(m, q), 1)[1])
PY

# 2. one decode step (B = 8, context c = 65536) node by node, H100-SXM: 3.35e12 B/s HBM, mem_eff 0.8,
#    989e12 FLOP/s, e_max 0.8, f(x) = x / (x + 32).  MLP (GeLU) per TP rank, f' = f / 2 = 8192:
#    2 GEMMs of 2 (B h + h f' + B f') = 67,305,472 bytes + 4 B f' = 262,144 bytes streamed
#    = 134,873,088 bytes / 2.68e12 = 50.33 us -> 50 us; each GEMM's compute side 2 B h f' /
#    (989e12 x 0.8 x f(8) f(8192) f(4096)) = 3.4 us < its 25.1 us of bytes: memory-bound.
#    Attention: 4 B d ((g/tp)(c + 1) + a/tp) bytes = 4 x 8 x 128 x (4 x 65537 + 16) = 1,073,823,744
#    bytes / 2.68e12 = 400.68 us -> 401 us (its FLOPs 4 B (a/tp) c d at 0.8 x peak: 69 us).
#    TP all-reduce of B h 2 = 65,536 bytes on Switch(2), ring, 4 chunks one after another (the
#    generator's system: endpoint delay d = 10 ns, local-mem-bw 1600 B/ns): per chunk m = 65536 / 4 / 2
#    = 8192 bytes, net = trunc(2 x 500 + 8192 / (450 x 2^30 / 1e9)) = 1016 ns, red = 3 trunc(8192 / 1600)
#    = 15 ns, T = d + 2 (n - 1)(net + d) + (n - 1) red = 10 + 2 x 1026 + 15 = 2077 ns; x 4 = 8308 ns.
#    The step is one chain: the sum of its COMP durations + 5 all-reduces (embedding, 2 per layer).
"$CS_BIN" generate --model tiny.json --device H100-SXM --tp 2 --micro-batch 8 --set plan.phase=decode \
    --set plan.context-tokens=65536 --out dec > /dev/null 2> e2 || fail "generate decode: $(cat e2)"
"$CS_BIN" inspect --json dec.0.et > dec.txt 2> e2b || fail "inspect: $(cat e2b)"
"$CS_BIN" train "${S[@]}" --micro-batch 8 --set plan.phase=decode --set plan.context-tokens=65536 \
    --json dstep.json 2> e2c || fail "train decode: $(cat e2c)"
python3 - dec.txt dstep.json <<'PY' && pass "decode step: memory-bound GEMM, KV read, ring all-reduce; step = chain sum" || fail "decode step"
import json, math, sys
text, nodes, i = open(sys.argv[1]).read(), {}, 0
dec = json.JSONDecoder()
while True:
    rest = text[i:].lstrip()
    if not rest.startswith("{"): break
    o, n = dec.raw_decode(rest); i = len(text) - len(rest) + n
    if "name" in o: nodes[o["name"]] = o
us = lambda s: max(1, math.floor(s * 1e6 + 0.5))
bw, peak, f = 3.35e12 * 0.8, 989e12 * 0.8, lambda x: x / (x + 32)
B, h, fp, c, d = 8, 4096, 8192, 65536, 128
gemm_bytes = 2 * (B * h + h * fp + B * fp)
assert 2 * B * h * fp / (peak * f(B) * f(fp) * f(h)) < gemm_bytes / bw           # memory-bound
mlp = us((2 * gemm_bytes + 4 * B * fp) / bw)
attn = us(4 * B * d * ((8 // 2) * (c + 1) + 32 // 2) / bw)
ok = mlp == 50 and attn == 401
ok = ok and int(nodes["L0.mlp"]["durationMicros"]) == mlp and int(nodes["L1.attn"]["durationMicros"]) == attn
comp = sum(int(o.get("durationMicros", 0)) for o in nodes.values() if o["type"] == "COMP_NODE")
colls = [o for o in nodes.values() if o["type"] == "COMM_COLL_NODE"]
net = math.trunc(2 * 500 + 8192 / (450 * 2**30 / 1e9)); red = 3 * math.trunc(8192 / 1600)
ar_ns = 4 * (10 + 2 * (net + 10) + red)
ok = ok and net == 1016 and ar_ns == 8308 and len(colls) == 5
t = json.load(open(sys.argv[2]))["iteration_time_ps"]
ok = ok and t == comp * 10**6 + 5 * ar_ns * 1000
sys.exit(0 if ok else (print(mlp, attn, comp, t, ar_ns), 1)[1])
PY

# 2b. the same decode step with --pp 2 (TP 2 x PP 2 on Switch(4)), every node by hand (us, memory-bound):
#    ln1, res1_ln2, res2 1 each (<= 0.5 us, at least 1); qkv 2 (B h + h 3072 + B 3072) = 25,280,512 B -> 9;
#    attn 401; proj 2 (B 2048 + 2048 h + B h) = 16,875,520 B -> 6; mlp 50: a layer 469 us.  Stage 0: embed 1
#    + layer 0 = 470 us and 3 all-reduces; stage 1: layer 1 + final_ln 1 + logits (2 (B h + h 16000 + B 16000)
#    + 4 B 16000 = 131,905,536 B -> 49) = 519 us and 2 all-reduces; between them 2 B h = 65,536 bytes:
#    trunc(2 x 500 + 65536 / 483.18) = 1135 ns.  The step: 989 us + 5 x 8308 ns + 1135 ns.
"$CS_BIN" train --model tiny.json --device H100-SXM --tp 2 --pp 2 --network-configuration=n4.yml --quiet \
    --set system.collective-model=astra --micro-batch 8 --set plan.phase=decode --set plan.context-tokens=65536 --json ppstep.json 2> e2d || fail "pp decode: $(cat e2d)"
python3 - ppstep.json <<'PY' && pass "decode step with PP 2: stage 0 + the activation message + stage 1" || fail "pp decode step"
import json, math, sys
us = lambda b: max(1, math.floor(b / 2.68e12 * 1e6 + 0.5))
B, h = 8, 4096
layer = 3 * 1 + us(2 * (B * h + h * 3072 + B * 3072)) + 401 + us(2 * (B * 2048 + 2048 * h + B * h)) + 50
logits = us(2 * (B * h + h * 16000 + B * 16000) + 4 * B * 16000)
msg = math.trunc(2 * 500 + 65536 / (450 * 2**30 / 1e9))
ok = layer == 469 and logits == 49 and msg == 1135
t = json.load(open(sys.argv[1]))["iteration_time_ps"]
ok = ok and t == ((1 + layer) + (layer + 1 + logits)) * 10**6 + (5 * 8308 + msg) * 1000
sys.exit(0 if ok else (print(t, layer, logits, msg), 1)[1])
PY

# 3. prefill FLOPs (B = 8, P = 1000): per token and layer 2 (h (h + 2 g d) + h^2 + 2 h f) = 2 x 176,160,768
#    (2 x the layer's matrix parameters) + the P x P attention 4 P h; logits of each sequence's last
#    token 2 h V.  serve's prefill_flops and the generated matmuls of both ranks (train's hardware_flops).
"$CS_BIN" train "${S[@]}" --micro-batch 8 --set plan.phase=prefill --set plan.context-tokens=1000 \
    --json pstep.json 2> e3 || fail "train prefill: $(cat e3)"
python3 - one/summary.json pstep.json <<'PY' && pass "prefill FLOPs = 2 x matrix params x tokens + attention + last-token logits" || fail "prefill FLOPs"
import json, sys
s = json.load(open(sys.argv[1])); t = json.load(open(sys.argv[2]))
B, P, L, h, V = 8, 1000, 2, 4096, 32000
fl = L * B * P * (2 * 176160768 + 4 * P * h) + B * 2 * h * V
ok = s["prefill_flops"] == fl and t["hardware_flops"] == fl and t["model_flops"] == fl
sys.exit(0 if ok else (print(fl, s["prefill_flops"], t["hardware_flops"]), 1)[1])
PY

# 3b. the same with flash attention at P = 1024: the fused kernel skips the 128 x 128 tiles of scores
#    above the causal diagonal, computing n (n + 1) / 2 of n^2 with n = P / 128 = 8: 36 / 64 = 9/16 of
#    the 4 P h attention per token (docs/generator.md, "Flash attention"); the model FLOPs count all of it.
"$CS_BIN" train "${S[@]}" --micro-batch 8 --set plan.phase=prefill --set plan.context-tokens=1024 \
    --flash-attention --json pflash.json 2> e3f || fail "train prefill, flash: $(cat e3f)"
python3 - pflash.json <<'PY' && pass "flash prefill: 9/16 of the attention FLOPs computed at 1,024 tokens, model FLOPs all" || fail "flash prefill FLOPs"
import json, sys
t = json.load(open(sys.argv[1]))
B, P, L, h, V = 8, 1024, 2, 4096, 32000
dense = L * B * P * 2 * 176160768 + B * 2 * h * V
att = L * B * P * 4 * P * h
ok = t["hardware_flops"] == dense + att * 9 // 16 and t["model_flops"] == dense + att
sys.exit(0 if ok else (print(t["hardware_flops"], dense + att * 9 // 16, t["model_flops"], dense + att), 1)[1])
PY

# 4. one full batch at time 0: TTFT = the prefill step; the batch = prefill + the O - 1 decode steps;
#    time per output token = their mean; tokens/s = B O / batch time, per GPU / 2.
python3 - one/summary.json one/decode_steps.csv one/requests.csv <<'PY' && pass "one batch: TTFT, TPOT, end-to-end, tokens/s from the steps" || fail "one batch"
import csv, json, sys
s = json.load(open(sys.argv[1])); steps = list(csv.DictReader(open(sys.argv[2]))); req = list(csv.DictReader(open(sys.argv[3])))
dec = sum(int(r["step_time_ps"]) for r in steps)
ok = len(steps) == 23 and [int(r["context_tokens"]) for r in steps] == list(range(1001, 1024))
ok = ok and s["decode_time_ps"] == dec and s["batch_time_ps"] == s["prefill_time_ps"] + dec
ok = ok and abs(s["time_per_output_token_ns"] - dec / 1000 / 23) < 1e-6
T = s["batch_time_ps"] * 1e-12
ok = ok and abs(s["output_tokens_per_s"] - 8 * 24 / T) < 1e-9 * s["output_tokens_per_s"]
ok = ok and abs(s["output_tokens_per_s_per_gpu"] * 2 - s["output_tokens_per_s"]) < 1e-9 * s["output_tokens_per_s"]
ok = ok and len(req) == 8 and s["ttft_ns"]["p99"] == s["prefill_time_ps"] / 1000 and s["e2e_latency_ns"]["p50"] == T * 1e9
sys.exit(0 if ok else (print(s), 1)[1])
PY

# 5. decode steps at contexts 1001..2023: the attention's bytes 4 B d ((g/tp)(c + 1) + a/tp) take 6 to
#    12 us, so the step is simulated at 3 of the 7 durations and interpolated (affine: every layer's
#    attention on the chain) at the others; an interpolated step equals an independent simulation.
"$CS_BIN" serve "${S[@]}" --batch 8 --prompt-tokens 1000 --output-tokens 1024 --out long 2> e5 || fail "serve long: $(cat e5)"
row=$(awk -F, '$6 == "interpolated" {print $2 "," $4; exit}' long/decode_steps.csv)
if [ -z "$row" ]; then
    fail "no interpolated decode step: $(cut -d, -f6 long/decode_steps.csv | sort | uniq -c)"
else
    c=${row%,*}
    "$CS_BIN" train "${S[@]}" --micro-batch 8 --set plan.phase=decode --set plan.context-tokens="$c" \
        --set plan.kv-tokens=2024 --json ind.json 2> e5b || fail "train decode $c: $(cat e5b)"
    python3 -c "import json,sys; sys.exit(0 if json.load(open('ind.json'))['iteration_time_ps'] == ${row#*,} else 1)" \
        && pass "an interpolated decode step (context $c) = its own simulation" || fail "interpolated step $row"
fi
python3 - long/summary.json <<'PY' && pass "7 distinct attention times, 3 simulated" || fail "simulated steps"
import json, sys
s = json.load(open(sys.argv[1])); sys.exit(0 if (s["decode_steps"], s["decode_steps_simulated"]) == (1023, 3) else (print(s), 1)[1])
PY

# 6. static batching.  (a) uniform arrivals 1000 s apart, far slower than service: every request is
#    alone in a (padded) batch, so TTFT = the prefill step and end-to-end = one batch time, every
#    percentile.  (b) 4 requests 1 us apart (g), batch 2: batches {0} at 0, {1, 2} at T, {3} at 2T:
#    end-to-end T, 2T - g, 2T - 2g, 3T - 3g; nearest rank: p50 = 2T - 2g, p90 = p99 = 3T - 3g;
#    TTFT = the same minus (T - Tp); makespan 3T; tokens/s = 4 x 24 / 3T.
Q=(--batch 1 --prompt-tokens 1000 --output-tokens 24 --arrivals uniform)
"$CS_BIN" serve "${S[@]}" "${Q[@]}" --requests 5 --arrival-rate 0.001 --json slow.json 2> e6 || fail "serve slow: $(cat e6)"
"$CS_BIN" serve "${S[@]}" --batch 2 --prompt-tokens 1000 --output-tokens 24 --arrivals uniform --requests 4 \
    --arrival-rate 1000000 --json burst.json --out burst 2> e6b || fail "serve burst: $(cat e6b)"
python3 - slow.json burst.json <<'PY' && pass "static batching: latencies and p50/p90/p99 derived by hand" || fail "batching"
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
ok = a["batches"] == 5 and all(a["ttft_ns"][k] == a["prefill_time_ps"] / 1000 for k in ("p50", "p90", "p99", "max"))
ok = ok and all(a["e2e_latency_ns"][k] == a["batch_time_ps"] / 1000 for k in ("p50", "p90", "p99", "max"))
T, Tp, g = b["batch_time_ps"], b["prefill_time_ps"], 10**6
e = b["e2e_latency_ns"]; f = b["ttft_ns"]
ok = ok and b["batches"] == 3 and e["p50"] * 1000 == 2 * T - 2 * g and e["p90"] * 1000 == e["p99"] * 1000 == 3 * T - 3 * g
ok = ok and f["p50"] * 1000 == T + Tp - 2 * g and f["p99"] * 1000 == 2 * T + Tp - 3 * g
ok = ok and abs(e["mean"] * 1000 - (T + 2 * T - g + 2 * T - 2 * g + 3 * T - 3 * g) / 4) < 1e-3
ok = ok and b["makespan_ns"] * 1000 == 3 * T and abs(b["output_tokens_per_s"] - 96 / (3 * T * 1e-12)) < 1e-9 * b["output_tokens_per_s"]
sys.exit(0 if ok else (print(a, b), 1)[1])
PY

# 7. Poisson arrivals: the same seed gives the same requests, another seed others; every request is served.
P=(--batch 4 --prompt-tokens 1000 --output-tokens 24 --requests 50 --arrival-rate 20)
"$CS_BIN" serve "${S[@]}" "${P[@]}" --seed 7 --out p7a 2>/dev/null && "$CS_BIN" serve "${S[@]}" "${P[@]}" --seed 7 --out p7b 2>/dev/null \
    && "$CS_BIN" serve "${S[@]}" "${P[@]}" --seed 8 --out p8 2>/dev/null || fail "serve poisson"
cmp -s p7a/requests.csv p7b/requests.csv && ! cmp -s p7a/requests.csv p8/requests.csv && [ "$(wc -l < p7a/requests.csv)" -eq 51 ] \
    && pass "Poisson arrivals: deterministic per seed" || fail "Poisson determinism"

# 8. refusals: a KV cache beyond HBM (with the breakdown), bad flags and keys, plans a serving step cannot run
expect_fail "a KV cache beyond HBM" "does not fit in memory|KV cache|> H100-SXM HBM 80.00 GB" \
    "$CS_BIN" serve "${S[@]}" --batch 1000 --prompt-tokens 32000 --output-tokens 768
expect_fail "--batch 0" "--batch|expected an integer from 1" "$CS_BIN" serve "${S[@]}" --batch 0
expect_fail "--arrival-rate 0" "--arrival-rate|> 0" "$CS_BIN" serve "${S[@]}" --arrival-rate 0
expect_fail "--arrivals bursty" "--arrivals|poisson, uniform" "$CS_BIN" serve "${S[@]}" --arrivals bursty
expect_fail "--output-tokens x" "--output-tokens|integer" "$CS_BIN" serve "${S[@]}" --output-tokens x
expect_fail "no model" "model.name|expected a model" "$CS_BIN" serve --network-configuration=n2.yml --quiet
expect_fail "a non-transformer" "plan.phase|transformers|resnet50" \
    "$CS_BIN" serve --model resnet50 --network-configuration=n2.yml --dp 2 --quiet
expect_fail "context parallelism in a serving step" "TP, PP, DP and EP only|cp 1" \
    "$CS_BIN" serve "${S[@]}" --set plan.cp=2
expect_fail "a decode step without context" "plan.context-tokens|at least 1" \
    "$CS_BIN" train "${S[@]}" --set plan.phase=decode
expect_fail "a cache smaller than the context" "plan.kv-tokens 10|plan.context-tokens (100)" \
    "$CS_BIN" train "${S[@]}" --set plan.phase=decode --set plan.context-tokens=100 --set plan.kv-tokens=10
expect_fail "arrivals beyond the simulated-time range" "simulated-time range|serve.requests" \
    "$CS_BIN" serve "${S[@]}" --requests 10 --arrival-rate 1e-12 --arrivals uniform
expect_fail "the wrong NPU count" "npus_count|expected 4" \
    "$CS_BIN" serve --model tiny.json --device H100-SXM --tp 4 --network-configuration=n2.yml --quiet
# a sweep point simulates one step: varying serve.* there would change nothing, so it is refused by key
printf '{"clustersim-sweep": 1, "set": {"run.workload": "x"}, "grid": {"serve.batch": [1, 2]}}\n' > sweep_serve.json
expect_fail "serve.* in a sweep" "sweep_serve.json: serve.batch: serve.|keys are read by clustersim serve only" \
    "$CS_BIN" sweep sweep_serve.json --out sweep_serve_out
# a failed run over an earlier run's --out and --json leaves none of that run's results
cp -r one stale && cp one/summary.json stale.json
expect_fail "a refused serve over earlier results" "does not fit in memory" \
    "$CS_BIN" serve "${S[@]}" --batch 100000 --prompt-tokens 1000000 --output-tokens 24 --out stale --json stale.json
[ -z "$(ls -A stale)" ] && [ ! -e stale.json ] && pass "a refused serve leaves no earlier results in --out or --json" \
    || fail "stale results: $(ls stale)"
# --check: the keys, the plan and its memory, the prefill step's run checked; nothing simulated, nothing
# written, an earlier run's results kept
S1=(--model tiny.json --device H100-SXM --tp 2 --network-configuration=n2.yml --set system.collective-model=astra)
ls -R one > one.before
"$CS_BIN" serve "${S1[@]}" --batch 8 --prompt-tokens 1000 --output-tokens 24 --check --out one --json one/x.json \
    > ck 2> eck || fail "serve --check: $(cat eck)"
grep -q "^ok: tiny on 2 x H100-SXM: TP 2 x PP 1 x DP 1, batch 8 requests (8 per DP rank), prompt 1000, output 24 tokens, 0.65 of 80.00 GB HBM per GPU; nothing simulated$" ck \
    && ls -R one | cmp -s - one.before && pass "serve --check: ok line with the plan and its memory, no file written or removed" \
    || fail "serve --check: $(cat ck) $(ls -R one)"
expect_fail "serve --check: a KV cache beyond HBM" "does not fit in memory" \
    "$CS_BIN" serve "${S1[@]}" --batch 100000 --prompt-tokens 1000000 --check
expect_fail "serve --check: run.slow-ranks past the ranks" "serve: the prefill step: run.slow-ranks 5:2: ranks 5-5: expected ranks 0 to 1" \
    "$CS_BIN" serve "${S1[@]}" --check --set run.slow-ranks=5:2
expect_fail "serve --check: dwrr_weights (read when the backend is created)" \
    "serve: the prefill step: backend.packet.dwrr_weights: \"0\"; expected 1 comma-separated integers 1..1000" \
    "$CS_BIN" serve "${S1[@]}" --check --set run.backend=packet --set backend.packet.dwrr_weights=0
finish
