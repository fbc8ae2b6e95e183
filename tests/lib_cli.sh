# lib_cli.sh -- helpers for the shell tests (sourced, not a test itself).
set -u
: "${CS_BIN:?CS_BIN not set (run through ctest)}"
: "${CS_TMP:?}"
rm -rf "$CS_TMP"; mkdir -p "$CS_TMP"
FAILS=0
pass() { printf 'ok   %s\n' "$1"; }
fail() { printf 'FAIL %s\n' "$1"; FAILS=$((FAILS + 1)); }
# expect_exit CODE NAME "needle1|needle2..." cmd...: the exit code must be CODE
# and stderr must contain every needle (|-separated).
expect_exit() {
    local code=$1 name=$2 needles=$3; shift 3
    local out rc
    out=$("$@" 2>&1 >/dev/null); rc=$?
    if [ "$rc" -ne "$code" ]; then fail "$name: exit $rc, expected $code; output: $out"; return; fi
    local IFS='|'
    for n in $needles; do
        case "$out" in *"$n"*) ;; *) fail "$name: message lacks \"$n\": $out"; return ;; esac
    done
    pass "$name"
}
# expect_fail: a refused input (exit 1); expect_usage: a usage error (exit 2)
expect_fail() { expect_exit 1 "$@"; }
expect_usage() { expect_exit 2 "$@"; }
finish() { [ "$FAILS" -eq 0 ] || { echo "$FAILS failure(s)"; exit 1; }; echo "all passed"; }
