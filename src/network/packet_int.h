/*
 * packet_int.h -- the `packet` backend's state, shared by its files:
 * packet.c (packets, switches, transport, the interface), packet_route.c
 * (per-packet routing: spraying, flowlets, adaptive) and packet_pfc.c (the
 * PFC deadlock check).  Not an interface: nothing outside the backend
 * includes it.
 */
#ifndef CS_NETWORK_PACKET_INT_H
#define CS_NETWORK_PACKET_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/eventq.h"
#include "core/pool.h"
#include "network/network.h"
#include "network/packet.h"
#include "network/packet_cc.h"
#include "network/packet_tcp_win.h"
#include "network/packet_transport.h"
#include "topology/route.h"
#include "topology/topology.h"

enum { PKT_ROUTING_TOPOLOGY, PKT_ROUTING_ECMP, PKT_ROUTING_SPRAY, PKT_ROUTING_PSPRAY, PKT_ROUTING_FLOWLET,
       PKT_ROUTING_ADAPTIVE };
enum { PKT_RTX_GBN, PKT_RTX_SR };

typedef struct pkt_opts {
    int mtu, overhead, ack_every, retry_limit, ecmp_seed, routing, cc, seed, retransmit, sr_window, flow_rows;
    bool pfc, cut_through;
    double buffer_bytes, alpha, rto_us, pfc_watchdog_us, loss_rate, window_bytes, flowlet_gap_us, util_window_us;
    double kmin_bytes, kmax_bytes, pmax;
    double dcqcn_g, dcqcn_alpha_us, dcqcn_timer_us, dcqcn_bytes, dcqcn_f, dcqcn_rai_gbps, dcqcn_rhai_gbps,
        dcqcn_min_gbps, cnp_interval_us;
    double dctcp_g, dctcp_k_bytes;
    double timely_tlow_us, timely_thigh_us, timely_delta_gbps, timely_beta, timely_alpha, timely_min_rtt_us,
        timely_min_gbps;
    int timely_hai, hpcc_max_stage;
    double hpcc_eta, hpcc_wai_bytes, hpcc_base_rtt_us;
    double swift_base_us, swift_h_us, swift_fs_range_us, swift_fs_min_cwnd, swift_fs_max_cwnd, swift_ai, swift_beta,
        swift_max_mdf, swift_min_cwnd, swift_max_cwnd, swift_init_cwnd;
    int swift_retx_reset;
    int transport, tcp_cc, tcp_iw, drop_psn;
    int tcp_connections;                    /* PKT_TCPC_*: a connection per pair kept across messages, or per message */
    bool tcp_ecn, tcp_idle_restart;
    double tcp_min_rto_us, cubic_c, cubic_beta, udp_rate_gbps;
    int priorities, priority_of, scheduler; /* traffic classes (docs/network.md, "Priorities") */
    int p2p_class;                          /* priority_of type: the class of point-to-point sends */
    int queue_pairs;                        /* PKT_QP_*: a queue pair per (source, destination, class) or per message */
    int channels;                           /* PKT_CH_*: a striped message's channels on connections of their own */
    char *dwrr_weights;
    int voq;                               /* which switches are VOQ chassis (PKT_VOQ_*) */
    double voq_buffer_bytes, voq_credit_bytes;
    double voq_fabric_latency_ns, voq_speedup; /* the cell fabric */
    int voq_cell_bytes, voq_cell_header_bytes;
} pkt_opts;

#define PKT_MAXPRIO 8 /* traffic classes at most (802.1p priorities) */
enum { PKT_PRIO_TCLASS, PKT_PRIO_QP, PKT_PRIO_TYPE };
enum { PKT_QP_PAIR, PKT_QP_MESSAGE };
enum { PKT_CH_CONNECTIONS, PKT_CH_MERGED };
enum { PKT_TCPC_PERSISTENT, PKT_TCPC_MESSAGE };
enum { PKT_SCHED_STRICT, PKT_SCHED_DWRR };
enum { PKT_VOQ_NONE, PKT_VOQ_SPINE, PKT_VOQ_ALL };
enum { PK_DATA, PK_ACK, PK_NAK, PK_CNP };
#define CTRL_WIRE 64u     /* bytes of an ACK, NAK, CNP or PFC frame on the wire */
#define NONE UINT32_MAX
enum { SR_SACKED = 1, SR_LOST = 2 }; /* pflow.sr_flag */

typedef struct pkt {
    /* -- the first cache line: what a switch's arrival and the start of a transmission read -- */
    struct pkt *next;
    /* its route: data: its flow's path; ACK, NAK, CNP: the route back.  Kept in the packet so that a hop
     * reads no flow record (the flow's arrays outlive its packets: freed with the flow, after the last) */
    const uint32_t *path;
    cs_int_hop *intr;   /* in-band telemetry (cc hpcc; from s->ints): data: stamped per egress; ACK, NAK: echoed */
    uint32_t flow, psn; /* psn: data: its sequence number; ACK/NAK: the receiver's next expected */
    uint32_t wire, payload;
    uint32_t hop;       /* index in its path of the link it is on or queued for */
    uint32_t npath;     /* links in path (per-packet routing: the hop count of every path it may take) */
    uint32_t in_link;   /* data: the link it arrived on at the node whose buffer holds it; NONE at its
                           source and for control packets (not in any buffer) */
    uint8_t nint;
    uint8_t type, ecn;
    uint8_t rtx;        /* selective repeat: data sent again */
    uint8_t prio;       /* data: its flow's traffic class */
    /* per-packet routing (packet_route.c): hbh = 1: a data packet whose next link each node chooses (link:
     * the link it is on or queued for; ent: packet-spray's path number, left to decode, or a flowlet's
     * number); 0: it follows path[hop] */
    uint8_t hbh;
    uint32_t link;
    /* -- the second line: the endpoints' -- */
    /* selective repeat: data: the flow's stamp of this transmission; ACK, NAK: the stamp of the data packet
     * that made the receiver send it (every transmission stamped before it has arrived or is lost) */
    uint32_t tx;
    uint32_t sack;      /* selective repeat's NAK: the psn that arrived past the gap at psn; else NONE */
    uint32_t ce_bytes;  /* ACK, NAK: ECN-marked payload the receiver took since its previous answer (saturates) */
    /* congestion feedback: data: when it was sent; ACK, NAK: echoed from the data packet it answers */
    cs_time ts;
    uint64_t ent;
    uint8_t pad_[128 - 96]; /* two whole lines: the pool starts each on a line (its first, above, alone
                               serves a hop) */
} pkt;
_Static_assert(sizeof(pkt) == 128 && offsetof(pkt, tx) == 64, "pkt: two lines, the hop's fields in the first");

typedef struct pflow {
    /* -- the first cache line (the array is line-aligned, the record 5 lines): what a packet's
     * destination reads (the receiver's counters and their run ahead, packet.c "Deferred arrivals"),
     * what decides the flow's freeing, and the sender's next packet -- */
    uint32_t *path, *rpath;   /* rpath: the route back (ACK, NAK, CNP); one allocation */
    uint32_t npath, nrpath;
    uint32_t npkts, snd_una;
    /* receiver */
    uint32_t rcv_nxt, since_ack;
    /* the receiver's rcv_nxt and since_ack once every data packet that has
     * started on the last link of the path has arrived (kept when s->defer) */
    uint32_t pr_nxt, pr_since;
    uint32_t inflight; /* its packets anywhere in the network */
    uint8_t live, delivered, failed;
    uint8_t in_ring;
    uint8_t held;    /* delivered, its completion held until the pair's older messages complete (in order) */
    uint8_t prio;    /* its traffic class, < priorities */
    uint8_t timed;   /* has an entry in the timer heap */
    uint8_t parked;  /* waiting for its queue pair's older messages to be sent (not on the send ring) */
    uint32_t snd_nxt;
    /* -- the second line: the sender -- */
    uint32_t ring_next, ring_prev;
    /* queue pair (queue_pairs pair, transport rc; a persistent tcp connection): its index in
     * pkt_state.qps (NONE: none; the flow owns ccs), the next live flow of the queue pair, the psn its
     * packet 0 has in the pair's sequence */
    uint32_t qp, qp_next;
    cs_time next_tx, last_progress;
    uint64_t sent;   /* data packets transmitted, first times and again */
    void *ccs;       /* congestion control state (s->cc->state_size bytes; NULL with none) */
    void *trs;       /* transports other than rc (packet_transport.h): its state (s->tr->state_size
                        bytes; NULL without) */
    uint32_t last_payload, retries;
    /* -- the rest -- */
    uint32_t qp_base;
    uint32_t gen;    /* incarnation of this flow id (stale timer entries are told apart) */
    uint32_t src, dst;
    uint64_t bytes, key, cookie;
    cs_net_done_fn done;
    void *ctx;
    cs_time ideal;  /* uncontended time on its route (flows.csv) */
    cs_time start, finish;
    /* selective repeat (NULL with go-back-N): per psn in [snd_una, snd_una + sr_window), at psn mod
     * sr_window: sr_flag (the sender's: SR_SACKED, SR_LOST = to be sent again), sr_txn (the stamp of its
     * last transmission), sr_got (the receiver's, over [rcv_nxt, rcv_nxt + sr_window): kept past a gap);
     * one allocation */
    uint32_t *sr_txn; /* (the allocation) */
    uint8_t *sr_flag, *sr_got;
    uint32_t tx_stamp, nlost, rtx_lo; /* next stamp; psns marked lost; none below rtx_lo is */
    uint32_t rcv_held;                /* packets the receiver keeps past the gap */
    uint32_t nak_for;                 /* psn + 1 of the gap last NAKed, 0 = none */
    uint64_t rcv_ce;                  /* ECN-marked payload taken since the last ACK or NAK */
    cs_time last_cnp;
    uint8_t cnp_sent;
    /* per-packet routing (packet_route.c) */
    uint8_t fixed;      /* its route is the routing table's: no per-packet choice */
    uint32_t flowlet;   /* flowlet routing: the current flowlet's number (0: the flow's ECMP path) */
    cs_time last_tx;    /* flowlet routing: when its last data packet left */
    cs_time rto;        /* this flow's retransmit timeout (tcp: RFC 6298); 0 = backend.packet.rto */
    uint64_t got_bytes, lost_bytes; /* udp: payload delivered / dropped or lost */
    uint32_t accounted; /* udp: packets delivered or lost */
    uint8_t test_dropped; /* drop_psn: its packet was dropped once */
} pflow;
_Static_assert(sizeof(pflow) == 320 && offsetof(pflow, ring_next) == 64 && offsetof(pflow, qp_base) == 128,
               "pflow: five lines, the endpoints' in the first, the sender's in the second");

/* A queue pair (queue_pairs pair, transport rc; or a persistent tcp
 * connection, whose transport state is trc): (source, destination,
 * channel, class).  Its messages are sent in order, one after the other
 * (a message starts when the one before it has sent its last packet), in
 * one packet sequence (each starts where the one before it ended), paced
 * by one clock, and share the congestion control's state -- rate, window,
 * estimates and timers live as long as the run, as a NIC keeps them per
 * QP; the outstanding packets of all its live messages count against the
 * one window. */
typedef struct pqp {
    uint32_t src, dst, chan, prio;
    uint32_t psn;     /* the next message's first psn */
    uint32_t live;    /* its live flows (a list through pflow.qp_next; NONE = none) */
    cs_time next_tx;  /* pacing: its next packet not before */
    cs_time last_cnp; /* the receiver's CNP pacing (cnp_interval per queue pair) */
    uint8_t cnp_sent;
    void *ccs;        /* the control's state (owned; NULL with none) */
    void *trc;        /* the transport's state per connection (owned; tcp's window and RTT estimates) */
} pqp;

/* One traffic class of a link: its data FIFO and send ring at the link's
 * source, its ingress accounting and PFC state at the far node.  With one
 * class (the default) these are the link's. */
typedef struct pclass {
    /* -- one cache line: what a packet's hop reads -- */
    pkt *qh, *qt;
    uint64_t qbytes;      /* data bytes queued in this class */
    /* ingress accounting at this link's far node (the link as that node's ingress), this class */
    uint64_t in_shared, in_head;
    uint32_t ring, nring; /* flows of this class starting here (source port of an NPU): a ring, NONE = empty */
    uint32_t pfc_pending; /* PFC frames for this class on their way upstream (events) */
    uint32_t wire_data;   /* data packets of this class started on this link, not yet at the far node */
    uint8_t turn;         /* 1: forwarded packets' turn next (else the ring's) */
    /* -- the rest -- */
    int64_t deficit;      /* dwrr: bytes this class may still start in the current round */
    cs_time pause_time, pause_since;
} pclass;

/* The virtual output queues of an egress link whose node is a VOQ chassis:
 * per class c and ingress link i of the node (its position in the node's
 * in-links), a FIFO at [c x nin + i]; the egress credit scheduler serves
 * them round robin, a credit of voq_credit bytes per turn (deficit). */
typedef struct pvoq {
    uint32_t nin;
    pkt **qh, **qt;      /* npri x nin each; one allocation with def */
    int64_t *def;        /* npri x nin */
    uint32_t rr[PKT_MAXPRIO];
} pvoq;

typedef struct port {
    /* -- the first cache line (the array is line-aligned, a port 4 lines): the transmission -- */
    pkt *qh, *qt;    /* control packets (ACK, NAK, CNP): before every data class, never paused */
    uint64_t qbytes; /* data bytes queued, every class */
    uint8_t busy;
    uint8_t paused; /* bit c: class c is paused by the far node (in effect here) */
    uint8_t xoff;   /* bit c: the far node has paused class c (decided; takes effect upstream later) */
    uint8_t rr;     /* dwrr: the class whose round it is */
    /* the packet in transmission, as this node accounted it (with
     * cut-through it may already be held by the next node): the link it came
     * in on (NONE: in no buffer here), its class, wire and payload bytes */
    uint8_t cur_data, cur_prio;
    uint32_t cur_in_link, cur_wire, cur_payload;
    /* the last serialization computed here (most packets on a link are full): ser_ps of memo_wire bytes at
     * memo_bw bytes per ns (a division and a ceil saved; the same value) */
    uint32_t memo_wire;
    double memo_bw;
    cs_time memo_ser;
    /* -- the second (and the start of the third): class 0 -- */
    pclass cls0;       /* class 0 (the others: pkt_state.pcs), beside the port that uses it most */
    /* -- the rest of the third: what every transmission and hop updates -- */
    cs_time busy_since, busy_time;
    uint64_t packets, bytes, max_q;
    /* -- the fourth -- */
    uint64_t headroom; /* PFC headroom of each class of this link at its far node (read when the shared
                          pool is full) */
    uint64_t tx_wire;  /* wire bytes started, every packet (kept for in-band telemetry only) */
    uint64_t drops, marks;
    uint64_t wake_ev;
    cs_time wake_at;
    uint8_t pad_[16];
} port;
_Static_assert(sizeof(pclass) == 88 && offsetof(pclass, deficit) == 64, "pclass: a hop's fields in one line");
_Static_assert(sizeof(port) == 256 && offsetof(port, cls0) == 64 && offsetof(port, headroom) == 192,
               "port: four lines, the hot ones first");

typedef struct pnode {
    uint64_t shared, used; /* shared pool size, bytes in it */
} pnode;

typedef struct pkt_state {
    cs_eventq *q;
    cs_net_observer obs; /* link_queue: queue and pause samples (NULL = none) */
    const cs_topo *topo;
    cs_topo *own_topo;
    double *bw; /* per link, bytes per ns: the topology's, or as built for the healthy network */
    cs_router *router;
    pkt_opts o;
    const cs_cc_ops *cc; /* congestion control (backend.packet.cc) */
    const cs_tr_ops *tr; /* transport (backend.packet.transport) */
    cs_tcp_params tcp;   /* tcp: its window law's parameters */
    cs_time tcp_min_rto;
    cs_cc_params ccp;
    uint32_t ack_every;  /* ack_every, or 1 when the control needs an ACK per packet */
    cs_pool *ints;       /* telemetry records of packets in flight (cc hpcc) */
    cs_time rto, cnp_interval;
    uint64_t wire_mtu;
    port *ports;     /* line-aligned, inside ports_mem (the allocation) */
    void *ports_mem;
    pclass *pcs;       /* per link, its classes 1..npri-1: pcs[l x (npri - 1) + c - 1] (NULL with one class) */
    uint32_t npri;     /* traffic classes (priorities) */
    int64_t quantum[PKT_MAXPRIO]; /* dwrr: bytes per round of each class (weight x wire MTU) */
    pnode *nodes;
    pvoq **vq;         /* per link: its VOQs when its source node is a VOQ chassis, else NULL (NULL: none) */
    uint32_t *in_pos;  /* per link: its position among its far node's in-links (with vq) */
    int64_t voq_credit;
    int fabric;        /* a VOQ chassis' cell fabric takes time (voq_fabric_latency or voq_cell set) */
    cs_time fab_lat;   /* voq_fabric_latency in ps */
    uint64_t cell, cell_hdr; /* voq_cell, voq_cell_header (bytes; cell 0: no cells) */
    pflow *flows;       /* line-aligned, inside flows_mem (the allocation) */
    void *flows_mem;
    size_t nflows_alloc, cap_flows;
    uint32_t *free_ids;
    size_t nfree, cap_free;
    /* queue pairs (queue_pairs pair, transport rc): the records, and an
     * open-addressing table of index + 1 by (src, dst, channel, class) */
    uint8_t qp_on;    /* queue_pairs pair, transport rc, and not a path per message (spraying) */
    uint32_t qp_qps;  /* QP-aware ECMP (the router's key mod qps): queue pairs per (src, dst); 0 = one */
    pqp *qps;
    size_t nqps, cap_qps;
    uint32_t *qph;
    size_t qph_cap;   /* a power of 2 (0: none yet) */
    cs_pool *pkts;
    cs_pool *stripes;  /* a message striped over its channels (cs_net_send_striped), until its last flow is done */
    /* retransmit timers: one min-heap of (deadline, flow, gen) and one event
     * at its top; an entry whose flow made progress is re-armed when it comes
     * up, one whose flow is gone is dropped (and the heap compacted when
     * such entries outnumber the live ones), so finished flows leave no
     * events behind */
    struct tentry { cs_time at; uint32_t id, gen; } *heap;
    size_t nheap, cap_heap, nlive_timers;
    uint64_t timer_ev; /* pending event id + 1 */
    cs_time timer_at;
    /* the PFC watchdog (packet_pfc.c): a deadlock check every wd_interval while a class of a link is
     * paused (npaused of them); wd_ev: its pending event id + 1 (0: none) */
    cs_time wd_interval;
    uint64_t wd_ev;
    size_t npaused;
    uint64_t rng;
    cs_packet_stats st;
    uint32_t failed_src, failed_dst;
    uint64_t failed_bytes;
    uint32_t sr_win; /* selective repeat: sr_window packets; 0 = go-back-N */
    /* flows.csv: a row per delivered flow, in the order they are freed, up to flow_rows */
    cs_net_flow_row *rows;
    size_t nrows, caprows;
    uint64_t rows_omitted;
    /* per-packet routing (packet_route.c): hbh = routing is packet-spray, flowlet or adaptive */
    uint8_t hbh, reorders; /* reorders: a flow's packets may take different paths */
    cs_time flowlet_gap;
    /* link utilization samples (an observer's link_util; NULL: none): per link, the window of
     * util_window being summed and its busy time so far */
    struct putil { uint64_t win; cs_time busy; } *util;
    cs_time util_w;
    uint32_t *cand;
    uint32_t cap_cand;
    /* deferred arrivals (packet.c): per link, the data packets on it whose
     * arrival at their destination has no effect but on the receiver's
     * counters, in order of arrival (times rising), applied when something
     * may look at them; dq_act: the links whose FIFO is not empty */
    uint8_t defer; /* the run defers such arrivals (rc, go-back-N, no random loss, one path per flow) */
    struct pkt_dq {
        /* a ring of cap (a power of 2): when, its place in the order, the packet's flow, psn, payload bytes
         * and class (the packet itself is freed when it starts on the link: a freed packet is reused at once,
         * while its lines are in cache); flow NONE: pushed as its event (the flow failed) */
        struct pkt_dent { cs_time at; uint64_t seq; uint32_t flow, psn, payload; uint8_t prio; } *e;
        uint32_t head, n, cap, act; /* act: its position in dq_act + 1 (0: not there) */
    } *dq;
    uint32_t *dq_act;
    size_t ndq_act, cap_dq_act;
    /* PFC deadlock (packet_pfc.c) */
    int *halt;             /* the network layer's (cs_net_env.halt) */
    uint8_t deadlocked;
    char deadlock[768];    /* what was found: the cycle */
} pkt_state;

static inline const cs_link *pkt_link(const pkt_state *s, uint32_t l) { return &s->topo->links[l]; }
static inline pclass *pkt_pc(const pkt_state *s, uint32_t l, uint32_t c) {
    return c ? &s->pcs[(size_t)l * (s->npri - 1) + c - 1] : &s->ports[l].cls0;
}

/* packet.c, for the transports (packet_transport.h): */
/* ps a link of bw bytes per ns takes for `bytes` (at least 1 ps). */
cs_time pkt_ser_ps(uint64_t bytes, double bw);
/* A control packet of flow id (type PK_ACK, PK_NAK: psn = the receiver's next expected) onto the route
 * back, answering data packet `from` (its send time and telemetry echoed; NULL: none). */
void pkt_send_ctrl(pkt_state *s, uint32_t id, int type, uint32_t psn, pkt *from);
/* Flow id is complete at the receiver: its finish time, its done callback. */
void pkt_delivered(pkt_state *s, uint32_t id);
/* Flow id has something to send: onto its source port's send ring. */
void pkt_ring_add(pkt_state *s, uint32_t id);
/* Flow id's retransmit timer (from last_progress), unless armed or nothing is outstanding. */
void pkt_arm_rto(pkt_state *s, uint32_t id);
/* Count a retransmit timeout of flow id; 1 when it passed retry_limit and the flow stopped. */
int pkt_timeout_gives_up(pkt_state *s, uint32_t id);
/* Packets outstanding (sent, not acknowledged) against flow f's window: its own, or, in a queue pair
 * (a persistent tcp connection), those of every live flow of the pair that has started. */
uint64_t pkt_qp_outstanding(const pkt_state *s, const pflow *f);
/* The window of queue pair q may have opened: its live flows with data to send go back to their send
 * rings (later: by an event at this instant, for callers choosing a port's next packet). */
void pkt_qp_wake(pkt_state *s, uint32_t q, int later);
/* Flow f's round trip alone on its route: a full packet there, a control packet back (ps). */
cs_time pkt_base_rtt(const pkt_state *s, const pflow *f);
/* Payload bytes of packet psn of flow f. */
uint32_t pkt_payload_of(const pkt_state *s, const pflow *f, uint32_t psn);

/* packet_route.c: a data packet of flow f leaves its source now (its psn set): its routing. */
void pkt_route_start(pkt_state *s, pflow *f, pkt *p);
/* packet_route.c: the link a hop-by-hop packet p, at node v (not its destination), goes out on. */
uint32_t pkt_route_next(pkt_state *s, pkt *p, uint32_t v);
/* packet_route.c: whether a hop-by-hop packet leaving on link l may cut through at its far node: every
 * link it may take there is not faster than l. */
int pkt_route_cut_through(pkt_state *s, const pkt *p, uint32_t l);
/* The FIFOs holding class c's data packets queued on link l: *heads (n of them; a VOQ port has one per
 * ingress link of its node). */
static inline uint32_t pkt_class_lists(const pkt_state *s, uint32_t l, uint32_t c, pkt *const **heads) {
    if (s->vq && s->vq[l]) {
        *heads = s->vq[l]->qh + (size_t)c * s->vq[l]->nin;
        return s->vq[l]->nin;
    }
    *heads = &pkt_pc(s, l, c)->qh;
    return 1;
}
/* packet_pfc.c: whether a set of paused links can never resume; then the cycle is written to
 * s->deadlock, s->deadlocked and *s->halt set: 1; else 0. */
int pkt_pfc_deadlock(pkt_state *s);

#endif
