#!/usr/bin/env bash
# cli_search.sh -- clustersim search end to end: the plan count is the
# space's (the product of the lists, less the shapes that do not fill the
# cluster), every plan is estimated or refused with its reason, the best
# simulated plan's step time is what `train` gives for that plan, the
# ranking is the same bytes on a rerun, and bad flags are refused by name.
. "$(dirname "$0")/lib_cli.sh"
cd "$CS_TMP" || exit 1
cat > n64.yml <<'NET'
topology: [ Switch, Switch ]
npus_count: [ 8, 8 ]
bandwidth: [ 419.1, 46.57 ]
latency: [ 700.0, 3000.0 ]
NET
BASE=(--model gpt3-13b --device H100-SXM --network-configuration=n64.yml --global-batch 64)
SPACE=(--tp 2,4,8 --pp 1,2,4 --micro-batch 1,2,4 --virtual-stages 1 --zero 0,1 --recompute selective,full
       --placement tp,cp,dp,pp)
"$CS_BIN" search "${BASE[@]}" "${SPACE[@]}" --top 3 --out s1 --no-progress > s1.txt 2> s1.err \
    || fail "search: $(cat s1.err)"
# 3 tp x 3 pp x 3 mb x 2 zero x 2 recompute = 108 plans (every tp x pp divides 64)
grep -q "space        108 plans" s1.txt && pass "108 plans in the space" || fail "space: $(grep space s1.txt)"
python3 - s1/plans.csv <<'PY' && pass "plans.csv: 108 rows, each estimated or refused with a reason" || fail "plans.csv rows"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
bad = [r for r in rows if not ((r["status"] == "ok" and float(r["est_step_s"]) > 0) or (r["status"] != "ok" and r["reason"]))]
sys.exit(0 if len(rows) == 108 and not bad else (print(len(rows), bad[:2]), 1)[1])
PY
grep -q "out-of-memory" s1/plans.csv && grep -q "does not fit in memory" s1/plans.csv \
    && pass "plans that do not fit are refused with the memory breakdown" || fail "no memory refusal"
grep -q "micro-batch x dp" s1/plans.csv && pass "batch refusals name micro-batch x dp" || fail "no batch refusal"
# the best simulated plan = train of the same plan
read -r tp pp dp mb rc z sp pl sim < <(python3 - s1/plans.csv <<'PY'
import csv, sys
r = [r for r in csv.DictReader(open(sys.argv[1])) if r["sim_rank"] == "1"][0]
print(r["tp"], r["pp"], r["dp"], r["micro_batch"], r["recompute"], r["zero"], r["sp"], r["placement"], r["sim_step_s"])
PY
)
[ -n "${sim:-}" ] || fail "no plan ranked 1 by simulation"
"$CS_BIN" train "${BASE[@]}" --tp "$tp" --pp "$pp" --dp "$dp" --micro-batch "$mb" --recompute "$rc" --zero "$z" \
    $([ "$sp" = 1 ] && echo --sp) --placement "$pl" --json t.json --quiet 2> t.err || fail "train: $(cat t.err)"
python3 - "$sim" t.json <<'PY' && pass "best plan's simulated step = train's ($sim s)" || fail "search vs train"
import json, sys
sim, j = float(sys.argv[1]), json.load(open(sys.argv[2]))
t = j["iteration_time_ns"] / 1e9
sys.exit(0 if abs(t - sim) <= 1e-9 * max(1, t) else (print(f"search {sim} train {t}"), 1)[1])
PY
grep -q "best plan    TP" s1.txt && pass "report names the best plan" || fail "report: $(cat s1.txt)"
# deterministic
"$CS_BIN" search "${BASE[@]}" "${SPACE[@]}" --top 3 --out s2 --quiet --no-progress 2> s2.err || fail "rerun"
cmp -s s1/plans.csv s2/plans.csv && pass "plans.csv identical on a rerun" || fail "plans.csv differs"
# -j: the best plans simulated on worker processes give the same table as one process
# (the plans tried, in estimate order until --top are simulated, and every result)
for top in 3 10; do
    "$CS_BIN" search "${BASE[@]}" "${SPACE[@]}" --top $top -j 1 --out j1 --quiet --no-progress 2> j1.err || fail "-j 1: $(cat j1.err)"
    "$CS_BIN" search "${BASE[@]}" "${SPACE[@]}" --top $top -j 3 --out j3 --quiet --no-progress 2> j3.err || fail "-j 3: $(cat j3.err)"
    n=$(grep -c ',simulated,' j3/plans.csv)
    cmp -s j1/plans.csv j3/plans.csv && [ "$n" -eq $top ] && pass "--top $top: -j 3 gives -j 1's plans.csv ($n simulated)" \
        || fail "--top $top: -j 3 differs from -j 1 ($n simulated)"
done
grep -q "in [0-9.]* s wall, 3 worker processes:" <("$CS_BIN" search "${BASE[@]}" "${SPACE[@]}" --top 3 -j 3 --no-progress 2>&1) \
    && pass "-j 3: the report says 3 worker processes simulated" || fail "-j 3: no worker count in the report"
expect_fail "bad -j" "-j '0'|worker processes from 1 to 1024" "$CS_BIN" search "${BASE[@]}" -j 0
# over 512 ranks only class mode is tried: ZeRO-3 plans whose class mode stops are skipped with the
# reason and the next estimate is simulated instead; -j 3 must skip and stop exactly where -j 1 does
cat > n1k.yml <<'NET'
topology: [ Switch, Switch ]
npus_count: [ 8, 128 ]
bandwidth: [ 419.1, 46.57 ]
latency: [ 700.0, 3000.0 ]
NET
K=(--model gpt3-13b --device H100-SXM --network-configuration=n1k.yml --global-batch 1024 --tp 1,2,4 --pp 1,2,4
   --zero 3 --micro-batch 1,2 --virtual-stages 1 --recompute selective --placement tp,cp,dp,pp --top 4)
"$CS_BIN" search "${K[@]}" -j 1 --out k1 --quiet --no-progress 2> k1.err || fail "-j 1 over 512 ranks: $(cat k1.err)"
"$CS_BIN" search "${K[@]}" -j 3 --out k3 --quiet --no-progress 2> k3.err || fail "-j 3 over 512 ranks: $(cat k3.err)"
nsk=$(grep -c ',skipped,' k3/plans.csv); nsim=$(grep -c ',simulated,' k3/plans.csv)
cmp -s k1/plans.csv k3/plans.csv && [ "$nsk" -ge 1 ] && [ "$nsim" -eq 4 ] \
    && pass "over 512 ranks: -j 3 = -j 1 with $nsk plans skipped and 4 simulated" \
    || fail "over 512 ranks: -j 3 vs -j 1 ($nsk skipped, $nsim simulated)"
# a worker that dies fails its plan with the cause; the search goes on with a new worker (K at 32x the
# batch: each plan simulates for about 2 s, so the kill below lands while the worker runs one)
KK=("${K[@]}" --global-batch 32768)
"$CS_BIN" search "${KK[@]}" -j 2 --out kk --quiet 2> kk.err & pid=$!
for _ in $(seq 1 600); do grep -q "simulating estimate #1" kk.err && break; sleep 0.05; done
victim=$(pgrep -P "$pid" | head -1)
[ -n "$victim" ] && kill -9 "$victim"
wait "$pid"; rc=$?
[ "$rc" -eq 0 ] && grep -q "killed by signal 9" kk/plans.csv && [ "$(grep -c ',simulated,' kk/plans.csv)" -eq 4 ] \
    && pass "a worker killed: its plan failed with the signal, 4 others simulated" \
    || fail "a worker killed: exit $rc, $(grep -c 'killed by signal' kk/plans.csv) plans with the signal"
# estimates only
"$CS_BIN" search "${BASE[@]}" "${SPACE[@]}" --top 0 --out s3 --no-progress > s3.txt 2>&1 || fail "--top 0"
grep -q "simulated" s3/plans.csv && fail "--top 0 simulated" || pass "--top 0: estimates only"

# a failed or interrupted search leaves no table of an earlier one
"$CS_BIN" search "${BASE[@]}" --model no-such-model --out s2 --quiet > /dev/null 2> s2f.err
[ $? -eq 1 ] && [ ! -e s2/plans.csv ] && pass "failed rerun: the previous plans.csv is gone" \
    || fail "failed rerun left s2/plans.csv: $(cat s2f.err)"
"$CS_BIN" search "${BASE[@]}" "${SPACE[@]}" --top 3 --out s4 --quiet --no-progress 2> /dev/null
"$CS_BIN" search "${BASE[@]}" --tp 8 --pp 1 --cp 1 --micro-batch 1 --zero 1 --recompute full --top 1 --refine-full \
    --out s4 --quiet --progress-none 2> /dev/null
rc=$?
[ "$rc" -eq 2 ] && [ -e s4/plans.csv ] && pass "usage error (exit 2) before anything: results kept" || fail "usage error removed plans.csv"

cat > n16k.yml <<'NET'
topology: [ Switch, Switch ]
npus_count: [ 8, 2048 ]
bandwidth: [ 419.1, 46.57 ]
latency: [ 700.0, 3000.0 ]
NET
"$CS_BIN" search --model llama3-405b --device H100-SXM --network-configuration=n16k.yml --global-batch 2048 \
    --top 20 --out s4 --quiet 2> s4i.err & pid=$!
for _ in $(seq 1 600); do grep -q "simulating estimate #1" s4i.err && break; sleep 0.05; done
kill -INT "$pid"; wait "$pid"; rc=$?
[ "$rc" -eq 130 ] && [ ! -e s4/plans.csv ] && pass "Ctrl-C while simulating: exit 130, no plans.csv" \
    || fail "interrupt: exit $rc, plans.csv $(ls s4)"

# --objective energy: the ranking follows the cost model's energy, which is linear in the step time and
# the compute time with the same two coefficients for every plan (one cluster): E = a T + b C, with
# b = pue x ranks x (TDP - idle) = 1.1 x 64 x (700 - 90) W (docs/cost.md, H100-SXM)
"$CS_BIN" search "${BASE[@]}" "${SPACE[@]}" --top 1 --objective energy --out s5 --no-progress > s5.txt 2> s5.err \
    || fail "search --objective energy: $(cat s5.err)"
python3 - s5/plans.csv <<'PY' && pass "--objective energy: ranked by the cost model's energy, E = a T + b C for every plan" || fail "objective energy"
import csv, sys
rows = sorted((r for r in csv.DictReader(open(sys.argv[1])) if r["status"] == "ok"), key=lambda r: int(r["est_rank"]))
E = [float(r["est_energy_per_step_j"]) for r in rows]
ok = E == sorted(E) and len(rows) > 10
b = 1.1 * 64 * (700 - 90)
r0 = rows[0]
a = (E[0] - b * float(r0["est_compute_s"])) / float(r0["est_step_s"])
ok = ok and all(abs(a * float(r["est_step_s"]) + b * float(r["est_compute_s"]) - float(r["est_energy_per_step_j"]))
                <= 1e-6 * float(r["est_energy_per_step_j"]) for r in rows)
sim = [r for r in rows if r["sim_status"] == "simulated"]
ok = ok and len(sim) == 1 and float(sim[0]["sim_energy_per_step_j"]) > 0 and float(sim[0]["sim_cost_per_step_usd"]) > 0
sys.exit(0 if ok else (print(rows[:3]), 1)[1])
PY
expect_fail "bad --objective" "--objective 'speed'|time, cost or energy" "$CS_BIN" search "${BASE[@]}" --objective speed

# bad input
expect_fail "no global batch" "plan.global-batch|--global-batch N" \
    "$CS_BIN" search --model gpt3-13b --network-configuration=n64.yml
expect_fail "bad --tp" "--tp 'x'|integers" "$CS_BIN" search "${BASE[@]}" --tp x
expect_fail "bad --recompute" "--recompute 'some'|none, selective, full" "$CS_BIN" search "${BASE[@]}" --recompute some
expect_fail "bad --placement" "--placement tp,xx|tp, dp and pp" "$CS_BIN" search "${BASE[@]}" --placement tp,xx
expect_fail "an empty list element" "--tp '1,,2'|integers" "$CS_BIN" search "${BASE[@]}" --tp 1,,2
expect_fail "a trailing comma" "--micro-batch '1,'|integers" "$CS_BIN" search "${BASE[@]}" --micro-batch 1,
out=$("$CS_BIN" search "${BASE[@]}" --placement tp,tp,dp 2>&1); case "$out" in *"--placement tp,tp,dp: --placement"*) fail "placement named twice: $out" ;; *) pass "placement named once" ;; esac
expect_fail "bad --top" "--top '-1'|from 0 to 1000" "$CS_BIN" search "${BASE[@]}" --top -1
expect_fail "nothing fits" "none of the" "$CS_BIN" search "${BASE[@]}" --tp 1 --pp 1 --zero 0 --recompute none
"$CS_BIN" search "${BASE[@]}" --bogus 1 > /dev/null 2>&1; [ $? -eq 2 ] && pass "unknown option: exit 2" || fail "unknown option"
finish
