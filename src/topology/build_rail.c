/*
 * build_rail.c -- the "rail" builder: HGX/DGX-style servers (NVSwitch
 * scale-up + one NIC per GPU) on a rail-optimized Clos (cs_rail_params,
 * topology.h).
 *
 * Node numbering: GPUs first (server-major), then NICs, then the rail
 * switches, the spines, the NVSwitches.  Owns nothing beyond the result.
 */
#include "topology/builder.h"
#include "topology/topology.h"

#include <inttypes.h>
#include <stdio.h>

#include "core/checked.h"

int cs_topo_build_rail(const cs_rail_params *p, cs_topo **out, cs_error *err) {
    *out = NULL;
    if (p->servers == 0 || p->gpus_per_server == 0)
        return CS_ERR(err, CS_EINVAL, "rail: servers and gpus_per_server must be >= 1");
    if (p->servers > 1 && p->nic_bw <= 0)
        return CS_ERR(err, CS_EINVAL, "rail: %u servers need nic_bandwidth > 0", p->servers);
    if (p->gpus_per_server > 1 && p->nvlink_bw <= 0)
        return CS_ERR(err, CS_EINVAL, "rail: nvlink_bandwidth must be > 0");
    uint32_t g = p->gpus_per_server;
    int nics = p->nic_bw > 0;
    uint64_t n64 = (uint64_t)p->servers * g; /* 64 bits: it wrapped to 0 ("the topology has 0 NPUs") */
    uint64_t nodes = cs_add_u64_sat(n64 + (g > 1 ? p->servers : 0), nics ? n64 + g + p->spines : 0);
    uint64_t cables = cs_add_u64_sat((g > 1 ? n64 : 0), nics ? cs_add_u64_sat(cs_mul_u64_sat(2, n64), (uint64_t)g * p->spines) : 0);
    char what[160];
    snprintf(what, sizeof what, "rail: %u servers x %u GPUs = %" PRIu64 " NPUs%s", p->servers, g, n64,
             nics ? ", a NIC each" : "");
    int rc = cs_topo_check_size(what, nodes, cables, err);
    if (rc) return rc;
    uint32_t n = (uint32_t)n64;
    cs_topo *t = cs_topo_new(n);
    uint32_t nic0 = t->nnodes;
    if (nics)
        for (uint32_t v = 0; v < n; v++) cs_topo_add_node(t, CS_NODE_NIC);
    uint32_t rail0 = t->nnodes;
    if (nics)
        for (uint32_t r = 0; r < g; r++) cs_topo_add_node(t, CS_NODE_SWITCH);
    uint32_t spine0 = t->nnodes;
    if (nics)
        for (uint32_t s = 0; s < p->spines; s++) cs_topo_add_node(t, CS_NODE_SWITCH);
    uint32_t nvs0 = t->nnodes;
    if (g > 1)
        for (uint32_t s = 0; s < p->servers; s++) cs_topo_add_node(t, CS_NODE_SWITCH);
    for (uint32_t v = 0; v < n; v++) {
        uint32_t s = v / g, i = v % g;
        if (g > 1) cs_topo_add_cable(t, v, nvs0 + s, p->nvlink_bw, p->nvlink_lat);
        if (nics) {
            cs_topo_add_cable(t, v, nic0 + v, p->nic_bw, 0);
            cs_topo_add_cable(t, nic0 + v, rail0 + i, p->nic_bw, p->nic_lat);
        }
    }
    if (nics)
        for (uint32_t r = 0; r < g; r++)
            for (uint32_t s = 0; s < p->spines; s++)
                cs_topo_add_cable(t, rail0 + r, spine0 + s, p->spine_bw > 0 ? p->spine_bw : p->nic_bw, p->spine_lat);
    cs_topo_finalize(t);
    cs_topo_set_desc(t, "rail-optimized %u servers x %u GPUs (NVSwitch%s), %u rails, %u spines", p->servers, g,
                     nics ? " + NIC per GPU" : "", nics ? g : 0, nics ? p->spines : 0);
    *out = t;
    return CS_OK;
}

/* ---- the builder entry ------------------------------------------------------ */

typedef struct keys {
    int servers, gpus_per_server, spines;
    double nvlink_bw, nvlink_lat, nic_bw, nic_lat, spine_bw, spine_lat;
} keys;

#define INT_KEY(k, f, lo, d, h) CS_TOPO_INT_KEY(keys, k, f, lo, d, h)
#define NUM_KEY(k, f, u, d, h) CS_TOPO_NUM_KEY(keys, k, f, u, d, h)
static const cs_opt KEYS[] = {
    INT_KEY("servers", servers, 1, 1, "servers"),
    INT_KEY("gpus_per_server", gpus_per_server, 1, 8, "GPUs (and NICs, and rails) per server"),
    INT_KEY("spines", spines, 0, 0, "spine switches above the rail switches"),
    NUM_KEY("nvlink_bandwidth", nvlink_bw, CS_UNIT_GBPS, 450, "GPU-NVSwitch bandwidth per direction"),
    NUM_KEY("nvlink_latency", nvlink_lat, CS_UNIT_NS, 0, "GPU-NVSwitch latency"),
    NUM_KEY("nic_bandwidth", nic_bw, CS_UNIT_GBPS, 0, "NIC bandwidth per direction (0 = no NICs: one scale-up domain)"),
    NUM_KEY("nic_latency", nic_lat, CS_UNIT_NS, 0, "NIC-rail switch latency"),
    NUM_KEY("spine_bandwidth", spine_bw, CS_UNIT_GBPS, 0, "rail-spine bandwidth (0 = nic_bandwidth)"),
    NUM_KEY("spine_latency", spine_lat, CS_UNIT_NS, 0, "rail-spine latency"),
};

static int build(const void *params, const cs_network_config *net, cs_topo **out, cs_error *err) {
    (void)net;
    const keys *c = params;
    cs_rail_params p = {.servers = (uint32_t)c->servers, .gpus_per_server = (uint32_t)c->gpus_per_server,
                        .spines = (uint32_t)c->spines, .nvlink_bw = cs_gbps_to_bytes_per_ns(c->nvlink_bw),
                        .nic_bw = cs_gbps_to_bytes_per_ns(c->nic_bw), .spine_bw = cs_gbps_to_bytes_per_ns(c->spine_bw),
                        .nvlink_lat = cs_time_from_ns_f(c->nvlink_lat), .nic_lat = cs_time_from_ns_f(c->nic_lat),
                        .spine_lat = cs_time_from_ns_f(c->spine_lat)};
    return cs_topo_build_rail(&p, out, err);
}

static uint64_t npus(const void *params, const cs_network_config *net) {
    (void)net;
    const keys *c = params;
    return (uint64_t)c->servers * (uint64_t)c->gpus_per_server;
}

const cs_topo_builder cs_topo_builder_rail = {
    .name = "rail",
    .help = "HGX/DGX-style servers on a rail-optimized Clos: per server one NVSwitch (GPU - NVSwitch), one NIC per "
            "GPU (GPU - NIC - rail switch i for GPU i of every server), rail switches to every spine",
    .keys = KEYS,
    .nkeys = sizeof KEYS / sizeof KEYS[0],
    .params_size = sizeof(keys),
    .npus = npus,
    .build = build,
};
