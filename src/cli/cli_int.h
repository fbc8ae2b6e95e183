/*
 * cli_int.h -- private interface between the CLI's files.
 */
#ifndef CS_CLI_CLI_INT_H
#define CS_CLI_CLI_INT_H

#include <jansson.h>

#include "core/error.h"
#include "workload/sim.h"

typedef struct cs_run_opts {
    const char *workload, *network, *system, *memory, *comm_group, *logging_cfg, *logging_folder;
    long num_queues_per_dim;
    double compute_scale, comm_scale, injection_scale;
    const char *rendezvous;
    const char *backend, *out, *json, *trace;
    long comm_streams;
    int ignore_ctrl_deps, allow_missing_data_deps, quiet, verbose, no_progress, help;
} cs_run_opts;

int cs_cli_parse_run(int argc, char **argv, cs_run_opts *ro);
int cs_cli_run(int argc, char **argv);
int cs_cli_inspect(int argc, char **argv);
/* Read --system-configuration (if any) into the simulation options and add
 * its effective values to config["system"]. */
int cs_cli_apply_system(const cs_run_opts *ro, cs_sim_options *so, json_t *config, cs_error *err);

#endif
