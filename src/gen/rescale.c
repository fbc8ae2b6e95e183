/*
 * rescale.c -- a trace set rewritten for another data-parallel degree (see
 * rescale.h, docs/rescale.md).
 *
 * Three steps.  (1) The source's plan is laid over its N ranks (tp, pp and
 * the placement given, dp = N / (tp pp); or inferred: steps 1 and 2 run
 * for every candidate plan, infer_plan) and each rank's nodes are
 * analysed: every pg_name classified as the rank's TP or DP group (checked
 * against the comm-group file's member lists), every comm_src/comm_dst
 * turned into a (tp_i, pp_i) position of the rank's own replica, every
 * value of a 1/dp shard (an all-gather on the DP group; the compute node
 * that waits for the DP reduce-scatters, ZeRO's optimizer step) marked.  The
 * analysis of a node is a short list of fixes (attribute, what it becomes).
 * (2) The ranks of replica 0 are kept as templates; every other rank is
 * compared with its template node by node, both renamed into the source
 * plan's canonical names at the rank's coordinates; the templates' shard
 * values are computed at the target's dp (shard_scale: exact, or refused).
 * With --to-tp (generated transformer traces) the templates are the tp_i 0
 * ranks, every other rank is compared with its stage's, and tp_rules adds
 * each template node's values at the target's tp by the rule of its kind
 * (read from its name).
 * (3) Each target rank
 * streams its template through the fixes, renamed at its own coordinates,
 * into OUT.<r>.et.tmp.<pid>; all are renamed when all are written.
 *
 * Renaming is done in place on the template's nodes: the fixed attributes
 * are saved, overwritten, the node is written or compared, and the saved
 * attributes are put back (the strings written point into a scratch buffer
 * of this file, never freed by protobuf-c).
 */
#include "gen/rescale.h"
#include "gen/rescale_pp.h"

#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/comm_group.h"
#include "core/afile.h"
#include "core/alloc.h"
#include "core/checked.h"
#include "gen/gen_int.h"
#include "system/coll_type.h"
#include "workload/et.h"
#include "workload/workload.h"

/* What a fixed attribute becomes: the rank's TP or DP group name, a peer
 * rank, or a value of a 1/dp shard (an all-gather's comm_size, the
 * optimizer's tensor_size and duration_micros) scaled by dp / dp'. */
enum { FIX_TP = 0, FIX_DP = 1, FIX_PEER = 2, FIX_SHARD = 3, FIX_SHARD_DUR = 4 };

typedef struct fix {
    uint32_t attr;    /* index into node->attr (FIX_SHARD_DUR: unused, the node's duration_micros) */
    uint8_t what;     /* FIX_* */
    uint32_t ti, pi;  /* FIX_PEER: the peer's position in the replica (written at the rank's own tp_i: analyse
                         checks that a peer has it, and --to-tp's templates are tp_i 0's) */
    uint64_t nv;      /* FIX_SHARD*: the value at the target's dp (scale_templates) */
} fix;

/* The fixes of one node (a slice of tmpl.fixes). */
typedef struct nfix {
    uint32_t first, n;
} nfix;

/* A template: replica 0's graph at one (tp_i, pp_i) position. */
typedef struct tmpl {
    ChakraProtoMsg__Node **nodes;
    nfix *nf;
    size_t n, cap;
    fix *fixes;
    size_t nfixes, capfixes;
    ChakraProtoMsg__GlobalMetadata *md; /* unpacked with protobuf-c's default allocator */
    uint32_t rank;                      /* its source rank */
    struct tpv *tv;                     /* --to-tp: the values at the target's tp, in node order (tp_rules) */
    size_t ntv, captv;
} tmpl;

/* A value of node k at the target's tp (--to-tp): an attribute, or
 * (attr UINT32_MAX) the node's duration_micros. */
typedef struct tpv {
    size_t k;
    uint32_t attr;
    uint64_t nv, old;
} tpv;

typedef struct ctx {
    const cs_rescale_opts *o;
    cs_gen_plan src, dst;
    uint32_t nsrc;
    cs_comm_groups g;
    tmpl *t; /* tp x pp, index pi * tp + ti */
    /* scratch of one renaming */
    ChakraProtoMsg__AttributeProto *saved;
    char (*names)[24];
    size_t capsaved;
    fix *scratch;
    size_t capscratch, nscratch;
    uint64_t *rs_ids;  /* this rank's reduce-scatters on the DP group (ids), so far */
    size_t nrs, caprs;
    uint64_t *post_ids; /* the optimizer step on the shard and what waits for it (ids), so far */
    size_t npost, cappost;
    uint64_t saved_dur;
    char desc[320]; /* the plan as messages print it */
    char why[320];  /* how an inferred plan was chosen ("" or "; ...") */
    cs_rescale_info *info;
    int tpc;       /* the tensor-parallel degree changes (--to-tp): one template per stage (tp_i 0) */
    int sp;        /* the source has sequence parallelism (all-gathers on TP groups) */
    int ppc;       /* the pipeline degree changes (--to-pp): stages re-emitted by rescale_pp.c */
    cs_rescale_pp *pp;
    char **pp_paths; /* the templates' files, for rescale_pp.c's messages */
    cs_error *err;
} ctx;

/* The template of the rank at c: (tp_i, pp_i) of replica 0, or (0, pp_i)
 * when tp changes (every TP rank is then checked against tp_i 0). */
static size_t tindex(const ctx *X, const uint32_t c[CS_GEN_NDIMS]) {
    return (size_t)c[CS_DIM_PP] * X->src.tp + (X->tpc ? 0 : c[CS_DIM_TP]);
}

/* ---- files ----------------------------------------------------------------- */

static int exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* Rank r's source file: PREFIX.<r>.et, else PREFIX.<r>.et.gz (as the workload loader). */
static void src_path(char *buf, size_t n, const char *prefix, uint32_t r) {
    snprintf(buf, n, "%s.%u.et", prefix, r);
    if (exists(buf)) return;
    snprintf(buf, n, "%s.%u.et.gz", prefix, r);
    if (!exists(buf)) snprintf(buf, n, "%s.%u.et", prefix, r);
}

static void tmp_path(char *buf, size_t n, const char *out, uint32_t r) {
    snprintf(buf, n, "%s.%u.et.tmp.%ld", out, r, (long)getpid());
}

static void groups_tmp_path(char *buf, size_t n, const char *out) {
    snprintf(buf, n, "%s.comm_groups.json.tmp.%ld", out, (long)getpid());
}

/* ---- attributes ------------------------------------------------------------ */

static int attr_int(const ChakraProtoMsg__AttributeProto *a, int64_t *v) {
    switch (a->value_case) {
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL: *v = a->int32_val; return 1;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL: *v = a->int64_val; return 1;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT32_VAL: *v = a->uint32_val; return 1;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL: *v = a->uint64_val > INT64_MAX ? -1 : (int64_t)a->uint64_val; return 1;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT32_VAL: *v = a->sint32_val; return 1;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT64_VAL: *v = a->sint64_val; return 1;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_FIXED32_VAL: *v = a->fixed32_val; return 1;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_FIXED64_VAL: *v = a->fixed64_val > INT64_MAX ? -1 : (int64_t)a->fixed64_val; return 1;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SFIXED32_VAL: *v = a->sfixed32_val; return 1;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SFIXED64_VAL: *v = a->sfixed64_val; return 1;
    default: return 0;
    }
}

/* v (a rank, < 2^30) into the integer member the attribute already has. */
static void attr_set_int(ChakraProtoMsg__AttributeProto *a, uint32_t v) {
    switch (a->value_case) {
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL: a->int32_val = (int32_t)v; break;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL: a->int64_val = v; break;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT32_VAL: a->uint32_val = v; break;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL: a->uint64_val = v; break;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT32_VAL: a->sint32_val = (int32_t)v; break;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT64_VAL: a->sint64_val = v; break;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_FIXED32_VAL: a->fixed32_val = v; break;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_FIXED64_VAL: a->fixed64_val = v; break;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SFIXED32_VAL: a->sfixed32_val = (int32_t)v; break;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SFIXED64_VAL: a->sfixed64_val = v; break;
    default: break;
    }
}

/* v into the unsigned or signed 64-bit member the attribute already has
 * (a shard's size is never larger than the value it came from). */
static void attr_set_u64(ChakraProtoMsg__AttributeProto *a, uint64_t v) {
    switch (a->value_case) {
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL: a->int32_val = (int32_t)v; break;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL: a->int64_val = (int64_t)v; break;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT32_VAL: a->uint32_val = (uint32_t)v; break;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL: a->uint64_val = v; break;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT32_VAL: a->sint32_val = (int32_t)v; break;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT64_VAL: a->sint64_val = (int64_t)v; break;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_FIXED32_VAL: a->fixed32_val = (uint32_t)v; break;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_FIXED64_VAL: a->fixed64_val = v; break;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SFIXED32_VAL: a->sfixed32_val = (int32_t)v; break;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SFIXED64_VAL: a->sfixed64_val = (int64_t)v; break;
    default: break;
    }
}

/* An unsigned value of the attribute (uint64 up to 2^64 - 1); 0 when it has none. */
static int attr_u64(const ChakraProtoMsg__AttributeProto *a, uint64_t *v) {
    if (a->value_case == CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL) { *v = a->uint64_val; return 1; }
    if (a->value_case == CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_FIXED64_VAL) { *v = a->fixed64_val; return 1; }
    int64_t s;
    if (!attr_int(a, &s) || s < 0) return 0;
    *v = (uint64_t)s;
    return 1;
}

/* ---- the source's structure -------------------------------------------------- */

static void coords(const cs_gen_plan *p, uint32_t r, uint32_t c[CS_GEN_NDIMS]) { cs_gen_rank_coords(p, r, c); }

/* Is g the TP (kind PG_TP) or DP group of the rank at c, members in coordinate order? */
static int is_group(const ctx *X, const cs_comm_group *g, int kind, const uint32_t c[CS_GEN_NDIMS]) {
    uint32_t n = kind == PG_TP ? X->src.tp : X->src.dp, k[CS_GEN_NDIMS];
    if (g->nranks != n) return 0;
    memcpy(k, c, sizeof k);
    for (uint32_t i = 0; i < n; i++) {
        k[kind == PG_TP ? CS_DIM_TP : CS_DIM_DP] = i;
        if (g->ranks[i] != cs_gen_rank_of(&X->src, k)) return 0;
    }
    return 1;
}

/* "[0, 2, 4]" (at most a few members, then "..."). */
static void fmt_members(char *buf, size_t n, const uint32_t *r, uint32_t nr) {
    size_t len = (size_t)snprintf(buf, n, "[");
    for (uint32_t i = 0; i < nr && len < n; i++) {
        if (i == 6 && nr > 8) {
            len += (size_t)snprintf(buf + len, n - len, ", ..., %u", r[nr - 1]);
            break;
        }
        len += (size_t)snprintf(buf + len, n - len, "%s%u", i ? ", " : "", r[i]);
    }
    if (len < n) snprintf(buf + len, n - len, "]");
}

/* The ranks of the TP or DP group of c in the source plan. */
static void group_members(const ctx *X, int kind, const uint32_t c[CS_GEN_NDIMS], char *buf, size_t n) {
    uint32_t m[8], k[CS_GEN_NDIMS], nr = kind == PG_TP ? X->src.tp : X->src.dp, shown = nr < 8 ? nr : 8;
    memcpy(k, c, sizeof k);
    for (uint32_t i = 0; i < shown; i++) {
        k[kind == PG_TP ? CS_DIM_TP : CS_DIM_DP] = i + (i == 7 && nr > 8 ? nr - 8 : 0);
        m[i] = cs_gen_rank_of(&X->src, k);
    }
    if (nr > 8) { /* first six, "...", the last */
        m[6] = m[7];
        fmt_members(buf, n, m, 7);
        return;
    }
    fmt_members(buf, n, m, shown);
}

static void push_fix(ctx *X, fix f) {
    if (X->nscratch == X->capscratch) {
        X->capscratch = X->capscratch ? 2 * X->capscratch : 8;
        X->scratch = cs_realloc(X->scratch, X->capscratch * sizeof *X->scratch);
    }
    X->scratch[X->nscratch++] = f;
}

/* The fixes of node nd of source rank r (at c) into X->scratch; errors name
 * path and node. */
static int analyse(ctx *X, const char *path, uint32_t r, const uint32_t c[CS_GEN_NDIMS], const ChakraProtoMsg__Node *nd) {
    X->nscratch = 0;
    int is_coll = nd->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE, host = 0;
    int64_t ct = -1;
    int own = 0, has_peer = 0, has_pg = 0, dp_coll = 0;
    for (size_t i = 0; i < nd->n_attr; i++) {
        const ChakraProtoMsg__AttributeProto *a = nd->attr[i];
        if (!a->name) continue;
        if (strcmp(a->name, "is_cpu_op") == 0) {
            int64_t v = 0;
            if (a->value_case == CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL) v = a->bool_val;
            else attr_int(a, &v);
            host = v != 0;
        }
        if (strcmp(a->name, "comm_type") == 0) attr_int(a, &ct);
    }
    for (size_t i = 0; i < nd->n_attr; i++) {
        const ChakraProtoMsg__AttributeProto *a = nd->attr[i];
        if (!a->name) continue;
        int pg = strcmp(a->name, "pg_name") == 0;
        int peer = strcmp(a->name, "comm_src") == 0 || strcmp(a->name, "comm_dst") == 0;
        if (pg) {
            if (a->value_case != CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL)
                return CS_ERR(X->err, CS_EINVAL, "%s: node %" PRIu64 " (%s): attribute pg_name: expected a string_val",
                              path, nd->id, nd->name ? nd->name : "");
            const cs_comm_group *g = NULL;
            cs_error e2;
            cs_error_clear(&e2);
            if (cs_comm_groups_resolve(&X->g, a->string_val, &g, &e2) != CS_OK)
                return CS_ERR(X->err, CS_EINVAL, "%s: node %" PRIu64 " (%s): %s", path, nd->id,
                              nd->name ? nd->name : "", e2.msg);
            int kind = -1;
            if (!g) { /* all ranks: the DP group only when it is all ranks */
                if (X->src.tp * X->src.pp != 1)
                    return CS_ERR(X->err, CS_EINVAL,
                                  "%s: node %" PRIu64 " (%s): pg_name \"%s\" means all %u ranks, which is neither "
                                  "rank %u's tensor-parallel nor its data-parallel group under %s; expected a "
                                  "--comm-group-configuration naming the groups",
                                  path, nd->id, nd->name ? nd->name : "", a->string_val, X->nsrc, r, X->desc);
            } else if (is_group(X, g, PG_TP, c)) {
                kind = FIX_TP;
            } else if (is_group(X, g, PG_DP, c)) {
                kind = FIX_DP;
            } else {
                char m[96], tpm[96], dpm[96];
                fmt_members(m, sizeof m, g->ranks, g->nranks);
                group_members(X, PG_TP, c, tpm, sizeof tpm);
                group_members(X, PG_DP, c, dpm, sizeof dpm);
                return CS_ERR(X->err, CS_EINVAL,
                              "%s: node %" PRIu64 " (%s): pg_name \"%s\" is group %s %s of %s, which is neither rank "
                              "%u's tensor-parallel group %s nor its data-parallel group %s under %s; expected the "
                              "captured plan's --tp, --pp and --placement",
                              path, nd->id, nd->name ? nd->name : "", a->string_val, g->name, m, X->g.path, r, tpm,
                              dpm, X->desc);
            }
            if (kind == FIX_DP || (!g && kind < 0)) dp_coll = 1;
            has_pg = 1;
            if (kind >= 0) push_fix(X, (fix){(uint32_t)i, (uint8_t)kind, 0, 0, 0});
        } else if (peer) {
            int64_t v;
            if (!attr_int(a, &v))
                return CS_ERR(X->err, CS_EINVAL, "%s: node %" PRIu64 " (%s): attribute %s: expected an integer rank",
                              path, nd->id, nd->name ? nd->name : "", a->name);
            if (v < 0 || v >= (int64_t)X->nsrc)
                return CS_ERR(X->err, CS_EINVAL,
                              "%s: node %" PRIu64 " (%s): attribute %s: rank %" PRId64 ", expected 0 to %u (the trace "
                              "set has %u ranks)",
                              path, nd->id, nd->name ? nd->name : "", a->name, v, X->nsrc - 1, X->nsrc);
            uint32_t pc[CS_GEN_NDIMS];
            coords(&X->src, (uint32_t)v, pc);
            if ((uint32_t)v == r) own = 1;
            else has_peer = 1;
            if (pc[CS_DIM_DP] != c[CS_DIM_DP])
                return CS_ERR(X->err, CS_EINVAL,
                              "%s: node %" PRIu64 " (%s): %s is rank %" PRId64 " (dp_i %u), in another data-parallel "
                              "replica than rank %u (dp_i %u) under %s: replicas must not exchange messages; "
                              "expected the captured plan's --tp, --pp and --placement",
                              path, nd->id, nd->name ? nd->name : "", a->name, v, pc[CS_DIM_DP], r, c[CS_DIM_DP],
                              X->desc);
            if (pc[CS_DIM_TP] != c[CS_DIM_TP])
                return CS_ERR(X->err, CS_EINVAL,
                              "%s: node %" PRIu64 " (%s): %s is rank %" PRId64 " (tp_i %u), outside rank %u's pipeline "
                              "(tp_i %u) under %s: pipeline messages go between the same tp_i of other stages; "
                              "expected the captured plan's --tp, --pp and --placement",
                              path, nd->id, nd->name ? nd->name : "", a->name, v, pc[CS_DIM_TP], r, c[CS_DIM_TP],
                              X->desc);
            push_fix(X, (fix){(uint32_t)i, FIX_PEER, pc[CS_DIM_TP], pc[CS_DIM_PP], 0});
        }
    }
    if (is_coll && !host && !has_pg) { /* no pg_name: all ranks */
        if (X->src.tp * X->src.pp != 1)
            return CS_ERR(X->err, CS_EINVAL,
                          "%s: node %" PRIu64 " (%s): a collective without pg_name runs on all %u ranks, which is "
                          "neither rank %u's tensor-parallel nor its data-parallel group under %s; expected a pg_name "
                          "and a --comm-group-configuration naming the groups",
                          path, nd->id, nd->name ? nd->name : "", X->nsrc, r, X->desc);
        dp_coll = 1;
    }
    /* the data-parallel group: all-reduces, broadcasts and barriers move the whole buffer at every dp;
     * ZeRO/FSDP's all-gathers move a 1/dp shard (scaled), its reduce-scatters the whole bucket (as is) */
    int shard_ag = 0;
    if (dp_coll && is_coll && !host && ct != CS_COLL_ALL_REDUCE && ct != CS_COLL_BROADCAST && ct != CS_COLL_BARRIER &&
        ct != CS_COLL_ALL_GATHER && ct != CS_COLL_REDUCE_SCATTER) {
        const char *tn = ct >= 0 ? cs_et_comm_type_name((int)ct) : NULL, *why;
        if (ct == CS_COLL_ALL_TO_ALL)
            why = "an all-to-all over the data-parallel ranks exchanges pieces that depend on dp (e.g. DLRM's "
                  "embedding tables sharded over dp: the sizes and the lookups' compute both change)";
        else
            why = "no exact rule gives its size at another dp";
        return CS_ERR(X->err, CS_EUNSUPPORTED,
                      "%s: node %" PRIu64 " (%s): %s on the data-parallel group is not rescaled: %s; only "
                      "all-reduces, broadcasts, barriers and ZeRO/FSDP's all-gathers and reduce-scatters are "
                      "(docs/rescale.md)",
                      path, nd->id, nd->name ? nd->name : "", tn ? tn : "a collective of unknown type", why);
    }
    if (dp_coll && is_coll && !host && ct == CS_COLL_ALL_GATHER) shard_ag = 1;
    /* what works on the 1/dp shard: the node that waits for the gradients' reduce-scatters (the optimizer) */
    int after_rs = 0;
    for (size_t i = 0; i < nd->n_data_deps && !after_rs; i++)
        for (size_t k = 0; k < X->nrs && !after_rs; k++) after_rs = nd->data_deps[i] == X->rs_ids[k];
    if (after_rs && (nd->type == CHAKRA_PROTO_MSG__NODE_TYPE__MEM_LOAD_NODE ||
                     nd->type == CHAKRA_PROTO_MSG__NODE_TYPE__MEM_STORE_NODE))
        return CS_ERR(X->err, CS_EUNSUPPORTED,
                      "%s: node %" PRIu64 " (%s): a memory access after the data-parallel reduce-scatters: an "
                      "offloaded optimizer state of a 1/dp shard, not rescaled (docs/rescale.md)",
                      path, nd->id, nd->name ? nd->name : "");
    int shard_comp = after_rs && nd->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE;
    /* ZeRO's optimizer step ends the step: after it only the updated shard's all-gather */
    uint64_t after_opt = 0;
    for (size_t i = 0; i < nd->n_data_deps && !after_opt; i++)
        for (size_t k = 0; k < X->npost && !after_opt; k++)
            if (nd->data_deps[i] == X->post_ids[k]) after_opt = nd->data_deps[i];
    if (after_opt && (nd->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE || shard_comp))
        return CS_ERR(X->err, CS_EUNSUPPORTED,
                      "%s: node %" PRIu64 " (%s) computes after node %" PRIu64 ", which waits for a reduce-scatter "
                      "on the data-parallel group: that is no optimizer step on a 1/dp shard (ZeRO's ends the step), "
                      "so its work at another dp is unknown; not rescaled (docs/rescale.md)",
                      path, nd->id, nd->name ? nd->name : "", after_opt);
    for (size_t i = 0; (shard_ag || shard_comp) && i < nd->n_attr; i++) {
        const ChakraProtoMsg__AttributeProto *a = nd->attr[i];
        if (!a->name || strcmp(a->name, shard_ag ? "comm_size" : "tensor_size") != 0) continue;
        uint64_t v;
        if (!attr_u64(a, &v))
            return CS_ERR(X->err, CS_EINVAL, "%s: node %" PRIu64 " (%s): attribute %s: expected an integer >= 0",
                          path, nd->id, nd->name ? nd->name : "", a->name);
        push_fix(X, (fix){(uint32_t)i, FIX_SHARD, 0, 0, v});
    }
    if (shard_comp && nd->duration_micros) push_fix(X, (fix){0, FIX_SHARD_DUR, 0, 0, nd->duration_micros});
    if (shard_comp || after_opt) {
        if (X->npost == X->cappost) {
            X->cappost = X->cappost ? 2 * X->cappost : 16;
            X->post_ids = cs_realloc(X->post_ids, X->cappost * sizeof *X->post_ids);
        }
        X->post_ids[X->npost++] = nd->id;
    }
    if (dp_coll && is_coll && !host && ct == CS_COLL_REDUCE_SCATTER) {
        if (X->nrs == X->caprs) {
            X->caprs = X->caprs ? 2 * X->caprs : 16;
            X->rs_ids = cs_realloc(X->rs_ids, X->caprs * sizeof *X->rs_ids);
        }
        X->rs_ids[X->nrs++] = nd->id;
    }
    if ((nd->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE || nd->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE) &&
        has_peer && !own)
        return CS_ERR(X->err, CS_EINVAL,
                      "%s: node %" PRIu64 " (%s): neither comm_src nor comm_dst is rank %u, whose trace this is",
                      path, nd->id, nd->name ? nd->name : "", r);
    return CS_OK;
}

/* ---- renaming ------------------------------------------------------------------ */

/* The fixes f[0..n) applied to nd for rank c of plan P (generator numbering);
 * the old attributes saved in X->saved (put back by unapply). */
static void apply(ctx *X, ChakraProtoMsg__Node *nd, const fix *f, uint32_t n, const cs_gen_plan *P,
                  const uint32_t c[CS_GEN_NDIMS]) {
    int scale = P == &X->dst; /* shards change with dp only in the target */
    X->saved_dur = nd->duration_micros;
    if (n > X->capsaved) {
        X->capsaved = n;
        X->saved = cs_realloc(X->saved, n * sizeof *X->saved);
        X->names = cs_realloc(X->names, n * sizeof *X->names);
    }
    for (uint32_t i = 0; i < n; i++) {
        if (f[i].what == FIX_SHARD_DUR) {
            if (scale) nd->duration_micros = f[i].nv;
            continue;
        }
        ChakraProtoMsg__AttributeProto *a = nd->attr[f[i].attr];
        X->saved[i] = *a;
        if (f[i].what == FIX_SHARD) {
            if (scale) attr_set_u64(a, f[i].nv);
        } else if (f[i].what == FIX_PEER) {
            uint32_t k[CS_GEN_NDIMS];
            memcpy(k, c, sizeof k);
            k[CS_DIM_TP] = c[CS_DIM_TP]; /* analyse: a peer has the rank's own tp_i */
            k[CS_DIM_PP] = f[i].pi;
            attr_set_int(a, cs_gen_rank_of(P, k));
        } else {
            snprintf(X->names[i], sizeof X->names[i], "%u", cs_gen_group_of(P, f[i].what == FIX_TP ? PG_TP : PG_DP, c, NULL));
            a->string_val = X->names[i];
        }
    }
}

static void unapply(ctx *X, ChakraProtoMsg__Node *nd, const fix *f, uint32_t n) {
    for (uint32_t i = n; i-- > 0;)
        if (f[i].what != FIX_SHARD_DUR) *nd->attr[f[i].attr] = X->saved[i];
    nd->duration_micros = X->saved_dur;
}

/* v = round(x), x a value of a 1/dp shard; its value at dp' is round(x dp / dp').  x lies in
 * [v - 1/2, v + 1/2), so the new value is known when that whole interval, scaled, rounds to one
 * integer (round half up, as llround and floor(x + 1/2) for x >= 0); else 0 with *lo, *hi the two
 * candidates.  Durations are at least 1 us (the generator's floor). */
static int shard_scale(uint64_t v, uint32_t dp, uint32_t dpn, int dur, uint64_t *out, uint64_t *lo, uint64_t *hi) {
    *lo = *hi = 0;
    if (v == 0) {
        *out = 0;
        return 1;
    }
    if (v > (UINT64_C(1) << 62)) return 0; /* beyond any size a trace holds; not scaled */
    uint64_t a, b, D = 2 * (uint64_t)dpn;
    /* floor(((2v -/+ 1) dp + dpn (- 1)) / (2 dpn)), as q dp + floor((r dp + c) / D) */
    uint64_t A1 = 2 * v - 1, A2 = 2 * v + 1, qa, qb;
    if (cs_mul_u64(A1 / D, dp, &qa) || cs_mul_u64(A2 / D, dp, &qb)) return 0;
    a = qa + (A1 % D * dp + dpn) / D;
    b = qb + (A2 % D * dp + dpn - 1) / D; /* the rounding of values just below (v + 1/2) dp / dp' */
    if (dur && a < 1) a = 1;
    if (dur && b < 1) b = 1;
    *lo = a;
    *hi = b;
    if (a != b) return 0;
    *out = a;
    return 1;
}

static void tp_set(ChakraProtoMsg__Node *nd, const tpv *v, int on);

/* ---- templates and the replica check ----------------------------------------------- */

static void tmpl_add(ctx *X, tmpl *t, ChakraProtoMsg__Node *nd) {
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->nodes = cs_realloc(t->nodes, t->cap * sizeof *t->nodes);
        t->nf = cs_realloc(t->nf, t->cap * sizeof *t->nf);
    }
    if (t->nfixes + X->nscratch > t->capfixes) {
        t->capfixes = (t->nfixes + X->nscratch) * 2 + 16;
        t->fixes = cs_realloc(t->fixes, t->capfixes * sizeof *t->fixes);
    }
    if (X->nscratch) memcpy(t->fixes + t->nfixes, X->scratch, X->nscratch * sizeof *X->scratch);
    t->nf[t->n] = (nfix){(uint32_t)t->nfixes, (uint32_t)X->nscratch};
    t->nfixes += X->nscratch;
    t->nodes[t->n++] = nd;
}

static void tmpl_free(tmpl *t) {
    for (size_t i = 0; i < t->n; i++) cs_et_node_free(t->nodes[i]);
    cs_free(t->nodes);
    cs_free(t->nf);
    cs_free(t->fixes);
    cs_free(t->tv);
    if (t->md) chakra_proto_msg__global_metadata__free_unpacked(t->md, NULL);
}

/* A copy of md (packed and unpacked again). */
static ChakraProtoMsg__GlobalMetadata *md_copy(const ChakraProtoMsg__GlobalMetadata *md) {
    size_t len = chakra_proto_msg__global_metadata__get_packed_size(md);
    uint8_t *buf = cs_malloc(len + 1);
    chakra_proto_msg__global_metadata__pack(md, buf);
    ChakraProtoMsg__GlobalMetadata *c = chakra_proto_msg__global_metadata__unpack(NULL, len, buf);
    cs_free(buf);
    return c; /* NULL: protobuf-c could not allocate */
}

/* "key: A, expected B" for the first difference between two JSON nodes. */
static void json_diff(json_t *got, json_t *want, char *buf, size_t n) {
    const char *key;
    json_t *v;
    json_object_foreach(want, key, v) {
        json_t *g = json_object_get(got, key);
        if (g && json_equal(g, v)) continue;
        if (g && strcmp(key, "attr") == 0 && json_is_array(g) && json_array_size(g) == json_array_size(v)) {
            for (size_t i = 0; i < json_array_size(v); i++) {
                json_t *ga = json_array_get(g, i), *wa = json_array_get(v, i);
                if (json_equal(ga, wa)) continue;
                char *gs = json_dumps(ga, JSON_COMPACT), *ws = json_dumps(wa, JSON_COMPACT);
                snprintf(buf, n, "attribute %zu: %.160s, expected %.160s", i, gs ? gs : "?", ws ? ws : "?");
                cs_json_free(gs);
                cs_json_free(ws);
                return;
            }
        }
        char *gs = g ? json_dumps(g, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
        char *ws = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        snprintf(buf, n, "%s: %.160s, expected %.160s", key, gs ? gs : "(absent)", ws ? ws : "?");
        cs_json_free(gs);
        cs_json_free(ws);
        return;
    }
    json_object_foreach(got, key, v) {
        if (json_object_get(want, key)) continue;
        char *gs = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        snprintf(buf, n, "%s: %.160s, expected it absent", key, gs ? gs : "?");
        cs_json_free(gs);
        return;
    }
    snprintf(buf, n, "(no difference found)");
}

/* Replica 0's collectives per kind of group (what the log prints, so that
 * a placement that swaps TP and DP -- structurally alike -- shows). */
static void count_colls(ctx *X, const ChakraProtoMsg__Node *nd) {
    if (nd->type != CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE) return;
    int host = 0;
    uint64_t size = 0;
    if (cs_et_attr_get_bool(nd, "is_cpu_op", &host, NULL) < 0 || host) return;
    if (cs_et_attr_get_uint(nd, "comm_size", &size, NULL) < 0) size = 0;
    int kind = FIX_DP; /* all ranks (tp = pp = 1) is the DP group */
    for (size_t i = 0; i < X->nscratch; i++)
        if (X->scratch[i].what == FIX_TP || X->scratch[i].what == FIX_DP) kind = X->scratch[i].what;
    X->info->colls[kind]++;
    X->info->coll_bytes[kind] += (double)size;
}

/* Read source rank r: a template (dp_i 0) is kept; any other rank is
 * compared node by node with its template. */
static int read_rank(ctx *X, uint32_t r) {
    char path[4096];
    src_path(path, sizeof path, X->o->prefix, r);
    uint32_t c[CS_GEN_NDIMS];
    coords(&X->src, r, c);
    tmpl *t = &X->t[tindex(X, c)];
    int is_t = c[CS_DIM_DP] == 0 && (!X->tpc || c[CS_DIM_TP] == 0);
    cs_et_reader *rd = NULL;
    X->nrs = X->npost = 0;
    int rc = cs_et_reader_open(path, &rd, X->err);
    if (rc) return rc;
    if (is_t) {
        t->md = md_copy(cs_et_reader_metadata(rd));
        t->rank = r;
        if (!t->md) rc = CS_ERR(X->err, CS_ENOMEM, "%s: out of memory copying the trace's metadata", path);
    } else {
        json_t *a = cs_et_metadata_to_json(cs_et_reader_metadata(rd)), *b = cs_et_metadata_to_json(t->md);
        if (!json_equal(a, b)) {
            char how[400];
            json_diff(a, b, how, sizeof how);
            rc = CS_ERR(X->err, CS_EINVAL,
                        "%s: rank %u is not a data-parallel replica of rank %u under %s: its metadata differs: %s",
                        path, r, t->rank, X->desc, how);
        }
        json_decref(a);
        json_decref(b);
    }
    size_t k = 0;
    uint64_t delta = 0; /* this rank's node ids minus its template's (mod 2^64) */
    char tpath[4096];
    src_path(tpath, sizeof tpath, X->o->prefix, t->rank);
    while (rc == CS_OK) {
        ChakraProtoMsg__Node *nd = NULL;
        int got = cs_et_reader_next(rd, &nd, X->err);
        if (got < 0) {
            rc = got;
            break;
        }
        if (got == 0) break;
        rc = analyse(X, path, r, c, nd);
        if (rc == CS_OK && is_t) {
            count_colls(X, nd);
            tmpl_add(X, t, nd);
            nd = NULL;
        } else if (rc == CS_OK) {
            if (k >= t->n) {
                rc = CS_ERR(X->err, CS_EINVAL,
                            "%s: rank %u is not a data-parallel replica of rank %u (%s) under %s: it has more than "
                            "the %zu nodes of rank %u (node %" PRIu64 " is extra)",
                            path, r, t->rank, tpath, X->desc, t->n, t->rank, nd->id);
            } else { /* both in the source's canonical names at this rank's coordinates */
                ChakraProtoMsg__Node *tn = t->nodes[k];
                /* node ids may be offset per rank (Chakra's converter numbers the nodes of all ranks
                 * from one counter): the first node's offset is taken off every id and dependency */
                if (k == 0) delta = nd->id - tn->id;
                nd->id -= delta;
                for (size_t i = 0; i < nd->n_data_deps; i++) nd->data_deps[i] -= delta;
                for (size_t i = 0; i < nd->n_ctrl_deps; i++) nd->ctrl_deps[i] -= delta;
                uint32_t nmine = (uint32_t)X->nscratch;
                fix *mine = cs_malloc((nmine + 1) * sizeof *mine);
                if (nmine) memcpy(mine, X->scratch, nmine * sizeof *mine);
                apply(X, nd, mine, nmine, &X->src, c);
                json_t *a = cs_et_node_to_json(nd);
                unapply(X, nd, mine, nmine);
                apply(X, tn, t->fixes + t->nf[k].first, t->nf[k].n, &X->src, c);
                json_t *b = cs_et_node_to_json(tn);
                unapply(X, tn, t->fixes + t->nf[k].first, t->nf[k].n);
                int fixes_differ = nmine != t->nf[k].n;
                for (uint32_t i = 0; !fixes_differ && i < nmine; i++)
                    fixes_differ = mine[i].attr != t->fixes[t->nf[k].first + i].attr ||
                                   mine[i].what != t->fixes[t->nf[k].first + i].what;
                if (!json_equal(a, b) || fixes_differ) {
                    char how[400];
                    if (!json_equal(a, b)) json_diff(a, b, how, sizeof how);
                    else snprintf(how, sizeof how, "its pg_name names the other kind of group (TP vs DP)");
                    rc = CS_ERR(X->err, CS_EINVAL,
                                "%s: rank %u (tp_i %u, dp_i %u, pp_i %u) is not a %s replica of rank %u "
                                "(%s) under %s: node %" PRIu64 " (%s; number %zu in file order): %s (groups and peers renamed to "
                                "the rank's own%s)",
                                path, r, c[CS_DIM_TP], c[CS_DIM_DP], c[CS_DIM_PP],
                                c[CS_DIM_DP] ? "data-parallel" : "tensor-parallel", t->rank, tpath, X->desc,
                                nd->id + delta, nd->name ? nd->name : "", k + 1, how,
                                delta ? ", ids shifted to the template's" : "");
                }
                json_decref(a);
                json_decref(b);
                cs_free(mine);
            }
            k++;
        }
        if (nd) cs_et_node_free(nd);
    }
    if (rc == CS_OK && !is_t && k < t->n)
        rc = CS_ERR(X->err, CS_EINVAL,
                    "%s: rank %u is not a data-parallel replica of rank %u (%s) under %s: it has %zu nodes, rank %u "
                    "has %zu",
                    path, r, t->rank, tpath, X->desc, k, t->rank, t->n);
    cs_et_reader_close(rd);
    return rc;
}

/* ---- writing --------------------------------------------------------------------- */

static void remove_tmps(const ctx *X, uint32_t upto, int groups) {
    char path[4096];
    for (uint32_t r = 0; r < upto; r++) {
        tmp_path(path, sizeof path, X->o->out, r);
        remove(path);
    }
    if (groups) {
        groups_tmp_path(path, sizeof path, X->o->out);
        remove(path);
    }
}

static int write_rank(ctx *X, uint32_t r, uint64_t *nodes) {
    if (X->ppc) { /* --to-pp: the stage re-emitted (rescale_pp.c) */
        char path[4096];
        tmp_path(path, sizeof path, X->o->out, r);
        cs_et_writer *w = NULL;
        int rc = cs_et_writer_open(path, 0, X->t[0].md, &w, X->err);
        if (rc == CS_OK) rc = cs_rescale_pp_write(X->pp, r, w, nodes, X->err);
        int rc2 = cs_et_writer_close(w, rc ? NULL : X->err);
        return rc ? rc : rc2;
    }
    uint32_t c[CS_GEN_NDIMS];
    coords(&X->dst, r, c);
    tmpl *t = &X->t[tindex(X, c)];
    char path[4096];
    tmp_path(path, sizeof path, X->o->out, r);
    cs_et_writer *w = NULL;
    int rc = cs_et_writer_open(path, 0, t->md, &w, X->err);
    size_t v = 0;
    for (size_t k = 0; rc == CS_OK && k < t->n; k++) {
        const fix *f = t->fixes + t->nf[k].first;
        apply(X, t->nodes[k], f, t->nf[k].n, &X->dst, c);
        size_t v0 = v;
        for (; v < t->ntv && t->tv[v].k == k; v++) tp_set(t->nodes[k], &t->tv[v], 1);
        rc = cs_et_writer_write(w, t->nodes[k], X->err);
        for (size_t i = v0; i < v; i++) tp_set(t->nodes[k], &t->tv[i], 0);
        unapply(X, t->nodes[k], f, t->nf[k].n);
    }
    int rc2 = cs_et_writer_close(w, rc ? NULL : X->err);
    if (rc == CS_OK) *nodes += t->n;
    return rc ? rc : rc2;
}

/* ---- the plan ------------------------------------------------------------------ */

/* What does not depend on the source's plan: the target's dp, the source's
 * rank count, the comm groups. */
static int setup_common(ctx *X) {
    const cs_rescale_opts *o = X->o;
    cs_error *err = X->err;
    if (!o->to_dp)
        return CS_ERR(err, CS_EINVAL, "--to-dp: expected the target's data-parallel degree, an integer >= 2");
    if (o->to_dp < 2 && !o->to_pp) /* --to-pp: checked against the source's dp (setup_plan) */
        return CS_ERR(err, CS_EUNSUPPORTED,
                      "--to-dp %u: expected at least 2 (at dp 1 there is no data-parallel group: a rescaled trace "
                      "would keep its gradient all-reduces on a group of one rank)", o->to_dp);
    char path[4096];
    struct stat st;
    if (stat(o->prefix, &st) == 0 && S_ISREG(st.st_mode))
        return CS_ERR(err, CS_EINVAL,
                      "--workload-configuration=%s: one trace file for every rank has no per-rank structure "
                      "to rescale; it runs unchanged on any number of ranks (expected a prefix of "
                      "PREFIX.<rank>.et files)", o->prefix);
    uint32_t n = 0;
    for (; n < CS_GEN_MAX_RANKS; n++) { /* files 0, 1, ... up to the first missing */
        src_path(path, sizeof path, o->prefix, n);
        if (!exists(path)) break;
    }
    if (n == 0)
        return CS_ERR(err, CS_EIO, "--workload-configuration=%s: %s.0.et (or .et.gz) not found", o->prefix, o->prefix);
    X->nsrc = n;
    int rc = cs_comm_groups_load(o->groups ? o->groups : "empty", &X->g, err);
    if (rc == CS_OK) rc = cs_comm_groups_validate(&X->g, n, err);
    return rc;
}

/* The source's plan (tp, pp, placement; dp from the rank count) and the target's. */
static int setup_plan(ctx *X, uint32_t tp, uint32_t pp, const char *placement, cs_rescale_info *info) {
    const cs_rescale_opts *o = X->o;
    cs_error *err = X->err;
    uint32_t n = X->nsrc;
    cs_gen_plan_defaults(&X->src);
    X->src.tp = tp;
    X->src.pp = pp;
    int rc = cs_gen_placement_parse(placement, &X->src, err);
    if (rc) return rc;
    uint64_t tpp = (uint64_t)tp * pp;
    if (tpp > n || n % tpp)
        return CS_ERR(err, CS_EINVAL,
                      "--tp %u --pp %u: the trace set %s has %u ranks (%s.0.et .. %s.%u.et), not a multiple of "
                      "tp x pp = %" PRIu64, tp, pp, o->prefix, n, o->prefix, o->prefix, n - 1, tpp);
    X->src.dp = n / (uint32_t)tpp;
    X->ppc = o->to_pp && o->to_pp != pp;
    if (X->ppc && o->to_tp && o->to_tp != tp)
        return CS_ERR(err, CS_EUNSUPPORTED,
                      "--to-pp %u with --to-tp %u: one of the two at a time (re-form the pipeline, then the tensor "
                      "parallelism of its output)", o->to_pp, o->to_tp);
    if (X->ppc && (X->src.dp >= 2) != (o->to_dp >= 2))
        return CS_ERR(err, CS_EUNSUPPORTED,
                      "--to-pp %u --to-dp %u: the source has dp %u; re-forming the pipeline keeps dp 1 at dp 1 and "
                      "dp >= 2 at dp >= 2 (at dp 1 the generator emits no gradient reductions)",
                      o->to_pp, o->to_dp, X->src.dp);
    if (X->ppc && o->to_dp < 1)
        return CS_ERR(err, CS_EINVAL, "--to-dp: expected the target's data-parallel degree, an integer >= 1");
    if (X->src.dp < 2 && !X->ppc)
        return CS_ERR(err, CS_EUNSUPPORTED,
                      "the trace set %s has %u ranks = tp %u x pp %u: dp 1 has no data-parallel collectives to "
                      "rescale (a larger dp adds gradient reductions the trace does not hold)",
                      o->prefix, n, tp, pp);
    if (o->to_tp && o->to_tp != tp && (tp < 2 || o->to_tp < 2))
        return CS_ERR(err, CS_EUNSUPPORTED,
                      "--to-tp %u: re-forming the tensor-parallel dimension needs tp >= 2 in the source and the "
                      "target (tp %u in the trace): at tp 1 the generator emits no tensor-parallel collectives, so "
                      "nodes would have to be added or removed", o->to_tp, tp);
    X->dst = X->src;
    X->dst.dp = o->to_dp;
    X->tpc = o->to_tp && o->to_tp != tp;
    if (X->tpc) X->dst.tp = o->to_tp;
    if (X->ppc) X->dst.pp = o->to_pp;
    uint64_t m = (uint64_t)X->dst.tp * X->dst.pp * o->to_dp;
    if (m > CS_GEN_MAX_RANKS)
        return CS_ERR(err, CS_EINVAL, "--to-dp %u: tp x pp x dp = %u x %u x %u = %" PRIu64 " ranks; expected at most %u",
                      o->to_dp, X->dst.tp, X->dst.pp, o->to_dp, m, CS_GEN_MAX_RANKS);
    char pl[128];
    cs_gen_placement_format(&X->src, pl, sizeof pl);
    char *colon = strstr(pl, ":"); /* keep "rank = tp_i + 2 dp_i + 4 pp_i" */
    if (colon) *colon = 0;
    snprintf(X->desc, sizeof X->desc, "--tp %u --pp %u --placement %s (dp %u; %s)", tp, pp, placement, X->src.dp, pl);
    info->src_ranks = n;
    info->src_dp = X->src.dp;
    info->ranks = (uint32_t)m;
    return CS_OK;
}

/* Templates (replica 0) read, every other rank compared with its own. */
static int check_source(ctx *X, cs_rescale_info *info) {
    int rc = CS_OK;
    X->t = cs_calloc((size_t)X->src.tp * X->src.pp, sizeof *X->t);
    for (uint32_t r = 0; rc == CS_OK && r < X->nsrc; r++) { /* templates first: rank order may put dp_i 0 last */
        uint32_t c[CS_GEN_NDIMS];
        coords(&X->src, r, c);
        if (c[CS_DIM_DP] == 0 && (!X->tpc || c[CS_DIM_TP] == 0)) rc = read_rank(X, r);
    }
    for (size_t i = 0; rc == CS_OK && i < (size_t)X->src.tp * X->src.pp; i++) info->template_nodes += X->t[i].n;
    for (uint32_t r = 0; rc == CS_OK && r < X->nsrc; r++) {
        uint32_t c[CS_GEN_NDIMS];
        coords(&X->src, r, c);
        if (c[CS_DIM_DP] != 0 || (X->tpc && c[CS_DIM_TP] != 0)) rc = read_rank(X, r);
        if (rc == CS_OK && X->o->stop && *X->o->stop)
            rc = CS_ERR(X->err, CS_EINTR, "rescale stopped while checking the source");
    }
    return rc;
}

/* The templates' shard values at the target's dp (FIX_SHARD*: nv), or the
 * first that the trace's rounding leaves undetermined. */
static int scale_templates(ctx *X, cs_rescale_info *info) {
    for (size_t t = 0; t < (size_t)X->src.tp * X->src.pp; t++) {
        tmpl *T = &X->t[t];
        char path[4096];
        src_path(path, sizeof path, X->o->prefix, T->rank);
        for (size_t k = 0; k < T->n; k++) {
            int comp = 0;
            for (uint32_t i = 0; i < T->nf[k].n; i++) {
                fix *f = &T->fixes[T->nf[k].first + i];
                if (f->what != FIX_SHARD && f->what != FIX_SHARD_DUR) continue;
                uint64_t v = f->nv, lo, hi;
                int dur = f->what == FIX_SHARD_DUR;
                /* a 1/dp shard of the rank's 1/tp share: x dp tp / (dp' tp'); with --to-tp its duration is
                 * rounded as every other duration (tp_dur's bound, floor(dp tp / 2 dp' tp') + 1 us) */
                if (dur && X->tpc) {
                    uint64_t A = (uint64_t)X->src.dp * X->src.tp, B = (uint64_t)X->dst.dp * X->dst.tp;
                    f->nv = v <= UINT64_MAX / (4 * A) ? (2 * v * A + B) / (2 * B) : v / B * A;
                    if (f->nv < 1) f->nv = 1;
                    X->info->tp_durations++;
                } else if (!shard_scale(v, X->src.dp * X->src.tp, X->dst.dp * X->dst.tp, dur, &f->nv, &lo, &hi)) {
                    const ChakraProtoMsg__Node *nd = T->nodes[k];
                    return CS_ERR(X->err, CS_EUNSUPPORTED,
                                  "%s: node %" PRIu64 " (%s): %s %" PRIu64 " is a 1/dp shard's at dp %u%s; at dp %u%s "
                                  "it is %" PRIu64 " or %" PRIu64 " (the trace holds it rounded to a whole %s, which "
                                  "does not say which): not rescaled exactly",
                                  path, nd->id, nd->name ? nd->name : "",
                                  dur ? "duration_micros" : nd->attr[f->attr]->name, v, X->src.dp,
                                  X->tpc ? " (of the rank's 1/tp share)" : "", X->dst.dp,
                                  X->tpc ? " and the target's tp" : "", lo, hi, dur ? "microsecond" : "byte");
                }
                if (T->nodes[k]->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE) comp = 1;
                else info->shard_colls++;
            }
            if (comp && info->shard_comps++ == 0)
                snprintf(info->shard_comp_name, sizeof info->shard_comp_name, "%s",
                         T->nodes[k]->name ? T->nodes[k]->name : "");
        }
    }
    return CS_OK;
}

/* ---- tensor-parallel re-forming (--to-tp) ---------------------------------------
 * The rule of each node kind, from the generator (family_transformer.c; docs/rescale.md, "TP"):
 * with t, t' the source's and the target's tp,
 *   TP all-reduces / reduce-scatters    sb h 2 bytes: unchanged
 *   TP all-gathers (SP)                 sb h 2 / t: x t / t'
 *   DP collectives (gradient buckets)   the rank's 1/t of the parameters: x t / t' (ZeRO's all-gathers and
 *                                       the optimizer on a shard: x t dp / (t' dp'), scale_templates)
 *   pipeline send / recv                sl h 2, sl = sb / t with SP, sb without: x t / t' with SP
 *   ln1, res1_ln2, res2, embed, final_ln (forward and backward): bytes of sl h: x t / t' with SP, else unchanged
 *   attn (heads / t), grad_acc and embed.grad_acc (the rank's 1/t of the parameters):
 *                                       num_ops, tensor_size, duration: x t / t'
 *   qkv, proj, mlp, logits (n or k / t) num_ops x t / t'; tensor_size = R + S, R the replicated input's
 *                                       (c sb h bytes) kept, S x t / t'; duration x t / t' (the generator's
 *                                       GEMM efficiency of the sharded dimension is not in the trace)
 *   optimizer (the stage's 1/t)         tensor_size, duration: x t / t'
 * Byte and FLOP counts are integers rounded from reals: exact when the scaled rounding interval holds one
 * integer (shard_scale), else refused.  Durations: round(v t / t'), within floor(t / 2t') + 1 us of the
 * generator's for the nodes whose time is linear in 1/t. */

static void tp_set(ChakraProtoMsg__Node *nd, const tpv *v, int on) {
    if (v->attr == UINT32_MAX) nd->duration_micros = on ? v->nv : v->old;
    else attr_set_u64(nd->attr[v->attr], on ? v->nv : v->old);
}

static void tp_push(tmpl *T, size_t k, uint32_t attr, uint64_t old, uint64_t nv) {
    if (T->ntv == T->captv) {
        T->captv = T->captv ? 2 * T->captv : 64;
        T->tv = cs_realloc(T->tv, T->captv * sizeof *T->tv);
    }
    T->tv[T->ntv++] = (tpv){k, attr, nv, old};
}

static int attr_index(const ChakraProtoMsg__Node *nd, const char *name) {
    for (size_t i = 0; i < nd->n_attr; i++)
        if (nd->attr[i]->name && strcmp(nd->attr[i]->name, name) == 0) return (int)i;
    return -1;
}

/* Attribute `name` of node k (absent: nothing) scaled by t / t', minus and plus `keep` (the replicated part). */
static int tp_exact(ctx *X, tmpl *T, size_t k, const char *path, const char *name, uint64_t keep) {
    const ChakraProtoMsg__Node *nd = T->nodes[k];
    int i = attr_index(nd, name);
    uint64_t v, nv, lo, hi;
    if (i < 0) return CS_OK;
    if (!attr_u64(nd->attr[i], &v))
        return CS_ERR(X->err, CS_EINVAL, "%s: node %" PRIu64 " (%s): attribute %s: expected an integer >= 0", path,
                      nd->id, nd->name ? nd->name : "", name);
    if (v < keep)
        return CS_ERR(X->err, CS_EINVAL,
                      "%s: node %" PRIu64 " (%s): %s %" PRIu64 " is less than the replicated input's %" PRIu64 " bytes "
                      "(sb x h from the layer norm before it): not the generator's GEMM; not re-formed for --to-tp",
                      path, nd->id, nd->name ? nd->name : "", name, v, keep);
    int ok = shard_scale(v - keep, X->src.tp, X->dst.tp, 0, &nv, &lo, &hi);
    if (!ok && (v - keep) <= UINT64_MAX / X->src.tp && (v - keep) * X->src.tp % X->dst.tp == 0) {
        /* tp' < tp widens the interval past one integer; the generator's values of these kinds are products of
         * integer shapes (tp dividing heads, ffn and, with SP, the sequence), exact before rounding: x = v */
        nv = (v - keep) * X->src.tp / X->dst.tp;
        ok = 1;
        X->info->tp_integral++;
    }
    if (!ok)
        return CS_ERR(X->err, CS_EUNSUPPORTED,
                      "%s: node %" PRIu64 " (%s): %s %" PRIu64 " holds the rank's 1/tp share %" PRIu64 " at tp %u; at "
                      "tp %u it is %" PRIu64 " or %" PRIu64 " (the trace holds it rounded to an integer, which does "
                      "not say which): not re-formed exactly",
                      path, nd->id, nd->name ? nd->name : "", name, v, v - keep, X->src.tp, X->dst.tp, lo + keep,
                      hi + keep);
    if (nv + keep != v) tp_push(T, k, (uint32_t)i, v, nv + keep);
    X->info->tp_values++;
    return CS_OK;
}

/* duration_micros x t / t', rounded half up, at least 1 (the generator's floor). */
static void tp_dur(ctx *X, tmpl *T, size_t k) {
    uint64_t v = T->nodes[k]->duration_micros, t = X->src.tp, tn = X->dst.tp;
    if (!v) return;
    uint64_t nv = (2 * v * t + tn) / (2 * tn);
    if (nv < 1) nv = 1;
    if (nv != v) tp_push(T, k, UINT32_MAX, v, nv);
    X->info->tp_durations++;
}

static int has_fix(const tmpl *T, size_t k, int what, int attr) {
    for (uint32_t i = 0; i < T->nf[k].n; i++) {
        const fix *f = &T->fixes[T->nf[k].first + i];
        if (f->what == what && (attr < 0 || f->attr == (uint32_t)attr)) return 1;
    }
    return 0;
}

/* The node's operator: its name without "bwd." / "recompute." and "L<k>."; *bwd set for "bwd.". */
static const char *op_of(const char *name, int *bwd) {
    *bwd = strncmp(name, "bwd.", 4) == 0;
    if (*bwd) name += 4;
    else if (strncmp(name, "recompute.", 10) == 0) name += 10;
    if (name[0] == 'L' && name[1] >= '0' && name[1] <= '9') {
        const char *d = name + 1;
        while (*d >= '0' && *d <= '9') d++;
        if (*d == '.') name = d + 1;
    }
    return name;
}

/* Every template's values at the target's tp (tmpl.tv), by the rules above; a node no rule covers is refused. */
static int tp_rules(ctx *X) {
    static const char *const stream_ops[] = {"ln1", "res1_ln2", "res2", "embed", "final_ln"};
    static const char *const gemm_ops[] = {"qkv", "proj", "mlp", "logits"};
    static const uint64_t gemm_rep[] = {2, 2, 4, 2}; /* replicated sb x h inputs (bytes per element 2) */
    for (uint32_t pi = 0; pi < X->src.pp; pi++) /* sequence parallelism: any TP all-gather */
        for (size_t k = 0; k < X->t[(size_t)pi * X->src.tp].n; k++) {
            const tmpl *T = &X->t[(size_t)pi * X->src.tp];
            int64_t ct = -1;
            if (T->nodes[k]->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE && has_fix(T, k, FIX_TP, -1) &&
                cs_et_attr_get_int(T->nodes[k], "comm_type", &ct, NULL) >= 0 && ct == CS_COLL_ALL_GATHER)
                X->sp = 1;
        }
    for (uint32_t pi = 0; pi < X->src.pp; pi++) {
        tmpl *T = &X->t[(size_t)pi * X->src.tp];
        char path[4096];
        src_path(path, sizeof path, X->o->prefix, T->rank);
        uint64_t slh = 0; /* sl x h: the last forward layer norm's tensor_size / 4 */
        uint32_t layers = 0, buckets = 0; /* backward layers since the last gradient bucket; the buckets */
        size_t multi = SIZE_MAX; /* the first bucket of several layers */
        unsigned long last_l = ULONG_MAX; /* the last backward layer */
        for (size_t k = 0; k < T->n; k++) {
            const ChakraProtoMsg__Node *nd = T->nodes[k];
            const char *nm = nd->name ? nd->name : "";
            int rc = CS_OK, bwd;
            if (nd->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE && strncmp(nm, "bwd.L", 5) == 0 &&
                strcmp(op_of(nm, &bwd), "ln1") == 0) { /* a pass runs its layers downwards: a higher one starts another */
                unsigned long l = strtoul(nm + 5, NULL, 10);
                if (l >= last_l) layers = 0;
                last_l = l;
                layers++;
            }
            if (nd->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE) {
                int64_t ct = -1;
                int cs = attr_index(nd, "comm_size");
                cs_et_attr_get_int(nd, "comm_type", &ct, NULL);
                if (has_fix(T, k, FIX_DP, -1) && !has_fix(T, k, FIX_SHARD, cs) &&
                    (ct == CS_COLL_ALL_REDUCE || ct == CS_COLL_REDUCE_SCATTER)) { /* a gradient bucket */
                    uint64_t S = 0, bb = X->o->bucket_bytes ? X->o->bucket_bytes : 80000000;
                    if (cs >= 0) attr_u64(nd->attr[cs], &S);
                    buckets++;
                    if (layers > 1 && multi == SIZE_MAX) multi = k;
                    /* one layer per bucket: it stays so at tp' while a layer's gradients fill a bucket */
                    if (layers == 1 && X->dst.tp > X->src.tp && S / X->dst.tp * X->src.tp < bb)
                        return CS_ERR(X->err, CS_EUNSUPPORTED,
                                      "%s: node %" PRIu64 " (%s): --to-tp %u: this gradient bucket holds one layer's "
                                      "gradients, %" PRIu64 " bytes, about %" PRIu64 " at tp %u, below the bucket size "
                                      "(--bucket-bytes %" PRIu64 "): the generator would put several layers in one "
                                      "bucket there, so the nodes would differ; not re-formed",
                                      path, nd->id, nm, X->dst.tp, S, S / X->dst.tp * X->src.tp, X->dst.tp, bb);
                    layers = 0;
                }
                if (has_fix(T, k, FIX_TP, -1)) {
                    if (ct == CS_COLL_ALL_GATHER) rc = tp_exact(X, T, k, path, "comm_size", 0);
                    else if (ct != CS_COLL_ALL_REDUCE && ct != CS_COLL_REDUCE_SCATTER)
                        rc = CS_ERR(X->err, CS_EUNSUPPORTED,
                                    "%s: node %" PRIu64 " (%s): --to-tp %u: a %s on the tensor-parallel group; expected "
                                    "Megatron's all-reduces, or reduce-scatters and all-gathers with sequence "
                                    "parallelism, whose sizes at another tp are known",
                                    path, nd->id, nm, X->dst.tp,
                                    ct >= 0 && cs_et_comm_type_name((int)ct) ? cs_et_comm_type_name((int)ct) : "collective");
                } else if (!has_fix(T, k, FIX_SHARD, cs)) { /* DP buckets: the rank's 1/t of the gradients */
                    rc = tp_exact(X, T, k, path, "comm_size", 0);
                }
            } else if (nd->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE ||
                       nd->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE) {
                if (X->sp) rc = tp_exact(X, T, k, path, "comm_size", 0);
            } else if (nd->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE) {
                const char *op = op_of(nm, &bwd);
                int kind = -1; /* 0 stream, 1 attn, 2 + i gemm i, 9 optimizer */
                for (int i = 0; i < 5 && kind < 0; i++)
                    if (strcmp(op, stream_ops[i]) == 0) kind = 0;
                for (int i = 0; i < 4 && kind < 0; i++)
                    if (strcmp(op, gemm_ops[i]) == 0) kind = 2 + i;
                /* attn's heads / t, and the gradient accumulation of the rank's 1/t of the parameters */
                if (kind < 0 && (strcmp(op, "attn") == 0 || strcmp(op, "grad_acc") == 0 || strcmp(op, "embed.grad_acc") == 0))
                    kind = 1;
                if (kind < 0 && strcmp(nm, "optimizer") == 0) kind = 9;
                if (kind < 0)
                    return CS_ERR(X->err, CS_EUNSUPPORTED,
                                  "%s: node %" PRIu64 " (%s): --to-tp %u: no tensor-parallel rule for this node: "
                                  "re-forming TP needs the generator's transformer layers (compute nodes named "
                                  "[bwd.|recompute.]L<k>.ln1, qkv, attn, proj, res1_ln2, mlp, res2, and embed, "
                                  "final_ln, logits, optimizer), whose shares of 1/tp are known; a trace without "
                                  "recognizable layers (e.g. Chakra traces from PyTorch), MoE's router and experts or "
                                  "the input pipeline is not re-formed (docs/rescale.md)",
                                  path, nd->id, nm, X->dst.tp);
                uint64_t ts = 0;
                int ti = attr_index(nd, "tensor_size");
                if (ti >= 0) attr_u64(nd->attr[ti], &ts);
                if (kind == 0) {
                    if (!bwd && strcmp(op, "res1_ln2") && strcmp(op, "res2")) slh = ts / 4;
                    if (X->sp) {
                        rc = tp_exact(X, T, k, path, "tensor_size", 0);
                        tp_dur(X, T, k);
                    }
                } else if (kind == 1) {
                    rc = tp_exact(X, T, k, path, "num_ops", 0);
                    if (rc == CS_OK) rc = tp_exact(X, T, k, path, "tensor_size", 0);
                    tp_dur(X, T, k);
                } else if (kind == 9) {
                    if (!has_fix(T, k, FIX_SHARD, -1)) { /* else scaled by t dp / (t' dp') */
                        rc = tp_exact(X, T, k, path, "tensor_size", 0);
                        tp_dur(X, T, k);
                    }
                } else {
                    uint64_t sbh = slh * (X->sp ? X->src.tp : 1);
                    if (!slh)
                        return CS_ERR(X->err, CS_EINVAL,
                                      "%s: node %" PRIu64 " (%s): --to-tp %u: no forward layer norm (L<k>.ln1, embed, "
                                      "final_ln) before this GEMM gives the size of its replicated input (sb x h); "
                                      "not the generator's layer order, not re-formed", path, nd->id, nm, X->dst.tp);
                    rc = tp_exact(X, T, k, path, "num_ops", 0);
                    if (rc == CS_OK) rc = tp_exact(X, T, k, path, "tensor_size", gemm_rep[kind - 2] * (bwd ? 2 : 1) * sbh);
                    tp_dur(X, T, k);
                    X->info->tp_gemms++;
                }
            } else {
                return CS_ERR(X->err, CS_EUNSUPPORTED,
                              "%s: node %" PRIu64 " (%s): --to-tp %u: a %s node has no tensor-parallel rule (an "
                              "offloaded optimizer state or host memory traffic); not re-formed",
                              path, nd->id, nm, X->dst.tp, nd->type == CHAKRA_PROTO_MSG__NODE_TYPE__MEM_LOAD_NODE ? "MEM_LOAD" : nd->type == CHAKRA_PROTO_MSG__NODE_TYPE__MEM_STORE_NODE ? "MEM_STORE" : "non-compute");
            }
            if (rc) return rc;
        }
        if (multi != SIZE_MAX && buckets > 1) /* one bucket for the step (reduced after the backward) stays one */
            return CS_ERR(X->err, CS_EUNSUPPORTED,
                          "%s: node %" PRIu64 " (%s): --to-tp %u: a gradient bucket of several layers: where the "
                          "generator closes buckets at another tp depends on the layers' sizes against the bucket "
                          "size, which the trace does not fix; re-forming TP needs one layer per bucket (or one "
                          "bucket per step)", path, T->nodes[multi]->id, T->nodes[multi]->name ? T->nodes[multi]->name : "",
                          X->dst.tp);
    }
    return CS_OK;
}

static void free_templates(ctx *X) {
    if (X->t)
        for (size_t i = 0; i < (size_t)X->src.tp * X->src.pp; i++) tmpl_free(&X->t[i]);
    cs_free(X->t);
    X->t = NULL;
}

/* ---- inference ----------------------------------------------------------------- */

static const char *const g_orders[] = {"tp,dp,pp", "tp,pp,dp", "dp,tp,pp", "dp,pp,tp", "pp,tp,dp", "pp,dp,tp"};
#define N_ORDERS 6
#define MAX_FITS 4

/* Rank r's coordinates under the plan equal those under q for every rank:
 * the same structure (placements differing only in dimensions of size 1). */
static int same_layout(const cs_gen_plan *p, const cs_gen_plan *q) {
    static const int dims[3] = {CS_DIM_TP, CS_DIM_DP, CS_DIM_PP};
    if (p->tp != q->tp || p->pp != q->pp || p->dp != q->dp) return 0;
    for (int i = 0; i < 3; i++) {
        uint32_t c[CS_GEN_NDIMS] = {0, 0, 0, 0};
        c[dims[i]] = 1;
        uint32_t size = dims[i] == CS_DIM_TP ? p->tp : dims[i] == CS_DIM_DP ? p->dp : p->pp;
        if (size > 1 && cs_gen_rank_of(p, c) != cs_gen_rank_of(q, c)) return 0;
    }
    return 1;
}

/* p and q are one layout with the TP and DP dimensions exchanged. */
static int swapped(const cs_gen_plan *p, const cs_gen_plan *q) {
    uint32_t t[CS_GEN_NDIMS] = {1, 0, 0, 0}, d[CS_GEN_NDIMS] = {0, 1, 0, 0}, pp[CS_GEN_NDIMS] = {0, 0, 1, 0};
    return p->tp == q->dp && p->dp == q->tp && p->pp == q->pp && cs_gen_rank_of(p, t) == cs_gen_rank_of(q, d) &&
           cs_gen_rank_of(p, d) == cs_gen_rank_of(q, t) && (p->pp == 1 || cs_gen_rank_of(p, pp) == cs_gen_rank_of(q, pp));
}

/* Every (tp, pp, placement) of the source's ranks under which the traces
 * are a replica structure; exactly one is taken (and said), none or
 * several are an error naming them. */
static int infer_plan(ctx *X, uint32_t *tp_out, uint32_t *pp_out, const char **pl_out) {
    cs_gen_plan fit[MAX_FITS];
    const char *fit_pl[MAX_FITS];
    uint64_t fit_colls[MAX_FITS][2];
    uint32_t nfit = 0, n = X->nsrc;
    int more = 0;
    cs_error first;
    cs_error_clear(&first);
    int first_rc = CS_OK;
    for (uint32_t tp = 1; tp <= n && !more; tp++) {
        if (n % tp) continue;
        for (uint32_t pp = 1; pp <= n / tp && !more; pp++) {
            if ((n / tp) % pp || n / tp / pp < 2) continue;
            for (int k = 0; k < N_ORDERS && !more; k++) {
                if (X->o->stop && *X->o->stop) /* (a read the signal broke refuses its plan: not a stop) */
                    return CS_ERR(X->err, CS_EINTR, "rescale stopped while inferring the plan");
                ctx Y = *X; /* same options and groups, own templates and scratch */
                Y.t = NULL;
                Y.saved = NULL;
                Y.names = NULL;
                Y.scratch = NULL;
                Y.rs_ids = NULL;
                Y.nrs = Y.caprs = 0;
                Y.post_ids = NULL;
                Y.npost = Y.cappost = 0;
                Y.capsaved = Y.capscratch = Y.nscratch = 0;
                cs_rescale_info scratch_info;
                memset(&scratch_info, 0, sizeof scratch_info);
                Y.info = &scratch_info;
                cs_error e;
                cs_error_clear(&e);
                Y.err = &e;
                cs_gen_plan probe;
                cs_gen_plan_defaults(&probe);
                probe.tp = tp;
                probe.pp = pp;
                probe.dp = n / tp / pp;
                cs_gen_placement_parse(g_orders[k], &probe, NULL);
                int dup = 0;
                for (uint32_t i = 0; i < nfit && !dup; i++) dup = same_layout(&fit[i], &probe);
                if (dup) continue;
                int rc = setup_plan(&Y, tp, pp, g_orders[k], &scratch_info);
                if (rc == CS_OK) rc = check_source(&Y, &scratch_info);
                free_templates(&Y);
                cs_free(Y.saved);
                cs_free(Y.names);
                cs_free(Y.scratch);
                cs_free(Y.rs_ids);
                cs_free(Y.post_ids);
                if (rc == CS_EINTR) return CS_ERR(X->err, CS_EINTR, "%s", e.msg);
                if (rc == CS_OK) {
                    if (nfit == MAX_FITS) {
                        more = 1;
                        break;
                    }
                    fit[nfit] = Y.src;
                    fit_colls[nfit][0] = scratch_info.colls[0];
                    fit_colls[nfit][1] = scratch_info.colls[1];
                    fit_pl[nfit++] = g_orders[k];
                } else if (tp == 1 && pp == 1 && k == 0) {
                    first = e;
                    first_rc = rc;
                }
            }
        }
    }
    if (nfit == 0)
        return CS_ERR(X->err, first_rc ? first_rc : CS_EINVAL,
                      "no plan (--tp, --pp, --placement) of the %u ranks of %s fits the traces%s; under --tp 1 --pp 1: "
                      "%s", n, X->o->prefix, X->g.path ? " and their comm groups" : "",
                      first_rc ? first.msg : "dp would be 1");
    /* two plans that swap TP and DP: the data-parallel groups are those with fewer collectives (gradient
     * buckets against every layer's tensor-parallel collectives); equal counts stay ambiguous */
    if (nfit == 2 && swapped(&fit[0], &fit[1]) && fit_colls[0][1] != fit_colls[1][1]) {
        uint32_t w = fit_colls[0][1] < fit_colls[1][1] ? 0 : 1;
        snprintf(X->why, sizeof X->why,
                 "; of the two plans that swap TP and DP (also --tp %u --pp %u --placement %s), the one whose DP "
                 "groups carry fewer collectives (%" PRIu64 " against %" PRIu64 " per replica)",
                 fit[1 - w].tp, fit[1 - w].pp, fit_pl[1 - w], fit_colls[w][1], fit_colls[w][0]);
        fit[0] = fit[w];
        fit_pl[0] = fit_pl[w];
        nfit = 1;
    }
    if (nfit > 1) {
        char list[512];
        size_t len = 0;
        for (uint32_t i = 0; i < nfit && len < sizeof list; i++)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s--tp %u --pp %u --placement %s", i ? "; " : "",
                                    fit[i].tp, fit[i].pp, fit_pl[i]);
        return CS_ERR(X->err, CS_EINVAL,
                      "the captured plan of %s is ambiguous: %s%s fit the traces%s (tensor- and data-parallel groups "
                      "look alike to a trace: both hold replicas); give the captured plan's --tp, --pp and "
                      "--placement", X->o->prefix, list, more ? "; and more" : "", X->g.path ? " and their comm groups" : "");
    }
    *tp_out = fit[0].tp;
    *pp_out = fit[0].pp;
    *pl_out = fit_pl[0];
    return CS_OK;
}

/* --to-pp: the templates handed to rescale_pp.c (which checks and logs). */
static int pp_prepare(ctx *X) {
    size_t nt = (size_t)X->src.tp * X->src.pp;
    ChakraProtoMsg__Node **(*nodes) = cs_calloc(nt, sizeof *nodes);
    size_t *counts = cs_calloc(nt, sizeof *counts);
    char **paths = cs_calloc(nt, sizeof *paths);
    for (size_t i = 0; i < nt; i++) {
        nodes[i] = X->t[i].nodes;
        counts[i] = X->t[i].n;
        paths[i] = cs_malloc(4096);
        src_path(paths[i], 4096, X->o->prefix, X->t[i].rank);
    }
    int rc = cs_rescale_pp_prepare(&X->pp, &X->src, &X->dst, (ChakraProtoMsg__Node *const *const *)nodes, counts,
                                   (const char *const *)paths, X->o->log, X->err);
    X->pp_paths = paths; /* kept for rescale_pp.c's messages; freed with the templates */
    cs_free(nodes);
    cs_free(counts);
    return rc;
}

int cs_rescale(const cs_rescale_opts *o, cs_rescale_info *info, cs_error *err) {
    ctx X;
    memset(&X, 0, sizeof X);
    memset(info, 0, sizeof *info);
    X.o = o;
    X.err = err;
    X.info = info;
    int rc = setup_common(&X);
    uint32_t written = 0;
    int groups_written = 0, inferred = 0;
    uint32_t tp = o->tp, pp = o->pp;
    const char *pl = o->placement;
    if (rc == CS_OK && !tp && !pp && !pl) { /* nothing said about the captured plan: infer it (at the source's tp) */
        cs_rescale_opts io = *o;
        io.to_tp = 0;
        X.o = &io;
        rc = infer_plan(&X, &tp, &pp, &pl);
        X.o = o;
        inferred = 1;
    }
    if (rc == CS_OK) rc = setup_plan(&X, tp ? tp : 1, pp ? pp : 1, pl ? pl : "tp,dp,pp", info);
    /* a stale larger trace set would be read by run as more ranks */
    if (rc == CS_OK) rc = cs_workload_check_out_prefix("--out", o->out, info->ranks, err);
    if (rc == CS_OK) rc = check_source(&X, info);
    if (rc == CS_OK) rc = scale_templates(&X, info);
    if (rc == CS_OK && X.tpc) { /* the templates are tp_i 0's: a replica holds tp of each */
        rc = tp_rules(&X);
        info->template_nodes *= X.src.tp;
        for (int i = 0; i < 2; i++) {
            info->colls[i] *= X.src.tp;
            info->coll_bytes[i] *= X.src.tp;
        }
    }
    if (rc == CS_OK && o->log) {
        fprintf(o->log, "  source   %s.<rank>.et: %u ranks = %s%s%s\n", o->prefix, X.nsrc, X.desc,
                !inferred ? "" : X.why[0] ? ", inferred from the traces" : ", inferred: the only plan under which the traces "
                "are replicas", X.why);
        fprintf(o->log, "  checked  every pg_name is its rank's TP or DP group%s%s; peers stay in their replica; "
                        "the %u replicas of each of the %u (tp_i, pp_i) positions are equal node by node (%" PRIu64
                        " nodes per replica)%s\n",
                X.g.path ? " of " : "", X.g.path ? X.g.path : " (no comm groups: all ranks)", X.src.dp,
                X.src.tp * X.src.pp, info->template_nodes,
                X.tpc ? "; so are the tp ranks of each stage (--to-tp: rank (0, 0, pp_i) is the stage's template)" : "");
        fprintf(o->log, "  replica  %" PRIu64 " collectives on TP groups (%.6g bytes), %" PRIu64 " on DP groups (%.6g "
                        "bytes): if the gradient reductions are not on the DP side, --placement swaps TP and DP\n",
                info->colls[0], info->coll_bytes[0], info->colls[1], info->coll_bytes[1]);
        if (info->shard_colls || info->shard_comps)
            fprintf(o->log, "  shards   1/dp shards rescaled by dp %u / dp %u: %" PRIu64 " all-gathers' comm_size on DP "
                            "groups; tensor_size and duration_micros of %" PRIu64 " compute nodes that wait for the DP "
                            "reduce-scatters, read as the optimizer step on the shard (the first: \"%s\")\n",
                    X.src.dp, X.dst.dp, info->shard_colls, info->shard_comps, info->shard_comp_name);
        if (X.tpc)
            fprintf(o->log, "  tp       re-formed from tp %u to tp %u%s: %" PRIu64 " sizes and FLOP counts scaled exactly by "
                            "tp / tp' (per node kind, docs/rescale.md%s), %" PRIu64 " durations by tp / tp' rounded to a "
                            "microsecond; %" PRIu64 " of them GEMMs, whose generated time also depends on the sharded "
                            "dimension's efficiency (not in the trace)\n",
                    X.src.tp, X.dst.tp, X.sp ? " (sequence parallel)" : "", info->tp_values,
                    info->tp_integral ? "; tp' < tp: taken as integers before rounding, as the generator's are" : "",
                    info->tp_durations,
                    info->tp_gemms);
    }
    if (rc == CS_OK && X.ppc) rc = pp_prepare(&X); /* after the source's lines: it logs the re-forming */
    for (uint32_t r = 0; rc == CS_OK && r < info->ranks; r++) {
        if (o->stop && *o->stop) {
            rc = CS_ERR(err, CS_EINTR, "rescale stopped after %u of %u ranks", r, info->ranks);
            break;
        }
        written = r + 1;
        rc = write_rank(&X, r, &info->nodes_written);
    }
    char path[4096], fin[4096];
    if (rc == CS_OK && X.g.path) {
        cs_comm_groups g;
        cs_gen_comm_groups(&X.dst, &g);
        groups_tmp_path(path, sizeof path, o->out);
        groups_written = 1;
        rc = cs_gen_comm_groups_write(&g, path, err);
        cs_comm_groups_free(&g);
    }
    /* none of them over the source (the traces and groups read, core/afile.h), checked before any rename */
    for (uint32_t r = 0; rc == CS_OK && r < info->ranks; r++) {
        snprintf(fin, sizeof fin, "%s.%u.et", o->out, r);
        rc = cs_output_check(fin, err);
    }
    if (rc == CS_OK && groups_written) {
        snprintf(fin, sizeof fin, "%s.comm_groups.json", o->out);
        rc = cs_output_check(fin, err);
    }
    if (rc == CS_EINVAL) cs_error_prefix(err, "--out %s: ", o->out);
    if (rc == CS_OK) { /* every file complete: the renames */
        for (uint32_t r = 0; rc == CS_OK && r < info->ranks; r++) {
            tmp_path(path, sizeof path, o->out, r);
            snprintf(fin, sizeof fin, "%s.%u.et", o->out, r);
            if (rename(path, fin) != 0) rc = CS_ERR(err, CS_EIO, "%s: cannot rename to %s: %s", path, fin, strerror(errno));
        }
        if (rc == CS_OK && groups_written) {
            groups_tmp_path(path, sizeof path, o->out);
            snprintf(fin, sizeof fin, "%s.comm_groups.json", o->out);
            if (rename(path, fin) != 0) rc = CS_ERR(err, CS_EIO, "%s: cannot rename to %s: %s", path, fin, strerror(errno));
            info->wrote_groups = rc == CS_OK;
        }
    }
    if (rc) remove_tmps(&X, written, groups_written);
    cs_rescale_pp_free(X.pp);
    for (size_t i = 0; X.pp_paths && i < (size_t)X.src.tp * X.src.pp; i++) cs_free(X.pp_paths[i]);
    cs_free(X.pp_paths);
    free_templates(&X);
    cs_free(X.saved);
    cs_free(X.names);
    cs_free(X.scratch);
    cs_free(X.rs_ids);
    cs_free(X.post_ids);
    cs_comm_groups_free(&X.g);
    return rc;
}
