#!/usr/bin/env bash
# cli_custom_coll.sh -- custom collectives (*-implementation-custom: a Chakra
# ET graph of sends, receives and compute per rank, ASTRA-sim's
# CustomAlgorithm; src/workload/custom_coll.c, exec.c; docs/collectives.md
# "Custom collectives"): times worked out by hand, the same messages as the
# built-in direct all-reduce giving its time, communicator groups, and the
# errors.
#
# Conventions (docs/network.md, docs/collectives.md): 50 GB/s is read as
# GiB/s, B = 50 x 2^30 / 1e9 = 53.6870912 bytes/ns; a message of m bytes over
# h hops takes net(m) = floor(h x 500 + m / B) ns on the analytical backend.
# A custom graph's sends and receives are point-to-point messages (no
# endpoint delay, no reduction cost: ASTRA-sim sends them with
# front_end_sim_send as it does a trace's COMM_SEND); a custom COMP node
# takes duration_micros x 1000 ns, 1 ns when 0; the collective completes when
# every node of the rank's graph has.
. "$(dirname "$0")/lib_cli.sh"
: "${CS_MKTRACE:?}"
cd "$CS_TMP" || exit 1
S=1048576

expect_num() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: got \"$2\", expected \"$3\""; fi; }
finish_ns() { cut -d, -f2 "$1/ranks.csv" | sed 1d | tr '\n' ' ' | sed 's/ $//'; }
run() { "$CS_BIN" run --quiet "$@" 2>err.txt || fail "run $*: $(cat err.txt)"; }
net() { printf 'topology: [ %s ]\nnpus_count: [ %s ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' "$1" "$2"; }
net Ring 4 > r4.yml
net FullyConnected 4 > fc4.yml
# sysjson ALGO ENDPOINT_DELAY LOCAL_MEM_BW [EXTRA JSON]
sysjson() {
    printf '{"scheduling-policy": "LIFO", "endpoint-delay": %s, "active-chunks-per-dimension": 1,\n' "$2"
    printf ' "preferred-dataset-splits": 1, "all-reduce-implementation": ["%s"],\n' "$1"
    printf ' "all-gather-implementation": ["%s"], "reduce-scatter-implementation": ["%s"],\n' "$1" "$1"
    printf ' "all-to-all-implementation": ["%s"], "collective-optimization": "localBWAware",\n' "$1"
    printf ' "local-mem-bw": %s%s}\n' "$3" "${4:-}"
}
"$CS_MKTRACE" ar.et "1 COLL ctype=0 size=$S" || fail "mktrace ar.et"
mkdir -p cg

# 1. A shift on Ring(4): rank r sends S to r+1 and receives S from r-1, one
# hop: net(S) = floor(500 + 1048576 / 53.6870912) = floor(500 + 19531.25) =
# 20031 ns on every rank.  Each rank sends and receives S (p2p columns).
shift_spec() { echo "1 SEND dst=$(( ($1 + 1) % 4 )) size=$S tag=7; 2 RECV src=$(( ($1 + 3) % 4 )) size=$S tag=7"; }
"$CS_MKTRACE" --ranks cg/shift "$(shift_spec 0)" "$(shift_spec 1)" "$(shift_spec 2)" "$(shift_spec 3)" || fail "mktrace shift"
sysjson ring 10 1600 ', "all-reduce-implementation-custom": ["cg/shift"]' > shift.json
run --workload-configuration=ar.et --network-configuration=r4.yml --system-configuration=shift.json --out shift
expect_num "shift on Ring(4): net(S) = 20031 ns" "$(finish_ns shift)" "20031 20031 20031 20031"
expect_num "shift: S sent and received per rank" "$(sed -n 2p shift/ranks.csv | cut -d, -f8,9)" "$S,$S"

# ASTRA-sim's own custom-collective system file has no collective-optimization
# (examples/system/custom_collectives/custom_collective.json): it runs unchanged
printf '{\n  "scheduling-policy": "FIFO",\n  "preferred-dataset-splits": 1,\n  "all-reduce-implementation-custom": ["cg/shift"],\n  "local-mem-bw": 50\n}\n' > astra_like.json
run --workload-configuration=ar.et --network-configuration=r4.yml --system-configuration=astra_like.json --out astra_like
expect_num "ASTRA-sim's custom-collective system file shape (no collective-optimization)" "$(finish_ns astra_like)" \
    "20031 20031 20031 20031"
printf '{"scheduling-policy": "FIFO", "preferred-dataset-splits": 1, "local-mem-bw": 50,\n "all-reduce-implementation": ["ring"]}\n' > no_collopt.json
expect_fail "collective-optimization still required for a built-in all-reduce" \
    "no_collopt.json:1: collective-optimization|a required key unless all-reduce-implementation-custom is set" \
    "$CS_BIN" run --quiet --workload-configuration=ar.et --network-configuration=r4.yml --system-configuration=no_collopt.json

# One trace for every rank on a symmetric network: the representative run
# steps aside (the graph's messages go to particular ranks) and says why
expect_fail "representative mode steps aside with a reason" \
    "representative run stopped: ar.et: node 1 (COMM_COLL): a custom collective implementation sends to particular ranks" \
    "$CS_BIN" run --quiet --workload-configuration=ar.et --network-configuration=r4.yml --system-configuration=shift.json \
    --symmetry require

# Two all-reduces in a row run the graph twice: 2 x 20031 = 40062 ns.
"$CS_MKTRACE" ar2.et "1 COLL ctype=0 size=$S; 2 COLL ctype=0 size=$S data=1" || fail "mktrace ar2.et"
run --workload-configuration=ar2.et --network-configuration=r4.yml --system-configuration=shift.json --out twice
expect_num "two custom all-reduces in a row: 40062 ns" "$(finish_ns twice)" "40062 40062 40062 40062"
# collectives.csv: one row each, numbered 0 and 1 on the default
# communicator, 4 members each sending S (4 x S in all), the algorithm named
expect_num "collectives.csv: one row per custom collective" \
    "$(sed 1d twice/collectives.csv | cut -d, -f2,5,7,8,9,10,16,17,18,19 | tr '\n' ' ')" \
    "ALL_REDUCE,all,4,0,0,20031,custom:cg/shift,4194304,4194304,4 ALL_REDUCE,all,4,1,20031,40062,custom:cg/shift,4194304,4194304,4 "

# 2. Ping-pong with a compute step on Ring(4), ranks 0 and 2 (two hops):
# net(S) = floor(2 x 500 + 19531.25) = 20531.  Rank 0 sends S, rank 2
# receives it (20531), computes 3 us (23531), replies: the reply arrives at
# 23531 + 20531 = 44062 on both (a send completes when its bytes have
# arrived).  Ranks 1 and 3 run one COMP of duration 0: 1 ns (ASTRA-sim).
"$CS_MKTRACE" --ranks cg/pp "1 SEND dst=2 size=$S tag=1; 2 RECV src=2 size=$S tag=2 data=1" "1 COMP dur=0" \
    "1 RECV src=0 size=$S tag=1; 2 COMP dur=3 data=1; 3 SEND dst=0 size=$S tag=2 data=2" "1 COMP dur=0" ||
    fail "mktrace pp"
sysjson ring 10 1600 ', "all-reduce-implementation-custom": ["cg/pp"]' > pp.json
run --workload-configuration=ar.et --network-configuration=r4.yml --system-configuration=pp.json --out pp
expect_num "ping-pong 0 <-> 2 with 3 us of compute: 2 net(S) + 3000 = 44062 ns" "$(finish_ns pp)" "44062 1 44062 1"

# 3. The built-in direct all-reduce's messages as a custom graph give its
# time.  FullyConnected(4), S = 1 MiB, m = S/4 = 262144, d = endpoint-delay
# 1000 ns, local-mem-bw 262 GB/s: red(m) = 3 x floor(262144 / 262) = 3 x 1000
# = 3000 ns; net(m) = floor(500 + 262144 / 53.6870912) = floor(5382.8125) =
# 5382.  Built-in (docs/collectives.md): 3d + 2 net(m) + red(m) = 3000 +
# 10764 + 3000 = 16764 ns.  The graph: COMP 1 us (the first bundle, d), a
# send of m to each of the 3 others and a receive from each (tag 1); COMP
# 4 us (d + red) after the 3 receives; the second round of sends (tag 2)
# after it, receives from each; COMP 1 us (d) after those: 1000 + 5382 +
# 4000 + 5382 + 1000 = 16764 ns.
direct_spec() {
    local r=$1 sp="1 COMP dur=1" id=2 rv="" rv2="" red p
    for p in 0 1 2 3; do
        [ "$p" = "$r" ] && continue
        sp="$sp; $id SEND dst=$p size=262144 tag=1 data=1; $((id + 1)) RECV src=$p size=262144 tag=1"
        rv="$rv${rv:+,}$((id + 1))"; id=$((id + 2))
    done
    red=$id; sp="$sp; $red COMP dur=4 data=$rv"; id=$((id + 1))
    for p in 0 1 2 3; do
        [ "$p" = "$r" ] && continue
        sp="$sp; $id SEND dst=$p size=262144 tag=2 data=$red; $((id + 1)) RECV src=$p size=262144 tag=2"
        rv2="$rv2${rv2:+,}$((id + 1))"; id=$((id + 2))
    done
    echo "$sp; $id COMP dur=1 data=$rv2"
}
"$CS_MKTRACE" --ranks cg/direct "$(direct_spec 0)" "$(direct_spec 1)" "$(direct_spec 2)" "$(direct_spec 3)" ||
    fail "mktrace direct"
sysjson direct 1000 262 > direct.json
sysjson direct 1000 262 ', "all-reduce-implementation-custom": ["cg/direct"]' > direct_custom.json
run --workload-configuration=ar.et --network-configuration=fc4.yml --system-configuration=direct.json --out builtin
run --workload-configuration=ar.et --network-configuration=fc4.yml --system-configuration=direct_custom.json --out custom
expect_num "built-in direct all-reduce on FullyConnected(4): 3d + 2 net + red = 16764 ns" "$(finish_ns builtin)" \
    "16764 16764 16764 16764"
expect_num "the same messages as a custom graph: 16764 ns" "$(finish_ns custom)" "16764 16764 16764 16764"
expect_num "custom: the graph's 6 messages of 262144 bytes per rank (the collective's size is not used)" \
    "$(sed -n 2p custom/ranks.csv | cut -d, -f8,9)" "1572864,1572864"

# 4. Other collective types use their own key; ALL_GATHER with only the
# all-reduce key set runs the built-in ring: d + 3 (net(S) + d) = 10 + 3 x
# 20041 = 60133 ns (docs/collectives.md, ring all-gather).
"$CS_MKTRACE" ag.et "1 COLL ctype=2 size=$S" || fail "mktrace ag.et"
run --workload-configuration=ag.et --network-configuration=r4.yml --system-configuration=shift.json --out ag_builtin
expect_num "all-gather without its custom key: built-in ring, 60133 ns" "$(finish_ns ag_builtin)" "60133 60133 60133 60133"
sysjson ring 10 1600 ', "all-gather-implementation-custom": ["cg/shift"]' > ag.json
run --workload-configuration=ag.et --network-configuration=r4.yml --system-configuration=ag.json --out ag_custom
expect_num "all-gather-implementation-custom: the shift, 20031 ns" "$(finish_ns ag_custom)" "20031 20031 20031 20031"

# 5. A communicator group: group 1 = [3, 1] in file order, so position 0 is
# rank 3 and position 1 is rank 1; g2.0.et sends S to position 1, g2.1.et
# receives it.  Rank 3 -> rank 1 on Ring(4) is two hops: 20531 ns on both;
# ranks 0 and 2 compute 1 us.  Rank 3 sent S, rank 1 received it.
"$CS_MKTRACE" --ranks cg/g2 "1 SEND dst=1 size=$S tag=3" "1 RECV src=0 size=$S tag=3" || fail "mktrace g2"
printf '{"1": [3, 1]}\n' > groups.json
"$CS_MKTRACE" --ranks gw "1 COMP dur=1" "1 COLL ctype=0 size=$S pg=1" "1 COMP dur=1" "1 COLL ctype=0 size=$S pg=1" ||
    fail "mktrace gw"
sysjson ring 10 1600 ', "all-reduce-implementation-custom": ["cg/g2"]' > g2.json
run --workload-configuration=gw --network-configuration=r4.yml --system-configuration=g2.json \
    --comm-group-configuration=groups.json --out grp
expect_num "group [3, 1]: position 0 = rank 3 sends to position 1 = rank 1, 2 hops: 20531 ns" "$(finish_ns grp)" \
    "1000 20531 1000 20531"
expect_num "group [3, 1]: collectives.csv names communicator 1 of 2 ranks" \
    "$(sed -n 2p grp/collectives.csv | cut -d, -f5,7,11,16)" "1,2,20531,custom:cg/g2"
expect_num "group [3, 1]: rank 3 sent, rank 1 received" \
    "$(sed -n '3p;5p' grp/ranks.csv | cut -d, -f1,8,9 | tr '\n' ' ')" "1,0,$S 3,$S,0 "

# 6. per-node-custom-implementation (ASTRA-sim: the collective's own trace
# node id looked up first, then the type's key, then the built-in list; any
# of the four collective types).  nodes.yml: node 1 -> cg/pp, node 3 ->
# cg/shift; the all-reduce key says cg/shift.  Node 1 (all-reduce) runs the
# ping-pong: ranks 0, 2 at 44062, ranks 1, 3 at 1 ns.  Node 2 (all-reduce,
# not in the map) runs the type's shift: ranks 1 and 3 send at 1 ns, ranks 0
# and 2 at 44062, so every receive is complete at 44062 + 20031 = 64093.
# Node 3 (ALL_GATHER, in the map) runs the shift from 64093 on every rank:
# 64093 + 20031 = 84124 ns everywhere.  Node 4 (ALL_GATHER, not in the
# map, no all-gather key) runs the built-in ring: + 60133 = 144257 ns.
printf '# trace node id: custom collective prefix\n1: cg/pp\n3: cg/shift\n' > nodes.yml
sysjson ring 10 1600 ', "all-reduce-implementation-custom": ["cg/shift"], "per-node-custom-implementation": "nodes.yml"' \
    > pernode.json
"$CS_MKTRACE" pn.et "1 COLL ctype=0 size=$S; 2 COLL ctype=0 size=$S data=1; 3 COLL ctype=2 size=$S data=2; 4 COLL ctype=2 size=$S data=3" ||
    fail "mktrace pn.et"
run --workload-configuration=pn.et --network-configuration=r4.yml --system-configuration=pernode.json --out pernode
expect_num "per-node map first, then the type's key, then the built-in list: 144257 ns" "$(finish_ns pernode)" \
    "144257 144257 144257 144257"
expect_num "per-node: the algorithms of the four collectives" \
    "$(sed 1d pernode/collectives.csv | cut -d, -f10,16 | tr '\n' ' ')" \
    "44062,custom:cg/pp 64093,custom:cg/shift 84124,custom:cg/shift 144257,ring "

# 6. Errors: exit 1, the file, the node and the key named.
sysjson ring 10 1600 ', "all-reduce-implementation-custom": ["cg/none"]' > none.json
expect_fail "a missing per-rank file names the path and the key" \
    "cg/none.0.et|does not exist|all-reduce-implementation-custom|none.json|ar.et: node 1" \
    "$CS_BIN" run --quiet --workload-configuration=ar.et --network-configuration=r4.yml --system-configuration=none.json
# a graph file that is a device (/dev/zero would fill memory): refused by name, as trace files are
for p in 0 1 2 3; do ln -sf /dev/zero "cg/zero.$p.et"; done
sysjson ring 10 1600 ', "all-reduce-implementation-custom": ["cg/zero"]' > zero.json
expect_fail "a custom graph file that is a device is refused, not read" \
    "cg/zero.0.et: expected a Chakra trace file (a regular file or a pipe), found a character device" \
    "$CS_BIN" run --quiet --workload-configuration=ar.et --network-configuration=r4.yml --system-configuration=zero.json
"$CS_MKTRACE" --ranks cg/meta "1 COMP dur=0; 2 META data=1" "1 COMP dur=0" "1 COMP dur=0" "1 COMP dur=0" ||
    fail "mktrace meta"
sysjson ring 10 1600 ', "all-reduce-implementation-custom": ["cg/meta"]' > meta.json
expect_fail "a node type a custom graph may not hold" \
    "cg/meta.0.et: node 2 (METADATA)|COMM_SEND, COMM_RECV and COMP nodes only|all-reduce-implementation-custom" \
    "$CS_BIN" run --quiet --workload-configuration=ar.et --network-configuration=r4.yml --system-configuration=meta.json
"$CS_MKTRACE" --ranks cg/far "1 SEND dst=4 size=8 tag=1" "1 COMP dur=0" "1 COMP dur=0" "1 COMP dur=0" || fail "mktrace far"
sysjson ring 10 1600 ', "all-reduce-implementation-custom": ["cg/far"]' > far.json
expect_fail "a peer outside the communicator" \
    "cg/far.0.et: node 1 (COMM_SEND): comm_dst 4 is outside the communicator of 4 ranks; expected 0..3" \
    "$CS_BIN" run --quiet --workload-configuration=ar.et --network-configuration=r4.yml --system-configuration=far.json
expect_fail "a group's graph: peers are positions in the group" \
    "cg/far.0.et: node 1 (COMM_SEND): comm_dst 4 is outside the communicator of 2 ranks; expected 0..1" \
    "$CS_BIN" run --quiet --workload-configuration=gw --network-configuration=r4.yml --system-configuration=far.json \
    --comm-group-configuration=groups.json
# receives first everywhere: nothing is ever sent; the report names the
# custom graph files and nodes
recv_first() { echo "1 RECV src=$(( ($1 + 3) % 4 )) size=8 tag=1; 2 SEND dst=$(( ($1 + 1) % 4 )) size=8 tag=1 data=1"; }
"$CS_MKTRACE" --ranks cg/dl "$(recv_first 0)" "$(recv_first 1)" "$(recv_first 2)" "$(recv_first 3)" || fail "mktrace dl"
sysjson ring 10 1600 ', "all-reduce-implementation-custom": ["cg/dl"]' > dl.json
expect_fail "custom graphs whose receives wait for each other: the deadlock report names the file and node" \
    "simulation stopped|work left on 4 of 4 ranks|custom graph cg/dl.1.et node 1 (COMM_RECV of 8 bytes from rank 0, tag 1)|never sent them" \
    "$CS_BIN" run --quiet --workload-configuration=ar.et --network-configuration=r4.yml --system-configuration=dl.json
"$CS_MKTRACE" --ranks cg/size "1 SEND dst=1 size=8 tag=1" "1 RECV src=0 size=16 tag=1" "1 COMP dur=0" "1 COMP dur=0" ||
    fail "mktrace size"
sysjson ring 10 1600 ', "all-reduce-implementation-custom": ["cg/size"]' > size.json
expect_fail "a send and its receive of different sizes" "send/recv size mismatch|cg/size.0.et node 1|cg/size.1.et node 1" \
    "$CS_BIN" run --quiet --workload-configuration=ar.et --network-configuration=r4.yml --system-configuration=size.json
# per-node-custom-implementation: missing, malformed
# a send no receive takes: every graph completes (a send completes when its
# bytes arrive), then the run reports the message, naming the custom graph
"$CS_MKTRACE" --ranks cg/orphan "1 SEND dst=1 size=8 tag=9" "1 COMP dur=0" "1 COMP dur=0" "1 COMP dur=0" ||
    fail "mktrace orphan"
sysjson ring 10 1600 ', "all-reduce-implementation-custom": ["cg/orphan"]' > orphan.json
expect_fail "a custom send no receive takes names its graph and node" \
    "cg/orphan.0.et node 1 (rank 0) sent 8 bytes to rank 1 with tag 9 that no receive took" \
    "$CS_BIN" run --quiet --workload-configuration=ar.et --network-configuration=r4.yml --system-configuration=orphan.json
sysjson ring 10 1600 ', "per-node-custom-implementation": "nodes_missing.yml"' > pernode_missing.json
expect_fail "a missing per-node file names the system file, the key and the path" \
    "pernode_missing.json: per-node-custom-implementation: |nodes_missing.yml" \
    "$CS_BIN" run --quiet --workload-configuration=ar.et --network-configuration=r4.yml --system-configuration=pernode_missing.json
printf '1: cg/pp\nfoo: cg/shift\n' > nodes_bad.yml
sysjson ring 10 1600 ', "per-node-custom-implementation": "nodes_bad.yml"' > pernode_bad.json
expect_fail "a per-node key that is not a node id" \
    "nodes_bad.yml:2: expected a trace node id (an integer from 0 to 2147483647) as the key, got foo" \
    "$CS_BIN" run --quiet --workload-configuration=ar.et --network-configuration=r4.yml --system-configuration=pernode_bad.json
printf '1: cg/pp\n1: cg/shift\n' > nodes_dup.yml
sysjson ring 10 1600 ', "per-node-custom-implementation": "nodes_dup.yml"' > pernode_dup.json
expect_fail "a node id twice" "nodes_dup.yml:2: node 1: expected each trace node id once, got it again (first on line 1)" \
    "$CS_BIN" run --quiet --workload-configuration=ar.et --network-configuration=r4.yml --system-configuration=pernode_dup.json
printf '1: [cg/pp]\n' > nodes_list.yml
sysjson ring 10 1600 ', "per-node-custom-implementation": "nodes_list.yml"' > pernode_list.json
expect_fail "a per-node value that is not a prefix" "nodes_list.yml:1: node 1: expected the prefix" \
    "$CS_BIN" run --quiet --workload-configuration=ar.et --network-configuration=r4.yml --system-configuration=pernode_list.json
printf '1: cg/none\n' > nodes_none.yml
sysjson ring 10 1600 ', "per-node-custom-implementation": "nodes_none.yml"' > pernode_none.json
expect_fail "a per-node prefix without files" \
    "cg/none.0.et: custom collective graph for position 0|per-node-custom-implementation nodes_none.yml names \"cg/none\"" \
    "$CS_BIN" run --quiet --workload-configuration=ar.et --network-configuration=r4.yml --system-configuration=pernode_none.json
# 7. examples/custom_collective (docs/examples.md): the committed traces are
# its generator's output, byte for byte; the step is 1000 us of compute, a
# bidirectional ring all-reduce of 8 MiB on Ring(8), 1000 us: each ring moves
# 512 KiB chunks in 14 steps of net = floor(500 + 524288 / 53.6870912) =
# floor(10265.625) = 10265 ns, the two rings at once: 14 x 10265 = 143710;
# 2,000,000 + 143,710 = 2,143,710 ns.  The built-in ring (the key removed):
# d + 14 (net(1 MiB) + d) + 7 red(1 MiB) = 10 + 14 x 20041 + 7 x 3 x
# floor(1048576 / 1600) = 10 + 280574 + 13755 = 294339; 2,294,339 ns.
EXD="$CS_SOURCE_DIR/examples/custom_collective"
mkdir -p exgen && "$CS_BUILD_DIR/examples/cs_example_custom_collective" exgen || fail "example generator"
same=1
for f in step.et bidir_ring.0.et bidir_ring.1.et bidir_ring.2.et bidir_ring.3.et bidir_ring.4.et bidir_ring.5.et \
    bidir_ring.6.et bidir_ring.7.et; do
    cmp -s "exgen/$f" "$EXD/$f" || same=0
done
[ "$(ls exgen | wc -l)" = 9 ] || same=0
[ $same -eq 1 ] && pass "example traces regenerate identically" || fail "example traces regenerate identically"
grep -v implementation-custom "$EXD/system.json" > ex_builtin.json
# the system file names the prefix relative to the working directory (ASTRA-sim): run from the source tree
(cd "$CS_SOURCE_DIR" && "$CS_BIN" run --quiet --workload-configuration=examples/custom_collective/step.et \
    --network-configuration=examples/custom_collective/network.yml \
    --system-configuration=examples/custom_collective/system.json --out "$CS_TMP/ex") 2>err.txt ||
    fail "example: $(cat err.txt)"
expect_num "example: bidirectional ring all-reduce, 2,143,710 ns" "$(finish_ns ex)" \
    "2143710 2143710 2143710 2143710 2143710 2143710 2143710 2143710"
expect_num "example: 28 messages of 512 KiB sent and received per rank" "$(sed -n 2p ex/ranks.csv | cut -d, -f8,9)" \
    "14680064,14680064"
run --workload-configuration="$EXD/step.et" --network-configuration="$EXD/network.yml" \
    --system-configuration=ex_builtin.json --out ex_builtin
(cd "$CS_SOURCE_DIR" && "$CS_BIN" run --quiet --workload-configuration=examples/custom_collective/step.et \
    --network-configuration=examples/custom_collective/network.yml --backend analytical-congestion \
    --system-configuration=examples/custom_collective/system.json --out "$CS_TMP/exc") 2>err.txt ||
    fail "example, analytical-congestion: $(cat err.txt)"
expect_num "example on analytical-congestion: the two rings use opposite link directions, 2,143,710 ns" \
    "$(cut -d, -f2 exc/ranks.csv | sed -n 2p)" "2143710"
expect_num "example with the built-in ring: 2,294,339 ns" "$(cut -d, -f2 ex_builtin/ranks.csv | sed -n 2p)" "2294339"
finish
