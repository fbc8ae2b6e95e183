/*
 * build_astra.c -- topology builder for ASTRA-sim's products of Ring,
 * FullyConnected and Switch dimensions (the network YAML), so that every
 * existing network file runs on the flow backend unchanged.
 *
 * The links are those of analytical-congestion (docs/network.md): Ring (n>=3)
 * NPU <-> next NPU of its line (n = 2: one cable), FullyConnected every pair
 * of its line, Switch one switch node per line with a cable to each member.
 * Bandwidth: the dimension's GB/s read as GiB/s (cs_gbps_to_bytes_per_ns);
 * latency: the dimension's ns per link.  The builder "astra" has no keys of
 * its own: the network YAML is its input.  Owns nothing beyond the result.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "core/checked.h"
#include "core/units.h"
#include "topology/builder.h"
#include "topology/topology.h"

int cs_topo_check_astra(const cs_network_config *cfg, cs_error *err) {
    uint64_t n = cfg->total_npus, nodes = n, cables = 0;
    for (int d = 0; d < cfg->ndims; d++) {
        uint64_t k = cfg->npus[d];
        switch (cfg->topo[d]) {
        case CS_TOPO_RING: cables += k == 2 ? n / 2 : k >= 3 ? n : 0; break;
        case CS_TOPO_FULLY_CONNECTED: cables = cs_add_u64_sat(cables, cs_mul_u64_sat(n, k - 1) / 2); break;
        case CS_TOPO_SWITCH:
            if (k > 1) {
                nodes += n / k; /* one switch per line */
                cables += n;
            }
            break;
        }
    }
    char what[1100];
    snprintf(what, sizeof what, "%s: the graph of the network's dimensions (%" PRIu64 " NPUs)",
             cfg->path ? cfg->path : "network", n);
    return cs_topo_check_size(what, nodes, cables, err);
}

cs_topo *cs_topo_build_astra(const cs_network_config *cfg) {
    if (cs_topo_check_astra(cfg, NULL) != CS_OK) return NULL; /* callers that want the reason check first */
    uint32_t n = (uint32_t)cfg->total_npus;
    cs_topo *t = cs_topo_new(n);
    uint64_t radix = 1;
    for (int d = 0; d < cfg->ndims; d++) {
        uint32_t k = cfg->npus[d];
        double bw = cs_gbps_to_bytes_per_ns(cfg->bandwidth_gbps[d]);
        cs_time lat = cs_time_from_ns_f(cfg->latency_ns[d]);
        for (uint32_t v = 0; v < n; v++) {
            uint32_t c = (uint32_t)((v / radix) % k);
            uint32_t base = (uint32_t)(v - c * radix);
            switch (cfg->topo[d]) {
            case CS_TOPO_RING:
                if (k == 2 && c == 0) cs_topo_add_cable(t, v, (uint32_t)(base + radix), bw, lat);
                else if (k >= 3) cs_topo_add_cable(t, v, (uint32_t)(base + ((c + 1) % k) * radix), bw, lat);
                break;
            case CS_TOPO_FULLY_CONNECTED:
                for (uint32_t o = c + 1; o < k; o++) cs_topo_add_cable(t, v, (uint32_t)(base + o * radix), bw, lat);
                break;
            case CS_TOPO_SWITCH:
                if (c == 0 && k > 1) {
                    uint32_t sw = cs_topo_add_node(t, CS_NODE_SWITCH);
                    for (uint32_t o = 0; o < k; o++) cs_topo_add_cable(t, (uint32_t)(base + o * radix), sw, bw, lat);
                }
                break;
            }
        }
        radix *= k;
    }
    cs_topo_finalize(t);
    cs_topo_set_desc(t, "ASTRA-sim product of %d dimension%s, %u NPUs", cfg->ndims, cfg->ndims == 1 ? "" : "s", n);
    return t;
}

static int build(const void *params, const cs_network_config *net, cs_topo **out, cs_error *err) {
    (void)params;
    int rc = cs_topo_check_astra(net, err);
    if (rc) return rc;
    *out = cs_topo_build_astra(net);
    return CS_OK;
}

const cs_topo_builder cs_topo_builder_astra = {
    .name = "astra",
    .help = "the network YAML's Ring / FullyConnected / Switch product, with the links of "
            "analytical-congestion (what --backend flow builds without --topology)",
    .keys = NULL,
    .nkeys = 0,
    .params_size = 0,
    .build = build,
};
