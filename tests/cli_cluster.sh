#!/usr/bin/env bash
# cli_cluster.sh -- several jobs on one cluster (clustersim cluster; issue 16
# part 1), against hand-computed answers:
#  - two jobs crossing one link (flow, an edge list of two switches joined by
#    one 50 GB/s cable): each sends S = 1e8 bytes across it; alone T = S / B
#    (B = 50 x 2^30 B/s: 1,862,645.149 ns), together max-min fair shares B/2
#    each: 2 T, slowdown 2; the link is named with both jobs' bytes and
#    carries their sum; jobs on their own switches share nothing (slowdown 1);
#  - a job that starts at T/2: the first runs alone at B for T/2 (S/2 sent),
#    then both at B/2: the first ends at T/2 + T = 1.5 T, the second runs at
#    B/2 for T (S/2 sent) and at B for T/2: its time 1.5 T too;
#  - a generated plan alone on its server of a 2-server cluster takes, per
#    iteration, exactly what `clustersim train` gives on that server alone,
#    and 3 iterations end at 1, 2 and 3 times it (analytical backend);
#  - a trace of 3 iterations (compute 1000 us, then an all-reduce) ends its
#    iterations at exactly 1, 2, 3 times one iteration run by `run`;
#  - placement policies on a 4-leaf fat-tree, worked by hand: contiguous
#    first fit, pack (the least-free switch that holds the job), spread (one
#    NPU per switch in turn), random (free NPUs only);
#  - maintenance windows ranked by the job time each adds, each worked by
#    hand (half bandwidth early 1.25 T, after the job T, down 1.5 T, a
#    switch drained for T/4 1.25 T); operations in every run; flaps: the job
#    stalls D through each down period, up times of mean U (4 standard
#    errors), the same seed the same changes;
#  - seeds: with two spines the jobs' flows collide on a share p of the
#    seeds: slowdown 1 + p, its 95 % interval from p alone, p = 1/2 within
#    4 standard errors; a window's cost paired per seed: 2 T (1 - p);
#  - routings: traffic engineering puts the two jobs on their own spines
#    (T each, as planned); with demands 3, 1, 1 (x 1e8 bytes) on two spines
#    it places the largest first and the others together: 3 T, 2 T, 2 T;
#    ECMP under the same seeds equals the seeds' shared run;
#  - a bare random placement drawn anew per seed: a pair on one switch T/2,
#    across T; q = 1/3 of the seeds within 4 standard errors;
#  - a job's traffic class (packet backend, strict priority): the high class
#    keeps its time alone, the other waits for it (slowdown 2);
#  - bad files and flags refused by name; a failed run leaves no results;
#    the same inputs give the same bytes.
. "$(dirname "$0")/lib_cli.sh"
: "${CS_MKTRACE:?}"
cd "$CS_TMP" || exit 1

cat > n4.yml <<'NET'
topology: [ Switch ]
npus_count: [ 4 ]
bandwidth: [ 100 ]
latency: [ 500 ]
NET
cat > sys.json <<'SYS'
{"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1, "preferred-dataset-splits": 1,
 "all-reduce-implementation": ["ring"], "all-gather-implementation": ["ring"],
 "reduce-scatter-implementation": ["ring"], "all-to-all-implementation": ["ring"],
 "collective-optimization": "baseline", "local-mem-bw": 1600}
SYS
printf '{"builder": "edges", "switches": 2,\n "edges": [[0, 4, 100, 0], [1, 4, 100, 0], [2, 5, 100, 0], [3, 5, 100, 0], [4, 5, 50, 0]]}\n' > two.json
"$CS_MKTRACE" --ranks pp "1 SEND dst=1 size=100000000 tag=1" "1 RECV src=0 size=100000000 tag=1" || fail "mktrace"
# the same with the rank itself named too (a send's comm_src, a receive's comm_dst): renamed with the peers
"$CS_MKTRACE" --ranks pq "1 SEND src=0 dst=1 size=100000000 tag=1" "1 RECV src=0 dst=1 size=100000000 tag=1" ||
    fail "mktrace"

# csv FILE JOB COLUMN: the value of COLUMN in JOB's row
csv() { awk -F, -v job="$2" -v col="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
        $1 == job { print $c }' "$1"; }
# npus JOB DIR: the job's NPUs in rank order, from DIR/cluster.json
npus() { python3 -c "import json, sys
for j in json.load(open('$2/cluster.json'))['jobs']:
    if j['name'] == '$1': print(','.join(str(v) for v in j['npu_of_rank']))"; }
# near A B TOL: |A - B| <= TOL
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; }

T=1862645.149 # S / B in ns: 1e8 B / (50 x 2^30 B/s)
cat > c1.json <<'EOF'
{"clustersim-cluster": 1,
 "network": "n4.yml", "system": "sys.json", "topology": "two.json",
 "set": {"run.backend": "flow"},
 "jobs": [
  {"name": "x", "workload": "pp", "npus": 2, "placement": [0, 2]},
  {"name": "y", "workload": "pq", "npus": 2, "placement": "1,3"}
 ]}
EOF
"$CS_BIN" cluster c1.json --out o1 > r1 2> e1 || fail "two jobs: $(cat e1)"
for j in x y; do
    near "$(csv o1/jobs.csv $j alone_ns)" "$T" 1 || fail "job $j alone: $(csv o1/jobs.csv $j alone_ns) ns, expected S/B = $T"
    near "$(csv o1/jobs.csv $j shared_ns)" "$(awk -v t=$T 'BEGIN { printf "%.3f", 2 * t }')" 2 ||
        fail "job $j shared: $(csv o1/jobs.csv $j shared_ns) ns, expected 2 S/B"
    near "$(csv o1/jobs.csv $j slowdown)" 2 0.000002 || fail "job $j slowdown $(csv o1/jobs.csv $j slowdown), expected 2"
    [ "$(csv o1/jobs.csv $j links_shared)" = 1 ] || fail "job $j: links_shared $(csv o1/jobs.csv $j links_shared), expected 1"
done
pass "two jobs across one link: alone S/B, shared 2 S/B, slowdown 2"
# the one shared link: switch 4 -> switch 5, each job's 1e8 bytes, the sum in the shared run
[ "$(awk -F, 'NR > 1' o1/interference.csv | wc -l)" = 1 ] || fail "interference.csv: $(cat o1/interference.csv)"
awk -F, 'NR == 2 { exit !($2 == 4 && $3 == 5 && $7 == 2 && $8 == 100000000 && $9 == 100000000 && $10 == 200000000) }' \
    o1/interference.csv || fail "interference row: $(cat o1/interference.csv)"
grep -q "links crossed by more than one job (alone): 1" r1 || fail "report: $(cat r1)"
grep -q "x 100.000 MB y 100.000 MB" r1 || fail "report names the jobs' bytes: $(cat r1)"
# links.csv of the shared run: bytes out of the senders = bytes into the receivers
awk -F, 'NR > 1 && $4 == "npu" { o += $9 } NR > 1 && $5 == "npu" { i += $9 } END { exit !(o == 2e8 && i == 2e8) }' \
    o1/links.csv || fail "links.csv bytes: $(cat o1/links.csv)"
pass "the shared link named with each job's bytes; bytes conserved"

# jobs on their own switches: nothing shared, no slowdown
sed 's/"placement": \[0, 2\]/"placement": [0, 1]/; s/"placement": "1,3"/"placement": "2-3"/' c1.json > c1b.json
"$CS_BIN" cluster c1b.json --out o1b --quiet 2> e1b || fail "disjoint jobs: $(cat e1b)"
for j in x y; do
    [ "$(csv o1b/jobs.csv $j slowdown)" = 1.000000 ] || fail "disjoint job $j slowdown $(csv o1b/jobs.csv $j slowdown)"
done
[ "$(wc -l < o1b/interference.csv)" = 1 ] || fail "disjoint jobs share links: $(cat o1b/interference.csv)"
pass "jobs on their own switches: slowdown 1, no shared link"

# a job that starts at T/2
sed 's/"placement": "1,3"}/"placement": "1,3", "start_ns": 931322}/' c1.json > c1s.json
"$CS_BIN" cluster c1s.json --out o1s --quiet 2> e1s || fail "staggered: $(cat e1s)"
T15=$(awk -v t=$T 'BEGIN { printf "%.3f", 1.5 * t }')
near "$(csv o1s/jobs.csv x shared_ns)" "$T15" 2 || fail "first job: $(csv o1s/jobs.csv x shared_ns), expected 1.5 T = $T15"
near "$(csv o1s/jobs.csv y shared_ns)" "$T15" 2 || fail "second job: $(csv o1s/jobs.csv y shared_ns), expected 1.5 T"
[ "$(csv o1s/jobs.csv y start_ns)" = 931322.000 ] || fail "start_ns: $(cat o1s/jobs.csv)"
pass "a job starting at T/2: both take 1.5 T"

# a generated plan on one server of two = train on that server alone, per iteration
cat > n16.yml <<'NET'
topology: [ Switch, Switch ]
npus_count: [ 8, 2 ]
bandwidth: [ 300, 50 ]
latency: [ 500, 2000 ]
NET
cat > n8.yml <<'NET'
topology: [ Switch ]
npus_count: [ 8 ]
bandwidth: [ 300 ]
latency: [ 500 ]
NET
cat > c2.json <<'EOF'
{"clustersim-cluster": 1, "network": "n16.yml",
 "jobs": [
  {"name": "tp8", "set": {"model.name": "llama3-8b", "plan.tp": 8, "plan.global-batch": 2, "device.name": "H100-SXM"},
   "iterations": 3},
  {"name": "dp2", "set": {"model.name": "llama3-8b", "plan.tp": 4, "plan.dp": 2, "plan.recompute": "full",
   "device.name": "H100-SXM"}, "placement": "pack"}
 ]}
EOF
"$CS_BIN" cluster c2.json --out o2 --quiet 2> e2 || fail "plans: $(cat e2)"
"$CS_BIN" train --model llama3-8b --tp 8 --global-batch 2 --device H100-SXM --network-configuration=n8.yml \
    --json t8.json --quiet 2> et || fail "train: $(cat et)"
IT=$(python3 -c "import json; print('%.3f' % (json.load(open('t8.json'))['iteration_time_ns']))" 2> /dev/null) ||
    IT=$(grep -o '"iteration_time_ns": *[0-9.e+]*' t8.json | head -1 | sed 's/.*: *//')
[ -n "$IT" ] || fail "train --json has no iteration_time_ns: $(head -c 400 t8.json)"
for k in 0 1 2; do
    step=$(awk -F, -v k=$k '$1 == "tp8" && $2 == k { print $6 }' o2/iterations.csv)
    near "$step" "$IT" 0.001 || fail "tp8 iteration $k: shared step $step ns, train gives $IT"
    end=$(awk -F, -v k=$k '$1 == "tp8" && $2 == k { print $4 }' o2/iterations.csv)
    near "$end" "$(awk -v t=$IT -v k=$k 'BEGIN { printf "%.3f", (k + 1) * t }')" 0.001 ||
        fail "tp8 iteration $k ends at $end ns, expected $((k + 1)) x $IT"
done
[ "$(csv o2/jobs.csv tp8 slowdown)" = 1.000000 ] || fail "analytical: no sharing, but $(csv o2/jobs.csv tp8 slowdown)"
[ "$(npus dp2 o2)" = 8,9,10,11,12,13,14,15 ] || fail "dp2 packed on the free server: $(npus dp2 o2)"
pass "a generated plan alone on its server = train on that server, 3 iterations = 3 x"

# a trace of 3 iterations = 3 x one iteration as run gives it
"$CS_MKTRACE" step.et "1 COMP dur=1000; 2 COLL ctype=0 size=1048576 data=1" || fail "mktrace"
"$CS_BIN" run --workload-configuration=step.et --network-configuration=n4.yml --system-configuration=sys.json \
    --json one.json --quiet 2> eo || fail "run: $(cat eo)"
ONE=$(grep -o '"sim_time_ns": *[0-9.e+]*' one.json | head -1 | sed 's/.*: *//')
[ -n "$ONE" ] || fail "run --json has no sim_time_ns: $(head -c 300 one.json)"
printf '{"clustersim-cluster": 1, "network": "n4.yml", "system": "sys.json",\n "jobs": [{"name": "s", "workload": "step.et", "npus": 4, "iterations": 3}]}\n' > c4.json
"$CS_BIN" cluster c4.json --out o4 --quiet 2> e4 || fail "iterations: $(cat e4)"
for k in 0 1 2; do
    end=$(awk -F, -v k=$k '$1 == "s" && $2 == k { print $4 }' o4/iterations.csv)
    near "$end" "$(awk -v t=$ONE -v k=$k 'BEGIN { printf "%.3f", (k + 1) * t }')" 0.001 ||
        fail "iteration $k ends at $end ns, expected $((k + 1)) x $ONE"
done
pass "a trace of 3 iterations: ends at 1, 2, 3 x one step"

# placement policies on 4 leaves of 4 NPUs (leaf k holds NPUs 4k..4k+3)
cat > n16f.yml <<'NET'
topology: [ Switch ]
npus_count: [ 16 ]
bandwidth: [ 100 ]
latency: [ 500 ]
NET
printf '{"builder": "fat-tree", "npus_per_leaf": 4, "spines": 2, "link_bandwidth": 50, "link_latency": 500}\n' > ft.json
"$CS_MKTRACE" one.et "1 COMP dur=10" || fail "mktrace"
cat > c3.json <<'EOF'
{"clustersim-cluster": 1, "network": "n16f.yml", "topology": "ft.json", "set": {"run.backend": "flow"},
 "jobs": [
  {"name": "a", "workload": "one.et", "npus": 6},
  {"name": "b", "workload": "one.et", "npus": 3, "placement": "pack"},
  {"name": "c", "workload": "one.et", "npus": 4, "placement": "spread"},
  {"name": "d", "workload": "one.et", "npus": 2, "placement": "random:5"}
 ]}
EOF
"$CS_BIN" cluster c3.json --out o3 --quiet 2> e3 || fail "placements: $(cat e3)"
# a: first fit 0-5; b: leaves 1, 2, 3 have 2, 4, 4 free: the least free that holds 3 is leaf 2 -> 8-10;
# c: free 6,7 | 11 | 12-15: one per leaf in turn -> 6, 11, 12, 7; d: two of 13, 14, 15
[ "$(npus a o3)" = 0,1,2,3,4,5 ] || fail "contiguous: $(npus a o3)"
[ "$(npus b o3)" = 8,9,10 ] || fail "pack: $(npus b o3)"
[ "$(npus c o3)" = 6,11,12,7 ] || fail "spread: $(npus c o3)"
grep -q '^c,.*,"6,11-12,7"$' o3/jobs.csv || fail "jobs.csv npu_list: $(cat o3/jobs.csv)"
[ "$(csv o3/jobs.csv c switches)" = 3 ] || fail "spread spans 3 leaves: $(csv o3/jobs.csv c switches)"
d=$(npus d o3)
case "$d" in 13,14|14,13|13,15|15,13|14,15|15,14) ;; *) fail "random: $d, expected two of 13-15" ;; esac
pass "placement: contiguous, pack, spread, random as worked by hand"

# the same inputs, the same bytes
"$CS_BIN" cluster c1s.json --out o1s2 --quiet 2> /dev/null || fail "rerun"
for f in jobs.csv iterations.csv interference.csv cluster.json links.csv ranks.csv; do
    cmp -s o1s/$f o1s2/$f || fail "rerun differs in $f"
done
pass "deterministic: identical files on a rerun"

# maintenance windows on one job across the cable (T = S/B alone), worked by hand: the cable at half
# bandwidth for [0, T/2] sends S/4, then 3S/4 at B: 1.25 T; half bandwidth after the job: T; the cable
# down for [0, T/2]: 1.5 T; its switch drained for [T/4, T/2]: stalled T/4, 1.25 T (ranked after the
# first window of equal cost, by file order)
cat > c5.json <<'EOF'
{"clustersim-cluster": 1,
 "network": "n4.yml", "system": "sys.json", "topology": "two.json",
 "set": {"run.backend": "flow"},
 "jobs": [ {"name": "x", "workload": "pp", "npus": 2, "placement": [0, 2]} ],
 "windows": [
  {"name": "halfearly", "operations": [{"degrade": [4, 5], "factor": 0.5, "from_ns": 0, "until_ns": 931322}]},
  {"name": "after", "operations": [{"degrade": [4, 5], "factor": 0.5, "from_ns": 1862646, "until_ns": 3725290}]},
  {"name": "down", "operations": [{"fail": [4, 5], "from_ns": 0, "until_ns": 931322}]},
  {"name": "drain", "operations": [{"drain": 4, "from_ns": 465661, "until_ns": 931322}]}
 ]}
EOF
"$CS_BIN" cluster c5.json --out o5 > r5 2> e5 || fail "windows: $(cat e5)"
for w in "halfearly 1.25 2" "after 1 1" "down 1.5 4" "drain 1.25 3"; do
    set -- $w
    near "$(csv o5/windows.csv $1 x_ns)" "$(awk -v t=$T -v k=$2 'BEGIN { printf "%.3f", k * t }')" 2 ||
        fail "window $1: job time $(csv o5/windows.csv $1 x_ns) ns, expected $2 T"
    [ "$(csv o5/windows.csv $1 rank)" = "$3" ] || fail "window $1 ranked $(csv o5/windows.csv $1 rank), expected $3"
done
grep -q "1. after  *+0.000 ms of job time, worst slowdown 1.000x" r5 || fail "report ranks: $(cat r5)"
pass "maintenance windows: job times worked by hand, ranked least harmful first"

# operations in every run: the cable at half bandwidth from the start: alone 2 T, together 4 T
sed 's/"jobs": \[/"operations": [{"degrade": [4, 5], "factor": 0.5, "from_ns": 0}],\n "jobs": [/' c1.json > c1o.json
"$CS_BIN" cluster c1o.json --out o1o --quiet 2> e1o || fail "operations: $(cat e1o)"
near "$(csv o1o/jobs.csv x alone_ns)" "$(awk -v t=$T 'BEGIN { printf "%.3f", 2 * t }')" 2 || fail "degraded alone: $(cat o1o/jobs.csv)"
near "$(csv o1o/jobs.csv x shared_ns)" "$(awk -v t=$T 'BEGIN { printf "%.3f", 4 * t }')" 4 || fail "degraded shared: $(cat o1o/jobs.csv)"
pass "operations apply to every run: alone 2 T, shared 4 T on a cable at half bandwidth"

# flaps: the cable goes down for D = 50 us after exponential up times of mean U = 200 us (seed 3); the job
# is stalled through every down period that starts before it ends: its end f = T + D per such period;
# the up times' mean is U within 4 standard errors (U / sqrt(n))
cat > c6.json <<'EOF'
{"clustersim-cluster": 1,
 "network": "n4.yml", "system": "sys.json", "topology": "two.json",
 "set": {"run.backend": "flow"},
 "jobs": [ {"name": "x", "workload": "pp", "npus": 2, "placement": [0, 2]} ],
 "operations": [{"flap": [4, 5], "mean_up_ns": 200000, "down_ns": 50000, "until_ns": 1000000000, "seed": 3}]
}
EOF
"$CS_BIN" cluster c6.json --out o6 --quiet 2> e6 || fail "flaps: $(cat e6)"
if python3 - o6/cluster.json "$T" <<'PY'; then pass "flaps: the job stalls through each down period; up times of mean U"; else fail "flaps (above)"; fi
import json, math, sys
d = json.load(open(sys.argv[1])); T = float(sys.argv[2]); U, D = 200000.0, 50000.0
lc = d["timed_changes"]["link_changes"]
downs = [c[0] for c in lc if c[3] == 0]
ups = [c[0] for c in lc if c[3] == 1]
assert len(downs) == len(ups) and len(downs) > 1000, "flaps drawn"
assert all(u == t + D for t, u in zip(downs, ups)), "each down lasts D"
f = T
for t in downs:
    if t < f: f += D
got = d["jobs"][0]["alone_ns"]
if abs(got - f) > 2: print("flap: job %.3f ns, expected T + D k = %.3f" % (got, f)); sys.exit(1)
gaps = [downs[0]] + [downs[i] - ups[i - 1] for i in range(1, len(downs))]
m = sum(gaps) / len(gaps); se = U / math.sqrt(len(gaps))
if abs(m - U) > 4 * se: print("flap: mean up %.0f ns over %d, expected %.0f +- %.0f" % (m, len(gaps), U, 4 * se)); sys.exit(1)
PY
"$CS_BIN" cluster c6.json --out o6b --quiet 2> /dev/null && cmp -s o6/cluster.json o6b/cluster.json || fail "flaps not deterministic"
sed 's/"seed": 3/"seed": 4/' c6.json > c6s.json
"$CS_BIN" cluster c6s.json --out o6s --quiet 2> /dev/null || fail "seed 4"
cmp -s o6/cluster.json o6s/cluster.json && fail "another seed drew the same flaps"
pass "flaps: the same seed the same bytes, another seed other flaps"

# seeds: two leaves joined by two spines; each job's one flow hashes onto a spine; on the same spine
# they take 2 T, apart T: over n seeds the slowdown is 1 or 2, so its mean is 1 + p (p: the share of
# seeds where they collide) and its 95 % interval t(n-1) sqrt(p (1 - p) n / (n - 1) / n), both from the
# mean alone; p = 1/2 within 4 standard errors; a window draining one spine from the start puts both on
# the other (2 T each): per seed it adds 0 or 2 T, on average 2 T (1 - p)
printf '{"builder": "edges", "switches": 4,\n "edges": [[0, 4, 100, 0], [1, 4, 100, 0], [2, 5, 100, 0], [3, 5, 100, 0], [4, 6, 50, 0], [4, 7, 50, 0], [5, 6, 50, 0], [5, 7, 50, 0]]}\n' > spines.json
sed 's/"two.json"/"spines.json"/; s/"pq"/"pp"/; s/"jobs": \[/"seeds": 40,\n "windows": [{"name": "spine6", "operations": [{"drain": 6, "from_ns": 0}]}],\n "jobs": [/' c1.json > c7.json
"$CS_BIN" cluster c7.json --out o7 > r7 2> e7 || fail "seeds: $(cat e7)"
if python3 - o7/cluster.json "$T" <<'PY'; then pass "seeds: slowdown 1 + p with its interval, p = 1/2, a window's paired cost 2 T (1 - p)"; else fail "seeds (above)"; fi
import json, math, sys
d = json.load(open(sys.argv[1])); T = float(sys.argv[2]); n = d["seeds"]
t975 = {39: 2.0227}[n - 1]
for j in d["jobs"]:
    s = j["over_seeds"]; p = s["slowdown_mean"] - 1
    ci = t975 * math.sqrt(p * (1 - p) * n / (n - 1)) / math.sqrt(n)
    assert 0 < p < 1, "both outcomes drawn: p = %g" % p
    assert abs(s["slowdown_ci95"] - ci) < 1e-5, "slowdown interval %g, expected %g" % (s["slowdown_ci95"], ci)
    assert abs(p - 0.5) <= 4 * 0.5 / math.sqrt(n), "p = %g, expected 1/2 within 4 standard errors" % p
    assert abs(s["alone_mean_ns"] - T) < 1 and s["alone_ci95_ns"] == 0, "alone: one route, T every seed"
    assert abs(s["shared_mean_ns"] - T * (1 + p)) < 2, "shared mean %g, expected T (1 + p)" % s["shared_mean_ns"]
w = d["windows"][0]
p = d["jobs"][0]["over_seeds"]["slowdown_mean"] - 1
assert abs(w["extra_job_time_ns"] - 2 * T * (1 - p)) < 4, "window: %g ns, expected 2 T (1 - p) = %g" % (w["extra_job_time_ns"], 2 * T * (1 - p))
PY
grep -q "over 40 seeds" r7 && grep -q "slowdown 1.[0-9]*x +- 0.1" r7 || fail "seeds report: $(cat r7)"
expect_fail "--seeds 0" "--seeds '0': expected an integer from 1 to 1000" "$CS_BIN" cluster c7.json --seeds 0

# routing policies on the two spines: traffic engineering puts the two jobs' flows on different spines
# (T each, its busiest link T, as planned); ECMP under the same seeds is the seeds' shared run above
sed 's/"seeds": 40,/"seeds": 10, "routings": ["ecmp", "spray", "qp:2", "te"],/' c7.json > c8.json
"$CS_BIN" cluster c8.json --out o8 > r8 2> e8 || fail "routings: $(cat e8)"
rcol() { csv o8/routing.csv "$1" "$2"; }
for j in x y; do near "$(rcol te ${j}_mean_ns)" "$T" 1 || fail "te: job $j $(rcol te ${j}_mean_ns) ns, expected T"; done
near "$(rcol te busiest_link_load_mean_ns)" "$T" 1 || fail "te busiest link: $(rcol te busiest_link_load_mean_ns)"
near "$(rcol te planned_busiest_link_load_ns)" "$T" 1 || fail "te planned: $(rcol te planned_busiest_link_load_ns)"
[ "$(rcol ecmp x_mean_ns)" = "$(csv o8/jobs.csv x shared_mean_ns)" ] ||
    fail "ecmp under the same seeds differs from the shared run: $(rcol ecmp x_mean_ns) vs $(csv o8/jobs.csv x shared_mean_ns)"
awk -F, 'NR > 1 && $4 == "switch" && $5 == "switch" && $10 != 100000000 { bad = 1 } END { exit bad }' o8/routing_links.csv ||
    fail "te: every spine link carries one job's 1e8 bytes: $(cat o8/routing_links.csv)"
grep -q "te placed 2 (src, dst) demands" r8 || fail "report: $(cat r8)"
pass "routings: te puts the jobs on their own spines (T each, as planned); ecmp = the seeds' shared run"
# unequal demands, largest first: x 3e8 takes spine 8 (the lowest link among equals), y 1e8 spine 9,
# z 1e8 spine 9 (2e8 there against 4e8 on spine 8): x 3 T, y and z 2 T each (sharing spine 9), busiest 3 T
cat > n6.yml <<'NET'
topology: [ Switch ]
npus_count: [ 6 ]
bandwidth: [ 100 ]
latency: [ 500 ]
NET
printf '{"builder": "edges", "switches": 4,\n "edges": [[0, 6, 100, 0], [1, 6, 100, 0], [2, 6, 100, 0], [3, 7, 100, 0], [4, 7, 100, 0], [5, 7, 100, 0], [6, 8, 50, 0], [6, 9, 50, 0], [7, 8, 50, 0], [7, 9, 50, 0]]}\n' > sp3.json
"$CS_MKTRACE" --ranks p3 "1 SEND dst=1 size=300000000 tag=1" "1 RECV src=0 size=300000000 tag=1" || fail "mktrace"
cat > c9.json <<'EOF'
{"clustersim-cluster": 1, "network": "n6.yml", "system": "sys.json", "topology": "sp3.json",
 "set": {"run.backend": "flow"}, "routings": ["te"],
 "jobs": [ {"name": "x", "workload": "p3", "npus": 2, "placement": [0, 3]},
           {"name": "y", "workload": "pp", "npus": 2, "placement": [1, 4]},
           {"name": "z", "workload": "pp", "npus": 2, "placement": [2, 5]} ]}
EOF
"$CS_BIN" cluster c9.json --out o9 --quiet 2> e9 || fail "te unequal: $(cat e9)"
T3=$(awk -v t=$T 'BEGIN { printf "%.3f", 3 * t }'); T2=$(awk -v t=$T 'BEGIN { printf "%.3f", 2 * t }')
near "$(csv o9/routing.csv te x_mean_ns)" "$T3" 1 || fail "te x: $(csv o9/routing.csv te x_mean_ns), expected 3 T"
for j in y z; do near "$(csv o9/routing.csv te ${j}_mean_ns)" "$T2" 2 || fail "te $j: $(csv o9/routing.csv te ${j}_mean_ns), expected 2 T"; done
near "$(csv o9/routing.csv te planned_busiest_link_load_ns)" "$T3" 1 || fail "te planned: $(cat o9/routing.csv)"
awk -F, '$2 == 6 && $3 == 8 { a = $7 } $2 == 6 && $3 == 9 { b = $7 } END { exit !(a == 3e8 && b == 2e8) }' o9/routing_links.csv ||
    fail "te: spine 8 carries 3e8, spine 9 2e8: $(cat o9/routing_links.csv)"
pass "te places the largest demand first and balances the rest (3 T, 2 T, 2 T)"

# QP-aware ECMP: 16 messages of one (src, dst) pair over two spines: qp:1 hashes every message with the same
# queue pair (one spine, as ECMP), spray spreads them (all 16 on one spine: probability 2^-15 per seed)
S16=""; R16=""
for i in $(seq 1 16); do S16="$S16${S16:+; }$i SEND dst=1 size=1000000 tag=$i"; R16="$R16${R16:+; }$i RECV src=0 size=1000000 tag=$i"; done
"$CS_MKTRACE" --ranks m16 "$S16" "$R16" || fail "mktrace"
printf '{"clustersim-cluster": 1, "network": "n4.yml", "system": "sys.json", "topology": "spines.json",\n "set": {"run.backend": "flow"}, "routings": ["qp:1", "spray", "ecmp"],\n "jobs": [{"name": "m", "workload": "m16", "npus": 2, "placement": [0, 2]}]}\n' > c10.json
"$CS_BIN" cluster c10.json --out o10 --quiet 2> e10 || fail "qp: $(cat e10)"
# columns 7, 8, 9: bytes_qp:1, bytes_spray, bytes_ecmp on the leaf-4 uplinks 4 -> 6 and 4 -> 7
awk -F, '$2 == 4 && ($3 == 6 || $3 == 7) { q[$7 > 0]++; s[$8 > 0]++; e[$9 > 0]++ }
         END { exit !(q[1] == 1 && s[1] == 2 && e[1] == 1) }' o10/routing_links.csv ||
    fail "qp:1 one spine, spray both, ecmp one: $(cat o10/routing_links.csv)"
pass "QP-aware ECMP with one queue pair keeps a pair on one path; spraying spreads it"

# bad input, refused by name
bad() { printf '%s\n' "$2" > bad.json; expect_fail "$1" "$3" "$CS_BIN" cluster bad.json; }
H='"clustersim-cluster": 1, "network": "n4.yml", "system": "sys.json"'
bad "unknown key" "{$H, \"jobz\": []}" "bad.json:1: jobz: unknown key"
bad "no version" '{"jobs": []}' "clustersim-cluster: expected 1"
bad "no jobs" "{$H, \"jobs\": []}" "jobs: expected a list of 1 to 256 jobs"
bad "job key" "{$H, \"jobs\": [{\"workload\": \"pp\", \"npus\": 2, \"ranks\": 2}]}" "jobs[0].ranks: unknown key"
bad "both workloads" "{$H, \"jobs\": [{\"workload\": \"pp\", \"npus\": 2, \"set\": {\"model.name\": \"llama3-8b\"}}]}" \
    "jobs[0]: expected one workload: traces (workload) or a generated plan"
bad "neither" "{$H, \"jobs\": [{\"npus\": 2}]}" "got neither"
bad "trace npus" "{$H, \"jobs\": [{\"workload\": \"pp\"}]}" "jobs[0].npus: expected the number of ranks"
bad "platform key in a job" "{$H, \"jobs\": [{\"set\": {\"model.name\": \"llama3-8b\", \"network.npus_count\": [4]}}]}" \
    "jobs[0].set.network.npus_count: a job sets plan.*, model.* and device.* keys"
bad "bad plan key" "{$H, \"jobs\": [{\"set\": {\"model.name\": \"llama3-8b\", \"plan.tq\": 2}}]}" "plan.tq"
bad "names" "{$H, \"jobs\": [{\"name\": \"a\", \"workload\": \"pp\", \"npus\": 2}, {\"name\": \"a\", \"workload\": \"pp\", \"npus\": 2}]}" \
    "jobs[1].name a: already the name of jobs[0]"
bad "name chars" "{$H, \"jobs\": [{\"name\": \"a,b\", \"workload\": \"pp\", \"npus\": 2}]}" "jobs[0].name: expected 1 to 32"
bad "placement" "{$H, \"jobs\": [{\"workload\": \"pp\", \"npus\": 2, \"placement\": \"clumped\"}]}" \
    "jobs[0].placement: expected contiguous, pack, spread, random[:SEED]"
bad "start" "{$H, \"jobs\": [{\"workload\": \"pp\", \"npus\": 2, \"start_ns\": -1}]}" "jobs[0].start_ns: expected an integer"
bad "iterations" "{$H, \"jobs\": [{\"workload\": \"pp\", \"npus\": 2, \"iterations\": 0}]}" "jobs[0].iterations: expected an integer from 1"
bad "too many NPUs" "{$H, \"jobs\": [{\"workload\": \"pp\", \"npus\": 2}, {\"workload\": \"pp\", \"npus\": 2}, {\"name\": \"z\", \"workload\": \"pp\", \"npus\": 2}]}" \
    "job z: needs 2 NPUs, 0 of the cluster's 4 are free"
bad "NPU twice" "{$H, \"jobs\": [{\"workload\": \"pp\", \"npus\": 2, \"placement\": [1, 1]}]}" "job job0: placement: NPU 1 is taken"
bad "NPU outside" "{$H, \"jobs\": [{\"workload\": \"pp\", \"npus\": 2, \"placement\": [1, 7]}]}" "placement: NPU 7 is not in the cluster"
bad "list length" "{$H, \"jobs\": [{\"workload\": \"pp\", \"npus\": 2, \"placement\": [1]}]}" "placement lists 1 NPUs; expected one per rank (2)"
bad "no consecutive" "{$H, \"jobs\": [{\"workload\": \"one.et\", \"npus\": 1, \"placement\": [1]}, {\"name\": \"w\", \"workload\": \"one.et\", \"npus\": 3, \"placement\": \"contiguous\"}]}" \
    "job w: placement contiguous: no 3 consecutive free NPUs (3 are free)"
bad "plan npus" "{$H, \"jobs\": [{\"npus\": 3, \"set\": {\"model.name\": \"llama3-8b\", \"plan.dp\": 2, \"plan.recompute\": \"full\"}}]}" \
    "job job0: npus: expected the plan's 2 ranks"
"$CS_MKTRACE" --ranks far "1 SEND dst=2 size=8 tag=1" "1 RECV src=0 size=8 tag=1" || fail "mktrace"
bad "peer outside the job" "{$H, \"jobs\": [{\"workload\": \"far\", \"npus\": 2}]}" "comm_dst 2 is not a rank of the job; expected 0 to 1"
bad "run.placement" "{$H, \"set\": {\"run.placement\": \"random\"}, \"jobs\": [{\"workload\": \"pp\", \"npus\": 2}]}" \
    "run.placement random: each job places its ranks"
bad "workload in the platform" "{$H, \"set\": {\"run.workload\": \"pp\"}, \"jobs\": [{\"workload\": \"pp\", \"npus\": 2}]}" \
    "run.workload, model.name: the jobs give the workload; expected neither key"
bad "ops on analytical" "{$H, \"operations\": [{\"fail\": [4, 5], \"from_ns\": 0}], \"jobs\": [{\"workload\": \"pp\", \"npus\": 2}]}" \
    "operations, windows and routings change links, switches and paths; expected a graph backend"
bad "ops without a topology" "{$H, \"set\": {\"run.backend\": \"flow\"}, \"operations\": [{\"fail\": [4, 5], \"from_ns\": 0}], \"jobs\": [{\"workload\": \"pp\", \"npus\": 2}]}" \
    "expected an explicit topology"
bad "op key" "{$H, \"operations\": [{\"fail\": [4, 5], \"from\": 0}], \"jobs\": [{\"workload\": \"pp\", \"npus\": 2}]}" \
    "operations[0].from: unknown key"
bad "two ops in one" "{$H, \"operations\": [{\"fail\": [4, 5], \"drain\": 4, \"from_ns\": 0}], \"jobs\": [{\"workload\": \"pp\", \"npus\": 2}]}" \
    "expected one operation per object"
bad "until before from" "{$H, \"operations\": [{\"fail\": [4, 5], \"from_ns\": 9, \"until_ns\": 9}], \"jobs\": [{\"workload\": \"pp\", \"npus\": 2}]}" \
    "operations[0].until_ns: expected a time after from_ns (9)"
bad "cable" "{$H, \"operations\": [{\"fail\": [4], \"from_ns\": 0}], \"jobs\": [{\"workload\": \"pp\", \"npus\": 2}]}" \
    "operations[0].fail: expected a cable as [a, b]"
bad "factor" "{$H, \"operations\": [{\"degrade\": [4, 5], \"factor\": 2, \"from_ns\": 0}], \"jobs\": [{\"workload\": \"pp\", \"npus\": 2}]}" \
    "operations[0].factor: expected a number from 0 (down) to 1"
bad "too many flaps" "{$H, \"operations\": [{\"flap\": [4, 5], \"mean_up_ns\": 1, \"down_ns\": 1, \"until_ns\": 100000000}], \"jobs\": [{\"workload\": \"pp\", \"npus\": 2}]}" \
    "more than 100000 timed changes"
bad "window name" "{$H, \"windows\": [{\"name\": \"w\", \"operations\": []}, {\"name\": \"w\", \"operations\": []}], \"jobs\": [{\"workload\": \"pp\", \"npus\": 2}]}" \
    "windows[1].name w: already the name of windows[0]"
bad "window keys" "{$H, \"windows\": [{\"name\": \"w\"}], \"jobs\": [{\"workload\": \"pp\", \"npus\": 2}]}" \
    "windows[0]: expected {\"name\": NAME, \"operations\": [...]}"
sed 's/"drain": 4,/"drain": 77,/' c5.json > c5bad.json
expect_fail "a switch the topology lacks" "window drain" "$CS_BIN" cluster c5bad.json
bad "routings on analytical" "{$H, \"routings\": [\"te\"], \"jobs\": [{\"workload\": \"pp\", \"npus\": 2}]}" \
    "operations, windows and routings change links, switches and paths; expected a graph backend"
bad "routing name" "{$H, \"routings\": [\"ospf\"], \"jobs\": [{\"workload\": \"pp\", \"npus\": 2}]}" \
    "routings[0]: expected ecmp, spray, qp, qp:N"
bad "qp:0" "{$H, \"routings\": [\"qp:0\"], \"jobs\": [{\"workload\": \"pp\", \"npus\": 2}]}" "routings[0]: expected ecmp"
bad "routing twice" "{$H, \"routings\": [\"te\", \"te\"], \"jobs\": [{\"workload\": \"pp\", \"npus\": 2}]}" "routings[1]: te twice"
# a bare random placement is drawn anew per seed: one job of 2 ranks sending 1e8 bytes on the two-switch
# fabric takes T/2 when both land on one switch (100 GB/s links) and T across the 50 GB/s cable; of the 6
# pairs of 4 NPUs, 2 share a switch: q = 1/3; over 40 seeds the mean is T (1 - q/2) and its interval
# follows from q alone; the outputs keep the first seed's placement (as with one seed)
printf '{"clustersim-cluster": 1, "network": "n4.yml", "system": "sys.json", "topology": "two.json",\n "set": {"run.backend": "flow"}, "seeds": 40,\n "jobs": [{"name": "r", "workload": "pp", "npus": 2, "placement": "random"}]}\n' > c11.json
"$CS_BIN" cluster c11.json --out o11 --quiet 2> e11 || fail "random per seed: $(cat e11)"
"$CS_BIN" cluster c11.json --seeds 1 --out o11b --quiet 2> /dev/null || fail "random, one seed"
if python3 - o11/cluster.json o11b/cluster.json "$T" <<'PY'; then pass "a bare random placement per seed: q = 1/3 within 4 standard errors, its interval from q"; else fail "random per seed (above)"; fi
import json, math, sys
d = json.load(open(sys.argv[1])); e = json.load(open(sys.argv[2])); T = float(sys.argv[3]); n = d["seeds"]
s = d["jobs"][0]["over_seeds"]
q = 2 * (1 - s["alone_mean_ns"] / T)  # mean = q T/2 + (1 - q) T
sd = (T / 2) * math.sqrt(q * (1 - q) * n / (n - 1))
assert 0 < q < 1, "both outcomes drawn: q = %g" % q
ci = 2.0227 * sd / math.sqrt(n)  # (the times are whole ns, T and T/2 not: a relative 1e-3)
assert abs(s["alone_ci95_ns"] - ci) < 1e-3 * ci, "interval %g, expected %g" % (s["alone_ci95_ns"], ci)
assert abs(q - 1 / 3) <= 4 * math.sqrt(2 / 9 / n), "q = %g, expected 1/3" % q
assert d["jobs"][0]["npu_of_rank"] == e["jobs"][0]["npu_of_rank"], "the outputs keep the first seed's placement"
PY
bad "te with random per seed" "{$H, \"set\": {\"run.backend\": \"flow\"}, \"topology\": \"two.json\", \"seeds\": 2, \"routings\": [\"te\"], \"jobs\": [{\"workload\": \"pp\", \"npus\": 2, \"placement\": \"random\"}]}" \
    "routings te with a bare random placement over 2 seeds"
expect_fail "missing file" "nofile.json" "$CS_BIN" cluster nofile.json
expect_fail "--json into --out" "the file --out writes too" "$CS_BIN" cluster c1.json --out o9 --json o9/cluster.json
"$CS_BIN" cluster c1.json --fast > /dev/null 2> eu; [ $? = 2 ] && grep -q "unknown option --fast" eu || fail "unknown flag: $(cat eu)"
# a failed run leaves none of the earlier run's results
# traffic classes per job (packet backend): the two jobs of c1 across the one 50 GB/s link, job y in class 1,
# strict priority: y is served whenever it has a packet, and it always has one (its NPU link is twice the
# shared one): y keeps its time alone (within a packet), x waits for it: about 2 T (1.95 to 2.05 T with the
# packets' headers either way); a class the backend lacks is refused
sed -e 's/"run.backend": "flow"/"run.backend": "packet", "backend.packet.priorities": 2, "backend.packet.scheduler": "strict"/' \
    -e 's/"placement": "1,3"}/"placement": "1,3", "traffic_class": 1}/' c1.json > ctc.json
"$CS_BIN" cluster ctc.json --out otc --quiet 2> etc || fail "traffic classes: $(cat etc)"
sy=$(csv otc/jobs.csv y slowdown) sx=$(csv otc/jobs.csv x slowdown)
awk -v y="$sy" -v x="$sx" 'BEGIN { exit !(y >= 1 && y <= 1.001 && x >= 1.95 && x <= 2.05) }' \
    && pass "job traffic class: the high class keeps its time (slowdown $sy), the other waits ($sx)" \
    || fail "job traffic class: slowdowns y $sy, x $sx"
sed -e 's/"backend.packet.priorities": 2, //' ctc.json > ctc1.json
expect_fail "a class the backend lacks" "traffic class 1; expected below backend.packet.priorities (1)" \
    "$CS_BIN" cluster ctc1.json --out otc1
bad "traffic_class" "{$H, \"jobs\": [{\"workload\": \"pp\", \"npus\": 2, \"traffic_class\": 8}]}" \
    "jobs[0].traffic_class: expected an integer from 0 to 7"
"$CS_BIN" cluster c1.json --out o5 --quiet 2> /dev/null || fail "o5"
expect_fail "failed run" "run.backend nope" "$CS_BIN" cluster c1.json --out o5 --set run.backend=nope
[ -z "$(ls o5)" ] || fail "a failed run left $(ls o5)"
pass "bad input refused by name; a failed run leaves no results"

# --check: everything the runs load and check, nothing simulated, no file written or removed
ls -R o1 > o1.before
"$CS_BIN" cluster c1.json --check --out o1 --json o1/extra.json > rk 2> ek; rc=$?
[ $rc = 0 ] || fail "--check on a good file: exit $rc: $(cat ek)"
grep -q "^ok: c1.json: 2 jobs on 4 of the cluster's 4 NPUs (x 2, y 2), backend flow; nothing simulated$" rk ||
    fail "--check's line: $(cat rk)"
ls -R o1 | cmp -s - o1.before || fail "--check touched --out's directory: $(ls -R o1)"
"$CS_BIN" cluster c5.json --check --out ock --json ock.json --quiet > rk5 2> ek5 || fail "--check windows: $(cat ek5)"
[ ! -e ock ] && [ ! -e ock.json ] && [ ! -s rk5 ] || fail "--check --quiet wrote $(ls -d ock ock.json 2> /dev/null) $(cat rk5)"
for f in c2.json c9.json c10.json ctc.json; do
    "$CS_BIN" cluster $f --check > /dev/null 2> ek || fail "--check $f: $(cat ek)"
done
pass "--check: a good file (traces, plans, windows, routings, traffic classes) is ok, exit 0, no file written"
# bad jobs and platforms: exit 1, the file, the job and the field named, as the run would stop (each job alone
# first); what only a run reached before too (stragglers, the backend's own checks)
chk() { printf '%s\n' "$2" > bad.json; expect_fail "--check: $1" "$3" "$CS_BIN" cluster bad.json --check --out ockb; }
chk "placement outside the network" "{$H, \"jobs\": [{\"workload\": \"pp\", \"npus\": 2, \"placement\": [1, 7]}]}" \
    "bad.json: job job0: placement: NPU 7 is not in the cluster; expected 0 to 3"
chk "missing workload" "{$H, \"jobs\": [{\"name\": \"m\", \"workload\": \"nope\", \"npus\": 2}]}" \
    "bad.json: job m: workload: nope.0.et: workload trace for rank 0 does not exist; on 2 NPUs expected nope.0.et .. nope.1.et"
chk "missing comm-groups" "{$H, \"jobs\": [{\"workload\": \"pp\", \"npus\": 2, \"comm-groups\": \"nog.json\"}]}" \
    "bad.json: job job0: comm-groups: nog.json: cannot open"
chk "plan npus" "{$H, \"jobs\": [{\"npus\": 3, \"set\": {\"model.name\": \"llama3-8b\", \"plan.dp\": 2, \"plan.recompute\": \"full\"}}]}" \
    "bad.json: job job0: npus: expected the plan's 2 ranks"
chk "too many NPUs" "{$H, \"jobs\": [{\"workload\": \"pp\", \"npus\": 2}, {\"workload\": \"pp\", \"npus\": 2}, {\"name\": \"z\", \"workload\": \"pp\", \"npus\": 2}]}" \
    "bad.json: job z: needs 2 NPUs, 0 of the cluster's 4 are free"
chk "peer outside the job" "{$H, \"jobs\": [{\"workload\": \"far\", \"npus\": 2}]}" \
    "bad.json: job job0: far.0.et|comm_dst 2 is not a rank of the job"
# the platform's errors name the cluster file (they named only the key, or only the missing file: the cli fuzz
# target's cluster --check, fuzz/regress/cli/cluster_*_unnamed*)
chk "no network" "{\"clustersim-cluster\": 1, \"jobs\": [{\"workload\": \"pp\", \"npus\": 2}]}" \
    "bad.json: network: expected the network dimensions"
chk "a missing network file" "{\"clustersim-cluster\": 1, \"network\": \"none.yml\", \"jobs\": [{\"workload\": \"pp\", \"npus\": 2}]}" \
    "bad.json:1: network: none.yml: cannot open"
chk "a missing memory file" "{$H, \"memory\": \"none.json\", \"jobs\": [{\"workload\": \"pp\", \"npus\": 2}]}" \
    "bad.json:1: memory: none.json: cannot open"
chk "unknown backend" "{$H, \"set\": {\"run.backend\": \"nope\"}, \"jobs\": [{\"workload\": \"pp\", \"npus\": 2}]}" \
    "bad.json: run.backend nope: unknown network backend"
chk "run.slow-ranks past the cluster" "{$H, \"set\": {\"run.slow-ranks\": \"3:1.5,9:2\"}, \"jobs\": [{\"workload\": \"pp\", \"npus\": 2}]}" \
    "bad.json: job job0 alone: run.slow-ranks 3:1.5,9:2: ranks 9-9: expected ranks 0 to 3"
chk "run.slow-nics on analytical" "{$H, \"set\": {\"run.slow-nics\": \"1:0.5\"}, \"jobs\": [{\"workload\": \"pp\", \"npus\": 2}]}" \
    "bad.json: job job0 alone: run.slow-nics 1:0.5 needs a graph backend"
chk "dwrr_weights (read when the backend is created)" "{$H, \"set\": {\"run.backend\": \"packet\", \"backend.packet.priorities\": 2, \"backend.packet.dwrr_weights\": \"1,0\"}, \"jobs\": [{\"workload\": \"pp\", \"npus\": 2}]}" \
    "bad.json: job job0 alone: backend.packet.dwrr_weights: \"1,0\"; expected 2 comma-separated integers 1..1000"
expect_fail "--check: a window draining a switch the topology lacks" "c5bad.json: 1 jobs with window drain:|77" \
    "$CS_BIN" cluster c5bad.json --check
expect_fail "--check: a traffic class the backend lacks" "ctc1.json: job y alone: rank 1: traffic class 1; expected below backend.packet.priorities (1)" \
    "$CS_BIN" cluster ctc1.json --check
[ ! -e ockb ] || fail "a refused --check wrote ockb"
"$CS_BIN" cluster c1.json --check=1 > /dev/null 2> eu; [ $? = 2 ] && grep -q "takes no value" eu || fail "--check=1: $(cat eu)"
finish
