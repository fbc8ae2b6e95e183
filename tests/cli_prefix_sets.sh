#!/usr/bin/env bash
# cli_prefix_sets.sh -- the commands that write a trace set to a prefix
# (generate, synth, rescale) leave under it this run's set or none:
#   - a smaller set over an earlier, larger one is refused before anything is
#     written, naming PREFIX.<n>.et (a loader, or synth's rank count, would
#     read it as rank n of the new set); rescale did so already, generate and
#     synth left the tail silently;
#   - a set of the same size is replaced;
#   - a run that fails while writing removes the whole set (here: generate
#     with PREFIX.comm_groups.json a directory, so the write after the ranks
#     fails), and not the directory in the way;
#   - a refused run (bad flag) touches nothing;
#   - --out "" or "dir/" (no name: hidden .0.et files) is refused.
. "$(dirname "$0")/lib_cli.sh"
: "${CS_MKTRACE:?}"
cd "$CS_TMP" || exit 1

count() { ls "$1".*.et 2>/dev/null | wc -l; }
PLAN="--model gpt3-6.7b --tp 2 --pp 2 --micro-batch 1"

# generate: 16 ranks (dp 4), then 8 (dp 2) to the same prefix
# shellcheck disable=SC2086
"$CS_BIN" generate $PLAN --dp 4 --global-batch 16 --out g >/dev/null 2>e0 || fail "generate dp 4: $(cat e0)"
[ "$(count g)" -eq 16 ] && pass "generate dp 4: 16 rank files" || fail "generate dp 4: $(count g) files"
# shellcheck disable=SC2086
expect_fail "generate dp 2 over dp 4" "--out g|g.8.et exists|remove the old trace set" \
    "$CS_BIN" generate $PLAN --dp 2 --global-batch 8 --out g
[ "$(count g)" -eq 16 ] \
    && pass "generate dp 2 over dp 4: refused, the earlier 16 files untouched" || fail "dp 2 over dp 4: $(count g) files"
rm -f g.*.et
# shellcheck disable=SC2086
"$CS_BIN" generate $PLAN --dp 2 --global-batch 8 --out g >/dev/null 2>e0 || fail "generate dp 2: $(cat e0)"
cp g.3.et g3.before
# shellcheck disable=SC2086
"$CS_BIN" generate $PLAN --dp 2 --global-batch 8 --out g >/dev/null 2>e0 || fail "generate dp 2 again: $(cat e0)"
[ "$(count g)" -eq 8 ] && cmp -s g.3.et g3.before && pass "generate over a set of the same size: replaced, same bytes" \
    || fail "generate again: $(count g) files"
# a refused run touches nothing
# shellcheck disable=SC2086
expect_fail "generate refused" "--dp" "$CS_BIN" generate $PLAN --dp 0 --out g
[ "$(count g)" -eq 8 ] && pass "refused generate: the set stays" || fail "refused generate: $(count g) files"
# a run that fails while writing removes the set
rm -f g.comm_groups.json && mkdir g.comm_groups.json
# shellcheck disable=SC2086
if "$CS_BIN" generate $PLAN --dp 2 --global-batch 8 --out g >/dev/null 2>e1; then
    fail "generate with the groups file a directory: exit 0"
else
    [ "$(count g)" -eq 0 ] && [ ! -e g.network.yml ] && [ ! -e g.system.json ] \
        && pass "generate failing while writing: no rank file, network or system file stays" \
        || fail "generate failing while writing: $(count g) rank files left, $(ls g.* | tr '\n' ' ')"
fi
[ -d g.comm_groups.json ] && pass "the directory in the way is not removed" || fail "the directory was removed"
rmdir g.comm_groups.json

# synth: a 4-rank set, then a 2-rank source to the same --out
SPEC="1 COMP dur=100; 2 COLL ctype=0 size=1000000 data=1; 3 COMP dur=50 data=2"
"$CS_MKTRACE" --ranks four "$SPEC" "$SPEC" "$SPEC" "$SPEC" || fail "mktrace four"
"$CS_MKTRACE" --ranks two "$SPEC" "$SPEC" || fail "mktrace two"
"$CS_BIN" synth --workload-configuration=four --out s --quiet 2>e2 || fail "synth four: $(cat e2)"
[ "$(count s)" -eq 4 ] && pass "synth: 4 rank files" || fail "synth: $(count s) files"
cp s.3.et s3.before
expect_fail "synth 2 ranks over 4" "--out s|s.2.et exists|remove the old trace set" \
    "$CS_BIN" synth --workload-configuration=two --out s --quiet
[ "$(count s)" -eq 4 ] && cmp -s s.3.et s3.before && pass "synth 2 ranks over 4: refused, the earlier set untouched" \
    || fail "synth 2 ranks over 4: $(count s) rank files"
rm -f s.*.et
"$CS_BIN" synth --workload-configuration=two --out s --quiet 2>e2 || fail "synth two: $(cat e2)"
[ "$(count s)" -eq 2 ] && pass "synth 2 ranks after the old set was removed" || fail "synth two: $(count s)"

# rescale: dp 2 -> 4, then dp 2 -> 2 (same plan) into the same --out
# shellcheck disable=SC2086
"$CS_BIN" generate $PLAN --dp 2 --global-batch 8 --out r >/dev/null 2>e3 || fail "generate r: $(cat e3)"
"$CS_BIN" rescale --workload-configuration=r --comm-group-configuration=r.comm_groups.json --tp 2 --pp 2 \
    --to-dp 4 --out rs >/dev/null 2>e3 || fail "rescale to 4: $(cat e3)"
[ "$(count rs)" -eq 16 ] && pass "rescale to dp 4: 16 rank files" || fail "rescale to dp 4: $(count rs)"
expect_fail "rescale to dp 2 over dp 4" "--out rs|rs.8.et exists|remove the old trace set" \
    "$CS_BIN" rescale --workload-configuration=r --comm-group-configuration=r.comm_groups.json --tp 2 --pp 2 \
    --to-dp 2 --out rs
[ "$(count rs)" -eq 16 ] && pass "rescale over a larger set: refused, untouched" || fail "rescale: $(count rs) files"

# a prefix without a name would write hidden files (.0.et, ...)
for c in generate synth rescale; do
    case $c in
    generate) args=($PLAN --dp 2 --global-batch 8) ;;
    synth) args=(--workload-configuration=two) ;;
    rescale) args=(--workload-configuration=r --comm-group-configuration=r.comm_groups.json --tp 2 --pp 2 --to-dp 4) ;;
    esac
    expect_fail "$c --out ''" "--out ''|expected a prefix ending in a name" "$CS_BIN" $c "${args[@]}" --out ""
    mkdir -p sub
    expect_fail "$c --out sub/" "--out 'sub/'|expected a prefix ending in a name" "$CS_BIN" $c "${args[@]}" --out sub/
done
[ -z "$(ls -A sub)" ] && [ ! -e .0.et ] && pass "no hidden files written" || fail "hidden files: $(ls -A sub) $(ls -a | grep '^\.[0-9]')"
finish
