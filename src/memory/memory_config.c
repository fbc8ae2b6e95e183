/*
 * memory_config.c -- names of the remote-memory architectures (see
 * memory_config.h).
 */
#include "memory/memory_config.h"

#include <stddef.h>

const char *const cs_memory_type_names[] = {"NO_MEMORY_EXPANSION", "PER_NPU_MEMORY_EXPANSION",
                                            "PER_NODE_MEMORY_EXPANSION", "MEMORY_POOL", NULL};

const char *cs_memory_type_name(cs_memory_type t) {
    return (unsigned)t <= CS_MEM_POOL ? cs_memory_type_names[t] : "unknown";
}
