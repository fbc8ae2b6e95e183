#!/usr/bin/env bash
# cli_sweep.sh -- clustersim sweep end to end: each point's metrics equal a
# `clustersim run` of the same scenario; the results are the same bytes with
# -j 1, -j 2, shards + --merge and MPI; seed statistics match a hand
# computation; a rerun skips finished points; kill -9 of the coordinator
# loses only the points in flight; a killed worker's point is recorded as
# failed and the sweep goes on; Ctrl-C keeps the points done; bad specs are
# refused naming the file, the field and what was expected.
. "$(dirname "$0")/lib_cli.sh"
cd "$CS_TMP" || exit 1
BASE="$CS_SOURCE_DIR/examples/api/scenario.json"
sweep() { "$CS_BIN" sweep "$@"; }

# --- a grid with a "seed" dimension over the pipeline example ------------------------
# (network.latency plays the seed: it changes the time, so the statistics
# over it are not trivial)
cat > spec.json <<EOF
{"clustersim-sweep": 1, "scenario": "$BASE",
 "grid": {"network.bandwidth": [[50], [150]], "system.active-chunks-per-dimension": [1, 2]},
 "seeds": {"key": "network.latency", "values": [[700], [30000], [200000]]}}
EOF
sweep spec.json --out j1 -j 1 --no-progress > j1.txt 2> j1.err || fail "sweep -j 1: $(cat j1.err)"
grep -q "points        12 (12 done: 12 ok, 0 failed)" j1.txt && pass "12 points, all ok" || fail "report: $(cat j1.txt)"
[ "$(wc -l < j1/results.csv)" -eq 13 ] && [ "$(wc -l < j1/results.jsonl)" -eq 12 ] && [ "$(wc -l < j1/summary.csv)" -eq 5 ] \
    && pass "results.csv, results.jsonl (12 rows), summary.csv (4 design points)" || fail "row counts"
head -1 j1/results.csv | grep -q '^point,id,network.bandwidth,system.active-chunks-per-dimension,network.latency,status,time_ns,' \
    && pass "results.csv header: point, id, the knobs, status, metrics with units" || fail "header: $(head -1 j1/results.csv)"

# every point's time equals `clustersim run` of the same scenario
col() { head -1 "$1" | tr ',' '\n' | grep -n "^$2\$" | cut -d: -f1; }
tcol=$(col j1/results.csv time_ns)
same=1
for bw in 50 150; do for ch in 1 2; do for ed in 700 30000 200000; do
    "$CS_BIN" run --scenario "$BASE" --set "network.bandwidth=[$bw]" --set "system.active-chunks-per-dimension=$ch" \
        --set "network.latency=[$ed]" --quiet --json r.json 2>/dev/null || same=0
    want=$(grep -o '"sim_time_ns": [0-9.]*' r.json | sed 's/.*: //')
    got=$(awk -F, -v t="$tcol" -v k="[$bw],$ch,[$ed]," 'index($0, k) { print $t }' j1/results.csv)
    [ -n "$want" ] && [ "$want" = "$got" ] || { same=0; echo "bw $bw ch $ch ed $ed: run $want, sweep $got"; }
done; done; done
[ $same -eq 1 ] && pass "every point's time_ns equals clustersim run of its scenario" || fail "sweep vs run"

# the seed statistics: mean, min, max and the 95 % interval (t = 4.303 for
# 2 degrees of freedom), computed here from results.csv
awk -F, -v t="$tcol" 'NR > 1 { g = int(($1) / 3); x[g, $1 % 3] = $t }
    END { for (g = 0; g < 4; g++) { a = x[g,0]; b = x[g,1]; c = x[g,2]; m = (a + b + c) / 3
          mn = a; if (b < mn) mn = b; if (c < mn) mn = c; mx = a; if (b > mx) mx = b; if (c > mx) mx = c
          sd = sqrt(((a-m)^2 + (b-m)^2 + (c-m)^2) / 2); printf "%d %.6f %.6f %.6f %.6f\n", g, m, mn, mx, 4.303 * sd / sqrt(3) } }' \
    j1/results.csv > hand.txt
mcol=$(col j1/summary.csv time_ns_mean)
awk -F, -v c="$mcol" 'NR > 1 { printf "%d %.6f %.6f %.6f %.6f\n", $1, $c, $(c+1), $(c+2), $(c+3) }' j1/summary.csv > sum.txt
cmp -s hand.txt sum.txt && ! grep -q ' 0.000000$' sum.txt && pass "summary.csv: mean, min, max, ci95 over the seeds as computed by hand" \
    || fail "summary: $(paste hand.txt sum.txt)"

# the same bytes with -j 2, with shards + --merge, and on MPI
sweep spec.json --out j2 -j 2 --quiet --no-progress || fail "sweep -j 2"
sweep spec.json --out sh --shard 0/3 --quiet --no-progress && sweep spec.json --out sh --shard 2/3 --quiet --no-progress \
    && sweep spec.json --out sh --shard 1/3 --quiet --no-progress && sweep spec.json --out sh --merge --quiet || fail "shards"
ident() { for f in results.csv results.jsonl summary.csv; do cmp -s "j1/$f" "$1/$f" || return 1; done; }
ident j2 && pass "-j 2 gives the same results as -j 1" || fail "-j 2 differs"
ident sh && pass "three shards + --merge give the same results" || fail "shards differ"
[ -f sh/log.shard-0-of-3.jsonl ] && [ -f sh/log.shard-2-of-3.jsonl ] && pass "each shard writes its own log" || fail "shard logs"
if command -v mpiexec >/dev/null 2>&1 && [ -n "${CS_HAVE_MPI:-}" ]; then
    mpiexec -n 3 "$CS_BIN" sweep spec.json --out mpi --quiet --no-progress 2>mpi.err || fail "mpiexec -n 3: $(cat mpi.err)"
    ident mpi && pass "mpiexec -n 3: the same results" || fail "MPI results differ"
    timeout 120 mpiexec -n 3 "$CS_BIN" sweep spec.json --out mpi --no-progress > mpi2.txt 2>&1 \
        && grep -q "this run      0 points" mpi2.txt && pass "mpiexec -n 3 with every point done: the workers are released" \
        || fail "MPI rerun: $(cat mpi2.txt)"
    timeout 120 mpiexec -n 3 "$CS_BIN" sweep spec.json --list > mpil.txt 2>&1 && [ "$(wc -l < mpil.txt)" -eq 13 ] \
        && pass "mpiexec -n 3 --list" || fail "MPI --list: $(head -3 mpil.txt)"
    ranks=$(grep -o '"mpi_rank":[0-9]*' mpi/log.jsonl | sort -u | wc -l)
    grep -q '"mpi_rank":1' mpi/log.jsonl && grep -q '"mpi_rank":2' mpi/log.jsonl \
        && pass "mpiexec -n 3: worker ranks ran points ($ranks ranks did)" || fail "MPI ranks: $(grep -o '"mpi_rank":[0-9]*' mpi/log.jsonl | sort | uniq -c)"
else
    echo "skip the MPI sweep: clustersim was built without MPI or mpiexec is absent (apt-get install mpich libmpich-dev)"
fi

# the example of README / docs/sweep.md runs: 5 x 2 x 3 points
sweep "$CS_SOURCE_DIR/examples/sweep/bandwidth.json" --out ex --quiet --no-progress \
    && [ "$(wc -l < ex/results.csv)" -eq 31 ] && [ "$(wc -l < ex/summary.csv)" -eq 11 ] && ! grep -q ',error,' ex/results.csv \
    && pass "examples/sweep/bandwidth.json: 30 points, 10 design points" || fail "the sweep example"

# --- resume ---------------------------------------------------------------------------
sweep spec.json --out j1 --no-progress > again.txt || fail "rerun"
grep -q "this run      0 points" again.txt && [ "$(wc -l < j1/log.jsonl)" -eq 12 ] \
    && pass "a rerun skips every finished point" || fail "rerun: $(cat again.txt)"
sed 's/\[\[50\], \[150\]\]/[[50], [150], [100]]/' spec.json > spec3.json
sweep spec3.json --out j1 --no-progress > grow.txt || fail "grown spec"
grep -q "this run      6 points" grow.txt && grep -q "points        18 (18 done" grow.txt \
    && pass "a grown spec runs only its new points" || fail "grow: $(cat grow.txt)"

# --- random designs --------------------------------------------------------------------
cat > rnd.json <<EOF
{"clustersim-sweep": 1, "scenario": "$BASE",
 "random": {"count": 20, "seed": 7, "keys": {"network.bandwidth": [{"uniform": [20, 200]}],
            "system.active-chunks-per-dimension": {"int": [1, 4]}, "system.all-reduce-implementation": {"choice": [["ring"], ["direct"]]}}}}
EOF
sweep rnd.json --list > l1.txt && sweep rnd.json --list > l2.txt || fail "--list"
cmp -s l1.txt l2.txt && [ "$(wc -l < l1.txt)" -eq 21 ] && pass "--list: 20 random points, the same every time" || fail "random list"
awk -F, 'NR > 1 { b = $3; gsub(/[\[\]"]/, "", b); b += 0; if (b < 20 || b > 200 || $4 < 1 || $4 > 4 || $4 != int($4)) bad = 1; seen[$4] = 1 }
    END { n = 0; for (k in seen) n++; exit bad || n < 3 }' l1.txt && pass "random values within their bounds" || fail "bounds: $(head -5 l1.txt)"
sed 's/"seed": 7/"seed": 8/' rnd.json > rnd8.json && sweep rnd8.json --list > l8.txt && ! cmp -s l1.txt l8.txt \
    && pass "another seed draws other values" || fail "seed 8"

# --- refused plans are rows with their reason; slow points for the kill tests --------------
printf 'topology: [ Switch, Switch ]\nnpus_count: [ 8, 64 ]\nbandwidth: [ 279.4, 23.28 ]\nlatency: [ 700, 3000 ]\n' > n512.yml
"$CS_BIN" train --model gpt3-175b --tp 8 --pp 8 --dp 8 --sp --recompute selective --network-configuration=n512.yml \
    --dump-scenario plan.json --quiet || fail "plan scenario"
cat > pspec.json <<'EOF'
{"clustersim-sweep": 1, "scenario": "plan.json",
 "grid": {"plan.micro-batch": [1, 2], "network.bandwidth": [[279.4, 23.28], [279.4, 46.56], [279.4, 93.12]]},
 "zip": {"plan.tp": [8, 4], "plan.dp": [8, 16]}}
EOF
sweep pspec.json --out clean -j 2 --quiet --no-progress || fail "plan sweep"
grep -q '"status":"error","error":"the plan does not fit in memory: stage 0' clean/results.jsonl \
    && [ "$(grep -c '"status":"ok"' clean/results.jsonl)" -eq 6 ] && pass "refused plans are rows with the reason; 6 plans ran" \
    || fail "plan rows: $(cut -c1-200 clean/results.jsonl)"

# kill -9 of the coordinator: the logged points stay, a rerun finishes the rest
"$CS_BIN" sweep pspec.json --out k9 -j 1 --no-progress --quiet &
pid=$!
for i in $(seq 1 600); do [ "$(cat k9/log.jsonl 2>/dev/null | wc -l)" -ge 3 ] && break; sleep 0.05; done
k9w=$(pgrep -P $pid | tr '\n' ' ') # this coordinator's worker (not another test run's: pgrep -f would match those)
kill -9 $pid; wait $pid 2>/dev/null
# the worker notices and exits (on a loaded machine that takes longer than any fixed sleep)
for i in $(seq 1 1200); do alive=0; for w in $k9w; do kill -0 "$w" 2>/dev/null && alive=1; done; [ $alive -eq 0 ] && break; sleep 0.05; done
logged=$(grep -c '"status"' k9/log.jsonl)
sweep pspec.json --out k9 -j 1 --no-progress > k9.txt || fail "resume after kill -9"
ran=$(sed -n 's/.*this run *\([0-9]*\) points.*/\1/p' k9.txt)
[ "$logged" -ge 3 ] && [ $((logged + ran)) -ge 12 ] && [ $((logged + ran)) -le 13 ] && ident_p() { cmp -s clean/results.csv k9/results.csv && cmp -s clean/results.jsonl k9/results.jsonl; } && ident_p \
    && pass "kill -9: $logged points kept, $ran run on resume, the same results as a clean sweep" \
    || fail "kill -9: logged $logged, ran $ran; $(diff clean/results.csv k9/results.csv | head -3)"

# a worker killed while it runs a point: that point is failed with the cause, the rest run
"$CS_BIN" sweep pspec.json --out kw -j 1 --no-progress --quiet &
pid=$!
for i in $(seq 1 600); do [ "$(cat kw/log.jsonl 2>/dev/null | wc -l)" -ge 2 ] && break; sleep 0.05; done
wpid=$(pgrep -P $pid | head -1)
[ -n "$wpid" ] && kill -9 "$wpid"
wait $pid
rc=$?
n=$(wc -l < kw/results.jsonl)
[ $rc -eq 0 ] && [ "$n" -eq 12 ] && grep -q 'killed by signal 9' kw/results.jsonl \
    && pass "a killed worker: its point failed (signal 9), the other points ran" || fail "killed worker: rc $rc, $n rows"
sweep pspec.json --out kw --retry-failed --no-progress --quiet && cmp -s clean/results.csv kw/results.csv \
    && pass "--retry-failed runs the failed point again" || fail "--retry-failed"

# Ctrl-C: exit 130, the points done are in the results, a rerun completes
"$CS_BIN" sweep pspec.json --out ci -j 1 --no-progress --quiet 2>ci.err &
pid=$!
for i in $(seq 1 600); do [ "$(cat ci/log.jsonl 2>/dev/null | wc -l)" -ge 2 ] && break; sleep 0.05; done
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] && grep -q "sweep interrupted" ci.err && [ -s ci/results.csv ] && grep -q "run the same command to go on" ci.err \
    && pass "SIGINT: exit 130, the finished points written" || fail "SIGINT: rc $rc $(cat ci.err)"
sweep pspec.json --out ci --no-progress --quiet && cmp -s clean/results.csv ci/results.csv && pass "after SIGINT a rerun completes" \
    || fail "rerun after SIGINT"

# a log edited by hand: a record no run writes (a metric that is an object, a status of its own) is
# not taken; the warning names the log and line, those points run again, the results are the clean run's
rm -rf hand && cp -r j1 hand && rm -f hand/results.* hand/summary.csv
python3 - hand/log.jsonl <<'PY'
import json, sys
p = sys.argv[1]
lines = open(p).read().splitlines()
a = json.loads(lines[1]); a["metrics"]["time_ns"] = {"edited": 1}; lines[1] = json.dumps(a, separators=(",", ":"))
b = json.loads(lines[4]); b["status"] = "great"; lines[4] = json.dumps(b, separators=(",", ":"))
open(p, "w").write("\n".join(lines) + "\n")
PY
sweep spec3.json --out hand -j 1 --no-progress > hed.txt 2> hed.err || fail "sweep over an edited log: $(cat hed.err)"
grep -q "hand/log.jsonl:2: 2 lines are not a result record as a run writes it" hed.err \
    && grep -q "this run *2 points" hed.txt && cmp -s j1/results.csv hand/results.csv \
    && pass "a hand-edited log: 2 records refused (named), their points run again, the clean results" \
    || fail "edited log: $(cat hed.err) $(grep 'this run' hed.txt) $(diff j1/results.csv hand/results.csv | head -3)"

# --- bad input ------------------------------------------------------------------------------
bad() { # bad NAME NEEDLES JSON
    printf '%s\n' "$3" > bad.json
    expect_fail "$1" "$2" "$CS_BIN" sweep bad.json --out badout
}
bad "no version" "bad.json:1: clustersim-sweep: expected 1" '{"grid": {"run.symmetry": ["off"]}}'
bad "unknown spec key" "bad.json:1: grd: unknown key; expected clustersim-sweep, scenario, set, grid" \
    '{"clustersim-sweep": 1, "grd": {}}'
bad "nothing varies" "expected at least one of grid, zip, random or seeds" '{"clustersim-sweep": 1}'
bad "empty grid list" "grid.plan.tp: expected a list of 1 to 1,000,000 values" '{"clustersim-sweep": 1, "grid": {"plan.tp": []}}'
bad "zip lengths" "zip.b: expected 2 values (as zip.a), got 3" '{"clustersim-sweep": 1, "zip": {"a": [1, 2], "b": [1, 2, 3]}}'
bad "twice" "plan.tp varies twice in the spec" '{"clustersim-sweep": 1, "grid": {"plan.tp": [1]}, "zip": {"plan.tp": [2]}}'
bad "bad distribution" 'random.keys.plan.tp: expected {"choice": [v, ...]}, {"int": [lo, hi]}' \
    '{"clustersim-sweep": 1, "random": {"count": 3, "keys": {"plan.tp": {"int": [4, 1]}}}}'
bad "random count" 'random: expected {"count": N' '{"clustersim-sweep": 1, "random": {"count": 0, "keys": {"plan.tp": 1}}}'
bad "too many points" "the design has more than 10000000 points" \
    "{\"clustersim-sweep\": 1, \"random\": {\"count\": 100000, \"keys\": {\"plan.tp\": 1}}, \"seeds\": {\"key\": \"run.comm-scale\", \"count\": 10000}}"
bad "a value the key refuses" "bad.json (point 1)|system.active-chunks-per-dimension" \
    "{\"clustersim-sweep\": 1, \"scenario\": \"$BASE\", \"grid\": {\"system.active-chunks-per-dimension\": [1, \"many\"]}}"
bad "an unknown scenario key" "bad.json (point 0)|run.bogus" \
    "{\"clustersim-sweep\": 1, \"scenario\": \"$BASE\", \"grid\": {\"run.bogus\": [1]}}"
bad "a missing base scenario" "nonexistent.json" '{"clustersim-sweep": 1, "scenario": "nonexistent.json", "grid": {"plan.tp": [1]}}'
bad "not JSON" "bad.json" '{"clustersim-sweep": 1,'
[ ! -e badout/results.csv ] && pass "a refused spec writes no results" || fail "badout has results"
expect_fail "--shard 3/3" "--shard '3/3': expected I/N with 0 <= I < N" "$CS_BIN" sweep spec.json --out x --shard 3/3
expect_fail "-j 0" "-j '0': expected a number of worker processes from 1 to 1024" "$CS_BIN" sweep spec.json --out x -j 0
"$CS_BIN" sweep spec.json > /dev/null 2>&1; [ $? -eq 2 ] && pass "--out is required (exit 2)" || fail "--out required"
if command -v flock >/dev/null 2>&1; then
    flock j1/log.jsonl sleep 3 & lk=$!
    sleep 0.3
    expect_fail "a second sweep on one directory" "j1/log.jsonl: another sweep is writing this log" \
        "$CS_BIN" sweep spec.json --out j1 --no-progress
    kill $lk 2>/dev/null; wait $lk 2>/dev/null
fi
# --point-max-wall: a point that runs past the limit is a failed row with the reason, the others run
EXD=$CS_SOURCE_DIR/examples/data_parallel
"$CS_BIN" run --workload-configuration="$EXD/dp.et" --network-configuration="$EXD/network.yml" \
    --system-configuration="$EXD/system.json" --dump-scenario pmw_base.json --quiet --json /dev/null 2> /dev/null
cat > pmw.json <<'SPEC'
{"clustersim-sweep": 1, "scenario": "pmw_base.json", "set": {"run.symmetry": "off"},
 "zip": {"network.npus_count": [[8, 4], [256, 256]]}}
SPEC
"$CS_BIN" sweep pmw.json --out pmw -j 2 --no-progress --quiet --point-max-wall 0.5 2> pmw.err || fail "sweep: $(cat pmw.err)"
python3 - pmw/results.csv <<'PY' && pass "--point-max-wall: the 65,536-rank full run stopped with the reason, the 32-rank one ran" || fail "point-max-wall"
import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))
ok = r[0]["status"] == "ok" and r[0]["ranks"] == "32" and r[1]["status"] == "error"
ok = ok and "ran past --point-max-wall 0.5 s" in r[1]["error"]
sys.exit(0 if ok else (print(r), 1)[1])
PY
expect_fail "--point-max-wall 0" "--point-max-wall '0'|> 0" "$CS_BIN" sweep pmw.json --out pmw --point-max-wall 0
finish
