#!/usr/bin/env bash
# cli_partition.sh -- clustersim partition (docs/inference.md, "Neuron
# partitioning"): hand-worked cases -- two interleaved blocks on 2 workers
# (trace: exact traffic; matrix: the bound), four pairs on 4 workers, a case
# where the Hungarian labelling keeps more neurons in place than group g ->
# worker g -- the CSV and summary.json, determinism, atomic outputs, and the
# refusals (file:line: column, or the flag; exit 1; nothing written).
. "$(dirname "$0")/lib_cli.sh"
cd "$CS_TMP" || exit 1

"$CS_BIN" partition --help | grep -q -- '--workers W' && pass "partition help" || fail "partition help"

num() { # KEY FILE: the first number after "KEY": in the block named by $3 (before/after), or the top level
    local blk=${3:-}
    if [ -n "$blk" ]; then
        sed -n "/\"$blk\": {/,/}/p" "$2" | grep -o "\"$1\": *[0-9.e+-]*" | head -1 | grep -o '[0-9.e+-]*$'
    else
        grep -o "\"$1\": *[0-9.e+-]*" "$2" | head -1 | grep -o '[0-9.e+-]*$'
    fi
}
eq() { # NAME GOT WANT (numbers compared as numbers)
    awk -v a="$2" -v b="$3" 'BEGIN { exit !(a + 0 == b + 0) }' && pass "$1 = $3" || fail "$1: got '$2', expected $3"
}

# Interleaved blocks: 8 neurons, tokens alternate {0,2,4,6} and {1,3,5,7}, 4 tokens, 2 workers.
# Contiguous ({0..3} on 0, {4..7} on 1): every token has active neurons on both workers, so one
# partial result crosses per token: 4 in all, 1 per token, 16384 bytes per token with
# --hidden-bytes 16384 (h 8192 x 2 bytes), 32 x 16384 = 524288 per step of 32 tokens.
# Partitioned: {0,2,4,6} and {1,3,5,7}: 0.  Moved: 4 (2 of each group sit on the other worker).
printf '# two interleaved blocks\nactivations,8\n0,2,4,6\n1,3,5,7\n0,2,4,6\n1,3,5,7\n' > il.txt
"$CS_BIN" partition --activations il.txt --workers 2 --hidden-bytes 16384 --batch 32 --out il >il.out 2>&1 \
    && pass "interleaved: runs" || fail "interleaved: $(cat il.out)"
eq "interleaved: partials before" "$(num partial_results il/summary.json before)" 4
eq "interleaved: bytes/token before" "$(num bytes_per_token il/summary.json before)" 16384
eq "interleaved: bytes/step before" "$(num bytes_per_step il/summary.json before)" 524288
eq "interleaved: partials after" "$(num partial_results il/summary.json after)" 0
eq "interleaved: bytes/step after" "$(num bytes_per_step il/summary.json after)" 0
eq "interleaved: neurons moved" "$(num neurons_moved il/summary.json)" 4
eq "interleaved: weight bytes moved (4 x 2 x 16384)" "$(num weight_bytes_moved il/summary.json)" 131072
# the even neurons share a worker, the odd ones the other; new indices 0..7 each once
ev=$(awk -F, 'NR > 1 && $1 % 2 == 0 { print $4 }' il/partition.csv | sort -u | wc -l)
od=$(awk -F, 'NR > 1 && $1 % 2 == 1 { print $4 }' il/partition.csv | sort -u | wc -l)
same=$(awk -F, 'NR == 2 { e = $4 } NR == 3 { o = $4 } END { print (e == o) }' il/partition.csv)
[ "$ev" = 1 ] && [ "$od" = 1 ] && [ "$same" = 0 ] && pass "interleaved: evens on one worker, odds on the other" \
    || fail "interleaved: partition.csv: $(cat il/partition.csv)"
[ "$(awk -F, 'NR > 1 { print $5 }' il/partition.csv | sort -n | tr '\n' ' ')" = "0 1 2 3 4 5 6 7 " ] \
    && pass "interleaved: new_index is a permutation" || fail "interleaved: new_index: $(cat il/partition.csv)"
ls il | grep -q tmp && fail "interleaved: a temporary file left" || pass "interleaved: no temporary file left"

# The same counts as a matrix: entry 2 where the parities agree, T = 4.  The bound: pairs split
# across workers, contiguous: evens {0,2} x {4,6} and odds {1,3} x {5,7}, 8 pairs x 2 tokens = 16,
# 16 / 4 = 4 per token, 65536 bytes; partitioned: 0.
{
    echo "coactivation,8,4"
    for i in 0 1 2 3 4 5 6 7; do
        row=""
        for j in 0 1 2 3 4 5 6 7; do row="$row$([ $(((i - j) % 2)) = 0 ] && echo 2 || echo 0),"; done
        echo "${row%,}"
    done
} > il.csv
"$CS_BIN" partition --coactivation il.csv --workers 2 --hidden-bytes 16384 --json il.json --quiet \
    && pass "matrix: runs" || fail "matrix: refused"
eq "matrix: split co-activations before" "$(num coactivations_split il.json before)" 16
eq "matrix: bytes/token bound before" "$(num bytes_per_token il.json before)" 65536
eq "matrix: partials after" "$(num partial_results il.json after)" 0
grep -q '"traffic_exact": false' il.json && pass "matrix: traffic marked as a bound" || fail "matrix: traffic_exact"

# Four pairs on 4 workers: tokens {0,4} {1,5} {2,6} {3,7}, 2 neurons per worker.  Contiguous
# ({0,1} {2,3} {4,5} {6,7}): every token on 2 workers: 4 partials.  Grown: {0,4} {1,5} {2,6}
# {3,7}: 0.  Each group has one neuron on each of two contiguous workers: at best 1 moves per
# group, 4 in all.
printf 'activations,8\n0,4\n1,5\n2,6\n3,7\n' > pairs.txt
"$CS_BIN" partition --activations pairs.txt --workers 4 --json pairs.json --quiet || fail "pairs: refused"
eq "pairs: partials before" "$(num partial_results pairs.json before)" 4
eq "pairs: partials after" "$(num partial_results pairs.json after)" 0
eq "pairs: neurons moved" "$(num neurons_moved pairs.json)" 4

# The labelling: groups {1,4,5} (grown first: active in 2 tokens) and {0,2,3}.  Group 0 has 2
# neurons on contiguous worker 1, so the Hungarian method labels it 1 and 2 neurons move (1 and
# 3); group g -> worker g would move 4.
printf 'activations,6\n1,4,5\n1,4,5\n0,2,3\n' > lab.txt
"$CS_BIN" partition --activations lab.txt --workers 2 --out lab --quiet || fail "labelling: refused"
eq "labelling: neurons moved" "$(num neurons_moved lab/summary.json)" 2
[ "$(awk -F, 'NR > 1 { printf "%s", $4 }' lab/partition.csv)" = 010011 ] && pass "labelling: workers 0 1 0 0 1 1" \
    || fail "labelling: $(cat lab/partition.csv)"

# No co-activation structure to use: tokens {0,1} {2,3} on 2 workers are already local: the
# contiguous layout is kept, nothing moves.
printf 'activations,4\n0,1\n2,3\n-\n' > local.txt
"$CS_BIN" partition --activations local.txt --workers 2 --json local.json --quiet || fail "local: refused"
grep -q '"kept_contiguous": true' local.json && pass "local: contiguous kept" || fail "local: $(cat local.json)"
eq "local: neurons moved" "$(num neurons_moved local.json)" 0
eq "local: tokens" "$(num tokens local.json)" 3

# Determinism: the same files twice.
"$CS_BIN" partition --activations il.txt --workers 2 --hidden-bytes 16384 --batch 32 --out il2 >il2.out 2>&1
cmp -s il/partition.csv il2/partition.csv && cmp -s il/summary.json il2/summary.json && cmp -s il.out il2.out \
    && pass "deterministic" || fail "two runs differ"

# Refusals: exit 1, the file:line and column or the flag, what was expected; no result written.
expect_fail "workers not dividing N" "--workers 3|divisor|8 neurons" \
    "$CS_BIN" partition --activations il.txt --workers 3 --out bad1
[ -e bad1 ] && fail "refused run wrote bad1" || pass "refused run wrote nothing"
# a refused run into an earlier run's directory leaves none of that run's results either
cp -r il2 stale && cp il2/summary.json stale.json
expect_fail "refused run over earlier results" "--workers 3|divisor" \
    "$CS_BIN" partition --activations il.txt --workers 3 --out stale --json stale.json
[ ! -e stale/partition.csv ] && [ ! -e stale/summary.json ] && [ ! -e stale.json ] \
    && pass "a refused run leaves no earlier results in --out or --json" || fail "stale results: $(ls stale)"
expect_fail "trace given as a matrix" "--coactivation il.txt|activation trace|--activations" \
    "$CS_BIN" partition --coactivation il.txt --workers 2
expect_fail "hidden bytes 0" "--hidden-bytes|expected an integer" \
    "$CS_BIN" partition --activations il.txt --workers 2 --hidden-bytes 0
printf 'coactivation,2,5\n1,0\n1,1\n' > asym.csv
expect_fail "asymmetric matrix" "asym.csv:3: column 1|symmetric" "$CS_BIN" partition --coactivation asym.csv --workers 2
printf 'coactivation,2,5\n1,0\n0,x\n' > badcell.csv
expect_fail "bad cell" "badcell.csv:3: column 2|expected an integer in [0, 5]" \
    "$CS_BIN" partition --coactivation badcell.csv --workers 2
printf 'activations,4\n0,2\n2,1\n' > order.txt
expect_fail "ids out of order" "order.txt:3: column 2|increasing" "$CS_BIN" partition --activations order.txt --workers 2
printf 'coactivation,5000,1\n1\n' > huge.csv
expect_fail "declared size beyond the file" "huge.csv:1: column 2|expected at least 50000000 bytes" \
    "$CS_BIN" partition --coactivation huge.csv --workers 2
expect_fail "missing file" "nope.csv" "$CS_BIN" partition --coactivation nope.csv --workers 2
"$CS_BIN" partition --activations il.txt >/dev/null 2>&1; [ $? = 2 ] && pass "no --workers: usage, exit 2" \
    || fail "no --workers: exit not 2"
"$CS_BIN" partition --activations il.txt --workers 2 --bogus >/dev/null 2>&1; [ $? = 2 ] \
    && pass "unknown option: exit 2" || fail "unknown option: exit not 2"

# Into clustersim serve: 16 neurons in pairs {i, i + 8}, one token each, 8 workers of 2.
# Contiguous: every token on 2 workers, 1 partial per token: f = 1 / 7, the all-reduce's size per
# token 16384 (1 + 1/7) / 2 = 9362.3 -> 9363; partitioned: f = 0, 16384 / 2 = 8192.
printf 'activations,16\n0,8\n1,9\n2,10\n3,11\n4,12\n5,13\n6,14\n7,15\n' > p16.txt
"$CS_BIN" partition --activations p16.txt --workers 8 --hidden-bytes 16384 --json p16.json --quiet || fail "p16: refused"
eq "p16: serve bytes before" "$(num serve_mlp_reduce_bytes_per_token p16.json before)" 9363
eq "p16: serve bytes after" "$(num serve_mlp_reduce_bytes_per_token p16.json after)" 8192
# Llama 3 70B, TP 8 on the HGX preset, B = 32 (docs/examples.md works it out): the decode step is
# 7,861,000 ns of compute + 81 dense all-reduces of 60,856 ns + 80 MLP all-reduces of 32 x 8192
# bytes: m = 262144 / 4 chunks / 8 = 8192, net trunc(1000 + 8192 / 265.697) = 1030, red 3 x 5 = 15,
# a chunk 10 + 14 x 1040 + 7 x 15 = 14,675, the all-reduce 58,700: 17,486,336 ns.  Dense (the
# default, or 2 h = 16384 given): 17,658,816 ns.
# (the ring closed form above is the astra model's: passed explicitly, the generator's default being nccl)
SV=(serve --model llama3-70b --device H100-SXM --tp 8 --flash-attention --batch 32 --prompt-tokens 2048
    --output-tokens 128 --network-configuration="$CS_SOURCE_DIR/examples/hgx_h100/network.yml" --quiet
    --set system.collective-model=astra)
for v in 0 16384 8192; do
    "$CS_BIN" "${SV[@]}" --set plan.mlp-reduce-bytes-per-token=$v --json sv$v.json 2> sv$v.err || fail "serve $v: $(cat sv$v.err)"
done
eq "serve dense: time per output token (ns)" "$(num time_per_output_token_ns sv0.json)" 17658816
eq "serve 2 h given: same as dense" "$(num time_per_output_token_ns sv16384.json)" 17658816
eq "serve partitioned: time per output token (ns)" "$(num time_per_output_token_ns sv8192.json)" 17486336
expect_fail "reduce bytes in a training step" "plan.mlp-reduce-bytes-per-token 8192|plan.phase prefill or decode" \
    "$CS_BIN" train --model llama3-70b --tp 8 --network-configuration="$CS_SOURCE_DIR/examples/hgx_h100/network.yml" \
    --set plan.mlp-reduce-bytes-per-token=8192
expect_fail "reduce bytes above 2 h" "plan.mlp-reduce-bytes-per-token 16385|at most|16384" \
    "$CS_BIN" "${SV[@]}" --set plan.mlp-reduce-bytes-per-token=16385

expect_fail "reduce bytes with experts" "plan.mlp-reduce-bytes-per-token 4096|dense MLP|8 experts" \
    "$CS_BIN" serve --model mixtral-8x7b --device H100-SXM --tp 8 --batch 8 --prompt-tokens 128 --output-tokens 4 \
    --network-configuration="$CS_SOURCE_DIR/examples/hgx_h100/network.yml" --set plan.mlp-reduce-bytes-per-token=4096

finish
