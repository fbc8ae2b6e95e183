/*
 * gen_transformer.c -- the workload generator: model presets and model
 * files, plan checks, the memory footprint (Korthikanti et al. 2022), the
 * communicator groups of a plan and their placement on ranks, and the
 * per-rank node streams (transformers with GPipe, 1F1B or interleaved 1F1B;
 * ResNet-50 and DLRM, data parallel / table-sharded).
 *
 * One rank's graph is one chain on the compute stream: every COMP node and
 * every tensor-parallel collective depends on the node before it (Megatron's
 * TP collectives sit on the critical path).  Pipeline receives join the
 * chain; sends and data-parallel gradient buckets hang off it (they overlap
 * what follows); the optimizer step waits for every bucket.  Mixture-of-
 * experts layers add a router and all-to-all dispatch/combine on the EP
 * group; ZeRO-2/3 reduce-scatter gradients every micro-batch and ZeRO-3
 * all-gathers each layer's parameters (one layer prefetched).  See
 * docs/generator.md.
 */
#include "workload/gen_transformer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/opts.h"
#include "core/alloc.h"
#include "workload/et.h"
#include "workload/graph.h"

/* ---- models ---------------------------------------------------------------- */

static const cs_tx_model presets[] = {
    /* name          L    h      a    kv   ffn    vocab   seq  swiglu bias tied experts top_k */
    {"gpt3-6.7b", 32, 4096, 32, 32, 16384, 51200, 2048, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, {0}, {0}},
    {"gpt3-13b", 40, 5120, 40, 40, 20480, 51200, 2048, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, {0}, {0}},
    {"gpt3-22b", 48, 6144, 64, 64, 24576, 51200, 2048, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, {0}, {0}},
    {"gpt3-175b", 96, 12288, 96, 96, 49152, 51200, 2048, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, {0}, {0}},
    {"gpt3-530b", 105, 20480, 128, 128, 81920, 51200, 2048, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, {0}, {0}},
    {"gpt3-1t", 128, 25600, 160, 160, 102400, 51200, 2048, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, {0}, {0}},
    {"llama2-7b", 32, 4096, 32, 32, 11008, 32000, 4096, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, {0}, {0}},
    {"llama2-13b", 40, 5120, 40, 40, 13824, 32000, 4096, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, {0}, {0}},
    {"llama2-70b", 80, 8192, 64, 8, 28672, 32000, 4096, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, {0}, {0}},
    {"llama3-8b", 32, 4096, 32, 8, 14336, 128256, 8192, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, {0}, {0}},
    {"llama3-70b", 80, 8192, 64, 8, 28672, 128256, 8192, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, {0}, {0}},
    {"llama3-405b", 126, 16384, 128, 8, 53248, 128256, 8192, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, {0}, {0}},
    /* Jiang et al. 2024, "Mixtral of Experts", Table 1 (context 32768; trained here at 4096) */
    {"mixtral-8x7b", 32, 4096, 32, 8, 14336, 32000, 4096, 1, 0, 0, 8, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, {0}, {0}},
    /* He et al. 2016, "Deep Residual Learning for Image Recognition", Table 1
     * (50-layer column), with the stride on the 3x3 convolution (torchvision's
     * "v1.5"): 25,557,032 parameters, 4.09 G multiply-accumulates per image */
    {.name = "resnet50", .layers = 50, .arch = CS_ARCH_RESNET50, .image = 224, .classes = 1000},
    /* DLRM structure of Naumov et al. 2019, "Deep Learning Recommendation
     * Model for Personalization and Recommendation Systems" (arXiv:1906.00091);
     * the sizes are ours (docs/generator.md): 8 tables of 1 M x 64, one
     * lookup each, 512 dense features, bottom MLP 512-64, top MLP 1024-1024-1 */
    {.name = "dlrm", .arch = CS_ARCH_DLRM, .tables = 8, .rows = 1000000, .emb_dim = 64, .dense = 512, .pooling = 1,
     .nbot = 2, .bot = {512, 64}, .ntop = 3, .top = {1024, 1024, 1}},
};
#define NPRESETS (sizeof presets / sizeof presets[0])

const cs_tx_model *cs_tx_model_preset_at(size_t i) { return i < NPRESETS ? &presets[i] : NULL; }

const cs_tx_model *cs_tx_model_preset(const char *name) {
    for (size_t i = 0; i < NPRESETS; i++)
        if (strcasecmp(presets[i].name, name) == 0) return &presets[i];
    return NULL;
}

typedef struct mkey {
    const char *key;
    int required;
    size_t off;
    int is_bool;
} mkey;
static const mkey mkeys[] = {
    {"layers", 1, offsetof(cs_tx_model, layers), 0},
    {"hidden", 1, offsetof(cs_tx_model, hidden), 0},
    {"heads", 1, offsetof(cs_tx_model, heads), 0},
    {"kv_heads", 0, offsetof(cs_tx_model, kv_heads), 0},
    {"ffn_hidden", 0, offsetof(cs_tx_model, ffn_hidden), 0},
    {"vocab", 1, offsetof(cs_tx_model, vocab), 0},
    {"seq", 1, offsetof(cs_tx_model, seq), 0},
    {"swiglu", 0, offsetof(cs_tx_model, swiglu), 1},
    {"bias", 0, offsetof(cs_tx_model, bias), 1},
    {"tied_embeddings", 0, offsetof(cs_tx_model, tied_embeddings), 1},
    {"experts", 0, offsetof(cs_tx_model, experts), 0},
    {"top_k", 0, offsetof(cs_tx_model, top_k), 0},
};
#define NMKEYS (sizeof mkeys / sizeof mkeys[0])

/* DLRM model file: tables, rows, emb_dim, dense_features, pooling (1),
 * bottom_mlp and top_mlp (arrays of layer widths; the bottom MLP's last is
 * emb_dim). */
static int dlrm_load(cs_jdoc *doc, const char *path, cs_tx_model *out, cs_error *err) {
    static const char *known[] = {"name", "arch", "tables", "rows", "emb_dim", "dense_features", "pooling",
                                  "bottom_mlp", "top_mlp"};
    static const size_t offs[] = {offsetof(cs_tx_model, tables), offsetof(cs_tx_model, rows),
                                  offsetof(cs_tx_model, emb_dim), offsetof(cs_tx_model, dense),
                                  offsetof(cs_tx_model, pooling)};
    out->bias = out->tied_embeddings = 0;
    out->arch = CS_ARCH_DLRM;
    out->pooling = 1;
    for (size_t j = 0; j < doc->nm; j++) {
        int ok = 0;
        for (size_t i = 0; i < 9; i++) ok |= strcmp(doc->m[j].key, known[i]) == 0;
        if (!ok) cs_warn_unknown_key(path, doc->m[j].key_line, doc->m[j].key, known, 9);
    }
    for (size_t i = 0; i < 7; i++) {
        const char *key = known[i + 2];
        json_t *v = json_object_get(doc->root, key);
        int line = cs_jdoc_key_line(doc, key);
        if (!v) {
            if (i == 4) continue; /* pooling */
            return CS_ERR(err, CS_EINVAL, "%s:%d: %s: the key is missing", path, line, key);
        }
        char got[64];
        cs_json_repr(v, got, sizeof got);
        if (i < 5) {
            long long x;
            if (cs_json_ll(v, &x) || x < 1 || x > 1000000000)
                return CS_ERR(err, CS_EINVAL, "%s:%d: %s: expected an integer >= 1, got %s", path, line, key, got);
            *(uint32_t *)((char *)out + offs[i]) = (uint32_t)x;
            continue;
        }
        uint32_t *arr = i == 5 ? out->bot : out->top, *n = i == 5 ? &out->nbot : &out->ntop;
        if (!json_is_array(v) || json_array_size(v) < 1 || json_array_size(v) > CS_DLRM_MAXMLP)
            return CS_ERR(err, CS_EINVAL, "%s:%d: %s: expected an array of 1 to %d layer widths, got %s", path, line,
                          key, CS_DLRM_MAXMLP, got);
        for (size_t k = 0; k < json_array_size(v); k++) {
            long long x;
            if (cs_json_ll(json_array_get(v, k), &x) || x < 1 || x > 100000000)
                return CS_ERR(err, CS_EINVAL, "%s:%d: %s: expected integers >= 1, got %s", path, line, key, got);
            arr[k] = (uint32_t)x;
        }
        *n = (uint32_t)json_array_size(v);
    }
    if (out->bot[out->nbot - 1] != out->emb_dim)
        return CS_ERR(err, CS_EINVAL, "%s:%d: bottom_mlp: the last width must be emb_dim (%u), got %u", path,
                      cs_jdoc_key_line(doc, "bottom_mlp"), out->emb_dim, out->bot[out->nbot - 1]);
    return CS_OK;
}

int cs_tx_model_load_json(const char *path, cs_tx_model *out, cs_error *err) {
    cs_jdoc doc;
    int rc = cs_jdoc_load(path, "model description", &doc, err);
    if (rc) return rc;
    memset(out, 0, sizeof *out);
    out->bias = 1;
    out->tied_embeddings = 1;
    json_t *nm = json_object_get(doc.root, "name");
    if (nm && !json_is_string(nm)) {
        rc = CS_ERR(err, CS_EINVAL, "%s:%d: name: expected a string", path, cs_jdoc_key_line(&doc, "name"));
        goto done;
    }
    snprintf(out->name, sizeof out->name, "%s", nm ? json_string_value(nm) : path);
    json_t *ar = json_object_get(doc.root, "arch");
    if (ar) {
        int line = cs_jdoc_key_line(&doc, "arch");
        if (!json_is_string(ar) || (strcmp(json_string_value(ar), "resnet50") != 0 &&
                                    strcmp(json_string_value(ar), "dlrm") != 0 &&
                                    strcmp(json_string_value(ar), "transformer") != 0)) {
            char got[64];
            cs_json_repr(ar, got, sizeof got);
            rc = CS_ERR(err, CS_EINVAL, "%s:%d: arch: expected \"transformer\", \"resnet50\" or \"dlrm\", got %s", path,
                        line, got);
            goto done;
        }
    }
    if (ar && strcmp(json_string_value(ar), "dlrm") == 0) {
        rc = dlrm_load(&doc, path, out, err);
        goto done;
    }
    if (ar && strcmp(json_string_value(ar), "resnet50") == 0) {
        static const char *rknown[] = {"name", "arch", "image", "classes"};
        out->bias = out->tied_embeddings = 0;
        out->arch = CS_ARCH_RESNET50;
        out->layers = 50;
        out->image = 224;
        out->classes = 1000;
        for (size_t j = 0; j < doc.nm; j++) {
            int ok = 0;
            for (size_t i = 0; i < 4; i++) ok |= strcmp(doc.m[j].key, rknown[i]) == 0;
            if (!ok) cs_warn_unknown_key(path, doc.m[j].key_line, doc.m[j].key, rknown, 4);
        }
        for (int i = 0; i < 2; i++) {
            const char *key = i ? "classes" : "image";
            json_t *v = json_object_get(doc.root, key);
            long long x;
            if (!v) continue;
            if (cs_json_ll(v, &x) || x < 1 || x > 100000000 || (i == 0 && x % 32)) {
                char got[64];
                cs_json_repr(v, got, sizeof got);
                rc = CS_ERR(err, CS_EINVAL, "%s:%d: %s: expected an integer >= 1%s, got %s", path,
                            cs_jdoc_key_line(&doc, key), key, i ? "" : " divisible by 32", got);
                goto done;
            }
            *(i ? &out->classes : &out->image) = (uint32_t)x;
        }
        goto done;
    }
    const char *known[NMKEYS + 1];
    for (size_t i = 0; i < NMKEYS; i++) known[i] = mkeys[i].key;
    known[NMKEYS] = "name";
    for (size_t j = 0; j < doc.nm; j++) {
        int ok = 0;
        for (size_t i = 0; i < NMKEYS + 1; i++) ok |= strcmp(doc.m[j].key, known[i]) == 0;
        if (!ok) cs_warn_unknown_key(path, doc.m[j].key_line, doc.m[j].key, known, NMKEYS + 1);
    }
    for (size_t i = 0; i < NMKEYS; i++) {
        const mkey *k = &mkeys[i];
        json_t *v = json_object_get(doc.root, k->key);
        int line = cs_jdoc_key_line(&doc, k->key);
        if (!v) {
            if (k->required) {
                rc = CS_ERR(err, CS_EINVAL, "%s:%d: %s: expected an integer >= 1, the key is missing", path, line,
                            k->key);
                goto done;
            }
            continue;
        }
        if (k->is_bool) {
            if (!json_is_boolean(v)) {
                char got[64];
                cs_json_repr(v, got, sizeof got);
                rc = CS_ERR(err, CS_EINVAL, "%s:%d: %s: expected true or false, got %s", path, line, k->key, got);
                goto done;
            }
            *(int *)((char *)out + k->off) = json_is_true(v);
            continue;
        }
        long long x;
        if (cs_json_ll(v, &x) || x < 1 || x > 100000000) {
            char got[64];
            cs_json_repr(v, got, sizeof got);
            rc = CS_ERR(err, CS_EINVAL, "%s:%d: %s: expected an integer >= 1, got %s", path, line, k->key, got);
            goto done;
        }
        *(uint32_t *)((char *)out + k->off) = (uint32_t)x;
    }
    if (!out->kv_heads) out->kv_heads = out->heads;
    if (!out->ffn_hidden) out->ffn_hidden = 4 * out->hidden;
    if (out->experts && !out->top_k) out->top_k = out->experts < 2 ? out->experts : 2;
    if (out->top_k > out->experts)
        rc = CS_ERR(err, CS_EINVAL, "%s:%d: top_k: expected at most experts (%u), got %u", path,
                    cs_jdoc_key_line(&doc, "top_k"), out->experts, out->top_k);
    else if (out->hidden % out->heads)
        rc = CS_ERR(err, CS_EINVAL, "%s:%d: heads: expected a divisor of hidden (%u), got %u", path,
                    cs_jdoc_key_line(&doc, "heads"), out->hidden, out->heads);
    else if (out->heads % out->kv_heads)
        rc = CS_ERR(err, CS_EINVAL, "%s:%d: kv_heads: expected a divisor of heads (%u), got %u", path,
                    cs_jdoc_key_line(&doc, "kv_heads"), out->heads, out->kv_heads);
done:
    cs_jdoc_free(&doc);
    return rc;
}

int cs_tx_model_resolve(const char *name_or_path, cs_tx_model *out, cs_error *err) {
    const cs_tx_model *p = cs_tx_model_preset(name_or_path);
    if (p) {
        *out = *p;
        return CS_OK;
    }
    if (!strchr(name_or_path, '/') && !strstr(name_or_path, ".json")) {
        char list[1024] = "";
        for (size_t i = 0; i < NPRESETS; i++) {
            size_t used = strlen(list);
            snprintf(list + used, sizeof list - used, "%s%.63s", i ? ", " : "", presets[i].name);
        }
        return CS_ERR(err, CS_EINVAL, "--model %s: unknown preset; expected one of %s, or a JSON file", name_or_path,
                      list);
    }
    return cs_tx_model_load_json(name_or_path, out, err);
}

int cs_tx_model_write_json(const cs_tx_model *m, FILE *f) {
    if (m->arch == CS_ARCH_DLRM) {
        int rc = fprintf(f, "{\n  \"name\": \"%s\",\n  \"arch\": \"dlrm\",\n  \"tables\": %u,\n  \"rows\": %u,\n"
                            "  \"emb_dim\": %u,\n  \"dense_features\": %u,\n  \"pooling\": %u,\n  \"bottom_mlp\": [",
                         m->name, m->tables, m->rows, m->emb_dim, m->dense, m->pooling);
        for (uint32_t i = 0; rc >= 0 && i < m->nbot; i++) rc = fprintf(f, "%s%u", i ? ", " : "", m->bot[i]);
        if (rc >= 0) rc = fprintf(f, "],\n  \"top_mlp\": [");
        for (uint32_t i = 0; rc >= 0 && i < m->ntop; i++) rc = fprintf(f, "%s%u", i ? ", " : "", m->top[i]);
        if (rc >= 0) rc = fprintf(f, "]\n}\n");
        return rc < 0 ? -1 : 0;
    }
    if (m->arch == CS_ARCH_RESNET50)
        return fprintf(f, "{\n  \"name\": \"%s\",\n  \"arch\": \"resnet50\",\n  \"image\": %u,\n  \"classes\": %u\n}\n",
                       m->name, m->image, m->classes) < 0 ? -1 : 0;
    int rc = fprintf(f,
                     "{\n  \"name\": \"%s\",\n  \"layers\": %u,\n  \"hidden\": %u,\n  \"heads\": %u,\n"
                     "  \"kv_heads\": %u,\n  \"ffn_hidden\": %u,\n  \"vocab\": %u,\n  \"seq\": %u,\n"
                     "  \"swiglu\": %s,\n  \"bias\": %s,\n  \"tied_embeddings\": %s",
                     m->name, m->layers, m->hidden, m->heads, m->kv_heads, m->ffn_hidden, m->vocab, m->seq,
                     m->swiglu ? "true" : "false", m->bias ? "true" : "false", m->tied_embeddings ? "true" : "false");
    if (rc >= 0 && m->experts) rc = fprintf(f, ",\n  \"experts\": %u,\n  \"top_k\": %u", m->experts, m->top_k);
    if (rc >= 0) rc = fprintf(f, "\n}\n");
    return rc < 0 ? -1 : 0;
}

/* ---- plan -------------------------------------------------------------------- */

void cs_tx_plan_defaults(cs_tx_plan *p) {
    memset(p, 0, sizeof *p);
    p->tp = p->pp = p->dp = p->ep = p->cp = 1;
    p->cp_comm = CS_CP_ALLGATHER;
    p->schedule = CS_SCHED_1F1B;
    p->micro_batch = 1;
    p->bucket_params = 40000000;
    p->vstages = 1;
    p->order[0] = CS_DIM_TP;
    p->order[1] = CS_DIM_CP;
    p->order[2] = CS_DIM_DP;
    p->order[3] = CS_DIM_PP;
}

static uint32_t cpn(const cs_tx_plan *p) { return p->cp ? p->cp : 1; }

uint32_t cs_tx_ranks(const cs_tx_plan *p) { return p->tp * cpn(p) * p->dp * p->pp; }

/* The plan's order, or the default if it is not a permutation. */
static void plan_order(const cs_tx_plan *p, uint8_t o[CS_TX_NDIMS]) {
    static const uint8_t def[CS_TX_NDIMS] = {CS_DIM_TP, CS_DIM_CP, CS_DIM_DP, CS_DIM_PP};
    int seen = 0;
    for (int i = 0; i < CS_TX_NDIMS; i++) seen |= p->order[i] < CS_TX_NDIMS ? 1 << p->order[i] : 1 << CS_TX_NDIMS;
    for (int i = 0; i < CS_TX_NDIMS; i++) o[i] = seen == (1 << CS_TX_NDIMS) - 1 ? p->order[i] : def[i];
}

static void plan_sizes(const cs_tx_plan *p, uint32_t size[CS_TX_NDIMS]) {
    size[CS_DIM_TP] = p->tp;
    size[CS_DIM_DP] = p->dp;
    size[CS_DIM_PP] = p->pp;
    size[CS_DIM_CP] = cpn(p);
}

static void plan_strides(const cs_tx_plan *p, uint32_t st[CS_TX_NDIMS]) {
    uint8_t o[CS_TX_NDIMS];
    uint32_t size[CS_TX_NDIMS], x = 1;
    plan_sizes(p, size);
    plan_order(p, o);
    for (int i = 0; i < CS_TX_NDIMS; i++) {
        st[o[i]] = x;
        x *= size[o[i]];
    }
}

uint32_t cs_tx_rank_of(const cs_tx_plan *p, const uint32_t c[CS_TX_NDIMS]) {
    uint32_t st[CS_TX_NDIMS], r = 0;
    plan_strides(p, st);
    for (int i = 0; i < CS_TX_NDIMS; i++) r += c[i] * st[i];
    return r;
}

/* The rank of (ti, di, pi, ci). */
static uint32_t rank4(const cs_tx_plan *p, uint32_t ti, uint32_t di, uint32_t pi, uint32_t ci) {
    uint32_t c[CS_TX_NDIMS];
    c[CS_DIM_TP] = ti;
    c[CS_DIM_DP] = di;
    c[CS_DIM_PP] = pi;
    c[CS_DIM_CP] = ci;
    return cs_tx_rank_of(p, c);
}

int cs_tx_sym_axes(const cs_tx_plan *p, cs_sym_axes *out) {
    uint32_t st[CS_TX_NDIMS];
    plan_strides(p, st);
    uint32_t n = cs_tx_ranks(p);
    memset(out, 0, sizeof *out);
    if (p->tp > 1 && p->tp < n) {
        out->stride[out->n] = st[CS_DIM_TP];
        out->size[out->n++] = p->tp;
    }
    /* With ep > 1 the EP groups are blocks of the DP axis: a move along it
     * does not map them onto each other.  The DP groups then have
     * representatives only and run for real.  With cp > 1 the gradient
     * group is DP x CP, on one axis only when dp = 1 (then it is the CP
     * group); ring attention's messages would leave the class. */
    if (p->dp > 1 && p->dp < n && p->ep <= 1 && cpn(p) == 1) {
        out->stride[out->n] = st[CS_DIM_DP];
        out->size[out->n++] = p->dp;
    }
    if (cpn(p) > 1 && cpn(p) < n && p->dp == 1 && p->cp_comm == CS_CP_ALLGATHER) {
        out->stride[out->n] = st[CS_DIM_CP];
        out->size[out->n++] = cpn(p);
    }
    return out->n;
}

void cs_tx_rank_coords(const cs_tx_plan *p, uint32_t rank, uint32_t c[CS_TX_NDIMS]) {
    uint32_t st[CS_TX_NDIMS], size[CS_TX_NDIMS];
    plan_strides(p, st);
    plan_sizes(p, size);
    for (int i = 0; i < CS_TX_NDIMS; i++) c[i] = rank / st[i] % size[i];
}

static const char *const dim_name[CS_TX_NDIMS] = {"tp", "dp", "pp", "cp"};

int cs_tx_placement_parse(const char *s, cs_tx_plan *p, cs_error *err) {
    uint8_t o[CS_TX_NDIMS];
    int seen = 0, n = 0;
    const char *c = s;
    while (n < CS_TX_NDIMS) {
        size_t len = strcspn(c, ",");
        int d = -1;
        for (int k = 0; k < CS_TX_NDIMS; k++)
            if (len == 2 && strncasecmp(c, dim_name[k], 2) == 0) d = k;
        if (d < 0 || (seen & (1 << d))) break;
        seen |= 1 << d;
        o[n++] = (uint8_t)d;
        c += len;
        if (*c != ',') break;
        c++;
    }
    int full = (1 << CS_TX_NDIMS) - 1, no_cp = full & ~(1 << CS_DIM_CP);
    if (*c || (seen != full && seen != no_cp))
        return CS_ERR(err, CS_EINVAL,
                      "--placement %s: expected tp, dp and pp (and cp) once each, innermost first (e.g. tp,cp,dp,pp "
                      "or tp,dp,pp)", s);
    if (seen == no_cp) { /* cp just outside tp */
        uint8_t q[CS_TX_NDIMS];
        int k = 0;
        for (int i = 0; i < 3; i++) {
            q[k++] = o[i];
            if (o[i] == CS_DIM_TP) q[k++] = CS_DIM_CP;
        }
        memcpy(o, q, sizeof o);
    }
    memcpy(p->order, o, sizeof o);
    return CS_OK;
}

void cs_tx_placement_format(const cs_tx_plan *p, char *buf, size_t n) {
    static const char *up[CS_TX_NDIMS] = {"TP", "DP", "PP", "CP"};
    uint8_t o[CS_TX_NDIMS], v[CS_TX_NDIMS];
    uint32_t st[CS_TX_NDIMS];
    int k = 0;
    plan_order(p, o);
    plan_strides(p, st);
    for (int i = 0; i < CS_TX_NDIMS; i++)
        if (o[i] != CS_DIM_CP || cpn(p) > 1) v[k++] = o[i]; /* without context parallelism, three dimensions */
    size_t len = (size_t)snprintf(buf, n, "rank = %s_i", dim_name[v[0]]);
    for (int i = 1; i < k && len < n; i++) len += (size_t)snprintf(buf + len, n - len, " + %u %s_i", st[v[i]], dim_name[v[i]]);
    for (int i = 0; i < k && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s%s", i == 0 ? ": " : ", then ", up[v[i]], i == 0 ? " innermost" : "");
    if (len < n) len += (size_t)snprintf(buf + len, n - len, " (--placement ");
    for (int i = 0; i < k && len < n; i++) len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? "," : "", dim_name[v[i]]);
    if (len < n) snprintf(buf + len, n - len, ")");
}

uint32_t cs_tx_micro_batches(const cs_tx_plan *p) {
    return p->global_batch / (p->micro_batch * p->dp);
}

static uint32_t vst(const cs_tx_plan *p) { return p->vstages ? p->vstages : 1; }

int cs_tx_plan_check(const cs_tx_model *m, const cs_tx_plan *p, cs_error *err) {
    if (!p->tp || !p->pp || !p->dp) return CS_ERR(err, CS_EINVAL, "--tp/--pp/--dp: expected integers >= 1");
    if (cpn(p) > 1) {
        if (m->arch != CS_ARCH_TRANSFORMER)
            return CS_ERR(err, CS_EINVAL, "--cp %u: context parallelism splits a transformer's sequence; %s has none",
                          p->cp, m->name);
        if (m->seq % (p->cp * (p->sp ? p->tp : 1)))
            return CS_ERR(err, CS_EINVAL, "--cp %u: the sequence (%u) must be divisible by cp%s (%u)", p->cp, m->seq,
                          p->sp ? " x tp with --sp" : "", p->cp * (p->sp ? p->tp : 1));
        if (p->ep > 1)
            return CS_ERR(err, CS_EINVAL, "--cp %u with --ep %u: expert parallelism with context parallelism is not "
                          "modelled; expected --ep 1", p->cp, p->ep);
    }
    if (p->cp_comm != CS_CP_ALLGATHER && p->cp_comm != CS_CP_P2P)
        return CS_ERR(err, CS_EINVAL, "--cp-comm: expected allgather or p2p");
    if (vst(p) > 1) {
        uint32_t mbs = p->micro_batch && p->dp ? p->global_batch / (p->micro_batch * p->dp) : 0;
        if (m->arch != CS_ARCH_TRANSFORMER || p->pp < 2 || p->schedule != CS_SCHED_1F1B || p->zero > 2)
            return CS_ERR(err, CS_EINVAL,
                          "--virtual-stages %u: interleaving needs a transformer, --pp > 1, --schedule 1f1b and "
                          "--zero 0..2", p->vstages);
        if (m->layers < p->pp * p->vstages)
            return CS_ERR(err, CS_EINVAL, "--virtual-stages %u: expected at least one layer per model chunk, got %u "
                          "layers for pp x virtual stages = %u chunks", p->vstages, m->layers, p->pp * p->vstages);
        if (!mbs || mbs % p->pp)
            return CS_ERR(err, CS_EINVAL, "--virtual-stages %u: the micro-batch count (%u) must be a multiple of --pp %u",
                          p->vstages, mbs, p->pp);
    }
    if (m->arch == CS_ARCH_DLRM) {
        if (p->tp != 1 || p->pp != 1 || p->ep != 1 || p->zero != 0)
            return CS_ERR(err, CS_EINVAL,
                          "--tp/--pp/--ep/--zero: %s shards its tables over --dp ranks and replicates its MLPs; "
                          "expected 1/1/1/0, got %u/%u/%u/%d", m->name, p->tp, p->pp, p->ep, p->zero);
        if (m->tables % p->dp)
            return CS_ERR(err, CS_EINVAL, "--dp %u: expected a divisor of the table count (%u)", p->dp, m->tables);
        if (!p->micro_batch) return CS_ERR(err, CS_EINVAL, "--micro-batch: expected an integer >= 1");
        if (!p->global_batch || p->global_batch % (p->micro_batch * p->dp))
            return CS_ERR(err, CS_EINVAL, "--global-batch %u: expected a multiple of micro-batch x dp (%u x %u)",
                          p->global_batch, p->micro_batch, p->dp);
        return CS_OK;
    }
    if (m->arch == CS_ARCH_RESNET50) {
        if (p->tp != 1 || p->pp != 1 || p->ep != 1)
            return CS_ERR(err, CS_EINVAL, "--tp/--pp/--ep: %s is data-parallel only; expected 1, got %u/%u/%u", m->name,
                          p->tp, p->pp, p->ep);
        if (p->zero < 0 || p->zero > 2)
            return CS_ERR(err, CS_EINVAL, "--zero %d: expected 0, 1 or 2 for %s", p->zero, m->name);
        if (!m->image || m->image % 32 || !m->classes)
            return CS_ERR(err, CS_EINVAL, "%s: image must be a multiple of 32 and classes >= 1", m->name);
        if (!p->micro_batch) return CS_ERR(err, CS_EINVAL, "--micro-batch: expected an integer >= 1");
        if (!p->global_batch || p->global_batch % (p->micro_batch * p->dp))
            return CS_ERR(err, CS_EINVAL, "--global-batch %u: expected a multiple of micro-batch x dp (%u x %u)",
                          p->global_batch, p->micro_batch, p->dp);
        return CS_OK;
    }
    if (m->heads % p->tp || m->kv_heads % p->tp || m->ffn_hidden % p->tp)
        return CS_ERR(err, CS_EINVAL, "--tp %u: expected a divisor of heads (%u), kv_heads (%u) and ffn_hidden (%u)",
                      p->tp, m->heads, m->kv_heads, m->ffn_hidden);
    if (m->layers < p->pp)
        return CS_ERR(err, CS_EINVAL, "--pp %u: expected at most one stage per layer (%u layers)", p->pp, m->layers);
    if (p->sp && m->seq % p->tp)
        return CS_ERR(err, CS_EINVAL, "--sp: the sequence (%u) must be divisible by --tp %u", m->seq, p->tp);
    if (!p->micro_batch) return CS_ERR(err, CS_EINVAL, "--micro-batch: expected an integer >= 1");
    if (!p->global_batch || p->global_batch % (p->micro_batch * p->dp))
        return CS_ERR(err, CS_EINVAL, "--global-batch %u: expected a multiple of micro-batch x dp (%u x %u)",
                      p->global_batch, p->micro_batch, p->dp);
    if (!p->ep || p->dp % p->ep || (p->ep > 1 && (!m->experts || m->experts % p->ep)))
        return CS_ERR(err, CS_EINVAL, "--ep %u: expected a divisor of --dp (%u) and of the expert count (%u)", p->ep,
                      p->dp, m->experts);
    if (p->zero < 0 || p->zero > 3) return CS_ERR(err, CS_EINVAL, "--zero %d: expected 0, 1, 2 or 3", p->zero);
    if ((uint64_t)p->tp * p->pp * p->dp * cpn(p) > UINT32_MAX / 2)
        return CS_ERR(err, CS_EINVAL, "tp x cp x pp x dp: too many ranks");
    return CS_OK;
}

/* ---- ResNet-50 ----------------------------------------------------------------- *
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

static size_t rn_layers(const cs_tx_model *m, rn_layer *L) {
    size_t n = 0;
    double H = m->image / 4.0, cin = 64;
    L[n++] = (rn_layer){"conv1", m->image / 2.0, 3, 64, 7, 2};
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
    L[n++] = (rn_layer){"fc", 1, 2048, m->classes, 1, 1};
    return n;
}

static double rn_layer_macs(const rn_layer *x) { return x->hout * x->hout * x->cin * x->cout * x->k * x->k; }
static double rn_layer_params(const rn_layer *x, int is_fc) {
    return x->cin * x->cout * x->k * x->k + (is_fc ? x->cout : 2 * x->cout); /* fc bias, or BatchNorm */
}

double cs_rn_forward_macs(const cs_tx_model *m) {
    rn_layer L[RN_MAXL];
    size_t n = rn_layers(m, L);
    double s = 0;
    for (size_t i = 0; i < n; i++) s += rn_layer_macs(&L[i]);
    return s;
}

static double rn_params(const cs_tx_model *m) {
    rn_layer L[RN_MAXL];
    size_t n = rn_layers(m, L);
    double s = 0;
    for (size_t i = 0; i < n; i++) s += rn_layer_params(&L[i], i + 1 == n);
    return s;
}

/* Stored activations per image: every convolution's output and its
 * BatchNorm's output (the ReLU runs in place), fp16 -> 2 elements per
 * output element; plus the input image (3 image^2). */
double cs_rn_activation_elems(const cs_tx_model *m) {
    rn_layer L[RN_MAXL];
    size_t n = rn_layers(m, L);
    double s = 3.0 * m->image * m->image;
    for (size_t i = 0; i + 1 < n; i++) s += 2 * L[i].hout * L[i].hout * L[i].cout;
    return s;
}

/* ---- DLRM ------------------------------------------------------------------------- */

/* Layer widths of the bottom (which = 0) or top (1) MLP: in[i] -> out[i]. */
static uint32_t dlrm_mlp(const cs_tx_model *m, int which, double *in, double *out) {
    uint32_t n = which ? m->ntop : m->nbot;
    const uint32_t *w = which ? m->top : m->bot;
    double F = m->tables + 1.0, x = which ? m->emb_dim + F * (F - 1) / 2 : m->dense;
    for (uint32_t i = 0; i < n; i++) {
        in[i] = x;
        out[i] = w[i];
        x = w[i];
    }
    return n;
}

double cs_dlrm_mlp_params(const cs_tx_model *m) {
    double in[CS_DLRM_MAXMLP], out[CS_DLRM_MAXMLP], s = 0;
    for (int w = 0; w < 2; w++)
        for (uint32_t i = 0, n = dlrm_mlp(m, w, in, out); i < n; i++) s += in[i] * out[i] + out[i];
    return s;
}

double cs_dlrm_emb_params(const cs_tx_model *m) { return (double)m->tables * m->rows * m->emb_dim; }

double cs_dlrm_forward_flops(const cs_tx_model *m) {
    double in[CS_DLRM_MAXMLP], out[CS_DLRM_MAXMLP], s = 0, F = m->tables + 1.0;
    for (int w = 0; w < 2; w++)
        for (uint32_t i = 0, n = dlrm_mlp(m, w, in, out); i < n; i++) s += 2 * in[i] * out[i];
    return s + 2 * F * F * m->emb_dim; /* interaction: Z Z^T of the F x d feature matrix */
}

/* ---- parameters and FLOPs ------------------------------------------------------ */

static double head_dim(const cs_tx_model *m) { return (double)m->hidden / m->heads; }
static double qkv_out(const cs_tx_model *m) { return m->hidden + 2.0 * m->kv_heads * head_dim(m); }
static double mlp_mats(const cs_tx_model *m) { return m->swiglu ? 3.0 : 2.0; }

/* MoE expert parameters of one layer (0 for a dense model): E expert MLPs. */
static double layer_expert_params(const cs_tx_model *m) {
    double h = m->hidden, f = m->ffn_hidden;
    return m->experts * (mlp_mats(m) * h * f + (m->bias ? f + h : 0));
}

double cs_tx_layer_params(const cs_tx_model *m) {
    double h = m->hidden, f = m->ffn_hidden;
    double p = h * qkv_out(m) + h * h;
    if (m->bias) p += qkv_out(m) + h;
    if (m->experts) p += layer_expert_params(m) + h * m->experts; /* experts + router */
    else p += mlp_mats(m) * h * f + (m->bias ? f + h : 0);
    p += m->bias ? 4 * h : 2 * h; /* two LayerNorms (weight+bias) or RMSNorms */
    return p;
}

static double embed_params(const cs_tx_model *m) {
    return (double)m->vocab * m->hidden + (m->bias ? (double)m->seq * m->hidden : 0); /* learned positions */
}
static double head_params(const cs_tx_model *m) {
    return (m->bias ? 2.0 : 1.0) * m->hidden + (m->tied_embeddings ? 0 : (double)m->vocab * m->hidden);
}

double cs_tx_total_params(const cs_tx_model *m) {
    if (m->arch == CS_ARCH_RESNET50) return rn_params(m);
    if (m->arch == CS_ARCH_DLRM) return cs_dlrm_mlp_params(m) + cs_dlrm_emb_params(m);
    return m->layers * cs_tx_layer_params(m) + embed_params(m) + head_params(m);
}

/* Matmul FLOPs per token of one layer's forward pass (s = sequence). */
static double layer_fwd_flops_per_token(const cs_tx_model *m) {
    double h = m->hidden, mlp = mlp_mats(m) * h * m->ffn_hidden;
    if (m->experts) mlp = m->top_k * mlp + h * m->experts; /* top_k experts per token + router */
    return 2.0 * (h * qkv_out(m) + h * h + mlp) + 4.0 * m->seq * h;
}

double cs_tx_model_flops(const cs_tx_model *m, const cs_tx_plan *p) {
    if (m->arch == CS_ARCH_RESNET50) return 3.0 * p->global_batch * 2.0 * cs_rn_forward_macs(m);
    if (m->arch == CS_ARCH_DLRM) return 3.0 * p->global_batch * cs_dlrm_forward_flops(m);
    double tokens = (double)p->global_batch * m->seq;
    return 3.0 * tokens * (m->layers * layer_fwd_flops_per_token(m) + 2.0 * m->hidden * (double)m->vocab);
}

/* ---- memory ------------------------------------------------------------------ */

/* Layers of virtual stage k of V: ceil(layers / V) each but for the deficit,
 * taken one layer each from the last, the first, the second-last, ... */
static uint32_t vstage_layers(uint32_t layers, uint32_t V, uint32_t k, uint32_t *first) {
    uint32_t q = (layers + V - 1) / V, deficit = V * q - layers;
    uint32_t lo = 0, n = 0;
    for (uint32_t j = 0; j <= k; j++) {
        uint32_t e = j < V - 1 - j ? j : V - 1 - j;           /* distance from the nearer end */
        uint32_t order = 2 * e + (j < V - 1 - j ? 1u : 0u);   /* last, first, second-last, ... */
        lo += n;
        n = q - (order < deficit ? 1u : 0u);
    }
    if (first) *first = lo;
    return n;
}

uint32_t cs_tx_stage_layers(const cs_tx_model *m, const cs_tx_plan *p, uint32_t st, uint32_t *first) {
    uint32_t v = vst(p), n = 0;
    if (v <= 1) return vstage_layers(m->layers, p->pp, st, first);
    for (uint32_t c = 0; c < v; c++) n += vstage_layers(m->layers, p->pp * v, c * p->pp + st, c == 0 ? first : NULL);
    return n;
}

static double stage_params(const cs_tx_model *m, const cs_tx_plan *p, uint32_t st) {
    double x = (double)cs_tx_stage_layers(m, p, st, NULL) * cs_tx_layer_params(m);
    if (st == 0) x += embed_params(m);
    if (st == p->pp - 1) {
        x += head_params(m);
        if (m->tied_embeddings && p->pp > 1) x += (double)m->vocab * m->hidden; /* Megatron's copy */
    }
    return x / p->tp;
}

/* Korthikanti et al. 2022, Table 2: activation bytes of one layer, one
 * micro-batch, with s the rank's seq / cp tokens; the attention scores
 * (5 a s^2 b) are the rank's s queries against all seq keys. */
static double layer_act_bytes(const cs_tx_model *m, const cs_tx_plan *p, int recompute) {
    double s = (double)m->seq / cpn(p), S = m->seq, b = p->micro_batch, h = m->hidden, a = m->heads, t = p->tp;
    double sbh = s * b * h;
    if (p->flash && recompute == CS_RECOMP_NONE) recompute = CS_RECOMP_SELECTIVE; /* no stored scores */
    switch (recompute) {
    case CS_RECOMP_FULL: return p->sp ? 2 * sbh / t : 2 * sbh;
    case CS_RECOMP_SELECTIVE: return p->sp ? 34 * sbh / t : sbh * (10 + 24 / t);
    default: return p->sp ? sbh / t * (34 + 5 * a * S / h) : sbh * (10 + 24 / t + 5 * a * S / (h * t));
    }
}

/* Ranks over which dense and expert parameters are replicated (ZeRO shards
 * over them): DP x CP, and the expert-DP group (dp / ep; with ep = 1 the
 * DP x CP group). */
static double dp_ranks(const cs_tx_plan *p) { return (double)p->dp * cpn(p); }
static double edp_ranks(const cs_tx_plan *p) { return p->ep > 1 ? (double)p->dp / p->ep : dp_ranks(p); }

/* Expert parameters of a rank of stage st: the stage's layers' experts / (ep t). */
static double stage_expert_params(const cs_tx_model *m, const cs_tx_plan *p, uint32_t st) {
    return (double)cs_tx_stage_layers(m, p, st, NULL) * layer_expert_params(m) / ((double)p->ep * p->tp);
}

void cs_tx_memory_stage(const cs_tx_model *m, const cs_tx_plan *p, uint32_t st, cs_tx_memory *o) {
    memset(o, 0, sizeof *o);
    o->stage = st;
    if (m->arch == CS_ARCH_DLRM) { /* MLPs replicated (16 B/param), local tables fp32 with in-place SGD */
        double P = cs_dlrm_mlp_params(m), d = m->emb_dim, F = m->tables + 1.0, b = p->micro_batch;
        double in[CS_DLRM_MAXMLP], out[CS_DLRM_MAXMLP], outs = 0, tl = (double)m->tables / p->dp;
        for (int w = 0; w < 2; w++)
            for (uint32_t i = 0, n = dlrm_mlp(m, w, in, out); i < n; i++) outs += out[i];
        o->params = P;
        o->weights = 2 * P + 4 * tl * m->rows * d;
        o->grads = 2 * P;
        o->optimizer = 12 * P;
        o->inflight = 1;
        o->activations = 2 * b * (outs + F * d + F * (F - 1) / 2) + 4 * b * p->dp * tl * d;
        o->total = o->weights + o->grads + o->optimizer + o->activations;
        return;
    }
    if (m->arch == CS_ARCH_RESNET50) { /* data parallel only; one micro-batch's activations at a time */
        double P = rn_params(m), dp = p->dp;
        o->params = P;
        o->weights = 2 * P;
        o->grads = 2 * P / (p->zero >= 2 ? dp : 1);
        o->optimizer = 12 * P / (p->zero >= 1 ? dp : 1);
        o->inflight = 1;
        o->activations = 2.0 * p->micro_batch * cs_rn_activation_elems(m);
        o->total = o->weights + o->grads + o->optimizer + o->activations;
        return;
    }
    /* dense parameters are replicated over dp, experts over dp/ep (ZeRO shards over those) */
    double Pe = stage_expert_params(m, p, st);
    double Pd = stage_params(m, p, st) - Pe * p->ep, dp = dp_ranks(p), edp = edp_ranks(p);
    o->params = Pd + Pe;
    o->expert_params = Pe;
    o->weights = 2 * (Pd / (p->zero >= 3 ? dp : 1) + Pe / (p->zero >= 3 ? edp : 1));
    o->grads = 2 * (Pd / (p->zero >= 2 ? dp : 1) + Pe / (p->zero >= 2 ? edp : 1));
    o->optimizer = 12 * (Pd / (p->zero >= 1 ? dp : 1) + Pe / (p->zero >= 1 ? edp : 1));
    uint32_t mb = cs_tx_micro_batches(p);
    uint32_t inflight = p->schedule == CS_SCHED_GPIPE ? mb : (p->pp - st < mb ? p->pp - st : mb);
    double L = cs_tx_stage_layers(m, p, st, NULL);
    if (vst(p) > 1) { /* interleaved: warm-up + 1 chunk-micro-batches of (on average) L / v layers each */
        uint32_t v = vst(p), u = (p->pp - st - 1) * 2 + (v - 1) * p->pp + 1;
        inflight = u < mb * v ? u : mb * v;
        L /= v;
    }
    o->inflight = inflight;
    o->activations = inflight * L * layer_act_bytes(m, p, p->recompute);
    if (p->recompute == CS_RECOMP_FULL) o->activations += layer_act_bytes(m, p, CS_RECOMP_NONE);
    if (st == p->pp - 1) /* final norm, output layer, loss (Korthikanti eq. 5) */
        o->activations += 4.0 * m->seq / cpn(p) * p->micro_batch * ((double)m->hidden + m->vocab) / p->tp;
    o->total = o->weights + o->grads + o->optimizer + o->activations;
}

void cs_tx_memory_format(const cs_tx_memory *mm, char *buf, size_t n) {
    snprintf(buf, n,
             "stage %u: weights %.2f GB + gradients %.2f GB + optimizer %.2f GB + activations %.2f GB "
             "(%u micro-batches in flight) = %.2f GB",
             mm->stage, mm->weights / 1e9, mm->grads / 1e9, mm->optimizer / 1e9, mm->activations / 1e9, mm->inflight,
             mm->total / 1e9);
}

void cs_tx_memory_worst(const cs_tx_model *m, const cs_tx_plan *p, cs_tx_memory *w) {
    cs_tx_memory x;
    cs_tx_memory_stage(m, p, 0, w);
    for (uint32_t s = 1; s < p->pp; s++) {
        cs_tx_memory_stage(m, p, s, &x);
        if (x.total > w->total) *w = x;
    }
}

int cs_tx_memory_check(const cs_tx_model *m, const cs_tx_plan *p, const cs_device *d, cs_tx_memory *worst,
                       cs_error *err) {
    cs_tx_memory w;
    cs_tx_memory_worst(m, p, &w);
    if (worst) *worst = w;
    if (w.total > d->hbm_bytes) {
        char buf[512];
        cs_tx_memory_format(&w, buf, sizeof buf);
        return CS_ERR(err, CS_EINVAL, "the plan does not fit in memory: %s > %s HBM %.2f GB", buf, d->name,
                      d->hbm_bytes / 1e9);
    }
    return CS_OK;
}

/* ---- communicator groups -------------------------------------------------------- */

void cs_tx_comm_groups(const cs_tx_plan *p, cs_comm_groups *out) {
    memset(out, 0, sizeof *out);
    uint32_t cp = cpn(p);
    size_t ntp = (size_t)p->pp * p->dp * cp, ndp = (size_t)p->pp * p->tp;
    uint32_t ep = p->ep ? p->ep : 1, edp = p->dp / ep;
    size_t nep = ep > 1 ? ndp * edp : 0, nedp = ep > 1 ? ndp * ep : 0;
    size_t ncp = cp > 1 ? (size_t)p->pp * p->dp * p->tp : 0, base_cp = ntp + ndp + nep + nedp;
    out->ngroups = base_cp + ncp;
    out->groups = cs_calloc(out->ngroups, sizeof *out->groups);
    for (size_t g = 0; g < out->ngroups; g++) {
        cs_comm_group *cg = &out->groups[g];
        char name[24];
        snprintf(name, sizeof name, "%u", (unsigned)(g + 1));
        cg->name = cs_strdup(name);
        cg->id = (uint32_t)(g + 1);
        int is_tp = g < ntp, is_dp = !is_tp && g < ntp + ndp, is_ep = !is_tp && !is_dp && g < ntp + ndp + nep;
        int is_cp = g >= base_cp;
        cg->nranks = is_tp ? p->tp : is_dp ? p->dp * cp : is_cp ? cp : is_ep ? ep : edp;
        cg->ranks = cs_malloc(cg->nranks * sizeof *cg->ranks);
        cg->rank_lines = cs_calloc(cg->nranks, sizeof *cg->rank_lines);
        for (uint32_t i = 0; i < cg->nranks; i++) {
            if (is_tp) { /* (pi, di, ci) */
                uint32_t pd = (uint32_t)(g / cp), ci = (uint32_t)(g % cp);
                cg->ranks[i] = rank4(p, i, pd % p->dp, pd / p->dp, ci);
            } else if (is_dp) { /* (pi, ti): DP x CP, member i = (di = i / cp, ci = i % cp) */
                uint32_t pi = (uint32_t)((g - ntp) / p->tp), ti = (uint32_t)((g - ntp) % p->tp);
                cg->ranks[i] = rank4(p, ti, i / cp, pi, i % cp);
            } else if (is_cp) { /* (pi, di, ti) */
                size_t k = g - base_cp, pd = k / p->tp;
                uint32_t ti = (uint32_t)(k % p->tp);
                cg->ranks[i] = rank4(p, ti, (uint32_t)(pd % p->dp), (uint32_t)(pd / p->dp), i);
            } else if (is_ep) { /* (pi, ti, block): DP indices block*ep + i */
                size_t k = g - ntp - ndp, pt = k / edp, blk = k % edp;
                uint32_t pi = (uint32_t)(pt / p->tp), ti = (uint32_t)(pt % p->tp);
                cg->ranks[i] = rank4(p, ti, (uint32_t)blk * ep + i, pi, 0);
            } else { /* expert-DP (pi, ti, e): DP indices e + ep*i */
                size_t k = g - ntp - ndp - nep, pt = k / ep, e = k % ep;
                uint32_t pi = (uint32_t)(pt / p->tp), ti = (uint32_t)(pt % p->tp);
                cg->ranks[i] = rank4(p, ti, (uint32_t)e + ep * i, pi, 0);
            }
        }
    }
}

int cs_tx_comm_groups_write(const cs_comm_groups *g, const char *path, cs_error *err) {
    FILE *f = fopen(path, "w");
    if (!f) return CS_ERR(err, CS_EIO, "%s: cannot write", path);
    fputs("{\n", f);
    for (size_t i = 0; i < g->ngroups; i++) {
        fprintf(f, "  \"%s\": [", g->groups[i].name);
        for (uint32_t k = 0; k < g->groups[i].nranks; k++) fprintf(f, "%s%u", k ? ", " : "", g->groups[i].ranks[k]);
        fprintf(f, "]%s\n", i + 1 < g->ngroups ? "," : "");
    }
    fputs("}\n", f);
    if (fclose(f) != 0) return CS_ERR(err, CS_EIO, "%s: cannot write", path);
    return CS_OK;
}

/* ---- generation -------------------------------------------------------------------- */

enum { PG_DP = 0, PG_TP = 1, PG_EP = 2, PG_EDP = 3, PG_CP = 4, PG_N = 5 };

typedef struct gen {
    const cs_tx_model *m;
    const cs_tx_plan *p;
    const cs_device *d;
    uint32_t rank, ti, di, pi, ci;
    char pg[PG_N][16];           /* PG_* communicator names of the rank */
    cs_tx_sink sink;
    void *ud;
    cs_tx_stats *st;
    cs_error *err;
    int rc;
    uint64_t next_id, last;      /* last = tail of the chain (0 = none) */
    uint64_t *extra;             /* dependencies for the optimizer (DP buckets) */
    size_t nextra, capextra;
    uint64_t need[2];            /* ZeRO-3 gathers the next chained node waits for */
    size_t nneed;
    uint64_t pf[2];              /* ZeRO-3 prefetched gather of layer pf_layer */
    size_t npf;
    uint32_t pf_layer;
    int recomputing;             /* inside a full recomputation's forward */
    uint32_t clo, chi, M;        /* layers [clo, chi) of the current chunk; micro-batches */
    uint32_t cpring;             /* ring attention passes so far (their messages' tags) */
    double deferred[2];          /* gradients (dense, expert) left for grad_flush */
    /* shapes: s = the whole sequence, sq = the rank's seq / cp of it, sb = sq b */
    double s, sq, b, h, a, g, hd, f, t, sb, sl, V;
} gen;

static void take_needs(gen *G, cs_et_nb *nb) {
    for (size_t i = 0; i < G->nneed; i++) cs_et_nb_data_dep(nb, G->need[i]);
    G->nneed = 0;
}

static void emit(gen *G, cs_et_nb *nb) {
    if (G->rc == CS_OK) {
        G->rc = G->sink(G->ud, cs_et_nb_node(nb), G->err);
        G->st->nodes++;
    }
    cs_et_nb_free(nb);
}

/* A COMP node on the chain: flops (matmuls), bytes moved, seconds. */
static void comp(gen *G, const char *name, double flops, double bytes, double secs) {
    uint64_t id = ++G->next_id;
    cs_et_nb *nb = cs_et_nb_new(id, name, CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE);
    if (G->last) cs_et_nb_data_dep(nb, G->last);
    take_needs(G, nb);
    double us = floor(secs * 1e6 + 0.5);
    cs_et_nb_duration_us(nb, us < 1 ? 1 : (uint64_t)us);
    cs_et_nb_attr_bool(nb, "is_cpu_op", 0);
    cs_et_nb_attr_uint64(nb, "num_ops", (uint64_t)llround(flops));
    cs_et_nb_attr_uint64(nb, "tensor_size", (uint64_t)llround(bytes));
    emit(G, nb);
    G->last = id;
    G->st->matmul_flops += (double)(uint64_t)llround(flops);
    G->st->compute_s += secs;
}

/* A collective on the rank's PG_* group `kind`; chained (blocking) or hanging
 * off the chain.  Returns its id. */
static uint64_t coll(gen *G, const char *name, int type, double bytes, int kind, int chained) {
    uint64_t id = ++G->next_id;
    cs_et_nb *nb = cs_et_nb_new(id, name, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE);
    if (G->last) cs_et_nb_data_dep(nb, G->last);
    if (chained) take_needs(G, nb);
    cs_et_nb_attr_bool(nb, "is_cpu_op", 0);
    cs_et_nb_attr_int64(nb, "comm_type", type);
    cs_et_nb_attr_uint64(nb, "comm_size", (uint64_t)llround(bytes));
    cs_et_nb_attr_string(nb, "pg_name", G->pg[kind]);
    emit(G, nb);
    if (chained) G->last = id;
    double b = (double)(uint64_t)llround(bytes);
    if (kind == PG_TP) {
        G->st->tp_colls++;
        G->st->tp_bytes += b;
    } else if (kind == PG_CP) {
        G->st->cp_colls++;
        G->st->cp_bytes += b;
    } else if (kind == PG_EP) {
        G->st->ep_colls++;
        G->st->ep_bytes += b;
    } else {
        G->st->dp_colls++;
        G->st->dp_bytes += b;
        if (type == CS_COLL_ALL_GATHER) G->st->dp_ag_bytes += b;
        if (type == CS_COLL_REDUCE_SCATTER) G->st->dp_rs_bytes += b;
    }
    return id;
}

/* A COMM_SEND/RECV node after the chain's tail (and `dep`, if not 0).  A
 * receive joins the chain when `join`; sends never do.  cp = 1 counts it
 * as a ring attention message, else as a pipeline boundary.  Returns its id. */
static uint64_t p2p_node(gen *G, int send, uint32_t peer, int32_t tag, double bytes, uint64_t dep, int join, int cp) {
    uint64_t id = ++G->next_id;
    cs_et_nb *nb = cs_et_nb_new(id, send ? "send" : "recv",
                                send ? CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE
                                     : CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE);
    if (G->last) cs_et_nb_data_dep(nb, G->last);
    if (dep) cs_et_nb_data_dep(nb, dep);
    cs_et_nb_attr_bool(nb, "is_cpu_op", 0);
    cs_et_nb_attr_int32(nb, "comm_src", (int32_t)(send ? G->rank : peer));
    cs_et_nb_attr_int32(nb, "comm_dst", (int32_t)(send ? peer : G->rank));
    cs_et_nb_attr_int32(nb, "comm_tag", tag);
    cs_et_nb_attr_uint64(nb, "comm_size", (uint64_t)llround(bytes));
    emit(G, nb);
    if (cp && send) {
        G->st->cp_sends++;
        G->st->cp_p2p_bytes += bytes;
    } else if (cp) {
        G->st->cp_recvs++;
    } else if (send) {
        G->st->sends++;
        G->st->p2p_bytes += bytes;
    } else {
        G->st->recvs++;
    }
    if (!send && join) G->last = id; /* what follows waits for the data */
    return id;
}

/* A pipeline boundary: sends hang off the chain, receives join it. */
static void p2p(gen *G, int send, uint32_t peer, int32_t tag, double bytes) {
    p2p_node(G, send, peer, tag, bytes, 0, 1, 0);
}

static double gemm(gen *G, double m, double n, double k) { return cs_device_gemm_s(G->d, m, n, k, 2); }
static double strm(gen *G, double bytes) { return cs_device_stream_s(G->d, bytes); }

/* TP collectives.  The tensor is sb x h (2-byte elements).  "reduce" is Megatron's g
 * (all-reduce, or reduce-scatter with SP), "gather" its g-bar (nothing, or all-gather). */
static void tp_reduce(gen *G, const char *name) {
    if (G->p->tp < 2) return;
    if (G->p->sp) coll(G, name, CS_COLL_REDUCE_SCATTER, G->sb * G->h * 2, PG_TP, 1);
    else coll(G, name, CS_COLL_ALL_REDUCE, G->sb * G->h * 2, PG_TP, 1);
}
static void tp_gather(gen *G, const char *name) {
    if (G->p->tp < 2 || !G->p->sp) return;
    coll(G, name, CS_COLL_ALL_GATHER, G->sb * G->h * 2 / G->t, PG_TP, 1); /* comm_size = each rank's shard */
}

/* ---- mixture of experts: router, all-to-all dispatch, experts, all-to-all combine ----
 * Balanced routing: each of the rank's sb tokens goes to top_k experts, so the
 * rank sends and receives sb k token vectors; comm_size of each all-to-all is
 * the rank's whole send buffer, sb k h 2 bytes.  Experts are sharded over TP
 * like the dense MLP (f/t columns); the router (2 sb h E FLOPs) is counted 1/t
 * per TP rank. */
static void moe_fwd(gen *G, const char *tag, uint32_t l) {
    char nm[64];
    double E = G->m->experts, k = G->m->top_k, f = G->f / G->t, mm = G->m->swiglu ? 2 : 1, ep = G->p->ep;
    double tok = G->sb * k, le = E / ep, rows = tok / le;
    snprintf(nm, sizeof nm, "%sL%u.router", tag, l);
    comp(G, nm, 2 * G->sb * G->h * E / G->t, 2 * (G->sb * G->h + G->h * E) + 4 * G->sb * E,
         gemm(G, G->sb / G->t, E, G->h) + strm(G, 4 * G->sb * E));
    if (ep > 1) {
        snprintf(nm, sizeof nm, "%sL%u.dispatch", tag, l);
        coll(G, nm, CS_COLL_ALL_TO_ALL, tok * G->h * 2, PG_EP, 1);
    }
    snprintf(nm, sizeof nm, "%sL%u.experts", tag, l);
    double tm = le * (mm * gemm(G, rows, f, G->h) + gemm(G, rows, G->h, f)) + strm(G, (mm == 2 ? 6 : 4) * tok * f);
    comp(G, nm, 2 * tok * G->h * f * (mm + 1), 2 * (le * (mm + 1) * G->h * f + 2 * tok * G->h) + 4 * tok * f * mm, tm);
    if (ep > 1) {
        snprintf(nm, sizeof nm, "%sL%u.combine", tag, l);
        coll(G, nm, CS_COLL_ALL_TO_ALL, tok * G->h * 2, PG_EP, 1);
    }
}

static void moe_bwd(gen *G, uint32_t l) {
    char nm[64];
    double E = G->m->experts, k = G->m->top_k, f = G->f / G->t, mm = G->m->swiglu ? 2 : 1, ep = G->p->ep;
    double tok = G->sb * k, le = E / ep, rows = tok / le;
    if (ep > 1) {
        snprintf(nm, sizeof nm, "bwd.L%u.combine", l);
        coll(G, nm, CS_COLL_ALL_TO_ALL, tok * G->h * 2, PG_EP, 1);
    }
    snprintf(nm, sizeof nm, "bwd.L%u.experts", l);
    double tm = 2 * le * (mm * gemm(G, rows, f, G->h) + gemm(G, rows, G->h, f)) +
                strm(G, 2 * (mm == 2 ? 6 : 4) * tok * f);
    comp(G, nm, 2 * 2 * tok * G->h * f * (mm + 1), 2 * 2 * (le * (mm + 1) * G->h * f + 2 * tok * G->h), tm);
    if (ep > 1) {
        snprintf(nm, sizeof nm, "bwd.L%u.dispatch", l);
        coll(G, nm, CS_COLL_ALL_TO_ALL, tok * G->h * 2, PG_EP, 1);
    }
    snprintf(nm, sizeof nm, "bwd.L%u.router", l);
    comp(G, nm, 2 * 2 * G->sb * G->h * E / G->t, 2 * 2 * (G->sb * G->h + G->h * E),
         2 * gemm(G, G->sb / G->t, E, G->h) + strm(G, 4 * G->sb * E));
}

/* ---- ZeRO-3 / FSDP: all-gather a unit's parameter shards before it runs ----
 * Dense parameters are sharded over DP, experts over expert-DP (dp/ep);
 * comm_size = the rank's shard in bytes.  Off the chain (prefetch); the
 * returned ids are what the unit's first node must wait for. */
static size_t z3_gather(gen *G, const char *name, double dense, double expert, uint64_t ids[2], int chained) {
    size_t n = 0;
    double edp = edp_ranks(G->p), dp = dp_ranks(G->p);
    if (G->p->zero < 3) return 0;
    if (dp > 1 && dense > 0) ids[n++] = coll(G, name, CS_COLL_ALL_GATHER, 2 * dense / dp, PG_DP, chained);
    if (edp > 1 && expert > 0) ids[n++] = coll(G, name, CS_COLL_ALL_GATHER, 2 * expert / edp, PG_EDP, chained);
    return n;
}

static double layer_dense_rank(gen *G) { return (cs_tx_layer_params(G->m) - layer_expert_params(G->m)) / G->t; }
static double layer_expert_rank(gen *G) { return layer_expert_params(G->m) / ((double)G->p->ep * G->t); }

/* Before layer l's forward (bwd = 0) or backward (1): wait for its gather
 * (prefetched by the previous layer, else issued now) and prefetch the next
 * layer of the stage in the same direction. */
static void z3_layer(gen *G, uint32_t l, int bwd) {
    if (G->p->zero < 3 || G->recomputing) return;
    uint32_t key = 2 * l + (uint32_t)bwd, lo = G->clo, hi = G->chi;
    char nm[64];
    if (G->npf && G->pf_layer == key) {
        memcpy(G->need, G->pf, sizeof G->need);
        G->nneed = G->npf;
    } else {
        snprintf(nm, sizeof nm, "%sL%u.zero3.ag", bwd ? "bwd." : "", l);
        G->nneed = z3_gather(G, nm, layer_dense_rank(G), layer_expert_rank(G), G->need, 0);
    }
    G->npf = 0;
    int has_next = bwd ? l > lo : l + 1 < hi;
    if (has_next) {
        uint32_t nl = bwd ? l - 1 : l + 1;
        snprintf(nm, sizeof nm, "%sL%u.zero3.ag", bwd ? "bwd." : "", nl);
        G->npf = z3_gather(G, nm, layer_dense_rank(G), layer_expert_rank(G), G->pf, 0);
        G->pf_layer = 2 * nl + (uint32_t)bwd;
    }
}

/* ---- attention core, and context parallelism ---------------------------------
 * One block: the rank's sq queries against kv keys, per TP rank (b a / t
 * heads): QK^T, softmax, dropout, AV; backward twice the matmuls and 12
 * bytes per score.  Without CP one block of kv = s.  With CP the rank's
 * queries need every rank's keys and values (2 sq b g d / t elements each):
 * all-gathered over the CP group before the block (kv = s), their gradients
 * reduce-scattered after its backward; or, ring attention, cp blocks of
 * kv = sq, the next block's K/V arriving from the previous CP rank while
 * this one is computed (Liu et al. 2023; Megatron-Core's "p2p"). */
static void attn_block(gen *G, const char *name, double kv, int bwd) {
    double heads = G->b * G->a / G->t, sm = heads * G->sq * kv;
    double fl = heads * 2 * (2 * G->sq * kv * G->hd);
    double tm = heads * (gemm(G, G->sq, kv, G->hd) + gemm(G, G->sq, G->hd, kv));
    double io = heads * (2 * G->sq + 2 * kv) * G->hd * 2; /* Q, K, V, O */
    if (G->p->flash) { /* fused: no scores in HBM; the backward recomputes QK^T (5 matmuls for 2) */
        if (bwd) comp(G, name, 2.5 * fl, 2 * io, 2.5 * tm);
        else comp(G, name, fl, io, tm);
        return;
    }
    if (bwd) comp(G, name, 2 * fl, 12 * sm, 2 * tm + strm(G, 12 * sm));
    else comp(G, name, fl, 9 * sm + io, tm + strm(G, 9 * sm));
}

static double kv_bytes(gen *G) { return 2.0 * G->sb * (G->g * G->hd / G->t) * 2; } /* the rank's K and V */
static uint32_t cp_peer(gen *G, uint32_t d) {
    uint32_t cp = G->p->cp;
    return rank4(G->p, G->ti, G->di, G->pi, (G->ci + d) % cp);
}
/* Tags of ring messages: step i of the rank's ring pass, K/V (0) or dK/dV
 * (1); every rank of a CP group runs the same passes in the same order. */
static int32_t ring_tag(gen *G, uint32_t i, int dkv) {
    uint64_t x = ((uint64_t)G->cpring * G->p->cp + i) * 2 + (uint64_t)dkv;
    return (int32_t)((1u << 30) + x % (1u << 30));
}

/* Step i of a ring pass: block i (received as r, 0 for the rank's own) goes
 * on to the next CP rank, block i + 1 comes from the previous one (its
 * receive's id is returned; 0 after the last step); the block's compute
 * (the next chained node) waits for r. */
static uint64_t ring_step(gen *G, uint32_t i, uint64_t r) {
    uint32_t cp = G->p->cp;
    uint64_t nr = 0;
    if (i + 1 < cp) {
        p2p_node(G, 1, cp_peer(G, 1), ring_tag(G, i, 0), kv_bytes(G), r, 0, 1);
        nr = p2p_node(G, 0, cp_peer(G, cp - 1), ring_tag(G, i, 0), kv_bytes(G), r, 0, 1);
    }
    if (r) G->need[G->nneed++] = r;
    return nr;
}

static void ring_fwd(gen *G, const char *name) {
    char nm[80];
    uint64_t r = 0;
    for (uint32_t i = 0; i < G->p->cp; i++) {
        uint64_t nr = ring_step(G, i, r);
        snprintf(nm, sizeof nm, "%.64s.cp%u", name, i);
        attn_block(G, nm, G->sq, 0);
        r = nr;
    }
    G->cpring++;
}

/* Backward ring: K/V travel as forward; the dK/dV of block i, accumulated
 * by the ranks that used it before, arrive from the previous rank, get this
 * rank's share and move on; after cp steps each block's gradient is back
 * with its owner. */
static void ring_bwd(gen *G, const char *name) {
    char nm[80];
    double kvb = kv_bytes(G);
    uint32_t cp = G->p->cp;
    uint64_t r = 0, dr = 0;
    for (uint32_t i = 0; i < cp; i++) {
        /* the accumulated dK/dV of block i, posted before the step's compute */
        if (i > 0) dr = p2p_node(G, 0, cp_peer(G, cp - 1), ring_tag(G, i - 1, 1), kvb, r, 0, 1);
        uint64_t nr = ring_step(G, i, r);
        snprintf(nm, sizeof nm, "%.64s.cp%u", name, i);
        attn_block(G, nm, G->sq, 1);
        p2p_node(G, 1, cp_peer(G, 1), ring_tag(G, i, 1), kvb, dr, 0, 1);
        r = nr;
    }
    p2p_node(G, 0, cp_peer(G, cp - 1), ring_tag(G, cp - 1, 1), kvb, 0, 1, 1); /* the rank's own dK/dV */
    G->cpring++;
}

static void attn_fwd(gen *G, const char *name) {
    char nm[80];
    if (G->p->cp <= 1) {
        attn_block(G, name, G->s, 0);
    } else if (G->p->cp_comm == CS_CP_P2P) {
        ring_fwd(G, name);
    } else {
        snprintf(nm, sizeof nm, "%.64s.cp_ag", name);
        coll(G, nm, CS_COLL_ALL_GATHER, kv_bytes(G), PG_CP, 1); /* comm_size = each rank's shard */
        attn_block(G, name, G->s, 0);
    }
}

/* `gathered`: K/V are still all-gathered from a recomputed forward. */
static void attn_bwd(gen *G, const char *name, int gathered) {
    char nm[80];
    if (G->p->cp <= 1) {
        attn_block(G, name, G->s, 1);
    } else if (G->p->cp_comm == CS_CP_P2P) {
        ring_bwd(G, name);
    } else {
        snprintf(nm, sizeof nm, "%.64s.cp_ag", name);
        if (!gathered) coll(G, nm, CS_COLL_ALL_GATHER, kv_bytes(G), PG_CP, 1);
        attn_block(G, name, G->s, 1);
        snprintf(nm, sizeof nm, "%.64s.cp_rs", name);
        coll(G, nm, CS_COLL_REDUCE_SCATTER, kv_bytes(G) * G->p->cp, PG_CP, 1); /* comm_size = the whole tensor */
    }
}

static void layer_fwd(gen *G, uint32_t l, const char *tag) {
    char nm[64];
    z3_layer(G, l, 0);
    double q = (G->a + 2 * G->g) * G->hd / G->t, f = G->f / G->t, mm = G->m->swiglu ? 2 : 1;
    snprintf(nm, sizeof nm, "%sL%u.ln1", tag, l);
    comp(G, nm, 0, 4 * G->sl * G->h, strm(G, 4 * G->sl * G->h));
    snprintf(nm, sizeof nm, "%sL%u.ag1", tag, l);
    tp_gather(G, nm);
    snprintf(nm, sizeof nm, "%sL%u.qkv", tag, l);
    comp(G, nm, 2 * G->sb * G->h * q, 2 * (G->sb * G->h + G->h * q + G->sb * q), gemm(G, G->sb, q, G->h));
    snprintf(nm, sizeof nm, "%sL%u.attn", tag, l);
    attn_fwd(G, nm);
    snprintf(nm, sizeof nm, "%sL%u.proj", tag, l);
    double ad = G->a * G->hd / G->t;
    comp(G, nm, 2 * G->sb * ad * G->h, 2 * (G->sb * ad + ad * G->h + G->sb * G->h), gemm(G, G->sb, G->h, ad));
    snprintf(nm, sizeof nm, "%sL%u.ar1", tag, l);
    tp_reduce(G, nm);
    snprintf(nm, sizeof nm, "%sL%u.res1_ln2", tag, l);
    comp(G, nm, 0, 11 * G->sl * G->h, strm(G, 11 * G->sl * G->h));
    snprintf(nm, sizeof nm, "%sL%u.ag2", tag, l);
    tp_gather(G, nm);
    if (G->m->experts) {
        moe_fwd(G, tag, l);
    } else {
        snprintf(nm, sizeof nm, "%sL%u.mlp", tag, l);
        double tm = mm * gemm(G, G->sb, f, G->h) + gemm(G, G->sb, G->h, f) + strm(G, (mm == 2 ? 6 : 4) * G->sb * f);
        comp(G, nm, 2 * G->sb * G->h * f * (mm + 1),
             2 * ((mm + 1) * G->h * f + 2 * G->sb * G->h) + 4 * G->sb * f * mm, tm);
    }
    snprintf(nm, sizeof nm, "%sL%u.ar2", tag, l);
    tp_reduce(G, nm);
    snprintf(nm, sizeof nm, "%sL%u.res2", tag, l);
    comp(G, nm, 0, 7 * G->sl * G->h, strm(G, 7 * G->sl * G->h));
}

static void layer_bwd(gen *G, uint32_t l) {
    char nm[64];
    double q = (G->a + 2 * G->g) * G->hd / G->t, f = G->f / G->t, mm = G->m->swiglu ? 2 : 1;
    double ad = G->a * G->hd / G->t;
    z3_layer(G, l, 1);
    if (G->p->recompute == CS_RECOMP_FULL) {
        G->recomputing = 1;
        layer_fwd(G, l, "recompute.");
        G->recomputing = 0;
    }
    snprintf(nm, sizeof nm, "bwd.L%u.res2", l);
    comp(G, nm, 0, 10 * G->sl * G->h, strm(G, 10 * G->sl * G->h));
    snprintf(nm, sizeof nm, "bwd.L%u.ag2", l);
    tp_gather(G, nm);
    if (G->m->experts) {
        moe_bwd(G, l);
    } else {
        snprintf(nm, sizeof nm, "bwd.L%u.mlp", l);
        double tm = 2 * (mm * gemm(G, G->sb, f, G->h) + gemm(G, G->sb, G->h, f)) +
                    strm(G, 2 * (mm == 2 ? 6 : 4) * G->sb * f);
        comp(G, nm, 2 * 2 * G->sb * G->h * f * (mm + 1), 2 * 2 * ((mm + 1) * G->h * f + 2 * G->sb * G->h), tm);
    }
    snprintf(nm, sizeof nm, "bwd.L%u.ar2", l);
    tp_reduce(G, nm);
    snprintf(nm, sizeof nm, "bwd.L%u.res1_ln2", l);
    comp(G, nm, 0, 16 * G->sl * G->h, strm(G, 16 * G->sl * G->h));
    snprintf(nm, sizeof nm, "bwd.L%u.ag1", l);
    tp_gather(G, nm);
    snprintf(nm, sizeof nm, "bwd.L%u.proj", l);
    comp(G, nm, 2 * 2 * G->sb * ad * G->h, 2 * 2 * (G->sb * ad + ad * G->h + G->sb * G->h),
         2 * gemm(G, G->sb, G->h, ad));
    if (G->p->recompute == CS_RECOMP_SELECTIVE && !G->p->flash) { /* flash recomputes inside its backward */
        snprintf(nm, sizeof nm, "recompute.L%u.attn", l);
        attn_fwd(G, nm);
    }
    snprintf(nm, sizeof nm, "bwd.L%u.attn", l);
    attn_bwd(G, nm, G->p->recompute == CS_RECOMP_FULL || (G->p->recompute == CS_RECOMP_SELECTIVE && !G->p->flash));
    snprintf(nm, sizeof nm, "bwd.L%u.qkv", l);
    comp(G, nm, 2 * 2 * G->sb * G->h * q, 2 * 2 * (G->sb * G->h + G->h * q + G->sb * q), 2 * gemm(G, G->sb, q, G->h));
    snprintf(nm, sizeof nm, "bwd.L%u.ar1", l);
    tp_reduce(G, nm);
    snprintf(nm, sizeof nm, "bwd.L%u.ln1", l);
    comp(G, nm, 0, 8 * G->sl * G->h, strm(G, 8 * G->sl * G->h));
}


/* ZeRO-3: the stage's parameters outside its layers (embedding, final norm,
 * output layer), gathered on the chain at the start of each pass. */
static void z3_extras(gen *G, const char *name) {
    uint64_t ids[2];
    double x = stage_params(G->m, G->p, G->pi) -
               (double)cs_tx_stage_layers(G->m, G->p, G->pi, NULL) * cs_tx_layer_params(G->m) / G->t;
    if (x > 0.5) z3_gather(G, name, x, 0, ids, 1);
}

/* Model chunk c of the rank's stage (c = 0 without interleaving): virtual
 * stage vs = c pp + pi of pp v, its layers split as the stages' are
 * (vstage_layers: ceil(layers / (pp v)) each, the deficit taken from the
 * last virtual stage, the first, ...; v = 1 gives cs_tx_stage_layers).
 * Pipeline neighbours are stages pi -+ 1, wrapping from the last stage to
 * the first between chunks.  The tag of a boundary is 2 (mb + M c_low) (+1
 * backward), c_low = the chunk of its lower virtual stage (2 mb without
 * interleaving). */
static uint32_t chunk_setup(gen *G, uint32_t c) {
    uint32_t P = G->p->pp, vs = c * P + G->pi, first;
    uint32_t n = vstage_layers(G->m->layers, P * vst(G->p), vs, &first); /* v = 1: the stage's layers */
    G->clo = first;
    G->chi = first + n;
    return vs;
}
static uint32_t prev_rank(gen *G) { return rank4(G->p, G->ti, G->di, G->pi > 0 ? G->pi - 1 : G->p->pp - 1, G->ci); }
static uint32_t next_rank(gen *G) { return rank4(G->p, G->ti, G->di, G->pi + 1 < G->p->pp ? G->pi + 1 : 0, G->ci); }
static int32_t p2p_tag(gen *G, uint32_t mb, uint32_t vs_low, int bwd) {
    return (int32_t)(2 * (mb + G->M * (vs_low / G->p->pp)) + (uint32_t)bwd);
}

static void forward_mb(gen *G, uint32_t mb, uint32_t c) {
    uint32_t vs = chunk_setup(G, c), last = G->p->pp * vst(G->p) - 1;
    z3_extras(G, "zero3.ag.extra");
    if (vs > 0) p2p(G, 0, prev_rank(G), p2p_tag(G, mb, vs - 1, 0), G->sl * G->h * 2);
    if (vs == 0) {
        comp(G, "embed", 0, 4 * G->sl * G->h, strm(G, 4 * G->sl * G->h));
        tp_reduce(G, "embed.ar");
    }
    for (uint32_t l = G->clo; l < G->chi; l++) layer_fwd(G, l, "");
    if (vs == last) {
        double v = ceil(G->V / G->t);
        comp(G, "final_ln", 0, 4 * G->sl * G->h, strm(G, 4 * G->sl * G->h));
        tp_gather(G, "logits.ag");
        comp(G, "logits", 2 * G->sb * G->h * v, 2 * (G->sb * G->h + G->h * v) + 4 * G->sb * v,
             gemm(G, G->sb, v, G->h) + strm(G, 4 * G->sb * v * 3));
    } else {
        p2p(G, 1, next_rank(G), p2p_tag(G, mb, vs, 0), G->sl * G->h * 2);
    }
}

/* A gradient bucket on the DP group (kind PG_DP) or, for MoE experts, the
 * expert-DP group (PG_EDP): all-reduce, or reduce-scatter with ZeRO >= 1;
 * off the chain (overlapping the rest of the backward), or with
 * plan.no_grad_overlap and ZeRO <= 1 kept for grad_flush at the end. */
static void dp_bucket(gen *G, double *acc, int force, int kind) {
    double n = kind == PG_EDP ? edp_ranks(G->p) : dp_ranks(G->p);
    if (n < 2 || *acc <= 0) return;
    if (G->p->no_grad_overlap && G->p->zero < 2) {
        G->deferred[kind == PG_EDP] += *acc;
        *acc = 0;
        return;
    }
    if (!force && *acc < (double)G->p->bucket_params) return;
    uint64_t id = coll(G, kind == PG_EDP ? "edp.grads" : "dp.grads",
                       G->p->zero ? CS_COLL_REDUCE_SCATTER : CS_COLL_ALL_REDUCE, *acc * 2, kind, 0);
    if (G->nextra == G->capextra) {
        G->capextra = G->capextra ? 2 * G->capextra : 16;
        G->extra = cs_realloc(G->extra, G->capextra * sizeof *G->extra);
    }
    G->extra[G->nextra++] = id;
    *acc = 0;
}

/* Without overlap (Megatron-LM 2021's data parallelism): one collective of
 * all the rank's gradients per group, on the chain after the last backward. */
static void grad_flush(gen *G) {
    for (int e = 0; e < 2; e++)
        if (G->deferred[e] > 0)
            coll(G, e ? "edp.grads" : "dp.grads", G->p->zero ? CS_COLL_REDUCE_SCATTER : CS_COLL_ALL_REDUCE,
                 G->deferred[e] * 2, e ? PG_EDP : PG_DP, 1);
}

/* Gradients are reduced in the last micro-batch's backward (ZeRO 0/1: they
 * accumulate locally) or, with ZeRO >= 2 (sharded gradients), in every one. */
static void backward_mb(gen *G, uint32_t mb, uint32_t c, int last_mb) {
    uint32_t vs = chunk_setup(G, c), last = G->p->pp * vst(G->p) - 1;
    double acc = 0, acce = 0, lp = layer_dense_rank(G), lpe = layer_expert_rank(G);
    if (G->p->zero >= 2) last_mb = 1;
    z3_extras(G, "bwd.zero3.ag.extra");
    if (vs < last) p2p(G, 0, next_rank(G), p2p_tag(G, mb, vs, 1), G->sl * G->h * 2);
    if (vs == last) {
        double v = ceil(G->V / G->t);
        comp(G, "bwd.logits", 2 * 2 * G->sb * G->h * v, 2 * 2 * (G->sb * G->h + G->h * v) + 8 * G->sb * v,
             2 * gemm(G, G->sb, v, G->h) + strm(G, 8 * G->sb * v));
        tp_reduce(G, "bwd.logits.ar");
        comp(G, "bwd.final_ln", 0, 8 * G->sl * G->h, strm(G, 8 * G->sl * G->h));
        if (last_mb) acc += head_params(G->m) / G->t;
    }
    for (uint32_t l = G->chi; l-- > G->clo;) {
        layer_bwd(G, l);
        if (last_mb) {
            acc += lp;
            acce += lpe;
            dp_bucket(G, &acc, 0, PG_DP);
            dp_bucket(G, &acce, 0, PG_EDP);
        }
    }
    if (vs == 0) {
        comp(G, "bwd.embed", 0, 8 * G->sl * G->h, strm(G, 8 * G->sl * G->h));
        if (last_mb) acc += embed_params(G->m) / G->t;
    } else {
        p2p(G, 1, prev_rank(G), p2p_tag(G, mb, vs - 1, 1), G->sl * G->h * 2);
    }
    if (last_mb) {
        dp_bucket(G, &acc, 1, PG_DP);
        dp_bucket(G, &acce, 1, PG_EDP);
    }
}

/* ResNet-50: one COMP node per layer (convolution + BatchNorm + ReLU as an
 * implicit GEMM of (b Ho^2) x cout x (cin k^2), plus 8 bytes of BatchNorm/ReLU
 * traffic per output element); backward in reverse with twice the FLOPs.  In
 * the last micro-batch's backward (every one with ZeRO-2) each layer's
 * gradients join the current bucket; a full bucket is reduced on the DP group
 * off the chain, overlapping the rest of the backward (PyTorch DDP). */
static void rn_pass(gen *G, int bwd, int last_mb) {
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
        comp(G, nm, bwd ? 2 * fl : fl, bwd ? 2 * by : by, bwd ? 2 * tm : tm);
        if (bwd && last_mb) {
            acc += rn_layer_params(x, fc);
            dp_bucket(G, &acc, 0, PG_DP);
        }
    }
    if (bwd && last_mb) dp_bucket(G, &acc, 1, PG_DP);
}

/* DLRM, one micro-batch (b samples per rank, B = b dp in all): the bottom
 * MLP on the rank's samples; the lookups of its tables (dp-th of them) for
 * all B samples; an all-to-all sending each rank the pooled vectors of its
 * samples (comm_size = the whole send buffer, B x local tables x d x 4
 * bytes); interaction and top MLP.  Backward mirrors it (all-to-all of the
 * pooled gradients, then a sparse SGD update of the looked-up rows); MLP
 * gradients go into DP buckets as in rn_pass. */
static void dlrm_mlp_nodes(gen *G, int which, int bwd, double *acc, int last_mb) {
    double in[CS_DLRM_MAXMLP], out[CS_DLRM_MAXMLP], b = G->b;
    uint32_t n = dlrm_mlp(G->m, which, in, out);
    for (uint32_t j = 0; j < n; j++) {
        uint32_t i = bwd ? n - 1 - j : j;
        double k = bwd ? 2 : 1;
        char nm[48];
        snprintf(nm, sizeof nm, "%s%s.mlp%u", bwd ? "bwd." : "", which ? "top" : "bot", i);
        comp(G, nm, k * 2 * b * in[i] * out[i], k * 2 * (b * in[i] + in[i] * out[i] + b * out[i]),
             k * cs_device_gemm_s(G->d, b, out[i], in[i], 2));
        if (bwd && last_mb) {
            *acc += in[i] * out[i] + out[i];
            dp_bucket(G, acc, 0, PG_DP);
        }
    }
}

static void dlrm_pass(gen *G, int bwd, int last_mb) {
    const cs_tx_model *m = G->m;
    double b = G->b, B = b * G->p->dp, d = m->emb_dim, F = m->tables + 1.0, tl = (double)m->tables / G->p->dp;
    double rows = B * tl * m->pooling * d * 4, pooled = B * tl * d * 4, acc = 0;
    if (!bwd) {
        dlrm_mlp_nodes(G, 0, 0, &acc, 0);
        comp(G, "emb.lookup", 0, rows + pooled, cs_device_stream_s(G->d, rows + pooled));
        if (G->p->dp > 1) coll(G, "emb.a2a", CS_COLL_ALL_TO_ALL, pooled, PG_EP, 1);
        comp(G, "interact", 2 * b * F * F * d, 2 * b * (F * d + F * (F - 1) / 2),
             cs_device_gemm_s(G->d, b * F, F, d, 2));
        dlrm_mlp_nodes(G, 1, 0, &acc, 0);
        return;
    }
    dlrm_mlp_nodes(G, 1, 1, &acc, last_mb);
    comp(G, "bwd.interact", 2 * 2 * b * F * F * d, 2 * 2 * b * (F * d + F * (F - 1) / 2),
         2 * cs_device_gemm_s(G->d, b * F, F, d, 2));
    if (G->p->dp > 1) coll(G, "bwd.emb.a2a", CS_COLL_ALL_TO_ALL, pooled, PG_EP, 1);
    comp(G, "bwd.emb.update", 0, pooled + 2 * rows, cs_device_stream_s(G->d, pooled + 2 * rows));
    dlrm_mlp_nodes(G, 0, 1, &acc, last_mb);
    if (last_mb) dp_bucket(G, &acc, 1, PG_DP);
}

int cs_tx_generate_rank(const cs_tx_model *m, const cs_tx_plan *p, const cs_device *d, uint32_t rank,
                        cs_tx_sink sink, void *ud, cs_tx_stats *stats, cs_error *err) {
    int rc = cs_tx_plan_check(m, p, err);
    if (rc) return rc;
    if (rank >= cs_tx_ranks(p)) return CS_ERR(err, CS_EINVAL, "rank %u: outside the plan", rank);
    cs_tx_stats dummy;
    gen G;
    memset(&G, 0, sizeof G);
    G.m = m;
    G.p = p;
    G.d = d;
    G.rank = rank;
    {
        uint32_t c[CS_TX_NDIMS];
        cs_tx_rank_coords(p, rank, c);
        G.ti = c[CS_DIM_TP];
        G.di = c[CS_DIM_DP];
        G.pi = c[CS_DIM_PP];
        G.ci = c[CS_DIM_CP];
    }
    uint32_t cp = cpn(p), ntp = p->pp * p->dp * cp;
    snprintf(G.pg[PG_TP], sizeof G.pg[PG_TP], "%u", 1 + (G.pi * p->dp + G.di) * cp + G.ci);
    snprintf(G.pg[PG_DP], sizeof G.pg[PG_DP], "%u", 1 + ntp + G.pi * p->tp + G.ti);
    snprintf(G.pg[PG_CP], sizeof G.pg[PG_CP], "%u", 1 + ntp + p->pp * p->tp + (G.pi * p->dp + G.di) * p->tp + G.ti);
    {
        uint32_t ep = p->ep, edp = p->dp / ep, pt = G.pi * p->tp + G.ti, base = 1 + p->pp * p->dp + p->pp * p->tp;
        snprintf(G.pg[PG_EP], sizeof G.pg[PG_EP], "%u", base + pt * edp + G.di / ep);
        snprintf(G.pg[PG_EDP], sizeof G.pg[PG_EDP], "%u", ep > 1 ? base + p->pp * p->tp * edp + pt * ep + G.di % ep
                                                                  : 1 + ntp + pt);
    }
    G.sink = sink;
    G.ud = ud;
    G.st = stats ? stats : &dummy;
    memset(G.st, 0, sizeof *G.st);
    G.err = err;
    G.s = m->seq;
    G.sq = G.s / cp;
    G.b = p->micro_batch;
    G.h = m->hidden;
    G.a = m->heads;
    G.g = m->kv_heads;
    G.hd = m->heads ? head_dim(m) : 0;
    G.f = m->ffn_hidden;
    G.t = p->tp;
    G.sb = G.sq * G.b;
    G.sl = p->sp && p->tp > 1 ? G.sb / G.t : G.sb;
    G.V = m->vocab;

    uint32_t M = cs_tx_micro_batches(p), P = p->pp;
    G.M = M;
    chunk_setup(&G, 0);
    if (m->arch == CS_ARCH_RESNET50) {
        for (uint32_t i = 0; i < M; i++) {
            rn_pass(&G, 0, 0);
            rn_pass(&G, 1, i == M - 1);
        }
    } else if (m->arch == CS_ARCH_DLRM) {
        memcpy(G.pg[PG_EP], G.pg[PG_DP], sizeof G.pg[PG_EP]); /* the all-to-all runs on the DP group */
        for (uint32_t i = 0; i < M; i++) {
            dlrm_pass(&G, 0, 0);
            dlrm_pass(&G, 1, i == M - 1);
        }
    } else if (p->schedule == CS_SCHED_GPIPE) {
        for (uint32_t i = 0; i < M; i++) forward_mb(&G, i, 0);
        for (uint32_t i = 0; i < M; i++) backward_mb(&G, i, 0, i == M - 1);
    } else if (vst(p) > 1) {
        /* Megatron's interleaved 1F1B: unit k is micro-batch (k / (P v)) P + k mod P
         * of chunk (k / P) mod v (backward: v - 1 - that); warm-up
         * 2 (P - pi - 1) + (v - 1) P forward units, then one forward + one
         * backward, then the remaining backwards. */
        uint32_t v = vst(p), tot = M * v, warm = (P - G.pi - 1) * 2 + (v - 1) * P, f = 0, b = 0;
        if (warm > tot) warm = tot;
        for (; f < warm; f++) forward_mb(&G, (f / (P * v)) * P + f % P, (f / P) % v);
        for (; f < tot; f++, b++) {
            forward_mb(&G, (f / (P * v)) * P + f % P, (f / P) % v);
            uint32_t mb = (b / (P * v)) * P + b % P;
            backward_mb(&G, mb, v - 1 - (b / P) % v, mb == M - 1);
        }
        for (; b < tot; b++) {
            uint32_t mb = (b / (P * v)) * P + b % P;
            backward_mb(&G, mb, v - 1 - (b / P) % v, mb == M - 1);
        }
    } else {
        uint32_t warm = P - G.pi - 1 < M ? P - G.pi - 1 : M, fwd = 0, bwd = 0;
        for (; fwd < warm; fwd++) forward_mb(&G, fwd, 0);
        while (fwd < M) {
            forward_mb(&G, fwd++, 0);
            backward_mb(&G, bwd, 0, bwd == M - 1);
            bwd++;
        }
        for (; bwd < M; bwd++) backward_mb(&G, bwd, 0, bwd == M - 1);
    }
    grad_flush(&G);
    /* optimizer step: waits for the chain and every gradient bucket */
    {
        cs_tx_memory mm;
        cs_tx_memory_stage(m, p, G.pi, &mm);
        double edp = edp_ranks(p), dpr = dp_ranks(p), pe = mm.expert_params, pd = mm.params - pe;
        double sd = pd / (p->zero >= 1 ? dpr : 1), se = pe / (p->zero >= 1 ? edp : 1), shard = sd + se;
        uint64_t id = ++G.next_id;
        cs_et_nb *nb = cs_et_nb_new(id, "optimizer", CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE);
        if (G.last) cs_et_nb_data_dep(nb, G.last);
        for (size_t i = 0; i < G.nextra; i++) cs_et_nb_data_dep(nb, G.extra[i]);
        double secs = strm(&G, 32 * shard), us = floor(secs * 1e6 + 0.5);
        cs_et_nb_duration_us(nb, us < 1 ? 1 : (uint64_t)us);
        cs_et_nb_attr_bool(nb, "is_cpu_op", 0);
        cs_et_nb_attr_uint64(nb, "num_ops", 0);
        cs_et_nb_attr_uint64(nb, "tensor_size", (uint64_t)llround(32 * shard));
        emit(&G, nb);
        G.last = id;
        G.st->compute_s += secs;
        /* ZeRO-1/2: the updated shards are gathered; ZeRO-3 keeps them sharded */
        if (p->zero >= 1 && p->zero < 3 && dpr > 1) coll(&G, "dp.params", CS_COLL_ALL_GATHER, sd * 2, PG_DP, 1);
        if (p->zero >= 1 && p->zero < 3 && edp > 1 && se > 0)
            coll(&G, "edp.params", CS_COLL_ALL_GATHER, se * 2, PG_EDP, 1);
    }
    cs_free(G.extra);
    return G.rc;
}
