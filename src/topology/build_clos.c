/*
 * build_clos.c -- topology builders for Clos fabrics: the two-tier leaf-spine
 * (folded fat-tree) with oversubscription, the three-tier Clos of pods with
 * per-tier oversubscription, and HGX/DGX-style servers
 * (NVSwitch scale-up + one NIC per GPU) on a rail-optimized Clos.
 *
 * Node numbering: NPUs first (0..npus-1, server-major for rail), then NICs,
 * then switches (leaves/rails, then spines, then NVSwitches).  Owns nothing
 * beyond the result.
 */
#include "topology/topology.h"

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

int cs_topo_build_rail(const cs_rail_params *p, cs_topo **out, cs_error *err) {
    *out = NULL;
    if (p->servers == 0 || p->gpus_per_server == 0)
        return CS_ERR(err, CS_EINVAL, "rail: servers and gpus_per_server must be >= 1");
    if (p->servers > 1 && p->nic_bw <= 0)
        return CS_ERR(err, CS_EINVAL, "rail: %u servers need nic_bandwidth > 0", p->servers);
    if (p->gpus_per_server > 1 && p->nvlink_bw <= 0)
        return CS_ERR(err, CS_EINVAL, "rail: nvlink_bandwidth must be > 0");
    uint32_t g = p->gpus_per_server, n = p->servers * g;
    cs_topo *t = cs_topo_new(n);
    int nics = p->nic_bw > 0;
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
