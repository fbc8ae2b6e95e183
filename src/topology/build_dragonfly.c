/*
 * build_dragonfly.c -- the "dragonfly" builder: groups of routers fully
 * connected inside a group, NPUs on routers, one global cable between every
 * pair of groups (cs_dragonfly_params, topology.h).
 *
 * Node numbering: NPUs group-major (npu = (group * routers + router) *
 * npus_per_router + k), then the routers (group * routers + router).  Owns
 * nothing beyond the result.  The global-link arrangement: docs/topology.md.
 */
#include "topology/builder.h"
#include "topology/topology.h"

#include <stdio.h>

#include "core/checked.h"

/* Router (in group g) that holds the global cable to group o: the other
 * groups are numbered 0..G-2 from g's point of view, h per router. */
static uint32_t global_router(uint32_t g, uint32_t o, uint32_t h) { return (o < g ? o : o - 1) / h; }

int cs_topo_build_dragonfly(const cs_dragonfly_params *p, cs_topo **out, cs_error *err) {
    *out = NULL;
    uint32_t G = p->groups, a = p->routers_per_group, np = p->npus_per_router, h = p->global_per_router;
    if (G == 0 || a == 0 || np == 0)
        return CS_ERR(err, CS_EINVAL, "dragonfly: groups, routers_per_group and npus_per_router must be >= 1");
    if (G > 1 && (uint64_t)a * h < G - 1)
        return CS_ERR(err, CS_EINVAL,
                      "dragonfly: %u groups need routers_per_group x global_links_per_router >= %u (one global cable "
                      "to every other group), got %u x %u",
                      G, G - 1, a, h);
    uint64_t routers = (uint64_t)G * a, n64 = cs_mul_u64_sat(routers, np);
    char what[160];
    snprintf(what, sizeof what, "dragonfly: %u groups x %u routers x %u NPUs", G, a, np);
    int rc = cs_topo_check_size(what, cs_add_u64_sat(n64, routers),
                                cs_add_u64_sat(cs_add_u64_sat(n64, cs_mul_u64_sat(G, (uint64_t)a * (a - 1) / 2)),
                                               (uint64_t)G * (G - 1) / 2),
                                err);
    if (rc) return rc;
    if (p->host_bw <= 0 || p->local_bw <= 0 || p->global_bw <= 0)
        return CS_ERR(err, CS_EINVAL, "dragonfly: bandwidths must be > 0");
    uint32_t n = G * a * np;
    cs_topo *t = cs_topo_new(n);
    uint32_t r0 = t->nnodes;
    for (uint32_t i = 0; i < G * a; i++) cs_topo_add_node(t, CS_NODE_SWITCH);
    for (uint32_t v = 0; v < n; v++) cs_topo_add_cable(t, v, r0 + v / np, p->host_bw, p->host_lat);
    for (uint32_t g = 0; g < G; g++)
        for (uint32_t i = 0; i < a; i++)
            for (uint32_t j = i + 1; j < a; j++) cs_topo_add_cable(t, r0 + g * a + i, r0 + g * a + j, p->local_bw, p->local_lat);
    for (uint32_t g = 0; g < G; g++)
        for (uint32_t o = g + 1; o < G; o++)
            cs_topo_add_cable(t, r0 + g * a + global_router(g, o, h), r0 + o * a + global_router(o, g, h), p->global_bw,
                              p->global_lat);
    cs_topo_finalize(t);
    cs_topo_set_desc(t, "dragonfly %u groups x %u routers x %u NPUs, %u global links per router", G, a, np, h);
    *out = t;
    return CS_OK;
}

/* ---- the builder entry ------------------------------------------------------ */

typedef struct keys {
    int groups, routers_per_group, npus_per_router, global_per_router;
    double link_bw, link_lat, local_bw, local_lat, global_bw, global_lat;
} keys;

#define INT_KEY(k, f, lo, d, h) CS_TOPO_INT_KEY(keys, k, f, lo, d, h)
#define NUM_KEY(k, f, u, d, h) CS_TOPO_NUM_KEY(keys, k, f, u, d, h)
#define NUM_KEY_UNSET(k, f, u, h) CS_TOPO_NUM_KEY_UNSET(keys, k, f, u, h)
static const cs_opt KEYS[] = {
    INT_KEY("groups", groups, 1, 1, "groups"),
    INT_KEY("routers_per_group", routers_per_group, 1, 4, "routers per group (fully connected)"),
    INT_KEY("npus_per_router", npus_per_router, 1, 2, "NPUs per router"),
    INT_KEY("global_links_per_router", global_per_router, 0, 1,
            "global cables per router (needs routers_per_group x this >= groups - 1)"),
    NUM_KEY("link_bandwidth", link_bw, CS_UNIT_GBPS, 50, "NPU-router bandwidth per direction"),
    NUM_KEY("link_latency", link_lat, CS_UNIT_NS, 500, "NPU-router latency"),
    NUM_KEY("local_bandwidth", local_bw, CS_UNIT_GBPS, 0, "router-router bandwidth in a group (0 = link_bandwidth)"),
    NUM_KEY_UNSET("local_latency", local_lat, CS_UNIT_NS, "router-router latency (default link_latency)"),
    NUM_KEY("global_bandwidth", global_bw, CS_UNIT_GBPS, 0, "global cable bandwidth (0 = link_bandwidth)"),
    NUM_KEY_UNSET("global_latency", global_lat, CS_UNIT_NS, "global cable latency (default link_latency)"),
};

static int build(const void *params, const cs_network_config *net, cs_topo **out, cs_error *err) {
    (void)net;
    const keys *c = params;
    double lat = c->link_lat;
    cs_dragonfly_params p = {
        .groups = (uint32_t)c->groups, .routers_per_group = (uint32_t)c->routers_per_group,
        .npus_per_router = (uint32_t)c->npus_per_router, .global_per_router = (uint32_t)c->global_per_router,
        .host_bw = cs_gbps_to_bytes_per_ns(c->link_bw),
        .local_bw = cs_gbps_to_bytes_per_ns(c->local_bw > 0 ? c->local_bw : c->link_bw),
        .global_bw = cs_gbps_to_bytes_per_ns(c->global_bw > 0 ? c->global_bw : c->link_bw),
        .host_lat = cs_time_from_ns_f(lat), .local_lat = cs_time_from_ns_f(c->local_lat >= 0 ? c->local_lat : lat),
        .global_lat = cs_time_from_ns_f(c->global_lat >= 0 ? c->global_lat : lat)};
    return cs_topo_build_dragonfly(&p, out, err);
}

static uint64_t npus(const void *params, const cs_network_config *net) {
    (void)net;
    const keys *c = params;
    return cs_mul_u64_sat(cs_mul_u64_sat((uint64_t)c->groups, (uint64_t)c->routers_per_group),
                          (uint64_t)c->npus_per_router);
}

const cs_topo_builder cs_topo_builder_dragonfly = {
    .name = "dragonfly",
    .help = "groups of routers_per_group routers fully connected inside a group, npus_per_router NPUs per router, "
            "one global cable between every pair of groups; group g's cable to group o is on router "
            "(o < g ? o : o - 1) / global_links_per_router",
    .keys = KEYS,
    .nkeys = sizeof KEYS / sizeof KEYS[0],
    .params_size = sizeof(keys),
    .npus = npus,
    .build = build,
};
