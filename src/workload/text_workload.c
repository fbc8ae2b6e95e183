/*
 * text_workload.c -- read an ASTRA-sim 1.0 / SimAI text workload into
 * per-rank graphs and communicator groups (see text_workload.h; the
 * semantics and their sources are in docs/astra-compat.md).
 *
 * Three steps: parse the header, parse the layer lines one at a time while
 * emitting one rank's nodes in issue order (a chain of computes and
 * blocking collectives, the weight-gradient collectives hanging off it),
 * then enumerate the groups and give every distinct group assignment a view
 * of the one node array.
 */
#include "workload/text_workload.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/alloc.h"
#include "core/log.h"
#include "core/opts.h"
#include "core/time.h"

#define NFIELDS 12
#define NONE_PARENT UINT32_MAX
#define MAX_AUTO_RANKS 4096u /* nranks 0: the header's all_gpus, at most this many */
#define MAX_HEADER_WORDS 4096 /* the header's words are held at once: bounded */

/* Group kinds: the pg index of a node in every rank's graph. */
enum { K_ALL = 0, K_TP = 1, K_DP = 2, K_EP = 3, K_DPEP = 4, K_N = 5 };

enum { P_DATA, P_TRANSFORMER, P_TRANSFORMER_FIB, P_MICRO, P_MODEL, P_DLRM, P_DLRM_ENHANCED };
#define MAXPAR 2 /* the chain, and a collective the loop waits for (a WAIT node's) */

static const char *const FIELD[NFIELDS] = {
    "name", "dependency", "forward compute time (ns)", "forward comm type", "forward comm size (bytes)",
    "input-grad compute time (ns)", "input-grad comm type", "input-grad comm size (bytes)",
    "weight-grad compute time (ns)", "weight-grad comm type", "weight-grad comm size (bytes)",
    "update time (ns)"};

#define COMM_TYPES "NONE, ALLREDUCE, ALLGATHER, REDUCESCATTER or ALLTOALL (each also with _EP or _DP_EP), or BROADCAST"

typedef struct tok {
    const char *s;
    size_t n;
} tok;

typedef struct parser {
    const char *name; /* file, for messages */
    const char *p, *end;
    int line;         /* of the line last returned */
    cs_error *err;
    /* header */
    int policy;
    char policy_name[40];
    uint64_t tp, ep, pp, all_gpus;
    int has_tp, has_all;
    uint32_t nranks;
    /* graph under construction (one rank) */
    cs_node *nodes;
    size_t nnodes, capn;
    uint32_t (*par)[MAXPAR]; /* per node its parents (NONE_PARENT: none), the chain's first */
    size_t capp;
    uint64_t dlrm_last_bottom;
    int has_dlrm;
    char *strings;
    size_t slen, caps;
    uint32_t chain;   /* last node of the chain, NONE_PARENT before the first */
    int used[K_N];    /* kinds some collective runs over */
    uint64_t ignored_colls, broadcasts, small_fwd;
    uint32_t l0_fwd;  /* DLRM: layer 0's forward all-to-all, NONE_PARENT before / without it */
} parser;

/* ---- lines and tokens ---------------------------------------------------------- */

/* Next line (without its newline) into *s, *n; 0 at the end of the text. */
static int next_line(parser *P, const char **s, size_t *n) {
    if (P->p >= P->end) return 0;
    const char *e = memchr(P->p, '\n', (size_t)(P->end - P->p));
    if (!e) e = P->end;
    *s = P->p;
    *n = (size_t)(e - P->p);
    P->p = e < P->end ? e + 1 : e;
    P->line++;
    return 1;
}

/* Up to max tokens of the line into t; returns how many there are in all. */
static size_t tokens(const char *s, size_t n, tok *t, size_t max) {
    size_t k = 0, i = 0;
    while (i < n) {
        while (i < n && isspace((unsigned char)s[i])) i++;
        if (i >= n) break;
        size_t b = i;
        while (i < n && !isspace((unsigned char)s[i])) i++;
        if (k < max) t[k] = (tok){s + b, i - b};
        k++;
    }
    return k;
}

static int tok_is(tok t, const char *w) { return t.n == strlen(w) && memcmp(t.s, w, t.n) == 0; }

/* A token for a message, escaped and cut. */
static const char *tok_text(tok t, char *buf, size_t bn) {
    char tmp[96];
    size_t n = t.n < sizeof tmp - 1 ? t.n : sizeof tmp - 1;
    memcpy(tmp, t.s, n);
    tmp[n] = 0;
    return cs_escape(tmp, 60, buf, bn);
}

/* Decimal digits only, at most max -> *v; 0, or -1 when it is not one. */
static int tok_u64(tok t, uint64_t max, uint64_t *v) {
    if (t.n == 0 || t.n > 20) return -1;
    uint64_t x = 0;
    for (size_t i = 0; i < t.n; i++) {
        if (t.s[i] < '0' || t.s[i] > '9') return -1;
        unsigned d = (unsigned)(t.s[i] - '0');
        if (x > (UINT64_MAX - d) / 10) return -1;
        x = x * 10 + d;
    }
    if (x > max) return -1;
    *v = x;
    return 0;
}

/* ---- header -------------------------------------------------------------------- */

static const struct {
    const char *name;
    int policy; /* -1: a policy of the format that is not modelled */
} POLICIES[] = {
    {"DATA", P_DATA},
    {"HYBRID_TRANSFORMER", P_TRANSFORMER},
    {"HYBRID_TRANSFORMER_FWD_IN_BCKWD", P_TRANSFORMER_FIB},
    {"MICRO", P_MICRO},
    {"MODEL", P_MODEL},
    {"HYBRID_DATA_MODEL", -1},
    {"HYBRID_MODEL_DATA", -1},
    {"HYBRID_DLRM", P_DLRM},
    {"HYBRID_DLRM_ENHANCED", P_DLRM_ENHANCED},
    {"HYBRID_CUSTOMIZED", -1},
    {"DISTRIBUTED_INFERENCE", -1},
};
#define NPOLICIES (sizeof POLICIES / sizeof POLICIES[0])
#define SUPPORTED "DATA, HYBRID_TRANSFORMER, HYBRID_TRANSFORMER_FWD_IN_BCKWD (pp 1, no checkpoints), MODEL, " \
                  "HYBRID_DLRM, HYBRID_DLRM_ENHANCED and MICRO"

static int policy_index(tok t) {
    for (size_t i = 0; i < NPOLICIES; i++)
        if (tok_is(t, POLICIES[i].name)) return (int)i;
    return -1;
}

/* A header key's value: the token after it, a non-negative integer. */
static int header_num(parser *P, const tok *t, size_t nt, size_t i, uint64_t min, uint64_t max, uint64_t *v) {
    char b[128];
    tok key = t[i];
    if (key.n > 1 && key.s[key.n - 1] == ':') key.n--; /* "ep:" -> "ep" in messages */
    if (i + 1 >= nt)
        return CS_ERR(P->err, CS_EFORMAT, "%s:1: %s: the line ends; expected an integer after it", P->name,
                      tok_text(key, b, sizeof b));
    if (tok_u64(t[i + 1], max, v) || *v < min) {
        char c[128];
        return CS_ERR(P->err, CS_EFORMAT, "%s:1: %s: expected an integer from %" PRIu64 " to %" PRIu64 ", got '%s'",
                      P->name, tok_text(key, b, sizeof b), min, max, tok_text(t[i + 1], c, sizeof c));
    }
    return CS_OK;
}

static int parse_header(parser *P, const char *s, size_t n) {
    char b[128];
    size_t nt = tokens(s, n, NULL, 0);
    if (nt == 0)
        return CS_ERR(P->err, CS_EFORMAT, "%s:1: parallelism policy: the line is empty; expected one of " SUPPORTED
                      " followed by its settings", P->name);
    if (nt > MAX_HEADER_WORDS)
        return CS_ERR(P->err, CS_EFORMAT, "%s:1: the header has %zu words; expected at most %d (a policy and its "
                      "settings)", P->name, nt, MAX_HEADER_WORDS);
    tok *t = cs_malloc(nt * sizeof *t);
    tokens(s, n, t, nt);
    int rc = CS_OK;
    size_t unknown = 0;
    tok first_unknown = {0};
    int pi = policy_index(t[0]);
    if (pi < 0) {
        rc = CS_ERR(P->err, CS_EFORMAT, "%s:1: parallelism policy '%s': unknown; expected one of " SUPPORTED
                    " (a text workload's first word)", P->name, tok_text(t[0], b, sizeof b));
        goto out;
    }
    snprintf(P->policy_name, sizeof P->policy_name, "%s", POLICIES[pi].name);
    if (POLICIES[pi].policy < 0) {
        rc = CS_ERR(P->err, CS_EUNSUPPORTED, "%s:1: parallelism policy %s: not modelled by clustersim; "
                    "supported: " SUPPORTED, P->name, POLICIES[pi].name);
        goto out;
    }
    P->policy = POLICIES[pi].policy;
    P->tp = P->ep = P->pp = 1;
    for (size_t i = 1; i < nt && rc == CS_OK; i++) {
        uint64_t v = 0;
        if (tok_is(t[i], "model_parallel_NPU_group:")) {
            rc = header_num(P, t, nt, i, 1, UINT32_MAX, &P->tp);
            P->has_tp = 1;
            i++;
        } else if (tok_is(t[i], "ep:")) {
            rc = header_num(P, t, nt, i, 1, UINT32_MAX, &P->ep);
            i++;
        } else if (tok_is(t[i], "pp:")) {
            rc = header_num(P, t, nt, i, 1, UINT32_MAX, &P->pp);
            i++;
        } else if (tok_is(t[i], "all_gpus:")) {
            rc = header_num(P, t, nt, i, 1, UINT32_MAX, &P->all_gpus);
            P->has_all = 1;
            i++;
        } else if (tok_is(t[i], "vpp:") || tok_is(t[i], "ga:")) {
            rc = header_num(P, t, nt, i, 1, UINT32_MAX, &v); /* read, not used with pp 1 (docs) */
            i++;
        } else if (tok_is(t[i], "DLRM_LAST_BOTTOM_LAYER:")) { /* SimAI's spelling */
            rc = header_num(P, t, nt, i, 0, UINT32_MAX, &P->dlrm_last_bottom);
            P->has_dlrm = 1;
            i++;
        } else if (i == 1 && (P->policy == P_DLRM || P->policy == P_DLRM_ENHANCED) &&
                   tok_u64(t[i], UINT32_MAX, &v) == 0) { /* ASTRA-sim 1.0's: the number after the policy */
            P->dlrm_last_bottom = v;
            P->has_dlrm = 1;
        } else if (tok_is(t[i], "pp_comm") || tok_is(t[i], "pp_comm:")) {
            rc = header_num(P, t, nt, i, 0, UINT64_MAX, &v);
            i++;
        } else if (tok_is(t[i], "checkpoints:") || tok_is(t[i], "checkpoint_initiates:")) {
            rc = header_num(P, t, nt, i, 0, UINT32_MAX, &v);
            if (rc == CS_OK && v > 0)
                rc = CS_ERR(P->err, CS_EUNSUPPORTED, "%s:1: %s %" PRIu64 ": recomputation in the backward pass "
                            "(fwd_in_bckwd) is not modelled; expected 0", P->name, tok_text(t[i], b, sizeof b), v);
            i++;
        } else if (unknown++ == 0) {
            first_unknown = t[i];
        }
    }
    if (rc) goto out;
    if (unknown)
        cs_warn("%s:1: %zu word%s such as '%s' %s not a setting clustersim knows (model_parallel_NPU_group:, ep:, "
                "pp:, vpp:, ga:, all_gpus:, checkpoints:, checkpoint_initiates:, pp_comm); ignored, as SimAI "
                "ignores them", P->name, unknown, unknown == 1 ? "" : "s", tok_text(first_unknown, b, sizeof b),
                unknown == 1 ? "is" : "are");
    if (P->pp != 1) {
        rc = CS_ERR(P->err, CS_EUNSUPPORTED, "%s:1: %s pp: %" PRIu64 ": pipeline parallelism is not modelled (SimAI's "
                    "event loop has no pipeline stages: Sys.cc builds its groups with PP 1 and pp enters only its "
                    "analytical report); supported: " SUPPORTED, P->name, P->policy_name, P->pp);
        goto out;
    }
    if (P->nranks == 0) { /* take the file's */
        if (!P->has_all || P->all_gpus > MAX_AUTO_RANKS) {
            rc = CS_ERR(P->err, CS_EINVAL, "%s:1: all_gpus: expected the NPU count (1..%u) when no network gives it",
                        P->name, MAX_AUTO_RANKS);
            goto out;
        }
        P->nranks = (uint32_t)P->all_gpus;
    }
    if (P->has_all && P->all_gpus != P->nranks) {
        rc = CS_ERR(P->err, CS_EINVAL, "%s:1: all_gpus: %" PRIu64 " NPUs, but the network has %u; expected "
                    "all_gpus: %u", P->name, P->all_gpus, P->nranks, P->nranks);
        goto out;
    }
    if (P->policy == P_TRANSFORMER || P->policy == P_TRANSFORMER_FIB) {
        if (!P->has_tp)
            rc = CS_ERR(P->err, CS_EFORMAT, "%s:1: model_parallel_NPU_group: missing; expected "
                        "'model_parallel_NPU_group: N' (the TP group size) after %s", P->name, P->policy_name);
        else if (P->nranks % P->tp)
            rc = CS_ERR(P->err, CS_EINVAL, "%s:1: model_parallel_NPU_group: %" PRIu64 " does not divide the %u "
                        "NPUs; expected a divisor of %u", P->name, P->tp, P->nranks, P->nranks);
        else if ((P->nranks / P->tp) % P->ep)
            rc = CS_ERR(P->err, CS_EINVAL, "%s:1: ep: %" PRIu64 " does not divide the DP group size %" PRIu64
                        " (%u NPUs / model_parallel_NPU_group %" PRIu64 "); expected a divisor of it",
                        P->name, P->ep, P->nranks / P->tp, P->nranks, P->tp);
    } else {
        P->tp = 1; /* DATA, MICRO, MODEL, DLRM: one group of all ranks (SimAI reads no sizes for them) */
        P->ep = 1;
        if ((P->policy == P_DLRM || P->policy == P_DLRM_ENHANCED) && !P->has_dlrm)
            rc = CS_ERR(P->err, CS_EFORMAT, "%s:1: %s: the last bottom-MLP layer is missing; expected "
                        "'%s N' (ASTRA-sim 1.0) or 'DLRM_LAST_BOTTOM_LAYER: N' (SimAI)", P->name, P->policy_name,
                        P->policy_name);
    }
out:
    cs_free(t);
    return rc;
}

/* ---- emitting one rank's nodes ------------------------------------------------ */

static uint32_t add_string(parser *P, const char *layer, uint32_t idx, const char *what) {
    char buf[200];
    int n = snprintf(buf, sizeof buf, "%s[%u] %s", layer, idx, what);
    size_t len = (size_t)(n < 0 ? 0 : n >= (int)sizeof buf ? (int)sizeof buf - 1 : n);
    CS_GROW(P->strings, P->caps, P->slen + len + 1);
    memcpy(P->strings + P->slen, buf, len);
    P->strings[P->slen + len] = 0;
    uint32_t off = (uint32_t)P->slen;
    P->slen += len + 1;
    return off;
}

/* A node after `parent` and `parent2` (NONE_PARENT: none); returns its index. */
static uint32_t add_node(parser *P, uint32_t parent, uint32_t parent2, int32_t type, const char *layer, uint32_t li,
                         const char *what) {
    CS_GROW(P->nodes, P->capn, P->nnodes + 1);
    CS_GROW(P->par, P->capp, P->nnodes + 1);
    uint32_t i = (uint32_t)P->nnodes++;
    cs_node *n = &P->nodes[i];
    memset(n, 0, sizeof *n);
    n->id = i;
    n->type = type;
    n->involved_dim = UINT32_MAX;
    n->name = add_string(P, layer, li, what);
    P->par[i][0] = parent;
    P->par[i][1] = parent2;
    return i;
}

static void comp(parser *P, uint64_t ns, const char *layer, uint32_t li, const char *what) {
    if (ns == 0) return; /* SimAI waits for nothing (Workload.cc: counter 0) */
    uint32_t i = add_node(P, P->chain, NONE_PARENT, CS_NODE_COMP, layer, li, what);
    P->nodes[i].duration_us = ns; /* in ns: CS_NF_DURATION_NS */
    P->nodes[i].flags = CS_NF_DURATION_NS;
    P->chain = i;
}

typedef struct comm {
    int type;    /* CS_COLL_*, or -1 for none */
    int kind;    /* K_* */
    uint64_t bytes;
} comm;

static uint64_t kind_size(const parser *P, int kind) {
    uint64_t dp = P->nranks / P->tp;
    switch (kind) {
    case K_TP: return P->tp;
    case K_DP: return dp;
    case K_EP: return P->ep;
    case K_DPEP: return dp / P->ep;
    default: return P->nranks;
    }
}

/* A collective; blocking ones extend the chain, the others hang off it.
 * Returns its index, NONE_PARENT when it issues nothing. */
static uint32_t coll(parser *P, comm c, int blocking, const char *layer, uint32_t li, const char *what) {
    if (c.type < 0) return NONE_PARENT;
    uint64_t size = kind_size(P, c.kind);
    if (size <= 1) return NONE_PARENT; /* a group of one rank: SimAI makes no communicator, ASTRA-sim 1.0 no dataset */
    int kind = size == P->nranks ? K_ALL : c.kind;
    uint32_t i = add_node(P, P->chain, NONE_PARENT, CS_NODE_COMM_COLL, layer, li, what);
    cs_node *n = &P->nodes[i];
    n->comm_type = c.type;
    n->comm_size = c.bytes;
    n->flags = CS_NF_HAS_COMM_TYPE | CS_NF_HAS_COMM_SIZE;
    n->pg = (uint32_t)kind;
    P->used[kind] = 1;
    if (blocking) P->chain = i;
    return i;
}

/* The loop waits here for collective x (SimAI's *_finished_blocking): a
 * METADATA node on the chain after it and x; it takes no time. */
static void wait_for(parser *P, uint32_t x, const char *layer, uint32_t li) {
    if (x == NONE_PARENT) return;
    P->chain = add_node(P, P->chain, x, CS_NODE_METADATA, layer, li, "wait");
}

static int single_group(const parser *P) { return P->policy != P_TRANSFORMER && P->policy != P_TRANSFORMER_FIB; }

/* A comm-type field -> c (kind as the phase's plain name gives it). */
static int parse_comm(parser *P, tok t, int plain_kind, int field, uint32_t li, comm *c) {
    static const struct {
        const char *name;
        int type;
    } T[] = {{"ALLREDUCE", CS_COLL_ALL_REDUCE},
             {"ALLGATHER", CS_COLL_ALL_GATHER},
             {"REDUCESCATTER", CS_COLL_REDUCE_SCATTER},
             {"ALLTOALL", CS_COLL_ALL_TO_ALL}};
    c->type = -1;
    c->kind = plain_kind;
    if (tok_is(t, "NONE")) return CS_OK;
    if (tok_is(t, "BROADCAST")) { /* SimAI decodes no collective from it (Workload.cc) */
        P->broadcasts++;
        return CS_OK;
    }
    for (size_t k = 0; k < sizeof T / sizeof T[0]; k++) {
        size_t L = strlen(T[k].name);
        if (t.n < L || memcmp(t.s, T[k].name, L) != 0) continue;
        tok rest = {t.s + L, t.n - L};
        if (rest.n == 0) c->kind = plain_kind;
        else if (tok_is(rest, "_EP")) c->kind = K_EP;
        else if (tok_is(rest, "_DP_EP")) c->kind = K_DPEP;
        else break;
        c->type = T[k].type;
        if (c->kind != plain_kind && single_group(P)) {
            char b[128];
            return CS_ERR(P->err, CS_EUNSUPPORTED, "%s:%d: layer %u: %s '%s': %s has one group, all ranks; expected "
                          "a name without _EP or _DP_EP", P->name, P->line, li, FIELD[field],
                          tok_text(t, b, sizeof b), P->policy_name);
        }
        return CS_OK;
    }
    char b[128];
    return CS_ERR(P->err, CS_EFORMAT, "%s:%d: layer %u: %s '%s': unknown; expected " COMM_TYPES, P->name, P->line,
                  li, FIELD[field], tok_text(t, b, sizeof b));
}

typedef struct layer {
    char *name;
    uint64_t t[3];   /* fwd, ig, wg compute (ns) */
    comm c[3];       /* fwd, ig, wg */
} layer;

static int parse_layer(parser *P, const char *s, size_t n, uint32_t li, uint32_t count, layer *L) {
    tok t[NFIELDS];
    char b[128];
    size_t nt = tokens(s, n, t, NFIELDS);
    if (nt < NFIELDS)
        return CS_ERR(P->err, CS_EFORMAT, "%s:%d: layer %u of %u: field %zu (%s): the line ends after %zu fields; "
                      "expected %d fields (name, dependency, then compute time, comm type, comm size for the forward "
                      "pass, the input gradient and the weight gradient, then the update time)",
                      P->name, P->line, li, count, nt + 1, FIELD[nt], nt, NFIELDS);
    if (nt > NFIELDS)
        return CS_ERR(P->err, CS_EFORMAT, "%s:%d: layer %u of %u: %zu fields; expected %d (HYBRID_CUSTOMIZED's extra "
                      "policy column is not read)", P->name, P->line, li, count, nt, NFIELDS);
    /* dependency: an integer, unused (SimAI reads it into `depen` and ignores it) */
    tok d = t[1];
    if (d.n && d.s[0] == '-') d = (tok){d.s + 1, d.n - 1};
    uint64_t v;
    if (tok_u64(d, INT32_MAX, &v))
        return CS_ERR(P->err, CS_EFORMAT, "%s:%d: layer %u: %s '%s': expected an integer (-1 in AICB's files)",
                      P->name, P->line, li, FIELD[1], tok_text(t[1], b, sizeof b));
    static const int TIMES[4] = {2, 5, 8, 11}, SIZES[3] = {4, 7, 10};
    uint64_t upd = 0;
    for (int k = 0; k < 4; k++) {
        uint64_t *dst = k < 3 ? &L->t[k] : &upd;
        if (tok_u64(t[TIMES[k]], CS_TIME_MAX_NS, dst))
            return CS_ERR(P->err, CS_EFORMAT, "%s:%d: layer %u: %s '%s': expected a whole number of ns from 0 to %llu",
                          P->name, P->line, li, FIELD[TIMES[k]], tok_text(t[TIMES[k]], b, sizeof b),
                          (unsigned long long)CS_TIME_MAX_NS);
    }
    static const int plain[3] = {K_TP, K_TP, K_DP};
    for (int k = 0; k < 3; k++) {
        int rc = parse_comm(P, t[SIZES[k] - 1], single_group(P) ? K_ALL : plain[k],
                            SIZES[k] - 1, li, &L->c[k]);
        if (rc) return rc;
        if (tok_u64(t[SIZES[k]], UINT64_MAX, &L->c[k].bytes))
            return CS_ERR(P->err, CS_EFORMAT, "%s:%d: layer %u: %s '%s': expected a whole number of bytes", P->name,
                          P->line, li, FIELD[SIZES[k]], tok_text(t[SIZES[k]], b, sizeof b));
    }
    size_t nl = t[0].n < 120 ? t[0].n : 120;
    L->name = cs_malloc(nl + 1);
    memcpy(L->name, t[0].s, nl);
    L->name[nl] = 0;
    return CS_OK;
}

static int is_dlrm(const parser *P) { return P->policy == P_DLRM || P->policy == P_DLRM_ENHANCED; }

/* The forward pass of layer i (backward passes are emitted once all are read). */
static void emit_forward(parser *P, const layer *L, uint32_t i) {
    comp(P, L->t[0], L->name, i, "fwd");
    if (P->policy == P_DATA || P->policy == P_MICRO) { /* DATA issues no forward collective */
        if (L->c[0].type >= 0) P->ignored_colls++;
        return;
    }
    if (is_dlrm(P)) { /* iterate_hybrid_parallel_DLRM: all-to-alls, not waited for; only layer 0 has a group */
        if (L->c[0].type == CS_COLL_ALL_TO_ALL && i == 0)
            P->l0_fwd = coll(P, L->c[0], 0, L->name, i, "fwd comm");
        else if (L->c[0].type >= 0)
            P->ignored_colls++;
        /* the last bottom layer waits for layer 0's all-to-all (unless it issued one itself) */
        if (i == P->dlrm_last_bottom && L->c[0].type != CS_COLL_ALL_TO_ALL) wait_for(P, P->l0_fwd, L->name, i);
        return;
    }
    comm c = L->c[0];
    /* SimAI's FWD_IN_BCKWD loop raises forward collectives below 4096 bytes to 4096 (Workload.cc) */
    if (P->policy == P_TRANSFORMER_FIB && c.type >= 0 && c.bytes > 0 && c.bytes < 4096) {
        c.bytes = 4096;
        P->small_fwd++;
    }
    coll(P, c, 1, L->name, i, "fwd comm"); /* blocking: MODEL and the transformers */
}

static void emit_backward(parser *P, const layer *L, const layer *L0, uint32_t i) {
    switch (P->policy) {
    case P_DATA: /* iterate_data_parallel: wg compute, wg comm, then ig (not layer 0) */
        comp(P, L->t[2], L->name, i, "wg");
        coll(P, L->c[2], 0, L->name, i, "wg comm");
        if (i > 0) comp(P, L->t[1], L->name, i, "ig");
        if (L->c[1].type >= 0) P->ignored_colls++;
        return;
    case P_MODEL: /* iterate_model_parallel: ig compute, ig comm (not layer 0) during the wg compute, no wg comm */
        comp(P, L->t[1], L->name, i, "ig");
        uint32_t igc = i > 0 ? coll(P, L->c[1], 0, L->name, i, "ig comm") : NONE_PARENT;
        if (i == 0 && L->c[1].type >= 0) P->ignored_colls++;
        comp(P, L->t[2], L->name, i, "wg");
        wait_for(P, igc, L->name, i);
        if (L->c[2].type >= 0) P->ignored_colls++;
        return;
    case P_DLRM:
    case P_DLRM_ENHANCED: /* iterate_hybrid_parallel_DLRM: wg compute, wg comm; ig compute (not layer 0) */
        comp(P, L->t[2], L->name, i, "wg");
        coll(P, L->c[2], 0, L->name, i, "wg comm");
        if (i == 0) return; /* (HYBRID_DLRM then waits for layer 0's ig comm: so does the end of the pass) */
        comp(P, L->t[1], L->name, i, "ig");
        if (i == P->dlrm_last_bottom + 1) /* the top MLP's input gradient is done: layer 0's all-to-all */
            coll(P, L0->c[1], 0, L0->name, 0, "ig comm");
        if (L->c[1].type >= 0) P->ignored_colls++;
        return;
    default: /* the transformers */
        comp(P, L->t[1], L->name, i, "ig");
        coll(P, L->c[1], 1, L->name, i, "ig comm");
        comp(P, L->t[2], L->name, i, "wg");
        coll(P, L->c[2], 0, L->name, i, "wg comm");
    }
}

/* ---- groups and views ------------------------------------------------------------ */

/* Group of rank r of a kind: its index among that kind's groups, and its members. */
static uint32_t group_of(const parser *P, int kind, uint32_t r, uint32_t *members) {
    uint32_t tp = (uint32_t)P->tp, ep = (uint32_t)P->ep, dp = P->nranks / tp, dpep = dp / ep;
    uint32_t g = r / tp, pos = r % tp; /* TP group index, position in it */
    switch (kind) {
    case K_TP: /* consecutive ranks */
        for (uint32_t j = 0; members && j < tp; j++) members[j] = g * tp + j;
        return g;
    case K_DP: /* the same position in every TP group (MockNcclGroup: rank = i + j * DP_nums, DP_nums = tp) */
        for (uint32_t j = 0; members && j < dp; j++) members[j] = pos + j * tp;
        return pos;
    case K_EP: /* ep consecutive TP groups, same position */
        for (uint32_t j = 0; members && j < ep; j++) members[j] = (g / ep * ep + j) * tp + pos;
        return (g / ep) * tp + pos;
    case K_DPEP: /* TP groups g mod ep, + ep, + 2 ep, ..., same position */
        for (uint32_t j = 0; members && j < dpep; j++) members[j] = (g % ep + j * ep) * tp + pos;
        return (g % ep) * tp + pos;
    default: return 0;
    }
}

static uint32_t kind_count(const parser *P, int kind) { return P->nranks / (uint32_t)kind_size(P, kind); }

/* Communicator groups: ids from 1, kind by kind; base[k] = id of kind k's group 0. */
static void make_groups(const parser *P, cs_comm_groups *G, uint32_t base[K_N]) {
    size_t total = 0;
    for (int k = K_TP; k < K_N; k++)
        if (P->used[k]) total += kind_count(P, k);
    G->path = cs_strdup(P->name);
    G->groups = cs_calloc(total ? total : 1, sizeof *G->groups);
    uint32_t id = 1;
    for (int k = K_TP; k < K_N; k++) {
        base[k] = 0;
        if (!P->used[k]) continue;
        base[k] = id;
        uint32_t sz = (uint32_t)kind_size(P, k), cnt = kind_count(P, k);
        uint32_t *seen = cs_calloc(cnt, sizeof *seen); /* group index -> filled */
        for (uint32_t r = 0; r < P->nranks; r++) {
            uint32_t gi = group_of(P, k, r, NULL);
            if (seen[gi]) continue;
            seen[gi] = 1;
            cs_comm_group *g = &G->groups[G->ngroups++];
            char nm[16];
            snprintf(nm, sizeof nm, "%u", base[k] + gi);
            g->name = cs_strdup(nm);
            g->id = base[k] + gi;
            g->nranks = sz;
            g->ranks = cs_malloc(sz * sizeof *g->ranks);
            group_of(P, k, r, g->ranks);
            g->line = 1;
            g->rank_lines = cs_malloc(sz * sizeof *g->rank_lines);
            for (uint32_t j = 0; j < sz; j++) g->rank_lines[j] = 1;
        }
        cs_free(seen);
        id += cnt;
    }
    /* sorted by id (cs_comm_groups' contract): group indices were visited out of order */
    for (size_t i = 1; i < G->ngroups; i++) {
        cs_comm_group x = G->groups[i];
        size_t j = i;
        for (; j > 0 && G->groups[j - 1].id > x.id; j--) G->groups[j] = G->groups[j - 1];
        G->groups[j] = x;
    }
}

static char **pg_names_of(const parser *P, const uint32_t base[K_N], uint32_t r) {
    char **pg = cs_calloc(K_N, sizeof *pg);
    pg[K_ALL] = cs_strdup("");
    for (int k = K_TP; k < K_N; k++) {
        char nm[16] = "";
        if (P->used[k]) snprintf(nm, sizeof nm, "%u", base[k] + group_of(P, k, r, NULL));
        pg[k] = cs_strdup(nm);
    }
    return pg;
}

/* The graph of rank 0 owns the nodes; the others are views. */
static int build_workload(parser *P, cs_workload *w, cs_comm_groups *G, cs_error *err) {
    uint32_t N = P->nranks, base[K_N];
    make_groups(P, G, base);
    /* CSR children: parents always come first, so children are in index order */
    size_t n = P->nnodes;
    uint32_t *cnt = cs_calloc(n + 1, sizeof *cnt), nch = 0;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < MAXPAR; k++)
            if (P->par[i][k] != NONE_PARENT) cnt[P->par[i][k]]++, nch++;
    cs_graph *g0 = cs_calloc(1, sizeof *g0);
    g0->source = cs_strdup(P->name);
    g0->nodes = P->nodes;
    g0->nnodes = (uint32_t)n;
    P->nodes = NULL;
    g0->children = cs_malloc((nch ? nch : 1) * sizeof *g0->children);
    g0->nchildren = nch;
    uint32_t at = 0;
    for (size_t i = 0; i < n; i++) {
        g0->nodes[i].child_begin = at;
        uint32_t np = 0;
        for (int k = 0; k < MAXPAR; k++) np += P->par[i][k] != NONE_PARENT;
        g0->nodes[i].nparents = np;
        at += cnt[i];
        cnt[i] = g0->nodes[i].child_begin; /* fill position */
    }
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < MAXPAR; k++)
            if (P->par[i][k] != NONE_PARENT) g0->children[cnt[P->par[i][k]]++] = (uint32_t)i;
    cs_free(cnt);
    g0->strings = P->strings ? P->strings : cs_calloc(1, 1);
    g0->strings_len = P->slen;
    P->strings = NULL;
    g0->npg = K_N;
    g0->pg_names = pg_names_of(P, base, 0);
    g0->refcount = 1;

    /* ranks with the same groups share a view: key = the group ids, in an open-addressing table */
    int nk = 0, kinds[K_N];
    for (int k = K_TP; k < K_N; k++)
        if (P->used[k]) kinds[nk++] = k;
    uint32_t *idx = cs_malloc(N * sizeof *idx);
    cs_graph **graphs = cs_malloc(sizeof *graphs);
    uint32_t ng = 1, capg = 1;
    graphs[0] = g0;
    size_t cap = 16;
    while (cap < 2 * (size_t)N) cap *= 2;
    uint32_t *slot_rank = cs_malloc(cap * sizeof *slot_rank); /* a rank with that key */
    for (size_t i = 0; i < cap; i++) slot_rank[i] = UINT32_MAX;
    for (uint32_t r = 0; r < N; r++) {
        uint32_t key[K_N];
        uint64_t h = 1469598103934665603ull;
        for (int j = 0; j < nk; j++) {
            key[j] = group_of(P, kinds[j], r, NULL);
            h = (h ^ key[j]) * 1099511628211ull;
        }
        size_t s = (size_t)(h & (cap - 1));
        for (;; s = (s + 1) & (cap - 1)) {
            uint32_t q = slot_rank[s];
            if (q == UINT32_MAX) break;
            int same = 1;
            for (int j = 0; j < nk && same; j++) same = group_of(P, kinds[j], q, NULL) == key[j];
            if (same) break;
        }
        if (slot_rank[s] != UINT32_MAX) {
            idx[r] = idx[slot_rank[s]];
            continue;
        }
        slot_rank[s] = r;
        if (r == 0) {
            idx[r] = 0;
            continue;
        }
        cs_graph *v = cs_calloc(1, sizeof *v);
        *v = *g0;
        v->base = g0;
        v->source = cs_strdup(P->name);
        v->pg_names = pg_names_of(P, base, r);
        if (ng == capg) {
            capg *= 2;
            graphs = cs_realloc(graphs, capg * sizeof *graphs);
        }
        graphs[ng] = v;
        idx[r] = ng++;
    }
    cs_free(slot_rank);
    int rc = cs_workload_from_graphs(graphs, ng, idx, N, w, err); /* owns the graphs */
    if (rc != CS_OK)
        for (uint32_t i = ng; i-- > 0;) cs_graph_free(graphs[i]);
    cs_free(graphs);
    cs_free(idx);
    if (rc == CS_OK) {
        cs_free(w->prefix);
        w->prefix = cs_strdup(P->name);
        w->single_file = 1;
    }
    return rc;
}

/* ---- the reader ------------------------------------------------------------------ */

int cs_text_workload_load_mem(const char *text, size_t len, const char *name, uint32_t nranks, cs_workload *w,
                              cs_comm_groups *groups, cs_text_workload_info *info, cs_error *err) {
    memset(w, 0, sizeof *w);
    memset(groups, 0, sizeof *groups);
    if (info) memset(info, 0, sizeof *info);
    parser P;
    memset(&P, 0, sizeof P);
    P.name = name;
    P.p = text;
    P.end = text + len;
    P.err = err;
    P.nranks = nranks;
    P.chain = NONE_PARENT;
    P.l0_fwd = NONE_PARENT;
    const char *s;
    size_t n;
    int rc = CS_OK;
    layer *layers = NULL; /* kept for the backward pass (names, times, comms) */
    size_t nl = 0, capl = 0;
    uint64_t count = 0;
    if (memchr(text, 0, len)) {
        const char *z = memchr(text, 0, len);
        int line = 1;
        for (const char *q = text; q < z; q++) line += *q == '\n';
        return CS_ERR(err, CS_EFORMAT, "%s:%d: a NUL byte; expected a text workload (text lines)", name, line);
    }
    if (!next_line(&P, &s, &n))
        return CS_ERR(err, CS_EFORMAT, "%s:1: parallelism policy: the file is empty; expected a text workload's "
                      "header line (one of " SUPPORTED ")", name);
    rc = parse_header(&P, s, n);
    if (rc == CS_OK) {
        tok t[2];
        if (!next_line(&P, &s, &n))
            rc = CS_ERR(err, CS_EFORMAT, "%s:2: layer count: the file ends; expected the number of layer lines",
                        name);
        else if (tokens(s, n, t, 2) != 1 || tok_u64(t[0], UINT32_MAX, &count)) {
            char b[128] = "";
            if (tokens(s, n, t, 2)) tok_text(t[0], b, sizeof b);
            rc = CS_ERR(err, CS_EFORMAT, "%s:2: layer count '%s%s': expected one whole number (the number of layer "
                        "lines that follow)", name, b, tokens(s, n, t, 2) > 1 ? " ..." : "");
        } else if (count == 0)
            rc = CS_ERR(err, CS_EFORMAT, "%s:2: layer count 0: expected at least one layer", name);
    }
    /* layer lines: forward nodes as each is read; memory grows with the lines, not the count */
    while (rc == CS_OK && nl < count) {
        if (!next_line(&P, &s, &n)) {
            rc = CS_ERR(err, CS_EFORMAT, "%s:%d: layer %zu of %" PRIu64 ": the file ends; expected %" PRIu64
                        " layer lines after line 2 (the layer count), found %zu", name, P.line + 1, nl, count, count,
                        nl);
            break;
        }
        if (tokens(s, n, NULL, 0) == 0) continue; /* blank: SimAI reads by words */
        CS_GROW(layers, capl, nl + 1);
        memset(&layers[nl], 0, sizeof layers[nl]);
        rc = parse_layer(&P, s, n, (uint32_t)nl, (uint32_t)count, &layers[nl]);
        nl++;
        if (rc == CS_OK && P.policy != P_MICRO) emit_forward(&P, &layers[nl - 1], (uint32_t)(nl - 1));
    }
    if (rc == CS_OK) {
        uint64_t extra = 0;
        int first = 0;
        while (next_line(&P, &s, &n))
            if (tokens(s, n, NULL, 0)) extra++, first = first ? first : P.line;
        if (extra)
            cs_warn("%s:%d: %" PRIu64 " line%s after the %" PRIu64 " layers of line 2 ignored", name, first, extra,
                    extra == 1 ? "" : "s", count);
        if (P.policy == P_MICRO) /* iterate_micro_benchmark: layer 0's weight-gradient collective */
            coll(&P, layers[0].c[2], 0, layers[0].name, 0, "wg comm");
        else
            for (size_t i = nl; i-- > 0;) emit_backward(&P, &layers[i], &layers[0], (uint32_t)i);
        if (P.ignored_colls)
            cs_warn("%s: %" PRIu64 " collectives ignored: SimAI's %s loop never issues them (docs/astra-compat.md)",
                    name, P.ignored_colls, P.policy_name);
        if (P.broadcasts)
            cs_warn("%s: %" PRIu64 " BROADCAST fields run no collective (SimAI decodes none from the name)", name,
                    P.broadcasts);
        if (P.nnodes == 0)
            rc = CS_ERR(err, CS_EFORMAT, "%s: the %" PRIu64 " layers have no compute time and no collective; "
                        "expected something to simulate", name, count);
    }
    if (rc == CS_OK && P.nnodes > UINT32_MAX / 2)
        rc = CS_ERR(err, CS_EUNSUPPORTED, "%s: more than 2^31 nodes", name);
    if (rc == CS_OK) {
        if (info) {
            snprintf(info->policy, sizeof info->policy, "%s", P.policy_name);
            info->tp = (uint32_t)P.tp;
            info->pp = (uint32_t)P.pp;
            info->ep = (uint32_t)P.ep;
            info->dp = P.nranks / (uint32_t)P.tp;
            info->layers = (uint32_t)nl;
            info->nodes = P.nnodes;
        }
        rc = build_workload(&P, w, groups, err);
        if (rc) cs_comm_groups_free(groups);
    }
    for (size_t i = 0; i < nl; i++) cs_free(layers[i].name);
    cs_free(layers);
    cs_free(P.nodes);
    cs_free(P.par);
    cs_free(P.strings);
    return rc;
}

int cs_text_workload_load(const char *path, uint32_t nranks, cs_workload *w, cs_comm_groups *groups,
                          cs_text_workload_info *info, cs_error *err) {
    char *buf = NULL;
    size_t len = 0;
    memset(w, 0, sizeof *w);
    memset(groups, 0, sizeof *groups);
    int rc = cs_read_file(path, &buf, &len, err);
    if (rc) return rc;
    rc = cs_text_workload_load_mem(buf, len, path, nranks, w, groups, info, err);
    cs_free(buf);
    return rc;
}

int cs_text_workload_detect(const char *path) {
    struct stat st;
    if (!path || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
    size_t pl = strlen(path);
    if (pl > 4 && strcmp(path + pl - 4, ".txt") == 0) return 1;
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    char head[64];
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    size_t i = 0;
    while (i < n && (head[i] == ' ' || head[i] == '\t')) i++;
    size_t b = i;
    while (i < n && (isupper((unsigned char)head[i]) || head[i] == '_')) i++;
    if (i == b || i >= n || !isspace((unsigned char)head[i])) return 0;
    return policy_index((tok){head + b, i - b}) >= 0;
}
