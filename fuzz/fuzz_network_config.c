/*
 * fuzz_network_config.c -- libFuzzer target for the network YAML reader
 * (src/config/network_config.c; through it ASTRA-sim 1.0's JSON reader,
 * network_astra1.c, and the ns-3 / HTSim file check, network_foreign.c) and the topology built from it
 * (cs_topo_build_astra, src/topology/build_astra.c, and its routes).
 *
 * Each input is a whole network.yml, read from a file as --network-
 * configuration reads it.  Contracts checked besides the sanitizers: a
 * refusal carries its code and a message starting with the file's path; an
 * accepted file has 1..CS_MAX_DIMS dimensions whose product is total_npus,
 * its effective configuration (JSON, which is YAML) reads back to the same
 * configuration; networks of at most 256 NPUs are built as a graph and
 * routed from NPU 0 to every NPU.  Seeds: fuzz/corpus/network_config/ (the
 * examples' network files, small edge cases, 1.0 JSON, ns-3 and HTSim files).
 *
 * The same input also goes to the other YAML reader of the config layer,
 * the per-node-custom-implementation map (config/custom_nodes.c; no target
 * of its own, to keep CI's fuzzing time): a refusal carries its code and a
 * message starting with the path and leaves the map zeroed; an accepted map
 * has ascending distinct ids, non-empty prefixes, and finds each of its ids.
 * Seed: fuzz/corpus/network_config/per_node_custom.yml.
 */
#include <stdlib.h>
#include <string.h>

#include "config/custom_nodes.h"
#include "config/network_config.h"
#include "fuzz_common.h"
#include "topology/route.h"
#include "topology/topology.h"

#define MAX_BUILT_NPUS 256

static void exercise_topology(const cs_network_config *c) {
    if (c->total_npus > MAX_BUILT_NPUS) return;
    cs_topo *t = cs_topo_build_astra(c);
    fz_check(t != NULL, "a valid network builds");
    fz_check(t->nnpus == c->total_npus, "the graph has total_npus NPUs");
    cs_router *r = cs_router_new(t, 1);
    for (uint32_t d = 0; d < t->nnpus; d++) {
        const uint32_t *links;
        uint32_t n;
        cs_error err;
        cs_error_clear(&err);
        int rc = cs_router_route(r, 0, d, &links, &n, &err);
        fz_check(rc == CS_OK, "every NPU of a network is reachable from NPU 0");
        fz_check((d == 0) == (n == 0), "a route to another NPU has links");
    }
    cs_router_free(r);
    cs_topo_free(t);
}

static void exercise_custom_nodes(const uint8_t *data, size_t size) {
    const char *path = "nodes.yml";
    cs_custom_node_map m;
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_custom_nodes_load_text(path, (const char *)data, size, &m, &err);
    if (rc != CS_OK) {
        fz_check_error(rc, &err, path);
        fz_check(m.path == NULL && m.n == 0, "a failed load leaves the map zeroed");
        return;
    }
    for (size_t i = 0; i < m.n; i++) {
        fz_check(i == 0 || m.ids[i - 1] < m.ids[i], "ids ascending and distinct");
        fz_check(m.prefix[i] && m.prefix[i][0], "every prefix non-empty");
        fz_check(cs_custom_node_map_find(&m, m.ids[i]) == m.prefix[i], "every id found");
    }
    cs_custom_node_map_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_init("fuzz_network_config");
    exercise_custom_nodes(data, size);
    const char *path = fz_input("network.yml", data, size);
    cs_network_config c;
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_network_config_load(path, &c, &err);
    if (rc != CS_OK) {
        fz_check_error(rc, &err, path);
        fz_check(c.path == NULL && c.ndims == 0, "a failed load leaves the struct zeroed");
        return 0;
    }
    fz_check(c.ndims >= 1 && c.ndims <= CS_MAX_DIMS, "1..CS_MAX_DIMS dimensions");
    uint64_t total = 1;
    for (int d = 0; d < c.ndims; d++) total *= c.npus[d];
    fz_check(total == c.total_npus, "total_npus is the product of npus_count");

    /* the effective configuration reads back to the same one */
    json_t *j = cs_network_config_to_json(&c);
    char *s = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(17));
    fz_check(s != NULL, "the effective configuration dumps");
    cs_network_config c2;
    cs_error_clear(&err);
    rc = cs_network_config_load_text("roundtrip.yml", s, strlen(s), &c2, &err);
    if (rc != CS_OK) fprintf(stderr, "dump: %s\nerror: %s\n", s, err.msg);
    fz_check(rc == CS_OK, "the effective configuration loads again");
    json_t *j2 = cs_network_config_to_json(&c2);
    fz_check(json_equal(j, j2), "the effective configuration round-trips");
    json_decref(j2);
    cs_network_config_free(&c2);
    free(s);
    json_decref(j);

    exercise_topology(&c);
    cs_network_config_free(&c);
    return 0;
}
