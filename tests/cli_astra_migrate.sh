#!/usr/bin/env bash
# cli_astra_migrate.sh -- migrating ASTRA-sim command lines and inputs
# (docs/astra-compat.md, "Migrating from ASTRA-sim"):
#   1. --astra-binary NAME: the analytical binaries select our backends; the
#      ns-3 / HTSim ones say what to use; against --backend: an error naming
#      both; paths that suggest the other analytical backend warn;
#   2. the ns-3 / HTSim frontends' flags and files: a message saying what to
#      use instead, exit 1 (never "invalid YAML");
#   3. ASTRA-sim 1.0's JSON network: read and mapped (times worked out by hand
#      below); the same network as YAML gives byte-identical results.
. "$(dirname "$0")/lib_cli.sh"
: "${CS_MKTRACE:?}"
cd "$CS_TMP" || exit 1
run() { timeout 120 "$CS_BIN" run --quiet "$@"; }

sysjson() { # sysjson FILE NDIMS
    local impl='"ring"' i
    for ((i = 1; i < $2; i++)); do impl="$impl, \"ring\""; done
    cat > "$1" <<J
{ "scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,
  "preferred-dataset-splits": 1, "collective-optimization": "localBWAware", "local-mem-bw": 1600,
  "all-reduce-implementation": [ $impl ], "all-gather-implementation": [ $impl ],
  "reduce-scatter-implementation": [ $impl ], "all-to-all-implementation": [ $impl ] }
J
}
sysjson sys1.json 1
sysjson sys3.json 3

# ---- 1. --astra-binary ------------------------------------------------------------
# Ranks 0 and 1 each send 1 MiB to rank 2 on a Switch(4): congestion-unaware,
# each message takes 2 x 500 + 19531.25 ns alone; congestion-aware, the two
# share rank 2's link, so the results must differ between the two binaries.
printf 'topology: [ Switch ]\nnpus_count: [ 4 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' > sw4.yml
"$CS_MKTRACE" --ranks inc "1 SEND dst=2 size=1048576 tag=1" "1 SEND dst=2 size=1048576 tag=2" \
    "1 RECV src=0 size=1048576 tag=1; 2 RECV src=1 size=1048576 tag=2" "1 META" || fail "mktrace inc"
base=(--workload-configuration=inc --network-configuration=sw4.yml --system-configuration=sys1.json)
run "${base[@]}" --backend analytical --out b_un >/dev/null 2>&1
run "${base[@]}" --backend analytical-congestion --out b_aw >/dev/null 2>&1
run "${base[@]}" --astra-binary AstraSim_Analytical_Congestion_Unaware --out a_un >/dev/null 2>&1
run "${base[@]}" --astra-binary build/astra_analytical/build/bin/AstraSim_Analytical_Congestion_Aware \
    --out a_aw >/dev/null 2>&1
cmp -s b_un/ranks.csv a_un/ranks.csv && cmp -s b_un/summary.json a_un/summary.json \
    && pass "--astra-binary AstraSim_Analytical_Congestion_Unaware = --backend analytical (byte-identical)" \
    || fail "--astra-binary congestion-unaware differs from --backend analytical"
cmp -s b_aw/ranks.csv a_aw/ranks.csv && cmp -s b_aw/summary.json a_aw/summary.json \
    && pass "--astra-binary .../AstraSim_Analytical_Congestion_Aware = --backend analytical-congestion" \
    || fail "--astra-binary congestion-aware differs from --backend analytical-congestion"
# rank 2 finishes at 1000 + 19531.25 -> 20531 ns unaware (each message alone)
[ "$(sed -n 4p a_un/ranks.csv | cut -d, -f2)" = 20531 ] && ! cmp -s a_un/ranks.csv a_aw/ranks.csv \
    && pass "the two binaries differ where the congestion model matters (unaware: 20531 ns)" \
    || fail "binaries: $(sed -n 4p a_un/ranks.csv) vs $(sed -n 4p a_aw/ranks.csv)"
run "${base[@]}" --astra-binary AnalyticalAstra --backend analytical >/dev/null 2>&1 \
    && pass "--astra-binary and --backend naming the same backend" || fail "same backend refused"
expect_fail "--astra-binary against --backend" \
    "--astra-binary AstraSim_Analytical_Congestion_Aware selects --backend analytical-congestion|but --backend flow was given" \
    run "${base[@]}" --astra-binary AstraSim_Analytical_Congestion_Aware --backend flow
expect_fail "--astra-binary against --set run.backend" "--astra-binary AstraSim_Analytical_Congestion_Unaware|--set run.backend=packet" \
    run "${base[@]}" --set run.backend=packet --astra-binary=AstraSim_Analytical_Congestion_Unaware
expect_fail "--astra-binary ns-3" "--astra-binary ns3.42-AstraSimNetwork-default|ns-3|--backend packet|--backend flow|--topology" \
    run "${base[@]}" --astra-binary ns3.42-AstraSimNetwork-default
expect_fail "--astra-binary AstraSim_NS3" "ns-3|--backend packet" run "${base[@]}" --astra-binary AstraSim_NS3
expect_fail "--astra-binary HTSim" "--astra-binary AstraSim_HTSim|HTSim|--backend packet|--backend flow" \
    run "${base[@]}" --astra-binary AstraSim_HTSim
expect_fail "--astra-binary unknown" "--astra-binary Foo|AstraSim_Analytical_Congestion_Unaware|AstraSim_Analytical_Congestion_Aware" \
    run "${base[@]}" --astra-binary Foo
expect_fail "collective --astra-binary against --backend" "--astra-binary AstraCongestion|--backend analytical was given" \
    "$CS_BIN" collective --network-configuration=sw4.yml --astra-binary AstraCongestion --backend analytical --quiet
"$CS_BIN" collective --network-configuration=sw4.yml --system-configuration=sys1.json --astra-binary AstraCongestion \
    -b 1M -e 1M --quiet >/dev/null 2>&1 && pass "collective accepts --astra-binary" || fail "collective --astra-binary"
# file names that suggest the other backend: a warning, not a failure
mkdir -p ex/congestion_aware ex/congestion_unaware
cp sw4.yml ex/congestion_aware/net.yml
cp sw4.yml ex/congestion_unaware/net.yml
if run --workload-configuration=inc --network-configuration=ex/congestion_aware/net.yml \
       --system-configuration=sys1.json 2>w1.txt; then
    grep -q "warning: --network-configuration ex/congestion_aware/net.yml: the path suggests ASTRA-sim's congestion-aware backend" w1.txt \
        && grep -q "use --backend analytical-congestion" w1.txt \
        && pass "a congestion_aware path on the congestion-unaware backend warns" || fail "no hint: $(cat w1.txt)"
else fail "hint run failed: $(cat w1.txt)"; fi
run --workload-configuration=inc --network-configuration=ex/congestion_unaware/net.yml \
    --system-configuration=sys1.json --astra-binary AstraSim_Analytical_Congestion_Aware 2>w2.txt \
    && grep -q "suggests ASTRA-sim's congestion-unaware backend.*use --backend analytical " w2.txt \
    && pass "a congestion_unaware path on the congestion-aware backend warns" || fail "no reverse hint: $(cat w2.txt)"
run --workload-configuration=inc --network-configuration=ex/congestion_aware/net.yml --system-configuration=sys1.json \
    --backend analytical-congestion 2>w3.txt && ! grep -q "suggests" w3.txt \
    && pass "no hint when the path and the backend agree" || fail "spurious hint: $(cat w3.txt)"

# ---- 2. ns-3 and HTSim flags and files ------------------------------------------------
expect_fail "--logical-topology-configuration" \
    "--logical-topology-configuration|ns-3|--network-configuration|--backend packet|docs/topology.md" \
    run "${base[@]}" --logical-topology-configuration=sample_8nodes_1D.json
expect_fail "--htsim_opts" "--htsim_opts|HTSim|--backend packet" run "${base[@]}" --htsim_opts
# an ns-3 config.txt (the shape of astra-network-ns3's scratch/config/config.txt)
printf 'ENABLE_QCN 1\nUSE_DYNAMIC_PFC_THRESHOLD 1\n\nPACKET_PAYLOAD_SIZE 1000\n\nTOPOLOGY_FILE ../topology/t.txt\nCC_MODE 12\nRATE_AI 50Mb/s\n' > config.txt
expect_fail "ns-3 config.txt as the network" \
    "config.txt:1: ENABLE_QCN|ns-3 network configuration|--backend packet|--topology FILE|docs/topology.md" \
    run --workload-configuration=inc --network-configuration=config.txt
# an ns-3 topology file: "nodes switches links", switch ids, then "a b rate delay error"
printf '5 1 4\n4\n0 4 400Gbps 0.0005ms 0\n1 4 400Gbps 0.0005ms 0\n2 4 400Gbps 0.0005ms 0\n3 4 400Gbps 0.0005ms 0\n' > topo.txt
expect_fail "ns-3 topology as the network" "topo.txt:1:|ns-3 topology file|line 3|edges" \
    run --workload-configuration=inc --network-configuration=topo.txt
printf 'Nodes 8\nTiers 3\nPodsize 4\n\nTier 0\nDownlink_speed_Gbps 200\n' > 8nodes.topo
expect_fail "HTSim .topo as the network" "8nodes.topo:1: Nodes, Tiers|HTSim topology|--backend packet" \
    run --workload-configuration=inc --network-configuration=8nodes.topo
printf '{\n    "logical-dims": ["8"]\n}\n' > logical.json
expect_fail "ns-3 logical topology as the network" "logical.json:2: logical-dims|--logical-topology-configuration|npus_count" \
    run --workload-configuration=inc --network-configuration=logical.json
expect_fail "a system JSON as the network" "sys1.json:1: scheduling-policy|system configuration|--system-configuration" \
    run --workload-configuration=inc --network-configuration=sys1.json
for f in config.txt topo.txt 8nodes.topo logical.json; do
    run --workload-configuration=inc --network-configuration=$f 2>&1 | grep -qi "yaml syntax\|expected valid YAML\|expected a mapping" \
        && fail "$f: a YAML message" || pass "$f: no YAML parse message"
done

# ---- 3. ASTRA-sim 1.0 JSON networks -------------------------------------------------
# One 1 MiB message from rank 0 to rank D in one dimension; 1.0's time
# (HierarchicalTopology::send) is hops x link-latency + bytes / (link-bandwidth
# x factor) + 2 x nic-latency (+ router-latency on a Switch); 25 GB/s x 2 links
# = 50 GB/s = 53.6870912 bytes/ns: 1048576 bytes take 19531.25 ns.
p2p() { # p2p PREFIX NRANKS DST
    local specs=() r
    for ((r = 0; r < $2; r++)); do
        if [ $r -eq 0 ]; then specs+=("1 SEND dst=$3 size=1048576 tag=1")
        elif [ $r -eq "$3" ]; then specs+=("1 RECV src=0 size=1048576 tag=1")
        else specs+=("1 META"); fi
    done
    "$CS_MKTRACE" --ranks "$1" "${specs[@]}" || fail "mktrace $1"
}
v1() { # v1 FILE TOPO UNITS LINKS NIC ROUTER
    cat > "$1" <<J
{
  "topology-name": "Hierarchical",
  "topologies-per-dim": ["$2"],
  "dimension-type": ["N"],
  "dimensions-count": 1,
  "units-count": [$3],
  "links-count": [$4],
  "link-latency": [500],
  "link-bandwidth": [25],
  "nic-latency": [$5],
  "router-latency": [$6],
  "hbm-latency": [500],
  "hbm-bandwidth": [370],
  "hbm-scale": [0]
}
J
}
p2p fc 4 3
p2p rg 8 3
# FullyConnected(4), 6 links = 2 per peer: 1 hop: 500 + 2 x 100 + 19531.25 = 20231.25 -> 20231 ns
v1 fc.json FullyConnected 4 6 100 0
# Switch(4), 2 links: 2 hops: 2 x 500 + 2 x 100 + 50 + 19531.25 = 20781.25 -> 20781 ns
v1 sw.json Switch 4 2 100 50
# Ring(8), 2 links: 0 -> 3 is 3 hops: 3 x 500 + 19531.25 = 21031.25 -> 21031 ns (router-latency: no effect on a Ring)
v1 rg.json Ring 8 2 0 40
for c in "fc fc.json 20231" "fc sw.json 20781" "rg rg.json 21031"; do
    set -- $c
    if run --workload-configuration=$1 --network-configuration=$2 --system-configuration=sys1.json --out o_$2 2>e_$2.txt; then
        got=$(tail -n +2 o_$2/ranks.csv | cut -d, -f2 | sort -n | tail -1)
        [ "$got" = "$3" ] && pass "1.0 JSON $2: the message takes $3 ns as in ASTRA-sim 1.0" || fail "1.0 JSON $2: got $got, expected $3"
    else fail "1.0 JSON $2: $(cat e_$2.txt)"; fi
done
grep -q "ignored: dimension-type.*hbm-latency, hbm-bandwidth" e_fc.json.txt \
    && pass "keys with no equivalent warn" || fail "no warning for ignored keys: $(cat e_fc.json.txt)"
grep -q "router-latency on Ring" e_rg.json.txt && pass "router-latency on a Ring warns" || fail "router-latency: $(cat e_rg.json.txt)"

# The same network as 1.0 JSON and as YAML: byte-identical results (32 ranks, ring
# all-reduce over Ring(2) x FullyConnected(8) x Switch(2); the YAML's bandwidths
# are link-bandwidth x factor: 250 x 2, 25 x 7/7, 12.5 x 1).
cat > rfs.json <<'J'
{
  "topology-name": "Hierarchical",
  "topologies-per-dim": ["Ring", "FullyConnected", "Switch"],
  "dimension-type": ["N", "N", "P"],
  "dimensions-count": 3,
  "units-count": [2, 8, 2],
  "links-count": [2, 7, 1],
  "link-latency": [500, 500, 500],
  "link-bandwidth": [250, 25, 12.5],
  "nic-latency": [0, 0, 0],
  "router-latency": [0, 0, 0],
  "hbm-latency": [500, 500, 500],
  "hbm-bandwidth": [370, 370, 370],
  "hbm-scale": [0, 0, 0]
}
J
printf 'topology: [ Ring, FullyConnected, Switch ]\nnpus_count: [ 2, 8, 2 ]\nbandwidth: [ 500, 25, 12.5 ]\nlatency: [ 500, 500, 500 ]\n' > rfs.yml
specs=()
for ((r = 0; r < 32; r++)); do specs+=("1 COMP dur=5; 2 COLL ctype=0 size=4194304 data=1; 3 COMP dur=3 data=2"); done
"$CS_MKTRACE" --ranks ar32 "${specs[@]}" || fail "mktrace ar32"
for n in rfs.json rfs.yml; do
    run --workload-configuration=ar32 --network-configuration=$n --system-configuration=sys3.json --out o_$n 2>/dev/null \
        || fail "run $n"
done
cmp -s o_rfs.json/ranks.csv o_rfs.yml/ranks.csv && cmp -s o_rfs.json/collectives.csv o_rfs.yml/collectives.csv \
    && pass "1.0 JSON and YAML: byte-identical ranks.csv and collectives.csv" || fail "1.0 JSON and YAML differ"
sed 's/rfs\.json/NET/g' o_rfs.json/summary.json > s1.json
sed 's/rfs\.yml/NET/g' o_rfs.yml/summary.json > s2.json
cmp -s s1.json s2.json && pass "1.0 JSON and YAML: summary.json identical but for the file's name" \
    || fail "summary.json differs: $(diff s1.json s2.json | head -5)"
# the effective scenario is the YAML's keys
run --workload-configuration=ar32 --network-configuration=rfs.json --system-configuration=sys3.json \
    --dump-scenario d.json 2>/dev/null
tr -d ' \n' < d.json | grep -q '"network":{[^}]*"bandwidth":\[500\.0*,25\.0*,12\.5\]' \
    && pass "the dumped scenario holds the mapped bandwidths" || fail "dump: $(grep -A6 '"network"' d.json)"

# What cannot be mapped is refused, naming the key
v1 nic8.json Ring 8 2 10 0
expect_fail "1.0: nic-latency on a Ring of 8" "nic8.json:10: nic-latency|dimension 0|Ring of 8" \
    run --workload-configuration=rg --network-configuration=nic8.json
sed 's/"hbm-scale": \[0\]/"hbm-scale": [1.5]/' fc.json > hbm.json
expect_fail "1.0: hbm-scale" "hbm.json:14: hbm-scale|expected 0" run --workload-configuration=fc --network-configuration=hbm.json
v1 odd.json Ring 8 1 0 0
expect_fail "1.0: one link on a Ring" "odd.json:7: links-count|factor would be 0" \
    run --workload-configuration=rg --network-configuration=odd.json
printf '{\n  "topology-name": "Torus2D",\n  "dims-count": 1,\n  "nodes-per-dim": 9\n}\n' > torus.json
expect_fail "1.0: the oldest Torus2D form" "torus.json:2: topology-name|Hierarchical|\"Torus2D\"" \
    run --workload-configuration=rg --network-configuration=torus.json
sed 's/"units-count": \[4\]/"units-count": [4, 2]/' fc.json > len.json
expect_fail "1.0: a list of the wrong length" "len.json:6: units-count|expected a list of 1 numbers" \
    run --workload-configuration=fc --network-configuration=len.json
printf '{ "topology-name": "Hierarchical", "dimensions-count": 1, "units-count": [4,, }\n' > bad.json
expect_fail "1.0: a JSON syntax error" "bad.json:1" run --workload-configuration=fc --network-configuration=bad.json

# docs/examples.md: examples/astra1_network, the 1.0 file and its YAML
EX="$(cd "$(dirname "$0")/../examples/astra1_network" && pwd)"
"$CS_MKTRACE" regen.et "1 COLL ctype=0 size=67108864" && cmp -s regen.et "$EX/allreduce_64m.et" \
    && pass "examples/astra1_network/allreduce_64m.et regenerates identically" || fail "allreduce_64m.et regenerates"
for n in network_v1.json network.yml; do
    run --workload-configuration="$EX/allreduce_64m.et" --network-configuration="$EX/$n" \
        --system-configuration="$EX/system.json" --out ex_$n 2>/dev/null || fail "example $n"
done
cmp -s ex_network_v1.json/ranks.csv ex_network.yml/ranks.csv && cmp -s ex_network_v1.json/collectives.csv ex_network.yml/collectives.csv \
    && grep -q '"sim_time_ns": 2319148,' ex_network_v1.json/summary.json \
    && pass "examples/astra1_network: JSON and YAML identical, 2.319 ms" || fail "examples/astra1_network: $(grep sim_time_ns ex_*/summary.json)"
sed 's/bandwidth:  \[ 500,/bandwidth:  [ 250,/' "$EX/network.yml" > naive.yml
run --workload-configuration="$EX/allreduce_64m.et" --network-configuration=naive.yml \
    --system-configuration="$EX/system.json" --json naive.json 2>/dev/null
grep -q '"sim_time_ns": 2350398,' naive.json && pass "without 1.0's links factor: 2,350,398 ns (docs/examples.md)" \
    || fail "naive: $(grep sim_time_ns naive.json)"
finish
