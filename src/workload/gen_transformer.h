/*
 * gen_transformer.h -- decoder-only transformer training step -> per-rank
 * Chakra graphs, and the per-rank memory footprint of a parallelism plan.
 *
 * A model (cs_tx_model: GPT-3 style GeLU MLP, or Llama style SwiGLU with
 * grouped-query attention, optionally mixture-of-experts) and a plan (cs_tx_plan: TP x PP x DP, sequence
 * parallelism, recomputation, micro-/global batch, schedule, ZeRO stage,
 * expert parallelism)
 * become, for every rank, a Chakra node stream (COMP nodes with num_ops =
 * matrix-multiply FLOPs, tensor_size = bytes moved, duration_micros from the
 * device's efficiency model; COMM_COLL nodes with pg_name naming a TP or DP
 * communicator group; COMM_SEND/RECV at pipeline boundaries).
 *
 * Rank layout: by default Megatron's, rank = tp_i + tp * (cp_i + cp * (dp_i +
 * dp * pp_i)), so TP ranks are contiguous (innermost network dimension), then
 * CP (context parallel), DP, PP; plan.order permutes the four (cs_tx_rank_of).
 * Group ids do not depend on it.
 * Communicator groups: TP group of (pp_i, dp_i, cp_i) has id 1 +
 * (pp_i*dp + dp_i)*cp + cp_i; the DP group of (pp_i, tp_i) -- with cp > 1
 * Megatron's DP x CP group of dp*cp ranks, member k = (dp_i = k / cp, cp_i =
 * k % cp), on which gradients are reduced -- has id 1 + pp*dp*cp + pp_i*tp +
 * tp_i.  With ep > 1 (MoE) the EP groups follow: (pp_i, tp_i, dp_i / ep) ->
 * 1 + pp*dp + pp*tp + (pp_i*tp + tp_i)*(dp/ep) + dp_i/ep (ep consecutive DP
 * indices), then the expert-DP groups (pp_i, tp_i, dp_i % ep) -> base +
 * (pp_i*tp + tp_i)*ep + dp_i % ep, base = 1 + pp*dp + pp*tp + pp*tp*(dp/ep).
 * With cp > 1 (which excludes ep > 1) the CP groups follow the DP groups:
 * (pp_i, dp_i, tp_i) -> 1 + pp*dp*cp + pp*tp + (pp_i*dp + dp_i)*tp + tp_i,
 * members cp_i = 0..cp-1.  Groups of one rank are not used (no collective
 * is emitted).
 *
 * docs/generator.md describes the graph of one layer, the schedules, and the
 * memory formulas (Korthikanti et al. 2022).  The caller owns every struct.
 */
#ifndef CS_WORKLOAD_GEN_TRANSFORMER_H
#define CS_WORKLOAD_GEN_TRANSFORMER_H

#include <stdint.h>
#include <stdio.h>

#include "chakra_et.pb-c.h"
#include "compute/device.h"
#include "config/comm_group.h"
#include "core/error.h"
#include "system/system.h"

#define CS_DLRM_MAXMLP 8

/* The plan's parallel dimensions (cs_tx_plan.order, cs_tx_rank_of). */
enum { CS_DIM_TP = 0, CS_DIM_DP = 1, CS_DIM_PP = 2, CS_DIM_CP = 3, CS_TX_NDIMS = 4 };

typedef struct cs_tx_model {
    char name[64];
    uint32_t layers, hidden, heads, kv_heads, ffn_hidden, vocab, seq;
    int swiglu;            /* 1 = SwiGLU MLP (3 matrices), 0 = GeLU (2 matrices) */
    int bias;              /* 1 = linear biases (GPT), 0 = none (Llama) */
    int tied_embeddings;   /* 1 = output layer shares the input embedding */
    /* Mixture of experts (0 = dense): every layer's MLP becomes `experts`
     * expert MLPs of ffn_hidden each and a router; each token visits top_k. */
    uint32_t experts, top_k;
    /* Architecture: CS_ARCH_TRANSFORMER (the fields above), or CS_ARCH_RESNET50
     * (a ResNet-50 v1.5 on image x image inputs with `classes` outputs; only
     * name, layers = 50, image and classes are used). */
    int arch;
    uint32_t image, classes;
    /* CS_ARCH_DLRM (Naumov et al. 2019): `tables` embedding tables of `rows`
     * x emb_dim, `pooling` lookups per table and sample (summed); a bottom MLP
     * dense -> bot[0] -> ... -> bot[nbot-1] (= emb_dim); dot interaction of
     * the tables + 1 vectors; a top MLP (emb_dim + pairs) -> top[0] -> ... */
    uint32_t tables, rows, emb_dim, dense, pooling, nbot, ntop;
    uint32_t bot[CS_DLRM_MAXMLP], top[CS_DLRM_MAXMLP];
} cs_tx_model;

enum { CS_ARCH_TRANSFORMER = 0, CS_ARCH_RESNET50 = 1, CS_ARCH_DLRM = 2 };

/* DLRM: parameters of the MLPs (data parallel) and of the embedding tables,
 * matmul FLOPs of one sample's forward pass (MLPs + interaction). */
double cs_dlrm_mlp_params(const cs_tx_model *m);
double cs_dlrm_emb_params(const cs_tx_model *m);
double cs_dlrm_forward_flops(const cs_tx_model *m);

/* ResNet-50: multiply-accumulates of one image's forward pass (convolutions
 * and the classifier), and the activation elements stored per image. */
double cs_rn_forward_macs(const cs_tx_model *m);
double cs_rn_activation_elems(const cs_tx_model *m);

enum { CS_RECOMP_NONE = 0, CS_RECOMP_SELECTIVE = 1, CS_RECOMP_FULL = 2 };
enum { CS_SCHED_GPIPE = 0, CS_SCHED_1F1B = 1 };
/* Context parallelism's attention: all-gather of K and V over the CP group
 * (Llama 3), or ring attention passing K/V blocks point to point (Megatron's
 * "p2p"). */
enum { CS_CP_ALLGATHER = 0, CS_CP_P2P = 1 };

typedef struct cs_tx_plan {
    uint32_t tp, pp, dp;
    uint32_t cp;             /* context parallel degree: each rank holds seq / cp tokens */
    int cp_comm;             /* CS_CP_*: how attention sees the whole sequence */
    int sp;                  /* sequence parallelism (needs tp > 1 to matter) */
    int flash;               /* fused (Flash) attention: no s x s scores stored or streamed */
    int recompute;           /* CS_RECOMP_* */
    int schedule;            /* CS_SCHED_* */
    uint32_t micro_batch, global_batch;
    int zero;                /* 0..3 (3 = FSDP full sharding) */
    uint32_t ep;             /* expert parallel degree (MoE): divides dp and experts */
    uint64_t bucket_params;  /* DP gradient bucket, parameters (default 40M) */
    int no_grad_overlap;     /* 1: gradients reduced after the last backward, not during it (ZeRO <= 1) */
    /* Placement: order[0] is the innermost (contiguous ranks) of the
     * dimensions CS_DIM_TP, CS_DIM_DP, CS_DIM_PP, CS_DIM_CP, order[3] the
     * outermost.  Default TP, CP, DP, PP (Megatron's). */
    uint8_t order[CS_TX_NDIMS];
    /* Interleaved 1F1B (Narayanan et al. 2021): model chunks per pipeline
     * stage (1 = plain 1F1B; 0 is read as 1). */
    uint32_t vstages;
} cs_tx_plan;

/* Ranks of the plan: tp x cp x dp x pp. */
uint32_t cs_tx_ranks(const cs_tx_plan *p);
/* Rank of the coordinates c[CS_DIM_*] under the plan's placement, and back. */
uint32_t cs_tx_rank_of(const cs_tx_plan *p, const uint32_t c[CS_TX_NDIMS]);
void cs_tx_rank_coords(const cs_tx_plan *p, uint32_t rank, uint32_t c[CS_TX_NDIMS]);
/* "--placement tp,cp,dp,pp" (innermost first, a permutation of tp, cp, dp,
 * pp; cp may be left out, and then sits just outside tp). */
int cs_tx_placement_parse(const char *s, cs_tx_plan *p, cs_error *err);
/* "rank = tp_i + 8 dp_i + 64 pp_i" style description. */
void cs_tx_placement_format(const cs_tx_plan *p, char *buf, size_t n);

void cs_tx_plan_defaults(cs_tx_plan *p);
/* Built-in preset by name ("gpt3-175b", "llama3-70b", ...), NULL if none. */
const cs_tx_model *cs_tx_model_preset(const char *name);
const cs_tx_model *cs_tx_model_preset_at(size_t i);
/* Preset name, else a JSON model file (models/NAME.json; file:line errors). */
int cs_tx_model_resolve(const char *name_or_path, cs_tx_model *out, cs_error *err);
int cs_tx_model_load_json(const char *path, cs_tx_model *out, cs_error *err);
/* JSON text of a model in the file format (for models/ and tests). */
int cs_tx_model_write_json(const cs_tx_model *m, FILE *f);

/* Checks divisibility etc.: CS_EINVAL naming the option. */
int cs_tx_plan_check(const cs_tx_model *m, const cs_tx_plan *p, cs_error *err);
uint32_t cs_tx_micro_batches(const cs_tx_plan *p);

/* Layers of pipeline stage st and the first of them (with interleaving:
 * the sum over its v chunks, and the first of chunk 0).  When pp (pp v
 * virtual stages with interleaving) does not divide the layers, every
 * (virtual) stage gets ceil(layers / pp) but for the deficit, taken one
 * layer each from the last, the first, the second-last, the second, ...
 * (the stages that also hold the output layer and the embedding; Llama 3
 * 405B's 126 layers on 16 stages are 7 + 14 x 8 + 7, as Dubey et al. 2024
 * describe, and so are they with 2 chunks per stage: 3 + 4, 4 + 4, ...,
 * 4 + 3). */
uint32_t cs_tx_stage_layers(const cs_tx_model *m, const cs_tx_plan *p, uint32_t st, uint32_t *first);

/* Parameters of one layer, of the embedding, of the whole model. */
double cs_tx_layer_params(const cs_tx_model *m);
double cs_tx_total_params(const cs_tx_model *m);
/* Model FLOPs of one training step without recomputation (matmuls only):
 * 6 * P_matmul * T + 12 * T * L * s * h_attn (docs/generator.md). */
double cs_tx_model_flops(const cs_tx_model *m, const cs_tx_plan *p);

/* Per-rank memory footprint in bytes (the largest over the pipeline stages
 * is what must fit; stage = pipeline stage of the rank). */
typedef struct cs_tx_memory {
    uint32_t stage;
    double params;        /* parameters held by the rank (before ZeRO-3) */
    double expert_params; /* of which MoE expert parameters (sharded over EP, ZeRO over dp/ep) */
    double weights, grads, optimizer, activations, total;
    uint32_t inflight;    /* micro-batches whose activations are held */
} cs_tx_memory;
void cs_tx_memory_stage(const cs_tx_model *m, const cs_tx_plan *p, uint32_t stage, cs_tx_memory *out);
/* The stage with the largest footprint (the first of equals). */
void cs_tx_memory_worst(const cs_tx_model *m, const cs_tx_plan *p, cs_tx_memory *w);
/* Largest stage footprint against d->hbm_bytes: CS_EINVAL with the
 * breakdown when it does not fit.  *worst (may be NULL) gets that stage. */
int cs_tx_memory_check(const cs_tx_model *m, const cs_tx_plan *p, const cs_device *d, cs_tx_memory *worst,
                       cs_error *err);
void cs_tx_memory_format(const cs_tx_memory *mm, char *buf, size_t n);

/* Communicator groups of the plan (TP and DP groups, see above). */
void cs_tx_comm_groups(const cs_tx_plan *p, cs_comm_groups *out);
int cs_tx_comm_groups_write(const cs_comm_groups *g, const char *path, cs_error *err);

/* Node sink: receives every node of a rank's graph in id order.  The node
 * is valid only during the call. */
typedef int (*cs_tx_sink)(void *ud, const ChakraProtoMsg__Node *node, cs_error *err);

/* Counters filled while generating one rank (tests check closed forms). */
typedef struct cs_tx_stats {
    uint64_t nodes;
    double matmul_flops;     /* sum of num_ops */
    double compute_s;        /* sum of COMP durations before rounding */
    uint64_t tp_colls, dp_colls, ep_colls, sends, recvs;  /* sends, recvs: pipeline boundaries */
    double tp_bytes, dp_bytes, ep_bytes, p2p_bytes;  /* dp_* include the expert-DP group */
    uint64_t cp_colls, cp_sends, cp_recvs;           /* context parallel: collectives, ring messages */
    double cp_bytes, cp_p2p_bytes;
    double dp_ag_bytes, dp_rs_bytes;                 /* DP/expert-DP all-gathers, reduce-scatters */
} cs_tx_stats;

/* The plan's symmetry for class mode (system/system.h, cs_sym_axes): the
 * TP axis and, without expert and context parallelism, the DP axis (each
 * when it has more than one rank and fewer than all); with cp > 1 the CP
 * axis instead when dp = 1 and K/V are all-gathered (the DP x CP group is
 * then the CP group; with dp > 1 it spans two axes, and ring attention's
 * messages leave the class).  Moving a rank along them moves
 * its TP and DP groups onto groups of the same kind and its pipeline peers
 * onto theirs, with each group's file order shifted cyclically, so rank
 * x's graph is its class representative's (coordinates 0 on the axes) with
 * every rank and group it names moved the same way; tests/test_gen_sym.c
 * checks this rank by rank.  Returns the number of axes (0 = none). */
int cs_tx_sym_axes(const cs_tx_plan *p, cs_sym_axes *out);

int cs_tx_generate_rank(const cs_tx_model *m, const cs_tx_plan *p, const cs_device *d, uint32_t rank,
                        cs_tx_sink sink, void *ud, cs_tx_stats *stats, cs_error *err);

#endif
