/*
 * bwopt.h -- `clustersim bandwidth SPEC`: the per-dimension bandwidth split
 * of a network that serves a mix of workloads best under a budget (LIBRA,
 * Won et al. 2024), found by simulating the workloads (docs/bandwidth.md).
 *
 * The spec names the workloads (scenario files, each with a weight), the
 * budget -- GB/s per NPU summed over the varied dimensions, or the
 * network's purchase price in US$ by the cost model (cost.h) -- and the
 * objective: the weighted step time (time), or performance per dollar of
 * the whole cluster (perf-per-usd) or of its network (perf-per-network-usd),
 * where performance is 1 / weighted step time and the search may leave
 * budget unspent.
 *
 * The search runs over the shares of the budget (a simplex): every split
 * of a coarse grid, then steepest moves of one share step between two
 * dimensions, the step halved whenever no move improves, down to the
 * resolution.  Deterministic; each split is simulated once (cached).
 * Reports the best split, the uniform split (equal bandwidth on every
 * varied dimension, the whole budget) and the gain, and the scenarios' own
 * split; DIR/splits.csv lists every split simulated, DIR/best.json the
 * result.
 */
#ifndef CS_SWEEP_BWOPT_H
#define CS_SWEEP_BWOPT_H

#include <signal.h>
#include <stdio.h>

#include "core/error.h"

typedef struct cs_bwopt_options {
    const char *out_dir;               /* required */
    FILE *report;                      /* the summary (NULL: none) */
    int progress;                      /* a line per improvement on stderr */
    const volatile sig_atomic_t *stop; /* nonzero: stop (CS_EINTR) */
} cs_bwopt_options;

int cs_bwopt(const char *spec, const cs_bwopt_options *o, cs_error *err);

/* Read and check the spec and its workloads' scenarios, run nothing (the
 * fuzz target's entry); CS_EINVAL / CS_EIO with a message starting with
 * the spec's path. */
int cs_bwopt_check_spec(const char *spec, cs_error *err);

#endif
