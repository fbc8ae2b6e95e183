/*
 * memory.h -- the memory layer: MEM_LOAD / MEM_STORE nodes.
 *
 * The executor hands every MEM node to a memory model and is called back
 * when the access completes.  Models are function tables over opaque state,
 * like network backends.  The remote and pooled memory models of ASTRA-sim
 * (PER_NPU_MEMORY_EXPANSION, PER_NODE_MEMORY_EXPANSION, MEMORY_POOL) plug in
 * here; without a model a MEM node is refused with a message naming it.
 */
#ifndef CS_MEMORY_MEMORY_H
#define CS_MEMORY_MEMORY_H

#include <stdint.h>

#include "core/error.h"
#include "core/eventq.h"

typedef void (*cs_mem_done_fn)(void *ctx, uint64_t cookie);

typedef struct cs_mem_model {
    const char *name;
    /* Start an access of `bytes` by `rank` now; done fires when it completes. */
    int (*access)(void *state, uint32_t rank, uint64_t bytes, int is_store, uint64_t key,
                  cs_mem_done_fn done, void *ctx, uint64_t cookie, cs_error *err);
    void (*destroy)(void *state);
} cs_mem_model;

typedef struct cs_memory {
    const cs_mem_model *model; /* NULL = no remote memory configured */
    void *state;
} cs_memory;

#endif
