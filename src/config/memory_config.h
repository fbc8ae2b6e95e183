/*
 * memory_config.h -- the ASTRA-sim remote-memory file (JSON).
 *
 * Reads the file given as --remote-memory-configuration, the input of
 * ASTRA-sim's analytical remote memory backend (used only by MEM_LOAD /
 * MEM_STORE trace nodes).  A remote access of s bytes takes
 * remote-mem-latency + s / remote-mem-bw (GB/s = bytes per ns):
 *
 *   NO_MEMORY_EXPANSION        no remote memory; a MEM node is an error
 *   PER_NPU_MEMORY_EXPANSION   every NPU has its own remote memory (no sharing)
 *   PER_NODE_MEMORY_EXPANSION  NPUs id / num-npus-per-node share one memory
 *                              per node, one access at a time (FIFO)
 *   MEMORY_POOL                all NPUs share one memory, one access at a time
 *
 * Required: memory-type; remote-mem-bw for every type but
 * NO_MEMORY_EXPANSION; num-nodes and num-npus-per-node for
 * PER_NODE_MEMORY_EXPANSION (ASTRA-sim divides by them).  Keys are declared
 * once in a table in memory_config.c (parsing, dump, --help).  The value
 * type, cs_memory_config, is the memory layer's (memory/memory_config.h).
 */
#ifndef CS_CONFIG_MEMORY_CONFIG_H
#define CS_CONFIG_MEMORY_CONFIG_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "core/error.h"
#include "memory/memory_config.h" /* the value type it fills: cs_memory_config */

/* NO_MEMORY_EXPANSION, everything else 0.  Returns CS_OK. */
int cs_memory_config_defaults(cs_memory_config *c);
/* Load a memory JSON file.  On failure *out is left freed (all zero). */
int cs_memory_config_load(const char *path, cs_memory_config *out, cs_error *err);
/* The same from JSON text in memory (text NULL: read path); path labels
 * messages and becomes out->path. */
int cs_memory_config_load_text(const char *path, const char *text, size_t len, cs_memory_config *out, cs_error *err);
void cs_memory_config_free(cs_memory_config *c);

/* PER_NODE_MEMORY_EXPANSION: every NPU must map to a node, i.e.
 * num-nodes * num-npus-per-node >= total_npus (CS_EINVAL with file:line). */
int cs_memory_config_validate(const cs_memory_config *c, uint64_t total_npus, cs_error *err);

/* Effective configuration, keys as in the file; keys that do not apply to
 * the memory type are left out. */
json_t *cs_memory_config_to_json(const cs_memory_config *c);
/* {"remote-mem-latency": "ns", "remote-mem-bw": "GB/s"} */
/* The reader's key table (the scenario namespace checks keys against it). */
struct cs_opt;
const struct cs_opt *cs_memory_config_opts(size_t *n);
json_t *cs_memory_config_units_json(void);
void cs_memory_config_print_help(FILE *f);

/* cs_memory_type_name: memory/memory_config.h. */

#endif
