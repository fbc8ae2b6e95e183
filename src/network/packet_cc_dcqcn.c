/*
 * packet_cc_dcqcn.c -- DCQCN's reaction point (Zhu et al., SIGCOMM 2015;
 * the control law in packet_cc.h) and its entry in the congestion control
 * interface: paced at Rc, driven by CNPs, timers and bytes sent.
 */
#include "network/packet_cc.h"

void cs_dcqcn_init(cs_dcqcn *s, double line_rate, cs_time now) {
    *s = (cs_dcqcn){.rc = line_rate, .rt = line_rate, .alpha = 1.0, .line = line_rate, .t_ref = now, .a_ref = now};
}

static void increase(cs_dcqcn *s, const cs_dcqcn_params *p) {
    uint32_t hi = s->t_stage > s->b_stage ? s->t_stage : s->b_stage;
    uint32_t lo = s->t_stage < s->b_stage ? s->t_stage : s->b_stage;
    if (hi < p->f) {
        /* fast recovery: Rt unchanged */
    } else if (lo > p->f) {
        s->rt += (double)(lo - p->f) * p->rhai;
    } else {
        s->rt += p->rai;
    }
    if (s->rt > s->line) s->rt = s->line;
    s->rc = (s->rt + s->rc) / 2;
    if (s->rc > s->line) s->rc = s->line;
    s->increases++;
    if (s->rc >= s->line && s->rt >= s->line) s->active = 0; /* recovered */
}

void cs_dcqcn_advance(cs_dcqcn *s, const cs_dcqcn_params *p, cs_time now) {
    /* alpha decays once per whole period without a CNP (a CNP restarts the period) */
    while (p->alpha_period && now - s->a_ref >= p->alpha_period) {
        s->a_ref += p->alpha_period;
        s->alpha *= 1 - p->g;
        if (s->alpha == 0) { /* underflowed: every later period is a no-op */
            s->a_ref = now;
            break;
        }
    }
    while (s->active && p->timer_period && now - s->t_ref >= p->timer_period) {
        s->t_ref += p->timer_period;
        s->t_stage++;
        increase(s, p);
    }
    if (!s->active) s->t_ref = now; /* the timer restarts at the next CNP anyway */
}

void cs_dcqcn_cnp(cs_dcqcn *s, const cs_dcqcn_params *p, cs_time now) {
    s->rt = s->rc;
    s->rc = s->rc * (1 - s->alpha / 2);
    if (s->rc < p->min_rate) s->rc = p->min_rate;
    s->alpha = (1 - p->g) * s->alpha + p->g;
    s->t_ref = now;
    s->a_ref = now;
    s->bytes = 0;
    s->t_stage = s->b_stage = 0;
    s->active = 1;
    s->cnps++;
}

void cs_dcqcn_sent(cs_dcqcn *s, const cs_dcqcn_params *p, uint64_t bytes) {
    if (!s->active || !p->byte_counter) return;
    s->bytes += bytes;
    while (s->active && s->bytes >= p->byte_counter) {
        s->bytes -= p->byte_counter;
        s->b_stage++;
        increase(s, p);
    }
}

/* ---- the interface ---------------------------------------------------------------- */

static void ops_init(void *st, const cs_cc_params *p, const cs_cc_flow *f, cs_time now) {
    (void)p;
    cs_dcqcn_init(st, f->line_rate, now);
}

static void ops_advance(void *st, const cs_cc_params *p, cs_time now) { cs_dcqcn_advance(st, &p->dcqcn, now); }

static void ops_sent(void *st, const cs_cc_params *p, cs_time now, uint64_t wire_bytes) {
    (void)now;
    cs_dcqcn_sent(st, &p->dcqcn, wire_bytes);
}

static void ops_cnp(void *st, const cs_cc_params *p, cs_time now) {
    cs_dcqcn_advance(st, &p->dcqcn, now);
    cs_dcqcn_cnp(st, &p->dcqcn, now);
}

static double ops_rate(const void *st) { return ((const cs_dcqcn *)st)->rc; }

const cs_cc_ops cs_cc_dcqcn = {
    .name = "dcqcn",
    .state_size = sizeof(cs_dcqcn),
    .feedback = CS_CC_MARK_RED | CS_CC_CNP,
    .init = ops_init,
    .advance = ops_advance,
    .sent = ops_sent,
    .cnp = ops_cnp,
    .rate = ops_rate,
};
