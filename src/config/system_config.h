/*
 * system_config.h -- the ASTRA-sim system-layer file (JSON).
 *
 * Reads the file given as --system-configuration: every key ASTRA-sim 2.x
 * reads in Sys::initialize_sys and CollectiveImplLookup, plus the two
 * ASTRA-sim 1.0 scheduling keys (inter-/intra-dimension-scheduling) that 2.x
 * no longer reads.  All keys are declared once in a table in system_config.c
 * that drives parsing, validation, defaults, the effective-config dump and
 * --help; docs/config.md lists them with units and the differences from
 * ASTRA-sim.
 *
 * Required keys (ASTRA-sim leaves them uninitialised or divides by them):
 * scheduling-policy, collective-optimization, preferred-dataset-splits,
 * local-mem-bw; peak-perf when roofline-enabled is 1.  The per-collective
 * implementation lists are optional: a collective with neither a list nor a
 * *-custom file is an error only when a workload issues it.
 *
 * The value type, cs_system_config, and its key table are the system
 * layer's (system/system_config.h).  The caller owns the struct;
 * cs_system_config_free releases its strings and may be called on a zeroed
 * or failed struct.
 */
#ifndef CS_CONFIG_SYSTEM_CONFIG_H
#define CS_CONFIG_SYSTEM_CONFIG_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "core/error.h"
#include "system/system_config.h" /* the value type it fills: cs_system_config */

/* cs_system_config_defaults, _free, _opts and the names: system/system_config.h. */

/* Load a system JSON file.  On failure *out is left freed (all zero). */
int cs_system_config_load(const char *path, cs_system_config *out, cs_error *err);
/* The same from JSON text in memory (text NULL: read path); path labels
 * messages and becomes out->path. */
int cs_system_config_load_text(const char *path, const char *text, size_t len, cs_system_config *out, cs_error *err);

/* Cross-check the implementation lists against the network's dimension
 * count: a list must have ndims entries, or fewer when one of them is a
 * one* algorithm (it spans all dimensions).  CS_EINVAL with file:line. */
int cs_system_config_check_network(const cs_system_config *c, int ndims, cs_error *err);

/* Effective configuration, keys as in the file (re-loadable); unset optional
 * keys are left out; booleans are written 0/1 as ASTRA-sim expects. */
json_t *cs_system_config_to_json(const cs_system_config *c);
/* {"endpoint-delay": "ns", "local-mem-bw": "GB/s", ...} */
json_t *cs_system_config_units_json(void);
/* Every key with type, unit, default and help, from the table, then the
 * registered collective algorithms with their help. */
void cs_system_config_print_help(FILE *f);

#endif
