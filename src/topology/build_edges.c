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

#include <string.h>

#include "core/alloc.h"

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
        l->lines[i] = cs_jdoc_elem_line(doc, o->key, i);
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

static uint32_t npus_of(const keys *c, const cs_network_config *net) {
    return c->npus ? (uint32_t)c->npus : (uint32_t)net->total_npus;
}

/* Every cable between two different existing nodes, with a bandwidth. */
static int check(const void *params, const cs_network_config *net, cs_error *err) {
    const keys *c = params;
    const edge_list *l = &c->edges;
    uint64_t nodes = (uint64_t)npus_of(c, net) + (uint64_t)c->switches;
    for (size_t i = 0; i < l->n; i++) {
        for (int j = 0; j < 2; j++)
            if (l->e[i][j] >= (double)nodes)
                return CS_ERR(err, CS_EINVAL, "%s:%d: edges[%zu]: node %.0f does not exist (nodes 0..%llu)", l->where,
                              l->lines[i], i, l->e[i][j], (unsigned long long)nodes - 1);
        if (l->e[i][0] == l->e[i][1] || l->e[i][2] <= 0)
            return CS_ERR(err, CS_EINVAL, "%s:%d: edges[%zu]: expected two different nodes and a bandwidth > 0",
                          l->where, l->lines[i], i);
    }
    return CS_OK;
}

static int build(const void *params, const cs_network_config *net, cs_topo **out, cs_error *err) {
    (void)err;
    const keys *c = params;
    uint32_t npus = npus_of(c, net);
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

const cs_topo_builder cs_topo_builder_edges = {
    .name = "edges",
    .help = "an explicit edge list: the cables under \"edges\" between NPUs 0..npus-1 and switches "
            "npus..npus+switches-1",
    .keys = KEYS,
    .nkeys = sizeof KEYS / sizeof KEYS[0],
    .params_size = sizeof(keys),
    .check = check,
    .build = build,
};
