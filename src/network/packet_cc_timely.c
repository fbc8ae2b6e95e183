/*
 * packet_cc_timely.c -- TIMELY (Mittal et al., SIGCOMM 2015): rate control
 * from RTT samples -- additive increase below Tlow, a decrease proportional
 * to the excess above Thigh, and between them a step by the sign of the
 * smoothed RTT gradient (the control law in packet_cc.h).
 */
#include "network/packet_cc.h"

void cs_timely_init(cs_timely *s, double line_rate, cs_time min_rtt) {
    *s = (cs_timely){.rate = line_rate, .line = line_rate, .min_rtt = min_rtt ? min_rtt : 1};
}

void cs_timely_rtt(cs_timely *s, const cs_timely_params *p, cs_time rtt) {
    double diff = s->samples ? (double)rtt - (double)s->prev_rtt : 0;
    s->prev_rtt = rtt;
    s->samples++;
    s->rtt_diff = (1 - p->alpha) * s->rtt_diff + p->alpha * diff;
    double grad = s->rtt_diff / (double)s->min_rtt;
    if (grad <= 0) s->neg++;
    else s->neg = 0;
    if (rtt < p->tlow) {
        s->rate += p->delta;
    } else if (rtt > p->thigh) {
        s->rate *= 1 - p->beta * (1 - (double)p->thigh / (double)rtt);
    } else if (grad <= 0) {
        s->rate += (s->neg >= p->hai ? 5 : 1) * p->delta;
    } else {
        s->rate *= 1 - p->beta * grad;
    }
    if (s->rate > s->line) s->rate = s->line;
    if (s->rate < p->min_rate) s->rate = p->min_rate;
}

/* ---- the interface ---------------------------------------------------------------- */

static void ops_init(void *st, const cs_cc_params *p, const cs_cc_flow *f, cs_time now) {
    (void)now;
    cs_timely_init(st, f->line_rate, p->timely.min_rtt ? p->timely.min_rtt : f->base_rtt);
}

static void ops_ack(void *st, const cs_cc_params *p, const cs_cc_ack *a) { cs_timely_rtt(st, &p->timely, a->rtt); }

static double ops_rate(const void *st) { return ((const cs_timely *)st)->rate; }

const cs_cc_ops cs_cc_timely = {
    .name = "timely",
    .state_size = sizeof(cs_timely),
    .feedback = 0,
    .init = ops_init,
    .ack = ops_ack,
    .rate = ops_rate,
};
