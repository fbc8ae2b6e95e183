/*
 * memory_config.h -- the remote-memory parameters as a value type
 * (cs_memory_config): memory architecture, latency, bandwidth and the node
 * geometry of PER_NODE_MEMORY_EXPANSION.
 *
 * Owned by the memory layer (memory/remote.h models it).  The reader of the
 * ASTRA-sim remote-memory JSON that fills it lives above, in
 * config/memory_config.h, and includes this header.
 */
#ifndef CS_MEMORY_MEMORY_CONFIG_H
#define CS_MEMORY_MEMORY_CONFIG_H

typedef enum {
    CS_MEM_NO_EXPANSION = 0,
    CS_MEM_PER_NPU_EXPANSION = 1,
    CS_MEM_PER_NODE_EXPANSION = 2,
    CS_MEM_POOL = 3
} cs_memory_type;

typedef struct cs_memory_config {
    char *path;                   /* file it was read from (owned; NULL for defaults) */
    cs_memory_type type;
    double remote_mem_latency_ns; /* >= 0; default 0 */
    double remote_mem_bw_gbps;    /* > 0 when used; 0 = not set (NO_MEMORY_EXPANSION) */
    int num_nodes;                /* PER_NODE_MEMORY_EXPANSION: >= 1; else 0 */
    int num_npus_per_node;        /* PER_NODE_MEMORY_EXPANSION: >= 1; else 0 */
    int num_nodes_line;           /* line of num-nodes in the file (messages), 0 if none */
} cs_memory_config;

/* "NO_MEMORY_EXPANSION", ... (the spelling of the file), indexed by
 * cs_memory_type and ended by NULL. */
extern const char *const cs_memory_type_names[];

/* The spelling of t, or "unknown". */
const char *cs_memory_type_name(cs_memory_type t);

#endif
