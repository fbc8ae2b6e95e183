/*
 * graph_job.c -- a job's graph renamed into a cluster and repeated for its
 * iterations (see graph_job.h).
 */
#include "workload/graph_job.h"

#include <inttypes.h>
#include <string.h>

#include "core/alloc.h"

uint64_t cs_graph_iteration_span(const cs_graph *g, uint32_t iterations) {
    uint64_t maxid = g->nnodes ? g->nodes[g->nnodes - 1].id : 0;
    if (maxid > UINT64_MAX - 2) return 0;
    uint64_t span = maxid + 2;
    if (iterations > 1 && span > UINT64_MAX / iterations) return 0;
    return span;
}

int cs_graph_for_job(const cs_graph *g, const cs_graph_job *j, cs_graph **out, cs_error *err) {
    *out = NULL;
    uint32_t k = j->iterations ? j->iterations : 1, n = g->nnodes;
    uint64_t span = cs_graph_iteration_span(g, k);
    if (span && j->span) span = j->span >= span && (k < 2 || j->span <= UINT64_MAX / k) ? j->span : 0;
    if (!span)
        return CS_ERR(err, CS_EINVAL, "%s: %" PRIu32 " iterations of node ids up to %" PRIu64 " pass 2^64 ids; "
                      "expected fewer iterations or smaller ids",
                      j->label, k, g->nnodes ? g->nodes[n - 1].id : 0);
    uint64_t total = (uint64_t)k * n + (k - 1);
    if (total > UINT32_MAX - 1)
        return CS_ERR(err, CS_EINVAL, "%s: %" PRIu32 " iterations of %" PRIu32 " nodes pass 2^32 nodes per rank; "
                      "expected fewer iterations",
                      j->label, k, n);
    /* peers first (and the rank itself, which a send's comm_src and a receive's comm_dst name): a bad one is
     * refused before anything is built */
    for (uint32_t i = 0; i < n; i++) {
        const cs_node *x = &g->nodes[i];
        if (x->type != CS_NODE_COMM_SEND && x->type != CS_NODE_COMM_RECV) continue;
        for (int f = 0; f < 2; f++) {
            int32_t v = f ? cs_graph_comm_dst(g, x) : cs_graph_comm_src(g, x);
            if ((x->flags & (f ? CS_NF_HAS_DST : CS_NF_HAS_SRC)) && (v < 0 || (uint32_t)v >= j->nranks))
                return CS_ERR(err, CS_EINVAL, "%s: node %" PRIu64 " (%s): %s %" PRId32 " is not a rank of the job; "
                              "expected 0 to %" PRIu32,
                              j->label, x->id, cs_node_type_label(x->type), f ? "comm_dst" : "comm_src", v,
                              j->nranks ? j->nranks - 1 : 0);
        }
    }
    uint32_t nleaves = 0, nroots = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (cs_graph_child_end(g, i) == g->nodes[i].child_begin) nleaves++;
        if (g->nodes[i].nparents == 0) nroots++;
    }
    cs_graph *o = cs_calloc(1, sizeof *o);
    size_t lablen = strlen(j->label);
    o->source = cs_malloc(lablen + 1);
    memcpy(o->source, j->label, lablen + 1);
    o->nnodes = (uint32_t)total;
    o->nodes = cs_malloc((total ? total : 1) * sizeof *o->nodes);
    o->nchildren = (uint32_t)((uint64_t)k * g->nchildren + (uint64_t)(k - 1) * (nleaves + nroots));
    o->children = cs_malloc((o->nchildren ? o->nchildren : 1) * sizeof *o->children);
    size_t blen = sizeof CS_ITERATION_BOUNDARY;
    o->strings_len = g->strings_len + blen;
    o->strings = cs_malloc(o->strings_len);
    if (g->strings_len) memcpy(o->strings, g->strings, g->strings_len);
    memcpy(o->strings + g->strings_len, CS_ITERATION_BOUNDARY, blen);
    o->npg = g->npg;
    o->pg_names = cs_calloc(g->npg ? g->npg : 1, sizeof *o->pg_names);
    for (uint32_t i = 0; i < g->npg; i++) o->pg_names[i] = cs_strdup(j->pg_map[i]);
    o->missing_ctrl_deps = g->missing_ctrl_deps;

    uint32_t c = 0, stride = n + 1; /* copy i's node x is o->nodes[i * stride + x]; its boundary i * stride + n */
    for (uint32_t it = 0; it < k; it++) {
        uint32_t base = it * stride;
        for (uint32_t i = 0; i < n; i++) {
            cs_node x = g->nodes[i];
            x.id = it * span + x.id;
            if (x.type == CS_NODE_COMM_SEND || x.type == CS_NODE_COMM_RECV) {
                if (x.flags & CS_NF_HAS_DST) x.comm_dst = (int32_t)j->rank_map[cs_graph_comm_dst(g, &x)];
                if (x.flags & CS_NF_HAS_SRC) x.comm_src = (int32_t)j->rank_map[cs_graph_comm_src(g, &x)];
            }
            if (it > 0 && x.nparents == 0) x.nparents = 1; /* the boundary before */
            x.child_begin = c;
            uint32_t e = cs_graph_child_end(g, i);
            for (uint32_t q = g->nodes[i].child_begin; q < e; q++) o->children[c++] = base + g->children[q];
            if (it + 1 < k && e == g->nodes[i].child_begin) o->children[c++] = base + n; /* a leaf */
            o->nodes[base + i] = x;
        }
        if (it + 1 == k) break;
        cs_node b;
        memset(&b, 0, sizeof b);
        b.id = it * span + span - 1;
        b.type = CS_NODE_METADATA;
        b.name = (uint32_t)g->strings_len;
        b.nparents = nleaves;
        b.child_begin = c;
        for (uint32_t i = 0; i < n; i++)
            if (g->nodes[i].nparents == 0) o->children[c++] = base + stride + i;
        o->nodes[base + n] = b;
    }
    *out = o;
    return CS_OK;
}
