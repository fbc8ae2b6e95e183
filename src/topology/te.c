/*
 * te.c -- greedy min-max traffic engineering over shortest paths (te.h).
 */
#include "topology/te.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"

static int by_bytes(const void *a, const void *b) {
    const cs_te_demand *x = a, *y = b;
    if (x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
    if (x->src != y->src) return x->src < y->src ? -1 : 1;
    return (x->dst > y->dst) - (x->dst < y->dst);
}

/* Hops from every node to dst over up links (UINT32_MAX = none). */
static void bfs(const cs_topo *t, uint32_t dst, uint32_t *dist, uint32_t *queue) {
    for (uint32_t v = 0; v < t->nnodes; v++) dist[v] = UINT32_MAX;
    dist[dst] = 0;
    size_t head = 0, tail = 0;
    queue[tail++] = dst;
    while (head < tail) {
        uint32_t v = queue[head++];
        for (uint32_t i = t->in_off[v]; i < t->in_off[v + 1]; i++) {
            const cs_link *l = &t->links[t->in_idx[i]];
            if (cs_link_up(l) && dist[l->src] == UINT32_MAX) {
                dist[l->src] = dist[v] + 1;
                queue[tail++] = l->src;
            }
        }
    }
}

typedef struct te_state {
    const cs_topo *t;
    const uint32_t *dist;
    const double *load; /* bytes per link so far */
    double bytes;
    uint32_t stamp, *seen;
    double *best;       /* per node: the least possible max load (ns) from it to dst */
    uint32_t *pick;     /* per node: the link that achieves it */
} te_state;

/* best[v] over the shortest-path DAG toward dst (memoized on seen == stamp). */
static double best_from(te_state *s, uint32_t v) {
    if (s->seen[v] == s->stamp) return s->best[v];
    const cs_topo *t = s->t;
    double b = 0;
    uint32_t pk = UINT32_MAX;
    if (s->dist[v] != 0) {
        b = -1;
        for (uint32_t i = t->out_off[v]; i < t->out_off[v + 1]; i++) {
            uint32_t id = t->out_idx[i];
            const cs_link *l = &t->links[id];
            if (!cs_link_up(l) || s->dist[l->dst] == UINT32_MAX || s->dist[l->dst] + 1 != s->dist[v]) continue;
            double c = (s->load[id] + s->bytes) / l->bw, rest = best_from(s, l->dst);
            if (rest > c) c = rest;
            if (b < 0 || c < b || (c == b && id < pk)) {
                b = c;
                pk = id;
            }
        }
    }
    s->seen[v] = s->stamp;
    s->best[v] = b;
    s->pick[v] = pk;
    return b;
}

int cs_te_route(const cs_topo *t, cs_te_demand *d, size_t n, cs_te_paths *out, cs_error *err) {
    memset(out, 0, sizeof *out);
    if (n > 1) qsort(d, n, sizeof *d, by_bytes);
    uint32_t **dist_of = cs_calloc(t->nnodes ? t->nnodes : 1, sizeof *dist_of); /* per destination, lazily */
    uint32_t *queue = cs_malloc((size_t)(t->nnodes ? t->nnodes : 1) * sizeof *queue);
    double *load = cs_calloc(t->nlinks ? t->nlinks : 1, sizeof *load);
    te_state s = {.t = t, .load = load};
    s.seen = cs_calloc(t->nnodes ? t->nnodes : 1, sizeof *s.seen);
    s.best = cs_malloc((size_t)(t->nnodes ? t->nnodes : 1) * sizeof *s.best);
    s.pick = cs_malloc((size_t)(t->nnodes ? t->nnodes : 1) * sizeof *s.pick);
    size_t capn = 0, capo = 0, nn = 0;
    int rc = CS_OK;
    for (size_t k = 0; k < n && rc == CS_OK; k++) {
        const cs_te_demand *q = &d[k];
        if (q->src == q->dst) continue;
        if (q->src >= t->nnodes || q->dst >= t->nnodes) {
            rc = CS_ERR(err, CS_EINVAL, "traffic engineering: demand %u -> %u: the topology has nodes 0..%u", q->src,
                        q->dst, t->nnodes ? t->nnodes - 1 : 0);
            break;
        }
        if (!dist_of[q->dst]) {
            dist_of[q->dst] = cs_malloc((size_t)t->nnodes * sizeof **dist_of);
            bfs(t, q->dst, dist_of[q->dst], queue);
        }
        s.dist = dist_of[q->dst];
        if (s.dist[q->src] == UINT32_MAX) {
            rc = CS_ERR(err, CS_EINVAL, "traffic engineering: no path from node %u to node %u over the links up at "
                                        "the start",
                        q->src, q->dst);
            break;
        }
        s.bytes = (double)q->bytes;
        if (++s.stamp == 0) { /* (wrapped: forget every memo) */
            memset(s.seen, 0, (size_t)t->nnodes * sizeof *s.seen);
            s.stamp = 1;
        }
        best_from(&s, q->src);
        CS_GROW(out->off, capo, out->n + 2);
        CS_GROW(out->nodes, capn, nn + s.dist[q->src] + 1);
        out->off[out->n] = nn;
        uint32_t v = q->src;
        out->nodes[nn++] = v;
        while (v != q->dst) {
            uint32_t id = s.pick[v];
            load[id] += s.bytes;
            v = t->links[id].dst;
            out->nodes[nn++] = v;
        }
        out->n++;
        out->off[out->n] = nn;
    }
    for (uint32_t i = 0; i < t->nlinks; i++)
        if (load[i] > 0 && t->links[i].bw > 0 && load[i] / t->links[i].bw > out->max_load_ns)
            out->max_load_ns = load[i] / t->links[i].bw;
    for (uint32_t v = 0; v < t->nnodes; v++) cs_free(dist_of[v]);
    cs_free(dist_of);
    cs_free(queue);
    cs_free(load);
    cs_free(s.seen);
    cs_free(s.best);
    cs_free(s.pick);
    if (rc) cs_te_paths_free(out);
    return rc;
}

void cs_te_paths_free(cs_te_paths *p) {
    cs_free(p->off);
    cs_free(p->nodes);
    memset(p, 0, sizeof *p);
}
