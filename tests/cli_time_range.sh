#!/usr/bin/env bash
# cli_time_range.sh -- simulated time is 2^64 ps (213 days, core/time.h): a
# duration beyond it is refused with a located error naming what overflowed,
# never wrapped or capped and reported as a result.  Configuration values
# that cannot fit at all are refused when read, naming file and key.
# (Before: bandwidth 1e-300 gave 7,280 ns or 0 ns, latency 1e300 19.531 us,
# a collective of 2^63 bytes 18,446,744 s.)
. "$(dirname "$0")/lib_cli.sh"
: "${CS_MKTRACE:?}"
cd "$CS_TMP" || exit 1
M=1048576
"$CS_MKTRACE" --ranks x2 "1 SEND size=$M src=0 dst=1 tag=1" "1 RECV size=$M src=0 dst=1 tag=1" || fail "mktrace x2"
"$CS_MKTRACE" --ranks big "1 COLL ctype=0 size=9223372036854775807" "1 COLL ctype=0 size=9223372036854775807" \
    || fail "mktrace big"
net() { printf 'topology: [ Switch ]\nnpus_count: [ 2 ]\nbandwidth: [ %s ]\nlatency: [ %s ]\n' "$1" "$2" > "$3"; }
net 50 500 net.yml
net 1e-300 500 tinybw.yml
net 50 1e300 hugelat.yml
net 1e-12 500 slow.yml
printf '{"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,\n "preferred-dataset-splits": 1, "collective-optimization": "baseline", "local-mem-bw": 1600,\n "all-reduce-implementation": ["ring"], "all-gather-implementation": ["ring"],\n "reduce-scatter-implementation": ["ring"], "all-to-all-implementation": ["direct"]}\n' > sys.json
run() { "$CS_BIN" run --quiet "$@"; }

# read time: the network YAML, the system JSON, the remote-memory JSON
expect_fail "bandwidth 1e-300" "tinybw.yml:3: bandwidth: 1e-300 GB/s for dimension 0|beyond the simulated-time range of 2^64 ps (213 days)|expected a number >= 1e-16" \
    run --workload-configuration=x2 --network-configuration=tinybw.yml
expect_fail "latency 1e300" "hugelat.yml:4: latency: expected a number >= 0 and <= 18446744073709551 (in ns) for dimension 0, got 1e300" \
    run --workload-configuration=x2 --network-configuration=hugelat.yml
sed 's/"endpoint-delay": 10,/"endpoint-delay": 10, "model-shared-bus": 1, "L": 1e300,/' sys.json > sysL.json
expect_fail "LogGP L 1e300" "sysL.json:1: L: expected a number >= 0 and <= 1.844674407370955e+16 (in ns), got 1e+300" \
    run --workload-configuration=x2 --network-configuration=net.yml --system-configuration=sysL.json
sed 's/"local-mem-bw": 1600/"local-mem-bw": 1e-300/' sys.json > sysbw.json
expect_fail "local-mem-bw 1e-300" "sysbw.json:2: local-mem-bw: 1e-300 GB/s: one byte would take 1e+300 ns, beyond the simulated-time range of 2^64 ps (213 days); expected a number >= 1e-16 (in GB/s)" \
    run --workload-configuration=x2 --network-configuration=net.yml --system-configuration=sysbw.json
printf '{"memory-type": "PER_NPU_MEMORY_EXPANSION", "remote-mem-latency": 1e300, "remote-mem-bw": 32}\n' > mem.json
expect_fail "remote-mem-latency 1e300" "mem.json:1: remote-mem-latency: expected a number >= 0 and <= 1.844674407370955e+16 (in ns), got 1e+300" \
    run --workload-configuration=x2 --network-configuration=net.yml --remote-memory-configuration=mem.json

# run time: each backend refuses a transfer whose arrival is beyond the range
# (1 MiB at 1e-12 GB/s: 9.8e17 ns)
for be in analytical analytical-congestion flow; do
    expect_fail "1 MiB at 1e-12 GB/s ($be)" "transfer of 1048576 bytes from rank 0 to rank 1|exceeds the simulated-time range of 2^64 ps (213 days)" \
        run --workload-configuration=x2 --network-configuration=slow.yml --backend $be
    # a collective of 2^63 - 1 bytes: 1.7e17 ns at 50 GB/s, in either mode
    for sym in auto off; do
        expect_fail "collective of 2^63 bytes ($be, symmetry $sym)" \
            "big.0.et: node 1 (COMM_COLL): ALL_REDUCE of 9223372036854775807 bytes on communicator 0|exceeds the simulated-time range of 2^64 ps (213 days)" \
            run --workload-configuration=big --network-configuration=net.yml --system-configuration=sys.json \
            --backend $be --symmetry $sym
    done
done
# contention: one 1 MiB message at 1e-10 GB/s fits (9.8e15 ns), two sharing the
# Ring(2)'s link do not (the second ends at 1.95e16 ns): the run stops, saying why
printf 'topology: [ Ring ]\nnpus_count: [ 2 ]\nbandwidth: [ 1e-10 ]\nlatency: [ 500 ]\n' > shared.yml
"$CS_MKTRACE" --ranks two "1 SEND size=$M src=0 dst=1 tag=1; 2 SEND size=$M src=0 dst=1 tag=2" \
    "1 RECV size=$M src=0 dst=1 tag=1; 2 RECV size=$M src=0 dst=1 tag=2" || fail "mktrace two"
expect_fail "contention beyond the range (analytical-congestion)" \
    "1 message waiting behind busy links would arrive beyond the simulated-time range of 2^64 ps (213 days)" \
    run --workload-configuration=two --network-configuration=shared.yml --comm-streams 2 --backend analytical-congestion
expect_fail "contention beyond the range (flow)" \
    "2 sharing links so slowly that they would end beyond the simulated-time range of 2^64 ps (213 days)" \
    run --workload-configuration=two --network-configuration=shared.yml --comm-streams 2 --backend flow
# each message alone fits: the analytical backend (no contention) gives 9765625000000.5 us
"$CS_BIN" run --workload-configuration=two --network-configuration=shared.yml --comm-streams 2 --json two.json --quiet \
    && grep -q '"sim_time_ns": 9765625000000500,' two.json && pass "each message alone fits (analytical)" \
    || fail "each message alone fits: $(grep -o '"sim_time_ns": [0-9]*' two.json)"
# the system layer: a local reduction (1e-12 GB/s: 1.57e18 ns), a broadcast
# replayed past the range, endpoint-delay x injection-scale beyond an int
printf 'topology: [ Ring ]\nnpus_count: [ 2 ]\nbandwidth: [ 1e6 ]\nlatency: [ 500 ]\n' > fast.yml
sed 's/"local-mem-bw": 1600/"local-mem-bw": 1e-12/' sys.json > sysred.json
"$CS_MKTRACE" --ranks ar2 "1 COLL ctype=0 size=$M" "1 COLL ctype=0 size=$M" || fail "mktrace ar2"
expect_fail "local reduction beyond the range" \
    "ar2.0.et: node 1 (COMM_COLL): ALL_REDUCE of 1048576 bytes on communicator 0|the local reduction of 524288 bytes (3 x bytes / local-mem-bw 1e-12 GB/s = 1.573e+18 ns) ends beyond the simulated-time range" \
    run --workload-configuration=ar2 --network-configuration=fast.yml --system-configuration=sysred.json
"$CS_MKTRACE" --ranks bc "1 COMP dur=5; 2 COLL ctype=5 size=8 dur=18446744073709 data=1" \
    "1 COMP dur=5; 2 COLL ctype=5 size=8 dur=18446744073709 data=1" || fail "mktrace bc"
expect_fail "broadcast replayed beyond the range" \
    "bc.0.et: node 2 (COMM_COLL): BROADCAST replayed for 18446744073709 us from 5.000 us ends beyond the simulated-time range" \
    run --workload-configuration=bc --network-configuration=fast.yml --system-configuration=sys.json
expect_fail "endpoint-delay x injection-scale beyond an int" \
    "sys.json: endpoint-delay x injection-scale = 10 ns x 1e+09 = 1e+10 ns: expected at most 2147483647 ns" \
    run --workload-configuration=ar2 --network-configuration=fast.yml --system-configuration=sys.json --injection-scale 1e9
# remote memory: one load at 1e-15 GB/s; the second of two queued loads on a
# pool at 1e-10 GB/s (9.8e15 ns each, FIFO)
"$CS_MKTRACE" --ranks ld "1 LOAD tensor=$M; 2 LOAD tensor=$M" "1 COMP dur=1" || fail "mktrace ld"
printf '{"memory-type": "PER_NPU_MEMORY_EXPANSION", "remote-mem-latency": 100, "remote-mem-bw": 1e-15}\n' > memslow.json
expect_fail "remote load beyond the range" \
    "ld.0.et: node 1 (MEM_LOAD of 1048576 bytes): memslow.json: load of 1048576 bytes (remote-mem-latency 100 ns + bytes / remote-mem-bw 1e-15 GB/s) ends beyond the simulated-time range" \
    run --workload-configuration=ld --network-configuration=net.yml --remote-memory-configuration=memslow.json
printf '{"memory-type": "MEMORY_POOL", "remote-mem-latency": 100, "remote-mem-bw": 1e-10}\n' > mempool.json
expect_fail "queued remote load beyond the range" \
    "ld.0.et: node 2 (MEM_LOAD of 1048576 bytes): mempool.json: load of 1048576 bytes|after the accesses queued before it) ends beyond the simulated-time range" \
    run --workload-configuration=ld --network-configuration=net.yml --remote-memory-configuration=mempool.json --comm-streams 2
# compute: two COMP nodes of 1e13 us (1e19 ps) each, one after the other: the
# second ends beyond the range (it finished at the capped time before)
"$CS_MKTRACE" --ranks cmp2 "1 COMP dur=10000000000000; 2 COMP dur=10000000000000 data=1" "1 COMP dur=1" \
    || fail "mktrace cmp2"
expect_fail "compute beyond the range" \
    "cmp2.0.et: node 2 (COMP): its compute time from 10000000.000 s ends beyond the simulated-time range" \
    run --workload-configuration=cmp2 --network-configuration=net.yml
finish
