/*
 * graph.h -- one rank's workload as an immutable, shareable dependency graph.
 *
 * A cs_graph is built from one Chakra ET file (or by a generator) and never
 * changes afterwards, so ranks whose trace files are byte-identical share one
 * graph (cs_workload does that).  Nodes are stored sorted by Chakra id, so a
 * node's index order is its id order: ASTRA-sim and Chakra issue ready nodes
 * smallest id first, and so do we.  Dependencies are stored as a CSR list of
 * children (data and control parents merged and de-duplicated); each node
 * records how many distinct parents it waits for.
 *
 * Everything the executor needs per node is decoded once here (attributes are
 * looked up by name only while building), so simulation never touches
 * protobuf structures.
 */
#ifndef CS_WORKLOAD_GRAPH_H
#define CS_WORKLOAD_GRAPH_H

#include <stddef.h>
#include <signal.h>
#include <stdint.h>

#include "compute/compute.h"
#include "core/error.h"
#include "core/time.h"
#include "system/coll_type.h"

/* Chakra NodeType values (unknown values are kept as their number). */
enum {
    CS_NODE_INVALID = 0,
    CS_NODE_METADATA = 1,
    CS_NODE_MEM_LOAD = 2,
    CS_NODE_MEM_STORE = 3,
    CS_NODE_COMP = 4,
    CS_NODE_COMM_SEND = 5,
    CS_NODE_COMM_RECV = 6,
    CS_NODE_COMM_COLL = 7
};

/* Chakra CollectiveCommType values: CS_COLL_* (system/coll_type.h), the
 * system layer's vocabulary, numbered as Chakra numbers them. */

/* Node flags. */
enum {
    CS_NF_CPU = 1u << 0,          /* is_cpu_op = true */
    CS_NF_HAS_SRC = 1u << 1,      /* comm_src present */
    CS_NF_HAS_DST = 1u << 2,      /* comm_dst present */
    CS_NF_HAS_NUM_OPS = 1u << 3,  /* num_ops present */
    CS_NF_HAS_COMM_TYPE = 1u << 4,
    CS_NF_HAS_COMM_SIZE = 1u << 5,
    CS_NF_HAS_INVOLVED = 1u << 6, /* involved_dim present */
    CS_NF_HAS_TENSOR = 1u << 7,   /* tensor_size present */
    CS_NF_HOST_COMM = 1u << 8,    /* was a COMM_* node with is_cpu_op: now a CPU COMP node (graph.c) */
    CS_NF_DURATION_NS = 1u << 9   /* duration_us holds nanoseconds, replayed whatever the compute model
                                     (text workloads, workload/text_workload.h: their columns are ns) */
};

typedef struct cs_node {
    uint64_t id;
    uint64_t duration_us; /* duration_micros */
    uint64_t num_ops;     /* FLOPs (COMP, roofline) */
    uint64_t tensor_size; /* bytes (MEM; COMP roofline) */
    uint64_t comm_size;   /* bytes (COMM_*) */
    int32_t type;         /* Chakra NodeType (raw number) */
    int32_t comm_type;    /* CollectiveCommType */
    int32_t comm_src, comm_dst, comm_tag, comm_priority;
    uint32_t flags;
    uint32_t involved_dim; /* bit d set = dimension d involved (all set if absent) */
    uint32_t pg;           /* index into graph->pg_names; 0 = "" (default group) */
    uint32_t name;         /* offset into graph->strings */
    uint32_t nparents;     /* distinct parents present in the graph */
    uint32_t child_begin;  /* children are children[child_begin .. next node's child_begin) */
} cs_node;

typedef struct cs_graph {
    char *source;        /* file it came from (owned) */
    cs_node *nodes;      /* sorted by id */
    uint32_t nnodes;
    uint32_t *children;  /* CSR, node indices; children of i: [nodes[i].child_begin, end(i)) */
    uint32_t nchildren;
    char *strings;       /* NUL-separated names */
    size_t strings_len;
    char **pg_names;     /* pg_names[0] = "" */
    uint32_t npg;
    uint64_t missing_ctrl_deps; /* control parents absent from the file (ignored) */
    uint32_t refcount;   /* ranks sharing it */
    const struct cs_graph *base; /* non-NULL: nodes, children and strings are base's, borrowed (a view
                                    that differs from base in pg_names and peer_shift only; base outlives it) */
    int32_t peer_shift;  /* a view's point-to-point peers: base's comm_src / comm_dst of its COMM_SEND and
                            COMM_RECV nodes plus this; read them with cs_graph_comm_src / _dst.  0 otherwise */
} cs_graph;

typedef struct cs_graph_options {
    int ignore_ctrl_deps;         /* 1 = use data deps only (Chakra v1 behaviour) */
    int allow_missing_data_deps;  /* 1 = drop data parents absent from the file, with a warning */
    const volatile sig_atomic_t *stop; /* cs_workload_load: nonzero = stop between files (CS_EINTR) */
} cs_graph_options;

/* Build from a trace file (plain or gzip). */
int cs_graph_load(const char *path, const cs_graph_options *opt, cs_graph **out, cs_error *err);
/* Build from trace bytes already in memory; `name` is used in messages. */
int cs_graph_load_mem(const void *data, size_t len, const char *name, const cs_graph_options *opt,
                      cs_graph **out, cs_error *err);
void cs_graph_free(cs_graph *g);

/* Building a graph node by node from Chakra node messages, as the loaders
 * above do record by record (the same decoding, checks and messages, `name`
 * naming the source): a generator hands its nodes over without writing and
 * reading them back (gen/workload.c).  finish and free consume the builder;
 * the node messages are only read during add. */
typedef struct cs_graph_builder cs_graph_builder;
struct ChakraProtoMsg__Node; /* chakra_et.pb-c.h (workload/et.h) */
cs_graph_builder *cs_graph_builder_new(const char *name, const cs_graph_options *opt);
int cs_graph_builder_add(cs_graph_builder *gb, const struct ChakraProtoMsg__Node *pn, cs_error *err);
int cs_graph_builder_finish(cs_graph_builder *gb, cs_graph **out, cs_error *err);
void cs_graph_builder_free(cs_graph_builder *gb);

static inline uint32_t cs_graph_child_end(const cs_graph *g, uint32_t i) {
    return i + 1 < g->nnodes ? g->nodes[i + 1].child_begin : g->nchildren;
}
/* comm_src / comm_dst of node n of g as the rank sees them: a view's peers
 * are its base's moved by peer_shift (cs_graph_share). */
static inline int32_t cs_graph_comm_src(const cs_graph *g, const cs_node *n) {
    return (n->type == CS_NODE_COMM_SEND || n->type == CS_NODE_COMM_RECV) && (n->flags & CS_NF_HAS_SRC)
               ? (int32_t)((int64_t)n->comm_src + g->peer_shift) : n->comm_src;
}
static inline int32_t cs_graph_comm_dst(const cs_graph *g, const cs_node *n) {
    return (n->type == CS_NODE_COMM_SEND || n->type == CS_NODE_COMM_RECV) && (n->flags & CS_NF_HAS_DST)
               ? (int32_t)((int64_t)n->comm_dst + g->peer_shift) : n->comm_dst;
}

/* Sharing the nodes of graphs that differ only in what names ranks.  A
 * generator's ranks of one pipeline stage run one graph but for their
 * communicators' names and their point-to-point peers (the neighbouring
 * stage's rank with the same other coordinates: the rank's own moved by one
 * offset).  cs_graph_share returns a view of base that reads, node for node
 * through cs_graph_comm_src / _dst and pg_names, as g does -- g's nodes,
 * dependencies, names and attributes equal base's, and every peer of g's
 * COMM_SEND / COMM_RECV nodes is base's plus one offset -- and frees g
 * (its source and pg_names move to the view); else NULL, g untouched.  base
 * must not be a view; the view borrows base's arrays (base outlives it).
 * cs_graph_share_hash is equal for graphs cs_graph_share can match (it
 * leaves the peers and communicator names out), so a caller looks for a
 * base among the graphs of the same hash. */
uint64_t cs_graph_share_hash(const cs_graph *g);
cs_graph *cs_graph_share(const cs_graph *base, cs_graph *g);

/* The bases seen so far, for a loader or generator building one graph per
 * rank: put returns g when no earlier base matches (g then becomes one),
 * else a view of that base (g freed).  The sharer only points at the bases
 * (they must outlive it); free it when the graphs are built. */
typedef struct cs_graph_sharer cs_graph_sharer;
cs_graph_sharer *cs_graph_sharer_new(void);
cs_graph *cs_graph_sharer_put(cs_graph_sharer *sh, cs_graph *g);
void cs_graph_sharer_free(cs_graph_sharer *sh);

static inline const char *cs_graph_node_name(const cs_graph *g, const cs_node *n) {
    return g->strings + n->name;
}
/* Index of the node with this id, or UINT32_MAX. */
uint32_t cs_graph_find(const cs_graph *g, uint64_t id);

const char *cs_node_type_label(int32_t type);  /* "COMP", ..., "UNKNOWN" */
/* cs_coll_type_label: system/coll_type.h. */

/* Time of node n (a COMP node) with the compute model m, in *t: the node's
 * fields handed to cs_compute_work_time; returns a CS_COMP_* outcome. */
int cs_compute_time(const cs_compute_model *m, const cs_node *n, cs_time *t);

#endif
