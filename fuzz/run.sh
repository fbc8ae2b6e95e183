#!/usr/bin/env bash
# fuzz/run.sh -- build the libFuzzer target and run it for a while.
#
#   fuzz/run.sh [build-dir] [seconds] [extra libFuzzer args...]
#
# build-dir defaults to build-fuzz (relative to the source tree), seconds to
# 60.  Configures the build dir with clang and -DCS_FUZZ=ON when needed,
# builds fuzz_et_reader, then runs it with fuzz/corpus/ as seeds.  New inputs
# go to <build-dir>/fuzz-work/corpus (fuzz/corpus/ is never written); a
# crashing input is saved as <build-dir>/fuzz-work/crash-* and the script
# exits non-zero.  Owned by the workload module with fuzz/CMakeLists.txt.
set -euo pipefail

src="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-build-fuzz}"
secs="${2:-60}"
shift $(( $# < 2 ? $# : 2 ))
case "$build" in /*) ;; *) build="$src/$build" ;; esac

if ! [[ "$secs" =~ ^[0-9]+$ ]]; then
  echo "run.sh: seconds must be a whole number, got '$secs'" >&2
  exit 2
fi

if [ ! -f "$build/CMakeCache.txt" ] || ! grep -q '^CS_FUZZ:BOOL=ON' "$build/CMakeCache.txt"; then
  CC="${CC:-clang}" cmake -S "$src" -B "$build" -DCS_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
cmake --build "$build" --target fuzz_et_reader -j"$(nproc 2>/dev/null || echo 2)"

work="$build/fuzz-work"
mkdir -p "$work/corpus"
echo "run.sh: fuzzing for ${secs}s; new inputs in $work/corpus"
# libFuzzer exits non-zero (and keeps the input) on a crash, leak, timeout
# or out-of-memory; set -e passes that on.
"$build/fuzz/fuzz_et_reader" \
  -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
  -artifact_prefix="$work/" -print_final_stats=1 \
  "$@" "$work/corpus" "$src/fuzz/corpus"
echo "run.sh: no crash in ${secs}s"
