/*
 * cli_int.h -- private interface between the CLI's files.
 */
#ifndef CS_CLI_CLI_INT_H
#define CS_CLI_CLI_INT_H

#include <jansson.h>

#include "config/comm_group.h"
#include "config/network_config.h"
#include "config/system_config.h"
#include "core/error.h"
#include "workload/sim.h"

typedef struct cs_run_opts {
    const char *workload, *network, *system, *memory, *comm_group, *logging_cfg, *logging_folder;
    long num_queues_per_dim;
    double compute_scale, comm_scale, injection_scale;
    const char *rendezvous;
    const char *backend, *out, *json, *trace, *symmetry;
    const char *topology; /* --topology FILE (flow backend; topology_file.h) */
    const char *placement; /* --placement STRATEGY (flow backend; topology/placement.c) */
    long comm_streams;
    int ignore_ctrl_deps, allow_missing_data_deps, quiet, verbose, no_progress, help, help_config;
    int compare_healthy; /* --compare-healthy: also run the topology without failures/degradation */
} cs_run_opts;

int cs_cli_parse_run(int argc, char **argv, cs_run_opts *ro);
int cs_cli_run(int argc, char **argv);
int cs_cli_inspect(int argc, char **argv);
/* cli_generate.c: model + plan -> traces (generate) or a simulated step (train). */
int cs_cli_generate(int argc, char **argv);
int cs_cli_train(int argc, char **argv);
/* Read --system-configuration (if any; else the defaults) into *sc and
 * --comm-group-configuration (if not "empty") into *groups, check them
 * against the network, point the simulation options at them (with
 * --injection-scale) and add the effective values to config["system"] and
 * config["comm_groups"].  The caller owns *sc and *groups (zeroed before the
 * call) and frees them with cs_system_config_free / cs_comm_groups_free
 * after the run, also on failure. */
int cs_cli_apply_system(const cs_run_opts *ro, const cs_network_config *net, cs_sim_options *so,
                        cs_system_config *sc, cs_comm_groups *groups, json_t *config, cs_error *err);

#endif
