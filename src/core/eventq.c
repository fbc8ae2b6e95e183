/*
 * eventq.c -- binary-heap event queue with lazy cancellation (see eventq.h).
 *
 * The heap stores cs_event by value (48 bytes); sift operations compare
 * (time, key, seq).  Tombstones live in a small open-addressing hash set of
 * event ids that is consulted only while it is non-empty, so the common path
 * costs nothing for cancellation support.  Cancelling an id that already fired
 * leaves a stale entry in that set; when the set outgrows the heap it is
 * rebuilt from the ids actually in the heap, so it stays O(pending).
 */
#include "core/eventq.h"

#include <assert.h>
#include <string.h>

#include "core/alloc.h"

struct cs_eventq {
    cs_event *heap;
    size_t n, cap;
    uint64_t next_seq;
    cs_time now;
    uint64_t dispatched;
    /* the event being dispatched (cs_eventq_dispatching) */
    uint64_t cur_key;
    int in_dispatch;
    /* tombstones */
    uint64_t *dead; /* 0 = empty slot; ids stored +1 */
    size_t dead_n, dead_cap;
};

static inline int before(const cs_event *a, const cs_event *b) {
    if (a->time != b->time) return a->time < b->time;
    if (a->key != b->key) return a->key < b->key;
    return a->seq < b->seq;
}

cs_eventq *cs_eventq_new(void) {
    cs_eventq *q = cs_calloc(1, sizeof *q);
    return q;
}

void cs_eventq_free(cs_eventq *q) {
    if (!q) return;
    cs_free(q->heap);
    cs_free(q->dead);
    cs_free(q);
}

static void sift_up(cs_event *h, size_t i) {
    cs_event e = h[i];
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!before(&e, &h[p])) break;
        h[i] = h[p];
        i = p;
    }
    h[i] = e;
}

static void sift_down(cs_event *h, size_t n, size_t i) {
    cs_event e = h[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && before(&h[c + 1], &h[c])) c++;
        if (!before(&h[c], &e)) break;
        h[i] = h[c];
        i = c;
    }
    h[i] = e;
}

uint64_t cs_eventq_push(cs_eventq *q, cs_time t, uint64_t key, cs_event_fn fn, void *ctx,
                        uint64_t arg) {
    assert(t >= q->now && "event scheduled in the past");
    CS_GROW(q->heap, q->cap, q->n + 1);
    uint64_t id = q->next_seq++;
    cs_event *e = &q->heap[q->n];
    e->time = t;
    e->key = key;
    e->seq = id;
    e->fn = fn;
    e->ctx = ctx;
    e->arg = arg;
    sift_up(q->heap, q->n); /* may move another event into *e: return the saved id */
    q->n++;
    return id;
}

static size_t dead_slot(const cs_eventq *q, uint64_t id) {
    uint64_t h = (id + 1) * 0x9E3779B97F4A7C15ULL;
    return (size_t)(h >> 7) & (q->dead_cap - 1);
}

static void dead_insert(cs_eventq *q, uint64_t id);

static void dead_rehash(cs_eventq *q, size_t ncap) {
    uint64_t *old = q->dead;
    size_t ocap = q->dead_cap;
    q->dead = cs_calloc(ncap, sizeof *q->dead);
    q->dead_cap = ncap;
    q->dead_n = 0;
    for (size_t i = 0; i < ocap; i++)
        if (old[i]) dead_insert(q, old[i] - 1);
    cs_free(old);
}

static void dead_insert(cs_eventq *q, uint64_t id) {
    if ((q->dead_n + 1) * 2 > q->dead_cap) dead_rehash(q, q->dead_cap ? q->dead_cap * 2 : 16);
    size_t i = dead_slot(q, id);
    while (q->dead[i] && q->dead[i] != id + 1) i = (i + 1) & (q->dead_cap - 1);
    if (!q->dead[i]) {
        q->dead[i] = id + 1;
        q->dead_n++;
    }
}

/* Remove id from the tombstone set; returns 1 if it was there. */
static int dead_take(cs_eventq *q, uint64_t id) {
    if (!q->dead_n) return 0;
    size_t i = dead_slot(q, id);
    while (q->dead[i]) {
        if (q->dead[i] == id + 1) {
            /* backward-shift deletion keeps probe chains intact */
            q->dead[i] = 0;
            q->dead_n--;
            size_t j = (i + 1) & (q->dead_cap - 1);
            while (q->dead[j]) {
                uint64_t v = q->dead[j];
                q->dead[j] = 0;
                q->dead_n--;
                dead_insert(q, v - 1);
                j = (j + 1) & (q->dead_cap - 1);
            }
            return 1;
        }
        i = (i + 1) & (q->dead_cap - 1);
    }
    return 0;
}

static int dead_has(const cs_eventq *q, uint64_t id) {
    if (!q->dead_n) return 0;
    size_t i = dead_slot(q, id);
    while (q->dead[i]) {
        if (q->dead[i] == id + 1) return 1;
        i = (i + 1) & (q->dead_cap - 1);
    }
    return 0;
}

/* Drop stale tombstones (ids that already fired or were cancelled twice after
 * popping): keep only ids still in the heap.  O(n + dead_cap). */
static void dead_purge(cs_eventq *q) {
    cs_eventq old = *q;
    size_t keep = 0;
    for (size_t i = 0; i < q->n; i++) keep += (size_t)dead_has(&old, q->heap[i].seq);
    size_t ncap = 16;
    while (ncap < 2 * keep) ncap *= 2;
    q->dead = cs_calloc(ncap, sizeof *q->dead);
    q->dead_cap = ncap;
    q->dead_n = 0;
    for (size_t i = 0; i < q->n && q->dead_n < keep; i++)
        if (dead_has(&old, q->heap[i].seq)) dead_insert(q, q->heap[i].seq);
    cs_free(old.dead);
}

void cs_eventq_cancel(cs_eventq *q, uint64_t id) {
    if (id >= q->next_seq) return;
    /* Only ids still in the heap can be cancelled; a linear check would be
     * O(n), so we accept the id and let pop discard it.  A fired id cancelled
     * afterwards is stale: once the set holds clearly more ids than the heap
     * holds events, some must be stale, and a purge (amortised O(1) per
     * cancel) keeps the set, and pop's lookup cost, bounded. */
    dead_insert(q, id);
    if (q->dead_n > 2 * q->n + 16) dead_purge(q);
}

static cs_event take_top(cs_eventq *q) {
    cs_event top = q->heap[0];
    q->n--;
    if (q->n) {
        q->heap[0] = q->heap[q->n];
        sift_down(q->heap, q->n, 0);
    }
    return top;
}

/* Discard cancelled events sitting at the top of the heap. */
static void drop_dead_top(cs_eventq *q) {
    while (q->n && q->dead_n && dead_has(q, q->heap[0].seq)) {
        cs_event top = take_top(q);
        dead_take(q, top.seq);
    }
}

int cs_eventq_pop(cs_eventq *q, cs_event *out) {
    while (q->n) {
        cs_event top = take_top(q);
        if (dead_take(q, top.seq)) continue;
        assert(top.time >= q->now);
        q->now = top.time;
        *out = top;
        return 1;
    }
    return 0;
}

int cs_eventq_step(cs_eventq *q) {
    cs_event e;
    if (!cs_eventq_pop(q, &e)) return 0;
    q->dispatched++;
    uint64_t saved_key = q->cur_key;
    int saved_in = q->in_dispatch;
    q->cur_key = e.key;
    q->in_dispatch = 1;
    e.fn(e.ctx, &e);
    q->cur_key = saved_key;
    q->in_dispatch = saved_in;
    return 1;
}

uint64_t cs_eventq_run(cs_eventq *q, cs_time until) {
    uint64_t n = 0;
    for (;;) {
        /* Tombstones first: a cancelled event at the top must not let the
         * bound check pass and then dispatch a later live event. */
        drop_dead_top(q);
        if (!q->n || q->heap[0].time > until) break;
        if (cs_eventq_step(q)) n++;
    }
    return n;
}

cs_time cs_eventq_now(const cs_eventq *q) { return q->now; }
size_t cs_eventq_size(const cs_eventq *q) { return q->n; }
uint64_t cs_eventq_dispatched(const cs_eventq *q) { return q->dispatched; }

int cs_eventq_dispatching(const cs_eventq *q, uint64_t *key) {
    if (q->in_dispatch && key) *key = q->cur_key;
    return q->in_dispatch;
}
