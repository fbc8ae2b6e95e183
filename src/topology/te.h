/*
 * te.h -- centralized traffic engineering: one path per (src, dst) demand,
 * chosen to balance link load, as a controller that knows the traffic of
 * the collectives would place it (the cluster's `routings: ["te"]`,
 * docs/cluster.md).
 *
 * Demands are placed one at a time, largest first (ties: smaller src, then
 * dst).  Each takes, among the shortest paths over the links up at the
 * start, the one whose most loaded link would be least loaded after adding
 * it -- load in ns: bytes over the link's bandwidth -- found exactly on the
 * shortest-path DAG (ties: the lowest link id at each hop); its bytes then
 * count on every link of the path.  This is the greedy min-max heuristic;
 * it is not the optimum of the multi-commodity problem, but never worse than
 * the max of each demand's best path alone.
 *
 * Owns: the paths it returns (cs_te_paths_free).  Borrows: the topology.
 */
#ifndef CS_TOPOLOGY_TE_H
#define CS_TOPOLOGY_TE_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "topology/topology.h"

typedef struct cs_te_demand {
    uint32_t src, dst; /* nodes (NPUs) */
    uint64_t bytes;
} cs_te_demand;

typedef struct cs_te_paths {
    size_t n;             /* paths, one per demand with src != dst, in placement order */
    size_t *off;          /* path i is nodes[off[i] .. off[i+1]) (n + 1 entries) */
    uint32_t *nodes;
    double max_load_ns;   /* the most loaded link's bytes / bandwidth after all demands */
} cs_te_paths;

/* Place the demands (d is reordered); CS_EINVAL naming the pair when a
 * demand has no path over the links up at the start. */
int cs_te_route(const cs_topo *t, cs_te_demand *d, size_t n, cs_te_paths *out, cs_error *err);
void cs_te_paths_free(cs_te_paths *p);

#endif
