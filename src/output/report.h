/*
 * report.h -- the run's results for people and for programs.
 *
 *  - cs_report_terminal: a short human report with units.
 *  - cs_report_summary_json: summary.json (schema in docs/outputs.md):
 *    schema_version, sim_time_ns, totals, per-rank array (rank, finish_ns,
 *    compute_ns, exposed_comm_ns, ...), and the effective configuration.
 *    Deterministic: no wall-clock values, so identical inputs give
 *    byte-identical files.  Streamed, so a million ranks do not need a
 *    million JSON objects in memory.
 *  - cs_report_ranks_csv: the per-rank table as CSV, units in the header.
 * Per-collective records (summary.json's "collectives" array, the terminal
 * report's per-type lines) come from a cs_coll_agg (output/collectives.h)
 * given in cs_run_info; collectives.csv is streamed by the aggregator itself.
 */
#ifndef CS_OUTPUT_REPORT_H
#define CS_OUTPUT_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "config/network_config.h"
#include "core/error.h"
#include "output/collectives.h"
#include "workload/sim.h"
#include "workload/workload.h"

#define CS_SUMMARY_SCHEMA_VERSION 1

typedef struct cs_run_info {
    const char *workload_prefix; /* trace prefix (or a description of a generated plan) */
    int single_file;             /* one file for every rank */
    uint32_t ngraphs;            /* distinct graphs */
    uint64_t graph_nodes;        /* nodes over the distinct graphs */
    const cs_network_config *network;
    const char *backend;
    json_t *config;  /* effective configuration (borrowed), written under "configuration" */
    double wall_s;   /* terminal report only */
    const char *outputs[8]; /* files written, for the terminal report */
    const cs_coll_agg *collectives; /* finished aggregator (borrowed); NULL = none */
    int has_healthy;       /* --compare-healthy: the same run on the healthy network */
    cs_time healthy_time;  /* its simulated time */
} cs_run_info;

void cs_report_terminal(FILE *f, const cs_run_info *info, const cs_sim_result *res);
int cs_report_summary_json(const char *path, const cs_run_info *info, const cs_sim_result *res,
                           cs_error *err);
int cs_report_ranks_csv(const char *path, const cs_sim_result *res, cs_error *err);

#endif
