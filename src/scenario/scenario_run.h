/*
 * scenario_run.h -- private to src/scenario: the effective sections of a
 * scenario (scenario.c) as the composition (scenario_run.c) uses them.
 * Each returns CS_OK or a located error; the caller frees what it gets.
 */
#ifndef CS_SCENARIO_SCENARIO_RUN_H
#define CS_SCENARIO_SCENARIO_RUN_H

#include "config/comm_group.h"
#include "config/memory_config.h"
#include "config/network_config.h"
#include "config/system_config.h"
#include "scenario/scenario_int.h"

int cs_sc_parse_typed(const cs_scenario *sc, int section, void *out, cs_error *err);
/* Room for any typed section's parameters: cs_sc_parse_typed's out when the
 * section is only known at run time (every SC_RUN .. SC_LAST_TYPED type
 * belongs here). */
typedef union cs_sc_typed_any {
    cs_run_params r;
    cs_plan_params p;
    cs_model_params m;
    cs_device_params d;
    cs_cost_params c;
    cs_ingest_params i;
    cs_serve_params v;
} cs_sc_typed_any;
void cs_sc_free_typed(int section, void *p);
int cs_sc_network(const cs_scenario *sc, cs_network_config *out, cs_error *err);
/* *given = 1 when system.* keys were set or loaded. */
int cs_sc_system(const cs_scenario *sc, cs_system_config *out, int *given, cs_error *err);
/* The system configuration a run uses: the system.* keys, or the defaults
 * of the workload (generated plans: cs_sc_plan_system with the plan, its
 * device and the network, cs_gen_system_for). */
int cs_sc_effective_system(const cs_scenario *sc, cs_system_config *out, cs_error *err);
/* A generated plan's system: the generator's defaults for plan p of device
 * dev on network net (cs_gen_system_for: the nccl model where it can express
 * the run, else astra with a note on stderr saying why, unless a key sets
 * collective-model; net, dev or p NULL: the astra defaults of one
 * dimension, for checking keys) with the system keys given without a file
 * over them (e.g. --set system.collective-model=astra); a system file is
 * read as it is, complete on its own. */
struct cs_device;
struct cs_gen_plan;
int cs_sc_plan_system(const cs_scenario *sc, const cs_network_config *net, const struct cs_device *dev,
                      const struct cs_gen_plan *p, cs_system_config *out, cs_error *err);
int cs_sc_memory(const cs_scenario *sc, cs_memory_config *out, cs_error *err);
/* run.slow-ranks (key "run.slow-ranks", fmax 1000) or run.slow-nics ("run.slow-nics", fmax 1): the
 * spec "R[-R]:F,..." into a factor per rank of n, F in (0, fmax] for the ranks named (a later item
 * wins), 1 for the others; *out (cs_malloc'd, n entries) NULL when spec is NULL.  A refusal is
 * CS_EINVAL, its message starting with the key. */
int cs_sc_slow_ranks(const char *key, const char *spec, double fmax, uint32_t n, double **out, cs_error *err);
int cs_sc_groups(const cs_scenario *sc, cs_comm_groups *out, cs_error *err);
int cs_sc_groups_given(const cs_scenario *sc);
/* The model: model.name (preset or file; NULL = none) with the
 * model.FAMILY.* keys set over it, or a model from those keys alone. */
struct cs_gen_model;
int cs_sc_model(const cs_scenario *sc, const char *name, struct cs_gen_model *m, cs_error *err);
/* The physical topology of topology.* built for net (*out NULL when the
 * section is empty: no topology given). */
struct cs_topo;
int cs_sc_topology(const cs_scenario *sc, const cs_network_config *net, struct cs_topo **out, cs_error *err);
/* Where topology.* came from, for messages: the file, or "topology.*". */
const char *cs_sc_topology_label(const cs_scenario *sc);
/* Warn for each network dimension whose bandwidth the explicit topology t
 * does not give (rank 0 and its neighbour in the dimension, their route's
 * bottleneck off by more than 2x). */
void cs_sc_warn_dims_vs_topology(const struct cs_network_config *net, const struct cs_topo *t);
/* The options of backend be from backend.<name>.* (defaults for the keys not
 * set); *out is a cs_malloc'd struct of be->opts_size bytes (NULL when the
 * backend has no options).  Free with cs_sc_backend_opts_free. */
struct cs_net_backend;
int cs_sc_backend_opts(const cs_scenario *sc, const struct cs_net_backend *be, void **out, cs_error *err);
void cs_sc_backend_opts_free(const struct cs_net_backend *be, void *opts);

#endif
