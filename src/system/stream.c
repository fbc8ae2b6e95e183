/*
 * stream.c -- streams through per-rank queues (part of the system layer;
 * see sys_int.h).  Owned by the system layer.
 *
 * Every rank has one queue per network dimension (ASTRA-sim's
 * active_Streams with one queue per dimension) -- or, with the system's
 * communicator-queues per-communicator, one per communicator and dimension
 * (css_rq: created on first use), so that communicators never block each
 * other (NCCL: a stream per communicator); such a queue orders its waiting
 * streams by (collective number, chunk), its collectives' issue order on
 * every member, whatever the scheduling policy.  A stream waits in the queue
 * of its current phase; the first `active-chunks-per-dimension` streams of a
 * queue run (ASTRA-sim: queue_threshold = ceil(active / queues-per-dim)),
 * the others wait in the queue's order:
 *  - FIFO intra-dimension scheduling (and always for all-reduce and
 *    all-to-all phases): after the running streams, by priority, highest
 *    first, equal priorities in arrival order.  A collective's streams share
 *    one priority: the rank's counter, incremented per collective for LIFO
 *    (newest first), decremented for FIFO, or the node's comm_priority for
 *    EXPLICIT;
 *  - RG, smallestFirst, lessRemainingPhaseFirst: ASTRA-sim's insertion rules
 *    for reduce-scatter / all-gather phases, re-derived below.
 * When a phase ends, the stream leaves its queue (freeing a running slot
 * that the next waiting stream takes at once) and enters the queue of its
 * next phase; after its last phase its chunk counts as done for the member.
 *
 * This mirrors ASTRA-sim's proceed_to_next_vnet_baseline, except that the
 * member's completion callback runs after the queue bookkeeping instead of
 * before it (same instant; see docs/collectives.md).
 *
 * Invariants (core/invariant.h): a stream goes idle -> queued -> running ->
 * (queued -> running)* -> done and never leaves done (a chunk finishes
 * once); only a member that issued the collective has moving streams; a
 * queue's running streams are its first `running` entries, all RUNNING, at
 * most active-chunks-per-dimension of them, the others QUEUED; `running`
 * never goes below zero.
 */
#include <inttypes.h>
#include <string.h>

#include "core/alloc.h"
#include "core/invariant.h"
#include "core/rand.h"
#include "system/sys_int.h"

static size_t pcq_slot(const union css_pcqtab *T, uint32_t rank, uint32_t grp, int q) {
    uint64_t h = cs_mix64(((uint64_t)rank << 32 | grp) ^ cs_mix64((uint64_t)q + 1));
    for (size_t i = (size_t)h & (T->cap - 1);; i = (i + 1) & (T->cap - 1))
        if (!T->e[i].Q || (T->e[i].rank == rank && T->e[i].grp == grp && T->e[i].q == q)) return i;
}

cs_rankq *css_rq(cs_system *s, uint32_t rank, uint32_t grp, int q) {
    if (!s->per_comm) return &s->queues[(size_t)rank * (size_t)s->nqueues + (size_t)q];
    union css_pcqtab *T = &s->pcq[cs_eventq_part_of(s->q, rank)];
    if ((T->n + 1) * 2 > T->cap) { /* grow: rehash the entries (the queues themselves stay put) */
        union css_pcqtab old = *T;
        T->cap = old.cap ? old.cap * 2 : 256;
        T->e = cs_calloc(T->cap, sizeof *T->e);
        for (size_t i = 0; i < old.cap; i++)
            if (old.e[i].Q) T->e[pcq_slot(T, old.e[i].rank, old.e[i].grp, old.e[i].q)] = old.e[i];
        cs_free(old.e);
    }
    size_t i = pcq_slot(T, rank, grp, q);
    if (!T->e[i].Q) {
        T->e[i] = (struct css_pcq){rank, grp, q, cs_calloc(1, sizeof(cs_rankq))};
        T->n++;
    }
    return T->e[i].Q;
}

const cs_rankq *css_rq_find(const cs_system *s, uint32_t rank, uint32_t grp, int q) {
    if (!s->per_comm) return &s->queues[(size_t)rank * (size_t)s->nqueues + (size_t)q];
    static const cs_rankq empty;
    const union css_pcqtab *T = &s->pcq[cs_eventq_part_of(s->q, rank)];
    const cs_rankq *Q = T->cap ? T->e[pcq_slot(T, rank, grp, q)].Q : NULL;
    return Q ? Q : &empty;
}

/* What the guard names when two simultaneous events act on a queue. */
static const char *queue_label(const cs_system *s) {
    return s->per_comm ? "one dimension queue"
                       : "one dimension queue (communicator-queues shared: per-communicator gives each "
                         "communicator its own)";
}

/* The queue st waits in at rank for queue q. */
static cs_rankq *rq(cs_system *s, uint32_t rank, const cs_stream *st, int q) {
    return css_rq(s, rank, st->inst->grp->id, q);
}

static int32_t stream_priority(const cs_stream *st) {
    return st->inst->members[stream_member(st)].priority;
}

static uint32_t phases_to_go(const cs_stream *st) {
    /* ASTRA-sim's phases_to_go after the current phase was taken off it */
    return chunk_nphases(st->inst, stream_chunk(st)) - st->phase - 1u;
}

static uint64_t phase_span(const cs_stream *st) {
    const cs_phase *ph = stream_phase(st);
    return ph->in_bytes > ph->out_bytes ? ph->in_bytes : ph->out_bytes;
}

static int initialized(const cs_stream *st) { return st->state == ST_RUNNING; }

/* Position (pointer to the link) before which st goes, by the policies. */
static cs_stream **insert_point(cs_system *s, cs_rankq *Q, cs_stream *st) {
    cs_stream **pp = &Q->head;
    if (s->per_comm) { /* a communicator's queue runs its collectives in issue order (NCCL: one stream, FIFO):
                          after the running streams, by (collective number, chunk) -- the same order on every
                          member, so no two members admit its chunks in different orders */
        uint64_t seq = st->inst->seq;
        uint32_t ch = stream_chunk(st);
        while (*pp && (initialized(*pp) || (*pp)->inst->seq < seq ||
                       ((*pp)->inst->seq == seq && stream_chunk(*pp) <= ch)))
            pp = &(*pp)->qnext;
        return pp;
    }
    int ct = stream_phase(st)->ctype;
    cs_intra_dim_scheduling pol = s->cfg.intra_dim_scheduling;
    if (pol == CS_INTRA_FIFO || ct == CT_A2A || ct == CT_AR) {
        int32_t pri = stream_priority(st);
        while (*pp && (initialized(*pp) || stream_priority(*pp) >= pri)) pp = &(*pp)->qnext;
        return pp;
    }
    if (pol == CS_INTRA_RG) {
        /* Keep reduce-scatter and all-gather phases interleaved. */
        int one_to_last = CT_NONE, last = CT_NONE;
        int32_t pri = stream_priority(st);
        while (*pp) {
            one_to_last = last;
            last = stream_phase(*pp)->ctype;
            if (initialized(*pp)) {
                pp = &(*pp)->qnext;
                if (*pp && !initialized(*pp)) {
                    one_to_last = last;
                    last = stream_phase(*pp)->ctype;
                    pp = &(*pp)->qnext;
                }
                continue;
            }
            if (stream_priority(*pp) > pri) {
                pp = &(*pp)->qnext;
                continue;
            }
            if ((last == CT_RS && one_to_last == CT_AG) || (last == CT_AG && one_to_last == CT_RS)) {
                pp = &(*pp)->qnext;
                continue;
            }
            break;
        }
        return pp;
    }
    if (pol == CS_INTRA_SMALLEST_FIRST) {
        if (phases_to_go(st) == 1) { /* ASTRA-sim: goes to the end */
            while (*pp) pp = &(*pp)->qnext;
            return pp;
        }
        uint64_t mine = phase_span(st);
        while (*pp && (initialized(*pp) || phase_span(*pp) < mine)) pp = &(*pp)->qnext;
        return pp;
    }
    /* CS_INTRA_LESS_REMAINING_PHASE_FIRST */
    uint32_t mine = phases_to_go(st);
    while (*pp && (initialized(*pp) || phases_to_go(*pp) < mine)) pp = &(*pp)->qnext;
    return pp;
}

static void queue_insert(cs_system *s, uint32_t rank, int q, cs_stream *st) {
    cs_rankq *Q = rq(s, rank, st, q);
    cs_stream **pp = insert_point(s, Q, st);
    st->qnext = *pp;
    *pp = st;
}

static void queue_unlink(cs_system *s, uint32_t rank, int q, cs_stream *st) {
    cs_rankq *Q = rq(s, rank, st, q);
    for (cs_stream **pp = &Q->head; *pp; pp = &(*pp)->qnext)
        if (*pp == st) {
            *pp = st->qnext;
            st->qnext = NULL;
            return;
        }
    CS_UNREACHABLE("rank %u: chunk %u of collective #%" PRIu64 " leaves queue %d, where it "
              "is not", rank, stream_chunk(st), st->inst->seq, q);
}

/* One running stream of queue (rank, q) ends there. */
static void queue_release(cs_system *s, uint32_t rank, const cs_stream *st, int q) {
    cs_rankq *Q = rq(s, rank, st, q);
    CS_ALWAYS(Q->running > 0, "rank %u: queue %d releases a running slot with none taken", rank, q);
    Q->running--;
}

static void stream_init(cs_system *s, cs_stream *st) {
    st->state = ST_RUNNING;
    css_phase_algo(stream_phase(st))->run(s, st, EV_INIT);
}

/* Start waiting streams while the queue has room (the running streams are
 * always the first `running` of the list). */
static void queue_start(cs_system *s, uint32_t rank, const cs_stream *st, int q) {
    cs_rankq *Q = rq(s, rank, st, q);
    cs_stream *p = Q->head;
    for (uint32_t i = 0; p && i < Q->running; i++) {
        CS_ALWAYS(p->state == ST_RUNNING, "rank %u: queue %d: entry %u of %u running is in state %d", rank, q, i,
                  Q->running, p->state);
        p = p->qnext;
    }
    while (p && Q->running < s->queue_threshold) {
        cs_stream *next = p->qnext;
        CS_ALWAYS(p->state == ST_QUEUED, "rank %u: queue %d admits a stream in state %d", rank, q, p->state);
        Q->running++;
        stream_init(s, p);
        p = next;
    }
    CS_ALWAYS(Q->running <= s->queue_threshold, "rank %u: queue %d runs %u streams, above the limit of %u", rank, q,
              Q->running, s->queue_threshold);
}

void css_stream_proceed(cs_system *s, cs_stream *st) {
    cs_inst *in = st->inst;
    uint32_t m = stream_member(st), c = stream_chunk(st);
    uint32_t rank = css_inst_rank(in, m);
    CS_NEVER(st->state == ST_DONE, "rank %u: chunk %u of collective #%" PRIu64 " proceeds after its last phase", rank,
             c, in->seq);
    CS_ALWAYS(cs_eventq_owns(s->q, rank), "parallel run: rank %u's chunk %u proceeds in another partition", rank, c);
    CS_ALWAYS(in->members[m].issued, "rank %u: chunk %u of collective #%" PRIu64 " moves before its member issued it",
              rank, c, in->seq);
    int prev_q = -1, was_running = 0;
    if (st->state == ST_QUEUED || st->state == ST_RUNNING) {
        was_running = st->state == ST_RUNNING;
        prev_q = stream_phase(st)->queue;
        if (s->rep) css_sym_touch(s, rq(s, rank, st, prev_q), queue_label(s));
        queue_unlink(s, rank, prev_q, st);
        st->phase++;
    }
    if (st->phase >= chunk_nphases(in, c)) {
        st->state = ST_DONE;
        if (prev_q >= 0) {
            if (was_running) queue_release(s, rank, st, prev_q);
            queue_start(s, rank, st, prev_q);
        }
        css_member_chunk_done(in, m);
        return;
    }
    st->ph_index = in->phase_begin[c] + st->phase;
    const cs_phase *ph = stream_phase(st);
    if (s->rep) css_sym_touch(s, rq(s, rank, st, ph->queue), queue_label(s));
    st->idx = css_topo_index_of(s, m, ph);
    st->state = ST_QUEUED;
    const cs_coll_algo *a = css_phase_algo(ph);
    memset(&st->algo_state, 0, sizeof st->algo_state);
    if (a->setup) a->setup(st, ph);
    queue_insert(s, rank, ph->queue, st);
    if (prev_q >= 0) {
        if (was_running) queue_release(s, rank, st, prev_q);
        queue_start(s, rank, st, prev_q);
    }
    queue_start(s, rank, st, ph->queue);
}
