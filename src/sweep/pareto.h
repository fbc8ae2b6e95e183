/*
 * pareto.h -- objectives over sweep metrics and the Pareto front of a set
 * of points (`clustersim sweep --objective`, `--pareto`; docs/sweep.md).
 *
 * An objective is a numeric metric of metrics.h, minimized, or maximized
 * with the prefix "max:" (max:throughput).  A point dominates another when
 * it is no worse in every objective and better in one; the front is the
 * points no other point dominates (equal points are all on it).
 */
#ifndef CS_SWEEP_PARETO_H
#define CS_SWEEP_PARETO_H

#include <stddef.h>

#include "core/error.h"

#define CS_MAX_OBJECTIVES 8

typedef struct cs_objective {
    size_t metric; /* index into CS_SWEEP_METRICS */
    int maximize;
} cs_objective;

/* "time_ns,max:throughput" -> objectives (at most CS_MAX_OBJECTIVES, no
 * metric twice); CS_EINVAL naming `flag`, the entry and the numeric
 * metrics when one is not known. */
int cs_objectives_parse(const char *text, const char *flag, cs_objective *obj, size_t *nobj, cs_error *err);

/* "time_ns" or "max:throughput". */
const char *cs_objective_name(const cs_objective *o, char *buf, size_t n);

/* on_front[i] = 1 for the non-dominated rows of v (n rows of k values,
 * each to be minimized; rows with a NaN are never on the front).  Returns
 * the size of the front. */
size_t cs_pareto_front(const double *v, size_t n, size_t k, int *on_front);

#endif
