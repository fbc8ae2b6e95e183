/*
 * gen.h -- the workload generator: a model and a parallelism plan become,
 * for every rank, a Chakra node stream, the plan's communicator groups, and
 * the per-rank memory footprint.  This is what callers (the CLI's generate
 * and train, tests, benchmarks) use; docs/generator.md describes the graphs
 * and formulas.
 *
 * A model (cs_gen_model) is a name, its family (cs_model_family, gen/family.h:
 * transformer, resnet50, dlrm, ... behind one table) and the family's own
 * parameters.  A plan (cs_gen_plan: TP x CP x PP x DP, sequence parallelism,
 * recomputation, micro-/global batch, schedule, ZeRO stage, expert
 * parallelism) is common to every family; each family checks what it
 * supports.  Every rank's graph holds COMP nodes (num_ops = matmul FLOPs,
 * tensor_size = bytes moved, duration_micros from the device's efficiency
 * model), COMM_COLL nodes whose pg_name names a communicator group, and
 * COMM_SEND/RECV nodes at pipeline boundaries.
 *
 * Rank layout: by default Megatron's, rank = tp_i + tp * (cp_i + cp * (dp_i +
 * dp * pp_i)); plan.order permutes the four (cs_gen_rank_of).  Group ids do
 * not depend on it.  Communicator groups (ids 1-based, in this order): the TP
 * group of (pp_i, dp_i, cp_i) has id 1 + (pp_i*dp + dp_i)*cp + cp_i; the DP
 * group of (pp_i, tp_i) -- with cp > 1 Megatron's DP x CP group of dp*cp
 * ranks, member k = (dp_i = k / cp, cp_i = k % cp), on which gradients are
 * reduced -- has id 1 + pp*dp*cp + pp_i*tp + tp_i.  With ep > 1 (MoE) the EP
 * groups follow: (pp_i, tp_i, dp_i / ep) -> 1 + pp*dp + pp*tp +
 * (pp_i*tp + tp_i)*(dp/ep) + dp_i/ep (ep consecutive DP indices), then the
 * expert-DP groups (pp_i, tp_i, dp_i % ep) -> base + (pp_i*tp + tp_i)*ep +
 * dp_i % ep, base = 1 + pp*dp + pp*tp + pp*tp*(dp/ep).  With cp > 1 (which
 * excludes ep > 1) the CP groups follow the DP groups: (pp_i, dp_i, tp_i) ->
 * 1 + pp*dp*cp + pp*tp + (pp_i*dp + dp_i)*tp + tp_i, members cp_i =
 * 0..cp-1.  Groups of one rank are not used (no collective is emitted).  One
 * function computes this arithmetic (plan.c, cs_gen_group_of); the group
 * file and every rank's pg_name come from it.
 *
 * Ownership: the caller owns every struct; nothing here keeps state between
 * calls.  The public headers do not include protobuf: the sink receives the
 * node as an opaque struct pointer (include workload/et.h to read it).
 */
#ifndef CS_GEN_GEN_H
#define CS_GEN_GEN_H

#include <stdbool.h>
#include <jansson.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "compute/device.h"
#include "config/comm_group.h"
#include "core/error.h"
#include "system/system.h"
#include "workload/workload.h"

/* ---- models -------------------------------------------------------------- */

struct cs_model_family;

/* Decoder-only transformer: GPT-3 style GeLU MLP, or Llama style SwiGLU with
 * grouped-query attention, optionally mixture-of-experts. */
typedef struct cs_gen_transformer {
    uint32_t layers, hidden, heads, kv_heads, ffn_hidden, vocab, seq;
    bool swiglu;           /* SwiGLU MLP (3 matrices), else GeLU (2 matrices) */
    bool bias;             /* linear biases (GPT), else none (Llama) */
    bool tied_embeddings;  /* the output layer shares the input embedding */
    /* Mixture of experts (0 = dense): every layer's MLP becomes `experts`
     * expert MLPs of ffn_hidden each and a router; each token visits top_k. */
    uint32_t experts, top_k;
} cs_gen_transformer;

/* ResNet-50 v1.5 on image x image inputs with `classes` outputs. */
typedef struct cs_gen_resnet50 {
    uint32_t image, classes;
} cs_gen_resnet50;

#define CS_GEN_DLRM_MAXMLP 8
/* Layer widths of an MLP. */
typedef struct cs_gen_mlp {
    uint32_t n;
    uint32_t w[CS_GEN_DLRM_MAXMLP];
} cs_gen_mlp;

/* DLRM (Naumov et al. 2019): `tables` embedding tables of `rows` x emb_dim,
 * `pooling` lookups per table and sample (summed); a bottom MLP dense ->
 * bot.w[0] -> ... (last = emb_dim); dot interaction of the tables + 1
 * vectors; a top MLP (emb_dim + pairs) -> top.w[0] -> ... */
typedef struct cs_gen_dlrm {
    uint32_t tables, rows, emb_dim, dense, pooling;
    cs_gen_mlp bot, top;
} cs_gen_dlrm;

/* A model: name, family, and the family's parameters (the member of `u`
 * its family reads; gen/family.h says which). */
typedef struct cs_gen_model {
    char name[64];
    const struct cs_model_family *family;
    union {
        cs_gen_transformer tf;
        cs_gen_resnet50 rn;
        cs_gen_dlrm dlrm;
    } u;
} cs_gen_model;

/* Built-in preset by name ("gpt3-175b", "llama3-70b", "resnet50", ...),
 * NULL if none; presets of every family in registry order. */
const cs_gen_model *cs_gen_model_preset(const char *name);
const cs_gen_model *cs_gen_model_preset_at(size_t i);
/* Preset name, else a JSON model file (models/NAME.json; file:line errors). */
int cs_gen_model_resolve(const char *name_or_path, cs_gen_model *out, cs_error *err);
/* A model file: "name", "arch" (a family name; default the first family of
 * the registry, transformer) and that family's keys.  A key of another
 * family is an error naming file, line and key; unknown keys warn. */
int cs_gen_model_load_json(const char *path, cs_gen_model *out, cs_error *err);
/* keys (a JSON object of the keys of m's family) set over m, a resolved
 * model, then the family's checks; derived keys (kv_heads, ffn_hidden, ...)
 * keep m's values unless given.  where labels messages ("where:1: key: ..."). */
int cs_gen_model_set_keys(cs_gen_model *m, json_t *keys, const char *where, cs_error *err);
/* A model of family fam from keys alone (the family's required keys must
 * be there), named "custom <family>". */
int cs_gen_model_from_keys(const struct cs_model_family *fam, json_t *keys, const char *where, cs_gen_model *out,
                           cs_error *err);
/* Every key of m's family with its value (a new object). */
json_t *cs_gen_model_keys_json(const cs_gen_model *m);

/* Parameters of the whole model; model FLOPs of one training step without
 * recomputation (matmuls only; docs/generator.md). */
struct cs_gen_plan;
double cs_gen_total_params(const cs_gen_model *m);
double cs_gen_model_flops(const cs_gen_model *m, const struct cs_gen_plan *p);

/* ---- plans --------------------------------------------------------------- */

/* The plan's parallel dimensions (cs_gen_plan.order, cs_gen_rank_of). */
enum { CS_DIM_TP = 0, CS_DIM_DP = 1, CS_DIM_PP = 2, CS_DIM_CP = 3, CS_GEN_NDIMS = 4 };
enum { CS_RECOMP_NONE = 0, CS_RECOMP_SELECTIVE = 1, CS_RECOMP_FULL = 2 };
enum { CS_SCHED_GPIPE = 0, CS_SCHED_1F1B = 1 };
/* Context parallelism's attention: all-gather of K and V over the CP group
 * (Llama 3), or ring attention passing K/V blocks point to point (Megatron's
 * "p2p"). */
enum { CS_CP_ALLGATHER = 0, CS_CP_P2P = 1 };

/* The input pipeline (gen/ingest.c, docs/ingest.md): every rank of the
 * first pipeline stage runs a data loader on its host CPU that, per
 * micro-batch, reads samples x bytes_per_sample from storage, preprocesses
 * them and copies samples x h2d_bytes_per_sample to the device, at most
 * `prefetch` micro-batches ahead of the GPU.  The `hosts` ingest hosts
 * (the cost model's storage / preprocessing hosts) share their read
 * bandwidth and preprocessing throughput equally among the loaders.
 * bytes_per_sample = 0: no ingest (no nodes). */
typedef struct cs_gen_ingest {
    double bytes_per_sample;          /* raw input read from storage per sample; 0 = off */
    double h2d_bytes_per_sample;      /* copied to the device per sample; 0 = bytes_per_sample */
    double read_bytes_per_s;          /* storage read bandwidth of one ingest host */
    double preprocess_samples_per_s;  /* preprocessing throughput of one ingest host */
    double h2d_bytes_per_s;           /* host-to-device copy bandwidth of one accelerator */
    uint32_t prefetch;                /* micro-batches the loader may run ahead (>= 1) */
    uint32_t hosts;                   /* ingest hosts (>= 1 when on) */
} cs_gen_ingest;

/* Virtual stages a plan.layout may list. */
#define CS_GEN_MAX_LAYOUT 1024

typedef struct cs_gen_plan {
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
    int offload_opt;         /* 1: the optimizer state lives in remote memory (MEM_LOAD/STORE at the step) */
    /* Megatron-LM's backward of a column-parallel linear layer (QKV, the
     * MLP's first layer, the output layer), transformers only (docs/generator.md, "Megatron-LM
     * versions"): async_tp -- the TP all-reduce of the input gradient (the
     * reduce-scatter with SP) runs while the weight-gradient GEMM computes
     * (--async-tensor-model-parallel-allreduce; Megatron-LM's default from
     * 2022-02); grad_acc_fusion -- every linear layer's weight-gradient GEMM
     * adds into an fp32 main_grad, so no accumulation kernel runs for the
     * matrices and the gradients are fp32 (--gradient-accumulation-fusion;
     * from 2022-02, with fp32 accumulation). */
    int async_tp;
    int grad_acc_fusion;
    /* Data-parallel sharding as the frameworks name it (docs/generator.md):
     * Megatron-LM's --use-distributed-optimizer (zero 1 with fp32 gradients:
     * 4-byte reduce-scatters, 6 + 12/dp bytes per parameter), or a PyTorch
     * FSDP ShardingStrategy (CS_FSDP_*; zero 3 for FULL_SHARD, 2 for
     * SHARD_GRAD_OP) with FSDP's per-unit schedule (one unit per layer and
     * one for the stage's other parameters); fsdp_no_sync: gradients
     * accumulated unsharded under FSDP's no_sync() and reduce-scattered in
     * the last micro-batch only. */
    int dist_opt;
    int fsdp_strategy;
    int fsdp_no_sync;
    int fsdp_fp32_grads;     /* FSDP MixedPrecision reduce_dtype fp32: 4-byte gradients, accumulated and reduced */
    uint32_t hsdp_shard;     /* HSDP: DP ranks of a shard group (a divisor of dp) */
    /* Seconds added to every generated GPU kernel (COMP node, the
     * optimizer's included): launch and framework overhead that
     * asynchronous launches do not hide.  0 by default. */
    double kernel_overhead_s;
    /* Placement: order[0] is the innermost (contiguous ranks) of the
     * dimensions CS_DIM_TP, CS_DIM_DP, CS_DIM_PP, CS_DIM_CP, order[3] the
     * outermost.  Default TP, CP, DP, PP (Megatron's). */
    uint8_t order[CS_GEN_NDIMS];
    /* Interleaved 1F1B (Narayanan et al. 2021): model chunks per pipeline
     * stage (1 = plain 1F1B; 0 is read as 1). */
    uint32_t vstages;
    /* plan.layout (gen/layout.c): the decoder layers of each of nlayout =
     * pp x vstages virtual stages, virtual stage c pp + p being chunk c of
     * stage p; the embedding on virtual stage 0, the output layer on the
     * last.  nlayout = 0: the default split (docs/generator.md). */
    uint32_t nlayout;
    uint32_t layout[CS_GEN_MAX_LAYOUT];
    cs_gen_ingest ingest;    /* the input pipeline; off by default */
    /* Inference (docs/inference.md): CS_PHASE_TRAIN (a training step), or one
     * serving step -- CS_PHASE_PREFILL (one forward over micro_batch sequences
     * of context_tokens prompt tokens) or CS_PHASE_DECODE (one new token per
     * sequence, its attention reading context_tokens keys and values).
     * kv_tokens: the KV cache held per sequence for the memory check (0 =
     * context_tokens).  A serving step is one batch: global_batch = micro_batch
     * x dp, no backward, no optimizer.  mlp_reduce_bytes: bytes per token of
     * each layer's MLP all-reduce (ar2) in a serving step, for partial results
     * exchanged sparsely after a neuron partition (clustersim partition); 0 =
     * Megatron's dense 2 h. */
    int phase;
    uint32_t context_tokens, kv_tokens, mlp_reduce_bytes;
} cs_gen_plan;
enum { CS_PHASE_TRAIN = 0, CS_PHASE_PREFILL = 1, CS_PHASE_DECODE = 2 };
/* PyTorch FSDP's ShardingStrategy; the hybrid ones (HSDP) shard within
 * groups of hsdp_shard consecutive DP ranks and replicate across them. */
enum { CS_FSDP_NONE = 0, CS_FSDP_FULL_SHARD = 1, CS_FSDP_SHARD_GRAD_OP = 2, CS_FSDP_HYBRID_SHARD = 3,
       CS_FSDP_HYBRID_SHARD_ZERO2 = 4 };

void cs_gen_plan_defaults(cs_gen_plan *p);
/* plan.layout: Megatron-LM's --pipeline-model-parallel-layout string (E
 * embedding, t decoder layer, L output layer and loss, | between virtual
 * stages, X*N and (...)*N repeats, commas and spaces ignored) into
 * p->layout / p->nlayout; CS_EINVAL naming what was expected.  E must open
 * the first stage and L close the last (the generator places them there).
 * The layer total and pp x vstages are checked by the family. */
int cs_gen_layout_parse(const char *s, cs_gen_plan *p, cs_error *err);
/* Decoder layers of virtual stage vs of the plan's pp x vstages (the
 * layout's, else the default split), and the first one's index (*first,
 * may be NULL). */
uint32_t cs_gen_vstage_layers(uint32_t layers, const cs_gen_plan *p, uint32_t vs, uint32_t *first);
/* "E, 2, 1 x 3, L"-style summary of a layout: layers per virtual stage,
 * runs written "N x K". */
void cs_gen_layout_format(const cs_gen_plan *p, char *buf, size_t len);
/* The family's batch defaults for the requested micro and global batch
 * (0 = not given): sets micro_batch, global_batch and, where the family
 * has its own, bucket_params.  Call after tp, pp, dp are set. */
void cs_gen_plan_batch(const cs_gen_model *m, cs_gen_plan *p, uint32_t micro, uint32_t global);
/* Checks divisibility etc.: CS_EINVAL naming the option.  Products of plan
 * values (ranks, micro-batch x dp, ...) are checked in 64 bits, so values
 * whose product passes 32 bits are refused by name, never wrapped. */
int cs_gen_plan_check(const cs_gen_model *m, const cs_gen_plan *p, cs_error *err);
uint32_t cs_gen_micro_batches(const cs_gen_plan *p);

/* Ranks of the plan: tp x cp x dp x pp (valid once cs_gen_plan_check has
 * accepted the plan: at most CS_GEN_MAX_RANKS). */
#define CS_GEN_MAX_RANKS (1u << 30)
uint32_t cs_gen_ranks(const cs_gen_plan *p);
/* Rank of the coordinates c[CS_DIM_*] under the plan's placement, and back. */
uint32_t cs_gen_rank_of(const cs_gen_plan *p, const uint32_t c[CS_GEN_NDIMS]);
void cs_gen_rank_coords(const cs_gen_plan *p, uint32_t rank, uint32_t c[CS_GEN_NDIMS]);
/* "--placement tp,cp,dp,pp" (innermost first, a permutation of tp, cp, dp,
 * pp; cp may be left out, and then sits just outside tp). */
int cs_gen_placement_parse(const char *s, cs_gen_plan *p, cs_error *err);
/* "rank = tp_i + 8 dp_i + 64 pp_i" style description. */
void cs_gen_placement_format(const cs_gen_plan *p, char *buf, size_t n);

/* Communicator groups of the plan (see above); the caller frees *out with
 * cs_comm_groups_free. */
void cs_gen_comm_groups(const cs_gen_plan *p, cs_comm_groups *out);
int cs_gen_comm_groups_write(const cs_comm_groups *g, const char *path, cs_error *err);

/* The plan's symmetry for class mode (system/system.h, cs_sym_axes): the
 * TP axis and the DP axis (each when it has more than one rank and fewer
 * than all); with ep > 1 or HSDP the DP axis moves in steps of ep or of the
 * shard size (whole EP / shard groups); with cp > 1 and dp > 1 the DP x CP
 * group is cp orbits of the DP axis (plan.c); with dp = 1 and K/V
 * all-gathered the CP axis instead.  The caller cuts the axes to the
 * network (cs_sym_axes_fit).  Moving a rank along them moves its TP and DP
 * groups onto groups of the same kind and its pipeline peers onto theirs,
 * with each group's file order shifted cyclically, so rank x's graph is its
 * class representative's (coordinates 0 on the axes) with every rank and
 * group it names moved the same way; tests/test_gen_sym.c checks this rank
 * by rank.  Returns the number of axes (0 = none). */
int cs_gen_sym_axes(const cs_gen_plan *p, cs_sym_axes *out);

/* The input pipeline's per-micro-batch times of one loader, in whole
 * microseconds as the generated CPU nodes carry them (read, preprocess,
 * host-to-device copy; each at least 1), and the loaders (ranks of the
 * first stage).  All zero when ingest is off. */
typedef struct cs_gen_ingest_times {
    uint64_t read_us, preprocess_us, h2d_us;
    uint32_t loaders;
} cs_gen_ingest_times;
void cs_gen_ingest_times_of(const cs_gen_plan *p, cs_gen_ingest_times *out);
/* The ingest values of a plan: CS_EINVAL naming the ingest.* key. */
int cs_gen_ingest_check(const cs_gen_plan *p, cs_error *err);

/* ---- memory -------------------------------------------------------------- */

/* Per-rank memory footprint in bytes (the largest over the pipeline stages
 * is what must fit; stage = pipeline stage of the rank). */
typedef struct cs_gen_memory {
    uint32_t stage;
    double params;        /* parameters held by the rank (before ZeRO-3) */
    double expert_params; /* of which MoE expert parameters (sharded over EP, ZeRO over dp/ep) */
    double weights, grads, optimizer, activations, total;
    double kv_cache;      /* inference: K and V of the batch's sequences (in total) */
    uint32_t kv_tokens;   /* inference: tokens cached per sequence */
    double offloaded;     /* optimizer state in remote memory (plan.offload-optimizer), not in total */
    uint32_t inflight;    /* micro-batches whose activations are held */
} cs_gen_memory;
void cs_gen_memory_stage(const cs_gen_model *m, const cs_gen_plan *p, uint32_t stage, cs_gen_memory *out);
/* The stage with the largest footprint (the first of equals). */
void cs_gen_memory_worst(const cs_gen_model *m, const cs_gen_plan *p, cs_gen_memory *w);
/* Largest stage footprint against d->hbm_bytes: CS_EINVAL with the
 * breakdown when it does not fit.  *worst (may be NULL) gets that stage. */
int cs_gen_memory_check(const cs_gen_model *m, const cs_gen_plan *p, const cs_device *d, cs_gen_memory *worst,
                        cs_error *err);
void cs_gen_memory_format(const cs_gen_memory *mm, char *buf, size_t n);

/* ---- generation ---------------------------------------------------------- */

/* A COMP node's duration_micros: secs rounded to whole microseconds (half
 * away from zero), at least 1 (the Chakra field every generated node
 * carries; beyond the simulated-time range the generator refuses the node). */
uint64_t cs_gen_duration_us(double secs);
/* Inference, transformer: seconds of one rank's decode attention over ctx
 * cached tokens (docs/inference.md: max of its FLOPs at e_max x peak and its
 * bytes -- K and V read, Q read, O and the new K/V written -- at mem_eff x
 * HBM bandwidth); and its FLOPs and bytes. */
double cs_gen_tx_decode_attn_s(const cs_gen_model *m, const cs_gen_plan *p, const cs_device *d, double ctx,
                               double *flops, double *bytes);

/* Node sink: receives every node of a rank's graph in id order.  The node
 * (a ChakraProtoMsg__Node, workload/et.h) is valid only during the call. */
struct ChakraProtoMsg__Node;
typedef int (*cs_gen_sink)(void *ud, const struct ChakraProtoMsg__Node *node, cs_error *err);

/* Counters filled while generating one rank (tests check closed forms). */
typedef struct cs_gen_stats {
    uint64_t nodes;
    double matmul_flops;     /* sum of num_ops */
    double compute_s;        /* sum of COMP durations before rounding */
    uint64_t tp_colls, dp_colls, ep_colls, sends, recvs;  /* sends, recvs: pipeline boundaries */
    double tp_bytes, dp_bytes, ep_bytes, p2p_bytes;  /* dp_* include the expert-DP group */
    uint64_t cp_colls, cp_sends, cp_recvs;           /* context parallel: collectives, ring messages */
    double cp_bytes, cp_p2p_bytes;
    double dp_ag_bytes, dp_rs_bytes;                 /* DP/expert-DP all-gathers, reduce-scatters */
} cs_gen_stats;

/* One rank's graph into the sink; stats may be NULL. */
int cs_gen_rank(const cs_gen_model *m, const cs_gen_plan *p, const cs_device *d, uint32_t rank, cs_gen_sink sink,
                void *ud, cs_gen_stats *stats, cs_error *err);

/* One rank's graph as a Chakra ET file at path.  stop (may be NULL):
 * nonzero stops before the next node with CS_EINTR (the file is left to the
 * caller to remove). */
int cs_gen_write_rank(const cs_gen_model *m, const cs_gen_plan *p, const cs_device *d, uint32_t rank,
                      const char *path, const volatile sig_atomic_t *stop, cs_error *err);
/* One rank's graph as Chakra ET bytes in memory (the bytes
 * cs_gen_write_rank writes); the caller frees *buf with free(). */
int cs_gen_rank_bytes(const cs_gen_model *m, const cs_gen_plan *p, const cs_device *d, uint32_t rank, char **buf,
                      size_t *len, cs_error *err);
/* The plan as the cs_workload the executor runs: every graph it needs is
 * built from the generator's node messages by the decoding the trace reader
 * uses (cs_graph_builder), so what is simulated is what cs_gen_write_rank
 * (`clustersim generate`) writes, read back (equal node for node, the peers
 * and communicator names read through the views below:
 * tests/test_gen_sym.c), without the bytes in between.  Ranks whose graphs
 * differ only in their peers and communicator names share one graph's
 * nodes (views, workload/graph.h cs_graph_share).  ax NULL: every rank's graph; else (cs_gen_sym_axes)
 * the class representatives' only, every other rank sharing its
 * representative's graph: such a workload may only be run in class mode
 * (cs_engine_options.sym_axes with sym_no_fallback).  stop (may be NULL):
 * nonzero stops before the next node with CS_EINTR.  The caller frees *w with
 * cs_workload_free. */
int cs_gen_workload(const cs_gen_model *m, const cs_gen_plan *p, const cs_device *d, const cs_sym_axes *ax,
                    const volatile sig_atomic_t *stop, cs_workload *w, cs_error *err);

/* The generator's astra-model system for ndims network dimensions: ring
 * collectives on every dimension, endpoint-delay 10 ns, one active chunk
 * per dimension, roofline off, communicator-queues per-communicator
 * (NCCL's stream per communicator); the rest cs_system_config_defaults.  The
 * base of cs_gen_system_for, and a cluster's generated jobs' system. */
struct cs_system_config;
int cs_gen_system_defaults(int ndims, struct cs_system_config *out);

/* The system configuration of generated plan p of device d on network net
 * when none is given (train, and the PREFIX.system.json that generate
 * writes): cs_gen_system_defaults, with collective-model nccl, nccl-arch
 * the device's GPU generation (A100: ampere, H100 and H200: hopper, B200:
 * blackwell) when the nccl model can express the run; else the astra model,
 * and why[0..n) says why in one sentence (why = "" with nccl): a device
 * without NCCL constants, a network of more than two dimensions or whose
 * first dimension has more than 72 GPUs (the model takes it for one NVLink
 * domain), or a communicator group of the plan spread over the nodes
 * unevenly or out of node order (cs_nccl_group_fits).  One source for every
 * command (src/scenario uses it). */
struct cs_network_config;
int cs_gen_system_for(const struct cs_network_config *net, const cs_device *d, const cs_gen_plan *p,
                      struct cs_system_config *out, char *why, size_t n);
/* The same for communicator groups g (NULL: none) given as they are, e.g.
 * a cluster's jobs together; d NULL: devices that differ (astra). */
int cs_gen_system_groups(const struct cs_network_config *net, const cs_device *d, const cs_comm_groups *g,
                         struct cs_system_config *out, char *why, size_t n);

#endif
