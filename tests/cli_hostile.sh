#!/usr/bin/env bash
# cli_hostile.sh -- the adversarial sweep of the command line of 2026-11-28
# (docs/testing.md, "Adversarial catalogue"), one case per defect found and
# fixed; each fails with the binary before its fix:
#  - a trace set written over an earlier one and failing part-way (a
#    directory in the way of one rank) is removed whole: generate and synth
#    stopped removing at the first name they could not unlink, leaving the
#    earlier set's later ranks (and synth its earlier statistics) beside
#    nothing of this run's;
#  - Ctrl-C (SIGINT) while generate or synth writes a trace set: exit 130
#    and nothing under the prefix (generate had no handler and died with a
#    truncated rank file among complete ones; synth left the ranks written so
#    far, mixed with an earlier set's);
#  - a scenario value (a flag's or --set's) that is not UTF-8 is refused
#    naming the flag or key: jansson makes no JSON string of it, and the value
#    was dropped without a word (--set run.backend=flo\xffw ran analytical,
#    exit 0; a --workload-configuration or --model path said the flag was
#    missing);
#  - text from outside that is not UTF-8 going into a result file (a path, a
#    trace's string quoted by an error) is written with U+FFFD for the bad
#    bytes: jansson made no string of it, so a sweep point's error reason was
#    empty, partition's summary had no "input", and synth failed after
#    writing every rank ("cannot format the JSON");
#  - --fsdp with --zero 1 or 2 is refused as --use-distributed-optimizer with
#    --zero 3 is: it ran ZeRO-3 without a word;
#  - a network of exactly 2^32 NPUs (65536 x 65536) is refused by the
#    network reader: it passed, and every later stage saw 0 ranks (uint32_t),
#    "workload ...: expected at least one rank", naming collective's scratch
#    trace;
#  - Ctrl-C while rescale infers the plan from a source it cannot read (a
#    FIFO nobody writes: each open the signal broke only refused that
#    candidate plan, and the next one blocked again) stops it, exit 130;
#    run reading such a trace exits 130 too (said "cannot open workload
#    trace: Interrupted system call", exit 1);
#  - a run far larger than the machine's memory is refused at once, naming
#    it (the kernel's out-of-memory killer, or minutes of paging first);
#  - a model file's name longer than 63 bytes, or with a control character,
#    is refused (it was cut without a word; an escape sequence in it drove
#    the terminal).
# The second sweep of 2026-11-28 (HTML reports, model files and layouts, text
# workloads, inspect and rescale):
#  - SIGTERM or Ctrl-C while generate writes (or train builds) one rank of a
#    huge valid model (10^8 layers) stops it at once: the signal was seen only
#    between ranks, so `timeout` could not stop generate for hours while the
#    rank's file grew (55 GB in 10 minutes), and train waited ~10 s a rank;
#  - inspect said a trace was valid (exit 0) that run refuses on any network:
#    a collective without a comm_type or with one outside 0..9, a send
#    without comm_dst or to a negative rank, a receive without comm_src or
#    from a negative rank;
#  - a sweep knob's value with a control character (or U+FFFE/U+FFFF) made
#    the heatmap's .svg file malformed XML (a browser shows a parse error
#    instead of the chart); the run report cut the workload path at 199
#    bytes without a word;
#  - search --quiet where no plan can run said "see the refusals above", and
#    --quiet prints none: the counts and the first reason are now in the error;
#  - a --layout character that does not print (a control, a byte of a UTF-8
#    character) was quoted raw in the error; now as \xHH.
. "$(dirname "$0")/lib_cli.sh"
cd "$CS_TMP" || exit 1
printf 'topology: [ Switch ]\nnpus_count: [ 4 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' > n4.yml
# left PREFIX: the files under PREFIX.* that exist (regular files), sorted, on one line
left() { find . -maxdepth 1 -type f -name "$1.*" | sed 's|^\./||' | sort | tr '\n' ' ' | sed 's/ $//'; }

# --- a failed write over an earlier set leaves none of either -------------------------
G=("$CS_BIN" generate --model gpt3-6.7b --tp 2 --pp 2 --global-batch 4 --quiet)
"${G[@]}" --out old 2> e_gen.err || fail "generate: $(cat e_gen.err)"
rm old.1.et && mkdir old.1.et
expect_fail "generate over an earlier set, rank 1 a directory" "old.1.et: cannot create trace file" \
    "${G[@]}" --micro-batch 2 --out old
got=$(left old)
if [ -z "$got" ]; then pass "generate: nothing of the earlier set left"; else fail "generate left: $got"; fi
"${G[@]}" --out src 2> e_gen.err || fail "generate: $(cat e_gen.err)"
"$CS_BIN" synth --workload-configuration=src --out syn --quiet 2> e_syn.err || fail "synth: $(cat e_syn.err)"
[ -f syn.synth.json ] || fail "synth wrote no syn.synth.json"
rm syn.1.et && mkdir syn.1.et
expect_fail "synth over an earlier set, rank 1 a directory" "syn.1.et: cannot write" \
    "$CS_BIN" synth --workload-configuration=src --out syn --seed 7 --quiet
got=$(left syn)
if [ -z "$got" ]; then pass "synth: nothing of the earlier set left (ranks, synth.json)"; else fail "synth left: $got"; fi

# --- a model name longer than its 63 bytes: refused (it was cut without a word) ------------
printf 'topology: [ Switch ]\nnpus_count: [ 1 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' > n1.yml
printf '{"name": "%s", "layers": 2, "hidden": 64, "heads": 1, "vocab": 10, "seq": 8}\n' "$(printf 'x%.0s' $(seq 64))" > longname.json
expect_fail "a model name of 64 bytes" "longname.json:1: name: expected at most 63 bytes, got 64" \
    "$CS_BIN" train --model longname.json --network-configuration=n1.yml --global-batch 1 --quiet
# ... or with a terminal escape in it (it coloured train's model line)
printf '{"name": "\\u001b[31mRED", "layers": 2, "hidden": 64, "heads": 1, "vocab": 10, "seq": 8}\n' > escname.json
expect_fail "a model name with an escape character" \
    "escname.json:1: name: expected printable text, got the control character \\x1b at byte 1" \
    "$CS_BIN" train --model escname.json --network-configuration=n1.yml --global-batch 1 --quiet

# --- Ctrl-C while a trace set is written -------------------------------------------
# interrupted NAME PREFIX cmd...: cmd gets SIGINT once it wrote PREFIX.0.et; expects exit 130, "stopped"
# on stderr and no file PREFIX.* left (a background job ignores SIGINT unless env resets it)
interrupted() {
    local name=$1 pre=$2; shift 2
    local ds=()
    env --default-signal=INT true 2>/dev/null && ds=(env --default-signal=INT)
    : > e_mark; sleep 0.01
    "${ds[@]}" nice -n 10 "$@" > /dev/null 2> e_int.err &
    local pid=$! t=0
    while ! [ "$pre.0.et" -nt e_mark ] && kill -0 "$pid" 2>/dev/null && [ $t -lt 20000 ]; do sleep 0.005; t=$((t + 1)); done
    kill -INT "$pid" 2>/dev/null
    wait "$pid"
    local rc=$? got
    got=$(left "$pre")
    if [ "$rc" -ne 130 ]; then fail "$name: exit $rc, expected 130; $(cat e_int.err)"
    elif ! grep -q 'stopped after' e_int.err; then fail "$name: message: $(cat e_int.err)"
    elif [ -n "$got" ]; then fail "$name: left $(echo "$got" | wc -w) files: $(echo "$got" | cut -c1-200)"
    else pass "$name"; fi
}
"$CS_BIN" generate --model gpt3-175b --tp 8 --pp 8 --dp 16 --recompute full --sp --no-memory-check --out big \
    --quiet 2> e_gen.err || fail "generate: $(cat e_gen.err)"
interrupted "generate interrupted over an earlier set" big \
    "$CS_BIN" generate --model gpt3-175b --tp 8 --pp 8 --dp 16 --recompute full --sp --no-memory-check --micro-batch 2 \
    --out big --quiet
"$CS_BIN" generate --model gpt3-6.7b --tp 8 --pp 4 --dp 32 --global-batch 256 --no-memory-check --out s1k --quiet \
    2> e_gen.err || fail "generate: $(cat e_gen.err)"
interrupted "synth interrupted" syk "$CS_BIN" synth --workload-configuration=s1k --out syk --quiet

# --- scenario values that are not UTF-8 ---------------------------------------------
"$CS_MKTRACE" --ranks one "1 COMP dur=5" "1 COMP dur=5" "1 COMP dur=5" "1 COMP dur=5"
R=("$CS_BIN" run --workload-configuration=one --network-configuration=n4.yml --quiet)
expect_fail "--set run.backend=flo\\xffw (ran analytical, exit 0)" "--set run.backend: 'flo\\xffw' is not valid UTF-8" \
    "${R[@]}" --set "$(printf 'run.backend=flo\xffw')"
expect_fail "--set run.slow-ranks=0:2,\\xfe (the value dropped: no stragglers)" \
    "--set run.slow-ranks: '0:2,\\xfe' is not valid UTF-8" "${R[@]}" --set "$(printf 'run.slow-ranks=0:2,\xfe')"
for r in 0 1 2 3; do cp one.$r.et "$(printf 'u\xff').$r.et"; done
expect_fail "--workload-configuration not UTF-8 (said: expected Chakra traces or a model)" \
    "--workload-configuration 'u\\xff': not valid UTF-8" \
    "$CS_BIN" run --workload-configuration="$(printf 'u\xff')" --network-configuration=n4.yml --quiet
expect_fail "--model FILE not UTF-8 (said: --model is required)" "--model 'm\\xff.json': not valid UTF-8" \
    "$CS_BIN" train --model "$(printf 'm\xff.json')" --network-configuration=n4.yml --quiet

# --- text that is not UTF-8 into result files -------------------------------------------
"$CS_MKTRACE" --ranks pgx "1 COLL ctype=0 size=8 pg=$(printf 'a\xff')" "1 COLL ctype=0 size=8" \
    "1 COLL ctype=0 size=8" "1 COLL ctype=0 size=8"
cat > sys1.json <<'J'
{ "scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,
  "preferred-dataset-splits": 1, "collective-optimization": "localBWAware", "local-mem-bw": 1600,
  "all-reduce-implementation": [ "ring" ] }
J
printf '{"clustersim-scenario": 1, "network": "n4.yml", "system": "sys1.json", "run": {"workload": "pgx"}}' > pgx.json
printf '{"clustersim-sweep": 1, "scenario": "pgx.json", "grid": {"network.latency": [[100], [200]]}}' > pgxs.json
# every point fails: the sweep writes the results, then exits 1 saying so
if "$CS_BIN" sweep pgxs.json --out pgxo -j 1 --quiet --no-progress 2> e_sw.err; then
    fail "sweep: every point failed, yet exit 0"
elif grep -q "pgxs.json: every point with a result failed (2 of 2); pgxo/results.csv gives" e_sw.err; then
    pass "sweep: every point failed: exit 1 naming the spec and results.csv"
else fail "sweep: $(cat e_sw.err)"; fi
# shards judge their own points: point 0 (pgx) fails, point 1 (okw) runs; shard 0 exits 1 and shard 1
# exits 0 in either order (a review found shard 0 exiting 0 when shard 1 had logged its success first)
"$CS_MKTRACE" --ranks okw "1 COLL ctype=0 size=8" "1 COLL ctype=0 size=8" "1 COLL ctype=0 size=8" "1 COLL ctype=0 size=8"
printf '{"clustersim-sweep": 1, "scenario": "pgx.json", "grid": {"run.workload": ["pgx", "okw"]}}' > shs.json
for order in "0 1" "1 0"; do
    rm -rf sho; got=""
    for sh in $order; do
        "$CS_BIN" sweep shs.json --out sho --shard "$sh/2" -j 1 --quiet --no-progress 2> e_sh.err; got="$got $sh:$?"
    done
    "$CS_BIN" sweep shs.json --out sho --merge --quiet --no-progress 2> e_sh.err; got="$got merge:$?"
    case "$got" in *"0:1"*"1:0"*"merge:0"|*"1:0"*"0:1"*"merge:0") pass "sweep shards in the order $order:$got" ;;
        *) fail "sweep shards in the order $order:$got (expected shard 0 exit 1, shard 1 and --merge 0)" ;; esac
done
if [ "$(grep -c "error,0,,.*pg_name: expected.*got \"\"a$(printf '\xef\xbf\xbd')\"\"" pgxo/results.csv)" = 2 ]; then
    pass "sweep: a point's error quoting a trace's bytes that are not UTF-8 is kept (was empty)"
else fail "sweep: error reasons: $(cut -c1-300 pgxo/results.csv)"; fi
printf 'activations,4\n0,1\n2,3\n' > "$(printf 'act\xff.txt')"
"$CS_BIN" partition --activations "$(printf 'act\xff.txt')" --workers 2 --json part.json --quiet 2> e_pa.err ||
    fail "partition: $(cat e_pa.err)"
if grep -q "\"input\": \"act$(printf '\xef\xbf\xbd').txt\"" part.json; then pass "partition: the input path in summary.json"
else fail "partition: summary.json without its input: $(head -3 part.json)"; fi
for r in 0 1; do cp src.$r.et "$(printf 'src\xff').$r.et"; done
"$CS_BIN" synth --workload-configuration="$(printf 'src\xff')" --npus 2 --out synx --quiet 2> e_sy.err ||
    fail "synth from a prefix that is not UTF-8: $(cat e_sy.err)"
if grep -q "\"source\": \"src$(printf '\xef\xbf\xbd')\"" synx.synth.json 2>/dev/null; then pass "synth: the source prefix in synth.json"
else fail "synth: synth.json: $(head -3 synx.synth.json 2>&1)"; fi

# --- conflicting plan flags -----------------------------------------------------------
printf 'topology: [ Switch ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' > n8.yml
for z in 1 2; do
    expect_fail "--fsdp --zero $z (ran ZeRO-3)" "--fsdp: is ZeRO-3|expected --zero 3 or unset, got $z" \
        "$CS_BIN" train --model gpt3-6.7b --tp 2 --dp 4 --fsdp --zero $z --network-configuration=n8.yml --quiet
done
expect_fail "plan.zero 1 then plan.fsdp by --set" "plan.fsdp: is ZeRO-3|expected plan.zero 3 or unset, got 1" \
    "$CS_BIN" train --model gpt3-6.7b --tp 2 --dp 4 --set plan.zero=1 --set plan.fsdp=true --network-configuration=n8.yml --quiet
"$CS_BIN" train --model gpt3-6.7b --tp 2 --dp 4 --fsdp --zero 3 --network-configuration=n8.yml --quiet 2> e_fs.err ||
    fail "--fsdp --zero 3: $(cat e_fs.err)"

# --- 2^32 NPUs ---------------------------------------------------------------------------
printf 'topology: [ Ring, Ring ]\nnpus_count: [ 65536, 65536 ]\nbandwidth: [ 1, 1 ]\nlatency: [ 1, 1 ]\n' > n2p32.yml
expect_fail "run on 65536 x 65536 NPUs (said: expected at least one rank)" \
    "n2p32.yml:2: npus_count: expected at most 4294967295 NPUs in total, got 65536 x 65536 = 4294967296" \
    "$CS_BIN" run --workload-configuration=one.0.et --network-configuration=n2p32.yml --quiet
sed 's/"ring" \]/"ring", "ring" ]/' sys1.json > sys2.json
expect_fail "collective on 65536 x 65536 NPUs (named its scratch trace)" "n2p32.yml:2: npus_count" \
    "$CS_BIN" collective --network-configuration=n2p32.yml --system-configuration=sys2.json -b 1K -e 1K --quiet
# 2^32 - 1 NPUs of one trace, every rank simulated: 276 bytes per rank at least (results 80, the
# traces' rank table 8, exec and system state), 1.18 TB: refused before the traces are read, naming the
# machine's memory.  It took 16 GB and two minutes before exit 3 with 2^31, and 2^26 went to the kernel's
# out-of-memory killer (signal 9, no message) at 24 GB
printf 'topology: [ Switch ]\nnpus_count: [ 4294967295 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' > nmax.yml
expect_fail "2^32 - 1 NPUs, every rank: refused before reading the traces" \
    "simulating every one of the 4294967295 ranks needs at least|more than this machine's memory|--symmetry off was given" \
    "$CS_BIN" run --workload-configuration=one.0.et --network-configuration=nmax.yml --symmetry off --quiet --no-progress
# The same checks on a machine made small (CS_MACHINE_BYTES): 2^18 NPUs of one all-reduce on inSwitch
# (every rank simulated: the switch waits for every member) need 268 bytes per rank before the traces'
# nodes, 70,254,592 B: on 50 MB the engine refuses the run at its start (exit 1); on 80 MB that passes,
# and the collective's per-member state is an allocation past the machine (exit 3, the allocator's
# check); on 400 MB it runs.  No results either time
printf 'topology: [ Switch ]\nnpus_count: [ 262144 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' > n2p18.yml
printf '{"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,\n "preferred-dataset-splits": 1, "collective-optimization": "localBWAware", "local-mem-bw": 1600,\n "all-reduce-implementation": ["inSwitch"]}\n' > sysis.json
"$CS_MKTRACE" ar1m.et "1 COLL ctype=0 size=1048576" || fail "mktrace"
M=("$CS_BIN" run --workload-configuration=ar1m.et --network-configuration=n2p18.yml --system-configuration=sysis.json
   --quiet --no-progress --out mo)
expect_fail "a machine of 50 MB: 2^18 ranks refused at the run's start" \
    "simulating every one of the 262144 ranks needs at least|per rank, before the traces|symmetry does not apply" \
    env CS_MACHINE_BYTES=50000000 "${M[@]}"
[ -e mo/summary.json ] && fail "50 MB: results left"
expect_exit 3 "a machine of 80 MB: the allocation past it refused" \
    "would pass this machine's memory (80000000 bytes" env CS_MACHINE_BYTES=80000000 "${M[@]}"
[ -e mo/summary.json ] && fail "80 MB: results left"
CS_MACHINE_BYTES=400000000 "${M[@]}" 2> e_mb.err && [ -s mo/summary.json ] && pass "a machine of 400 MB: it runs" ||
    fail "400 MB: $(cat e_mb.err)"

# --- a failed run leaves no earlier --json summary behind (as --out, --report, cluster and serve) ---
"$CS_BIN" run --workload-configuration=one --network-configuration=n4.yml --quiet --json keep.json 2> e_js.err ||
    fail "run --json: $(cat e_js.err)"
[ -s keep.json ] || fail "run wrote no keep.json"
expect_fail "a failed run with --json over an earlier summary" "nope" \
    "$CS_BIN" run --workload-configuration=nope --network-configuration=n4.yml --quiet --json keep.json
if [ -e keep.json ]; then fail "the earlier keep.json outlived the failed run"; else pass "the earlier --json summary is removed"; fi
# ... but a run refused while its flags and files are read has not checked its outputs against its
# inputs: it removes nothing (a review found that this deleted the inputs --json or --report named)
printf '{"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,\n "preferred-dataset-splits": 1, "collective-optimization": "localBWAware", "local-mem-bw": 1600,\n "all-reduce-implementation": ["ring"]}\n' > sysk.json
cp n4.yml n4k.yml; cp one.0.et onek.0.et
expect_fail "--scenario missing, --json naming the network file" "missing.json" \
    "$CS_BIN" run --scenario missing.json --workload-configuration=one --network-configuration=n4k.yml --json n4k.yml --quiet
expect_fail "a missing network file, --report naming the system file" "missing.yml" \
    "$CS_BIN" run --workload-configuration=one --network-configuration=missing.yml --system-configuration=sysk.json \
    --report sysk.json --quiet
expect_fail "--out that cannot be made, --json naming a rank trace" "--out" \
    "$CS_BIN" run --workload-configuration=one --network-configuration=n4.yml --out /dev/null/x --json one.0.et --quiet
expect_fail "a refused --set after --json over an earlier summary" "run.backend" \
    "$CS_BIN" run --workload-configuration=one --network-configuration=n4.yml --quiet --json keep.json --set run.backend=nope
if [ -s n4k.yml ] && [ -s sysk.json ] && [ -s one.0.et ] && cmp -s one.0.et onek.0.et; then
    pass "a run refused at its flags and files deletes none of its inputs that --json or --report named"
else fail "inputs deleted: $(ls -la n4k.yml sysk.json one.0.et 2>&1)"; fi

# --- Ctrl-C while rescale infers the plan ------------------------------------------------
mkfifo fifo.0.et && for r in 1 2 3; do cp one.$r.et fifo.$r.et; done
ds=()
env --default-signal=INT true 2>/dev/null && ds=(env --default-signal=INT)
# fifo_stop NAME NEEDLE cmd...: cmd blocks opening fifo.0.et; Ctrl-C must end it with exit 130.  SIGINT
# is sent again every 0.5 s, as a user presses Ctrl-C again: on a loaded machine the first one can
# arrive before the program reaches the open it is to break (the flag is then set, and the open
# blocks until the next one)
fifo_stop() {
    local name=$1 needle=$2 t=0 rc pid
    shift 2
    "${ds[@]}" "$@" > /dev/null 2> e_fifo.err &
    pid=$!
    sleep 1
    while kill -0 "$pid" 2>/dev/null && [ $t -lt 100 ]; do
        [ $((t % 5)) = 0 ] && kill -INT "$pid" 2>/dev/null
        sleep 0.1
        t=$((t + 1))
    done
    if kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid"
        wait "$pid"
        fail "$name: still running 10 s after Ctrl-C"
        return
    fi
    wait "$pid"
    rc=$?
    if [ "$rc" = 130 ] && grep -q "$needle" e_fifo.err; then pass "$name: Ctrl-C stops it (exit 130)"
    else fail "$name: exit $rc: $(cat e_fifo.err)"; fi
}
fifo_stop "rescale from a FIFO" "rescale stopped" "$CS_BIN" rescale --workload-configuration=fifo --to-dp 8 --out fifo_r
fifo_stop "run from a FIFO" "interrupted while reading the traces" \
    "$CS_BIN" run --workload-configuration=fifo --network-configuration=n4.yml --quiet

# --- a signal while one rank of a huge plan is generated -----------------------------------
# stop_soon NAME SIG RC NEEDLE PREFIX cmd...: cmd gets SIG after 1 s; it must end within 5 s with exit RC,
# NEEDLE on stderr and no file PREFIX.* left (it was seen only between ranks: minutes to hours here)
stop_soon() {
    local name=$1 sig=$2 want=$3 needle=$4 pre=$5 t=0 rc pid
    shift 5
    "${ds[@]}" "$@" > /dev/null 2> e_stop.err &
    pid=$!
    sleep 1
    kill -"$sig" "$pid" 2>/dev/null
    while kill -0 "$pid" 2>/dev/null && [ $t -lt 50 ]; do sleep 0.1; t=$((t + 1)); done
    if kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid"
        wait "$pid"
        rm -f "$pre".*
        fail "$name: still running 5 s after SIG$sig"
        return
    fi
    wait "$pid"
    rc=$?
    if [ "$rc" = "$want" ] && grep -q "$needle" e_stop.err && [ -z "$(left "$pre")" ]; then pass "$name"
    else fail "$name: exit $rc, left: $(left "$pre"): $(cat e_stop.err)"; fi
}
printf '{"layers": 100000000, "hidden": 64, "heads": 1, "vocab": 10, "seq": 1}\n' > m_huge.json
stop_soon "generate of 10^8 layers: SIGTERM within rank 0 (timeout's signal)" TERM 143 \
    "generate stopped after writing 0 of 2 ranks (while writing rank 0)" huge \
    "$CS_BIN" generate --model m_huge.json --dp 2 --no-memory-check --out huge --quiet
stop_soon "generate of 10^8 layers: Ctrl-C within rank 0" INT 130 "generate stopped after writing 0 of 2 ranks" huge \
    "$CS_BIN" generate --model m_huge.json --dp 2 --no-memory-check --out huge --quiet
printf '{"layers": 2000000, "hidden": 64, "heads": 1, "vocab": 10, "seq": 1}\n' > m_big.json
printf 'topology: [ Switch ]\nnpus_count: [ 2 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' > n2.yml
stop_soon "train of 2 x 10^6 layers: Ctrl-C while rank 0's graph is built" INT 130 \
    "interrupted while generating the plan's graphs (0 of 2 ranks done)" none \
    "$CS_BIN" train --model m_big.json --dp 2 --no-memory-check --network-configuration=n2.yml --quiet

# --- inspect: what run refuses on any network is invalid ---------------------------------
insp_invalid() { # insp_invalid NAME SPEC NEEDLE
    "$CS_MKTRACE" ins.et "$2" || { fail "$1: cs_mktrace"; return; }
    local out rc
    out=$("$CS_BIN" inspect ins.et 2>&1); rc=$?
    case "$rc:$out" in
        1:*"validation    INVALID: ins.et: $3"*) pass "inspect: $1" ;;
        *) fail "inspect: $1: exit $rc: $(echo "$out" | grep validation)" ;;
    esac
}
insp_invalid "a collective of comm_type 99 (said valid; run: unknown)" "1 COLL ctype=99 size=8" \
    "node 1 (COMM_COLL): comm_type 99 is unknown; expected 0..9"
insp_invalid "a collective without comm_type" "1 COMP dur=1; 2 COLL size=8 data=1" \
    "node 2 (COMM_COLL): no comm_type attribute; expected a collective type (0 ALL_REDUCE .. 9 BARRIER)"
insp_invalid "a send to rank -1" "1 SEND size=8 dst=-1 tag=5" "node 1 (COMM_SEND): comm_dst -1 is not a rank; expected a rank >= 0"
insp_invalid "a send without comm_dst" "1 SEND size=8" "node 1 (COMM_SEND): no comm_dst attribute; expected the receiving rank"
insp_invalid "a receive without comm_src" "1 RECV size=8" "node 1 (COMM_RECV): no comm_src attribute; expected the sending rank"
insp_invalid "a receive from rank -3" "1 RECV size=8 src=-3" "node 1 (COMM_RECV): comm_src -3 is not a rank; expected a rank >= 0"
"$CS_MKTRACE" ins.et "1 HOSTCOLL size=8; 2 SEND size=8 dst=1 tag=3 data=1; 3 COLL ctype=9 size=0 data=2"
if "$CS_BIN" inspect ins.et 2>&1 | grep -q "validation    ok"; then pass "inspect: a host-side collective, a send, a barrier: valid"
else fail "inspect: valid trace: $("$CS_BIN" inspect ins.et 2>&1 | grep validation)"; fi

# --- reports: text that XML cannot hold, paths not cut -------------------------------------
printf '{"clustersim-scenario": 1, "network": "n4.yml", "system": "sys1.json", "run": {"workload": "one"}}' > rsc.json
printf '{"clustersim-sweep": 1, "scenario": "rsc.json", "grid": {"run.backend": ["analytical", "<b>\\u0001\\uffff</b>"], "network.latency": [[100], [200]]}}' > rsw.json
"$CS_BIN" sweep rsw.json --out rswo -j 1 --quiet --no-progress --report rswo/r.html 2> e_rsw.err || fail "sweep: $(cat e_rsw.err)"
svg=rswo/r.heatmap.svg
if [ -s $svg ] && ! grep -q "$(printf '\001')" $svg && ! grep -q "$(printf '\357\277\277')" $svg &&
   grep -q "&lt;b&gt;$(printf '\357\277\275\357\277\275')&lt;/b&gt;" $svg; then
    pass "sweep report: a knob value's control character and U+FFFF drawn as U+FFFD (the .svg is XML)"
else fail "sweep report: $(grep -a '&lt;b' $svg | head -2)"; fi
if command -v xmllint > /dev/null; then
    xmllint --noout $svg 2> e_xml.err && pass "sweep report: xmllint reads the heatmap" || fail "xmllint: $(head -3 e_xml.err)"
fi
long=$(printf 'w%.0s' $(seq 1 120))
mkdir -p "$long" && for r in 0 1 2 3; do cp one.$r.et "$long/$long.$r.et"; done
"$CS_BIN" run --workload-configuration="$long/$long" --network-configuration=n4.yml --quiet --report long.html 2> e_long.err ||
    fail "run --report: $(cat e_long.err)"
if grep -q "<td>$long/$long.&lt;rank&gt;.et</td>" long.html; then pass "run report: a 241-byte workload path whole"
else fail "run report: $(grep -a '<th>workload' long.html | cut -c1-300)"; fi

# --- search --quiet with no plan that runs ---------------------------------------------------
out=$("$CS_BIN" search --model m_huge.json --network-configuration=n8.yml --global-batch 8 --quiet 2>&1 >/dev/null); rc=$?
case "$rc:$out" in
    *"refusals above"*) fail "search --quiet: points to refusals it did not print: $out" ;;
    1:*"none of the "*" plans can run: "*" refused by the plan checks, "*" do not fit in HBM (the first: "*)
        pass "search --quiet, no plan runs: the counts and a first reason" ;;
    *) fail "search --quiet: exit $rc: $out" ;;
esac

# --- --layout: a character that does not print, named as \xHH ----------------------------------
printf '{"layers": 2, "hidden": 64, "heads": 1, "vocab": 10, "seq": 1}\n' > m_small.json
expect_fail "--layout with a control character (quoted raw)" "--layout: character 2 '\\x01': expected E (embedding)" \
    "$CS_BIN" train --model m_small.json --pp 2 --dp 4 --layout "$(printf 'E\001|tL')" --network-configuration=n8.yml --quiet
expect_fail "--layout with a UTF-8 character (half of it quoted)" "--layout: character 5 '\\xc3': expected E" \
    "$CS_BIN" train --model m_small.json --pp 2 --dp 4 --layout "$(printf 'Et|t\303\251L')" --network-configuration=n8.yml --quiet
finish
