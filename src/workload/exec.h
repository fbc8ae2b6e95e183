/*
 * exec.h -- the graph executor: runs every simulated rank's Chakra graph
 * over the system, compute, memory and network layers.
 *
 * Semantics (ASTRA-sim's, see ../docs/architecture.md):
 *  - a node becomes ready when all its distinct parents have completed;
 *  - ready nodes are issued smallest id first within their resource class;
 *  - resource classes: the GPU compute stream (COMP nodes, one at a time),
 *    the CPU thread (is_cpu_op COMP nodes, one at a time), and the
 *    communication engine (COMM_COLL, COMM_SEND, MEM_LOAD/STORE, one at a
 *    time by default, comm_streams to raise it); COMM_RECV needs no
 *    resource; METADATA and INVALID nodes complete at once.  Compute and
 *    communication therefore overlap, while independent COMP nodes serialize.
 *  - COMM_SEND/RECV are matched by (src, dst, tag) in issue order and move
 *    bytes through the network backend; a send completes when its bytes have
 *    arrived, a receive when both it is posted and the bytes have arrived.
 *  - COMM_COLL goes to the system layer, MEM_* to the memory layer, except
 *    a collective whose type has a custom implementation (custom_coll.h):
 *    the executor runs the rank's custom graph in its place -- every node
 *    issued as soon as its parents are done, with no resource limit; sends
 *    and receives matched by (src, dst, tag) with the trace's point-to-point
 *    messages; COMP nodes take duration_micros (1 ns when 0) -- and the
 *    collective completes when every node of that graph has.
 *
 * Event keys: every event a rank causes is keyed (rank << 32 | counter), so
 * ties at equal times resolve by rank and then by that rank's own order; the
 * system layer draws its keys from the same counters (cs_exec_next_key).
 *
 * The executor owns per-rank state only (a few words plus one
 * pending-parent counter per node of the simulated ranks' graphs).  The
 * event queue, the layers and the result rows are the caller's: the engine
 * (scenario/engine.h) composes them, drives the queue and decides the
 * symmetry mode.  In a representative mode (CS_EXEC_REP: rank 0 alone;
 * CS_EXEC_CLASS: one rank per class, cs_system_is_rep) the executor tells
 * the system layer's symmetry guard about each event it schedules and stops
 * with a reason (cs_exec_finish) at anything the symmetry argument does not
 * cover.
 */
#ifndef CS_WORKLOAD_EXEC_H
#define CS_WORKLOAD_EXEC_H

#include <stddef.h>
#include <stdint.h>

#include "compute/compute.h"
#include "core/error.h"
#include "core/eventq.h"
#include "core/time.h"
#include "memory/memory.h"
#include "network/network.h"
#include "system/system.h"
#include "workload/workload.h"

/* Lanes (timeline threads) of a rank. */
enum {
    CS_LANE_COMPUTE = 1, /* GPU compute stream */
    CS_LANE_CPU = 2,     /* host CPU thread */
    CS_LANE_COMM = 3,    /* communication engine: collectives, sends, memory */
    CS_LANE_RECV0 = 4    /* receives: lanes 4.. (one per concurrently posted receive) */
};

/* One completed node, as observers (timeline writers) see it. */
typedef struct cs_node_span {
    uint32_t rank;
    const cs_graph *graph;
    const cs_node *node;
    cs_time start, end;
    uint32_t lane;   /* CS_LANE_*; 0 = no lane (instant nodes) */
    int32_t peer;    /* p2p peer rank, -1 otherwise */
} cs_node_span;

typedef struct cs_exec_observer {
    void (*node_done)(void *ud, const cs_node_span *span);
    void *ud;
} cs_exec_observer;

/* One rank's totals.  [0, finish] splits into four disjoint parts, by what
 * the rank runs (the first that applies): GPU compute (compute), a CPU op
 * (cpu_only), communication in flight (comm_only), nothing (idle): so
 * compute + cpu_only + comm_only + idle = finish. */
typedef struct cs_rank_result {
    cs_time finish;        /* completion of the rank's last node */
    cs_time compute;       /* GPU compute busy time */
    cs_time cpu;           /* CPU-op busy time (overlaps compute and communication) */
    cs_time comm_busy;     /* time with at least one communication op in flight */
    cs_time cpu_only;      /* a CPU op running, the GPU compute stream idle */
    cs_time comm_only;     /* communication in flight, neither GPU compute nor a CPU op */
    cs_time idle;          /* before finish, nothing running nor in flight (a delayed start) */
    uint64_t nodes;        /* nodes completed */
    uint64_t bytes_sent;   /* p2p payload bytes sent */
    uint64_t bytes_recv;   /* p2p payload bytes received */
} cs_rank_result;

/* ASTRA-sim's "exposed communication": finish minus GPU compute time (its
 * CPU ops and idle time included: = cpu_only + comm_only + idle). */
static inline cs_time cs_rank_exposed_comm(const cs_rank_result *r) {
    return r->finish > r->compute ? r->finish - r->compute : 0;
}

/* Idle over a step that ends at step_end (>= finish): idle before the
 * finish plus the wait for the slowest rank.  With it, compute + cpu_only +
 * comm_only + cs_rank_idle = step_end. */
static inline cs_time cs_rank_idle(const cs_rank_result *r, cs_time step_end) {
    return r->idle + (step_end > r->finish ? step_end - r->finish : 0);
}

typedef enum cs_exec_mode {
    CS_EXEC_FULL = 0,  /* every rank */
    CS_EXEC_REP = 1,   /* rank 0 stands for every rank */
    CS_EXEC_CLASS = 2  /* one representative per class of ranks */
} cs_exec_mode;

typedef struct cs_exec_params {
    const cs_workload *w;            /* borrowed */
    cs_eventq *q;                    /* borrowed */
    cs_compute_model compute;
    uint32_t comm_streams;           /* concurrent comm-engine ops per rank (>= 1) */
    const cs_exec_observer *observer; /* one call per completed node (NULL = none; borrowed) */
    cs_exec_mode mode;
    cs_rank_result *ranks;           /* w->nranks zeroed rows the executor fills (borrowed) */
    const cs_time *rank_start;       /* per rank: when its roots become ready (NULL = all at 0;
                                        CS_EXEC_FULL only; borrowed) */
    cs_error *err;                   /* where failures are described (borrowed) */
    /* Custom collectives (*-implementation-custom, custom_coll.h): the system
     * configuration and the communicator groups (both borrowed; NULL = none). */
    const cs_system_config *system;
    const cs_comm_groups *groups;
    /* per-node-custom-implementation, read (borrowed; NULL = none). */
    const struct cs_custom_node_map *custom_nodes;
} cs_exec_params;

typedef struct cs_exec cs_exec;

cs_exec *cs_exec_new(const cs_exec_params *p);
void cs_exec_free(cs_exec *x);
/* The loader of custom:PREFIX graph sets (system/custom_dim.h) for
 * cs_system_params.custom_dim: valid while x lives. */
const cs_cdim_loader *cs_exec_cdim_loader(cs_exec *x);

/* The system layer's key source and failure callback (ud = the executor). */
uint64_t cs_exec_next_key(void *x, uint32_t rank);
void cs_exec_fail(void *x, int rc);

/* Attach the layers (borrowed) and make every simulated rank's roots ready
 * (the simulated ranks: those cs_system_is_rep says). */
void cs_exec_start(cs_exec *x, cs_net *net, cs_system *sys, cs_memory *mem);

/* Nonzero (an error code) once the run has failed. */
int cs_exec_failed(const cs_exec *x);

/* After the queue has drained: in the full mode, work left on any rank is a
 * deadlock, described in err; in a representative mode, why gets the
 * reason the representative run does not stand for the full run ("" when
 * it does).  Returns the failure code (0 = the run is complete). */
int cs_exec_finish(cs_exec *x, char *why, size_t whylen);

/* The simulated ranks, and COMP nodes replayed because num_ops was absent. */
uint32_t cs_exec_simulated(const cs_exec *x);
uint64_t cs_exec_roofline_fallbacks(const cs_exec *x);
/* With a parallel queue (core/eventq.h): why the run stopped to run again
 * on one thread (a feature it cannot do exactly), or NULL. */
const char *cs_exec_parallel_why(const cs_exec *x);
/* The bytes a full run of this layer allocates for every rank at its start
 * (its per-rank state and index), whatever the traces hold: a lower bound
 * the engine checks against the machine's memory before such a run. */
size_t cs_exec_rank_bytes(void);
/* Nodes completed and nodes in all, over the simulated ranks (progress). */
void cs_exec_progress(const cs_exec *x, uint64_t *done, uint64_t *total);

#endif
