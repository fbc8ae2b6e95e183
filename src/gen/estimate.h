/*
 * estimate.h -- the step time of a generated plan without simulating it:
 * the ranking tier of `clustersim search` (docs/search.md).
 *
 * The generator itself runs in costing mode (gen_int.h): for each pipeline
 * stage, one micro-batch of the family's own nodes -- the same COMP
 * durations, collective sizes and dependencies `generate` writes -- with a
 * critical-path clock instead of a graph.  Collectives are priced by the
 * closed forms of the analytical backend and ASTRA-sim's ring (docs/
 * collectives.md) on the plan's actual groups: a communicator group is one
 * logical ring of its members in file order, each message charged to the
 * first network dimension in which its two ends differ; a group of every
 * NPU runs the hierarchical ring over the dimensions.  The stages then
 * compose by the 1F1B/GPipe pipeline formula (fill and drain over the
 * slowest stage, divided by the interleaving), plus the exposed tail of
 * gradient reduction and the optimizer.
 *
 * Exact where there is no overlap to guess (one stage, one micro-batch, a
 * single ring algorithm per dimension): tests/test_gen_estimate.c checks
 * such plans against the simulator to the nanosecond.  Otherwise it is an
 * estimate whose error docs/search.md measures; `search` simulates its top
 * plans.
 */
#ifndef CS_GEN_ESTIMATE_H
#define CS_GEN_ESTIMATE_H

#include "gen/gen.h"
#include "system/system_config.h"
#include "topology/dims.h"

typedef struct cs_gen_estimate {
    double step_s;         /* estimated step (iteration) time */
    double stage_mb_s;     /* one micro-batch (forward + backward, all chunks) of the slowest stage */
    double compute_s;      /* the slowest stage's compute over the step */
    double bubble_s;       /* pipeline fill and drain, with their messages */
    double tail_s;         /* gradient reduction left after the last backward, optimizer, parameter gather */
    double exposed_comm_s; /* step - compute - bubble - optimizer compute: communication on the critical path */
    uint32_t slowest_stage;
} cs_gen_estimate;

/* The estimate of plan p (accepted by cs_gen_plan_check) of model m on
 * device d over the network net (total NPUs = the plan's ranks) with the
 * system configuration sys (chunking, endpoint delay, reduction bandwidth,
 * active chunks; algorithms are taken as rings).  CS_EINVAL naming what
 * does not match. */
int cs_gen_estimate_step(const cs_gen_model *m, const cs_gen_plan *p, const cs_device *d, const cs_network_config *net,
                         const cs_system_config *sys, cs_gen_estimate *out, cs_error *err);

#endif
