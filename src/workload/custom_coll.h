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
#include "system/system_config.h"
#include "workload/graph.h"

typedef struct cs_custom_colls cs_custom_colls;

/* NULL when the configuration names no custom implementation (cfg may be NULL). */
cs_custom_colls *cs_custom_colls_new(const cs_system_config *cfg);
void cs_custom_colls_free(cs_custom_colls *c);

/* The prefix collectives of type comm_type (CS_COLL_*) run, or NULL when they
 * run a built-in algorithm; *key = the system-file key that names it. */
const char *cs_custom_coll_prefix(const cs_custom_colls *c, int32_t comm_type, const char **key);

/* The checked graph position pos of an nmembers communicator runs for
 * comm_type.  Errors (missing file, a node the graph may not hold, a peer
 * outside the communicator) name the file, the node and the system key. */
int cs_custom_coll_graph(cs_custom_colls *c, int32_t comm_type, uint32_t nmembers, uint32_t pos,
                         const cs_graph **out, cs_error *err);

#endif
