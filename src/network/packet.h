/*
 * packet.h -- introspection of the `packet` backend (packet.c) for tests and
 * reports: its counters over a run.  The backend itself is used through
 * network.h like any other.
 */
#ifndef CS_NETWORK_PACKET_H
#define CS_NETWORK_PACKET_H

#include <stdint.h>

#include "network/network.h"

typedef struct cs_packet_stats {
    uint64_t flows, flows_done;          /* transfers started, delivered */
    uint64_t data_packets;               /* data packets of the transfers (first transmissions) */
    uint64_t ctrl_packets;               /* ACKs, NAKs, CNPs sent */
    uint64_t delivered_bytes;            /* payload delivered in order */
    uint64_t drops;                      /* data packets refused by a full queue (lossy) */
    uint64_t headroom_drops;             /* data packets beyond a PFC headroom (lossless: should be 0) */
    uint64_t lost;                       /* data packets lost on a link (loss_rate) */
    uint64_t pauses;                     /* PFC pauses that took effect */
    uint64_t ecn_marks;                  /* data packets ECN-marked */
    uint64_t cnps, naks, timeouts;       /* CNPs, NAKs sent; retransmit timeouts */
    uint64_t retransmitted;              /* data packets sent again (go-back-N: counted when it goes back;
                                            selective repeat: when sent) */
    uint64_t held;                       /* selective repeat: packets the receiver kept past a gap */
    uint64_t out_of_order, duplicates;   /* data packets the receiver refused / had already */
    uint64_t failed_flows;               /* flows stopped after retry_limit timeouts */
    uint64_t deadlock_checks;            /* PFC deadlock checks run (the watchdog, retransmit timeouts) */
    uint64_t deadlocks;                  /* 1 when a PFC deadlock stopped the run */
    double fct_sum_ns;                   /* sum of the delivered transfers' completion times */
    uint64_t fast_retransmits;           /* tcp: fast retransmits (third duplicate ACK) */
    uint64_t ecn_cuts;                   /* tcp with tcp_ecn: window cuts for ECN echoes */
    uint64_t partial_acks;               /* tcp: partial ACKs in fast recovery (each resends one segment) */
    uint64_t tcp_idle_restarts;          /* tcp, persistent connections: messages whose window an idle period cut
                                            back to tcp_iw (tcp_idle_restart) */
    uint64_t undelivered_bytes;          /* udp: payload dropped or lost, never sent again */
    uint64_t class_pauses[8];            /* PFC pauses that took effect, per traffic class (priorities) */
    uint64_t int_records;                /* cc hpcc: in-band telemetry records the ACKs and NAKs brought back
                                            (one per egress of the data path a data packet left) */
} cs_packet_stats;

/* The counters of a cs_net running the packet backend: 1, else 0. */
int cs_packet_stats_get(const cs_net *net, cs_packet_stats *out);
/* Deferred arrivals (docs/network.md; on by default where they apply): off
 * (on = 0) makes every arrival an event again (the same results, more
 * events), for tests and for measuring; call it before the first message.
 * 1, else 0 (not the packet backend, or on = 1 where they do not apply). */
int cs_packet_defer_arrivals(cs_net *net, int on);
/* The data bytes queued now at the egress of link `link` (packets waiting,
 * not the one on the wire): 1, else 0 (not the packet backend, no such link).
 * Tests sample it between events to see the queue a congestion control keeps. */
int cs_packet_queue_bytes(const cs_net *net, uint32_t link, uint64_t *out);
/* The time (ps) traffic class `cls` of link `link` has been paused by PFC
 * so far: 1, else 0 (not the packet backend, no such link or class). */
int cs_packet_class_paused(const cs_net *net, uint32_t link, uint32_t cls, cs_time *out);

/* backend.packet.dwrr_weights ("w0,w1,...": one integer 1..1000 per traffic class, nclasses of them)
 * into w[0 .. nclasses); spec NULL: every weight 1.  A refusal is CS_EINVAL, its message starting with
 * "backend.packet.dwrr_weights: ".  (The backend reads it when it is created: packet.c.) */
int cs_packet_parse_weights(const char *spec, uint32_t nclasses, uint32_t *w, cs_error *err);

#endif
