/*
 * peq.h -- the conservative parallel event engine: P partitions (groups of
 * ranks), each with its own event queue, run by up to P threads in time
 * windows, popping every event in exactly the order the one sequential
 * queue (core/eventq.h) pops it.
 *
 * Windows.  lookahead L (ps, >= 1) is a lower bound on the delay of every
 * push from one partition into another.  A window is [T, T + L) with T the
 * earliest pending time of all partitions: no event of the window can cause
 * an event of another partition inside it, so the partitions process their
 * windows independently.  An event for another partition waits in a
 * per-(source, destination) mailbox; at the barrier they are numbered, and
 * delivered at the start of the next window (which begins no later than the
 * earliest of them).  An event for the own partition at or after the window's end
 * goes into its queue at once, numbered as the barrier would number it
 * (renumbered there in the rare window that needs the merge below).
 * A push into another partition earlier than now + L is refused: the run
 * fails with an internal error naming the times (it would break the order).
 *
 * Order.  The sequential queue orders by (time, key, seq), seq being the
 * global insertion count.  Inside a window a partition numbers its own
 * pushes provisionally (above every number handed out before the window:
 * they were pushed later), which orders them among themselves as the
 * sequential run would.  At the barrier the mailed events get final
 * numbers, consistent with the sequential order for every pair that can
 * ever be compared -- same (time, key): mailed earlier, lower number; mailed
 * in the same window by one partition, its push order; by two partitions,
 * the order of their parents in the sequential run, found by merging the
 * partitions' pop logs of the window (a k-way merge by (time, key, seq)
 * with provisional seqs resolved through the parent's merged position).
 * Pairs with different (time, key) never compare their seq, so the merge
 * runs only in windows where two partitions mailed events of one
 * (time, key) -- cs_peq_stats.merges.
 *
 * Handlers must touch only their partition's state (that is the model's
 * part of the contract); the engine's own state is per partition, and the
 * barrier phase runs on one thread.  Cancellation is not offered.
 */
#ifndef CS_CORE_PEQ_H
#define CS_CORE_PEQ_H

#include <stdint.h>

#include "core/error.h"
#include "core/eventq.h"
#include "core/time.h"

/* (cs_peq, cs_peq_part -- one partition, as its handlers see it -- and
 * cs_peq_hot, its fields read inline, are declared in core/eventq.h) */
typedef void (*cs_peq_fn)(cs_peq_part *p, void *ctx, const cs_event *ev);

cs_peq *cs_peq_new(uint32_t nparts, cs_time lookahead_ps);
void cs_peq_free(cs_peq *q);

/* Before the run: schedule fn in partition part (< nparts; taken modulo
 * nparts), numbered in call order. */
void cs_peq_push_initial(cs_peq *q, uint32_t part, cs_time t, uint64_t key, cs_peq_fn fn, void *ctx,
                         uint64_t arg);
/* From a handler of partition p: schedule fn in partition part (p's own at
 * or after now; another at or after now + lookahead; part < nparts).  A
 * push breaking these fails the run (cs_peq_run's error). */
void cs_peq_push(cs_peq_part *p, uint32_t part, cs_time t, uint64_t key, cs_peq_fn fn, void *ctx, uint64_t arg);

static inline const cs_peq_hot *cs_peq_hot_of(const cs_peq_part *p) { return (const cs_peq_hot *)(const void *)p; }
static inline cs_time cs_peq_now(const cs_peq_part *p) { return cs_peq_hot_of(p)->now; }
static inline uint32_t cs_peq_index(const cs_peq_part *p) { return cs_peq_hot_of(p)->idx; }
static inline uint64_t cs_peq_key(const cs_peq_part *p) { return cs_peq_hot_of(p)->cur_key; }

/* Run until every queue is empty, on nthreads threads (1 .. nparts;
 * partition i runs on thread i % nthreads).  Returns CS_OK, or an error
 * (a lookahead violation) in *err. */
int cs_peq_run(cs_peq *q, uint32_t nthreads, cs_error *err);

/* Plain handlers: events pushed with cs_peq_push/_initial carry a
 * cs_event_fn (cast to cs_peq_fn by the caller) and are called as
 * fn(ctx, ev); the partition running them is cs_peq_self() (thread-local,
 * NULL outside a handler).  This is how the simulator's layers run on the
 * engine through an ordinary cs_eventq (cs_eventq_new_parallel). */
void cs_peq_set_plain(cs_peq *q);
/* Time the rounds (the CPU seconds of cs_peq_stats; off by default: a
 * system call per reading, four per window on thread 0). */
void cs_peq_set_timing(cs_peq *q, int on);
/* The barrier's tie check filters a window's mail through per-partition
 * bit filters from this many events on (default 1024), and checks every
 * event exactly below it; 0: always filter (tests run both ways). */
void cs_peq_set_filter_from(cs_peq *q, size_t events);
static inline cs_peq_part *cs_peq_self(void) { return cs_peq_self_; }
/* Checked by one thread at every barrier: nonzero ends the run there
 * (cs_peq_stopped then says so). */
void cs_peq_set_stop(cs_peq *q, int (*stop)(void *ud), void *ud);
int cs_peq_stopped(const cs_peq *q);
/* Called by one thread at every barrier while the others wait -- once
 * before the first window, then after each window's mail is numbered (it is
 * delivered at the next window's start: the events it holds are still
 * counted by their sources), before the next window is planned, the last
 * time after the last window: the model's serial work (the system frees
 * there the collectives that every partition has let go of).  One hook per
 * engine. */
void cs_peq_set_barrier(cs_peq *q, void (*fn)(void *ud), void *ud);
uint32_t cs_peq_nparts(const cs_peq *q);
/* The time of partition part's last event. */
cs_time cs_peq_part_now(const cs_peq *q, uint32_t part);

typedef struct cs_peq_stats {
    uint64_t dispatched; /* events popped and run */
    uint64_t windows;    /* windows run */
    uint64_t mailed;     /* events mailed to another partition: numbered at a barrier, delivered at the next
                            window's start */
    uint64_t merges;     /* windows whose mail needed the merged pop order */
    /* CPU seconds (CLOCK_THREAD_CPUTIME_ID, so a loaded machine does not
     * inflate them; 0 unless cs_peq_set_timing): of the barrier phase on thread 0 (numbering, merge,
     * planning), and the sum over rounds of the slowest thread's share --
     * together the critical path, what the wall time would be on idle
     * cores less the barriers' wake-ups */
    double serial_cpu_s, parallel_cpu_s;
} cs_peq_stats;
void cs_peq_get_stats(const cs_peq *q, cs_peq_stats *st);

#endif
