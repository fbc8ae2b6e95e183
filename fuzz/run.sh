#!/usr/bin/env bash
# fuzz/run.sh -- build the libFuzzer targets and run them for a while.
#
#   fuzz/run.sh [TARGET|all] [SECONDS] [extra libFuzzer args...]
#
# TARGET is one of the names in fuzz/CMakeLists.txt (et_reader,
# network_config, system_config, memory_config, comm_group, topology, model,
# device, cli, sweep_spec, sweep_log, scenario, flag_strings) or all (the default): every target in turn, each for SECONDS
# (default 60), CS_FUZZ_JOBS of them at a time (default: the number of
# cores).  The build dir is $CS_FUZZ_BUILD (default build-fuzz,
# relative to the source tree); it is configured with clang and
# -DCS_FUZZ=ON when needed.  Each target runs with fuzz/corpus/TARGET/ as
# seeds (never written) and fuzz/dict/TARGET.dict when there is one; new
# inputs go to <build>/fuzz-work/TARGET/corpus.  A crash, leak, timeout
# (10 s) or out-of-memory (2 GB) is saved as <build>/fuzz-work/TARGET/crash-*
# (leak-*, timeout-*, oom-*); the other targets still run and the script
# exits non-zero, naming the targets that failed.  To keep a finding as a
# regression test, copy the file into fuzz/regress/TARGET/ (replayed by
# CTest's fuzz_replay_TARGET in every build).
set -uo pipefail

src="$(cd "$(dirname "$0")/.." && pwd)"
all="et_reader network_config system_config memory_config comm_group topology model device cli sweep_spec sweep_log scenario flag_strings"
target="${1:-all}"
secs="${2:-60}"
shift $(( $# < 2 ? $# : 2 ))
build="${CS_FUZZ_BUILD:-build-fuzz}"
case "$build" in /*) ;; *) build="$src/$build" ;; esac

if ! [[ "$secs" =~ ^[0-9]+$ ]]; then
  echo "run.sh: seconds must be a whole number, got '$secs'" >&2
  exit 2
fi
if [ "$target" = all ]; then
  targets="$all"
elif [[ " $all " == *" $target "* ]]; then
  targets="$target"
else
  echo "run.sh: unknown target '$target' (expected all or one of: $all)" >&2
  exit 2
fi

if [ ! -f "$build/CMakeCache.txt" ] || ! grep -q '^CS_FUZZ:BOOL=ON' "$build/CMakeCache.txt"; then
  CC="${CC:-clang}" cmake -S "$src" -B "$build" -DCS_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null || exit 1
fi
# shellcheck disable=SC2086
cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)" \
  $(for t in $targets; do echo --target "fuzz_$t"; done) >/dev/null || exit 1

# One target: its lines go to $work/out, "ok" or "failed" to $work/result.
run_one() {
  local t=$1 work="$build/fuzz-work/$1"
  mkdir -p "$work/corpus"
  # the targets' scratch directories (fuzz_common.c: one input file written
  # and removed per execution) live in a directory of their own on tmpfs
  # (/dev/shm) when there is one -- 10-20x the executions per second of a
  # disk (docs/testing.md) -- or else here, not in /tmp; removed after the
  # run, and one left here by a crashed run is removed
  rm -rf "$work"/cs-fuzz-* "$work/out" "$work/result"
  local scratch="$work"
  if [ -z "${CS_FUZZ_NO_SHM:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
    scratch=$(mktemp -d "/dev/shm/cs-fuzz-$t.XXXXXX") || scratch="$work"
    # removed on an interrupt too (run_one runs in a subshell of its own)
    # shellcheck disable=SC2064
    if [ "$scratch" != "$work" ]; then
      trap "rm -rf '$scratch'" EXIT
      trap "rm -rf '$scratch'; exit 130" INT TERM
    fi
  fi
  local args=(-max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$work/"
        -print_final_stats=1)
  case "$t" in
    et_reader) args+=(-max_len=65536) ;;
    cli) args+=(-max_len=16384 -close_fd_mask=3) ;; # the CLI's messages are expected output
    flag_strings) args+=(-max_len=4098) ;;           # a selector, a parameter, a flag's value
    *) args+=(-max_len=16384) ;;
  esac
  [ -f "$src/fuzz/dict/$t.dict" ] && args+=(-dict="$src/fuzz/dict/$t.dict")
  # libFuzzer exits non-zero (and keeps the input) on a crash, leak,
  # timeout or out-of-memory.
  if ! TMPDIR="$scratch" "$build/fuzz/fuzz_$t" "${args[@]}" "${extra[@]}" "$work/corpus" "$src/fuzz/corpus/$t" \
       2>"$work/log"; then
    { tail -n 60 "$work/log"; echo "run.sh: $t FAILED: input saved in $work/ (log: $work/log)"; } > "$work/out"
    echo failed > "$work/result"
  else
    { grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$work/log" | tr '\n' ' '
      echo
      echo "run.sh: $t: no crash in ${secs}s"; } > "$work/out"
    echo ok > "$work/result"
  fi
  [ "$scratch" = "$work" ] || rm -rf "$scratch"
}

# CS_FUZZ_JOBS targets at a time (default: the machine's cores; each
# libFuzzer process uses one), reported in the order of the list.
extra=("$@")
jobs_max="${CS_FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}"
[[ "$jobs_max" =~ ^[1-9][0-9]*$ ]] || jobs_max=1
for t in $targets; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
  echo "run.sh: fuzzing $t for ${secs}s; new inputs in $build/fuzz-work/$t/corpus"
  run_one "$t" &
done
wait
failed=""
for t in $targets; do
  work="$build/fuzz-work/$t"
  if [ "$(cat "$work/result" 2>/dev/null)" = ok ]; then cat "$work/out"
  else cat "$work/out" >&2 2>/dev/null; failed="$failed $t"; fi
done
if [ -n "$failed" ]; then
  echo "run.sh: failed:$failed" >&2
  exit 1
fi
