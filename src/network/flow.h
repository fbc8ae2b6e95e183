/*
 * flow.h -- introspection of the `flow` backend (flow.c) for tests and
 * reports.  The backend itself is used through network.h like any other.
 */
#ifndef CS_NETWORK_FLOW_H
#define CS_NETWORK_FLOW_H

#include <stddef.h>
#include <stdint.h>

#include "network/network.h"

/* Current max-min fair rate (bytes per ns) of the active flow sent with
 * `cookie` on a cs_net running the flow backend; -1 when there is none.
 * Applies the rate changes batched for the current instant first. */
double cs_flow_rate(cs_net *net, uint64_t cookie);
/* Active flows. */
size_t cs_flow_active(const cs_net *net);
/* A test hook: transmission ends through the backend's heap (on = 1, the
 * default of a sequential queue) or an event per end, cancelled and pushed
 * again at every rate change (on = 0, the parallel queue's way); call it
 * before the first message.  Both give the same events in the same order
 * (test_net_flow).  1, else 0 (not the flow backend, or flows started). */
int cs_flow_end_heap(cs_net *net, int on);

#endif
