/*
 * build_clos3.c -- the "clos3" builder: a three-tier Clos of pods with
 * per-tier oversubscription (cs_clos3_params, topology.h).
 *
 * Node numbering: NPUs, then leaves, then aggregation switches (pod-major),
 * then cores (core group-major).  Uplink and core bandwidths are derived in
 * GB/s from the oversubscription keys and converted once.  Owns nothing
 * beyond the result.
 */
#include "topology/builder.h"
#include "topology/topology.h"

#include <stdio.h>

#include "core/checked.h"

int cs_topo_build_clos3(const cs_clos3_params *p, cs_topo **out, cs_error *err) {
    *out = NULL;
    if (p->npus == 0 || p->npus_per_leaf == 0 || p->leaves_per_pod == 0 ||
        p->npus % ((uint64_t)p->npus_per_leaf * p->leaves_per_pod))
        return CS_ERR(err, CS_EINVAL, "clos3: npus (%u) must be a positive multiple of npus_per_leaf x leaves_per_pod (%u x %u)",
                      p->npus, p->npus_per_leaf, p->leaves_per_pod);
    if (p->aggs_per_pod == 0 || p->cores_per_agg == 0)
        return CS_ERR(err, CS_EINVAL, "clos3: aggs_per_pod and cores_per_agg must be >= 1");
    if (p->host_bw <= 0 || p->leaf_up_bw <= 0 || p->agg_up_bw <= 0)
        return CS_ERR(err, CS_EINVAL, "clos3: bandwidths must be > 0");
    uint32_t leaves = p->npus / p->npus_per_leaf, pods = leaves / p->leaves_per_pod, A = p->aggs_per_pod;
    uint64_t aggs = cs_mul_u64_sat(pods, A), cores = cs_mul_u64_sat(A, p->cores_per_agg);
    char what[200];
    snprintf(what, sizeof what, "clos3: %u NPUs, %u leaves, %u pods x %u aggregation switches, %u x %u cores", p->npus,
             leaves, pods, A, A, p->cores_per_agg);
    int rc = cs_topo_check_size(what, cs_add_u64_sat((uint64_t)p->npus + leaves, cs_add_u64_sat(aggs, cores)),
                                cs_add_u64_sat(cs_add_u64_sat(p->npus, cs_mul_u64_sat(leaves, A)),
                                               cs_mul_u64_sat(aggs, p->cores_per_agg)),
                                err);
    if (rc) return rc;
    cs_topo *t = cs_topo_new(p->npus);
    uint32_t leaf0 = t->nnodes;
    for (uint32_t l = 0; l < leaves; l++) cs_topo_add_node(t, CS_NODE_SWITCH);
    uint32_t agg0 = t->nnodes;
    for (uint32_t i = 0; i < pods * A; i++) cs_topo_add_node(t, CS_NODE_SWITCH);
    uint32_t core0 = t->nnodes;
    for (uint32_t i = 0; i < A * p->cores_per_agg; i++) cs_topo_add_node(t, CS_NODE_SWITCH);
    for (uint32_t v = 0; v < p->npus; v++) cs_topo_add_cable(t, v, leaf0 + v / p->npus_per_leaf, p->host_bw, p->host_lat);
    for (uint32_t l = 0; l < leaves; l++)
        for (uint32_t i = 0; i < A; i++)
            cs_topo_add_cable(t, leaf0 + l, agg0 + (l / p->leaves_per_pod) * A + i, p->leaf_up_bw, p->leaf_up_lat);
    for (uint32_t pod = 0; pod < pods; pod++)
        for (uint32_t i = 0; i < A; i++)
            for (uint32_t c = 0; c < p->cores_per_agg; c++)
                cs_topo_add_cable(t, agg0 + pod * A + i, core0 + i * p->cores_per_agg + c, p->agg_up_bw, p->agg_up_lat);
    cs_topo_finalize(t);
    double o1 = (double)p->npus_per_leaf * p->host_bw / ((double)A * p->leaf_up_bw);
    double o2 = (double)p->leaves_per_pod * p->leaf_up_bw / ((double)p->cores_per_agg * p->agg_up_bw);
    cs_topo_set_desc(t, "3-tier Clos %u NPUs, %u pods x %u leaves of %u, %u aggs/pod, %u cores, oversubscription "
                        "leaf %.3g:1, agg %.3g:1",
                     p->npus, pods, p->leaves_per_pod, p->npus_per_leaf, A, A * p->cores_per_agg, o1, o2);
    *out = t;
    return CS_OK;
}

/* ---- the builder entry ------------------------------------------------------ */

typedef struct keys {
    int npus, npus_per_leaf, leaves_per_pod, aggs_per_pod, cores_per_agg;
    double link_bw, link_lat, uplink_bw, uplink_lat, oversub, core_bw, core_lat, core_oversub;
} keys;

#define INT_KEY(k, f, lo, d, h) CS_TOPO_INT_KEY(keys, k, f, lo, d, h)
#define NUM_KEY(k, f, u, d, h) CS_TOPO_NUM_KEY(keys, k, f, u, d, h)
#define NUM_KEY_UNSET(k, f, u, h) CS_TOPO_NUM_KEY_UNSET(keys, k, f, u, h)
static const cs_opt KEYS[] = {
    INT_KEY("npus", npus, 0, 0, "NPUs (0 = the network configuration's count)"),
    INT_KEY("npus_per_leaf", npus_per_leaf, 1, 8, "NPUs under one leaf switch"),
    INT_KEY("leaves_per_pod", leaves_per_pod, 1, 4, "leaf switches per pod"),
    INT_KEY("aggs_per_pod", aggs_per_pod, 1, 4, "aggregation switches per pod (every leaf to every one)"),
    INT_KEY("cores_per_agg", cores_per_agg, 1, 1, "core switches per aggregation switch (its core group)"),
    NUM_KEY("link_bandwidth", link_bw, CS_UNIT_GBPS, 50, "NPU-leaf bandwidth per direction"),
    NUM_KEY("link_latency", link_lat, CS_UNIT_NS, 500, "NPU-leaf latency"),
    NUM_KEY("uplink_bandwidth", uplink_bw, CS_UNIT_GBPS, 0,
            "leaf-aggregation bandwidth (0 = from oversubscription, else link_bandwidth)"),
    NUM_KEY_UNSET("uplink_latency", uplink_lat, CS_UNIT_NS, "leaf-aggregation latency (default link_latency)"),
    NUM_KEY("oversubscription", oversub, NULL, 0,
            "leaf downlink/uplink bandwidth ratio r: uplink_bandwidth = npus_per_leaf x link_bandwidth / "
            "(aggs_per_pod x r) when uplink_bandwidth is 0"),
    NUM_KEY("core_bandwidth", core_bw, CS_UNIT_GBPS, 0,
            "aggregation-core bandwidth (0 = from core_oversubscription, else the leaf uplink's)"),
    NUM_KEY_UNSET("core_latency", core_lat, CS_UNIT_NS, "aggregation-core latency (default uplink latency)"),
    NUM_KEY("core_oversubscription", core_oversub, NULL, 0,
            "aggregation downlink/uplink bandwidth ratio r: core_bandwidth = leaves_per_pod x uplink / "
            "(cores_per_agg x r) when core_bandwidth is 0"),
};

static int build(const void *params, const cs_network_config *net, cs_topo **out, cs_error *err) {
    const keys *c = params;
    double lat = c->link_lat, ulat = c->uplink_lat >= 0 ? c->uplink_lat : lat;
    double up = c->uplink_bw;
    if (up <= 0 && c->oversub > 0) up = (double)c->npus_per_leaf * c->link_bw / ((double)c->aggs_per_pod * c->oversub);
    if (up <= 0) up = c->link_bw;
    double core = c->core_bw;
    if (core <= 0 && c->core_oversub > 0)
        core = (double)c->leaves_per_pod * up / ((double)c->cores_per_agg * c->core_oversub);
    if (core <= 0) core = up;
    cs_clos3_params p = {.npus = c->npus ? (uint32_t)c->npus : (uint32_t)net->total_npus,
                         .npus_per_leaf = (uint32_t)c->npus_per_leaf, .leaves_per_pod = (uint32_t)c->leaves_per_pod,
                         .aggs_per_pod = (uint32_t)c->aggs_per_pod, .cores_per_agg = (uint32_t)c->cores_per_agg,
                         .host_bw = cs_gbps_to_bytes_per_ns(c->link_bw), .leaf_up_bw = cs_gbps_to_bytes_per_ns(up),
                         .agg_up_bw = cs_gbps_to_bytes_per_ns(core), .host_lat = cs_time_from_ns_f(lat),
                         .leaf_up_lat = cs_time_from_ns_f(ulat),
                         .agg_up_lat = cs_time_from_ns_f(c->core_lat >= 0 ? c->core_lat : ulat)};
    return cs_topo_build_clos3(&p, out, err);
}

static uint64_t npus(const void *params, const cs_network_config *net) {
    const keys *c = params;
    return c->npus ? (uint64_t)c->npus : net->total_npus;
}

const cs_topo_builder cs_topo_builder_clos3 = {
    .name = "clos3",
    .help = "three-tier Clos of pods: npus / npus_per_leaf leaves, leaves_per_pod per pod, every leaf to each of its "
            "pod's aggs_per_pod aggregation switches; aggregation switch i of every pod to the cores_per_agg cores "
            "of core group i",
    .keys = KEYS,
    .nkeys = sizeof KEYS / sizeof KEYS[0],
    .params_size = sizeof(keys),
    .npus = npus,
    .build = build,
};
