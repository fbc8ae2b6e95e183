/*
 * packet_tcp.c -- the `packet` backend's tcp transport (packet_transport.h):
 * a message is a byte stream cut into segments of mtu payload bytes (the
 * MSS; packet psn = segment number), sent within the congestion window of
 * NewReno or CUBIC (packet_tcp_win.h) and the receive window (sr_window
 * segments, the receiver's out-of-order buffer).
 *
 * Receiver: every data segment is answered by a cumulative ACK (the next
 * segment expected; no delayed ACKs) that echoes the segment's send time
 * (RFC 7323 timestamps: every ACK of new data is an RTT sample, a
 * retransmission's too).  Segments past a gap are kept (up to sr_window past
 * it) and their ACKs are duplicates.
 *
 * Sender (RFC 5681, RFC 6582):
 *   - an ACK of new data restarts the timer; outside fast recovery the
 *     window grows (slow start, congestion avoidance); in fast recovery an
 *     ACK covering `recover` (the highest segment sent when it began) ends
 *     it, a partial one resends the first unacknowledged segment;
 *   - the third duplicate ACK, unless the ACK does not pass `recover` of an
 *     earlier recovery or timeout (RFC 6582 3.2 step 1), resends the first
 *     unacknowledged segment (fast retransmit) and enters fast recovery;
 *     further duplicates inflate the window by one MSS;
 *   - the retransmit timer, RFC 6298: SRTT, RTTVAR from each sample (first:
 *     SRTT = R, RTTVAR = R / 2; then RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R|,
 *     SRTT = 7/8 SRTT + 1/8 R), RTO = SRTT + max(1 ps, 4 RTTVAR), at least
 *     tcp_min_rto, at most 60 s; the first sample is the SYN's (RFC 6298
 *     2.2), which is not simulated: the flow's round trip alone on its
 *     route (so RTO starts at max(tcp_min_rto, 3 x that)); a timeout doubles it (back-off, up to 60 s) until the
 *     next sample, sets cwnd to one MSS, remembers `recover` and goes back
 *     to the first unacknowledged segment (segments the receiver kept are
 *     skipped when its cumulative ACK passes them); retry_limit timeouts in a
 *     row without progress stop the flow as for rc.
 * ECN (tcp_ecn, RFC 3168): switches mark by RED (kmin, kmax, pmax); each
 * ACK echoes the marked payload of the segments it answers (the ECE flag,
 * set on those ACKs only: no CWR handshake); an ACK with marks outside fast
 * recovery cuts the window as a loss would (cwnd = ssthresh, nothing sent
 * again), at most once per window of data (until an ACK passes the
 * highest segment sent at the cut).
 * Connections (tcp_connections): persistent (the default) -- the messages of
 * one (src, dst, class, channel) are one connection (the backend's queue
 * pair, pqp): sent in order, their outstanding segments against one window,
 * the window and RTT estimates (tcp_conn, pqp.trc) kept across messages; an
 * idle connection (nothing in flight, no segment for longer than its RTO)
 * restarts at min(cwnd, IW) (RFC 5681 4.1, tcp_idle_restart).  Sequence
 * numbers, duplicate ACKs, recovery and back-off stay per message.  message:
 * every message a connection of its own.
 * Not modelled: the handshake, delayed ACKs, SACK, limited transmit,
 * CUBIC's HyStart.
 */

#include "core/alloc.h"
#include "network/packet_int.h"
#include "network/packet_tcp_win.h"

#define MAX_RTO ((cs_time)60 * 1000000000000ULL) /* 60 s (RFC 6298 2.5) */

/* A connection's state: its congestion window and RTT estimates -- one message's own (tcp_connections
 * message), or a persistent connection's (pqp.trc), kept across its messages. */
typedef struct tcp_conn {
    cs_tcp_win w;
    cs_time srtt, rttvar;
    cs_time last_tx; /* its last data segment left (tcp_idle_restart) */
    uint8_t have_rtt;
} tcp_conn;

typedef struct tcp_flow {
    tcp_conn *c; /* &own, or the persistent connection's */
    tcp_conn own;
    uint32_t dupacks, recover, snd_max; /* snd_max: one past the highest segment ever sent */
    uint8_t in_rec, have_recover, rtx_pending;
    uint8_t have_ecn_end;
    uint32_t ecn_end; /* tcp_ecn: no further cut until an ACK passes this segment */
    uint8_t got[]; /* receiver: segments kept past the gap, at psn mod sr_window */
} tcp_flow;

static int tcp_check(const pkt_state *s, cs_error *err) {
    if (s->o.cc != CS_CC_none)
        return CS_ERR(err, CS_EINVAL,
                      "backend.packet.cc: %s is a congestion control of transport rc; transport tcp has its own "
                      "window (backend.packet.tcp_cc: newreno or cubic); expected cc none",
                      cs_cc_names[s->o.cc]);
    if (s->o.retransmit != PKT_RTX_GBN)
        return CS_ERR(err, CS_EINVAL,
                      "backend.packet.retransmit: selective-repeat is transport rc's recovery; transport tcp "
                      "recovers by fast retransmit and its timer; expected go-back-n (the default)");
    return CS_OK;
}

static size_t tcp_size(const pkt_state *s) { return sizeof(tcp_flow) + (size_t)s->o.sr_window; }

static cs_time clamp_rto(const pkt_state *s, cs_time rto) {
    if (rto < s->tcp_min_rto) rto = s->tcp_min_rto;
    return rto > MAX_RTO ? MAX_RTO : rto;
}

static void rtt_sample(pkt_state *s, pflow *f, tcp_flow *t, cs_time r);

/* RFC 6298's RTO from the connection's estimates, within [tcp_min_rto, 60 s]. */
static cs_time conn_rto(const pkt_state *s, const tcp_conn *c) {
    cs_time k = 4 * c->rttvar;
    return clamp_rto(s, c->srtt + (k > 1 ? k : 1));
}

/* A message starts: on a connection of its own, in slow start with the handshake's RTT sample (not
 * simulated: the flow's round trip alone on its route); on a persistent connection, with the window
 * and estimates its earlier messages left -- the first message makes them as above, and after an
 * idle period longer than the RTO (nothing in flight, no segment sent) the window restarts at
 * min(cwnd, tcp_iw) (RFC 5681 4.1, tcp_idle_restart; CUBIC's epoch restarts too). */
static void tcp_init(pkt_state *s, pflow *f) {
    tcp_flow *t = f->trs;
    t->c = &t->own;
    if (f->qp != NONE) {
        pqp *q = &s->qps[f->qp];
        if (!q->trc) q->trc = cs_calloc(1, sizeof(tcp_conn));
        t->c = q->trc;
    }
    tcp_conn *c = t->c;
    if (!c->have_rtt) {
        cs_tcp_win_init(&c->w, &s->tcp);
        rtt_sample(s, f, t, pkt_base_rtt(s, f));
        return;
    }
    f->rto = conn_rto(s, c);
    cs_time now = cs_eventq_now(s->q);
    const pqp *q = &s->qps[f->qp];
    int idle = q->live == (uint32_t)(f - s->flows) && f->qp_next == NONE; /* no other message live */
    if (s->o.tcp_idle_restart && idle && now - c->last_tx > f->rto) {
        double rw = s->tcp.iw * s->tcp.mss;
        if (c->w.cwnd > rw) {
            c->w.cwnd = rw;
            s->st.tcp_idle_restarts++;
        }
        c->w.epoch_on = 0;
    }
}

static int tcp_may_send(pkt_state *s, pflow *f) {
    tcp_flow *t = f->trs;
    if (f->failed) return 0;
    if (t->rtx_pending) return 1;
    if (f->snd_nxt >= f->npkts) return 0;
    uint32_t flight = f->snd_nxt - f->snd_una;
    if (flight >= (uint32_t)s->o.sr_window) return 0; /* the receive window (per message) */
    uint64_t cflight = f->qp != NONE ? pkt_qp_outstanding(s, f) : flight; /* the connection's */
    return (double)(cflight + 1) * s->tcp.mss <= t->c->w.cwnd;
}

/* FlightSize (RFC 5681) for a window cut: the connection's outstanding data (a persistent
 * connection's messages share its window). */
static double flight_bytes(const pkt_state *s, const pflow *f) {
    uint64_t n = f->qp != NONE ? pkt_qp_outstanding(s, f) : f->snd_nxt - f->snd_una;
    return (double)n * s->tcp.mss;
}

static void tcp_sent(pkt_state *s, pflow *f, const pkt *p) {
    (void)p;
    ((tcp_flow *)f->trs)->c->last_tx = cs_eventq_now(s->q);
}

static uint32_t tcp_next_psn(pkt_state *s, pflow *f, uint8_t *rtx) {
    tcp_flow *t = f->trs;
    if (t->rtx_pending) { /* fast retransmit, or a partial ACK: the first unacknowledged segment */
        t->rtx_pending = 0;
        *rtx = 1;
        s->st.retransmitted++;
        return f->snd_una;
    }
    uint32_t psn = f->snd_nxt++;
    if (psn < t->snd_max) { /* after a timeout: sent before */
        *rtx = 1;
        s->st.retransmitted++;
    } else {
        t->snd_max = psn + 1;
    }
    return psn;
}

static void tcp_data(pkt_state *s, pkt *p) {
    uint32_t id = p->flow, W = (uint32_t)s->o.sr_window;
    pflow *f = &s->flows[id];
    tcp_flow *t = f->trs;
    if (f->failed) return;
    if (p->psn < f->rcv_nxt || (p->psn > f->rcv_nxt && p->psn - f->rcv_nxt < W && t->got[p->psn % W])) {
        s->st.duplicates++;
    } else if (p->psn > f->rcv_nxt) {
        if (p->psn - f->rcv_nxt < W) { /* past the gap: kept */
            t->got[p->psn % W] = 1;
            s->st.held++;
        } else {
            s->st.out_of_order++;
        }
    } else {
        f->rcv_nxt++;
        s->st.delivered_bytes += p->payload;
        while (t->got[f->rcv_nxt % W] && f->rcv_nxt < f->npkts) {
            t->got[f->rcv_nxt % W] = 0;
            s->st.delivered_bytes += pkt_payload_of(s, f, f->rcv_nxt);
            f->rcv_nxt++;
        }
    }
    if (p->ecn) f->rcv_ce += p->payload; /* echoed by this ACK (tcp_ecn) */
    int done = !f->delivered && f->rcv_nxt == f->npkts;
    pkt_send_ctrl(s, id, PK_ACK, f->rcv_nxt, p);
    if (done) pkt_delivered(s, id);
}

static void rtt_sample(pkt_state *s, pflow *f, tcp_flow *t, cs_time r) {
    tcp_conn *c = t->c;
    if (!c->have_rtt) {
        c->have_rtt = 1;
        c->srtt = r;
        c->rttvar = r / 2;
    } else {
        cs_time d = c->srtt > r ? c->srtt - r : r - c->srtt;
        c->rttvar = (3 * c->rttvar + d) / 4;
        c->srtt = (7 * c->srtt + r) / 8;
    }
    f->rto = conn_rto(s, c);
}

static double acked_bytes(const pkt_state *s, const pflow *f, uint32_t from, uint32_t to) {
    double b = (double)(to - from) * s->tcp.mss;
    if (to == f->npkts && to > from) b -= s->tcp.mss - f->last_payload;
    return b;
}

static void tcp_ctrl(pkt_state *s, pkt *p) {
    uint32_t id = p->flow;
    pflow *f = &s->flows[id];
    tcp_flow *t = f->trs;
    cs_time now = cs_eventq_now(s->q);
    if (f->failed || p->type != PK_ACK) return;
    if (p->psn > f->snd_una) { /* new data */
        double acked = acked_bytes(s, f, f->snd_una, p->psn);
        rtt_sample(s, f, t, now - p->ts);
        f->snd_una = p->psn;
        if (f->snd_nxt < f->snd_una) f->snd_nxt = f->snd_una;
        f->retries = 0;
        f->last_progress = now;
        if (t->in_rec) {
            if (f->snd_una > t->recover) { /* a full ACK: recovery ends */
                t->in_rec = 0;
                t->dupacks = 0;
                cs_tcp_win_full(&t->c->w, &s->tcp);
            } else { /* a partial ACK: the next hole goes at once */
                s->st.partial_acks++;
                cs_tcp_win_partial(&t->c->w, &s->tcp, acked);
                t->rtx_pending = 1;
            }
        } else {
            t->dupacks = 0;
            cs_tcp_win_ack(&t->c->w, &s->tcp, acked, now, t->c->srtt);
        }
        if (t->rtx_pending && t->snd_max <= f->snd_una) t->rtx_pending = 0;
    } else if (p->psn == f->snd_una && f->snd_una < t->snd_max) { /* a duplicate ACK */
        if (t->in_rec) {
            cs_tcp_win_dupack(&t->c->w, &s->tcp);
        } else if (++t->dupacks == 3 && (!t->have_recover || f->snd_una > t->recover)) {
            s->st.fast_retransmits++;
            cs_tcp_win_loss(&t->c->w, &s->tcp, flight_bytes(s, f));
            t->in_rec = 1;
            t->recover = t->snd_max - 1;
            t->have_recover = 1;
            t->rtx_pending = 1;
        }
    }
    if (p->ce_bytes && !t->in_rec && (!t->have_ecn_end || f->snd_una > t->ecn_end)) { /* RFC 3168 6.1.2 */
        s->st.ecn_cuts++;
        cs_tcp_win_ecn(&t->c->w, &s->tcp, flight_bytes(s, f));
        t->ecn_end = t->snd_max - 1;
        t->have_ecn_end = 1;
    }
    if (tcp_may_send(s, f)) pkt_ring_add(s, id);
    if (f->qp != NONE) pkt_qp_wake(s, f->qp, 0); /* the connection's window may have opened for the others */
}

static void tcp_timeout(pkt_state *s, uint32_t id) {
    pflow *f = &s->flows[id];
    tcp_flow *t = f->trs;
    if (pkt_timeout_gives_up(s, id)) return;
    cs_tcp_win_timeout(&t->c->w, &s->tcp, flight_bytes(s, f));
    t->recover = t->snd_max - 1;
    t->have_recover = 1;
    t->in_rec = 0;
    t->dupacks = 0;
    t->rtx_pending = 0;
    f->snd_nxt = f->snd_una;
    f->rto = f->rto > MAX_RTO / 2 ? MAX_RTO : 2 * f->rto; /* back-off (RFC 6298 5.5) */
    f->last_progress = cs_eventq_now(s->q);
    pkt_ring_add(s, id);
}

const cs_tr_ops cs_tr_tcp = {
    .name = "tcp",
    .check = tcp_check,
    .state_size = tcp_size,
    .init = tcp_init,
    .may_send = tcp_may_send,
    .next_psn = tcp_next_psn,
    .sent = tcp_sent,
    .data = tcp_data,
    .ctrl = tcp_ctrl,
    .timeout = tcp_timeout,
};
