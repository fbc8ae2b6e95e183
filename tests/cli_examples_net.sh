#!/usr/bin/env bash
# cli_examples_net.sh -- the network examples of docs/examples.md run and
# give the times recorded there: examples/superpod_h100 (flow, healthy and
# with a NIC cable degraded at 5 ms, --compare-healthy) and
# examples/roce_clos (256 MiB ring all-reduce on the 3:1 and 1:1 Clos).
. "$(dirname "$0")/lib_cli.sh"
EX="$(cd "$(dirname "$0")/../examples" && pwd)"
cd "$CS_TMP" || exit 1

# The one-collective example traces are our writer's output for these specs
# (docs/examples.md says how to regenerate them).
: "${CS_MKTRACE:?}"
for x in "superpod_h100/allreduce_1g.et|1 COLL ctype=0 size=1073741824" \
         "roce_clos/allreduce_256m.et|1 COLL ctype=0 size=268435456" \
         "roce_clos/alltoall_64m.et|1 COLL ctype=6 size=67108864"; do
    f=${x%%|*}
    "$CS_MKTRACE" "$CS_TMP/regen.et" "${x#*|}" && cmp -s "$CS_TMP/regen.et" "$EX/$f" \
        && pass "$f regenerates identically" || fail "$f regenerates identically"
done
sp() { "$CS_BIN" run --workload-configuration="$EX/superpod_h100/allreduce_1g.et" \
    --network-configuration="$EX/superpod_h100/network.yml" --system-configuration="$EX/superpod_h100/system.json" \
    --backend flow --no-progress "$@"; }
sp --topology="$EX/superpod_h100/topology.json" --quiet --json sp.json 2>err.txt \
    && grep -q "\"sim_time_ns\": 6757635," sp.json && pass "SuperPOD unit: 1 GiB all-reduce 6.758 ms" \
    || fail "SuperPOD: $(grep -o '"sim_time_ns": [0-9.]*' sp.json) $(cat err.txt)"
sp --topology="$EX/superpod_h100/topology_drain.json" --compare-healthy > rep.txt 2>err.txt \
    && grep -q 'simulated time   13.002 ms' rep.txt && grep -q 'healthy network  6.758 ms' rep.txt \
    && pass "SuperPOD unit: degraded NIC x1.924" || fail "SuperPOD drain: $(grep -E 'simulated|healthy' rep.txt) $(cat err.txt)"
for t in "topology.json 17416150" "topology_1to1.json 12715788"; do
    set -- $t
    "$CS_BIN" run --workload-configuration="$EX/roce_clos/allreduce_256m.et" --network-configuration="$EX/roce_clos/network.yml" \
        --system-configuration="$EX/roce_clos/system.json" --backend flow --topology="$EX/roce_clos/$1" --quiet \
        --json rc.json 2>err.txt && grep -q "\"sim_time_ns\": $2," rc.json \
        && pass "RoCE Clos $1: 256 MiB ring all-reduce" || fail "RoCE $1: $(grep -o '"sim_time_ns": [0-9.]*' rc.json) $(cat err.txt)"
done
finish
