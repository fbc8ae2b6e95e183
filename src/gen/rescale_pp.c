/*
 * rescale_pp.c -- `clustersim rescale --to-pp`: a generated dense
 * transformer's pipeline stages re-formed for another pipeline degree
 * (rescale_pp.h says how; docs/rescale.md, "The pipeline degree", why each
 * value is exact).  The emitter below follows src/gen/family_transformer.c
 * (forward_mb, backward_mb, tx_emit's schedules) and src/gen/emit.c (the
 * chain, cs_gen_p2p, cs_gen_dp_bucket, the optimizer) rule for rule, with
 * every node's values looked up by name in the source.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "gen/gen_int.h"
#include "gen/rescale_pp.h"

/* bytes per parameter of the generator's optimizer node (gen_int.h) */
#define OPT_B ((uint64_t)CS_GEN_OPT_BYTES_PER_PARAM)

/* A named node of the source (the first of its name), its group kind. */
/* Exact rationals n / d for the optimizer's time per byte (no floating point: the same bytes on every
 * platform).  Products of two of them fit 128 bits: numerators below 2^66, denominators below 2^43. */
__extension__ typedef unsigned __int128 u128;
typedef struct frac {
    u128 n, d;
} frac;
static int frac_lt(frac a, frac b) { return a.n * b.d < b.n * a.d; }

typedef struct entry {
    const char *name;
    const ChakraProtoMsg__Node *nd;
    uint32_t st;
    size_t k;
    int kind; /* PG_TP, PG_DP, or -1: no group */
} entry;

/* One node of a layer block: prefix ("", "bwd.", "recompute.") + "L<k>." + suffix. */
typedef struct op {
    char pre[16], suf[48];
} op;

struct cs_rescale_pp {
    cs_gen_plan src, dst;
    uint32_t L, M;
    entry **dict; /* per tp_i, sorted by name */
    size_t *ndict;
    op *fwd, *bwd;
    size_t nfwd, nbwd;
    uint64_t sf, sb; /* pipeline message sizes, forward and backward */
    const ChakraProtoMsg__Node *bucket_proto, *opt_proto;
    uint64_t b_head, b_layer, b_embed, lp, x_first, x_last;
    uint64_t *opt_t, *opt_d; /* per source stage */
    uint32_t *nbk;           /* gradient buckets per source stage (tp_i 0) */
    frac rate_lo, rate_hi; /* the optimizer's microseconds per byte of tensor_size: [lo, hi), exact */
    int gpipe;
    const char *const *paths;
    /* one emission */
    const cs_gen_plan *P;
    uint32_t c[CS_GEN_NDIMS];
    uint64_t id, last, *extras;
    size_t nextra, capextra;
    cs_et_writer *w;
    ChakraProtoMsg__Node *const *cmp; /* self-check: the template compared against */
    size_t ncmp, k;
    char miss[400];
    int rc;
    cs_error *err;
};

static int by_name(const void *a, const void *b) {
    const entry *x = a, *y = b;
    int d = strcmp(x->name, y->name);
    if (d) return d;
    if (x->st != y->st) return x->st < y->st ? -1 : 1;
    return x->k < y->k ? -1 : x->k > y->k;
}

static const entry *lookup(const cs_rescale_pp *R, uint32_t ti, const char *name) {
    entry key = {.name = name};
    size_t lo = 0, hi = R->ndict[ti];
    while (lo < hi) { /* the first entry of the name */
        size_t mid = (lo + hi) / 2;
        if (strcmp(R->dict[ti][mid].name, key.name) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo < R->ndict[ti] && !strcmp(R->dict[ti][lo].name, name) ? &R->dict[ti][lo] : NULL;
}

/* "L<k>." after an optional "bwd." / "recompute.": the prefix length, k and
 * the suffix; -1 if the name is no layer's. */
static int layer_of(const char *nm, uint32_t *k, const char **suf) {
    int pre = !strncmp(nm, "bwd.", 4) ? 4 : !strncmp(nm, "recompute.", 10) ? 10 : 0;
    const char *s = nm + pre;
    if (s[0] != 'L' || s[1] < '0' || s[1] > '9') return -1;
    char *end;
    unsigned long v = strtoul(s + 1, &end, 10);
    if (*end != '.' || v > UINT32_MAX) return -1;
    *k = (uint32_t)v;
    *suf = end + 1;
    return pre;
}

static const ChakraProtoMsg__AttributeProto *attr_of(const ChakraProtoMsg__Node *n, const char *name) {
    for (size_t i = 0; i < n->n_attr; i++)
        if (!strcmp(n->attr[i]->name, name)) return n->attr[i];
    return NULL;
}
static uint64_t attr_u(const ChakraProtoMsg__Node *n, const char *name) {
    const ChakraProtoMsg__AttributeProto *a = attr_of(n, name);
    if (!a) return 0;
    switch (a->value_case) {
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL: return a->uint64_val;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL: return a->int64_val < 0 ? 0 : (uint64_t)a->int64_val;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL: return a->int32_val < 0 ? 0 : (uint32_t)a->int32_val;
    default: return 0;
    }
}

/* ---- emission ------------------------------------------------------------------ */

static void put(cs_rescale_pp *R, cs_et_nb *nb) {
    const ChakraProtoMsg__Node *n = cs_et_nb_node(nb);
    if (R->rc == CS_OK && !R->miss[0]) {
        if (R->cmp) {
            if (R->k >= R->ncmp) {
                snprintf(R->miss, sizeof R->miss, "the rebuilt stage has more nodes (the %zu-th: \"%s\")", R->k + 1, n->name);
            } else {
                const ChakraProtoMsg__Node *t = R->cmp[R->k];
                size_t a = chakra_proto_msg__node__get_packed_size(n), b = chakra_proto_msg__node__get_packed_size(t);
                int same = a == b;
                if (same) {
                    uint8_t *x = cs_malloc(a + b + 1);
                    chakra_proto_msg__node__pack(n, x);
                    chakra_proto_msg__node__pack(t, x + a);
                    same = !memcmp(x, x + a, a);
                    cs_free(x);
                }
                if (!same)
                    snprintf(R->miss, sizeof R->miss, "node %" PRIu64 " (%s; number %zu in file order) would be node %"
                             PRIu64 " (%s)%s", t->id, t->name, R->k + 1, n->id, n->name,
                             strcmp(t->name, n->name) ? "" : " with other dependencies or attributes");
            }
            R->k++;
        } else {
            R->rc = cs_et_writer_write(R->w, n, R->err);
            R->k++;
        }
    }
    cs_et_nb_free(nb);
}

/* Node p's copy as node `id` after the chain's tail; pg_name of group kind
 * renamed to the emitted rank's; size / dur (not 0) replace tensor_size or
 * comm_size / the duration. */
static cs_et_nb *copy(cs_rescale_pp *R, const ChakraProtoMsg__Node *p, int kind, uint64_t size, uint64_t dur) {
    cs_et_nb *nb = cs_et_nb_new(++R->id, p->name, p->type);
    if (R->last) cs_et_nb_data_dep(nb, R->last);
    if (dur || p->duration_micros) cs_et_nb_duration_us(nb, dur ? dur : p->duration_micros);
    for (size_t i = 0; i < p->n_attr; i++) {
        const ChakraProtoMsg__AttributeProto *a = p->attr[i];
        if (kind >= 0 && !strcmp(a->name, "pg_name")) {
            char g[24];
            snprintf(g, sizeof g, "%u", cs_gen_group_of(R->P, kind, R->c, NULL));
            cs_et_nb_attr_string(nb, "pg_name", g);
            continue;
        }
        if (size && (!strcmp(a->name, "tensor_size") || !strcmp(a->name, "comm_size"))) {
            cs_et_nb_attr_uint64(nb, a->name, size);
            continue;
        }
        switch (a->value_case) { /* every kind the prepare step let through */
        case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL: cs_et_nb_attr_bool(nb, a->name, a->bool_val); break;
        case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL: cs_et_nb_attr_int64(nb, a->name, a->int64_val); break;
        case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL: cs_et_nb_attr_uint64(nb, a->name, a->uint64_val); break;
        case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL: cs_et_nb_attr_int32(nb, a->name, a->int32_val); break;
        case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL: cs_et_nb_attr_string(nb, a->name, a->string_val); break;
        default: break;
        }
    }
    return nb;
}

/* A node of the source by name, chained (COMP nodes and TP collectives);
 * absent optional names are skipped. */
static void named(cs_rescale_pp *R, const char *name, int optional) {
    const entry *e = lookup(R, R->c[CS_DIM_TP], name);
    if (!e) {
        if (!optional && R->rc == CS_OK && !R->miss[0])
            snprintf(R->miss, sizeof R->miss, "a node \"%s\" the rebuilt stage needs is not in the source", name);
        return;
    }
    put(R, copy(R, e->nd, e->kind, 0, 0));
    R->last = R->id;
}

/* A pipeline message (cs_gen_p2p): receives join the chain, sends hang off it. */
static void p2p(cs_rescale_pp *R, int send, uint32_t peer_pi, uint32_t tag, uint64_t size) {
    uint32_t me = cs_gen_rank_of(R->P, R->c);
    uint32_t peer = cs_gen_rank_at(R->P, R->c[CS_DIM_TP], R->c[CS_DIM_DP], peer_pi, 0);
    cs_et_nb *nb = cs_et_nb_new(++R->id, send ? "send" : "recv",
                                send ? CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE : CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE);
    if (R->last) cs_et_nb_data_dep(nb, R->last);
    cs_et_nb_attr_bool(nb, "is_cpu_op", 0);
    cs_et_nb_attr_int32(nb, "comm_src", (int32_t)(send ? me : peer));
    cs_et_nb_attr_int32(nb, "comm_dst", (int32_t)(send ? peer : me));
    cs_et_nb_attr_int32(nb, "comm_tag", (int32_t)tag);
    cs_et_nb_attr_uint64(nb, "comm_size", size);
    put(R, nb);
    if (!send) R->last = R->id;
}

/* A gradient bucket (cs_gen_dp_bucket, overlapped): off the chain, awaited by the optimizer. */
static void bucket(cs_rescale_pp *R, uint64_t size) {
    if (R->P->dp < 2) return;
    put(R, copy(R, R->bucket_proto, PG_DP, size, 0));
    if (R->nextra == R->capextra) {
        R->capextra = R->capextra ? 2 * R->capextra : 16;
        R->extras = cs_realloc(R->extras, R->capextra * sizeof *R->extras);
    }
    R->extras[R->nextra++] = R->id;
}

static void layer(cs_rescale_pp *R, const op *ops, size_t n, uint32_t l) {
    char nm[96];
    for (size_t i = 0; i < n; i++) {
        snprintf(nm, sizeof nm, "%sL%u.%s", ops[i].pre, l, ops[i].suf);
        named(R, nm, 0);
    }
}

static void forward_mb(cs_rescale_pp *R, uint32_t mb, uint32_t lo, uint32_t hi) {
    uint32_t st = R->c[CS_DIM_PP], last = R->P->pp - 1;
    if (st > 0) p2p(R, 0, st - 1, 2 * mb, R->sf);
    if (st == 0) {
        named(R, "embed", 0);
        named(R, "embed.ar", 1);
    }
    for (uint32_t l = lo; l < hi; l++) layer(R, R->fwd, R->nfwd, l);
    if (st == last) {
        named(R, "final_ln", 0);
        named(R, "logits.ag", 1);
        named(R, "logits", 0);
    } else {
        p2p(R, 1, st + 1, 2 * mb, R->sf);
    }
}

static void backward_mb(cs_rescale_pp *R, uint32_t mb, uint32_t lo, uint32_t hi, int last_mb) {
    uint32_t st = R->c[CS_DIM_PP], last = R->P->pp - 1;
    if (st < last) p2p(R, 0, st + 1, 2 * mb + 1, R->sb);
    if (st == last) {
        named(R, "bwd.logits", 0);
        named(R, "bwd.logits.ar", 1);
        named(R, "bwd.final_ln", 0);
    }
    for (uint32_t l = hi; l-- > lo;) {
        layer(R, R->bwd, R->nbwd, l);
        if (last_mb) bucket(R, st == last && l == hi - 1 ? R->b_head : R->b_layer);
    }
    if (st == 0) {
        named(R, "bwd.embed", 0);
        named(R, "bwd.embed.grad_acc", 1);
        if (last_mb) bucket(R, R->b_embed);
    } else {
        p2p(R, 1, st - 1, 2 * mb + 1, R->sb);
    }
}

/* The optimizer's tensor_size and duration on stage st of n layers of plan P. */
static void opt_values(const cs_rescale_pp *R, uint32_t st, uint32_t n, uint64_t *ts, uint64_t *dur) {
    if (R->P == &R->src) {
        *ts = R->opt_t[st];
        *dur = R->opt_d[st];
        return;
    }
    uint64_t x = st == 0 ? R->x_first : st == R->P->pp - 1 ? R->x_last : 0;
    *ts = OPT_B * ((uint64_t)n * R->lp + x);
    /* the middle of the time per byte the source's optimizers allow (rate_lo, rate_hi), times the bytes,
     * rounded half up: mid = (lo.n hi.d + hi.n lo.d) / (2 lo.d hi.d) */
    u128 num = R->rate_lo.n * R->rate_hi.d + R->rate_hi.n * R->rate_lo.d, den = 2 * R->rate_lo.d * R->rate_hi.d;
    u128 q = (2 * num * (u128)*ts + den) / (2 * den);
    *dur = q < 1 ? 1 : q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}

/* Rank c's whole step under plan P. */
static void emit_rank(cs_rescale_pp *R) {
    uint32_t st = R->c[CS_DIM_PP], first, P = R->P->pp, M = R->M;
    uint32_t n = cs_gen_vstage_layers(R->L, R->P, st, &first), lo = first, hi = first + n;
    R->id = R->last = 0;
    R->nextra = 0;
    R->k = 0;
    R->miss[0] = 0;
    if (R->gpipe) {
        for (uint32_t i = 0; i < M; i++) forward_mb(R, i, lo, hi);
        for (uint32_t i = 0; i < M; i++) backward_mb(R, i, lo, hi, i == M - 1);
    } else {
        uint32_t warm = P - st - 1 < M ? P - st - 1 : M, f = 0, b = 0;
        for (; f < warm; f++) forward_mb(R, f, lo, hi);
        while (f < M) {
            forward_mb(R, f++, lo, hi);
            backward_mb(R, b, lo, hi, b == M - 1);
            b++;
        }
        for (; b < M; b++) backward_mb(R, b, lo, hi, b == M - 1);
    }
    uint64_t ts, dur;
    opt_values(R, st, n, &ts, &dur);
    cs_et_nb *nb = copy(R, R->opt_proto, -1, ts, dur);
    for (size_t i = 0; i < R->nextra; i++) cs_et_nb_data_dep(nb, R->extras[i]);
    put(R, nb);
    R->last = R->id;
}

/* ---- the source ------------------------------------------------------------------- */

#define REFUSE(...) CS_ERR(err, CS_EUNSUPPORTED, __VA_ARGS__)

static int collect(cs_rescale_pp *R, ChakraProtoMsg__Node *const *const *nodes, const size_t *counts, cs_error *err) {
    uint32_t tp = R->src.tp, pp = R->src.pp;
    R->dict = cs_calloc(tp, sizeof *R->dict);
    R->ndict = cs_calloc(tp, sizeof *R->ndict);
    R->opt_t = cs_calloc(pp, sizeof *R->opt_t);
    R->opt_d = cs_calloc(pp, sizeof *R->opt_d);
    R->nbk = cs_calloc(pp, sizeof *R->nbk);
    for (uint32_t ti = 0; ti < tp; ti++) {
        size_t tot = 0;
        for (uint32_t st = 0; st < pp; st++) tot += counts[st * tp + ti];
        R->dict[ti] = cs_calloc(tot ? tot : 1, sizeof **R->dict);
        for (uint32_t st = 0; st < pp; st++) {
            uint32_t sc[CS_GEN_NDIMS] = {0};
            sc[CS_DIM_TP] = ti;
            sc[CS_DIM_PP] = st;
            char tpg[24], dpg[24];
            snprintf(tpg, sizeof tpg, "%u", cs_gen_group_of(&R->src, PG_TP, sc, NULL));
            snprintf(dpg, sizeof dpg, "%u", cs_gen_group_of(&R->src, PG_DP, sc, NULL));
            const char *path = R->paths[st * tp + ti];
            uint32_t nbk = 0;
            for (size_t k = 0; k < counts[st * tp + ti]; k++) {
                const ChakraProtoMsg__Node *nd = nodes[st * tp + ti][k];
                int coll = nd->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE;
                for (size_t i = 0; i < nd->n_attr; i++) {
                    int vc = nd->attr[i]->value_case;
                    if (vc != CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL &&
                        vc != CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL &&
                        vc != CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL &&
                        vc != CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL &&
                        vc != CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL)
                        return REFUSE("%s: node %" PRIu64 " (%s): --to-pp %u: attribute %s is of a kind the generator "
                                      "does not write; re-forming the pipeline takes only the generator's transformer "
                                      "traces", path, nd->id, nd->name, R->dst.pp, nd->attr[i]->name);
                }
                if (nd->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE ||
                    nd->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE) {
                    uint64_t sz = attr_u(nd, "comm_size"), *slot = attr_u(nd, "comm_tag") % 2 ? &R->sb : &R->sf;
                    if (*slot && *slot != sz)
                        return REFUSE("%s: node %" PRIu64 " (%s): --to-pp %u: comm_size %" PRIu64 ", another pipeline "
                                      "message of this direction has %" PRIu64 ": the generator's are all 2 sl h bytes; "
                                      "not re-formed", path, nd->id, nd->name, R->dst.pp, sz, *slot);
                    *slot = sz;
                    continue;
                }
                if (coll && attr_u(nd, "comm_type") != CS_COLL_ALL_REDUCE && strstr(nd->name, "dp."))
                    return REFUSE("%s: node %" PRIu64 " (%s): --to-pp %u: a collective of type %" PRIu64 " on the "
                                  "data-parallel group (ZeRO's or FSDP's shards): their sizes follow the stage's "
                                  "parameters sharded over dp; not re-formed (--zero 0, no --fsdp)",
                                  path, nd->id, nd->name, R->dst.pp, attr_u(nd, "comm_type"));
                if (coll && !strcmp(nd->name, "dp.grads")) {
                    uint64_t sz = attr_u(nd, "comm_size");
                    uint32_t first, n = cs_gen_vstage_layers(R->L, &R->src, st, &first);
                    if (!R->bucket_proto) R->bucket_proto = nd;
                    if (st == pp - 1 && nbk == 0) R->b_head = sz;
                    else if (st == 0 && nbk == n) R->b_embed = sz;
                    else if (!R->b_layer) R->b_layer = sz;
                    else if (sz != R->b_layer)
                        return REFUSE("%s: node %" PRIu64 " (dp.grads): --to-pp %u: comm_size %" PRIu64 ", another "
                                      "layer's gradient bucket has %" PRIu64 ": a bucket of several layers (the "
                                      "generator closes buckets by size: where depends on the stage's layers); "
                                      "not re-formed", path, nd->id, R->dst.pp, sz, R->b_layer);
                    nbk++;
                    if (ti == 0) R->nbk[st] = nbk;
                    continue;
                }
                if (!strcmp(nd->name, "optimizer")) {
                    if (!R->opt_proto) R->opt_proto = nd;
                    R->opt_t[st] = attr_u(nd, "tensor_size");
                    R->opt_d[st] = nd->duration_micros;
                    continue;
                }
                if (nd->type != CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE && !coll)
                    return REFUSE("%s: node %" PRIu64 " (%s): --to-pp %u: a node of type %d has no place in the "
                                  "generator's transformer stage (memory nodes: an offloaded optimizer); not "
                                  "re-formed", path, nd->id, nd->name, R->dst.pp, (int)nd->type);
                int kind = -1;
                if (coll) {
                    const ChakraProtoMsg__AttributeProto *g = attr_of(nd, "pg_name");
                    const char *s = g && g->value_case == CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL
                                        ? g->string_val : "";
                    kind = !strcmp(s, tpg) ? PG_TP : !strcmp(s, dpg) ? PG_DP : -1;
                    if (kind < 0)
                        return REFUSE("%s: node %" PRIu64 " (%s): --to-pp %u: pg_name \"%s\" is not the generator's "
                                      "id of the rank's TP group (%s) or DP group (%s); not re-formed", path, nd->id,
                                      nd->name, R->dst.pp, s, tpg, dpg);
                }
                uint32_t l;
                const char *suf;
                if (layer_of(nd->name, &l, &suf) >= 0 && l + 1 > R->L) R->L = l + 1;
                R->dict[ti][R->ndict[ti]++] = (entry){nd->name, nd, st, k, kind};
            }
        }
        qsort(R->dict[ti], R->ndict[ti], sizeof **R->dict, by_name);
    }
    return CS_OK;
}

/* The layer blocks' node order, from stage 0's first layer (tp_i 0). */
static int block_ops(cs_rescale_pp *R, ChakraProtoMsg__Node *const *nd, size_t n, cs_error *err) {
    uint32_t k0 = UINT32_MAX;
    R->fwd = cs_calloc(n ? n : 1, sizeof *R->fwd);
    R->bwd = cs_calloc(n ? n : 1, sizeof *R->bwd);
    for (int pass = 0; pass < 2; pass++) {
        int in = 0;
        for (size_t k = 0; k < n; k++) {
            uint32_t l;
            const char *suf;
            int pre = layer_of(nd[k]->name, &l, &suf);
            int mine = pre >= 0 && (pass == 0 ? pre == 0 : pre > 0) && (k0 == UINT32_MAX || l == k0);
            if (!mine) {
                if (in) break;
                continue;
            }
            if (k0 == UINT32_MAX) k0 = l;
            in = 1;
            op *o = pass == 0 ? &R->fwd[R->nfwd++] : &R->bwd[R->nbwd++];
            if (strlen(suf) >= sizeof o->suf)
                return REFUSE("%s: node %" PRIu64 " (%s): --to-pp %u: not a name the generator writes; not re-formed",
                              R->paths[0], nd[k]->id, nd[k]->name, R->dst.pp);
            snprintf(o->pre, sizeof o->pre, "%.*s", pre, nd[k]->name);
            snprintf(o->suf, sizeof o->suf, "%s", suf);
        }
    }
    if (!R->nfwd || !R->nbwd)
        return REFUSE("%s: --to-pp %u: no forward and backward nodes of a layer (\"L<k>.<op>\", \"bwd.L<k>.<op>\") on "
                      "stage 0: re-forming the pipeline needs the generator's transformer layers (a trace without "
                      "them, e.g. a Chakra trace from PyTorch, does not say which nodes belong to a stage)",
                      R->paths[0], R->dst.pp);
    return CS_OK;
}

int cs_rescale_pp_prepare(cs_rescale_pp **out, const cs_gen_plan *src, const cs_gen_plan *dst,
                          ChakraProtoMsg__Node *const *const *nodes, const size_t *counts, const char *const *paths,
                          FILE *log, cs_error *err) {
    cs_rescale_pp *R = cs_calloc(1, sizeof *R);
    *out = R;
    R->src = *src;
    R->dst = *dst;
    R->paths = paths;
    R->err = err;
    uint32_t pp = src->pp, tp = src->tp;
    if (pp < 2 || dst->pp < 2)
        return REFUSE("--to-pp %u: re-forming the pipeline needs pp >= 2 in the source and the target (pp %u in the "
                      "trace): at pp 1 there are no pipeline messages to size the new boundaries' from, and the "
                      "generator places the embedding and the output layer on different stages",
                      dst->pp, pp);
    /* the layers first: the bucket positions need each stage's count */
    for (uint32_t ti = 0; ti < tp; ti++)
        for (uint32_t st = 0; st < pp; st++)
            for (size_t k = 0; k < counts[st * tp + ti]; k++) {
                uint32_t l;
                const char *suf;
                if (layer_of(nodes[st * tp + ti][k]->name, &l, &suf) >= 0 && l + 1 > R->L) R->L = l + 1;
            }
    /* the default split (cs_gen_vstage_layers), which the bucket positions and the new stages follow */
    for (uint32_t st = 0; st < pp; st++) {
        uint32_t lo = UINT32_MAX, hi = 0, first, n = cs_gen_vstage_layers(R->L, src, st, &first);
        for (size_t k = 0; k < counts[st * tp]; k++) {
            uint32_t l;
            const char *suf;
            if (layer_of(nodes[st * tp][k]->name, &l, &suf) < 0) continue;
            if (l < lo) lo = l;
            if (l > hi) hi = l;
        }
        if (n && (lo != first || hi != first + n - 1))
            return REFUSE("%s: --to-pp %u: stage %u holds layers %u..%u; the default split of %u layers over %u stages "
                          "gives it %u..%u: a --layout, or interleaved stages (--virtual-stages); not re-formed (the "
                          "new stages follow the default split)", paths[st * tp], dst->pp, st, lo, hi, R->L, pp,
                          first, first + n - 1);
    }
    int rc = collect(R, nodes, counts, err);
    if (rc) return rc;
    rc = block_ops(R, nodes[0], counts[0], err);
    if (rc) return rc;
    for (size_t k = 0; k < counts[0]; k++) R->M += !strcmp(nodes[0][k]->name, "embed");
    if (!R->M || !R->opt_proto || !R->sf || !R->sb)
        return REFUSE("%s: --to-pp %u: no %s: re-forming the pipeline needs the generator's transformer traces "
                      "(an embedding per micro-batch on stage 0, pipeline messages, an optimizer step)",
                      paths[0], dst->pp, !R->M ? "\"embed\" node" : !R->opt_proto ? "\"optimizer\" node" : "pipeline message");
    if (dst->pp > R->L)
        return REFUSE("--to-pp %u: expected at most one stage per layer (%u layers in the trace)", dst->pp, R->L);
    /* per-layer parameters (per rank) and the stages' others, from the optimizer (54 bytes per parameter, CS_GEN_OPT_BYTES_PER_PARAM) */
    uint32_t first;
    if (src->dp >= 2) {
        if (!R->b_layer || R->b_layer % 2)
            return REFUSE("%s: --to-pp %u: %s: the per-layer gradient bucket (2-byte gradients of one layer) is what "
                          "the stages' parameter counts are read from; not re-formed", paths[0], dst->pp,
                          !R->b_layer ? "no gradient bucket of one layer (--no-overlap-grad-reduce, or every bucket "
                                        "holds the embedding or the output layer)"
                                      : "the gradient bucket's size is odd");
        R->lp = R->b_layer / 2;
    } else {
        for (uint32_t st = 1; st + 1 < pp; st++) {
            uint32_t nl = cs_gen_vstage_layers(R->L, src, st, &first);
            if (!nl || R->opt_t[st] % (OPT_B * nl) || (R->lp && R->lp != R->opt_t[st] / OPT_B / nl))
                return REFUSE("%s: --to-pp %u: stage %u's optimizer (tensor_size %" PRIu64 ") is not 54 bytes for "
                              "each parameter of %u equal layers; not re-formed",
                              paths[st * tp], dst->pp, st, R->opt_t[st], nl);
            R->lp = R->opt_t[st] / OPT_B / nl;
        }
        if (!R->lp)
            return REFUSE("--to-pp %u: at dp 1 and pp 2 the trace holds neither a gradient bucket of one layer nor a "
                          "middle stage's optimizer, so a layer's parameter count (which sizes the optimizer of every "
                          "new stage) cannot be read from it exactly; not re-formed (a source with dp >= 2 or pp >= 3 "
                          "can be)", dst->pp);
    }
    for (uint32_t st = 0; src->dp >= 2 && st < pp; st++) {
        uint32_t nl = cs_gen_vstage_layers(R->L, src, st, &first);
        if (R->nbk[st] != nl + (st == 0))
            return REFUSE("%s: --to-pp %u: stage %u has %u gradient buckets for its %u layers%s: not one bucket per "
                          "layer overlapped with the backward (--no-overlap-grad-reduce, a larger bucket size or "
                          "smaller layers: where the generator closes buckets depends on the stage's layers); not "
                          "re-formed", paths[st * tp], dst->pp, st, R->nbk[st], nl, st == 0 ? " and the embedding" : "");
    }
    for (uint32_t st = 0; st < pp; st++) {
        uint32_t nl = cs_gen_vstage_layers(R->L, src, st, &first);
        uint64_t T = R->opt_t[st], lay = (uint64_t)nl * R->lp;
        if (T % OPT_B || T / OPT_B < lay || (st > 0 && st + 1 < pp && T / OPT_B != lay))
            return REFUSE("%s: --to-pp %u: stage %u's optimizer (tensor_size %" PRIu64 ") is not 54 bytes per "
                          "parameter of its %u layers (%" PRIu64 " parameters each, read from %s)%s; not re-formed",
                          paths[st * tp], dst->pp, st, T, nl, R->lp, src->dp >= 2 ? "a gradient bucket" : "a middle stage",
                          st == 0 ? " and the embedding" : st == pp - 1 ? " and the output layer" : "");
        if (st == 0) R->x_first = T / OPT_B - lay;
        if (st == pp - 1) R->x_last = T / OPT_B - lay;
    }
    /* duration = round(tensor_size / B) (at least 1 us) on every source stage: 1/B in the intersection of
     * [(D - 1/2) / T, (D + 1/2) / T) */
    R->rate_lo = (frac){0, 1};
    int have_hi = 0;
    for (uint32_t st = 0; st < pp; st++) {
        uint64_t T = R->opt_t[st], D = R->opt_d[st];
        if (!R->opt_t[st] || !R->opt_d[st])
            return REFUSE("%s: --to-pp %u: stage %u's optimizer has no tensor_size or duration; not re-formed",
                          paths[st * tp], dst->pp, st);
        frac lo = D > 1 ? (frac){2 * (u128)D - 1, 2 * (u128)T} : (frac){0, 1}, hi = {2 * (u128)D + 1, 2 * (u128)T};
        if (frac_lt(R->rate_lo, lo)) R->rate_lo = lo;
        if (!have_hi || frac_lt(hi, R->rate_hi)) R->rate_hi = hi;
        have_hi = 1;
    }
    if (!frac_lt(R->rate_lo, R->rate_hi))
        return REFUSE("%s: --to-pp %u: the stages' optimizer durations are not one time per byte of their "
                      "tensor_size (the generator's: 54 bytes per parameter over the memory bandwidth, no "
                      "plan.kernel-overhead-us); not re-formed", paths[0], dst->pp);
    /* the self-check: the source's stages rebuilt at its own pp, 1F1B then GPipe */
    char first_miss[400] = "";
    uint32_t bad = 0;
    for (R->gpipe = 0; R->gpipe < 2; R->gpipe++) {
        int ok = 1;
        R->P = &R->src;
        for (uint32_t st = 0; ok && st < pp; st++)
            for (uint32_t ti = 0; ok && ti < tp; ti++) {
                memset(R->c, 0, sizeof R->c);
                R->c[CS_DIM_TP] = ti;
                R->c[CS_DIM_PP] = st;
                R->cmp = nodes[st * tp + ti];
                R->ncmp = counts[st * tp + ti];
                emit_rank(R);
                if (!R->miss[0] && R->k < R->ncmp)
                    snprintf(R->miss, sizeof R->miss, "the rebuilt stage ends before node %" PRIu64 " (%s; number %zu "
                             "in file order)", R->cmp[R->k]->id, R->cmp[R->k]->name, R->k + 1);
                if (R->rc) return R->rc;
                if (R->miss[0]) {
                    ok = 0;
                    if (!first_miss[0] || st * tp + ti > bad) {
                        snprintf(first_miss, sizeof first_miss, "%s", R->miss);
                        bad = st * tp + ti;
                    }
                }
            }
        if (ok) break;
    }
    R->cmp = NULL;
    if (R->gpipe == 2)
        return REFUSE("%s: --to-pp %u: %s, when the stage is rebuilt from the trace's own nodes at --pp %u as the "
                      "generator emits it (1F1B or GPipe without interleaving, the default layer split, one gradient "
                      "bucket per layer overlapped with the backward, --zero 0, no FSDP, MoE, context parallelism, "
                      "input pipeline or offloaded optimizer): not a trace the pipeline re-forming rebuilds exactly",
                      paths[bad], dst->pp, first_miss, pp);
    if (log)
        fprintf(log, "  pp       re-formed from pp %u to pp %u (%s, %u layers, %u micro-batches): every stage rebuilt "
                     "from the source's nodes (the source's own stages rebuilt first: equal node for node); the "
                     "optimizer's tensor_size from %" PRIu64 " parameters per layer, its duration from the time per byte the "
                     "source's %u optimizers allow (%.6g to %.6g us per MB)\n",
                pp, dst->pp, R->gpipe ? "GPipe" : "1F1B", R->L, R->M, R->lp, pp,
                (double)R->rate_lo.n / (double)R->rate_lo.d * 1e6, (double)R->rate_hi.n / (double)R->rate_hi.d * 1e6);
    return CS_OK;
}

int cs_rescale_pp_write(cs_rescale_pp *R, uint32_t r, cs_et_writer *w, uint64_t *nodes, cs_error *err) {
    R->P = &R->dst;
    R->err = err;
    R->w = w;
    R->rc = CS_OK;
    cs_gen_rank_coords(&R->dst, r, R->c);
    emit_rank(R);
    if (R->rc == CS_OK && R->miss[0])
        R->rc = CS_ERR(err, CS_EUNSUPPORTED, "--to-pp %u: rank %u: %s", R->dst.pp, r, R->miss);
    if (R->rc == CS_OK) *nodes += R->k;
    return R->rc;
}

void cs_rescale_pp_free(cs_rescale_pp *R) {
    if (!R) return;
    for (uint32_t ti = 0; R->dict && ti < R->src.tp; ti++) cs_free(R->dict[ti]);
    cs_free(R->dict);
    cs_free(R->ndict);
    cs_free(R->fwd);
    cs_free(R->bwd);
    cs_free(R->opt_t);
    cs_free(R->opt_d);
    cs_free(R->nbk);
    cs_free(R->extras);
    cs_free(R);
}
