/*
 * packet.c -- the `packet` backend: RoCEv2-style packets over the links of a
 * physical topology (the same topologies, placements and routes as `flow`),
 * with output-queued switches on a shared buffer, PFC, ECN marking, congestion
 * control (none, DCQCN, DCTCP, TIMELY, HPCC, Swift: packet_cc.h) and an RC transport
 * with go-back-N or selective repeat.  Transports are registered by name
 * (packet_transport.h): rc is this file's own code (the callbacks NULL),
 * tcp (packet_tcp.c) and udp (packet_udp.c) replace the sender's and the
 * receiver's decisions; everything below them is shared.  docs/network.md
 * ("packet") has the model, its parameters with their sources, and the
 * closed forms the tests check.
 *
 * Packets.  A message becomes ceil(bytes / mtu) data packets (one for 0
 * bytes) of payload + overhead wire bytes.  Every directed link has one
 * egress port at its source node: a FIFO of control packets (ACK, NAK, CNP;
 * served first), a data FIFO per traffic class (priorities; one by default;
 * strict priority or DWRR between them: next_data) and one packet in
 * transmission.  At a VOQ chassis (voq) the data of a class waits in a
 * virtual output queue per ingress link instead, served by the egress
 * port's credit scheduler (voq_pop).  A packet occupies the
 * link for ser = ceil(wire x 1000 / bw) ps (bw in bytes per ns) and reaches
 * the far node lat ps after its last bit (store-and-forward), or, with
 * cut_through, lat ps after its first `overhead` bytes when the next link is
 * not faster than this one (else store-and-forward at that node).  A data
 * packet is delivered when its last bit reaches the destination NPU; a
 * message is done when its last packet has been delivered in order.
 *
 * Senders.  Each message is a flow on its route (ECMP per (src, dst) pair,
 * or per message when the topology sprays; a fixed route of the routing
 * table when there is one).  With transport rc and queue_pairs pair (the
 * default) the messages of one (src, dst, class) -- and, with QP-aware
 * ECMP, one of its queue pairs -- are one RC queue pair (pqp): they are
 * sent in order, each after the one before it has sent its last packet, in
 * one packet sequence, paced by one clock, under one congestion control
 * state that lives as long as the run, their outstanding packets counted
 * together against its window, and the receiver paces its CNPs per queue
 * pair; with queue_pairs message (or per-message paths) every message is a
 * queue pair of its own that starts its control afresh.  A message striped over NCCL channels
 * (cs_net_msg.channels; channels connections) is a flow per channel, each on a connection of its
 * own -- its own queue pair and route (cs_router_route_conn) -- and done when all are
 * (cs_net_send_striped, shared with the flow backend).
 * ACKs, NAKs and CNPs take the route
 * back.  With routing packet-spray, flowlet or adaptive, each node after the
 * source picks a data packet's next link among the equal-cost ones
 * (packet_route.c); its packets may then arrive out of order.  The egress port of a source NPU takes its data packets from the
 * flows that start there, round-robin, each paced at its rate and within its
 * window (line rate and no window without congestion control; else the
 * control's: packet_cc.h), alternating with the packets it forwards when the
 * NPU is also a hop (rings).  The receiver ACKs every ack_every packets (every
 * packet with DCTCP and HPCC) and the last one; every ACK or NAK echoes the
 * send time and the telemetry of the data packet it answers and the
 * ECN-marked payload taken since the previous one; with DCQCN the receiver
 * answers an ECN-marked packet with a CNP, at most one per cnp_interval per
 * flow.
 *
 * Switches (every node that forwards: switches, NICs, and NPUs in the middle
 * of a route) have a buffer of buffer_bytes.  Data packets are accounted at
 * arrival and released when their transmission ends; control packets are not
 * accounted (they are 64 bytes and never paused).
 * Accounting, headroom and PFC are per ingress link and traffic class (a
 * packet keeps its flow's class on every hop); a paused class does not stop
 * another.  A VOQ chassis has voq_buffer bytes instead of buffer_bytes.
 *   - pfc = 1 (lossless, the default): each ingress link has a headroom of
 *     2 x lat x bw + 2 x MTU wire bytes + 64 (a pause frame), reserved out of
 *     the buffer; the rest is shared.  A data packet goes to the shared pool
 *     while its ingress link holds less than alpha x (shared free bytes), else
 *     to the headroom; the moment the ingress link reaches that threshold the
 *     switch sends XOFF upstream (a 64-byte frame: ser + lat later the
 *     upstream port stops starting data packets), and XON once the link's
 *     headroom is empty and its shared bytes are below the threshold less two
 *     MTUs.  With that headroom nothing is dropped (a headroom overflow is
 *     counted as a drop and reported).
 *   - pfc = 0 (lossy): a data packet is dropped when its egress queue would
 *     pass alpha x (free bytes) (dynamic threshold), and the RC transport
 *     recovers: the receiver NAKs the first gap once, the sender goes back to
 *     it; a retransmit timeout (rto) goes back to the oldest unacknowledged
 *     packet; retry_limit timeouts in a row without progress stop the flow and
 *     the run says so (describe_pending) instead of retrying for ever.
 *   - retransmit = selective-repeat: the receiver keeps packets past the gap
 *     (up to sr_window past it; the sender never has more outstanding) and
 *     NAKs each one, naming the missing psn and the one that came; every
 *     data packet carries a per-flow stamp that its ACK or NAK echoes, and,
 *     a flow's packets keeping their order on its one route, every
 *     outstanding packet not yet reported and last sent before that stamp
 *     is lost: the sender sends those again (first) and nothing else.  A
 *     timeout sends again the highest such packet, a probe whose answer
 *     marks the rest.  Over routes that reorder (per-packet routing) no
 *     stamp says what was lost: a timeout sends again every outstanding
 *     packet not yet reported.
 *   - ECN (cc = dcqcn): RED on the egress data queue at enqueue: no mark up to
 *     kmin bytes, probability pmax x (q - kmin) / (kmax - kmin) up to kmax,
 *     always above; (cc = dctcp) a mark whenever the queue holds more than
 *     dctcp_k bytes.
 *   - in-band telemetry (cc = hpcc): every egress a data packet starts on
 *     stamps its queue, bytes sent, time and bandwidth into it (up to
 *     CS_CC_INT_HOPS records; the bytes are not added to the wire).
 *   - delay (cc = swift, timely): every ACK or NAK echoes its data packet's
 *     send time; the receiver answers at once, so now - that time is the
 *     NIC-to-NIC round trip, Swift's fabric delay (no endhost delay).  A
 *     retransmit timeout is told to the control (cs_cc_ops.timeout).
 *   - loss_rate: every data packet is lost with that probability on every
 *     link it crosses (bit errors; for transport studies).
 * PFC deadlock (packet_pfc.c): in lossless mode a retransmit timeout first
 * checks whether a set of paused links can never resume (each held off by
 * packets that wait on another such link); if so the run stops (the
 * network halts the engine) and describe_pending names the cycle.
 * Random choices (ECN marks, losses) come from one generator seeded by
 * `seed` and are drawn in event order: the same inputs give the same bytes.
 *
 * Events: per packet and hop one transmission end (key: link) and one
 * arrival; per paused or resumed link one PFC event; a pacing wake-up per
 * source port (at most one pending); one event for every retransmit timer
 * (a heap of deadlines of the flows with packets outstanding).  A flow,
 * paused or not, keeps no timer when it has nothing outstanding, and a
 * finished flow none at all, so a run always drains.
 *
 * Flows.csv: a flow's row (start, delivery, packets sent, its uncontended
 * time) is kept when the flow is freed, up to flow_rows rows (then a
 * warning), and handed up by the report.
 *
 * Ownership: flows (ids recycled) with their selective-repeat state,
 * packets (a pool), per-link ports and statistics, per-node buffers, the
 * flows.csv rows, the router, and the product of the dimensions when no
 * topology was given.  The topology is borrowed.
 */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/invariant.h"
#include "core/log.h"
#include "core/pool.h"
#include "core/rand.h"
#include "network/network.h"
#include "network/packet.h"
#include "network/packet_cc.h"
#include "network/packet_int.h"
#include "topology/route.h"
#include "topology/topology.h"

/* ---- options ------------------------------------------------------------------ */

static const char *const PKT_ROUTINGS[] = {"topology", "ecmp", "spray", "packet-spray", "flowlet", "adaptive", NULL};
static const char *const PKT_RTXS[] = {"go-back-n", "selective-repeat", NULL};
static const char *const PKT_TCP_CCS[] = {"newreno", "cubic", NULL}; /* index = CS_TCP_NEWRENO, CS_TCP_CUBIC */
static const char *const PKT_PRIO_OFS[] = {"tclass", "qp", "type", NULL}; /* index = PKT_PRIO_* */
static const char *const PKT_QPS[] = {"pair", "message", NULL}; /* index = PKT_QP_* */
static const char *const PKT_CHS[] = {"connections", "merged", NULL}; /* index = PKT_CH_* */
static const char *const PKT_TCPCS[] = {"persistent", "message", NULL}; /* index = PKT_TCPC_* */
static const char *const PKT_SCHEDS[] = {"strict", "dwrr", NULL};
static const char *const PKT_VOQS[] = {"none", "spine", "all", NULL};

#define O(f) offsetof(pkt_opts, f)
static const cs_opt PKT_OPTS[] = {
    {.key = "mtu", .type = CS_OPT_INT, .def = 4096, .min = 64, .max = 65536, .unit = "bytes", .off = O(mtu),
     .help = "payload bytes per packet (RoCE path MTU)"},
    {.key = "overhead", .type = CS_OPT_INT, .def = 82, .min = 1, .max = 1024, .unit = "bytes", .off = O(overhead),
     .help = "wire bytes per packet besides the payload: preamble+IFG 20, Ethernet 14+4, IPv4 20, UDP 8, BTH 12, ICRC 4"},
    {.key = "pfc", .type = CS_OPT_BOOL, .def = 1, .off = O(pfc),
     .help = "1: lossless (PFC pauses the upstream port, headroom per ingress link); 0: lossy (drops; recovery: retransmit)"},
    {.key = "cut_through", .type = CS_OPT_BOOL, .def = 0, .off = O(cut_through),
     .help = "forward a packet once its headers arrived (when the next link is not faster); 0: store-and-forward"},
    {.key = "buffer", .type = CS_OPT_NUM, .def = 33554432, .min = 0, .min_open = 1, .max = 1e12, .unit = "bytes",
     .off = O(buffer_bytes), .help = "packet buffer of every switch (and NIC or NPU that forwards), shared by its ports"},
    {.key = "alpha", .type = CS_OPT_NUM, .def = 0.125, .min = 0, .min_open = 1, .max = 1e6, .off = O(alpha),
     .help = "dynamic threshold: a queue (lossy) or an ingress link (PFC) may hold alpha x the free shared bytes"},
    {.key = "cc", .type = CS_OPT_ENUM, .def = CS_CC_none, .values = cs_cc_names, .off = O(cc),
     .help = "congestion control: none (line rate; PFC only), dcqcn (ECN marks, CNPs, rate control), dctcp "
             "(ECN marks echoed per ACK, a window), timely (RTT gradient, a rate), hpcc (in-band telemetry, "
             "a window) or swift (delay against a target, a window; paced below one packet)"},
    {.key = "queue_pairs", .type = CS_OPT_ENUM, .def = PKT_QP_PAIR, .values = PKT_QPS, .off = O(queue_pairs),
     .help = "transport rc: pair (one queue pair per source, destination and class: its messages go in order, "
             "one after the other, and share one congestion control state, kept across messages as a NIC keeps "
             "it) or message (every message a queue pair of its own: messages of a pair interleave packet by "
             "packet and each starts its control afresh at line rate)"},
    {.key = "channels", .type = CS_OPT_ENUM, .def = PKT_CH_CONNECTIONS, .values = PKT_CHS, .off = O(channels),
     .help = "a message the system stripes over NCCL channels (collective-model nccl, across nodes): connections "
             "(one flow per channel, each its own queue pair hashed onto its own ECMP path, as NCCL's channels are "
             "connections of their own) or merged (the message is one flow: one queue pair and path per pair)"},
    {.key = "kmin", .type = CS_OPT_NUM, .def = 5120, .min = 0, .max = 1e12, .unit = "bytes", .off = O(kmin_bytes),
     .help = "ECN: no mark at or below this egress queue (DCQCN paper: 5 KB)"},
    {.key = "kmax", .type = CS_OPT_NUM, .def = 204800, .min = 0, .max = 1e12, .unit = "bytes", .off = O(kmax_bytes),
     .help = "ECN: every packet marked above this egress queue (DCQCN paper: 200 KB)"},
    {.key = "pmax", .type = CS_OPT_NUM, .def = 0.01, .min = 0, .max = 1, .off = O(pmax),
     .help = "ECN: marking probability at kmax (DCQCN paper: 1%)"},
    {.key = "dcqcn_g", .type = CS_OPT_NUM, .def = 1.0 / 256, .min = 0, .min_open = 1, .max = 1, .off = O(dcqcn_g),
     .help = "DCQCN alpha gain g (1/256)"},
    {.key = "dcqcn_alpha_period", .type = CS_OPT_NUM, .def = 55, .min = 0, .min_open = 1, .max = 1e9, .unit = "us",
     .off = O(dcqcn_alpha_us), .help = "DCQCN alpha decay period K"},
    {.key = "dcqcn_timer", .type = CS_OPT_NUM, .def = 55, .min = 0, .min_open = 1, .max = 1e9, .unit = "us",
     .off = O(dcqcn_timer_us), .help = "DCQCN rate increase timer T"},
    {.key = "dcqcn_byte_counter", .type = CS_OPT_NUM, .def = 10485760, .min = 0, .min_open = 1, .max = 1e15,
     .unit = "bytes", .off = O(dcqcn_bytes), .help = "DCQCN rate increase byte counter B (10 MB)"},
    {.key = "dcqcn_f", .type = CS_OPT_INT, .def = 5, .min = 0, .max = 1000, .off = O(dcqcn_f),
     .help = "DCQCN fast recovery stages F"},
    {.key = "dcqcn_rai", .type = CS_OPT_NUM, .def = 0.04, .min = 0, .max = 1e6, .unit = "Gb/s", .off = O(dcqcn_rai_gbps),
     .help = "DCQCN additive increase R_AI (40 Mb/s)"},
    {.key = "dcqcn_rhai", .type = CS_OPT_NUM, .def = 0.4, .min = 0, .max = 1e6, .unit = "Gb/s",
     .off = O(dcqcn_rhai_gbps), .help = "DCQCN hyper increase R_HAI (400 Mb/s: 10 x R_AI, our choice)"},
    {.key = "dcqcn_min_rate", .type = CS_OPT_NUM, .def = 0.1, .min = 0, .min_open = 1, .max = 1e6, .unit = "Gb/s",
     .off = O(dcqcn_min_gbps), .help = "DCQCN floor of the current rate"},
    {.key = "cnp_interval", .type = CS_OPT_NUM, .def = 50, .min = 0, .max = 1e9, .unit = "us", .off = O(cnp_interval_us),
     .help = "DCQCN notification point: at most one CNP per flow per interval (50 us)"},
    {.key = "dctcp_g", .type = CS_OPT_NUM, .def = 1.0 / 16, .min = 0, .min_open = 1, .max = 1, .off = O(dctcp_g),
     .help = "DCTCP alpha gain g (1/16, Alizadeh et al. 2010)"},
    {.key = "dctcp_k", .type = CS_OPT_NUM, .def = 97500, .min = 0, .max = 1e12, .unit = "bytes",
     .off = O(dctcp_k_bytes),
     .help = "DCTCP: a data packet is ECN-marked when its egress queue holds more than this (65 packets of "
             "1500 bytes, the paper's K at 10 Gb/s; it asks K > C x RTT / 7)"},
    {.key = "timely_tlow", .type = CS_OPT_NUM, .def = 50, .min = 0, .max = 1e9, .unit = "us",
     .off = O(timely_tlow_us), .help = "TIMELY: below this RTT, additive increase (50 us)"},
    {.key = "timely_thigh", .type = CS_OPT_NUM, .def = 500, .min = 0, .min_open = 1, .max = 1e9, .unit = "us",
     .off = O(timely_thigh_us), .help = "TIMELY: above this RTT, multiplicative decrease (500 us)"},
    {.key = "timely_delta", .type = CS_OPT_NUM, .def = 0.01, .min = 0, .max = 1e6, .unit = "Gb/s",
     .off = O(timely_delta_gbps), .help = "TIMELY additive step delta (10 Mb/s)"},
    {.key = "timely_beta", .type = CS_OPT_NUM, .def = 0.8, .min = 0, .max = 1, .off = O(timely_beta),
     .help = "TIMELY multiplicative decrease beta (0.8)"},
    {.key = "timely_alpha", .type = CS_OPT_NUM, .def = 0.875, .min = 0, .max = 1, .off = O(timely_alpha),
     .help = "TIMELY EWMA gain alpha of the RTT difference (0.875)"},
    {.key = "timely_hai", .type = CS_OPT_INT, .def = 5, .min = 1, .max = 1 << 20, .off = O(timely_hai),
     .help = "TIMELY: from this many RTT samples in a row with a gradient <= 0, increase by 5 delta (5)"},
    {.key = "timely_min_rtt", .type = CS_OPT_NUM, .def = 20, .min = 0, .max = 1e9, .unit = "us",
     .off = O(timely_min_rtt_us),
     .help = "TIMELY minRTT, normalizes the gradient (20 us; 0: each flow's own round trip alone on its route)"},
    {.key = "timely_min_rate", .type = CS_OPT_NUM, .def = 0.1, .min = 0, .min_open = 1, .max = 1e6, .unit = "Gb/s",
     .off = O(timely_min_gbps), .help = "TIMELY floor of the rate"},
    {.key = "hpcc_eta", .type = CS_OPT_NUM, .def = 0.95, .min = 0, .min_open = 1, .max = 1, .off = O(hpcc_eta),
     .help = "HPCC target utilization eta (0.95)"},
    {.key = "hpcc_max_stage", .type = CS_OPT_INT, .def = 5, .min = 0, .max = 1 << 20, .off = O(hpcc_max_stage),
     .help = "HPCC additive increases before a multiplicative update, maxStage (5)"},
    {.key = "hpcc_wai", .type = CS_OPT_NUM, .def = 80, .min = 0, .max = 1e12, .unit = "bytes",
     .off = O(hpcc_wai_bytes), .help = "HPCC additive increase W_AI (80 bytes)"},
    {.key = "hpcc_base_rtt", .type = CS_OPT_NUM, .def = 0, .min = 0, .max = 1e9, .unit = "us",
     .off = O(hpcc_base_rtt_us),
     .help = "HPCC base round trip T (0: each flow's own round trip alone on its route)"},
    {.key = "swift_base_target", .type = CS_OPT_NUM, .def = 20, .min = 0, .max = 1e9, .unit = "us",
     .off = O(swift_base_us), .help = "Swift base target delay (20 us; our choice, see docs/network.md)"},
    {.key = "swift_h", .type = CS_OPT_NUM, .def = 1, .min = 0, .max = 1e9, .unit = "us", .off = O(swift_h_us),
     .help = "Swift topology scaling: target delay added per switch on the route (1 us)"},
    {.key = "swift_fs_range", .type = CS_OPT_NUM, .def = 100, .min = 0, .max = 1e9, .unit = "us",
     .off = O(swift_fs_range_us), .help = "Swift flow scaling: the most it adds to the target (100 us = 5 x base)"},
    {.key = "swift_fs_min_cwnd", .type = CS_OPT_NUM, .def = 0.1, .min = 0, .min_open = 1, .max = 1e9,
     .unit = "packets", .off = O(swift_fs_min_cwnd), .help = "Swift flow scaling: fs_range is reached at this window"},
    {.key = "swift_fs_max_cwnd", .type = CS_OPT_NUM, .def = 100, .min = 0, .min_open = 1, .max = 1e9,
     .unit = "packets", .off = O(swift_fs_max_cwnd), .help = "Swift flow scaling: 0 from this window on"},
    {.key = "swift_ai", .type = CS_OPT_NUM, .def = 1, .min = 0, .max = 1e9, .unit = "packets", .off = O(swift_ai),
     .help = "Swift additive increase per round trip below the target (1 packet)"},
    {.key = "swift_beta", .type = CS_OPT_NUM, .def = 0.8, .min = 0, .max = 1, .off = O(swift_beta),
     .help = "Swift multiplicative decrease constant beta (0.8)"},
    {.key = "swift_max_mdf", .type = CS_OPT_NUM, .def = 0.5, .min = 0, .max = 1, .off = O(swift_max_mdf),
     .help = "Swift largest decrease per round trip, and the cut at a loss (0.5)"},
    {.key = "swift_min_cwnd", .type = CS_OPT_NUM, .def = 0.001, .min = 0, .min_open = 1, .max = 1e9,
     .unit = "packets", .off = O(swift_min_cwnd), .help = "Swift smallest window (0.001 packets; paced below 1)"},
    {.key = "swift_max_cwnd", .type = CS_OPT_NUM, .def = 0, .min = 0, .max = 1e12, .unit = "packets",
     .off = O(swift_max_cwnd),
     .help = "Swift largest window (0: the flow's line rate x (its base round trip + its base "
             "target delay with hop scaling))"},
    {.key = "swift_init_cwnd", .type = CS_OPT_NUM, .def = 0, .min = 0, .max = 1e12, .unit = "packets",
     .off = O(swift_init_cwnd),
     .help = "Swift initial window (0: the flow's line rate x its base round trip, at most swift_max_cwnd)"},
    {.key = "swift_retx_reset", .type = CS_OPT_INT, .def = 3, .min = 1, .max = 1 << 20, .off = O(swift_retx_reset),
     .help = "Swift: this many retransmit timeouts in a row set the window to swift_min_cwnd"},
    {.key = "ack_every", .type = CS_OPT_INT, .def = 16, .min = 1, .max = 1 << 20, .unit = "packets", .off = O(ack_every),
     .help = "the receiver ACKs every this many in-order packets, and the last"},
    {.key = "window", .type = CS_OPT_NUM, .def = 0, .min = 0, .max = 1e15, .unit = "bytes", .off = O(window_bytes),
     .help = "largest unacknowledged payload per flow (0: no limit, as RoCE RC)"},
    {.key = "rto", .type = CS_OPT_NUM, .def = 268435.456, .min = 0, .min_open = 1, .max = 1e9, .unit = "us",
     .off = O(rto_us),
     .help = "retransmit timeout: no ACK progress for this long goes back to the oldest unacknowledged packet "
             "(4.096 us x 2^16; lossy studies use far less, IRN 320 us)"},
    {.key = "pfc_watchdog", .type = CS_OPT_NUM, .def = 1000, .min = 0, .max = 1e9, .unit = "us",
     .off = O(pfc_watchdog_us),
     .help = "lossless: check for a PFC deadlock this often while any link is paused (it stops the run, naming "
             "the cycle); 0: only when a retransmit timeout fires"},
    {.key = "retry_limit", .type = CS_OPT_INT, .def = 7, .min = 0, .max = 1 << 20, .off = O(retry_limit),
     .help = "timeouts in a row without progress after which a flow stops and the run reports it (RC retry_cnt)"},
    {.key = "retransmit", .type = CS_OPT_ENUM, .def = PKT_RTX_GBN, .values = PKT_RTXS, .off = O(retransmit),
     .help = "loss recovery: go-back-n (the receiver drops packets past a gap, the sender resends from it) or "
             "selective-repeat (the receiver keeps them and names each one it got past the gap; the sender resends "
             "only the lost packets)"},
    {.key = "sr_window", .type = CS_OPT_INT, .def = 1024, .min = 1, .max = 1 << 20, .unit = "packets",
     .off = O(sr_window),
     .help = "selective-repeat: packets the receiver keeps past a gap per flow, and so the most a sender has "
             "outstanding (with window, the smaller)"},
    {.key = "loss_rate", .type = CS_OPT_NUM, .def = 0, .min = 0, .max = 0.5, .off = O(loss_rate),
     .help = "probability that a data packet is lost on each link it crosses (bit errors)"},
    {.key = "seed", .type = CS_OPT_INT, .def = 1, .min = 0, .max = (double)INT32_MAX, .off = O(seed),
     .help = "seed of the random choices (ECN marks, losses)"},
    {.key = "ecmp_seed", .type = CS_OPT_INT, .def = -1, .min = -1, .max = (double)INT32_MAX, .off = O(ecmp_seed),
     .help = "seed of ECMP hashing (-1 = the topology's ecmp_seed)"},
    {.key = "routing", .type = CS_OPT_ENUM, .def = PKT_ROUTING_TOPOLOGY, .values = PKT_ROUTINGS, .off = O(routing),
     .help = "topology: as the topology says; ecmp: one path per (src, dst) pair; spray: a path per message; "
             "packet-spray: the packets of a message cycle over its equal-cost paths; flowlet: a message moves to "
             "another equal-cost path after a gap of flowlet_gap between its packets; adaptive: every switch sends "
             "a packet to the equal-cost next link with the shortest queue"},
    {.key = "flowlet_gap", .type = CS_OPT_NUM, .def = 50, .min = 0, .min_open = 1, .max = 1e9, .unit = "us",
     .off = O(flowlet_gap_us),
     .help = "routing flowlet: a gap longer than this between two packets of a message starts a new flowlet on a "
             "newly hashed path (our choice: well above a round trip, so that flowlets rarely reorder)"},
    {.key = "transport", .type = CS_OPT_ENUM, .def = CS_TR_rc, .values = cs_tr_names, .off = O(transport),
     .help = "rc: RoCE RC queue pairs (go-back-n or selective-repeat, cc); tcp: segments of mtu bytes, cumulative "
             "ACKs, slow start, fast retransmit and recovery, RFC 6298 timer, tcp_cc windows; udp: paced at "
             "udp_rate, never sent again (a message completes with its lost bytes reported)"},
    {.key = "tcp_cc", .type = CS_OPT_ENUM, .def = CS_TCP_NEWRENO, .values = PKT_TCP_CCS, .off = O(tcp_cc),
     .help = "transport tcp: the congestion window law, newreno (RFC 5681, RFC 6582) or cubic (RFC 9438)"},
    {.key = "tcp_iw", .type = CS_OPT_INT, .def = 10, .min = 1, .max = 1 << 20, .unit = "segments", .off = O(tcp_iw),
     .help = "transport tcp: initial window (10 segments: RFC 6928, Linux)"},
    {.key = "tcp_ecn", .type = CS_OPT_BOOL, .def = 0, .off = O(tcp_ecn),
     .help = "transport tcp: ECN (RFC 3168): switches mark data packets by RED (kmin, kmax, pmax), the receiver "
             "echoes the marks, the sender cuts its window as for a loss, at most once per window of data"},
    {.key = "tcp_connections", .type = CS_OPT_ENUM, .def = PKT_TCPC_PERSISTENT, .values = PKT_TCPCS,
     .off = O(tcp_connections),
     .help = "transport tcp: persistent (one connection per source, destination, class and channel: its messages "
             "go in order, one after the other, under one congestion window and RTT estimate kept across them) or "
             "message (every message a new connection in slow start)"},
    {.key = "tcp_idle_restart", .type = CS_OPT_BOOL, .def = 1, .off = O(tcp_idle_restart),
     .help = "transport tcp, persistent connections: a connection idle for longer than its retransmit timeout "
             "starts its next message with cwnd = min(cwnd, tcp_iw) (RFC 5681 4.1; Linux's "
             "tcp_slow_start_after_idle, on by default); false keeps the window"},
    {.key = "tcp_min_rto", .type = CS_OPT_NUM, .def = 200000, .min = 0, .min_open = 1, .max = 1e9, .unit = "us",
     .off = O(tcp_min_rto_us),
     .help = "transport tcp: floor of the retransmit timeout (200 ms: Linux's TCP_RTO_MIN; RFC 6298 says 1 s; "
             "datacenter studies use 1 ms or less)"},
    {.key = "cubic_c", .type = CS_OPT_NUM, .def = 0.4, .min = 0, .min_open = 1, .max = 1e6, .off = O(cubic_c),
     .help = "tcp_cc cubic: C, segments per second cubed (0.4: RFC 9438)"},
    {.key = "cubic_beta", .type = CS_OPT_NUM, .def = 0.7, .min = 0, .min_open = 1, .max = 0.999,
     .off = O(cubic_beta), .help = "tcp_cc cubic: multiplicative decrease beta (0.7: RFC 9438)"},
    {.key = "udp_rate", .type = CS_OPT_NUM, .def = 0, .min = 0, .max = 1e9, .unit = "Gb/s", .off = O(udp_rate_gbps),
     .help = "transport udp: each message's sending rate (0: the line rate of its first link)"},
    {.key = "drop_psn", .type = CS_OPT_INT, .def = -1, .min = -1, .max = (double)INT32_MAX, .off = O(drop_psn),
     .help = "a test hook: the first transmission of data packet number drop_psn of every message is lost on its "
             "first link (-1: none)"},
    {.key = "util_window", .type = CS_OPT_NUM, .def = 10, .min = 0.001, .max = 1e9, .unit = "us",
     .off = O(util_window_us),
     .help = "timelines (--trace): the links' utilization track is each link's busy fraction over windows of "
             "this length (our choice: 10 us; at least 1 ns)"},
    {.key = "flow_rows", .type = CS_OPT_INT, .def = 1 << 20, .min = 0, .max = 1 << 26, .unit = "rows",
     .off = O(flow_rows),
     .help = "flows.csv keeps the first this many flows (56 bytes each); a warning says when later ones are left out"},
    {.key = "priorities", .type = CS_OPT_INT, .def = 1, .min = 1, .max = PKT_MAXPRIO, .unit = "classes",
     .off = O(priorities),
     .help = "lossless traffic classes (802.1Qbb priorities): each has its own egress FIFO, ingress accounting, "
             "PFC headroom and PFC pause, so a paused class does not stop another (1: one class, as before)"},
    {.key = "priority_of", .type = CS_OPT_ENUM, .def = PKT_PRIO_TCLASS, .values = PKT_PRIO_OFS,
     .off = O(priority_of),
     .help = "a message's class: tclass (the traffic class the caller gives it: a cluster job's traffic_class, "
             "else 0), qp (its queue pair: message key hashed over the classes) or type (collectives in class 0, "
             "the workload's point-to-point sends -- pipeline activations -- in p2p_class)"},
    {.key = "p2p_class", .type = CS_OPT_INT, .def = 1, .min = 0, .max = PKT_MAXPRIO - 1, .off = O(p2p_class),
     .help = "priority_of type: the class of point-to-point sends (below priorities)"},
    {.key = "scheduler", .type = CS_OPT_ENUM, .def = PKT_SCHED_DWRR, .values = PKT_SCHEDS, .off = O(scheduler),
     .help = "egress scheduling between classes: strict (the highest class first) or dwrr (deficit weighted round "
             "robin, dwrr_weights x one wire MTU per round)"},
    {.key = "dwrr_weights", .type = CS_OPT_STR, .off = O(dwrr_weights),
     .help = "dwrr: a weight per class, comma-separated integers 1..1000 from class 0 up (unset: all 1)"},
    {.key = "voq", .type = CS_OPT_ENUM, .def = PKT_VOQ_NONE, .values = PKT_VOQS, .off = O(voq),
     .help = "switches modelled as VOQ cell-fabric deep-buffer chassis (Jericho-class): none (every switch "
             "shared-buffer output-queued), spine (the switches with no NPU or NIC attached) or all"},
    {.key = "voq_buffer", .type = CS_OPT_NUM, .def = 8589934592.0, .min = 0, .min_open = 1, .max = 1e15,
     .unit = "bytes", .off = O(voq_buffer_bytes),
     .help = "packet buffer of a VOQ chassis (8 GiB: a Jericho2's HBM; buffer applies to the other switches)"},
    {.key = "voq_credit", .type = CS_OPT_NUM, .def = 4096, .min = 64, .max = 1e9, .unit = "bytes",
     .off = O(voq_credit_bytes),
     .help = "VOQ chassis: bytes an egress port's credit scheduler grants a virtual output queue per turn"},
    {.key = "voq_fabric_latency", .type = CS_OPT_NUM, .def = 0, .min = 0, .max = 1e9, .unit = "ns",
     .off = O(voq_fabric_latency_ns),
     .help = "VOQ chassis: time a packet takes to cross the cell fabric from its ingress to its egress port (0: "
             "none; set it from the chassis' datasheet)"},
    {.key = "voq_cell", .type = CS_OPT_INT, .def = 0, .min = 0, .max = 65536, .unit = "bytes",
     .off = O(voq_cell_bytes),
     .help = "VOQ chassis: payload bytes of a fabric cell (0: no cells); a packet crosses the fabric as whole "
             "cells, each with voq_cell_header bytes more, at voq_speedup x its egress port's bandwidth"},
    {.key = "voq_cell_header", .type = CS_OPT_INT, .def = 0, .min = 0, .max = 65536, .unit = "bytes",
     .off = O(voq_cell_header_bytes), .help = "VOQ chassis: header bytes a fabric cell adds to its payload"},
    {.key = "voq_speedup", .type = CS_OPT_NUM, .def = 1, .min = 0.01, .max = 1000,
     .off = O(voq_speedup),
     .help = "VOQ chassis: the fabric's bandwidth towards an egress port over the port's own (1: equal)"},
};
#undef O

/* ---- state -------------------------------------------------------------------- */


/* ---- small helpers --------------------------------------------------------------- */

/* A uniform double in [0, 1) from the backend's stream. */
static double rnd(pkt_state *s) { return cs_rand_unit(cs_rand_next(&s->rng)); }

cs_time pkt_ser_ps(uint64_t bytes, double bw) {
    double ps = ceil((double)bytes * 1000.0 / bw);
    if (ps < 1) ps = 1;
    if (ps >= 1.8e19) return CS_TIME_MAX;
    return (cs_time)ps;
}
#define ser_ps pkt_ser_ps

/* The same in double, unbounded (closed forms and messages). */
static double ser_d(uint64_t bytes, double bw) {
    double ps = ceil((double)bytes * 1000.0 / bw);
    return ps < 1 ? 1 : ps;
}

static inline cs_time now_of(const pkt_state *s) { return cs_eventq_now(s->q); }
static inline const cs_link *lk(const pkt_state *s, uint32_t l) { return &s->topo->links[l]; }

static void pkt_destroy(void *state);

/* ---- create ------------------------------------------------------------------------ */

/* dwrr_weights ("w0,w1,...", one per class; unset: all 1) into s->quantum:
 * weight x wire MTU bytes per round. */
static int parse_weights(pkt_state *s, cs_error *err) {
    uint64_t wmtu = (uint64_t)s->o.mtu + (uint64_t)s->o.overhead;
    uint32_t w[PKT_MAXPRIO];
    int rc = cs_packet_parse_weights(s->o.dwrr_weights, s->npri, w, err);
    if (rc) return rc;
    for (uint32_t c = 0; c < PKT_MAXPRIO; c++) s->quantum[c] = (int64_t)(c < s->npri ? w[c] : 1) * (int64_t)wmtu;
    return CS_OK;
}

int cs_packet_parse_weights(const char *spec, uint32_t nclasses, uint32_t *w, cs_error *err) {
    for (uint32_t c = 0; c < nclasses; c++) w[c] = 1;
    if (!spec) return CS_OK;
    uint32_t c = 0;
    for (const char *q = spec;;) {
        char *end;
        long v = strtol(q, &end, 10);
        if (end == q || v < 1 || v > 1000 || c >= nclasses || (*end && *end != ','))
            return CS_ERR(err, CS_EINVAL,
                          "backend.packet.dwrr_weights: \"%s\"; expected %u comma-separated integers 1..1000 (one "
                          "per class of backend.packet.priorities)", spec, nclasses);
        w[c++] = (uint32_t)v;
        if (!*end) break;
        q = end + 1;
    }
    if (c != nclasses)
        return CS_ERR(err, CS_EINVAL,
                      "backend.packet.dwrr_weights: \"%s\" gives %u weights; expected %u (one per class of "
                      "backend.packet.priorities)", spec, c, nclasses);
    return CS_OK;
}

/* Whether node v is a VOQ chassis (its egress links have VOQs). */
static int is_voq(const pkt_state *s, uint32_t v) {
    const cs_topo *t = s->topo;
    return s->vq && t->out_off[v] < t->out_off[v + 1] && s->vq[t->out_idx[t->out_off[v]]];
}

/* The VOQs of the chassis that backend.packet.voq names: every switch
 * (all), or those with no NPU or NIC among their neighbours (spine). */
static void voq_build(pkt_state *s) {
    const cs_topo *t = s->topo;
    s->voq_credit = (int64_t)s->o.voq_credit_bytes;
    s->fab_lat = (cs_time)llround(s->o.voq_fabric_latency_ns * 1000.0);
    s->cell = (uint64_t)s->o.voq_cell_bytes;
    s->cell_hdr = (uint64_t)s->o.voq_cell_header_bytes;
    s->fabric = s->fab_lat > 0 || s->cell > 0;
    s->vq = cs_calloc(t->nlinks ? t->nlinks : 1, sizeof *s->vq);
    s->in_pos = cs_calloc(t->nlinks ? t->nlinks : 1, sizeof *s->in_pos);
    for (uint32_t v = 0; v < t->nnodes; v++)
        for (uint32_t i = t->in_off[v]; i < t->in_off[v + 1]; i++) s->in_pos[t->in_idx[i]] = i - t->in_off[v];
    for (uint32_t v = 0; v < t->nnodes; v++) {
        if (t->kind[v] != CS_NODE_SWITCH) continue;
        uint32_t nin = t->in_off[v + 1] - t->in_off[v];
        if (s->o.voq == PKT_VOQ_SPINE) {
            int edge = 0;
            for (uint32_t i = t->in_off[v]; i < t->in_off[v + 1]; i++) {
                uint8_t k = t->kind[t->links[t->in_idx[i]].src];
                edge |= k == CS_NODE_NPU || k == CS_NODE_NIC;
            }
            if (edge) continue;
        }
        if (!nin) continue;
        for (uint32_t j = t->out_off[v]; j < t->out_off[v + 1]; j++) {
            size_t n = (size_t)nin * s->npri;
            pvoq *V = cs_calloc(1, sizeof *V + n * (2 * sizeof(pkt *) + sizeof(int64_t)));
            V->nin = nin;
            V->qh = (pkt **)(V + 1);
            V->qt = V->qh + n;
            V->def = (int64_t *)(V->qt + n);
            s->vq[t->out_idx[j]] = V;
        }
    }
}

/* A packet leaving a VOQ chassis crosses the chassis' cell fabric first
 * (docs/network.md, "VOQ chassis"): it takes voq_fabric_latency more to
 * reach the far node (fab_of: the fabric is pipelined, so the latency takes
 * nothing from the port's rate), and with cells the port is held for the
 * longer of its own serialization and the fabric's, ceil(wire / cell) cells
 * of cell + header bytes at voq_speedup x the port's bandwidth (occ_of: the
 * egress port sends what the fabric delivers, its line idle while the
 * fabric is the bottleneck).  ACKs and NAKs cross it too; PFC frames leave
 * by the port whose ingress they pause and do not.  Off a chassis, or
 * without a fabric: no latency, the port's own serialization ser. */
static inline cs_time fab_of(const pkt_state *s, uint32_t l) { return s->fabric && s->vq[l] ? s->fab_lat : 0; }

/* Whether link l's packets cross cells; the fabric bytes of a packet of `wire` bytes. */
static inline int has_cells(const pkt_state *s, uint32_t l) { return s->fabric && s->cell && s->vq[l]; }
static inline uint64_t cell_bytes(const pkt_state *s, uint64_t wire) {
    return (wire + s->cell - 1) / s->cell * (s->cell + s->cell_hdr);
}

static cs_time occ_of(const pkt_state *s, uint32_t l, uint64_t wire, cs_time ser) {
    if (!has_cells(s, l)) return ser;
    cs_time f = ser_ps(cell_bytes(s, wire), s->bw[l] * s->o.voq_speedup);
    return f > ser ? f : ser;
}

/* occ_of in double, unbounded (closed forms). */
static double occ_d(const pkt_state *s, uint32_t l, uint64_t wire) {
    double ser = ser_d(wire, s->bw[l]);
    if (!has_cells(s, l)) return ser;
    double f = ser_d(cell_bytes(s, wire), s->bw[l] * s->o.voq_speedup);
    return f > ser ? f : ser;
}

static int pkt_create(const cs_net_env *env, void **state, cs_error *err) {
    pkt_state *s = cs_calloc(1, sizeof *s);
    *state = s;
    s->q = env->q;
    if (env->observer) s->obs = *env->observer;
    s->o = *(const pkt_opts *)env->opts;
    int rc = cs_net_graph(env, &s->topo, &s->own_topo, err);
    if (rc) goto fail;
    const cs_topo *t = s->topo;
    if (t->nchanges && !env->healthy) {
        rc = CS_ERR(err, CS_EUNSUPPORTED,
                    "backend packet: the topology (%s) has %u timed changes (links or switches going down or "
                    "degraded during the run); the packet backend applies failures from the start only -- use "
                    "--backend flow for timed changes", t->desc ? t->desc : "?", t->nchanges);
        goto fail;
    }
    if (s->o.kmax_bytes < s->o.kmin_bytes) {
        rc = CS_ERR(err, CS_EINVAL, "backend.packet.kmax: %.17g bytes is below backend.packet.kmin (%.17g bytes); "
                    "expected kmin <= kmax", s->o.kmax_bytes, s->o.kmin_bytes);
        goto fail;
    }
    s->wire_mtu = (uint64_t)s->o.mtu + (uint64_t)s->o.overhead;
    s->rto = (cs_time)llround(s->o.rto_us * 1e6);
    s->wd_interval = s->o.pfc ? (cs_time)llround(s->o.pfc_watchdog_us * 1e6) : 0;
    s->cnp_interval = (cs_time)llround(s->o.cnp_interval_us * 1e6);
    s->cc = cs_cc_table[s->o.cc];
    s->tr = cs_tr_table[s->o.transport];
    s->tcp = (cs_tcp_params){.law = s->o.tcp_cc, .mss = s->o.mtu, .iw = s->o.tcp_iw, .c = s->o.cubic_c,
                             .beta = s->o.cubic_beta};
    s->tcp_min_rto = (cs_time)llround(s->o.tcp_min_rto_us * 1e6);
    if (s->tr->check && (rc = s->tr->check(s, err))) goto fail;
    s->ccp.dcqcn = (cs_dcqcn_params){.g = s->o.dcqcn_g,
                                     .alpha_period = (cs_time)llround(s->o.dcqcn_alpha_us * 1e6),
                                     .timer_period = (cs_time)llround(s->o.dcqcn_timer_us * 1e6),
                                     .byte_counter = (uint64_t)s->o.dcqcn_bytes,
                                     .f = (uint32_t)s->o.dcqcn_f,
                                     .rai = s->o.dcqcn_rai_gbps / 8,
                                     .rhai = s->o.dcqcn_rhai_gbps / 8,
                                     .min_rate = s->o.dcqcn_min_gbps / 8};
    s->ccp.dctcp = (cs_dctcp_params){.g = s->o.dctcp_g};
    s->ccp.timely = (cs_timely_params){.tlow = (cs_time)llround(s->o.timely_tlow_us * 1e6),
                                       .thigh = (cs_time)llround(s->o.timely_thigh_us * 1e6),
                                       .delta = s->o.timely_delta_gbps / 8,
                                       .beta = s->o.timely_beta,
                                       .alpha = s->o.timely_alpha,
                                       .hai = (uint32_t)s->o.timely_hai,
                                       .min_rtt = (cs_time)llround(s->o.timely_min_rtt_us * 1e6),
                                       .min_rate = s->o.timely_min_gbps / 8};
    s->ccp.hpcc = (cs_hpcc_params){.eta = s->o.hpcc_eta,
                                   .max_stage = (uint32_t)s->o.hpcc_max_stage,
                                   .w_ai = s->o.hpcc_wai_bytes,
                                   .base_rtt = (cs_time)llround(s->o.hpcc_base_rtt_us * 1e6)};
    s->ccp.swift = (cs_swift_params){.base_target = (cs_time)llround(s->o.swift_base_us * 1e6),
                                     .hop_scale = (cs_time)llround(s->o.swift_h_us * 1e6),
                                     .fs_range = (cs_time)llround(s->o.swift_fs_range_us * 1e6),
                                     .fs_min_cwnd = s->o.swift_fs_min_cwnd,
                                     .fs_max_cwnd = s->o.swift_fs_max_cwnd,
                                     .ai = s->o.swift_ai,
                                     .beta = s->o.swift_beta,
                                     .max_mdf = s->o.swift_max_mdf,
                                     .min_cwnd = s->o.swift_min_cwnd,
                                     .max_cwnd = s->o.swift_max_cwnd,
                                     .init_cwnd = s->o.swift_init_cwnd,
                                     .retx_reset = (uint32_t)s->o.swift_retx_reset};
    s->ack_every = s->cc->feedback & CS_CC_ACK_EACH ? 1 : (uint32_t)s->o.ack_every;
    if (s->cc->feedback & CS_CC_INT) s->ints = cs_pool_new(CS_CC_INT_HOPS * sizeof(cs_int_hop));
    s->rng = 0x5EED0000ULL ^ (uint64_t)s->o.seed;
    s->sr_win = s->o.retransmit == PKT_RTX_SR && s->o.transport == CS_TR_rc ? (uint32_t)s->o.sr_window : 0;
    size_t nl = t->nlinks ? t->nlinks : 1;
    s->bw = cs_malloc(nl * sizeof *s->bw);
    int same = 1; /* the topology's own bandwidths: the router reads those */
    for (uint32_t l = 0; l < t->nlinks; l++) {
        s->bw[l] = env->healthy ? t->links[l].nominal_bw : t->links[l].bw;
        same &= s->bw[l] == t->links[l].bw;
    }
    s->npri = (uint32_t)s->o.priorities;
    if (s->o.priority_of == PKT_PRIO_TYPE && (uint32_t)s->o.p2p_class >= s->npri) {
        rc = CS_ERR(err, CS_EINVAL, "backend.packet.p2p_class: class %d with backend.packet.priorities %u; expected "
                    "a class below priorities (priority_of type puts point-to-point sends there)", s->o.p2p_class,
                    s->npri);
        goto fail;
    }
    for (uint64_t r = 0; s->o.priority_of == PKT_PRIO_TCLASS && env->rank_tclass && r < env->cfg->total_npus; r++)
        if (env->rank_tclass[r] >= s->npri) { /* (checked here, not at the rank's first message) */
            rc = CS_ERR(err, CS_EINVAL, "rank %" PRIu64 ": traffic class %u; expected below backend.packet.priorities "
                        "(%u)", r, env->rank_tclass[r], s->npri);
            goto fail;
        }
    if ((rc = parse_weights(s, err))) goto fail;
    s->ports_mem = cs_calloc(1, (size_t)nl * sizeof *s->ports + 63); /* the array on a cache line */
    s->ports = (port *)(((uintptr_t)s->ports_mem + 63) & ~(uintptr_t)63);
    if (s->npri > 1) s->pcs = cs_calloc(nl * (s->npri - 1), sizeof *s->pcs);
    s->nodes = cs_calloc(t->nnodes ? t->nnodes : 1, sizeof *s->nodes);
    for (size_t i = 0; i < nl; i++) s->ports[i].cls0.ring = NONE;
    for (size_t i = 0; s->npri > 1 && i < nl * (s->npri - 1); i++) s->pcs[i].ring = NONE;
    if (s->o.voq == PKT_VOQ_NONE) { /* the cell fabric's options: of VOQ chassis only */
        const char *k = s->o.voq_cell_bytes > 0            ? "voq_cell"
                        : s->o.voq_cell_header_bytes > 0   ? "voq_cell_header"
                        : s->o.voq_fabric_latency_ns > 0   ? "voq_fabric_latency"
                        : s->o.voq_speedup != 1            ? "voq_speedup"
                                                           : NULL;
        if (k) {
            rc = CS_ERR(err, CS_EINVAL,
                        "backend.packet.%s: applies to VOQ chassis, and backend.packet.voq is none; expected voq "
                        "spine or all (or no %s)", k, k);
            goto fail;
        }
    }
    if (s->o.voq_cell_header_bytes > 0 && s->o.voq_cell_bytes == 0) {
        rc = CS_ERR(err, CS_EINVAL, "backend.packet.voq_cell_header: %d bytes of header on no cells; expected "
                    "voq_cell set too (the cell's payload bytes)", s->o.voq_cell_header_bytes);
        goto fail;
    }
    if (s->o.voq != PKT_VOQ_NONE) voq_build(s);
    /* buffers: headroom per ingress link and class (PFC), the rest shared */
    for (uint32_t v = 0; v < t->nnodes; v++) {
        uint64_t head = 0;
        double buf = is_voq(s, v) ? s->o.voq_buffer_bytes : s->o.buffer_bytes;
        if (s->o.pfc)
            for (uint32_t i = t->in_off[v]; i < t->in_off[v + 1]; i++) {
                uint32_t l = t->in_idx[i];
                double bw = s->bw[l];
                uint64_t h = (uint64_t)ceil(2.0 * cs_time_as_ns_f(lk(s, l)->lat) * bw) + 2 * s->wire_mtu + CTRL_WIRE;
                /* from a VOQ chassis: what its fabric holds in flight when the pause comes, too */
                h += (uint64_t)ceil(cs_time_as_ns_f(fab_of(s, l)) * bw);
                s->ports[l].headroom = h;
                head += h * s->npri;
            }
        if ((double)head >= buf && t->kind[v] != CS_NODE_NPU) {
            rc = CS_ERR(err, CS_EINVAL,
                        "backend.packet.%s: %.17g bytes per switch leaves nothing shared at %s %u, whose %u "
                        "ingress links reserve %llu bytes of PFC headroom (2 x latency x bandwidth + 2 MTU + 64 "
                        "bytes each%s); expected a larger buffer", is_voq(s, v) ? "voq_buffer" : "buffer", buf,
                        cs_node_kind_name((cs_node_kind)t->kind[v]), v, t->in_off[v + 1] - t->in_off[v],
                        (unsigned long long)head, s->npri > 1 ? ", per class" : "");
            goto fail;
        }
        s->nodes[v].shared = (double)head < buf ? (uint64_t)buf - head : 0;
    }
    uint64_t seed = s->o.ecmp_seed >= 0 ? (uint64_t)s->o.ecmp_seed : t->ecmp_seed;
    int spray = s->o.routing == PKT_ROUTING_ECMP ? 0 : s->o.routing == PKT_ROUTING_SPRAY ? 1 : -1;
    s->hbh = s->o.routing == PKT_ROUTING_PSPRAY || s->o.routing == PKT_ROUTING_FLOWLET ||
             s->o.routing == PKT_ROUTING_ADAPTIVE;
    s->reorders = s->hbh;
    s->flowlet_gap = (cs_time)llround(s->o.flowlet_gap_us * 1e6);
    if (s->obs.link_util) {
        s->util_w = (cs_time)llround(s->o.util_window_us * 1e6);
        if (s->util_w < 1) s->util_w = 1;
        s->util = cs_calloc(t->nlinks ? t->nlinks : 1, sizeof *s->util);
    }
    s->halt = env->halt;
    s->router = cs_router_new_ex(t, seed, spray, same ? NULL : s->bw);
    /* queue pairs follow the routing's: per message paths (spraying without
     * QP-aware ECMP) leave every message a queue pair of its own; QP-aware
     * ECMP's key mod qps names the pair's queue pair (qp_join) */
    int per_msg = spray < 0 ? t->spray : spray;                 /* as cs_router_route_msg decides */
    s->qp_qps = per_msg && spray < 0 ? t->qps : 0;               /* QP-aware ECMP's queue pairs per pair */
    s->qp_on = ((s->o.queue_pairs == PKT_QP_PAIR && s->o.transport == CS_TR_rc) ||
                (s->o.tcp_connections == PKT_TCPC_PERSISTENT && s->o.transport == CS_TR_tcp)) &&
               (!per_msg || s->qp_qps);
    s->pkts = cs_pool_new(sizeof(pkt));
    s->stripes = cs_pool_new(cs_net_stripe_size());
    /* deferred arrivals: where a data packet's arrival at its destination can
     * be told in advance (one FIFO path per flow, no random loss: every
     * packet that starts on the last link arrives, in order) and only the
     * rc / go-back-N receiver takes it (no telemetry pool) */
    s->defer = s->tr->data == NULL && s->tr->ctrl == NULL && !s->sr_win && !(s->o.loss_rate > 0) &&
               s->o.drop_psn < 0 && !s->hbh && !s->reorders && !s->ints;
    if (s->defer) s->dq = cs_calloc(nl, sizeof *s->dq);
    return CS_OK;
fail:
    pkt_destroy(s);
    *state = NULL;
    return rc;
}

static void pkt_destroy(void *state) {
    pkt_state *s = state;
    if (!s) return;
    for (size_t i = 0; i < s->nflows_alloc; i++)
        if (s->flows[i].live) {
            cs_free(s->flows[i].path);
            cs_free(s->flows[i].sr_txn);
            if (s->flows[i].qp == NONE) cs_free(s->flows[i].ccs);
            cs_free(s->flows[i].trs);
        }
    cs_free(s->flows_mem);
    for (size_t i = 0; i < s->nqps; i++) {
        cs_free(s->qps[i].ccs);
        cs_free(s->qps[i].trc);
    }
    cs_free(s->qps);
    cs_free(s->qph);
    cs_free(s->rows);
    cs_free(s->heap);
    cs_free(s->free_ids);
    if (s->vq)
        for (uint32_t l = 0; l < s->topo->nlinks; l++) cs_free(s->vq[l]);
    cs_free(s->vq);
    cs_free(s->in_pos);
    cs_free(s->ports_mem);
    cs_free(s->pcs);
    cs_free(s->bw);
    cs_free(s->nodes);
    cs_free(s->cand);
    if (s->dq)
        for (uint32_t l = 0; l < s->topo->nlinks; l++) cs_free(s->dq[l].e);
    cs_free(s->dq);
    cs_free(s->dq_act);
    if (s->pkts) cs_pool_free(s->pkts);
    if (s->stripes) cs_pool_free(s->stripes);
    cs_free(s->util);
    if (s->ints) cs_pool_free(s->ints);
    cs_router_free(s->router);
    cs_topo_free(s->own_topo);
    cs_free(s);
}

/* ---- flows ---------------------------------------------------------------------------- */

static cs_net_flow_row row_of(const pflow *f) {
    return (cs_net_flow_row){.src = f->src, .dst = f->dst, .bytes = f->bytes, .start = f->start, .finish = f->finish,
                             .ideal = f->ideal, .packets = f->npkts, .sent = f->sent,
                             .delivered = f->delivered ? f->bytes - f->lost_bytes : f->got_bytes};
}

/* The flows.csv row of delivered flow f (its transmissions are final once
 * it is freed), or a count of the rows left out beyond flow_rows. */
static void keep_row(pkt_state *s, const pflow *f) {
    if (s->nrows >= (size_t)s->o.flow_rows) {
        if (!s->rows_omitted++)
            cs_warn("backend.packet.flow_rows: more than %d flows; flows.csv keeps the first %d (raise "
                    "backend.packet.flow_rows for all of them)", s->o.flow_rows, s->o.flow_rows);
        return;
    }
    CS_GROW(s->rows, s->caprows, s->nrows + 1);
    s->rows[s->nrows++] = row_of(f);
}

static void on_wake(void *ctx, const cs_event *ev);
static void qp_advance(pkt_state *s, uint32_t q);

/* Flow id leaves its queue pair's live flows (the state stays with the pair). */
static void qp_unlink(pkt_state *s, uint32_t id) {
    pflow *f = &s->flows[id];
    if (f->qp == NONE) return;
    uint32_t q = f->qp;
    uint32_t *at = &s->qps[q].live;
    while (*at != id) at = &s->flows[*at].qp_next;
    *at = f->qp_next;
    f->qp = NONE;
    f->ccs = NULL; /* the pair's */
    qp_advance(s, q);
}

/* Flow id onto its source port's send ring, last in the round (before the
 * ring's head); the port is not started.  Its first link, or NONE when it
 * was on the ring already or has no route. */
static uint32_t ring_insert(pkt_state *s, uint32_t id) {
    pflow *f = &s->flows[id];
    if (f->in_ring || f->npath == 0) return NONE;
    uint32_t l = f->path[0];
    pclass *C = pkt_pc(s, l, f->prio);
    C->nring++;
    if (C->ring == NONE) {
        f->ring_next = f->ring_prev = id;
        C->ring = id;
    } else { /* before the ring's head: last in the round */
        pflow *h = &s->flows[C->ring];
        f->ring_next = C->ring;
        f->ring_prev = h->ring_prev;
        s->flows[h->ring_prev].ring_next = id;
        h->ring_prev = id;
    }
    f->in_ring = 1;
    return l;
}

/* Port l's wake-up (on_wake) at `at`, unless one is armed no later. */
static void port_wake_at(pkt_state *s, uint32_t l, cs_time at) {
    port *P = &s->ports[l];
    if (P->wake_ev && P->wake_at <= at) return;
    if (P->wake_ev) cs_eventq_cancel(s->q, P->wake_ev - 1);
    P->wake_at = at;
    P->wake_ev = cs_eventq_push(s->q, at, ((uint64_t)l << 3) | 3, on_wake, s, l) + 1;
}

/* Flow id onto its source port's send ring without starting the port now
 * (the caller may be choosing that port's next packet): an idle port is
 * woken by an event at this instant. */
static void ring_add_later(pkt_state *s, uint32_t id) {
    uint32_t l = ring_insert(s, id);
    if (l != NONE && !s->ports[l].busy) port_wake_at(s, l, now_of(s));
}

/* Queue pair q's oldest parked message starts (onto the send ring) once
 * every message before it has sent its last packet (or failed). */
static void qp_advance(pkt_state *s, uint32_t q) {
    for (uint32_t g = s->qps[q].live; g != NONE; g = s->flows[g].qp_next) {
        pflow *h = &s->flows[g];
        if (h->failed) continue;
        if (h->parked) {
            h->parked = 0;
            ring_add_later(s, g);
            return;
        }
        if (h->snd_nxt < h->npkts) return; /* still sending */
    }
}

static void free_flow(pkt_state *s, uint32_t id) {
    pflow *f = &s->flows[id];
    if (f->delivered) keep_row(s, f);
    qp_unlink(s, id);
    if (f->timed) s->nlive_timers--;
    f->timed = 0;
    f->gen++;
    cs_free(f->path);
    f->path = f->rpath = NULL;
    cs_free(f->sr_txn);
    cs_free(f->ccs);
    f->ccs = NULL;
    cs_free(f->trs);
    f->trs = NULL;
    f->sr_flag = f->sr_got = NULL;
    f->sr_txn = NULL;
    f->live = 0;
    CS_GROW(s->free_ids, s->cap_free, s->nfree + 1);
    s->free_ids[s->nfree++] = id;
}

/* A flow whose receiver is done, whose sender has everything acknowledged
 * (or stopped) and of which no packet is left anywhere is freed. */
static void maybe_free(pkt_state *s, uint32_t id) {
    pflow *f = &s->flows[id];
    if (f->inflight || f->in_ring || f->held) return;
    if (f->failed || (f->delivered && f->snd_una == f->npkts)) free_flow(s, id);
}

#define ring_add pkt_ring_add
#define arm_rto pkt_arm_rto
static void port_kick(pkt_state *s, uint32_t l);

/* ---- transmission ------------------------------------------------------------------------- */

static void on_tx_end(void *ctx, const cs_event *ev);
#define qp_wake pkt_qp_wake
static void qp_join(pkt_state *s, uint32_t id, uint32_t chan, const cs_cc_flow *cf, cs_time now);
static void on_arrive(void *ctx, const cs_event *ev);
static int defer_arrival(pkt_state *s, uint32_t l, pkt *p, cs_time at);
static void dq_drain_all(pkt_state *s, cs_time until, int incl);
static void dq_fail(pkt_state *s, uint32_t id);

static void fifo_push(pkt **qh, pkt **qt, pkt *p) {
    p->next = NULL;
    if (*qt) (*qt)->next = p;
    else *qh = p;
    *qt = p;
}

static pkt *fifo_pop(pkt **qh, pkt **qt) {
    pkt *p = *qh;
    if (!p) return NULL;
    *qh = p->next;
    if (!*qh) *qt = NULL;
    else __builtin_prefetch(*qh); /* the next to pop (a hint): its first touch is a cache miss otherwise */
    return p;
}

/* Flow id leaves the send ring of its class at its first link. */
static void ring_unlink(pkt_state *s, uint32_t id) {
    pflow *f = &s->flows[id];
    pclass *C = pkt_pc(s, f->path[0], f->prio);
    if (C->nring == 1) {
        C->ring = NONE;
    } else {
        s->flows[f->ring_prev].ring_next = f->ring_next;
        s->flows[f->ring_next].ring_prev = f->ring_prev;
        if (C->ring == id) C->ring = f->ring_next;
    }
    C->nring--;
    f->in_ring = 0;
}

/* Packets outstanding (sent, not acknowledged) against flow f's window: its
 * own, or, in a queue pair, those of every live flow of the pair. */
uint64_t pkt_qp_outstanding(const pkt_state *s, const pflow *f) {
    if (f->qp == NONE) return f->snd_nxt - f->snd_una;
    uint64_t n = 0;
    for (uint32_t g = s->qps[f->qp].live; g != NONE && !s->flows[g].parked; g = s->flows[g].qp_next)
        if (!s->flows[g].failed) n += s->flows[g].snd_nxt - s->flows[g].snd_una;
    return n;
}

/* A data packet of class c from a flow starting at this port's NPU, or NULL
 * (then, when a flow waits for its pacing, a wake-up is armed). */
static pkt *from_ring(pkt_state *s, uint32_t l, uint32_t c) {
    pclass *C = pkt_pc(s, l, c);
    cs_time now = now_of(s), wake = CS_TIME_MAX;
    uint32_t steps = C->nring, id = C->ring;
    while (steps-- && id != NONE) {
        pflow *f = &s->flows[id];
        uint32_t next = f->ring_next;
        int can = f->snd_nxt < f->npkts && !f->failed;
        if (s->tr->may_send) can = s->tr->may_send(s, f);
        else if (can && s->o.window_bytes > 0 && (double)(f->snd_nxt - f->snd_una) * s->o.mtu >= s->o.window_bytes)
            can = 0;
        if (can && s->cc->window) { /* the control's window (an ACK brings the flow back) */
            double w = s->cc->window(f->ccs);
            if (w > 0 && (double)pkt_qp_outstanding(s, f) * s->o.mtu >= w) can = 0;
        }
        if (s->sr_win) { /* selective repeat: the lost packets first, new ones within the receiver's buffer */
            if (can && f->snd_nxt - f->snd_una >= s->sr_win) can = 0;
            if (f->nlost && !f->failed) can = 1;
        }
        if (!can) { /* nothing to send until an ACK, NAK or timeout: leave the ring */
            ring_unlink(s, id);
            maybe_free(s, id);
            id = C->ring == NONE ? NONE : next;
            continue;
        }
        if (s->cc->advance) s->cc->advance(f->ccs, &s->ccp, now);
        cs_time *next_tx = f->qp != NONE ? &s->qps[f->qp].next_tx : &f->next_tx; /* a pair paces as one */
        if (*next_tx <= now) {
            pkt *p = cs_pool_get(s->pkts);
            memset(p, 0, sizeof *p);
            p->flow = id;
            if (s->tr->next_psn) {
                p->psn = s->tr->next_psn(s, f, &p->rtx);
            } else if (s->sr_win && f->nlost) { /* the lowest psn marked lost */
                while (!(f->sr_flag[f->rtx_lo % s->sr_win] & SR_LOST)) f->rtx_lo++;
                p->psn = f->rtx_lo++;
                f->sr_flag[p->psn % s->sr_win] &= (uint8_t)~SR_LOST;
                f->nlost--;
                p->rtx = 1;
                s->st.retransmitted++;
            } else {
                p->psn = f->snd_nxt++;
            }
            p->payload = p->psn + 1 == f->npkts ? f->last_payload : (uint32_t)s->o.mtu;
            p->wire = p->payload + (uint32_t)s->o.overhead;
            p->type = PK_DATA;
            p->prio = f->prio;
            p->path = f->path;
            p->npath = f->npath;
            p->in_link = NONE;
            p->sack = NONE;
            p->ts = now;
            pkt_route_start(s, f, p);
            if (s->ints) p->intr = cs_pool_get(s->ints);
            if (s->sr_win) f->sr_txn[p->psn % s->sr_win] = p->tx = f->tx_stamp++;
            f->sent++;
            if (!p->rtx && f->snd_una + 1 == f->snd_nxt) f->last_progress = now; /* the first packet outstanding */
            double rate = s->cc->rate ? s->cc->rate(f->ccs) : 0;
            *next_tx = rate > 0 ? now + ser_ps(p->wire, rate) : now;
            if (s->cc->sent) s->cc->sent(f->ccs, &s->ccp, now, p->wire);
            if (s->tr->sent) s->tr->sent(s, f, p);
            f->inflight++;
            arm_rto(s, id);
            /* round robin: the next flow goes first next time; a flow that has
             * sent its last packet leaves the ring (a NAK or timeout brings it
             * back), so that it can be freed once acknowledged */
            if (f->snd_nxt >= f->npkts && !f->nlost && !(s->tr->may_send && s->tr->may_send(s, f)))
                ring_unlink(s, id);
            else C->ring = next;
            if (C->ring != NONE) { /* the flow whose turn is next: its first two lines (a hint) */
                const pflow *g = &s->flows[C->ring];
                __builtin_prefetch(g);
                __builtin_prefetch((const char *)g + 64);
            }
            if (f->qp != NONE && f->snd_nxt == f->npkts && f->qp_next != NONE) qp_advance(s, f->qp);
            return p;
        }
        if (*next_tx < wake) wake = *next_tx;
        id = next;
    }
    if (wake != CS_TIME_MAX) port_wake_at(s, l, wake);
    return NULL;
}

static void on_wake(void *ctx, const cs_event *ev) {
    pkt_state *s = ctx;
    s->ports[ev->arg].wake_ev = 0;
    port_kick(s, (uint32_t)ev->arg);
}

/* The next packet of class c from the VOQs of an egress port (some hold
 * one): the credit scheduler's turn goes round the ingress links; a queue
 * starts packets while its credit (deficit) is positive, each charged its
 * wire bytes, and is granted voq_credit bytes (up to that) when its turn
 * comes; an empty queue keeps none. */
static pkt *voq_pop(pkt_state *s, pvoq *V, uint32_t c) {
    uint32_t n = V->nin;
    size_t base = (size_t)c * n;
    for (;;) { /* ends: some queue holds a packet, and its credit grows by voq_credit at each of its turns */
        size_t i = base + V->rr[c];
        if (V->qh[i] && V->def[i] > 0) {
            pkt *p = fifo_pop(&V->qh[i], &V->qt[i]);
            V->def[i] -= p->wire;
            return p;
        }
        if (!V->qh[i]) V->def[i] = 0;
        V->rr[c] = (V->rr[c] + 1) % n;
        size_t j = base + V->rr[c];
        if (V->qh[j]) {
            V->def[j] += s->voq_credit;
            if (V->def[j] > s->voq_credit) V->def[j] = s->voq_credit;
        }
    }
}

/* A data packet of class c for link l: forwarded packets and the NPU's own
 * flows in turn, or NULL. */
static pkt *from_class(pkt_state *s, uint32_t l, uint32_t c) {
    port *P = &s->ports[l];
    pclass *C = pkt_pc(s, l, c);
    pkt *p = NULL;
    int have_q = C->qbytes > 0, have_r = C->ring != NONE;
    if (have_r && (!have_q || C->turn)) {
        p = from_ring(s, l, c);
        if (p) C->turn = 0;
    }
    if (!p && have_q) {
        p = s->vq && s->vq[l] ? voq_pop(s, s->vq[l], c) : fifo_pop(&C->qh, &C->qt);
        P->qbytes -= p->wire;
        C->qbytes -= p->wire;
        C->turn = 1;
        if (s->obs.link_queue) s->obs.link_queue(s->obs.ud, l, now_of(s), P->qbytes, P->paused != 0);
    }
    return p;
}

/* Whether class c of link l has data waiting (queued or flows to send) and is not paused. */
static int class_ready(const pkt_state *s, uint32_t l, uint32_t c) {
    const pclass *C = pkt_pc(s, l, c);
    return !(s->ports[l].paused >> c & 1) && (C->qbytes || C->ring != NONE);
}

/* The next data packet on link l between its classes: strict priority (the
 * highest class that has one) or deficit weighted round robin (each class,
 * in turn, starts packets while its deficit is positive, the deficit
 * charged their wire bytes and topped up by its quantum, at most to it,
 * when its turn comes; a class with nothing keeps no deficit).  With one
 * class: that class. */
static pkt *next_data(pkt_state *s, uint32_t l) {
    port *P = &s->ports[l];
    uint32_t n = s->npri;
    if (n == 1) return P->paused ? NULL : from_class(s, l, 0);
    if (s->o.scheduler == PKT_SCHED_STRICT) {
        for (uint32_t c = n; c-- > 0;)
            if (class_ready(s, l, c)) {
                pkt *p = from_class(s, l, c);
                if (p) return p;
            }
        return NULL;
    }
    for (uint32_t k = 0; k <= 2 * n; k++) {
        uint32_t c = P->rr;
        pclass *C = pkt_pc(s, l, c);
        if (class_ready(s, l, c) && C->deficit > 0) {
            pkt *p = from_class(s, l, c);
            if (p) {
                C->deficit -= p->wire;
                return p;
            }
        }
        /* its turn ends: the next class's begins */
        if (!C->qbytes && C->ring == NONE) C->deficit = 0;
        P->rr = (uint8_t)((c + 1) % n);
        pclass *D = pkt_pc(s, l, P->rr);
        if (class_ready(s, l, P->rr)) {
            D->deficit += s->quantum[P->rr];
            if (D->deficit > s->quantum[P->rr]) D->deficit = s->quantum[P->rr];
        }
    }
    return NULL;
}

/* Start the next packet on link l if it is idle: control first, then data
 * (next_data: the classes that are not paused). */
static void port_kick(pkt_state *s, uint32_t l) {
    port *P = &s->ports[l];
    if (P->busy || !(s->bw[l] > 0)) return;
    pkt *p = fifo_pop(&P->qh, &P->qt);
    if (!p) p = next_data(s, l);
    if (!p) return;
    cs_time now = now_of(s);
    double bw = s->bw[l];
    if (p->wire != P->memo_wire || bw != P->memo_bw) {
        P->memo_wire = p->wire;
        P->memo_bw = bw;
        P->memo_ser = ser_ps(p->wire, bw);
    }
    cs_time ser = P->memo_ser, occ = ser, fab = 0;
    if (__builtin_expect(s->fabric, 0)) {
        occ = occ_of(s, l, p->wire, ser);
        fab = fab_of(s, l);
    }
    if (s->ints) P->tx_wire += p->wire; /* (read only by in-band telemetry) */
    /* in-band telemetry: this egress as a data packet leaves (an ACK or NAK
     * carries its data packet's records back unchanged: the route back's
     * egresses are not the data's path) */
    if (p->intr && p->type == PK_DATA && p->nint < CS_CC_INT_HOPS)
        p->intr[p->nint++] = (cs_int_hop){.qlen_bytes = P->qbytes, .tx_bytes = P->tx_wire, .ts = now, .bw = bw};
    P->busy = 1;
    P->busy_since = now + (occ - ser); /* (the line sends in the last ser of it: busy time counts that) */
    P->cur_in_link = p->in_link;
    P->cur_wire = p->wire;
    P->cur_payload = p->payload;
    P->cur_data = p->type == PK_DATA;
    P->cur_prio = p->prio;
    pkt_pc(s, l, p->prio)->wire_data += P->cur_data;
    cs_eventq_push(s->q, now + occ, ((uint64_t)l << 3) | 0, on_tx_end, s, l);
    /* the far node: its last bit (store-and-forward, and always at the
     * destination) or its headers (cut-through onto a link not faster);
     * from a VOQ chassis, after its fabric (occ_of, fab_of) */
    uint32_t n = p->npath;
    const uint32_t *path = p->path;
    cs_time at = now + occ;
    if (s->o.cut_through && (p->hbh ? pkt_route_cut_through(s, p, l)
                                    : p->hop + 1 < n && s->bw[path[p->hop + 1]] <= bw))
        at = now + (occ - ser) + ser_ps((uint64_t)s->o.overhead, bw);
    at += lk(s, l)->lat + fab;
    if (s->defer && P->cur_data && p->hop + 1 == n && defer_arrival(s, l, p, at)) return;
    cs_eventq_push(s->q, at, ((uint64_t)l << 3) | 1, on_arrive, s, (uint64_t)(uintptr_t)p);
}

/* ---- PFC --------------------------------------------------------------------------------------- */

/* The PFC watchdog: while a class of a link is paused, a deadlock check
 * (packet_pfc.c) every wd_interval -- the first one wd_interval after a
 * pause that finds nothing else paused; when the last pause ends the
 * pending check is cancelled (a deadlock keeps its links paused for good,
 * so it is checked at most wd_interval after it forms).  Its key is above
 * every arrival's (the deferred ones due at its time are applied first) and
 * below the retransmit timers'.  The check only reads, so the run's results
 * are those without it; a deadlock stops the run.  It does not arm itself
 * again when it is the only event left (the run would never end): a pause
 * that outlives all traffic (held by a link that can never send, not by a
 * cycle) then costs one check, the run's last event. */
static void on_watchdog(void *ctx, const cs_event *ev);

/* A PFC deadlock check (packet_pfc.c) at now, by the watchdog or at a
 * retransmit timeout: 1 when it found one -- the run stops, and neither the
 * timers nor the watchdog run again. */
static int deadlock_check(pkt_state *s, cs_time now) {
    s->st.deadlock_checks++;
    /* (it reads the data in flight per link: the deferred arrivals due now come first, their key being below
     * the timers' and the watchdog's) */
    if (s->defer) dq_drain_all(s, now, 1);
    if (!pkt_pfc_deadlock(s)) return 0;
    s->nheap = 0;
    if (s->timer_ev) cs_eventq_cancel(s->q, s->timer_ev - 1);
    if (s->wd_ev) cs_eventq_cancel(s->q, s->wd_ev - 1);
    s->timer_ev = s->wd_ev = 0;
    return 1;
}

static void watchdog_arm(pkt_state *s, cs_time now) {
    s->wd_ev = cs_eventq_push(s->q, cs_time_add(now, s->wd_interval), UINT64_MAX - 2, on_watchdog, s, 0) + 1;
}

static void on_watchdog(void *ctx, const cs_event *ev) {
    (void)ev;
    pkt_state *s = ctx;
    s->wd_ev = 0;
    if (s->deadlocked || !s->npaused) return; /* (the next pause arms it again) */
    cs_time now = now_of(s);
    if (deadlock_check(s, now)) return;
    /* again later, unless nothing else is pending: then nothing can change any more (a link that can
     * never send, not a cycle, holds the pause), and the run ends.  (The size counts cancelled events
     * too: with only those left it re-arms until they have passed.) */
    if (cs_eventq_size(s->q)) watchdog_arm(s, now);
}

static void on_pfc(void *ctx, const cs_event *ev) {
    pkt_state *s = ctx;
    uint32_t l = (uint32_t)(ev->arg >> 4), c = (uint32_t)(ev->arg >> 1 & 7);
    int pause = (int)(ev->arg & 1);
    port *P = &s->ports[l];
    pclass *C = pkt_pc(s, l, c);
    cs_time now = now_of(s);
    uint8_t bit = (uint8_t)(1u << c);
    C->pfc_pending--;
    if (pause && !(P->paused & bit)) {
        P->paused |= bit;
        C->pause_since = now;
        if (!s->npaused++ && s->wd_interval && !s->wd_ev && !s->deadlocked) watchdog_arm(s, now);
        s->st.pauses++;
        if (c < PKT_MAXPRIO) s->st.class_pauses[c]++;
        if (s->obs.link_queue) s->obs.link_queue(s->obs.ud, l, now, P->qbytes, 1);
    } else if (!pause && (P->paused & bit)) {
        P->paused &= (uint8_t)~bit;
        if (!--s->npaused && s->wd_ev) { /* nothing paused: no check until the next pause */
            cs_eventq_cancel(s->q, s->wd_ev - 1);
            s->wd_ev = 0;
        }
        C->pause_time += now - C->pause_since;
        if (s->obs.link_queue) s->obs.link_queue(s->obs.ud, l, now, P->qbytes, P->paused != 0);
        port_kick(s, l);
    }
}

/* The far node of link l pauses (1) or resumes (0) its class c: a frame on
 * the link back, ser + lat later at the upstream port. */
static void send_pfc(pkt_state *s, uint32_t l, uint32_t c, int pause) {
    port *P = &s->ports[l];
    if (pause) P->xoff |= (uint8_t)(1u << c);
    else P->xoff &= (uint8_t)~(1u << c);
    pkt_pc(s, l, c)->pfc_pending++;
    uint32_t back = cs_topo_find_link(s->topo, lk(s, l)->dst, lk(s, l)->src);
    double bw = back != UINT32_MAX && s->bw[back] > 0 ? s->bw[back] : s->bw[l];
    cs_time lat = back != UINT32_MAX ? lk(s, back)->lat : lk(s, l)->lat;
    cs_eventq_push(s->q, now_of(s) + ser_ps(CTRL_WIRE, bw) + lat, ((uint64_t)l << 3) | 2, on_pfc, s,
                   ((uint64_t)l << 4) | ((uint64_t)c << 1) | (uint64_t)pause);
}

static uint64_t threshold(const pkt_state *s, uint32_t v) {
    const pnode *N = &s->nodes[v];
    uint64_t free = N->shared > N->used ? N->shared - N->used : 0;
    return (uint64_t)(s->o.alpha * (double)free);
}

/* The packet that link l was sending leaves the buffer of node v (the
 * link's source) as the port accounted it. */
static void release(pkt_state *s, uint32_t v, port *P) {
    if (P->cur_in_link == NONE) return; /* from its source, or a control packet: in no buffer */
    uint32_t c = P->cur_prio;
    pclass *I = pkt_pc(s, P->cur_in_link, c);
    /* the ingress counter gives back headroom first, then shared bytes (as a
     * switch MMU does): XON does not wait for the packets that went to the
     * headroom, which sit at the tail of the queues */
    uint64_t w = P->cur_wire, h = I->in_head < w ? I->in_head : w;
    I->in_head -= h;
    I->in_shared -= w - h;
    s->nodes[v].used -= w - h;
    if (s->o.pfc && (s->ports[P->cur_in_link].xoff >> c & 1) && I->in_head == 0) {
        uint64_t thr = threshold(s, v), off = 2 * s->wire_mtu;
        if (I->in_shared + off <= thr || I->in_shared == 0) send_pfc(s, P->cur_in_link, c, 0);
    }
}

/* Admit data packet p (of class p->prio), arrived at node v over link in,
 * into v's buffer for egress link out: the accounting of its ingress link
 * and class.  0: dropped (counted). */
static int admit(pkt_state *s, uint32_t v, uint32_t in, uint32_t out, pkt *p) {
    pnode *N = &s->nodes[v];
    uint32_t c = p->prio;
    pclass *I = pkt_pc(s, in, c), *EC = pkt_pc(s, out, c);
    port *E = &s->ports[out];
    uint64_t thr = threshold(s, v);
    if (s->o.pfc) {
        if (I->in_shared < thr && N->used + p->wire <= N->shared) {
            I->in_shared += p->wire;
            N->used += p->wire;
        } else if (I->in_head + p->wire <= s->ports[in].headroom) {
            I->in_head += p->wire;
        } else {
            E->drops++;
            s->st.headroom_drops++;
            return 0;
        }
        if (!(s->ports[in].xoff >> c & 1) && (I->in_head || I->in_shared >= threshold(s, v))) send_pfc(s, in, c, 1);
    } else {
        if ((double)(EC->qbytes + p->wire) > s->o.alpha * (double)(N->shared > N->used ? N->shared - N->used : 0) ||
            N->used + p->wire > N->shared) {
            E->drops++;
            s->st.drops++;
            return 0;
        }
        I->in_shared += p->wire;
        N->used += p->wire;
    }
    return 1;
}

/* ---- endpoints ----------------------------------------------------------------------------------- */

/* A control packet of flow id (ACK, NAK: psn = the receiver's next expected;
 * CNP) onto the route back.  An ACK or NAK answers data packet `from`: it
 * echoes its send time and telemetry (taken over) and carries the marked
 * payload the receiver took since its previous answer. */
static void send_ctrl_sr(pkt_state *s, uint32_t id, int type, uint32_t psn, uint32_t sack, uint32_t tx, pkt *from) {
    pflow *f = &s->flows[id];
    pkt *p = cs_pool_get(s->pkts);
    memset(p, 0, sizeof *p);
    p->flow = id;
    p->psn = psn;
    p->sack = sack;
    p->tx = tx;
    p->wire = CTRL_WIRE;
    p->type = (uint8_t)type;
    p->path = f->rpath;
    p->npath = f->nrpath;
    p->in_link = NONE;
    if (from) {
        p->ts = from->ts;
        p->ce_bytes = f->rcv_ce < UINT32_MAX ? (uint32_t)f->rcv_ce : UINT32_MAX;
        f->rcv_ce = 0;
        p->intr = from->intr;
        p->nint = from->nint;
        from->intr = NULL;
        from->nint = 0;
    }
    f->inflight++;
    s->st.ctrl_packets++;
    /* a flow with packets has src != dst, so a route back of at least one link */
    fifo_push(&s->ports[f->rpath[0]].qh, &s->ports[f->rpath[0]].qt, p);
    port_kick(s, f->rpath[0]);
}

static void send_ctrl(pkt_state *s, uint32_t id, int type, uint32_t psn, pkt *from) {
    send_ctrl_sr(s, id, type, psn, NONE, 0, from);
}

void pkt_send_ctrl(pkt_state *s, uint32_t id, int type, uint32_t psn, pkt *from) { send_ctrl(s, id, type, psn, from); }

uint32_t pkt_payload_of(const pkt_state *s, const pflow *f, uint32_t psn) {
    return psn + 1 == f->npkts ? f->last_payload : (uint32_t)s->o.mtu;
}
#define payload_of pkt_payload_of

/* The last in-order packet of flow id has arrived. */
/* Flow id's message is complete: its finish time, its done callback (which may send: s->flows may move). */
static void complete(pkt_state *s, uint32_t id) {
    pflow *f = &s->flows[id];
    cs_time now = now_of(s);
    f->finish = now;
    s->st.fct_sum_ns += cs_time_as_ns_f(now - f->start);
    s->st.flows_done++;
    f->done(f->ctx, f->cookie);
}

/* Whether a message of flow id's queue pair older than it is neither complete nor failed. */
static int qp_older_open(const pkt_state *s, uint32_t id) {
    for (uint32_t g = s->qps[s->flows[id].qp].live; g != id; g = s->flows[g].qp_next) {
        const pflow *h = &s->flows[g];
        if (!h->failed && (!h->delivered || h->held)) return 1;
    }
    return 0;
}

/* Queue pair q's held messages complete, oldest first, up to its first open one (not delivered, not
 * failed). */
static void qp_complete_ready(pkt_state *s, uint32_t q) {
    uint32_t g = s->qps[q].live;
    while (g != NONE) {
        const pflow *h = &s->flows[g];
        if (!h->failed && !h->delivered) return;
        if (!h->held) {
            g = h->qp_next;
            continue;
        }
        s->flows[g].held = 0;
        complete(s, g);
        uint32_t next = s->flows[g].qp_next;
        maybe_free(s, g);
        g = next;
    }
}

/* Messages of a queue pair (or persistent tcp connection) complete in order, as an RC QP's
 * completions and a TCP byte stream's messages do: one delivered while an older one is still open
 * is held until that one completes (or fails). */
void pkt_delivered(pkt_state *s, uint32_t id) {
    pflow *f = &s->flows[id];
    f->delivered = 1;
    f->finish = now_of(s);
    if (f->qp != NONE && qp_older_open(s, id)) {
        f->held = 1;
        return;
    }
    uint32_t q = f->qp;
    complete(s, id);
    if (q != NONE && s->flows[id].qp_next != NONE) qp_complete_ready(s, q);
}

/* A data packet reached its receiver marked or not: a CNP for the congestion
 * controls that take them (at most one per cnp_interval and flow, or queue
 * pair), and the marked payload the next ACK echoes. */
static void note_ecn(pkt_state *s, uint32_t id, pflow *f, const pkt *p, cs_time now) {
    uint8_t *sent = f->qp != NONE ? &s->qps[f->qp].cnp_sent : &f->cnp_sent;
    cs_time *last = f->qp != NONE ? &s->qps[f->qp].last_cnp : &f->last_cnp;
    if (p->ecn && (s->cc->feedback & CS_CC_CNP) && (!*sent || now - *last >= s->cnp_interval)) {
        *sent = 1;
        *last = now;
        send_ctrl(s, id, PK_CNP, 0, NULL);
        s->st.cnps++;
    }
    if (p->ecn) f->rcv_ce += p->payload;
}

/* The receiver with selective repeat: it keeps a packet past the gap (up to
 * sr_window past rcv_nxt; the sender never sends beyond) and answers it with
 * a NAK naming the missing psn (rcv_nxt) and the one that arrived (sack); an
 * in-order packet delivers it and every kept one after it, and is ACKed every
 * ack_every packets, at the last, and at once when it is a retransmission or
 * filled a gap (the sender waits for those); a duplicate is ACKed.  Every
 * answer carries the stamp of the packet it answers. */
static void receiver_sr(pkt_state *s, pkt *p) {
    uint32_t id = p->flow, W = s->sr_win;
    pflow *f = &s->flows[id];
    cs_time now = now_of(s);
    if (f->failed) return;
    if (p->psn < f->rcv_nxt || (p->psn > f->rcv_nxt && p->psn - f->rcv_nxt < W && f->sr_got[p->psn % W])) {
        s->st.duplicates++;
        send_ctrl_sr(s, id, PK_ACK, f->rcv_nxt, NONE, p->tx, p);
        return;
    }
    if (p->psn > f->rcv_nxt && p->psn - f->rcv_nxt >= W) { /* beyond the buffer (the sender never sends it) */
        s->st.out_of_order++;
        return;
    }
    note_ecn(s, id, f, p, now);
    if (p->psn > f->rcv_nxt) { /* past the gap: kept */
        f->sr_got[p->psn % W] = 1;
        f->rcv_held++;
        s->st.held++;
        s->st.naks++;
        send_ctrl_sr(s, id, PK_NAK, f->rcv_nxt, p->psn, p->tx, p);
        return;
    }
    int filled = f->rcv_held > 0;
    f->rcv_nxt++;
    f->since_ack++;
    s->st.delivered_bytes += p->payload;
    while (f->rcv_held && f->sr_got[f->rcv_nxt % W]) {
        f->sr_got[f->rcv_nxt % W] = 0;
        f->rcv_held--;
        s->st.delivered_bytes += payload_of(s, f, f->rcv_nxt);
        f->rcv_nxt++;
        f->since_ack++;
    }
    if (f->rcv_nxt == f->npkts) {
        send_ctrl_sr(s, id, PK_ACK, f->rcv_nxt, NONE, p->tx, p);
        pkt_delivered(s, id);
    } else if (f->since_ack >= s->ack_every || filled || p->rtx) {
        f->since_ack = 0;
        send_ctrl_sr(s, id, PK_ACK, f->rcv_nxt, NONE, p->tx, p);
    }
}

/* The sender with selective repeat, at an ACK or NAK: psn acknowledges
 * everything below it, sack (a NAK's) one packet past the gap, and tx says
 * that every transmission stamped before it has arrived or is lost -- the
 * packets of a flow keep their order on its one route -- so every
 * outstanding packet neither acknowledged nor already marked whose last
 * transmission is stamped before tx is marked lost, to be sent again. */
static void sender_sr(pkt_state *s, uint32_t id, const pkt *p) {
    pflow *f = &s->flows[id];
    uint32_t W = s->sr_win;
    if (p->psn > f->snd_una) {
        for (uint32_t q = f->snd_una; q < p->psn; q++) {
            if (f->sr_flag[q % W] & SR_LOST) f->nlost--;
            f->sr_flag[q % W] = 0;
        }
        f->snd_una = p->psn;
        f->retries = 0;
        f->last_progress = now_of(s);
    }
    if (p->sack != NONE && p->sack >= f->snd_una && p->sack < f->snd_nxt) {
        uint8_t *fl = &f->sr_flag[p->sack % W];
        if (*fl & SR_LOST) f->nlost--;
        *fl = SR_SACKED;
    }
    for (uint32_t q = f->snd_una; q < f->snd_nxt && !s->reorders; q++) { /* (one FIFO route only) */
        uint8_t *fl = &f->sr_flag[q % W];
        if (!*fl && (int32_t)(f->sr_txn[q % W] - p->tx) < 0) {
            *fl = SR_LOST;
            f->nlost++;
            if (q < f->rtx_lo) f->rtx_lo = q;
        }
    }
    if (f->rtx_lo < f->snd_una) f->rtx_lo = f->snd_una;
    if (f->nlost || f->snd_nxt < f->npkts) ring_add(s, id);
}

static void receiver(pkt_state *s, pkt *p) {
    uint32_t id = p->flow;
    pflow *f = &s->flows[id];
    cs_time now = now_of(s);
    if (f->failed) return;
    if (p->psn == f->rcv_nxt) {
        f->rcv_nxt++;
        f->since_ack++;
        s->st.delivered_bytes += p->payload;
        note_ecn(s, id, f, p, now);
        if (f->rcv_nxt == f->npkts) {
            send_ctrl(s, id, PK_ACK, f->rcv_nxt, p);
            pkt_delivered(s, id);
        } else if (f->since_ack >= s->ack_every) {
            f->since_ack = 0;
            send_ctrl(s, id, PK_ACK, f->rcv_nxt, p);
        }
    } else if (p->psn > f->rcv_nxt) { /* a gap: go-back-N drops it and NAKs the gap once */
        s->st.out_of_order++;
        if (f->nak_for != f->rcv_nxt + 1) {
            f->nak_for = f->rcv_nxt + 1;
            send_ctrl(s, id, PK_NAK, f->rcv_nxt, p);
            s->st.naks++;
        }
    } else { /* a duplicate: say again where we are */
        s->st.duplicates++;
        send_ctrl(s, id, PK_ACK, f->rcv_nxt, p);
    }
}

/* The congestion control's feedback from an ACK or NAK p (before the sender
 * takes its acknowledgment). */
static void cc_ack(pkt_state *s, uint32_t id, const pkt *p) {
    pflow *f = &s->flows[id];
    uint32_t una = p->psn > f->snd_una ? p->psn : f->snd_una;
    uint64_t acked = (uint64_t)(una - f->snd_una) * (uint64_t)s->o.mtu;
    if (una > f->snd_una && una == f->npkts) acked -= (uint64_t)s->o.mtu - f->last_payload;
    cs_time now = now_of(s);
    uint32_t nxt = f->qp_base + (f->snd_nxt > una ? f->snd_nxt : una);
    if (f->qp != NONE) /* the pair's next psn: the newest of its messages that has started sending */
        for (uint32_t g = s->qps[f->qp].live; g != NONE && !s->flows[g].parked; g = s->flows[g].qp_next) {
            uint32_t x = s->flows[g].qp_base + s->flows[g].snd_nxt;
            if (x > nxt) nxt = x;
        }
    cs_cc_ack a = {.now = now,
                   .rtt = now - p->ts,
                   .una = f->qp_base + una, /* this message's, in the pair's sequence (a NIC's una is the
                                               pair's oldest; they differ while older messages await ACKs) */
                   .nxt = nxt,
                   .acked_bytes = acked,
                   .marked_bytes = p->ce_bytes,
                   .hops = p->intr,
                   .nhops = p->nint,
                   .nak = p->type == PK_NAK};
    s->st.int_records += p->nint;
    s->cc->ack(f->ccs, &s->ccp, &a);
}

/* The window of queue pair q may have opened: its live flows with data to
 * send go back to their send rings. */
void pkt_qp_wake(pkt_state *s, uint32_t q, int later) {
    /* (parked messages are the list's tail: they start in order, qp_advance) */
    for (uint32_t g = s->qps[q].live; g != NONE && !s->flows[g].parked; g = s->flows[g].qp_next) {
        pflow *h = &s->flows[g];
        if (!h->in_ring && !h->parked && h->snd_nxt < h->npkts && !h->failed) {
            if (later) ring_add_later(s, g);
            else ring_add(s, g);
        }
    }
}

/* After an ACK or NAK of flow id (not a CNP), under a windowed control:
 * the other messages of its queue pair may send again.  (Flow id itself
 * may be gone by now: f->qp is then NONE.) */
static void qp_after_ack(pkt_state *s, uint32_t id) {
    const pflow *f = &s->flows[id];
    if (f->qp != NONE && s->cc->window && (s->qps[f->qp].live != id || f->qp_next != NONE)) qp_wake(s, f->qp, 0);
}

static void sender(pkt_state *s, pkt *p) {
    uint32_t id = p->flow;
    pflow *f = &s->flows[id];
    cs_time now = now_of(s);
    if (f->failed) return;
    if (p->type != PK_CNP && s->cc->ack) cc_ack(s, id, p);
    if (s->sr_win && p->type != PK_CNP) {
        sender_sr(s, id, p);
        qp_after_ack(s, id);
        return;
    }
    switch (p->type) {
    case PK_ACK:
        if (p->psn > f->snd_una) {
            f->snd_una = p->psn;
            if (f->snd_nxt < f->snd_una) f->snd_nxt = f->snd_una;
            f->retries = 0;
            f->last_progress = now;
            if (f->snd_nxt < f->npkts) ring_add(s, id);
        }
        break;
    case PK_NAK:
        if (p->psn >= f->snd_una) {
            if (p->psn > f->snd_una) f->retries = 0;
            f->snd_una = p->psn;
            if (f->snd_nxt > p->psn) s->st.retransmitted += f->snd_nxt - p->psn;
            f->snd_nxt = p->psn;
            f->last_progress = now;
            ring_add(s, id);
        }
        break;
    case PK_CNP:
        if (s->cc->cnp) s->cc->cnp(f->ccs, &s->ccp, now);
        break;
    }
    if (p->type != PK_CNP) qp_after_ack(s, id);
}

/* ---- retransmit timer ------------------------------------------------------------------------------ */

static int tless(const struct tentry *a, const struct tentry *b) {
    return a->at < b->at || (a->at == b->at && (a->id < b->id || (a->id == b->id && a->gen < b->gen)));
}

static void heap_up(pkt_state *s, size_t i) {
    while (i) {
        size_t p = (i - 1) / 2;
        if (!tless(&s->heap[i], &s->heap[p])) break;
        struct tentry t = s->heap[i];
        s->heap[i] = s->heap[p];
        s->heap[p] = t;
        i = p;
    }
}

static void heap_down(pkt_state *s, size_t i) {
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < s->nheap && tless(&s->heap[l], &s->heap[m])) m = l;
        if (r < s->nheap && tless(&s->heap[r], &s->heap[m])) m = r;
        if (m == i) break;
        struct tentry t = s->heap[i];
        s->heap[i] = s->heap[m];
        s->heap[m] = t;
        i = m;
    }
}

static void on_timers(void *ctx, const cs_event *ev);

/* The one timer event at the heap's top. */
static void timer_event(pkt_state *s) {
    if (!s->nheap || s->deadlocked) return;
    cs_time at = s->heap[0].at;
    if (s->timer_ev && s->timer_at <= at) return;
    if (s->timer_ev) cs_eventq_cancel(s->q, s->timer_ev - 1);
    s->timer_at = at;
    s->timer_ev = cs_eventq_push(s->q, at, UINT64_MAX - 1, on_timers, s, 0) + 1;
}

static void heap_push(pkt_state *s, cs_time at, uint32_t id) {
    if (s->nheap > 2 * s->nlive_timers + 1024) { /* drop the entries of finished flows */
        size_t k = 0;
        for (size_t i = 0; i < s->nheap; i++) {
            const struct tentry *e = &s->heap[i];
            if (s->flows[e->id].live && s->flows[e->id].gen == e->gen && s->flows[e->id].timed) s->heap[k++] = *e;
        }
        s->nheap = k;
        for (size_t i = k / 2; i-- > 0;) heap_down(s, i);
    }
    CS_GROW(s->heap, s->cap_heap, s->nheap + 1);
    s->heap[s->nheap] = (struct tentry){at, id, s->flows[id].gen};
    heap_up(s, s->nheap++);
    timer_event(s);
}

int pkt_timeout_gives_up(pkt_state *s, uint32_t id) {
    pflow *f = &s->flows[id];
    s->st.timeouts++;
    if (++f->retries <= (uint32_t)s->o.retry_limit) return 0;
    dq_fail(s, id); /* (before: those due by now arrived while it was live) */
    f->failed = 1;
    if (f->qp != NONE) { /* its packets no longer count against the window; the next message may start (no
                          * port started here: a port could free this flow before maybe_free below) */
        if (s->cc->window || s->o.transport == CS_TR_tcp) qp_wake(s, f->qp, 1);
        qp_advance(s, f->qp);
    }
    s->st.failed_flows++;
    if (s->st.failed_flows == 1) {
        s->failed_src = f->src;
        s->failed_dst = f->dst;
        s->failed_bytes = f->bytes;
    }
    uint32_t q = f->qp;
    maybe_free(s, id);
    if (q != NONE) qp_complete_ready(s, q); /* messages held behind it no longer wait for it */
    return 1;
}

static void timeout(pkt_state *s, uint32_t id) {
    pflow *f = &s->flows[id];
    cs_time now = now_of(s);
    if (pkt_timeout_gives_up(s, id)) return;
    if (s->cc->timeout) s->cc->timeout(f->ccs, &s->ccp, now);
    if (s->sr_win) {
        /* the highest outstanding packet neither acknowledged nor marked goes
         * again (a probe): the answer's stamp marks every other lost one.  It
         * is the packet most likely lost: when it arrived in order, so did
         * everything below it, and an ACK is due.  (The oldest one would go
         * again needlessly whenever it arrived and waits for its ACK.) */
        for (uint32_t q = f->snd_nxt; q-- > f->snd_una;) {
            uint8_t *fl = &f->sr_flag[q % s->sr_win];
            if (*fl) continue;
            *fl = SR_LOST;
            f->nlost++;
            if (q < f->rtx_lo) f->rtx_lo = q;
            if (!s->reorders) break; /* reordering routes: no stamp tells what was lost; every one goes */
        }
    } else {
        s->st.retransmitted += f->snd_nxt - f->snd_una;
        f->snd_nxt = f->snd_una;
    }
    f->last_progress = now;
    ring_add(s, id);
    arm_rto(s, id);
}

static void on_timers(void *ctx, const cs_event *ev) {
    (void)ev;
    pkt_state *s = ctx;
    s->timer_ev = 0;
    cs_time now = now_of(s);
    while (s->nheap && s->heap[0].at <= now) {
        struct tentry e = s->heap[0];
        s->heap[0] = s->heap[--s->nheap];
        heap_down(s, 0);
        pflow *f = &s->flows[e.id];
        if (!f->live || f->gen != e.gen || !f->timed) continue; /* a finished flow's */
        f->timed = 0;
        s->nlive_timers--;
        if (f->failed || f->snd_una >= f->snd_nxt) continue; /* nothing outstanding */
        if (now - f->last_progress < (f->rto ? f->rto : s->rto)) {
            arm_rto(s, e.id); /* progress since: the timer runs from it */
            continue;
        }
        /* lossless: no progress for rto may be a PFC deadlock */
        if (s->o.pfc && deadlock_check(s, now)) return;
        if (s->tr->timeout) s->tr->timeout(s, e.id);
        else timeout(s, e.id);
    }
    timer_event(s);
}

void pkt_arm_rto(pkt_state *s, uint32_t id) {
    pflow *f = &s->flows[id];
    if (f->timed || f->snd_una >= f->snd_nxt) return;
    cs_time at = cs_time_add(f->last_progress, f->rto ? f->rto : s->rto);
    if (at < now_of(s)) at = now_of(s);
    f->timed = 1;
    s->nlive_timers++;
    heap_push(s, at, id);
}

/* ---- events ------------------------------------------------------------------------------------------ */

/* Arrivals and transmission ends come in runs at one instant (flows that
 * start together, equal links): read ahead the first line of the packet of
 * the arrival PKT_AHEAD events later, or the port of the transmission end,
 * and, PKT_AHEAD / 2 events later, the arrival's path entry (at a switch: a
 * hop reads nothing else of the packet or its flow) or its flow record and
 * second line (at its destination), so that their cache misses (the
 * packet's first touch was most of on_arrive) overlap this event's work.
 * Hints only: nothing depends on them. */
#define PKT_AHEAD 4
static void prefetch_ahead(pkt_state *s) {
    size_t n;
    const cs_event *run = cs_eventq_ahead_run(s->q, &n);
    if (n > PKT_AHEAD) {
        const cs_event *e = &run[PKT_AHEAD];
        if (e->fn == on_arrive) {
            const pkt *p = (const pkt *)(uintptr_t)e->arg;
            __builtin_prefetch(p); /* its first line: all a hop reads */
        } else if (e->fn == on_tx_end && e->ctx == s) {
            __builtin_prefetch(&s->ports[e->arg]);
            __builtin_prefetch(&s->ports[e->arg].cls0.qh);
        }
    }
    if (n > PKT_AHEAD / 2) {
        const cs_event *e = &run[PKT_AHEAD / 2];
        if (e->fn == on_arrive && e->ctx == s) {
            const pkt *p = (const pkt *)(uintptr_t)e->arg;
            if (p->hop + 1 >= p->npath) { /* at its destination: its flow, its endpoint fields */
                __builtin_prefetch(&s->flows[p->flow]);
                __builtin_prefetch((const char *)p + 64);
            } else {
                if (!p->hbh) __builtin_prefetch(&p->path[p->hop]);
                /* onto its last link next (if its egress is idle): the receiver's run ahead */
                if (p->hop + 2 == p->npath) __builtin_prefetch(&s->flows[p->flow]);
            }
        } else if (e->fn == on_tx_end && e->ctx == s && s->npri == 1 && !s->vq) {
            /* the port's next data packet (fifo_pop read it ahead), if it goes onto its last link, or
             * the next flow of an NPU's send ring */
            const pclass *C = &s->ports[e->arg].cls0;
            const pkt *q = C->qh;
            if (q) {
                if (q->hop + 1 == q->npath) __builtin_prefetch(&s->flows[q->flow]);
            } else if (C->ring != NONE) {
                __builtin_prefetch(&s->flows[C->ring]);
                __builtin_prefetch((const char *)&s->flows[C->ring] + 64);
            }
        }
    }
}

/* Link l's utilization samples (util_window): window w's busy fraction at its start, once a later
 * window begins, and 0 at the start of the first idle window after it. */
static void util_flush(pkt_state *s, uint32_t l, uint64_t w) {
    struct putil *u = &s->util[l];
    if (u->busy) {
        s->obs.link_util(s->obs.ud, l, (cs_time)u->win * s->util_w, (double)u->busy / (double)s->util_w);
        if (w > u->win + 1) s->obs.link_util(s->obs.ud, l, (cs_time)(u->win + 1) * s->util_w, 0);
    }
    u->win = w;
    u->busy = 0;
}

/* Link l was busy over [a, b): summed into its windows. */
static void util_busy(pkt_state *s, uint32_t l, cs_time a, cs_time b) {
    struct putil *u = &s->util[l];
    while (a < b) {
        uint64_t w = a / s->util_w;
        if (w != u->win) util_flush(s, l, w);
        cs_time end = (cs_time)(w + 1) * s->util_w, e = b < end ? b : end;
        u->busy += e - a;
        a = e;
    }
}

static void on_tx_end(void *ctx, const cs_event *ev) {
    pkt_state *s = ctx;
    prefetch_ahead(s);
    uint32_t l = (uint32_t)ev->arg;
    port *P = &s->ports[l];
    cs_time now = now_of(s);
    P->busy = 0;
    P->busy_time += now - P->busy_since;
    if (s->util) util_busy(s, l, P->busy_since, now);
    P->packets++;
    if (P->cur_data) P->bytes += P->cur_payload;
    release(s, lk(s, l)->src, P);
    port_kick(s, l);
}

static void drop(pkt_state *s, pkt *p) {
    pflow *f = &s->flows[p->flow];
    if (p->intr) cs_pool_put(s->ints, p->intr);
    f->inflight--;
    uint32_t id = p->flow;
    cs_pool_put(s->pkts, p);
    maybe_free(s, id);
}

/* ---- deferred arrivals ------------------------------------------------------------------------------ */

/* Most data packets' arrivals at their destination change nothing but the
 * receiver's counters: in order, not the last of the flow, not the one that
 * an ACK answers (every ack_every-th), not ECN-marked.  Where every packet
 * that starts on the last link of its path arrives, in order (s->defer: one
 * FIFO path per flow, no random loss, the rc go-back-N receiver), which
 * arrivals those are is known when the packet starts on that link: pr_nxt
 * and pr_since run the receiver's counters ahead over the packets started
 * there.  Such an arrival is then not pushed as an event: the packet is
 * freed at once (reused while its lines are in cache: holding it until the
 * drain freed a lockstep instant's thousands of packets in one burst, and
 * the pool then handed out cold ones) and its flow, psn, payload and class
 * wait, numbered as if pushed (cs_eventq_take_seq), in its link's FIFO, to
 * be applied -- exactly what on_arrive does with it: the link's data in
 * flight, the receiver's counters and delivered bytes, the flow's packets in
 * flight -- when something may look at what it changes, which is before
 *   - any later arrival over that link at its destination (every packet of
 *     a flow, and so every reader of its receiver's counters, comes in over
 *     its last link; a packet that passes through the link's far node, an
 *     NPU that forwards, reads none of them),
 *   - the PFC deadlock check (data in flight per link), a flow's failure
 *     (its link's),
 *   - the statistics and the report.
 * Between its time and then, nothing reads those counters, the freeing of
 * the flow waits for its last packet (never deferred) or its failure, and a
 * flow that fails makes its link's deferred arrivals packets again, pushed
 * as the events they stand for (cs_eventq_push_seq: the place in the order
 * they had).  So
 * every result, and the order of every event that is dispatched, are those
 * of a run that pushes every arrival; only the event count is lower (docs/
 * network.md, "Deferred arrivals").  The FIFOs are per link, the drains at
 * its far node's own events: nothing crosses a partition that an arrival
 * event did not. */

/* Data packet p starts on the last link l of its path, to arrive at `at`:
 * 1 when its arrival is deferred (queued on l, p freed), 0 when it is to be
 * pushed. */
static int defer_arrival(pkt_state *s, uint32_t l, pkt *p, cs_time at) {
    pflow *f = &s->flows[p->flow];
    if (f->failed || p->psn != f->pr_nxt) return 0; /* a gap or a duplicate: answered at once */
    f->pr_nxt++;
    f->pr_since++;
    if (f->pr_nxt == f->npkts) return 0; /* the last: delivered and ACKed */
    if (f->pr_since >= s->ack_every) {   /* ACKed */
        f->pr_since = 0;
        return 0;
    }
    if (p->ecn) return 0; /* marked: a CNP, or bytes the next ACK echoes */
    struct pkt_dq *D = &s->dq[l];
    if (D->n == D->cap) {
        uint32_t cap = D->cap ? 2 * D->cap : 16;
        struct pkt_dent *e = cs_malloc((size_t)cap * sizeof *e);
        for (uint32_t i = 0; i < D->n; i++) e[i] = D->e[(D->head + i) & (D->cap - 1)];
        cs_free(D->e);
        D->e = e;
        D->cap = cap;
        D->head = 0;
    }
    D->e[(D->head + D->n) & (D->cap - 1)] =
        (struct pkt_dent){at, cs_eventq_take_seq(s->q), p->flow, p->psn, p->payload, p->prio};
    cs_pool_put(s->pkts, p); /* (no telemetry: s->ints is NULL; still in flight: inflight) */
    D->n++;
    if (!D->act) {
        CS_GROW(s->dq_act, s->cap_dq_act, s->ndq_act + 1);
        s->dq_act[s->ndq_act++] = l;
        D->act = (uint32_t)s->ndq_act;
    }
    return 1;
}

/* Link l's FIFO is empty: off the list of those that are not. */
static void dq_off(pkt_state *s, uint32_t l) {
    uint32_t i = s->dq[l].act - 1, last = s->dq_act[--s->ndq_act];
    s->dq_act[i] = last;
    s->dq[last].act = i + 1;
    s->dq[l].act = 0;
}

/* Apply link l's deferred arrivals due before `until` (and at it when incl). */
static void dq_drain(pkt_state *s, uint32_t l, cs_time until, int incl) {
    struct pkt_dq *D = &s->dq[l];
    while (D->n) {
        const struct pkt_dent *e = &D->e[D->head];
        if (e->at > until || (e->at == until && !incl)) break;
        struct pkt_dent d = *e;
        D->head = (D->head + 1) & (D->cap - 1);
        D->n--;
        if (d.flow == NONE) continue; /* pushed as its event (its flow failed) */
        pflow *f = &s->flows[d.flow];
        CS_ALWAYS(!f->failed && d.psn == f->rcv_nxt && d.psn + 1 < f->npkts && f->since_ack + 1 < s->ack_every,
                  "deferred arrival of psn %u of flow %u: the receiver expects %u", d.psn, d.flow, f->rcv_nxt);
        /* on_arrive's work for it: the link's data in flight; receiver(): in order, no ACK due, not the
         * last, unmarked; drop(): no longer in flight (the packet itself was freed when it started) */
        pkt_pc(s, l, d.prio)->wire_data--;
        f->rcv_nxt++;
        f->since_ack++;
        s->st.delivered_bytes += d.payload;
        f->inflight--;
        maybe_free(s, d.flow);
    }
    if (!D->n && D->act) dq_off(s, l);
}

/* Every link's deferred arrivals due before `until` (and at it when incl). */
static void dq_drain_all(pkt_state *s, cs_time until, int incl) {
    for (size_t k = s->ndq_act; k-- > 0;) dq_drain(s, s->dq_act[k], until, incl);
}

/* Flow id failed (at a timer event, whose key is above every arrival's):
 * the deferred arrivals on its last link due by now are applied, the later
 * ones become the events they stand for (at their place in the order), as
 * its receiver no longer takes them. */
static void dq_fail(pkt_state *s, uint32_t id) {
    pflow *f = &s->flows[id];
    if (!s->defer || !f->npath) return;
    uint32_t l = f->path[f->npath - 1];
    struct pkt_dq *D = &s->dq[l];
    dq_drain(s, l, now_of(s), 1);
    for (uint32_t i = 0; i < D->n; i++) {
        struct pkt_dent *e = &D->e[(D->head + i) & (D->cap - 1)];
        if (e->flow == NONE) continue;
        /* (the entry's own flow: other flows end on this link too, with paths of other lengths, and
         * outlive it -- their entries count in their inflight -- while id may be freed first) */
        const pflow *g = &s->flows[e->flow];
        pkt *p = cs_pool_get(s->pkts); /* the packet again, as much of it as its arrival reads */
        memset(p, 0, sizeof *p);
        p->flow = e->flow;
        p->psn = e->psn;
        p->payload = e->payload;
        p->wire = e->payload + (uint32_t)s->o.overhead;
        p->type = PK_DATA;
        p->prio = e->prio;
        p->hop = g->npath - 1;
        p->path = g->path;
        p->npath = g->npath;
        p->in_link = NONE;
        p->sack = NONE;
        cs_eventq_push_seq(s->q, e->at, ((uint64_t)l << 3) | 1, e->seq, on_arrive, s, (uint64_t)(uintptr_t)p);
        e->flow = NONE;
    }
}

static void on_arrive(void *ctx, const cs_event *ev) {
    pkt_state *s = ctx;
    prefetch_ahead(s);
    pkt *p = (pkt *)(uintptr_t)ev->arg;
    uint32_t n = p->npath;
    const uint32_t *path = p->path;
    uint32_t in = p->hbh ? p->link : path[p->hop];
    /* (no two arrivals on a link at one time; a packet passing through reads nothing that a drain changes:
     * the drain waits for the next arrival there at its destination, which would read the receiver) */
    if (s->defer && p->hop + 1 == n && s->dq[in].n) dq_drain(s, in, now_of(s), 0);
    uint32_t v = lk(s, in)->dst;
    if (p->type == PK_DATA) pkt_pc(s, in, p->prio)->wire_data--;
    if (p->type == PK_DATA && s->o.drop_psn >= 0 && p->psn == (uint32_t)s->o.drop_psn && p->hop == 0 &&
        !s->flows[p->flow].test_dropped) { /* the test hook */
        s->flows[p->flow].test_dropped = 1;
        s->st.lost++;
        if (s->tr->lost) s->tr->lost(s, p);
        drop(s, p);
        return;
    }
    if (p->type == PK_DATA && s->o.loss_rate > 0 && rnd(s) < s->o.loss_rate) {
        s->st.lost++;
        if (s->tr->lost) s->tr->lost(s, p);
        drop(s, p);
        return;
    }
    if (p->hop + 1 == n) { /* at its destination */
        if (p->type == PK_DATA && s->tr->data) s->tr->data(s, p);
        else if (p->type != PK_DATA && s->tr->ctrl) s->tr->ctrl(s, p);
        else if (p->type == PK_DATA && s->sr_win) receiver_sr(s, p);
        else if (p->type == PK_DATA) receiver(s, p);
        else sender(s, p);
        drop(s, p);
        return;
    }
    p->hop++;
    uint32_t out = p->hbh ? (p->link = pkt_route_next(s, p, v)) : path[p->hop];
    port *E = &s->ports[out];
    if (p->type == PK_DATA) {
        pclass *EC = pkt_pc(s, out, p->prio);
        p->in_link = in;
        if (!admit(s, v, in, out, p)) {
            if (s->tr->lost) s->tr->lost(s, p);
            drop(s, p);
            return;
        }
        if (s->cc->feedback & CS_CC_MARK_STEP) { /* DCTCP: above K */
            if ((double)EC->qbytes > s->o.dctcp_k_bytes) {
                p->ecn = 1;
                E->marks++;
                s->st.ecn_marks++;
            }
        } else if ((s->cc->feedback & CS_CC_MARK_RED) || (s->o.tcp_ecn && s->o.transport == CS_TR_tcp)) {
            uint64_t q = EC->qbytes;
            double pm = (double)q <= s->o.kmin_bytes ? 0
                        : (double)q > s->o.kmax_bytes ? 1
                        : s->o.pmax * ((double)q - s->o.kmin_bytes) / (s->o.kmax_bytes - s->o.kmin_bytes);
            if (pm > 0 && (pm >= 1 || rnd(s) < pm)) {
                p->ecn = 1;
                E->marks++;
                s->st.ecn_marks++;
            }
        }
        E->qbytes += p->wire;
        EC->qbytes += p->wire;
        if (E->qbytes > E->max_q) E->max_q = E->qbytes;
        if (s->obs.link_queue) s->obs.link_queue(s->obs.ud, out, now_of(s), E->qbytes, E->paused != 0);
        if (s->vq && s->vq[out]) {
            size_t i = (size_t)p->prio * s->vq[out]->nin + s->in_pos[in];
            fifo_push(&s->vq[out]->qh[i], &s->vq[out]->qt[i], p);
        } else {
            fifo_push(&EC->qh, &EC->qt, p);
        }
    } else {
        fifo_push(&E->qh, &E->qt, p); /* in no buffer: in_link stays NONE */
    }
    port_kick(s, out);
}

void pkt_ring_add(pkt_state *s, uint32_t id) {
    uint32_t l = ring_insert(s, id);
    if (l != NONE) port_kick(s, l);
}

static void on_self(void *ctx, const cs_event *ev) {
    pkt_state *s = ctx;
    uint32_t id = (uint32_t)ev->arg;
    pflow *f = &s->flows[id];
    f->inflight = 0;
    f->delivered = 1;
    f->finish = now_of(s);
    s->st.flows_done++;
    f->done(f->ctx, f->cookie);
    maybe_free(s, id);
}

/* ---- the interface ---------------------------------------------------------------------------------------- */

/* Time of one uncontended transfer over links path[0..n) (hops 0..n-1):
 * the packets pipeline through the hops (docs/network.md, "packet").  With
 * P the wire size of a full packet, L that of the last one, s_h(x) =
 * ser(x, bw_h), and a_h(x) = lat_h + s_h(x) -- or lat_h + s_h(overhead)
 * where the node after hop h cuts through -- the time from a packet's start
 * on hop h to its start on hop h+1, the last packet of N >= 2 arrives at
 *   max over m of [ sum_{h<m} a_h(P) + s_m(P) + (N-2) max_{h<=m} s_h(P)
 *                   + sum_{m<=h<n-1} a_h(L) ] + s_{n-1}(L) + lat_{n-1}
 * (the longest path through the grid of packets x hops: the N-2 middle
 * packets queue at the slowest hop up to m, where the last packet catches
 * up), and a single packet at sum_{h<n-1} a_h(L) + s_{n-1}(L) + lat_{n-1}.
 * On a hop leaving a VOQ chassis s_h is the port's occupancy (occ_of) and
 * lat_h includes the fabric's latency (fab_of). */
static double path_time(const pkt_state *s, const uint32_t *path, uint32_t n, uint64_t bytes) {
    if (n == 0) return 0;
    uint64_t mtu = (uint64_t)s->o.mtu, hdr = (uint64_t)s->o.overhead;
    uint64_t npk = bytes ? (bytes + mtu - 1) / mtu : 1;
    uint64_t wp = mtu + hdr, wl = bytes - (npk - 1) * mtu + hdr;
    /* sums of ps in double: exact below 2^53 ps (2.5 hours) */
    /* SERV: a hop's serialization; OCC: how long its port is held (the serialization, or a VOQ chassis'
     * cell fabric's time, occ_of); ADV: from a packet's start on hop h to its start on hop h + 1 */
#define SERV(h, x) ser_d((x), s->bw[path[h]])
#define OCC(h, x) occ_d(s, path[h], (x))
#define ADV(h, x)                                                                                             \
    ((double)lk(s, path[h])->lat + (double)fab_of(s, path[h]) +                                               \
     ((s->o.cut_through && (h) + 1 < n && s->bw[path[(h) + 1]] <= s->bw[path[h]]) ? OCC(h, x) - SERV(h, x) + SERV(h, hdr) \
                                                                                          : OCC(h, x)))
    double suffix = 0; /* sum_{m<=h<n-1} a_h(L), from m = 0 on */
    for (uint32_t h = 0; h + 1 < n; h++) suffix += ADV(h, wl);
    double best = suffix;
    if (npk >= 2) {
        double prefix = 0, mx = 0; /* sum_{h<m} a_h(P), max_{h<=m} s_h(P) */
        best = 0;
        for (uint32_t m = 0; m < n; m++) {
            double sp = OCC(m, wp);
            if (sp > mx) mx = sp;
            double t = prefix + sp + (double)(npk - 2) * mx + suffix;
            if (t > best) best = t;
            prefix += ADV(m, wp);
            if (m + 1 < n) suffix -= ADV(m, wl);
        }
    }
    best += OCC(n - 1, wl) + (double)lk(s, path[n - 1])->lat + (double)fab_of(s, path[n - 1]);
#undef SERV
#undef OCC
#undef ADV
    return best;
}

/* ps -> cs_time, CS_TIME_MAX beyond the range. */
static cs_time to_time(double ps) { return ps >= 18446744073709551615.0 ? CS_TIME_MAX : (cs_time)ps; }

static cs_time pkt_time(void *state, uint32_t src, uint32_t dst, uint64_t bytes) {
    pkt_state *s = state;
    if (src == dst) return 0;
    const uint32_t *path;
    uint32_t n;
    cs_error err;
    cs_error_clear(&err);
    if (cs_router_route(s->router, src, dst, &path, &n, &err)) return CS_TIME_MAX;
    return to_time(path_time(s, path, n, bytes));
}

cs_time pkt_base_rtt(const pkt_state *s, const pflow *f) {
    /* its round trip alone: a full packet there, a control packet back */
    double rtt = path_time(s, f->path, f->npath, (uint64_t)s->o.mtu);
    for (uint32_t h = 0; h < f->nrpath; h++) {
        uint32_t l = f->rpath[h];
        rtt += occ_d(s, l, CTRL_WIRE) + (double)lk(s, l)->lat + (double)fab_of(s, l);
    }
    return to_time(rtt);
}

/* Room for twice the flow records, the array starting on a cache line (a record's first line is the
 * one a packet's destination reads). */
static void flows_grow(pkt_state *s) {
    size_t cap = s->cap_flows ? 2 * s->cap_flows : 64;
    void *mem = cs_malloc(cap * sizeof(pflow) + 63);
    pflow *f = (pflow *)(((uintptr_t)mem + 63) & ~(uintptr_t)63);
    if (s->nflows_alloc) memcpy(f, s->flows, s->nflows_alloc * sizeof *f);
    cs_free(s->flows_mem);
    s->flows_mem = mem;
    s->flows = f;
    s->cap_flows = cap;
}

/* One flow: message m (or one channel's share of it) on connection conn. */
static int pkt_send_one(void *state, const cs_net_msg *m, uint32_t conn, cs_error *err) {
    pkt_state *s = state;
    cs_time now = now_of(s);
    const uint32_t *path = NULL;
    uint32_t n = 0;
    int rc = cs_router_route_conn(s->router, m->src, m->dst, m->key, conn, &path, &n, err);
    if (rc) return rc;
    double ps = path_time(s, path, n, m->bytes);
    cs_time t = to_time(ps);
    if (cs_time_beyond(t) || cs_time_beyond(cs_time_add(now, t)))
        return cs_net_beyond_error(err, now, ps / 1e3, "its packets alone on its route");
    uint64_t npk = m->bytes ? (m->bytes + (uint64_t)s->o.mtu - 1) / (uint64_t)s->o.mtu : 1;
    if (npk > UINT32_MAX - 1)
        return CS_ERR(err, CS_EINVAL, "%llu packets of backend.packet.mtu %d bytes; expected at most %u per transfer",
                      (unsigned long long)npk, s->o.mtu, UINT32_MAX - 1);
    /* the route there, copied before asking for the route back (for ACKs):
     * the router's pointer does not survive another route */
    uint32_t *both = cs_malloc((size_t)(n ? n : 1) * sizeof *both);
    if (n) memcpy(both, path, n * sizeof *both);
    const uint32_t *rpath = NULL;
    uint32_t nr = 0;
    rc = cs_router_route(s->router, m->dst, m->src, &rpath, &nr, err);
    if (rc) {
        cs_free(both);
        return rc;
    }
    if (nr) {
        both = cs_realloc(both, (size_t)(n + nr) * sizeof *both);
        memcpy(both + n, rpath, nr * sizeof *both);
    }
    uint32_t prio = 0;
    if (s->o.priority_of == PKT_PRIO_QP)
        prio = (uint32_t)(cs_mix64(m->key ^ 0x9E3779B97F4A7C15ULL ^ (conn ? cs_mix64(conn) : 0)) % s->npri);
    else if (s->o.priority_of == PKT_PRIO_TYPE)
        prio = m->p2p ? (uint32_t)s->o.p2p_class : 0;
    else if (m->tclass >= s->npri) {
        cs_free(both);
        return CS_ERR(err, CS_EINVAL, "message %u -> %u: traffic class %u; expected below backend.packet.priorities "
                      "(%u)", m->src, m->dst, m->tclass, s->npri);
    } else prio = m->tclass;
    uint32_t id, gen = 0;
    if (s->nfree) {
        id = s->free_ids[--s->nfree];
        gen = s->flows[id].gen; /* bumped when it was freed */
    } else {
        if (s->nflows_alloc == s->cap_flows) flows_grow(s);
        id = (uint32_t)s->nflows_alloc++;
    }
    pflow *f = &s->flows[id];
    memset(f, 0, sizeof *f);
    f->gen = gen;
    f->src = m->src;
    f->dst = m->dst;
    f->path = both;
    f->npath = n;
    f->rpath = both + n;
    f->nrpath = nr;
    f->bytes = m->bytes;
    f->key = m->key;
    f->cookie = m->cookie;
    f->done = m->done;
    f->ctx = m->ctx;
    f->npkts = (uint32_t)npk;
    f->last_payload = (uint32_t)(m->bytes - (npk - 1) * (uint64_t)s->o.mtu);
    f->start = now;
    f->next_tx = now;
    f->ideal = t;
    f->live = 1;
    f->fixed = s->hbh && (uint8_t)cs_router_is_fixed(s->router, m->src, m->dst);
    f->prio = (uint8_t)prio;
    if (s->sr_win && n) {
        f->sr_txn = cs_calloc(s->sr_win, sizeof *f->sr_txn + 2);
        f->sr_flag = (uint8_t *)(f->sr_txn + s->sr_win);
        f->sr_got = f->sr_flag + s->sr_win;
    }
    f->qp = NONE;
    if (n && (s->cc->state_size || s->qp_on)) {
        cs_cc_flow cf = {.line_rate = s->bw[both[0]],
                         .base_rtt = pkt_base_rtt(s, f),
                         .mtu = (uint32_t)s->o.mtu,
                         .wire_mtu = (uint32_t)s->wire_mtu,
                         .hops = n - 1};
        if (s->qp_on) {
            qp_join(s, id, s->qp_qps ? conn * s->qp_qps + (uint32_t)(m->key % s->qp_qps) : conn, &cf, now);
        } else {
            f->ccs = cs_calloc(1, s->cc->state_size);
            s->cc->init(f->ccs, &s->ccp, &cf, now);
        }
    }
    if (s->tr->init && n) {
        size_t sz = s->tr->state_size ? s->tr->state_size(s) : 0;
        if (sz) f->trs = cs_calloc(1, sz);
        s->tr->init(s, f);
    }
    s->st.flows++;
    s->st.data_packets += npk;
    if (n == 0) { /* to itself: delivered now, by an event as every delivery */
        f->snd_una = f->snd_nxt = f->npkts;
        f->inflight = 1;
        cs_eventq_push(s->q, now, f->key, on_self, s, id);
        return CS_OK;
    }
    if (!f->parked) ring_add(s, id);
    return CS_OK;
}

/* A message striped over NCCL channels (backend.packet.channels connections) is a flow per channel, each
 * its own queue pair and route (cs_net_send_striped); the message is done when all are. */
static int pkt_send(void *state, const cs_net_msg *m, cs_error *err) {
    pkt_state *s = state;
    return cs_net_send_striped(s, m, s->o.channels == PKT_CH_CONNECTIONS, s->stripes, pkt_send_one, err);
}

static size_t qp_hash(uint32_t src, uint32_t dst, uint32_t chan, uint32_t prio) {
    return (size_t)cs_mix64(((uint64_t)src << 32 | dst) ^ ((uint64_t)chan << 8 | prio) * 0x9E3779B97F4A7C15ULL);
}

/* Queue pair (f->src, f->dst, chan, f->prio), made on first use with the
 * control initialised from its first message (cf): flow id joins its live
 * flows and takes the next stretch of its packet sequence.  The sequence
 * starts again, with fresh state, once it has passed 2^31 packets and no
 * message is live (the controls compare psns as 32-bit numbers). */
static void qp_join(pkt_state *s, uint32_t id, uint32_t chan, const cs_cc_flow *cf, cs_time now) {
    pflow *f = &s->flows[id];
    if (s->nqps * 2 >= s->qph_cap) { /* grow the table (load at most 1/2), rehash */
        size_t cap = s->qph_cap ? s->qph_cap * 2 : 1024;
        cs_free(s->qph);
        s->qph = cs_calloc(cap, sizeof *s->qph);
        s->qph_cap = cap;
        for (size_t i = 0; i < s->nqps; i++) {
            const pqp *q = &s->qps[i];
            size_t h = qp_hash(q->src, q->dst, q->chan, q->prio) & (cap - 1);
            while (s->qph[h]) h = (h + 1) & (cap - 1);
            s->qph[h] = (uint32_t)i + 1;
        }
    }
    size_t h = qp_hash(f->src, f->dst, chan, f->prio) & (s->qph_cap - 1);
    pqp *q = NULL;
    for (; s->qph[h]; h = (h + 1) & (s->qph_cap - 1)) {
        pqp *c = &s->qps[s->qph[h] - 1];
        if (c->src == f->src && c->dst == f->dst && c->chan == chan && c->prio == f->prio) {
            q = c;
            break;
        }
    }
    if (!q) {
        CS_GROW(s->qps, s->cap_qps, s->nqps + 1);
        q = &s->qps[s->nqps];
        *q = (pqp){.src = f->src, .dst = f->dst, .chan = chan, .prio = f->prio, .live = NONE, .next_tx = now};
        if (s->cc->state_size) {
            q->ccs = cs_calloc(1, s->cc->state_size);
            s->cc->init(q->ccs, &s->ccp, cf, now);
        }
        s->qph[h] = (uint32_t)++s->nqps;
    } else if (q->psn > 0x7FFFFFFFu && q->live == NONE) {
        if (q->ccs) {
            memset(q->ccs, 0, s->cc->state_size);
            s->cc->init(q->ccs, &s->ccp, cf, now);
        }
        q->psn = 0;
    }
    f->qp = (uint32_t)(q - s->qps);
    f->qp_base = q->psn;
    q->psn += f->npkts;
    f->qp_next = NONE; /* last: the oldest first */
    uint32_t *at = &q->live;
    while (*at != NONE) {
        const pflow *g = &s->flows[*at];
        if (!g->failed && (g->parked || g->snd_nxt < g->npkts)) f->parked = 1; /* an older one is still sending */
        at = &s->flows[*at].qp_next;
    }
    *at = id;
    f->ccs = q->ccs;
}

static int pkt_report(void *state, cs_net_link_report *out, cs_error *err) {
    (void)err;
    if (((pkt_state *)state)->defer) dq_drain_all(state, now_of(state), 1);
    pkt_state *su = state;
    if (su->util) /* the windows begun: their fraction so far (busy over the time they have run), then 0 */
        for (uint32_t l = 0; l < su->topo->nlinks; l++) {
            struct putil *u = &su->util[l];
            if (!u->busy) continue;
            cs_time t0 = (cs_time)u->win * su->util_w, now = now_of(su), len = now > t0 ? now - t0 : 1;
            if (len > su->util_w) len = su->util_w;
            su->obs.link_util(su->obs.ud, l, t0, (double)u->busy / (double)len);
            su->obs.link_util(su->obs.ud, l, t0 + len, 0);
            u->busy = 0;
        }
    const pkt_state *s = state;
    cs_time now = now_of(s);
    out->nlinks = s->topo->nlinks;
    out->links = cs_calloc(s->topo->nlinks ? s->topo->nlinks : 1, sizeof *out->links);
    out->packet = 1;
    uint64_t maxq = 0;
    cs_time pause = 0;
    uint32_t npaused = 0;
    for (uint32_t l = 0; l < s->topo->nlinks; l++) {
        const port *P = &s->ports[l];
        cs_net_link_stat *o = &out->links[l];
        o->bytes = P->bytes;
        o->busy = P->busy_time + (P->busy && now > P->busy_since ? now - P->busy_since : 0);
        o->peak_util = P->packets ? 1 : 0;
        o->drops = P->drops;
        o->ecn_marks = P->marks;
        o->paused = 0; /* summed over its classes */
        for (uint32_t c = 0; c < s->npri; c++) {
            const pclass *C = pkt_pc(s, l, c);
            o->paused += C->pause_time + (P->paused >> c & 1 ? now - C->pause_since : 0);
        }
        o->max_queue_bytes = P->max_q;
        if (P->max_q > maxq) maxq = P->max_q;
        pause += o->paused;
        if (o->paused) npaused++;
    }
    /* the flows: those freed (their rows), then those delivered and not yet freed */
    size_t more = 0;
    for (size_t i = 0; i < s->nflows_alloc; i++) more += s->flows[i].live && s->flows[i].delivered;
    out->flows = cs_malloc((s->nrows + more ? s->nrows + more : 1) * sizeof *out->flows);
    if (s->nrows) memcpy(out->flows, s->rows, s->nrows * sizeof *out->flows);
    out->nflows = s->nrows;
    out->flows_omitted = s->rows_omitted;
    for (size_t i = 0; i < s->nflows_alloc; i++) {
        const pflow *f = &s->flows[i];
        if (!f->live || !f->delivered) continue;
        if (out->nflows >= (size_t)s->o.flow_rows) {
            out->flows_omitted++;
            continue;
        }
        out->flows[out->nflows++] = row_of(f);
    }
    const cs_packet_stats *t = &s->st;
    if (s->o.transport == CS_TR_tcp) {
        char conns[96];
        if (!s->qp_on) snprintf(conns, sizeof conns, "a connection per message");
        else
            snprintf(conns, sizeof conns, "%zu persistent connections (%llu idle restarts)", s->nqps,
                     (unsigned long long)t->tcp_idle_restarts);
        snprintf(out->summary, sizeof out->summary,
                 "packet (%s, tcp %s%s): %llu data packets, %llu retransmitted, %llu fast retransmits, %llu timeouts, "
                 "%llu dropped, %llu lost, %llu ECN marks, %llu ECN window cuts, %s, PFC pause %.3f us over %u "
                 "links, largest queue %llu bytes",
                 s->o.pfc ? "lossless, PFC" : "lossy", PKT_TCP_CCS[s->o.tcp_cc], s->o.tcp_ecn ? ", ECN" : "",
                 (unsigned long long)t->data_packets, (unsigned long long)t->retransmitted,
                 (unsigned long long)t->fast_retransmits, (unsigned long long)t->timeouts,
                 (unsigned long long)t->drops, (unsigned long long)t->lost, (unsigned long long)t->ecn_marks,
                 (unsigned long long)t->ecn_cuts, conns,
                 cs_time_as_us_f(pause), npaused, (unsigned long long)maxq);
        return CS_OK;
    }
    if (s->o.transport == CS_TR_udp) {
        uint64_t offered = t->delivered_bytes + t->undelivered_bytes;
        out->lossy_rows = 1;
        if (t->undelivered_bytes)
            cs_warn("backend.packet.transport udp: %llu of %llu payload bytes were not delivered (dropped or lost, "
                    "never sent again); a message completed when each of its packets was delivered or lost, so the "
                    "collectives completed with data missing (flows.csv: delivered_bytes, lost_bytes)",
                    (unsigned long long)t->undelivered_bytes, (unsigned long long)offered);
        snprintf(out->summary, sizeof out->summary,
                 "packet (%s, udp): %llu data packets, %llu dropped, %llu lost, %llu of %llu payload bytes NOT "
                 "delivered (never sent again), PFC pause %.3f us over %u links, largest queue %llu bytes",
                 s->o.pfc ? "lossless, PFC" : "lossy", (unsigned long long)t->data_packets,
                 (unsigned long long)t->drops, (unsigned long long)t->lost, (unsigned long long)t->undelivered_bytes,
                 (unsigned long long)offered, cs_time_as_us_f(pause), npaused, (unsigned long long)maxq);
        return CS_OK;
    }
    snprintf(out->summary, sizeof out->summary,
             "packet (%s%s, cc %s): %llu data packets, %llu retransmitted, %llu dropped, %llu lost, %llu headroom "
             "overflows, %llu ECN marks, %llu CNPs, PFC pause %.3f us over %u links, largest queue %llu bytes",
             s->o.pfc ? "lossless, PFC" : "lossy", s->sr_win ? ", selective repeat" : "", cs_cc_names[s->o.cc],
             (unsigned long long)t->data_packets, (unsigned long long)t->retransmitted, (unsigned long long)t->drops, (unsigned long long)t->lost,
             (unsigned long long)t->headroom_drops, (unsigned long long)t->ecn_marks, (unsigned long long)t->cnps,
             cs_time_as_us_f(pause), npaused, (unsigned long long)maxq);
    return CS_OK;
}

static void pkt_describe_pending(void *state, char *buf, size_t n) {
    if (((pkt_state *)state)->defer) dq_drain_all(state, now_of(state), 1);
    const pkt_state *s = state;
    size_t live = 0, len = 0;
    for (size_t i = 0; i < s->nflows_alloc; i++)
        if (s->flows[i].live && !s->flows[i].delivered) live++;
    buf[0] = '\0';
    if (s->deadlocked) { /* first: what stopped the run */
        len += (size_t)snprintf(buf, n, "%s", s->deadlock);
        if (len < n) len += (size_t)snprintf(buf + len, n - len, "; network: %zu flows in flight", live);
        return;
    }
    if (live) len += (size_t)snprintf(buf, n, "network: %zu flows in flight", live);
    if (s->st.failed_flows && len < n)
        len += (size_t)snprintf(buf + len, n - len, "%s%llu flows stopped after backend.packet.retry_limit (%d) "
                                "retransmit timeouts without progress (first: NPU %u -> NPU %u, %llu bytes)",
                                len ? ", " : "network: ", (unsigned long long)s->st.failed_flows, s->o.retry_limit,
                                s->failed_src, s->failed_dst, (unsigned long long)s->failed_bytes);
    uint32_t paused = 0, first = NONE;
    for (uint32_t l = 0; l < s->topo->nlinks; l++)
        for (uint32_t c = 0; c < s->npri; c++)
            if ((s->ports[l].paused >> c & 1) && (pkt_pc(s, l, c)->qbytes || pkt_pc(s, l, c)->ring != NONE)) {
                paused++;
                if (first == NONE) first = l;
                break;
            }
    if (paused && len < n)
        snprintf(buf + len, n - len, "%s%u links paused by PFC with packets waiting (first: %s %u -> %s %u)",
                 len ? ", " : "network: ", paused, cs_node_kind_name((cs_node_kind)s->topo->kind[lk(s, first)->src]),
                 lk(s, first)->src, cs_node_kind_name((cs_node_kind)s->topo->kind[lk(s, first)->dst]),
                 lk(s, first)->dst);
}

/* The rc transport is this file's own code paths (receiver, receiver_sr, sender, timeout, from_ring's
 * choices): every callback NULL (packet_transport.h). */
const cs_tr_ops cs_tr_rc = {.name = "rc"};

const cs_net_backend cs_net_packet = {
    .name = "packet",
    .help = "RoCEv2 packets over an explicit topology: shared-buffer switches, PFC, ECN, DCQCN, go-back-N or "
            "selective repeat",
    .caps = CS_NET_NEEDS_TOPOLOGY | CS_NET_CONGESTION_AWARE,
    .opts = PKT_OPTS,
    .nopts = sizeof PKT_OPTS / sizeof PKT_OPTS[0],
    .opts_size = sizeof(pkt_opts),
    .create = pkt_create,
    .send = pkt_send,
    .uncontended_time = pkt_time,
    .send_switch = NULL,
    .report = pkt_report,
    .describe_pending = pkt_describe_pending,
    .destroy = pkt_destroy,
};

int cs_packet_stats_get(const cs_net *net, cs_packet_stats *out) {
    if (net->backend != &cs_net_packet) return 0;
    pkt_state *s = net->state;
    if (s->defer) dq_drain_all(s, now_of(s), 1);
    *out = s->st;
    return 1;
}

int cs_packet_defer_arrivals(cs_net *net, int on) {
    if (net->backend != &cs_net_packet) return 0;
    pkt_state *s = net->state;
    if (on && !s->dq) return 0; /* (the run does not allow it) */
    if (!on) dq_drain_all(s, CS_TIME_MAX, 1);
    s->defer = (uint8_t)(on != 0);
    return 1;
}

int cs_packet_queue_bytes(const cs_net *net, uint32_t link, uint64_t *out) {
    if (net->backend != &cs_net_packet) return 0;
    const pkt_state *s = net->state;
    if (link >= s->topo->nlinks) return 0;
    *out = s->ports[link].qbytes;
    return 1;
}

int cs_packet_class_paused(const cs_net *net, uint32_t link, uint32_t cls, cs_time *out) {
    if (net->backend != &cs_net_packet) return 0;
    const pkt_state *s = net->state;
    if (link >= s->topo->nlinks || cls >= s->npri) return 0;
    const pclass *C = pkt_pc(s, link, cls);
    *out = C->pause_time + (s->ports[link].paused >> cls & 1 ? cs_eventq_now(s->q) - C->pause_since : 0);
    return 1;
}
