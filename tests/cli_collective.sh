#!/usr/bin/env bash
# cli_collective.sh -- `clustersim collective` (nccl-tests for the
# simulator): every row's time is what `clustersim run` gives for a trace of
# that one collective (written independently with cs_mktrace), the ring
# all-reduce of 1 MiB on Ring(4) is the closed form of cli_astra_breaks.sh
# (10 + 6 x 5392 + 3 x 489 = 33829 ns), algbw = size / time and busbw the
# nccl-tests factor (2(n-1)/n all-reduce, (n-1)/n all-gather) times algbw,
# all-gather's size is the gathered buffer (comm_size x n), the CSV holds
# the table, and bad flags are refused by name.
. "$(dirname "$0")/lib_cli.sh"
: "${CS_MKTRACE:?}"
cd "$CS_TMP" || exit 1
printf 'topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' > net4.yml
cat > sys.json <<'J'
{ "scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,
  "preferred-dataset-splits": 1, "collective-optimization": "localBWAware", "local-mem-bw": 1600,
  "all-reduce-implementation": [ "ring" ], "all-gather-implementation": [ "ring" ],
  "reduce-scatter-implementation": [ "ring" ], "all-to-all-implementation": [ "ring" ] }
J
P=(--network-configuration=net4.yml --system-configuration=sys.json)
"$CS_BIN" collective "${P[@]}" --min 16K --max 1M --factor 4 --out ar.csv > ar.txt 2> ar.err || fail "collective: $(cat ar.err)"
"$CS_BIN" collective "${P[@]}" --op all_gather -b 16K -e 1M -f 4 --out ag.csv --quiet 2> ag.err || fail "all_gather: $(cat ag.err)"
for s in 16384 65536 262144 1048576; do # the same collectives as traces, through run
    "$CS_MKTRACE" "ar$s.et" "1 COLL ctype=0 size=$s" && "$CS_MKTRACE" "ag$s.et" "1 COLL ctype=2 size=$((s / 4))" \
        || fail "mktrace"
    "$CS_BIN" run --workload-configuration="ar$s.et" "${P[@]}" --json "ar$s.json" --quiet 2> /dev/null
    "$CS_BIN" run --workload-configuration="ag$s.et" "${P[@]}" --json "ag$s.json" --quiet 2> /dev/null
done
python3 - ar.csv ag.csv <<'PY' && pass "every row = run of the same collective; algbw, busbw by nccl-tests' factors" || fail "table"
import csv, json, sys
ok = True
for f, op, fac in ((sys.argv[1], "ar", 2 * 3 / 4), (sys.argv[2], "ag", 3 / 4)):
    rows = list(csv.DictReader(open(f)))
    ok = ok and [int(r["size_bytes"]) for r in rows] == [16384, 65536, 262144, 1048576]
    for r in rows:
        s = int(r["size_bytes"]); t = float(r["time_us"])
        run = json.load(open("%s%d.json" % (op, s)))["sim_time_ns"] / 1000
        ok = ok and abs(t - run) < 1e-6 and r["ranks"] == "4" and int(r["count"]) == s // 4
        ok = ok and abs(float(r["algbw_gbps"]) - s / (t * 1e3)) < 1e-5 * float(r["algbw_gbps"])
        ok = ok and abs(float(r["busbw_gbps"]) - fac * float(r["algbw_gbps"])) < 1e-5 * float(r["busbw_gbps"])
ar = {int(r["size_bytes"]): float(r["time_us"]) for r in csv.DictReader(open(sys.argv[1]))}
ok = ok and abs(ar[1048576] - 33.829) < 1e-9
ok = ok and all(r["algorithm"] == "ring" for r in csv.DictReader(open(sys.argv[1])))  # the list's algorithm
sys.exit(0 if ok else 1)
PY
grep -q "^# Avg bus bandwidth" ar.txt && grep -Eq "^ +1048576 +262144 +float +sum +33.83 .* ring$" ar.txt \
    && pass "nccl-tests' table on the terminal" || fail "table text: $(cat ar.txt)"
expect_fail "unknown --op" "--op 'bcast'|all_reduce, all_gather" "$CS_BIN" collective "${P[@]}" --op bcast
expect_fail "min above max" "--min 2048 --max 1024|1 <= min <= max" "$CS_BIN" collective "${P[@]}" -b 2K -e 1K
expect_fail "min 0" "--min 0 " "$CS_BIN" collective "${P[@]}" -b 0 -e 1K
expect_fail "a size that is not one" "--max 'lots'|expected a size" "$CS_BIN" collective "${P[@]}" --max lots
expect_fail "no network" "network: expected a network" "$CS_BIN" collective --min 8 --max 64
expect_fail "no system: names the option, not a scratch trace" "--op all_reduce: the system has no|--system-configuration FILE" \
    "$CS_BIN" collective --network-configuration=net4.yml --min 8 --max 64
cat > sys_ar.json <<'J'
{ "scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,
  "preferred-dataset-splits": 1, "collective-optimization": "localBWAware", "local-mem-bw": 1600,
  "all-reduce-implementation": [ "ring" ] }
J
expect_fail "no all-gather in the system" "--op all_gather: the system has no|all-gather-implementation" \
    "$CS_BIN" collective --network-configuration=net4.yml --system-configuration=sys_ar.json --op all_gather --min 8 --max 64
finish
