/*
 * cli_int.h -- private interface between the CLI's files.
 */
#ifndef CS_CLI_CLI_INT_H
#define CS_CLI_CLI_INT_H

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
int cs_cli_bandwidth(int argc, char **argv);
int cs_cli_collective(int argc, char **argv);
/* An integer in [lo, hi] (0), else -1 (the caller names the flag). */
/* Commands with their own option parsers (search, collective): every
 * --scenario FILE loaded in order before the other flags (0, or 1 with the
 * message printed); and the platform flags --set KEY=VALUE,
 * --network-configuration, --system-configuration, --topology FILE and
 * --backend NAME applied to sc: -1 when name is none of them, else 0, 1
 * (refused, message printed) or 2 (usage, message printed). */
int cs_cli_preload_scenarios(cs_scenario *sc, int argc, char **argv);
int cs_cli_platform_flag(cs_scenario *sc, const char *cmd, const char *name, const char *val);
/* The exit status of a command that ran under cs_cli_trap_stop: 0 for
 * CS_OK; for CS_EINTR err's message and `stopped` ("" or "; no table
 * written") on stderr and 128 + sig (SIGINT when 0), as a shell reports a
 * signal; else "clustersim: error: " and err's message, and 1. */
int cs_cli_exit(int rc, const cs_error *err, int sig, const char *stopped);
int cs_cli_parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out);
/* SIGINT and SIGTERM to on_stop (sa_flags flags), the old actions kept;
 * and back. */
struct sigaction;
void cs_cli_trap_stop(void (*on_stop)(int), int flags, struct sigaction *old_int, struct sigaction *old_term);
void cs_cli_untrap_stop(const struct sigaction *old_int, const struct sigaction *old_term);
/* --progress SECONDS as milliseconds; -1 after printing the error. */
int cs_cli_progress_ms(const char *text, uint32_t *ms);
/* generate: write the plan of sc as PREFIX.* files (cli_generate.c). */
int cs_cli_generate_files(cs_scenario *sc, const char *prefix, int quiet, cs_error *err);
/* The plan as the reports print it (model, plan, placement, device, memory). */

#endif
