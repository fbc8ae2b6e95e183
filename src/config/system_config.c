/*
 * system_config.c -- reader for the ASTRA-sim system JSON (see
 * system_config.h).
 *
 * The keys are declared once, in the system layer's table
 * (system/system_config.c, cs_system_config_opts); the option engine
 * (core/opts.c) turns it into parsing, messages, the dump and --help.  What
 * a table row cannot say lives here: the rules "roofline-enabled needs
 * peak-perf" and "collective-optimization is required unless the all-reduce
 * is a custom graph", communicator-queues defaulting to per-communicator
 * under collective-model nccl, and the cross-check of the algorithm lists
 * against the network.
 */
#include "config/system_config.h"

#include <string.h>

#include "core/alloc.h"
#include "core/opts.h"

/* The key table (system/system_config.c) and its size. */
static const cs_opt *table(size_t *n) { return cs_system_config_opts(n); }

static size_t opt_index(const char *key) {
    size_t n;
    const cs_opt *opts = table(&n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(opts[i].key, key) == 0) return i;
    return n;
}

int cs_system_config_load(const char *path, cs_system_config *out, cs_error *err) {
    return cs_system_config_load_text(path, NULL, 0, out, err);
}

int cs_system_config_load_text(const char *path, const char *text, size_t len, cs_system_config *out, cs_error *err) {
    cs_system_config_defaults(out);
    cs_jdoc doc;
    int rc = text ? cs_jdoc_load_text(path, text, len, "system configuration", &doc, err)
                  : cs_jdoc_load(path, "system configuration", &doc, err);
    if (rc) {
        cs_system_config_free(out);
        return rc;
    }
    out->path = cs_strdup(path);
    size_t nopts;
    const cs_opt *opts = table(&nopts);
    int *lines = cs_calloc(nopts + 1, sizeof *lines); /* + 1: opt_index of an absent key */
    rc = cs_opts_parse(&doc, opts, nopts, out, lines, err);
    /* collective-optimization shapes built-in all-reduces only: a file whose
     * all-reduce is a custom graph may leave it out (ASTRA-sim's own
     * examples/system/custom_collectives/custom_collective.json does) */
    if (rc == CS_OK && !lines[opt_index("collective-optimization")] && !out->custom_impl[CS_CFG_ALL_REDUCE])
        rc = CS_ERR(err, CS_EINVAL,
                    "%s:%d: collective-optimization: expected one of baseline, localBWAware (a required key "
                    "unless all-reduce-implementation-custom is set), got no such key",
                    path, doc.root_line);
    /* the nccl model's default: NCCL's stream per communicator (issue 11 item 1) */
    if (rc == CS_OK && !lines[opt_index("communicator-queues")] && out->collective_model == 1)
        out->per_comm_queues = 1;
    if (rc == CS_OK && lines[opt_index("local-mem-bw")])
        rc = cs_check_min_gbps(path, lines[opt_index("local-mem-bw")], "local-mem-bw", out->local_mem_bw_gbps, err);
    if (rc == CS_OK && out->roofline_enabled && !(out->peak_perf_tflops > 0)) {
        int line = lines[opt_index("peak-perf")];
        char got[40] = "no such key";
        if (line) cs_fmt_double(got, sizeof got, out->peak_perf_tflops);
        rc = CS_ERR(err, CS_EINVAL,
                    "%s:%d: peak-perf: expected a number > 0 (in TFLOP/s) because "
                    "roofline-enabled is 1 (line %d), got %s",
                    path, line ? line : doc.root_line, lines[opt_index("roofline-enabled")], got);
    }
    cs_free(lines);
    cs_jdoc_free(&doc);
    if (rc) cs_system_config_free(out);
    return rc;
}

int cs_system_config_check_network(const cs_system_config *c, int ndims, cs_error *err) {
    for (int k = 0; k < CS_CFG_NCOLL; k++) {
        const cs_coll_algo_list *l = &c->impl[k];
        if (l->n == 0 || l->n == ndims) continue;
        int spans_all = 0;
        for (int i = 0; i < l->n && i < ndims; i++)
            if (l->algo[i].one) spans_all = 1;
        if (l->n < ndims && spans_all) continue;
        char ones[256];
        return CS_ERR(err, CS_EINVAL,
                      "%s:%d: %s-implementation: expected %d entr%s (one per network dimension)"
                      "%s%s, got %d",
                      c->path ? c->path : "(system configuration)", l->line, cs_cfg_coll_name((cs_cfg_coll)k),
                      ndims, ndims == 1 ? "y" : "ies", l->n < ndims ? ", or fewer when one is " : "",
                      l->n < ndims ? cs_coll_algo_one_forms(ones, sizeof ones) : "", l->n);
    }
    return CS_OK;
}

json_t *cs_system_config_to_json(const cs_system_config *c) {
    size_t nopts;
    const cs_opt *opts = table(&nopts);
    return cs_opts_to_json(opts, nopts, c);
}

json_t *cs_system_config_units_json(void) {
    size_t nopts;
    const cs_opt *opts = table(&nopts);
    return cs_opts_units_json(opts, nopts);
}

void cs_system_config_print_help(FILE *f) {
    size_t nopts;
    const cs_opt *opts = table(&nopts);
    fprintf(f, "System configuration (JSON object; ASTRA-sim --system-configuration):\n");
    cs_opts_print_help(f, opts, nopts);
    char forms[512];
    fprintf(f, "\nCollective algorithms (*-implementation entries: %s):\n",
            cs_coll_algo_forms(forms, sizeof forms));
    for (size_t i = 0; i < cs_coll_algo_count(); i++) {
        const cs_coll_algo *a = cs_coll_algo_at(i);
        cs_coll_impl one = {.algo = a, .one = true, .param = 0};
        char name[64];
        fprintf(f, "  %-18s %s", a->name, a->help);
        if (a->flags & CS_ALGO_ONE)
            fprintf(f, "; %s: over every NPU as one logical dimension",
                    cs_coll_impl_name(&one, name, sizeof name));
        fputc('\n', f);
    }
}
