/*
 * synth.h -- synthetic look-alike traces (the Chakra paper's obfuscation
 * idea): a trace set whose simulated behaviour is kept while names, kernel
 * structure and exact sizes are not.
 *
 * The method, per rank graph (docs/synth.md has it in full):
 *  - every COMP node belongs to one *compute segment*: a maximal chain of
 *    COMP nodes of the same kind (GPU or CPU) in which each link is the only
 *    child of its parent and the only parent of its child.  A segment is
 *    replaced by k' new COMP nodes in a chain, k' drawn from the fitted
 *    distribution of segment lengths, their durations drawn from the fitted
 *    distribution of COMP durations and scaled so the segment's total (in
 *    us) is kept exactly -- or, with noise_cv > 0, multiplied by a lognormal
 *    factor of mean 1 and that coefficient of variation;
 *  - communication, memory and metadata nodes are kept one for one with the
 *    attributes the simulation reads (type, group, peers, tag, priority,
 *    involved dimensions); byte counts keep their size_bits most significant
 *    bits (rounded to nearest; 64 = exact);
 *  - the parts carry durations only: a run that times COMP nodes by the
 *    roofline model (num_ops, tensor_size) needs keep_roofline, which keeps
 *    such nodes one for one with their counts rounded the same way;
 *  - every dependency outside the segments is kept (data and control
 *    dependencies both become data dependencies: the simulation does not tell
 *    them apart unless --ignore-ctrl-deps), names become "<type>.<new id>",
 *    every other attribute is dropped, node ids are renumbered 0.. in the
 *    source's issue order.
 * The fit (cs_synth_fit) is a log2 histogram of COMP durations and one of
 * segment lengths over every distinct graph of the set; draws are uniform
 * within a bucket.  Randomness comes from core/rand.h seeded by the user's
 * seed and the graph's salt: same inputs, same bytes.
 */
#ifndef CS_WORKLOAD_SYNTH_H
#define CS_WORKLOAD_SYNTH_H

#include <stdint.h>

#include "core/error.h"
#include "workload/et.h"
#include "workload/graph.h"

typedef struct cs_synth_options {
    uint64_t seed;
    unsigned size_bits; /* significant bits kept in byte counts, 1..64 (64 = exact) */
    double noise_cv;    /* coefficient of variation of each segment's total; 0 = totals kept */
    int keep_roofline;  /* 1 = COMP nodes with num_ops/tensor_size kept one for one (roofline runs) */
} cs_synth_options;

#define CS_SYNTH_BUCKETS 65 /* bucket b holds values of bit length b (b = 0: the value 0) */

/* Statistics of a source trace set (the model the look-alikes are drawn from). */
typedef struct cs_synth_fit {
    uint64_t dur_hist[CS_SYNTH_BUCKETS]; /* COMP durations in us by bit length */
    uint64_t seg_hist[CS_SYNTH_BUCKETS]; /* compute-segment lengths (nodes) by bit length */
} cs_synth_fit;

/* What a graph holds, for the report (per graph; the caller weights by ranks). */
typedef struct cs_synth_counts {
    uint64_t nodes, comp_nodes, comm_nodes, segments;
    uint64_t comp_us;        /* sum of COMP duration_micros */
    uint64_t comm_bytes;     /* sum of comm_size over COLL, SEND and RECV nodes */
    uint64_t mem_bytes;      /* sum of tensor_size over MEM nodes */
    double max_size_change;  /* largest |new - old| / old over rounded byte counts */
} cs_synth_counts;

/* Add graph g to the fit (and its counts to *c when c is not NULL). */
void cs_synth_fit_add(cs_synth_fit *fit, const cs_graph *g, const cs_synth_options *o, cs_synth_counts *c);

/* The largest value with `bits` significant bits nearest to v (ties up;
 * bits >= 64 or v below 2^bits: v itself).  Saturates at UINT64_MAX's
 * rounding. */
uint64_t cs_synth_round_bits(uint64_t v, unsigned bits);

/* The look-alike of g as Chakra records into w (metadata already written
 * by the caller); salt separates the random streams of different graphs;
 * *out (optional) gets the look-alike's counts.  Errors: CS_EINVAL when a
 * segment's total overflows the simulated-time range after noise. */
int cs_synth_graph(const cs_graph *g, const cs_synth_fit *fit, const cs_synth_options *o, uint64_t salt,
                   cs_et_writer *w, cs_synth_counts *out, cs_error *err);

#endif
