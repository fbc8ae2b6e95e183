#!/usr/bin/env bash
# cli_custom_dim.sh -- custom graphs per dimension: an entry "custom:PREFIX"
# of an ordinary *-implementation list runs that dimension's phases as the
# Chakra ET graphs PREFIX.<i>.et, i = the position in the dimension's group
# (src/system/algo_custom.c, src/workload/custom_coll.c;
# docs/collectives.md "Custom graphs per dimension").  Times worked out by
# hand, graphs equal to the built-in ring's messages giving the ring's times
# (one chunk and two), and the errors.
#
# Conventions (docs/network.md, docs/collectives.md): 50 GB/s is read as
# GiB/s, B = 50 x 2^30 / 1e9 = 53.6870912 bytes/ns; a message of m bytes over
# h hops takes net(m) = floor(h x 500 + m / B) ns on the analytical backend.
# Built-in ring phase over n NPUs, endpoint delay d, reduction red(p) =
# 3 x floor(p / local-mem-bw) ns (local-mem-bw 262: red(262144) = 3000,
# red(131072) = 1500): a reduce-scatter of a phase of P bytes takes
# d + (n-1) (net(P/n) + d + red(P/n)), an all-gather with packets of p bytes
# d + (n-1) (net(p) + d).  A custom graph's sends and receives are bare
# messages (no endpoint delay, no reduction: the graphs state those as COMP
# nodes of duration_micros x 1000 ns); its sizes are comm_size x (phase
# size) / phase_bytes, phase_bytes being declared in the file's metadata.
. "$(dirname "$0")/lib_cli.sh"
: "${CS_MKTRACE:?}"
cd "$CS_TMP" || exit 1
S=1048576

expect_num() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: got \"$2\", expected \"$3\""; fi; }
time_ps() { grep -o '"sim_time_ps": [0-9]*' "$1/summary.json" | cut -d' ' -f2; }
finish_ns() { cut -d, -f2 "$1/ranks.csv" | sed 1d | sort -u | tr '\n' ' ' | sed 's/ $//'; }
run() { "$CS_BIN" run --quiet "$@" 2>err.txt || fail "run $*: $(cat err.txt)"; }
# Ring(4) x Ring(2): rank r is position r % 4 of its dimension-0 ring
printf 'topology: [ Ring, Ring ]\nnpus_count: [ 4, 2 ]\nbandwidth: [ 50, 50 ]\nlatency: [ 500, 500 ]\n' > r4x2.yml
# sysjson "ALGO0", "ALGO1" SPLITS
sysjson() {
    printf '{"scheduling-policy": "LIFO", "endpoint-delay": 1000, "active-chunks-per-dimension": 1,\n'
    printf ' "preferred-dataset-splits": %s, "all-reduce-implementation": [%s],\n' "$2" "$1"
    printf ' "all-gather-implementation": [%s], "reduce-scatter-implementation": [%s],\n' "$1" "$1"
    printf ' "all-to-all-implementation": [%s], "collective-optimization": "localBWAware",\n' "$1"
    printf ' "local-mem-bw": 262}\n'
}
nxt() { echo $(( ($1 + 1) % 4 )); }
prv() { echo $(( ($1 + 3) % 4 )); }
"$CS_MKTRACE" rs.et "1 COLL ctype=7 size=$S" || fail "mktrace rs.et"
"$CS_MKTRACE" ag.et "1 COLL ctype=2 size=$S" || fail "mktrace ag.et"
"$CS_MKTRACE" ar.et "1 COLL ctype=0 size=$S" || fail "mktrace ar.et"
mkdir -p cg

# 1. Reduce-scatter of S on Ring(4) x Ring(2), one chunk: RS 0 then RS 1.
# Built-in: RS 0 = 1000 + 3 (net(262144) + 1000 + 3000) with
# net(262144) = floor(500 + 4882.8125) = 5382: 1000 + 3 x 9382 = 29146;
# RS 1 (P = S/4) = 1000 + 1 x (net(131072) + 1000 + 1500) with net(131072) =
# floor(500 + 2441.40625) = 2941: 6441.  Total 35587 ns.
# The ring's messages for dimension 0 as a graph written for phase_bytes = S:
# COMP d, then three times: send S/4 to i+1, receive S/4 from i-1, COMP d+red.
ring_rs() {
    local i=$1 q=262144
    echo "GLOBAL phase_bytes=$S; 1 COMP dur=1;
      2 SEND dst=$(nxt "$i") size=$q tag=0 data=1; 3 RECV src=$(prv "$i") size=$q tag=0 data=1; 4 COMP dur=4 data=3;
      5 SEND dst=$(nxt "$i") size=$q tag=0 data=4; 6 RECV src=$(prv "$i") size=$q tag=0 data=4; 7 COMP dur=4 data=6;
      8 SEND dst=$(nxt "$i") size=$q tag=0 data=7; 9 RECV src=$(prv "$i") size=$q tag=0 data=7; 10 COMP dur=4 data=9"
}
"$CS_MKTRACE" --ranks cg/ringrs "$(ring_rs 0)" "$(ring_rs 1)" "$(ring_rs 2)" "$(ring_rs 3)" || fail "mktrace ringrs"
sysjson '"ring", "ring"' 1 > ring_ring.json
sysjson '"custom:cg/ringrs", "ring"' 1 > custom_ring.json
run --workload-configuration=rs.et --network-configuration=r4x2.yml --system-configuration=ring_ring.json --out rr
run --workload-configuration=rs.et --network-configuration=r4x2.yml --system-configuration=custom_ring.json --out cr
expect_num "built-in [ring, ring] reduce-scatter: 29146 + 6441 = 35587 ns" "$(finish_ns rr)" "35587"
expect_num "[custom ring graph, ring] reduce-scatter: the same 35587 ns" "$(finish_ns cr)" "35587"
expect_num "... to the picosecond (summary.json)" "$(time_ps cr) $(time_ps rr)" "35587000 35587000"
expect_num "collectives.csv names the entry" "$(sed 1d cr/collectives.csv | cut -d, -f16)" "custom:cg/ringrs;ring"

# 2. All-gather of S in two chunks (c = S/2): AG 1 then AG 0 per chunk,
# both chunks through the dimension queues (1 active chunk each).  The
# built-in ring all-gather on dimension 0 sends packets of its input (2c = S)
# and pays d per step; the graph declares phase_bytes = 4 and sends 1 byte
# per step: scaled by the phase size (its output, 4 x 2c = 4 MiB) / 4 = S,
# the ring's packet.  Same messages, same delays: the same finish time.
# By hand: per chunk AG 1 = d + (net(c) + d), net(524288) = floor(500 +
# 9765.625) = 10265: 12265; AG 0 = d + 3 (net(S) + d) = 1000 + 3 x 21031 =
# 64093.  Chunk 2 runs AG 1 while chunk 1 runs AG 0 and waits for
# dimension 0's one slot: 12265 + 2 x 64093 = 140451 ns.
ring_ag() {
    local i=$1
    echo "GLOBAL phase_bytes=4; 1 COMP dur=1;
      2 SEND dst=$(nxt "$i") size=1 tag=3 data=1; 3 RECV src=$(prv "$i") size=1 tag=3 data=1; 4 COMP dur=1 data=3;
      5 SEND dst=$(nxt "$i") size=1 tag=3 data=4; 6 RECV src=$(prv "$i") size=1 tag=3 data=4; 7 COMP dur=1 data=6;
      8 SEND dst=$(nxt "$i") size=1 tag=3 data=7; 9 RECV src=$(prv "$i") size=1 tag=3 data=7; 10 COMP dur=1 data=9"
}
"$CS_MKTRACE" --ranks cg/ringag "$(ring_ag 0)" "$(ring_ag 1)" "$(ring_ag 2)" "$(ring_ag 3)" || fail "mktrace ringag"
sysjson '"ring", "ring"' 2 > ring_ring2.json
sysjson '"custom:cg/ringag", "ring"' 2 > custom_ring2.json
run --workload-configuration=ag.et --network-configuration=r4x2.yml --system-configuration=ring_ring2.json --out rr2
run --workload-configuration=ag.et --network-configuration=r4x2.yml --system-configuration=custom_ring2.json --out cr2
expect_num "two chunks through the queues: [custom ring graph, ring] all-gather = [ring, ring] = 140451 ns, to the ps" \
    "$(time_ps cr2) $(time_ps rr2)" "140451000 140451000"
expect_num "... and both ran in 2 chunks" "$(sed 1d cr2/collectives.csv | cut -d, -f14) $(sed 1d rr2/collectives.csv | cut -d, -f14)" "2 2"

# 3. A closed form of our own: all-reduce of S, [custom shift, ring], one
# chunk: RS 0 (custom), AR 1 (ring), AG 0 (custom).  The shift sends the
# whole phase to i+1 (comm_size 1 of phase_bytes 1 = the phase size) and
# receives from i-1: RS 0 is a phase of S (its input): net(S) =
# floor(500 + 19531.25) = 20031.  AR 1 on 2 NPUs of P = S/4, packets
# P/2 = 131072: d, send, receive, d + red(131072), send, receive, d =
# 3 x 1000 + 2 x 2941 + 1500 = 10382.  AG 0 is a phase of S (its output):
# 20031.  Total 20031 + 10382 + 20031 = 50444 ns.
shft() { echo "GLOBAL phase_bytes=1; 1 SEND dst=$(nxt "$1") size=1 tag=9; 2 RECV src=$(prv "$1") size=1 tag=9"; }
"$CS_MKTRACE" --ranks cg/shift "$(shft 0)" "$(shft 1)" "$(shft 2)" "$(shft 3)" || fail "mktrace shift"
sysjson '"custom:cg/shift", "ring"' 1 > shift.json
run --workload-configuration=ar.et --network-configuration=r4x2.yml --system-configuration=shift.json --out shift
expect_num "[custom shift, ring] all-reduce: 20031 + 10382 + 20031 = 50444 ns" "$(finish_ns shift)" "50444"
# The same in two chunks (S/2 each), one slot per dimension queue:
# RS 0 = AG 0 = net(S/2) = floor(500 + 9765.625) = 10265; AR 1 (S/8,
# packets 65536: net = floor(500 + 1220.703125) = 1720, red = 3 x 250 = 750)
# = 3000 + 2 x 1720 + 750 = 7190.  Chunk 1: RS 0 [0, 10265], AR 1 [10265,
# 17455], AG 0 waits for chunk 2's RS 0 [10265, 20530]: [20530, 30795];
# chunk 2: AR 1 [20530, 27720], AG 0 after chunk 1's: [30795, 41060].
sysjson '"custom:cg/shift", "ring"' 2 > shift2.json
run --workload-configuration=ar.et --network-configuration=r4x2.yml --system-configuration=shift2.json --out shift2
expect_num "[custom shift, ring] all-reduce in 2 chunks through the queues: 41060 ns" "$(finish_ns shift2)" "41060"
# bytes: each of the 8 ranks sends S (RS 0) + 131072 x 2 (AR 1) + S (AG 0)
expect_num "... 8 ranks each send 2 S + 2 x 131072 bytes" "$(sed 1d shift/collectives.csv | cut -d, -f17,18)" \
    "$(( 8 * (2 * S + 2 * 131072) )),$(( 8 * (2 * S + 2 * 131072) ))"

# A communicator group [3, 1] on a one-dimensional Ring(4) with the list
# ["custom:cg/pair"] (a group runs a one-entry list's algorithm; with several
# entries, a ring): the graph's positions are the group's (file order):
# position 0 = rank 3 sends the whole all-reduce phase (S) to position 1 =
# rank 1, two hops: floor(2 x 500 + 19531.25) = 20531 ns on both; the other
# ranks compute 1 us.
printf 'topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' > r4.yml
printf '{"1": [3, 1]}\n' > groups.json
"$CS_MKTRACE" --ranks cg/pair "GLOBAL phase_bytes=1; 1 SEND dst=1 size=1 tag=0" "GLOBAL phase_bytes=1; 1 RECV src=0 size=1 tag=0" \
    || fail "mktrace pair"
c="1 COMP dur=1"; g="1 COLL ctype=0 size=$S pg=1"
"$CS_MKTRACE" --ranks gw "$c" "$g" "$c" "$g" || fail "mktrace gw"
sysjson '"custom:cg/pair"' 1 > pair.json
run --workload-configuration=gw --network-configuration=r4.yml --system-configuration=pair.json \
    --comm-group-configuration=groups.json --out pair
expect_num "group [3, 1]: position 0 (rank 3) -> position 1 (rank 1), two hops: 20531 ns" \
    "$(cut -d, -f2 pair/ranks.csv | sed 1d | tr '\n' ' ')" "1000 20531 1000 20531 "

# One trace for every rank: the representative run steps aside with a reason
expect_fail "representative mode steps aside with a reason" \
    "custom on dimension 0: a custom graph sends to particular positions of the dimension" \
    "$CS_BIN" run --quiet --workload-configuration=ar.et --network-configuration=r4x2.yml \
    --system-configuration=shift.json --symmetry require

# 4. Errors: exit 1, the file, the key and entry, the node, what was expected.
"$CS_MKTRACE" --ranks cg/five "$(shft 0)" "$(shft 1)" "$(shft 2)" "$(shft 3)" "$(shft 0)" || fail "mktrace five"
sysjson '"custom:cg/five", "ring"' 1 > five.json
expect_fail "a graph set of 5 positions on a dimension of 4" \
    "cg/five.4.et exists|more positions than the dimension's 4 NPUs|five.json: all-reduce-implementation[0] \"custom:cg/five\"|expected cg/five.0.et .. cg/five.3.et" \
    "$CS_BIN" run --quiet --workload-configuration=ar.et --network-configuration=r4x2.yml --system-configuration=five.json
"$CS_MKTRACE" --ranks cg/three "$(shft 0)" "$(shft 1)" "$(shft 2)" || fail "mktrace three"
sysjson '"custom:cg/three", "ring"' 1 > three.json
expect_fail "a graph set of 3 positions on a dimension of 4" \
    "cg/three.3.et: custom collective graph for position 3 of a 4-rank dimension does not exist|three.json: all-reduce-implementation[0] \"custom:cg/three\"|expected cg/three.0.et .. cg/three.3.et" \
    "$CS_BIN" run --quiet --workload-configuration=ar.et --network-configuration=r4x2.yml --system-configuration=three.json
sysjson '"ring", "custom:cg/none"' 1 > none.json
expect_fail "a missing graph file (dimension 1)" \
    "cg/none.0.et: custom collective graph for position 0 of a 2-rank dimension does not exist|none.json: reduce-scatter-implementation[1] \"custom:cg/none\"" \
    "$CS_BIN" run --quiet --workload-configuration=rs.et --network-configuration=r4x2.yml --system-configuration=none.json
"$CS_MKTRACE" --ranks cg/far "$(shft 0)" "$(shft 1)" "GLOBAL phase_bytes=1; 1 SEND dst=4 size=1 tag=9; 2 RECV src=1 size=1 tag=9" \
    "$(shft 3)" || fail "mktrace far"
sysjson '"custom:cg/far", "ring"' 1 > far.json
expect_fail "a peer outside the dimension" \
    "cg/far.2.et: node 1 (COMM_SEND): comm_dst 4 is outside the dimension of 4 ranks; expected 0..3|far.json: all-reduce-implementation[0] \"custom:cg/far\"" \
    "$CS_BIN" run --quiet --workload-configuration=ar.et --network-configuration=r4x2.yml --system-configuration=far.json
"$CS_MKTRACE" --ranks cg/nosize "1 SEND dst=1 size=1 tag=9; 2 RECV src=3 size=1 tag=9" "$(shft 1)" "$(shft 2)" "$(shft 3)" \
    || fail "mktrace nosize"
sysjson '"custom:cg/nosize", "ring"' 1 > nosize.json
expect_fail "a graph without phase_bytes in its metadata" \
    "cg/nosize.0.et: no metadata attribute phase_bytes; expected the phase size in bytes|nosize.json: all-reduce-implementation[0] \"custom:cg/nosize\"" \
    "$CS_BIN" run --quiet --workload-configuration=ar.et --network-configuration=r4x2.yml --system-configuration=nosize.json
"$CS_MKTRACE" --ranks cg/unmatched "$(shft 0)" "$(shft 1)" "GLOBAL phase_bytes=1; 1 SEND dst=3 size=1 tag=8; 2 RECV src=1 size=1 tag=9" \
    "$(shft 3)" || fail "mktrace unmatched"
sysjson '"custom:cg/unmatched", "ring"' 1 > unmatched.json
expect_fail "a send no receive matches" \
    "cg/unmatched.2.et: node 1 (COMM_SEND of 1 bytes to position 3, tag 8): cg/unmatched.3.et has no matching COMM_RECV" \
    "$CS_BIN" run --quiet --workload-configuration=ar.et --network-configuration=r4x2.yml --system-configuration=unmatched.json
# every position receives before it sends: the deadlock report, naming the stuck chunks
dl() { echo "GLOBAL phase_bytes=1; 1 RECV src=$(prv "$1") size=1 tag=9; 2 SEND dst=$(nxt "$1") size=1 tag=9 data=1"; }
"$CS_MKTRACE" --ranks cg/dl "$(dl 0)" "$(dl 1)" "$(dl 2)" "$(dl 3)" || fail "mktrace dl"
sysjson '"custom:cg/dl", "ring"' 1 > dl.json
expect_fail "graphs waiting on each other: the deadlock report" \
    "simulation stopped at 0.000 us with work left on 8 of 8 ranks|rank 0's chunk 0 of ALL_REDUCE#0 of communicator 0 (phase 1 of 3, running" \
    "$CS_BIN" run --quiet --workload-configuration=ar.et --network-configuration=r4x2.yml --system-configuration=dl.json
printf '{"all-reduce-implementation": ["custom:"]}\n' > empty.json
expect_fail "an entry custom: without a prefix" \
    "empty.json:1: all-reduce-implementation: expected one of|custom:PREFIX" \
    "$CS_BIN" run --quiet --workload-configuration=ar.et --network-configuration=r4x2.yml --system-configuration=empty.json
finish
