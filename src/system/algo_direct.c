/*
 * algo_direct.c -- direct, direct<N> (and oneDirect, oneDirect<N>) on the
 * packet engine (algo_packet.c; part of the system layer, see sys_int.h).
 * Owned by the system layer.
 *
 * ASTRA-sim's Direct: P = the window, min(N, n-1) (all n-1 peers without
 * N; the phase's `arg`); NZ = P per round (n-1 times P on a communicator
 * group's ring); sends: all-to-all n-1, all-reduce 2(n-1), else n-1; send k
 * goes to idx+1+(k mod (n-1)) and receive k comes from idx-1-(k mod (n-1));
 * an all-reduce holds its second half back until the first half is in.
 * Every packet is bytes/n (all-gather: bytes).
 */
#include <limits.h>

#include "system/sys_int.h"

/* "12" (the text after "direct") -> 12; digits only, value >= 1. */
static int parse_window(const char *s, uint32_t *window) {
    long long w = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9') return -1;
        w = w * 10 + (*p - '0');
        if (w > INT_MAX) return -1;
    }
    if (w < 1) return -1;
    *window = (uint32_t)w;
    return 0;
}

static void plan(cs_phase *ph, uint32_t window, uint32_t *counter) {
    (void)counter;
    ph->arg = window == 0 || window > ph->n - 1 ? ph->n - 1 : window;
}

static int32_t packets(const cs_phase *ph) { return (int32_t)ph->arg; }

static int32_t nonzero(const cs_phase *ph) {
    return ph->fast ? (int32_t)(ph->n - 1) * packets(ph) : packets(ph);
}

static int32_t sends(const cs_phase *ph) {
    int32_t n = (int32_t)ph->n;
    return ph->ctype == CT_AR ? 2 * (n - 1) : n - 1;
}

static void peers(const cs_phase *ph, uint32_t idx, uint32_t k, uint32_t *dst, uint32_t *src) {
    int64_t dir = ph->anticlockwise ? -1 : 1;
    int64_t j = 1 + (int64_t)(k % (ph->n - 1));
    *dst = css_ring_step(idx, ph->n, dir * j);
    *src = css_ring_step(idx, ph->n, -dir * j);
}

static const css_pe_params DIRECT = {.packets = packets,
                                     .nonzero = nonzero,
                                     .sends = sends,
                                     .bytes = css_pe_share_bytes,
                                     .peers = peers,
                                     .hold_second_half = 1};

const cs_coll_algo css_algo_direct = {
    .name = "direct",
    .param = "<N>",
    .param_help = "N >= 1",
    .parse_param = parse_window,
    .help = "every peer directly, N messages in flight (direct<N>; all peers without N) "
            "(ASTRA-sim's Direct)",
    .flags = CS_ALGO_ONE,
    .sym_op = CS_ALGO_SYM_SHIFT,
    .plan = plan,
    .setup = css_pe_setup,
    .run = css_pe_run,
    .recv_posted = css_pe_recv_posted,
    .impl = &DIRECT,
};
