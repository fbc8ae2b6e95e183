/*
 * sweep.h -- `clustersim sweep`: run every point of a design (design.h)
 * from one base scenario, record each run's metrics (metrics.h), and write
 * the results (docs/sweep.md).
 *
 * A point's id is a hash of its effective scenario (every key, as
 * cs_scenario_to_json gives it) and the clustersim version.  Each finished
 * point is appended as one JSON line to a log in the output directory
 * (log.jsonl, or log.shard-I-of-N.jsonl); a rerun reads every log there
 * and skips the points whose id it finds, so a killed sweep loses only the
 * points in flight.  The results -- results.jsonl and results.csv, one row
 * per point in point order with every knob and every metric, and, with
 * seeds, summary.csv (mean, min, max and 95 % confidence interval over the
 * seeds of each design point) -- are rebuilt from the logs at the end of
 * every invocation, written atomically, and are the same bytes however the
 * points were run (in-order, -j N, shards, MPI).  With objectives (--pareto)
 * DIR/pareto.csv holds the points no other point beats in every objective
 * (per design point, on the means over its seeds); an invocation without
 * them removes a pareto.csv an earlier one left.
 *
 * Points run in worker processes (-j N, forked: a point that crashes or
 * runs out of memory is recorded as failed and the sweep goes on), or,
 * under mpiexec, on the MPI ranks (rank 0 hands out points one at a time
 * and runs points itself between requests; see sweep_mpi.c).
 */
#ifndef CS_SWEEP_SWEEP_H
#define CS_SWEEP_SWEEP_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "core/error.h"
#include "sweep/pareto.h"

typedef struct cs_sweep_options {
    const char *out_dir;
    uint32_t jobs;               /* worker processes, >= 1 */
    uint32_t shard, nshards;     /* run the points with index % nshards == shard (nshards >= 1) */
    int merge_only;              /* run nothing: rebuild the results from the logs */
    int retry_failed;            /* run again the points whose logged status is "error" */
    int list;                    /* print the points (index, id, knobs) to `report` and stop */
    int progress;                /* progress lines on stderr */
    uint32_t progress_ms;
    const volatile sig_atomic_t *stop; /* nonzero: stop handing out points (CS_EINTR) */
    FILE *report;                /* the end-of-sweep summary (NULL: none) */
    cs_objective objective;      /* the summary's best points by this metric (default time_ns, minimized) */
    int has_objective;           /* 0: time_ns */
    cs_objective pareto[CS_MAX_OBJECTIVES]; /* --pareto: DIR/pareto.csv, the non-dominated points */
    size_t npareto;
    const char *report_html;     /* --report: the HTML page (sweep_report.c), or NULL */
    double point_max_wall_s;     /* --point-max-wall: a point's worker is stopped past this (0 = none;
                                    local workers only) */
} cs_sweep_options;

/* Run the sweep of spec.  CS_EINTR when stopped (the results of the points
 * done are written). */
int cs_sweep(const char *spec, const cs_sweep_options *o, cs_error *err);

#endif
