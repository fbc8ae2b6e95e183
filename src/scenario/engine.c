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
 *
 * Parallel run (options.threads > 1, docs/parallel.md): the full
 * simulation on a parallel queue over the conservative engine (core/peq.h),
 * one partition of ranks per thread, when par_check allows it (else one
 * line on stderr says why and the run is sequential); the collective
 * records are kept per partition and handed to the observer after the run
 * in the order of their end times.  A parallel run that stops -- a feature
 * the layers cannot do in parallel, a lookahead refusal, any failure -- is
 * thrown away and runs again (a refusal under the outermost dimension's
 * lookahead: in parallel with the safe one; else on one thread), so
 * results and errors are always the sequential run's.
 */
#include "scenario/engine.h"

#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "config/custom_nodes.h"
#include "core/alloc.h"
#include "core/eventq.h"
#include "core/log.h"
#include "core/peq.h"
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

/* A parallel run's collective record, kept by its partition until the end
 * (the records reach the observer in the order of their end times). */
struct par_rec {
    cs_coll_record r;
    char algos[160];
    uint64_t ord; /* (partition << 40) | index in its buffer: ties in a fixed order */
};
struct par_buf {
    struct par_rec *r;
    size_t n, cap;
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
    /* a parallel run (docs/parallel.md): the engine, rank -> partition,
     * per partition its collective records */
    cs_peq *peq;
    uint32_t *part_of;
    struct par_buf *pbuf;
    int par_stopped;
    int par_probe;      /* the yield check is due (par_stop) */
    uint32_t par_threads;
    cs_time par_L;
    char par_low[320];  /* why the run goes back to one thread for its yield, or "" */
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
    if (e->pbuf)
        for (uint32_t i = 0; i < cs_peq_nparts(e->peq); i++) cs_free(e->pbuf[i].r);
    cs_free(e->pbuf);
    cs_peq_free(e->peq);
    cs_free(e->part_of);
}

/* ---- the parallel run ------------------------------------------------------ */

/* Partitions: blocks of ranks along the outermost dimension of more than
 * one NPU (the inner dimensions' traffic stays inside a block), or, when it
 * has fewer coordinates than partitions, contiguous blocks of ranks. */
static uint32_t *par_partition(const cs_network_config *net, uint32_t nranks, uint32_t nparts) {
    uint32_t *part = cs_malloc((size_t)nranks * sizeof *part);
    uint64_t stride = 1, outer_n = 1, outer_stride = 1;
    for (int d = 0; d < net->ndims; d++) {
        if (net->npus[d] > 1) {
            outer_n = net->npus[d];
            outer_stride = stride;
        }
        stride *= net->npus[d];
    }
    for (uint32_t r = 0; r < nranks; r++)
        part[r] = outer_n >= nparts ? (uint32_t)((r / outer_stride % outer_n) * nparts / outer_n)
                                    : (uint32_t)((uint64_t)r * nparts / nranks);
    return part;
}

/* Whether the full simulation can run on the parallel engine: 0 and the
 * lookahead (ps), or nonzero and why not.  The lookahead: every message
 * between two ranks takes at least trunc(hops x latency + bytes / bw) ns
 * in the first dimension where they differ (network/analytical.c), hops
 * >= 1, so at least the smallest whole-ns latency of the dimensions. */
static int par_check(const cs_workload *w, const cs_network_config *netcfg, const cs_engine_options *opt,
                     const cs_net_backend *be, cs_time *L, cs_time *L_outer, char *why, size_t n) {
    if (strcmp(be->name, "analytical"))
        return snprintf(why, n, "the %s backend keeps link state that every rank's messages share", be->name), 1;
    if (w->nranks < 2) return snprintf(why, n, "one rank"), 1;
    if (opt->memory && opt->memory->type != CS_MEM_NO_EXPANSION)
        return snprintf(why, n, "a remote memory is shared by several ranks"), 1;
    if (opt->observer)
        return snprintf(why, n, "node spans are observed (--trace, --report, a generated workload's split)"), 1;
    if (opt->net_observer || opt->link_report) return snprintf(why, n, "the network is observed"), 1;
    if (netcfg->topology) return snprintf(why, n, "ranks are placed on a topology"), 1;
    double lat = -1;
    for (int d = 0; d < netcfg->ndims; d++)
        if (netcfg->npus[d] > 1 && (lat < 0 || netcfg->latency_ns[d] < lat)) lat = netcfg->latency_ns[d];
    if (!(lat >= 1))
        return snprintf(why, n, "a dimension's latency is %g ns: messages between partitions may take no time, "
                        "there is no lookahead", lat < 0 ? 0 : lat), 1;
    *L = cs_time_from_ns((uint64_t)lat);
    /* The optimistic lookahead: when the blocks split the outermost
     * dimension (par_partition), two ranks of different blocks differ
     * there, and a message between them takes at least its latency x its
     * fewest hops between distinct coordinates -- unless they differ in an
     * inner dimension too (the message then travels there, faster).  The
     * engine refuses every push sooner than the lookahead (core/peq.h), so
     * trying it is safe: on a refusal the run starts again with L. */
    *L_outer = *L;
    int outer = -1;
    for (int d = 0; d < netcfg->ndims; d++)
        if (netcfg->npus[d] > 1) outer = d;
    if (outer >= 0 && netcfg->npus[outer] >= opt->threads) {
        uint32_t hops = cs_net_dim_hops(netcfg->topo[outer], netcfg->npus[outer], 0, 1);
        for (uint32_t c = 2; c < netcfg->npus[outer]; c++) {
            uint32_t h = cs_net_dim_hops(netcfg->topo[outer], netcfg->npus[outer], 0, c);
            if (h < hops) hops = h;
        }
        double lo = (double)hops * netcfg->latency_ns[outer];
        if (lo >= 1 && cs_time_from_ns((uint64_t)lo) > *L) *L_outer = cs_time_from_ns((uint64_t)lo);
    }
    return 0;
}

static void par_record(void *ud, const cs_coll_record *r) {
    engine *e = ud;
    struct par_buf *b = &e->pbuf[cs_eventq_part(e->q)];
    CS_GROW(b->r, b->cap, b->n + 1);
    struct par_rec *x = &b->r[b->n++];
    x->r = *r;
    snprintf(x->algos, sizeof x->algos, "%s", r->algorithms ? r->algorithms : "");
    x->r.algorithms = NULL; /* (x moves as the buffer grows: set at the replay) */
}

static int par_rec_cmp(const void *a, const void *b) {
    const struct par_rec *x = *(struct par_rec *const *)a, *y = *(struct par_rec *const *)b;
    if (x->r.end != y->r.end) return x->r.end < y->r.end ? -1 : 1;
    return x->ord < y->ord ? -1 : x->ord > y->ord; /* one partition's in their order; partitions in index order */
}

/* The records in the order of their end times: what the observer (the
 * collective aggregator, scenario/coll_agg.h) needs -- it emits the
 * instances of one instant in its own order, whatever the order of the
 * records of that instant. */
static void par_replay(engine *e) {
    const cs_coll_observer *co = e->opt->coll_observer;
    if (!co || !co->coll_done) return;
    size_t n = 0;
    uint32_t np = cs_peq_nparts(e->peq);
    for (uint32_t i = 0; i < np; i++) n += e->pbuf[i].n;
    struct par_rec **v = cs_malloc((n ? n : 1) * sizeof *v);
    size_t k = 0;
    for (uint32_t i = 0; i < np; i++)
        for (size_t j = 0; j < e->pbuf[i].n; j++) {
            e->pbuf[i].r[j].ord = (uint64_t)i << 40 | j;
            v[k++] = &e->pbuf[i].r[j];
        }
    /* (across partitions the order of equal end times does not matter to
     * the aggregator; it is fixed all the same) */
    qsort(v, n, sizeof *v, par_rec_cmp);
    for (size_t i = 0; i < n; i++) {
        v[i]->r.algorithms = v[i]->algos;
        co->coll_done(co->ud, &v[i]->r);
    }
    cs_free(v);
}

/* After this many windows a parallel run checks its yield
 * (cs_engine_options.par_min_events). */
#define PAR_PROBE_WINDOWS 256

/* Checked at every barrier: stop on a failure, a halt or the caller's flag,
 * or, once, for a low yield; progress lines. */
static int par_stop(void *ud) {
    engine *e = ud;
    if (cs_exec_failed(e->x) || e->net.halted) return 1;
    if (e->opt->stop && *e->opt->stop) { /* (first: a stop is not a low yield) */
        e->par_stopped = 1;
        return 1;
    }
    if (e->par_probe) {
        cs_peq_stats st;
        cs_peq_get_stats(e->peq, &st);
        if (st.windows >= PAR_PROBE_WINDOWS) {
            e->par_probe = 0;
            uint64_t min = (uint64_t)e->opt->par_min_events * e->par_threads;
            if (st.dispatched < min * st.windows) {
                snprintf(e->par_low, sizeof e->par_low,
                         "its first %" PRIu64 " windows of %.3f us (the lookahead) ran %" PRIu64 " events, %.0f per "
                         "window and thread, fewer than --parallel-min-events %u: too few to share between threads",
                         st.windows, (double)e->par_L / 1e6, st.dispatched,
                         (double)st.dispatched / (double)st.windows / e->par_threads, e->opt->par_min_events);
                return 1;
            }
        }
    }
    if (e->opt->progress) progress(e);
    return 0;
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
#define PAR_RETRY (-1000) /* run_once: the parallel run stopped; run again on one thread */

/* threads > 1: on the parallel engine with lookahead L (the full
 * simulation; par_check said yes).  Then *par_why (non-NULL) gets why the
 * run must run again on one thread, when it stopped for that. */
static int run_once(const cs_workload *w, const cs_network_config *netcfg, const cs_engine_options *opt,
                    const cs_net_backend *be, cs_exec_mode mode, const cs_custom_node_map *custom_nodes,
                    cs_engine_result *res, cs_error *err, char *why, size_t whylen, uint32_t threads, cs_time L,
                    char *par_why, size_t par_whylen, int *violated) {
    engine E;
    memset(&E, 0, sizeof E);
    engine *e = &E;
    int rep = mode != CS_EXEC_FULL;
    e->w = w;
    e->opt = opt;
    int par = threads > 1 && !rep;
    if (par) {
        if (threads > w->nranks) threads = w->nranks;
        e->peq = cs_peq_new(threads, L);
        cs_peq_set_plain(e->peq);
        e->par_probe = opt->par_min_events > 0;
        e->par_threads = threads;
        e->par_L = L;
        cs_peq_set_timing(e->peq, cs_log_level() >= CS_LOG_INFO); /* (the --verbose line's critical path) */
        e->part_of = par_partition(netcfg, w->nranks, threads);
        e->pbuf = cs_calloc(threads, sizeof *e->pbuf);
        e->q = cs_eventq_new_parallel(e->peq, e->part_of);
    } else {
        e->q = cs_eventq_new();
    }
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
    cs_coll_observer rep_obs = {rep_record, e}, par_obs = {par_record, e};
    cs_system_params sp = {.config = opt->system,
                           .network = netcfg,
                           .groups = opt->comm_groups,
                           .injection_scale = opt->injection_scale,
                           .next_key = cs_exec_next_key,
                           .key_ud = e->x,
                           .fail = cs_exec_fail,
                           .fail_ud = e->x,
                           .observer = rep && opt->coll_observer   ? &rep_obs
                                       : par && opt->coll_observer ? &par_obs
                                                                   : opt->coll_observer,
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
    if (par) {
        cs_error pe;
        cs_error_clear(&pe);
        cs_peq_set_stop(e->peq, par_stop, e);
        int prc = cs_peq_run(e->peq, threads, &pe);
        stopped = e->par_stopped;
        const char *pw = cs_exec_parallel_why(e->x);
        if (!pw) pw = cs_system_parallel_why(e->sys);
        if (!pw && e->par_low[0]) pw = e->par_low;
        if (prc) pw = pe.msg;
        if (prc && violated) *violated = 1;
        if (!stopped && (pw || cs_exec_failed(e->x) || e->net.halted)) {
            /* run again on one thread: for what it cannot do, or for the
             * sequential run's own error (its message, its deadlock report) */
            snprintf(par_why, par_whylen, "%.300s", pw ? pw : "");
            free_engine(e);
            cs_engine_result_free(res);
            return PAR_RETRY;
        }
        cs_net_collect_stats(&e->net);
        cs_system_collect_stats(e->sys);
        cs_peq_stats st; /* (--verbose) */
        cs_peq_get_stats(e->peq, &st);
        /* (the instances freed at the barriers: tests/cli_parallel.sh checks them against the records) */
        cs_info("parallel engine: %u threads, %" PRIu64 " events, %" PRIu64 " windows of %" PRIu64 " ps, %" PRIu64
                " events mailed at barriers, %" PRIu64 " merges, %" PRIu64 " collective instances freed; critical "
                "path %.3f CPU-s in windows + %.3f CPU-s at barriers", threads, st.dispatched, st.windows, L,
                st.mailed, st.merges, cs_system_get_stats(e->sys)->collectives, st.parallel_cpu_s, st.serial_cpu_s);
    }
    while (!par && !cs_exec_failed(e->x) && !e->net.halted && cs_eventq_step(e->q)) {
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
    } else if (!rc && par) {
        par_replay(e);
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

/* The run's backend and per-node-custom-implementation map (read once for
 * the run, relative to the working directory, as ASTRA-sim reads it; *nodes
 * NULL when the system names none). */
static int engine_inputs(const cs_engine_options *opt, const cs_net_backend **be, cs_custom_node_map *map,
                         cs_custom_node_map **nodes, cs_error *err) {
    *nodes = NULL;
    *be = cs_net_backend_find(opt->backend ? opt->backend : CS_NET_DEFAULT_BACKEND);
    if (!*be) return CS_ERR(err, CS_EINVAL, "--backend %s: unknown network backend", opt->backend);
    if (opt->system && opt->system->per_node_custom_impl) {
        int rc = cs_custom_nodes_load(opt->system->per_node_custom_impl, map, err);
        if (rc) {
            cs_error_prefix(err, "%s: per-node-custom-implementation: ",
                            opt->system->path ? opt->system->path : "the system configuration");
            return rc;
        }
        *nodes = map;
    }
    return CS_OK;
}

int cs_engine_run(const cs_workload *w, const cs_network_config *netcfg, const cs_engine_options *opt,
                  cs_engine_result *res, cs_error *err) {
    memset(res, 0, sizeof *res);
    if (w->nranks != netcfg->total_npus)
        return CS_ERR(err, CS_EINVAL,
                      "workload %s has %u ranks but the network %s has %" PRIu64
                      " NPUs; expected one trace per NPU",
                      w->prefix, w->nranks, netcfg->path ? netcfg->path : "", netcfg->total_npus);
    const cs_net_backend *be;
    cs_custom_node_map nodes_map, *nodes;
    int rc = engine_inputs(opt, &be, &nodes_map, &nodes, err);
    if (rc) return rc;
    rc = engine_run(w, netcfg, opt, be, nodes, res, err);
    cs_custom_node_map_free(nodes);
    return rc;
}

int cs_engine_check(const cs_network_config *netcfg, const cs_engine_options *opt, cs_error *err) {
    const cs_net_backend *be;
    cs_custom_node_map nodes_map, *nodes;
    int rc = engine_inputs(opt, &be, &nodes_map, &nodes, err);
    if (rc) return rc;
    cs_custom_node_map_free(nodes);
    /* the backend as run_once creates it, on a queue that never runs */
    cs_eventq *q = cs_eventq_new();
    cs_net net;
    cs_net_env env = {.cfg = netcfg, .topo = netcfg->topology, .q = q, .observer = opt->net_observer,
                      .healthy = opt->net_healthy, .opts = opt->net_opts, .rank_tclass = opt->rank_tclass};
    rc = cs_net_init(&net, be, &env, err);
    cs_net_destroy(&net);
    cs_eventq_free(q);
    return rc;
}

/* Before a run: whether the bytes it must allocate for every rank at its
 * start -- the per-rank results of any run, and the exec and system state
 * of every rank when full -- fit in the machine's memory with what is in
 * use.  A lower bound (the traces' nodes come on top): a run refused here
 * could not have finished, and is refused in a moment instead of after
 * minutes of paging or the kernel's out-of-memory killer. */
int cs_engine_fits_machine(uint32_t nranks, const cs_network_config *netcfg, int full, uint64_t extra_per_rank,
                           const char *why, cs_error *err) {
    uint64_t per = sizeof(cs_rank_result) + extra_per_rank;
    if (full) per += cs_exec_rank_bytes() + cs_system_rank_bytes(netcfg->ndims);
    uint64_t need = (uint64_t)nranks * per, have = cs_alloc_machine_bytes(), used = cs_alloc_bytes_in_use();
    if (have == SIZE_MAX || (used < have && need <= have - used)) return CS_OK;
    return CS_ERR(err, CS_ENOMEM,
                  "%s %u ranks needs at least %" PRIu64 " bytes (%" PRIu64 " per rank, before the traces' "
                  "nodes), more than this machine's memory: %" PRIu64 " bytes (RAM and swap, or the memory "
                  "limit of this process's control group), %" PRIu64 " in use; expected fewer NPUs%s%s%s",
                  full ? "simulating every one of the" : "the results of", nranks, need, per, have, used,
                  full ? ", or ranks that are symmetric (--symmetry auto, the default, then simulates one "
                         "rank per class)" : "",
                  full && why && *why ? "; here " : "", full && why ? why : "");
}
static int fits_machine(const cs_workload *w, const cs_network_config *netcfg, int full, const char *why,
                        cs_error *err) {
    return cs_engine_fits_machine(w->nranks, netcfg, full, 0, why, err);
}

static int engine_run(const cs_workload *w, const cs_network_config *netcfg, const cs_engine_options *opt,
                      const cs_net_backend *be, const cs_custom_node_map *nodes, cs_engine_result *res,
                      cs_error *err) {
    char why[512];
    int frc = fits_machine(w, netcfg, 0, NULL, err), stopped_rep = 0;
    if (frc) return frc;
    /* class mode when the caller gave axes, else the single representative */
    int cls = opt->sym_axes && opt->symmetry != CS_SYMMETRY_OFF;
    int no_fallback = (cls && opt->sym_no_fallback) || opt->symmetry == CS_SYMMETRY_REQUIRE;
    if (cls ? cs_engine_class_check(w, netcfg, opt, why, sizeof why)
            : cs_engine_symmetry_check(w, netcfg, opt, why, sizeof why)) {
        cs_info("symmetry %s", why);
        cs_error e;
        cs_error_clear(&e);
        int rc = run_once(w, netcfg, opt, be, cls ? CS_EXEC_CLASS : CS_EXEC_REP, nodes, res, &e, why, sizeof why, 1,
                          0, NULL, 0, NULL);
        if (rc == CS_OK) {
            if (opt->threads > 1)
                fprintf(stderr, "clustersim: --threads %u: the symmetric run simulates %s on one thread "
                        "(--symmetry off simulates every rank, on the parallel engine)\n", opt->threads,
                        cls ? "one representative per class" : "one representative rank");
            return CS_OK;
        }
        if (rc == CS_EINTR) { /* stopped: no fallback */
            if (err) *err = e;
            return rc;
        }
        memset(res, 0, sizeof *res);
        if (no_fallback) return CS_ERR(err, CS_EUNSUPPORTED, "the representative run stopped: %s", why);
        cs_info("symmetry: the representative run stopped: %s; simulating every rank", why);
        stopped_rep = 1;
    } else {
        if (no_fallback) return CS_ERR(err, CS_EUNSUPPORTED, "symmetry does not apply: %s", why);
        cs_info("symmetry does not apply: %s", why);
    }
    {
        char swhy[600] = "";
        if (opt->symmetry == CS_SYMMETRY_OFF) snprintf(swhy, sizeof swhy, "--symmetry off was given");
        else if (stopped_rep) snprintf(swhy, sizeof swhy, "the representative run stopped: %.560s", why);
        else snprintf(swhy, sizeof swhy, "symmetry does not apply: %.560s", why);
        frc = fits_machine(w, netcfg, 1, swhy, err);
        if (frc) return frc;
    }
    if (opt->threads > 1) {
        cs_time L = 0, L_outer = 0;
        char pwhy[400];
        if (par_check(w, netcfg, opt, be, &L, &L_outer, pwhy, sizeof pwhy)) {
            fprintf(stderr, "clustersim: --threads %u: running on one thread: %s\n", opt->threads, pwhy);
        } else {
            /* the outermost dimension's lookahead first, then the safe one */
            for (int k = L_outer > L ? 0 : 1; k < 2; k++) {
                pwhy[0] = 0;
                int violated = 0;
                int rc = run_once(w, netcfg, opt, be, CS_EXEC_FULL, nodes, res, err, why, sizeof why, opt->threads,
                                  k == 0 ? L_outer : L, pwhy, sizeof pwhy, &violated);
                if (rc != PAR_RETRY) return rc;
                memset(res, 0, sizeof *res);
                if (err) cs_error_clear(err);
                if (k == 0 && violated) {
                    cs_info("--threads %u: a message between partitions took less than the outermost dimension's "
                            "lookahead (%.300s); running again with the smallest latency's", opt->threads, pwhy);
                    continue;
                }
                if (pwhy[0])
                    fprintf(stderr, "clustersim: --threads %u: running on one thread: %s\n", opt->threads, pwhy);
                break;
            }
        }
    }
    return run_once(w, netcfg, opt, be, CS_EXEC_FULL, nodes, res, err, why, sizeof why, 1, 0, NULL, 0, NULL);
}

void cs_engine_result_free(cs_engine_result *res) {
    cs_free(res->ranks);
    res->ranks = NULL;
}
