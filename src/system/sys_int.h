/*
 * sys_int.h -- private to src/system: the structures the system layer's files
 * share (not for other layers; system.h is the interface).
 *
 *   system.c      communicators, matching, instances, messages, bundles
 *                 (endpoint delay + local reduction) and events,
 *                 BARRIER / BROADCAST
 *   planner.c     a collective -> chunks -> phases (one algorithm on one
 *                 logical dimension each)
 *   themis.c      the offline-greedy (Themis) dimension order and chunk sizes
 *   stream.c      per-rank queues, stream admission and phase progression
 *   coll_algo.c   the registry of collective algorithms (coll_algo.h): one
 *                 function table per algorithm, listed once
 *   algo_packet.c the packet engine (css_pe_*) that ring, direct and
 *                 halving-doubling share, and the logical-topology helpers
 *   algo_ring.c, algo_direct.c, algo_hd.c  their parameters for the engine
 *   algo_dbt.c    double binary tree all-reduce
 *   algo_inswitch.c  in-switch (NVLS/SHARP-style) all-reduce, reduce-scatter,
 *                 all-gather on Switch dimensions
 *   algo_custom.c a custom graph of sends, receives and compute steps for one
 *                 dimension (custom:PREFIX; graphs handed down, custom_dim.h)
 *   symmetry.c    representative mode: the checks that keep it exact, the
 *                 relabelling of event keys, the simultaneous-event guard
 * All of src/system is owned by the system layer's maintainer.
 *
 * Memory: a collective instance holds its plan (phases per chunk, shared by
 * all members), one cs_member per rank of the communicator and one
 * cs_stream per member and chunk (80 bytes), in three allocations made by
 * the first member to issue it.  Messages in flight come from a pool; a
 * bundle travels in its event (the stream and its bytes, phase and reduction
 * flag packed in the argument: system.c) unless its bytes pass 2^46, then
 * from a pool.  Per rank the system keeps 12 bytes and one queue head per
 * dimension.  In representative mode (system.h) every per-rank array and
 * every instance has one entry: rank 0's.
 */
#ifndef CS_SYSTEM_SYS_INT_H
#define CS_SYSTEM_SYS_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#include "core/pool.h"
#include "system/coll_algo.h"
#include "system/nccl_model.h"
#include "system/system.h"

/* Collective kinds inside the system layer (the phase types of ASTRA-sim). */
enum { CT_NONE = 0, CT_RS = 1, CT_AG = 2, CT_AR = 3, CT_A2A = 4 };

/* Where a phase's logical ring/tree lives. */
enum {
    SP_DIM = 0,   /* the NPUs that differ from this rank only in dimension `dim` */
    SP_ALL = 1,   /* every NPU, in rank order (oneRing, oneDirect, oneHalvingDoubling) */
    SP_GROUP = 2, /* the members of a communicator smaller than the network, in file order */
    SP_GSTRIDE = 3 /* a communicator's members gstride apart in file order: with gstride members
                      per node, node-major, the ring of the members at one position within their
                      node (the nccl model's rails for a group of several ranks per node) */
};

typedef struct cs_phase {
    uint8_t algo;      /* index in the registry: css_phase_algo() (coll_algo.h) */
    uint8_t ctype;     /* CT_*: the collective this phase performs */
    uint8_t space;     /* SP_* */
    uint8_t dim;       /* network dimension for SP_DIM */
    uint8_t queue;     /* the rank's queue the phase waits in */
    uint8_t anticlockwise;
    uint8_t fast;      /* ASTRA-sim's "local" ring: 10 ns bundle delay, not endpoint-delay */
    uint8_t axis;      /* representative mode: the symmetric axis the phase moves along,
                          SYM_REAL = its members are all simulated (symmetry.c) */
    uint32_t n;        /* nodes of the ring / tree */
    uint32_t arg;      /* the algorithm's own (its plan hook): direct's window (messages in
                          flight, ASTRA-sim's parallel_reduce), doubleBinaryTree's tree
                          (1 = rooted at the lowest id) */
    uint32_t gstride;  /* SP_GSTRIDE: positions between a ring's members (0 otherwise) */
    uint64_t in_bytes, out_bytes;
    const void *data;  /* what the algorithm's bind hook resolved for the list entry (custom:
                          the graph set, custom_dim.h); NULL otherwise */
} cs_phase;

typedef struct cs_group cs_group;
typedef struct cs_inst cs_inst;
typedef struct cs_stream cs_stream;
typedef struct cs_msg cs_msg;

/* A communicator: all ranks (id 0, implicit) or a group of the comm-group file. */
struct cs_group {
    uint32_t id;
    uint32_t n;             /* members */
    int whole;              /* covers every NPU: members indexed by rank, network dimensions */
    const uint32_t *ranks;  /* file order (subset groups); NULL when whole */
    uint32_t *by_rank;      /* subset: sorted (rank, position) pairs, 2 x n */
    uint32_t *next_seq;     /* per member: collectives issued so far */
    const char *name;
};

/* Stream states. */
enum { ST_IDLE = 0, ST_QUEUED = 1, ST_RUNNING = 2, ST_DONE = 3 };

/* Bytes of per-stream state an algorithm may keep (css_stream_state). */
#define CSS_ALGO_STATE_BYTES 32

/* One rank's part of one chunk (ASTRA-sim's StreamBaseline + its current
 * algorithm instance).  80 bytes; member, chunk and the ring position are
 * cached so that the per-message paths divide nothing.  The current phase's
 * algorithm keeps its own state in algo_state (opaque here; each algo_*.c
 * declares its struct and asserts it fits). */
struct cs_stream {
    cs_inst *inst;
    cs_stream *qnext;     /* next in the rank's queue */
    cs_msg *early;        /* messages that arrived before their receive was posted */
    uint32_t member;      /* index in the communicator */
    uint32_t chunk;
    uint32_t ph_index;    /* inst->phases[ph_index] is the current phase */
    uint32_t idx;         /* this member's position in the current phase's ring / tree */
    uint16_t phase;       /* current phase number within the chunk */
    uint8_t state;        /* ST_* */
    union {               /* the current phase's algorithm's (zeroed when a phase starts) */
        uint64_t align_;
        unsigned char bytes[CSS_ALGO_STATE_BYTES];
    } algo_state;
};

/* One rank's part of one collective. */
typedef struct cs_member {
    cs_sys_done_fn done;
    void *ctx;
    uint64_t cookie;
    uint64_t node_id;
    const char *source;
    cs_time start;
    int32_t priority;
    uint32_t chunks_done;
    uint8_t issued, finished;
} cs_member;

/* Per-partition records of a parallel run are padded to two cache lines:
 * malloc aligns to 16 bytes only, and data of at most 64 bytes at a stride
 * of 128 never shares a line with its neighbours' (each partition writes
 * its own at every event; a shared line would move between the cores). */
#define CSS_PART_STRIDE 128

/* One partition's part of a collective instance's reference count in a
 * parallel run: holds minus releases made there (negative when it released
 * what another partition held); the sum over the partitions is the
 * sequential run's live count, taken at the barriers (system.c). */
typedef union css_plive {
    struct {
        int64_t n;
        uint8_t queued;      /* on the partition's list of instances to sum at the next barrier */
    };
    char pad_[CSS_PART_STRIDE];
} css_plive;

struct cs_inst {
    cs_inst *hnext;          /* hash chain */
    cs_system *sys;
    cs_group *grp;
    uint64_t seq;
    int32_t comm_type;       /* CS_COLL_* as issued */
    uint64_t bytes;
    uint32_t arrived, finished;
    uint32_t nmem;           /* members allocated: 1 in the single-representative mode, else grp->n */
    uint32_t nsim;           /* members simulated (that will issue): nmem, or the representatives */
    uint32_t sym_q;          /* class mode, a mirrored group: its representatives, members 0 .. q-1
                                (check_group_cls in symmetry.c); 0 otherwise */
    uint32_t nchunks;
    uint64_t live;           /* messages and bundles in flight (sequential; a parallel run counts in plive) */
    uint8_t par;             /* made in a parallel run (the system's par, at hand) */
    uint32_t *phase_begin;   /* nchunks + 1 offsets into phases */
    cs_phase *phases;
    cs_member *members;
    uint64_t *mbytes;        /* per member, bytes sent and received: [2 m], [2 m + 1] (css_member_sent,
                                css_member_recv); apart from the member records, which every message
                                would otherwise touch in a line of its own */
    cs_stream *streams;      /* member * nchunks + chunk */
    char algos[160];         /* for records, e.g. "ring,direct" or "custom:nvl,ring" */
    uint8_t nccl;            /* planned by collective-model nccl (planner.c): bundles pay step_ns and
                                no local reduction; the streams start launch_ns after the issue */
    uint64_t nccl_launch_ns, nccl_step_ns;
    uint16_t nccl_net_channels; /* collective-model nccl across nodes: the NCCL channels through a NIC
                                   (nccl-channels / GPUs, so NICs, per node of the network; at least 1) that
                                   each message is striped over (cs_net_msg.channels); 0 otherwise */
    uint32_t *phase_counts;  /* per (phase index, member) counters an algorithm may use
                                (inSwitch: contributions at the switch); css_inst_phase_counts */
    cs_time *phase_times;    /* the same shape, times (inSwitch: the latest up-link start of a line on a
                                CS_NET_SWITCH_BOOK backend, or when its last contribution arrived on
                                flow); css_inst_phase_times */
    uint32_t *phase_counts2; /* a second counter of that shape (inSwitch on flow: contributions arrived);
                                css_inst_phase_counts2 */
    void **scratch;          /* blocks of css_inst_alloc, freed with the instance */
    size_t nscratch, capscratch;
    css_plive *plive;        /* a parallel run: per partition (system.c, "instances") */
    uint64_t plive_seen;     /* the barrier that last summed plive (css_par_barrier) */
#ifdef CS_INVARIANTS
    uint64_t inv_msg_sent, inv_msg_recv; /* bytes of css_send messages put on the network / delivered */
#endif
};

/* A message in flight or waiting at its receiver (pool object). */
struct cs_msg {
    cs_inst *inst;
    cs_msg *next;            /* in the receiver stream's early list */
    uint32_t dst_member, chunk;
    uint32_t k;              /* identity: the sender's packet index (ring/direct/HD) or slot (DBT) */
    uint16_t phase;
    uint64_t bytes;
    uint32_t src_member;     /* css_send_notify: the sender, told on arrival ... */
    uint32_t src_k;          /* ... with this number; UINT32_MAX = not told (css_send) */
};

/* A packet bundle on its way through the endpoint when it does not fit in
 * its event (bytes >= 2^46, system.c), and collective-model nccl's launch
 * (pool object). */
typedef struct cs_bundle {
    cs_inst *inst;
    uint32_t member, chunk;
    uint16_t phase;
    uint8_t processed;       /* pays the local reduction after the endpoint delay */
    uint64_t bytes;
} cs_bundle;

/* A rank's queue (ASTRA-sim's active_Streams[q] + running_streams[q]). */
typedef struct cs_rankq {
    cs_stream *head;
    uint32_t running;
} cs_rankq;

typedef struct cs_rank_sys {
    int32_t priority_counter; /* LIFO/FIFO priorities */
    uint32_t round_robin;     /* roundRobin inter-dimension scheduler */
    uint32_t key_counter;     /* used when params.next_key is NULL */
} cs_rank_sys;

/* Representative mode: how the symmetry moves coordinate d of a rank. */
enum { SYM_UNSET = 0, SYM_ADD = 1 /* cyclic shift: ring, direct */, SYM_XOR = 2 /* halving-doubling */ };
/* cs_phase.axis of a phase whose members are all simulated. */
#define SYM_REAL 0xffu

/* Representative mode: pending events of one simulated rank (owner) at one
 * (time, key), by the rank whose handler inserted them in the full run. */
typedef struct sym_tie {
    struct sym_tie *next;
    cs_time t;
    uint64_t key;
    uint32_t owner;
    uint32_t tag;
    uint32_t count;
} sym_tie;

typedef struct sym_table {
    sym_tie **b;
    size_t nbuckets, n;
} sym_table;

/* Representative mode: state touched at the current instant, and by the
 * events of which cause's rank. */
#define SYM_TOK_ROOTS 4
typedef struct sym_tok {
    const void *p;
    uint32_t root[SYM_TOK_ROOTS]; /* the distinct causes' ranks seen this instant */
    uint64_t last[SYM_TOK_ROOTS]; /* the dispatch number of each cause's latest touch */
    uint32_t nroot;
    uint32_t gen; /* valid when == cs_symmetry.gen */
} sym_tok;

/* Class mode: an event pushed at the current instant with a fresh key (the
 * executor's rank << 32 | counter) by the event being dispatched.  Its key
 * names its own rank, not the cause's, but it runs after its cause in every
 * relabelling; `root`, `at` and `parent` say who caused it (css_sym_touch). */
#define SYM_ANC_MAX 256
typedef struct sym_anc {
    uint64_t key;    /* the fresh key */
    uint64_t at;     /* the dispatch number of the event that pushed it */
    uint32_t root;   /* that event's cause's rank */
    uint32_t parent; /* that event's own entry, or UINT32_MAX */
} sym_anc;

typedef struct cs_symmetry {
    /* The axes: the network's dimensions (single representative), or the
     * caller's (class mode, params.axes). */
    int cls;                  /* class mode */
    int naxes;
    uint64_t ax_stride[CS_SYM_MAX_AXES], ax_size[CS_SYM_MAX_AXES];
    uint8_t op[CS_SYM_MAX_AXES];  /* SYM_* per axis, fixed by the first phase on it */
    const char *broken;       /* why the argument stopped holding, or NULL */
    char why[320];
    sym_table by_key;         /* per (time, key): tag = the rank inserting them in the full run */
    cs_pool *tie_pool;
    sym_tok *toks;            /* open addressing, tok_cap slots (power of two) */
    size_t tok_cap, tok_used;
    uint32_t gen;
    int have_instant;
    cs_time instant;
    sym_anc anc[SYM_ANC_MAX]; /* this instant's fresh-keyed events and their causes */
    uint32_t nanc;
} cs_symmetry;

/* Themis (offline greedy) state: one per system, as ASTRA-sim's rank 0 keeps it. */
typedef struct cs_themis {
    int n;
    int order[CS_MAX_DIMS];       /* dimension numbers in the current (persistent) order */
    double elapsed[CS_MAX_DIMS];  /* load of order[i] */
    double bw[CS_MAX_DIMS];       /* GB/s as written */
    uint32_t size[CS_MAX_DIMS];
    cs_time last_reset;
    int have_reset;
} cs_themis;

/* collective-model nccl: NCCL's choice for one set of inputs, remembered
 * (planner.c; direct-mapped by a hash of the inputs; sequential runs only) */
#define CSS_NCCL_MEMO 64
#define CSS_NCCL_KEY 12  /* cs_nccl_in's fields, one 64-bit word each */
typedef struct css_nccl_memo {
    uint8_t used;
    uint64_t key[CSS_NCCL_KEY]; /* the inputs, as planner.c encodes them */
    cs_nccl_choice ch;
} css_nccl_memo;

struct cs_system {
    cs_eventq *q;
    int par;                     /* a parallel queue (below; here, beside q: the hot paths test it) */
    cs_net *net;
    uint32_t nranks;
    int rep;                     /* representative mode: rank 0 (or each class's representative,
                                    sym.cls) stands for every rank */
    uint32_t nlocal;             /* per-rank state kept: 1 with a single representative, else nranks */
    cs_system_params p;
    cs_system_config cfg;        /* copy of the configuration (strings borrowed) */
    const cs_network_config *netcfg;
    uint64_t total_npus;
    int ndims;
    uint64_t stride[CS_MAX_DIMS];
    uint64_t endpoint_delay_ns;
    double local_mem_bw;         /* bytes/s, as ASTRA-sim computes it */
    uint32_t queue_threshold;    /* active-chunks-per-dimension */
    css_nccl_memo *nccl_memo;    /* CSS_NCCL_MEMO entries, made on first use (NULL: none yet) */
    int nqueues;                 /* queues per rank (one per dimension) */
    cs_rankq *queues;            /* nranks * nqueues (communicator-queues shared) */
    int per_comm;                /* communicator-queues per-communicator: a queue per (rank, group, dimension) */
    union css_pcqtab {           /* their hash (open addressing; Q owned), one per partition of a parallel
                                    queue (each holds its own ranks' queues: partitions create them at once) */
        struct {
            struct css_pcq { uint32_t rank, grp; int q; cs_rankq *Q; } *e;
            size_t cap, n;
        };
        char pad_[CSS_PART_STRIDE];
    } *pcq;
    cs_rank_sys *ranks;
    cs_group all;                /* id 0 */
    cs_group *groups;            /* of the comm-group file */
    size_t ngroups;
    cs_inst **inst;              /* hash (group, seq) */
    size_t ninst_buckets;
    uint64_t live_instances;
    cs_pool *msg_pool, *bundle_pool;
    /* one counter per (collective type, logical dimension) for the algorithms'
     * plan hooks: which tree the next double-binary-tree phase uses (ASTRA-sim
     * keeps one logical topology per collective type) */
    uint32_t algo_counter[CS_CFG_NCOLL][CS_MAX_DIMS];
    cs_themis themis;
    cs_system_stats stats;
    cs_symmetry sym;
    _Atomic int failed;          /* (atomic: a parallel run's partitions read it while another may set it;
                                    the first to set it from 0 keeps its code and writes err, css_fail) */
    cs_error *err;               /* cs_system_new's (borrowed): the message of a failure inside an
                                    event handler (css_fail_msg) */
    /* a parallel queue (core/eventq.h, docs/parallel.md): per partition its
     * statistics and bundle pool (else both point at the ones above); the
     * instance hash behind inst_mu; messages from malloc (the receiver's
     * partition frees them); instances counted per partition (css_plive)
     * and freed at a barrier (css_par_barrier); every per-partition record
     * CSS_PART_STRIDE bytes */
    uint32_t npart;
    union css_pstats {
        cs_system_stats st;
        char pad_[CSS_PART_STRIDE];
    } *pstats;
    cs_pool **bundle_pools;
    union css_pmsg {             /* per partition: free messages (any partition's), and the slabs it made */
        struct {
            cs_msg *free;
            void **slabs;
            size_t nslabs, capslabs;
        };
        char pad_[CSS_PART_STRIDE];
    } *pmsgs;
    union css_pcheck {           /* per partition: instances it released in this window (plive queued) */
        struct {
            cs_inst **v;
            size_t n, cap;
        };
        char pad_[CSS_PART_STRIDE];
    } *pcheck;
    uint64_t barriers;           /* css_par_barrier's calls */
    cs_inst **pfree;             /* css_par_barrier's instances to free */
    size_t nfree, pfree_cap;
    pthread_mutex_t inst_mu;
    int par_unsafe;              /* set once: a feature the parallel run cannot do (par_why) */
    char par_why[256];
};

/* The barrier hook of a parallel run (system.c, "instances"). */
void css_par_barrier(void *ud);

/* The running handler's partition (0 without a parallel queue). */
static inline uint32_t css_part(const cs_system *s) { return s->par ? cs_eventq_part(s->q) : 0; }
#define CSS_STATS(s) (__builtin_expect((s)->par, 0) ? &(s)->pstats[cs_eventq_part((s)->q)].st : &(s)->stats)
#define CSS_BUNDLE_POOL(s) \
    (__builtin_expect((s)->par, 0) ? (s)->bundle_pools[cs_eventq_part((s)->q)] : (s)->bundle_pool)
/* A parallel run meets what it cannot do exactly: record why (the first
 * reason) and fail the run (the engine reruns it on one thread). */
void css_par_unsafe(cs_system *s, const char *why);

/* ---- system.c ---------------------------------------------------------- */
uint64_t css_key(cs_system *s, uint32_t rank);
void css_fail(cs_system *s, int rc);
/* Fail with cause's message (a backend's, from inside an event handler),
 * prefixed with the collective of member `member` of in: its trace file,
 * node, type, size and communicator. */
void css_fail_msg(cs_system *s, const cs_inst *in, uint32_t member, const cs_error *cause);
uint32_t css_inst_rank(const cs_inst *in, uint32_t member);
/* Members allocated (members and streams): 1 with a single representative. */
static inline uint32_t inst_nmembers(const cs_inst *in) { return in->nmem; }
static inline cs_stream *inst_stream(cs_inst *in, uint32_t member, uint32_t chunk) {
    return &in->streams[(uint64_t)member * in->nchunks + chunk];
}
static inline uint32_t stream_member(const cs_stream *st) { return st->member; }
static inline uint32_t stream_chunk(const cs_stream *st) { return st->chunk; }
static inline const cs_phase *stream_phase(const cs_stream *st) { return &st->inst->phases[st->ph_index]; }
static inline uint32_t chunk_nphases(const cs_inst *in, uint32_t chunk) {
    return in->phase_begin[chunk + 1] - in->phase_begin[chunk];
}
/* Send `bytes` from st's member to member `dst` as message (phase, k);
 * src_idx is the position, in the current phase's ring, of the member that
 * sends st its receive k (representative mode delivers the message to st as
 * coming from there; UINT32_MAX = not known). */
void css_send(cs_stream *st, uint32_t dst_member, uint32_t src_idx, uint64_t bytes, uint32_t k);
/* The same (full runs), and when the message arrives at its receiver the
 * sender's phase algorithm is told through its `arrived` hook with src_k. */
void css_send_notify(cs_stream *st, uint32_t dst_member, uint64_t bytes, uint32_t k, uint32_t src_k);
/* Zeroed memory owned by the instance (freed with it). */
void *css_inst_alloc(cs_inst *in, size_t bytes);
/* Post st's receive number k of its current phase: if that message already
 * arrived, schedule its delivery now. */
void css_post_recv(cs_stream *st, uint32_t k);
/* All chunks of a member done: called by stream.c. */
void css_member_chunk_done(cs_inst *in, uint32_t member);
void css_inst_hold(cs_inst *in);
void css_inst_release(cs_inst *in);

/* ---- planner.c --------------------------------------------------------- */
/* Build in->nchunks / phase_begin / phases (allocated with cs_malloc) for a
 * collective of type ct (CT_*) on in->grp.  `involved` = dimension mask,
 * `rr` = the issuing rank's round-robin counter.  Errors name src/node. */
int css_plan_collective(cs_system *s, cs_inst *in, int ct, uint32_t involved, uint32_t rr,
                    const char *src, uint64_t node, cs_error *err);

/* ---- themis.c ---------------------------------------------------------- */
void css_themis_init(cs_system *s);
void css_themis_maybe_reset(cs_system *s);
/* One chunk: fills map[0..n) with the dimension order, reduces *remaining by
 * the chunk's size and returns that size.  ct = CT_AR/CT_RS/CT_AG. */
uint64_t css_themis_chunk(cs_system *s, int flex, int ct, uint64_t *remaining, uint64_t recommended,
                      uint32_t involved, int *map);

/* A packet bundle of `bytes` leaves now: a "General" event reaches st after
 * the endpoint delay (10 ns when `fast`), plus the local reduction when
 * `processed` (ASTRA-sim's PacketBundle through MemBus). */
void css_stream_bundle(cs_system *s, cs_stream *st, uint64_t bytes, int processed, int fast);
/* 3 x trunc(bytes / local-mem-bw (B/s) x 1e9) ns. */
uint64_t css_stream_reduction_ns(const cs_system *s, uint64_t bytes);

/* ---- stream.c ---------------------------------------------------------- */
/* Enter the stream's next phase (or its first), as ASTRA-sim's
 * proceed_to_next_vnet_baseline. */
void css_stream_proceed(cs_system *s, cs_stream *st);

/* ---- symmetry.c (representative mode) ---------------------------------- */
void css_sym_init(cs_system *s);
void css_sym_free(cs_system *s);
/* Stop the representative run: record why (printf-style) and fail it. */
void css_sym_break(cs_system *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Check a new instance (communicator, phases) created by rank `issuer`;
 * sets each phase's axis; 0 = fine, else broken. */
int css_sym_check_inst(cs_system *s, cs_inst *in, uint32_t issuer);
/* Whether rank is simulated (cs_system_is_rep). */
int css_sym_is_rep(const cs_system *s, uint32_t rank);
/* The key the full run gives the event that rank `src` causes where the
 * representative causes one keyed `key`; src differs from the
 * representative only on ph's axis. */
uint64_t css_sym_key(const cs_system *s, const cs_phase *ph, uint32_t src, uint64_t key);
/* Rank r moved back along ph's axis by rank by's coordinate on it. */
uint32_t css_sym_back(const cs_system *s, const cs_phase *ph, uint32_t by, uint32_t r);
/* Guard: simulated rank `owner` will have an event at (t, key) inserted by
 * rank `tag`'s handler in the full run.  Breaks the run when another
 * pending event of owner has the same (t, key) and another tag: the full
 * run orders those by insertion order across ranks. */
void css_sym_tie_add(cs_system *s, uint32_t owner, cs_time t, uint64_t key, uint32_t tag);
/* The event being dispatched (now, its key) was registered for owner: forget it. */
void css_sym_tie_done(cs_system *s, uint32_t owner);
/* Class mode: ranks per class (the product of the axes' sizes). */
static inline uint32_t sym_class_size(const cs_system *s) {
    uint64_t n = 1;
    for (int a = 0; a < s->sym.naxes; a++) n *= s->sym.ax_size[a];
    return (uint32_t)n;
}
/* The token standing for rank's executor in css_sym_touch. */
static inline const void *sym_exec_token(const cs_system *s, uint32_t rank) {
    return &s->ranks[s->nlocal == 1 ? 0 : rank];
}
/* The event being dispatched acts on `what` (a stream, a dimension queue, a
 * member, the executor).  Rank x runs rank 0's events of one instant in the
 * order of their keys moved by g_x, which can swap two events whose causes'
 * ranks differ; that is harmless unless both act on the same state, so such
 * a pair breaks the run.  (Events with the same cause keep their order.) */
void css_sym_touch(cs_system *s, const void *what, const char *label);

/* ---- algorithms (coll_algo.h) ----------------------------------------- */
enum { EV_INIT = 0, EV_GENERAL = 1, EV_RECV = 2 };

/* Ring (algo_ring.c): what a communicator group runs when its list has several entries. */
extern const cs_coll_algo css_algo_ring;
/* In-switch (algo_inswitch.c): collective-model nccl's NVLS. */
extern const cs_coll_algo css_algo_inswitch;
/* Member m's byte counters (cs_inst.mbytes). */
static inline uint64_t *css_member_sent(cs_inst *in, uint32_t m) { return &in->mbytes[2 * (uint64_t)m]; }
static inline uint64_t *css_member_recv(cs_inst *in, uint32_t m) { return &in->mbytes[2 * (uint64_t)m + 1]; }
/* The algorithm a phase runs. */
static inline const cs_coll_algo *css_phase_algo(const cs_phase *ph) { return cs_coll_algo_table_[ph->algo]; }
/* The stream's per-algorithm state (CSS_ALGO_STATE_BYTES, zeroed when a phase starts). */
static inline void *css_stream_state(cs_stream *st) { return st->algo_state.bytes; }
static inline const void *css_stream_cstate(const cs_stream *st) { return st->algo_state.bytes; }
/* The instance's per (phase index, member) counters, zeroed, allocated on first use. */
uint32_t *css_inst_phase_counts(cs_inst *in);
/* The queue a stream of group grp waits in at rank for queue q (dimension):
 * the rank's own (communicator-queues shared), or the communicator's
 * (per-communicator, created on first use). */
cs_rankq *css_rq(cs_system *s, uint32_t rank, uint32_t grp, int q);
/* The same without creating it (an empty queue when there is none yet). */
const cs_rankq *css_rq_find(const cs_system *s, uint32_t rank, uint32_t grp, int q);
cs_time *css_inst_phase_times(cs_inst *in);
uint32_t *css_inst_phase_counts2(cs_inst *in);

/* What an algorithm's check hook judges: one logical dimension of a
 * collective being planned.  Messages start with `where` ("trace: node N:
 * system.json") and name the collective `coll` ("all-reduce"). */
typedef struct css_check {
    cs_system *sys;
    int ctype;          /* CT_* */
    int space;          /* SP_* */
    int dim;            /* network dimension for SP_DIM */
    uint32_t n;         /* nodes of the logical dimension (> 1) */
    const char *group;  /* the communicator's name (SP_GROUP) */
    int node_local;     /* SP_GROUP: every member in one node of dimension 0 (the nccl model checks it) */
    const char *where;  /* "FILE: node N: CONFIG" for messages; NULL: made from the three below on demand */
    const char *where_src, *where_cfg;
    uint64_t where_node;
    char *where_buf;    /* CSS_WHERE_MAX bytes for it (with where NULL) */
    const char *coll;
    const char *key;    /* the list's key, "all-reduce-implementation" */
    int entry;          /* the entry's index in the list */
} css_check;

#define CSS_WHERE_MAX 1024
/* c->where, formatted when first needed (an error message): the planner
 * leaves it to the checks, which pass on every valid run. */
static inline const char *css_check_where(const css_check *c) {
    if (c->where) return c->where;
    snprintf(c->where_buf, CSS_WHERE_MAX, "%s: node %" PRIu64 ": %s", c->where_src, c->where_node, c->where_cfg);
    return c->where_buf;
}

/* Topology helpers: this stream's index in its phase's ring and the member
 * at ring index j. */
uint32_t css_topo_index_of(const cs_system *s, uint32_t member, const cs_phase *ph);
uint32_t css_topo_member(const cs_stream *st, const cs_phase *ph, uint32_t j);

/* The packet engine (algo_packet.c) of ring, direct and halving-doubling:
 * an algorithm using it sets setup/run/recv_posted to these and `impl` to
 * its css_pe_params. */
typedef struct css_pe_params {
    int32_t (*packets)(const cs_phase *ph);   /* P: packets created at the start */
    int32_t (*nonzero)(const cs_phase *ph);   /* NZ: reduced packets per round */
    int32_t (*sends)(const cs_phase *ph);     /* sends of the phase */
    uint64_t (*bytes)(const cs_phase *ph, uint32_t k);  /* size of packet k */
    /* Ring indices of the destination of send k and the source of receive k. */
    void (*peers)(const cs_phase *ph, uint32_t idx, uint32_t k, uint32_t *dst, uint32_t *src);
    /* all-reduce: hold the second half back until the first half's n-1
     * messages are in, then send up to P at once (direct) */
    int hold_second_half;
} css_pe_params;
void css_pe_setup(cs_stream *st, const cs_phase *ph);
void css_pe_run(cs_system *s, cs_stream *st, int ev);
int css_pe_recv_posted(const cs_stream *st, uint32_t k);
/* Ring and direct: bytes / n per packet (all-gather: bytes). */
uint64_t css_pe_share_bytes(const cs_phase *ph, uint32_t k);
/* idx + delta on a ring of n (idx < n).  Inline, without a division when
 * |delta| < n (a neighbour: every ring step of the event path). */
uint32_t css_ring_step_far(uint32_t idx, uint32_t n, int64_t delta);
static inline uint32_t css_ring_step(uint32_t idx, uint32_t n, int64_t delta) {
    if (idx < n && delta < (int64_t)n && delta > -(int64_t)n) {
        int64_t r = (int64_t)idx + delta;
        if (r < 0) r += n;
        else if (r >= (int64_t)n) r -= n;
        return (uint32_t)r;
    }
    return css_ring_step_far(idx, n, delta);
}

#endif
