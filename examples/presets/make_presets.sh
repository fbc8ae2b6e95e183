#!/usr/bin/env bash
# make_presets.sh -- writes every system preset of examples/presets/ from one
# table of hardware specifications and ONE set of efficiency parameters
# (examples/presets/README.md gives the public source of every number;
# docs/presets.md the collective tables).  Usage: make_presets.sh [OUTDIR]
# (default: the directory of this script).  tests/cli_presets.sh checks that
# the committed files are this script's exact output.
set -eu
OUT=${1:-$(cd "$(dirname "$0")" && pwd)}

# ---- the one set of efficiency parameters (NCCL's model, every system) ----
# Per-GPU NVLink bandwidth = NVLink links x NCCL's per-link figure for the
# generation (NCCL src/graph/topo.h:21-24: SM80 20.0, SM90 20.6, SM100 40.1
# GB/s), the nChannels x bwIntra NCCL's tuning model starts from; NIC
# bandwidth = line rate / 8 (NCCL src/graph/topo.cc:418, bw = Mb/s / 8000);
# ring Simple bus bandwidth = that bandwidth, no further factor
# (src/graph/tuning.cc:321-337 refines LL, LL128, Tree, NVLS, not Ring
# Simple).  Per ring step NCCL's Ring/Simple hwLat: NVLink 3.4 us, NET 14 us
# (tuning.cc:150-175): 3.4 us endpoint delay on every step plus, on the
# network dimension, the remaining 10.6 us as 2 hops x 5.3 us.  The reduction
# is fused into the copy (no separate pass): local-mem-bw 1e12 GB/s makes the
# astra model's 3 x trunc(m / local-mem-bw) zero for every message below 1 TB.
# One chunk (preferred-dataset-splits 1), localBWAware, LIFO.
ENDPOINT_DELAY_NS=3400
NET_HOP_LATENCY_NS=5300
NVLINK_HOP_LATENCY_NS=0
LOCAL_MEM_BW=1e12

# GB/s (1e9 B/s) -> the file's GB/s, which clustersim (as ASTRA-sim) reads as GiB/s.
gib() { awk -v g="$1" 'BEGIN { printf "%.10g", g * 1e9 / 1073741824 }'; }

# ---- the systems: name  GPUs-per-domain  NVLink-links  NCCL-per-link-GB/s  NIC-Gb/s  nccl-arch  NVLS
#      host-CPU (nccl-cpu, NCCL's multi-node cpuVendor: the DGX of the same GPUs; grace = Arm, not modelled)  title
SYSTEMS='
dgx_a100    8  12 20.0 200 ampere    false amd   DGX A100: 8 x A100 SXM4 80GB, NVLink 3 (12 links) through 6 NVSwitch gen2, 8 x 200 Gb/s HDR InfiniBand
hgx_h100    8  18 20.6 400 hopper    true  intel HGX H100: 8 x H100 SXM5, NVLink 4 (18 links) through 4 NVSwitch gen3, 8 x 400 Gb/s NDR InfiniBand
hgx_h200    8  18 20.6 400 hopper    true  intel HGX H200: 8 x H200 SXM5, NVLink 4 (18 links) through 4 NVSwitch gen3, 8 x 400 Gb/s NDR InfiniBand
hgx_b200    8  18 40.1 400 blackwell true  intel HGX B200: 8 x B200, NVLink 5 (18 links) through 2 NVLink 5 switch chips, 8 x 400 Gb/s NDR InfiniBand
gb200_nvl72 72 18 40.1 400 blackwell true  grace GB200 NVL72: 72 x B200 (36 Grace CPUs) in one NVLink 5 domain through 18 NVLink switch chips, 72 x 400 Gb/s NDR InfiniBand
'
# multi-node presets: system  servers
MULTI='
dgx_a100 4
dgx_a100 32
hgx_h100 4
hgx_h100 32
hgx_h200 4
hgx_h200 32
hgx_b200 4
hgx_b200 32
gb200_nvl72 4
'

astra_system() { # $1 = dimensions
    local impl='"ring"' a2a='"direct"'
    [ "$1" = 2 ] && impl='"ring", "ring"' && a2a='"direct", "direct"'
    cat <<EOF
{
    "scheduling-policy": "LIFO",
    "endpoint-delay": $ENDPOINT_DELAY_NS,
    "active-chunks-per-dimension": 1,
    "preferred-dataset-splits": 1,
    "all-reduce-implementation": [ $impl ],
    "all-gather-implementation": [ $impl ],
    "reduce-scatter-implementation": [ $impl ],
    "all-to-all-implementation": [ $a2a ],
    "collective-optimization": "localBWAware",
    "local-mem-bw": $LOCAL_MEM_BW
}
EOF
}

# $1 = dimensions, $2 = arch, $3 = nvls, $4 = the host CPU (multi-node only: NCCL's tuning reads it across nodes),
# $5 = sharp: CollNet on (nccl-collnet, NCCL_COLLNET_ENABLE=1 with the SHARP plugin)
nccl_system() {
    local a2a='"direct"' cpuline=""
    [ "$1" = 2 ] && a2a='"direct", "direct"'
    [ -n "${4:-}" ] && cpuline="
    \"nccl-cpu\": \"$4\","
    [ "${5:-}" = sharp ] && cpuline="$cpuline
    \"nccl-collnet\": true,"
    cat <<EOF
{
    "scheduling-policy": "LIFO",
    "endpoint-delay": 10,
    "active-chunks-per-dimension": 1,
    "preferred-dataset-splits": 1,
    "all-to-all-implementation": [ $a2a ],
    "collective-optimization": "baseline",
    "local-mem-bw": $LOCAL_MEM_BW,
    "collective-model": "nccl",
    "nccl-arch": "$2",
    "nccl-channels": 16,
    "nccl-nvls": $3,$cpuline
    "communicator-queues": "per-communicator"
}
EOF
}

lookup() { echo "$SYSTEMS" | awk -v n="$1" '$1 == n'; }

echo "$SYSTEMS" | while read -r name g links perlink nic arch nvls cpu title; do
    [ -n "$name" ] || continue
    nvl=$(awk -v l="$links" -v p="$perlink" 'BEGIN { printf "%.10g", l * p }')
    d="$OUT/$name"
    mkdir -p "$d"
    cat >"$d/network.yml" <<EOF
# $title
# One node: its NVLink domain as one Switch of $g GPUs (examples/presets/README.md
# gives every number's source; docs/presets.md the collective table).
# bandwidth: $links NVLink links x NCCL's $perlink GB/s per link = $nvl GB/s per GPU per direction,
#   written as $(gib "$nvl") because GB/s here means GiB/s ($(gib "$nvl") x 2^30 / 1e9 = $nvl bytes/ns).
# latency: $NVLINK_HOP_LATENCY_NS -- NCCL's per-step hwLat (the system file's endpoint-delay) is the step's latency.
# Generated by examples/presets/make_presets.sh.
topology: [ Switch ]
npus_count: [ $g ]
bandwidth: [ $(gib "$nvl") ]
latency: [ $NVLINK_HOP_LATENCY_NS ]
EOF
    astra_system 1 >"$d/system.json"
    nccl_system 1 "$arch" "$nvls" >"$d/system_nccl.json"
done

echo "$MULTI" | while read -r sys servers; do
    [ -n "$sys" ] || continue
    read -r name g links perlink nic arch nvls cpu title <<<"$(lookup "$sys")"
    nvl=$(awk -v l="$links" -v p="$perlink" 'BEGIN { printf "%.10g", l * p }')
    nicgb=$(awk -v n="$nic" 'BEGIN { printf "%.10g", n / 8 }')
    spines=$(( g < servers ? g : servers ))
    spinebw=$(awk -v s="$servers" -v n="$nicgb" -v k="$spines" 'BEGIN { printf "%.10g", s * n / k }')
    d="$OUT/${sys}_x$servers"
    mkdir -p "$d"
    cat >"$d/network.yml" <<EOF
# $servers x $title
# = $((servers * g)) GPUs, rail-optimized: NIC i of every node on rail switch i (topology.json,
# builder rail, for --backend flow).  Logical dimensions: the $g GPUs of a node x the $servers nodes.
# (examples/presets/README.md gives every number's source; docs/presets.md the collective table.)
# dimension 0: $links NVLink links x NCCL's $perlink GB/s = $nvl GB/s per GPU, written $(gib "$nvl") (GiB/s), latency $NVLINK_HOP_LATENCY_NS.
# dimension 1: one $nic Gb/s NIC per GPU = $nicgb GB/s, written $(gib "$nicgb"); latency $NET_HOP_LATENCY_NS ns per hop x 2 hops
#   + the endpoint delay $ENDPOINT_DELAY_NS = NCCL's NET Ring/Simple hwLat, 14 us per step.
# Generated by examples/presets/make_presets.sh.
topology: [ Switch, Switch ]
npus_count: [ $g, $servers ]
bandwidth: [ $(gib "$nvl"), $(gib "$nicgb") ]
latency: [ $NVLINK_HOP_LATENCY_NS, $NET_HOP_LATENCY_NS ]
EOF
    astra_system 2 >"$d/system.json"
    cat >"$d/topology.json" <<EOF
{"builder": "rail", "servers": $servers, "gpus_per_server": $g,
 "nvlink_bandwidth": $(gib "$nvl"), "nvlink_latency": $NVLINK_HOP_LATENCY_NS,
 "nic_bandwidth": $(gib "$nicgb"), "nic_latency": $NET_HOP_LATENCY_NS,
 "spines": $spines, "spine_bandwidth": $(gib "$spinebw"), "spine_latency": $NET_HOP_LATENCY_NS}
EOF
    # collective-model nccl across nodes (docs/collectives.md, "Across nodes"): the same two dimensions with
    # both latencies 0 -- NCCL's per-step hwLat (NET Ring/Simple 14 us, ...) already is the step's latency
    # in that model, network.yml's 2 x 5.3 us would count it twice -- and the host CPU NCCL's multi-node
    # tuning reads.  Not for Grace (Arm) hosts: nccl-cpu models x86 Intel and AMD only (docs/presets.md).
    if [ "$cpu" = intel ] || [ "$cpu" = amd ]; then
        cat >"$d/network_nccl.yml" <<EOF
# $servers x $title
# for collective-model nccl (system_nccl.json): network.yml's two dimensions with both latencies 0,
# since NCCL's per-step hwLat (NET Ring/Simple 14 us) is the step's latency in that model
# (docs/collectives.md, "Across nodes").  dimension 0: $nvl GB/s per GPU (NVLink);
# dimension 1: one $nicgb GB/s NIC per GPU, NIC i of every node on rail i.
# Generated by examples/presets/make_presets.sh.
topology: [ Switch, Switch ]
npus_count: [ $g, $servers ]
bandwidth: [ $(gib "$nvl"), $(gib "$nicgb") ]
latency: [ 0, 0 ]
EOF
        nccl_system 2 "$arch" "$nvls" "$cpu" >"$d/system_nccl.json"
        # the same with SHARP: every fabric here is InfiniBand, whose switches reduce in-network (Quantum HDR:
        # SHARPv2, Quantum-2 NDR: SHARPv3), so NCCL with NCCL_COLLNET_ENABLE=1 and the SHARP plugin may run
        # CollNet and NVLS + SHARP across nodes (docs/collectives.md, "CollNet"); network_nccl.yml's NET
        # dimension is a Switch, the in-switch capability the model reads; no other parameter
        nccl_system 2 "$arch" "$nvls" "$cpu" sharp >"$d/system_nccl_sharp.json"
    fi
    # 32 or more 8-GPU servers: the same servers on an ordinary 2-tier Clos, NICs in GPU order filling
    # 32-port leaves (plain wiring), leaf uplinks 3:1 oversubscribed (builder servers)
    if [ "$servers" -ge 32 ] && [ "$g" -eq 8 ]; then
        cat >"$d/topology_plain_3to1.json" <<EOF
{"builder": "servers", "servers": $servers, "gpus_per_server": $g,
 "nvlink_bandwidth": $(gib "$nvl"), "nvlink_latency": $NVLINK_HOP_LATENCY_NS,
 "nic_bandwidth": $(gib "$nicgb"), "nic_latency": $NET_HOP_LATENCY_NS,
 "wiring": "plain", "nics_per_leaf": 32, "tiers": 2, "oversubscription": 3, "uplink_latency": 0}
EOF
    fi
done
