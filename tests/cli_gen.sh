#!/usr/bin/env bash
# cli_gen.sh -- clustersim generate / train end to end: generated traces run
# through `clustersim run` and give the same step time as `train`; plans that
# do not fit are refused with the breakdown; bad options are named.
. "$(dirname "$0")/lib_cli.sh"
P="$CS_TMP/g"
PLAN=(--model gpt3-6.7b --tp 2 --pp 2 --dp 2 --sp --recompute selective --global-batch 8)

"$CS_BIN" generate --help | grep -q -- '--recompute none|selective|full' && pass "generate help" || fail "generate help"
out=$("$CS_BIN" generate "${PLAN[@]}" --out "$P" 2>&1) && pass "generate" || fail "generate: $out"
n=$(ls "$P".*.et | wc -l); [ "$n" -eq 8 ] && pass "8 rank files" || fail "8 rank files: $n"
for f in comm_groups.json network.yml system.json; do [ -s "$P.$f" ] && pass "$f written" || fail "$f written"; done
"$CS_BIN" inspect "$P.5.et" >/dev/null 2>&1 && pass "inspect reads a generated trace" || fail "inspect generated trace"
run=$("$CS_BIN" run --workload-configuration="$P" --comm-group-configuration="$P.comm_groups.json" \
    --network-configuration="$P.network.yml" --system-configuration="$P.system.json" --comm-streams=4 \
    --json "$CS_TMP/run.json" --quiet 2>&1) && pass "run the generated traces" || fail "run: $run"
tr=$("$CS_BIN" train "${PLAN[@]}" --network-configuration="$P.network.yml" --system-configuration="$P.system.json" \
    --json "$CS_TMP/train.json" --quiet 2>&1) && pass "train" || fail "train: $tr"
a=$(grep -o '"sim_time_ns": *[0-9.]*' "$CS_TMP/run.json" | grep -o '[0-9.]*$')
b=$(grep -o '"iteration_time_ns": *[0-9.e+]*' "$CS_TMP/train.json" | grep -o '[0-9.e+]*$')
python3 -c "import sys; sys.exit(0 if abs(float('$a') - float('$b')) < 1 else 1)" 2>/dev/null \
    && pass "run and train agree ($a ns)" || fail "run ($a) and train ($b) agree"
grep -q '"mfu"' "$CS_TMP/train.json" && pass "train json has mfu" || fail "train json has mfu"
# class mode: train simulates the representatives (one per pipeline stage
# here: TP and DP are the symmetric axes), --symmetry off every rank, and
# both agree with `run` on all eight files (above)
grep -q '"simulated_ranks": 2' "$CS_TMP/train.json" && pass "train simulated 2 representatives" \
    || fail "train simulated 2 representatives: $(cat "$CS_TMP/train.json")"
"$CS_BIN" train "${PLAN[@]}" --network-configuration="$P.network.yml" --system-configuration="$P.system.json" \
    --symmetry off --json "$CS_TMP/trainoff.json" --quiet && pass "train --symmetry off" || fail "train --symmetry off"
c=$(grep -o '"iteration_time_ns": *[0-9.e+]*' "$CS_TMP/trainoff.json" | grep -o '[0-9.e+]*$')
grep -q '"simulated_ranks": 8' "$CS_TMP/trainoff.json" && [ "$b" = "$c" ] \
    && pass "every rank simulated, same step time ($c ns)" || fail "symmetry off: $c vs $b"
# a network on which the argument fails (the TP axis is an inner part of a
# Ring): train says why and simulates every rank, with the same step time
printf 'topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 100 ]\nlatency: [ 500 ]\n' > "$CS_TMP/ring8.yml"
out=$("$CS_BIN" train "${PLAN[@]}" --network-configuration="$CS_TMP/ring8.yml" --json "$CS_TMP/r1.json" 2>&1) \
    && echo "$out" | grep -q "every rank simulated: the representative run stopped: symmetric axis 0 is an inner part of Ring dimension 0" \
    && pass "fallback on a ring says why" || fail "fallback on a ring: $out"
"$CS_BIN" train "${PLAN[@]}" --network-configuration="$CS_TMP/ring8.yml" --symmetry off --json "$CS_TMP/r2.json" --quiet
a=$(grep -o '"iteration_time_ns": *[0-9.e+]*' "$CS_TMP/r1.json" | grep -o '[0-9.e+]*$')
c=$(grep -o '"iteration_time_ns": *[0-9.e+]*' "$CS_TMP/r2.json" | grep -o '[0-9.e+]*$')
[ -n "$a" ] && [ "$a" = "$c" ] && pass "fallback gives the full run's time ($a ns)" || fail "fallback $a vs $c"
echo "$out" | grep -q "generating and simulating all 8 ranks instead: 0.0 M graph nodes, of which at most 0.00 M distinct (ranks that differ only in their peers and communicators share them), about 0.00-0.00 GB" \
    && pass "the fallback's size is said" || fail "the fallback's size is said: $out"
# TP that does not fill a server: TP 2 x DP 4 x PP 2 on servers of 4.  The DP
# axis (rank stride 2) is cut to its whole-server part (stride 4, 2 ranks):
# 2 representatives per stage (DP 0 and 1), 4 of 16 ranks, the full run's
# step time (before: every rank simulated, the axis crossing dimensions)
printf 'topology: [ Switch, Switch ]\nnpus_count: [ 4, 4 ]\nbandwidth: [ 200, 25 ]\nlatency: [ 500, 2000 ]\n' > "$CS_TMP/s4x4.yml"
# Both collective models: astra, and the nccl default, whose DP groups (2 ranks
# on each of 2 servers) run as rails (one ring per position within the server)
for model in astra nccl; do
    P16=(--model gpt3-6.7b --tp 2 --pp 2 --dp 4 --sp --recompute selective --global-batch 16
         --network-configuration="$CS_TMP/s4x4.yml" --set system.collective-model=$model)
    "$CS_BIN" train "${P16[@]}" --json "$CS_TMP/p1.json" --quiet 2>/dev/null
    "$CS_BIN" train "${P16[@]}" --symmetry off --json "$CS_TMP/p2.json" --quiet 2>/dev/null
    a=$(grep -o '"iteration_time_ps": *[0-9]*' "$CS_TMP/p1.json" | grep -o '[0-9]*$')
    c=$(grep -o '"iteration_time_ps": *[0-9]*' "$CS_TMP/p2.json" | grep -o '[0-9]*$')
    grep -q '"simulated_ranks": 4,' "$CS_TMP/p1.json" && [ -n "$a" ] && [ "$a" = "$c" ] \
        && pass "TP 2 on servers of 4 ($model): 4 representatives, the full run's time ($a ps)" \
        || fail "TP 2 on servers of 4 ($model): $a vs $c: $(grep -o '"simulated_ranks": *[0-9]*' "$CS_TMP/p1.json")"
done
[ "$model" = nccl ] && grep -q '"collective-model": "nccl"' "$CS_TMP/p1.json" \
    && pass "the last of the two ran the nccl model" || fail "the last of the two ran the nccl model"
# ZeRO-3 runs in class mode with both axes (a layer's gather ends and the
# receive it issues ends in the same instant: the guard knows the second
# descends from the first, test_gen_sym.c): 2 representatives, the full
# run's time (before 2026-11-27: stopped, tried again without DP)
printf 'topology: [ FullyConnected, Switch ]\nnpus_count: [ 2, 8 ]\nbandwidth: [ 200, 50 ]\nlatency: [ 500, 2000 ]\n' > "$CS_TMP/fc2x8.yml"
Z3=(--model gpt3-6.7b --tp 2 --pp 2 --dp 4 --zero 3 --sp --recompute selective --global-batch 16
    --network-configuration="$CS_TMP/fc2x8.yml")
out=$("$CS_BIN" train "${Z3[@]}" --json "$CS_TMP/z1.json" 2>&1 >/dev/null)
"$CS_BIN" train "${Z3[@]}" --symmetry off --json "$CS_TMP/z2.json" --quiet 2>/dev/null
a=$(grep -o '"iteration_time_ps": *[0-9]*' "$CS_TMP/z1.json" | grep -o '[0-9]*$')
c=$(grep -o '"iteration_time_ps": *[0-9]*' "$CS_TMP/z2.json" | grep -o '[0-9]*$')
grep -q '"simulated_ranks": 2,' "$CS_TMP/z1.json" && [ -n "$a" ] && [ "$a" = "$c" ] && [ -z "$out" ] \
    && pass "ZeRO-3: class mode, 2 representatives, the full run's time ($a ps)" \
    || fail "ZeRO-3 class mode: $a vs $c: $out"
# ZeRO-2 interleaved with the shared dimension queues (ASTRA-sim's) on
# 8-NPU servers stops with both axes (two DP peers' steps act on one queue
# in one instant); train tries again without the larger axis (DP): 16
# representatives instead of 8, the full run's time
printf 'topology: [ Switch, Switch ]\nnpus_count: [ 8, 4 ]\nbandwidth: [ 200, 50 ]\nlatency: [ 500, 2000 ]\n' > "$CS_TMP/sw8x4.yml"
ZQ=(--model gpt3-6.7b --tp 2 --pp 2 --dp 8 --zero 2 --virtual-stages 2 --sp --recompute selective --global-batch 32
    --set system.communicator-queues=shared --network-configuration="$CS_TMP/sw8x4.yml")
out=$("$CS_BIN" train "${ZQ[@]}" --json "$CS_TMP/q1.json" 2>&1 >/dev/null)
"$CS_BIN" train "${ZQ[@]}" --symmetry off --json "$CS_TMP/q2.json" --quiet 2>/dev/null
a=$(grep -o '"iteration_time_ps": *[0-9]*' "$CS_TMP/q1.json" | grep -o '[0-9]*$')
c=$(grep -o '"iteration_time_ps": *[0-9]*' "$CS_TMP/q2.json" | grep -o '[0-9]*$')
grep -q '"simulated_ranks": 16,' "$CS_TMP/q1.json" && [ -n "$a" ] && [ "$a" = "$c" ] \
    && echo "$out" | grep -q "class mode with 8 representatives stopped (the representative run stopped: simultaneous events" \
    && echo "$out" | grep -q "trying again without the symmetric axis of rank stride 8 and 2 ranks" \
    && pass "shared queues: class mode again without the DP axis, 16 representatives, the full run's time ($a ps)" \
    || fail "shared-queue retry: $a vs $c: $out"
# the report says why, also without progress lines (which carry the warnings above)
"$CS_BIN" train "${ZQ[@]}" --no-progress 2>/dev/null | grep -q \
    "symmetry .* 16 classes of 2 ranks: one representative per class simulated (with 8 representatives the run stopped: simultaneous events" \
    && pass "retry: the report names the stopped try and why (--no-progress)" \
    || fail "retry: the report does not name the stopped try"
# on flow the backend is why class mode does not apply: no retry without an axis (no axis helps), one warning
out=$("$CS_BIN" train "${Z3[@]}" --zero 1 --backend flow --json "$CS_TMP/z3.json" 2>&1 >/dev/null)
echo "$out" | grep -q "class mode does not apply (symmetry does not apply: backend flow" \
    && ! echo "$out" | grep -q "trying again" && grep -q '"simulated_ranks": 16,' "$CS_TMP/z3.json" \
    && pass "flow: class mode not retried without an axis, every rank simulated" || fail "flow class-mode retry: $out"
out=$("$CS_BIN" train "${PLAN[@]}" --network-configuration="$P.network.yml" --symmetry sometimes 2>&1); rc=$?
[ "$rc" -eq 1 ] && echo "$out" | grep -q -- "--symmetry: expected one of auto, off" && pass "bad symmetry value" \
    || fail "bad symmetry value: exit $rc: $out"

expect_fail "plan that does not fit" "does not fit in memory|weights|optimizer|activations|A100-80GB HBM 80.00 GB" \
    "$CS_BIN" generate --model gpt3-175b --tp 8 --out "$CS_TMP/no"
[ ! -e "$CS_TMP/no.0.et" ] && pass "nothing written for a refused plan" || fail "nothing written for a refused plan"
expect_fail "unknown preset" "--model gpt-9: unknown preset" "$CS_BIN" generate --model gpt-9 --out "$CS_TMP/x"
expect_fail "bad tp" "--tp 3: expected a divisor of heads" "$CS_BIN" generate --model gpt3-6.7b --tp 3 --out "$CS_TMP/x"
expect_fail "bad recompute" "--recompute: expected one of none, selective, full, got \"some\"" \
    "$CS_BIN" generate --model gpt3-6.7b --recompute some --out "$CS_TMP/x"
expect_fail "network size" "npus_count: expected 8 NPUs" \
    "$CS_BIN" train --model gpt3-6.7b --tp 4 --pp 2 --network-configuration="$CS_SOURCE_DIR/examples/pipeline/network.yml"
# Products of plan values beyond 32 bits are refused by name (micro-batch x dp
# wrapped to 0 and died of SIGFPE); node values beyond 2^64 too.
printf 'topology: [ Switch ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' > "$CS_TMP/n8.yml"
for m in gpt3-6.7b mixtral-8x7b resnet50 dlrm; do
    expect_fail "micro-batch x dp beyond 2^32 ($m)" \
        "--global-batch 1000000000: expected a multiple of micro-batch x dp (536870912 x 8 = 4294967296)" \
        "$CS_BIN" train --model $m --dp 8 --micro-batch 536870912 --global-batch 1000000000 \
        --network-configuration="$CS_TMP/n8.yml" --quiet
done
expect_fail "tp x cp beyond 2^32" "--tp x --cp x --pp x --dp = 65536 x 65536 x 1 x 1 = 4294967296 ranks" \
    "$CS_BIN" generate --model llama3-8b --tp 65536 --cp 65536 --sp --out "$CS_TMP/x"
printf 'topology: [ Switch ]\nnpus_count: [ 1 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' > "$CS_TMP/n1.yml"
expect_fail "node values beyond 2^64" "rank 0: node 3 (L0.qkv): num_ops 8.053e+21 exceeds 2^64|--micro-batch 1000000000" \
    "$CS_BIN" train --model gpt3-1t --micro-batch 1000000000 --global-batch 1000000000 --set plan.no-memory-check=true \
    --network-configuration="$CS_TMP/n1.yml" --quiet
printf '{\n  "layers": 2,\n  "hidden": 64,\n  "heads": 4,\n  "vocab": 128,\n  "seq": "long"\n}\n' >"$CS_TMP/m.json"
expect_fail "model file error" "m.json:6: seq: expected an integer from 1 to 100000000, got \"long\"" \
    "$CS_BIN" generate --model "$CS_TMP/m.json" --out "$CS_TMP/x"
"$CS_BIN" generate --model "$CS_SOURCE_DIR/models/llama3-8b.json" --tp 4 --sp --recompute full --dp 2 --zero 1 \
    --global-batch 4 --out "$CS_TMP/l" --quiet && pass "model file, GQA + SwiGLU, ZeRO-1" || fail "model file"
# MoE with expert parallelism (all-to-all) and FSDP: run on the files == train
MOE=(--model mixtral-8x7b --tp 2 --dp 8 --ep 2 --sp --recompute full --fsdp --global-batch 16)
"$CS_BIN" generate "${MOE[@]}" --out "$CS_TMP/moe" --quiet && pass "generate MoE + EP + FSDP" || fail "generate MoE"
run=$("$CS_BIN" run --workload-configuration="$CS_TMP/moe" --comm-group-configuration="$CS_TMP/moe.comm_groups.json" \
    --network-configuration="$CS_TMP/moe.network.yml" --system-configuration="$CS_TMP/moe.system.json" --comm-streams=4 \
    --json "$CS_TMP/mrun.json" --quiet 2>&1) && pass "run the MoE traces" || fail "run MoE: $run"
tr=$("$CS_BIN" train "${MOE[@]}" --network-configuration="$CS_TMP/moe.network.yml" \
    --system-configuration="$CS_TMP/moe.system.json" --json "$CS_TMP/mtrain.json" 2>&1) && pass "train MoE" || fail "train MoE: $tr"
echo "$tr" | grep -q "8 experts, top-2 routing; EP 2" && pass "MoE reported" || fail "MoE reported: $tr"
a=$(grep -o '"sim_time_ns": *[0-9.]*' "$CS_TMP/mrun.json" | grep -o '[0-9.]*$')
b=$(grep -o '"iteration_time_ns": *[0-9.e+]*' "$CS_TMP/mtrain.json" | grep -o '[0-9.e+]*$')
python3 -c "import sys; sys.exit(0 if abs(float('$a') - float('$b')) < 1 else 1)" 2>/dev/null \
    && pass "MoE run and train agree ($a ns)" || fail "MoE run ($a) and train ($b) agree"
expect_fail "bad ep" "--ep 3: expected a divisor of --dp" "$CS_BIN" generate --model mixtral-8x7b --dp 4 --ep 3 --out "$CS_TMP/x"
# ResNet-50, pure data parallelism with DDP-style gradient buckets: run on the files == train
RN=(--model resnet50 --dp 8 --global-batch 256)
"$CS_BIN" generate "${RN[@]}" --out "$CS_TMP/rn" --quiet && pass "generate ResNet-50" || fail "generate ResNet-50"
run=$("$CS_BIN" run --workload-configuration="$CS_TMP/rn" --comm-group-configuration="$CS_TMP/rn.comm_groups.json" \
    --network-configuration="$CS_TMP/rn.network.yml" --system-configuration="$CS_TMP/rn.system.json" --comm-streams=4 \
    --json "$CS_TMP/rrun.json" --quiet 2>&1) && pass "run the ResNet-50 traces" || fail "run ResNet-50: $run"
tr=$("$CS_BIN" train "${RN[@]}" --network-configuration="$CS_TMP/rn.network.yml" \
    --system-configuration="$CS_TMP/rn.system.json" --json "$CS_TMP/rtrain.json" 2>&1) && pass "train ResNet-50" \
    || fail "train ResNet-50: $tr"
echo "$tr" | grep -q "25.56M parameters, 8.18 GFLOP forward per image" && pass "ResNet-50 reported" \
    || fail "ResNet-50 reported: $tr"
echo "$tr" | grep -q "32 images per rank per micro-batch, global batch 256 (1 micro-batches); gradient buckets of 25.0 MB" \
    && pass "ResNet-50 plan" || fail "ResNet-50 plan: $tr"
grep -q '"images_per_s"' "$CS_TMP/rtrain.json" && pass "train json has images/s" || fail "train json has images/s"
a=$(grep -o '"sim_time_ns": *[0-9.]*' "$CS_TMP/rrun.json" | grep -o '[0-9.]*$')
b=$(grep -o '"iteration_time_ns": *[0-9.e+]*' "$CS_TMP/rtrain.json" | grep -o '[0-9.e+]*$')
python3 -c "import sys; sys.exit(0 if abs(float('$a') - float('$b')) < 1 else 1)" 2>/dev/null \
    && pass "ResNet-50 run and train agree ($a ns)" || fail "ResNet-50 run ($a) and train ($b) agree"
expect_fail "ResNet-50 is data parallel" "--tp/--pp/--ep: resnet50 is data-parallel only" \
    "$CS_BIN" generate --model resnet50 --tp 2 --out "$CS_TMP/x"
# DLRM: tables sharded over the ranks (all-to-all), MLPs data parallel: run on the files == train
DL=(--model dlrm --dp 8 --global-batch 4096)
"$CS_BIN" generate "${DL[@]}" --out "$CS_TMP/dl" --quiet && pass "generate DLRM" || fail "generate DLRM"
run=$("$CS_BIN" run --workload-configuration="$CS_TMP/dl" --comm-group-configuration="$CS_TMP/dl.comm_groups.json" \
    --network-configuration="$CS_TMP/dl.network.yml" --system-configuration="$CS_TMP/dl.system.json" --comm-streams=4 \
    --json "$CS_TMP/drun.json" --quiet 2>&1) && pass "run the DLRM traces" || fail "run DLRM: $run"
tr=$("$CS_BIN" train "${DL[@]}" --network-configuration="$CS_TMP/dl.network.yml" \
    --system-configuration="$CS_TMP/dl.system.json" --json "$CS_TMP/dtrain.json" 2>&1) && pass "train DLRM" \
    || fail "train DLRM: $tr"
echo "$tr" | grep -q "DP 8: 1 tables per rank (model parallel, all-to-all), MLPs data parallel; 512 samples" \
    && pass "DLRM plan" || fail "DLRM plan: $tr"
grep -q '"samples_per_s"' "$CS_TMP/dtrain.json" && pass "train json has samples/s" || fail "train json has samples/s"
a=$(grep -o '"sim_time_ns": *[0-9.]*' "$CS_TMP/drun.json" | grep -o '[0-9.]*$')
b=$(grep -o '"iteration_time_ns": *[0-9.e+]*' "$CS_TMP/dtrain.json" | grep -o '[0-9.e+]*$')
python3 -c "import sys; sys.exit(0 if abs(float('$a') - float('$b')) < 1 else 1)" 2>/dev/null \
    && pass "DLRM run and train agree ($a ns)" || fail "DLRM run ($a) and train ($b) agree"
expect_fail "DLRM table split" "--dp 16: expected a divisor of the table count (8)" \
    "$CS_BIN" generate --model dlrm --dp 16 --out "$CS_TMP/x"
# --placement: DP innermost, then PP, then TP; the groups follow, and run on the files == train
PL=(--model gpt3-6.7b --tp 2 --pp 2 --dp 2 --sp --recompute selective --global-batch 8 --placement dp,pp,tp)
out=$("$CS_BIN" generate "${PL[@]}" --out "$CS_TMP/pl" 2>&1) && pass "generate with --placement" || fail "placement: $out"
echo "$out" | grep -q "placement  rank = dp_i + 2 pp_i + 4 tp_i: DP innermost, then PP, then TP (--placement dp,pp,tp)" \
    && pass "placement reported" || fail "placement reported: $out"
g=$(tr -d ' \n' <"$CS_TMP/pl.comm_groups.json")
[ "$g" = '{"1":[0,4],"2":[1,5],"3":[2,6],"4":[3,7],"5":[0,1],"6":[4,5],"7":[2,3],"8":[6,7]}' ] \
    && pass "placement groups (TP stride 4, DP contiguous)" || fail "placement groups: $g"
run=$("$CS_BIN" run --workload-configuration="$CS_TMP/pl" --comm-group-configuration="$CS_TMP/pl.comm_groups.json" \
    --network-configuration="$CS_TMP/pl.network.yml" --system-configuration="$CS_TMP/pl.system.json" --comm-streams=4 \
    --json "$CS_TMP/prun.json" --quiet 2>&1) && pass "run the placed traces" || fail "run placed: $run"
tr=$("$CS_BIN" train "${PL[@]}" --network-configuration="$CS_TMP/pl.network.yml" \
    --system-configuration="$CS_TMP/pl.system.json" --json "$CS_TMP/ptrain.json" --quiet 2>&1) && pass "train placed" \
    || fail "train placed: $tr"
a=$(grep -o '"sim_time_ns": *[0-9.]*' "$CS_TMP/prun.json" | grep -o '[0-9.]*$')
b=$(grep -o '"iteration_time_ns": *[0-9.e+]*' "$CS_TMP/ptrain.json" | grep -o '[0-9.e+]*$')
python3 -c "import sys; sys.exit(0 if abs(float('$a') - float('$b')) < 1 else 1)" 2>/dev/null \
    && pass "placed run and train agree ($a ns)" || fail "placed run ($a) and train ($b) agree"
expect_fail "bad placement" "--placement tp,dp: expected tp, dp and pp (and cp) once each" \
    "$CS_BIN" generate --model gpt3-6.7b --placement tp,dp --out "$CS_TMP/x"
# interleaved 1F1B: run on the files == train, and a smaller bubble than plain 1F1B
IL=(--model gpt3-6.7b --tp 2 --pp 4 --sp --recompute selective --global-batch 8)
"$CS_BIN" generate "${IL[@]}" --virtual-stages 2 --out "$CS_TMP/il" --quiet && pass "generate interleaved" \
    || fail "generate interleaved"
run=$("$CS_BIN" run --workload-configuration="$CS_TMP/il" --comm-group-configuration="$CS_TMP/il.comm_groups.json" \
    --network-configuration="$CS_TMP/il.network.yml" --system-configuration="$CS_TMP/il.system.json" --comm-streams=4 \
    --json "$CS_TMP/irun.json" --quiet 2>&1) && pass "run the interleaved traces" || fail "run interleaved: $run"
tr=$("$CS_BIN" train "${IL[@]}" --virtual-stages 2 --network-configuration="$CS_TMP/il.network.yml" \
    --system-configuration="$CS_TMP/il.system.json" --json "$CS_TMP/itrain.json" 2>&1) && pass "train interleaved" \
    || fail "train interleaved: $tr"
echo "$tr" | grep -q "PP 4 (interleaved 1F1B, 2 chunks per stage)" && pass "interleaving reported" \
    || fail "interleaving reported: $tr"
"$CS_BIN" train "${IL[@]}" --network-configuration="$CS_TMP/il.network.yml" --system-configuration="$CS_TMP/il.system.json" \
    --json "$CS_TMP/ptrain1.json" --quiet && pass "train plain 1F1B" || fail "train plain 1F1B"
a=$(grep -o '"sim_time_ns": *[0-9.]*' "$CS_TMP/irun.json" | grep -o '[0-9.]*$')
b=$(grep -o '"iteration_time_ns": *[0-9.e+]*' "$CS_TMP/itrain.json" | grep -o '[0-9.e+]*$')
c=$(grep -o '"iteration_time_ns": *[0-9.e+]*' "$CS_TMP/ptrain1.json" | grep -o '[0-9.e+]*$')
python3 -c "import sys; sys.exit(0 if abs(float('$a') - float('$b')) < 1 else 1)" 2>/dev/null \
    && pass "interleaved run and train agree ($a ns)" || fail "interleaved run ($a) and train ($b) agree"
python3 -c "import sys; sys.exit(0 if float('$b') < float('$c') else 1)" 2>/dev/null \
    && pass "interleaving shortens the step ($b < $c ns)" || fail "interleaving shortens the step ($b vs $c)"
expect_fail "bad virtual stages" "--virtual-stages 9: expected at least one layer per model chunk, got 32 layers for pp x virtual stages = 36 chunks" \
    "$CS_BIN" generate --model gpt3-6.7b --pp 4 --virtual-stages 9 --global-batch 8 --out "$CS_TMP/x"
# plan.layout (Megatron's --pipeline-model-parallel-layout): the embedding
# alone on virtual stage 0, 8 layers, five stages of 4, then 4 and the output
# layer: 8 virtual stages = pp 4 x 2; run on the files == train (class mode)
LY=(--model gpt3-6.7b --tp 2 --pp 4 --sp --recompute selective --global-batch 8 --layout "E|t*8|(t*4|)*5t*4L")
"$CS_BIN" generate "${LY[@]}" --out "$CS_TMP/ly" --quiet && pass "generate with a layout" || fail "generate with a layout"
run=$("$CS_BIN" run --workload-configuration="$CS_TMP/ly" --comm-group-configuration="$CS_TMP/ly.comm_groups.json" \
    --network-configuration="$CS_TMP/ly.network.yml" --system-configuration="$CS_TMP/ly.system.json" --comm-streams=4 \
    --json "$CS_TMP/lyrun.json" --quiet 2>&1) && pass "run the layout's traces" || fail "run layout: $run"
tr=$("$CS_BIN" train "${LY[@]}" --network-configuration="$CS_TMP/ly.network.yml" \
    --system-configuration="$CS_TMP/ly.system.json" --json "$CS_TMP/lytrain.json" 2>&1) && pass "train with a layout" \
    || fail "train with a layout: $tr"
echo "$tr" | grep -q "PP 4 (interleaved 1F1B, 2 chunks per stage)" \
    && echo "$tr" | grep -q "decoder layers of the 8 virtual stages (E embedding, L output layer): E+0, 8, 5 x 4, 4+L" \
    && pass "layout reported" || fail "layout reported: $tr"
a=$(grep -o '"sim_time_ns": *[0-9.]*' "$CS_TMP/lyrun.json" | grep -o '[0-9.]*$')
b=$(grep -o '"iteration_time_ns": *[0-9.e+]*' "$CS_TMP/lytrain.json" | grep -o '[0-9.e+]*$')
python3 -c "import sys; sys.exit(0 if abs(float('$a') - float('$b')) < 1 else 1)" 2>/dev/null \
    && pass "layout run and train agree ($a ns)" || fail "layout run ($a) and train ($b) agree"
# the default split written as a layout is the default plan, byte for byte
# (gpt3-6.7b's 32 layers on 4 stages: 8 each, the embedding with the first)
"$CS_BIN" generate --model gpt3-6.7b --pp 4 --global-batch 4 --out "$CS_TMP/d0" --quiet \
    && "$CS_BIN" generate --model gpt3-6.7b --pp 4 --global-batch 4 --layout "Et*8|t*8|t*8|t*8L" --out "$CS_TMP/d1" --quiet \
    && cmp -s "$CS_TMP/d0.0.et" "$CS_TMP/d1.0.et" && cmp -s "$CS_TMP/d0.3.et" "$CS_TMP/d1.3.et" \
    && pass "the default split as a layout: same traces" || fail "the default split as a layout: same traces"
expect_fail "layout vs virtual stages" "--layout: 8 stages = --pp 4 x 2 virtual stages; expected --virtual-stages 2 or unset, got 3" \
    "$CS_BIN" generate "${LY[@]}" --virtual-stages 3 --out "$CS_TMP/x"
expect_fail "layout vs pp" "--layout: 8 stages; expected a multiple of --pp (3)" \
    "$CS_BIN" generate --model gpt3-6.7b --pp 3 --layout "E|t*8|(t*4|)*5t*4L" --global-batch 9 --out "$CS_TMP/x"
expect_fail "layout character" "--layout: character 3 'x': expected E (embedding), t (decoder layer)" \
    "$CS_BIN" generate --model gpt3-6.7b --pp 2 --layout "E,x,L" --out "$CS_TMP/x"
expect_fail "a layout of 2 stages on --pp 1 is named, not --virtual-stages" "--layout: 2 stages over --pp 1 are 2 virtual stages per rank|expected 1 stages for --pp 1" \
    "$CS_BIN" generate --model gpt3-6.7b --layout "E|t*32L" --out "$CS_TMP/x"
expect_fail "--seq beyond the range" "--seq: expected an integer from 1 to 100000000, got 4294967296" \
    "$CS_BIN" generate --model gpt3-6.7b --seq 4294967296 --out "$CS_TMP/x"
expect_fail "layout layers" "--layout: 31 decoder layers (t); expected the model's 32" \
    "$CS_BIN" generate --model gpt3-6.7b --pp 2 --layout "Et*15|t*16L" --out "$CS_TMP/x"
expect_fail "layout family" "--layout: a layout of decoder layers needs a transformer; resnet50 is a resnet50" \
    "$CS_BIN" generate --model resnet50 --layout "EtL" --out "$CS_TMP/x"
# DP sharding as the frameworks name it: Megatron's distributed optimizer,
# FSDP SHARD_GRAD_OP under no_sync (Llama 3), HSDP; run on the files == train
for sh in "--use-distributed-optimizer" "--fsdp-sharding-strategy SHARD_GRAD_OP --fsdp-no-sync" \
    "--fsdp-sharding-strategy HYBRID_SHARD --hsdp-shard-size 2" \
    "--pp 2 --virtual-stages 2 --fsdp-sharding-strategy SHARD_GRAD_OP --fsdp-no-sync --fsdp-reduce-dtype fp32" \
    "--pp 2 --virtual-stages 2 --fsdp-sharding-strategy FULL_SHARD"; do
    # shellcheck disable=SC2086
    "$CS_BIN" generate --model gpt3-6.7b --tp 2 --dp 4 --global-batch 8 $sh --out "$CS_TMP/sh" --quiet \
        && run=$("$CS_BIN" run --workload-configuration="$CS_TMP/sh" --comm-group-configuration="$CS_TMP/sh.comm_groups.json" \
            --network-configuration="$CS_TMP/sh.network.yml" --system-configuration="$CS_TMP/sh.system.json" \
            --comm-streams=4 --json "$CS_TMP/shrun.json" --quiet 2>&1) \
        && tr=$("$CS_BIN" train --model gpt3-6.7b --tp 2 --dp 4 --global-batch 8 $sh \
            --network-configuration="$CS_TMP/sh.network.yml" --system-configuration="$CS_TMP/sh.system.json" \
            --json "$CS_TMP/shtrain.json" 2>&1) || fail "sharding $sh: $run $tr"
    echo "$tr" | grep -q "^  sharding   " && pass "sharding reported ($sh)" || fail "sharding reported ($sh): $tr"
    a=$(grep -o '"sim_time_ns": *[0-9.]*' "$CS_TMP/shrun.json" | grep -o '[0-9.]*$')
    b=$(grep -o '"iteration_time_ns": *[0-9.e+]*' "$CS_TMP/shtrain.json" | grep -o '[0-9.e+]*$')
    python3 -c "import sys; sys.exit(0 if abs(float('$a') - float('$b')) < 1 else 1)" 2>/dev/null \
        && pass "sharding run and train agree ($sh: $a ns)" || fail "sharding run ($a) and train ($b) agree ($sh)"
done
expect_fail "FSDP strategy vs zero" "--fsdp-sharding-strategy SHARD_GRAD_OP: is ZeRO-2; expected --zero 2 or unset, got 3" \
    "$CS_BIN" generate --model gpt3-6.7b --dp 2 --fsdp-sharding-strategy SHARD_GRAD_OP --zero 3 --out "$CS_TMP/x"
expect_fail "FSDP strategy name" "--fsdp-sharding-strategy: expected one of none, FULL_SHARD, SHARD_GRAD_OP" \
    "$CS_BIN" generate --model gpt3-6.7b --dp 2 --fsdp-sharding-strategy NO_SHARD --out "$CS_TMP/x"
expect_fail "distributed optimizer vs zero" "--use-distributed-optimizer: Megatron-LM's distributed optimizer shards the optimizer state (ZeRO-1); expected --zero 0 or 1" \
    "$CS_BIN" generate --model gpt3-6.7b --dp 2 --use-distributed-optimizer --zero 2 --out "$CS_TMP/x"
expect_fail "no_sync alone" "--fsdp-no-sync: FSDP's no_sync() needs" \
    "$CS_BIN" generate --model gpt3-6.7b --dp 2 --fsdp-no-sync --out "$CS_TMP/x"
expect_fail "reduce dtype alone" "--fsdp-reduce-dtype fp32: FSDP's reduce dtype needs a" \
    "$CS_BIN" generate --model gpt3-6.7b --dp 2 --fsdp-reduce-dtype fp32 --out "$CS_TMP/x"
expect_fail "reduce dtype name" "--fsdp-reduce-dtype: expected one of bf16, fp32" \
    "$CS_BIN" generate --model gpt3-6.7b --dp 2 --fsdp-sharding-strategy FULL_SHARD --fsdp-reduce-dtype fp16 --out "$CS_TMP/x"
expect_fail "ZeRO-3 buckets with interleaving" "interleaving needs a transformer, --pp > 1, --schedule 1f1b and --zero 0..2 or an FSDP strategy" \
    "$CS_BIN" generate --model gpt3-6.7b --dp 2 --pp 2 --virtual-stages 2 --zero 3 --out "$CS_TMP/x"
expect_fail "SHARD_GRAD_OP with a pipeline" "SHARD_GRAD_OP with --pp 2: which of its gathers run depends on how the pipeline overlaps" \
    "$CS_BIN" generate --model gpt3-6.7b --dp 2 --pp 2 --fsdp-sharding-strategy SHARD_GRAD_OP --out "$CS_TMP/x"
# plan.kernel-overhead-us: TP 2 alone, 2 micro-batches: every kernel is on the
# chain -- per micro-batch forward embed + 32 x 7 + final_ln + logits = 227,
# backward 227 + 32 layers' and the embedding's gradient accumulation = 260,
# then the optimizer: 975 kernels x 4 us = 3,900,000 ns more
printf 'topology: [ Switch ]\nnpus_count: [ 2 ]\nbandwidth: [ 279.40 ]\nlatency: [ 500.0 ]\n' > "$CS_TMP/n2.yml"
for k in 0 4; do
    "$CS_BIN" train --model gpt3-6.7b --tp 2 --global-batch 2 --kernel-overhead-us $k --network-configuration="$CS_TMP/n2.yml" \
        --json "$CS_TMP/k$k.json" --quiet || fail "train with kernel overhead $k"
done
a=$(grep -o '"iteration_time_ns": *[0-9.e+]*' "$CS_TMP/k0.json" | grep -o '[0-9.e+]*$')
b=$(grep -o '"iteration_time_ns": *[0-9.e+]*' "$CS_TMP/k4.json" | grep -o '[0-9.e+]*$')
python3 -c "import sys; sys.exit(0 if abs(float('$b') - float('$a') - 975 * 4000) < 0.5 else 1)" 2>/dev/null \
    && pass "kernel overhead: 975 kernels x 4 us" || fail "kernel overhead: $b - $a != 3900000 ns"
expect_fail "kernel overhead range" "--kernel-overhead-us: expected a number >= 0" \
    "$CS_BIN" generate --model gpt3-6.7b --kernel-overhead-us -1 --out "$CS_TMP/x"
# context parallelism (Llama 3 8B, 8,192 tokens: 4,096 per rank): run on the
# files == train (class mode) == train --symmetry off, for K/V all-gather and ring
CP=(--model llama3-8b --tp 2 --cp 2 --dp 2 --sp --recompute selective --zero 1 --global-batch 4 --flash-attention)
for comm in allgather p2p; do
    "$CS_BIN" generate "${CP[@]}" --cp-comm $comm --out "$CS_TMP/cp" --quiet && pass "generate CP ($comm)" \
        || fail "generate CP ($comm)"
    run=$("$CS_BIN" run --workload-configuration="$CS_TMP/cp" --comm-group-configuration="$CS_TMP/cp.comm_groups.json" \
        --network-configuration="$CS_TMP/cp.network.yml" --system-configuration="$CS_TMP/cp.system.json" \
        --comm-streams=4 --json "$CS_TMP/cprun.json" --quiet 2>&1) && pass "run the CP traces ($comm)" \
        || fail "run CP ($comm): $run"
    tr=$("$CS_BIN" train "${CP[@]}" --cp-comm $comm --network-configuration="$CS_TMP/cp.network.yml" \
        --system-configuration="$CS_TMP/cp.system.json" --json "$CS_TMP/cptrain.json" 2>&1) && pass "train CP ($comm)" \
        || fail "train CP ($comm): $tr"
    echo "$tr" | grep -q "x CP 2 (4096 tokens per rank" && echo "$tr" | grep -q "rank = tp_i + 2 cp_i + 4 dp_i" \
        && echo "$tr" | grep -q "ZeRO-1; flash attention" \
        && pass "CP reported ($comm)" || fail "CP reported ($comm): $tr"
    "$CS_BIN" train "${CP[@]}" --cp-comm $comm --network-configuration="$CS_TMP/cp.network.yml" \
        --system-configuration="$CS_TMP/cp.system.json" --symmetry off --json "$CS_TMP/cpoff.json" --quiet \
        || fail "train CP --symmetry off ($comm)"
    a=$(grep -o '"sim_time_ns": *[0-9.]*' "$CS_TMP/cprun.json" | grep -o '[0-9.]*$')
    b=$(grep -o '"iteration_time_ns": *[0-9.e+]*' "$CS_TMP/cptrain.json" | grep -o '[0-9.e+]*$')
    c=$(grep -o '"iteration_time_ns": *[0-9.e+]*' "$CS_TMP/cpoff.json" | grep -o '[0-9.e+]*$')
    python3 -c "import sys; sys.exit(0 if abs(float('$a') - float('$b')) < 1 and '$b' == '$c' else 1)" 2>/dev/null \
        && pass "CP run, train and --symmetry off agree ($comm, $a ns)" || fail "CP ($comm): run $a, train $b, off $c"
done
expect_fail "CP sequence split" "--cp 3: the sequence (8192) must be divisible by cp (3)" \
    "$CS_BIN" generate --model llama3-8b --cp 3 --out "$CS_TMP/x"
expect_fail "CP load-balanced chunks" "--cp 3: the sequence (9) is cut into 2 x cp = 6 load-balanced chunks" \
    "$CS_BIN" generate --model llama3-8b --cp 3 --seq 9 --out "$CS_TMP/x"
expect_fail "bad cp-comm" "--cp-comm: expected one of allgather, p2p, ring, got \"ulysses\"" \
    "$CS_BIN" generate --model llama3-8b --cp 2 --cp-comm ulysses --out "$CS_TMP/x"
expect_fail "cp 0" "--cp: expected an integer from 1 to 1000000, got 0" "$CS_BIN" generate --model llama3-8b --cp 0 --out "$CS_TMP/x"
out=$("$CS_BIN" generate --model gpt3-6.7b --tp 8 --out "$CS_TMP/x" --trace "$CS_TMP/t.json" 2>&1); rc=$?
[ "$rc" -eq 2 ] && case $out in *"--trace applies to a simulation"*) true ;; *) false ;; esac \
    && pass "generate refuses --trace (it simulates nothing) instead of ignoring it" || fail "generate --trace: $rc $out"
finish
