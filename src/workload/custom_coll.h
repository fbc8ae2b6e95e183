/*
 * custom_coll.h -- custom collective implementations: the Chakra ET graph
 * of send, receive and compute nodes that a rank runs in place of a
 * built-in collective algorithm (ASTRA-sim 2.0's CustomAlgorithm, MSCCL-like).
 *
 * The system JSON's `X-implementation-custom: ["PREFIX"]` (X = all-reduce,
 * all-gather, reduce-scatter, all-to-all) makes every collective of type X
 * run a custom graph: the member at position p of the communicator (the
 * rank itself on the default communicator, its index in the comm-group
 * file's list otherwise) runs PREFIX.<p>.et (or PREFIX.<p>.et.gz), whose
 * comm_src/comm_dst are positions in that communicator.  PREFIX is taken
 * relative to the working directory, as ASTRA-sim does.  The executor
 * (exec.c) runs the graphs; this module finds, loads, checks and shares them.
 *
 * Every file is read once; files with identical bytes share one graph (the
 * bytes of each distinct file are kept for the comparison: custom graphs are
 * small).  A graph is checked once per communicator size: only COMM_SEND,
 * COMM_RECV and COMP nodes (what ASTRA-sim's CustomAlgorithm issues; any
 * other node would never complete there), sends with comm_dst and receives
 * with comm_src inside the communicator.
 *
 * Ownership: the table owns its graphs; the configuration is borrowed and
 * must outlive it.
 */
#ifndef CS_WORKLOAD_CUSTOM_COLL_H
#define CS_WORKLOAD_CUSTOM_COLL_H

#include <stdint.h>

#include "core/error.h"
#include "system/custom_dim.h"
#include "system/system_config.h"
#include "workload/graph.h"

/* per-node-custom-implementation: trace node ids -> prefixes (the value
 * type; config/custom_nodes.h reads the YAML file into it).  ASTRA-sim
 * looks a collective's own trace node id up here first, before the
 * per-type keys; an id found runs that prefix's graphs whatever the
 * collective's type (all-reduce, all-gather, reduce-scatter, all-to-all). */
typedef struct cs_custom_node_map {
    char *path;       /* the YAML file (owned) */
    size_t n;
    uint64_t *ids;    /* ascending, distinct (owned) */
    char **prefix;    /* prefix[i] for ids[i] (owned) */
    int *line;        /* line of each entry (owned) */
} cs_custom_node_map;

void cs_custom_node_map_free(cs_custom_node_map *m);
/* The prefix of node id, or NULL (m may be NULL). */
const char *cs_custom_node_map_find(const cs_custom_node_map *m, uint64_t id);

typedef struct cs_custom_colls cs_custom_colls;

/* NULL when neither names a custom implementation (both may be NULL; nodes
 * is borrowed and must outlive the table). */
cs_custom_colls *cs_custom_colls_new(const cs_system_config *cfg, const cs_custom_node_map *nodes);
void cs_custom_colls_free(cs_custom_colls *c);

/* The prefix the collective of type comm_type (CS_COLL_*) issued by trace
 * node node_id runs -- the node's entry in the per-node map, else the
 * type's key -- or NULL when it runs a built-in algorithm; *key = what
 * named it ("per-node-custom-implementation" or the type's key). */
const char *cs_custom_coll_prefix(const cs_custom_colls *c, int32_t comm_type, uint64_t node_id, const char **key);

/* The checked graph that position pos of an nmembers communicator runs for
 * prefix (as cs_custom_coll_prefix returned it, named by key).  Errors
 * (missing file, a node the graph may not hold, a peer outside the
 * communicator) name the file, the node and the system key. */
int cs_custom_coll_graph(cs_custom_colls *c, const char *prefix, const char *key, uint32_t nmembers, uint32_t pos,
                         const cs_graph **out, cs_error *err);

/* custom:PREFIX entries of the *-implementation lists (system/custom_dim.h):
 * the set of PREFIX.0.et .. PREFIX.<n-1>.et for a dimension of n NPUs (each
 * graph checked as above, positions being the dimension's; PREFIX.<n>.et
 * must not exist; every file's GlobalMetadata declares the same
 * phase_bytes > 0; every send matched with its receive, of the same size),
 * converted once and kept by the table.  `what` names the system file, the
 * key and the entry in every message. */
int cs_custom_colls_dim_set(cs_custom_colls *c, const char *prefix, const char *what, uint32_t n,
                            const cs_cdim_set **out, cs_error *err);

#endif
