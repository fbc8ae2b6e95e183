#!/usr/bin/env bash
# cli_memory_congestion.sh -- the remote-memory models and the
# analytical-congestion backend through the program: --remote-memory-configuration
# is read and echoed in summary.json, its errors name the file and keys, and
# --backend analytical-congestion runs where ASTRA-sim's congestion-aware
# binary cannot (multi-dimensional networks, a Ring of 2).
# Times are worked out in docs/memory.md and docs/network.md.
. "$(dirname "$0")/lib_cli.sh"
: "${CS_MKTRACE:?}"
cd "$CS_TMP" || exit 1

# 8 ranks: load 64 KiB, then store 32 KiB (the trace ends in a MEM node).
specs=()
for r in 0 1 2 3 4 5 6 7; do specs+=("1 LOAD tensor=65536; 2 STORE tensor=32768 data=1"); done
"$CS_MKTRACE" --ranks w8 "${specs[@]}" || fail "mktrace"
printf 'topology: [ Ring, Switch ]\nnpus_count: [ 2, 4 ]\nbandwidth: [ 50, 50 ]\nlatency: [ 500, 500 ]\n' > net8.yml
printf '{\n  "memory-type": "PER_NODE_MEMORY_EXPANSION",\n  "num-nodes": 2,\n  "num-npus-per-node": 4,\n  "remote-mem-latency": 1000,\n  "remote-mem-bw": 32\n}\n' > pernode.json

# PER_NODE, 2 nodes x 4 NPUs on 8 NPUs (ASTRA-sim reads freed memory here).  Load 3048 ns,
# store 1000 + 1024 = 2024 ns; per node the four loads run first (the stores
# queue behind them): rank 0 ends at 4*3048 + 2024 = 14216, then +2024 each.
run() { "$CS_BIN" run --workload-configuration=w8 --network-configuration=net8.yml --quiet "$@"; }
if run --remote-memory-configuration=pernode.json --json s.json 2>err.txt; then
    ok=1
    for pair in "0 14216" "1 16240" "2 18264" "3 20288" "4 14216" "7 20288"; do
        set -- $pair
        grep -q "\"rank\": $1, \"finish_ns\": $2," s.json || ok=0
    done
    [ $ok -eq 1 ] && pass "per-node 2x4 on 8 NPUs" || fail "per-node 2x4 on 8 NPUs: $(grep -o '"rank": [0-9], "finish_ns": [0-9]*' s.json | tr '\n' ' ')"
    grep -q '"memory-type": "PER_NODE_MEMORY_EXPANSION"' s.json && grep -q '"num-npus-per-node": 4' s.json \
        && pass "summary records the memory configuration" || fail "summary records the memory configuration"
else
    fail "per-node 2x4 on 8 NPUs: $(cat err.txt)"
fi

# The same under the congestion-aware backend (no network traffic: same times).
run --remote-memory-configuration=pernode.json --backend analytical-congestion --json s2.json 2>/dev/null \
    && grep -q '"rank": 3, "finish_ns": 20288,' s2.json && pass "memory under analytical-congestion" \
    || fail "memory under analytical-congestion"

# Errors.
sed 's/"num-nodes": 2/"num-nodes": 3/' pernode.json > bad.json
expect_fail "node count must match the NPUs" "bad.json:3|num-nodes|num-npus-per-node|3 x 4 = 12" \
    run --remote-memory-configuration=bad.json
expect_fail "MEM node without a memory file" "w8.0.et|node 1 (MEM_LOAD of 65536 bytes)|--remote-memory-configuration|NO_MEMORY_EXPANSION" \
    run
printf '{"memory-type": "NO_MEMORY_EXPANSION"}\n' > none.json
expect_fail "MEM node with NO_MEMORY_EXPANSION" "none.json|NO_MEMORY_EXPANSION" \
    run --remote-memory-configuration=none.json

# analytical-congestion on a Ring of 2 and on 2-D: one 1 MiB message each way
# on a Ring of 2 (50 GB/s, 500 ns): floor(500 + 1048576/53.6870912) = 20031 ns.
"$CS_MKTRACE" --ranks p2 "1 SEND size=1048576 src=0 dst=1 tag=1; 2 RECV size=1048576 src=1 dst=0 tag=2" \
    "1 SEND size=1048576 src=1 dst=0 tag=2; 2 RECV size=1048576 src=0 dst=1 tag=1" || fail "mktrace p2"
printf 'topology: [ Ring ]\nnpus_count: [ 2 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' > ring2.yml
"$CS_BIN" run --workload-configuration=p2 --network-configuration=ring2.yml --backend analytical-congestion \
    --quiet --json r2.json 2>err.txt && grep -q '"sim_time_ns": 20031,' r2.json \
    && pass "analytical-congestion on a Ring of 2" || fail "analytical-congestion on a Ring of 2: $(cat err.txt)"
# 2-D Ring(2) x Switch(4): 0 -> 7 = (1,3): ring hop 20031, then up and down the
# switch 2 x 20031: 60093 ns (the unaware backend: first dimension only, 20031).
"$CS_MKTRACE" --ranks p8 "1 SEND size=1048576 src=0 dst=7 tag=1" "1 META" "1 META" "1 META" "1 META" "1 META" "1 META" \
    "1 RECV size=1048576 src=0 dst=7 tag=1" || fail "mktrace p8"
"$CS_BIN" run --workload-configuration=p8 --network-configuration=net8.yml --backend analytical-congestion \
    --quiet --json c8.json 2>err.txt && grep -q '"sim_time_ns": 60093,' c8.json \
    && pass "analytical-congestion on 2-D" || fail "analytical-congestion on 2-D: $(cat err.txt; grep sim_time c8.json)"
"$CS_BIN" run --workload-configuration=p8 --network-configuration=net8.yml --quiet --json u8.json 2>/dev/null \
    && grep -q '"sim_time_ns": 20031,' u8.json && pass "analytical on the same 2-D case" || fail "analytical on the same 2-D case"
finish
