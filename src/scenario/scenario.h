/*
 * scenario.h -- the scenario layer: one fully described simulation, its
 * option namespace, and the composition that runs it (internal view of the
 * API in include/clustersim/clustersim.h).
 *
 * A cs_scenario keeps every section of the namespace as JSON (the effective
 * values after each set or load): typed sections (run, plan, model, device)
 * are declared with the option engine (core/opts.h) in scenario_keys.c; the
 * ASTRA-sim sections (network, system, memory, comm-groups) are checked by
 * their own readers (src/config).  cs_scenario_run_hooked composes a run:
 * network dimensions, physical topology and placement (graph backends),
 * system and memory configurations, communicator groups, the workload
 * (traces, or a generated plan in memory), the symmetry policy with its
 * fallback (engine.h), then fills a cs_result (result.h).  The CLI's `run`
 * and `train` are front ends over this one call.
 *
 * Ownership: the scenario owns its JSON; a result owns everything it refers
 * to (it may outlive the scenario).
 */
#ifndef CS_SCENARIO_SCENARIO_H
#define CS_SCENARIO_SCENARIO_H

#include <stdio.h>

#include "clustersim/clustersim.h"
#include "core/error.h"

struct cs_cost_params; /* cost/cost.h */
#include "core/time.h"
#include "scenario/coll_agg.h"
#include "scenario/engine.h"

/* Observers a front end attaches to one run (all optional). */
typedef struct cs_run_hooks {
    const cs_exec_observer *observer;    /* node spans (the timeline) */
    cs_coll_row_fn coll_row;            /* every collective instance as it completes */
    void *coll_ud;                      /* (output/collectives.h streams them to files) */
    void (*link_util)(void *ud, uint32_t link, cs_time t, double util); /* graph backends */
    void *link_ud;
    void (*link_queue)(void *ud, uint32_t link, cs_time t, uint64_t queue_bytes, int paused); /* packet; link_ud */
    void (*net_message)(void *ud, uint32_t src_npu, uint32_t dst_npu, uint64_t bytes); /* every transfer */
    void *net_message_ud;
    int progress;                       /* progress lines on stderr for long runs */
    uint32_t progress_ms;               /* their interval (wall time; checked every 65,536 events) */
    int no_collectives;                 /* 1 = keep no collective records (a front end that
                                           reports none; saves their cost on big plans) */
    const volatile sig_atomic_t *stop;  /* nonzero: stop the run (CS_EINTR); see engine.h */
    uint32_t threads;                   /* the full simulation's threads (0, 1 = sequential; engine.h) */
    uint32_t par_min_events;            /* engine.h's par_min_events (the CLI's --parallel-min-events;
                                           0: never go back to one thread for a low yield) */
    int check_only;                     /* 1 = load and check, simulate nothing: every section read and
                                           checked, the topology built, the backend created (its own
                                           checks, cs_engine_check), the cost inputs read; then CS_OK with
                                           *out NULL.  The workload itself is not read: run.workload's
                                           traces are not opened and a plan is checked (shape, memory)
                                           but not generated; a caller's (cs_run_inputs) is checked
                                           against the network (clustersim cluster --check) */
} cs_run_hooks;

int cs_scenario_run_hooked(cs_scenario *sc, const cs_run_hooks *hooks, cs_result **out, cs_error *err);

/* A workload composed by the caller (several jobs on one cluster,
 * scenario/cluster.h) instead of run.workload or a plan: the ranks' graphs
 * and communicator groups in the network's numbering, and when each rank
 * starts.  All borrowed.  The scenario then has neither run.workload nor
 * model.name nor comm-groups keys, and run.placement stays contiguous. */
typedef struct cs_run_inputs {
    const cs_workload *workload;
    const cs_comm_groups *groups;   /* NULL = none */
    const cs_time *rank_start;      /* per rank (NULL = every rank at 0) */
    const uint8_t *rank_tclass;     /* per rank: its messages' traffic class (NULL = the messages') */
    int plan_defaults;              /* 1 = the generator's system (without system.* keys) and 4 comm streams
                                       (without run.comm-streams), as for a generated plan */
    const struct cs_device *plan_device; /* plan_defaults: the generated jobs' device when they share one
                                            (the nccl model's GPU generation), NULL when they differ */
    const char *label;              /* the workload, as reports name it */
} cs_run_inputs;
int cs_scenario_run_with(cs_scenario *sc, const cs_run_inputs *in, const cs_run_hooks *hooks, cs_result **out,
                         cs_error *err);

/* A copy with every key and label of sc (for many runs from one base). */
cs_scenario *cs_scenario_copy(const cs_scenario *sc);
/* Set a key from a JSON value (the scenario file and the CLI go through
 * this); where names the origin for messages ("--set", a file). */
int cs_scenario_set_json(cs_scenario *sc, const char *key, json_t *value, const char *where, cs_error *err);
/* The generator's inputs of a plan scenario from plan.*, model.*, device.*,
 * checked (plan and memory); CS_EINVAL naming the key. */
struct cs_gen_model;
struct cs_device;
struct cs_gen_plan;
int cs_scenario_plan(const cs_scenario *sc, struct cs_gen_model *m, struct cs_device *d, struct cs_gen_plan *p,
                     cs_error *err);
/* The inputs of plan estimates (search): model, device and plan as
 * cs_scenario_plan reads them but unchecked, the network (network.*) and
 * the effective system configuration; the caller frees *net and *sys
 * (cs_network_config_free, cs_system_config_free). */
struct cs_network_config;
struct cs_system_config;
int cs_scenario_plan_inputs(const cs_scenario *sc, struct cs_gen_model *m, struct cs_device *d, struct cs_gen_plan *p,
                            struct cs_network_config *net, struct cs_system_config *sys, cs_error *err);
/* Set a key from text as --set gives it (see cs_scenario_set). */
/* The serve.* keys (clustersim serve; docs/inference.md): the workload of a
 * serving run over the plan's prefill and decode steps. */
enum { CS_ARRIVALS_POISSON = 0, CS_ARRIVALS_UNIFORM = 1 };
typedef struct cs_serve_params {
    int batch;            /* sequences per batch and DP rank */
    int prompt_tokens;    /* P: prompt tokens per request */
    int output_tokens;    /* O: tokens generated per request (the first by the prefill) */
    int requests;         /* requests of the arrival process (0 = one full batch at time 0) */
    double arrival_rate;  /* requests/s */
    int arrivals;         /* CS_ARRIVALS_* */
    int seed;             /* of the Poisson arrivals */
} cs_serve_params;
int cs_scenario_serve_params(const cs_scenario *sc, cs_serve_params *out, cs_error *err);
/* The cost.* keys of sc (their defaults where not set). */
int cs_scenario_cost_params(const cs_scenario *sc, struct cs_cost_params *out, cs_error *err);
int cs_sc_set_text(cs_scenario *sc, const char *key, const char *text, const char *where, cs_error *err);
/* A batch of sets (a command line's flags, a sweep point's values): the
 * keys of the network and memory sections, which only make sense together
 * (network.topology with npus_count, bandwidth and latency; memory-type
 * with the keys it requires), may be set one at a time in any order.  Each
 * set still checks its key's name; a network or memory section its sets
 * leave inconsistent is checked once more at cs_sc_batch_end, which names
 * the batch's last set of the key the section's error is about (or, when
 * none set it, the section's first set whose check failed).  Every other
 * key, and a file loaded during the batch, is checked at once as outside
 * one. */
void cs_sc_batch_begin(cs_scenario *sc);
int cs_sc_batch_end(cs_scenario *sc, cs_error *err);
/* Load/dump with located errors. */
int cs_scenario_load_file(cs_scenario *sc, const char *path, cs_error *err);
int cs_scenario_load_kind(cs_scenario *sc, const char *kind, const char *path, cs_error *err);
/* The effective scenario as JSON (new reference); paths made absolute. */
json_t *cs_scenario_to_json(const cs_scenario *sc, cs_error *err);
int cs_scenario_dump_file(const cs_scenario *sc, const char *path, cs_error *err);
/* 1 = the workload is a generated plan (model.name is set). */
int cs_scenario_is_plan(const cs_scenario *sc);
/* The NPUs of the scenario's network (the product of npus_count), 0 when
 * it has none or one its reader refuses (the run says why). */
uint64_t cs_scenario_npus(const cs_scenario *sc);
/* The symmetric axes class mode uses for plan p on the scenario's network
 * (cs_gen_sym_axes cut by cs_sym_axes_fit); returns their number, 0 = none. */
int cs_scenario_class_axes(const cs_scenario *sc, const struct cs_gen_plan *p, struct cs_sym_axes *ax);
/* Every key of the namespace with type, unit, default and help. */
void cs_scenario_print_help(FILE *f);

#endif
