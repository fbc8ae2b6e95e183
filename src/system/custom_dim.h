/*
 * custom_dim.h -- the interface through which the system layer receives the
 * graphs of a per-dimension custom collective: an entry "custom:PREFIX" of an
 * ordinary *-implementation list (docs/collectives.md, "Custom graphs per
 * dimension").  The system layer runs the graphs (algo_custom.c) but never
 * reads a Chakra file: the workload layer loads, checks and converts them
 * (workload/custom_coll.c) and hands them down through the loader below,
 * which the caller wires into cs_system_params.
 *
 * A graph set is n graphs, one per position of the dimension's group
 * (position i = the i-th NPU along the dimension).  Each node is a send, a
 * receive or a compute step; peers are positions; every send names the
 * receive node of its peer's graph it matches (the j-th send from p to q
 * with tag t, in node order, matches the j-th receive of q from p with tag
 * t), so the system matches messages without tags.  Sizes are the graph's
 * own; a phase of B bytes scales them by B / ref_bytes (rounded down).
 *
 * Ownership: the loader's owner keeps every set it returns until the system
 * is freed; the system only borrows them.
 */
#ifndef CS_SYSTEM_CUSTOM_DIM_H
#define CS_SYSTEM_CUSTOM_DIM_H

#include <stdint.h>

#include "core/error.h"

enum { CS_CDIM_SEND = 0, CS_CDIM_RECV = 1, CS_CDIM_COMP = 2 };

typedef struct cs_cdim_node {
    uint64_t id;          /* the node id in its file, for messages */
    uint64_t bytes;       /* SEND/RECV: comm_size as written (before scaling) */
    uint64_t dur_ns;      /* COMP: duration (>= 1 ns) */
    uint32_t peer;        /* SEND: destination position; RECV: source position */
    uint32_t match;       /* SEND: index of the matching RECV node in the peer's graph */
    uint32_t nparents;    /* parents within the graph */
    uint32_t child_begin; /* children are children[child_begin .. child_begin + nchildren) */
    uint32_t nchildren;
    uint8_t kind;         /* CS_CDIM_* */
} cs_cdim_node;

typedef struct cs_cdim_graph {
    const char *source;   /* the file */
    uint32_t nnodes;
    cs_cdim_node *nodes;      /* (owned by the loader's owner) */
    uint32_t *children;   /* node indices */
} cs_cdim_graph;

typedef struct cs_cdim_set {
    const char *prefix;
    uint32_t n;           /* positions = graphs */
    uint64_t ref_bytes;   /* the phase size the graphs' sizes are written for (> 0) */
    const cs_cdim_graph *g; /* g[position] */
} cs_cdim_set;

/* Load the set of `prefix` for a dimension of n NPUs; `what` names the entry
 * for messages ("system.json: all-reduce-implementation[0] \"custom:P\"").
 * CS_OK and *out, or an error naming the file, the node and what was
 * expected. */
typedef struct cs_cdim_loader {
    int (*load)(void *ud, const char *prefix, const char *what, uint32_t n, const cs_cdim_set **out,
                cs_error *err);
    void *ud;
} cs_cdim_loader;

#endif
