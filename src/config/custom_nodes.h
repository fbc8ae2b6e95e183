/*
 * custom_nodes.h -- the file of system JSON key per-node-custom-implementation
 * (YAML): which trace nodes run which custom collective graphs.
 *
 *     # trace node id: prefix of the per-rank custom graphs
 *     12: graphs/allreduce_ring
 *     40: graphs/alltoall_pairwise
 *
 * A mapping of node ids (decimal integers 0 .. 2147483647: ASTRA-sim reads
 * them as int) to prefixes (non-empty strings), read as ASTRA-sim's
 * CollectiveImplLookup::parse_per_node_yaml_file does; each id at most once
 * (yaml-cpp would keep the last silently: we refuse).  Paths are relative to
 * the working directory, the file's and the prefixes alike (ASTRA-sim).
 * Errors carry file:line.
 *
 * The value type is the workload layer's (workload/custom_coll.h), which
 * runs the graphs.  The caller owns the struct (cs_custom_node_map_free).
 */
#ifndef CS_CONFIG_CUSTOM_NODES_H
#define CS_CONFIG_CUSTOM_NODES_H

#include <stddef.h>

#include "core/error.h"
#include "workload/custom_coll.h" /* the value type it fills: cs_custom_node_map */

/* Read path.  On failure *out is left freed (all zero). */
int cs_custom_nodes_load(const char *path, cs_custom_node_map *out, cs_error *err);
/* The same from text in memory; path labels messages and becomes out->path. */
int cs_custom_nodes_load_text(const char *path, const char *buf, size_t len, cs_custom_node_map *out, cs_error *err);

#endif
