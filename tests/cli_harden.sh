#!/usr/bin/env bash
# cli_harden.sh -- hostile input to the newer features (issue 15's bar: every
# malformed input refused naming the file or flag, the key and what was
# expected; valid input run), one case per defect found and fixed
# (docs/testing.md, "Adversarial catalogue"):
#  - bandwidth and latency keys beyond what the simulation can hold, refused
#    where read (topology builders' keys, derived link bandwidths, edges
#    tuples, the network YAML) instead of a bogus deadlock or a refusal
#    naming `collective`'s scratch trace;
#  - `collective` errors name the flags, never its scratch trace;
#  - a misspelt last flag is an unknown option, not one missing its value;
#  - an output naming an input (--json, --trace, --out, --dump-scenario,
#    cluster --json) is refused and the input kept, byte for byte;
#  - /dev/null as an output stays a device (a result was renamed over it,
#    and a failed run removed it);
#  - an explicit cluster placement is bounded by the job's npus before the
#    list is built;
#  - search's empty space, sweep --report over its spec, rescale over its
#    source or into a missing directory, bandwidth's budget bound.
. "$(dirname "$0")/lib_cli.sh"
: "${CS_MKTRACE:?}"
cd "$CS_TMP" || exit 1
printf 'topology: [ Switch ]\nnpus_count: [ 64 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' > n64.yml
printf 'topology: [ Switch ]\nnpus_count: [ 4 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' > n4.yml
printf 'topology: [ Switch, Switch ]\nnpus_count: [ 8, 16 ]\nbandwidth: [ 450, 50 ]\nlatency: [ 0, 500 ]\n' > n128.yml
cat > sys1.json <<'J'
{ "scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,
  "preferred-dataset-splits": 1, "collective-optimization": "localBWAware", "local-mem-bw": 1600,
  "all-reduce-implementation": [ "ring" ] }
J
cat > sys2.json <<'J'
{ "scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,
  "preferred-dataset-splits": 1, "collective-optimization": "localBWAware", "local-mem-bw": 1600,
  "all-reduce-implementation": [ "ring", "ring" ] }
J
C1=("$CS_BIN" collective --system-configuration=sys1.json --backend flow --min 1M --max 1M --quiet)

# --- bandwidth and latency ranges where read -----------------------------------
# 1e308 GB/s became an infinite link rate: every flow "stalled with no route up", a deadlock report
printf '{"builder": "servers", "nvlink_bandwidth": 1e308}' > t1.json
expect_fail "servers nvlink_bandwidth 1e308: the key and its bound" \
    "t1.json:1: nvlink_bandwidth: expected a number >= 0 and <= 1e+15 (in GB/s), got 1e+308" \
    "$CS_BIN" collective --network-configuration=n128.yml --system-configuration=sys2.json --backend flow \
    --topology=t1.json --min 1M --max 1M --quiet
printf '{"builder": "clos3", "core_latency": 1e300}' > t2.json
expect_fail "clos3 core_latency 1e300: the key and the simulated-time range" \
    "t2.json:1: core_latency: expected a number >= 0 and <= 1.844674407370955e+16 (in ns)" \
    "${C1[@]}" --network-configuration=n64.yml --topology=t2.json
printf '{"builder": "clos3", "oversubscription": 1e300}' > t3.json
expect_fail "clos3 oversubscription 1e300: a derived uplink of 1e-298 GB/s named with its builder" \
    "t3.json:1: builder clos3: link|gets 1e-298 GB/s from the keys; expected from 1e-16 to 1e+15 GB/s" \
    "${C1[@]}" --network-configuration=n64.yml --topology=t3.json
printf '{"builder": "edges", "npus": 4, "switches": 1, "edges": [[0, 4, 1e308, 500], [1, 4, 50, 500], [2, 4, 50, 500], [3, 4, 50, 500]]}' > t4.json
expect_fail "edges bandwidth 1e308: the element" "t4.json:1: edges[0]: bandwidth 1e+308 GB/s; expected a number from 1e-16 to 1e+15" \
    "${C1[@]}" --network-configuration=n4.yml --topology=t4.json
printf '{"builder": "edges", "npus": 4, "switches": 1, "edges": [[0, 4, 50, 500], [1, 4, 50, 1e300], [2, 4, 50, 500], [3, 4, 50, 500]]}' > t5.json
expect_fail "edges latency 1e300: the element" "t5.json:1: edges[1]: latency 1e+300 ns; expected at most" \
    "${C1[@]}" --network-configuration=n4.yml --topology=t5.json
printf 'topology: [ Switch ]\nnpus_count: [ 8 ]\nbandwidth: [ 1e308 ]\nlatency: [ 500 ]\n' > nbig.yml
expect_fail "network YAML bandwidth 1e308" "nbig.yml:3: bandwidth: 1e308 GB/s for dimension 0: expected a number <= 1e+15" \
    "${C1[@]}" --network-configuration=nbig.yml
expect_fail "--set of a topology bandwidth 1e308" "--set topology.fat-tree.link_bandwidth|<= 1e+15 (in GB/s)" \
    "${C1[@]}" --network-configuration=n64.yml --set topology.builder=fat-tree --set topology.fat-tree.link_bandwidth=1e308
printf 'topology: [ Switch ]\nnpus_count: [ 8 ]\nbandwidth: [ 1e15 ]\nlatency: [ 500 ]\n' > nmax.yml
"${C1[@]}" --network-configuration=nmax.yml 2> max.err && pass "1e15 GB/s, the bound, runs on flow" \
    || fail "1e15 GB/s: $(cat max.err)"

# --- collective: the flags, not the scratch trace --------------------------------
out=$("$CS_BIN" collective --network-configuration=n4.yml --system-configuration=sys1.json --min 8 \
    --max 9223372036854775808 --quiet 2>&1)
case "$out" in
*clustersim-collective-*) fail "collective names its scratch trace: $out" ;;
*"--op all_reduce, size "*" bytes (of --min 8 --max 9223372036854775808): node 1 (COMM_COLL)"*"simulated-time range"*)
    pass "collective: a size beyond the time range named by --op/--min/--max" ;;
*) fail "collective --max 2^63: $out" ;;
esac

# --- a misspelt last flag --------------------------------------------------------
for c in rescale serve search collective; do
    expect_usage "$c --frobnicate (last): unknown option" "unknown option --frobnicate" "$CS_BIN" "$c" --frobnicate
done
expect_usage "a known last flag still needs its value" "--max needs a value" "$CS_BIN" collective --max
expect_usage "serve --comm-streams (documented now) needs its value" "--comm-streams needs a value" \
    "$CS_BIN" serve --comm-streams

# --- outputs never overwrite or remove inputs -------------------------------------
"$CS_MKTRACE" one.et "1 COLL ctype=0 size=1048576" || fail "mktrace"
for r in 0 1 2 3; do "$CS_MKTRACE" "p.$r.et" "1 COLL ctype=0 size=1048576" || fail "mktrace"; done
cp n4.yml n4.keep; cp sys1.json sys1.keep; cp one.et one.keep; cp p.2.et p2.keep
R=("$CS_BIN" run --network-configuration=n4.yml --system-configuration=sys1.json --quiet)
same() { # (restored when lost, so that each case stands alone)
    cmp -s "$1" "$2" && pass "$3: input kept" || { fail "$3: input changed"; cp "$2" "$1"; }
}
expect_usage "run --json the network file" "--json n4.yml: is a file this command reads" \
    "${R[@]}" --workload-configuration=one.et --json n4.yml
same n4.yml n4.keep "run --json the network file"
expect_usage "run --trace the trace" "--trace one.et: is a file this command reads" \
    "${R[@]}" --workload-configuration=one.et --trace one.et
same one.et one.keep "run --trace the trace (was truncated, then removed by the failed run)"
expect_usage "run --json a rank's trace" "--json ./p.2.et: is a file this command reads" \
    "${R[@]}" --workload-configuration=p --json ./p.2.et
ln -sf p.2.et alias.json
# (a name that does not say which rank: refused when the timeline would replace it, after the run)
expect_fail "run --trace a symlink to a rank's trace" "alias.json: is a file this command reads" \
    "${R[@]}" --workload-configuration=p --trace alias.json
same p.2.et p2.keep "run --trace a symlink to a rank's trace"
expect_usage "run --dump-scenario the system file" "--dump-scenario sys1.json: is a file this command reads" \
    "${R[@]}" --workload-configuration=p --dump-scenario sys1.json
same sys1.json sys1.keep "run --dump-scenario the system file"
expect_fail "collective --out the system file" "--out: sys1.json: is a file this command reads" \
    "$CS_BIN" collective --network-configuration=n4.yml --system-configuration=sys1.json --min 8 --max 64 --out sys1.json
same sys1.json sys1.keep "collective --out the system file"
printf '{"clustersim-cluster": 1, "network": "n4.yml", "system": "sys1.json", "jobs": [{"workload": "one.et", "npus": 2}]}' > cl.json
cp cl.json cl.keep
expect_fail "cluster --json the cluster file" "cl.json: is a file this command reads" "$CS_BIN" cluster cl.json --json cl.json --quiet
same cl.json cl.keep "cluster --json the cluster file (was overwritten)"
"${R[@]}" --workload-configuration=p --json ok.json --trace ok.trace 2> ok.err && [ -s ok.json ] && [ -s ok.trace ] \
    && ! ls ./*.tmp.* > /dev/null 2>&1 && pass "distinct outputs written, no temporary left" || fail "outputs: $(cat ok.err)"

# --- /dev/null as an output stays a device -----------------------------------------
if [ -c /dev/null ]; then
    "$CS_BIN" collective --network-configuration=n4.yml --system-configuration=sys1.json --min 8 --max 64 --quiet \
        --out /dev/null 2> dn.err; rc=$?
    [ "$rc" -eq 0 ] && [ -c /dev/null ] && pass "collective --out /dev/null: written in place, still a device" \
        || fail "collective --out /dev/null: exit $rc, $(ls -l /dev/null) $(cat dn.err)"
    "${R[@]}" --workload-configuration=missing --json /dev/null 2> /dev/null
    [ -c /dev/null ] && pass "a failed run with --json /dev/null does not remove it" || fail "/dev/null: $(ls -l /dev/null)"
    "${R[@]}" --workload-configuration=p --trace /dev/null 2> dn2.err && [ -c /dev/null ] \
        && pass "run --trace /dev/null" || fail "run --trace /dev/null: $(cat dn2.err)"
fi

# --- cluster placement bounded before the list is built ----------------------------
printf '{"clustersim-cluster": 1, "network": "n4.yml", "system": "sys1.json", "jobs": [{"workload": "one.et", "npus": 2, "placement": "0-4294967295"}]}' > big.json
expect_fail "cluster placement 0-4294967295 (3.7 s, 512 MB, then out of memory)" \
    "big.json:1: jobs[0].placement|at most 2 of them (npus)" "$CS_BIN" cluster big.json --quiet
# --- search, sweep, rescale, bandwidth ------------------------------------------
printf 'topology: [ Switch ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' > n8.yml
expect_fail "search: an empty space names the lists (said 'none of the 0 plans ... refusals above', with none)" \
    "search: the space has no plan|--tp, --pp, --cp and --ep|8 ranks" \
    "$CS_BIN" search --model gpt3-6.7b --network-configuration=n8.yml --global-batch 8 --tp 3 --top 0 --quiet --no-progress
printf '{"clustersim-scenario": 1, "network": "n4.yml", "system": "sys1.json", "run": {"workload": "p"}}' > base.json
printf '{"clustersim-sweep": 1, "scenario": "base.json", "grid": {"network.latency": [[100], [200]]}}' > spec.json
cp spec.json spec.keep
expect_fail "sweep --report the spec" "spec.json: is a file this command reads" \
    "$CS_BIN" sweep spec.json --out sw -j 1 --quiet --no-progress --report spec.json
same spec.json spec.keep "sweep --report the spec (was replaced)"
"$CS_BIN" generate --model gpt3-6.7b --tp 2 --dp 2 --global-batch 4 --out gen --quiet 2> gen.err || fail "generate: $(cat gen.err)"
expect_fail "rescale --out in a missing directory (named a temporary file)" "--out nodir/w: nodir is not a directory" \
    "$CS_BIN" rescale --workload-configuration=gen --comm-group-configuration=gen.comm_groups.json --to-dp 4 --out nodir/w --quiet
cp gen.0.et gen0.keep
expect_fail "rescale --out the source prefix (spelt ./gen)" "--out ./gen: ./gen.0.et: is a file this command reads" \
    "$CS_BIN" rescale --workload-configuration=gen --comm-group-configuration=gen.comm_groups.json --to-dp 4 --out ./gen --quiet
same gen.0.et gen0.keep "rescale --out the source prefix (was replaced)"
printf '{"clustersim-bandwidth": 1, "workloads": ["base.json"], "budget": {"gbps-per-npu": 1e308}}' > bw.json
expect_fail "bandwidth budget 1e308: the bound (said 'GB/s > 0')" "bw.json:1: budget|a number > 0 and < 1e15" \
    "$CS_BIN" bandwidth bw.json --out bwo --quiet --no-progress
# another backend's keys are said, not silently unused (and shown once though several stages read them)
"$CS_BIN" run --workload-configuration=one.et --network-configuration=n4.yml --system-configuration=sys1.json \
    --set backend.packet.mtu=2048 --quiet --out bko 2> bk.err || fail "backend keys of another backend: $(cat bk.err)"
if [ "$(grep -c 'backend.packet.\* (1 key) set, but run.backend is analytical: ignored' bk.err)" = 1 ]; then
    pass "another backend's keys warned once"
else fail "another backend's keys: $(cat bk.err)"; fi
finish
