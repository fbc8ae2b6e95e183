/*
 * sim.h -- one simulation: the workload executor over the system, compute,
 * memory and network layers.
 *
 * cs_sim_run drives every rank's graph to completion on one event queue:
 *  - a node becomes ready when all its distinct parents have completed;
 *  - ready nodes are issued smallest id first within their resource class;
 *  - resource classes (as in ASTRA-sim): the GPU compute stream (COMP nodes,
 *    one at a time), the CPU thread (is_cpu_op COMP nodes, one at a time),
 *    and the communication engine (COMM_COLL, COMM_SEND, MEM_LOAD/STORE, one
 *    at a time by default, --comm-streams to raise it); COMM_RECV needs no
 *    resource; METADATA and INVALID nodes complete at once.  Compute and
 *    communication therefore overlap, while independent COMP nodes serialize.
 *  - COMM_SEND/RECV are matched by (src, dst, tag) in issue order and move
 *    bytes through the network backend; a send completes when its bytes have
 *    arrived, a receive when both it is posted and the bytes have arrived.
 *  - COMM_COLL goes to the system layer, MEM_* to the memory layer.
 * When the queue empties with work left, the run fails with CS_EDEADLOCK and
 * a description of what each stuck rank waits for.
 *
 * Per-rank state is a few words plus one pending-parent counter per node of
 * the rank's graph.  Observers (timeline writers) get a callback per
 * completed node.
 *
 * Symmetry (cs_sim_options.symmetry, default auto): when every rank runs the
 * same graph (up to node ids), the backend is the congestion-unaware
 * `analytical` one, there are no point-to-point and no MEM_LOAD/STORE nodes,
 * no BARRIER, no communicator group smaller than the network and every
 * collective runs ring, direct or halving-doubling (one group operation per
 * dimension), every rank can follow rank 0's timeline up to a relabelling of
 * ranks.  Then only rank 0 is simulated (system/system.h, "representative
 * mode") and its results are copied to every rank: identical to the full
 * simulation, with no per-rank state but the result rows; counts are rank
 * 0's times nranks, observers get every rank's records and spans in the full
 * run's order.  cs_sim_symmetry_check says whether it applies and, if not,
 * the first reason; if the representative run meets something the check
 * could not see (simultaneous events that other ranks could order another
 * way, an error), the full simulation runs instead.
 */
#ifndef CS_WORKLOAD_SIM_H
#define CS_WORKLOAD_SIM_H

#include <stdint.h>

#include "compute/compute.h"
#include "memory/memory_config.h"
#include "topology/dims.h"
#include "system/system_config.h"
#include "system/comm_groups.h"
#include "core/error.h"
#include "core/time.h"
#include "network/network.h"
#include "workload/workload.h"
#include "system/system.h"

/* Lanes (timeline threads) of a rank. */
enum {
    CS_LANE_COMPUTE = 1, /* GPU compute stream */
    CS_LANE_CPU = 2,     /* host CPU thread */
    CS_LANE_COMM = 3,    /* communication engine: collectives, sends, memory */
    CS_LANE_RECV0 = 4    /* receives: lanes 4.. (one per concurrently posted receive) */
};

typedef struct cs_node_span {
    uint32_t rank;
    const cs_graph *graph;
    const cs_node *node;
    cs_time start, end;
    uint32_t lane;   /* CS_LANE_*; 0 = no lane (instant nodes) */
    int32_t peer;    /* p2p peer rank, -1 otherwise */
} cs_node_span;

typedef struct cs_sim_observer {
    void (*node_done)(void *ud, const cs_node_span *span);
    void *ud;
} cs_sim_observer;

typedef struct cs_sim_options {
    const char *backend;          /* network backend name (NULL = default) */
    cs_compute_model compute;
    uint32_t comm_streams;        /* concurrent comm-engine ops per rank (default 1) */
    const cs_sim_observer *observer;
    int progress;                 /* 1 = progress line on stderr for long runs */
    const cs_memory_config *memory; /* remote memory for MEM nodes (borrowed; NULL =
                                       NO_MEMORY_EXPANSION); see memory/remote.h */
    /* System layer (collectives; see system/system.h).  All borrowed. */
    const cs_system_config *system;      /* NULL = cs_system_config_defaults */
    const cs_comm_groups *comm_groups;   /* NULL = no communicator groups */
    double injection_scale;              /* ASTRA-sim --injection-scale (1) */
    const cs_coll_observer *coll_observer; /* one record per rank and collective */
    int symmetry;                        /* CS_SYMMETRY_AUTO (default) or CS_SYMMETRY_OFF */
    /* In a symmetric run: 1 = one collective record per collective standing
     * for every member (cs_coll_record.represents); 0 = one per rank, as a
     * full run gives (rank 0's record with each rank's number, rank order). */
    int coll_records_representative;
    /* Class mode (system/system.h, cs_sym_axes): the caller vouches that the
     * workload is invariant under moves along these axes (the generator's
     * plans are); then, unless symmetry is off, one representative per class
     * is simulated (NULL = the single-representative check above).  Borrowed. */
    const cs_sym_axes *sym_axes;
    /* With sym_axes: when class mode does not apply or stops, fail with
     * CS_EUNSUPPORTED and the reason instead of simulating every rank (for
     * callers whose workload holds only the representatives' graphs). */
    int sym_no_fallback;
    /* Network backend environment (network/network.h, cs_net_env), all
     * borrowed: a link-utilization observer (NULL = none); 1 = the healthy
     * network (every link at its built bandwidth, no timed changes); the
     * backend's option struct (NULL = its defaults). */
    const cs_net_observer *net_observer;
    int net_healthy;
    const void *net_opts;
    /* When set, receives the backend's per-link statistics at the end of a
     * successful run (freed first; the caller frees it with
     * cs_net_link_report_free). */
    cs_net_link_report *link_report;
} cs_sim_options;

enum { CS_SYMMETRY_AUTO = 0, CS_SYMMETRY_OFF = 1 };

typedef struct cs_rank_result {
    cs_time finish;        /* completion of the rank's last node */
    cs_time compute;       /* GPU compute busy time */
    cs_time cpu;           /* CPU-op busy time */
    cs_time comm_busy;     /* time with at least one communication op in flight */
    uint64_t nodes;        /* nodes completed */
    uint64_t bytes_sent;   /* p2p payload bytes sent */
    uint64_t bytes_recv;   /* p2p payload bytes received */
} cs_rank_result;

typedef struct cs_sim_result {
    cs_time sim_time;            /* max finish over ranks */
    uint32_t nranks;
    cs_rank_result *ranks;       /* owned */
    uint64_t events;             /* events dispatched */
    uint64_t net_messages, net_bytes;
    uint64_t roofline_fallbacks; /* COMP nodes replayed because num_ops was absent */
    uint64_t warnings;
    cs_system_stats coll;        /* the system layer's totals (collective instances, messages,
                                    bytes, reductions) */
    int symmetric;               /* 1 = rank 0 simulated for every rank (same results); every
                                    count above but coll.collectives is then rank 0's times
                                    nranks (each rank has the same); 2 = class mode: one
                                    representative per class, counts are the
                                    representatives' times the ranks per class */
    uint32_t simulated_ranks;    /* ranks whose events ran (nranks in a full run) */
} cs_sim_result;

void cs_sim_options_init(cs_sim_options *o);
/* Use a system configuration: collectives (o->system) and the compute model
 * it implies (roofline-enabled, peak-perf, local-mem-bw).  sc is borrowed. */
void cs_sim_options_set_system(cs_sim_options *o, const cs_system_config *sc);

/* Whether a run with these inputs simulates one representative rank: 1 =
 * yes, 0 = no; why gets one line saying so, or the first reason against. */
int cs_sim_symmetry_check(const cs_workload *w, const cs_network_config *net, const cs_sim_options *opt,
                          char *why, size_t whylen);

/* Class mode (opt->sym_axes): 1 = the static conditions hold (congestion-
 * unaware backend, no shared memory model, axes that divide the ranks), 0
 * = not, with the reason; the run checks the rest. */
int cs_sim_class_check(const cs_workload *w, const cs_network_config *net, const cs_sim_options *opt,
                       char *why, size_t whylen);

/* Run the workload on the network; fills *res (free with cs_sim_result_free). */
int cs_sim_run(const cs_workload *w, const cs_network_config *net, const cs_sim_options *opt,
               cs_sim_result *res, cs_error *err);
void cs_sim_result_free(cs_sim_result *res);

/* ASTRA-sim's "exposed communication": finish minus GPU compute time. */
static inline cs_time cs_rank_exposed_comm(const cs_rank_result *r) {
    return r->finish > r->compute ? r->finish - r->compute : 0;
}

#endif
