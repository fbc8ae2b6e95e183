/*
 * test_net_flow.c -- the `flow` backend (network/flow.c): max-min fair rates
 * on hand-built cases, completion times under contention, and exact
 * agreement with `analytical` on uncontended transfers.
 *
 * Numbers: 50 GB/s read as GiB/s = 53.6870912 B/ns; 1 MiB takes 19531.25 ns.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/eventq.h"
#include "network/flow.h"
#include "network/network.h"
#include "topology/topology.h"
#include "core/rand.h"
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

/* healthy: the backend's healthy network (cs_net_env.healthy). */
static void tn_open_h(tnet *tn, const cs_network_config *cfg, const char *backend, int healthy) {
    memset(tn, 0, sizeof *tn);
    tn->cfg = *cfg;
    tn->q = cs_eventq_new();
    cs_error err;
    cs_error_clear(&err);
    cs_net_env env = {.cfg = &tn->cfg, .topo = tn->cfg.topology, .q = tn->q, .healthy = healthy};
    assert_int_equal(cs_net_init(&tn->net, cs_net_backend_find(backend), &env, &err), CS_OK);
}

static void tn_open(tnet *tn, const cs_network_config *cfg, const char *backend) { tn_open_h(tn, cfg, backend, 0); }

/* A topology-backed network (the topology is borrowed by the backend). */
static void tn_open_topo_h(tnet *tn, cs_topo *t, int healthy) {
    cs_network_config c = dims1(CS_TOPO_SWITCH, t->nnpus, 1, 0);
    c.topology = t;
    tn_open_h(tn, &c, "flow", healthy);
}

static void tn_open_topo(tnet *tn, cs_topo *t) { tn_open_topo_h(tn, t, 0); }

/* The backend's statistics of link l (cs_net_report). */
static cs_net_link_stat link_stat(const tnet *tn, uint32_t l) {
    cs_net_link_report r;
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_net_report(&tn->net, &r, &err), CS_OK);
    assert_true(l < r.nlinks);
    cs_net_link_stat st = r.links[l];
    cs_net_link_report_free(&r);
    return st;
}

static void tn_send(tnet *tn, uint32_t s, uint32_t d, uint64_t bytes, uint64_t cookie) {
    cs_error err;
    cs_error_clear(&err);
    cs_net_msg m = {.src = s, .dst = d, .bytes = bytes, .key = (uint64_t)s << 32 | cookie, .done = on_done, .ctx = tn,
                    .cookie = cookie};
    assert_int_equal(cs_net_send(&tn->net, &m, &err), CS_OK);
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
    assert_int_equal(cs_net_uncontended_time(&a.net, s, d, bytes), cs_net_uncontended_time(&f.net, s, d, bytes));
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
        assert_int_equal(link_stat(&f, cs_topo_find_link(t, sw, 0)).bytes, k * MIB);
        assert_true(fabs(link_stat(&f, cs_topo_find_link(t, sw, 0)).peak_util - 1.0) < 1e-9);
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


/* ---- failures and degradation at a simulated time ------------------------------ */

/* NPUs 0, 1; switches 2, 3, 4.  Short path 0-2-1 (50 GB/s, 500 ns per link);
 * detour 0-3-4-1 (3 links at `detour_gbps`, 500 ns).  ECMP has one shortest
 * path, so the flow 0 -> 1 starts on 0-2-1. */
static cs_topo *detour_topo(double detour_gbps) {
    cs_topo *t = cs_topo_new(2);
    for (int i = 0; i < 3; i++) cs_topo_add_node(t, CS_NODE_SWITCH);
    double b = B50(), d = cs_gbps_to_bytes_per_ns(detour_gbps);
    cs_topo_add_cable(t, 0, 2, b, NS(500));
    cs_topo_add_cable(t, 2, 1, b, NS(500));
    cs_topo_add_cable(t, 0, 3, d, NS(500));
    cs_topo_add_cable(t, 3, 4, d, NS(500));
    cs_topo_add_cable(t, 4, 1, d, NS(500));
    cs_topo_finalize(t);
    return t;
}

/* 1 MiB 0 -> 1 sent at 0; cable 0-2 fails at 10000 ns.
 * By then 10000 * 53.6870912 = 536870.912 B are sent; 511705.088 B remain.
 * Detour at 25 GB/s = 26.8435456 B/ns: 511705.088 / 26.8435456 = 19062.5 ns,
 * so transmission ends at 10000 + 19062.5 = 29062.5 ns and the last byte
 * arrives after the detour's 3 x 500 ns: floor(1500 + 29062.5) = 30562 ns.
 * Healthy: floor(1000 + 19531.25) = 20531 ns.  Links: 0->2 carried
 * 536871 B (rounded), 0->3 the other 511705 B. */
static void test_link_fails_midway(void **st) {
    (void)st;
    cs_error err;
    cs_error_clear(&err);
    cs_topo *t = detour_topo(25);
    assert_int_equal(cs_topo_add_change(t, NS(10000), 0, 2, 0.0, &err), CS_OK);
    tnet tn;
    tn_open_topo(&tn, t);
    tn_send(&tn, 0, 1, MIB, 0);
    cs_eventq_run(tn.q, CS_TIME_MAX);
    assert_int_equal(tn.n, 1);
    assert_int_equal(tn.t[0], NS(30562));
    assert_int_equal(link_stat(&tn, cs_topo_find_link(t, 0, 2)).bytes, 536871);
    assert_int_equal(link_stat(&tn, cs_topo_find_link(t, 0, 3)).bytes, 511705);
    assert_int_equal(link_stat(&tn, cs_topo_find_link(t, 4, 1)).bytes, 511705);
    tn_close(&tn);
    /* the run left the topology as it was: the change is still there, 0-2 up */
    assert_int_equal(t->nchanges, 1);
    assert_true(cs_link_up(&t->links[cs_topo_find_link(t, 0, 2)]));
    /* the healthy run of the same topology (the backend ignores the change) */
    tn_open_topo_h(&tn, t, 1);
    tn_send(&tn, 0, 1, MIB, 0);
    cs_eventq_run(tn.q, CS_TIME_MAX);
    assert_int_equal(tn.t[0], NS(20531));
    tn_close(&tn);
    cs_topo_free(t);
}

/* Switch 3 drained at 10000 ns (every link of it down) while another flow
 * uses the detour: NPUs 0, 1, 2; short path 0-3-1; detour 0-4-5-1; NPU 2
 * hangs off switch 4 (all 50 GB/s, 500 ns per link).
 *   A: 0 -> 1, 1 MiB at 0 on 0-3-1; at 10000 ns 511705.088 B remain.
 *   B: 2 -> 1, 1 MiB at 0 on 2-4-5-1, alone until 10000 ns: 511705.088 B remain.
 * From 10000 A takes 0-4-5-1 and both share 4->5 and 5->1 at B/2 =
 * 26.8435456 B/ns; equal bytes left, so both end transmitting at
 * 10000 + 19062.5 = 29062.5 ns and arrive after 3 x 500 ns:
 * floor(1500 + 29062.5) = 30562 ns each (healthy: A 20531, B 21031). */
static void test_switch_drained_shares_detour(void **st) {
    (void)st;
    cs_error err;
    cs_error_clear(&err);
    cs_topo *t = cs_topo_new(3);
    for (int i = 0; i < 3; i++) cs_topo_add_node(t, CS_NODE_SWITCH);
    double b = B50();
    cs_topo_add_cable(t, 0, 3, b, NS(500));
    cs_topo_add_cable(t, 3, 1, b, NS(500));
    cs_topo_add_cable(t, 0, 4, b, NS(500));
    cs_topo_add_cable(t, 2, 4, b, NS(500));
    cs_topo_add_cable(t, 4, 5, b, NS(500));
    cs_topo_add_cable(t, 5, 1, b, NS(500));
    cs_topo_finalize(t);
    assert_int_equal(cs_topo_add_change(t, NS(10000), 3, CS_TOPO_NODE, 0.0, &err), CS_OK);
    tnet tn;
    tn_open_topo(&tn, t);
    tn_send(&tn, 0, 1, MIB, 0);
    tn_send(&tn, 2, 1, MIB, 1);
    cs_eventq_run(tn.q, CS_TIME_MAX);
    assert_int_equal(tn.n, 2);
    assert_int_equal(tn.t[0], NS(30562));
    assert_int_equal(tn.t[1], NS(30562));
    tn_close(&tn);
    tn_open_topo_h(&tn, t, 1);
    tn_send(&tn, 0, 1, MIB, 0);
    tn_send(&tn, 2, 1, MIB, 1);
    cs_eventq_run(tn.q, CS_TIME_MAX);
    assert_int_equal(tn.t[0], NS(20531));
    assert_int_equal(tn.t[1], NS(21031));
    tn_close(&tn);
    cs_topo_free(t);
}

/* Degraded at a time, and down with no other route then restored:
 * a single cable 0-1 (50 GB/s, 500 ns), 1 MiB sent at 0.
 *  - at 10000 ns to half bandwidth: 511705.088 B at 26.8435456 B/ns =
 *    19062.5 ns -> floor(500 + 29062.5) = 29562 ns.
 *  - down at 10000, restored at 50000: stalled in between, then 9531.25 ns
 *    at full rate -> floor(500 + 59531.25) = 60031 ns. */
static void test_degrade_and_restore(void **st) {
    (void)st;
    cs_error err;
    cs_error_clear(&err);
    cs_topo *t = cs_topo_new(2);
    cs_topo_add_cable(t, 0, 1, B50(), NS(500));
    cs_topo_finalize(t);
    assert_int_equal(cs_topo_add_change(t, NS(10000), 0, 1, 0.5, &err), CS_OK);
    tnet tn;
    tn_open_topo(&tn, t);
    tn_send(&tn, 0, 1, MIB, 0);
    cs_eventq_run(tn.q, CS_TIME_MAX);
    assert_int_equal(tn.t[0], NS(29562));
    tn_close(&tn);

    cs_topo_heal(t);
    assert_int_equal(cs_topo_add_change(t, NS(50000), 0, 1, 1.0, &err), CS_OK); /* sorted by time */
    assert_int_equal(cs_topo_add_change(t, NS(10000), 0, 1, 0.0, &err), CS_OK);
    assert_true(t->changes[0].at == NS(10000));
    tn_open_topo(&tn, t);
    tn_send(&tn, 0, 1, MIB, 0);
    cs_eventq_run(tn.q, CS_TIME_MAX);
    assert_int_equal(tn.t[0], NS(60031));
    tn_close(&tn);
    /* bad changes are refused */
    assert_int_equal(cs_topo_add_change(t, 0, 0, 7, 0.0, &err), CS_EINVAL);
    assert_int_equal(cs_topo_add_change(t, 0, 0, 1, 1.5, &err), CS_EINVAL);
    cs_topo_free(t);
}

/* A routing table entry sends 0 -> 1 over the 25 GB/s detour 0-3-4-1 although
 * 0-2-1 is shorter: floor(3 x 500 + 1048576 / 26.8435456) = floor(1500 +
 * 39062.5) = 40562 ns.  Spraying on the same topology changes nothing here
 * (one shortest path): 20531 ns. */
static void test_fixed_route_time(void **st) {
    (void)st;
    cs_error err;
    cs_error_clear(&err);
    cs_topo *t = detour_topo(25);
    const uint32_t path[] = {0, 3, 4, 1};
    assert_int_equal(cs_topo_add_fixed_route(t, path, 4, &err), CS_OK);
    tnet tn;
    tn_open_topo(&tn, t);
    tn_send(&tn, 0, 1, MIB, 0);
    cs_eventq_run(tn.q, CS_TIME_MAX);
    assert_int_equal(tn.t[0], NS(40562));
    tn_close(&tn);
    cs_topo_free(t);
    t = detour_topo(25);
    t->spray = 1;
    tn_open_topo(&tn, t);
    tn_send(&tn, 0, 1, MIB, 0);
    cs_eventq_run(tn.q, CS_TIME_MAX);
    assert_int_equal(tn.t[0], NS(20531));
    tn_close(&tn);
    cs_topo_free(t);
}

/* The backend's options (its option table, through cs_net_env.opts): on a
 * fat-tree with 4 spines, 32 messages 0 -> 8 take one uplink of leaf 0 with
 * the defaults (ECMP, as the topology says) and several with routing =
 * spray; the topology itself is not changed. */
/* ---- transmission ends: the heap against an event per end ------------------------ */

/* A run of many overlapping flows on a 2:1 fat-tree of 16 NPUs (4 leaves, 2
 * spines), started in bursts from events, of three sizes, with keys that
 * collide on purpose (2 keys for 200 messages): ends of one picosecond and
 * one key happen, and are ordered by their sequence numbers.  Logged as
 * (cookie, time) in the order the messages are done, with the queue's
 * dispatch count.  (Checked to fail when the heap orders such ties the
 * wrong way round.) */
typedef struct ends_run {
    tnet tn;
    uint64_t log[400];
    size_t nlog;
} ends_run;

static void ends_done(void *ctx, uint64_t cookie) {
    ends_run *r = ctx;
    assert_true(r->nlog + 2 <= 400);
    r->log[r->nlog++] = cookie;
    r->log[r->nlog++] = cs_eventq_now(r->tn.q);
}

static void ends_send(void *ctx, const cs_event *ev) {
    ends_run *r = ctx;
    uint64_t x = cs_mix64(ev->arg * 0x9E3779B97F4A7C15ULL + 12345);
    uint32_t s = (uint32_t)(x % 16), d = (uint32_t)((x >> 8) % 15);
    if (d >= s) d++;
    uint64_t bytes = (1 + (x >> 16) % 3) * 262144; /* few sizes: equal ends at one picosecond happen */
    cs_error err;
    cs_error_clear(&err);
    cs_net_msg m = {.src = s, .dst = d, .bytes = bytes, .key = ev->arg % 2, .done = ends_done, .ctx = r,
                    .cookie = ev->arg};
    assert_int_equal(cs_net_send(&r->tn.net, &m, &err), CS_OK);
}

static uint64_t ends_scenario(ends_run *r, int heap) {
    memset(r, 0, sizeof *r);
    cs_fattree_params p = {.npus = 16, .npus_per_leaf = 4, .spines = 2, .host_bw = B50(), .uplink_bw = B50()};
    cs_topo *t;
    cs_error err;
    assert_int_equal(cs_topo_build_fattree(&p, &t, &err), CS_OK);
    tn_open_topo(&r->tn, t);
    assert_int_equal(cs_flow_end_heap(&r->tn.net, heap), 1);
    for (uint64_t i = 0; i < 200; i++) /* starts in bursts of 10 at one instant every 7 us */
        cs_eventq_push(r->tn.q, NS((i / 10) * 7000), i % 5, ends_send, r, i);
    uint64_t n = cs_eventq_run(r->tn.q, CS_TIME_MAX);
    tn_close(&r->tn);
    cs_topo_free(t);
    return n;
}

static void test_end_heap_same_order(void **st) {
    (void)st;
    static ends_run a, b;
    uint64_t na = ends_scenario(&a, 0), nb = ends_scenario(&b, 1);
    assert_int_equal(a.nlog, 400);
    assert_int_equal(b.nlog, 400);
    assert_int_equal(na, nb);
    for (size_t i = 0; i < a.nlog; i += 2)
        if (a.log[i] != b.log[i] || a.log[i + 1] != b.log[i + 1])
            fail_msg("done #%zu: an event per end: message %llu at %llu ps; the heap: message %llu at %llu ps", i / 2,
                     (unsigned long long)a.log[i], (unsigned long long)a.log[i + 1], (unsigned long long)b.log[i],
                     (unsigned long long)b.log[i + 1]);
}

static void test_options_routing(void **st) {
    (void)st;
    cs_fattree_params p = {.npus = 16, .npus_per_leaf = 8, .spines = 4, .uplinks_per_spine = 1,
                           .host_bw = B50(), .uplink_bw = B50()};
    cs_topo *t;
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_topo_build_fattree(&p, &t, &err), CS_OK);
    const cs_net_backend *be = cs_net_backend_find("flow");
    assert_true(be->nopts >= 2);
    for (int spray = 0; spray <= 1; spray++) {
        void *opts = calloc(1, be->opts_size);
        cs_opts_defaults(be->opts, be->nopts, opts);
        for (size_t i = 0; spray && i < be->nopts; i++)
            if (strcmp(be->opts[i].key, "routing") == 0) *(int *)((char *)opts + be->opts[i].off) = 2; /* spray */
        tnet tn;
        memset(&tn, 0, sizeof tn);
        tn.cfg = dims1(CS_TOPO_SWITCH, t->nnpus, 1, 0);
        tn.cfg.topology = t;
        tn.q = cs_eventq_new();
        cs_net_env env = {.cfg = &tn.cfg, .topo = t, .q = tn.q, .opts = opts};
        assert_int_equal(cs_net_init(&tn.net, be, &env, &err), CS_OK);
        for (uint64_t m = 0; m < 32; m++) tn_send(&tn, 0, 8, 1000, m);
        cs_eventq_run(tn.q, CS_TIME_MAX);
        assert_int_equal(tn.n, 32);
        uint32_t used = 0; /* uplinks of leaf 0 (node 16) that carried bytes */
        for (uint32_t l = 0; l < t->nlinks; l++)
            if (t->links[l].src == 16 && t->kind[t->links[l].dst] == CS_NODE_SWITCH && link_stat(&tn, l).bytes) used++;
        if (spray) assert_true(used > 1);
        else assert_int_equal(used, 1);
        assert_int_equal(t->spray, 0);
        tn_close(&tn);
        cs_opts_free(be->opts, be->nopts, opts);
        free(opts);
    }
    cs_topo_free(t);
}

/* ---- the order of an instant's recomputations --------------------------------- */

/* Two cables, 0 -> 1 and 2 -> 3 (50 GB/s, no latency).  A's 1 MiB on 0 -> 1
 * ends at T = 1 MiB / 50 GB/s; at T, after A's end, an event sends E on
 * 2 -> 3, then another sends B on 0 -> 1, B and E the same size and key.
 * The instant lists its links in the order they come -- 0 -> 1 (A's end),
 * 2 -> 3 (E), 0 -> 1 again (B: listed already) -- and recomputes them in
 * that order, so B's end is scheduled, and takes its sequence number,
 * before E's: both end at 2T with the same key, and B completes first.
 * (An end that left its link empty once did not list it; B's link then came
 * after E's and E completed first.) */
static char order_seen[8];
static int order_n;
static tnet *order_tn;
static void order_done(void *ctx, uint64_t cookie) {
    (void)ctx;
    if (order_n < 7) order_seen[order_n++] = (char)cookie;
}
static void order_send(uint32_t s, uint32_t d, uint64_t bytes, uint64_t key, char name) {
    cs_error err;
    cs_error_clear(&err);
    cs_net_msg m = {.src = s, .dst = d, .bytes = bytes, .key = key, .done = order_done, .ctx = NULL, .cookie = (uint64_t)name};
    assert_int_equal(cs_net_send(&order_tn->net, &m, &err), CS_OK);
}
static void order_send_e(void *ctx, const cs_event *ev) { (void)ctx, (void)ev; order_send(2, 3, MIB, 5, 'E'); }
static void order_send_b(void *ctx, const cs_event *ev) { (void)ctx, (void)ev; order_send(0, 1, MIB, 5, 'B'); }

/* The two tests' network: cables 0 -> 1 and 2 -> 3 at 50 GB/s, no latency. */
static cs_topo *two_cables(void) {
    cs_topo *t = cs_topo_new(4);
    cs_topo_add_cable(t, 0, 1, B50(), 0);
    cs_topo_add_cable(t, 2, 3, B50(), 0);
    cs_topo_finalize(t);
    return t;
}

static cs_time order_t;
static void order_done_time(void *ctx, uint64_t cookie) {
    (void)ctx, (void)cookie;
    order_t = cs_eventq_now(order_tn->q);
}

static void test_instant_order(void **st) {
    (void)st;
    cs_topo *t = two_cables();
    tnet tn;
    /* T: A alone, its end (no latency: its arrival) */
    tn_open_topo(&tn, t);
    order_tn = &tn;
    cs_error err;
    cs_error_clear(&err);
    cs_net_msg a = {.src = 0, .dst = 1, .bytes = MIB, .key = 0, .done = order_done_time, .cookie = 'A'};
    assert_int_equal(cs_net_send(&tn.net, &a, &err), CS_OK);
    cs_eventq_run(tn.q, CS_TIME_MAX);
    cs_time T = order_t;
    assert_true(T > 0);
    tn_close(&tn);
    tn_open_topo(&tn, t);
    order_n = 0;
    memset(order_seen, 0, sizeof order_seen);
    order_send(0, 1, MIB, 0, 'A');
    cs_eventq_push(tn.q, T, 1, order_send_e, NULL, 0);
    cs_eventq_push(tn.q, T, 2, order_send_b, NULL, 0);
    cs_eventq_run(tn.q, CS_TIME_MAX);
    assert_int_equal(order_n, 3);
    assert_string_equal(order_seen, "ABE");
    tn_close(&tn);
    cs_topo_free(t);
}

/* The instant's recomputation keeps its place among events of key
 * UINT64_MAX (a message may have that key).  Cables 0 -> 1 and 2 -> 3, no
 * latency; A (2 MiB, key 0) alone on 0 -> 1; C (1 MiB, key UINT64_MAX) and
 * D (4 MiB) share 2 -> 3, so C ends at 2 MiB / B = T, when A ends too.  At
 * T: A's end (key 0) pushes its arrival, then lists 0 -> 1, now empty --
 * the recomputation takes its number there; C's end (key UINT64_MAX) pushes
 * C's arrival (a later number) and lists 2 -> 3, still carrying D, which
 * queues the recomputation.  So among the events of key UINT64_MAX at T:
 * C's end, the recomputation, C's arrival.  (Events popped by hand: the end
 * carries its flow id, 1 here, the recomputation 0, the arrival its cookie.) */
static void test_instant_order_max_key(void **st) {
    (void)st;
    cs_topo *t = two_cables();
    tnet tn;
    tn_open_topo(&tn, t);
    order_tn = &tn;
    order_n = 0;
    order_send(0, 1, 2 * MIB, 0, 'A');
    order_send(2, 3, MIB, UINT64_MAX, 'C');
    order_send(2, 3, 4 * MIB, 0, 'D');
    uint64_t args[8];
    int nargs = 0;
    cs_time at = 0;
    cs_event e;
    while (cs_eventq_pop(tn.q, &e)) {
        if (e.key == UINT64_MAX && e.time > 0 && (at == 0 || e.time == at) && nargs < 8) {
            at = e.time;
            args[nargs++] = e.arg;
        }
        e.fn(e.ctx, &e);
    }
    assert_int_equal(order_n, 3);
    assert_int_equal(nargs, 3);
    assert_int_equal(args[0], 1);   /* C's end (flow 1) */
    assert_int_equal(args[1], 0);   /* the recomputation */
    assert_int_equal(args[2], 'C'); /* C's arrival */
    tn_close(&tn);
    cs_topo_free(t);
}

/* NCCL channels as connections (cs_net_msg.channels; backend.flow.channels).  Two leaves and two
 * spines (NPUs 0, 2, 3 on leaf 6, NPUs 1, 4, 5 on leaf 7, spines 8 and 9; NPU links 100 bytes/ns,
 * spine links 50, 500 ns each): 1 MiB from NPU 0 to NPU 1 over 2 channels is two flows of 512 KiB,
 * each on the path its connection hashes to.  On different spines each gets half the NIC link (50)
 * and a spine link alone (50): 524288 / 50 = 10485.76 ns of transfer, in whole ns as the backend
 * counts it (10485) + 4 x 500 = 12485 ns; on one spine they share its 50: 524288 / 25 = 20971.52
 * -> 20971 + 2000 = 22971 ns, which is also one flow of 1 MiB at 50 (merged, or switches that hash
 * src and dst only).  Over 16 seeds both cases occur. */
static cs_topo *clos2(void) {
    cs_topo *t = cs_topo_new(6);
    for (int i = 0; i < 4; i++) cs_topo_add_node(t, CS_NODE_SWITCH);
    const uint32_t left[3] = {0, 2, 3}, right[3] = {1, 4, 5};
    for (int i = 0; i < 3; i++) {
        cs_topo_add_cable(t, left[i], 6, 100, 500000);
        cs_topo_add_cable(t, right[i], 7, 100, 500000);
    }
    for (uint32_t sp = 8; sp <= 9; sp++) {
        cs_topo_add_cable(t, 6, sp, 50, 500000);
        cs_topo_add_cable(t, sp, 7, 50, 500000);
    }
    cs_topo_finalize(t);
    return t;
}

static void test_channels(void **st) {
    (void)st;
    const cs_net_backend *be = cs_net_backend_find("flow");
    int seen[2] = {0, 0};
    for (int mode = 0; mode < 3; mode++) /* 0 connections, 1 merged, 2 connections under ecmp_hash src,dst */
        for (int seed = 1; seed <= 16; seed++) {
            cs_topo *t = clos2();
            if (mode == 2) t->ecmp_fields = CS_ECMP_SRC | CS_ECMP_DST;
            void *opts = calloc(1, be->opts_size);
            cs_opts_defaults(be->opts, be->nopts, opts);
            for (size_t i = 0; i < be->nopts; i++) {
                if (strcmp(be->opts[i].key, "ecmp_seed") == 0) *(int *)((char *)opts + be->opts[i].off) = seed;
                if (strcmp(be->opts[i].key, "channels") == 0) *(int *)((char *)opts + be->opts[i].off) = mode == 1;
            }
            tnet tn;
            memset(&tn, 0, sizeof tn);
            tn.cfg = dims1(CS_TOPO_SWITCH, t->nnpus, 1, 0);
            tn.cfg.topology = t;
            tn.q = cs_eventq_new();
            cs_error err;
            cs_error_clear(&err);
            cs_net_env env = {.cfg = &tn.cfg, .topo = t, .q = tn.q, .opts = opts};
            assert_int_equal(cs_net_init(&tn.net, be, &env, &err), CS_OK);
            cs_net_msg m = {.src = 0, .dst = 1, .bytes = MIB, .key = 5, .done = on_done, .ctx = &tn, .cookie = 0,
                            .channels = 2};
            assert_int_equal(cs_net_send(&tn.net, &m, &err), CS_OK);
            cs_eventq_run(tn.q, CS_TIME_MAX);
            assert_int_equal(tn.n, 1);
            uint64_t b8 = link_stat(&tn, cs_topo_find_link(t, 6, 8)).bytes;
            uint64_t b9 = link_stat(&tn, cs_topo_find_link(t, 6, 9)).bytes;
            assert_int_equal(b8 + b9, MIB);
            int split = b8 == MIB / 2;
            assert_true(split || b8 == MIB || b9 == MIB);
            if (mode) assert_false(split);
            else seen[split] = 1;
            cs_time want = split ? 12485000 : 22971000;
            if (tn.t[0] != want)
                fail_msg("mode %d seed %d: done at %llu ps, closed form %llu ps", mode, seed,
                         (unsigned long long)tn.t[0], (unsigned long long)want);
            tn_close(&tn);
            cs_opts_free(be->opts, be->nopts, opts);
            free(opts);
            cs_topo_free(t);
        }
    assert_true(seen[0] && seen[1]);
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
        cmocka_unit_test(test_link_fails_midway),
        cmocka_unit_test(test_switch_drained_shares_detour),
        cmocka_unit_test(test_degrade_and_restore),
        cmocka_unit_test(test_fixed_route_time),
        cmocka_unit_test(test_options_routing),
        cmocka_unit_test(test_end_heap_same_order),
        cmocka_unit_test(test_channels),
        cmocka_unit_test(test_instant_order),
        cmocka_unit_test(test_instant_order_max_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
