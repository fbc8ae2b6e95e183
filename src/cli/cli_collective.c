/*
 * cli_collective.c -- `clustersim collective`: nccl-tests for the simulator
 * (src/sweep/collbench.h; docs/collectives.md).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_int.h"
#include "sweep/collbench.h"
#include "system/coll_type.h"

static void collective_usage(FILE *f) {
    fputs("usage: clustersim collective --network-configuration=FILE [--system-configuration=FILE] [options]\n\n"
          "nccl-tests for the simulator: one collective of each size from --min to --max (times --factor) on\n"
          "every NPU of the network, simulated with the system, backend and topology given; prints nccl-tests'\n"
          "table (size, count, type, time, algbw, busbw, the algorithm the run chose; GB/s = 1e9 B/s) and, with\n"
          "--out, writes it as CSV.\n\n"
          "options:\n"
          "  --op OP                      all_reduce (default), all_gather, reduce_scatter, alltoall\n"
          "  --min SIZE, -b SIZE          smallest size in bytes (default 8; units B, KB, MB, GB, KiB, MiB, GiB)\n"
          "  --max SIZE, -e SIZE          largest size (default 128MiB)\n"
          "  --factor F, -f F             size multiplier between steps (default 2)\n"
          "  --network-configuration=FILE, --system-configuration=FILE, --topology=FILE, --backend NAME,\n"
          "  --astra-binary NAME, --scenario FILE, --set KEY=VALUE   the platform, as for run\n"
          "  --out FILE.csv               the table as CSV\n"
          "  --quiet, --help\n",
          f);
}


/* "8", "64K", "1MiB", "8G": bytes; -1 when not a size. */
static int size_arg(const char *s, uint64_t *out) {
    char *end;
    double v = strtod(s, &end);
    if (end == s || !(v >= 0)) return -1;
    static const struct { const char *sfx; double m; } u[] = {
        {"", 1}, {"B", 1}, {"K", 1024}, {"KB", 1e3}, {"KiB", 1024}, {"M", 1048576}, {"MB", 1e6}, {"MiB", 1048576},
        {"G", 1073741824.0}, {"GB", 1e9}, {"GiB", 1073741824.0}, {"T", 1099511627776.0}, {"TB", 1e12},
        {"TiB", 1099511627776.0}};
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
        if (strcmp(end, u[i].sfx) == 0) {
            double b = v * u[i].m;
            if (!(b < 1.8e19) || b != (double)(uint64_t)b) return -1;
            *out = (uint64_t)b;
            return 0;
        }
    return -1;
}

int cs_cli_collective(int argc, char **argv) {
    cs_collbench_options o;
    memset(&o, 0, sizeof o);
    o.op = CS_COLL_ALL_REDUCE;
    o.min_bytes = 8;
    o.max_bytes = 128u << 20;
    o.factor = 2;
    o.report = stdout;
    cs_scenario *sc = cs_scenario_new();
    cs_error err;
    cs_error_clear(&err);
    int rc = 0;
    if (cs_cli_preload_scenarios(sc, argc, argv)) { /* scenario files first: the flags override them */
        cs_scenario_free(sc);
        return 1;
    }
    cs_sc_batch_begin(sc); /* --set flags of keys that go together, in any order (cs_sc_batch_end below) */
    for (int i = 0; i < argc && rc == 0; i++) {
        char name[64];
        const char *a = argv[i], *val;
        cs_cli_split_flag(a, name, sizeof name, &val);
        if (strcmp(name, "-b") == 0) snprintf(name, sizeof name, "--min");
        if (strcmp(name, "-e") == 0) snprintf(name, sizeof name, "--max");
        if (strcmp(name, "-f") == 0) snprintf(name, sizeof name, "--factor");
        int flagonly = strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "--quiet") == 0;
        if (a[0] != '-' || !a[1]) {
            fprintf(stderr, "clustersim collective: unexpected argument \"%s\" (see --help)\n", a);
            rc = 2;
            break;
        }
        if (!flagonly && (rc = cs_cli_flag_value(argc, argv, &i, "collective", collective_usage, name, &val)) != 0) break;
        int pf = cs_cli_platform_flag(sc, "collective", name, val);
        if (pf >= 0) {
            rc = pf;
        } else if (flagonly && strcmp(name, "--quiet") != 0) {
            collective_usage(stdout);
            cs_scenario_free(sc);
            return 0;
        } else if (strcmp(name, "--quiet") == 0) {
            o.report = NULL;
        } else if (strcmp(name, "--op") == 0) {
            if (strcmp(val, "all_reduce") == 0) o.op = CS_COLL_ALL_REDUCE;
            else if (strcmp(val, "all_gather") == 0) o.op = CS_COLL_ALL_GATHER;
            else if (strcmp(val, "reduce_scatter") == 0) o.op = CS_COLL_REDUCE_SCATTER;
            else if (strcmp(val, "alltoall") == 0) o.op = CS_COLL_ALL_TO_ALL;
            else {
                fprintf(stderr, "clustersim: error: --op '%s': expected all_reduce, all_gather, reduce_scatter or "
                                "alltoall\n", val);
                rc = 1;
            }
        } else if (strcmp(name, "--min") == 0 || strcmp(name, "--max") == 0) {
            if (size_arg(val, strcmp(name, "--min") == 0 ? &o.min_bytes : &o.max_bytes) != 0) {
                fprintf(stderr, "clustersim: error: %s '%s': expected a size in bytes, e.g. 8, 64K, 1MiB, 8G\n", name,
                        val);
                rc = 1;
            }
        } else if (strcmp(name, "--factor") == 0) {
            if (cs_cli_parse_u32(val, 2, 1u << 20, &o.factor)) {
                fprintf(stderr, "clustersim: error: --factor '%s': expected an integer of 2 or more\n", val);
                rc = 1;
            }
        } else if (strcmp(name, "--out") == 0) {
            o.csv = val;
        } else if (strcmp(name, "--scenario") == 0) {
            /* loaded above */
        } else {
            fprintf(stderr, "clustersim collective: unknown option %s (see clustersim collective --help)\n", a);
            rc = 2;
        }
    }
    if (rc == 0 && cs_sc_batch_end(sc, &err)) {
        fprintf(stderr, "clustersim: error: %s\n", err.msg);
        rc = 1;
    }
    if (rc) {
        cs_scenario_free(sc);
        return rc;
    }
    cs_cli_stop st;
    o.stop = cs_cli_stop_begin(&st);
    rc = cs_collbench(sc, &o, &err);
    cs_cli_stop_end(&st);
    cs_scenario_free(sc);
    return cs_cli_exit(rc, &err, (int)*o.stop, "; no table written");
}
