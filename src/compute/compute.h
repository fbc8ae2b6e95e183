/*
 * compute.h -- how long a COMP node takes.
 *
 * Two models, as in ASTRA-sim: replay (the node's duration_micros; a duration
 * of 0 counts as 1 ns, as ASTRA-sim does) and roofline (attainable FLOP/s =
 * min(peak, memory bandwidth x intensity), intensity = num_ops / tensor_size;
 * time = num_ops / attainable).  CPU nodes (is_cpu_op) are always replayed.
 * The model is a plain value owned by the simulation.  A node reaches this
 * layer as the few numbers the models read (cs_compute_work); the workload
 * layer maps its trace nodes onto them (cs_compute_time, workload/graph.h).
 */
#ifndef CS_COMPUTE_COMPUTE_H
#define CS_COMPUTE_COMPUTE_H

#include <stdint.h>

#include "core/error.h"
#include "core/time.h"

typedef struct cs_compute_model {
    int roofline;            /* 0 = replay duration_micros */
    double peak_flops;       /* FLOP/s (system JSON peak-perf is TFLOP/s) */
    double mem_bw_bytes_ps;  /* bytes/s (system JSON local-mem-bw is GB/s = 1e9 B/s) */
    /* Stragglers (run.slow-ranks, run.compute-jitter): a GPU compute node of
     * rank r takes factor[r] (NULL: 1; borrowed, one per rank) times its
     * time, times a lognormal draw of mean 1 and coefficient of variation
     * jitter_cv (0: none) that depends on (jitter_seed, rank, node id)
     * alone -- the same bytes out whatever the event order. */
    const double *rank_factor;
    double jitter_cv;
    uint64_t jitter_seed;
} cs_compute_model;

/* The model makes ranks differ (a factor or jitter is set). */
int cs_compute_has_stragglers(const cs_compute_model *m);
/* A GPU compute time t of rank's node under the stragglers (t when none);
 * saturates at CS_TIME_MAX (the caller refuses a time beyond the range). */
cs_time cs_compute_straggle(const cs_compute_model *m, uint32_t rank, uint64_t node_id, cs_time t);

/* Outcome of timing one node. */
enum {
    CS_COMP_TIMED = 0,     /* *t set */
    CS_COMP_SKIP = 1,      /* roofline node with tensor_size 0: completes at once (ASTRA-sim) */
    CS_COMP_REPLAYED = 2   /* roofline asked but num_ops absent: replayed duration instead */
};

/* What the models read of one COMP node. */
typedef struct cs_compute_work {
    uint64_t duration_us; /* recorded duration (replay) */
    uint64_t num_ops;     /* FLOPs (roofline; valid when has_num_ops) */
    uint64_t tensor_size; /* bytes (roofline intensity) */
    int is_cpu;           /* CPU node: always replayed */
    int has_num_ops;      /* num_ops was recorded */
    int duration_in_ns;   /* duration_us is in nanoseconds: replayed under either model, 0 = 1 ns (a
                             text workload's compute column, workload/text_workload.h) */
} cs_compute_work;

/* Time of the work w in *t; returns one of the CS_COMP_* outcomes.  A time
 * beyond the simulated-time range is CS_TIME_MAX (core/time.h,
 * cs_time_beyond): the caller must refuse it (replayed durations beyond the
 * range are refused when the trace is read, workload/graph.c). */
int cs_compute_work_time(const cs_compute_model *m, const cs_compute_work *w, cs_time *t);

/* Replay time of a duration in microseconds (0 -> 1 ns; CS_TIME_MAX beyond
 * the range). */
cs_time cs_compute_replay_time(uint64_t duration_us);

#endif
