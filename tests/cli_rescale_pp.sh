#!/usr/bin/env bash
# cli_rescale_pp.sh -- clustersim rescale --to-pp (docs/rescale.md, "The pipeline degree"): a generated
# transformer plan at pp p re-formed for pp p' is compared with the plan the generator writes at p', the
# independent reference:
#   * every rank's nodes equal once durations are set aside (ids, names, dependencies, num_ops,
#     tensor_size -- the optimizer's included --, comm_size, pg_name, peers, tags), the comm-group file
#     byte for byte;
#   * every duration equal but the optimizer's, which is within floor(T' / 2 T) + 1 us of the
#     generator's (T' its tensor_size, T the largest optimizer's of the source: the time per byte the
#     source's rounded durations allow is an interval of width at most 1 / T us);
#   * the simulated step within D us of the generator's, D = the sum of |duration difference| over the
#     ranks of one pipeline (tp_i 0, dp_i 0).
# Then the refusals (exit 1, the file or flag and the reason named, nothing written) and determinism.
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
# the optimizer's tensor_size
opt_ts() { "$CS_BIN" inspect --json "$1" 2>/dev/null | awk -F'"' '/^  "name"/ { o = $4 == "optimizer" } o && /"uint64Val"/ { v = $4 } END { print v }'; }

# check_pp NAME "PLAN FLAGS" TP PP DP GLOBAL PP' DP' GLOBAL' (placement tp,dp,pp)
check_pp() {
    local n=$1 plan=$2 tp=$3 sp=$4 sdp=$5 sgb=$6 dp=$7 ddp=$8 dgb=$9
    # shellcheck disable=SC2086
    "$CS_BIN" generate $plan --tp "$tp" --pp "$sp" --dp "$sdp" --global-batch "$sgb" --out "$n.s" >/dev/null || { fail "$n: generate pp $sp"; return; }
    # shellcheck disable=SC2086
    "$CS_BIN" generate $plan --tp "$tp" --pp "$dp" --dp "$ddp" --global-batch "$dgb" --out "$n.g" >/dev/null || { fail "$n: generate pp $dp"; return; }
    out=$("$CS_BIN" rescale --workload-configuration="$n.s" --comm-group-configuration="$n.s.comm_groups.json" \
        --tp "$tp" --pp "$sp" --to-pp "$dp" --to-dp "$ddp" --out "$n.r" 2>&1) || { fail "$n: rescale: $out"; return; }
    echo "$out" | grep -q "pp       re-formed from pp $sp to pp $dp" && pass "$n: the re-forming is said" || fail "$n: log: $out"
    local m r d=0 other=0 over=0 worst=0 D=0 tmax=0 t
    for ((r = 0; r < tp * sp * sdp; r += tp * sdp)); do t=$(opt_ts "$n.s.$r.et"); [ "$t" -gt "$tmax" ] && tmax=$t; done
    m=$(ls "$n".g.*.et | wc -l)
    [ "$(ls "$n".r.*.et | wc -l)" -eq "$m" ] && pass "$n: $m rank files" || fail "$n: $(ls "$n".r.*.et | wc -l) rank files, expected $m"
    for ((r = 0; r < m; r++)); do
        "$CS_BIN" inspect --json "$n.g.$r.et" 2>/dev/null | grep -v '"durationMicros"' > "$n.gj"
        "$CS_BIN" inspect --json "$n.r.$r.et" 2>/dev/null | grep -v '"durationMicros"' > "$n.rj"
        cmp -s "$n.gj" "$n.rj" || d=$((d + 1))
        durs "$n.g.$r.et" > "$n.gd"
        durs "$n.r.$r.et" > "$n.rd"
        local bound=$(($(opt_ts "$n.g.$r.et") / (2 * tmax) + 1))
        # differing durations of other nodes, the optimizer's |diff| over the bound, its |diff|, sum of |diff|
        read -r o v x s < <(paste -d' ' "$n.gd" "$n.rd" | awk -v b="$bound" '
            { x = $2 - $4; if (x < 0) x = -x; s += x
              if ($1 == "optimizer") { ox = x; if (x > b) v++ } else if (x) o++ }
            END { print o + 0, v + 0, ox + 0, s + 0 }')
        other=$((other + o))
        over=$((over + v))
        [ "$x" -gt "$worst" ] && worst=$x
        [ $((r % (tp * ddp))) -eq 0 ] && D=$((D + s)) # rank (0, 0, pp_i)
    done
    [ "$d" -eq 0 ] && pass "$n: pp $sp -> $dp: all $m ranks equal the generated plan but for durations" \
        || fail "$n: $d of $m ranks differ from the generated pp $dp plan beyond durations"
    cmp -s "$n.g.comm_groups.json" "$n.r.comm_groups.json" && pass "$n: comm groups equal the generated ones" \
        || fail "$n: comm groups differ"
    [ "$other" -eq 0 ] && [ "$over" -eq 0 ] && pass "$n: every duration equal but the optimizer's, within its bound (worst $worst us)" \
        || fail "$n: $other other durations differ, $over optimizers beyond the bound (worst $worst us)"
    local a b
    a=$(step_ps "$n.g" "$n.g") && b=$(step_ps "$n.r" "$n.g") && [ -n "$a" ] && [ -n "$b" ] || { fail "$n: run"; return; }
    local diff=$((a > b ? a - b : b - a))
    [ "$diff" -le $((D * 1000000)) ] && pass "$n: step generated $a ps, re-formed $b ps: |diff| $diff ps <= D = $D us" \
        || fail "$n: step generated $a ps, re-formed $b ps: |diff| $diff ps > D = $D us"
}

G="--model gpt3-6.7b --micro-batch 1"
# 1F1B, 2 stages -> 4: layers 0-15 | 16-31 become 0-7 | ... | 24-31, new boundaries, the optimizer re-sized
check_pp up "$G" 2 2 2 8 4 2 8
# 4 -> 2, dp 2 and dp 1 (the per-layer parameters read from a middle stage's optimizer at dp 1)
check_pp down "$G" 2 4 2 8 2 2 8
check_pp down1 "$G" 2 4 1 4 2 1 4
# dp changes too (2 -> 4), GPipe
check_pp gpipe "$G --schedule gpipe" 2 2 2 8 4 4 16
# 3 stages (11, 11, 10 layers) -> 2; sequence parallelism and selective recomputation (SP all-gathers, recompute.L<k>.attn)
check_pp sp "$G --sp --recompute selective" 2 3 2 8 2 2 8
# Llama (SwiGLU, RMSNorm, untied output layer), full recomputation with flash attention
check_pp llama "--model llama2-7b --micro-batch 1 --recompute full --flash-attention" 2 4 2 8 2 2 8

# ---- refusals ------------------------------------------------------------------------------------
nothing() { if ls "$2".* >/dev/null 2>&1; then fail "$1: files left: $(ls "$2".* | head -3)"; else pass "$1: nothing written"; fi; }
S=(--workload-configuration=up.s --comm-group-configuration=up.s.comm_groups.json --tp 2 --pp 2)
expect_fail "--to-pp 1" "--to-pp 1|needs pp >= 2 in the source and the target" "$CS_BIN" rescale "${S[@]}" --to-pp 1 --to-dp 2 --out e1
nothing "--to-pp 1" e1
expect_fail "--to-pp with --to-tp" "--to-pp 4 with --to-tp 4|one of the two at a time" \
    "$CS_BIN" rescale "${S[@]}" --to-pp 4 --to-tp 4 --to-dp 2 --out e2
expect_fail "dp 2 -> 1" "--to-pp 4 --to-dp 1|the source has dp 2|keeps dp 1 at dp 1" \
    "$CS_BIN" rescale "${S[@]}" --to-pp 4 --to-dp 1 --out e3
# dp 1, pp 2: neither a one-layer bucket nor a middle stage gives a layer's parameter count
"$CS_BIN" generate $G --tp 2 --pp 2 --dp 1 --global-batch 4 --out d1 >/dev/null
expect_fail "dp 1 pp 2 underdetermined" "--to-pp 4: at dp 1 and pp 2|cannot be read from it exactly" \
    "$CS_BIN" rescale --workload-configuration=d1 --comm-group-configuration=d1.comm_groups.json --tp 2 --pp 2 --to-pp 4 \
    --to-dp 1 --out e4
nothing "dp 1 pp 2" e4
# ZeRO-1: the shards' sizes follow the stage's parameters over dp
"$CS_BIN" generate $G --zero 1 --tp 2 --pp 2 --dp 2 --global-batch 8 --out z1 >/dev/null
expect_fail "ZeRO refused" "z1.0.et: node|(dp.grads): --to-pp 4: a collective of type 7 on the data-parallel group|--zero 0, no --fsdp" \
    "$CS_BIN" rescale --workload-configuration=z1 --comm-group-configuration=z1.comm_groups.json --tp 2 --pp 2 --to-pp 4 \
    --to-dp 2 --out e5
# gradients reduced at the end (one bucket per stage): its size depends on the stage's layers
"$CS_BIN" generate $G --no-overlap-grad-reduce --tp 2 --pp 2 --dp 2 --global-batch 8 --out no >/dev/null
expect_fail "one bucket per stage" "no.0.et: --to-pp 4: stage 0 has 1 gradient buckets for its 16 layers|not one bucket per layer" \
    "$CS_BIN" rescale --workload-configuration=no --comm-group-configuration=no.comm_groups.json --tp 2 --pp 2 --to-pp 4 \
    --to-dp 2 --out e6
# interleaved 1F1B and a custom layout: not the default split the new stages follow
"$CS_BIN" generate $G --virtual-stages 2 --tp 2 --pp 2 --dp 2 --global-batch 8 --out vi >/dev/null
expect_fail "interleaving refused" "vi.0.et: --to-pp 4: stage 0 holds layers 0..23|gives it 0..15|interleaved stages (--virtual-stages)" \
    "$CS_BIN" rescale --workload-configuration=vi --comm-group-configuration=vi.comm_groups.json --tp 2 --pp 2 --to-pp 4 \
    --to-dp 2 --out e7
"$CS_BIN" generate $G --layout "Et*20|t*12L" --tp 2 --pp 2 --dp 2 --global-batch 8 --out lay >/dev/null
expect_fail "a layout refused" "lay.0.et: --to-pp 4: stage 0 holds layers 0..19|gives it 0..15|a --layout" \
    "$CS_BIN" rescale --workload-configuration=lay --comm-group-configuration=lay.comm_groups.json --tp 2 --pp 2 --to-pp 4 \
    --to-dp 2 --out e8
nothing "a layout" e8
# anything else the generator adds (here the input pipeline's ingest.* nodes) fails the self-check: the
# source's own stages, rebuilt from its nodes at its pp, must equal it node for node
"$CS_BIN" generate $G --set ingest.bytes-per-sample=1000000 --set ingest.preprocess-samples-per-s=1000 --tp 2 --pp 2 \
    --dp 2 --global-batch 8 --out ing >/dev/null
expect_fail "self-check" "ing.0.et: --to-pp 4: node 1 (ingest.read; number 1 in file order) would be node 1 (embed)|not a trace the pipeline re-forming rebuilds exactly" \
    "$CS_BIN" rescale --workload-configuration=ing --comm-group-configuration=ing.comm_groups.json --tp 2 --pp 2 --to-pp 4 \
    --to-dp 2 --out e9
nothing "self-check" e9
# determinism
"$CS_BIN" rescale "${S[@]}" --to-pp 4 --to-dp 2 --out again --quiet && d=0 && for r in $(seq 0 15); do
    cmp -s "again.$r.et" "up.r.$r.et" || d=1; done && [ "$d" -eq 0 ] && pass "two re-formings write identical files" \
    || fail "two re-formings differ"
finish
