/*
 * network_config.c -- reader for the ASTRA-sim analytical network YAML
 * (see network_config.h).
 *
 * libyaml's document API gives a node tree with line marks; the four keys
 * are declared once in KEYS (name, element type, unit, help), which drives
 * parsing, the messages, the effective-config dump and --help.  Order of
 * checks: YAML syntax, top-level mapping, duplicate keys, unknown keys
 * (warnings), missing keys, each list's type and elements, list lengths,
 * total NPU count.  Before the document is built, a pass over libyaml's
 * event stream refuses nesting deeper than CS_NETWORK_MAX_DEPTH (libyaml
 * spends time quadratic in the depth, and a valid file needs two levels).
 * Before any of this, other_format() hands the text to the readers of
 * what is not this YAML: ASTRA-sim 1.0's JSON (network_astra1.c, mapped)
 * and the ns-3 / HTSim files (network_foreign.c, refused with a message).
 */
#define _GNU_SOURCE /* memmem */
#include "config/network_config.h"
#include "config/yaml_depth.h"

#include <ctype.h>
#include <string.h>
#include <yaml.h>

#include "config/network_astra1.h"
#include "config/network_foreign.h"
#include "core/opts.h"
#include "core/alloc.h"
#include "core/time.h"
#include "core/units.h"

enum { K_TOPOLOGY, K_NPUS, K_BANDWIDTH, K_LATENCY, K_COUNT };

static const struct net_key {
    const char *key;
    const char *elem;  /* what one entry must be */
    const char *elems; /* what the list must be */
    const char *unit;
    const char *help;
} KEYS[K_COUNT] = {
    {"topology", "one of Ring, FullyConnected, Switch", "names Ring, FullyConnected or Switch",
     NULL,
     "building block of each dimension: Ring (bidirectional ring of neighbour links), "
     "FullyConnected (a direct link between every pair), Switch (every NPU linked to one switch)"},
    {"npus_count", "an integer between 1 and 4294967295", "integers >= 1", NULL,
     "NPUs in each dimension; the network has their product (at most 2^32); dimension 0 is "
     "the innermost (fastest-varying) index of the NPU id"},
    {"bandwidth", "a number > 0 and <= 1e15", "numbers > 0 and <= 1e15", "GB/s",
     "bandwidth of one link in one direction, per dimension (ASTRA-sim converts with 2^30 "
     "bytes per GB)"},
    {"latency", "a number >= 0 and <= 18446744073709551", "numbers >= 0 and <= 18446744073709551", "ns",
     "latency of one link (one hop), per dimension; at most the simulated-time range of 2^64 ps"},
};

void cs_network_config_free(cs_network_config *c) {
    if (!c) return;
    cs_free(c->path);
    memset(c, 0, sizeof *c);
}

static int line_of(const yaml_node_t *n) { return (int)n->start_mark.line + 1; }

static int is_null_scalar(const yaml_node_t *n) {
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) return 0;
    const char *s = (const char *)n->data.scalar.value;
    return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
           !strcmp(s, "NULL");
}

/* "got ..." text for a node. */
static void node_repr(const yaml_node_t *n, char *buf, size_t size) {
    if (!n) {
        snprintf(buf, size, "nothing");
        return;
    }
    switch (n->type) {
    case YAML_SCALAR_NODE: {
        char esc[256];
        cs_escape((const char *)n->data.scalar.value, 48, esc, sizeof esc);
        if (is_null_scalar(n))
            snprintf(buf, size, "nothing (null)");
        else if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
            snprintf(buf, size, "%s", esc);
        else
            snprintf(buf, size, "\"%s\"", esc);
        break;
    }
    case YAML_SEQUENCE_NODE: {
        long k = n->data.sequence.items.top - n->data.sequence.items.start;
        snprintf(buf, size, "a list of %ld entr%s", k, k == 1 ? "y" : "ies");
        break;
    }
    case YAML_MAPPING_NODE: snprintf(buf, size, "a mapping"); break;
    default: snprintf(buf, size, "nothing"); break;
    }
}

static const char *scalar_text(const yaml_node_t *n) {
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static int parse_element(const char *path, int k, int dim, const yaml_node_t *e,
                         cs_network_config *c, cs_error *err) {
    const char *s = is_null_scalar(e) ? NULL : scalar_text(e);
    switch (k) {
    case K_TOPOLOGY:
        for (int t = 0; s && t < CS_TOPO_NKINDS; t++) {
            if (strcmp(s, cs_topo_kind_name((cs_topo_kind)t)) == 0) {
                c->topo[dim] = (cs_topo_kind)t;
                return CS_OK;
            }
        }
        break;
    case K_NPUS: {
        long long v;
        if (s && cs_parse_ll(s, &v) == 0 && v >= 1 && v <= (long long)UINT32_MAX) {
            c->npus[dim] = (uint32_t)v;
            return CS_OK;
        }
        break;
    }
    case K_BANDWIDTH: {
        double v;
        if (s && cs_parse_double(s, &v) == 0 && v > 0 && v < CS_GBPS_MIN) {
            char got[320];
            node_repr(e, got, sizeof got);
            return CS_ERR(err, CS_EINVAL,
                          "%s:%d: bandwidth: %s GB/s for dimension %d: one byte would take %.3g ns, beyond "
                          CS_TIME_RANGE_TEXT "; expected a number >= %g",
                          path, line_of(e), got, dim, 1.0 / cs_gbps_to_bytes_per_ns(v), CS_GBPS_MIN);
        }
        if (s && cs_parse_double(s, &v) == 0 && v > CS_GBPS_MAX) {
            char got[320];
            node_repr(e, got, sizeof got);
            return CS_ERR(err, CS_EINVAL,
                          "%s:%d: bandwidth: %s GB/s for dimension %d: expected a number <= %g (the largest "
                          "bandwidth a link may have)",
                          path, line_of(e), got, dim, CS_GBPS_MAX);
        }
        if (s && cs_parse_double(s, &v) == 0 && v > 0) {
            c->bandwidth_gbps[dim] = v;
            return CS_OK;
        }
        break;
    }
    case K_LATENCY: {
        double v;
        if (s && cs_parse_double(s, &v) == 0 && v >= 0 && v <= (double)CS_TIME_MAX_NS) {
            c->latency_ns[dim] = v;
            return CS_OK;
        }
        break;
    }
    default: break;
    }
    char got[320];
    node_repr(e, got, sizeof got);
    const struct net_key *key = &KEYS[k];
    return CS_ERR(err, CS_EINVAL, "%s:%d: %s: expected %s%s%s%s for dimension %d, got %s", path,
                  line_of(e), key->key, key->elem, key->unit ? " (in " : "",
                  key->unit ? key->unit : "", key->unit ? ")" : "", dim, got);
}

static int check(yaml_document_t *doc, const char *path, cs_network_config *c, cs_error *err) {
    yaml_node_t *root = yaml_document_get_root_node(doc);
    static const char *const known[K_COUNT] = {"topology", "npus_count", "bandwidth", "latency"};
    if (!root || is_null_scalar(root))
        return CS_ERR(err, CS_EINVAL,
                      "%s:1: expected a mapping with keys topology, npus_count, bandwidth and "
                      "latency, got an empty document",
                      path);
    if (root->type != YAML_MAPPING_NODE) {
        char got[320];
        node_repr(root, got, sizeof got);
        return CS_ERR(err, CS_EINVAL,
                      "%s:%d: expected a mapping with keys topology, npus_count, bandwidth and "
                      "latency, got %s",
                      path, line_of(root), got);
    }
    yaml_node_t *val[K_COUNT] = {0};
    int key_line[K_COUNT] = {0};
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
         p++) {
        yaml_node_t *kn = yaml_document_get_node(doc, p->key);
        yaml_node_t *vn = yaml_document_get_node(doc, p->value);
        const char *ks = scalar_text(kn);
        if (!ks) {
            char got[320];
            node_repr(kn, got, sizeof got);
            return CS_ERR(err, CS_EINVAL, "%s:%d: expected a key name, got %s", path,
                          line_of(kn), got);
        }
        int k = -1;
        for (int i = 0; i < K_COUNT; i++)
            if (strcmp(ks, KEYS[i].key) == 0) k = i;
        if (k < 0) {
            cs_warn_unknown_key(path, line_of(kn), ks, known, K_COUNT);
            continue;
        }
        if (val[k]) /* ks is one of KEYS: no escaping needed */
            return CS_ERR(err, CS_EINVAL,
                          "%s:%d: %s: expected each key once, got a second definition (first "
                          "at line %d)",
                          path, line_of(kn), ks, key_line[k]);
        val[k] = vn;
        key_line[k] = line_of(kn);
    }
    for (int k = 0; k < K_COUNT; k++) {
        if (!val[k])
            return CS_ERR(err, CS_EINVAL,
                          "%s:%d: %s: expected a list of %s%s%s%s, one per dimension (a required "
                          "key), got no such key",
                          path, line_of(root), KEYS[k].key, KEYS[k].elems,
                          KEYS[k].unit ? " (in " : "", KEYS[k].unit ? KEYS[k].unit : "",
                          KEYS[k].unit ? ")" : "");
    }
    for (int k = 0; k < K_COUNT; k++) {
        yaml_node_t *v = val[k];
        if (v->type != YAML_SEQUENCE_NODE) {
            char got[320];
            node_repr(v, got, sizeof got);
            return CS_ERR(err, CS_EINVAL,
                          "%s:%d: %s: expected a list of %s%s%s%s, one per dimension, got %s",
                          path, key_line[k], KEYS[k].key, KEYS[k].elems,
                          KEYS[k].unit ? " (in " : "", KEYS[k].unit ? KEYS[k].unit : "",
                          KEYS[k].unit ? ")" : "", got);
        }
        long n = v->data.sequence.items.top - v->data.sequence.items.start;
        if (k == K_TOPOLOGY) {
            if (n < 1 || n > CS_MAX_DIMS)
                return CS_ERR(err, CS_EINVAL,
                              "%s:%d: topology: expected 1 to %d entries (one per dimension), "
                              "got %ld",
                              path, key_line[k], CS_MAX_DIMS, n);
            c->ndims = (int)n;
        } else if (n != c->ndims) {
            return CS_ERR(err, CS_EINVAL,
                          "%s:%d: %s: expected %d entr%s (one per dimension, as topology at line "
                          "%d), got %ld",
                          path, key_line[k], KEYS[k].key, c->ndims, c->ndims == 1 ? "y" : "ies",
                          key_line[K_TOPOLOGY], n);
        }
        for (int d = 0; d < (int)n; d++) {
            yaml_node_t *e = yaml_document_get_node(doc, v->data.sequence.items.start[d]);
            int rc = parse_element(path, k, d, e, c, err);
            if (rc) return rc;
        }
    }
    uint64_t total = 1;
    char prod[256] = "";
    size_t used = 0;
    for (int d = 0; d < c->ndims; d++) {
        total *= c->npus[d]; /* < 2^32 * 2^32: no uint64 overflow */
        if (used < sizeof prod)
            used += (size_t)snprintf(prod + used, sizeof prod - used, "%s%u", d ? " x " : "",
                                     c->npus[d]);
        if (total > CS_MAX_TOTAL_NPUS)
            return CS_ERR(err, CS_EINVAL,
                          "%s:%d: npus_count: expected at most 4294967295 NPUs in total, got "
                          "%s = %llu after dimension %d",
                          path, key_line[K_NPUS], prod, (unsigned long long)total, d);
    }
    c->total_npus = total;
    return CS_OK;
}

int cs_network_config_load(const char *path, cs_network_config *out, cs_error *err) {
    memset(out, 0, sizeof *out);
    char *buf;
    size_t len;
    int rc = cs_read_file(path, &buf, &len, err);
    if (rc) return rc;
    rc = cs_network_config_load_text(path, buf, len, out, err);
    cs_free(buf);
    return rc;
}

/* Files that are not this YAML: other backends' network files (refused,
 * network_foreign.h) and ASTRA-sim 1.0's JSON (read, network_astra1.h).
 * 1 = handled (rc set), 0 = read it as YAML. */
static int other_format(const char *path, const char *buf, size_t len, cs_network_config *out, cs_error *err,
                        int *rc) {
    *rc = cs_network_foreign_text(path, buf, len, err);
    if (*rc) return 1;
    size_t i = 0;
    while (i < len && isspace((unsigned char)buf[i])) i++;
    if (i == len || buf[i] != '{') return 0;
    cs_jdoc doc;
    if (cs_jdoc_load_text(path, buf, len, "network configuration", &doc, err) != CS_OK) {
        /* a JSON object with 1.0's keys: its JSON error; anything else: the YAML reader's */
        if (!memmem(buf, len, "\"units-count\"", 13) && !memmem(buf, len, "\"dimensions-count\"", 18)) {
            cs_error_clear(err);
            return 0;
        }
        *rc = err->code ? err->code : CS_EINVAL;
        return 1;
    }
    int handled = 1;
    *rc = cs_network_foreign_json(path, buf, len, doc.root, err);
    if (*rc == CS_OK && cs_network_astra1_is(doc.root)) *rc = cs_network_astra1_load(&doc, out, err);
    else if (*rc == CS_OK) handled = 0;
    cs_jdoc_free(&doc);
    return handled;
}

int cs_network_config_load_text(const char *path, const char *buf, size_t len, cs_network_config *out,
                                cs_error *err) {
    memset(out, 0, sizeof *out);
    int rc;
    if (other_format(path, buf, len, out, err, &rc)) {
        if (rc) cs_network_config_free(out);
        return rc;
    }
    rc = cs_yaml_check_depth(path, buf, len, CS_NETWORK_MAX_DEPTH, "the nesting limit of a network file", err);
    if (rc) return rc;

    yaml_parser_t parser;
    yaml_document_t doc;
    int have_doc = 0;
    if (!yaml_parser_initialize(&parser)) {
        return CS_ERR(err, CS_ENOMEM, "%s: cannot initialise the YAML parser", path);
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
    if (!yaml_parser_load(&parser, &doc)) {
        rc = CS_ERR(err, CS_EINVAL, "%s:%d: expected valid YAML, got a syntax error at column %d: "
                    "%s%s%s",
                    path, (int)parser.problem_mark.line + 1, (int)parser.problem_mark.column + 1,
                    parser.problem ? parser.problem : "unknown problem",
                    parser.context ? " " : "", parser.context ? parser.context : "");
        goto out;
    }
    have_doc = 1;
    out->path = cs_strdup(path);
    rc = check(&doc, path, out, err);
    if (rc == CS_OK) {
        /* a second document would be ignored by ASTRA-sim's yaml-cpp LoadFile */
        yaml_document_t doc2;
        if (yaml_parser_load(&parser, &doc2)) {
            yaml_node_t *r2 = yaml_document_get_root_node(&doc2);
            if (r2)
                rc = CS_ERR(err, CS_EINVAL,
                            "%s:%d: expected a single YAML document, got a second one", path,
                            line_of(r2));
            yaml_document_delete(&doc2);
        }
    }
out:
    if (have_doc) yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    if (rc) cs_network_config_free(out);
    return rc;
}

json_t *cs_network_config_to_json(const cs_network_config *c) {
    json_t *obj = json_object();
    json_t *lists[K_COUNT];
    for (int k = 0; k < K_COUNT; k++) {
        lists[k] = json_array();
        json_object_set_new(obj, KEYS[k].key, lists[k]);
    }
    for (int d = 0; d < c->ndims; d++) {
        json_array_append_new(lists[K_TOPOLOGY], json_string(cs_topo_kind_name(c->topo[d])));
        json_array_append_new(lists[K_NPUS], json_integer((json_int_t)c->npus[d]));
        json_array_append_new(lists[K_BANDWIDTH], json_real(c->bandwidth_gbps[d]));
        json_array_append_new(lists[K_LATENCY], json_real(c->latency_ns[d]));
    }
    return obj;
}

json_t *cs_network_config_units_json(void) {
    json_t *obj = json_object();
    for (int k = 0; k < K_COUNT; k++)
        if (KEYS[k].unit) json_object_set_new(obj, KEYS[k].key, json_string(KEYS[k].unit));
    return obj;
}

void cs_network_config_print_help(FILE *f) {
    fprintf(f, "Network configuration (YAML; every key required; one list entry per "
               "dimension, 1 to %d dimensions):\n",
            CS_MAX_DIMS);
    for (int k = 0; k < K_COUNT; k++) {
        fprintf(f, "  %s\n      list of %s%s%s; required\n      %s\n", KEYS[k].key,
                KEYS[k].elems, KEYS[k].unit ? ", in " : "", KEYS[k].unit ? KEYS[k].unit : "",
                KEYS[k].help);
    }
}
