/*
 * links.h -- per-link statistics of a run on an explicit topology: links.csv
 * and the "hottest links" lines of the terminal report.
 *
 * Reads the backend's link report (network/network.h, cs_net_report; link
 * ids are the topology's) next to the topology's description of each link
 * (ends, bandwidth, latency).  Owns nothing; both are borrowed.
 */
#ifndef CS_OUTPUT_LINKS_H
#define CS_OUTPUT_LINKS_H

#include <stdio.h>

#include "core/error.h"
#include "core/time.h"
#include "network/network.h"
#include "scenario/result.h"
#include "topology/topology.h"

/* links.csv: one row per directed link, units in the header:
 * link,src,dst,src_kind,dst_kind,bandwidth_GBps,latency_ns,up,bytes,busy_ns,
 * avg_utilization,peak_utilization  (avg over sim_time; GBps = 1e9 B/s). */
int cs_links_csv(const char *path, const cs_result *res, cs_error *err);
/* The n links that carried the most bytes (busy time breaks ties). */
void cs_links_print_hottest(FILE *f, const cs_result *res, unsigned n);
/* Their ids, hottest first, into out (at most n <= 16); the count. */
unsigned cs_links_hottest(const cs_result *res, uint32_t *out, unsigned n);
/* Link i's statistics and its average utilization over the run (0..1). */
cs_net_link_stat cs_links_stat(const cs_result *res, uint32_t i);
double cs_links_avg_util(const cs_result *res, uint32_t i);

/* Link utilization over time, for Perfetto counter tracks in the --trace
 * timeline: give the run the observer {cs_link_track_sample, tracker}
 * (cs_net_observer); after it, cs_link_track_write adds a counter track
 * for each of the `n` links that carried the most bytes (samples kept up to
 * max_samples in all; later ones are dropped and the track says so). */
typedef struct cs_link_track cs_link_track;
struct cs_timeline;
cs_link_track *cs_link_track_new(size_t max_samples);
void cs_link_track_sample(void *ud, uint32_t link, cs_time t, double util);
/* Packet-level backends: a link's queue bytes and PFC state (counter tracks queue_bytes, pfc_paused). */
void cs_link_track_queue(void *ud, uint32_t link, cs_time t, uint64_t queue_bytes, int paused);
void cs_link_track_write(cs_link_track *k, struct cs_timeline *tl, const cs_result *res, unsigned n);
void cs_link_track_free(cs_link_track *k);

#endif
