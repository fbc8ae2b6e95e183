/*
 * flow.c -- the `flow` backend: transfers are fluid flows over the links of a
 * physical topology (topology/topology.h) and share every link max-min fairly.
 *
 * A send becomes one flow on the cached ECMP route from src to dst
 * (topology/route.h; per message when the topology sprays; a fixed route of
 * its routing table when it has one).  Rates are max-min fair (progressive filling: the link
 * with the smallest fair share bottlenecks its unfrozen flows, which are
 * frozen at that share; repeat).  When a flow starts or ends, rates are
 * recomputed only over the connected component of the flow/link sharing graph
 * that contains the flow's links; flows whose rate changes get a new
 * transmission end (in the backend's heap of ends, "Transmission ends"
 * below: the earliest has its event, in the place its own event had).
 * Starts and ends of one instant are batched: one rerate event (key
 * UINT64_MAX, after every other event of that time) covers them all.
 *
 * Timing: a flow sent at t0 finishes transmitting after x ns (bytes at its
 * successive fair rates) and its last byte arrives at
 *     t0 + floor(L + x)  ns,   L = sum of the path's link latencies (ns)
 * (truncated to whole ns from the send, as `analytical`).  Uncontended,
 * x = bytes / min link bandwidth, so over one link -- or a Switch (2 links,
 * 2 latencies) or a Ring path of h hops -- this is exactly analytical's
 * floor(h * L + s / B) with B = GB/s * 2^30 / 1e9 bytes per ns.  The links
 * are released at t0 + floor(x) ns (the sender's side has finished).
 *
 * The topology is cs_net_env.topo (borrowed, read-only), or, when NULL, the
 * ASTRA-sim product of the network's dimensions (built and owned here).  The
 * backend keeps its own per-link statistics (bytes, busy time, peak
 * utilization: cs_net_report) and reports utilization changes to the
 * environment's observer.
 *
 * Bandwidths: the backend's own array, a copy of the topology's at create
 * (failures and degradation from the start included), or every link at its
 * built bandwidth when the environment asks for the healthy network (then
 * timed changes are ignored too).  Timed changes (cs_topo.changes: a link or
 * switch down, degraded or restored at time T) are events at T (key 0:
 * before anything else at T): the backend's bandwidths change, the router
 * (which reads them) drops its caches, every active flow
 * whose path crosses a link that is down is moved -- with the bytes it has
 * left -- to a fresh route from its source (flows whose route is still up
 * keep it), and rates are recomputed over the components of the changed
 * links and of the old and new paths.  A rerouted flow's last byte arrives
 * after the latency of its new path.  A flow with no route left stalls (rate
 * 0) until a later change gives it one.  The topology is never written, so
 * it can be run again as it is.
 *
 * Sends arrive with NPUs (the network layer applied the placement).
 *
 * Options (FLOW_OPTS): the ECMP seed and the routing mode, each "as the
 * topology says" by default.
 *
 * Invariants (core/invariant.h), with FLOW_TOL = 1e-9 (relative) for the
 * floating-point rates and bytes:
 *  - after every re-rating, on each link of the component the flows' rates
 *    sum to at most bandwidth x (1 + FLOW_TOL), and every flow with a
 *    positive rate has a bottleneck: a link on its path whose rates sum to
 *    at least bandwidth x (1 - FLOW_TOL) and whose largest rate is its own
 *    (max-min fairness);
 *  - a flow's remaining bytes never fall below -FLOW_TOL x its bytes (they
 *    are then clamped at 0: rounding only);
 *  - a flow ends once, by its own latest transmission-end event (a
 *    re-scheduled or recycled flow never takes a stale one), with less than
 *    one ns of bytes at its rate left (the end is truncated to whole ns);
 *  - its arrival is never before the end of its transmission;
 *  - the per-link flow lists and the positions flows keep in them agree.
 *
 * Owns: flows (ids recycled through a free list), per-link flow lists and
 * statistics, the bandwidth array, the router.  docs/network.md ("flow") has
 * the model and its differences.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/invariant.h"
#include "core/pool.h"
#include "network/flow.h"
#include "network/network.h"
#include "topology/route.h"
#include "topology/topology.h"

typedef struct flink {
    uint32_t *flows; /* active flow ids */
    uint32_t nflows, cap;
    uint32_t mark;
    uint32_t pend;   /* the generation of `pending` that lists it (flow_state.pend_gen) */
    uint32_t unfrozen;
    double rem;      /* capacity left during filling, bytes/ns */
    double util;     /* last utilization reported to the observer */
#ifdef CS_INVARIANTS
    double inv_max, inv_sum; /* largest rate among its flows, their sum (the max-min check) */
#endif
} flink;

/* Relative tolerance of the invariants on floating-point rates and bytes. */
#define FLOW_TOL 1e-9

/* Per-link statistics (cs_net_link_stat) and their bookkeeping. */
typedef struct lstat {
    uint64_t bytes;    /* payload bytes of flows that crossed the link (counted when they leave it) */
    cs_time busy;      /* time with at least one flow on the link */
    double peak_util;  /* max over time of (sum of flow rates) / bw */
    cs_time busy_since;
    uint32_t active;
} lstat;

/* The backend's options (FLOW_OPTS). */
typedef struct flow_opts {
    int ecmp_seed; /* -1 = the topology's */
    int routing;   /* FLOW_ROUTING_* */
    int channels;  /* FLOW_CH_*: a message striped over NCCL channels as a flow per channel, or one flow */
} flow_opts;
enum { FLOW_ROUTING_TOPOLOGY, FLOW_ROUTING_ECMP, FLOW_ROUTING_SPRAY };
static const char *const FLOW_ROUTINGS[] = {"topology", "ecmp", "spray", NULL};
enum { FLOW_CH_CONNECTIONS, FLOW_CH_MERGED };
static const char *const FLOW_CHS[] = {"connections", "merged", NULL};
static const cs_opt FLOW_OPTS[] = {
    {.key = "ecmp_seed", .type = CS_OPT_INT, .def = -1, .min = -1, .max = (double)INT32_MAX,
     .off = offsetof(flow_opts, ecmp_seed), .help = "seed of ECMP hashing (-1 = the topology's ecmp_seed)"},
    {.key = "routing", .type = CS_OPT_ENUM, .def = FLOW_ROUTING_TOPOLOGY, .values = FLOW_ROUTINGS,
     .off = offsetof(flow_opts, routing),
     .help = "topology: as the topology says; ecmp: one path per (src, dst) pair (and NCCL channel: channels); "
             "spray: a path per message"},
    {.key = "channels", .type = CS_OPT_ENUM, .def = FLOW_CH_CONNECTIONS, .values = FLOW_CHS,
     .off = offsetof(flow_opts, channels),
     .help = "a message the system stripes over NCCL channels (collective-model nccl, across nodes): connections "
             "(a flow per channel, each on its own ECMP path, as NCCL's channels are connections of their own) or "
             "merged (one flow: one path per pair)"},
};

/* Paths of up to this many links live in the flow's hot record itself: no
 * allocation per flow, no cache miss beyond the record when a link's list
 * moves it. */
#define FLOW_INLINE_HOPS 4

/* A flow is three records in three arrays indexed by its id (structure of
 * arrays, by use): with a million flows alive (the 1,024-GPU all-to-all)
 * each pass over a component's flows misses the cache once per flow and
 * record it reads, so what the re-rating and the link lists touch is one
 * 64-byte line (fhot, aligned), what the scheduling of a transmission end
 * adds is another (fcold), and what only the start and the end of a
 * transfer need is apart (fmsg). */
typedef struct fhot {
    double rate;      /* bytes per ns */
    double remaining; /* bytes not yet sent at `last` */
    cs_time last;
    uint32_t npath;
    uint8_t frozen, live, rerated;
    uint8_t changed; /* by the filling: 1 from a rate <= 0, 2 from a positive one (the rescheduling reads it) */
    union {
        uint32_t inl[2 * FLOW_INLINE_HOPS]; /* npath <= FLOW_INLINE_HOPS: the path (below) */
        uint32_t *ext;                      /* longer: the path, owned */
    } p; /* npath link ids, then npath positions in the links' lists (flow_path) */
} fhot;
typedef struct fcold {
    cs_time start;
    uint64_t bytes, key, ev; /* ev: pending tx-end's event id (its sequence number) + 1, 0 = none */
    double xfer_ns;    /* send -> end of transmission, ns (valid once scheduled) */
    double path_bytes; /* remaining when the flow joined its current path (link byte counts) */
    uint8_t beyond;    /* at its rate it would end beyond the simulated-time range: not scheduled */
    uint8_t proxied;   /* its end has its event in the queue (pushed with ev - 1) */
    uint16_t conn;     /* its connection (NCCL channel): its route is hashed with it (a reroute too) */
    uint8_t pad[64 - 6 * 8 - 2 - 2];
} fcold;
typedef struct fmsg {
    uint64_t cookie;
    cs_net_done_fn done;
    void *ctx;
} fmsg;
#define FLOW_LINE 64 /* bytes: fhot's size and alignment (a cache line) */
_Static_assert(sizeof(fhot) == FLOW_LINE && sizeof(fcold) == FLOW_LINE, "a flow's hot and cold records are a cache "
               "line each");

/* h's path: link ids [0, npath), positions in the links' lists [npath, 2 npath). */
static inline uint32_t *flow_path(fhot *h) { return h->npath <= FLOW_INLINE_HOPS ? h->p.inl : h->p.ext; }

/* Frees h's path unless it is inline. */
static void free_path(fhot *h) {
    if (h->npath > FLOW_INLINE_HOPS) cs_free(h->p.ext);
    h->npath = 0;
}

/* Issue a load of the cache line at p now (a pass over a list of flow ids
 * asks for the records a few ids ahead, so that the misses overlap). */
#define FLOW_AHEAD 8
#define PREFETCH(p) __builtin_prefetch(p)

typedef struct arrival {
    cs_net_done_fn done;
    void *ctx;
    void *pool;
} arrival;

/* One pending transmission end, in the event queue's order: (t, key, seq). */
typedef struct xend {
    cs_time t;
    uint64_t key, seq;
    uint32_t fid;
} xend;

typedef struct flow_state {
    const cs_network_config *cfg;
    cs_eventq *q;
    xend *xh;          /* the heap of transmission ends ("Transmission ends"); NULL-able */
    size_t nxh, capxh;
    uint32_t *hpos;    /* per flow id: its end's place in xh + 1 (0: not there); a dense array */
    size_t cap_hpos;
    uint8_t xh_on;     /* ends through the heap (a sequential queue) */
    const cs_topo *topo;
    cs_topo *own_topo; /* the product of the dimensions when no topology was given */
    cs_router *router;
    double *bw;        /* per link, bytes per ns (0 = down): the topology's, changed by timed changes */
    lstat *stats;      /* per link */
    cs_net_observer obs; /* link_util NULL = none */
    flink *links;
    fhot *hot;          /* per flow id: FLOW_LINE-aligned inside hot_block */
    void *hot_block;
    fcold *cold;        /* the same, inside cold_block */
    void *cold_block;
    fmsg *msg;
    size_t nflows_alloc, cap_flows;
    /* per flow id, the epoch of the last component search that met it: apart
     * from the records, so that meeting a flow again from its other links
     * (a million flows, a record each) touches 4 bytes, not a record */
    uint32_t *fmark;
    size_t cap_fmark;
    uint32_t *free_ids;
    size_t nfree, cap_free;
    uint32_t epoch;
    uint32_t *comp_links, *comp_flows, *stack;
    size_t cap_cl, cap_cf, cap_st;
    cs_pool *arrivals;
    cs_pool *stripes; /* a message striped over NCCL channels (cs_net_send_striped), until its last flow arrives */
    int channels;     /* FLOW_CH_* */
    uint32_t *seeds; /* timed changes: links whose component is recomputed */
    size_t cap_seeds;
    uint64_t rerouted, stalled;
    /* arrivals beyond the simulated-time range (a flow slowed by sharing, or
     * rerouted onto a slow path): never delivered; describe_pending says so */
    uint64_t late;
    uint32_t late_src, late_dst;
    uint64_t late_bytes;
    /* rates are recomputed once per instant: starts and ends add their links
     * to `pending` and one event (key UINT64_MAX: after everything else at
     * that time) re-fills their components */
    uint32_t *pending; /* each link once (its first time: the order of the recomputations is kept) */
    size_t npending, cap_pending;
    uint32_t pend_gen; /* bumped when pending is taken */
    int rerate_queued;
    cs_time pend_time; /* when pending was last added to */
    /* the sequence number of the instant's recomputation, taken when an end
     * that emptied its links listed them without queueing it (rerate_seq_set,
     * at rerate_seq_time): its event, if the instant queues one, takes that
     * number -- the place it had when every listing queued it */
    uint64_t rerate_seq;
    cs_time rerate_seq_time;
    int rerate_seq_set;
} flow_state;

static void on_change(void *ctx, const cs_event *ev);

static void flow_destroy(void *state);

static int flow_create(const cs_net_env *env, void **state, cs_error *err) {
    const cs_network_config *cfg = env->cfg;
    const flow_opts *o = env->opts;
    flow_state *s = cs_calloc(1, sizeof *s);
    *state = s;
    s->cfg = cfg;
    s->q = env->q;
    s->xh_on = cs_eventq_parallel(env->q) == NULL;
    if (env->observer) s->obs = *env->observer;
    int rc = cs_net_graph(env, &s->topo, &s->own_topo, err);
    if (rc) {
        flow_destroy(s);
        *state = NULL;
        return rc;
    }
    size_t nl = s->topo->nlinks ? s->topo->nlinks : 1;
    s->bw = cs_malloc(nl * sizeof *s->bw);
    for (uint32_t l = 0; l < s->topo->nlinks; l++)
        s->bw[l] = env->healthy ? s->topo->links[l].nominal_bw : s->topo->links[l].bw;
    s->stats = cs_calloc(nl, sizeof *s->stats);
    uint64_t seed = o->ecmp_seed >= 0 ? (uint64_t)o->ecmp_seed : s->topo->ecmp_seed;
    int spray = o->routing == FLOW_ROUTING_TOPOLOGY ? -1 : o->routing == FLOW_ROUTING_SPRAY;
    /* the router reads our bandwidths only when they can differ from the
     * topology's (timed changes, or the healthy network of a degraded one):
     * the topology's own are one memory access fewer per link in its BFS */
    int same = env->healthy || !s->topo->nchanges;
    for (uint32_t l = 0; same && l < s->topo->nlinks; l++) same = s->bw[l] == s->topo->links[l].bw;
    s->router = cs_router_new_ex(s->topo, seed, spray, same ? NULL : s->bw);
    s->links = cs_calloc(nl, sizeof *s->links);
    s->pend_gen = 1;
    s->arrivals = cs_pool_new(sizeof(arrival));
    s->stripes = cs_pool_new(cs_net_stripe_size());
    s->channels = o->channels;
    for (uint32_t i = 0; !env->healthy && i < s->topo->nchanges; i++)
        cs_eventq_push(s->q, s->topo->changes[i].at, 0, on_change, s, i);
    return CS_OK;
}

static void flow_destroy(void *state) {
    flow_state *s = state;
    if (!s) return;
    for (size_t i = 0; i < s->nflows_alloc; i++)
        if (s->hot[i].live) free_path(&s->hot[i]);
    if (s->links)
        for (uint32_t l = 0; l < s->topo->nlinks; l++) cs_free(s->links[l].flows);
    cs_free(s->links);
    cs_free(s->hot_block);
    cs_free(s->cold_block);
    cs_free(s->msg);
    cs_free(s->fmark);
    cs_free(s->free_ids);
    cs_free(s->xh);
    cs_free(s->hpos);
    cs_free(s->comp_links);
    cs_free(s->comp_flows);
    cs_free(s->stack);
    cs_free(s->seeds);
    cs_free(s->pending);
    cs_free(s->bw);
    cs_free(s->stats);
    if (s->arrivals) cs_pool_free(s->arrivals);
    if (s->stripes) cs_pool_free(s->stripes);
    cs_router_free(s->router);
    cs_topo_free(s->own_topo);
    cs_free(s);
}

/* Whole ns (the analytical rounding) in ps; CS_TIME_MAX: beyond the range. */
static cs_time floor_ns_ps(double ns) { return cs_time_from_whole_ns_f(ns); }

/* --- arrival ------------------------------------------------------------------ */

static void on_arrive(void *ctx, const cs_event *ev) {
    arrival *a = ctx;
    cs_net_done_fn done = a->done;
    void *dctx = a->ctx;
    cs_pool_put(a->pool, a);
    done(dctx, ev->arg);
}

static void push_arrival(flow_state *s, cs_time t, uint64_t key, cs_net_done_fn done, void *ctx, uint64_t cookie) {
    arrival *a = cs_pool_get(s->arrivals);
    a->done = done;
    a->ctx = ctx;
    a->pool = s->arrivals;
    cs_time now = cs_eventq_now(s->q);
    CS_ALWAYS(t >= now, "an arrival at %llu ps is scheduled at %llu ps", (unsigned long long)t,
              (unsigned long long)now);
    cs_eventq_push(s->q, t < now ? now : t, key, on_arrive, a, cookie);
}

/* Flow fid's remaining bytes after advancing it: only rounding may take them below 0. */
static void check_remaining(const flow_state *s, uint32_t fid) {
    CS_ALWAYS(s->hot[fid].remaining >= -FLOW_TOL * (double)s->cold[fid].bytes, "a flow of %llu bytes has %.17g bytes "
              "left", (unsigned long long)s->cold[fid].bytes, s->hot[fid].remaining);
    (void)s, (void)fid;
}

/* After filling the component (links cl[0..ncl), flows cf[0..ncf)): no link
 * above its bandwidth; every flow with a rate has a bottleneck link. */
static void check_rates(const flow_state *s, const uint32_t *cl, size_t ncl, const uint32_t *cf, size_t ncf) {
#ifdef CS_INVARIANTS
    for (size_t i = 0; i < ncl; i++) {
        flink *L = &s->links[cl[i]];
        double sum = 0, max = 0, bw = s->bw[cl[i]];
        for (uint32_t j = 0; j < L->nflows; j++) {
            double r = s->hot[L->flows[j]].rate;
            sum += r;
            if (r > max) max = r;
        }
        L->inv_max = max;
        L->inv_sum = sum;
        CS_ALWAYS(sum <= bw * (1 + FLOW_TOL), "link %u (%u -> %u): its %u flows' rates sum to %.17g bytes/ns, above "
                  "its bandwidth of %.17g", cl[i], s->topo->links[cl[i]].src, s->topo->links[cl[i]].dst, L->nflows,
                  sum, bw);
    }
    for (size_t i = 0; i < ncf; i++) {
        fhot *f = &s->hot[cf[i]];
        uint64_t bytes = s->cold[cf[i]].bytes;
        CS_ALWAYS(f->frozen && f->rate >= 0, "a flow of %llu bytes left the filling with rate %g (frozen %d)",
                  (unsigned long long)bytes, f->rate, f->frozen);
        if (!(f->rate > 0)) continue;
        int bottleneck = 0;
        const uint32_t *path = flow_path(f);
        for (uint32_t h = 0; h < f->npath && !bottleneck; h++) {
            const flink *L = &s->links[path[h]];
            double bw = s->bw[path[h]];
            bottleneck = L->inv_sum >= bw * (1 - FLOW_TOL) && f->rate >= L->inv_max * (1 - FLOW_TOL);
        }
        CS_ALWAYS(bottleneck, "a flow of %llu bytes at %.17g bytes/ns crosses %u links and none is a saturated link "
                  "where its rate is the largest (not max-min fair)", (unsigned long long)bytes, f->rate, f->npath);
    }
#else
    (void)s, (void)cl, (void)ncl, (void)cf, (void)ncf;
#endif
}

/* --- max-min fair rates over one component ----------------------------------- */

static void on_tx_end(void *ctx, const cs_event *ev);

/* ---- transmission ends ----------------------------------------------------------------
 * A flow whose rate changes gets a new end.  Instead of an event per flow,
 * cancelled and pushed again at every change (most of the event queue's
 * work in large runs: tombstones, and a timestamp per stale end), the ends
 * wait in a heap ordered as the event queue orders events -- (time, key,
 * sequence number), the number taken from the queue when the end is
 * scheduled (cs_eventq_take_seq), as a push would have taken it -- and the
 * earliest end always has its event in the queue, pushed with that number
 * (cs_eventq_push_seq).  So every end is dispatched exactly where its own
 * event was before, among the same events, in the same order.  An end that
 * has had its event keeps it while other ends come before it (it fires in
 * its turn); only a rescheduled or dropped end's event is cancelled. */

static int xless(const xend *a, const xend *b) {
    return a->t != b->t ? a->t < b->t : a->key != b->key ? a->key < b->key : a->seq < b->seq;
}

static void xset(flow_state *s, size_t i, xend e) {
    s->xh[i] = e;
    s->hpos[e.fid] = (uint32_t)i + 1;
}

static void xup(flow_state *s, size_t i) {
    xend e = s->xh[i];
    while (i) {
        size_t p = (i - 1) / 2;
        if (!xless(&e, &s->xh[p])) break;
        xset(s, i, s->xh[p]);
        i = p;
    }
    xset(s, i, e);
}

static void xdown(flow_state *s, size_t i) {
    xend e = s->xh[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= s->nxh) break;
        if (c + 1 < s->nxh && xless(&s->xh[c + 1], &s->xh[c])) c++;
        if (!xless(&s->xh[c], &e)) break;
        xset(s, i, s->xh[c]);
        i = c;
    }
    xset(s, i, e);
}

/* Flow id's end leaves the heap (its event, if it had one, cancelled). */
static void xremove(flow_state *s, uint32_t id) {
    fcold *c = &s->cold[id];
    if (c->proxied) cs_eventq_cancel(s->q, c->ev - 1);
    c->proxied = 0;
    if (id >= s->cap_hpos || !s->hpos[id]) return;
    size_t i = s->hpos[id] - 1;
    s->hpos[id] = 0;
    if (i + 1 == s->nxh) {
        s->nxh--;
        return;
    }
    xend last = s->xh[--s->nxh];
    xset(s, i, last);
    if (i && xless(&last, &s->xh[(i - 1) / 2])) xup(s, i);
    else xdown(s, i);
}

/* The earliest end gets its event (pushed with its own number). */
static void xsync(flow_state *s) {
    if (!s->nxh) return;
    const xend *e = &s->xh[0];
    fcold *c = &s->cold[e->fid];
    if (c->proxied) return;
    cs_eventq_push_seq(s->q, e->t, e->key, e->seq, on_tx_end, s, e->fid);
    c->proxied = 1;
}

/* Flow id's end becomes e: its entry replaced in place (one sift), or added. */
static void xput(flow_state *s, uint32_t id, xend e) {
    if (id >= s->cap_hpos) { /* (new entries zeroed: not in the heap) */
        size_t old = s->cap_hpos;
        CS_GROW(s->hpos, s->cap_hpos, (size_t)id + 1);
        memset(s->hpos + old, 0, (s->cap_hpos - old) * sizeof *s->hpos);
    }
    size_t i;
    if (s->hpos[id]) {
        i = s->hpos[id] - 1;
    } else {
        CS_GROW(s->xh, s->capxh, s->nxh + 1);
        i = s->nxh++;
    }
    int up = i && xless(&e, &s->xh[(i - 1) / 2]);
    xset(s, i, e);
    if (up) xup(s, i);
    else xdown(s, i);
}

static void schedule(flow_state *s, uint32_t id) {
    const fhot *f = &s->hot[id];
    fcold *c = &s->cold[id];
    cs_time now = cs_eventq_now(s->q);
    if (s->xh_on) { /* its event, if it had one, is stale now */
        if (c->proxied) cs_eventq_cancel(s->q, c->ev - 1);
        c->proxied = 0;
    } else if (c->ev) {
        cs_eventq_cancel(s->q, c->ev - 1);
    }
    if (!f->rerated) c->xfer_ns = (double)c->bytes / f->rate; /* the analytical expression */
    else c->xfer_ns = (double)(now - c->start) / 1e3 + f->remaining / f->rate;
    cs_time t = cs_time_add(c->start, floor_ns_ps(c->xfer_ns));
    c->ev = 0;
    c->beyond = (uint8_t)cs_time_beyond(t);
    if (c->beyond) { /* waits for a faster rate, else the run stops (describe_pending) */
        if (s->xh_on) xremove(s, id);
        return;
    }
    if (t < now) t = now;
    if (!s->xh_on) {
        c->ev = cs_eventq_push(s->q, t, c->key, on_tx_end, s, id) + 1;
        return;
    }
    uint64_t seq = cs_eventq_take_seq(s->q); /* the number its push would have had */
    c->ev = seq + 1;
    xput(s, id, (xend){t, c->key, seq, id});
}

/* After the filling of the component comp_links[0..ncl), comp_flows[0..ncf):
 * the links' utilization and the changed flows' new ends. */
static void rerate_tail(flow_state *s, size_t ncl, size_t ncf, cs_time now) {
    check_rates(s, s->comp_links, ncl, s->comp_flows, ncf);
    for (size_t i = 0; i < ncl; i++) {
        uint32_t l = s->comp_links[i];
        double bw = s->bw[l];
        double util = bw > 0 ? 1.0 - s->links[l].rem / bw : 0;
        if (s->links[l].nflows && util > s->stats[l].peak_util) s->stats[l].peak_util = util > 1 ? 1 : util;
        if (s->obs.link_util) {
            double u = s->links[l].nflows ? (util > 1 ? 1 : util) : 0;
            if (fabs(u - s->links[l].util) > 1e-9) {
                s->links[l].util = u;
                s->obs.link_util(s->obs.ud, l, now, u);
            }
        }
    }
    for (size_t i = 0; i < ncf; i++) {
        uint32_t fid = s->comp_flows[i];
        if (i + FLOW_AHEAD < ncf) {
            PREFETCH(&s->hot[s->comp_flows[i + FLOW_AHEAD]]);
            PREFETCH(&s->cold[s->comp_flows[i + FLOW_AHEAD]]);
        }
        fhot *f = &s->hot[fid];
        if (!f->changed) continue;
        /* a rate that changed, or a stalled flow restarting (read here, not
         * in the filling: the cold record is read here anyway) */
        if (f->changed == 2 || s->cold[fid].start != now) f->rerated = 1;
        f->changed = 0;
        if (f->rate > 0) schedule(s, fid);
        else if (s->cold[fid].ev) { /* starved (cannot happen with bw > 0): wait for a change */
            if (s->xh_on) xremove(s, fid);
            else cs_eventq_cancel(s->q, s->cold[fid].ev - 1);
            s->cold[fid].ev = 0;
        }
    }
    if (s->xh_on) xsync(s);
}

/* A flow alone on every link of its path (the common case: most flows of a
 * training step have their links to themselves) is a component of its own
 * and its max-min rate is its slowest link's bandwidth; seed is one of its
 * links.  Does what rerate does for that component -- the same marks, the
 * same component order (the seed, then the other links as rerate's stack
 * pops them: the path's backwards), the same rate (progressive filling's
 * share is bandwidth / 1 on every link, its first smallest value the
 * minimum), the same remainders -- without the search; 0 when it does not
 * apply. */
static int rerate_alone(flow_state *s, uint32_t seed, cs_time now) {
    const flink *S = &s->links[seed];
    if (S->nflows != 1) return 0;
    uint32_t fid = S->flows[0];
    fhot *f = &s->hot[fid];
    const uint32_t *path = flow_path(f);
    for (uint32_t h = 0; h < f->npath; h++)
        if (s->links[path[h]].nflows != 1) return 0;
    uint32_t ep = ++s->epoch;
    CS_GROW(s->comp_links, s->cap_cl, f->npath);
    CS_GROW(s->comp_flows, s->cap_cf, 1);
    size_t ncl = 0;
    s->comp_links[ncl++] = seed;
    for (uint32_t h = f->npath; h-- > 0;)
        if (path[h] != seed) s->comp_links[ncl++] = path[h];
    s->comp_flows[0] = fid;
    s->fmark[fid] = ep;
    if (f->rate > 0) {
        f->remaining -= f->rate * (double)(now - f->last) / 1e3;
        check_remaining(s, fid);
        if (f->remaining < 0) f->remaining = 0;
    }
    f->last = now;
    double best = INFINITY;
    for (size_t i = 0; i < ncl; i++) {
        flink *L = &s->links[s->comp_links[i]];
        L->mark = ep;
        L->rem = s->bw[s->comp_links[i]];
        double share = L->rem / 1;
        if (share < best) best = share;
    }
    f->frozen = 0;
    if (best < INFINITY) { /* (else, as in the filling, nothing is frozen and the rate stays) */
        if (best < 0) best = 0;
        f->frozen = 1;
        double old = f->rate;
        f->rate = best;
        if (old != best) f->changed = old > 0 ? 2 : 1;
        for (size_t i = 0; i < ncl; i++) s->links[s->comp_links[i]].rem -= best;
    }
    for (size_t i = 0; i < ncl; i++) s->links[s->comp_links[i]].unfrozen = !f->frozen;
    rerate_tail(s, ncl, 1, now);
    return 1;
}

/* Recompute rates of the component containing links seed[0..n). */
static void rerate(flow_state *s, const uint32_t *seed, uint32_t nseed) {
    cs_time now = cs_eventq_now(s->q);
    if (nseed == 1 && rerate_alone(s, seed[0], now)) return;
    uint32_t ep = ++s->epoch;
    size_t ncl = 0, ncf = 0, nst = 0;
    for (uint32_t i = 0; i < nseed; i++) {
        if (s->links[seed[i]].mark == ep) continue;
        s->links[seed[i]].mark = ep;
        CS_GROW(s->stack, s->cap_st, nst + 1);
        s->stack[nst++] = seed[i];
    }
    /* the component's links and flows; each flow is advanced to now at its
     * old rate when met (its record is read then anyway) */
    while (nst) {
        uint32_t l = s->stack[--nst];
        CS_GROW(s->comp_links, s->cap_cl, ncl + 1);
        s->comp_links[ncl++] = l;
        flink *L = &s->links[l];
        CS_GROW(s->comp_flows, s->cap_cf, ncf + L->nflows);
        for (uint32_t j = 0; j < L->nflows; j++) {
            uint32_t fid = L->flows[j];
            if (j + FLOW_AHEAD < L->nflows) PREFETCH(&s->hot[L->flows[j + FLOW_AHEAD]]);
            if (s->fmark[fid] == ep) continue;
            s->fmark[fid] = ep;
            fhot *f = &s->hot[fid];
            s->comp_flows[ncf++] = fid;
            if (f->rate > 0) {
                f->remaining -= f->rate * (double)(now - f->last) / 1e3;
                check_remaining(s, fid);
                if (f->remaining < 0) f->remaining = 0;
            }
            f->last = now;
            f->frozen = 0;
            const uint32_t *path = flow_path(f);
            for (uint32_t h = 0; h < f->npath; h++) {
                uint32_t l2 = path[h];
                if (s->links[l2].mark == ep) continue;
                s->links[l2].mark = ep;
                CS_GROW(s->stack, s->cap_st, nst + 1);
                s->stack[nst++] = l2;
            }
        }
    }
    for (size_t i = 0; i < ncl; i++) {
        flink *L = &s->links[s->comp_links[i]];
        L->rem = s->bw[s->comp_links[i]];
        L->unfrozen = L->nflows;
    }
    /* progressive filling */
    for (;;) {
        double best = INFINITY;
        size_t bi = SIZE_MAX;
        for (size_t i = 0; i < ncl; i++) {
            flink *L = &s->links[s->comp_links[i]];
            if (!L->unfrozen) continue;
            double share = L->rem / L->unfrozen;
            if (share < best) {
                best = share;
                bi = i;
            }
        }
        if (bi == SIZE_MAX) break;
        if (best < 0) best = 0;
        flink *B = &s->links[s->comp_links[bi]];
        for (uint32_t j = 0; j < B->nflows; j++) {
            uint32_t fid = B->flows[j];
            if (j + FLOW_AHEAD < B->nflows) PREFETCH(&s->hot[B->flows[j + FLOW_AHEAD]]);
            fhot *f = &s->hot[fid];
            if (f->frozen) continue;
            f->frozen = 1;
            double old = f->rate;
            f->rate = best;
            if (old != best) f->changed = old > 0 ? 2 : 1; /* reschedule below */
            const uint32_t *path = flow_path(f);
            for (uint32_t h = 0; h < f->npath; h++) {
                flink *L = &s->links[path[h]];
                L->rem -= best;
                L->unfrozen--;
            }
        }
    }
    rerate_tail(s, ncl, ncf, now);
}

/* --- batching: one rerate per instant ------------------------------------------- */

/* Recompute every component touching links[0..n), each once and on its own
 * (progressive filling over a union of disjoint components would cost
 * links x bottlenecks of the union). */
static void rerate_each(flow_state *s, const uint32_t *links, size_t n) {
    uint32_t batch = s->epoch + 1; /* components recomputed below get marks >= batch */
    for (size_t i = 0; i < n; i++) {
        if (s->links[links[i]].mark >= batch && s->links[links[i]].mark != 0) continue;
        rerate(s, &links[i], 1);
    }
}

/* A new generation of `pending` (no link listed). */
static void pending_clear(flow_state *s) {
    s->npending = 0;
    if (++s->pend_gen == 0) { /* wrapped: no link may look listed */
        for (uint32_t l = 0; l < s->topo->nlinks; l++) s->links[l].pend = 0;
        s->pend_gen = 1;
    }
}

/* Links listed at an earlier instant that queued no recomputation (flows'
 * ends that left every link of their paths without flows: see
 * rerate_later) are forgotten: recomputing them then would have changed
 * nothing, and a later listing must take its own place in the order. */
static void pending_drop_stale(flow_state *s, cs_time now) {
    if (!s->rerate_queued && s->npending && s->pend_time != now) pending_clear(s);
}

/* Recompute the components of the pending links now, in the order they
 * were listed.  A link without flows is a component of its own whose
 * recomputation changes nothing but its utilization track (no other
 * component reaches it), so without a track it is passed over. */
static void take_pending(flow_state *s) {
    size_t n = s->npending, k = 0;
    pending_clear(s);
    if (s->obs.link_util) {
        k = n;
    } else {
        for (size_t i = 0; i < n; i++)
            if (s->links[s->pending[i]].nflows) s->pending[k++] = s->pending[i];
    }
    rerate_each(s, s->pending, k);
}

static void on_rerate(void *ctx, const cs_event *ev) {
    (void)ev;
    flow_state *s = ctx;
    s->rerate_queued = 0;
    take_pending(s);
}

/* 1 when an end of this instant took the recomputation's number. */
static int rerate_seq_taken(const flow_state *s, cs_time now) { return s->rerate_seq_set && s->rerate_seq_time == now; }

/* The instant's recomputation, queued once (key UINT64_MAX: after
 * everything else at this time). */
static void queue_rerate(flow_state *s) {
    if (s->rerate_queued) return;
    s->rerate_queued = 1;
    cs_time now = cs_eventq_now(s->q);
    if (rerate_seq_taken(s, now)) {
        s->rerate_seq_set = 0;
        cs_eventq_push_seq(s->q, now, UINT64_MAX, s->rerate_seq, on_rerate, s, 0);
    } else {
        cs_eventq_push(s->q, now, UINT64_MAX, on_rerate, s, 0);
    }
}

/* Recompute the components of links[0..n) at the end of this instant.  The
 * links are listed in the order they come (the order of the
 * recomputations, hence of the rescheduled ends' sequence numbers).  A
 * flow's end (ending) that leaves every link of its path without flows
 * lists them but, without a utilization track, queues no recomputation:
 * take_pending would pass them over; if the instant lists more, they are
 * recomputed in their place, by an event with the number the end took for
 * it (among other events of key UINT64_MAX at this time -- a message may
 * have that key -- it keeps its place). */
static void rerate_later(flow_state *s, const uint32_t *links, uint32_t n, int ending) {
    cs_time now = cs_eventq_now(s->q);
    pending_drop_stale(s, now);
    s->pend_time = now;
    /* a link listed again would find its component recomputed already (rerate_each) */
    CS_GROW(s->pending, s->cap_pending, s->npending + n);
    int busy = !ending || s->obs.link_util;
    for (uint32_t h = 0; h < n; h++) {
        flink *L = &s->links[links[h]];
        busy |= L->nflows != 0;
        if (L->pend == s->pend_gen) continue;
        L->pend = s->pend_gen;
        s->pending[s->npending++] = links[h];
    }
    if (busy || cs_eventq_parallel(s->q)) {
        queue_rerate(s);
    } else if (!s->rerate_queued && !rerate_seq_taken(s, now)) {
        s->rerate_seq = cs_eventq_take_seq(s->q); /* the number its push would have had */
        s->rerate_seq_time = now;
        s->rerate_seq_set = 1;
    }
}

/* --- start and end of a flow ---------------------------------------------------- */

/* Take flow fid off the links of its path; the links are charged the bytes
 * it sent on this path (path_bytes - remaining; remaining must be current). */
static void detach(flow_state *s, uint32_t fid, cs_time now) {
    fhot *f = &s->hot[fid];
    const uint32_t *path = flow_path(f);
    uint64_t sent = (uint64_t)llround(s->cold[fid].path_bytes - f->remaining);
    for (uint32_t h = 0; h < f->npath; h++) {
        uint32_t l = path[h];
        flink *L = &s->links[l];
        uint32_t pos = path[f->npath + h];
        CS_ALWAYS(L->nflows > 0 && pos < L->nflows && L->flows[pos] == fid, "link %u: the flow list and the flow's "
                  "position %u in it disagree (%u flows)", l, pos, L->nflows);
        uint32_t last = L->flows[--L->nflows];
        if (pos != L->nflows) {
            L->flows[pos] = last;
            fhot *g = &s->hot[last];
            uint32_t *gp = flow_path(g);
            for (uint32_t k = 0; k < g->npath; k++)
                if (gp[k] == l) {
                    gp[g->npath + k] = pos;
                    break;
                }
        }
        /* the flow the next removal from this link will move (flows often end in runs) */
        if (L->nflows) PREFETCH(&s->hot[L->flows[L->nflows - 1]]);
        lstat *st = &s->stats[l];
        st->bytes += sent;
        CS_ALWAYS(st->active > 0, "link %u: a flow leaves it with none active", l);
        if (--st->active == 0) st->busy += now - st->busy_since;
    }
}

/* Put flow fid on the links path[0..n) (its path array is (re)allocated). */
static void attach(flow_state *s, uint32_t fid, const uint32_t *route, uint32_t n, cs_time now) {
    fhot *f = &s->hot[fid];
    free_path(f);
    if (n > FLOW_INLINE_HOPS) f->p.ext = cs_malloc(2 * (size_t)n * sizeof *f->p.ext);
    f->npath = n;
    uint32_t *path = flow_path(f);
    memcpy(path, route, (size_t)n * sizeof *route);
    s->cold[fid].path_bytes = f->remaining;
    for (uint32_t h = 0; h < n; h++) {
        uint32_t l = path[h];
        flink *L = &s->links[l];
        if (L->nflows == L->cap) {
            L->cap = L->cap ? L->cap * 2 : 4;
            L->flows = cs_realloc(L->flows, (size_t)L->cap * sizeof *L->flows);
        }
        path[n + h] = L->nflows;
        L->flows[L->nflows++] = fid;
        lstat *st = &s->stats[l];
        if (st->active++ == 0) st->busy_since = now;
    }
}

/* The latency of links path[0..n), ns (summed in this order: the same
 * double for the same path wherever it is computed). */
static double path_lat_ns(const flow_state *s, const uint32_t *path, uint32_t n) {
    double lat_ns = 0;
    for (uint32_t h = 0; h < n; h++) lat_ns += (double)s->topo->links[path[h]].lat / 1e3;
    return lat_ns;
}

/* Transmission ends come in runs (a million at one instant in the
 * all-to-all): read ahead the records of the flow that ends FLOW_AHEAD
 * events later and the link-list entries that the one FLOW_AHEAD / 2 later
 * will touch (its position and the list's tail), so that their cache misses
 * overlap this one's work.  Hints only: nothing depends on them. */
static void prefetch_ends(flow_state *s) {
    const cs_event *e = cs_eventq_ahead(s->q, FLOW_AHEAD);
    if (e && e->fn == on_tx_end && e->ctx == s) {
        PREFETCH(&s->hot[e->arg]);
        PREFETCH(&s->cold[e->arg]);
        PREFETCH(&s->msg[e->arg]);
    }
    e = cs_eventq_ahead(s->q, FLOW_AHEAD / 2);
    if (!e || e->fn != on_tx_end || e->ctx != s) return;
    fhot *g = &s->hot[e->arg];
    const uint32_t *path = flow_path(g);
    for (uint32_t h = 0; h < g->npath; h++) {
        const flink *L = &s->links[path[h]];
        uint32_t pos = path[g->npath + h];
        if (pos < L->nflows) PREFETCH(&L->flows[pos]);
        if (L->nflows) PREFETCH(&L->flows[L->nflows - 1]);
    }
}

static void on_tx_end(void *ctx, const cs_event *ev) {
    flow_state *s = ctx;
    uint32_t fid = (uint32_t)ev->arg;
    fhot *f = &s->hot[fid];
    fcold *c = &s->cold[fid];
    cs_time now = cs_eventq_now(s->q);
    CS_ALWAYS(f->live && c->ev == ev->seq + 1, "flow %u ends by a stale event (live %d, its event %llu, this one %llu)",
              fid, f->live, (unsigned long long)c->ev, (unsigned long long)ev->seq + 1);
#ifdef CS_INVARIANTS
    double left = f->remaining - f->rate * (double)(now - f->last) / 1e3;
    CS_ALWAYS(left >= -FLOW_TOL * (double)c->bytes && left <= f->rate * (1 + FLOW_TOL) + FLOW_TOL * (double)c->bytes,
              "a flow of %llu bytes ends its transmission with %.17g bytes left at %.17g bytes/ns",
              (unsigned long long)c->bytes, left, f->rate);
#endif
    prefetch_ends(s);
    if (s->xh_on) { /* the earliest end: off the heap; the next one gets its event */
        CS_ALWAYS(s->hpos[fid] == 1, "flow %u ends at heap place %u, not first", fid, s->hpos[fid]);
        c->proxied = 0;
        xremove(s, fid);
        xsync(s);
    }
    c->ev = 0;
    f->remaining = 0;
    detach(s, fid, now);
    const uint32_t *path = flow_path(f);
    cs_time arrive = cs_time_add(c->start, floor_ns_ps(path_lat_ns(s, path, f->npath) + c->xfer_ns));
    if (!cs_time_beyond(arrive)) {
        const fmsg *m = &s->msg[fid];
        push_arrival(s, arrive, c->key, m->done, m->ctx, m->cookie);
    } else if (!s->late++) { /* never delivered: the run stops, describe_pending says why */
        s->late_src = s->topo->links[path[0]].src;
        s->late_dst = s->topo->links[path[f->npath - 1]].dst;
        s->late_bytes = c->bytes;
    }
    f->live = 0;
    CS_GROW(s->free_ids, s->cap_free, s->nfree + 1);
    s->free_ids[s->nfree++] = fid;
    /* the flow's path is still readable: rerate its former component (see
     * rerate_later: if every link of it is left without flows, nothing needs
     * recomputing unless the instant brings more) */
    rerate_later(s, path, f->npath, 1);
    free_path(f);
}

/* A timed change of the topology (see the file comment). */
static void on_change(void *ctx, const cs_event *ev) {
    flow_state *s = ctx;
    cs_time now = cs_eventq_now(s->q);
    /* links an end of this instant listed without queueing their
     * recomputation may get flows now: queue it, as every listing did */
    pending_drop_stale(s, now);
    if (s->npending) queue_rerate(s);
    size_t ns = 0;
    cs_topo_change_bw(s->topo, &s->topo->changes[ev->arg], s->bw, &s->seeds, &ns, &s->cap_seeds);
    cs_router_invalidate(s->router);
    for (size_t i = 0; i < s->nflows_alloc; i++) {
        fhot *f = &s->hot[i];
        if (!f->live) continue;
        const uint32_t *path = flow_path(f);
        int down = 0;
        for (uint32_t h = 0; h < f->npath && !down; h++) down = !(s->bw[path[h]] > 0);
        if (!down) continue;
        const uint32_t *route;
        uint32_t n;
        cs_error e;
        cs_error_clear(&e);
        uint32_t src = s->topo->links[path[0]].src, dst = s->topo->links[path[f->npath - 1]].dst;
        if (cs_router_route_conn(s->router, src, dst, s->cold[i].key, s->cold[i].conn, &route, &n, &e)) {
            s->stalled++; /* no route: stays (rate 0) until a later change */
            continue;
        }
        /* bring the flow to now at its old rate, then move it */
        if (f->rate > 0) {
            f->remaining -= f->rate * (double)(now - f->last) / 1e3;
            check_remaining(s, (uint32_t)i);
            if (f->remaining < 0) f->remaining = 0;
        }
        f->last = now;
        for (uint32_t h = 0; h < f->npath; h++) { /* old path: its component is recomputed */
            CS_GROW(s->seeds, s->cap_seeds, ns + 1);
            s->seeds[ns++] = path[h];
        }
        detach(s, (uint32_t)i, now);
        attach(s, (uint32_t)i, route, n, now); /* the arrival takes the new path's latency (path_lat_ns) */
        f->rerated = 1;
        f->rate = -1; /* forces a reschedule at the new rate */
        for (uint32_t h = 0; h < n; h++) {
            CS_GROW(s->seeds, s->cap_seeds, ns + 1);
            s->seeds[ns++] = route[h];
        }
        s->rerouted++;
    }
    rerate_each(s, s->seeds, ns);
}

/* Room for one more flow id: the three record arrays grow (doubling); the
 * hot records stay FLOW_LINE-aligned inside their block. */
static void *grow_aligned(void **block, void *arr, size_t used, size_t bytes) {
    size_t old_off = *block ? (size_t)((char *)arr - (char *)*block) : 0;
    char *b = cs_realloc(*block, bytes + FLOW_LINE);
    size_t off = (FLOW_LINE - (uintptr_t)b % FLOW_LINE) % FLOW_LINE;
    if (off != old_off) memmove(b + off, b + old_off, used);
    *block = b;
    return b + off;
}

static void grow_flows(flow_state *s) {
    size_t cap = s->cap_flows ? 2 * s->cap_flows : 64, n = s->nflows_alloc;
    s->hot = grow_aligned(&s->hot_block, s->hot, n * sizeof *s->hot, cap * sizeof *s->hot);
    s->cold = grow_aligned(&s->cold_block, s->cold, n * sizeof *s->cold, cap * sizeof *s->cold);
    s->msg = cs_realloc(s->msg, cap * sizeof *s->msg);
    s->cap_flows = cap;
}

/* A flow of message m between nodes src and dst, on connection conn. */
static int start_flow(flow_state *s, uint32_t src, uint32_t dst, const cs_net_msg *m, uint32_t conn, cs_error *err) {
    const uint32_t *route;
    uint32_t n;
    uint64_t bytes = m->bytes, key = m->key;
    int rc = cs_router_route_conn(s->router, src, dst, key, conn, &route, &n, err);
    if (rc) return rc;
    cs_time now = cs_eventq_now(s->q);
    double lat_ns = 0, bw = INFINITY;
    uint32_t slow = 0;
    for (uint32_t h = 0; h < n; h++) {
        lat_ns += (double)s->topo->links[route[h]].lat / 1e3;
        if (s->bw[route[h]] < bw) bw = s->bw[slow = route[h]];
    }
    double alone_ns = lat_ns + (n && bytes ? (double)bytes / bw : 0); /* uncontended: the earliest arrival */
    if (cs_time_beyond(cs_time_add(now, floor_ns_ps(alone_ns)))) {
        char how[320];
        if (n && bytes)
            snprintf(how, sizeof how, "%u links from node %u to node %u alone; the slowest, %u -> %u, at %g GB/s, "
                     "%.4g ns of latency in all", n, src, dst, s->topo->links[slow].src, s->topo->links[slow].dst, bw,
                     lat_ns);
        else
            snprintf(how, sizeof how, "the latency of %u links from node %u to node %u", n, src, dst);
        return cs_net_beyond_error(err, now, alone_ns, how);
    }
    if (n == 0 || bytes == 0) {
        push_arrival(s, cs_time_add(now, floor_ns_ps(lat_ns)), key, m->done, m->ctx, m->cookie);
        return CS_OK;
    }
    CS_ALWAYS(path_lat_ns(s, route, n) == lat_ns, "the latency of a %u-link path is computed two ways", n);
    uint32_t fid;
    if (s->nfree) {
        fid = s->free_ids[--s->nfree];
        CS_NEVER(s->hot[fid].live, "flow id %u reused while its flow is live", fid);
    } else {
        if (s->nflows_alloc == s->cap_flows) grow_flows(s);
        CS_GROW(s->fmark, s->cap_fmark, s->nflows_alloc + 1);
        fid = (uint32_t)s->nflows_alloc++;
        s->fmark[fid] = 0;
    }
    fhot *f = &s->hot[fid];
    memset(f, 0, sizeof *f);
    f->live = 1;
    f->remaining = (double)bytes;
    f->last = now;
    s->cold[fid] = (fcold){.start = now, .bytes = bytes, .key = key, .conn = (uint16_t)conn};
    s->msg[fid] = (fmsg){.cookie = m->cookie, .done = m->done, .ctx = m->ctx};
    attach(s, fid, route, n, now);
    rerate_later(s, route, n, 0);
    return CS_OK;
}

/* A flow of message m on connection conn, between its NPUs. */
static int flow_send_conn(void *state, const cs_net_msg *m, uint32_t conn, cs_error *err) {
    return start_flow(state, m->src, m->dst, m, conn, err);
}

/* A message striped over NCCL channels (channels connections) is a flow per channel, each routed by its
 * own hash (cs_net_send_striped, cs_router_route_conn); it arrives when all have. */
static int flow_send(void *state, const cs_net_msg *m, cs_error *err) {
    flow_state *s = state;
    return cs_net_send_striped(s, m, s->channels == FLOW_CH_CONNECTIONS, s->stripes, flow_send_conn, err);
}

/* In-switch collectives: the first switch on the route npu -> peer. */
static int flow_send_switch(void *state, const cs_net_msg *m, int up, cs_error *err) {
    flow_state *s = state;
    uint32_t npu = m->src, peer = m->dst;
    const uint32_t *route;
    uint32_t n;
    int rc = cs_router_route(s->router, npu, peer, &route, &n, err);
    if (rc) return rc;
    uint32_t sw = UINT32_MAX;
    for (uint32_t h = 0; h < n && sw == UINT32_MAX; h++)
        if (s->topo->kind[s->topo->links[route[h]].dst] == CS_NODE_SWITCH) sw = s->topo->links[route[h]].dst;
    if (sw == UINT32_MAX)
        return CS_ERR(err, CS_EINVAL, "in-switch collective: no switch on the route from NPU %u to NPU %u", npu, peer);
    return up ? start_flow(s, npu, sw, m, 0, err) : start_flow(s, sw, npu, m, 0, err);
}

static cs_time flow_time(void *state, uint32_t src, uint32_t dst, uint64_t bytes) {
    flow_state *s = state;
    const uint32_t *route;
    uint32_t n;
    cs_error e;
    cs_error_clear(&e);
    if (cs_router_route(s->router, src, dst, &route, &n, &e)) return CS_TIME_MAX;
    double lat_ns = 0, bw = INFINITY;
    for (uint32_t h = 0; h < n; h++) {
        lat_ns += (double)s->topo->links[route[h]].lat / 1e3;
        if (s->bw[route[h]] < bw) bw = s->bw[route[h]];
    }
    if (n == 0) return 0;
    return floor_ns_ps(lat_ns + (bytes ? (double)bytes / bw : 0));
}

/* Per-link statistics so far (a link still in use counts as busy up to now). */
static int flow_report(void *state, cs_net_link_report *out, cs_error *err) {
    (void)err;
    const flow_state *s = state;
    cs_time now = cs_eventq_now(s->q);
    out->nlinks = s->topo->nlinks;
    out->links = cs_calloc(s->topo->nlinks ? s->topo->nlinks : 1, sizeof *out->links);
    for (uint32_t l = 0; l < s->topo->nlinks; l++) {
        const lstat *st = &s->stats[l];
        out->links[l] = (cs_net_link_stat){.bytes = st->bytes, .busy = st->busy, .peak_util = st->peak_util};
        if (st->active) out->links[l].busy += now - st->busy_since;
    }
    return CS_OK;
}

/* Flows in flight; those with no route left (stalled until a timed change);
 * those that would end, or arrive, beyond the simulated-time range. */
static void flow_describe_pending(void *state, char *buf, size_t n) {
    const flow_state *s = state;
    size_t live = 0, stalled = 0, beyond = 0, len = 0;
    size_t first = SIZE_MAX, first_beyond = SIZE_MAX;
    for (size_t i = 0; i < s->nflows_alloc; i++) {
        const fhot *f = &s->hot[i];
        if (!f->live) continue;
        live++;
        if (!(f->rate > 0)) {
            stalled++;
            if (first == SIZE_MAX) first = i;
        } else if (s->cold[i].beyond) {
            beyond++;
            if (first_beyond == SIZE_MAX) first_beyond = i;
        }
    }
    buf[0] = '\0';
    if (live) len += (size_t)snprintf(buf, n, "network: %zu flows in flight", live);
    if (first != SIZE_MAX && len < n) {
        fhot *f = &s->hot[first];
        const uint32_t *path = flow_path(f);
        const cs_link *a = &s->topo->links[path[0]], *b = &s->topo->links[path[f->npath - 1]];
        len += (size_t)snprintf(buf + len, n - len, ", %zu stalled with no route up (first: node %u -> node %u, "
                                "%.0f of %llu bytes left)", stalled, a->src, b->dst, f->remaining,
                                (unsigned long long)s->cold[first].bytes);
    }
    if (first_beyond != SIZE_MAX && len < n) {
        fhot *f = &s->hot[first_beyond];
        const uint32_t *path = flow_path(f);
        const cs_link *a = &s->topo->links[path[0]], *b = &s->topo->links[path[f->npath - 1]];
        len += (size_t)snprintf(buf + len, n - len, ", %zu sharing links so slowly that they would end beyond "
                                CS_TIME_RANGE_TEXT " (first: node %u -> node %u, %.0f of %llu bytes left at %.4g GB/s)",
                                beyond, a->src, b->dst, f->remaining, (unsigned long long)s->cold[first_beyond].bytes,
                                f->rate);
    }
    if (s->late && len < n)
        snprintf(buf + len, n - len, "%s%llu transfer%s would arrive beyond " CS_TIME_RANGE_TEXT
                 " (first: %llu bytes from node %u to node %u)", len ? "; " : "network: ",
                 (unsigned long long)s->late, s->late == 1 ? "" : "s", (unsigned long long)s->late_bytes, s->late_src,
                 s->late_dst);
}

const cs_net_backend cs_net_flow = {
    .name = "flow",
    .help = "max-min fair flows over an explicit topology (--topology, else the dims), ECMP routes",
    .caps = CS_NET_NEEDS_TOPOLOGY | CS_NET_SWITCH_ENDPOINTS | CS_NET_CONGESTION_AWARE,
    .opts = FLOW_OPTS,
    .nopts = sizeof FLOW_OPTS / sizeof FLOW_OPTS[0],
    .opts_size = sizeof(flow_opts),
    .create = flow_create,
    .send = flow_send,
    .uncontended_time = flow_time,
    .send_switch = flow_send_switch,
    .report = flow_report,
    .describe_pending = flow_describe_pending,
    .destroy = flow_destroy,
};

double cs_flow_rate(cs_net *net, uint64_t cookie) {
    if (net->backend != &cs_net_flow) return -1;
    flow_state *s = net->state;
    pending_drop_stale(s, cs_eventq_now(s->q));
    if (s->npending) take_pending(s); /* the batched rerate of this instant, now (its event then finds nothing) */
    for (size_t i = 0; i < s->nflows_alloc; i++)
        if (s->hot[i].live && s->msg[i].cookie == cookie) return s->hot[i].rate;
    return -1;
}

int cs_flow_end_heap(cs_net *net, int on) {
    if (net->backend != &cs_net_flow) return 0;
    flow_state *s = net->state;
    if (s->nflows_alloc || (on && cs_eventq_parallel(s->q))) return 0;
    s->xh_on = (uint8_t)(on != 0);
    return 1;
}

size_t cs_flow_active(const cs_net *net) {
    if (net->backend != &cs_net_flow) return 0;
    const flow_state *s = net->state;
    return s->nflows_alloc - s->nfree;
}
