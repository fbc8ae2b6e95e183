/*
 * serve.h -- `clustersim serve`: a model served on a cluster (docs/inference.md).
 *
 * From a base scenario (model, device, network, TP/PP/DP/EP plan and the
 * serve.* keys: batch, prompt and output tokens, request arrivals) the
 * front end simulates the serving steps through the scenario layer -- one
 * prefill step (plan.phase prefill) and the decode steps of the O - 1
 * context lengths (plan.phase decode; contexts whose attention takes the
 * same whole microseconds share one simulation, and when the step time is
 * proven affine in that time at three points the rest are interpolated
 * exactly) -- then serves the requests with static batching and reports
 * time to first token, time per output token, end-to-end latency, their
 * percentiles and tokens/s.
 *
 * Results are deterministic: the same inputs (serve.seed included) give the
 * same numbers.  The caller owns the scenario; nothing is kept between calls.
 */
#ifndef CS_SWEEP_SERVE_H
#define CS_SWEEP_SERVE_H

#include <signal.h>
#include <stdio.h>

#include "core/error.h"
#include "scenario/scenario.h"

typedef struct cs_serve_options {
    FILE *report;                       /* the terminal report (NULL = none) */
    const char *out_dir;                /* summary.json, requests.csv, decode_steps.csv (NULL = none) */
    const char *json_path;              /* the summary alone (NULL = none) */
    int progress;                       /* progress lines on stderr */
    const volatile sig_atomic_t *stop;  /* nonzero: stop between simulations (CS_EINTR) */
    int check;                          /* 1 = load and check only (clustersim serve --check): the serve.*
                                           keys, the plan and its memory, and the prefill step's run
                                           checked as a run checks it (cs_run_hooks.check_only); one line
                                           "ok: ..." to report; nothing simulated, no file written or
                                           removed */
} cs_serve_options;

int cs_serve(const cs_scenario *base, const cs_serve_options *o, cs_error *err);

#endif
