/*
 * remote.h -- ASTRA-sim's analytical remote-memory models for MEM_LOAD /
 * MEM_STORE nodes (the disaggregated-memory systems of the ASTRA-sim 2.0
 * paper), behind the cs_mem_model seam of memory.h.
 *
 * One access of s bytes occupies its memory for
 *
 *     t = remote-mem-latency + floor(s / remote-mem-bw)  ns
 *
 * with remote-mem-bw in GB/s read as 10^9 bytes/s, i.e. bytes per ns (not
 * GiB/s as the network does), the bandwidth term truncated to whole ns as
 * ASTRA-sim does.  What shares a memory, by memory-type:
 *
 *   NO_MEMORY_EXPANSION        no remote memory: an access is an error
 *   PER_NPU_MEMORY_EXPANSION   one memory per NPU
 *   PER_NODE_MEMORY_EXPANSION  one memory per node; NPU r is on node
 *                              r / num-npus-per-node
 *   MEMORY_POOL                one memory for all NPUs
 *
 * A memory serves one access at a time, first come first served; the others
 * wait in its queue.  When an access completes its requester is called back
 * first, and only then does the memory start its next queued access (so an
 * access issued from that callback queues behind those already waiting).
 * docs/memory.md derives this from ASTRA-sim's sources and lists where we
 * differ.
 *
 * Ownership: cs_memory_init creates the model state (owned by the cs_memory,
 * freed by cs_memory_destroy); the configuration is copied (the path is
 * borrowed and must outlive the model); the event queue is borrowed.
 * Requests come from a pool: no allocation per access in steady state.
 */
#ifndef CS_MEMORY_REMOTE_H
#define CS_MEMORY_REMOTE_H

#include <stdint.h>

#include "core/error.h"
#include "core/eventq.h"
#include "core/time.h"
#include "memory/memory.h"
#include "memory/memory_config.h"

/* Create the model of cfg for a network of nranks NPUs.  cfg NULL means
 * NO_MEMORY_EXPANSION (no file given).  Errors (CS_EINVAL, naming the memory
 * file and its keys): PER_NODE_MEMORY_EXPANSION whose num-nodes x
 * num-npus-per-node differs from nranks; a bandwidth that is not > 0 where
 * one is needed.  Warns when a value is not a whole number (ASTRA-sim
 * truncates it; we do not). */
int cs_memory_init(cs_memory *m, const cs_memory_config *cfg, cs_eventq *q, uint32_t nranks,
                   cs_error *err);
/* Free the model (safe on a zeroed or already destroyed cs_memory). */
void cs_memory_destroy(cs_memory *m);

/* Duration of one access of `bytes` that does not wait: the formula above. */
cs_time cs_memory_access_time(const cs_memory_config *cfg, uint64_t bytes);

typedef struct cs_memory_stats {
    uint64_t accesses;     /* accesses completed */
    uint64_t loads, stores;
    uint64_t bytes_loaded, bytes_stored;
    uint64_t waited;       /* accesses that queued behind another one */
    cs_time wait_total;    /* time spent queued, summed over accesses */
    cs_time wait_max;      /* longest queueing delay of one access */
    uint32_t memories;     /* independent memories (NPUs, nodes, 1 pool, 0) */
} cs_memory_stats;

/* Counters of the model (all zero without a model). */
void cs_memory_get_stats(const cs_memory *m, cs_memory_stats *out);

#endif
