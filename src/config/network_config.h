/*
 * network_config.h -- the ASTRA-sim analytical network file (YAML).
 *
 * Reads the file given as --network-configuration: four lists, one entry per
 * dimension (dimension 0 is the innermost, fastest-varying NPU index):
 *
 *     topology:   [ Ring, FullyConnected, Switch ]
 *     npus_count: [ 4, 4, 4 ]
 *     bandwidth:  [ 200, 100, 50 ]     # GB/s per link and direction
 *     latency:    [ 50, 500, 2000 ]    # ns per hop
 *
 * Flow- and block-style lists, comments and numbers written as 50 or 50.0
 * are accepted.  Every user error is CS_EINVAL with "file:line: key:
 * expected ..., got ..."; an unreadable file (or not a regular file, or one
 * above 64 MiB) is CS_EIO; unknown keys warn.
 * Unlike ASTRA-sim, a dimension of 1 NPU (and so a 1-NPU network) is allowed.
 * The same entry points also read ASTRA-sim 1.0's analytical JSON
 * (config/network_astra1.h: mapped onto the same dimensions) and refuse the
 * ns-3 and HTSim backends' files with what to use instead
 * (config/network_foreign.h); both are recognised by content.
 * Units are kept as written (GB/s, ns); note that ASTRA-sim converts the
 * bandwidth with 2^30 bytes per GB (see docs/config.md).
 *
 * The value type, cs_network_config, is the topology layer's
 * (topology/dims.h).  The caller owns the struct; cs_network_config_free
 * releases what the loader allocated (path) and may be called on a zeroed or
 * failed struct.
 */
#ifndef CS_CONFIG_NETWORK_CONFIG_H
#define CS_CONFIG_NETWORK_CONFIG_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "core/error.h"
#include "topology/dims.h" /* the value type it fills: cs_network_config, CS_MAX_DIMS */

/* Deepest nesting of lists and mappings accepted (a valid file has 2);
 * deeper input is refused with file:line before libyaml builds it. */
#define CS_NETWORK_MAX_DEPTH 64

/* Load a network YAML file (at most CS_CONFIG_MAX_BYTES, core/opts.h).  On failure *out is left freed (all zero). */
int cs_network_config_load(const char *path, cs_network_config *out, cs_error *err);
/* The same from YAML (or JSON, which is YAML) text in memory; path labels
 * messages and becomes out->path. */
int cs_network_config_load_text(const char *path, const char *buf, size_t len, cs_network_config *out,
                                cs_error *err);
void cs_network_config_free(cs_network_config *c);

/* cs_topo_kind_name: topology/dims.h. */

/* Effective configuration: {"topology": [...], "npus_count": [...],
 * "bandwidth": [...], "latency": [...]} (units in docs/config.md and in
 * cs_network_config_units_json). */
json_t *cs_network_config_to_json(const cs_network_config *c);
/* {"bandwidth": "GB/s", "latency": "ns"} */
json_t *cs_network_config_units_json(void);
/* Description of every key, generated from the reader's key table. */
void cs_network_config_print_help(FILE *f);

#endif
