#!/usr/bin/env bash
# cli_gen_model.sh -- the generator's default collective model (cs_gen_system_for,
# src/gen/workload.c; docs/generator.md "The system of a generated plan"): `generate`'s
# system.json and `train` use collective-model nccl with the device's GPU generation, and
# fall back to astra, with one note saying why, where the nccl model cannot express the
# run; a key or a system file still chooses either model.
. "$(dirname "$0")/lib_cli.sh"
cd "$CS_TMP" || exit 1
# prints the system's "collective-model", "nccl-arch" and "communicator-queues" of a JSON
# file (a system file, or train --json's scenario.system)
model_of() {
    python3 - "$1" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
s = j["scenario"]["system"] if "scenario" in j else j
print(s["collective-model"], s.get("nccl-arch"), s.get("communicator-queues"))
PY
}
expect_eq() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: got \"$2\", expected \"$3\""; fi; }
NOTE="uses collective-model astra (ring on every dimension, a queue per communicator), not the default nccl"

# 1. generate: its own network (16 GPUs: 2 servers of 8) and the system.json beside it
P=(--model gpt3-6.7b --tp 8 --dp 2 --global-batch 4)
"$CS_BIN" generate "${P[@]}" --device A100-80GB --out a100 >/dev/null 2>err.txt || fail "generate: $(cat err.txt)"
expect_eq "generate, A100: system.json says nccl, ampere" "$(model_of a100.system.json)" "nccl ampere per-communicator"
[ -s err.txt ] && fail "generate, A100: no note expected: $(cat err.txt)" || pass "generate, A100: no note"
"$CS_BIN" generate "${P[@]}" --device H100-SXM --out h100 >/dev/null 2>err.txt || fail "generate: $(cat err.txt)"
expect_eq "generate, H100: nccl, hopper" "$(model_of h100.system.json)" "nccl hopper per-communicator"
"$CS_BIN" generate "${P[@]}" --device B200 --out b200 >/dev/null 2>err.txt || fail "generate: $(cat err.txt)"
expect_eq "generate, B200: nccl, blackwell" "$(model_of b200.system.json)" "nccl blackwell per-communicator"
# a device without NCCL constants: astra, and the note names the device
"$CS_BIN" generate "${P[@]}" --device MI300X --out mi >/dev/null 2>err.txt || fail "generate: $(cat err.txt)"
expect_eq "generate, MI300X: astra, per-communicator queues" "$(model_of mi.system.json | cut -d' ' -f1,3)" \
    "astra per-communicator"
grep -q "$NOTE: device MI300X" err.txt && [ "$(grep -c . err.txt)" = 1 ] \
    && pass "generate, MI300X: one note naming the device" || fail "generate, MI300X note: $(cat err.txt)"
# the generated files run with run as train runs the plan (nccl both)
"$CS_BIN" run --scenario h100.scenario.json --json run.json --quiet 2>err.txt || fail "run: $(cat err.txt)"
"$CS_BIN" train "${P[@]}" --device H100-SXM --network-configuration=h100.network.yml --json tr.json --quiet \
    2>err.txt || fail "train: $(cat err.txt)"
expect_eq "train on generate's network: nccl, hopper" "$(model_of tr.json)" "nccl hopper per-communicator"
a=$(python3 -c "import json; print(json.load(open('run.json'))['sim_time_ps'])")
b=$(python3 -c "import json; print(json.load(open('tr.json'))['iteration_time_ps'])")
[ -n "$b" ] && [ "$a" = "$b" ] && pass "run of the generated files = train ($a ps)" || fail "run $a vs train $b"

# 2. train's default is exactly the nccl model with the device's generation (the same picoseconds
# as the keys given by hand), and not the astra model's time
printf 'topology: [ Switch, Switch ]\nnpus_count: [ 8, 2 ]\nbandwidth: [ 279.4, 23.28 ]\nlatency: [ 700, 3000 ]\n' > n16.yml
T=(train "${P[@]}" --device A100-80GB --network-configuration=n16.yml --quiet)
"$CS_BIN" "${T[@]}" --json d.json 2>err.txt || fail "train default: $(cat err.txt)"
"$CS_BIN" "${T[@]}" --set system.collective-model=nccl --set system.nccl-arch=ampere --json n.json 2>/dev/null
"$CS_BIN" "${T[@]}" --set system.collective-model=astra --json a.json 2>err2.txt || fail "train astra: $(cat err2.txt)"
ps() { python3 -c "import json; print(json.load(open('$1'))['iteration_time_ps'])"; }
# communicator-queues given beside the model stays as given
"$CS_BIN" "${T[@]}" --set system.collective-model=nccl --set system.communicator-queues=shared --json ns.json \
    2>/dev/null || fail "train nccl shared"
expect_eq "nccl with communicator-queues=shared given: shared" "$(model_of ns.json | cut -d' ' -f1,3)" "nccl shared"
expect_eq "train default: nccl, ampere" "$(model_of d.json)" "nccl ampere per-communicator"
expect_eq "train default = nccl + ampere given" "$(ps d.json)" "$(ps n.json)"
[ "$(ps d.json)" != "$(ps a.json)" ] && pass "the astra model, given, gives another time" || fail "astra = nccl?"
# the model given without communicator-queues takes that model's default queues (astra: shared)
expect_eq "--set system.collective-model=astra: astra, shared queues" "$(model_of a.json | cut -d' ' -f1,3)" "astra shared"
[ -s err.txt ] || [ -s err2.txt ] && fail "no note when nccl applies or a key chooses: $(cat err.txt err2.txt)" \
    || pass "no note when nccl applies or a key chooses"

# 3. networks and plans the nccl model cannot express: astra, one note each, the run goes on
printf 'topology: [ Switch, Switch, Switch ]\nnpus_count: [ 8, 2, 1 ]\nbandwidth: [ 279.4, 23.28, 10 ]\nlatency: [ 700, 3000, 5000 ]\n' > n3d.yml
"$CS_BIN" train "${P[@]}" --device A100-80GB --network-configuration=n3d.yml --quiet --json r3.json 2>err.txt \
    || fail "3 dimensions: $(cat err.txt)"
expect_eq "3 dimensions: astra" "$(model_of r3.json | cut -d' ' -f1)" "astra"
grep -q "not the default nccl: n3d.yml has 3 dimensions" err.txt && [ "$(grep -c . err.txt)" = 1 ] \
    && pass "3 dimensions: one note saying why" || fail "3 dimensions note: $(cat err.txt)"
printf 'topology: [ Switch ]\nnpus_count: [ 128 ]\nbandwidth: [ 23.28 ]\nlatency: [ 3000 ]\n' > n128.yml
"$CS_BIN" train --model resnet50 --dp 128 --global-batch 128 --device A100-80GB --network-configuration=n128.yml \
    --quiet --json r128.json 2>err.txt || fail "128 on one dimension: $(cat err.txt)"
expect_eq "128 NPUs in dimension 0: astra" "$(model_of r128.json | cut -d' ' -f1)" "astra"
grep -q "dimension 0 of n128.yml has 128 NPUs; the nccl model takes it for one NVLink domain, at most 72" err.txt \
    && pass "128 NPUs in dimension 0: the note" || fail "128 NPUs note: $(cat err.txt)"
# TP 3 on servers of 8: TP group 2 (ranks 6 7 8) has 2 ranks on server 0 and 1 on server 1
printf 'topology: [ Switch, Switch ]\nnpus_count: [ 8, 3 ]\nbandwidth: [ 279.4, 23.28 ]\nlatency: [ 700, 3000 ]\n' > n24.yml
"$CS_BIN" train --model gpt3-6.7b --tp 3 --dp 8 --global-batch 8 --device A100-80GB --network-configuration=n24.yml \
    --set model.transformer.hidden=3072 --set model.transformer.kv_heads=8 --set model.transformer.heads=24 \
    --set model.transformer.kv_heads=24 --set model.transformer.ffn_hidden=12288 --quiet --json r24.json 2>err.txt || fail "TP 3: $(cat err.txt)"
expect_eq "TP 3 across servers of 8: astra" "$(model_of r24.json | cut -d' ' -f1)" "astra"
grep -q "communicator group [0-9]* (3 ranks) is spread over the nodes of 8 GPUs unevenly" err.txt \
    && pass "TP 3: the note names the group" || fail "TP 3 note: $(cat err.txt)"
# a key forces nccl where the default would not take it (MI300X), and then no note
"$CS_BIN" train "${P[@]}" --device MI300X --network-configuration=n16.yml --set system.collective-model=nccl \
    --quiet --json rm.json 2>err.txt || fail "MI300X forced nccl: $(cat err.txt)"
expect_eq "MI300X with collective-model=nccl given: nccl, per-communicator queues" "$(model_of rm.json | cut -d' ' -f1,3)" "nccl per-communicator"
grep -q "not the default nccl" err.txt && fail "a key chose: no note: $(cat err.txt)" || pass "a key chose: no note"
# a system file is read as it is: generate's astra file for MI300X runs astra on A100 too, silently
"$CS_BIN" train "${P[@]}" --device A100-80GB --network-configuration=n16.yml --system-configuration=mi.system.json \
    --quiet --json rf.json 2>err.txt || fail "system file: $(cat err.txt)"
expect_eq "a system file chooses: astra" "$(model_of rf.json | cut -d' ' -f1)" "astra"

# a plan the check refuses gets its error, and no note about groups made from it (the groups of an
# HSDP shard size that does not divide dp used to be built first: a heap overflow, fuzz/regress/cli)
"$CS_BIN" train --model gpt3-6.7b --tp 2 --dp 8 --fsdp-sharding-strategy HYBRID_SHARD --hsdp-shard-size 5 \
    --fsdp-no-sync --network-configuration=n16.yml --quiet 2>err.txt && fail "shard size 5 of dp 8 accepted"
grep -q "hsdp-shard-size 5.*expected a divisor of --dp (8)" err.txt && ! grep -q "note" err.txt \
    && pass "shard size 5 of dp 8: refused, naming the flag, no note" || fail "shard size 5: $(cat err.txt)"

# 4. a cluster's generated jobs (cs_gen_system_groups): one device, nccl (a job alone on its server
# takes train's nccl time on that server); devices that differ, astra with the cluster's note (train's
# astra time)
printf 'topology: [ Switch, Switch ]\nnpus_count: [ 8, 2 ]\nbandwidth: [ 300, 50 ]\nlatency: [ 500, 2000 ]\n' > c16.yml
printf 'topology: [ Switch ]\nnpus_count: [ 8 ]\nbandwidth: [ 300 ]\nlatency: [ 500 ]\n' > c8.yml
job() { echo "{\"name\": \"$1\", \"set\": {\"model.name\": \"llama3-8b\", \"plan.tp\": 8, \"plan.global-batch\": 2, \"device.name\": \"$2\"}}"; }
echo "{\"clustersim-cluster\": 1, \"network\": \"c16.yml\", \"jobs\": [$(job a H100-SXM), $(job b H100-SXM)]}" > same.json
echo "{\"clustersim-cluster\": 1, \"network\": \"c16.yml\", \"jobs\": [$(job a H100-SXM), $(job b A100-80GB)]}" > mixed.json
C=(train --model llama3-8b --tp 8 --global-batch 2 --device H100-SXM --network-configuration=c8.yml --quiet)
"$CS_BIN" "${C[@]}" --json cn.json 2>/dev/null || fail "train H100 nccl"
"$CS_BIN" "${C[@]}" --set system.collective-model=astra --json ca.json 2>/dev/null || fail "train H100 astra"
tn=$(python3 -c "import json; print('%.3f' % json.load(open('cn.json'))['iteration_time_ns'])")
ta=$(python3 -c "import json; print('%.3f' % json.load(open('ca.json'))['iteration_time_ns'])")
[ "$tn" != "$ta" ] && pass "the two models give different times here ($tn, $ta ns)" || fail "nccl = astra here"
alone_a() { awk -F, '$1 == "a" { print $8 }' "$1/jobs.csv"; }
"$CS_BIN" cluster same.json --out cs --quiet 2>err.txt || fail "cluster, one device: $(cat err.txt)"
expect_eq "cluster, one device: job a alone = train with nccl" "$(alone_a cs)" "$tn"
[ -s err.txt ] && fail "cluster, one device: no note expected: $(cat err.txt)" || pass "cluster, one device: no note"
"$CS_BIN" cluster mixed.json --out cm --quiet 2>err.txt || fail "cluster, two devices: $(cat err.txt)"
expect_eq "cluster, two devices: job a alone = train with astra" "$(alone_a cm)" "$ta"
grep -q "the cluster's generated jobs run collective-model astra.*devices differ" err.txt \
    && [ "$(grep -c . err.txt)" = 1 ] && pass "cluster, two devices: one note" || fail "cluster note: $(cat err.txt)"
# The astra fallback keeps a queue per communicator, as the frameworks run
# NCCL: Llama 3 8B with TP 8 and DP 16 on one 128-port dimension (the
# nccl model's NVLink domain is at most 72 GPUs) under flow on the 3:1 Clos
# of examples/roce_clos.  With shared queues (before 2026-11-27) its TP and
# DP all-reduces closed a cycle of dimension queues at 1.61 s simulated and
# the run stopped; now the step finishes.
RC="$CS_SOURCE_DIR/examples/roce_clos"
"$CS_BIN" train --model llama3-8b --tp 8 --dp 16 --global-batch 16 --network-configuration="$RC/network.yml" \
    --topology "$RC/topology.json" --backend flow --no-progress --json rc.json >/dev/null 2>err.txt \
    && expect_eq "astra fallback on a 128-port dimension: per-communicator queues" \
        "$(model_of rc.json | cut -d' ' -f1,3)" "astra per-communicator" \
    || fail "astra fallback, TP 8 x DP 16 under flow: $(cat err.txt)"
finish
