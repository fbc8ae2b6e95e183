/*
 * test_topo_route.c -- topology builders, the topology file, and routing
 * (topology/topology.c, build_*.c, route.c, config/topology_file.c):
 * path counts of Clos fabrics against closed forms, ECMP determinism and
 * spreading, failed links rerouted, file:line errors.
 */
#include <stdio.h>
#include <string.h>

#include "config/topology_file.h"
#include "core/alloc.h"
#include "core/rand.h"
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

/* ECMP's hashed fields (cs_topo.ecmp_fields, the topology file's "ecmp_hash"), on the fat-tree above
 * (64 NPUs, 8 leaves of 8, 8 spines):
 *   dst alone: every route to one destination leaves every switch on the same link whatever its source
 *     -- the 8 sources of a leaf take one spine to NPU d (destination routing, as a switch's forwarding
 *     table; other leaves may pick other spines);
 *   src,dst,qp (the default): the 8 sources of some leaf spread over several spines; the same routes as
 *     a topology that does not say (0);
 *   src,dst: a pair's connections share its path (cs_router_route_conn of connection 3 = the pair's
 *     route), while with qp hashed some pair's connection 3 takes another path. */
static void test_ecmp_fields(void **st) {
    (void)st;
    cs_topo *t = fattree(64, 8, 8, 1);
    cs_error err;
    const unsigned all = CS_ECMP_SRC | CS_ECMP_DST | CS_ECMP_QP;
    int spread = 0;
    for (uint32_t d = 0; d < 64; d += 9) {
        for (int k = 0; k < 2; k++) {
            t->ecmp_fields = k ? CS_ECMP_DST : all;
            cs_router *r = cs_router_new(t, 42);
            for (uint32_t leaf = 0; leaf < 8; leaf++) {
                if (leaf == d / 8) continue;
                int used[8] = {0}, nused = 0;
                for (uint32_t s = leaf * 8; s < leaf * 8 + 8; s++) {
                    const uint32_t *l;
                    uint32_t n;
                    assert_int_equal(cs_router_route(r, s, d, &l, &n, &err), CS_OK);
                    assert_int_equal(n, 4);
                    used[t->links[l[1]].dst - 64 - 8] = 1; /* the spine */
                }
                for (int i = 0; i < 8; i++) nused += used[i];
                if (k) assert_int_equal(nused, 1);
                else spread += nused > 1;
            }
            cs_router_free(r);
        }
    }
    assert_true(spread > 0);
    /* 0 (not given) hashes every field: the same routes as src,dst,qp */
    cs_router *r0, *r7;
    t->ecmp_fields = 0;
    r0 = cs_router_new(t, 5);
    cs_topo *t7 = fattree(64, 8, 8, 1);
    t7->ecmp_fields = all;
    r7 = cs_router_new(t7, 5);
    for (uint32_t s = 0; s < 64; s += 3)
        for (uint32_t d = 0; d < 64; d += 5) {
            const uint32_t *a, *b;
            uint32_t na, nb;
            assert_int_equal(cs_router_route_conn(r0, s, d, 7, 2, &a, &na, &err), CS_OK);
            uint32_t ca[8];
            memcpy(ca, a, na * sizeof *a);
            assert_int_equal(cs_router_route_conn(r7, s, d, 7, 2, &b, &nb, &err), CS_OK);
            assert_int_equal(na, nb);
            assert_memory_equal(ca, b, na * sizeof *b);
        }
    cs_router_free(r0);
    cs_router_free(r7);
    cs_topo_free(t7);
    int moved[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        t->ecmp_fields = k ? CS_ECMP_SRC | CS_ECMP_DST : all;
        cs_router *r = cs_router_new(t, 42);
        for (uint32_t s = 0; s < 8; s++)
            for (uint32_t d = 8; d < 64; d++) {
                const uint32_t *l;
                uint32_t n, pair[8];
                assert_int_equal(cs_router_route(r, s, d, &l, &n, &err), CS_OK);
                memcpy(pair, l, n * sizeof *l);
                assert_int_equal(cs_router_route_conn(r, s, d, 0, 3, &l, &n, &err), CS_OK);
                moved[k] += memcmp(pair, l, n * sizeof *l) != 0;
            }
        cs_router_free(r);
    }
    assert_true(moved[0] > 0);
    assert_int_equal(moved[1], 0);
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
    p = tu_write_tmp("bad2.json", "{\n\"builder\": \"hypercube\"}\n");
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
    const char *bad_hash[] = {"\"src,port\"", "\"\"", "\"dst,dst\"", "\"src,\"", "3"};
    for (int k = 0; k < 5; k++) {
        char text[200];
        snprintf(text, sizeof text, "{\"builder\": \"fat-tree\", \"npus_per_leaf\": 4, \"spines\": 1,\n\"ecmp_hash\": %s}\n",
                 bad_hash[k]);
        cs_error_clear(&err);
        p = tu_write_tmp("bad5.json", text);
        assert_int_equal(cs_topology_file_load(p, &net, &t, &err), CS_EINVAL);
        tu_assert_has(err.msg, "bad5.json:2: ecmp_hash: expected a comma-separated subset of src, dst, qp");
    }
    cs_error_clear(&err);
    p = tu_write_tmp("good5.json", "{\"builder\": \"fat-tree\", \"npus_per_leaf\": 4, \"spines\": 1, \"ecmp_hash\": \"qp,dst\"}\n");
    assert_int_equal(cs_topology_file_load(p, &net, &t, &err), CS_OK);
    assert_int_equal(t->ecmp_fields, CS_ECMP_DST | CS_ECMP_QP);
    cs_topo_free(t);
}


/* ---- three-tier Clos, torus/mesh, dragonfly: path counts vs closed forms ------- */

static uint32_t route_len(const cs_topo *t, uint32_t a, uint32_t b) {
    cs_router *r = cs_router_new(t, 7);
    const uint32_t *links;
    uint32_t n = 0;
    cs_error err;
    assert_int_equal(cs_router_route(r, a, b, &links, &n, &err), CS_OK);
    for (uint32_t h = 1; h < n; h++) assert_int_equal(t->links[links[h]].src, t->links[links[h - 1]].dst);
    cs_router_free(r);
    return n;
}

/* Three-tier Clos, P pods of L leaves of 4 NPUs, A aggs per pod, C cores per
 * agg (A*C cores): same leaf 1 path (2 links); same pod, other leaf A paths
 * (4 links: up to any agg, down); other pod A*C paths (6 links: any agg, any
 * core of its group, then the one agg of that group in the destination pod).
 * Nodes: N + N/4 leaves + P*A aggs + A*C cores; cables N + leaves*A + P*A*C. */
static void test_clos3_path_counts(void **st) {
    (void)st;
    for (uint32_t A = 1; A <= 4; A *= 2)
        for (uint32_t C = 1; C <= 3; C++) {
            cs_clos3_params p = {.npus = 64, .npus_per_leaf = 4, .leaves_per_pod = 4, .aggs_per_pod = A,
                                 .cores_per_agg = C, .host_bw = 50, .leaf_up_bw = 25, .agg_up_bw = 10};
            cs_topo *t;
            cs_error err;
            assert_int_equal(cs_topo_build_clos3(&p, &t, &err), CS_OK);
            uint32_t leaves = 16, pods = 4;
            assert_int_equal(t->nnodes, 64 + leaves + pods * A + A * C);
            assert_int_equal(t->nlinks, 2 * (64 + leaves * A + pods * A * C));
            assert_int_equal(cs_topo_count_paths(t, 0, 3), 1);
            assert_int_equal(cs_topo_count_paths(t, 0, 4), A);
            assert_int_equal(cs_topo_count_paths(t, 0, 15), A);
            assert_int_equal(cs_topo_count_paths(t, 0, 16), A * C);
            assert_int_equal(cs_topo_count_paths(t, 63, 0), A * C);
            assert_int_equal(route_len(t, 0, 3), 2);
            assert_int_equal(route_len(t, 0, 4), 4);
            assert_int_equal(route_len(t, 0, 63), 6);
            cs_topo_free(t);
        }
}

/* Mesh: shortest paths from the origin to (dx, dy, dz) = the multinomial
 * (dx+dy+dz)! / (dx! dy! dz!).  Torus k = 8: offsets below k/2 the same;
 * an offset of exactly k/2 can go either way round (x2 per such dimension):
 * (4, 4) -> 2 * 2 * C(8, 4) = 280.  Cables: mesh sum over dims of
 * (k-1) * N/k; torus k * N/k per dimension of k >= 3 (a dimension of 2 has one). */
static void test_grid_path_counts(void **st) {
    (void)st;
    cs_error err;
    cs_topo *t;
    cs_grid_params m = {.ndims = 3, .dims = {4, 5, 3}, .wrap = 0, .bw = 50};
    assert_int_equal(cs_topo_build_grid(&m, &t, &err), CS_OK);
    assert_int_equal(t->nnodes, 60);
    assert_int_equal(t->nlinks, 2 * (3 * 15 + 4 * 12 + 2 * 20));
    /* (3, 4, 2): 9! / (3! 4! 2!) = 1260; (1, 1, 0): 2; (2, 0, 1): 3 */
    assert_int_equal(cs_topo_count_paths(t, 0, 3 + 4 * 4 + 2 * 20), 1260);
    assert_int_equal(cs_topo_count_paths(t, 0, 1 + 4), 2);
    assert_int_equal(cs_topo_count_paths(t, 0, 2 + 20), 3);
    assert_int_equal(route_len(t, 0, 59), 9);
    cs_topo_free(t);

    cs_grid_params tor = {.ndims = 2, .dims = {8, 8}, .wrap = 1, .bw = 50};
    assert_int_equal(cs_topo_build_grid(&tor, &t, &err), CS_OK);
    assert_int_equal(t->nlinks, 2 * (64 + 64));
    assert_int_equal(cs_topo_count_paths(t, 0, 3 + 8 * 2), 10); /* C(5, 2) */
    assert_int_equal(cs_topo_count_paths(t, 0, 7), 1);           /* wrap-around: one hop */
    assert_int_equal(cs_topo_count_paths(t, 0, 4), 2);
    assert_int_equal(cs_topo_count_paths(t, 0, 4 + 8 * 4), 280);
    assert_int_equal(route_len(t, 0, 7 + 8 * 7), 2);
    cs_topo_free(t);

    cs_grid_params two = {.ndims = 2, .dims = {2, 3}, .wrap = 1, .bw = 50};
    assert_int_equal(cs_topo_build_grid(&two, &t, &err), CS_OK);
    assert_int_equal(t->nlinks, 2 * (3 + 6)); /* dim of 2: one cable per pair; ring of 3: 3 per line */
    cs_topo_free(t);
    cs_grid_params bad = {.ndims = 4, .dims = {2, 2, 2}, .wrap = 1, .bw = 50};
    assert_int_equal(cs_topo_build_grid(&bad, &t, &err), CS_EINVAL);
}

/* Dragonfly, G = 9 groups of a = 4 routers, 2 NPUs per router, h = 2 global
 * cables per router (a*h = 8 = G-1: the canonical maximal size).  One global
 * cable per pair of groups, so every minimal route is unique: count 1.
 * Lengths: same router 2 links; same group 3; other group 3 + (0, 1 or 2
 * local hops).  Group 0's cable to group 1 is on router 0 ((1-1)/2), group
 * 1's cable to group 0 on router 0: NPU 0 (group 0 router 0) -> NPU 8
 * (group 1 router 0) = NPU-router-router-NPU, 3 links.  NPU 0 -> NPU 14
 * (group 1, router 3): 4 links.  With that global cable down the route goes
 * through a third group: longer, still found. */
static void test_dragonfly_paths(void **st) {
    (void)st;
    cs_dragonfly_params p = {.groups = 9, .routers_per_group = 4, .npus_per_router = 2, .global_per_router = 2,
                             .host_bw = 50, .local_bw = 50, .global_bw = 25};
    cs_topo *t;
    cs_error err;
    assert_int_equal(cs_topo_build_dragonfly(&p, &t, &err), CS_OK);
    assert_int_equal(t->nnpus, 72);
    assert_int_equal(t->nnodes, 72 + 36);
    assert_int_equal(t->nlinks, 2 * (72 + 9 * 6 + 36));
    for (uint32_t g = 0; g < 36; g++) { /* every router: h global cables + a-1 local + 2 NPUs */
        uint32_t r = 72 + g;
        assert_int_equal(t->out_off[r + 1] - t->out_off[r], 2 + 3 + 2);
    }
    assert_int_equal(cs_topo_count_paths(t, 0, 1), 1);
    assert_int_equal(route_len(t, 0, 1), 2);
    assert_int_equal(route_len(t, 0, 7), 3);
    assert_int_equal(cs_topo_count_paths(t, 0, 8), 1);
    assert_int_equal(route_len(t, 0, 8), 3);
    assert_int_equal(route_len(t, 0, 14), 4);
    assert_int_equal(cs_topo_count_paths(t, 0, 14), 1);
    /* every destination: minimal routes have at most local + global + local
     * hops between the two NPU links (5 links); equal-length alternatives
     * through a third group exist for some pairs, so counts are >= 1 */
    for (uint32_t d = 8; d < 72; d++) {
        assert_true(cs_topo_count_paths(t, 0, d) >= 1);
        assert_true(route_len(t, 0, d) <= 5);
    }
    assert_int_equal(cs_topo_degrade_cable(t, 72, 72 + 4, 0.0, &err), CS_OK);
    assert_true(route_len(t, 0, 8) > 3);
    cs_topo_free(t);
    p.groups = 10; /* 9 > a*h = 8 */
    assert_int_equal(cs_topo_build_dragonfly(&p, &t, &err), CS_EINVAL);
}

static void test_file_new_builders(void **st) {
    (void)st;
    cs_network_config net = switch_net(64);
    cs_topo *t;
    cs_error err;
    cs_error_clear(&err);
    /* clos3: leaf uplink 4 x 100 / (2 x 2) = 100; core 4 x 100 / (1 x 4) = 100 */
    const char *p = tu_write_tmp("c3.json", "{\"builder\": \"clos3\", \"npus_per_leaf\": 4, \"leaves_per_pod\": 4,\n"
                                            " \"aggs_per_pod\": 2, \"cores_per_agg\": 1, \"link_bandwidth\": 100,\n"
                                            " \"oversubscription\": 2, \"core_oversubscription\": 4}\n");
    assert_int_equal(cs_topology_file_load(p, &net, &t, &err), CS_OK);
    assert_int_equal(t->nnodes, 64 + 16 + 8 + 2);
    assert_true(t->links[cs_topo_find_link(t, 64, 80)].bw == cs_gbps_to_bytes_per_ns(100));
    assert_true(t->links[cs_topo_find_link(t, 80, 88)].bw == cs_gbps_to_bytes_per_ns(100));
    cs_topo_free(t);
    p = tu_write_tmp("t.json", "{\"builder\": \"torus\", \"dims\": [4, 4, 4], \"link_bandwidth\": 100,\n"
                               " \"link_changes\": [[5000, 0, 1, 0.5]]}\n");
    assert_int_equal(cs_topology_file_load(p, &net, &t, &err), CS_OK);
    assert_int_equal(t->nlinks, 2 * 3 * 64);
    assert_int_equal(t->nchanges, 1);
    cs_topo_free(t);
    p = tu_write_tmp("m.json", "{\"builder\": \"mesh\", \"dims\": [8, 8]}\n");
    assert_int_equal(cs_topology_file_load(p, &net, &t, &err), CS_OK);
    assert_int_equal(t->nlinks, 2 * 2 * 56);
    cs_topo_free(t);
    p = tu_write_tmp("d.json", "{\"builder\": \"dragonfly\", \"groups\": 4, \"routers_per_group\": 4,\n"
                               " \"npus_per_router\": 4, \"global_links_per_router\": 1}\n");
    assert_int_equal(cs_topology_file_load(p, &net, &t, &err), CS_OK);
    assert_int_equal(t->nnodes, 64 + 16);
    cs_topo_free(t);
    p = tu_write_tmp("bd.json", "{\"builder\": \"torus\",\n \"dims\": [4, 0, 4]}\n");
    assert_int_equal(cs_topology_file_load(p, &net, &t, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "bd.json:2: dims[1]"));
    cs_error_clear(&err);
    p = tu_write_tmp("bc.json", "{\"builder\": \"mesh\", \"dims\": [8, 8],\n \"switch_changes\": [[10, 64, 0]]}\n");
    assert_int_equal(cs_topology_file_load(p, &net, &t, &err), CS_EINVAL);
    tu_assert_has(err.msg, "bc.json:2: switch_changes[0]: node 64 does not exist");
}


/* ---- placement, spraying, routing table --------------------------------------- */

/* strided:K puts consecutive ranks K NPUs apart: rank r -> (r mod N/K) K +
 * r div (N/K); N = 8, K = 2: 0 2 4 6 1 3 5 7.  random:SEED is a permutation,
 * the same for the same seed.  pack: groups smallest first on consecutive
 * NPUs in switch order: fat-tree 8 NPUs, 4 per leaf, groups {0,4} {1,5}
 * {2,6} {3,7}: 0,4 -> NPUs 0,1; 1,5 -> 2,3; 2,6 -> 4,5; 3,7 -> 6,7 -- every
 * group under one leaf (contiguous: every group spans 2 leaves). */
static void test_placement(void **st) {
    (void)st;
    cs_error err;
    cs_error_clear(&err);
    cs_topo *t = fattree(8, 4, 1, 1);
    assert_int_equal(cs_topo_place(t, "strided:2", NULL, 0, &err), CS_OK);
    const uint32_t want[8] = {0, 2, 4, 6, 1, 3, 5, 7};
    for (uint32_t r = 0; r < 8; r++) assert_int_equal(cs_topo_rank_npu(t, r), want[r]);
    assert_int_equal(cs_topo_place(t, "random:7", NULL, 0, &err), CS_OK);
    uint32_t seen = 0, first[8];
    for (uint32_t r = 0; r < 8; r++) {
        first[r] = t->place[r];
        seen |= 1u << t->place[r];
    }
    assert_int_equal(seen, 0xff);
    assert_int_equal(cs_topo_place(t, "random:7", NULL, 0, &err), CS_OK);
    for (uint32_t r = 0; r < 8; r++) assert_int_equal(t->place[r], first[r]);
    const uint32_t g0[] = {0, 4}, g1[] = {1, 5}, g2[] = {2, 6}, g3[] = {3, 7};
    cs_placement_group g[4] = {{g0, 2}, {g1, 2}, {g2, 2}, {g3, 2}};
    assert_int_equal(cs_topo_place(t, "contiguous", g, 4, &err), CS_OK);
    assert_int_equal(cs_topo_group_switches(t, g0, 2), 2);
    assert_int_equal(cs_topo_place(t, "pack", g, 4, &err), CS_OK);
    const uint32_t packed[8] = {0, 2, 4, 6, 1, 3, 5, 7};
    for (uint32_t r = 0; r < 8; r++) assert_int_equal(cs_topo_rank_npu(t, r), packed[r]);
    for (int i = 0; i < 4; i++) assert_int_equal(cs_topo_group_switches(t, g[i].ranks, 2), 1);
    assert_int_equal(cs_topo_place(t, "strided:3", NULL, 0, &err), CS_EINVAL);
    cs_error_clear(&err);
    assert_int_equal(cs_topo_place(t, "snake", NULL, 0, &err), CS_EINVAL);
    tu_assert_has(err.msg, "expected contiguous, random[:SEED], strided:K or pack");
    cs_topo_free(t);
}

/* Spraying: 64 messages 0 -> 8 on a fat-tree with 4 spines take more than
 * one of the 4 paths (ECMP: one), and the same message key the same path. */
static void test_spray(void **st) {
    (void)st;
    cs_error err;
    cs_topo *t = fattree(16, 8, 4, 1);
    cs_router *r = cs_router_new(t, 1);
    const uint32_t *links;
    uint32_t n, spines_used = 0, ecmp_spine = 0;
    for (uint64_t m = 0; m < 64; m++) {
        assert_int_equal(cs_router_route_msg(r, 0, 8, m, &links, &n, &err), CS_OK);
        assert_int_equal(n, 4);
        if (m == 0) ecmp_spine = t->links[links[1]].dst;
        assert_int_equal(t->links[links[1]].dst, ecmp_spine); /* not spraying: one path */
    }
    t->spray = 1;
    uint32_t again = 0;
    for (uint64_t m = 0; m < 64; m++) {
        assert_int_equal(cs_router_route_msg(r, 0, 8, m, &links, &n, &err), CS_OK);
        assert_int_equal(n, 4);
        spines_used |= 1u << (t->links[links[1]].dst - 18);
        if (m == 5) again = t->links[links[1]].dst;
    }
    assert_int_equal(spines_used, 0xf);
    assert_int_equal(cs_router_route_msg(r, 0, 8, 5, &links, &n, &err), CS_OK);
    assert_int_equal(t->links[links[1]].dst, again);
    cs_router_free(r);
    cs_topo_free(t);
}

/* Routing table: a fixed route 0 -> 8 over spine 19 (nodes 0, 16, 19, 17, 8)
 * is used in both modes; with its link 16-19 down, ECMP takes over. */
static void test_fixed_routes(void **st) {
    (void)st;
    cs_error err;
    cs_error_clear(&err);
    cs_topo *t = fattree(16, 8, 4, 1);
    const uint32_t path[] = {0, 16, 19, 17, 8};
    assert_int_equal(cs_topo_add_fixed_route(t, path, 5, &err), CS_OK);
    const uint32_t bad[] = {0, 17};
    assert_int_equal(cs_topo_add_fixed_route(t, bad, 2, &err), CS_EINVAL);
    tu_assert_has(err.msg, "hop 0: no link from node 0 to node 17");
    for (int spray = 0; spray < 2; spray++) {
        t->spray = spray;
        cs_router *r = cs_router_new(t, 1);
        const uint32_t *links;
        uint32_t n;
        for (uint64_t m = 0; m < 8; m++) {
            assert_int_equal(cs_router_route_msg(r, 0, 8, m, &links, &n, &err), CS_OK);
            assert_int_equal(n, 4);
            assert_int_equal(t->links[links[1]].dst, 19);
        }
        assert_int_equal(cs_topo_degrade_cable(t, 16, 19, 0.0, &err), CS_OK);
        cs_router_invalidate(r);
        assert_int_equal(cs_router_route_msg(r, 0, 8, 0, &links, &n, &err), CS_OK);
        assert_int_equal(n, 4);
        assert_true(t->links[links[1]].dst != 19);
        assert_int_equal(cs_topo_degrade_cable(t, 16, 19, 1.0, &err), CS_OK);
        cs_router_free(r);
    }
    cs_topo_free(t);
    /* from the file */
    cs_network_config net = switch_net(16);
    cs_error_clear(&err);
    const char *p = tu_write_tmp("rt.json", "{\"builder\": \"fat-tree\", \"npus_per_leaf\": 8, \"spines\": 4,\n"
                                            " \"routing\": \"spray\",\n \"routes\": [[0, 16, 19, 17, 8],\n [1, 17]]}\n");
    assert_int_equal(cs_topology_file_load(p, &net, &t, &err), CS_EINVAL);
    tu_assert_has(err.msg, "rt.json:4: routes[1]: hop 0: no link from node 1 to node 17");
    cs_error_clear(&err);
    p = tu_write_tmp("rt2.json", "{\"builder\": \"fat-tree\", \"npus_per_leaf\": 8, \"spines\": 4,\n"
                                 " \"routing\": \"spray\", \"routes\": [[0, 16, 19, 17, 8]]}\n");
    assert_int_equal(cs_topology_file_load(p, &net, &t, &err), CS_OK);
    assert_int_equal(t->spray, 1);
    assert_int_equal(t->nfixed, 1);
    cs_topo_free(t);
}

/* A source's route table turns from a hash into an array over all
 * destinations once it holds routes to a quarter of the nodes (route.c):
 * the fixed route 0 -> 8 over spine 19 stays fixed and taken, the others
 * stay ECMP, and every cached route read back after the switch is the one
 * computed before it (link by link). */
static void test_route_table_dense(void **st) {
    (void)st;
    cs_error err;
    cs_error_clear(&err);
    cs_topo *t = fattree(16, 8, 4, 1); /* 16 NPUs, 2 leaves, 4 spines: 22 nodes */
    const uint32_t path[] = {0, 16, 19, 17, 8};
    assert_int_equal(cs_topo_add_fixed_route(t, path, 5, &err), CS_OK);
    cs_router *r = cs_router_new(t, 1);
    uint32_t got[32][8], len[32];
    const uint32_t *links;
    uint32_t n;
    assert_true(t->nnodes <= 32);
    for (uint32_t d = 1; d < t->nnodes; d++) { /* 21 destinations: the table switches at the 6th */
        assert_int_equal(cs_router_route(r, 0, d, &links, &n, &err), CS_OK);
        assert_true(n <= 8);
        len[d] = n;
        memcpy(got[d], links, n * sizeof *links);
    }
    for (uint32_t d = 1; d < t->nnodes; d++) {
        assert_int_equal(cs_router_route(r, 0, d, &links, &n, &err), CS_OK);
        assert_int_equal(n, len[d]);
        assert_memory_equal(links, got[d], n * sizeof *links);
        assert_int_equal(cs_router_is_fixed(r, 0, d), d == 8);
    }
    assert_int_equal(len[8], 4);
    assert_int_equal(t->links[got[8][1]].dst, 19);
    assert_int_equal(cs_router_is_fixed(r, 0, t->nnodes), 0); /* out of range: not fixed */
    uint64_t computed = cs_router_computed(r);
    assert_int_equal(computed, t->nnodes - 2); /* every destination but the fixed one, once */
    cs_router_free(r);
    cs_topo_free(t);
}

/* A route that visits a node twice (so crosses a link twice, or loops) is a
 * mistake: refused, naming the node and both positions; from the file with
 * the file, line and route.  (The flow backend once counted the flow twice on
 * the repeated link, and crashed when flows shared it.) */
static void test_fixed_route_repeats(void **st) {
    (void)st;
    cs_error err;
    cs_error_clear(&err);
    cs_topo *t = fattree(8, 4, 1, 1); /* NPUs 0..7, leaves 8, 9, spine 10 */
    const uint32_t twice[] = {0, 8, 1, 8, 1};
    assert_int_equal(cs_topo_add_fixed_route(t, twice, 5, &err), CS_EINVAL);
    tu_assert_has(err.msg, "node 8 appears twice (positions 1 and 3)");
    cs_error_clear(&err);
    const uint32_t loop[] = {0, 8, 0};
    assert_int_equal(cs_topo_add_fixed_route(t, loop, 3, &err), CS_EINVAL);
    tu_assert_has(err.msg, "node 0 appears twice (positions 0 and 2)");
    assert_int_equal(t->nfixed, 0);
    assert_int_equal(t->nfixed_links, 0);
    cs_topo_free(t);
    cs_network_config net = switch_net(8);
    cs_error_clear(&err);
    const char *p = tu_write_tmp("rtrep.json", "{\"builder\": \"fat-tree\", \"npus_per_leaf\": 4, \"spines\": 1,\n"
                                               " \"routes\": [[0, 8, 1],\n  [0, 8, 1, 8, 1]]}\n");
    assert_int_equal(cs_topology_file_load(p, &net, &t, &err), CS_EINVAL);
    tu_assert_has(err.msg, "rtrep.json:3: routes[1]: node 8 appears twice (positions 1 and 3)");
    assert_null(t);
}

/* The stopped search (route.c, bfs_until: used when the distance arrays of
 * every destination do not fit the budget) gives every pair the path of the
 * full distance arrays: every (src, dst) of nodes, NPUs and switches, on a
 * fat-tree with 3 parallel cables per leaf-spine pair (ECMP among parallel
 * links; a switch's in-list shorter than a leaf's out-list), a rail fabric
 * (the last two hops from the destination's side), a torus, and a dragonfly
 * with a cable down, the last also with the links up or down by a
 * bandwidth array of its own (cs_router_new_ex), more links down. */
static void same_routes(const cs_topo *t, uint64_t seed, const double *bw) {
    cs_router *full = cs_router_new_ex(t, seed, 0, bw), *cut = cs_router_new_ex(t, seed, 0, bw);
    cs_router_set_dist_budget(cut, 0);
    uint32_t nroutes = 0;
    for (uint32_t a = 0; a < t->nnodes; a++)
        for (uint32_t b = 0; b < t->nnodes; b++) {
            const uint32_t *p1, *p2;
            uint32_t n1 = 0, n2 = 0;
            cs_error e1, e2;
            int rc1 = cs_router_route(full, a, b, &p1, &n1, &e1), rc2 = cs_router_route(cut, a, b, &p2, &n2, &e2);
            assert_int_equal(rc1, rc2);
            if (rc1) continue;
            assert_int_equal(n1, n2);
            for (uint32_t h = 0; h < n1; h++) assert_int_equal(p1[h], p2[h]);
            /* and the walk of route.c's header, from the out-lists: next
             * links one hop closer, the one hashed from (seed, a, b, node) */
            uint32_t cur = a, next[64];
            for (uint32_t h = 0; h < n1; h++) {
                uint32_t nc = cs_router_next_links(full, cur, b, next, 64);
                assert_true(nc >= 1 && nc <= 64);
                uint64_t hkey = ((uint64_t)a << 32 | b) ^ cs_mix64(cur);
                assert_int_equal(p1[h], next[cs_mix64(seed ^ cs_mix64(hkey)) % nc]);
                cur = t->links[p1[h]].dst;
            }
            assert_int_equal(cur, b);
            nroutes++;
        }
    assert_true(nroutes > t->nnodes);
    cs_router_free(full);
    cs_router_free(cut);
}

static void test_stopped_search_same_routes(void **st) {
    (void)st;
    cs_error err;
    cs_topo *t = fattree(32, 8, 4, 3);
    same_routes(t, 1, NULL);
    same_routes(t, 12345, NULL);
    cs_topo_free(t);
    cs_rail_params rp = {.servers = 8, .gpus_per_server = 4, .spines = 3, .nvlink_bw = 450, .nic_bw = 50,
                         .nic_lat = 1000};
    assert_int_equal(cs_topo_build_rail(&rp, &t, &err), CS_OK);
    same_routes(t, 7, NULL);
    cs_topo_free(t);
    cs_grid_params tor = {.ndims = 3, .dims = {4, 3, 2}, .wrap = 1, .bw = 50};
    assert_int_equal(cs_topo_build_grid(&tor, &t, &err), CS_OK);
    same_routes(t, 3, NULL);
    cs_topo_free(t);
    cs_dragonfly_params dp = {.groups = 9, .routers_per_group = 4, .npus_per_router = 2, .global_per_router = 2,
                              .host_bw = 50, .local_bw = 50, .global_bw = 25};
    assert_int_equal(cs_topo_build_dragonfly(&dp, &t, &err), CS_OK);
    assert_int_equal(cs_topo_degrade_cable(t, 72, 72 + 4, 0.0, &err), CS_OK);
    same_routes(t, 5, NULL);
    double *bw = cs_malloc(t->nlinks * sizeof *bw);
    for (uint32_t l = 0; l < t->nlinks; l++) bw[l] = l % 7 == 3 ? 0 : t->links[l].bw; /* some NPUs cut off */
    same_routes(t, 5, bw);
    cs_free(bw);
    cs_topo_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_placement), cmocka_unit_test(test_spray), cmocka_unit_test(test_fixed_routes), cmocka_unit_test(test_route_table_dense),
        cmocka_unit_test(test_fixed_route_repeats), cmocka_unit_test(test_stopped_search_same_routes),
        cmocka_unit_test(test_clos3_path_counts), cmocka_unit_test(test_grid_path_counts),
        cmocka_unit_test(test_dragonfly_paths), cmocka_unit_test(test_file_new_builders),
        cmocka_unit_test(test_fattree_path_counts), cmocka_unit_test(test_rail_paths),
        cmocka_unit_test(test_ecmp_deterministic), cmocka_unit_test(test_ecmp_fields),  cmocka_unit_test(test_failed_link_rerouted),
        cmocka_unit_test(test_file_builders),       cmocka_unit_test(test_file_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
