/*
 * test_system_nccl_model.c -- NCCL's tuning model (src/system/nccl_model.c)
 * against its formula worked by hand from NCCL's constants (tuning.cc,
 * commit 5067397c; docs/collectives.md "The nccl model").  The simulated
 * times are tests/cli_nccl_model.sh.
 *
 * One node of n = 8 GPUs, Hopper, C = 16 channels, B = 400 GB/s (NCCL's
 * nChannels x bwIntra), all-reduce nsteps = 14:
 *   Ring LL:     15.0 us + S / (1000 x 141 x 8/14)
 *   Ring LL128:  40.6 us + S / (1000 x 368 x 8/14)
 *   Ring Simple: 56.0 us + S / (1000 x 400 x 8/14)
 *   NVLS:        25.0 us + S / (1000 x 595 x 8/14)   (400 x 0.85 x 7/8 x 2 = 595: NCCL's NVLS graph has
 *                min(n, 32) = 8 channels on one node, search.cc:1126-1127, 1135-1137 -- not C)
 *   Tree LL:     6.8 + 14 x 0.6 = 15.2 us, busbw min(368 / 3.8, 141) = 96.842, algbw / 2
 *   Tree LL128:  14 + 14 x 1.25 = 31.5 us, busbw min(368 x 7/9, 16 x 36.7) = 286.22, algbw / 2,
 *                x treeCorrectionFactor[LL128][log2(S / 64)]
 * Ampere (llMaxBw 87.7, LL128 cap 20 per channel), B = 200: Ring LL128
 * busbw min(184, 320) = 184; LL min(87.7, 100) = 87.7.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "system/nccl_model.h"

static cs_nccl_in h100(int coll, uint64_t S, int nvls) {
    cs_nccl_in q = {.coll = coll, .nranks = 8, .nbytes = S, .bw_gbps = 400.0, .channels = 16,
                    .arch = CS_NCCL_HOPPER, .nvls = nvls};
    return q;
}

#define NEAR(a, b) assert_true(fabs((a) - (b)) < 1e-6 * (fabs(b) + 1))

static void test_predicted_times(void **state) {
    (void)state;
    cs_nccl_in q = h100(CS_NCCL_ALL_REDUCE, 1 << 20, 1);
    double bus, alg;
    NEAR(cs_nccl_time_us(&q, CS_NCCL_RING, CS_NCCL_LL, &bus, &alg, NULL), 15.0 + 1048576.0 / (1000 * 141 * 8 / 14.0));
    NEAR(bus, 141.0);
    NEAR(alg, 141.0 * 8 / 14);
    NEAR(cs_nccl_time_us(&q, CS_NCCL_RING, CS_NCCL_LL128, &bus, NULL, NULL), 40.6 + 1048576.0 / (1000 * 368 * 8 / 14.0));
    NEAR(bus, 368.0);
    NEAR(cs_nccl_time_us(&q, CS_NCCL_RING, CS_NCCL_SIMPLE, NULL, NULL, NULL), 56.0 + 1048576.0 / (1000 * 400 * 8 / 14.0));
    NEAR(cs_nccl_time_us(&q, CS_NCCL_NVLS, CS_NCCL_SIMPLE, &bus, NULL, NULL), 25.0 + 1048576.0 / (1000 * 595 * 8 / 14.0));
    NEAR(bus, 595.0);
    /* 1 MiB / 64 = 2^14: treeCorrectionFactor[LL128][14] = 0.6 */
    NEAR(cs_nccl_time_us(&q, CS_NCCL_TREE, CS_NCCL_LL128, &bus, NULL, NULL),
         31.5 + 1048576.0 / (1000 * 368 * 7 / 9.0 / 2 * 0.6));
    /* treeCorrectionFactor[LL][14] = 0.5 */
    NEAR(cs_nccl_time_us(&q, CS_NCCL_TREE, CS_NCCL_LL, &bus, NULL, NULL), 15.2 + 1048576.0 / (1000 * 368 / 3.8 / 2 * 0.5));
    /* NVLS has only Simple; without nvls it is no candidate */
    assert_true(cs_nccl_time_us(&q, CS_NCCL_NVLS, CS_NCCL_LL, NULL, NULL, NULL) < 0);
    q.nvls = 0;
    assert_true(cs_nccl_time_us(&q, CS_NCCL_NVLS, CS_NCCL_SIMPLE, NULL, NULL, NULL) < 0);
    /* all-gather: no tree; ring nsteps 7, lat 8.4 + 7 x 3.4 = 32.2; NVLS busbw 400 x 0.85 x 7/8 x 7/8 = 297.5 x 7/8,
     * not converted (tuning.cc:377) */
    cs_nccl_in g = h100(CS_NCCL_ALL_GATHER, 1 << 20, 1);
    assert_true(cs_nccl_time_us(&g, CS_NCCL_TREE, CS_NCCL_SIMPLE, NULL, NULL, NULL) < 0);
    NEAR(cs_nccl_time_us(&g, CS_NCCL_RING, CS_NCCL_SIMPLE, NULL, NULL, NULL), 32.2 + 1048576.0 / (1000 * 400 * 8 / 7.0));
    NEAR(cs_nccl_time_us(&g, CS_NCCL_NVLS, CS_NCCL_SIMPLE, NULL, &alg, NULL), 25.0 + 1048576.0 / (1000 * 297.5 * 7 / 8.0));
    NEAR(alg, 400 * 0.85 * 7 / 8.0 * 7 / 8.0);
}

static void expect_choice(cs_nccl_in q, int a, int p) {
    cs_nccl_choice ch;
    assert_int_equal(cs_nccl_choose(&q, &ch), 0);
    if (ch.algo != a || ch.proto != p)
        fail_msg("%llu bytes: got %s/%s, expected %s/%s", (unsigned long long)q.nbytes, cs_nccl_algo_name(ch.algo),
                 cs_nccl_proto_name(ch.proto), cs_nccl_algo_name(a), cs_nccl_proto_name(p));
}

/* Switch points, equal predicted times (header): LL -> LL128 at 3,343,820 B, LL128 -> Simple at 40,480,000 B,
 * LL -> NVLS: 10 us = S (14/1128 - 1/340) / 1000 -> S = 1,055,947 B (algbw 595 x 8/14 = 340).  With nccl-channels
 * 1 NVLS stays a candidate (its graph has 8 channels, not C). */
static void test_switch_points(void **state) {
    (void)state;
    expect_choice(h100(CS_NCCL_ALL_REDUCE, 8, 0), CS_NCCL_RING, CS_NCCL_LL);
    expect_choice(h100(CS_NCCL_ALL_REDUCE, 3343000, 0), CS_NCCL_RING, CS_NCCL_LL);
    expect_choice(h100(CS_NCCL_ALL_REDUCE, 3344700, 0), CS_NCCL_RING, CS_NCCL_LL128);
    expect_choice(h100(CS_NCCL_ALL_REDUCE, 40470000, 0), CS_NCCL_RING, CS_NCCL_LL128);
    expect_choice(h100(CS_NCCL_ALL_REDUCE, 40490000, 0), CS_NCCL_RING, CS_NCCL_SIMPLE);
    expect_choice(h100(CS_NCCL_ALL_REDUCE, 1055500, 1), CS_NCCL_RING, CS_NCCL_LL);
    expect_choice(h100(CS_NCCL_ALL_REDUCE, 1056500, 1), CS_NCCL_NVLS, CS_NCCL_SIMPLE);
    cs_nccl_in c1 = h100(CS_NCCL_ALL_REDUCE, 1u << 30, 1);
    c1.channels = 1;
    expect_choice(c1, CS_NCCL_NVLS, CS_NCCL_SIMPLE);
    /* 64 GPUs on one switch: min(64, 32) = 32 channels, 400 x 0.85 x 31/32 x 2 = 658.75 */
    c1.nranks = 64;
    double b64;
    cs_nccl_time_us(&c1, CS_NCCL_NVLS, CS_NCCL_SIMPLE, &b64, NULL, NULL);
    NEAR(b64, 658.75);
    expect_choice(h100(CS_NCCL_ALL_REDUCE, 1u << 30, 1), CS_NCCL_NVLS, CS_NCCL_SIMPLE);
    cs_nccl_choice ch;
    cs_nccl_in q = h100(CS_NCCL_ALL_REDUCE, 1024, 0);
    assert_int_equal(cs_nccl_choose(&q, &ch), 0);
    assert_int_equal(ch.launch_ns, 6600); /* baseLat Ring LL */
    assert_int_equal(ch.step_ns, 600);    /* hwLat NVLink Ring LL */
    q = h100(CS_NCCL_ALL_REDUCE, 1u << 30, 1);
    assert_int_equal(cs_nccl_choose(&q, &ch), 0);
    assert_int_equal(ch.launch_ns, 0);
    assert_int_equal(ch.step_ns, 12500);  /* 25 us over inSwitch's two bundles */
    /* one rank: nothing to choose */
    q.nranks = 1;
    assert_int_equal(cs_nccl_choose(&q, &ch), -1);
}

/* Ampere, B = 200, C = 16, all-reduce on 8: LL 15.0 us at 87.7 x 8/14; LL128 40.6 us at 184 x 8/14 (the
 * 20 GB/s-per-channel cap, 320, does not bind); switch at 25.6 = S (14/701.6 - 14/1472) / 1000 ->
 * S = 25.6e3 / (0.0199544 - 0.0095109) = 2,451,281 B.  With C = 8 the cap (160) binds: 40.6 us at
 * 160 x 8/14, switch at 25.6e3 / (0.0199544 - 0.0109375) = 2,839,116 B.  (Tree LL128 there: 31.5 us
 * + S / (1000 x 143.1 / 2 x 0.6): 88 us at 2.45 MB, not least.) */
static void test_ampere_caps(void **state) {
    (void)state;
    cs_nccl_in q = {.coll = CS_NCCL_ALL_REDUCE, .nranks = 8, .nbytes = 2440000, .bw_gbps = 200.0, .channels = 16,
                    .arch = CS_NCCL_AMPERE, .nvls = 1};
    double bus;
    assert_true(cs_nccl_time_us(&q, CS_NCCL_NVLS, CS_NCCL_SIMPLE, NULL, NULL, NULL) < 0); /* nvlsEfficiency 0 */
    cs_nccl_time_us(&q, CS_NCCL_RING, CS_NCCL_LL, &bus, NULL, NULL);
    NEAR(bus, 87.7);
    cs_nccl_time_us(&q, CS_NCCL_RING, CS_NCCL_LL128, &bus, NULL, NULL);
    NEAR(bus, 184.0);
    expect_choice(q, CS_NCCL_RING, CS_NCCL_LL);
    q.nbytes = 2460000;
    expect_choice(q, CS_NCCL_RING, CS_NCCL_LL128);
    q.channels = 8;
    cs_nccl_time_us(&q, CS_NCCL_RING, CS_NCCL_LL128, &bus, NULL, NULL);
    NEAR(bus, 160.0);
    q.nbytes = 2830000;
    expect_choice(q, CS_NCCL_RING, CS_NCCL_LL);
    q.nbytes = 2850000;
    expect_choice(q, CS_NCCL_RING, CS_NCCL_LL128);
}

/* On 8 GPUs the tree is never the least at any power-of-two size from 8 B to 16 GiB, for Hopper at B =
 * 370.8 (examples/hgx_h100_nccl) and 400 and for Ampere at 200 and 279.4 (DGX A100), with and without NVLS
 * (on 64 GPUs it is: tests/cli_nccl_model.sh).  Why, by hand: Tree LL has a higher latency (15.2 > 15.0 us)
 * and a lower bandwidth (busbw / 3.8 / 2 < min(llMaxBw, B/2) x 8/14) than Ring LL; Tree LL128 (31.5 us)
 * beats Ring LL128 (40.6 us) in latency but has 0.358 B x treeCorrectionFactor (<= 0.6 between 64 KiB and
 * 4 MiB, where it would have to win) against Ring LL128's 0.526 B; Tree Simple (64.4 us, <= 0.46 B x 0.9)
 * loses to Ring Simple (56 us, 0.571 B). */
static void test_tree_never_least(void **state) {
    (void)state;
    static const double BW[] = {370.8, 400.0, 200.0, 279.4};
    for (int b = 0; b < 4; b++)
        for (int nvls = 0; nvls < 2; nvls++)
            for (int k = 3; k <= 34; k++) {
                cs_nccl_in q = h100(CS_NCCL_ALL_REDUCE, (uint64_t)1 << k, nvls);
                q.bw_gbps = BW[b];
                if (b >= 2) q.arch = CS_NCCL_AMPERE;
                cs_nccl_choice ch;
                assert_int_equal(cs_nccl_choose(&q, &ch), 0);
                if (ch.algo == CS_NCCL_TREE) fail_msg("B %g, 2^%d bytes: Tree/%s", BW[b], k, cs_nccl_proto_name(ch.proto));
                /* all-gather and reduce-scatter: NVLS (busbw B x 0.85 x 7/8 x (n-1)/n = 0.651 B, 25 us) is
                 * never the least either: Ring Simple has 32.2 us and busbw B (algbw x 8/7) */
                for (int c = CS_NCCL_ALL_GATHER; c <= CS_NCCL_REDUCE_SCATTER; c++) {
                    q.coll = c;
                    assert_int_equal(cs_nccl_choose(&q, &ch), 0);
                    if (ch.algo != CS_NCCL_RING) fail_msg("coll %d, B %g, 2^%d bytes: %s", c, BW[b], k,
                                                          cs_nccl_algo_name(ch.algo));
                }
            }
}

/* Across nodes (tuning.cc:267-434, 646-650): nNodes N of 8 Hopper GPUs, NVLink B = 400 GB/s, one NIC of
 * 40 GB/s per GPU, C = 16, Intel hosts.  NCCL's nChannels x bw: rings min(400, 8 x 40) = 320 (a channel per
 * NIC, every NIC in use); trees on 2 nodes min(400, 2 x 320) = 400 (bwIntra up to 2 bwInter, search.cc),
 * on more 320.  N = 2: n = 16, all-reduce nsteps 30, nInterSteps 2(N-1) = 2, index2 1:
 *   Ring LL     6.6 + 28 x max(0.6, net overhead 1.0) + 2 x 2.7 (NET Ring LL) = 40.0 us,
 *               busbw min(llMaxBw Intel N2 39.0, 320/2) = 39.0, algbw x 16/30 = 20.8
 *   Ring LL128  14 + 28 x 1.9 + 2 x 4.0 = 75.2 us, busbw min(0.92 x 320, 16 x 36.7) = 294.4
 *   Ring Simple (8.4 + 28 x max(3.4, 3 x 1.0) + 2 x 14) x 1.4 (plateau: S / (16 x 16) >= 64) = 184.24 us,
 *               busbw 320 (131.6 us below 16 KiB)
 *   Tree LL     6.8 + 2 (7 x 0.6 + log2(2) x 5.0) = 25.2 us, busbw min(0.92 x 400 / 3.8, 39.0) = 39.0, / 2
 *   Tree LL128  14 + 2 (7 x 1.25 + 8.5) = 48.5 us, busbw min(368 x 120/128, 16 x 36.7) = 345, / 2 = 172.5
 *   Tree Simple 8.4 + 2 (7 x 4.0 + 14) = 92.4 us, busbw min(368, 16 x 41.4) = 368, / 2 = 184
 * Switch points (x treeCorrectionFactor[proto][log2(S/64)]): the tree all the way (as NCCL's maintainer
 * says of 2 nodes, github:NVIDIA/nccl-tests#196):
 *   Tree LL -> Tree LL128, log 11 (.5, .6): 23.3 = S (1/9750 - 1/103500)         -> S = 250,802
 *   Tree LL128 -> Tree Simple at 2^29 = 536,870,912, where the factors end: below, LL128 x 1.0 = 172.5
 *   against Simple x 0.9 = 165.6 (log 22); from 2^29, 184 > 172.5 and 44 us < 2^29 (1/172500 - 1/184000)
 *   Ring LL128 (157.01, 75.2 us) never: Tree LL128 x 0.9 = 155.25 is 26.7 us ahead up to 369 MB
 * N = 4: n = 32, nsteps 62, nInterSteps 6, index2 2 (llMaxBw 20.4, perChMaxTreeBw 36.0, TreeLL128 29.0),
 * all at 320:
 *   Ring LL 78.8 us at 20.4 x 32/62; LL128 144.4 us at 294.4 x 32/62 = 151.948; Simple (8.4 + 56 x 3.4 +
 *   6 x 14) x 1.4 = 395.92 us at 320 x 32/62 = 165.161; Tree LL 6.8 + 2 (4.2 + 2 x 5) = 35.2 us at 10.2;
 *   Tree LL128 14 + 2 (8.75 + 17) = 65.5 us at min(276, 464) / 2 = 138
 *   Tree LL -> Tree LL128, log 11: 30.3 = S (1/5100 - 1/82800)                   -> S = 164,673
 *   Tree LL128 -> Ring LL128, log 19 (.9): 78.9 = S (1/124200 - 1/151948.4)      -> S = 53,660,777
 *   Ring LL128 -> Ring Simple: 251.52 = S (1/151948.4 - 1/165161.3)              -> S = 477,725,730
 * AMD hosts, N = 2: Ring LL 6.6 + 28 x 2.0 + 5.4 = 68.0 us at min(22.5, 160). */
static cs_nccl_in h100x(int coll, uint32_t nodes, uint64_t S) {
    cs_nccl_in q = {.coll = coll, .nranks = 8 * nodes, .nbytes = S, .bw_gbps = 400.0, .channels = 16,
                    .arch = CS_NCCL_HOPPER, .nvls = 0, .nnodes = nodes, .net_bw_gbps = 40.0, .cpu = CS_NCCL_CPU_INTEL};
    return q;
}

static void test_multi_node(void **state) {
    (void)state;
    cs_nccl_in q = h100x(CS_NCCL_ALL_REDUCE, 2, 1 << 20);
    double bus, alg;
    uint64_t net;
    NEAR(cs_nccl_time_us(&q, CS_NCCL_RING, CS_NCCL_LL, &bus, &alg, NULL), 40.0 + 1048576.0 / (1000 * 20.8));
    NEAR(bus, 39.0);
    NEAR(cs_nccl_time_us(&q, CS_NCCL_RING, CS_NCCL_LL128, &bus, NULL, NULL), 75.2 + 1048576.0 / (1000 * 294.4 * 16 / 30));
    NEAR(cs_nccl_time_us(&q, CS_NCCL_RING, CS_NCCL_SIMPLE, NULL, NULL, NULL), 184.24 + 1048576.0 / (1000 * 320 * 16 / 30.));
    assert_int_equal(cs_nccl_latency_ns(&q, CS_NCCL_RING, CS_NCCL_SIMPLE, &net), 184240);
    assert_int_equal(net, 39200); /* 2 x 14 us x 1.4 */
    q.nbytes = 16383;             /* 16383 / 256 = 63: no plateau */
    assert_int_equal(cs_nccl_latency_ns(&q, CS_NCCL_RING, CS_NCCL_SIMPLE, NULL), 131600);
    q.nbytes = 1 << 20; /* log2(2^14) = 14: treeCorrectionFactor LL128 .6, LL .5, Simple .5 */
    NEAR(cs_nccl_time_us(&q, CS_NCCL_TREE, CS_NCCL_LL128, &bus, NULL, NULL), 48.5 + 1048576.0 / (1000 * 172.5 * .6));
    NEAR(bus, 345.0);
    assert_int_equal(cs_nccl_latency_ns(&q, CS_NCCL_TREE, CS_NCCL_LL128, &net), 48500);
    assert_int_equal(net, 17000);
    NEAR(cs_nccl_time_us(&q, CS_NCCL_TREE, CS_NCCL_LL, NULL, NULL, NULL), 25.2 + 1048576.0 / (1000 * 19.5 * .5));
    NEAR(cs_nccl_time_us(&q, CS_NCCL_TREE, CS_NCCL_SIMPLE, &bus, NULL, NULL), 92.4 + 1048576.0 / (1000 * 184 * .5));
    NEAR(bus, 368.0);
    /* NVLS needs CollNet across nodes; PAT one GPU per node */
    q.nvls = 1;
    assert_true(cs_nccl_time_us(&q, CS_NCCL_NVLS, CS_NCCL_SIMPLE, NULL, NULL, NULL) < 0);
    q.coll = CS_NCCL_ALL_GATHER;
    assert_true(cs_nccl_time_us(&q, CS_NCCL_PAT, CS_NCCL_SIMPLE, NULL, NULL, NULL) < 0);
    /* switch points (header) */
    expect_choice(h100x(CS_NCCL_ALL_REDUCE, 2, 8), CS_NCCL_TREE, CS_NCCL_LL);
    expect_choice(h100x(CS_NCCL_ALL_REDUCE, 2, 250500), CS_NCCL_TREE, CS_NCCL_LL);
    expect_choice(h100x(CS_NCCL_ALL_REDUCE, 2, 251100), CS_NCCL_TREE, CS_NCCL_LL128);
    expect_choice(h100x(CS_NCCL_ALL_REDUCE, 2, 16u << 20), CS_NCCL_TREE, CS_NCCL_LL128);
    expect_choice(h100x(CS_NCCL_ALL_REDUCE, 2, 536870911), CS_NCCL_TREE, CS_NCCL_LL128);
    expect_choice(h100x(CS_NCCL_ALL_REDUCE, 2, 536870912), CS_NCCL_TREE, CS_NCCL_SIMPLE);
    expect_choice(h100x(CS_NCCL_ALL_REDUCE, 2, 1ull << 34), CS_NCCL_TREE, CS_NCCL_SIMPLE);
    expect_choice(h100x(CS_NCCL_ALL_REDUCE, 4, 164500), CS_NCCL_TREE, CS_NCCL_LL);
    expect_choice(h100x(CS_NCCL_ALL_REDUCE, 4, 164900), CS_NCCL_TREE, CS_NCCL_LL128);
    expect_choice(h100x(CS_NCCL_ALL_REDUCE, 4, 53600000), CS_NCCL_TREE, CS_NCCL_LL128);
    expect_choice(h100x(CS_NCCL_ALL_REDUCE, 4, 53700000), CS_NCCL_RING, CS_NCCL_LL128);
    expect_choice(h100x(CS_NCCL_ALL_REDUCE, 4, 477600000), CS_NCCL_RING, CS_NCCL_LL128);
    expect_choice(h100x(CS_NCCL_ALL_REDUCE, 4, 477900000), CS_NCCL_RING, CS_NCCL_SIMPLE);
    q = h100x(CS_NCCL_ALL_REDUCE, 4, 8);
    assert_int_equal(cs_nccl_latency_ns(&q, CS_NCCL_RING, CS_NCCL_LL, NULL), 78800);
    assert_int_equal(cs_nccl_latency_ns(&q, CS_NCCL_TREE, CS_NCCL_LL128, NULL), 65500);
    NEAR(cs_nccl_time_us(&q, CS_NCCL_RING, CS_NCCL_LL, &bus, NULL, NULL), 78.8 + 8 / (1000 * 20.4 * 32 / 62.));
    NEAR(bus, 20.4);
    /* the NIC bound: with 60 GB/s NICs, min(400, 480) = 400 is NVLink's */
    q.net_bw_gbps = 60.0;
    cs_nccl_time_us(&q, CS_NCCL_RING, CS_NCCL_SIMPLE, &bus, NULL, NULL);
    NEAR(bus, 400.0);
    /* AMD */
    q = h100x(CS_NCCL_ALL_REDUCE, 2, 8);
    q.cpu = CS_NCCL_CPU_AMD;
    assert_int_equal(cs_nccl_latency_ns(&q, CS_NCCL_RING, CS_NCCL_LL, NULL), 68000);
    cs_nccl_time_us(&q, CS_NCCL_RING, CS_NCCL_LL, &bus, NULL, NULL);
    NEAR(bus, 22.5);
}

/* PAT: all-gather on 32 nodes of one GPU (NIC 40 GB/s, bw min(40, 1 x 40) = 40): PAT 8 + log2(32) x 14/3.5
 * + 32 x 2.8 = 117.6 us at busbw 0.75 x 40 = 30 (not converted); Ring LL (ppn 1: the NET Tree latency)
 * 6.6 + 31 x 5.0 = 161.6 us; Ring LL128 14 + 31 x 8.5 = 277.5 us at 36.8 x 32/31.  1 MiB gathered: PAT
 * 117.6 + 34.95 = 152.55 us, Ring LL 161.6 + ...: PAT. */
static void test_pat(void **state) {
    (void)state;
    cs_nccl_in q = {.coll = CS_NCCL_ALL_GATHER, .nranks = 32, .nbytes = 1 << 20, .bw_gbps = 40.0, .channels = 16,
                    .arch = CS_NCCL_HOPPER, .nnodes = 32, .net_bw_gbps = 40.0};
    assert_int_equal(cs_nccl_latency_ns(&q, CS_NCCL_PAT, CS_NCCL_SIMPLE, NULL), 117600);
    assert_int_equal(cs_nccl_latency_ns(&q, CS_NCCL_RING, CS_NCCL_LL, NULL), 161600);
    NEAR(cs_nccl_time_us(&q, CS_NCCL_PAT, CS_NCCL_SIMPLE, NULL, NULL, NULL), 117.6 + 1048576 / 30000.0);
    expect_choice(q, CS_NCCL_PAT, CS_NCCL_SIMPLE);
    assert_true(cs_nccl_time_us(&q, CS_NCCL_PAT, CS_NCCL_LL, NULL, NULL, NULL) < 0);
    q.coll = CS_NCCL_ALL_REDUCE; /* PAT: all-gather and reduce-scatter only */
    assert_true(cs_nccl_time_us(&q, CS_NCCL_PAT, CS_NCCL_SIMPLE, NULL, NULL, NULL) < 0);
}

/* NVLS-tree across nodes (tuning.cc:307-324, 427-428), the nodes of test_multi_node with NVLS: NCCL's NVLS
 * graph has a channel per head, H = ppn = 8; bwIntra = 400 / 8 = 50, bwInter = min(400, 8 x 40) / 8 = 40.
 *   intra 50 x 0.85 x 7/8 x 2 = 74.375; inter 40 x 2 (2 nodes) = 80 or 40 (4 nodes); perChMaxNVLSTreeBw
 *   Hopper 57.7 (N2), 45.5 (N4): busbw 8 x 57.7 = 461.6 (2 nodes), 8 x 40 = 320 (4 nodes); algbw x n/nsteps:
 *   461.6 x 16/30 = 246.187, 320 x 32/62 = 165.161
 *   latency 0 + 25 (hwLat NVLink NVLSTree) + 2 log2(N) x 20.9 (NET NVLSTree): 66.8 us (2 nodes), 108.6 (4)
 * Switch points: 2 nodes Tree/LL128 (48.5 us at 172.5 x 0.8 = 138, log 16) -> NVLSTree: 18.3 = S (1/138000 -
 * 1/246187) -> S = 5,746,733; 4 nodes Tree/LL128 (65.5 us at 138 x 0.9 = 124.2, log 18) -> NVLSTree: 43.1 =
 * S (1/124200 - 1/165161) -> S = 21,584,079; above, NVLSTree to 64 GiB (Ring Simple on 4 nodes has the same
 * 165.161 and 395.92 us).  One node: never a candidate (tuning.cc:500-502). */
static void test_nvls_tree(void **state) {
    (void)state;
    cs_nccl_in q = h100x(CS_NCCL_ALL_REDUCE, 2, 1 << 30);
    q.nvls = 1;
    double bus, alg;
    NEAR(cs_nccl_time_us(&q, CS_NCCL_NVLS_TREE, CS_NCCL_SIMPLE, &bus, &alg, NULL), 66.8 + (1 << 30) / (1000 * 461.6 * 16 / 30.));
    NEAR(bus, 461.6);
    uint64_t net;
    assert_int_equal(cs_nccl_latency_ns(&q, CS_NCCL_NVLS_TREE, CS_NCCL_SIMPLE, &net), 66800);
    assert_int_equal(net, 41800);
    assert_true(cs_nccl_time_us(&q, CS_NCCL_NVLS_TREE, CS_NCCL_LL128, NULL, NULL, NULL) < 0);
    q.nbytes = 5740000;
    expect_choice(q, CS_NCCL_TREE, CS_NCCL_LL128);
    q.nbytes = 5750000;
    expect_choice(q, CS_NCCL_NVLS_TREE, CS_NCCL_SIMPLE);
    q = h100x(CS_NCCL_ALL_REDUCE, 4, 1 << 30);
    q.nvls = 1;
    cs_nccl_time_us(&q, CS_NCCL_NVLS_TREE, CS_NCCL_SIMPLE, &bus, NULL, NULL);
    NEAR(bus, 320.0);
    assert_int_equal(cs_nccl_latency_ns(&q, CS_NCCL_NVLS_TREE, CS_NCCL_SIMPLE, NULL), 108600);
    q.nbytes = 21580000;
    expect_choice(q, CS_NCCL_TREE, CS_NCCL_LL128);
    q.nbytes = 21590000;
    expect_choice(q, CS_NCCL_NVLS_TREE, CS_NCCL_SIMPLE);
    q.nbytes = 1ull << 36;
    expect_choice(q, CS_NCCL_NVLS_TREE, CS_NCCL_SIMPLE);
    /* all-gather, Ampere, one node: no NVLS-tree */
    q.coll = CS_NCCL_ALL_GATHER;
    assert_true(cs_nccl_time_us(&q, CS_NCCL_NVLS_TREE, CS_NCCL_SIMPLE, NULL, NULL, NULL) < 0);
    q = h100x(CS_NCCL_ALL_REDUCE, 2, 1 << 30);
    q.nvls = 1;
    q.arch = CS_NCCL_AMPERE;
    assert_true(cs_nccl_time_us(&q, CS_NCCL_NVLS_TREE, CS_NCCL_SIMPLE, NULL, NULL, NULL) < 0);
    q = h100(CS_NCCL_ALL_REDUCE, 1 << 30, 1);
    assert_true(cs_nccl_time_us(&q, CS_NCCL_NVLS_TREE, CS_NCCL_SIMPLE, NULL, NULL, NULL) < 0);
}

/* CollNet (SHARP; tuning.cc:152, 160, 172-173, 306, 338-349, 376-382, 418-426, 503-509; enqueue.cc:2000-2008),
 * the h100x nodes (8 Hopper GPUs, NVLink 400, NIC 40 GB/s, C = 16, Intel) with nccl-collnet on a Switch NET:
 *   CollNet Direct: H = min(8, ppn) = 8 heads; nChannels x bwIntra = min(400, 2 x 8 x 40 = 640) = 400; GPU:NIC
 *     f = 8/8 = 1 (no loss); x 0.85 (Hopper) = 340 busbw, x 0.5 = 170 algbw; latency 0 + 2 (min(1, 7) x 3.7 +
 *     7 x 0.4) + 31 = 44.0 us -- on any number of nodes (SHARP reduces in the switch: no log2(N) term)
 *   CollNet Chain: nChannels x bwIntra = min(400, 2 x 8 x 40) = 400 busbw, algbw 200; latency 2 x 7 x 2.8 + 30
 *     = 69.2 us
 *   Direct -> Chain: 25.2 = S (1/170000 - 1/200000) = S x 30000 / 3.4e10 -> S = 28,560,000 B (any N)
 * N = 2 (Tree LL 25.2 us at 19.5 x treeCorrectionFactor, Tree LL128 48.5 at 172.5 x factor: test_multi_node):
 *   Tree LL -> Direct, log 11 (.5): 18.8 = S (1/9750 - 1/170000)                  -> S = 194,455 B
 *   (before Tree LL128's 250,802; Tree LL128 never: Direct has less latency and, but from 2^27 where Chain
 *   is already ahead, more bandwidth than 172.5 x factor)
 * N = 4 (Tree LL 35.2 us at 10.2 x factor):
 *   Tree LL -> Direct: at 65,535 B (log 9, .7) Tree LL 35.2 + 65535/7140 = 44.3786 us < Direct 44 + 65535/170000
 *   = 44.3855; at 65,536 (log 10, .6) Tree LL 45.909: Direct from 2^16 exactly
 * NVLS on (N = 4): NVLS across nodes (NVLS + SHARP) on the NVLS graph, H = 8 heads: per channel min(50 x 0.85 x
 *   7/8 x 2 = 74.375, min(400, 8 x 40)/8 = 40) -> busbw 320, algbw 320 x 32/62 = 165.161; latency 25 + 18 = 43 us:
 *   Tree LL -> NVLS, log 9 (.7): 7.8 = S (1/7140 - 1/165161.29)                    -> S = 58,208 B
 *   NVLS -> Direct: 1.0 = S (1/165161.29 - 1/170000)                              -> S = 5,802,247 B
 *   (NVLS-tree, 108.6 us at 8 min(74.375, 40, 45.5) = 320, never)
 * Not candidates: nccl-collnet off; all-gather; LL / LL128; more than 8 GPUs a node; Direct without an
 * NVSwitch (Chain stays); one node. */
static void test_collnet(void **state) {
    (void)state;
    cs_nccl_in q = h100x(CS_NCCL_ALL_REDUCE, 4, 1 << 20);
    double bus, alg;
    assert_true(cs_nccl_time_us(&q, CS_NCCL_COLLNET_DIRECT, CS_NCCL_SIMPLE, NULL, NULL, NULL) < 0); /* off */
    q.collnet = 1;
    q.nvswitch = 1;
    NEAR(cs_nccl_time_us(&q, CS_NCCL_COLLNET_DIRECT, CS_NCCL_SIMPLE, &bus, &alg, NULL), 44.0 + 1048576.0 / 170000);
    NEAR(bus, 340.0);
    NEAR(alg, 170.0);
    NEAR(cs_nccl_time_us(&q, CS_NCCL_COLLNET_CHAIN, CS_NCCL_SIMPLE, &bus, &alg, NULL), 69.2 + 1048576.0 / 200000);
    NEAR(bus, 400.0);
    uint64_t net;
    assert_int_equal(cs_nccl_latency_ns(&q, CS_NCCL_COLLNET_DIRECT, CS_NCCL_SIMPLE, &net), 44000);
    assert_int_equal(net, 31000);
    assert_int_equal(cs_nccl_latency_ns(&q, CS_NCCL_COLLNET_CHAIN, CS_NCCL_SIMPLE, &net), 69200);
    assert_int_equal(net, 30000);
    q.nnodes = 64; /* no log2(N): the same latency on 64 nodes */
    q.nranks = 512;
    assert_int_equal(cs_nccl_latency_ns(&q, CS_NCCL_COLLNET_DIRECT, CS_NCCL_SIMPLE, NULL), 44000);
    q = h100x(CS_NCCL_ALL_REDUCE, 4, 1 << 20);
    q.collnet = 1;
    assert_true(cs_nccl_time_us(&q, CS_NCCL_COLLNET_DIRECT, CS_NCCL_SIMPLE, NULL, NULL, NULL) < 0); /* no NVSwitch */
    assert_true(cs_nccl_time_us(&q, CS_NCCL_COLLNET_CHAIN, CS_NCCL_SIMPLE, NULL, NULL, NULL) > 0);
    q.nvswitch = 1;
    assert_true(cs_nccl_time_us(&q, CS_NCCL_COLLNET_DIRECT, CS_NCCL_LL128, NULL, NULL, NULL) < 0);
    assert_true(cs_nccl_time_us(&q, CS_NCCL_COLLNET_CHAIN, CS_NCCL_LL, NULL, NULL, NULL) < 0);
    q.coll = CS_NCCL_ALL_GATHER;
    assert_true(cs_nccl_time_us(&q, CS_NCCL_COLLNET_DIRECT, CS_NCCL_SIMPLE, NULL, NULL, NULL) < 0);
    q.coll = CS_NCCL_ALL_REDUCE;
    q.nranks = 4 * 16; /* 16 GPUs a node: more than NCCL_MAX_DIRECT_ARITY + 1 */
    assert_true(cs_nccl_time_us(&q, CS_NCCL_COLLNET_DIRECT, CS_NCCL_SIMPLE, NULL, NULL, NULL) < 0);
    assert_true(cs_nccl_time_us(&q, CS_NCCL_COLLNET_CHAIN, CS_NCCL_SIMPLE, NULL, NULL, NULL) < 0);
    cs_nccl_in one = h100(CS_NCCL_ALL_REDUCE, 1 << 20, 0);
    one.collnet = one.nvswitch = 1;
    assert_true(cs_nccl_time_us(&one, CS_NCCL_COLLNET_DIRECT, CS_NCCL_SIMPLE, NULL, NULL, NULL) < 0);
    /* switch points */
    static const struct { uint32_t N; int nvls; uint64_t S; int algo, proto; } P[] = {
        {2, 0, 194000, CS_NCCL_TREE, CS_NCCL_LL},
        {2, 0, 195000, CS_NCCL_COLLNET_DIRECT, CS_NCCL_SIMPLE},
        {2, 0, 28500000, CS_NCCL_COLLNET_DIRECT, CS_NCCL_SIMPLE},
        {2, 0, 28600000, CS_NCCL_COLLNET_CHAIN, CS_NCCL_SIMPLE},
        {2, 0, 1ull << 34, CS_NCCL_COLLNET_CHAIN, CS_NCCL_SIMPLE},
        {4, 0, 65535, CS_NCCL_TREE, CS_NCCL_LL},
        {4, 0, 65536, CS_NCCL_COLLNET_DIRECT, CS_NCCL_SIMPLE},
        {4, 0, 28500000, CS_NCCL_COLLNET_DIRECT, CS_NCCL_SIMPLE},
        {4, 0, 28600000, CS_NCCL_COLLNET_CHAIN, CS_NCCL_SIMPLE},
        {4, 1, 58100, CS_NCCL_TREE, CS_NCCL_LL},
        {4, 1, 58300, CS_NCCL_NVLS, CS_NCCL_SIMPLE},
        {4, 1, 5800000, CS_NCCL_NVLS, CS_NCCL_SIMPLE},
        {4, 1, 5805000, CS_NCCL_COLLNET_DIRECT, CS_NCCL_SIMPLE},
        {4, 1, 28600000, CS_NCCL_COLLNET_CHAIN, CS_NCCL_SIMPLE},
    };
    for (size_t i = 0; i < sizeof P / sizeof P[0]; i++) {
        cs_nccl_in c = h100x(CS_NCCL_ALL_REDUCE, P[i].N, P[i].S);
        c.collnet = c.nvswitch = 1;
        c.nvls = P[i].nvls;
        expect_choice(c, P[i].algo, P[i].proto);
    }
    q = h100x(CS_NCCL_ALL_REDUCE, 4, 1 << 20);
    q.collnet = q.nvswitch = q.nvls = 1;
    NEAR(cs_nccl_time_us(&q, CS_NCCL_NVLS, CS_NCCL_SIMPLE, &bus, &alg, NULL), 43.0 + 1048576.0 / (320000 * 32 / 62.));
    NEAR(bus, 320.0);
    assert_int_equal(cs_nccl_latency_ns(&q, CS_NCCL_NVLS, CS_NCCL_SIMPLE, &net), 43000);
    assert_int_equal(net, 18000);
}

/* NVLS-tree and NVLS across nodes on more than 32 GPUs a node: NCCL's NVLS graph has at most 32 heads
 * (search.cc:1126-1127).  2 nodes of 64 GPUs, NVLink 400, NIC 40: H = 32, per channel min(400/32 x 0.85 x
 * 31/32 x 2 = 20.586, min(400, 32 x 40)/32 x 2 = 25, 57.7) = 20.586 -> busbw 32 x 20.586 = 658.75 (with H =
 * 64 it would be 64 x min(6.25 x 0.85 x 63/64 x 2, 6.25 x 2, 57.7) = 669.4). */
static void test_nvls_heads_cap(void **state) {
    (void)state;
    cs_nccl_in q = h100x(CS_NCCL_ALL_REDUCE, 2, 1 << 30);
    q.nranks = 128;
    q.nvls = 1;
    double bus;
    cs_nccl_time_us(&q, CS_NCCL_NVLS_TREE, CS_NCCL_SIMPLE, &bus, NULL, NULL);
    NEAR(bus, 400 * 0.85 * 31 / 32 * 2);
}

/* The channels NCCL runs a choice on (enqueue.cc:2092-2096): nc = 16, less one while nBytes < nc x nt
 * x threshold and nc >= 2, i.e. nc = min(16, max(1, floor(nBytes / (nt threshold)))); per channel
 * nt x threshold = Ring LL 512 x 8 x 8 ranks = 32768, LL128 640 x 8 = 5120, Simple 512 x 64 = 32768
 * (256 x 64 = 16384 when the ring's bandwidth is at most PCI_BW, 12 GB/s), Tree LL 512 x 8 = 4096.
 * NVLS keeps its own graph's (the model's C = 16 unchanged), PAT all (maxThreads 0). */
static void test_run_channels(void **state) {
    (void)state;
    struct { int a, p; uint64_t S; int nc; } cases[] = {
        {CS_NCCL_RING, CS_NCCL_LL, 8, 1},           {CS_NCCL_RING, CS_NCCL_LL, 65535, 1},
        {CS_NCCL_RING, CS_NCCL_LL, 65536, 2},       {CS_NCCL_RING, CS_NCCL_LL, 524287, 15},
        {CS_NCCL_RING, CS_NCCL_LL, 524288, 16},     {CS_NCCL_RING, CS_NCCL_LL, 1 << 30, 16},
        {CS_NCCL_RING, CS_NCCL_LL128, 81919, 15},   {CS_NCCL_RING, CS_NCCL_LL128, 81920, 16},
        {CS_NCCL_RING, CS_NCCL_LL128, 10240, 2},    {CS_NCCL_RING, CS_NCCL_SIMPLE, 327680, 10},
        {CS_NCCL_TREE, CS_NCCL_LL, 40960, 10},      {CS_NCCL_TREE, CS_NCCL_SIMPLE, 524288, 16},
        {CS_NCCL_NVLS, CS_NCCL_SIMPLE, 8, 16},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cs_nccl_in q = h100(CS_NCCL_ALL_REDUCE, cases[i].S, 1);
        assert_int_equal(cs_nccl_run_channels(&q, cases[i].a, cases[i].p), cases[i].nc);
    }
    cs_nccl_in slow = h100(CS_NCCL_ALL_REDUCE, 327680, 0);
    slow.bw_gbps = 12.0; /* 256 threads: 20 channels' worth, capped at 16 */
    assert_int_equal(cs_nccl_run_channels(&slow, CS_NCCL_RING, CS_NCCL_SIMPLE), 16);
    slow.nbytes = 163840; /* 10 x 16384 */
    assert_int_equal(cs_nccl_run_channels(&slow, CS_NCCL_RING, CS_NCCL_SIMPLE), 10);
    /* the choice keeps NCCL's prediction (all channels); the run's bandwidth is nc's: Ring/LL at 64 KiB
     * on 2 channels, busbw min(141, 2 x 400/16 x 0.5) = 25 (NCCL's 141 with 16), algbw 25 x 8/14 */
    cs_nccl_in q = h100(CS_NCCL_ALL_REDUCE, 65536, 0);
    cs_nccl_choice ch;
    assert_int_equal(cs_nccl_choose(&q, &ch), 0);
    assert_int_equal(ch.algo, CS_NCCL_RING);
    assert_int_equal(ch.proto, CS_NCCL_LL);
    assert_int_equal(ch.run_channels, 2);
    NEAR(ch.time_us, 15.0 + 65536 / (1000 * 141 * 8.0 / 14));
    NEAR(ch.busbw_gbps, 25.0);
    NEAR(ch.effbw_gbps, 25.0 * 8 / 14);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_predicted_times),
        cmocka_unit_test(test_switch_points),
        cmocka_unit_test(test_ampere_caps),
        cmocka_unit_test(test_tree_never_least),
        cmocka_unit_test(test_multi_node),
        cmocka_unit_test(test_pat),
        cmocka_unit_test(test_nvls_tree),
        cmocka_unit_test(test_collnet),
        cmocka_unit_test(test_nvls_heads_cap),
        cmocka_unit_test(test_run_channels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
