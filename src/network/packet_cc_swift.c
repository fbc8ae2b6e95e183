/*
 * packet_cc_swift.c -- Swift (Kumar et al., SIGCOMM 2020): a window in
 * packets from the delay of each ACK against a target delay that grows with
 * the route's hop count and shrinks as the window grows (flow scaling);
 * additive increase below the target, a multiplicative decrease proportional
 * to the excess at most once per round trip above it, a fixed cut at a loss,
 * and pacing when the window is below one packet (the control law in
 * packet_cc.h).  Nothing is drawn at random.
 */
#include "network/packet_cc.h"

#include <math.h>

void cs_swift_init(cs_swift *s, const cs_swift_params *p, double line_rate, cs_time base_rtt, double mtu,
                   double wire_mtu, uint32_t hops, cs_time now) {
    *s = (cs_swift){.mtu = mtu, .wire_mtu = wire_mtu, .hops = hops, .rtt = base_rtt, .t_last_decrease = now};
    double d = 1 / sqrt(p->fs_min_cwnd) - 1 / sqrt(p->fs_max_cwnd);
    s->fs_a = d > 0 ? (double)p->fs_range / d : 0;
    s->fs_b = -s->fs_a / sqrt(p->fs_max_cwnd);
    double m = p->max_cwnd;
    if (!(m > 0)) {
        double t_ns = cs_time_as_ns_f(base_rtt + p->base_target + (cs_time)hops * p->hop_scale);
        m = line_rate * t_ns / wire_mtu;
    }
    if (m < p->min_cwnd) m = p->min_cwnd;
    s->max_cwnd = m;
    double c = p->init_cwnd > 0 ? p->init_cwnd : line_rate * cs_time_as_ns_f(base_rtt) / wire_mtu;
    if (c > m) c = m;
    if (c < p->min_cwnd) c = p->min_cwnd;
    s->cwnd = c;
}

cs_time cs_swift_target(const cs_swift *s, const cs_swift_params *p, double cwnd) {
    double fs = cwnd > 0 ? s->fs_a / sqrt(cwnd) + s->fs_b : 0;
    if (fs > (double)p->fs_range) fs = (double)p->fs_range;
    if (fs < 0) fs = 0;
    return p->base_target + (cs_time)s->hops * p->hop_scale + (cs_time)llround(fs);
}

static int can_decrease(const cs_swift *s, cs_time now) { return now - s->t_last_decrease >= s->rtt; }

/* Clamp, and restart the once-per-RTT wait when the window went down.  (Algorithm 1
 * writes cwnd <= cwnd_prev; read literally, an ACK above target that may not yet
 * decrease would restart the wait, and no later decrease could ever happen while
 * the delay stays above target.) */
static void finish(cs_swift *s, const cs_swift_params *p, double prev, cs_time now) {
    if (s->cwnd < p->min_cwnd) s->cwnd = p->min_cwnd;
    if (s->cwnd > s->max_cwnd) s->cwnd = s->max_cwnd;
    if (s->cwnd < prev) {
        s->t_last_decrease = now;
        s->decreases++;
    }
}

void cs_swift_ack(cs_swift *s, const cs_swift_params *p, cs_time now, cs_time delay, double acked_pkts) {
    double prev = s->cwnd;
    s->rtt = delay;
    s->retx_cnt = 0;
    s->samples++;
    if (delay < cs_swift_target(s, p, s->cwnd)) {
        s->cwnd += s->cwnd >= 1 ? p->ai * acked_pkts / s->cwnd : p->ai * acked_pkts;
    } else if (can_decrease(s, now)) {
        double f = 1 - p->beta * (double)(delay - cs_swift_target(s, p, s->cwnd)) / (double)delay;
        s->cwnd *= f > 1 - p->max_mdf ? f : 1 - p->max_mdf;
    }
    finish(s, p, prev, now);
}

void cs_swift_nak(cs_swift *s, const cs_swift_params *p, cs_time now) {
    double prev = s->cwnd;
    s->retx_cnt = 0;
    if (can_decrease(s, now)) s->cwnd *= 1 - p->max_mdf;
    finish(s, p, prev, now);
}

void cs_swift_timeout(cs_swift *s, const cs_swift_params *p, cs_time now) {
    double prev = s->cwnd;
    if (++s->retx_cnt >= p->retx_reset) s->cwnd = p->min_cwnd;
    else if (can_decrease(s, now)) s->cwnd *= 1 - p->max_mdf;
    finish(s, p, prev, now);
}

double cs_swift_window(const cs_swift *s) { return s->cwnd * s->mtu; }

double cs_swift_rate(const cs_swift *s) {
    if (s->cwnd >= 1) return 0;
    double rtt_ns = cs_time_as_ns_f(s->rtt ? s->rtt : 1);
    return s->wire_mtu * s->cwnd / rtt_ns;
}

/* ---- the interface ---------------------------------------------------------------- */

static void ops_init(void *st, const cs_cc_params *p, const cs_cc_flow *f, cs_time now) {
    cs_swift_init(st, &p->swift, f->line_rate, f->base_rtt, f->mtu, f->wire_mtu ? f->wire_mtu : f->mtu, f->hops,
                  now);
}

static void ops_ack(void *st, const cs_cc_params *p, const cs_cc_ack *a) {
    cs_swift *s = st;
    if (a->nak) cs_swift_nak(s, &p->swift, a->now);
    else cs_swift_ack(s, &p->swift, a->now, a->rtt, (double)a->acked_bytes / s->mtu);
}

static void ops_timeout(void *st, const cs_cc_params *p, cs_time now) { cs_swift_timeout(st, &p->swift, now); }
static double ops_rate(const void *st) { return cs_swift_rate(st); }
static double ops_window(const void *st) { return cs_swift_window(st); }

const cs_cc_ops cs_cc_swift = {
    .name = "swift",
    .state_size = sizeof(cs_swift),
    .feedback = CS_CC_ACK_EACH,
    .init = ops_init,
    .ack = ops_ack,
    .timeout = ops_timeout,
    .rate = ops_rate,
    .window = ops_window,
};
