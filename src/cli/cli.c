/*
 * cli.c -- command-line parsing and the `run` and `inspect` sub-commands.
 *
 * Every option of `run` is declared once in run_options[] with its argument,
 * default and help; that table drives parsing (--name=value and --name value),
 * --help and the "cli" part of the effective configuration.  ASTRA-sim's long
 * flags are accepted unchanged.
 */
#include "cli/cli.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/cli_int.h"
#include "config/memory_config.h"
#include "config/network_config.h"
#include "core/alloc.h"
#include "core/log.h"
#include "network/network.h"
#include "config/topology_file.h"
#include "output/collectives.h"
#include "output/links.h"
#include "output/report.h"
#include "output/timeline.h"
#include "workload/sim.h"
#include "workload/workload.h"

/* ---- option table --------------------------------------------------------- */

enum { OPT_FLAG, OPT_STR, OPT_INT, OPT_DOUBLE };

typedef struct opt_desc {
    const char *name;
    int kind;
    size_t offset;
    const char *arg;
    const char *def;
    const char *help;
    int astra; /* 1 = an ASTRA-sim flag */
} opt_desc;

#define O(field) offsetof(cs_run_opts, field)

static const opt_desc run_options[] = {
    {"workload-configuration", OPT_STR, O(workload), "PREFIX", NULL,
     "Chakra traces PREFIX.<rank>.et, one per NPU (or one file used by every rank)", 1},
    {"network-configuration", OPT_STR, O(network), "FILE", NULL,
     "network YAML (ASTRA-sim analytical format: topology, npus_count, bandwidth GB/s, latency ns)", 1},
    {"system-configuration", OPT_STR, O(system), "FILE", NULL, "system JSON (ASTRA-sim format)", 1},
    {"remote-memory-configuration", OPT_STR, O(memory), "FILE", NULL, "remote-memory JSON (ASTRA-sim format)", 1},
    {"comm-group-configuration", OPT_STR, O(comm_group), "FILE", "empty",
     "communicator groups JSON, or \"empty\"", 1},
    {"logging-configuration", OPT_STR, O(logging_cfg), "FILE", "empty",
     "accepted for ASTRA-sim compatibility; clustersim logs to stderr (see -v)", 1},
    {"logging-folder", OPT_STR, O(logging_folder), "DIR", "log",
     "accepted for ASTRA-sim compatibility; use --out for result files", 1},
    {"num-queues-per-dim", OPT_INT, O(num_queues_per_dim), "N", "1", "ASTRA-sim: queues per dimension", 1},
    {"compute-scale", OPT_DOUBLE, O(compute_scale), "X", "1", "ASTRA-sim: parsed, unused by its analytical backend", 1},
    {"comm-scale", OPT_DOUBLE, O(comm_scale), "X", "1", "ASTRA-sim: communication size scale", 1},
    {"injection-scale", OPT_DOUBLE, O(injection_scale), "X", "1", "ASTRA-sim: endpoint-delay scale", 1},
    {"rendezvous-protocol", OPT_STR, O(rendezvous), "BOOL", "false", "ASTRA-sim: rendezvous send/recv", 1},
    {"backend", OPT_STR, O(backend), "NAME", CS_NET_DEFAULT_BACKEND, "network backend (see below)", 0},
    {"topology", OPT_STR, O(topology), "FILE", NULL,
     "physical topology JSON for --backend flow (docs/topology.md); default: the network's dimensions", 0},
    {"placement", OPT_STR, O(placement), "STRATEGY", "contiguous",
     "--backend flow: ranks onto NPUs: contiguous, random[:SEED], strided:K, pack (each comm group under "
     "as few switches as possible; docs/topology.md)", 0},
    {"compare-healthy", OPT_FLAG, O(compare_healthy), NULL, NULL,
     "--backend flow: also simulate the topology without its failed/degraded links and timed changes, "
     "and report both times and the slowdown", 0},
    {"out", OPT_STR, O(out), "DIR", NULL, "write summary.json, ranks.csv, collectives.csv (and links.csv with --backend flow) into DIR (created if needed)", 0},
    {"json", OPT_STR, O(json), "FILE", NULL, "write the summary JSON to FILE", 0},
    {"trace", OPT_STR, O(trace), "FILE", NULL, "write a Chrome/Perfetto timeline (open in ui.perfetto.dev)", 0},
    {"symmetry", OPT_STR, O(symmetry), "auto|off", "auto",
     "auto: when every rank provably follows the same timeline, simulate one and copy its results "
     "(identical); off: simulate every rank", 0},
    {"comm-streams", OPT_INT, O(comm_streams), "N", "1",
     "communication ops a rank runs at once (collectives, sends, memory); ASTRA-sim: 1", 0},
    {"ignore-ctrl-deps", OPT_FLAG, O(ignore_ctrl_deps), NULL, NULL,
     "honour data dependencies only (Chakra v1 feeder behaviour; sensible for PyTorch traces)", 0},
    {"allow-missing-data-deps", OPT_FLAG, O(allow_missing_data_deps), NULL, NULL,
     "drop data dependencies on nodes absent from a trace (default: error)", 0},
    {"quiet", OPT_FLAG, O(quiet), NULL, NULL, "no terminal report", 0},
    {"verbose", OPT_FLAG, O(verbose), NULL, NULL, "more diagnostics on stderr", 0},
    {"no-progress", OPT_FLAG, O(no_progress), NULL, NULL, "no progress lines on stderr for long runs", 0},
    {"help", OPT_FLAG, O(help), NULL, NULL, "this help", 0},
    {"help-config", OPT_FLAG, O(help_config), NULL, NULL,
     "every key of the network, system, remote-memory and topology files, with type, unit and default", 0},
};
#define NOPTS (sizeof run_options / sizeof run_options[0])

static void run_help(FILE *f) {
    fputs("usage: clustersim run --workload-configuration=PREFIX --network-configuration=FILE [options]\n\n"
          "Simulates one training step (or any Chakra workload) on a modelled cluster and reports\n"
          "when each rank finishes and where its time went.\n\n"
          "ASTRA-sim flags (accepted unchanged):\n",
          f);
    for (int pass = 1; pass >= 0; pass--) {
        if (pass == 0) fputs("\nclustersim options:\n", f);
        for (size_t i = 0; i < NOPTS; i++) {
            const opt_desc *o = &run_options[i];
            if (o->astra != pass) continue;
            char left[64];
            snprintf(left, sizeof left, "--%s%s%s", o->name, o->arg ? "=" : "", o->arg ? o->arg : "");
            fprintf(f, "  %-40s %s", left, o->help);
            if (o->def) fprintf(f, " [default: %s]", o->def);
            fputc('\n', f);
        }
    }
    fputs("\nnetwork backends:\n", f);
    for (const cs_net_backend *const *b = cs_net_backends(); *b; b++)
        fprintf(f, "  %-20s %s\n", (*b)->name, (*b)->help);
    fputs("\nUnits: times in the report are printed with their unit; summary.json and ranks.csv\n"
          "use nanoseconds (keys end in _ns). Bandwidths in config files are GB/s, latencies ns.\n",
          f);
}

static int set_option(cs_run_opts *ro, const opt_desc *o, const char *val) {
    char *base = (char *)ro;
    char *end = NULL;
    switch (o->kind) {
    case OPT_FLAG: *(int *)(base + o->offset) = 1; return 0;
    case OPT_STR: *(const char **)(base + o->offset) = val; return 0;
    case OPT_INT: {
        errno = 0;
        long v = strtol(val, &end, 10);
        if (errno || !*val || *end) {
            fprintf(stderr, "clustersim run: --%s: expected an integer, got \"%s\"\n", o->name, val);
            return -1;
        }
        *(long *)(base + o->offset) = v;
        return 0;
    }
    case OPT_DOUBLE: {
        errno = 0;
        double v = strtod(val, &end);
        if (errno || !*val || *end) {
            fprintf(stderr, "clustersim run: --%s: expected a number, got \"%s\"\n", o->name, val);
            return -1;
        }
        *(double *)(base + o->offset) = v;
        return 0;
    }
    }
    return -1;
}

int cs_cli_parse_run(int argc, char **argv, cs_run_opts *ro) {
    memset(ro, 0, sizeof *ro);
    for (size_t i = 0; i < NOPTS; i++)
        if (run_options[i].def && run_options[i].kind != OPT_FLAG) set_option(ro, &run_options[i], run_options[i].def);
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0) a = "--help";
        if (strcmp(a, "-q") == 0) a = "--quiet";
        if (strcmp(a, "-v") == 0) a = "--verbose";
        if (strncmp(a, "--", 2) != 0) {
            fprintf(stderr, "clustersim run: unexpected argument \"%s\" (options start with --; see --help)\n", a);
            return -1;
        }
        const char *name = a + 2, *eq = strchr(name, '=');
        size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
        const opt_desc *o = NULL;
        for (size_t k = 0; k < NOPTS; k++)
            if (strlen(run_options[k].name) == nlen && strncmp(run_options[k].name, name, nlen) == 0) o = &run_options[k];
        if (!o) {
            fprintf(stderr, "clustersim run: unknown option --%.*s (see clustersim run --help)\n", (int)nlen, name);
            return -1;
        }
        const char *val = NULL;
        if (o->kind == OPT_FLAG) {
            if (eq) {
                fprintf(stderr, "clustersim run: --%s takes no value\n", o->name);
                return -1;
            }
        } else if (eq) {
            val = eq + 1;
        } else if (i + 1 < argc) {
            val = argv[++i];
        } else {
            fprintf(stderr, "clustersim run: --%s needs a value (%s)\n", o->name, o->arg);
            return -1;
        }
        if (set_option(ro, o, val)) return -1;
    }
    return 0;
}

static json_t *cli_config_json(const cs_run_opts *ro) {
    json_t *o = json_object();
    const char *base = (const char *)ro;
    for (size_t i = 0; i < NOPTS; i++) {
        const opt_desc *d = &run_options[i];
        if (strcmp(d->name, "help") == 0 || strcmp(d->name, "quiet") == 0 || strcmp(d->name, "verbose") == 0 ||
            strcmp(d->name, "no-progress") == 0 || strcmp(d->name, "trace") == 0 || strcmp(d->name, "out") == 0 ||
            strcmp(d->name, "json") == 0 || strcmp(d->name, "symmetry") == 0)
            continue; /* (symmetry changes how, not what: results are identical) */
        switch (d->kind) {
        case OPT_FLAG: json_object_set_new(o, d->name, json_boolean(*(const int *)(base + d->offset))); break;
        case OPT_STR: {
            const char *v = *(const char *const *)(base + d->offset);
            json_object_set_new(o, d->name, v ? json_string(v) : json_null());
            break;
        }
        case OPT_INT: json_object_set_new(o, d->name, json_integer(*(const long *)(base + d->offset))); break;
        case OPT_DOUBLE: json_object_set_new(o, d->name, json_real(*(const double *)(base + d->offset))); break;
        }
    }
    return o;
}

/* ---- run ------------------------------------------------------------------- */

/* --compare-healthy: simulate the workload once with the backend asked for
 * the healthy network (every link at its built bandwidth, no timed changes;
 * the topology is not touched), with no observers and no outputs. */
static int run_healthy(const cs_workload *w, const cs_network_config *net, const cs_sim_options *so, cs_time *t,
                       cs_error *err) {
    cs_sim_options ho = *so;
    ho.observer = NULL;
    ho.coll_observer = NULL;
    ho.progress = 0;
    ho.net_observer = NULL;
    ho.link_report = NULL;
    ho.net_healthy = 1;
    cs_sim_result hr;
    memset(&hr, 0, sizeof hr);
    int rc = cs_sim_run(w, net, &ho, &hr, err);
    if (rc == CS_OK) *t = hr.sim_time;
    else cs_error_prefix(err, "--compare-healthy (healthy run): ");
    cs_sim_result_free(&hr);
    return rc;
}

/* "--backend flow" (or "--backend a or --backend b"): the backends that use a
 * topology (CS_NET_NEEDS_TOPOLOGY), for messages. */
static void topo_backends(char *buf, size_t n) {
    size_t len = 0;
    buf[0] = '\0';
    for (const cs_net_backend *const *b = cs_net_backends(); *b && len < n; b++)
        if ((*b)->caps & CS_NET_NEEDS_TOPOLOGY)
            len += (size_t)snprintf(buf + len, n - len, "%s--backend %s", len ? " or " : "", (*b)->name);
}

static int mkdir_p(const char *dir, cs_error *err) {
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0755) != 0 && errno != EEXIST)
                return CS_ERR(err, CS_EIO, "--out %s: cannot create %s: %s", dir, buf, strerror(errno));
            *p = '/';
        }
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
        return CS_ERR(err, CS_EIO, "--out %s: cannot create directory: %s", dir, strerror(errno));
    struct stat st;
    if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
        return CS_ERR(err, CS_EIO, "--out %s: expected a directory", dir);
    return CS_OK;
}

static double wall_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void warn_astra_only(const cs_run_opts *ro) {
    if (ro->num_queues_per_dim != 1)
        cs_warn("--num-queues-per-dim=%ld: only 1 queue per dimension is modelled; using 1", ro->num_queues_per_dim);
    if (ro->comm_scale != 1.0) cs_warn("--comm-scale=%g is not modelled yet; ignored", ro->comm_scale);
    if (ro->rendezvous && strcmp(ro->rendezvous, "false") != 0 && strcmp(ro->rendezvous, "0") != 0)
        cs_warn("--rendezvous-protocol=%s is not modelled; sends are eager", ro->rendezvous);
    if (ro->logging_cfg && strcmp(ro->logging_cfg, "empty") != 0)
        cs_info("--logging-configuration %s: ignored (clustersim logs to stderr)", ro->logging_cfg);
}

int cs_cli_run(int argc, char **argv) {
    cs_run_opts ro;
    if (cs_cli_parse_run(argc, argv, &ro)) return 2;
    if (ro.help) {
        run_help(stdout);
        return 0;
    }
    if (ro.help_config) {
        fputs("== network YAML (--network-configuration)\n", stdout);
        cs_network_config_print_help(stdout);
        fputs("\n== system JSON (--system-configuration)\n", stdout);
        cs_system_config_print_help(stdout);
        fputs("\n== remote-memory JSON (--remote-memory-configuration)\n", stdout);
        cs_memory_config_print_help(stdout);
        fputs("\n== topology JSON (--topology, --backend flow)\n", stdout);
        cs_topology_file_print_help(stdout);
        return 0;
    }
    if (ro.verbose) cs_log_set_level(CS_LOG_INFO);
    if (!ro.workload || !ro.network) {
        fprintf(stderr, "clustersim run: %s is required (see clustersim run --help)\n",
                !ro.workload ? "--workload-configuration=PREFIX" : "--network-configuration=FILE");
        return 2;
    }
    if (strcmp(ro.symmetry, "auto") != 0 && strcmp(ro.symmetry, "off") != 0) {
        fprintf(stderr, "clustersim run: --symmetry: expected auto or off, got \"%s\"\n", ro.symmetry);
        return 2;
    }
    if (ro.comm_streams < 1) {
        fprintf(stderr, "clustersim run: --comm-streams: expected an integer >= 1, got %ld\n", ro.comm_streams);
        return 2;
    }
    warn_astra_only(&ro);
    double t0 = wall_now();
    cs_error err;
    cs_error_clear(&err);
    cs_network_config net;
    memset(&net, 0, sizeof net);
    cs_system_config sysc; /* system JSON and comm groups: owned here, used by the run */
    memset(&sysc, 0, sizeof sysc);
    cs_comm_groups groups;
    memset(&groups, 0, sizeof groups);
    cs_memory_config mem; /* NO_MEMORY_EXPANSION unless --remote-memory-configuration */
    cs_memory_config_defaults(&mem);
    cs_workload w;
    memset(&w, 0, sizeof w);
    cs_sim_result res;
    memset(&res, 0, sizeof res);
    cs_timeline *tl = NULL;
    cs_coll_agg *colls = NULL; /* per-collective records (output/collectives.h) */
    char colls_path[4096];
    json_t *config = NULL;
    cs_sim_options so;
    cs_sim_options_init(&so);
    so.backend = ro.backend;
    so.comm_streams = (uint32_t)ro.comm_streams;
    so.progress = !ro.no_progress;
    so.symmetry = strcmp(ro.symmetry, "off") == 0 ? CS_SYMMETRY_OFF : CS_SYMMETRY_AUTO;

    int rc = ro.out ? mkdir_p(ro.out, &err) : CS_OK;
    if (rc == CS_OK) rc = cs_network_config_load(ro.network, &net, &err);
    cs_topo *topo = NULL; /* physical graph of the flow backend (links.csv); owned here */
    if (rc == CS_OK && ro.topology) rc = cs_topology_file_load(ro.topology, &net, &topo, &err);
    else if (rc == CS_OK && cs_net_backend_has(ro.backend, CS_NET_NEEDS_TOPOLOGY)) topo = cs_topo_build_astra(&net);
    char topo_be[128]; /* "--backend flow": the backends that use a topology, for messages */
    topo_backends(topo_be, sizeof topo_be);
    if (rc == CS_OK && topo && !cs_net_backend_has(ro.backend, CS_NET_NEEDS_TOPOLOGY))
        rc = CS_ERR(&err, CS_EINVAL, "--topology %s: only %s uses a topology", ro.topology, topo_be);
    net.topology = topo;
    if (rc == CS_OK && !cs_net_backend_find(ro.backend))
        rc = CS_ERR(&err, CS_EINVAL, "--backend %s: unknown network backend; expected one of the list in "
                                     "clustersim run --help", ro.backend);
    config = json_object();
    if (rc == CS_OK) rc = cs_cli_apply_system(&ro, &net, &so, &sysc, &groups, config, &err);
    if (rc == CS_OK && ro.placement && strcmp(ro.placement, "contiguous") != 0) {
        if (!topo) rc = CS_ERR(&err, CS_EINVAL, "--placement %s needs %s", ro.placement, topo_be);
        else {
            cs_placement_group *pg = cs_calloc(groups.ngroups ? groups.ngroups : 1, sizeof *pg);
            for (size_t i = 0; i < groups.ngroups; i++) pg[i] = (cs_placement_group){groups.groups[i].ranks, groups.groups[i].nranks};
            rc = cs_topo_place(topo, ro.placement, pg, groups.ngroups, &err);
            cs_free(pg);
        }
    }
    if (rc == CS_OK && ro.memory) rc = cs_memory_config_load(ro.memory, &mem, &err);
    so.memory = &mem;
    if (rc == CS_OK) {
        cs_graph_options go = {ro.ignore_ctrl_deps, ro.allow_missing_data_deps};
        rc = cs_workload_load(ro.workload, (uint32_t)net.total_npus, &go, &w, &err);
    }
    cs_sim_observer obs = {cs_timeline_node_done, NULL};
    if (rc == CS_OK && ro.trace) {
        rc = cs_timeline_open(ro.trace, w.nranks, &tl, &err);
        obs.ud = tl;
        so.observer = &obs;
    }
    cs_coll_observer cobs;
    if (rc == CS_OK) {
        snprintf(colls_path, sizeof colls_path, "%s/collectives.csv", ro.out ? ro.out : ".");
        cs_coll_agg_params cp = {ro.out ? colls_path : NULL, ro.out || ro.json, 0, &groups};
        rc = cs_coll_agg_new(&cp, &colls, &err);
        cobs = cs_coll_agg_observer(colls);
        so.coll_observer = &cobs;
        so.coll_records_representative = 1; /* symmetric runs: one record per collective */
    }
    cs_time healthy_time = 0;
    if (rc == CS_OK && ro.compare_healthy) {
        if (!topo) rc = CS_ERR(&err, CS_EINVAL, "--compare-healthy needs %s", topo_be);
        else rc = run_healthy(&w, &net, &so, &healthy_time, &err);
    }
    cs_link_track *ltrack = NULL; /* link utilization counter tracks for --trace (output/links.h) */
    cs_net_observer lobs = {cs_link_track_sample, NULL};
    if (rc == CS_OK && tl && topo) {
        ltrack = cs_link_track_new((size_t)4 << 20);
        lobs.ud = ltrack;
        so.net_observer = &lobs;
    }
    cs_net_link_report lrep = {0, NULL}; /* the backend's link statistics (links.csv, hottest links) */
    if (topo) so.link_report = &lrep;
    if (rc == CS_OK) rc = cs_sim_run(&w, &net, &so, &res, &err);
    if (rc == CS_OK) rc = cs_coll_agg_finish(colls, &err);
    if (rc == CS_OK && ltrack) cs_link_track_write(ltrack, tl, topo, &lrep, w.nranks, 16);
    cs_link_track_free(ltrack);
    if (tl) {
        cs_error e2;
        cs_error_clear(&e2);
        int rc2 = cs_timeline_close(tl, rc ? NULL : &e2);
        if (rc == CS_OK && rc2) {
            rc = rc2;
            err = e2;
        }
    }
    cs_run_info info;
    memset(&info, 0, sizeof info);
    char summary_path[4096], csv_path[4096];
    if (rc == CS_OK) {
        json_object_set_new(config, "cli", cli_config_json(&ro));
        json_object_set_new(config, "network", cs_network_config_to_json(&net));
        json_object_set_new(config, "network_units", cs_network_config_units_json());
        json_object_set_new(config, "memory", cs_memory_config_to_json(&mem));
        json_object_set_new(config, "memory_units", cs_memory_config_units_json());
        info.workload = &w;
        info.network = &net;
        info.backend = ro.backend;
        info.config = config;
        info.collectives = colls;
        info.has_healthy = ro.compare_healthy;
        info.healthy_time = healthy_time;
        if (topo) {
            json_t *tj = json_object();
            uint32_t down, degraded;
            cs_topo_count_faults(topo, &down, &degraded);
            json_object_set_new(tj, "description", json_string(topo->desc ? topo->desc : ""));
            json_object_set_new(tj, "links", json_integer(topo->nlinks));
            json_object_set_new(tj, "links_down_at_start", json_integer(down));
            json_object_set_new(tj, "links_degraded_at_start", json_integer(degraded));
            json_object_set_new(tj, "timed_changes", json_integer(topo->nchanges));
            json_object_set_new(tj, "placement", json_string(topo->placement[0] ? topo->placement : "contiguous"));
            if (groups.ngroups) { /* switches each comm group spans under this placement */
                json_t *gs = json_object();
                for (size_t i = 0; i < groups.ngroups; i++)
                    json_object_set_new(gs, groups.groups[i].name,
                                        json_integer(cs_topo_group_switches(topo, groups.groups[i].ranks,
                                                                            groups.groups[i].nranks)));
                json_object_set_new(tj, "group_switches", gs);
            }
            json_object_set_new(config, "topology", tj);
        }
        int no = 0;
        if (ro.out) {
            {
                snprintf(summary_path, sizeof summary_path, "%s/summary.json", ro.out);
                snprintf(csv_path, sizeof csv_path, "%s/ranks.csv", ro.out);
                rc = cs_report_summary_json(summary_path, &info, &res, &err);
                if (rc == CS_OK) rc = cs_report_ranks_csv(csv_path, &res, &err);
                info.outputs[no++] = summary_path;
                info.outputs[no++] = csv_path;
                info.outputs[no++] = colls_path;
            }
        }
        if (rc == CS_OK && ro.json) {
            rc = cs_report_summary_json(ro.json, &info, &res, &err);
            info.outputs[no++] = ro.json;
        }
        char links_path[4096];
        if (rc == CS_OK && ro.out && topo) {
            snprintf(links_path, sizeof links_path, "%s/links.csv", ro.out);
            rc = cs_links_csv(links_path, topo, &lrep, res.sim_time, &err);
            info.outputs[no++] = links_path;
        }
        if (ro.trace) info.outputs[no++] = ro.trace;
        info.wall_s = wall_now() - t0;
        if (rc == CS_OK && !ro.quiet) cs_report_terminal(stdout, &info, &res);
        if (rc == CS_OK && !ro.quiet && topo) cs_links_print_hottest(stdout, topo, &lrep, res.sim_time, 5);
    }
    cs_log_flush_summary();
    if (rc) {
        fprintf(stderr, "clustersim: error: %s\n", err.msg);
        if (ro.verbose && err.src_file) fprintf(stderr, "clustersim: (raised at %s:%d)\n", err.src_file, err.src_line);
    }
    json_decref(config);
    cs_coll_agg_free(colls);
    cs_sim_result_free(&res);
    cs_workload_free(&w);
    cs_network_config_free(&net);
    cs_topo_free(topo);
    cs_net_link_report_free(&lrep);
    cs_memory_config_free(&mem);
    cs_system_config_free(&sysc);
    cs_comm_groups_free(&groups);
    return rc ? 1 : 0;
}

/* ---- main ------------------------------------------------------------------- */

static void main_help(FILE *f) {
    fputs("clustersim " CS_VERSION " -- simulator of distributed ML training clusters\n\n"
          "usage: clustersim <command> [options]\n\n"
          "commands:\n"
          "  run       simulate a workload (Chakra traces) on a network; ASTRA-sim flags accepted\n"
          "  inspect   summarize, validate and dump a Chakra execution trace (.et)\n"
          "  generate  model + parallelism plan -> per-rank Chakra traces, comm groups, configs\n"
          "  train     generate a training step in memory and simulate it (iteration time, MFU)\n\n"
          "  clustersim <command> --help   options of a command\n"
          "  clustersim --version          version\n",
          f);
}

int cs_cli_main(int argc, char **argv) {
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
    /* ASTRA-sim style: options without a sub-command mean "run". */
    if (strncmp(cmd, "--", 2) == 0) return cs_cli_run(argc - 1, argv + 1);
    fprintf(stderr, "clustersim: unknown command \"%s\" (expected run or inspect; see clustersim --help)\n", cmd);
    return 2;
}
