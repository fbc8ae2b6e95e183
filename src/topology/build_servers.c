/*
 * build_servers.c -- the "servers" builder: N servers of a kind (HGX, DGX,
 * an NVL72 rack: gpus_per_server GPUs on one scale-up switch, one NIC per
 * GPU) on a 2- or 3-tier Clos with per-tier oversubscription, the NICs
 * wired rail-optimized or plainly to the leaves.  The scale-up domain stays:
 * GPUs of one server reach each other over their NVSwitch (one hop through
 * it, nvlink_bandwidth), other servers over NIC, leaf and above.
 *
 * Leaves have nics_per_leaf NIC ports.  Wiring:
 *  - rail: servers in groups of nics_per_leaf; in group k, NIC i of every
 *    server goes to leaf k x gpus_per_server + i (one leaf per rail and
 *    group: same-rail traffic of a group stays under one leaf);
 *  - plain: NICs in GPU order fill the leaves (leaf = GPU / nics_per_leaf).
 * Tiers: 2 = every leaf to each of `spines` spines (spines 0 = as many as
 * the leaf's uplinks need: ceil(nics_per_leaf / oversubscription));
 * 3 = leaves in pods of leaves_per_pod, every leaf to each of its pod's
 * aggs_per_pod aggregation switches, aggregation switch i of every pod to
 * the cores_per_agg cores of core group i (as "clos3").  Uplink bandwidths
 * come from the oversubscription keys: leaf up = nics_per_leaf x
 * nic_bandwidth / (uplinks x oversubscription), agg up = leaves_per_pod x
 * leaf up / (cores_per_agg x core_oversubscription).
 *
 * Node numbering: GPUs (server-major), NICs, NVSwitches, leaves, then the
 * spines or the aggregation switches (pod-major) and cores.  Owns nothing
 * beyond the result.
 */
#include "topology/builder.h"
#include "topology/topology.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/checked.h"

typedef struct keys {
    int servers, gpus_per_server, nics_per_leaf, tiers, spines, leaves_per_pod, aggs_per_pod, cores_per_agg, wiring;
    double nvlink_bw, nvlink_lat, nic_bw, nic_lat, oversub, up_lat, core_oversub;
} keys;

static const char *const WIRINGS[] = {"rail", "plain", NULL};

#define INT_KEY(k, f, lo, d, h) CS_TOPO_INT_KEY(keys, k, f, lo, d, h)
#define NUM_KEY(k, f, u, d, h) CS_TOPO_NUM_KEY(keys, k, f, u, d, h)
static const cs_opt KEYS[] = {
    INT_KEY("servers", servers, 0, 0, "servers (0 = the network's NPUs / gpus_per_server)"),
    INT_KEY("gpus_per_server", gpus_per_server, 1, 8, "GPUs per server (its scale-up domain; 72 for an NVL72 rack)"),
    NUM_KEY("nvlink_bandwidth", nvlink_bw, CS_UNIT_GBPS, 450, "GPU - scale-up switch bandwidth per direction"),
    NUM_KEY("nvlink_latency", nvlink_lat, CS_UNIT_NS, 0, "GPU - scale-up switch latency"),
    NUM_KEY("nic_bandwidth", nic_bw, CS_UNIT_GBPS, 50, "NIC bandwidth per direction (one NIC per GPU; 50 = 400 Gb/s)"),
    NUM_KEY("nic_latency", nic_lat, CS_UNIT_NS, 500, "NIC - leaf latency"),
    {.key = "wiring", .type = CS_OPT_ENUM, .values = WIRINGS, .def = 0, .off = offsetof(keys, wiring),
     .help = "rail: NIC i of a group of servers to one leaf per rail; plain: NICs in GPU order fill the leaves"},
    INT_KEY("nics_per_leaf", nics_per_leaf, 1, 32, "NIC-facing ports per leaf"),
    INT_KEY("tiers", tiers, 2, 2, "2 (leaf - spine) or 3 (leaf - aggregation - core, in pods)"),
    INT_KEY("spines", spines, 0, 0, "tiers 2: spines (0 = the leaf's uplinks: ceil(nics_per_leaf / oversubscription))"),
    INT_KEY("leaves_per_pod", leaves_per_pod, 1, 8, "tiers 3: leaves per pod"),
    INT_KEY("aggs_per_pod", aggs_per_pod, 1, 8, "tiers 3: aggregation switches per pod"),
    INT_KEY("cores_per_agg", cores_per_agg, 1, 8, "tiers 3: core switches per aggregation switch (its core group)"),
    NUM_KEY("oversubscription", oversub, NULL, 1, "leaf NIC-facing / uplink bandwidth ratio (1 = non-blocking)"),
    NUM_KEY("core_oversubscription", core_oversub, NULL, 1, "tiers 3: aggregation down / up bandwidth ratio"),
    NUM_KEY("uplink_latency", up_lat, CS_UNIT_NS, 500, "latency of the links above the leaves"),
};

static uint32_t nservers(const keys *c, const cs_network_config *net) {
    return c->servers ? (uint32_t)c->servers : (uint32_t)(net->total_npus / (uint64_t)c->gpus_per_server);
}

/* Checks across keys (from build: its messages get the file's location). */
static int check_keys(const keys *c, const cs_network_config *net, cs_error *err) {
    if (!c->servers && net->total_npus % (uint64_t)c->gpus_per_server)
        return CS_ERR(err, CS_EINVAL, "servers: the network's %llu NPUs are not a whole number of servers of %d GPUs; "
                                      "expected servers or a gpus_per_server that divides them",
                      (unsigned long long)net->total_npus, c->gpus_per_server);
    if (c->tiers != 2 && c->tiers != 3)
        return CS_ERR(err, CS_EINVAL, "servers: tiers %d: expected 2 or 3", c->tiers);
    if (!(c->oversub >= 1) || !(c->core_oversub >= 1))
        return CS_ERR(err, CS_EINVAL, "servers: oversubscription and core_oversubscription: expected 1 or more");
    if (!(c->nic_bw > 0) || (c->gpus_per_server > 1 && !(c->nvlink_bw > 0)))
        return CS_ERR(err, CS_EINVAL, "servers: nic_bandwidth and nvlink_bandwidth: expected more than 0 GB/s");
    return CS_OK;
}

static int build(const void *params, const cs_network_config *net, cs_topo **out, cs_error *err) {
    const keys *c = params;
    *out = NULL;
    int rc0 = check_keys(c, net, err);
    if (rc0) return rc0;
    uint32_t S = nservers(c, net), G = (uint32_t)c->gpus_per_server, D = (uint32_t)c->nics_per_leaf;
    if (S == 0) return CS_ERR(err, CS_EINVAL, "servers: no server (the network has %llu NPUs)",
                              (unsigned long long)net->total_npus);
    uint64_t n64 = (uint64_t)S * G;
    int rail = c->wiring == 0;
    uint64_t leaves = rail ? cs_mul_u64_sat((S + D - 1) / D, G) : (n64 + D - 1) / D;
    uint32_t up = c->tiers == 2 ? (c->spines ? (uint32_t)c->spines : (uint32_t)ceil(D / c->oversub))
                                : (uint32_t)c->aggs_per_pod;
    if (up == 0) up = 1;
    uint64_t pods = c->tiers == 3 ? (leaves + (uint64_t)c->leaves_per_pod - 1) / (uint64_t)c->leaves_per_pod : 0;
    if (c->tiers == 3 && leaves % (uint64_t)c->leaves_per_pod)
        return CS_ERR(err, CS_EINVAL, "servers: %llu leaves are not a whole number of pods of %d leaves; expected "
                                      "leaves_per_pod to divide them",
                      (unsigned long long)leaves, c->leaves_per_pod);
    uint64_t above = c->tiers == 2 ? up : cs_add_u64_sat(cs_mul_u64_sat(pods, up), cs_mul_u64_sat(up, c->cores_per_agg));
    uint64_t nodes = cs_add_u64_sat(cs_add_u64_sat(2 * n64, G > 1 ? S : 0), cs_add_u64_sat(leaves, above));
    uint64_t cables = cs_add_u64_sat(cs_add_u64_sat(G > 1 ? n64 : 0, 2 * n64),
                                     cs_add_u64_sat(cs_mul_u64_sat(leaves, up),
                                                    c->tiers == 3 ? cs_mul_u64_sat(cs_mul_u64_sat(pods, up),
                                                                                   c->cores_per_agg)
                                                                  : 0));
    char what[200];
    snprintf(what, sizeof what, "servers: %u x %u GPUs = %llu NPUs, %llu leaves", S, G, (unsigned long long)n64,
             (unsigned long long)leaves);
    int rc = cs_topo_check_size(what, nodes, cables, err);
    if (rc) return rc;
    double nic = cs_gbps_to_bytes_per_ns(c->nic_bw), nvl = cs_gbps_to_bytes_per_ns(c->nvlink_bw);
    double leaf_up_gbps = (double)D * c->nic_bw / ((double)up * c->oversub);
    double core_gbps = (double)c->leaves_per_pod * leaf_up_gbps / ((double)c->cores_per_agg * c->core_oversub);
    double lup = cs_gbps_to_bytes_per_ns(leaf_up_gbps), cup = cs_gbps_to_bytes_per_ns(core_gbps);
    cs_time nvl_lat = cs_time_from_ns_f(c->nvlink_lat), nic_lat = cs_time_from_ns_f(c->nic_lat),
            up_lat = cs_time_from_ns_f(c->up_lat);
    uint32_t n = (uint32_t)n64;
    cs_topo *t = cs_topo_new(n);
    uint32_t nic0 = t->nnodes;
    for (uint32_t v = 0; v < n; v++) cs_topo_add_node(t, CS_NODE_NIC);
    uint32_t nvs0 = t->nnodes;
    if (G > 1)
        for (uint32_t s = 0; s < S; s++) cs_topo_add_node(t, CS_NODE_SWITCH);
    uint32_t leaf0 = t->nnodes;
    for (uint64_t l = 0; l < leaves; l++) cs_topo_add_node(t, CS_NODE_SWITCH);
    uint32_t up0 = t->nnodes; /* spines, or the aggregation switches pod-major */
    for (uint64_t i = 0; i < (c->tiers == 2 ? up : pods * up); i++) cs_topo_add_node(t, CS_NODE_SWITCH);
    uint32_t core0 = t->nnodes;
    if (c->tiers == 3)
        for (uint64_t i = 0; i < (uint64_t)up * c->cores_per_agg; i++) cs_topo_add_node(t, CS_NODE_SWITCH);
    for (uint32_t v = 0; v < n; v++) {
        uint32_t s = v / G, i = v % G;
        if (G > 1) cs_topo_add_cable(t, v, nvs0 + s, nvl, nvl_lat);
        cs_topo_add_cable(t, v, nic0 + v, nic, 0);
        uint32_t leaf = rail ? (s / D) * G + i : v / D;
        cs_topo_add_cable(t, nic0 + v, leaf0 + leaf, nic, nic_lat);
    }
    for (uint64_t l = 0; l < leaves; l++)
        for (uint32_t k = 0; k < up; k++) {
            uint32_t dst = c->tiers == 2 ? up0 + k : up0 + (uint32_t)(l / (uint64_t)c->leaves_per_pod) * up + k;
            cs_topo_add_cable(t, leaf0 + (uint32_t)l, dst, lup, up_lat);
        }
    if (c->tiers == 3)
        for (uint64_t pod = 0; pod < pods; pod++)
            for (uint32_t k = 0; k < up; k++)
                for (uint32_t q = 0; q < (uint32_t)c->cores_per_agg; q++)
                    cs_topo_add_cable(t, up0 + (uint32_t)pod * up + k, core0 + k * (uint32_t)c->cores_per_agg + q, cup,
                                      up_lat);
    cs_topo_finalize(t);
    if (c->tiers == 2)
        cs_topo_set_desc(t, "%u servers x %u GPUs (scale-up switch, NIC per GPU), %s wiring, %llu leaves of %u NICs, "
                            "%u spines, oversubscription %.3g:1",
                         S, G, rail ? "rail" : "plain", (unsigned long long)leaves, D, up, c->oversub);
    else
        cs_topo_set_desc(t, "%u servers x %u GPUs (scale-up switch, NIC per GPU), %s wiring, %llu pods x %d leaves of "
                            "%u NICs, %u aggs/pod, %u cores, oversubscription leaf %.3g:1, agg %.3g:1",
                         S, G, rail ? "rail" : "plain", (unsigned long long)pods, c->leaves_per_pod, D, up,
                         up * (uint32_t)c->cores_per_agg, c->oversub, c->core_oversub);
    *out = t;
    return CS_OK;
}

static uint64_t npus(const void *params, const cs_network_config *net) {
    const keys *c = params;
    return c->servers ? (uint64_t)c->servers * (uint64_t)c->gpus_per_server : net->total_npus;
}

const cs_topo_builder cs_topo_builder_servers = {
    .name = "servers",
    .help = "N servers of a kind (gpus_per_server GPUs on one scale-up switch, one NIC per GPU) on a 2- or 3-tier "
            "Clos with per-tier oversubscription, NICs wired rail-optimized (NIC i of a group of servers to one leaf "
            "per rail) or plainly (NICs in GPU order fill the leaves); the scale-up domain is kept",
    .keys = KEYS,
    .nkeys = sizeof KEYS / sizeof KEYS[0],
    .params_size = sizeof(keys),
    .npus = npus,
    .build = build,
};
