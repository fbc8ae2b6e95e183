/*
 * topology_file.c -- reader of the --topology JSON file (topology_file.h).
 *
 * The file names a builder (topology/builder.h, registered by name) and sets
 * that builder's keys; the reader splits the top-level members into
 *   - the keys common to every builder (this file's table: builder, routing,
 *     ecmp_seed, and the lists routes, failed_links, degraded_links,
 *     failed_switches, link_changes, switch_changes, read here with their
 *     element lines after the build);
 *   - the builder's keys, and the keys of any other builder, which the
 *     builder's parse rejects ("not a key of builder X");
 *   - anything else, which warns ("unknown key ... ignored"), as every
 *     configuration file of clustersim does.
 * The builder's keys may also sit in an object named after the builder
 * ({"builder": "fat-tree", "fat-tree": {"spines": 8}}): the scenario's
 * topology section has that form (topology.fat-tree.spines); an object
 * named after another builder is an error.
 * Units and their conversion belong to each builder's key table.  Owns
 * nothing after return: the topology goes to the caller.
 */
#include "config/topology_file.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/opts.h"
#include "topology/builder.h"

typedef struct common {
    char *builder;
    int routing, ecmp_seed, qps;
    unsigned ecmp_hash; /* CS_ECMP_* bits; 0 = not given: every field */
} common;

/* "ecmp_hash": the header fields ECMP hashes, a comma-separated subset of src, dst, qp. */
static int parse_hash(const cs_jdoc *doc, const cs_opt *o, const json_t *v, void *field, cs_error *err) {
    static const char *const F[] = {"src", "dst", "qp"};
    const char *txt = json_is_string(v) ? json_string_value(v) : NULL;
    unsigned bits = 0;
    int ok = txt != NULL && *txt;
    for (const char *p = txt; ok && *p;) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        int hit = 0;
        for (unsigned k = 0; k < 3; k++)
            if (n == strlen(F[k]) && strncmp(p, F[k], n) == 0 && !(bits >> k & 1)) {
                bits |= 1u << k;
                hit = 1;
            }
        ok = hit;
        p = e ? e + 1 : p + n;
        if (e && !*p) ok = 0;
    }
    if (!ok) {
        char got[200];
        cs_json_repr(v, got, sizeof got);
        return CS_ERR(err, CS_EINVAL, "%s:%d: %s: expected %s, got %s", doc->path, cs_jdoc_key_line(doc, o->key), o->key,
                      o->type_text, got);
    }
    *(unsigned *)field = bits;
    return CS_OK;
}

/* The text of a CS_ECMP_* set ("src,dst,qp" for 0: every field). */
static const char *hash_text(unsigned bits, char *buf, size_t n) {
    if (!bits) bits = CS_ECMP_SRC | CS_ECMP_DST | CS_ECMP_QP;
    snprintf(buf, n, "%s%s%s%s%s", bits & CS_ECMP_SRC ? "src" : "", (bits & CS_ECMP_SRC) && (bits & ~1u) ? "," : "",
             bits & CS_ECMP_DST ? "dst" : "", (bits & CS_ECMP_DST) && (bits & CS_ECMP_QP) ? "," : "",
             bits & CS_ECMP_QP ? "qp" : "");
    return buf;
}

static const char *const ROUTINGS[] = {"ecmp", "spray", "qp", NULL};

/* The lists are checked and applied after the build (they name nodes). */
static int parse_list(const cs_jdoc *doc, const cs_opt *o, const json_t *v, void *field, cs_error *err) {
    (void)field;
    if (!json_is_array(v))
        return CS_ERR(err, CS_EINVAL, "%s:%d: %s: expected %s", doc->path, cs_jdoc_key_line(doc, o->key), o->key,
                      o->type_text);
    return CS_OK;
}
#define LIST_KEY(k, t, h) {.key = k, .type = CS_OPT_CUSTOM, .type_text = t, .parse = parse_list, .help = h}

static const cs_opt COMMON[] = {
    {.key = "builder", .type = CS_OPT_STR, .required = 1, .nodef = 1, .off = offsetof(common, builder),
     .help = "the builder (one of those below) whose keys the file sets"},
    {.key = "routing", .type = CS_OPT_ENUM, .values = ROUTINGS, .def = 0, .off = offsetof(common, routing),
     .help = "ecmp: one path per (src, dst) pair, hashed; spray: a path per message among the equal-cost ones; "
             "qp: QP-aware ECMP, a message's path hashed with its queue pair (its key mod qps)"},
    {.key = "qps", .type = CS_OPT_INT, .def = 4, .min = 1, .max = 65536, .off = offsetof(common, qps),
     .help = "routing qp: queue pairs per (src, dst) connection, each hashed onto its own path"},
    {.key = "ecmp_seed", .type = CS_OPT_INT, .min = 0, .max = (double)INT_MAX, .off = offsetof(common, ecmp_seed),
     .help = "seed of ECMP hashing"},
    {.key = "ecmp_hash", .type = CS_OPT_CUSTOM, .off = offsetof(common, ecmp_hash), .parse = parse_hash,
     .type_text = "a comma-separated subset of src, dst, qp (e.g. \"src,dst,qp\")",
     .help = "the fields ECMP hashes at every switch: src and dst (the NPUs' addresses) and qp (the queue pair or "
             "channel: RoCEv2's UDP source port; with spray, the message) -- default src,dst,qp; dst alone routes "
             "by destination, as InfiniBand's forwarding tables; src,dst puts every queue pair of a pair on one path "
             "(and makes spray and qp routing one path per pair); the packet backend's per-packet modes "
             "(packet-spray, flowlet, adaptive) choose per packet as before"},
    LIST_KEY("routes", "a list of node paths [src, n1, ..., dst]",
             "routing table: paths used instead of ECMP while their links are up"),
    LIST_KEY("failed_links", "a list of [a, b] (node ids)", "cables down from the start"),
    LIST_KEY("degraded_links", "a list of [a, b, factor] (node ids, factor 0..1)", "cables at factor x bandwidth"),
    LIST_KEY("failed_switches", "a list of node ids", "every link of the node down from the start"),
    LIST_KEY("link_changes", "a list of [time ns, a, b, factor]",
             "from that simulated time the cable a-b runs at factor x its bandwidth (0 = down, 1 = restored)"),
    LIST_KEY("switch_changes", "a list of [time ns, node, factor]",
             "from that time every link of the node at factor x (0 = down)"),
};
#define NCOMMON (sizeof COMMON / sizeof COMMON[0])

static const cs_opt *common_key(const char *key) {
    for (size_t i = 0; i < NCOMMON; i++)
        if (strcmp(COMMON[i].key, key) == 0) return &COMMON[i];
    return NULL;
}

static int node_ok(const cs_jdoc *doc, const char *key, size_t i, const cs_topo *t, double v, cs_error *err) {
    if (!(v >= 0) || v >= t->nnodes)
        return CS_ERR(err, CS_EINVAL, "%s:%d: %s[%zu]: node %.0f does not exist (nodes 0..%u)", doc->path,
                      cs_jdoc_elem_line(doc, key, i), key, i, v, t->nnodes - 1);
    return CS_OK;
}

static int apply_failures(const cs_jdoc *doc, cs_topo *t, cs_error *err) {
    const char *keys[] = {"failed_links", "degraded_links", "failed_switches"};
    for (int k = 0; k < 3; k++) {
        json_t *list = json_object_get(doc->root, keys[k]);
        if (!list) continue;
        if (!json_is_array(list))
            return CS_ERR(err, CS_EINVAL, "%s:%d: %s: expected a list", doc->path, cs_jdoc_key_line(doc, keys[k]), keys[k]);
        for (size_t i = 0; i < json_array_size(list); i++) {
            double v[3] = {0, 0, 0};
            int rc = k == 0   ? cs_topo_json_tuple(doc, keys[k], i, json_array_get(list, i), 2, 2, "[a, b] (node ids)", v, err)
                     : k == 1 ? cs_topo_json_tuple(doc, keys[k], i, json_array_get(list, i), 3, 2,
                                           "[a, b, factor] (node ids, bandwidth factor 0..1)", v, err)
                              : cs_topo_json_tuple(doc, keys[k], i, json_array_get(list, i), 1, 1, "a node id", v, err);
            if (rc) return rc;
            for (int j = 0; j < (k == 2 ? 1 : 2); j++)
                if ((rc = node_ok(doc, keys[k], i, t, v[j], err))) return rc;
            if (k == 2) rc = cs_topo_fail_node(t, (uint32_t)v[0], err);
            else if (k == 1 && v[2] > 1)
                return CS_ERR(err, CS_EINVAL, "%s:%d: degraded_links[%zu]: factor: expected 0..1, got %g", doc->path,
                              cs_jdoc_elem_line(doc, keys[k], i), i, v[2]);
            else rc = cs_topo_degrade_cable(t, (uint32_t)v[0], (uint32_t)v[1], k == 0 ? 0.0 : v[2], err);
            if (rc) {
                cs_error_prefix(err, "%s:%d: %s[%zu]: ", doc->path, cs_jdoc_elem_line(doc, keys[k], i), keys[k], i);
                return rc;
            }
        }
    }
    return CS_OK;
}

static int apply_changes(const cs_jdoc *doc, cs_topo *t, cs_error *err) {
    const char *keys[] = {"link_changes", "switch_changes"};
    for (int k = 0; k < 2; k++) {
        json_t *list = json_object_get(doc->root, keys[k]);
        if (!list) continue;
        if (!json_is_array(list))
            return CS_ERR(err, CS_EINVAL, "%s:%d: %s: expected a list", doc->path, cs_jdoc_key_line(doc, keys[k]), keys[k]);
        for (size_t i = 0; i < json_array_size(list); i++) {
            double v[4] = {0, 0, 0, 0};
            int line = cs_jdoc_elem_line(doc, keys[k], i);
            /* read_tuple's integer columns are the first nint: read the time as a number */
            const json_t *e = json_array_get(list, i);
            size_t n = k == 0 ? 4 : 3;
            int rc = cs_topo_json_tuple(doc, keys[k], i, e, n, 0,
                                k == 0 ? "[time ns, a, b, factor] (node ids, bandwidth factor 0..1)"
                                       : "[time ns, node, factor] (bandwidth factor 0..1)",
                                v, err);
            for (size_t j = 1; rc == CS_OK && j < n - 1; j++) {
                if (v[j] < 4294967296.0 && v[j] != (double)(uint32_t)v[j]) /* (larger: node_ok refuses it, uncast) */
                    rc = CS_ERR(err, CS_EINVAL, "%s:%d: %s[%zu]: node: expected an integer, got %g", doc->path, line,
                                keys[k], i, v[j]);
                else rc = node_ok(doc, keys[k], i, t, v[j], err);
            }
            if (rc) return rc;
            rc = cs_topo_add_change(t, cs_time_from_ns_f(v[0]), (uint32_t)v[1],
                                    k == 0 ? (uint32_t)v[2] : CS_TOPO_NODE, v[n - 1], err);
            if (rc) {
                cs_error_prefix(err, "%s:%d: %s[%zu]: ", doc->path, line, keys[k], i);
                return rc;
            }
        }
    }
    return CS_OK;
}

static int read_routes(const cs_jdoc *doc, cs_topo *t, cs_error *err) {
    json_t *list = json_object_get(doc->root, "routes");
    if (!list) return CS_OK;
    if (!json_is_array(list))
        return CS_ERR(err, CS_EINVAL, "%s:%d: routes: expected a list of node paths", doc->path, cs_jdoc_key_line(doc, "routes"));
    uint32_t *nodes = NULL;
    size_t cap = 0;
    int rc = CS_OK;
    for (size_t i = 0; i < json_array_size(list) && rc == CS_OK; i++) {
        const json_t *e = json_array_get(list, i);
        int line = cs_jdoc_elem_line(doc, "routes", i);
        size_t n = json_is_array(e) ? json_array_size(e) : 0;
        CS_GROW(nodes, cap, n + 1);
        for (size_t k = 0; k < n && rc == CS_OK; k++) {
            long long v;
            if (cs_json_ll(json_array_get(e, k), &v) || v < 0 || v > (long long)UINT32_MAX)
                rc = CS_ERR(err, CS_EINVAL, "%s:%d: routes[%zu]: expected a list of node ids [src, ..., dst]", doc->path,
                            line, i);
            else nodes[k] = (uint32_t)v;
        }
        if (rc == CS_OK && n < 2)
            rc = CS_ERR(err, CS_EINVAL, "%s:%d: routes[%zu]: expected a list of node ids [src, ..., dst]", doc->path, line, i);
        if (rc == CS_OK && (rc = cs_topo_add_fixed_route(t, nodes, (uint32_t)n, err)))
            cs_error_prefix(err, "%s:%d: routes[%zu]: ", doc->path, line, i);
    }
    cs_free(nodes);
    return rc;
}

/* A view of doc holding only some of its members (borrowed values; the
 * line index is doc's, which is looked up by key). */
static cs_jdoc view(const cs_jdoc *doc, json_t *obj) {
    cs_jdoc v = *doc;
    v.root = obj;
    return v;
}

/* Split the members: common keys, keys of some builder (to b's parse, which
 * rejects those of other builders), unknown keys (warned, with b's and the
 * common keys as suggestions). */
static int split(const cs_jdoc *doc, const cs_topo_builder *b, json_t *mine, json_t *builder_keys, cs_error *err) {
    const char *known[160];
    size_t nknown = 0;
    for (size_t i = 0; i < NCOMMON; i++) known[nknown++] = COMMON[i].key;
    for (size_t i = 0; i < b->nkeys && nknown < 160; i++) known[nknown++] = b->keys[i].key;
    for (size_t i = 0; i < doc->nm; i++) {
        const char *key = doc->m[i].key;
        json_t *v = json_object_get(doc->root, key);
        const cs_topo_builder *named = json_is_object(v) ? cs_topo_builder_find(key) : NULL;
        if (named == b) { /* the nested form */
            const char *k;
            json_t *x;
            json_object_foreach(v, k, x) json_object_set(builder_keys, k, x);
        } else if (named) {
            return CS_ERR(err, CS_EINVAL, "%s:%d: %s: keys of builder %s, but the builder is %s", doc->path,
                          doc->m[i].key_line, key, named->name, b->name);
        } else if (common_key(key)) {
            json_object_set(mine, key, v);
        } else if (cs_topo_builder_key(b, key) || cs_topo_builder_owner(key, b)) {
            json_object_set(builder_keys, key, v);
        } else {
            cs_warn_unknown_key(doc->path, doc->m[i].key_line, key, known, nknown);
        }
    }
    return CS_OK;
}

/* The effective values in the scenario's form: builder, the common keys
 * (lists as given), and the builder's keys with defaults under its name
 * (keys that default to "not set" only when given). */
static json_t *effective(const cs_topo_builder *b, const void *params, const json_t *given, const common *c,
                         json_t *mine) {
    json_t *j = json_object();
    json_object_set_new(j, "builder", json_string(b->name));
    json_object_set_new(j, "routing", json_string(ROUTINGS[c->routing]));
    json_object_set_new(j, "ecmp_seed", json_integer(c->ecmp_seed));
    char hb[32];
    json_object_set_new(j, "ecmp_hash", json_string(hash_text(c->ecmp_hash, hb, sizeof hb)));
    const char *k;
    json_t *v;
    json_object_foreach(mine, k, v) {
        if (strcmp(k, "builder") && strcmp(k, "routing") && strcmp(k, "ecmp_seed") && strcmp(k, "ecmp_hash"))
            json_object_set(j, k, v);
    }
    json_t *bk = cs_opts_to_json(b->keys, b->nkeys, params);
    for (size_t i = 0; i < b->nkeys; i++)
        if (b->keys[i].nodef && !json_object_get(given, b->keys[i].key)) json_object_del(bk, b->keys[i].key);
    json_object_set_new(j, b->name, bk);
    return j;
}

int cs_topology_load_text(const char *path, const char *text, size_t len, const cs_network_config *net,
                          cs_topo **out, json_t **eff, cs_error *err) {
    if (out) *out = NULL;
    if (eff) *eff = NULL;
    cs_jdoc doc;
    int rc = text ? cs_jdoc_load_text(path, text, len, "topology", &doc, err)
                  : cs_jdoc_load(path, "topology", &doc, err);
    if (rc) return rc;
    common c;
    memset(&c, 0, sizeof c);
    cs_opts_defaults(COMMON, NCOMMON, &c);
    const cs_topo_builder *b = NULL;
    void *params = NULL;
    cs_topo *t = NULL;
    json_t *mine = json_object(), *bkeys = json_object();
    cs_jdoc cv = view(&doc, mine), bv = view(&doc, bkeys);
    /* the builder first: its name decides which keys are valid */
    json_t *name = json_object_get(doc.root, "builder");
    if (name) json_object_set(mine, "builder", name);
    if (name && !(json_is_string(name) && (b = cs_topo_builder_find(json_string_value(name))))) {
        char names[512], got[320];
        cs_topo_builder_names(names, sizeof names);
        cs_json_repr(name, got, sizeof got);
        rc = CS_ERR(err, CS_EINVAL, "%s:%d: builder: expected one of %s, got %s", path,
                    cs_jdoc_key_line(&doc, "builder"), names, got);
    } else if (!name) {
        rc = cs_opts_parse(&cv, COMMON, 1, &c, NULL, err); /* "a required key, got no such key" */
    }
    if (rc == CS_OK) rc = split(&doc, b, mine, bkeys, err);
    if (rc == CS_OK) rc = cs_opts_parse(&cv, COMMON, NCOMMON, &c, NULL, err);
    if (rc == CS_OK) {
        params = cs_calloc(1, b->params_size ? b->params_size : 1);
        rc = cs_topo_builder_parse_doc(b, &bv, params, err);
    }
    if (rc == CS_OK && eff) *eff = effective(b, params, bkeys, &c, mine);
    if (rc == CS_OK && out) {
        char where[1100];
        snprintf(where, sizeof where, "%s:%d", path, cs_jdoc_key_line(&doc, "builder"));
        rc = cs_topo_builder_build(b, params, net, where, &t, err);
    }
    if (rc == CS_OK && out) {
        t->ecmp_seed = (uint64_t)c.ecmp_seed;
        t->ecmp_fields = c.ecmp_hash;
        t->spray = c.routing != 0;
        t->qps = c.routing == 2 ? (uint32_t)c.qps : 0;
        rc = read_routes(&doc, t, err);
        if (rc == CS_OK) rc = apply_failures(&doc, t, err);
        if (rc == CS_OK) rc = apply_changes(&doc, t, err);
    }
    if (rc == CS_OK && out && t->nnpus != net->total_npus)
        rc = CS_ERR(err, CS_EINVAL, "%s: the topology has %u NPUs but the network configuration %s has %llu",
                    path, t->nnpus, net->path ? net->path : "", (unsigned long long)net->total_npus);
    if (params) {
        cs_topo_builder_params_free(b, params);
        cs_free(params);
    }
    json_decref(mine);
    json_decref(bkeys);
    cs_opts_free(COMMON, NCOMMON, &c);
    cs_jdoc_free(&doc);
    if (rc) {
        cs_topo_free(t);
        if (eff) {
            json_decref(*eff);
            *eff = NULL;
        }
        return rc;
    }
    if (out) *out = t;
    return CS_OK;
}

int cs_topology_file_load(const char *path, const cs_network_config *net, cs_topo **out, cs_error *err) {
    return cs_topology_load_text(path, NULL, 0, net, out, NULL, err);
}

const cs_opt *cs_topology_common_keys(size_t *n) {
    *n = NCOMMON;
    return COMMON;
}

void cs_topology_file_print_help(FILE *f) {
    fputs("Keys of every topology file:\n", f);
    cs_opts_print_help(f, COMMON, NCOMMON);
    fputs("\nEach builder's own keys (a key of another builder is an error):\n", f);
    cs_topo_builders_print_help(f);
}
