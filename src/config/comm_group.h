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
 * so that loading does not need the network.  The value type and its
 * lookups are the system layer's (system/comm_groups.h).  The caller owns
 * the struct.
 */
#ifndef CS_CONFIG_COMM_GROUP_H
#define CS_CONFIG_COMM_GROUP_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "system/comm_groups.h" /* the value type it fills: cs_comm_groups */

/* Load a comm-group file, or "empty" for none.  On failure *out is left
 * freed (all zero). */
int cs_comm_groups_load(const char *path, cs_comm_groups *out, cs_error *err);
/* The same from JSON text in memory (text NULL: read path). */
int cs_comm_groups_load_text(const char *path, const char *text, size_t len, cs_comm_groups *out, cs_error *err);
/* The groups as the file spells them: {"NAME": [rank, ...], ...} (new reference). */
json_t *cs_comm_groups_to_json(const cs_comm_groups *g);
/* cs_comm_groups_free, _validate, _find, _resolve: system/comm_groups.h. */

#endif
