/*
 * eventq.h -- the deterministic event queue.
 *
 * Events are ordered by (time, key, seq): time in picoseconds, then a
 * caller-chosen 64-bit tie-break key, then the order of insertion.  Keys are
 * derived from *what* the event is (e.g. rank and a per-rank counter), not
 * from when it was inserted; but an event that inherits its cause's key
 * (the system layer's) shares it with its whole causal chain, so seq decides
 * many ties, and the parallel engine (core/peq.h) reproduces seq's order
 * (cs_eventq_push_seq: the caller's numbering).
 *
 * The queue is two-level: a heap of distinct timestamps and per timestamp a
 * bucket of events in (key, seq) order (eventq.c; the interface is small so
 * that a calendar or ladder queue can replace it after measurement); an
 * event pushed at the current time with key UINT64_MAX ("when the rest of
 * this instant is done") waits in a list of its own, in the same order.  Cancellation
 * is lazy: cancelled ids become tombstones skipped when popped.
 * Time never goes backwards: pushing an event earlier than the last popped
 * time is a bug (CS_ALWAYS, core/invariant.h).
 */
#ifndef CS_CORE_EVENTQ_H
#define CS_CORE_EVENTQ_H

#include <stddef.h>
#include <stdint.h>

#include "core/time.h"

typedef struct cs_event cs_event;
typedef void (*cs_event_fn)(void *ctx, const cs_event *ev);

struct cs_event {
    cs_time time;   /* when it fires, ps */
    uint64_t key;   /* tie-break among equal times */
    uint64_t seq;   /* insertion order (also the event id) */
    cs_event_fn fn; /* handler */
    void *ctx;      /* handler context (not owned) */
    uint64_t arg;   /* handler argument */
};

typedef struct cs_eventq cs_eventq;
typedef struct cs_peq cs_peq;             /* the parallel engine (core/peq.h) */
typedef struct cs_peq_part cs_peq_part;   /* one of its partitions */

/* What every handler asks of its queue -- the time, the key of the event
 * being dispatched, the partition -- read inline (a call for each cost a
 * few per cent of a full simulation): a queue's first member is its
 * cs_eventq_hot, a parallel engine's partition's its cs_peq_hot, and
 * cs_peq_self_ is the partition whose handler runs on this thread (NULL
 * outside handlers).  Not for other uses. */
typedef struct cs_eventq_hot {
    cs_peq *par;      /* the parallel engine (cs_eventq_new_parallel), else NULL */
    cs_time now;
    uint64_t cur_key; /* the event being dispatched */
    int in_dispatch;
} cs_eventq_hot;
typedef struct cs_peq_hot {
    cs_time now;
    uint64_t cur_key; /* the event being dispatched */
    uint32_t idx;     /* the partition's index */
} cs_peq_hot;
extern _Thread_local cs_peq_part *cs_peq_self_;
static inline const cs_eventq_hot *cs_eventq_hot_of(const cs_eventq *q) {
    return (const cs_eventq_hot *)(const void *)q;
}
static inline const cs_peq_hot *cs_peq_hot_self(void) { return (const cs_peq_hot *)(const void *)cs_peq_self_; }
cs_time cs_eventq_now_outside(const cs_eventq *q);    /* a parallel queue outside handlers */
uint32_t cs_eventq_part_outside(const cs_eventq *q);  /* likewise */

cs_eventq *cs_eventq_new(void);
void cs_eventq_free(cs_eventq *q);

/* Schedule fn(ctx, ev) at absolute time t; returns the event id. */
uint64_t cs_eventq_push(cs_eventq *q, cs_time t, uint64_t key, cs_event_fn fn, void *ctx,
                        uint64_t arg);
/* The same with a caller-given seq (the parallel engine's canonical
 * numbering, core/peq.h); the queue's own counter is left alone. */
void cs_eventq_push_seq(cs_eventq *q, cs_time t, uint64_t key, uint64_t seq, cs_event_fn fn, void *ctx,
                        uint64_t arg);
/* Give every pending event whose seq is in [lo, hi) the seq map(ud, seq)
 * (the parallel engine's rare renumbering, core/peq.c); the queue reorders
 * what it must.  Not with cancelled events pending. */
void cs_eventq_renumber(cs_eventq *q, uint64_t lo, uint64_t hi, uint64_t (*map)(void *ud, uint64_t seq), void *ud);
/* Take the seq (id) the next push would get, without pushing: a model that
 * keeps some events out of the queue (the packet backend's deferred
 * arrivals) numbers them as if pushed, and pushes one later with
 * cs_eventq_push_seq in exactly the place it would have had. */
uint64_t cs_eventq_take_seq(cs_eventq *q);
/* Cancel a pending event by id (no effect if it already fired). */
void cs_eventq_cancel(cs_eventq *q, uint64_t id);

/* Pop the next live event into *out; returns 0 when empty. Advances now. */
int cs_eventq_pop(cs_eventq *q, cs_event *out);
/* The time of the next live event into *t; returns 0 when empty. */
int cs_eventq_next_time(cs_eventq *q, cs_time *t);
/* Pop the next live event into *out if it is due before `end` (exclusive);
 * returns 0 otherwise.  Advances now. */
int cs_eventq_pop_before(cs_eventq *q, cs_time end, cs_event *out);
/* Pop and dispatch one event; returns 0 when empty. */
int cs_eventq_step(cs_eventq *q);
/* Run until empty or until now would pass 'until' (inclusive). Returns events dispatched. */
uint64_t cs_eventq_run(cs_eventq *q, cs_time until);

/* A hint for prefetching: the event k places after the one being
 * dispatched (k = 0: the next to pop), when it is at the current time in a
 * bucket kept in pop order; NULL otherwise.  It may be cancelled; nothing
 * may depend on it but what is read ahead of time. */
const cs_event *cs_eventq_ahead(const cs_eventq *q, size_t k);
/* The same hint in one call, for the next pending time too: the events of
 * the earliest pending time (the current one, or the next when the current
 * instant is used up) still to pop, run[0..*n) in pop order (*n = 0 when
 * that bucket is not kept in pop order).  Events pushed meanwhile may come
 * before them, and so do pending events of the current time with key
 * UINT64_MAX. */
const cs_event *cs_eventq_ahead_run(const cs_eventq *q, size_t *n);
size_t cs_eventq_size(const cs_eventq *q); /* pending, including tombstones */
uint64_t cs_eventq_dispatched(const cs_eventq *q);

/* A parallel queue (docs/parallel.md): the layers keep using one cs_eventq,
 * which forwards to the conservative parallel engine (core/peq.h, plain
 * handlers): cs_eventq_push schedules into the partition of the handler
 * running, cs_eventq_push_rank into rank's (part_of_rank[rank], borrowed);
 * now, dispatching and the key are the running handler's partition's.  The
 * engine runs it (cs_peq_run); cs_eventq_step/run/pop are not for it, nor
 * cancellation (cs_eventq_push returns 0). */
cs_eventq *cs_eventq_new_parallel(cs_peq *par, const uint32_t *part_of_rank);
cs_peq *cs_eventq_parallel(const cs_eventq *q); /* NULL for an ordinary queue */
/* Schedule fn for rank (its partition; an ordinary queue: cs_eventq_push).
 * Every push that acts on another rank's state goes through this. */
void cs_eventq_push_rank(cs_eventq *q, uint32_t rank, cs_time t, uint64_t key, cs_event_fn fn, void *ctx,
                         uint64_t arg);
uint32_t cs_eventq_nparts(const cs_eventq *q); /* (1 for an ordinary queue) */
uint32_t cs_eventq_part_of(const cs_eventq *q, uint32_t rank); /* rank's partition (0 for an ordinary queue) */
/* Whether the running handler may touch rank's state: 1 for an ordinary
 * queue and outside handlers, else whether rank is in the running
 * partition (the layers' invariants check it: core/invariant.h). */
int cs_eventq_owns(const cs_eventq *q, uint32_t rank);
/* Before the run: what is pushed outside handlers from now on acts for
 * rank (its partition; an ordinary queue ignores it). */
void cs_eventq_set_origin(cs_eventq *q, uint32_t rank);

/* The current time: the last popped event's (a parallel queue: the
 * running handler's partition's). */
static inline cs_time cs_eventq_now(const cs_eventq *q) {
    const cs_eventq_hot *h = cs_eventq_hot_of(q);
    if (__builtin_expect(h->par != NULL, 0)) {
        const cs_peq_hot *p = cs_peq_hot_self();
        return p ? p->now : cs_eventq_now_outside(q);
    }
    return h->now;
}

/* 1 while an event handler runs (then *key = that event's key), else 0.
 * Lets a layer give the events an event causes the key of their cause. */
static inline int cs_eventq_dispatching(const cs_eventq *q, uint64_t *key) {
    const cs_eventq_hot *h = cs_eventq_hot_of(q);
    if (__builtin_expect(h->par != NULL, 0)) {
        const cs_peq_hot *p = cs_peq_hot_self();
        if (p && key) *key = p->cur_key;
        return p != NULL;
    }
    if (h->in_dispatch && key) *key = h->cur_key;
    return h->in_dispatch;
}

/* The running handler's partition (0 for an ordinary queue; outside a
 * handler the origin's, cs_eventq_set_origin). */
static inline uint32_t cs_eventq_part(const cs_eventq *q) {
    if (__builtin_expect(cs_eventq_hot_of(q)->par == NULL, 1)) return 0;
    const cs_peq_hot *p = cs_peq_hot_self();
    return p ? p->idx : cs_eventq_part_outside(q);
}

#endif
