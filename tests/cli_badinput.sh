#!/usr/bin/env bash
# cli_badinput.sh -- bad input gets a clear message naming the file and what was
# expected, and exit status 1: never a crash or a hang.
. "$(dirname "$0")/lib_cli.sh"
: "${CS_MKTRACE:?}"
T="$CS_TMP"
cat > "$T/net2.yml" <<'Y'
topology: [ Ring ]
npus_count: [ 2 ]
bandwidth: [ 50 ]
latency: [ 500 ]
Y
run() { timeout 60 "$CS_BIN" run --network-configuration="$T/net2.yml" --quiet "$@"; }
"$CS_MKTRACE" --ranks "$T/ok" "1 COMP dur=5" "1 COMP dur=6"

# garbled: random bytes
head -c 300 /dev/urandom > "$T/garbled.0.et"; cp "$T/ok.1.et" "$T/garbled.1.et"
expect_fail "garbled trace" "garbled.0.et" run --workload-configuration="$T/garbled"
# truncated: cut a valid file short
"$CS_MKTRACE" "$T/full.et" "1 COMP dur=5 name=a_fairly_long_node_name; 2 COMP dur=5 data=1"
head -c 20 "$T/full.et" > "$T/trunc.0.et"; cp "$T/ok.1.et" "$T/trunc.1.et"
expect_fail "truncated trace" "trunc.0.et|truncated" run --workload-configuration="$T/trunc"
# empty file
: > "$T/empty.0.et"; cp "$T/ok.1.et" "$T/empty.1.et"
expect_fail "empty trace" "empty.0.et" run --workload-configuration="$T/empty"
# missing rank file
cp "$T/ok.0.et" "$T/miss.0.et"
expect_fail "missing rank file" "miss.1.et|does not exist|2 NPUs" run --workload-configuration="$T/miss"
# more rank files than NPUs
for r in 0 1 2; do cp "$T/ok.0.et" "$T/many.$r.et"; done
expect_fail "more ranks than NPUs" "many.2.et|more ranks" run --workload-configuration="$T/many"
# unknown node type
"$CS_MKTRACE" --ranks "$T/unk" "1 T42" "1 COMP dur=1"
expect_fail "unknown node type" "unk.0.et|type 42|expected 0..7" run --workload-configuration="$T/unk"
# unreadable / nonexistent paths
expect_fail "nonexistent workload" "nowhere.0.et" run --workload-configuration="$T/nowhere"
expect_fail "nonexistent network file" "nonet.yml" "$CS_BIN" run --workload-configuration="$T/ok" --network-configuration="$T/nonet.yml"
mkdir -p "$T/dir.0.et"; cp "$T/ok.1.et" "$T/dir.1.et"
expect_fail "directory as trace" "dir.0.et|directory" run --workload-configuration="$T/dir"
# data dependency on a missing node; cycle
"$CS_MKTRACE" --ranks "$T/dep" "1 COMP dur=1 data=99" "1 COMP dur=1"
expect_fail "missing data parent" "dep.0.et|node 99" run --workload-configuration="$T/dep"
"$CS_MKTRACE" --ranks "$T/cyc" "1 COMP dur=1 data=2; 2 COMP dur=1 data=1" "1 COMP dur=1"
expect_fail "dependency cycle" "cyc.0.et|cycle|1 -> 2 -> 1" run --workload-configuration="$T/cyc"
# a receive nobody sends to: deadlock, reported, not a hang
"$CS_MKTRACE" --ranks "$T/dl" "1 RECV size=8 src=1 tag=1" "1 COMP dur=1"
expect_fail "unmatched receive" "never sent|dl.0.et" run --workload-configuration="$T/dl"
# send without comm_dst (Chakra's generator writes such nodes)
"$CS_MKTRACE" --ranks "$T/nd" "1 SEND size=8" "1 COMP dur=1"
expect_fail "send without comm_dst" "nd.0.et|comm_dst" run --workload-configuration="$T/nd"
# a negative duration_micros (an unsigned field: it read as 2^64 - 1000 us)
"$CS_MKTRACE" --ranks "$T/negdur" "1 COMP dur=5; 2 COMP dur=-1000 data=1" "1 COMP dur=1"
expect_fail "negative duration_micros" "negdur.0.et: node 2 (COMP): attribute duration_micros|got -1000 (a negative duration)" \
    run --workload-configuration="$T/negdur"
# bad network values
printf 'topology: [ Ring ]\nnpus_count: [ 2 ]\nbandwidth: [ -5 ]\nlatency: [ 500 ]\n' > "$T/negbw.yml"
expect_fail "negative bandwidth" "negbw.yml|bandwidth|expected" "$CS_BIN" run --workload-configuration="$T/ok" --network-configuration="$T/negbw.yml"
printf 'topology: [ Ring ]\nnpus_count: [ 3 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' > "$T/net3.yml"
expect_fail "NPU count mismatch" "ok.2.et|3 NPUs" "$CS_BIN" run --workload-configuration="$T/ok" --network-configuration="$T/net3.yml"
# inspect on garbage
expect_fail "inspect garbage" "garbled.0.et" "$CS_BIN" inspect "$T/garbled.0.et"
finish
