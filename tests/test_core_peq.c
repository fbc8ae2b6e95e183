/*
 * test_core_peq.c -- the parallel event engine (src/core/peq.h) pops every
 * event in the order of the sequential queue (src/core/eventq.h).
 *
 * The model: N ranks, each folding every event it handles -- (time, key,
 * payload), in order -- into a running hash (a non-commutative mix, so any
 * change of order at a rank changes its hash), and deriving from that hash
 * its next events: 0 to 2 children, each at the same rank (delay 0, 1 or
 * 2 ns) or at another rank (delay L + 0..2 ns, L = 1 ns the lookahead),
 * with the key of its cause (most often), a fresh (rank, counter) key, or
 * a small key -- at delay 0 often below the cause's own, which the queue
 * pops next although it sorts before events already popped (the merge of
 * the pop logs must replay that, not sort by (time, key, seq)).
 * All times are whole nanoseconds and keys are inherited across ranks, so
 * one rank often receives, in one picosecond, events of one key from ranks
 * of different partitions: exactly the ties the engine's barrier must
 * order as the sequential run does (cs_peq_stats.merges counts them, and
 * the test requires that they happen).
 *
 * The expected result is the sequential run of the same model on one
 * cs_eventq: each rank's hash and event count, and the total events, must
 * be identical for every partition count (1..5), partition map (blocks,
 * round robin) and thread count (1, 2, P).  A push that breaks the
 * lookahead must fail the run with an error naming it.
 */
#include "testutil.h"

#include <string.h>

#include "core/alloc.h"
#include "core/eventq.h"
#include "core/peq.h"

#define NS 1000ULL /* ps */
#define MAXR 96

typedef struct rank_st {
    uint64_t h, n, counter;
} rank_st;

typedef struct model {
    uint32_t nranks;
    uint64_t budget; /* events per rank after which it makes no more */
    uint64_t seed;   /* varies the run (initial hashes) */
    cs_time look;    /* the remote delay's minimum */
    rank_st r[MAXR];
    /* the engine */
    cs_eventq *eq;
    cs_peq *pq;
    uint32_t nparts;
    int round_robin;
} model;

static uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
    h *= 0xBF58476D1CE4E5B9ULL;
    return h ^ (h >> 31);
}

static uint32_t part_of(const model *m, uint32_t rank) {
    if (m->round_robin) return rank % m->nparts;
    return (uint32_t)((uint64_t)rank * m->nparts / m->nranks);
}

typedef void (*push_fn)(model *m, void *eng, uint32_t dst, cs_time t, uint64_t key, uint64_t arg);

/* arg = rank << 32 | payload */
static void model_event(model *m, void *eng, push_fn push, cs_time now, uint64_t key, uint64_t arg) {
    uint32_t rank = (uint32_t)(arg >> 32);
    rank_st *st = &m->r[rank];
    st->h = mix(mix(mix(st->h, now), key), arg & 0xffffffffu);
    st->n++;
    if (st->n > m->budget) return;
    uint64_t x = st->h;
    int kids = (int)(x % 5) < 2 ? 1 : 2; /* 1 or 2, so the population lives until the budget ends it */
    if (x % 7 == 0) kids = 0;
    for (int j = 0; j < kids; j++) {
        uint64_t y = mix(x, (uint64_t)j + 1);
        uint32_t dst = rank;
        cs_time t = now + (y >> 8) % 3 * NS;
        if ((y >> 4) % 3 != 0) { /* remote */
            dst = (uint32_t)((rank + 1 + (y >> 12) % (m->nranks - 1)) % m->nranks);
            t = now + m->look + (y >> 20) % 3 * NS;
        }
        uint64_t sel = (y >> 28) % 16, k = key;
        if (sel < 2) k = (uint64_t)rank << 32 | st->counter++; /* a fresh key */
        else if (sel == 2) k = m->seed % 3;  /* a small key: at delay 0 below the cause's, popped next */
        push(m, eng, dst, t, k, (uint64_t)dst << 32 | ((y >> 40) & 0xffff));
    }
}

/* ---- sequential ---- */

static void seq_handler(void *ctx, const cs_event *ev);

static void seq_push(model *m, void *eng, uint32_t dst, cs_time t, uint64_t key, uint64_t arg) {
    (void)dst;
    cs_eventq_push(eng, t, key, seq_handler, m, arg);
}

/* Pops of the sequential run that sort before the pop before them. */
static uint64_t g_inversions;
static cs_event g_last;
/* Distinct times of the sequential run's pops: with whole-nanosecond times
 * and a 1 ns lookahead every parallel window holds exactly one of them, so
 * that is the window count the engine must report (a window planned too
 * early or too late changes it). */
static uint64_t g_times;

static void seq_handler(void *ctx, const cs_event *ev) {
    model *m = ctx;
    if (ev->time == g_last.time && (ev->key < g_last.key || (ev->key == g_last.key && ev->seq < g_last.seq)))
        g_inversions++;
    if (!g_times || ev->time != g_last.time) g_times++;
    g_last = *ev;
    model_event(m, m->eq, seq_push, ev->time, ev->key, ev->arg);
}

/* ---- parallel ---- */

static void par_handler(cs_peq_part *p, void *ctx, const cs_event *ev);

static void par_push(model *m, void *eng, uint32_t dst, cs_time t, uint64_t key, uint64_t arg) {
    cs_peq_push(eng, part_of(m, dst), t, key, par_handler, m, arg);
}

static void par_handler(cs_peq_part *p, void *ctx, const cs_event *ev) {
    model *m = ctx;
    assert_int_equal(cs_peq_now(p), ev->time);
    model_event(m, p, par_push, ev->time, ev->key, ev->arg);
}

/* Initial events: two per rank at time 0 and 3 ns, keys from a small set
 * (shared by many ranks), pushed in rank order. */
static uint64_t g_seed;

static void init_model(model *m, uint32_t nranks, uint64_t budget) {
    memset(m, 0, sizeof *m);
    m->nranks = nranks;
    m->budget = budget;
    m->look = NS;
    m->seed = g_seed;
    for (uint32_t r = 0; r < nranks; r++) m->r[r].h = mix(g_seed, r);
}

static uint64_t run_seq(model *m, uint32_t nranks, uint64_t budget) {
    init_model(m, nranks, budget);
    m->eq = cs_eventq_new();
    memset(&g_last, 0, sizeof g_last);
    g_times = 0;
    for (uint32_t r = 0; r < nranks; r++) {
        cs_eventq_push(m->eq, 0, r % 3, seq_handler, m, (uint64_t)r << 32 | r);
        cs_eventq_push(m->eq, 3 * NS, r % 2, seq_handler, m, (uint64_t)r << 32 | (r + 7));
    }
    uint64_t n = cs_eventq_run(m->eq, CS_TIME_MAX);
    cs_eventq_free(m->eq);
    return n;
}

static int g_always_filter; /* the tie check through the filters even for little mail */

static int run_par(model *m, uint32_t nranks, uint64_t budget, uint32_t nparts, int rr, uint32_t threads,
                   cs_peq_stats *st, cs_error *err) {
    init_model(m, nranks, budget);
    m->nparts = nparts;
    m->round_robin = rr;
    m->pq = cs_peq_new(nparts, m->look);
    if (g_always_filter) cs_peq_set_filter_from(m->pq, 0);
    for (uint32_t r = 0; r < nranks; r++) {
        cs_peq_push_initial(m->pq, part_of(m, r), 0, r % 3, par_handler, m, (uint64_t)r << 32 | r);
        cs_peq_push_initial(m->pq, part_of(m, r), 3 * NS, r % 2, par_handler, m, (uint64_t)r << 32 | (r + 7));
    }
    int rc = cs_peq_run(m->pq, threads, err);
    cs_peq_get_stats(m->pq, st);
    cs_peq_free(m->pq);
    return rc;
}

static void check_case(uint32_t nranks, uint64_t budget) {
    static model ref, par;
    uint64_t n = run_seq(&ref, nranks, budget), times = g_times;
    assert_true(n > nranks * budget / 2); /* the population lived */
    uint64_t merges[2] = {0, 0};
    for (g_always_filter = 0; g_always_filter < 2; g_always_filter++)
    for (uint32_t P = 1; P <= 5; P++)
        for (int rr = 0; rr < 2; rr++) {
            uint32_t threads[3] = {1, 2, P};
            for (int ti = 0; ti < 3; ti++) {
                cs_peq_stats st;
                cs_error err;
                cs_error_clear(&err);
                assert_int_equal(run_par(&par, nranks, budget, P, rr, threads[ti], &st, &err), CS_OK);
                assert_int_equal(st.dispatched, n);
                assert_int_equal(st.windows, times);
                for (uint32_t r = 0; r < nranks; r++) {
                    if (par.r[r].h != ref.r[r].h || par.r[r].n != ref.r[r].n)
                        fail_msg("P=%u %s threads=%u: rank %u differs (%llu events vs %llu)", P,
                                 rr ? "round-robin" : "blocks", threads[ti], r, (unsigned long long)par.r[r].n,
                                 (unsigned long long)ref.r[r].n);
                }
                if (P > 1) {
                    assert_true(st.windows > 1);
                    assert_true(st.mailed > 0);
                }
                merges[g_always_filter] += st.merges;
            }
        }
    /* the cross-partition ties happened and were ordered, with and without the filters */
    assert_true(merges[0] > 0 && merges[1] > 0);
}

static void test_small(void **state) {
    (void)state;
    check_case(12, 60);
}

static void test_larger(void **state) {
    (void)state;
    check_case(MAXR, 400);
}

/* Many runs: 20 seeds of a mid-sized model. */
static void test_seeds(void **state) {
    (void)state;
    g_inversions = 0;
    for (g_seed = 1; g_seed <= 20; g_seed++) check_case(24, 80);
    g_seed = 0;
    assert_true(g_inversions > 0); /* the out-of-order pops happened */
}

/* The order really is tested: two different tie orders at one rank give
 * different hashes (the mix does not commute). */
static void test_mix_order_sensitive(void **state) {
    (void)state;
    assert_true(mix(mix(1, 2), 3) != mix(mix(1, 3), 2));
}

/* The window after a barrier starts at the earliest mail, not at the last
 * mailed: partition 0 at 0 ns mails partition 1 an event at 5 ns, then one
 * at 10 ns; partition 1, whose queue is empty, handles the 5 ns one by
 * mailing partition 0 an event at 6 ns.  Pops: 0, 5, 6, 10 ns, in four
 * windows (a window planned from the latest mail would start at 10 ns and
 * the 6 ns event would break the lookahead). */
static int g_order[8], g_norder;
static void earliest_handler(cs_peq_part *p, void *ctx, const cs_event *ev) {
    (void)ctx;
    if (g_norder < 8) g_order[g_norder++] = (int)ev->arg;
    if (ev->arg == 0) {
        cs_peq_push(p, 1, 5 * NS, 1, earliest_handler, NULL, 5);
        cs_peq_push(p, 1, 10 * NS, 1, earliest_handler, NULL, 10);
    } else if (ev->arg == 5) {
        cs_peq_push(p, 0, 6 * NS, 1, earliest_handler, NULL, 6);
    }
}

static void test_mail_earliest(void **state) {
    (void)state;
    for (uint32_t threads = 1; threads <= 2; threads++) {
        g_norder = 0;
        cs_peq *q = cs_peq_new(2, NS);
        cs_peq_push_initial(q, 0, 0, 0, earliest_handler, NULL, 0);
        cs_error err;
        cs_error_clear(&err);
        int rc = cs_peq_run(q, threads, &err);
        if (rc) fail_msg("threads %u: %s", threads, err.msg);
        cs_peq_stats st;
        cs_peq_get_stats(q, &st);
        assert_int_equal(g_norder, 4);
        assert_int_equal(g_order[0], 0);
        assert_int_equal(g_order[1], 5);
        assert_int_equal(g_order[2], 6);
        assert_int_equal(g_order[3], 10);
        assert_int_equal(st.windows, 4);
        assert_int_equal(st.mailed, 3);
        cs_peq_free(q);
    }
}

/* A handler pushing into another partition sooner than the lookahead. */
static void bad_handler(cs_peq_part *p, void *ctx, const cs_event *ev) {
    (void)ctx;
    if (ev->arg == 0) cs_peq_push(p, 1, cs_peq_now(p) + 10, 0, bad_handler, NULL, 1);
}

static void test_lookahead_violation(void **state) {
    (void)state;
    cs_peq *q = cs_peq_new(2, NS);
    cs_peq_push_initial(q, 0, 5 * NS, 0, bad_handler, NULL, 0);
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_peq_run(q, 2, &err), CS_EINTERNAL);
    assert_non_null(strstr(err.msg, "sooner than the lookahead"));
    assert_non_null(strstr(err.msg, "5010 ps"));
    cs_peq_free(q);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small),
        cmocka_unit_test(test_larger),
        cmocka_unit_test(test_seeds),
        cmocka_unit_test(test_mix_order_sensitive),
        cmocka_unit_test(test_lookahead_violation),
        cmocka_unit_test(test_mail_earliest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
