/*
 * cli_sweep.c -- `clustersim sweep SPEC`: the command line of the sweep
 * (src/sweep/sweep.h; docs/sweep.md).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_int.h"
#include "core/opts.h"
#include "sweep/sweep.h"

static void sweep_usage(FILE *f) {
    fputs("usage: clustersim sweep SPEC --out DIR [options]\n\n"
          "Runs every point of the design in SPEC (a JSON file: a base scenario, fixed keys, and the keys\n"
          "that vary over a grid, zipped lists, random samples and seeds; docs/sweep.md) and writes\n"
          "DIR/results.csv and DIR/results.jsonl (every knob and every metric per point) and, with seeds,\n"
          "DIR/summary.csv (mean, min, max, 95 % confidence interval per design point).  Finished points\n"
          "are logged in DIR as they complete; running the same command again skips them.\n"
          "Across machines: mpiexec -n N clustersim sweep SPEC --out DIR.\n\n"
          "options:\n"
          "  --out DIR          output directory (required)\n"
          "  -j N, --jobs N     worker processes (default: the number of CPUs)\n"
          "  --shard I/N        run only the points with index % N == I (Slurm job arrays); --merge after\n"
          "  --merge            run nothing: rebuild the results from every log in DIR\n"
          "  --retry-failed     run again the points whose logged run failed\n"
          "  --list             print the points (index, id, knob values) and stop\n"
          "  --objective M      the summary's best points by metric M, minimized (max:M maximizes; default\n"
          "                     time_ns), e.g. energy_per_item_j, cost_per_step_usd, max:throughput\n"
          "  --pareto M1,M2,... write DIR/pareto.csv: the points no other point beats in every one of these\n"
          "                     metrics (each minimized, max:M maximized; with seeds, their means)\n"
          "  --point-max-wall S stop a point's worker after S seconds of wall time: the point is a row with\n"
          "                     status error and the reason (-j workers; not on MPI)\n"
          "  --report FILE      a self-contained HTML page: the objective's heatmap over two knobs, the Pareto\n"
          "                     front, the best points (inline SVG; FILE less .html + .<chart>.svg too)\n"
          "  --quiet            no summary at the end\n"
          "  --progress SECONDS progress lines at most this often (default 2); --no-progress: none\n"
          "  --help             this help\n",
          f);
}



int cs_cli_sweep(int argc, char **argv) {
    cs_sweep_options o;
    memset(&o, 0, sizeof o);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    o.jobs = ncpu > 1024 ? 1024 : ncpu > 0 ? (uint32_t)ncpu : 1;
    o.nshards = 1;
    o.progress = 1;
    o.progress_ms = 2000;
    o.report = stdout;
    const char *spec = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *val;
        char name[64];
        cs_cli_split_flag(a, name, sizeof name, &val);
        int needs = strcmp(name, "--out") == 0 || strcmp(name, "-j") == 0 || strcmp(name, "--jobs") == 0 ||
                    strcmp(name, "--shard") == 0 || strcmp(name, "--progress") == 0 ||
                    strcmp(name, "--objective") == 0 || strcmp(name, "--pareto") == 0 ||
                    strcmp(name, "--report") == 0 || strcmp(name, "--point-max-wall") == 0;
        if (needs && cs_cli_flag_value(argc, argv, &i, "sweep", NULL, name, &val)) return 2;
        if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
            sweep_usage(stdout);
            return 0;
        } else if (strcmp(name, "--out") == 0) {
            o.out_dir = val;
        } else if (strcmp(name, "-j") == 0 || strcmp(name, "--jobs") == 0) {
            if (cs_cli_parse_u32(val, 1, 1024, &o.jobs)) {
                fprintf(stderr, "clustersim: error: %s '%s': expected a number of worker processes from 1 to 1024\n",
                        name, val);
                return 1;
            }
        } else if (strcmp(name, "--shard") == 0) {
            char buf[64];
            snprintf(buf, sizeof buf, "%s", val);
            char *slash = strchr(buf, '/');
            if (slash) *slash = '\0';
            if (!slash || cs_cli_parse_u32(buf, 0, 1000000, &o.shard) ||
                cs_cli_parse_u32(slash + 1, 1, 1000000, &o.nshards) || o.shard >= o.nshards) {
                fprintf(stderr, "clustersim: error: --shard '%s': expected I/N with 0 <= I < N <= 1000000 (e.g. "
                                "--shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT)\n",
                        val);
                return 1;
            }
        } else if (strcmp(name, "--progress") == 0) {
            if (cs_cli_progress_ms(val, &o.progress_ms) != 0) return 1;
        } else if (strcmp(name, "--objective") == 0 || strcmp(name, "--pareto") == 0) {
            cs_error e;
            cs_error_clear(&e);
            int po = strcmp(name, "--pareto") == 0;
            size_t n = 0;
            cs_objective obj[CS_MAX_OBJECTIVES];
            int rc = cs_objectives_parse(val, name, po ? o.pareto : obj, po ? &o.npareto : &n, &e);
            if (rc == CS_OK && po && o.npareto < 2)
                rc = CS_ERR(&e, CS_EINVAL, "--pareto %s: expected two or more metrics (one is --objective)", val);
            if (rc == CS_OK && !po && n != 1)
                rc = CS_ERR(&e, CS_EINVAL, "--objective %s: expected one metric (several: --pareto)", val);
            if (rc) {
                fprintf(stderr, "clustersim: error: %s\n", e.msg);
                return 1;
            }
            if (!po) {
                o.objective = obj[0];
                o.has_objective = 1;
            }
        } else if (strcmp(name, "--point-max-wall") == 0) {
            char *end;
            double x = strtod(val, &end);
            if (end == val || *end || !(x > 0 && x <= 1e9)) {
                fprintf(stderr, "clustersim: error: --point-max-wall '%s': expected seconds of wall time, > 0\n", val);
                return 1;
            }
            o.point_max_wall_s = x;
        } else if (strcmp(name, "--report") == 0) {
            o.report_html = val;
        } else if (strcmp(name, "--no-progress") == 0) {
            o.progress = 0;
        } else if (strcmp(name, "--merge") == 0) {
            o.merge_only = 1;
        } else if (strcmp(name, "--retry-failed") == 0) {
            o.retry_failed = 1;
        } else if (strcmp(name, "--list") == 0) {
            o.list = 1;
        } else if (strcmp(name, "--quiet") == 0) {
            o.report = NULL;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "clustersim sweep: unknown option %s (see clustersim sweep --help)\n", a);
            return 2;
        } else if (!spec) {
            spec = a;
        } else {
            fprintf(stderr, "clustersim sweep: one SPEC expected, got %s and %s\n", spec, a);
            return 2;
        }
    }
    if (!spec) {
        sweep_usage(stderr);
        return 2;
    }
    if (!o.out_dir && !o.list) {
        fprintf(stderr, "clustersim sweep: --out DIR is required (where the log and the results go)\n");
        return 2;
    }
    if (o.list) o.report = stdout;
    cs_cli_stop st;
    o.stop = cs_cli_stop_begin(&st);
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_sweep(spec, &o, &err);
    cs_cli_stop_end(&st);
    if (rc == CS_EINTR) {
        if (strstr(err.msg, "checking the points"))
            fprintf(stderr, "clustersim: %s; nothing ran\n", err.msg);
        else
            fprintf(stderr,
                    "clustersim: %s; the results of the points done are in %s; run the same command to go on\n",
                    err.msg, o.out_dir);
        return 128 + (*o.stop ? (int)*o.stop : SIGINT);
    }
    if (rc) {
        fprintf(stderr, "clustersim: error: %s\n", err.msg);
        return 1;
    }
    return 0;
}
