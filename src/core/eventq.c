/*
 * eventq.c -- timestamp-bucketed event queue with lazy cancellation (see
 * eventq.h).
 *
 * Simulations of symmetric machines schedule many events at few distinct
 * times (thousands of ranks finishing a step at the same picosecond), so the
 * queue is two-level: a binary heap of distinct pending timestamps, a hash
 * from timestamp to its bucket, and per bucket the events in (key, seq)
 * order -- a sorted array while pushes arrive in order (the common case:
 * O(1) push and pop); after the first out-of-order push, an unsorted array
 * (O(1) push) sorted once, by a merge sort, when its time comes to the top,
 * or, if the push came at the bucket's own time (it may be half popped), a
 * small side heap beside the sorted array, pops taking the smaller of the
 * two fronts.  (The side heap replaced turning the whole bucket into one
 * heap: in a full simulation of thousands of ranks, a message delivered in
 * the instant its receive is posted pushes one event at the current time,
 * and every later pop of that instant then sifted through thousands of
 * events; the side heap holds only such events, which are popped at once.)
 * Events are stored by value (48 bytes); emptied buckets keep their arrays
 * and are reused.  Tombstones live in a small open-addressing hash set of
 * event ids that is consulted only while it is non-empty, so the common path
 * costs nothing for cancellation support.  Cancelling an id that already fired
 * leaves a stale entry in that set; when the set outgrows the heap it is
 * rebuilt from the ids actually in the heap, so it stays O(pending).
 */
#include "core/eventq.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/peq.h"
#include "core/invariant.h"

/* Events of one timestamp.  SINGLE mode (a new bucket): its one event is
 * `one`, inside the bucket, so that the common timestamp of one event costs
 * no array and no second cache miss; a second push moves it to ev[0] and the
 * bucket is SORTED or UNSORTED from then on.  SORTED mode: live events are
 * ev[head..n) in ascending (key, seq) order -- pushes in order append, pops
 * advance head -- plus the side heap aux[0..aux_n) (by key, then seq) of the
 * events pushed out of order at the current time; a pop takes the smaller
 * front.  A push out of order into a bucket of a later time than now makes
 * it UNSORTED (ev[0..n), any order, pushes append; aux empty) until
 * store_top or store_pop sorts it (back to SORTED).  (key, seq) is a total
 * order, so every mode pops the same sequence.  What a pop of a SINGLE
 * bucket reads is in its first 64 bytes. */
typedef struct bucket {
    cs_event one;      /* SINGLE mode: the bucket's only event (n = 1, head 0 or 1) */
    uint32_t n, head;
    uint8_t single;    /* SINGLE mode */
    uint8_t unsorted;  /* UNSORTED mode (head = 0) */
    uint32_t next_free;
    cs_time time;
    cs_event *ev;      /* SORTED / UNSORTED events (kept for reuse) */
    uint32_t cap, aux_n, aux_cap;
    cs_event *aux;     /* side heap (kept for reuse) */
} bucket;

/* The bucket's events as one array (SINGLE: `one`). */
static inline const cs_event *bucket_ev(const bucket *bk) { return bk->single ? &bk->one : bk->ev; }

#define NO_BUCKET UINT32_MAX

struct cs_eventq {
    cs_eventq_hot h;    /* par (a parallel queue, cs_eventq_new_parallel), now, the dispatched event's key and
                           whether one is: first, eventq.h reads them inline */
    bucket *b;          /* all buckets ever made (reused through free list) */
    uint32_t nb, capb, free_head;
    struct theap_ent { cs_time time; uint32_t bi; } *theap; /* heap of live buckets by time (the time kept
                                                               here: a sift reads no bucket) */
    size_t tn, tcap;
    struct map_ent { cs_time time; uint32_t bi1; } *map; /* time -> bucket index + 1 (bi1; 0 = empty),
                                                             linear probing; the time kept here: a probe reads no bucket */
    size_t map_cap, map_n;
    uint32_t last_bi;   /* the live bucket of the last push (NO_BUCKET: none): runs of pushes at one time skip the map */
    uint32_t prev_bi;   /* the live bucket pushed to before last_bi's (NO_BUCKET: none): handlers that
                           alternate between two times (a message's arrival, an endpoint delay) skip it too */
    size_t n;           /* pending events, including tombstones */
    uint64_t next_seq;
    uint64_t dispatched;
    /* tombstones */
    uint64_t *dead; /* 0 = empty slot; ids stored +1 */
    size_t dead_n, dead_cap;
    cs_event *tmp;  /* the merge sort's buffer (kept for the next sort) */
    size_t tmp_cap;
    /* the instant's last events: pushed at the current time with the largest
     * key (UINT64_MAX: "when this instant's other work is done", the flow
     * backend's batched rate computation) they wait here, in seq order,
     * instead of in a bucket -- the bucket of the current time has usually
     * just been emptied, and making a new one for them (map, heap) and
     * removing it again cost as much as the event's work */
    cs_event *last;
    size_t last_head, last_n, last_cap;
    /* a parallel queue: rank -> partition */
    const uint32_t *part_of;
    uint32_t origin;    /* the partition of what is pushed outside handlers (cs_eventq_set_origin) */
};

static inline int ev_before(const cs_event *a, const cs_event *b) {
    if (a->key != b->key) return a->key < b->key;
    return a->seq < b->seq;
}

cs_eventq *cs_eventq_new(void) {
    cs_eventq *q = cs_calloc(1, sizeof *q);
    q->free_head = NO_BUCKET;
    q->last_bi = q->prev_bi = NO_BUCKET;
    return q;
}

void cs_eventq_free(cs_eventq *q) {
    if (!q) return;
    for (uint32_t i = 0; i < q->nb; i++) {
        cs_free(q->b[i].ev);
        cs_free(q->b[i].aux);
    }
    cs_free(q->b);
    cs_free(q->theap);
    cs_free(q->map);
    cs_free(q->dead);
    cs_free(q->tmp);
    cs_free(q->last);
    cs_free(q);
}

/* ---- inner heap (one bucket, by key then seq) ---- */

static void ev_sift_up(cs_event *h, size_t i) {
    cs_event e = h[i];
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!ev_before(&e, &h[p])) break;
        h[i] = h[p];
        i = p;
    }
    h[i] = e;
}

static void ev_sift_down(cs_event *h, size_t n, size_t i) {
    cs_event e = h[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && ev_before(&h[c + 1], &h[c])) c++;
        if (!ev_before(&h[c], &e)) break;
        h[i] = h[c];
        i = c;
    }
    h[i] = e;
}

/* Sorts a[0..n) by (key, seq); tmp holds n events.  Halves already in order
 * (pushes come in ascending runs) are not merged. */
static void ev_msort(cs_event *a, cs_event *tmp, size_t n) {
    if (n <= 16) { /* insertion sort */
        for (size_t i = 1; i < n; i++) {
            cs_event e = a[i];
            size_t j = i;
            for (; j > 0 && ev_before(&e, &a[j - 1]); j--) a[j] = a[j - 1];
            a[j] = e;
        }
        return;
    }
    size_t m = n / 2;
    ev_msort(a, tmp, m);
    ev_msort(a + m, tmp, n - m);
    if (!ev_before(&a[m], &a[m - 1])) return;
    size_t i = 0, j = m, k = 0;
    while (i < m && j < n) tmp[k++] = ev_before(&a[j], &a[i]) ? a[j++] : a[i++];
    while (i < m) tmp[k++] = a[i++];
    /* a[j..n) is already in place */
    memcpy(a, tmp, k * sizeof *a);
}

/* An UNSORTED bucket becomes SORTED. */
static void bucket_sort(cs_eventq *q, bucket *bk) {
    if (bk->n > q->tmp_cap) {
        cs_free(q->tmp);
        q->tmp_cap = bk->n;
        q->tmp = cs_malloc(q->tmp_cap * sizeof *q->tmp);
    }
    ev_msort(bk->ev, q->tmp, bk->n);
    bk->unsorted = 0;
}

/* Capacity c doubled (from 0: first), checked against the 32-bit counts. */
static uint32_t grow_cap(uint32_t c, uint32_t first) {
    CS_ALWAYS(c < UINT32_MAX / 2, "more than 2^31 events at one timestamp");
    return c ? c * 2 : first;
}

/* later: the bucket's time is after now (nothing of it was popped). */
static void bucket_push(bucket *bk, const cs_event *e, int later) {
    if (bk->single) { /* a second event: the first moves to the array */
        bk->single = 0; /* (n = 1, head = 0: a popped SINGLE bucket is freed at once) */
        if (!bk->cap) {
            bk->cap = 2;
            bk->ev = cs_realloc(bk->ev, bk->cap * sizeof *bk->ev);
        }
        bk->ev[0] = bk->one;
    }
    if (!bk->unsorted && bk->n > bk->head && ev_before(e, &bk->ev[bk->n - 1])) {
        if (!later) { /* out of order at the current time: the side heap */
            if (bk->aux_n == bk->aux_cap) {
                bk->aux_cap = grow_cap(bk->aux_cap, 4);
                bk->aux = cs_realloc(bk->aux, bk->aux_cap * sizeof *bk->aux);
            }
            bk->aux[bk->aux_n++] = *e;
            ev_sift_up(bk->aux, bk->aux_n - 1);
            return;
        }
        /* out of order, before its time: sort once when it comes to the top */
        uint32_t m = bk->n - bk->head;
        memmove(bk->ev, bk->ev + bk->head, m * sizeof *bk->ev);
        bk->head = 0;
        bk->n = m;
        bk->unsorted = 1;
    }
    if (!bk->unsorted && bk->head == bk->n) bk->head = bk->n = 0;
    if (bk->n == bk->cap) { /* grow 2, 4, 8, ...: most timestamps hold one event (SINGLE) */
        bk->cap = grow_cap(bk->cap, 2);
        bk->ev = cs_realloc(bk->ev, bk->cap * sizeof *bk->ev);
    }
    bk->ev[bk->n++] = *e;
}

/* 1 when the next event is the side heap's. */
static int bucket_aux_first(const bucket *bk) {
    return bk->aux_n && (bk->head == bk->n || ev_before(&bk->aux[0], &bk->ev[bk->head]));
}

static const cs_event *bucket_top(const bucket *bk) {
    if (bk->single) return &bk->one;
    return bucket_aux_first(bk) ? &bk->aux[0] : &bk->ev[bk->head];
}

static void bucket_pop(bucket *bk, cs_event *top) {
    if (bk->single) {
        *top = bk->one;
        bk->head = 1;
    } else if (!bucket_aux_first(bk)) {
        *top = bk->ev[bk->head++];
        /* a handler's context (a stream) and argument (often a pointer: a
         * network message) are often cold in large runs: start loading those
         * of the event 3 places ahead (a prefetch of a value that is not an
         * address does nothing) */
        if (bk->head + 3 < bk->n) {
            const cs_event *f = &bk->ev[bk->head + 3];
            __builtin_prefetch(f->ctx);
            __builtin_prefetch((const void *)(uintptr_t)f->arg);
        }
    } else {
        *top = bk->aux[0];
        bk->aux_n--;
        if (bk->aux_n) {
            bk->aux[0] = bk->aux[bk->aux_n];
            ev_sift_down(bk->aux, bk->aux_n, 0);
        }
    }
}

static int bucket_empty(const bucket *bk) { return bk->head == bk->n && (bk->single || bk->aux_n == 0); }

/* ---- outer heap of timestamps (binary; equal times cannot occur: one entry
 * per distinct time) ---- */

static void t_sift_up(cs_eventq *q, size_t i) {
    struct theap_ent x = q->theap[i];
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (q->theap[p].time <= x.time) break;
        q->theap[i] = q->theap[p];
        i = p;
    }
    q->theap[i] = x;
}

/* (The earlier child is chosen without a branch -- the times are random to
 * the predictor -- against a sentinel of the latest time past the end: the
 * heap always has room for it.) */
static void t_sift_down(cs_eventq *q, size_t i) {
    struct theap_ent *h = q->theap;
    size_t n = q->tn;
    struct theap_ent x = h[i];
    h[n].time = UINT64_MAX;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        c += h[c + 1].time < h[c].time;
        if (h[c].time >= x.time) break;
        h[i] = h[c];
        i = c;
    }
    h[i] = x;
}

/* ---- time -> bucket map ---- */

static size_t map_home(cs_time t, size_t cap) {
    uint64_t h = (t ^ (t >> 29)) * 0x9E3779B97F4A7C15ULL;
    return (size_t)(h >> 17) & (cap - 1);
}

static void map_insert(struct map_ent *map, size_t cap, cs_time t, uint32_t bi1) {
    size_t i = map_home(t, cap);
    while (map[i].bi1) i = (i + 1) & (cap - 1);
    map[i].time = t;
    map[i].bi1 = bi1;
}

/* hole: map_get's empty slot for t, if nothing was added since (SIZE_MAX:
 * probe again). */
static void map_put(cs_eventq *q, cs_time t, uint32_t bi, size_t hole) {
    if ((q->map_n + 1) * 2 > q->map_cap) {
        struct map_ent *old = q->map;
        size_t ocap = q->map_cap;
        q->map_cap = ocap ? ocap * 2 : 64;
        q->map = cs_calloc(q->map_cap, sizeof *q->map);
        for (size_t i = 0; i < ocap; i++)
            if (old[i].bi1) map_insert(q->map, q->map_cap, old[i].time, old[i].bi1);
        cs_free(old);
        hole = SIZE_MAX;
    }
    if (hole != SIZE_MAX) {
        q->map[hole].time = t;
        q->map[hole].bi1 = bi + 1;
    } else {
        map_insert(q->map, q->map_cap, t, bi + 1);
    }
    q->map_n++;
}

/* The bucket of time t, or NO_BUCKET and (*hole) the empty slot where t
 * would go (SIZE_MAX: none, the map is not allocated). */
static uint32_t map_get(const cs_eventq *q, cs_time t, size_t *hole) {
    *hole = SIZE_MAX;
    if (!q->map_cap) return NO_BUCKET;
    size_t mask = q->map_cap - 1, i = map_home(t, q->map_cap);
    for (; q->map[i].bi1; i = (i + 1) & mask)
        if (q->map[i].time == t) return q->map[i].bi1 - 1;
    *hole = i;
    return NO_BUCKET;
}

/* Backward-shift deletion: each later entry of the probe run moves into the
 * hole unless its home lies cyclically in (hole, its slot]. */
static void map_del(cs_eventq *q, cs_time t) {
    size_t mask = q->map_cap - 1;
    size_t i = map_home(t, q->map_cap);
    while (q->map[i].bi1 && q->map[i].time != t) i = (i + 1) & mask;
    if (!q->map[i].bi1) return;
    q->map_n--;
    for (size_t j = (i + 1) & mask; q->map[j].bi1; j = (j + 1) & mask) {
        size_t h = map_home(q->map[j].time, q->map_cap);
        if (((j - h) & mask) < ((j - i) & mask)) continue; /* home in (i, j]: stays */
        q->map[i] = q->map[j];
        i = j;
    }
    q->map[i].bi1 = 0;
}

/* ---- the store: push / peek / pop over all buckets ---- */

static void store_push(cs_eventq *q, const cs_event *e) {
    if (e->key == UINT64_MAX && e->time == q->h.now &&
        (q->last_head == q->last_n || e->seq > q->last[q->last_n - 1].seq)) {
        /* the instant's last, kept in seq order (a push_seq with an older number goes to the bucket;
         * last_first merges the two) */
        if (q->last_head == q->last_n) q->last_head = q->last_n = 0;
        CS_GROW(q->last, q->last_cap, q->last_n + 1);
        q->last[q->last_n++] = *e;
        q->n++;
        return;
    }
    uint32_t bi;
    size_t hole = SIZE_MAX;
    if (q->last_bi != NO_BUCKET && q->b[q->last_bi].time == e->time) {
        bi = q->last_bi;
    } else {
        bi = q->prev_bi != NO_BUCKET && q->b[q->prev_bi].time == e->time ? q->prev_bi : map_get(q, e->time, &hole);
        q->prev_bi = q->last_bi;
    }
    if (bi == NO_BUCKET) {
        if (q->free_head != NO_BUCKET) {
            bi = q->free_head;
            q->free_head = q->b[bi].next_free;
        } else {
            if (q->nb == q->capb) {
                q->capb = q->capb ? q->capb * 2 : 16;
                q->b = cs_realloc(q->b, q->capb * sizeof *q->b);
            }
            bi = q->nb++;
            memset(&q->b[bi], 0, sizeof q->b[bi]);
        }
        bucket *bk = &q->b[bi];
        bk->time = e->time;
        bk->one = *e; /* SINGLE */
        bk->single = 1;
        bk->n = 1;
        bk->head = bk->aux_n = 0;
        bk->unsorted = 0;
        map_put(q, e->time, bi, hole);
        CS_GROW(q->theap, q->tcap, q->tn + 2); /* (+ t_sift_down's sentinel) */
        q->theap[q->tn++] = (struct theap_ent){e->time, bi};
        t_sift_up(q, q->tn - 1);
    } else {
        bucket_push(&q->b[bi], e, e->time > q->h.now);
    }
    q->last_bi = bi;
    q->n++;
}

static const cs_event *bstore_top(cs_eventq *q) {
    if (!q->tn) return NULL;
    bucket *bk = &q->b[q->theap[0].bi];
    if (bk->unsorted) bucket_sort(q, bk);
    return bucket_top(bk);
}

static inline void bstore_pop(cs_eventq *q, cs_event *top) {
    uint32_t bi = q->theap[0].bi;
    bucket *bk = &q->b[bi];
    if (bk->unsorted) bucket_sort(q, bk);
    bucket_pop(bk, top);
    q->n--;
    if (bucket_empty(bk)) {
        map_del(q, q->theap[0].time); /* (not bk->time: a SINGLE bucket's pop reads its first 64 bytes only) */
        q->theap[0] = q->theap[--q->tn];
        if (q->tn) t_sift_down(q, 0);
        bk->next_free = q->free_head;
        q->free_head = bi;
        if (q->last_bi == bi) q->last_bi = NO_BUCKET;
        if (q->prev_bi == bi) q->prev_bi = NO_BUCKET;
    }
}

/* 1 when the next event is the first of `last` rather than the buckets'.
 * (Every bucket event at the current time with a smaller key, or with the
 * largest key and an earlier push, comes first; the buckets' later times
 * come after.) */
static inline int last_first(cs_eventq *q) {
    if (q->last_head == q->last_n) return 0;
    const cs_event *b = bstore_top(q);
    const cs_event *l = &q->last[q->last_head];
    return !b || l->time < b->time || (l->time == b->time && ev_before(l, b));
}

static const cs_event *store_top(cs_eventq *q) {
    return last_first(q) ? &q->last[q->last_head] : bstore_top(q);
}

static inline void store_pop(cs_eventq *q, cs_event *top) {
    if (__builtin_expect(last_first(q), 0)) {
        *top = q->last[q->last_head++];
        q->n--;
        return;
    }
    bstore_pop(q, top);
}

/* ---- a parallel queue ------------------------------------------------------- */

cs_eventq *cs_eventq_new_parallel(cs_peq *par, const uint32_t *part_of_rank) {
    cs_eventq *q = cs_eventq_new();
    q->h.par = par;
    q->part_of = part_of_rank;
    return q;
}

cs_peq *cs_eventq_parallel(const cs_eventq *q) { return q->h.par; }

/* To rank's partition (UINT32_MAX: the running handler's), or before the
 * run (no handler) as an initial event. */
__attribute__((noinline)) static void par_push(cs_eventq *q, uint32_t rank, cs_time t, uint64_t key, cs_event_fn fn, void *ctx, uint64_t arg) {
    cs_peq_part *p = cs_peq_self();
    cs_peq_fn f = (cs_peq_fn)(void (*)(void))fn; /* called back as a cs_event_fn (cs_peq_set_plain) */
    if (!p) {
        cs_peq_push_initial(q->h.par, rank == UINT32_MAX ? q->origin : q->part_of[rank], t, key, f, ctx, arg);
        return;
    }
    cs_peq_push(p, rank == UINT32_MAX ? cs_peq_index(p) : q->part_of[rank], t, key, f, ctx, arg);
}

/* cs_eventq_push's parallel path, with its signature so that the call is a
 * jump and the sequential path keeps its prologue. */
__attribute__((noinline)) static uint64_t par_push_own(cs_eventq *q, cs_time t, uint64_t key, cs_event_fn fn,
                                                      void *ctx, uint64_t arg) {
    cs_peq_part *p = cs_peq_self();
    if (__builtin_expect(p != NULL, 1)) /* (a handler: straight to its partition) */
        cs_peq_push(p, cs_peq_index(p), t, key, (cs_peq_fn)(void (*)(void))fn, ctx, arg);
    else
        par_push(q, UINT32_MAX, t, key, fn, ctx, arg);
    return 0;
}

uint32_t cs_eventq_part_outside(const cs_eventq *q) { return q->origin; }

void cs_eventq_set_origin(cs_eventq *q, uint32_t rank) {
    if (q->h.par) q->origin = q->part_of[rank];
}

int cs_eventq_owns(const cs_eventq *q, uint32_t rank) {
    if (!q->h.par) return 1;
    const cs_peq_part *p = cs_peq_self();
    return !p || q->part_of[rank] == cs_peq_index(p);
}

uint32_t cs_eventq_nparts(const cs_eventq *q) { return q->h.par ? cs_peq_nparts(q->h.par) : 1; }
uint32_t cs_eventq_part_of(const cs_eventq *q, uint32_t rank) { return q->h.par ? q->part_of[rank] : 0; }

void cs_eventq_push_rank(cs_eventq *q, uint32_t rank, cs_time t, uint64_t key, cs_event_fn fn, void *ctx,
                         uint64_t arg) {
    if (!q->h.par) {
        cs_eventq_push(q, t, key, fn, ctx, arg);
        return;
    }
    cs_peq_part *p = cs_peq_self();
    if (p) /* (a handler: straight to the rank's partition) */
        cs_peq_push(p, q->part_of[rank], t, key, (cs_peq_fn)(void (*)(void))fn, ctx, arg);
    else
        par_push(q, rank, t, key, fn, ctx, arg);
}

__attribute__((noinline)) uint64_t cs_eventq_push(cs_eventq *q, cs_time t, uint64_t key, cs_event_fn fn,
                                                  void *ctx, uint64_t arg) {
    if (__builtin_expect(q->h.par != NULL, 0)) return par_push_own(q, t, key, fn, ctx, arg); /* (a jump) */
    CS_ALWAYS(t >= q->h.now, "event scheduled at %" PRIu64 " ps, before now (%" PRIu64 " ps)", t, q->h.now);
    cs_event e = {t, key, q->next_seq++, fn, ctx, arg};
    store_push(q, &e);
    return e.seq;
}

/* Through cs_eventq_push with the counter set to seq (then put back), and
 * cs_eventq_push kept out of line here: store_push keeps its one call site,
 * where the compiler inlines it with bucket_push (a second call site made
 * both calls on every push of the sequential run). */
void cs_eventq_push_seq(cs_eventq *q, cs_time t, uint64_t key, uint64_t seq, cs_event_fn fn, void *ctx,
                        uint64_t arg) {
    uint64_t next = q->next_seq;
    q->next_seq = seq;
    cs_eventq_push(q, t, key, fn, ctx, arg);
    q->next_seq = next;
}

uint64_t cs_eventq_take_seq(cs_eventq *q) { return q->next_seq++; }

void cs_eventq_renumber(cs_eventq *q, uint64_t lo, uint64_t hi, uint64_t (*map)(void *ud, uint64_t seq), void *ud) {
    CS_ALWAYS(!q->dead_n, "renumbering a queue with %zu cancelled events pending", q->dead_n);
    for (size_t t = 0; t < q->tn; t++) {
        bucket *bk = &q->b[q->theap[t].bi];
        if (bk->single) {
            if (bk->one.seq >= lo && bk->one.seq < hi) bk->one.seq = map(ud, bk->one.seq);
            continue;
        }
        int changed = 0;
        for (uint32_t i = bk->head; i < bk->n; i++)
            if (bk->ev[i].seq >= lo && bk->ev[i].seq < hi) {
                bk->ev[i].seq = map(ud, bk->ev[i].seq);
                changed = 1;
            }
        for (uint32_t i = 0; i < bk->aux_n; i++)
            if (bk->aux[i].seq >= lo && bk->aux[i].seq < hi) {
                bk->aux[i].seq = map(ud, bk->aux[i].seq);
                changed = 1;
            }
        if (changed && !bk->unsorted) { /* back to one unsorted array, sorted when it comes to the top */
            uint32_t m = bk->n - bk->head;
            memmove(bk->ev, bk->ev + bk->head, m * sizeof *bk->ev);
            bk->head = 0;
            bk->n = m;
            if (bk->aux_n) {
                if (bk->n + bk->aux_n > bk->cap) {
                    while (bk->n + bk->aux_n > bk->cap) bk->cap = grow_cap(bk->cap, 2);
                    bk->ev = cs_realloc(bk->ev, bk->cap * sizeof *bk->ev);
                }
                memcpy(bk->ev + bk->n, bk->aux, bk->aux_n * sizeof *bk->ev);
                bk->n += bk->aux_n;
                bk->aux_n = 0;
            }
            bk->unsorted = 1;
        }
    }
    for (size_t i = q->last_head; i < q->last_n; i++)
        CS_ALWAYS(!(q->last[i].seq >= lo && q->last[i].seq < hi), "renumbering an event of the instant's last");
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
    for (size_t t = 0; t < q->tn; t++) {
        const bucket *bk = &q->b[q->theap[t].bi];
        const cs_event *ev = bucket_ev(bk);
        for (size_t i = bk->head; i < bk->n; i++) keep += (size_t)dead_has(&old, ev[i].seq);
        for (size_t i = 0; i < bk->aux_n; i++) keep += (size_t)dead_has(&old, bk->aux[i].seq);
    }
    for (size_t i = q->last_head; i < q->last_n; i++) keep += (size_t)dead_has(&old, q->last[i].seq);
    size_t ncap = 16;
    while (ncap < 2 * keep) ncap *= 2;
    q->dead = cs_calloc(ncap, sizeof *q->dead);
    q->dead_cap = ncap;
    q->dead_n = 0;
    for (size_t t = 0; t < q->tn && q->dead_n < keep; t++) {
        const bucket *bk = &q->b[q->theap[t].bi];
        const cs_event *ev = bucket_ev(bk);
        for (size_t i = bk->head; i < bk->n; i++)
            if (dead_has(&old, ev[i].seq)) dead_insert(q, ev[i].seq);
        for (size_t i = 0; i < bk->aux_n; i++)
            if (dead_has(&old, bk->aux[i].seq)) dead_insert(q, bk->aux[i].seq);
    }
    for (size_t i = q->last_head; i < q->last_n && q->dead_n < keep; i++)
        if (dead_has(&old, q->last[i].seq)) dead_insert(q, q->last[i].seq);
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

/* Discard cancelled events waiting at the front of the queue. */
static void drop_dead_top(cs_eventq *q) {
    while (q->n && q->dead_n && dead_has(q, store_top(q)->seq)) {
        cs_event top;
        store_pop(q, &top);
        dead_take(q, top.seq);
    }
}

int cs_eventq_pop(cs_eventq *q, cs_event *out) {
    while (q->n) {
        store_pop(q, out);
        if (q->dead_n && dead_take(q, out->seq)) continue;
        CS_ALWAYS(out->time >= q->h.now, "event of %" PRIu64 " ps popped after %" PRIu64 " ps", out->time, q->h.now);
        q->h.now = out->time;
        return 1;
    }
    return 0;
}

int cs_eventq_next_time(cs_eventq *q, cs_time *t) {
    drop_dead_top(q);
    if (!q->n) return 0;
    *t = store_top(q)->time;
    return 1;
}

int cs_eventq_pop_before(cs_eventq *q, cs_time end, cs_event *out) {
    if (q->dead_n) drop_dead_top(q);
    if (!q->n) return 0;
    /* the earliest time: the timestamp heap's top unless the instant's last
     * events wait (then store_top's merge) -- without reading the bucket,
     * which store_pop reads next */
    cs_time t = q->last_head == q->last_n ? q->theap[0].time : store_top(q)->time;
    if (t >= end) return 0;
    store_pop(q, out);
    CS_ALWAYS(out->time >= q->h.now, "event of %" PRIu64 " ps popped after %" PRIu64 " ps", out->time, q->h.now);
    q->h.now = out->time;
    return 1;
}

int cs_eventq_step(cs_eventq *q) {
    cs_event e;
    if (!cs_eventq_pop(q, &e)) return 0;
    q->dispatched++;
    uint64_t saved_key = q->h.cur_key;
    int saved_in = q->h.in_dispatch;
    q->h.cur_key = e.key;
    q->h.in_dispatch = 1;
    e.fn(e.ctx, &e);
    q->h.cur_key = saved_key;
    q->h.in_dispatch = saved_in;
    return 1;
}

uint64_t cs_eventq_run(cs_eventq *q, cs_time until) {
    uint64_t n = 0;
    for (;;) {
        /* Tombstones first: a cancelled event at the top must not let the
         * bound check pass and then dispatch a later live event. */
        drop_dead_top(q);
        if (!q->n || store_top(q)->time > until) break;
        if (cs_eventq_step(q)) n++;
    }
    return n;
}

const cs_event *cs_eventq_ahead(const cs_eventq *q, size_t k) {
    if (!q->tn) return NULL;
    const bucket *bk = &q->b[q->theap[0].bi];
    if (bk->aux_n || bk->unsorted || bk->time != q->h.now || k >= bk->n - bk->head) return NULL;
    return &bucket_ev(bk)[bk->head + k];
}

/* (ahead_run: the top bucket whatever its time -- at the current time, or
 * the next one's when the current instant is used up.) */
const cs_event *cs_eventq_ahead_run(const cs_eventq *q, size_t *n) {
    *n = 0;
    if (!q->tn) return NULL;
    const bucket *bk = &q->b[q->theap[0].bi];
    if (bk->aux_n || bk->unsorted) return NULL;
    *n = bk->n - bk->head;
    return &bucket_ev(bk)[bk->head];
}

/* A parallel queue outside the run's handlers: the latest event's time. */
cs_time cs_eventq_now_outside(const cs_eventq *q) {
    cs_time t = 0;
    for (uint32_t i = 0; i < cs_peq_nparts(q->h.par); i++)
        if (cs_peq_part_now(q->h.par, i) > t) t = cs_peq_part_now(q->h.par, i);
    return t;
}

size_t cs_eventq_size(const cs_eventq *q) { return q->n; }
uint64_t cs_eventq_dispatched(const cs_eventq *q) {
    if (q->h.par) {
        cs_peq_stats st;
        cs_peq_get_stats(q->h.par, &st);
        return st.dispatched;
    }
    return q->dispatched;
}

