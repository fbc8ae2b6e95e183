/*
 * algo_packet.c -- ring, direct and halving-doubling: one "packet engine"
 * (part of the system layer; see sys_int.h).  Owned by the system layer.
 * Also the logical-topology helpers every algorithm uses.
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
 * received the n-1 messages of the first half, then sends up to P at once.
 *
 * Parameters per algorithm (n = nodes in the ring, idx = this node):
 *   ring:   P = 1; NZ = n-1; sends: all-reduce 2(n-1), all-to-all n(n-1)/2,
 *           else n-1; dst = idx+1, src = idx-1 (reversed anticlockwise);
 *   direct: P = min(window, n-1); NZ = P (n-1 times P on a communicator
 *           group's ring); sends: all-to-all n-1, all-reduce 2(n-1), else
 *           n-1; dst(k) = idx+1+(k mod (n-1)), src(k) = idx-1-(k mod (n-1));
 *   halving-doubling: P = 1; NZ = log2(n)-1; sends 2 log2(n) for all-reduce,
 *           else log2(n); packet k goes to idx +- offset(k) (the side given
 *           by bit log2(offset) of idx) with msg(k) bytes: offsets double
 *           (halve for all-gather) from 1 (n/2), turning back at n for
 *           all-reduce; msg halves (doubles).
 * Message sizes: ring and direct send bytes/n (all-gather: bytes) per packet.
 */
#include "system/sys_int.h"

/* ---- logical topology -------------------------------------------------------- */

uint32_t topo_index_of(const cs_system *s, uint32_t member, const cs_phase *ph) {
    if (ph->space == SP_DIM) return (uint32_t)(((uint64_t)member / s->stride[ph->dim]) % ph->n);
    return member; /* SP_ALL: the rank; SP_GROUP: the position in the group */
}

uint32_t topo_member(const cs_stream *st, const cs_phase *ph, uint32_t j) {
    if (ph->space != SP_DIM) return j;
    uint64_t stride = st->inst->sys->stride[ph->dim];
    uint64_t base = (uint64_t)st->member - (uint64_t)st->idx * stride;
    return (uint32_t)(base + (uint64_t)j * stride);
}

static uint32_t ring_step(uint32_t idx, uint32_t n, int64_t delta) {
    int64_t r = ((int64_t)idx + delta) % (int64_t)n;
    if (r < 0) r += n;
    return (uint32_t)r;
}

static uint32_t ilog2(uint32_t n) {
    uint32_t l = 0;
    while ((1u << (l + 1)) <= n && l < 31) l++;
    return l;
}

/* ---- per-algorithm parameters ---------------------------------------------------- */

static int32_t par_p(const cs_phase *ph) { return ph->algo == ALG_DIRECT ? (int32_t)ph->window : 1; }

static int32_t par_nonzero(const cs_phase *ph) {
    switch (ph->algo) {
    case ALG_RING: return (int32_t)(ph->n - 1) * par_p(ph);
    case ALG_DIRECT: return ph->fast ? (int32_t)(ph->n - 1) * par_p(ph) : par_p(ph);
    default: return (int32_t)ilog2(ph->n) - 1;
    }
}

static int32_t par_sends(const cs_phase *ph) {
    int32_t n = (int32_t)ph->n;
    if (ph->algo == ALG_HD) return ph->ctype == CT_AR ? 2 * (int32_t)ilog2(ph->n) : (int32_t)ilog2(ph->n);
    switch (ph->ctype) {
    case CT_AR: return 2 * (n - 1);
    case CT_A2A: return ph->algo == ALG_DIRECT ? n - 1 : (n - 1) * n / 2;
    default: return n - 1;
    }
}

/* Halving-doubling: offset and size of packet k (ASTRA-sim updates them after
 * every packet it creates; we replay the updates). */
static void hd_packet(const cs_phase *ph, uint32_t k, uint32_t *offset, uint64_t *msg) {
    int32_t off = ph->ctype == CT_AG ? (int32_t)(ph->n / 2) : 1;
    double mult = ph->ctype == CT_AG ? 0.5 : 2.0;
    uint64_t sz = ph->ctype == CT_AG ? ph->in_bytes : ph->in_bytes / 2;
    for (uint32_t i = 0; i < k; i++) {
        off = (int32_t)((double)off * mult);
        sz = (uint64_t)((double)sz / mult);
        if (off == (int32_t)ph->n && ph->ctype == CT_AR) {
            mult = 0.5;
            off = (int32_t)((double)off * mult);
            sz = (uint64_t)((double)sz / mult);
        }
    }
    *offset = (uint32_t)off;
    *msg = sz;
}

static uint64_t hd_msg_bytes(const cs_phase *ph, uint32_t k) {
    uint32_t off;
    uint64_t sz;
    hd_packet(ph, k, &off, &sz);
    return sz;
}

static uint64_t packet_bytes(const cs_phase *ph, uint32_t k) {
    if (ph->algo == ALG_HD) return hd_msg_bytes(ph, k);
    return ph->ctype == CT_AG ? ph->in_bytes : ph->in_bytes / ph->n;
}

/* Ring index of the peer of packet k: the destination of send k, which is
 * also the source of receive k (the algorithms are symmetric). */
static void packet_peers(const cs_stream *st, const cs_phase *ph, uint32_t k, uint32_t *dst,
                         uint32_t *src) {
    uint32_t idx = st->idx, n = ph->n;
    int64_t dir = ph->anticlockwise ? -1 : 1;
    switch (ph->algo) {
    case ALG_RING:
        *dst = ring_step(idx, n, dir);
        *src = ring_step(idx, n, -dir);
        return;
    case ALG_DIRECT: {
        int64_t j = 1 + (int64_t)(k % (n - 1));
        *dst = ring_step(idx, n, dir * j);
        *src = ring_step(idx, n, -dir * j);
        return;
    }
    default: {
        uint32_t off;
        uint64_t sz;
        hd_packet(ph, k, &off, &sz);
        int64_t side = (off == 0 || (idx / off) % 2 == 0) ? 1 : -1;
        *dst = *src = ring_step(idx, n, side * (int64_t)off);
        return;
    }
    }
}

/* ---- the engine ------------------------------------------------------------------------ */

void packet_setup(cs_stream *st, const cs_phase *ph) {
    st->stream_count = par_sends(ph);
    st->free_packets = 0;
    st->zero = st->nonzero = 0;
    st->toggle = 0;
    st->created = st->sent = st->received = 0;
}

int packet_recv_posted(const cs_stream *st, uint32_t k) { return k < st->sent; }

static void insert_packet(cs_system *s, cs_stream *st, const cs_phase *ph) {
    if (st->zero == 0 && st->nonzero == 0) {
        st->zero = par_p(ph);
        st->nonzero = par_nonzero(ph);
        st->toggle ^= 1;
    }
    uint32_t c = st->created;
    if (st->zero > 0) {
        st->created++;
        st->zero--;
        stream_bundle(s, st, packet_bytes(ph, c), 0, ph->fast);
    } else if (st->nonzero > 0) {
        int processed = ph->ctype == CT_RS || (ph->ctype == CT_AR && st->toggle);
        st->created++;
        st->nonzero--;
        stream_bundle(s, st, packet_bytes(ph, c), processed, ph->fast);
    } else {
        sys_fail(s, CS_EINTERNAL); /* a round without packets: cannot happen */
    }
}

static int ready(cs_stream *st, const cs_phase *ph) {
    if (st->created == st->sent || st->stream_count == 0 || st->free_packets == 0) return 0;
    uint32_t k = st->sent, dst, src;
    packet_peers(st, ph, k, &dst, &src);
    sys_send(st, topo_member(st, ph, dst), src, packet_bytes(ph, k), k);
    st->stream_count--;
    st->sent++;
    st->free_packets--;
    sys_post_recv(st, k);
    return 1;
}

/* Returns 1 when the phase ended (st has moved on: do not touch it). */
static int iteratable(cs_system *s, cs_stream *st, const cs_phase *ph) {
    if (st->stream_count == 0 && st->free_packets == par_p(ph)) {
        stream_proceed(s, st);
        return 1;
    }
    return 0;
}

void packet_run(cs_system *s, cs_stream *st, int ev) {
    const cs_phase *ph = stream_phase(st);
    if (s->rep) sym_touch(s, st, "one stream");
    switch (ev) {
    case EV_INIT:
        for (int32_t i = 0; i < par_p(ph); i++) insert_packet(s, st, ph);
        return;
    case EV_RECV:
        st->received++;
        insert_packet(s, st, ph);
        return;
    default:
        st->free_packets++;
        if (ph->algo == ALG_DIRECT && ph->ctype == CT_AR && st->stream_count <= (int32_t)ph->n - 1) {
            if (st->received < ph->n - 1) return;
            for (int32_t i = 0; i < par_p(ph); i++) ready(st, ph);
        } else {
            ready(st, ph);
        }
        iteratable(s, st, ph);
        return;
    }
}
