/*
 * search.c -- `clustersim search` (search.h): enumerate, refuse, estimate,
 * rank, simulate the best, report.
 */
#include "sweep/search.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/network_config.h"
#include "core/afile.h"
#include "core/alloc.h"
#include "core/log.h"
#include "core/time.h"
#include "cost/cost.h"
#include "gen/estimate.h"
#include "gen/family.h"
#include "gen/gen.h"
#include "scenario/result.h"
#include "sweep/proc.h"

#define SEARCH_MAX_PLANS 2000000u

static const char *const RECOMP_NAME[] = {"none", "selective", "full"};

typedef struct splan {
    cs_gen_plan p;
    uint32_t placement;   /* index into the placements */
    uint32_t index;       /* enumeration order */
    int refused;
    char why[240];
    double mem_bytes;
    cs_gen_estimate est;
    double est_mfu, est_rate;
    double est_cost, est_energy; /* cost model at the estimate: US$ and J per step (NAN: no figures) */
    int sim;              /* 0 not tried, 1 simulated, 2 skipped, 3 failed */
    double sim_s, sim_mfu, sim_rate, sim_cost, sim_energy;
    char sim_note[240];
} splan;

typedef struct search {
    const cs_scenario *base;
    const cs_search_options *o;
    cs_gen_model m;
    cs_device d;
    cs_gen_plan bp; /* the base plan: the keys the search keeps */
    cs_network_config net;
    cs_system_config sys;
    cs_cost_params cost;
    uint32_t N;
    cs_search_space sp;
    splan *plans;
    size_t n, cap;
    uint32_t workers; /* processes that simulated (report) */
} search;

static void axis_default(cs_search_axis *a, const uint32_t *v, uint32_t n) {
    if (a->n) return;
    a->n = n;
    memcpy(a->v, v, n * sizeof *v);
}

/* The default space (docs/search.md): TP powers of two up to the first
 * network dimension (the scale-up domain), PP powers of two up to 64 and
 * the layers, CP 1 (more for sequences of 16k tokens and longer), EP the
 * base plan's, micro-batch 1, 2, 4, interleaving 1, 2, 4, every
 * recomputation and ZeRO stage. */
static void space_defaults(search *S) {
    cs_search_space *s = &S->sp;
    uint32_t v[CS_SEARCH_MAXV], n = 0;
    uint32_t dom = S->net.npus[0] > 1 ? S->net.npus[0] : 8;
    for (uint32_t x = 1; x <= dom && x <= 64 && n < CS_SEARCH_MAXV; x *= 2) v[n++] = x;
    axis_default(&s->tp, v, n);
    n = 0;
    uint32_t layers = S->m.family == cs_gen_family_find("transformer") ? S->m.u.tf.layers : 1;
    for (uint32_t x = 1; x <= 64 && x <= layers && n < CS_SEARCH_MAXV; x *= 2) v[n++] = x;
    axis_default(&s->pp, v, n);
    n = 0;
    v[n++] = 1;
    if (S->m.family->context_parallel && S->m.u.tf.seq >= 16384)
        for (uint32_t x = 2; x <= 16; x *= 2) v[n++] = x;
    axis_default(&s->cp, v, n);
    v[0] = S->bp.ep ? S->bp.ep : 1;
    axis_default(&s->ep, v, 1);
    static const uint32_t mb[] = {1, 2, 4}, vs[] = {1, 2, 4}, rc[] = {0, 1, 2}, z[] = {0, 1, 2, 3};
    axis_default(&s->mb, mb, 3);
    if (S->m.family->interleaving) axis_default(&s->vstages, vs, 3);
    else axis_default(&s->vstages, vs, 1);
    axis_default(&s->recompute, rc, 3);
    axis_default(&s->zero, z, 4);
    if (!s->nplacements) {
        s->nplacements = 2;
        snprintf(s->placements[0], sizeof s->placements[0], "tp,cp,dp,pp");
        snprintf(s->placements[1], sizeof s->placements[1], "tp,cp,pp,dp");
    }
}

static splan *add_plan(search *S) {
    if (S->n == S->cap) {
        S->cap = S->cap ? 2 * S->cap : 1024;
        S->plans = cs_realloc(S->plans, S->cap * sizeof *S->plans);
    }
    splan *x = &S->plans[S->n];
    memset(x, 0, sizeof *x);
    x->index = (uint32_t)S->n++;
    return x;
}

/* One candidate: checks, memory, estimate. */
static void evaluate(search *S, splan *x) {
    cs_error e;
    cs_error_clear(&e);
    uint64_t per = (uint64_t)x->p.micro_batch * x->p.dp;
    if (x->p.global_batch % per) { /* said first: the other checks would count 0 micro-batches */
        x->refused = 1;
        snprintf(x->why, sizeof x->why, "--global-batch %u: expected a multiple of micro-batch x dp (%u x %u = %llu)",
                 x->p.global_batch, x->p.micro_batch, x->p.dp, (unsigned long long)per);
        return;
    }
    if (cs_gen_plan_check(&S->m, &x->p, &e)) {
        x->refused = 1;
        snprintf(x->why, sizeof x->why, "%.239s", e.msg);
        return;
    }
    cs_gen_memory w;
    cs_gen_memory_worst(&S->m, &x->p, &w);
    x->mem_bytes = w.total;
    if (cs_gen_memory_check(&S->m, &x->p, &S->d, NULL, &e)) {
        x->refused = 2;
        snprintf(x->why, sizeof x->why, "%.239s", e.msg);
        return;
    }
    if (cs_gen_estimate_step(&S->m, &x->p, &S->d, &S->net, &S->sys, &x->est, &e)) {
        x->refused = 1;
        snprintf(x->why, sizeof x->why, "%.239s", e.msg);
        return;
    }
    double fl = cs_gen_model_flops(&S->m, &x->p), t = x->est.step_s;
    x->est_mfu = t > 0 ? fl / (t * S->N * S->d.peak_bf16_flops) : 0;
    x->est_rate = t > 0 ? S->m.family->items(&S->m, &x->p) / t : 0;
    /* the cost model at the estimate: every rank computing as the slowest stage does */
    cs_time step = cs_time_from_ns_f(t * 1e9), c = cs_time_from_ns_f(x->est.compute_s * 1e9);
    cs_cost_report cr;
    x->est_cost = x->est_energy = NAN;
    if (cs_cost_eval_uniform(&S->cost, &S->d, &S->net, NULL, c, S->N, step, 0, NULL, 0, &cr, &e) == CS_OK &&
        cr.valid) {
        x->est_cost = cr.cost_step_usd;
        x->est_energy = cr.energy_step_j;
    }
}

/* The plan's value of the objective, estimated or simulated (NAN: none). */
static double objective(const search *S, const splan *x, int simulated) {
    switch (S->o->objective) {
    case CS_SEARCH_BY_COST: return simulated ? x->sim_cost : x->est_cost;
    case CS_SEARCH_BY_ENERGY: return simulated ? x->sim_energy : x->est_energy;
    default: return simulated ? x->sim_s : x->est.step_s;
    }
}

/* The plans of one shape (degrees, DP, placement): every micro-batch,
 * interleaving, recomputation and ZeRO stage. */
static int enumerate_shape(search *S, const splan *shape, cs_error *err) {
    const cs_search_space *s = &S->sp;
    for (uint32_t mb = 0; mb < s->mb.n; mb++)
        for (uint32_t v = 0; v < s->vstages.n; v++) {
            if (s->vstages.v[v] > 1 && shape->p.pp == 1) continue;
            for (uint32_t r = 0; r < s->recompute.n; r++)
                for (uint32_t z = 0; z < s->zero.n; z++) {
                    if (S->o->stop && *S->o->stop) return CS_ERR(err, CS_EINTR, "search: interrupted while estimating");
                    if (S->n >= SEARCH_MAX_PLANS)
                        return CS_ERR(err, CS_EINVAL,
                                      "search: the space has more than %u plans; expected fewer values (--tp, --pp, ...)",
                                      SEARCH_MAX_PLANS);
                    splan *x = add_plan(S);
                    uint32_t index = x->index;
                    *x = *shape;
                    x->index = index;
                    x->p.micro_batch = s->mb.v[mb];
                    x->p.vstages = s->vstages.v[v];
                    x->p.recompute = (int)s->recompute.v[r];
                    x->p.zero = (int)s->zero.v[z];
                    evaluate(S, x);
                }
        }
    return CS_OK;
}

static int enumerate(search *S, cs_error *err) {
    const cs_search_space *s = &S->sp;
    uint8_t order[8][CS_GEN_NDIMS]; /* each placement parsed once */
    for (uint32_t pl = 0; pl < s->nplacements; pl++) {
        cs_gen_plan q = S->bp;
        cs_error pe;
        cs_error_clear(&pe);
        if (cs_gen_placement_parse(s->placements[pl], &q, &pe))
            return CS_ERR(err, CS_EINVAL, "%s", pe.msg); /* it names --placement and the order */
        memcpy(order[pl], q.order, sizeof q.order);
    }
    int rc = CS_OK;
    for (uint32_t a = 0; a < s->tp.n; a++)
        for (uint32_t c = 0; c < s->cp.n; c++)
            for (uint32_t b = 0; b < s->pp.n; b++)
                for (uint32_t e = 0; e < s->ep.n; e++) {
                    uint64_t tcp = (uint64_t)s->tp.v[a] * s->cp.v[c] * s->pp.v[b];
                    if (!tcp || S->N % tcp) continue; /* not a plan of this cluster */
                    splan shape;
                    memset(&shape, 0, sizeof shape);
                    shape.p = S->bp;
                    shape.p.tp = s->tp.v[a];
                    shape.p.cp = s->cp.v[c];
                    shape.p.pp = s->pp.v[b];
                    shape.p.ep = s->ep.v[e];
                    shape.p.dp = (uint32_t)(S->N / tcp);
                    shape.p.sp = shape.p.tp > 1;
                    for (uint32_t pl = 0; rc == CS_OK && pl < s->nplacements; pl++) {
                        /* orders differing only in where DP and PP sit are one plan when either is 1 */
                        if (pl > 0 && (shape.p.dp == 1 || shape.p.pp == 1)) continue;
                        shape.placement = pl;
                        memcpy(shape.p.order, order[pl], sizeof shape.p.order);
                        rc = enumerate_shape(S, &shape, err);
                    }
                    if (rc) return rc;
                }
    return CS_OK;
}

static void plan_text(const search *S, const splan *x, char *buf, size_t n) {
    const cs_gen_plan *p = &x->p;
    char cp[16] = "", ep[16] = "", v[16] = "";
    if (p->cp > 1) snprintf(cp, sizeof cp, " CP%u", p->cp);
    if (p->ep > 1) snprintf(ep, sizeof ep, " EP%u", p->ep);
    if (p->vstages > 1) snprintf(v, sizeof v, " v%u", p->vstages);
    snprintf(buf, n, "TP%u%s%s PP%u%s DP%u%s mb%u %s ZeRO-%d [%s]", p->tp, p->sp ? "+SP" : "", cp, p->pp, v, p->dp,
             ep, p->micro_batch, RECOMP_NAME[p->recompute], p->zero, S->sp.placements[x->placement]);
}

static const search *g_search; /* for the comparators */
static int by_value(double u, double v) { /* NAN last */
    if (isnan(u) || isnan(v)) return isnan(u) - isnan(v);
    return u < v ? -1 : u > v;
}
static int by_estimate(const void *a, const void *b) {
    const splan *x = *(const splan *const *)a, *y = *(const splan *const *)b;
    int c = by_value(objective(g_search, x, 0), objective(g_search, y, 0));
    if (c) return c;
    if (x->est.step_s != y->est.step_s) return x->est.step_s < y->est.step_s ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}
static int by_simulated(const void *a, const void *b) {
    const splan *x = *(const splan *const *)a, *y = *(const splan *const *)b;
    int c = by_value(objective(g_search, x, 1), objective(g_search, y, 1));
    if (c) return c;
    if (x->sim_s != y->sim_s) return x->sim_s < y->sim_s ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int set_u(cs_scenario *sc, const char *key, uint32_t v, cs_error *err) {
    char t[24];
    snprintf(t, sizeof t, "%u", v);
    return cs_sc_set_text(sc, key, t, "search", err);
}

/* Simulate plan x from the base scenario. */
static void simulate(search *S, splan *x) {
    cs_scenario *sc = cs_scenario_copy(S->base);
    cs_error e;
    cs_error_clear(&e);
    const cs_gen_plan *p = &x->p;
    int rc = set_u(sc, "plan.tp", p->tp, &e);
    if (!rc) rc = set_u(sc, "plan.pp", p->pp, &e);
    if (!rc) rc = set_u(sc, "plan.dp", p->dp, &e);
    if (!rc) rc = set_u(sc, "plan.cp", p->cp, &e);
    if (!rc) rc = set_u(sc, "plan.ep", p->ep, &e);
    if (!rc) rc = set_u(sc, "plan.micro-batch", p->micro_batch, &e);
    if (!rc) rc = set_u(sc, "plan.virtual-stages", p->vstages, &e);
    if (!rc) rc = set_u(sc, "plan.zero", (uint32_t)p->zero, &e);
    if (!rc) rc = cs_sc_set_text(sc, "plan.fsdp", "false", "search", &e);
    if (!rc) rc = cs_sc_set_text(sc, "plan.recompute", RECOMP_NAME[p->recompute], "search", &e);
    if (!rc) rc = cs_sc_set_text(sc, "plan.sp", p->sp ? "true" : "false", "search", &e);
    if (!rc) rc = cs_sc_set_text(sc, "plan.placement", S->sp.placements[x->placement], "search", &e);
    int full = S->o->refine_full || S->N <= S->o->full_limit;
    if (!rc && !full) rc = cs_sc_set_text(sc, "run.symmetry", "require", "search", &e);
    cs_result *r = NULL;
    if (!rc) {
        cs_run_hooks hooks;
        memset(&hooks, 0, sizeof hooks);
        hooks.no_collectives = 1;
        hooks.stop = S->o->stop;
        rc = cs_scenario_run_hooked(sc, &hooks, &r, &e);
    }
    if (rc == CS_OK) {
        x->sim = 1;
        x->sim_s = cs_time_as_s_f(r->sim.sim_time);
        x->sim_mfu = r->plan.mfu;
        x->sim_rate = r->plan.throughput;
        x->sim_cost = r->cost.valid ? r->cost.cost_step_usd : NAN;
        x->sim_energy = r->cost.valid ? r->cost.energy_step_j : NAN;
    } else if (rc == CS_EUNSUPPORTED && !full) {
        x->sim = 2;
        snprintf(x->sim_note, sizeof x->sim_note, "not simulated (needs every rank: --refine-full): %.180s", e.msg);
    } else if (rc != CS_EINTR) {
        x->sim = 3;
        snprintf(x->sim_note, sizeof x->sim_note, "%.239s", e.msg);
    }
    cs_result_free(r);
    cs_scenario_free(sc);
}

/* ---- simulating the best: in order, on -j worker processes ---------------------------- */

/* How many of order[0 .. lim) the sequential loop simulates: up to the
 * plan that makes `top` simulated (sim == 1), all of them otherwise. */
static size_t refine_cut(splan **order, size_t lim, uint32_t top) {
    uint32_t got = 0;
    for (size_t i = 0; i < lim; i++)
        if (order[i]->sim == 1 && ++got == top) return i + 1;
    return lim;
}

/* One simulation's outcome, as a worker sends it back. */
typedef struct sim_msg {
    int sim;
    double sim_s, sim_mfu, sim_rate, sim_cost, sim_energy;
    char sim_note[240];
} sim_msg;

typedef struct sworker {
    sw_proc p;    /* first: the workers are an sw_proc array with a stride (sw_proc_spawn) */
    int64_t busy; /* index into order[], -1 idle */
} sworker;

typedef struct sworker_ctx {
    search *S;
    splan **order;
} sworker_ctx;

static void sworker_loop(const void *ud, int in, int out) {
    const sworker_ctx *c = ud;
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    uint64_t i;
    while (sw_read_full(in, &i, sizeof i) == 0) {
        splan *x = c->order[i];
        simulate(c->S, x);
        sim_msg m;
        memset(&m, 0, sizeof m);
        m.sim = x->sim;
        m.sim_s = x->sim_s;
        m.sim_mfu = x->sim_mfu;
        m.sim_rate = x->sim_rate;
        m.sim_cost = x->sim_cost;
        m.sim_energy = x->sim_energy;
        memcpy(m.sim_note, x->sim_note, sizeof m.sim_note);
        if (c->S->o->stop && *c->S->o->stop) _exit(1);
        if (sw_write_full(out, &m, sizeof m)) _exit(1);
    }
    _exit(0);
}

static int sworker_spawn(const sworker_ctx *c, sworker *w, sworker *all, size_t nall) {
    if (sw_proc_spawn(&w->p, all, nall, sizeof *all, -1, sworker_loop, c) != 0) return -1;
    w->busy = -1;
    return 0;
}

/* The progress line of a plan handed to a simulation (stderr, as the engine's progress;
 * --no-progress: none). */
static void progress_line(const search *S, splan **order, size_t i) {
    if (!S->o->progress) return;
    char pt[160];
    plan_text(S, order[i], pt, sizeof pt);
    fprintf(stderr, "clustersim: search: simulating estimate #%zu (of the best %u wanted), %s\n", i + 1, S->o->top,
            pt);
}

/* Simulates order[0 ..) as the sequential loop does -- in estimate order until
 * `top` are simulated, at most lim tried -- with the plans spread over
 * `jobs` forked workers, each plan a whole simulation in one worker.  A
 * worker may finish plans past the cut; their results are dropped, so the
 * simulated set and every result are the sequential loop's.  Returns the
 * number of plans tried (the cut; when stopped, the plans done in a row from
 * the first), or SIZE_MAX when no worker process could start. */
static size_t refine_parallel(search *S, splan **order, size_t lim, uint32_t jobs, int *rc, cs_error *err) {
    size_t nw = jobs < lim ? jobs : lim;
    sworker_ctx ctx = {S, order};
    sworker *w = cs_calloc(nw ? nw : 1, sizeof *w);
    struct pollfd *pf = cs_calloc(nw ? nw : 1, sizeof *pf);
    char *done = cs_calloc(lim ? lim : 1, 1);
    void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN);
    size_t next = 0, inflight = 0, cut = lim, started = 0;
    for (size_t k = 0; k < nw; k++) /* as many as start (a process limit): none, and the caller runs them here */
        if (sworker_spawn(&ctx, &w[k], w, nw) == 0) started++;
    S->workers = (uint32_t)started;
    if (!started) {
        signal(SIGPIPE, old_pipe);
        cs_free(done);
        cs_free(pf);
        cs_free(w);
        return SIZE_MAX;
    }
    while (*rc == CS_OK && (next < cut || inflight)) {
        if (S->o->stop && *S->o->stop) {
            *rc = CS_ERR(err, CS_EINTR, "search: interrupted while simulating");
            break;
        }
        for (size_t k = 0; k < nw && next < cut; k++) {
            if (w[k].p.pid <= 0 || w[k].busy >= 0) continue;
            uint64_t i = next;
            if (sw_write_full(w[k].p.to, &i, sizeof i) != 0) continue; /* gone: seen below */
            progress_line(S, order, next);
            w[k].busy = (int64_t)next++;
            inflight++;
        }
        for (size_t k = 0; k < nw; k++) {
            pf[k].fd = w[k].p.pid > 0 ? w[k].p.from : -1;
            pf[k].events = POLLIN;
            pf[k].revents = 0;
        }
        int pr = poll(pf, nw, 200);
        if (pr < 0 && errno != EINTR) {
            *rc = CS_ERR(err, CS_EIO, "search: poll: %s", strerror(errno));
            break;
        }
        for (size_t k = 0; pr > 0 && k < nw; k++) {
            if (!(pf[k].revents & (POLLIN | POLLHUP | POLLERR)) || w[k].p.pid <= 0) continue;
            int64_t held = w[k].busy;
            sim_msg m;
            if (sw_read_full(w[k].p.from, &m, sizeof m) == 0 && held >= 0) {
                splan *x = order[held];
                x->sim = m.sim;
                x->sim_s = m.sim_s;
                x->sim_mfu = m.sim_mfu;
                x->sim_rate = m.sim_rate;
                x->sim_cost = m.sim_cost;
                x->sim_energy = m.sim_energy;
                m.sim_note[sizeof m.sim_note - 1] = '\0';
                memcpy(x->sim_note, m.sim_note, sizeof x->sim_note);
            } else {
                /* the worker is gone (a crash, out of memory): its plan failed, with the cause */
                int st = 0;
                sw_proc_end(&w[k].p, 0, &st);
                if (S->o->stop && *S->o->stop) continue; /* the same Ctrl-C: not the plan's fault */
                if (held >= 0) {
                    order[held]->sim = 3;
                    sw_proc_why(st, "simulating this plan", order[held]->sim_note, sizeof order[held]->sim_note);
                }
                if (next < cut && sworker_spawn(&ctx, &w[k], w, nw) != 0)
                    *rc = CS_ERR(err, CS_EIO, "search: cannot restart a worker process: %s", strerror(errno));
            }
            if (held >= 0) {
                done[held] = 1;
                inflight--;
                w[k].busy = -1;
            }
            /* the cut: once the plans done in a row from the first hold `top` simulated, the
             * sequential loop stops at the one that made it `top` */
            size_t pre = 0;
            uint32_t got = 0;
            while (pre < lim && done[pre]) got += order[pre++]->sim == 1;
            if (got >= S->o->top) cut = refine_cut(order, pre, S->o->top);
        }
        if (cut < lim && inflight) /* plans past the cut still running: not needed */
            for (size_t k = 0; k < nw; k++)
                if (w[k].p.pid > 0 && w[k].busy >= (int64_t)cut) {
                    sw_proc_end(&w[k].p, SIGKILL, NULL);
                    inflight--;
                }
    }
    for (size_t k = 0; k < nw; k++) sw_proc_end(&w[k].p, *rc != CS_OK ? SIGTERM : 0, NULL);
    if (*rc != CS_OK) { /* stopped: as the loop in one process, the plans tried are a prefix (the done ones) */
        size_t pre = 0;
        while (pre < cut && done[pre]) pre++;
        cut = pre;
    }
    for (size_t i = cut; i < lim; i++) { /* past the cut: as never tried */
        order[i]->sim = 0;
        order[i]->sim_note[0] = '\0';
    }
    signal(SIGPIPE, old_pipe);
    cs_free(done);
    cs_free(pf);
    cs_free(w);
    return cut;
}

/* ---- outputs ------------------------------------------------------------------- */

static void csv_text(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s == '\n' ? ' ' : *s, f);
    }
    fputc('"', f);
}

static void csv_row(FILE *f, const search *S, const splan *x, long est_rank, long sim_rank) {
    const cs_gen_plan *p = &x->p;
    fprintf(f, "%u,%ld,%ld,%u,%u,%u,%u,%u,%u,%u,%s,%d,%d,", x->index, est_rank, sim_rank, p->tp, p->cp, p->pp,
            p->dp, p->ep, p->micro_batch, p->vstages, RECOMP_NAME[p->recompute], p->zero, p->sp);
    csv_text(f, S->sp.placements[x->placement]);
    fprintf(f, ",%s,", x->refused == 1 ? "refused" : x->refused == 2 ? "out-of-memory" : "ok");
    csv_text(f, x->why);
    fprintf(f, ",%.0f", x->mem_bytes);
    if (!x->refused)
        fprintf(f, ",%.9g,%.6g,%.6g,%.9g,%.9g,%.9g,%.9g,%.9g", x->est.step_s, x->est_mfu, x->est_rate, x->est.compute_s,
                x->est.bubble_s, x->est.exposed_comm_s, x->est_energy, x->est_cost);
    else
        fputs(",,,,,,,,", f);
    static const char *const st[] = {"", "simulated", "skipped", "failed"};
    fprintf(f, ",%s", st[x->sim]);
    if (x->sim == 1) fprintf(f, ",%.9g,%.6g,%.6g,%.4g,%.9g,%.9g,", x->sim_s, x->sim_mfu, x->sim_rate,
                             100 * (x->est.step_s - x->sim_s) / x->sim_s, x->sim_energy, x->sim_cost);
    else fputs(",,,,,,,", f);
    csv_text(f, x->sim_note);
    fputc('\n', f);
}

static int write_csv(const search *S, splan **order, size_t nok, splan **simd, size_t nsim, cs_error *err) {
    if (!S->o->out_dir) return CS_OK; /* (the directory was made at the start) */
    char path[4096];
    snprintf(path, sizeof path, "%s/plans.csv", S->o->out_dir);
    cs_afile a;
    int rc = cs_afile_open(&a, path, err);
    if (rc) return rc;
    long *er = cs_calloc(S->n ? S->n : 1, sizeof *er), *sr = cs_calloc(S->n ? S->n : 1, sizeof *sr);
    for (size_t i = 0; i < nok; i++) er[order[i]->index] = (long)i + 1;
    for (size_t i = 0; i < nsim; i++) sr[simd[i]->index] = (long)i + 1;
    fprintf(a.f, "index,est_rank,sim_rank,tp,cp,pp,dp,ep,micro_batch,virtual_stages,recompute,zero,sp,placement,"
                 "status,reason,memory_bytes,est_step_s,est_mfu,est_%s,est_compute_s,est_bubble_s,"
                 "est_exposed_comm_s,est_energy_per_step_j,est_cost_per_step_usd,sim_status,sim_step_s,sim_mfu,sim_%s,"
                 "est_error_pct,sim_energy_per_step_j,sim_cost_per_step_usd,sim_note\n",
            S->m.family->unit_json, S->m.family->unit_json);
    for (size_t i = 0; i < S->n; i++) csv_row(a.f, S, &S->plans[i], er[i], sr[i]);
    cs_free(er);
    cs_free(sr);
    return cs_afile_commit(&a, err);
}

/* "--tp 8: expected ..." -> "--tp" (the head of a refusal, for the tally). */
static void reason_head(const char *why, char *buf, size_t n) {
    size_t k = 0;
    while (why[k] && why[k] != ':' && why[k] != ' ' && k + 1 < n) k++;
    if (strncmp(why, "the plan does not fit", 21) == 0) snprintf(buf, n, "memory");
    else snprintf(buf, n, "%.*s", (int)k, why);
}

static void report(const search *S, splan **order, size_t nok, splan **simd, size_t nsim, double est_wall,
                   double est_cpu, double sim_wall) {
    FILE *f = S->o->report;
    if (!f) return;
    size_t nref = 0, nmem = 0;
    for (size_t i = 0; i < S->n; i++) {
        nref += S->plans[i].refused == 1;
        nmem += S->plans[i].refused == 2;
    }
    fprintf(f, "search: %s on %u x %s, global batch %u\n", S->m.name, S->N, S->d.name, S->bp.global_batch);
    fprintf(f, "  network      %s (%d dimension%s)\n", S->net.path ? S->net.path : "network.*", S->net.ndims,
            S->net.ndims == 1 ? "" : "s");
    fprintf(f, "  space        %zu plans: %zu refused by the plan checks, %zu do not fit in HBM, %zu estimated\n",
            S->n, nref, nmem, nok);
    fprintf(f, "  estimates    %.3f s wall, %.3f s CPU (%.0f plans/s)\n", est_wall, est_cpu,
            est_wall > 0 ? (double)S->n / est_wall : 0);
    if (nref + nmem) { /* one line per reason, with a first example */
        char heads[16][48];
        size_t cnt[16], nh = 0;
        const char *ex[16];
        for (size_t i = 0; i < S->n; i++) {
            if (!S->plans[i].refused) continue;
            char h[48];
            reason_head(S->plans[i].why, h, sizeof h);
            size_t k = 0;
            while (k < nh && strcmp(heads[k], h) != 0) k++;
            if (k == nh && nh < 16) {
                snprintf(heads[nh], sizeof heads[nh], "%s", h);
                cnt[nh] = 0;
                ex[nh] = S->plans[i].why;
                nh++;
            }
            if (k < nh) cnt[k]++;
        }
        fprintf(f, "  refused      (count, reason: first example)\n");
        for (size_t k = 0; k < nh; k++) fprintf(f, "    %7zu  %s: %.150s\n", cnt[k], heads[k], ex[k]);
    }
    size_t show = S->o->show < nok ? S->o->show : nok;
    static const char *const OBJ[] = {"step time", "cost per step (docs/cost.md)", "energy per step (docs/cost.md)"};
    fprintf(f, "\n  best %zu of %zu by estimate, by %s:\n", show, nok, OBJ[S->o->objective]);
    fprintf(f, "    %4s  %-52s %12s %7s %14s %9s %10s %10s\n", "#", "plan", "est step s", "MFU", S->m.family->unit,
            "mem GiB", "kJ/step", "$/step");
    char pt[160];
    for (size_t i = 0; i < show; i++) {
        const splan *x = order[i];
        plan_text(S, x, pt, sizeof pt);
        fprintf(f, "    %4zu  %-52s %12.4f %6.1f%% %14.0f %9.1f %10.4g %10.4g\n", i + 1, pt, x->est.step_s,
                100 * x->est_mfu, x->est_rate, x->mem_bytes / 1073741824.0, x->est_energy / 1e3, x->est_cost);
    }
    if (S->o->top) {
        char be[64] = "\"analytical\"";
        cs_scenario_get(S->base, "run.backend", be, sizeof be);
        size_t bl = strlen(be);
        int full = S->o->refine_full || S->N <= S->o->full_limit;
        fprintf(f, "\n  simulated (%.*s, %s) in %.2f s wall, %u worker process%s:\n", (int)(bl > 2 ? bl - 2 : 0),
                be + (bl > 2), full ? "class mode, else every rank" : "class mode only", sim_wall,
                S->workers ? S->workers : 1, S->workers > 1 ? "es" : " (this one)");
        fprintf(f, "    %4s  %-52s %12s %12s %8s %7s %14s %10s %10s\n", "#", "plan", "sim step s", "est step s",
                "est err", "MFU", S->m.family->unit, "kJ/step", "$/step");
        for (size_t i = 0; i < nsim; i++) {
            const splan *x = simd[i];
            plan_text(S, x, pt, sizeof pt);
            fprintf(f, "    %4zu  %-52s %12.4f %12.4f %+7.1f%% %6.1f%% %14.0f %10.4g %10.4g\n", i + 1, pt, x->sim_s,
                    x->est.step_s, 100 * (x->est.step_s - x->sim_s) / x->sim_s, 100 * x->sim_mfu, x->sim_rate,
                    x->sim_energy / 1e3, x->sim_cost);
        }
        size_t nskip = 0;
        for (size_t i = 0; i < nok; i++)
            if (order[i]->sim >= 2 && nskip++ < 3) {
                plan_text(S, order[i], pt, sizeof pt);
                fprintf(f, "    (estimate #%zu %s: %.200s)\n", i + 1, pt, order[i]->sim_note);
            }
        if (nskip > 3) fprintf(f, "    (%zu more not simulated: see plans.csv, sim_note)\n", nskip - 3);
        if (nsim) {
            plan_text(S, simd[0], pt, sizeof pt);
            fprintf(f, "\n  best plan    %s: %.4f s per step simulated, MFU %.1f %%\n", pt, simd[0]->sim_s,
                    100 * simd[0]->sim_mfu);
        }
    }
    if (S->o->out_dir) fprintf(f, "  results      %s/plans.csv (every plan)\n", S->o->out_dir);
}

int cs_search(const cs_scenario *base, const cs_search_options *o, cs_error *err) {
    search S;
    memset(&S, 0, sizeof S);
    S.base = base;
    S.o = o;
    S.sp = o->space;
    /* the result directory first: a search that cannot write its results does not start */
    int rc = o->out_dir ? cs_mkdir_p(o->out_dir, "--out", err) : CS_OK;
    if (rc) return rc;
    if (o->out_dir) { /* a previous search's table goes now: a failed or interrupted one leaves none */
        char path[4096];
        snprintf(path, sizeof path, "%s/plans.csv", o->out_dir);
        if (cs_remove_output(path) != 0 && errno != ENOENT)
            return CS_ERR(err, CS_EIO, "--out %s: cannot remove the previous %s: %s", o->out_dir, path,
                          strerror(errno));
    }
    rc = cs_scenario_plan_inputs(base, &S.m, &S.d, &S.bp, &S.net, &S.sys, err);
    if (rc) return rc;
    S.N = (uint32_t)S.net.total_npus;
    rc = cs_scenario_cost_params(base, &S.cost, err);
    if (rc == CS_OK && o->objective != CS_SEARCH_BY_TIME && !(S.d.tdp_w > 0 || S.cost.npu_power_w > 0))
        rc = CS_ERR(err, CS_EINVAL, "--objective: device %s has no power figure; expected cost.npu-power-w (or "
                                    "tdp_w in its file)",
                    S.d.name);
    if (rc == CS_OK && o->objective != CS_SEARCH_BY_TIME && !(S.d.price_usd > 0 || S.cost.npu_price_usd > 0))
        rc = CS_ERR(err, CS_EINVAL, "--objective: device %s has no price; expected cost.npu-price-usd (or price_usd "
                                    "in its file)",
                    S.d.name);
    g_search = &S;
    char gb[32] = "0";
    cs_scenario_get(base, "plan.global-batch", gb, sizeof gb);
    if (rc == CS_OK && (strcmp(gb, "0") == 0 || !S.bp.global_batch))
        rc = CS_ERR(err, CS_EINVAL, "plan.global-batch: expected the global batch every plan trains on "
                                    "(--global-batch N); the search keeps it fixed");
    if (rc == CS_OK) {
        space_defaults(&S);
        double w0 = cs_host_wall_s(), c0 = cs_host_cpu_s();
        rc = enumerate(&S, err);
        double est_wall = cs_host_wall_s() - w0, est_cpu = cs_host_cpu_s() - c0;
        size_t nok = 0, nsim = 0;
        splan **order = cs_calloc(S.n ? S.n : 1, sizeof *order), **simd = cs_calloc(S.n ? S.n : 1, sizeof *simd);
        for (size_t i = 0; i < S.n; i++)
            if (!S.plans[i].refused) order[nok++] = &S.plans[i];
        qsort(order, nok, sizeof *order, by_estimate);
        double s0 = cs_host_wall_s();
        size_t lim = nok < 4 * (size_t)o->top + 16 ? nok : 4 * (size_t)o->top + 16;
        size_t cut = rc == CS_OK && o->top && o->jobs > 1 && lim > 1 ? refine_parallel(&S, order, lim, o->jobs, &rc, err)
                                                                      : SIZE_MAX;
        if (cut == SIZE_MAX) S.workers = 1; /* in this process */
        if (cut != SIZE_MAX) {
            for (size_t i = 0; i < cut; i++)
                if (order[i]->sim == 1) simd[nsim++] = order[i];
        } else {
            for (size_t i = 0; rc == CS_OK && i < lim && nsim < o->top; i++) {
                progress_line(&S, order, i);
                simulate(&S, order[i]);
                if (o->stop && *o->stop) rc = CS_ERR(err, CS_EINTR, "search: interrupted while simulating");
                if (order[i]->sim == 1) simd[nsim++] = order[i];
            }
        }
        qsort(simd, nsim, sizeof *simd, by_simulated);
        double sim_wall = cs_host_wall_s() - s0;
        if (rc == CS_OK && !S.n)
            rc = CS_ERR(err, CS_EINVAL, "search: the space has no plan: no combination of the --tp, --pp, --cp and --ep "
                                        "lists divides the cluster's %" PRIu64 " ranks; expected degrees whose product "
                                        "divides it", cs_scenario_npus(base));
        else if (rc == CS_OK && !nok) { /* the counts and a first reason: --quiet prints no refusals above */
            size_t nmem = 0;
            for (size_t i = 0; i < S.n; i++) nmem += S.plans[i].refused == 2;
            rc = CS_ERR(err, CS_EINVAL, "search: none of the %zu plans can run: %zu refused by the plan checks, %zu do "
                        "not fit in HBM (the first: %s)%s", S.n, S.n - nmem, nmem, S.plans[0].why,
                        o->report ? "; the refusals above by reason" : "");
        }
        report(&S, order, nok, simd, nsim, est_wall, est_cpu, sim_wall);
        if (rc == CS_OK || rc == CS_EINVAL) {
            cs_error e2;
            cs_error_clear(&e2);
            int rc2 = write_csv(&S, order, nok, simd, nsim, &e2);
            if (rc2 && rc == CS_OK) {
                rc = rc2;
                *err = e2;
            }
        }
        if (rc == CS_OK && o->top && !nsim)
            rc = CS_ERR(err, CS_EUNSUPPORTED, "search: none of the best %zu plans could be simulated (see above)",
                        nok < 4 * (size_t)o->top + 16 ? nok : 4 * (size_t)o->top + 16);
        cs_free(order);
        cs_free(simd);
    }
    cs_free(S.plans);
    g_search = NULL;
    cs_network_config_free(&S.net);
    cs_system_config_free(&S.sys);
    return rc;
}
