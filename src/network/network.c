/*
 * network.c -- the backend registry and the network-layer wrapper of
 * network.h: range checks, rank -> NPU placement, message counts, backend
 * options (defaults from each backend's option table), statistics and
 * no-progress descriptions; and the helpers shared by backends.
 *
 * Adding a backend: one file defining a const cs_net_backend, and one line
 * in g_backends below (docs/architecture.md, "Adding a network backend").
 */
#include "network/network.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/invariant.h"
#include "core/pool.h"
#include "topology/topology.h"

extern const cs_net_backend cs_net_analytical; /* analytical.c */
extern const cs_net_backend cs_net_congestion; /* congestion.c */
extern const cs_net_backend cs_net_flow;       /* flow.c */
extern const cs_net_backend cs_net_packet;     /* packet.c */

static const cs_net_backend *const g_backends[] = {&cs_net_analytical, &cs_net_congestion, &cs_net_flow,
                                                   &cs_net_packet, NULL};

const cs_net_backend *const *cs_net_backends(void) { return g_backends; }

const cs_net_backend *cs_net_backend_find(const char *name) {
    if (!name) return NULL;
    for (const cs_net_backend *const *b = g_backends; *b; b++)
        if (strcmp((*b)->name, name) == 0) return *b;
    return NULL;
}

int cs_net_backend_has(const char *name, unsigned caps) {
    const cs_net_backend *be = cs_net_backend_find(name);
    return be && (be->caps & caps) == caps;
}

int cs_net_init(cs_net *net, const cs_net_backend *be, const cs_net_env *env, cs_error *err) {
    memset(net, 0, sizeof *net);
    net->backend = be;
    net->cfg = env->cfg;
    net->q = env->q;
    net->observer = env->observer && env->observer->message ? env->observer : NULL;
    if ((be->caps & CS_NET_NEEDS_TOPOLOGY) && env->topo) net->place = env->topo->place;
    net->rank_tclass = env->rank_tclass;
    if (cs_eventq_parallel(net->q)) net->pstats = cs_calloc(cs_eventq_nparts(net->q), sizeof *net->pstats);
    cs_net_env e = *env;
    e.halt = &net->halted;
    if (env->opts || !be->nopts) return be->create(&e, &net->state, err);
    /* the backend's defaults, from its option table */
    void *opts = cs_calloc(1, be->opts_size ? be->opts_size : 1);
    cs_opts_defaults(be->opts, be->nopts, opts);
    e.opts = opts;
    int rc = be->create(&e, &net->state, err);
    cs_opts_free(be->opts, be->nopts, opts);
    cs_free(opts);
    return rc;
}

void cs_net_destroy(cs_net *net) {
    if (net->backend && net->state) net->backend->destroy(net->state);
    net->state = NULL;
    cs_free(net->pstats);
    net->pstats = NULL;
#ifdef CS_INVARIANTS
    if (net->inv_pool) cs_pool_free(net->inv_pool);
    net->inv_pool = NULL;
    cs_free(net->inv_quarantine);
    net->inv_quarantine = NULL;
#endif
}

static inline uint32_t rank_npu(const cs_net *net, uint32_t rank) { return net->place ? net->place[rank] : rank; }

/* ---- invariants: every delivery watched --------------------------------------- */

#ifdef CS_INVARIANTS
/* One transfer in flight: the caller's callback, and what its delivery must
 * satisfy.  The backend gets (inv_arrived, the record) and the caller's
 * cookie unchanged.  A delivered record waits in a quarantine of the last
 * INV_QUARANTINE deliveries before the pool reuses it, so that a second
 * delivery of the transfer within that window finds it marked. */
#define INV_QUARANTINE 4096
typedef struct inv_msg {
    cs_net *net;
    cs_net_done_fn done;
    void *ctx;
    uint64_t bytes;
    uint32_t src, dst; /* NPUs */
    cs_time sent_at;
    cs_time exact_at;  /* CS_NET_EXACT_UNCONTENDED: the arrival; else CS_TIME_MAX */
    int delivered;
} inv_msg;

static void inv_arrived(void *ctx, uint64_t cookie) {
    inv_msg *r = ctx;
    cs_net *net = r->net;
    cs_time now = cs_eventq_now(net->q);
    CS_NEVER(r->delivered, "%s: a transfer of %" PRIu64 " bytes from NPU %u to NPU %u is delivered twice",
             net->backend->name, r->bytes, r->src, r->dst);
    CS_ALWAYS(now >= r->sent_at, "%s: a transfer of %" PRIu64 " bytes from NPU %u to NPU %u sent at %" PRIu64
              " ps is delivered at %" PRIu64 " ps", net->backend->name, r->bytes, r->src, r->dst, r->sent_at, now);
    CS_ALWAYS(r->exact_at == CS_TIME_MAX || now == r->exact_at, "%s: a transfer of %" PRIu64 " bytes from NPU %u to "
              "NPU %u sent at %" PRIu64 " ps is delivered at %" PRIu64 " ps instead of its uncontended %" PRIu64 " ps",
              net->backend->name, r->bytes, r->src, r->dst, r->sent_at, now, r->exact_at);
    r->delivered = 1;
    net->inv_delivered.messages++;
    net->inv_delivered.bytes += r->bytes;
    cs_net_done_fn done = r->done;
    void *dctx = r->ctx;
    if (!net->inv_quarantine) net->inv_quarantine = cs_malloc(INV_QUARANTINE * sizeof *net->inv_quarantine);
    if (net->inv_qlen == INV_QUARANTINE) { /* the oldest goes back to the pool */
        cs_pool_put(net->inv_pool, net->inv_quarantine[net->inv_qhead]);
        net->inv_qhead = (net->inv_qhead + 1) % INV_QUARANTINE;
        net->inv_qlen--;
    }
    net->inv_quarantine[(net->inv_qhead + net->inv_qlen++) % INV_QUARANTINE] = r;
    done(dctx, cookie);
}

/* p (NPUs) with its callback replaced by inv_arrived; returns the record. */
static inv_msg *inv_watch(cs_net *net, cs_net_msg *p, int exact) {
    if (!net->inv_pool) net->inv_pool = cs_pool_new(sizeof(inv_msg));
    inv_msg *r = cs_pool_get(net->inv_pool);
    *r = (inv_msg){.net = net, .done = p->done, .ctx = p->ctx, .bytes = p->bytes, .src = p->src, .dst = p->dst,
                   .sent_at = cs_eventq_now(net->q), .exact_at = CS_TIME_MAX};
    if (exact) r->exact_at = cs_time_add(r->sent_at, net->backend->uncontended_time(net->state, p->src, p->dst, p->bytes));
    p->done = inv_arrived;
    p->ctx = r;
    return r;
}

/* After the backend's send: refused (rc), nothing will be delivered. */
static void inv_sent(cs_net *net, inv_msg *r, int rc) {
    if (rc) {
        cs_pool_put(net->inv_pool, r);
        return;
    }
    net->inv_started.messages++;
    net->inv_started.bytes += r->bytes;
}
#endif

void cs_net_collect_stats(cs_net *net) {
    if (!net->pstats) return;
    for (uint32_t i = 0; i < cs_eventq_nparts(net->q); i++) {
        net->stats.messages += net->pstats[i].st.messages;
        net->stats.bytes += net->pstats[i].st.bytes;
        net->pstats[i].st = (cs_net_stats){0};
    }
}

void cs_net_check_drained(const cs_net *net) {
#ifdef CS_INVARIANTS
    CS_ALWAYS(net->inv_delivered.messages == net->inv_started.messages &&
                  net->inv_delivered.bytes == net->inv_started.bytes,
              "%s: %" PRIu64 " transfers of %" PRIu64 " bytes started, %" PRIu64 " of %" PRIu64 " bytes delivered "
              "when the run ended", net->backend->name, net->inv_started.messages, net->inv_started.bytes,
              net->inv_delivered.messages, net->inv_delivered.bytes);
#else
    (void)net;
#endif
}

int cs_net_send(cs_net *net, const cs_net_msg *m, cs_error *err) {
    if (m->src >= net->cfg->total_npus || m->dst >= net->cfg->total_npus)
        return CS_ERR(err, CS_EINVAL,
                      "transfer from NPU %u to NPU %u: the network (%s) has NPUs 0..%llu",
                      m->src, m->dst, net->cfg->path ? net->cfg->path : "network",
                      (unsigned long long)net->cfg->total_npus - 1);
    cs_net_stats *st = net->pstats ? &net->pstats[cs_eventq_part(net->q)].st : &net->stats;
    st->messages++;
    st->bytes += m->bytes;
    /* What the backend gets: a copy with NPUs for ranks when ranks are
     * placed (or the invariants' callback), else m itself (a copy of a
     * struct the caller has just written stalls on store forwarding, and
     * this runs once per message). */
    cs_net_msg p;
    const cs_net_msg *pm = m;
#ifdef CS_INVARIANTS
    p = *m;
    p.src = rank_npu(net, m->src);
    p.dst = rank_npu(net, m->dst);
    if (net->rank_tclass) p.tclass = net->rank_tclass[m->src];
    /* (not in a parallel run: the records are one pool, delivered in other partitions) */
    inv_msg *r = net->pstats ? NULL : inv_watch(net, &p, cs_net_has(net, CS_NET_EXACT_UNCONTENDED));
    pm = &p;
#else
    if (net->place || net->rank_tclass) {
        p = *m;
        p.src = rank_npu(net, m->src);
        p.dst = rank_npu(net, m->dst);
        if (net->rank_tclass) p.tclass = net->rank_tclass[m->src];
        pm = &p;
    }
#endif
    if (net->observer) net->observer->message(net->observer->message_ud, pm->src, pm->dst, pm->bytes);
    int rc = net->backend->send(net->state, pm, err);
#ifdef CS_INVARIANTS
    if (r) inv_sent(net, r, rc);
#endif
    if (rc && net->place) /* the backend speaks of NPUs (nodes), the caller of ranks */
        cs_error_prefix(err, "transfer of %" PRIu64 " bytes from rank %u (NPU %u) to rank %u (NPU %u): ", m->bytes,
                        m->src, pm->src, m->dst, pm->dst);
    else if (rc)
        cs_error_prefix(err, "transfer of %" PRIu64 " bytes from rank %u to rank %u: ", m->bytes, m->src, m->dst);
    return rc;
}

int cs_net_send_switch(cs_net *net, const cs_net_msg *m, int up, cs_error *err) {
    if (!(net->backend->caps & CS_NET_SWITCH_ENDPOINTS) || !net->backend->send_switch)
        return CS_ERR(err, CS_EUNSUPPORTED, "the %s backend cannot send to a switch", net->backend->name);
    if (m->src >= net->cfg->total_npus || m->dst >= net->cfg->total_npus)
        return CS_ERR(err, CS_EINVAL, "switch transfer of NPU %u (peer %u): the network has NPUs 0..%llu", m->src,
                      m->dst, (unsigned long long)net->cfg->total_npus - 1);
    net->stats.messages++;
    net->stats.bytes += m->bytes;
    cs_net_msg p = *m;
    p.src = rank_npu(net, m->src);
    p.dst = rank_npu(net, m->dst);
#ifdef CS_INVARIANTS
    inv_msg *r = inv_watch(net, &p, 0);
#endif
    int rc = net->backend->send_switch(net->state, &p, up, err);
#ifdef CS_INVARIANTS
    inv_sent(net, r, rc);
#endif
    if (rc)
        cs_error_prefix(err, "transfer of %" PRIu64 " bytes %s the switch of rank %u (toward rank %u): ", m->bytes,
                        up ? "to" : "from", m->src, m->dst);
    return rc;
}

cs_time cs_net_switch_book_up(cs_net *net, uint32_t rank, uint32_t peer, uint64_t bytes) {
    net->stats.messages++;
    net->stats.bytes += bytes;
    return net->backend->switch_book_up(net->state, rank_npu(net, rank), rank_npu(net, peer), bytes);
}

cs_time cs_net_switch_book_down(cs_net *net, uint32_t rank, uint32_t peer, uint64_t bytes, cs_time earliest) {
    net->stats.messages++;
    net->stats.bytes += bytes;
    return net->backend->switch_book_down(net->state, rank_npu(net, rank), rank_npu(net, peer), bytes, earliest);
}

cs_time cs_net_uncontended_time(const cs_net *net, uint32_t src, uint32_t dst, uint64_t bytes) {
    return net->backend->uncontended_time(net->state, rank_npu(net, src), rank_npu(net, dst), bytes);
}

int cs_net_report(const cs_net *net, cs_net_link_report *out, cs_error *err) {
    memset(out, 0, sizeof *out);
    if (!net->backend->report || !net->state) return CS_OK;
    return net->backend->report(net->state, out, err);
}

void cs_net_link_report_free(cs_net_link_report *r) {
    if (!r) return;
    cs_free(r->links);
    r->links = NULL;
    r->nlinks = 0;
    cs_free(r->flows);
    r->flows = NULL;
    r->nflows = 0;
    r->flows_omitted = 0;
    r->packet = 0;
    r->summary[0] = '\0';
}

void cs_net_describe_pending(const cs_net *net, char *buf, size_t n) {
    if (n) buf[0] = '\0';
    if (net->backend->describe_pending && net->state && n) net->backend->describe_pending(net->state, buf, n);
}

uint32_t cs_net_coord(const cs_network_config *cfg, uint32_t npu, int d) {
    for (int i = 0; i < d; i++) npu /= cfg->npus[i];
    return npu % cfg->npus[d];
}

int cs_net_first_diff_dim(const cs_network_config *cfg, uint32_t a, uint32_t b) {
    for (int d = 0; d < cfg->ndims; d++) {
        uint32_t n = cfg->npus[d];
        if (a % n != b % n) return d;
        a /= n;
        b /= n;
    }
    return -1;
}

uint32_t cs_net_dim_hops(cs_topo_kind kind, uint32_t n, uint32_t ca, uint32_t cb) {
    if (ca == cb) return 0;
    switch (kind) {
    case CS_TOPO_RING: {
        uint32_t fw = cb > ca ? cb - ca : n - (ca - cb);
        uint32_t bw = n - fw;
        return fw < bw ? fw : bw;
    }
    case CS_TOPO_FULLY_CONNECTED: return 1;
    case CS_TOPO_SWITCH: return 2;
    }
    return 1;
}

int cs_net_graph(const cs_net_env *env, const cs_topo **topo, cs_topo **own, cs_error *err) {
    const cs_network_config *cfg = env->cfg;
    *own = NULL;
    *topo = env->topo;
    if (!*topo) {
        int rc = cs_topo_check_astra(cfg, err); /* before allocating it */
        if (rc) return rc;
        *own = cs_topo_build_astra(cfg);
        *topo = *own;
    }
    if ((*topo)->nnpus != cfg->total_npus)
        return CS_ERR(err, CS_EINVAL, "topology (%s) has %u NPUs but the network configuration %s has %llu",
                      (*topo)->desc ? (*topo)->desc : "?", (*topo)->nnpus, cfg->path ? cfg->path : "",
                      (unsigned long long)cfg->total_npus);
    return CS_OK;
}

/* A message striped over NCCL channels (cs_net_send_striped): its caller's completion, called when the
 * last of its `left` channels arrives (done NULL: the send failed part-way, nobody waits). */
typedef struct cs_net_stripe {
    struct cs_pool *pool;
    cs_net_done_fn done;
    void *ctx;
    uint64_t cookie;
    uint32_t left;
} cs_net_stripe;

size_t cs_net_stripe_size(void) { return sizeof(cs_net_stripe); }

static void stripe_done(void *ctx, uint64_t cookie) {
    (void)cookie;
    cs_net_stripe *p = ctx;
    if (--p->left) return;
    cs_net_done_fn done = p->done;
    void *dctx = p->ctx;
    uint64_t dcookie = p->cookie;
    cs_pool_put(p->pool, p);
    if (done) done(dctx, dcookie);
}

int cs_net_send_striped(void *state, const cs_net_msg *m, int striped, struct cs_pool *stripes,
                        cs_net_conn_send_fn one, cs_error *err) {
    uint64_t c = m->channels;
    if (c > m->bytes) c = m->bytes;
    if (c <= 1 || !striped) return one(state, m, m->channel, err);
    cs_net_stripe *p = cs_pool_get(stripes);
    *p = (cs_net_stripe){.pool = stripes, .done = m->done, .ctx = m->ctx, .cookie = m->cookie, .left = 0};
    cs_net_msg sub = *m;
    sub.done = stripe_done;
    sub.ctx = p;
    sub.cookie = 0;
    sub.channels = 1;
    for (uint64_t i = 0; i < c; i++) {
        sub.bytes = m->bytes / c + (i < m->bytes % c);
        int rc = one(state, &sub, m->channel + (uint32_t)i, err);
        if (rc) {
            if (p->left) p->done = NULL; /* the channels on their way free it; the caller has the error */
            else cs_pool_put(stripes, p);
            return rc;
        }
        p->left++;
    }
    return CS_OK;
}

int cs_net_beyond_error(cs_error *err, cs_time now, double ns, const char *how) {
    char at[48] = "";
    if (now) {
        char t[32];
        snprintf(at, sizeof at, " at %s + %.4g ns", cs_time_fmt(now, t, sizeof t), ns);
    }
    return CS_ERR(err, CS_EINVAL, "takes %.4g ns (%s): its arrival%s exceeds " CS_TIME_RANGE_TEXT, ns, how, at);
}
