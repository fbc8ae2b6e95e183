/*
 * report.h -- a run's results (scenario/result.h) for people and programs.
 *
 *  - cs_report_terminal: a short human report with units.
 *  - cs_report_summary_json: summary.json (schema in docs/outputs.md):
 *    schema_version, sim_time_ns, totals, per-rank array (rank, finish_ns,
 *    compute_ns, exposed_comm_ns, ...), the collectives, and the effective
 *    configuration.  Deterministic: no wall-clock values, so identical
 *    inputs give byte-identical files.  Streamed, so a million ranks do not
 *    need a million JSON objects in memory.
 *  - cs_report_ranks_csv: the per-rank table as CSV, units in the header.
 *  - cs_report_plan, cs_report_train, cs_report_train_json: a generated
 *    plan's description, the training report and train's --json.
 * Every file is written atomically (core/afile.h): a reader sees the old
 * file or the complete new one, and a failed write leaves none.
 */
#ifndef CS_OUTPUT_REPORT_H
#define CS_OUTPUT_REPORT_H

#include <stdio.h>

#include "core/error.h"
#include "output/collectives.h"
#include "scenario/result.h"

#define CS_SUMMARY_SCHEMA_VERSION 1

/* outputs: the files written, for the last line (NULL-terminated; NULL = none). */
void cs_report_terminal(FILE *f, const cs_result *r, const char *const *outputs);
/* colls: the sink that streamed the run's collectives (NULL = the rows r kept). */
int cs_report_summary_json(const char *path, const cs_result *r, const cs_coll_out *colls, cs_error *err);
int cs_report_ranks_csv(const char *path, const cs_result *r, cs_error *err);

void cs_report_plan(FILE *f, const cs_gen_model *m, const cs_device *d, const cs_gen_plan *p);
void cs_report_train(FILE *f, const cs_result *r);
int cs_report_train_json(const char *path, const cs_result *r, cs_error *err);

#endif
