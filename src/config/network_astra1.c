/*
 * network_astra1.c -- ASTRA-sim 1.0's analytical network JSON onto
 * cs_network_config (see network_astra1.h).
 *
 * What 1.0 does with each key (astra-network-analytical, analytical/src:
 * main.cc get_comm_topology, topology/HierarchicalTopology.cc, Topology.cc),
 * for a message in dimension d (the highest dimension in which the two
 * addresses differ; the system layer sends within one dimension):
 *
 *     time = hops x link-latency + bytes / (link-bandwidth x factor)
 *            + 2 x nic-latency  (+ router-latency on a Switch)
 *     then max(time, (hbm-latency + bytes / hbm-bandwidth) x hbm-scale)
 *
 * hops: Ring the shorter way round, FullyConnected 1, Switch 2 (as ours);
 * factor from links-count: Ring L (L - 1 when odd, with a warning),
 * FullyConnected L / (units - 1) in integers (a warning when not a
 * multiple), Switch L; a factor of 0 stopped 1.0.  dimension-type fed 1.0's
 * cost model only.  So: bandwidth = link-bandwidth x factor; latency =
 * link-latency + the per-message terms divided by the hops when every
 * message of the dimension has the same hop count (FullyConnected,
 * Switch, a Ring of at most 3 NPUs); a nonzero nic-latency on a larger Ring
 * and a nonzero hbm-scale are refused.  1.0 also truncated each term to
 * whole ns (an int accumulator); that is not reproduced.
 */
#include "config/network_astra1.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "core/time.h"
#include "core/units.h"

enum {
    A_NAME, A_DIMS, A_TOPOS, A_TYPES, A_UNITS, A_LINKS, A_LAT, A_BW, A_NIC, A_ROUTER, A_HBM_LAT, A_HBM_BW, A_HBM_SCALE,
    A_COUNT
};

static const char *const KEYS[A_COUNT] = {
    "topology-name", "dimensions-count", "topologies-per-dim", "dimension-type", "units-count",
    "links-count",   "link-latency",     "link-bandwidth",     "nic-latency",    "router-latency",
    "hbm-latency",   "hbm-bandwidth",    "hbm-scale"};

int cs_network_astra1_is(const json_t *root) {
    if (!json_is_object(root) || json_object_get(root, "topology") || json_object_get(root, "npus_count")) return 0;
    for (int k = 0; k < A_COUNT; k++)
        if (k != A_TYPES && k != A_HBM_LAT && k != A_HBM_BW && json_object_get(root, KEYS[k])) return 1;
    return json_object_get(root, "dims-count") || json_object_get(root, "nodes-per-dim"); /* 1.0's oldest form */
}

typedef struct rd {
    const cs_jdoc *doc;
    const char *path;
    cs_error *err;
    int ndims;
} rd;

/* List k with ndims numbers into v (absent and optional: zeros). */
static int numbers(rd *r, int k, int required, double *v) {
    const json_t *a = json_object_get(r->doc->root, KEYS[k]);
    if (!a) {
        if (required)
            return CS_ERR(r->err, CS_EINVAL,
                          "%s:%d: %s: expected a list of %d numbers, one per dimension (a required key of ASTRA-sim "
                          "1.0's network), got no such key",
                          r->path, r->doc->root_line, KEYS[k], r->ndims);
        memset(v, 0, sizeof(double) * (size_t)r->ndims);
        return CS_OK;
    }
    int line = cs_jdoc_key_line(r->doc, KEYS[k]);
    if (!json_is_array(a) || (int)json_array_size(a) != r->ndims)
        return CS_ERR(r->err, CS_EINVAL,
                      "%s:%d: %s: expected a list of %d numbers (one per dimension, as dimensions-count), got %s%zu%s",
                      r->path, line, KEYS[k], r->ndims, json_is_array(a) ? "a list of " : "",
                      json_is_array(a) ? json_array_size(a) : 0, json_is_array(a) ? " entries" : "something else");
    for (int d = 0; d < r->ndims; d++) {
        const json_t *e = json_array_get(a, (size_t)d);
        if (!json_is_number(e) || !(json_number_value(e) >= 0) || !isfinite(json_number_value(e)))
            return CS_ERR(r->err, CS_EINVAL, "%s:%d: %s: expected a number >= 0 for dimension %d", r->path,
                          cs_jdoc_elem_line(r->doc, KEYS[k], (size_t)d), KEYS[k], d);
        v[d] = json_number_value(e);
    }
    return CS_OK;
}

static int elem_line(const rd *r, int k, int d) { return cs_jdoc_elem_line(r->doc, KEYS[k], (size_t)d); }

int cs_network_astra1_load(const cs_jdoc *doc, cs_network_config *out, cs_error *err) {
    memset(out, 0, sizeof *out);
    rd r = {doc, doc->path, err, 0};
    const json_t *root = doc->root;
    const char *path = doc->path;
    /* unknown keys: warned, as in every reader */
    for (size_t i = 0; i < doc->nm; i++) {
        int known = 0;
        for (int k = 0; k < A_COUNT; k++) known |= strcmp(doc->m[i].key, KEYS[k]) == 0;
        if (!known) cs_warn_unknown_key(path, doc->m[i].key_line, doc->m[i].key, KEYS, A_COUNT);
    }
    const json_t *name = json_object_get(root, KEYS[A_NAME]);
    if (!name || !json_is_string(name) || strcmp(json_string_value(name), "Hierarchical") != 0) {
        char got[64];
        if (!name) snprintf(got, sizeof got, "no such key");
        else if (json_is_string(name)) snprintf(got, sizeof got, "\"%.40s\"", json_string_value(name));
        else snprintf(got, sizeof got, "a value that is not a string");
        return CS_ERR(err, CS_EINVAL,
                      "%s:%d: topology-name: expected \"Hierarchical\" (the ASTRA-sim 1.0 network this reader maps: "
                      "topologies-per-dim, units-count, links-count, link-latency, link-bandwidth per dimension), "
                      "got %s; write the network as YAML (topology, npus_count, bandwidth, latency; docs/config.md)",
                      path, name ? cs_jdoc_key_line(doc, KEYS[A_NAME]) : doc->root_line, got);
    }
    const json_t *dims = json_object_get(root, KEYS[A_DIMS]);
    int dl = dims ? cs_jdoc_key_line(doc, KEYS[A_DIMS]) : doc->root_line;
    if (!dims || !json_is_integer(dims) || json_integer_value(dims) < 1 || json_integer_value(dims) > CS_MAX_DIMS)
        return CS_ERR(err, CS_EINVAL, "%s:%d: dimensions-count: expected an integer from 1 to %d%s", path, dl,
                      CS_MAX_DIMS, dims ? "" : " (a required key), got no such key");
    r.ndims = (int)json_integer_value(dims);
    int nd = r.ndims;
    /* topologies-per-dim */
    const json_t *topos = json_object_get(root, KEYS[A_TOPOS]);
    if (!topos || !json_is_array(topos) || (int)json_array_size(topos) != nd)
        return CS_ERR(err, CS_EINVAL,
                      "%s:%d: topologies-per-dim: expected a list of %d names (Ring, FullyConnected or Switch; one per "
                      "dimension, as dimensions-count)%s",
                      path, topos ? cs_jdoc_key_line(doc, KEYS[A_TOPOS]) : doc->root_line, nd,
                      topos ? "" : ", got no such key");
    for (int d = 0; d < nd; d++) {
        const char *t = json_string_value(json_array_get(topos, (size_t)d));
        if (t && strcmp(t, "Ring") == 0) out->topo[d] = CS_TOPO_RING;
        else if (t && (strcmp(t, "FullyConnected") == 0 || strcmp(t, "AllToAll") == 0))
            out->topo[d] = CS_TOPO_FULLY_CONNECTED; /* AllToAll: the earliest 1.0 inputs' spelling */
        else if (t && strcmp(t, "Switch") == 0) out->topo[d] = CS_TOPO_SWITCH;
        else
            return CS_ERR(err, CS_EINVAL,
                          "%s:%d: topologies-per-dim: expected Ring, FullyConnected (or AllToAll) or Switch for "
                          "dimension %d, got %s%.40s%s",
                          path, elem_line(&r, A_TOPOS, d), d, t ? "\"" : "", t ? t : "a value that is not a string",
                          t ? "\"" : "");
    }
    double units[CS_MAX_DIMS], links[CS_MAX_DIMS], lat[CS_MAX_DIMS], bw[CS_MAX_DIMS], nic[CS_MAX_DIMS],
        router[CS_MAX_DIMS], hscale[CS_MAX_DIMS], scratch[CS_MAX_DIMS];
    int rc;
    if ((rc = numbers(&r, A_UNITS, 1, units)) || (rc = numbers(&r, A_LINKS, 1, links)) ||
        (rc = numbers(&r, A_LAT, 1, lat)) || (rc = numbers(&r, A_BW, 1, bw)) || (rc = numbers(&r, A_NIC, 0, nic)) ||
        (rc = numbers(&r, A_ROUTER, 0, router)) || (rc = numbers(&r, A_HBM_LAT, 0, scratch)) ||
        (rc = numbers(&r, A_HBM_BW, 0, scratch)) || (rc = numbers(&r, A_HBM_SCALE, 0, hscale)))
        return rc;
    const json_t *types = json_object_get(root, KEYS[A_TYPES]);
    if (types && !json_is_array(types))
        return CS_ERR(err, CS_EINVAL, "%s:%d: dimension-type: expected a list (one entry per dimension)", path,
                      cs_jdoc_key_line(doc, KEYS[A_TYPES]));
    char ignored[512] = "";
    size_t used = 0;
#define IGNORED(...)                                                                                      \
    do {                                                                                                  \
        if (used < sizeof ignored)                                                                        \
            used += (size_t)snprintf(ignored + used, sizeof ignored - used, "%s", used ? "; " : "");      \
        if (used < sizeof ignored) used += (size_t)snprintf(ignored + used, sizeof ignored - used, __VA_ARGS__); \
    } while (0)
    if (types) IGNORED("dimension-type (1.0's cost model only; clustersim's is configured with cost.* keys, docs/cost.md)");
    uint64_t total = 1;
    int router_ignored = 0;
    for (int d = 0; d < nd; d++) {
        double n = units[d];
        if (n < 1 || n > (double)UINT32_MAX || n != floor(n))
            return CS_ERR(err, CS_EINVAL, "%s:%d: units-count: expected an integer between 1 and 4294967295 for "
                          "dimension %d, got %g", path, elem_line(&r, A_UNITS, d), d, n);
        out->npus[d] = (uint32_t)n;
        total *= out->npus[d];
        if (total > CS_MAX_TOTAL_NPUS)
            return CS_ERR(err, CS_EINVAL, "%s:%d: units-count: expected at most 4294967295 NPUs in total, got more "
                          "after dimension %d", path, cs_jdoc_key_line(doc, KEYS[A_UNITS]), d);
        double L = links[d];
        if (L != floor(L) || L > 1e9)
            return CS_ERR(err, CS_EINVAL, "%s:%d: links-count: expected an integer for dimension %d, got %g", path,
                          elem_line(&r, A_LINKS, d), d, L);
        double factor = L;
        const char *kind = cs_topo_kind_name(out->topo[d]);
        if (out->topo[d] == CS_TOPO_RING && fmod(L, 2) != 0) {
            factor = L - 1;
            cs_warn("%s:%d: links-count: %g links on dimension %d (Ring) is odd; ASTRA-sim 1.0 uses %g of them "
                    "(bandwidth x %g), and so does this reading", path, elem_line(&r, A_LINKS, d), L, d, factor, factor);
        } else if (out->topo[d] == CS_TOPO_FULLY_CONNECTED) {
            double adj = n - 1;
            factor = adj > 0 ? floor(L / adj) : 1; /* 1 NPU: no messages in the dimension */
            if (adj > 0 && fmod(L, adj) != 0)
                cs_warn("%s:%d: links-count: %g links on dimension %d (FullyConnected of %g NPUs) is not a multiple "
                        "of %g; ASTRA-sim 1.0 uses bandwidth x %g, and so does this reading",
                        path, elem_line(&r, A_LINKS, d), L, d, n, adj, factor);
        }
        if (factor <= 0 && n > 1)
            return CS_ERR(err, CS_EINVAL,
                          "%s:%d: links-count: expected at least %s links on dimension %d (%s of %g NPUs), got %g: "
                          "ASTRA-sim 1.0's bandwidth factor would be 0 (it stops)",
                          path, elem_line(&r, A_LINKS, d),
                          out->topo[d] == CS_TOPO_RING ? "2" : out->topo[d] == CS_TOPO_SWITCH ? "1" : "units-count - 1",
                          d, kind, n, L);
        if (factor <= 0) factor = 1;
        if (!(bw[d] > 0))
            return CS_ERR(err, CS_EINVAL, "%s:%d: link-bandwidth: expected a number > 0 (in GB/s) for dimension %d, "
                          "got %g", path, elem_line(&r, A_BW, d), d, bw[d]);
        out->bandwidth_gbps[d] = bw[d] * factor;
        if (out->bandwidth_gbps[d] < CS_GBPS_MIN)
            return CS_ERR(err, CS_EINVAL, "%s:%d: link-bandwidth: %g GB/s (x %g links) for dimension %d: one byte "
                          "would take beyond " CS_TIME_RANGE_TEXT "; expected a number >= %g",
                          path, elem_line(&r, A_BW, d), bw[d], factor, d, CS_GBPS_MIN);
        if (out->bandwidth_gbps[d] > CS_GBPS_MAX)
            return CS_ERR(err, CS_EINVAL, "%s:%d: link-bandwidth: %g GB/s (x %g links) for dimension %d: expected at "
                          "most %g GB/s (the largest bandwidth a link may have)",
                          path, elem_line(&r, A_BW, d), bw[d], factor, d, CS_GBPS_MAX);
        if (hscale[d] != 0)
            return CS_ERR(err, CS_EINVAL,
                          "%s:%d: hbm-scale: expected 0 for dimension %d, got %g: ASTRA-sim 1.0 then takes each "
                          "message's time as the larger of the network's and (hbm-latency + bytes / hbm-bandwidth) "
                          "x hbm-scale, which clustersim's network has no equivalent for; set it to 0, or model the "
                          "memory with --remote-memory-configuration (docs/memory.md)",
                          path, elem_line(&r, A_HBM_SCALE, d), d, hscale[d]);
        /* per-message terms folded into the per-hop latency where the hops are fixed */
        double per_msg = 2 * nic[d], hops = 1;
        if (out->topo[d] == CS_TOPO_SWITCH) {
            per_msg += router[d];
            hops = 2;
        } else if (router[d] != 0) {
            router_ignored = 1;
        }
        if (out->topo[d] == CS_TOPO_RING && n > 3 && nic[d] != 0)
            return CS_ERR(err, CS_EINVAL,
                          "%s:%d: nic-latency: expected 0 for dimension %d (a Ring of %g NPUs), got %g: ASTRA-sim "
                          "1.0 adds 2 x nic-latency once per message while its hops vary from 1 to %g, which one "
                          "per-hop latency cannot express; fold it into link-latency or set it to 0",
                          path, elem_line(&r, A_NIC, d), d, n, nic[d], floor(n / 2));
        out->latency_ns[d] = lat[d] + per_msg / hops;
        if (!(out->latency_ns[d] <= (double)CS_TIME_MAX_NS))
            return CS_ERR(err, CS_EINVAL, "%s:%d: link-latency: expected at most %llu ns with nic-latency and "
                          "router-latency for dimension %d, got %g", path, elem_line(&r, A_LAT, d),
                          (unsigned long long)CS_TIME_MAX_NS, d, out->latency_ns[d]);
    }
    if (router_ignored) IGNORED("router-latency on Ring and FullyConnected dimensions (1.0 adds it on Switch ones only)");
    int has_hbm = json_object_get(root, KEYS[A_HBM_LAT]) || json_object_get(root, KEYS[A_HBM_BW]);
    if (has_hbm) IGNORED("hbm-latency, hbm-bandwidth (hbm-scale is 0: no effect in 1.0 either)");
#undef IGNORED
    if (ignored[0]) cs_warn("%s: ASTRA-sim 1.0 network keys with no equivalent in clustersim, ignored: %s", path, ignored);
    out->ndims = nd;
    out->total_npus = total;
    out->path = cs_strdup(path);
    return CS_OK;
}
