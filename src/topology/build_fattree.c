/*
 * build_fattree.c -- the "fat-tree" builder: a two-tier leaf-spine Clos
 * (folded fat-tree) with oversubscription (cs_fattree_params, topology.h).
 *
 * Node numbering: NPUs 0..npus-1, then the leaves, then the spines.  The key
 * table is in the user's units (GB/s, ns); the uplink bandwidth is derived in
 * GB/s (uplink_bandwidth, else from oversubscription, else link_bandwidth)
 * and converted once.  Owns nothing beyond the result.
 */
#include "topology/builder.h"
#include "topology/topology.h"

#include <stdio.h>

#include "core/checked.h"

int cs_topo_build_fattree(const cs_fattree_params *p, cs_topo **out, cs_error *err) {
    *out = NULL;
    if (p->npus == 0 || p->npus_per_leaf == 0 || p->npus % p->npus_per_leaf)
        return CS_ERR(err, CS_EINVAL, "fat-tree: npus (%u) must be a positive multiple of npus_per_leaf (%u)",
                      p->npus, p->npus_per_leaf);
    if (p->host_bw <= 0 || (p->spines && p->uplink_bw <= 0))
        return CS_ERR(err, CS_EINVAL, "fat-tree: bandwidths must be > 0");
    uint32_t leaves = p->npus / p->npus_per_leaf;
    if (leaves > 1 && p->spines == 0)
        return CS_ERR(err, CS_EINVAL, "fat-tree: %u leaves need spines >= 1", leaves);
    uint32_t up = p->uplinks_per_spine ? p->uplinks_per_spine : 1;
    char what[160];
    snprintf(what, sizeof what, "fat-tree: %u NPUs, %u leaves, %u spines x %u uplinks", p->npus, leaves, p->spines, up);
    int rc = cs_topo_check_size(what, (uint64_t)p->npus + leaves + p->spines,
                                cs_add_u64_sat(p->npus, cs_mul_u64_sat(cs_mul_u64_sat(leaves, p->spines), up)), err);
    if (rc) return rc;
    cs_topo *t = cs_topo_new(p->npus);
    uint32_t leaf0 = t->nnodes;
    for (uint32_t l = 0; l < leaves; l++) cs_topo_add_node(t, CS_NODE_SWITCH);
    uint32_t spine0 = t->nnodes;
    for (uint32_t s = 0; s < p->spines; s++) cs_topo_add_node(t, CS_NODE_SWITCH);
    for (uint32_t v = 0; v < p->npus; v++) cs_topo_add_cable(t, v, leaf0 + v / p->npus_per_leaf, p->host_bw, p->host_lat);
    for (uint32_t l = 0; l < leaves; l++)
        for (uint32_t s = 0; s < p->spines; s++)
            for (uint32_t u = 0; u < up; u++) cs_topo_add_cable(t, leaf0 + l, spine0 + s, p->uplink_bw, p->uplink_lat);
    cs_topo_finalize(t);
    double over = p->spines ? (double)p->npus_per_leaf * p->host_bw / ((double)p->spines * up * p->uplink_bw) : 1.0;
    cs_topo_set_desc(t, "fat-tree %u NPUs, %u leaves of %u, %u spines, oversubscription %.3g:1", p->npus, leaves,
                     p->npus_per_leaf, p->spines, over);
    *out = t;
    return CS_OK;
}

/* ---- the builder entry ------------------------------------------------------ */

typedef struct keys {
    int npus, npus_per_leaf, spines, uplinks_per_spine;
    double link_bw, link_lat, uplink_bw, uplink_lat, oversub;
} keys;

#define INT_KEY(k, f, lo, d, h) CS_TOPO_INT_KEY(keys, k, f, lo, d, h)
#define NUM_KEY(k, f, u, d, h) CS_TOPO_NUM_KEY(keys, k, f, u, d, h)
#define NUM_KEY_UNSET(k, f, u, h) CS_TOPO_NUM_KEY_UNSET(keys, k, f, u, h)
static const cs_opt KEYS[] = {
    INT_KEY("npus", npus, 0, 0, "NPUs (0 = the network configuration's count)"),
    INT_KEY("npus_per_leaf", npus_per_leaf, 1, 8, "NPUs under one leaf switch"),
    INT_KEY("spines", spines, 0, 0, "spine switches (needed for more than one leaf)"),
    INT_KEY("uplinks_per_spine", uplinks_per_spine, 1, 1, "parallel cables from each leaf to each spine"),
    NUM_KEY("link_bandwidth", link_bw, CS_UNIT_GBPS, 50, "NPU-leaf bandwidth per direction"),
    NUM_KEY("link_latency", link_lat, CS_UNIT_NS, 500, "NPU-leaf latency"),
    NUM_KEY("uplink_bandwidth", uplink_bw, CS_UNIT_GBPS, 0,
            "leaf-spine bandwidth (0 = from oversubscription, else link_bandwidth)"),
    NUM_KEY_UNSET("uplink_latency", uplink_lat, CS_UNIT_NS, "leaf-spine latency (default link_latency)"),
    NUM_KEY("oversubscription", oversub, NULL, 0,
            "leaf downlink/uplink bandwidth ratio r: uplink_bandwidth = npus_per_leaf x link_bandwidth / "
            "(spines x uplinks_per_spine x r) when uplink_bandwidth is 0"),
};

static int build(const void *params, const cs_network_config *net, cs_topo **out, cs_error *err) {
    const keys *c = params;
    cs_fattree_params p = {.npus = c->npus ? (uint32_t)c->npus : (uint32_t)net->total_npus,
                           .npus_per_leaf = (uint32_t)c->npus_per_leaf, .spines = (uint32_t)c->spines,
                           .uplinks_per_spine = (uint32_t)c->uplinks_per_spine,
                           .host_bw = cs_gbps_to_bytes_per_ns(c->link_bw),
                           .host_lat = cs_time_from_ns_f(c->link_lat),
                           .uplink_lat = cs_time_from_ns_f(c->uplink_lat >= 0 ? c->uplink_lat : c->link_lat)};
    double up = c->uplink_bw;
    if (up <= 0 && c->oversub > 0 && c->spines > 0)
        up = (double)c->npus_per_leaf * c->link_bw / ((double)c->spines * c->uplinks_per_spine * c->oversub);
    if (up <= 0) up = c->link_bw;
    p.uplink_bw = cs_gbps_to_bytes_per_ns(up);
    return cs_topo_build_fattree(&p, out, err);
}

static uint64_t npus(const void *params, const cs_network_config *net) {
    const keys *c = params;
    return c->npus ? (uint64_t)c->npus : net->total_npus;
}

const cs_topo_builder cs_topo_builder_fattree = {
    .name = "fat-tree",
    .help = "two-tier leaf-spine Clos (folded fat-tree): npus / npus_per_leaf leaves, every leaf to every spine",
    .keys = KEYS,
    .nkeys = sizeof KEYS / sizeof KEYS[0],
    .params_size = sizeof(keys),
    .npus = npus,
    .build = build,
};
