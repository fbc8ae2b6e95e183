/*
 * test_core_eventq.c -- unit and property tests for the event queue
 * (src/core/eventq.h).
 *
 * Hand-built scenarios check ordering by (time, key, seq), FIFO among equal
 * (time, key), lazy cancellation, cs_eventq_run's bound and handlers that
 * schedule more work at the current time.  A randomized test drives 100k
 * mixed push/pop/step/cancel/run operations (fixed-seed xorshift) against a
 * plain sorted array that models the documented semantics, comparing every
 * event, the clock and the pending count after each operation.
 */
#include "testutil.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/eventq.h"

/* ---- helpers ------------------------------------------------------------ */

#define REC_MAX 64

/* What handlers saw, in dispatch order. */
typedef struct rec {
    cs_eventq *q;
    size_t n;
    cs_event ev[REC_MAX];
} rec;

static void record(void *ctx, const cs_event *ev) {
    rec *r = ctx;
    assert_true(r->n < REC_MAX);
    r->ev[r->n++] = *ev;
}

static void noop(void *ctx, const cs_event *ev) {
    (void)ctx;
    (void)ev;
}

/* xorshift64: a fixed-seed generator of our own so the test is reproducible
 * everywhere (rand() differs between C libraries). */
static uint64_t xs_state;
static uint64_t xs(void) {
    uint64_t x = xs_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return xs_state = x;
}

/* (time, key, seq) strictly before? -- written independently of eventq.c */
static int ev_less(cs_time ta, uint64_t ka, uint64_t sa, cs_time tb, uint64_t kb, uint64_t sb) {
    if (ta != tb) return ta < tb;
    if (ka != kb) return ka < kb;
    return sa < sb;
}

/* ---- basic behaviour ------------------------------------------------------ */

static void test_empty_queue(void **state) {
    (void)state;
    cs_eventq *q = cs_eventq_new();
    assert_non_null(q);
    cs_event e;
    assert_int_equal(cs_eventq_now(q), 0);
    assert_int_equal(cs_eventq_size(q), 0);
    assert_int_equal(cs_eventq_pop(q, &e), 0);
    assert_int_equal(cs_eventq_step(q), 0);
    assert_int_equal(cs_eventq_run(q, CS_TIME_MAX), 0);
    assert_int_equal(cs_eventq_dispatched(q), 0);
    cs_eventq_free(q);
    cs_eventq_free(NULL); /* allowed, like free(NULL) */
}

static void test_ids_and_fields(void **state) {
    (void)state;
    cs_eventq *q = cs_eventq_new();
    int ctx_a, ctx_b;
    uint64_t a = cs_eventq_push(q, 5, 11, noop, &ctx_a, 0xAAAAULL);
    uint64_t b = cs_eventq_push(q, 3, 22, record, &ctx_b, 0xBBBBULL);
    assert_true(b > a); /* ids follow insertion order */
    assert_int_equal(cs_eventq_size(q), 2);

    cs_event e;
    assert_int_equal(cs_eventq_pop(q, &e), 1);
    assert_int_equal(e.time, 3);
    assert_int_equal(e.key, 22);
    assert_int_equal(e.seq, b);
    assert_true(e.fn == record);
    assert_ptr_equal(e.ctx, &ctx_b);
    assert_int_equal(e.arg, 0xBBBBULL);
    assert_int_equal(cs_eventq_now(q), 3);

    assert_int_equal(cs_eventq_pop(q, &e), 1);
    assert_int_equal(e.time, 5);
    assert_int_equal(e.key, 11);
    assert_int_equal(e.seq, a);
    assert_true(e.fn == noop);
    assert_ptr_equal(e.ctx, &ctx_a);
    assert_int_equal(e.arg, 0xAAAAULL);
    assert_int_equal(cs_eventq_now(q), 5);
    assert_int_equal(cs_eventq_pop(q, &e), 0);
    assert_int_equal(cs_eventq_now(q), 5); /* an empty pop does not move the clock */
    cs_eventq_free(q);
}

static void test_order_time_then_key_then_seq(void **state) {
    (void)state;
    cs_eventq *q = cs_eventq_new();
    /* arg = expected pop position */
    cs_eventq_push(q, 30, 0, noop, NULL, 6);
    cs_eventq_push(q, 10, 5, noop, NULL, 3);
    cs_eventq_push(q, 10, 2, noop, NULL, 1);           /* (10,2) first inserted */
    cs_eventq_push(q, 20, 0, noop, NULL, 4);
    cs_eventq_push(q, 10, 2, noop, NULL, 2);           /* (10,2) second inserted */
    cs_eventq_push(q, 20, UINT64_MAX, noop, NULL, 5);  /* big key loses to (20,0)... */
    cs_eventq_push(q, 9, UINT64_MAX, noop, NULL, 0);   /* ...but time dominates key */
    cs_eventq_push(q, CS_TIME_MAX, 0, noop, NULL, 7);  /* the end of time is valid */
    cs_event e;
    for (uint64_t i = 0; i < 8; i++) {
        assert_int_equal(cs_eventq_pop(q, &e), 1);
        assert_int_equal(e.arg, i);
    }
    assert_int_equal(cs_eventq_pop(q, &e), 0);
    assert_true(cs_eventq_now(q) == CS_TIME_MAX);
    cs_eventq_free(q);
}

static void test_fifo_among_identical(void **state) {
    (void)state;
    cs_eventq *q = cs_eventq_new();
    /* Interleave two (time,key) groups and a decoy at an earlier time so the
     * heap really has to reorder; within each group insertion order rules. */
    for (uint64_t i = 0; i < 200; i++) {
        cs_eventq_push(q, 1000, 7, noop, NULL, i);
        cs_eventq_push(q, 1000, 3, noop, NULL, 1000 + i);
        if (i % 10 == 0) cs_eventq_push(q, 999, 7, noop, NULL, 5000 + i);
    }
    cs_event e;
    for (uint64_t i = 0; i < 20; i++) {
        assert_int_equal(cs_eventq_pop(q, &e), 1);
        assert_int_equal(e.arg, 5000 + 10 * i);
    }
    for (uint64_t i = 0; i < 200; i++) {
        assert_int_equal(cs_eventq_pop(q, &e), 1);
        assert_int_equal(e.key, 3);
        assert_int_equal(e.arg, 1000 + i);
    }
    for (uint64_t i = 0; i < 200; i++) {
        assert_int_equal(cs_eventq_pop(q, &e), 1);
        assert_int_equal(e.key, 7);
        assert_int_equal(e.arg, i);
    }
    assert_int_equal(cs_eventq_size(q), 0);
    cs_eventq_free(q);
}

static void test_now_never_decreases(void **state) {
    (void)state;
    cs_eventq *q = cs_eventq_new();
    xs_state = 0x9E3779B97F4A7C15ULL;
    for (int i = 0; i < 5000; i++) cs_eventq_push(q, xs() % 100000, xs() % 3, noop, NULL, 0);
    cs_time prev = 0;
    cs_event e;
    size_t popped = 0;
    while (cs_eventq_pop(q, &e)) {
        assert_true(cs_eventq_now(q) >= prev);
        assert_int_equal(cs_eventq_now(q), e.time);
        /* pushing at now (never earlier) is allowed mid-run */
        if (popped % 7 == 0 && popped < 2000)
            cs_eventq_push(q, cs_eventq_now(q), 0, noop, NULL, 0);
        prev = cs_eventq_now(q);
        popped++;
    }
    assert_int_equal(popped, 5000 + 286); /* 0,7,...,1995: 286 extra pushes */
    cs_eventq_free(q);
}

/* ---- cancellation --------------------------------------------------------- */

static void test_cancel_pending(void **state) {
    (void)state;
    cs_eventq *q = cs_eventq_new();
    uint64_t a = cs_eventq_push(q, 10, 0, noop, NULL, 1);
    uint64_t b = cs_eventq_push(q, 20, 0, noop, NULL, 2);
    uint64_t c = cs_eventq_push(q, 30, 0, noop, NULL, 3);
    cs_eventq_cancel(q, b);
    assert_int_equal(cs_eventq_size(q), 3); /* lazy: still in the heap */
    cs_event e;
    assert_int_equal(cs_eventq_pop(q, &e), 1);
    assert_int_equal(e.seq, a);
    assert_int_equal(cs_eventq_pop(q, &e), 1);
    assert_int_equal(e.seq, c); /* b skipped */
    assert_int_equal(cs_eventq_now(q), 30);
    assert_int_equal(cs_eventq_pop(q, &e), 0);
    assert_int_equal(cs_eventq_size(q), 0);
    cs_eventq_free(q);
}

static void test_cancel_min_and_only(void **state) {
    (void)state;
    cs_eventq *q = cs_eventq_new();
    uint64_t a = cs_eventq_push(q, 10, 0, noop, NULL, 1);
    cs_eventq_cancel(q, a);
    cs_event e;
    assert_int_equal(cs_eventq_pop(q, &e), 0); /* only a tombstone left */
    assert_int_equal(cs_eventq_size(q), 0);
    assert_int_equal(cs_eventq_now(q), 0);     /* a cancelled event never moves time */
    assert_int_equal(cs_eventq_step(q), 0);
    assert_int_equal(cs_eventq_dispatched(q), 0);
    cs_eventq_free(q);
}

static void test_cancel_twice(void **state) {
    (void)state;
    cs_eventq *q = cs_eventq_new();
    uint64_t a = cs_eventq_push(q, 10, 0, noop, NULL, 1);
    uint64_t b = cs_eventq_push(q, 20, 0, noop, NULL, 2);
    uint64_t c = cs_eventq_push(q, 30, 0, noop, NULL, 3);
    cs_eventq_cancel(q, b);
    cs_eventq_cancel(q, b);
    cs_event e;
    assert_int_equal(cs_eventq_pop(q, &e), 1);
    assert_int_equal(e.seq, a);
    assert_int_equal(cs_eventq_pop(q, &e), 1);
    assert_int_equal(e.seq, c);
    assert_int_equal(cs_eventq_pop(q, &e), 0);
    cs_eventq_cancel(q, b); /* and once more after it was discarded */
    uint64_t d = cs_eventq_push(q, 40, 0, noop, NULL, 4);
    assert_int_equal(cs_eventq_pop(q, &e), 1);
    assert_int_equal(e.seq, d);
    cs_eventq_free(q);
}

static void test_cancel_already_fired(void **state) {
    (void)state;
    cs_eventq *q = cs_eventq_new();
    uint64_t a = cs_eventq_push(q, 10, 0, noop, NULL, 1);
    cs_event e;
    assert_int_equal(cs_eventq_pop(q, &e), 1);
    assert_int_equal(e.seq, a);
    cs_eventq_cancel(q, a); /* no effect */
    uint64_t b = cs_eventq_push(q, 10, 0, noop, NULL, 2);
    uint64_t c = cs_eventq_push(q, 11, 0, noop, NULL, 3);
    assert_true(b != a && c != a);
    assert_int_equal(cs_eventq_pop(q, &e), 1);
    assert_int_equal(e.seq, b);
    assert_int_equal(cs_eventq_pop(q, &e), 1);
    assert_int_equal(e.seq, c);
    assert_int_equal(cs_eventq_pop(q, &e), 0);
    cs_eventq_free(q);
}

static void test_cancel_unissued_id_is_ignored(void **state) {
    (void)state;
    cs_eventq *q = cs_eventq_new();
    /* Ids not handed out yet must not pre-cancel future events. */
    for (uint64_t id = 0; id < 16; id++) cs_eventq_cancel(q, id);
    cs_eventq_cancel(q, UINT64_MAX);
    uint64_t ids[16];
    for (uint64_t i = 0; i < 16; i++) ids[i] = cs_eventq_push(q, i, 0, noop, NULL, i);
    cs_event e;
    for (uint64_t i = 0; i < 16; i++) {
        assert_int_equal(cs_eventq_pop(q, &e), 1);
        assert_int_equal(e.seq, ids[i]);
        assert_int_equal(e.arg, i);
    }
    assert_int_equal(cs_eventq_pop(q, &e), 0);
    cs_eventq_free(q);
}

static void test_cancel_many_then_pop_order(void **state) {
    (void)state;
    enum { N = 3000 };
    cs_eventq *q = cs_eventq_new();
    static uint64_t ids[N];
    static unsigned char cancelled[N], seen[N];
    memset(cancelled, 0, sizeof cancelled);
    memset(seen, 0, sizeof seen);
    xs_state = 12345;
    for (size_t i = 0; i < N; i++) ids[i] = cs_eventq_push(q, xs() % 500, xs() % 4, noop, NULL, i);
    size_t ncancel = 0;
    for (size_t i = 0; i < N; i++)
        if (i % 3 == 0 || xs() % 5 == 0) {
            cs_eventq_cancel(q, ids[i]);
            ncancel += !cancelled[i];
            cancelled[i] = 1;
        }
    assert_int_equal(cs_eventq_size(q), N);
    cs_event e, prev = {0};
    size_t popped = 0;
    while (cs_eventq_pop(q, &e)) {
        size_t i = (size_t)e.arg;
        assert_true(i < N);
        assert_int_equal(e.seq, ids[i]);
        assert_false(cancelled[i]);
        assert_false(seen[i]);
        seen[i] = 1;
        if (popped) assert_true(ev_less(prev.time, prev.key, prev.seq, e.time, e.key, e.seq));
        prev = e;
        popped++;
    }
    assert_int_equal(popped, N - ncancel);
    for (size_t i = 0; i < N; i++) assert_int_equal(seen[i], !cancelled[i]);
    cs_eventq_free(q);
}

/* Cancelling ids that already fired must not make the queue grow without
 * bound: a long run that cancels every timer after it fired keeps O(pending)
 * memory. */
static void test_cancel_fired_memory_bounded(void **state) {
    (void)state;
    cs_eventq *q = cs_eventq_new();
    cs_event e;
    /* 50 far-future events, every other one cancelled: live tombstones that
     * must survive whatever housekeeping the stale ones trigger. */
    uint64_t far[50];
    for (uint64_t i = 0; i < 50; i++) far[i] = cs_eventq_push(q, 1000000000 + i, 0, noop, NULL, i);
    for (uint64_t i = 0; i < 50; i += 2) cs_eventq_cancel(q, far[i]);
    cs_eventq_push(q, 1, 0, noop, NULL, 0);
    assert_int_equal(cs_eventq_pop(q, &e), 1);
    size_t base = cs_alloc_bytes_in_use();
    for (uint64_t i = 0; i < 100000; i++) {
        uint64_t id = cs_eventq_push(q, cs_eventq_now(q) + 1, 0, noop, NULL, 0);
        assert_int_equal(cs_eventq_pop(q, &e), 1);
        assert_int_equal(e.seq, id);
        cs_eventq_cancel(q, id); /* already fired */
        cs_eventq_cancel(q, id); /* and again */
    }
    size_t grown = cs_alloc_bytes_in_use() - base;
    /* 100k stale ids held as 8-byte slots would be > 800 kB; allow 16 kB. */
    assert_true(grown < 16384);
    assert_int_equal(cs_eventq_size(q), 50);
    for (uint64_t i = 1; i < 50; i += 2) {
        assert_int_equal(cs_eventq_pop(q, &e), 1);
        assert_int_equal(e.seq, far[i]);
    }
    assert_int_equal(cs_eventq_pop(q, &e), 0);
    cs_eventq_free(q);
}

/* ---- dispatch: step / run ------------------------------------------------- */

static void test_step_and_dispatched_count(void **state) {
    (void)state;
    cs_eventq *q = cs_eventq_new();
    rec r = {.q = q};
    cs_eventq_push(q, 5, 0, record, &r, 50);
    cs_eventq_push(q, 6, 0, record, &r, 60);
    cs_eventq_push(q, 7, 0, record, &r, 70);
    cs_event e;
    assert_int_equal(cs_eventq_pop(q, &e), 1); /* pop does not dispatch or count */
    assert_int_equal(e.arg, 50);
    assert_int_equal(r.n, 0);
    assert_int_equal(cs_eventq_dispatched(q), 0);
    assert_int_equal(cs_eventq_step(q), 1);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.ev[0].arg, 60);
    assert_int_equal(r.ev[0].time, 6);
    assert_int_equal(cs_eventq_dispatched(q), 1);
    assert_int_equal(cs_eventq_run(q, CS_TIME_MAX), 1);
    assert_int_equal(cs_eventq_dispatched(q), 2);
    assert_int_equal(cs_eventq_step(q), 0);
    assert_int_equal(cs_eventq_dispatched(q), 2);
    cs_eventq_free(q);
}

static void test_run_until_is_inclusive_bound(void **state) {
    (void)state;
    cs_eventq *q = cs_eventq_new();
    rec r = {.q = q};
    for (uint64_t t = 10; t <= 40; t += 10) cs_eventq_push(q, t, 0, record, &r, t);
    assert_int_equal(cs_eventq_run(q, 25), 2); /* 10, 20 */
    assert_int_equal(cs_eventq_now(q), 20);
    assert_int_equal(cs_eventq_size(q), 2);
    assert_int_equal(cs_eventq_run(q, 29), 0);
    assert_int_equal(cs_eventq_run(q, 30), 1); /* "until" is inclusive */
    assert_int_equal(cs_eventq_now(q), 30);
    assert_int_equal(cs_eventq_run(q, CS_TIME_MAX), 1);
    assert_int_equal(r.n, 4);
    for (size_t i = 0; i < 4; i++) assert_int_equal(r.ev[i].arg, 10 * (i + 1));
    assert_int_equal(cs_eventq_dispatched(q), 4);
    cs_eventq_free(q);
}

/* A cancelled event inside the bound must not let run() dispatch a live event
 * beyond the bound. */
static void test_run_until_with_tombstone_on_top(void **state) {
    (void)state;
    cs_eventq *q = cs_eventq_new();
    rec r = {.q = q};
    uint64_t a = cs_eventq_push(q, 10, 0, record, &r, 10);
    uint64_t b = cs_eventq_push(q, 15, 0, record, &r, 15);
    cs_eventq_push(q, 50, 0, record, &r, 50);
    cs_eventq_cancel(q, a);
    cs_eventq_cancel(q, b);
    assert_int_equal(cs_eventq_run(q, 20), 0);
    assert_int_equal(r.n, 0);
    assert_int_equal(cs_eventq_dispatched(q), 0);
    assert_int_equal(cs_eventq_now(q), 0);
    assert_int_equal(cs_eventq_run(q, 50), 1);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.ev[0].arg, 50);
    cs_eventq_free(q);
}

/* Handler for chains: arg < 3 schedules arg+1 now with key 4; arg 3 schedules
 * 4 now with key 9; arg 4 schedules 5 one picosecond later. */
static void chain(void *ctx, const cs_event *ev) {
    rec *r = ctx;
    record(ctx, ev);
    assert_int_equal(cs_eventq_now(r->q), ev->time);
    if (ev->arg < 3)
        cs_eventq_push(r->q, ev->time, 4, chain, r, ev->arg + 1);
    else if (ev->arg == 3)
        cs_eventq_push(r->q, ev->time, 9, chain, r, 4);
    else if (ev->arg == 4)
        cs_eventq_push(r->q, ev->time + 1, 0, chain, r, 5);
}

static void test_handlers_push_at_now(void **state) {
    (void)state;
    cs_eventq *q = cs_eventq_new();
    rec r = {.q = q};
    cs_eventq_push(q, 10, 5, chain, &r, 0);
    cs_eventq_push(q, 10, 3, record, &r, 100);
    cs_eventq_push(q, 10, 7, record, &r, 200);
    /* (10,3)=100; (10,5)=0 -> 1,2,3 at key 4 (< 7); 200 at key 7; 4 at key 9;
     * 5 lands at t=11, beyond the bound. */
    assert_int_equal(cs_eventq_run(q, 10), 7);
    const uint64_t want[] = {100, 0, 1, 2, 3, 200, 4};
    assert_int_equal(r.n, 7);
    for (size_t i = 0; i < 7; i++) {
        assert_int_equal(r.ev[i].arg, want[i]);
        assert_int_equal(r.ev[i].time, 10);
    }
    assert_int_equal(cs_eventq_now(q), 10);
    assert_int_equal(cs_eventq_size(q), 1);
    assert_int_equal(cs_eventq_run(q, CS_TIME_MAX), 1);
    assert_int_equal(r.ev[7].arg, 5);
    assert_int_equal(r.ev[7].time, 11);
    assert_int_equal(cs_eventq_dispatched(q), 8);
    cs_eventq_free(q);
}

/* A handler that cancels an event later at its own time. */
typedef struct {
    rec r;
    uint64_t victim;
} cancel_ctx;

static void canceller(void *ctx, const cs_event *ev) {
    cancel_ctx *c = ctx;
    record(&c->r, ev);
    cs_eventq_cancel(c->r.q, c->victim);
    cs_eventq_cancel(c->r.q, ev->seq); /* cancelling itself while running: no effect */
}

static void test_handler_cancels(void **state) {
    (void)state;
    cs_eventq *q = cs_eventq_new();
    cancel_ctx c = {.r = {.q = q}};
    cs_eventq_push(q, 10, 0, canceller, &c, 1);
    c.victim = cs_eventq_push(q, 10, 1, record, &c.r, 2);
    cs_eventq_push(q, 10, 2, record, &c.r, 3);
    assert_int_equal(cs_eventq_run(q, CS_TIME_MAX), 2);
    assert_int_equal(c.r.n, 2);
    assert_int_equal(c.r.ev[0].arg, 1);
    assert_int_equal(c.r.ev[1].arg, 3);
    cs_eventq_free(q);
}

/* ---- randomized comparison with a reference model ------------------------- */

/* The model: every pushed event not yet removed, sorted by (time, key, seq),
 * with a cancelled flag.  Removal mirrors the documented lazy semantics: a
 * pop discards cancelled events that sort before the first live one. */
typedef struct ref_ev {
    cs_time time;
    uint64_t key, seq, arg;
    int cancelled;
} ref_ev;

typedef struct model {
    ref_ev *v;
    size_t n, cap;
    cs_time now;
    uint64_t dispatched;
} model;

static void model_push(model *m, cs_time t, uint64_t key, uint64_t seq, uint64_t arg) {
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 64;
        m->v = realloc(m->v, m->cap * sizeof *m->v);
        assert_non_null(m->v);
    }
    size_t lo = 0, hi = m->n; /* first element not before the new one */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ev_less(m->v[mid].time, m->v[mid].key, m->v[mid].seq, t, key, seq))
            lo = mid + 1;
        else
            hi = mid;
    }
    memmove(&m->v[lo + 1], &m->v[lo], (m->n - lo) * sizeof *m->v);
    m->v[lo] = (ref_ev){t, key, seq, arg, 0};
    m->n++;
}

static void model_drop_front(model *m, size_t k) {
    memmove(&m->v[0], &m->v[k], (m->n - k) * sizeof *m->v);
    m->n -= k;
}

/* Pop: returns 1 and the event, or 0 (and the model becomes empty). */
static int model_pop(model *m, ref_ev *out) {
    size_t i = 0;
    while (i < m->n && m->v[i].cancelled) i++;
    if (i == m->n) {
        m->n = 0;
        return 0;
    }
    *out = m->v[i];
    model_drop_front(m, i + 1);
    m->now = out->time;
    return 1;
}

static void model_cancel(model *m, uint64_t id) {
    for (size_t i = 0; i < m->n; i++)
        if (m->v[i].seq == id) {
            m->v[i].cancelled = 1;
            return;
        }
}

/* A recorder without a fixed size for the randomized test. */
typedef struct big_rec {
    cs_event *ev;
    size_t n, cap;
} big_rec;

static void big_record(void *ctx, const cs_event *ev) {
    big_rec *r = ctx;
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->ev = realloc(r->ev, r->cap * sizeof *r->ev);
        assert_non_null(r->ev);
    }
    r->ev[r->n++] = *ev;
}

static void check_same(const cs_event *e, const ref_ev *want, void *ctx) {
    assert_int_equal(e->time, want->time);
    assert_int_equal(e->key, want->key);
    assert_int_equal(e->seq, want->seq);
    assert_int_equal(e->arg, want->arg);
    assert_true(e->fn == big_record);
    assert_ptr_equal(e->ctx, ctx);
}

static void test_random_against_model(void **state) {
    (void)state;
    enum { OPS = 100000 };
    cs_eventq *q = cs_eventq_new();
    model m = {0};
    big_rec r = {0};
    xs_state = 0x2545F4914F6CDD1DULL;
    uint64_t last_id = 0, nids = 0;
    size_t max_size = 0, n_pop_empty = 0, n_cancel_live = 0, n_last = 0;

    for (size_t op = 0; op < OPS; op++) {
        /* Grow towards ~2000 pending for the first half, ~100 for the third
         * quarter, then hover around empty, so a deep heap, a shallow one and
         * an empty one are all exercised. */
        size_t target = op < OPS / 2 ? 2000 : op < 3 * (OPS / 4) ? 100 : 0;
        unsigned push_pct = m.n < target ? 55 : 30;
        unsigned roll = (unsigned)(xs() % 100);
        cs_time prev_now = cs_eventq_now(q);

        if (roll < push_pct) {
            /* a quarter at now, a quarter within 8 ps (many equal times), the
             * rest spread over 100 ns */
            uint64_t d = xs();
            uint64_t span = (d & 3) == 0 ? 1 : (d & 3) == 1 ? 8 : 100000;
            cs_time t = cs_eventq_now(q) + (d >> 8) % span;
            /* keys 0..3, or (a fifth) UINT64_MAX: at the current time those
             * wait in the queue's list of the instant's last events, at a
             * later time in its bucket, mixed when that time comes */
            uint64_t key = xs() % 5, arg = xs();
            if (key == 4) key = UINT64_MAX;
            if (key == UINT64_MAX && t == cs_eventq_now(q)) n_last++;
            uint64_t id = cs_eventq_push(q, t, key, big_record, &r, arg);
            if (nids) assert_true(id > last_id);
            last_id = id;
            nids++;
            model_push(&m, t, key, id, arg);
        } else if (roll < push_pct + 20) {
            cs_event e;
            ref_ev want;
            int got = cs_eventq_pop(q, &e);
            int expect = model_pop(&m, &want);
            assert_int_equal(got, expect);
            if (got) check_same(&e, &want, &r);
            else n_pop_empty++;
        } else if (roll < push_pct + 35) {
            size_t before = r.n;
            ref_ev want;
            int got = cs_eventq_step(q);
            int expect = model_pop(&m, &want);
            assert_int_equal(got, expect);
            if (expect) {
                m.dispatched++;
                assert_int_equal(r.n, before + 1);
                check_same(&r.ev[before], &want, &r);
            } else {
                assert_int_equal(r.n, before);
            }
        } else if (roll < push_pct + 43) {
            uint64_t id;
            if (m.n && xs() % 4 != 0) {
                id = m.v[xs() % m.n].seq; /* pending: live or already cancelled */
                n_cancel_live++;
            } else {
                id = nids ? xs() % (last_id + 4) : xs() % 4; /* fired, or not issued */
            }
            cs_eventq_cancel(q, id);
            model_cancel(&m, id);
        } else if (roll < push_pct + 45) {
            cs_time until = cs_eventq_now(q) + xs() % 64;
            size_t before = r.n;
            uint64_t got = cs_eventq_run(q, until);
            uint64_t expect = 0;
            for (;;) { /* drop tombstones, stop at the first live event past the bound */
                size_t i = 0;
                while (i < m.n && m.v[i].cancelled) i++;
                model_drop_front(&m, i);
                if (!m.n || m.v[0].time > until) break;
                ref_ev want;
                assert_true(model_pop(&m, &want));
                assert_true(before + expect < r.n);
                check_same(&r.ev[before + expect], &want, &r);
                expect++;
            }
            m.dispatched += expect;
            assert_int_equal(got, expect);
            assert_int_equal(r.n, before + expect);
        } /* else: idle (checks only) */

        assert_true(cs_eventq_now(q) >= prev_now);
        assert_int_equal(cs_eventq_now(q), m.now);
        assert_int_equal(cs_eventq_size(q), m.n);
        assert_int_equal(cs_eventq_dispatched(q), m.dispatched);
        if (m.n > max_size) max_size = m.n;
    }
    /* drain */
    cs_event e;
    ref_ev want;
    while (model_pop(&m, &want)) {
        assert_int_equal(cs_eventq_pop(q, &e), 1);
        check_same(&e, &want, &r);
    }
    assert_int_equal(cs_eventq_pop(q, &e), 0);
    assert_int_equal(cs_eventq_size(q), 0);
    /* The run really exercised what it claims to. */
    assert_true(max_size >= 1000);
    assert_true(n_pop_empty > 0);
    assert_true(n_cancel_live > 1000);
    assert_true(n_last > 1000);
    assert_true(r.n > 10000);
    free(m.v);
    free(r.ev);
    cs_eventq_free(q);
}

/* Many events of one later time pushed out of key order (the bucket is
 * sorted once when it comes to the top), in ascending runs and scrambled,
 * some cancelled, more pushed at that time while it is popped: the pops are in
 * (key, seq) order all the same. */
/* cs_eventq_ahead, the prefetch hint: the events still to pop at the
 * current time, in pop order, while their bucket is kept in that order; NULL
 * for a later time, past the bucket's end, or once a push at the current
 * time out of order has made the bucket a heap.  Expected values from the
 * pops themselves: ahead(k) before a pop is the (k + 1)-th event popped. */
static void test_ahead_hint(void **state) {
    (void)state;
    cs_eventq *q = cs_eventq_new();
    for (uint64_t k = 1; k <= 6; k++) cs_eventq_push(q, 100, k, noop, NULL, k);
    assert_null(cs_eventq_ahead(q, 0)); /* now = 0: the bucket at 100 is not the current time */
    cs_event e;
    assert_int_equal(cs_eventq_pop(q, &e), 1);
    assert_int_equal(e.arg, 1);
    /* 5 left at now = 100: keys 2..6 */
    for (size_t k = 0; k < 5; k++) {
        const cs_event *a = cs_eventq_ahead(q, k);
        assert_non_null(a);
        assert_int_equal(a->arg, 2 + k);
    }
    assert_null(cs_eventq_ahead(q, 5));
    const cs_event *a = cs_eventq_ahead(q, 1);
    uint64_t seq = a->seq;
    assert_int_equal(cs_eventq_pop(q, &e), 1);
    assert_int_equal(cs_eventq_pop(q, &e), 1);
    assert_int_equal(e.seq, seq); /* ahead(1) was the second pop */
    cs_eventq_push(q, 100, 0, noop, NULL, 99); /* key 0 < the next key 4, at now: a heap from here */
    assert_null(cs_eventq_ahead(q, 0));
    assert_int_equal(cs_eventq_pop(q, &e), 1);
    assert_int_equal(e.arg, 99);
    cs_eventq_free(q);
}

/* cs_eventq_ahead_run, the hint in one call: the earliest pending time's
 * events still to pop, in pop order, whether or not that time is the
 * current one; none once a push at the current time out of order gave the
 * bucket a side heap.  Expected values from the pops themselves. */
static void test_ahead_run(void **state) {
    (void)state;
    cs_eventq *q = cs_eventq_new();
    for (uint64_t k = 3; k >= 1; k--) cs_eventq_push(q, 100, k * 2, noop, NULL, k); /* pushed out of order */
    cs_eventq_push(q, 200, 1, noop, NULL, 21);
    cs_eventq_push(q, 200, 2, noop, NULL, 22);
    size_t n;
    const cs_event *run = cs_eventq_ahead_run(q, &n); /* the bucket at 100 is unsorted until it comes to the top */
    assert_int_equal(n, 0);
    cs_event e;
    assert_int_equal(cs_eventq_pop(q, &e), 1);
    assert_int_equal(e.arg, 1);
    run = cs_eventq_ahead_run(q, &n); /* now = 100: keys 4, 6 left */
    assert_int_equal(n, 2);
    assert_int_equal(run[0].arg, 2);
    assert_int_equal(run[1].arg, 3);
    assert_int_equal(cs_eventq_pop(q, &e), 1);
    assert_int_equal(cs_eventq_pop(q, &e), 1);
    assert_int_equal(e.arg, 3);
    run = cs_eventq_ahead_run(q, &n); /* the instant at 100 used up: the bucket at 200, not yet current */
    assert_int_equal(n, 2);
    assert_int_equal(run[0].arg, 21);
    assert_int_equal(run[1].arg, 22);
    assert_int_equal(cs_eventq_pop(q, &e), 1);
    cs_eventq_push(q, 200, 0, noop, NULL, 99); /* key 0 < the next key 2, at now: a side heap */
    run = cs_eventq_ahead_run(q, &n);
    assert_int_equal(n, 0);
    assert_int_equal(cs_eventq_pop(q, &e), 1);
    assert_int_equal(e.arg, 99);
    cs_eventq_free(q);
}

static void test_one_time_out_of_order(void **state) {
    (void)state;
    enum { N = 3000 };
    cs_eventq *q = cs_eventq_new();
    uint64_t ids[N], keys[N];
    xs_state = 0x9E3779B97F4A7C15ULL;
    for (size_t i = 0; i < N; i++) {
        /* a third in ascending runs of 40 keys, then scrambled keys with duplicates */
        keys[i] = i < N / 3 ? (i % 40) * 7 + i / 40 : xs() % 500;
        ids[i] = cs_eventq_push(q, 1000, keys[i], noop, NULL, i);
    }
    cs_eventq_push(q, 10, 0, noop, NULL, N); /* an earlier time first */
    for (size_t i = 0; i < N; i += 7) cs_eventq_cancel(q, ids[i]);
    cs_event e;
    assert_int_equal(cs_eventq_pop(q, &e), 1);
    assert_int_equal(e.time, 10);
    uint64_t pk = 0, ps = 0, got = 0, late = 0;
    while (cs_eventq_pop(q, &e)) {
        assert_int_equal(e.time, 1000);
        assert_true(e.key > pk || (e.key == pk && e.seq > ps) || got == 0);
        if (e.arg < N) assert_int_not_equal(e.arg % 7, 0);
        pk = e.key;
        ps = e.seq;
        got++;
        if (late < 50 && e.key < 400) { /* a push at now, after the current key: still in order */
            cs_eventq_push(q, 1000, e.key + 100 + late % 3, noop, NULL, N + 1 + late);
            late++;
        }
    }
    assert_int_equal(got, N - (N + 6) / 7 + late);
    cs_eventq_free(q);
}

/* A large instant half popped, then, while each remaining key 2 i is
 * popped, a push at that instant of key 2 i + 1 -- before the remaining keys,
 * as a message delivered in the instant its receive is posted inherits the
 * current key; cancelled when i % 5 == 0 -- and a push of key 5000 + i, after
 * all of them.  Expected order, worked out by hand: for i = 500 .. 999,
 * 2 i then 2 i + 1 (unless i % 5 == 0); then 5500 .. 5999. */
static void test_instant_pushes_before_its_keys(void **state) {
    (void)state;
    enum { N = 1000 };
    cs_eventq *q = cs_eventq_new();
    for (uint64_t i = 0; i < N; i++) cs_eventq_push(q, 7, 2 * i, noop, NULL, 0);
    cs_event e;
    for (uint64_t i = 0; i < N / 2; i++) {
        assert_int_equal(cs_eventq_pop(q, &e), 1);
        assert_int_equal(e.key, 2 * i);
    }
    static uint64_t got[2 * N], want[2 * N];
    size_t ngot = 0, nwant = 0;
    while (cs_eventq_pop(q, &e)) {
        assert_int_equal(e.time, 7);
        assert_true(ngot < 2 * N);
        got[ngot++] = e.key;
        if (e.key < 2 * N && e.key % 2 == 0) {
            uint64_t i = e.key / 2;
            uint64_t id = cs_eventq_push(q, 7, 2 * i + 1, noop, NULL, 0);
            if (i % 5 == 0) cs_eventq_cancel(q, id);
            cs_eventq_push(q, 7, 5000 + i, noop, NULL, 0);
        }
    }
    for (uint64_t i = N / 2; i < N; i++) {
        want[nwant++] = 2 * i;
        if (i % 5 != 0) want[nwant++] = 2 * i + 1;
    }
    for (uint64_t i = N / 2; i < N; i++) want[nwant++] = 5000 + i;
    assert_int_equal(ngot, nwant);
    for (size_t k = 0; k < nwant; k++) assert_int_equal(got[k], want[k]);
    assert_int_equal(cs_eventq_size(q), 0);
    cs_eventq_free(q);
}

/* ---- contract: the clock never runs backwards ----------------------------- */

static void test_push_in_past_aborts(void **state) {
    (void)state;
#ifndef CS_INVARIANTS
    skip(); /* the check is a CS_ALWAYS (core/invariant.h): compiled out in this build */
#else
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        FILE *devnull = freopen("/dev/null", "w", stderr);
        (void)devnull;
        cs_eventq *q = cs_eventq_new();
        cs_eventq_push(q, 100, 0, noop, NULL, 0);
        cs_event e;
        cs_eventq_pop(q, &e);
        cs_eventq_push(q, 99, 0, noop, NULL, 0); /* earlier than now: must abort */
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
#endif
}

/* push_seq orders by the given seq (not the insertion order); next_time
 * skips tombstones; pop_before stops at the bound (exclusive). */
static void test_push_seq_and_pop_before(void **state) {
    (void)state;
    cs_eventq *q = cs_eventq_new();
    cs_eventq_push_seq(q, 5, 1, 30, noop, NULL, 'c');
    cs_eventq_push_seq(q, 5, 1, 10, noop, NULL, 'a');
    cs_eventq_push_seq(q, 5, 0, 99, noop, NULL, 'k'); /* a smaller key wins over any seq */
    cs_eventq_push_seq(q, 5, 1, 20, noop, NULL, 'b');
    uint64_t id = cs_eventq_push(q, 3, 0, noop, NULL, 'x');
    cs_eventq_push_seq(q, 7, 0, 1, noop, NULL, 'z');
    cs_eventq_cancel(q, id);
    cs_time t = 0;
    assert_int_equal(cs_eventq_next_time(q, &t), 1);
    assert_int_equal(t, 5); /* the cancelled event at 3 is skipped */
    cs_event e;
    const char want[] = "kabc";
    for (int i = 0; i < 4; i++) {
        assert_int_equal(cs_eventq_pop_before(q, 7, &e), 1);
        assert_int_equal(e.arg, (uint64_t)want[i]);
        assert_int_equal(cs_eventq_now(q), 5);
    }
    assert_int_equal(cs_eventq_pop_before(q, 7, &e), 0); /* 7 is not before 7 */
    assert_int_equal(cs_eventq_pop_before(q, 8, &e), 1);
    assert_int_equal(e.arg, 'z');
    assert_int_equal(cs_eventq_next_time(q, &t), 0);
    cs_eventq_free(q);
}

/* Events at the current time with key UINT64_MAX ("the instant's last",
 * kept apart by the queue) still pop in (time, key, seq) order: after a
 * smaller key pushed later, after a key-MAX event of the same time pushed
 * before the time came, and by seq when push_seq brings an older number
 * (the flow backend's transmission ends take theirs ahead of their push). */
static void test_instant_last(void **state) {
    (void)state;
    cs_eventq *q = cs_eventq_new();
    const uint64_t M = UINT64_MAX;
    cs_eventq_push(q, 10, M, noop, NULL, 'a');          /* seq 0, pushed before time 10 came */
    cs_eventq_push(q, 10, 0, noop, NULL, 'b');          /* seq 1 */
    cs_event e;
    assert_int_equal(cs_eventq_pop(q, &e), 1);
    assert_int_equal(e.arg, 'b');                       /* now 10 */
    uint64_t old = cs_eventq_take_seq(q);               /* seq 2, used below */
    cs_eventq_push(q, 10, M, noop, NULL, 'd');          /* seq 3 */
    cs_eventq_push_seq(q, 10, M, old, noop, NULL, 'c'); /* seq 2: before d */
    cs_eventq_push(q, 10, 7, noop, NULL, 'x');          /* seq 4, smaller key: first */
    cs_eventq_push(q, 11, 0, noop, NULL, 'z');
    uint64_t gone = cs_eventq_push(q, 10, M, noop, NULL, 'y'); /* seq 6, cancelled */
    cs_eventq_cancel(q, gone);
    cs_eventq_push(q, 10, M, noop, NULL, 'e');          /* seq 7 */
    const char want[] = "xacdez";
    for (int i = 0; want[i]; i++) {
        assert_int_equal(cs_eventq_pop(q, &e), 1);
        assert_int_equal(e.arg, (uint64_t)want[i]);
    }
    assert_int_equal(cs_eventq_pop(q, &e), 0);
    assert_int_equal(cs_eventq_size(q), 0);
    cs_eventq_free(q);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_queue),
        cmocka_unit_test(test_push_seq_and_pop_before),
        cmocka_unit_test(test_instant_last),
        cmocka_unit_test(test_ids_and_fields),
        cmocka_unit_test(test_order_time_then_key_then_seq),
        cmocka_unit_test(test_fifo_among_identical),
        cmocka_unit_test(test_now_never_decreases),
        cmocka_unit_test(test_cancel_pending),
        cmocka_unit_test(test_cancel_min_and_only),
        cmocka_unit_test(test_cancel_twice),
        cmocka_unit_test(test_cancel_already_fired),
        cmocka_unit_test(test_cancel_unissued_id_is_ignored),
        cmocka_unit_test(test_cancel_many_then_pop_order),
        cmocka_unit_test(test_cancel_fired_memory_bounded),
        cmocka_unit_test(test_step_and_dispatched_count),
        cmocka_unit_test(test_run_until_is_inclusive_bound),
        cmocka_unit_test(test_run_until_with_tombstone_on_top),
        cmocka_unit_test(test_handlers_push_at_now),
        cmocka_unit_test(test_one_time_out_of_order),
        cmocka_unit_test(test_ahead_hint),
        cmocka_unit_test(test_ahead_run),
        cmocka_unit_test(test_handler_cancels),
        cmocka_unit_test(test_random_against_model),
        cmocka_unit_test(test_instant_pushes_before_its_keys),
        cmocka_unit_test(test_push_in_past_aborts),
    };
    return cmocka_run_group_tests_name("core_eventq", tests, NULL, NULL);
}
