#!/usr/bin/env bash
# cli_rescale.sh -- clustersim rescale (docs/rescale.md): a generated plan at
# small dp, rescaled to a larger (or smaller) dp, equals the plan the
# generator writes at that dp -- every rank file byte for byte, the comm
# groups, and the simulated step time to the picosecond.  The generator's
# output at the target scale is the independent reference.  Then the
# refusals (each names the file or flag, exits 1, writes nothing) and
# determinism.
. "$(dirname "$0")/lib_cli.sh"
: "${CS_MKTRACE:?}"
cd "$CS_TMP" || exit 1

"$CS_BIN" rescale --help | grep -q -- '--to-dp N' && pass "rescale help" || fail "rescale help"

# step time in ps of a trace set on the reference's network and system
step_ps() { # PREFIX REF
    "$CS_BIN" run --workload-configuration="$1" --comm-group-configuration="$1.comm_groups.json" \
        --network-configuration="$2.network.yml" --system-configuration="$2.system.json" --comm-streams=4 \
        --json "$1.sum.json" --quiet || return 1
    grep -o '"sim_time_ps": *[0-9]*' "$1.sum.json" | grep -o '[0-9]*$'
}

# check NAME "PLAN FLAGS" SRC_DP SRC_GLOBAL DST_DP DST_GLOBAL "RESCALE FLAGS": the micro-batch count per
# rank (global / (micro x dp)) is the same at both scales, so the per-rank work is the generator's at both
check() {
    local n=$1 plan=$2 sdp=$3 sgb=$4 ddp=$5 dgb=$6 rf=$7
    # shellcheck disable=SC2086
    "$CS_BIN" generate $plan --dp "$sdp" --global-batch "$sgb" --out "$n.s" >/dev/null || { fail "$n: generate dp $sdp"; return; }
    # shellcheck disable=SC2086
    "$CS_BIN" generate $plan --dp "$ddp" --global-batch "$dgb" --out "$n.g" >/dev/null || { fail "$n: generate dp $ddp"; return; }
    # shellcheck disable=SC2086
    out=$("$CS_BIN" rescale --workload-configuration="$n.s" --comm-group-configuration="$n.s.comm_groups.json" $rf \
        --to-dp "$ddp" --out "$n.r" 2>&1) || { fail "$n: rescale: $out"; return; }
    local m d=0 r
    m=$(ls "$n".g.*.et | wc -l)
    [ "$(ls "$n".r.*.et | wc -l)" -eq "$m" ] && pass "$n: $m rank files written" || fail "$n: rank files: $(ls "$n".r.*.et | wc -l), expected $m"
    for ((r = 0; r < m; r++)); do cmp -s "$n.g.$r.et" "$n.r.$r.et" || d=$((d + 1)); done
    [ "$d" -eq 0 ] && pass "$n: dp $sdp -> $ddp: all $m rank files equal the generated dp $ddp plan, byte for byte" \
        || fail "$n: $d of $m rank files differ from the generated dp $ddp plan"
    cmp -s "$n.g.comm_groups.json" "$n.r.comm_groups.json" && pass "$n: comm groups equal the generated ones" \
        || fail "$n: comm groups differ"
    # the same after reading: the reader's JSON of one rank per pipeline stage
    "$CS_BIN" inspect --json "$n.g.$((m - 1)).et" > "$n.g.json" 2>/dev/null && "$CS_BIN" inspect --json "$n.r.$((m - 1)).et" > "$n.r.json" 2>/dev/null \
        && cmp -s "$n.g.json" "$n.r.json" && pass "$n: last rank equal after reading" || fail "$n: last rank differs after reading"
    local a b
    a=$(step_ps "$n.g" "$n.g") && b=$(step_ps "$n.r" "$n.g") && [ -n "$a" ] && [ "$a" = "$b" ] \
        && pass "$n: simulated step time equal ($a ps)" || fail "$n: step time generated $a ps, rescaled $b ps"
}

# tensor + pipeline parallel GPT (1F1B, overlapped gradient buckets), the generator's default placement
check tp2pp2 "--model gpt3-6.7b --tp 2 --pp 2 --micro-batch 1" 2 8 8 32 "--tp 2 --pp 2"
# the other way: dp 8 down to dp 2
check down "--model gpt3-6.7b --tp 2 --pp 2 --micro-batch 1" 8 32 2 8 "--tp 2 --pp 2"
# data parallel only (ResNet-50: 25 MB DDP buckets; micro-batch = global / dp)
check rn50 "--model resnet50" 2 64 8 256 ""
# another placement (DP innermost), GPipe, gradients reduced after the last backward
check place "--model gpt3-6.7b --tp 2 --pp 2 --micro-batch 1 --placement dp,pp,tp --schedule gpipe --no-overlap-grad-reduce" \
    2 8 4 16 "--tp 2 --pp 2 --placement dp,pp,tp"

# ZeRO-1 (reduce-scatters of the whole bucket, the all-gather of the 1/dp shard, the optimizer on it) and
# FSDP (every layer's parameters all-gathered as 1/dp shards, before its forward and its backward)
check zero1 "--model gpt3-6.7b --tp 2 --pp 2 --micro-batch 1 --zero 1" 2 8 6 24 "--tp 2 --pp 2"
check fsdp "--model gpt3-6.7b --tp 2 --pp 2 --micro-batch 1 --fsdp" 2 8 6 24 "--tp 2 --pp 2"
check rn50z2 "--model resnet50 --zero 2" 2 64 16 512 ""
# the frameworks' sharding: Megatron's distributed optimizer (4-byte reduce-scatters), FSDP's per-layer units
check distopt "--model gpt3-6.7b --tp 2 --micro-batch 1 --use-distributed-optimizer" 2 4 4 8 "--tp 2"
check fsdpfull "--model gpt3-6.7b --tp 2 --micro-batch 1 --fsdp-sharding-strategy FULL_SHARD" 2 4 4 8 "--tp 2"
check fsdpsgo "--model gpt3-6.7b --tp 2 --micro-batch 1 --fsdp-sharding-strategy SHARD_GRAD_OP --fsdp-no-sync" 2 4 4 8 "--tp 2"
grep -q "shards   1/dp shards rescaled by dp 2 / dp 6: .* compute nodes that wait for the DP reduce-scatters, read as the optimizer step on the shard (the first: \"optimizer\")" \
    <("$CS_BIN" rescale --workload-configuration=zero1.s --comm-group-configuration=zero1.s.comm_groups.json --tp 2 --pp 2 \
        --to-dp 6 --out zero1.again 2>&1) && pass "the shard rule is said" || fail "the shard rule is said"
# the rule in closed form: all-gather 1000 B and the optimizer's 100 us and 3200 B at dp 2 are 250 B,
# 25 us and 800 B at dp 8; the reduce-scatter (the whole bucket) stays 4096 B
"$CS_MKTRACE" --ranks sh "1 COLL ctype=7 size=4096; 2 COMP dur=100 tensor=3200 data=1; 3 COLL ctype=2 size=1000 data=2" \
    "1 COLL ctype=7 size=4096; 2 COMP dur=100 tensor=3200 data=1; 3 COLL ctype=2 size=1000 data=2" || fail "mktrace sh"
"$CS_BIN" rescale --workload-configuration=sh --to-dp 8 --out sh8 --quiet && j=$("$CS_BIN" inspect --json sh8.7.et 2>/dev/null | tr -d ' \n')
case "$j" in
*'"comm_type","int64Val":"7"},{"name":"comm_size","int64Val":"4096"'*'"durationMicros":"25"'*'"tensor_size","uint64Val":"800"'*'"comm_type","int64Val":"2"},{"name":"comm_size","int64Val":"250"'*)
    pass "shards scaled by 2/8: 250 B, 25 us, 800 B; the reduce-scatter kept" ;;
*) fail "shards scaled: $j" ;;
esac

# determinism: a second rescale writes the same bytes
"$CS_BIN" rescale --workload-configuration=tp2pp2.s --comm-group-configuration=tp2pp2.s.comm_groups.json --tp 2 --pp 2 \
    --to-dp 8 --out again --quiet && d=0 && for r in $(seq 0 31); do cmp -s "again.$r.et" "tp2pp2.r.$r.et" || d=1; done \
    && cmp -s again.comm_groups.json tp2pp2.r.comm_groups.json && [ "$d" -eq 0 ] \
    && pass "two rescales write identical files" || fail "two rescales differ"

# ---- the captured plan inferred (no --tp, --pp, --placement) -----------------------------------------
out=$("$CS_BIN" rescale --workload-configuration=tp2pp2.s --comm-group-configuration=tp2pp2.s.comm_groups.json \
    --to-dp 8 --out inf1 2>&1) && echo "$out" | grep -q -- "8 ranks = --tp 2 --pp 2 --placement tp,dp,pp (dp 2;.*inferred from the traces; of the two plans that swap TP and DP (also --tp 2 --pp 2 --placement dp,tp,pp)" \
    && pass "tp 2 pp 2 inferred (TP/DP swap decided by the collective counts)" || fail "tp 2 pp 2 inferred: $out"
d=0; for r in $(seq 0 31); do cmp -s "inf1.$r.et" "tp2pp2.g.$r.et" || d=1; done
[ "$d" -eq 0 ] && pass "inferred: files equal the generated dp 8 plan" || fail "inferred: files differ"
out=$("$CS_BIN" rescale --workload-configuration=place.s --comm-group-configuration=place.s.comm_groups.json \
    --to-dp 4 --out inf2 2>&1) && echo "$out" | grep -q -- "--tp 2 --pp 2 --placement dp,pp,tp (dp 2;" \
    && cmp -s inf2.15.et place.g.15.et && pass "placement dp,pp,tp inferred" || fail "placement dp,pp,tp inferred: $out"
"$CS_BIN" generate --model gpt3-6.7b --pp 4 --dp 2 --micro-batch 1 --global-batch 8 --out pp4 >/dev/null
out=$("$CS_BIN" rescale --workload-configuration=pp4 --comm-group-configuration=pp4.comm_groups.json --to-dp 4 --out inf3 2>&1) \
    && echo "$out" | grep -q -- "--tp 1 --pp 4 --placement tp,dp,pp (dp 2;.*inferred: the only plan under which the traces are replicas" \
    && pass "pipeline of 4 inferred" || fail "pipeline of 4 inferred: $out"
# TP and DP groups with one all-reduce each: nothing tells them apart
printf '{"1": [0, 1], "2": [2, 3], "3": [0, 2], "4": [1, 3]}\n' > amb.json
"$CS_MKTRACE" --ranks amb "1 COLL ctype=0 size=64 pg=1; 2 COLL ctype=0 size=64 pg=3 data=1" \
    "1 COLL ctype=0 size=64 pg=1; 2 COLL ctype=0 size=64 pg=4 data=1" "1 COLL ctype=0 size=64 pg=2; 2 COLL ctype=0 size=64 pg=3 data=1" \
    "1 COLL ctype=0 size=64 pg=2; 2 COLL ctype=0 size=64 pg=4 data=1" || fail "mktrace amb"
expect_fail "ambiguous plan" "the captured plan of amb is ambiguous: --tp 2 --pp 1 --placement tp,dp,pp; --tp 2 --pp 1 --placement dp,tp,pp fit|give the captured plan's --tp, --pp and --placement" \
    "$CS_BIN" rescale --workload-configuration=amb --comm-group-configuration=amb.json --to-dp 4 --out e20
"$CS_BIN" rescale --workload-configuration=amb --comm-group-configuration=amb.json --tp 2 --to-dp 4 --out amb4 --quiet \
    && pass "ambiguous plan taken with --tp 2" || fail "amb with --tp 2"
# the groups are numbered as generate numbers them (TP groups 1..4, then DP groups 5, 6) ...
"$CS_BIN" generate --model gpt3-6.7b --tp 2 --dp 4 --global-batch 4 --out g24 >/dev/null
cmp -s amb4.comm_groups.json g24.comm_groups.json && pass "groups numbered as generate's" || fail "groups numbering"
# ... so rank 5 (tp_i 1, dp_i 2) names TP group 1 + dp_i = 3 and DP group 1 + 4 + tp_i = 6
pg=$("$CS_BIN" inspect --json amb4.5.et 2>/dev/null | grep -A1 '"pg_name"' | grep -o '"stringVal": "[0-9]*"' | tr -d '\n')
[ "$pg" = '"stringVal": "3""stringVal": "6"' ] && pass "rank 5 names groups 3 and 6" || fail "rank 5 groups: $pg"

# ---- refusals: exit 1, the file/flag and the reason named, nothing written ------------------------
S=(--workload-configuration=tp2pp2.s --comm-group-configuration=tp2pp2.s.comm_groups.json)
nothing() { # NAME PREFIX: no file of the target (final or temporary) was left
    if ls "$2".* >/dev/null 2>&1; then fail "$1: files left: $(ls "$2".* | head -3)"; else pass "$1: nothing written"; fi
}
expect_fail "--to-tp 1 refused" "--to-tp 1|needs tp >= 2 in the source and the target" \
    "$CS_BIN" rescale "${S[@]}" --tp 2 --pp 2 --to-dp 8 --to-tp 1 --out e1
nothing "--to-tp" e1
expect_fail "--to-pp 1 refused" "--to-pp 1|needs pp >= 2 in the source and the target" \
    "$CS_BIN" rescale "${S[@]}" --tp 2 --pp 2 --to-dp 8 --to-pp 1 --out e2
"$CS_BIN" rescale "${S[@]}" --tp 2 --pp 2 --to-dp 8 --to-tp 2 --to-pp 2 --out same --quiet \
    && cmp -s same.31.et tp2pp2.r.31.et && pass "--to-tp/--to-pp equal to the source accepted" || fail "--to-tp 2 --to-pp 2"
expect_fail "--to-dp 1 refused" "--to-dp 1|at least 2" "$CS_BIN" rescale "${S[@]}" --tp 2 --pp 2 --to-dp 1 --out e3
expect_fail "wrong --pp: a send leaves the replica" "tp2pp2.s.0.et: node|comm_dst is rank 4 (dp_i 2)|another data-parallel replica|--tp, --pp and --placement" \
    "$CS_BIN" rescale "${S[@]}" --tp 2 --to-dp 8 --out e4
nothing "wrong --pp" e4
expect_fail "--tp 3: ranks not a multiple" "--tp 3 --pp 1|8 ranks|not a multiple of tp x pp = 3" \
    "$CS_BIN" rescale "${S[@]}" --tp 3 --to-dp 8 --out e5
expect_fail "pg_name without a group file" "tp2pp2.s.0.et: node 2 (embed.ar)|no communicator group file" \
    "$CS_BIN" rescale --workload-configuration=tp2pp2.s --tp 2 --pp 2 --to-dp 8 --out e6
# a group whose members are not in coordinate order: neither the rank's TP nor its DP group
sed 's/"5": \[0, 2\]/"5": [2, 0]/' tp2pp2.s.comm_groups.json > swapped.json
grep -q '"5": \[2, 0\]' swapped.json || fail "swapped.json not made"
expect_fail "group out of order" "pg_name \"5\" is group 5 [2, 0] of swapped.json|neither rank 0's tensor-parallel group [0, 1] nor its data-parallel group [0, 2]" \
    "$CS_BIN" rescale --workload-configuration=tp2pp2.s --comm-group-configuration=swapped.json --tp 2 --pp 2 --to-dp 8 --out e7
# a shard whose value at the new dp the trace's rounding leaves open: 109051904 B at dp 2 is
# 218103807 to 218103809 B in all, 72701269.0 to 72701269.67 at dp 3
expect_fail "undetermined shard" "fsdp.s.0.et: node 1 (zero3.ag.extra): comm_size 109051904 is a 1/dp shard's at dp 2; at dp 3 it is 72701269 or 72701270|not rescaled exactly" \
    "$CS_BIN" rescale --workload-configuration=fsdp.s --comm-group-configuration=fsdp.s.comm_groups.json --tp 2 --pp 2 --to-dp 3 --out e8
nothing "undetermined shard" e8
"$CS_BIN" generate --model gpt3-6.7b --tp 2 --pp 2 --dp 2 --micro-batch 1 --global-batch 8 --zero 1 --offload-optimizer --out off >/dev/null
expect_fail "offloaded optimizer refused" "off.0.et: node|(optimizer.load): a memory access after the data-parallel reduce-scatters" \
    "$CS_BIN" rescale --workload-configuration=off --comm-group-configuration=off.comm_groups.json --tp 2 --pp 2 --to-dp 8 --out e17
"$CS_MKTRACE" --ranks aft "1 COLL ctype=7 size=64; 2 COMP dur=5 data=1; 3 COMP dur=5 data=2" "1 COLL ctype=7 size=64; 2 COMP dur=5 data=1; 3 COMP dur=5 data=2" \
    || fail "mktrace aft"
expect_fail "compute after the optimizer refused" "aft.0.et: node 3 (COMP_3) computes after node 2, which waits for a reduce-scatter|no optimizer step on a 1/dp shard" \
    "$CS_BIN" rescale --workload-configuration=aft --tp 1 --pp 1 --to-dp 4 --out e18
# ranks that are not replicas: rank 2 (tp_i 0, dp_i 1, pp_i 0) taken from a plan with micro-batch 2
mkdir -p nr && cp tp2pp2.s.* nr/ && "$CS_BIN" generate --model gpt3-6.7b --tp 2 --pp 2 --dp 2 --micro-batch 2 \
    --global-batch 16 --out mb2 >/dev/null && cp mb2.2.et nr/tp2pp2.s.2.et
expect_fail "not a replica" "nr/tp2pp2.s.2.et: rank 2 (tp_i 0, dp_i 1, pp_i 0) is not a data-parallel replica of rank 0|node 1 (embed; number 1 in file order): durationMicros" \
    "$CS_BIN" rescale --workload-configuration=nr/tp2pp2.s --comm-group-configuration=nr/tp2pp2.s.comm_groups.json \
    --tp 2 --pp 2 --to-dp 8 --out e9
nothing "not a replica" e9
# ... and without comm groups: two ranks whose second compute node differs
"$CS_MKTRACE" --ranks nrw "1 COMP dur=5; 2 COLL ctype=0 size=1024 data=1" "1 COMP dur=5; 2 COLL ctype=0 size=2048 data=1" \
    || fail "mktrace nrw"
expect_fail "not a replica, no comm groups" "nrw.1.et: rank 1 (tp_i 0, dp_i 1, pp_i 0) is not a data-parallel replica of rank 0|node 2 (COLL_2; number 2 in file order): attribute 2: {|comm_size|2048|expected|1024" \
    "$CS_BIN" rescale --workload-configuration=nrw --to-dp 4 --out e10
"$CS_MKTRACE" --ranks okw "1 COMP dur=5; 2 COLL ctype=0 size=1024 data=1" "1 COMP dur=5; 2 COLL ctype=0 size=1024 data=1" \
    && "$CS_BIN" rescale --workload-configuration=okw --to-dp 4 --out okw4 --quiet && [ -f okw4.3.et ] && [ ! -f okw4.comm_groups.json ] \
    && cmp -s okw.0.et okw4.3.et && pass "no comm groups: all-rank all-reduces copied, no group file" || fail "okw -> 4 ranks"
"$CS_MKTRACE" --ranks bc "1 COLL ctype=5 size=4096; 2 COLL ctype=9 size=0 data=1" "1 COLL ctype=5 size=4096; 2 COLL ctype=9 size=0 data=1" \
    && "$CS_BIN" rescale --workload-configuration=bc --to-dp 4 --out bc4 --quiet && cmp -s bc.1.et bc4.3.et \
    && pass "broadcast and barrier over all ranks rescaled" || fail "broadcast and barrier"
"$CS_MKTRACE" --ranks a2a "1 COLL ctype=6 size=4096" "1 COLL ctype=6 size=4096" || fail "mktrace a2a"
expect_fail "all-to-all refused" "a2a.0.et: node 1|ALL_TO_ALL on the data-parallel group is not rescaled|exchanges pieces that depend on dp" \
    "$CS_BIN" rescale --workload-configuration=a2a --to-dp 4 --out e21
"$CS_MKTRACE" okone.et "1 COMP dur=5" || fail "mktrace okone"
expect_fail "one file for every rank" "--workload-configuration=okone.et|one trace file for every rank" \
    "$CS_BIN" rescale --workload-configuration=okone.et --to-dp 4 --out e11
expect_fail "no trace set" "--workload-configuration=absent|absent.0.et (or .et.gz) not found" \
    "$CS_BIN" rescale --workload-configuration=absent --to-dp 4 --out e12
# a stale larger set would be read by run as more ranks
touch stale.32.et
expect_fail "stale rank file" "--out stale|stale.32.et exists|remove the old trace set" \
    "$CS_BIN" rescale "${S[@]}" --tp 2 --pp 2 --to-dp 8 --out stale
[ ! -f stale.0.et ] && pass "stale: nothing written" || fail "stale: files written"
expect_fail "bad --placement" "--placement tp,xx|expected tp, dp and pp" \
    "$CS_BIN" rescale "${S[@]}" --tp 2 --pp 2 --placement tp,xx --to-dp 8 --out e13
expect_fail "bad --to-dp" "--to-dp 'x'|expected an integer" "$CS_BIN" rescale "${S[@]}" --to-dp x --out e14
"$CS_BIN" rescale "${S[@]}" --out e15 >/dev/null 2>&1; [ $? -eq 2 ] && pass "missing --to-dp: usage, exit 2" || fail "missing --to-dp"
"$CS_BIN" rescale "${S[@]}" --to-dp 8 --out e16 --bogus >/dev/null 2>&1; [ $? -eq 2 ] && pass "unknown option: exit 2" || fail "unknown option"
# stopped while writing (SIGTERM): exit 143, the temporary files removed, no trace set left
"$CS_BIN" rescale "${S[@]}" --tp 2 --pp 2 --to-dp 512 --out stop --quiet 2>stopmsg.txt & pid=$!
# signalled once it writes (its first temporary file exists; the handler is in place by then)
for _ in $(seq 600); do compgen -G "stop.0.et.tmp.*" >/dev/null && break; sleep 0.1; done
kill -TERM "$pid"; wait "$pid"; rc=$?
[ "$rc" -eq 143 ] && grep -q "rescale stopped after" stopmsg.txt && pass "stopped by SIGTERM: exit 143, says so" \
    || fail "stopped: exit $rc, $(cat stopmsg.txt)"
nothing "stopped" stop
finish
