/*
 * text_workload.h -- the text workload format of ASTRA-sim 1.0 and of
 * SimAI / AICB (the .txt files under workload_inputs/), read into the per-rank graphs the
 * executor runs and the communicator groups their collectives use.
 *
 * The file: a header line (parallelism policy, then "key: value" pairs such
 * as model_parallel_NPU_group, ep, pp, vpp, ga, all_gpus, checkpoints,
 * checkpoint_initiates, pp_comm), a line with the layer count, then one
 * line per layer of 12 whitespace-separated fields: name, dependency
 * (unused), forward compute time, forward comm type, forward comm size,
 * input-gradient compute time, its comm type and size, weight-gradient
 * compute time, its comm type and size, update time.  Times are ns, sizes
 * bytes.  docs/astra-compat.md ("Text workloads") gives the execution
 * semantics with citations of SimAI's Workload.cc / Layer.cc and what is
 * modelled; in short, for one pass:
 *
 *   DATA                forward computes; backward from the last layer:
 *                       weight-gradient compute, its all-ranks collective
 *                       (not waited for), input-gradient compute (not for
 *                       layer 0); the step ends when every collective has.
 *   HYBRID_TRANSFORMER  forward compute + blocking forward collective per
 *   (_FWD_IN_BCKWD)     layer; backward per layer from the last: input-grad
 *                       compute, blocking input-grad collective, weight-grad
 *                       compute, weight-grad collective (not waited for).
 *                       Forward / input-grad collectives run over the TP
 *                       group (model_parallel_NPU_group consecutive ranks),
 *                       weight-grad ones over the DP group (same position in
 *                       every TP group); *_EP and *_DP_EP names pick the
 *                       expert groups.
 *   MODEL               forward compute + blocking all-ranks collective per
 *                       layer; backward: input-grad compute, its collective
 *                       (not layer 0) during the weight-grad compute, then
 *                       waited for; no weight-grad collectives.
 *   HYBRID_DLRM         forward computes, layer 0's all-to-all waited for
 *   (_ENHANCED)         after the last bottom layer; backward as DATA, and
 *                       layer 0's input-grad all-to-all after the input-grad
 *                       compute of the first top layer.
 *   MICRO               layer 0's weight-gradient collective, all ranks.
 *
 * A wait for a collective issued earlier is a METADATA node on the chain
 * with that collective as its second parent.
 *
 * Graph sharing: every rank runs the same node structure; only the names
 * of its communicator groups differ.  One graph holds the nodes; the other
 * ranks get views of it (cs_graph.base) carrying their own group names, and
 * ranks whose groups coincide share one view.  So 9,216 ranks of a
 * 1,000-layer file hold one copy of the nodes.
 *
 * The reader is streaming: the header's layer count allocates nothing; an
 * error names the file, the line, the field and what was expected.
 */
#ifndef CS_WORKLOAD_TEXT_WORKLOAD_H
#define CS_WORKLOAD_TEXT_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "system/comm_groups.h"
#include "workload/workload.h"

/* run.comm-streams' default for text workloads: every collective at once.
 * ASTRA-sim 1.0 / SimAI hand each collective to the system layer when the
 * loop reaches it (its queues and active-chunks-per-dimension pace them);
 * no per-rank limit on collectives in flight.  The key's maximum. */
#define CS_TEXT_COMM_STREAMS 1000000

/* 1 when path names a text workload: a regular file whose name ends in
 * ".txt", or whose first word is one of the parallelism policies of the
 * format (DATA, HYBRID_TRANSFORMER, MICRO, ...).  0 otherwise (a Chakra trace
 * or trace prefix, or no such file). */
int cs_text_workload_detect(const char *path);

/* What the header said (for reports and tests). */
typedef struct cs_text_workload_info {
    char policy[40];   /* as written, e.g. "HYBRID_TRANSFORMER" */
    uint32_t tp, dp, ep, pp; /* group sizes used (dp = ranks / (tp x pp)) */
    uint32_t layers;   /* layer lines read */
    uint64_t nodes;    /* nodes of one rank's graph */
} cs_text_workload_info;

/* Read the file for a network of nranks NPUs into *w (its graphs) and
 * *groups (the communicator groups its collectives name).  info may be
 * NULL.  On failure both are left empty and err names file:line: field. */
int cs_text_workload_load(const char *path, uint32_t nranks, cs_workload *w, cs_comm_groups *groups,
                          cs_text_workload_info *info, cs_error *err);
/* The same from text in memory; name is used in messages. */
int cs_text_workload_load_mem(const char *text, size_t len, const char *name, uint32_t nranks, cs_workload *w,
                              cs_comm_groups *groups, cs_text_workload_info *info, cs_error *err);

#endif
