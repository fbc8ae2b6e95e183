/*
 * test_topo_builders.c -- the registry of topology builders
 * (topology/builder.h, build_*.c) and its use by the topology file
 * (config/topology_file.c): every registered builder is well formed, builds
 * a connected graph from a small example whose node and link counts are
 * derived by hand below, and keys of another builder are rejected with the
 * file, the line, the key and the builder.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/topology_file.h"
#include "topology/builder.h"
#include "topology/route.h"
#include "topology/topology.h"
#include "testutil.h"

static cs_network_config switch_net(uint32_t n) {
    cs_network_config c;
    memset(&c, 0, sizeof c);
    c.ndims = 1;
    c.topo[0] = CS_TOPO_SWITCH;
    c.npus[0] = n;
    c.bandwidth_gbps[0] = 50;
    c.latency_ns[0] = 500;
    c.total_npus = n;
    return c;
}

/* Ring 4 x Switch 4 (16 NPUs), the input of "astra". */
static cs_network_config ring_switch_net(void) {
    cs_network_config c = switch_net(16);
    c.ndims = 2;
    c.topo[0] = CS_TOPO_RING;
    c.npus[0] = 4;
    c.topo[1] = CS_TOPO_SWITCH;
    c.npus[1] = 4;
    c.bandwidth_gbps[1] = 50;
    c.latency_ns[1] = 500;
    return c;
}

/* One example per builder, and its defaults ({}) where it has no required
 * key.  Counts: C cables = 2 C directed links.
 *   astra, Ring 4 x Switch 4: ring lines of 4 have 4 cables each, 4 lines
 *     = 16; one switch per switch line (4), 4 cables each = 16; C = 32,
 *     nodes 16 + 4 = 20.
 *   fat-tree, N = 16, 4 per leaf -> L = 4 leaves, S = 2 spines, U = 2
 *     uplinks per spine: C = N + L S U = 16 + 16 = 32, nodes N + L + S = 22.
 *     Defaults on N = 8: one leaf of 8, no spine: C = 8, nodes 9.
 *   rail, 2 servers x 4 GPUs, NICs, 2 spines: GPU-NVSwitch 8, GPU-NIC 8,
 *     NIC-rail 8, rail-spine 4 x 2 = 8: C = 32; nodes 8 GPUs + 8 NICs +
 *     4 rails + 2 spines + 2 NVSwitches = 24.  Defaults: 1 server of 8 GPUs,
 *     no NICs: C = 8, nodes 8 + 1 NVSwitch = 9.
 *   edges, 4 NPUs on 1 switch: C = 4, nodes 5.
 *   clos3, N = 16, 2 per leaf -> 8 leaves, 2 per pod -> P = 4 pods, A = 2
 *     aggs per pod, K = 2 cores per agg: C = N + leaves A + P A K =
 *     16 + 16 + 16 = 48; nodes 16 + 8 + P A (8) + A K (4) = 36.  Defaults
 *     on N = 32: 8 per leaf -> 4 leaves, 4 per pod -> 1 pod, A = 4, K = 1:
 *     C = 32 + 16 + 4 = 52, nodes 32 + 4 + 4 + 4 = 44.
 *   torus 4 x 3 x 2 (N = 24): a dimension of size k >= 3 has N cables (one
 *     per NPU, wrapping), a dimension of 2 has N / 2: C = 24 + 24 + 12 = 60.
 *   mesh 4 x 3 x 2: a dimension of size k has N (k - 1) / k cables:
 *     C = 18 + 16 + 12 = 46.
 *   dragonfly, G = 5 groups x a = 2 routers x 2 NPUs, h = 2 global per
 *     router (a h = 4 >= G - 1): NPU-router 20, local G a (a - 1) / 2 = 5,
 *     global G (G - 1) / 2 = 10: C = 35, nodes 20 + 10 = 30.  Defaults:
 *     G = 1, a = 4, 2 NPUs per router: C = 8 + 6 = 14, nodes 8 + 4 = 12. */
typedef struct example {
    const char *name, *json;
    uint32_t npus, nodes, cables;
    uint32_t def_npus, def_nodes, def_cables; /* def_npus 0: no defaults run */
} example;

static const example EXAMPLES[] = {
    {"astra", "{}", 16, 20, 32, 0, 0, 0},
    {"fat-tree", "{\"npus_per_leaf\": 4, \"spines\": 2, \"uplinks_per_spine\": 2}", 16, 22, 32, 8, 9, 8},
    {"rail", "{\"servers\": 2, \"gpus_per_server\": 4, \"nic_bandwidth\": 50, \"spines\": 2}", 8, 24, 32, 8, 9, 8},
    {"edges", "{\"switches\": 1, \"edges\": [[0, 4, 50, 500], [1, 4, 50, 500], [2, 4, 50, 500], [3, 4, 50, 500]]}", 4,
     5, 4, 0, 0, 0},
    {"clos3", "{\"npus_per_leaf\": 2, \"leaves_per_pod\": 2, \"aggs_per_pod\": 2, \"cores_per_agg\": 2}", 16, 36, 48, 32,
     44, 52},
    {"torus", "{\"dims\": [4, 3, 2]}", 24, 24, 60, 0, 0, 0},
    {"mesh", "{\"dims\": [4, 3, 2]}", 24, 24, 46, 0, 0, 0},
    {"dragonfly", "{\"groups\": 5, \"routers_per_group\": 2, \"npus_per_router\": 2, \"global_links_per_router\": 2}",
     20, 30, 35, 8, 12, 14},
    /* 4 servers x 8 GPUs, rail, 4 NICs per leaf: 32 GPUs + 32 NICs + 4 NVSwitches + 8 leaves (one group, a leaf per
     * rail) + 4 spines (ceil(4 / 1)) = 80 nodes; 32 GPU-NVSwitch + 32 GPU-NIC + 32 NIC-leaf + 8 x 4 leaf-spine = 128
     * cables.  Defaults on 16 NPUs: 2 servers, 32 NICs per leaf: 16 + 16 + 2 + 8 leaves + 32 spines = 74 nodes;
     * 48 + 8 x 32 = 304 cables. */
    {"servers", "{\"servers\": 4, \"gpus_per_server\": 8, \"nics_per_leaf\": 4}", 32, 80, 128, 16, 74, 304},
};

static const example *example_of(const char *name) {
    for (size_t i = 0; i < sizeof EXAMPLES / sizeof EXAMPLES[0]; i++)
        if (strcmp(EXAMPLES[i].name, name) == 0) return &EXAMPLES[i];
    return NULL;
}

/* Every node reachable from node 0 over links that are up. */
static int connected(const cs_topo *t) {
    uint32_t *stack = calloc(t->nnodes, sizeof *stack);
    char *seen = calloc(t->nnodes, 1);
    uint32_t n = 0, reached = 1;
    stack[n++] = 0;
    seen[0] = 1;
    while (n) {
        uint32_t v = stack[--n];
        for (uint32_t k = t->out_off[v]; k < t->out_off[v + 1]; k++) {
            const cs_link *l = &t->links[t->out_idx[k]];
            if (cs_link_up(l) && !seen[l->dst]) {
                seen[l->dst] = 1;
                reached++;
                stack[n++] = l->dst;
            }
        }
    }
    free(stack);
    free(seen);
    return reached == t->nnodes;
}

/* Parse json as b's keys and build (the caller frees the topology). */
static cs_topo *build_topo(const char *name, const char *json, const cs_network_config *net) {
    const cs_topo_builder *b = cs_topo_builder_find(name);
    assert_non_null(b);
    json_error_t je;
    json_t *obj = json_loads(json, 0, &je);
    assert_non_null(obj);
    void *params = calloc(1, b->params_size ? b->params_size : 1);
    cs_error err;
    cs_error_clear(&err);
    cs_topo *t = NULL;
    if (cs_topo_builder_parse(b, obj, "t", params, &err) || cs_topo_builder_build(b, params, net, "t", &t, &err))
        fail_msg("%s: %s", name, err.msg);
    cs_topo_builder_params_free(b, params);
    free(params);
    json_decref(obj);
    return t;
}

/* Parse json as b's keys (the scenario path: an object, not a file), build, and check the counts. */
static void build_one(const cs_topo_builder *b, const char *json, const cs_network_config *net, uint32_t npus,
                      uint32_t nodes, uint32_t cables) {
    cs_topo *t = build_topo(b->name, json, net);
    assert_int_equal(t->nnpus, npus);
    assert_int_equal(t->nnodes, nodes);
    assert_int_equal(t->nlinks, 2 * cables);
    assert_true(connected(t));
    cs_topo_free(t);
}

static void test_registry(void **st) {
    (void)st;
    size_t n = cs_topo_builder_count();
    assert_true(n >= 8);
    assert_null(cs_topo_builder_at(n));
    for (size_t i = 0; i < n; i++) {
        const cs_topo_builder *b = cs_topo_builder_at(i);
        assert_non_null(b->name);
        assert_non_null(b->build);
        assert_true(b->help && strlen(b->help) > 10);
        assert_ptr_equal(cs_topo_builder_find(b->name), b);
        for (size_t j = 0; j < i; j++) assert_string_not_equal(cs_topo_builder_at(j)->name, b->name);
        assert_true(b->nkeys == 0 || b->keys);
        for (size_t k = 0; k < b->nkeys; k++) {
            const cs_opt *o = &b->keys[k];
            if (!o->help || !o->help[0]) fail_msg("%s: key %s has no help", b->name, o->key);
            for (size_t m = 0; m < k; m++) assert_string_not_equal(b->keys[m].key, o->key);
            /* units are declared in the tables */
            if (strstr(o->key, "bandwidth")) assert_string_equal(o->unit, CS_UNIT_GBPS);
            if (strstr(o->key, "latency")) assert_string_equal(o->unit, CS_UNIT_NS);
            assert_ptr_equal(cs_topo_builder_key(b, o->key), o);
        }
    }
    assert_null(cs_topo_builder_find("hypercube"));
    char names[512];
    cs_topo_builder_names(names, sizeof names);
    tu_assert_has(names, "astra, fat-tree, ");
}

static void test_every_builder_builds(void **st) {
    (void)st;
    for (size_t i = 0; i < cs_topo_builder_count(); i++) {
        const cs_topo_builder *b = cs_topo_builder_at(i);
        const example *e = example_of(b->name);
        if (!e) fail_msg("builder %s has no example in test_topo_builders.c", b->name);
        cs_network_config net = strcmp(b->name, "astra") == 0 ? ring_switch_net() : switch_net(e->npus);
        build_one(b, e->json, &net, e->npus, e->nodes, e->cables);
        if (e->def_npus) {
            cs_network_config dnet = switch_net(e->def_npus);
            build_one(b, "{}", &dnet, e->def_npus, e->def_nodes, e->def_cables);
        }
    }
}

static void test_key_of_other_builder(void **st) {
    (void)st;
    cs_network_config net = switch_net(16);
    cs_topo *t = NULL;
    cs_error err;
    cs_error_clear(&err);
    const char *p = tu_write_tmp("other.json", "{\"builder\": \"torus\",\n \"dims\": [4, 4],\n \"spines\": 2}\n");
    assert_int_equal(cs_topology_file_load(p, &net, &t, &err), CS_EINVAL);
    assert_null(t);
    tu_assert_has(err.msg, "other.json:3: spines: not a key of builder torus");
    tu_assert_has(err.msg, "a key of fat-tree, rail");
    tu_assert_has(err.msg, "torus's keys: dims, link_bandwidth, link_latency");
    /* "astra" has no keys: npus belongs to fat-tree, edges, clos3 */
    cs_error_clear(&err);
    p = tu_write_tmp("other2.json", "{\"builder\": \"astra\", \"npus\": 16}\n");
    assert_int_equal(cs_topology_file_load(p, &net, &t, &err), CS_EINVAL);
    tu_assert_has(err.msg, "other2.json:1: npus: not a key of builder astra");
    /* the same from an object (a scenario namespace) */
    cs_error_clear(&err);
    const cs_topo_builder *b = cs_topo_builder_find("mesh");
    json_t *obj = json_pack("{s:[i,i], s:i}", "dims", 4, 4, "servers", 2);
    void *params = calloc(1, b->params_size);
    assert_int_equal(cs_topo_builder_parse(b, obj, "topology.mesh", params, &err), CS_EINVAL);
    tu_assert_has(err.msg, "topology.mesh:0: servers: not a key of builder mesh (a key of rail, servers;");
    cs_topo_builder_params_free(b, params);
    free(params);
    json_decref(obj);
    /* a key of no builder warns, as before */
    cs_error_clear(&err);
    p = tu_write_tmp("unk.json", "{\"builder\": \"mesh\", \"dims\": [4, 4],\n \"link_bandwith\": 3}\n");
    tu_capture_warnings();
    assert_int_equal(cs_topology_file_load(p, &net, &t, &err), CS_OK);
    tu_assert_has(tu_warnings(), "unk.json:2: unknown key \"link_bandwith\" ignored (did you mean \"link_bandwidth\"?)");
    tu_capture_end();
    cs_topo_free(t);
    /* an unknown builder lists the registered ones */
    cs_error_clear(&err);
    p = tu_write_tmp("unb.json", "{\"builder\": \"hypercube\"}\n");
    assert_int_equal(cs_topology_file_load(p, &net, &t, &err), CS_EINVAL);
    tu_assert_has(err.msg, "unb.json:1: builder: expected one of astra, fat-tree, rail, edges, clos3, torus, mesh, "
                           "dragonfly");
    tu_assert_has(err.msg, ", got \"hypercube\"");
}

/* Build errors are located at the builder key, parse errors at their own. */
static void test_error_locations(void **st) {
    (void)st;
    cs_network_config net = switch_net(16);
    cs_topo *t = NULL;
    cs_error err;
    cs_error_clear(&err);
    const char *p = tu_write_tmp("loc.json", "{\n\"builder\": \"fat-tree\", \"npus_per_leaf\": 4}\n");
    assert_int_equal(cs_topology_file_load(p, &net, &t, &err), CS_EINVAL);
    tu_assert_has(err.msg, "loc.json:2: fat-tree: 4 leaves need spines >= 1");
    cs_error_clear(&err);
    p = tu_write_tmp("loc2.json", "{\"builder\": \"mesh\"}\n");
    assert_int_equal(cs_topology_file_load(p, &net, &t, &err), CS_EINVAL);
    tu_assert_has(err.msg, "loc2.json:1: dims: expected a list of 1 to 3 sizes (a required key)");
    cs_error_clear(&err);
    p = tu_write_tmp("loc3.json", "{\"builder\": \"fat-tree\",\n \"spines\": -1}\n");
    assert_int_equal(cs_topology_file_load(p, &net, &t, &err), CS_EINVAL);
    tu_assert_has(err.msg, "loc3.json:2: spines: expected an integer from 0");
}

/* Counts from a typo are refused before anything is allocated: every
 * builder counts its nodes and cables in 64 bits against CS_TOPO_MAX_*
 * (cs_topo_check_size), and the topology file compares the NPU count with
 * the network's first.  (2e9 switches or a torus of 10^9 allocated 2-3 GB;
 * a rail of 65536 x 65536 GPUs wrapped to "0 NPUs".) */
static void test_sizes_checked_first(void **st) {
    (void)st;
    cs_topo *t = NULL;
    cs_error err;
    cs_error_clear(&err);
    cs_rail_params rp = {.servers = 65536, .gpus_per_server = 65536, .nvlink_bw = 50, .nic_bw = 50};
    assert_int_equal(cs_topo_build_rail(&rp, &t, &err), CS_EINVAL);
    tu_assert_has(err.msg, "rail: 65536 servers x 65536 GPUs = 4294967296 NPUs, a NIC each: ");
    tu_assert_has(err.msg, "; expected at most 16777216 nodes and 16777216 cables");
    assert_null(t);
    cs_error_clear(&err);
    cs_grid_params gp = {.ndims = 3, .dims = {1000000000, 1000000000, 1000000000}, .wrap = 1, .bw = 50};
    assert_int_equal(cs_topo_build_grid(&gp, &t, &err), CS_EINVAL);
    tu_assert_has(err.msg, "torus: more than 2^64 NPUs: more than 2^64 nodes");
    cs_error_clear(&err);
    gp = (cs_grid_params){.ndims = 1, .dims = {1000000000}, .wrap = 1, .bw = 50};
    assert_int_equal(cs_topo_build_grid(&gp, &t, &err), CS_EINVAL);
    tu_assert_has(err.msg, "torus: 1000000000 NPUs: 1000000000 nodes and 1000000000 cables");
    cs_error_clear(&err);
    cs_fattree_params fp = {.npus = 2000000000, .npus_per_leaf = 2, .spines = 1, .host_bw = 50, .uplink_bw = 50};
    assert_int_equal(cs_topo_build_fattree(&fp, &t, &err), CS_EINVAL);
    tu_assert_has(err.msg, "fat-tree: 2000000000 NPUs, 1000000000 leaves, 1 spines x 1 uplinks: 3000000001 nodes");
    cs_error_clear(&err);
    cs_dragonfly_params dp = {.groups = 100000, .routers_per_group = 100000, .npus_per_router = 1,
                              .global_per_router = 1, .host_bw = 1, .local_bw = 1, .global_bw = 1};
    assert_int_equal(cs_topo_build_dragonfly(&dp, &t, &err), CS_EINVAL);
    tu_assert_has(err.msg, "dragonfly: 100000 groups x 100000 routers x 1 NPUs: 20000000000 nodes");
    cs_error_clear(&err);
    cs_clos3_params cp = {.npus = 8, .npus_per_leaf = 1, .leaves_per_pod = 1, .aggs_per_pod = 100000,
                          .cores_per_agg = 100000, .host_bw = 1, .leaf_up_bw = 1, .agg_up_bw = 1};
    assert_int_equal(cs_topo_build_clos3(&cp, &t, &err), CS_EINVAL);
    tu_assert_has(err.msg, "clos3: 8 NPUs, 8 leaves, 8 pods x 100000 aggregation switches, 100000 x 100000 cores");
    /* the astra product of a big network: NULL from the builder, the reason from the check */
    cs_network_config fc = switch_net(8192);
    fc.topo[0] = CS_TOPO_FULLY_CONNECTED;
    char fc_path[] = "fc.yml", n2_path[] = "n2.yml";
    fc.path = fc_path;
    assert_null(cs_topo_build_astra(&fc));
    cs_error_clear(&err);
    assert_int_equal(cs_topo_check_astra(&fc, &err), CS_EINVAL);
    tu_assert_has(err.msg, "fc.yml: the graph of the network's dimensions (8192 NPUs): 8192 nodes and 33550336 cables");
    /* from the file: the NPU count against the network's, before building */
    cs_network_config net = switch_net(2);
    net.path = n2_path;
    const char *p = tu_write_tmp("sz1.json", "{\"builder\": \"torus\", \"dims\": [1000000000]}\n");
    cs_error_clear(&err);
    assert_int_equal(cs_topology_file_load(p, &net, &t, &err), CS_EINVAL);
    tu_assert_has(err.msg, "sz1.json:1: the topology has 1000000000 NPUs but the network configuration n2.yml has 2");
    p = tu_write_tmp("sz2.json", "{\"builder\": \"rail\", \"servers\": 65536, \"gpus_per_server\": 65536,\n"
                                 " \"nic_bandwidth\": 50}\n");
    cs_error_clear(&err);
    assert_int_equal(cs_topology_file_load(p, &net, &t, &err), CS_EINVAL);
    tu_assert_has(err.msg, "sz2.json:1: the topology has 4294967296 NPUs but the network configuration n2.yml has 2");
    p = tu_write_tmp("sz3.json", "{\"builder\": \"edges\", \"switches\": 2000000000,\n"
                                 " \"edges\": [[0, 2, 50, 500], [2, 1, 50, 500]]}\n");
    cs_error_clear(&err);
    assert_int_equal(cs_topology_file_load(p, &net, &t, &err), CS_EINVAL);
    tu_assert_has(err.msg, "sz3.json: edges: 2 NPUs + 2000000000 switches: 2000000002 nodes and 2 cables");
    assert_null(t);
}

/* An edge list with two cables between the same nodes (either direction) is
 * refused, naming the file, both cables' lines and both endpoints. */
static void test_duplicate_cables(void **st) {
    (void)st;
    cs_network_config net = switch_net(2);
    cs_topo *t = NULL;
    cs_error err;
    cs_error_clear(&err);
    const char *p = tu_write_tmp("dup.json", "{\"builder\": \"edges\", \"switches\": 1, \"edges\": [\n"
                                             "  [0, 2, 50, 500],\n  [2, 1, 50, 500],\n  [2, 0, 25, 100]]}\n");
    assert_int_equal(cs_topology_file_load(p, &net, &t, &err), CS_EINVAL);
    tu_assert_has(err.msg, "dup.json:4: edges[2]: a second cable between nodes 2 and 0 (the first: edges[0], line 2)");
    assert_null(t);
}


/* The "servers" builder against hand-counted paths and bandwidths.  Rail wiring, 4 servers x 8 GPUs, 4 NICs per
 * leaf, oversubscription 1: GPU 0 -> GPU 1 (same server) only over the NVSwitch (2 hops, 1 path); GPU 0 -> GPU 8
 * (server 1, rail 0) under one leaf: GPU-NIC-leaf-NIC-GPU, 4 hops, 1 path; GPU 0 -> GPU 9 (server 1, rail 1): 6
 * hops over one of the 4 spines, or PXN-like through GPU 1 (NVSwitch, GPU 1's NIC, rail 1's leaf, GPU 9's NIC) or
 * through GPU 8 (rail 0's leaf, GPU 8, server 1's NVSwitch): 6 paths.
 * Plain wiring, 16 NICs per leaf: GPUs 0-15 under leaf 0; GPU 0 -> GPU 16: 6 hops over each of the 16 spines (a
 * detour through a server peer is longer): 16 paths.  Oversubscription 3 with 4 NICs per leaf: ceil(4/3) = 2
 * spines, each leaf uplink 4 x 50 / (2 x 3) = 33.33 GB/s.  3 tiers: 4 servers x 8, rail, 4 NICs per leaf, 2
 * leaves per pod, 2 aggs, 2 cores per agg: 8 leaves in 4 pods, 8 aggregation switches, 4 cores; GPU 0 -> GPU 8
 * stays under its leaf (4 hops, 1 path). */
static void test_servers_paths(void **st) {
    (void)st;
    cs_network_config net = switch_net(32);
    cs_topo *t = build_topo("servers", "{\"servers\": 4, \"gpus_per_server\": 8, \"nics_per_leaf\": 4}", &net);
    assert_int_equal(cs_topo_count_paths(t, 0, 1), 1);
    assert_int_equal(cs_topo_count_paths(t, 0, 8), 1);
    assert_int_equal(cs_topo_count_paths(t, 0, 9), 6);
    cs_topo_free(t);
    t = build_topo("servers", "{\"servers\": 4, \"wiring\": \"plain\", \"nics_per_leaf\": 16}", &net);
    assert_int_equal(cs_topo_count_paths(t, 0, 16), 16);
    assert_int_equal(cs_topo_count_paths(t, 0, 15), 1); /* same server: the NVSwitch, 2 hops */
    cs_topo_free(t);
    t = build_topo("servers", "{\"servers\": 4, \"nics_per_leaf\": 4, \"oversubscription\": 3}", &net);
    uint32_t spines = 0;
    double upbw = 0;
    for (uint32_t i = 0; i < t->nlinks; i++) { /* leaf -> spine links: from a switch to a switch, not an NVSwitch */
        const cs_link *l = &t->links[i];
        if (t->kind[l->src] == CS_NODE_SWITCH && t->kind[l->dst] == CS_NODE_SWITCH) {
            upbw = l->bw;
            if (l->src == t->nnodes - 3) spines++; /* the last leaf's uplinks */
        }
    }
    assert_int_equal(spines, 2);
    assert_true(fabs(upbw - cs_gbps_to_bytes_per_ns(4 * 50.0 / (2 * 3))) < 1e-9);
    cs_topo_free(t);
    t = build_topo("servers", "{\"servers\": 4, \"nics_per_leaf\": 4, \"tiers\": 3, \"leaves_per_pod\": 2, "
                              "\"aggs_per_pod\": 2, \"cores_per_agg\": 2}", &net);
    assert_int_equal(t->nnodes, 32 + 32 + 4 + 8 + 4 * 2 + 2 * 2);
    assert_int_equal(cs_topo_count_paths(t, 0, 8), 1);
    cs_topo_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_every_builder_builds),
        cmocka_unit_test(test_key_of_other_builder),
        cmocka_unit_test(test_error_locations),
        cmocka_unit_test(test_sizes_checked_first),
        cmocka_unit_test(test_duplicate_cables),
        cmocka_unit_test(test_servers_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
