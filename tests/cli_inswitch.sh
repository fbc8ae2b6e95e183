#!/usr/bin/env bash
# cli_inswitch.sh -- in-switch collectives ("inSwitch" in the
# *-implementation lists; src/system/algo_inswitch.c, docs/collectives.md):
# times worked out by hand, the traffic cut against ring, and the errors.
# Switch(8), 50 GB/s (53.6870912 B/ns), 500 ns, endpoint-delay 10 ns, one
# chunk (preferred-dataset-splits 1), S = 1 MiB:
#   all-reduce     10 + floor(2 x 500 + 1048576 / 53.6870912) + 10
#                = 10 + floor(1000 + 19531.25) + 10 = 20551 ns
#   reduce-scatter up S, down S/8: the same 20551 ns
#   all-gather     up S, down 7 S (own shard stays): 10 + floor(1000 +
#                  136718.75) + 10 = 137738 ns
#   bytes sent: inSwitch all-reduce S per NPU = 8388608 in all; ring
#   2 (n-1)/n S per NPU = 14680064 (x 1.75 = 2(n-1)/n).
. "$(dirname "$0")/lib_cli.sh"
: "${CS_MKTRACE:?}"
cd "$CS_TMP" || exit 1

printf 'topology: [ Switch ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' > n8.yml
sysjson() { # $1 = algorithm for all-reduce / all-gather / reduce-scatter
    printf '{"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,\n'
    printf ' "preferred-dataset-splits": 1, "all-reduce-implementation": ["%s"],\n' "$1"
    printf ' "all-gather-implementation": ["%s"], "reduce-scatter-implementation": ["%s"],\n' "$1" "$1"
    printf ' "all-to-all-implementation": ["%s"], "collective-optimization": "baseline", "local-mem-bw": 1600}\n' "$1"
}
sysjson inSwitch > insw.json
sysjson ring > ring.json
for c in 0 2 7; do "$CS_MKTRACE" c$c.et "1 COLL ctype=$c size=1048576" || fail "mktrace $c"; done
expect_num() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: got \"$2\", expected \"$3\""; fi; }
row() { sed -n 2p "$1/collectives.csv" | cut -d, -f2,11,16,17,18; }
run() { "$CS_BIN" run --network-configuration=n8.yml --quiet "$@" 2>err.txt || fail "run $*: $(cat err.txt)"; }

run --workload-configuration=c0.et --system-configuration=insw.json --out ar
expect_num "all-reduce inSwitch" "$(row ar)" "ALL_REDUCE,20551,inSwitch,8388608,8388608"
run --workload-configuration=c7.et --system-configuration=insw.json --out rs
expect_num "reduce-scatter inSwitch" "$(row rs)" "REDUCE_SCATTER,20551,inSwitch,8388608,1048576"
run --workload-configuration=c2.et --system-configuration=insw.json --out ag
expect_num "all-gather inSwitch" "$(row ag)" "ALL_GATHER,137738,inSwitch,8388608,58720256"
run --workload-configuration=c0.et --system-configuration=ring.json --out ring
expect_num "ring all-reduce sends 2(n-1)/n S per NPU" "$(sed -n 2p ring/collectives.csv | cut -d, -f16,17)" "ring,14680064"
run --workload-configuration=c0.et --system-configuration=insw.json --backend analytical-congestion --out arc
expect_num "all-reduce inSwitch, analytical-congestion" "$(row arc)" "ALL_REDUCE,20551,inSwitch,8388608,8388608"

# Four chunks at once (preferred-dataset-splits 4, active-chunks 4), each 262144 bytes: every NPU's link to the
# switch carries them one after another on analytical-congestion (booked FIFO links, cut-through kept): chunk k's
# contributions start when the up link is free, 10 + 4882 k ns (floor(262144 / 53.6870912) = 4882); the last, at
# 14656, arrives back at 14656 + floor(1000 + 4882.8125) = 20538, + 10 = 20548 ns; 1 MiB up per NPU in 20548 ns is
# 51.0 B/ns, under the link's 53.69.  The congestion-unaware backend lets the four share nothing: 5902 ns, 177.7
# B/ns on a 53.69 B/ns link -- which is why it is congestion-unaware (ASTRA-sim's analytical semantics).
sed 's/"active-chunks-per-dimension": 1/"active-chunks-per-dimension": 4/; s/"preferred-dataset-splits": 1/"preferred-dataset-splits": 4/' insw.json > insw4.json
run --workload-configuration=c0.et --system-configuration=insw4.json --backend analytical-congestion --out arc4
expect_num "4 chunks inSwitch, analytical-congestion: the NPU links in turn" "$(row arc4)" "ALL_REDUCE,20548,inSwitch,8388608,8388608"
awk -F, 'NR == 2 { exit !(1048576 / $11 <= 53.6870912) }' arc4/collectives.csv && pass "no NPU link above its bandwidth" ||
    fail "a link above its bandwidth: $(sed -n 2p arc4/collectives.csv)"
run --workload-configuration=c0.et --system-configuration=insw4.json --out ar4
expect_num "4 chunks inSwitch, congestion-unaware: no sharing" "$(row ar4)" "ALL_REDUCE,5902,inSwitch,8388608,8388608"

# Two Switch dimensions, 4 x 2, 100 GB/s 500 ns and 50 GB/s 1000 ns:
# dimension 0: 10 + floor(1000 + 1048576 / 107.3741824 = 9765.625) + 10 = 10785;
# dimension 1: 10 + floor(2000 + 19531.25) + 10 = 21551; in all 32336 ns.
printf 'topology: [ Switch, Switch ]\nnpus_count: [ 4, 2 ]\nbandwidth: [ 100, 50 ]\nlatency: [ 500, 1000 ]\n' > n42.yml
sed 's/\["inSwitch"\]/["inSwitch", "inSwitch"]/g' insw.json > insw2.json
"$CS_BIN" run --network-configuration=n42.yml --workload-configuration=c0.et --system-configuration=insw2.json \
    --quiet --out two 2>err.txt || fail "2-D: $(cat err.txt)"
expect_num "all-reduce inSwitch over two Switch dimensions" "$(row two)" "ALL_REDUCE,32336,inSwitch;inSwitch,16777216,16777216"

printf 'topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' > r8.yml
expect_fail "inSwitch needs a Switch dimension" "inSwitch all-reduce on Ring; expected all-reduce, reduce-scatter or all-gather on a Switch dimension" \
    "$CS_BIN" run --network-configuration=r8.yml --workload-configuration=c0.et --system-configuration=insw.json --quiet
"$CS_MKTRACE" c6.et "1 COLL ctype=6 size=1048576" || fail "mktrace 6"
expect_fail "inSwitch all-to-all refused" "inSwitch all-to-all on all-to-all" \
    "$CS_BIN" run --network-configuration=n8.yml --workload-configuration=c6.et --system-configuration=insw.json --quiet
# flow backend: real flows NPU -> switch and switch -> NPU, cut-through at
# the switch: the result flows start a latency after the line's last
# contribution started (its first bytes are in) and a result counts a
# latency after the line's last contribution has arrived at the earliest.
# Uncontended: contributions leave at 10, arrive at 10 + floor(500 +
# 19531.25) = 20041; results leave at 510 and arrive at 510 + 20031 = 20541
# = 20041 + 500; + 10 = 20551 ns, the closed form of the analytical
# backends (before, store-and-forward: 40082); reduce-scatter and
# all-gather likewise; each NPU-switch link carries S each way.
run --workload-configuration=c0.et --system-configuration=insw.json --backend flow --out arf
expect_num "all-reduce inSwitch, flow" "$(row arf)" "ALL_REDUCE,20551,inSwitch,8388608,8388608"
run --workload-configuration=c7.et --system-configuration=insw.json --backend flow --out rsf
expect_num "reduce-scatter inSwitch, flow" "$(row rsf)" "REDUCE_SCATTER,20551,inSwitch,8388608,1048576"
run --workload-configuration=c2.et --system-configuration=insw.json --backend flow --out agf
expect_num "all-gather inSwitch, flow" "$(row agf)" "ALL_GATHER,137738,inSwitch,8388608,58720256"
run --workload-configuration=c0.et --system-configuration=insw4.json --backend flow --out arf4
awk -F, 'NR == 2 { exit !(1048576 / $11 <= 53.6870912) }' arf4/collectives.csv && pass "flow, 4 chunks: no NPU link above its bandwidth" ||
    fail "flow, 4 chunks: a link above its bandwidth: $(sed -n 2p arf4/collectives.csv)"
grep -q '^0,0,8,npu,switch,[0-9.]*,500.000,1,1048576,' arf/links.csv && grep -q '^1,8,0,switch,npu,[0-9.]*,500.000,1,1048576,' arf/links.csv \
    && pass "inSwitch on flow: S up and S down on each NPU link" || fail "inSwitch links: $(head -3 arf/links.csv)"
finish
