/*
 * workload.h -- the per-rank graphs of one run.
 *
 * A cs_workload maps each rank to a cs_graph.  Ranks whose trace files have
 * identical bytes share one graph (a million-rank run of one microbenchmark
 * holds one graph).  Files are read one at a time and closed at once: no file
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
    cs_graph **graphs;      /* distinct graphs (owned) */
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
/* FNV-1a 64 of p[0..n): how identical trace files are found before parsing. */
uint64_t cs_workload_hash(const unsigned char *p, size_t n);

#endif
