#!/usr/bin/env bash
# bench/fuzz_counts.sh -- how fast each libFuzzer target runs: every target
# (or those named) for a fixed number of executions, one after the other,
# then a table of executions, wall time, executions per second and peak RSS.
#
#   bench/fuzz_counts.sh [RUNS] [TARGET...]
#
# RUNS defaults to 10000000 (10 M, the figure docs/testing.md asks for);
# TARGET defaults to every target of fuzz/run.sh.  Builds build-fuzz (or
# $CS_FUZZ_BUILD) through fuzz/run.sh, which also keeps new inputs in
# <build>/fuzz-work/TARGET/corpus, so a second run starts from a bigger
# corpus (and is slower per execution on the deeper inputs).  One target
# runs at a time on one core.  At the rates measured (docs/testing.md) 10 M
# executions take 7 minutes (et_reader) to about 2 hours (cli) per target:
# use a smaller RUNS on a shared machine.
set -uo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
runs="${1:-10000000}"
shift $(( $# < 1 ? $# : 1 ))
targets="${*:-et_reader network_config system_config memory_config comm_group topology model device cli sweep_spec scenario flag_strings sweep_log}"
build="${CS_FUZZ_BUILD:-build-fuzz}"
case "$build" in /*) ;; *) build="$src/$build" ;; esac

rows=""
for t in $targets; do
  t0=$(date +%s.%N)
  "$src/fuzz/run.sh" "$t" 0 -runs="$runs" >/dev/null || echo "fuzz_counts: $t failed (see $build/fuzz-work/$t/log)" >&2
  t1=$(date +%s.%N)
  log="$build/fuzz-work/$t/log"
  n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
  rows+=$(awk -v t="$t" -v n="${n:-0}" -v a="$t0" -v b="$t1" -v r="${rss:-?}" \
    'BEGIN { s = b - a; printf "%-16s %12d %10.1f %10.0f %8s\n", t, n, s, (s > 0 ? n / s : 0), r }')$'\n'
done
printf "%-16s %12s %10s %10s %8s\n" target executions seconds "exec/s" "rss MB"
printf "%s" "$rows"
