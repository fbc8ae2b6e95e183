/*
 * algo_ring.c -- ring (and oneRing) on the packet engine (algo_packet.c;
 * part of the system layer, see sys_int.h).  Owned by the system layer.
 *
 * ASTRA-sim's Ring: P = 1 packet at a time; NZ = n-1 reduced packets per
 * round; sends: all-reduce 2(n-1), all-to-all n(n-1)/2 (relayed around the
 * ring), else n-1; send k goes to idx+1 and receive k comes from idx-1
 * (reversed anticlockwise); every packet is bytes/n (all-gather: bytes).
 */
#include <inttypes.h>

#include "system/sys_int.h"

static int32_t packets(const cs_phase *ph) {
    (void)ph;
    return 1;
}

static int32_t nonzero(const cs_phase *ph) { return (int32_t)(ph->n - 1) * packets(ph); }

static int32_t sends(const cs_phase *ph) {
    int32_t n = (int32_t)ph->n;
    switch (ph->ctype) {
    case CT_AR: return 2 * (n - 1);
    case CT_A2A: return (n - 1) * n / 2;
    default: return n - 1;
    }
}

static void peers(const cs_phase *ph, uint32_t idx, uint32_t k, uint32_t *dst, uint32_t *src) {
    (void)k;
    int64_t dir = ph->anticlockwise ? -1 : 1;
    *dst = css_ring_step(idx, ph->n, dir);
    *src = css_ring_step(idx, ph->n, -dir);
}

static int check(const css_check *c, cs_error *err) {
    if (c->ctype == CT_A2A && c->n > 46340)
        return CS_ERR(err, CS_EUNSUPPORTED,
                      "%s: ring all-to-all over %u NPUs relays n(n-1)/2 = %" PRIu64 " messages per "
                      "rank; expected at most 46340 NPUs in one ring (use direct)",
                      css_check_where(c), c->n, (uint64_t)c->n * (c->n - 1) / 2);
    return CS_OK;
}

static const css_pe_params RING = {
    .packets = packets, .nonzero = nonzero, .sends = sends, .bytes = css_pe_share_bytes, .peers = peers};

const cs_coll_algo css_algo_ring = {
    .name = "ring",
    .help = "logical ring: each step to the next NPU (ASTRA-sim's Ring); all-to-all relays "
            "around the ring",
    .flags = CS_ALGO_ONE,
    .sym_op = CS_ALGO_SYM_SHIFT,
    .check = check,
    .setup = css_pe_setup,
    .run = css_pe_run,
    .recv_posted = css_pe_recv_posted,
    .impl = &RING,
};
