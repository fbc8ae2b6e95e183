/*
 * timeline.h -- Chrome / Perfetto trace-event JSON timeline.
 *
 * A cs_timeline is a cs_exec_observer: every completed node becomes one
 * complete ("X") slice, written to the file as it completes (nothing is held
 * in memory).  One process per rank ("rank N"), one thread per lane:
 * "GPU compute", "CPU", "communication" (collectives, sends, memory accesses,
 * which the communication engine runs one at a time), and "recv K" for
 * receives (one lane per concurrently posted receive), so slices in a lane
 * never overlap.  Instant nodes (METADATA, INVALID, skipped COMP) become
 * instant ("i") events.  Timestamps are microseconds with picosecond
 * precision (6 decimals), written exactly from integer time.
 */
#ifndef CS_OUTPUT_TIMELINE_H
#define CS_OUTPUT_TIMELINE_H

#include <stdint.h>

#include "core/error.h"
#include "workload/exec.h"

typedef struct cs_timeline cs_timeline;

int cs_timeline_open(const char *path, uint32_t nranks, cs_timeline **out, cs_error *err);
/* Observer callback (ud = the cs_timeline). */
void cs_timeline_node_done(void *ud, const cs_node_span *span);
/* Finish the JSON and close; frees t. */
/* A counter track (Perfetto "C" events) in process `pid` named `name`
 * (a process of its own, labelled `process` when pid >= the rank count):
 * value at time ts.  Used for link utilization (output/links.c). */
void cs_timeline_counter(cs_timeline *t, uint32_t pid, const char *process, const char *name, cs_time ts,
                         double value);
/* A stopped run's timeline: a metadata event {"partial": true, "reason"}
 * before the close, so the file stays valid JSON and says what it is. */
void cs_timeline_mark_partial(cs_timeline *t, const char *reason);
int cs_timeline_close(cs_timeline *t, cs_error *err);
/* Keep only these ranks' slices: spec is a comma-separated list of ranks
 * and inclusive ranges ("0-7,64,120-127"), each below nranks; CS_EINVAL
 * naming `flag` otherwise. */
int cs_timeline_select_ranks(cs_timeline *t, const char *spec, const char *flag, cs_error *err);
/* The same list into selected[0 .. nranks) (1 = listed; the caller zeroes it). */
int cs_rank_list_parse(const char *spec, uint32_t nranks, const char *flag, uint8_t *selected, cs_error *err);
/* Stop adding events once the file holds limit_bytes (0 = no limit); the
 * timeline then ends with a metadata event {"truncated": true, "reason"}
 * (still valid JSON).  cs_timeline_truncated says whether it happened and
 * at which simulated time. */
void cs_timeline_set_limit(cs_timeline *t, uint64_t limit_bytes);
int cs_timeline_truncated(const cs_timeline *t, cs_time *at);
uint64_t cs_timeline_events(const cs_timeline *t);

#endif
