/*
 * engine_symmetry.c -- may a run simulate one representative rank?
 *
 * cs_engine_symmetry_check (declared in engine.h) is the static half of the
 * symmetry mode: it decides from the workload, network, backend and system
 * configuration alone whether every rank can follow rank 0's timeline, and
 * says why not otherwise.  The dynamic half -- the run-time guard that falls
 * back to the full simulation when same-instant ties would differ between
 * ranks -- lives in the system layer (src/system/symmetry.c) and the driver
 * (engine.c).  This file owns nothing beyond the call.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "system/system_config.h"
#include "system/coll_algo.h"
#include "network/network.h"
#include "memory/memory_config.h"
#include "scenario/engine.h"

/* Memory models whose accesses from different ranks queue on one resource. */
static int mem_shared(const cs_memory_config *mc) {
    return mc && (mc->type == CS_MEM_PER_NODE_EXPANSION || mc->type == CS_MEM_POOL);
}

static int cfg_index_of(int32_t comm_type) {
    switch (comm_type) {
    case CS_COLL_ALL_REDUCE: return CS_CFG_ALL_REDUCE;
    case CS_COLL_ALL_GATHER: return CS_CFG_ALL_GATHER;
    case CS_COLL_REDUCE_SCATTER: return CS_CFG_REDUCE_SCATTER;
    case CS_COLL_ALL_TO_ALL: return CS_CFG_ALL_TO_ALL;
    default: return -1;
    }
}

/* The collective node n: 0 when symmetric, else a reason in why.  dimop[d]
 * collects the group operation of every dimension (1 shift, 2 XOR). */
static int coll_symmetric(const cs_graph *g, const cs_node *n, const cs_network_config *net,
                          const cs_engine_options *opt, const cs_system_config *cfg, uint8_t *dimop, char *why,
                          size_t whylen) {
    if (!(n->flags & CS_NF_HAS_COMM_TYPE)) return 0; /* an error either way */
    if (n->comm_type == CS_COLL_BARRIER) {
        snprintf(why, whylen, "%s: node %" PRIu64 " is a BARRIER: it completes every member when the last "
                 "one arrives, in that member's events", g->source, n->id);
        return -1;
    }
    const cs_comm_group *cg = NULL;
    cs_error e;
    cs_error_clear(&e);
    if (cs_comm_groups_resolve(opt->comm_groups, g->pg_names[n->pg], &cg, &e) != CS_OK) return 0;
    if (cg && cg->nranks != net->total_npus) {
        snprintf(why, whylen, "%s: node %" PRIu64 " runs on communicator group \"%s\" (%u of %" PRIu64
                 " ranks): ranks outside it do something else", g->source, n->id, cg->name, cg->nranks,
                 net->total_npus);
        return -1;
    }
    int k = cfg_index_of(n->comm_type);
    if (k < 0 || n->comm_size == 0) return 0;
    const cs_coll_algo_list *L = &cfg->impl[k];
    uint32_t involved = cg ? UINT32_MAX : n->involved_dim;
    for (int d = 0; d < L->n && d < net->ndims; d++) {
        /* what the algorithm allows is the system layer's (system/coll_algo.h) */
        const cs_coll_algo *A = L->algo[d].algo;
        char name[64];
        int dim = d;
        if (!A) return 0; /* an error either way */
        if (L->algo[d].one) {
            dim = -1;
            for (int x = 0; x < net->ndims; x++)
                if (net->npus[x] > 1) {
                    if (dim >= 0) {
                        snprintf(why, whylen, "%s: %s over every NPU of a network with several "
                                 "dimensions: ring neighbours cross dimensions at some positions only",
                                 cs_cfg_coll_name((cs_cfg_coll)k), cs_coll_impl_name(&L->algo[d], name, sizeof name));
                        return -1;
                    }
                    dim = x;
                }
            if (dim < 0) return 0;
        } else if (net->npus[d] <= 1 || !((involved >> d) & 1u)) {
            continue;
        }
        if (A->sym_op == CS_ALGO_SYM_NONE) {
            snprintf(why, whylen, "%s-implementation: %s on dimension %d: %s",
                     cs_cfg_coll_name((cs_cfg_coll)k), A->name, d, A->sym_why ? A->sym_why : "no symmetry");
            return -1;
        }
        uint8_t o = A->sym_op == CS_ALGO_SYM_XOR ? 2 : 1;
        if (net->npus[dim] > 2) {
            if (dimop[dim] && dimop[dim] != o) {
                snprintf(why, whylen, "dimension %d runs both ring/direct and halvingDoubling: no "
                         "relabelling of ranks maps both patterns onto themselves", dim);
                return -1;
            }
            dimop[dim] = o;
        }
        if (L->algo[d].one) break;
    }
    return 0;
}

/* NULL when b is a, node ids aside (ranks' traces often number their nodes
 * differently), else what differs.  Node indices are in id order, and
 * everything the executor does goes by index, so such ranks behave alike;
 * only reports name ids, and they take each rank's own. */
static const char *graph_difference(const cs_graph *a, const cs_graph *b) {
    if (a->nnodes != b->nnodes) return "node count";
    if (a->nchildren != b->nchildren) return "dependencies";
    if (a->peer_shift != b->peer_shift) return "point-to-point peers"; /* views (graph.h): one base, other peers */
    for (uint32_t i = 0; i < a->nnodes; i++) {
        /* every field but the id, the name and the communicator's index, which
         * is compared by name (a field added later is compared too: at worst
         * a needless fallback) */
        cs_node x = a->nodes[i], y = b->nodes[i];
        if (strcmp(a->pg_names[x.pg], b->pg_names[y.pg]) != 0) return "communicators";
        x.id = y.id = 0;
        x.name = y.name = 0;
        x.pg = y.pg = 0;
        if (memcmp(&x, &y, sizeof x) != 0) return "node attributes";
    }
    for (uint32_t c = 0; c < a->nchildren; c++)
        if (a->children[c] != b->children[c]) return "dependencies";
    return NULL;
}

/* What both symmetry modes need of the run: a backend whose deliveries take
 * exactly the uncontended time (CS_NET_EXACT_UNCONTENDED: the congestion-
 * unaware analytical one) and one NPU per rank.  0 with the reason in why. */
static int run_allows_symmetry(const cs_workload *w, const cs_network_config *net, const char *backend,
                               const cs_engine_options *opt, char *why, size_t whylen) {
    const cs_compute_model *cm = &opt->compute;
    if (opt->rank_start)
        for (uint32_t r = 0; r < w->nranks; r++)
            if (opt->rank_start[r]) {
                snprintf(why, whylen, "rank %u starts at %" PRIu64 " ps, not with the others (several jobs on one "
                         "cluster)", r, opt->rank_start[r]);
                return 0;
            }
    if (cs_compute_has_stragglers(cm)) {
        snprintf(why, whylen, "run.slow-ranks / run.compute-jitter: the ranks compute at different rates");
        return 0;
    }
    if (!cs_net_backend_has(backend, CS_NET_EXACT_UNCONTENDED)) {
        snprintf(why, whylen, "backend %s: messages share state (links, queues); symmetry needs a backend "
                 "whose deliveries take exactly the uncontended time (the congestion-unaware analytical "
                 "backend)", backend);
        return 0;
    }
    if (net->total_npus != w->nranks) {
        snprintf(why, whylen, "the network has %" PRIu64 " NPUs for %u ranks", net->total_npus, w->nranks);
        return 0;
    }
    return 1;
}

int cs_engine_symmetry_check(const cs_workload *w, const cs_network_config *net, const cs_engine_options *opt,
                          char *why, size_t whylen) {
    const char *backend = opt->backend ? opt->backend : CS_NET_DEFAULT_BACKEND;
    if (opt->symmetry == CS_SYMMETRY_OFF) {
        snprintf(why, whylen, "off (--symmetry=off): every rank is simulated");
        return 0;
    }
    if (w->nranks < 2) {
        snprintf(why, whylen, "one rank: nothing to share");
        return 0;
    }
    for (uint32_t k = 1; k < w->ngraphs; k++) {
        const char *diff = graph_difference(w->graphs[0], w->graphs[k]);
        if (diff) {
            snprintf(why, whylen, "the ranks run different graphs: %s and %s differ (%s); symmetry needs "
                     "one graph for every rank, up to node ids (one trace file for all: "
                     "--workload-configuration=FILE.et)", w->graphs[0]->source, w->graphs[k]->source, diff);
            return 0;
        }
    }
    if (!run_allows_symmetry(w, net, backend, opt, why, whylen)) return 0;
    const cs_graph *g = w->rank_graph[0];
    cs_system_config defaults;
    const cs_system_config *cfg = opt->system;
    if (!cfg) {
        cs_system_config_defaults(&defaults);
        cfg = &defaults;
    }
    uint8_t dimop[CS_MAX_DIMS];
    memset(dimop, 0, sizeof dimop);
    int ok = 1;
    for (uint32_t i = 0; i < g->nnodes && ok; i++) {
        const cs_node *n = &g->nodes[i];
        switch (n->type) {
        case CS_NODE_COMM_SEND:
        case CS_NODE_COMM_RECV:
            snprintf(why, whylen, "%s: node %" PRIu64 " (%s): point-to-point messages go to particular "
                     "ranks", g->source, n->id, cs_node_type_label(n->type));
            ok = 0;
            break;
        case CS_NODE_MEM_LOAD:
        case CS_NODE_MEM_STORE:
            snprintf(why, whylen, "%s: node %" PRIu64 " (%s): remote memory %s", g->source, n->id,
                     cs_node_type_label(n->type),
                     mem_shared(opt->memory) ? "is shared between ranks"
                                             : "is timed by the memory model's own events");
            ok = 0;
            break;
        case CS_NODE_COMM_COLL:
            if (coll_symmetric(g, n, net, opt, cfg, dimop, why, whylen)) ok = 0;
            break;
        default: break;
        }
    }
    if (cfg == &defaults) cs_system_config_free(&defaults);
    if (ok)
        snprintf(why, whylen, "applies: all %u ranks run %s on symmetric collectives; rank 0 is "
                 "simulated and stands for every rank", w->nranks, g->source);
    return ok;
}


int cs_engine_class_check(const cs_workload *w, const cs_network_config *net, const cs_engine_options *opt,
                       char *why, size_t whylen) {
    const char *backend = opt->backend ? opt->backend : CS_NET_DEFAULT_BACKEND;
    const cs_sym_axes *ax = opt->sym_axes;
    if (!run_allows_symmetry(w, net, backend, opt, why, whylen)) return 0;
    if (mem_shared(opt->memory)) {
        snprintf(why, whylen, "the remote memory is shared between ranks");
        return 0;
    }
    uint64_t per_class = 1;
    for (int a = 0; a < ax->n; a++) {
        if (ax->n > CS_SYM_MAX_AXES || ax->size[a] == 0 || ax->stride[a] == 0 ||
            (uint64_t)ax->stride[a] * ax->size[a] > w->nranks || w->nranks % ((uint64_t)ax->stride[a] * ax->size[a])) {
            snprintf(why, whylen, "symmetric axis %d (stride %u, %u ranks) does not divide the %u ranks", a,
                     ax->stride[a], ax->size[a], w->nranks);
            return 0;
        }
        per_class *= ax->size[a];
    }
    if (per_class < 2) {
        snprintf(why, whylen, "no symmetric axis of more than one rank: every rank is its own class");
        return 0;
    }
    snprintf(why, whylen, "applies: %" PRIu64 " classes of %" PRIu64 " ranks; one representative per class "
             "is simulated", w->nranks / per_class, per_class);
    return 1;
}
