/*
 * algo_hd.c -- halving-doubling (and oneHalvingDoubling) on the packet
 * engine (algo_packet.c; part of the system layer, see sys_int.h).  Owned
 * by the system layer.
 *
 * ASTRA-sim's HalvingDoubling: P = 1; NZ = log2(n)-1; sends 2 log2(n) for
 * all-reduce, else log2(n); packet k goes to idx +- offset(k) (the side given
 * by bit log2(offset) of idx) with msg(k) bytes: offsets double (halve for
 * all-gather) from 1 (n/2), turning back at n for all-reduce; msg halves
 * (doubles).  Needs a power-of-two number of NPUs and is not an all-to-all.
 */
#include "system/sys_int.h"

static uint32_t ilog2(uint32_t n) {
    uint32_t l = 0;
    while ((1u << (l + 1)) <= n && l < 31) l++;
    return l;
}

static int is_pow2(uint32_t n) { return n && !(n & (n - 1)); }

/* Offset and size of packet k (ASTRA-sim updates them after every packet it
 * creates; we replay the updates). */
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

static int32_t packets(const cs_phase *ph) {
    (void)ph;
    return 1;
}

static int32_t nonzero(const cs_phase *ph) { return (int32_t)ilog2(ph->n) - 1; }

static int32_t sends(const cs_phase *ph) {
    return ph->ctype == CT_AR ? 2 * (int32_t)ilog2(ph->n) : (int32_t)ilog2(ph->n);
}

static uint64_t bytes(const cs_phase *ph, uint32_t k) {
    uint32_t off;
    uint64_t sz;
    hd_packet(ph, k, &off, &sz);
    return sz;
}

/* The peer of packet k is both the destination of send k and the source of
 * receive k (the pattern is symmetric). */
static void peers(const cs_phase *ph, uint32_t idx, uint32_t k, uint32_t *dst, uint32_t *src) {
    uint32_t off;
    uint64_t sz;
    hd_packet(ph, k, &off, &sz);
    int64_t side = (off == 0 || (idx / off) % 2 == 0) ? 1 : -1;
    *dst = *src = css_ring_step(idx, ph->n, side * (int64_t)off);
}

static int check(const css_check *c, cs_error *err) {
    if (!is_pow2(c->n) || c->ctype == CT_A2A)
        return CS_ERR(err, CS_EUNSUPPORTED,
                      "%s: halvingDoubling %s on %u NPUs; expected a power of two NPUs%s "
                      "(ASTRA-sim would hang or stop)",
                      css_check_where(c), c->coll, c->n, c->ctype == CT_A2A ? " and not all-to-all" : "");
    return CS_OK;
}

static const css_pe_params HD = {
    .packets = packets, .nonzero = nonzero, .sends = sends, .bytes = bytes, .peers = peers};

const cs_coll_algo css_algo_hd = {
    .name = "halvingDoubling",
    .help = "recursive halving / doubling in log2 n steps (ASTRA-sim's HalvingDoubling); "
            "power-of-two NPUs, not all-to-all",
    .flags = CS_ALGO_ONE,
    .sym_op = CS_ALGO_SYM_XOR,
    .check = check,
    .setup = css_pe_setup,
    .run = css_pe_run,
    .recv_posted = css_pe_recv_posted,
    .impl = &HD,
};
