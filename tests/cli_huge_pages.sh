#!/usr/bin/env bash
# cli_huge_pages.sh -- the allocator's request for transparent huge pages
# (core/alloc.c, docs/performance.md "Huge pages") changes only the time:
# with it (the default) and without it (CS_THP=0) the files of a run are
# byte for byte the same -- summary.json, ranks.csv, collectives.csv,
# links.csv, flows.csv, and the report but for its wall time -- on the analytical backend (a 4,096-NPU all-reduce, every rank
# simulated), on flow (a 256-NPU all-to-all) and on packet (a 16-NPU
# all-reduce on a RoCE Clos).  Where the kernel gives huge pages only on
# request (transparent_hugepage "madvise", Debian's default), --verbose
# reports some of the process in huge pages with the request and none
# without it; the check says why it is skipped on other systems and in
# sanitizer builds (their allocator is not glibc's).
# (No timing is asserted.)
. "$(dirname "$0")/lib_cli.sh"
: "${CS_MKTRACE:?}"
cd "$CS_TMP" || exit 1
EX="$CS_SOURCE_DIR/examples/roce_clos"
"$CS_MKTRACE" ar.et "1 COLL ctype=0 size=67108864" || exit 1
"$CS_MKTRACE" a2a.et "1 COLL ctype=6 size=16777216" || exit 1
"$CS_MKTRACE" ar1m.et "1 COLL ctype=0 size=1048576" || exit 1
printf 'topology: [ Ring, FullyConnected, Switch ]\nnpus_count: [ 16, 16, 16 ]\nbandwidth: [ 200.0, 100.0, 50.0 ]\nlatency: [ 50.0, 500.0, 2000.0 ]\n' > n4k.yml
printf 'topology: [ Switch ]\nnpus_count: [ 256 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' > s256.yml
printf 'topology: [ Switch ]\nnpus_count: [ 16 ]\nbandwidth: [ 50 ]\nlatency: [ 1000 ]\n' > n16.yml
printf '{"builder": "fat-tree", "npus_per_leaf": 8, "spines": 2, "link_bandwidth": 50, "link_latency": 1000}\n' > ft.json
sysj() { # $1 = the implementation of every collective, $2 = how many dimensions
    local l="\"$1\"" i
    for ((i = 1; i < $2; i++)); do l="$l, \"$1\""; done
    printf '{"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,\n'
    printf ' "preferred-dataset-splits": 4, "all-reduce-implementation": [%s], "all-gather-implementation": [%s],\n' "$l" "$l"
    printf ' "reduce-scatter-implementation": [%s], "all-to-all-implementation": [%s],\n' "$l" "$l"
    printf ' "collective-optimization": "baseline", "local-mem-bw": 1600}\n'
}
sysj ring 3 > ring3.json
sysj direct 1 > direct.json

# $1 = name; the rest: run's arguments.  Runs with and without huge pages, compares the files.
both() {
    local name=$1; shift
    rm -rf "on_$name" "off_$name"
    if ! "$CS_BIN" run "$@" --verbose --out "on_$name" > "on_$name.txt" 2> "on_$name.err"; then
        fail "$name: $(tail -3 "on_$name.err")"; return
    fi
    if ! CS_THP=0 "$CS_BIN" run "$@" --verbose --out "off_$name" > "off_$name.txt" 2> "off_$name.err"; then
        fail "$name with CS_THP=0: $(tail -3 "off_$name.err")"; return
    fi
    local f n=0
    [ "$(ls "on_$name")" = "$(ls "off_$name")" ] || { fail "$name: other files with CS_THP=0"; return; }
    for f in "on_$name"/*; do
        n=$((n + 1))
        cmp -s "$f" "off_$name/$(basename "$f")" || { fail "$name: $(basename "$f") differs with CS_THP=0"; return; }
    done
    # the report too, but for its wall time and the output directory's name
    local strip='s/, [0-9.]* s wall//; s/\(on\|off\)_'"$name"'/DIR/g'
    cmp -s <(sed "$strip" "on_$name.txt") <(sed "$strip" "off_$name.txt") \
        || { fail "$name: the report differs with CS_THP=0: $(diff <(sed "$strip" "on_$name.txt") <(sed "$strip" "off_$name.txt") | head -4)"; return; }
    [ "$n" -ge 3 ] && pass "$name: the same $n files and report with and without huge pages" || fail "$name: only $n files"
}
both analytical_4k --workload-configuration=ar.et --network-configuration=n4k.yml \
    --system-configuration=ring3.json --symmetry off
both flow_a2a256 --workload-configuration=a2a.et --network-configuration=s256.yml \
    --system-configuration=direct.json --backend flow
both packet_clos --workload-configuration=ar1m.et --network-configuration=n16.yml \
    --system-configuration="$EX/system.json" --topology=ft.json --backend packet

# --verbose's report of huge pages (MiB of the process in them at the end)
huge() { sed -n 's/.*; \([0-9.]*\) MiB of the process in huge pages.*/\1/p' "$1"; }
mode=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
on=$(huge on_analytical_4k.err) off=$(huge off_analytical_4k.err)
if [ -z "$on" ] || [ -z "$off" ]; then
    fail "--verbose reports huge pages: $(grep memory: on_analytical_4k.err)"
elif [ -n "${CS_SANITIZED:-}" ]; then
    echo "skip huge-page use: a sanitizer build allocates with the sanitizer's allocator (reported: $on / $off MiB)"
elif [ "$mode" = madvise ]; then
    python3 -c "import sys; sys.exit(0 if float('$on') > 0 and float('$off') == 0 else 1)" \
        && pass "huge pages on request only: $on MiB with it, $off without" \
        || fail "huge pages: $on MiB with the request, $off without (transparent_hugepage=madvise)"
else
    echo "skip huge-page use: transparent_hugepage is '${mode:-absent}' here, not madvise (reported: $on / $off MiB)"
fi
finish
