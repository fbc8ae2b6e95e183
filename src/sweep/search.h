/*
 * search.h -- `clustersim search`: the best parallelization plans of a
 * model on a cluster (docs/search.md).
 *
 * From a base scenario (model, device, network, global batch and any other
 * key) the search enumerates plans over a space (TP, PP, CP, EP, micro-
 * batch, interleaving, recomputation, ZeRO stage, placement; DP fills the
 * cluster), refuses those the generator's checks or the HBM do not allow
 * (with the reason), ranks every remaining plan by the generator's costing
 * estimate (gen/estimate.h), then simulates the best k on the scenario's
 * network backend: on clusters larger than full_limit in class mode only
 * (run.symmetry require: a plan whose full simulation would be needed is
 * skipped with the reason, and the next one is simulated, unless
 * refine_full).
 *
 * Results are deterministic: the same inputs give the same table.
 */
#ifndef CS_SWEEP_SEARCH_H
#define CS_SWEEP_SEARCH_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "core/error.h"
#include "scenario/scenario.h"

#define CS_SEARCH_MAXV 32

/* The search's objective: step time, cost per step (hardware amortized plus
 * energy) or energy per step, by the cost model (cost/cost.h); every plan
 * trains the same global batch, so per step is per token. */
enum { CS_SEARCH_BY_TIME = 0, CS_SEARCH_BY_COST = 1, CS_SEARCH_BY_ENERGY = 2 };

/* One dimension of the space: the values to try (n = 0: the default). */
typedef struct cs_search_axis {
    uint32_t n;
    uint32_t v[CS_SEARCH_MAXV];
} cs_search_axis;

typedef struct cs_search_space {
    cs_search_axis tp, pp, cp, ep, mb, vstages, recompute, zero; /* recompute: CS_RECOMP_*; zero 0..3 */
    uint32_t nplacements;                 /* 0: "tp,cp,dp,pp" and "tp,cp,pp,dp" */
    char placements[8][32];
} cs_search_space;

typedef struct cs_search_options {
    cs_search_space space;
    uint32_t top;            /* plans to simulate (0: none, estimates only) */
    int refine_full;         /* 1: simulate a top plan in full when class mode does not apply */
    uint32_t full_limit;     /* ... and so on clusters of at most this many ranks */
    const char *out_dir;     /* plans.csv (every plan) and top.csv; NULL: none */
    FILE *report;            /* the terminal table; NULL: none */
    uint32_t show;           /* rows of the estimate ranking in the report */
    int objective;           /* CS_SEARCH_BY_*: what the ranking and the simulated order minimize */
    int progress;
    uint32_t jobs;           /* worker processes simulating the best plans (<= 1: in this process);
                                the results are the same whatever the number */
    const volatile sig_atomic_t *stop;
} cs_search_options;

/* Search the plans of base (its plan.* keys other than the searched ones
 * are kept: flash attention, schedule, buckets, ...).  CS_EINVAL naming
 * the key when the base cannot be searched (no model, no global batch, no
 * network); CS_EINTR when stopped. */
int cs_search(const cs_scenario *base, const cs_search_options *o, cs_error *err);

#endif
