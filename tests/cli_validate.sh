#!/usr/bin/env bash
# cli_validate.sh -- the published measurements of docs/validation.md stay
# met: Korthikanti et al. 2022's four cases within 10 % (the issue's bar),
# and rows of Narayanan et al. 2021's Table 1 within the error the document
# reports (10 %, and 15 % for the 1.7 B row that the model runs 14 % fast).
# The reference values are the papers' measurements, not our output.
. "$(dirname "$0")/lib_cli.sh"
S="$CS_SOURCE_DIR/scripts"
out=$(CS_BIN="$CS_BIN" "$S/validate_korthikanti.sh" 2>&1) || fail "validate_korthikanti.sh: $out"
echo "$out"
n=$(echo "$out" | grep -c "error")
[ "$n" -eq 4 ] && pass "4 Korthikanti cases ran" || fail "Korthikanti cases: $n of 4"
echo "$out" | awk '/error/ { e = $NF == "%" ? $(NF-1) : $NF; gsub(/[%+]/, "", e); if (e < 0) e = -e;
    if (e > 10) bad = bad " " $1 "(" e "%)" } END { exit bad != "" }' \
    && pass "Korthikanti cases within 10 %" || fail "Korthikanti cases within 10 %"
out=$(CS_BIN="$CS_BIN" "$S/validate_megatron.sh" 1.7b 18.4b 76.1b 145.6b 2>&1) || fail "validate_megatron.sh: $out"
echo "$out"
for row in "1.7b 15" "18.4b 10" "76.1b 10" "145.6b 10"; do
    set -- $row
    e=$(echo "$out" | awk -v r="$1" '$1 == r { e = $NF; gsub(/[%+]/, "", e); print (e < 0 ? -e : e) }')
    [ -n "$e" ] && awk -v e="$e" -v m="$2" 'BEGIN { exit !(e <= m) }' \
        && pass "Megatron $1 within $2 % ($e %)" || fail "Megatron $1 within $2 %: ${e:-missing}"
done
finish
