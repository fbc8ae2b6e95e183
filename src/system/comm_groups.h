/*
 * comm_groups.h -- communicator groups as a value type (cs_comm_groups):
 * named subsets of NPU ranks that collectives run over, with the naming rule
 * that maps a trace node's pg_name onto a group.
 *
 * Owned by the system layer, which runs collectives over the groups.  The
 * reader of the ASTRA-sim communicator-group JSON that fills it lives above,
 * in config/comm_group.h, and includes this header.
 *
 * Naming rule (docs/config.md): pg_name "" always means all ranks; pg_name
 * "0" means the file's group 0 when the file defines one, else all ranks
 * (ASTRA-sim reserves 0 for "all ranks" and crashes on a group "0" in the
 * file).  Any other pg_name must name a group of the file.
 */
#ifndef CS_SYSTEM_COMM_GROUPS_H
#define CS_SYSTEM_COMM_GROUPS_H

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

void cs_comm_groups_free(cs_comm_groups *g);

/* A group id written as digits only (no sign, no spaces) -> *out (<= max);
 * returns 0, or -1 when s is not one. */
int cs_comm_group_parse_id(const char *s, long long max, long long *out);

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
