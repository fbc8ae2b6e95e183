/*
 * synth.c -- synthetic look-alike traces (see synth.h; docs/synth.md).
 */
#include "workload/synth.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/checked.h"
#include "core/rand.h"
#include "core/time.h"

/* exact products of two 64-bit counts (GCC and Clang) */
__extension__ typedef unsigned __int128 u128;

static unsigned bitlen(uint64_t v) { return v ? 64u - (unsigned)__builtin_clzll(v) : 0u; }

uint64_t cs_synth_round_bits(uint64_t v, unsigned bits) {
    unsigned b = bitlen(v);
    if (bits >= 64 || b <= bits) return v;
    unsigned drop = b - bits;
    uint64_t q = v >> drop, rem = v & ((UINT64_C(1) << drop) - 1), half = UINT64_C(1) << (drop - 1);
    if (rem >= half) q++;
    if (bitlen(q) + drop > 64) return (UINT64_MAX >> drop) << drop; /* would wrap: the largest below */
    return q << drop;
}

static int is_comp(const cs_node *n) { return n->type == CS_NODE_COMP; }
/* COMP nodes go into segments; with keep_roofline, those carrying roofline
 * attributes are kept one for one instead. */
static int keep_roofline;
static int splittable(const cs_node *n) {
    return is_comp(n) && !(keep_roofline && (n->flags & (CS_NF_HAS_NUM_OPS | CS_NF_HAS_TENSOR)));
}
static int same_kind(const cs_node *a, const cs_node *b) { return (a->flags & CS_NF_CPU) == (b->flags & CS_NF_CPU); }

/* Parents of every node, as a CSR built from the children lists. */
typedef struct parents {
    uint32_t *begin; /* nnodes + 1 */
    uint32_t *idx;
} parents;

static void parents_build(const cs_graph *g, parents *p) {
    uint32_t n = g->nnodes;
    p->begin = cs_calloc((size_t)n + 1, sizeof *p->begin);
    p->idx = cs_malloc(((size_t)g->nchildren + 1) * sizeof *p->idx);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = g->nodes[i].child_begin; k < cs_graph_child_end(g, i); k++) p->begin[g->children[k] + 1]++;
    for (uint32_t i = 0; i < n; i++) p->begin[i + 1] += p->begin[i];
    uint32_t *fill = cs_malloc(((size_t)n + 1) * sizeof *fill);
    memcpy(fill, p->begin, ((size_t)n + 1) * sizeof *fill);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = g->nodes[i].child_begin; k < cs_graph_child_end(g, i); k++)
            p->idx[fill[g->children[k]]++] = i;
    cs_free(fill);
}

static void parents_free(parents *p) {
    cs_free(p->begin);
    cs_free(p->idx);
}

/* next[i] = the node that continues i's segment, or UINT32_MAX; head[i] = 1
 * when i starts a segment.  A link i -> c: both splittable COMP of the same
 * kind, c is i's only child and i is c's only parent. */
static void segments(const cs_graph *g, const parents *p, uint32_t *next, uint8_t *head) {
    uint32_t n = g->nnodes;
    for (uint32_t i = 0; i < n; i++) {
        next[i] = UINT32_MAX;
        head[i] = 0;
    }
    for (uint32_t i = 0; i < n; i++) {
        const cs_node *a = &g->nodes[i];
        if (!splittable(a) || cs_graph_child_end(g, i) - a->child_begin != 1) continue;
        uint32_t c = g->children[a->child_begin];
        const cs_node *b = &g->nodes[c];
        if (splittable(b) && same_kind(a, b) && p->begin[c + 1] - p->begin[c] == 1) next[i] = c;
    }
    uint8_t *has_prev = cs_calloc(n ? n : 1, 1);
    for (uint32_t i = 0; i < n; i++)
        if (next[i] != UINT32_MAX) has_prev[next[i]] = 1;
    for (uint32_t i = 0; i < n; i++) head[i] = splittable(&g->nodes[i]) && !has_prev[i];
    cs_free(has_prev);
}

void cs_synth_fit_add(cs_synth_fit *fit, const cs_graph *g, const cs_synth_options *o, cs_synth_counts *c) {
    keep_roofline = o->keep_roofline;
    parents p;
    parents_build(g, &p);
    uint32_t n = g->nnodes;
    uint32_t *next = cs_malloc((n ? n : 1) * sizeof *next);
    uint8_t *head = cs_malloc(n ? n : 1);
    segments(g, &p, next, head);
    cs_synth_counts k = {0};
    k.nodes = n;
    for (uint32_t i = 0; i < n; i++) {
        const cs_node *x = &g->nodes[i];
        if (is_comp(x)) {
            k.comp_nodes++;
            k.comp_us = cs_add_u64_sat(k.comp_us, x->duration_us);
            if (splittable(x)) fit->dur_hist[bitlen(x->duration_us)]++;
        } else if (x->type == CS_NODE_COMM_COLL || x->type == CS_NODE_COMM_SEND || x->type == CS_NODE_COMM_RECV) {
            k.comm_nodes++;
            k.comm_bytes = cs_add_u64_sat(k.comm_bytes, x->comm_size);
        } else if (x->type == CS_NODE_MEM_LOAD || x->type == CS_NODE_MEM_STORE) {
            k.mem_bytes = cs_add_u64_sat(k.mem_bytes, x->tensor_size);
        }
        if (head[i]) {
            uint64_t len = 0;
            for (uint32_t j = i; j != UINT32_MAX; j = next[j]) len++;
            fit->seg_hist[bitlen(len)]++;
            k.segments++;
        }
    }
    if (c) *c = k;
    cs_free(next);
    cs_free(head);
    parents_free(&p);
}

/* A value drawn from a log2 histogram: a bucket by its count, then uniform
 * within it.  An empty histogram gives `dflt`. */
static uint64_t draw(const uint64_t *hist, uint64_t *rng, uint64_t dflt) {
    uint64_t total = 0;
    for (int b = 0; b < CS_SYNTH_BUCKETS; b++) total = cs_add_u64_sat(total, hist[b]);
    if (!total) return dflt;
    uint64_t r = cs_rand_next(rng) % total;
    int b = 0;
    for (; b < CS_SYNTH_BUCKETS - 1; b++) {
        if (r < hist[b]) break;
        r -= hist[b];
    }
    if (b == 0) return 0;
    uint64_t lo = UINT64_C(1) << (b - 1), span = lo; /* [2^(b-1), 2^b) */
    return lo + cs_rand_next(rng) % span;
}

/* A lognormal factor of mean 1 and coefficient of variation cv. */
static double lognormal(uint64_t *rng, double cv) {
    double s2 = log1p(cv * cv), s = sqrt(s2);
    double u1 = cs_rand_unit(cs_rand_next(rng)), u2 = cs_rand_unit(cs_rand_next(rng));
    if (u1 <= 0) u1 = 0x1.0p-53;
    double z = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
    return exp(s * z - s2 / 2);
}

/* One output node before ids are given: the source node it stands for, its
 * place in the source's issue order and, for segment parts, its duration. */
typedef struct out_node {
    uint64_t key;      /* source id of the member it is placed at */
    uint32_t seg;      /* segment number + 1; 0 = a kept node */
    uint32_t part;     /* index within the segment (0 for kept nodes) */
    uint32_t src;      /* source node index (the segment's head for parts) */
    uint32_t made;     /* creation index */
    uint32_t prev;     /* creation index of the previous part, UINT32_MAX for none */
    uint64_t dur_us;   /* parts: the drawn duration */
} out_node;

static int cmp_out(const void *a, const void *b) {
    const out_node *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    if (x->seg != y->seg) return x->seg < y->seg ? -1 : 1;
    return x->part < y->part ? -1 : x->part > y->part;
}

/* total split in proportion to d[0..k) (sum > 0), exactly: floors, then one
 * more unit to the largest remainders (first index on ties). */
typedef struct rem_ix {
    u128 r;
    uint64_t j;
} rem_ix;

static int cmp_rem(const void *a, const void *b) {
    const rem_ix *x = a, *y = b;
    if (x->r != y->r) return x->r > y->r ? -1 : 1;
    return x->j < y->j ? -1 : x->j > y->j;
}

static void apportion(uint64_t total, const uint64_t *d, uint64_t k, u128 sum, uint64_t *share) {
    rem_ix *ri = cs_malloc(k * sizeof *ri);
    uint64_t given = 0;
    for (uint64_t j = 0; j < k; j++) {
        u128 q = (u128)total * d[j];
        share[j] = (uint64_t)(q / sum);
        ri[j] = (rem_ix){q % sum, j};
        given += share[j];
    }
    uint64_t left = total - given; /* < k: the fractional parts sum below k */
    if (left) {
        qsort(ri, k, sizeof *ri, cmp_rem);
        for (uint64_t j = 0; j < left; j++) share[ri[j].j]++;
    }
    cs_free(ri);
}

static const char *short_type(int32_t t) {
    switch (t) {
    case CS_NODE_METADATA: return "meta";
    case CS_NODE_MEM_LOAD: return "load";
    case CS_NODE_MEM_STORE: return "store";
    case CS_NODE_COMP: return "comp";
    case CS_NODE_COMM_SEND: return "send";
    case CS_NODE_COMM_RECV: return "recv";
    case CS_NODE_COMM_COLL: return "coll";
    default: return "node";
    }
}

int cs_synth_graph(const cs_graph *g, const cs_synth_fit *fit, const cs_synth_options *o, uint64_t salt,
                   cs_et_writer *w, cs_synth_counts *out, cs_error *err) {
    uint32_t n = g->nnodes;
    keep_roofline = o->keep_roofline;
    parents p;
    parents_build(g, &p);
    uint32_t *next = cs_malloc((n ? n : 1) * sizeof *next);
    uint8_t *head = cs_malloc(n ? n : 1);
    segments(g, &p, next, head);
    uint64_t rng = cs_mix64(o->seed ^ cs_mix64(salt + 0x5ee5));
    int rc = CS_OK;

    /* Output nodes: kept ones, and each segment's parts (in part order). */
    out_node *on = NULL;
    size_t non = 0, cap = 0;
    uint32_t *exit_made = cs_malloc((n ? n : 1) * sizeof *exit_made); /* source -> output its children follow */
    uint32_t nseg = 0;
    cs_synth_counts k = {0};
    for (uint32_t i = 0; i < n; i++) exit_made[i] = UINT32_MAX;
    const size_t budget = 4 * (size_t)n + 64;
    for (uint32_t i = 0; i < n && rc == CS_OK; i++) {
        const cs_node *x = &g->nodes[i];
        if (splittable(x) && !head[i]) continue; /* placed with its segment */
        if (!head[i]) {
            CS_GROW(on, cap, non + 1);
            on[non] = (out_node){.key = x->id, .src = i, .made = (uint32_t)non, .prev = UINT32_MAX};
            exit_made[i] = (uint32_t)non;
            non++;
            continue;
        }
        /* a segment: members, total, drawn parts.  A COMP node of 0 us runs for 1 ns (compute.c, as ASTRA-sim),
         * so the segment's time is total us + z ns (z members of 0 us): the parts keep both -- nz parts of at
         * least 1 us sharing the total, and z parts of 0 us at drawn places. */
        uint64_t len = 0, total = 0, z = 0;
        for (uint32_t j = i; j != UINT32_MAX; j = next[j]) {
            len++;
            total = cs_add_u64_sat(total, g->nodes[j].duration_us);
            z += g->nodes[j].duration_us == 0;
        }
        if (o->noise_cv > 0 && total > 0) {
            double t = (double)total * lognormal(&rng, o->noise_cv);
            if (!(t < (double)CS_TIME_MAX_US)) {
                rc = CS_ERR(err, CS_EINVAL,
                            "%s: node %" PRIu64 ": a compute segment of %" PRIu64 " us times its noise factor exceeds "
                            CS_TIME_RANGE_TEXT "; expected a smaller noise",
                            g->source ? g->source : "trace", x->id, total);
                break;
            }
            total = (uint64_t)llround(t);
        }
        uint64_t nz = draw(fit->seg_hist, &rng, 1);
        if (nz < 1) nz = 1;
        if (nz > 65536) nz = 65536;
        if (non + nz + z > budget) nz = 1; /* the output stays within 4 x the source's nodes */
        if (nz > total) nz = total; /* every non-zero part at least 1 us; total 0: none */
        uint64_t kk = nz + z;
        if (kk == 0) kk = 1; /* noise rounded the total to 0: one part of 0 us keeps the segment's place */
        uint64_t *d = cs_malloc((kk ? kk : 1) * sizeof *d), *share = cs_calloc(kk ? kk : 1, sizeof *share);
        u128 sum = 0;
        for (uint64_t j = 0; j < nz; j++) {
            d[j] = draw(fit->dur_hist, &rng, 1);
            sum += d[j];
        }
        if (nz && sum == 0) {
            for (uint64_t j = 0; j < nz; j++) d[j] = 1;
            sum = nz;
        }
        if (nz) {
            apportion(total - nz, d, nz, sum, share);
            for (uint64_t j = 0; j < nz; j++) share[j]++;
        }
        /* the z zero parts (share 0) at drawn places: Fisher-Yates over the parts */
        for (uint64_t j = kk; j > 1; j--) {
            uint64_t r = cs_rand_next(&rng) % j, t = share[j - 1];
            share[j - 1] = share[r];
            share[r] = t;
        }
        /* part j sits at member floor(j * len / kk) in the source order */
        uint32_t seg = ++nseg, member = i;
        uint64_t m = 0;
        for (uint64_t j = 0; j < kk; j++) {
            for (uint64_t want = j * len / kk; m < want; m++) member = next[member];
            CS_GROW(on, cap, non + 1);
            on[non] = (out_node){.key = g->nodes[member].id, .seg = seg, .part = (uint32_t)j, .src = i,
                                 .made = (uint32_t)non, .prev = j ? (uint32_t)non - 1 : UINT32_MAX,
                                 .dur_us = share[j]};
            non++;
        }
        for (uint32_t j = i; j != UINT32_MAX; j = next[j]) exit_made[j] = (uint32_t)non - 1;
        cs_free(share);
        cs_free(d);
    }
    /* ids: the source's issue order */
    if (rc == CS_OK && non > 1) qsort(on, non, sizeof *on, cmp_out);
    uint32_t *pos = cs_malloc((non ? non : 1) * sizeof *pos); /* creation index -> new id */
    for (size_t j = 0; j < non; j++) pos[on[j].made] = (uint32_t)j;

    /* write */
    uint64_t *deps = NULL;
    size_t dcap = 0;
    for (size_t j = 0; j < non && rc == CS_OK; j++) {
        const out_node *u = &on[j];
        const cs_node *x = &g->nodes[u->src];
        char name[48];
        snprintf(name, sizeof name, "%s.%zu", short_type(x->type), j);
        cs_et_nb *b = cs_et_nb_new(j, name, x->type >= 0 ? x->type : 0);
        size_t nd = 0;
        if (u->prev != UINT32_MAX) {
            CS_GROW(deps, dcap, nd + 1);
            deps[nd++] = pos[u->prev];
        } else {
            for (uint32_t q = p.begin[u->src]; q < p.begin[u->src + 1]; q++) {
                CS_GROW(deps, dcap, nd + 1);
                deps[nd++] = pos[exit_made[p.idx[q]]];
            }
        }
        for (size_t q = 0; q < nd; q++) cs_et_nb_data_dep(b, deps[q]);
        k.nodes++;
        if (is_comp(x)) {
            k.comp_nodes++;
            uint64_t us = u->seg ? u->dur_us : x->duration_us;
            k.comp_us = cs_add_u64_sat(k.comp_us, us);
            cs_et_nb_duration_us(b, us);
            cs_et_nb_attr_bool(b, "is_cpu_op", (x->flags & CS_NF_CPU) != 0);
            if (!u->seg) {
                if (x->flags & CS_NF_HAS_NUM_OPS) cs_et_nb_attr_uint64(b, "num_ops", cs_synth_round_bits(x->num_ops, o->size_bits));
                if (x->flags & CS_NF_HAS_TENSOR)
                    cs_et_nb_attr_uint64(b, "tensor_size", cs_synth_round_bits(x->tensor_size, o->size_bits));
            }
        } else if (x->type == CS_NODE_COMM_COLL || x->type == CS_NODE_COMM_SEND || x->type == CS_NODE_COMM_RECV) {
            k.comm_nodes++;
            cs_et_nb_attr_bool(b, "is_cpu_op", 0);
            if (x->flags & CS_NF_HAS_COMM_TYPE) cs_et_nb_attr_int64(b, "comm_type", x->comm_type);
            if (x->flags & CS_NF_HAS_COMM_SIZE) {
                uint64_t s = cs_synth_round_bits(x->comm_size, o->size_bits);
                k.comm_bytes = cs_add_u64_sat(k.comm_bytes, s);
                if (x->comm_size) {
                    double ch = fabs((double)s - (double)x->comm_size) / (double)x->comm_size;
                    if (ch > k.max_size_change) k.max_size_change = ch;
                }
                cs_et_nb_attr_uint64(b, "comm_size", s);
            }
            if (x->flags & CS_NF_HAS_SRC) cs_et_nb_attr_int32(b, "comm_src", cs_graph_comm_src(g, x));
            if (x->flags & CS_NF_HAS_DST) cs_et_nb_attr_int32(b, "comm_dst", cs_graph_comm_dst(g, x));
            if (x->comm_tag) cs_et_nb_attr_int32(b, "comm_tag", x->comm_tag);
            if (x->comm_priority) cs_et_nb_attr_int32(b, "comm_priority", x->comm_priority);
            if (x->pg) cs_et_nb_attr_string(b, "pg_name", g->pg_names[x->pg]);
            if (x->flags & CS_NF_HAS_INVOLVED) {
                int v[32];
                size_t nv = x->involved_dim ? bitlen(x->involved_dim) : 1;
                for (size_t q = 0; q < nv; q++) v[q] = (x->involved_dim >> q) & 1u;
                cs_et_nb_attr_bool_list(b, "involved_dim", v, nv);
            }
        } else if (x->type == CS_NODE_MEM_LOAD || x->type == CS_NODE_MEM_STORE) {
            cs_et_nb_attr_bool(b, "is_cpu_op", 0);
            if (x->flags & CS_NF_HAS_TENSOR) {
                uint64_t s = cs_synth_round_bits(x->tensor_size, o->size_bits);
                k.mem_bytes = cs_add_u64_sat(k.mem_bytes, s);
                cs_et_nb_attr_uint64(b, "tensor_size", s);
            }
        }
        rc = cs_et_writer_write(w, cs_et_nb_node(b), err);
        cs_et_nb_free(b);
    }
    k.segments = nseg;
    if (out) *out = k;
    cs_free(deps);
    cs_free(pos);
    cs_free(exit_made);
    cs_free(on);
    cs_free(next);
    cs_free(head);
    parents_free(&p);
    return rc;
}
