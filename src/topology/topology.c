/*
 * topology.c -- the physical graph of topology.h: growing arrays of nodes and
 * links, adjacency in CSR form, failures and degradation.
 *
 * Owns: everything a cs_topo points to.  Routing (route.c) and the flow
 * backend read it; only cs_topo_* functions change links, and only while the
 * topology is being built or edited, never during a run.
 */
#include "topology/topology.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"

int cs_topo_check_size(const char *what, uint64_t nodes, uint64_t cables, cs_error *err) {
    if (nodes <= CS_TOPO_MAX_NODES && cables <= CS_TOPO_MAX_CABLES) return CS_OK;
    char n[32], c[32];
    if (nodes == UINT64_MAX) snprintf(n, sizeof n, "more than 2^64");
    else snprintf(n, sizeof n, "%" PRIu64, nodes);
    if (cables == UINT64_MAX) snprintf(c, sizeof c, "more than 2^64");
    else snprintf(c, sizeof c, "%" PRIu64, cables);
    return CS_ERR(err, CS_EINVAL, "%s: %s nodes and %s cables; expected at most %u nodes and %u cables", what, n, c,
                  CS_TOPO_MAX_NODES, CS_TOPO_MAX_CABLES);
}

cs_topo *cs_topo_new(uint32_t nnpus) {
    cs_topo *t = cs_calloc(1, sizeof *t);
    t->nnpus = nnpus;
    for (uint32_t i = 0; i < nnpus; i++) cs_topo_add_node(t, CS_NODE_NPU);
    return t;
}

uint32_t cs_topo_add_node(cs_topo *t, cs_node_kind kind) {
    CS_GROW(t->kind, t->cap_nodes, (size_t)t->nnodes + 1);
    t->kind[t->nnodes] = (uint8_t)kind;
    return t->nnodes++;
}

uint32_t cs_topo_add_link(cs_topo *t, uint32_t src, uint32_t dst, double bw, cs_time lat) {
    CS_GROW(t->links, t->cap_links, (size_t)t->nlinks + 1);
    cs_link *l = &t->links[t->nlinks];
    l->src = src;
    l->dst = dst;
    l->bw = bw;
    l->nominal_bw = bw;
    l->lat = lat;
    return t->nlinks++;
}

void cs_topo_add_cable(cs_topo *t, uint32_t a, uint32_t b, double bw, cs_time lat) {
    cs_topo_add_link(t, a, b, bw, lat);
    cs_topo_add_link(t, b, a, bw, lat);
}

static void csr(uint32_t n, uint32_t m, const cs_link *links, int by_dst, uint32_t **off, uint32_t **idx) {
    cs_free(*off);
    cs_free(*idx);
    *off = cs_calloc((size_t)n + 1, sizeof **off);
    *idx = cs_malloc((size_t)(m ? m : 1) * sizeof **idx);
    for (uint32_t i = 0; i < m; i++) (*off)[(by_dst ? links[i].dst : links[i].src) + 1]++;
    for (uint32_t v = 0; v < n; v++) (*off)[v + 1] += (*off)[v];
    uint32_t *fill = cs_malloc((size_t)(n ? n : 1) * sizeof *fill);
    memcpy(fill, *off, (size_t)n * sizeof *fill);
    for (uint32_t i = 0; i < m; i++) (*idx)[fill[by_dst ? links[i].dst : links[i].src]++] = i;
    cs_free(fill);
}

void cs_topo_finalize(cs_topo *t) {
    csr(t->nnodes, t->nlinks, t->links, 0, &t->out_off, &t->out_idx);
    csr(t->nnodes, t->nlinks, t->links, 1, &t->in_off, &t->in_idx);
}

void cs_topo_set_desc(cs_topo *t, const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    cs_free(t->desc);
    t->desc = cs_strdup(buf);
}

void cs_topo_free(cs_topo *t) {
    if (!t) return;
    cs_free(t->desc);
    cs_free(t->kind);
    cs_free(t->links);
    cs_free(t->out_off);
    cs_free(t->out_idx);
    cs_free(t->in_off);
    cs_free(t->in_idx);
    cs_free(t->changes);
    cs_free(t->place);
    cs_free(t->fixed);
    cs_free(t->fixed_links);
    cs_free(t);
}

uint32_t cs_topo_find_link(const cs_topo *t, uint32_t a, uint32_t b) {
    if (a >= t->nnodes || !t->out_off) return UINT32_MAX;
    for (uint32_t i = t->out_off[a]; i < t->out_off[a + 1]; i++)
        if (t->links[t->out_idx[i]].dst == b) return t->out_idx[i];
    return UINT32_MAX;
}

int cs_topo_degrade_cable(cs_topo *t, uint32_t a, uint32_t b, double factor, cs_error *err) {
    int found = 0;
    for (uint32_t i = 0; i < t->nlinks; i++) {
        cs_link *l = &t->links[i];
        if ((l->src == a && l->dst == b) || (l->src == b && l->dst == a)) {
            l->bw = l->nominal_bw * factor;
            found = 1;
        }
    }
    if (!found) return CS_ERR(err, CS_EINVAL, "no link between nodes %u and %u", a, b);
    return CS_OK;
}

int cs_topo_fail_node(cs_topo *t, uint32_t v, cs_error *err) {
    if (v >= t->nnodes) return CS_ERR(err, CS_EINVAL, "node %u: the topology has nodes 0..%u", v, t->nnodes - 1);
    for (uint32_t i = 0; i < t->nlinks; i++)
        if (t->links[i].src == v || t->links[i].dst == v) t->links[i].bw = 0;
    return CS_OK;
}

const char *cs_node_kind_name(cs_node_kind k) {
    switch (k) {
    case CS_NODE_NPU: return "npu";
    case CS_NODE_NIC: return "nic";
    case CS_NODE_SWITCH: return "switch";
    }
    return "?";
}

/* --- timed changes -------------------------------------------------------------- */

int cs_topo_add_change(cs_topo *t, cs_time at, uint32_t a, uint32_t b, double factor, cs_error *err) {
    if (!(factor >= 0 && factor <= 1))
        return CS_ERR(err, CS_EINVAL, "bandwidth factor: expected 0..1, got %g", factor);
    if (a >= t->nnodes || (b != CS_TOPO_NODE && b >= t->nnodes))
        return CS_ERR(err, CS_EINVAL, "node %u: the topology has nodes 0..%u", a >= t->nnodes ? a : b, t->nnodes - 1);
    if (b != CS_TOPO_NODE && cs_topo_find_link(t, a, b) == UINT32_MAX && cs_topo_find_link(t, b, a) == UINT32_MAX)
        return CS_ERR(err, CS_EINVAL, "no link between nodes %u and %u", a, b);
    CS_GROW(t->changes, t->cap_changes, (size_t)t->nchanges + 1);
    uint32_t i = t->nchanges++;
    while (i > 0 && t->changes[i - 1].at > at) { /* insertion keeps equal times in listing order */
        t->changes[i] = t->changes[i - 1];
        i--;
    }
    t->changes[i] = (cs_topo_change){.at = at, .a = a, .b = b, .factor = factor};
    return CS_OK;
}

void cs_topo_change_bw(const cs_topo *t, const cs_topo_change *c, double *bw, uint32_t **ids, size_t *n,
                       size_t *cap) {
    for (uint32_t i = 0; i < t->nlinks; i++) {
        const cs_link *l = &t->links[i];
        int hit = c->b == CS_TOPO_NODE ? (l->src == c->a || l->dst == c->a)
                                       : ((l->src == c->a && l->dst == c->b) || (l->src == c->b && l->dst == c->a));
        if (!hit) continue;
        bw[i] = l->nominal_bw * c->factor;
        CS_GROW(*ids, *cap, *n + 1);
        (*ids)[(*n)++] = i;
    }
}

void cs_topo_heal(cs_topo *t) {
    for (uint32_t i = 0; i < t->nlinks; i++) t->links[i].bw = t->links[i].nominal_bw;
    t->nchanges = 0;
}

void cs_topo_count_faults(const cs_topo *t, uint32_t *down, uint32_t *degraded) {
    *down = *degraded = 0;
    for (uint32_t i = 0; i < t->nlinks; i++) {
        if (t->links[i].bw <= 0) (*down)++;
        else if (t->links[i].bw < t->links[i].nominal_bw) (*degraded)++;
    }
}

/* qsort order of (node, position) pairs: by node, then position. */
static int cmp_node_pos(const void *a, const void *b) {
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The first node that nodes[0..n) visits twice (CS_EINVAL naming it and both
 * positions), else CS_OK. */
static int check_simple_path(const uint32_t *nodes, uint32_t n, cs_error *err) {
    uint64_t *np = cs_malloc((size_t)n * sizeof *np);
    for (uint32_t i = 0; i < n; i++) np[i] = (uint64_t)nodes[i] << 32 | i;
    qsort(np, n, sizeof *np, cmp_node_pos);
    uint64_t dup = UINT64_MAX; /* (node, second position) with the earliest second position */
    uint32_t first = 0;
    for (uint32_t i = 1; i < n; i++)
        if (np[i] >> 32 == np[i - 1] >> 32 && (dup == UINT64_MAX || (uint32_t)np[i] < (uint32_t)dup)) {
            dup = np[i];
            first = (uint32_t)np[i - 1];
            while (i + 1 < n && np[i + 1] >> 32 == np[i] >> 32) i++; /* later repeats of the node */
        }
    cs_free(np);
    if (dup == UINT64_MAX) return CS_OK;
    return CS_ERR(err, CS_EINVAL,
                  "node %u appears twice (positions %u and %u); expected a path that visits each node once",
                  (uint32_t)(dup >> 32), first, (uint32_t)dup);
}

int cs_topo_add_fixed_route(cs_topo *t, const uint32_t *nodes, uint32_t n, cs_error *err) {
    if (n < 2) return CS_ERR(err, CS_EINVAL, "a route needs at least 2 nodes");
    for (uint32_t i = 0; i < n; i++)
        if (nodes[i] >= t->nnodes) return CS_ERR(err, CS_EINVAL, "node %u: the topology has nodes 0..%u", nodes[i], t->nnodes - 1);
    int rc = check_simple_path(nodes, n, err);
    if (rc) return rc;
    for (uint32_t i = 0; i + 1 < n; i++)
        if (cs_topo_find_link(t, nodes[i], nodes[i + 1]) == UINT32_MAX)
            return CS_ERR(err, CS_EINVAL, "hop %u: no link from node %u to node %u", i, nodes[i], nodes[i + 1]);
    CS_GROW(t->fixed_links, t->cap_fixed_links, t->nfixed_links + n);
    uint32_t off = (uint32_t)t->nfixed_links;
    for (uint32_t i = 0; i + 1 < n; i++) t->fixed_links[t->nfixed_links++] = cs_topo_find_link(t, nodes[i], nodes[i + 1]);
    CS_GROW(t->fixed, t->cap_fixed, (size_t)t->nfixed + 1);
    t->fixed[t->nfixed++] = (struct cs_fixed_route){nodes[0], nodes[n - 1], off, n - 1};
    return CS_OK;
}
