/*
 * route.h -- routing over a cs_topo: shortest paths (fewest links) among the
 * links that are up, with ECMP: where several next links lie on shortest
 * paths, a flow picks one by hashing (seed, src, dst, current node) -- of
 * src, dst and the queue pair, the fields t->ecmp_fields names -- so a
 * (src, dst) connection always takes the same path for a given seed (as a
 * switch hashes a RoCE QP's 5-tuple) and different pairs spread over the
 * equal-cost paths.
 *
 * Routes are cached per (src, dst) pair.  A route is found by a reverse BFS
 * from dst: when the distance arrays of every destination fit a memory budget
 * (256 MiB), the whole graph's, cached per destination; otherwise one search
 * per route that stops once src's distance is known (the same path: route.c,
 * bfs_until).  Spraying and cs_router_next_links use the cached arrays.
 * cs_router_invalidate drops both after links change (failures).
 *
 * With spraying (t->spray, or cs_router_new_ex), cs_router_route_msg picks the path per message (the
 * hash includes the message key: packet spraying at flow level); routes
 * are then not cached (the distance arrays are).  Fixed routes of the
 * topology's routing table (t->fixed) take precedence in both modes while
 * their links are up.
 *
 * Ownership: the router borrows the topology and owns its caches; a route
 * returned by cs_router_route stays valid until invalidate or free.
 */
#ifndef CS_TOPOLOGY_ROUTE_H
#define CS_TOPOLOGY_ROUTE_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "topology/topology.h"

typedef struct cs_router cs_router;

/* A router over t with the topology's routing mode (t->spray) and link
 * bandwidths (t->links[].bw: 0 = down). */
cs_router *cs_router_new(const cs_topo *t, uint64_t seed);
/* The same with the routing mode given (spray: 1 = per-message paths, 0 =
 * one path per pair, -1 = as t->spray says when routing) and,
 * when bw is not NULL, links up or down by bw[link] > 0 instead of the
 * topology's bandwidths (a backend that changes bandwidths during a run keeps
 * its own array and calls cs_router_invalidate after changing it; borrowed). */
cs_router *cs_router_new_ex(const cs_topo *t, uint64_t seed, int spray, const double *bw);
void cs_router_free(cs_router *r);
/* The links of the route from node src to node dst, in order (n = 0 when
 * src == dst).  CS_EINVAL when dst cannot be reached over links that are up. */
int cs_router_route(cs_router *r, uint32_t src, uint32_t dst, const uint32_t **links, uint32_t *n,
                    cs_error *err);
/* The route of one message: as cs_router_route unless the topology sprays,
 * then chosen per message by hashing `msg` too (valid until the next call). */
int cs_router_route_msg(cs_router *r, uint32_t src, uint32_t dst, uint64_t msg, const uint32_t **links, uint32_t *n,
                        cs_error *err);
/* The route of connection `conn` of a message (NCCL's channels: each its own
 * queue pair, hashed by its own UDP source port).  conn 0: as
 * cs_router_route_msg.  conn > 0: ECMP per pair hashes (src, dst, conn);
 * with spraying, QP-aware ECMP hashes queue pair conn x qps + msg mod qps,
 * and per-message spraying hashes (msg, conn).  Fixed routes take precedence.
 * Valid until the next call. */
int cs_router_route_conn(cs_router *r, uint32_t src, uint32_t dst, uint64_t msg, uint32_t conn,
                         const uint32_t **links, uint32_t *n, cs_error *err);
void cs_router_invalidate(cs_router *r);
/* The links out of `node` that lie on a shortest path to dst over the links
 * that are up, in the topology's order (for per-hop choices: spraying,
 * adaptive routing): their count, of which the first min(count, cap) are
 * written to out; 0 when node == dst or dst cannot be reached. */
uint32_t cs_router_next_links(cs_router *r, uint32_t node, uint32_t dst, uint32_t *out, uint32_t cap);
/* Whether src -> dst follows a fixed route of the routing table. */
int cs_router_is_fixed(cs_router *r, uint32_t src, uint32_t dst);
/* The bytes of distance arrays the router may keep (default 256 MiB; routes
 * are the same whatever it is; tests set 0 to exercise the stopped search). */
void cs_router_set_dist_budget(cs_router *r, size_t bytes);
/* Routes computed (cache misses) so far. */
uint64_t cs_router_computed(const cs_router *r);

/* Number of distinct shortest paths from src to dst (saturating at
 * UINT64_MAX; 0 when unreachable).  For tests and reports. */
uint64_t cs_topo_count_paths(const cs_topo *t, uint32_t src, uint32_t dst);

#endif
