/*
 * cli_generate.c -- `clustersim generate`: a generated plan written out as
 * files (PREFIX.<rank>.et, PREFIX.comm_groups.json, a suggested
 * PREFIX.network.yml and PREFIX.system.json, and PREFIX.scenario.json that
 * `clustersim run --scenario` runs), and the plan description the training
 * report prints.  The plan comes from the same scenario keys as `train`
 * (src/scenario), and the suggested system file is the generator's one set
 * of defaults (cs_gen_system_for), so `train`, `generate` + `run` and
 * the C API give the same picoseconds.  A failure, or SIGINT / SIGTERM
 * (checked before every node written), removes every file of the set.  docs/generator.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_int.h"
#include "output/report.h"
#include "config/network_config.h"
#include "config/system_config.h"
#include "core/afile.h"
#include "core/alloc.h"
#include "core/log.h"
#include "scenario/scenario.h"
#include "gen/family.h"
#include "gen/gen.h"
#include "workload/workload.h"

/* The suggested network for n ranks of device d (a scale-up switch of up to
 * 8 GPUs, nodes joined by one 200 Gb/s NIC per GPU). */
static int write_network(const char *path, uint32_t n, const cs_device *d, int *ndims, cs_error *err) {
    FILE *f = fopen(path, "w");
    if (!f) return CS_ERR(err, CS_EIO, "%s: cannot write: %s", path, strerror(errno));
    fprintf(f, "# Suggested network for %u x %s (clustersim generate): scale-up switch of up to 8\n"
               "# GPUs at the device's scale-up bandwidth per direction; nodes joined by one 200 Gb/s\n"
               "# NIC per GPU (25 GB/s).  Bandwidths are in GiB/s (2^30 B/s), as the analytical\n"
               "# backend reads them.  Edit to match the cluster.\n", n, d->name);
    *ndims = n > 8 && n % 8 == 0 ? 2 : 1;
    if (*ndims == 2)
        fprintf(f, "topology: [ Switch, Switch ]\nnpus_count: [ 8, %u ]\nbandwidth: [ %.2f, %.2f ]\nlatency: [ 500.0, 2000.0 ]\n",
                n / 8, d->scaleup_bw / 1073741824.0, 25e9 / 1073741824.0);
    else
        fprintf(f, "topology: [ Switch ]\nnpus_count: [ %u ]\nbandwidth: [ %.2f ]\nlatency: [ 500.0 ]\n", n,
                d->scaleup_bw / 1073741824.0);
    if (fclose(f) != 0) return CS_ERR(err, CS_EIO, "%s: cannot write", path);
    return CS_OK;
}

/* PREFIX.system.json: the generator's defaults for the plan on the network
 * written at netpath (the nccl model, or astra with a note saying why), as
 * train uses them. */
static int write_system(const char *path, const char *netpath, const cs_device *d, const cs_gen_plan *p,
                        cs_error *err) {
    cs_network_config nc;
    int rc = cs_network_config_load(netpath, &nc, err);
    if (rc) return rc;
    cs_system_config sc;
    char why[640];
    rc = cs_gen_system_for(&nc, d, p, &sc, why, sizeof why);
    cs_network_config_free(&nc);
    if (rc) return CS_ERR(err, rc, "%s: cannot make the generator's system defaults", path);
    if (why[0])
        cs_warn("note: %s uses collective-model astra (ring on every dimension, a queue per communicator), not the "
                "default nccl: %s; "
                "its \"collective-model\" key chooses (astra or nccl)", path, why);
    json_t *j = cs_system_config_to_json(&sc);
    cs_system_config_free(&sc);
    rc = cs_write_json_atomic(path, j, err);
    json_decref(j);
    return rc;
}

int cs_cli_generate_files(cs_scenario *sc, const char *prefix, int quiet, int *sig, cs_error *err) {
    cs_gen_model m;
    cs_device d;
    cs_gen_plan p;
    int rc = cs_scenario_plan(sc, &m, &d, &p, err);
    uint32_t n = rc == CS_OK ? cs_gen_ranks(&p) : 0;
    char path[4096], net[4096], sys[4096], grp[4096];
    int began = 0;
    if (rc == CS_OK) rc = cs_workload_check_out_prefix("--out", prefix, n, err);
    cs_cli_stop trap; /* Ctrl-C stops before the next node: never a half-written trace under the prefix */
    volatile sig_atomic_t *stop = cs_cli_stop_begin(&trap);
    for (uint32_t r = 0; rc == CS_OK && r < n; r++) {
        if (*stop) {
            rc = CS_ERR(err, CS_EINTR, "generate stopped after writing %u of %u ranks", r, n);
            break;
        }
        snprintf(path, sizeof path, "%s.%u.et", prefix, r);
        began = 1;
        rc = cs_gen_write_rank(&m, &p, &d, r, path, stop, err);
        if (rc == CS_EINTR) { /* within the rank (the generator checks before each node) */
            cs_error_clear(err);
            rc = CS_ERR(err, CS_EINTR, "generate stopped after writing %u of %u ranks (while writing rank %u)", r, n,
                        r);
        }
    }
    snprintf(grp, sizeof grp, "%s.comm_groups.json", prefix);
    snprintf(net, sizeof net, "%s.network.yml", prefix);
    snprintf(sys, sizeof sys, "%s.system.json", prefix);
    if (rc == CS_OK) {
        cs_comm_groups g;
        cs_gen_comm_groups(&p, &g);
        rc = cs_gen_comm_groups_write(&g, grp, err);
        cs_comm_groups_free(&g);
    }
    int ndims = 1;
    if (rc == CS_OK) rc = write_network(net, n, &d, &ndims, err);
    if (rc == CS_OK) rc = write_system(sys, net, &d, &p, err);
    if (rc == CS_OK && *stop) rc = CS_ERR(err, CS_EINTR, "generate stopped after writing the %u ranks' traces", n);
    if (rc == CS_OK) { /* the scenario that runs these files as train runs the plan */
        cs_scenario *s2 = cs_scenario_new();
        char sym[16];
        rc = cs_scenario_load_kind(s2, "network", net, err);
        if (rc == CS_OK) rc = cs_scenario_load_kind(s2, "system", sys, err);
        if (rc == CS_OK) rc = cs_scenario_load_kind(s2, "comm-groups", grp, err);
        if (rc == CS_OK) rc = cs_sc_set_text(s2, "run.workload", prefix, "generate", err);
        if (rc == CS_OK) rc = cs_sc_set_text(s2, "run.comm-streams", "4", "generate", err);
        if (rc == CS_OK && cs_scenario_get(sc, "run.symmetry", sym, sizeof sym) == 0 && strcmp(sym, "\"off\"") == 0)
            rc = cs_sc_set_text(s2, "run.symmetry", "off", "generate", err);
        snprintf(path, sizeof path, "%s.scenario.json", prefix);
        if (rc == CS_OK) rc = cs_scenario_dump_file(s2, path, err);
        cs_scenario_free(s2);
    }
    if (rc && began) { /* the set under the prefix is broken: none of it stays */
        cs_workload_remove_ranks(prefix);
        unlink(grp);
        unlink(net);
        unlink(sys);
        snprintf(path, sizeof path, "%s.scenario.json", prefix);
        unlink(path);
    }
    cs_cli_stop_end(&trap);
    if (rc == CS_EINTR) *sig = (int)*stop;
    if (rc) return rc;
    if (!quiet) {
        printf("clustersim %s -- generated workload\n\n", CS_VERSION);
        cs_report_plan(stdout, &m, &d, &p);
        printf("\n  wrote %s.0.et .. %s.%u.et, %s.comm_groups.json, %s.network.yml, %s.system.json,\n"
               "        %s.scenario.json\n"
               "  run:  clustersim run --scenario %s.scenario.json\n"
               "   or:  clustersim run --workload-configuration=%s --comm-group-configuration=%s.comm_groups.json \\\n"
               "          --network-configuration=%s.network.yml --system-configuration=%s.system.json --comm-streams=4\n",
               prefix, prefix, n - 1, prefix, prefix, prefix, prefix, prefix, prefix, prefix, prefix, prefix);
    }
    return CS_OK;
}
