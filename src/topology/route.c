/*
 * route.c -- shortest-path ECMP routing with route caching (route.h).
 *
 * Distances to a destination come from one BFS over incoming links; the route
 * walks from src, at each node choosing among the outgoing up links that get
 * one hop closer by splitmix64(seed, src, dst, node) mod count.  The BFS is
 * the whole graph's, cached per destination, when every destination's array
 * fits the budget; otherwise it stops as soon as src's distance is known
 * (bfs_until: the same path, proven there).  Near the destination the walk
 * finds its candidates from the destination's in-lists when those are
 * shorter than the node's out-list (cands_from_dst: a switch of thousands of
 * ports going down).  Routes are stored in one growing arena of link ids,
 * indexed per source node by an open-addressing table keyed by destination
 * -- or, once the source has routes to a quarter of the nodes, by an array
 * over all destinations (no larger then, and read in order when the source
 * sends to its peers in order: an all-to-all) -- which also holds the
 * topology's fixed routes (routing table); spraying
 * walks per message into a scratch buffer, and
 * QP-aware ECMP (t->qps) hashes a message with its queue pair, key mod qps.
 * Owns: the caches.  Borrows: the topology and, when given, the bandwidth
 * array that says which links are up (a backend's own, for timed changes).
 */
#include "topology/route.h"

#include <string.h>

#include "core/alloc.h"
#include "core/rand.h"

#define DIST_BUDGET_BYTES ((size_t)256 << 20)

typedef struct rent { uint32_t key, off, n, fixed; } rent; /* key = dst + 1 (0 = empty); fixed: from the routing table */
/* The routes from one source: open addressing by destination.  One table per
 * source, not one for all pairs, so that the lookups of a source's messages
 * (an all-to-all sends to every peer in turn) stay in a few cache lines
 * instead of missing the cache at every message. */
/* Dense: an array over every destination (off == UINT32_MAX: none), taken
 * once count reaches nnodes / 4 -- the hash's 16-byte slots, at most half
 * full, then take at least as much as these 8 bytes per node. */
typedef struct dent_r { uint32_t off, nfix; } dent_r; /* nfix = n << 1 | fixed */
typedef struct rtab { rent *e; uint32_t cap, count; dent_r *dense; } rtab;
typedef struct dent { uint32_t dst; uint32_t *dist; } dent;

struct cs_router {
    const cs_topo *t;
    size_t budget;    /* bytes of distance arrays kept (DIST_BUDGET_BYTES; cs_router_set_dist_budget) */
    const double *bw; /* per-link bandwidths the router sees (cs_router_new_ex), NULL = the topology's */
    uint64_t seed;
    int spray;        /* 1 = per-message paths, 0 = not, -1 = as t->spray says */
    rtab *tabs; /* per source node */
    uint32_t *arena;
    size_t acap, alen;
    dent *dists; /* open addressing by dst (dist == NULL: empty) */
    size_t dcap, dcount;
    uint32_t *queue;
    uint64_t computed;
    uint32_t *scratch; /* spraying: the last per-message route */
    size_t cap_scratch;
    uint32_t *near;    /* bfs_until's distances: UINT32_MAX except the nodes it reached (reset after each walk) */
    uint32_t nnear;    /* how many nodes it reached: r->queue[0..nnear) */
    uint32_t *nb, nbep; /* bfs_until: nb[v] == nbep marks src's out-neighbours */
    uint32_t *cand;    /* walk's candidates found through in-lists */
    size_t cap_cand;
};

static void load_fixed(cs_router *r);
static rent *insert_slot(rtab *tb, uint32_t dst);

/* Whether link id is up for the router. */
static inline int link_up(const cs_router *r, uint32_t id) {
    return r->bw ? r->bw[id] > 0 : cs_link_up(&r->t->links[id]);
}

cs_router *cs_router_new(const cs_topo *t, uint64_t seed) { return cs_router_new_ex(t, seed, -1, NULL); }

cs_router *cs_router_new_ex(const cs_topo *t, uint64_t seed, int spray, const double *bw) {
    cs_router *r = cs_calloc(1, sizeof *r);
    r->t = t;
    r->bw = bw;
    r->budget = DIST_BUDGET_BYTES;
    r->seed = seed;
    r->spray = spray;
    r->queue = cs_malloc((size_t)(t->nnodes ? t->nnodes : 1) * sizeof *r->queue);
    r->tabs = cs_calloc(t->nnodes ? t->nnodes : 1, sizeof *r->tabs);
    r->near = cs_malloc((size_t)(t->nnodes ? t->nnodes : 1) * sizeof *r->near);
    for (uint32_t v = 0; v < t->nnodes; v++) r->near[v] = UINT32_MAX;
    r->nb = cs_calloc(t->nnodes ? t->nnodes : 1, sizeof *r->nb);
    load_fixed(r);
    return r;
}

static void drop_dists(cs_router *r) {
    for (size_t i = 0; i < r->dcap; i++) cs_free(r->dists[i].dist);
    cs_free(r->dists);
    r->dists = NULL;
    r->dcap = r->dcount = 0;
}

static void drop_all(cs_router *r) {
    drop_dists(r);
    for (uint32_t v = 0; v < r->t->nnodes; v++) {
        cs_free(r->tabs[v].e);
        cs_free(r->tabs[v].dense);
        r->tabs[v] = (rtab){0};
    }
    r->alen = 0;
}

void cs_router_invalidate(cs_router *r) {
    drop_all(r);
    load_fixed(r); /* the routing table's routes whose links are still up */
}

void cs_router_free(cs_router *r) {
    if (!r) return;
    drop_all(r);
    cs_free(r->arena);
    cs_free(r->tabs);
    cs_free(r->queue);
    cs_free(r->scratch);
    cs_free(r->near);
    cs_free(r->nb);
    cs_free(r->cand);
    cs_free(r);
}

uint64_t cs_router_computed(const cs_router *r) { return r->computed; }

void cs_router_set_dist_budget(cs_router *r, size_t bytes) {
    drop_dists(r);
    r->budget = bytes;
}

/* bw: per-link bandwidths deciding which links are up (NULL = the topology's). */
static void bfs(const cs_topo *t, const double *bw, uint32_t dst, uint32_t *dist, uint32_t *queue) {
    for (uint32_t v = 0; v < t->nnodes; v++) dist[v] = UINT32_MAX;
    uint32_t head = 0, tail = 0;
    dist[dst] = 0;
    queue[tail++] = dst;
    while (head < tail) {
        uint32_t v = queue[head++];
        for (uint32_t i = t->in_off[v]; i < t->in_off[v + 1]; i++) {
            const cs_link *l = &t->links[t->in_idx[i]];
            if (!(bw ? bw[t->in_idx[i]] > 0 : cs_link_up(l)) || dist[l->src] != UINT32_MAX) continue;
            dist[l->src] = dist[v] + 1;
            queue[tail++] = l->src;
        }
    }
}

static const uint32_t *dist_to(cs_router *r, uint32_t dst) {
    size_t bytes = (size_t)r->t->nnodes * sizeof(uint32_t);
    if (r->dcap) {
        for (size_t i = cs_mix64(dst) & (r->dcap - 1);; i = (i + 1) & (r->dcap - 1)) {
            if (!r->dists[i].dist) break;
            if (r->dists[i].dst == dst) return r->dists[i].dist;
        }
    }
    if (r->dcount * bytes > r->budget) drop_dists(r);
    if ((r->dcount + 1) * 2 > r->dcap) { /* grow and rehash */
        size_t ncap = r->dcap ? r->dcap * 2 : 64;
        dent *nd = cs_calloc(ncap, sizeof *nd);
        for (size_t i = 0; i < r->dcap; i++) {
            if (!r->dists[i].dist) continue;
            size_t j = cs_mix64(r->dists[i].dst) & (ncap - 1);
            while (nd[j].dist) j = (j + 1) & (ncap - 1);
            nd[j] = r->dists[i];
        }
        cs_free(r->dists);
        r->dists = nd;
        r->dcap = ncap;
    }
    uint32_t *dist = cs_malloc(bytes ? bytes : 1);
    bfs(r->t, r->bw, dst, dist, r->queue);
    size_t j = cs_mix64(dst) & (r->dcap - 1);
    while (r->dists[j].dist) j = (j + 1) & (r->dcap - 1);
    r->dists[j].dst = dst;
    r->dists[j].dist = dist;
    r->dcount++;
    return dist;
}

/* The reverse BFS from dst of bfs(), stopped as soon as src's distance is
 * known, into r->near (the nodes it reached are r->queue[0..r->nnear);
 * near_reset puts them back to UINT32_MAX).  Enough for
 * walk(r, r->near, src, dst, ...), with exactly the path the full distance
 * array gives:
 *   BFS discovers the nodes level by level (all of level k before any of
 *   k + 1, since the queue holds them in nondecreasing distance) and a node's
 *   distance is final when it is discovered.  Let D be src's distance.  The
 *   search stops either when it discovers src -- while processing a node of
 *   level D - 1, after every node of level D - 2 was processed, which had
 *   discovered all of level D - 1 -- or, earlier, when the first out-neighbour
 *   of src (over an up link) has been discovered, at level L, and the next
 *   node to process is of level L: every node of level <= L is then
 *   discovered, none of src's out-neighbours lies below L (the first one found
 *   has the smallest level), so D = L + 1, written into near[src].  Either
 *   way every node at distance <= D - 1 from dst has its true distance in
 *   near[], and every other node holds its true distance (>= D) or
 *   UINT32_MAX (not reached, true distance >= D).  walk() at a node cur of
 *   distance d <= D only asks, of each neighbour v, whether near[v] == d - 1
 *   (<= D - 1): the same answer as the full array, so the same candidates in
 *   the same order, the same hash pick, the same path.
 * Cost: the nodes within distance D - 1 of dst, instead of the whole graph
 * (rail16k: a rail switch's 2,112 in-links and a few nodes, of 34,888 nodes). */
static void bfs_until(cs_router *r, uint32_t dst, uint32_t src) {
    const cs_topo *t = r->t;
    uint32_t *dist = r->near, *queue = r->queue;
    uint32_t head = 0, tail = 0;
    if (++r->nbep == 0) { /* the stamps wrapped: start them again */
        memset(r->nb, 0, (size_t)t->nnodes * sizeof *r->nb);
        r->nbep = 1;
    }
    for (uint32_t i = t->out_off[src]; i < t->out_off[src + 1]; i++)
        if (link_up(r, t->out_idx[i])) r->nb[t->links[t->out_idx[i]].dst] = r->nbep;
    dist[dst] = 0;
    queue[tail++] = dst;
    uint32_t lvl = src != dst && r->nb[dst] == r->nbep ? 0 : UINT32_MAX; /* L: level of src's first out-neighbour */
    while (head < tail && dist[src] == UINT32_MAX) {
        uint32_t v = queue[head];
        if (dist[v] >= lvl) break; /* level lvl complete */
        head++;
        for (uint32_t i = t->in_off[v]; i < t->in_off[v + 1]; i++) {
            uint32_t id = t->in_idx[i];
            uint32_t u = t->links[id].src;
            if (!link_up(r, id) || dist[u] != UINT32_MAX) continue;
            dist[u] = dist[v] + 1;
            queue[tail++] = u;
            if (u == src) break;
            if (lvl == UINT32_MAX && r->nb[u] == r->nbep) lvl = dist[u];
        }
    }
    if (dist[src] == UINT32_MAX && lvl != UINT32_MAX) {
        dist[src] = lvl + 1;
        queue[tail++] = src;
    }
    r->nnear = tail;
}

static void near_reset(cs_router *r) {
    for (uint32_t i = 0; i < r->nnear; i++) r->near[r->queue[i]] = UINT32_MAX;
    r->nnear = 0;
}

/* The candidates of walk() at node cur, d = dist[cur] <= 2, found from dst's
 * side when that reads fewer links than cur's out-list (a switch with
 * thousands of ports going down to one of them): the up links cur -> v with
 * dist[v] == d - 1, in increasing link id -- the order of cur's out-list (the
 * topology's CSR lists each node's links by id) -- into r->cand.  Returns
 * their count, or UINT32_MAX when the out-list is the cheaper scan. */
static uint32_t cands_from_dst(cs_router *r, const uint32_t *dist, uint32_t cur, uint32_t dst, uint32_t d) {
    const cs_topo *t = r->t;
    uint32_t outdeg = t->out_off[cur + 1] - t->out_off[cur];
    uint32_t indeg = t->in_off[dst + 1] - t->in_off[dst];
    if (d == 1) {
        if (indeg >= outdeg) return UINT32_MAX;
        CS_GROW(r->cand, r->cap_cand, (size_t)indeg + 1);
        uint32_t n = 0;
        for (uint32_t i = t->in_off[dst]; i < t->in_off[dst + 1]; i++) {
            uint32_t id = t->in_idx[i];
            if (t->links[id].src == cur && link_up(r, id)) r->cand[n++] = id;
        }
        return n;
    }
    if (d != 2 || indeg >= outdeg) return UINT32_MAX;
    /* the nodes at distance 1 are the sources of dst's up in-links */
    size_t cost = indeg;
    for (uint32_t i = t->in_off[dst]; i < t->in_off[dst + 1] && cost < outdeg; i++) {
        uint32_t v = t->links[t->in_idx[i]].src;
        cost += t->in_off[v + 1] - t->in_off[v];
    }
    if (cost >= outdeg) return UINT32_MAX;
    uint32_t n = 0;
    for (uint32_t i = t->in_off[dst]; i < t->in_off[dst + 1]; i++) {
        uint32_t v = t->links[t->in_idx[i]].src;
        if (dist[v] != 1) continue;
        for (uint32_t k = t->in_off[v]; k < t->in_off[v + 1]; k++) {
            uint32_t id = t->in_idx[k];
            if (t->links[id].src != cur || !link_up(r, id)) continue;
            uint32_t j = n; /* insertion by link id; v is met again when parallel links lead from it to dst */
            while (j > 0 && r->cand[j - 1] > id) j--;
            if (j > 0 && r->cand[j - 1] == id) continue;
            CS_GROW(r->cand, r->cap_cand, (size_t)n + 1);
            memmove(r->cand + j + 1, r->cand + j, (size_t)(n - j) * sizeof *r->cand);
            r->cand[j] = id;
            n++;
        }
    }
    return n;
}

/* The shortest path src -> dst (dist[src] links) into out, ECMP choices by
 * hash of (seed, src, dst, node) and, when salt != 0, the salt. */
static void walk(cs_router *r, const uint32_t *dist, uint32_t src, uint32_t dst, uint64_t salt, uint32_t *out) {
    const cs_topo *t = r->t;
    uint32_t len = dist[src], cur = src;
    unsigned fl = t->ecmp_fields ? t->ecmp_fields : CS_ECMP_SRC | CS_ECMP_DST | CS_ECMP_QP; /* the fields hashed */
    uint64_t pair = (fl & CS_ECMP_SRC ? (uint64_t)src << 32 : 0) | (fl & CS_ECMP_DST ? dst : 0);
    if (!(fl & CS_ECMP_QP)) salt = 0;
    for (uint32_t h = 0; h < len; h++) {
        uint64_t hkey = pair ^ cs_mix64(cur);
        if (salt) hkey ^= cs_mix64(salt);
        uint32_t nc = cands_from_dst(r, dist, cur, dst, dist[cur]);
        if (nc != UINT32_MAX) { /* the same candidates in the same order as the scan below */
            uint32_t pick = (uint32_t)(cs_mix64(r->seed ^ cs_mix64(hkey)) % nc);
            out[h] = r->cand[pick];
            cur = t->links[r->cand[pick]].dst;
            continue;
        }
        uint32_t cand = 0;
        for (uint32_t i = t->out_off[cur]; i < t->out_off[cur + 1]; i++) {
            const cs_link *l = &t->links[t->out_idx[i]];
            if (link_up(r, t->out_idx[i]) && dist[l->dst] + 1 == dist[cur]) cand++;
        }
        uint32_t pick = (uint32_t)(cs_mix64(r->seed ^ cs_mix64(hkey)) % cand);
        for (uint32_t i = t->out_off[cur]; i < t->out_off[cur + 1]; i++) {
            const cs_link *l = &t->links[t->out_idx[i]];
            if (!(link_up(r, t->out_idx[i]) && dist[l->dst] + 1 == dist[cur])) continue;
            if (pick-- == 0) {
                out[h] = t->out_idx[i];
                cur = l->dst;
                break;
            }
        }
    }
}

/* The entry of dst in tb (key 0 when absent); tb->cap must be > 0. */
static rent *lookup(const rtab *tb, uint32_t dst) {
    uint32_t key = dst + 1;
    for (uint32_t i = (uint32_t)cs_mix64(key) & (tb->cap - 1);; i = (i + 1) & (tb->cap - 1))
        if (tb->e[i].key == key || tb->e[i].key == 0) return &tb->e[i];
}

/* Whether src's table tb has a route to dst: its arena offset, length and
 * whether it is a fixed one. */
static int tab_get(const rtab *tb, uint32_t dst, uint32_t *off, uint32_t *n, int *fixed) {
    if (tb->dense) {
        dent_r d = tb->dense[dst];
        if (d.off == UINT32_MAX) return 0;
        *off = d.off;
        *n = d.nfix >> 1;
        *fixed = (int)(d.nfix & 1);
        return 1;
    }
    if (!tb->cap) return 0;
    const rent *e = lookup(tb, dst);
    if (!e->key) return 0;
    *off = e->off;
    *n = e->n;
    *fixed = (int)e->fixed;
    return 1;
}

/* Set tb's route to dst (tb of a topology of nnodes nodes). */
static void tab_put(rtab *tb, uint32_t nnodes, uint32_t dst, uint32_t off, uint32_t n, int fixed) {
    if (!tb->dense && (size_t)(tb->count + 1) * 4 >= nnodes) { /* to an array over all destinations */
        tb->dense = cs_malloc((size_t)nnodes * sizeof *tb->dense);
        for (uint32_t v = 0; v < nnodes; v++) tb->dense[v] = (dent_r){UINT32_MAX, 0};
        for (uint32_t i = 0; i < tb->cap; i++)
            if (tb->e[i].key) tb->dense[tb->e[i].key - 1] = (dent_r){tb->e[i].off, tb->e[i].n << 1 | tb->e[i].fixed};
        cs_free(tb->e);
        tb->e = NULL;
        tb->cap = 0;
    }
    if (tb->dense) {
        if (tb->dense[dst].off == UINT32_MAX) tb->count++;
        tb->dense[dst] = (dent_r){off, n << 1 | (uint32_t)(fixed != 0)};
        return;
    }
    rent *e = insert_slot(tb, dst);
    if (!e->key) tb->count++;
    *e = (rent){dst + 1, off, n, (uint32_t)(fixed != 0)};
}

int cs_router_route(cs_router *r, uint32_t src, uint32_t dst, const uint32_t **links, uint32_t *n,
                    cs_error *err) {
    const cs_topo *t = r->t;
    if (src >= t->nnodes || dst >= t->nnodes)
        return CS_ERR(err, CS_EINVAL, "route %u -> %u: the topology has nodes 0..%u", src, dst, t->nnodes - 1);
    rtab *tb = &r->tabs[src];
    uint32_t off, len;
    int fixed;
    if (tab_get(tb, dst, &off, &len, &fixed)) {
        *links = r->arena + off;
        *n = len;
        return CS_OK;
    }
    /* every destination's full array within the budget: each is computed once
     * and shared by its sources; else one search per route, stopped at src
     * (the same path either way: bfs_until) */
    int full = (size_t)t->nnodes * t->nnodes * sizeof(uint32_t) <= r->budget;
    const uint32_t *dist = full ? dist_to(r, dst) : (bfs_until(r, dst, src), r->near);
    if (dist[src] == UINT32_MAX) {
        if (!full) near_reset(r);
        return CS_ERR(err, CS_EINVAL, "no route from node %u to node %u over the links that are up", src, dst);
    }
    len = dist[src];
    CS_GROW(r->arena, r->acap, r->alen + len + 1);
    off = (uint32_t)r->alen;
    walk(r, dist, src, dst, 0, r->arena + off);
    if (!full) near_reset(r);
    r->alen += len;
    tab_put(tb, t->nnodes, dst, off, len, 0);
    r->computed++;
    *links = r->arena + off;
    *n = len;
    return CS_OK;
}

/* The slot for dst in tb, the table grown first so that it stays at most half full. */
static rent *insert_slot(rtab *tb, uint32_t dst) {
    if ((tb->count + 1) * 2 > tb->cap) {
        uint32_t ocap = tb->cap, ncap = tb->cap ? tb->cap * 2 : 8;
        rent *old = tb->e;
        tb->e = cs_calloc(ncap, sizeof *tb->e);
        tb->cap = ncap;
        for (uint32_t i = 0; i < ocap; i++)
            if (old[i].key) *lookup(tb, old[i].key - 1) = old[i];
        cs_free(old);
    }
    return lookup(tb, dst);
}

/* Put the topology's fixed routes whose links are all up into the cache. */
static void load_fixed(cs_router *r) {
    const cs_topo *t = r->t;
    for (uint32_t i = 0; i < t->nfixed; i++) {
        const struct cs_fixed_route *f = &t->fixed[i];
        int up = 1;
        for (uint32_t h = 0; h < f->n && up; h++) up = link_up(r, t->fixed_links[f->off + h]);
        if (!up) continue;
        CS_GROW(r->arena, r->acap, r->alen + f->n);
        memcpy(r->arena + r->alen, t->fixed_links + f->off, (size_t)f->n * sizeof *r->arena);
        tab_put(&r->tabs[f->src], t->nnodes, f->dst, (uint32_t)r->alen, f->n, 1);
        r->alen += f->n;
    }
}

int cs_router_route_msg(cs_router *r, uint32_t src, uint32_t dst, uint64_t msg, const uint32_t **links, uint32_t *n,
                        cs_error *err) {
    return cs_router_route_conn(r, src, dst, msg, 0, links, n, err);
}

int cs_router_route_conn(cs_router *r, uint32_t src, uint32_t dst, uint64_t msg, uint32_t conn,
                         const uint32_t **links, uint32_t *n, cs_error *err) {
    const cs_topo *t = r->t;
    int per_msg = r->spray < 0 ? t->spray : r->spray;
    int qp_hashed = !t->ecmp_fields || (t->ecmp_fields & CS_ECMP_QP);
    if ((!per_msg && conn == 0) || !qp_hashed) /* the pair's route (cached): nothing else is hashed */
        return cs_router_route(r, src, dst, links, n, err);
    if (src >= t->nnodes || dst >= t->nnodes)
        return CS_ERR(err, CS_EINVAL, "route %u -> %u: the topology has nodes 0..%u", src, dst, t->nnodes - 1);
    uint32_t off, len;
    int fixed; /* a fixed route (ECMP entries cached by cs_router_route do not count) */
    if (tab_get(&r->tabs[src], dst, &off, &len, &fixed) && fixed) {
        *links = r->arena + off;
        *n = len;
        return CS_OK;
    }
    const uint32_t *dist = dist_to(r, dst);
    if (dist[src] == UINT32_MAX)
        return CS_ERR(err, CS_EINVAL, "no route from node %u to node %u over the links that are up", src, dst);
    CS_GROW(r->scratch, r->cap_scratch, (size_t)dist[src] + 1);
    uint64_t salt;
    if (!per_msg) {
        salt = conn; /* the pair's connection conn (> 0; connection 0 is the pair's cached route) */
    } else {
        uint32_t qps = r->spray < 0 ? t->qps : 0; /* QP-aware ECMP (as the topology says): the message's queue pair */
        salt = qps ? (uint64_t)conn * qps + msg % qps + 1 : (conn ? msg ^ cs_mix64(conn) : msg) + 1;
        if (salt == 0 && conn) salt = 1; /* (conn 0 keeps the pair's route at that one key, as before) */
    }
    walk(r, dist, src, dst, salt, r->scratch);
    r->computed++;
    *links = r->scratch;
    *n = dist[src];
    return CS_OK;
}

uint32_t cs_router_next_links(cs_router *r, uint32_t node, uint32_t dst, uint32_t *out, uint32_t cap) {
    const cs_topo *t = r->t;
    if (node >= t->nnodes || dst >= t->nnodes || node == dst) return 0;
    const uint32_t *dist = dist_to(r, dst);
    if (dist[node] == UINT32_MAX) return 0;
    uint32_t n = 0;
    for (uint32_t i = t->out_off[node]; i < t->out_off[node + 1]; i++) {
        uint32_t l = t->out_idx[i];
        if (link_up(r, l) && dist[t->links[l].dst] + 1 == dist[node]) {
            if (n < cap) out[n] = l;
            n++;
        }
    }
    return n;
}

int cs_router_is_fixed(cs_router *r, uint32_t src, uint32_t dst) {
    uint32_t off, len;
    int fixed;
    if (src >= r->t->nnodes || dst >= r->t->nnodes) return 0;
    return tab_get(&r->tabs[src], dst, &off, &len, &fixed) && fixed;
}

uint64_t cs_topo_count_paths(const cs_topo *t, uint32_t src, uint32_t dst) {
    uint32_t *dist = cs_malloc((size_t)t->nnodes * sizeof *dist);
    uint32_t *queue = cs_malloc((size_t)t->nnodes * sizeof *queue);
    uint64_t *cnt = cs_calloc(t->nnodes, sizeof *cnt);
    bfs(t, NULL, dst, dist, queue);
    uint64_t res = 0;
    if (dist[src] != UINT32_MAX) {
        /* queue holds nodes in BFS order from dst (increasing distance) */
        cnt[dst] = 1;
        uint32_t reached = 0;
        for (uint32_t v = 0; v < t->nnodes; v++) reached += dist[v] != UINT32_MAX;
        for (uint32_t qi = 1; qi < reached; qi++) {
            uint32_t v = queue[qi];
            uint64_t c = 0;
            for (uint32_t i = t->out_off[v]; i < t->out_off[v + 1]; i++) {
                const cs_link *l = &t->links[t->out_idx[i]];
                if (cs_link_up(l) && dist[l->dst] + 1 == dist[v]) c = (c > UINT64_MAX - cnt[l->dst]) ? UINT64_MAX : c + cnt[l->dst];
            }
            cnt[v] = c;
        }
        res = cnt[src];
    }
    cs_free(dist);
    cs_free(queue);
    cs_free(cnt);
    return res;
}
