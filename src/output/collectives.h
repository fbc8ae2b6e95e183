/*
 * collectives.h -- the per-collective files: collectives.csv, streamed as
 * the scenario's aggregator (scenario/coll_agg.h) emits rows, and the
 * "collectives" array of summary.json.
 *
 * A cs_coll_out is a row sink: give cs_coll_out_row (ud = the sink) as the
 * row hook of a run (cs_run_hooks.coll_row).  Rows stream to collectives.csv
 * (written to a temporary name and renamed by cs_coll_out_finish: a run that
 * does not finish leaves none); the first json_cap rows are also streamed,
 * as JSON objects, to an anonymous temporary file that summary.json copies
 * (cs_coll_out_write_json), so memory stays bounded however long the run.
 * Without a sink, summary.json lists the rows the result kept in memory
 * (the first CS_RESULT_MAX_COLLS).
 *
 * Ownership: the caller owns the sink (cs_coll_out_new / cs_coll_out_free).
 */
#ifndef CS_OUTPUT_COLLECTIVES_H
#define CS_OUTPUT_COLLECTIVES_H

#include <stdint.h>
#include <stdio.h>

#include "core/error.h"
#include "scenario/coll_agg.h"
#include "scenario/result.h"

#define CS_COLL_JSON_CAP_DEFAULT 100000u

#define CS_COLL_CSV_HEADER                                                                     \
    "collective,type,comm_size_bytes,data_bytes,communicator,group_id,nranks,seq,start_ns,"    \
    "end_ns,duration_ns,algbw_gbps,busbw_gbps,chunks,phases,algorithms,bytes_sent,"           \
    "bytes_received,member_records"

typedef struct cs_coll_out cs_coll_out;

/* csv_path: collectives.csv (NULL = none); json: 1 = keep entries for
 * summary.json, at most json_cap (0 = CS_COLL_JSON_CAP_DEFAULT). */
int cs_coll_out_new(const char *csv_path, int json, uint64_t json_cap, cs_coll_out **out, cs_error *err);
/* The row hook (ud = the sink). */
void cs_coll_out_row(void *ud, const cs_coll_row *row);
/* Close collectives.csv and rename it into place; the first write error of
 * the run, if any.  Call once, after the run. */
int cs_coll_out_finish(cs_coll_out *o, cs_error *err);
/* Removes an unfinished collectives.csv. */
void cs_coll_out_free(cs_coll_out *o);

/* Write `"collectives": [...], "collectives_count": N,
 * "collectives_truncated": K,` (each line indented for summary.json's top
 * level; a trailing comma and newline): the sink's entries, or with o NULL
 * the rows r kept. */
int cs_coll_out_write_json(const cs_coll_out *o, const cs_result *r, FILE *f, const char *path, cs_error *err);

#endif
