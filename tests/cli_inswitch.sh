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
# flow backend: real flows NPU -> switch, then (all in) switch -> NPU, store
# and forward at the switch: 10 + floor(500 + 19531.25) + floor(500 +
# 19531.25) + 10 = 40082 ns; each NPU-switch link carries S each way.
run --workload-configuration=c0.et --system-configuration=insw.json --backend flow --out arf
expect_num "all-reduce inSwitch, flow" "$(row arf)" "ALL_REDUCE,40082,inSwitch,8388608,8388608"
grep -q '^0,0,8,npu,switch,[0-9.]*,500.000,1,1048576,' arf/links.csv && grep -q '^1,8,0,switch,npu,[0-9.]*,500.000,1,1048576,' arf/links.csv \
    && pass "inSwitch on flow: S up and S down on each NPU link" || fail "inSwitch links: $(head -3 arf/links.csv)"
finish
