/*
 * system.h -- the system layer: collectives on behalf of ranks.
 *
 * The workload executor hands each COMM_COLL node to the system layer as a
 * cs_coll_req and is called back when this rank's part of the collective is
 * complete.  Collectives are matched across ranks by the order in which each
 * rank issues them within a communicator (as ASTRA-sim does), never by node
 * id (ids differ between ranks).
 *
 * What happens to a collective (ASTRA-sim 2.0's system layer, re-derived;
 * docs/collectives.md has the details and every deliberate difference):
 *  - the planner (planner.c) splits it into chunks (preferred-dataset-
 *    splits) and each chunk into phases over the network dimensions
 *    (baseline or localBWAware; ascending, round-robin or Themis order);
 *  - every rank runs one stream per chunk through per-dimension queues that
 *    admit active-chunks-per-dimension streams at a time, ordered by the
 *    LIFO/FIFO/EXPLICIT priority and the intra-dimension policy (stream.c);
 *  - a phase runs one algorithm on that dimension's logical ring or tree,
 *    taken from the registry of collective algorithms (coll_algo.h): ring,
 *    direct, halving-doubling (algo_ring.c, algo_direct.c, algo_hd.c on the
 *    packet engine of algo_packet.c), double binary tree (algo_dbt.c),
 *    in-switch (algo_inswitch.c); every message goes through the network backend
 *    (cs_net_send), every step pays the endpoint delay and reductions pay
 *    3 x bytes / local-mem-bw.
 * BARRIER completes on every member when the last member arrives (ASTRA-sim
 * rejects it); BROADCAST is replayed from duration_micros (as ASTRA-sim does).
 *
 * Representative mode (params.representative; scenario/engine.c decides when
 * it applies, docs/performance.md says when): when every rank runs the same
 * graph on the default communicator over ring / direct / halving-doubling
 * and the congestion-unaware backend, every rank follows rank 0's timeline
 * up to a relabelling of ranks.  The system then simulates rank 0 alone:
 * one member and one stream per chunk per instance, one rank's queues; rank
 * 0's send k of a phase is delivered back to rank 0 as its receive k, timed
 * from the rank that sends it in the full run and keyed as that rank's event
 * would be (the key's rank moved by the symmetry).  Whatever would break
 * that argument (a communicator group, BARRIER, double binary tree, a one*
 * ring across dimensions, a dimension running both ring-like and
 * halving-doubling phases, a message taking no time, or simultaneous events
 * that other ranks could run in another order: symmetry.c) stops the run
 * with cs_system_symmetry_broken() naming it; the caller then runs the full
 * simulation.  Statistics are rank 0's
 * (cs_system_get_stats: collectives are instances, the same in both modes;
 * messages, bytes and reductions are per rank, times nranks in a full run).
 *
 * Ownership: the caller owns the configurations given in cs_system_params;
 * they must outlive the cs_system.  The system owns its instances, pools and
 * per-rank queues.  Events are keyed through params.next_key (rank and a
 * per-rank counter), so ties resolve by what the events are.
 */
#ifndef CS_SYSTEM_SYSTEM_H
#define CS_SYSTEM_SYSTEM_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/eventq.h"
#include "network/network.h"
#include "system/coll_type.h"
#include "system/comm_groups.h"
#include "system/custom_dim.h"
#include "system/system_config.h"
#include "topology/dims.h"

typedef void (*cs_sys_done_fn)(void *ctx, uint64_t cookie);

typedef struct cs_coll_req {
    uint32_t rank;
    int32_t comm_type;     /* CS_COLL_* (system/coll_type.h) */
    uint64_t bytes;        /* comm_size */
    const char *pg_name;   /* communicator ("" or NULL = all ranks); resolved by the system */
    uint32_t involved_dim; /* bit mask (bit d = dimension d) */
    int32_t priority;      /* comm_priority (EXPLICIT scheduling policy) */
    uint64_t node_id;
    uint64_t duration_us;  /* for replayed collectives */
    const char *source;    /* trace file, for messages */
} cs_coll_req;

/* One rank's part of one collective, reported when it completes. */
typedef struct cs_coll_record {
    uint32_t rank;
    uint64_t node_id;
    int32_t comm_type;       /* CS_COLL_* */
    uint64_t bytes;          /* comm_size as issued */
    uint32_t group_id;       /* communicator id (0 = all ranks) */
    uint32_t nmembers;       /* ranks in the communicator */
    uint64_t seq;            /* issue number within the communicator */
    uint32_t chunks;         /* streams the collective was split into */
    uint32_t phases;         /* phases of the first chunk */
    const char *algorithms;  /* e.g. "ring,ring,ring" (per logical dimension) */
    cs_time start, end;
    uint64_t bytes_sent;     /* by this rank, payload */
    uint64_t bytes_recv;     /* by this rank, payload */
    uint32_t represents;     /* ranks this record stands for: 1, or in representative mode
                                every member (rank 0's record; the others' are the same
                                but for their rank), in class mode the members of this
                                communicator the representative mirrors (n, n / q or 1) */
} cs_coll_record;

typedef struct cs_coll_observer {
    void (*coll_done)(void *ud, const cs_coll_record *rec);
    void *ud;
} cs_coll_observer;

/* Class mode of the representative run.  Rank x has coordinate
 * (x / stride[a]) % size[a] on axis a; the ranks whose coordinates are 0 on
 * every axis are the representatives, one per class, and rank x belongs to
 * the class of x with its axis coordinates set to 0.  The caller promises
 * that the workload is invariant under moves along the axes (rank x's graph
 * is its representative's with every rank named in it moved the same way);
 * the generator's plans are (gen/gen.h).  Each
 * representative is simulated; a collective on a communicator group whose
 * members lie on one axis through a representative (in file order: member j
 * at coordinate j) is mirrored as in the single-representative mode, one of
 * q whole orbits of an axis (member j = member j mod q moved j / q steps,
 * members 0 .. q-1 representatives) by redirecting each message for a
 * non-simulated member to its representative (symmetry.c); a
 * communicator group of representatives only runs for real, as do
 * point-to-point messages between representatives; anything else stops the
 * run (the caller then simulates every rank). */
#define CS_SYM_MAX_AXES 8
typedef struct cs_sym_axes {
    int n;
    uint32_t stride[CS_SYM_MAX_AXES];
    uint32_t size[CS_SYM_MAX_AXES];
} cs_sym_axes;

typedef struct cs_system_params {
    const cs_system_config *config;   /* NULL = cs_system_config_defaults */
    const cs_network_config *network; /* dimensions (required) */
    const cs_comm_groups *groups;     /* --comm-group-configuration; NULL = none */
    double injection_scale;           /* ASTRA-sim --injection-scale (0 = 1) */
    /* Event keys: rank << 32 | per-rank counter, shared with the executor so
     * that one rank's events at one instant run in the order they were made.
     * NULL = the system keeps its own counters. */
    uint64_t (*next_key)(void *ud, uint32_t rank);
    void *key_ud;
    /* A failure inside an event handler (rare: backend errors); its message
     * is in cs_system_new's err by then. */
    void (*fail)(void *ud, int rc);
    void *fail_ud;
    const cs_coll_observer *observer; /* per rank and collective; may be NULL */
    /* Simulate rank 0 alone as the representative of every rank (see above). */
    int representative;
    /* With representative: the symmetric axes of class mode (see
     * cs_sym_axes); NULL = rank 0 for every rank, the network's dimensions
     * as axes. */
    const struct cs_sym_axes *axes;
    /* The graphs of custom:PREFIX entries of the *-implementation lists
     * (custom_dim.h), loaded by the layer that reads Chakra files; NULL = such
     * an entry is an error when a collective reaches it. */
    const cs_cdim_loader *custom_dim;
} cs_system_params;

/* Totals over the run (conservation: bytes_sent == bytes_recv at the end). */
typedef struct cs_system_stats {
    uint64_t collectives;  /* instances completed */
    uint64_t messages;     /* collective messages sent */
    uint64_t bytes_sent, bytes_recv;
    uint64_t reductions;   /* bundles that paid the local reduction */
} cs_system_stats;

typedef struct cs_system cs_system;

/* err receives the setup errors and, later, the message of a failure inside
 * an event handler (a transfer the network refuses: no route, beyond the
 * simulated-time range), prefixed with the trace node of the collective,
 * before params.fail is called: it is borrowed and must outlive the system
 * (the executor passes its run's error). */
int cs_system_new(cs_eventq *q, cs_net *net, uint32_t nranks, const cs_system_params *p,
                  cs_system **out, cs_error *err);
void cs_system_free(cs_system *s);

/* Start rank req->rank's part of a collective now; done(ctx, cookie) fires
 * when it is complete (possibly from inside this call's later events, never
 * from inside this call).  Errors name the trace file and node. */
int cs_system_collective(cs_system *s, const cs_coll_req *req, cs_sys_done_fn done, void *ctx,
                         uint64_t cookie, cs_error *err);

const cs_system_stats *cs_system_get_stats(const cs_system *s);
/* With a parallel queue: add the partitions' counts into the statistics
 * (after the run). */
void cs_system_collect_stats(cs_system *s);
/* With a parallel queue (core/eventq.h): why the run stopped to run again
 * on one thread (a feature it cannot do exactly), or NULL. */
const char *cs_system_parallel_why(const cs_system *s);

/* A collective the workload runs itself (a custom graph, workload/custom_coll.h)
 * keeps the communicator's one numbering: cs_system_take_seq resolves
 * pg_name as cs_system_collective does (errors: an unknown group, a rank
 * outside it; the caller adds the trace location) and takes rank's next
 * issue number on it -> *group_id, *seq; cs_system_report hands the
 * collective's record to the observer.  Full runs only. */
int cs_system_take_seq(cs_system *s, uint32_t rank, const char *pg_name, uint32_t *group_id, uint64_t *seq,
                       cs_error *err);
void cs_system_report(cs_system *s, const cs_coll_record *rec);

/* Representative mode: NULL while the symmetry argument holds, else why it
 * stopped holding (the run has then failed with CS_EUNSUPPORTED). */
const char *cs_system_symmetry_broken(const cs_system *s);

/* Representative mode: the executor's own events of rank 0 (compute) go
 * through the same guard as the system's: register each when it is pushed,
 * and call cs_system_sym_dispatch first thing in its handler.  No effect in
 * a full run. */
void cs_system_sym_event(cs_system *s, uint32_t owner, cs_time t, uint64_t key, uint32_t inserter);
void cs_system_sym_dispatch(cs_system *s, uint32_t owner);
/* The bytes the system layer allocates for every rank of a full run on a
 * network of ndims dimensions at its start (queues, rank state, the
 * all-ranks communicator's counters): a lower bound for the engine's check
 * of the machine's memory. */
size_t cs_system_rank_bytes(int ndims);
/* Whether rank is simulated: every rank in a full run, rank 0 in the
 * single-representative mode, the representatives in class mode. */
int cs_system_is_rep(const cs_system *s, uint32_t rank);
/* Class mode: the representative of rank's class. */
uint32_t cs_system_rep_of(const cs_system *s, uint32_t rank);
/* rank with its coordinates on the axes set to 0: its class representative. */
uint32_t cs_sym_axes_rep(const cs_sym_axes *ax, uint32_t rank);
/* Cuts each axis to its part inside the outermost network dimension it
 * touches (a move along the whole axis would carry a server's pairs across
 * servers; symmetry.c says why the part is exact), dropping axes left with
 * one rank; returns the axes left. */
int cs_sym_axes_fit(cs_sym_axes *ax, const cs_network_config *net);
/* Removes the axis with the most ranks (the later one of equal size): the
 * next try after a stopped class-mode run.  Returns its former index, -1
 * when there was none. */
int cs_sym_axes_drop_largest(cs_sym_axes *ax);
/* Representative mode: the rank whose event has cause rank v where rank 0's
 * has cause rank `root` (v = g_r(root), so r = v moved back by root).  The
 * full run completes one instant's work of all ranks in the order of v, so
 * a caller reporting per-rank copies (records, timeline spans) of rank 0's
 * work at one instant walks v = 0 .. nranks-1 and reports for this rank. */
uint32_t cs_system_sym_rank(const cs_system *s, uint32_t v, uint32_t root);

/* Deadlock report (core/waitfor.h): add the system layer's waits at a stop
 * to g.  Every rank's collective in flight is a CS_WV_NODE vertex (rank,
 * node id) waiting for its unfinished chunks (CS_WV_STREAM); a queued chunk
 * waits for the chunks its dimension queue admitted; a running chunk waits
 * for the members of its phase's ring that have not reached the phase, or
 * for a CS_WV_ISSUE vertex (rank, communicator id, number) of a member that
 * has not issued the collective: the caller adds that vertex's waits.  A
 * full run only. */
struct cs_wfg;
void cs_system_add_waits(const cs_system *s, struct cs_wfg *g);
/* The id of the communicator a node's pg_name names (0 = every rank), or
 * UINT32_MAX when it names none. */
uint32_t cs_system_group_id(const cs_system *s, const char *pg_name);
/* "ALL_REDUCE#3 of communicator 1": collective seq of communicator `group` (live). */
void cs_system_coll_name(const cs_system *s, uint32_t group, uint64_t seq, char *buf, size_t n);
/* active-chunks-per-dimension as the queues apply it. */
uint32_t cs_system_queue_limit(const cs_system *s);
/* Whether every communicator has its own queues (communicator-queues per-communicator). */
int cs_system_per_comm_queues(const cs_system *s);

#endif
