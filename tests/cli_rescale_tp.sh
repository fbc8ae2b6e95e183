#!/usr/bin/env bash
# cli_rescale_tp.sh -- clustersim rescale --to-tp (docs/rescale.md, "The tensor-parallel degree"): a
# generated transformer plan at tp t re-formed for tp t' is compared with the plan the generator writes
# at t', the independent reference:
#   * every rank's nodes equal once durations are set aside: names, ids, dependencies, num_ops,
#     tensor_size, every comm_size (TP all-reduces kept, SP all-gathers, pipeline messages and gradient
#     buckets scaled), pg_name, peers, tags -- and the comm-group file byte for byte;
#   * every duration of a node whose generated time is linear in 1/tp (layer norms, residuals,
#     attention, the optimizer) within floor(t / 2t') + 1 us of the generator's (both round a real to a
#     whole microsecond); GEMMs (qkv, proj, mlp, logits) differ by the generator's efficiency of the
#     sharded dimension, which a trace does not hold: their largest difference is printed, not claimed;
#   * the simulated step within D us of the generator's, D = the sum of |duration difference| over the
#     compute nodes of one pipeline (tp_i 0, dp_i 0, every stage): a critical path holds each node
#     position at most once and the replicas' durations are equal.
# Then the refusals.
. "$(dirname "$0")/lib_cli.sh"
cd "$CS_TMP" || exit 1

step_ps() { # PREFIX REF
    "$CS_BIN" run --workload-configuration="$1" --comm-group-configuration="$1.comm_groups.json" \
        --network-configuration="$2.network.yml" --system-configuration="$2.system.json" --comm-streams=4 \
        --json "$1.sum.json" --quiet || return 1
    grep -o '"sim_time_ps": *[0-9]*' "$1.sum.json" | grep -o '[0-9]*$'
}

# "name dur" of every node with a duration, in file order
durs() { "$CS_BIN" inspect --json "$1" 2>/dev/null | grep -E '^  "(name|durationMicros)"' | awk -F'"' '/"name"/ { n = $4 } /"durationMicros"/ { print n, $4 }'; }

# check_tp NAME "PLAN FLAGS" PP TP DP GLOBAL TP' DP' GLOBAL' (placement tp,dp,pp)
check_tp() {
    local n=$1 plan=$2 pp=$3 st=$4 sdp=$5 sgb=$6 dt=$7 ddp=$8 dgb=$9
    # shellcheck disable=SC2086
    "$CS_BIN" generate $plan --pp "$pp" --tp "$st" --dp "$sdp" --global-batch "$sgb" --out "$n.s" >/dev/null || { fail "$n: generate tp $st"; return; }
    # shellcheck disable=SC2086
    "$CS_BIN" generate $plan --pp "$pp" --tp "$dt" --dp "$ddp" --global-batch "$dgb" --out "$n.g" >/dev/null || { fail "$n: generate tp $dt"; return; }
    out=$("$CS_BIN" rescale --workload-configuration="$n.s" --comm-group-configuration="$n.s.comm_groups.json" \
        --tp "$st" --pp "$pp" --to-tp "$dt" --to-dp "$ddp" --out "$n.r" 2>&1) || { fail "$n: rescale: $out"; return; }
    echo "$out" | grep -q "tp       re-formed from tp $st to tp $dt" && pass "$n: the re-forming is said" || fail "$n: log: $out"
    local m r d=0 bound=$((st / (2 * dt) + 1)) over=0 lin=0 gemm=0 D=0
    m=$(ls "$n".g.*.et | wc -l)
    [ "$(ls "$n".r.*.et | wc -l)" -eq "$m" ] && pass "$n: $m rank files" || fail "$n: $(ls "$n".r.*.et | wc -l) rank files, expected $m"
    for ((r = 0; r < m; r++)); do
        "$CS_BIN" inspect --json "$n.g.$r.et" 2>/dev/null | grep -v '"durationMicros"' > "$n.gj"
        "$CS_BIN" inspect --json "$n.r.$r.et" 2>/dev/null | grep -v '"durationMicros"' > "$n.rj"
        cmp -s "$n.gj" "$n.rj" || d=$((d + 1))
        durs "$n.g.$r.et" > "$n.gd"
        durs "$n.r.$r.et" > "$n.rd"
        # worst non-GEMM |diff|, over the bound, worst GEMM |diff|, sum of |diff|
        read -r l o g s < <(paste -d' ' "$n.gd" "$n.rd" | awk -v b="$bound" '
            { x = $2 - $4; if (x < 0) x = -x; s += x
              if ($1 ~ /(^|\.)(qkv|proj|mlp|logits)$/) { if (x > g) g = x } else { if (x > l) l = x; if (x > b) o++ } }
            END { print l + 0, o + 0, g + 0, s + 0 }')
        [ "$l" -gt "$lin" ] && lin=$l
        [ "$g" -gt "$gemm" ] && gemm=$g
        over=$((over + o))
        [ $((r % (dt * ddp))) -eq 0 ] && D=$((D + s)) # rank (0, 0, pp_i)
    done
    [ "$d" -eq 0 ] && pass "$n: tp $st -> $dt: all $m ranks equal the generated plan but for durations" \
        || fail "$n: $d of $m ranks differ from the generated tp $dt plan beyond durations"
    cmp -s "$n.g.comm_groups.json" "$n.r.comm_groups.json" && pass "$n: comm groups equal the generated ones" \
        || fail "$n: comm groups differ"
    [ "$over" -eq 0 ] && pass "$n: non-GEMM durations within $bound us (worst $lin us); GEMMs: worst $gemm us (not claimed)" \
        || fail "$n: $over non-GEMM durations beyond $bound us (worst $lin us)"
    local a b
    a=$(step_ps "$n.g" "$n.g") && b=$(step_ps "$n.r" "$n.g") && [ -n "$a" ] && [ -n "$b" ] || { fail "$n: run"; return; }
    local diff=$((a > b ? a - b : b - a))
    [ "$diff" -le $((D * 1000000)) ] && pass "$n: step generated $a ps, re-formed $b ps: |diff| $diff ps <= D = $D us" \
        || fail "$n: step generated $a ps, re-formed $b ps: |diff| $diff ps > D = $D us"
}

G="--model gpt3-6.7b --micro-batch 1"
# tp 2 -> 4, 1F1B over 2 stages: all-reduces kept, the sharded compute and the gradient buckets halved
check_tp up "$G" 2 2 2 8 4 2 8
# sequence parallelism: all-gathers, layer norms, pipeline messages scale too; dp 2 -> 4 at once
check_tp sp "$G --sp" 2 2 2 8 4 4 16
# tp 4 -> 2 (the generator's sizes taken as integers), SP
check_tp down "$G --sp" 2 4 2 8 2 2 8
# ZeRO-1: the optimizer and the all-gather of its shard by tp dp / (tp' dp')
check_tp zero1 "$G --zero 1" 2 2 2 8 4 4 16
# FSDP: every layer's parameters all-gathered as 1/dp shards of the rank's 1/tp, reduce-scattered per layer
check_tp fsdp "$G --fsdp" 2 2 2 8 4 2 8
# Llama (SwiGLU, RMSNorm), full recomputation
check_tp llama "--model llama2-7b --micro-batch 1 --recompute full" 2 2 2 8 4 2 8

# ---- refusals: exit 1, the file/flag and the reason named -----------------------------------------
S=(--workload-configuration=up.s --comm-group-configuration=up.s.comm_groups.json --tp 2 --pp 2)
expect_fail "--to-tp 1 refused" "--to-tp 1|needs tp >= 2 in the source and the target" \
    "$CS_BIN" rescale "${S[@]}" --to-tp 1 --to-dp 2 --out e1
expect_fail "--to-pp with --to-tp refused" "--to-pp 4 with --to-tp 4|one of the two at a time" \
    "$CS_BIN" rescale "${S[@]}" --to-pp 4 --to-tp 4 --to-dp 2 --out e2
# Llama 2 7B's layers at tp 8: 25 M parameters, 51 MB of gradients, below the 80 MB bucket: layers merge
expect_fail "buckets would merge" "llama.s.0.et: node|(dp.grads): --to-tp 8|one layer's gradients|below the bucket size (--bucket-bytes 80000000)" \
    "$CS_BIN" rescale --workload-configuration=llama.s --comm-group-configuration=llama.s.comm_groups.json --tp 2 --pp 2 \
    --to-tp 8 --to-dp 2 --out e3
"$CS_BIN" rescale --workload-configuration=llama.s --comm-group-configuration=llama.s.comm_groups.json --tp 2 --pp 2 \
    --to-tp 8 --to-dp 2 --bucket-bytes 50000000 --out e3b --quiet && pass "--bucket-bytes: a smaller bucket accepted" \
    || fail "--bucket-bytes 50000000"
# a trace without the generator's layer names (Chakra's converter names nodes after PyTorch operators)
printf '{"1": [0, 1], "2": [2, 3], "3": [0, 2], "4": [1, 3]}\n' > g4.json
"$CS_MKTRACE" --ranks anon "1 COMP dur=10; 2 COLL ctype=0 size=64 pg=1 data=1; 3 COLL ctype=0 size=64 pg=3 data=2" \
    "1 COMP dur=10; 2 COLL ctype=0 size=64 pg=1 data=1; 3 COLL ctype=0 size=64 pg=4 data=2" \
    "1 COMP dur=10; 2 COLL ctype=0 size=64 pg=2 data=1; 3 COLL ctype=0 size=64 pg=3 data=2" \
    "1 COMP dur=10; 2 COLL ctype=0 size=64 pg=2 data=1; 3 COLL ctype=0 size=64 pg=4 data=2" || fail "mktrace anon"
expect_fail "no recognizable layers" "anon.0.et: node 1 (COMP_1): --to-tp 4: no tensor-parallel rule for this node|without recognizable layers" \
    "$CS_BIN" rescale --workload-configuration=anon --comm-group-configuration=g4.json --tp 2 --to-tp 4 --to-dp 2 --out e4
[ ! -f e4.0.et ] && pass "no recognizable layers: nothing written" || fail "e4 written"
# mixture of experts (EP 1 here): the router and the experts have no rule
"$CS_BIN" generate --model mixtral-8x7b --tp 2 --pp 4 --dp 2 --micro-batch 1 --global-batch 8 --no-memory-check --out moe >/dev/null 2>&1
expect_fail "MoE refused" "moe.0.et: node|(L0.router): --to-tp 4: no tensor-parallel rule|MoE's router and experts" \
    "$CS_BIN" rescale --workload-configuration=moe --comm-group-configuration=moe.comm_groups.json --tp 2 --pp 4 --to-tp 4 \
    --to-dp 2 --out e5
# a shard the rounding leaves open going down: ZeRO-1's optimizer from tp 4 to tp 2
"$CS_BIN" generate $G --sp --zero 1 --tp 4 --pp 2 --dp 2 --global-batch 8 --out z4 >/dev/null
expect_fail "undetermined shard" "z4.0.et: node|(optimizer): tensor_size|is a 1/dp shard's at dp 2 (of the rank's 1/tp share)|not rescaled exactly" \
    "$CS_BIN" rescale --workload-configuration=z4 --comm-group-configuration=z4.comm_groups.json --tp 4 --pp 2 --to-tp 2 \
    --to-dp 2 --out e6
# the ranks of a TP group must be equal: rank 1 (tp_i 1) taken from a plan with micro-batch 2
mkdir -p nt && cp up.s.* nt/ && "$CS_BIN" generate $G --tp 2 --pp 2 --dp 2 --micro-batch 2 --global-batch 16 --out mb2 >/dev/null \
    && cp mb2.1.et nt/up.s.1.et
expect_fail "TP ranks not equal" "nt/up.s.1.et: rank 1 (tp_i 1, dp_i 0, pp_i 0) is not a tensor-parallel replica of rank 0|durationMicros" \
    "$CS_BIN" rescale --workload-configuration=nt/up.s --comm-group-configuration=nt/up.s.comm_groups.json --tp 2 --pp 2 \
    --to-tp 4 --to-dp 2 --out e7
# determinism
"$CS_BIN" rescale "${S[@]}" --to-tp 4 --to-dp 2 --out again --quiet && d=0 && for r in $(seq 0 15); do
    cmp -s "again.$r.et" "up.r.$r.et" || d=1; done && [ "$d" -eq 0 ] && pass "two re-formings write identical files" \
    || fail "two re-formings differ"
finish
