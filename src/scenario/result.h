/*
 * result.h -- what one scenario run produced, in memory (cs_result; public
 * accessors in include/clustersim/clustersim.h, result.c).
 *
 * A result owns copies of everything the output writers need -- the rank
 * rows, the collective aggregator (summary per type, the entries
 * summary.json lists) and the first CS_RESULT_MAX_COLLS collective rows, the
 * physical topology with its link counters (graph backends), the effective
 * scenario as JSON, the network dimensions, a description of the workload,
 * the plan's throughput and memory -- so it outlives its scenario.
 */
#ifndef CS_SCENARIO_RESULT_H
#define CS_SCENARIO_RESULT_H

#include <jansson.h>

#include "clustersim/clustersim.h"
#include "config/network_config.h"
#include "cost/cost.h"
#include "network/network.h"
#include "scenario/coll_agg.h"
#include "scenario/engine.h"
#include "topology/topology.h"
#include "gen/gen.h"

#define CS_RESULT_MAX_COLLS 16384u

struct cs_result {
    cs_engine_result sim;            /* rank rows and totals */
    json_t *config;               /* effective configuration for summary.json (owned) */
    json_t *scenario;             /* the effective scenario (owned) */
    cs_network_config net;        /* dimensions (path owned; topology NULL) */
    char *backend;                /* owned */
    /* workload description (the graphs themselves are not kept) */
    char *workload_prefix;        /* trace prefix, or "generated: <model>" */
    int single_file;
    uint32_t ngraphs;
    uint64_t graph_nodes;         /* nodes over the distinct graphs */
    cs_topo *topo;                /* physical graph, or NULL (owned) */
    cs_net_link_report links;     /* the backend's per-link statistics (graph backends; owned) */
    cs_coll_agg *colls;           /* finished aggregator (owned) */
    cs_collective_row *rows;      /* first CS_RESULT_MAX_COLLS instances */
    size_t nrows, caprows;
    int has_healthy;
    cs_time healthy_time;         /* --compare-healthy */
    cs_plan_row plan;             /* valid = 1 for generated plans */
    cs_gen_model model;            /* generated plans: the resolved inputs (value copies) */
    cs_device device;
    cs_gen_plan plan_cfg;
    int stragglers;               /* run.slow-ranks, run.slow-nics or run.compute-jitter were set */
    int slow_compute;             /* run.slow-ranks or run.compute-jitter (the fields below) */
    uint32_t straggle_rank;       /* ... then: the rank with the most GPU compute (the first of equals), */
    double straggle_factor;       /* its run.slow-ranks factor (1 = none), */
    cs_time median_compute;       /* and the median rank's GPU compute time */
    /* run.attribute-stragglers: per straggler item, the step without it (leave-one-out) */
    struct cs_straggler_share {
        char what[96];            /* "run.slow-ranks 5:1.5", "run.slow-nics 0:0.5", "run.compute-jitter 0.1" */
        char resource[16];        /* "GPU compute" or "NIC" */
        cs_time without;          /* the step without this item */
    } *attrib;
    size_t nattrib;
    struct cs_ingest_row {        /* generated plans with ingest.bytes-per-sample (docs/ingest.md) */
        int on;
        cs_time input_per_step;   /* rank 0's loader busy time: read + preprocess + copy of its micro-batches */
        cs_time first_batch;      /* one micro-batch's read + preprocess + copy (exposed once at the start) */
        cs_time no_input_step;    /* the same plan without the input pipeline (the compute-bound step) */
        cs_gen_ingest_times times;
        uint32_t hosts;           /* ingest hosts (= cost's storage hosts) */
    } ingest;
    cs_cost_report cost;          /* the cost and power model (cost.*; valid = 0: a figure is missing) */
    char sym_why[600];            /* why every rank was simulated ("" = symmetric or off) */
    char sym_retry[400];          /* class mode that ran after a stopped try with more axes: how many
                                     representatives that try had and why it stopped ("" = none) */
    int sym_off;                  /* symmetry was switched off */
    cs_sym_axes cls_axes;         /* class mode: the axes the run used (n = 0: not class mode) */
    double wall_s;
};

/* A result with nothing in it (owned by the caller). */
cs_result *cs_result_new(void);

#endif
