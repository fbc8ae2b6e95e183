#!/usr/bin/env bash
# bench/sweep.sh -- throughput of `clustersim sweep` (docs/performance.md,
# "Sweeps"), side by side with the shell loop it replaces:
#   1. a 10,000-point random design of analytical scenarios (the pipeline
#      example: bandwidth, latency, active chunks) with -j 1 and -j 2;
#   2. the same first 300 points as a shell loop of `clustersim run`, one
#      process per point (what users wrote before);
#   3. MPI: 2,000 points with mpiexec -n 1 and -n 2 (rank 0 also runs
#      points), when clustersim was built with MPI.
# Wall time, CPU time (user + sys of every process, from /usr/bin/time or
# bash's times) and points per second for each.  The machine is shared:
# run it twice and compare within one run.
#
#   bench/sweep.sh [BUILD_DIR]      (default: build)
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$src/build}"
bin="$build/clustersim"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
spec() { # spec COUNT FILE
  cat > "$2" <<EOS
{"clustersim-sweep": 1, "scenario": "$src/examples/api/scenario.json",
 "random": {"count": $1, "seed": 1, "keys": {"network.bandwidth": [{"uniform": [10, 400]}],
   "network.latency": [{"uniform": [100, 5000]}], "system.active-chunks-per-dimension": {"int": [1, 4]}}}}
EOS
}
# measure NAME POINTS CMD...: one row (wall s, CPU s of the command and its children, points/s)
measure() {
  local name=$1 n=$2; shift 2
  local t0 t1 c0 c1
  t0=$(date +%s.%N)
  c0=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
  "$@" >/dev/null 2>&1
  t1=$(date +%s.%N)
  c1=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
  awk -v n="$name" -v p="$n" -v a="$t0" -v b="$t1" -v c="$c0" -v d="$c1" -v hz="$(getconf CLK_TCK)" \
    'BEGIN { w = b - a; printf "%-44s %7d points %8.2f s wall %8.2f s CPU %9.1f points/s\n", n, p, w, (d - c) / hz, p / w }'
}
spec 10000 s10k.json
spec 300 s300.json
measure "sweep, 10,000 points, -j 1" 10000 "$bin" sweep s10k.json --out a -j 1 --quiet --no-progress
measure "sweep, 10,000 points, -j 2" 10000 "$bin" sweep s10k.json --out b -j 2 --quiet --no-progress
cmp -s a/results.csv b/results.csv || { echo "bench/sweep.sh: -j 1 and -j 2 results differ" >&2; exit 1; }
"$bin" sweep s300.json --list > points.csv
loop() {
  tail -n +2 points.csv | while IFS=, read -r p id bw lat ch; do
    bw=${bw//\"/}; lat=${lat//\"/}
    "$bin" run --scenario "$src/examples/api/scenario.json" --set "network.bandwidth=$bw" --set "network.latency=$lat" \
      --set "system.active-chunks-per-dimension=$ch" --quiet --json "r$p.json"
  done
}
measure "shell loop of clustersim run, 300 points" 300 loop
measure "sweep, the same 300 points, -j 1" 300 "$bin" sweep s300.json --out c -j 1 --quiet --no-progress
if command -v mpiexec >/dev/null 2>&1 && grep -q "CS_HAVE_MPI:INTERNAL=ON\|CS_HAVE_MPI:.*=ON" "$build/CMakeCache.txt" 2>/dev/null \
   || nm "$bin" 2>/dev/null | grep -q MPI_Init; then
  spec 2000 s2k.json
  measure "sweep on MPI, 2,000 points, mpiexec -n 1" 2000 mpiexec -n 1 "$bin" sweep s2k.json --out m1 -j 1 --quiet --no-progress
  measure "sweep on MPI, 2,000 points, mpiexec -n 2" 2000 mpiexec -n 2 "$bin" sweep s2k.json --out m2 --quiet --no-progress
  cmp -s m1/results.csv m2/results.csv || { echo "bench/sweep.sh: MPI results differ" >&2; exit 1; }
else
  echo "(no MPI: clustersim was built without it)"
fi
