/*
 * topology.h -- the physical network graph: nodes (NPUs, NICs, switches) and
 * directed links with bandwidth and latency, plus per-link statistics.
 *
 * The physical graph is separate from the logical dimensions that collectives
 * see (the ASTRA-sim network YAML, cs_network_config): NPU i of the graph is
 * rank i of the workload (contiguous placement), and the graph decides which
 * links a transfer crosses.  Nodes 0..nnpus-1 are always the NPUs; NICs and
 * switches follow.  Links are directed: a cable is two links.
 *
 * Units: bandwidth in bytes per ns (= GB/s decimal); the builders convert
 * ASTRA-sim's "GB/s" as 2^30 bytes per GB, the way every backend does
 * (cs_gbps_to_bytes_per_ns).  Latency in picoseconds.
 *
 * Builders live in build_*.c (one per family); the JSON topology file reader
 * is src/config/topology_file.c; routing is route.h; the flow backend
 * (src/network/flow.c) accumulates link statistics into `stats`.
 *
 * Ownership: a cs_topo owns its arrays (cs_topo_free).  The flow backend
 * borrows it (cs_network_config.topology) and writes only `stats`.
 */
#ifndef CS_TOPOLOGY_TOPOLOGY_H
#define CS_TOPOLOGY_TOPOLOGY_H

#include <stdint.h>

#include "config/network_config.h"
#include "core/error.h"
#include "core/time.h"

typedef enum { CS_NODE_NPU = 0, CS_NODE_NIC = 1, CS_NODE_SWITCH = 2 } cs_node_kind;

typedef struct cs_link {
    uint32_t src, dst; /* node ids */
    double bw;         /* bytes per ns; 0 when down */
    cs_time lat;       /* ps */
    double nominal_bw; /* bytes per ns as built (before failures/degradation) */
} cs_link;

typedef struct cs_link_stats {
    uint64_t bytes;       /* payload bytes of flows that crossed the link (counted at their end) */
    cs_time busy;         /* time with at least one flow on the link */
    double peak_util;     /* max over time of (sum of flow rates) / bw */
    /* bookkeeping of the backend */
    cs_time busy_since;
    uint32_t active;
} cs_link_stats;

typedef struct cs_topo {
    char *desc;             /* one line, e.g. "fat-tree 64 NPUs, 8 leaves, 4 spines" (owned) */
    uint32_t nnodes, nnpus;
    uint8_t *kind;          /* cs_node_kind per node */
    uint32_t nlinks;
    cs_link *links;
    cs_link_stats *stats;   /* nlinks, zeroed at build */
    /* adjacency (cs_topo_finalize): outgoing / incoming links of node v are
     * out_idx[out_off[v] .. out_off[v+1]) and in_idx[in_off[v] .. in_off[v+1]) */
    uint32_t *out_off, *out_idx, *in_off, *in_idx;
    uint64_t ecmp_seed;
    size_t cap_nodes, cap_links;
} cs_topo;

/* --- building --------------------------------------------------------------- */
cs_topo *cs_topo_new(uint32_t nnpus);
uint32_t cs_topo_add_node(cs_topo *t, cs_node_kind kind);
/* One directed link; returns its id. */
uint32_t cs_topo_add_link(cs_topo *t, uint32_t src, uint32_t dst, double bw_bytes_per_ns, cs_time lat);
/* Both directions. */
void cs_topo_add_cable(cs_topo *t, uint32_t a, uint32_t b, double bw_bytes_per_ns, cs_time lat);
/* Build adjacency and zero statistics; call after the last add and after
 * changing link bandwidths. */
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
static inline int cs_link_up(const cs_link *l) { return l->bw > 0; }

const char *cs_node_kind_name(cs_node_kind k);

/* --- builders (build_*.c) ------------------------------------------------- */

/* The ASTRA-sim product of Ring/FullyConnected/Switch dimensions, with the
 * links analytical-congestion has (network.md): old configs keep working. */
cs_topo *cs_topo_build_astra(const cs_network_config *cfg);

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

#endif
