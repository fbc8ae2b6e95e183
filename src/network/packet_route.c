/*
 * packet_route.c -- per-packet routing of the `packet` backend
 * (backend.packet.routing = packet-spray, flowlet, adaptive): which of the
 * equal-cost next links a data packet takes at each node.  The other modes
 * (topology, ecmp, spray per message) and every flow on a route of the
 * routing table follow the flow's one path (packet.c).
 *
 * A data packet always leaves its source NPU on its flow's first link (the
 * NPU's port keeps the flow's send ring); from then on every node picks
 * among the links that lie on a shortest path to the destination
 * (cs_router_next_links), so each path has the flow's hop count:
 *   - packet-spray: packet psn of a flow takes equal-cost path number
 *     (h + psn), h a hash of the message, written in mixed radix over the
 *     hops (at a node with c choices the digit is the number mod c, the rest
 *     number / c): consecutive packets cycle over the paths, each taking the
 *     same share when the choices are symmetric (a Clos);
 *   - flowlet: the packets of a flowlet keep one path; a gap of more than
 *     flowlet_gap between two packets of the flow (as its source sends them)
 *     starts the next flowlet, whose path is hashed from (seed, message,
 *     flowlet number, node) at each node.  Flowlet 0 is the flow's ECMP path
 *     itself, so with a gap longer than any the run has, the outputs are
 *     those of ECMP;
 *   - adaptive: each node takes the next link with the shortest queue (data
 *     bytes waiting plus the packet on the wire) when the packet arrives,
 *     ties broken by a hash of (seed, message, psn, node).
 * The packets of a flow may then arrive out of order: go-back-N's receiver
 * drops every packet past a gap and NAKs it (the sender goes back: packets
 * sent again), selective repeat's keeps them and infers losses from
 * timeouts only (packet.c): see docs/network.md, "packet".
 *
 * Owns nothing but the scratch list of candidate links (pkt_state.cand).
 */
#include "core/alloc.h"
#include "core/rand.h"
#include "network/packet_int.h"

static uint64_t seed_of(const pkt_state *s) {
    return s->o.ecmp_seed >= 0 ? (uint64_t)s->o.ecmp_seed : s->topo->ecmp_seed;
}

/* The candidate next links at v toward dst into s->cand: their count. */
static uint32_t candidates(pkt_state *s, uint32_t v, uint32_t dst) {
    uint32_t n = cs_router_next_links(s->router, v, dst, s->cand, s->cap_cand);
    if (n > s->cap_cand) {
        s->cap_cand = n;
        s->cand = cs_realloc(s->cand, (size_t)n * sizeof *s->cand);
        n = cs_router_next_links(s->router, v, dst, s->cand, s->cap_cand);
    }
    return n;
}

void pkt_route_start(pkt_state *s, pflow *f, pkt *p) {
    if (!s->hbh || f->fixed || f->npath < 2) return; /* one link: no choice after it */
    cs_time now = cs_eventq_now(s->q);
    switch (s->o.routing) {
    case PKT_ROUTING_PSPRAY:
        p->ent = cs_mix64(seed_of(s) ^ cs_mix64(f->key)) + p->psn;
        break;
    case PKT_ROUTING_FLOWLET:
        if (f->sent && now - f->last_tx > s->flowlet_gap) f->flowlet++;
        f->last_tx = now;
        if (!f->flowlet) return; /* flowlet 0: the flow's own path */
        p->ent = f->flowlet;
        break;
    default: /* adaptive */
        break;
    }
    p->hbh = 1;
    p->link = f->path[0];
}

uint32_t pkt_route_next(pkt_state *s, pkt *p, uint32_t v) {
    const pflow *f = &s->flows[p->flow];
    uint32_t n = candidates(s, v, f->dst);
    if (n == 0) return f->path[p->hop]; /* (cannot happen: v lies on a shortest path) */
    if (n == 1) return s->cand[0];
    uint64_t h = cs_mix64(seed_of(s) ^ cs_mix64(f->key ^ cs_mix64(v)));
    switch (s->o.routing) {
    case PKT_ROUTING_PSPRAY: {
        uint32_t k = (uint32_t)(p->ent % n);
        p->ent /= n;
        return s->cand[k];
    }
    case PKT_ROUTING_FLOWLET:
        return s->cand[cs_mix64(h ^ cs_mix64(p->ent)) % n];
    default: { /* adaptive: the shortest queue, ties by hash */
        uint64_t best = UINT64_MAX;
        uint32_t ties = 0;
        for (uint32_t i = 0; i < n; i++) {
            const port *P = &s->ports[s->cand[i]];
            uint64_t q = P->qbytes + (P->busy && P->cur_data ? P->cur_wire : 0);
            if (q < best) {
                best = q;
                ties = 0;
            }
            if (q == best) s->cand[ties++] = s->cand[i]; /* the tied ones, in order, at the front */
        }
        return s->cand[cs_mix64(h ^ cs_mix64((uint64_t)p->psn + 1)) % ties];
    }
    }
}

int pkt_route_cut_through(pkt_state *s, const pkt *p, uint32_t l) {
    const pflow *f = &s->flows[p->flow];
    uint32_t far = pkt_link(s, l)->dst;
    if (far == f->dst) return 0;
    uint32_t n = candidates(s, far, f->dst);
    for (uint32_t i = 0; i < n; i++)
        if (s->bw[s->cand[i]] > s->bw[l]) return 0;
    return n > 0;
}
