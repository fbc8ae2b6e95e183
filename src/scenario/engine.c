/*
 * engine.c -- one simulation (see engine.h): composes the event queue, the
 * network backend, the system and memory layers and the executor; decides
 * the symmetry mode, replays a representative run's records for every rank,
 * scales its counts, and falls back to the full simulation.
 *
 * Symmetry: cs_engine_symmetry_check decides from the inputs whether every
 * rank follows rank 0's timeline; then run_once runs rank 0 alone (the
 * system layer's representative mode) and copies its row to every rank,
 * scaling the counts (events, messages, bytes, roofline fallbacks, warnings:
 * each rank has the same) by the rank count.  If that run stops -- the
 * system layer meets something the check could not see, or any error -- the
 * full simulation runs instead, so errors and deadlock reports are the full
 * run's.
 */
#include "scenario/engine.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "config/custom_nodes.h"
#include "core/alloc.h"
#include "core/eventq.h"
#include "core/log.h"
#include "memory/remote.h"

void cs_engine_options_init(cs_engine_options *o) {
    memset(o, 0, sizeof *o);
    o->backend = CS_NET_DEFAULT_BACKEND;
    o->comm_streams = 1;
    o->injection_scale = 1.0;
}

void cs_engine_options_set_system(cs_engine_options *o, const cs_system_config *sc) {
    o->system = sc;
    o->compute.roofline = sc->roofline_enabled ? 1 : 0;
    o->compute.peak_flops = sc->peak_perf_tflops * 1e12;
    o->compute.mem_bw_bytes_ps = sc->local_mem_bw_gbps * 1e9;
}

/* Representative run: what rank 0 reported, when, and in an event caused by
 * which rank (the full run reports every rank's copy of one instant's items
 * in the order of that rank moved by the symmetry; see rep_replay). */
struct rep_rec {
    cs_coll_record r;
    char algos[64];
    cs_time t;
    uint32_t root;
    int dispatched;
};
struct rep_span {
    cs_node_span sp;
    cs_time t;
    uint32_t root;
    int dispatched;
};

typedef struct engine {
    const cs_workload *w;
    const cs_engine_options *opt;
    cs_eventq *q;
    cs_net net;
    cs_system *sys;
    cs_memory mem;
    cs_exec *x;
    /* a representative run's collective records and node spans, reported
     * for every rank when the run has succeeded */
    struct rep_rec *recs;
    size_t nrecs, caprecs;
    struct rep_span *spans;
    size_t nspans, capspans;
    struct timespec wall_start, wall_last;
} engine;

static double elapsed_s(const struct timespec *a, const struct timespec *b) {
    return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* A progress line every progress_ms of wall time (2 s from the CLI): the share of the simulated ranks'
 * nodes completed, and the time left estimated from the rate so far (nodes
 * differ in cost, so the estimate is rough; it is labelled "about"). */
static void progress(engine *e) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (elapsed_s(&e->wall_last, &now) < e->opt->progress_ms / 1000.0) return;
    e->wall_last = now;
    char buf[32];
    uint64_t done, total;
    cs_exec_progress(e->x, &done, &total);
    double wall = elapsed_s(&e->wall_start, &now);
    char pct[96] = "";
    if (total) {
        double f = (double)done / (double)total;
        if (done)
            snprintf(pct, sizeof pct, "%.1f %% of %" PRIu64 " nodes, about %.1f s left, ", 100.0 * f, total,
                     wall * (1.0 - f) / f);
        else
            snprintf(pct, sizeof pct, "0.0 %% of %" PRIu64 " nodes, ", total);
    }
    fprintf(stderr, "clustersim: %s%.1f s wall, simulated %s, %" PRIu64 " events\n", pct, wall,
            cs_time_fmt(cs_eventq_now(e->q), buf, sizeof buf), cs_eventq_dispatched(e->q));
}

static void free_engine(engine *e) {
    cs_exec_free(e->x);
    cs_free(e->recs);
    cs_free(e->spans);
    cs_memory_destroy(&e->mem);
    cs_system_free(e->sys);
    cs_net_destroy(&e->net);
    cs_eventq_free(e->q);
}

/* Representative run: keep rank 0's collective records (each stands for
 * every member) and node spans until the run is known to be good, with the
 * instant and the cause's rank (the key of the event being dispatched). */
/* Whether an event is being dispatched, and then its cause's rank. */
static int cause(const engine *e, uint32_t *root) {
    uint64_t key = 0;
    int dispatched = cs_eventq_dispatching(e->q, &key);
    *root = (uint32_t)(key >> 32);
    return dispatched;
}

static void rep_record(void *ud, const cs_coll_record *r) {
    engine *e = ud;
    CS_GROW(e->recs, e->caprecs, e->nrecs + 1);
    struct rep_rec *x = &e->recs[e->nrecs++];
    x->r = *r;
    snprintf(x->algos, sizeof x->algos, "%s", r->algorithms ? r->algorithms : "");
    x->t = cs_eventq_now(e->q);
    x->dispatched = cause(e, &x->root);
}

static void rep_span_done(void *ud, const cs_node_span *sp) {
    engine *e = ud;
    CS_GROW(e->spans, e->capspans, e->nspans + 1);
    struct rep_span *x = &e->spans[e->nspans++];
    x->sp = *sp;
    x->t = sp->end;
    x->dispatched = cause(e, &x->root);
}

/* The rank whose copy of an item comes v-th in its instant of the full run:
 * ranks report in the order of their events' keys, (cause's rank, counter),
 * and rank r's cause is rank 0's moved by g_r; before the first event (the
 * issue at time 0) ranks run in rank order. */
static uint32_t rep_rank(const engine *e, uint32_t v, uint32_t root, int dispatched) {
    return dispatched ? cs_system_sym_rank(e->sys, v, root) : v;
}

/* Report what the representative run kept, for every rank, in the full
 * run's order: per instant (and the pre-dispatch issue apart), for v = 0 ..
 * nranks-1, rank 0's items of that instant in their order, each for the
 * rank that comes v-th.  (All of one instant's items were reported in
 * events of one cause's rank: the symmetry guard sees to it, as they all
 * act on the executor.)  Collective records may instead be reported once,
 * standing for every member (coll_records_representative). */
static void rep_replay(engine *e) {
    uint32_t n = e->w->nranks;
    const cs_coll_observer *co = e->opt->coll_observer;
    for (size_t i = 0; co && co->coll_done && i < e->nrecs;) {
        size_t j = i;
        while (j < e->nrecs && e->recs[j].t == e->recs[i].t && e->recs[j].dispatched == e->recs[i].dispatched) j++;
        if (e->opt->coll_records_representative) {
            for (size_t k = i; k < j; k++) {
                cs_coll_record r = e->recs[k].r;
                r.algorithms = e->recs[k].algos;
                co->coll_done(co->ud, &r);
            }
        } else {
            for (uint32_t v = 0; v < n; v++)
                for (size_t k = i; k < j; k++) {
                    cs_coll_record r = e->recs[k].r;
                    r.algorithms = e->recs[k].algos;
                    r.represents = 1;
                    r.rank = rep_rank(e, v, e->recs[k].root, e->recs[k].dispatched);
                    if (e->w->ngraphs > 1) { /* the rank's own node id */
                        const cs_graph *g0 = e->w->rank_graph[0];
                        uint32_t idx = cs_graph_find(g0, e->recs[k].r.node_id);
                        if (idx != UINT32_MAX) r.node_id = e->w->rank_graph[r.rank]->nodes[idx].id;
                    }
                    co->coll_done(co->ud, &r);
                }
        }
        i = j;
    }
    const cs_exec_observer *no = e->opt->observer;
    for (size_t i = 0; no && no->node_done && i < e->nspans;) {
        size_t j = i;
        while (j < e->nspans && e->spans[j].t == e->spans[i].t && e->spans[j].dispatched == e->spans[i].dispatched) j++;
        for (uint32_t v = 0; v < n; v++)
            for (size_t k = i; k < j; k++) {
                cs_node_span sp = e->spans[k].sp;
                sp.rank = rep_rank(e, v, e->spans[k].root, e->spans[k].dispatched);
                sp.graph = e->w->rank_graph[sp.rank];
                sp.node = &sp.graph->nodes[e->spans[k].sp.node - e->spans[k].sp.graph->nodes];
                no->node_done(no->ud, &sp);
            }
        i = j;
    }
}

/* Class mode: report what the representatives did, once each (records
 * stand for every rank of their class; spans are the representatives'). */
static void cls_replay(engine *e) {
    const cs_coll_observer *co = e->opt->coll_observer;
    for (size_t i = 0; co && co->coll_done && i < e->nrecs; i++) {
        cs_coll_record r = e->recs[i].r;
        r.algorithms = e->recs[i].algos;
        co->coll_done(co->ud, &r);
    }
    const cs_exec_observer *no = e->opt->observer;
    for (size_t i = 0; no && no->node_done && i < e->nspans; i++) no->node_done(no->ud, &e->spans[i].sp);
}

/* One simulation: every rank (mode CS_EXEC_FULL), rank 0 standing for every
 * rank, or one representative per class. */
static int run_once(const cs_workload *w, const cs_network_config *netcfg, const cs_engine_options *opt,
                    const cs_net_backend *be, cs_exec_mode mode, const cs_custom_node_map *custom_nodes,
                    cs_engine_result *res, cs_error *err, char *why, size_t whylen) {
    engine E;
    memset(&E, 0, sizeof E);
    engine *e = &E;
    int rep = mode != CS_EXEC_FULL;
    e->w = w;
    e->opt = opt;
    e->q = cs_eventq_new();
    res->nranks = w->nranks;
    res->ranks = cs_calloc(w->nranks, sizeof *res->ranks);
    cs_exec_observer span_obs = {rep_span_done, e};
    cs_exec_params xp = {.w = w,
                         .q = e->q,
                         .compute = opt->compute,
                         .comm_streams = opt->comm_streams,
                         .observer = rep && opt->observer ? &span_obs : opt->observer,
                         .mode = mode,
                         .ranks = res->ranks,
                         .rank_start = opt->rank_start,
                         .err = err,
                         .system = opt->system,
                         .groups = opt->comm_groups,
                         .custom_nodes = custom_nodes};
    e->x = cs_exec_new(&xp);
    cs_net_env env = {.cfg = netcfg, .topo = netcfg->topology, .q = e->q, .observer = opt->net_observer,
                      .healthy = opt->net_healthy, .opts = opt->net_opts, .rank_tclass = opt->rank_tclass};
    int rc = cs_net_init(&e->net, be, &env, err);
    cs_coll_observer rep_obs = {rep_record, e};
    cs_system_params sp = {.config = opt->system,
                           .network = netcfg,
                           .groups = opt->comm_groups,
                           .injection_scale = opt->injection_scale,
                           .next_key = cs_exec_next_key,
                           .key_ud = e->x,
                           .fail = cs_exec_fail,
                           .fail_ud = e->x,
                           .observer = rep && opt->coll_observer ? &rep_obs : opt->coll_observer,
                           .representative = rep,
                           .axes = mode == CS_EXEC_CLASS ? opt->sym_axes : NULL,
                           .custom_dim = cs_exec_cdim_loader(e->x)};
    if (rc == CS_OK) rc = cs_system_new(e->q, &e->net, w->nranks, &sp, &e->sys, err);
    /* (a representative run has no memory accesses; the model is set up as usual) */
    if (rc == CS_OK) rc = cs_memory_init(&e->mem, opt->memory, e->q, w->nranks, err);
    if (rc) {
        if (rep) snprintf(why, whylen, "setting it up failed (%.300s)", err && err->msg[0] ? err->msg : "?");
        free_engine(e);
        cs_engine_result_free(res);
        return rc;
    }
    unsigned long warn0 = cs_log_warning_count();
    clock_gettime(CLOCK_MONOTONIC, &e->wall_start);
    e->wall_last = e->wall_start;
    cs_exec_start(e->x, &e->net, e->sys, &e->mem);
    uint64_t n = 0;
    int stopped = 0;
    while (!cs_exec_failed(e->x) && !e->net.halted && cs_eventq_step(e->q)) {
        if ((++n & 0x3ff) == 0) {
            if (opt->stop && *opt->stop) {
                stopped = 1;
                break;
            }
            if (opt->progress && (n & 0xffff) == 0) progress(e);
        }
    }
    if (stopped) {
        char t[32];
        CS_ERR(err, CS_EINTR, "interrupted at simulated time %s after %" PRIu64 " events",
               cs_time_fmt(cs_eventq_now(e->q), t, sizeof t), cs_eventq_dispatched(e->q));
        cs_exec_fail(e->x, CS_EINTR);
        rc = CS_EINTR;
    } else {
        rc = cs_exec_finish(e->x, why, whylen);
        if (rc == CS_OK) cs_net_check_drained(&e->net); /* (an invariant: core/invariant.h) */
    }
    uint32_t nsim = cs_exec_simulated(e->x);
    uint64_t scale = rep ? w->nranks / (nsim ? nsim : 1) : 1;
    res->events = cs_eventq_dispatched(e->q) * scale;
    res->net_messages = e->net.stats.messages * scale;
    res->net_bytes = e->net.stats.bytes * scale;
    res->roofline_fallbacks = cs_exec_roofline_fallbacks(e->x) * scale;
    res->warnings = (cs_log_warning_count() - warn0) * scale;
    res->symmetric = (int)mode;
    res->simulated_ranks = nsim;
    res->coll = *cs_system_get_stats(e->sys);
    res->coll.messages *= scale; /* collectives are instances: the same count in both modes */
    res->coll.bytes_sent *= scale;
    res->coll.bytes_recv *= scale;
    res->coll.reductions *= scale;
    if (!rc && mode == CS_EXEC_CLASS) {
        for (uint32_t rk = 0; rk < w->nranks; rk++) {
            uint32_t r0 = cs_system_rep_of(e->sys, rk);
            if (r0 != rk) res->ranks[rk] = res->ranks[r0];
        }
        cls_replay(e);
    } else if (!rc && mode == CS_EXEC_REP) {
        for (uint32_t rk = 1; rk < w->nranks; rk++) res->ranks[rk] = res->ranks[0];
        rep_replay(e);
    }
    for (uint32_t rk = 0; rk < w->nranks; rk++)
        if (res->ranks[rk].finish > res->sim_time) res->sim_time = res->ranks[rk].finish;
    if (rc && err && err->code == CS_OK) CS_ERR(err, rc, "simulation failed");
    if (!rc && opt->link_report) { /* the backend's link statistics outlive it */
        cs_net_link_report_free(opt->link_report);
        rc = cs_net_report(&e->net, opt->link_report, err);
    }
    free_engine(e);
    if (rc) cs_engine_result_free(res);
    return rc;
}

static int engine_run(const cs_workload *w, const cs_network_config *netcfg, const cs_engine_options *opt,
                      const cs_net_backend *be, const cs_custom_node_map *nodes, cs_engine_result *res,
                      cs_error *err);

int cs_engine_run(const cs_workload *w, const cs_network_config *netcfg, const cs_engine_options *opt,
                  cs_engine_result *res, cs_error *err) {
    memset(res, 0, sizeof *res);
    if (w->nranks != netcfg->total_npus)
        return CS_ERR(err, CS_EINVAL,
                      "workload %s has %u ranks but the network %s has %" PRIu64
                      " NPUs; expected one trace per NPU",
                      w->prefix, w->nranks, netcfg->path ? netcfg->path : "", netcfg->total_npus);
    const cs_net_backend *be = cs_net_backend_find(opt->backend ? opt->backend : CS_NET_DEFAULT_BACKEND);
    if (!be) return CS_ERR(err, CS_EINVAL, "--backend %s: unknown network backend", opt->backend);
    /* per-node-custom-implementation: read once for the run (relative to the
     * working directory, as ASTRA-sim reads it) */
    cs_custom_node_map nodes_map, *nodes = NULL;
    if (opt->system && opt->system->per_node_custom_impl) {
        int rc = cs_custom_nodes_load(opt->system->per_node_custom_impl, &nodes_map, err);
        if (rc) {
            cs_error_prefix(err, "%s: per-node-custom-implementation: ",
                            opt->system->path ? opt->system->path : "the system configuration");
            return rc;
        }
        nodes = &nodes_map;
    }
    int rc = engine_run(w, netcfg, opt, be, nodes, res, err);
    cs_custom_node_map_free(nodes);
    return rc;
}

static int engine_run(const cs_workload *w, const cs_network_config *netcfg, const cs_engine_options *opt,
                      const cs_net_backend *be, const cs_custom_node_map *nodes, cs_engine_result *res,
                      cs_error *err) {
    char why[512];
    /* class mode when the caller gave axes, else the single representative */
    int cls = opt->sym_axes && opt->symmetry != CS_SYMMETRY_OFF;
    int no_fallback = (cls && opt->sym_no_fallback) || opt->symmetry == CS_SYMMETRY_REQUIRE;
    if (cls ? cs_engine_class_check(w, netcfg, opt, why, sizeof why)
            : cs_engine_symmetry_check(w, netcfg, opt, why, sizeof why)) {
        cs_info("symmetry %s", why);
        cs_error e;
        cs_error_clear(&e);
        int rc = run_once(w, netcfg, opt, be, cls ? CS_EXEC_CLASS : CS_EXEC_REP, nodes, res, &e, why, sizeof why);
        if (rc == CS_OK) return CS_OK;
        if (rc == CS_EINTR) { /* stopped: no fallback */
            if (err) *err = e;
            return rc;
        }
        memset(res, 0, sizeof *res);
        if (no_fallback) return CS_ERR(err, CS_EUNSUPPORTED, "the representative run stopped: %s", why);
        cs_info("symmetry: the representative run stopped: %s; simulating every rank", why);
    } else {
        if (no_fallback) return CS_ERR(err, CS_EUNSUPPORTED, "symmetry does not apply: %s", why);
        cs_info("symmetry does not apply: %s", why);
    }
    return run_once(w, netcfg, opt, be, CS_EXEC_FULL, nodes, res, err, why, sizeof why);
}

void cs_engine_result_free(cs_engine_result *res) {
    cs_free(res->ranks);
    res->ranks = NULL;
}
