/*
 * emit.c -- one rank's graph: the node primitives every family's emitter
 * uses (COMP nodes, collectives on the rank's groups, point-to-point
 * messages, data-parallel gradient buckets), and cs_gen_rank, which sets up
 * the rank (coordinates, group names from cs_gen_group_of), lets the
 * family emit its step, then reduces the gradients left for the end and
 * adds the optimizer step.  See gen_int.h for the chain discipline.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "gen/gen_int.h"

/* ---- costing mode (gen_int.h, cs_gen_costing) ---------------------------- */

static void cost_note(cs_gen_costing *C, uint64_t id, double end) {
    C->ids[id % CS_GEN_COST_IDS] = id;
    C->ends[id % CS_GEN_COST_IDS] = end;
}
static double cost_end(const cs_gen_costing *C, uint64_t id) {
    return id && C->ids[id % CS_GEN_COST_IDS] == id ? C->ends[id % CS_GEN_COST_IDS] : 0;
}
/* The chain waits for the off-chain nodes it needs. */
static void cost_wait(cs_gen_ctx *G) {
    for (size_t i = 0; i < G->nneed; i++) {
        double e = cost_end(G->cost, G->need[i]);
        if (e > G->cost->chain) G->cost->chain = e;
    }
    G->nneed = 0;
}

static void take_needs(cs_gen_ctx *G, cs_et_nb *nb) {
    for (size_t i = 0; i < G->nneed; i++) cs_et_nb_data_dep(nb, G->need[i]);
    G->nneed = 0;
}

static void emit(cs_gen_ctx *G, cs_et_nb *nb) {
    if (G->rc == CS_OK) {
        G->rc = G->sink(G->ud, cs_et_nb_node(nb), G->err);
        G->st->nodes++;
    }
}

/* The rank's node builder, started on the next node (one builder per rank,
 * reused node after node: no allocation per node; freed by rank_emit). */
static cs_et_nb *gen_nb(cs_gen_ctx *G, uint64_t id, const char *name, int type) {
    if (!G->nb) G->nb = cs_et_nb_new(id, name, type);
    else cs_et_nb_reset(G->nb, id, name, type);
    return G->nb;
}

/* ---- values that must fit their attribute ------------------------------ */

/* Fail the generation (the first error wins; later nodes are dropped). */
static void too_big(cs_gen_ctx *G, uint64_t id, const char *name, const char *attr, double v, const char *limit) {
    if (G->rc != CS_OK) return;
    G->rc = CS_ERR(G->err, CS_EINVAL,
                   "generated plan, rank %u: node %" PRIu64 " (%s): %s %.4g exceeds %s; expected a smaller plan "
                   "(--micro-batch %u) or model",
                   G->rank, id, name, attr, v, limit, G->p->micro_batch);
}

/* v rounded to an integer (half away from zero, as llround) as an unsigned
 * 64-bit attribute; beyond 2^64 (or not a number) the generation fails. */
static uint64_t attr_u64(cs_gen_ctx *G, uint64_t id, const char *name, const char *attr, double v) {
    if (v > -0.5 && v < 9.2e18) return (uint64_t)llround(v);
    if (v >= 9.2e18 && v < 18446744073709551616.0) return (uint64_t)v; /* integral at this size */
    too_big(G, id, name, attr, v, "2^64");
    return 0;
}

/* A COMP duration in whole microseconds (at least 1); beyond the
 * simulated-time range the generation fails. */
uint64_t cs_gen_duration_us(double secs) {
    double us = floor(secs * 1e6 + 0.5);
    if (!(us <= (double)CS_TIME_MAX_US)) return UINT64_MAX;
    return us < 1 ? 1 : (uint64_t)us;
}

static uint64_t duration_us(cs_gen_ctx *G, uint64_t id, const char *name, double secs) {
    double us = floor(secs * 1e6 + 0.5);
    if (!(us <= (double)CS_TIME_MAX_US)) {
        too_big(G, id, name, "duration_micros", us, CS_TIME_RANGE_TEXT);
        return 1;
    }
    return us < 1 ? 1 : (uint64_t)us;
}

uint64_t cs_gen_cpu(cs_gen_ctx *G, const char *name, double bytes, double secs, const uint64_t *deps, size_t ndeps) {
    uint64_t id = ++G->next_id;
    cs_et_nb *nb = gen_nb(G, id, name, CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE);
    for (size_t i = 0; i < ndeps; i++)
        if (deps[i]) cs_et_nb_data_dep(nb, deps[i]);
    cs_et_nb_duration_us(nb, duration_us(G, id, name, secs));
    cs_et_nb_attr_bool(nb, "is_cpu_op", 1);
    cs_et_nb_attr_uint64(nb, "num_ops", 0);
    cs_et_nb_attr_uint64(nb, "tensor_size", attr_u64(G, id, name, "tensor_size", bytes));
    emit(G, nb);
    return id;
}

void cs_gen_comp(cs_gen_ctx *G, const char *name, double flops, double bytes, double secs) {
    uint64_t id = ++G->next_id;
    secs += G->p->kernel_overhead_s; /* plan.kernel-overhead-us */
    if (G->cost) {
        cost_wait(G);
        double t = (double)duration_us(G, id, name, secs) * 1e-6;
        G->cost->chain += t;
        G->cost->comp_s += t;
        G->last = id;
        G->st->matmul_flops += (double)attr_u64(G, id, name, "num_ops", flops);
        G->st->compute_s += secs;
        (void)bytes;
        return;
    }
    cs_et_nb *nb = gen_nb(G, id, name, CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE);
    if (G->last) cs_et_nb_data_dep(nb, G->last);
    take_needs(G, nb);
    uint64_t ops = attr_u64(G, id, name, "num_ops", flops);
    cs_et_nb_duration_us(nb, duration_us(G, id, name, secs));
    cs_et_nb_attr_bool(nb, "is_cpu_op", 0);
    cs_et_nb_attr_uint64(nb, "num_ops", ops);
    cs_et_nb_attr_uint64(nb, "tensor_size", attr_u64(G, id, name, "tensor_size", bytes));
    emit(G, nb);
    G->last = id;
    G->st->matmul_flops += (double)ops;
    G->st->compute_s += secs;
}

/* A collective on the rank's PG_* group `kind`; chained (blocking) or hanging
 * off the chain.  Returns its id. */
/* Costing mode: a chained collective runs now (before queued off-chain
 * work, which it pushes back); one off the chain waits for the stream. */
static void cost_coll(cs_gen_ctx *G, uint64_t id, int type, double size, int kind, int chained) {
    cs_gen_costing *C = G->cost;
    double dur = C->coll_s(C->ud, kind, type, size);
    if (chained) {
        cost_wait(G);
        if (C->off_free > C->chain) C->off_free += dur;
        C->chain += dur;
        G->last = id;
    } else {
        double start = C->off_free > C->chain ? C->off_free : C->chain;
        C->off_free = start + dur;
        C->off_busy += dur;
        cost_note(C, id, C->off_free);
    }
}

uint64_t cs_gen_coll(cs_gen_ctx *G, const char *name, int type, double bytes, int kind, int chained) {
    uint64_t id = ++G->next_id;
    uint64_t size = attr_u64(G, id, name, "comm_size", bytes);
    if (G->cost) {
        cost_coll(G, id, type, (double)size, kind, chained);
    } else {
        cs_et_nb *nb = gen_nb(G, id, name, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE);
        if (G->last) cs_et_nb_data_dep(nb, G->last);
        if (chained) take_needs(G, nb);
        cs_et_nb_attr_bool(nb, "is_cpu_op", 0);
        cs_et_nb_attr_int64(nb, "comm_type", type);
        cs_et_nb_attr_uint64(nb, "comm_size", size);
        cs_et_nb_attr_string(nb, "pg_name", G->pg[kind]);
        emit(G, nb);
        if (chained) G->last = id;
    }
    double b = (double)size;
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
/* Costing mode: ring-attention data arrives a message time after both ends
 * are ready (the chain and `dep`); pipeline messages are counted (the
 * estimate prices the pipeline's fill and drain, not each message). */
static void cost_p2p(cs_gen_ctx *G, uint64_t id, int send, double bytes, uint64_t dep, int join, int cp) {
    cs_gen_costing *C = G->cost;
    if (send) {
        if (!cp) {
            C->pp_bytes += bytes;
            C->pp_msgs++;
        }
        return;
    }
    if (!cp) return;
    double ready = cost_end(C, dep) > C->chain ? cost_end(C, dep) : C->chain, end = ready + C->p2p_s(C->ud, 1, bytes);
    cost_note(C, id, end);
    if (join && end > C->chain) C->chain = end;
}

uint64_t cs_gen_p2p(cs_gen_ctx *G, int send, uint32_t peer, int32_t tag, double bytes, uint64_t dep, int join, int cp) {
    uint64_t id = ++G->next_id;
    if (G->cost) {
        cost_p2p(G, id, send, bytes, dep, join, cp);
    } else {
        cs_et_nb *nb = gen_nb(G, id, send ? "send" : "recv",
                                    send ? CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE
                                         : CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE);
        if (G->last) cs_et_nb_data_dep(nb, G->last);
        if (dep) cs_et_nb_data_dep(nb, dep);
        cs_et_nb_attr_bool(nb, "is_cpu_op", 0);
        cs_et_nb_attr_int32(nb, "comm_src", (int32_t)(send ? G->rank : peer));
        cs_et_nb_attr_int32(nb, "comm_dst", (int32_t)(send ? peer : G->rank));
        cs_et_nb_attr_int32(nb, "comm_tag", tag);
        cs_et_nb_attr_uint64(nb, "comm_size", attr_u64(G, id, send ? "send" : "recv", "comm_size", bytes));
        emit(G, nb);
    }
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

double cs_gen_gemm(cs_gen_ctx *G, double m, double n, double k) { return cs_device_gemm_s(G->d, m, n, k, 2); }
double cs_gen_stream(cs_gen_ctx *G, double bytes) { return cs_device_stream_s(G->d, bytes); }

void cs_gen_dp_bucket(cs_gen_ctx *G, double *acc, int force, int kind) {
    double n = kind == PG_EDP ? cs_gen_edp_ranks(G->p) : cs_gen_dp_ranks(G->p);
    if (n < 2 || *acc <= 0) return;
    if (G->p->no_grad_overlap && G->p->zero < 2) {
        G->deferred[kind == PG_EDP] += *acc;
        *acc = 0;
        return;
    }
    if (!force && *acc < (double)G->p->bucket_params) return;
    uint64_t id;
    if (cs_gen_hsdp(G->p) && kind == PG_DP) {
        /* HSDP: reduce-scatter in the shard group, then all-reduce the
         * rank's shard (1/S of it) across the replicas; off the chain, the
         * all-reduce after the reduce-scatter */
        double S = cs_gen_shard_ranks(G->p), bytes = *acc * cs_gen_grad_bytes(G->p);
        id = S > 1 ? cs_gen_coll(G, "dp.grads", CS_COLL_REDUCE_SCATTER, bytes, PG_SH, 0) : 0;
        if (n / S > 1) {
            uint64_t last = G->last;
            if (id) G->last = id;
            id = cs_gen_coll(G, "dp.grads.replicas", CS_COLL_ALL_REDUCE, bytes / S, PG_RP, 0);
            G->last = last;
        }
    } else {
        id = cs_gen_coll(G, kind == PG_EDP ? "edp.grads" : "dp.grads",
                         G->p->zero ? CS_COLL_REDUCE_SCATTER : CS_COLL_ALL_REDUCE, *acc * cs_gen_grad_bytes(G->p), kind,
                         0);
    }
    if (G->nextra == G->capextra) {
        G->capextra = G->capextra ? 2 * G->capextra : 16;
        G->extra = cs_realloc(G->extra, G->capextra * sizeof *G->extra);
    }
    G->extra[G->nextra++] = id;
    *acc = 0;
}

static void grad_flush(cs_gen_ctx *G) {
    for (int e = 0; e < 2; e++)
        if (G->deferred[e] > 0)
            cs_gen_coll(G, e ? "edp.grads" : "dp.grads", G->p->zero ? CS_COLL_REDUCE_SCATTER : CS_COLL_ALL_REDUCE,
                 G->deferred[e] * cs_gen_grad_bytes(G->p), e ? PG_EDP : PG_DP, 1);
}

/* One rank's step with M micro-batches, into the sink (costing NULL) or
 * through the costing clock. */
static int rank_emit(const cs_gen_model *m, const cs_gen_plan *p, const cs_device *d, uint32_t rank, uint32_t M,
                     cs_gen_sink sink, void *ud, cs_gen_costing *cost, cs_gen_stats *stats, cs_error *err) {
    cs_gen_stats dummy;
    cs_gen_ctx ctx, *G = &ctx;
    memset(G, 0, sizeof *G);
    G->m = m;
    G->p = p;
    G->d = d;
    G->rank = rank;
    G->sink = sink;
    G->ud = ud;
    G->cost = cost;
    G->st = stats ? stats : &dummy;
    G->err = err;
    G->M = M;
    uint32_t c[CS_GEN_NDIMS];
    cs_gen_rank_coords(p, rank, c);
    G->ti = c[CS_DIM_TP];
    G->di = c[CS_DIM_DP];
    G->pi = c[CS_DIM_PP];
    G->ci = c[CS_DIM_CP];
    if (!cost)
        for (int k = 0; k < PG_N; k++) snprintf(G->pg[k], sizeof G->pg[k], "%u", cs_gen_group_of(p, k, c, NULL));
    memset(G->st, 0, sizeof *G->st);
    G->b = p->micro_batch;
    if (p->ingest.bytes_per_sample > 0 && !cost) G->ing_cons = cs_calloc(p->ingest.prefetch, sizeof *G->ing_cons);
    m->family->emit(G);
    if (G->cost) G->cost->body_end = G->cost->chain;
    if (p->phase != CS_PHASE_TRAIN) { /* a serving step: no gradients, no optimizer */
        cs_free(G->extra);
        cs_free(G->ing_cons);
        cs_et_nb_free(G->nb);
        return G->rc;
    }
    grad_flush(G);
    /* optimizer step: waits for the chain and every gradient bucket */
    cs_gen_memory mm;
    cs_gen_memory_stage(m, p, G->pi, &mm);
    double edp = cs_gen_edp_ranks(p), dpr = cs_gen_dp_ranks(p), pe = mm.expert_params, pd = mm.params - pe;
    double sd = pd / (p->zero >= 1 ? cs_gen_shard_ranks(p) : 1), se = pe / (p->zero >= 1 ? edp : 1), shard = sd + se;
    /* offloaded (ZeRO-Offload style): fp32 master weights, Adam m and v -- 12 bytes per parameter --
     * are loaded from remote memory and stored back; the step's other 30 of its 54 bytes stay in HBM */
    if (p->offload_opt && !G->cost) {
        uint64_t lid = ++G->next_id;
        cs_et_nb *nb = gen_nb(G, lid, "optimizer.load", CHAKRA_PROTO_MSG__NODE_TYPE__MEM_LOAD_NODE);
        if (G->last) cs_et_nb_data_dep(nb, G->last);
        for (size_t i = 0; i < G->nextra; i++) cs_et_nb_data_dep(nb, G->extra[i]);
        G->nextra = 0;
        cs_et_nb_attr_uint64(nb, "tensor_size", attr_u64(G, lid, "optimizer.load", "tensor_size", 12 * shard));
        emit(G, nb);
        G->last = lid;
    }
    uint64_t id = ++G->next_id;
    double opt_bytes = (p->grad_acc_fusion ? CS_GEN_OPT_FP32_GRAD_BYTES_PER_PARAM : CS_GEN_OPT_BYTES_PER_PARAM) -
                       (p->offload_opt ? CS_GEN_OPT_STATE_BYTES_PER_PARAM : 0);
    double secs = cs_gen_stream(G, opt_bytes * shard) + p->kernel_overhead_s;
    if (G->cost) {
        cs_gen_costing *C = G->cost;
        if (C->off_free > C->chain) C->chain = C->off_free;
        C->opt_s = (double)duration_us(G, id, "optimizer", secs) * 1e-6;
        C->chain += C->opt_s;
    } else {
        cs_et_nb *nb = gen_nb(G, id, "optimizer", CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE);
        if (G->last) cs_et_nb_data_dep(nb, G->last);
        for (size_t i = 0; i < G->nextra; i++) cs_et_nb_data_dep(nb, G->extra[i]);
        cs_et_nb_duration_us(nb, duration_us(G, id, "optimizer", secs));
        cs_et_nb_attr_bool(nb, "is_cpu_op", 0);
        cs_et_nb_attr_uint64(nb, "num_ops", 0);
        cs_et_nb_attr_uint64(nb, "tensor_size", attr_u64(G, id, "optimizer", "tensor_size", CS_GEN_OPT_BYTES_PER_PARAM * shard));
        emit(G, nb);
    }
    G->last = id;
    G->st->compute_s += secs;
    if (p->offload_opt && !G->cost) {
        uint64_t sid = ++G->next_id;
        cs_et_nb *nb = gen_nb(G, sid, "optimizer.store", CHAKRA_PROTO_MSG__NODE_TYPE__MEM_STORE_NODE);
        cs_et_nb_data_dep(nb, G->last);
        cs_et_nb_attr_uint64(nb, "tensor_size", attr_u64(G, sid, "optimizer.store", "tensor_size", 12 * shard));
        emit(G, nb);
        G->last = sid;
    }
    /* ZeRO-1/2: the updated shards are gathered; ZeRO-3 keeps them sharded,
     * FSDP gathers them before the next forward */
    int gather_after = p->zero >= 1 && p->zero < 3 && !p->fsdp_strategy;
    if (gather_after && dpr > 1) cs_gen_coll(G, "dp.params", CS_COLL_ALL_GATHER, sd * 2, PG_DP, 1);
    if (gather_after && edp > 1 && se > 0)
        cs_gen_coll(G, "edp.params", CS_COLL_ALL_GATHER, se * 2, PG_EDP, 1);
    cs_free(G->extra);
    cs_free(G->ing_cons);
    cs_et_nb_free(G->nb);
    return G->rc;
}

int cs_gen_rank(const cs_gen_model *m, const cs_gen_plan *p, const cs_device *d, uint32_t rank, cs_gen_sink sink,
                void *ud, cs_gen_stats *stats, cs_error *err) {
    int rc = cs_gen_plan_check(m, p, err);
    if (rc) return rc;
    if (rank >= cs_gen_ranks(p)) return CS_ERR(err, CS_EINVAL, "rank %u: outside the plan", rank);
    return rank_emit(m, p, d, rank, cs_gen_micro_batches(p), sink, ud, NULL, stats, err);
}

int cs_gen_rank_cost(const cs_gen_model *m, const cs_gen_plan *p, const cs_device *d, uint32_t rank, uint32_t M,
                     cs_gen_costing *cost, cs_gen_stats *stats, cs_error *err) {
    return rank_emit(m, p, d, rank, M, NULL, NULL, cost, stats, err);
}
