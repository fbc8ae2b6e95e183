/*
 * html.h -- the run report as one self-contained HTML page (`--report
 * FILE.html`; docs/outputs.md): the summary with cost and power, per-rank
 * time bars, a step timeline (compute / exposed communication / idle) of
 * chosen ranks -- one per pipeline stage for generated plans, --trace-ranks,
 * or the first eight -- the hottest links and the collectives.  Inline SVG
 * (output/svg.h), nothing fetched, no script.  The charts are also written
 * as FILE.<chart>.svg for slides.
 *
 * A cs_activity is the observer that keeps the chosen ranks' compute and
 * communication spans during the run (bounded: at most `cap` spans in all;
 * past that the timeline says where it stops).  Its owner frees it.
 */
#ifndef CS_OUTPUT_HTML_H
#define CS_OUTPUT_HTML_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "scenario/result.h"
#include "workload/exec.h"

#define CS_ACTIVITY_MAX_RANKS 64

typedef struct cs_activity cs_activity;

/* Keep the spans of the ranks with selected[r] != 0 (the first
 * CS_ACTIVITY_MAX_RANKS of them), at most cap spans in all. */
cs_activity *cs_activity_new(const uint8_t *selected, uint32_t nranks, size_t cap);
/* In class mode a rank that is not simulated gets the spans of its
 * class's representative rep (the lane says so); a rank that was
 * simulated keeps its own. */
void cs_activity_set_rep(cs_activity *a, uint32_t rank, uint32_t rep);
/* Observer callback (ud = the cs_activity). */
void cs_activity_node_done(void *ud, const cs_node_span *span);
void cs_activity_free(cs_activity *a);

/* Write the page (atomically) and its charts as <path without .html>.<chart>.svg;
 * activity may be NULL (no timeline).  On failure nothing is left. */
int cs_report_html(const char *path, const cs_result *r, const cs_activity *activity, cs_error *err);
/* Remove the page and the .svg files cs_report_html writes (an earlier run's). */
void cs_report_html_remove(const char *path);

#endif
