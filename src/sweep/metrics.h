/*
 * metrics.h -- what a sweep records of each run: one table of named
 * metrics (units in the names), each read from a cs_result.  A metric that
 * does not apply to a run (plan metrics of a trace workload, link metrics
 * on an analytical backend) is absent from its row.  Adding a metric is
 * one line in metrics.c's table.
 */
#ifndef CS_SWEEP_METRICS_H
#define CS_SWEEP_METRICS_H

#include <jansson.h>
#include <stddef.h>

#include "clustersim/clustersim.h"

typedef struct cs_sweep_metric {
    const char *name;   /* column name, with its unit (_ns, _bytes, ...) */
    int numeric;        /* 1 = summarized over seeds (mean, min, max, ci95) */
    const char *help;
    /* the value (new reference), or NULL when it does not apply */
    json_t *(*get)(const cs_result *r);
} cs_sweep_metric;

extern const cs_sweep_metric CS_SWEEP_METRICS[];
extern const size_t CS_SWEEP_NMETRICS;

/* Every metric that applies, as an object in table order (new reference). */
json_t *cs_sweep_metrics(const cs_result *r);

#endif
