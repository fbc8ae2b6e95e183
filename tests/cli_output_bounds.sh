#!/usr/bin/env bash
# cli_output_bounds.sh -- outputs that stay bounded and say where they are:
# --trace-ranks keeps only the chosen ranks' slices, --trace-limit stops the
# timeline at a size (valid JSON, marked truncated, a warning), and progress
# lines give the share of nodes done and the time left.
. "$(dirname "$0")/lib_cli.sh"
EX="$CS_SOURCE_DIR/examples/pipeline"
cd "$CS_TMP" || exit 1
run_example() {
    "$CS_BIN" run --workload-configuration="$EX/pipeline" --network-configuration="$EX/network.yml" \
        --system-configuration="$EX/system.json" --quiet "$@"
}
# pids of the rank slices ("X" events) in a timeline, sorted and unique
slice_pids() { grep -o '"ph":"X","pid":[0-9]*' "$1" | sed 's/.*://' | sort -un | tr '\n' ' '; }
valid_json() {
    if command -v python3 >/dev/null 2>&1; then python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$1"
    else tail -c 4 "$1" | grep -q ']}'; fi
}

run_example --trace all.json || fail "full timeline"
[ "$(slice_pids all.json)" = "0 1 2 3 " ] && pass "the full timeline has ranks 0-3" || fail "full: $(slice_pids all.json)"
run_example --trace sel.json --trace-ranks 1,3 || fail "--trace-ranks 1,3"
[ "$(slice_pids sel.json)" = "1 3 " ] && pass "--trace-ranks 1,3 keeps ranks 1 and 3" || fail "sel: $(slice_pids sel.json)"
# the kept slices are exactly the full timeline's slices of those ranks
grep -o '{"name":[^\n]*"ph":"X","pid":[13],.*' all.json | sed 's/,$//' > a13.txt
grep -o '{"name":[^\n]*"ph":"X","pid":[13],.*' sel.json | sed 's/,$//' > s13.txt
[ -s a13.txt ] && cmp -s a13.txt s13.txt && pass "the kept slices are the full timeline's" || fail "kept slices differ"
run_example --trace rng.json --trace-ranks 0-2 || fail "--trace-ranks 0-2"
[ "$(slice_pids rng.json)" = "0 1 2 " ] && pass "--trace-ranks 0-2 is a range" || fail "range: $(slice_pids rng.json)"
expect_fail "rank out of range" "--trace-ranks 2-4: rank 4 is out of range; expected ranks 0 to 3" \
    "$CS_BIN" run --workload-configuration="$EX/pipeline" --network-configuration="$EX/network.yml" --quiet --trace x.json --trace-ranks 2-4
expect_fail "backward range" "--trace-ranks 3-1: range 3-1 ends before it starts" \
    "$CS_BIN" run --workload-configuration="$EX/pipeline" --network-configuration="$EX/network.yml" --quiet --trace x.json --trace-ranks 3-1
for bad in "" "1," "a" "-1" "1-" "1,,2" " 1"; do
    expect_fail "--trace-ranks '$bad'" "expected a comma-separated list of ranks and ranges" \
        "$CS_BIN" run --workload-configuration="$EX/pipeline" --network-configuration="$EX/network.yml" --quiet --trace x.json --trace-ranks "$bad"
done
[ ! -e x.json ] && pass "a refused --trace-ranks leaves no timeline" || fail "x.json left behind"
expect_fail "--trace-ranks without --trace" "--trace-ranks applies to the timeline; expected --trace FILE" \
    "$CS_BIN" run --workload-configuration="$EX/pipeline" --network-configuration="$EX/network.yml" --quiet --trace-ranks 0

# size limit: the file stops near the limit, stays valid JSON, says it is truncated
full=$(wc -c < all.json)
run_example --trace lim.json --trace-limit 4KB 2>lim.err || fail "--trace-limit 4KB: $(cat lim.err)"
size=$(wc -c < lim.json)
[ "$size" -ge 4000 ] && [ "$size" -lt 6000 ] && [ "$full" -gt 8000 ] && pass "--trace-limit 4KB stops the file at $size of $full bytes" \
    || fail "limit: $size of $full"
valid_json lim.json && grep -q '"truncated":true' lim.json && pass "a truncated timeline is valid JSON, marked truncated" \
    || fail "truncated JSON"
grep -q "lim.json stopped growing at 4000 bytes (--trace-limit) at simulated time" lim.err \
    && pass "the truncation is reported with its limit and time" || fail "warning: $(cat lim.err)"
run_example --trace nolim.json --trace-limit 0 && cmp -s all.json nolim.json && pass "--trace-limit 0 = no limit" || fail "limit 0"
run_example --trace k.json --trace-limit 1KiB 2>/dev/null && [ "$(wc -c < k.json)" -lt 3000 ] && pass "--trace-limit 1KiB (binary unit)" \
    || fail "1KiB: $(wc -c < k.json)"
for bad in "x" "5XB" "-1" "1.5GB" "99999999999999999999"; do
    expect_fail "--trace-limit '$bad'" "--trace-limit '$bad': expected a size in bytes with an optional unit" \
        "$CS_BIN" run --workload-configuration="$EX/pipeline" --network-configuration="$EX/network.yml" --quiet --trace x.json --trace-limit "$bad"
done

# progress: the share of the simulated ranks' nodes done, and the time left (the astra model:
# a run of enough events for several lines; the nccl default's one chunk a collective has fewer)
printf 'topology: [ Switch, Switch ]\nnpus_count: [ 8, 64 ]\nbandwidth: [ 279.4, 23.28 ]\nlatency: [ 700, 3000 ]\n' > n512.yml
"$CS_BIN" train --model gpt3-175b --tp 8 --pp 8 --dp 8 --sp --recompute selective --network-configuration=n512.yml --quiet \
    --set system.collective-model=astra --progress 0 2>prog.err \
    || fail "train with --progress 0: $(cat prog.err)"
lines=$(grep -c '^clustersim: [0-9.]* % of [0-9]* nodes, about [0-9.]* s left, [0-9.]* s wall, simulated .*, [0-9]* events$' prog.err)
awk '/% of/ { p = $2 + 0; if (p < last || p > 100) bad = 1; last = p } END { exit bad }' prog.err
mono=$?
[ "$lines" -ge 3 ] && [ $mono -eq 0 ] && pass "progress lines: percentage rising within 0-100, time left ($lines lines)" \
    || fail "progress: $(head -3 prog.err)"
# (no wall-clock assertion: a run shorter than the interval prints none, so an interval no test run reaches)
"$CS_BIN" train --model gpt3-175b --tp 8 --pp 8 --dp 8 --sp --recompute selective --network-configuration=n512.yml --quiet \
    --progress 86400 2>prog2.err
[ ! -s prog2.err ] && pass "no progress lines before the first interval has passed" || fail "interval: $(cat prog2.err)"
expect_fail "--progress -1" "--progress '-1': expected seconds between 0 and 86400" \
    "$CS_BIN" train --model gpt3-175b --network-configuration=n512.yml --progress -1
finish
