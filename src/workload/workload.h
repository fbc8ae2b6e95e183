/*
 * workload.h -- the per-rank graphs of one run.
 *
 * A cs_workload maps each rank to a cs_graph.  Ranks whose trace files have
 * identical bytes share one graph (a million-rank run of one microbenchmark
 * holds one graph); ranks whose graphs differ only in their point-to-point
 * peers (moved by one offset) and communicator names have views of one
 * graph's nodes (graph.h, cs_graph_share; a base comes before its views in
 * graphs[], and either may be freed first).  Files are read one at a time and closed at once: no file
 * stays open per rank.
 *
 * Trace sets are named as ASTRA-sim names them: PREFIX.<rank>.et for rank
 * 0..N-1.  If PREFIX is itself an existing file, it is the workload of every
 * rank.  The rank count must equal the network's NPU count: a missing rank
 * file, or a file for rank N, is an error.
 */
#ifndef CS_WORKLOAD_WORKLOAD_H
#define CS_WORKLOAD_WORKLOAD_H

#include <stdint.h>

#include "core/error.h"
#include "workload/graph.h"

typedef struct cs_workload {
    uint32_t nranks;
    cs_graph **rank_graph;  /* nranks pointers into graphs[] (borrowed) */
    cs_graph **graphs;      /* distinct graphs (owned), views among them */
    uint32_t ngraphs;
    int single_file;        /* 1 = one file for all ranks */
    char *prefix;
} cs_workload;

int cs_workload_load(const char *prefix, uint32_t nranks, const cs_graph_options *opt,
                     cs_workload *out, cs_error *err);
/* Build from graphs made in memory (generators, tests); takes ownership of
 * graphs[0..ngraphs); rank_graph_index[r] selects rank r's graph. */
int cs_workload_from_graphs(cs_graph **graphs, uint32_t ngraphs, const uint32_t *rank_graph_index,
                            uint32_t nranks, cs_workload *out, cs_error *err);
void cs_workload_free(cs_workload *w);

/* The bytes of one trace file as the loader reads them (*out owned by the
 * caller): a regular file or a pipe, anything else refused naming the file
 * (a device such as /dev/zero would fill memory). */
int cs_workload_read_trace(const char *path, unsigned char **out, size_t *len, cs_error *err);
/* A trace set of n ranks is about to be written to PREFIX (flag names the
 * option, e.g. "--out"): CS_EINVAL if PREFIX.<n>.et or PREFIX.<n>.et.gz
 * exists -- an earlier, larger set's rank that a loader would read as rank
 * n of this one -- naming it and asking to remove the old set first; and
 * CS_EINVAL for a prefix without a name ("" or "dir/": hidden files). */
int cs_workload_check_out_prefix(const char *flag, const char *prefix, uint32_t n, cs_error *err);
/* Unlink PREFIX.<r>.et and PREFIX.<r>.et.gz for r = 0, 1, ... while either
 * exists: a set a run broke by failing while it wrote it (after
 * cs_workload_check_out_prefix passed for n ranks, at most n are found).
 * A rank whose name exists but cannot be unlinked (a directory in the way)
 * is passed over, not taken for the end of the set.  Returns the number of
 * ranks removed. */
uint32_t cs_workload_remove_ranks(const char *prefix);
/* FNV-1a 64 of p[0..n): how identical trace files are found before parsing. */
uint64_t cs_workload_hash(const unsigned char *p, size_t n);

#endif
