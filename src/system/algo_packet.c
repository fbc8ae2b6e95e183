/*
 * algo_packet.c -- the packet engine (css_pe_*) that ring, direct and
 * halving-doubling share, and the logical-topology helpers every algorithm
 * uses (part of the system layer; see sys_int.h).  Owned by the system layer.
 * The algorithms themselves -- their parameters for the engine and their
 * registry entries -- are algo_ring.c, algo_direct.c and algo_hd.c.
 *
 * The three algorithms of ASTRA-sim's astraccl share one mechanism, which we
 * re-derive here because its details decide the timing:
 *  - a phase has `stream_count` sends to make.  It starts by creating P
 *    packets (P = 1 for ring and halving-doubling, the window for direct),
 *    and creates one more packet for every message it receives;
 *  - packets come in rounds: P "zero-latency" packets (moved NPU -> memory,
 *    never reduced), then NZ packets that, in a reduce-scatter or in the
 *    first half of an all-reduce, pay the local reduction; a new round
 *    starts when both are used up and flips the all-reduce half;
 *  - every packet goes through a bundle: the endpoint delay, plus the
 *    reduction 3 x bytes / local-mem-bw if it is reduced; when a bundle
 *    completes, the phase gets one "free" token and sends its oldest unsent
 *    packet if it has one (send k goes to dst(k) and posts receive k from
 *    src(k));
 *  - the phase ends when all sends are made and exactly P tokens are free.
 * Direct all-reduce additionally holds its second half back until it has
 * received the n-1 messages of the first half, then sends up to P at once
 * (css_pe_params.hold_second_half).
 * An algorithm on the engine gives P, NZ, the sends, the packet sizes and
 * the peers as a css_pe_params (sys_int.h) in its table's `impl`.
 * Invariants (core/invariant.h): a round has packets; a phase ends having
 * received exactly as many messages as it sent (P + received packets made,
 * sent + P bundles completed), so no message of the phase is left behind.
 */
#include <inttypes.h>

#include "core/invariant.h"
#include "system/sys_int.h"

/* ---- logical topology -------------------------------------------------------- */

uint32_t css_topo_index_of(const cs_system *s, uint32_t member, const cs_phase *ph) {
    if (ph->space == SP_DIM) return (uint32_t)(((uint64_t)member / s->stride[ph->dim]) % ph->n);
    if (ph->space == SP_GSTRIDE) return member / ph->gstride; /* node-major: the member's node */
    return member; /* SP_ALL: the rank; SP_GROUP: the position in the group */
}

uint32_t css_topo_member(const cs_stream *st, const cs_phase *ph, uint32_t j) {
    if (ph->space != SP_DIM && ph->space != SP_GSTRIDE) return j;
    uint64_t stride = ph->space == SP_GSTRIDE ? ph->gstride : st->inst->sys->stride[ph->dim];
    uint64_t base = (uint64_t)st->member - (uint64_t)st->idx * stride;
    return (uint32_t)(base + (uint64_t)j * stride);
}

uint32_t css_ring_step_far(uint32_t idx, uint32_t n, int64_t delta) {
    int64_t r = ((int64_t)idx + delta) % (int64_t)n;
    if (r < 0) r += n;
    return (uint32_t)r;
}

uint64_t css_pe_share_bytes(const cs_phase *ph, uint32_t k) {
    (void)k;
    return ph->ctype == CT_AG ? ph->in_bytes : ph->in_bytes / ph->n;
}

/* ---- the engine ------------------------------------------------------------------------ */

/* Per-stream state (css_stream_state). */
typedef struct pe_state {
    int32_t stream_count; /* sends left */
    int32_t free_packets; /* bundles completed and not yet used by a send */
    int32_t zero, nonzero;/* packets left in the current round */
    uint32_t created, sent, received;
    uint8_t toggle;       /* reduce-scatter half of an all-reduce */
} pe_state;
_Static_assert(sizeof(pe_state) <= CSS_ALGO_STATE_BYTES, "packet engine state fits the stream");

static const css_pe_params *params(const cs_phase *ph) { return css_phase_algo(ph)->impl; }

void css_pe_setup(cs_stream *st, const cs_phase *ph) {
    pe_state *e = css_stream_state(st);
    e->stream_count = params(ph)->sends(ph);
    e->free_packets = 0;
    e->zero = e->nonzero = 0;
    e->toggle = 0;
    e->created = e->sent = e->received = 0;
}

int css_pe_recv_posted(const cs_stream *st, uint32_t k) {
    const pe_state *e = css_stream_cstate(st);
    return k < e->sent;
}

static void insert_packet(cs_system *s, cs_stream *st, pe_state *e, const cs_phase *ph,
                          const css_pe_params *pp) {
    if (e->zero == 0 && e->nonzero == 0) {
        e->zero = pp->packets(ph);
        e->nonzero = pp->nonzero(ph);
        e->toggle ^= 1;
    }
    uint32_t c = e->created;
    CS_ALWAYS(e->zero > 0 || e->nonzero > 0, "collective #%" PRIu64 ": a round of packets without packets",
              st->inst->seq);
    if (e->zero > 0) {
        e->created++;
        e->zero--;
        css_stream_bundle(s, st, pp->bytes(ph, c), 0, ph->fast);
    } else if (e->nonzero > 0) {
        int processed = ph->ctype == CT_RS || (ph->ctype == CT_AR && e->toggle);
        e->created++;
        e->nonzero--;
        css_stream_bundle(s, st, pp->bytes(ph, c), processed, ph->fast);
    } else {
        css_fail(s, CS_EINTERNAL); /* a round without packets: cannot happen */
    }
}

static int ready(cs_stream *st, pe_state *e, const cs_phase *ph, const css_pe_params *pp) {
    if (e->created == e->sent || e->stream_count == 0 || e->free_packets == 0) return 0;
    uint32_t k = e->sent, dst, src;
    pp->peers(ph, st->idx, k, &dst, &src);
    css_send(st, css_topo_member(st, ph, dst), src, pp->bytes(ph, k), k);
    e->stream_count--;
    e->sent++;
    e->free_packets--;
    css_post_recv(st, k);
    return 1;
}

/* Returns 1 when the phase ended (st has moved on: do not touch it). */
static int iteratable(cs_system *s, cs_stream *st, pe_state *e, const cs_phase *ph,
                      const css_pe_params *pp) {
    if (e->stream_count == 0 && e->free_packets == pp->packets(ph)) {
        CS_ALWAYS(e->received == e->sent && e->created == e->sent + (uint32_t)pp->packets(ph),
                  "member %u's chunk %u of collective #%" PRIu64 ": phase %u ends with %u messages sent, %u received, "
                  "%u packets made", st->member, st->chunk, st->inst->seq, st->phase, e->sent, e->received, e->created);
        css_stream_proceed(s, st);
        return 1;
    }
    return 0;
}

void css_pe_run(cs_system *s, cs_stream *st, int ev) {
    const cs_phase *ph = stream_phase(st);
    const css_pe_params *pp = params(ph);
    pe_state *e = css_stream_state(st);
    if (s->rep) css_sym_touch(s, st, "one stream");
    switch (ev) {
    case EV_INIT:
        for (int32_t i = 0; i < pp->packets(ph); i++) insert_packet(s, st, e, ph, pp);
        return;
    case EV_RECV:
        e->received++;
        insert_packet(s, st, e, ph, pp);
        return;
    default:
        e->free_packets++;
        if (pp->hold_second_half && ph->ctype == CT_AR && e->stream_count <= (int32_t)ph->n - 1) {
            if (e->received < ph->n - 1) return;
            for (int32_t i = 0; i < pp->packets(ph); i++) ready(st, e, ph, pp);
        } else {
            ready(st, e, ph, pp);
        }
        iteratable(s, st, e, ph, pp);
        return;
    }
}
