#!/usr/bin/env bash
# cli_bandwidth.sh -- `clustersim bandwidth` against the closed form of a
# hierarchical ring all-reduce on Switch(4) x Switch(4) (localBWAware:
# reduce-scatter on dim 0 with S bytes, on dim 1 with S/4, then the
# all-gathers): T(B0, B1) = R + 2 S (c0 / B0 + c1 / B1) / 1.073741824 ns
# with c0 = 3/4, c1 = 3/16 (B in GB/s as written, read as GiB/s) and R the
# reductions, independent of bandwidth (taken from the run at the given
# split).  Minimizing under B0 + B1 = G gives B_d proportional to sqrt(c_d);
# under a network price a0 B0 + a1 B1 = M (docs/cost.md: a = 16 NPUs x
# (4 + 13) $/GB/s for the scale-up dimension and 16 x (31.6 + 18 + 7.8) for
# the scale-out one) B_d proportional to sqrt(c_d / a_d).  The search must
# land within its resolution of these optima, report the gain over the
# uniform split that the closed form gives, spend the budget, and refuse
# bad specs by name.
. "$(dirname "$0")/lib_cli.sh"
: "${CS_MKTRACE:?}"
cd "$CS_TMP" || exit 1
S=268435456
"$CS_MKTRACE" ar.et "1 COLL ctype=0 size=$S" || fail "mktrace"
cat > net.yml <<'NET'
topology: [ Switch, Switch ]
npus_count: [ 4, 4 ]
bandwidth: [ 100, 100 ]
latency: [ 0, 0 ]
NET
cat > sys.json <<'SYS'
{"scheduling-policy": "LIFO", "endpoint-delay": 0, "active-chunks-per-dimension": 1, "preferred-dataset-splits": 1,
 "all-reduce-implementation": ["ring", "ring"], "all-gather-implementation": ["ring", "ring"],
 "reduce-scatter-implementation": ["ring", "ring"], "all-to-all-implementation": ["ring", "ring"],
 "collective-optimization": "localBWAware", "local-mem-bw": 1600}
SYS
"$CS_BIN" run --workload-configuration=ar.et --network-configuration=net.yml --system-configuration=sys.json \
    --dump-scenario ar.json --quiet --json given.json 2> dump.err || fail "dump: $(cat dump.err)"

echo '{"clustersim-bandwidth": 1, "workloads": ["ar.json"], "budget": {"gbps-per-npu": 200}}' > g.json
"$CS_BIN" bandwidth g.json --out g --no-progress > g.txt 2> g.err || fail "bandwidth: $(cat g.err)"
python3 - g/best.json g/splits.csv given.json "$S" g.txt <<'PY' && pass "GB/s budget: the closed-form optimum (B0 = 2 B1) and its gain" || fail "GB/s budget"
import csv, json, math, re, sys
b = json.load(open(sys.argv[1])); rows = list(csv.DictReader(open(sys.argv[2])))
S = float(sys.argv[4]); c0, c1 = 0.75, 0.1875; k = 1.073741824
Tg = json.load(open(sys.argv[3]))["sim_time_ns"]
R = Tg - 2 * S * (c0 / 100 + c1 / 100) / k                 # the given split is 100, 100
T = lambda b0, b1: R + 2 * S * (c0 / b0 + c1 / b1) / k
b0 = 200 * math.sqrt(c0) / (math.sqrt(c0) + math.sqrt(c1)); b1 = 200 - b0   # 133.33, 66.67
best = b["best"]; bw = best["bandwidth_gbps"]
ok = abs(best["weighted_time_ns"] - T(*bw)) <= 5   # the simulation follows the closed form (to its ns rounding)
ok = ok and best["weighted_time_ns"] <= T(b0, b1) * (1 + 1e-5) and abs(bw[0] / bw[1] - 2) < 0.01
gain = b["uniform"]["weighted_time_ns"] / best["weighted_time_ns"] - 1
ok = ok and abs(gain - (T(100, 100) / T(b0, b1) - 1)) < 1e-4 and abs(b["gain_vs_uniform"] - gain) < 1e-12
ok = ok and all(abs(float(r["bandwidth_dim0_gbps"]) + float(r["bandwidth_dim1_gbps"]) - 200) < 1e-9
                for r in rows if r["label"] in ("grid", "refine", "uniform"))
ok = ok and min(float(r["objective"]) for r in rows) == best["objective"]
m = re.search(r"gain +([0-9.]+) %", open(sys.argv[5]).read())
ok = ok and m and abs(float(m.group(1)) - 100 * gain) < 0.006
sys.exit(0 if ok else (print(bw, best, gain, T(b0, b1)), 1)[1])
PY

echo '{"clustersim-bandwidth": 1, "workloads": ["ar.json"], "budget": {"network-usd": 119040}}' > m.json
"$CS_BIN" bandwidth m.json --out m --no-progress > m.txt 2> m.err || fail "bandwidth: $(cat m.err)"
python3 - m/best.json given.json "$S" <<'PY' && pass "US$ budget: B_d ~ sqrt(c_d / a_d), the budget spent" || fail "US$ budget"
import json, math, sys
b = json.load(open(sys.argv[1])); S = float(sys.argv[3]); c0, c1 = 0.75, 0.1875; k = 1.073741824
a0, a1 = 16 * (4 + 13), 16 * (31.6 + 18 + 7.8)      # docs/cost.md defaults
Tg = json.load(open(sys.argv[2]))["sim_time_ns"]
R = Tg - 2 * S * (c0 / 100 + c1 / 100) / k
T = lambda b0, b1: R + 2 * S * (c0 / b0 + c1 / b1) / k
r = math.sqrt(c0 * a1 / (c1 * a0)); b1 = 119040 / (a0 * r + a1); b0 = r * b1
bw = b["best"]["bandwidth_gbps"]
ok = abs(a0 * bw[0] + a1 * bw[1] - 119040) < 1e-6 * 119040 and abs(b["best"]["network_capex_usd"] - 119040) < 0.01
ok = ok and abs(bw[0] / bw[1] / r - 1) < 0.02 and b["best"]["weighted_time_ns"] <= T(b0, b1) * (1 + 1e-5)
ok = ok and abs(b["uniform"]["bandwidth_gbps"][0] - 119040 / (a0 + a1)) < 1e-9
sys.exit(0 if ok else (print(bw, b0, b1, b["best"]), 1)[1])
PY

# performance per dollar of the cluster: may leave budget unspent; never worse than what it simulated
echo '{"clustersim-bandwidth": 1, "workloads": ["ar.json", {"scenario": "ar.json", "weight": 3}],
       "budget": {"network-usd": 400000}, "objective": "perf-per-usd"}' > p.json
"$CS_BIN" bandwidth p.json --out p --no-progress > p.txt 2> p.err || fail "bandwidth: $(cat p.err)"
python3 - p/best.json p/splits.csv <<'PY' && pass "perf-per-usd: the minimum of time x capital, within the budget, weights applied" || fail "perf-per-usd"
import csv, json, sys
b = json.load(open(sys.argv[1])); rows = [r for r in csv.DictReader(open(sys.argv[2])) if r["objective"]]
best = b["best"]
ok = all(float(r["objective"]) >= best["objective"] for r in rows)
ok = ok and all(abs(float(r["weighted_time_ns"]) - 4 * float(r["time_ns_w0"])) <= 1e-9 * float(r["weighted_time_ns"])
                for r in rows)
ok = ok and all(abs(float(r["objective"]) - float(r["weighted_time_ns"]) * float(r["capex_usd"]))
                <= 1e-9 * float(r["objective"]) for r in rows)
ok = ok and best["network_capex_usd"] <= 400000 * (1 + 1e-9) and b["gain_vs_uniform"] >= 0
sys.exit(0 if ok else (print(best), 1)[1])
PY

"$CS_BIN" bandwidth g.json --out g --no-progress > /dev/null 2>&1
echo '{"clustersim-bandwidth": 1, "workloads": ["ar.json"]}' > nob.json
expect_fail "no budget" "nob.json|budget|gbps-per-npu" "$CS_BIN" bandwidth nob.json --out g
[ ! -e g/best.json ] && [ ! -e g/splits.csv ] && pass "a failed run leaves no earlier result" || fail "stale results in g"
"$CS_BIN" bandwidth g.json --out g --no-progress > /dev/null 2>&1
echo '{"clustersim-bandwidth": 1, "workloads": ["ar.json"], "budget": {"gbps-per-npu": 1e-300}}' > tiny.json
expect_fail "a budget no split runs under" "tiny.json: none of the|splits of the budget could be simulated|beyond the simulated-time range" \
    "$CS_BIN" bandwidth tiny.json --out g --no-progress
[ ! -e g/best.json ] && [ ! -e g/splits.csv ] && pass "no best reported when no split ran" || fail "a best.json of failed splits"
echo '{"clustersim-bandwidth": 1, "workloads": ["ar.json"], "budget": {"gbps-per-npu": 200}, "dimensions": [1]}' > d1.json
expect_fail "one dimension" "d1.json|two or more dimensions" "$CS_BIN" bandwidth d1.json --out g
echo '{"clustersim-bandwidth": 1, "workloads": ["ar.json"], "budget": {"gbps-per-npu": 200}, "dimensions": [0, 5]}' > d5.json
expect_fail "a dimension the network lacks" "d5.json|dimensions: 5" "$CS_BIN" bandwidth d5.json --out g
echo '{"clustersim-bandwidth": 1, "workloads": ["ar.json"], "budget": {"gbps-per-npu": 200}, "objective": "fast"}' > ob.json
expect_fail "unknown objective" "ob.json:1: objective|perf-per-usd|\"fast\"" "$CS_BIN" bandwidth ob.json --out g
echo '{"clustersim-bandwidth": 1, "workloads": ["ar.json"], "budget": {"gbps-per-npu": 200}, "grids": 4}' > uk.json
expect_fail "unknown key" "uk.json:1: unknown key \"grids\"" "$CS_BIN" bandwidth uk.json --out g
echo '{"clustersim-bandwidth": 1, "workloads": ["missing.json"], "budget": {"gbps-per-npu": 200}}' > mw.json
expect_fail "a missing workload file" "mw.json: workloads[0]|missing.json" "$CS_BIN" bandwidth mw.json --out g
sed 's/\[ 4, 4 \]/[ 2, 8 ]/' net.yml > net28.yml
"$CS_BIN" run --workload-configuration=ar.et --network-configuration=net28.yml --system-configuration=sys.json \
    --dump-scenario ar28.json --quiet --json /dev/null 2> /dev/null
echo '{"clustersim-bandwidth": 1, "workloads": ["ar.json", "ar28.json"], "budget": {"gbps-per-npu": 200}}' > mix.json
expect_fail "workloads on other dimensions" "mix.json: workloads[1]|npus_count" "$CS_BIN" bandwidth mix.json --out g
finish
