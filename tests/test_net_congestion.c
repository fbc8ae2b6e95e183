/*
 * test_net_congestion.c -- the analytical-congestion backend
 * (network/congestion.c) against hand-computed times, and against the
 * congestion-unaware `analytical` backend where they must agree or differ.
 *
 * The model (docs/network.md): store-and-forward per message; on each hop the
 * message waits for its (directional, FIFO) link, keeps it busy for
 * floor(s/B) ns and arrives floor(L + s/B) ns after it started, with
 * B = GB/s * 2^30/1e9 bytes/ns.  Routes: dimension 0 first; Ring the shorter
 * way (clockwise on ties); FullyConnected one hop; Switch up + down.
 *
 * Most numbers use 50 GB/s, 500 ns and 1 MiB:
 *   B = 50 * 1.073741824 = 53.6870912 B/ns, s/B = 1048576/B = 19531.25 ns
 *   ser = 19531 ns, hop H = floor(500 + 19531.25) = 20031 ns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/eventq.h"
#include "network/network.h"
#include "testutil.h"

#define NS(x) ((cs_time)(x) * 1000ULL)
#define MIB 1048576ULL
#define H 20031    /* one uncontended hop, 1 MiB, 50 GB/s, 500 ns */
#define SER 19531  /* link busy time of that hop */

static cs_network_config netcfg(int ndims, const cs_topo_kind *k, const uint32_t *n, const double *bw,
                                const double *lat) {
    cs_network_config c;
    memset(&c, 0, sizeof c);
    c.ndims = ndims;
    c.total_npus = 1;
    for (int d = 0; d < ndims; d++) {
        c.topo[d] = k[d];
        c.npus[d] = n[d];
        c.bandwidth_gbps[d] = bw[d];
        c.latency_ns[d] = lat[d];
        c.total_npus *= n[d];
    }
    return c;
}

static cs_network_config one_dim(cs_topo_kind k, uint32_t n) {
    double bw = 50, lat = 500;
    return netcfg(1, &k, &n, &bw, &lat);
}

/* A network under test: backend, queue and the arrival log. */
typedef struct tnet {
    cs_eventq *q;
    cs_net net;
    cs_time t[64];
    uint64_t order[64];
    int n;
} tnet;

static void on_done(void *ctx, uint64_t cookie) {
    tnet *tn = ctx;
    assert_true(cookie < 64);
    tn->t[cookie] = cs_eventq_now(tn->q);
    tn->order[tn->n++] = cookie;
}

static void tn_open(tnet *tn, const cs_network_config *cfg, const char *backend) {
    memset(tn, 0, sizeof *tn);
    tn->q = cs_eventq_new();
    const cs_net_backend *be = cs_net_backend_find(backend);
    assert_non_null(be);
    cs_error err;
    cs_error_clear(&err);
    cs_net_env env = {.cfg = cfg, .topo = cfg->topology, .q = tn->q};
    assert_int_equal(cs_net_init(&tn->net, be, &env, &err), CS_OK);
}

static void tn_close(tnet *tn) {
    cs_net_destroy(&tn->net);
    cs_eventq_free(tn->q);
}

/* key: the sender's rank in the high half, as the executor does. */
static void tn_send(tnet *tn, uint32_t src, uint32_t dst, uint64_t bytes, uint64_t cookie) {
    cs_error err;
    cs_error_clear(&err);
    uint64_t key = ((uint64_t)src << 32) | cookie;
    cs_net_msg m = {.src = src, .dst = dst, .bytes = bytes, .key = key, .done = on_done, .ctx = tn, .cookie = cookie};
    assert_int_equal(cs_net_send(&tn->net, &m, &err), CS_OK);
}

/* A send issued later, from the event queue. */
typedef struct later {
    tnet *tn;
    uint32_t src, dst;
    uint64_t bytes, cookie;
} later;

static void later_ev(void *ctx, const cs_event *ev) {
    (void)ev;
    later *l = ctx;
    tn_send(l->tn, l->src, l->dst, l->bytes, l->cookie);
}

static void tn_run(tnet *tn) { cs_eventq_run(tn->q, CS_TIME_MAX); }

static cs_time uncontended(tnet *tn, uint32_t src, uint32_t dst, uint64_t bytes) {
    return cs_net_uncontended_time(&tn->net, src, dst, bytes);
}

/* One message alone from src to dst: its arrival time (also checks that the
 * backend's closed form agrees with its simulation). */
static cs_time alone(const cs_network_config *cfg, const char *backend, uint32_t src, uint32_t dst,
                     uint64_t bytes) {
    tnet tn;
    tn_open(&tn, cfg, backend);
    tn_send(&tn, src, dst, bytes, 0);
    tn_run(&tn);
    assert_int_equal(tn.n, 1);
    cs_time t = tn.t[0];
    assert_int_equal(t, uncontended(&tn, src, dst, bytes));
    tn_close(&tn);
    return t;
}

#define CA "analytical-congestion"
#define CU "analytical"

/* ---- uncontended transfers: closed forms ------------------------------------------ */

static void test_registered(void **state) {
    (void)state;
    assert_non_null(cs_net_backend_find(CA));
    assert_string_equal(cs_net_backend_find(CA)->name, CA);
}

static void test_ring_uncontended(void **state) {
    (void)state;
    cs_network_config c = one_dim(CS_TOPO_RING, 8);
    /* neighbour, either way: one hop, H -- the same as the unaware backend */
    assert_int_equal(alone(&c, CA, 0, 1, MIB), NS(H));
    assert_int_equal(alone(&c, CA, 0, 7, MIB), NS(H));
    assert_int_equal(alone(&c, CU, 0, 1, MIB), NS(H));
    assert_int_equal(alone(&c, CU, 0, 7, MIB), NS(H));
    /* 0 -> 3: three hops clockwise, each stored and forwarded: 3H = 60093;
     * the unaware model pays the serialization once: 1500 + 19531.25 -> 21031 */
    assert_int_equal(alone(&c, CA, 0, 3, MIB), NS(3 * H));
    assert_int_equal(alone(&c, CU, 0, 3, MIB), NS(21031));
    /* 0 -> 6: two hops anticlockwise: 40062 */
    assert_int_equal(alone(&c, CA, 0, 6, MIB), NS(2 * H));
    /* 0 -> 4: a tie, clockwise, four hops: 80124 */
    assert_int_equal(alone(&c, CA, 0, 4, MIB), NS(4 * H));
    /* 5 -> 2 (anticlockwise, 3 hops) */
    assert_int_equal(alone(&c, CA, 5, 2, MIB), NS(3 * H));
}

static void test_fc_uncontended_equals_unaware(void **state) {
    (void)state;
    cs_network_config c = one_dim(CS_TOPO_FULLY_CONNECTED, 5);
    /* every pair is one direct link: H, as the unaware backend; also for odd
     * sizes (1000 bytes: 500 + 1000/53.6870912 = 518.6 -> 518 ns) */
    for (uint32_t a = 0; a < 5; a++)
        for (uint32_t b = 0; b < 5; b++) {
            if (a == b) continue;
            assert_int_equal(alone(&c, CA, a, b, MIB), NS(H));
            assert_int_equal(alone(&c, CA, a, b, 1000), alone(&c, CU, a, b, 1000));
        }
    assert_int_equal(alone(&c, CA, 1, 3, 1000), NS(518));
}

static void test_switch_uncontended(void **state) {
    (void)state;
    cs_network_config c = one_dim(CS_TOPO_SWITCH, 4);
    /* NPU -> switch -> NPU: two store-and-forward hops, 2H = 40062; the unaware
     * model counts 2 latencies and one serialization: 1000 + 19531.25 -> 20531 */
    assert_int_equal(alone(&c, CA, 0, 3, MIB), NS(2 * H));
    assert_int_equal(alone(&c, CU, 0, 3, MIB), NS(20531));
    /* zero bytes: the two latencies */
    assert_int_equal(alone(&c, CA, 2, 1, 0), NS(1000));
}

static void test_3d_uncontended(void **state) {
    (void)state;
    /* Ring(4) x FullyConnected(4) x Switch(4), 200/100/50 GB/s, 50/500/2000 ns,
     * 1 MiB from NPU 0 = (0,0,0) to NPU 63 = (3,3,3), dimension 0 first:
     *   Ring: 0 -> 3 is one hop anticlockwise: 50 + 1048576/214.7483648
     *         = 50 + 4882.8125 -> 4932
     *   FC:   one hop: 500 + 9765.625 -> 10265
     *   Switch: up and down: 2 * floor(2000 + 19531.25) = 43062
     * total 58259 ns. */
    cs_topo_kind k[] = {CS_TOPO_RING, CS_TOPO_FULLY_CONNECTED, CS_TOPO_SWITCH};
    uint32_t n[] = {4, 4, 4};
    double bw[] = {200, 100, 50}, lat[] = {50, 500, 2000};
    cs_network_config c = netcfg(3, k, n, bw, lat);
    assert_int_equal(alone(&c, CA, 0, 63, MIB), NS(58259));
    /* a message within one dimension takes that dimension's 1-D time (NPU id
     * = x + 4y + 16z): 4 -> 8 differs only in the FC coordinate: 10265, as
     * the unaware model; 16 -> 32 only in the Switch one: 43062, where the
     * unaware model says floor(2*2000 + 19531.25) = 23531 */
    assert_int_equal(alone(&c, CA, 4, 8, MIB), NS(10265));
    assert_int_equal(alone(&c, CU, 4, 8, MIB), NS(10265));
    assert_int_equal(alone(&c, CA, 16, 32, MIB), NS(43062));
    assert_int_equal(alone(&c, CU, 16, 32, MIB), NS(23531));
}

static void test_self_and_zero(void **state) {
    (void)state;
    cs_network_config c = one_dim(CS_TOPO_RING, 4);
    /* to itself: delivered at once (through the queue) */
    assert_int_equal(alone(&c, CA, 2, 2, MIB), 0);
    /* zero bytes over a ring hop: the latency */
    assert_int_equal(alone(&c, CA, 0, 1, 0), NS(500));
}

/* ---- contention ---------------------------------------------------------------------- */

static void test_shared_link_serializes(void **state) {
    (void)state;
    /* k = 3 messages 0 -> 1 on one ring link, all sent at 0: the link is busy
     * 19531 ns per message, so they start at 0, 19531, 39062 and arrive at
     * 20031, 39562, 59093 (k*SER + H).  The unaware model: all at 20031. */
    cs_network_config c = one_dim(CS_TOPO_RING, 8);
    tnet tn;
    tn_open(&tn, &c, CA);
    for (uint64_t k = 0; k < 3; k++) tn_send(&tn, 0, 1, MIB, k);
    tn_run(&tn);
    for (uint64_t k = 0; k < 3; k++) assert_int_equal(tn.t[k], NS(k * SER + H));
    tn_close(&tn);
    tn_open(&tn, &c, CU);
    for (uint64_t k = 0; k < 3; k++) tn_send(&tn, 0, 1, MIB, k);
    tn_run(&tn);
    for (uint64_t k = 0; k < 3; k++) assert_int_equal(tn.t[k], NS(H));
    tn_close(&tn);
    /* the opposite direction is another link: 0 -> 1 and 1 -> 0 do not wait */
    tn_open(&tn, &c, CA);
    tn_send(&tn, 0, 1, MIB, 0);
    tn_send(&tn, 1, 0, MIB, 1);
    tn_run(&tn);
    assert_int_equal(tn.t[0], NS(H));
    assert_int_equal(tn.t[1], NS(H));
    tn_close(&tn);
}

static void test_switch_incast_and_fanout(void **state) {
    (void)state;
    cs_network_config c = one_dim(CS_TOPO_SWITCH, 4);
    tnet tn;
    /* incast: 1, 2, 3 -> 0 at 0.  Separate up-links: all reach the switch at
     * H = 20031; the down-link to 0 takes them one at a time (in key order:
     * rank 1, 2, 3): start 20031, 39562, 59093; arrive +H: 40062, 59593, 79124. */
    tn_open(&tn, &c, CA);
    for (uint32_t r = 1; r <= 3; r++) tn_send(&tn, r, 0, MIB, r);
    tn_run(&tn);
    assert_int_equal(tn.t[1], NS(2 * H));
    assert_int_equal(tn.t[2], NS(2 * H + SER));
    assert_int_equal(tn.t[3], NS(2 * H + 2 * SER));
    tn_close(&tn);
    /* fan-out: 0 -> 1 and 0 -> 2 share 0's up-link: the second starts at
     * 19531, reaches the switch at 39562, and its down-link is free:
     * 59593.  The first: 40062. */
    tn_open(&tn, &c, CA);
    tn_send(&tn, 0, 1, MIB, 0);
    tn_send(&tn, 0, 2, MIB, 1);
    tn_run(&tn);
    assert_int_equal(tn.t[0], NS(2 * H));
    assert_int_equal(tn.t[1], NS(2 * H + SER));
    tn_close(&tn);
}

static void test_2d_contention_unaware_misses(void **state) {
    (void)state;
    /* Ring(4) x Ring(4), 50 GB/s, 500 ns in both.  NPU id = x + 4y.
     *   A: 0 = (0,0) -> 5 = (1,1), sent at 0: dimension 0 first, 0 -> 1 over
     *      link 1+ of NPU 0 (0..20031), then 1 -> 5 over NPU 1's dim-1 link.
     *   B: 1 = (1,0) -> 9 = (1,2), sent at 10000: dimension 1 only, 2 hops
     *      clockwise, first over NPU 1's dim-1 link: busy 10000..29531.
     * A reaches NPU 1 at 20031 and finds that link busy: it waits until 29531
     * and arrives at 29531 + 20031 = 49562 (alone it would be 2H = 40062).
     * B: 1 -> 5 arrives 30031, 5 -> 9 over NPU 5's link: 50062.
     * The unaware model sees no shared link (and charges only the first
     * differing dimension): A 20031; B 10000 + floor(1000 + 19531.25) = 30531. */
    cs_topo_kind k[] = {CS_TOPO_RING, CS_TOPO_RING};
    uint32_t n[] = {4, 4};
    double bw[] = {50, 50}, lat[] = {500, 500};
    cs_network_config c = netcfg(2, k, n, bw, lat);
    const char *be[] = {CA, CU};
    cs_time want[2][2] = {{NS(49562), NS(50062)}, {NS(20031), NS(30531)}};
    for (int i = 0; i < 2; i++) {
        tnet tn;
        tn_open(&tn, &c, be[i]);
        later b = {&tn, 1, 9, MIB, 1};
        cs_eventq_push(tn.q, NS(10000), 1ULL << 32, later_ev, &b, 0);
        tn_send(&tn, 0, 5, MIB, 0);
        tn_run(&tn);
        assert_int_equal(tn.n, 2);
        assert_int_equal(tn.t[0], want[i][0]);
        assert_int_equal(tn.t[1], want[i][1]);
        if (i == 0) assert_int_equal(uncontended(&tn, 0, 5, MIB), NS(2 * H)); /* 40062 */
        tn_close(&tn);
    }
}

static void test_ring_of_two(void **state) {
    (void)state;
    /* ASTRA-sim's congestion-aware ring asserts on 2 NPUs (it connects 0-1
     * twice).  Here: one link each way.  One message: H, as the unaware model.
     * Both directions at once: H each.  Two messages 0 -> 1: H and H + SER. */
    cs_network_config c = one_dim(CS_TOPO_RING, 2);
    assert_int_equal(alone(&c, CA, 0, 1, MIB), NS(H));
    assert_int_equal(alone(&c, CA, 1, 0, MIB), NS(H));
    assert_int_equal(alone(&c, CU, 0, 1, MIB), NS(H));
    tnet tn;
    tn_open(&tn, &c, CA);
    tn_send(&tn, 0, 1, MIB, 0);
    tn_send(&tn, 1, 0, MIB, 1);
    tn_send(&tn, 0, 1, MIB, 2);
    tn_run(&tn);
    assert_int_equal(tn.t[0], NS(H));
    assert_int_equal(tn.t[1], NS(H));
    assert_int_equal(tn.t[2], NS(H + SER));
    tn_close(&tn);
}

static void test_ties_follow_keys(void **state) {
    (void)state;
    /* Two messages reach the switch at the same time and want the same down
     * link: the one with the smaller key goes first, whatever the order of
     * the send calls.  Rank 2's message is sent first but rank 1's key is
     * smaller: rank 1 arrives at 2H, rank 2 at 2H + SER. */
    cs_network_config c = one_dim(CS_TOPO_SWITCH, 4);
    tnet tn;
    tn_open(&tn, &c, CA);
    tn_send(&tn, 2, 0, MIB, 2);
    tn_send(&tn, 1, 0, MIB, 1);
    tn_run(&tn);
    assert_int_equal(tn.t[1], NS(2 * H));
    assert_int_equal(tn.t[2], NS(2 * H + SER));
    tn_close(&tn);
}

static void run_burst(const cs_network_config *c, cs_time *out) {
    tnet tn;
    tn_open(&tn, c, CA);
    /* every NPU sends to three others, sizes varying */
    uint32_t total = (uint32_t)c->total_npus;
    uint64_t cookie = 0;
    for (uint32_t s = 0; s < total && cookie < 60; s++)
        for (uint32_t j = 1; j <= 3 && cookie < 60; j++) {
            uint32_t d = (s * 7 + j * 5) % total;
            tn_send(&tn, s, d, 1000 + 4097 * cookie, cookie);
            cookie++;
        }
    tn_run(&tn);
    assert_int_equal(tn.n, (int)cookie);
    memcpy(out, tn.t, sizeof tn.t);
    tn_close(&tn);
}

static void test_deterministic(void **state) {
    (void)state;
    /* A 2-D Switch x Ring burst run twice: identical arrival times. */
    cs_topo_kind k[] = {CS_TOPO_SWITCH, CS_TOPO_RING};
    uint32_t n[] = {4, 5};
    double bw[] = {100, 25}, lat[] = {700, 300};
    cs_network_config c = netcfg(2, k, n, bw, lat);
    cs_time a[64], b[64];
    run_burst(&c, a);
    run_burst(&c, b);
    assert_memory_equal(a, b, sizeof a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registered),
        cmocka_unit_test(test_ring_uncontended),
        cmocka_unit_test(test_fc_uncontended_equals_unaware),
        cmocka_unit_test(test_switch_uncontended),
        cmocka_unit_test(test_3d_uncontended),
        cmocka_unit_test(test_self_and_zero),
        cmocka_unit_test(test_shared_link_serializes),
        cmocka_unit_test(test_switch_incast_and_fanout),
        cmocka_unit_test(test_2d_contention_unaware_misses),
        cmocka_unit_test(test_ring_of_two),
        cmocka_unit_test(test_ties_follow_keys),
        cmocka_unit_test(test_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
