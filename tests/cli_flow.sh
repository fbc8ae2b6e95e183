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
expect_fail "topology without flow" "only --backend flow uses a topology" run --topology=ft.json --quiet
finish
