/*
 * waitfor.c -- the wait-for graph of a stopped simulation (see waitfor.h):
 * vertices in a hash by key, edges in insertion order, the first cycle by an
 * iterative depth-first search, distances to it by a breadth-first search
 * on the reversed edges.
 */
#include "core/waitfor.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"

typedef struct wv {
    int kind;
    uint32_t rank;
    uint64_t b, c;
    char *label;
    uint32_t outdeg;
} wv;

typedef struct we {
    uint32_t u, v;
    int why;
} we;

struct cs_wfg {
    wv *v;
    size_t nv, capv;
    we *e;
    size_t ne, cape;
    uint32_t *slot; /* open addressing: vertex + 1, 0 = empty */
    size_t nslot;
    /* analysis */
    uint32_t *off, *adj; /* CSR of the edges by u, in insertion order (adj: edge index) */
    uint32_t *cyc;
    int *cwhy;
    uint32_t ncyc;
    uint32_t *dist, *next;
    int *nwhy;
};

static uint64_t key_hash(int kind, uint32_t rank, uint64_t b, uint64_t c) {
    uint64_t h = (uint64_t)kind * 0x9E3779B97F4A7C15ULL ^ (uint64_t)rank * 0xC2B2AE3D27D4EB4FULL;
    h ^= b * 0x165667B19E3779F9ULL;
    h = (h ^ (h >> 31)) * 0xff51afd7ed558ccdULL;
    h ^= c * 0x94D049BB133111EBULL;
    return h ^ (h >> 29);
}

cs_wfg *cs_wfg_new(void) {
    cs_wfg *g = cs_calloc(1, sizeof *g);
    g->nslot = 256;
    g->slot = cs_calloc(g->nslot, sizeof *g->slot);
    return g;
}

void cs_wfg_free(cs_wfg *g) {
    if (!g) return;
    for (size_t i = 0; i < g->nv; i++) cs_free(g->v[i].label);
    cs_free(g->v);
    cs_free(g->e);
    cs_free(g->slot);
    cs_free(g->off);
    cs_free(g->adj);
    cs_free(g->cyc);
    cs_free(g->cwhy);
    cs_free(g->dist);
    cs_free(g->next);
    cs_free(g->nwhy);
    cs_free(g);
}

static size_t probe(const cs_wfg *g, int kind, uint32_t rank, uint64_t b, uint64_t c) {
    size_t i = (size_t)(key_hash(kind, rank, b, c) & (g->nslot - 1));
    for (;;) {
        uint32_t s = g->slot[i];
        if (!s) return i;
        const wv *x = &g->v[s - 1];
        if (x->kind == kind && x->rank == rank && x->b == b && x->c == c) return i;
        i = (i + 1) & (g->nslot - 1);
    }
}

uint32_t cs_wfg_find(const cs_wfg *g, int kind, uint32_t rank, uint64_t b, uint64_t c) {
    uint32_t s = g->slot[probe(g, kind, rank, b, c)];
    return s ? s - 1 : UINT32_MAX;
}

uint32_t cs_wfg_add(cs_wfg *g, int *added, int kind, uint32_t rank, uint64_t b, uint64_t c, const char *fmt, ...) {
    size_t i = probe(g, kind, rank, b, c);
    if (g->slot[i]) {
        if (added) *added = 0;
        return g->slot[i] - 1;
    }
    if (added) *added = 1;
    CS_GROW(g->v, g->capv, g->nv + 1);
    wv *x = &g->v[g->nv];
    x->kind = kind;
    x->rank = rank;
    x->b = b;
    x->c = c;
    x->outdeg = 0;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    x->label = cs_strdup(buf);
    uint32_t id = (uint32_t)g->nv++;
    g->slot[i] = id + 1;
    if (2 * g->nv > g->nslot) { /* rehash at half full */
        cs_free(g->slot);
        g->nslot *= 2;
        g->slot = cs_calloc(g->nslot, sizeof *g->slot);
        for (size_t k = 0; k < g->nv; k++) {
            const wv *y = &g->v[k];
            g->slot[probe(g, y->kind, y->rank, y->b, y->c)] = (uint32_t)k + 1;
        }
    }
    return id;
}

void cs_wfg_note(cs_wfg *g, uint32_t v, const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    size_t a = strlen(g->v[v].label), n = strlen(buf);
    char *s = cs_malloc(a + n + 1);
    memcpy(s, g->v[v].label, a);
    memcpy(s + a, buf, n + 1);
    cs_free(g->v[v].label);
    g->v[v].label = s;
}

void cs_wfg_edge(cs_wfg *g, uint32_t u, uint32_t v, int why) {
    for (size_t i = g->ne; i-- > 0 && i + 64 >= g->ne;) /* the recent ones: edges come in runs per vertex */
        if (g->e[i].u == u && g->e[i].v == v) return;
    CS_GROW(g->e, g->cape, g->ne + 1);
    g->e[g->ne++] = (we){u, v, why};
    g->v[u].outdeg++;
}

uint32_t cs_wfg_count(const cs_wfg *g) { return (uint32_t)g->nv; }
int cs_wfg_kind(const cs_wfg *g, uint32_t v) { return g->v[v].kind; }
uint32_t cs_wfg_rank(const cs_wfg *g, uint32_t v) { return g->v[v].rank; }
uint64_t cs_wfg_b(const cs_wfg *g, uint32_t v) { return g->v[v].b; }
uint64_t cs_wfg_c(const cs_wfg *g, uint32_t v) { return g->v[v].c; }
const char *cs_wfg_label(const cs_wfg *g, uint32_t v) { return g->v[v].label; }

uint32_t cs_wfg_out_degree(const cs_wfg *g, uint32_t v) { return g->v[v].outdeg; }

/* CSR of the edges by their source, each vertex's in insertion order. */
static void build_csr(cs_wfg *g) {
    size_t nv = g->nv;
    g->off = cs_calloc(nv + 1, sizeof *g->off);
    g->adj = cs_malloc((g->ne ? g->ne : 1) * sizeof *g->adj);
    for (size_t i = 0; i < g->ne; i++) g->off[g->e[i].u + 1]++;
    for (size_t v = 0; v < nv; v++) g->off[v + 1] += g->off[v];
    uint32_t *fill = cs_malloc((nv ? nv : 1) * sizeof *fill);
    memcpy(fill, g->off, nv * sizeof *fill);
    for (size_t i = 0; i < g->ne; i++) g->adj[fill[g->e[i].u]++] = (uint32_t)i;
    cs_free(fill);
}

/* Iterative DFS (white 0, grey 1, black 2) from every vertex in order; the
 * first back edge closes the cycle. */
static void find_cycle(cs_wfg *g) {
    size_t nv = g->nv;
    uint8_t *color = cs_calloc(nv ? nv : 1, 1);
    uint32_t *stack = cs_malloc((nv ? nv : 1) * sizeof *stack); /* vertices on the path */
    uint32_t *pos = cs_malloc((nv ? nv : 1) * sizeof *pos);     /* next edge to try, per path entry */
    uint32_t *via = cs_malloc((nv ? nv : 1) * sizeof *via);     /* edge that led to the path entry */
    for (size_t r = 0; r < nv && !g->ncyc; r++) {
        if (color[r]) continue;
        size_t sp = 0;
        stack[sp] = (uint32_t)r;
        pos[sp] = g->off[r];
        color[r] = 1;
        sp++;
        while (sp && !g->ncyc) {
            uint32_t u = stack[sp - 1];
            if (pos[sp - 1] == g->off[u + 1]) {
                color[u] = 2;
                sp--;
                continue;
            }
            uint32_t ei = g->adj[pos[sp - 1]++];
            uint32_t v = g->e[ei].v;
            if (color[v] == 0) {
                color[v] = 1;
                stack[sp] = v;
                pos[sp] = g->off[v];
                via[sp] = ei;
                sp++;
            } else if (color[v] == 1) { /* back edge: the path from v to u, then u -> v */
                size_t k = sp;
                while (stack[k - 1] != v) k--;
                uint32_t n = (uint32_t)(sp - (k - 1));
                g->cyc = cs_malloc(n * sizeof *g->cyc);
                g->cwhy = cs_malloc(n * sizeof *g->cwhy);
                for (uint32_t i = 0; i < n; i++) {
                    g->cyc[i] = stack[k - 1 + i];
                    g->cwhy[i] = i + 1 < n ? g->e[via[k + i]].why : g->e[ei].why;
                }
                g->ncyc = n;
            }
        }
    }
    cs_free(color);
    cs_free(stack);
    cs_free(pos);
    cs_free(via);
    if (g->ncyc) { /* rotate: start at the lowest rank's vertex added first */
        uint32_t n = g->ncyc, best = 0;
        for (uint32_t i = 1; i < n; i++) {
            const wv *a = &g->v[g->cyc[i]], *b = &g->v[g->cyc[best]];
            if (a->rank < b->rank || (a->rank == b->rank && g->cyc[i] < g->cyc[best])) best = i;
        }
        uint32_t *c2 = cs_malloc(n * sizeof *c2);
        int *w2 = cs_malloc(n * sizeof *w2);
        for (uint32_t i = 0; i < n; i++) {
            c2[i] = g->cyc[(best + i) % n];
            w2[i] = g->cwhy[(best + i) % n];
        }
        cs_free(g->cyc);
        cs_free(g->cwhy);
        g->cyc = c2;
        g->cwhy = w2;
    }
}

/* BFS from the cycle over reversed edges: dist and the next step toward it. */
static void distances(cs_wfg *g) {
    size_t nv = g->nv;
    g->dist = cs_malloc((nv ? nv : 1) * sizeof *g->dist);
    g->next = cs_malloc((nv ? nv : 1) * sizeof *g->next);
    g->nwhy = cs_calloc(nv ? nv : 1, sizeof *g->nwhy);
    for (size_t v = 0; v < nv; v++) g->dist[v] = g->next[v] = UINT32_MAX;
    if (!g->ncyc) return;
    /* reversed CSR: by target */
    uint32_t *roff = cs_calloc(nv + 1, sizeof *roff), *radj = cs_malloc((g->ne ? g->ne : 1) * sizeof *radj);
    for (size_t i = 0; i < g->ne; i++) roff[g->e[i].v + 1]++;
    for (size_t v = 0; v < nv; v++) roff[v + 1] += roff[v];
    uint32_t *fill = cs_malloc((nv ? nv : 1) * sizeof *fill);
    memcpy(fill, roff, nv * sizeof *fill);
    for (size_t i = 0; i < g->ne; i++) radj[fill[g->e[i].v]++] = (uint32_t)i;
    uint32_t *queue = fill; /* reused: every vertex enters once */
    size_t qh = 0, qt = 0;
    for (uint32_t i = 0; i < g->ncyc; i++) {
        g->dist[g->cyc[i]] = 0;
        queue[qt++] = g->cyc[i];
    }
    while (qh < qt) {
        uint32_t v = queue[qh++];
        for (uint32_t k = roff[v]; k < roff[v + 1]; k++) {
            const we *e = &g->e[radj[k]];
            if (g->dist[e->u] != UINT32_MAX) continue;
            g->dist[e->u] = g->dist[v] + 1;
            g->next[e->u] = v;
            g->nwhy[e->u] = e->why;
            queue[qt++] = e->u;
        }
    }
    cs_free(roff);
    cs_free(radj);
    cs_free(fill);
}

uint32_t cs_wfg_cycle(cs_wfg *g, const uint32_t **cyc, const int **why) {
    if (!g->off) {
        build_csr(g);
        find_cycle(g);
        distances(g);
    }
    *cyc = g->cyc;
    *why = g->cwhy;
    return g->ncyc;
}

uint32_t cs_wfg_dist(const cs_wfg *g, uint32_t v, uint32_t *next, int *why) {
    if (!g->dist) return UINT32_MAX;
    if (next) *next = g->next[v];
    if (why) *why = g->nwhy[v];
    return g->dist[v];
}

const char *cs_wfg_why_text(int why) {
    switch (why) {
    case CS_WE_QUEUE: return "waits in its dimension queue behind";
    case CS_WE_PEER: return "runs, and its phase needs";
    case CS_WE_ISSUE: return "runs, and its phase needs the member that has not issued it:";
    case CS_WE_MEMBER: return "waits for";
    case CS_WE_PARENT: return "depends on";
    case CS_WE_ENGINE: return "is ready, but every communication stream of its rank (--comm-streams) is busy, with";
    case CS_WE_SEND: return "waits for its send,";
    case CS_WE_NODE: return "is issued by";
    default: return "waits for";
    }
}

void cs_wfg_write_cycle(const cs_wfg *g, FILE *f, const char *indent) {
    for (uint32_t i = 0; i < g->ncyc; i++)
        fprintf(f, "%s%s: %s\n", indent, g->v[g->cyc[i]].label, cs_wfg_why_text(g->cwhy[i]));
    if (g->ncyc) fprintf(f, "%s%s (the first line again: the waits close a cycle)\n", indent, g->v[g->cyc[0]].label);
}
