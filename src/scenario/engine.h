/*
 * engine.h -- one simulation: the event queue, the network backend, the
 * system and memory layers and the workload executor (workload/exec.h)
 * composed for a run, with the symmetry policy and its fallback.
 *
 * cs_engine_run drives every simulated rank's graph to completion on one
 * event queue.  When the queue empties with work left, the run fails with
 * CS_EDEADLOCK and a description of what each stuck rank waits for.
 *
 * Symmetry (cs_engine_options.symmetry, default auto): when every rank runs
 * the same graph (up to node ids), the backend is congestion-unaware and
 * exact for uncontended messages, there are no point-to-point and no
 * MEM_LOAD/STORE nodes, no BARRIER, no communicator group smaller than the
 * network and every collective's algorithms are symmetric under one group
 * operation per dimension (system/coll_algo.h), every rank can follow rank
 * 0's timeline up to a relabelling of ranks.  Then only rank 0 is simulated
 * (system/system.h, "representative mode") and its results are copied to
 * every rank: identical to the full simulation, with no per-rank state but
 * the result rows; counts are rank 0's times nranks, observers get every
 * rank's records and spans in the full run's order.  cs_engine_symmetry_check
 * (engine_symmetry.c) says whether it applies and, if not, the first
 * reason; if the representative run meets something the check could not see
 * (simultaneous events that other ranks could order another way, an error),
 * the full simulation runs instead.
 *
 * Class mode (cs_engine_options.sym_axes): the caller vouches that the
 * workload is invariant under moves along the given axes (the generator's
 * plans are); one representative per class of ranks is simulated.
 */
#ifndef CS_SCENARIO_ENGINE_H
#define CS_SCENARIO_ENGINE_H

#include <signal.h>
#include <stdint.h>

#include "compute/compute.h"
#include "core/error.h"
#include "core/time.h"
#include "memory/memory_config.h"
#include "network/network.h"
#include "system/comm_groups.h"
#include "system/system.h"
#include "system/system_config.h"
#include "topology/dims.h"
#include "workload/exec.h"
#include "workload/workload.h"

typedef struct cs_engine_options {
    const char *backend;          /* network backend name (NULL = default) */
    cs_compute_model compute;
    uint32_t comm_streams;        /* concurrent comm-engine ops per rank (default 1) */
    const cs_exec_observer *observer;
    int progress;                 /* 1 = progress lines on stderr for long runs */
    uint32_t progress_ms;         /* at most one line per this much wall time */
    const cs_memory_config *memory; /* remote memory for MEM nodes (borrowed; NULL =
                                       NO_MEMORY_EXPANSION); see memory/remote.h */
    /* System layer (collectives; see system/system.h).  All borrowed. */
    const cs_system_config *system;      /* NULL = cs_system_config_defaults */
    const cs_comm_groups *comm_groups;   /* NULL = no communicator groups */
    double injection_scale;              /* ASTRA-sim --injection-scale (1) */
    const cs_coll_observer *coll_observer; /* one record per rank and collective */
    int symmetry;                        /* CS_SYMMETRY_AUTO (default), _OFF, or _REQUIRE (as auto, but
                                            CS_EUNSUPPORTED with the reason instead of the full run) */
    /* In a symmetric run: 1 = one collective record per collective standing
     * for every member (cs_coll_record.represents); 0 = one per rank, as a
     * full run gives (rank 0's record with each rank's number, rank order). */
    int coll_records_representative;
    /* Class mode (system/system.h, cs_sym_axes): the caller vouches that the
     * workload is invariant under moves along these axes; then, unless
     * symmetry is off, one representative per class is simulated (NULL = the
     * single-representative check above).  Borrowed. */
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
    /* When set and nonzero (a signal handler's flag; borrowed), the run
     * stops within about a thousand events with CS_EINTR, and the symmetric
     * modes do not fall back to the full run. */
    const volatile sig_atomic_t *stop;
    /* Per rank (nranks entries; NULL = every rank at 0): the time its
     * roots become ready -- jobs that start later on a shared cluster
     * (scenario/cluster.h).  A nonzero start rules out the symmetric modes. */
    const cs_time *rank_start;
    /* Per rank (NULL = none): the traffic class of its messages (a cluster
     * job's traffic_class; cs_net_env.rank_tclass). */
    const uint8_t *rank_tclass;
    /* Threads for the full simulation (docs/parallel.md): <= 1 = the
     * sequential queue; more = the conservative parallel engine
     * (core/peq.h) with one partition per thread, results identical, when
     * the run allows it -- else one line on stderr says why, and it runs on
     * one thread. */
    uint32_t threads;
    /* A parallel run whose first PAR_PROBE_WINDOWS windows (engine.c) ran
     * fewer events than this per window and thread goes back to one thread,
     * saying why (0, as in zeroed options: never; the CLI passes
     * CS_PAR_MIN_EVENTS_DEFAULT unless --parallel-min-events says
     * otherwise). */
    uint32_t par_min_events;
} cs_engine_options;

/* The default of cs_engine_options.par_min_events, at the break-even
 * measured on the 2-vCPU machine of docs/parallel.md: two threads lose at
 * 2,011 events per window (a generated 1,024-GPU plan: 1.63-1.74 s against
 * 1.53 s on one) and below (a 256-GPU plan, 374: 0.40 s against 0.31 s),
 * and gain at 23,500 (the 3-D all-reduce on 4,096 NPUs: 0.10-0.13 s
 * against 0.14 s). */
#define CS_PAR_MIN_EVENTS_DEFAULT 1000

enum { CS_SYMMETRY_AUTO = 0, CS_SYMMETRY_OFF = 1, CS_SYMMETRY_REQUIRE = 2 };

typedef struct cs_engine_result {
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
} cs_engine_result;

void cs_engine_options_init(cs_engine_options *o);
/* Use a system configuration: collectives (o->system) and the compute model
 * it implies (roofline-enabled, peak-perf, local-mem-bw).  sc is borrowed. */
void cs_engine_options_set_system(cs_engine_options *o, const cs_system_config *sc);

/* Whether a run with these inputs simulates one representative rank: 1 =
 * yes, 0 = no; why gets one line saying so, or the first reason against. */
int cs_engine_symmetry_check(const cs_workload *w, const cs_network_config *net, const cs_engine_options *opt,
                             char *why, size_t whylen);

/* Class mode (opt->sym_axes): 1 = the static conditions hold (congestion-
 * unaware backend, no shared memory model, axes that divide the ranks), 0
 * = not, with the reason; the run checks the rest. */
int cs_engine_class_check(const cs_workload *w, const cs_network_config *net, const cs_engine_options *opt,
                          char *why, size_t whylen);

/* Run the workload on the network; fills *res (free with cs_engine_result_free). */
int cs_engine_run(const cs_workload *w, const cs_network_config *net, const cs_engine_options *opt,
                  cs_engine_result *res, cs_error *err);
void cs_engine_result_free(cs_engine_result *res);
/* What cs_engine_run reads and builds before its first event, without a
 * workload: the system's per-node custom implementation map and the network
 * backend, created on an empty event queue (its options and the topology
 * checked as a run checks them: backend.packet.dwrr_weights, ...) and
 * destroyed.  CS_OK or the run's own error. */
int cs_engine_check(const cs_network_config *net, const cs_engine_options *opt, cs_error *err);
/* Whether a run of nranks ranks fits in the machine's memory (core/alloc.h,
 * cs_alloc_machine_bytes) with what is in use: a lower bound of what it
 * allocates per rank -- the results of every rank, extra_per_rank more (a
 * caller's own, e.g. the workload's rank table before it is read), and the
 * exec and system state of every rank when full.  CS_OK, or CS_ENOMEM
 * naming the rank count, the bytes and (full) why every rank is simulated.
 * cs_engine_run checks it itself; a caller checks it before reading the
 * traces of a run that could not fit. */
int cs_engine_fits_machine(uint32_t nranks, const cs_network_config *net, int full, uint64_t extra_per_rank,
                           const char *why, cs_error *err);

#endif
