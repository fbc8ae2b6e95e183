/*
 * sweep_int.h -- private to src/sweep: the state of one sweep shared by the
 * coordinator (sweep.c) and the ways of running points (sweep_local.c:
 * forked workers; sweep_mpi.c: MPI ranks).
 */
#ifndef CS_SWEEP_SWEEP_INT_H
#define CS_SWEEP_SWEEP_INT_H

#include <jansson.h>
#include <stdint.h>
#include <time.h>

#include "scenario/scenario.h"
#include "sweep/design.h"
#include "sweep/sweep.h"

typedef struct sw_entry {
    uint64_t id;
    char *line; /* the logged JSON line (owned, no newline) */
    int ok;     /* status "ok" */
} sw_entry;

typedef struct sweep {
    const cs_sweep_options *o;
    cs_design *d;
    cs_scenario *base;
    uint64_t n;           /* points */
    uint64_t *ids;        /* per point */
    /* finished runs by id: open addressing, power-of-two capacity */
    sw_entry *tab;
    size_t tabcap, tabn;
    int log_fd;           /* this invocation's log (appended), -1 = none */
    char log_path[4200];
    uint64_t ran, failed, todo_total; /* this invocation */
    struct timespec t0, last_progress;
    int mpi_rank;         /* this process's MPI rank, -1 = not on MPI */
} sweep;

/* Point i's scenario (base + knobs); CS_EINVAL naming the spec and point. */
int sw_point_scenario(const sweep *s, uint64_t i, cs_scenario **out, cs_error *err);
/* Run point i; its log line (cs_malloc'd, no newline). */
char *sw_run_point(const sweep *s, uint64_t i);
/* A worker's report that point i could not finish (crash, out of memory). */
char *sw_failed_line(const sweep *s, uint64_t i, const char *why);
/* Record a finished point's line: append it to the log, remember it,
 * count it, print progress.  Takes ownership of line. */
void sw_record(sweep *s, char *line);
/* 1 = the sweep should stop (the stop flag is set). */
int sw_stopping(const sweep *s);

/* A value as results.csv writes it (compact JSON, shortest reals; strings quoted); cs_malloc'd. */
char *sw_json_text(json_t *v);

/* The HTML report (sweep_report.c): rows[i] is point i's logged record or NULL. */
int sw_write_report(const sweep *s, json_t *const *rows, uint64_t done, uint64_t ok, cs_error *err);
/* Remove a report and its .svg files (an earlier sweep's). */
void sw_report_remove(const char *path);

/* Run these points on -j worker processes (sweep_local.c). */
int sw_run_local(sweep *s, const uint64_t *todo, size_t ntodo, cs_error *err);

/* MPI (sweep_mpi.c): the size of the MPI job this process was launched in
 * (1 = none or one rank; MPI is then not used).  sw_mpi_init initializes
 * MPI and returns this rank; sw_run_mpi runs the points on every rank
 * (rank 0); sw_mpi_worker serves rank 0 (other ranks); sw_mpi_finalize. */
int sw_mpi_launched(void);
int sw_mpi_available(void);
int sw_mpi_init(int *rank, int *size, cs_error *err);
int sw_run_mpi(sweep *s, const uint64_t *todo, size_t ntodo, cs_error *err);
int sw_mpi_worker(sweep *s, cs_error *err);
void sw_mpi_finalize(void);

#endif
