/*
 * scenario_int.h -- private to src/scenario: the typed sections of the
 * namespace (scenario_keys.c) and the scenario's state.
 */
#ifndef CS_SCENARIO_SCENARIO_INT_H
#define CS_SCENARIO_SCENARIO_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/opts.h"
#include "cost/cost.h"
#include "scenario/scenario.h"

typedef struct cs_run_params {
    char *workload, *backend, *placement;
    int symmetry;           /* 0 auto, 1 off */
    int comm_streams;       /* 0 = the workload's default */
    double injection_scale, compute_scale, comm_scale;
    int num_queues_per_dim;
    char *slow_ranks;       /* "RANK[-RANK]:FACTOR,..." or NULL */
    char *slow_nics;        /* the same for the ranks' NICs (graph backends) */
    bool attribute_stragglers;
    double compute_jitter;  /* coefficient of variation of GPU compute times (0 = none) */
    int jitter_seed;
    bool ignore_ctrl_deps, allow_missing_data_deps, compare_healthy, rendezvous;
} cs_run_params;

typedef struct cs_plan_params {
    int tp, pp, dp, ep, cp, cp_comm, recompute, schedule, vstages, zero;
    int micro_batch, global_batch, bucket_mparams, bucket_mb;
    int phase, context_tokens, kv_tokens, mlp_reduce_bytes; /* serving steps (docs/inference.md) */
    int fsdp_strategy;                    /* index in FSDP_STRATEGY */
    int fsdp_reduce_dtype;                /* index in REDUCE_DTYPE: 0 bf16, 1 fp32 */
    int hsdp_shard;
    double kernel_overhead_us;
    char *placement, *layout;
    bool sp, flash, fsdp, no_grad_overlap, no_memory_check, offload_opt, dist_opt, fsdp_no_sync, async_tp, ga_fusion;
} cs_plan_params;

/* ingest.*: the input pipeline of a generated plan (gen/ingest.c) */
typedef struct cs_ingest_params {
    double bytes_per_sample, h2d_bytes_per_sample, storage_read_gbps, preprocess_samples_per_s, h2d_gbps;
    int prefetch_depth;
} cs_ingest_params;

typedef struct cs_model_params { char *name; } cs_model_params;
typedef struct cs_device_params { char *name; } cs_device_params;

/* A typed section: its keys and the size of the struct they fill. */
typedef struct cs_sc_section {
    const char *name;
    const cs_opt *opts;
    size_t nopts, size;
    const char *help;
} cs_sc_section;
extern const cs_sc_section CS_SC_SECTIONS[]; /* NULL-terminated */

/* Sections of the namespace, in dump order. */
enum { SC_RUN, SC_PLAN, SC_MODEL, SC_DEVICE, SC_COST, SC_INGEST, SC_SERVE, SC_NETWORK, SC_TOPOLOGY, SC_SYSTEM, SC_MEMORY, SC_GROUPS, SC_BACKEND,
       SC_NSECT };
#define SC_LAST_TYPED SC_SERVE /* the typed sections are SC_RUN .. SC_LAST_TYPED (CS_SC_SECTIONS) */

struct cs_scenario {
    json_t *sect[SC_NSECT];  /* keys set so far, per section (objects; owned); backend: {NAME: {KEY: V}};
                                topology: {builder, common keys, BUILDER: {KEY: V}} */
    char *label[SC_NSECT];   /* where a config section came from (file path) or NULL */
    char errmsg[1024];       /* last error of the public API */
    int batch;               /* cs_sc_batch_begin: network and memory checks wait for cs_sc_batch_end */
    struct cs_sc_bset {      /* in a batch, the sets of those sections, in order: where, key */
        int sect;
        char *where, *key;
    } *bset;
    size_t nbset, capbset;
    long deferred[SC_NSECT]; /* in a batch: bset index of a section's first set whose check failed, or -1 */
};

#endif
