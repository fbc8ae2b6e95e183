/*
 * test_net_flow.c -- the `flow` backend (network/flow.c): max-min fair rates
 * on hand-built cases, completion times under contention, and exact
 * agreement with `analytical` on uncontended transfers.
 *
 * Numbers: 50 GB/s read as GiB/s = 53.6870912 B/ns; 1 MiB takes 19531.25 ns.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/eventq.h"
#include "network/flow.h"
#include "network/network.h"
#include "topology/topology.h"
#include "testutil.h"

#define NS(x) ((cs_time)(x) * 1000ULL)
#define MIB 1048576ULL

typedef struct tnet {
    cs_eventq *q;
    cs_net net;
    cs_network_config cfg;
    cs_time t[64];
    int n;
} tnet;

static void on_done(void *ctx, uint64_t cookie) {
    tnet *tn = ctx;
    assert_true(cookie < 64);
    tn->t[cookie] = cs_eventq_now(tn->q);
    tn->n++;
}

static cs_network_config dims1(cs_topo_kind k, uint32_t n, double bw, double lat) {
    cs_network_config c;
    memset(&c, 0, sizeof c);
    c.ndims = 1;
    c.topo[0] = k;
    c.npus[0] = n;
    c.bandwidth_gbps[0] = bw;
    c.latency_ns[0] = lat;
    c.total_npus = n;
    return c;
}

static void tn_open(tnet *tn, const cs_network_config *cfg, const char *backend) {
    memset(tn, 0, sizeof *tn);
    tn->cfg = *cfg;
    tn->q = cs_eventq_new();
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_net_init(&tn->net, cs_net_backend_find(backend), &tn->cfg, tn->q, &err), CS_OK);
}

/* A topology-backed network (the topology is borrowed by the backend). */
static void tn_open_topo(tnet *tn, cs_topo *t) {
    cs_network_config c = dims1(CS_TOPO_SWITCH, t->nnpus, 1, 0);
    c.topology = t;
    tn_open(tn, &c, "flow");
}

static void tn_send(tnet *tn, uint32_t s, uint32_t d, uint64_t bytes, uint64_t cookie) {
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_net_send(&tn->net, s, d, bytes, (uint64_t)s << 32 | cookie, on_done, tn, cookie, &err), CS_OK);
}

static void tn_close(tnet *tn) {
    cs_net_destroy(&tn->net);
    cs_eventq_free(tn->q);
}

static double B50(void) { return cs_gbps_to_bytes_per_ns(50); }

/* ---- agreement with analytical on uncontended transfers ---------------------- */

static void one_pair(const cs_network_config *cfg, uint32_t s, uint32_t d, uint64_t bytes) {
    tnet a, f;
    tn_open(&a, cfg, "analytical");
    tn_open(&f, cfg, "flow");
    tn_send(&a, s, d, bytes, 0);
    tn_send(&f, s, d, bytes, 0);
    cs_eventq_run(a.q, CS_TIME_MAX);
    cs_eventq_run(f.q, CS_TIME_MAX);
    if (a.t[0] != f.t[0])
        fail_msg("%s(%u) %u -> %u, %llu bytes: analytical %llu ps, flow %llu ps", cs_topo_kind_name(cfg->topo[0]),
                 cfg->npus[0], s, d, (unsigned long long)bytes, (unsigned long long)a.t[0],
                 (unsigned long long)f.t[0]);
    assert_int_equal(a.net.backend->uncontended_time(a.net.state, s, d, bytes),
                     f.net.backend->uncontended_time(f.net.state, s, d, bytes));
    tn_close(&a);
    tn_close(&f);
}

static void test_agrees_with_analytical(void **st) {
    (void)st;
    const uint64_t sizes[] = {1, 1000, 12345, MIB, 64 * MIB, 1000000007ULL};
    const double bws[] = {50, 150, 37.5, 400};
    const double lats[] = {500, 0, 700, 1};
    for (size_t b = 0; b < 4; b++)
        for (size_t z = 0; z < 6; z++) {
            cs_network_config ring = dims1(CS_TOPO_RING, 8, bws[b], lats[b]);
            one_pair(&ring, 0, 1, sizes[z]);
            one_pair(&ring, 0, 3, sizes[z]); /* 3 hops: 3L + s/B, as analytical */
            one_pair(&ring, 6, 1, sizes[z]);
            cs_network_config fc = dims1(CS_TOPO_FULLY_CONNECTED, 5, bws[b], lats[b]);
            one_pair(&fc, 4, 2, sizes[z]);
            cs_network_config sw = dims1(CS_TOPO_SWITCH, 16, bws[b], lats[b]);
            one_pair(&sw, 3, 11, sizes[z]); /* up + down: 2L + s/B, as analytical */
            one_pair(&sw, 3, 3, sizes[z]);
        }
}

static void test_known_time(void **st) {
    (void)st;
    cs_network_config ring = dims1(CS_TOPO_RING, 8, 50, 500);
    tnet f;
    tn_open(&f, &ring, "flow");
    tn_send(&f, 0, 1, MIB, 0);
    cs_eventq_run(f.q, CS_TIME_MAX);
    assert_int_equal(f.t[0], NS(20031)); /* floor(500 + 19531.25) */
    tn_close(&f);
}

/* ---- fair shares -------------------------------------------------------------- */

/* k senders -> one switch -> one receiver: the switch->receiver link is the
 * bottleneck; each of k flows gets B/k. */
static void test_incast_bw_over_k(void **st) {
    (void)st;
    for (uint32_t k = 1; k <= 7; k++) {
        cs_topo *t = cs_topo_new(k + 1);
        uint32_t sw = cs_topo_add_node(t, CS_NODE_SWITCH);
        for (uint32_t v = 0; v <= k; v++) cs_topo_add_cable(t, v, sw, B50(), NS(500));
        cs_topo_finalize(t);
        tnet f;
        tn_open_topo(&f, t);
        for (uint32_t i = 0; i < k; i++) tn_send(&f, i + 1, 0, MIB, i);
        for (uint32_t i = 0; i < k; i++) assert_true(fabs(cs_flow_rate(&f.net, i) - B50() / k) < 1e-9);
        cs_eventq_run(f.q, CS_TIME_MAX);
        /* all finish together: 2 L + k s / B */
        cs_time want = NS((uint64_t)floor(1000 + k * 19531.25));
        for (uint32_t i = 0; i < k; i++) assert_int_equal(f.t[i], want);
        assert_int_equal(t->stats[cs_topo_find_link(t, sw, 0)].bytes, k * MIB);
        assert_true(fabs(t->stats[cs_topo_find_link(t, sw, 0)].peak_util - 1.0) < 1e-9);
        tn_close(&f);
        cs_topo_free(t);
    }
}

/* Parking lot 0 - 1 - 2 - 3, capacity C per link: one long flow 0 -> 3, two
 * short flows on 0 -> 1, one on 1 -> 2, one on 2 -> 3.  Max-min: link 0->1 is
 * the bottleneck of 3 flows (C/3 each, the long one included); the other
 * short flows get the rest, 2C/3. */
static void test_parking_lot(void **st) {
    (void)st;
    cs_topo *t = cs_topo_new(4);
    double C = B50();
    for (uint32_t v = 0; v < 3; v++) cs_topo_add_cable(t, v, v + 1, C, 0);
    cs_topo_finalize(t);
    tnet f;
    tn_open_topo(&f, t);
    tn_send(&f, 0, 3, 10 * MIB, 0);
    tn_send(&f, 0, 1, 10 * MIB, 1);
    tn_send(&f, 0, 1, 10 * MIB, 2);
    tn_send(&f, 1, 2, 10 * MIB, 3);
    tn_send(&f, 2, 3, 10 * MIB, 4);
    const double want[] = {C / 3, C / 3, C / 3, 2 * C / 3, 2 * C / 3};
    for (int i = 0; i < 5; i++)
        if (fabs(cs_flow_rate(&f.net, (uint64_t)i) - want[i]) > 1e-9)
            fail_msg("flow %d: rate %.9f, want %.9f", i, cs_flow_rate(&f.net, (uint64_t)i), want[i]);
    /* the classic parking lot: all links shared by the long flow and one short: C/2 each */
    cs_eventq_run(f.q, CS_TIME_MAX);
    assert_int_equal(f.n, 5);
    tn_close(&f);
    tn_open_topo(&f, t);
    tn_send(&f, 0, 3, MIB, 0);
    for (uint32_t v = 0; v < 3; v++) tn_send(&f, v, v + 1, MIB, v + 1);
    for (int i = 0; i < 4; i++) assert_true(fabs(cs_flow_rate(&f.net, (uint64_t)i) - C / 2) < 1e-9);
    cs_eventq_run(f.q, CS_TIME_MAX);
    tn_close(&f);
    cs_topo_free(t);
}

/* Rates follow flows in and out: 1 MiB and 2 MiB on one link share it until
 * the first ends (2 s/B), then the second runs alone (3 s/B in all). */
static void test_rerate_on_end(void **st) {
    (void)st;
    cs_network_config ring = dims1(CS_TOPO_RING, 4, 50, 500);
    tnet f;
    tn_open(&f, &ring, "flow");
    tn_send(&f, 0, 1, MIB, 0);
    tn_send(&f, 0, 1, 2 * MIB, 1);
    cs_eventq_run(f.q, CS_TIME_MAX);
    assert_int_equal(f.t[0], NS(39562)); /* floor(500 + 39062.5) */
    assert_int_equal(f.t[1], NS(59093)); /* floor(500 + 58593.75) */
    assert_int_equal(cs_flow_active(&f.net), 0);
    tn_close(&f);
}

/* A flow joining later slows one already running; an unrelated component is untouched. */
static void test_late_join_and_components(void **st) {
    (void)st;
    cs_network_config ring = dims1(CS_TOPO_RING, 8, 50, 0);
    tnet f;
    tn_open(&f, &ring, "flow");
    tn_send(&f, 0, 1, 2 * MIB, 0);
    tn_send(&f, 4, 5, 2 * MIB, 2); /* disjoint */
    cs_eventq_run(f.q, NS(19531) + 250); /* half of flow 0 sent: 19531.25 ns at B */
    tn_send(&f, 0, 1, MIB, 1);
    assert_true(fabs(cs_flow_rate(&f.net, 0) - B50() / 2) < 1e-9);
    assert_true(fabs(cs_flow_rate(&f.net, 2) - B50()) < 1e-9);
    cs_eventq_run(f.q, CS_TIME_MAX);
    /* remaining 1 MiB each at B/2 -> both end at 19531.25 + 39062.5 */
    assert_int_equal(f.t[0], NS(58593));
    assert_int_equal(f.t[2], NS(39062));
    tn_close(&f);
}

/* Oversubscribed uplinks: 2 leaves x 4 NPUs, 1 spine.  4 flows leaf 0 ->
 * leaf 1: with 1:1 uplinks each runs at B; at 4:1 they share one B. */
static void test_oversubscription(void **st) {
    (void)st;
    for (int over = 1; over <= 4; over *= 4) {
        cs_fattree_params p = {.npus = 8, .npus_per_leaf = 4, .spines = 1, .host_bw = B50(),
                               .uplink_bw = 4 * B50() / over};
        cs_topo *t;
        cs_error err;
        assert_int_equal(cs_topo_build_fattree(&p, &t, &err), CS_OK);
        tnet f;
        tn_open_topo(&f, t);
        for (uint32_t i = 0; i < 4; i++) tn_send(&f, i, 4 + i, MIB, i);
        cs_eventq_run(f.q, CS_TIME_MAX);
        cs_time want = NS((uint64_t)floor(19531.25 * over));
        for (uint32_t i = 0; i < 4; i++) assert_int_equal(f.t[i], want);
        tn_close(&f);
        cs_topo_free(t);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_agrees_with_analytical),
        cmocka_unit_test(test_known_time),
        cmocka_unit_test(test_incast_bw_over_k),
        cmocka_unit_test(test_parking_lot),
        cmocka_unit_test(test_rerate_on_end),
        cmocka_unit_test(test_late_join_and_components),
        cmocka_unit_test(test_oversubscription),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
