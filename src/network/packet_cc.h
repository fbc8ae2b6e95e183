/*
 * packet_cc.h -- congestion control of the `packet` backend's senders: one
 * interface (cs_cc_ops), one state per queue pair (kept across its
 * messages; per message with backend.packet.queue_pairs message), and the controls behind it,
 * each a pure state machine over simulated time (no events of its own).
 *
 * The backend (packet.c) calls, for each queue pair (psns below are the
 * queue pair's: its messages' packets numbered on from one to the next):
 *   init    when its first message starts (its line rate, base round trip, MTU);
 *   advance before it considers sending (timers evaluated lazily);
 *   sent    after each data packet it sends;
 *   ack     at each ACK or NAK (feedback: bytes newly acknowledged, ECN-marked
 *           bytes the receiver saw since its previous answer, an RTT sample,
 *           the in-band telemetry of the data packet answered);
 *   cnp     at each CNP;
 *   timeout at each retransmit timeout of the flow (before it goes back);
 * and reads rate (pacing, bytes per ns; 0 = line rate) and window (largest
 * unacknowledged payload, bytes; 0 = no limit).  Any callback may be NULL.
 * `feedback` says what the network must provide: ECN marking (RED or a step
 * at one threshold), CNPs from the receiver, an ACK for every data packet,
 * in-band telemetry stamped at every egress.
 *
 * Adding a control: one file packet_cc_<name>.c defining `const cs_cc_ops
 * cs_cc_<name>`, its state and parameters below, one X(<name>) in
 * CS_CC_LIST, and its options (backend.packet.<name>_*) in packet.c's table.
 *
 * The controls (docs/network.md, "packet", has the sources and defaults):
 *   none    line rate (PFC alone);
 *   dcqcn   Zhu et al., SIGCOMM 2015 (packet_cc_dcqcn.c);
 *   dctcp   Alizadeh et al., SIGCOMM 2010, as a window over RoCE-like flows
 *           (packet_cc_dctcp.c);
 *   timely  Mittal et al., SIGCOMM 2015 (packet_cc_timely.c);
 *   hpcc    Li et al., SIGCOMM 2019 (packet_cc_hpcc.c);
 *   swift   Kumar et al., SIGCOMM 2020 (packet_cc_swift.c).
 * Rates are bytes per ns (GB/s decimal); times ps; windows bytes.
 */
#ifndef CS_NETWORK_PACKET_CC_H
#define CS_NETWORK_PACKET_CC_H

#include <stddef.h>
#include <stdint.h>

#include "core/time.h"

/* ---- DCQCN (Zhu et al., SIGCOMM 2015), reaction point ----------------------------------
 * With Rc the current rate, Rt the target rate, alpha the congestion estimate:
 *   - on a CNP:  Rt = Rc;  Rc = Rc (1 - alpha/2);  alpha = (1 - g) alpha + g;
 *     the timer, the byte counter and both stage counts restart;
 *   - every alpha_period without a CNP: alpha = (1 - g) alpha;
 *   - rate increase events: the timer expires every timer_period since the
 *     last CNP or the last expiry (t_stage += 1), the byte counter every
 *     byte_counter bytes sent (b_stage += 1); at each event
 *       max(t, b) < F           fast recovery:     Rc = (Rt + Rc) / 2
 *       min(t, b) > F           hyper increase:    Rt += (min(t, b) - F) R_HAI; Rc = (Rt + Rc) / 2
 *       otherwise               additive increase: Rt += R_AI; Rc = (Rt + Rc) / 2
 *     with Rt and Rc capped at the line rate.  A flow at line rate that has
 *     never seen a CNP does not run the increase (nothing to recover).
 * Timers are evaluated lazily: cs_dcqcn_advance(now) applies, in order,
 * every timer expiry at or before now.  The sender calls it before each
 * packet it sends and before each CNP it handles, so expiries and byte
 * events interleave in time order exactly as with one event per expiry, and
 * an idle or paused flow costs no events (a run with DCQCN always ends). */
typedef struct cs_dcqcn_params {
    double g;              /* alpha gain (1/256) */
    cs_time alpha_period;  /* alpha decay period K, ps (55 us) */
    cs_time timer_period;  /* rate increase timer T, ps (55 us) */
    uint64_t byte_counter; /* rate increase byte counter B, bytes (10 MB) */
    uint32_t f;            /* fast recovery stages F (5) */
    double rai, rhai;      /* additive / hyper increase, bytes per ns (40 Mb/s = 0.005, 400 Mb/s = 0.05) */
    double min_rate;       /* floor of Rc, bytes per ns */
} cs_dcqcn_params;

typedef struct cs_dcqcn {
    double rc, rt, alpha, line; /* bytes per ns; line: the NIC's link rate */
    cs_time t_ref;              /* start of the current timer period */
    cs_time a_ref;              /* start of the current alpha period */
    uint64_t bytes;             /* sent since the byte counter last expired */
    uint32_t t_stage, b_stage;
    uint8_t active;             /* has seen a CNP and not yet recovered to line rate */
    uint64_t cnps, increases;   /* statistics */
} cs_dcqcn;

void cs_dcqcn_init(cs_dcqcn *s, double line_rate, cs_time now);
/* Apply every timer and alpha expiry at or before now. */
void cs_dcqcn_advance(cs_dcqcn *s, const cs_dcqcn_params *p, cs_time now);
/* A CNP arrived at now (advance first). */
void cs_dcqcn_cnp(cs_dcqcn *s, const cs_dcqcn_params *p, cs_time now);
/* bytes were sent at now (advance first): the byte counter. */
void cs_dcqcn_sent(cs_dcqcn *s, const cs_dcqcn_params *p, uint64_t bytes);

/* ---- DCTCP (Alizadeh et al., SIGCOMM 2010) as a window -----------------------------------
 * Switches mark a data packet whose egress queue holds more than K bytes
 * when it arrives; the receiver counts the marked payload bytes and every
 * ACK (one per data packet) carries the count since the previous one.  Per
 * observation window (from one window end to the first ACK past SND.NXT as
 * it was then; the first ends at the first ACK, as RFC 8257 3.3 starts
 * Window_End at 0), with F = marked / acknowledged bytes in it:
 *   alpha = (1 - g) alpha + g F;
 *   F > 0:  W = W (1 - alpha / 2)     (once per window with marks)
 *   F = 0:  W = W + MTU               (additive increase, one MTU a window)
 * W starts at the flow's bandwidth-delay product (line rate x base round
 * trip: RoCE flows start at line rate; no slow start) and never falls below
 * one MTU; alpha starts at 1 (RFC 8257 3.3). */
typedef struct cs_dctcp_params {
    double g;          /* alpha gain (1/16) */
} cs_dctcp_params;

typedef struct cs_dctcp {
    double w, alpha, mtu;     /* window, bytes; mtu: payload bytes per packet */
    uint32_t win_end;         /* psn the current observation window ends at */
    uint64_t acked, marked;   /* payload bytes acknowledged / marked in it */
    uint64_t windows, cuts;   /* statistics */
} cs_dctcp;

void cs_dctcp_init(cs_dctcp *s, double w0_bytes, double mtu_bytes);
/* An ACK: una = the receiver's next expected psn after it, nxt = the
 * sender's next psn, acked / marked payload bytes. */
void cs_dctcp_ack(cs_dctcp *s, const cs_dctcp_params *p, uint32_t una, uint32_t nxt, uint64_t acked,
                  uint64_t marked);

/* ---- TIMELY (Mittal et al., SIGCOMM 2015, Algorithm 1) --------------------------------------
 * At each RTT sample (an ACK: ack_every packets, 64 KiB by default, a
 * completion event of the paper):
 *   diff = rtt - prev_rtt (0 at the first sample); prev_rtt = rtt;
 *   rtt_diff = (1 - alpha) rtt_diff + alpha diff;  gradient = rtt_diff / min_rtt;
 *   rtt < Tlow:        R += delta
 *   rtt > Thigh:       R = R (1 - beta (1 - Thigh / rtt))
 *   gradient <= 0:     R += N delta, N = 5 from the hai-th consecutive sample
 *                      with gradient <= 0 on (hyperactive increase), else 1
 *   otherwise:         R = R (1 - beta gradient)
 * R within [min_rate, line rate]; it starts at line rate. */
typedef struct cs_timely_params {
    cs_time tlow, thigh;   /* ps (50 us, 500 us) */
    double delta;          /* additive step, bytes per ns (10 Mb/s = 0.00125) */
    double beta, alpha;    /* multiplicative decrease (0.8), EWMA gain (0.875) */
    uint32_t hai;          /* consecutive gradients <= 0 that start hyperactive increase (5) */
    cs_time min_rtt;       /* normalizes the gradient, ps (20 us; 0: the flow's base round trip) */
    double min_rate;       /* floor of R, bytes per ns */
} cs_timely_params;

typedef struct cs_timely {
    double rate, line;     /* bytes per ns */
    double rtt_diff;       /* EWMA of RTT differences, ps */
    cs_time prev_rtt;      /* 0: no sample yet */
    cs_time min_rtt;       /* ps */
    uint32_t neg;          /* consecutive samples with gradient <= 0 */
    uint64_t samples;      /* statistics */
} cs_timely;

void cs_timely_init(cs_timely *s, double line_rate, cs_time min_rtt);
void cs_timely_rtt(cs_timely *s, const cs_timely_params *p, cs_time rtt);

/* ---- HPCC (Li et al., SIGCOMM 2019, Algorithm 1) -------------------------------------------
 * Every egress a data packet leaves stamps a record into it (in-band
 * telemetry): its queue (bytes waiting behind the packet), the bytes it has
 * transmitted so far, the time, its bandwidth.  The ACK of the packet (one
 * per data packet) echoes the records; with L the records of the previous
 * ACK, per hop i
 *   txRate_i = (tx_i - L.tx_i) / (ts_i - L.ts_i)
 *   u_i = min(q_i, L.q_i) / (B_i T) + txRate_i / B_i
 * u = the largest u_i, tau = its ts_i - L.ts_i, capped at T;
 *   U = (1 - tau / T) U + (tau / T) u
 * and the window, with Wc the reference window and a stage count:
 *   U >= eta or stage >= max_stage:  W = Wc / (U / eta) + W_AI
 *   otherwise:                       W = Wc + W_AI
 * Wc = W and the stage (reset to 0 by a decrease, else + 1) are updated once
 * per round trip: at an ACK past the SND.NXT of the previous update.  The
 * pacing rate is W / T; W <= W_init = line rate x T.  The first ACK only
 * records L.  No randomness: the same inputs give the same windows. */
#define CS_CC_INT_HOPS 16 /* records a packet carries; hops beyond are not stamped */

typedef struct cs_int_hop {
    uint64_t qlen_bytes;   /* data bytes queued at the egress behind the packet */
    uint64_t tx_bytes;     /* wire bytes the egress has started, this packet included */
    cs_time ts;            /* when the packet started on the link, ps */
    double bw;             /* the link's bandwidth, bytes per ns */
} cs_int_hop;

typedef struct cs_hpcc_params {
    double eta;            /* target utilization (0.95) */
    uint32_t max_stage;    /* additive increases before a multiplicative update (5) */
    double w_ai;           /* additive increase, bytes (80) */
    cs_time base_rtt;      /* T, ps (0: the flow's base round trip) */
} cs_hpcc_params;

typedef struct cs_hpcc {
    double w, wc, u;       /* window, reference window (bytes), normalized inflight */
    double w_init, line;   /* bytes; bytes per ns */
    cs_time t;             /* base round trip T, ps */
    uint32_t stage, last_update; /* incStage; lastUpdateSeq (psn) */
    uint32_t nprev;        /* records in prev (0: no ACK yet) */
    cs_int_hop prev[CS_CC_INT_HOPS];
    uint64_t updates;      /* statistics */
} cs_hpcc;

void cs_hpcc_init(cs_hpcc *s, double line_rate, cs_time base_rtt);
/* An ACK: una = the receiver's next expected psn after it, nxt = the
 * sender's next psn, the records it echoes. */
void cs_hpcc_ack(cs_hpcc *s, const cs_hpcc_params *p, uint32_t una, uint32_t nxt, const cs_int_hop *hops,
                 uint32_t nhops);
double cs_hpcc_rate(const cs_hpcc *s); /* W / T, at most the line rate */

/* ---- Swift (Kumar et al., SIGCOMM 2020, Algorithm 1 and section 3.5) ------------------------
 * A window cwnd in packets (fractional), from the delay of each ACK (here the
 * NIC-to-NIC round trip: the receiver answers at once, so there is no endhost
 * delay to subtract) against a target
 *   target = base + hops h + fs(cwnd),
 *   fs(cwnd) = clamp(a / sqrt(cwnd) + b, 0, fs_range),
 *   a = fs_range / (1 / sqrt(fs_min_cwnd) - 1 / sqrt(fs_max_cwnd)),  b = -a / sqrt(fs_max_cwnd)
 * (hops: switches on the forward route).  At each ACK acknowledging n packets
 * (n = newly acknowledged payload / MTU):
 *   delay < target:  cwnd += ai n / cwnd  (cwnd >= 1)  or  ai n  (cwnd < 1)
 *   otherwise, if now - t_last_decrease >= delay:
 *                    cwnd *= max(1 - beta (delay - target) / delay, 1 - max_mdf)
 * at a NAK (a loss found by the receiver: fast recovery) and at a retransmit
 * timeout, if the same once-per-RTT condition holds, cwnd *= 1 - max_mdf; the
 * retx_reset-th timeout in a row (no ACK between) sets cwnd = min_cwnd.  cwnd
 * stays within [min_cwnd, max_cwnd]; t_last_decrease = now whenever cwnd went
 * down.  Below one packet the flow has at most one packet outstanding and is
 * paced one packet every rtt / cwnd (rtt: the last delay sample).  cwnd starts
 * at init_cwnd, unless set the flow's bandwidth-delay product (line rate x its
 * base round trip: line rate, no queue, as DCTCP here), and max_cwnd = the
 * line rate x (base round trip + base + hops h) unless set.  No randomness. */
typedef struct cs_swift_params {
    cs_time base_target;   /* ps */
    cs_time hop_scale;     /* h, ps per hop */
    cs_time fs_range;      /* ps */
    double fs_min_cwnd, fs_max_cwnd; /* packets */
    double ai;             /* packets per RTT */
    double beta, max_mdf;
    double min_cwnd;       /* packets */
    double max_cwnd;       /* packets (0: line rate x (base round trip + base + hops h)) */
    double init_cwnd;      /* packets (0: line rate x base round trip) */
    uint32_t retx_reset;   /* timeouts in a row that reset cwnd to min_cwnd */
} cs_swift_params;

typedef struct cs_swift {
    double cwnd;           /* packets */
    double max_cwnd;       /* packets, this flow's */
    double fs_a, fs_b;     /* flow scaling's a, b in ps */
    double mtu, wire_mtu;  /* payload / wire bytes of a full packet */
    uint32_t hops;         /* switches on the forward route */
    cs_time rtt;           /* the last delay sample (the base round trip before any) */
    cs_time t_last_decrease;
    uint32_t retx_cnt;
    uint64_t samples, decreases; /* statistics */
} cs_swift;

void cs_swift_init(cs_swift *s, const cs_swift_params *p, double line_rate, cs_time base_rtt, double mtu,
                   double wire_mtu, uint32_t hops, cs_time now);
/* The target delay at a window of cwnd packets, ps (rounded to the nearest ps). */
cs_time cs_swift_target(const cs_swift *s, const cs_swift_params *p, double cwnd);
/* An ACK at now: delay sample, newly acknowledged packets (fractional). */
void cs_swift_ack(cs_swift *s, const cs_swift_params *p, cs_time now, cs_time delay, double acked_pkts);
/* A loss found by a NAK (fast recovery), and a retransmit timeout. */
void cs_swift_nak(cs_swift *s, const cs_swift_params *p, cs_time now);
void cs_swift_timeout(cs_swift *s, const cs_swift_params *p, cs_time now);
double cs_swift_window(const cs_swift *s); /* bytes (cwnd x MTU) */
double cs_swift_rate(const cs_swift *s);   /* bytes per ns: 0 (line rate) at cwnd >= 1, else wire MTU x cwnd / rtt */

/* ---- the interface -------------------------------------------------------------------------- */

typedef struct cs_cc_params {
    cs_dcqcn_params dcqcn;
    cs_dctcp_params dctcp;
    cs_timely_params timely;
    cs_hpcc_params hpcc;
    cs_swift_params swift;
} cs_cc_params;

/* What a control learns of its flow when it starts. */
typedef struct cs_cc_flow {
    double line_rate;      /* bytes per ns of the flow's first link */
    cs_time base_rtt;      /* ps: a full packet there and an ACK back, alone on the route */
    uint32_t mtu;          /* payload bytes of a full packet */
    uint32_t wire_mtu;     /* wire bytes of a full packet (payload + overhead) */
    uint32_t hops;         /* switches on the forward route (links - 1) */
} cs_cc_flow;

/* The feedback of one ACK or NAK. */
typedef struct cs_cc_ack {
    cs_time now;
    cs_time rtt;           /* now - the send time of the data packet answered */
    uint32_t una, nxt;     /* after it: first psn not acknowledged, next psn to send */
    uint64_t acked_bytes;  /* payload newly acknowledged */
    uint64_t marked_bytes; /* ECN-marked payload the receiver took since its previous answer */
    const cs_int_hop *hops; /* the telemetry of the data packet answered (NULL without) */
    uint32_t nhops;
    uint8_t nak;           /* a NAK: the receiver found a gap (a loss, go-back-N or selective repeat) */
} cs_cc_ack;

enum cs_cc_feedback {
    CS_CC_MARK_RED = 1,   /* switches mark by RED (kmin, kmax, pmax) */
    CS_CC_MARK_STEP = 2,  /* switches mark above one threshold (dctcp_k) */
    CS_CC_CNP = 4,        /* the receiver answers marks with CNPs */
    CS_CC_ACK_EACH = 8,   /* the receiver ACKs every data packet (windowed controls) */
    CS_CC_INT = 16        /* every egress stamps in-band telemetry into data packets */
};

typedef struct cs_cc_ops {
    const char *name;
    size_t state_size;     /* bytes of per-flow state (0: none) */
    unsigned feedback;     /* cs_cc_feedback bits */
    void (*init)(void *st, const cs_cc_params *p, const cs_cc_flow *f, cs_time now);
    void (*advance)(void *st, const cs_cc_params *p, cs_time now);
    void (*sent)(void *st, const cs_cc_params *p, cs_time now, uint64_t wire_bytes);
    void (*ack)(void *st, const cs_cc_params *p, const cs_cc_ack *a);
    void (*cnp)(void *st, const cs_cc_params *p, cs_time now);
    void (*timeout)(void *st, const cs_cc_params *p, cs_time now);
    double (*rate)(const void *st);   /* bytes per ns; 0: line rate */
    double (*window)(const void *st); /* bytes; 0: no limit */
} cs_cc_ops;

/* The registered controls, in option order (index = backend.packet.cc). */
#define CS_CC_LIST(X) X(none) X(dcqcn) X(dctcp) X(timely) X(hpcc) X(swift)

#define CS_CC_ENUM_(n) CS_CC_##n,
enum { CS_CC_LIST(CS_CC_ENUM_) CS_CC_COUNT };
#undef CS_CC_ENUM_

extern const cs_cc_ops *const cs_cc_table[CS_CC_COUNT];
extern const char *const cs_cc_names[CS_CC_COUNT + 1]; /* NULL-terminated (an option's values) */

#endif
