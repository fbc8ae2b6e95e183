/*
 * rescale.h -- trace rescaling: a Chakra trace set captured on N ranks
 * (PREFIX.<rank>.et, and its communicator-group file) rewritten for another
 * data-parallel degree, by its parallel-group structure (docs/rescale.md).
 *
 * The source is described by its plan: tp x dp x pp ranks laid out as the
 * generator lays them out (rank = the placement formula of gen.h; the
 * caller gives tp, pp and the placement, dp = N / (tp pp), or none of them
 * and every plan of the N ranks is tried: the one that fits is taken, two
 * that swap TP and DP are decided by their collective counts, anything
 * else is an error naming the candidates).  Every rank's
 * graph is checked against that structure: each pg_name must name the
 * rank's own tensor-parallel or data-parallel group (members in coordinate
 * order), each send/recv peer must be in the rank's own data-parallel
 * replica and pipeline (same dp_i and tp_i), collectives on the
 * data-parallel group must be all-reduces, broadcasts, barriers or
 * reduce-scatters (their per-rank size does not depend on dp) or
 * all-gathers (ZeRO/FSDP's 1/dp shards, rescaled as the compute node that
 * waits for the reduce-scatters -- the optimizer step -- when the trace's
 * rounding determines the new value), and the ranks
 * of one (tp, pp) position must be replicas: equal node by node once group
 * names and peers are renamed.  Anything else is refused, naming the file,
 * the node and what was expected.
 *
 * The target has the same tp, pp and placement and `to_dp` replicas; rank
 * (ti, di, pi) gets the nodes of source rank (ti, 0, pi) with pg_name
 * renamed to the target's group id (the generator's numbering,
 * cs_gen_group_of: TP groups first, then DP groups) and comm_src/comm_dst
 * moved to the same (ti, pi) position in replica di, and the 1/dp shards
 * scaled by dp / dp'.  Node ids, dependencies and every other size and
 * duration are unchanged.
 *
 * With to_tp (a generated transformer trace set, tp >= 2 at both ends), the
 * ranks of a TP group are checked to be equal too (tp_i 0 is the template of
 * its stage), and every node is rewritten by the rule of its kind, read
 * from its name (L<k>.qkv, bwd.L<k>.mlp, embed, ...; docs/rescale.md): sizes
 * and FLOP counts scaled by tp / tp' exactly (or refused), durations by tp
 * / tp' rounded to a microsecond; a node no rule covers is refused.
 *
 * With to_pp (a generated dense transformer, 1F1B or GPipe, the default
 * layer split, --zero 0, pp >= 2 at both ends), every target stage is
 * re-emitted from the source's nodes by the generator's rules
 * (rescale_pp.h), after the source's own stages are rebuilt the same way
 * and found equal to the templates.
 *
 * Memory: the tp x pp template graphs of the source and one rank's check at
 * a time; target files are streamed (one node in flight), so 16,384 ranks
 * hold no more than 8.  Files are written under temporary names and renamed
 * only when every one is complete: a failed or stopped rescale leaves no
 * partial trace set.  Output is deterministic (byte-identical runs).
 *
 * Ownership: the caller owns the options and the info; nothing is kept.
 */
#ifndef CS_GEN_RESCALE_H
#define CS_GEN_RESCALE_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "core/error.h"

typedef struct cs_rescale_opts {
    const char *prefix;      /* source trace set PREFIX (PREFIX.<r>.et or .et.gz) */
    const char *groups;      /* its comm-group file, NULL or "empty" for none */
    uint32_t tp, pp;         /* the captured plan (0 = 1) */
    const char *placement;   /* its placement, innermost first (NULL = tp,dp,pp, the generator's default);
                                tp, pp and placement all 0/NULL: inferred */
    uint32_t to_dp;          /* target data-parallel degree (>= 2) */
    uint32_t to_tp, to_pp;   /* target tp (0 = the source's; another >= 2 re-forms the generator's transformer
                                traces, docs/rescale.md), pp (0 = the source's; another >= 2 re-forms the pipeline of
                                the generator's transformer traces, rescale_pp.h) */
    uint32_t bucket_bytes;   /* --to-tp: the source's gradient bucket size in bytes (0 = 80,000,000: the
                                generator's 40 M parameters of 2-byte gradients) */
    const char *out;         /* target prefix: OUT.<r>.et, OUT.comm_groups.json */
    const volatile sig_atomic_t *stop; /* set by a signal: stop, write nothing (may be NULL) */
    FILE *log;               /* what was checked and written (NULL: silent) */
} cs_rescale_opts;

typedef struct cs_rescale_info {
    uint32_t src_ranks, src_dp;   /* the source: ranks, data-parallel degree */
    uint32_t ranks;               /* written: OUT.0.et .. OUT.<ranks-1>.et */
    uint64_t template_nodes;      /* nodes of the tp x pp template graphs */
    uint64_t nodes_written;       /* over all target files */
    int wrote_groups;             /* 1: OUT.comm_groups.json written */
    uint64_t colls[2];            /* replica 0's collectives on TP [0] and DP [1] groups */
    uint64_t shard_colls;         /* the templates' all-gathers on DP groups (1/dp shards) rescaled */
    uint64_t shard_comps;         /* their compute nodes on a 1/dp shard (the optimizer) rescaled */
    char shard_comp_name[64];     /* the first of them */
    double coll_bytes[2];         /* their comm_size sums */
    uint64_t tp_values;           /* --to-tp: the templates' sizes and FLOP counts scaled by tp / tp' */
    uint64_t tp_durations;        /* their durations scaled by tp / tp' (rounded to a microsecond) */
    uint64_t tp_integral;         /* of tp_values, taken as integers before rounding (tp' < tp) */
    uint64_t tp_gemms;            /* of those, GEMMs (the generated time is not linear in 1/tp) */
} cs_rescale_info;

/* Rescale o->prefix to o->out.  CS_EINVAL naming the file, node, flag and
 * what was expected for input that is not a data-parallel replica
 * structure of the given plan; CS_EUNSUPPORTED for a dimension or a
 * collective whose rescaling is not exact (the message says why); CS_EIO
 * for files; CS_EINTR when stopped.  On any error no target file is left. */
int cs_rescale(const cs_rescale_opts *o, cs_rescale_info *info, cs_error *err);

#endif
