#!/usr/bin/env bash
# cli_flow.sh -- the flow backend and --topology through the program: an
# oversubscribed fat-tree slows 4 concurrent cross-leaf transfers 4x against
# the analytical backend, links.csv is written with --out, the hottest links
# are reported, and topology-file errors name file and line.
# Times (docs/topology.md): 1 MiB at 50 GB/s (GiB/s) = 19531.25 ns, latency
# 500 ns per link; 4 links NPU-leaf-spine-leaf-NPU.
. "$(dirname "$0")/lib_cli.sh"
: "${CS_MKTRACE:?}"
cd "$CS_TMP" || exit 1

M=1048576
"$CS_MKTRACE" --ranks x8 \
    "1 SEND size=$M src=0 dst=4 tag=1" "1 SEND size=$M src=1 dst=5 tag=1" \
    "1 SEND size=$M src=2 dst=6 tag=1" "1 SEND size=$M src=3 dst=7 tag=1" \
    "1 RECV size=$M src=0 dst=4 tag=1" "1 RECV size=$M src=1 dst=5 tag=1" \
    "1 RECV size=$M src=2 dst=6 tag=1" "1 RECV size=$M src=3 dst=7 tag=1" || fail "mktrace"
printf 'topology: [ Switch ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' > net.yml
printf '{"builder": "fat-tree", "npus_per_leaf": 4, "spines": 1,\n "link_bandwidth": 50, "link_latency": 500, "oversubscription": 4}\n' > ft.json
printf '{"builder": "fat-tree", "npus_per_leaf": 4, "spines": 1,\n "link_bandwidth": 50, "link_latency": 500, "oversubscription": 1}\n' > ft1.json
run() { "$CS_BIN" run --workload-configuration=x8 --network-configuration=net.yml "$@"; }

# analytical: 2 x 500 + 19531.25 -> 20531 ns each
run --quiet --json a.json 2>/dev/null && grep -q '"rank": 4, "finish_ns": 20531,' a.json \
    && pass "analytical baseline" || fail "analytical baseline"
# flow on the Switch dims: the same (no shared link)
run --quiet --backend flow --json f.json 2>/dev/null && grep -q '"rank": 4, "finish_ns": 20531,' f.json \
    && pass "flow on the network's dims agrees" || fail "flow on the network's dims: $(grep -o '"rank": 4, "finish_ns": [0-9]*' f.json)"
# fat-tree 1:1: 4 x 500 + 19531.25 -> 21531; 4:1: 2000 + 78125 = 80125
run --quiet --backend flow --topology=ft1.json --json t1.json 2>/dev/null && grep -q '"rank": 7, "finish_ns": 21531,' t1.json \
    && pass "fat-tree 1:1" || fail "fat-tree 1:1: $(grep -o '"rank": 7, "finish_ns": [0-9]*' t1.json)"
if run --backend flow --topology=ft.json --out o > rep.txt 2>err.txt; then
    grep -q '"rank": 7, "finish_ns": 80125,' o/summary.json && pass "fat-tree 4:1 uplink shared by 4" \
        || fail "fat-tree 4:1: $(grep -o '"rank": 7, "finish_ns": [0-9]*' o/summary.json)"
    head -1 o/links.csv | grep -q '^link,src,dst,src_kind,dst_kind,bandwidth_GBps,latency_ns,up,bytes,busy_ns' \
        && grep -q '^[0-9]*,8,10,switch,switch,[0-9.]*,500.000,1,4194304,' o/links.csv \
        && pass "links.csv" || fail "links.csv: $(head -3 o/links.csv)"
    grep -q 'hottest links' rep.txt && grep -q 'switch8 -> switch10' rep.txt && pass "hottest links in the report" \
        || fail "hottest links: $(cat rep.txt)"
else
    fail "fat-tree 4:1 run: $(cat err.txt)"
fi
printf '{"builder": "edges", "switches": 1,\n "edges": [[0, 8, 50, 500],\n   [1, 9, 50, 500]]}\n' > bad.json
expect_fail "edge-list error names file and line" "bad.json:3: edges[1]: node 9 does not exist" \
    run --backend flow --topology=bad.json --quiet
# A routing-table route that visits a node twice (0 -> leaf 8 -> 1 -> leaf 8 -> 1)
# is refused with file, line, route and node (it once crashed the flow backend).
printf '{"builder": "fat-tree", "npus_per_leaf": 4, "spines": 1,\n "routes": [[0, 8, 1, 8, 1]]}\n' > rep.json
expect_fail "route visiting a node twice" "rep.json:2: routes[0]: node 8 appears twice (positions 1 and 3)" \
    run --backend flow --topology=rep.json --quiet
# Counts from a typo are refused before anything is allocated (they took 2-3
# GB first); a rail of 65536 x 65536 GPUs was "0 NPUs"; duplicate cables in an
# edge list were accepted silently.
printf '{"builder": "edges", "switches": 2000000000,\n "edges": [[0, 8, 50, 500], [8, 1, 50, 500]]}\n' > many.json
expect_fail "2e9 switches" "many.json: edges: 8 NPUs + 2000000000 switches: 2000000008 nodes and 2 cables; expected at most 16777216 nodes" \
    run --backend flow --topology=many.json --quiet
printf '{"builder": "rail", "servers": 65536, "gpus_per_server": 65536, "nic_bandwidth": 50}\n' > bigrail.json
expect_fail "rail beyond 2^32 GPUs" "bigrail.json:1: the topology has 4294967296 NPUs but the network configuration net.yml has 8" \
    run --backend flow --topology=bigrail.json --quiet
printf '{"builder": "torus", "dims": [1000000000]}\n' > bigtorus.json
expect_fail "torus of 10^9" "bigtorus.json:1: the topology has 1000000000 NPUs but the network configuration net.yml has 8" \
    run --backend flow --topology=bigtorus.json --quiet
printf '{"builder": "edges", "switches": 1,\n "edges": [[0, 8, 50, 500],\n   [1, 8, 50, 500],\n   [8, 0, 25, 100]]}\n' > dupc.json
expect_fail "duplicate cable" "dupc.json:4: edges[2]: a second cable between nodes 8 and 0 (the first: edges[0], line 2)" \
    run --backend flow --topology=dupc.json --quiet
printf 'topology: [ FullyConnected ]\nnpus_count: [ 8192 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' > fc8k.yml
"$CS_MKTRACE" one.et "1 COMP dur=1" || fail "mktrace one"
expect_fail "flow on a network too big for a graph" "fc8k.yml: the graph of the network's dimensions (8192 NPUs): 8192 nodes and 33550336 cables" \
    "$CS_BIN" run --workload-configuration=one.et --network-configuration=fc8k.yml --backend flow --quiet
expect_fail "topology without flow" "ft.json: only a graph backend (flow, packet) uses a topology" run --topology=ft.json --quiet
# A link fails mid-transfer (docs/topology.md, tests/test_net_flow.c): 1 MiB
# 0 -> 1 on 0-2-1 (50 GB/s, 500 ns); cable 0-2 down at 10000 ns; the rest,
# 511705.088 B, takes the 25 GB/s detour 0-3-4-1: 19062.5 ns, ending at
# 29062.5; arrival floor(3 x 500 + 29062.5) = 30562 ns.  Healthy: 20531 ns.
"$CS_MKTRACE" --ranks x2 "1 SEND size=$M src=0 dst=1 tag=1" "1 RECV size=$M src=0 dst=1 tag=1" || fail "mktrace x2"
printf 'topology: [ Switch ]\nnpus_count: [ 2 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' > net2.yml
printf '{"builder": "edges", "switches": 3,\n "edges": [[0, 2, 50, 500], [2, 1, 50, 500], [0, 3, 25, 500], [3, 4, 25, 500], [4, 1, 25, 500]],\n "link_changes": [[10000, 0, 2, 0]]}\n' > fail.json
if "$CS_BIN" run --workload-configuration=x2 --network-configuration=net2.yml --backend flow --topology=fail.json \
        --compare-healthy --out of > frep.txt 2>ferr.txt; then
    grep -q '"rank": 1, "finish_ns": 30562,' of/summary.json && grep -q '"healthy_sim_time_ns": 20531,' of/summary.json \
        && pass "link fails at 10 us: rerouted, 30562 ns vs healthy 20531 ns" \
        || fail "timed failure: $(grep -o '"rank": 1, "finish_ns": [0-9]*\|"healthy_sim_time_ns": [0-9]*' of/summary.json)"
    grep -q 'healthy network  20.531 us' frep.txt && grep -q 'x1.4886' frep.txt && pass "slowdown in the report" \
        || fail "slowdown in the report: $(cat frep.txt)"
    grep -q '"timed_changes": 1' of/summary.json && pass "topology in summary.json" || fail "topology in summary.json"
else
    fail "timed failure run: $(cat ferr.txt)"
fi
printf '{"builder": "edges", "switches": 1,\n "edges": [[0, 2, 50, 500], [2, 1, 50, 500]],\n "link_changes": [[10, 0, 1, 0]]}\n' > badc.json
expect_fail "timed change error names file and line" "badc.json:3: link_changes[0]: no link between nodes 0 and 1" \
    "$CS_BIN" run --workload-configuration=x2 --network-configuration=net2.yml --backend flow --topology=badc.json --quiet
printf '{"builder": "edges", "switches": 1,\n "edges": [[0, 2, 50, 500], [2, 1, 50, 500]],\n "link_changes": [[10, 5e9, 1, 0]]}\n' > bigc.json
expect_fail "timed change with a node id past 2^32" "bigc.json:3: link_changes[0]: node 5000000000 does not exist (nodes 0..2)" \
    "$CS_BIN" run --workload-configuration=x2 --network-configuration=net2.yml --backend flow --topology=bigc.json --quiet
# A negative node id (a fuzzer's finding: it was converted to an unsigned id)
printf '{"builder": "edges", "switches": 1,\n "edges": [[0, 2, 50, 500], [2, 1, 50, 500]],\n "failed_switches": [-21]}\n' > negsw.json
expect_fail "negative switch id refused" "negsw.json:3: failed_switches[0]: expected a node id, got -21" \
    "$CS_BIN" run --workload-configuration=x2 --network-configuration=net2.yml --backend flow --topology=negsw.json --quiet
# An unreachable destination names both nodes (docs/topology.md), also when a
# collective's message finds no route (it said only "simulation failed"):
# NPU 1's only cable is down; a disconnected edge list.
printf '{"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,\n "preferred-dataset-splits": 1, "collective-optimization": "baseline", "local-mem-bw": 1600,\n "all-reduce-implementation": ["ring"], "all-gather-implementation": ["ring"],\n "reduce-scatter-implementation": ["ring"], "all-to-all-implementation": ["direct"]}\n' > sys.json
sed 's/"ring"\]/"inSwitch"]/' sys.json > sysin.json
printf '{"builder": "edges", "switches": 1,\n "edges": [[0, 2, 50, 500], [2, 1, 50, 500]],\n "failed_links": [[2, 1]]}\n' > cut.json
printf '{"builder": "edges", "switches": 1,\n "edges": [[0, 2, 50, 500]]}\n' > disc.json
"$CS_MKTRACE" --ranks ar2 "1 COLL ctype=0 size=$M" "1 COLL ctype=0 size=$M" || fail "mktrace ar2"
for sym in auto off; do
    expect_fail "collective without a route names both nodes (symmetry $sym)" \
        "ar2.0.et: node 1 (COMM_COLL): ALL_REDUCE of 1048576 bytes on communicator 0|transfer of 524288 bytes from rank 0 to rank 1|no route from node 0 to node 1" \
        "$CS_BIN" run --workload-configuration=ar2 --network-configuration=net2.yml --system-configuration=sys.json \
        --backend flow --topology=cut.json --symmetry $sym --quiet
done
expect_fail "in-switch collective without a route names both nodes" \
    "ar2.0.et: node 1 (COMM_COLL): ALL_REDUCE of 1048576 bytes on communicator 0|no route from node 0 to node 1" \
    "$CS_BIN" run --workload-configuration=ar2 --network-configuration=net2.yml --system-configuration=sysin.json \
    --backend flow --topology=cut.json --quiet
expect_fail "send without a route names both nodes" \
    "transfer of 1048576 bytes from rank 0 to rank 1|no route from node 0 to node 1 over the links that are up" \
    "$CS_BIN" run --workload-configuration=x2 --network-configuration=net2.yml --backend flow --topology=disc.json --quiet
expect_fail "--compare-healthy needs flow" "--compare-healthy needs something to compare|failures on a graph backend (run.backend flow)" \
    "$CS_BIN" run --workload-configuration=x2 --network-configuration=net2.yml --compare-healthy --quiet
# Placement (docs/topology.md): on the 4:1 fat-tree, strided:2 puts ranks
# 0..7 on NPUs 0 2 4 6 1 3 5 7, so the transfers 0->4, 1->5, 2->6, 3->7 run
# NPU 0->1, 2->3, 4->5, 6->7: inside a leaf, floor(2 x 500 + 19531.25) =
# 20531 ns instead of 80125.  pack with the groups {0,4} {1,5} {2,6} {3,7}
# does the same, and summary.json says each group spans 1 switch.
run --quiet --backend flow --topology=ft.json --placement=strided:2 --json s.json 2>/dev/null \
    && grep -q '"rank": 7, "finish_ns": 20531,' s.json && grep -q '"placement": "strided:2"' s.json \
    && pass "placement strided:2 keeps pairs under a leaf" || fail "strided: $(grep -o '"rank": 7, "finish_ns": [0-9]*' s.json)"
echo '{"1": [0, 4], "2": [1, 5], "3": [2, 6], "4": [3, 7]}' > pg.json
run --quiet --backend flow --topology=ft.json --placement=pack --comm-group-configuration=pg.json --json pk.json 2>/dev/null \
    && grep -q '"rank": 7, "finish_ns": 20531,' pk.json && grep -q '"placement": "pack"' pk.json \
    && tr -d ' \n' < pk.json | grep -q '"group_switches":{"1":1,"2":1,"3":1,"4":1}' \
    && pass "placement pack: each group under one leaf" || fail "pack: $(grep -o '"rank": 7, "finish_ns": [0-9]*\|group_switches.*' pk.json)"
expect_fail "unknown placement" "--placement snake: expected contiguous, random[:SEED], strided:K or pack" \
    run --backend flow --placement=snake --quiet
expect_fail "--placement needs flow" "--placement pack needs a graph backend (run.backend flow)" run --placement=pack --quiet
# Link utilization counter tracks in the --trace timeline: the 4:1 uplink
# switch8 -> switch10 carries all four flows at 100 % from 0 until the
# 4 MiB are through, 4194304 / 53.6870912 = 78125 ns = 78.125 us, then 0.
run --quiet --backend flow --topology=ft.json --trace tr.json 2>/dev/null \
    && tr -d ' \n' < tr.json | grep -q '"name":"link16switch8->switch10"' \
    && tr -d ' \n' < tr.json | grep -q '{"name":"utilization","ph":"C","pid":8,"ts":0.000000,"args":{"utilization":1.000000}}' \
    && tr -d ' \n' < tr.json | grep -q '{"name":"utilization","ph":"C","pid":8,"ts":78.125000,"args":{"utilization":0.000000}}' \
    && pass "link utilization counter tracks" || fail "counter tracks: $(grep -o '"ph":"C"[^}]*}' tr.json | head -3)"
# the physical topology against the logical dimensions: dimension 0 says NVLink (8 NPUs at 450 GB/s); a fat-tree
# gives rank 0 -> rank 1 only its 50 GB/s leaf links: warned, naming the dimension and both bandwidths; the
# "servers" builder (HGX: NVSwitch per 8 GPUs, a NIC each, rail-wired leaves) keeps the domain: no warning
cat > hgx16.yml <<'NET'
topology: [ Switch, Switch ]
npus_count: [ 8, 16 ]
bandwidth: [ 450, 50 ]
latency: [ 500, 1000 ]
NET
cat > sys2d.json <<'SYS'
{"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1, "preferred-dataset-splits": 1,
 "all-reduce-implementation": ["ring", "ring"], "all-gather-implementation": ["ring", "ring"],
 "reduce-scatter-implementation": ["ring", "ring"], "all-to-all-implementation": ["ring", "ring"],
 "collective-optimization": "baseline", "local-mem-bw": 1600}
SYS
"$CS_MKTRACE" ar.et "1 COLL ctype=0 size=1048576" || fail "mktrace ar"
printf '{"builder": "fat-tree", "npus_per_leaf": 8, "spines": 4, "link_bandwidth": 50, "link_latency": 1000}\n' > ft128.json
printf '{"builder": "servers", "servers": 16, "nics_per_leaf": 16}\n' > srv.json
HG=(run --workload-configuration=ar.et --network-configuration=hgx16.yml --system-configuration=sys2d.json --backend flow --quiet)
"$CS_BIN" "${HG[@]}" --topology ft128.json 2> w1 || fail "fat-tree run: $(cat w1)"
grep -q "hgx16.yml: dimension 0 (Switch of 8 NPUs, 450 GB/s) but the topology's route from rank 0 to rank 1 (its neighbour in that dimension) has a bottleneck of 50 GB/s" w1 &&
    ! grep -q "dimension 1" w1 && pass "a fat-tree under an NVLink dimension is warned about (dimension 0 only)" ||
    fail "dimension warning: $(cat w1)"
"$CS_BIN" "${HG[@]}" --topology srv.json 2> w2 || fail "servers run: $(cat w2)"
grep -q "contradicts" w2 && fail "servers topology warned: $(cat w2)" || pass "the servers builder keeps the scale-up domain: no warning"
# the servers builder's cross-key errors name the file and the key
printf '{"builder": "servers", "servers": 16, "tiers": 4}\n' > srv_t4.json
expect_fail "servers: tiers" "srv_t4.json:1: servers: tiers 4: expected 2 or 3" "$CS_BIN" "${HG[@]}" --topology srv_t4.json
printf '{"builder": "servers", "gpus_per_server": 6}\n' > srv_g6.json
expect_fail "servers: whole servers" "srv_g6.json:1: servers: the network's 128 NPUs are not a whole number of servers of 6 GPUs" \
    "$CS_BIN" "${HG[@]}" --topology srv_g6.json
printf '{"builder": "servers", "servers": 16, "oversubscription": 0.5}\n' > srv_o.json
expect_fail "servers: oversubscription" "srv_o.json:1: servers: oversubscription and core_oversubscription: expected 1 or more" \
    "$CS_BIN" "${HG[@]}" --topology srv_o.json
finish
