/*
 * gen_int.h -- private to src/gen: the emitter's state of one rank and the
 * node primitives every family's emitter uses (emit.c), the rank and group
 * arithmetic of a plan (plan.c) and the option parsers model files share
 * (model.c).  The families register themselves in family.c.
 *
 * One rank's graph is one chain on the compute stream: every COMP node and
 * every chained collective depends on the node before it (G->last).
 * Pipeline receives join the chain; sends and data-parallel gradient
 * buckets hang off it; the optimizer step (emit.c, after the family's
 * nodes) waits for every bucket.
 */
#ifndef CS_GEN_GEN_INT_H
#define CS_GEN_GEN_INT_H

#include "gen/family.h"
#include "gen/gen.h"
#include "workload/et.h"

/* ---- plan arithmetic (plan.c) -------------------------------------------- */

/* Kinds of communicator group a rank belongs to. */
enum { PG_DP = 0, PG_TP = 1, PG_EP = 2, PG_EDP = 3, PG_CP = 4, PG_SH = 5, PG_RP = 6, PG_N = 7 };
/* PG_SH, PG_RP (HSDP only): the shard group of hsdp_shard consecutive DP
 * indices, and the replica group of the DP indices with the same position
 * in their shard group. */

uint32_t cs_gen_cp(const cs_gen_plan *p);     /* cp, 0 read as 1 */
uint32_t cs_gen_vst(const cs_gen_plan *p);    /* vstages, 0 read as 1 */
/* The rank of (ti, di, pi, ci). */
uint32_t cs_gen_rank_at(const cs_gen_plan *p, uint32_t ti, uint32_t di, uint32_t pi, uint32_t ci);
/* The 1-based id of the group of kind PG_* of the rank at coordinates c,
 * and the rank's index in it (*member; may be NULL).  The one place of the
 * group-id arithmetic (gen.h).  Without expert parallelism the expert-DP
 * group is the DP group, and the EP id is not a group of the file. */
uint32_t cs_gen_group_of(const cs_gen_plan *p, int kind, const uint32_t c[CS_GEN_NDIMS], uint32_t *member);
/* Ranks over which dense and expert parameters are replicated (ZeRO shards
 * over them): DP x CP, and the expert-DP group (dp / ep; with ep = 1 the
 * DP x CP group). */
double cs_gen_dp_ranks(const cs_gen_plan *p);
double cs_gen_edp_ranks(const cs_gen_plan *p);
/* Bytes of one gradient element on the wire and in memory: 4 (fp32) with
 * Megatron's distributed optimizer, its gradient-accumulation fusion or
 * FSDP's fp32 reduce dtype, else 2. */
double cs_gen_grad_bytes(const cs_gen_plan *p);
/* 1 when the step all-gathers parameters before the layers run (ZeRO-3,
 * FSDP FULL_SHARD and SHARD_GRAD_OP). */
int cs_gen_gathers(const cs_gen_plan *p);
/* 1 for HSDP (FSDP's hybrid strategies); 1 for SHARD_GRAD_OP-like ones
 * (parameters not resharded after the forward). */
int cs_gen_hsdp(const cs_gen_plan *p);
int cs_gen_zero2_like(const cs_gen_plan *p);
/* Ranks the dense parameters, gradients and optimizer state are sharded
 * over: the HSDP shard group, else DP x CP. */
double cs_gen_shard_ranks(const cs_gen_plan *p);
/* micro_batch >= 1 and global_batch a multiple of micro_batch x dp. */
int cs_gen_check_batch(const cs_gen_plan *p, cs_error *err);

/* ---- model files (model.c) ----------------------------------------------- */

/* CS_OPT_CUSTOM parser of a uint32_t field in [min, max] ("expected
 * <type_text>, got ..."), and of a cs_gen_mlp (a list of 1 to
 * CS_GEN_DLRM_MAXMLP widths in [min, max]). */
int cs_gen_opt_u32(const cs_jdoc *doc, const cs_opt *o, const json_t *v, void *field, cs_error *err);
int cs_gen_opt_mlp(const cs_jdoc *doc, const cs_opt *o, const json_t *v, void *field, cs_error *err);
/* Their dumps (0 = not set: left out). */
json_t *cs_gen_opt_u32_dump(const cs_opt *o, const void *field);
json_t *cs_gen_opt_mlp_dump(const cs_opt *o, const void *field);

/* ---- the emitter (emit.c) ------------------------------------------------ */

/* Costing mode (estimate.c): the emitter runs without building nodes and
 * keeps a critical-path clock instead.  COMP nodes and chained
 * collectives advance `chain`; collectives off the chain run on the
 * rank's comm stream (`off_free`, pushed back by chained collectives,
 * which take priority); nodes that wait for off-chain work (ZeRO-3
 * prefetches, ring-attention receives) look its end up by id.  Times in
 * seconds; coll_s and p2p_s price one collective / message. */
#define CS_GEN_COST_IDS 256
typedef struct cs_gen_costing {
    double (*coll_s)(void *ud, int kind, int type, double bytes);
    double (*p2p_s)(void *ud, int cp, double bytes);
    void *ud;
    double chain, off_free, off_busy; /* clocks; off-chain busy time */
    double comp_s, opt_s;             /* COMP time of the family's nodes; the optimizer's */
    double body_end;                  /* chain when the family's nodes are done (before
                                         the last gradients and the optimizer) */
    double pp_bytes;                  /* bytes of pipeline messages sent */
    uint64_t pp_msgs;
    uint64_t ids[CS_GEN_COST_IDS];    /* off-chain node ids and their ends */
    double ends[CS_GEN_COST_IDS];
} cs_gen_costing;

typedef struct cs_gen_ctx {
    const cs_gen_model *m;
    const cs_gen_plan *p;
    const cs_device *d;
    uint32_t rank, ti, di, pi, ci; /* the rank and its coordinates */
    char pg[PG_N][16];             /* PG_* communicator names of the rank */
    cs_gen_sink sink;
    void *ud;
    cs_gen_stats *st;
    cs_error *err;
    int rc;                        /* first sink error (later nodes are dropped) */
    uint64_t next_id, last;        /* last = tail of the chain (0 = none) */
    uint64_t *extra;               /* dependencies for the optimizer (DP buckets) */
    size_t nextra, capextra;
    uint64_t need[2];              /* nodes the next chained node also waits for */
    size_t nneed;
    double deferred[2];            /* gradients (dense, expert) left for the end */
    double b;                      /* micro-batch */
    uint32_t M;                    /* micro-batches */
    void *fam;                     /* the family emitter's own state */
    uint64_t ing_last;             /* ingest: the loader's last node (its H2D copy; 0 = none) */
    uint64_t *ing_cons;            /* ingest: first forward node of micro-batch mb at [mb % prefetch] */
    cs_gen_costing *cost;          /* costing mode (sink unused), else NULL */
    struct cs_et_nb *nb;           /* the node builder, reused node after node (emit.c: gen_nb) */
} cs_gen_ctx;

/* A COMP node on the chain: flops (matmuls), bytes moved, seconds. */
void cs_gen_comp(cs_gen_ctx *G, const char *name, double flops, double bytes, double secs);
/* A collective on the rank's PG_* group `kind`; chained (blocking) or
 * hanging off the chain.  Returns its id. */
uint64_t cs_gen_coll(cs_gen_ctx *G, const char *name, int type, double bytes, int kind, int chained);
/* A COMM_SEND/RECV node after the chain's tail (and `dep`, if not 0).  A
 * receive joins the chain when `join`; sends never do.  cp = 1 counts it
 * as a ring attention message, else as a pipeline boundary.  Returns its id. */
uint64_t cs_gen_p2p(cs_gen_ctx *G, int send, uint32_t peer, int32_t tag, double bytes, uint64_t dep, int join,
                    int cp);
/* A gradient bucket of *acc parameters on the DP group (kind PG_DP) or the
 * expert-DP group (PG_EDP): all-reduce, or reduce-scatter with ZeRO >= 1;
 * off the chain once it holds plan.bucket_params (or when force), or with
 * plan.no_grad_overlap and ZeRO <= 1 kept for the end of the step. */
void cs_gen_dp_bucket(cs_gen_ctx *G, double *acc, int force, int kind);
/* The input pipeline (ingest.c): on a rank of the first stage with ingest
 * on, the loader's nodes for micro-batch mb -- read, preprocess, H2D copy,
 * CPU nodes chained after the loader's previous batch and after the
 * consumption of batch mb - prefetch -- and the next chained node (which
 * must be the micro-batch's first forward COMP node: it consumes the batch)
 * waits for the copy.  Call once per micro-batch, in increasing mb, right
 * before that node.  Nothing in costing mode. */
void cs_gen_ingest_batch(cs_gen_ctx *G, uint32_t mb);
/* A host CPU COMP node (is_cpu_op: the rank's CPU thread, not the GPU
 * stream) off the chain, after deps[0..ndeps) (0 entries skipped): bytes
 * as tensor_size, secs rounded to whole microseconds.  Returns its id. */
uint64_t cs_gen_cpu(cs_gen_ctx *G, const char *name, double bytes, double secs, const uint64_t *deps, size_t ndeps);
/* cs_gen_duration_us (gen.h): whole microseconds of a COMP duration as the generator writes it. */

/* Framework memory traffic (docs/generator.md, "Framework kernels"), one
 * set for every plan and device, read from Megatron-LM's code of 2021/22:
 *
 * The optimizer step, HBM bytes per parameter of the rank's shard
 * (megatron/optimizer/optimizer.py, mixed-precision Adam):
 *   copy the fp16 gradient to the fp32 main gradient (.float())  2 + 4 =  6
 *   unscale and check for inf/nan (_amp_foreach_non_finite_check_and_unscale_)  4 + 4 =  8
 *   gradient L2 norm for clipping (multi_tensor_l2norm)               4 =  4
 *   Adam (apex FusedAdam): read param, grad, m, v; write param, m, v  16 + 12 = 28
 *   copy the fp32 main parameters to the fp16 model (multi_tensor_scale)  4 + 2 =  6
 *   zero the fp16 gradient buffer for the next step (zero_grad_buffer)    2 =  2
 *                                                                        total 54
 * (the clipping multiply runs only when the norm exceeds the threshold: not
 * counted).  Offloaded, the fp32 master, m and v reads and writes (24) are
 * the remote memory's: 30 stay in HBM. */
#define CS_GEN_OPT_BYTES_PER_PARAM 54.0
#define CS_GEN_OPT_STATE_BYTES_PER_PARAM 24.0
/* Gradient accumulation: every micro-batch's backward adds each fresh fp16
 * gradient into the accumulation buffer (megatron/model/distributed.py,
 * the DDP hook param.main_grad.add_(param.grad.data)): read 2 + 2, write 2. */
#define CS_GEN_GRAD_ACC_BYTES_PER_PARAM 6.0
/* With Megatron-LM's gradient-accumulation fusion (plan.grad_acc_fusion) the
 * accumulation buffer is fp32 (megatron/arguments.py: the fusion needs
 * accumulate_allreduce_grads_in_fp32).  The linear layers' weight-gradient
 * GEMMs add into it (fused_weight_gradient_dense, wgrad_gemm_accum_fp32: no
 * kernel of their own); the other parameters (norms, biases, an MoE
 * router, the embedding table) still go through the hook: read 4 + 2,
 * write 4.  Of the optimizer's 54 bytes, the copy of the fp16 gradients into
 * fp32 (2 + 4) is then a no-op (main_grad.float() of an fp32 tensor) and
 * zeroing the buffer writes 4 bytes, not 2: 54 - 6 + 2 = 50. */
#define CS_GEN_GRAD_ACC_FP32_BYTES_PER_PARAM 10.0
#define CS_GEN_OPT_FP32_GRAD_BYTES_PER_PARAM 50.0
/* Cross entropy over the vocabulary (megatron/model/gpt_model.py:
 * vocab_parallel_cross_entropy(output.float(), labels);
 * megatron/mpu/cross_entropy.py), HBM bytes per logit of the rank:
 *   forward: .float() 2 + 4, max 4, sub_ 4 + 4, exp 4 + 4, sum 4, div_ 4 + 4 = 38
 *   backward: mul_ by the loss gradient 4 + 4, back to fp16 4 + 2           = 14
 * (the logits GEMM's own fp16 write and read are in its GEMM term). */
#define CS_GEN_XENT_FWD_BYTES_PER_LOGIT 38.0
#define CS_GEN_XENT_BWD_BYTES_PER_LOGIT 14.0

/* Device time of a (m x k) x (k x n) 2-byte GEMM; of streaming bytes. */
double cs_gen_gemm(cs_gen_ctx *G, double m, double n, double k);
double cs_gen_stream(cs_gen_ctx *G, double bytes);

/* Costing mode: rank's step with M micro-batches (the plan's check is the
 * caller's) through *cost, which the caller set up (prices, zeroed clocks). */
int cs_gen_rank_cost(const cs_gen_model *m, const cs_gen_plan *p, const cs_device *d, uint32_t rank, uint32_t M,
                     cs_gen_costing *cost, cs_gen_stats *stats, cs_error *err);

#endif
