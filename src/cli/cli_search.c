/*
 * cli_search.c -- `clustersim search`: the command line of the plan search
 * (src/sweep/search.h; docs/search.md).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_int.h"
#include "core/opts.h"
#include "sweep/search.h"

static void search_usage(FILE *f) {
    fputs("usage: clustersim search --model PRESET|FILE --network-configuration=FILE --global-batch N [options]\n\n"
          "Finds the best parallelization plans of the model on the cluster: every plan of the space\n"
          "(DP fills the cluster) is checked, refused with the reason when it cannot run or does not fit\n"
          "in HBM, and estimated (the generator's own nodes priced by the analytical backend's closed\n"
          "forms; docs/search.md); the best --top plans are then simulated (class mode).\n\n"
          "the cluster and the model (as train; any scenario key with --set):\n"
          "  --model PRESET|FILE, --device NAME|FILE, --network-configuration=FILE, --system-configuration=FILE,\n"
          "  --global-batch N (required), --backend NAME, --astra-binary NAME, --topology FILE, --flash-attention, --schedule S,\n"
          "  --comm-streams N, --scenario FILE, --set KEY=VALUE\n\n"
          "the space (comma-separated lists; defaults in docs/search.md):\n"
          "  --tp LIST            tensor-parallel degrees (default: powers of two up to the first dimension)\n"
          "  --pp LIST            pipeline degrees (default: 1, 2, 4, ... 64, at most the layers)\n"
          "  --cp LIST            context-parallel degrees (default 1; 1-16 for sequences >= 16k)\n"
          "  --ep LIST            expert-parallel degrees (default: the base plan's)\n"
          "  --micro-batch LIST   (default 1,2,4)\n"
          "  --virtual-stages LIST interleaved chunks per stage (default 1,2,4)\n"
          "  --recompute LIST     none,selective,full (default all)\n"
          "  --zero LIST          ZeRO stages (default 0,1,2,3)\n"
          "  --placement ORDER    a rank order, innermost first (repeatable; default tp,cp,dp,pp and tp,cp,pp,dp)\n\n"
          "outputs:\n"
          "  --top K              plans to simulate (default 5; 0 = estimates only)\n"
          "  --refine-full        simulate a top plan in full when class mode does not apply (default: only\n"
          "                       on clusters of at most 512 ranks; larger ones skip such plans with the reason)\n"
          "  --objective WHAT     rank by time (default), cost (per step: hardware amortized plus energy) or\n"
          "                       energy (per step), by the cost model (cost.* keys, docs/cost.md)\n"
          "  --show N             rows of the estimate ranking printed (default 10)\n"
          "  -j N, --jobs N       worker processes simulating the best plans (default: the number of CPUs;\n"
          "                       the same results whatever N; memory grows with N: one simulation each)\n"
          "  --out DIR            DIR/plans.csv: every plan, its estimate, simulation or refusal\n"
          "  --quiet, --no-progress, --help\n",
          f);
}


/* A comma-separated list of integers in [lo, hi] (or names of `names`): every element given (no
 * empty one: "1,,2", "1,", ",1", ""), at most CS_SEARCH_MAXV of them, the list under 512 bytes. */
static int parse_list(const char *flag, const char *val, uint32_t lo, uint32_t hi, const char *const *names,
                      cs_search_axis *a) {
    a->n = 0;
    int ok = strlen(val) < 512;
    for (const char *p = val; ok;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char t[512];
        long long v = -1;
        if (len > 0 && a->n < CS_SEARCH_MAXV) {
            memcpy(t, p, len);
            t[len] = '\0';
            if (names) {
                for (int k = 0; names[k]; k++)
                    if (strcmp(t, names[k]) == 0) v = k;
            } else if (cs_parse_ll(t, &v) != 0) {
                v = -1;
            }
        }
        ok = v >= (long long)lo && v <= (long long)hi;
        if (ok) a->v[a->n++] = (uint32_t)v;
        if (!e) break;
        p = e + 1;
    }
    if (ok) return 0;
    if (names)
        fprintf(stderr, "clustersim: error: %s '%s': expected a list of none, selective, full\n", flag, val);
    else
        fprintf(stderr, "clustersim: error: %s '%s': expected a list of at most %d integers from %u to %u\n", flag,
                val, CS_SEARCH_MAXV, lo, hi);
    return -1;
}


/* Base-scenario flags: the scenario key each sets (the platform's: cs_cli_platform_flag). */
static const struct {
    const char *flag, *key;
    int boolean;
} BASE[] = {
    {"--model", "model.name", 0},
    {"--device", "device.name", 0},
    {"--global-batch", "plan.global-batch", 0},
    {"--schedule", "plan.schedule", 0},
    {"--comm-streams", "run.comm-streams", 0},
    {"--flash-attention", "plan.flash-attention", 1},
};

int cs_cli_search(int argc, char **argv) {
    static const char *const recomp[] = {"none", "selective", "full", NULL};
    cs_search_options o;
    memset(&o, 0, sizeof o);
    o.top = 5;
    o.full_limit = 512;
    o.show = 10;
    o.progress = 1;
    o.report = stdout;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    o.jobs = ncpu > 1024 ? 1024 : ncpu > 0 ? (uint32_t)ncpu : 1;
    cs_scenario *sc = cs_scenario_new();
    cs_error err;
    cs_error_clear(&err);
    int rc = 0;
    if (cs_cli_preload_scenarios(sc, argc, argv)) { /* --scenario first, whatever its position */
        cs_scenario_free(sc);
        return 1;
    }
    for (int i = 0; i < argc && rc == 0; i++) {
        char name[64];
        const char *a = argv[i], *val;
        cs_cli_split_flag(a, name, sizeof name, &val);
        int flagonly = strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "--quiet") == 0 ||
                       strcmp(name, "--no-progress") == 0 || strcmp(name, "--refine-full") == 0 ||
                       strcmp(name, "--flash-attention") == 0;
        if (a[0] != '-' || !a[1]) {
            fprintf(stderr, "clustersim search: unexpected argument \"%s\" (see --help)\n", a);
            rc = 2;
            break;
        }
        if (!flagonly && (rc = cs_cli_flag_value(argc, argv, &i, "search", search_usage, name, &val)) != 0) break;
        size_t b = 0, nb = sizeof BASE / sizeof BASE[0];
        while (b < nb && strcmp(BASE[b].flag, name) != 0) b++;
        int pf = cs_cli_platform_flag(sc, "search", name, val);
        if (pf >= 0) {
            rc = pf;
        } else if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
            search_usage(stdout);
            cs_scenario_free(sc);
            return 0;
        } else if (b < nb) {
            int r2 = cs_sc_set_text(sc, BASE[b].key, BASE[b].boolean ? "true" : val, name, &err);
            if (r2) {
                fprintf(stderr, "clustersim: error: %s\n", err.msg);
                rc = 1;
            }
        } else if (strcmp(name, "--scenario") == 0) {
            /* loaded above */
        } else if (strcmp(name, "--tp") == 0) {
            rc = parse_list(name, val, 1, 1u << 20, NULL, &o.space.tp) ? 1 : 0;
        } else if (strcmp(name, "--pp") == 0) {
            rc = parse_list(name, val, 1, 1u << 20, NULL, &o.space.pp) ? 1 : 0;
        } else if (strcmp(name, "--cp") == 0) {
            rc = parse_list(name, val, 1, 1u << 20, NULL, &o.space.cp) ? 1 : 0;
        } else if (strcmp(name, "--ep") == 0) {
            rc = parse_list(name, val, 1, 1u << 20, NULL, &o.space.ep) ? 1 : 0;
        } else if (strcmp(name, "--micro-batch") == 0) {
            rc = parse_list(name, val, 1, 1u << 20, NULL, &o.space.mb) ? 1 : 0;
        } else if (strcmp(name, "--virtual-stages") == 0) {
            rc = parse_list(name, val, 1, 1024, NULL, &o.space.vstages) ? 1 : 0;
        } else if (strcmp(name, "--recompute") == 0) {
            rc = parse_list(name, val, 0, 2, recomp, &o.space.recompute) ? 1 : 0;
        } else if (strcmp(name, "--zero") == 0) {
            rc = parse_list(name, val, 0, 3, NULL, &o.space.zero) ? 1 : 0;
        } else if (strcmp(name, "--placement") == 0) {
            if (o.space.nplacements >= 8 || strlen(val) >= sizeof o.space.placements[0]) {
                fprintf(stderr, "clustersim: error: --placement '%s': expected at most 8 orders such as tp,cp,dp,pp\n",
                        val);
                rc = 1;
            } else {
                snprintf(o.space.placements[o.space.nplacements++], sizeof o.space.placements[0], "%s", val);
            }
        } else if (strcmp(name, "--top") == 0) {
            if (cs_cli_parse_u32(val, 0, 1000, &o.top)) {
                fprintf(stderr, "clustersim: error: --top '%s': expected a number of plans from 0 to 1000\n", val);
                rc = 1;
            }
        } else if (strcmp(name, "--objective") == 0) {
            if (strcmp(val, "time") == 0) o.objective = CS_SEARCH_BY_TIME;
            else if (strcmp(val, "cost") == 0) o.objective = CS_SEARCH_BY_COST;
            else if (strcmp(val, "energy") == 0) o.objective = CS_SEARCH_BY_ENERGY;
            else {
                fprintf(stderr, "clustersim: error: --objective '%s': expected time, cost or energy\n", val);
                rc = 1;
            }
        } else if (strcmp(name, "--show") == 0) {
            if (cs_cli_parse_u32(val, 0, 1000000, &o.show)) {
                fprintf(stderr, "clustersim: error: --show '%s': expected a number of rows from 0 to 1000000\n", val);
                rc = 1;
            }
        } else if (strcmp(name, "-j") == 0 || strcmp(name, "--jobs") == 0) {
            if (cs_cli_parse_u32(val, 1, 1024, &o.jobs)) {
                fprintf(stderr, "clustersim: error: %s '%s': expected a number of worker processes from 1 to 1024\n",
                        name, val);
                rc = 1;
            }
        } else if (strcmp(name, "--out") == 0) {
            o.out_dir = val;
        } else if (strcmp(name, "--refine-full") == 0) {
            o.refine_full = 1;
        } else if (strcmp(name, "--quiet") == 0) {
            o.report = NULL;
        } else if (strcmp(name, "--no-progress") == 0) {
            o.progress = 0;
        } else {
            fprintf(stderr, "clustersim search: unknown option %s (see clustersim search --help)\n", a);
            rc = 2;
        }
    }
    if (rc) {
        cs_scenario_free(sc);
        return rc;
    }
    cs_cli_stop st;
    o.stop = cs_cli_stop_begin(&st);
    rc = cs_search(sc, &o, &err);
    cs_cli_stop_end(&st);
    cs_scenario_free(sc);
    return cs_cli_exit(rc, &err, (int)*o.stop, "");
}
