/*
 * build_edges.c -- the "edges" builder: an explicit list of cables
 * [a, b, bandwidth GB/s, latency ns] between NPUs 0..npus-1 and switches
 * npus..npus+switches-1.
 *
 * The list is a key of this builder (a CS_OPT_CUSTOM option): parsing keeps
 * each cable with its element line and the file's name, so that check can
 * say "file:line: edges[i]: node 17 does not exist" once the node count is
 * known (npus may be the network configuration's).  The params own that
 * list (freed by the option's free_fn).  Owns nothing beyond the result.
 */
#include "topology/builder.h"
#include "topology/topology.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/time.h"
#include "core/units.h"

typedef struct edge_list {
    size_t n;
    double (*e)[4]; /* a, b, GB/s, ns */
    int *lines;     /* element lines */
    char *where;    /* the file (or namespace) the list came from */
} edge_list;

typedef struct keys {
    int npus, switches;
    edge_list edges;
} keys;

#define WHAT "[a, b, bandwidth GB/s, latency ns] with node ids a != b"

static void free_edges(void *field) {
    edge_list *l = field;
    cs_free(l->e);
    cs_free(l->lines);
    cs_free(l->where);
    memset(l, 0, sizeof *l);
}

static int parse_edges(const cs_jdoc *doc, const cs_opt *o, const json_t *v, void *field, cs_error *err) {
    edge_list *l = field;
    free_edges(l);
    if (!json_is_array(v))
        return CS_ERR(err, CS_EINVAL, "%s:%d: %s: expected %s", doc->path, cs_jdoc_key_line(doc, o->key), o->key,
                      o->type_text);
    size_t n = json_array_size(v);
    l->e = cs_calloc(n ? n : 1, sizeof *l->e);
    l->lines = cs_calloc(n ? n : 1, sizeof *l->lines);
    l->where = cs_strdup(doc->path);
    for (size_t i = 0; i < n; i++) {
        int rc = cs_topo_json_tuple(doc, o->key, i, json_array_get(v, i), 4, 2, WHAT, l->e[i], err);
        if (rc) return rc;
        int line = cs_jdoc_elem_line(doc, o->key, i);
        double bw = l->e[i][2], lat = l->e[i][3];
        if (bw > 0 && (bw < CS_GBPS_MIN || bw > CS_GBPS_MAX))
            return CS_ERR(err, CS_EINVAL, "%s:%d: %s[%zu]: bandwidth %g GB/s; expected a number from %g to %g (one "
                          "byte within " CS_TIME_RANGE_TEXT ", and finite rates)",
                          doc->path, line, o->key, i, bw, CS_GBPS_MIN, CS_GBPS_MAX);
        if (lat > CS_TIME_MAX_NS_F)
            return CS_ERR(err, CS_EINVAL, "%s:%d: %s[%zu]: latency %g ns; expected at most %.0f ns, "
                          CS_TIME_RANGE_TEXT, doc->path, line, o->key, i, lat, floor(CS_TIME_MAX_NS_F));
        l->lines[i] = line;
        l->n = i + 1;
    }
    return CS_OK;
}

static json_t *dump_edges(const cs_opt *o, const void *field) {
    (void)o;
    const edge_list *l = field;
    json_t *a = json_array();
    for (size_t i = 0; i < l->n; i++)
        json_array_append_new(a, json_pack("[ffff]", l->e[i][0], l->e[i][1], l->e[i][2], l->e[i][3]));
    return a;
}

static const cs_opt KEYS[] = {
    CS_TOPO_INT_KEY(keys, "npus", npus, 0, 0, "NPUs (0 = the network configuration's count)"),
    CS_TOPO_INT_KEY(keys, "switches", switches, 0, 0, "switch nodes, numbered npus .. npus+switches-1"),
    {.key = "edges", .type = CS_OPT_CUSTOM, .required = 1, .off = offsetof(keys, edges),
     .type_text = "a list of [a, b, bandwidth GB/s, latency ns]", .parse = parse_edges, .dump = dump_edges,
     .free_fn = free_edges, .help = "the cables, both directions each"},
};

static uint64_t npus_of(const keys *c, const cs_network_config *net) {
    return c->npus ? (uint64_t)c->npus : net->total_npus;
}

/* Cables as (smaller node, larger node, index), for finding duplicates. */
typedef struct pair { uint32_t a, b; size_t i; } pair;
static int cmp_pair(const void *x, const void *y) {
    const pair *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    if (p->b != q->b) return p->b < q->b ? -1 : 1;
    return p->i < q->i ? -1 : p->i > q->i;
}

/* The second cable between two nodes that already have one (any
 * direction): CS_EINVAL naming both cables and both endpoints. */
static int check_duplicates(const edge_list *l, cs_error *err) {
    if (l->n < 2) return CS_OK;
    pair *p = cs_malloc(l->n * sizeof *p);
    for (size_t i = 0; i < l->n; i++) {
        uint32_t a = (uint32_t)l->e[i][0], b = (uint32_t)l->e[i][1];
        p[i] = (pair){a < b ? a : b, a < b ? b : a, i};
    }
    qsort(p, l->n, sizeof *p, cmp_pair);
    size_t first = SIZE_MAX, second = SIZE_MAX; /* the duplicate listed earliest */
    for (size_t k = 1; k < l->n; k++)
        if (p[k].a == p[k - 1].a && p[k].b == p[k - 1].b && (second == SIZE_MAX || p[k].i < second)) {
            first = p[k - 1].i;
            second = p[k].i;
        }
    cs_free(p);
    if (second == SIZE_MAX) return CS_OK;
    return CS_ERR(err, CS_EINVAL,
                  "%s:%d: edges[%zu]: a second cable between nodes %.0f and %.0f (the first: edges[%zu], line %d); "
                  "expected one cable per pair of nodes, both directions (give it the bandwidth of both)",
                  l->where, l->lines[second], second, l->e[second][0], l->e[second][1], first, l->lines[first]);
}

/* Every cable between two different existing nodes, with a bandwidth, once;
 * the node and cable counts within the limits (before anything is built). */
static int check(const void *params, const cs_network_config *net, cs_error *err) {
    const keys *c = params;
    const edge_list *l = &c->edges;
    uint64_t nodes = (uint64_t)npus_of(c, net) + (uint64_t)c->switches;
    char what[1200];
    snprintf(what, sizeof what, "%s: edges: %" PRIu64 " NPUs + %d switches", l->where ? l->where : "edges",
             (uint64_t)npus_of(c, net), c->switches);
    int rc = cs_topo_check_size(what, nodes, l->n, err);
    if (rc) return rc;
    for (size_t i = 0; i < l->n; i++) {
        for (int j = 0; j < 2; j++)
            if (l->e[i][j] >= (double)nodes)
                return CS_ERR(err, CS_EINVAL, "%s:%d: edges[%zu]: node %.0f does not exist (nodes 0..%llu)", l->where,
                              l->lines[i], i, l->e[i][j], (unsigned long long)nodes - 1);
        if (l->e[i][0] == l->e[i][1] || l->e[i][2] <= 0)
            return CS_ERR(err, CS_EINVAL, "%s:%d: edges[%zu]: expected two different nodes and a bandwidth > 0",
                          l->where, l->lines[i], i);
    }
    return check_duplicates(l, err);
}

static int build(const void *params, const cs_network_config *net, cs_topo **out, cs_error *err) {
    (void)err;
    const keys *c = params;
    uint32_t npus = (uint32_t)npus_of(c, net); /* (check: within the limits) */
    cs_topo *t = cs_topo_new(npus);
    for (int i = 0; i < c->switches; i++) cs_topo_add_node(t, CS_NODE_SWITCH);
    for (size_t i = 0; i < c->edges.n; i++) {
        const double *v = c->edges.e[i];
        cs_topo_add_cable(t, (uint32_t)v[0], (uint32_t)v[1], cs_gbps_to_bytes_per_ns(v[2]), cs_time_from_ns_f(v[3]));
    }
    cs_topo_finalize(t);
    cs_topo_set_desc(t, "edge list: %u NPUs, %d switches, %zu cables", npus, c->switches, c->edges.n);
    *out = t;
    return CS_OK;
}

static uint64_t npus(const void *params, const cs_network_config *net) { return npus_of(params, net); }

const cs_topo_builder cs_topo_builder_edges = {
    .name = "edges",
    .help = "an explicit edge list: the cables under \"edges\" between NPUs 0..npus-1 and switches "
            "npus..npus+switches-1",
    .keys = KEYS,
    .nkeys = sizeof KEYS / sizeof KEYS[0],
    .params_size = sizeof(keys),
    .npus = npus,
    .check = check,
    .build = build,
};
