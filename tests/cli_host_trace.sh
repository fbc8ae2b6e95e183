#!/usr/bin/env bash
# cli_host_trace.sh -- PyTorch host traces (CPU COMP nodes, is_cpu_op) are
# reported as CPU time, not communication: ranks.csv, summary.json and the
# terminal report split each rank's step into GPU compute, CPU only (a CPU
# op while the GPU is idle), comm only (communication in flight while
# neither computes) and idle (nothing running, to the end of the step),
# beside ASTRA-sim's "exposed communication" (finish - GPU compute), which
# stays as it was.  Every number below is worked out by hand in the comments.
. "$(dirname "$0")/lib_cli.sh"
: "${CS_MKTRACE:?}"
cd "$CS_TMP" || exit 1
printf 'topology: [ Ring ]\nnpus_count: [ 1 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' > n1.yml
printf 'topology: [ Ring ]\nnpus_count: [ 2 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' > n2.yml
# row FILE RANK: "finish compute exposed cpu comm_busy cpu_only comm_only idle" from ranks.csv
row() { awk -F, -v r="$2" '$1 == r { print $2, $3, $4, $5, $6, $10, $11, $12 }' "$1"; }
check() { # check NAME GOT WANT
    if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: got '$2', expected '$3'"; fi
}

# A. 3 CPU nodes of 10 us chained, one GPU node of 5 us alongside (no dependency):
#    the CPU thread runs 0-30 us, the GPU 0-5 us.  finish 30 us; GPU compute 5;
#    CPU 30; CPU only (CPU busy, GPU idle) 30 - 5 = 25; comm 0; idle 0.
#    ASTRA-sim's exposed communication: 30 - 5 = 25 us, all of it CPU work.
"$CS_MKTRACE" a.0.et "1 CPU dur=10; 2 CPU dur=10 data=1; 3 CPU dur=10 data=2; 4 COMP dur=5" || fail "mktrace a"
if "$CS_BIN" run --workload-configuration=a.0.et --network-configuration=n1.yml --out a > a.txt 2>a.err; then
    check "A: ranks.csv finish, compute, exposed, cpu, comm busy, CPU only, comm only, idle" \
        "$(row a/ranks.csv 0)" "30000 5000 25000 30000 0 25000 0 0"
    head -1 a/ranks.csv | grep -q ',cpu_only_ns,comm_only_ns,idle_ns$' && pass "A: ranks.csv header names the split in ns" \
        || fail "A: header $(head -1 a/ranks.csv)"
    grep -q '"exposed_comm_ns": 25000, "cpu_ns": 30000, "comm_busy_ns": 0, "cpu_only_ns": 25000, "comm_only_ns": 0, "idle_ns": 0' \
        a/summary.json && pass "A: summary.json rank entry" || fail "A: summary.json: $(grep '"rank": 0' a/summary.json)"
    grep -q '"max_exposed_comm_ns": 25000, "max_cpu_only_ns": 25000, "max_comm_only_ns": 0, "max_idle_ns": 0' a/summary.json \
        && pass "A: summary.json totals" || fail "A: totals: $(grep totals a/summary.json)"
    grep -q "exposed communication 25.000 us (83.3 %)" a.txt \
        && grep -q "of which: CPU ops 25.000 us (83.3 %), communication 0.000 ns (0.0 %), idle 0.000 ns (0.0 %): CPU-bound" a.txt \
        && pass "A: the report keeps ASTRA-sim's number and reads CPU-bound" || fail "A: report: $(grep -A1 'on rank' a.txt)"
else
    fail "A: $(cat a.err)"
fi

# B. the GPU node after the last CPU node: 30 us of CPU then 5 us of GPU:
#    finish 35; GPU 5; CPU only 30; exposed (ASTRA-sim) 30.
"$CS_MKTRACE" b.0.et "1 CPU dur=10; 2 CPU dur=10 data=1; 3 CPU dur=10 data=2; 4 COMP dur=5 data=3" || fail "mktrace b"
"$CS_BIN" run --workload-configuration=b.0.et --network-configuration=n1.yml --out b --quiet 2>/dev/null
check "B: chained CPU then GPU" "$(row b/ranks.csv 0)" "35000 5000 30000 30000 0 30000 0 0"

# C. two ranks on a Ring(2) of 50 GB/s (53.687 bytes/ns), 500 ns: rank 0 runs a
#    10 us CPU op, then sends 1 MiB to rank 1 (1 hop: 500 + 19531.25 -> 20031 ns);
#    rank 1 posts the receive at 0, then computes 5 us on the GPU.
#    rank 1: receive in flight 0 - 30031 (comm only 30031), GPU 30031 - 35031:
#            finish 35031, idle 0, exposed 30031.
#    rank 0: CPU 0 - 10000 (CPU only 10000), send in flight 10000 - 30031 (comm
#            only 20031), finish 30031, then idle until the step ends at 35031: 5000;
#            exposed (ASTRA-sim, to its finish) 30031.
"$CS_MKTRACE" --ranks c "1 CPU dur=10; 2 SEND dst=1 size=1048576 tag=1 data=1" \
    "1 RECV src=0 size=1048576 tag=1; 2 COMP dur=5 data=1" || fail "mktrace c"
"$CS_BIN" run --workload-configuration=c --network-configuration=n2.yml --out c --quiet 2>c.err || fail "C: $(cat c.err)"
check "C: rank 0 (CPU, send, then waits for the step)" "$(row c/ranks.csv 0)" "30031 0 30031 10000 20031 10000 20031 5000"
check "C: rank 1 (receive, then GPU)" "$(row c/ranks.csv 1)" "35031 5000 30031 0 30031 0 30031 0"
# invariant: GPU compute + CPU only + comm only + idle = the step, on every rank
awk -F, 'NR > 1 { if ($3 + $10 + $11 + $12 != 35031) bad = 1 } END { exit bad }' c/ranks.csv \
    && pass "C: the four parts add up to the step on every rank" || fail "C: parts do not add up"

# D. a symmetric run (every rank the same host trace): each row is the full run's
"$CS_MKTRACE" d.et "1 CPU dur=10; 2 CPU dur=10 data=1; 3 COMP dur=4" || fail "mktrace d"
"$CS_BIN" run --workload-configuration=d.et --network-configuration=n2.yml --out d --quiet 2>/dev/null
"$CS_BIN" run --workload-configuration=d.et --network-configuration=n2.yml --out d_full --symmetry=off --quiet 2>/dev/null
grep -q '"symmetry": "representative"' d/summary.json && cmp -s d/ranks.csv d_full/ranks.csv \
    && check "D: symmetric rows equal the full run's (20 us CPU, 4 us GPU: CPU only 16)" "$(row d/ranks.csv 1)" \
        "20000 4000 16000 20000 0 16000 0 0" || fail "D: symmetric vs full: $(cat d/ranks.csv d_full/ranks.csv)"

# E. sweeps record the slowest rank's split (results.csv, by column name): case A on
#    two latencies (no communication: the same 5 / 25 / 0 / 0 us, adding up to 30 us)
"$CS_BIN" run --workload-configuration=a.0.et --network-configuration=n1.yml --dump-scenario a.scen.json --quiet 2>/dev/null
printf '{"clustersim-sweep": 1, "scenario": "a.scen.json", "grid": {"network.latency": [[500], [900]]}}\n' > sw.json
if "$CS_BIN" sweep sw.json --out sw >/dev/null 2>sw.err; then
    col() { head -1 sw/results.csv | tr ',' '\n' | grep -n "^$1\$" | cut -d: -f1; }
    got=$(awk -F, -v a="$(col time_ns)" -v b="$(col compute_ns)" -v c="$(col cpu_only_ns)" -v d="$(col comm_only_ns)" \
        -v e="$(col idle_ns)" 'NR > 1 { printf "%s %s %s %s %s;", $a, $b, $c, $d, $e }' sw/results.csv)
    check "E: sweep results.csv time, compute, cpu_only, comm_only, idle" "$got" "30000 5000 25000 0 0;30000 5000 25000 0 0;"
else
    fail "E: sweep: $(cat sw.err)"
fi
finish
