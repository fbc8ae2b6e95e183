/*
 * packet_cc_dctcp.c -- DCTCP (Alizadeh et al., SIGCOMM 2010) as a window
 * over RoCE-like flows: the fraction of ECN-marked bytes per window of data
 * sets alpha, a window with marks cuts W by alpha / 2, one without grows it
 * by an MTU (the control law in packet_cc.h).
 */
#include "network/packet_cc.h"

void cs_dctcp_init(cs_dctcp *s, double w0_bytes, double mtu_bytes) {
    *s = (cs_dctcp){.w = w0_bytes > mtu_bytes ? w0_bytes : mtu_bytes, .alpha = 1.0, .mtu = mtu_bytes};
}

void cs_dctcp_ack(cs_dctcp *s, const cs_dctcp_params *p, uint32_t una, uint32_t nxt, uint64_t acked,
                  uint64_t marked) {
    s->acked += acked;
    s->marked += marked;
    if (una <= s->win_end || s->acked == 0) return; /* the window goes on */
    double f = (double)s->marked / (double)s->acked;
    if (f > 1) f = 1; /* (marks of packets acknowledged later, at a retransmission) */
    s->alpha = (1 - p->g) * s->alpha + p->g * f;
    if (s->marked) {
        s->w *= 1 - s->alpha / 2;
        s->cuts++;
    } else {
        s->w += s->mtu;
    }
    if (s->w < s->mtu) s->w = s->mtu;
    s->windows++;
    s->acked = s->marked = 0;
    s->win_end = nxt;
}

/* ---- the interface ---------------------------------------------------------------- */

static void ops_init(void *st, const cs_cc_params *p, const cs_cc_flow *f, cs_time now) {
    (void)p;
    (void)now;
    cs_dctcp_init(st, f->line_rate * cs_time_as_ns_f(f->base_rtt), f->mtu);
}

static void ops_ack(void *st, const cs_cc_params *p, const cs_cc_ack *a) {
    cs_dctcp_ack(st, &p->dctcp, a->una, a->nxt, a->acked_bytes, a->marked_bytes);
}

static double ops_window(const void *st) { return ((const cs_dctcp *)st)->w; }

const cs_cc_ops cs_cc_dctcp = {
    .name = "dctcp",
    .state_size = sizeof(cs_dctcp),
    .feedback = CS_CC_MARK_STEP | CS_CC_ACK_EACH,
    .init = ops_init,
    .ack = ops_ack,
    .window = ops_window,
};
