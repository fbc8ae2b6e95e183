#!/usr/bin/env bash
# cli_packet.sh -- the packet backend through the CLI: a run on the RoCE Clos
# example reports its network summary, links.csv gains the packet columns
# (drops, ECN marks, PFC pause, largest queue), backend.packet.* keys are
# read and checked by name, and timed topology changes are refused.
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

expect_fail "kmax below kmin" "backend.packet.kmax: 1000 bytes is below backend.packet.kmin" \
    "$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.kmax=1000 --quiet
expect_fail "unknown cc" "backend.packet.cc" "$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.cc=bbr --quiet
expect_fail "buffer too small" "backend.packet.buffer: 1000 bytes per switch leaves nothing shared" \
    "$CS_BIN" run "${base[@]}" --backend packet --set backend.packet.buffer=1000 --quiet
printf '{"builder": "fat-tree", "npus_per_leaf": 8, "spines": 2, "link_bandwidth": 50, "link_latency": 1000,\n "switch_changes": [[5000, 16, 0.5]]}\n' > ftc.json
expect_fail "timed changes" "the packet backend applies failures from the start only" \
    "$CS_BIN" run --workload-configuration=ar.et --network-configuration=net.yml --system-configuration="$EX/system.json" \
    --topology=ftc.json --backend packet --quiet
finish
