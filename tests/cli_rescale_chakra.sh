#!/usr/bin/env bash
# cli_rescale_chakra.sh -- clustersim rescale on real Chakra traces
# (shared/testdata/chakra; skipped when absent, nothing copied into the repo):
# the converter's data-parallel trace (node ids numbered per rank from one
# counter) is accepted, rescaled to its own size it simulates to the
# source's picosecond, to 64 ranks every file is rank 0's; an all-gather
# over all ranks shrinks as a 1/dp shard; traces whose structure is not a
# data-parallel replica one are refused by name.  docs/rescale.md lists every set.
. "$(dirname "$0")/lib_cli.sh"
D="${CS_SHARED_DIR:-}/testdata/chakra"
if [ ! -d "$D/text_data_parallel_8npu" ]; then
    echo "skip: $D/text_data_parallel_8npu not found (CS_SHARED_DIR unset or shared data absent)"
    exit 77
fi
cd "$CS_TMP" || exit 1
cat > sys.json <<'J'
{"scheduling-policy": "LIFO", "collective-optimization": "localBWAware", "endpoint-delay": 10,
 "local-reduction-delay": 1, "active-chunks-per-dimension": 1, "preferred-dataset-splits": 4,
 "all-reduce-implementation": ["ring"], "all-gather-implementation": ["ring"],
 "reduce-scatter-implementation": ["ring"], "all-to-all-implementation": ["ring"], "local-mem-bw": 1600}
J
for n in 8 64; do printf 'topology: [ Switch ]\nnpus_count: [ %s ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' $n > n$n.yml; done
step_ps() { # PREFIX NPUS
    "$CS_BIN" run --workload-configuration="$1" --network-configuration="n$2.yml" --system-configuration=sys.json \
        --json "$CS_TMP/s.json" --quiet || return 1
    grep -o '"sim_time_ps": *[0-9]*' "$CS_TMP/s.json" | grep -o '[0-9]*$'
}
SRC="$D/text_data_parallel_8npu/data_parallel"
"$CS_BIN" rescale --workload-configuration="$SRC" --to-dp 8 --out dp8 --quiet && pass "data_parallel: 8 -> 8" || fail "data_parallel 8 -> 8"
a=$(step_ps "$SRC" 8); b=$(step_ps dp8 8)
[ -n "$a" ] && [ "$a" = "$b" ] && pass "data_parallel: rescaled to 8 ranks simulates as the source ($a ps)" \
    || fail "data_parallel: source $a ps, rescaled $b ps"
"$CS_BIN" rescale --workload-configuration="$SRC" --to-dp 64 --out dp64 --quiet && pass "data_parallel: 8 -> 64" || fail "data_parallel 8 -> 64"
d=0; for r in $(seq 0 63); do cmp -s "dp64.$r.et" "dp64.0.et" || d=$((d + 1)); done
[ "$d" -eq 0 ] && [ ! -f dp64.comm_groups.json ] && pass "64 ranks: every file is rank 0's (no groups, no peers)" || fail "64 ranks: $d files differ"
c=$(step_ps dp64 64); [ -n "$c" ] && pass "64 ranks simulate ($c ps)" || fail "64 ranks do not simulate"
# an all-gather over all ranks is read as ZeRO's: a 1/dp shard, 1 MiB at dp 8 = 131072 B at dp 64
"$CS_BIN" rescale --workload-configuration="$D/generator_8npu_comm1MiB/ALL_GATHER" --to-dp 64 --out ag64 --quiet \
    && "$CS_BIN" inspect --json ag64.63.et 2>/dev/null | tr -d ' \n' | grep -q '"name":"comm_size","int64Val":"131072"' \
    && pass "all-gather: 1048576 B at dp 8 is 131072 B at dp 64" || fail "all-gather shard"
expect_fail "model-parallel compute after a reduce-scatter refused" "hybrid_data_model.0.et: node 6 (COMP_NODE_ffn_BWD_WG) computes after node 4|no optimizer step on a 1/dp shard" \
    "$CS_BIN" rescale --workload-configuration="$D/text_hybrid_data_model_4npu/hybrid_data_model" --to-dp 8 --out e1
expect_fail "dlrm all-to-all refused" "hybrid_dlrm.0.et: node 1 (COMM_COLL_NODE_emb_ALLTOALL): ALL_TO_ALL on the data-parallel group" \
    "$CS_BIN" rescale --workload-configuration="$D/text_hybrid_dlrm_8npu/hybrid_dlrm" --to-dp 64 --out e2
expect_fail "messages between replicas refused" "p2p_mixed.0.et: node 1 (send_to_1): comm_dst is rank 1 (dp_i 1)|another data-parallel replica" \
    "$CS_BIN" rescale --workload-configuration="$D/custom_p2p_mixed_deps_4npu/p2p_mixed" --to-dp 8 --out e3
ls e1.* e2.* e3.* >/dev/null 2>&1 && fail "refusals left files" || pass "refusals wrote nothing"
finish
