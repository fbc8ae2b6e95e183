#!/usr/bin/env bash
# cli_hgx_h100.sh -- validation of the HGX H100 preset (examples/hgx_h100,
# docs/validation.md "HGX H100 all-reduce"): simulated nccl-tests busbw of an
# 8-GPU in-switch (NVLS) all-reduce against Azure ND H100 v5's measured
# all_reduce_perf (NCCL 2.18.5): within 10 % from 16 MiB up, and the exact
# simulated times of the preset (T = 2 x 32500 + floor(2 x 500 + S / 265.7)
# ns, 265.7 = 247.45 x 2^30 / 1e9 bytes/ns).
. "$(dirname "$0")/lib_cli.sh"
: "${CS_MKTRACE:?}"
cd "$CS_TMP" || exit 1
EX="$(dirname "$0")/../examples/hgx_h100"
# size  measured busbw GB/s  simulated ns
while read -r S M T; do
    "$CS_MKTRACE" ar$S.et "1 COLL ctype=0 size=$S" || fail "mktrace $S"
    "$CS_BIN" run --workload-configuration=ar$S.et --network-configuration="$EX/network.yml" \
        --system-configuration="$EX/system.json" --quiet --out o$S 2>err.txt || { fail "$S: $(cat err.txt)"; continue; }
    row=$(sed -n 2p o$S/collectives.csv)
    got_t=$(echo "$row" | cut -d, -f11); bus=$(echo "$row" | cut -d, -f13)
    [ "$got_t" = "$T" ] && pass "$S B: $T ns" || fail "$S B: $got_t ns, expected $T"
    if [ "$S" -ge 16777216 ]; then
        awk -v b="$bus" -v m="$M" 'BEGIN { e = (b / m - 1) * 100; exit !(e < 10 && e > -10) }' \
            && pass "$S B: busbw $bus vs measured $M GB/s within 10 %" || fail "$S B: busbw $bus vs measured $M"
    fi
done <<'TABLE'
1048576 43.7 69946
16777216 234.5 129144
67108864 361.8 318576
268435456 423.4 1076305
1073741824 466.4 4107220
8589934592 478.9 32395763
TABLE
finish
