/*
 * test_system_algos.c -- every collective algorithm on one dimension against
 * its closed-form time, worked out by hand below; conservation (bytes sent =
 * bytes received) on every collective; the planner's multi-dimensional
 * decomposition.  Owned by the system layer.
 *
 * Notation (ASTRA-sim's analytical model, docs/collectives.md):
 *   B      = bandwidth in bytes/ns = GB/s * 2^30 / 1e9
 *   net(m) = trunc(hops * latency + m / B)       one message of m bytes
 *   d      = endpoint-delay (every packet bundle)
 *   red(m) = 3 * trunc(m / (local-mem-bw * 1e9) * 1e9)   a local reduction
 * One chunk (preferred-dataset-splits 1) unless said otherwise, so a
 * collective of S bytes is one stream.
 */
#include "sys_testlib.h"

/* ---- ring ------------------------------------------------------------------------ */

/* Ring all-reduce on a Ring of n, one chunk of S bytes, m = S/n per message.
 * Send 1 leaves after the first bundle (d).  The first n-1 received messages
 * (reduce-scatter half) each make a packet that is reduced before it is
 * sent: step = net(m) + d + red(m); the n-th receive starts the all-gather
 * half (no reduction): step = net(m) + d.  2(n-1) sends, and the phase ends
 * one bundle after the last receive:
 *   T = d + 2(n-1)(net(m) + d) + (n-1) red(m).
 * Every rank sends 2(n-1) messages of m bytes. */
static void test_ring_allreduce(void **state) {
    (void)state;
    setup u;
    default_setup(&u, CS_TOPO_RING, 8);
    uint64_t S = 16 << 20, m = S / 8, fin[MAXR];
    rec_sum rs;
    assert_int_equal(run1(&u, "1 COLL ctype=0 size=16777216", fin, &rs), 0);
    uint64_t T = 10 + 14 * (net_t(1, 500, 50, m) + 10) + 7 * red(m);
    EXPECT_ALL(fin, 8, T);
    assert_int_equal(T, 581528); /* = a quarter of ASTRA-sim's a_ar_ring8_64MB_cu */
    assert_int_equal(rs.records, 8);
    assert_int_equal(rs.sent, rs.recv);
    assert_int_equal(rs.rank_sent[3], 14 * m);
}

/* Reduce-scatter: n-1 sends, every received message is reduced before the
 * next send and the last one before the phase ends:
 *   T = d + (n-1)(net(m) + d + red(m)),  m = S/n. */
static void test_ring_reduce_scatter(void **state) {
    (void)state;
    setup u;
    default_setup(&u, CS_TOPO_RING, 8);
    uint64_t S = 16 << 20, m = S / 8, fin[MAXR];
    rec_sum rs;
    assert_int_equal(run1(&u, "1 COLL ctype=7 size=16777216", fin, &rs), 0);
    EXPECT_ALL(fin, 8, 10 + 7 * (net_t(1, 500, 50, m) + 10 + red(m)));
    assert_int_equal(rs.sent, rs.recv);
    assert_int_equal(rs.sent, 8 * 7 * m);
}

/* All-gather: the input is the rank's shard, every message carries all of
 * it (m = S), no reductions: T = d + (n-1)(net(S) + d). */
static void test_ring_all_gather(void **state) {
    (void)state;
    setup u;
    default_setup(&u, CS_TOPO_RING, 8);
    uint64_t S = 1 << 20, fin[MAXR];
    rec_sum rs;
    assert_int_equal(run1(&u, "1 COLL ctype=2 size=1048576", fin, &rs), 0);
    EXPECT_ALL(fin, 8, 10 + 7 * (net_t(1, 500, 50, S) + 10));
    assert_int_equal(rs.sent, rs.recv);
    assert_int_equal(rs.sent, 8 * 7 * S);
}

/* Ring all-to-all: n(n-1)/2 relayed messages of S/n, no reductions:
 *   T = d + n(n-1)/2 (net(S/n) + d). */
static void test_ring_all_to_all(void **state) {
    (void)state;
    setup u;
    default_setup(&u, CS_TOPO_RING, 8);
    uint64_t S = 16 << 20, m = S / 8, fin[MAXR];
    rec_sum rs;
    assert_int_equal(run1(&u, "1 COLL ctype=6 size=16777216", fin, &rs), 0);
    EXPECT_ALL(fin, 8, 10 + 28 * (net_t(1, 500, 50, m) + 10));
    assert_int_equal(rs.sent, rs.recv);
    assert_int_equal(rs.sent, 8 * 28 * m);
}

/* On a Switch every message is 2 hops; on a FullyConnected 1. */
static void test_ring_on_switch_and_fc(void **state) {
    (void)state;
    setup u;
    default_setup(&u, CS_TOPO_SWITCH, 4);
    uint64_t S = 1 << 20, m = S / 4, fin[MAXR];
    assert_int_equal(run1(&u, "1 COLL ctype=0 size=1048576", fin, NULL), 0);
    EXPECT_ALL(fin, 4, 10 + 6 * (net_t(2, 500, 50, m) + 10) + 3 * red(m));
    default_setup(&u, CS_TOPO_FULLY_CONNECTED, 4);
    assert_int_equal(run1(&u, "1 COLL ctype=0 size=1048576", fin, NULL), 0);
    EXPECT_ALL(fin, 4, 10 + 6 * (net_t(1, 500, 50, m) + 10) + 3 * red(m));
}

/* Chunks run one after another in the dimension's queue with
 * active-chunks-per-dimension 1: 4 chunks of S/4 take 4 x T(S/4); a chunk is
 * never smaller than one byte per NPU (1 KiB over 256 splits on 8 NPUs makes
 * 256 chunks of 8 bytes, m = 1). */
static void test_ring_chunks(void **state) {
    (void)state;
    setup u;
    default_setup(&u, CS_TOPO_RING, 8);
    u.splits = 4;
    uint64_t C = 4 << 20, m = C / 8, fin[MAXR];
    assert_int_equal(run1(&u, "1 COLL ctype=0 size=16777216", fin, NULL), 0);
    EXPECT_ALL(fin, 8, 4 * (10 + 14 * (net_t(1, 500, 50, m) + 10) + 7 * red(m)));
    u.splits = 256;
    assert_int_equal(run1(&u, "1 COLL ctype=0 size=1024", fin, NULL), 0);
    EXPECT_ALL(fin, 8, 256 * (10 + 14 * (net_t(1, 500, 50, 1) + 10) + 7 * red(1)));
    assert_int_equal(fin[0], 1830400); /* ASTRA-sim's c12_ar1K_ring8_s256_cu */
}

/* ---- direct ------------------------------------------------------------------------ */

/* Direct all-reduce on FullyConnected(n), window n-1, m = S/n, every
 * message one hop.  The n-1 first packets leave together after d; the n-1
 * replies arrive together and are reduced: the second half leaves at
 * 2d + net + red; its replies start a new round whose n-1 packets each need
 * one more bundle before the phase ends:
 *   T = 3d + 2 net(m) + red(m). */
static void test_direct_allreduce(void **state) {
    (void)state;
    setup u;
    default_setup(&u, CS_TOPO_FULLY_CONNECTED, 8);
    u.impl = "direct";
    uint64_t S = 8 << 20, m = S / 8, fin[MAXR];
    rec_sum rs;
    assert_int_equal(run1(&u, "1 COLL ctype=0 size=8388608", fin, &rs), 0);
    EXPECT_ALL(fin, 8, 30 + 2 * net_t(1, 500, 50, m) + red(m));
    assert_int_equal(rs.sent, rs.recv);
    assert_int_equal(rs.sent, 8 * 14 * m);
}

/* Direct all-gather, window 2 on FullyConnected(4): n-1 = 3 sends of the
 * whole shard S; two leave after d, the third after the first reply's
 * bundle (d + net + d); the phase ends one bundle after the last reply:
 *   T = d + net(S) + d + net(S) + d = 3d + 2 net(S). */
static void test_direct_window_all_gather(void **state) {
    (void)state;
    setup u;
    default_setup(&u, CS_TOPO_FULLY_CONNECTED, 4);
    u.impl = "direct2";
    uint64_t S = 1 << 20, fin[MAXR];
    rec_sum rs;
    assert_int_equal(run1(&u, "1 COLL ctype=2 size=1048576", fin, &rs), 0);
    EXPECT_ALL(fin, 4, 30 + 2 * net_t(1, 500, 50, S));
    assert_int_equal(rs.sent, rs.recv);
    assert_int_equal(rs.sent, 4 * 3 * S);
}

/* ---- halving-doubling ------------------------------------------------------------------ */

/* Halving-doubling all-reduce on FullyConnected(2^k): 2k sends; packet j
 * goes to the partner at distance 1, 2, .., 2^(k-1), 2^(k-1), .., 1 with
 * msg(j) = S/2, S/4, .., S/2^k, S/2^k, .., S/2.  Packets 1..k-1 are reduced
 * (red of their own size) before they leave; packet k starts the second
 * round (no reduction):
 *   t_0 = d,  t_j = t_(j-1) + net(msg(j-1)) + d + [1 <= j <= k-1] red(msg(j)),
 *   T = t_(2k-1) + net(msg(2k-1)) + d. */
static void test_hd_allreduce(void **state) {
    (void)state;
    setup u;
    default_setup(&u, CS_TOPO_FULLY_CONNECTED, 8);
    u.impl = "halvingDoubling";
    uint64_t S = 8 << 20, fin[MAXR];
    uint64_t msg[6] = {S / 2, S / 4, S / 8, S / 8, S / 4, S / 2};
    uint64_t t = 10;
    for (int j = 1; j < 6; j++) t += net_t(1, 500, 50, msg[j - 1]) + 10 + (j <= 2 ? red(msg[j]) : 0);
    uint64_t T = t + net_t(1, 500, 50, msg[5]) + 10;
    rec_sum rs;
    assert_int_equal(run1(&u, "1 COLL ctype=0 size=8388608", fin, &rs), 0);
    EXPECT_ALL(fin, 8, T);
    assert_int_equal(rs.sent, rs.recv);
    assert_int_equal(rs.rank_sent[5], S / 2 + S / 4 + S / 8 + S / 8 + S / 4 + S / 2);
}

/* Halving-doubling reduce-scatter on FC(4): k = 2 sends of S/2 then S/4;
 * packet 1 (to the partner at distance 2) is reduced; the phase ends one
 * bundle after the last receive, which starts a new round:
 *   T = d + net(S/2) + d + red(S/4) + net(S/4) + d. */
static void test_hd_reduce_scatter(void **state) {
    (void)state;
    setup u;
    default_setup(&u, CS_TOPO_FULLY_CONNECTED, 4);
    u.impl = "halvingDoubling";
    uint64_t S = 1 << 20, fin[MAXR];
    assert_int_equal(run1(&u, "1 COLL ctype=7 size=1048576", fin, NULL), 0);
    EXPECT_ALL(fin, 4, 30 + net_t(1, 500, 50, S / 2) + red(S / 4) + net_t(1, 500, 50, S / 4));
}

/* ---- double binary tree ------------------------------------------------------------------- */

/* Double binary tree on FullyConnected(4), first tree "RootMax": ranks 0,1,2
 * are a full tree in in-order (1 is the inner node, 0 and 2 leaves) under
 * the extra root 3.  Every message is the whole S (net = net(S)).
 *  leaves 0, 2: bundle d, send up at d;
 *  rank 1: both arrive at d+net, each bundle d+red; the second sends up at
 *          2d+net+red;
 *  root 3: receives at 2d+2net+red, bundle d+red, sends down and ends:
 *          T3 = 3d + 2net + 2red;
 *  rank 1: receives at T3+net, bundle d+red, sends to both leaves and ends:
 *          T1 = 4d + 3net + 3red;
 *  leaves: receive at T1+net, bundle d, end: T0 = T2 = 5d + 4net + 3red. */
static void test_dbt_allreduce(void **state) {
    (void)state;
    setup u;
    default_setup(&u, CS_TOPO_FULLY_CONNECTED, 4);
    u.impl = "doubleBinaryTree";
    uint64_t S = 1 << 20, n = net_t(1, 500, 50, S), r = red(S), fin[MAXR];
    rec_sum rs;
    assert_int_equal(run1(&u, "1 COLL ctype=0 size=1048576", fin, &rs), 0);
    assert_int_equal(fin[3], 30 + 2 * n + 2 * r);
    assert_int_equal(fin[1], 40 + 3 * n + 3 * r);
    assert_int_equal(fin[0], 50 + 4 * n + 3 * r);
    assert_int_equal(fin[2], 50 + 4 * n + 3 * r);
    assert_int_equal(rs.sent, rs.recv);
    assert_int_equal(rs.sent, 6 * S); /* 3 edges, up and down */
}

/* ---- multi-dimensional ------------------------------------------------------------------------ */

/* localBWAware all-reduce on Ring(4) x Ring(2), one chunk of S:
 * reduce-scatter on dim 0 (m0 = S/4), all-reduce on dim 1 of S/4
 * (m1 = S/8), all-gather back on dim 0 with input S/4 (m = S/4):
 *   T = [d + 3(net0(S/4) + d + red(S/4))]
 *     + [d + 2(net1(S/8) + d) + red(S/8)]
 *     + [d + 3(net0(S/4) + d)].
 * baseline does a full all-reduce on each dimension instead:
 *   T = [d + 6(net0(S/4) + d) + 3 red(S/4)] + [d + 2(net1(S/2) + d) + red(S/2)]. */
static void test_two_dims(void **state) {
    (void)state;
    setup u;
    default_setup(&u, CS_TOPO_RING, 4);
    u.ndims = 2;
    u.topo[1] = CS_TOPO_RING;
    u.npus[1] = 2;
    u.bw[1] = 25;
    u.lat[1] = 1000;
    uint64_t S = 4 << 20, fin[MAXR];
    uint64_t a = net_t(1, 500, 50, S / 4), b = net_t(1, 1000, 25, S / 8);
    rec_sum rs;
    assert_int_equal(run1(&u, "1 COLL ctype=0 size=4194304", fin, &rs), 0);
    uint64_t T = (10 + 3 * (a + 10 + red(S / 4))) + (10 + 2 * (b + 10) + red(S / 8)) + (10 + 3 * (a + 10));
    EXPECT_ALL(fin, 8, T);
    assert_int_equal(rs.sent, rs.recv);
    u.opt = CS_COLLOPT_BASELINE;
    assert_int_equal(run1(&u, "1 COLL ctype=0 size=4194304", fin, &rs), 0);
    uint64_t c = net_t(1, 1000, 25, S / 2);
    T = (10 + 6 * (a + 10) + 3 * red(S / 4)) + (10 + 2 * (c + 10) + red(S / 2));
    EXPECT_ALL(fin, 8, T);
    assert_int_equal(rs.sent, rs.recv);
}

/* involved_dim: only dimension 1 involved -> a plain all-reduce on dim 1
 * (ring of 2, m = S/2): T = d + 2(net1(S/2) + d) + red(S/2). */
static void test_involved_dim(void **state) {
    (void)state;
    setup u;
    default_setup(&u, CS_TOPO_RING, 4);
    u.ndims = 2;
    u.topo[1] = CS_TOPO_SWITCH;
    u.npus[1] = 2;
    u.bw[1] = 25;
    u.lat[1] = 1000;
    uint64_t S = 4 << 20, fin[MAXR];
    assert_int_equal(run1(&u, "1 COLL ctype=0 size=4194304 inv=0,1", fin, NULL), 0);
    EXPECT_ALL(fin, 8, 10 + 2 * (net_t(2, 1000, 25, S / 2) + 10) + red(S / 2));
    /* no dimension involved: nothing to move, completes at once */
    assert_int_equal(run1(&u, "1 COLL ctype=0 size=4194304 inv=0,0; 2 COMP dur=3 data=1", fin, NULL), 0);
    EXPECT_ALL(fin, 8, 3000);
}

/* oneRing: one ring over all 8 NPUs of Ring(4) x Ring(2); neighbours in rank
 * order, so messages between ranks 3-4 and 7-0 cross dimension 1. */
static void test_one_ring(void **state) {
    (void)state;
    setup u;
    default_setup(&u, CS_TOPO_RING, 4);
    u.ndims = 2;
    u.topo[1] = CS_TOPO_RING;
    u.npus[1] = 2;
    u.bw[1] = 50;
    u.lat[1] = 500;
    u.impl = "oneRing";
    uint64_t S = 8 << 20, m = S / 8, fin[MAXR];
    rec_sum rs;
    assert_int_equal(run1(&u, "1 COLL ctype=0 size=8388608", fin, &rs), 0);
    /* same bandwidth and latency everywhere, every hop 1: a ring of 8 */
    EXPECT_ALL(fin, 8, 10 + 14 * (net_t(1, 500, 50, m) + 10) + 7 * red(m));
    assert_int_equal(rs.sent, rs.recv);
}

/* ---- scheduling ---------------------------------------------------------------------------------- */

/* Two all-reduces issued at once (comm-streams 2) share the queue: with LIFO
 * the newer one's chunks jump ahead of the older one's waiting chunks, with
 * FIFO they wait.  Collective A = node 1, B = node 2; 2 chunks each. */
static void test_lifo_fifo(void **state) {
    (void)state;
    setup u;
    default_setup(&u, CS_TOPO_RING, 4);
    u.splits = 2;
    u.comm_streams = 2;
    uint64_t fin[MAXR];
    rec_sum rs;
    const char *spec = "1 COLL ctype=0 size=1048576; 2 COLL ctype=0 size=1048576";
    uint64_t C = 1 << 19, m = C / 4;
    uint64_t chunk = 10 + 6 * (net_t(1, 500, 50, m) + 10) + 3 * red(m);
    /* LIFO: A0 runs; B0, B1 (newer, higher priority) go before A1: B ends
     * after 3 chunk times, A after 4. */
    assert_int_equal(run1(&u, spec, fin, &rs), 0);
    EXPECT_ALL(fin, 4, 4 * chunk);
    assert_int_equal(rs.end_node[1][0], cs_time_from_ns(4 * chunk));
    assert_int_equal(rs.end_node[2][0], cs_time_from_ns(3 * chunk));
    /* FIFO: A0, A1, B0, B1. */
    u.policy = CS_SCHED_FIFO;
    assert_int_equal(run1(&u, spec, fin, &rs), 0);
    EXPECT_ALL(fin, 4, 4 * chunk);
    assert_int_equal(rs.end_node[1][2], cs_time_from_ns(2 * chunk));
    assert_int_equal(rs.end_node[2][2], cs_time_from_ns(4 * chunk));
}

/* active-chunks-per-dimension 2: two chunks run side by side, so 2 chunks take
 * as long as one. */
static void test_active_chunks(void **state) {
    (void)state;
    setup u;
    default_setup(&u, CS_TOPO_RING, 4);
    u.splits = 2;
    u.active = 2;
    uint64_t C = 1 << 19, m = C / 4, fin[MAXR];
    assert_int_equal(run1(&u, "1 COLL ctype=0 size=1048576", fin, NULL), 0);
    EXPECT_ALL(fin, 4, 10 + 6 * (net_t(1, 500, 50, m) + 10) + 3 * red(m));
}

/* endpoint-delay 0 (ASTRA-sim stops on an assertion): the ring formula with
 * d = 0. */
static void test_endpoint_zero(void **state) {
    (void)state;
    setup u;
    default_setup(&u, CS_TOPO_RING, 4);
    u.endpoint = 0;
    uint64_t S = 1 << 20, m = S / 4, fin[MAXR];
    assert_int_equal(run1(&u, "1 COLL ctype=0 size=1048576", fin, NULL), 0);
    EXPECT_ALL(fin, 4, 6 * net_t(1, 500, 50, m) + 3 * red(m));
}

/* cs_eventq_dispatching: 0 outside a handler, the running event's key inside
 * (the system layer gives what an event causes the key of its cause). */
static uint64_t seen_key;
static int seen_inside;
static void probe(void *ctx, const cs_event *ev) {
    (void)ev;
    seen_inside = cs_eventq_dispatching(ctx, &seen_key);
}
static void test_dispatching_key(void **state) {
    (void)state;
    cs_eventq *q = cs_eventq_new();
    uint64_t k = 0;
    assert_int_equal(cs_eventq_dispatching(q, &k), 0);
    cs_eventq_push(q, 5, 0x700000003ULL, probe, q, 0);
    assert_int_equal(cs_eventq_step(q), 1);
    assert_int_equal(seen_inside, 1);
    assert_int_equal(seen_key, 0x700000003ULL);
    assert_int_equal(cs_eventq_dispatching(q, &k), 0);
    cs_eventq_free(q);
}

/* Ties: the order of simultaneous events follows their causes, as in
 * ASTRA-sim's FIFO event queue.  A ring all-reduce on 4 NPUs, all issued at
 * time 0 in rank order: the first bundles complete in the order 0, 1, 2, 3;
 * their sends reach ranks 1, 2, 3, 0 in that order, whose bundles complete in
 * that order, and so on: after the 6 receives of the phase the ranks finish
 * (all at the same instant) in the order 2, 3, 0, 1. */
typedef struct order_rec {
    uint32_t ranks[8];
    int n;
} order_rec;
static void on_order(void *ud, const cs_coll_record *r) {
    order_rec *o = ud;
    if (o->n < 8) o->ranks[o->n++] = r->rank;
}
static void test_tie_order(void **state) {
    (void)state;
    cs_network_config net;
    memset(&net, 0, sizeof net);
    net.ndims = 1;
    net.topo[0] = CS_TOPO_RING;
    net.npus[0] = 4;
    net.bandwidth_gbps[0] = 50;
    net.latency_ns[0] = 500;
    net.total_npus = 4;
    cs_system_config sc;
    cs_system_config_defaults(&sc);
    sc.preferred_dataset_splits = 1;
    sc.impl[CS_CFG_ALL_REDUCE].n = 1;
    tu_set_algo(&sc.impl[CS_CFG_ALL_REDUCE].algo[0], "ring");
    const char *path = tu_path(tu_tmp_dir(), "tie.et");
    assert_int_equal(tu_write_trace(path, "1 COLL ctype=0 size=1048576"), 0);
    cs_workload w;
    memset(&w, 0, sizeof w);
    cs_graph_options go = {0, 0, NULL};
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_workload_load(path, 4, &go, &w, &err), 0);
    cs_engine_options so;
    cs_engine_options_init(&so);
    cs_engine_options_set_system(&so, &sc);
    order_rec o;
    memset(&o, 0, sizeof o);
    cs_coll_observer obs = {on_order, &o};
    so.coll_observer = &obs;
    cs_engine_result res;
    assert_int_equal(cs_engine_run(&w, &net, &so, &res, &err), 0);
    assert_int_equal(o.n, 4);
    static const uint32_t want[4] = {2, 3, 0, 1};
    for (int i = 0; i < 4; i++) assert_int_equal(o.ranks[i], want[i]);
    cs_engine_result_free(&res);
    cs_workload_free(&w);
    cs_system_config_free(&sc);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ring_allreduce),
        cmocka_unit_test(test_ring_reduce_scatter),
        cmocka_unit_test(test_ring_all_gather),
        cmocka_unit_test(test_ring_all_to_all),
        cmocka_unit_test(test_ring_on_switch_and_fc),
        cmocka_unit_test(test_ring_chunks),
        cmocka_unit_test(test_direct_allreduce),
        cmocka_unit_test(test_direct_window_all_gather),
        cmocka_unit_test(test_hd_allreduce),
        cmocka_unit_test(test_hd_reduce_scatter),
        cmocka_unit_test(test_dbt_allreduce),
        cmocka_unit_test(test_two_dims),
        cmocka_unit_test(test_involved_dim),
        cmocka_unit_test(test_one_ring),
        cmocka_unit_test(test_lifo_fifo),
        cmocka_unit_test(test_active_chunks),
        cmocka_unit_test(test_endpoint_zero),
        cmocka_unit_test(test_dispatching_key),
        cmocka_unit_test(test_tie_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
