/*
 * dims.h -- the network's dimensions as a value type (cs_network_config):
 * per dimension a basic topology (Ring, FullyConnected, Switch), an NPU
 * count, a link bandwidth and a hop latency, plus an optional physical graph.
 *
 * Owned by the topology layer because every layer from topology up reads it
 * (topology builders, network backends, the system layer's planner, the
 * workload executor).  The reader of the ASTRA-sim network YAML that fills
 * it lives above, in config/network_config.h, and includes this header.
 * Dimension 0 is the innermost, fastest-varying NPU index.
 */
#ifndef CS_TOPOLOGY_DIMS_H
#define CS_TOPOLOGY_DIMS_H

#include <stdint.h>

#define CS_MAX_DIMS 8

typedef enum {
    CS_TOPO_RING = 0,
    CS_TOPO_FULLY_CONNECTED = 1,
    CS_TOPO_SWITCH = 2
} cs_topo_kind;

/* Number of cs_topo_kind values. */
#define CS_TOPO_NKINDS 3

struct cs_topo; /* topology/topology.h */

typedef struct cs_network_config {
    char *path;                          /* file it was read from (owned) */
    /* Physical graph for graph-based backends (flow, packet): borrowed, never freed
     * here; NULL = the backend builds the product of the dimensions. */
    struct cs_topo *topology;
    int ndims;                           /* 1..CS_MAX_DIMS */
    cs_topo_kind topo[CS_MAX_DIMS];
    uint32_t npus[CS_MAX_DIMS];          /* >= 1 */
    double bandwidth_gbps[CS_MAX_DIMS];  /* > 0, GB/s as written */
    double latency_ns[CS_MAX_DIMS];      /* >= 0, ns */
    uint64_t total_npus;                 /* product of npus, < 2^32 */
} cs_network_config;

/* Largest supported total NPU count (product of npus_count): ranks are
 * uint32_t everywhere after the readers, so 2^32 would be 0 ranks. */
#define CS_MAX_TOTAL_NPUS UINT64_C(4294967295)

/* "Ring", "FullyConnected", "Switch" (the spelling of the network file);
 * "unknown" for any other value. */
const char *cs_topo_kind_name(cs_topo_kind k);

#endif
