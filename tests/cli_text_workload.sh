#!/usr/bin/env bash
# cli_text_workload.sh -- ASTRA-sim 1.0 / SimAI text workloads through
# `clustersim run --workload-configuration=FILE.txt`: step times worked out
# by hand from the format's semantics (docs/astra-compat.md, "Text
# workloads"), the TP / DP groups seen in collectives.csv and summary.json,
# refusals of malformed files naming file:line and field, ASTRA-sim's own
# text examples against ASTRA-sim 2.0's reference runs, and SimAI's files
# from ../shared (each skipped when absent).
#
# Notation as in cli_astra_breaks.sh: 50 GB/s read as 53.6870912 bytes/ns,
# latency 500 ns, endpoint-delay d = 10, local-mem-bw 1600;
# net(h, m) = trunc(h x 500 + m / 53.6870912), red(m) = 3 x trunc(m / 1600).
# Ring all-reduce of S over n ranks, m = S / n:
#   T = d + 2(n-1)(net + d) + (n-1) red(m)
#   S = 1 MiB, n = 4 (Ring(4), 1 hop):  10 + 6 x (5382 + 10) + 3 x 489 = 33829
#   S = 1 MiB, n = 2, 1 hop  ({0,1}):   10 + 2 x (10265 + 10) + 981   = 21541
#   S = 1 MiB, n = 2, 2 hops ({0,2}):   net = trunc(1000 + 9765.625) = 10765
#                                       10 + 2 x (10765 + 10) + 981   = 22541
#   (a group smaller than the network is a ring of its members whose
#   bundles take 10 ns: docs/collectives.md, "Communicators")
. "$(dirname "$0")/lib_cli.sh"
: "${CS_SOURCE_DIR:?}"
cd "$CS_TMP" || exit 1
printf 'topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' > net4.yml
printf 'topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' > net8.yml
cat > sys.json <<'J'
{ "scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,
  "preferred-dataset-splits": 1, "collective-optimization": "localBWAware", "local-mem-bw": 1600,
  "all-reduce-implementation": [ "ring" ], "all-gather-implementation": [ "ring" ],
  "reduce-scatter-implementation": [ "ring" ], "all-to-all-implementation": [ "ring" ] }
J
run() { timeout 120 "$CS_BIN" run --quiet "$@"; }
json_num() { grep -o "\"$2\": [0-9.]*" "$1" | head -1 | sed 's/.*: //'; }
expect_num() { if [ "$2" = "$3" ]; then pass "$1 ($3)"; else fail "$1: got '$2', expected $3"; fi; }
# rows CSV COLS: the data rows' columns (cut -f), space-separated
rows() { tail -n +2 "$1" | cut -d, -f"$2" | tr '\n' ' ' | sed 's/ $//'; }

# --- (a) DATA, one layer, 4 NPUs on Ring(4) ----------------------------------
# Forward compute 5000 ns; backward from the last (only) layer: weight-grad
# compute 3000, its all-ranks all-reduce of 1 MiB (33829); layer 0 runs no
# input-grad compute in SimAI's DATA loop (its 7000 ns are not run).
# Step = 5000 + 3000 + 33829 = 41829 ns; the all-reduce starts at 8000.
printf 'DATA\n1\nlayer0 -1 5000 NONE 0 7000 NONE 0 3000 ALLREDUCE 1048576 0\n' > a.txt
run --workload-configuration=a.txt --network-configuration=net4.yml --system-configuration=sys.json \
    --out a.out 2> err.txt || fail "DATA: $(cat err.txt)"
expect_num "DATA, one layer: compute + ring all-reduce" "$(json_num a.out/summary.json sim_time_ns)" 41829
expect_num "DATA: the all-reduce over all 4 ranks from 8000 to 41829 ns" "$(rows a.out/collectives.csv 2,5,7,9,10)" \
    "ALL_REDUCE,all,4,8000,41829"

# --- (a2) DATA, two layers: the weight-gradient all-reduce is not waited for --
# F0 = 1000, F1 = 2000; backward: WG1 3000 (to 6000), all-reduce 1 issued at
# 6000, ends 6000 + 33829 = 39829 while IG1 (40000 ns, to 46000) computes;
# WG0 4000 (to 50000), all-reduce 0 from 50000 to 83829; IG0 is not run.
printf 'DATA\n2\nl0 -1 1000 NONE 0 7000 NONE 0 4000 ALLREDUCE 1048576 0\nl1 -1 2000 NONE 0 40000 NONE 0 3000 ALLREDUCE 1048576 0\n' > a2.txt
run --workload-configuration=a2.txt --network-configuration=net4.yml --system-configuration=sys.json \
    --out a2.out 2> err.txt || fail "DATA 2 layers: $(cat err.txt)"
expect_num "DATA, two layers: the first all-reduce overlaps the input-grad compute" \
    "$(json_num a2.out/summary.json sim_time_ns)" 83829
expect_num "DATA, two layers: all-reduces at 6000-39829 and 50000-83829" "$(rows a2.out/collectives.csv 9,10)" \
    "6000,39829 50000,83829"

# --- (b) HYBRID_TRANSFORMER, TP 2 x DP 2 on Ring(4) ---------------------------
# Forward compute 1000, TP all-reduce of 1 MiB over {0,1} / {2,3} (one hop:
# 21541, blocking, ends 22541); backward: input-grad compute 2000 (to 24541),
# no input-grad collective, weight-grad compute 3000 (to 27541), DP
# all-reduce of 1 MiB over {0,2} / {1,3} (two hops: 22541, ends 50082).
# Step = 1000 + 21541 + 2000 + 3000 + 22541 = 50082 ns on every rank.
# Groups as MockNcclGroup numbers them: TP i*2 + j, DP i + 2j; ids from 1.
printf 'HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 1 pp: 1 vpp: 1 ga: 1 all_gpus: 4 checkpoints: 0 checkpoint_initiates: 0\n1\nlayer0 -1 1000 ALLREDUCE 1048576 2000 NONE 0 3000 ALLREDUCE 1048576 100\n' > b.txt
run --workload-configuration=b.txt --network-configuration=net4.yml --system-configuration=sys.json \
    --out b.out 2> err.txt || fail "TP x DP: $(cat err.txt)"
expect_num "TP 2 x DP 2: every rank's step" "$(rows b.out/ranks.csv 2)" "50082 50082 50082 50082"
expect_num "TP 2 x DP 2: TP all-reduces on groups 1, 2 (2 ranks, 21541 ns), DP on 3, 4 (22541 ns)" \
    "$(rows b.out/collectives.csv 5,7,9,11)" \
    "1,2,1000,21541 2,2,1000,21541 3,2,27541,22541 4,2,27541,22541"
python3 - b.out/summary.json <<'PY' && pass "TP 2 x DP 2: groups {0,1} {2,3} (TP) and {0,2} {1,3} (DP) in summary.json" \
    || fail "groups in summary.json"
import json, sys
g = json.load(open(sys.argv[1]))["configuration"]["comm_groups"]
sys.exit(0 if g == {"1": [0, 1], "2": [2, 3], "3": [0, 2], "4": [1, 3]} else 1)
PY
# detected by content as well as by the .txt suffix
cp b.txt b_workload
run --workload-configuration=b_workload --network-configuration=net4.yml --system-configuration=sys.json \
    --json b2.json 2> err.txt || fail "by content: $(cat err.txt)"
expect_num "a text workload without .txt is recognised by its first word" "$(json_num b2.json sim_time_ns)" 50082
run --workload-configuration=b.txt --network-configuration=net4.yml --system-configuration=sys.json \
    --dump-scenario dump.json 2> err.txt || fail "dump: $(cat err.txt)"
grep -q '"comm-streams": 1000000' dump.json && pass "comm-streams defaults to every collective at once" \
    || fail "comm-streams in the dump: $(grep comm-streams dump.json)"

# --- examples/text_workload: the worked example of docs/examples.md ----------
# 110000 ns of compute + 4 TP all-reduces (21541) + the last DP one (22541)
# = 218705; the first DP all-reduce (124623-147164) hides behind the
# attention input-grad compute (124623-154623).
EX="$CS_SOURCE_DIR/examples/text_workload"
run --workload-configuration="$EX/tp2_dp2.txt" --network-configuration="$EX/network.yml" \
    --system-configuration="$EX/system.json" --out ex.out 2> err.txt || fail "example: $(cat err.txt)"
expect_num "examples/text_workload: the step of docs/examples.md" "$(json_num ex.out/summary.json sim_time_ns)" 218705
expect_num "examples/text_workload: the twelve collectives' groups and times" "$(rows ex.out/collectives.csv 5,9,10)" \
    "1,10000,31541 2,10000,31541 1,41541,63082 2,41541,63082 1,83082,104623 2,83082,104623 3,124623,147164 4,124623,147164 1,154623,176164 2,154623,176164 3,196164,218705 4,196164,218705"

# --- (c) malformed files --------------------------------------------------------
P=(--network-configuration=net4.yml --system-configuration=sys.json)
printf 'HYBRID_TRANSFOMER model_parallel_NPU_group: 2\n1\nl -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n' > bad_policy.txt
expect_fail "a header with an unknown policy" "bad_policy.txt:1: parallelism policy 'HYBRID_TRANSFOMER': unknown|expected one of DATA" \
    "$CS_BIN" run --workload-configuration=bad_policy.txt "${P[@]}"
printf 'HYBRID_TRANSFORMER model_parallel_NPU_group: 2 all_gpus: 4\n3\nl -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n' > short.txt
expect_fail "a layer count larger than the lines present" "short.txt:4: layer 1 of 3: the file ends|found 1" \
    "$CS_BIN" run --workload-configuration=short.txt "${P[@]}"
printf 'HYBRID_TRANSFORMER model_parallel_NPU_group: 2 all_gpus: 4\n1\nl -1 1 NONE 0 1 NONE 0 1.5 NONE 0 1\n' > nan.txt
expect_fail "a non-number in a column" "nan.txt:3: layer 0: weight-grad compute time (ns) '1.5': expected a whole number of ns" \
    "$CS_BIN" run --workload-configuration=nan.txt "${P[@]}"
printf 'DATA\n1\nl -1 1 NONE 0 1 NONE 0 1 ALLREDUCTION 8 1\n' > badtype.txt
expect_fail "an unknown comm type" "badtype.txt:3: layer 0: weight-grad comm type 'ALLREDUCTION': unknown|expected NONE, ALLREDUCE" \
    "$CS_BIN" run --workload-configuration=badtype.txt "${P[@]}"
printf 'HYBRID_TRANSFORMER model_parallel_NPU_group: 2 pp: 2 all_gpus: 4 pp_comm 100\n1\nl -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n' > pp2.txt
expect_fail "pipeline parallelism is refused" "pp2.txt:1: HYBRID_TRANSFORMER pp: 2: pipeline parallelism is not modelled|supported: DATA" \
    "$CS_BIN" run --workload-configuration=pp2.txt "${P[@]}"
expect_fail "all_gpus against the network" "b.txt:1: all_gpus: 4 NPUs, but the network has 8" \
    "$CS_BIN" run --workload-configuration=b.txt --network-configuration=net8.yml --system-configuration=sys.json
echo '{"1": [0, 1]}' > g.json
expect_fail "a comm-group file with a text workload" "comm-groups: the text workload b.txt makes its own communicator groups" \
    "$CS_BIN" run --workload-configuration=b.txt "${P[@]}" --comm-group-configuration=g.json
cat > cluster.json <<'J'
{"clustersim-cluster": 1, "network": "net4.yml", "system": "sys.json",
 "jobs": [ {"name": "a", "workload": "b.txt", "npus": 4} ]}
J
expect_fail "a text workload as a cluster job is refused by name" "job a: workload: b.txt: an ASTRA-sim 1.0 / SimAI text workload|expected Chakra traces" \
    "$CS_BIN" cluster cluster.json --out cl.out
expect_fail "inspect names a text workload" "b.txt: an ASTRA-sim 1.0 / SimAI text workload; inspect reads Chakra traces" \
    "$CS_BIN" inspect b.txt

# --- (d) ASTRA-sim's own text examples against ASTRA-sim 2.0 --------------------
# ../shared/testdata/astra-sim/cases/e_* are ASTRA-sim 2.0 runs of these
# files after Chakra's text converter, which reads the compute columns as
# microseconds (duration_micros); here they are ns, so the columns are
# multiplied by 1000 first.  Every rank's finish and exposed communication
# must equal ASTRA-sim's expected.tsv: DATA (ResNet-50, analytical-
# congestion), MODEL (MLP) and HYBRID_DLRM (DLRM, last bottom layer 4).
AS="${CS_SHARED_DIR:-}/testdata/astra-sim"
SIMAI="${CS_SHARED_DIR:-}/testdata/simai"
if [ ! -d "$AS/text_workloads" ]; then
    echo "skip: $AS absent (ASTRA-sim's text examples and reference runs)"
else
    for c in "Resnet50_DataParallel e_Resnet50_DataParallel_ring8_ca analytical-congestion" \
             "MLP_ModelParallel e_MLP_ModelParallel_ring8_cu analytical" \
             "DLRM_HybridParallel e_DLRM_HybridParallel_ring8_cu analytical"; do
        set -- $c
        awk 'NR <= 2 { print; next } NF >= 12 { $3 *= 1000; $6 *= 1000; $9 *= 1000; print }' OFS='\t' \
            "$AS/text_workloads/$1.txt" > "$1.txt"
        run --workload-configuration="$1.txt" --network-configuration="$AS/cases/$2/network.yml" \
            --system-configuration="$AS/cases/$2/system.json" --backend "$3" --out "$1.out" 2> err.txt \
            || { fail "$1: $(cat err.txt)"; continue; }
        got=$(tail -n +2 "$1.out/ranks.csv" | cut -d, -f1,2,4 | tr ',' ' ')
        want=$(tail -n +2 "$AS/cases/$2/expected.tsv" | tr '\t' ' ')
        if [ "$got" = "$want" ]; then pass "ASTRA-sim's $1.txt = ASTRA-sim 2.0 on its Chakra conversion ($(echo "$want" | head -1 | cut -d' ' -f2) ns)"
        else fail "$1: ranks differ from $2/expected.tsv: got $(echo $got | head -c 200), want $(echo $want | head -c 200)"; fi
    done
fi

# --- (e) SimAI's files ------------------------------------------------------------
if [ ! -f "$SIMAI/microAllReduce.txt" ]; then
    echo "skip: $SIMAI absent (SimAI workload files); the cases above ran"
    finish
    [ -d "$AS/text_workloads" ] || exit 77
    exit 0
fi
# microAllReduce.txt: HYBRID_TRANSFORMER_FWD_IN_BCKWD, TP 8 of 8 (the TP
# group is every rank), two layers: forward 556000 ns + all-reduce of 16 MiB,
# 556000 + all-reduce of 64 MiB; backward 4 computes of 1 ns, no collective.
# On Ring(8): 16 MiB, m = 2 MiB: net = trunc(500 + 39062.5) = 39562,
#   red = 3 x 1310 = 3930: 10 + 14 x 39572 + 7 x 3930 = 581528;
# 64 MiB, m = 8 MiB: net = trunc(500 + 156250) = 156750, red = 3 x 5242 =
#   15726: 10 + 14 x 156760 + 7 x 15726 = 2304732.
# Step = 556000 + 581528 + 556000 + 2304732 + 4 = 3998264 ns.
run --workload-configuration="$SIMAI/microAllReduce.txt" --network-configuration=net8.yml \
    --system-configuration=sys.json --json micro.json 2> err.txt || fail "microAllReduce: $(cat err.txt)"
expect_num "SimAI microAllReduce.txt on Ring(8)" "$(json_num micro.json sim_time_ns)" 3998264
# The GPT files (TP 8, 64 GPUs) on Ring(8) x Switch(8): they run to the end,
# every rank's GPU compute is the sum of the file's compute columns (all
# three run for every layer), and collectives.csv has one row per
# collective per group: 8 TP groups for each forward / input-grad
# collective, 8 DP groups for each weight-grad one (BROADCAST runs none).
printf 'topology: [ Ring, Switch ]\nnpus_count: [ 8, 8 ]\nbandwidth: [ 200, 25 ]\nlatency: [ 500, 1000 ]\n' > net64.yml
sed 's/"ring" ]/"ring", "ring" ]/g' sys.json > sys2.json
for f in gpt13b gpt175b; do
    wl="$SIMAI/${f}_tp8_pp1_header-upgraded_g64.txt"
    run --workload-configuration="$wl" --network-configuration=net64.yml --system-configuration=sys2.json \
        --out "$f.out" 2> err.txt || { fail "$f: $(cat err.txt)"; continue; }
    want=$(awk 'NR > 2 { c += $3 + $6 + $9 } END { print c }' "$wl")
    got=$(tail -n +2 "$f.out/ranks.csv" | cut -d, -f3 | sort -u | tr '\n' ' ')
    expect_num "$f: GPU compute of every rank = the file's compute columns" "$got" "$want "
    want=$(awk 'NR > 2 { for (k = 4; k <= 7; k += 3) if ($k != "NONE" && $k != "BROADCAST") n += 8;
                        if ($10 != "NONE") n += 8 } END { print n }' "$wl")
    expect_num "$f: one collectives.csv row per collective and group" "$(($(wc -l < "$f.out/collectives.csv") - 1))" "$want"
    echo "     $f step: $(json_num "$f.out/summary.json" sim_time_ns) ns"
done
finish
