/*
 * cli.c -- the `run` and `train` commands: thin front ends over the
 * scenario layer (src/scenario), and the program's command dispatch.
 *
 * One flag table (FLAGS) serves both commands: each flag sets a scenario key
 * (run.*, plan.*, model.*, device.*), loads an ASTRA-sim file into its
 * section (network, system, memory, comm-groups), or is an output option of
 * the command line (--out, --json, --trace, ...).  ASTRA-sim's long flags
 * are accepted unchanged; `--set KEY=VALUE` reaches every key, `--scenario
 * FILE` loads a whole scenario first (the flags then override it), and
 * `--dump-scenario FILE` writes the effective scenario.  `run` and `train`
 * differ only in their report: a generated plan gets the training report
 * (iteration time, MFU, throughput, rank 0's split), traces the simulation
 * report; `train --json` writes the training report, `run --json` the
 * summary.  Defaults live in the scenario's key tables, never here.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "cli/cli.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_int.h"
#include "core/afile.h"
#include "core/alloc.h"
#include "core/log.h"
#include "core/opts.h"
#include "network/network.h"
#include "compute/device.h"
#include "gen/gen.h"
#include "output/collectives.h"
#include "output/flows.h"
#include "output/html.h"
#include "output/links.h"
#include "output/report.h"
#include "output/timeline.h"
#include "scenario/result.h"
#include "scenario/scenario.h"

/* ---- the flag table -------------------------------------------------------------- */

enum { F_KEY, F_KEYFLAG, F_LOAD, F_OUT, F_OUTFLAG, F_IGNORED, F_ASTRA_BIN };
enum { A_OUT = 1, A_JSON, A_TRACE, A_QUIET, A_VERBOSE, A_NOPROGRESS, A_PROGRESS, A_TRACE_RANKS, A_TRACE_LIMIT, A_HELP, A_HELPCFG, A_SET, A_SCENARIO, A_DUMP, A_REPORT, A_MAXWALL, A_MAXMEM, A_THREADS, A_PARMIN };

typedef struct flag {
    const char *name;
    int kind;          /* F_* */
    const char *key;   /* F_KEY/F_KEYFLAG: scenario key; F_LOAD: section kind */
    int out;           /* F_OUT/F_OUTFLAG: A_* */
    const char *arg, *help;
    int group;         /* 0 ASTRA-sim, 1 scenario, 2 plan, 3 output */
} flag;

static const flag FLAGS[] = {
    {"workload-configuration", F_KEY, "run.workload", 0, "PREFIX", "Chakra traces PREFIX.<rank>.et (or one file for every rank)", 0},
    {"network-configuration", F_LOAD, "network", 0, "FILE", "network YAML (ASTRA-sim analytical format) -> network.*", 0},
    {"system-configuration", F_LOAD, "system", 0, "FILE", "system JSON (ASTRA-sim format) -> system.*", 0},
    {"remote-memory-configuration", F_LOAD, "memory", 0, "FILE", "remote-memory JSON (ASTRA-sim format) -> memory.*", 0},
    {"comm-group-configuration", F_LOAD, "comm-groups", 0, "FILE", "communicator groups JSON, or \"empty\" -> comm-groups.*", 0},
    {"logging-configuration", F_IGNORED, NULL, 0, "FILE", "accepted for ASTRA-sim compatibility; clustersim logs to stderr", 0},
    {"logging-folder", F_IGNORED, NULL, 0, "DIR", "accepted for ASTRA-sim compatibility; use --out for result files", 0},
    {"num-queues-per-dim", F_KEY, "run.num-queues-per-dim", 0, "N", "ASTRA-sim: queues per dimension", 0},
    {"compute-scale", F_KEY, "run.compute-scale", 0, "X", "ASTRA-sim: parsed, unused by its analytical backend", 0},
    {"comm-scale", F_KEY, "run.comm-scale", 0, "X", "ASTRA-sim: communication size scale", 0},
    {"injection-scale", F_KEY, "run.injection-scale", 0, "X", "ASTRA-sim: endpoint-delay scale", 0},
    {"rendezvous-protocol", F_KEY, "run.rendezvous-protocol", 0, "BOOL", "ASTRA-sim: rendezvous send/recv", 0},
    {"astra-binary", F_ASTRA_BIN, "run.backend", 0, "NAME",
     "the ASTRA-sim binary the command line was written for: AstraSim_Analytical_Congestion_Unaware = --backend "
     "analytical, AstraSim_Analytical_Congestion_Aware = --backend analytical-congestion (docs/astra-compat.md)", 0},
    {"backend", F_KEY, "run.backend", 0, "NAME", "network backend (list below)", 1},
    {"topology", F_LOAD, "topology", 0, "FILE", "physical topology JSON for a graph backend (docs/topology.md) -> topology.*", 1},
    {"npu-placement", F_KEY, "run.placement", 0, "STRATEGY",
     "graph backends: ranks onto NPUs: contiguous, random[:SEED], strided:K, pack (run: also --placement)", 1},
    {"compare-healthy", F_KEYFLAG, "run.compare-healthy", 0, NULL,
     "also simulate the run without its failures (graph backends) and stragglers (run.slow-ranks, "
     "run.compute-jitter) and report the slowdown", 1},
    {"symmetry", F_KEY, "run.symmetry", 0, "auto|off|require",
     "simulate one representative per class of ranks when exact (auto); require: fail rather than simulate all", 1},
    {"comm-streams", F_KEY, "run.comm-streams", 0, "N", "communication ops a rank runs at once (1 for traces, 4 for plans)", 1},

    {"ignore-ctrl-deps", F_KEYFLAG, "run.ignore-ctrl-deps", 0, NULL, "honour data dependencies only", 1},
    {"allow-missing-data-deps", F_KEYFLAG, "run.allow-missing-data-deps", 0, NULL,
     "drop data dependencies on nodes absent from a trace (default: error)", 1},
    {"set", F_OUT, NULL, A_SET, "KEY=VALUE", "set any scenario key (repeatable; --help-config lists them)", 1},
    {"scenario", F_OUT, NULL, A_SCENARIO, "FILE",
     "load a scenario file first; the other flags override it (repeatable: later files override earlier ones, "
     "e.g. a cost file)", 1},
    {"dump-scenario", F_OUT, NULL, A_DUMP, "FILE", "write the effective scenario (reproduces the run)", 1},
    {"model", F_KEY, "model.name", 0, "PRESET|FILE", "model preset or JSON file: the workload is a generated plan", 2},
    {"device", F_KEY, "device.name", 0, "NAME|FILE", "accelerator (A100-80GB, H100-SXM, H200, B200, MI300X, A100-40GB)", 2},
    {"tp", F_KEY, "plan.tp", 0, "N", "tensor-parallel degree", 2},
    {"pp", F_KEY, "plan.pp", 0, "N", "pipeline-parallel degree", 2},
    {"dp", F_KEY, "plan.dp", 0, "N", "data-parallel degree", 2},
    {"ep", F_KEY, "plan.ep", 0, "N", "expert-parallel degree (MoE)", 2},
    {"cp", F_KEY, "plan.cp", 0, "N", "context-parallel degree", 2},
    {"cp-comm", F_KEY, "plan.cp-comm", 0, "allgather|p2p|ring", "context parallelism's attention", 2},
    {"placement", F_KEY, "plan.placement", 0, "tp,cp,dp,pp",
     "train/generate: order of the parallel dimensions on the ranks, innermost first (run: --npu-placement)", 2},
    {"sp", F_KEYFLAG, "plan.sp", 0, NULL, "sequence parallelism", 2},
    {"flash-attention", F_KEYFLAG, "plan.flash-attention", 0, NULL, "fused attention, causal tiles skipped", 2},
    {"recompute", F_KEY, "plan.recompute", 0, "none|selective|full", "activation recomputation", 2},
    {"micro-batch", F_KEY, "plan.micro-batch", 0, "N", "micro-batch size", 2},
    {"global-batch", F_KEY, "plan.global-batch", 0, "N", "global batch", 2},
    {"seq", F_KEY, "model.transformer.seq", 0, "N", "sequence length in tokens (transformers; over the model's)", 2},
    {"schedule", F_KEY, "plan.schedule", 0, "gpipe|1f1b", "pipeline schedule", 2},
    {"virtual-stages", F_KEY, "plan.virtual-stages", 0, "N", "interleaved 1F1B: model chunks per stage", 2},
    {"layout", F_KEY, "plan.layout", 0, "E|t*N|...|L",
     "layers per virtual pipeline stage, as Megatron's --pipeline-model-parallel-layout", 2},
    {"zero", F_KEY, "plan.zero", 0, "0..3", "ZeRO stage", 2},
    {"fsdp", F_KEYFLAG, "plan.fsdp", 0, NULL, "fully sharded data parallel (zero 3)", 2},
    {"use-distributed-optimizer", F_KEYFLAG, "plan.use-distributed-optimizer", 0, NULL,
     "Megatron-LM's distributed optimizer (zero 1, fp32 gradients)", 2},
    {"fsdp-sharding-strategy", F_KEY, "plan.fsdp-sharding-strategy", 0,
     "FULL_SHARD|SHARD_GRAD_OP|HYBRID_SHARD|_HYBRID_SHARD_ZERO2", "PyTorch FSDP's sharding strategy and per-layer schedule", 2},
    {"fsdp-reduce-dtype", F_KEY, "plan.fsdp-reduce-dtype", 0, "bf16|fp32",
     "FSDP's gradient dtype: fp32 = accumulated and reduce-scattered in fp32 (Llama 3)", 2},
    {"kernel-overhead-us", F_KEY, "plan.kernel-overhead-us", 0, "US", "time added to every generated GPU kernel", 2},
    {"hsdp-shard-size", F_KEY, "plan.hsdp-shard-size", 0, "N", "HSDP: DP ranks of a shard group", 2},
    {"fsdp-no-sync", F_KEYFLAG, "plan.fsdp-no-sync", 0, NULL,
     "FSDP gradient accumulation under no_sync(): one reduce-scatter per step", 2},
    {"bucket-mparams", F_KEY, "plan.bucket-mparams", 0, "N", "DP gradient bucket, millions of parameters", 2},
    {"bucket-mb", F_KEY, "plan.bucket-mb", 0, "N", "DP gradient bucket in MB of 2-byte gradients", 2},
    {"no-overlap-grad-reduce", F_KEYFLAG, "plan.no-overlap-grad-reduce", 0, NULL,
     "reduce the gradients after the last backward pass", 2},
    {"async-tensor-model-parallel-allreduce", F_KEYFLAG, "plan.async-tensor-model-parallel-allreduce", 0, NULL,
     "Megatron-LM: TP reduction of the input gradient overlapped with the weight gradient", 2},
    {"gradient-accumulation-fusion", F_KEYFLAG, "plan.gradient-accumulation-fusion", 0, NULL,
     "Megatron-LM: weight-gradient GEMMs add into fp32 gradients (no accumulation kernel)", 2},
    {"no-memory-check", F_KEYFLAG, "plan.no-memory-check", 0, NULL, "simulate even if the plan does not fit in HBM", 2},
    {"offload-optimizer", F_KEYFLAG, "plan.offload-optimizer", 0, NULL,
     "the optimizer state in remote memory (--remote-memory-configuration), not HBM", 2},
    {"out", F_OUT, NULL, A_OUT, "DIR", "write summary.json, ranks.csv, collectives.csv (and links.csv; flows.csv with --backend packet) into DIR", 3},
    {"json", F_OUT, NULL, A_JSON, "FILE", "run: the summary JSON; train: the training report JSON", 3},
    {"trace", F_OUT, NULL, A_TRACE, "FILE", "write a Chrome/Perfetto timeline (ui.perfetto.dev)", 3},
    {"report", F_OUT, NULL, A_REPORT, "FILE",
     "write a self-contained HTML report (inline SVG: per-rank bars, step timeline, hottest links; "
     "FILE less .html + .<chart>.svg for slides)", 3},
    {"trace-ranks", F_OUT, NULL, A_TRACE_RANKS, "LIST",
     "--trace: only these ranks (default: all); --report: the timeline's ranks (default: one per pipeline stage, "
     "or the first 8; at most 64)", 3},
    {"trace-limit", F_OUT, NULL, A_TRACE_LIMIT, "SIZE",
     "--trace: stop adding events at this file size, e.g. 500MB, 2GiB, 0 = none (default 1GiB)", 3},
    {"max-wall", F_OUT, NULL, A_MAXWALL, "SECONDS",
     "stop the run after this much wall time: exit 1, no results (default: none)", 3},
    {"max-memory", F_OUT, NULL, A_MAXMEM, "SIZE",
     "stop the run when the process's resident memory passes SIZE, e.g. 8GiB: exit 1, no results", 3},
    {"threads", F_OUT, NULL, A_THREADS, "N",
     "threads for the full simulation, 1..256 (default 1): the parallel engine, results identical; analytical "
     "backend; what it cannot run in parallel runs on one thread, saying why (docs/parallel.md lists it; among "
     "others train and serve, pipeline sends and receives, in-switch and BARRIER collectives, other backends)", 3},
    {"parallel-min-events", F_OUT, NULL, A_PARMIN, "N",
     "--threads: a parallel run whose first 256 windows ran fewer than N events per window and thread goes "
     "back to one thread, saying why (default 1000; 0: never)", 3},
    {"quiet", F_OUTFLAG, NULL, A_QUIET, NULL, "no terminal report", 3},
    {"verbose", F_OUTFLAG, NULL, A_VERBOSE, NULL, "more diagnostics on stderr", 3},
    {"no-progress", F_OUTFLAG, NULL, A_NOPROGRESS, NULL, "no progress lines on stderr for long runs", 3},
    {"progress", F_OUT, NULL, A_PROGRESS, "SECONDS",
     "progress lines (done %, time left) at most this often; 0 = every 65,536 events (default 2)", 3},
    {"help", F_OUTFLAG, NULL, A_HELP, NULL, "this help", 3},
    {"help-config", F_OUTFLAG, NULL, A_HELPCFG, NULL, "every scenario key with type, unit, default and help", 3},
};
#define NFLAGS (sizeof FLAGS / sizeof FLAGS[0])

typedef struct cli_out {
    const char *out, *json, *trace, *dump, *report;
    int quiet, verbose, no_progress, help, help_config;
    const char *progress_s, *trace_ranks, *trace_limit, *max_wall, *max_memory, *threads, *par_min;
} cli_out;

static void usage(FILE *f, const char *cmd) {
    if (strcmp(cmd, "generate") == 0)
        fputs("usage: clustersim generate --model PRESET|FILE --out PREFIX [--tp N --pp N --dp N] [options]\n\n"
              "Writes the plan's per-rank Chakra traces (PREFIX.<rank>.et), communicator groups, a suggested\n"
              "network and system, and PREFIX.scenario.json (clustersim run --scenario runs it exactly as train\n"
              "would).  --out is the file prefix here; the plan options are train's.\n",
              f);
    else if (strcmp(cmd, "train") == 0)
        fputs("usage: clustersim train --model PRESET|FILE --network-configuration=FILE [--tp N --pp N --dp N] "
              "[options]\n\nGenerates a training step in memory from a model and a parallelism plan, simulates it "
              "and reports\nthe iteration time, MFU, throughput and where rank 0's time went.  Every option of "
              "`run` works here.\n",
              f);
    else
        fputs("usage: clustersim run --workload-configuration=PREFIX --network-configuration=FILE [options]\n"
              "       clustersim run --scenario FILE [--set KEY=VALUE ...]\n\n"
              "Simulates a workload (Chakra traces, or a generated plan with --model) on a modelled cluster\n"
              "and reports when each rank finishes and where its time went.\n",
              f);
    static const char *const heads[] = {"\nASTRA-sim flags (accepted unchanged):\n", "\nscenario options:\n",
                                        "\ngenerated plans (model + parallelism; docs/generator.md):\n",
                                        "\noutputs:\n"};
    for (int g = 0; g < 4; g++) {
        fputs(heads[g], f);
        for (size_t i = 0; i < NFLAGS; i++) {
            const flag *o = &FLAGS[i];
            if (o->group != g) continue;
            char left[64];
            snprintf(left, sizeof left, "--%s%s%s", o->name, o->arg ? (g == 0 ? "=" : " ") : "", o->arg ? o->arg : "");
            int bracket = o->key && o->kind != F_LOAD;
            fprintf(f, "  %-36s %s%s%s%s\n", left, o->help, bracket ? "  [" : "", bracket ? o->key : "",
                    bracket ? "]" : "");
        }
    }
    fputs("\n  Bracketed: the scenario key a flag sets (defaults: --help-config).\n\nnetwork backends:\n", f);
    for (const cs_net_backend *const *b = cs_net_backends(); *b; b++) fprintf(f, "  %-24s %s\n", (*b)->name, (*b)->help);
    fputs("\nUnits: times in the report carry their unit; summary.json and ranks.csv use nanoseconds (keys end in\n"
          "_ns). Bandwidths in config files are GB/s, latencies ns.\n",
          f);
}

static const flag *find_flag(const char *name, size_t len) {
    for (size_t i = 0; i < NFLAGS; i++)
        if (strlen(FLAGS[i].name) == len && strncmp(FLAGS[i].name, name, len) == 0) return &FLAGS[i];
    return NULL;
}

/* Replace mentions of the keys the user set through flags by those flags
 * in a message (the scenario layer names keys; a CLI user typed flags). */
typedef struct used_flag { const char *typed, *key; } used_flag;

static void flagify(char *msg, size_t cap, const used_flag *used, size_t nused) {
    for (size_t u = 0; u < nused; u++) {
        char rep[64];
        snprintf(rep, sizeof rep, "--%s", used[u].typed);
        const char *key = used[u].key;
        char *p = strstr(msg, key);
        if (!p) continue;
        size_t kl = strlen(key), rl = strlen(rep), tail = strlen(p + kl);
        char c = p[kl];
        if ((c >= 'a' && c <= 'z') || c == '-' || c == '_' || c == '.') continue; /* a longer key */
        if ((size_t)(p - msg) + rl + tail + 1 > cap) continue;
        memmove(p + rl, p + kl, tail + 1);
        memcpy(p, rep, rl);
        /* "--seq --seq: ..." (the flag already named where the key stood): once */
        char twice[140];
        snprintf(twice, sizeof twice, "%s %s", rep, rep);
        char *d = strstr(msg, twice);
        if (d) memmove(d, d + rl + 1, strlen(d + rl + 1) + 1);
    }
}

/* Parse argv into the scenario (in order, after --scenario) and the output
 * options.  2 = usage error (message printed), 3 = a flag's value refused
 * (message in err), 1 = a file refused, 0 = ok. */
static int parse_flags(const char *cmd, int argc, char **argv, cs_scenario *sc, cli_out *co, cs_error *err,
                       used_flag *used, size_t *nused) {
    memset(co, 0, sizeof *co);
    *nused = 0;
    int help = 0;
    for (int i = 0; i < argc; i++) help |= strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0;
    if (!help && cs_cli_astra_prescan(argc, argv, err)) return 3;
    const char *scen[8];
    int nscen = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < argc; i++) {
            const char *a = argv[i];
            if (strcmp(a, "-h") == 0) a = "--help";
            if (strcmp(a, "-q") == 0) a = "--quiet";
            if (strcmp(a, "-v") == 0) a = "--verbose";
            if (strncmp(a, "--", 2) != 0) {
                fprintf(stderr, "clustersim %s: unexpected argument \"%s\" (options start with --; see --help)\n", cmd, a);
                return 2;
            }
            const char *name = a + 2, *eq = strchr(name, '=');
            size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
            const flag *fl = find_flag(name, nlen);
            const flag *typed_fl = fl;
            if (fl && strcmp(cmd, "run") == 0 && strcmp(fl->name, "placement") == 0)
                fl = find_flag("npu-placement", 13); /* run: --placement is the NPU placement (ASTRA-sim users) */
            if (!fl && cs_cli_astra_foreign_flag(name, nlen, err)) return 3; /* ns-3 / HTSim frontend flags */
            if (!fl) {
                fprintf(stderr, "clustersim %s: unknown option --%.*s (see clustersim %s --help)\n", cmd, (int)nlen,
                        name, cmd);
                return 2;
            }
            const char *val = NULL;
            int takes = fl->kind == F_KEY || fl->kind == F_LOAD || fl->kind == F_OUT || fl->kind == F_IGNORED ||
                        fl->kind == F_ASTRA_BIN;
            if (!takes && eq) {
                fprintf(stderr, "clustersim %s: --%s takes no value\n", cmd, fl->name);
                return 2;
            }
            if (takes) {
                if (eq) val = eq + 1;
                else if (i + 1 < argc) val = argv[++i];
                else {
                    fprintf(stderr, "clustersim %s: --%s needs a value (%s)\n", cmd, fl->name, fl->arg);
                    return 2;
                }
            }
            int is_scen = fl->kind == F_OUT && fl->out == A_SCENARIO;
            if (pass == 0) { /* first pass: --scenario and the output options */
                if (is_scen && nscen == 8) {
                    fprintf(stderr, "clustersim %s: --scenario: at most 8 scenario files (see --help)\n", cmd);
                    return 2;
                }
                if (is_scen) scen[nscen++] = val;
                if (fl->kind == F_OUT || fl->kind == F_OUTFLAG) {
                    switch (fl->out) {
                    case A_OUT: co->out = val; break;
                    case A_JSON: co->json = val; break;
                    case A_TRACE: co->trace = val; break;
                    case A_REPORT: co->report = val; break;
                    case A_DUMP: co->dump = val; break;
                    case A_QUIET: co->quiet = 1; break;
                    case A_VERBOSE: co->verbose = 1; break;
                    case A_NOPROGRESS: co->no_progress = 1; break;
                    case A_PROGRESS: co->progress_s = val; break;
                    case A_MAXWALL: co->max_wall = val; break;
                    case A_MAXMEM: co->max_memory = val; break;
                    case A_THREADS: co->threads = val; break;
                    case A_PARMIN: co->par_min = val; break;
                    case A_TRACE_RANKS: co->trace_ranks = val; break;
                    case A_TRACE_LIMIT: co->trace_limit = val; break;
                    case A_HELP: co->help = 1; break;
                    case A_HELPCFG: co->help_config = 1; break;
                    default: break;
                    }
                }
                continue;
            }
            if (co->help || co->help_config) return 0;
            char where[80];
            snprintf(where, sizeof where, "--%s", fl->name);
            int rc = CS_OK;
            if (fl->kind == F_KEY || fl->kind == F_KEYFLAG) {
                snprintf(where, sizeof where, "--%s", typed_fl->name);
                if (*nused < 64) used[(*nused)++] = (used_flag){typed_fl->name, fl->key};
                if (cs_sc_set_text(sc, fl->key, val ? val : "true", where, err)) return 3;
            } else if (fl->kind == F_LOAD) {
                rc = cs_scenario_load_kind(sc, fl->key, val, err);
            } else if (fl->kind == F_ASTRA_BIN) { /* checked by cs_cli_astra_prescan */
                char msg[1024];
                const char *be = cs_cli_astra_backend(val, msg, sizeof msg);
                if (!be) {
                    CS_ERR(err, CS_EINVAL, "%s", msg);
                    return 3;
                }
                if (cs_sc_set_text(sc, fl->key, be, where, err)) return 3;
            } else if (fl->kind == F_OUT && fl->out == A_SET) {
                const char *e2 = strchr(val, '=');
                if (!e2) {
                    fprintf(stderr, "clustersim %s: --set %s: expected KEY=VALUE\n", cmd, val);
                    return 2;
                }
                char key[256];
                snprintf(key, sizeof key, "%.*s", (int)(e2 - val), val);
                if (cs_sc_set_text(sc, key, e2 + 1, "--set", err)) return 3;
            } else if (fl->kind == F_IGNORED && strcmp(fl->name, "logging-configuration") == 0 &&
                       strcmp(val, "empty") != 0) {
                cs_info("--logging-configuration %s: ignored (clustersim logs to stderr)", val);
            }
            if (rc) return 1;
        }
        for (int k = 0; pass == 0 && k < nscen && !co->help && !co->help_config; k++) /* in order: later files win */
            if (cs_scenario_load_file(sc, scen[k], err)) {
                cs_error_prefix(err, "--scenario: ");
                return 1;
            }
    }
    return 0;
}

/* ---- outputs --------------------------------------------------------------------- */

/* The absolute form of a file that may not exist yet: its directory
 * resolved, then its name ("" when the directory does not exist). */
static void abs_file(const char *path, char *out, size_t n) {
    char dir[4096], real[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    const char *base = slash ? path + (slash - dir) + 1 : path;
    if (slash) *slash = '\0';
    if (!realpath(slash ? (dir[0] ? dir : "/") : ".", real)) {
        snprintf(out, n, "%s", path);
        return;
    }
    snprintf(out, n, "%s/%s", real, base);
}

/* Two output options naming one file would overwrite each other: refused.
 * results: the nresults files --out writes (when co->out is set).  So is
 * an output that is one of sc's input files. */
static int outputs_clash(const cs_scenario *sc, const cli_out *co, const char *const *results, size_t nresults) {
    const char *names[12], *flags[12];
    size_t k = 0;
    if (co->json) { names[k] = co->json; flags[k++] = "--json"; }
    if (co->trace) { names[k] = co->trace; flags[k++] = "--trace"; }
    if (co->report) { names[k] = co->report; flags[k++] = "--report"; }
    if (co->dump) { names[k] = co->dump; flags[k++] = "--dump-scenario"; }
    for (size_t i = 0; co->out && i < nresults && k < 12; i++) {
        names[k] = results[i];
        flags[k++] = "--out";
    }
    for (size_t i = 0; i < k; i++)
        for (size_t j = i + 1; j < k; j++) {
            char a[8300], b[8300];
            abs_file(names[i], a, sizeof a);
            abs_file(names[j], b, sizeof b);
            if (strcmp(a, b) == 0) {
                fprintf(stderr, "clustersim: error: %s %s and %s %s name the same file; expected different files\n",
                        flags[i], names[i], flags[j], strcmp(flags[j], "--out") == 0 ? co->out : names[j]);
                return 1;
            }
        }
    /* ... and an output naming an input would destroy it (--trace is opened,
     * and a failed run's results removed, before the traces are read): the
     * trace files it could be are noted as inputs now, the configuration
     * files were when loaded (core/afile.h) */
    const char *w = NULL;
    cs_error e;
    cs_error_clear(&e);
    json_t *j = sc ? cs_scenario_to_json(sc, &e) : NULL;
    w = j ? json_string_value(json_object_get(json_object_get(j, "run"), "workload")) : NULL;
    int clash = 0;
    for (size_t i = 0; i < k && !clash; i++) {
        if (w) {
            cs_input_note(w); /* one trace for every rank */
            const char *base = strrchr(names[i], '/') ? strrchr(names[i], '/') + 1 : names[i];
            size_t bl = strlen(base), d = bl;
            if (bl > 3 && strcmp(base + bl - 3, ".et") == 0) /* PREFIX.<rank>.et: that rank's file of w */
                for (d = bl - 3; d > 0 && isdigit((unsigned char)base[d - 1]); d--) {
                }
            if (bl > 3 && d < bl - 3 && d > 0 && base[d - 1] == '.') {
                char rankfile[8300];
                snprintf(rankfile, sizeof rankfile, "%s%s", w, base + d - 1);
                cs_input_note(rankfile);
            }
        }
        if (cs_output_check(names[i], &e) != CS_OK) {
            fprintf(stderr, "clustersim: error: %s %s\n", flags[i], e.msg);
            clash = 1;
        }
    }
    json_decref(j);
    return clash;
}

/* "500MB", "2GiB", "1048576": bytes (decimal and binary prefixes, B
 * optional); 0 on success, -1 when the text is not a size. */
static int parse_size(const char *text, uint64_t *bytes) {
    static const struct { const char *sfx; uint64_t mult; } units[] = {
        {"", 1}, {"B", 1}, {"KB", 1000}, {"MB", 1000000}, {"GB", 1000000000}, {"TB", 1000000000000},
        {"KiB", 1024}, {"MiB", 1048576}, {"GiB", 1073741824}, {"TiB", 1099511627776}};
    if (*text < '0' || *text > '9') return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno) return -1;
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (strcmp(end, units[i].sfx) == 0) {
            if (v > UINT64_MAX / units[i].mult) return -1;
            *bytes = v * units[i].mult;
            return 0;
        }
    return -1;
}

int cs_cli_progress_ms(const char *text, uint32_t *ms) {
    double s;
    if (cs_parse_double(text, &s) != 0 || !(s >= 0 && s <= 86400)) {
        fprintf(stderr, "clustersim: error: --progress '%s': expected seconds between 0 and 86400\n", text);
        return -1;
    }
    *ms = (uint32_t)(s * 1000.0 + 0.5);
    return 0;
}

int cs_cli_exit(int rc, const cs_error *err, int sig, const char *stopped) {
    if (rc == CS_EINTR) {
        fprintf(stderr, "clustersim: %s%s\n", err->msg, stopped);
        return 128 + (sig ? sig : SIGINT);
    }
    if (rc) {
        fprintf(stderr, "clustersim: error: %s\n", err->msg);
        const char *detail = cs_error_detail(err);
        if (detail) fputs(detail, stderr);
        return 1;
    }
    return 0;
}

int cs_cli_preload_scenarios(cs_scenario *sc, int argc, char **argv) {
    cs_error err;
    cs_error_clear(&err);
    if (cs_cli_astra_prescan(argc, argv, &err)) {
        fprintf(stderr, "clustersim: error: %s\n", err.msg);
        return 1;
    }
    for (int i = 0; i + 1 < argc; i++)
        if (strcmp(argv[i], "--scenario") == 0 && cs_scenario_load_file(sc, argv[i + 1], &err)) {
            fprintf(stderr, "clustersim: error: --scenario: %s\n", err.msg);
            return 1;
        }
    return 0;
}

/* parse_flags as one batch of sets (cs_sc_batch_begin): keys that go together
 * (network.topology and network.npus_count) may be set by separate flags in
 * any order; a section they leave inconsistent is an error naming its first
 * flag that did, once every flag is read. */
static int parse(const char *cmd, int argc, char **argv, cs_scenario *sc, cli_out *co, cs_error *err,
                 used_flag *used, size_t *nused) {
    cs_sc_batch_begin(sc);
    int rc = parse_flags(cmd, argc, argv, sc, co, err, used, nused);
    cs_error e2;
    cs_error_clear(&e2);
    int brc = cs_sc_batch_end(sc, &e2);
    if (rc == 0 && brc && !co->help && !co->help_config) {
        *err = e2;
        return 3;
    }
    return rc;
}

int cs_cli_platform_flag(cs_scenario *sc, const char *cmd, const char *name, const char *val) {
    static const struct { const char *flag, *kind; } LOAD[] = {
        {"--network-configuration", "network"}, {"--system-configuration", "system"}, {"--topology", "topology"}};
    cs_error err;
    cs_error_clear(&err);
    int rc = -1;
    for (size_t k = 0; k < sizeof LOAD / sizeof LOAD[0]; k++)
        if (strcmp(name, LOAD[k].flag) == 0) rc = cs_scenario_load_kind(sc, LOAD[k].kind, val, &err) ? 1 : 0;
    if (strcmp(name, "--backend") == 0) rc = cs_sc_set_text(sc, "run.backend", val, name, &err) ? 1 : 0;
    if (strcmp(name, "--astra-binary") == 0) { /* compared with --backend by cs_cli_astra_prescan */
        char msg[1024];
        const char *be = cs_cli_astra_backend(val, msg, sizeof msg);
        if (!be) CS_ERR(&err, CS_EINVAL, "%s", msg);
        rc = !be || cs_sc_set_text(sc, "run.backend", be, name, &err) ? 1 : 0;
    }
    if (strcmp(name, "--set") == 0) {
        const char *eq = strchr(val, '=');
        if (!eq) {
            fprintf(stderr, "clustersim %s: --set %s: expected KEY=VALUE\n", cmd, val);
            return 2;
        }
        char key[256];
        snprintf(key, sizeof key, "%.*s", (int)(eq - val), val);
        rc = cs_sc_set_text(sc, key, eq + 1, "--set", &err) ? 1 : 0;
    }
    if (rc == 1) fprintf(stderr, "clustersim: error: %s\n", err.msg);
    return rc;
}

int cs_cli_parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out) {
    long long v;
    if (cs_parse_ll(s, &v) != 0 || v < lo || v > hi) return -1;
    *out = (uint32_t)v;
    return 0;
}

void cs_cli_trap_stop(void (*on_stop)(int), int flags, struct sigaction *old_int, struct sigaction *old_term) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sa.sa_flags = flags;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, old_int);
    sigaction(SIGTERM, &sa, old_term);
}

void cs_cli_untrap_stop(const struct sigaction *old_int, const struct sigaction *old_term) {
    sigaction(SIGINT, old_int, NULL);
    sigaction(SIGTERM, old_term, NULL);
}

static volatile sig_atomic_t g_cmd_stop; /* cs_cli_stop_begin's flag */
static void on_cmd_stop(int sig) { g_cmd_stop = sig; }

volatile sig_atomic_t *cs_cli_stop_begin(cs_cli_stop *st) {
    g_cmd_stop = 0;
    cs_cli_trap_stop(on_cmd_stop, 0, &st->old_int, &st->old_term);
    return &g_cmd_stop;
}

void cs_cli_stop_end(cs_cli_stop *st) { cs_cli_untrap_stop(&st->old_int, &st->old_term); }

void cs_cli_split_flag(const char *a, char *name, size_t n, const char **val) {
    snprintf(name, n, "%s", a);
    *val = NULL;
    char *eq = strchr(name, '=');
    if (strncmp(a, "--", 2) == 0 && eq) {
        *eq = '\0';
        *val = a + (eq - name) + 1;
    }
}

/* Whether usage_fn's text names opt (followed by neither a letter, a digit
 * nor '-': "--to" is not "--to-dp"). */
static int usage_names(void (*usage_fn)(FILE *), const char *opt) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return 1; /* cannot tell: the value is what is missing */
    usage_fn(f);
    fclose(f);
    int found = 0;
    size_t n = strlen(opt);
    for (const char *p = text; !found && n && (p = strstr(p, opt)) != NULL; p += n) {
        char c = p[n];
        int before_ok = p == text || p[-1] == ' ' || p[-1] == '[' || p[-1] == ',' || p[-1] == '\n';
        found = before_ok && !(isalnum((unsigned char)c) || c == '-' || c == '_');
    }
    free(text);
    return found;
}

int cs_cli_flag_value(int argc, char **argv, int *i, const char *cmd, void (*usage_fn)(FILE *), const char *name,
                      const char **val) {
    if (*val) return 0;
    if (*i + 1 >= argc && usage_fn && !usage_names(usage_fn, name)) {
        fprintf(stderr, "clustersim %s: unknown option %s (see clustersim %s --help)\n", cmd, name, cmd);
        return 2;
    }
    if (*i + 1 >= argc) {
        fprintf(stderr, "clustersim %s: %s needs a value (see --help)\n", cmd, name);
        return 2;
    }
    *val = argv[++*i];
    return 0;
}

/* The output options that take values, checked before anything runs. */
static double g_max_wall_s;              /* --max-wall (0 = none) */
static uint64_t g_max_rss_bytes;         /* --max-memory (0 = none) */
static uint32_t g_threads;               /* --threads (1 = sequential) */
static uint32_t g_par_min;               /* --parallel-min-events */
#define CLI_MAX_THREADS 256

/* Resident pages of this process: /proc/self/statm's second field ("size
 * resident ..."), read with open, read and close only -- async-signal-safe,
 * as the limit timer's handler needs; 0 when it cannot be read. */
static uint64_t resident_pages(void) {
    char buf[128];
    int fd = open("/proc/self/statm", O_RDONLY);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0) close(fd);
    ssize_t i = 0;
    while (i < n && buf[i] != ' ') i++;
    uint64_t pages = 0;
    for (i++; i < n && buf[i] >= '0' && buf[i] <= '9'; i++) pages = pages * 10 + (uint64_t)(buf[i] - '0');
    return pages;
}

/* A flag's whole number from lo to hi into *out, or -1 after saying what
 * was expected ("a whole number of WHAT, LO to HI"). */
static int whole_flag(const char *name, const char *text, long lo, long hi, const char *what, uint32_t *out) {
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < lo || v > hi) {
        fprintf(stderr, "clustersim: error: %s '%s': expected a whole number of %s, %ld to %ld\n", name, text, what,
                lo, hi);
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

static int check_out_values(const cli_out *co, uint32_t *progress_ms, uint64_t *trace_limit) {
    *progress_ms = 2000;
    *trace_limit = (uint64_t)1 << 30;
    if (co->progress_s && cs_cli_progress_ms(co->progress_s, progress_ms) != 0) return -1;
    g_max_wall_s = 0;
    g_max_rss_bytes = 0;
    g_threads = 1;
    if (co->threads && whole_flag("--threads", co->threads, 1, CLI_MAX_THREADS, "threads", &g_threads)) return -1;
    g_par_min = CS_PAR_MIN_EVENTS_DEFAULT;
    if (co->par_min && whole_flag("--parallel-min-events", co->par_min, 0, 1000000000,
                                  "events per window and thread", &g_par_min))
        return -1;
    if (co->max_wall) {
        char *end;
        errno = 0;
        double s = strtod(co->max_wall, &end);
        if (errno || end == co->max_wall || *end || !(s > 0 && s <= 1e9)) {
            fprintf(stderr, "clustersim: error: --max-wall '%s': expected seconds of wall time, > 0 and <= 1e9\n", co->max_wall);
            return -1;
        }
        g_max_wall_s = s;
    }
    if (co->max_memory && (parse_size(co->max_memory, &g_max_rss_bytes) != 0 || !g_max_rss_bytes)) {
        fprintf(stderr,
                "clustersim: error: --max-memory '%s': expected a size in bytes with an optional unit (B, KB, MB, GB, "
                "TB, KiB, MiB, GiB, TiB), e.g. 8GiB, > 0\n",
                co->max_memory);
        return -1;
    }
    if (g_max_rss_bytes) { /* a limit below what the process holds already would stop every run at once, or
                              let a short one finish unchecked (the check ticks every 100 ms) */
        long pg = sysconf(_SC_PAGESIZE);
        uint64_t now = resident_pages() * (pg > 0 ? (uint64_t)pg : 4096);
        if (now && g_max_rss_bytes <= now) {
            fprintf(stderr,
                    "clustersim: error: --max-memory '%s': %" PRIu64 " bytes, but the program already holds %" PRIu64
                    " bytes of resident memory before the run; expected more than that\n",
                    co->max_memory, g_max_rss_bytes, now);
            return -1;
        }
    }
    if (co->trace_limit && parse_size(co->trace_limit, trace_limit) != 0) {
        fprintf(stderr,
                "clustersim: error: --trace-limit '%s': expected a size in bytes with an optional unit "
                "(B, KB, MB, GB, TB, KiB, MiB, GiB, TiB), e.g. 500MB\n",
                co->trace_limit);
        return -1;
    }
    if ((!co->trace && co->trace_limit) || (!co->trace && !co->report && co->trace_ranks)) {
        fprintf(stderr, "clustersim: error: %s applies to the timeline; expected --trace FILE%s with it\n",
                co->trace_limit ? "--trace-limit" : "--trace-ranks", co->trace_limit ? "" : " or --report FILE");
        return -1;
    }
    return 0;
}

/* SIGINT/SIGTERM during a run: the signal's number; the engine stops at
 * the next check and the handler gives way to the default (a second
 * Ctrl-C ends the process at once). */
static volatile sig_atomic_t g_stop;
static void on_stop_signal(int sig) { g_stop = sig; }

/* --max-wall / --max-memory: a 100 ms interval timer checks the wall clock
 * and the resident set (/proc/self/statm: open, read and close are
 * async-signal-safe) and stops the run as Ctrl-C does; g_limit says which
 * limit (1 wall, 2 memory) and the run ends with exit 1 and no results. */
static volatile sig_atomic_t g_limit;
static struct timespec g_limit_t0;
static uint64_t g_page_bytes;
static void on_limit_tick(int sig) {
    (void)sig;
    int saved = errno;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    double el = (double)(t.tv_sec - g_limit_t0.tv_sec) + (double)(t.tv_nsec - g_limit_t0.tv_nsec) * 1e-9;
    if (g_max_wall_s > 0 && el > g_max_wall_s && !g_limit) g_limit = 1;
    if (g_max_rss_bytes && !g_limit && resident_pages() * g_page_bytes > g_max_rss_bytes) g_limit = 2;
    if (g_limit && !g_stop) g_stop = SIGALRM;
    errno = saved;
}

/* Arm (on = 1) or disarm the limit timer; disarming gives back the SIGALRM
 * handler and the interval timer found when arming (an embedding program's,
 * e.g. libFuzzer's timeout). */
static struct sigaction g_old_alrm;
static struct itimerval g_old_timer;
static void limit_timer(int on) {
    if (on) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_limit_tick;
        sa.sa_flags = SA_RESTART;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGALRM, &sa, &g_old_alrm);
        g_limit = 0;
        long pg = sysconf(_SC_PAGESIZE);
        g_page_bytes = pg > 0 ? (uint64_t)pg : 4096;
        clock_gettime(CLOCK_MONOTONIC, &g_limit_t0);
        struct itimerval it;
        memset(&it, 0, sizeof it);
        it.it_interval.tv_usec = it.it_value.tv_usec = 100000;
        setitimer(ITIMER_REAL, &it, &g_old_timer);
    } else {
        setitimer(ITIMER_REAL, &g_old_timer, NULL);
        sigaction(SIGALRM, &g_old_alrm, NULL);
    }
}


/* An exit() while a command runs -- out of memory (core/alloc.h) is the one
 * the program makes -- leaves no results, as a failed run does: the
 * handler removes the files --out names (this run's or a previous run's)
 * and the --trace and --json files once this run has written them, and
 * says so.  Files still being written are core/afile.h's registry's.
 * Only remove() and stderr: exit() may come from anywhere. */
static struct {
    int armed, trace, json, report;
    const char *out, *trace_path, *json_path, *report_path; /* argv's */
    char results[5][4096];
} g_guard;

static void on_exit_remove_results(void) {
    if (!g_guard.armed) return;
    g_guard.armed = 0;
    for (int i = 0; g_guard.out && i < 5; i++) cs_remove_output(g_guard.results[i]);
    if (g_guard.trace) cs_remove_output(g_guard.trace_path);
    if (g_guard.json) cs_remove_output(g_guard.json_path);
    if (g_guard.report) cs_report_html_remove(g_guard.report_path);
    if (g_guard.out) {
        fputs("clustersim: no results written to ", stderr);
        fputs(g_guard.out, stderr);
        fputs("\n", stderr);
    }
}

static void guard_arm(const cli_out *co, const char *const *results) {
    static int registered;
    if (!registered) registered = atexit(on_exit_remove_results) == 0;
    memset(&g_guard, 0, sizeof g_guard);
    g_guard.out = co->out;
    g_guard.trace_path = co->trace;
    g_guard.json_path = co->json;
    g_guard.report_path = co->report;
    for (int i = 0; i < 5; i++) snprintf(g_guard.results[i], sizeof g_guard.results[i], "%s", results[i]);
    g_guard.armed = 1;
}

/* ---- run / train ---------------------------------------------------------------------- */

/* Two observers of the run (the timeline and the report's activity). */
typedef struct tee_obs { cs_exec_observer a, b; } tee_obs;
static cs_exec_observer tee_o;
static void tee_done(void *ud, const cs_node_span *s) {
    tee_obs *t = ud;
    t->a.node_done(t->a.ud, s);
    t->b.node_done(t->b.ud, s);
}

/* The scenario's rank count (0 when not known yet; the run says why). */
static uint32_t scenario_ranks(const cs_scenario *sc) {
    uint64_t n = cs_scenario_npus(sc);
    return n <= UINT32_MAX ? (uint32_t)n : 0;
}

/* The report's timeline ranks, chosen before the run (the activity keeps
 * only theirs): --trace-ranks, else one per pipeline stage of a generated
 * plan (its first rank), else the first eight; in class mode (a plan,
 * symmetry not off) a rank that is not simulated gets its class
 * representative's spans.  NULL with err set when --trace-ranks is refused. */
static cs_activity *report_activity(const cs_scenario *sc, const char *trace_ranks, uint32_t n, cs_error *err) {
    uint8_t *sel = cs_calloc(n ? n : 1, 1);
    cs_gen_model m;
    cs_device d;
    cs_gen_plan p;
    cs_error e;
    cs_error_clear(&e);
    int plan = cs_scenario_is_plan(sc) && cs_scenario_plan(sc, &m, &d, &p, &e) == CS_OK && cs_gen_ranks(&p) == n;
    if (trace_ranks) {
        if (cs_rank_list_parse(trace_ranks, n, "--trace-ranks", sel, err)) {
            cs_free(sel);
            return NULL;
        }
    } else if (plan) {
        for (uint32_t s = 0; s < p.pp && s < CS_ACTIVITY_MAX_RANKS; s++) {
            uint32_t c[CS_GEN_NDIMS] = {0};
            c[CS_DIM_PP] = s;
            sel[cs_gen_rank_of(&p, c)] = 1;
        }
    } else {
        for (uint32_t r = 0; r < n && r < 8; r++) sel[r] = 1;
    }
    cs_activity *act = cs_activity_new(sel, n, (size_t)2 << 20); /* 2 M spans, 32 MB at most */
    char sym[32] = "";
    cs_scenario_get(sc, "run.symmetry", sym, sizeof sym);
    cs_sym_axes ax;
    /* every representative a class-mode try may use (the scenario leaves out
     * the largest axis after a stopped try) keeps its spans; the run's own
     * axes pick the lane's (cli_remap_activity) */
    if (plan && !strstr(sym, "off") && cs_scenario_class_axes(sc, &p, &ax) > 0)
        for (; ax.n > 0; cs_sym_axes_drop_largest(&ax))
            for (uint32_t r = 0; r < n; r++)
                if (sel[r]) cs_activity_set_rep(act, r, cs_sym_axes_rep(&ax, r));
    cs_free(sel);
    return act;
}

static int command(const char *cmd, int argc, char **argv) {
    cs_error err;
    cs_error_clear(&err);
    cs_scenario *sc = cs_scenario_new();
    cli_out co;
    used_flag used[64];
    size_t nused = 0;
    int prc = parse(cmd, argc, argv, sc, &co, &err, used, &nused);
    if (prc == 2 || prc == 3) {
        if (prc == 3) {
            flagify(err.msg, sizeof err.msg, used, nused);
            fprintf(stderr, "clustersim: error: %s\n", err.msg);
        }
        cs_scenario_free(sc);
        return prc == 3 ? 1 : 2;
    }
    if (co.help || co.help_config) {
        if (co.help) usage(stdout, cmd);
        else cs_scenario_print_help(stdout);
        cs_scenario_free(sc);
        return 0;
    }
    if (co.verbose) cs_log_set_level(CS_LOG_INFO);
    if (prc == 0) cs_cli_astra_hints(sc, argc, argv);
    int train = strcmp(cmd, "train") == 0;
    uint32_t progress_ms;
    uint64_t trace_limit;
    if (check_out_values(&co, &progress_ms, &trace_limit) != 0) {
        cs_scenario_free(sc);
        return 1;
    }
    int rc = prc ? (err.code ? err.code : CS_EINVAL) : CS_OK;
    if (rc == CS_OK && train && !cs_scenario_is_plan(sc)) {
        fprintf(stderr, "clustersim train: --model is required (see --help)\n");
        cs_scenario_free(sc);
        return 2;
    }
    char summary_path[4096], csv_path[4096], links_path[4096], colls_path[4096], flows_path[4096];
    const char *const results[] = {summary_path, csv_path, colls_path, links_path, flows_path};
    const char *dir = co.out ? co.out : ".";
    snprintf(summary_path, sizeof summary_path, "%s/summary.json", dir);
    snprintf(csv_path, sizeof csv_path, "%s/ranks.csv", dir);
    snprintf(links_path, sizeof links_path, "%s/links.csv", dir);
    snprintf(colls_path, sizeof colls_path, "%s/collectives.csv", dir);
    snprintf(flows_path, sizeof flows_path, "%s/flows.csv", dir);
    if (rc == CS_OK && co.out) rc = cs_mkdir_p(co.out, "--out", &err);
    if (rc == CS_OK && outputs_clash(sc, &co, results, sizeof results / sizeof *results)) {
        cs_scenario_free(sc);
        return 2;
    }
    /* the outputs are known not to be inputs: only then may a failure remove them (a run refused
     * while its flags and files were read may name an input as --json or --report) */
    int outputs_checked = rc == CS_OK;
    guard_arm(&co, results); /* (no return before the disarm below) */
    if (rc == CS_OK && co.dump) rc = cs_scenario_dump_file(sc, co.dump, &err);
    cs_timeline *tl = NULL;
    cs_activity *act = NULL;
    tee_obs tee;
    cs_link_track *ltrack = NULL;
    cs_coll_out *colls = NULL;
    cs_exec_observer obs = {cs_timeline_node_done, NULL};
    cs_run_hooks hooks;
    memset(&hooks, 0, sizeof hooks);
    /* a previous run's results do not outlive this one: they are replaced
     * when it succeeds and removed when it fails */
    if (rc == CS_OK && co.out)
        for (size_t i = 0; i < sizeof results / sizeof *results; i++) cs_remove_output(results[i]);
    if (rc == CS_OK && co.report) cs_report_html_remove(co.report);
    if (rc == CS_OK && co.json) cs_remove_output(co.json); /* (as cluster and serve do with theirs) */
    hooks.progress = !co.no_progress;
    hooks.progress_ms = progress_ms;
    hooks.threads = g_threads;
    hooks.par_min_events = g_par_min;
    /* train's report and JSON list no collectives: keep none unless files are written */
    hooks.no_collectives = train && !co.out;
    if (rc == CS_OK && (co.out || (co.json && !train))) {
        rc = cs_coll_out_new(co.out ? colls_path : NULL, 1, 0, &colls, &err);
        hooks.coll_row = cs_coll_out_row;
        hooks.coll_ud = colls;
    }
    cs_result *res = NULL;
    if (rc == CS_OK && co.trace) {
        uint32_t n = scenario_ranks(sc); /* the scenario checks the network again */
        rc = cs_timeline_open(co.trace, n ? n : 1, &tl, &err);
        g_guard.trace = rc == CS_OK;
        if (rc == CS_OK && co.trace_ranks) rc = cs_timeline_select_ranks(tl, co.trace_ranks, "--trace-ranks", &err);
        if (tl) cs_timeline_set_limit(tl, trace_limit);
        obs.ud = tl;
        hooks.observer = &obs;
        ltrack = cs_link_track_new((size_t)4 << 20);
        hooks.link_util = cs_link_track_sample;
        hooks.link_queue = cs_link_track_queue;
        hooks.link_ud = ltrack;
    }
    if (rc == CS_OK && co.report) { /* the timeline's ranks, kept during the run */
        act = report_activity(sc, co.trace_ranks, scenario_ranks(sc), &err);
        if (!act) rc = err.code;
        if (act) {
            cs_exec_observer ao = {cs_activity_node_done, act};
            if (hooks.observer) { /* the timeline too */
                tee.a = *hooks.observer;
                tee.b = ao;
                tee_o = (cs_exec_observer){tee_done, &tee};
            } else {
                tee_o = ao;
            }
            hooks.observer = &tee_o;
        }
    }
    struct sigaction old_int, old_term;
    g_stop = 0;
    cs_cli_trap_stop(on_stop_signal, (int)SA_RESETHAND, &old_int, &old_term);
    hooks.stop = &g_stop;
    int limited = g_max_wall_s > 0 || g_max_rss_bytes;
    if (limited) limit_timer(1);
    if (rc == CS_OK) rc = cs_scenario_run_hooked(sc, &hooks, &res, &err);
    if (limited) limit_timer(0);
    cs_cli_untrap_stop(&old_int, &old_term);
    if (rc == CS_EINTR && g_limit) { /* a limit, not the user: a refused run (exit 1, no results) */
        char at[160];
        snprintf(at, sizeof at, "%.150s", err.msg);
        cs_error_clear(&err); /* (an error keeps its first message) */
        if (g_limit == 1)
            rc = CS_ERR(&err, CS_EUNSUPPORTED, "the run passed --max-wall %s s of wall time (%s); raise the limit, or "
                                         "choose a plan that runs in class mode (the report's symmetry line says why "
                                         "it did not)",
                        co.max_wall, at);
        else
            rc = CS_ERR(&err, CS_EUNSUPPORTED, "the run passed --max-memory %s of resident memory (%s); raise the limit or "
                                         "simulate fewer ranks",
                        co.max_memory, at);
        g_stop = 0;
    }
    int stopped = rc == CS_EINTR;
    if (rc == CS_OK && colls) rc = cs_coll_out_finish(colls, &err);
    if (rc == CS_OK && tl && res->sim.symmetric == 2 && res->plan.valid) { /* class mode: only representatives */
        uint32_t n = res->sim.nranks, shown = 0, missing = 0;
        cs_sym_axes ax;
        uint8_t *sel = cs_calloc(n ? n : 1, 1);
        cs_error e3;
        cs_error_clear(&e3);
        if (!co.trace_ranks) memset(sel, 1, n);
        else if (cs_rank_list_parse(co.trace_ranks, n, "--trace-ranks", sel, &e3)) memset(sel, 0, n);
        char list[200] = "";
        ax = res->cls_axes; /* the axes the run used */
        if (ax.n > 0)
            for (uint32_t r = 0; r < n; r++)
                if (sel[r] && cs_sym_axes_rep(&ax, r) != r) {
                    missing++;
                    if (shown < 8) {
                        size_t k = strlen(list);
                        snprintf(list + k, sizeof list - k, "%s%u (as %u)", shown ? ", " : "", r, cs_sym_axes_rep(&ax, r));
                        shown++;
                    }
                }
        if (missing)
            cs_warn("%s: class mode simulated one representative per class: %u chosen rank%s not in the timeline "
                    "(%s%s); choose representatives with --trace-ranks, or --symmetry off for every rank",
                    co.trace, missing, missing == 1 ? " is" : "s are", list, missing > shown ? ", ..." : "");
        cs_free(sel);
    }
    if (rc == CS_OK && ltrack) cs_link_track_write(ltrack, tl, res, 16);
    cs_link_track_free(ltrack);
    if (tl) {
        cs_error e2;
        cs_error_clear(&e2);
        if (stopped) cs_timeline_mark_partial(tl, err.msg);
        cs_time cut;
        if (rc == CS_OK && cs_timeline_truncated(tl, &cut)) {
            char at[32];
            fprintf(stderr,
                    "clustersim: warning: %s stopped growing at %" PRIu64 " bytes (--trace-limit) at simulated time "
                    "%s; it holds the events before that (marked truncated); choose fewer ranks with --trace-ranks "
                    "or raise --trace-limit\n",
                    co.trace, trace_limit, cs_time_fmt(cut, at, sizeof at));
        }
        int rc2 = cs_timeline_close(tl, rc ? NULL : &e2);
        if (rc == CS_OK && rc2) {
            rc = rc2;
            err = e2;
        }
        if (rc && !(stopped && rc2 == CS_OK)) cs_remove_output(co.trace); /* a failed run leaves no stale timeline */
    }
    if (rc == CS_OK) {
        const char *outputs[9];
        int no = 0;
        if (co.out) {
            rc = cs_report_summary_json(summary_path, res, colls, &err);
            if (rc == CS_OK) rc = cs_report_ranks_csv(csv_path, res, &err);
            outputs[no++] = summary_path;
            outputs[no++] = csv_path;
            outputs[no++] = colls_path;
            if (rc == CS_OK && res->topo) {
                rc = cs_links_csv(links_path, res, &err);
                outputs[no++] = links_path;
            }
            if (rc == CS_OK && cs_flows_available(res)) { /* packet-level backends */
                rc = cs_flows_csv(flows_path, res, &err);
                outputs[no++] = flows_path;
            }
        }
        if (rc == CS_OK && co.json) {
            rc = train ? cs_report_train_json(co.json, res, &err) : cs_report_summary_json(co.json, res, colls, &err);
            g_guard.json = rc == CS_OK;
            outputs[no++] = co.json;
        }
        if (rc == CS_OK && co.report) {
            if (act && res->sim.symmetric == 2 && res->cls_axes.n > 0) /* the representatives of the run's axes */
                for (uint32_t r = 0; r < res->sim.nranks; r++)
                    cs_activity_set_rep(act, r, cs_sym_axes_rep(&res->cls_axes, r));
            rc = cs_report_html(co.report, res, act, &err);
            if (rc) cs_error_prefix(&err, "--report: ");
            g_guard.report = rc == CS_OK;
            outputs[no++] = co.report;
        }
        if (co.trace) outputs[no++] = co.trace;
        outputs[no] = NULL;
        if (rc == CS_OK && !co.quiet) {
            if (res->plan.valid) cs_report_train(stdout, res);
            if (!(res->plan.valid && train)) {
                cs_report_terminal(stdout, res, outputs);
                cs_links_print_hottest(stdout, res, 5);
            }
        }
    }
    if (rc && co.out) /* no partial set of results */
        for (size_t i = 0; i < sizeof results / sizeof *results; i++) cs_remove_output(results[i]);
    if (rc && outputs_checked && co.json) cs_remove_output(co.json); /* nor an earlier run's summary, or one
                                                                        this run wrote before it failed */
    if (rc && outputs_checked && co.report) cs_report_html_remove(co.report);
    cs_coll_out_free(colls);
    cs_activity_free(act);
    cs_log_flush_summary();
    if (rc) {
        flagify(err.msg, sizeof err.msg, used, nused);
        fprintf(stderr, "clustersim: error: %s\n", err.msg);
        if (cs_error_detail(&err)) fputs(cs_error_detail(&err), stderr); /* a deadlock's full report */
        if (co.verbose && err.src_file) fprintf(stderr, "clustersim: (raised at %s:%d)\n", err.src_file, err.src_line);
        if (co.out) fprintf(stderr, "clustersim: no results written to %s\n", co.out);
        if (stopped && co.trace) fprintf(stderr, "clustersim: the timeline up to the stop is in %s (marked partial)\n", co.trace);
    }
    if (rc == CS_OK && co.verbose)
        cs_info("memory: %.1f MiB allocated at the peak; %.1f MiB of the process in huge pages (CS_THP=0: none asked for)",
                (double)cs_alloc_bytes_peak() / 1048576.0, (double)cs_alloc_huge_bytes() / 1048576.0);
    cs_result_free(res);
    cs_scenario_free(sc);
    g_guard.armed = 0;
    if (stopped) return 128 + (g_stop ? (int)g_stop : SIGINT); /* as a shell reports a signal */
    return rc ? 1 : 0;
}

int cs_cli_run(int argc, char **argv) { return command("run", argc, argv); }

int cs_cli_generate(int argc, char **argv) {
    cs_error err;
    cs_error_clear(&err);
    cs_scenario *sc = cs_scenario_new();
    cli_out co;
    used_flag used[64];
    size_t nused = 0;
    int prc = parse("generate", argc, argv, sc, &co, &err, used, &nused);
    int rc = prc == 1 ? (err.code ? err.code : CS_EINVAL) : CS_OK;
    if (prc == 3) {
        flagify(err.msg, sizeof err.msg, used, nused);
        fprintf(stderr, "clustersim: error: %s\n", err.msg);
        cs_scenario_free(sc);
        return 1;
    }
    if (prc == 2 || (prc == 0 && co.help)) {
        if (prc == 0) usage(stdout, "generate");
        cs_scenario_free(sc);
        return prc == 2 ? 2 : 0;
    }
    const char *results_flag = co.trace ? "--trace" : co.report ? "--report" : co.json ? "--json"
                               : co.trace_ranks ? "--trace-ranks" : co.trace_limit ? "--trace-limit" : NULL;
    if (rc == CS_OK && results_flag) { /* generate simulates nothing */
        fprintf(stderr, "clustersim generate: %s applies to a simulation (run, train); generate writes the traces "
                        "only\n", results_flag);
        cs_scenario_free(sc);
        return 2;
    }
    if (rc == CS_OK && (!cs_scenario_is_plan(sc) || !co.out)) {
        fprintf(stderr, "clustersim generate: %s is required (see --help)\n",
                !cs_scenario_is_plan(sc) ? "--model" : "--out PREFIX");
        cs_scenario_free(sc);
        return 2;
    }
    int sig = 0;
    if (rc == CS_OK) rc = cs_cli_generate_files(sc, co.out, co.quiet, &sig, &err);
    cs_log_flush_summary();
    if (rc) flagify(err.msg, sizeof err.msg, used, nused);
    cs_scenario_free(sc);
    return cs_cli_exit(rc, &err, sig, "; no trace written");
}
int cs_cli_train(int argc, char **argv) { return command("train", argc, argv); }

/* ---- main ------------------------------------------------------------------------------ */

static void main_help(FILE *f) {
    fputs("clustersim " CS_VERSION " -- simulator of distributed ML training clusters\n\n"
          "usage: clustersim <command> [options]\n\n"
          "commands:\n"
          "  run       simulate a scenario: Chakra traces (ASTRA-sim flags accepted) or a generated plan\n"
          "  train     generate a training step in memory and simulate it (iteration time, MFU)\n"
          "  generate  model + parallelism plan -> per-rank Chakra traces, comm groups, configs, scenario\n"
          "  inspect   summarize, validate and dump a Chakra execution trace (.et)\n"
          "  rescale   a trace set captured on N ranks rewritten for another data-, tensor- or pipeline-parallel degree\n"
          "  partition a layer's neurons across tensor-parallel workers by co-activation, traffic before/after\n"
          "  sweep     run every point of a design (grid, zip, random, seeds) on workers or MPI ranks\n"
          "  serve     a model served on a cluster: prefill and decode steps, KV cache, batching, TTFT, tokens/s\n"
          "  search    the best parallelization plans of a model on a cluster (estimate all, simulate the best)\n"
          "  bandwidth the per-dimension bandwidth split that serves a workload mix best under a budget\n"
          "  collective nccl-tests for the simulator: one collective over a range of sizes, busbw table\n"
          "  cluster   several jobs on one cluster: each alone and all together, slowdowns, shared links\n"
          "  synth     a synthetic look-alike of a trace set: behaviour kept, names and kernels hidden\n\n"
          "  clustersim <command> --help   options of a command\n"
          "  clustersim run --help-config  every scenario key\n"
          "  clustersim --version          version\n",
          f);
}

static int cli_main(int argc, char **argv) {
    if (argc < 2) {
        main_help(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        main_help(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("clustersim %s\n", CS_VERSION);
        return 0;
    }
    if (strcmp(cmd, "run") == 0) return cs_cli_run(argc - 2, argv + 2);
    if (strcmp(cmd, "inspect") == 0) return cs_cli_inspect(argc - 2, argv + 2);
    if (strcmp(cmd, "generate") == 0) return cs_cli_generate(argc - 2, argv + 2);
    if (strcmp(cmd, "train") == 0) return cs_cli_train(argc - 2, argv + 2);
    if (strcmp(cmd, "sweep") == 0) return cs_cli_sweep(argc - 2, argv + 2);
    if (strcmp(cmd, "search") == 0) return cs_cli_search(argc - 2, argv + 2);
    if (strcmp(cmd, "serve") == 0) return cs_cli_serve(argc - 2, argv + 2);
    if (strcmp(cmd, "bandwidth") == 0) return cs_cli_bandwidth(argc - 2, argv + 2);
    if (strcmp(cmd, "collective") == 0) return cs_cli_collective(argc - 2, argv + 2);
    if (strcmp(cmd, "cluster") == 0) return cs_cli_cluster(argc - 2, argv + 2);
    if (strcmp(cmd, "synth") == 0) return cs_cli_synth(argc - 2, argv + 2);
    if (strcmp(cmd, "rescale") == 0) return cs_cli_rescale(argc - 2, argv + 2);
    if (strcmp(cmd, "partition") == 0) return cs_cli_partition(argc - 2, argv + 2);
    /* ASTRA-sim style: options without a sub-command mean "run". */
    if (strncmp(cmd, "--", 2) == 0) return cs_cli_run(argc - 1, argv + 1);
    fprintf(stderr, "clustersim: unknown command \"%s\" (expected run, train, generate, inspect, rescale, partition, synth, sweep, "
                    "search, serve, bandwidth, collective or cluster; see "
                    "clustersim "
                    "--help)\n",
            cmd);
    return 2;
}

int cs_cli_main(int argc, char **argv) {
    cs_alloc_jansson(1); /* JSON values count and run out of memory as ours do (core/alloc.h) */
    cs_input_reset();    /* the inputs no result may overwrite: this command's (core/afile.h) */
    int rc = cli_main(argc, argv);
    cs_input_reset();
    cs_alloc_jansson(0);
    return rc;
}
