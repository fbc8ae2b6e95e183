/*
 * family_resnet50.c -- the ResNet-50 v1.5 family (He et al. 2016, with the
 * stride on the 3x3 convolution as torchvision's "v1.5"), data parallel
 * only: its model-file keys (image, classes) and preset, plan checks,
 * parameter, FLOP and activation counts, the memory of a rank, and the
 * nodes of a step (one COMP node per layer forward and backward, PyTorch
 * DDP gradient buckets on the DP group).  docs/generator.md.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "gen/gen_int.h"

/*
 * Layers of ResNet-50 v1.5 (He et al. 2016, Table 1; stride 2 on the 3x3
 * convolution of the first block of stages conv3..conv5, as torchvision):
 * conv1 7x7/2 (64), 3x3/2 max pool, then bottleneck blocks [3, 4, 6, 3] of
 * 1x1 (w), 3x3 (w), 1x1 (4w) with w = 64, 128, 256, 512 and a 1x1 projection
 * shortcut ("ds") in each stage's first block; global average pool; fc
 * 2048 -> classes.  Each convolution is followed by a BatchNorm (2 parameters
 * per channel) and, but for the block's last, a ReLU. */
typedef struct rn_layer {
    char name[24];
    double hout, cin, cout, k, st; /* output side (square), channels, kernel, stride */
} rn_layer;
#define RN_MAXL 54

static size_t rn_layers(const cs_gen_model *m, rn_layer *L) {
    size_t n = 0;
    double H = m->u.rn.image / 4.0, cin = 64;
    L[n++] = (rn_layer){"conv1", m->u.rn.image / 2.0, 3, 64, 7, 2};
    static const int blocks[4] = {3, 4, 6, 3};
    for (int si = 0; si < 4; si++) {
        double w = 64 << si;
        for (int bi = 0; bi < blocks[si]; bi++) {
            double Ho = bi == 0 && si > 0 ? H / 2 : H;
            rn_layer *x = &L[n];
            x[0] = (rn_layer){"", H, cin, w, 1, 1};
            x[1] = (rn_layer){"", Ho, w, w, 3, H / Ho};
            x[2] = (rn_layer){"", Ho, w, 4 * w, 1, 1};
            snprintf(x[0].name, sizeof x[0].name, "conv%d_%d.a", si + 2, bi + 1);
            snprintf(x[1].name, sizeof x[1].name, "conv%d_%d.b", si + 2, bi + 1);
            snprintf(x[2].name, sizeof x[2].name, "conv%d_%d.c", si + 2, bi + 1);
            n += 3;
            if (bi == 0) {
                L[n] = (rn_layer){"", Ho, cin, 4 * w, 1, H / Ho};
                snprintf(L[n].name, sizeof L[n].name, "conv%d_%d.ds", si + 2, bi + 1);
                n++;
            }
            cin = 4 * w;
            H = Ho;
        }
    }
    L[n++] = (rn_layer){"fc", 1, 2048, m->u.rn.classes, 1, 1};
    return n;
}

static double rn_layer_macs(const rn_layer *x) { return x->hout * x->hout * x->cin * x->cout * x->k * x->k; }
static double rn_layer_params(const rn_layer *x, int is_fc) {
    return x->cin * x->cout * x->k * x->k + (is_fc ? x->cout : 2 * x->cout); /* fc bias, or BatchNorm */
}

double cs_gen_rn_forward_macs(const cs_gen_model *m) {
    rn_layer L[RN_MAXL];
    size_t n = rn_layers(m, L);
    double s = 0;
    for (size_t i = 0; i < n; i++) s += rn_layer_macs(&L[i]);
    return s;
}

static double rn_params(const cs_gen_model *m) {
    rn_layer L[RN_MAXL];
    size_t n = rn_layers(m, L);
    double s = 0;
    for (size_t i = 0; i < n; i++) s += rn_layer_params(&L[i], i + 1 == n);
    return s;
}

/* Stored activations per image: every convolution's output and its
 * BatchNorm's output (the ReLU runs in place), fp16 -> 2 elements per
 * output element; plus the input image (3 image^2). */
double cs_gen_rn_activation_elems(const cs_gen_model *m) {
    rn_layer L[RN_MAXL];
    size_t n = rn_layers(m, L);
    double s = 3.0 * m->u.rn.image * m->u.rn.image;
    for (size_t i = 0; i + 1 < n; i++) s += 2 * L[i].hout * L[i].hout * L[i].cout;
    return s;
}

/* ResNet-50: one COMP node per layer (convolution + BatchNorm + ReLU as an
 * implicit GEMM of (b Ho^2) x cout x (cin k^2), plus 8 bytes of BatchNorm/ReLU
 * traffic per output element); backward in reverse with twice the FLOPs.  In
 * the last micro-batch's backward (every one with ZeRO-2) each layer's
 * gradients join the current bucket; a full bucket is reduced on the DP group
 * off the chain, overlapping the rest of the backward (PyTorch DDP). */
static void rn_pass(cs_gen_ctx *G, int bwd, int last_mb) {
    rn_layer L[RN_MAXL];
    size_t n = rn_layers(G->m, L);
    double b = G->b, acc = 0;
    if (G->p->zero >= 2) last_mb = 1;
    for (size_t j = 0; j < n; j++) {
        size_t i = bwd ? n - 1 - j : j;
        const rn_layer *x = &L[i];
        int fc = i + 1 == n;
        double hin = x->hout * x->st, out = b * x->hout * x->hout * x->cout;
        double in = b * hin * hin * x->cin, w = x->cin * x->cout * x->k * x->k, bn = fc ? 0 : 8 * out;
        double fl = 2 * b * rn_layer_macs(x), by = 2 * (in + w + out) + bn;
        double tm = cs_device_gemm_s(G->d, b * x->hout * x->hout, x->cout, x->cin * x->k * x->k, 2) +
                    cs_device_stream_s(G->d, bn);
        char nm[64];
        snprintf(nm, sizeof nm, "%s%.23s", bwd ? "bwd." : "", x->name);
        cs_gen_comp(G, nm, bwd ? 2 * fl : fl, bwd ? 2 * by : by, bwd ? 2 * tm : tm);
        if (bwd && last_mb) {
            acc += rn_layer_params(x, fc);
            cs_gen_dp_bucket(G, &acc, 0, PG_DP);
        }
    }
    if (bwd && last_mb) cs_gen_dp_bucket(G, &acc, 1, PG_DP);
}

static void rn_emit(cs_gen_ctx *G) {
    for (uint32_t i = 0; i < G->M; i++) {
        cs_gen_ingest_batch(G, i); /* the loader's batch: the first forward node consumes it */
        rn_pass(G, 0, 0);
        rn_pass(G, 1, i == G->M - 1);
    }
}

static double rn_flops(const cs_gen_model *m, const cs_gen_plan *p) {
    return 3.0 * p->global_batch * 2.0 * cs_gen_rn_forward_macs(m);
}

/* Data parallel only; one micro-batch's activations at a time. */
static void rn_memory(const cs_gen_model *m, const cs_gen_plan *p, uint32_t st, cs_gen_memory *o) {
    (void)st;
    double P = rn_params(m), dp = p->dp;
    o->params = P;
    o->weights = 2 * P;
    o->grads = 2 * P / (p->zero >= 2 ? dp : 1);
    o->optimizer = 12 * P / (p->zero >= 1 ? dp : 1);
    o->inflight = 1;
    o->activations = 2.0 * p->micro_batch * cs_gen_rn_activation_elems(m);
}

static int rn_check(const cs_gen_model *m, const cs_gen_plan *p, cs_error *err) {
    if (p->tp != 1 || p->pp != 1 || p->ep != 1)
        return CS_ERR(err, CS_EINVAL, "--tp/--pp/--ep: %s is data-parallel only; expected 1, got %u/%u/%u", m->name,
                      p->tp, p->pp, p->ep);
    if (p->zero < 0 || p->zero > 2)
        return CS_ERR(err, CS_EINVAL, "--zero %d: expected 0, 1 or 2 for %s", p->zero, m->name);
    if (!m->u.rn.image || m->u.rn.image % 32 || !m->u.rn.classes)
        return CS_ERR(err, CS_EINVAL, "%s: image must be a multiple of 32 and classes >= 1", m->name);
    return cs_gen_check_batch(p, err);
}

/* One micro-batch of global / dp images per rank unless told; a global
 * batch of 32 per rank; 25 MB buckets of 2-byte gradients (PyTorch DDP). */
static void rn_batch(const cs_gen_model *m, cs_gen_plan *p, uint32_t micro, uint32_t global) {
    (void)m;
    uint64_t def = (uint64_t)32 * p->dp; /* 0 when it passes 32 bits: cs_gen_check_batch refuses it */
    p->global_batch = global ? global : def <= UINT32_MAX ? (uint32_t)def : 0;
    p->micro_batch = micro ? micro : p->dp ? p->global_batch / p->dp : 0;
    p->bucket_params = 12500000;
}

static void rn_describe(FILE *f, const cs_gen_model *m, const cs_gen_plan *p) {
    fprintf(f, "  model      %s: ResNet-50 v1.5, %ux%u images, %u classes; %.2fM parameters, %.2f GFLOP forward "
               "per image\n", m->name, m->u.rn.image, m->u.rn.image, m->u.rn.classes, cs_gen_total_params(m) / 1e6,
            2 * cs_gen_rn_forward_macs(m) / 1e9);
    fprintf(f, "  plan       DP %u (data parallel only); %u images per rank per micro-batch, global batch %u (%u "
               "micro-batches); gradient buckets of %.1f MB; ZeRO-%d\n",
            p->dp, p->micro_batch, p->global_batch, cs_gen_micro_batches(p), 2.0 * (double)p->bucket_params / 1e6,
            p->zero);
}

static double rn_items(const cs_gen_model *m, const cs_gen_plan *p) {
    (void)m;
    return (double)p->global_batch;
}

static void rn_init(cs_gen_model *m) {
    m->u.rn.image = 224;
    m->u.rn.classes = 1000;
}

static int rn_finish(const cs_jdoc *doc, cs_gen_model *m, cs_error *err) {
    (void)doc, (void)m, (void)err;
    return CS_OK;
}

/* image: an integer >= 1 divisible by 32 (five stride-2 stages). */
static int image_parse(const cs_jdoc *doc, const cs_opt *o, const json_t *v, void *field, cs_error *err) {
    long long x;
    if (cs_json_ll(v, &x) == 0 && x % 32 == 0) return cs_gen_opt_u32(doc, o, v, field, err);
    char got[64];
    cs_json_repr(v, got, sizeof got);
    return CS_ERR(err, CS_EINVAL, "%s:%d: %s: expected %s, got %s", doc->path, cs_jdoc_key_line(doc, o->key), o->key,
                  o->type_text, got);
}

static const cs_opt keys[] = {
    {.key = "image", .type = CS_OPT_CUSTOM, .min = 1, .max = 100000000, .unit = "pixels",
     .help = "side of the square input images (default 224)", .off = offsetof(cs_gen_resnet50, image),
     .type_text = "an integer >= 1 divisible by 32", .parse = image_parse, .dump = cs_gen_opt_u32_dump},
    {.key = "classes", .type = CS_OPT_CUSTOM, .min = 1, .max = 100000000,
     .help = "outputs of the classifier (default 1000)", .off = offsetof(cs_gen_resnet50, classes),
     .type_text = "an integer from 1 to 100000000", .parse = cs_gen_opt_u32, .dump = cs_gen_opt_u32_dump},
};

extern const cs_model_family cs_gen_family_resnet50; /* below; listed in family.c */
/* He et al. 2016, "Deep Residual Learning for Image Recognition", Table 1
 * (50-layer column), with the stride on the 3x3 convolution (torchvision's
 * "v1.5"): 25,557,032 parameters, 4.09 G multiply-accumulates per image */
static const cs_gen_model presets[] = {
    {.name = "resnet50", .family = &cs_gen_family_resnet50, .u.rn = {.image = 224, .classes = 1000}},
};

const cs_model_family cs_gen_family_resnet50 = {
    .name = "resnet50",
    .summary = "ResNet-50 v1.5 image classifier, data parallel",
    .keys = keys,
    .nkeys = sizeof keys / sizeof keys[0],
    .presets = presets,
    .npresets = sizeof presets / sizeof presets[0],
    .init = rn_init,
    .finish = rn_finish,
    .check = rn_check,
    .params = rn_params,
    .flops = rn_flops,
    .memory = rn_memory,
    .emit = rn_emit,
    .batch = rn_batch,
    .describe = rn_describe,
    .items = rn_items,
    .unit = "images/s",
    .unit_json = "images_per_s",
};
