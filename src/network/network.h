/*
 * network.h -- the network-backend interface (the seam of DESIGN.md).
 *
 * The system and workload layers ask the network to move `bytes` from NPU
 * `src` to NPU `dst` and are called back, through the shared event queue,
 * when the last byte has arrived.  How long that takes is the backend's
 * business: the congestion-unaware `analytical` backend computes a closed
 * form per message; later backends (analytical-congestion, flow, packet)
 * keep link state.  Every backend is a function table over opaque state,
 * registered by name (cs_net_backend_find), so the CLI's --backend flag and
 * tests can run the same scenario under each one.
 *
 * Ownership: a cs_net owns its backend state; the topology description
 * (cs_network_config) is borrowed and must outlive the cs_net.
 */
#ifndef CS_NETWORK_NETWORK_H
#define CS_NETWORK_NETWORK_H

#include <stdint.h>

#include "config/network_config.h"
#include "core/error.h"
#include "core/eventq.h"
#include "core/time.h"
#include "core/units.h"

/* Called at the simulated time the transfer completed at dst. */
typedef void (*cs_net_done_fn)(void *ctx, uint64_t cookie);

typedef struct cs_net_stats {
    uint64_t messages;    /* transfers started */
    uint64_t bytes;       /* payload bytes started */
    uint64_t delivered;   /* transfers completed */
    uint64_t bytes_delivered;
} cs_net_stats;

typedef struct cs_net_backend {
    const char *name; /* --backend value */
    const char *help; /* one line for --help */
    int (*create)(const cs_network_config *cfg, cs_eventq *q, void **state, cs_error *err);
    /* Start a transfer now (cs_eventq_now).  key: deterministic tie-break
     * for the completion event (derive from the sender and a per-sender
     * counter).  done(ctx, cookie) fires at arrival. */
    int (*send)(void *state, uint32_t src, uint32_t dst, uint64_t bytes, uint64_t key,
                cs_net_done_fn done, void *ctx, uint64_t cookie, cs_error *err);
    /* Closed-form time of one uncontended transfer (for reports and tests). */
    cs_time (*uncontended_time)(void *state, uint32_t src, uint32_t dst, uint64_t bytes);
    void (*destroy)(void *state);
    /* Optional (NULL = not supported): a transfer between NPU `npu` and the
     * switch where the route from npu to NPU `peer` meets its first switch;
     * up = 1: npu -> switch, 0: switch -> npu.  For in-switch collectives. */
    int (*send_switch)(void *state, uint32_t npu, uint32_t peer, int up, uint64_t bytes, uint64_t key,
                       cs_net_done_fn done, void *ctx, uint64_t cookie, cs_error *err);
} cs_net_backend;

typedef struct cs_net {
    const cs_net_backend *backend;
    void *state;
    const cs_network_config *cfg;
    cs_eventq *q;
    cs_net_stats stats;
} cs_net;

/* Registry. */
const cs_net_backend *cs_net_backend_find(const char *name);
/* NULL-terminated list of all registered backends. */
const cs_net_backend *const *cs_net_backends(void);
#define CS_NET_DEFAULT_BACKEND "analytical"

int cs_net_init(cs_net *net, const cs_net_backend *be, const cs_network_config *cfg,
                cs_eventq *q, cs_error *err);
void cs_net_destroy(cs_net *net);
int cs_net_send(cs_net *net, uint32_t src, uint32_t dst, uint64_t bytes, uint64_t key,
                cs_net_done_fn done, void *ctx, uint64_t cookie, cs_error *err);

/* The backend's send_switch (CS_EUNSUPPORTED when it has none). */
int cs_net_send_switch(cs_net *net, uint32_t npu, uint32_t peer, int up, uint64_t bytes, uint64_t key,
                       cs_net_done_fn done, void *ctx, uint64_t cookie, cs_error *err);

/* --- helpers shared by backends ------------------------------------------ */

/* cs_gbps_to_bytes_per_ns: core/units.h (included above). */
/* Address of npu in dimension d (dimension 0 varies fastest). */
uint32_t cs_net_coord(const cs_network_config *cfg, uint32_t npu, int d);
/* First dimension in which a and b differ, or -1 if a == b. */
int cs_net_first_diff_dim(const cs_network_config *cfg, uint32_t a, uint32_t b);
/* Hops between coordinates ca and cb inside one dimension of the given kind. */
uint32_t cs_net_dim_hops(cs_topo_kind kind, uint32_t n, uint32_t ca, uint32_t cb);

#endif
