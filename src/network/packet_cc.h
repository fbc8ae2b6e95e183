/*
 * packet_cc.h -- congestion control of the `packet` backend's senders: the
 * reaction point (RP) of DCQCN, one per flow, as a pure state machine over
 * simulated time (no events of its own).
 *
 * DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments",
 * SIGCOMM 2015), reaction point, with Rc the current rate, Rt the target
 * rate, alpha the congestion estimate:
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
 * Rates are bytes per ns (GB/s decimal); times ps.
 *
 * Timers are evaluated lazily: cs_dcqcn_advance(now) applies, in order,
 * every timer expiry at or before now.  The sender calls it before each
 * packet it sends and before each CNP it handles, so expiries and byte
 * events interleave in time order exactly as with one event per expiry, and
 * an idle or paused flow costs no events (a run with DCQCN always ends).
 */
#ifndef CS_NETWORK_PACKET_CC_H
#define CS_NETWORK_PACKET_CC_H

#include <stdint.h>

#include "core/time.h"

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

#endif
