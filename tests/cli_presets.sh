#!/usr/bin/env bash
# cli_presets.sh -- the system presets of examples/presets (README.md there,
# docs/presets.md): the committed files are make_presets.sh's exact output;
# `clustersim collective` on every preset gives the closed forms below, worked
# from the spec numbers alone; the multi-node presets' topology.json parses,
# runs on `flow` without the "contradicts the logical dimensions" warning, and
# gives the analytical time.
#
# Notation (docs/collectives.md): B = the file's GB/s x 2^30 / 1e9 bytes/ns,
# net(m) = trunc(2 L + m / B) through a Switch (2 hops of latency L), d = the
# endpoint delay (3400 ns, NCCL's NVLink Ring/Simple hwLat), no local
# reduction (local-mem-bw 1e12 GB/s: 3 trunc(m / 1e12) = 0), one chunk.
# Single node, n GPUs, L = 0, ring:
#   all-reduce of S:      d + 2(n-1)(trunc(S/n / B) + d)
#   reduce-scatter of S:  d + (n-1)(trunc(S/n / B) + d)
#   all-gather of S (the gathered buffer; each rank sends its S/n):  the same.
# Two dimensions (g GPUs per node x N nodes, localBWAware, L1 = 5300 ns):
#   all-reduce = RS in the node on S + all-reduce across nodes on S/g + AG in
#   the node (message S/g):  2 [d + (g-1)(net0(S/g) + d)]
#                            + d + 2(N-1)(net1(S/(gN)) + d)
#   reduce-scatter = RS in the node on S, then RS across on S/g:
#                            d + (g-1)(net0(S/g) + d) + d + (N-1)(net1(S/(gN)) + d)
#   all-gather = AG across nodes of the shard S/(gN), then AG in the node of
#   N shards:                d + (N-1)(net1(S/(gN)) + d) + d + (g-1)(net0(S/g) + d)
# Large-size bus bandwidth (nccl-tests' busbw = algbw x 2(n-1)/n for
# all-reduce, x (n-1)/n for the others): single node = the stated per-GPU
# NVLink bandwidth (A100 12 x 20.0 = 240, H100/H200 18 x 20.6 = 370.8,
# B200/GB200 18 x 40.1 = 721.8 GB/s) to within the step latencies (< 0.5 %
# at 16 S: 2(n-1) x 3.4 us against S/B); two dimensions, all-reduce: algbw = 1 / (2(g-1)/(g B0) +
# 2(N-1)/(N g B1)) to within 0.5 % at 16 x gN x 16 MiB (the 2(N-1) steps of 14 us
# and 2(g-1) of 3.4 us are below 0.25 % of the time there).
# collective-model nccl (system_nccl.json, one node; across nodes: below): docs/collectives.md,
# "The nccl model": NVLS all-reduce T = 2 x 12500 + trunc(ceil(S/e) / B),
# e = nvlsEfficiency x (H-1)/H x 2 x n / (2(n-1)) (Hopper 0.85, Blackwell
# 0.74; H = min(n, 32), the channels of NCCL's NVLS graph on one node: e =
# nvlsEfficiency for n <= 32, 0.74 x 31/32 x 72/71 for GB200 NVL72); Ring/Simple (DGX A100, no NVLS) T = 8400 + 3400 +
# 2(n-1)(trunc(S/n / B) + 3400).
. "$(dirname "$0")/lib_cli.sh"
cd "$CS_TMP" || exit 1
P="${CS_SOURCE_DIR:-$(dirname "$0")/..}/examples/presets"
[ -d "$P" ] || P="$(dirname "$0")/../examples/presets"

# ---- the committed files are the generator's output ---------------------------------------------
bash "$P/make_presets.sh" gen >gen.log 2>&1 || fail "make_presets.sh: $(cat gen.log)"
if diff -r -x make_presets.sh -x tables.sh -x README.md "$P" gen >diff.txt; then pass "presets = make_presets.sh output"
else fail "presets differ from make_presets.sh output: $(head -20 diff.txt)"; fi

# bytes/ns of a network file's dimension k (0-based), as the backends read it
bw() { awk -v k="$2" '/^bandwidth:/ { gsub(/[][,]/, " "); printf "%.17g\n", $(k + 2) * 1073741824 / 1e9 }' "$1"; }

# run NAME OP SIZE SYSTEM [flags]: time in ns (integer) and busbw from the CSV (run_net NAME NETWORK ...:
# on the preset's NETWORK file instead of network.yml)
run() { run_net "$1" network.yml "${@:2}"; }
run_net() {
    local name=$1 net=$2 op=$3 s=$4 sys=$5; shift 5
    "$CS_BIN" collective --network-configuration="$P/$name/$net" --system-configuration="$P/$name/$sys" \
        --op "$op" -b "$s" -e "$s" --quiet --out "r.csv" "$@" 2>err.txt ||
        { echo "$name $op $s: $(cat err.txt)" >>runs_failed.txt; echo "-1 -1"; return 1; }
    sed -n 2p r.csv | awk -F, '{ printf "%.0f %s\n", $6 * 1000, $8 }'
}

check_t() { # LABEL GOT WANT
    [ "$2" = "$3" ] && pass "$1: $3 ns" || fail "$1: $2 ns, expected $3"
}
check_bus() { # LABEL GOT WANT TOL(relative)
    awk -v g="$2" -v w="$3" -v t="$4" 'BEGIN { e = g / w - 1; exit !(e <= t && e >= -t) }' \
        && pass "$1: busbw $2 GB/s = $3 within $4" || fail "$1: busbw $2 GB/s, expected $3 within $4"
}

D=3400
# ---- one node: name  GPUs  stated NVLink GB/s  a size divisible by n --------------------------------
while read -r name n stated S; do
    B=$(bw "$P/$name/network.yml" 0)
    awk -v b="$B" -v s="$stated" 'BEGIN { exit !(b > s * 0.999999 && b < s * 1.000001) }' \
        && pass "$name: file bandwidth = $stated GB/s" || fail "$name: file bandwidth $B bytes/ns, stated $stated"
    step=$(awk -v s="$S" -v n="$n" -v b="$B" 'BEGIN { printf "%d", int(s / n / b) }')
    ar=$((D + 2 * (n - 1) * (step + D))); rs=$((D + (n - 1) * (step + D)))
    read -r t bus <<<"$(run "$name" all_reduce "$S" system.json)" && check_t "$name ring all-reduce $S B" "$t" "$ar"
    read -r t bus <<<"$(run "$name" reduce_scatter "$S" system.json)" && check_t "$name ring reduce-scatter $S B" "$t" "$rs"
    read -r t bus <<<"$(run "$name" all_gather "$S" system.json)" && check_t "$name ring all-gather $S B" "$t" "$rs"
    # 16 x S (64 GiB on 8 GPUs): busbw is the stated bandwidth to within the latencies
    for op in all_reduce all_gather reduce_scatter; do
        read -r t bus <<<"$(run "$name" $op $((16 * S)) system.json)" && check_bus "$name $op $((16 * S)) B" "$bus" "$stated" 0.005
    done
done <<'TABLE'
dgx_a100 8 240 4294967296
hgx_h100 8 370.8 4294967296
hgx_h200 8 370.8 4294967296
hgx_b200 8 721.8 4294967296
gb200_nvl72 72 721.8 4831838208
TABLE

# ---- one node, collective-model nccl --------------------------------------------------------------
# name  n  NVLS efficiency (0 = no NVLS: Ring/Simple)  size
while read -r name n eff S; do
    B=$(bw "$P/$name/network.yml" 0)
    if [ "$eff" = 0 ]; then
        want=$(awk -v s="$S" -v n="$n" -v b="$B" 'BEGIN { printf "%d", 8400 + 3400 + 2 * (n - 1) * (int(s / n / b) + 3400) }')
        what="Ring/Simple"
    else
        want=$(awk -v s="$S" -v n="$n" -v b="$B" -v f="$eff" 'BEGIN {
            h = n < 32 ? n : 32; e = f * (h - 1) / h * 2 * n / (2 * (n - 1)); x = s / e; c = int(x); if (c < x) c++
            printf "%d", 25000 + int(c / b) }')
        what="NVLS"
    fi
    read -r t bus <<<"$(run "$name" all_reduce "$S" system_nccl.json)" && check_t "$name nccl $what all-reduce $S B" "$t" "$want"
done <<'TABLE'
dgx_a100 8 0 4294967296
hgx_h100 8 0.85 4294967296
hgx_h200 8 0.85 4294967296
hgx_b200 8 0.74 4294967296
gb200_nvl72 72 0.74 4831838208
TABLE

# ---- multi-node: name  g  N  stated NVLink GB/s  stated NIC GB/s ------------------------------------
while read -r name g N s0 s1; do
    B0=$(bw "$P/$name/network.yml" 0); B1=$(bw "$P/$name/network.yml" 1)
    awk -v b="$B1" -v s="$s1" 'BEGIN { exit !(b > s * 0.999999 && b < s * 1.000001) }' \
        && pass "$name: NIC bandwidth = $s1 GB/s" || fail "$name: NIC bandwidth $B1 bytes/ns, stated $s1"
    S=$((g * N * 16777216))
    read -r n0 n1 <<<"$(awk -v s="$S" -v g="$g" -v N="$N" -v b0="$B0" -v b1="$B1" \
        'BEGIN { printf "%d %d", int(s / g / b0), int(10600 + s / (g * N) / b1) }')"
    inn=$((D + (g - 1) * (n0 + D)))
    ar=$((2 * inn + D + 2 * (N - 1) * (n1 + D))); rs=$((inn + D + (N - 1) * (n1 + D)))
    read -r t bus <<<"$(run "$name" all_reduce "$S" system.json)" && check_t "$name all-reduce $S B" "$t" "$ar"
    read -r t bus <<<"$(run "$name" reduce_scatter "$S" system.json)" && check_t "$name reduce-scatter $S B" "$t" "$rs"
    read -r t bus <<<"$(run "$name" all_gather "$S" system.json)" && check_t "$name all-gather $S B" "$t" "$rs"
    # large size: busbw from the two stated bandwidths alone
    want=$(awk -v g="$g" -v N="$N" -v b0="$s0" -v b1="$s1" \
        'BEGIN { n = g * N; alg = 1 / (2 * (g - 1) / (g * b0) + 2 * (N - 1) / (N * g * b1)); print alg * 2 * (n - 1) / n }')
    read -r t bus <<<"$(run "$name" all_reduce $((16 * S)) system.json)" && check_bus "$name all-reduce $((16 * S)) B" "$bus" "$want" 0.005
    # the physical fabric: parses, agrees with the dimensions (no warning), same time uncontended
    read -r ta bus <<<"$(run "$name" all_reduce 1048576 system.json)"
    read -r tf bus <<<"$(run "$name" all_reduce 1048576 system.json --backend flow --topology "$P/$name/topology.json")"
    if grep -qi "warn" err.txt; then fail "$name flow: warning $(cat err.txt)"; else pass "$name: topology.json without a warning"; fi
    awk -v a="$ta" -v f="$tf" 'BEGIN { exit !(f >= a - 2 && f <= a + 2) }' \
        && pass "$name flow 1 MiB all-reduce $tf ns = analytical $ta" || fail "$name flow $tf ns, analytical $ta"
    # the same servers on a plain-wired 3:1 Clos (x32): parses, no warning, and no faster than the closed form
    # (every ring step still needs its bytes through one NIC at B1: the rail fabric's time is the least possible)
    if [ -f "$P/$name/topology_plain_3to1.json" ]; then
        read -r tp bus <<<"$(run "$name" all_reduce "$S" system.json --backend flow --topology "$P/$name/topology_plain_3to1.json")"
        if grep -qi "warn" err.txt; then fail "$name plain Clos: warning $(cat err.txt)"; else pass "$name: topology_plain_3to1.json without a warning"; fi
        [ "${tp:-0}" -ge "$ar" ] && pass "$name plain 3:1 Clos all-reduce $S B: $tp ns >= $ar" || fail "$name plain 3:1 Clos: $tp ns < closed form $ar"
    fi
done <<'TABLE'
dgx_a100_x4 8 4 240 25
dgx_a100_x32 8 32 240 25
hgx_h100_x4 8 4 370.8 50
hgx_h100_x32 8 32 370.8 50
hgx_h200_x4 8 4 370.8 50
hgx_h200_x32 8 32 370.8 50
hgx_b200_x4 8 4 721.8 50
hgx_b200_x32 8 32 721.8 50
gb200_nvl72_x4 72 4 721.8 50
TABLE

# ---- multi-node, collective-model nccl (system_nccl.json on network_nccl.yml: latencies 0) ------------
# docs/collectives.md, "Across nodes"; g = 8 GPUs per node, N = 4 nodes, n = 32, C = 16, all-reduce of
# S = 4 GiB: nsteps = 62, nInter = 2(N-1) = 6.  B0 = NVLink, B1 = NIC (bytes/ns as the backends read them).
# Simulated: T = lat + 6 trunc(trunc(X/N) / B1), X = ceil(S / algbw x B1 / f), f = 2(N-1)/N = 1.5.
#  hgx_h100_x4 (Hopper, Intel): Ring/Simple.  lat = (8.4 + 56 max(3.4, 3 x 1.0) + 6 x 14) x 1.4 = 395.92 us
#    (plateau x 1.4: S/(C n) >= 64); busbw = min(B0, 8 B1) = min(370.8, 400) = 370.8, algbw x 32/62 =
#    191.380645: X = 748067165, X/4 = 187016791, / 50 = 3740335 ns a step: T = 395920 + 6 x 3740335
#    = 22837930 ns.  (NVLS-tree: 108.6 us + S / (8 min(68.94, 400/8, 45.5) x 32/62 = 187.87) = 22970 us,
#    Tree/Simple at 0.92 x 370.8 x 0.5 slower still: the ring is NCCL's least.)
#  dgx_a100_x4 (Ampere, AMD, no NVLS): Ring/Simple.  lat = (8.4 + 56 max(3.4, 3 x 2.0) + 6 x 14) x 1.4
#    = 599.76 us; busbw = min(240, 8 x 25) = 200 (the NICs bind), algbw 103.225806: X = 693458262,
#    X/4 = 173364565, / 25 = 6934582 ns: T = 599760 + 6 x 6934582 = 42207252 ns.  (Tree: 0.92 x 200 x
#    0.5 = 92 GB/s algbw, below the ring's 103.2.)
#  hgx_b200_x4 (Blackwell, Intel): NVLS-tree.  lat = 25 + 2 log2(4) x 20.9 = 108.6 us; busbw = 8 min(
#    721.8/8 x 0.74 x 7/8 x 2 = 116.8, min(721.8, 400)/8 = 50, 80) = 400, algbw 206.451613 (no tree
#    correction at 4 GiB: log2(S/64) = 26 >= 24): X = 693458262, X/4 = 173364565, / 50 = 3467291 ns:
#    T = 108600 + 6 x 3467291 = 20912346 ns.  (Ring/Simple: the same 400, 395.92 us of latency.)
# name  lat_ns  algorithm (nvlstree: its busbw above; ring: min(B0, 8 B1))
while read -r name lat algo; do
    B0=$(bw "$P/$name/network_nccl.yml" 0); B1=$(bw "$P/$name/network_nccl.yml" 1)
    want=$(awk -v s=4294967296 -v b0="$B0" -v b1="$B1" -v lat="$lat" -v a="$algo" 'BEGIN {
        bus = b0 < 8 * b1 ? b0 : 8 * b1
        if (a == "nvlstree") { intra = b0 / 8 * 0.74 * 7 / 8 * 2; per = bus / 8; if (intra < per) per = intra
                               if (per > 80) per = 80; bus = 8 * per }
        x = s / (bus * (32 / 62)) * b1 / 1.5; X = int(x); if (X < x) X++
        printf "%d", lat + 6 * int(int(X / 4) / b1) }')
    read -r t bus <<<"$(run_net "$name" network_nccl.yml all_reduce 4294967296 system_nccl.json)" \
        && check_t "$name nccl $algo all-reduce 4 GiB" "$t" "$want"
done <<'TABLE'
hgx_h100_x4 395920 ring
dgx_a100_x4 599760 ring
hgx_b200_x4 108600 nvlstree
TABLE
# every multi-node preset with system_nccl.json: at 4 GiB NCCL's all-reduce busbw is bounded by what its
# rings over all rails can carry, min(NVLink, g x NIC) (on N > 2 nodes the trees and NVLS-tree too:
# docs/collectives.md), and is at least the astra preset's (its three phases one after another)
# name  g  stated NVLink GB/s  stated NIC GB/s
while read -r name g s0 s1; do
    read -r ta busa <<<"$(run "$name" all_reduce 4294967296 system.json)"
    read -r tn busn <<<"$(run_net "$name" network_nccl.yml all_reduce 4294967296 system_nccl.json)"
    cap=$(awk -v a="$s0" -v b="$s1" -v g="$g" 'BEGIN { c = g * b; print (a < c ? a : c) }')
    awk -v b="$busn" -v c="$cap" -v a="$busa" 'BEGIN { exit !(b <= c * 1.000001 && b >= a) }' \
        && pass "$name nccl 4 GiB all-reduce busbw $busn: astra $busa <= it <= min(NVLink, $g NICs) = $cap" \
        || fail "$name nccl 4 GiB all-reduce busbw $busn outside [astra $busa, $cap]"
done <<'TABLE'
dgx_a100_x4 8 240 25
dgx_a100_x32 8 240 25
hgx_h100_x4 8 370.8 50
hgx_h100_x32 8 370.8 50
hgx_h200_x4 8 370.8 50
hgx_h200_x32 8 370.8 50
hgx_b200_x4 8 721.8 50
hgx_b200_x32 8 721.8 50
TABLE
# ---- multi-node with SHARP (system_nccl_sharp.json: nccl-collnet on; docs/collectives.md "CollNet") ----------
# S = 4 GiB on 4 nodes (n = 32), simulated as one inSwitch phase on the NET: T = lat + trunc(X / B1),
# X = ceil(S / algbw x B1).
#  hgx_h100_x4: NVLS + SHARP, lat 25 + 18 = 43 us; busbw 8 min(B0/8 x 0.85 x 7/8 x 2 = 68.94, min(B0, 8 B1)/8
#    = 46.35) = B0 = 370.8, algbw x 32/62 = 191.38 -- the ring's bandwidth at 43 instead of 395.92 us of
#    latency (CollNet Direct: 0.85 B0 x 0.5 = 157.6; Chain: B0 x 0.5 = 185.4; NVLS-tree 187.87: all below)
#  dgx_a100_x4 (Ampere, no NVLS): CollNet Direct, lat 2 (3.7 + 7 x 0.4) + 31 = 44 us; busbw min(B0, 2 x 8 x
#    B1) = min(240, 400) = 240 (no x 0.85 before Hopper), algbw 120 (Chain: the same 120 at 69.2 us)
# name  lat_ns  algorithm  algbw (awk, from B0 as the backends read it)
while read -r name lat algo; do
    B0=$(bw "$P/$name/network_nccl.yml" 0); B1=$(bw "$P/$name/network_nccl.yml" 1)
    want=$(awk -v s=4294967296 -v b0="$B0" -v b1="$B1" -v lat="$lat" -v a="$algo" 'BEGIN {
        alg = a == "NVLS" ? b0 * 32 / 62 : b0 / 2
        x = s / alg * b1; X = int(x); if (X < x) X++
        printf "%d", lat + int(X / b1) }')
    "$CS_BIN" collective --network-configuration="$P/$name/network_nccl.yml" \
        --system-configuration="$P/$name/system_nccl_sharp.json" -b 4G -e 4G --quiet --out sharp.csv 2>err.txt \
        || fail "$name sharp: $(cat err.txt)"
    got=$(sed -n 2p sharp.csv | awk -F, '{ printf "%.0f %s", $6 * 1000, $9 }')
    [ "$got" = "$want nccl:$algo/Simple" ] && pass "$name SHARP 4 GiB all-reduce: $algo, $want ns" \
        || fail "$name SHARP 4 GiB all-reduce: $got, expected $want nccl:$algo/Simple"
done <<'TABLE'
hgx_h100_x4 43000 NVLS
dgx_a100_x4 44000 CollNetDirect
TABLE
# gb200_nvl72_x4 has none (Grace hosts: nccl-cpu models x86 only; docs/presets.md)
[ ! -f "$P/gb200_nvl72_x4/system_nccl.json" ] && pass "gb200_nvl72_x4: no system_nccl.json" \
    || fail "gb200_nvl72_x4 has a system_nccl.json: add it to the checks above"

# ---- the physical topology against the logical dimensions (issue 11 item 5): a fat-tree of NIC-speed links
# under hgx_h100_x4's NVLink dimension is warned about, naming dimension 0
printf '{"builder": "fat-tree", "npus_per_leaf": 8, "spines": 4, "link_bandwidth": 46.56612873}\n' > ft32.json
"$CS_BIN" collective --network-configuration="$P/hgx_h100_x4/network.yml" --system-configuration="$P/hgx_h100_x4/system.json" \
    -b 1M -e 1M --quiet --backend flow --topology ft32.json 2>w.txt || fail "fat-tree run: $(cat w.txt)"
grep -q "dimension 0 (Switch of 8 NPUs, 345.334 GB/s).*contradicts the logical dimensions" w.txt \
    && pass "a fat-tree under the NVLink dimension is warned about" || fail "no dimension warning: $(cat w.txt)"

# ... and servers of 4 GPUs under the same dimension of 8: rank 1 is on rank 0's NVSwitch, rank 4 behind a
# NIC (46.57 GB/s against 345.334): warned, naming rank 4 (before: only the neighbour, rank 1, was checked)
printf '{"builder": "rail", "servers": 8, "gpus_per_server": 4, "nvlink_bandwidth": 345.3344107,
 "nic_bandwidth": 46.56612873, "nic_latency": 5300, "spines": 4}\n' > rail4.json
"$CS_BIN" collective --network-configuration="$P/hgx_h100_x4/network.yml" --system-configuration="$P/hgx_h100_x4/system.json" \
    -b 1M -e 1M --quiet --backend flow --topology rail4.json 2>w.txt || fail "4-GPU servers run: $(cat w.txt)"
grep -q "dimension 0 (Switch of 8 NPUs, 345.334 GB/s) but the topology's route from rank 0 to rank 4 (a member of its line in that dimension) has a bottleneck of 46.57 GB/s" w.txt \
    && ! grep -q "dimension 1" w.txt && pass "4-GPU servers under an 8-GPU NVLink dimension are warned about (dimension 0 only)" \
    || fail "no warning for 4-GPU servers: $(cat w.txt)"

# ---- every preset has its files and each system file parses --------------------------------------
n=0
for d in "$P"/*/; do
    n=$((n + 1))
    for f in network.yml system.json; do [ -f "$d/$f" ] || fail "$d: no $f"; done
done
[ "$n" -eq 14 ] && pass "14 presets" || fail "$n presets, expected 14"
# (run's failures happen in a subshell: collected here)
[ -s runs_failed.txt ] && fail "runs that failed: $(cat runs_failed.txt)" || pass "every run succeeded"
finish
