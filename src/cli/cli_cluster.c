/*
 * cli_cluster.c -- `clustersim cluster FILE`: several jobs on one cluster
 * (src/scenario/cluster.h; docs/cluster.md).
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli_int.h"
#include "core/opts.h"
#include "core/afile.h"
#include "output/cluster_out.h"
#include "scenario/cluster.h"

static void cluster_usage(FILE *f) {
    fputs("usage: clustersim cluster FILE.json [options]\n\n"
          "Several jobs on one cluster (docs/cluster.md): the file names the platform (scenario, set) and the jobs\n"
          "(Chakra traces or generated plans, each with its NPUs or a placement policy, a start time and\n"
          "iterations).  Each job runs alone on the cluster at its place, then all run together on the shared\n"
          "fabric; the report gives each job's time alone and shared, the slowdown, and the links they share.\n"
          "The file's keys: clustersim-cluster (1), scenario, network, system, topology, memory, set, jobs, and\n"
          "optionally operations (drains, failures, flaps in every run), windows (candidate maintenance windows,\n"
          "ranked), routings (ecmp, spray, qp[:N], te compared) and seeds (every run over N ECMP/jitter seeds).\n\n"
          "options:\n"
          "  --out DIR          jobs.csv, iterations.csv, interference.csv, cluster.json, links.csv, ranks.csv,\n"
          "                     and with windows or routings windows.csv, routing.csv, routing_links.csv\n"
          "  --json FILE        cluster.json alone\n"
          "  --set KEY=VALUE    a platform key (run.*, network.*, topology.*, system.*, backend.*), after the file\n"
          "  --network-configuration=FILE, --system-configuration=FILE, --topology=FILE, --backend NAME,\n"
          "  --astra-binary NAME (ASTRA-sim's binary name for the backend; docs/astra-compat.md)\n"
          "  --seeds N          every run with N ECMP-hash and jitter seeds: means with 95 % intervals (1..1000)\n"
          "  --check            load and check everything the runs use -- the platform, each job's traces or plan\n"
          "                     (generated), placements, operations, windows, routings, the backend and its options\n"
          "                     -- then print one line (ok: jobs, NPUs, backend) and stop: nothing simulated, no\n"
          "                     file written (--out and --json are not touched); exit 0, or 1 with the error\n"
          "  --progress         say which run is going (each job alone, then together)\n"
          "  --quiet, --help    (--quiet: no report, and with --check no ok line)\n",
          f);
}

/* fn (cs_cluster_run or cs_cluster_check) on c with Ctrl-C stopping it;
 * *sig the signal that stopped it (0 = none). */
static int with_stop(int (*fn)(cs_cluster *, const cs_run_hooks *, cs_error *), cs_cluster *c, int progress,
                     int *sig, cs_error *err) {
    cs_cli_stop st;
    cs_run_hooks hooks;
    memset(&hooks, 0, sizeof hooks);
    hooks.progress = progress;
    hooks.stop = cs_cli_stop_begin(&st);
    int r = fn(c, &hooks, err);
    *sig = (int)*hooks.stop;
    cs_cli_stop_end(&st);
    return r;
}

/* --check: what the runs would load and check, one line, no file (frees c). */
static int cluster_check(cs_cluster *c, int progress, int quiet) {
    cs_error err;
    cs_error_clear(&err);
    int sig;
    int r = with_stop(cs_cluster_check, c, progress, &sig, &err);
    if (r == CS_OK && !quiet) {
        printf("ok: %s: %zu job%s on %" PRIu64 " of the cluster's %" PRIu64 " NPUs (", c->path, c->njobs,
               c->njobs == 1 ? "" : "s", c->allocated, c->npus);
        for (size_t j = 0; j < c->njobs && j < 8; j++)
            printf("%s%s %u", j ? ", " : "", c->jobs[j].name, c->jobs[j].npus);
        printf("%s), backend %s", c->njobs > 8 ? ", ..." : "", c->backend);
        if (c->nwindows) printf(", %zu window%s", c->nwindows, c->nwindows == 1 ? "" : "s");
        if (c->nroutings) printf(", %zu routing%s", c->nroutings, c->nroutings == 1 ? "" : "s");
        if (c->seeds > 1) printf(", %u seeds", c->seeds);
        printf("; nothing simulated\n");
    }
    cs_cluster_free(c);
    return cs_cli_exit(r, &err, sig, "; nothing checked after it");
}

int cs_cli_cluster(int argc, char **argv) {
    const char *file = NULL, *out = NULL, *json = NULL;
    int quiet = 0, progress = 0, check = 0, rc = 0;
    /* the file first: the flags edit its platform */
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            cluster_usage(stdout);
            return 0;
        }
        if (argv[i][0] != '-' && !file && (i == 0 || argv[i - 1][0] != '-' || strchr(argv[i - 1], '=') ||
                                           strcmp(argv[i - 1], "--quiet") == 0 ||
                                           strcmp(argv[i - 1], "--progress") == 0 ||
                                           strcmp(argv[i - 1], "--check") == 0))
            file = argv[i];
    }
    if (!file) {
        fprintf(stderr, "clustersim cluster: expected a cluster file (clustersim cluster FILE.json; see --help)\n");
        return 2;
    }
    cs_error err;
    cs_error_clear(&err);
    cs_cluster *c = NULL;
    if (cs_cli_astra_prescan(argc, argv, &err) || cs_cluster_load(file, &c, &err)) {
        fprintf(stderr, "clustersim: error: %s\n", err.msg);
        return 1;
    }
    for (int i = 0; i < argc && rc == 0; i++) {
        char name[64];
        const char *a = argv[i], *val;
        if (a == file) continue;
        cs_cli_split_flag(a, name, sizeof name, &val);
        int flagonly = strcmp(name, "--quiet") == 0 || strcmp(name, "--progress") == 0 || strcmp(name, "--check") == 0;
        if (a[0] != '-' || !a[1]) {
            fprintf(stderr, "clustersim cluster: unexpected argument \"%s\" (see --help)\n", a);
            rc = 2;
            break;
        }
        if (flagonly && val) {
            fprintf(stderr, "clustersim cluster: %s takes no value\n", name);
            rc = 2;
            break;
        }
        static const char *const known[] = {"--quiet", "--progress", "--check", "--out", "--json", "--set", "--seeds",
                                            "--network-configuration", "--system-configuration", "--topology",
                                            "--backend", "--astra-binary"};
        if (cs_str_index(name, known, sizeof known / sizeof *known) < 0) {
            fprintf(stderr, "clustersim cluster: unknown option %s (see clustersim cluster --help)\n", a);
            rc = 2;
            break;
        }
        if (!flagonly && (rc = cs_cli_flag_value(argc, argv, &i, "cluster", NULL, name, &val)) != 0) break;
        int pf = cs_cli_platform_flag(c->sc, "cluster", name, val);
        if (pf >= 0) rc = pf;
        else if (strcmp(name, "--quiet") == 0) quiet = 1;
        else if (strcmp(name, "--progress") == 0) progress = 1;
        else if (strcmp(name, "--check") == 0) check = 1;
        else if (strcmp(name, "--out") == 0) out = val;
        else if (strcmp(name, "--json") == 0) json = val;
        else if (strcmp(name, "--seeds") == 0) {
            if (cs_cli_parse_u32(val, 1, CS_CLUSTER_MAX_SEEDS, &c->seeds)) {
                fprintf(stderr, "clustersim: error: --seeds '%s': expected an integer from 1 to %u\n", val,
                        CS_CLUSTER_MAX_SEEDS);
                rc = 1;
            }
        }
        else {
            fprintf(stderr, "clustersim cluster: unknown option %s (see clustersim cluster --help)\n", a);
            rc = 2;
        }
    }
    if (rc == 0 && out && json) {
        char p[4096];
        snprintf(p, sizeof p, "%s/cluster.json", out);
        if (strcmp(p, json) == 0) {
            fprintf(stderr, "clustersim: error: --json %s: the file --out writes too; expected another file\n", json);
            rc = 1;
        }
    }
    if (rc) {
        cs_cluster_free(c);
        return rc;
    }
    if (check) return cluster_check(c, progress, quiet);
    if (out) cs_cluster_out_remove(out); /* a failed run leaves no earlier results behind */
    if (json) cs_remove_output(json);
    int sig;
    int r = with_stop(cs_cluster_run, c, progress, &sig, &err);
    if (r == CS_OK && out) r = cs_cluster_out_write(c, out, &err);
    if (r == CS_OK && json) {
        json_t *j = cs_cluster_json(c);
        r = cs_write_json_atomic(json, j, &err);
        json_decref(j);
        if (r && out) cs_cluster_out_remove(out);
    }
    if (r == CS_OK && !quiet) cs_cluster_print(c, stdout);
    cs_cluster_free(c);
    return cs_cli_exit(r, &err, sig, "; no results written");
}
