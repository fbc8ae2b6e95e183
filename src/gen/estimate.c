/*
 * estimate.c -- a plan's step time from the generator in costing mode and
 * closed-form collective prices (estimate.h; derivation in docs/search.md).
 *
 * Prices.  A message of m bytes between two NPUs whose first differing
 * network dimension is d takes net_d(m) = floor(hops x L_d + m / B_d) ns
 * (the analytical backend; hops: Switch 2, FullyConnected 1, Ring the
 * shorter way).  A communicator group smaller than the network is one ring
 * of its members in file order, with 10 ns bundles; its edges fall into a
 * few classes (dimension, hops).  ASTRA-sim's ring moves one packet at a
 * time, each rank forwarding what it received, so a rank's last message has
 * crossed the ring's consecutive edges: an all-reduce's 2(n-1) steps cost
 * twice the ring's edge sum less its cheapest pair of consecutive edges,
 * a reduce-scatter's or all-gather's n-1 steps the sum less its cheapest
 * edge.  With every edge alike these are ASTRA-sim's closed forms
 * (docs/collectives.md).  A group of every NPU runs the hierarchical ring
 * over the dimensions (localBWAware: reduce-scatter up, all-reduce on the
 * last, all-gather down).  A collective is `preferred-dataset-splits`
 * chunks, `active-chunks-per-dimension` of them at a time.
 */
#include "gen/estimate.h"

#include <math.h>
#include <string.h>

#include "gen/gen_int.h"

#define EST_CLS 12

typedef struct ring_cls {
    int dim;
    double hops, cnt;
} ring_cls;

/* A logical ring: n members; edge classes; which classes follow each other. */
typedef struct est_ring {
    uint32_t n;
    int full; /* every NPU: hierarchical over the dimensions */
    int ncls;
    ring_cls cls[EST_CLS];
    unsigned char pair[EST_CLS][EST_CLS];
} est_ring;

typedef struct est_net {
    const cs_network_config *net;
    double B[CS_MAX_DIMS];  /* bytes per ns */
    double dd_full, dd_group; /* bundle delays (ns) */
    double red_bpns;        /* local reduction, bytes per ns */
    double splits, active;
    est_ring ring[PG_N];
    ring_cls pp_edge;       /* stage 0 -> stage 1 */
    uint64_t P[CS_MAX_DIMS]; /* NPUs below dimension d */
} est_net;

static double topo_hops(const cs_network_config *n, int d, uint32_t a, uint32_t b) {
    switch (n->topo[d]) {
    case CS_TOPO_SWITCH: return 2;
    case CS_TOPO_FULLY_CONNECTED: return 1;
    default: {
        uint32_t x = a > b ? a - b : b - a;
        return x < n->npus[d] - x ? x : n->npus[d] - x;
    }
    }
}

/* The class of the message a -> b: its first differing dimension and hops. */
static ring_cls edge_of(const est_net *E, uint32_t a, uint32_t b) {
    const cs_network_config *n = E->net;
    for (int d = 0; d < n->ndims; d++) {
        uint32_t da = (uint32_t)(a / E->P[d] % n->npus[d]), db = (uint32_t)(b / E->P[d] % n->npus[d]);
        if (da != db) return (ring_cls){d, topo_hops(n, d, da, db), 1};
    }
    return (ring_cls){0, 0, 1};
}

static int cls_index(est_ring *R, ring_cls c) {
    for (int i = 0; i < R->ncls; i++)
        if (R->cls[i].dim == c.dim && R->cls[i].hops == c.hops) return i;
    if (R->ncls < EST_CLS) {
        R->cls[R->ncls] = c;
        R->cls[R->ncls].cnt = 0;
        return R->ncls++;
    }
    int w = 0; /* out of classes: charge it as the farthest of its dimension */
    for (int i = 1; i < R->ncls; i++)
        if (R->cls[i].dim == c.dim && (R->cls[w].dim != c.dim || R->cls[i].hops > R->cls[w].hops)) w = i;
    return w;
}

/* The ring of members rank(k), k < n. */
static void ring_build(est_net *E, est_ring *R, uint32_t n, const uint32_t st[CS_GEN_NDIMS], int kind, uint32_t cp,
                       uint32_t ep) {
    memset(R, 0, sizeof *R);
    R->n = n;
    if (n < 2) return;
    if (n == E->net->total_npus) {
        R->full = 1;
        return;
    }
    uint32_t prev = 0;
    int pcls = -1, fcls = -1;
    for (uint32_t k = 0; k <= n; k++) {
        uint32_t kk = k % n, r;
        switch (kind) {
        case PG_TP: r = kk * st[CS_DIM_TP]; break;
        case PG_CP: r = kk * st[CS_DIM_CP]; break;
        case PG_EP: r = kk * st[CS_DIM_DP]; break;
        case PG_EDP: r = kk * ep * st[CS_DIM_DP]; break;
        default: r = kk / cp * st[CS_DIM_DP] + kk % cp * st[CS_DIM_CP]; break;
        }
        if (k == 0) {
            prev = r;
            continue;
        }
        int c = cls_index(R, edge_of(E, prev, r));
        R->cls[c].cnt += 1;
        if (pcls >= 0) R->pair[pcls][c] = 1;
        if (fcls < 0) fcls = c;
        pcls = c;
        prev = r;
    }
    R->pair[pcls][fcls] = 1; /* the last edge is followed by the first */
}

static double edge_ns(const est_net *E, const ring_cls *c, double m) {
    return floor(c->hops * E->net->latency_ns[c->dim] + m / E->B[c->dim]);
}

static double red_ns(const est_net *E, double m) { return 3 * floor(m / E->red_bpns); }

/* One phase of one chunk on a ring (S = the phase's input bytes). */
static double ring_phase_ns(const est_net *E, const est_ring *R, int type, double S, double dd) {
    uint32_t n = R->n;
    double m = type == CS_COLL_ALL_GATHER ? S : S / n, sum = 0, minh = INFINITY, minp = INFINITY, h[EST_CLS];
    for (int i = 0; i < R->ncls; i++) {
        h[i] = edge_ns(E, &R->cls[i], m);
        sum += R->cls[i].cnt * h[i];
        if (h[i] < minh) minh = h[i];
    }
    for (int i = 0; i < R->ncls; i++)
        for (int j = 0; j < R->ncls; j++)
            if (R->pair[i][j] && h[i] + h[j] < minp) minp = h[i] + h[j];
    switch (type) {
    case CS_COLL_ALL_REDUCE: return dd + 2 * sum - minp + 2.0 * (n - 1) * dd + (n - 1) * red_ns(E, m);
    case CS_COLL_REDUCE_SCATTER: return dd + sum - minh + (n - 1) * (dd + red_ns(E, m));
    case CS_COLL_ALL_GATHER: return dd + sum - minh + (n - 1) * dd;
    default: { /* all-to-all: n(n-1)/2 sends, each rank's chain crossing (n-1)/2 rounds */
        double sends = n * (n - 1) / 2.0;
        return dd + sends * dd + sends / n * sum;
    }
    }
}

/* The ring of network dimension d: its n NPUs, every edge alike. */
static void dim_ring(const cs_network_config *n, int d, est_ring *R) {
    memset(R, 0, sizeof *R);
    R->n = n->npus[d];
    R->ncls = 1;
    R->cls[0] = (ring_cls){d, n->topo[d] == CS_TOPO_SWITCH ? 2 : 1, R->n};
    R->pair[0][0] = 1;
}

/* One chunk of a collective on every NPU: the hierarchical ring. */
static double full_chunk_ns(const est_net *E, int type, double S) {
    const cs_network_config *n = E->net;
    int dims[CS_MAX_DIMS], nd = 0;
    for (int d = 0; d < n->ndims; d++)
        if (n->npus[d] > 1) dims[nd++] = d;
    double t = 0;
    est_ring R;
    for (int i = 0; i < nd; i++) {
        dim_ring(n, type == CS_COLL_ALL_GATHER ? dims[nd - 1 - i] : dims[i], &R);
        int ph = type == CS_COLL_ALL_REDUCE && i < nd - 1 ? CS_COLL_REDUCE_SCATTER : type;
        t += ring_phase_ns(E, &R, ph, S, E->dd_full);
        if (ph == CS_COLL_REDUCE_SCATTER) S /= R.n;
        if (ph == CS_COLL_ALL_GATHER) S *= R.n;
    }
    if (type == CS_COLL_ALL_REDUCE) /* and back down: all-gathers */
        for (int i = nd - 2; i >= 0; i--) {
            dim_ring(n, dims[i], &R);
            t += ring_phase_ns(E, &R, CS_COLL_ALL_GATHER, S, E->dd_full);
            S *= R.n;
        }
    return t;
}

static double coll_s(void *ud, int kind, int type, double bytes) {
    const est_net *E = ud;
    const est_ring *R = &E->ring[kind];
    if (R->n < 2 || bytes <= 0) return 0;
    double s = E->splits, chunk = bytes / s;
    if (type != CS_COLL_ALL_GATHER && chunk < (double)E->net->total_npus) chunk = (double)E->net->total_npus;
    double one = R->full ? full_chunk_ns(E, type, chunk) : ring_phase_ns(E, R, type, chunk, E->dd_group);
    return ceil(s / E->active) * one * 1e-9;
}

static double p2p_s(void *ud, int cp, double bytes) {
    const est_net *E = ud;
    const ring_cls *c = cp ? (E->ring[PG_CP].ncls ? &E->ring[PG_CP].cls[0] : NULL) : &E->pp_edge;
    return c ? edge_ns(E, c, bytes) * 1e-9 : 0;
}

int cs_gen_estimate_step(const cs_gen_model *m, const cs_gen_plan *p, const cs_device *d, const cs_network_config *net,
                         const cs_system_config *sys, cs_gen_estimate *out, cs_error *err) {
    memset(out, 0, sizeof *out);
    if (p->offload_opt)
        return CS_ERR(err, CS_EUNSUPPORTED, "plan.offload-optimizer: the estimate has no remote-memory model; "
                                            "expected a plan without offload (simulate it with train)");
    uint32_t n = cs_gen_ranks(p), cp = cs_gen_cp(p), ep = p->ep ? p->ep : 1, v = cs_gen_vst(p);
    if (net->total_npus != n)
        return CS_ERR(err, CS_EINVAL, "%s: the network has %llu NPUs but the plan %u ranks; expected one NPU per rank",
                      net->path ? net->path : "network", (unsigned long long)net->total_npus, n);
    est_net E;
    memset(&E, 0, sizeof E);
    E.net = net;
    uint64_t P = 1;
    for (int k = 0; k < net->ndims; k++) {
        E.P[k] = P;
        P *= net->npus[k];
        E.B[k] = net->bandwidth_gbps[k] * 1073741824.0 / 1e9;
    }
    E.dd_full = sys->endpoint_delay_ns;
    E.dd_group = 10;
    E.red_bpns = sys->local_mem_bw_gbps;
    E.splits = sys->preferred_dataset_splits > 0 ? sys->preferred_dataset_splits : 1;
    E.active = sys->active_chunks_per_dimension > 0 ? sys->active_chunks_per_dimension : 1;
    /* strides of the plan's dimensions: rank of a unit coordinate */
    uint32_t st[CS_GEN_NDIMS];
    for (int k = 0; k < CS_GEN_NDIMS; k++) {
        uint32_t c[CS_GEN_NDIMS] = {0, 0, 0, 0};
        uint32_t size = k == CS_DIM_TP ? p->tp : k == CS_DIM_DP ? p->dp : k == CS_DIM_PP ? p->pp : cp;
        c[k] = size > 1 ? 1 : 0;
        st[k] = size > 1 ? cs_gen_rank_of(p, c) : 0;
    }
    ring_build(&E, &E.ring[PG_TP], p->tp, st, PG_TP, cp, ep);
    ring_build(&E, &E.ring[PG_DP], p->dp * cp, st, PG_DP, cp, ep);
    ring_build(&E, &E.ring[PG_CP], cp, st, PG_CP, cp, ep);
    if (ep > 1) {
        ring_build(&E, &E.ring[PG_EP], ep, st, PG_EP, cp, ep);
        ring_build(&E, &E.ring[PG_EDP], p->dp / ep, st, PG_EDP, cp, ep);
    } else {
        E.ring[PG_EDP] = E.ring[PG_DP];
    }
    if (cs_gen_hsdp(p)) { /* shard groups of S consecutive DP indices, replica groups of stride S (as EP, expert-DP) */
        ring_build(&E, &E.ring[PG_SH], p->hsdp_shard, st, PG_EP, cp, p->hsdp_shard);
        ring_build(&E, &E.ring[PG_RP], p->dp / p->hsdp_shard, st, PG_EDP, cp, p->hsdp_shard);
    }
    if (p->pp > 1) E.pp_edge = edge_of(&E, 0, st[CS_DIM_PP]);

    uint32_t M = cs_gen_micro_batches(p);
    double tmax = 0, tsum = 0, tailmax = 0, comp_at_max = 0, pp_bytes = 0, mid_params = -1;
    double mid_t = 0, mid_tail = 0, mid_comp = 0, opt = 0;
    uint64_t pp_msgs = 0;
    cs_gen_costing C;
    for (uint32_t s = 0; s < p->pp; s++) {
        double t, tail, comp;
        cs_gen_memory mm;
        int middle = s > 0 && s + 1 < p->pp;
        if (middle) cs_gen_memory_stage(m, p, s, &mm);
        if (middle && mm.params == mid_params) { /* a stage like the last middle one costs the same */
            t = mid_t;
            tail = mid_tail;
            comp = mid_comp;
        } else {
            memset(&C, 0, sizeof C);
            C.coll_s = coll_s;
            C.p2p_s = p2p_s;
            C.ud = &E;
            uint32_t c[CS_GEN_NDIMS] = {0, 0, 0, 0};
            c[CS_DIM_PP] = s;
            int rc = cs_gen_rank_cost(m, p, d, cs_gen_rank_of(p, c), 1, &C, NULL, err);
            if (rc) return rc;
            t = C.body_end;
            if (p->zero >= 2 && C.off_busy > t) t = C.off_busy; /* per-micro-batch gradient traffic */
            tail = C.chain - C.body_end;
            comp = C.comp_s;
            if (C.opt_s > opt) opt = C.opt_s;
            pp_bytes += C.pp_bytes;
            pp_msgs += C.pp_msgs;
            if (middle) {
                mid_params = mm.params;
                mid_t = t;
                mid_tail = tail;
                mid_comp = comp;
            }
        }
        tsum += t;
        if (t > tmax) {
            tmax = t;
            comp_at_max = comp;
            out->slowest_stage = s;
        }
        if (tail > tailmax) tailmax = tail;
    }
    double msg = pp_msgs ? pp_bytes / (double)pp_msgs : 0;
    double bubble = (tsum - tmax) / v + (p->pp > 1 ? 2.0 * (p->pp - 1) * p2p_s(&E, 0, msg) : 0);
    out->stage_mb_s = tmax;
    out->bubble_s = bubble;
    out->tail_s = tailmax;
    out->step_s = M * tmax + bubble + tailmax;
    out->compute_s = M * comp_at_max;
    out->exposed_comm_s = out->step_s - out->compute_s - bubble - opt;
    if (out->exposed_comm_s < 0) out->exposed_comm_s = 0;
    return CS_OK;
}
