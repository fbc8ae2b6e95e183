/*
 * network.c -- backend registry and the shared helpers of network.h.
 */
#include "network/network.h"

#include <string.h>

extern const cs_net_backend cs_net_analytical;
extern const cs_net_backend cs_net_congestion; /* congestion.c */
extern const cs_net_backend cs_net_flow;       /* flow.c */

static const cs_net_backend *const g_backends[] = {&cs_net_analytical, &cs_net_congestion, &cs_net_flow, NULL};

const cs_net_backend *const *cs_net_backends(void) { return g_backends; }

const cs_net_backend *cs_net_backend_find(const char *name) {
    for (const cs_net_backend *const *b = g_backends; *b; b++)
        if (strcmp((*b)->name, name) == 0) return *b;
    return NULL;
}

int cs_net_init(cs_net *net, const cs_net_backend *be, const cs_network_config *cfg,
                cs_eventq *q, cs_error *err) {
    memset(net, 0, sizeof *net);
    net->backend = be;
    net->cfg = cfg;
    net->q = q;
    return be->create(cfg, q, &net->state, err);
}

void cs_net_destroy(cs_net *net) {
    if (net->backend && net->state) net->backend->destroy(net->state);
    net->state = NULL;
}

int cs_net_send(cs_net *net, uint32_t src, uint32_t dst, uint64_t bytes, uint64_t key,
                cs_net_done_fn done, void *ctx, uint64_t cookie, cs_error *err) {
    if (src >= net->cfg->total_npus || dst >= net->cfg->total_npus)
        return CS_ERR(err, CS_EINVAL,
                      "transfer from NPU %u to NPU %u: the network (%s) has NPUs 0..%llu",
                      src, dst, net->cfg->path ? net->cfg->path : "network",
                      (unsigned long long)net->cfg->total_npus - 1);
    net->stats.messages++;
    net->stats.bytes += bytes;
    return net->backend->send(net->state, src, dst, bytes, key, done, ctx, cookie, err);
}

int cs_net_send_switch(cs_net *net, uint32_t npu, uint32_t peer, int up, uint64_t bytes, uint64_t key,
                       cs_net_done_fn done, void *ctx, uint64_t cookie, cs_error *err) {
    if (!net->backend->send_switch)
        return CS_ERR(err, CS_EUNSUPPORTED, "the %s backend cannot send to a switch", net->backend->name);
    if (npu >= net->cfg->total_npus || peer >= net->cfg->total_npus)
        return CS_ERR(err, CS_EINVAL, "switch transfer of NPU %u (peer %u): the network has NPUs 0..%llu", npu, peer,
                      (unsigned long long)net->cfg->total_npus - 1);
    net->stats.messages++;
    net->stats.bytes += bytes;
    return net->backend->send_switch(net->state, npu, peer, up, bytes, key, done, ctx, cookie, err);
}

uint32_t cs_net_coord(const cs_network_config *cfg, uint32_t npu, int d) {
    for (int i = 0; i < d; i++) npu /= cfg->npus[i];
    return npu % cfg->npus[d];
}

int cs_net_first_diff_dim(const cs_network_config *cfg, uint32_t a, uint32_t b) {
    for (int d = 0; d < cfg->ndims; d++) {
        uint32_t n = cfg->npus[d];
        if (a % n != b % n) return d;
        a /= n;
        b /= n;
    }
    return -1;
}

uint32_t cs_net_dim_hops(cs_topo_kind kind, uint32_t n, uint32_t ca, uint32_t cb) {
    if (ca == cb) return 0;
    switch (kind) {
    case CS_TOPO_RING: {
        uint32_t fw = cb > ca ? cb - ca : n - (ca - cb);
        uint32_t bw = n - fw;
        return fw < bw ? fw : bw;
    }
    case CS_TOPO_FULLY_CONNECTED: return 1;
    case CS_TOPO_SWITCH: return 2;
    }
    return 1;
}
