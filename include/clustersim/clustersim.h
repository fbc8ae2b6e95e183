/*
 * clustersim.h -- the public interface of the clustersim library.
 *
 * A *scenario* is one fully described simulation: a workload (Chakra traces,
 * or a model + parallelism plan that the generator turns into traces in
 * memory), a system (collective algorithms, scheduling), a network (the
 * ASTRA-sim dimensions, an optional physical topology, a backend) and its
 * memory.  Every knob has one dotted key in one namespace (docs/config.md,
 * `clustersim run --help-config`):
 *
 *     run.*       workload source, backend, topology file, placement, symmetry ...
 *     network.*   the ASTRA-sim network YAML keys (topology, npus_count, bandwidth, latency)
 *     system.*    the ASTRA-sim system JSON keys (all-reduce-implementation, ...)
 *     memory.*    the ASTRA-sim remote-memory JSON keys
 *     comm-groups.NAME  communicator groups (list of ranks)
 *     model.*, device.*, plan.*   a generated training step (clustersim train)
 *
 *     cs_scenario *sc = cs_scenario_new();
 *     cs_scenario_load(sc, "scenario.json");              // or cs_scenario_load_config
 *     cs_scenario_set(sc, "network.bandwidth", "[100, 25]");
 *     cs_result *r;
 *     if (cs_scenario_run(sc, &r) != 0) fprintf(stderr, "%s\n", cs_scenario_error(sc));
 *     printf("%llu ps\n", (unsigned long long)cs_result_time_ps(r));
 *     cs_result_free(r);
 *     cs_scenario_free(sc);
 *
 * Values are given as text: a number, a word, a JSON value ([1, 2]), or a
 * comma-separated list for list keys (ring,ring).  Every call that can fail
 * returns 0 on success and -1 on failure; cs_scenario_error then says what
 * was wrong, naming the key or file, the field and what was expected.
 *
 * Results come back in memory (cs_result): the step time in integer
 * picoseconds, per-rank rows, per-collective records, per-link counters
 * (graph backends), the plan's throughput and memory, and which symmetry
 * mode simulated how many ranks.  The same scenario gives the same
 * picoseconds whether it is run through this API, `clustersim run` or
 * `clustersim train` (tested).
 *
 * Ownership: the caller owns a scenario and each result; a result does not
 * refer to its scenario and outlives it.  Thread safety: one run at a time
 * per process (the allocator counters and the warning log are process-wide).
 */
#ifndef CLUSTERSIM_CLUSTERSIM_H
#define CLUSTERSIM_CLUSTERSIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the library and of the summary.json schema it writes. */
const char *clustersim_version(void);
#define CLUSTERSIM_SUMMARY_SCHEMA 1

/* ---- scenarios ------------------------------------------------------------ */

typedef struct cs_scenario cs_scenario;
typedef struct cs_result cs_result;

/* A scenario with every key at its default (no workload, no network yet). */
cs_scenario *cs_scenario_new(void);
void cs_scenario_free(cs_scenario *sc);

/* Set one key ("system.active-chunks-per-dimension", "2").  The value is
 * checked at once against the key's type, range and accepted values. */
int cs_scenario_set(cs_scenario *sc, const char *key, const char *value);
/* Effective value of a key as JSON text (a string is quoted); 0 or -1. */
int cs_scenario_get(const cs_scenario *sc, const char *key, char *buf, size_t n);

/* Load a scenario file (JSON, as cs_scenario_dump writes it): its keys
 * replace the current ones section by section.  Relative paths in it are
 * relative to the file's directory. */
int cs_scenario_load(cs_scenario *sc, const char *path);
/* Load one ASTRA-sim input into its section: kind "network" (YAML),
 * "system", "memory" (JSON), "comm-groups" (JSON or "empty"). */
int cs_scenario_load_config(cs_scenario *sc, const char *kind, const char *path);
/* Write the effective scenario (every key, defaults included) as one JSON
 * file that cs_scenario_load / `clustersim run --scenario` reproduce to the
 * picosecond.  Written to a temporary file and renamed. */
int cs_scenario_dump(cs_scenario *sc, const char *path);

/* Run the scenario.  *out receives a result (free with cs_result_free). */
int cs_scenario_run(cs_scenario *sc, cs_result **out);
/* Message of the last failed call ("" when none). */
const char *cs_scenario_error(const cs_scenario *sc);

/* ---- results ---------------------------------------------------------------- */

/* Step time: the latest finish over all ranks, in picoseconds. */
uint64_t cs_result_time_ps(const cs_result *r);
uint32_t cs_result_nranks(const cs_result *r);
/* Events the run represents (a symmetric run simulates fewer). */
uint64_t cs_result_events(const cs_result *r);

typedef struct cs_rank_row {
    uint64_t finish_ps, compute_ps, cpu_ps, comm_busy_ps, exposed_comm_ps;
    uint64_t nodes, bytes_sent, bytes_recv;
    /* The step split by what the rank runs, the first that applies: GPU
     * compute (compute_ps), a CPU op (cpu_only_ps), communication in flight
     * (comm_only_ps), nothing (idle_ps, up to the step's end, its wait for
     * the slowest rank included): the four add up to cs_result_time_ps.
     * exposed_comm_ps is ASTRA-sim's finish - compute. */
    uint64_t cpu_only_ps, comm_only_ps, idle_ps;
} cs_rank_row;
/* Rank i's row; 0, or -1 when i is out of range. */
int cs_result_rank(const cs_result *r, uint32_t i, cs_rank_row *out);

typedef struct cs_collective_row {
    uint64_t index;           /* completion order, from 0 */
    char type[24];            /* ALL_REDUCE, ALL_GATHER, ... */
    char communicator[128];   /* "all", the comm-group name, or its id */
    char algorithms[64];      /* per phase, comma-separated, as the system layer ran them */
    uint64_t comm_size_bytes; /* as issued */
    uint64_t data_bytes;      /* nccl-tests "size" (all-gather: comm_size x nranks) */
    uint32_t group_id, nranks, chunks, phases;
    uint64_t seq;             /* issue number on its communicator */
    uint64_t start_ps, end_ps;
    double algbw_gbps, busbw_gbps; /* nccl-tests convention, GB/s = 1e9 B/s */
    uint64_t bytes_sent, bytes_received; /* over the members */
    uint64_t member_records;  /* members that reported (nranks when complete) */
} cs_collective_row;
/* Collective instances kept in memory (the first 16,384 of the run; the
 * count of all is cs_result_collectives_total). */
size_t cs_result_collectives(const cs_result *r);
uint64_t cs_result_collectives_total(const cs_result *r);
int cs_result_collective(const cs_result *r, size_t i, cs_collective_row *out);

typedef struct cs_link_row {
    uint32_t src, dst;         /* node ids of the physical graph */
    double bandwidth_gbps;     /* as built, GB/s = 1e9 B/s */
    uint64_t bytes, busy_ps;
    double peak_utilization;   /* 0..1 */
} cs_link_row;
/* Links of the physical topology (0 on the analytical backends). */
size_t cs_result_links(const cs_result *r);
int cs_result_link(const cs_result *r, size_t i, cs_link_row *out);

typedef struct cs_plan_row {
    int valid;                 /* 1 = the workload was a generated plan */
    double model_flops;        /* per step, without recomputation */
    double mfu;                /* model FLOPs / (step time x ranks x peak) */
    double throughput;         /* per second, in throughput_unit */
    char throughput_unit[16];  /* tokens/s, images/s, samples/s */
    uint64_t rank0_compute_ps, rank0_exposed_comm_ps, rank0_bubble_ps;
    uint64_t memory_worst_bytes; /* worst pipeline stage, per GPU */
    double hardware_flops;     /* per step, every rank's matmul FLOPs as generated: recomputation included */
    double hfu;                /* hardware FLOPs utilization: hardware_flops / (step time x ranks x peak) */
} cs_plan_row;
int cs_result_plan(const cs_result *r, cs_plan_row *out);

/* "full", "representative" (one rank stands for all) or "class" (one per
 * class of ranks); simulated ranks; why every rank was simulated ("" when
 * a symmetric mode ran, or when symmetry was off). */
const char *cs_result_symmetry(const cs_result *r, uint32_t *simulated_ranks, const char **why);

void cs_result_free(cs_result *r);

/* ---- the command line ---------------------------------------------------------- */

/* Run one clustersim command, e.g. {"clustersim", "run", "--scenario",
 * "s.json", "--quiet", "--out", "results", NULL}.  Returns the exit status
 * the program would: 0 success, 1 bad input or simulation error (message on
 * stderr), 2 usage error. */
int clustersim_main(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
