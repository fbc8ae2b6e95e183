/*
 * packet_tcp_win.c -- TCP's congestion window laws, NewReno and CUBIC
 * (packet_tcp_win.h has the rules and their RFC sections).  Pure: no events, no
 * randomness; the TCP transport (packet_tcp.c) calls them.
 */
#include "network/packet_tcp_win.h"

#include <math.h>

void cs_tcp_win_init(cs_tcp_win *w, const cs_tcp_params *p) {
    *w = (cs_tcp_win){0};
    w->cwnd = p->iw * p->mss;
    w->ssthresh = HUGE_VAL; /* RFC 5681 3.1: arbitrarily high */
}

double cs_tcp_cubic_w(const cs_tcp_win *w, const cs_tcp_params *p, double t_s) {
    double d = t_s - w->k;
    return p->c * d * d * d + w->w_max;
}

/* ssthresh at a congestion event (and CUBIC's W_max) */
static void reduce(cs_tcp_win *w, const cs_tcp_params *p, double flight_bytes) {
    if (p->law == CS_TCP_CUBIC) {
        double seg = w->cwnd / p->mss;
        w->w_max = seg < w->w_max ? seg * (1 + p->beta) / 2 : seg; /* fast convergence (RFC 9438 4.7) */
        w->ssthresh = w->cwnd * p->beta;
    } else {
        w->ssthresh = flight_bytes / 2;
    }
    if (w->ssthresh < 2 * p->mss) w->ssthresh = 2 * p->mss;
    w->epoch_on = 0;
}

void cs_tcp_win_ack(cs_tcp_win *w, const cs_tcp_params *p, double acked_bytes, cs_time now, cs_time rtt) {
    if (w->cwnd < w->ssthresh) { /* slow start (RFC 5681 eq. 2) */
        w->cwnd += acked_bytes < p->mss ? acked_bytes : p->mss;
        return;
    }
    if (p->law != CS_TCP_CUBIC) { /* congestion avoidance (RFC 5681 eq. 3) */
        w->cwnd += p->mss * p->mss / w->cwnd;
        return;
    }
    double cw = w->cwnd / p->mss, n = acked_bytes / p->mss;
    if (!w->epoch_on) {
        w->epoch_on = 1;
        w->epoch = now;
        w->cwnd_epoch = cw;
        w->w_est = cw;
        if (w->w_max < cw) w->w_max = cw;
        w->k = cbrt((w->w_max - cw) / p->c);
    }
    double t = cs_time_as_ns_f(now - w->epoch) * 1e-9;
    double alpha = 3 * (1 - p->beta) / (1 + p->beta);
    w->w_est += alpha * n / cw;
    if (cs_tcp_cubic_w(w, p, t) < w->w_est) {
        cw = w->w_est;
    } else {
        double target = cs_tcp_cubic_w(w, p, t + cs_time_as_ns_f(rtt) * 1e-9);
        if (target < cw) target = cw;
        if (target > 1.5 * cw) target = 1.5 * cw;
        cw += (target - cw) / cw * n;
    }
    w->cwnd = cw * p->mss;
}

void cs_tcp_win_loss(cs_tcp_win *w, const cs_tcp_params *p, double flight_bytes) {
    reduce(w, p, flight_bytes);
    w->cwnd = w->ssthresh + 3 * p->mss;
}

void cs_tcp_win_dupack(cs_tcp_win *w, const cs_tcp_params *p) { w->cwnd += p->mss; }

void cs_tcp_win_partial(cs_tcp_win *w, const cs_tcp_params *p, double acked_bytes) {
    w->cwnd -= acked_bytes;
    if (acked_bytes >= p->mss) w->cwnd += p->mss;
    if (w->cwnd < p->mss) w->cwnd = p->mss;
}

void cs_tcp_win_full(cs_tcp_win *w, const cs_tcp_params *p) {
    (void)p;
    w->cwnd = w->ssthresh;
    w->epoch_on = 0;
}

void cs_tcp_win_ecn(cs_tcp_win *w, const cs_tcp_params *p, double flight_bytes) {
    reduce(w, p, flight_bytes);
    w->cwnd = w->ssthresh;
}

void cs_tcp_win_timeout(cs_tcp_win *w, const cs_tcp_params *p, double flight_bytes) {
    reduce(w, p, flight_bytes);
    w->cwnd = p->mss;
}
