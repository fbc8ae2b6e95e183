/*
 * topology_file.h -- clustersim's own topology file (--topology=FILE): a JSON
 * object choosing a builder and its parameters, or an explicit edge list,
 * plus failed/degraded links.  Keys, units and examples: docs/topology.md.
 *
 *     {"builder": "fat-tree", "npus": 64, "npus_per_leaf": 8, "spines": 4,
 *      "link_bandwidth": 50, "link_latency": 500, "oversubscription": 2}
 *
 * Errors are CS_EINVAL "file:line: key: expected ..., got ...".  The caller
 * owns the returned topology (cs_topo_free); the network configuration is
 * read for the "astra" builder and to check the NPU count.
 */
#ifndef CS_CONFIG_TOPOLOGY_FILE_H
#define CS_CONFIG_TOPOLOGY_FILE_H

#include <stdio.h>

#include "config/network_config.h"
#include "core/error.h"
#include "core/opts.h"
#include "topology/topology.h"

int cs_topology_file_load(const char *path, const cs_network_config *net, cs_topo **out, cs_error *err);
/* The same from text in memory (text NULL = read path; path labels the
 * messages).  out NULL = check the keys only (no build; net unused); eff,
 * when given, receives the effective values in the scenario's form
 * {"builder": B, "routing": ..., "ecmp_seed": ..., lists as given,
 *  B: {every key of B, defaults included}} (a new reference). */
int cs_topology_load_text(const char *path, const char *text, size_t len, const cs_network_config *net,
                          cs_topo **out, json_t **eff, cs_error *err);
/* The keys common to every builder (builder, routing, ecmp_seed, the lists). */
const cs_opt *cs_topology_common_keys(size_t *n);
void cs_topology_file_print_help(FILE *f);

#endif
