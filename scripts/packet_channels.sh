#!/usr/bin/env bash
# packet_channels.sh -- what NCCL's channels as connections of their own
# change on the packet backend (backend.packet.channels; docs/network.md,
# "NCCL channels").  16 HGX-like servers of 8 H100s (NVSwitch 450 GB/s, one
# 50 GB/s NIC per GPU; `servers` builder, 2 tiers), one 256 MiB all-reduce
# under the nccl collective model (examples/hgx_h100_nccl), leaves wired
# rail (1:1) or plain (a server's 8 NICs on one leaf; 1:1 and 3:1 uplinks):
# packet and flow with channels `connections` (the default: nccl-channels
# 16 / 8 GPUs = 2 flows per message) and `merged` (one), and the analytical
# backend (no physical topology) for reference.  Prints the time
# of the collective (us) per run; about 30 CPU-s.
#   usage: scripts/packet_channels.sh [CLUSTERSIM]
set -eu
BIN=${1:-build/clustersim}
E=$(cd "$(dirname "$0")/../examples/hgx_h100_nccl" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
printf 'topology: [ Switch, Switch ]\nnpus_count: [ 8, 16 ]\nbandwidth: [ 450, 50 ]\nlatency: [ 500, 1000 ]\n' > "$TMP/n128.yml"
topo() { printf '{"builder": "servers", "servers": 16, "wiring": "%s", "nics_per_leaf": 8, "oversubscription": %s}\n' "$1" "$2"; }
topo rail 1 > "$TMP/rail1.json"
topo plain 1 > "$TMP/plain1.json"
topo plain 3 > "$TMP/plain3.json"
one() { # label, options...
    local label=$1
    shift
    local us
    us=$("$BIN" collective --network-configuration="$TMP/n128.yml" --system-configuration="$E/system_multinode.json" \
        --min 256MiB --max 256MiB "$@" --quiet --out "$TMP/c.csv" > /dev/null && tail -1 "$TMP/c.csv" | cut -d, -f6)
    printf '%-34s %12s us\n' "$label" "$us"
}
for t in rail1 plain1 plain3; do
    one "$t packet connections" --topology "$TMP/$t.json" --backend packet --set backend.packet.channels=connections
    one "$t packet merged" --topology "$TMP/$t.json" --backend packet --set backend.packet.channels=merged
    one "$t flow connections" --topology "$TMP/$t.json" --backend flow --set backend.flow.channels=connections
    one "$t flow merged" --topology "$TMP/$t.json" --backend flow --set backend.flow.channels=merged
done
one "analytical (no topology)" --backend analytical
