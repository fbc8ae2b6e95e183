/*
 * build_grid.c -- the "torus" and "mesh" builders: 1-/2-/3-D grids of NPUs
 * (wafer-scale: every NPU is a router, links to its grid neighbours; the
 * torus wraps around).  The two share one build function, one key table and
 * one params struct, differing only in `wrap`, so they stay in one file.
 *
 * Node numbering: only NPUs, id = x + X (y + Y z).  Owns nothing beyond the
 * result.  Path counts: docs/topology.md.
 */
#include "topology/builder.h"
#include "topology/topology.h"

#include <stdio.h>

#include "core/checked.h"

int cs_topo_build_grid(const cs_grid_params *p, cs_topo **out, cs_error *err) {
    *out = NULL;
    if (p->ndims < 1 || p->ndims > 3)
        return CS_ERR(err, CS_EINVAL, "%s: dims: expected 1 to 3 sizes, got %u", p->wrap ? "torus" : "mesh", p->ndims);
    uint64_t n = 1;
    for (uint32_t d = 0; d < p->ndims; d++) {
        if (p->dims[d] == 0) return CS_ERR(err, CS_EINVAL, "%s: dims: sizes must be >= 1", p->wrap ? "torus" : "mesh");
        n = cs_mul_u64_sat(n, p->dims[d]);
    }
    char what[96];
    if (n == UINT64_MAX) snprintf(what, sizeof what, "%s: more than 2^64 NPUs", p->wrap ? "torus" : "mesh");
    else snprintf(what, sizeof what, "%s: %llu NPUs", p->wrap ? "torus" : "mesh", (unsigned long long)n);
    int rc = cs_topo_check_size(what, n, cs_mul_u64_sat(n, p->ndims), err);
    if (rc) return rc;
    if (p->bw <= 0) return CS_ERR(err, CS_EINVAL, "%s: link bandwidth must be > 0", p->wrap ? "torus" : "mesh");
    cs_topo *t = cs_topo_new((uint32_t)n);
    uint32_t stride = 1;
    for (uint32_t d = 0; d < p->ndims; d++) {
        uint32_t k = p->dims[d];
        for (uint32_t v = 0; v < (uint32_t)n; v++) {
            uint32_t c = (v / stride) % k;
            if (c + 1 < k) cs_topo_add_cable(t, v, v + stride, p->bw, p->lat);
            else if (p->wrap && k > 2) cs_topo_add_cable(t, v, v - c * stride, p->bw, p->lat); /* wrap-around */
        }
        stride *= k;
    }
    cs_topo_finalize(t);
    char shape[64];
    if (p->ndims == 1) snprintf(shape, sizeof shape, "%u", p->dims[0]);
    else if (p->ndims == 2) snprintf(shape, sizeof shape, "%ux%u", p->dims[0], p->dims[1]);
    else snprintf(shape, sizeof shape, "%ux%ux%u", p->dims[0], p->dims[1], p->dims[2]);
    cs_topo_set_desc(t, "%u-D %s %s (%llu NPUs)", p->ndims, p->wrap ? "torus" : "mesh", shape, (unsigned long long)n);
    *out = t;
    return CS_OK;
}

/* ---- the builder entries ---------------------------------------------------- */

typedef struct dims {
    uint32_t n, d[3];
} dims;

typedef struct keys {
    dims dims;
    double link_bw, link_lat;
} keys;

/* "dims": a list of 1 to 3 sizes, each with its element line in messages. */
static int parse_dims(const cs_jdoc *doc, const cs_opt *o, const json_t *v, void *field, cs_error *err) {
    dims *d = field;
    if (!json_is_array(v) || json_array_size(v) < 1 || json_array_size(v) > 3)
        return CS_ERR(err, CS_EINVAL, "%s:%d: %s: expected %s", doc->path, cs_jdoc_key_line(doc, o->key), o->key,
                      o->type_text);
    d->n = (uint32_t)json_array_size(v);
    for (size_t i = 0; i < d->n; i++) {
        double x;
        int rc = cs_topo_json_tuple(doc, o->key, i, json_array_get(v, i), 1, 1, "a size >= 1", &x, err);
        if (rc) return rc;
        if (x < 1 || x > 1e9)
            return CS_ERR(err, CS_EINVAL, "%s:%d: %s[%zu]: expected a size >= 1, got %g", doc->path,
                          cs_jdoc_elem_line(doc, o->key, i), o->key, i, x);
        d->d[i] = (uint32_t)x;
    }
    return CS_OK;
}

static json_t *dump_dims(const cs_opt *o, const void *field) {
    (void)o;
    const dims *d = field;
    if (!d->n) return NULL;
    json_t *a = json_array();
    for (uint32_t i = 0; i < d->n; i++) json_array_append_new(a, json_integer(d->d[i]));
    return a;
}

static const cs_opt KEYS[] = {
    {.key = "dims", .type = CS_OPT_CUSTOM, .required = 1, .off = offsetof(keys, dims),
     .type_text = "a list of 1 to 3 sizes", .parse = parse_dims, .dump = dump_dims,
     .help = "grid sizes, dimension 0 fastest in NPU ids"},
    CS_TOPO_NUM_KEY(keys, "link_bandwidth", link_bw, CS_UNIT_GBPS, 50, "NPU-NPU bandwidth per direction"),
    CS_TOPO_NUM_KEY(keys, "link_latency", link_lat, CS_UNIT_NS, 500, "NPU-NPU latency"),
};

static int build(const keys *c, int wrap, cs_topo **out, cs_error *err) {
    cs_grid_params p = {.ndims = c->dims.n, .wrap = wrap, .bw = cs_gbps_to_bytes_per_ns(c->link_bw),
                        .lat = cs_time_from_ns_f(c->link_lat)};
    for (uint32_t i = 0; i < c->dims.n; i++) p.dims[i] = c->dims.d[i];
    return cs_topo_build_grid(&p, out, err);
}

static uint64_t npus(const void *params, const cs_network_config *net) {
    (void)net;
    const keys *c = params;
    uint64_t n = 1;
    for (uint32_t i = 0; i < c->dims.n; i++) n *= c->dims.d[i]; /* at most 3 sizes <= 1e9: fits */
    return n;
}

static int build_torus(const void *params, const cs_network_config *net, cs_topo **out, cs_error *err) {
    (void)net;
    return build(params, 1, out, err);
}

static int build_mesh(const void *params, const cs_network_config *net, cs_topo **out, cs_error *err) {
    (void)net;
    return build(params, 0, out, err);
}

const cs_topo_builder cs_topo_builder_torus = {
    .name = "torus",
    .help = "1-, 2- or 3-D torus of NPUs (every NPU a router), cables to grid neighbours with wrap-around (a "
            "dimension of 2 has one cable, not two)",
    .keys = KEYS,
    .nkeys = sizeof KEYS / sizeof KEYS[0],
    .params_size = sizeof(keys),
    .npus = npus,
    .build = build_torus,
};

const cs_topo_builder cs_topo_builder_mesh = {
    .name = "mesh",
    .help = "1-, 2- or 3-D mesh of NPUs (every NPU a router), cables to grid neighbours, no wrap-around",
    .keys = KEYS,
    .nkeys = sizeof KEYS / sizeof KEYS[0],
    .params_size = sizeof(keys),
    .npus = npus,
    .build = build_mesh,
};
