#!/usr/bin/env bash
# cli_hostile.sh -- the adversarial sweep of the command line of 2026-11-28
# (docs/testing.md, "Adversarial catalogue"), one case per defect found and
# fixed; each fails with the binary before its fix:
#  - a trace set written over an earlier one and failing part-way (a
#    directory in the way of one rank) is removed whole: generate and synth
#    stopped removing at the first name they could not unlink, leaving the
#    earlier set's later ranks (and synth its earlier statistics) beside
#    nothing of this run's.
. "$(dirname "$0")/lib_cli.sh"
cd "$CS_TMP" || exit 1
printf 'topology: [ Switch ]\nnpus_count: [ 4 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' > n4.yml
# left PREFIX: the files under PREFIX.* that exist (regular files), sorted, on one line
left() { find . -maxdepth 1 -type f -name "$1.*" | sed 's|^\./||' | sort | tr '\n' ' ' | sed 's/ $//'; }

# --- a failed write over an earlier set leaves none of either -------------------------
G=("$CS_BIN" generate --model gpt3-6.7b --tp 2 --pp 2 --global-batch 4 --quiet)
"${G[@]}" --out old 2> e_gen.err || fail "generate: $(cat e_gen.err)"
rm old.1.et && mkdir old.1.et
expect_fail "generate over an earlier set, rank 1 a directory" "old.1.et: cannot create trace file" \
    "${G[@]}" --micro-batch 2 --out old
got=$(left old)
if [ -z "$got" ]; then pass "generate: nothing of the earlier set left"; else fail "generate left: $got"; fi
"${G[@]}" --out src 2> e_gen.err || fail "generate: $(cat e_gen.err)"
"$CS_BIN" synth --workload-configuration=src --out syn --quiet 2> e_syn.err || fail "synth: $(cat e_syn.err)"
[ -f syn.synth.json ] || fail "synth wrote no syn.synth.json"
rm syn.1.et && mkdir syn.1.et
expect_fail "synth over an earlier set, rank 1 a directory" "syn.1.et: cannot write" \
    "$CS_BIN" synth --workload-configuration=src --out syn --seed 7 --quiet
got=$(left syn)
if [ -z "$got" ]; then pass "synth: nothing of the earlier set left (ranks, synth.json)"; else fail "synth left: $got"; fi
finish
