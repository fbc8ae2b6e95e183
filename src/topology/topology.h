/*
 * topology.h -- the physical network graph: nodes (NPUs, NICs, switches) and
 * directed links with bandwidth and latency.
 *
 * The physical graph is separate from the logical dimensions that collectives
 * see (the ASTRA-sim network YAML, cs_network_config): NPU i of the graph is
 * rank i of the workload (contiguous placement), and the graph decides which
 * links a transfer crosses.  Nodes 0..nnpus-1 are always the NPUs; NICs and
 * switches follow.  Links are directed: a cable is two links.
 *
 * Units: bandwidth in bytes per ns (= GB/s decimal); the builders convert
 * ASTRA-sim's "GB/s" as 2^30 bytes per GB, the way every backend does
 * (cs_gbps_to_bytes_per_ns, core/units.h).  Latency in picoseconds.
 *
 * Builders live in build_*.c (one per file, torus and mesh together), each
 * with its cs_topo_build_* function below and its entry in the registry of
 * builder.h (name, keys, build); the JSON topology file reader is
 * src/config/topology_file.c; routing is route.h.
 *
 * Ownership: a cs_topo owns its arrays (cs_topo_free).  A run borrows it
 * read-only (cs_network_config.topology, cs_net_env.topo): the flow backend
 * keeps its own bandwidths for timed changes and its own link statistics
 * (network/network.h, cs_net_report).
 */
#ifndef CS_TOPOLOGY_TOPOLOGY_H
#define CS_TOPOLOGY_TOPOLOGY_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/time.h"
#include "topology/dims.h"

typedef enum { CS_NODE_NPU = 0, CS_NODE_NIC = 1, CS_NODE_SWITCH = 2 } cs_node_kind;

typedef struct cs_link {
    uint32_t src, dst; /* node ids */
    double bw;         /* bytes per ns; 0 when down */
    cs_time lat;       /* ps */
    double nominal_bw; /* bytes per ns as built (before failures/degradation) */
} cs_link;

/* A change of the topology at a simulated time (maintenance draining, a
 * failure mid-run): from `at` on, the cable a - b (both directions), or every
 * link of node a when b == CS_TOPO_NODE, runs at `factor` x its built
 * bandwidth (0 = down, 1 = restored).  The flow backend applies them in
 * order of time (then of listing), reroutes the flows whose path went down
 * and recomputes rates. */
#define CS_TOPO_NODE UINT32_MAX
typedef struct cs_topo_change {
    cs_time at; /* ps */
    uint32_t a, b;
    double factor;
} cs_topo_change;

/* The header fields ECMP hashes (cs_topo.ecmp_fields): the source and destination NPUs, and the queue
 * pair / channel / message salt (RoCEv2's UDP source port). */
enum { CS_ECMP_SRC = 1u, CS_ECMP_DST = 2u, CS_ECMP_QP = 4u };

typedef struct cs_topo {
    char *desc;             /* one line, e.g. "fat-tree 64 NPUs, 8 leaves, 4 spines" (owned) */
    uint32_t nnodes, nnpus;
    uint8_t *kind;          /* cs_node_kind per node */
    uint32_t nlinks;
    cs_link *links;
    /* adjacency (cs_topo_finalize): outgoing / incoming links of node v are
     * out_idx[out_off[v] .. out_off[v+1]) and in_idx[in_off[v] .. in_off[v+1]) */
    uint32_t *out_off, *out_idx, *in_off, *in_idx;
    uint64_t ecmp_seed;
    unsigned ecmp_fields;   /* CS_ECMP_* bits ECMP hashes (topology file "ecmp_hash"); 0 = all of them */
    uint32_t *place;        /* rank -> NPU node (placement.c); NULL = contiguous (rank i on NPU i) */
    char placement[48];     /* the strategy as given, "" = contiguous */
    int spray;              /* routing: 0 = ECMP per (src, dst); 1 = per-message path choice (spraying) */
    uint32_t qps;           /* with spray: 0 = every message its own hash; N = QP-aware ECMP, a message
                               hashed with its queue pair (key mod N) */
    /* routing table (traffic engineering): fixed[i] routes fixed[i].src ->
     * fixed[i].dst over fixed_links[off .. off+n) (cs_topo_add_fixed_route) */
    struct cs_fixed_route { uint32_t src, dst, off, n; } *fixed;
    uint32_t nfixed;
    uint32_t *fixed_links;
    size_t cap_fixed, cap_fixed_links, nfixed_links;
    cs_topo_change *changes; /* timed changes, sorted by time (cs_topo_add_change) */
    uint32_t nchanges;
    size_t cap_nodes, cap_links, cap_changes;
} cs_topo;

/* --- building --------------------------------------------------------------- */

/* The largest topology a builder makes: 2^24 nodes and 2^24 cables (2^25
 * links), about a hundred times a 100,000-GPU rail-optimized fabric.  Every
 * builder counts its nodes and cables in 64 bits and calls
 * cs_topo_check_size before it allocates anything, so a count from a typo
 * (2e9 switches, a torus of 10^9) is refused at once instead of allocating
 * gigabytes. */
#define CS_TOPO_MAX_NODES (1u << 24)
#define CS_TOPO_MAX_CABLES (1u << 24)
/* CS_EINVAL "<what>: <nodes> nodes and <cables> cables; expected at most
 * 16777216 of each" when either passes its limit (what: the builder and the
 * counts it came from, e.g. "rail: 65536 servers x 65536 GPUs"). */
int cs_topo_check_size(const char *what, uint64_t nodes, uint64_t cables, cs_error *err);

cs_topo *cs_topo_new(uint32_t nnpus);
uint32_t cs_topo_add_node(cs_topo *t, cs_node_kind kind);
/* One directed link; returns its id. */
uint32_t cs_topo_add_link(cs_topo *t, uint32_t src, uint32_t dst, double bw_bytes_per_ns, cs_time lat);
/* Both directions. */
void cs_topo_add_cable(cs_topo *t, uint32_t a, uint32_t b, double bw_bytes_per_ns, cs_time lat);
/* Build adjacency; call after the last add. */
void cs_topo_finalize(cs_topo *t);
void cs_topo_set_desc(cs_topo *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void cs_topo_free(cs_topo *t);

/* The directed link a -> b, or UINT32_MAX. */
uint32_t cs_topo_find_link(const cs_topo *t, uint32_t a, uint32_t b);
/* Failures and degradation (from the start): factor 0 = down, 0.5 = half
 * bandwidth; applies to both directions of the cable a - b.  CS_EINVAL when
 * there is no such link.  Switch down: every link touching it. */
int cs_topo_degrade_cable(cs_topo *t, uint32_t a, uint32_t b, double factor, cs_error *err);
int cs_topo_fail_node(cs_topo *t, uint32_t v, cs_error *err);
/* A fixed route (routing table entry) over nodes[0..n): nodes[0] is the
 * source, nodes[n-1] the destination, each hop must be a link and no node
 * may appear twice (CS_EINVAL naming it: a flow crosses each link of its path
 * once).  It replaces ECMP for that pair while all its links are up (ECMP
 * otherwise).  Nothing is added when it is refused. */
int cs_topo_add_fixed_route(cs_topo *t, const uint32_t *nodes, uint32_t n, cs_error *err);
/* Timed changes (see cs_topo_change): checked (the cable or node must
 * exist, factor 0..1), kept sorted by time, stable. */
int cs_topo_add_change(cs_topo *t, cs_time at, uint32_t a, uint32_t b, double factor, cs_error *err);
/* Apply one change to a backend's own bandwidth array bw (nlinks entries;
 * the topology is not touched): bw[l] = nominal * factor for the links it
 * hits, whose ids are appended to *ids (grown with CS_GROW; *n and *cap
 * updated). */
void cs_topo_change_bw(const cs_topo *t, const cs_topo_change *c, double *bw, uint32_t **ids, size_t *n,
                       size_t *cap);
/* Edit the topology into the healthy network: every link at its built
 * bandwidth, no timed changes (outside a run; a run that only needs the
 * healthy network asks its backend for it: cs_net_env.healthy). */
void cs_topo_heal(cs_topo *t);
/* Failed (bw 0) and degraded (bw < built) links now; for reports. */
void cs_topo_count_faults(const cs_topo *t, uint32_t *down, uint32_t *degraded);
static inline int cs_link_up(const cs_link *l) { return l->bw > 0; }

const char *cs_node_kind_name(cs_node_kind k);

/* --- placement (placement.c) --------------------------------------------------- */

typedef struct cs_placement_group {
    const uint32_t *ranks;
    uint32_t n;
} cs_placement_group;
/* Set t->place from a strategy: "contiguous", "random[:SEED]" (seed 1),
 * "strided:K" (consecutive ranks K NPUs apart; K divides the NPU count) or
 * "pack" (each group, smallest first, on consecutive free NPUs in order of
 * the switch they hang off).  CS_EINVAL naming the spec otherwise. */
int cs_topo_place(cs_topo *t, const char *spec, const cs_placement_group *groups, size_t ngroups, cs_error *err);
/* The switch NPU v hangs off (directly or through its NIC; the smallest id
 * when several), or UINT32_MAX. */
uint32_t cs_topo_npu_switch(const cs_topo *t, uint32_t v);
/* Distinct switches the ranks' NPUs hang off under the current placement. */
uint32_t cs_topo_group_switches(const cs_topo *t, const uint32_t *ranks, uint32_t nranks);
static inline uint32_t cs_topo_rank_npu(const cs_topo *t, uint32_t rank) { return t->place ? t->place[rank] : rank; }

/* --- builders (build_*.c; by name with their keys: builder.h) ---------------- */

/* The ASTRA-sim product of Ring/FullyConnected/Switch dimensions, with the
 * links analytical-congestion has (network.md): old configs keep working.
 * The product of a large network can pass the limits above (FullyConnected
 * of 8192 has 33 M cables): then NULL, and cs_topo_check_astra says why
 * (CS_EINVAL naming the network file). */
cs_topo *cs_topo_build_astra(const cs_network_config *cfg);
int cs_topo_check_astra(const cs_network_config *cfg, cs_error *err);

/* Two-tier leaf-spine Clos (a folded two-tier fat-tree): npus / npus_per_leaf
 * leaves, `spines` spines, every leaf to every spine by `uplinks_per_spine`
 * parallel cables of uplink_bw.  Oversubscription = npus_per_leaf * host_bw /
 * (spines * uplinks_per_spine * uplink_bw).  spines = 0: one leaf only. */
typedef struct cs_fattree_params {
    uint32_t npus, npus_per_leaf, spines, uplinks_per_spine;
    double host_bw, uplink_bw; /* bytes per ns */
    cs_time host_lat, uplink_lat;
} cs_fattree_params;
int cs_topo_build_fattree(const cs_fattree_params *p, cs_topo **out, cs_error *err);

/* HGX/DGX-style servers on a rail-optimized Clos: each server has one
 * NVSwitch (scale-up: GPU <-> NVSwitch at nvlink_bw) and one NIC per GPU
 * (GPU <-> NIC at nic_bw); NIC i of every server connects to rail switch i
 * (rail = leaf); with spines > 0 every rail switch connects to every spine at
 * rail_uplink_bw (rails_per_... one cable each).  servers = 1 and no NICs
 * (nic_bw = 0) is a single HGX node. */
typedef struct cs_rail_params {
    uint32_t servers, gpus_per_server, spines;
    double nvlink_bw, nic_bw, spine_bw; /* bytes per ns; nic_bw 0 = no NICs */
    cs_time nvlink_lat, nic_lat, spine_lat;
} cs_rail_params;
int cs_topo_build_rail(const cs_rail_params *p, cs_topo **out, cs_error *err);

/* Three-tier Clos (pods): npus / npus_per_leaf leaves, leaves_per_pod
 * leaves per pod, each leaf to every one of its pod's aggs_per_pod
 * aggregation switches (leaf_up_bw); aggregation switch i of every pod to
 * the cores_per_agg core switches of core group i (agg_up_bw), so there are
 * aggs_per_pod * cores_per_agg cores.  Shortest paths: same leaf 1, same pod
 * aggs_per_pod, across pods aggs_per_pod * cores_per_agg.  Oversubscription
 * per tier: leaf npus_per_leaf * host_bw / (aggs_per_pod * leaf_up_bw),
 * aggregation leaves_per_pod * leaf_up_bw / (cores_per_agg * agg_up_bw). */
typedef struct cs_clos3_params {
    uint32_t npus, npus_per_leaf, leaves_per_pod, aggs_per_pod, cores_per_agg;
    double host_bw, leaf_up_bw, agg_up_bw; /* bytes per ns */
    cs_time host_lat, leaf_up_lat, agg_up_lat;
} cs_clos3_params;
int cs_topo_build_clos3(const cs_clos3_params *p, cs_topo **out, cs_error *err);

/* 1-, 2- or 3-D torus (wrap = 1) or mesh (wrap = 0) of NPUs, each a router
 * with cables to its grid neighbours (build_grid.c).  A dimension of 2 has
 * one cable, not two. */
typedef struct cs_grid_params {
    uint32_t ndims, dims[3];
    int wrap;
    double bw; /* bytes per ns */
    cs_time lat;
} cs_grid_params;
int cs_topo_build_grid(const cs_grid_params *p, cs_topo **out, cs_error *err);

/* Dragonfly (build_dragonfly.c): `groups` groups of routers_per_group routers,
 * fully connected inside the group (local_bw); npus_per_router NPUs per
 * router (host_bw); one global cable between every pair of groups
 * (global_bw), group g's cable to group o on router ((o < g ? o : o-1) /
 * global_per_router) -- needs routers * global_per_router >= groups - 1. */
typedef struct cs_dragonfly_params {
    uint32_t groups, routers_per_group, npus_per_router, global_per_router;
    double host_bw, local_bw, global_bw; /* bytes per ns */
    cs_time host_lat, local_lat, global_lat;
} cs_dragonfly_params;
int cs_topo_build_dragonfly(const cs_dragonfly_params *p, cs_topo **out, cs_error *err);

#endif
