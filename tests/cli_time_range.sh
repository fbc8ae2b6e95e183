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

finish
