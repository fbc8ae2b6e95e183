/*
 * network_foreign.h -- network files of ASTRA-sim's other backends, given
 * where clustersim expects a network configuration.
 *
 * ASTRA-sim's ns-3 binary takes an ns-3 `config.txt` (lines "KEY value":
 * TOPOLOGY_FILE, CC_MODE, ENABLE_QCN, ...) as --network-configuration, its
 * topology file ("nodes switches links", then "a b 400Gbps 0.0005ms 0"
 * lines) and a logical topology JSON ({"logical-dims": [...]}) as
 * --logical-topology-configuration; its HTSim binary a `.topo` file
 * ("Nodes 8", "Tiers 3", ...).  A system JSON is sometimes given as the
 * network by mistake.  None of these is YAML the network reader could
 * explain: each is recognised by content and refused with a message naming
 * the file, the line and key that identify it, and what to use instead
 * (docs/astra-compat.md, "Migrating from ASTRA-sim").  Nothing is owned.
 */
#ifndef CS_CONFIG_NETWORK_FOREIGN_H
#define CS_CONFIG_NETWORK_FOREIGN_H

#include <jansson.h>
#include <stddef.h>

#include "core/error.h"

/* Text formats (ns-3 config.txt, ns-3 topology, HTSim .topo): CS_OK when buf
 * is none of them, else CS_EINVAL with "path:line: ..." in err. */
int cs_network_foreign_text(const char *path, const char *buf, size_t len, cs_error *err);
/* A JSON object (root) that is an ns-3 logical topology or a system
 * configuration: CS_EINVAL with the message; else CS_OK.  buf/len: the
 * text, for line numbers. */
int cs_network_foreign_json(const char *path, const char *buf, size_t len, const json_t *root, cs_error *err);
/* 1-based line of the first occurrence of "\"key\"" in buf (1 if absent). */
int cs_network_key_line(const char *buf, size_t len, const char *key);

#endif
