/*
 * test_topo_route.c -- topology builders, the topology file, and routing
 * (topology/topology.c, build_*.c, route.c, config/topology_file.c):
 * path counts of Clos fabrics against closed forms, ECMP determinism and
 * spreading, failed links rerouted, file:line errors.
 */
#include <stdio.h>
#include <string.h>

#include "config/topology_file.h"
#include "core/eventq.h"
#include "network/network.h"
#include "topology/route.h"
#include "topology/topology.h"
#include "testutil.h"

static cs_topo *fattree(uint32_t npus, uint32_t per_leaf, uint32_t spines, uint32_t up) {
    cs_fattree_params p = {.npus = npus, .npus_per_leaf = per_leaf, .spines = spines, .uplinks_per_spine = up,
                           .host_bw = 50, .uplink_bw = 50};
    cs_topo *t;
    cs_error err;
    assert_int_equal(cs_topo_build_fattree(&p, &t, &err), CS_OK);
    return t;
}

/* Two-tier leaf-spine: same leaf 1 path (2 links); different leaves
 * spines x u^2 link-distinct paths (4 links; u parallel cables per leaf-spine
 * pair, chosen independently up and down). */
static void test_fattree_path_counts(void **st) {
    (void)st;
    const uint32_t spines[] = {1, 2, 4, 8};
    for (size_t i = 0; i < 4; i++)
        for (uint32_t up = 1; up <= 3; up++) {
            cs_topo *t = fattree(32, 8, spines[i], up);
            assert_int_equal(t->nnodes, 32 + 4 + spines[i]);
            assert_int_equal(t->nlinks, 2 * (32 + 4 * spines[i] * up));
            assert_int_equal(cs_topo_count_paths(t, 0, 7), 1);
            assert_int_equal(cs_topo_count_paths(t, 0, 8), spines[i] * up * up);
            assert_int_equal(cs_topo_count_paths(t, 31, 0), spines[i] * up * up);
            cs_router *r = cs_router_new(t, 1);
            const uint32_t *links;
            uint32_t n;
            cs_error err;
            assert_int_equal(cs_router_route(r, 0, 7, &links, &n, &err), CS_OK);
            assert_int_equal(n, 2);
            assert_int_equal(cs_router_route(r, 0, 31, &links, &n, &err), CS_OK);
            assert_int_equal(n, 4);
            assert_int_equal(t->links[links[0]].src, 0);
            assert_int_equal(t->links[links[3]].dst, 31);
            for (uint32_t h = 1; h < n; h++) assert_int_equal(t->links[links[h]].src, t->links[links[h - 1]].dst);
            cs_router_free(r);
            cs_topo_free(t);
        }
}

/* Rail-optimized HGX servers: same rail across servers 1 path of 4 links
 * (GPU-NIC-rail-NIC-GPU); inside a server 1 path over the NVSwitch. */
static void test_rail_paths(void **st) {
    (void)st;
    cs_rail_params p = {.servers = 4, .gpus_per_server = 8, .spines = 2, .nvlink_bw = 450, .nic_bw = 50,
                        .spine_bw = 50};
    cs_topo *t;
    cs_error err;
    assert_int_equal(cs_topo_build_rail(&p, &t, &err), CS_OK);
    assert_int_equal(t->nnpus, 32);
    assert_int_equal(t->nnodes, 32 + 32 + 8 + 2 + 4);
    assert_int_equal(cs_topo_count_paths(t, 0, 5), 1);   /* NVSwitch */
    assert_int_equal(cs_topo_count_paths(t, 3, 11), 1);  /* rail 3 */
    cs_router *r = cs_router_new(t, 0);
    const uint32_t *links;
    uint32_t n;
    assert_int_equal(cs_router_route(r, 3, 27, &links, &n, &err), CS_OK);
    assert_int_equal(n, 4);
    assert_int_equal(t->kind[t->links[links[1]].dst], CS_NODE_SWITCH);
    cs_router_free(r);
    cs_topo_free(t);
}

/* Same seed, same routes (also from a fresh router); routes spread over the
 * spines; a route is computed once and then cached. */
static void test_ecmp_deterministic(void **st) {
    (void)st;
    cs_topo *t = fattree(64, 8, 8, 1);
    cs_router *a = cs_router_new(t, 42), *b = cs_router_new(t, 42), *c = cs_router_new(t, 43);
    int used[64] = {0};
    int differ = 0;
    cs_error err;
    for (uint32_t s = 0; s < 8; s++)
        for (uint32_t d = 8; d < 64; d++) {
            const uint32_t *la, *lb, *lc;
            uint32_t na, nb, nc;
            assert_int_equal(cs_router_route(a, s, d, &la, &na, &err), CS_OK);
            assert_int_equal(cs_router_route(b, s, d, &lb, &nb, &err), CS_OK);
            assert_int_equal(cs_router_route(c, s, d, &lc, &nc, &err), CS_OK);
            assert_int_equal(na, nb);
            assert_memory_equal(la, lb, na * sizeof *la);
            differ += memcmp(la, lc, na * sizeof *la) != 0;
            used[t->links[la[1]].dst - 64 - 8 + 0]++; /* the spine */
        }
    int spines_used = 0;
    for (int i = 0; i < 8; i++) spines_used += used[i] > 0;
    assert_int_equal(spines_used, 8);
    assert_true(differ > 0);
    uint64_t computed = cs_router_computed(a);
    const uint32_t *l;
    uint32_t n;
    assert_int_equal(cs_router_route(a, 0, 9, &l, &n, &err), CS_OK);
    assert_int_equal(cs_router_computed(a), computed);
    cs_router_free(a);
    cs_router_free(b);
    cs_router_free(c);
    cs_topo_free(t);
}

/* A failed leaf-spine cable: routes avoid it; all cables of the leaf down:
 * unreachable, with a message. */
static void test_failed_link_rerouted(void **st) {
    (void)st;
    cs_topo *t = fattree(16, 8, 2, 1);
    uint32_t leaf0 = 16, spine0 = 18, spine1 = 19;
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_topo_count_paths(t, 0, 8), 2);
    assert_int_equal(cs_topo_degrade_cable(t, leaf0, spine0, 0, &err), CS_OK);
    assert_int_equal(cs_topo_count_paths(t, 0, 8), 1);
    cs_router *r = cs_router_new(t, 7);
    for (uint32_t s = 0; s < 8; s++)
        for (uint32_t d = 8; d < 16; d++) {
            const uint32_t *l;
            uint32_t n;
            assert_int_equal(cs_router_route(r, s, d, &l, &n, &err), CS_OK);
            assert_int_equal(t->links[l[1]].dst, spine1);
        }
    assert_int_equal(cs_topo_degrade_cable(t, leaf0, spine1, 0, &err), CS_OK);
    cs_router_invalidate(r);
    const uint32_t *l;
    uint32_t n;
    assert_int_equal(cs_router_route(r, 0, 8, &l, &n, &err), CS_EINVAL);
    tu_assert_has(err.msg, "no route from node 0 to node 8");
    assert_int_equal(cs_topo_degrade_cable(t, 0, 9, 0, &err), CS_EINVAL);
    cs_router_free(r);
    cs_topo_free(t);
}

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

static void test_file_builders(void **st) {
    (void)st;
    cs_network_config net = switch_net(16);
    cs_topo *t;
    cs_error err;
    cs_error_clear(&err);
    const char *p = tu_write_tmp("ft.json", "{\"builder\": \"fat-tree\", \"npus_per_leaf\": 4, \"spines\": 2,\n"
                                            " \"link_bandwidth\": 100, \"oversubscription\": 2,\n"
                                            " \"failed_links\": [[16, 20]], \"ecmp_seed\": 3}\n");
    assert_int_equal(cs_topology_file_load(p, &net, &t, &err), CS_OK);
    assert_int_equal(t->nnodes, 16 + 4 + 2);
    assert_int_equal(t->ecmp_seed, 3);
    uint32_t up = cs_topo_find_link(t, 17, 20);
    assert_true(up != UINT32_MAX);
    /* 4 x 100 / (2 x 2) = 100 GB/s per uplink */
    assert_true(t->links[up].bw == cs_gbps_to_bytes_per_ns(100));
    assert_false(cs_link_up(&t->links[cs_topo_find_link(t, 16, 20)]));
    cs_topo_free(t);

    p = tu_write_tmp("e.json", "{\"builder\": \"edges\", \"npus\": 16, \"switches\": 1,\n \"edges\": [\n"
                               "[0, 16, 50, 500], [1, 16, 50, 500], [2, 16, 50, 500], [3, 16, 50, 500],\n"
                               "[4, 16, 50, 500], [5, 16, 50, 500], [6, 16, 50, 500], [7, 16, 50, 500],\n"
                               "[8, 16, 50, 500], [9, 16, 50, 500], [10, 16, 50, 500], [11, 16, 50, 500],\n"
                               "[12, 16, 50, 500], [13, 16, 50, 500], [14, 16, 50, 500], [15, 16, 50, 500]]}\n");
    assert_int_equal(cs_topology_file_load(p, &net, &t, &err), CS_OK);
    assert_int_equal(t->nlinks, 32);
    cs_topo_free(t);

    p = tu_write_tmp("a.json", "{\"builder\": \"astra\"}");
    assert_int_equal(cs_topology_file_load(p, &net, &t, &err), CS_OK);
    assert_int_equal(t->nnodes, 17);
    cs_topo_free(t);

    p = tu_write_tmp("r.json", "{\"builder\": \"rail\", \"servers\": 2, \"gpus_per_server\": 8, \"nic_bandwidth\": 50}");
    assert_int_equal(cs_topology_file_load(p, &net, &t, &err), CS_OK);
    assert_int_equal(t->nnpus, 16);
    cs_topo_free(t);
}

static void test_file_errors(void **st) {
    (void)st;
    cs_network_config net = switch_net(16);
    cs_topo *t;
    cs_error err;
    cs_error_clear(&err);
    const char *p = tu_write_tmp("bad1.json", "{\"builder\": \"edges\", \"switches\": 1,\n \"edges\": [\n"
                                              "  [0, 16, 50, 500],\n  [1, 17, 50, 500]]}\n");
    assert_int_equal(cs_topology_file_load(p, &net, &t, &err), CS_EINVAL);
    tu_assert_has(err.msg, "bad1.json:4: edges[1]: node 17 does not exist");
    assert_null(t);
    cs_error_clear(&err);
    p = tu_write_tmp("bad2.json", "{\n\"builder\": \"torus\"}\n");
    assert_int_equal(cs_topology_file_load(p, &net, &t, &err), CS_EINVAL);
    tu_assert_has(err.msg, "bad2.json:2: builder");
    cs_error_clear(&err);
    p = tu_write_tmp("bad3.json", "{\"builder\": \"fat-tree\", \"npus_per_leaf\": 4, \"spines\": 1, \"npus\": 8}\n");
    assert_int_equal(cs_topology_file_load(p, &net, &t, &err), CS_EINVAL);
    tu_assert_has(err.msg, "has 8 NPUs but the network configuration");
    cs_error_clear(&err);
    p = tu_write_tmp("bad4.json", "{\"builder\": \"fat-tree\", \"npus_per_leaf\": 4, \"spines\": 1,\n"
                                  "\"failed_links\": [[0, 1]]}\n");
    assert_int_equal(cs_topology_file_load(p, &net, &t, &err), CS_EINVAL);
    tu_assert_has(err.msg, "bad4.json:2: failed_links[0]: ");
    tu_assert_has(err.msg, "no link between nodes 0 and 1");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fattree_path_counts), cmocka_unit_test(test_rail_paths),
        cmocka_unit_test(test_ecmp_deterministic),  cmocka_unit_test(test_failed_link_rerouted),
        cmocka_unit_test(test_file_builders),       cmocka_unit_test(test_file_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
