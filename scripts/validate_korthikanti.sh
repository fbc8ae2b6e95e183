#!/usr/bin/env bash
# validate_korthikanti.sh -- the four Korthikanti et al. 2022 cases (A100 80 GB,
# DGX A100 nodes) through `clustersim train`, each one command; prints the
# simulated iteration time next to the published one (docs/validation.md).
set -eu
BIN=${CS_BIN:-build/clustersim}
EX=$(dirname "$0")/../examples/korthikanti
run() { # name published-seconds args...
    local name=$1 want=$2; shift 2
    local got
    got=$("$BIN" train --device A100-80GB "$@" | awk '/iteration time/ {print $3}')
    awk -v n="$name" -v w="$want" -v g="$got" 'BEGIN { printf "%-28s published %6.2f s  simulated %8.4f s  error %+5.1f %%\n", n, w, g, 100 * (g - w) / w }'
}
run "22B full recompute"   1.42 --model gpt3-22b --tp 8 --global-batch 4 --recompute full \
    --network-configuration="$EX/dgx_a100_1node.yml"
run "22B SP + selective"   1.10 --model gpt3-22b --tp 8 --sp --global-batch 4 --recompute selective \
    --network-configuration="$EX/dgx_a100_1node.yml"
run "175B full recompute" 18.13 --model gpt3-175b --tp 8 --pp 8 --global-batch 64 --recompute full \
    --network-configuration="$EX/dgx_a100_8nodes.yml"
run "175B SP + selective" 13.75 --model gpt3-175b --tp 8 --pp 8 --sp --global-batch 64 --recompute selective \
    --network-configuration="$EX/dgx_a100_8nodes.yml"
