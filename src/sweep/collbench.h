/*
 * collbench.h -- `clustersim collective`: nccl-tests for the simulator
 * (docs/collectives.md, "Measuring a collective").
 *
 * One collective of each size from min to max (times factor) on every rank
 * of the base scenario's network, with its system, backend and topology:
 * each size is a one-node trace every rank runs (written to a private
 * temporary directory, removed at the end), simulated through the scenario
 * layer; the table gives nccl-tests' columns -- size (its "size": the
 * buffer, all-gather's gathered one), count of 4-byte elements, time,
 * algbw and busbw (GB/s = 1e9 B/s, nccl-tests' factors).
 */
#ifndef CS_SWEEP_COLLBENCH_H
#define CS_SWEEP_COLLBENCH_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "core/error.h"
#include "scenario/scenario.h"

typedef struct cs_collbench_options {
    int op;                 /* CS_COLL_ALL_REDUCE, _ALL_GATHER, _REDUCE_SCATTER or _ALL_TO_ALL */
    uint64_t min_bytes, max_bytes;
    uint32_t factor;        /* >= 2 */
    const char *csv;        /* the table as CSV (atomically), or NULL */
    FILE *report;           /* the nccl-tests-style table, or NULL */
    const volatile sig_atomic_t *stop;
} cs_collbench_options;

int cs_collbench(const cs_scenario *base, const cs_collbench_options *o, cs_error *err);

#endif
