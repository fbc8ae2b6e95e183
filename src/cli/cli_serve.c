/*
 * cli_serve.c -- `clustersim serve`: the command line of the serving
 * simulation (src/sweep/serve.h; docs/inference.md).  Every flag sets a
 * scenario key (plan.*, model.*, device.*, serve.*) or is an output option.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli_int.h"
#include "sweep/serve.h"

static void serve_usage(FILE *f) {
    fputs("usage: clustersim serve --model PRESET|FILE --network-configuration=FILE [options]\n\n"
          "Simulates a model served on a cluster (docs/inference.md): the prefill step of a batch (one forward\n"
          "over batch x prompt tokens) and its decode steps (one token per sequence, attention over the KV\n"
          "cache), each generated with the training generator's kernels and simulated on the network; then\n"
          "requests served with static batching: time to first token, time per output token, end-to-end\n"
          "latency with p50/p90/p99, output tokens/s.  The plan must fit HBM: weights + KV cache.\n\n"
          "the model and the cluster (any scenario key with --set; serve.* keys: run --help-config):\n"
          "  --model PRESET|FILE, --device NAME|FILE, --network-configuration=FILE, --system-configuration=FILE,\n"
          "  --backend NAME, --astra-binary NAME, --topology FILE, --scenario FILE, --set KEY=VALUE\n"
          "  --tp N, --pp N        tensor and pipeline parallelism of one replica\n"
          "  --dp N                data-parallel ranks, each serving its own batch (with --ep: attention DP)\n"
          "  --ep N                expert parallelism for MoE models (a divisor of --dp)\n"
          "  --flash-attention     fused attention in the prefill, causal tiles skipped (default: Megatron's unfused kernels)\n"
          "  --comm-streams N      communication ops a rank runs at once (run.comm-streams)\n\n"
          "the workload (serve.* keys):\n"
          "  --batch B             requests per batch and DP rank (serve.batch, default 1)\n"
          "  --prompt-tokens P     prompt tokens per request (default 512)\n"
          "  --output-tokens O     tokens generated per request, the first by the prefill (default 128)\n"
          "  --requests N          requests arriving (default: one full batch at time 0)\n"
          "  --arrival-rate R      requests/s (default 1)\n"
          "  --arrivals KIND       poisson (default; --seed S) or uniform (request i at i / R)\n\n"
          "outputs:\n"
          "  --json FILE           the summary (times in ns and ps, throughput per second)\n"
          "  --out DIR             DIR/summary.json, requests.csv, decode_steps.csv\n"
          "  --check               load and check everything the steps use -- the keys, the plan and its memory,\n"
          "                        the network, topology, system, backend and its options -- then print one line\n"
          "                        (ok: the plan, its memory) and stop: nothing simulated, no file written or\n"
          "                        removed; exit 0, or 1 with the error\n"
          "  --quiet, --no-progress, --help   (--quiet: no report, and with --check no ok line)\n",
          f);
}

/* Flags that set a scenario key (boolean: the flag alone sets true). */
static const struct {
    const char *flag, *key;
    int boolean;
} KEYS[] = {
    {"--model", "model.name", 0},
    {"--device", "device.name", 0},
    {"--tp", "plan.tp", 0},
    {"--pp", "plan.pp", 0},
    {"--dp", "plan.dp", 0},
    {"--ep", "plan.ep", 0},
    {"--flash-attention", "plan.flash-attention", 1},
    {"--comm-streams", "run.comm-streams", 0},
    {"--batch", "serve.batch", 0},
    {"--prompt-tokens", "serve.prompt-tokens", 0},
    {"--output-tokens", "serve.output-tokens", 0},
    {"--requests", "serve.requests", 0},
    {"--arrival-rate", "serve.arrival-rate", 0},
    {"--arrivals", "serve.arrivals", 0},
    {"--seed", "serve.seed", 0},
};

int cs_cli_serve(int argc, char **argv) {
    cs_serve_options o;
    memset(&o, 0, sizeof o);
    o.progress = 1;
    o.report = stdout;
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
                       strcmp(name, "--no-progress") == 0 || strcmp(name, "--flash-attention") == 0 ||
                       strcmp(name, "--check") == 0;
        if (a[0] != '-' || !a[1]) {
            fprintf(stderr, "clustersim serve: unexpected argument \"%s\" (see --help)\n", a);
            rc = 2;
            break;
        }
        if (!flagonly && (rc = cs_cli_flag_value(argc, argv, &i, "serve", serve_usage, name, &val)) != 0) break;
        size_t k = 0, nk = sizeof KEYS / sizeof KEYS[0];
        while (k < nk && strcmp(KEYS[k].flag, name) != 0) k++;
        int pf = cs_cli_platform_flag(sc, "serve", name, val);
        if (pf >= 0) {
            rc = pf;
        } else if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
            serve_usage(stdout);
            cs_scenario_free(sc);
            return 0;
        } else if (k < nk) {
            if (cs_sc_set_text(sc, KEYS[k].key, KEYS[k].boolean ? "true" : val, name, &err)) {
                fprintf(stderr, "clustersim: error: %s\n", err.msg);
                rc = 1;
            }
        } else if (strcmp(name, "--scenario") == 0) {
            /* loaded above */
        } else if (strcmp(name, "--json") == 0) {
            o.json_path = val;
        } else if (strcmp(name, "--out") == 0) {
            o.out_dir = val;
        } else if (strcmp(name, "--quiet") == 0) {
            o.report = NULL;
        } else if (strcmp(name, "--no-progress") == 0) {
            o.progress = 0;
        } else if (strcmp(name, "--check") == 0) {
            o.check = 1;
        } else {
            fprintf(stderr, "clustersim serve: unknown option %s (see clustersim serve --help)\n", a);
            rc = 2;
        }
    }
    if (rc) {
        cs_scenario_free(sc);
        return rc;
    }
    cs_cli_stop st;
    o.stop = cs_cli_stop_begin(&st);
    rc = cs_serve(sc, &o, &err);
    cs_cli_stop_end(&st);
    cs_scenario_free(sc);
    return cs_cli_exit(rc, &err, (int)*o.stop, "");
}
