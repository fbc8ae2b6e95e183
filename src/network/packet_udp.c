/*
 * packet_udp.c -- the `packet` backend's udp transport (packet_transport.h):
 * a message is ceil(bytes / mtu) datagrams sent at udp_rate (0: the line
 * rate of its first link: back to back), never acknowledged and never sent
 * again.  A datagram dropped by a full queue or lost on a link is lost; the
 * message completes (its done callback) when each of its packets has been
 * delivered or lost, at the later of the last delivery and the last loss.
 * Its flows.csv row says how many bytes arrived (delivered_bytes,
 * lost_bytes); the summary says how many bytes of the run were not
 * delivered.  A collective over udp therefore completes on time with data
 * missing: its times are those of a loss-tolerant exchange, not of a correct
 * collective (docs/network.md).
 */
#include "network/packet_int.h"

static int udp_check(const pkt_state *s, cs_error *err) {
    if (s->o.cc != CS_CC_none)
        return CS_ERR(err, CS_EINVAL,
                      "backend.packet.cc: %s is a congestion control of transport rc; transport udp sends at "
                      "backend.packet.udp_rate; expected cc none", cs_cc_names[s->o.cc]);
    if (s->o.retransmit != PKT_RTX_GBN)
        return CS_ERR(err, CS_EINVAL,
                      "backend.packet.retransmit: selective-repeat is transport rc's recovery; transport udp never "
                      "sends again; expected go-back-n (the default)");
    return CS_OK;
}

static int udp_may_send(pkt_state *s, pflow *f) {
    (void)s;
    return f->snd_nxt < f->npkts;
}

static uint32_t udp_next_psn(pkt_state *s, pflow *f, uint8_t *rtx) {
    (void)s;
    (void)rtx;
    f->snd_una = f->snd_nxt + 1; /* nothing outstanding: no timer */
    return f->snd_nxt++;
}

static void udp_sent(pkt_state *s, pflow *f, const pkt *p) {
    if (s->o.udp_rate_gbps > 0) f->next_tx = cs_eventq_now(s->q) + pkt_ser_ps(p->wire, s->o.udp_rate_gbps / 8);
}

/* Packet p of its flow is accounted for; the flow completes with its last. */
static void account(pkt_state *s, pkt *p) {
    pflow *f = &s->flows[p->flow];
    if (++f->accounted == f->npkts) pkt_delivered(s, p->flow);
}

static void udp_data(pkt_state *s, pkt *p) {
    pflow *f = &s->flows[p->flow];
    f->got_bytes += p->payload;
    f->rcv_nxt++;
    s->st.delivered_bytes += p->payload;
    account(s, p);
}

static void udp_lost(pkt_state *s, pkt *p) {
    pflow *f = &s->flows[p->flow];
    f->lost_bytes += p->payload;
    s->st.undelivered_bytes += p->payload;
    account(s, p);
}

const cs_tr_ops cs_tr_udp = {
    .name = "udp",
    .check = udp_check,
    .may_send = udp_may_send,
    .next_psn = udp_next_psn,
    .sent = udp_sent,
    .data = udp_data,
    .lost = udp_lost,
};
