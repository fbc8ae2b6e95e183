/*
 * graph_job.h -- one job's graph moved into a cluster: its point-to-point
 * peers and communicator groups renamed to the cluster's, and its step
 * repeated for several iterations (scenario/cluster.h composes the jobs).
 *
 * A cs_graph is immutable; cs_graph_for_job builds a new one (the source
 * is not changed, and may be shared by other ranks of the job).
 *
 * Iterations: the step is copied `iterations` times.  Copy i's node ids are
 * i * span + id, span = (largest id) + 2, so ids stay in the same order
 * within a copy and every copy comes after the one before.  Between copy i
 * and copy i+1 sits one METADATA node, id i * span + (largest id) + 1, named
 * CS_ITERATION_BOUNDARY: every node of copy i without children is its
 * parent, and every root of copy i+1 its child.  So a rank starts its next
 * step once it has finished everything of the last one (no barrier across
 * ranks: the step's own collectives synchronize them), and the boundary's
 * completion is the end of the rank's iteration i.
 */
#ifndef CS_WORKLOAD_GRAPH_JOB_H
#define CS_WORKLOAD_GRAPH_JOB_H

#include <stdint.h>

#include "core/error.h"
#include "workload/graph.h"

#define CS_ITERATION_BOUNDARY "clustersim: end of iteration"

typedef struct cs_graph_job {
    const uint32_t *rank_map;  /* job rank -> cluster rank (nranks entries) */
    uint32_t nranks;           /* the job's ranks: comm_src / comm_dst must be below */
    const char *const *pg_map; /* per pg index of the source graph: the cluster's group name (pg 0 too) */
    uint32_t iterations;       /* >= 1 */
    uint64_t span;             /* ids per copy, >= cs_graph_iteration_span (0 = that): one span for
                                  every graph of a job, so a boundary's id says its iteration */
    const char *label;         /* the job, for messages and the graph's source ("job NAME: FILE") */
} cs_graph_job;

/* The id span of one copy (largest id + 2); 0 when copies would pass 2^64
 * ids (then cs_graph_for_job refuses). */
uint64_t cs_graph_iteration_span(const cs_graph *g, uint32_t iterations);

/* The job's graph for the cluster (new, owned by the caller); CS_EINVAL
 * naming the job, the file and the node for a peer outside the job or ids
 * past 2^64. */
int cs_graph_for_job(const cs_graph *g, const cs_graph_job *j, cs_graph **out, cs_error *err);

#endif
