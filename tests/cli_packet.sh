#!/usr/bin/env bash
# cli_packet.sh -- the packet backend through the CLI: a run on the RoCE Clos
# example reports its network summary, links.csv gains the packet columns
# (drops, ECN marks, PFC pause, largest queue), flows.csv has a row per
# message (against the closed form for one message alone), selective repeat
# sends fewer packets again than go-back-N, backend.packet.* keys are read
# and checked by name, and timed topology changes are refused; a PFC deadlock
# stops the run with its cycle named; per-packet routing modes by name.
. "$(dirname "$0")/lib_cli.sh"
EX="$CS_SOURCE_DIR/examples/roce_clos"
cd "$CS_TMP" || exit 1
"$CS_MKTRACE" ar.et "1 COLL ctype=0 size=1048576" || exit 1
printf 'topology: [ Switch ]\nnpus_count: [ 16 ]\nbandwidth: [ 50 ]\nlatency: [ 1000 ]\n' > net.yml
printf '{"builder": "fat-tree", "npus_per_leaf": 8, "spines": 2, "link_bandwidth": 50, "link_latency": 1000}\n' > ft.json
base=(--workload-configuration=ar.et --network-configuration=net.yml --system-configuration="$EX/system.json"
      --topology=ft.json)

if "$CS_BIN" run "${base[@]}" --backend packet --out out > run.txt 2> err.txt; then pass "run"; else fail "run: $(cat err.txt)"; fi
grep -q 'network: packet (lossless, PFC, cc none): .* 0 dropped, 0 lost, 0 headroom overflows' run.txt \
    && pass "network summary" || fail "summary: $(grep network: run.txt)"
head -1 out/links.csv | grep -q ',drops,ecn_marks,pfc_paused_ns,max_queue_bytes$' && pass "links.csv columns" \
    || fail "links.csv: $(head -1 out/links.csv)"
python3 - out/summary.json out/links.csv <<'PY' && pass "summary.json and links.csv agree" || fail "summary/links"
import csv, json, sys
s = json.load(open(sys.argv[1]))
assert s["network_summary"].startswith("packet (lossless, PFC, cc none)")
rows = list(csv.DictReader(open(sys.argv[2])))
# bytes into the NPUs = bytes the run sent (a ring all-reduce: every byte to an NPU)
into = sum(int(r["bytes"]) for r in rows if r["dst_kind"] == "npu")
assert into == s["totals"]["network_bytes"], (into, s["totals"]["network_bytes"])
assert all(int(r["drops"]) == 0 for r in rows)
PY

# the same run with DCQCN, lossy: still every byte, and the flow backend agrees within 10 %
"$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.cc=dcqcn --set backend.packet.pfc=false \
    --set backend.packet.rto=100 --json lossy.json --quiet 2> err.txt && pass "dcqcn lossy" || fail "dcqcn lossy: $(cat err.txt)"
"$CS_BIN" run "${base[@]}" --backend flow --json flow.json --quiet 2> err.txt || fail "flow: $(cat err.txt)"
"$CS_BIN" run "${base[@]}" --backend packet --json pk.json --quiet 2> err.txt || fail "packet json: $(cat err.txt)"
python3 - flow.json pk.json <<'PY' && pass "packet within 10 % of flow" || fail "packet vs flow"
import json, sys
f = json.load(open(sys.argv[1]))["sim_time_ns"]; p = json.load(open(sys.argv[2]))["sim_time_ns"]
assert f <= p <= 1.10 * f, (f, p)
PY

# a degraded cable from the start: --compare-healthy runs the packet backend on the
# network as built, so the degraded run is slower: a 64 MiB ring all-reduce is
# bandwidth-bound and every ring step waits for NPU 0's cable at half speed
"$CS_MKTRACE" ar64.et "1 COLL ctype=0 size=67108864" || exit 1
printf '{"builder": "fat-tree", "npus_per_leaf": 8, "spines": 2, "link_bandwidth": 50, "link_latency": 1000,\n "degraded_links": [[0, 16, 0.5]]}\n' > ftd.json
"$CS_BIN" run --workload-configuration=ar64.et --network-configuration=net.yml --system-configuration="$EX/system.json" \
    --topology=ftd.json --backend packet --compare-healthy --out deg --quiet 2> err.txt \
    && pass "compare-healthy" || fail "compare-healthy: $(cat err.txt)"
python3 - deg/summary.json <<'PY' && pass "healthy run is faster" || fail "healthy vs degraded: $(grep -o '"slowdown_vs_healthy": [0-9.]*' deg/summary.json)"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["slowdown_vs_healthy"] > 1.2, s["slowdown_vs_healthy"]
PY

# flows.csv: a row per message of the packet run; the rows' bytes are the run's
# bytes, fct = finish - start, nobody beats the uncontended closed form, and
# retransmissions = packets sent - packets (none: lossless)
python3 - out/flows.csv out/summary.json <<'PY' && pass "flows.csv" || fail "flows.csv"
import csv, json, sys
from decimal import Decimal as D
rows = list(csv.DictReader(open(sys.argv[1])))
s = json.load(open(sys.argv[2]))
assert list(rows[0].keys()) == ["src_npu", "dst_npu", "bytes", "start_ns", "finish_ns", "fct_ns", "packets",
                                "packets_sent", "retransmissions", "ideal_ns", "slowdown"], list(rows[0].keys())
assert len(rows) == s["totals"]["network_messages"], (len(rows), s["totals"]["network_messages"])
assert sum(int(r["bytes"]) for r in rows) == s["totals"]["network_bytes"]
for r in rows:
    assert D(r["fct_ns"]) == D(r["finish_ns"]) - D(r["start_ns"]), r
    assert D(r["fct_ns"]) >= D(r["ideal_ns"]), r
    assert int(r["retransmissions"]) == int(r["packets_sent"]) - int(r["packets"]) == 0, r
    assert int(r["packets"]) == max(1, -(-int(r["bytes"]) // 4096)), r
# contention: some flow of the all-reduce is slower than alone
assert any(D(r["fct_ns"]) > D(r["ideal_ns"]) for r in rows)
PY
"$CS_BIN" run "${base[@]}" --backend flow --out flowout --quiet 2> err.txt && [ -f flowout/links.csv ] \
    && [ ! -e flowout/flows.csv ] && pass "no flows.csv from the flow backend" || fail "flow backend: $(ls flowout) $(cat err.txt)"

# one message alone over 2 hops of 100 bytes/ns (93.13... GiB/s as configured) and
# 500 ns: the closed form of tests/test_packet.c, (N + h - 1) s + h lat =
# 257 x 41780 + 2 x 500000 ps = 11737.460 ns, and its ideal the same
"$CS_MKTRACE" --ranks p2p "1 SEND size=1048576 src=0 dst=1 tag=1" "1 RECV size=1048576 src=0 dst=1 tag=1" || exit 1
printf 'topology: [ Switch ]\nnpus_count: [ 2 ]\nbandwidth: [ 100 ]\nlatency: [ 500 ]\n' > net2.yml
printf '{"builder": "edges", "switches": 1, "edges": [[0, 2, 93.1322574615478515625, 500], [1, 2, 93.1322574615478515625, 500]]}\n' > chain.json
p2p=(--workload-configuration=p2p --network-configuration=net2.yml --system-configuration="$EX/system.json"
     --topology=chain.json --backend packet --quiet)
"$CS_BIN" run "${p2p[@]}" --out one 2> err.txt || fail "one flow: $(cat err.txt)"
[ "$(tail -n +2 one/flows.csv)" = "0,1,1048576,0.000,11737.460,11737.460,256,256,0,11737.460,1.000000" ] \
    && pass "one flow: the closed form" || fail "one flow: $(cat one/flows.csv)"

# lossy, both recoveries on the same losses: every byte once, selective repeat
# sends fewer packets again; the rows count the retransmissions
for r in go-back-n selective-repeat; do
    "$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.pfc=false --set backend.packet.loss_rate=0.02 \
        --set backend.packet.rto=50 --set backend.packet.retransmit=$r --out "$r" > "$r.txt" 2> err.txt \
        || fail "lossy $r: $(cat err.txt)"
done
grep -q 'network: packet (lossy, selective repeat, cc none)' selective-repeat.txt && pass "selective repeat summary" \
    || fail "selective repeat summary: $(grep network: selective-repeat.txt)"
python3 - go-back-n selective-repeat <<'PY' && pass "selective repeat: fewer packets sent again" || fail "gbn vs sr"
import csv, json, sys
tot = {}
for d in sys.argv[1:]:
    rows = list(csv.DictReader(open(d + "/flows.csv")))
    s = json.load(open(d + "/summary.json"))
    assert sum(int(r["bytes"]) for r in rows) == s["totals"]["network_bytes"]
    assert all(float(r["fct_ns"]) >= float(r["ideal_ns"]) for r in rows)
    tot[d] = sum(int(r["retransmissions"]) for r in rows)
assert 0 < tot["selective-repeat"] < tot["go-back-n"], tot
PY
expect_fail "unknown retransmit" "backend.packet.retransmit" \
    "$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.retransmit=sack --quiet

# a cap on the rows: a warning, and only that many rows
"$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.flow_rows=5 --out capped --quiet 2> err.txt \
    || fail "capped: $(cat err.txt)"
grep -q 'backend.packet.flow_rows: more than 5 flows; flows.csv keeps the first 5' err.txt \
    && [ "$(wc -l < capped/flows.csv)" = 6 ] && pass "flow_rows cap" || fail "flow_rows cap: $(cat err.txt)"

expect_fail "kmax below kmin" "backend.packet.kmax: 1000 bytes is below backend.packet.kmin" \
    "$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.kmax=1000 --quiet
# every congestion control by name: accepted, named in the summary, every byte delivered
for cc in none dcqcn dctcp timely hpcc swift; do
    "$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.cc=$cc --out "cc-$cc" > "cc-$cc.txt" 2> err.txt \
        && grep -q "network: packet (lossless, PFC, cc $cc): .* 0 dropped, 0 lost, 0 headroom overflows" "cc-$cc.txt" \
        && pass "cc $cc" || fail "cc $cc: $(cat err.txt) $(grep network: "cc-$cc.txt")"
done
expect_fail "unknown cc" "backend.packet.cc" "$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.cc=bbr --quiet
expect_fail "unknown queue_pairs" "backend.packet.queue_pairs" \
    "$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.queue_pairs=connection --quiet
"$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.queue_pairs=message --quiet > /dev/null 2>&1 \
    && pass "queue_pairs message accepted" || fail "queue_pairs message refused"
"$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.cc=powertcp --quiet > /dev/null 2> err.txt
grep -q 'backend.packet.cc' err.txt && grep -q 'hpcc' err.txt && grep -q 'swift' err.txt && pass "bad cc names the key and the choices" \
    || fail "bad cc: $(cat err.txt)"
expect_fail "bad hpcc_eta" "backend.packet.hpcc_eta" \
    "$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.cc=hpcc --set backend.packet.hpcc_eta=1.5 --quiet
expect_fail "bad swift_max_mdf" "backend.packet.swift_max_mdf" \
    "$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.cc=swift --set backend.packet.swift_max_mdf=2 --quiet
expect_fail "swift over tcp" "backend.packet.cc: swift is a congestion control of transport rc" \
    "$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.transport=tcp --set backend.packet.cc=swift --quiet
expect_fail "buffer too small" "backend.packet.buffer: 1000 bytes per switch leaves nothing shared" \
    "$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.buffer=1000 --quiet
printf '{"builder": "fat-tree", "npus_per_leaf": 8, "spines": 2, "link_bandwidth": 50, "link_latency": 1000,\n "switch_changes": [[5000, 16, 0.5]]}\n' > ftc.json
expect_fail "timed changes" "the packet backend applies failures from the start only" \
    "$CS_BIN" run --workload-configuration=ar.et --network-configuration=net.yml --system-configuration="$EX/system.json" \
    --topology=ftc.json --backend packet --quiet

# a PFC deadlock: 4 switches in a ring (one NPU each), the routing table sends
# every NPU's message two hops clockwise, a small buffer: the run stops and the
# first line of the error names the cycle of paused links in order
"$CS_MKTRACE" --ranks ring \
    "1 SEND size=1048576 src=0 dst=2 tag=1; 2 RECV size=1048576 src=2 dst=0 tag=1" \
    "1 SEND size=1048576 src=1 dst=3 tag=1; 2 RECV size=1048576 src=3 dst=1 tag=1" \
    "1 SEND size=1048576 src=2 dst=0 tag=1; 2 RECV size=1048576 src=0 dst=2 tag=1" \
    "1 SEND size=1048576 src=3 dst=1 tag=1; 2 RECV size=1048576 src=1 dst=3 tag=1" || exit 1
printf 'topology: [ Switch ]\nnpus_count: [ 4 ]\nbandwidth: [ 800 ]\nlatency: [ 10 ]\n' > net4.yml
cat > ring.json <<'EOF'
{"builder": "edges", "switches": 4,
 "edges": [[0, 4, 800, 10], [1, 5, 800, 10], [2, 6, 800, 10], [3, 7, 800, 10],
           [4, 5, 800, 10], [5, 6, 800, 10], [6, 7, 800, 10], [7, 4, 800, 10]],
 "routes": [[0, 4, 5, 6, 2], [1, 5, 6, 7, 3], [2, 6, 7, 4, 0], [3, 7, 4, 5, 1]]}
EOF
ring=(--workload-configuration=ring --network-configuration=net4.yml --system-configuration="$EX/system.json"
      --topology=ring.json --backend packet --quiet)
"$CS_BIN" run "${ring[@]}" --set backend.packet.buffer=131072 > /dev/null 2> err.txt; rc=$?
first=$(head -1 err.txt)
case "$first" in
*"with work left on 4 of 4 ranks"*"PFC deadlock: a cycle of 4 paused links, each held off by packets waiting to leave on the next: switch 4 -> switch 5 (queue "*"), switch 5 -> switch 6 (queue "*"), switch 6 -> switch 7 (queue "*"), switch 7 -> switch 4 (queue "*"; 4 more links paused behind it for good"*)
    [ $rc -ne 0 ] && pass "PFC deadlock: the first line names the cycle" || fail "PFC deadlock: exit 0" ;;
*) fail "PFC deadlock: first line: $first" ;;
esac
# found by the watchdog (pfc_watchdog, 1 ms: its check 1 ms after the first pause, which comes within the
# first microsecond), and without it at the first retransmit timeout (rto 268435.456 us after the start)
case "$first" in
*"simulation stopped at 1000."*) pass "PFC deadlock: the watchdog finds it 1 ms after the first pause" ;;
*) fail "PFC deadlock: not found by the watchdog at 1 ms: $first" ;;
esac
"$CS_BIN" run "${ring[@]}" --set backend.packet.buffer=131072 --set backend.packet.pfc_watchdog=0 > /dev/null 2> err.txt
case "$(head -1 err.txt)" in
*"simulation stopped at 268435.456 us"*"PFC deadlock: a cycle of 4 paused links"*)
    pass "PFC deadlock: without the watchdog, the first retransmit timeout" ;;
*) fail "PFC deadlock, pfc_watchdog 0: $(head -1 err.txt)" ;;
esac
# the same traffic with the default buffer (32 MiB), and lossy: it finishes
"$CS_BIN" run "${ring[@]}" 2> err.txt && pass "ring: enough buffer finishes" || fail "ring, 32 MiB: $(cat err.txt)"
"$CS_BIN" run "${ring[@]}" --set backend.packet.pfc=false --set backend.packet.buffer=1048576 \
    --set backend.packet.rto=20 2> err.txt && pass "ring: lossy finishes" || fail "ring, lossy: $(cat err.txt)"

# per-packet routing by name, on the Clos: every byte once; flowlets with a gap
# longer than the run are ECMP to the byte
for r in packet-spray flowlet adaptive; do
    "$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.routing=$r --out "rt-$r" > "rt-$r.txt" 2> err.txt \
        && grep -q 'network: packet (lossless, PFC, cc none): .* 0 dropped, 0 lost, 0 headroom overflows' "rt-$r.txt" \
        && pass "routing $r" || fail "routing $r: $(cat err.txt)"
done
"$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.routing=ecmp --out rt-ecmp --quiet 2> err.txt \
    || fail "routing ecmp: $(cat err.txt)"
"$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.routing=flowlet --set backend.packet.flowlet_gap=1e9 \
    --out rt-fl --quiet 2> err.txt || fail "flowlet 1e9: $(cat err.txt)"
cmp -s rt-ecmp/flows.csv rt-fl/flows.csv && cmp -s rt-ecmp/links.csv rt-fl/links.csv \
    && pass "flowlets with a huge gap = ECMP" || fail "flowlet vs ecmp differ"
expect_fail "unknown routing" "backend.packet.routing" \
    "$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.routing=ugal --quiet
expect_fail "bad flowlet_gap" "backend.packet.flowlet_gap" \
    "$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.flowlet_gap=0 --quiet
# this session's options, refused by name with what they accept
expect_fail "bad tcp_connections" "backend.packet.tcp_connections: expected one of persistent, message" \
    "$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.tcp_connections=always --quiet
expect_fail "bad util_window" "backend.packet.util_window: expected a number >= 0.001" \
    "$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.util_window=0 --quiet
expect_fail "bad priority_of" "backend.packet.priority_of: expected one of tclass, qp, type" \
    "$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.priority_of=kind --quiet
expect_fail "negative pfc_watchdog" "--set backend.packet.pfc_watchdog: expected a number >= 0 and <= 1000000000 (in us), got -1" \
    "$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.pfc_watchdog=-1 --quiet
# the VOQ chassis' cell fabric needs VOQ chassis, a cell header needs cells
expect_fail "voq_cell without voq" "backend.packet.voq_cell: applies to VOQ chassis, and backend.packet.voq is none" \
    "$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.voq_cell=256 --quiet
expect_fail "voq_fabric_latency without voq" "backend.packet.voq_fabric_latency: applies to VOQ chassis" \
    "$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.voq_fabric_latency=500 --quiet
expect_fail "voq_cell_header without voq_cell" "backend.packet.voq_cell_header: 16 bytes of header on no cells" \
    "$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.voq=spine --set backend.packet.voq_cell_header=16 --quiet
expect_fail "p2p_class not below priorities" "backend.packet.p2p_class: class 1 with backend.packet.priorities 1" \
    "$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.priority_of=type --quiet
expect_fail "bad flow channels" "backend.flow.channels: expected one of connections, merged" \
    "$CS_BIN" run "${base[@]}" --backend flow --set backend.flow.channels=all --quiet
# counter tracks in the timeline (--trace): an incast of 7 x 1 MiB into rank 0 through a 2 MiB switch buffer;
# the links' queue bytes and PFC states are counter tracks beside the utilization: every queue sample within the
# buffer, each link's largest sample its links.csv max_queue_bytes exactly, and a link that links.csv says was
# paused has a pfc_paused sample of 1 (the samples are the backend's own changes, so these agree by construction
# of the two paths -- the counters come from events, links.csv from the port's running maximum and pause clock);
# the utilization track (busy fraction per util_window, 10 us, each sample at its window's start, the last window
# as far as it ran, then 0) gives back each link's links.csv busy_ns: sum of value x min(10 us, gap to the next)
specs=("1 RECV src=1 size=1048576 tag=1; 2 RECV src=2 size=1048576 tag=1; 3 RECV src=3 size=1048576 tag=1; 4 RECV src=4 size=1048576 tag=1; 5 RECV src=5 size=1048576 tag=1; 6 RECV src=6 size=1048576 tag=1; 7 RECV src=7 size=1048576 tag=1")
for r in 1 2 3 4 5 6 7; do specs+=("1 SEND dst=0 size=1048576 tag=1"); done
for r in $(seq 8 15); do specs+=("1 COMP dur=1"); done
"$CS_MKTRACE" --ranks inc "${specs[@]}" || fail "mktrace inc"
"$CS_BIN" run --workload-configuration=inc --network-configuration=net.yml --system-configuration="$EX/system.json" \
    --topology=ft.json --backend packet --set backend.packet.buffer=2097152 --out inco --trace inco/tr.json --quiet \
    2> err.txt || fail "incast trace: $(cat err.txt)"
python3 - inco/tr.json inco/links.csv <<'PY' && pass "queue and PFC counter tracks" || fail "counter tracks (above)"
import csv, json, sys
ev = json.load(open(sys.argv[1]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
names = {}
for e in ev:
    if e.get("ph") == "M" and e.get("name") == "process_name" and str(e["args"]["name"]).startswith("link "):
        names[e["pid"]] = int(str(e["args"]["name"]).split()[1])
q, paused, util = {}, {}, {}
for e in ev:
    if e.get("ph") != "C" or e.get("pid") not in names: continue
    l = names[e["pid"]]
    if e["name"] == "utilization": util.setdefault(l, []).append((float(e["ts"]), e["args"]["utilization"]))
    if e["name"] == "queue_bytes": q.setdefault(l, []).append(e["args"]["queue_bytes"])
    if e["name"] == "pfc_paused": paused.setdefault(l, []).append(e["args"]["pfc_paused"])
rows = {int(r["link"]): r for r in csv.DictReader(open(sys.argv[2]))}
assert q, "no queue_bytes counters"
assert all(0 <= v <= 2097152 for vs in q.values() for v in vs), "a queue above the buffer"
for l, vs in q.items():
    assert max(vs) == float(rows[l]["max_queue_bytes"]), (l, max(vs), rows[l]["max_queue_bytes"])
was_paused = [l for l in names.values() if float(rows[l]["pfc_paused_ns"]) > 0]
assert was_paused, "the incast paused no traced link"
for l in was_paused: assert 1 in paused.get(l, []), ("paused link without a pfc_paused sample", l)
assert util, "no utilization counters"
for l, us in util.items():
    assert all(0 <= v <= 1 for _, v in us), ("utilization outside 0..1", l)
    assert us[-1][1] == 0, ("the last utilization sample is not 0", l)
    busy_us = sum(v * min(10.0, us[i + 1][0] - t) for i, (t, v) in enumerate(us[:-1]))
    want = float(rows[l]["busy_ns"]) / 1000
    assert abs(busy_us - want) <= max(1e-3, 1e-4 * want), ("utilization track vs busy_ns", l, busy_us, want)
PY
# transports (issue 14): tcp and udp by key, on the same fat-tree, lossy.  A 16 MiB all-to-all
# through the 4:1 spines drops packets: tcp repairs them (every byte once), udp loses them and says
# so -- in its summary and in flows.csv's delivered_bytes and lost_bytes (delivered + lost = bytes)
"$CS_MKTRACE" a2a.et "1 COLL ctype=6 size=16777216" || exit 1
a2a=(--workload-configuration=a2a.et --network-configuration=net.yml --system-configuration="$EX/system.json"
     --topology=ft.json --backend packet --set backend.packet.pfc=false)
"$CS_BIN" run "${a2a[@]}" --set backend.packet.transport=tcp --set backend.packet.tcp_min_rto=1000 --out tcp > tcp.txt 2> err.txt \
    && pass "tcp run" || fail "tcp run: $(cat err.txt)"
grep -q 'network: packet (lossy, tcp newreno): 61440 data packets, [1-9][0-9]* retransmitted, [1-9][0-9]* fast retransmits' tcp.txt \
    && pass "tcp summary" || fail "tcp summary: $(grep network: tcp.txt)"
"$CS_BIN" run "${a2a[@]}" --set backend.packet.transport=tcp --set backend.packet.tcp_cc=cubic --set backend.packet.tcp_min_rto=1000 \
    --quiet --json cubic.json 2> err.txt && grep -q '"network_summary": "packet (lossy, tcp cubic)' cubic.json \
    && pass "tcp cubic" || fail "tcp cubic: $(cat err.txt)"
"$CS_BIN" run "${a2a[@]}" --set backend.packet.transport=udp --out udp > udp.txt 2> err.txt \
    && pass "udp run" || fail "udp run: $(cat err.txt)"
grep -q 'network: packet (lossy, udp): 61440 data packets, [1-9][0-9]* dropped, 0 lost, [1-9][0-9]* of 251658240 payload bytes NOT delivered' udp.txt \
    && pass "udp summary" || fail "udp summary: $(grep network: udp.txt)"
grep -q 'warning: backend.packet.transport udp: ' err.txt && pass "udp warns" || fail "udp warning: $(cat err.txt)"
python3 - tcp/flows.csv udp/flows.csv udp.txt <<'PY' && pass "flows.csv: tcp every byte, udp delivered + lost" || fail "tcp/udp flows.csv"
import csv, re, sys
t = list(csv.DictReader(open(sys.argv[1])))
assert "delivered_bytes" not in t[0]  # tcp delivers every byte: rc's columns
assert len(t) == 960 and sum(int(r["bytes"]) for r in t) == 251658240
u = list(csv.DictReader(open(sys.argv[2])))
assert list(u[0].keys())[-2:] == ["delivered_bytes", "lost_bytes"], list(u[0].keys())
assert len(u) == 960 and all(int(r["delivered_bytes"]) + int(r["lost_bytes"]) == int(r["bytes"]) for r in u)
assert all(int(r["retransmissions"]) == 0 for r in u)
lost = sum(int(r["lost_bytes"]) for r in u)
m = re.search(r"(\d+) of 251658240 payload bytes NOT delivered", open(sys.argv[3]).read())
assert lost == int(m.group(1)) > 0, (lost, m.group(0))
PY
"$CS_BIN" run "${a2a[@]}" --set backend.packet.transport=tcp --set backend.packet.tcp_ecn=true > ecn.txt 2> err.txt \
    && grep -q 'network: packet (lossy, tcp newreno, ECN): 61440 data packets, 0 retransmitted, 0 fast retransmits, 0 timeouts, 0 dropped, 0 lost, [1-9][0-9]* ECN marks, [1-9][0-9]* ECN window cuts' ecn.txt \
    && pass "tcp with ECN: marks, no drop" || fail "tcp ecn: $(grep network: ecn.txt) $(cat err.txt)"
expect_fail "tcp refuses rc's cc" "backend.packet.cc: dcqcn is a congestion control of transport rc|expected cc none" \
    "$CS_BIN" run "${a2a[@]}" --set backend.packet.transport=tcp --set backend.packet.cc=dcqcn --quiet
expect_fail "udp refuses selective repeat" "backend.packet.retransmit: selective-repeat is transport rc's" \
    "$CS_BIN" run "${a2a[@]}" --set backend.packet.transport=udp --set backend.packet.retransmit=selective-repeat --quiet
expect_fail "unknown transport" "backend.packet.transport: expected one of rc, tcp, udp" \
    "$CS_BIN" run "${a2a[@]}" --set backend.packet.transport=quic --quiet
expect_fail "unknown tcp_cc" "backend.packet.tcp_cc" \
    "$CS_BIN" run "${a2a[@]}" --set backend.packet.transport=tcp --set backend.packet.tcp_cc=bbr --quiet
# examples/transports/send_1m (docs/examples.md, by hand): 1 MiB over 2 hops of 53.6870912 bytes/ns and
# 1 us: rc and udp (N + 1) s + 2 lat = 22.000 us; tcp three idle slow-start round trips, 29.027 us
TX="$CS_SOURCE_DIR/examples/transports"
for t in "rc 22000254" "udp 22000254" "tcp 29026804"; do
    set -- $t
    "$CS_BIN" run --workload-configuration="$TX/send_1m" --network-configuration="$TX/network.yml" \
        --system-configuration="$TX/system.json" --topology="$TX/fattree.json" --backend packet \
        --set backend.packet.transport=$1 --set backend.packet.pfc=false --out send_$1 --quiet 2> err.txt \
        && [ "$(tail -1 send_$1/flows.csv | cut -d, -f5)" = "$(python3 -c "print('%.3f' % ($2 / 1000))")" ] \
        && pass "send_1m over $1: $2 ps" || fail "send_1m over $1: $(tail -1 send_$1/flows.csv) $(cat err.txt)"
done
# traffic classes and the VOQ chassis (docs/network.md, "Priorities", "VOQ chassis"): the defaults spelt out
# give the default run's files byte for byte; four classes (each QP hashed to one, strict priority) and VOQ
# spines move the same bytes with no drop
"$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.priorities=1 --set backend.packet.voq=none \
    --out cls1 --quiet 2> err.txt && cmp -s out/links.csv cls1/links.csv && cmp -s out/flows.csv cls1/flows.csv \
    && pass "one class, no VOQ: the default run's links.csv and flows.csv" || fail "explicit defaults differ: $(cat err.txt)"
"$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.priorities=4 --set backend.packet.priority_of=qp \
    --set backend.packet.scheduler=strict --set backend.packet.voq=spine --out cls4 > cls4.txt 2> err.txt \
    && grep -q ' 0 dropped, 0 lost, 0 headroom overflows' cls4.txt && pass "four classes, VOQ spines" \
    || fail "four classes: $(cat err.txt) $(grep network: cls4.txt)"
python3 - out/summary.json cls4/summary.json cls4/links.csv <<'PY' && pass "four classes: the same bytes" || fail "classes bytes"
import csv, json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["totals"]["network_bytes"] == b["totals"]["network_bytes"]
into = sum(int(r["bytes"]) for r in csv.DictReader(open(sys.argv[3])) if r["dst_kind"] == "npu")
assert into == b["totals"]["network_bytes"], into
PY
expect_fail "bad dwrr_weights" "backend.packet.dwrr_weights: \"1,2\" gives 2 weights; expected 3" \
    "$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.priorities=3 --set backend.packet.dwrr_weights=1,2 --quiet
expect_fail "too many classes" "backend.packet.priorities" \
    "$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.priorities=9 --quiet
expect_fail "unknown voq" "backend.packet.voq" \
    "$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.voq=leaf --quiet
expect_fail "voq_buffer too small" "backend.packet.voq_buffer: 100000 bytes per switch leaves nothing shared" \
    "$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.voq=spine --set backend.packet.voq_buffer=100000 --quiet
finish
