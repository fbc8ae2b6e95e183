#!/usr/bin/env bash
# packet_htsim.sh -- issue 14's performance comparison: the packet backend
# side by side with htsim's RoCE (Broadcom/csg-htsim, sim/datacenter/htsim_roce)
# on the same two scenarios in one run (results and the differences between the
# two setups in docs/performance.md, "Packet backend", and docs/network.md):
#   perm1k    a 1,024-host two-tier fat-tree (32 leaves of 32 hosts, 32 spines,
#             1:1, 400 Gb/s = 50e9 B/s, 1 us per link): host r sends 2 MB to host
#             (389 r + 17) mod 1024 (the permutation of bench/packet.sh)
#   incast16  hosts 60, 120, ..., 960 send 2 MB each to host 0 on that fat-tree
# Both lossless (PFC), no congestion control, ECMP, payload MTU 4096 bytes.
#
# htsim is a peer built BESIDE the project, never copied into it, and this
# script never downloads it.  Get it once, e.g.
#   git clone https://github.com/Broadcom/csg-htsim /work/peers/htsim
# and point HTSIM_DIR at the checkout (the directory holding sim/).  If
# sim/datacenter/htsim_roce is not built, the script builds it there with the
# peer's own Makefiles (make -C sim; make -C sim/datacenter htsim_roce).
#
# usage: HTSIM_DIR=/work/peers/htsim bench/packet_htsim.sh [CLUSTERSIM] [MKTRACE] [case ...]
# env:   HTSIM_DIR (required; exit 77 when absent), REPS_incast16 (20: the
#        incast takes ~0.02 s, below /usr/bin/time's 10 ms resolution, so each
#        tool runs it that many times under one /usr/bin/time), REPS_perm1k (3),
#        HTSIM_PFC ("LOW HIGH" packets; default: the XON/XOFF level of ours at
#        an otherwise empty leaf, see below), NICE (nice level, 10).
set -u
if [ -z "${HTSIM_DIR:-}" ] || [ ! -f "$HTSIM_DIR/sim/Makefile" ] || [ ! -f "$HTSIM_DIR/sim/datacenter/main_roce.cpp" ]; then
    echo "packet_htsim.sh: htsim not found (HTSIM_DIR='${HTSIM_DIR:-}')." >&2
    echo "  Clone it beside the project (not inside it), e.g." >&2
    echo "    git clone https://github.com/Broadcom/csg-htsim /work/peers/htsim" >&2
    echo "  then run: HTSIM_DIR=/work/peers/htsim bench/packet_htsim.sh" >&2
    exit 77
fi
HTSIM_DIR=$(realpath "$HTSIM_DIR")
HERE=$(dirname "$(realpath "$0")")
BIN=$(realpath "${1:-build/clustersim}")
MK=$(realpath "${2:-build/tests/cs_mktrace}")
shift 2 2>/dev/null
CASES=${*:-perm1k incast16}
NICE=${NICE:-10}
DC=$HTSIM_DIR/sim/datacenter
if [ ! -x "$DC/htsim_roce" ]; then
    echo "building htsim_roce in $DC (beside the project) ..." >&2
    if ! make -C "$HTSIM_DIR/sim" -j2 >/dev/null || ! make -C "$DC" -j2 htsim_roce >/dev/null; then
        echo "packet_htsim.sh: building htsim failed" >&2
        exit 1
    fi
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1

# htsim prints no event count.  Count its events without touching its source:
# relink its own objects with EventList::doNextEvent wrapped (ld --wrap) by a
# counter that is ours (an increment per event).  If that fails, time the
# unmodified binary and report events as n/a.
cat > evcount.cpp <<'EOF'
#include <cstdio>
static unsigned long long n_events;
extern "C" bool __real__ZN9EventList11doNextEventEv(void *self);
extern "C" bool __wrap__ZN9EventList11doNextEventEv(void *self) {
    bool r = __real__ZN9EventList11doNextEventEv(self);
    n_events += r;
    return r;
}
__attribute__((destructor)) static void report(void) { fprintf(stderr, "htsim events: %llu\n", n_events); }
EOF
HT=$DC/htsim_roce
OBJS=(firstfit.o main_roce.o vl2_topology.o fat_tree_topology.o fat_tree_switch.o bcube_topology.o connection_matrix.o
      oversubscribed_fat_tree_topology.o shortflows.o star_topology.o multihomed_fat_tree_topology.o) # htsim_roce's, from its Makefile
if g++ -O2 -c evcount.cpp -o evcount.o 2>/dev/null &&
    (cd "$DC" && g++ -O2 -g "${OBJS[@]}" "$TMP/evcount.o" -L.. -lhtsim -Wl,--wrap=_ZN9EventList11doNextEventEv \
        -o "$TMP/htsim_roce_counted") 2>/dev/null; then
    HT=$TMP/htsim_roce_counted
else
    echo "note: could not relink htsim with an event counter; htsim events are n/a" >&2
fi

# ---- clustersim inputs (as bench/packet.sh) ----
# Link speed: exactly 400 Gb/s = 50e9 B/s in both.  clustersim reads GB/s as
# GiB/s (ASTRA-sim's unit, docs/config.md): 50e9 / 2^30 = 46.566128730773926.
# (bench/packet.sh gives 50 "GB/s" = 53.69e9 B/s; htsim's topology file takes
# whole Gb/s only, so this scenario uses 400 Gb/s on both sides instead.)
BW=46.566128730773926
. "$HERE/packet_scenario.sh" # net.yml, ft.json, sys.json, perm.*, inc.* (as bench/packet.sh, at BW)
packet_scenario "$BW" || exit 1

# ---- htsim inputs: the same fat-tree and flows ----
# 2 tiers, one pod of 1,024 hosts: 32 ToRs (32 down, 32 up), 32 spines of
# radix 32, 400 Gb/s and 1,000 ns everywhere, no switch latency.
printf 'Nodes %d\nTiers 2\nPodsize %d\n\nTier 0\nDownlink_speed_Gbps 400\nRadix_Down 32\nRadix_Up 32\nDownlink_Latency_ns 1000\nSwitch_Latency_ns 0\n\nTier 1\nDownlink_speed_Gbps 400\nRadix_Down 32\nDownlink_Latency_ns 1000\nSwitch_Latency_ns 0\nBundle 1\n' $N $N > ft.topo
{
    printf 'Nodes %d\nConnections %d\n' $N $N
    for ((r = 0; r < N; r++)); do printf '%d->%d id %d start 0 size %d\n' $r $(( (389 * r + 17) % N )) $((r + 1)) $BYTES; done
} > perm.cm
{
    printf 'Nodes %d\nConnections 16\n' $N
    for ((k = 1; k <= 16; k++)); do printf '%d->0 id %d start 0 size %d\n' $((k * 60)) $k $BYTES; done
} > inc.cm
# PFC: ours is a dynamic threshold on a shared buffer (32 MiB per switch less
# a headroom of 2 x 1 us x 50 B/ns + 2 x 4178 + 64 bytes per ingress link;
# XOFF when an ingress holds alpha = 1/8 of the free shared bytes, XON two
# wire MTUs lower).  htsim's is a fixed per-ingress level in packets (its
# default 12/15).  At a leaf with one busy ingress ours is at
# shared x alpha / (1 + alpha) = (33554432 - 64 x 108420) / 9 = 2957284
# bytes = 711 htsim packets of 4160 bytes; XON 2 MTUs lower: 709.
HTSIM_PFC=${HTSIM_PFC:-709 711}
read -r PFC_LO PFC_HI <<<"$HTSIM_PFC"
# Per-port queue limit: 32 MiB / 4160 = 8066 packets (htsim's lossless queues
# only warn above it).  -end: 100 ms of simulated time, far past the last
# flow (htsim runs to -end; only its 50 ms clock ticks are left by then).
HTARGS=(-topo ft.topo -nodes "$N" -strat ecmp_host -paths 256 -linkspeed 400000 -mtu 4096 -q 8066 -end 100000 -seed 13
    -pfc_thresholds "$PFC_LO" "$PFC_HI" -o /dev/null)

printf '| case | simulator | runs | flows done | FCT min / median / max (us) | delivered GB | events | wall (s) | CPU (s) | peak RSS (MB) | GB / CPU-s | Mevents / CPU-s |\n'
printf '|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|\n'
run_cs() { # $1 case, $2 flows, $3 reps, $4 workload
    local c=$1 nf=$2 reps=$3 wl=$4
    rm -rf cs_*
    # shellcheck disable=SC2016 # the loop's variables are bash -c's own
    /usr/bin/time -f '%e %U %S %M' -o t_cs.txt nice -n "$NICE" bash -c '
        bin=$1 reps=$2 wl=$3
        for ((i = 1; i <= reps; i++)); do
            "$bin" run --workload-configuration="$wl" --network-configuration=net.yml --system-configuration=sys.json \
                --topology=ft.json --backend packet --set backend.packet.cc=none --quiet --out "cs_$i" >/dev/null 2>cs_err.txt || exit 1
        done' _ "$BIN" "$reps" "$wl" || { echo "| $c | clustersim | failed: $(head -c 300 cs_err.txt) |"; return; }
    python3 - "$c" "$nf" "$reps" <<'PY'
import csv, json, sys
c, nf, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
wall, user, sys_, rss = open("t_cs.txt").read().split()
cpu = float(user) + float(sys_)
ev = byt = done = 0
fct = []
for i in range(1, reps + 1):
    s = json.load(open(f"cs_{i}/summary.json"))
    ev += s["totals"]["events"]
    byt += s["totals"]["network_bytes"]
    rows = list(csv.DictReader(open(f"cs_{i}/flows.csv")))
    done += sum(1 for r in rows if int(r["bytes"]) > 0 and r["finish_ns"] != "")
    if i == 1:
        fct = sorted(float(r["fct_ns"]) / 1e3 for r in rows if int(r["bytes"]) > 0)
ok = "" if done == nf * reps else " (INCOMPLETE)"
gb = byt / 1e9
print(f"| {c} | clustersim | {reps} | {done // reps}/{nf}{ok} | {fct[0]:.1f} / {fct[len(fct) // 2]:.1f} / {fct[-1]:.1f} | {gb:.3f} | {ev} | "
      f"{float(wall):.2f} | {cpu:.2f} | {int(rss) / 1024:.0f} | {gb / cpu:.3f} | {ev / cpu / 1e6:.2f} |")
print(f"{gb / cpu} {ev / cpu} {int(done == nf * reps)}", file=open("ratio_cs.txt", "w"))
PY
}
run_ht() { # $1 case, $2 flows, $3 reps, $4 connection matrix
    local c=$1 nf=$2 reps=$3 cm=$4
    rm -f ht_*.out
    # shellcheck disable=SC2016 # the loop's variables are bash -c's own
    /usr/bin/time -f '%e %U %S %M' -o t_ht.txt nice -n "$NICE" bash -c '
        ht=$1 reps=$2 cm=$3
        shift 3
        for ((i = 1; i <= reps; i++)); do "$ht" -tm "$cm" "$@" >"ht_$i.out" 2>&1 || exit 1; done' _ "$HT" "$reps" "$cm" "${HTARGS[@]}" ||
        { echo "| $c | htsim | failed: $(tail -c 300 ht_*.out | tr '\n' ' ') |"; return; }
    python3 - "$c" "$nf" "$reps" "$BYTES" <<'PY'
import re, sys
c, nf, reps, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
wall, user, sys_, rss = open("t_ht.txt").read().split()
cpu = float(user) + float(sys_)
ev, done, warn, evok = 0, 0, 0, True
fct = []
for i in range(1, reps + 1):
    t = open(f"ht_{i}.out").read()
    # "Flow Roce_343_324 15497 finished at 44.9894 total bytes 2002944": printed once per flow, at its last ACK
    f = [float(x) for x in re.findall(r"^Flow \S+ \d+ finished at (\S+) total bytes", t, re.M)]
    done += len(f)
    warn += t.count("LOSSLESS not working")
    m = re.search(r"^htsim events: (\d+)", t, re.M)
    if m: ev += int(m.group(1))
    else: evok = False
    if i == 1: fct = sorted(f)
ok = "" if done == nf * reps else " (INCOMPLETE)"
gb = done * size / 1e9 # payload of the finished flows (htsim pads the last packet to a full MTU; not counted)
evs = str(ev) if evok else "n/a"
eps = f"{ev / cpu / 1e6:.2f}" if evok else "n/a"
print(f"| {c} | htsim roce | {reps} | {done // reps}/{nf}{ok} | {fct[0]:.1f} / {fct[len(fct) // 2]:.1f} / {fct[-1]:.1f} | {gb:.3f} | {evs} | "
      f"{float(wall):.2f} | {cpu:.2f} | {int(rss) / 1024:.0f} | {gb / cpu:.3f} | {eps} |")
if warn: print(f"  (htsim warned {warn} times that a lossless queue passed its size)", file=sys.stderr)
try:
    gcs, ecs, csok = map(float, open("ratio_cs.txt").read().split())
    r = f"| {c} | ratio clustersim / htsim | | | | | | | | | {gcs / (gb / cpu):.1f}x | " + (f"{ecs / (ev / cpu):.1f}x |" if evok else "n/a |")
    if not csok or ok:
        r += " not comparable: a run did not complete every flow"
    print(r)
except (OSError, ValueError, ZeroDivisionError):
    pass
PY
}
for c in $CASES; do
    rm -f ratio_cs.txt
    case $c in
    perm1k) run_cs perm1k $N "${REPS_perm1k:-3}" perm; run_ht perm1k $N "${REPS_perm1k:-3}" perm.cm ;;
    incast16) run_cs incast16 16 "${REPS_incast16:-20}" inc; run_ht incast16 16 "${REPS_incast16:-20}" inc.cm ;;
    *) echo "unknown case $c" ;;
    esac
done
echo
echo "htsim: $(git -C "$HTSIM_DIR" log -1 --format='%h %cs' 2>/dev/null || echo '(commit unknown)') $HT; PFC XON/XOFF $HTSIM_PFC packets"
echo "clustersim: $(git -C "$(dirname "$BIN")" log -1 --format='%h %cs' 2>/dev/null || echo '(commit unknown)') $BIN"
