/*
 * family_dlrm.c -- the DLRM family (Naumov et al. 2019): embedding tables
 * split table-wise over the DP ranks (model parallel, all-to-all of the
 * pooled vectors), bottom and top MLPs data parallel.  Its model-file keys
 * and preset, plan checks, parameter and FLOP counts, the memory of a rank,
 * and the nodes of a step.  docs/generator.md.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "gen/gen_int.h"

/* Layer widths of the bottom (which = 0) or top (1) MLP: in[i] -> out[i]. */
static uint32_t dlrm_mlp(const cs_gen_model *m, int which, double *in, double *out) {
    const cs_gen_mlp *mlp = which ? &m->u.dlrm.top : &m->u.dlrm.bot;
    uint32_t n = mlp->n;
    const uint32_t *w = mlp->w;
    double F = m->u.dlrm.tables + 1.0, x = which ? m->u.dlrm.emb_dim + F * (F - 1) / 2 : m->u.dlrm.dense;
    for (uint32_t i = 0; i < n; i++) {
        in[i] = x;
        out[i] = w[i];
        x = w[i];
    }
    return n;
}

double cs_gen_dlrm_mlp_params(const cs_gen_model *m) {
    double in[CS_GEN_DLRM_MAXMLP], out[CS_GEN_DLRM_MAXMLP], s = 0;
    for (int w = 0; w < 2; w++)
        for (uint32_t i = 0, n = dlrm_mlp(m, w, in, out); i < n; i++) s += in[i] * out[i] + out[i];
    return s;
}

double cs_gen_dlrm_emb_params(const cs_gen_model *m) { return (double)m->u.dlrm.tables * m->u.dlrm.rows * m->u.dlrm.emb_dim; }

double cs_gen_dlrm_forward_flops(const cs_gen_model *m) {
    double in[CS_GEN_DLRM_MAXMLP], out[CS_GEN_DLRM_MAXMLP], s = 0, F = m->u.dlrm.tables + 1.0;
    for (int w = 0; w < 2; w++)
        for (uint32_t i = 0, n = dlrm_mlp(m, w, in, out); i < n; i++) s += 2 * in[i] * out[i];
    return s + 2 * F * F * m->u.dlrm.emb_dim; /* interaction: Z Z^T of the F x d feature matrix */
}

/* DLRM, one micro-batch (b samples per rank, B = b dp in all): the bottom
 * MLP on the rank's samples; the lookups of its tables (dp-th of them) for
 * all B samples; an all-to-all sending each rank the pooled vectors of its
 * samples (comm_size = the whole send buffer, B x local tables x d x 4
 * bytes); interaction and top MLP.  Backward mirrors it (all-to-all of the
 * pooled gradients, then a sparse SGD update of the looked-up rows); MLP
 * gradients go into DP buckets as in rn_pass. */
static void dlrm_mlp_nodes(cs_gen_ctx *G, int which, int bwd, double *acc, int last_mb) {
    double in[CS_GEN_DLRM_MAXMLP], out[CS_GEN_DLRM_MAXMLP], b = G->b;
    uint32_t n = dlrm_mlp(G->m, which, in, out);
    for (uint32_t j = 0; j < n; j++) {
        uint32_t i = bwd ? n - 1 - j : j;
        double k = bwd ? 2 : 1;
        char nm[48];
        snprintf(nm, sizeof nm, "%s%s.mlp%u", bwd ? "bwd." : "", which ? "top" : "bot", i);
        cs_gen_comp(G, nm, k * 2 * b * in[i] * out[i], k * 2 * (b * in[i] + in[i] * out[i] + b * out[i]),
             k * cs_device_gemm_s(G->d, b, out[i], in[i], 2));
        if (bwd && last_mb) {
            *acc += in[i] * out[i] + out[i];
            cs_gen_dp_bucket(G, acc, 0, PG_DP);
        }
    }
}

static void dlrm_pass(cs_gen_ctx *G, int bwd, int last_mb) {
    const cs_gen_model *m = G->m;
    double b = G->b, B = b * G->p->dp, d = m->u.dlrm.emb_dim, F = m->u.dlrm.tables + 1.0, tl = (double)m->u.dlrm.tables / G->p->dp;
    double rows = B * tl * m->u.dlrm.pooling * d * 4, pooled = B * tl * d * 4, acc = 0;
    if (!bwd) {
        dlrm_mlp_nodes(G, 0, 0, &acc, 0);
        cs_gen_comp(G, "emb.lookup", 0, rows + pooled, cs_device_stream_s(G->d, rows + pooled));
        if (G->p->dp > 1) cs_gen_coll(G, "emb.a2a", CS_COLL_ALL_TO_ALL, pooled, PG_EP, 1);
        cs_gen_comp(G, "interact", 2 * b * F * F * d, 2 * b * (F * d + F * (F - 1) / 2),
             cs_device_gemm_s(G->d, b * F, F, d, 2));
        dlrm_mlp_nodes(G, 1, 0, &acc, 0);
        return;
    }
    dlrm_mlp_nodes(G, 1, 1, &acc, last_mb);
    cs_gen_comp(G, "bwd.interact", 2 * 2 * b * F * F * d, 2 * 2 * b * (F * d + F * (F - 1) / 2),
         2 * cs_device_gemm_s(G->d, b * F, F, d, 2));
    if (G->p->dp > 1) cs_gen_coll(G, "bwd.emb.a2a", CS_COLL_ALL_TO_ALL, pooled, PG_EP, 1);
    cs_gen_comp(G, "bwd.emb.update", 0, pooled + 2 * rows, cs_device_stream_s(G->d, pooled + 2 * rows));
    dlrm_mlp_nodes(G, 0, 1, &acc, last_mb);
    if (last_mb) cs_gen_dp_bucket(G, &acc, 1, PG_DP);
}

static void dlrm_emit(cs_gen_ctx *G) {
    memcpy(G->pg[PG_EP], G->pg[PG_DP], sizeof G->pg[PG_EP]); /* the all-to-all runs on the DP group */
    for (uint32_t i = 0; i < G->M; i++) {
        cs_gen_ingest_batch(G, i); /* the loader's batch: the first forward node consumes it */
        dlrm_pass(G, 0, 0);
        dlrm_pass(G, 1, i == G->M - 1);
    }
}

static double dlrm_params(const cs_gen_model *m) { return cs_gen_dlrm_mlp_params(m) + cs_gen_dlrm_emb_params(m); }

static double dlrm_flops(const cs_gen_model *m, const cs_gen_plan *p) {
    return 3.0 * p->global_batch * cs_gen_dlrm_forward_flops(m);
}

/* MLPs replicated (16 B/param), local tables fp32 with in-place SGD. */
static void dlrm_memory(const cs_gen_model *m, const cs_gen_plan *p, uint32_t st, cs_gen_memory *o) {
    (void)st;
    const cs_gen_dlrm *x = &m->u.dlrm;
    double P = cs_gen_dlrm_mlp_params(m), d = x->emb_dim, F = x->tables + 1.0, b = p->micro_batch;
    double in[CS_GEN_DLRM_MAXMLP], out[CS_GEN_DLRM_MAXMLP], outs = 0, tl = (double)x->tables / p->dp;
    for (int w = 0; w < 2; w++)
        for (uint32_t i = 0, n = dlrm_mlp(m, w, in, out); i < n; i++) outs += out[i];
    o->params = P;
    o->weights = 2 * P + 4 * tl * x->rows * d;
    o->grads = 2 * P;
    o->optimizer = 12 * P;
    o->inflight = 1;
    o->activations = 2 * b * (outs + F * d + F * (F - 1) / 2) + 4 * b * p->dp * tl * d;
}

static int dlrm_check(const cs_gen_model *m, const cs_gen_plan *p, cs_error *err) {
    if (p->tp != 1 || p->pp != 1 || p->ep != 1 || p->zero != 0)
        return CS_ERR(err, CS_EINVAL,
                      "--tp/--pp/--ep/--zero: %s shards its tables over --dp ranks and replicates its MLPs; "
                      "expected 1/1/1/0, got %u/%u/%u/%d", m->name, p->tp, p->pp, p->ep, p->zero);
    if (m->u.dlrm.tables % p->dp)
        return CS_ERR(err, CS_EINVAL, "--dp %u: expected a divisor of the table count (%u)", p->dp, m->u.dlrm.tables);
    return cs_gen_check_batch(p, err);
}

/* One micro-batch of global / dp samples per rank unless told; a global
 * batch of 512 per rank; 25 MB buckets of 2-byte gradients. */
static void dlrm_batch(const cs_gen_model *m, cs_gen_plan *p, uint32_t micro, uint32_t global) {
    (void)m;
    uint64_t def = (uint64_t)512 * p->dp; /* 0 when it passes 32 bits: cs_gen_check_batch refuses it */
    p->global_batch = global ? global : def <= UINT32_MAX ? (uint32_t)def : 0;
    p->micro_batch = micro ? micro : p->dp ? p->global_batch / p->dp : 0;
    p->bucket_params = 12500000;
}

static void dlrm_describe(FILE *f, const cs_gen_model *m, const cs_gen_plan *p) {
    const cs_gen_dlrm *x = &m->u.dlrm;
    fprintf(f, "  model      %s: DLRM, %u tables of %u x %u (%u lookups per sample), %u dense features, bottom MLP",
            m->name, x->tables, x->rows, x->emb_dim, x->pooling, x->dense);
    for (uint32_t i = 0; i < x->bot.n; i++) fprintf(f, "%s%u", i ? "-" : " ", x->bot.w[i]);
    fputs(", top MLP", f);
    for (uint32_t i = 0; i < x->top.n; i++) fprintf(f, "%s%u", i ? "-" : " ", x->top.w[i]);
    fprintf(f, "; %.2fM MLP + %.2fM embedding parameters\n", cs_gen_dlrm_mlp_params(m) / 1e6,
            cs_gen_dlrm_emb_params(m) / 1e6);
    fprintf(f, "  plan       DP %u: %u tables per rank (model parallel, all-to-all), MLPs data parallel; %u samples "
               "per rank per micro-batch, global batch %u (%u micro-batches); gradient buckets of %.1f MB\n",
            p->dp, x->tables / p->dp, p->micro_batch, p->global_batch, cs_gen_micro_batches(p),
            2.0 * (double)p->bucket_params / 1e6);
}

static double dlrm_items(const cs_gen_model *m, const cs_gen_plan *p) {
    (void)m;
    return (double)p->global_batch;
}

static void dlrm_init(cs_gen_model *m) { m->u.dlrm.pooling = 1; }

static int dlrm_finish(const cs_jdoc *doc, cs_gen_model *m, cs_error *err) {
    const cs_gen_dlrm *x = &m->u.dlrm;
    if (x->bot.w[x->bot.n - 1] != x->emb_dim)
        return CS_ERR(err, CS_EINVAL, "%s:%d: bottom_mlp: the last width must be emb_dim (%u), got %u", doc->path,
                      cs_jdoc_key_line(doc, "bottom_mlp"), x->emb_dim, x->bot.w[x->bot.n - 1]);
    return CS_OK;
}

#define U32(k, req, field, h)                                                                                      \
    {.key = k, .type = CS_OPT_CUSTOM, .required = req, .min = 1, .max = 1000000000, .help = h,                   \
     .off = offsetof(cs_gen_dlrm, field), .type_text = "an integer from 1 to 1000000000", .parse = cs_gen_opt_u32, .dump = cs_gen_opt_u32_dump}
#define MLP(k, field, h)                                                                                           \
    {.key = k, .type = CS_OPT_CUSTOM, .required = 1, .min = 1, .max = 100000000, .help = h,                      \
     .off = offsetof(cs_gen_dlrm, field), .type_text = "an array of 1 to 8 layer widths", .parse = cs_gen_opt_mlp, .dump = cs_gen_opt_mlp_dump}
static const cs_opt keys[] = {
    U32("tables", 1, tables, "embedding tables (split table-wise over the DP ranks)"),
    U32("rows", 1, rows, "rows of each embedding table"),
    U32("emb_dim", 1, emb_dim, "embedding dimension d"),
    U32("dense_features", 1, dense, "dense input features (the bottom MLP's input)"),
    U32("pooling", 0, pooling, "lookups per table and sample, summed (default 1)"),
    MLP("bottom_mlp", bot, "bottom MLP layer widths; the last must be emb_dim"),
    MLP("top_mlp", top, "top MLP layer widths (input: emb_dim + the pairwise dots)"),
};

extern const cs_model_family cs_gen_family_dlrm; /* below; listed in family.c */
/* DLRM structure of Naumov et al. 2019, "Deep Learning Recommendation
 * Model for Personalization and Recommendation Systems" (arXiv:1906.00091);
 * the sizes are ours (docs/generator.md): 8 tables of 1 M x 64, one
 * lookup each, 512 dense features, bottom MLP 512-64, top MLP 1024-1024-1 */
static const cs_gen_model presets[] = {
    {.name = "dlrm", .family = &cs_gen_family_dlrm,
     .u.dlrm = {.tables = 8, .rows = 1000000, .emb_dim = 64, .dense = 512, .pooling = 1, .bot = {2, {512, 64}},
                .top = {3, {1024, 1024, 1}}}},
};

const cs_model_family cs_gen_family_dlrm = {
    .name = "dlrm",
    .summary = "DLRM recommendation model: tables split over DP ranks, MLPs data parallel",
    .keys = keys,
    .nkeys = sizeof keys / sizeof keys[0],
    .presets = presets,
    .npresets = sizeof presets / sizeof presets[0],
    .init = dlrm_init,
    .finish = dlrm_finish,
    .check = dlrm_check,
    .params = dlrm_params,
    .flops = dlrm_flops,
    .memory = dlrm_memory,
    .emit = dlrm_emit,
    .batch = dlrm_batch,
    .describe = dlrm_describe,
    .items = dlrm_items,
    .unit = "samples/s",
    .unit_json = "samples_per_s",
};
