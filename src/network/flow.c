/*
 * flow.c -- the `flow` backend: transfers are fluid flows over the links of a
 * physical topology (topology/topology.h) and share every link max-min fairly.
 *
 * A send becomes one flow on the cached ECMP route from src to dst
 * (topology/route.h).  Rates are max-min fair (progressive filling: the link
 * with the smallest fair share bottlenecks its unfrozen flows, which are
 * frozen at that share; repeat).  When a flow starts or ends, rates are
 * recomputed only over the connected component of the flow/link sharing graph
 * that contains the flow's links; flows whose rate changes get their
 * transmission-end event cancelled (cs_eventq_cancel) and rescheduled.
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
 * The topology is cs_network_config.topology (borrowed; its `stats` are
 * filled: bytes, busy time, peak utilization), or, when NULL, the ASTRA-sim
 * product of the network's dimensions (built and owned here).
 *
 * Owns: flows (ids recycled through a free list), per-link flow lists, the
 * router.  docs/network.md ("flow") has the model and its differences.
 */
#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "core/pool.h"
#include "network/flow.h"
#include "network/network.h"
#include "topology/route.h"
#include "topology/topology.h"

typedef struct flink {
    uint32_t *flows; /* active flow ids */
    uint32_t nflows, cap;
    uint32_t mark;
    uint32_t unfrozen;
    double rem;      /* capacity left during filling, bytes/ns */
} flink;

typedef struct flow {
    uint32_t *path;  /* npath link ids, then npath positions in the links' lists (owned) */
    uint32_t npath;
    uint32_t mark;
    uint8_t frozen, live, rerated, changed;
    double remaining; /* bytes not yet sent at `last` */
    double rate;      /* bytes per ns */
    double lat_ns;
    double xfer_ns;   /* send -> end of transmission, ns (valid once scheduled) */
    cs_time last, start;
    uint64_t bytes, key, cookie, ev; /* ev: pending tx-end event id + 1, 0 = none */
    cs_net_done_fn done;
    void *ctx;
} flow;

typedef struct arrival {
    cs_net_done_fn done;
    void *ctx;
    void *pool;
} arrival;

typedef struct flow_state {
    const cs_network_config *cfg;
    cs_eventq *q;
    cs_topo *topo;
    int own_topo;
    cs_router *router;
    flink *links;
    flow *flows;
    size_t nflows_alloc, cap_flows;
    uint32_t *free_ids;
    size_t nfree, cap_free;
    uint32_t epoch;
    uint32_t *comp_links, *comp_flows, *stack;
    size_t cap_cl, cap_cf, cap_st;
    cs_pool *arrivals;
} flow_state;

static void flow_destroy(void *state);

static int flow_create(const cs_network_config *cfg, cs_eventq *q, void **state, cs_error *err) {
    flow_state *s = cs_calloc(1, sizeof *s);
    *state = s;
    s->cfg = cfg;
    s->q = q;
    if (cfg->topology) {
        s->topo = cfg->topology;
    } else {
        s->topo = cs_topo_build_astra(cfg);
        s->own_topo = 1;
    }
    if (s->topo->nnpus != cfg->total_npus) {
        int rc = CS_ERR(err, CS_EINVAL, "topology (%s) has %u NPUs but the network configuration %s has %llu",
                        s->topo->desc ? s->topo->desc : "?", s->topo->nnpus, cfg->path ? cfg->path : "",
                        (unsigned long long)cfg->total_npus);
        flow_destroy(s);
        *state = NULL;
        return rc;
    }
    s->router = cs_router_new(s->topo, s->topo->ecmp_seed);
    s->links = cs_calloc(s->topo->nlinks ? s->topo->nlinks : 1, sizeof *s->links);
    s->arrivals = cs_pool_new(sizeof(arrival));
    return CS_OK;
}

static void flow_destroy(void *state) {
    flow_state *s = state;
    if (!s) return;
    for (size_t i = 0; i < s->nflows_alloc; i++)
        if (s->flows[i].live) cs_free(s->flows[i].path);
    if (s->links)
        for (uint32_t l = 0; l < s->topo->nlinks; l++) cs_free(s->links[l].flows);
    cs_free(s->links);
    cs_free(s->flows);
    cs_free(s->free_ids);
    cs_free(s->comp_links);
    cs_free(s->comp_flows);
    cs_free(s->stack);
    if (s->arrivals) cs_pool_free(s->arrivals);
    cs_router_free(s->router);
    if (s->own_topo) cs_topo_free(s->topo);
    cs_free(s);
}

static cs_time floor_ns_ps(double ns) {
    if (!(ns > 0)) return 0;
    return cs_time_from_ns((uint64_t)floor(ns));
}

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
    cs_eventq_push(s->q, t < now ? now : t, key, on_arrive, a, cookie);
}

/* --- max-min fair rates over one component ----------------------------------- */

static void on_tx_end(void *ctx, const cs_event *ev);

static void schedule(flow_state *s, uint32_t id) {
    flow *f = &s->flows[id];
    cs_time now = cs_eventq_now(s->q);
    if (f->ev) cs_eventq_cancel(s->q, f->ev - 1);
    if (!f->rerated) f->xfer_ns = (double)f->bytes / f->rate; /* the analytical expression */
    else f->xfer_ns = (double)(now - f->start) / 1e3 + f->remaining / f->rate;
    cs_time t = cs_time_add(f->start, floor_ns_ps(f->xfer_ns));
    if (t < now) t = now;
    f->ev = cs_eventq_push(s->q, t, f->key, on_tx_end, s, id) + 1;
}

/* Recompute rates of the component containing links seed[0..n). */
static void rerate(flow_state *s, const uint32_t *seed, uint32_t nseed) {
    cs_time now = cs_eventq_now(s->q);
    uint32_t ep = ++s->epoch;
    size_t ncl = 0, ncf = 0, nst = 0;
    for (uint32_t i = 0; i < nseed; i++) {
        if (s->links[seed[i]].mark == ep) continue;
        s->links[seed[i]].mark = ep;
        CS_GROW(s->stack, s->cap_st, nst + 1);
        s->stack[nst++] = seed[i];
    }
    while (nst) {
        uint32_t l = s->stack[--nst];
        CS_GROW(s->comp_links, s->cap_cl, ncl + 1);
        s->comp_links[ncl++] = l;
        flink *L = &s->links[l];
        for (uint32_t j = 0; j < L->nflows; j++) {
            uint32_t fid = L->flows[j];
            flow *f = &s->flows[fid];
            if (f->mark == ep) continue;
            f->mark = ep;
            CS_GROW(s->comp_flows, s->cap_cf, ncf + 1);
            s->comp_flows[ncf++] = fid;
            for (uint32_t h = 0; h < f->npath; h++) {
                uint32_t l2 = f->path[h];
                if (s->links[l2].mark == ep) continue;
                s->links[l2].mark = ep;
                CS_GROW(s->stack, s->cap_st, nst + 1);
                s->stack[nst++] = l2;
            }
        }
    }
    /* advance the component's flows to now at their old rates */
    for (size_t i = 0; i < ncf; i++) {
        flow *f = &s->flows[s->comp_flows[i]];
        if (f->rate > 0) {
            f->remaining -= f->rate * (double)(now - f->last) / 1e3;
            if (f->remaining < 0) f->remaining = 0;
        }
        f->last = now;
        f->frozen = 0;
    }
    for (size_t i = 0; i < ncl; i++) {
        flink *L = &s->links[s->comp_links[i]];
        L->rem = s->topo->links[s->comp_links[i]].bw;
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
            flow *f = &s->flows[B->flows[j]];
            if (f->frozen) continue;
            f->frozen = 1;
            double old = f->rate;
            f->rate = best;
            if (old != best) {
                if (old > 0) f->rerated = 1;
                f->changed = 1; /* reschedule below */
            }
            for (uint32_t h = 0; h < f->npath; h++) {
                flink *L = &s->links[f->path[h]];
                L->rem -= best;
                L->unfrozen--;
            }
        }
    }
    for (size_t i = 0; i < ncl; i++) {
        uint32_t l = s->comp_links[i];
        double bw = s->topo->links[l].bw;
        double util = bw > 0 ? 1.0 - s->links[l].rem / bw : 0;
        if (s->links[l].nflows && util > s->topo->stats[l].peak_util) s->topo->stats[l].peak_util = util > 1 ? 1 : util;
    }
    for (size_t i = 0; i < ncf; i++) {
        uint32_t fid = s->comp_flows[i];
        flow *f = &s->flows[fid];
        if (!f->changed) continue;
        f->changed = 0;
        if (f->rate > 0) schedule(s, fid);
        else if (f->ev) { /* starved (cannot happen with bw > 0): wait for a change */
            cs_eventq_cancel(s->q, f->ev - 1);
            f->ev = 0;
        }
    }
}

/* --- start and end of a flow ---------------------------------------------------- */

static void on_tx_end(void *ctx, const cs_event *ev) {
    flow_state *s = ctx;
    uint32_t fid = (uint32_t)ev->arg;
    flow *f = &s->flows[fid];
    cs_time now = cs_eventq_now(s->q);
    f->ev = 0;
    for (uint32_t h = 0; h < f->npath; h++) {
        uint32_t l = f->path[h];
        flink *L = &s->links[l];
        uint32_t pos = f->path[f->npath + h];
        uint32_t last = L->flows[--L->nflows];
        if (pos != L->nflows) {
            L->flows[pos] = last;
            flow *g = &s->flows[last];
            for (uint32_t k = 0; k < g->npath; k++)
                if (g->path[k] == l) {
                    g->path[g->npath + k] = pos;
                    break;
                }
        }
        cs_link_stats *st = &s->topo->stats[l];
        st->bytes += f->bytes;
        if (--st->active == 0) st->busy += now - st->busy_since;
    }
    cs_time arrive = cs_time_add(f->start, floor_ns_ps(f->lat_ns + f->xfer_ns));
    push_arrival(s, arrive, f->key, f->done, f->ctx, f->cookie);
    f->live = 0;
    CS_GROW(s->free_ids, s->cap_free, s->nfree + 1);
    s->free_ids[s->nfree++] = fid;
    /* the flow's path is still readable: rerate its former component */
    rerate(s, f->path, f->npath);
    cs_free(f->path);
    f->path = NULL;
}

static int flow_send(void *state, uint32_t src, uint32_t dst, uint64_t bytes, uint64_t key,
                     cs_net_done_fn done, void *ctx, uint64_t cookie, cs_error *err) {
    flow_state *s = state;
    const uint32_t *route;
    uint32_t n;
    int rc = cs_router_route(s->router, src, dst, &route, &n, err);
    if (rc) return rc;
    cs_time now = cs_eventq_now(s->q);
    double lat_ns = 0;
    for (uint32_t h = 0; h < n; h++) lat_ns += (double)s->topo->links[route[h]].lat / 1e3;
    if (n == 0 || bytes == 0) {
        push_arrival(s, cs_time_add(now, floor_ns_ps(lat_ns)), key, done, ctx, cookie);
        return CS_OK;
    }
    uint32_t fid;
    if (s->nfree) {
        fid = s->free_ids[--s->nfree];
    } else {
        CS_GROW(s->flows, s->cap_flows, s->nflows_alloc + 1);
        fid = (uint32_t)s->nflows_alloc++;
        s->flows[fid].mark = 0;
    }
    flow *f = &s->flows[fid];
    uint32_t mark = f->mark;
    memset(f, 0, sizeof *f);
    f->mark = mark;
    f->path = cs_malloc(2 * (size_t)n * sizeof *f->path);
    memcpy(f->path, route, (size_t)n * sizeof *route);
    f->npath = n;
    f->live = 1;
    f->remaining = (double)bytes;
    f->bytes = bytes;
    f->start = f->last = now;
    f->lat_ns = lat_ns;
    f->key = key;
    f->cookie = cookie;
    f->done = done;
    f->ctx = ctx;
    for (uint32_t h = 0; h < n; h++) {
        uint32_t l = f->path[h];
        flink *L = &s->links[l];
        if (L->nflows == L->cap) {
            L->cap = L->cap ? L->cap * 2 : 4;
            L->flows = cs_realloc(L->flows, (size_t)L->cap * sizeof *L->flows);
        }
        f->path[n + h] = L->nflows;
        L->flows[L->nflows++] = fid;
        cs_link_stats *st = &s->topo->stats[l];
        if (st->active++ == 0) st->busy_since = now;
    }
    rerate(s, f->path, n);
    return CS_OK;
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
        const cs_link *l = &s->topo->links[route[h]];
        lat_ns += (double)l->lat / 1e3;
        if (l->bw < bw) bw = l->bw;
    }
    if (n == 0) return 0;
    return floor_ns_ps(lat_ns + (bytes ? (double)bytes / bw : 0));
}

const cs_net_backend cs_net_flow = {
    .name = "flow",
    .help = "max-min fair flows over an explicit topology (--topology, else the dims), ECMP routes",
    .create = flow_create,
    .send = flow_send,
    .uncontended_time = flow_time,
    .destroy = flow_destroy,
};

double cs_flow_rate(const cs_net *net, uint64_t cookie) {
    if (net->backend != &cs_net_flow) return -1;
    const flow_state *s = net->state;
    for (size_t i = 0; i < s->nflows_alloc; i++)
        if (s->flows[i].live && s->flows[i].cookie == cookie) return s->flows[i].rate;
    return -1;
}

size_t cs_flow_active(const cs_net *net) {
    if (net->backend != &cs_net_flow) return 0;
    const flow_state *s = net->state;
    return s->nflows_alloc - s->nfree;
}
