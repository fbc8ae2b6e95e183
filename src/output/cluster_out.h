/*
 * cluster_out.h -- a cluster run's results (scenario/cluster.h) as files in
 * --out DIR and as the terminal report (docs/cluster.md has the columns):
 * jobs.csv (one row per job: alone, shared, slowdown, steps, links),
 * iterations.csv (each iteration's end and step, alone and shared),
 * interference.csv (graph backends: the links two jobs or more cross, with
 * each job's bytes), cluster.json (all of it), and the shared run's
 * links.csv and ranks.csv.  Every file is written atomically; a failed
 * write removes the set, and a new run first removes an earlier run's.
 */
#ifndef CS_OUTPUT_CLUSTER_OUT_H
#define CS_OUTPUT_CLUSTER_OUT_H

#include <jansson.h>
#include <stdio.h>

#include "core/error.h"
#include "scenario/cluster.h"

int cs_cluster_out_write(const cs_cluster *c, const char *dir, cs_error *err);
/* Remove the files a cluster run writes in dir (a failed run leaves none). */
void cs_cluster_out_remove(const char *dir);
json_t *cs_cluster_json(const cs_cluster *c);
void cs_cluster_print(const cs_cluster *c, FILE *f);

#endif
