/*
 * system_config.h -- the system layer's parameters as a value type
 * (cs_system_config): scheduling policy, collective optimisation, chunking,
 * the per-collective algorithm lists, LogGP and roofline parameters, and the
 * ASTRA-sim 1.0 scheduling keys.
 *
 * Owned by the system layer, which runs on it; the key table that declares
 * every field's key, default and help (cs_system_config_opts) is here too,
 * so that defaults need no reader.  The reader of the ASTRA-sim system JSON
 * lives above, in config/system_config.h, and includes this header.
 */
#ifndef CS_SYSTEM_SYSTEM_CONFIG_H
#define CS_SYSTEM_SYSTEM_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "system/coll_algo.h" /* the algorithm registry: cs_coll_impl */
#include "topology/dims.h"    /* CS_MAX_DIMS */

typedef enum {
    CS_SCHED_LIFO = 0,    /* newest stream first */
    CS_SCHED_FIFO = 1,    /* oldest stream first */
    CS_SCHED_EXPLICIT = 2 /* priority from the trace node */
} cs_scheduling_policy;

typedef enum {
    CS_COLLOPT_BASELINE = 0,        /* same collective in every dimension */
    CS_COLLOPT_LOCAL_BW_AWARE = 1   /* all-reduce as RS up, AR top, AG down */
} cs_collective_optimization;

/* ASTRA-sim 1.0 keys (2.x hard-codes ascending / FIFO). */
typedef enum {
    CS_INTER_ASCENDING = 0,
    CS_INTER_OFFLINE_GREEDY = 1,      /* Themis */
    CS_INTER_OFFLINE_GREEDY_FLEX = 2,
    CS_INTER_ROUND_ROBIN = 3,
    CS_INTER_ONLINE_GREEDY = 4
} cs_inter_dim_scheduling;

typedef enum {
    CS_INTRA_FIFO = 0,
    CS_INTRA_RG = 1,
    CS_INTRA_SMALLEST_FIRST = 2,
    CS_INTRA_LESS_REMAINING_PHASE_FIRST = 3
} cs_intra_dim_scheduling;

/* A *-implementation list: one entry per dimension ("ring", "direct4",
 * ...), each naming an algorithm of the system layer's registry
 * (system/coll_algo.h); this layer knows no algorithm by name. */
typedef struct cs_coll_algo_list {
    int n;                          /* entries given; 0 = key absent */
    cs_coll_impl algo[CS_MAX_DIMS]; /* algo[d] for dimension d */
    int line;                       /* line of the key in the file, 0 if none */
} cs_coll_algo_list;

/* Index of the per-collective arrays below. */
typedef enum {
    CS_CFG_ALL_REDUCE = 0,
    CS_CFG_ALL_GATHER = 1,
    CS_CFG_REDUCE_SCATTER = 2,
    CS_CFG_ALL_TO_ALL = 3,
    CS_CFG_NCOLL = 4
} cs_cfg_coll;

typedef struct cs_system_config {
    char *path; /* file it was read from (owned; NULL for defaults) */
    cs_scheduling_policy scheduling_policy;
    cs_collective_optimization collective_optimization;
    int endpoint_delay_ns;           /* >= 0 (ASTRA-sim asserts on 0; we accept it) */
    int local_reduction_delay;       /* LogGP model: ns per 100 bytes reduced */
    int active_chunks_per_dimension; /* >= 1 */
    int preferred_dataset_splits;    /* >= 1 */
    cs_coll_algo_list impl[CS_CFG_NCOLL]; /* *-implementation */
    char *custom_impl[CS_CFG_NCOLL];      /* *-implementation-custom: Chakra ET path or NULL */
    char *per_node_custom_impl;           /* per-node-custom-implementation: YAML path or NULL */
    double local_mem_bw_gbps;             /* > 0, GB/s (1e9 bytes/s) */
    double peak_perf_tflops;              /* >= 0, TFLOP/s; > 0 when roofline_enabled */
    bool roofline_enabled;
    bool model_shared_bus;
    double loggp_L_ns, loggp_o_ns, loggp_g_ns; /* LogGP L, o, g (ns) */
    double loggp_G_ns_per_byte;                /* LogGP G (ns per byte) */
    bool trace_enabled;
    bool replay_only;
    bool track_local_mem;
    char *local_mem_trace_filename;
    cs_inter_dim_scheduling inter_dim_scheduling;
    cs_intra_dim_scheduling intra_dim_scheduling;
    int per_comm_queues;       /* communicator-queues: 0 shared (ASTRA-sim), 1 per-communicator */
    int collective_model;      /* collective-model: 0 astra (ASTRA-sim), 1 nccl (system/nccl_model.h) */
    int nccl_channels;         /* nccl-channels: NCCL's channels (parallel rings) */
    int nccl_arch;             /* nccl-arch: cs_nccl_arch (system/nccl_model.h) */
    bool nccl_nvls;            /* nccl-nvls: NVLS is a candidate on Switch dimensions */
    int nccl_cpu;              /* nccl-cpu: CS_NCCL_CPU_* (system/nccl_model.h) */
    bool nccl_collnet;         /* nccl-collnet: CollNet (SHARP) is a candidate when the NET dimension is a Switch */
} cs_system_config;

/* Every key at its default; required keys get the value ASTRA-sim's
 * examples use (LIFO, localBWAware, 4 splits, 1600 GB/s) so that programs
 * can build a configuration without a file.  Returns CS_OK. */
int cs_system_config_defaults(cs_system_config *c);
/* Release the strings; may be called on a zeroed or failed struct. */
void cs_system_config_free(cs_system_config *c);

/* The key table (the reader parses with it; the scenario namespace checks
 * keys against it). */
struct cs_opt;
const struct cs_opt *cs_system_config_opts(size_t *n);

/* Names as written in the file (algorithm entries: cs_coll_impl_format). */
const char *cs_scheduling_policy_name(cs_scheduling_policy p);
const char *cs_collective_optimization_name(cs_collective_optimization o);
const char *cs_inter_dim_scheduling_name(cs_inter_dim_scheduling s);
const char *cs_intra_dim_scheduling_name(cs_intra_dim_scheduling s);
/* "all-reduce", "all-gather", "reduce-scatter", "all-to-all" */
const char *cs_cfg_coll_name(cs_cfg_coll c);

#endif
