/*
 * packet_transport.h -- the `packet` backend's transports: what a message's
 * sender and receiver do with its data packets and their answers.  One
 * interface (cs_tr_ops), one entry per transport, selected by
 * backend.packet.transport:
 *   rc   RoCE RC queue pairs: go-back-N or selective repeat, the congestion
 *        controls of packet_cc.h (packet.c: the backend's own transport);
 *   tcp  a byte stream of MSS segments with cumulative ACKs, NewReno or
 *        CUBIC windows, fast retransmit / fast recovery and RFC 6298's
 *        retransmit timer (packet_tcp.c; the window laws: packet_tcp_win.h);
 *   udp  datagrams paced at a rate, never sent again: a message completes
 *        when each of its packets was delivered or lost (packet_udp.c).
 * The backend (packet.c) owns packets, ports, switches, the send ring of
 * each source NPU and the retransmit timer heap; a transport decides, per
 * flow:
 *   check     its options against the others, once at create (a clear error);
 *   init      when the flow starts (its state: flow->trs, state_size bytes);
 *   may_send  whether a data packet may leave now (window, pending repairs);
 *   next_psn  which one (and whether it is a retransmission);
 *   sent      after it left (pacing: flow->next_tx);
 *   data      a data packet reached the receiver;
 *   ctrl      an ACK, NAK or CNP reached the sender;
 *   lost      a data packet was dropped by a queue or lost on a link;
 *   timeout   the flow's retransmit timer expired without progress.
 * NULL callbacks are the rc transport's code paths in packet.c.
 *
 * Adding a transport: one file packet_<name>.c defining `const cs_tr_ops
 * cs_tr_<name>`, one X(<name>) in CS_TR_LIST, its options
 * (backend.packet.<name>_*) in packet.c's table.
 */
#ifndef CS_NETWORK_PACKET_TRANSPORT_H
#define CS_NETWORK_PACKET_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

struct pkt_state;
struct pflow;
struct pkt;

typedef struct cs_tr_ops {
    const char *name;
    int (*check)(const struct pkt_state *s, cs_error *err);
    size_t (*state_size)(const struct pkt_state *s);
    void (*init)(struct pkt_state *s, struct pflow *f);
    int (*may_send)(struct pkt_state *s, struct pflow *f);
    uint32_t (*next_psn)(struct pkt_state *s, struct pflow *f, uint8_t *rtx);
    void (*sent)(struct pkt_state *s, struct pflow *f, const struct pkt *p);
    void (*data)(struct pkt_state *s, struct pkt *p);
    void (*ctrl)(struct pkt_state *s, struct pkt *p);
    void (*lost)(struct pkt_state *s, struct pkt *p);
    void (*timeout)(struct pkt_state *s, uint32_t id);
} cs_tr_ops;

/* The registered transports, in option order (index = backend.packet.transport). */
#define CS_TR_LIST(X) X(rc) X(tcp) X(udp)

#define CS_TR_ENUM_(n) CS_TR_##n,
enum { CS_TR_LIST(CS_TR_ENUM_) CS_TR_COUNT };
#undef CS_TR_ENUM_

extern const cs_tr_ops *const cs_tr_table[CS_TR_COUNT];
extern const char *const cs_tr_names[CS_TR_COUNT + 1]; /* NULL-terminated (an option's values) */

#endif
