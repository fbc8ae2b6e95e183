/*
 * bwopt.c -- the bandwidth-allocation optimizer (see bwopt.h;
 * docs/bandwidth.md).
 *
 * Shares are integers in units of 1 / (grid x 2^levels) of the budget, so
 * that every split the search reaches by different moves is the same key of
 * the cache, exactly.  Coordinate k < D is varied dimension dims[k]; with a
 * performance-per-dollar objective coordinate D is the budget left unspent.
 */
#include "sweep/bwopt.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "core/afile.h"
#include "core/alloc.h"
#include "core/opts.h"
#include "core/time.h"
#include "scenario/result.h"
#include "scenario/scenario.h"

#define MAXW 16 /* workloads */

enum { OBJ_TIME, OBJ_PERF_USD, OBJ_PERF_NET_USD };
static const char *const OBJ_NAMES[] = {"time", "perf-per-usd", "perf-per-network-usd"};

typedef struct eval {
    int64_t *u;             /* K shares in units */
    double bw[CS_MAX_DIMS]; /* every dimension's bandwidth, GB/s */
    double t_ns[MAXW];      /* per workload */
    double wt_ns, capex, net_capex, obj; /* obj: minimized; INFINITY = failed */
    char label[8];
    char err[200];
} eval;

typedef struct bwopt {
    const cs_bwopt_options *o;
    const char *spec;
    cs_scenario *w[MAXW];
    char *wname[MAXW];
    double weight[MAXW];
    size_t nw;
    int objective, budget_usd;
    double budget, min_gbps, resolution;
    uint32_t grid;
    /* the network (from the first workload's run at its own bandwidths) */
    int ndims;
    uint32_t npus[CS_MAX_DIMS];
    double given_bw[CS_MAX_DIMS], usd_per_gbps[CS_MAX_DIMS];
    int dims[CS_MAX_DIMS];
    size_t D, K;            /* varied dimensions; coordinates (D, or D + 1 with the slack) */
    int64_t U;              /* units in the whole budget */
    double remain;          /* budget for the varied dimensions (GB/s or US$) */
    eval *ev;
    size_t nev, cap;
    int64_t *upool;         /* shares of every eval (nev x K) */
} bwopt;

/* ---- the spec -------------------------------------------------------------------------------- */

static int bad(const cs_jdoc *d, const char *key, cs_error *err, const char *fmt, const char *got) {
    return CS_ERR(err, CS_EINVAL, "%s:%d: %s: %s%s%s", d->path, cs_jdoc_key_line(d, key), key, fmt,
                  got ? ", got " : "", got ? got : "");
}

static int parse_spec(bwopt *B, cs_error *err) {
    cs_jdoc d;
    int rc = cs_jdoc_load(B->spec, "bandwidth spec", &d, err);
    if (rc) return rc;
    char got[160];
    const char *k;
    json_t *v;
    static const char *const KEYS[] = {"clustersim-bandwidth", "workloads", "set", "dimensions", "budget",
                                       "objective", "grid", "resolution", "min-gbps"};
    json_object_foreach(d.root, k, v) {
        size_t i = 0;
        while (i < sizeof KEYS / sizeof KEYS[0] && strcmp(KEYS[i], k) != 0) i++;
        if (i == sizeof KEYS / sizeof KEYS[0]) {
            rc = CS_ERR(err, CS_EINVAL, "%s:%d: unknown key \"%s\"; expected one of clustersim-bandwidth, workloads, "
                                        "set, dimensions, budget, objective, grid, resolution, min-gbps",
                        d.path, cs_jdoc_key_line(&d, k), k);
            goto out;
        }
    }
    v = json_object_get(d.root, "clustersim-bandwidth");
    long long ver;
    if (!v || cs_json_ll(v, &ver) || ver != 1) {
        cs_json_repr(v, got, sizeof got);
        rc = bad(&d, "clustersim-bandwidth", err, "expected 1 (the format's version)", v ? got : "no such key");
        goto out;
    }
    /* workloads: a list of scenario paths or {"scenario": path, "weight": w} */
    json_t *ws = json_object_get(d.root, "workloads");
    if (!json_is_array(ws) || json_array_size(ws) == 0 || json_array_size(ws) > MAXW) {
        cs_json_repr(ws, got, sizeof got);
        rc = bad(&d, "workloads", err, "expected a list of 1 to 16 scenario files or {\"scenario\": FILE, \"weight\": W}",
                 ws ? got : "no such key");
        goto out;
    }
    json_t *set = json_object_get(d.root, "set");
    if (set && !json_is_object(set)) {
        cs_json_repr(set, got, sizeof got);
        rc = bad(&d, "set", err, "expected an object of scenario keys", got);
        goto out;
    }
    size_t i;
    json_t *e;
    json_array_foreach(ws, i, e) {
        const char *p = json_is_string(e) ? json_string_value(e) : json_string_value(json_object_get(e, "scenario"));
        json_t *wt = json_is_object(e) ? json_object_get(e, "weight") : NULL;
        if (!p || (json_is_object(e) && json_object_size(e) != 1 + (wt != NULL)) ||
            (wt && !(json_is_number(wt) && json_number_value(wt) > 0 && json_number_value(wt) < 1e12))) {
            cs_json_repr(e, got, sizeof got);
            rc = CS_ERR(err, CS_EINVAL, "%s:%d: workloads[%zu]: expected a scenario file or {\"scenario\": FILE, "
                                        "\"weight\": W > 0 and < 1e12}, got %s",
                        d.path, cs_jdoc_elem_line(&d, "workloads", i), i, got);
            goto out;
        }
        char *path = cs_path_near(B->spec, p);
        B->weight[i] = wt ? json_number_value(wt) : 1.0;
        B->wname[i] = cs_strdup(p);
        B->w[i] = cs_scenario_new();
        B->nw = i + 1;
        rc = cs_scenario_load_file(B->w[i], path, err);
        cs_free(path);
        char where[300];
        snprintf(where, sizeof where, "%s (set)", d.path);
        json_object_foreach(set, k, v) {
            if (rc) break;
            rc = cs_scenario_set_json(B->w[i], k, v, where, err);
        }
        if (rc) {
            cs_error_prefix(err, "%s: workloads[%zu]: ", d.path, i);
            goto out;
        }
    }
    /* budget: exactly one of gbps-per-npu, network-usd */
    json_t *bu = json_object_get(d.root, "budget");
    json_t *bg = json_object_get(bu, "gbps-per-npu"), *bd = json_object_get(bu, "network-usd");
    if (!json_is_object(bu) || json_object_size(bu) != 1 || !(bg || bd) ||
        !(json_is_number(bg ? bg : bd) && json_number_value(bg ? bg : bd) > 0 &&
          json_number_value(bg ? bg : bd) < 1e15)) {
        cs_json_repr(bu, got, sizeof got);
        rc = bad(&d, "budget", err, "expected exactly one of {\"gbps-per-npu\": GB/s} or {\"network-usd\": US$}, a number > 0 and < 1e15",
                 bu ? got : "no such key");
        goto out;
    }
    B->budget_usd = bd != NULL;
    B->budget = json_number_value(bg ? bg : bd);
    json_t *ob = json_object_get(d.root, "objective");
    B->objective = OBJ_TIME;
    if (ob) {
        int found = -1;
        for (int q = 0; q < 3; q++)
            if (json_is_string(ob) && strcmp(json_string_value(ob), OBJ_NAMES[q]) == 0) found = q;
        if (found < 0) {
            cs_json_repr(ob, got, sizeof got);
            rc = bad(&d, "objective", err, "expected time, perf-per-usd or perf-per-network-usd", got);
            goto out;
        }
        B->objective = found;
    }
    long long g = 8;
    json_t *gj = json_object_get(d.root, "grid");
    if (gj && (cs_json_ll(gj, &g) || g < 1 || g > 64)) {
        cs_json_repr(gj, got, sizeof got);
        rc = bad(&d, "grid", err, "expected an integer from 1 to 64 (budget steps of the first pass)", got);
        goto out;
    }
    B->grid = (uint32_t)g;
    B->resolution = 0.001;
    json_t *rj = json_object_get(d.root, "resolution");
    if (rj && !(json_is_number(rj) && json_number_value(rj) >= 1e-6 && json_number_value(rj) <= 1)) {
        cs_json_repr(rj, got, sizeof got);
        rc = bad(&d, "resolution", err, "expected a share of the budget from 1e-6 to 1", got);
        goto out;
    }
    if (rj) B->resolution = json_number_value(rj);
    B->min_gbps = 0;
    json_t *mj = json_object_get(d.root, "min-gbps");
    if (mj && !(json_is_number(mj) && json_number_value(mj) >= 0 && json_number_value(mj) < 1e12)) {
        cs_json_repr(mj, got, sizeof got);
        rc = bad(&d, "min-gbps", err, "expected a bandwidth >= 0 GB/s", got);
        goto out;
    }
    if (mj) B->min_gbps = json_number_value(mj);
    json_t *dj = json_object_get(d.root, "dimensions");
    B->D = 0;
    if (dj) {
        if (!json_is_array(dj) || json_array_size(dj) == 0 || json_array_size(dj) > CS_MAX_DIMS) {
            cs_json_repr(dj, got, sizeof got);
            rc = bad(&d, "dimensions", err, "expected a list of dimension indices (0 = the first)", got);
            goto out;
        }
        json_array_foreach(dj, i, e) {
            long long x;
            if (cs_json_ll(e, &x) || x < 0 || x >= CS_MAX_DIMS) {
                cs_json_repr(e, got, sizeof got);
                rc = CS_ERR(err, CS_EINVAL, "%s:%d: dimensions[%zu]: expected a dimension index, got %s", d.path,
                            cs_jdoc_elem_line(&d, "dimensions", i), i, got);
                goto out;
            }
            for (size_t q = 0; q < B->D; q++)
                if (B->dims[q] == (int)x) {
                    rc = CS_ERR(err, CS_EINVAL, "%s: dimensions: %lld given twice", d.path, x);
                    goto out;
                }
            B->dims[B->D++] = (int)x;
        }
    }
out:
    cs_jdoc_free(&d);
    return rc;
}

/* ---- evaluating a split ------------------------------------------------------------------- */

static double coord_bw(const bwopt *B, size_t k, int64_t u) {
    double share = (double)u / (double)B->U;
    return B->budget_usd ? share * B->remain / B->usd_per_gbps[B->dims[k]] : share * B->remain;
}

/* Run every workload with bandwidths bw; fill e (obj INFINITY and err on a failure). */
static int run_all(bwopt *B, eval *e, cs_error *fatal) {
    e->wt_ns = 0;
    e->obj = INFINITY;
    for (size_t i = 0; i < B->nw; i++) {
        cs_scenario *sc = cs_scenario_copy(B->w[i]);
        json_t *arr = json_array();
        for (int d = 0; d < B->ndims; d++) json_array_append_new(arr, json_real(e->bw[d]));
        cs_error er;
        cs_error_clear(&er);
        int rc = cs_scenario_set_json(sc, "network.bandwidth", arr, "bandwidth", &er);
        json_decref(arr);
        cs_result *r = NULL;
        if (rc == CS_OK) {
            cs_run_hooks h;
            memset(&h, 0, sizeof h);
            h.no_collectives = 1;
            h.stop = B->o->stop;
            rc = cs_scenario_run_hooked(sc, &h, &r, &er);
        }
        cs_scenario_free(sc);
        if (rc == CS_EINTR) {
            *fatal = er;
            return rc;
        }
        if (rc) {
            snprintf(e->err, sizeof e->err, "%s: %.180s", B->wname[i], er.msg);
            return CS_OK;
        }
        e->t_ns[i] = (double)r->sim.sim_time / 1e3;
        e->wt_ns += B->weight[i] * e->t_ns[i];
        if (i == 0) {
            e->capex = r->cost.valid ? r->cost.capex_usd : NAN;
            e->net_capex = r->cost.capex_scaleup_usd + r->cost.capex_scaleout_usd;
        }
        cs_result_free(r);
    }
    e->obj = B->objective == OBJ_TIME ? e->wt_ns : B->objective == OBJ_PERF_USD ? e->wt_ns * e->capex
                                                                                : e->wt_ns * e->net_capex;
    if (!(e->obj >= 0)) e->obj = INFINITY;
    return CS_OK;
}

/* The evaluation of shares u (K units), simulated once. */
static int evaluate(bwopt *B, const int64_t *u, const char *label, size_t *idx, cs_error *err) {
    for (size_t i = 0; i < B->nev; i++)
        if (B->ev[i].u && memcmp(B->ev[i].u, u, B->K * sizeof *u) == 0) {
            *idx = i;
            return CS_OK;
        }
    if (B->nev == B->cap) {
        B->cap = B->cap ? 2 * B->cap : 64;
        B->ev = cs_realloc(B->ev, B->cap * sizeof *B->ev);
        int64_t *np = cs_realloc(B->upool, B->cap * (B->K ? B->K : 1) * sizeof *np);
        for (size_t i = 0; i < B->nev; i++) /* re-point the shares into the moved pool */
            if (B->ev[i].u) B->ev[i].u = np + i * B->K;
        B->upool = np;
    }
    eval *e = &B->ev[B->nev];
    memset(e, 0, sizeof *e);
    e->u = B->upool + B->nev * B->K;
    memcpy(e->u, u, B->K * sizeof *u);
    snprintf(e->label, sizeof e->label, "%s", label);
    memcpy(e->bw, B->given_bw, sizeof e->bw);
    for (size_t k = 0; k < B->D; k++) e->bw[B->dims[k]] = coord_bw(B, k, u[k]);
    int rc = run_all(B, e, err);
    if (rc) return rc;
    *idx = B->nev++;
    return CS_OK;
}

/* ---- the search --------------------------------------------------------------------------- */

/* The least units coordinate k may hold. */
static int64_t min_units(const bwopt *B, size_t k) {
    if (k >= B->D) return 0; /* the slack */
    double per_unit = coord_bw(B, k, 1);
    int64_t m = (int64_t)ceil(B->min_gbps / per_unit - 1e-9);
    return m < 1 ? 1 : m;
}

/* Every composition of the grid (units of U / grid) into K parts, each at its minimum or more. */
static int grid_pass(bwopt *B, int64_t step, size_t *best, cs_error *err) {
    int64_t *u = cs_calloc(B->K, sizeof *u);
    int64_t parts = B->U / step;
    int64_t *c = cs_calloc(B->K, sizeof *c); /* parts per coordinate */
    int rc = CS_OK;
    /* odometer over the first K - 1 coordinates; the last takes the rest */
    for (;;) {
        int64_t used = 0;
        for (size_t k = 0; k + 1 < B->K; k++) used += c[k];
        if (used <= parts) {
            c[B->K - 1] = parts - used;
            int ok = 1;
            for (size_t k = 0; k < B->K; k++) {
                u[k] = c[k] * step;
                if (u[k] < min_units(B, k)) ok = 0;
            }
            if (ok) {
                size_t idx;
                rc = evaluate(B, u, "grid", &idx, err);
                if (rc) break;
                if (*best == SIZE_MAX || B->ev[idx].obj < B->ev[*best].obj) *best = idx;
            }
        }
        size_t k = 0;
        while (k + 1 < B->K && ++c[k] > parts) c[k++] = 0;
        if (k + 1 >= B->K) break;
    }
    cs_free(c);
    cs_free(u);
    return rc;
}

/* C(n, k) as a double (the grid's size). */
static double binom(double n, double k) {
    double c = 1;
    for (double i = 1; i <= k; i++) c = c * (n - k + i) / i;
    return c;
}

static int search(bwopt *B, size_t *best, cs_error *err) {
    int64_t step = B->U / B->grid;
    *best = SIZE_MAX;
    /* the grid pass's splits: compositions of grid parts, each dimension >= 1 part (the slack >= 0) */
    double ngrid = B->K > B->D ? binom(B->grid, (double)B->D) : binom(B->grid - 1.0, (double)B->D - 1.0);
    if (ngrid > 5000)
        return CS_ERR(err, CS_EINVAL, "%s: grid %u over %zu dimensions%s is %.0f splits to simulate; expected at "
                                      "most 5000 (a smaller grid: the refinement goes finer anyway)",
                      B->spec, B->grid, B->D, B->K > B->D ? " and the unspent budget" : "", ngrid);
    int rc = grid_pass(B, step, best, err);
    if (rc) return rc;
    if (*best == SIZE_MAX)
        return CS_ERR(err, CS_EINVAL, "%s: min-gbps %g leaves no split of the budget at grid %u", B->spec,
                      B->min_gbps, B->grid);
    int64_t *u = cs_calloc(B->K, sizeof *u);
    while (step >= 1 && (double)step / (double)B->U >= B->resolution / 2) {
        size_t cur = *best, nb = cur;
        for (size_t i = 0; i < B->K && rc == CS_OK; i++)
            for (size_t j = 0; j < B->K && rc == CS_OK; j++) {
                if (i == j) continue;
                memcpy(u, B->ev[cur].u, B->K * sizeof *u);
                if (u[j] - step < min_units(B, j)) continue;
                u[i] += step;
                u[j] -= step;
                size_t idx;
                rc = evaluate(B, u, "refine", &idx, err);
                if (rc == CS_OK && B->ev[idx].obj < B->ev[nb].obj) nb = idx;
            }
        if (rc) break;
        if (nb != cur) {
            *best = nb;
            if (B->o->progress)
                fprintf(stderr, "bandwidth: %zu splits simulated, best objective %.9g\n", B->nev, B->ev[nb].obj);
        } else {
            step /= 2;
        }
    }
    cs_free(u);
    if (rc == CS_OK && !isfinite(B->ev[*best].obj)) /* not one split ran: there is no best to report */
        return CS_ERR(err, CS_EINVAL, "%s: none of the %zu splits of the budget could be simulated; expected a budget "
                                      "the workloads run under. The first split's error: %s",
                      B->spec, B->nev, B->ev[*best].err);
    return rc;
}

/* ---- outputs ------------------------------------------------------------------------------ */

static void num(FILE *f, double x) {
    char b[64];
    if (isnan(x) || isinf(x)) return;
    cs_fmt_double(b, sizeof b, x);
    fputs(b, f);
}

static int write_csv(const bwopt *B, const char *path, cs_error *err) {
    cs_afile a;
    int rc = cs_afile_open(&a, path, err);
    if (rc) return rc;
    fputs("split,label", a.f);
    for (int d = 0; d < B->ndims; d++) fprintf(a.f, ",bandwidth_dim%d_gbps", d);
    for (size_t i = 0; i < B->nw; i++) fprintf(a.f, ",time_ns_w%zu", i);
    fputs(",weighted_time_ns,network_capex_usd,capex_usd,objective,error\n", a.f);
    for (size_t s = 0; s < B->nev; s++) {
        const eval *e = &B->ev[s];
        fprintf(a.f, "%zu,%s", s, e->label);
        for (int d = 0; d < B->ndims; d++) {
            fputc(',', a.f);
            num(a.f, e->bw[d]);
        }
        for (size_t i = 0; i < B->nw; i++) {
            fputc(',', a.f);
            if (!e->err[0]) num(a.f, e->t_ns[i]);
        }
        fputc(',', a.f);
        if (!e->err[0]) num(a.f, e->wt_ns);
        fputc(',', a.f);
        num(a.f, e->net_capex);
        fputc(',', a.f);
        num(a.f, e->capex);
        fputc(',', a.f);
        num(a.f, e->obj);
        fputc(',', a.f);
        if (e->err[0]) {
            fputc('"', a.f);
            for (const char *p = e->err; *p; p++) {
                if (*p == '"') fputc('"', a.f);
                fputc(*p == '\n' ? ' ' : *p, a.f);
            }
            fputc('"', a.f);
        }
        fputc('\n', a.f);
    }
    return cs_afile_commit(&a, err);
}

static json_t *eval_json(const bwopt *B, const eval *e) {
    json_t *j = json_object(), *bw = json_array(), *t = json_array();
    for (int d = 0; d < B->ndims; d++) json_array_append_new(bw, json_real(e->bw[d]));
    for (size_t i = 0; i < B->nw; i++) json_array_append_new(t, json_real(e->t_ns[i]));
    json_object_set_new(j, "bandwidth_gbps", bw);
    json_object_set_new(j, "time_ns", t);
    json_object_set_new(j, "weighted_time_ns", json_real(e->wt_ns));
    json_object_set_new(j, "network_capex_usd", json_real(e->net_capex));
    if (!isnan(e->capex)) json_object_set_new(j, "capex_usd", json_real(e->capex));
    if (isfinite(e->obj)) json_object_set_new(j, "objective", json_real(e->obj));
    if (e->err[0]) json_object_set_new(j, "error", json_string(e->err));
    return j;
}

static void print_eval(FILE *f, const bwopt *B, const char *label, const eval *e) {
    fprintf(f, "  %-8s [", label);
    for (int d = 0; d < B->ndims; d++) fprintf(f, "%s%.4g", d ? ", " : "", e->bw[d]);
    if (e->err[0]) {
        fprintf(f, "] GB/s  failed: %s\n", e->err);
        return;
    }
    fprintf(f, "] GB/s  weighted time %.6g s, network $%.4g M", e->wt_ns / 1e9, e->net_capex / 1e6);
    if (B->objective != OBJ_TIME) fprintf(f, ", objective %.6g", e->obj);
    fputc('\n', f);
}

/* ---- the command ------------------------------------------------------------------------------ */

static void bwopt_free(bwopt *B) {
    for (size_t i = 0; i < B->nw; i++) {
        cs_scenario_free(B->w[i]);
        cs_free(B->wname[i]);
    }
    cs_free(B->ev);
    cs_free(B->upool);
}

/* The network of workload 0 as given (and its run): dimensions, bandwidths, prices per GB/s. */
static int network_of(bwopt *B, cs_error *err) {
    cs_result *r = NULL;
    cs_run_hooks h;
    memset(&h, 0, sizeof h);
    h.no_collectives = 1;
    h.stop = B->o->stop;
    int rc = cs_scenario_run_hooked(B->w[0], &h, &r, err);
    if (rc) {
        cs_error_prefix(err, "%s: workloads[0] as given: ", B->spec);
        return rc;
    }
    if (!r->cost.net_from_dims)
        rc = CS_ERR(err, CS_EINVAL, "%s: workloads[0] (%s) has a topology of its own; expected the network's "
                                    "dimensions alone (their bandwidths are what is split)",
                    B->spec, B->wname[0]);
    if (rc == CS_OK && B->objective == OBJ_PERF_USD && !r->cost.valid)
        rc = CS_ERR(err, CS_EINVAL, "%s: objective perf-per-usd: %s", B->spec, r->cost.why);
    B->ndims = r->net.ndims;
    for (int d = 0; d < B->ndims; d++) {
        B->npus[d] = r->net.npus[d];
        B->given_bw[d] = r->net.bandwidth_gbps[d];
        B->usd_per_gbps[d] = r->cost.dim_usd_per_gbps[d];
    }
    cs_result_free(r);
    return rc;
}

int cs_bwopt_check_spec(const char *spec, cs_error *err) {
    bwopt B;
    memset(&B, 0, sizeof B);
    B.spec = spec;
    int rc = parse_spec(&B, err);
    bwopt_free(&B);
    return rc;
}

int cs_bwopt(const char *spec, const cs_bwopt_options *o, cs_error *err) {
    bwopt B;
    memset(&B, 0, sizeof B);
    B.o = o;
    B.spec = spec;
    double w0 = cs_host_wall_s(), c0 = cs_host_cpu_s();
    char pcsv[4200], pjson[4200];
    snprintf(pcsv, sizeof pcsv, "%s/splits.csv", o->out_dir);
    snprintf(pjson, sizeof pjson, "%s/best.json", o->out_dir);
    int rc = cs_mkdir_p(o->out_dir, "--out", err);
    /* a failed or interrupted run leaves no result of an earlier one */
    if (rc == CS_OK && ((unlink(pcsv) != 0 && errno != ENOENT) || (unlink(pjson) != 0 && errno != ENOENT)))
        rc = CS_ERR(err, CS_EIO, "%s: cannot remove an earlier result: %s", o->out_dir, strerror(errno));
    if (rc == CS_OK) rc = parse_spec(&B, err);
    if (rc == CS_OK) rc = network_of(&B, err);
    /* every workload on the same dimensions */
    for (size_t i = 1; i < B.nw && rc == CS_OK; i++) {
        json_t *j = cs_scenario_to_json(B.w[i], err);
        json_t *nc = j ? json_object_get(json_object_get(j, "network"), "npus_count") : NULL;
        int same = json_is_array(nc) && (int)json_array_size(nc) == B.ndims;
        for (int d = 0; same && d < B.ndims; d++)
            same = json_integer_value(json_array_get(nc, (size_t)d)) == (json_int_t)B.npus[d];
        if (!j) rc = err->code ? err->code : CS_EINVAL;
        else if (!same)
            rc = CS_ERR(err, CS_EINVAL, "%s: workloads[%zu] (%s): expected the network dimensions of workloads[0] "
                                        "(the same npus_count), got others",
                        spec, i, B.wname[i]);
        json_decref(j);
    }
    if (rc == CS_OK && !B.D)
        for (int d = 0; d < B.ndims; d++)
            if (B.npus[d] > 1) B.dims[B.D++] = d;
    for (size_t k = 0; k < B.D && rc == CS_OK; k++)
        if (B.dims[k] >= B.ndims || B.npus[B.dims[k]] < 2)
            rc = CS_ERR(err, CS_EINVAL, "%s: dimensions: %d: expected a dimension of the network with 2 or more "
                                        "NPUs (the network has %d dimensions)",
                        spec, B.dims[k], B.ndims);
    if (rc == CS_OK && B.D < 2)
        rc = CS_ERR(err, CS_EINVAL, "%s: dimensions: expected two or more dimensions to split the budget over, got %zu",
                    spec, B.D);
    if (rc == CS_OK) {
        B.remain = B.budget;
        if (B.budget_usd) /* the price of the dimensions kept as they are comes off the budget */
            for (int d = 0; d < B.ndims; d++) {
                int varied = 0;
                for (size_t k = 0; k < B.D; k++) varied |= B.dims[k] == d;
                if (!varied) B.remain -= B.usd_per_gbps[d] * B.given_bw[d];
            }
        if (!(B.remain > 0))
            rc = CS_ERR(err, CS_EINVAL, "%s: budget: the dimensions kept as given already cost $%.6g; expected a "
                                        "larger network-usd",
                        spec, B.budget - B.remain);
        for (size_t k = 0; k < B.D && rc == CS_OK && B.budget_usd; k++)
            if (!(B.usd_per_gbps[B.dims[k]] > 0))
                rc = CS_ERR(err, CS_EINVAL, "%s: budget network-usd: dimension %d costs nothing in the cost model "
                                            "(its cost.* prices are 0); expected a price or a gbps-per-npu budget",
                            spec, B.dims[k]);
    }
    size_t best = SIZE_MAX, uni = SIZE_MAX, given = SIZE_MAX;
    if (rc == CS_OK) {
        B.K = B.D + (B.objective != OBJ_TIME);
        int levels = 0;
        while ((double)1 / ((double)B.grid * (double)(1LL << levels)) >= B.resolution / 2 && levels < 40) levels++;
        B.U = (int64_t)B.grid << levels;
        /* the scenarios' own split (not in the search: its bandwidths need not meet the budget) */
        eval g;
        memset(&g, 0, sizeof g);
        memcpy(g.bw, B.given_bw, sizeof g.bw);
        snprintf(g.label, sizeof g.label, "given");
        rc = run_all(&B, &g, err);
        if (rc == CS_OK) {
            if (B.nev == B.cap) {
                B.cap = 64;
                B.ev = cs_malloc(B.cap * sizeof *B.ev);
                B.upool = cs_malloc(B.cap * B.K * sizeof *B.upool);
            }
            B.ev[B.nev] = g;
            given = B.nev++;
        }
    }
    if (rc == CS_OK) { /* the uniform split: equal bandwidth on every varied dimension, the whole budget */
        eval g;
        memset(&g, 0, sizeof g);
        memcpy(g.bw, B.given_bw, sizeof g.bw);
        double sum_a = 0;
        for (size_t k = 0; k < B.D; k++) sum_a += B.budget_usd ? B.usd_per_gbps[B.dims[k]] : 1;
        for (size_t k = 0; k < B.D; k++) g.bw[B.dims[k]] = B.remain / sum_a;
        snprintf(g.label, sizeof g.label, "uniform");
        rc = run_all(&B, &g, err);
        if (rc == CS_OK) {
            B.ev[B.nev] = g;
            uni = B.nev++;
        }
    }
    if (rc == CS_OK) rc = search(&B, &best, err);
    if (rc == CS_OK) rc = write_csv(&B, pcsv, err);
    if (rc == CS_OK) {
        json_t *j = json_object();
        json_object_set_new(j, "objective", json_string(OBJ_NAMES[B.objective]));
        json_object_set_new(j, B.budget_usd ? "budget_network_usd" : "budget_gbps_per_npu", json_real(B.budget));
        json_t *dims = json_array();
        for (size_t k = 0; k < B.D; k++) json_array_append_new(dims, json_integer(B.dims[k]));
        json_object_set_new(j, "dimensions", dims);
        json_object_set_new(j, "best", eval_json(&B, &B.ev[best]));
        json_object_set_new(j, "uniform", eval_json(&B, &B.ev[uni]));
        json_object_set_new(j, "given", eval_json(&B, &B.ev[given]));
        if (isfinite(B.ev[uni].obj) && B.ev[best].obj > 0)
            json_object_set_new(j, "gain_vs_uniform", json_real(B.ev[uni].obj / B.ev[best].obj - 1));
        json_object_set_new(j, "splits_simulated", json_integer((json_int_t)B.nev));
        rc = cs_write_json_atomic(pjson, j, err);
        json_decref(j);
        if (rc) unlink(pcsv);
    }
    if (rc == CS_OK && o->report) {
        FILE *f = o->report;
        fprintf(f, "clustersim bandwidth %s: %zu workload%s, dimensions", spec, B.nw, B.nw == 1 ? "" : "s");
        for (size_t k = 0; k < B.D; k++) fprintf(f, "%s%d", k ? ", " : " ", B.dims[k]);
        fprintf(f, " split, budget %g %s, objective %s\n", B.budget,
                B.budget_usd ? "US$ of network" : "GB/s per NPU", OBJ_NAMES[B.objective]);
        print_eval(f, &B, "given", &B.ev[given]);
        print_eval(f, &B, "uniform", &B.ev[uni]);
        print_eval(f, &B, "best", &B.ev[best]);
        if (isfinite(B.ev[uni].obj))
            fprintf(f, "  gain     %.2f %% over the uniform split (%s)\n",
                    100 * (B.ev[uni].obj / B.ev[best].obj - 1),
                    B.objective == OBJ_TIME ? "weighted time" : "performance per dollar");
        fprintf(f, "  %zu splits simulated, %.2f s wall, %.2f s CPU; %s, %s\n", B.nev, cs_host_wall_s() - w0,
                cs_host_cpu_s() - c0, pcsv, pjson);
    }
    bwopt_free(&B);
    return rc;
}
