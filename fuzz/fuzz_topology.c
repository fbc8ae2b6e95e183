/*
 * fuzz_topology.c -- libFuzzer target for the --topology file reader
 * (src/config/topology_file.c), every builder it reaches
 * (src/topology/build_*.c), failures, timed changes, fixed routes and the
 * router over the result.
 *
 * Input: a topology JSON file; or a network YAML, a line "%%", then the
 * topology JSON (the network gives the NPU count and, for the "astra"
 * builder, the dimensions).  Without a network part the network is
 * Switch(4) x Ring(4), 16 NPUs.  Both are read from files, as the CLI reads
 * them.  Size guard (the fuzzer must not spend its time on legitimately
 * huge graphs): networks above 256 NPUs are skipped, and so are topology
 * files whose count-like numbers (every number not under a key naming a
 * bandwidth, latency, oversubscription, seed or factor) exceed 64 or
 * multiply to more than 2^18.  Contracts checked besides the sanitizers: a
 * refusal carries its code and a message starting with the file's path; an
 * accepted topology has the network's NPU count, and routing from NPU 0 to
 * every NPU either gives a route or a located error.
 * Seeds: fuzz/corpus/topology/ (the examples' topology files).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config/network_config.h"
#include "config/topology_file.h"
#include "fuzz_common.h"
#include "topology/route.h"
#include "topology/topology.h"

#define MAX_NPUS 256
#define MAX_COUNT 64.0
#define MAX_PRODUCT 262144.0

static const char DEFAULT_NET[] =
    "topology: [ Switch, Ring ]\nnpus_count: [ 4, 4 ]\nbandwidth: [ 100, 50 ]\nlatency: [ 500, 1000 ]\n";

static int is_value_key(const char *k) {
    static const char *const words[] = {"bandwidth", "latency", "oversub", "seed", "factor"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (k && strstr(k, words[i])) return 1;
    return 0;
}

/* 0 when some count-like number is too large. */
static int counts_ok(const json_t *v, const char *key, double *product) {
    size_t i;
    const char *k;
    json_t *e;
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        json_object_foreach((json_t *)(uintptr_t)v, k, e) if (!counts_ok(e, k, product)) return 0;
        return 1;
    case JSON_ARRAY:
        json_array_foreach(v, i, e) if (!counts_ok(e, key, product)) return 0;
        return 1;
    case JSON_INTEGER:
    case JSON_REAL: {
        if (is_value_key(key)) return 1;
        double d = fabs(json_number_value(v));
        if (!(d <= MAX_COUNT)) return 0;
        if (d >= 2) *product *= d;
        return *product <= MAX_PRODUCT;
    }
    default: return 1;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_init("fuzz_topology");
    size_t l1, l2;
    const uint8_t *rest;
    const uint8_t *net_text = (const uint8_t *)DEFAULT_NET, *topo_text = data;
    size_t net_len = sizeof DEFAULT_NET - 1, topo_len = size;
    if (fz_split(data, size, &l1, &rest, &l2)) {
        net_text = data;
        net_len = l1;
        topo_text = rest;
        topo_len = l2;
    }
    const char *npath = fz_input("network.yml", net_text, net_len);
    cs_network_config net;
    cs_error err;
    cs_error_clear(&err);
    if (cs_network_config_load(npath, &net, &err) != CS_OK) return -1; /* fuzz_network_config's job */
    if (net.total_npus > MAX_NPUS) {
        cs_network_config_free(&net);
        return -1;
    }
    json_t *root = json_loadb((const char *)topo_text, topo_len, JSON_DECODE_ANY, NULL);
    double product = 1;
    int ok = !root || counts_ok(root, NULL, &product);
    json_decref(root);
    if (!ok) {
        cs_network_config_free(&net);
        return -1;
    }

    const char *path = fz_input("topology.json", topo_text, topo_len);
    cs_topo *t = NULL;
    cs_error_clear(&err);
    int rc = cs_topology_file_load(path, &net, &t, &err);
    if (rc != CS_OK) {
        fz_check(t == NULL, "no topology on failure");
        fz_check_error(rc, &err, path);
        cs_network_config_free(&net);
        return 0;
    }
    fz_check(t->nnpus == net.total_npus, "the topology has the network's NPU count");
    cs_router *r = cs_router_new(t, t->ecmp_seed);
    for (uint32_t d = 0; d < t->nnpus; d++) {
        const uint32_t *links;
        uint32_t n;
        cs_error_clear(&err);
        rc = cs_router_route_msg(r, 0, d, d, &links, &n, &err);
        if (rc != CS_OK) {
            fz_check(rc == CS_EINVAL && err.code == rc, "an unreachable NPU is CS_EINVAL");
            continue;
        }
        for (uint32_t k = 0; k < n; k++) fz_check(links[k] < t->nlinks, "route links exist");
        if (n) {
            fz_check(t->links[links[0]].src == 0, "a route starts at its source");
            fz_check(t->links[links[n - 1]].dst == d, "a route ends at its destination");
        }
        for (uint32_t k = 1; k < n; k++)
            fz_check(t->links[links[k - 1]].dst == t->links[links[k]].src, "a route is continuous");
    }
    cs_router_free(r);
    cs_topo_free(t);
    cs_network_config_free(&net);
    return 0;
}
