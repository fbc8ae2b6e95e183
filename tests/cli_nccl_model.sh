#!/usr/bin/env bash
# cli_nccl_model.sh -- collective-model nccl (src/system/nccl_model.c,
# planner.c; docs/collectives.md "The nccl model"): NCCL's (algorithm,
# protocol) choice and the simulated time, both worked out by hand below
# from NCCL's constants (tuning.cc, commit 5067397c), never read back from
# the program.
#
# Network: Switch(8), bandwidth 372.52902984619140625 (GiB/s as written) =
# B = 400 bytes/ns exactly, L = 500 ns per hop (a ring message on a Switch
# crosses 2 hops: net(m) = floor(1000 + m / 400)).  Hopper, C = 16 channels.
# All-reduce, n = 8, nsteps = 2(n-1) = 14; NCCL's predicted time is
# lat + S / (1000 algbw) us:
#   Ring LL     lat 6.6 + 14 x 0.6 = 15.0 us;  busbw min(141, 400/2) = 141,
#               algbw 141 x 8/14 = 80.571 GB/s, efficiency 141/400 = 0.3525
#   Ring LL128  lat 14 + 14 x 1.9 = 40.6 us;   busbw min(0.92 x 400, 16 x 36.7) = 368,
#               algbw 210.286, efficiency 0.92
#   Ring Simple lat 8.4 + 14 x 3.4 = 56.0 us;  busbw 400, algbw 228.571, efficiency 1
#   NVLS        lat 25 us; busbw 400 x 0.85 x 7/8 x 2 = 595 (NCCL's NVLS graph: min(n, 32) = 8 channels
#               on one node, search.cc:1126-1127, 1135-1137), algbw x 8/14 = 340,
#               efficiency (inSwitch moves S once at B) 340 / 400 = 0.85
#   Tree        never least here (LL: lat 15.2 > 15.0 at 96.8/2 GB/s; LL128 lat 31.5 at
#               <= 143.1 GB/s x treeCorrectionFactor; Simple lat 64.4)
# Switch points (equal predicted times):
#   LL -> LL128:    25.6 us = S (14/1128 - 14/2944) / 1000   -> S = 3,343,820 B
#   LL128 -> Simple: 15.4 us = S (14/2944 - 14/3200) / 1000  -> S = 40,480,000 B
#   LL -> NVLS (nccl-nvls 1): 10 us = S (14/1128 - 1/340) / 1000 -> S = 1,055,947 B
# Simulated (ring, one chunk), each latency counted once: NCCL's hwLat d is a measured step
# latency, link included, so every send pays the link's p = 1000 ns (2 hops x 500) and its
# bundle max(0, d - p); the ring's first bundle (it has one more than its 14 sends) saves
# min(p, d), which the launch (baseLat) pays instead.  So T = baseLat + d + 14 (max(d, p) +
# floor(m / 400)), m = ceil(S / efficiency) / 8 bytes, no local reduction:
# Below 512 KiB NCCL runs Ring/LL on fewer channels than C (enqueue.cc:2092-2096): nc drops from 16
# while S < nc x 512 threads x 64 bytes (8 x nRanks a thread) = nc x 32768, so nc = max(1, min(16,
# floor(S / 32768))); the run's busbw is then min(141, nc x 400/16 x 0.5) = min(141, 12.5 nc), below
# NCCL's 141 for nc <= 11 (the choice is still made with all 16 channels):
#   S = 1024, LL on 1 channel (d = 600 < p: the link's latency binds): busbw 12.5, efficiency
#                     12.5/400 = 0.03125, wire ceil(1024 / 0.03125) = 32768, m = 4096,
#                     floor(10.24) = 10: 6600 + 600 + 14 x (1000 + 10) = 21340 ns (21200 with all 16)
#   S = 64 KiB, 2 channels: busbw 25, e = 0.0625, wire 1048576, m = 131072, floor(327.68) = 327:
#                     7200 + 14 x 1327 = 25778 ns; S = 256 KiB, 8 channels: busbw 100, e = 0.25, the
#                     same wire and time, 25778 ns (the channels grow with the size)
#   S = 524287, 15 channels: busbw min(141, 187.5) = 141 (llMaxBw binds), e = 0.3525, wire
#                     ceil(524287 / 0.3525) = 1487339, m = 185917, floor(464.79) = 464: 7200 + 14 x
#                     1464 = 27696 ns; S = 524288: all 16 channels, the same time
#   S = 16 MiB, LL128: wire ceil(16777216 / 0.92) = 18236105, m = 2279513,
#                     floor(5698.78) = 5698: 14000 + 1900 + 14 x 7598 = 122272 ns
#   S = 64 MiB, Simple: m = 8388608, floor(20971.52) = 20971:
#                     8400 + 3400 + 14 x 24371 = 352994 ns
#   (before each latency was counted once -- d and p both per step -- these were 29600, 136272
#   and 366994 ns: 14 x 1000 ns more, and LL's steps 1600 ns instead of the link's 1000)
# NVLS (inSwitch: 2 bundles of hwLat / 2 = 12500 ns, no launch; its two sends up to the switch and
# down pay the path's 1000 ns, 500 each, so each bundle pays 12000), S = 256 MiB:
#   wire ceil(268435456 / 0.85) = 315806419; 24000 + floor(1000 + 789516.0475) = 814516 ns (the
#   latency-0 time below; 815516 before)
# All-gather 64 MiB gathered (8 MiB per rank), nsteps 7: LL128 -> Simple at
#   4.9 us = S (7/2944 - 7/3200) / 1000 -> S = 25,760,000, so Simple:
#   8400 + 3400 + 7 x (3400 + floor(8388608 / 400)) = 11800 + 7 x 24371 = 182397 ns (189397 before)
. "$(dirname "$0")/lib_cli.sh"
: "${CS_MKTRACE:?}"
cd "$CS_TMP" || exit 1

printf 'topology: [ Switch ]\nnpus_count: [ 8 ]\nbandwidth: [ 372.52902984619140625 ]\nlatency: [ 500 ]\n' > n8.yml
printf '{"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,\n "preferred-dataset-splits": 4, "local-mem-bw": 1600, "collective-optimization": "localBWAware",\n "all-reduce-implementation": ["ring"], "collective-model": "nccl", "nccl-nvls": 0}\n' > nccl.json
expect_eq() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: got \"$2\", expected \"$3\""; fi; }
# $1 = ctype, $2 = size, rest = options; prints duration_ns,algorithms
one() {
    local c=$1 s=$2
    shift 2
    "$CS_MKTRACE" t.et "1 COLL ctype=$c size=$s" || fail "mktrace"
    rm -rf o
    "$CS_BIN" run --workload-configuration=t.et --network-configuration=n8.yml --system-configuration=nccl.json \
        --quiet --out o "$@" 2>err.txt || { fail "run $c $s $*: $(cat err.txt)"; return; }
    sed -n 2p o/collectives.csv | cut -d, -f11,16
}

expect_eq "1 KiB all-reduce: Ring/LL on 1 channel, 21340 ns" "$(one 0 1024)" "21340,nccl:Ring/LL/1ch"
expect_eq "64 KiB all-reduce: Ring/LL on 2 channels, 25778 ns" "$(one 0 65536)" "25778,nccl:Ring/LL/2ch"
expect_eq "256 KiB all-reduce: Ring/LL on 8 channels, 25778 ns" "$(one 0 262144)" "25778,nccl:Ring/LL/8ch"
expect_eq "524,287 B all-reduce: Ring/LL on 15 channels, 27696 ns" "$(one 0 524287)" "27696,nccl:Ring/LL/15ch"
expect_eq "512 KiB all-reduce: Ring/LL on all 16, 27696 ns" "$(one 0 524288)" "27696,nccl:Ring/LL"
expect_eq "16 MiB all-reduce: Ring/LL128, 122272 ns" "$(one 0 16777216)" "122272,nccl:Ring/LL128"
expect_eq "64 MiB all-reduce: Ring/Simple, 352994 ns" "$(one 0 67108864)" "352994,nccl:Ring/Simple"
expect_eq "LL below 3,343,820 B" "$(one 0 3300000 | cut -d, -f2)" "nccl:Ring/LL"
expect_eq "LL128 above 3,343,820 B" "$(one 0 3400000 | cut -d, -f2)" "nccl:Ring/LL128"
expect_eq "LL128 below 40,480,000 B" "$(one 0 40000000 | cut -d, -f2)" "nccl:Ring/LL128"
expect_eq "Simple above 40,480,000 B" "$(one 0 41000000 | cut -d, -f2)" "nccl:Ring/Simple"
expect_eq "nvls: Ring/LL below 1,055,947 B" "$(one 0 1055500 --set system.nccl-nvls=1 | cut -d, -f2)" "nccl:Ring/LL"
expect_eq "nvls: NVLS above 1,055,947 B" "$(one 0 1056500 --set system.nccl-nvls=1 | cut -d, -f2)" "nccl:NVLS/Simple"
expect_eq "256 MiB all-reduce: NVLS, 814516 ns" "$(one 0 268435456 --set system.nccl-nvls=1)" "814516,nccl:NVLS/Simple"
expect_eq "64 MiB all-gather: Ring/Simple, 182397 ns" "$(one 2 8388608)" "182397,nccl:Ring/Simple"
# NVLS needs Hopper or later (nvlsEfficiency 0 before): Ampere falls back to the ring
expect_eq "ampere: no NVLS" "$(one 0 268435456 --set system.nccl-nvls=1 --set system.nccl-arch=ampere | cut -d, -f2)" \
    "nccl:Ring/Simple"
# the same collective through `clustersim collective`: 64 MiB at 352.994 us
"$CS_BIN" collective --network-configuration=n8.yml --system-configuration=nccl.json -b 64M -e 64M --out c.csv \
    >/dev/null 2>err.txt || fail "collective: $(cat err.txt)"
expect_eq "collective table" "$(sed -n 2p c.csv | cut -d, -f3,6)" "67108864,352.994000"

# Tree on 64 GPUs of one Switch (same B, L; no NVLS), 16 MiB all-reduce, nsteps 126.  NCCL predicts (us):
#   Ring LL     82.2 + S / (1000 x 141 x 64/126 = 71.62)   = 316.5
#   Ring LL128  253.4 + S / (1000 x 368 x 64/126 = 186.9)  = 343.2
#   Ring Simple 436.8 + ...                                 > 436.8
#   Tree LL     82.4 + S / (1000 x 368/3.8/2 x 0.8)         = 515.6   (treeCorrectionFactor[LL][18] = 0.8)
#   Tree LL128  14 + 126 x 1.25 = 171.5 + S / (1000 x 368 x 7/9 / 2 x 0.9 = 128.8) = 301.76   <- least
#   Tree Simple 8.4 + 126 x 4 = 512.4 + ...                 > 512.4
# Simulated on the ring engine (NCCL's one-node tree is a chain: 2(n-1) steps): efficiency 128.8 x 126 /
# (64 x 400) = 0.6339375, wire ceil(16777216 / 0.6339375) = 26465095, m = 413517, floor(1033.79) = 1033;
# each latency once (above): T = 14000 + 1250 + 126 x (max(1250, 1000) + 1033) = 302908 ns (428908 when
# the link's 1000 ns was paid beside hwLat)
printf 'topology: [ Switch ]\nnpus_count: [ 64 ]\nbandwidth: [ 372.52902984619140625 ]\nlatency: [ 500 ]\n' > n64.yml
"$CS_MKTRACE" t.et "1 COLL ctype=0 size=16777216" || fail "mktrace"
rm -rf o
"$CS_BIN" run --workload-configuration=t.et --network-configuration=n64.yml --system-configuration=nccl.json \
    --quiet --out o 2>err.txt || fail "tree: $(cat err.txt)"
expect_eq "64 GPUs, 16 MiB: Tree/LL128, 302908 ns" "$(sed -n 2p o/collectives.csv | cut -d, -f11,16)" "302908,nccl:Tree/LL128"

# a communicator group of 4 (ranks 0 2 4 6) on the same Switch(8), 64 MiB, no NVLS: n = 4, nsteps 6;
# Ring LL128 25.4 us at 368 x 4/6, Ring Simple 28.8 us at 400 x 4/6: Simple from 3.4 us = S (6/1472 - 6/1600)
# / 1000, S = 10,426,667 B; rank 0 -> 2 crosses the switch (p = 1000 < 3400): T = 8400 + 3400 + 6 (3400 +
# floor(16777216 / 400)) = 11800 + 6 x 45343 = 283858 ns (289858 before: the 1000 ns counted twice)
echo '{"1": [0, 2, 4, 6]}' > g.json
"$CS_MKTRACE" gg.0.et "1 COLL ctype=0 size=67108864 pg=1" || fail "mktrace"
for r in 1 2 3 4 5 6 7; do
    if [ $((r % 2)) = 0 ]; then cp gg.0.et gg.$r.et; else "$CS_MKTRACE" gg.$r.et "1 COMP dur=1" || fail "mktrace"; fi
done
rm -rf o
"$CS_BIN" run --workload-configuration=gg --network-configuration=n8.yml --system-configuration=nccl.json \
    --comm-group-configuration=g.json --quiet --out o 2>err.txt || fail "group: $(cat err.txt)"
expect_eq "group of 4: Ring/Simple, 283858 ns" "$(sed -n 2p o/collectives.csv | cut -d, -f7,11,16)" "4,283858,nccl:Ring/Simple"

# examples/hgx_h100_nccl, worked in docs/examples.md: 8 B and 1 MiB Ring/LL 15600 and 28606 ns, 1 GiB NVLS
# (B = 345.33441 x 2^30 / 1e9 = 370.79999928, e = 0.85): wire ceil(2^30 / 0.85) = 1263225676, 25000 +
# floor(1263225676 / B) = 25000 + 3406757 = 3431757 ns
ex() {
    "$CS_MKTRACE" t.et "1 COLL ctype=0 size=$1" || fail "mktrace"
    rm -rf o
    "$CS_BIN" run --workload-configuration=t.et --network-configuration="$CS_SOURCE_DIR/examples/hgx_h100_nccl/network.yml" \
        --system-configuration="$CS_SOURCE_DIR/examples/hgx_h100_nccl/system.json" --quiet --out o 2>err.txt ||
        { fail "example $1: $(cat err.txt)"; return; }
    sed -n 2p o/collectives.csv | cut -d, -f11,16
}
expect_eq "example: 8 B (1 channel: nothing measurable to move)" "$(ex 8)" "15600,nccl:Ring/LL/1ch"
expect_eq "example: 1 MiB" "$(ex 1048576)" "28606,nccl:Ring/LL"
expect_eq "example: 1 GiB" "$(ex 1073741824)" "3431757,nccl:NVLS/Simple"

# examples/hgx_h100_nccl multi-node (network_2node.yml, network_4node.yml, system_multinode.json, NVLS on;
# docs/collectives.md "Across nodes"): B = 345.33441 x 2^30/1e9 = 370.79999928 bytes/ns, NIC 50 bytes/ns.
#   2 nodes, 8 B: Tree/LL, lat 6.8 + 2 (7 x 0.6 + 5.0) = 25.2 us, on 1 channel (8 < 2 x 512 threads x 8
#   bytes, enqueue.cc:2092-2096): bw 370.8 / 16 = 23.175, busbw min(0.92 x 23.175, 41.4) / 3.8 = 5.6108,
#   algbw 2.8054; X = ceil(8 / 2.8054 x 50) = 143, X/2 = 71 -> 1 ns a step: 25200 + 2 = 25202 ns
#   4 nodes, 1 GiB: NVLSTree, lat 25 + 4 x 20.9 = 108.6 us; busbw 8 min(46.35 x 0.85 x 7/8 x 2, 46.35,
#   45.5) = 364, algbw x 32/62 = 187.87097; X = ceil(2^30 / 187.87097 x 50 / 1.5) = 190510512, X/4 =
#   47627628 -> 952552 ns a step: T = 108600 + 6 x 952552 = 5823912 ns
#   the same without NVLS (NCCL_NVLS_ENABLE=0): Ring/Simple, lat (8.4 + 56 x 3.4 + 6 x 14) x 1.4 = 395.92
#   us; effbw min(370.8, 8 x 50) x 32/62 = 191.38064479; X = ceil(2^30 / 191.38064479 x 50 / 1.5) =
#   187016792, X/4 = 46754198 -> 935083 ns: T = 395920 + 6 x 935083 = 6006418 ns
exm() {
    "$CS_MKTRACE" t.et "1 COLL ctype=0 size=$2" || fail "mktrace"
    rm -rf o
    local n=$1
    shift 2
    "$CS_BIN" run --workload-configuration=t.et \
        --network-configuration="$CS_SOURCE_DIR/examples/hgx_h100_nccl/network_${n}node.yml" \
        --system-configuration="$CS_SOURCE_DIR/examples/hgx_h100_nccl/system_multinode.json" --quiet --out o \
        "$@" 2>err.txt || { fail "example $n nodes: $(cat err.txt)"; return; }
    sed -n 2p o/collectives.csv | cut -d, -f11,16
}
expect_eq "example, 2 nodes, 8 B" "$(exm 2 8)" "25202,nccl:Tree/LL/1ch"
expect_eq "example, 4 nodes, 1 GiB" "$(exm 4 1073741824)" "5823912,nccl:NVLSTree/Simple"
expect_eq "example, 4 nodes, 1 GiB, no NVLS" "$(exm 4 1073741824 --set system.nccl-nvls=0)" "6006418,nccl:Ring/Simple"

# the astra model (the default) is unchanged: the same run without the key is the ring of the list
sed 's/, "collective-model": "nccl", "nccl-nvls": 0//' nccl.json > astra.json
"$CS_MKTRACE" t.et "1 COLL ctype=0 size=1048576" || fail "mktrace"
"$CS_BIN" run --workload-configuration=t.et --network-configuration=n8.yml --system-configuration=astra.json \
    --quiet --out a1 2>err.txt || fail "astra: $(cat err.txt)"
"$CS_BIN" run --workload-configuration=t.et --network-configuration=n8.yml --system-configuration=nccl.json \
    --set system.collective-model=astra --quiet --out a2 2>err.txt || fail "astra set: $(cat err.txt)"
expect_eq "astra model: key default = astra" "$(sed -n 2p a2/collectives.csv | cut -d, -f11,16)" \
    "$(sed -n 2p a1/collectives.csv | cut -d, -f11,16)"
expect_eq "astra model: the list's ring" "$(sed -n 2p a1/collectives.csv | cut -d, -f16)" "ring"

# Across nodes (docs/collectives.md "Across nodes"; NCCL's formulas worked in tests/test_system_nccl_model.c):
# N nodes of Switch(8) at B = 400 bytes/ns, a NET dimension (Switch(N), one NIC per GPU) at Bnet = 40
# bytes/ns (37.252902984619140625 GiB/s as written), both latency 0; Hopper, C = 16, Intel, no NVLS.
# NCCL's nChannels x bw: rings min(400, 8 x 40) = 320; trees 400 on 2 nodes, 320 on 4.  Simulated: one
# ring phase across the N nodes on the NET dimension (every rail at once), k = 2(N-1) steps (all-reduce),
# each member sending X / N bytes a step, X = ceil(S / effbw x Bnet / f), f = 2(N-1)/N; NCCL's latency
# lat paid exactly: step = net / k per bundle (k + 1 bundles), the rest before the first (launch).
# T = lat + k floor((X / N) / 40).
#  N = 2, 8 B: Tree/LL (25.2 us + S / (1000 x 19.5)), run on 1 channel (8 < 2 x 512 x 8 bytes,
#     enqueue.cc:2092-2096): bw 400/16 = 25, busbw min(23, 41.4) / 3.8 = 6.0526, algbw 3.0263; X = ceil(8 /
#     3.0263 x 40) = 106, X/N = 53 -> 1 ns: T = 25202 ns (25200 with all 16 channels)
#  N = 2, 256 KiB: Tree/LL128, lat 48.5 us, effbw 172.5 x treeCorrectionFactor[LL128][12] = 0.6 -> 103.5;
#     X = ceil(262144 / 103.5 x 40) = 101312, X/N = 50656 -> 1266 ns: T = 48500 + 2 x 1266 = 51032
#  N = 2, 16 MiB: Tree/LL128, effbw 172.5 x 0.9 (log 18) = 155.25; X = ceil(16777216 / 155.25 x 40) =
#     4322633, X/N = 2161316 -> 54032: T = 48500 + 2 x 54032 = 156564
#  N = 2, 1 GiB: Tree/Simple, lat 92.4 us, effbw 184 (no factor from 2^29); X = ceil(2^30 / 184 x 40) =
#     233422136, X/N = 116711068 -> 2917776: T = 92400 + 2 x 2917776 = 5927952
#  N = 4, 8 B: Tree/LL, lat 35.2 us, 1 channel (bw 320/16 = 20, busbw 18.4 / 3.8 = 4.8421, algbw
#     2.4211; X = ceil(8 / 2.4211 x 40 / 1.5) = 89, X/N = 22 -> 0 ns): T = 35200
#  N = 4, 64 MiB: Ring/LL128, lat 144.4 us, effbw 294.4 x 32/62 = 151.948, f = 6/4; X = ceil(67108864 /
#     151.948 x 40 / 1.5) = 11777485, X/N = 2944371 -> 73609: T = 144400 + 6 x 73609 = 586054
#  N = 4, 1 GiB: Ring/Simple, lat 395.92 us, effbw 165.161; X = 173364566, X/N = 43341141 -> 1083528:
#     T = 395920 + 6 x 1083528 = 6897088
#  N = 2, all-gather of 8 MiB per rank (S = 128 MiB): Ring/Simple, lat 8.4 + 14 x 3.4 + 1 x 14 = 70.0 us
#     (no plateau: all-reduce only), effbw 320 x 16/15; f = N - 1 = 1: X = ceil(134217728 x 15 / 320 / 16
#     x 40) = 15728640 -> 393216 ns: T = 70000 + 393216 = 463216
for N in 2 4; do
    printf 'topology: [ Switch, Switch ]\nnpus_count: [ 8, %s ]\nbandwidth: [ 372.52902984619140625, 37.252902984619140625 ]\nlatency: [ 0, 0 ]\n' \
        "$N" > mn$N.yml
done
sed 's/\["ring"\]/["ring", "ring"]/' nccl.json > nccl2.json
mn() {
    "$CS_MKTRACE" t.et "1 COLL ctype=$2 size=$3" || fail "mktrace"
    rm -rf o
    "$CS_BIN" run --workload-configuration=t.et --network-configuration=mn$1.yml --system-configuration=nccl2.json \
        --quiet --out o 2>err.txt || { fail "multi-node $*: $(cat err.txt)"; return; }
    sed -n 2p o/collectives.csv | cut -d, -f11,16
}
expect_eq "2 nodes, 8 B: Tree/LL on 1 channel 25202 ns" "$(mn 2 0 8)" "25202,nccl:Tree/LL/1ch"
expect_eq "2 nodes, 256 KiB: Tree/LL128 51032 ns" "$(mn 2 0 262144)" "51032,nccl:Tree/LL128"
expect_eq "2 nodes, 16 MiB: Tree/LL128 156564 ns" "$(mn 2 0 16777216)" "156564,nccl:Tree/LL128"
expect_eq "2 nodes, 1 GiB: Tree/Simple 5927952 ns" "$(mn 2 0 1073741824)" "5927952,nccl:Tree/Simple"
expect_eq "4 nodes, 8 B: Tree/LL on 1 channel 35200 ns" "$(mn 4 0 8)" "35200,nccl:Tree/LL/1ch"
expect_eq "4 nodes, 64 MiB: Ring/LL128 586054 ns" "$(mn 4 0 67108864)" "586054,nccl:Ring/LL128"
expect_eq "4 nodes, 1 GiB: Ring/Simple 6897088 ns" "$(mn 4 0 1073741824)" "6897088,nccl:Ring/Simple"
expect_eq "2 nodes, all-gather 128 MiB: Ring/Simple 463216 ns" "$(mn 2 2 8388608)" "463216,nccl:Ring/Simple"
# Each latency once across nodes: NCCL's NET step latency (here the tree's 2 log2(2) x 8.5 us = 17 us over
# k = 2 sends, 8500 ns a bundle) includes the NET link.  NET latency 1000 ns a hop (p = 2000 per send on
# the Switch): a bundle pays 8500 - 2000, the launch 2000 more, T stays 156564 ns.  NET latency 5000 ns a
# hop (p = 10000 > 8500: the link binds): bundles 0, launch 23000 + 8500, T = 31500 + 2 x (10000 + 54032)
# = 159564 ns = 156564 + 2 x (10000 - 8500).  (Before: 156564 + 2 p = 160564 and 176564.)  NVLink latency
# is not charged across nodes (the NVLink steps are in lat), so dimension 0's 500 changes nothing.
for L in 1000 5000; do
    printf 'topology: [ Switch, Switch ]\nnpus_count: [ 8, 2 ]\nbandwidth: [ 372.52902984619140625, 37.252902984619140625 ]\nlatency: [ 500, %s ]\n' \
        "$L" > mn2l$L.yml
done
"$CS_MKTRACE" t.et "1 COLL ctype=0 size=16777216" || fail "mktrace"
for L in 1000 5000; do
    rm -rf o
    "$CS_BIN" run --workload-configuration=t.et --network-configuration=mn2l$L.yml --system-configuration=nccl2.json \
        --quiet --out o 2>err.txt || fail "NET latency $L: $(cat err.txt)"
    want=156564
    [ "$L" = 5000 ] && want=159564
    expect_eq "2 nodes, 16 MiB, NET latency $L ns: $want ns" "$(sed -n 2p o/collectives.csv | cut -d, -f11,16)" \
        "$want,nccl:Tree/LL128"
done
# the flow backend (every rail its own link, shared by nothing else here) gives the same 16 MiB time
"$CS_MKTRACE" t.et "1 COLL ctype=0 size=16777216" || fail "mktrace"
rm -rf o
"$CS_BIN" run --workload-configuration=t.et --network-configuration=mn2.yml --system-configuration=nccl2.json \
    --backend flow --quiet --out o 2>err.txt || fail "flow: $(cat err.txt)"
expect_eq "2 nodes, 16 MiB on flow: 156564 ns" "$(sed -n 2p o/collectives.csv | cut -d, -f11,16)" "156564,nccl:Tree/LL128"
# the switch points (tests/test_system_nccl_model.c): 2 nodes Tree/LL -> Tree/LL128 at 250,802 B,
# -> Tree/Simple at 2^29 B; 4 nodes Tree/LL -> Tree/LL128 at 164,673, -> Ring/LL128 at 53,660,777,
# -> Ring/Simple at 477,725,730
expect_eq "2 nodes: Tree/LL below 250,802 B" "$(mn 2 0 250500 | cut -d, -f2)" "nccl:Tree/LL"
expect_eq "2 nodes: Tree/LL128 above 250,802 B" "$(mn 2 0 251100 | cut -d, -f2)" "nccl:Tree/LL128"
expect_eq "2 nodes: Tree/LL128 below 2^29 B" "$(mn 2 0 536870911 | cut -d, -f2)" "nccl:Tree/LL128"
expect_eq "2 nodes: Tree/Simple from 2^29 B" "$(mn 2 0 536870912 | cut -d, -f2)" "nccl:Tree/Simple"
expect_eq "4 nodes: Tree/LL128 above 164,673 B" "$(mn 4 0 164900 | cut -d, -f2)" "nccl:Tree/LL128"
expect_eq "4 nodes: Tree/LL128 below 53,660,777 B" "$(mn 4 0 53600000 | cut -d, -f2)" "nccl:Tree/LL128"
expect_eq "4 nodes: Ring/LL128 above 53,660,777 B" "$(mn 4 0 53700000 | cut -d, -f2)" "nccl:Ring/LL128"
expect_eq "4 nodes: Ring/LL128 below 477,725,730 B" "$(mn 4 0 477600000 | cut -d, -f2)" "nccl:Ring/LL128"
expect_eq "4 nodes: Ring/Simple above 477,725,730 B" "$(mn 4 0 477900000 | cut -d, -f2)" "nccl:Ring/Simple"

# NVLS-tree (nccl-nvls 1; test_system_nccl_model.c): busbw 461.6 (2 nodes), 320 (4 nodes), latency 66.8 and
# 108.6 us; chosen above 5,746,733 B (2 nodes) and 21,584,079 B (4 nodes).  1 GiB:
#   2 nodes: algbw 461.6 x 16/30 = 246.18667; X = ceil(2^30 / 246.18667 x 40) = 174459786, X/2 -> 2180747 ns
#     a step: T = 66800 + 2 x 2180747 = 4428294 ns
#   4 nodes: algbw 320 x 32/62 = 165.16129; X = ceil(2^30 / 165.16129 x 40 / 1.5) = 173364566, X/4 ->
#     1083528 ns: T = 108600 + 6 x 1083528 = 6609768 ns
mnv() {
    "$CS_MKTRACE" t.et "1 COLL ctype=0 size=$2" || fail "mktrace"
    rm -rf o
    "$CS_BIN" run --workload-configuration=t.et --network-configuration=mn$1.yml --system-configuration=nccl2.json \
        --set system.nccl-nvls=1 --quiet --out o 2>err.txt || { fail "nvls $*: $(cat err.txt)"; return; }
    sed -n 2p o/collectives.csv | cut -d, -f11,16
}
expect_eq "2 nodes, NVLS, 1 GiB: NVLSTree 4428294 ns" "$(mnv 2 1073741824)" "4428294,nccl:NVLSTree/Simple"
expect_eq "4 nodes, NVLS, 1 GiB: NVLSTree 6609768 ns" "$(mnv 4 1073741824)" "6609768,nccl:NVLSTree/Simple"
expect_eq "2 nodes, NVLS: Tree/LL128 below 5,746,733 B" "$(mnv 2 5740000 | cut -d, -f2)" "nccl:Tree/LL128"
expect_eq "2 nodes, NVLS: NVLSTree above 5,746,733 B" "$(mnv 2 5750000 | cut -d, -f2)" "nccl:NVLSTree/Simple"
expect_eq "4 nodes, NVLS: Tree/LL128 below 21,584,079 B" "$(mnv 4 21580000 | cut -d, -f2)" "nccl:Tree/LL128"
expect_eq "4 nodes, NVLS: NVLSTree above 21,584,079 B" "$(mnv 4 21590000 | cut -d, -f2)" "nccl:NVLSTree/Simple"

# One GPU per node, PAT: 32 nodes of 1 GPU (NET 40 bytes/ns), all-gather of 32 KiB per rank (S = 1 MiB):
# PAT 8 + log2(32) x 14/3.5 + 32 x 2.8 = 117.6 us at 0.75 x 40 = 30 (test_system_nccl_model.c); the ring
# phase: k = 31 steps, step = net / k = (20 + 89.6) us / 31 = 3535 ns, launch = 117600 - 32 x 3535 = 4480;
# X = ceil(1048576 / 30 x 40 / 31) = 45101 -> 1127 ns a step: T = 117600 + 31 x 1127 = 152537 ns
printf 'topology: [ Switch, Switch ]\nnpus_count: [ 1, 32 ]\nbandwidth: [ 372.52902984619140625, 37.252902984619140625 ]\nlatency: [ 0, 0 ]\n' > mn32.yml
expect_eq "32 nodes x 1 GPU, all-gather 1 MiB: PAT/Simple 152537 ns" "$(mn 32 2 32768)" "152537,nccl:PAT/Simple"
# involved_dim on 2 nodes (1 MiB all-reduce): dimension 0 alone is one-node NCCL in every node: Ring/LL on 8
# GPUs at B = 400 as above, efficiency 0.3525, m = floor(ceil(1048576 / 0.3525) / 8) = 371835 -> 929 ns:
# 6600 + 600 + 14 (929 + 600) = 28606 ns.  Dimension 1 alone: each rail a communicator of 2 ranks, one per
# node (ppn 1: interLat the NET Tree's): Ring LL 6.6 + 2 x 5.0 = 16.6 us at min(39, 20) = 20 -> 69.0 us;
# Ring LL128 14 + 2 x 8.5 = 31 us at 0.92 x 40 = 36.8 -> 59.49 us (least; Simple (8.4 + 28) x 1.4 at 40 ->
# 77.2; Tree LL128 31 us at 36.8 x 120/128 / 2 x 0.6 -> 132.3); X = ceil(1048576 / 36.8 x 40) = 1139757,
# X/2 = 569878 -> 14246 ns: T = 31000 + 2 x 14246 = 59492 ns
inv() {
    "$CS_MKTRACE" t.et "1 COLL ctype=0 size=1048576 inv=$1" || fail "mktrace"
    rm -rf o
    "$CS_BIN" run --workload-configuration=t.et --network-configuration=mn2.yml --system-configuration=nccl2.json \
        --quiet --out o 2>err.txt || { fail "involved $1: $(cat err.txt)"; return; }
    sed -n 2p o/collectives.csv | cut -d, -f11,16
}
expect_eq "2 nodes, involved dimension 0 only: Ring/LL 28606 ns" "$(inv 1,0)" "28606,nccl:Ring/LL"
expect_eq "2 nodes, involved dimension 1 only: Ring/LL128 59492 ns" "$(inv 0,1)" "59492,nccl:Ring/LL128"
# a group of one rank per node (ranks 0 8 16 24 of 4 nodes): ppn 1, n = 4; all-gather of 16 KiB per rank
# (S = 64 KiB): Ring/LL, lat 6.6 + 3 x 5.0 (the NET Tree LL latency: ppn 1) = 21.6 us, busbw min(20.4, 40/2)
# = 20, algbw 20 x 4/3 = 26.667 (PAT 27.2 us + S / 30000 = 29.38 us > Ring LL 24.06 us); k = 3, step =
# 5000, launch 1600.  Run on nc = 4 of the 16 channels (S / (512 threads x 8 x 4 ranks bytes) = 4,
# enqueue.cc:2092-2096): bw 40 x 4/16 = 10, busbw min(20.4, 5) = 5, algbw 6.6667; X = ceil(65536 / 6.6667
# x 40 / 3) = 131072 -> 3276 ns a step: T = 21600 + 3 x 3276 = 31428 (24057 with all 16 channels)
echo '{"1": [0, 8, 16, 24]}' > g4.json
"$CS_MKTRACE" g4.0.et "1 COLL ctype=2 size=16384 pg=1" || fail "mktrace"
for r in $(seq 1 31); do
    if [ $((r % 8)) = 0 ]; then cp g4.0.et g4.$r.et; else "$CS_MKTRACE" g4.$r.et "1 COMP dur=1" || fail "mktrace"; fi
done
rm -rf o
"$CS_BIN" run --workload-configuration=g4 --network-configuration=mn4.yml --system-configuration=nccl2.json \
    --comm-group-configuration=g4.json --quiet --out o 2>err.txt || fail "group across nodes: $(cat err.txt)"
expect_eq "group of one rank per node: Ring/LL on 4 channels 31428 ns" \
    "$(sed -n 2p o/collectives.csv | cut -d, -f7,11,16)" "4,31428,nccl:Ring/LL/4ch"

# a group of the 8 GPUs of node 1 (ranks 8-15) on 2 nodes, NVLS on: NVLS on that node's switch, as on
# one node (the 256 MiB case above with latency 0 here: 25000 + floor(315806419 / 400) = 814516 ns);
# NVLS for such a group used to be refused as "inSwitch on Switch" (only one-dimension networks passed)
echo '{"1": [8, 9, 10, 11, 12, 13, 14, 15]}' > gn1.json
"$CS_MKTRACE" gn1.8.et "1 COLL ctype=0 size=268435456 pg=1" || fail "mktrace"
for r in $(seq 0 15); do
    if [ "$r" -ge 8 ]; then [ "$r" = 8 ] || cp gn1.8.et gn1.$r.et; else "$CS_MKTRACE" gn1.$r.et "1 COMP dur=1" || fail "mktrace"; fi
done
rm -rf o
"$CS_BIN" run --workload-configuration=gn1 --network-configuration=mn2.yml --system-configuration=nccl2.json \
    --comm-group-configuration=gn1.json --set system.nccl-nvls=1 --quiet --out o 2>err.txt || fail "group of node 1: $(cat err.txt)"
expect_eq "group of one node's 8 GPUs on 2 nodes: NVLS 814516 ns" "$(sed -n 2p o/collectives.csv | cut -d, -f7,11,16)" \
    "8,814516,nccl:NVLS/Simple"

# a generated plan takes system keys given without a file over the generator's defaults (docs/generator.md):
# --set system.collective-model=nccl alone used to be refused for want of scheduling-policy.  On MI300X,
# a device without NCCL constants, the generator's default is astra: only the key makes it nccl
"$CS_BIN" train --model gpt3-6.7b --tp 8 --dp 2 --global-batch 4 --network-configuration=mn2.yml --device MI300X \
    --set system.collective-model=nccl --out tro > /dev/null 2>err.txt || fail "train with the nccl key: $(cat err.txt)"
expect_eq "train: the key over the generator's defaults" \
    "$(grep -o '"collective-model": "[a-z]*"\|"endpoint-delay": [0-9][0-9]*\|"scheduling-policy": "[A-Z]*"' tro/summary.json | sort -u | tr '\n' ' ')" \
    '"collective-model": "nccl" "endpoint-delay": 10 "scheduling-policy": "LIFO" '
expect_eq "train: every collective planned by the nccl model" \
    "$(tail -n +2 tro/collectives.csv | cut -d, -f16 | grep -vc '^nccl:')" "0"
[ "$(tail -n +2 tro/collectives.csv | wc -l)" -gt 0 ] && pass "train: collectives listed" || fail "train: no collectives"
expect_fail "a run of traces still needs a whole system" "scenario system|scheduling-policy|required" \
    "$CS_BIN" run --workload-configuration=t.et --network-configuration=n8.yml --set system.collective-model=nccl --quiet

# a group with the same number of ranks on each of its nodes (k = 2: ranks 0 4 | 8 12 of 2 nodes of 8; then
# 0 4 | 8 12 | 16 20 | 24 28 of 4 nodes): NCCL's inputs are those of the whole network of k GPUs per node
# on as many nodes (n = 2k, nnodes, the same NVLink and NIC bandwidths), and each rail's ring (the members
# at one position within their node) is that network's NET ring -- so the group's collective takes the
# whole 2 x 2 (2 x 4) network's time, choice and bytes, which the cases above work by hand
printf 'topology: [ Switch, Switch ]\nnpus_count: [ 2, %s ]\nbandwidth: [ 372.52902984619140625, 37.252902984619140625 ]\nlatency: [ 0, 0 ]\n' 2 > k22.yml
printf 'topology: [ Switch, Switch ]\nnpus_count: [ 2, %s ]\nbandwidth: [ 372.52902984619140625, 37.252902984619140625 ]\nlatency: [ 0, 0 ]\n' 4 > k24.yml
echo '{"1": [0, 4, 8, 12]}' > gk2.json
echo '{"1": [0, 4, 8, 12, 16, 20, 24, 28]}' > gk4.json
# $1 nodes, $2 ctype, $3 size: "whole | group" as members,duration_ns,algorithms,bytes_sent
kcase() {
    local N=$1 ct=$2 sz=$3
    "$CS_MKTRACE" kw.et "1 COLL ctype=$ct size=$sz" || fail "mktrace"
    "$CS_MKTRACE" kg.0.et "1 COLL ctype=$ct size=$sz pg=1" || fail "mktrace"
    for r in $(seq 1 $((8 * N - 1))); do
        if [ $((r % 4)) = 0 ]; then cp kg.0.et kg.$r.et; else "$CS_MKTRACE" kg.$r.et "1 COMP dur=1" || fail "mktrace"; fi
    done
    rm -rf kow kog
    "$CS_BIN" run --workload-configuration=kw.et --network-configuration=k2$N.yml --system-configuration=nccl2.json \
        --quiet --out kow 2>err.txt || fail "whole 2 x $N: $(cat err.txt)"
    "$CS_BIN" run --workload-configuration=kg --network-configuration=mn$N.yml --system-configuration=nccl2.json \
        --comm-group-configuration=gk$N.json --quiet --out kog 2>err.txt || fail "group on $N nodes: $(cat err.txt)"
    echo "$(sed -n 2p kow/collectives.csv | cut -d, -f7,11,16,17) | $(sed -n 2p kog/collectives.csv | cut -d, -f7,11,16,17)"
}
for c in "2 0 1048576" "2 0 67108864" "2 2 1048576" "4 0 16777216"; do
    # shellcheck disable=SC2086
    out=$(kcase $c)
    w=${out% | *} gr=${out#* | }
    if [ -n "$w" ] && [ "$w" = "$gr" ]; then pass "2 ranks per node ($c): the whole network's $w"
    else fail "2 ranks per node ($c): whole $w, group $gr"; fi
done
# and in a generated plan: TP 4 on 8-GPU nodes puts 2 DP ranks per node (it was refused)
"$CS_BIN" train --model gpt3-6.7b --tp 4 --dp 4 --global-batch 4 --network-configuration=mn2.yml --device MI300X \
    --set system.collective-model=nccl --out trk > /dev/null 2>err.txt || fail "train TP 4 with the nccl model: $(cat err.txt)"
expect_eq "train TP 4: every collective planned by the nccl model" \
    "$(tail -n +2 trk/collectives.csv | cut -d, -f16 | grep -vc '^nccl:')" "0"

# errors: what is not modelled is refused, naming it
echo '{"1": [0, 1, 8]}' > gmix.json
"$CS_MKTRACE" gm.0.et "1 COLL ctype=0 size=1024 pg=1" || fail "mktrace"
for r in $(seq 1 15); do
    case $r in 1 | 8) cp gm.0.et gm.$r.et ;; *) "$CS_MKTRACE" gm.$r.et "1 COMP dur=1" || fail "mktrace" ;; esac
done
expect_fail "a group of 2 ranks on one node and 1 on another refused" "collective-model nccl|unevenly|the same number of members on each of its nodes" \
    "$CS_BIN" run --workload-configuration=gm --network-configuration=mn2.yml --system-configuration=nccl2.json \
    --comm-group-configuration=gmix.json --quiet
printf 'topology: [ Switch, Switch, Switch ]\nnpus_count: [ 8, 2, 2 ]\nbandwidth: [ 100, 50, 50 ]\nlatency: [ 500, 1000, 1000 ]\n' > n32d.yml
sed 's/\["ring"\]/["ring", "ring", "ring"]/' nccl.json > nccl3.json
expect_fail "three dimensions refused" "collective-model nccl|3 dimensions|NET of several dimensions" \
    "$CS_BIN" run --workload-configuration=t.et --network-configuration=n32d.yml --system-configuration=nccl3.json --quiet
expect_fail "unknown model" "collective-model|astra|nccl|fast" \
    "$CS_BIN" run --workload-configuration=t.et --network-configuration=n8.yml --system-configuration=nccl.json \
    --set system.collective-model=fast --quiet
expect_fail "channels out of range" "nccl-channels|64" \
    "$CS_BIN" run --workload-configuration=t.et --network-configuration=n8.yml --system-configuration=nccl.json \
    --set system.nccl-channels=65 --quiet
# CollNet (nccl-collnet 1, the NET dimension a Switch: docs/collectives.md "CollNet"; NCCL's formulas and
# switch points worked in tests/test_system_nccl_model.c, test_collnet).  4 nodes as above: CollNet Direct
# 44 us at algbw 170 from 65,536 B, CollNet Chain 69.2 us at 200 from 28,560,000 B; with NVLS, NVLS + SHARP
# 43 us at 320 x 32/62 from 58,208 B to 5,802,247 B.  Simulated: one inSwitch phase on the NET dimension
# (every rail's switch at once), a member sending X = ceil(S / algbw x 40) bytes up and receiving X; its two
# bundles lat / 2 each: T = lat + floor(X / 40).
#   1 MiB, Direct: X = ceil(1048576 x 40 / 170) = 246724 -> 6168 ns: T = 44000 + 6168 = 50168 ns
#   64 MiB, Chain: X = ceil(67108864 x 40 / 200) = 13421773 -> 335544: T = 69200 + 335544 = 404744 ns
#   1,000,000 B, NVLS: X = ceil(1e6 x 40 x 62 / (320 x 32)) = ceil(242187.5) = 242188 -> 6054: T = 49054 ns
# the same on analytical-congestion and flow (uncontended in-switch = its closed form)
cn() { # N S nvls backend
    "$CS_MKTRACE" t.et "1 COLL ctype=0 size=$2" || fail "mktrace"
    rm -rf o
    "$CS_BIN" run --workload-configuration=t.et --network-configuration=mn$1.yml --system-configuration=nccl2.json \
        --set system.nccl-collnet=1 --set system.nccl-nvls=$3 --backend "$4" --quiet --out o 2>err.txt ||
        { fail "collnet $*: $(cat err.txt)"; return; }
    sed -n 2p o/collectives.csv | cut -d, -f11,16
}
for be in analytical analytical-congestion flow; do
    expect_eq "4 nodes, CollNet, 1 MiB on $be: CollNetDirect 50168 ns" "$(cn 4 1048576 0 $be)" "50168,nccl:CollNetDirect/Simple"
    expect_eq "4 nodes, CollNet, 64 MiB on $be: CollNetChain 404744 ns" "$(cn 4 67108864 0 $be)" "404744,nccl:CollNetChain/Simple"
    expect_eq "4 nodes, CollNet + NVLS, 1e6 B on $be: NVLS 49054 ns" "$(cn 4 1000000 1 $be)" "49054,nccl:NVLS/Simple"
done
# (chosen with all 16 channels, run on 15: 65,535 < 16 x 512 threads x 8 bytes)
expect_eq "4 nodes, CollNet: Tree/LL at 65,535 B" "$(cn 4 65535 0 analytical | cut -d, -f2)" "nccl:Tree/LL/15ch"
expect_eq "4 nodes, CollNet: CollNetDirect from 65,536 B" "$(cn 4 65536 0 analytical | cut -d, -f2)" "nccl:CollNetDirect/Simple"
expect_eq "4 nodes, CollNet: CollNetDirect below 28,560,000 B" "$(cn 4 28500000 0 analytical | cut -d, -f2)" "nccl:CollNetDirect/Simple"
expect_eq "4 nodes, CollNet: CollNetChain above 28,560,000 B" "$(cn 4 28600000 0 analytical | cut -d, -f2)" "nccl:CollNetChain/Simple"
expect_eq "4 nodes, CollNet + NVLS: NVLS above 58,208 B" "$(cn 4 58300 1 analytical | cut -d, -f2)" "nccl:NVLS/Simple"
expect_eq "4 nodes, CollNet + NVLS: CollNetDirect above 5,802,247 B" "$(cn 4 5805000 1 analytical | cut -d, -f2)" "nccl:CollNetDirect/Simple"
# `clustersim collective` shows the choice (its algorithm column): 1 MiB CollNetDirect, 64 MiB CollNetChain
"$CS_BIN" collective --network-configuration=mn4.yml --system-configuration=nccl2.json --set system.nccl-collnet=1 \
    -b 1M -e 64M -f 64 --out cn.csv > cn.txt 2>err.txt || fail "collective collnet: $(cat err.txt)"
expect_eq "collective: CollNet choices in the CSV" "$(cut -d, -f3,6,9 cn.csv | tail -n +2 | tr '\n' ' ')" \
    "1048576,50.168000,nccl:CollNetDirect/Simple 67108864,404.744000,nccl:CollNetChain/Simple "
grep -Eq "^ +1048576 .* nccl:CollNetDirect/Simple$" cn.txt && pass "collective: CollNet choice in the table" \
    || fail "collective table: $(cat cn.txt)"
# CollNet needs in-switch reduction on the NET: on a Ring NET dimension nccl-collnet changes nothing
printf 'topology: [ Switch, Ring ]\nnpus_count: [ 8, 4 ]\nbandwidth: [ 372.52902984619140625, 37.252902984619140625 ]\nlatency: [ 0, 0 ]\n' > mnr4.yml
expect_eq "4 nodes, Ring NET, nccl-collnet 1: no CollNet" "$(cn r4 1048576 0 analytical | cut -d, -f2)" "$(mn 4 0 1048576 | cut -d, -f2)"
# the default (nccl-collnet 0) is NCCL's (NCCL_COLLNET_ENABLE unset): no CollNet on a Switch NET
expect_eq "4 nodes, nccl-collnet default: Tree/LL128 at 1 MiB" "$(mn 4 0 1048576 | cut -d, -f2)" "nccl:Tree/LL128"
# NCCL's channels on the wire (packet backend): across nodes a message is striped over
# nccl-channels / GPUs per node channels, each a flow (queue pair) of its own.  2 servers of 8 GPUs,
# 64 MiB all-reduce: a ring across the 2 nodes per rail, 2 (n - 1) = 2 messages from each of the 16
# GPUs = 32 messages over the NET; flows.csv lists one row per flow, each crossing the servers
# (NPU / 8 differ): 32 x max(1, C / 8) rows -- C = 8: 32, 16: 64, 64: 256; `merged`: 32 whatever C.
# The rows' bytes add up to the same total as merged's (C changes NCCL's choice of protocol, so the
# bytes on the wire differ between values of C).
"$CS_MKTRACE" ar64.et "1 COLL ctype=0 size=67108864" || fail "mktrace"
printf 'topology: [ Switch, Switch ]\nnpus_count: [ 8, 2 ]\nbandwidth: [ 450, 50 ]\nlatency: [ 500, 1000 ]\n' > n2s.yml
printf '{"builder": "servers", "servers": 2}\n' > s2.json
chrows() { # nccl-channels, backend.packet.channels -> "rows crossing the servers, all rows, bytes"
    rm -rf o
    "$CS_BIN" run --workload-configuration=ar64.et --network-configuration=n2s.yml --system-configuration=nccl2.json \
        --set system.nccl-channels="$1" --topology s2.json --backend packet --set backend.packet.channels="$2" \
        --out o --quiet 2> err.txt || { fail "channels $*: $(cat err.txt)"; return; }
    awk -F, 'NR > 1 { t++; b += $3; if (int($1 / 8) != int($2 / 8)) x++ } END { print x + 0, t + 0, b + 0 }' o/flows.csv
}
for c in 8 16 64; do # merged: the bytes on the wire of this nccl-channels (its choice of protocol)
    m=$(chrows $c merged)
    case $m in "32 32 "[1-9]*) pass "channels: nccl-channels $c merged: one flow per message" ;;
        *) fail "channels: nccl-channels $c merged: got \"$m\", expected 32 rows" ;; esac
    per=$((c / 8))
    expect_eq "channels: nccl-channels $c connections: $per flow(s) per message, the same bytes" \
        "$(chrows $c connections)" "$((32 * per)) $((32 * per)) ${m##* }"
done
# Small sizes run on fewer channels (docs/collectives.md "Channels for small sizes"): an 8 KiB all-reduce
# is Tree/LL on 2 of the 16 (8192 < 3 x 512 threads x 8 bytes), so each NIC carries max(1, 2 / 8) = 1
# flow per message, as merged: 32 rows (64 for the same all-reduce at 64 KiB, on all 16)
"$CS_MKTRACE" ar8k.et "1 COLL ctype=0 size=8192" || fail "mktrace"
rm -rf o
"$CS_BIN" run --workload-configuration=ar8k.et --network-configuration=n2s.yml --system-configuration=nccl2.json \
    --topology s2.json --backend packet --set backend.packet.channels=connections --out o --quiet 2> err.txt ||
    fail "channels 8 KiB: $(cat err.txt)"
expect_eq "channels: 8 KiB on 2 channels: one flow per message" \
    "$(sed -n 2p o/collectives.csv | cut -d, -f16) $(awk -F, 'NR > 1 && int($1 / 8) != int($2 / 8) { x++ } END { print x + 0 }' o/flows.csv)" \
    "nccl:Tree/LL/2ch 32"
# A communicator of one GPU per node (DP with TP 8 on 8-GPU servers) uses its NIC's channels too:
# 16 / 8 = 2 per NIC, not the 16 of the node's graph: twice merged's rows across the servers.
trch() {
    rm -rf o
    "$CS_BIN" train --model llama3-8b --tp 8 --dp 2 --global-batch 2 --set model.transformer.layers=1 --seq 512 \
        --recompute full --device H100-SXM --network-configuration=n2s.yml --topology s2.json --backend packet \
        --set backend.packet.channels="$1" --quiet --out o > /dev/null 2> err.txt || { fail "train channels $1: $(cat err.txt)"; return; }
    awk -F, 'NR > 1 && int($1 / 8) != int($2 / 8) { x++; b += $3 } END { print x + 0, b + 0 }' o/flows.csv
}
tm=$(trch merged)
tc=$(trch connections)
expect_eq "channels: DP of one GPU per node: 2 flows per message (its NIC's share of 16)" \
    "$tc" "$((2 * ${tm%% *})) ${tm##* }"
expect_fail "channels: an unknown value refused by name" "backend.packet.channels: expected one of connections, merged" \
    "$CS_BIN" run --workload-configuration=ar64.et --network-configuration=n2s.yml --system-configuration=nccl2.json \
    --topology s2.json --backend packet --set backend.packet.channels=all --quiet
finish
