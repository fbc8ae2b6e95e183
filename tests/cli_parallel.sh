#!/usr/bin/env bash
# cli_parallel.sh -- `clustersim run --threads N` (docs/parallel.md): the
# full simulation on the conservative parallel engine gives, for N = 2 and
# 3, byte for byte the files of the sequential run (--threads 1):
# summary.json (with its event count), ranks.csv and collectives.csv.  The
# reference is the sequential run itself, which the other tests check
# against ASTRA-sim and closed forms; what this test asserts is the
# invariant "results do not depend on the thread count".  Workloads: the
# ASTRA-sim-style 3-D all-reduce, a chain of all-reduce / all-gather /
# reduce-scatter / all-to-all with compute, ring / direct /
# halvingDoubling / doubleBinaryTree, two communicator groups beside the
# whole network, and every ASTRA-sim reference case under
# $CS_SHARED_DIR/testdata/astra-sim/cases (skipped with a message when
# absent).  --verbose shows that the eligible runs did run on the parallel
# engine ("parallel engine: N threads"), and the others say once why they
# ran on one thread (send/recv pipelines, zero latency, other backends,
# the symmetric run).  Bad --threads values are refused naming the flag.
# In builds with the invariants (the ASan/UBSan build), the layers check
# that a handler touches only its own partition's ranks (cs_eventq_owns:
# a message delivered, a bundle, a chunk proceeding, a node completing or
# issuing, a collective finishing) on every case here, so a partition
# touching state it does not own would fail the run (no case provokes one;
# an arrival pushed into the sender's partition instead of the receiver's
# was caught so, by hand).
# (No timing is asserted.)
. "$(dirname "$0")/lib_cli.sh"
: "${CS_MKTRACE:?}"
cd "$CS_TMP" || exit 1

# 4 x 2 x 4 = 32 NPUs, latencies 50 / 500 / 2000 ns: lookahead 50 ns
printf 'topology: [ Ring, FullyConnected, Switch ]\nnpus_count: [ 4, 2, 4 ]\nbandwidth: [ 200.0, 100.0, 50.0 ]\nlatency: [ 50.0, 500.0, 2000.0 ]\n' > net.yml
sysjson() { # $1 = all-reduce implementation, $2 = the others'
    cat <<J
{ "scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,
  "preferred-dataset-splits": 4, "collective-optimization": "localBWAware", "local-mem-bw": 1600,
  "all-reduce-implementation": [ "$1", "$1", "$1" ], "all-gather-implementation": [ "$2", "$2", "$2" ],
  "reduce-scatter-implementation": [ "$2", "$2", "$2" ], "all-to-all-implementation": [ "$2", "$2", "$2" ] }
J
}
sysjson ring ring > ring.json
sysjson ring ring | sed 's/ }$/, "communicator-queues": "per-communicator" }/' > ring_pc.json
# the nccl collective model (its algorithms, protocols and latencies) on 4 nodes of 8 GPUs
printf 'topology: [ Switch, Switch ]\nnpus_count: [ 8, 4 ]\nbandwidth: [ 345.0, 46.5 ]\nlatency: [ 500.0, 2000.0 ]\n' > net2.yml
cat > nccl.json <<J
{ "scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,
  "preferred-dataset-splits": 1, "collective-optimization": "baseline", "local-mem-bw": 1600,
  "all-to-all-implementation": [ "direct", "direct" ],
  "collective-model": "nccl", "nccl-arch": "hopper", "nccl-channels": 16, "nccl-nvls": false }
J
sysjson direct direct > direct.json
sysjson halvingDoubling ring > hd.json
sysjson doubleBinaryTree ring > dbt.json

"$CS_MKTRACE" ar.et "1 COLL ctype=0 size=1048576" || fail "mktrace ar"
"$CS_MKTRACE" mix.et "1 COMP dur=3; 2 COLL ctype=0 size=1048576 data=1; 3 COLL ctype=2 size=65536 data=1; \
4 COLL ctype=7 size=262144 data=2; 5 COLL ctype=6 size=131072 data=3,4; 6 COMP dur=2 data=5; \
7 COLL ctype=0 size=4096 data=6" || fail "mktrace mix"
# two communicator groups (even and odd ranks) besides the whole network
specs=()
for r in $(seq 0 31); do
    specs+=("1 COMP dur=$((r % 5 + 1)); 2 COLL ctype=0 size=262144 pg=$((r % 2 + 1)) data=1; \
3 COLL ctype=2 size=16384 pg=$((r % 2 + 1)) data=2; 4 COLL ctype=0 size=524288 data=2")
done
"$CS_MKTRACE" --ranks grp "${specs[@]}" || fail "mktrace groups"
python3 -c 'import json; print(json.dumps({"1": list(range(0, 32, 2)), "2": list(range(1, 32, 2))}))' > groups.json
# a send/recv pipeline: rank r receives from r - 1, computes, sends to r + 1
specs=()
for r in $(seq 0 31); do
    s="1 COMP dur=1"
    [ "$r" -gt 0 ] && s="$s; 2 RECV src=$((r - 1)) size=65536 tag=7; 3 COMP dur=2 data=2" || s="$s; 3 COMP dur=2 data=1"
    [ "$r" -lt 31 ] && s="$s; 4 SEND dst=$((r + 1)) size=65536 tag=7 data=3"
    specs+=("$s")
done
"$CS_MKTRACE" --ranks pipe "${specs[@]}" || fail "mktrace pipe"

# same_files NAME ARGS...: runs with --threads 1, 2, 3; 0 when every file is
# identical to the sequential run's; the stderr of each in NAME.tN.err.
# (--parallel-min-events 0: these small runs stay on the engine, whatever
# their yield; the yield check has its own case below.)
same_files() {
    local name=$1 t f
    shift
    for t in 1 2 3; do
        rm -rf "$name.t$t"
        "$CS_BIN" run "$@" --symmetry off --quiet --no-progress --verbose --out "$name.t$t" --threads "$t" \
            --parallel-min-events 0 2> "$name.t$t.err" || { echo "$name --threads $t: $(cat "$name.t$t.err")"; return 1; }
    done
    for t in 2 3; do
        for f in summary.json ranks.csv collectives.csv; do
            [ -s "$name.t1/$f" ] || { echo "$name: no $f"; return 1; }
            cmp -s "$name.t1/$f" "$name.t$t/$f" || { echo "$name: $f differs with --threads $t"; return 1; }
        done
    done
    return 0
}
# ran_parallel NAME: the runs with 2 and 3 threads ran on the parallel engine
# and freed every collective instance they made (one per row of
# collectives.csv: the barriers sum each instance's per-partition counts)
ran_parallel() {
    local n
    n=$(($(wc -l < "$1.t1/collectives.csv") - 1))
    grep -q "parallel engine: 2 threads.* $n collective instances freed" "$1.t2.err" &&
        grep -q "parallel engine: 3 threads.* $n collective instances freed" "$1.t3.err"
}

N=(--network-configuration=net.yml)
same_files ar3d --workload-configuration=ar.et "${N[@]}" --system-configuration=ring.json && ran_parallel ar3d \
    && pass "3-D all-reduce: identical files with 1, 2, 3 threads, on the parallel engine" \
    || fail "3-D all-reduce: $(cat ar3d.t2.err)"
for impl in ring direct hd dbt; do
    same_files "mix_$impl" --workload-configuration=mix.et "${N[@]}" --system-configuration=$impl.json \
        && ran_parallel "mix_$impl" \
        && pass "all-reduce, all-gather, reduce-scatter, all-to-all and compute ($impl): identical, parallel" \
        || fail "mix $impl: $(cat mix_$impl.t2.err)"
done
[ "$(tail -n +2 mix_ring.t1/collectives.csv | cut -d, -f2 | tr '\n' ' ')" = \
    "ALL_REDUCE ALL_GATHER REDUCE_SCATTER ALL_TO_ALL ALL_REDUCE " ] \
    && pass "the mix records its five collectives, in order" || fail "mix records: $(cat mix_ring.t1/collectives.csv)"
same_files groups --workload-configuration=grp "${N[@]}" --system-configuration=ring.json \
    --comm-group-configuration=groups.json && ran_parallel groups \
    && pass "two communicator groups and the whole network: identical, parallel" \
    || fail "groups: $(cat groups.t2.err)"

# per-communicator queues (a queue per communicator and dimension, made on
# first use by the rank's own partition), with the astra model and with nccl
same_files mix_pc --workload-configuration=mix.et "${N[@]}" --system-configuration=ring_pc.json \
    && ran_parallel mix_pc && same_files groups_pc --workload-configuration=grp "${N[@]}" \
    --system-configuration=ring_pc.json --comm-group-configuration=groups.json && ran_parallel groups_pc \
    && pass "per-communicator queues: the mix and the groups identical, parallel" \
    || fail "per-communicator: $(cat mix_pc.t2.err groups_pc.t2.err 2>/dev/null)"
same_files mix_nccl --workload-configuration=mix.et --network-configuration=net2.yml --system-configuration=nccl.json \
    && ran_parallel mix_nccl && grep -q "nccl:" mix_nccl.t1/collectives.csv \
    && pass "the nccl collective model (per-communicator queues, its default): identical, parallel" \
    || fail "nccl: $(cat mix_nccl.t2.err)"

# the yield check: the groups' run (32 ranks on the 4 x 2 x 4 network) has
# windows of few events; with the default --parallel-min-events (1000 per
# window and thread) its first 256 windows ran fewer, so it says so and runs
# again on one thread, with the same files; at 1 event per window it stays
# parallel; and the 3-D all-reduce, 25 windows, is never checked: at the
# default it stays on the engine
"$CS_BIN" run --workload-configuration=grp "${N[@]}" --system-configuration=ring.json \
    --comm-group-configuration=groups.json --symmetry off --quiet --no-progress --verbose --threads 2 \
    --out low.t2 2> low.err \
    && [ "$(grep -c "running on one thread: its first 256 windows .* fewer than --parallel-min-events 1000: too few" low.err)" -eq 1 ] \
    && ! grep -q "parallel engine: 2 threads" low.err \
    && cmp -s groups.t1/ranks.csv low.t2/ranks.csv && cmp -s groups.t1/collectives.csv low.t2/collectives.csv \
    && cmp -s groups.t1/summary.json low.t2/summary.json \
    && "$CS_BIN" run --workload-configuration=grp "${N[@]}" --system-configuration=ring.json \
        --comm-group-configuration=groups.json --symmetry off --quiet --no-progress --verbose --threads 2 \
        --parallel-min-events 1 --out low1.t2 2> low1.err \
    && grep -q "parallel engine: 2 threads" low1.err && ! grep -q "running on one thread" low1.err \
    && "$CS_BIN" run --workload-configuration=ar.et "${N[@]}" --system-configuration=ring.json --symmetry off \
        --quiet --no-progress --verbose --threads 2 --out few.t2 2> few.err \
    && grep -q "parallel engine: 2 threads, [0-9]* events, 25 windows" few.err && ! grep -q "running on one thread" few.err \
    && pass "a run of small windows goes back to one thread, saying why (same files); --parallel-min-events 1 keeps it; a run of 25 windows is not checked" \
    || fail "yield check: $(cat low.err low1.err few.err 2>/dev/null | head -5)"
expect_fail "--parallel-min-events -1" "--parallel-min-events '-1': expected a whole number" \
    "$CS_BIN" run --workload-configuration=ar.et "${N[@]}" --system-configuration=ring.json --parallel-min-events -1

# what runs on one thread says why, once, and gives the same files
same_files pipe --workload-configuration=pipe "${N[@]}" --system-configuration=ring.json \
    && [ "$(grep -c "running on one thread: COMM_SEND/COMM_RECV" pipe.t2.err)" -eq 1 ] && ! ran_parallel pipe \
    && pass "send/recv pipeline: one thread, says why once, identical" || fail "pipe: $(cat pipe.t2.err)"
printf 'topology: [ Ring, FullyConnected, Switch ]\nnpus_count: [ 4, 2, 4 ]\nbandwidth: [ 200.0, 100.0, 50.0 ]\nlatency: [ 0.0, 500.0, 2000.0 ]\n' > net0.yml
same_files zero --workload-configuration=ar.et --network-configuration=net0.yml --system-configuration=ring.json \
    && grep -q "running on one thread: .*latency is 0 ns.*no lookahead" zero.t2.err \
    && pass "zero latency: no lookahead, one thread, identical" || fail "zero latency: $(cat zero.t2.err)"
same_files cong --workload-configuration=ar.et "${N[@]}" --system-configuration=ring.json --backend analytical-congestion \
    && grep -q "running on one thread: the analytical-congestion backend" cong.t2.err \
    && pass "analytical-congestion: one thread, says why, identical" || fail "congestion: $(cat cong.t2.err)"
"$CS_BIN" run --workload-configuration=ar.et "${N[@]}" --system-configuration=ring.json --quiet --no-progress \
    --threads 2 --json sym.json 2> sym.err && grep -q "threads 2: the symmetric run simulates" sym.err \
    && pass "the symmetric run says it runs on one thread" || fail "symmetric: $(cat sym.err)"

for bad in 0 -1 abc 257 2x ""; do
    expect_fail "--threads '$bad'" "--threads '$bad'|1 to 256" "$CS_BIN" run --workload-configuration=ar.et "${N[@]}" \
        --system-configuration=ring.json --threads "$bad"
done

# every ASTRA-sim reference case
CASES="${CS_SHARED_DIR:-/nonexistent}/testdata/astra-sim/cases"
if [ ! -d "$CASES" ]; then
    echo "skip ASTRA-sim reference cases: $CASES is absent"
else
    n=0 par=0 bad=""
    for c in "$CASES"/*/; do
        name=$(basename "$c")
        mapfile -t a < <(python3 - "$c" <<'PY'
import json, os, sys
c = sys.argv[1]
j = json.load(open(os.path.join(c, "case.json")))
print("--workload-configuration=" + os.path.join(c, j["workload_prefix"]))
print("--backend=" + j.get("backend", "analytical"))
for f, o in (("network.yml", "network"), ("system.json", "system"), ("memory.json", "remote-memory")):
    if os.path.exists(os.path.join(c, f)):
        print("--%s-configuration=%s" % (o, os.path.join(c, f)))
if j.get("comm_group_configuration"):
    print("--comm-group-configuration=" + os.path.join(c, j["comm_group_configuration"]))
PY
)
        n=$((n + 1))
        same_files "case_$name" "${a[@]}" || bad="$bad $name"
        ran_parallel "case_$name" && par=$((par + 1))
    done
    [ -z "$bad" ] && pass "$n ASTRA-sim reference cases: identical with 1, 2, 3 threads ($par on the parallel engine)" \
        || fail "reference cases differ:$bad"
    # of the 42 cases, 8 run analytical-congestion, 4 a remote memory and 4 roundRobin / offlineGreedy
    # inter-dimension scheduling (one thread, docs/parallel.md): 26 run in parallel, one of them with 2
    # ranks (2 threads at --threads 3, so ran_parallel does not count it): 25
    if [ "$n" = 42 ]; then
        [ "$par" = 25 ] && pass "25 of the 42 reference cases ran on the parallel engine at 2 and 3 threads" \
            || fail "$par reference cases on the parallel engine at 2 and 3 threads, expected 25"
    else
        [ "$par" -ge 1 ] && pass "$par of $n reference cases ran on the parallel engine" || fail "none parallel"
    fi
fi
finish
