/*
 * packet_pfc.c -- PFC deadlock detection of the `packet` backend: finds a
 * set of paused links that can never resume and names the cyclic buffer
 * dependency that holds them.
 *
 * Why a set of links is frozen for good.  A link A = u -> v stops being
 * paused only when v sends XON for it, and v decides that only when it
 * releases a data packet that came in on A (packet.c: release).  Call A
 * frozen when
 *   (1) its sender is paused, v still holds it off (xoff) and no PFC frame
 *       for it is on its way (else a resume may already be coming);
 *   (2) no data packet is on the wire over A (one would land in v's buffer
 *       and could leave on a link that is not frozen), and A's port is not
 *       sending a data packet (its end would release a packet at u);
 *   (3) every data packet v holds that came in on A waits in the queue of
 *       an egress link of v that is itself frozen (not being sent: that
 *       link's port sends no data, by (1) and (2)), and there is at least
 *       one.
 * Then no event can release a packet that came in on a frozen link, so no
 * XON is ever sent for one, so none resumes: by induction over the events,
 * the set stays frozen whatever else happens in the network.  The largest
 * frozen set is found as a greatest fixed point: start from the links with
 * (1) and (2), drop every link one of whose held packets waits elsewhere (or
 * that holds none), until nothing changes.  Every link left has a packet
 * waiting on another link left, so the links left contain a cycle: the
 * cyclic buffer dependency, which we name.
 *
 * A congested network that still progresses is never flagged: the test is
 * a property of the state that implies no future progress, not a timer.
 * It is run by the PFC watchdog (packet.c, on_watchdog: every pfc_watchdog
 * while a link is paused, so a deadlock is found at most that long after it
 * forms; its events exist only while some pause lasts longer, so other runs
 * have exactly the events they had) and when a retransmit timeout fires in
 * lossless mode (a flow made no progress for rto: every flow with packets
 * held in a deadlock has such a timer, so with the watchdog off the
 * deadlock is found at the first one).  Cost: one pass over the links and
 * the queued packets per check.
 *
 * Owns nothing (scratch arrays live for one check).
 */
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "network/packet_int.h"

/* Conditions (1) and (2) on class c of link l (with several traffic
 * classes each is paused on its own: the links below are (link, class)
 * pairs, k = l x npri + c, and a packet keeps its class on every hop). */
static int candidate(const pkt_state *s, uint32_t l, uint32_t c) {
    const port *P = &s->ports[l];
    const pclass *C = pkt_pc(s, l, c);
    return (P->paused >> c & 1) && (P->xoff >> c & 1) && !C->pfc_pending && !C->wire_data &&
           !(P->busy && P->cur_data && P->cur_prio == c);
}

static void describe(pkt_state *s, const uint32_t *cyc, uint32_t ncyc, uint32_t nfrozen) {
    const cs_topo *t = s->topo;
    char *b = s->deadlock;
    size_t n = sizeof s->deadlock, len = 0;
    len += (size_t)snprintf(b, n, "PFC deadlock: a cycle of %u paused links, each held off by packets waiting to "
                            "leave on the next: ", ncyc);
    uint32_t shown = 0;
    for (uint32_t i = 0; i < ncyc && len < n; i++) {
        if (shown == 6 && ncyc > 7) {
            len += (size_t)snprintf(b + len, n - len, ", and %u more", ncyc - shown);
            break;
        }
        uint32_t l = cyc[i] / s->npri, c = cyc[i] % s->npri;
        const cs_link *L = pkt_link(s, l);
        const pclass *C = pkt_pc(s, l, c);
        char cls[24] = "";
        if (s->npri > 1) snprintf(cls, sizeof cls, " class %u", c);
        len += (size_t)snprintf(b + len, n - len, "%s%s %u -> %s %u%s (queue %llu bytes, paused since %.6f us)",
                                i ? ", " : "", cs_node_kind_name((cs_node_kind)t->kind[L->src]), L->src,
                                cs_node_kind_name((cs_node_kind)t->kind[L->dst]), L->dst, cls,
                                (unsigned long long)C->qbytes, cs_time_as_us_f(C->pause_since));
        shown++;
    }
    if (len < n && nfrozen > ncyc)
        snprintf(b + len, n - len, "; %u more links paused behind it for good", nfrozen - ncyc);
}

int pkt_pfc_deadlock(pkt_state *s) {
    if (s->deadlocked) return 1;
    const cs_topo *t = s->topo;
    uint32_t np = s->npri, nl = t->nlinks * np, ncand = 0; /* nl: (link, class) pairs */
    for (uint32_t k = 0; k < nl; k++) ncand += candidate(s, k / np, k % np);
    if (!ncand) return 0;
    uint8_t *in = cs_calloc(nl, 1);
    uint32_t *last = cs_malloc((size_t)nl * sizeof *last); /* per link: the egress of its last edge (dedupe) */
    for (uint32_t k = 0; k < nl; k++) {
        in[k] = (uint8_t)candidate(s, k / np, k % np);
        last[k] = NONE;
    }
    /* edges A -> E: a packet that came in on candidate A waits in E's queue or is on E's wire */
    uint32_t *ea = NULL, *ee = NULL;
    size_t ne = 0, cap = 0, cap2 = 0;
    for (uint32_t e = 0; e < nl; e++) {
        const port *E = &s->ports[e / np];
        uint32_t c = e % np;
        if (E->busy && E->cur_data && E->cur_prio == c && E->cur_in_link != NONE && in[E->cur_in_link * np + c])
            in[E->cur_in_link * np + c] = 0;
        pkt *const *heads;
        uint32_t nlists = pkt_class_lists(s, e / np, c, &heads);
        for (uint32_t j = 0; j < nlists; j++)
            for (const pkt *p = heads[j]; p; p = p->next) {
                uint32_t a = p->in_link == NONE ? NONE : p->in_link * np + c;
                if (a == NONE || !in[a] || last[a] == e) continue;
                last[a] = e;
                CS_GROW(ea, cap, ne + 1);
                CS_GROW(ee, cap2, ne + 1);
                ea[ne] = a;
                ee[ne++] = e;
            }
    }
    /* the greatest fixed point: a link stays while it has an edge and all its edges stay */
    uint8_t *ok = cs_malloc(nl);
    for (int changed = 1; changed;) {
        changed = 0;
        memset(ok, 0, nl);
        for (size_t i = 0; i < ne; i++)
            if (in[ea[i]]) ok[ea[i]] |= 1;
        for (size_t i = 0; i < ne; i++)
            if (in[ea[i]] && !in[ee[i]]) ok[ea[i]] |= 2;
        for (uint32_t l = 0; l < nl; l++)
            if (in[l] && ok[l] != 1) {
                in[l] = 0;
                changed = 1;
            }
    }
    uint32_t nfrozen = 0, start = NONE;
    for (uint32_t l = 0; l < nl; l++)
        if (in[l]) {
            nfrozen++;
            if (start == NONE) start = l;
        }
    int found = 0;
    if (nfrozen) {
        /* each frozen link's successor: its lowest-numbered egress (edges are in ascending e per a) */
        uint32_t *succ = last; /* reused */
        for (uint32_t l = 0; l < nl; l++) succ[l] = NONE;
        for (size_t i = 0; i < ne; i++)
            if (in[ea[i]] && succ[ea[i]] == NONE) succ[ea[i]] = ee[i];
        /* walk from the lowest frozen link until a link repeats: the cycle */
        uint32_t *order = cs_malloc((size_t)nl * sizeof *order), *pos = cs_malloc((size_t)nl * sizeof *pos);
        for (uint32_t l = 0; l < nl; l++) pos[l] = NONE;
        uint32_t k = 0, v = start;
        while (pos[v] == NONE) {
            pos[v] = k;
            order[k++] = v;
            v = succ[v];
        }
        uint32_t c0 = pos[v], ncyc = k - c0, lo = c0;
        for (uint32_t i = c0; i < k; i++)
            if (order[i] < order[lo]) lo = i;
        uint32_t *cyc = cs_malloc((size_t)ncyc * sizeof *cyc); /* from its lowest-numbered link */
        for (uint32_t i = 0; i < ncyc; i++) cyc[i] = order[c0 + (lo - c0 + i) % ncyc];
        describe(s, cyc, ncyc, nfrozen);
        cs_free(cyc);
        cs_free(order);
        cs_free(pos);
        s->deadlocked = 1;
        s->st.deadlocks = 1;
        if (s->halt) *s->halt = 1;
        found = 1;
    }
    cs_free(ok);
    cs_free(ea);
    cs_free(ee);
    cs_free(in);
    cs_free(last);
    return found;
}
