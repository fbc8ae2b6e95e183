/*
 * analytical.c -- the congestion-unaware analytical backend.
 *
 * ASTRA-sim's congestion-unaware model: a message from src to dst travels in
 * the first dimension in which their addresses differ, and takes
 *     hops * latency_ns + bytes / bandwidth
 * with bandwidth in ASTRA-sim's reading of GB/s (GiB/s: bytes/ns =
 * gbps * 2^30 / 1e9) and the result truncated to whole nanoseconds, as
 * ASTRA-sim does.  Hops: Ring = shorter way round; FullyConnected = 1;
 * Switch = 2.  There is no link state: any number of concurrent messages each
 * see the full bandwidth, so every delivery takes exactly uncontended_time
 * (CS_NET_EXACT_UNCONTENDED: the symmetric run relies on it).  The state is
 * the bytes/ns of each dimension.  No options, no link statistics.
 *
 * An arrival event needs the caller's callback and context besides the
 * cookie the event carries.  Callers pass the same (callback, context) for
 * every message (the system layer: one pair per simulation), so up to
 * ANA_DESTS pairs in use are kept in the state and the event points at its
 * pair; only a message whose pair finds no free entry takes a pooled record.
 * (A pooled record per message cost a cache miss per message in full
 * simulations of thousands of ranks: docs/performance.md, "Scaling".)
 */
#include <math.h>
#include <stdio.h>

#include "core/alloc.h"
#include "core/pool.h"
#include "network/network.h"

typedef struct ana_state ana_state;

/* Where an arrival goes: the caller's callback and context.  As a pooled
 * record, one message's; as an entry of ana_state.dests, every message in
 * flight with that pair (live of them). */
typedef struct ana_msg {
    ana_state *s;
    cs_net_done_fn done;
    void *ctx;
    uint64_t live;
} ana_msg;

#define ANA_DESTS 8

__extension__ typedef unsigned __int128 ana_u128;

struct ana_state {
    const cs_network_config *cfg;
    cs_eventq *q;
    struct ana_msg *pdests; /* a parallel queue (below; here, beside q: ana_send tests it) */
    double bytes_per_ns[CS_MAX_DIMS];
    uint64_t div_m[CS_MAX_DIMS]; /* ceil(2^64 / npus[d]) for npus[d] > 1 (ana_divmod) */
    ana_msg dests[ANA_DESTS]; /* (callback, context) pairs of messages in flight; live = 0: free */
    cs_pool *msgs; /* in-flight messages whose pair has no entry (freed with the state, even mid-run) */
    /* A parallel queue (docs/parallel.md): an arrival runs in the
     * receiver's partition, so nothing is counted back: per partition
     * ANA_DESTS entries kept for the run (live unused), and a message whose
     * pair finds none takes a malloc'd record the arrival frees. */
    uint32_t npart;
};

static int ana_create(const cs_net_env *env, void **state, cs_error *err) {
    (void)err;
    const cs_network_config *cfg = env->cfg;
    ana_state *s = cs_calloc(1, sizeof *s);
    s->cfg = cfg;
    s->q = env->q;
    for (int d = 0; d < cfg->ndims; d++) {
        s->bytes_per_ns[d] = cs_gbps_to_bytes_per_ns(cfg->bandwidth_gbps[d]);
        if (cfg->npus[d] > 1) s->div_m[d] = UINT64_MAX / cfg->npus[d] + 1;
    }
    s->msgs = cs_pool_new(sizeof(ana_msg));
    if (cs_eventq_parallel(s->q)) {
        s->npart = cs_eventq_nparts(s->q);
        s->pdests = cs_calloc((size_t)s->npart * ANA_DESTS, sizeof *s->pdests);
    }
    *state = s;
    return CS_OK;
}

/* x / n and x % n for n = npus[d] > 1, by a multiplication: with
 * m = ceil(2^64 / n), x / n = floor(m x / 2^64) for every 32-bit x
 * (Lemire, Kaser and Kurz, "Faster remainder by direct computation", 2019:
 * exact when the 64-bit m carries 32 + log2(n) bits).  A message's route
 * needs a few divisions by the dimension sizes, and a division costs tens
 * of cycles. */
static inline uint32_t ana_divmod(const ana_state *s, int d, uint32_t x, uint32_t *rem) {
    uint32_t q = (uint32_t)(((ana_u128)s->div_m[d] * x) >> 64);
    *rem = x - q * s->cfg->npus[d];
    return q;
}

/* The closed form in ns (0 to itself); its dimension and hops: the first
 * dimension in which src and dst differ (cs_net_first_diff_dim), hops
 * there (cs_net_dim_hops). */
static double ana_ns(const ana_state *s, uint32_t src, uint32_t dst, uint64_t bytes, int *dim, uint32_t *hops) {
    const cs_network_config *cfg = s->cfg;
    *dim = -1;
    *hops = 0;
    for (int d = 0; d < cfg->ndims; d++) {
        if (cfg->npus[d] <= 1) continue; /* coordinate 0 for all */
        uint32_t ca, cb;
        src = ana_divmod(s, d, src, &ca);
        dst = ana_divmod(s, d, dst, &cb);
        if (ca != cb) {
            *dim = d;
            *hops = cs_net_dim_hops(cfg->topo[d], cfg->npus[d], ca, cb);
            return (double)*hops * cfg->latency_ns[d] + (double)bytes / s->bytes_per_ns[d];
        }
    }
    return 0; /* to itself: no network time */
}

static cs_time ana_time(void *state, uint32_t src, uint32_t dst, uint64_t bytes) {
    int d;
    uint32_t hops;
    return cs_time_from_whole_ns_f(ana_ns(state, src, dst, bytes, &d, &hops)); /* CS_TIME_MAX: beyond */
}

static void ana_arrive(void *ctx, const cs_event *ev) {
    ana_msg *m = ctx;
    cs_net_done_fn done = m->done;
    void *dctx = m->ctx;
    cs_pool_put(m->s->msgs, m);
    done(dctx, ev->arg);
}

static void ana_arrive_dest(void *ctx, const cs_event *ev) {
    ana_msg *d = ctx;
    d->live--;
    d->done(d->ctx, ev->arg);
}

/* The entry of (done, ctx) -- one in use, else a free one -- or NULL. */
static ana_msg *ana_dest(ana_state *s, cs_net_done_fn done, void *ctx) {
    ana_msg *free_entry = NULL;
    for (int i = 0; i < ANA_DESTS; i++) {
        ana_msg *d = &s->dests[i];
        if (!d->live) {
            if (!free_entry) free_entry = d;
        } else if (d->done == done && d->ctx == ctx) {
            return d;
        }
    }
    if (free_entry) {
        free_entry->done = done;
        free_entry->ctx = ctx;
    }
    return free_entry;
}

static void ana_arrive_par(void *ctx, const cs_event *ev) {
    const ana_msg *d = ctx;
    d->done(d->ctx, ev->arg);
}

static void ana_arrive_par_own(void *ctx, const cs_event *ev) {
    ana_msg m = *(const ana_msg *)ctx;
    cs_free(ctx);
    m.done(m.ctx, ev->arg);
}

/* A parallel queue: the arrival at t, in dst's partition. */
static void ana_send_par(ana_state *s, const cs_net_msg *msg, cs_time t) {
    ana_msg *tab = &s->pdests[(size_t)cs_eventq_part(s->q) * ANA_DESTS];
    for (int i = 0; i < ANA_DESTS; i++) {
        ana_msg *d = &tab[i];
        if (!d->done) {
            d->done = msg->done;
            d->ctx = msg->ctx;
        }
        if (d->done == msg->done && d->ctx == msg->ctx) {
            cs_eventq_push_rank(s->q, msg->dst, t, msg->key, ana_arrive_par, d, msg->cookie);
            return;
        }
    }
    ana_msg *m = cs_malloc(sizeof *m);
    *m = (ana_msg){.s = s, .done = msg->done, .ctx = msg->ctx};
    cs_eventq_push_rank(s->q, msg->dst, t, msg->key, ana_arrive_par_own, m, msg->cookie);
}

static int ana_send(void *state, const cs_net_msg *msg, cs_error *err) {
    ana_state *s = state;
    cs_time now = cs_eventq_now(s->q), t = cs_time_add(now, ana_time(state, msg->src, msg->dst, msg->bytes));
    if (cs_time_beyond(t)) {
        int d;
        uint32_t hops;
        double ns = ana_ns(s, msg->src, msg->dst, msg->bytes, &d, &hops);
        char how[320];
        snprintf(how, sizeof how, "%u hop%s in dimension %d of %s: %g GB/s, %g ns per hop", hops, hops == 1 ? "" : "s",
                 d, s->cfg->path ? s->cfg->path : "the network", s->cfg->bandwidth_gbps[d], s->cfg->latency_ns[d]);
        return cs_net_beyond_error(err, now, ns, how);
    }
    if (s->pdests) {
        ana_send_par(s, msg, t);
        return CS_OK;
    }
    ana_msg *d = ana_dest(s, msg->done, msg->ctx);
    if (d) {
        d->live++;
        cs_eventq_push(s->q, t, msg->key, ana_arrive_dest, d, msg->cookie);
        return CS_OK;
    }
    ana_msg *m = cs_pool_get(s->msgs);
    m->s = s;
    m->done = msg->done;
    m->ctx = msg->ctx;
    cs_eventq_push(s->q, t, msg->key, ana_arrive, m, msg->cookie);
    return CS_OK;
}

static void ana_destroy(void *state) {
    ana_state *s = state;
    if (!s) return;
    cs_pool_free(s->msgs);
    cs_free(s->pdests);
    cs_free(s);
}

const cs_net_backend cs_net_analytical = {
    .name = "analytical",
    .help = "congestion-unaware alpha-beta per message (ASTRA-sim's analytical backend)",
    .caps = CS_NET_EXACT_UNCONTENDED,
    .create = ana_create,
    .send = ana_send,
    .uncontended_time = ana_time,
    .destroy = ana_destroy,
};
