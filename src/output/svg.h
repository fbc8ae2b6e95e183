/*
 * svg.h -- charts as self-contained SVG elements (no script, no fonts or
 * images fetched), for the HTML reports (html.h, the sweep's report) and
 * as files for slides.
 *
 * Every chart is one <svg> element written to a FILE, the same bytes inline
 * in a page or alone in a .svg file.  Shapes use shape-rendering
 * crispEdges and exact fill colours, so that a screenshot can be read back
 * (tests/cli_report.sh counts pixels of each colour), and carry data-*
 * attributes with the values they draw (full precision), so that the page's
 * numbers can be checked against the CSV files.  Text is XML-escaped.
 */
#ifndef CS_OUTPUT_SVG_H
#define CS_OUTPUT_SVG_H

#include <stddef.h>
#include <stdio.h>

#include "core/error.h"

/* A chart drawn into memory: its name (a literal: "ranks") and its bytes
 * (open_memstream's, freed with free). */
typedef struct cs_svg_chart {
    const char *name;
    char *buf;
    size_t len;
} cs_svg_chart;

/* The HTML page of charts: each chart written as its .svg file next to
 * `page` (cs_svg_path), then the page by write(f, ud), atomically; on a
 * failure nothing of it is left (the .svg files written are removed). */
int cs_svg_write_page(const char *page, const cs_svg_chart *charts, size_t n, void (*write)(FILE *f, void *ud),
                      void *ud, cs_error *err);
/* Remove a page and the .svg files of these chart names (an earlier run's). */
void cs_svg_remove_page(const char *page, const char *const *names, size_t n);
/* <!DOCTYPE html> ... <body>: the reports' shared head and style. */
void cs_svg_page_head(FILE *f, const char *title);

/* The file of chart `chart` next to the page `page`: the page's path less
 * ".html", then ".CHART.svg" (report.html -> report.ranks.svg). */
void cs_svg_path(const char *page, const char *chart, char *buf, size_t n);

/* Write s XML-escaped (& < > " '), what is not a character of XML 1.0
 * (controls but tab, LF, CR; U+FFFE, U+FFFF; bytes that are not UTF-8) as
 * U+FFFD, so the .svg files parse. */
void cs_svg_text(FILE *f, const char *s);

/* Horizontal stacked bars: nrows rows of nser values v[row * nser + s]
 * (>= 0, in `unit` after dividing by div), one colour per series, a legend
 * and an axis from 0 to the largest row total.  Each segment is a <rect
 * data-row="LABEL" data-series="NAME" data-value="V"> (V undivided). */
void cs_svg_stacked_bars(FILE *f, const char *title, const char *const *row_labels, size_t nrows,
                         const char *const *series, const char *const *colors, size_t nser, const double *v,
                         const char *unit, double div);

/* A segment of a lane: [t0, t1) in state `state`. */
typedef struct cs_svg_seg {
    double t0, t1;
    int state;
} cs_svg_seg;

/* Lanes over time [0, t_end]: lane l has nseg[l] disjoint segments in time
 * order; each pixel column is drawn in the state that covers most of it
 * (runs of equal columns become one rect data-lane="LABEL"
 * data-state="NAME"), so a lane has at most one rect per pixel. */
void cs_svg_lanes(FILE *f, const char *title, const char *const *lane_labels, size_t nlanes,
                  const cs_svg_seg *const *segs, const size_t *nseg, double t_end, const char *const *states,
                  const char *const *colors, size_t nstates, const char *unit, double div);

/* Points (x[i], y[i]); on[i] != 0 drawn highlighted (a Pareto front, joined
 * by a line in x order).  Each point is a <circle data-x="X" data-y="Y"
 * data-front="0|1" data-label="LABEL">. */
void cs_svg_scatter(FILE *f, const char *title, const double *x, const double *y, const int *on,
                    const char *const *labels, size_t n, const char *xname, const char *yname);

/* A heatmap of nx x ny cells, v[iy * nx + ix] (NaN: no value, hatched
 * grey), a colour scale from the smallest (dark) to the largest (light)
 * value; each cell is a <rect data-x="XLABEL" data-y="YLABEL" data-value="V">
 * with the value printed in it. */
void cs_svg_heatmap(FILE *f, const char *title, const char *const *xlabels, size_t nx,
                    const char *const *ylabels, size_t ny, const double *v, const char *xname, const char *yname,
                    const char *vname);

#endif
