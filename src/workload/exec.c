/*
 * exec.c -- the graph executor (see exec.h): per-rank ready queues, the
 * compute, CPU and communication resources, point-to-point matching, and the
 * deadlock report.  Owns its per-rank state; the queue and layers are the
 * engine's.
 *
 * Invariants (core/invariant.h; docs/testing.md): a node goes waiting ->
 * ready (all parents done) -> issued -> done exactly once each (instant
 * nodes skip "issued"); no child is released by more parents than it has;
 * the communication counters never go below zero; a point-to-point message
 * arrives once; a finished run has received every byte it sent.
 */
#include "workload/exec.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/invariant.h"
#include "core/log.h"
#include "core/pool.h"
#include "core/waitfor.h"
#include "memory/remote.h"
#include "workload/custom_coll.h"

/* ---- small index min-heap --------------------------------------------- */

typedef struct idxheap {
    uint32_t *a;
    uint32_t n, cap;
} idxheap;

static void heap_push(idxheap *h, uint32_t v) {
    if (h->n == h->cap) {
        h->cap = h->cap ? h->cap * 2 : 4;
        h->a = cs_realloc(h->a, h->cap * sizeof *h->a);
    }
    uint32_t i = h->n++;
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (h->a[p] <= v) break;
        h->a[i] = h->a[p];
        i = p;
    }
    h->a[i] = v;
}

static uint32_t heap_pop(idxheap *h) {
    uint32_t top = h->a[0], v = h->a[--h->n], i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= h->n) break;
        if (c + 1 < h->n && h->a[c + 1] < h->a[c]) c++;
        if (h->a[c] >= v) break;
        h->a[i] = h->a[c];
        i = c;
    }
    if (h->n) h->a[i] = v;
    return top;
}

/* ---- state ---------------------------------------------------------------- */

typedef struct rank_state {
    const cs_graph *g;
    uint32_t *pending; /* remaining parents per node */
    idxheap ready_comp, ready_cpu, ready_comm, ready_recv;
    uint32_t comp_node, cpu_node;
    cs_time comp_start, cpu_start;
    uint8_t comp_busy, cpu_busy;
    uint32_t comm_inflight; /* comm-engine ops in flight */
    uint32_t comm_active;   /* all comm ops in flight incl. receives */
    cs_time comm_since;
    cs_time acct_since;     /* last change of what the rank runs (account()) */
    uint64_t recv_lanes;    /* bit k = lane CS_LANE_RECV0 + k in use */
    uint32_t evseq;
#ifdef CS_INVARIANTS
    uint8_t *nstate;        /* per node: NS_* (invariants only) */
#endif
} rank_state;

/* A node's life, for the invariants: waiting for parents, ready, issued, done. */
enum { NS_WAIT = 0, NS_READY = 1, NS_ISSUED = 2, NS_DONE = 3 };

typedef struct op op;
typedef struct chan chan;

/* What one partition of a parallel run keeps for itself (docs/parallel.md;
 * one, the executor's, without a parallel queue): ops, the instant
 * completions being settled, counters summed at the end. */
typedef struct xpart {
    cs_pool *op_pool;
    uint32_t *instant;
    size_t ninstant, capinstant;
    uint64_t nodes_done, roofline_fallbacks;
} xpart;
typedef struct cinst cinst;

struct cs_exec {
    const cs_workload *w;
    cs_eventq *q;
    int par;              /* a parallel queue (xp below; here, beside q: the hot paths test it) */
    cs_compute_model compute;
    uint32_t comm_streams;
    const cs_exec_observer *observer;
    cs_net *net;          /* attached by cs_exec_start (borrowed) */
    cs_system *sys;
    cs_memory *mem;
    rank_state *rs;
    cs_rank_result *ranks; /* w->nranks rows (borrowed) */
    const cs_time *rank_start; /* per rank: when its roots become ready (NULL = 0; borrowed) */
    /* per partition (one without a parallel queue): the op pool, instant
     * completions waiting to be processed (node indices of one rank), counters */
    xpart *xp;
    uint32_t nxp;
    char par_why[256];    /* a parallel run met what it cannot do exactly ("" = it did not) */
    uint32_t *pending;    /* every rank's pending-parent counters, one allocation */
#ifdef CS_INVARIANTS
    uint8_t *nstates;     /* every rank's node states (NS_*), one allocation */
#endif
    /* p2p channels (allocated with the first point-to-point message) */
    chan **chans;
    size_t nchan_buckets, nchans; /* hash of live channels; grown at 2 per bucket */
    /* failure: atomic, as a parallel run's partitions read it while another
     * may set it (the run is then thrown away and runs on one thread); the
     * first to set it from 0 keeps its code (fail) */
    _Atomic int failed;
    atomic_int par_claimed; /* par_why written (the first par_unsafe) */
    cs_error *err;
    /* symmetry: rank 0 alone stands for every rank */
    int rep;
    int cls;              /* class mode: one representative per class */
    uint32_t nactive;     /* ranks with executor state: 1 or nranks */
    uint32_t *reps;       /* the simulated ranks, ascending */
    uint64_t nodes_total; /* over the simulated ranks (progress; done: xpart) */
    uint32_t nreps;
    char rep_why[256];    /* why the representative run stopped ("" = it did not) */
    /* custom collectives: the graphs (NULL = none configured), the groups,
     * the instances running (for the deadlock report) */
    cs_custom_colls *custom;
    const cs_custom_node_map *custom_nodes;
    cs_cdim_loader cdim; /* custom:PREFIX entries: the graphs handed to the system layer */
    const cs_system_config *syscfg;
    const cs_comm_groups *groups;
    cinst *cinsts;
    uint64_t cserial;
};

typedef struct cs_exec sim;

static inline xpart *XP(const sim *s) { return &s->xp[s->par ? cs_eventq_part(s->q) : 0]; }

/* A parallel run meets what one partition cannot do alone: the run stops
 * (the engine runs it again on one thread, saying why). */
static void fail(sim *s, int rc);
static int par_unsafe(sim *s, const char *why) {
    int no = 0;
    if (atomic_compare_exchange_strong(&s->par_claimed, &no, 1)) snprintf(s->par_why, sizeof s->par_why, "%s", why);
    fail(s, CS_EUNSUPPORTED);
    return CS_EUNSUPPORTED;
}

struct op {
    sim *s;
    uint32_t rank, node;
    cs_time start;
    uint32_t lane;
    int32_t peer;
    /* p2p */
    op *next;       /* in a channel queue */
    uint64_t bytes;
    int arrived;    /* send: bytes have arrived */
    op *matched;    /* send <-> recv */
    int32_t tag;    /* p2p: the channel's tag */
    cinst *ci;      /* a node of a custom collective's graph running now, or NULL */
    const cs_graph *cg; /* the custom graph `node` indexes (also kept by a send's ghost, which
                           can outlive its instance), or NULL: the rank's graph */
};

/* One rank's run of a custom collective graph (custom_coll.h) for the
 * COMM_COLL op `coll`: positions in the graph are members of `grp` (NULL =
 * the default communicator: position = rank). */
struct cinst {
    sim *s;
    op *coll;
    const cs_graph *g;
    const cs_comm_group *grp;
    const char *key;      /* the system-file key that chose it */
    uint32_t *pending;    /* parents left per node */
    uint32_t left;        /* nodes not completed */
    uint64_t serial;
    /* its record (collectives.csv): communicator, issue number, bytes moved */
    uint32_t group_id, nmembers;
    uint64_t seq, bytes_sent, bytes_recv;
    char algos[96];       /* "custom:PREFIX" */
    cinst *prev, *next;   /* sim.cinsts */
};

struct chan {
    uint32_t src, dst;
    int32_t tag;
    op *sends, *sends_tail; /* sends not yet matched by a receive, in issue order */
    op *recvs, *recvs_tail; /* receives not yet matched by a send */
    chan *next;
};

static uint64_t next_key(sim *s, uint32_t rank) {
    return ((uint64_t)rank << 32) | s->rs[rank].evseq++;
}

/* The graph node o->node indexes: a custom collective's, or the rank's. */
static const cs_graph *op_graph(const sim *s, const op *o) { return o->cg ? o->cg : s->rs[o->rank].g; }

static void fail(sim *s, int rc) {
    int none = 0;
    atomic_compare_exchange_strong(&s->failed, &none, rc ? rc : CS_EINTERNAL);
}

static void try_issue(sim *s, uint32_t rank);

/* Node idx of rank moves from state `from` (or from2) to `to` (NS_*). */
static void node_moves(sim *s, uint32_t rank, uint32_t idx, int from, int from2, int to, const char *what) {
#ifdef CS_INVARIANTS
    rank_state *r = &s->rs[rank];
    CS_ALWAYS(r->nstate[idx] == from || r->nstate[idx] == from2,
              "rank %u: %s node %" PRIu64 " (index %u) %s in state %d; expected state %d or %d", rank, r->g->source,
              r->g->nodes[idx].id, idx, what, r->nstate[idx], from, from2);
    r->nstate[idx] = (uint8_t)to;
#else
    (void)s, (void)rank, (void)idx, (void)from, (void)from2, (void)to, (void)what;
#endif
}

/* ---- completion ------------------------------------------------------------ */

/* Before what the rank runs changes: the time since the last change goes
 * to the first of GPU compute (counted as compute, at the op's end), a CPU
 * op, communication in flight, nothing (cs_rank_result). */
static void account(sim *s, uint32_t rank) {
    rank_state *r = &s->rs[rank];
    cs_time now = cs_eventq_now(s->q), dt = now - r->acct_since;
    r->acct_since = now;
    if (!dt || r->comp_busy) return;
    cs_rank_result *rr = &s->ranks[rank];
    if (r->cpu_busy) rr->cpu_only += dt;
    else if (r->comm_active) rr->comm_only += dt;
    else rr->idle += dt;
}

static void comm_begin(sim *s, uint32_t rank) {
    rank_state *r = &s->rs[rank];
    account(s, rank);
    if (r->comm_active++ == 0) r->comm_since = cs_eventq_now(s->q);
}

static void comm_end(sim *s, uint32_t rank) {
    rank_state *r = &s->rs[rank];
    account(s, rank);
    CS_ALWAYS(r->comm_active > 0, "rank %u: a communication op ends with none in flight", rank);
    if (--r->comm_active == 0) s->ranks[rank].comm_busy += cs_eventq_now(s->q) - r->comm_since;
}

static void make_ready(sim *s, uint32_t rank, uint32_t idx);

/* Record completion of node idx of rank and release its children. */
static void complete(sim *s, uint32_t rank, uint32_t idx, cs_time start, uint32_t lane, int32_t peer) {
    CS_ALWAYS(cs_eventq_owns(s->q, rank), "parallel run: rank %u's node completes in another partition", rank);
    rank_state *r = &s->rs[rank];
    const cs_graph *g = r->g;
    cs_rank_result *rr = &s->ranks[rank];
    cs_time now = cs_eventq_now(s->q);
    CS_ALWAYS(r->pending[idx] == 0 && now >= start, "rank %u: %s node %" PRIu64 " completes with %u parents pending, "
              "at %" PRIu64 " ps from a start at %" PRIu64 " ps", rank, g->source, g->nodes[idx].id, r->pending[idx], now,
              start);
    node_moves(s, rank, idx, NS_READY, NS_ISSUED, NS_DONE, "completes");
    rr->nodes++;
    XP(s)->nodes_done++;
    rr->finish = now;
    if (s->observer && s->observer->node_done) {
        cs_node_span sp = {rank, g, &g->nodes[idx], start, now, lane, peer};
        s->observer->node_done(s->observer->ud, &sp);
    }
    for (uint32_t c = g->nodes[idx].child_begin; c < cs_graph_child_end(g, idx); c++) {
        uint32_t ch = g->children[c];
        CS_ALWAYS(r->pending[ch] > 0, "rank %u: %s node %" PRIu64 " released by more parents than it has", rank,
                  g->source, g->nodes[ch].id);
        if (--r->pending[ch] == 0) make_ready(s, rank, ch);
    }
}

/* Complete all queued instant nodes of rank, then issue what became ready. */
static void settle(sim *s, uint32_t rank) {
    xpart *xp = XP(s);
    while (xp->ninstant) {
        uint32_t idx = xp->instant[--xp->ninstant];
        complete(s, rank, idx, cs_eventq_now(s->q), 0, -1);
    }
    try_issue(s, rank);
}

static void push_instant(sim *s, uint32_t idx) {
    xpart *xp = XP(s);
    CS_GROW(xp->instant, xp->capinstant, xp->ninstant + 1);
    xp->instant[xp->ninstant++] = idx;
}

/* ---- p2p ---------------------------------------------------------------- */

static size_t chan_bucket(const sim *s, uint32_t src, uint32_t dst, int32_t tag) {
    uint64_t h = ((uint64_t)src * 0x9E3779B97F4A7C15ULL) ^ ((uint64_t)dst * 0xC2B2AE3D27D4EB4FULL) ^
                 ((uint64_t)(uint32_t)tag * 0x165667B19E3779F9ULL);
    return (size_t)((h ^ (h >> 29)) % s->nchan_buckets);
}

/* The channel (src, dst, tag), created if absent.  A channel lives while it
 * queues a send or a receive (chan_release), so traces that give every
 * message its own tag do not accumulate them; the table doubles when it
 * holds two channels per bucket. */
static chan *get_chan(sim *s, uint32_t src, uint32_t dst, int32_t tag) {
    if (!s->chans) { /* allocated with the first point-to-point message */
        s->nchan_buckets = 1024;
        while (s->nchan_buckets < 2ULL * s->w->nranks && s->nchan_buckets < (1u << 20)) s->nchan_buckets *= 2;
        s->chans = cs_calloc(s->nchan_buckets, sizeof *s->chans);
    }
    size_t b = chan_bucket(s, src, dst, tag);
    for (chan *c = s->chans[b]; c; c = c->next)
        if (c->src == src && c->dst == dst && c->tag == tag) return c;
    if (s->nchans >= 2 * s->nchan_buckets) {
        size_t old = s->nchan_buckets;
        chan **ob = s->chans;
        s->nchan_buckets = 2 * old;
        s->chans = cs_calloc(s->nchan_buckets, sizeof *s->chans);
        for (size_t i = 0; i < old; i++)
            for (chan *c = ob[i], *nx; c; c = nx) {
                nx = c->next;
                size_t nb = chan_bucket(s, c->src, c->dst, c->tag);
                c->next = s->chans[nb];
                s->chans[nb] = c;
            }
        cs_free(ob);
        b = chan_bucket(s, src, dst, tag);
    }
    chan *c = cs_calloc(1, sizeof *c);
    c->src = src;
    c->dst = dst;
    c->tag = tag;
    c->next = s->chans[b];
    s->chans[b] = c;
    s->nchans++;
    return c;
}

/* Frees c if it queues nothing. */
static void chan_release(sim *s, chan *c) {
    if (c->sends || c->recvs) return;
    for (chan **pp = &s->chans[chan_bucket(s, c->src, c->dst, c->tag)]; *pp; pp = &(*pp)->next)
        if (*pp == c) {
            *pp = c->next;
            cs_free(c);
            s->nchans--;
            return;
        }
}

static op *new_op(sim *s, uint32_t rank, uint32_t idx, uint32_t lane, int32_t peer) {
    op *o = cs_pool_get(XP(s)->op_pool);
    memset(o, 0, sizeof *o);
    o->s = s;
    o->rank = rank;
    o->node = idx;
    o->start = cs_eventq_now(s->q);
    o->lane = lane;
    o->peer = peer;
    return o;
}

static void cinst_node_done(sim *s, cinst *ci, uint32_t idx);

static void finish_comm_op(sim *s, op *o, int engine) {
    uint32_t rank = o->rank;
    if (o->ci) { /* a custom graph's send or receive: the COMM_COLL op holds the engine */
        cinst *ci = o->ci;
        uint32_t idx = o->node;
        if (ci->g->nodes[idx].type == CS_NODE_COMM_SEND) ci->bytes_sent += o->bytes;
        else ci->bytes_recv += o->bytes;
        cs_pool_put(XP(s)->op_pool, o);
        cinst_node_done(s, ci, idx);
        return;
    }
    CS_ALWAYS(!engine || s->rs[rank].comm_inflight > 0, "rank %u: an engine op ends with none in flight", rank);
    if (engine) s->rs[rank].comm_inflight--;
    comm_end(s, rank);
    CS_ALWAYS(!(o->lane >= CS_LANE_RECV0 && o->lane < CS_LANE_RECV0 + 64) ||
                  (s->rs[rank].recv_lanes >> (o->lane - CS_LANE_RECV0) & 1),
              "rank %u: receive lane %u released twice", rank, o->lane);
    if (o->lane >= CS_LANE_RECV0 && o->lane < CS_LANE_RECV0 + 64)
        s->rs[rank].recv_lanes &= ~(1ULL << (o->lane - CS_LANE_RECV0));
    complete(s, rank, o->node, o->start, o->lane, o->peer);
    cs_pool_put(XP(s)->op_pool, o);
    settle(s, rank);
}

static void recv_done_ev(void *ctx, const cs_event *ev) {
    (void)ev;
    op *o = ctx;
    sim *s = o->s;
    if (s->cls) cs_system_sym_dispatch(s->sys, o->rank);
    if (s->failed) return;
    s->ranks[o->rank].bytes_recv += o->bytes;
    finish_comm_op(s, o, 0);
}

static void send_arrived(void *ctx, uint64_t cookie) {
    sim *s = ctx;
    op *snd = (op *)(uintptr_t)cookie;
    if (s->cls) {
        cs_system_sym_dispatch(s->sys, snd->rank);
        cs_system_sym_dispatch(s->sys, (uint32_t)snd->peer);
    }
    if (s->failed) return;
    CS_NEVER(snd->arrived, "rank %u: a message of %" PRIu64 " bytes to rank %d arrives twice", snd->rank, snd->bytes,
             snd->peer);
    snd->arrived = 1;
    s->ranks[snd->rank].bytes_sent += snd->bytes;
    op *rcv = snd->matched;
    if (rcv) {
        rcv->matched = NULL;
        s->ranks[rcv->rank].bytes_recv += rcv->bytes;
        finish_comm_op(s, snd, 1);
        finish_comm_op(s, rcv, 0);
    } else {
        /* Completed at the sender; the message waits in its channel for a
         * receive. Keep a record so the receive can complete at once. */
        op *ghost = cs_pool_get(XP(s)->op_pool);
        *ghost = *snd;
        ghost->ci = NULL; /* the instance may finish before a receive takes the message */
        /* replace snd in the channel queue by ghost */
        chan *c = get_chan(s, snd->rank, (uint32_t)snd->peer, snd->tag);
        for (op **pp = &c->sends; *pp; pp = &(*pp)->next)
            if (*pp == snd) {
                *pp = ghost;
                if (c->sends_tail == snd) c->sends_tail = ghost;
                break;
            }
        finish_comm_op(s, snd, 1);
    }
}

static int check_sizes(sim *s, const op *snd, const op *rcv) {
    if (snd->bytes == rcv->bytes) return CS_OK;
    const cs_graph *gs = op_graph(s, snd), *gr = op_graph(s, rcv);
    return CS_ERR(s->err, CS_EINVAL,
                  "send/recv size mismatch: %s node %" PRIu64 " (rank %u) sends %" PRIu64
                  " bytes with tag %d to rank %u, but the matching receive %s node %" PRIu64
                  " (rank %u) expects %" PRIu64 " bytes; expected equal comm_size",
                  gs->source, gs->nodes[snd->node].id, snd->rank, snd->bytes,
                  gs->nodes[snd->node].comm_tag, rcv->rank, gr->source, gr->nodes[rcv->node].id,
                  rcv->rank, rcv->bytes);
}

/* Representative run: this node breaks the symmetry argument. */
static int rep_break(sim *s, const cs_graph *g, const cs_node *n, const char *what) {
    snprintf(s->rep_why, sizeof s->rep_why, "%s: node %" PRIu64 " (%s): %s", g->source, n->id,
             cs_node_type_label(n->type), what);
    return CS_EUNSUPPORTED;
}

static int post_send(sim *s, op *o, uint32_t dst);
static int post_recv(sim *s, op *o, uint32_t src);

static int issue_send(sim *s, uint32_t rank, uint32_t idx) {
    const cs_graph *g = s->rs[rank].g;
    const cs_node *n = &g->nodes[idx];
    if (s->rep && !s->cls) return rep_break(s, g, n, "point-to-point messages go to particular ranks");
    if (s->par) return par_unsafe(s, "COMM_SEND/COMM_RECV: a message's arrival completes the send and the receive, "
                                     "acting on both ranks at that instant");
    if (!(n->flags & CS_NF_HAS_DST))
        return CS_ERR(s->err, CS_EINVAL,
                      "%s: node %" PRIu64 " (COMM_SEND): no comm_dst attribute; expected the "
                      "receiving rank",
                      g->source, n->id);
    int32_t src_ = cs_graph_comm_src(g, n), dst_ = cs_graph_comm_dst(g, n);
    if ((n->flags & CS_NF_HAS_SRC) && (uint32_t)src_ != rank)
        return CS_ERR(s->err, CS_EINVAL,
                      "%s: node %" PRIu64 " (COMM_SEND): comm_src is %d but this trace is rank %u; "
                      "expected comm_src to be the sending rank",
                      g->source, n->id, src_, rank);
    if (dst_ < 0 || (uint64_t)dst_ >= s->w->nranks)
        return CS_ERR(s->err, CS_EINVAL,
                      "%s: node %" PRIu64 " (COMM_SEND): comm_dst %d is not a rank; expected 0..%u",
                      g->source, n->id, dst_, s->w->nranks - 1);
    uint32_t dst = (uint32_t)dst_;
    if (s->cls && !cs_system_is_rep(s->sys, dst))
        return rep_break(s, g, n, "a point-to-point message to a rank that is not a class representative");
    op *o = new_op(s, rank, idx, CS_LANE_COMM, (int32_t)dst);
    o->bytes = n->comm_size;
    o->tag = n->comm_tag;
    return post_send(s, o, dst);
}

/* Send o (o->rank to dst, o->tag, o->bytes): matched with the first waiting
 * receive of its channel, or queued there; its bytes go through the network. */
static int post_send(sim *s, op *o, uint32_t dst) {
    uint32_t rank = o->rank;
    chan *c = get_chan(s, rank, dst, o->tag);
    if (c->recvs) {
        op *r = c->recvs;
        c->recvs = r->next;
        if (!c->recvs) c->recvs_tail = NULL;
        int rc = check_sizes(s, o, r);
        if (rc) {
            cs_pool_put(XP(s)->op_pool, o);
            return rc;
        }
        o->matched = r;
        r->matched = o;
        chan_release(s, c);
    } else {
        if (c->sends_tail)
            c->sends_tail->next = o;
        else
            c->sends = o;
        c->sends_tail = o;
    }
    if (!o->ci) { /* a custom graph's send runs inside its collective's engine slot */
        s->rs[rank].comm_inflight++;
        comm_begin(s, rank);
    }
    uint64_t key = next_key(s, rank);
    if (s->cls) { /* the arrival acts on both ends (send_arrived) */
        cs_time t = cs_time_add(cs_eventq_now(s->q), cs_net_uncontended_time(s->net, rank, dst, o->bytes));
        cs_system_sym_event(s->sys, rank, t, key, rank);
        cs_system_sym_event(s->sys, dst, t, key, rank);
    }
    cs_net_msg m = {.src = rank, .dst = dst, .bytes = o->bytes, .key = key, .done = send_arrived, .ctx = s,
                    .cookie = (uint64_t)(uintptr_t)o, .p2p = 1};
    int rc = cs_net_send(s->net, &m, s->err);
    if (rc) cs_error_prefix(s->err, "%s: node %" PRIu64 " (COMM_SEND): ", op_graph(s, o)->source,
                            op_graph(s, o)->nodes[o->node].id);
    return rc;
}

static int issue_recv(sim *s, uint32_t rank, uint32_t idx) {
    const cs_graph *g = s->rs[rank].g;
    const cs_node *n = &g->nodes[idx];
    if (s->rep && !s->cls) return rep_break(s, g, n, "point-to-point messages come from particular ranks");
    if (s->par) return par_unsafe(s, "COMM_SEND/COMM_RECV: a message's arrival completes the send and the receive, "
                                     "acting on both ranks at that instant");
    if (!(n->flags & CS_NF_HAS_SRC))
        return CS_ERR(s->err, CS_EINVAL,
                      "%s: node %" PRIu64 " (COMM_RECV): no comm_src attribute; expected the "
                      "sending rank",
                      g->source, n->id);
    int32_t src_ = cs_graph_comm_src(g, n), dst_ = cs_graph_comm_dst(g, n);
    if ((n->flags & CS_NF_HAS_DST) && (uint32_t)dst_ != rank)
        return CS_ERR(s->err, CS_EINVAL,
                      "%s: node %" PRIu64 " (COMM_RECV): comm_dst is %d but this trace is rank %u; "
                      "expected comm_dst to be the receiving rank",
                      g->source, n->id, dst_, rank);
    if (src_ < 0 || (uint64_t)src_ >= s->w->nranks)
        return CS_ERR(s->err, CS_EINVAL,
                      "%s: node %" PRIu64 " (COMM_RECV): comm_src %d is not a rank; expected 0..%u",
                      g->source, n->id, src_, s->w->nranks - 1);
    uint32_t src = (uint32_t)src_;
    if (s->cls && !cs_system_is_rep(s->sys, src))
        return rep_break(s, g, n, "a point-to-point message from a rank that is not a class representative");
    rank_state *r = &s->rs[rank];
    uint32_t lane = CS_LANE_RECV0 + 64; /* overflow lane */
    for (uint32_t k = 0; k < 64; k++)
        if (!(r->recv_lanes & (1ULL << k))) {
            r->recv_lanes |= 1ULL << k;
            lane = CS_LANE_RECV0 + k;
            break;
        }
    op *o = new_op(s, rank, idx, lane, (int32_t)src);
    o->bytes = n->comm_size;
    o->tag = n->comm_tag;
    comm_begin(s, rank);
    return post_recv(s, o, src);
}

/* Receive o (from src to o->rank, o->tag): matched with the first send of
 * its channel (at once when its bytes are here), or queued there. */
static int post_recv(sim *s, op *o, uint32_t src) {
    uint32_t rank = o->rank;
    chan *c = get_chan(s, src, rank, o->tag);
    if (c->sends) {
        op *snd = c->sends;
        c->sends = snd->next;
        if (!c->sends) c->sends_tail = NULL;
        int rc = check_sizes(s, snd, o);
        if (rc) return rc;
        chan_release(s, c);
        if (snd->arrived) { /* a ghost: the bytes are already here */
            cs_pool_put(XP(s)->op_pool, snd);
            uint64_t key = next_key(s, rank);
            if (s->cls) cs_system_sym_event(s->sys, rank, cs_eventq_now(s->q), key, rank);
            cs_eventq_push(s->q, cs_eventq_now(s->q), key, recv_done_ev, o, 0);
        } else {
            snd->matched = o;
            o->matched = snd;
        }
    } else {
        if (c->recvs_tail)
            c->recvs_tail->next = o;
        else
            c->recvs = o;
        c->recvs_tail = o;
    }
    return CS_OK;
}

/* ---- collectives and memory ------------------------------------------------ */

static void coll_done(void *ctx, uint64_t cookie) {
    (void)cookie;
    op *o = ctx;
    if (o->s->failed) return;
    finish_comm_op(o->s, o, 1);
}

/* ---- custom collectives (custom_coll.h) ------------------------------------------ */

/* Every node of ci's graph is done: its collective completes now. */
static void cinst_finish(sim *s, cinst *ci) {
    if (ci->prev) ci->prev->next = ci->next;
    else s->cinsts = ci->next;
    if (ci->next) ci->next->prev = ci->prev;
    op *coll = ci->coll;
    const cs_node *n = &s->rs[coll->rank].g->nodes[coll->node];
    cs_coll_record r = {.rank = coll->rank, .node_id = n->id, .comm_type = n->comm_type, .bytes = n->comm_size,
                        .group_id = ci->group_id, .nmembers = ci->nmembers, .seq = ci->seq, .chunks = 1,
                        .phases = 1, .algorithms = ci->algos, .start = coll->start, .end = cs_eventq_now(s->q),
                        .bytes_sent = ci->bytes_sent, .bytes_recv = ci->bytes_recv, .represents = 1};
    cs_system_report(s->sys, &r);
    cs_free(ci->pending);
    cs_free(ci);
    finish_comm_op(s, coll, 1);
}

static void cinst_comp_ev(void *ctx, const cs_event *ev) {
    cinst *ci = ctx;
    if (ci->s->failed) return;
    cinst_node_done(ci->s, ci, (uint32_t)ev->arg);
}

static void cinst_empty_ev(void *ctx, const cs_event *ev) {
    (void)ev;
    cinst *ci = ctx;
    if (!ci->s->failed) cinst_finish(ci->s, ci);
}

/* Issue node idx of ci, whose parents are done: every node at once, as
 * ASTRA-sim's CustomAlgorithm issues them (no compute stream, no engine). */
static int cinst_issue(sim *s, cinst *ci, uint32_t idx) {
    const cs_node *n = &ci->g->nodes[idx];
    uint32_t rank = ci->coll->rank;
    cs_time now = cs_eventq_now(s->q);
    if (n->type == CS_NODE_COMP) { /* ASTRA-sim: duration_micros x 1000 ns, 1 ns when 0 */
        if (n->duration_us > (CS_TIME_MAX - 1 - now) / CS_PS_PER_US)
            return CS_ERR(s->err, CS_EINVAL,
                          "%s: node %" PRIu64 " (COMP): duration_micros %" PRIu64 " ends beyond the simulated-time "
                          "range of 2^64 ps; expected a shorter duration (custom collective of %s)",
                          ci->g->source, n->id, n->duration_us, ci->key);
        cs_time t = n->duration_us ? cs_time_from_us(n->duration_us) : cs_time_from_ns(1);
        cs_eventq_push(s->q, now + t, next_key(s, rank), cinst_comp_ev, ci, idx);
        return CS_OK;
    }
    int send = n->type == CS_NODE_COMM_SEND;
    uint32_t pos = (uint32_t)(send ? n->comm_dst : n->comm_src); /* checked: inside the communicator */
    uint32_t peer = ci->grp ? ci->grp->ranks[pos] : pos;
    op *o = new_op(s, rank, idx, CS_LANE_COMM, (int32_t)peer);
    o->ci = ci;
    o->cg = ci->g;
    o->bytes = n->comm_size; /* the graph's sizes, not the collective's (ASTRA-sim) */
    o->tag = n->comm_tag;
    return send ? post_send(s, o, peer) : post_recv(s, o, peer);
}

static void cinst_node_done(sim *s, cinst *ci, uint32_t idx) {
    const cs_graph *g = ci->g;
    CS_ALWAYS(ci->left > 0, "rank %u: custom graph %s completes more nodes than it has", ci->coll->rank, g->source);
    ci->left--;
    for (uint32_t c = g->nodes[idx].child_begin; c < cs_graph_child_end(g, idx) && !s->failed; c++) {
        uint32_t ch = g->children[c];
        CS_ALWAYS(ci->pending[ch] > 0, "%s node %" PRIu64 " released by more parents than it has", g->source,
                  g->nodes[ch].id);
        if (--ci->pending[ch] == 0) {
            int rc = cinst_issue(s, ci, ch);
            if (rc) {
                fail(s, rc);
                return;
            }
        }
    }
    if (ci->left == 0) cinst_finish(s, ci);
}

/* Run rank's collective node idx as the custom graph its type names (key). */
static int issue_custom(sim *s, uint32_t rank, uint32_t idx, const char *prefix, const char *key) {
    const cs_graph *g = s->rs[rank].g;
    const cs_node *n = &g->nodes[idx];
    if (s->rep) return rep_break(s, g, n, "a custom collective implementation sends to particular ranks");
    const cs_comm_group *grp = NULL;
    int rc = cs_comm_groups_resolve(s->groups, g->pg_names[n->pg], &grp, s->err);
    if (rc) {
        cs_error_prefix(s->err, "%s: node %" PRIu64 " (COMM_COLL): ", g->source, n->id);
        return rc;
    }
    uint32_t nmembers = grp ? grp->nranks : s->w->nranks, pos = rank;
    if (grp) {
        pos = UINT32_MAX;
        for (uint32_t k = 0; k < grp->nranks; k++)
            if (grp->ranks[k] == rank) pos = k;
        if (pos == UINT32_MAX)
            return CS_ERR(s->err, CS_EINVAL,
                          "%s: node %" PRIu64 " (COMM_COLL): rank %u issues %s on communicator group \"%s\" (%s), "
                          "which does not contain it; expected the group to list rank %u",
                          g->source, n->id, rank, cs_coll_type_label(n->comm_type), grp->name,
                          s->groups && s->groups->path ? s->groups->path : "the comm-group file", rank);
    }
    uint32_t gid = 0;
    uint64_t seq = 0;
    rc = cs_system_take_seq(s->sys, rank, g->pg_names[n->pg], &gid, &seq, s->err);
    if (rc) {
        cs_error_prefix(s->err, "%s: node %" PRIu64 " (COMM_COLL): ", g->source, n->id);
        return rc;
    }
    if (s->par) return par_unsafe(s, "custom collective graphs: one instance's members act on each other at one instant");
    const cs_graph *cg = NULL;
    rc = cs_custom_coll_graph(s->custom, prefix, key, nmembers, pos, &cg, s->err);
    if (rc) {
        cs_error_prefix(s->err, "%s: node %" PRIu64 " (COMM_COLL %s, rank %u): ", g->source, n->id,
                        cs_coll_type_label(n->comm_type), rank);
        return rc;
    }
    op *o = new_op(s, rank, idx, CS_LANE_COMM, -1);
    s->rs[rank].comm_inflight++;
    comm_begin(s, rank);
    cinst *ci = cs_calloc(1, sizeof *ci);
    ci->s = s;
    ci->coll = o;
    ci->g = cg;
    ci->grp = grp;
    ci->key = key;
    ci->serial = ++s->cserial;
    ci->group_id = gid;
    ci->nmembers = nmembers;
    ci->seq = seq;
    snprintf(ci->algos, sizeof ci->algos, "custom:%s", prefix);
    ci->left = cg->nnodes;
    ci->pending = cs_malloc(((size_t)cg->nnodes + 1) * sizeof *ci->pending);
    for (uint32_t i = 0; i < cg->nnodes; i++) ci->pending[i] = cg->nodes[i].nparents;
    ci->next = s->cinsts;
    if (s->cinsts) s->cinsts->prev = ci;
    s->cinsts = ci;
    if (cg->nnodes == 0) { /* nothing to run: complete at this instant, after this issue */
        cs_eventq_push(s->q, cs_eventq_now(s->q), next_key(s, rank), cinst_empty_ev, ci, 0);
        return CS_OK;
    }
    for (uint32_t i = 0; i < cg->nnodes; i++) /* the roots, smallest id first */
        if (cg->nodes[i].nparents == 0 && (rc = cinst_issue(s, ci, i)) != CS_OK) return rc;
    return CS_OK;
}

static int issue_coll(sim *s, uint32_t rank, uint32_t idx) {
    const cs_graph *g = s->rs[rank].g;
    const cs_node *n = &g->nodes[idx];
    if (!(n->flags & CS_NF_HAS_COMM_TYPE))
        return CS_ERR(s->err, CS_EINVAL,
                      "%s: node %" PRIu64 " (COMM_COLL): no comm_type attribute; expected a "
                      "collective type (0 ALL_REDUCE .. 9 BARRIER)",
                      g->source, n->id);
    if (n->comm_type < 0 || n->comm_type > 9)
        return CS_ERR(s->err, CS_EINVAL,
                      "%s: node %" PRIu64 " (COMM_COLL): comm_type %d is unknown; expected 0..9",
                      g->source, n->id, n->comm_type);
    if (s->syscfg && s->syscfg->per_node_custom_impl && !s->custom_nodes) /* a caller that did not read it */
        return CS_ERR(s->err, CS_EUNSUPPORTED,
                      "%s: node %" PRIu64 " (COMM_COLL): %s: per-node-custom-implementation (%s) was not read for "
                      "this run; expected the engine to load it (scenario/engine.c)",
                      g->source, n->id, s->syscfg->path ? s->syscfg->path : "the system configuration",
                      s->syscfg->per_node_custom_impl);
    const char *key = NULL;
    const char *prefix = cs_custom_coll_prefix(s->custom, n->comm_type, n->id, &key);
    if (prefix) return issue_custom(s, rank, idx, prefix, key);
    op *o = new_op(s, rank, idx, CS_LANE_COMM, -1);
    s->rs[rank].comm_inflight++;
    comm_begin(s, rank);
    /* pg_name "" and "0" mean all ranks unless the comm-group file defines
     * "0" (config/comm_group.h); the system layer resolves it. */
    cs_coll_req req = {.rank = rank,
                       .comm_type = n->comm_type,
                       .bytes = n->comm_size,
                       .pg_name = g->pg_names[n->pg],
                       .involved_dim = n->involved_dim,
                       .priority = n->comm_priority,
                       .node_id = n->id,
                       .duration_us = n->duration_us,
                       .source = g->source};
    return cs_system_collective(s->sys, &req, coll_done, o, 0, s->err);
}

static void mem_done(void *ctx, uint64_t cookie) {
    (void)cookie;
    op *o = ctx;
    if (o->s->failed) return;
    finish_comm_op(o->s, o, 1);
}

static int issue_mem(sim *s, uint32_t rank, uint32_t idx) {
    const cs_graph *g = s->rs[rank].g;
    const cs_node *n = &g->nodes[idx];
    if (s->rep) return rep_break(s, g, n, "memory accesses are timed by the memory model's events");
    op *o = new_op(s, rank, idx, CS_LANE_COMM, -1);
    s->rs[rank].comm_inflight++;
    comm_begin(s, rank);
    int rc = s->mem->model->access(s->mem->state, rank, n->tensor_size, n->type == CS_NODE_MEM_STORE,
                                  next_key(s, rank), mem_done, o, 0, s->err);
    if (rc)
        cs_error_prefix(s->err, "%s: node %" PRIu64 " (%s of %" PRIu64 " bytes): ", g->source,
                        n->id, cs_node_type_label(n->type), n->tensor_size);
    return rc;
}

/* ---- compute ----------------------------------------------------------------- */

static void comp_done(void *ctx, const cs_event *ev) {
    sim *s = ctx;
    uint32_t rank = (uint32_t)ev->arg;
    if (s->rep) cs_system_sym_dispatch(s->sys, rank);
    if (s->failed) return;
    rank_state *r = &s->rs[rank];
    account(s, rank);
    r->comp_busy = 0;
    s->ranks[rank].compute += cs_eventq_now(s->q) - r->comp_start;
    complete(s, rank, r->comp_node, r->comp_start, CS_LANE_COMPUTE, -1);
    settle(s, rank);
}

static void cpu_done(void *ctx, const cs_event *ev) {
    sim *s = ctx;
    uint32_t rank = (uint32_t)ev->arg;
    if (s->rep) cs_system_sym_dispatch(s->sys, rank);
    if (s->failed) return;
    rank_state *r = &s->rs[rank];
    account(s, rank);
    r->cpu_busy = 0;
    s->ranks[rank].cpu += cs_eventq_now(s->q) - r->cpu_start;
    complete(s, rank, r->cpu_node, r->cpu_start, CS_LANE_CPU, -1);
    settle(s, rank);
}

/* ---- issuing ------------------------------------------------------------------ */

static void make_ready(sim *s, uint32_t rank, uint32_t idx) {
    rank_state *r = &s->rs[rank];
    const cs_node *n = &r->g->nodes[idx];
    node_moves(s, rank, idx, NS_WAIT, NS_WAIT, NS_READY, "becomes ready");
    switch (n->type) {
    case CS_NODE_INVALID:
    case CS_NODE_METADATA: push_instant(s, idx); break;
    case CS_NODE_COMP:
        heap_push((n->flags & CS_NF_CPU) ? &r->ready_cpu : &r->ready_comp, idx);
        break;
    case CS_NODE_COMM_RECV: heap_push(&r->ready_recv, idx); break;
    case CS_NODE_COMM_SEND:
    case CS_NODE_COMM_COLL:
    case CS_NODE_MEM_LOAD:
    case CS_NODE_MEM_STORE: heap_push(&r->ready_comm, idx); break;
    default:
        CS_ERR(s->err, CS_EINVAL,
               "%s: node %" PRIu64 ": node type %d is unknown; expected 0..7 (INVALID, METADATA, "
               "MEM_LOAD, MEM_STORE, COMP, COMM_SEND, COMM_RECV, COMM_COLL)",
               r->g->source, n->id, n->type);
        fail(s, CS_EINVAL);
    }
}

static void start_comp(sim *s, uint32_t rank, uint32_t idx, int cpu) {
    rank_state *r = &s->rs[rank];
    const cs_node *n = &r->g->nodes[idx];
    cs_time t = 0;
    int outcome = cs_compute_time(&s->compute, n, &t);
    if (outcome == CS_COMP_SKIP) {
        push_instant(s, idx);
        return;
    }
    if (!cpu) t = cs_compute_straggle(&s->compute, rank, n->id, t); /* slow ranks, jitter (GPU compute) */
    if (outcome == CS_COMP_REPLAYED && s->par) {
        par_unsafe(s, "a COMP node without num_ops under the roofline model: its warning is printed from inside "
                      "the run, in the order of the whole run");
        return;
    }
    if (outcome == CS_COMP_REPLAYED) {
        XP(s)->roofline_fallbacks++;
        cs_warn("%s: node %" PRIu64 " (COMP): roofline is enabled but the node has no num_ops; "
                "replayed its duration_micros (%" PRIu64 " us) instead",
                r->g->source, n->id, n->duration_us);
    }
    cs_time now = cs_eventq_now(s->q);
    if (cs_time_beyond(cs_time_add(now, t))) { /* a capped time is no result */
        char at[32];
        CS_ERR(s->err, CS_EINVAL,
               "%s: node %" PRIu64 " (COMP%s): its compute time from %s ends beyond the simulated-time range "
               "of 2^64 ps (about 213 days); expected a shorter duration_micros or fewer num_ops",
               r->g->source, n->id, cpu ? ", CPU" : "", cs_time_fmt(now, at, sizeof at));
        fail(s, CS_EINVAL);
        return;
    }
    uint64_t key = next_key(s, rank);
    if (s->rep) cs_system_sym_event(s->sys, rank, cs_time_add(now, t), key, rank);
    account(s, rank);
    if (cpu) {
        r->cpu_busy = 1;
        r->cpu_node = idx;
        r->cpu_start = now;
        cs_eventq_push(s->q, cs_time_add(now, t), key, cpu_done, s, rank);
    } else {
        r->comp_busy = 1;
        r->comp_node = idx;
        r->comp_start = now;
        cs_eventq_push(s->q, cs_time_add(now, t), key, comp_done, s, rank);
    }
}

static int cpu_comm_error(sim *s, const rank_state *r, const cs_node *n) {
    return CS_ERR(s->err, CS_EINVAL,
                  "%s: node %" PRIu64 " (%s) has is_cpu_op = true; expected communication and "
                  "memory nodes to run on the accelerator",
                  r->g->source, n->id, cs_node_type_label(n->type));
}

static void try_issue(sim *s, uint32_t rank) {
    CS_ALWAYS(cs_eventq_owns(s->q, rank), "parallel run: rank %u issues in another partition", rank);
    rank_state *r = &s->rs[rank];
    for (;;) {
        if (s->failed) return;
        int progressed = 0;
        if (!r->comp_busy && r->ready_comp.n) {
            uint32_t idx = heap_pop(&r->ready_comp);
            node_moves(s, rank, idx, NS_READY, NS_READY, NS_ISSUED, "is issued");
            start_comp(s, rank, idx, 0);
            progressed = 1;
        }
        if (!r->cpu_busy && r->ready_cpu.n) {
            uint32_t idx = heap_pop(&r->ready_cpu);
            node_moves(s, rank, idx, NS_READY, NS_READY, NS_ISSUED, "is issued");
            start_comp(s, rank, idx, 1);
            progressed = 1;
        }
        while (r->ready_recv.n && !s->failed) { /* receives need no engine */
            uint32_t idx = heap_pop(&r->ready_recv);
            node_moves(s, rank, idx, NS_READY, NS_READY, NS_ISSUED, "is issued");
            const cs_node *n = &r->g->nodes[idx];
            int rc = (n->flags & CS_NF_CPU) ? cpu_comm_error(s, r, n) : issue_recv(s, rank, idx);
            if (rc) {
                fail(s, rc);
                return;
            }
            progressed = 1;
        }
        while (r->ready_comm.n && r->comm_inflight < s->comm_streams && !s->failed) {
            uint32_t idx = heap_pop(&r->ready_comm);
            node_moves(s, rank, idx, NS_READY, NS_READY, NS_ISSUED, "is issued");
            const cs_node *n = &r->g->nodes[idx];
            int rc;
            if (n->flags & CS_NF_CPU)
                rc = cpu_comm_error(s, r, n);
            else if (n->type == CS_NODE_COMM_SEND)
                rc = issue_send(s, rank, idx);
            else if (n->type == CS_NODE_COMM_COLL)
                rc = issue_coll(s, rank, idx);
            else
                rc = issue_mem(s, rank, idx);
            if (rc) {
                fail(s, rc);
                return;
            }
            progressed = 1;
        }
        xpart *xp = XP(s);
        if (xp->ninstant) {
            while (xp->ninstant) {
                uint32_t idx = xp->instant[--xp->ninstant];
                complete(s, rank, idx, cs_eventq_now(s->q), 0, -1);
            }
            progressed = 1;
        }
        if (!progressed) return;
    }
}

/* ---- deadlock report ------------------------------------------------------------ */

/* The wait-for graph at a stop (core/waitfor.h): the system layer adds its
 * collectives, chunks and queues; here the point-to-point messages in
 * flight, the nodes not yet issued and what holds them back (their parents,
 * or a full set of communication streams).  The report names the first
 * cycle of waits (the root cause), then the ranks waiting on it, then the
 * remedy; without a cycle, what the waits end in. */

#define DL_VICTIMS 8 /* lines of victims before "and K more" */
#define DL_ROOTS 2   /* causes named on the first line when there is no cycle */

typedef struct dl {
    sim *s;
    cs_wfg *g;
    uint32_t ninflight;  /* vertices [0, ninflight) are what was in flight */
    uint32_t **parents;  /* per rank, lazily: parents CSR (offsets then node indices) */
    uint8_t *mark;       /* scratch per node of one rank */
    uint32_t *work;      /* unissued node vertices to expand */
    size_t nwork, capwork;
} dl;

/* Node idx of rank: 0 waits for parents, 1 ready, 2 in flight, 3 done. */
static int dl_state(const dl *d, uint32_t rank, uint32_t idx) {
    const rank_state *r = &d->s->rs[rank];
    if (r->pending[idx]) return 0;
    const idxheap *hs[4] = {&r->ready_comp, &r->ready_cpu, &r->ready_comm, &r->ready_recv};
    for (int h = 0; h < 4; h++)
        for (uint32_t i = 0; i < hs[h]->n; i++)
            if (hs[h]->a[i] == idx) return 1;
    uint32_t v = cs_wfg_find(d->g, CS_WV_NODE, rank, r->g->nodes[idx].id, 0);
    if (v != UINT32_MAX && v < d->ninflight) return 2;
    return 3;
}

/* Parents of node idx of rank: *n of them, from the rank's reversed CSR. */
static const uint32_t *dl_parents(dl *d, uint32_t rank, uint32_t idx, uint32_t *n) {
    const cs_graph *g = d->s->rs[rank].g;
    if (!d->parents[rank]) {
        uint32_t *p = cs_calloc((size_t)g->nnodes + 1 + g->nchildren, sizeof *p);
        for (uint32_t i = 0; i < g->nnodes; i++)
            for (uint32_t c = g->nodes[i].child_begin; c < cs_graph_child_end(g, i); c++) p[g->children[c] + 1]++;
        for (uint32_t i = 0; i < g->nnodes; i++) p[i + 1] += p[i];
        uint32_t *fill = cs_malloc(((size_t)g->nnodes + 1) * sizeof *fill);
        memcpy(fill, p, ((size_t)g->nnodes + 1) * sizeof *fill);
        for (uint32_t i = 0; i < g->nnodes; i++)
            for (uint32_t c = g->nodes[i].child_begin; c < cs_graph_child_end(g, i); c++)
                p[g->nnodes + 1 + fill[g->children[c]]++] = i;
        cs_free(fill);
        d->parents[rank] = p;
    }
    const uint32_t *p = d->parents[rank];
    *n = p[idx + 1] - p[idx];
    return p + g->nnodes + 1 + p[idx];
}

static const char *dl_file(const cs_graph *g) { return g->source ? g->source : "trace"; }

/* The vertex of a node not yet issued (or not yet run), queued for expansion. */
static uint32_t dl_unissued(dl *d, uint32_t rank, uint32_t idx) {
    const cs_graph *g = d->s->rs[rank].g;
    const cs_node *n = &g->nodes[idx];
    char what[200];
    if (n->type == CS_NODE_COMM_SEND)
        snprintf(what, sizeof what, "COMM_SEND of %" PRIu64 " bytes to rank %d, tag %d", n->comm_size,
                 cs_graph_comm_dst(g, n),
                 n->comm_tag);
    else if (n->type == CS_NODE_COMM_RECV)
        snprintf(what, sizeof what, "COMM_RECV of %" PRIu64 " bytes from rank %d, tag %d", n->comm_size,
                 cs_graph_comm_src(g, n),
                 n->comm_tag);
    else if (n->type == CS_NODE_COMM_COLL)
        snprintf(what, sizeof what, "%s of %" PRIu64 " bytes on communicator %s", cs_coll_type_label(n->comm_type),
                 n->comm_size, g->pg_names[n->pg][0] ? g->pg_names[n->pg] : "0");
    else
        snprintf(what, sizeof what, "%s", cs_node_type_label(n->type));
    int added = 0;
    uint32_t v = cs_wfg_add(d->g, &added, CS_WV_NODE, rank, n->id, 0, "rank %u's node %" PRIu64 " (%s, %s), not issued",
                            rank, n->id, what, dl_file(g));
    if (added) {
        CS_GROW(d->work, d->capwork, d->nwork + 1);
        d->work[d->nwork++] = v;
    }
    return v;
}

/* What keeps node vertex v (rank, idx; not issued) from being issued. */
static void dl_expand(dl *d, uint32_t v) {
    uint32_t rank = cs_wfg_rank(d->g, v);
    const rank_state *r = &d->s->rs[rank];
    uint32_t idx = cs_graph_find(r->g, cs_wfg_b(d->g, v));
    if (idx == UINT32_MAX) return;
    int st = dl_state(d, rank, idx);
    if (st == 1) { /* ready: a communication op waits for a stream */
        int32_t t = r->g->nodes[idx].type;
        if (t == CS_NODE_COMP || t == CS_NODE_COMM_RECV || r->comm_inflight < d->s->comm_streams) return;
        for (uint32_t u = 0; u < d->ninflight; u++)
            if (cs_wfg_kind(d->g, u) == CS_WV_NODE && cs_wfg_rank(d->g, u) == rank) {
                uint32_t ui = cs_graph_find(r->g, cs_wfg_b(d->g, u));
                if (ui != UINT32_MAX && r->g->nodes[ui].type != CS_NODE_COMM_RECV) cs_wfg_edge(d->g, v, u, CS_WE_ENGINE);
            }
        return;
    }
    if (st != 0) return;
    /* waits for parents: walk up through the ones not issued either, to
     * those in flight or ready (the nearest holding it back) */
    memset(d->mark, 0, r->g->nnodes);
    uint32_t *stack = cs_malloc(((size_t)r->g->nnodes + 1) * sizeof *stack);
    size_t sp = 0;
    stack[sp++] = idx;
    d->mark[idx] = 1;
    while (sp) {
        uint32_t x = stack[--sp], np;
        const uint32_t *ps = dl_parents(d, rank, x, &np);
        for (uint32_t k = 0; k < np; k++) {
            uint32_t p = ps[k];
            if (d->mark[p]) continue;
            d->mark[p] = 1;
            int ps_st = dl_state(d, rank, p);
            if (ps_st == 0) stack[sp++] = p;
            else if (ps_st == 1) cs_wfg_edge(d->g, v, dl_unissued(d, rank, p), CS_WE_PARENT);
            else if (ps_st == 2) cs_wfg_edge(d->g, v, cs_wfg_find(d->g, CS_WV_NODE, rank, r->g->nodes[p].id, 0), CS_WE_PARENT);
        }
    }
    cs_free(stack);
}

/* The k-th (from 0) send of rank src to dst with tag not issued yet, or UINT32_MAX. */
static uint32_t dl_send_node(dl *d, uint32_t src, uint32_t dst, int32_t tag, uint32_t k) {
    const cs_graph *g = d->s->rs[src].g;
    for (uint32_t i = 0; i < g->nnodes; i++) {
        const cs_node *n = &g->nodes[i];
        if (n->type != CS_NODE_COMM_SEND || cs_graph_comm_dst(g, n) != (int32_t)dst || n->comm_tag != tag)
            continue;
        if (dl_state(d, src, i) > 1) continue;
        if (k-- == 0) return i;
    }
    return UINT32_MAX;
}

/* The first collective on communicator gid that rank has not issued, or UINT32_MAX. */
static uint32_t dl_coll_node(dl *d, uint32_t rank, uint32_t gid) {
    const cs_graph *g = d->s->rs[rank].g;
    for (uint32_t i = 0; i < g->nnodes; i++) {
        const cs_node *n = &g->nodes[i];
        if (n->type != CS_NODE_COMM_COLL || dl_state(d, rank, i) > 1) continue;
        if (cs_system_group_id(d->s->sys, g->pg_names[n->pg]) == gid) return i;
    }
    return UINT32_MAX;
}

/* Point-to-point messages in flight: receives waiting for their sends,
 * sends in the network.  Channels in (src, dst, tag) order. */
static int chan_cmp(const void *a, const void *b) {
    const chan *x = *(const chan *const *)a, *y = *(const chan *const *)b;
    if (x->src != y->src) return x->src < y->src ? -1 : 1;
    if (x->dst != y->dst) return x->dst < y->dst ? -1 : 1;
    return x->tag < y->tag ? -1 : x->tag > y->tag;
}

static void dl_p2p(dl *d) {
    sim *s = d->s;
    chan **cs = cs_malloc((s->nchans ? s->nchans : 1) * sizeof *cs);
    size_t n = 0;
    for (size_t b = 0; b < s->nchan_buckets; b++)
        for (chan *c = s->chans[b]; c; c = c->next) cs[n++] = c;
    qsort(cs, n, sizeof *cs, chan_cmp);
    for (const cinst *ci = s->cinsts; ci; ci = ci->next) { /* custom collectives running */
        const op *co = ci->coll;
        const cs_graph *g = s->rs[co->rank].g;
        const cs_node *cn = &g->nodes[co->node];
        cs_wfg_add(d->g, NULL, CS_WV_NODE, co->rank, cn->id, 0,
                   "rank %u's node %" PRIu64 " (%s of %" PRIu64 " bytes, %s), running custom graph %s (%s): %u of "
                   "%u nodes done", co->rank, cn->id, cs_coll_type_label(cn->comm_type), cn->comm_size, dl_file(g),
                   ci->g->source, ci->key, ci->g->nnodes - ci->left, ci->g->nnodes);
    }
    for (size_t i = 0; i < n; i++) { /* first every op in flight (dl_state needs them) */
        const chan *c = cs[i];
        for (const op *o = c->recvs; o; o = o->next) {
            if (o->ci) {
                cs_wfg_add(d->g, NULL, CS_WV_NODE, c->dst, o->ci->g->nodes[o->node].id, o->ci->serial,
                           "rank %u's custom graph %s node %" PRIu64 " (COMM_RECV of %" PRIu64 " bytes from rank %u, "
                           "tag %d)", c->dst, o->ci->g->source, o->ci->g->nodes[o->node].id, o->bytes, c->src, c->tag);
                continue;
            }
            const cs_graph *g = s->rs[c->dst].g;
            cs_wfg_add(d->g, NULL, CS_WV_NODE, c->dst, g->nodes[o->node].id, 0,
                       "rank %u's node %" PRIu64 " (COMM_RECV of %" PRIu64 " bytes from rank %u, tag %d, %s)", c->dst,
                       g->nodes[o->node].id, o->bytes, c->src, c->tag, dl_file(g));
        }
        for (const op *o = c->sends; o; o = o->next) {
            if (o->arrived) continue; /* done: waits in the channel for a receive */
            if (o->ci) {
                cs_wfg_add(d->g, NULL, CS_WV_NODE, c->src, o->ci->g->nodes[o->node].id, o->ci->serial,
                           "rank %u's custom graph %s node %" PRIu64 " (COMM_SEND of %" PRIu64 " bytes to rank %u, "
                           "tag %d), in the network", c->src, o->ci->g->source, o->ci->g->nodes[o->node].id, o->bytes,
                           c->dst, c->tag);
                continue;
            }
            const cs_graph *g = s->rs[c->src].g;
            cs_wfg_add(d->g, NULL, CS_WV_NODE, c->src, g->nodes[o->node].id, 0,
                       "rank %u's node %" PRIu64 " (COMM_SEND of %" PRIu64 " bytes to rank %u, tag %d, %s), in the network",
                       c->src, g->nodes[o->node].id, o->bytes, c->dst, c->tag, dl_file(g));
        }
    }
    d->ninflight = cs_wfg_count(d->g);
    for (size_t i = 0; i < n; i++) {
        const chan *c = cs[i];
        uint32_t k = 0;
        for (const op *o = c->recvs; o; o = o->next, k++) {
            if (o->ci) { /* its collective waits for it; its send is in another rank's custom graph */
                uint32_t v = cs_wfg_find(d->g, CS_WV_NODE, c->dst, o->ci->g->nodes[o->node].id, o->ci->serial);
                const cs_graph *cg = s->rs[o->rank].g;
                cs_wfg_edge(d->g, cs_wfg_find(d->g, CS_WV_NODE, o->rank, cg->nodes[o->ci->coll->node].id, 0), v,
                            CS_WE_MEMBER);
                cs_wfg_note(d->g, v, ": it waits to receive them, but rank %u never sent them (custom graphs whose "
                            "sends and receives do not match, or wait for each other)", c->src);
                k--;
                continue;
            }
            uint32_t v = cs_wfg_find(d->g, CS_WV_NODE, c->dst, s->rs[c->dst].g->nodes[o->node].id, 0);
            uint32_t sn = dl_send_node(d, c->src, c->dst, c->tag, k);
            if (sn == UINT32_MAX)
                cs_wfg_note(d->g, v, ": it waits to receive them, but rank %u never sent them", c->src);
            else
                cs_wfg_edge(d->g, v, dl_unissued(d, c->src, sn), CS_WE_SEND);
        }
    }
    cs_free(cs);
}

/* The remedy for the kinds of waits on the cycle. */
static void dl_remedy(const dl *d, FILE *f, const int *why, uint32_t n) {
    int has[CS_WE_KINDS] = {0};
    for (uint32_t i = 0; i < n; i++) has[why[i]] = 1;
    fputs("remedy:\n", f);
    if (has[CS_WE_QUEUE]) {
        if (!cs_system_per_comm_queues(d->s->sys)) /* (with them such a cycle cannot form) */
            fputs("  - set communicator-queues to per-communicator (in the system file, or --set "
                  "system.communicator-queues=per-communicator; the nccl collective model's default): every "
                  "communicator then has a queue of its own per dimension, as NCCL runs each communicator on a "
                  "stream of its own, so chunks of different communicators never wait for each other's slot and "
                  "this cycle cannot form; the bandwidth sharing is unchanged.\n",
                  f);
        fprintf(f, "  - or raise active-chunks-per-dimension in the system file (now %u): each dimension queue then runs "
                   "that many chunks at once, so a chunk no longer waits behind another communicator's chunk for a "
                   "slot; the cycle goes once it covers every chunk that waits in one queue (preferred-dataset-splits "
                   "x the collectives a rank has in flight).  Admitted chunks share the dimension's bandwidth, which "
                   "changes the timing (issue 11 measured 15 %% on a training step).\n",
                cs_system_queue_limit(d->s->sys));
        fprintf(f, "  - or --comm-streams 1 (now %u): a rank then has one collective in flight, so its queues never "
                   "hold two communicators' chunks; its communication no longer overlaps, which costs time.  This "
                   "does not help when ranks issue the collectives in different orders (then the traces wait in a "
                   "circle: reorder them).\n",
                d->s->comm_streams);
    }
    if (has[CS_WE_ENGINE])
        fprintf(f, "  - raise --comm-streams (now %u): a ready collective or send then gets a communication stream "
                   "while the others wait, so issue order no longer blocks it; more operations overlap.  When ranks "
                   "issue the collectives in different orders their dimension queues can then close the same cycle: "
                   "raise active-chunks-per-dimension (now %u) with it, or issue them in one order.\n",
                d->s->comm_streams, cs_system_queue_limit(d->s->sys));
    if (!has[CS_WE_QUEUE] && !has[CS_WE_ENGINE])
        fputs("  - the traces themselves order these waits in a circle (every rank waits, through its own "
              "dependencies, for one that waits for it): no setting removes it; reorder the nodes (e.g. one rank "
              "sends before it receives, or every rank issues the collectives in the same order) or check that "
              "the traces were made for this rank count.\n", f);
}

static void describe_stuck(sim *s) {
    uint32_t stuck = 0, first = 0;
    for (uint32_t rk = 0; rk < s->w->nranks; rk++)
        if (s->ranks[rk].nodes < s->rs[rk].g->nnodes) {
            if (!stuck) first = rk;
            stuck++;
        }
    if (s->net && s->net->halted) { /* the network stopped the run (a PFC deadlock): its reason first */
        char why[1024];
        cs_net_describe_pending(s->net, why, sizeof why);
        if (stuck)
            CS_ERR(s->err, CS_EDEADLOCK, "simulation stopped at %.3f us with work left on %u of %u ranks (first: rank "
                   "%u, %" PRIu64 " of %u nodes done): %s", cs_time_as_us_f(cs_eventq_now(s->q)), stuck, s->w->nranks,
                   first, s->ranks[first].nodes, s->rs[first].g->nnodes, why);
        else
            CS_ERR(s->err, CS_EDEADLOCK, "simulation stopped at %.3f us: %s", cs_time_as_us_f(cs_eventq_now(s->q)),
                   why);
        fail(s, CS_EDEADLOCK);
        return;
    }
    if (!stuck) return;
    dl d = {.s = s, .g = cs_wfg_new()};
    d.parents = cs_calloc(s->w->nranks, sizeof *d.parents);
    uint32_t maxn = 1;
    for (uint32_t rk = 0; rk < s->w->nranks; rk++)
        if (s->rs[rk].g->nnodes > maxn) maxn = s->rs[rk].g->nnodes;
    d.mark = cs_malloc(maxn);
    cs_system_add_waits(s->sys, d.g);
    dl_p2p(&d); /* also ends the vertices in flight (ninflight) */
    for (uint32_t rk = 0; rk < s->w->nranks; rk++) /* every stuck rank's first node not issued */
        if (s->ranks[rk].nodes < s->rs[rk].g->nnodes)
            for (uint32_t i = 0; i < s->rs[rk].g->nnodes; i++)
                if (dl_state(&d, rk, i) <= 1) {
                    dl_unissued(&d, rk, i);
                    break;
                }
    for (;;) { /* expand: collectives not issued, then nodes not issued, until nothing new */
        int more = 0;
        for (uint32_t v = 0; v < cs_wfg_count(d.g); v++) {
            if (cs_wfg_kind(d.g, v) != CS_WV_ISSUE || cs_wfg_out_degree(d.g, v)) continue;
            uint32_t rank = cs_wfg_rank(d.g, v);
            uint32_t idx = dl_coll_node(&d, rank, (uint32_t)cs_wfg_b(d.g, v));
            if (idx != UINT32_MAX) {
                cs_wfg_edge(d.g, v, dl_unissued(&d, rank, idx), CS_WE_NODE);
                more = 1;
            } else if (!strstr(cs_wfg_label(d.g, v), "never issued")) {
                cs_wfg_note(d.g, v, ": rank %u never issued it (%s has no further collective on it)", rank,
                            dl_file(s->rs[rank].g));
            }
        }
        while (d.nwork) {
            dl_expand(&d, d.work[--d.nwork]);
            more = 1;
        }
        if (!more) break;
    }
    const uint32_t *cyc;
    const int *why;
    uint32_t ncyc = cs_wfg_cycle(d.g, &cyc, &why);
    char netp[240];
    cs_net_describe_pending(s->net, netp, sizeof netp);

    /* the first line: short and complete */
    char head[900];
    size_t hl = 0;
    if (ncyc) {
        uint32_t ranks[8], nr = 0, more_r = 0;
        char colls[4][96];
        uint32_t nc = 0, more_c = 0;
        int queue = 0, engine = 0;
        for (uint32_t i = 0; i < ncyc; i++) {
            uint32_t v = cyc[i], rk = cs_wfg_rank(d.g, v);
            queue |= why[i] == CS_WE_QUEUE;
            engine |= why[i] == CS_WE_ENGINE;
            int seen = 0;
            for (uint32_t k = 0; k < nr; k++) seen |= ranks[k] == rk;
            if (!seen && nr < 8) ranks[nr++] = rk;
            else if (!seen) more_r++;
            int kind = cs_wfg_kind(d.g, v);
            if (kind == CS_WV_STREAM || kind == CS_WV_ISSUE) {
                uint32_t gid = (uint32_t)(kind == CS_WV_STREAM ? cs_wfg_b(d.g, v) >> 32 : cs_wfg_b(d.g, v));
                char name[96];
                cs_system_coll_name(s->sys, gid, cs_wfg_c(d.g, v), name, sizeof name);
                seen = 0;
                for (uint32_t k = 0; k < nc; k++) seen |= strcmp(colls[k], name) == 0;
                if (!seen && nc < 4) snprintf(colls[nc++], sizeof colls[0], "%s", name);
                else if (!seen) more_c++;
            }
        }
        for (uint32_t i = 1; i < nr; i++) /* ascending */
            for (uint32_t k = i; k > 0 && ranks[k - 1] > ranks[k]; k--) {
                uint32_t t = ranks[k];
                ranks[k] = ranks[k - 1];
                ranks[k - 1] = t;
            }
        char rl[160] = "", cl[480] = "";
        for (uint32_t k = 0; k < nr; k++)
            snprintf(rl + strlen(rl), sizeof rl - strlen(rl), "%s%u", k ? (k + 1 == nr && !more_r ? " and " : ", ") : "", ranks[k]);
        if (more_r) snprintf(rl + strlen(rl), sizeof rl - strlen(rl), " and %u more", more_r);
        for (uint32_t k = 0; k < nc; k++)
            snprintf(cl + strlen(cl), sizeof cl - strlen(cl), "%s%s", k ? (k + 1 == nc && !more_c ? " and " : ", ") : "", colls[k]);
        if (more_c) snprintf(cl + strlen(cl), sizeof cl - strlen(cl), " and %u more", more_c);
        if (queue)
            hl = (size_t)snprintf(head, sizeof head, "a cycle of waits between the dimension queues of ranks %s, which "
                                  "admitted the chunks of %s in different orders", rl, cl[0] ? cl : "their collectives");
        else if (engine)
            hl = (size_t)snprintf(head, sizeof head, "a cycle of waits through the communication streams of ranks %s "
                                  "(--comm-streams %u)%s%s", rl, s->comm_streams, cl[0] ? ", over " : "", cl);
        else if (nc)
            hl = (size_t)snprintf(head, sizeof head, "a cycle of waits between ranks %s: their traces issue %s in "
                                  "orders that wait for each other", rl, cl);
        else
            hl = (size_t)snprintf(head, sizeof head, "a cycle of waits between the point-to-point messages of ranks %s: "
                                  "each waits to receive before it sends what the other waits for", rl);
    } else {
        uint32_t shown = 0, more = 0;
        for (uint32_t v = 0; v < cs_wfg_count(d.g); v++) {
            if (cs_wfg_out_degree(d.g, v)) continue;
            const char *l = cs_wfg_label(d.g, v);
            if (!strstr(l, "never sent") && !strstr(l, "never issued")) continue;
            if (shown < DL_ROOTS && hl + 20 < sizeof head)
                hl += (size_t)snprintf(head + hl, sizeof head - hl, "%s%.*s", shown ? "; " : "",
                                       (int)(sizeof head - hl - 40), l);
            else
                more++;
            shown++;
        }
        if (more && hl < sizeof head) hl += (size_t)snprintf(head + hl, sizeof head - hl, "; and %u more", more);
        if (!shown && hl < sizeof head)
            hl += (size_t)snprintf(head + hl, sizeof head - hl, "%s",
                                   netp[0] ? netp : "nodes wait for parents that never complete");
    }
    (void)hl;
    CS_ERR(s->err, CS_EDEADLOCK, "simulation stopped at %.3f us with work left on %u of %u ranks (first: rank %u, %" PRIu64
           " of %u nodes done): %s", cs_time_as_us_f(cs_eventq_now(s->q)), stuck, s->w->nranks, first,
           s->ranks[first].nodes, s->rs[first].g->nnodes, head);

    /* the details: the cycle, its victims, the remedy */
    char *text = NULL;
    size_t tlen = 0;
    FILE *f = open_memstream(&text, &tlen);
    if (f) {
        uint8_t *on = cs_calloc(s->w->nranks, 1);
        if (ncyc) {
            fprintf(f, "the cycle of waits (each line waits for the next):\n");
            cs_wfg_write_cycle(d.g, f, "  ");
            for (uint32_t i = 0; i < ncyc; i++) on[cs_wfg_rank(d.g, cyc[i])] = 1;
            uint32_t shown = 0, more = 0;
            uint32_t *nearest = cs_malloc((size_t)s->w->nranks * sizeof *nearest); /* per rank: its vertex nearest the cycle */
            for (uint32_t rk = 0; rk < s->w->nranks; rk++) nearest[rk] = UINT32_MAX;
            for (uint32_t v = 0; v < cs_wfg_count(d.g); v++) {
                uint32_t rk = cs_wfg_rank(d.g, v), dd = cs_wfg_dist(d.g, v, NULL, NULL);
                if (rk < s->w->nranks && dd != UINT32_MAX &&
                    (nearest[rk] == UINT32_MAX || dd < cs_wfg_dist(d.g, nearest[rk], NULL, NULL)))
                    nearest[rk] = v;
            }
            for (uint32_t rk = 0; rk < s->w->nranks; rk++) {
                if (on[rk] || s->ranks[rk].nodes >= s->rs[rk].g->nnodes) continue;
                uint32_t best = nearest[rk], bd = best == UINT32_MAX ? UINT32_MAX : cs_wfg_dist(d.g, best, NULL, NULL);
                if (shown == 0) fprintf(f, "ranks waiting on the cycle (victims):\n");
                if (shown >= DL_VICTIMS) {
                    more++;
                    continue;
                }
                shown++;
                if (best == UINT32_MAX) {
                    fprintf(f, "  rank %u (%" PRIu64 " of %u nodes done): no wait recorded that leads to the cycle\n", rk,
                            s->ranks[rk].nodes, s->rs[rk].g->nnodes);
                    continue;
                }
                uint32_t nx;
                int w;
                cs_wfg_dist(d.g, best, &nx, &w);
                fprintf(f, "  %s: %s %s (%u wait%s from the cycle)\n", cs_wfg_label(d.g, best),
                        cs_wfg_why_text(w), cs_wfg_label(d.g, nx), bd, bd == 1 ? "" : "s");
            }
            if (more) fprintf(f, "  and %u more ranks\n", more);
            cs_free(nearest);
        } else {
            fprintf(f, "no cycle of waits; what the stuck operations wait for in the end:\n");
            uint32_t shown = 0, more = 0;
            for (uint32_t v = 0; v < cs_wfg_count(d.g); v++) {
                if (cs_wfg_out_degree(d.g, v)) continue;
                if (shown++ < 2 * DL_VICTIMS) fprintf(f, "  %s\n", cs_wfg_label(d.g, v));
                else more++;
            }
            if (more) fprintf(f, "  and %u more\n", more);
        }
        if (netp[0]) fprintf(f, "the network: %s\n", netp);
        if (ncyc) dl_remedy(&d, f, why, ncyc);
        cs_free(on);
        fclose(f);
        if (text) cs_error_set_detail(s->err, text);
        free(text);
    }
    for (uint32_t rk = 0; rk < s->w->nranks; rk++) cs_free(d.parents[rk]);
    cs_free(d.parents);
    cs_free(d.mark);
    cs_free(d.work);
    cs_wfg_free(d.g);
    fail(s, CS_EDEADLOCK);
}
/* ---- API --------------------------------------------------------------------- */

/* cs_cdim_loader.load: the graph sets of custom:PREFIX entries (custom_coll.h). */
static int cdim_load(void *ud, const char *prefix, const char *what, uint32_t n, const cs_cdim_set **out,
                     cs_error *err) {
    sim *s = ud;
    if (!s->custom)
        return CS_ERR(err, CS_EINTERNAL, "%s: custom graphs asked for, but the configuration names none", what);
    return cs_custom_colls_dim_set(s->custom, prefix, what, n, out, err);
}

const cs_cdim_loader *cs_exec_cdim_loader(cs_exec *x) { return &x->cdim; }

cs_exec *cs_exec_new(const cs_exec_params *p) {
    sim *s = cs_calloc(1, sizeof *s);
    s->w = p->w;
    s->q = p->q;
    s->compute = p->compute;
    s->comm_streams = p->comm_streams ? p->comm_streams : 1;
    s->observer = p->observer;
    s->ranks = p->ranks;
    s->rank_start = p->mode == CS_EXEC_FULL ? p->rank_start : NULL;
    s->err = p->err;
    s->rep = p->mode != CS_EXEC_FULL;
    s->cls = p->mode == CS_EXEC_CLASS;
    s->nactive = p->mode == CS_EXEC_REP ? 1 : p->w->nranks;
    s->par = cs_eventq_parallel(p->q) != NULL;
    s->nxp = cs_eventq_nparts(p->q);
    s->xp = cs_calloc(s->nxp, sizeof *s->xp);
    for (uint32_t i = 0; i < s->nxp; i++) s->xp[i].op_pool = cs_pool_new(sizeof(op));
    s->custom = cs_custom_colls_new(p->system, p->custom_nodes);
    s->custom_nodes = p->custom_nodes;
    s->cdim = (cs_cdim_loader){.load = cdim_load, .ud = s};
    s->groups = p->groups;
    s->syscfg = p->system;
    return s;
}

void cs_exec_free(cs_exec *s) {
    if (!s) return;
    if (s->chans) {
        for (size_t b = 0; b < s->nchan_buckets; b++) {
            chan *c = s->chans[b];
            while (c) {
                chan *n = c->next;
                cs_free(c);
                c = n;
            }
        }
        cs_free(s->chans);
    }
    if (s->rs) {
        for (uint32_t rk = 0; rk < s->nactive; rk++) {
            cs_free(s->rs[rk].ready_comp.a);
            cs_free(s->rs[rk].ready_cpu.a);
            cs_free(s->rs[rk].ready_comm.a);
            cs_free(s->rs[rk].ready_recv.a);
        }
        cs_free(s->rs);
    }
    cs_free(s->pending);
#ifdef CS_INVARIANTS
    cs_free(s->nstates);
#endif
    cs_free(s->reps);
    for (uint32_t i = 0; i < s->nxp; i++) {
        cs_free(s->xp[i].instant);
        cs_pool_free(s->xp[i].op_pool);
    }
    cs_free(s->xp);
    while (s->cinsts) { /* instances of a run that stopped */
        cinst *ci = s->cinsts;
        s->cinsts = ci->next;
        cs_free(ci->pending);
        cs_free(ci);
    }
    cs_custom_colls_free(s->custom);
    cs_free(s);
}

uint64_t cs_exec_next_key(void *x, uint32_t rank) { return next_key(x, rank); }
void cs_exec_fail(void *x, int rc) { fail(x, rc); }
int cs_exec_failed(const cs_exec *s) { return s->failed; }
uint32_t cs_exec_simulated(const cs_exec *s) { return s->nreps; }
uint64_t cs_exec_roofline_fallbacks(const cs_exec *s) {
    uint64_t n = 0;
    for (uint32_t i = 0; i < s->nxp; i++) n += s->xp[i].roofline_fallbacks;
    return n;
}
size_t cs_exec_rank_bytes(void) { return sizeof(rank_state) + sizeof(uint32_t); /* rs, reps */ }

const char *cs_exec_parallel_why(const cs_exec *s) { return s->par_why[0] ? s->par_why : NULL; }
void cs_exec_progress(const cs_exec *s, uint64_t *done, uint64_t *total) {
    *done = 0;
    for (uint32_t i = 0; i < s->nxp; i++) *done += __atomic_load_n(&s->xp[i].nodes_done, __ATOMIC_RELAXED);
    *total = s->nodes_total;
}

/* Rank rk's roots become ready (pending counters set). */
static void start_rank(sim *s, uint32_t rk) {
    rank_state *r = &s->rs[rk];
    for (uint32_t i = 0; i < r->g->nnodes; i++)
        if (!r->pending[i]) make_ready(s, rk, i);
    settle(s, rk);
}

static void start_rank_ev(void *ctx, const cs_event *ev) {
    sim *s = ctx;
    if (!s->failed) start_rank(s, (uint32_t)ev->arg);
}

void cs_exec_start(cs_exec *s, cs_net *net, cs_system *sys, cs_memory *mem) {
    const cs_workload *w = s->w;
    s->net = net;
    s->sys = sys;
    s->mem = mem;
    s->rs = cs_calloc(s->nactive, sizeof *s->rs);
    s->reps = cs_malloc((size_t)s->nactive * sizeof *s->reps);
    for (uint32_t rk = 0; rk < s->nactive; rk++)
        if (cs_system_is_rep(sys, rk)) s->reps[s->nreps++] = rk;
    size_t npending = 0;
    for (uint32_t i = 0; i < s->nreps; i++) npending += w->rank_graph[s->reps[i]]->nnodes;
    s->nodes_total = npending;
    s->pending = cs_malloc((npending ? npending : 1) * sizeof *s->pending);
#ifdef CS_INVARIANTS
    s->nstates = cs_calloc(npending ? npending : 1, 1); /* NS_WAIT */
#endif
    npending = 0;
    for (uint32_t i = 0; i < s->nreps; i++) {
        uint32_t rk = s->reps[i];
        s->rs[rk].g = w->rank_graph[rk];
        s->rs[rk].pending = s->pending + npending;
#ifdef CS_INVARIANTS
        s->rs[rk].nstate = s->nstates + npending;
#endif
        npending += w->rank_graph[rk]->nnodes;
    }
    for (uint32_t j = 0; j < s->nreps && !s->failed; j++) {
        uint32_t rk = s->reps[j];
        rank_state *r = &s->rs[rk];
        for (uint32_t i = 0; i < r->g->nnodes; i++) r->pending[i] = r->g->nodes[i].nparents;
        cs_eventq_set_origin(s->q, rk);
        if (s->rank_start && s->rank_start[rk]) /* a job that starts later: its roots then */
            cs_eventq_push(s->q, s->rank_start[rk], next_key(s, rk), start_rank_ev, s, rk);
        else start_rank(s, rk);
    }
}

/* Every node done, but a message no receive took: the traces do not match
 * (ASTRA-sim would finish too; the bytes would be lost silently). */
static void unreceived(sim *s) {
    for (size_t b = 0; b < s->nchan_buckets; b++)
        for (chan *c = s->chans[b]; c; c = c->next) {
            if (!c->sends) continue;
            const op *o = c->sends;
            size_t more = 0;
            for (const op *x = o->next; x; x = x->next) more++;
            const cs_graph *g = op_graph(s, o);
            char also[64] = "";
            if (more) snprintf(also, sizeof also, " (and %zu more on this channel)", more);
            CS_ERR(s->err, CS_EINVAL,
                   "%s node %" PRIu64 " (rank %u) sent %" PRIu64 " bytes to rank %u with tag %d that no receive "
                   "took%s; expected a COMM_RECV node on rank %u with comm_src %u and that tag",
                   g->source, g->nodes[o->node].id, c->src, o->bytes, c->dst, c->tag, also, c->dst, c->src);
            fail(s, CS_EINVAL);
            return;
        }
}

int cs_exec_finish(cs_exec *s, char *why, size_t whylen) {
    if (whylen) why[0] = '\0';
    if (s->rep) {
        const char *broken = cs_system_symmetry_broken(s->sys);
        if (broken)
            snprintf(why, whylen, "%s", broken);
        else if (s->rep_why[0])
            snprintf(why, whylen, "%s", s->rep_why);
        else if (s->failed)
            snprintf(why, whylen, "it failed (%.300s)", s->err && s->err->msg[0] ? s->err->msg : "no message");
        else
            for (uint32_t i = 0; i < s->nreps; i++) {
                uint32_t rk = s->reps[i];
                if (s->ranks[rk].nodes < s->rs[rk].g->nnodes) {
                    snprintf(why, whylen, "rank %u stopped with %" PRIu64 " of %u nodes done", rk,
                             s->ranks[rk].nodes, s->rs[rk].g->nnodes);
                    fail(s, CS_EDEADLOCK);
                    break;
                }
            }
    } else if (!s->failed) {
        describe_stuck(s);
    }
    if (!s->failed) unreceived(s);
    for (uint32_t i = 0; i < s->nreps && !s->failed; i++) { /* close the split at each rank's finish */
        uint32_t rk = s->reps[i];
        cs_rank_result *rr = &s->ranks[rk];
        if (rr->finish > s->rs[rk].acct_since) rr->idle += rr->finish - s->rs[rk].acct_since;
        CS_ALWAYS(rr->compute + rr->cpu_only + rr->comm_only + rr->idle == rr->finish,
                  "rank %u: compute %" PRIu64 " + CPU only %" PRIu64 " + communication only %" PRIu64 " + idle %" PRIu64
                  " ps is not its finish at %" PRIu64 " ps", rk, rr->compute, rr->cpu_only, rr->comm_only, rr->idle,
                  rr->finish);
    }
#ifdef CS_INVARIANTS
    if (!s->failed) { /* every node done once; every point-to-point byte sent was received */
        uint64_t sent = 0, recv = 0;
        for (uint32_t i = 0; i < s->nreps; i++) {
            uint32_t rk = s->reps[i];
            sent += s->ranks[rk].bytes_sent;
            recv += s->ranks[rk].bytes_recv;
            for (uint32_t k = 0; k < s->rs[rk].g->nnodes; k++)
                CS_ALWAYS(s->rs[rk].nstate[k] == NS_DONE, "rank %u: %s node %" PRIu64 " ends the run in state %d", rk,
                          s->rs[rk].g->source, s->rs[rk].g->nodes[k].id, s->rs[rk].nstate[k]);
        }
        CS_ALWAYS(sent == recv, "the ranks sent %" PRIu64 " point-to-point bytes and received %" PRIu64, sent, recv);
    }
#endif
    if (s->rep && s->failed && whylen && !why[0])
        snprintf(why, whylen, "it failed (%.300s)", s->err && s->err->msg[0] ? s->err->msg : "no message");
    return s->failed;
}
