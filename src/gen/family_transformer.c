/*
 * family_transformer.c -- the decoder-only transformer family: GPT-3 style
 * (GeLU MLP, biases, learned positions) and Llama style (SwiGLU, grouped-
 * query attention, no biases), optionally mixture-of-experts.  Its model-file
 * keys and presets, plan checks (tensor, pipeline, context and expert
 * parallelism), parameter and FLOP counts, the memory footprint of a
 * pipeline stage (Korthikanti et al. 2022), and the nodes of one rank's
 * step under GPipe, 1F1B or interleaved 1F1B: Megatron's TP collectives on
 * the chain, pipeline sends/receives, MoE router and all-to-alls on the EP
 * group, ZeRO-2/3 reduce-scatters and per-layer all-gathers (one layer
 * prefetched), context parallelism by K/V all-gather or ring attention.
 * docs/generator.md derives the numbers.
 */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "core/alloc.h"
#include "core/checked.h"
#include "core/invariant.h"
#include "gen/gen_int.h"

/* Micro-batches x model chunks of a step: at most 2^30 (tags are
 * 2 x unit + 1 in an int32). */
#define TX_MAX_UNITS (1u << 30)

/* The emitter's state of one rank (cs_gen_ctx holds what every family
 * shares). */
typedef struct gen {
    cs_gen_ctx *c;
    const cs_gen_model *m;
    const cs_gen_plan *p;
    uint32_t ti, di, pi, ci, M;  /* the rank's coordinates; micro-batches */
    uint64_t pf[2];              /* ZeRO-3 prefetched gather of layer pf_layer */
    size_t npf;
    uint32_t pf_layer;
    int recomputing;             /* inside a full recomputation's forward */
    uint32_t clo, chi;           /* layers [clo, chi) of the current chunk */
    uint32_t cpring;             /* ring attention passes so far (their messages' tags) */
    uint32_t mb;                 /* the micro-batch of the current pass */
    /* shapes: s = the whole sequence, sq = the rank's seq / cp of it, sb = sq b */
    double s, sq, b, h, a, g, hd, f, t, sb, sl, V;
} gen;

/* A pipeline boundary: sends hang off the chain, receives join it. */
static void p2p(gen *G, int send, uint32_t peer, int32_t tag, double bytes) {
    cs_gen_p2p(G->c, send, peer, tag, bytes, 0, 1, 0);
}

/* ---- parameters and FLOPs ------------------------------------------------- */

static double head_dim(const cs_gen_model *m) { return (double)m->u.tf.hidden / m->u.tf.heads; }
static double qkv_out(const cs_gen_model *m) { return m->u.tf.hidden + 2.0 * m->u.tf.kv_heads * head_dim(m); }
static double mlp_mats(const cs_gen_model *m) { return m->u.tf.swiglu ? 3.0 : 2.0; }

/* MoE expert parameters of one layer (0 for a dense model): E expert MLPs. */
static double layer_expert_params(const cs_gen_model *m) {
    double h = m->u.tf.hidden, f = m->u.tf.ffn_hidden;
    return m->u.tf.experts * (mlp_mats(m) * h * f + (m->u.tf.bias ? f + h : 0));
}

double cs_gen_tx_layer_params(const cs_gen_model *m) {
    double h = m->u.tf.hidden, f = m->u.tf.ffn_hidden;
    double p = h * qkv_out(m) + h * h;
    if (m->u.tf.bias) p += qkv_out(m) + h;
    if (m->u.tf.experts) p += layer_expert_params(m) + h * m->u.tf.experts; /* experts + router */
    else p += mlp_mats(m) * h * f + (m->u.tf.bias ? f + h : 0);
    p += m->u.tf.bias ? 4 * h : 2 * h; /* two LayerNorms (weight+bias) or RMSNorms */
    return p;
}

/* The layer's parameters outside its fused weight matrices -- norms,
 * biases and an MoE router (a plain parameter applied with F.linear in
 * Megatron-Core, not a fused linear layer) -- and the experts' share of
 * them: what still goes through the accumulation hook when the linear
 * layers' weight-gradient GEMMs add into main_grad themselves
 * (plan.grad_acc_fusion). */
static double layer_vector_params(const cs_gen_model *m) {
    double h = m->u.tf.hidden, f = m->u.tf.ffn_hidden, b = m->u.tf.bias, E = m->u.tf.experts;
    double v = (b ? qkv_out(m) + h : 0) + (b ? 4 * h : 2 * h) + h * E;
    return v + (E ? E : 1) * (b ? f + h : 0);
}
static double layer_expert_vector_params(const cs_gen_model *m) {
    return m->u.tf.experts * (m->u.tf.bias ? (double)m->u.tf.ffn_hidden + m->u.tf.hidden : 0);
}

static double embed_params(const cs_gen_model *m) {
    return (double)m->u.tf.vocab * m->u.tf.hidden + (m->u.tf.bias ? (double)m->u.tf.seq * m->u.tf.hidden : 0); /* learned positions */
}
static double head_params(const cs_gen_model *m) {
    return (m->u.tf.bias ? 2.0 : 1.0) * m->u.tf.hidden + (m->u.tf.tied_embeddings ? 0 : (double)m->u.tf.vocab * m->u.tf.hidden);
}

static double tx_params(const cs_gen_model *m) {
    return m->u.tf.layers * cs_gen_tx_layer_params(m) + embed_params(m) + head_params(m);
}

/* Matmul FLOPs per token of one layer's forward pass (s = sequence). */
static double layer_fwd_flops_per_token(const cs_gen_model *m) {
    double h = m->u.tf.hidden, mlp = mlp_mats(m) * h * m->u.tf.ffn_hidden;
    if (m->u.tf.experts) mlp = m->u.tf.top_k * mlp + h * m->u.tf.experts; /* top_k experts per token + router */
    return 2.0 * (h * qkv_out(m) + h * h + mlp) + 4.0 * m->u.tf.seq * h;
}

/* A serving step's matmul FLOPs (forward only, as emitted): every token of
 * the step through the layers, attention against the step's context (the
 * prefill's P x P scores, the decode token's c keys), logits for the last
 * token of each sequence. */
static double tx_infer_flops(const cs_gen_model *m, const cs_gen_plan *p) {
    double seqs = (double)p->micro_batch * p->dp, c = p->context_tokens, h = m->u.tf.hidden;
    double tok = p->phase == CS_PHASE_PREFILL ? seqs * c : seqs;
    double per = layer_fwd_flops_per_token(m) - 4.0 * m->u.tf.seq * h + 4.0 * c * h;
    return tok * m->u.tf.layers * per + seqs * 2.0 * h * m->u.tf.vocab;
}

static double tx_flops(const cs_gen_model *m, const cs_gen_plan *p) {
    if (p->phase != CS_PHASE_TRAIN) return tx_infer_flops(m, p);
    double tokens = (double)p->global_batch * m->u.tf.seq;
    return 3.0 * tokens * (m->u.tf.layers * layer_fwd_flops_per_token(m) + 2.0 * m->u.tf.hidden * (double)m->u.tf.vocab);
}

uint32_t cs_gen_tx_stage_layers(const cs_gen_model *m, const cs_gen_plan *p, uint32_t st, uint32_t *first) {
    uint32_t v = cs_gen_vst(p), n = 0;
    for (uint32_t c = 0; c < v; c++) n += cs_gen_vstage_layers(m->u.tf.layers, p, c * p->pp + st, c == 0 ? first : NULL);
    return n;
}

static double stage_params(const cs_gen_model *m, const cs_gen_plan *p, uint32_t st) {
    double x = (double)cs_gen_tx_stage_layers(m, p, st, NULL) * cs_gen_tx_layer_params(m);
    if (st == 0) x += embed_params(m);
    if (st == p->pp - 1) {
        x += head_params(m);
        if (m->u.tf.tied_embeddings && p->pp > 1) x += (double)m->u.tf.vocab * m->u.tf.hidden; /* Megatron's copy */
    }
    return x / p->tp;
}

/* The last virtual stage's parameters outside its layers: the final norm
 * and output layer, with tied embeddings and pp > 1 Megatron's copy of the
 * embedding (stage_params). */
static double last_chunk_params(const cs_gen_model *m, const cs_gen_plan *p) {
    double x = head_params(m);
    if (m->u.tf.tied_embeddings && p->pp > 1) x += (double)m->u.tf.vocab * m->u.tf.hidden;
    return x;
}
/* The parameters of virtual stage vs outside its layers, per TP rank: the
 * embedding on the first, last_chunk_params on the last.  Without
 * interleaving: the stage's (stage_params less its layers). */
static double chunk_extra_params(const cs_gen_model *m, const cs_gen_plan *p, uint32_t vs) {
    double x = 0;
    if (vs == 0) x += embed_params(m);
    if (vs == p->pp * cs_gen_vst(p) - 1) x += last_chunk_params(m, p);
    return x / p->tp;
}

/* FSDP FULL_SHARD / HYBRID_SHARD: the unsharded parameters held while a
 * unit runs -- the unit computed and the one prefetched (z3_layer), at
 * most the two largest units of the stage: its layers (dense parameters
 * per TP rank) and each chunk's other parameters (chunk_extra_params).
 * Dense parameters only (experts are gathered over expert-DP alike but
 * are left out, as the stage's). */
static double fsdp_unsharded_params(const cs_gen_model *m, const cs_gen_plan *p, uint32_t st) {
    double u1 = 0, u2 = 0, lp = (cs_gen_tx_layer_params(m) - layer_expert_params(m)) / p->tp;
    uint32_t L = cs_gen_tx_stage_layers(m, p, st, NULL);
    if (L >= 1) u1 = lp;
    if (L >= 2) u2 = lp;
    for (uint32_t c = 0; c < cs_gen_vst(p); c++) {
        double x = chunk_extra_params(m, p, c * p->pp + st);
        if (x > u1) {
            u2 = u1;
            u1 = x;
        } else if (x > u2) {
            u2 = x;
        }
    }
    return u1 + u2;
}

/* Korthikanti et al. 2022, Table 2: activation bytes of one layer, one
 * micro-batch, with s the rank's seq / cp tokens; the attention scores
 * (5 a s^2 b) are the rank's s queries against all seq keys. */
static double layer_act_bytes(const cs_gen_model *m, const cs_gen_plan *p, int recompute) {
    double s = (double)m->u.tf.seq / cs_gen_cp(p), S = m->u.tf.seq, b = p->micro_batch, h = m->u.tf.hidden, a = m->u.tf.heads, t = p->tp;
    double sbh = s * b * h;
    if (p->flash && recompute == CS_RECOMP_NONE) recompute = CS_RECOMP_SELECTIVE; /* no stored scores */
    switch (recompute) {
    case CS_RECOMP_FULL: return p->sp ? 2 * sbh / t : 2 * sbh;
    case CS_RECOMP_SELECTIVE: return p->sp ? 34 * sbh / t : sbh * (10 + 24 / t);
    default: return p->sp ? sbh / t * (34 + 5 * a * S / h) : sbh * (10 + 24 / t + 5 * a * S / (h * t));
    }
}


/* Expert parameters of a rank of stage st: the stage's layers' experts / (ep t). */
static double stage_expert_params(const cs_gen_model *m, const cs_gen_plan *p, uint32_t st) {
    return (double)cs_gen_tx_stage_layers(m, p, st, NULL) * layer_expert_params(m) / ((double)p->ep * p->tp);
}

/* Korthikanti et al. 2022 per stage: weights, gradients and optimizer state
 * (ZeRO shards dense state over DP x CP, expert state over expert-DP), and
 * the activations of the micro-batches in flight. */
static void tx_memory(const cs_gen_model *m, const cs_gen_plan *p, uint32_t st, cs_gen_memory *o) {
    if (p->phase != CS_PHASE_TRAIN) { /* serving: 2-byte weights and the KV cache (docs/inference.md) */
        double Pe = stage_expert_params(m, p, st);
        o->params = stage_params(m, p, st) - Pe * (p->ep - 1);
        o->expert_params = Pe;
        o->weights = 2 * o->params;
        o->kv_tokens = p->kv_tokens ? p->kv_tokens : p->context_tokens;
        o->kv_cache = 2.0 * cs_gen_tx_stage_layers(m, p, st, NULL) * ((double)m->u.tf.kv_heads / p->tp) * head_dim(m) *
                      o->kv_tokens * p->micro_batch * 2;
        o->inflight = 1;
        return;
    }
    /* dense parameters are replicated over dp, experts over dp/ep (ZeRO shards over those) */
    double Pe = stage_expert_params(m, p, st);
    double Pd = stage_params(m, p, st) - Pe * p->ep, dp = cs_gen_shard_ranks(p), edp = cs_gen_edp_ranks(p);
    o->params = Pd + Pe;
    o->expert_params = Pe;
    o->weights = 2 * (Pd / (p->zero >= 3 ? dp : 1) + Pe / (p->zero >= 3 ? edp : 1));
    if (p->zero >= 3 && p->fsdp_strategy) o->weights += 2 * fsdp_unsharded_params(m, p, st);
    /* gradients: sharded from ZeRO-2 on, but accumulated whole under FSDP's
     * no_sync; fp32 (4 bytes) with Megatron's distributed optimizer or
     * FSDP's reduce dtype fp32 */
    int gs = p->zero >= 2 && !p->fsdp_no_sync;
    o->grads = cs_gen_grad_bytes(p) * (Pd / (gs ? dp : 1) + Pe / (gs ? edp : 1));
    o->optimizer = 12 * (Pd / (p->zero >= 1 ? dp : 1) + Pe / (p->zero >= 1 ? edp : 1));
    uint32_t mb = cs_gen_micro_batches(p);
    uint32_t inflight = p->schedule == CS_SCHED_GPIPE ? mb : (p->pp - st < mb ? p->pp - st : mb);
    double L = cs_gen_tx_stage_layers(m, p, st, NULL), held = inflight * L; /* layer-micro-batches */
    if (cs_gen_vst(p) > 1) {
        /* interleaved: the warm-up + 1 first forward units, unit k of chunk
         * (k / pp) mod v: q whole rounds of pp units and r more */
        uint32_t v = cs_gen_vst(p), u = (p->pp - st - 1) * 2 + (v - 1) * p->pp + 1;
        inflight = u < mb * v ? u : mb * v;
        uint32_t q = inflight / p->pp, r = inflight % p->pp;
        double part = 0;
        for (uint32_t c = 0; c < q % v; c++) part += cs_gen_vstage_layers(m->u.tf.layers, p, c * p->pp + st, NULL);
        held = p->pp * ((double)(q / v) * L + part) +
               (double)r * cs_gen_vstage_layers(m->u.tf.layers, p, (q % v) * p->pp + st, NULL);
    }
    o->inflight = inflight;
    o->activations = held * layer_act_bytes(m, p, p->recompute);
    if (p->recompute == CS_RECOMP_FULL && L > 0) o->activations += layer_act_bytes(m, p, CS_RECOMP_NONE);
    if (st == p->pp - 1) /* final norm, output layer, loss (Korthikanti eq. 5) */
        o->activations += 4.0 * m->u.tf.seq / cs_gen_cp(p) * p->micro_batch * ((double)m->u.tf.hidden + m->u.tf.vocab) / p->tp;
}

/* TP collectives.  The tensor is sb x h (2-byte elements).  "reduce" is Megatron's g
 * (all-reduce, or reduce-scatter with SP), "gather" its g-bar (nothing, or all-gather). */
static uint64_t tp_reduce_at(gen *G, const char *name, int chained) {
    if (G->p->tp < 2) return 0;
    return cs_gen_coll(G->c, name, G->p->sp ? CS_COLL_REDUCE_SCATTER : CS_COLL_ALL_REDUCE, G->sb * G->h * 2, PG_TP,
                       chained);
}
static void tp_reduce(gen *G, const char *name) { tp_reduce_at(G, name, 1); }
/* The backward of a column-parallel layer with plan.async_tp (Megatron-LM's
 * LinearWithGradAccumulationAndAsyncCommunication): the input gradient
 * (dgrad, node `lin`, on the chain), its TP reduction (`coll`) started at
 * once and running off the chain while the weight gradient (`lin`_wgrad)
 * computes, and the next chained node waiting for both.  `lin` is the
 * node's name without "_wgrad" (a layer's "bwd.L<k>.qkv", "bwd.logits"). */
static void tp_async_bwd(gen *G, const char *lin, const char *coll, double dflops, double dbytes, double dsecs,
                         double wflops, double wbytes, double wsecs) {
    char nm[80];
    cs_gen_comp(G->c, lin, dflops, dbytes, dsecs); /* (takes every pending need) */
    uint64_t id = tp_reduce_at(G, coll, 0);
    snprintf(nm, sizeof nm, "%.64s_wgrad", lin);
    cs_gen_comp(G->c, nm, wflops, wbytes, wsecs);
    CS_ALWAYS(G->c->nneed == 0, "generator: %s: %zu dependencies pending after a chained node", nm, G->c->nneed);
    G->c->need[G->c->nneed++] = id;
}
/* The MLP's all-reduce: a serving step's may carry fewer bytes per token (plan.mlp-reduce-bytes-per-token). */
static void tp_reduce_mlp(gen *G, const char *name) {
    if (G->p->tp < 2) return;
    if (G->p->phase == CS_PHASE_TRAIN || !G->p->mlp_reduce_bytes) {
        tp_reduce(G, name);
        return;
    }
    cs_gen_coll(G->c, name, CS_COLL_ALL_REDUCE, G->sb * G->p->mlp_reduce_bytes, PG_TP, 1);
}
static void tp_gather(gen *G, const char *name) {
    if (G->p->tp < 2 || !G->p->sp) return;
    cs_gen_coll(G->c, name, CS_COLL_ALL_GATHER, G->sb * G->h * 2 / G->t, PG_TP, 1); /* comm_size = each rank's shard */
}

/* ---- mixture of experts: router, all-to-all dispatch, experts, all-to-all combine ----
 * Balanced routing: each of the rank's sb tokens goes to top_k experts, so the
 * rank sends and receives sb k token vectors; comm_size of each all-to-all is
 * the rank's whole send buffer, sb k h 2 bytes.  Experts are sharded over TP
 * like the dense MLP (f/t columns); the router (2 sb h E FLOPs) is counted 1/t
 * per TP rank. */
static void moe_fwd(gen *G, const char *tag, uint32_t l) {
    char nm[64];
    double E = G->m->u.tf.experts, k = G->m->u.tf.top_k, f = G->f / G->t, mm = G->m->u.tf.swiglu ? 2 : 1, ep = G->p->ep;
    double tok = G->sb * k, le = E / ep, rows = tok / le;
    snprintf(nm, sizeof nm, "%sL%u.router", tag, l);
    cs_gen_comp(G->c, nm, 2 * G->sb * G->h * E / G->t, 2 * (G->sb * G->h + G->h * E) + 4 * G->sb * E,
         cs_gen_gemm(G->c, G->sb / G->t, E, G->h) + cs_gen_stream(G->c, 4 * G->sb * E));
    if (ep > 1) {
        snprintf(nm, sizeof nm, "%sL%u.dispatch", tag, l);
        cs_gen_coll(G->c, nm, CS_COLL_ALL_TO_ALL, tok * G->h * 2, PG_EP, 1);
    }
    snprintf(nm, sizeof nm, "%sL%u.experts", tag, l);
    double tm = le * (mm * cs_gen_gemm(G->c, rows, f, G->h) + cs_gen_gemm(G->c, rows, G->h, f)) + cs_gen_stream(G->c, (mm == 2 ? 6 : 4) * tok * f);
    cs_gen_comp(G->c, nm, 2 * tok * G->h * f * (mm + 1), 2 * (le * (mm + 1) * G->h * f + 2 * tok * G->h) + 4 * tok * f * mm, tm);
    if (ep > 1) {
        snprintf(nm, sizeof nm, "%sL%u.combine", tag, l);
        cs_gen_coll(G->c, nm, CS_COLL_ALL_TO_ALL, tok * G->h * 2, PG_EP, 1);
    }
}

static void moe_bwd(gen *G, uint32_t l) {
    char nm[64];
    double E = G->m->u.tf.experts, k = G->m->u.tf.top_k, f = G->f / G->t, mm = G->m->u.tf.swiglu ? 2 : 1, ep = G->p->ep;
    double tok = G->sb * k, le = E / ep, rows = tok / le;
    if (ep > 1) {
        snprintf(nm, sizeof nm, "bwd.L%u.combine", l);
        cs_gen_coll(G->c, nm, CS_COLL_ALL_TO_ALL, tok * G->h * 2, PG_EP, 1);
    }
    snprintf(nm, sizeof nm, "bwd.L%u.experts", l);
    double tm = 2 * le * (mm * cs_gen_gemm(G->c, rows, f, G->h) + cs_gen_gemm(G->c, rows, G->h, f)) +
                cs_gen_stream(G->c, 2 * (mm == 2 ? 6 : 4) * tok * f);
    cs_gen_comp(G->c, nm, 2 * 2 * tok * G->h * f * (mm + 1), 2 * 2 * (le * (mm + 1) * G->h * f + 2 * tok * G->h), tm);
    if (ep > 1) {
        snprintf(nm, sizeof nm, "bwd.L%u.dispatch", l);
        cs_gen_coll(G->c, nm, CS_COLL_ALL_TO_ALL, tok * G->h * 2, PG_EP, 1);
    }
    snprintf(nm, sizeof nm, "bwd.L%u.router", l);
    cs_gen_comp(G->c, nm, 2 * 2 * G->sb * G->h * E / G->t, 2 * 2 * (G->sb * G->h + G->h * E),
         2 * cs_gen_gemm(G->c, G->sb / G->t, E, G->h) + cs_gen_stream(G->c, 4 * G->sb * E));
}

/* ---- ZeRO-3 / FSDP: all-gather a unit's parameter shards before it runs ----
 * Dense parameters are sharded over DP, experts over expert-DP (dp/ep);
 * comm_size = the rank's shard in bytes.  Off the chain (prefetch); the
 * returned ids are what the unit's first node must wait for. */
static size_t z3_gather(gen *G, const char *name, double dense, double expert, uint64_t ids[2], int chained) {
    size_t n = 0;
    double edp = cs_gen_edp_ranks(G->p), dp = cs_gen_shard_ranks(G->p);
    int kind = cs_gen_hsdp(G->p) ? PG_SH : PG_DP; /* HSDP: within the shard group */
    if (!cs_gen_gathers(G->p)) return 0;
    if (dp > 1 && dense > 0) ids[n++] = cs_gen_coll(G->c, name, CS_COLL_ALL_GATHER, 2 * dense / dp, kind, chained);
    if (edp > 1 && expert > 0) ids[n++] = cs_gen_coll(G->c, name, CS_COLL_ALL_GATHER, 2 * expert / edp, PG_EDP, chained);
    return n;
}

static double layer_dense_rank(gen *G) { return (cs_gen_tx_layer_params(G->m) - layer_expert_params(G->m)) / G->t; }
static double layer_expert_rank(gen *G) { return layer_expert_params(G->m) / ((double)G->p->ep * G->t); }

/* Does this pass gather the parameters of its units?  ZeRO-3 and FSDP
 * FULL_SHARD: every forward and every backward (resharded after each);
 * SHARD_GRAD_OP: forwards only (not resharded after the forward), and
 * under no_sync only micro-batch 0's (kept until the step's last backward,
 * PyTorch FSDP's _should_free_in_backward). */
static int pass_gathers(gen *G, int bwd) {
    if (!cs_gen_gathers(G->p)) return 0;
    if (!cs_gen_zero2_like(G->p)) return 1;
    return !bwd && (!G->p->fsdp_no_sync || G->mb == 0);
}

/* Before layer l's forward (bwd = 0) or backward (1): wait for its gather
 * (prefetched by the previous layer, else issued now) and prefetch the next
 * layer of the stage in the same direction. */
static void z3_layer(gen *G, uint32_t l, int bwd) {
    if (!pass_gathers(G, bwd) || G->recomputing) return;
    uint32_t key = 2 * l + (uint32_t)bwd, lo = G->clo, hi = G->chi;
    char nm[64];
    if (G->npf && G->pf_layer == key) {
        memcpy(G->c->need, G->pf, sizeof G->c->need);
        G->c->nneed = G->npf;
    } else {
        snprintf(nm, sizeof nm, "%sL%u.zero3.ag", bwd ? "bwd." : "", l);
        G->c->nneed = z3_gather(G, nm, layer_dense_rank(G), layer_expert_rank(G), G->c->need, 0);
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

/* ---- causal masking ---------------------------------------------------------
 * The share of a causal block's scores that flash attention computes.  The
 * kernel walks tiles of FLASH_TILE queries (FlashAttention-2's blocks are 64
 * or 128 a side, FlashAttention-3's 128 on H100): a tile of a rows, starting
 * where the causal diagonal does, computes its rows against every key up to
 * its last row and skips the rest.  Over a run of n tokens cut into tiles of
 * a_i rows, the scores computed are sum_i a_i (a_1 + .. + a_i) = (n^2 +
 * sum_i a_i^2) / 2, i.e. 1/2 + tsq(n) / (2 n^2) of the n x n block (n a
 * multiple of the tile: 1/2 + FLASH_TILE / (2 n)).  With context
 * parallelism the sequence is cut into 2 cp chunks of c = s / (2 cp) tokens
 * and CP rank r holds chunks r and 2 cp - 1 - r (the load balancing of
 * Megatron-Core and of Llama 3, Dubey et al. 2024, Sec. 3.3.2), so every
 * rank does the same work; each chunk is tiled from its own start:
 *   - no CP: the s queries against the s keys, 1/2 + tsq(s) / (2 s^2);
 *   - K/V all-gathered: chunk k sees k whole chunks and its own diagonal:
 *     (r + 2 cp - 1 - r) c^2 + 2 (c^2 + tsq(c)) / 2 = 2 cp c^2 + tsq(c) of
 *     the 2 c x s block, 1/2 + tsq(c) / (4 cp c^2) (1/2 + FLASH_TILE /
 *     (2 s) when c is a multiple of the tile);
 *   - ring attention, the rank's own block (step 0): two diagonal chunks
 *     and one whole one, (2 c^2 + tsq(c)) / (4 c^2);
 *   - ring attention, another rank's block: half of it (its first chunk
 *     against the rank's two, or both of its chunks against the rank's
 *     last), exactly.
 * The ring's steps add up to the all-gather's share. */
#define FLASH_TILE 128u
/* sum of the squared tile heights over n tokens */
static double tile_sq(double n) {
    double full = floor(n / FLASH_TILE), r = n - full * FLASH_TILE;
    return full * FLASH_TILE * FLASH_TILE + r * r;
}
static double causal_share(const gen *G, int ring, uint32_t step) {
    double s = G->s, cp = G->p->cp, c = s / (2 * cp);
    if (G->p->cp <= 1) return 0.5 + tile_sq(s) / (2 * s * s);
    if (!ring) return 0.5 + tile_sq(c) / (4 * cp * c * c);
    return step > 0 ? 0.5 : (2 * c * c + tile_sq(c)) / (4 * c * c);
}

/* ---- attention core, and context parallelism ---------------------------------
 * One block: the rank's sq queries against kv keys, per TP rank (b a / t
 * heads): QK^T, softmax, dropout, AV; backward twice the matmuls and 12
 * bytes per score.  Without CP one block of kv = s.  With CP the rank's
 * queries need every rank's keys and values (2 sq b g d / t elements each):
 * all-gathered over the CP group before the block (kv = s), their gradients
 * reduce-scattered after its backward; or, ring attention, cp blocks of
 * kv = sq, the next block's K/V arriving from the previous CP rank while
 * this one is computed (Liu et al. 2023; Megatron-Core's "p2p").
 *
 * Causal masking (every model of this family is a decoder): the unfused
 * path computes every score and masks them in the softmax, so it pays for
 * all of them.  Flash attention skips the tiles of scores that lie wholly
 * above the diagonal (Dao 2023, FlashAttention-2, Sec. 3.1.1), so it
 * computes `share` of the block's matmuls (causal_share).  The model FLOPs
 * (tx_flops) keep counting every score, as Megatron-LM's and PaLM's
 * formulas do; the executed (hardware) FLOPs are the computed ones. */
static void attn_block(gen *G, const char *name, double kv, int bwd, double share) {
    double heads = G->b * G->a / G->t, sm = heads * G->sq * kv;
    double fl = heads * 2 * (2 * G->sq * kv * G->hd);
    double tm = heads * (cs_gen_gemm(G->c, G->sq, kv, G->hd) + cs_gen_gemm(G->c, G->sq, G->hd, kv));
    double io = heads * (2 * G->sq + 2 * kv) * G->hd * 2; /* Q, K, V, O */
    if (G->p->flash) { /* fused: no scores in HBM; the backward recomputes QK^T (5 matmuls for 2) */
        fl *= share;
        tm *= share;
        if (bwd) cs_gen_comp(G->c, name, 2.5 * fl, 2 * io, 2.5 * tm);
        else cs_gen_comp(G->c, name, fl, io, tm);
        return;
    }
    if (bwd) cs_gen_comp(G->c, name, 2 * fl, 12 * sm, 2 * tm + cs_gen_stream(G->c, 12 * sm));
    else cs_gen_comp(G->c, name, fl, 9 * sm + io, tm + cs_gen_stream(G->c, 9 * sm));
}

static double kv_bytes(gen *G) { return 2.0 * G->sb * (G->g * G->hd / G->t) * 2; } /* the rank's K and V */
static uint32_t cp_peer(gen *G, uint32_t d) {
    uint32_t cp = G->p->cp;
    return cs_gen_rank_at(G->p, G->ti, G->di, G->pi, (G->ci + d) % cp);
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
        cs_gen_p2p(G->c, 1, cp_peer(G, 1), ring_tag(G, i, 0), kv_bytes(G), r, 0, 1);
        nr = cs_gen_p2p(G->c, 0, cp_peer(G, cp - 1), ring_tag(G, i, 0), kv_bytes(G), r, 0, 1);
    }
    if (r) G->c->need[G->c->nneed++] = r;
    return nr;
}

static void ring_fwd(gen *G, const char *name) {
    char nm[80];
    uint64_t r = 0;
    for (uint32_t i = 0; i < G->p->cp; i++) {
        uint64_t nr = ring_step(G, i, r);
        snprintf(nm, sizeof nm, "%.64s.cp%u", name, i);
        attn_block(G, nm, G->sq, 0, causal_share(G, 1, i));
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
        if (i > 0) dr = cs_gen_p2p(G->c, 0, cp_peer(G, cp - 1), ring_tag(G, i - 1, 1), kvb, r, 0, 1);
        uint64_t nr = ring_step(G, i, r);
        snprintf(nm, sizeof nm, "%.64s.cp%u", name, i);
        attn_block(G, nm, G->sq, 1, causal_share(G, 1, i));
        cs_gen_p2p(G->c, 1, cp_peer(G, 1), ring_tag(G, i, 1), kvb, dr, 0, 1);
        r = nr;
    }
    cs_gen_p2p(G->c, 0, cp_peer(G, cp - 1), ring_tag(G, cp - 1, 1), kvb, 0, 1, 1); /* the rank's own dK/dV */
    G->cpring++;
}

double cs_gen_tx_decode_attn_s(const cs_gen_model *m, const cs_gen_plan *p, const cs_device *d, double ctx,
                               double *flops, double *bytes) {
    double b = p->micro_batch, d_h = head_dim(m), qh = (double)m->u.tf.heads / p->tp, kvh = (double)m->u.tf.kv_heads / p->tp;
    double fl = b * qh * 4 * ctx * d_h;                 /* q k^T over ctx keys, then the weighted sum of ctx values */
    double by = 2.0 * b * kvh * ctx * d_h * 2           /* K and V of the cache, read once per KV head */
                + 2.0 * b * qh * d_h * 2                /* Q read, O written */
                + 2.0 * b * kvh * d_h * 2;              /* the new token's K and V appended */
    double tc = fl / (d->peak_bf16_flops * d->gemm_eff_max), tm = cs_device_stream_s(d, by);
    if (flops) *flops = fl;
    if (bytes) *bytes = by;
    return tc > tm ? tc : tm;
}

static void attn_fwd(gen *G, const char *name) {
    char nm[80];
    if (G->p->phase == CS_PHASE_DECODE) { /* one query per sequence against the cache (docs/inference.md) */
        double fl, by, t = cs_gen_tx_decode_attn_s(G->m, G->p, G->c->d, G->s, &fl, &by);
        cs_gen_comp(G->c, name, fl, by, t);
        return;
    }
    if (G->p->cp <= 1) {
        attn_block(G, name, G->s, 0, causal_share(G, 0, 0));
    } else if (G->p->cp_comm == CS_CP_P2P) {
        ring_fwd(G, name);
    } else {
        snprintf(nm, sizeof nm, "%.64s.cp_ag", name);
        cs_gen_coll(G->c, nm, CS_COLL_ALL_GATHER, kv_bytes(G), PG_CP, 1); /* comm_size = each rank's shard */
        attn_block(G, name, G->s, 0, causal_share(G, 0, 0));
    }
}

/* `gathered`: K/V are still all-gathered from a recomputed forward. */
static void attn_bwd(gen *G, const char *name, int gathered) {
    char nm[80];
    if (G->p->cp <= 1) {
        attn_block(G, name, G->s, 1, causal_share(G, 0, 0));
    } else if (G->p->cp_comm == CS_CP_P2P) {
        ring_bwd(G, name);
    } else {
        snprintf(nm, sizeof nm, "%.64s.cp_ag", name);
        if (!gathered) cs_gen_coll(G->c, nm, CS_COLL_ALL_GATHER, kv_bytes(G), PG_CP, 1);
        attn_block(G, name, G->s, 1, causal_share(G, 0, 0));
        snprintf(nm, sizeof nm, "%.64s.cp_rs", name);
        cs_gen_coll(G->c, nm, CS_COLL_REDUCE_SCATTER, kv_bytes(G) * G->p->cp, PG_CP, 1); /* comm_size = the whole tensor */
    }
}

static void layer_fwd(gen *G, uint32_t l, const char *tag) {
    char nm[64];
    z3_layer(G, l, 0);
    double q = (G->a + 2 * G->g) * G->hd / G->t, f = G->f / G->t, mm = G->m->u.tf.swiglu ? 2 : 1;
    snprintf(nm, sizeof nm, "%sL%u.ln1", tag, l);
    cs_gen_comp(G->c, nm, 0, 4 * G->sl * G->h, cs_gen_stream(G->c, 4 * G->sl * G->h));
    snprintf(nm, sizeof nm, "%sL%u.ag1", tag, l);
    tp_gather(G, nm);
    snprintf(nm, sizeof nm, "%sL%u.qkv", tag, l);
    cs_gen_comp(G->c, nm, 2 * G->sb * G->h * q, 2 * (G->sb * G->h + G->h * q + G->sb * q), cs_gen_gemm(G->c, G->sb, q, G->h));
    snprintf(nm, sizeof nm, "%sL%u.attn", tag, l);
    attn_fwd(G, nm);
    snprintf(nm, sizeof nm, "%sL%u.proj", tag, l);
    double ad = G->a * G->hd / G->t;
    cs_gen_comp(G->c, nm, 2 * G->sb * ad * G->h, 2 * (G->sb * ad + ad * G->h + G->sb * G->h), cs_gen_gemm(G->c, G->sb, G->h, ad));
    snprintf(nm, sizeof nm, "%sL%u.ar1", tag, l);
    tp_reduce(G, nm);
    snprintf(nm, sizeof nm, "%sL%u.res1_ln2", tag, l);
    cs_gen_comp(G->c, nm, 0, 11 * G->sl * G->h, cs_gen_stream(G->c, 11 * G->sl * G->h));
    snprintf(nm, sizeof nm, "%sL%u.ag2", tag, l);
    tp_gather(G, nm);
    if (G->m->u.tf.experts) {
        moe_fwd(G, tag, l);
    } else {
        snprintf(nm, sizeof nm, "%sL%u.mlp", tag, l);
        double tm = mm * cs_gen_gemm(G->c, G->sb, f, G->h) + cs_gen_gemm(G->c, G->sb, G->h, f) + cs_gen_stream(G->c, (mm == 2 ? 6 : 4) * G->sb * f);
        cs_gen_comp(G->c, nm, 2 * G->sb * G->h * f * (mm + 1),
             2 * ((mm + 1) * G->h * f + 2 * G->sb * G->h) + 4 * G->sb * f * mm, tm);
    }
    snprintf(nm, sizeof nm, "%sL%u.ar2", tag, l);
    tp_reduce_mlp(G, nm);
    snprintf(nm, sizeof nm, "%sL%u.res2", tag, l);
    cs_gen_comp(G->c, nm, 0, 7 * G->sl * G->h, cs_gen_stream(G->c, 7 * G->sl * G->h));
}

static void layer_bwd(gen *G, uint32_t l) {
    char nm[64];
    double q = (G->a + 2 * G->g) * G->hd / G->t, f = G->f / G->t, mm = G->m->u.tf.swiglu ? 2 : 1;
    double ad = G->a * G->hd / G->t;
    z3_layer(G, l, 1);
    if (G->p->recompute == CS_RECOMP_FULL) {
        G->recomputing = 1;
        layer_fwd(G, l, "recompute.");
        G->recomputing = 0;
    }
    snprintf(nm, sizeof nm, "bwd.L%u.res2", l);
    cs_gen_comp(G->c, nm, 0, 10 * G->sl * G->h, cs_gen_stream(G->c, 10 * G->sl * G->h));
    snprintf(nm, sizeof nm, "bwd.L%u.ag2", l);
    tp_gather(G, nm);
    /* plan.async_tp: the QKV projection and the dense MLP's first layer(s)
     * split into dgrad and wgrad around their TP reduction (tp_async_bwd);
     * the wgrad GEMM is the forward's shape (the backward is counted as
     * twice the forward, dgrad and wgrad alike).  MoE layers keep the
     * blocking reduction after their experts' backward (moe_bwd). */
    int async = G->p->async_tp && G->p->tp > 1, async_mlp = async && !G->m->u.tf.experts;
    if (G->m->u.tf.experts) {
        moe_bwd(G, l);
    } else {
        snprintf(nm, sizeof nm, "bwd.L%u.mlp", l);
        double g1 = cs_gen_gemm(G->c, G->sb, f, G->h);
        double tm = 2 * (mm * g1 + cs_gen_gemm(G->c, G->sb, G->h, f)) + cs_gen_stream(G->c, 2 * (mm == 2 ? 6 : 4) * G->sb * f);
        double fl = 2 * 2 * G->sb * G->h * f * (mm + 1), by = 2 * 2 * ((mm + 1) * G->h * f + 2 * G->sb * G->h);
        if (async_mlp) {
            double wf = 2 * G->sb * G->h * f * mm, wb = 2 * (mm * G->h * f + G->sb * G->h);
            char n2[64];
            snprintf(n2, sizeof n2, "bwd.L%u.ar2", l);
            tp_async_bwd(G, nm, n2, fl - wf, by - wb, tm - mm * g1, wf, wb, mm * g1);
        } else {
            cs_gen_comp(G->c, nm, fl, by, tm);
        }
    }
    if (!async_mlp) {
        snprintf(nm, sizeof nm, "bwd.L%u.ar2", l);
        tp_reduce(G, nm);
    }
    snprintf(nm, sizeof nm, "bwd.L%u.res1_ln2", l);
    cs_gen_comp(G->c, nm, 0, 16 * G->sl * G->h, cs_gen_stream(G->c, 16 * G->sl * G->h));
    snprintf(nm, sizeof nm, "bwd.L%u.ag1", l);
    tp_gather(G, nm);
    snprintf(nm, sizeof nm, "bwd.L%u.proj", l);
    cs_gen_comp(G->c, nm, 2 * 2 * G->sb * ad * G->h, 2 * 2 * (G->sb * ad + ad * G->h + G->sb * G->h),
         2 * cs_gen_gemm(G->c, G->sb, G->h, ad));
    if (G->p->recompute == CS_RECOMP_SELECTIVE && !G->p->flash) { /* flash recomputes inside its backward */
        snprintf(nm, sizeof nm, "recompute.L%u.attn", l);
        attn_fwd(G, nm);
    }
    snprintf(nm, sizeof nm, "bwd.L%u.attn", l);
    attn_bwd(G, nm, G->p->recompute == CS_RECOMP_FULL || (G->p->recompute == CS_RECOMP_SELECTIVE && !G->p->flash));
    if (async) {
        double gq = cs_gen_gemm(G->c, G->sb, q, G->h), fq = 2 * G->sb * G->h * q;
        double bq = 2 * (G->sb * G->h + G->h * q + G->sb * q);
        char n1[64], n2[64];
        snprintf(n1, sizeof n1, "bwd.L%u.qkv", l);
        snprintf(n2, sizeof n2, "bwd.L%u.ar1", l);
        tp_async_bwd(G, n1, n2, fq, bq, gq, fq, bq, gq);
    } else {
        snprintf(nm, sizeof nm, "bwd.L%u.qkv", l);
        cs_gen_comp(G->c, nm, 2 * 2 * G->sb * G->h * q, 2 * 2 * (G->sb * G->h + G->h * q + G->sb * q),
                    2 * cs_gen_gemm(G->c, G->sb, q, G->h));
        snprintf(nm, sizeof nm, "bwd.L%u.ar1", l);
        tp_reduce(G, nm);
    }
    snprintf(nm, sizeof nm, "bwd.L%u.ln1", l);
    cs_gen_comp(G->c, nm, 0, 8 * G->sl * G->h, cs_gen_stream(G->c, 8 * G->sl * G->h));
    /* the layer's gradients (every parameter of the rank's share of it) added into the accumulation
     * buffer, as every micro-batch's backward does (CS_GEN_GRAD_ACC_BYTES_PER_PARAM); with the fusion
     * only its norms', biases' and router's into the fp32 buffer (CS_GEN_GRAD_ACC_FP32_BYTES_PER_PARAM) */
    double vx = layer_expert_vector_params(G->m);
    double ga = G->p->grad_acc_fusion
                    ? CS_GEN_GRAD_ACC_FP32_BYTES_PER_PARAM *
                          ((layer_vector_params(G->m) - vx) / G->t + vx / ((double)G->p->ep * G->t))
                    : CS_GEN_GRAD_ACC_BYTES_PER_PARAM * (layer_dense_rank(G) + layer_expert_rank(G));
    snprintf(nm, sizeof nm, "bwd.L%u.grad_acc", l);
    cs_gen_comp(G->c, nm, 0, ga, cs_gen_stream(G->c, ga));
}


/* ZeRO-3 / FSDP: the parameters of the pass's chunk outside its layers
 * (chunk_extra_params: one more unit), gathered on the chain at the start
 * of each pass of that chunk -- with interleaving only the first and last
 * virtual stages have any. */
static void z3_extras(gen *G, const char *name, uint32_t vs, int bwd) {
    uint64_t ids[2];
    if (!pass_gathers(G, bwd)) return;
    double x = chunk_extra_params(G->m, G->p, vs);
    if (x > 0.5) z3_gather(G, name, x, 0, ids, 1);
}

/* Model chunk c of the rank's stage (c = 0 without interleaving): virtual
 * stage vs = c pp + pi of pp v, its layers those of plan.layout or split as
 * the stages' are (cs_gen_vstage_layers: ceil(layers / (pp v)) each, the
 * deficit taken from the last virtual stage, the first, ...; v = 1 gives
 * cs_gen_tx_stage_layers).
 * Pipeline neighbours are stages pi -+ 1, wrapping from the last stage to
 * the first between chunks.  The tag of a boundary is 2 (mb + M c_low) (+1
 * backward), c_low = the chunk of its lower virtual stage (2 mb without
 * interleaving). */
static uint32_t chunk_setup(gen *G, uint32_t c) {
    uint32_t P = G->p->pp, vs = c * P + G->pi, first;
    uint32_t n = cs_gen_vstage_layers(G->m->u.tf.layers, G->p, vs, &first); /* v = 1: the stage's layers */
    G->clo = first;
    G->chi = first + n;
    return vs;
}
static uint32_t prev_rank(gen *G) { return cs_gen_rank_at(G->p, G->ti, G->di, G->pi > 0 ? G->pi - 1 : G->p->pp - 1, G->ci); }
static uint32_t next_rank(gen *G) { return cs_gen_rank_at(G->p, G->ti, G->di, G->pi + 1 < G->p->pp ? G->pi + 1 : 0, G->ci); }
static int32_t p2p_tag(gen *G, uint32_t mb, uint32_t vs_low, int bwd) {
    return (int32_t)(2 * (mb + G->M * (vs_low / G->p->pp)) + (uint32_t)bwd);
}

static void forward_mb(gen *G, uint32_t mb, uint32_t c) {
    if (G->c->rc != CS_OK) return; /* the rank failed or was stopped: nothing more is written */
    uint32_t vs = chunk_setup(G, c), last = G->p->pp * cs_gen_vst(G->p) - 1;
    G->mb = mb;
    z3_extras(G, "zero3.ag.extra", vs, 0);
    if (vs > 0) p2p(G, 0, prev_rank(G), p2p_tag(G, mb, vs - 1, 0), G->sl * G->h * 2);
    if (vs == 0) {
        cs_gen_ingest_batch(G->c, mb); /* the loader's batch: the embedding consumes it */
        cs_gen_comp(G->c, "embed", 0, 4 * G->sl * G->h, cs_gen_stream(G->c, 4 * G->sl * G->h));
        tp_reduce(G, "embed.ar");
    }
    for (uint32_t l = G->clo; l < G->chi && G->c->rc == CS_OK; l++) layer_fwd(G, l, "");
    if (vs == last) {
        double v = ceil(G->V / G->t);
        cs_gen_comp(G->c, "final_ln", 0, 4 * G->sl * G->h, cs_gen_stream(G->c, 4 * G->sl * G->h));
        tp_gather(G, "logits.ag");
        /* the GEMM, then Megatron's fp32 vocab-parallel cross entropy (CS_GEN_XENT_FWD_BYTES_PER_LOGIT) */
        double xe = CS_GEN_XENT_FWD_BYTES_PER_LOGIT * G->sb * v;
        cs_gen_comp(G->c, "logits", 2 * G->sb * G->h * v, 2 * (G->sb * G->h + G->h * v + G->sb * v) + xe,
             cs_gen_gemm(G->c, G->sb, v, G->h) + cs_gen_stream(G->c, xe));
    } else {
        p2p(G, 1, next_rank(G), p2p_tag(G, mb, vs, 0), G->sl * G->h * 2);
    }
}

/* Gradients are reduced in the last micro-batch's backward (ZeRO 0/1: they
 * accumulate locally) or, with ZeRO >= 2 (sharded gradients), in every one. */
static void backward_mb(gen *G, uint32_t mb, uint32_t c, int last_mb) {
    if (G->c->rc != CS_OK) return;
    uint32_t vs = chunk_setup(G, c), last = G->p->pp * cs_gen_vst(G->p) - 1;
    double acc = 0, acce = 0, accx = 0, lp = layer_dense_rank(G), lpe = layer_expert_rank(G);
    /* FSDP reduce-scatters per unit: each layer's gradients after its
     * backward, the stage's other parameters (one unit) at the end */
    int unit = G->p->fsdp_strategy != CS_FSDP_NONE;
    double *hacc = unit ? &accx : &acc;
    if (G->p->zero >= 2 && !G->p->fsdp_no_sync) last_mb = 1; /* sharded gradients cannot accumulate */
    G->mb = mb;
    z3_extras(G, "bwd.zero3.ag.extra", vs, 1);
    if (vs < last) p2p(G, 0, next_rank(G), p2p_tag(G, mb, vs, 1), G->sl * G->h * 2);
    if (vs == last) {
        double v = ceil(G->V / G->t);
        /* the cross entropy's backward (CS_GEN_XENT_BWD_BYTES_PER_LOGIT), the two GEMMs, and the output
         * layer's weight gradient added into the accumulation buffer (tied or not: V h / t) */
        double xe = CS_GEN_XENT_BWD_BYTES_PER_LOGIT * G->sb * v;
        double ga = G->p->grad_acc_fusion ? 0 : CS_GEN_GRAD_ACC_BYTES_PER_PARAM * v * G->h; /* fused: in the GEMM */
        double gl = cs_gen_gemm(G->c, G->sb, v, G->h), fl = 2 * G->sb * G->h * v;
        if (G->p->async_tp && G->p->tp > 1) {
            /* the output layer is column-parallel too (Megatron-LM's parallel_lm_logits): the cross
             * entropy's backward and the dgrad, the reduction beside the wgrad and the accumulation */
            tp_async_bwd(G, "bwd.logits", "bwd.logits.ar", fl, 2 * (G->sb * G->h + G->h * v) + xe,
                         gl + cs_gen_stream(G->c, xe), fl, 2 * (G->sb * G->h + G->h * v) + ga,
                         gl + cs_gen_stream(G->c, ga));
        } else {
            cs_gen_comp(G->c, "bwd.logits", 2 * fl, 2 * 2 * (G->sb * G->h + G->h * v) + xe + ga,
                        2 * gl + cs_gen_stream(G->c, xe + ga));
            tp_reduce(G, "bwd.logits.ar");
        }
        cs_gen_comp(G->c, "bwd.final_ln", 0, 8 * G->sl * G->h, cs_gen_stream(G->c, 8 * G->sl * G->h));
        /* an FSDP unit reduce-scatters what it gathered (with Megatron's
         * copy of a tied embedding); DDP-style buckets the head's own */
        if (last_mb) *hacc += (unit ? last_chunk_params(G->m, G->p) : head_params(G->m)) / G->t;
    }
    for (uint32_t l = G->chi; l-- > G->clo && G->c->rc == CS_OK;) {
        layer_bwd(G, l);
        if (last_mb) {
            acc += lp;
            acce += lpe;
            cs_gen_dp_bucket(G->c, &acc, unit, PG_DP);
            cs_gen_dp_bucket(G->c, &acce, unit, PG_EDP);
        }
    }
    if (vs == 0) {
        cs_gen_comp(G->c, "bwd.embed", 0, 8 * G->sl * G->h, cs_gen_stream(G->c, 8 * G->sl * G->h));
        /* the embedding's gradient (word and position tables / t) into the accumulation buffer */
        double ga = (G->p->grad_acc_fusion ? CS_GEN_GRAD_ACC_FP32_BYTES_PER_PARAM : CS_GEN_GRAD_ACC_BYTES_PER_PARAM) *
                    embed_params(G->m) / G->t;
        cs_gen_comp(G->c, "bwd.embed.grad_acc", 0, ga, cs_gen_stream(G->c, ga));
        if (last_mb) acc += embed_params(G->m) / G->t;
    } else {
        p2p(G, 1, prev_rank(G), p2p_tag(G, mb, vs - 1, 1), G->sl * G->h * 2);
    }
    if (last_mb) {
        acc += accx;
        cs_gen_dp_bucket(G->c, &acc, 1, PG_DP);
        cs_gen_dp_bucket(G->c, &acce, 1, PG_EDP);
    }
}

/* A serving step (docs/inference.md): one batch of micro_batch sequences
 * forward through the rank's stage -- prefill over the sb = P b prompt
 * tokens, decode over sb = b new tokens -- with the training forward's
 * layer kernels and TP collectives, the activations received from the
 * previous stage and sent to the next (tag 0), logits of the last token of
 * each sequence on the last stage.  No backward, no optimizer. */
static void infer_step(gen *G) {
    uint32_t last = G->p->pp - 1;
    if (G->pi > 0) p2p(G, 0, prev_rank(G), 0, G->sb * G->h * 2);
    else {
        cs_gen_comp(G->c, "embed", 0, 4 * G->sb * G->h, cs_gen_stream(G->c, 4 * G->sb * G->h));
        tp_reduce(G, "embed.ar");
    }
    for (uint32_t l = G->clo; l < G->chi && G->c->rc == CS_OK; l++) layer_fwd(G, l, "");
    if (G->pi == last) {
        double v = ceil(G->V / G->t);
        cs_gen_comp(G->c, "final_ln", 0, 4 * G->b * G->h, cs_gen_stream(G->c, 4 * G->b * G->h));
        cs_gen_comp(G->c, "logits", 2 * G->b * G->h * v, 2 * (G->b * G->h + G->h * v) + 4 * G->b * v,
                    cs_gen_gemm(G->c, G->b, v, G->h) + cs_gen_stream(G->c, 4 * G->b * v));
    } else {
        p2p(G, 1, next_rank(G), 0, G->sb * G->h * 2);
    }
}

static void tx_emit(cs_gen_ctx *c) {
    const cs_gen_model *m = c->m;
    const cs_gen_plan *p = c->p;
    const cs_gen_transformer *x = &m->u.tf;
    gen G;
    memset(&G, 0, sizeof G);
    G.c = c;
    G.m = m;
    G.p = p;
    G.ti = c->ti;
    G.di = c->di;
    G.pi = c->pi;
    G.ci = c->ci;
    G.M = c->M;
    G.s = x->seq;
    G.sq = G.s / cs_gen_cp(p);
    G.b = p->micro_batch;
    G.h = x->hidden;
    G.a = x->heads;
    G.g = x->kv_heads;
    G.hd = x->heads ? head_dim(m) : 0;
    G.f = x->ffn_hidden;
    G.t = p->tp;
    G.sb = G.sq * G.b;
    G.sl = p->sp && p->tp > 1 ? G.sb / G.t : G.sb;
    G.V = x->vocab;
    if (p->phase != CS_PHASE_TRAIN) {
        G.s = p->context_tokens;                              /* the keys attention sees */
        G.sq = p->phase == CS_PHASE_PREFILL ? G.s : 1;        /* the step's tokens per sequence */
        G.sb = G.sl = G.sq * G.b;
        chunk_setup(&G, 0);
        infer_step(&G);
        return;
    }

    uint32_t M = G.M, P = p->pp;
    chunk_setup(&G, 0);
    if (p->schedule == CS_SCHED_GPIPE) {
        for (uint32_t i = 0; i < M; i++) forward_mb(&G, i, 0);
        for (uint32_t i = 0; i < M; i++) backward_mb(&G, i, 0, i == M - 1);
    } else if (cs_gen_vst(p) > 1) {
        /* Megatron's interleaved 1F1B: unit k is micro-batch (k / (P v)) P + k mod P
         * of chunk (k / P) mod v (backward: v - 1 - that); warm-up
         * 2 (P - pi - 1) + (v - 1) P forward units, then one forward + one
         * backward, then the remaining backwards. */
        uint32_t v = cs_gen_vst(p), tot = M * v, warm = (P - G.pi - 1) * 2 + (v - 1) * P, f = 0, b = 0;
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
}

/* ---- plan checks, batch, report -------------------------------------------- */

static int tx_check(const cs_gen_model *m, const cs_gen_plan *p, cs_error *err) {
    const cs_gen_transformer *x = &m->u.tf;
    uint64_t def_global = cs_mul_u64_sat(cs_mul_u64_sat(p->micro_batch, p->dp), p->pp);
    if (!p->global_batch && def_global > UINT32_MAX) /* tx_batch's default did not fit */
        return CS_ERR(err, CS_EINVAL,
                      "--global-batch: the default, micro-batch x dp x pp = %u x %u x %u = %" PRIu64 ", passes "
                      "2^32 - 1 samples; expected an explicit --global-batch or a smaller plan",
                      p->micro_batch, p->dp, p->pp, def_global);
    /* (cs_gen_plan_check has bounded the ranks: tp x cp fits 32 bits) */
    if (cs_gen_cp(p) > 1) {
        if (x->seq % (p->cp * (p->sp ? p->tp : 1)))
            return CS_ERR(err, CS_EINVAL, "--cp %u: the sequence (%u) must be divisible by cp%s (%u)", p->cp, x->seq,
                          p->sp ? " x tp with --sp" : "", p->cp * (p->sp ? p->tp : 1));
        if (x->seq % (2 * p->cp))
            return CS_ERR(err, CS_EINVAL, "--cp %u: the sequence (%u) is cut into 2 x cp = %u load-balanced chunks "
                          "(Megatron-Core, Llama 3: CP rank r holds chunks r and 2 cp - 1 - r); expected a multiple "
                          "of %u", p->cp, x->seq, 2 * p->cp, 2 * p->cp);
        if (p->ep > 1)
            return CS_ERR(err, CS_EINVAL, "--cp %u with --ep %u: expert parallelism with context parallelism is not "
                          "modelled; expected --ep 1", p->cp, p->ep);
    }
    if (p->phase != CS_PHASE_TRAIN) { /* a serving step: docs/inference.md */
        const char *ph = p->phase == CS_PHASE_PREFILL ? "prefill" : "decode";
        if (cs_gen_cp(p) > 1 || p->sp || p->recompute || p->zero || cs_gen_vst(p) > 1 || p->offload_opt)
            return CS_ERR(err, CS_EINVAL, "plan.phase %s: a serving step takes TP, PP, DP and EP only; expected "
                          "cp 1, no sp, recompute none, zero 0, virtual-stages 1, no offload-optimizer", ph);
        if (!p->context_tokens)
            return CS_ERR(err, CS_EINVAL, "plan.context-tokens: expected at least 1 token for a %s step", ph);
        if (p->kv_tokens && p->kv_tokens < p->context_tokens)
            return CS_ERR(err, CS_EINVAL, "plan.kv-tokens %u: expected at least plan.context-tokens (%u): the cache "
                          "holds the step's context", p->kv_tokens, p->context_tokens);
        if (p->mlp_reduce_bytes && x->experts)
            return CS_ERR(err, CS_EINVAL, "plan.mlp-reduce-bytes-per-token %u: expected a dense MLP (the model has %u "
                          "experts: its MLP exchanges tokens by all-to-all)", p->mlp_reduce_bytes, x->experts);
        if (p->mlp_reduce_bytes > 2 * x->hidden)
            return CS_ERR(err, CS_EINVAL, "plan.mlp-reduce-bytes-per-token %u: expected at most the dense all-reduce's "
                          "2 x hidden = %u bytes per token", p->mlp_reduce_bytes, 2 * x->hidden);
        if ((uint64_t)p->micro_batch * p->dp != p->global_batch)
            return CS_ERR(err, CS_EINVAL, "plan.global-batch %u: a %s step is one batch: expected micro-batch x dp = "
                          "%u x %u", p->global_batch, ph, p->micro_batch, p->dp);
    }
    uint32_t mbs = cs_gen_micro_batches(p);
    if (cs_gen_vst(p) > 1) {
        uint64_t chunks = (uint64_t)p->pp * p->vstages;
        int z3 = p->zero > 2 && !p->fsdp_strategy; /* ZeRO-3's buckets; FSDP's per-unit schedule interleaves */
        if ((p->pp < 2 || p->schedule != CS_SCHED_1F1B || z3) && p->nlayout)
            return CS_ERR(err, CS_EINVAL,
                          "--layout: %u stages over --pp %u are %u virtual stages per rank (interleaving), which needs "
                          "--pp > 1, --schedule 1f1b and --zero 0..2 or an FSDP strategy; expected %u stages for --pp %u without interleaving",
                          p->nlayout, p->pp, p->vstages, p->pp, p->pp);
        if (p->pp < 2 || p->schedule != CS_SCHED_1F1B || z3)
            return CS_ERR(err, CS_EINVAL,
                          "--virtual-stages %u: interleaving needs a transformer, --pp > 1, --schedule 1f1b and "
                          "--zero 0..2 or an FSDP strategy", p->vstages);
        if (x->layers < chunks && !p->nlayout)
            return CS_ERR(err, CS_EINVAL, "--virtual-stages %u: expected at least one layer per model chunk, got %u "
                          "layers for pp x virtual stages = %" PRIu64 " chunks", p->vstages, x->layers, chunks);
        if (!mbs || mbs % p->pp)
            return CS_ERR(err, CS_EINVAL, "--virtual-stages %u: the micro-batch count (%u) must be a multiple of --pp %u",
                          p->vstages, mbs, p->pp);
    }
    /* the schedule's loops and the pipeline tags (2 x unit + 1 in an int32)
     * count micro-batches x chunks */
    if ((uint64_t)mbs * cs_gen_vst(p) > TX_MAX_UNITS) {
        if (cs_gen_vst(p) > 1)
            return CS_ERR(err, CS_EINVAL, "--virtual-stages %u: %u micro-batches x %u chunks = %" PRIu64 " passes; "
                          "expected at most %u (2^30): a smaller --global-batch or fewer --virtual-stages",
                          p->vstages, mbs, p->vstages, (uint64_t)mbs * p->vstages, TX_MAX_UNITS);
        return CS_ERR(err, CS_EINVAL, "--global-batch %u: %u micro-batches of micro-batch x dp (%u x %u); expected at "
                      "most %u (2^30)", p->global_batch, mbs, p->micro_batch, p->dp, TX_MAX_UNITS);
    }
    if (x->heads % p->tp || x->kv_heads % p->tp || x->ffn_hidden % p->tp)
        return CS_ERR(err, CS_EINVAL, "--tp %u: expected a divisor of heads (%u), kv_heads (%u) and ffn_hidden (%u)",
                      p->tp, x->heads, x->kv_heads, x->ffn_hidden);
    if (x->layers < p->pp && !p->nlayout)
        return CS_ERR(err, CS_EINVAL, "--pp %u: expected at most one stage per layer (%u layers)", p->pp, x->layers);
    if (p->nlayout) { /* plan.layout: pp x v stages holding the model's layers */
        uint64_t V = (uint64_t)p->pp * cs_gen_vst(p), sum = 0;
        for (uint32_t j = 0; j < p->nlayout; j++) sum += p->layout[j];
        if (p->nlayout != V)
            return CS_ERR(err, CS_EINVAL, "plan.layout: %u stages; expected pp x virtual-stages = %u x %u = %" PRIu64,
                          p->nlayout, p->pp, cs_gen_vst(p), V);
        if (sum != x->layers)
            return CS_ERR(err, CS_EINVAL, "plan.layout: %" PRIu64 " decoder layers (t); expected the model's %u",
                          sum, x->layers);
    }
    if (p->sp && x->seq % p->tp)
        return CS_ERR(err, CS_EINVAL, "--sp: the sequence (%u) must be divisible by --tp %u", x->seq, p->tp);
    int rc = cs_gen_check_batch(p, err);
    if (rc) return rc;
    if (!p->ep || p->dp % p->ep || (p->ep > 1 && (!x->experts || x->experts % p->ep)))
        return CS_ERR(err, CS_EINVAL, "--ep %u: expected a divisor of --dp (%u) and of the expert count (%u)", p->ep,
                      p->dp, x->experts);
    if (p->zero < 0 || p->zero > 3) return CS_ERR(err, CS_EINVAL, "--zero %d: expected 0, 1, 2 or 3", p->zero);
    return CS_OK;
}

/* One sequence per rank and micro-batch; a global batch of micro x dp x pp
 * (0 when that passes 32 bits: tx_check refuses it by name). */
static void tx_batch(const cs_gen_model *m, cs_gen_plan *p, uint32_t micro, uint32_t global) {
    (void)m;
    p->micro_batch = micro ? micro : 1;
    uint64_t def = cs_mul_u64_sat(cs_mul_u64_sat(p->micro_batch, p->dp), p->phase != CS_PHASE_TRAIN ? 1 : p->pp);
    p->global_batch = global ? global : def <= UINT32_MAX ? (uint32_t)def : 0;
}

static void tx_describe(FILE *f, const cs_gen_model *m, const cs_gen_plan *p) {
    static const char *rn[] = {"none", "selective", "full"};
    const cs_gen_transformer *x = &m->u.tf;
    fprintf(f, "  model      %s: %u layers, hidden %u, %u heads (%u kv), ffn %u, vocab %u, seq %u; %.2fB parameters\n",
            m->name, x->layers, x->hidden, x->heads, x->kv_heads, x->ffn_hidden, x->vocab, x->seq,
            cs_gen_total_params(m) / 1e9);
    if (x->experts) fprintf(f, "  moe        %u experts, top-%u routing; EP %u\n", x->experts, x->top_k, p->ep);
    char pl[256], vi[48];
    cs_gen_placement_format(p, pl, sizeof pl);
    if (p->vstages > 1) snprintf(vi, sizeof vi, "interleaved 1F1B, %u chunks per stage", p->vstages);
    else snprintf(vi, sizeof vi, "1F1B");
    if (p->phase != CS_PHASE_TRAIN) {
        fprintf(f, "  placement  %s%s\n", pl, p->ep > 1 ? "; EP = consecutive DP indices" : "");
        fprintf(f, "  plan       %s step: TP %u x PP %u x DP %u = %u ranks; batch %u sequences per DP rank, context %u "
                   "tokens, KV cache %u tokens per sequence%s\n",
                p->phase == CS_PHASE_PREFILL ? "prefill" : "decode", p->tp, p->pp, p->dp, cs_gen_ranks(p),
                p->micro_batch, p->context_tokens, p->kv_tokens ? p->kv_tokens : p->context_tokens,
                p->flash ? "; flash attention" : "");
        return;
    }
    fprintf(f, "  placement  %s%s\n", pl, p->ep > 1 ? "; EP = consecutive DP indices" : "");
    char cpd[96] = "";
    if (p->cp > 1)
        snprintf(cpd, sizeof cpd, " x CP %u (%u tokens per rank, %s)", p->cp, x->seq / p->cp,
                 p->cp_comm == CS_CP_P2P ? "ring attention" : "K/V all-gathered");
    fprintf(f, "  plan       TP %u%s%s x PP %u (%s) x DP %u = %u ranks; micro-batch %u, global batch %u (%u micro-batches); "
               "recompute %s; ZeRO-%d%s%s\n",
            p->tp, p->sp ? "+SP" : "", cpd, p->pp, p->schedule == CS_SCHED_GPIPE ? "GPipe" : vi, p->dp,
            cs_gen_ranks(p), p->micro_batch, p->global_batch, cs_gen_micro_batches(p), rn[p->recompute], p->zero,
            p->flash ? "; flash attention" : "", p->no_grad_overlap ? "; gradients reduced after the backward" : "");
    if (p->async_tp || p->grad_acc_fusion)
        fprintf(f, "  megatron   %s%s%s\n",
                !p->async_tp ? ""
                : p->tp > 1  ? "TP reduction of the input gradient overlapped with the weight gradient (async)"
                             : "async TP reduction: no effect at TP 1",
                p->async_tp && p->grad_acc_fusion ? "; " : "",
                p->grad_acc_fusion ? "gradient accumulation fused into the weight-gradient GEMMs (fp32 gradients)" : "");
    if (p->nlayout) {
        char lay[512];
        cs_gen_layout_format(p, lay, sizeof lay);
        fprintf(f, "  layout     plan.layout: decoder layers of the %u virtual stages (E embedding, L output layer): %s\n",
                p->nlayout, lay);
    }
    if (p->dist_opt || p->fsdp_strategy)
        fprintf(f, "  sharding   %s%s%s\n",
                p->dist_opt ? "Megatron-LM distributed optimizer (optimizer state sharded, fp32 gradients "
                              "reduce-scattered once per step)"
                : p->fsdp_strategy == CS_FSDP_FULL_SHARD    ? "PyTorch FSDP FULL_SHARD (one unit per layer)"
                : p->fsdp_strategy == CS_FSDP_SHARD_GRAD_OP ? "PyTorch FSDP SHARD_GRAD_OP (one unit per layer)"
                : p->fsdp_strategy == CS_FSDP_HYBRID_SHARD  ? "PyTorch FSDP HYBRID_SHARD (one unit per layer)"
                                                            : "PyTorch FSDP _HYBRID_SHARD_ZERO2 (one unit per layer)",
                p->fsdp_no_sync ? "; no_sync() until the last micro-batch" : "",
                p->fsdp_fp32_grads ? "; fp32 gradients" : "");
    if (cs_gen_hsdp(p))
        fprintf(f, "  hsdp       sharded over %u consecutive DP ranks, replicated over %u groups\n", p->hsdp_shard,
                p->dp / p->hsdp_shard);
    if (p->offload_opt) fprintf(f, "  offload    optimizer state in remote memory (plan.offload-optimizer)\n");
}

/* Tokens per step. */
static double tx_items(const cs_gen_model *m, const cs_gen_plan *p) {
    if (p->phase == CS_PHASE_DECODE) return (double)p->micro_batch * p->dp;           /* one token per sequence */
    if (p->phase == CS_PHASE_PREFILL) return (double)p->micro_batch * p->dp * p->context_tokens;
    return (double)p->global_batch * m->u.tf.seq;
}

/* ---- model file and presets ------------------------------------------------ */

static void tx_init(cs_gen_model *m) {
    m->u.tf.bias = true;
    m->u.tf.tied_embeddings = true;
}

/* Defaults that depend on other keys, and the cross-key checks. */
static int tx_finish(const cs_jdoc *doc, cs_gen_model *m, cs_error *err) {
    cs_gen_transformer *x = &m->u.tf;
    if (!x->kv_heads) x->kv_heads = x->heads;
    if (!x->ffn_hidden) x->ffn_hidden = 4 * x->hidden;
    if (x->experts && !x->top_k) x->top_k = x->experts < 2 ? x->experts : 2;
    if (x->top_k > x->experts)
        return CS_ERR(err, CS_EINVAL, "%s:%d: top_k: expected at most experts (%u), got %u", doc->path,
                      cs_jdoc_key_line(doc, "top_k"), x->experts, x->top_k);
    if (x->hidden % x->heads)
        return CS_ERR(err, CS_EINVAL, "%s:%d: heads: expected a divisor of hidden (%u), got %u", doc->path,
                      cs_jdoc_key_line(doc, "heads"), x->hidden, x->heads);
    if (x->heads % x->kv_heads)
        return CS_ERR(err, CS_EINVAL, "%s:%d: kv_heads: expected a divisor of heads (%u), got %u", doc->path,
                      cs_jdoc_key_line(doc, "kv_heads"), x->heads, x->kv_heads);
    return CS_OK;
}

#define U32(k, req, field, h)                                                                                      \
    {.key = k, .type = CS_OPT_CUSTOM, .required = req, .min = 1, .max = 100000000, .help = h,                    \
     .off = offsetof(cs_gen_transformer, field), .type_text = "an integer from 1 to 100000000", .parse = cs_gen_opt_u32, .dump = cs_gen_opt_u32_dump}
#define FLAG(k, d, field, h) {.key = k, .type = CS_OPT_BOOL, .def = d, .help = h, .off = offsetof(cs_gen_transformer, field)}
static const cs_opt keys[] = {
    U32("layers", 1, layers, "transformer layers"),
    U32("hidden", 1, hidden, "hidden size h"),
    U32("heads", 1, heads, "attention heads (a divisor of hidden)"),
    U32("kv_heads", 0, kv_heads, "key/value heads, a divisor of heads (default heads; fewer = grouped-query attention)"),
    U32("ffn_hidden", 0, ffn_hidden, "MLP hidden size, per expert with MoE (default 4 hidden)"),
    U32("vocab", 1, vocab, "vocabulary size"),
    U32("seq", 1, seq, "sequence length in tokens"),
    FLAG("swiglu", 0, swiglu, "SwiGLU MLP with 3 matrices (Llama), else GeLU with 2 (GPT)"),
    FLAG("bias", 1, bias, "linear biases, LayerNorm and learned positions (GPT), else none and RMSNorm (Llama)"),
    FLAG("tied_embeddings", 1, tied_embeddings, "the output layer shares the input embedding"),
    U32("experts", 0, experts, "mixture of experts: expert MLPs per layer (default none: dense)"),
    U32("top_k", 0, top_k, "mixture of experts: experts each token visits (default min(experts, 2))"),
};

extern const cs_model_family cs_gen_family_transformer; /* below; listed in family.c */
#define TF(n, L, h, a, kv, f, V, s, sw, bi, ti, E, k)                                                            \
    {.name = n, .family = &cs_gen_family_transformer,                                                            \
     .u.tf = {L, h, a, kv, f, V, s, sw, bi, ti, E, k}}
static const cs_gen_model presets[] = {
    /*  name          L    h      a    kv   ffn    vocab   seq  swiglu bias tied experts top_k */
    TF("gpt3-6.7b", 32, 4096, 32, 32, 16384, 51200, 2048, 0, 1, 1, 0, 0),
    TF("gpt3-13b", 40, 5120, 40, 40, 20480, 51200, 2048, 0, 1, 1, 0, 0),
    TF("gpt3-22b", 48, 6144, 64, 64, 24576, 51200, 2048, 0, 1, 1, 0, 0),
    TF("gpt3-175b", 96, 12288, 96, 96, 49152, 51200, 2048, 0, 1, 1, 0, 0),
    TF("gpt3-530b", 105, 20480, 128, 128, 81920, 51200, 2048, 0, 1, 1, 0, 0),
    TF("gpt3-1t", 128, 25600, 160, 160, 102400, 51200, 2048, 0, 1, 1, 0, 0),
    TF("llama2-7b", 32, 4096, 32, 32, 11008, 32000, 4096, 1, 0, 0, 0, 0),
    TF("llama2-13b", 40, 5120, 40, 40, 13824, 32000, 4096, 1, 0, 0, 0, 0),
    TF("llama2-70b", 80, 8192, 64, 8, 28672, 32000, 4096, 1, 0, 0, 0, 0),
    TF("llama3-8b", 32, 4096, 32, 8, 14336, 128256, 8192, 1, 0, 0, 0, 0),
    TF("llama3-70b", 80, 8192, 64, 8, 28672, 128256, 8192, 1, 0, 0, 0, 0),
    TF("llama3-405b", 126, 16384, 128, 8, 53248, 128256, 8192, 1, 0, 0, 0, 0),
    /* Jiang et al. 2024, "Mixtral of Experts", Table 1 (context 32768; trained here at 4096) */
    TF("mixtral-8x7b", 32, 4096, 32, 8, 14336, 32000, 4096, 1, 0, 0, 8, 2),
};

const cs_model_family cs_gen_family_transformer = {
    .name = "transformer",
    .summary = "decoder-only transformer (GPT, Llama; dense or mixture of experts)",
    .keys = keys,
    .nkeys = sizeof keys / sizeof keys[0],
    .presets = presets,
    .npresets = sizeof presets / sizeof presets[0],
    .init = tx_init,
    .finish = tx_finish,
    .check = tx_check,
    .context_parallel = 1,
    .interleaving = 1,
    .inference = 1,
    .params = tx_params,
    .flops = tx_flops,
    .memory = tx_memory,
    .emit = tx_emit,
    .batch = tx_batch,
    .describe = tx_describe,
    .items = tx_items,
    .unit = "tokens/s",
    .unit_json = "tokens_per_s",
};
