/*
 * neuron_part.h -- neurons of a layer partitioned across tensor-parallel
 * workers by co-activation (docs/inference.md, "Neuron partitioning"):
 * neurons that fire together go to the same worker, so fewer partial results
 * of the layer's output cross workers for a token.
 *
 * Inputs (read here, strictly: path:line: column: what was expected):
 *   a co-activation matrix -- "coactivation,N,T" then N rows of N counts:
 *     entry (i, j) the tokens, of T, in which neurons i and j are both
 *     active; the diagonal the tokens in which i is active;
 *   an activation trace -- "activations,N" then one line per token: the
 *     active neuron ids, increasing, comma-separated, or "-" for none; the
 *     co-activation matrix is counted from it.
 * The partition: W groups of N / W neurons grown greedily (seed: the
 * unplaced neuron active in most tokens; then, one at a time, the unplaced
 * neuron with the largest co-activation summed over the group's members),
 * then the groups labelled with workers by the Hungarian method
 * (core/hungarian.h) so that the fewest neurons leave the worker of the
 * contiguous layout (Megatron's: neuron i on worker i / (N / W)).
 * Traffic: exact from a trace (per token, the workers holding an active
 * neuron beyond the first each send one partial result), an upper bound from
 * a matrix (the co-activations split across workers).
 *
 * Ownership: cs_npart_data and cs_npart_result own their arrays, released
 * by their _free functions (safe on zeroed structs).
 */
#ifndef CS_GEN_NEURON_PART_H
#define CS_GEN_NEURON_PART_H

#include <stdint.h>

#include "core/error.h"

#define CS_NPART_MAX_NEURONS 8192u /* a matrix file's N x N 32-bit counts: 256 MiB (and a 128 MiB+ file) */
#define CS_NPART_MAX_WORKERS 1024u

typedef struct cs_npart_data {
    uint32_t n;        /* neurons */
    uint64_t tokens;   /* T: tokens observed */
    uint32_t *co;      /* matrix: n x n, co[i * n + j] tokens with i and j active; co[i * n + i] tokens with i
                          active.  NULL for a trace (no N x N array: the counts come from the tokens) */
    int from_trace;    /* 1: the per-token sets below are known (exact traffic) */
    uint32_t *off;     /* trace: tokens + 1 offsets into ids */
    uint32_t *ids;     /* trace: the active ids of token t are ids[off[t] .. off[t + 1]) */
    uint32_t *act;     /* trace: n, tokens in which neuron i is active */
    uint32_t *tok_off; /* trace: n + 1 offsets into tok */
    uint32_t *tok;     /* trace: the tokens holding neuron i, increasing: tok[tok_off[i] .. tok_off[i + 1]) */
} cs_npart_data;

/* Read a matrix or a trace (told apart by the header's first field);
 * at most max_neurons neurons (<= CS_NPART_MAX_NEURONS). */
int cs_npart_load(const char *path, uint32_t max_neurons, cs_npart_data *d, cs_error *err);
void cs_npart_data_free(cs_npart_data *d);

/* co(i, j): tokens in which neurons i and j are both active (i == j: i active). */
uint32_t cs_npart_co(const cs_npart_data *d, uint32_t i, uint32_t j);

/* The traffic of an assignment worker[0..n) (values < w). */
typedef struct cs_npart_traffic {
    uint64_t cut;             /* sum over pairs i < j on different workers of co[i][j] */
    uint64_t partials;        /* trace: sum over tokens of (workers holding an active neuron - 1), 0 for none;
                                 matrix: cut, an upper bound of that sum */
    uint64_t tokens_crossing; /* trace: tokens whose active neurons sit on 2 or more workers; matrix: 0 */
} cs_npart_traffic;
void cs_npart_traffic_of(const cs_npart_data *d, const uint32_t *worker, uint32_t w, cs_npart_traffic *t);

typedef struct cs_npart_result {
    uint32_t w;              /* workers */
    uint32_t *before;        /* neuron -> worker, contiguous: i / (n / w) */
    uint32_t *group;         /* neuron -> greedy group (groups numbered in the order grown) */
    uint32_t *group_worker;  /* group -> worker (Hungarian) */
    uint32_t *after;         /* neuron -> worker chosen */
    uint64_t moved;          /* neurons whose worker differs between before and after */
    int kept_contiguous;     /* 1: the grown partition did not lower partials, after = before */
    cs_npart_traffic t_before, t_grown, t_after;
} cs_npart_result;

/* Partition d's neurons over w workers (w divides n, 1 <= w <= CS_NPART_MAX_WORKERS):
 * CS_EINVAL naming --workers otherwise. */
int cs_npart_partition(const cs_npart_data *d, uint32_t w, cs_npart_result *r, cs_error *err);
void cs_npart_result_free(cs_npart_result *r);

#endif
