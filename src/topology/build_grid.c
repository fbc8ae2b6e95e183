/*
 * build_grid.c -- topology builders for direct networks: 1-/2-/3-D torus and
 * mesh (wafer-scale NPU grids: every NPU is a router, links to its grid
 * neighbours) and dragonfly (groups of routers fully connected inside,
 * one global cable between every pair of groups).
 *
 * Node numbering: torus/mesh: only NPUs, id = x + X (y + Y z).  Dragonfly:
 * NPUs group-major (npu = (group * routers + router) * npus_per_router + k),
 * then the routers (group * routers + router).  Owns nothing beyond the
 * result.  Path counts and the global-link arrangement: docs/topology.md.
 */
#include "topology/topology.h"

#include <stdio.h>

int cs_topo_build_grid(const cs_grid_params *p, cs_topo **out, cs_error *err) {
    *out = NULL;
    if (p->ndims < 1 || p->ndims > 3)
        return CS_ERR(err, CS_EINVAL, "%s: dims: expected 1 to 3 sizes, got %u", p->wrap ? "torus" : "mesh", p->ndims);
    uint64_t n = 1;
    for (uint32_t d = 0; d < p->ndims; d++) {
        if (p->dims[d] == 0) return CS_ERR(err, CS_EINVAL, "%s: dims: sizes must be >= 1", p->wrap ? "torus" : "mesh");
        n *= p->dims[d];
    }
    if (n > UINT32_MAX / 2) return CS_ERR(err, CS_EINVAL, "%s: %llu NPUs is too many", p->wrap ? "torus" : "mesh", (unsigned long long)n);
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

/* Router (in group g) that holds the global cable to group o: the other
 * groups are numbered 0..G-2 from g's point of view, h per router. */
static uint32_t global_router(uint32_t g, uint32_t o, uint32_t h) { return (o < g ? o : o - 1) / h; }

int cs_topo_build_dragonfly(const cs_dragonfly_params *p, cs_topo **out, cs_error *err) {
    *out = NULL;
    uint32_t G = p->groups, a = p->routers_per_group, np = p->npus_per_router, h = p->global_per_router;
    if (G == 0 || a == 0 || np == 0)
        return CS_ERR(err, CS_EINVAL, "dragonfly: groups, routers_per_group and npus_per_router must be >= 1");
    if (G > 1 && (uint64_t)a * h < G - 1)
        return CS_ERR(err, CS_EINVAL,
                      "dragonfly: %u groups need routers_per_group x global_links_per_router >= %u (one global cable "
                      "to every other group), got %u x %u",
                      G, G - 1, a, h);
    if ((uint64_t)G * a * np > UINT32_MAX / 4) return CS_ERR(err, CS_EINVAL, "dragonfly: too many NPUs");
    if (p->host_bw <= 0 || p->local_bw <= 0 || p->global_bw <= 0)
        return CS_ERR(err, CS_EINVAL, "dragonfly: bandwidths must be > 0");
    uint32_t n = G * a * np;
    cs_topo *t = cs_topo_new(n);
    uint32_t r0 = t->nnodes;
    for (uint32_t i = 0; i < G * a; i++) cs_topo_add_node(t, CS_NODE_SWITCH);
    for (uint32_t v = 0; v < n; v++) cs_topo_add_cable(t, v, r0 + v / np, p->host_bw, p->host_lat);
    for (uint32_t g = 0; g < G; g++)
        for (uint32_t i = 0; i < a; i++)
            for (uint32_t j = i + 1; j < a; j++) cs_topo_add_cable(t, r0 + g * a + i, r0 + g * a + j, p->local_bw, p->local_lat);
    for (uint32_t g = 0; g < G; g++)
        for (uint32_t o = g + 1; o < G; o++)
            cs_topo_add_cable(t, r0 + g * a + global_router(g, o, h), r0 + o * a + global_router(o, g, h), p->global_bw,
                              p->global_lat);
    cs_topo_finalize(t);
    cs_topo_set_desc(t, "dragonfly %u groups x %u routers x %u NPUs, %u global links per router", G, a, np, h);
    *out = t;
    return CS_OK;
}
