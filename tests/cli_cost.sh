#!/usr/bin/env bash
# cli_cost.sh -- the cost and power model end to end (docs/cost.md): the
# accelerators' power in summary.json is the integral of the documented
# model over ranks.csv (recomputed here from the per-rank compute times and
# the A100's documented 400 W / 50 W); the facility factor scales the total
# exactly; overrides apply; a device without a power figure is reported
# as such, not invented; contradictory figures are refused by name; a sweep's
# pareto.csv is exactly the non-dominated points (checked against a
# brute-force comparison of every pair), sorted by its first objective, and
# a sweep without --pareto removes the one an earlier sweep left.
. "$(dirname "$0")/lib_cli.sh"
cd "$CS_TMP" || exit 1
EX=$CS_SOURCE_DIR/examples/data_parallel
RUN=(run --workload-configuration="$EX/dp.et" --network-configuration="$EX/network.yml"
     --system-configuration="$EX/system.json")

"$CS_BIN" "${RUN[@]}" --out a > a.txt 2> a.err || fail "run: $(cat a.err)"
grep -q "power .* average (A100-80GB accelerators" a.txt && grep -q "cost .* to buy (network" a.txt \
    && pass "the terminal report has power and cost" || fail "report: $(grep -A1 power a.txt)"
python3 - a/summary.json a/ranks.csv <<'PY' && pass "accelerator power = the model integrated over ranks.csv" || fail "npu power"
import csv, json, sys
s = json.load(open(sys.argv[1]))
c = s["cost"]
T = s["sim_time_ps"] / 1e12
busy = sum(min(float(r["compute_ns"]) * 1e-9, T) for r in csv.DictReader(open(sys.argv[2])))
n = s["ranks_count"]
expect = (50 * T * n + (400 - 50) * busy) / T          # A100-80GB: idle 50 W, TDP 400 W (docs/cost.md)
got = c["average_power"]["npus_w"]
ok = abs(got - expect) <= 1e-9 * expect and c["valid"] and c["npus"] == n and c["hosts"] == n // 8
parts = sum(v for k, v in c["average_power"].items() if k != "total_w")
ok = ok and abs(parts - c["average_power"]["total_w"]) <= 1e-9 * parts
ok = ok and abs(c["energy_per_step_j"] - c["average_power"]["total_w"] * T) <= 1e-9 * c["energy_per_step_j"]
sys.exit(0 if ok else (print(got, expect, c), 1)[1])
PY

"$CS_BIN" "${RUN[@]}" --set cost.pue=1.0 --set cost.npu-power-w=800 --set cost.npu-idle-power-w=100 \
    --set cost.npu-price-usd=1 --out b > /dev/null 2> b.err || fail "run with overrides: $(cat b.err)"
python3 - a/summary.json b/summary.json <<'PY' && pass "cost.* overrides: pue, power and price" || fail "overrides"
import json, sys
a = json.load(open(sys.argv[1]))["cost"]; b = json.load(open(sys.argv[2]))["cost"]
it_a = a["average_power"]["total_w"] - a["average_power"]["facility_overhead_w"]
ok = abs(it_a * 1.1 - a["average_power"]["total_w"]) <= 1e-9 * it_a      # the default pue 1.1
ok = ok and b["average_power"]["facility_overhead_w"] == 0
u = a["npu_utilization"]; n = a["npus"]
ok = ok and abs(b["average_power"]["npus_w"] - n * (100 + 700 * u)) <= 1e-6 * n * 800
ok = ok and b["capex"]["npus_usd"] == n
sys.exit(0 if ok else (print(a, b), 1)[1])
PY

echo '{"clustersim-scenario": 1, "cost": {"pue": 1.0, "npu-power-w": 800, "npu-idle-power-w": 100,
      "npu-price-usd": 1}}' > cost.json
"$CS_BIN" "${RUN[@]}" --dump-scenario base0.json --out b0 > /dev/null 2>&1
"$CS_BIN" run --scenario base0.json --scenario cost.json --out b2 > /dev/null 2> b2.err || fail "two --scenario: $(cat b2.err)"
python3 - b/summary.json b2/summary.json <<'PY' && pass "--scenario twice: a cost file layered over a run's scenario" || fail "layered scenarios"
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
sys.exit(0 if a["cost"] == b["cost"] and a["sim_time_ps"] == b["sim_time_ps"] else 1)
PY

cat > nopower.json <<'DEV'
{"name": "bare", "peak_bf16_tflops": 100, "hbm_gb": 16, "hbm_bw_gbps": 1000}
DEV
"$CS_BIN" "${RUN[@]}" --set device.name=nopower.json --out c > c.txt 2> c.err || fail "run: $(cat c.err)"
grep -q "power & cost     not computed: device bare has no power figure: set cost.npu-power-w" c.txt \
    && grep -q '"valid": false' c/summary.json && ! grep -q energy_per_step_j c/summary.json \
    && pass "a device without a power figure: reported as missing, nothing invented" || fail "missing figure"
expect_fail "idle above full load refused by key" "cost.npu-idle-power-w|expected at most" \
    "$CS_BIN" "${RUN[@]}" --set cost.npu-idle-power-w=500 --out d
expect_fail "a negative price refused by key" "cost.host-price-usd" \
    "$CS_BIN" "${RUN[@]}" --set cost.host-price-usd=-1 --out d
[ ! -e d/summary.json ] && pass "a refused run leaves no summary" || fail "stale summary in d"

# a sweep: 3 bandwidths x 2 cable prices x 2 NPU prices; the dearer cables never help
"$CS_BIN" "${RUN[@]}" --dump-scenario base.json --out base > /dev/null 2> base.err || fail "dump: $(cat base.err)"
cat > spec.json <<SPEC
{"clustersim-sweep": 1,
 "scenario": "base.json",
 "grid": {"network.bandwidth": [[300, 6.25], [300, 25], [300, 100]],
          "cost.scaleout-link-usd-per-gbps": [7.8, 20],
          "cost.npu-price-usd": [15000, 10000]}}
SPEC
"$CS_BIN" sweep spec.json --out sw -j 2 --no-progress --pareto time_ns,capex_usd,max:mfu > sw.txt 2> sw.err
grep -q "no point that ran has the metric mfu" sw.err && grep -q "pareto front  0 points" sw.txt \
    && pass "--pareto says when no run has a metric (mfu: plans only)" || fail "sweep: $(cat sw.err sw.txt)"
"$CS_BIN" sweep spec.json --out sw -j 2 --no-progress --pareto time_ns,energy_per_step_j,capex_usd \
    --objective cost_per_step_usd > sw.txt 2> sw.err || fail "sweep: $(cat sw.err)"
grep -q "best by cost_per_step_usd" sw.txt && grep -q "pareto front .* on (time_ns, energy_per_step_j, capex_usd)" sw.txt \
    && pass "the summary ranks by --objective and names the front" || fail "summary: $(cat sw.txt)"
python3 - sw/results.csv sw/pareto.csv <<'PY' && pass "pareto.csv = the non-dominated points, by time" || fail "pareto"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["status"] == "ok"]
keys = ["time_ns", "energy_per_step_j", "capex_usd"]
v = {int(r["point"]): [float(r[k]) for k in keys] for r in rows}
def dom(a, b): return all(x <= y for x, y in zip(a, b)) and any(x < y for x, y in zip(a, b))
front = sorted(p for p in v if not any(dom(v[q], v[p]) for q in v if q != p))
got = [int(r["point"]) for r in csv.DictReader(open(sys.argv[2]))]
t = [v[p][0] for p in got]
ok = sorted(got) == front and t == sorted(t) and len(v) == 12 and 0 < len(front) < 12
# the dearer cables are never on the front (same times and energy, more capital)
ok = ok and all(r["cost.scaleout-link-usd-per-gbps"] == "7.8" for r in csv.DictReader(open(sys.argv[2])))
sys.exit(0 if ok else (print(got, front), 1)[1])
PY
"$CS_BIN" sweep spec.json --out sw -j 2 --no-progress > /dev/null 2> sw.err || fail "sweep rerun: $(cat sw.err)"
[ ! -e sw/pareto.csv ] && pass "a sweep without --pareto removes the earlier front" || fail "stale pareto.csv"
expect_fail "--objective with an unknown metric" "--objective|\"speed\"|expected a numeric metric" \
    "$CS_BIN" sweep spec.json --out sw --objective speed
expect_fail "--pareto with one metric" "--pareto|two or more" "$CS_BIN" sweep spec.json --out sw --pareto time_ns
expect_fail "--pareto with a metric twice" "--pareto|given twice" \
    "$CS_BIN" sweep spec.json --out sw --pareto time_ns,max:time_ns
n=$("$CS_BIN" sweep "$CS_SOURCE_DIR/examples/sweep/comet.json" --list 2> list.err | grep -c '^ *[0-9]')
[ "$n" = 72 ] && pass "examples/sweep/comet.json: 72 points, every scenario accepted" || fail "comet list: $n $(cat list.err)"
finish
