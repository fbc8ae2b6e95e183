/*
 * builder.c -- the registry of topology builders and the functions that parse
 * a builder's keys and run it (builder.h).
 *
 * The registry is the one list below (REGISTRY): a builder appears there
 * once, in the order --help-config shows them.  Parsing goes through the option-table
 * engine (core/opts.h) with the builder's own table; a member that belongs
 * to no key of the builder is rejected here, naming the builders it does
 * belong to.  Owns nothing: params buffers and topologies are the caller's.
 */
#include "topology/builder.h"

#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "core/time.h"
#include "core/units.h"

/* The registry: X(id) for the entry cs_topo_builder_<id> a build_*.c
 * exports.  One line declares it and lists it. */
#define REGISTRY(X) \
    X(astra)        \
    X(fattree)      \
    X(rail)         \
    X(edges)        \
    X(clos3)        \
    X(torus)        \
    X(mesh)         \
    X(dragonfly)    \
    X(servers)      \
    /* one line per builder, each ending in a backslash, above this one */

#define DECLARE(id) extern const cs_topo_builder cs_topo_builder_##id;
REGISTRY(DECLARE)
#define ENTRY(id) &cs_topo_builder_##id,
static const cs_topo_builder *const builders[] = {REGISTRY(ENTRY)};
#define NBUILDERS (sizeof builders / sizeof builders[0])

size_t cs_topo_builder_count(void) { return NBUILDERS; }

const cs_topo_builder *cs_topo_builder_at(size_t i) { return i < NBUILDERS ? builders[i] : NULL; }

const cs_topo_builder *cs_topo_builder_find(const char *name) {
    for (size_t i = 0; i < NBUILDERS; i++)
        if (strcmp(builders[i]->name, name) == 0) return builders[i];
    return NULL;
}

/* Append s to buf[0..n) at *used, with ", " between entries. */
static void append(char *buf, size_t n, size_t *used, const char *s) {
    if (*used >= n) return;
    int w = snprintf(buf + *used, n - *used, "%s%s", *used ? ", " : "", s);
    *used += w > 0 ? (size_t)w : 0;
}

void cs_topo_builder_names(char *buf, size_t n) {
    size_t used = 0;
    if (n) buf[0] = '\0';
    for (size_t i = 0; i < NBUILDERS; i++) append(buf, n, &used, builders[i]->name);
}

const cs_opt *cs_topo_builder_key(const cs_topo_builder *b, const char *key) {
    for (size_t i = 0; i < b->nkeys; i++)
        if (strcmp(b->keys[i].key, key) == 0) return &b->keys[i];
    return NULL;
}

const cs_topo_builder *cs_topo_builder_owner(const char *key, const cs_topo_builder *b) {
    for (size_t i = 0; i < NBUILDERS; i++)
        if (builders[i] != b && cs_topo_builder_key(builders[i], key)) return builders[i];
    return NULL;
}

static int not_a_key(const cs_topo_builder *b, const cs_jdoc *doc, const char *key, cs_error *err) {
    char owners[256], keys[512], esc[160];
    size_t used = 0;
    owners[0] = '\0';
    for (size_t i = 0; i < NBUILDERS; i++)
        if (builders[i] != b && cs_topo_builder_key(builders[i], key)) append(owners, sizeof owners, &used, builders[i]->name);
    used = 0;
    keys[0] = '\0';
    for (size_t i = 0; i < b->nkeys; i++) append(keys, sizeof keys, &used, b->keys[i].key);
    cs_escape(key, 64, esc, sizeof esc);
    return CS_ERR(err, CS_EINVAL, "%s:%d: %s: not a key of builder %s (%s%s%s%s's keys: %s)", doc->path,
                  cs_jdoc_key_line(doc, key), esc, b->name, owners[0] ? "a key of " : "", owners,
                  owners[0] ? "; " : "", b->name, b->nkeys ? keys : "none");
}

int cs_topo_builder_parse_doc(const cs_topo_builder *b, const cs_jdoc *doc, void *params, cs_error *err) {
    memset(params, 0, b->params_size);
    cs_opts_defaults(b->keys, b->nkeys, params);
    /* reject members first, in file order, so the message names the first one */
    const char *key;
    json_t *v;
    json_object_foreach(doc->root, key, v) {
        if (!cs_topo_builder_key(b, key)) return not_a_key(b, doc, key, err);
    }
    return cs_opts_parse(doc, b->keys, b->nkeys, params, NULL, err);
}

int cs_topo_builder_parse(const cs_topo_builder *b, json_t *obj, const char *where, void *params, cs_error *err) {
    if (!json_is_object(obj)) {
        memset(params, 0, b->params_size);
        cs_opts_defaults(b->keys, b->nkeys, params);
        return CS_ERR(err, CS_EINVAL, "%s: expected an object of %s keys", where, b->name);
    }
    cs_jdoc doc = {.path = (char *)(uintptr_t)where, .root = obj, .root_line = 0, .m = NULL, .nm = 0};
    return cs_topo_builder_parse_doc(b, &doc, params, err);
}

void cs_topo_builder_params_free(const cs_topo_builder *b, void *params) { cs_opts_free(b->keys, b->nkeys, params); }

int cs_topo_builder_build(const cs_topo_builder *b, const void *params, const cs_network_config *net,
                          const char *where, cs_topo **out, cs_error *err) {
    *out = NULL;
    uint64_t npus = b->npus ? b->npus(params, net) : net->total_npus;
    if (npus != net->total_npus)
        return CS_ERR(err, CS_EINVAL, "%s: the topology has %" PRIu64 " NPUs but the network configuration %s has %llu",
                      where, npus, net->path ? net->path : "", (unsigned long long)net->total_npus);
    int rc = b->check ? b->check(params, net, err) : CS_OK;
    if (rc) return rc;
    rc = b->build(params, net, out, err);
    /* Values derived from the keys (an uplink's bandwidth from
     * oversubscription 1e300) are bounded as the keys are: every link's
     * bandwidth moves a byte within the simulated-time range and stays
     * finite in the backends' rates, every latency is within that range. */
    const cs_topo *t = rc == CS_OK ? *out : NULL;
    for (uint32_t l = 0; t && l < t->nlinks; l++) {
        double gbps = t->links[l].bw / cs_gbps_to_bytes_per_ns(1);
        if (t->links[l].bw > 0 && (gbps < CS_GBPS_MIN || gbps > CS_GBPS_MAX))
            rc = CS_ERR(err, CS_EINVAL, "builder %s: link %u (node %u -> node %u) gets %g GB/s from the keys; "
                        "expected from %g to %g GB/s (one byte within " CS_TIME_RANGE_TEXT ")",
                        b->name, l, t->links[l].src, t->links[l].dst, gbps, CS_GBPS_MIN, CS_GBPS_MAX);
        else if (t->links[l].lat >= CS_TIME_MAX)
            rc = CS_ERR(err, CS_EINVAL, "builder %s: link %u (node %u -> node %u) gets a latency beyond "
                        CS_TIME_RANGE_TEXT " from the keys", b->name, l, t->links[l].src, t->links[l].dst);
        if (rc) {
            cs_topo_free(*out);
            *out = NULL;
            break;
        }
    }
    if (rc) cs_error_prefix(err, "%s: ", where);
    return rc;
}

void cs_topo_builders_print_help(FILE *f) {
    for (size_t i = 0; i < NBUILDERS; i++) {
        const cs_topo_builder *b = builders[i];
        fprintf(f, "\n-- builder \"%s\": %s\n", b->name, b->help);
        if (b->nkeys) cs_opts_print_help(f, b->keys, b->nkeys);
        else fprintf(f, "  (no keys)\n");
    }
}

int cs_topo_json_tuple(const cs_jdoc *doc, const char *key, size_t i, const json_t *v, size_t n, size_t nint,
                       const char *what, double *out, cs_error *err) {
    int line = cs_jdoc_elem_line(doc, key, i);
    if (json_is_integer(v) && n == 1) { /* a bare number for a one-column tuple (a node id) */
        if (json_integer_value(v) < 0)
            return CS_ERR(err, CS_EINVAL, "%s:%d: %s[%zu]: expected %s, got %" JSON_INTEGER_FORMAT, doc->path, line, key,
                          i, what, json_integer_value(v));
        out[0] = (double)json_integer_value(v);
        return CS_OK;
    }
    if (!json_is_array(v) || json_array_size(v) != n)
        return CS_ERR(err, CS_EINVAL, "%s:%d: %s[%zu]: expected %s", doc->path, line, key, i, what);
    for (size_t k = 0; k < n; k++) {
        const json_t *x = json_array_get(v, k);
        long long ll;
        if (!json_is_number(x) || (k < nint && cs_json_ll(x, &ll)) || json_number_value(x) < 0)
            return CS_ERR(err, CS_EINVAL, "%s:%d: %s[%zu]: expected %s", doc->path, line, key, i, what);
        out[k] = json_number_value(x);
    }
    return CS_OK;
}
