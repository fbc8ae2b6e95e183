#!/usr/bin/env bash
# cli_ingest.sh -- the input pipeline as a stage (ingest.*, docs/ingest.md):
# every rank of the first pipeline stage has a data loader on its CPU thread
# that reads, preprocesses and copies each micro-batch to the device (whole
# microseconds each: floor(x + 0.5)); the micro-batch's first forward node
# waits for the copy, and batch i's read waits for the consumption (first
# forward node done) of batch i - prefetch.  With l = read + preprocess +
# copy of one micro-batch, c the GPU time of one micro-batch, c1 its first
# node, o the optimizer and M micro-batches, the step is, by hand:
#   prefetch >= 2:  T = l + (M - 1) max(l, c) + c + o
#   prefetch  = 1:  T = l + (M - 1) max(c1 + l, c) + c + o
# (the loader starts batch i once batch i - 1 is consumed, c1 after the GPU
# took it).  Without ingest T0 = M c + o; c + o is the step of the same plan
# with one micro-batch (T1), so c = (T0 - T1) / (M - 1) and o = T1 - c.
# So: fast input (l << c): T = T0 + l, the first batch exposed once; slow
# storage (l > c): T = M l + T1.
. "$(dirname "$0")/lib_cli.sh"
cd "$CS_TMP" || exit 1
cat > n1.yml <<'NET'
topology: [ Switch ]
npus_count: [ 1 ]
bandwidth: [ 100 ]
latency: [ 500 ]
NET
cat > n8.yml <<'NET'
topology: [ Switch ]
npus_count: [ 8 ]
bandwidth: [ 100 ]
latency: [ 500 ]
NET
# ResNet-50 on one A100, micro-batch 8 images; the ImageNet-like sample:
# 110,000 bytes of JPEG read, 150,528 bytes (224 x 224 x 3 uint8) copied.
R1=(--model resnet50 --dp 1 --micro-batch 8 --network-configuration=n1.yml --quiet)
IMG=(--set ingest.bytes-per-sample=110000 --set ingest.h2d-bytes-per-sample=150528)
run() { local out=$1; shift; "$CS_BIN" train "$@" --out "$out" 2> "$out.err" || fail "train $out: $(cat "$out.err")"; }
run t0 "${R1[@]}" --global-batch 32                      # M = 4, no ingest
run t1 "${R1[@]}" --global-batch 8                       # M = 1, no ingest

# (a) fast input.  1 loader, 1 ingest host (ceil(1 / 64)):
#   read  8 x 110000 B / 22 GB/s        = 40 us
#   prep  8 / 20000 samples/s           = 400 us
#   h2d   8 x 150528 B / 31.5 GB/s      = 38.23 -> 38 us      l = 478 us
run fa "${R1[@]}" --global-batch 32 "${IMG[@]}" --set ingest.storage-read-gbps=22 \
    --set ingest.preprocess-samples-per-s=20000
# (b) slow storage, 8 data-parallel loaders sharing 1 host's 1.6 GB/s (0.2 GB/s each):
#   read  8 x 110000 x 8 / 1.6e9        = 4400 us
#   prep  8 x 8 / 20000                 = 3200 us
#   h2d   38 us                                                l = 7638 us
R8=(--model resnet50 --dp 8 --micro-batch 8 --network-configuration=n8.yml --quiet)
run u0 "${R8[@]}" --global-batch 256
run u1 "${R8[@]}" --global-batch 64
run fb "${R8[@]}" --global-batch 256 "${IMG[@]}" --set ingest.storage-read-gbps=1.6 \
    --set ingest.preprocess-samples-per-s=20000 --report fb.html
# the same with 2 ingest hosts (cost.storage-npus-per-host 4: ceil(8 / 4)): read 2200, prep 1600 us
run fh "${R8[@]}" --global-batch 256 "${IMG[@]}" --set ingest.storage-read-gbps=1.6 \
    --set ingest.preprocess-samples-per-s=20000 --set cost.storage-npus-per-host=4
# (c) input about as long as compute: prep 8 / 3200 = 2500 us, l = 40 + 2500 + 38 = 2578 us
for P in 1 4; do
    run fc$P "${R1[@]}" --global-batch 32 "${IMG[@]}" --set ingest.storage-read-gbps=22 \
        --set ingest.preprocess-samples-per-s=3200 --set ingest.prefetch-depth=$P
done
# c1: the first forward node's duration_micros in the generated graph (an input of the run)
"$CS_BIN" generate "${R1[@]}" --global-batch 32 "${IMG[@]}" --set ingest.storage-read-gbps=22 \
    --set ingest.preprocess-samples-per-s=3200 --set ingest.prefetch-depth=1 --out g > /dev/null 2> g.err \
    || fail "generate: $(cat g.err)"
"$CS_BIN" inspect --json g.0.et > g.json 2> gi.err || fail "inspect: $(cat gi.err)"
"$CS_BIN" run --scenario g.scenario.json --out gr --quiet > /dev/null 2> gr.err || fail "run: $(cat gr.err)"

python3 - <<'PY'
import json, sys
def S(d): return json.load(open(d + "/summary.json"))
def T(d): return round(S(d)["sim_time_ns"])
fails = 0
def check(name, ok, *why):
    global fails
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + " ".join(map(str, why))))
    fails += 0 if ok else 1
M = 4
T0, T1 = T("t0"), T("t1")
c = (T0 - T1) // (M - 1); o = T1 - c
check("baseline: the no-ingest step is M c + o", T0 == M * c + o and (T0 - T1) % (M - 1) == 0, T0, T1)
# (a)
l = (40 + 400 + 38) * 1000
a = S("fa")
check("(a) fast input: the step is the run without ingest plus the first batch (478 us)", T("fa") == T0 + l, T("fa"), T0 + l)
g = a["ingest"]
check("(a) the report: per micro-batch read 40, preprocess 400, copy 38 us; 4 x 478 us of loader time; not input-bound",
      (g["read_per_micro_batch_ns"], g["preprocess_per_micro_batch_ns"], g["h2d_per_micro_batch_ns"]) == (40e3, 400e3, 38e3)
      and g["input_per_step_ns"] == M * l and g["first_batch_ns"] == l and g["step_without_input_ns"] == T0
      and g["exposed_input_ns"] == l and g["input_bound"] is False and g["loaders"] == 1 and g["ingest_hosts"] == 1, g)
check("(a) the loader is on the CPU, not the GPU: compute_ns unchanged, cpu_ns = 4 l",
      a["ranks"][0]["compute_ns"] == S("t0")["ranks"][0]["compute_ns"] and a["ranks"][0]["cpu_ns"] == M * l)
# (b)
U0, U1 = T("u0"), T("u1")
cb = (U0 - U1) // (M - 1)
lb = (4400 + 3200 + 38) * 1000
check("(b) storage-bound: l > c and the step is M l + (the step of one micro-batch)",
      lb > cb and T("fb") == M * lb + U1, T("fb"), M * lb + U1, cb)
b = S("fb")
check("(b) the report: input-bound, the GPU waits T - T0 beyond nothing else; 8 loaders, 1 host",
      b["ingest"]["input_bound"] is True and b["ingest"]["exposed_input_ns"] == T("fb") - U0
      and b["ingest"]["loaders"] == 8 and b["ingest"]["ingest_hosts"] == 1
      and all(r["cpu_ns"] == M * lb for r in b["ranks"]), b["ingest"])
import re
html = open("fb.html").read()
hx = re.search(r'data-key="exposed_input_ns" data-value="([^"]+)">([^<]*)<', html)
check("(b) the HTML report states the wait and that input bounds the step",
      hx is not None and float(hx.group(1)) == b["ingest"]["exposed_input_ns"] and "input-bound: yes" in hx.group(2),
      hx and hx.groups())
h = S("fh")
lh = (2200 + 1600 + 38) * 1000
check("(b) two ingest hosts: read and preprocessing halve; cost and ingest count the same 2 hosts",
      T("fh") == M * lh + U1 and h["ingest"]["ingest_hosts"] == 2 and h["cost"]["storage_hosts"] == 2
      and b["cost"]["storage_hosts"] == 1, T("fh"), M * lh + U1, h["cost"]["storage_hosts"])
check("(b) the cost model's storage hosts: 2 x storage-host-price-usd 50,000 and 2 x 1,200 W",
      h["cost"]["capex"]["storage_usd"] == 100000 and h["cost"]["average_power"]["storage_w"] == 2400)
# (c)
nodes, dec, txt, i = [], json.JSONDecoder(), open("g.json").read(), 0
while True:
    while i < len(txt) and txt[i].isspace(): i += 1
    if i >= len(txt): break
    d, i = dec.raw_decode(txt, i); nodes.append(d)
first = [n for n in nodes if n.get("name") == "conv1"][0]
c1 = int(first["durationMicros"]) * 1000
check("(c) the graph: conv1 waits for the copy, and read 1 for conv1 of batch 0 (prefetch 1)",
      [n for n in nodes if n.get("name") == "ingest.h2d"][0]["id"] in first["dataDeps"]
      and first["id"] in [n for n in nodes if n.get("name") == "ingest.read"][1]["dataDeps"])
lc = (40 + 2500 + 38) * 1000
p1 = lc + (M - 1) * max(c1 + lc, c) + c + o
p4 = lc + (M - 1) * max(lc, c) + c + o
check("(c) prefetch 1: T = l + 3 max(c1 + l, c) + c + o", T("fc1") == p1, T("fc1"), p1, c1, c, lc)
check("(c) prefetch 4: T = l + 3 max(l, c) + c + o", T("fc4") == p4, T("fc4"), p4)
check("(c) the deeper prefetch is faster", T("fc1") > T("fc4"))
check("generate + run on the files gives train's picoseconds", S("gr")["sim_time_ps"] == S("fc1")["sim_time_ps"])
sys.exit(1 if fails else 0)
PY
[ $? -eq 0 ] && pass "closed forms" || fail "closed forms"

# Pipeline parallelism: only the first stage loads.  A transformer from keys, tp 2 x pp 2:
# loaders = tp x cp x dp = 2; seq 1024 tokens x 4 bytes per sample, micro-batch 1, 4 micro-batches.
cat > n4.yml <<'NET'
topology: [ Switch ]
npus_count: [ 4 ]
bandwidth: [ 100 ]
latency: [ 500 ]
NET
TX=(--set model.transformer.layers=4 --set model.transformer.hidden=1024 --set model.transformer.heads=16
    --set model.transformer.vocab=32000 --set model.transformer.seq=1024 --tp 2 --pp 2 --global-batch 4
    --network-configuration=n4.yml --symmetry off --quiet)
#   read 4096 B x 2 loaders / 0.008192 GB/s = 1000 us; prep 2 / 2000 = 1000 us; h2d 4096 / 4.096 GB/s = 1 us
run tx "${TX[@]}" --set ingest.bytes-per-sample=4096 --set ingest.storage-read-gbps=0.008192 \
    --set ingest.preprocess-samples-per-s=2000 --set ingest.h2d-gbps=4.096
python3 - <<'PY' && pass "pp 2: the first stage's 2 ranks load (4 x 2001 us each), the second stage's none" || fail "pp loaders"
import json, sys
s = json.load(open("tx/summary.json"))
cpu = [r["cpu_ns"] for r in s["ranks"]]
sys.exit(0 if cpu == [4 * 2001e3, 4 * 2001e3, 0, 0] and s["ingest"]["loaders"] == 2 else (print(cpu), 1)[1])
PY

# class mode (one representative per stage) gives the full simulation's picoseconds, also when the
# plan without ingest falls back to every rank (ZeRO-3 here)
TY=(--set model.transformer.layers=4 --set model.transformer.hidden=1024 --set model.transformer.heads=16
    --set model.transformer.vocab=32000 --set model.transformer.seq=1024 --tp 2 --pp 2 --dp 2 --global-batch 8
    --network-configuration=n8.yml --set ingest.bytes-per-sample=4096 --set ingest.preprocess-samples-per-s=500
    --set ingest.storage-read-gbps=0.001 --quiet)
for z in 0 3; do
    "$CS_BIN" train "${TY[@]}" --zero $z --json cls$z.json 2> cls$z.err || fail "class zero $z: $(cat cls$z.err)"
    "$CS_BIN" train "${TY[@]}" --zero $z --symmetry off --json full$z.json 2> full$z.err || fail "full zero $z: $(cat full$z.err)"
    python3 - cls$z.json full$z.json <<'PY' && pass "class mode = every rank with ingest ($z)" || fail "class vs full ($z)"
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
ok = a["symmetry"] == "class" and b["symmetry"] == "full" and a["iteration_time_ps"] == b["iteration_time_ps"] \
     and a["ingest"] == b["ingest"] and a["ingest"]["input_bound"] is True
sys.exit(0 if ok else (print(a["iteration_time_ps"], b["iteration_time_ps"], a["ingest"], b["ingest"]), 1)[1])
PY
done

# the keys are in the scenario namespace: --help-config lists them, a dump carries them, a sweep sets them
"$CS_BIN" run --help-config > hc.txt
grep -q "ingest.storage-read-gbps\|storage-read-gbps" hc.txt && grep -q "prefetch-depth" hc.txt \
    && pass "--help-config lists ingest.*" || fail "help-config"
"$CS_BIN" train "${R1[@]}" --global-batch 32 "${IMG[@]}" --set ingest.storage-read-gbps=22 \
    --set ingest.preprocess-samples-per-s=20000 --dump-scenario d.json > /dev/null 2>&1
"$CS_BIN" train --scenario d.json --out fd --quiet 2> fd.err || fail "scenario: $(cat fd.err)"
python3 -c "import json,sys; a=json.load(open('fa/summary.json')); b=json.load(open('fd/summary.json')); sys.exit(a['sim_time_ps']!=b['sim_time_ps'])" \
    && pass "a dumped scenario runs to the same picoseconds" || fail "dumped scenario"
cat > sw.json <<'JSON'
{"clustersim-sweep": 1, "scenario": "d.json", "grid": {"ingest.storage-read-gbps": [22, 0.2]}}
JSON
"$CS_BIN" sweep sw.json --out sw -j 1 > sw.txt 2> sw.err || fail "sweep: $(cat sw.err)"
# 0.2 GB/s: read 8 x 110000 / 0.2e9 = 4400 us, l = 4400 + 400 + 38 = 4838 us > c: T = 4 l + T1
python3 - <<'PY' && pass "a sweep sets ingest.storage-read-gbps: 22 GB/s gives (a)'s step, 0.2 GB/s 4 l + T1" || fail "sweep values"
import csv, json, sys
rows = {float(r["ingest.storage-read-gbps"]): float(r["time_ns"]) for r in csv.DictReader(open("sw/results.csv"))}
fa = json.load(open("fa/summary.json"))["sim_time_ns"]; t1 = json.load(open("t1/summary.json"))["sim_time_ns"]
ok = rows[22.0] == fa and rows[0.2] == 4 * 4838e3 + t1
ex = {float(r["ingest.storage-read-gbps"]): float(r["exposed_input_ns"]) for r in csv.DictReader(open("sw/results.csv"))}
t0 = json.load(open("t0/summary.json"))["sim_time_ns"]
ok = ok and ex[22.0] == 478e3 and ex[0.2] == 4 * 4838e3 + t1 - t0    # (a): the first batch; slow: T - T0
sys.exit(0 if ok else (print(rows, fa, 4 * 4838e3 + t1), 1)[1])
PY

# (d) bad values name the key
expect_fail "zero storage bandwidth" "ingest.storage-read-gbps|> 0" \
    "$CS_BIN" train "${R1[@]}" --global-batch 32 "${IMG[@]}" --set ingest.preprocess-samples-per-s=1 --set ingest.storage-read-gbps=0
expect_fail "negative storage bandwidth" "ingest.storage-read-gbps|> 0" \
    "$CS_BIN" train "${R1[@]}" --global-batch 32 "${IMG[@]}" --set ingest.preprocess-samples-per-s=1 --set ingest.storage-read-gbps=-5
expect_fail "zero host-to-device bandwidth" "ingest.h2d-gbps|> 0" \
    "$CS_BIN" train "${R1[@]}" --global-batch 32 "${IMG[@]}" --set ingest.preprocess-samples-per-s=1 --set ingest.h2d-gbps=0
expect_fail "non-integer prefetch depth" "ingest.prefetch-depth|integer" \
    "$CS_BIN" train "${R1[@]}" --global-batch 32 "${IMG[@]}" --set ingest.preprocess-samples-per-s=1 --set ingest.prefetch-depth=1.5
expect_fail "zero prefetch depth" "ingest.prefetch-depth|integer from 1" \
    "$CS_BIN" train "${R1[@]}" --global-batch 32 "${IMG[@]}" --set ingest.preprocess-samples-per-s=1 --set ingest.prefetch-depth=0
expect_fail "no preprocessing throughput" "ingest.preprocess-samples-per-s|> 0" \
    "$CS_BIN" train "${R1[@]}" --global-batch 32 "${IMG[@]}"
expect_fail "negative bytes per sample" "ingest.bytes-per-sample|>= 0" \
    "$CS_BIN" train "${R1[@]}" --global-batch 32 --set ingest.bytes-per-sample=-1
expect_fail "no ingest hosts" "cost.storage-npus-per-host|>= 1" \
    "$CS_BIN" train "${R1[@]}" --global-batch 32 "${IMG[@]}" --set ingest.preprocess-samples-per-s=1 --set cost.storage-npus-per-host=0
finish
