/*
 * cluster.h -- several jobs on one cluster (docs/cluster.md): a cluster
 * file names the platform (a scenario: network, topology, backend, system)
 * and the jobs -- each a Chakra trace set or a generated plan, with where
 * its ranks go (a placement policy or an explicit NPU list), when it starts
 * and how many iterations it runs.  The jobs share the fabric.
 *
 * A cluster run is N + 1 scenario runs (cs_scenario_run_with) on the same
 * platform: each job alone on the cluster at its place, then all jobs
 * together.  Each job's graphs are renamed into the cluster's numbering
 * (workload/graph_job.h: peers, communicator groups, iterations) and every
 * idle NPU runs an empty graph.  Per job: its time alone and shared (from
 * its start to its last rank's last node), the slowdown, each iteration's
 * end; per link (graph backends): the bytes each job sends over it when
 * alone, so the links two jobs cross are named; for the cluster: the
 * makespan, the NPUs allocated and the compute utilization.
 *
 * Communicator groups: a job's default group (pg "") becomes the group of
 * its own ranks, its named groups are renumbered; on the cluster every
 * group is smaller than the network, so each collective runs over its
 * members as the system layer runs any communicator group (planner.c).
 *
 * Operations: timed changes of the fabric (drain and undrain switches,
 * fail, degrade and repair cables, flaps drawn from a seed) that happen in
 * every run; candidate maintenance windows each run once more with all jobs
 * and are ranked by the job time they add (graph backends; the changes
 * become topology.link_changes / switch_changes of that run).
 *
 * Routings: the shared run again under each routing policy -- ECMP per
 * (src, dst), spraying per message, QP-aware ECMP, and centralized traffic
 * engineering (topology/te.h: every (src, dst) demand of the shared run's
 * traffic matrix on the shortest path that balances link load, given to
 * the topology as its routing table) -- with each job's time, the makespan
 * and the busiest link's load.
 *
 * Seeds: with seeds > 1 every run is repeated with the ECMP hash and the
 * compute jitter drawn from seed + 0, 1, ...; slowdowns and a window's cost
 * are paired per seed (the same seed with and without), and reported as a
 * mean with its 95 % interval, so that an effect is not mistaken inside the
 * hash's noise.  The detailed outputs (iterations, links) are the first
 * seed's.
 *
 * Ownership: a cs_cluster owns its scenario, jobs and results.
 */
#ifndef CS_SCENARIO_CLUSTER_H
#define CS_SCENARIO_CLUSTER_H

#include <jansson.h>
#include <stdint.h>

#include "core/error.h"
#include "core/stats.h"
#include "core/time.h"
#include "scenario/result.h"
#include "scenario/scenario.h"

#define CS_CLUSTER_MAX_JOBS 256u
#define CS_CLUSTER_MAX_ITERATIONS 1000000u
/* The most NPUs one job may have (its npus, or its placement's list). */
#define CS_CLUSTER_MAX_JOB_NPUS (1u << 24)

typedef struct cs_cluster_job {
    char name[33];              /* [A-Za-z0-9_.-], 1..32 characters */
    uint32_t npus;              /* ranks (0 in the file = the plan's, or required for traces) */
    uint32_t *npu;              /* job rank -> cluster NPU (owned; after the run's placement) */
    char placement[96];         /* the policy as given, or "explicit" */
    json_t *explicit_npus;      /* the list of an explicit placement (owned) */
    cs_time start;              /* start_ns */
    uint8_t traffic_class;      /* its messages' traffic class (packet backend priorities; 0 default) */
    uint32_t iterations;
    char *workload;             /* traces: PREFIX or FILE (path as resolved; owned) */
    char *comm_groups;          /* traces: their communicator-group file (owned) or NULL */
    json_t *set;                /* plans: plan.*, model.*, device.* keys (owned) */
    char what[160];             /* one line: "traces PREFIX" or "gpt3-13b tp 2 pp 1 dp 4" */
    uint32_t domains;           /* switches (graph backends) or dimension-0 groups its NPUs span */
    /* results (cs_cluster_run) */
    cs_time alone, shared;      /* from start to its last rank's last node */
    cs_time *alone_end, *shared_end; /* per iteration: its end (absolute simulated time; owned) */
    cs_time compute_alone, compute_shared; /* GPU compute summed over its ranks */
    uint32_t links_used;        /* links its bytes crossed alone (graph backends) */
    uint32_t links_shared;      /* ... of them, crossed by another job alone too */
    uint64_t bytes_on_shared;   /* its bytes over those shared links, alone */
    cs_stats alone_st, shared_st; /* its time (ns) over the seeds (the fields above: the first seed's) */
    cs_stats slowdown_st;       /* shared / alone, paired by seed */
} cs_cluster_job;

typedef struct cs_cluster_link {
    uint32_t link;
    uint32_t jobs;              /* jobs whose bytes cross it alone (>= 2) */
    uint64_t *job_bytes;        /* per job, alone (njobs entries; owned) */
    uint64_t shared_bytes;
    cs_time shared_busy;
    double shared_peak_util;
} cs_cluster_link;

/* A candidate maintenance window (cluster file "windows"): timed changes of
 * the fabric added to the shared run; ranked by the job time they add. */
typedef struct cs_cluster_window {
    char name[33];
    json_t *ops;                /* its operations (owned) */
    cs_time *job_time;          /* per job: its time with the window (owned) */
    double extra_ns;            /* sum over jobs of (time with - time without the window), ns; the mean
                                   over the seeds, each paired with the shared run of its seed */
    double max_slowdown;        /* max over jobs of time with / time without (mean over the seeds) */
    cs_stats extra_st, slowdown_st; /* the same per seed */
    uint32_t rank;              /* 1 = hurts the jobs least */
} cs_cluster_window;

/* A routing policy compared on the shared run (cluster file "routings"). */
typedef struct cs_cluster_routing {
    char name[24];              /* ecmp, spray, qp[:N], te */
    cs_stats *job_st;           /* per job: its time (ns) over the seeds (owned) */
    cs_stats makespan_st;       /* the shared run's end (ns) */
    cs_stats busiest_st;        /* the most loaded link's bytes / bandwidth (ns) */
    uint64_t *link_bytes;       /* per link, the first seed (owned) */
    uint32_t nlinks;
    double planned_ns;          /* te: the busiest link's load as the controller planned it */
} cs_cluster_routing;

#define CS_CLUSTER_MAX_ROUTINGS 8u
#define CS_CLUSTER_MAX_WINDOWS 64u
#define CS_CLUSTER_MAX_SEEDS 1000u
#define CS_CLUSTER_MAX_CHANGES 100000u /* timed changes of one run (flaps included) */

typedef struct cs_cluster {
    char *path;                 /* the cluster file */
    cs_scenario *sc;            /* the platform; --set edits it before the run (owned) */
    size_t njobs;
    cs_cluster_job *jobs;
    json_t *ops;                /* "operations": timed changes in every run (owned; NULL = none) */
    uint32_t seeds;             /* "seeds" / --seeds: every run repeated with topology.ecmp_seed and
                                   run.jitter-seed + 0 .. seeds - 1 (default 1) */
    size_t nwindows;
    cs_cluster_window *windows; /* "windows", in file order (owned) */
    size_t nroutings;
    cs_cluster_routing *routings; /* "routings", in file order (owned) */
    uint64_t te_demands;        /* te: the (src, dst) pairs of the traffic matrix it placed */
    /* results */
    json_t *changes;            /* every run's timed changes (platform's + operations): {link_changes,
                                   switch_changes} as the topology takes them, flaps drawn (owned; NULL = none) */
    cs_result *shared;          /* the run of every job together (owned) */
    cs_cluster_link *links;     /* links crossed by two jobs or more, by link id (owned) */
    size_t nlinks;
    uint64_t npus;              /* the cluster's NPUs */
    uint64_t allocated;         /* NPUs the jobs hold */
    cs_time makespan;           /* the shared run's end */
    double compute_util;        /* GPU compute over every NPU x makespan (shared run) */
    char backend[32];           /* the platform's run.backend (after cs_cluster_run or cs_cluster_check) */
} cs_cluster;

/* Read a cluster file (JSON; docs/cluster.md); CS_EINVAL naming the file,
 * the line and the key. */
int cs_cluster_load(const char *path, cs_cluster **out, cs_error *err);
/* Place, compose and run (the jobs alone, then together); hooks: stop and
 * progress apply to every run, observers to none. */
int cs_cluster_run(cs_cluster *c, const cs_run_hooks *hooks, cs_error *err);
/* What cs_cluster_run loads and checks before its first simulation, and
 * nothing more (clustersim cluster --check): the platform, every job's
 * traces read or plan checked and generated, the placements, the jobs
 * composed into the cluster's workload, then the run of every job together
 * and each window's and routing's run checked as a run checks them
 * (cs_run_hooks.check_only: system, groups, stragglers, the backend and its
 * options, memory, cost inputs); c->npus, c->allocated, c->backend and the
 * jobs' npus and NPUs (first seed) are set, no result.  CS_OK or the error
 * the run would stop at, naming the file, the job and the key. */
int cs_cluster_check(cs_cluster *c, const cs_run_hooks *hooks, cs_error *err);
void cs_cluster_free(cs_cluster *c);

/* Job j's iteration i step time in the shared (or alone) run. */
cs_time cs_cluster_step(const cs_cluster_job *j, uint32_t i, int shared);

#endif
