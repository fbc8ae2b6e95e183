/*
 * svg.c -- SVG charts (see svg.h).
 */
#include "output/svg.h"

#include <math.h>
#include <string.h>

#include "core/afile.h"
#include "core/alloc.h"
#include "core/opts.h"

#define W 960        /* chart width, px */
#define LEFT 150     /* room for row labels */
#define PLOT (W - LEFT - 20)
#define FONT "font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"12\""

void cs_svg_path(const char *page, const char *chart, char *buf, size_t n) {
    size_t len = strlen(page), stem = len > 5 && strcmp(page + len - 5, ".html") == 0 ? len - 5 : len;
    snprintf(buf, n, "%.*s.%s.svg", (int)stem, page, chart);
}

int cs_svg_write_page(const char *page, const cs_svg_chart *c, size_t n, void (*write)(FILE *f, void *ud),
                      void *ud, cs_error *err) {
    char svg[4200];
    int rc = CS_OK;
    size_t written = 0;
    for (size_t i = 0; i < n && rc == CS_OK; i++) {
        cs_svg_path(page, c[i].name, svg, sizeof svg);
        rc = cs_write_file_atomic(svg, c[i].buf, c[i].len, err);
        if (rc == CS_OK) written++;
    }
    if (rc == CS_OK) {
        cs_afile af;
        rc = cs_afile_open(&af, page, err);
        if (rc == CS_OK) {
            write(af.f, ud);
            rc = cs_afile_commit(&af, err);
        }
    }
    if (rc) /* nothing half written */
        for (size_t i = 0; i < written; i++) {
            cs_svg_path(page, c[i].name, svg, sizeof svg);
            cs_remove_output(svg);
        }
    return rc;
}

void cs_svg_remove_page(const char *page, const char *const *names, size_t n) {
    char svg[4200];
    for (size_t i = 0; i < n; i++) {
        cs_svg_path(page, names[i], svg, sizeof svg);
        cs_remove_output(svg);
    }
    cs_remove_output(page); /* (never an input: --report naming the spec) */
}

void cs_svg_page_head(FILE *f, const char *title) {
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>", f);
    cs_svg_text(f, title);
    fputs("</title>\n<style>body{font-family:'DejaVu Sans',Arial,sans-serif;margin:24px;color:#222;max-width:1000px}"
          "table{border-collapse:collapse;margin:8px 0 20px}th,td{border:1px solid #ccc;padding:3px 8px;"
          "text-align:left;font-size:13px}th{background:#f3f3f3}h2{margin-top:28px;font-size:17px}"
          "svg{display:block;margin:6px 0}</style></head><body>\n",
          f);
}

void cs_svg_text(FILE *f, const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    while (p && *p) {
        size_t n = cs_utf8_seq(p);
        /* not a character of XML 1.0 (a control but tab, LF, CR; U+FFFE, U+FFFF; bytes that are not
         * UTF-8): an .svg file holding one does not parse, so it is drawn as U+FFFD */
        if (!n || (*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r') ||
            (n == 3 && p[0] == 0xef && p[1] == 0xbf && p[2] >= 0xbe)) {
            fputs("\xef\xbf\xbd", f);
            p += n ? n : 1;
            continue;
        }
        switch (*p) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fwrite(p, 1, n, f);
        }
        p += n;
    }
}

static void open_svg(FILE *f, int h, const char *title) {
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" %s>\n", W,
            h, W, h, FONT);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", W, h);
    fputs("<text x=\"8\" y=\"18\" font-size=\"14\" font-weight=\"bold\">", f);
    cs_svg_text(f, title);
    fputs("</text>\n", f);
}

/* A step of 1, 2 or 5 x 10^k giving about 5 ticks up to max. */
static double nice_step(double max) {
    if (!(max > 0)) return 1;
    double raw = max / 5, p = pow(10, floor(log10(raw))), m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

static void legend(FILE *f, int y, const char *const *names, const char *const *colors, size_t n) {
    int x = LEFT;
    for (size_t s = 0; s < n; s++) {
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\" shape-rendering=\"crispEdges\"/>",
                x, y, colors[s]);
        fprintf(f, "<text x=\"%d\" y=\"%d\">", x + 16, y + 11);
        cs_svg_text(f, names[s]);
        fputs("</text>\n", f);
        x += 30 + 8 * (int)strlen(names[s]);
    }
}

static void x_axis_at(FILE *f, int left, int width, int y, double max, const char *unit, double div) {
    double step = nice_step(max / div);
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#444444\"/>\n", left, y, left + width, y);
    for (double t = 0; t <= max / div * (1 + 1e-9) && max > 0; t += step) {
        int x = left + (int)lround(t * div / max * width);
        fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#444444\"/>", x, y, x, y + 4);
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%g</text>\n", x, y + 16, t);
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", left + width, y + 30);
    cs_svg_text(f, unit);
    fputs("</text>\n", f);
}

static void x_axis(FILE *f, int y, double max, const char *unit, double div) {
    x_axis_at(f, LEFT, PLOT, y, max, unit, div);
}

void cs_svg_stacked_bars(FILE *f, const char *title, const char *const *row_labels, size_t nrows,
                         const char *const *series, const char *const *colors, size_t nser, const double *v,
                         const char *unit, double div) {
    int top = 48, rh = 20, h = top + (int)nrows * rh + 44;
    double max = 0;
    for (size_t r = 0; r < nrows; r++) {
        double s = 0;
        for (size_t k = 0; k < nser; k++) s += v[r * nser + k];
        if (s > max) max = s;
    }
    open_svg(f, h, title);
    legend(f, 26, series, colors, nser);
    for (size_t r = 0; r < nrows; r++) {
        int y = top + (int)r * rh;
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", LEFT - 6, y + 13);
        cs_svg_text(f, row_labels[r]);
        fputs("</text>\n", f);
        double acc = 0;
        for (size_t k = 0; k < nser; k++) {
            double x0 = max > 0 ? acc / max * PLOT : 0, x1 = max > 0 ? (acc + v[r * nser + k]) / max * PLOT : 0;
            acc += v[r * nser + k];
            long a = lround(x0), b = lround(x1);
            fprintf(f, "<rect x=\"%ld\" y=\"%d\" width=\"%ld\" height=\"%d\" fill=\"%s\" shape-rendering=\"crispEdges\" "
                       "data-row=\"",
                    LEFT + a, y, b - a, rh - 4, colors[k]);
            cs_svg_text(f, row_labels[r]);
            fputs("\" data-series=\"", f);
            cs_svg_text(f, series[k]);
            fprintf(f, "\" data-value=\"%.17g\"/>\n", v[r * nser + k]);
        }
    }
    x_axis(f, top + (int)nrows * rh + 2, max, unit, div);
    fputs("</svg>\n", f);
}

void cs_svg_lanes(FILE *f, const char *title, const char *const *lane_labels, size_t nlanes,
                  const cs_svg_seg *const *segs, const size_t *nseg, double t_end, const char *const *states,
                  const char *const *colors, size_t nstates, const char *unit, double div) {
    int top = 48, lh = 24, h = top + (int)nlanes * lh + 44;
    size_t longest = 0;
    for (size_t l = 0; l < nlanes; l++) longest = strlen(lane_labels[l]) > longest ? strlen(lane_labels[l]) : longest;
    int left = 12 + 7 * (int)longest; /* the lanes' labels fit */
    if (left < LEFT) left = LEFT;
    if (left > 360) left = 360;
    const int PW = W - left - 20; /* pixel columns */
    open_svg(f, h, title);
    legend(f, 26, states, colors, nstates);
    double *cov = cs_calloc((size_t)PW * (nstates ? nstates : 1), sizeof *cov);
    double dt = t_end > 0 ? t_end / PW : 1;
    for (size_t l = 0; l < nlanes; l++) {
        int y = top + (int)l * lh;
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", left - 6, y + 14);
        cs_svg_text(f, lane_labels[l]);
        fputs("</text>\n", f);
        memset(cov, 0, (size_t)PW * nstates * sizeof *cov);
        for (size_t i = 0; i < nseg[l]; i++) {
            const cs_svg_seg *s = &segs[l][i];
            if (s->state < 0 || (size_t)s->state >= nstates || !(s->t1 > s->t0)) continue;
            long c0 = (long)floor(s->t0 / dt), c1 = (long)floor(s->t1 / dt);
            for (long c = c0 < 0 ? 0 : c0; c <= c1 && c < PW; c++) {
                double a = fmax(s->t0, (double)c * dt), b = fmin(s->t1, (double)(c + 1) * dt);
                if (b > a) cov[(size_t)s->state * PW + (size_t)c] += b - a;
            }
        }
        int run_state = -1, run_start = 0;
        for (int c = 0; c <= PW; c++) {
            int st = -1;
            double best = 0;
            for (size_t k = 0; c < PW && k < nstates; k++)
                if (cov[k * PW + (size_t)c] > best) {
                    best = cov[k * PW + (size_t)c];
                    st = (int)k;
                }
            if (st == run_state && c < PW) continue;
            if (run_state >= 0) {
                fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" shape-rendering=\"crispEdges\" "
                           "data-lane=\"",
                        left + run_start, y, c - run_start, lh - 6, colors[run_state]);
                cs_svg_text(f, lane_labels[l]);
                fputs("\" data-state=\"", f);
                cs_svg_text(f, states[run_state]);
                fputs("\"/>\n", f);
            }
            run_state = st;
            run_start = c;
        }
    }
    cs_free(cov);
    x_axis_at(f, left, PW, top + (int)nlanes * lh + 2, t_end, unit, div);
    fputs("</svg>\n", f);
}

static void range(const double *v, size_t n, double *lo, double *hi) {
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i])) {
            if (v[i] < *lo) *lo = v[i];
            if (v[i] > *hi) *hi = v[i];
        }
    if (!isfinite(*lo)) *lo = *hi = 0;
    double pad = (*hi - *lo) * 0.05;
    if (pad == 0) pad = fabs(*hi) * 0.05 + 1e-12;
    *lo -= pad;
    *hi += pad;
}

void cs_svg_scatter(FILE *f, const char *title, const double *x, const double *y, const int *on,
                    const char *const *labels, size_t n, const char *xname, const char *yname) {
    int top = 40, ph = 360, h = top + ph + 50;
    const int PW = PLOT - 40; /* room for the last x label */
    open_svg(f, h, title);
    double xl, xh, yl, yh;
    range(x, n, &xl, &xh);
    range(y, n, &yl, &yh);
#define PX(v) (LEFT + (v - xl) / (xh - xl) * PW)
#define PY(v) (top + ph - (v - yl) / (yh - yl) * ph)
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#444444\"/>\n", LEFT, top,
            PW, ph);
    for (int k = 0; k <= 4; k++) { /* five labelled values per axis */
        double vx = xl + (xh - xl) * k / 4, vy = yl + (yh - yl) * k / 4;
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.4g</text>", PX(vx), top + ph + 16, vx);
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.4g</text>\n", LEFT - 6, PY(vy) + 4, vy);
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", LEFT + PW / 2, top + ph + 36);
    cs_svg_text(f, xname);
    fprintf(f, "</text><text x=\"12\" y=\"%d\" transform=\"rotate(-90 12 %d)\" text-anchor=\"middle\">", top + ph / 2,
            top + ph / 2);
    cs_svg_text(f, yname);
    fputs("</text>\n", f);
    /* the front, joined in x order */
    size_t *ord = cs_malloc((n ? n : 1) * sizeof *ord), m = 0;
    for (size_t i = 0; i < n; i++)
        if (on && on[i] && isfinite(x[i]) && isfinite(y[i])) {
            size_t p = m++;
            for (; p > 0 && x[ord[p - 1]] > x[i]; p--) ord[p] = ord[p - 1];
            ord[p] = i;
        }
    if (m > 1) {
        fputs("<polyline fill=\"none\" stroke=\"#d62728\" stroke-width=\"1.5\" points=\"", f);
        for (size_t k = 0; k < m; k++) fprintf(f, "%s%.1f,%.1f", k ? " " : "", PX(x[ord[k]]), PY(y[ord[k]]));
        fputs("\"/>\n", f);
    }
    cs_free(ord);
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]) || !isfinite(y[i])) continue;
        int hl = on && on[i];
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"%s\" data-x=\"%.17g\" data-y=\"%.17g\" data-front=\"%d\"",
                PX(x[i]), PY(y[i]), hl ? 5 : 3, hl ? "#d62728" : "#8c8c8c", x[i], y[i], hl);
        if (labels) {
            fputs(" data-label=\"", f);
            cs_svg_text(f, labels[i]);
            fputc('"', f);
        }
        fputs("/>\n", f);
    }
#undef PX
#undef PY
    fputs("</svg>\n", f);
}

void cs_svg_heatmap(FILE *f, const char *title, const char *const *xlabels, size_t nx,
                    const char *const *ylabels, size_t ny, const double *v, const char *xname, const char *yname,
                    const char *vname) {
    size_t longest = 0;
    for (size_t iy = 0; iy < ny; iy++) longest = strlen(ylabels[iy]) > longest ? strlen(ylabels[iy]) : longest;
    int left = 12 + 7 * (int)longest; /* the rows' labels fit (up to 320 px; longer ones are cut by the page) */
    if (left < LEFT) left = LEFT;
    if (left > 320) left = 320;
    int top = 56, ch = 28, cw = nx ? (int)((W - left - 20) / (int)nx) : W - left - 20;
    if (cw > 110) cw = 110;
    int h = top + (int)ny * ch + 40;
    open_svg(f, h, title);
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < nx * ny; i++)
        if (isfinite(v[i])) {
            lo = fmin(lo, v[i]);
            hi = fmax(hi, v[i]);
        }
    fprintf(f, "<text x=\"%d\" y=\"%d\">", left, 34);
    cs_svg_text(f, vname);
    fputs(" (dark = smallest); columns: ", f);
    cs_svg_text(f, xname);
    fputs("; rows: ", f);
    cs_svg_text(f, yname);
    fputs("</text>\n", f);
    for (size_t ix = 0; ix < nx; ix++) {
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", left + (int)ix * cw + cw / 2, top - 6);
        cs_svg_text(f, xlabels[ix]);
        fputs("</text>\n", f);
    }
    for (size_t iy = 0; iy < ny; iy++) {
        int y = top + (int)iy * ch;
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", left - 6, y + 18);
        cs_svg_text(f, ylabels[iy]);
        fputs("</text>\n", f);
        for (size_t ix = 0; ix < nx; ix++) {
            double val = v[iy * nx + ix];
            int x = left + (int)ix * cw;
            if (!isfinite(val)) {
                fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#d9d9d9\" "
                           "shape-rendering=\"crispEdges\" data-x=\"",
                        x, y, cw - 2, ch - 2);
                cs_svg_text(f, xlabels[ix]);
                fputs("\" data-y=\"", f);
                cs_svg_text(f, ylabels[iy]);
                fputs("\" data-value=\"\"/>\n", f);
                continue;
            }
            double t = hi > lo ? (val - lo) / (hi - lo) : 0; /* 0 dark blue .. 1 light yellow */
            int r = (int)lround(49 + t * (255 - 49)), g = (int)lround(54 + t * (255 - 54)),
                b = (int)lround(149 + t * (191 - 149));
            fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#%02x%02x%02x\" "
                       "shape-rendering=\"crispEdges\" data-x=\"",
                    x, y, cw - 2, ch - 2, r, g, b);
            cs_svg_text(f, xlabels[ix]);
            fputs("\" data-y=\"", f);
            cs_svg_text(f, ylabels[iy]);
            fprintf(f, "\" data-value=\"%.17g\"/>", val);
            fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"%s\">%.4g</text>\n", x + cw / 2 - 1,
                    y + 18, t < 0.5 ? "#ffffff" : "#000000", val);
        }
    }
    fputs("</svg>\n", f);
}
