/*
 * cli_bandwidth.c -- `clustersim bandwidth SPEC`: the command line of the
 * bandwidth-allocation optimizer (src/sweep/bwopt.h; docs/bandwidth.md).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli_int.h"
#include "sweep/bwopt.h"

static void bandwidth_usage(FILE *f) {
    fputs("usage: clustersim bandwidth SPEC --out DIR [--quiet] [--no-progress]\n\n"
          "Finds the per-dimension bandwidth split of a network that serves a mix of workloads best under\n"
          "a budget (GB/s per NPU, or US$ of network by the cost model), by simulating the workloads:\n"
          "a grid over the shares of the budget, then refinement down to the spec's resolution.  SPEC is\n"
          "a JSON file (docs/bandwidth.md):\n\n"
          "  {\"clustersim-bandwidth\": 1,\n"
          "   \"workloads\": [\"train.json\", {\"scenario\": \"ar.json\", \"weight\": 2}],\n"
          "   \"budget\": {\"gbps-per-npu\": 500},            (or {\"network-usd\": 2e6})\n"
          "   \"objective\": \"time\",                          (perf-per-usd, perf-per-network-usd)\n"
          "   \"dimensions\": [0, 1], \"grid\": 8, \"resolution\": 0.001, \"min-gbps\": 1}\n\n"
          "Prints the scenarios' own split, the uniform split and the best one with the gain; writes\n"
          "DIR/splits.csv (every split simulated) and DIR/best.json.\n\n"
          "options:\n"
          "  --out DIR       output directory (required)\n"
          "  --quiet         no summary\n"
          "  --no-progress   no line on stderr per improvement\n"
          "  --help          this help\n",
          f);
}


int cs_cli_bandwidth(int argc, char **argv) {
    cs_bwopt_options o;
    memset(&o, 0, sizeof o);
    o.report = stdout;
    o.progress = 1;
    const char *spec = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            bandwidth_usage(stdout);
            return 0;
        } else if (strcmp(a, "--out") == 0 || strncmp(a, "--out=", 6) == 0) {
            if (a[5] == '=') o.out_dir = a + 6;
            else if (i + 1 < argc) o.out_dir = argv[++i];
            else {
                fprintf(stderr, "clustersim bandwidth: --out needs a value (see --help)\n");
                return 2;
            }
        } else if (strcmp(a, "--quiet") == 0) {
            o.report = NULL;
        } else if (strcmp(a, "--no-progress") == 0) {
            o.progress = 0;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "clustersim bandwidth: unknown option %s (see clustersim bandwidth --help)\n", a);
            return 2;
        } else if (!spec) {
            spec = a;
        } else {
            fprintf(stderr, "clustersim bandwidth: one SPEC expected, got %s and %s\n", spec, a);
            return 2;
        }
    }
    if (!spec) {
        bandwidth_usage(stderr);
        return 2;
    }
    if (!o.out_dir || !o.out_dir[0]) {
        fprintf(stderr, "clustersim bandwidth: --out DIR is required (where splits.csv and best.json go)\n");
        return 2;
    }
    cs_cli_stop st;
    o.stop = cs_cli_stop_begin(&st);
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_bwopt(spec, &o, &err);
    cs_cli_stop_end(&st);
    return cs_cli_exit(rc, &err, (int)*o.stop, "; no result written");
}
