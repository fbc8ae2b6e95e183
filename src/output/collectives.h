/*
 * collectives.h -- per-collective records: collectives.csv, the "collectives"
 * array of summary.json and the per-type lines of the terminal report.
 *
 * The system layer reports one cs_coll_record per rank and collective
 * (system/system.h, through cs_sim_options.coll_observer).  The aggregator
 * merges the records of one collective instance -- keyed by (communicator
 * id, communicator size, issue number) -- in a hash as they arrive: start =
 * earliest member start, end = latest member end, bytes sent and received
 * summed.  When the last member has reported (nmembers records, or in a
 * symmetric run one record whose `represents` counts every member, its bytes
 * then counted for each) the instance is emitted and freed, so memory is
 * bounded by the collectives in flight, not by the run's length.
 *
 * Order: instances are emitted in completion order (end time); instances
 * completing at the same instant are ordered by (communicator id, size,
 * issue number), so the files do not depend on how the event queue breaks
 * ties.  An instance some member never reported (a failed run, a
 * representative-only report) is emitted by cs_coll_agg_finish, after the
 * others, with member_records < nranks.
 *
 * Bandwidths follow nccl-tests (docs/outputs.md): data_bytes is nccl-tests'
 * "size" -- the collective's comm_size, except all-gather, whose comm_size
 * is each rank's contribution (ASTRA-sim's convention) so that the gathered
 * buffer is comm_size x nranks; algbw = data_bytes / duration in GB/s
 * (1 GB/s = 1e9 bytes/s = 1 byte/ns); busbw = algbw x 2(n-1)/n for
 * all-reduce, x (n-1)/n for all-gather, reduce-scatter and all-to-all, x 1
 * otherwise.  Both are 0 when the duration is 0.
 *
 * Outputs: rows stream to collectives.csv as instances are emitted (when a
 * path is given); the first json_cap instances are also streamed, as JSON
 * objects, to an anonymous temporary file that cs_coll_agg_write_json copies
 * into summary.json.  Per-type totals are kept for the terminal report.
 *
 * Ownership: the caller owns the cs_coll_agg (cs_coll_agg_new /
 * cs_coll_agg_free); the comm groups given in the parameters are borrowed
 * and must outlive it.
 */
#ifndef CS_OUTPUT_COLLECTIVES_H
#define CS_OUTPUT_COLLECTIVES_H

#include <stdint.h>
#include <stdio.h>

#include "config/comm_group.h"
#include "core/error.h"
#include "system/system.h"

#define CS_COLL_JSON_CAP_DEFAULT 100000u

typedef struct cs_coll_agg cs_coll_agg;

typedef struct cs_coll_agg_params {
    const char *csv_path;          /* collectives.csv; NULL = none.  Written to a temporary file
                                      renamed at cs_coll_agg_finish: an unfinished run leaves none */
    int json;                      /* 1 = keep entries for summary.json */
    uint64_t json_cap;             /* entries kept for summary.json (0 = CS_COLL_JSON_CAP_DEFAULT) */
    const cs_comm_groups *groups;  /* names of communicators; NULL = none (borrowed) */
} cs_coll_agg_params;

/* Totals of one collective type (terminal report). */
typedef struct cs_coll_type_stats {
    int32_t comm_type;        /* CS_COLL_* */
    uint64_t count;           /* instances */
    uint64_t bytes;           /* sum of comm_size */
    uint64_t timed;           /* instances with bytes and a duration > 0 */
    double busbw_sum_gbps;    /* over the timed instances */
} cs_coll_type_stats;

/* One emitted instance, as written (also what the tests read back). */
typedef struct cs_coll_row {
    uint64_t index;           /* emission order, from 0 */
    int32_t comm_type;
    uint64_t comm_size;       /* bytes as issued */
    uint64_t data_bytes;      /* nccl-tests "size" (see above) */
    uint32_t group_id, nranks;
    const char *communicator; /* "all" or the comm-group name */
    uint64_t seq;
    cs_time start, end;
    double algbw_gbps, busbw_gbps;
    uint32_t chunks, phases;
    const char *algorithms;   /* comma-separated, as the system reports */
    uint64_t bytes_sent, bytes_recv;
    uint64_t member_records;  /* members accounted for (nranks when complete) */
} cs_coll_row;

int cs_coll_agg_new(const cs_coll_agg_params *p, cs_coll_agg **out, cs_error *err);
void cs_coll_agg_free(cs_coll_agg *a);

/* The observer to put in cs_sim_options.coll_observer (points at a). */
cs_coll_observer cs_coll_agg_observer(cs_coll_agg *a);
/* The observer's function: add one record (ud = the cs_coll_agg). */
void cs_coll_agg_record(void *ud, const cs_coll_record *r);

/* Emit everything still held (also incomplete instances) and close the CSV.
 * Returns the first write error of the run, if any.  Call once, after the
 * run; further records are ignored. */
int cs_coll_agg_finish(cs_coll_agg *a, cs_error *err);

/* After finish: instances emitted, and those left out of the JSON array. */
uint64_t cs_coll_agg_count(const cs_coll_agg *a);
uint64_t cs_coll_agg_truncated(const cs_coll_agg *a);
/* Per-type totals of the types seen, in CS_COLL_* order, into out[0..max);
 * returns how many types were seen. */
size_t cs_coll_agg_types(const cs_coll_agg *a, cs_coll_type_stats *out, size_t max);

/* Write `"collectives": [...], "collectives_count": N,
 * "collectives_truncated": K,` (each line indented for summary.json's top
 * level; a trailing comma and newline).  a may be NULL (empty array). */
int cs_coll_agg_write_json(const cs_coll_agg *a, FILE *f, const char *path, cs_error *err);

/* Optional hook: called with every emitted row (tests; NULL = none). */
void cs_coll_agg_set_row_hook(cs_coll_agg *a, void (*hook)(void *ud, const cs_coll_row *row), void *ud);

/* The conventions, for tests and docs. */
uint64_t cs_coll_data_bytes(int32_t comm_type, uint64_t comm_size, uint32_t nranks);
double cs_coll_busbw_factor(int32_t comm_type, uint32_t nranks);

#define CS_COLL_CSV_HEADER                                                                     \
    "collective,type,comm_size_bytes,data_bytes,communicator,group_id,nranks,seq,start_ns,"    \
    "end_ns,duration_ns,algbw_gbps,busbw_gbps,chunks,phases,algorithms,bytes_sent,"           \
    "bytes_received,member_records"

#endif
