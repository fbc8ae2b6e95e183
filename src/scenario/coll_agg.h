/*
 * coll_agg.h -- per-collective instances from the system layer's records:
 * what collectives.csv, the "collectives" array of summary.json and the
 * per-type lines of the terminal report show (the files are written by
 * output/collectives.h from the rows emitted here).
 *
 * The system layer reports one cs_coll_record per rank and collective
 * (system/system.h, through cs_engine_options.coll_observer).  The aggregator
 * merges the records of one collective instance -- keyed by (communicator
 * id, communicator size, issue number) -- in a hash as they arrive: start =
 * earliest member start, end = latest member end, bytes sent and received
 * summed.  When the last member has reported (nmembers records, or in a
 * symmetric run one record whose `represents` counts every member, its bytes
 * then counted for each) the instance is emitted to the row hook and freed,
 * so memory is bounded by the collectives in flight, not by the run's length.
 *
 * Order: instances are emitted in completion order (end time); instances
 * completing at the same instant are ordered by (communicator id, size,
 * issue number), so the rows do not depend on how the event queue breaks
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
 * Ownership: the caller owns the cs_coll_agg (cs_coll_agg_new /
 * cs_coll_agg_free); the comm groups given in the parameters are borrowed
 * and must outlive it.  A row passed to the hook lives for the call only.
 */
#ifndef CS_SCENARIO_COLL_AGG_H
#define CS_SCENARIO_COLL_AGG_H

#include <stddef.h>
#include <stdint.h>

#include "clustersim/clustersim.h"
#include "core/error.h"
#include "system/comm_groups.h"
#include "system/system.h"

typedef struct cs_coll_agg cs_coll_agg;

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

typedef void (*cs_coll_row_fn)(void *ud, const cs_coll_row *row);

/* groups: names of communicators (NULL = none; borrowed). */
cs_coll_agg *cs_coll_agg_new(const cs_comm_groups *groups);
void cs_coll_agg_free(cs_coll_agg *a);

/* The observer to put in cs_engine_options.coll_observer (points at a). */
cs_coll_observer cs_coll_agg_observer(cs_coll_agg *a);
/* The observer's function: add one record (ud = the cs_coll_agg). */
void cs_coll_agg_record(void *ud, const cs_coll_record *r);

/* Called with every emitted row (NULL = none). */
void cs_coll_agg_set_row_hook(cs_coll_agg *a, cs_coll_row_fn hook, void *ud);

/* Emit everything still held (also incomplete instances).  Call once, after
 * the run; further records are ignored. */
void cs_coll_agg_finish(cs_coll_agg *a);

/* Instances emitted so far. */
uint64_t cs_coll_agg_count(const cs_coll_agg *a);
/* Per-type totals of the types seen, in CS_COLL_* order, into out[0..max);
 * returns how many types were seen. */
size_t cs_coll_agg_types(const cs_coll_agg *a, cs_coll_type_stats *out, size_t max);

/* The row as the public API and the output files give it. */
void cs_coll_row_public(const cs_coll_row *w, cs_collective_row *x);

/* The conventions, for tests and docs. */
uint64_t cs_coll_data_bytes(int32_t comm_type, uint64_t comm_size, uint32_t nranks);
double cs_coll_busbw_factor(int32_t comm_type, uint32_t nranks);

#endif
