# lib_cli.sh -- helpers for the shell tests (sourced, not a test itself).
set -u
: "${CS_BIN:?CS_BIN not set (run through ctest)}"
: "${CS_TMP:?}"
rm -rf "$CS_TMP"; mkdir -p "$CS_TMP"
FAILS=0
pass() { printf 'ok   %s\n' "$1"; }
fail() { printf 'FAIL %s\n' "$1"; FAILS=$((FAILS + 1)); }
# expect_fail NAME "needle1|needle2..." cmd...: exit code must be 1 and stderr
# must contain every needle (|-separated).
expect_fail() {
    local name=$1 needles=$2; shift 2
    local out rc
    out=$("$@" 2>&1 >/dev/null); rc=$?
    if [ "$rc" -ne 1 ]; then fail "$name: exit $rc, expected 1; output: $out"; return; fi
    local IFS='|'
    for n in $needles; do
        case "$out" in *"$n"*) ;; *) fail "$name: message lacks \"$n\": $out"; return ;; esac
    done
    pass "$name"
}
finish() { [ "$FAILS" -eq 0 ] || { echo "$FAILS failure(s)"; exit 1; }; echo "all passed"; }
