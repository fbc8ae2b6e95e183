# packet_scenario.sh -- the inputs of the packet backend's benchmark
# scenarios, shared by bench/packet.sh and bench/packet_htsim.sh (sourced,
# not run): packet_scenario BW writes into the current directory
#   net.yml, ft.json  a 1,024-host two-tier fat-tree (32 leaves of 32 hosts,
#                     32 spines, 1:1), every link BW GB/s and 1 us
#   sys.json          ring collectives, direct all-to-all
#   perm.<r>.et       host r sends BYTES to host (389 r + 17) mod 1024 (389 is
#                     odd: a bijection) and receives from its sender
#   inc.<r>.et        hosts 60, 120, ..., 960 send BYTES each to host 0
# with N=1024 and BYTES=2000000 (set here) and $MK the trace writer.
N=1024
BYTES=2000000
packet_scenario() {
    local bw=$1
    printf 'topology: [ Switch ]\nnpus_count: [ %d ]\nbandwidth: [ %s ]\nlatency: [ 1000 ]\n' $N "$bw" > net.yml
    printf '{"builder": "fat-tree", "npus_per_leaf": 32, "spines": 32, "link_bandwidth": %s, "link_latency": 1000}\n' "$bw" > ft.json
    printf '{"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,\n "preferred-dataset-splits": 4, "all-reduce-implementation": ["ring"], "all-gather-implementation": ["ring"],\n "reduce-scatter-implementation": ["ring"], "all-to-all-implementation": ["direct"], "collective-optimization": "baseline", "local-mem-bw": 1600}\n' > sys.json
    local specs=() inc=() r d s sp k
    for ((r = 0; r < N; r++)); do
        d=$(( (389 * r + 17) % N ))
        s=$(( ((r - 17 + N) * 845) % N )) # the sender to r: 845 = 389^-1 mod 1024
        specs+=("1 SEND dst=$d size=$BYTES tag=1; 2 RECV src=$s size=$BYTES tag=1")
    done
    "$MK" --ranks perm "${specs[@]}" || return 1
    for ((r = 0; r < N; r++)); do
        if ((r == 0)); then
            sp=""
            for ((k = 1; k <= 16; k++)); do sp+="$k RECV src=$((k * 60)) size=$BYTES tag=1; "; done
            inc+=("${sp%; }")
        elif ((r % 60 == 0 && r / 60 <= 16)); then
            inc+=("1 SEND dst=0 size=$BYTES tag=1")
        else
            inc+=("")
        fi
    done
    "$MK" --ranks inc "${inc[@]}" || return 1
}
