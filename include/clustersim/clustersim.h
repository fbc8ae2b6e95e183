/*
 * clustersim.h -- the public interface of the clustersim library.
 *
 * Deliberately small while the internals settle: a program can embed
 * clustersim (a sweep driver, a notebook extension) by calling
 * clustersim_main with the same arguments the command line takes; results
 * come back as the files it writes (summary.json, ranks.csv,
 * collectives.csv, whose schema is versioned by CLUSTERSIM_SUMMARY_SCHEMA
 * and described in docs/outputs.md).  Everything under src/ is internal.
 *
 * Thread safety: one call at a time per process (the allocator counters and
 * the warning log are process-wide).
 */
#ifndef CLUSTERSIM_CLUSTERSIM_H
#define CLUSTERSIM_CLUSTERSIM_H

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the library and of the summary.json schema it writes. */
const char *clustersim_version(void);
#define CLUSTERSIM_SUMMARY_SCHEMA 1

/* Run one clustersim command, e.g. {"clustersim", "run",
 * "--workload-configuration=...", "--network-configuration=...",
 * "--quiet", "--out", "results", NULL}.  Returns the exit status the
 * program would: 0 success, 1 bad input or simulation error (message on
 * stderr), 2 usage error. */
int clustersim_main(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
