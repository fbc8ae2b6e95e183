/*
 * congestion.c -- the `analytical-congestion` backend: ASTRA-sim's
 * congestion-aware analytical model, extended to multi-dimensional networks.
 *
 * Devices are the NPUs plus, for every Switch dimension, one switch per line
 * of that dimension (the NPUs that differ only in that coordinate).  Links
 * are directional; each is a FIFO resource:
 *   Ring d            NPU -> next NPU (+1) and NPU -> previous NPU (-1) of its
 *                     line; a Ring of 2 has one link each way (ASTRA-sim
 *                     asserts on it: its ring constructor connects 0-1 twice)
 *   FullyConnected d  NPU -> every other NPU of its line
 *   Switch d          NPU -> its line's switch (up) and switch -> NPU (down)
 * A message (one "chunk", never packetized) is routed dimension by dimension,
 * dimension 0 first (dimension-ordered routing; ASTRA-sim only has 1-D):
 * within a Ring dimension the shorter way round (clockwise on a tie, as
 * ASTRA-sim), FullyConnected one direct hop, Switch up then down.  It is
 * stored and forwarded: on each hop it waits until the link is free, then
 *     link busy for  floor(s / B)        ns
 *     arrives after  floor(L + s / B)    ns   (from the start of transmission)
 * with B = bandwidth GB/s * 2^30 / 1e9 bytes per ns and L = latency ns of the
 * link's dimension -- ASTRA-sim's Link::serialization_delay and
 * Link::communication_delay.  So an uncontended message over h hops takes
 * the sum over its hops of floor(L_d + s / B_d).
 *
 * Links live in one flat array of "free at" times indexed by
 * base[d] + npu * stride[d] + slot, which makes a queue unnecessary: since
 * links are FIFO, a message that asks for a link starts when the link's last
 * booked transmission ends, max(now, free_at).  One event per hop, keyed by
 * the sender's key plus the hop count; messages come from a cs_pool.
 *
 * Invariants (core/invariant.h): a chunk reaches its destination over
 * exactly the hops of its uncontended route (routing from any point on the
 * way continues the same path) and never earlier than the uncontended time
 * after its send (waiting for links only delays).
 *
 * Owns: its state (links, pool).  Borrows: the network configuration and the
 * event queue (see network.h).  docs/network.md has the formulas, examples
 * and the differences from ASTRA-sim.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/invariant.h"
#include "core/pool.h"
#include "network/network.h"

typedef struct cong_state cong_state;

typedef struct chunk {
    cong_state *s;
    cs_net_done_fn done;
    void *ctx;
    uint64_t cookie;
    uint64_t bytes;
    uint64_t key;
    uint32_t cur;    /* NPU the chunk is at (at a switch: the NPU it came from) */
    uint32_t dst;
    int32_t at_sw;   /* dimension of the switch the chunk is at, or -1 */
    uint32_t hops;   /* links taken so far */
#ifdef CS_INVARIANTS
    uint32_t route_hops; /* of the uncontended route */
    cs_time min_at;      /* send + the uncontended time */
#endif
} chunk;

struct cong_state {
    const cs_network_config *cfg;
    cs_eventq *q;
    cs_pool *pool;
    int ndims;
    cs_topo_kind topo[CS_MAX_DIMS];
    uint32_t n[CS_MAX_DIMS];
    uint64_t radix[CS_MAX_DIMS];  /* NPU-id distance between neighbours in dim d */
    double bpns[CS_MAX_DIMS];     /* bytes per ns */
    double lat[CS_MAX_DIMS];      /* ns */
    uint64_t base[CS_MAX_DIMS];   /* first link of dim d */
    uint32_t stride[CS_MAX_DIMS]; /* links of dim d per NPU */
    uint64_t nlinks;
    cs_time *free_at;             /* per link: end of its last booked transmission */
    /* counters */
    uint64_t hops;
    uint64_t queued_hops;         /* hops that had to wait for their link */
    cs_time wait_total, wait_max;
    /* chunks whose next hop, behind busy links, would end beyond the
     * simulated-time range: left undelivered (describe_pending) */
    uint64_t beyond;
    uint64_t beyond_bytes;
    uint32_t beyond_src, beyond_dst;
};

/* Largest link array we allocate (8 bytes a link). */
#define CONG_MAX_LINKS (UINT64_C(1) << 31)

static inline uint32_t coord(const cong_state *s, uint32_t npu, int d) {
    return (uint32_t)((npu / s->radix[d]) % s->n[d]);
}

/* Next hop of a chunk at (cur, at_sw) bound for dst: the link it takes, its
 * dimension, and the position after the hop.  Returns 0 when it has arrived. */
static int next_hop(const cong_state *s, uint32_t *cur, int32_t *at_sw, uint32_t dst,
                    uint64_t *link, int *dim) {
    uint32_t c = *cur;
    if (*at_sw >= 0) { /* down from the switch of dimension d */
        int d = *at_sw;
        uint32_t cc = coord(s, c, d), dc = coord(s, dst, d);
        uint32_t tgt = (uint32_t)(c + ((uint64_t)dc - (uint64_t)cc) * s->radix[d]);
        *link = s->base[d] + (uint64_t)tgt * s->stride[d] + 1;
        *dim = d;
        *cur = tgt;
        *at_sw = -1;
        return 1;
    }
    for (int d = 0; d < s->ndims; d++) {
        uint32_t cc = coord(s, c, d), dc = coord(s, dst, d);
        if (cc == dc) continue;
        uint32_t n = s->n[d];
        *dim = d;
        switch (s->topo[d]) {
        case CS_TOPO_RING: {
            uint32_t fw = dc > cc ? dc - cc : n - (cc - dc); /* clockwise distance */
            int back = (n - fw) < fw;                     /* anticlockwise shorter */
            uint32_t nc = back ? (cc == 0 ? n - 1 : cc - 1) : (cc + 1 == n ? 0 : cc + 1);
            *link = s->base[d] + (uint64_t)c * s->stride[d] + (uint64_t)back;
            *cur = (uint32_t)(c - (uint64_t)cc * s->radix[d] + (uint64_t)nc * s->radix[d]);
            return 1;
        }
        case CS_TOPO_FULLY_CONNECTED: {
            uint32_t slot = dc < cc ? dc : dc - 1;
            *link = s->base[d] + (uint64_t)c * s->stride[d] + slot;
            *cur = (uint32_t)(c - (uint64_t)cc * s->radix[d] + (uint64_t)dc * s->radix[d]);
            return 1;
        }
        case CS_TOPO_SWITCH:
            *link = s->base[d] + (uint64_t)c * s->stride[d]; /* up */
            *at_sw = d;
            return 1;
        }
    }
    return 0;
}

static cs_time ns_floor(double ns) { return cs_time_from_whole_ns_f(ns); /* CS_TIME_MAX: beyond */ }

/* Serialization and per-hop (latency + serialization) times on dimension d. */
static void hop_times(const cong_state *s, int d, uint64_t bytes, cs_time *ser, cs_time *arrive) {
    double t = (double)bytes / s->bpns[d];
    *ser = ns_floor(t);
    *arrive = ns_floor(s->lat[d] + t);
}

static void hop_event(void *ctx, const cs_event *ev);
static cs_time cong_time(void *state, uint32_t src, uint32_t dst, uint64_t bytes);

/* Book link for a transmission of ser from now (FIFO: when its last booked one ends); its start. */
static cs_time book_link(cong_state *s, uint64_t link, cs_time ser) {
    cs_time now = cs_eventq_now(s->q);
    cs_time start = s->free_at[link] > now ? s->free_at[link] : now;
    if (start > now) {
        cs_time w = start - now;
        s->queued_hops++;
        s->wait_total = cs_time_add(s->wait_total, w);
        if (w > s->wait_max) s->wait_max = w;
    }
    s->free_at[link] = cs_time_add(start, ser);
    s->hops++;
    return start;
}

/* Move chunk c on from where it is, now: book its next link, or deliver it. */
static void forward(cong_state *s, chunk *c) {
    uint64_t link;
    int d;
    uint32_t from = c->cur;
    if (!next_hop(s, &c->cur, &c->at_sw, c->dst, &link, &d)) {
#ifdef CS_INVARIANTS
        CS_ALWAYS(c->hops == c->route_hops && cs_eventq_now(s->q) >= c->min_at,
                  "a chunk of %llu bytes arrives at NPU %u after %u hops at %llu ps; its route has %u hops, its "
                  "uncontended arrival is %llu ps", (unsigned long long)c->bytes, c->dst, c->hops,
                  (unsigned long long)cs_eventq_now(s->q), c->route_hops, (unsigned long long)c->min_at);
#endif
        cs_net_done_fn done = c->done;
        void *ctx = c->ctx;
        uint64_t cookie = c->cookie;
        cs_pool_put(s->pool, c);
        done(ctx, cookie);
        return;
    }
    cs_time ser, arrive;
    hop_times(s, d, c->bytes, &ser, &arrive);
    cs_time at = cs_time_add(book_link(s, link, ser), arrive);
    if (cs_time_beyond(at)) { /* (cong_send refused what overflows uncontended) */
        if (!s->beyond++) {
            s->beyond_bytes = c->bytes;
            s->beyond_src = from;
            s->beyond_dst = c->dst;
        }
        return; /* never delivered: the run stops and describe_pending says why */
    }
    cs_eventq_push(s->q, at, c->key + c->hops, hop_event, c, 0);
    c->hops++;
}

static void hop_event(void *ctx, const cs_event *ev) {
    (void)ev;
    chunk *c = ctx;
    forward(c->s, c);
}

/* A message to itself: delivered at once, through the queue. */
static void self_event(void *ctx, const cs_event *ev) {
    (void)ev;
    chunk *c = ctx;
    cong_state *s = c->s;
    cs_net_done_fn done = c->done;
    void *dctx = c->ctx;
    uint64_t cookie = c->cookie;
    cs_pool_put(s->pool, c);
    done(dctx, cookie);
}

/* The uncontended time of bytes from src to dst in ns (a double: it may
 * pass the range), its hops and its slowest dimension. */
static double cong_ns(const cong_state *s, uint32_t src, uint32_t dst, uint64_t bytes, uint32_t *hops, int *slow) {
    uint32_t cur = src;
    int32_t at_sw = -1;
    uint64_t link;
    int d;
    double ns = 0;
    *hops = 0;
    *slow = -1;
    while (next_hop(s, &cur, &at_sw, dst, &link, &d)) {
        ns += s->lat[d] + (double)bytes / s->bpns[d];
        (*hops)++;
        if (*slow < 0 || s->bpns[d] < s->bpns[*slow]) *slow = d;
    }
    return ns;
}

static int cong_send(void *state, const cs_net_msg *m, cs_error *err) {
    cong_state *s = state;
    cs_time now = cs_eventq_now(s->q);
    if (cs_time_beyond(cs_time_add(now, cong_time(s, m->src, m->dst, m->bytes)))) {
        uint32_t hops;
        int d;
        double ns = cong_ns(s, m->src, m->dst, m->bytes, &hops, &d);
        char how[320];
        snprintf(how, sizeof how, "%u hops store-and-forward; the slowest in dimension %d of %s: %g GB/s, %g ns", hops,
                 d, s->cfg->path ? s->cfg->path : "the network", s->cfg->bandwidth_gbps[d], s->cfg->latency_ns[d]);
        return cs_net_beyond_error(err, now, ns, how);
    }
    chunk *c = cs_pool_get(s->pool);
    memset(c, 0, sizeof *c);
    c->s = s;
    c->done = m->done;
    c->ctx = m->ctx;
    c->cookie = m->cookie;
    c->bytes = m->bytes;
    c->key = m->key;
    c->cur = m->src;
    c->dst = m->dst;
    c->at_sw = -1;
#ifdef CS_INVARIANTS
    int slow;
    cong_ns(s, m->src, m->dst, m->bytes, &c->route_hops, &slow);
    c->min_at = cs_time_add(now, cong_time(s, m->src, m->dst, m->bytes));
#endif
    if (m->src == m->dst)
        cs_eventq_push(s->q, cs_eventq_now(s->q), m->key, self_event, c, 0);
    else
        forward(s, c);
    return CS_OK;
}

static cs_time cong_time(void *state, uint32_t src, uint32_t dst, uint64_t bytes) {
    const cong_state *s = state;
    uint32_t cur = src;
    int32_t at_sw = -1;
    uint64_t link;
    int d;
    cs_time t = 0;
    while (next_hop(s, &cur, &at_sw, dst, &link, &d)) {
        cs_time ser, arrive;
        hop_times(s, d, bytes, &ser, &arrive);
        t = cs_time_add(t, arrive);
    }
    return t;
}

static int cong_create(const cs_net_env *env, void **state, cs_error *err) {
    const cs_network_config *cfg = env->cfg;
    cong_state *s = cs_calloc(1, sizeof *s);
    s->cfg = cfg;
    s->q = env->q;
    s->ndims = cfg->ndims;
    uint64_t radix = 1, nlinks = 0;
    for (int d = 0; d < cfg->ndims; d++) {
        uint32_t n = cfg->npus[d];
        s->topo[d] = cfg->topo[d];
        s->n[d] = n;
        s->radix[d] = radix;
        radix *= n;
        s->bpns[d] = cs_gbps_to_bytes_per_ns(cfg->bandwidth_gbps[d]);
        s->lat[d] = cfg->latency_ns[d];
        uint32_t stride = 0;
        if (n > 1) {
            switch (cfg->topo[d]) {
            case CS_TOPO_RING: stride = 2; break; /* +1, -1 (unused when n == 2) */
            case CS_TOPO_FULLY_CONNECTED: stride = n - 1; break;
            case CS_TOPO_SWITCH: stride = 2; break; /* up, down */
            }
        }
        s->base[d] = nlinks;
        s->stride[d] = stride;
        nlinks += cfg->total_npus * stride;
        if (nlinks > CONG_MAX_LINKS) {
            cs_free(s);
            return CS_ERR(err, CS_EUNSUPPORTED,
                          "%s: the analytical-congestion backend keeps one entry per link and "
                          "this network has more than %llu links (dimension %d: %s of %u); "
                          "expected a smaller network, or --backend analytical",
                          cfg->path ? cfg->path : "network", (unsigned long long)CONG_MAX_LINKS, d,
                          cs_topo_kind_name(cfg->topo[d]), n);
        }
    }
    s->nlinks = nlinks;
    s->free_at = cs_calloc(nlinks ? nlinks : 1, sizeof *s->free_at);
    s->pool = cs_pool_new(sizeof(chunk));
    *state = s;
    return CS_OK;
}

/* Chunks left undelivered because their arrival, behind busy links, would
 * be beyond the simulated-time range. */
static void cong_describe_pending(void *state, char *buf, size_t n) {
    const cong_state *s = state;
    if (!s->beyond) {
        buf[0] = '\0';
        return;
    }
    snprintf(buf, n, "network: %llu message%s waiting behind busy links would arrive beyond " CS_TIME_RANGE_TEXT
             " (first: %llu bytes at NPU %u bound for NPU %u)",
             (unsigned long long)s->beyond, s->beyond == 1 ? "" : "s", (unsigned long long)s->beyond_bytes,
             s->beyond_src, s->beyond_dst);
}

/* ---- in-switch collectives: the NPU's links to and from its switch, booked ------------------ */

/* The dimension npu and peer first differ in, when it is a Switch (else -1). */
static int switch_dim(const cong_state *s, uint32_t npu, uint32_t peer) {
    for (int d = 0; d < s->ndims; d++)
        if (coord(s, npu, d) != coord(s, peer, d)) return s->topo[d] == CS_TOPO_SWITCH ? d : -1;
    return -1;
}

static cs_time cong_book_up(void *state, uint32_t npu, uint32_t peer, uint64_t bytes) {
    cong_state *s = state;
    cs_time now = cs_eventq_now(s->q);
    int d = switch_dim(s, npu, peer);
    CS_ALWAYS(d >= 0, "in-switch booking from NPU %u toward NPU %u: not a Switch dimension", npu, peer);
    if (d < 0) return now;
    cs_time ser, arrive;
    hop_times(s, d, bytes, &ser, &arrive);
    return book_link(s, s->base[d] + (uint64_t)npu * s->stride[d] /* up */, ser);
}

static cs_time cong_book_down(void *state, uint32_t npu, uint32_t peer, uint64_t bytes, cs_time earliest) {
    cong_state *s = state;
    int d = switch_dim(s, npu, peer);
    CS_ALWAYS(d >= 0, "in-switch booking to NPU %u from NPU %u's line: not a Switch dimension", npu, peer);
    if (d < 0) return earliest;
    uint64_t link = s->base[d] + (uint64_t)npu * s->stride[d] + 1; /* down */
    cs_time ser, arrive;
    hop_times(s, d, bytes, &ser, &arrive);
    cs_time at = cs_time_add(s->free_at[link], arrive); /* the link's next free transmission */
    if (earliest > at) at = earliest;
    CS_ALWAYS(at >= arrive && at - arrive >= s->free_at[link], "in-switch down link of NPU %u booked before it is free",
              npu);
    s->free_at[link] = cs_time_add(at - arrive, ser);
    s->hops++;
    return at;
}

static void cong_destroy(void *state) {
    cong_state *s = state;
    if (!s) return;
    cs_pool_free(s->pool);
    cs_free(s->free_at);
    cs_free(s);
}

const cs_net_backend cs_net_congestion = {
    .name = "analytical-congestion",
    .help = "congestion-aware: every link a FIFO, store-and-forward per message, "
            "multi-dimensional (ASTRA-sim's congestion-aware backend)",
    .caps = CS_NET_CONGESTION_AWARE | CS_NET_SWITCH_BOOK,
    .create = cong_create,
    .send = cong_send,
    .uncontended_time = cong_time,
    .switch_book_up = cong_book_up,
    .switch_book_down = cong_book_down,
    .describe_pending = cong_describe_pending,
    .destroy = cong_destroy,
};
