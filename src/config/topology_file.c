/*
 * topology_file.c -- reader of the --topology JSON file (topology_file.h).
 *
 * Scalar keys go through the option-table engine (core/opts.h: one table
 * drives parsing, defaults and help); the lists (edges, failed_links,
 * degraded_links, failed_switches, and the timed link_changes and
 * switch_changes, and the routing table `routes`) are read here with their
 * element lines.
 * Bandwidths are GB/s read as ASTRA-sim does (2^30 bytes per GB,
 * cs_gbps_to_bytes_per_ns) so that a topology file and a network YAML with
 * the same numbers describe the same links; latencies are ns.
 * Owns nothing after return: the topology goes to the caller.
 */
#include "config/topology_file.h"

#include <float.h>
#include <limits.h>
#include <stddef.h>
#include <string.h>

#include "core/opts.h"
#include "core/alloc.h"
#include "network/network.h"

typedef struct tf {
    int builder, routing;
    int npus, npus_per_leaf, spines, uplinks_per_spine, servers, gpus_per_server, switches, ecmp_seed;
    int leaves_per_pod, aggs_per_pod, cores_per_agg, groups, routers_per_group, npus_per_router, global_per_router;
    double link_bw, link_lat, uplink_bw, uplink_lat, oversub;
    double core_bw, core_lat, core_oversub, local_bw, local_lat, global_bw, global_lat;
    double nvlink_bw, nvlink_lat, nic_bw, nic_lat, spine_bw, spine_lat;
} tf;

enum { B_ASTRA, B_FATTREE, B_RAIL, B_EDGES, B_CLOS3, B_TORUS, B_MESH, B_DRAGONFLY };
static const char *const ROUTINGS[] = {"ecmp", "spray", NULL};
static const char *const BUILDERS[] = {"astra", "fat-tree", "rail", "edges", "clos3", "torus", "mesh", "dragonfly", NULL};

#define OFF(f) offsetof(tf, f)
#define INT_OPT(k, f, lo, d, h) {.key = k, .type = CS_OPT_INT, .def = d, .min = lo, .max = (double)INT_MAX, .off = OFF(f), .help = h}
#define NUM_OPT(k, f, u, d, h) {.key = k, .type = CS_OPT_NUM, .def = d, .min = 0, .max = DBL_MAX, .unit = u, .off = OFF(f), .help = h}
static const cs_opt OPTS[] = {
    {.key = "builder", .type = CS_OPT_ENUM, .required = 1, .values = BUILDERS, .off = OFF(builder),
     .help = "astra: the network YAML's dimensions; fat-tree: two-tier leaf-spine Clos; rail: HGX/DGX "
             "servers (NVSwitch + NIC per GPU) on a rail-optimized Clos; edges: the list under \"edges\"; clos3: "
             "three-tier Clos of pods; torus, mesh: 1-3-D grids of NPUs (\"dims\"); dragonfly"},
    INT_OPT("npus", npus, 0, 0, "NPUs (fat-tree, edges; 0 = the network configuration's count)"),
    INT_OPT("npus_per_leaf", npus_per_leaf, 1, 8, "fat-tree, clos3: NPUs under one leaf switch"),
    INT_OPT("spines", spines, 0, 0, "fat-tree, rail: spine switches"),
    INT_OPT("uplinks_per_spine", uplinks_per_spine, 1, 1, "fat-tree: parallel cables from each leaf to each spine"),
    NUM_OPT("link_bandwidth", link_bw, "GB/s", 50, "fat-tree, clos3: NPU-leaf, torus/mesh: NPU-NPU, dragonfly: NPU-router bandwidth per direction"),
    NUM_OPT("link_latency", link_lat, "ns", 500, "NPU-leaf (fat-tree, clos3), NPU-NPU (torus, mesh), NPU-router (dragonfly) latency"),
    NUM_OPT("uplink_bandwidth", uplink_bw, "GB/s", 0,
            "fat-tree: leaf-spine, clos3: leaf-aggregation bandwidth (0 = from oversubscription, else link_bandwidth)"),
    NUM_OPT("uplink_latency", uplink_lat, "ns", -1, "fat-tree: leaf-spine latency (default link_latency)"),
    NUM_OPT("oversubscription", oversub, NULL, 0,
            "fat-tree, clos3: leaf downlink/uplink bandwidth ratio (sets uplink_bandwidth when that is 0)"),
    INT_OPT("servers", servers, 1, 1, "rail: servers"),
    INT_OPT("gpus_per_server", gpus_per_server, 1, 8, "rail: GPUs (and NICs, and rails) per server"),
    NUM_OPT("nvlink_bandwidth", nvlink_bw, "GB/s", 450, "rail: GPU-NVSwitch bandwidth per direction"),
    NUM_OPT("nvlink_latency", nvlink_lat, "ns", 0, "rail: GPU-NVSwitch latency"),
    NUM_OPT("nic_bandwidth", nic_bw, "GB/s", 0, "rail: NIC bandwidth per direction (0 = no NICs)"),
    NUM_OPT("nic_latency", nic_lat, "ns", 0, "rail: NIC-rail switch latency"),
    NUM_OPT("spine_bandwidth", spine_bw, "GB/s", 0, "rail: rail-spine bandwidth (0 = nic_bandwidth)"),
    NUM_OPT("spine_latency", spine_lat, "ns", 0, "rail: rail-spine latency"),
    INT_OPT("leaves_per_pod", leaves_per_pod, 1, 4, "clos3: leaf switches per pod"),
    INT_OPT("aggs_per_pod", aggs_per_pod, 1, 4, "clos3: aggregation switches per pod (every leaf to every one)"),
    INT_OPT("cores_per_agg", cores_per_agg, 1, 1, "clos3: core switches per aggregation switch (its core group)"),
    NUM_OPT("core_bandwidth", core_bw, "GB/s", 0,
            "clos3: aggregation-core bandwidth (0 = from core_oversubscription, else the leaf uplink's)"),
    NUM_OPT("core_latency", core_lat, "ns", -1, "clos3: aggregation-core latency (default uplink latency)"),
    NUM_OPT("core_oversubscription", core_oversub, NULL, 0,
            "clos3: aggregation downlink/uplink bandwidth ratio (sets core_bandwidth when that is 0)"),
    {.key = "dims", .type = CS_OPT_IGNORED, .help = "torus, mesh: list of 1 to 3 sizes, dimension 0 fastest in NPU ids"},
    INT_OPT("groups", groups, 1, 1, "dragonfly: groups"),
    INT_OPT("routers_per_group", routers_per_group, 1, 4, "dragonfly: routers per group (fully connected)"),
    INT_OPT("npus_per_router", npus_per_router, 1, 2, "dragonfly: NPUs per router"),
    INT_OPT("global_links_per_router", global_per_router, 0, 1, "dragonfly: global cables per router"),
    NUM_OPT("local_bandwidth", local_bw, "GB/s", 0, "dragonfly: router-router bandwidth in a group (0 = link_bandwidth)"),
    NUM_OPT("local_latency", local_lat, "ns", -1, "dragonfly: router-router latency (default link_latency)"),
    NUM_OPT("global_bandwidth", global_bw, "GB/s", 0, "dragonfly: global cable bandwidth (0 = link_bandwidth)"),
    NUM_OPT("global_latency", global_lat, "ns", -1, "dragonfly: global cable latency (default link_latency)"),
    INT_OPT("switches", switches, 0, 0, "edges: switch nodes, numbered npus .. npus+switches-1"),
    INT_OPT("ecmp_seed", ecmp_seed, 0, 0, "seed of ECMP hashing"),
    {.key = "routing", .type = CS_OPT_ENUM, .values = ROUTINGS, .def = 0, .off = OFF(routing),
     .help = "ecmp: one path per (src, dst) pair, hashed; spray: a path per message among the equal-cost ones"},
    {.key = "routes", .type = CS_OPT_IGNORED,
     .help = "routing table: list of node paths [src, n1, ..., dst] used instead of ECMP while their links are up"},
    {.key = "edges", .type = CS_OPT_IGNORED, .help = "edges: list of [a, b, bandwidth GB/s, latency ns] cables (both directions)"},
    {.key = "failed_links", .type = CS_OPT_IGNORED, .help = "list of [a, b]: cables down from the start"},
    {.key = "degraded_links", .type = CS_OPT_IGNORED, .help = "list of [a, b, factor]: cables at factor x bandwidth"},
    {.key = "failed_switches", .type = CS_OPT_IGNORED, .help = "list of node ids: every link of the node down"},
    {.key = "link_changes", .type = CS_OPT_IGNORED,
     .help = "list of [time ns, a, b, factor]: from that simulated time the cable a-b runs at factor x its "
             "bandwidth (0 = down, 1 = restored)"},
    {.key = "switch_changes", .type = CS_OPT_IGNORED,
     .help = "list of [time ns, node, factor]: from that time every link of the node at factor x (0 = down)"},
};
#define NOPTS (sizeof OPTS / sizeof OPTS[0])

/* Element i of list `key` as n numbers (integers for the first nint). */
static int read_tuple(const cs_jdoc *doc, const char *key, size_t i, const json_t *v, size_t n, size_t nint,
                      const char *what, double *out, cs_error *err) {
    int line = cs_jdoc_elem_line(doc, key, i);
    if (json_is_integer(v) && n == 1) {
        out[0] = (double)json_integer_value(v);
        return CS_OK;
    }
    if (!json_is_array(v) || json_array_size(v) != n)
        return CS_ERR(err, CS_EINVAL, "%s:%d: %s[%zu]: expected %s", doc->path, line, key, i, what);
    for (size_t k = 0; k < n; k++) {
        const json_t *x = json_array_get(v, k);
        long long ll;
        if (!json_is_number(x) || (k < nint && cs_json_ll(x, &ll)) || json_number_value(x) < 0)
            return CS_ERR(err, CS_EINVAL, "%s:%d: %s[%zu]: expected %s", doc->path, line, key, i, what);
        out[k] = json_number_value(x);
    }
    return CS_OK;
}

static int node_ok(const cs_jdoc *doc, const char *key, size_t i, const cs_topo *t, double v, cs_error *err) {
    if (v >= t->nnodes)
        return CS_ERR(err, CS_EINVAL, "%s:%d: %s[%zu]: node %.0f does not exist (nodes 0..%u)", doc->path,
                      cs_jdoc_elem_line(doc, key, i), key, i, v, t->nnodes - 1);
    return CS_OK;
}

static int apply_failures(const cs_jdoc *doc, cs_topo *t, cs_error *err) {
    const char *keys[] = {"failed_links", "degraded_links", "failed_switches"};
    for (int k = 0; k < 3; k++) {
        json_t *list = json_object_get(doc->root, keys[k]);
        if (!list) continue;
        if (!json_is_array(list))
            return CS_ERR(err, CS_EINVAL, "%s:%d: %s: expected a list", doc->path, cs_jdoc_key_line(doc, keys[k]), keys[k]);
        for (size_t i = 0; i < json_array_size(list); i++) {
            double v[3] = {0, 0, 0};
            int rc = k == 0   ? read_tuple(doc, keys[k], i, json_array_get(list, i), 2, 2, "[a, b] (node ids)", v, err)
                     : k == 1 ? read_tuple(doc, keys[k], i, json_array_get(list, i), 3, 2,
                                           "[a, b, factor] (node ids, bandwidth factor 0..1)", v, err)
                              : read_tuple(doc, keys[k], i, json_array_get(list, i), 1, 1, "a node id", v, err);
            if (rc) return rc;
            for (int j = 0; j < (k == 2 ? 1 : 2); j++)
                if ((rc = node_ok(doc, keys[k], i, t, v[j], err))) return rc;
            if (k == 2) rc = cs_topo_fail_node(t, (uint32_t)v[0], err);
            else if (k == 1 && v[2] > 1)
                return CS_ERR(err, CS_EINVAL, "%s:%d: degraded_links[%zu]: factor: expected 0..1, got %g", doc->path,
                              cs_jdoc_elem_line(doc, keys[k], i), i, v[2]);
            else rc = cs_topo_degrade_cable(t, (uint32_t)v[0], (uint32_t)v[1], k == 0 ? 0.0 : v[2], err);
            if (rc) {
                cs_error_prefix(err, "%s:%d: %s[%zu]: ", doc->path, cs_jdoc_elem_line(doc, keys[k], i), keys[k], i);
                return rc;
            }
        }
    }
    return CS_OK;
}

static int apply_changes(const cs_jdoc *doc, cs_topo *t, cs_error *err) {
    const char *keys[] = {"link_changes", "switch_changes"};
    for (int k = 0; k < 2; k++) {
        json_t *list = json_object_get(doc->root, keys[k]);
        if (!list) continue;
        if (!json_is_array(list))
            return CS_ERR(err, CS_EINVAL, "%s:%d: %s: expected a list", doc->path, cs_jdoc_key_line(doc, keys[k]), keys[k]);
        for (size_t i = 0; i < json_array_size(list); i++) {
            double v[4] = {0, 0, 0, 0};
            int line = cs_jdoc_elem_line(doc, keys[k], i);
            /* read_tuple's integer columns are the first nint: read the time as a number */
            const json_t *e = json_array_get(list, i);
            size_t n = k == 0 ? 4 : 3;
            int rc = read_tuple(doc, keys[k], i, e, n, 0,
                                k == 0 ? "[time ns, a, b, factor] (node ids, bandwidth factor 0..1)"
                                       : "[time ns, node, factor] (bandwidth factor 0..1)",
                                v, err);
            for (size_t j = 1; rc == CS_OK && j < n - 1; j++) {
                if (v[j] != (double)(uint32_t)v[j])
                    rc = CS_ERR(err, CS_EINVAL, "%s:%d: %s[%zu]: node: expected an integer, got %g", doc->path, line,
                                keys[k], i, v[j]);
                else rc = node_ok(doc, keys[k], i, t, v[j], err);
            }
            if (rc) return rc;
            rc = cs_topo_add_change(t, cs_time_from_ns_f(v[0]), (uint32_t)v[1],
                                    k == 0 ? (uint32_t)v[2] : CS_TOPO_NODE, v[n - 1], err);
            if (rc) {
                cs_error_prefix(err, "%s:%d: %s[%zu]: ", doc->path, line, keys[k], i);
                return rc;
            }
        }
    }
    return CS_OK;
}

static int read_routes(const cs_jdoc *doc, cs_topo *t, cs_error *err) {
    json_t *list = json_object_get(doc->root, "routes");
    if (!list) return CS_OK;
    if (!json_is_array(list))
        return CS_ERR(err, CS_EINVAL, "%s:%d: routes: expected a list of node paths", doc->path, cs_jdoc_key_line(doc, "routes"));
    uint32_t *nodes = NULL;
    size_t cap = 0;
    int rc = CS_OK;
    for (size_t i = 0; i < json_array_size(list) && rc == CS_OK; i++) {
        const json_t *e = json_array_get(list, i);
        int line = cs_jdoc_elem_line(doc, "routes", i);
        size_t n = json_is_array(e) ? json_array_size(e) : 0;
        CS_GROW(nodes, cap, n + 1);
        for (size_t k = 0; k < n && rc == CS_OK; k++) {
            long long v;
            if (cs_json_ll(json_array_get(e, k), &v) || v < 0 || v > (long long)UINT32_MAX)
                rc = CS_ERR(err, CS_EINVAL, "%s:%d: routes[%zu]: expected a list of node ids [src, ..., dst]", doc->path,
                            line, i);
            else nodes[k] = (uint32_t)v;
        }
        if (rc == CS_OK && n < 2)
            rc = CS_ERR(err, CS_EINVAL, "%s:%d: routes[%zu]: expected a list of node ids [src, ..., dst]", doc->path, line, i);
        if (rc == CS_OK && (rc = cs_topo_add_fixed_route(t, nodes, (uint32_t)n, err)))
            cs_error_prefix(err, "%s:%d: routes[%zu]: ", doc->path, line, i);
    }
    cs_free(nodes);
    return rc;
}

static int build_edges(const cs_jdoc *doc, const tf *c, uint32_t npus, cs_topo **out, cs_error *err) {
    json_t *list = json_object_get(doc->root, "edges");
    if (!list || !json_is_array(list))
        return CS_ERR(err, CS_EINVAL, "%s:%d: edges: expected a list of [a, b, bandwidth GB/s, latency ns]",
                      doc->path, list ? cs_jdoc_key_line(doc, "edges") : doc->root_line);
    cs_topo *t = cs_topo_new(npus);
    for (int i = 0; i < c->switches; i++) cs_topo_add_node(t, CS_NODE_SWITCH);
    for (size_t i = 0; i < json_array_size(list); i++) {
        double v[4];
        int rc = read_tuple(doc, "edges", i, json_array_get(list, i), 4, 2,
                            "[a, b, bandwidth GB/s, latency ns] with node ids a != b", v, err);
        if (!rc) rc = node_ok(doc, "edges", i, t, v[0], err);
        if (!rc) rc = node_ok(doc, "edges", i, t, v[1], err);
        if (!rc && (v[0] == v[1] || v[2] <= 0))
            rc = CS_ERR(err, CS_EINVAL, "%s:%d: edges[%zu]: expected two different nodes and a bandwidth > 0",
                        doc->path, cs_jdoc_elem_line(doc, "edges", i), i);
        if (rc) {
            cs_topo_free(t);
            return rc;
        }
        cs_topo_add_cable(t, (uint32_t)v[0], (uint32_t)v[1], cs_gbps_to_bytes_per_ns(v[2]), cs_time_from_ns_f(v[3]));
    }
    cs_topo_finalize(t);
    cs_topo_set_desc(t, "edge list: %u NPUs, %d switches, %zu cables", npus, c->switches, json_array_size(list));
    *out = t;
    return CS_OK;
}

int cs_topology_file_load(const char *path, const cs_network_config *net, cs_topo **out, cs_error *err) {
    *out = NULL;
    cs_jdoc doc;
    int rc = cs_jdoc_load(path, "topology file", &doc, err);
    if (rc) return rc;
    tf c;
    cs_opts_defaults(OPTS, NOPTS, &c);
    int lines[NOPTS];
    rc = cs_opts_parse(&doc, OPTS, NOPTS, &c, lines, err);
    uint32_t npus = c.npus ? (uint32_t)c.npus : (uint32_t)net->total_npus;
    cs_topo *t = NULL;
    if (rc == CS_OK) {
        switch (c.builder) {
        case B_ASTRA: t = cs_topo_build_astra(net); break;
        case B_FATTREE: {
            cs_fattree_params p = {.npus = npus, .npus_per_leaf = (uint32_t)c.npus_per_leaf,
                                   .spines = (uint32_t)c.spines, .uplinks_per_spine = (uint32_t)c.uplinks_per_spine,
                                   .host_bw = cs_gbps_to_bytes_per_ns(c.link_bw),
                                   .host_lat = cs_time_from_ns_f(c.link_lat),
                                   .uplink_lat = cs_time_from_ns_f(c.uplink_lat >= 0 ? c.uplink_lat : c.link_lat)};
            double up = c.uplink_bw;
            if (up <= 0 && c.oversub > 0 && c.spines > 0)
                up = (double)c.npus_per_leaf * c.link_bw / ((double)c.spines * c.uplinks_per_spine * c.oversub);
            if (up <= 0) up = c.link_bw;
            p.uplink_bw = cs_gbps_to_bytes_per_ns(up);
            rc = cs_topo_build_fattree(&p, &t, err);
            break;
        }
        case B_RAIL: {
            cs_rail_params p = {.servers = (uint32_t)c.servers, .gpus_per_server = (uint32_t)c.gpus_per_server,
                                .spines = (uint32_t)c.spines, .nvlink_bw = cs_gbps_to_bytes_per_ns(c.nvlink_bw),
                                .nic_bw = cs_gbps_to_bytes_per_ns(c.nic_bw),
                                .spine_bw = cs_gbps_to_bytes_per_ns(c.spine_bw),
                                .nvlink_lat = cs_time_from_ns_f(c.nvlink_lat),
                                .nic_lat = cs_time_from_ns_f(c.nic_lat),
                                .spine_lat = cs_time_from_ns_f(c.spine_lat)};
            rc = cs_topo_build_rail(&p, &t, err);
            break;
        }
        case B_EDGES: rc = build_edges(&doc, &c, npus, &t, err); break;
        case B_CLOS3: {
            double lat = c.link_lat, ulat = c.uplink_lat >= 0 ? c.uplink_lat : lat;
            double up = c.uplink_bw;
            if (up <= 0 && c.oversub > 0) up = (double)c.npus_per_leaf * c.link_bw / ((double)c.aggs_per_pod * c.oversub);
            if (up <= 0) up = c.link_bw;
            double core = c.core_bw;
            if (core <= 0 && c.core_oversub > 0)
                core = (double)c.leaves_per_pod * up / ((double)c.cores_per_agg * c.core_oversub);
            if (core <= 0) core = up;
            cs_clos3_params p = {.npus = npus, .npus_per_leaf = (uint32_t)c.npus_per_leaf,
                                 .leaves_per_pod = (uint32_t)c.leaves_per_pod, .aggs_per_pod = (uint32_t)c.aggs_per_pod,
                                 .cores_per_agg = (uint32_t)c.cores_per_agg,
                                 .host_bw = cs_gbps_to_bytes_per_ns(c.link_bw),
                                 .leaf_up_bw = cs_gbps_to_bytes_per_ns(up), .agg_up_bw = cs_gbps_to_bytes_per_ns(core),
                                 .host_lat = cs_time_from_ns_f(lat), .leaf_up_lat = cs_time_from_ns_f(ulat),
                                 .agg_up_lat = cs_time_from_ns_f(c.core_lat >= 0 ? c.core_lat : ulat)};
            rc = cs_topo_build_clos3(&p, &t, err);
            break;
        }
        case B_TORUS:
        case B_MESH: {
            cs_grid_params p = {.wrap = c.builder == B_TORUS, .bw = cs_gbps_to_bytes_per_ns(c.link_bw),
                                .lat = cs_time_from_ns_f(c.link_lat)};
            json_t *dims = json_object_get(doc.root, "dims");
            if (!dims || !json_is_array(dims) || json_array_size(dims) < 1 || json_array_size(dims) > 3) {
                rc = CS_ERR(err, CS_EINVAL, "%s:%d: dims: expected a list of 1 to 3 sizes", path,
                            dims ? cs_jdoc_key_line(&doc, "dims") : doc.root_line);
                break;
            }
            p.ndims = (uint32_t)json_array_size(dims);
            for (size_t d = 0; d < p.ndims && rc == CS_OK; d++) {
                double v;
                rc = read_tuple(&doc, "dims", d, json_array_get(dims, d), 1, 1, "a size >= 1", &v, err);
                if (rc == CS_OK && (v < 1 || v > 1e9))
                    rc = CS_ERR(err, CS_EINVAL, "%s:%d: dims[%zu]: expected a size >= 1, got %g", path,
                                cs_jdoc_elem_line(&doc, "dims", d), d, v);
                p.dims[d] = (uint32_t)v;
            }
            if (rc) break;
            rc = cs_topo_build_grid(&p, &t, err);
            break;
        }
        case B_DRAGONFLY: {
            double lat = c.link_lat;
            cs_dragonfly_params p = {
                .groups = (uint32_t)c.groups, .routers_per_group = (uint32_t)c.routers_per_group,
                .npus_per_router = (uint32_t)c.npus_per_router, .global_per_router = (uint32_t)c.global_per_router,
                .host_bw = cs_gbps_to_bytes_per_ns(c.link_bw),
                .local_bw = cs_gbps_to_bytes_per_ns(c.local_bw > 0 ? c.local_bw : c.link_bw),
                .global_bw = cs_gbps_to_bytes_per_ns(c.global_bw > 0 ? c.global_bw : c.link_bw),
                .host_lat = cs_time_from_ns_f(lat),
                .local_lat = cs_time_from_ns_f(c.local_lat >= 0 ? c.local_lat : lat),
                .global_lat = cs_time_from_ns_f(c.global_lat >= 0 ? c.global_lat : lat)};
            rc = cs_topo_build_dragonfly(&p, &t, err);
            break;
        }
        }
        if (rc && c.builder != B_EDGES && !((c.builder == B_TORUS || c.builder == B_MESH) && strstr(err->msg, "dims")))
            cs_error_prefix(err, "%s:%d: ", path, lines[0]);
    }
    if (rc == CS_OK) {
        t->ecmp_seed = (uint64_t)c.ecmp_seed;
        t->spray = c.routing == 1;
        rc = read_routes(&doc, t, err);
        if (rc == CS_OK) rc = apply_failures(&doc, t, err);
        if (rc == CS_OK) rc = apply_changes(&doc, t, err);
    }
    if (rc == CS_OK && t->nnpus != net->total_npus)
        rc = CS_ERR(err, CS_EINVAL, "%s: the topology has %u NPUs but the network configuration %s has %llu",
                    path, t->nnpus, net->path ? net->path : "", (unsigned long long)net->total_npus);
    cs_opts_free(OPTS, NOPTS, &c);
    cs_jdoc_free(&doc);
    if (rc) {
        cs_topo_free(t);
        return rc;
    }
    *out = t;
    return CS_OK;
}

void cs_topology_file_print_help(FILE *f) { cs_opts_print_help(f, OPTS, NOPTS); }
