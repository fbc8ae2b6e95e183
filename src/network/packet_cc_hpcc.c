/*
 * packet_cc_hpcc.c -- HPCC (Li et al., SIGCOMM 2019): a window from the
 * in-band telemetry each ACK echoes -- the normalized inflight U of the
 * most loaded hop against the target eta, multiplicative once per round
 * trip, additive in between (the control law in packet_cc.h).  Nothing is
 * drawn at random.
 */
#include "network/packet_cc.h"

#include <string.h>

void cs_hpcc_init(cs_hpcc *s, double line_rate, cs_time base_rtt) {
    memset(s, 0, sizeof *s);
    s->t = base_rtt ? base_rtt : 1;
    s->line = line_rate;
    s->w_init = line_rate * cs_time_as_ns_f(s->t);
    s->w = s->wc = s->w_init;
}

/* Algorithm 1's MeasureInflight: the EWMA of the largest hop utilization.
 * 0: nothing to measure (no records of the previous ACK to compare). */
static int measure(cs_hpcc *s, const cs_int_hop *h, uint32_t n) {
    double u = -1, tau = 0, T = (double)s->t;
    uint32_t m = n < s->nprev ? n : s->nprev;
    for (uint32_t i = 0; i < m; i++) {
        const cs_int_hop *a = &h[i], *b = &s->prev[i];
        if (a->ts <= b->ts || !(a->bw > 0)) continue; /* the same stamp again, or a dead link */
        double dt = (double)(a->ts - b->ts);           /* ps */
        double tx_rate = (double)(a->tx_bytes - b->tx_bytes) * 1e3 / dt; /* bytes per ns */
        uint64_t q = a->qlen_bytes < b->qlen_bytes ? a->qlen_bytes : b->qlen_bytes;
        double ui = (double)q / (a->bw * T / 1e3) + tx_rate / a->bw;
        if (ui > u) {
            u = ui;
            tau = dt;
        }
    }
    if (u < 0) return 0;
    if (tau > T) tau = T;
    s->u = (1 - tau / T) * s->u + tau / T * u;
    return 1;
}

/* Algorithm 1's ComputeWind. */
static void window(cs_hpcc *s, const cs_hpcc_params *p, int update_wc) {
    double w;
    if (s->u >= p->eta || s->stage >= p->max_stage) {
        double ratio = s->u / p->eta;
        w = ratio > 0 ? s->wc / ratio + p->w_ai : s->w_init; /* (U = 0 only before any load was seen) */
        if (update_wc) s->stage = 0;
    } else {
        w = s->wc + p->w_ai;
        if (update_wc) s->stage++;
    }
    if (w > s->w_init) w = s->w_init;
    if (w < p->w_ai) w = p->w_ai;
    s->w = w;
    if (update_wc) s->wc = w;
}

void cs_hpcc_ack(cs_hpcc *s, const cs_hpcc_params *p, uint32_t una, uint32_t nxt, const cs_int_hop *hops,
                 uint32_t nhops) {
    if (!hops || !nhops) return;
    if (s->nprev && measure(s, hops, nhops)) {
        int update = una > s->last_update;
        window(s, p, update);
        if (update) s->last_update = nxt;
        s->updates++;
    }
    uint32_t n = nhops < CS_CC_INT_HOPS ? nhops : CS_CC_INT_HOPS;
    memcpy(s->prev, hops, n * sizeof *hops);
    s->nprev = n;
}

double cs_hpcc_rate(const cs_hpcc *s) {
    double r = s->w / cs_time_as_ns_f(s->t);
    return r < s->line ? r : s->line;
}

/* ---- the interface ---------------------------------------------------------------- */

static void ops_init(void *st, const cs_cc_params *p, const cs_cc_flow *f, cs_time now) {
    (void)now;
    cs_hpcc_init(st, f->line_rate, p->hpcc.base_rtt ? p->hpcc.base_rtt : f->base_rtt);
}

static void ops_ack(void *st, const cs_cc_params *p, const cs_cc_ack *a) {
    cs_hpcc_ack(st, &p->hpcc, a->una, a->nxt, a->hops, a->nhops);
}

static double ops_rate(const void *st) { return cs_hpcc_rate(st); }
static double ops_window(const void *st) { return ((const cs_hpcc *)st)->w; }

const cs_cc_ops cs_cc_hpcc = {
    .name = "hpcc",
    .state_size = sizeof(cs_hpcc),
    .feedback = CS_CC_ACK_EACH | CS_CC_INT,
    .init = ops_init,
    .ack = ops_ack,
    .rate = ops_rate,
    .window = ops_window,
};
