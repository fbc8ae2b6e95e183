/*
 * sweep_report.c -- the sweep's HTML report (`clustersim sweep --report
 * FILE.html`; docs/sweep.md): counts, a heatmap of the objective over the
 * two knobs with the most values (each cell the best design point with
 * those two values), the Pareto front (first two objectives; the front is
 * on all of them), and the best points.  Inline SVG (output/svg.h), also
 * written as FILE.<chart>.svg.  Values per design point are the means over
 * its seeds that ran, as in pareto.csv and summary.csv.
 */
#define _GNU_SOURCE /* open_memstream */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clustersim/clustersim.h"
#include "core/alloc.h"
#include "output/svg.h"
#include "sweep/metrics.h"
#include "sweep/pareto.h"
#include "core/stats.h"
#include "sweep/sweep_int.h"

#define MAXV 40 /* values per heatmap axis */

/* Metric k of design point g: the mean over its ok seeds (NaN: none). */
static double dp_value(const sweep *s, json_t *const *rows, uint64_t g, size_t k) {
    uint32_t ns = cs_design_seeds(s->d);
    cs_stats st;
    cs_stats_init(&st);
    for (uint32_t j = 0; j < ns; j++) {
        json_t *r = rows[g * ns + j];
        json_t *v = r ? json_object_get(json_object_get(r, "metrics"), CS_SWEEP_METRICS[k].name) : NULL;
        const char *status = r ? json_string_value(json_object_get(r, "status")) : NULL;
        if (status && strcmp(status, "ok") == 0 && json_is_number(v)) cs_stats_add(&st, json_number_value(v));
    }
    return st.n ? st.mean : NAN;
}

static char *knob_text(json_t *v) {
    if (json_is_string(v)) return cs_strdup(json_string_value(v));
    return sw_json_text(v);
}

typedef cs_svg_chart chart;

/* The design point's knob texts (non-seed knobs), texts[k] owned. */
static void point_texts(const sweep *s, uint64_t g, char **texts) {
    size_t nk = cs_design_nknobs(s->d);
    json_t **vals = cs_calloc(nk ? nk : 1, sizeof *vals);
    cs_design_point(s->d, g * cs_design_seeds(s->d), vals);
    for (size_t k = 0; k < nk; k++) {
        texts[k] = knob_text(vals[k]);
        json_decref(vals[k]);
    }
    cs_free(vals);
}

static int heatmap(const sweep *s, json_t *const *rows, const cs_objective *obj, chart *c) {
    size_t nk = cs_design_nknobs(s->d);
    uint64_t ng = s->n / cs_design_seeds(s->d);
    if (!nk || !ng) return 0;
    /* distinct values per knob (in first-seen order, at most MAXV + 1 counted) */
    char ***dv = cs_calloc(nk, sizeof *dv);
    size_t *nd = cs_calloc(nk, sizeof *nd);
    char ***txt = cs_calloc(ng, sizeof *txt);
    for (size_t k = 0; k < nk; k++) dv[k] = cs_calloc(MAXV + 1, sizeof **dv);
    for (uint64_t g = 0; g < ng; g++) {
        txt[g] = cs_calloc(nk, sizeof **txt);
        point_texts(s, g, txt[g]);
        for (size_t k = 0; k < nk; k++) {
            size_t i = 0;
            while (i < nd[k] && strcmp(dv[k][i], txt[g][k]) != 0) i++;
            if (i == nd[k] && nd[k] <= MAXV) dv[k][nd[k]++] = txt[g][k];
        }
    }
    size_t kx = SIZE_MAX, ky = SIZE_MAX;
    for (size_t k = 0; k < nk; k++) {
        if (cs_design_knob_is_seed(s->d, k) || nd[k] < 2 || nd[k] > MAXV) continue;
        if (kx == SIZE_MAX || nd[k] > nd[kx]) {
            ky = kx;
            kx = k;
        } else if (ky == SIZE_MAX || nd[k] > nd[ky]) {
            ky = k;
        }
    }
    int made = 0;
    if (kx != SIZE_MAX) {
        size_t nx = nd[kx], ny = ky == SIZE_MAX ? 1 : nd[ky];
        double *v = cs_malloc(nx * ny * sizeof *v);
        for (size_t i = 0; i < nx * ny; i++) v[i] = NAN;
        for (uint64_t g = 0; g < ng; g++) {
            size_t ix = 0, iy = 0;
            while (strcmp(dv[kx][ix], txt[g][kx]) != 0) ix++;
            if (ky != SIZE_MAX)
                while (strcmp(dv[ky][iy], txt[g][ky]) != 0) iy++;
            double x = dp_value(s, rows, g, obj->metric);
            double *cell = &v[iy * nx + ix];
            if (!isnan(x) && (isnan(*cell) || (obj->maximize ? x > *cell : x < *cell))) *cell = x;
        }
        char title[300], oname[96], yname[160];
        cs_objective_name(obj, oname, sizeof oname);
        snprintf(title, sizeof title, "%s over %s%s%s (each cell: the best design point with these values)",
                 CS_SWEEP_METRICS[obj->metric].name, cs_design_knob(s->d, kx), ky == SIZE_MAX ? "" : " and ",
                 ky == SIZE_MAX ? "" : cs_design_knob(s->d, ky));
        snprintf(yname, sizeof yname, "%s", ky == SIZE_MAX ? "-" : cs_design_knob(s->d, ky));
        const char *one[] = {"all"};
        FILE *f = open_memstream(&c->buf, &c->len);
        cs_svg_heatmap(f, title, (const char *const *)dv[kx], nx, ky == SIZE_MAX ? one : (const char *const *)dv[ky],
                       ny, v, cs_design_knob(s->d, kx), yname, oname);
        fclose(f);
        c->name = "heatmap";
        cs_free(v);
        made = 1;
    }
    for (uint64_t g = 0; g < ng; g++) {
        for (size_t k = 0; k < nk; k++) cs_free(txt[g][k]);
        cs_free(txt[g]);
    }
    for (size_t k = 0; k < nk; k++) cs_free(dv[k]);
    cs_free(txt);
    cs_free(dv);
    cs_free(nd);
    return made;
}

static int pareto_chart(const sweep *s, json_t *const *rows, chart *c) {
    size_t k = s->o->npareto;
    uint64_t ng = s->n / cs_design_seeds(s->d);
    if (k < 2 || !ng) return 0;
    double *v = cs_malloc(ng * k * sizeof *v), *x = cs_malloc(ng * sizeof *x), *y = cs_malloc(ng * sizeof *y);
    int *on = cs_malloc(ng * sizeof *on);
    char **labels = cs_malloc(ng * sizeof *labels);
    for (uint64_t g = 0; g < ng; g++) {
        for (size_t q = 0; q < k; q++) {
            double a = dp_value(s, rows, g, s->o->pareto[q].metric);
            v[g * k + q] = s->o->pareto[q].maximize ? -a : a;
        }
        x[g] = dp_value(s, rows, g, s->o->pareto[0].metric);
        y[g] = dp_value(s, rows, g, s->o->pareto[1].metric);
        labels[g] = cs_malloc(32);
        snprintf(labels[g], 32, "%" PRIu64, g);
    }
    size_t nf = cs_pareto_front(v, ng, k, on);
    char title[300], xn[96], yn[96];
    cs_objective_name(&s->o->pareto[0], xn, sizeof xn);
    cs_objective_name(&s->o->pareto[1], yn, sizeof yn);
    snprintf(title, sizeof title, "Pareto front: %zu of %" PRIu64 " design points (red%s)", nf, ng,
             k > 2 ? "; non-dominated on all the objectives, drawn on the first two" : "");
    FILE *f = open_memstream(&c->buf, &c->len);
    cs_svg_scatter(f, title, x, y, on, (const char *const *)labels, ng, xn, yn);
    fclose(f);
    c->name = "pareto";
    for (uint64_t g = 0; g < ng; g++) cs_free(labels[g]);
    cs_free(labels);
    cs_free(on);
    cs_free(x);
    cs_free(y);
    cs_free(v);
    return 1;
}

static void best_table(FILE *f, const sweep *s, json_t *const *rows, const cs_objective *obj) {
    uint64_t ng = s->n / cs_design_seeds(s->d);
    size_t nk = cs_design_nknobs(s->d);
    uint64_t best[10];
    double bv[10];
    int nb = 0;
    for (uint64_t g = 0; g < ng; g++) {
        double x = dp_value(s, rows, g, obj->metric);
        if (isnan(x)) continue;
        double key = obj->maximize ? -x : x;
        if (nb == 10 && key >= bv[9]) continue;
        int p = nb < 10 ? nb++ : 9;
        for (; p > 0 && bv[p - 1] > key; p--) {
            bv[p] = bv[p - 1];
            best[p] = best[p - 1];
        }
        bv[p] = key;
        best[p] = g;
    }
    char oname[96];
    cs_objective_name(obj, oname, sizeof oname);
    fputs("<h2 id=\"best\">The best design points by ", f);
    cs_svg_text(f, oname);
    fputs("</h2>\n<table id=\"best-table\"><tr><th>design point</th>", f);
    for (size_t k = 0; k < nk; k++)
        if (!cs_design_knob_is_seed(s->d, k)) {
            fputs("<th>", f);
            cs_svg_text(f, cs_design_knob(s->d, k));
            fputs("</th>", f);
        }
    fprintf(f, "<th>%s</th></tr>\n", CS_SWEEP_METRICS[obj->metric].name);
    char **t = cs_calloc(nk ? nk : 1, sizeof *t);
    for (int b = 0; b < nb; b++) {
        point_texts(s, best[b], t);
        fprintf(f, "<tr data-point=\"%" PRIu64 "\"><td>%" PRIu64 "</td>", best[b], best[b]);
        for (size_t k = 0; k < nk; k++) {
            if (!cs_design_knob_is_seed(s->d, k)) {
                fputs("<td>", f);
                cs_svg_text(f, t[k]);
                fputs("</td>", f);
            }
            cs_free(t[k]);
        }
        double x = obj->maximize ? -bv[b] : bv[b];
        fprintf(f, "<td data-metric=\"%s\" data-value=\"%.17g\">%.6g</td></tr>\n", CS_SWEEP_METRICS[obj->metric].name,
                x, x);
    }
    cs_free(t);
    fputs("</table>\n", f);
}

static const char *const CHARTS[] = {"heatmap", "pareto"};

void sw_report_remove(const char *path) { cs_svg_remove_page(path, CHARTS, sizeof CHARTS / sizeof CHARTS[0]); }

typedef struct page_args {
    const sweep *s;
    json_t *const *rows;
    uint64_t done, ok;
    const cs_objective *obj;
    const chart *ch;
    size_t nch;
} page_args;

static void write_page(FILE *f, void *ud) {
    const page_args *a = ud;
    const sweep *s = a->s;
    cs_svg_page_head(f, "clustersim sweep");
    fprintf(f, "<h1>clustersim %s: sweep ", CS_VERSION);
    cs_svg_text(f, cs_design_path(s->d));
    fprintf(f, "</h1>\n<table id=\"summary\"><tr><th>points</th><td data-key=\"points\" data-value=\"%" PRIu64
               "\">%" PRIu64 "</td></tr>\n<tr><th>done</th><td data-key=\"done\" data-value=\"%" PRIu64 "\">%" PRIu64
               "</td></tr>\n<tr><th>ok</th><td data-key=\"ok\" data-value=\"%" PRIu64 "\">%" PRIu64
               "</td></tr>\n<tr><th>seeds per design point</th><td>%u</td></tr></table>\n",
            s->n, s->n, a->done, a->done, a->ok, a->ok, cs_design_seeds(s->d));
    for (size_t i = 0; i < a->nch; i++) {
        fprintf(f, "<h2 id=\"%s\">%s</h2>\n", a->ch[i].name,
                strcmp(a->ch[i].name, "heatmap") == 0 ? "The objective over two knobs" : "Trade-offs");
        fwrite(a->ch[i].buf, 1, a->ch[i].len, f);
    }
    best_table(f, s, a->rows, a->obj);
    fputs("<p style=\"font-size:12px;color:#666\">Every value: results.csv (per point), summary.csv (per design "
          "point over its seeds), pareto.csv.  Metrics: docs/sweep.md.</p>\n</body></html>\n",
          f);
}

int sw_write_report(const sweep *s, json_t *const *rows, uint64_t done, uint64_t ok, cs_error *err) {
    const char *path = s->o->report_html;
    cs_objective obj = s->o->has_objective ? s->o->objective : (cs_objective){0, 0};
    chart ch[2];
    size_t nch = 0;
    memset(ch, 0, sizeof ch);
    if (heatmap(s, rows, &obj, &ch[nch])) nch++;
    if (pareto_chart(s, rows, &ch[nch])) nch++;
    page_args pa = {s, rows, done, ok, &obj, ch, nch};
    int rc = cs_svg_write_page(path, ch, nch, write_page, &pa, err);
    for (size_t i = 0; i < nch; i++) free(ch[i].buf);
    return rc;
}
