#!/usr/bin/env bash
# cli_validate.sh -- the validation scripts run with the publications' own
# plans, and the numbers docs/validation.md shows are the numbers the
# scripts print: every line a script prints must appear verbatim in the
# document (regenerate with the script, paste).  No bound on the errors:
# they are what they are, and the document reports them (several rows are
# 9-17 % off).  To stay in CI time it runs the fast rows: Korthikanti's 22B
# and 175B (both modes) and four of Megatron's ten.
. "$(dirname "$0")/lib_cli.sh"
S="$CS_SOURCE_DIR/scripts"
DOC="$CS_SOURCE_DIR/docs/validation.md"
check() { # label output
    local label=$1 out=$2 n=0 line
    while IFS= read -r line; do
        case "$line" in model*|clustersim:*|"") continue ;; esac
        n=$((n + 1))
        grep -qxF -- "$line" "$DOC" && pass "$label: documented: $line" \
            || fail "$label: not in docs/validation.md (regenerate the table): $line"
    done <<< "$out"
    [ "$n" -gt 0 ] || fail "$label: no rows printed"
}
out=$(CS_BIN="$CS_BIN" "$S/validate_korthikanti.sh" 22b 175b 2>&1) || fail "validate_korthikanti.sh: $out"
echo "$out"
# (rows only: a slow build also prints progress lines, "clustersim: 20.5 % of ...", after 2 s of wall time)
[ "$(echo "$out" | grep -v '^clustersim:' | grep -c '%')" -eq 4 ] && pass "4 Korthikanti rows ran" \
    || fail "Korthikanti rows: $out"
check Korthikanti "$out"
out=$(CS_BIN="$CS_BIN" "$S/validate_megatron.sh" 1.7b 18.4b 39.1b 76.1b 2>&1) || fail "validate_megatron.sh: $out"
echo "$out"
check Megatron "$out"
finish
