/*
 * serve.c -- `clustersim serve` (serve.h; docs/inference.md): the serving
 * steps simulated through the scenario layer, the decode steps' context
 * lengths grouped and (when proven affine) interpolated, the requests served
 * with static batching, the report and the result files.
 */
#include "sweep/serve.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/network_config.h"
#include "config/system_config.h"
#include "core/afile.h"
#include "core/alloc.h"
#include "core/log.h"
#include "core/rand.h"
#include "core/time.h"
#include "gen/family.h"
#include "gen/gen.h"
#include "scenario/result.h"

/* At most this many distinct decode steps are simulated one by one (when
 * the step time is not affine in the attention's duration). */
#define SERVE_MAX_SIMS 4096u

typedef struct serve {
    const cs_scenario *base;
    const cs_serve_options *o;
    cs_serve_params sv;
    cs_gen_model m;
    cs_device d;
    cs_gen_plan p;          /* the prefill step's plan (phase, tokens set) */
    cs_gen_memory mem;      /* the largest stage */
    uint32_t gpus, cap;     /* ranks; requests per batch (batch x dp) */
    cs_time t_pre;          /* the prefill step */
    uint32_t nsteps;        /* decode steps: O - 1 */
    cs_time *t_dec;         /* per decode step j = 1..O-1 (index j - 1) */
    uint64_t *attn_us;      /* its attention node's duration */
    uint8_t *simulated;     /* 1 = simulated, 0 = interpolated or shared */
    uint32_t nsims;         /* decode simulations run */
    cs_time t_dec_sum, t_batch;
    /* requests */
    uint32_t n;
    cs_time *arr, *start;
    uint32_t batches;
    cs_time makespan;
    double prefill_flops, decode_wall;
} serve;

static int set_u64(cs_scenario *sc, const char *key, uint64_t v, cs_error *err) {
    char b[32];
    snprintf(b, sizeof b, "%" PRIu64, v);
    return cs_sc_set_text(sc, key, b, "clustersim serve", err);
}

/* The base scenario set up for one serving step. */
static int step_scenario(const serve *S, int phase, uint64_t ctx, cs_scenario **out, cs_error *err) {
    cs_scenario *sc = cs_scenario_copy(S->base);
    int rc = cs_sc_set_text(sc, "plan.phase", phase == CS_PHASE_PREFILL ? "prefill" : "decode", "clustersim serve", err);
    if (rc == CS_OK) rc = set_u64(sc, "plan.context-tokens", ctx, err);
    if (rc == CS_OK) rc = set_u64(sc, "plan.kv-tokens", (uint64_t)S->sv.prompt_tokens + (uint64_t)S->sv.output_tokens, err);
    if (rc == CS_OK) rc = set_u64(sc, "plan.micro-batch", (uint64_t)S->sv.batch, err);
    if (rc == CS_OK) rc = set_u64(sc, "plan.global-batch", 0, err); /* one batch: micro-batch x dp */
    if (rc) {
        cs_scenario_free(sc);
        return rc;
    }
    *out = sc;
    return CS_OK;
}

/* One step simulated: its time (and the result, when res is not NULL); with S->o->check only checked (*t 0,
 * no result). */
static int run_step(serve *S, int phase, uint64_t ctx, cs_time *t, cs_result **res, cs_error *err) {
    if (S->o->stop && *S->o->stop) return CS_ERR(err, CS_EINTR, "serve: stopped");
    cs_scenario *sc;
    int rc = step_scenario(S, phase, ctx, &sc, err);
    if (rc) return rc;
    cs_run_hooks hooks;
    memset(&hooks, 0, sizeof hooks);
    hooks.no_collectives = 1;
    hooks.stop = S->o->stop;
    hooks.check_only = S->o->check;
    cs_result *r = NULL;
    rc = cs_scenario_run_hooked(sc, &hooks, &r, err);
    cs_scenario_free(sc);
    if (rc) {
        cs_error_prefix(err, phase == CS_PHASE_PREFILL ? "serve: the prefill step: " : "serve: a decode step: ");
        return rc;
    }
    *t = 0;
    if (!r) return CS_OK; /* checked */
    *t = r->sim.sim_time;
    if (res) *res = r;
    else cs_result_free(r);
    return CS_OK;
}

/* ---- decode steps: group by the attention's duration, interpolate when affine ---- */

static int decode_steps(serve *S, cs_error *err) {
    uint32_t n = S->nsteps;
    if (!n) return CS_OK;
    S->t_dec = cs_calloc(n, sizeof *S->t_dec);
    S->attn_us = cs_calloc(n, sizeof *S->attn_us);
    S->simulated = cs_calloc(n, 1);
    cs_gen_plan q = S->p;
    q.phase = CS_PHASE_DECODE;
    /* runs of equal durations: the attention's bytes grow with the context, so the
     * durations never decrease; first[k] is the first step of run k */
    uint32_t *first = cs_calloc(n, sizeof *first), runs = 0;
    for (uint32_t j = 0; j < n; j++) {
        double ctx = (double)S->sv.prompt_tokens + j + 1;
        S->attn_us[j] = cs_gen_duration_us(cs_gen_tx_decode_attn_s(&S->m, &q, &S->d, ctx, NULL, NULL));
        if (j == 0 || S->attn_us[j] != S->attn_us[j - 1]) first[runs++] = j;
    }
    cs_time *rt = cs_calloc(runs, sizeof *rt); /* step time of each run */
    uint8_t *done = cs_calloc(runs, 1);
    int rc = CS_OK;
    uint32_t probe[3] = {0, runs / 2, runs - 1};
    for (int i = 0; i < 3 && rc == CS_OK; i++) {
        uint32_t k = probe[i];
        if (done[k]) continue;
        rc = run_step(S, CS_PHASE_DECODE, (uint64_t)S->sv.prompt_tokens + first[k] + 1, &rt[k], NULL, err);
        done[k] = 1;
        S->simulated[first[k]] = 1;
        S->nsims++;
    }
    /* affine: T(v) = T(v0) + L (v - v0) us, every layer's attention on the step's one chain */
    int affine = rc == CS_OK;
    double L = S->m.u.tf.layers;
    for (int i = 1; i < 3 && affine; i++) {
        uint32_t k = probe[i];
        double dv = (double)S->attn_us[first[k]] - (double)S->attn_us[first[0]];
        affine = (double)rt[k] - (double)rt[0] == L * dv * 1e6;
    }
    if (rc == CS_OK && !affine && runs > SERVE_MAX_SIMS)
        rc = CS_ERR(err, CS_EINVAL, "serve: the decode step time is not affine in the attention's duration and %u "
                    "distinct decode steps would be simulated; expected at most %u (fewer serve.output-tokens)",
                    runs, SERVE_MAX_SIMS);
    if (rc == CS_OK && !affine && S->o->progress && runs > 3)
        cs_info("serve: decode step time not affine in the attention's duration: simulating %u decode steps", runs);
    for (uint32_t k = 0; k < runs && rc == CS_OK; k++) {
        if (done[k]) continue;
        if (affine) {
            double dv = (double)S->attn_us[first[k]] - (double)S->attn_us[first[0]];
            rt[k] = rt[0] + (cs_time)llround(L * dv * 1e6);
        } else {
            rc = run_step(S, CS_PHASE_DECODE, (uint64_t)S->sv.prompt_tokens + first[k] + 1, &rt[k], NULL, err);
            S->simulated[first[k]] = 1;
            S->nsims++;
        }
    }
    for (uint32_t k = 0, j = 0; k < runs && rc == CS_OK; k++) {
        uint32_t end = k + 1 < runs ? first[k + 1] : n;
        for (; j < end; j++) S->t_dec[j] = rt[k];
    }
    cs_free(first);
    cs_free(rt);
    cs_free(done);
    return rc;
}

/* ---- requests: arrivals and static batching ---- */

static void arrivals(serve *S) {
    uint32_t n = S->n;
    S->arr = cs_calloc(n ? n : 1, sizeof *S->arr);
    S->start = cs_calloc(n ? n : 1, sizeof *S->start);
    if (!S->sv.requests) return; /* one full batch at time 0 */
    uint64_t st = cs_mix64((uint64_t)S->sv.seed);
    double t = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (S->sv.arrivals == CS_ARRIVALS_UNIFORM) t = (double)i / S->sv.arrival_rate;
        else if (i > 0) t += -log(1.0 - cs_rand_unit(cs_rand_next(&st))) / S->sv.arrival_rate;
        S->arr[i] = cs_time_from_ns_f(t * 1e9);
    }
}

/* A batch starts when the server is free and a request waits; it takes the
 * waiting requests in arrival order, at most batch x dp, and runs its
 * prefill and all decode steps (padded to the full batch) before the next. */
static void schedule(serve *S) {
    cs_time free_at = 0;
    uint32_t i = 0;
    S->batches = 0;
    while (i < S->n) {
        cs_time st = S->arr[i] > free_at ? S->arr[i] : free_at;
        uint32_t k = 0;
        while (i < S->n && k < S->cap && S->arr[i] <= st) S->start[i++] = st, k++;
        free_at = st + S->t_batch;
        S->batches++;
    }
    S->makespan = free_at;
}

static int cmp_time(const void *a, const void *b) {
    cs_time x = *(const cs_time *)a, y = *(const cs_time *)b;
    return x < y ? -1 : x > y;
}

/* Nearest-rank percentile q (0 < q <= 100) of sorted v[0..n): v[ceil(q n / 100) - 1]. */
static cs_time pct(const cs_time *v, uint32_t n, double q) {
    double r = ceil(q * n / 100.0 - 1e-9);
    uint32_t k = r < 1 ? 0 : (uint32_t)r - 1;
    return v[k < n ? k : n - 1];
}

typedef struct dist { cs_time p50, p90, p99, max; double mean; } dist;
static dist distribution(cs_time *v, uint32_t n) {
    dist d = {0, 0, 0, 0, 0};
    if (!n) return d;
    double sum = 0;
    for (uint32_t i = 0; i < n; i++) sum += (double)v[i];
    qsort(v, n, sizeof *v, cmp_time);
    d.mean = sum / n;
    d.p50 = pct(v, n, 50);
    d.p90 = pct(v, n, 90);
    d.p99 = pct(v, n, 99);
    d.max = v[n - 1];
    return d;
}

static double ns(cs_time t) { return (double)t / 1000.0; }

static json_t *dist_json(const dist *d) {
    json_t *j = json_object();
    json_object_set_new(j, "mean", json_real(d->mean / 1000.0));
    json_object_set_new(j, "p50", json_real(ns(d->p50)));
    json_object_set_new(j, "p90", json_real(ns(d->p90)));
    json_object_set_new(j, "p99", json_real(ns(d->p99)));
    json_object_set_new(j, "max", json_real(ns(d->max)));
    return j;
}

/* ---- outputs ---- */

typedef struct summary {
    dist ttft, e2e;
    double tokens, tok_s, tok_s_gpu, batch_tok_s, tpot_ns;
} summary;

static json_t *summary_json(const serve *S, const summary *u) {
    json_t *j = json_object();
    json_object_set_new(j, "model", json_string(S->m.name));
    json_object_set_new(j, "device", json_string(S->d.name));
    json_t *pl = json_object();
    json_object_set_new(pl, "tp", json_integer(S->p.tp));
    json_object_set_new(pl, "pp", json_integer(S->p.pp));
    json_object_set_new(pl, "dp", json_integer(S->p.dp));
    json_object_set_new(pl, "ep", json_integer(S->p.ep));
    json_object_set_new(pl, "gpus", json_integer(S->gpus));
    json_object_set_new(pl, "batch_per_dp_rank", json_integer(S->sv.batch));
    json_object_set_new(pl, "batch_requests", json_integer(S->cap));
    json_object_set_new(pl, "prompt_tokens", json_integer(S->sv.prompt_tokens));
    json_object_set_new(pl, "output_tokens", json_integer(S->sv.output_tokens));
    json_object_set_new(pl, "flash_attention", json_boolean(S->p.flash));
    json_object_set_new(j, "plan", pl);
    json_t *mm = json_object();
    json_object_set_new(mm, "stage", json_integer(S->mem.stage));
    json_object_set_new(mm, "weights_bytes", json_real(S->mem.weights));
    json_object_set_new(mm, "kv_cache_bytes", json_real(S->mem.kv_cache));
    json_object_set_new(mm, "kv_tokens_per_sequence", json_integer(S->mem.kv_tokens));
    json_object_set_new(mm, "total_bytes", json_real(S->mem.total));
    json_object_set_new(mm, "hbm_bytes", json_real(S->d.hbm_bytes));
    json_object_set_new(j, "memory_per_gpu", mm);
    json_object_set_new(j, "prefill_time_ps", json_integer((json_int_t)S->t_pre));
    json_object_set_new(j, "prefill_time_ns", json_real(ns(S->t_pre)));
    json_object_set_new(j, "prefill_flops", json_real(S->prefill_flops));
    json_object_set_new(j, "decode_steps", json_integer(S->nsteps));
    json_object_set_new(j, "decode_steps_simulated", json_integer(S->nsims));
    json_object_set_new(j, "decode_time_ps", json_integer((json_int_t)S->t_dec_sum));
    json_object_set_new(j, "time_per_output_token_ns", json_real(u->tpot_ns));
    json_object_set_new(j, "batch_time_ps", json_integer((json_int_t)S->t_batch));
    json_object_set_new(j, "batch_time_ns", json_real(ns(S->t_batch)));
    json_object_set_new(j, "batch_output_tokens_per_s", json_real(u->batch_tok_s));
    json_object_set_new(j, "requests", json_integer(S->n));
    json_object_set_new(j, "batches", json_integer(S->batches));
    json_object_set_new(j, "arrivals", json_string(!S->sv.requests ? "one batch at 0"
                                                   : S->sv.arrivals == CS_ARRIVALS_UNIFORM ? "uniform" : "poisson"));
    json_object_set_new(j, "arrival_rate_per_s", json_real(S->sv.requests ? S->sv.arrival_rate : 0));
    json_object_set_new(j, "makespan_ns", json_real(ns(S->makespan)));
    json_object_set_new(j, "ttft_ns", dist_json(&u->ttft));
    json_object_set_new(j, "e2e_latency_ns", dist_json(&u->e2e));
    json_object_set_new(j, "output_tokens", json_real(u->tokens));
    json_object_set_new(j, "output_tokens_per_s", json_real(u->tok_s));
    json_object_set_new(j, "output_tokens_per_s_per_gpu", json_real(u->tok_s_gpu));
    json_t *un = json_object();
    json_object_set_new(un, "_ps", json_string("picoseconds"));
    json_object_set_new(un, "_ns", json_string("nanoseconds"));
    json_object_set_new(un, "_bytes", json_string("bytes"));
    json_object_set_new(un, "_per_s", json_string("per second of simulated time"));
    json_object_set_new(un, "ttft_ns, e2e_latency_ns", json_string("nanoseconds: mean and nearest-rank percentiles"));
    json_object_set_new(j, "units", un);
    return j;
}

static int write_csvs(const serve *S, cs_error *err) {
    char path[4096];
    cs_afile a;
    snprintf(path, sizeof path, "%s/requests.csv", S->o->out_dir);
    int rc = cs_afile_open(&a, path, err);
    if (rc) return rc;
    fprintf(a.f, "request,arrival_ns,batch_start_ns,first_token_ns,end_ns,ttft_ns,e2e_latency_ns\n");
    for (uint32_t i = 0; i < S->n; i++) {
        cs_time ft = S->start[i] + S->t_pre, en = S->start[i] + S->t_batch;
        fprintf(a.f, "%u,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f\n", i, ns(S->arr[i]), ns(S->start[i]), ns(ft), ns(en),
                ns(ft - S->arr[i]), ns(en - S->arr[i]));
    }
    rc = cs_afile_commit(&a, err);
    if (rc) return rc;
    snprintf(path, sizeof path, "%s/decode_steps.csv", S->o->out_dir);
    rc = cs_afile_open(&a, path, err);
    if (rc) return rc;
    fprintf(a.f, "step,context_tokens,attention_us,step_time_ps,step_time_ns,source\n");
    for (uint32_t j = 0; j < S->nsteps; j++)
        fprintf(a.f, "%u,%u,%" PRIu64 ",%" PRIu64 ",%.3f,%s\n", j + 1, S->sv.prompt_tokens + j + 1, S->attn_us[j],
                (uint64_t)S->t_dec[j], ns(S->t_dec[j]),
                S->simulated[j] ? "simulated" : j > 0 && S->attn_us[j] == S->attn_us[j - 1] ? "same attention time"
                                                                                          : "interpolated");
    return cs_afile_commit(&a, err);
}

static void report(const serve *S, const summary *u, FILE *f) {
    char mem[512];
    cs_gen_memory_format(&S->mem, mem, sizeof mem);
    fprintf(f, "clustersim serve -- %s on %u x %s\n\n", S->m.name, S->gpus, S->d.name);
    fprintf(f, "  plan       TP %u x PP %u x DP %u%s; static batch %u requests (%u per DP rank); prompt %u, output %u "
               "tokens%s\n",
            S->p.tp, S->p.pp, S->p.dp, S->p.ep > 1 ? " (EP)" : "", S->cap, S->sv.batch, S->sv.prompt_tokens,
            S->sv.output_tokens, S->p.flash ? "; flash attention (prefill)" : "");
    fprintf(f, "  memory     %s of %.2f GB HBM per GPU\n", mem, S->d.hbm_bytes / 1e9);
    fprintf(f, "  prefill    %.3f ms (%u x %u tokens, %.3e model FLOPs)\n", ns(S->t_pre) / 1e6, S->cap,
            S->sv.prompt_tokens, S->prefill_flops);
    if (S->nsteps)
        fprintf(f, "  decode     %u steps, %.3f ms: %.3f ms per output token (context %u to %u; %u simulated)\n",
                S->nsteps, ns(S->t_dec_sum) / 1e6, u->tpot_ns / 1e6, S->sv.prompt_tokens + 1,
                S->sv.prompt_tokens + S->nsteps, S->nsims);
    fprintf(f, "  batch      %.3f ms: %.0f output tokens/s at a full batch\n", ns(S->t_batch) / 1e6, u->batch_tok_s);
    if (S->sv.requests)
        fprintf(f, "  requests   %u (%s, %.4g requests/s, seed %d) in %u batches, makespan %.3f s\n", S->n,
                S->sv.arrivals == CS_ARRIVALS_UNIFORM ? "uniform" : "Poisson", S->sv.arrival_rate, S->sv.seed,
                S->batches, ns(S->makespan) / 1e9);
    else fprintf(f, "  requests   one full batch of %u at time 0\n", S->n);
    fprintf(f, "  TTFT       p50 %.3f ms, p90 %.3f ms, p99 %.3f ms (mean %.3f ms)\n", ns(u->ttft.p50) / 1e6,
            ns(u->ttft.p90) / 1e6, ns(u->ttft.p99) / 1e6, u->ttft.mean / 1e9);
    fprintf(f, "  end to end p50 %.3f ms, p90 %.3f ms, p99 %.3f ms (mean %.3f ms)\n", ns(u->e2e.p50) / 1e6,
            ns(u->e2e.p90) / 1e6, ns(u->e2e.p99) / 1e6, u->e2e.mean / 1e9);
    fprintf(f, "  throughput %.1f output tokens/s, %.2f per GPU\n", u->tok_s, u->tok_s_gpu);
}

static int serve_run(serve *S, cs_error *err) {
    int rc = cs_scenario_serve_params(S->base, &S->sv, err);
    if (rc) return rc;
    if (!cs_scenario_is_plan(S->base))
        return CS_ERR(err, CS_EINVAL, "model.name: expected a model to serve (--model)");
    /* the plan and its memory (refused with the breakdown when it does not fit) */
    cs_scenario *sc;
    rc = step_scenario(S, CS_PHASE_PREFILL, (uint64_t)S->sv.prompt_tokens, &sc, err);
    if (rc) return rc;
    rc = cs_scenario_plan(sc, &S->m, &S->d, &S->p, err);
    if (rc == CS_OK) {
        cs_network_config net;
        cs_system_config sys;
        cs_gen_model m2;
        cs_device d2;
        cs_gen_plan p2;
        rc = cs_scenario_plan_inputs(sc, &m2, &d2, &p2, &net, &sys, err);
        if (rc == CS_OK) {
            if (sys.roofline_enabled)
                rc = CS_ERR(err, CS_EINVAL, "system.roofline-enabled: expected 0 for serve: serving steps are timed "
                                            "by the generator's durations (docs/inference.md)");
            cs_network_config_free(&net);
            cs_system_config_free(&sys);
        }
    }
    cs_scenario_free(sc);
    if (rc) return rc;
    cs_gen_memory_worst(&S->m, &S->p, &S->mem);
    S->gpus = cs_gen_ranks(&S->p);
    S->cap = (uint32_t)S->sv.batch * S->p.dp;
    S->prefill_flops = S->m.family->flops(&S->m, &S->p);
    S->nsteps = (uint32_t)S->sv.output_tokens - 1;
    if (S->o->check) { /* the prefill step's run checked (a decode step differs in its durations only) */
        rc = run_step(S, CS_PHASE_PREFILL, (uint64_t)S->sv.prompt_tokens, &S->t_pre, NULL, err);
        if (rc == CS_OK && S->o->report)
            fprintf(S->o->report, "ok: %s on %u x %s: TP %u x PP %u x DP %u, batch %u requests (%u per DP rank), "
                    "prompt %u, output %u tokens, %.2f of %.2f GB HBM per GPU; nothing simulated\n", S->m.name,
                    S->gpus, S->d.name, S->p.tp, S->p.pp, S->p.dp, S->cap, S->sv.batch, S->sv.prompt_tokens,
                    S->sv.output_tokens, S->mem.total / 1e9, S->d.hbm_bytes / 1e9);
        return rc;
    }
    rc = run_step(S, CS_PHASE_PREFILL, (uint64_t)S->sv.prompt_tokens, &S->t_pre, NULL, err);
    if (rc == CS_OK) rc = decode_steps(S, err);
    if (rc) return rc;
    S->t_dec_sum = 0;
    double sum = (double)S->t_pre;
    for (uint32_t j = 0; j < S->nsteps; j++) {
        S->t_dec_sum += S->t_dec[j];
        sum += (double)S->t_dec[j];
    }
    S->t_batch = S->t_pre + S->t_dec_sum;
    S->n = S->sv.requests ? (uint32_t)S->sv.requests : S->cap;
    arrivals(S);
    /* every batch ends by the last arrival + n batch times: within the simulated-time range */
    if ((double)S->arr[S->n ? S->n - 1 : 0] + sum * ((double)S->n + 1) >= 0.999 * (double)CS_TIME_MAX)
        return CS_ERR(err, CS_EINVAL, "serve: %u requests of batch time %.6g s (arrival rate %g requests/s) pass the "
                      "simulated-time range of 2^64 ps (213 days); expected fewer serve.requests or "
                      "serve.output-tokens, or a higher serve.arrival-rate", S->n, sum * 1e-12, S->sv.arrival_rate);
    schedule(S);
    summary u;
    memset(&u, 0, sizeof u);
    cs_time *v = cs_calloc(S->n, sizeof *v);
    for (uint32_t i = 0; i < S->n; i++) v[i] = S->start[i] + S->t_pre - S->arr[i];
    u.ttft = distribution(v, S->n);
    for (uint32_t i = 0; i < S->n; i++) v[i] = S->start[i] + S->t_batch - S->arr[i];
    u.e2e = distribution(v, S->n);
    cs_free(v);
    u.tokens = (double)S->n * S->sv.output_tokens;
    u.tok_s = u.tokens / (ns(S->makespan) * 1e-9);
    u.tok_s_gpu = u.tok_s / S->gpus;
    u.batch_tok_s = (double)S->cap * S->sv.output_tokens / (ns(S->t_batch) * 1e-9);
    u.tpot_ns = S->nsteps ? ns(S->t_dec_sum) / S->nsteps : 0;
    json_t *j = summary_json(S, &u);
    if (S->o->out_dir) {
        char path[4096];
        rc = cs_mkdir_p(S->o->out_dir, "--out", err);
        snprintf(path, sizeof path, "%s/summary.json", S->o->out_dir);
        if (rc == CS_OK) rc = cs_write_json_atomic(path, j, err);
        if (rc == CS_OK) rc = write_csvs(S, err);
    }
    if (rc == CS_OK && S->o->json_path) rc = cs_write_json_atomic(S->o->json_path, j, err);
    json_decref(j);
    if (rc == CS_OK && S->o->report) report(S, &u, S->o->report);
    return rc;
}

/* The result files of o (--out DIR's and --json's), this run's or an earlier run's. */
static void remove_results(const cs_serve_options *o) {
    static const char *const files[] = {"summary.json", "requests.csv", "decode_steps.csv"};
    char path[4096];
    for (size_t i = 0; o->out_dir && i < sizeof files / sizeof *files; i++) {
        snprintf(path, sizeof path, "%s/%s", o->out_dir, files[i]);
        cs_remove_output(path);
    }
    if (o->json_path) cs_remove_output(o->json_path);
}

int cs_serve(const cs_scenario *base, const cs_serve_options *o, cs_error *err) {
    serve S;
    memset(&S, 0, sizeof S);
    S.base = base;
    S.o = o;
    if (!o->check) remove_results(o); /* a failed run leaves no earlier results behind */
    int rc = serve_run(&S, err);
    if (rc != CS_OK && !o->check) remove_results(o); /* nor a part of its own */
    cs_free(S.t_dec);
    cs_free(S.attn_us);
    cs_free(S.simulated);
    cs_free(S.arr);
    cs_free(S.start);
    return rc;
}
