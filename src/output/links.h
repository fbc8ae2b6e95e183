/*
 * links.h -- per-link statistics of a run on an explicit topology: links.csv
 * and the "hottest links" lines of the terminal report.
 *
 * Reads the counters the flow backend accumulates in cs_topo.stats
 * (topology/topology.h).  Owns nothing; the topology is borrowed.
 */
#ifndef CS_OUTPUT_LINKS_H
#define CS_OUTPUT_LINKS_H

#include <stdio.h>

#include "core/error.h"
#include "core/time.h"
#include "topology/topology.h"

/* links.csv: one row per directed link, units in the header:
 * link,src,dst,src_kind,dst_kind,bandwidth_GBps,latency_ns,up,bytes,busy_ns,
 * avg_utilization,peak_utilization  (avg over sim_time; GBps = 1e9 B/s). */
int cs_links_csv(const char *path, const cs_topo *t, cs_time sim_time, cs_error *err);
/* The n links that carried the most bytes (busy time breaks ties). */
void cs_links_print_hottest(FILE *f, const cs_topo *t, cs_time sim_time, unsigned n);

#endif
