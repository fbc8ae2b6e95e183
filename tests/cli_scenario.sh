#!/usr/bin/env bash
# cli_scenario.sh -- the scenario layer end to end: one namespace of keys
# (--set), the scenario file (--dump-scenario / --scenario reproduce a run to
# the picosecond), one source of defaults (train == generate + run == run
# --scenario == the C API), train taking run's options, located errors for
# bad keys and values, and --help-config generated from the key tables.
. "$(dirname "$0")/lib_cli.sh"
: "${CS_MKTRACE:?}"
cd "$CS_TMP" || exit 1
run() { "$CS_BIN" run "$@"; }
ps() { grep -o "\"$2\": *[0-9]*" "$1" | head -1 | grep -o '[0-9]*$'; }

# --- a closed form: rank 0 sends 1 GiB to rank 1 over a Switch(2) of 100
# GiB/s and 500 ns per hop: 2 hops x 500 ns + 2^30 B / (100 x 2^30 B/s) =
# 1,000 ns + 10 ms = 10,001,000 ns; at 200 GiB/s 5,001,000 ns.
"$CS_MKTRACE" --ranks p2p "1 SEND size=1073741824 src=0 dst=1 tag=7" "1 RECV size=1073741824 src=0 dst=1 tag=7" \
    || fail "mktrace p2p"
printf 'topology: [ Switch ]\nnpus_count: [ 2 ]\nbandwidth: [ 100 ]\nlatency: [ 500 ]\n' > sw2.yml
run --workload-configuration=p2p --network-configuration=sw2.yml --quiet --json a.json \
    && [ "$(ps a.json sim_time_ps)" = 10001000000 ] && pass "closed form: 10,001,000 ns" \
    || fail "closed form: $(ps a.json sim_time_ps) ps"
run --workload-configuration=p2p --network-configuration=sw2.yml --set network.bandwidth=200 --quiet --json b.json \
    && [ "$(ps b.json sim_time_ps)" = 5001000000 ] && pass "--set network.bandwidth=200: 5,001,000 ns" \
    || fail "--set bandwidth: $(ps b.json sim_time_ps) ps"
run --set run.workload=p2p --set network.topology=Switch --set network.npus_count=2 --set network.bandwidth=100 \
    --set network.latency=500 --quiet --json c.json \
    && [ "$(ps c.json sim_time_ps)" = 10001000000 ] && pass "a scenario from --set keys alone" \
    || fail "--set only: $(ps c.json sim_time_ps)"

# --- keys that go together, set one at a time in either order (checked once every flag is read):
# the 1-D file made 2-D, Switch(2) x Switch(1); ranks 0 and 1 differ in dimension 0, whose 100 GiB/s
# and 500 ns give the closed form above (dimension 1's 7 GiB/s and 9 ns would not)
for order in "topology=Switch,Switch npus_count=2,1 bandwidth=100,7 latency=500,9" \
             "latency=500,9 bandwidth=100,7 npus_count=2,1 topology=Switch,Switch"; do
    sets=()
    for kv in $order; do sets+=(--set "network.$kv"); done
    rm -f d2.json
    run --workload-configuration=p2p --network-configuration=sw2.yml "${sets[@]}" --quiet --json d2.json 2> d2.err \
        && [ "$(ps d2.json sim_time_ps)" = 10001000000 ] && pass "network keys set one by one ($order): 10,001,000 ns" \
        || fail "network keys one by one ($order): $(cat d2.err) $(ps d2.json sim_time_ps 2>/dev/null)"
done
expect_fail "a network left inconsistent by its flags names the first and what is missing" \
    "--set network.topology: scenario network: npus_count: expected 2 entries" \
    run --workload-configuration=p2p --network-configuration=sw2.yml --set network.topology=Switch,Switch \
    --set network.bandwidth=100,7 --quiet
expect_fail "the set to blame is the one of the key in error, not the first of the section" \
    "--set network.latency: scenario network: latency: expected a number" \
    run --workload-configuration=p2p --network-configuration=sw2.yml --set network.topology=Switch,Switch \
    --set network.npus_count=2,1 --set network.bandwidth=100,7 --set network.latency=500,abc --quiet
# only the network and memory keys wait for the batch's end: another bad value is refused at once, and
# a later flag does not hide it (nor a bad value of a --scenario file)
expect_fail "--tp 0 --tp 2: the first is refused at once" "--tp: expected an integer from 1" \
    "$CS_BIN" train --model gpt3-6.7b --tp 0 --tp 2 --network-configuration=sw2.yml --quiet
printf '{"clustersim-scenario": 1, "run": {"comm-streams": "abc"}}' > badrun.json
expect_fail "a --scenario file's bad value is refused though a flag sets the key again" "comm-streams" \
    run --scenario badrun.json --workload-configuration=p2p --network-configuration=sw2.yml --comm-streams 2 --quiet
printf '%s' '{"clustersim-scenario": 1, "network": {"topology": ["Switch"], "npus_count": [2], ' \
    '"bandwidth": ["abc"], "latency": [500]}}' > badnet.json
expect_fail "... a network value too (files are checked as they load, also in a batch)" "bandwidth" \
    run --scenario badnet.json --workload-configuration=p2p --set network.bandwidth=100 --quiet
printf '{"clustersim-scenario": 1, "network": "sw2.yml", "run": {"workload": "p2p"}}' > d2s.json
printf '%s\n' '{"clustersim-sweep": 1, "scenario": "d2s.json", "zip": {"network.topology": [["Switch"], ["Switch", "Switch"]],' \
    ' "network.npus_count": [[2], [2, 1]], "network.bandwidth": [[100], [100, 7]], "network.latency": [[500], [500, 9]]}}' \
    > d2sw.json
"$CS_BIN" sweep d2sw.json --out d2o -j 1 --quiet --no-progress 2> d2sw.err \
    && [ "$(grep -c '"status":"ok"' d2o/results.jsonl)" = 2 ] && pass "a sweep point's network keys go together" \
    || fail "sweep over the network's dimensions: $(cat d2sw.err) $(cut -c1-300 d2o/results.jsonl 2>/dev/null)"

# --- dump and reload: the same picoseconds, also from another directory
run --workload-configuration=p2p --network-configuration=sw2.yml --set network.latency=250 --quiet \
    --dump-scenario d.json --json d1.json || fail "dump"
mkdir -p sub && (cd sub && run --scenario ../d.json --quiet --json ../d2.json) \
    && [ "$(ps d1.json sim_time_ps)" = "$(ps d2.json sim_time_ps)" ] && [ "$(ps d1.json sim_time_ps)" = 10000500000 ] \
    && pass "--dump-scenario / --scenario reproduce the run ($(ps d2.json sim_time_ps) ps)" \
    || fail "dump/reload: $(ps d1.json sim_time_ps) vs $(ps d2.json sim_time_ps)"
grep -q '"latency"' d.json && grep -q '"comm-streams": 1' d.json && pass "the dump holds every key with its effective value" \
    || fail "dump content"
# the flags override the scenario file
run --scenario d.json --set network.latency=500 --quiet --json d3.json \
    && [ "$(ps d3.json sim_time_ps)" = 10001000000 ] && pass "flags override --scenario" || fail "override"

# --- one source of defaults: train == generate + run --scenario == run with the files == C API
PLAN=(--model gpt3-6.7b --tp 2 --pp 2 --dp 2 --sp --recompute selective --global-batch 8)
"$CS_BIN" generate "${PLAN[@]}" --out g --quiet || fail "generate"
"$CS_BIN" train "${PLAN[@]}" --network-configuration=g.network.yml --quiet --json t.json --dump-scenario t.scenario.json \
    || fail "train"
run --scenario g.scenario.json --quiet --json r1.json || fail "run --scenario (generated)"
run --workload-configuration=g --comm-group-configuration=g.comm_groups.json --network-configuration=g.network.yml \
    --system-configuration=g.system.json --comm-streams=4 --quiet --json r2.json || fail "run on the files"
run --scenario t.scenario.json --quiet --json r3.json || fail "run --scenario (train's dump)"
run "${PLAN[@]}" --network-configuration=g.network.yml --quiet --json r4.json || fail "run with a plan"
t=$(ps t.json iteration_time_ps)
[ -n "$t" ] && [ "$t" = "$(ps r1.json sim_time_ps)" ] && [ "$t" = "$(ps r2.json sim_time_ps)" ] \
    && [ "$t" = "$(ps r3.json sim_time_ps)" ] && [ "$t" = "$(ps r4.json sim_time_ps)" ] \
    && pass "train = generate + run --scenario = run on the files = run with a plan ($t ps)" \
    || fail "defaults differ: train $t, $(ps r1.json sim_time_ps), $(ps r2.json sim_time_ps), $(ps r3.json sim_time_ps), $(ps r4.json sim_time_ps)"
api=$("$CS_BUILD_DIR/examples/cs_scenario_demo" t.scenario.json plan.micro-batch 2 2>&1) || fail "API example: $api"
echo "$api" | grep -q "^step time: $t ps" && pass "the C API gives train's picoseconds" || fail "API: $api vs $t"
m2=$(echo "$api" | sed -n 's/^step time with plan.micro-batch = 2: \([0-9]*\) ps/\1/p')
"$CS_BIN" train "${PLAN[@]}" --micro-batch 2 --network-configuration=g.network.yml --quiet --json t2.json
[ -n "$m2" ] && [ "$m2" = "$(ps t2.json iteration_time_ps)" ] && pass "API after cs_scenario_set = train --micro-batch 2 ($m2 ps)" \
    || fail "API set: $m2 vs $(ps t2.json iteration_time_ps)"

# --- model.FAMILY.* keys: over a preset = a model file with the same keys = a model from keys alone
printf '%s\n' '{"name": "gpt-6.7b-16", "layers": 16, "hidden": 4096, "heads": 32, "kv_heads": 32, "ffn_hidden": 16384,' \
    ' "vocab": 51200, "seq": 2048, "swiglu": false, "bias": true, "tied_embeddings": true}' > m16.json
PL=(--tp 2 --pp 2 --dp 2 --sp --recompute selective --global-batch 8 --network-configuration=g.network.yml --quiet)
"$CS_BIN" train --model m16.json "${PL[@]}" --json mf.json || fail "train with a model file"
"$CS_BIN" train --model gpt3-6.7b --set model.transformer.layers=16 "${PL[@]}" --json mk.json \
    --dump-scenario mk.scenario.json || fail "train with model.transformer.layers"
"$CS_BIN" train --set model.transformer.layers=16 --set model.transformer.hidden=4096 \
    --set model.transformer.heads=32 --set model.transformer.vocab=51200 --set model.transformer.seq=2048 \
    "${PL[@]}" --json ms.json || fail "train with a model from keys alone"
run --scenario mk.scenario.json --quiet --json mr.json || fail "reload model keys"
mt=$(ps mf.json iteration_time_ps)
[ -n "$mt" ] && [ "$mt" = "$(ps mk.json iteration_time_ps)" ] && [ "$mt" = "$(ps ms.json iteration_time_ps)" ] \
    && [ "$mt" = "$(ps mr.json sim_time_ps)" ] && [ "$mt" != "$t" ] \
    && pass "model.transformer.layers=16 over gpt3-6.7b = the model file = keys alone = the dump reloaded ($mt ps)" \
    || fail "model keys: $mt $(ps mk.json iteration_time_ps) $(ps ms.json iteration_time_ps) $(ps mr.json sim_time_ps)"
grep -q '"layers": 16' mk.scenario.json && grep -q '"ffn_hidden": 16384' mk.scenario.json \
    && pass "the dump holds every key of the model's family" || fail "model dump"
expect_fail "unknown model key" "--set model.transformer.layerz: not a key of transformer models; expected" \
    "$CS_BIN" train --model gpt3-6.7b --set model.transformer.layerz=2 "${PL[@]}"
expect_fail "another family's keys" "keys of dlrm models, but --model gpt3-6.7b is a transformer model" \
    "$CS_BIN" train --model gpt3-6.7b --set model.dlrm.tables=2 "${PL[@]}"
expect_fail "bad model value" "--set model.transformer.heads: expected a divisor of hidden (4096), got 33" \
    "$CS_BIN" train --model gpt3-6.7b --set model.transformer.heads=33 "${PL[@]}"
expect_fail "a model from keys without its required keys" "model.transformer.hidden: expected" \
    "$CS_BIN" train --set model.transformer.layers=16 "${PL[@]}"

# --- train takes run's options: a graph backend, a topology file, --out
"$CS_BIN" train "${PLAN[@]}" --network-configuration=g.network.yml --backend flow --out tf --quiet \
    && [ -s tf/summary.json ] && [ -s tf/links.csv ] && grep -q '"training"\|"iteration_time_ns"\|"scenario"' tf/summary.json \
    && pass "train --backend flow --out writes summary.json and links.csv" || fail "train --backend flow --out"

# --- errors name the key or flag, what was expected, and exit 1
expect_fail "unknown key" "--set plan.tpp: unknown key of section plan; expected one of tp, pp" \
    run --scenario g.scenario.json --set plan.tpp=2
expect_fail "unknown section" "--set netwrk.bandwidth: unknown key; expected SECTION.KEY" \
    run --scenario g.scenario.json --set netwrk.bandwidth=2
expect_fail "bad value of a file key" "--set system.active-chunks-per-dimension|expected an integer" \
    run --scenario g.scenario.json --set system.active-chunks-per-dimension=0
expect_fail "bad list value" "--set network.bandwidth|bandwidth: expected" \
    run --scenario d.json --set network.bandwidth=-5
expect_fail "bad flag value" "--tp: expected an integer from 1" "$CS_BIN" train "${PLAN[@]}" --tp 0 \
    --network-configuration=g.network.yml
echo '{"clustersim-scenario": 1, "runn": {}}' > bad.json
expect_fail "unknown section in a scenario file" "bad.json: \"runn\": unknown section" run --scenario bad.json
echo '{"run": {"comm-streams": "many"}}' > bad2.json
expect_fail "bad value in a scenario file" "bad2.json: run.comm-streams: expected an integer" run --scenario bad2.json
expect_fail "two workloads" "expected one workload" run --scenario g.scenario.json --model gpt3-6.7b
# a scenario that is a FIFO is refused at once (it blocked forever)
rm -f sc.fifo && mkfifo sc.fifo && expect_fail "--scenario FIFO" "sc.fifo: cannot read: expected a regular file" \
    timeout 10 "$CS_BIN" run --scenario sc.fifo
# a failed run leaves no result file behind
rm -f nores.json
run --scenario g.scenario.json --set network.npus_count=4 --json nores.json --quiet 2>/dev/null
[ ! -e nores.json ] && pass "a failed run writes no --json" || fail "stale result file"
# ... and no collectives.csv (it is streamed during the run), summary.json or timeline in --out
"$CS_MKTRACE" --ranks noimpl "1 COLL ctype=0 size=1048576" "1 COLL ctype=0 size=1048576" || fail "mktrace noimpl"
rm -rf failed && run --workload-configuration=noimpl --network-configuration=sw2.yml --out failed --trace failed/t.json \
    --quiet 2>/dev/null
[ $? -eq 1 ] && [ -d failed ] && [ -z "$(ls -A failed)" ] && pass "a failed run leaves an empty --out directory" \
    || fail "stale files after a failed run: $(ls -A failed 2>&1)"
# ... and a previous run's results in the same --out do not survive a failed run
rm -rf again && run --workload-configuration=p2p --network-configuration=sw2.yml --out again --quiet \
    && [ -s again/summary.json ] && [ -s again/ranks.csv ] && [ -s again/collectives.csv ] || fail "a good run"
msg=$(run --workload-configuration=noimpl --network-configuration=sw2.yml --out again --quiet 2>&1)
[ $? -eq 1 ] && [ -z "$(ls -A again)" ] && pass "a failed run removes the previous run's results from --out" \
    || fail "previous results left after a failed run: $(ls -A again 2>&1)"
case $msg in *"no results written to again"*) pass "a failed run says no results were written" ;;
    *) fail "no word of the missing results: $msg" ;; esac

# a send that no receive takes is an error, not a finish
"$CS_MKTRACE" --ranks lone "1 SEND size=1000 src=0 dst=1 tag=7" "1 COMP dur=5" || fail "mktrace lone"
expect_fail "a send no receive took" "lone.0.et node 1 (rank 0) sent 1000 bytes to rank 1 with tag 7 that no receive took" \
    run --workload-configuration=lone --network-configuration=sw2.yml --quiet
# two outputs naming one file
msg=$(run --workload-configuration=p2p --network-configuration=sw2.yml --quiet --json same.json --trace ./same.json 2>&1)
[ $? -eq 2 ] && case $msg in *"--json same.json and --trace ./same.json name the same file"*) true ;; *) false ;; esac \
    && pass "--json and --trace naming one file are refused" || fail "same file: $msg"
msg=$(run --workload-configuration=p2p --network-configuration=sw2.yml --quiet --out od --trace od/summary.json 2>&1)
[ $? -eq 2 ] && case $msg in *"--trace od/summary.json and --out od name the same file"*) true ;; *) false ;; esac \
    && pass "--trace into --out's summary.json is refused" || fail "same file in --out: $msg"

# SIGINT stops a run cleanly: exit 130, no results, the timeline valid JSON and marked partial
printf 'topology: [ Switch, Switch ]\nnpus_count: [ 8, 64 ]\nbandwidth: [ 279.4, 23.28 ]\nlatency: [ 700, 3000 ]\n' > n512.yml
rm -rf intr intr.trace.json
"$CS_BIN" train --model gpt3-175b --tp 8 --pp 8 --dp 8 --sp --recompute selective --network-configuration=n512.yml \
    --symmetry off --out intr --trace intr.trace.json --quiet --progress 0 2>intr.err &
pid=$!
# the first progress line comes after 65,536 events: the event loop runs
for i in $(seq 1 3000); do grep -q "% of" intr.err 2>/dev/null && break; sleep 0.1; done  # up to 300 s: a loaded sanitizer build generates slowly
kill -INT $pid
wait $pid
rc=$?
if [ $rc -eq 130 ] && [ -z "$(ls -A intr)" ] && grep -q "interrupted at simulated time" intr.err \
    && grep -q "marked partial" intr.err; then
    if command -v python3 >/dev/null 2>&1; then
        python3 -c "import json,sys; d=json.load(open('intr.trace.json')); e=d['traceEvents'][-1]; sys.exit(0 if e['args']['partial'] else 1)" \
            && pass "SIGINT: exit 130, no results, a valid timeline marked partial" || fail "partial timeline"
    else
        grep -q '"partial":true' intr.trace.json && pass "SIGINT: exit 130, no results, timeline marked partial" \
            || fail "partial timeline"
    fi
else
    fail "SIGINT: rc $rc, out: $(ls -A intr 2>&1), $(cat intr.err)"
fi

# SIGINT while a plan's graphs are generated (16,384 ranks, every rank
# simulated: minutes of generation) stops at the next rank, not after it
printf 'topology: [ Switch, Switch ]\nnpus_count: [ 8, 2048 ]\nbandwidth: [ 279.4, 23.28 ]\nlatency: [ 700, 3000 ]\n' > n16k.yml
"$CS_BIN" train --model gpt3-175b --tp 8 --pp 8 --dp 256 --sp --recompute selective --network-configuration=n16k.yml \
    --symmetry off --quiet --out gintr 2>gintr.err &
pid=$!
sleep 2
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] && grep -q "interrupted while generating the plan's graphs ([0-9]* of 16384 ranks done)" gintr.err \
    && [ -z "$(ls -A gintr)" ] && pass "SIGINT during plan generation: exit 130 at once, no results" \
    || fail "SIGINT in generation: rc $rc, $(cat gintr.err)"

# --- backend.<name>.* keys: the flow backend's routing, dumped and reloaded
# (a 1 MiB all-to-all over the example's 128 NPUs: the keys' round trip needs no 64 MiB run)
"$CS_MKTRACE" a2a_1m.et "1 COLL ctype=6 size=1048576" || fail "mktrace a2a"
RC=(--workload-configuration=a2a_1m.et
    --network-configuration="$CS_SOURCE_DIR/examples/roce_clos/network.yml"
    --system-configuration="$CS_SOURCE_DIR/examples/roce_clos/system.json" --backend flow
    --topology="$CS_SOURCE_DIR/examples/roce_clos/topology.json" --quiet)
run "${RC[@]}" --set backend.flow.routing=spray --json sp.json --dump-scenario sp.scenario.json || fail "flow spray"
run --scenario sp.scenario.json --json sp2.json || fail "flow spray reload"
grep -q '"routing": "spray"' sp.scenario.json && [ "$(ps sp.json sim_time_ps)" = "$(ps sp2.json sim_time_ps)" ] \
    && pass "backend.flow.routing is dumped and reproduced ($(ps sp.json sim_time_ps) ps)" || fail "backend keys dump"
expect_fail "unknown backend option" "--set backend.flow.routng: not an option of backend flow; expected ecmp_seed, routing" \
    run "${RC[@]}" --set backend.flow.routng=spray
expect_fail "bad backend option value" "--set backend.flow.routing: expected one of topology, ecmp, spray" \
    run "${RC[@]}" --set backend.flow.routing=zigzag

# --- topology.* keys: a builder's keys one by one give the file's picoseconds; changed, dumped, reloaded
RCK=("${RC[@]:0:5}" --quiet)
run "${RC[@]}" --json tf.json || fail "flow with the topology file"
run "${RCK[@]}" --set topology.builder=fat-tree --set topology.fat-tree.npus_per_leaf=8 \
    --set topology.fat-tree.spines=4 --set topology.fat-tree.link_bandwidth=50 \
    --set topology.fat-tree.link_latency=1000 --set topology.fat-tree.oversubscription=3 --json tk.json \
    || fail "flow with topology.* keys"
[ "$(ps tf.json sim_time_ps)" = "$(ps tk.json sim_time_ps)" ] \
    && pass "topology.fat-tree.* keys = the topology file ($(ps tk.json sim_time_ps) ps)" || fail "topology keys vs file"
printf '{"builder": "fat-tree", "npus_per_leaf": 8, "spines": 2, "link_bandwidth": 50, "link_latency": 1000,\n "oversubscription": 3}\n' > ft2.json
run "${RCK[@]}" --topology ft2.json --json t2f.json || fail "flow with 2 spines"
run "${RC[@]}" --set topology.fat-tree.spines=2 --json t2k.json --dump-scenario t2.scenario.json || fail "--set spines"
run --scenario t2.scenario.json --json t2r.json || fail "topology reload"
[ "$(ps t2f.json sim_time_ps)" = "$(ps t2k.json sim_time_ps)" ] && [ "$(ps t2k.json sim_time_ps)" = "$(ps t2r.json sim_time_ps)" ] \
    && [ "$(ps t2k.json sim_time_ps)" != "$(ps tf.json sim_time_ps)" ] \
    && pass "--set topology.fat-tree.spines=2 over the file = a file with 2 spines = its dump reloaded ($(ps t2k.json sim_time_ps) ps)" \
    || fail "spines override: $(ps t2f.json sim_time_ps) $(ps t2k.json sim_time_ps) $(ps t2r.json sim_time_ps)"
grep -q '"spines": 2' t2.scenario.json && pass "the dump holds the builder's keys" || fail "topology dump"
expect_fail "unknown builder key" "--set topology.fat-tree.spine: not a key of builder fat-tree; expected" \
    run "${RC[@]}" --set topology.fat-tree.spine=2
expect_fail "another builder's keys" "rail: keys of builder rail, but the builder is fat-tree" \
    run "${RC[@]}" --set topology.rail.spines=2
expect_fail "unknown builder" "--set topology.torus9.x: expected topology.BUILDER.KEY with BUILDER one of" \
    run "${RC[@]}" --set topology.torus9.x=1
expect_fail "bad builder value" "--set topology.fat-tree.spines: " run "${RC[@]}" --set topology.fat-tree.spines=-1

# --- --help-config comes from the key tables
hc=$("$CS_BIN" run --help-config)
for k in "== run.*" "comm-streams" "== plan.*" "virtual-stages" "== network.*" "== system.*" "all-reduce-implementation" \
    "== memory.*" "== comm-groups.NAME" "== backend.flow.*" "== topology.*" "failed_links" "npus_per_leaf" "== model.transformer.*" "== model.dlrm.*"; do
    case "$hc" in *"$k"*) ;; *) fail "--help-config lacks $k"; continue ;; esac
done
pass "--help-config lists every section"
# a section given as a file's path (relative to the scenario file's directory), as the flags give it
mkdir -p scf/cfg
printf 'topology: [ Ring, Switch ]\nnpus_count: [ 4, 4 ]\nbandwidth: [ 100, 50 ]\nlatency: [ 500, 1000 ]\n' > scf/cfg/n.yml
cat > scf/cfg/s.json <<'J'
{ "scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,
  "preferred-dataset-splits": 1, "collective-optimization": "localBWAware", "local-mem-bw": 1600,
  "all-reduce-implementation": [ "ring", "ring" ] }
J
"$CS_MKTRACE" scf/ar.et "1 COLL ctype=0 size=1048576" || fail "mktrace scf"
echo '{"clustersim-scenario": 1, "network": "cfg/n.yml", "system": "cfg/s.json", "run": {"workload": "ar.et"}}' > scf/s.json
"$CS_BIN" run --network-configuration=scf/cfg/n.yml --system-configuration=scf/cfg/s.json \
    --workload-configuration=scf/ar.et --json scf_flags.json --quiet 2> e.txt || fail "flags run: $(cat e.txt)"
"$CS_BIN" run --scenario scf/s.json --json scf_file.json --quiet 2> e.txt || fail "scenario with file sections: $(cat e.txt)"
python3 - scf_flags.json scf_file.json <<'PY' && pass "sections as file paths: the flags' result to the ps" || fail "file sections differ"
import json, sys
a, b = (json.load(open(f))["sim_time_ps"] for f in sys.argv[1:])
assert a == b and a > 0, (a, b)
PY
echo '{"clustersim-scenario": 1, "network": "cfg/none.yml"}' > scf/bad.json
expect_fail "a missing section file" "scf/bad.json: network: scf/cfg/none.yml|cannot open" "$CS_BIN" run --scenario scf/bad.json
# run.topology (the earlier name of a topology file) naming a missing file: the scenario file and the key
# named first (fuzz_scenario's finding, fuzz/regress/scenario/run_topology_missing_file_unnamed)
echo '{"clustersim-scenario": 1, "run": {"topology": "none.json"}}' > scf/bad3.json
expect_fail "run.topology naming a missing file" "scf/bad3.json: run.topology: scf/none.json: cannot open" \
    "$CS_BIN" run --scenario scf/bad3.json
expect_fail "--set run.topology naming a missing file" "--set run.topology: none.json: cannot open" \
    "$CS_BIN" run --set run.topology=none.json
echo '{"clustersim-scenario": 1, "network": 5}' > scf/bad2.json
expect_fail "a section neither keys nor a path" "network: expected an object of keys or the path of a file" \
    "$CS_BIN" run --scenario scf/bad2.json
finish
