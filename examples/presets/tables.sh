#!/usr/bin/env bash
# tables.sh -- prints docs/presets.md's collective tables: `clustersim collective`
# on every preset of examples/presets (all-reduce, all-gather, reduce-scatter
# busbw, GB/s = 1e9 B/s; presets with a system_nccl.json also with
# collective-model nccl, on network_nccl.yml where the preset has one: the
# multi-node presets, whose nccl network has latency 0).
# Usage: examples/presets/tables.sh [CLUSTERSIM] (default build/clustersim),
# from the repository root.
set -eu
BIN=${1:-build/clustersim}
P=examples/presets
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
sizes="65536 1048576 16777216 67108864 268435456 1073741824 4294967296"
# col PRESET SYSTEM OP [NETWORK]: "time_us busbw" per size, one line each
col() {
    "$BIN" collective --network-configuration="$P/$1/${4:-network.yml}" --system-configuration="$P/$1/$2" \
        --op "$3" -b 64K -e 4G -f 4 --quiet --out "$T/c.csv"
    # rows 1, 3, 5-9: 64 KiB, 1 MiB, 16 MiB .. 4 GiB (nccl-tests' sizes: rounded down to whole elements per rank)
    awk -F, 'NR == 2 || NR == 4 || (NR >= 6 && NR <= 10) { printf "%.2f %.1f\n", $6, $8 }' "$T/c.csv"
}
human() { awk -v s="$1" 'BEGIN { u = "B"; split("KiB MiB GiB", U, " "); for (i = 1; i <= 3 && s >= 1024; i++) { s /= 1024; u = U[i] } printf "%d %s", s, u }'; }
for d in "$P"/*/; do
    name=$(basename "$d")
    echo "### $name"
    echo
    col "$name" system.json all_reduce >"$T/ar"
    col "$name" system.json all_gather >"$T/ag"
    col "$name" system.json reduce_scatter >"$T/rs"
    head="| size | all-reduce time (us) | all-reduce busbw | all-gather busbw | reduce-scatter busbw |"
    rule="|---|---:|---:|---:|---:|"
    nccl=0
    if [ -f "$d/system_nccl.json" ]; then
        nccl=1
        net=network.yml
        [ -f "$d/network_nccl.yml" ] && net=network_nccl.yml
        col "$name" system_nccl.json all_reduce "$net" >"$T/nar"
        col "$name" system_nccl.json all_gather "$net" >"$T/nag"
        head="$head nccl model: all-reduce time (us) | busbw | all-gather busbw |"
        rule="$rule---:|---:|---:|"
    fi
    echo "$head"
    echo "$rule"
    i=0
    for s in $sizes; do
        i=$((i + 1))
        read -r t b <<<"$(sed -n ${i}p "$T/ar")"
        read -r _ g <<<"$(sed -n ${i}p "$T/ag")"
        read -r _ r <<<"$(sed -n ${i}p "$T/rs")"
        row="| $(human "$s") | $t | $b | $g | $r |"
        if [ $nccl = 1 ]; then
            read -r nt nb <<<"$(sed -n ${i}p "$T/nar")"
            read -r _ ng <<<"$(sed -n ${i}p "$T/nag")"
            row="$row $nt | $nb | $ng |"
        fi
        echo "$row"
    done
    echo
done
