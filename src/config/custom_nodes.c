/*
 * custom_nodes.c -- reader of the per-node-custom-implementation YAML (see
 * custom_nodes.h): libyaml's document API, one mapping of scalars.
 */
#include "config/custom_nodes.h"
#include "config/yaml_depth.h"

#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "core/alloc.h"
#include "core/opts.h"

static int line_of(const yaml_node_t *n) { return (int)n->start_mark.line + 1; }

/* "12" -> 12: decimal digits only, at most 2147483647; 0, or -1. */
static int parse_id(const char *s, uint64_t *out) {
    if (!*s || strlen(s) > 10) return -1;
    uint64_t v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9') return -1;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    if (v > 2147483647u) return -1;
    *out = v;
    return 0;
}

typedef struct entry {
    uint64_t id;
    const char *prefix;
    int line;
} entry;

static int cmp_entry(const void *a, const void *b) {
    const entry *x = a, *y = b;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

static int check(yaml_document_t *doc, const char *path, cs_custom_node_map *out, cs_error *err) {
    yaml_node_t *root = yaml_document_get_root_node(doc);
    if (!root)
        return CS_ERR(err, CS_EINVAL, "%s:1: expected a mapping of trace node ids to custom collective prefixes, "
                      "got an empty file", path);
    if (root->type != YAML_MAPPING_NODE)
        return CS_ERR(err, CS_EINVAL, "%s:%d: expected a mapping of trace node ids to custom collective prefixes "
                      "(\"12: graphs/allreduce\"), got %s", path, line_of(root),
                      root->type == YAML_SEQUENCE_NODE ? "a list" : "a single value");
    size_t n = (size_t)(root->data.mapping.pairs.top - root->data.mapping.pairs.start);
    entry *e = cs_calloc(n ? n : 1, sizeof *e);
    int rc = CS_OK;
    size_t k = 0;
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top && !rc; p++, k++) {
        yaml_node_t *key = yaml_document_get_node(doc, p->key);
        yaml_node_t *val = yaml_document_get_node(doc, p->value);
        if (!key || !val) {
            rc = CS_ERR(err, CS_EINVAL, "%s:%d: expected a key and a value", path, line_of(root));
            break;
        }
        if (key->type != YAML_SCALAR_NODE || parse_id((const char *)key->data.scalar.value, &e[k].id)) {
            rc = CS_ERR(err, CS_EINVAL, "%s:%d: expected a trace node id (an integer from 0 to 2147483647) as "
                        "the key, got %.64s", path, line_of(key),
                        key->type == YAML_SCALAR_NODE ? (const char *)key->data.scalar.value : "a list or mapping");
            break;
        }
        if (val->type != YAML_SCALAR_NODE || val->data.scalar.length == 0 ||
            strlen((const char *)val->data.scalar.value) != val->data.scalar.length) {
            rc = CS_ERR(err, CS_EINVAL, "%s:%d: node %llu: expected the prefix of a custom collective's graphs "
                        "(PREFIX.<rank>.et), got %s", path, line_of(val), (unsigned long long)e[k].id,
                        val->type != YAML_SCALAR_NODE ? "a list or mapping" : "an empty or invalid string");
            break;
        }
        e[k].prefix = (const char *)val->data.scalar.value;
        e[k].line = line_of(key);
    }
    if (rc == CS_OK && n) {
        qsort(e, n, sizeof *e, cmp_entry);
        for (size_t i = 1; i < n && !rc; i++)
            if (e[i].id == e[i - 1].id)
                rc = CS_ERR(err, CS_EINVAL, "%s:%d: node %llu: expected each trace node id once, got it again "
                            "(first on line %d)", path, e[i].line, (unsigned long long)e[i].id, e[i - 1].line);
    }
    if (rc == CS_OK) {
        out->n = n;
        out->ids = cs_malloc((n ? n : 1) * sizeof *out->ids);
        out->prefix = cs_calloc(n ? n : 1, sizeof *out->prefix);
        out->line = cs_malloc((n ? n : 1) * sizeof *out->line);
        for (size_t i = 0; i < n; i++) {
            out->ids[i] = e[i].id;
            out->prefix[i] = cs_strdup(e[i].prefix);
            out->line[i] = e[i].line;
        }
    }
    cs_free(e);
    return rc;
}

/* A valid file nests one mapping of scalars: deeper nesting is refused before libyaml's loader sees it. */
#define MAX_DEPTH 4

int cs_custom_nodes_load_text(const char *path, const char *buf, size_t len, cs_custom_node_map *out,
                              cs_error *err) {
    memset(out, 0, sizeof *out);
    int rc = cs_yaml_check_depth(path, buf, len, MAX_DEPTH, "a mapping of node ids to prefixes", err);
    if (rc) return rc;
    yaml_parser_t parser;
    yaml_document_t doc;
    if (!yaml_parser_initialize(&parser)) return CS_ERR(err, CS_ENOMEM, "%s: cannot initialise the YAML parser", path);
    yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
    if (!yaml_parser_load(&parser, &doc)) {
        rc = CS_ERR(err, CS_EINVAL, "%s:%d: expected valid YAML, got a syntax error at column %d: %s%s%s", path,
                    (int)parser.problem_mark.line + 1, (int)parser.problem_mark.column + 1,
                    parser.problem ? parser.problem : "unknown problem", parser.context ? " " : "",
                    parser.context ? parser.context : "");
        yaml_parser_delete(&parser);
        return rc;
    }
    out->path = cs_strdup(path);
    rc = check(&doc, path, out, err);
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    if (rc) cs_custom_node_map_free(out);
    return rc;
}

int cs_custom_nodes_load(const char *path, cs_custom_node_map *out, cs_error *err) {
    memset(out, 0, sizeof *out);
    char *buf;
    size_t len;
    int rc = cs_read_file(path, &buf, &len, err);
    if (rc) return rc;
    rc = cs_custom_nodes_load_text(path, buf, len, out, err);
    cs_free(buf);
    return rc;
}
