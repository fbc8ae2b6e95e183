/*
 * cli_int.h -- private interface between the CLI's files.
 */
#ifndef CS_CLI_CLI_INT_H
#define CS_CLI_CLI_INT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/error.h"
#include "scenario/scenario.h"
#include "gen/gen.h"

int cs_cli_run(int argc, char **argv);
int cs_cli_train(int argc, char **argv);
int cs_cli_generate(int argc, char **argv);
int cs_cli_inspect(int argc, char **argv);
int cs_cli_sweep(int argc, char **argv);
int cs_cli_search(int argc, char **argv);
int cs_cli_serve(int argc, char **argv);
int cs_cli_bandwidth(int argc, char **argv);
int cs_cli_collective(int argc, char **argv);
int cs_cli_cluster(int argc, char **argv);
int cs_cli_synth(int argc, char **argv);
int cs_cli_rescale(int argc, char **argv);
int cs_cli_partition(int argc, char **argv);
/* Commands with their own option parsers (search, collective): every
 * --scenario FILE loaded in order before the other flags (0, or 1 with the
 * message printed); and the platform flags --set KEY=VALUE,
 * --network-configuration, --system-configuration, --topology FILE,
 * --backend NAME and --astra-binary NAME applied to sc (the preload also
 * runs cs_cli_astra_prescan): -1 when name is none of them, else 0, 1
 * (refused, message printed) or 2 (usage, message printed). */
int cs_cli_preload_scenarios(cs_scenario *sc, int argc, char **argv);
int cs_cli_platform_flag(cs_scenario *sc, const char *cmd, const char *name, const char *val);
/* Migration from ASTRA-sim's command lines (cli_astra.c).  The backend an
 * ASTRA-sim binary name (or path) stands for, or NULL with the message (what
 * to use instead for ns-3, HTSim, Garnet; the accepted names otherwise) in
 * msg. */
const char *cs_cli_astra_backend(const char *binary, char *msg, size_t n);
/* Before any flag is applied: --astra-binary NAME checked and compared with
 * --backend / --set run.backend=: CS_OK, or CS_EINVAL with the message in
 * err (naming both flags). */
int cs_cli_astra_prescan(int argc, char **argv, cs_error *err);
/* A flag of ASTRA-sim's ns-3 or HTSim frontends (name: len bytes, without
 * the dashes): CS_EINVAL with what to use instead in err; else CS_OK. */
int cs_cli_astra_foreign_flag(const char *name, size_t len, cs_error *err);
/* Warn when an input file's path suggests the other analytical backend
 * (.../congestion_aware/... on the congestion-unaware backend, and back). */
void cs_cli_astra_hints(const cs_scenario *sc, int argc, char **argv);
/* The exit status of a command that ran under cs_cli_trap_stop: 0 for
 * CS_OK; for CS_EINTR err's message and `stopped` ("" or "; no table
 * written") on stderr and 128 + sig (SIGINT when 0), as a shell reports a
 * signal; else "clustersim: error: " and err's message, then its detail
 * text if any (core/error.h), and 1. */
int cs_cli_exit(int rc, const cs_error *err, int sig, const char *stopped);
/* An integer in [lo, hi] (0), else -1 (the caller names the flag). */
int cs_cli_parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out);
/* Commands with their own option parsers (sweep, search, collective): the
 * argument a as a flag name (into name, n bytes) and the value given after
 * '=' in "--name=value" (*val; NULL without one) ... */
void cs_cli_split_flag(const char *a, char *name, size_t n, const char **val);
/* ... and, for a flag that takes a value and got none after '=', the next
 * argument (*i advanced): 0, or 2 after "clustersim CMD: NAME needs a value
 * (see --help)" when there is none -- or, when usage_fn is given and its text
 * does not name the flag, after "clustersim CMD: unknown option NAME" (a
 * misspelt last flag is not one missing its value). */
int cs_cli_flag_value(int argc, char **argv, int *i, const char *cmd, void (*usage_fn)(FILE *), const char *name,
                      const char **val);
/* The stop flag of a long command (sweep, search, bandwidth, collective):
 * cs_cli_stop_begin clears it and has SIGINT and SIGTERM set it to the
 * signal (for the options' `stop`); cs_cli_stop_end puts the old actions
 * back.  The flag keeps the signal for cs_cli_exit. */
typedef struct cs_cli_stop {
    struct sigaction old_int, old_term;
} cs_cli_stop;
volatile sig_atomic_t *cs_cli_stop_begin(cs_cli_stop *st);
void cs_cli_stop_end(cs_cli_stop *st);
/* SIGINT and SIGTERM to on_stop (sa_flags flags), the old actions kept;
 * and back (run and train, with their own flag and alarm). */
void cs_cli_trap_stop(void (*on_stop)(int), int flags, struct sigaction *old_int, struct sigaction *old_term);
void cs_cli_untrap_stop(const struct sigaction *old_int, const struct sigaction *old_term);
/* --progress SECONDS as milliseconds; -1 after printing the error. */
int cs_cli_progress_ms(const char *text, uint32_t *ms);
/* generate: write the plan of sc as PREFIX.* files (cli_generate.c); SIGINT or
 * SIGTERM stops it (CS_EINTR, *sig the signal), the files removed. */
int cs_cli_generate_files(cs_scenario *sc, const char *prefix, int quiet, int *sig, cs_error *err);
/* The plan as the reports print it (model, plan, placement, device, memory). */

#endif
