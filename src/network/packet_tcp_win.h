/*
 * packet_tcp_win.h -- TCP's congestion window laws for the `packet` backend's TCP
 * transport (packet_tcp.c): NewReno (RFC 5681, RFC 6582) and CUBIC (RFC 9438,
 * C = 0.4, beta = 0.7 as RFC 8312), each a pure state machine over simulated
 * time, so that tests can drive them with scripted ACKs.  The transport
 * (sequence numbers, duplicate ACKs, the retransmit timer) calls:
 *   ack      an ACK of new data outside fast recovery: slow start below
 *            ssthresh (cwnd += min(acked, MSS)), else congestion avoidance
 *            (NewReno: cwnd += MSS^2 / cwnd per ACK; CUBIC below);
 *   loss     the third duplicate ACK: ssthresh = max(FlightSize / 2, 2 MSS)
 *            (NewReno, RFC 5681 eq. 4) or max(beta cwnd, 2 MSS) (CUBIC,
 *            RFC 9438 4.6, with fast convergence 4.7: W_max = cwnd, or
 *            cwnd (1 + beta) / 2 when below the previous W_max); then
 *            cwnd = ssthresh + 3 MSS (fast recovery's inflation);
 *   dupack   a further duplicate ACK in fast recovery: cwnd += MSS;
 *   partial  a partial ACK (RFC 6582 3.2 step 5): cwnd -= acked, then
 *            += MSS if acked >= MSS (never below one MSS);
 *   full     the ACK that ends fast recovery: cwnd = ssthresh (RFC 6582
 *            3.2 step 3, its second option); CUBIC's epoch starts at the
 *            next congestion-avoidance ACK;
 *   ecn      an ACK echoing ECN marks (RFC 3168 6.1.2; the transport calls it
 *            at most once per window, outside fast recovery): ssthresh as
 *            for a loss, cwnd = ssthresh, nothing sent again;
 *   timeout  ssthresh as for a loss, cwnd = 1 MSS (RFC 5681 eq. 4 and its
 *            loss window), slow start again.
 * CUBIC in congestion avoidance (RFC 9438 4.2-4.4), in segments and seconds,
 * t the time since the epoch began (its first ACK in congestion avoidance),
 * cwnd_epoch the window then:
 *   K = cbrt((W_max - cwnd_epoch) / C)   (0 when cwnd_epoch >= W_max)
 *   W_cubic(t) = C (t - K)^3 + W_max
 *   W_est += alpha_cubic x segments acked / cwnd,  alpha_cubic = 3 (1 - beta) / (1 + beta)
 *   W_cubic(t) < W_est:  cwnd = W_est                      (Reno-friendly region)
 *   else:  target = W_cubic(t + RTT) within [cwnd, 1.5 cwnd];
 *          cwnd += (target - cwnd) / cwnd x segments acked  (concave and convex regions)
 * Before the first loss W_max is the window at the epoch's start (K = 0).
 * Windows are bytes (double); times ps.
 */
#ifndef CS_NETWORK_PACKET_TCP_WIN_H
#define CS_NETWORK_PACKET_TCP_WIN_H

#include <stdint.h>

#include "core/time.h"

enum { CS_TCP_NEWRENO, CS_TCP_CUBIC };

typedef struct cs_tcp_params {
    int law;         /* CS_TCP_NEWRENO or CS_TCP_CUBIC */
    double mss;      /* bytes of payload per segment */
    double iw;       /* initial window, segments (10: RFC 6928) */
    double c, beta;  /* CUBIC's C (0.4) and beta (0.7) */
} cs_tcp_params;

typedef struct cs_tcp_win {
    double cwnd, ssthresh;      /* bytes */
    /* CUBIC, in segments */
    double w_max, k, w_est, cwnd_epoch;
    cs_time epoch;              /* start of the current congestion-avoidance epoch */
    uint8_t epoch_on;           /* 0: the next congestion-avoidance ACK starts one */
} cs_tcp_win;

void cs_tcp_win_init(cs_tcp_win *w, const cs_tcp_params *p);
/* New data acknowledged outside fast recovery, at now, with the smoothed
 * round trip rtt (CUBIC's target looks one RTT ahead). */
void cs_tcp_win_ack(cs_tcp_win *w, const cs_tcp_params *p, double acked_bytes, cs_time now, cs_time rtt);
/* The third duplicate ACK, with flight_bytes outstanding: enter fast recovery. */
void cs_tcp_win_loss(cs_tcp_win *w, const cs_tcp_params *p, double flight_bytes);
void cs_tcp_win_dupack(cs_tcp_win *w, const cs_tcp_params *p);
void cs_tcp_win_partial(cs_tcp_win *w, const cs_tcp_params *p, double acked_bytes);
void cs_tcp_win_full(cs_tcp_win *w, const cs_tcp_params *p);
void cs_tcp_win_ecn(cs_tcp_win *w, const cs_tcp_params *p, double flight_bytes);
void cs_tcp_win_timeout(cs_tcp_win *w, const cs_tcp_params *p, double flight_bytes);
/* CUBIC's W_cubic(t) in segments, t in seconds since the epoch began. */
double cs_tcp_cubic_w(const cs_tcp_win *w, const cs_tcp_params *p, double t_s);

#endif
