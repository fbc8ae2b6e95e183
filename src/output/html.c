/*
 * html.c -- the HTML run report and the activity recorder (see html.h).
 */
#define _GNU_SOURCE /* open_memstream */
#include "output/html.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "gen/gen.h"
#include "output/links.h"
#include "output/svg.h"
#include "system/coll_type.h"

/* ---- the activity recorder ------------------------------------------------------------- */

typedef struct span { cs_time t0, t1; } span;
typedef struct lane_spans {
    span *comp, *comm;
    size_t ncomp, ncomm, capcomp, capcomm;
} lane_spans;

struct cs_activity {
    uint32_t nranks, nsel, nsrc;
    int32_t *slot;          /* rank -> source (spans kept), -1 = not kept */
    uint32_t rank[CS_ACTIVITY_MAX_RANKS];   /* the lanes' ranks */
    int32_t rep[CS_ACTIVITY_MAX_RANKS];     /* a lane's representative's source, -1 = none */
    lane_spans lane[2 * CS_ACTIVITY_MAX_RANKS]; /* per source: the lanes' ranks, then representatives */
    uint32_t src_rank[2 * CS_ACTIVITY_MAX_RANKS];
    size_t n, cap;
    int truncated;
    cs_time truncated_at;
};

cs_activity *cs_activity_new(const uint8_t *selected, uint32_t nranks, size_t cap) {
    cs_activity *a = cs_calloc(1, sizeof *a);
    a->nranks = nranks;
    a->cap = cap;
    a->slot = cs_malloc((nranks ? nranks : 1) * sizeof *a->slot);
    for (uint32_t r = 0; r < nranks; r++) {
        a->slot[r] = -1;
        if (selected[r] && a->nsel < CS_ACTIVITY_MAX_RANKS) {
            a->slot[r] = (int32_t)a->nsel;
            a->rep[a->nsel] = -1;
            a->src_rank[a->nsel] = r;
            a->rank[a->nsel++] = r;
        }
    }
    a->nsrc = a->nsel;
    return a;
}

void cs_activity_set_rep(cs_activity *a, uint32_t rank, uint32_t rep) {
    if (rank >= a->nranks || rep >= a->nranks || rep == rank || a->slot[rank] < 0 ||
        a->slot[rank] >= (int32_t)a->nsel)
        return;
    if (a->slot[rep] < 0) {
        if (a->nsrc == 2 * CS_ACTIVITY_MAX_RANKS) return;
        a->slot[rep] = (int32_t)a->nsrc;
        a->src_rank[a->nsrc++] = rep;
    }
    a->rep[a->slot[rank]] = a->slot[rep];
}

static void push(span **v, size_t *n, size_t *cap, cs_time t0, cs_time t1) {
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 256;
        *v = cs_realloc(*v, *cap * sizeof **v);
    }
    (*v)[(*n)++] = (span){t0, t1};
}

void cs_activity_node_done(void *ud, const cs_node_span *s) {
    cs_activity *a = ud;
    if (s->rank >= a->nranks || a->slot[s->rank] < 0 || s->end <= s->start) return;
    int comp = s->lane == CS_LANE_COMPUTE, comm = s->lane == CS_LANE_COMM || s->lane >= CS_LANE_RECV0;
    if (!comp && !comm) return;
    if (a->n >= a->cap) {
        if (!a->truncated || s->end < a->truncated_at) a->truncated_at = s->end;
        a->truncated = 1;
        return;
    }
    lane_spans *l = &a->lane[a->slot[s->rank]];
    if (comp) push(&l->comp, &l->ncomp, &l->capcomp, s->start, s->end);
    else push(&l->comm, &l->ncomm, &l->capcomm, s->start, s->end);
    a->n++;
}

void cs_activity_free(cs_activity *a) {
    if (!a) return;
    for (uint32_t i = 0; i < a->nsrc; i++) {
        cs_free(a->lane[i].comp);
        cs_free(a->lane[i].comm);
    }
    cs_free(a->slot);
    cs_free(a);
}

static int span_cmp(const void *x, const void *y) {
    const span *a = x, *b = y;
    return a->t0 < b->t0 ? -1 : a->t0 > b->t0 ? 1 : a->t1 < b->t1 ? -1 : a->t1 > b->t1;
}

/* Sort and merge overlapping spans in place; the new count. */
static size_t merge(span *v, size_t n) {
    if (!n) return 0;
    qsort(v, n, sizeof *v, span_cmp);
    size_t m = 0;
    for (size_t i = 1; i < n; i++) {
        if (v[i].t0 <= v[m].t1) {
            if (v[i].t1 > v[m].t1) v[m].t1 = v[i].t1;
        } else {
            v[++m] = v[i];
        }
    }
    return m + 1;
}

enum { ST_COMPUTE, ST_EXPOSED, ST_IDLE, NSTATES };

static int time_cmp(const void *x, const void *y) {
    cs_time a = *(const cs_time *)x, b = *(const cs_time *)y;
    return a < b ? -1 : a > b;
}

/* Disjoint segments over [0, end): compute where C covers, exposed
 * communication where M covers and C does not, idle elsewhere. */
static cs_svg_seg *states_of(span *c, size_t nc, span *m, size_t nm, cs_time end, size_t *nout) {
    nc = merge(c, nc);
    nm = merge(m, nm);
    size_t nb = 2 * (nc + nm) + 2, k = 0;
    cs_time *b = cs_malloc(nb * sizeof *b);
    b[k++] = 0;
    b[k++] = end;
    for (size_t i = 0; i < nc; i++) b[k++] = c[i].t0, b[k++] = c[i].t1;
    for (size_t i = 0; i < nm; i++) b[k++] = m[i].t0, b[k++] = m[i].t1;
    qsort(b, k, sizeof *b, time_cmp);
    cs_svg_seg *out = cs_malloc((k ? k : 1) * sizeof *out);
    size_t n = 0, ic = 0, im = 0;
    for (size_t i = 0; i + 1 < k; i++) {
        cs_time p = b[i], q = b[i + 1];
        if (q <= p || p >= end) continue;
        while (ic < nc && c[ic].t1 <= p) ic++;
        while (im < nm && m[im].t1 <= p) im++;
        int st = ic < nc && c[ic].t0 <= p ? ST_COMPUTE : im < nm && m[im].t0 <= p ? ST_EXPOSED : ST_IDLE;
        double t0 = (double)p, t1 = (double)(q < end ? q : end);
        if (n && out[n - 1].state == st && out[n - 1].t1 == t0) out[n - 1].t1 = t1;
        else out[n++] = (cs_svg_seg){t0, t1, st};
    }
    cs_free(b);
    *nout = n;
    return out;
}

/* ---- the page --------------------------------------------------------------------------- */

static const char *const RANK_COLORS[] = {"#1f77b4", "#ff7f0e"};
static const char *const RANK_SERIES[] = {"GPU compute", "exposed communication (incl. waiting)"};
static const char *const LANE_COLORS[] = {"#2ca02c", "#d62728", "#dddddd"};
static const char *const LANE_STATES[] = {"compute", "communication or waiting on it", "idle"};

/* A unit for times up to max_ps: its name and its size in ps. */
static const char *time_unit(double max_ps, double *div) {
    if (max_ps >= 1e12) { *div = 1e12; return "s"; }
    if (max_ps >= 1e9) { *div = 1e9; return "ms"; }
    if (max_ps >= 1e6) { *div = 1e6; return "us"; }
    *div = 1e3;
    return "ns";
}

static void row(FILE *f, const char *label, const char *key, double value, const char *shown) {
    fputs("<tr><th>", f);
    cs_svg_text(f, label);
    fprintf(f, "</th><td data-key=\"%s\" data-value=\"%.17g\">", key, value);
    cs_svg_text(f, shown);
    fputs("</td></tr>\n", f);
}

static void row_text(FILE *f, const char *label, const char *text) {
    fputs("<tr><th>", f);
    cs_svg_text(f, label);
    fputs("</th><td>", f);
    cs_svg_text(f, text);
    fputs("</td></tr>\n", f);
}

/* The ranks the per-rank chart shows: all up to 64, else 62 evenly spaced plus the fastest and the slowest. */
static size_t chart_ranks(const cs_result *r, uint32_t *out) {
    uint32_t n = r->sim.nranks;
    if (n <= 64) {
        for (uint32_t i = 0; i < n; i++) out[i] = i;
        return n;
    }
    uint32_t fast = 0, slow = 0;
    for (uint32_t i = 1; i < n; i++) {
        if (r->sim.ranks[i].finish < r->sim.ranks[fast].finish) fast = i;
        if (r->sim.ranks[i].finish > r->sim.ranks[slow].finish) slow = i;
    }
    size_t m = 0;
    for (uint32_t k = 0; k < 62; k++) out[m++] = (uint32_t)((uint64_t)k * (n - 1) / 61);
    out[m++] = fast;
    out[m++] = slow;
    /* sort, unique */
    for (size_t i = 1; i < m; i++)
        for (size_t j = i; j > 0 && out[j - 1] > out[j]; j--) {
            uint32_t t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    size_t u = 0;
    for (size_t i = 0; i < m; i++)
        if (!u || out[u - 1] != out[i]) out[u++] = out[i];
    return u;
}

/* A chart into a memory buffer (the page and its .svg file get the same bytes). */
typedef cs_svg_chart chart;

static void chart_ranks_svg(const cs_result *r, chart *c) {
    uint32_t ids[64];
    size_t n = chart_ranks(r, ids);
    double *v = cs_malloc((n ? n : 1) * 2 * sizeof *v);
    char **labels = cs_malloc((n ? n : 1) * sizeof *labels);
    double max = 0;
    for (size_t i = 0; i < n; i++) {
        const cs_rank_result *rr = &r->sim.ranks[ids[i]];
        cs_time comp = rr->compute < rr->finish ? rr->compute : rr->finish;
        v[2 * i] = (double)comp / 1e3;
        v[2 * i + 1] = (double)(rr->finish - comp) / 1e3;
        if ((double)rr->finish > max) max = (double)rr->finish;
        labels[i] = cs_malloc(32);
        snprintf(labels[i], 32, "rank %u", ids[i]);
    }
    double div;
    const char *unit = time_unit(max, &div);
    char title[160], u[16];
    snprintf(title, sizeof title, "Per-rank time (%zu of %u ranks%s)", n, r->sim.nranks,
             n < r->sim.nranks ? ": evenly spaced, the fastest and the slowest" : "");
    snprintf(u, sizeof u, "%s", unit);
    FILE *f = open_memstream(&c->buf, &c->len);
    cs_svg_stacked_bars(f, title, (const char *const *)labels, n, RANK_SERIES, RANK_COLORS, 2, v, u, div / 1e3);
    fclose(f);
    c->name = "ranks";
    for (size_t i = 0; i < n; i++) cs_free(labels[i]);
    cs_free(labels);
    cs_free(v);
}

static void chart_timeline_svg(const cs_result *r, const cs_activity *a, chart *c) {
    cs_time end = r->sim.sim_time;
    cs_svg_seg **segs = cs_calloc(a->nsel ? a->nsel : 1, sizeof *segs);
    size_t *nseg = cs_calloc(a->nsel ? a->nsel : 1, sizeof *nseg);
    char **labels = cs_malloc((a->nsel ? a->nsel : 1) * sizeof *labels);
    for (uint32_t l = 0; l < a->nsel; l++) {
        const lane_spans *ls = &a->lane[l];
        int as_rep = 0; /* not simulated (class mode): its representative's spans */
        if (!ls->ncomp && !ls->ncomm && a->rep[l] >= 0) {
            ls = &a->lane[a->rep[l]];
            as_rep = 1;
        }
        span *cc = cs_malloc((ls->ncomp ? ls->ncomp : 1) * sizeof *cc);
        span *mm = cs_malloc((ls->ncomm ? ls->ncomm : 1) * sizeof *mm);
        if (ls->ncomp) memcpy(cc, ls->comp, ls->ncomp * sizeof *cc);
        if (ls->ncomm) memcpy(mm, ls->comm, ls->ncomm * sizeof *mm);
        segs[l] = states_of(cc, ls->ncomp, mm, ls->ncomm, end, &nseg[l]);
        cs_free(cc);
        cs_free(mm);
        labels[l] = cs_malloc(80);
        char as[40] = "";
        if (as_rep) snprintf(as, sizeof as, "; as rank %u, class mode", a->src_rank[a->rep[l]]);
        if (r->plan.valid) {
            uint32_t co[CS_GEN_NDIMS];
            cs_gen_rank_coords(&r->plan_cfg, a->rank[l], co);
            snprintf(labels[l], 80, "rank %u (stage %u%s)", a->rank[l], co[CS_DIM_PP], as);
        } else {
            snprintf(labels[l], 80, "rank %u%s%s%s", a->rank[l], as[0] ? " (" : "", as[0] ? as + 2 : "",
                     as[0] ? ")" : "");
        }
    }
    double div;
    const char *unit = time_unit((double)end, &div);
    char title[200];
    if (a->truncated) {
        char at[32];
        snprintf(title, sizeof title, "Step timeline (the spans kept end at %s: the recorder's limit)",
                 cs_time_fmt(a->truncated_at, at, sizeof at));
    } else {
        snprintf(title, sizeof title, "Step timeline: %s", r->plan.valid ? "one rank per pipeline stage"
                                                                      : "the chosen ranks");
    }
    FILE *f = open_memstream(&c->buf, &c->len);
    cs_svg_lanes(f, title, (const char *const *)labels, a->nsel, (const cs_svg_seg *const *)segs, nseg, (double)end,
                 LANE_STATES, LANE_COLORS, NSTATES, unit, div);
    fclose(f);
    c->name = "timeline";
    for (uint32_t l = 0; l < a->nsel; l++) {
        cs_free(segs[l]);
        cs_free(labels[l]);
    }
    cs_free(segs);
    cs_free(nseg);
    cs_free(labels);
}

static int chart_links_svg(const cs_result *r, chart *c) {
    uint32_t best[16];
    unsigned nb = cs_links_hottest(r, best, 16);
    if (!nb) return 0;
    double v[16];
    char lab[16][48];
    const char *labels[16];
    for (unsigned k = 0; k < nb; k++) {
        const cs_link *l = &r->topo->links[best[k]];
        v[k] = 100 * cs_links_avg_util(r, best[k]);
        snprintf(lab[k], sizeof lab[k], "%s%u -> %s%u", cs_node_kind_name((cs_node_kind)r->topo->kind[l->src]), l->src,
                 cs_node_kind_name((cs_node_kind)r->topo->kind[l->dst]), l->dst);
        labels[k] = lab[k];
    }
    static const char *const S[] = {"average utilization over the step"};
    static const char *const C[] = {"#9467bd"};
    FILE *f = open_memstream(&c->buf, &c->len);
    cs_svg_stacked_bars(f, "Hottest links (by bytes carried)", labels, nb, S, C, 1, v, "%", 1);
    fclose(f);
    c->name = "links";
    return 1;
}

static void page(FILE *f, const cs_result *r, const chart *ch, size_t nch) {
    char t[64], b[96];
    cs_svg_page_head(f, "clustersim report");
    fprintf(f, "<h1>clustersim %s: simulation report</h1>\n<table id=\"summary\">\n", CS_VERSION);
    size_t wn = strlen(r->workload_prefix) + sizeof ".<rank>.et"; /* the whole path: never cut */
    char *work = cs_malloc(wn);
    snprintf(work, wn, "%s%s", r->workload_prefix, r->single_file ? "" : ".<rank>.et");
    row_text(f, "workload", work);
    cs_free(work);
    row_text(f, "backend", r->backend);
    row(f, "step time", "sim_time_ns", (double)r->sim.sim_time / 1e3, cs_time_fmt(r->sim.sim_time, t, sizeof t));
    snprintf(b, sizeof b, "%u", r->sim.nranks);
    row(f, "ranks", "ranks", r->sim.nranks, b);
    if (r->plan.valid) {
        snprintf(b, sizeof b, "%.1f %%", 100 * r->plan.mfu);
        row(f, "MFU", "mfu", r->plan.mfu, b);
        snprintf(b, sizeof b, "%.6g %s", r->plan.throughput, r->plan.throughput_unit);
        row(f, "throughput", "throughput", r->plan.throughput, b);
    }
    if (r->ingest.on) { /* the input pipeline (docs/ingest.md) */
        cs_time w = r->sim.sim_time > r->ingest.no_input_step ? r->sim.sim_time - r->ingest.no_input_step : 0;
        row(f, "input pipeline per step (rank 0's loader)", "input_per_step_ns", (double)r->ingest.input_per_step / 1e3,
            cs_time_fmt(r->ingest.input_per_step, t, sizeof t));
        snprintf(b, sizeof b, "%s (input-bound: %s)", cs_time_fmt(w, t, sizeof t),
                 w > r->ingest.first_batch ? "yes" : "no, the first batch only");
        row(f, "GPU waiting for input", "exposed_input_ns", (double)w / 1e3, b);
    }
    const cs_cost_report *c = &r->cost;
    if (c->valid) {
        snprintf(b, sizeof b, "%.4g kW (accelerators %.1f %%)", c->power_w / 1e3,
                 c->power_w > 0 ? 100 * c->power_npu_w / c->power_w : 0.0);
        row(f, "average power", "power_w", c->power_w, b);
        snprintf(b, sizeof b, "%.6g J", c->energy_step_j);
        row(f, "energy per step", "energy_per_step_j", c->energy_step_j, b);
        if (c->items_per_step > 0) {
            char lab[48];
            snprintf(lab, sizeof lab, "energy per %s", c->item);
            snprintf(b, sizeof b, "%.6g J", c->energy_item_j);
            row(f, lab, "energy_per_item_j", c->energy_item_j, b);
        }
        snprintf(b, sizeof b, "$%.6g M", c->capex_usd / 1e6);
        row(f, "cluster price", "capex_usd", c->capex_usd, b);
        snprintf(b, sizeof b, "$%.6g", c->cost_step_usd);
        row(f, "cost per step", "cost_per_step_usd", c->cost_step_usd, b);
    } else {
        row_text(f, "power and cost", c->why);
    }
    fputs("</table>\n", f);
    for (size_t i = 0; i < nch; i++) {
        fprintf(f, "<h2 id=\"%s\">", ch[i].name);
        fputs(strcmp(ch[i].name, "ranks") == 0      ? "Where each rank's time goes"
              : strcmp(ch[i].name, "timeline") == 0 ? "The step over time"
                                                    : "Hottest links",
              f);
        fputs("</h2>\n", f);
        fwrite(ch[i].buf, 1, ch[i].len, f);
    }
    /* the collectives */
    cs_coll_type_stats ts[16];
    size_t nt = r->colls ? cs_coll_agg_types(r->colls, ts, 16) : 0;
    if (nt > 16) nt = 16;
    if (nt) {
        fputs("<h2 id=\"collectives\">Collectives</h2>\n<table id=\"collectives-table\"><tr><th>collective</th>"
              "<th>count</th><th>bytes</th><th>mean busbw (GB/s)</th></tr>\n",
              f);
        for (size_t i = 0; i < nt; i++) {
            fprintf(f, "<tr><td>%s</td><td data-value=\"%" PRIu64 "\">%" PRIu64 "</td><td data-value=\"%" PRIu64
                       "\">%" PRIu64 "</td><td>",
                    cs_coll_type_label(ts[i].comm_type), ts[i].count, ts[i].count, ts[i].bytes, ts[i].bytes);
            if (ts[i].timed) fprintf(f, "%.2f", ts[i].busbw_sum_gbps / (double)ts[i].timed);
            fputs("</td></tr>\n", f);
        }
        fputs("</table>\n", f);
    }
    fputs("<p style=\"font-size:12px;color:#666\">Times are simulated; 1 GB/s = 1e9 bytes/s.  Power and cost: "
          "docs/cost.md.  Exposed communication is the time a rank is not computing (it includes waiting, "
          "e.g. a pipeline bubble).</p>\n</body></html>\n",
          f);
}

static const char *const CHARTS[] = {"ranks", "timeline", "links"};

void cs_report_html_remove(const char *path) {
    cs_svg_remove_page(path, CHARTS, sizeof CHARTS / sizeof CHARTS[0]);
}

typedef struct page_args {
    const cs_result *r;
    const chart *ch;
    size_t nch;
} page_args;
static void write_page(FILE *f, void *ud) {
    const page_args *a = ud;
    page(f, a->r, a->ch, a->nch);
}

int cs_report_html(const char *path, const cs_result *r, const cs_activity *a, cs_error *err) {
    chart ch[3];
    size_t nch = 0;
    memset(ch, 0, sizeof ch);
    chart_ranks_svg(r, &ch[nch++]);
    if (a && a->nsel) chart_timeline_svg(r, a, &ch[nch++]);
    if (chart_links_svg(r, &ch[nch])) nch++;
    page_args pa = {r, ch, nch};
    int rc = cs_svg_write_page(path, ch, nch, write_page, &pa, err);
    for (size_t i = 0; i < nch; i++) free(ch[i].buf);
    return rc;
}
