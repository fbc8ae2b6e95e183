/*
 * network_astra1.h -- ASTRA-sim 1.0's analytical network JSON, read as a
 * network configuration.
 *
 * ASTRA-sim 1.0 and early 2.0 (astra-network-analytical before its YAML
 * rewrite; the JSON files in astra-sim's inputs/network/analytical) describe the
 * network as one JSON object:
 *
 *     {"topology-name": "Hierarchical", "dimensions-count": 3,
 *      "topologies-per-dim": ["Ring", "FullyConnected", "Switch"],
 *      "dimension-type": ["N", "N", "P"], "units-count": [2, 8, 2],
 *      "links-count": [2, 7, 1], "link-latency": [500, 500, 500],
 *      "link-bandwidth": [250, 25, 12.5], "nic-latency": [0, 0, 0],
 *      "router-latency": [0, 0, 0], "hbm-latency": [500, 500, 500],
 *      "hbm-bandwidth": [370, 370, 370], "hbm-scale": [0, 0, 0]}
 *
 * The mapping onto cs_network_config (docs/astra-compat.md, "ASTRA-sim 1.0
 * network files", gives it with the 1.0 source it follows) keeps every
 * message's time: per dimension the bandwidth is link-bandwidth times 1.0's
 * links-count factor (Ring: links-count rounded down to even; FullyConnected:
 * links-count / (units - 1), integer; Switch: links-count), and the per-hop
 * latency folds in what 1.0 adds per message (2 x nic-latency, and
 * router-latency on a Switch) where the hop count makes that exact.  Keys
 * with no equivalent warn; what cannot be mapped is refused naming the key.
 * The caller owns *out (cs_network_config_free).
 */
#ifndef CS_CONFIG_NETWORK_ASTRA1_H
#define CS_CONFIG_NETWORK_ASTRA1_H

#include "core/error.h"
#include "core/opts.h"
#include "topology/dims.h"

/* Whether a JSON object is a 1.0 network: one of its keys, none of the
 * YAML's (topology, npus_count). */
int cs_network_astra1_is(const json_t *root);
/* Map the indexed document onto *out (out->path = doc->path).  CS_EINVAL
 * with "path:line: key: expected ..." on what cannot be mapped. */
int cs_network_astra1_load(const cs_jdoc *doc, cs_network_config *out, cs_error *err);

#endif
