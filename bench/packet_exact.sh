#!/usr/bin/env bash
# packet_exact.sh -- the packet backend's results byte for byte against a
# reference build: for a restructuring of the backend's hot paths (or the
# event queue) that must not change any result.  Runs the same set of packet
# runs with two binaries and compares every output file (summary.json,
# ranks.csv, collectives.csv, links.csv, flows.csv and the Perfetto trace with
# its queue_bytes / pfc_paused counter tracks), the exit code and stderr --
# all but summary.json's count of events dispatched, which a change that
# folds events may lower: it is printed beside, and must match otherwise.
#
# usage: bench/packet_exact.sh REF_CLUSTERSIM NEW_CLUSTERSIM [MKTRACE]
#   e.g. a build of main in /tmp/main-build and this tree's build:
#   bench/packet_exact.sh /tmp/main-build/clustersim build/clustersim build/tests/cs_mktrace
# Exit 0 when every run's outputs are identical, 1 otherwise (the differing
# runs named).  The runs (on a 16-NPU fat-tree of 2 leaves and 2 spines, 4:1,
# 50 GB/s, 1 us; the example RoCE system; plus a 4-leaf 1,024-rank-shaped
# training step of 64 GPUs on HGX-like servers):
#   lossless (PFC, no cc): ring all-reduce; 7-to-1 incast with a 2 MiB buffer
#   (PFC pauses); cut-through; 3 priorities with DWRR; VOQ spines
#   ECMP, packet spraying, per-packet spraying, flowlets, adaptive routing
#   congestion control dcqcn, dctcp, hpcc, timely, swift (lossless and lossy)
#   lossy: go-back-N and selective repeat under a 2 % random loss; tcp
#   (newreno, cubic) and udp on a 4:1 all-to-all that drops
#   the incast with a retransmit timeout of 2 or 5 us and retry_limit 1 (flows
#   stop while packets of theirs are in flight: the run fails, its message)
#   a Llama 3 8B step (TP 8, DP 8) on 8 servers, packet backend (train)
#   on a 4 x 4 torus (NPUs that forward: paths of 1 to 4 links end on one
#   link): the all-to-all lossless, and with flows that stop at their first
#   timeout (rto 3 us, retry_limit 0) while other flows' arrivals wait on
#   their last links; the incast with rto 5 us and retry_limit 1
set -u
REF=$(realpath "$1")
NEW=$(realpath "$2")
HERE=$(dirname "$(realpath "$0")")
MK=$(realpath "${3:-$HERE/../build/tests/cs_mktrace}")
EX=$(realpath "$HERE/../examples/roce_clos")
TMP=$(mktemp -d)
if [ -n "${KEEP:-}" ]; then echo "outputs kept in $TMP" >&2; else trap 'rm -rf "$TMP"' EXIT; fi
cd "$TMP" || exit 1
"$MK" ar.et "1 COLL ctype=0 size=1048576" >/dev/null || exit 1
"$MK" a2a.et "1 COLL ctype=6 size=16777216" >/dev/null || exit 1
specs=("1 RECV src=1 size=1048576 tag=1; 2 RECV src=2 size=1048576 tag=1; 3 RECV src=3 size=1048576 tag=1; 4 RECV src=4 size=1048576 tag=1; 5 RECV src=5 size=1048576 tag=1; 6 RECV src=6 size=1048576 tag=1; 7 RECV src=7 size=1048576 tag=1")
for r in 1 2 3 4 5 6 7; do specs+=("1 SEND dst=0 size=1048576 tag=1"); done
for r in $(seq 8 15); do specs+=("1 COMP dur=1"); done
"$MK" --ranks inc "${specs[@]}" >/dev/null || exit 1
printf 'topology: [ Switch ]\nnpus_count: [ 16 ]\nbandwidth: [ 50 ]\nlatency: [ 1000 ]\n' > net.yml
printf '{"builder": "fat-tree", "npus_per_leaf": 8, "spines": 2, "link_bandwidth": 50, "link_latency": 1000}\n' > ft.json
printf 'topology: [ Switch, Switch ]\nnpus_count: [ 8, 8 ]\nbandwidth: [ 450, 50 ]\nlatency: [ 500, 1000 ]\n' > n64.yml
printf '{"builder": "servers", "servers": 8, "nics_per_leaf": 4}\n' > srv.json
printf '{"builder": "torus", "dims": [4, 4], "link_bandwidth": 50, "link_latency": 1000}\n' > tor.json
P="--backend packet"
A="--workload-configuration=ar.et --network-configuration=net.yml --system-configuration=$EX/system.json --topology=ft.json $P"
I="--workload-configuration=inc --network-configuration=net.yml --system-configuration=$EX/system.json --topology=ft.json $P --set backend.packet.buffer=2097152"
X="--workload-configuration=a2a.et --network-configuration=net.yml --system-configuration=$EX/system.json --topology=ft.json $P"
S="--set backend.packet"
RUNS=(
    "lossless|run $A"
    "incast-pfc|run $I"
    "incast-pfc-dcqcn|run $I $S.cc=dcqcn"
    "cut-through|run $A $S.cut_through=true"
    "cut-through-incast|run $I $S.cut_through=true"
    "dwrr-3|run $A $S.priorities=3 $S.priority_of=qp $S.scheduler=dwrr $S.dwrr_weights=1,2,3"
    "strict-4|run $I $S.buffer=8388608 $S.priorities=4 $S.priority_of=qp"
    "voq-spine|run $I $S.voq=spine"
    "ecmp|run $A $S.routing=ecmp"
    "spray|run $A $S.routing=spray"
    "pspray|run $A $S.routing=packet-spray"
    "flowlet|run $X $S.routing=flowlet"
    "adaptive|run $X $S.routing=adaptive"
    "dcqcn-lossy|run $X $S.cc=dcqcn $S.pfc=false"
    "dctcp-lossy|run $X $S.cc=dctcp $S.pfc=false"
    "hpcc|run $X $S.cc=hpcc"
    "timely|run $X $S.cc=timely"
    "swift-lossy|run $X $S.cc=swift $S.pfc=false"
    "gbn-loss|run $A $S.pfc=false $S.loss_rate=0.02"
    "sr-loss|run $A $S.pfc=false $S.loss_rate=0.02 $S.retransmit=selective-repeat"
    "sr-drops|run $X $S.pfc=false $S.retransmit=selective-repeat"
    "tcp|run $X $S.pfc=false $S.transport=tcp $S.tcp_min_rto=1000"
    "cubic|run $X $S.pfc=false $S.transport=tcp $S.tcp_cc=cubic $S.tcp_min_rto=1000 $S.tcp_ecn=true"
    "udp|run $X $S.pfc=false $S.transport=udp"
    "fail-rto2|run $I $S.rto=2 $S.retry_limit=1"
    "fail-rto5|run $I $S.rto=5 $S.retry_limit=1"
    "torus-a2a|run ${X/ft.json/tor.json}"
    "torus-a2a-fail|run ${X/ft.json/tor.json} $S.rto=3 $S.retry_limit=0 $S.buffer=1048576"
    "torus-incast-fail|run ${I/ft.json/tor.json} $S.rto=5 $S.retry_limit=1"
    "train64|train --model llama3-8b --tp 8 --dp 8 --global-batch 8 --set model.transformer.layers=1 --seq 512 --recompute full --device H100-SXM --network-configuration=n64.yml --topology srv.json $P"
)
bad=0
for r in "${RUNS[@]}"; do
    name=${r%%|*}
    args=${r#*|}
    for side in ref new; do
        bin=$REF
        [ $side = new ] && bin=$NEW
        mkdir -p "$side/$name"
        # shellcheck disable=SC2086
        "$bin" $args --quiet --out "$side/$name/out" --trace "$side/$name/trace.json" >"$side/$name/stdout" \
            2>"$side/$name/stderr.raw"
        echo $? > "$side/$name/rc"
        # progress lines and the report's wall time are the host's, not results
        # (and the output directory's name, which says which side)
        grep -v -E 's wall|wall [0-9.]+ s' "$side/$name/stderr.raw" | sed "s|$side/$name/|SIDE/|g" > "$side/$name/stderr"
        rm "$side/$name/stderr.raw"
    done
    # the one number allowed to differ (by a change that folds events): the events dispatched, printed;
    # and the configuration's echo keeps only the keys both binaries know (a new option with its default
    # is not a different result)
    if [ -f "ref/$name/out/summary.json" ] && [ -f "new/$name/out/summary.json" ]; then
        python3 - "ref/$name" "new/$name" <<'PY'
import json, sys
def common(a, b):
    if isinstance(a, dict) and isinstance(b, dict):
        keys = [k for k in a if k in b]
        return {k: common(a[k], b[k])[0] for k in keys}, {k: common(a[k], b[k])[1] for k in keys}
    return a, b
d = [json.load(open(p + "/out/summary.json")) for p in sys.argv[1:3]]
ca, cb = common(d[0].get("configuration", {}), d[1].get("configuration", {}))
for p, j, c in zip(sys.argv[1:3], d, (ca, cb)):
    if "configuration" in j: j["configuration"] = c
    ev = j.get("totals", {}).get("events")
    if ev is not None:
        open(p + "/events", "w").write(str(ev))
        j["totals"]["events"] = "N"
    json.dump(j, open(p + "/out/summary.json", "w"), indent=1, sort_keys=True)
PY
    fi
    evr=$(cat "ref/$name/events" 2>/dev/null)
    evn=$(cat "new/$name/events" 2>/dev/null)
    rm -f "ref/$name/events" "new/$name/events"
    if diff -r "ref/$name" "new/$name" >/dev/null; then
        printf 'same       %-20s (exit %s, %s files; events %s -> %s)\n' "$name" "$(cat ref/$name/rc)" \
            "$(find ref/$name -type f | wc -l)" "${evr:-n/a}" "${evn:-n/a}"
    else
        printf 'DIFFERENT  %-20s\n' "$name"
        diff -rq "ref/$name" "new/$name" | head -5
        bad=1
    fi
done
exit $bad
