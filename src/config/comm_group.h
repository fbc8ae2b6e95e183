/*
 * comm_group.h -- the ASTRA-sim communicator-group file (JSON).
 *
 * Reads the file given as --comm-group-configuration:
 *
 *     {"1": [0, 1], "2": [2, 3]}
 *
 * Each key is a group id written as a decimal number (digits only, at most
 * 2147483647); each value a non-empty list of distinct NPU ranks.  Trace
 * nodes pick a group with their pg_name.  The literal path "empty" means
 * "no file" (ASTRA-sim's convention): no groups.
 *
 * Naming rule (docs/config.md): pg_name "" always means all ranks; pg_name
 * "0" means the file's group 0 when the file defines one, else all ranks
 * (ASTRA-sim reserves 0 for "all ranks" and crashes on a group "0" in the
 * file).  Any other pg_name must name a group of the file.
 *
 * Ranks are checked against the network size by cs_comm_groups_validate,
 * so that loading does not need the network.  The caller owns the struct.
 */
#ifndef CS_CONFIG_COMM_GROUP_H
#define CS_CONFIG_COMM_GROUP_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

typedef struct cs_comm_group {
    char *name;        /* canonical decimal id, e.g. "1" (owned) */
    uint32_t id;       /* numeric value of the key */
    uint32_t nranks;   /* >= 1 */
    uint32_t *ranks;   /* in file order, distinct (owned) */
    int line;          /* line of the key in the file */
    int *rank_lines;   /* line of each rank (owned) */
} cs_comm_group;

typedef struct cs_comm_groups {
    char *path;              /* file it was read from; NULL for "empty" */
    size_t ngroups;
    cs_comm_group *groups;   /* sorted by id */
} cs_comm_groups;

/* Load a comm-group file, or "empty" for none.  On failure *out is left
 * freed (all zero). */
int cs_comm_groups_load(const char *path, cs_comm_groups *out, cs_error *err);
/* The same from JSON text in memory (text NULL: read path). */
int cs_comm_groups_load_text(const char *path, const char *text, size_t len, cs_comm_groups *out, cs_error *err);
void cs_comm_groups_free(cs_comm_groups *g);

/* Every rank must be < total_npus (CS_EINVAL with file:line: group: ...). */
int cs_comm_groups_validate(const cs_comm_groups *g, uint64_t total_npus, cs_error *err);

/* The group whose id is the decimal number `name` ("1", "01"), or NULL when
 * there is none or name is not a decimal number. */
const cs_comm_group *cs_comm_groups_find(const cs_comm_groups *g, const char *name);

/* Resolve a trace node's pg_name by the naming rule above: *out = the group,
 * or NULL meaning "all ranks".  An unknown name is CS_EINVAL (the caller
 * adds the trace location). */
int cs_comm_groups_resolve(const cs_comm_groups *g, const char *pg_name,
                           const cs_comm_group **out, cs_error *err);

#endif
