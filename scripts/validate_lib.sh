# shellcheck shell=bash
# validate_lib.sh -- sourced by scripts/validate_korthikanti.sh and
# scripts/validate_megatron.sh: the train flags every row gets, and the
# network of the rows' DGX A100 nodes for the collective model they run.
#
# MODEL_SET: CS_COLLECTIVE_MODEL as a key, then CS_VALIDATE_ARGS (more train
# flags for every row: what-ifs, e.g. "--gradient-accumulation-fusion").
MODEL_SET=""
[ -n "${CS_COLLECTIVE_MODEL:-}" ] && MODEL_SET="--set system.collective-model=$CS_COLLECTIVE_MODEL"
MODEL_SET="$MODEL_SET ${CS_VALIDATE_ARGS:-}"
# The network: DGX A100 nodes (NVSwitch inside, one 200 Gb/s HDR port per GPU).
# With the nccl model (the default) its bandwidths are what that model's B
# stands for, NCCL's own figures -- NVLink 12 links x NCCL's 20 GB/s = 240
# GB/s, the NIC 25 GB/s -- with latency 0, as examples/presets/dgx_a100_x4/
# network_nccl.yml (the model pays NCCL's per-step latencies itself;
# docs/collectives.md); with CS_COLLECTIVE_MODEL=astra the datasheet's links,
# NVLink3 300 GB/s and 25 GB/s, 700 / 3000 ns per hop (the astra model times
# the physical link).  GB/s in the files are GiB/s (ASTRA-sim's reading).
# (The model as the runs will see it: CS_COLLECTIVE_MODEL, or a
# system.collective-model key among CS_VALIDATE_ARGS.)
MODEL=${CS_COLLECTIVE_MODEL:-nccl}
case " ${CS_VALIDATE_ARGS:-} " in *collective-model=astra*) MODEL=astra ;; esac
case " ${CS_VALIDATE_ARGS:-} " in *collective-model=nccl*) MODEL=nccl ;; esac
if [ "$MODEL" = astra ]; then
    BW_NV=279.4 BW_IB=23.28 LAT_NV=700.0 LAT_IB=3000.0
else
    BW_NV=223.5174179 BW_IB=23.28306437 LAT_NV=0 LAT_IB=0
fi

# dgx_a100_net FILE NODES: the network YAML of NODES such nodes (one
# dimension, the NVSwitch, for a single node).
dgx_a100_net() {
    if [ "$2" -eq 1 ]; then
        printf 'topology: [ Switch ]\nnpus_count: [ 8 ]\nbandwidth: [ %s ]\nlatency: [ %s ]\n' \
            "$BW_NV" "$LAT_NV" > "$1"
    else
        printf 'topology: [ Switch, Switch ]\nnpus_count: [ 8, %d ]\nbandwidth: [ %s, %s ]\nlatency: [ %s, %s ]\n' \
            "$2" "$BW_NV" "$BW_IB" "$LAT_NV" "$LAT_IB" > "$1"
    fi
}
