/*
 * network.h -- the network-backend interface (the seam of DESIGN.md).
 *
 * The system and workload layers ask the network to move `bytes` from rank
 * `src` to rank `dst` (a cs_net_msg) and are called back, through the shared
 * event queue, when the last byte has arrived.  How long that takes is the
 * backend's business: the congestion-unaware `analytical` backend computes a
 * closed form per message; `analytical-congestion` and `flow` keep link
 * state.  Every backend is a function table over opaque state, registered by
 * name (network.c, cs_net_backends), so the CLI's --backend flag and the
 * conformance test (tests/test_net_conformance.c) run the same scenario under
 * each one.
 *
 * What callers may know of a backend is its capability bits (CS_NET_*), never
 * its name.  The wrapper functions below (cs_net_*) are the only callers of
 * the table: they check NPU ranges, map ranks to NPUs by the topology's
 * placement (once, for every backend), count messages, and read the backend's
 * statistics (cs_net_report).  With CS_INVARIANTS (core/invariant.h) the
 * wrapper also watches every delivery: once per transfer, never before its
 * send, exactly uncontended_time after it for a CS_NET_EXACT_UNCONTENDED
 * backend, and every transfer delivered when a run drains
 * (cs_net_check_drained).
 *
 * Ownership: a cs_net owns its backend state; the environment (the network
 * configuration, the physical topology, the event queue, the observer) is
 * borrowed and must outlive the cs_net.  The topology is read-only for the
 * backend: a backend that changes bandwidths during a run keeps its own copy.
 * docs/architecture.md ("Adding a network backend") walks through a new one.
 */
#ifndef CS_NETWORK_NETWORK_H
#define CS_NETWORK_NETWORK_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/eventq.h"
#include "core/opts.h"
#include "core/time.h"
#include "core/units.h"
#include "topology/dims.h"

/* Called at the simulated time the transfer completed at dst. */
typedef void (*cs_net_done_fn)(void *ctx, uint64_t cookie);

/* One transfer.  src, dst: ranks at the wrapper (cs_net_send maps them to
 * NPUs by the placement), NPUs at the backend.  key: deterministic
 * tie-break for the completion event (derive from the sender and a
 * per-sender counter).  done(ctx, cookie) fires at arrival. */
typedef struct cs_net_msg {
    uint32_t src, dst;
    uint64_t bytes;
    uint64_t key;
    cs_net_done_fn done;
    void *ctx;
    uint64_t cookie;
    uint32_t channel; /* the connection (NCCL channel) it travels on: its queue pair and route on the packet
                         backend (0 from every caller: a striped message's flows are numbered by the backend) */
    uint16_t channels; /* NCCL channels it is striped over (0 or 1: one): the packet backend sends one flow
                          per channel on a connection of its own (backend.packet.channels); the others ignore it */
    uint8_t tclass;   /* traffic class (priority): the packet backend's classes (0 from the
                         workload; a cluster job's traffic_class through cs_net_env.rank_tclass) */
    uint8_t p2p;      /* 1: a point-to-point send of the workload (COMM_SEND); 0: a collective's message
                         (the packet backend's priority_of type puts the two in different classes) */
} cs_net_msg;

/* Capabilities: what a backend promises, for callers that must decide
 * something by it (the CLI, the symmetry check, the in-switch algorithm, the
 * conformance test). */
enum {
    /* Every delivery takes exactly uncontended_time from its send, whatever
     * else is in flight (no state shared between messages): the symmetric
     * run may schedule arrivals from uncontended_time alone. */
    CS_NET_EXACT_UNCONTENDED = 1u << 0,
    /* Runs on a physical graph: cs_net_env.topo, or one built from the
     * dimensions when that is NULL; the topology's placement applies. */
    CS_NET_NEEDS_TOPOLOGY = 1u << 1,
    /* send_switch is available: transfers to and from a switch (in-switch
     * collectives carry real traffic). */
    CS_NET_SWITCH_ENDPOINTS = 1u << 2,
    /* Concurrent messages share link capacity: n messages into one link
     * take at least n times as long as one. */
    CS_NET_CONGESTION_AWARE = 1u << 3,
    /* switch_book_up / switch_book_down are available: in-switch
     * collectives book the NPU's links to and from its switch (FIFO links;
     * analytical-congestion) and keep the cut-through closed form when
     * nothing else is on them. */
    CS_NET_SWITCH_BOOK = 1u << 4,
};

/* Per-link statistics (report): link ids are those of the topology the
 * backend ran on (cs_net_env.topo, or the product of the dimensions). */
typedef struct cs_net_link_stat {
    uint64_t bytes;   /* payload bytes that crossed the link (counted when a flow leaves it) */
    cs_time busy;     /* time with at least one transfer on the link */
    double peak_util; /* max over time of (sum of rates) / bandwidth, 0..1 */
    /* packet-level backends only (cs_net_link_report.packet): */
    uint64_t drops;           /* data packets dropped entering the link's queue */
    uint64_t ecn_marks;       /* data packets ECN-marked entering it */
    cs_time paused;           /* time the link's sender was paused by PFC */
    uint64_t max_queue_bytes; /* largest data queue of the link */
} cs_net_link_stat;

/* One delivered transfer (packet-level backends: cs_net_link_report.flows),
 * for flows.csv.  Times ps; src, dst NPUs. */
typedef struct cs_net_flow_row {
    uint32_t src, dst;
    uint64_t bytes;
    cs_time start, finish; /* its send; the arrival of its last byte */
    cs_time ideal;         /* uncontended_time on its route (CS_TIME_MAX: beyond the range) */
    uint64_t packets;      /* data packets of the transfer */
    uint64_t sent;         /* data packets transmitted by its sender: first times and again */
    uint64_t delivered;    /* payload bytes that reached the receiver (= bytes unless the transport loses) */
} cs_net_flow_row;

typedef struct cs_net_link_report {
    uint32_t nlinks;         /* 0: the backend keeps no per-link statistics */
    cs_net_link_stat *links; /* nlinks entries (owned: cs_net_link_report_free) */
    int packet;              /* 1: the packet-level fields are kept, and flows */
    int lossy_rows;          /* 1: a flow may complete without every byte (udp): flows.csv says how many */
    char summary[320];       /* the backend's one-line summary for reports ("" = none) */
    /* packet-level backends: the delivered transfers, up to the backend's
     * cap, and how many more were left out (owned) */
    cs_net_flow_row *flows;
    size_t nflows;
    uint64_t flows_omitted;
} cs_net_link_report;

void cs_net_link_report_free(cs_net_link_report *r);

/* Observer of link utilization: the backend calls link_util whenever a
 * link's (sum of rates) / bandwidth changes.  For Perfetto counter tracks.
 * message (optional, any backend): the network layer calls it for every
 * NPU-to-NPU transfer as it starts, with the NPUs after placement (the
 * traffic matrix of a run: traffic engineering, scenario/cluster.c). */
typedef struct cs_net_observer {
    void (*link_util)(void *ud, uint32_t link, cs_time t, double util);
    void *ud;
    void (*message)(void *ud, uint32_t src_npu, uint32_t dst_npu, uint64_t bytes);
    void *message_ud;
    /* link_queue (optional, packet-level backends): a link's data queue
     * (bytes waiting at its sender) or its PFC state changed; ud as
     * link_util's.  For Perfetto counter tracks. */
    void (*link_queue)(void *ud, uint32_t link, cs_time t, uint64_t queue_bytes, int paused);
} cs_net_observer;

struct cs_topo; /* topology/topology.h */

/* What a backend is created in.  All borrowed. */
typedef struct cs_net_env {
    const cs_network_config *cfg;    /* the dimensions (always set) */
    const struct cs_topo *topo;      /* physical graph, read-only; NULL = none given */
    cs_eventq *q;
    const cs_net_observer *observer; /* NULL = none */
    int healthy;                     /* 1: every link at its built bandwidth, no timed changes
                                        (--compare-healthy) */
    const void *opts;                /* the backend's option struct (opts_size bytes, filled
                                        through its option table); NULL = defaults */
    const uint8_t *rank_tclass;      /* per rank: the traffic class of the messages it sends, in place
                                        of each message's own (a cluster job's traffic_class); NULL =
                                        the messages' (borrowed) */
    int *halt;                       /* set by cs_net_init (the caller's value is ignored): a
                                        backend that finds the network can never progress again
                                        (a PFC deadlock) sets *halt = 1; the engine then stops the
                                        run and describe_pending says why (its first words) */
} cs_net_env;

typedef struct cs_net_backend {
    const char *name; /* --backend value */
    const char *help; /* one line for --help */
    unsigned caps;    /* CS_NET_* */
    /* The backend's own options (core/opts.h): keys, defaults, help; the
     * struct they fill is opts_size bytes.  nopts = 0: none. */
    const cs_opt *opts;
    size_t nopts, opts_size;
    /* env->opts is never NULL when nopts > 0 (the wrapper fills defaults);
     * it is read during create only. */
    int (*create)(const cs_net_env *env, void **state, cs_error *err);
    /* Start a transfer now (cs_eventq_now); m->src, m->dst are NPUs. */
    int (*send)(void *state, const cs_net_msg *m, cs_error *err);
    /* Closed-form time of one uncontended transfer between NPUs. */
    cs_time (*uncontended_time)(void *state, uint32_t src, uint32_t dst, uint64_t bytes);
    /* CS_NET_SWITCH_ENDPOINTS only (else NULL): a transfer between NPU m->src
     * and the switch where the route from m->src to NPU m->dst meets its
     * first switch; up = 1: NPU -> switch, 0: switch -> NPU. */
    int (*send_switch)(void *state, const cs_net_msg *m, int up, cs_error *err);
    /* CS_NET_SWITCH_BOOK only (else NULL): in NPU npu's Switch dimension
     * shared with NPU peer (the first dimension they differ in), book the
     * up link npu -> switch for bytes from now: returns the transmission's
     * start; book the down link switch -> npu for bytes arriving no earlier
     * than `earliest`: returns the arrival (the link is busy for the bytes'
     * serialization ending a latency before it). */
    cs_time (*switch_book_up)(void *state, uint32_t npu, uint32_t peer, uint64_t bytes);
    cs_time (*switch_book_down)(void *state, uint32_t npu, uint32_t peer, uint64_t bytes, cs_time earliest);
    /* Optional: per-link statistics so far (out is zeroed by the caller). */
    int (*report)(void *state, cs_net_link_report *out, cs_error *err);
    /* Optional: one line on what is in flight or stuck, for no-progress
     * reports ("" = nothing to say). */
    void (*describe_pending)(void *state, char *buf, size_t n);
    void (*destroy)(void *state);
} cs_net_backend;

typedef struct cs_net_stats {
    uint64_t messages; /* transfers started */
    uint64_t bytes;    /* payload bytes started */
} cs_net_stats;

typedef struct cs_net {
    const cs_net_backend *backend;
    void *state;
    const cs_network_config *cfg;
    const uint32_t *place; /* rank -> NPU (the topology's placement); NULL = identity */
    const cs_net_observer *observer; /* message: every transfer (NULL = none; borrowed) */
    const uint8_t *rank_tclass;      /* cs_net_env.rank_tclass (borrowed) */
    cs_eventq *q;
    cs_net_stats stats;
    union cs_net_pstats {  /* a parallel queue: per partition (summed by cs_net_collect_stats); else NULL */
        cs_net_stats st;
        char pad_[128];    /* (each partition writes its own at every message: no shared cache line) */
    } *pstats;
    int halted; /* the backend found that the network can never progress (cs_net_env.halt) */
#ifdef CS_INVARIANTS
    /* every transfer's delivery, checked (network.c): in-flight records,
     * what the backend accepted and what it delivered (messages, bytes) */
    struct cs_pool *inv_pool;
    void **inv_quarantine; /* the last delivered records, not reused yet */
    size_t inv_qhead, inv_qlen;
    cs_net_stats inv_started, inv_delivered;
#endif
} cs_net;

/* Registry. */
const cs_net_backend *cs_net_backend_find(const char *name);
/* NULL-terminated list of all registered backends. */
const cs_net_backend *const *cs_net_backends(void);
#define CS_NET_DEFAULT_BACKEND "analytical"
/* Whether the backend registered as `name` has every capability in caps
 * (0 for an unknown name). */
int cs_net_backend_has(const char *name, unsigned caps);

int cs_net_init(cs_net *net, const cs_net_backend *be, const cs_net_env *env, cs_error *err);
void cs_net_destroy(cs_net *net);
/* A parallel queue: add the partitions' counts into net->stats (after the run). */
void cs_net_collect_stats(cs_net *net);
static inline int cs_net_has(const cs_net *net, unsigned caps) { return (net->backend->caps & caps) == caps; }

/* Send m (src, dst: ranks).  CS_EINVAL when a rank is out of range. */
int cs_net_send(cs_net *net, const cs_net_msg *m, cs_error *err);
/* The backend's send_switch (m->src: the rank at the NPU end, m->dst: the
 * peer rank whose route names the switch); CS_EUNSUPPORTED without
 * CS_NET_SWITCH_ENDPOINTS. */
int cs_net_send_switch(cs_net *net, const cs_net_msg *m, int up, cs_error *err);
/* The backend's switch_book_up / switch_book_down (ranks; CS_NET_SWITCH_BOOK
 * only); each counts as one message of `bytes`. */
cs_time cs_net_switch_book_up(cs_net *net, uint32_t rank, uint32_t peer, uint64_t bytes);
cs_time cs_net_switch_book_down(cs_net *net, uint32_t rank, uint32_t peer, uint64_t bytes, cs_time earliest);
/* Time one transfer of `bytes` from rank src to rank dst takes alone.  Exact
 * for every transfer when the backend has CS_NET_EXACT_UNCONTENDED. */
cs_time cs_net_uncontended_time(const cs_net *net, uint32_t src, uint32_t dst, uint64_t bytes);
/* The backend's per-link statistics (nlinks = 0 when it keeps none). */
int cs_net_report(const cs_net *net, cs_net_link_report *out, cs_error *err);
/* What is in flight, one line ("" when the backend says nothing). */
void cs_net_describe_pending(const cs_net *net, char *buf, size_t n);
/* Invariant (core/invariant.h) of a run that ended with an empty event
 * queue: every transfer started was delivered, bytes injected = bytes
 * delivered.  Nothing in a build without CS_INVARIANTS. */
void cs_net_check_drained(const cs_net *net);

/* --- helpers shared by backends ------------------------------------------ */

/* cs_gbps_to_bytes_per_ns: core/units.h (included above). */
/* The graph a CS_NET_NEEDS_TOPOLOGY backend runs on: env->topo, or else the
 * ASTRA-sim product of the dimensions, built into *own (the backend frees it
 * with cs_topo_free; NULL when env->topo is used).  CS_EINVAL when the
 * product is too big to build (cs_topo_check_astra) or when the graph's NPU
 * count differs from the dimensions'. */
int cs_net_graph(const cs_net_env *env, const struct cs_topo **topo, struct cs_topo **own, cs_error *err);
/* Address of npu in dimension d (dimension 0 varies fastest). */
uint32_t cs_net_coord(const cs_network_config *cfg, uint32_t npu, int d);
/* First dimension in which a and b differ, or -1 if a == b. */
int cs_net_first_diff_dim(const cs_network_config *cfg, uint32_t a, uint32_t b);
/* Hops between coordinates ca and cb inside one dimension of the given kind. */
uint32_t cs_net_dim_hops(cs_topo_kind kind, uint32_t n, uint32_t ca, uint32_t cb);
/* A send whose arrival, ns after now, lies beyond the simulated-time range
 * (core/time.h): CS_EINVAL "takes <ns> ns (<how>): its arrival exceeds the
 * simulated-time range ..." (the wrapper adds the bytes and ranks).  Every
 * backend refuses such a send; one that finds it later, inside an event
 * (contention), does not schedule it and says so in describe_pending. */
int cs_net_beyond_error(cs_error *err, cs_time now, double ns, const char *how);

struct cs_pool; /* core/pool.h */
/* NCCL channels, for backends that model them (packet, flow): a send of m on connection conn. */
typedef int (*cs_net_conn_send_fn)(void *state, const cs_net_msg *m, uint32_t conn, cs_error *err);
/* m through one(state, ., conn): with `striped` and c = min(m->channels, m->bytes) > 1, as c messages,
 * channel i carrying bytes / c (one more for i < bytes mod c) on connection m->channel + i, whose last
 * arrival is m's (m->done once); otherwise m itself on connection m->channel.  stripes: the backend's
 * pool of cs_net_stripe_size() objects, one per striped message until its last channel arrives (freed
 * with the pool when a channel never does).  A send refused part-way returns its error; the channels
 * already on their way then complete nothing. */
int cs_net_send_striped(void *state, const cs_net_msg *m, int striped, struct cs_pool *stripes,
                        cs_net_conn_send_fn one, cs_error *err);
size_t cs_net_stripe_size(void);

#endif
