#!/usr/bin/env bash
# cli_deadlock.sh -- deadlock reports (issue 11, item 6): the first line names
# the cycle of waits, the cycle's members are the ones worked out by hand, the
# victims come after it and the remedy last, nothing is cut off.
. "$(dirname "$0")/lib_cli.sh"
: "${CS_MKTRACE:?}"
cd "$CS_TMP" || exit 1
printf 'topology: [ Switch ]\nnpus_count: [ 4 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' > net4.yml
printf 'topology: [ Ring ]\nnpus_count: [ 2 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' > net2.yml
# one chunk per collective, one admitted per dimension queue
printf '{"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,
 "preferred-dataset-splits": 1, "all-reduce-implementation": ["ring"], "all-gather-implementation": ["ring"],
 "reduce-scatter-implementation": ["ring"], "all-to-all-implementation": ["ring"],
 "collective-optimization": "baseline", "local-mem-bw": 1600}\n' > sys.json
sed 's/"active-chunks-per-dimension": 1/"active-chunks-per-dimension": 2/' sys.json > sys2.json
printf '{"1": [0, 1, 2, 3], "2": [0, 1, 2, 3]}\n' > groups.json

# Two communicators over the same 4 ranks; ranks 0 and 1 issue the all-reduce
# of communicator 1 first, ranks 2 and 3 that of communicator 2.  With two
# comm streams every rank issues both at once; its dimension queue admits the
# first and queues the second.  By hand: rank 0's chunk of communicator 1
# runs and needs rank 2's, queued behind rank 2's chunk of communicator 2,
# which needs rank 0's, queued behind rank 0's chunk of communicator 1: the
# cycle is ranks 0 and 2, four chunks; ranks 1 and 3 wait on it (victims).
A="1 COLL ctype=0 size=1048576 pg=1; 2 COLL ctype=0 size=1048576 pg=2"
B="1 COLL ctype=0 size=1048576 pg=2; 2 COLL ctype=0 size=1048576 pg=1"
"$CS_MKTRACE" --ranks q "$A" "$A" "$B" "$B" || fail "mktrace q"
Q=(run --workload-configuration=q --network-configuration=net4.yml --comm-group-configuration=groups.json)
out=$("$CS_BIN" "${Q[@]}" --system-configuration=sys.json --comm-streams 2 2>&1); rc=$?
[ "$rc" -eq 1 ] || fail "queue cycle: exit $rc, expected 1"
first=$(printf '%s\n' "$out" | head -1)
case "$first" in
*"a cycle of waits between the dimension queues of ranks 0 and 2, which admitted the chunks of ALL_REDUCE#0 of communicator 1 and ALL_REDUCE#0 of communicator 2 in different orders")
    pass "queue cycle: the first line names it" ;;
*) fail "queue cycle: first line: $first" ;;
esac
[ "${#first}" -lt 1000 ] && pass "queue cycle: first line short (${#first})" || fail "queue cycle: first line ${#first} chars"
cycle=$(printf '%s\n' "$out" | sed -n '/^the cycle of waits/,/close a cycle/p' | sed -n 's/^  \(rank [0-9]*.s chunk 0 of ALL_REDUCE#0 of communicator [12]\) (phase 1 of 1, \([a-z]*\).*/\1 \2/p' | tr '\n' ';')
want="rank 0's chunk 0 of ALL_REDUCE#0 of communicator 1 running;rank 2's chunk 0 of ALL_REDUCE#0 of communicator 1 waiting;rank 2's chunk 0 of ALL_REDUCE#0 of communicator 2 running;rank 0's chunk 0 of ALL_REDUCE#0 of communicator 2 waiting;rank 0's chunk 0 of ALL_REDUCE#0 of communicator 1 running;"
[ "$cycle" = "$want" ] && pass "queue cycle: members by hand" || fail "queue cycle: members: $cycle"
# order: cycle, victims (ranks 1 and 3), remedy last
order=$(printf '%s\n' "$out" | grep -n -e '^the cycle of waits' -e '^ranks waiting on the cycle' -e '^remedy:' | cut -d: -f2 | tr '\n' '|')
[ "$order" = "the cycle of waits (each line waits for the next)|ranks waiting on the cycle (victims)|remedy|" ] \
    && pass "queue cycle: cycle, victims, remedy" || fail "queue cycle: sections $order"
victims=$(printf '%s\n' "$out" | sed -n '/^ranks waiting/,/^remedy/p' | grep -o "^  rank [0-9]*" | tr -d ' ' | tr '\n' ,)
[ "$victims" = "rank1,rank3," ] && pass "queue cycle: victims 1 and 3" || fail "queue cycle: victims $victims"
case "$out" in *"set communicator-queues to per-communicator (in the system file, or --set system.communicator-queues=per-communicator;"*"raise active-chunks-per-dimension in the system file (now 1)"*"--comm-streams 1 (now 2)"*)
    pass "queue cycle: remedy (per-communicator queues first)" ;; *) fail "queue cycle: remedy missing: $out" ;; esac
[ "$(printf '%s\n' "$out" | tail -1 | cut -c1-24)" = "  - or --comm-streams 1 " ] && pass "queue cycle: not cut (ends with the remedy's last line)" \
    || fail "queue cycle: last line $(printf '%s\n' "$out" | tail -1)"
# the first remedy as the report words it, on the command line: no cycle
"$CS_BIN" "${Q[@]}" --system-configuration=sys.json --comm-streams 2 --set system.communicator-queues=per-communicator \
    --quiet >/dev/null 2>&1 && pass "queue cycle: --set system.communicator-queues=per-communicator finishes" \
    || fail "queue cycle: the per-communicator remedy does not finish"
# the remedy works: two chunks per queue finish
"$CS_BIN" "${Q[@]}" --system-configuration=sys2.json --comm-streams 2 --quiet >/dev/null 2>&1 \
    && pass "queue cycle: active-chunks-per-dimension 2 finishes" || fail "queue cycle: the remedy does not finish"

# The system's communicator-queues per-communicator (a queue per communicator
# and dimension, as NCCL's stream per communicator): the two all-reduces no
# longer share a queue, both run at once and the traces finish -- on the
# congestion-unaware backend in the time one of them takes alone.
sed 's/"local-mem-bw": 1600}/"local-mem-bw": 1600, "communicator-queues": "per-communicator"}/' sys.json > syspc.json
"$CS_MKTRACE" one.et "1 COLL ctype=0 size=1048576 pg=1" || fail "mktrace one"
"$CS_BIN" "${Q[@]}" --system-configuration=syspc.json --comm-streams 2 --json pc.json --quiet 2> epc \
    && "$CS_BIN" run --workload-configuration=one.et --network-configuration=net4.yml \
        --comm-group-configuration=groups.json --system-configuration=sys.json --json one.json --quiet 2>> epc \
    && [ -n "$(grep -o '"sim_time_ns": [0-9]*' pc.json)" ] \
    && [ "$(grep -o '"sim_time_ns": [0-9]*' pc.json)" = "$(grep -o '"sim_time_ns": [0-9]*' one.json)" ] \
    && pass "per-communicator queues: no cycle; both at once take one's time" \
    || fail "per-communicator queues: $(cat epc) $(grep -o '"sim_time_ns": [0-9]*' pc.json one.json)"
expect_fail "communicator-queues refused by value" "communicator-queues" \
    "$CS_BIN" "${Q[@]}" --system-configuration=sys.json --set system.communicator-queues=private

# The same traces with one comm stream: each rank's second collective waits
# for the stream its first holds; the cycle runs through the streams.
expect_fail "stream cycle" "a cycle of waits through the communication streams of ranks 0 and 2 (--comm-streams 1)|is ready, but every communication stream of its rank|raise --comm-streams (now 1)" \
    "$CS_BIN" "${Q[@]}" --system-configuration=sys.json --comm-streams 1

# Point to point: each rank receives from the other before it sends to it.
"$CS_MKTRACE" --ranks p "1 RECV size=8 src=1 tag=1; 2 SEND size=8 dst=1 tag=2 data=1" \
    "1 RECV size=8 src=0 tag=2; 2 SEND size=8 dst=0 tag=1 data=1" || fail "mktrace p"
out=$("$CS_BIN" run --workload-configuration=p --network-configuration=net2.yml 2>&1); rc=$?
[ "$rc" -eq 1 ] || fail "p2p cycle: exit $rc, expected 1"
case "$(printf '%s\n' "$out" | head -1)" in
*"a cycle of waits between the point-to-point messages of ranks 0 and 1: each waits to receive before it sends"*)
    pass "p2p cycle: the first line names it" ;;
*) fail "p2p cycle: first line: $(printf '%s\n' "$out" | head -1)" ;;
esac
steps=$(printf '%s\n' "$out" | sed -n '/^the cycle of waits/,/close a cycle/p' | grep -o "^  rank [0-9]'s node [0-9] (COMM_[A-Z]*" | tr -d ' ' | tr '\n' ';')
[ "$steps" = "rank0'snode1(COMM_RECV;rank1'snode2(COMM_SEND;rank1'snode1(COMM_RECV;rank0'snode2(COMM_SEND;rank0'snode1(COMM_RECV;" ] \
    && pass "p2p cycle: receive, send, receive, send" || fail "p2p cycle: steps $steps"
case "$out" in *"no setting removes it"*) pass "p2p cycle: remedy (the traces)" ;; *) fail "p2p cycle: remedy: $out" ;; esac

# No cycle: a receive nobody sends to is named as the cause, on the first line.
"$CS_MKTRACE" --ranks n "1 RECV size=8 src=1 tag=1" "1 COMP dur=1" || fail "mktrace n"
expect_fail "no cycle" "n.0.et|rank 1 never sent them|no cycle of waits" \
    "$CS_BIN" run --workload-configuration=n --network-configuration=net2.yml
finish
