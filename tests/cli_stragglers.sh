#!/usr/bin/env bash
# cli_stragglers.sh -- run.slow-ranks and run.compute-jitter (issue 16,
# stragglers): on 8 ranks that each compute D = 1000 us and then all-reduce,
# a rank slowed by f makes the step (f - 1) D longer (the all-reduce waits
# for it; every rank then finishes together, so the report names the rank
# that computes longest), its factor and the slowdown against
# the run without stragglers (--compare-healthy on the analytical backend);
# jitter draws a lognormal factor of mean 1 per node (its sample mean over
# 2,000 nodes within 3 standard errors of 1, its spread the coefficient of
# variation asked), is the same bytes for the same seed and differs for
# another; symmetric modes step aside with the reason; bad specs are
# refused by key; run.attribute-stragglers leaves each item out in turn
# (hand values: 300 us and 0 of 500 us); run.slow-nics at 0.25 doubles a
# NIC-bound transfer and is attributed to that NIC only.
. "$(dirname "$0")/lib_cli.sh"
: "${CS_MKTRACE:?}"
cd "$CS_TMP" || exit 1
cat > n8.yml <<'NET'
topology: [ Switch ]
npus_count: [ 8 ]
bandwidth: [ 100 ]
latency: [ 500 ]
NET
cat > sys.json <<'SYS'
{"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1, "preferred-dataset-splits": 1,
 "all-reduce-implementation": ["ring"], "all-gather-implementation": ["ring"],
 "reduce-scatter-implementation": ["ring"], "all-to-all-implementation": ["ring"],
 "collective-optimization": "baseline", "local-mem-bw": 1600}
SYS
"$CS_MKTRACE" step.et "1 COMP dur=1000; 2 COLL ctype=0 size=1048576 data=1" || fail "mktrace"
R=(run --workload-configuration=step.et --network-configuration=n8.yml --system-configuration=sys.json)
"$CS_BIN" "${R[@]}" --json base.json --quiet 2> e0 || fail "run: $(cat e0)"
"$CS_BIN" "${R[@]}" --set run.slow-ranks=5:1.5 --compare-healthy --json slow.json > slow.txt 2> e1 \
    || fail "run slow-ranks: $(cat e1)"
python3 - base.json slow.json <<'PY' && pass "one rank at 1.5x: the step is 0.5 x 1000 us longer, exactly" || fail "slow rank"
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
st = b["stragglers"]
ok = b["sim_time_ps"] - a["sim_time_ps"] == 500 * 10**6 and b["healthy_sim_time_ns"] == a["sim_time_ns"]
ok = ok and st["rank"] == 5 and st["factor"] == 1.5 and st["compute_ns"] == 1.5e6
ok = ok and st["median_compute_ns"] == 1e6 and b["ranks"][5]["compute_ns"] == 1.5e6 and b["ranks"][4]["compute_ns"] == 1e6
ok = ok and b["totals"]["symmetry"] == "full" and a["totals"]["symmetry"] == "representative"
sys.exit(0 if ok else (print(a["sim_time_ps"], b["sim_time_ps"], st), 1)[1])
PY
grep -q "stragglers       rank 5 computes longest: GPU compute 1.500 ms, 1.500x the median rank's 1.000 ms (run.slow-ranks factor 1.5); step +" slow.txt \
    && pass "the report names the rank, its factor and the slowdown" || fail "report: $(cat slow.txt)"

# jitter: 8 ranks x 250 COMP nodes of 1000 us in a chain
spec=""
for i in $(seq 1 250); do spec="$spec$i COMP dur=1000$([ "$i" -gt 1 ] && echo " data=$((i - 1))"); "; done
"$CS_MKTRACE" chain.et "${spec%; }" || fail "mktrace chain"
J=(run --workload-configuration=chain.et --network-configuration=n8.yml --system-configuration=sys.json --quiet)
"$CS_BIN" "${J[@]}" --set run.compute-jitter=0.2 --set run.jitter-seed=7 --out j1 2> e2 || fail "jitter: $(cat e2)"
"$CS_BIN" "${J[@]}" --set run.compute-jitter=0.2 --set run.jitter-seed=7 --out j2 2> /dev/null
"$CS_BIN" "${J[@]}" --set run.compute-jitter=0.2 --set run.jitter-seed=8 --out j3 2> /dev/null
cmp -s j1/ranks.csv j2/ranks.csv && ! cmp -s j1/ranks.csv j3/ranks.csv \
    && pass "jitter: the same seed gives the same bytes, another seed others" || fail "jitter determinism"
python3 - j1/ranks.csv <<'PY' && pass "jitter: per-rank mean of 250 draws x 8 ranks consistent with mean 1 and CV 0.2" || fail "jitter statistics"
import csv, math, sys
c = [float(r["compute_ns"]) / 250e6 for r in csv.DictReader(open(sys.argv[1]))]   # each rank's mean factor
m = sum(c) / len(c)
se = 0.2 / math.sqrt(250 * 8)                             # standard error of the grand mean
sd_rank = math.sqrt(sum((x - m) ** 2 for x in c) / (len(c) - 1))   # spread of rank means: about 0.2 / sqrt(250)
ok = abs(m - 1) < 4 * se and 0.3 * 0.2 / math.sqrt(250) < sd_rank < 2.5 * 0.2 / math.sqrt(250)
sys.exit(0 if ok else (print(m, se, sd_rank), 1)[1])
PY
expect_fail "slow-ranks: a rank beyond the network" "run.slow-ranks 9:2|expected ranks 0 to 7" \
    "$CS_BIN" "${R[@]}" --set run.slow-ranks=9:2
expect_fail "slow-ranks: no factor" "run.slow-ranks 3|RANK[-RANK]:FACTOR" "$CS_BIN" "${R[@]}" --set run.slow-ranks=3
expect_fail "compute-jitter out of range" "run.compute-jitter" "$CS_BIN" "${R[@]}" --set run.compute-jitter=5
expect_fail "compare-healthy with nothing to compare" "--compare-healthy needs something to compare" \
    "$CS_BIN" "${R[@]}" --compare-healthy
expect_fail "symmetry require names the stragglers" "ranks compute at different rates" \
    "$CS_BIN" "${R[@]}" --set run.slow-ranks=0:2 --set run.symmetry=require
# attribution (run.attribute-stragglers): each item left out in turn.  Rank 5 at 1.5 and rank 2 at 1.2:
# without 5:1.5 the step waits for rank 2 only (1.2 D): 300 us less; without 2:1.2 nothing changes (rank 5
# still waits 1.5 D): 0; the items' 300 us of the 500 us over the healthy run (they overlap)
"$CS_BIN" "${R[@]}" --set run.slow-ranks=5:1.5,2:1.2 --set run.attribute-stragglers=true --compare-healthy \
    --json at.json > at.txt 2> eat || fail "attribution: $(cat eat)"
grep -q '"straggler": "run.slow-ranks 5:1.5", "resource": "GPU compute", "sim_time_without_ns": 1232931, "loss_ns": 300000}' at.json &&
    grep -q '"straggler": "run.slow-ranks 2:1.2", "resource": "GPU compute", "sim_time_without_ns": 1532931, "loss_ns": 0}' at.json ||
    fail "attribution: $(grep -A4 straggler_attribution at.json)"
grep -q "the items' losses add up to 300.000 us of the 500.000 us" at.txt || fail "attribution report: $(cat at.txt)"
pass "attribution: 5:1.5 adds 300 us, 2:1.2 nothing (leave-one-out), 300 of 500 us"
# a slower NIC (run.slow-nics, flow): rank 0 sends 1e8 bytes to rank 2 across the 50 GB/s cable between two
# switches; its NIC at 0.25 of 100 GB/s (25 GB/s) becomes the bottleneck: 2 x S / (50 x 2^30 B/s);
# rank 3's slower NIC is not on the path: no loss
printf '{"builder": "edges", "switches": 2,\n "edges": [[0, 4, 100, 0], [1, 4, 100, 0], [2, 5, 100, 0], [3, 5, 100, 0], [4, 5, 50, 0]]}\n' > two.json
cat > n4.yml <<'NET'
topology: [ Switch ]
npus_count: [ 4 ]
bandwidth: [ 100 ]
latency: [ 500 ]
NET
"$CS_MKTRACE" --ranks p4 "1 SEND dst=2 size=100000000 tag=1" "1 COMP dur=1" "1 RECV src=0 size=100000000 tag=1" "1 COMP dur=1" ||
    fail "mktrace"
F=(run --workload-configuration=p4 --network-configuration=n4.yml --system-configuration=sys.json --topology two.json
   --backend flow)
"$CS_BIN" "${F[@]}" --set run.slow-nics=0:0.25,3:0.5 --set run.attribute-stragglers=true --compare-healthy --json nic.json \
    > nic.txt 2> enic || fail "slow NIC: $(cat enic)"
grep -q '"sim_time_ns": 3725290' nic.json || fail "slow NIC: $(grep sim_time nic.json)"
grep -q '"straggler": "run.slow-nics 0:0.25", "resource": "NIC", "sim_time_without_ns": 1862645, "loss_ns": 1862645}' nic.json &&
    grep -q '"straggler": "run.slow-nics 3:0.5", "resource": "NIC", "sim_time_without_ns": 3725290, "loss_ns": 0}' nic.json ||
    fail "NIC attribution: $(grep -A4 straggler_attribution nic.json)"
pass "a NIC at a quarter of its bandwidth doubles the transfer; attributed to it, not to the NIC off the path"
expect_fail "slow-nics on analytical" "run.slow-nics 0:0.5 needs a graph backend" "$CS_BIN" "${R[@]}" --set run.slow-nics=0:0.5
expect_fail "slow-nics factor" "run.slow-nics 0:2: expected RANK[-RANK]:FACTOR,... with FACTOR in (0, 1]" \
    "$CS_BIN" "${F[@]}" --set run.slow-nics=0:2
expect_fail "attribution without stragglers" "run.attribute-stragglers: no stragglers to attribute" \
    "$CS_BIN" "${R[@]}" --set run.attribute-stragglers=true
# an empty spec was taken for "nobody slowed" (fuzz_flag_strings' finding, fuzz/regress/flag_strings)
expect_fail "slow-ranks: empty" "run.slow-ranks \"\": expected RANK[-RANK]:FACTOR,..." \
    "$CS_BIN" "${R[@]}" --set run.slow-ranks=
expect_fail "slow-nics: empty" "run.slow-nics \"\": expected RANK[-RANK]:FACTOR,... with FACTOR in (0, 1]" \
    "$CS_BIN" "${F[@]}" --set run.slow-nics=
finish
