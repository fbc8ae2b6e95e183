/*
 * cli_synth.c -- `clustersim synth`: a synthetic look-alike of a Chakra
 * trace set (src/workload/synth.h; docs/synth.md).  Reads the set once,
 * fits the statistics over its distinct graphs, writes each distinct
 * graph's look-alike once into memory and then to every rank that shares
 * it (PREFIX.<r>.et, each written atomically; an earlier, larger set under
 * the prefix is refused before anything is written, and a failure while
 * writing -- or SIGINT / SIGTERM, which stop it between ranks -- removes
 * every PREFIX.<r>.et, so the prefix holds this run's set or none), and
 * NEWPREFIX.synth.json with what was kept and what not.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "cli/cli_int.h"
#include "core/afile.h"
#include "core/alloc.h"
#include "core/opts.h"
#include "workload/synth.h"
#include "workload/workload.h"

#define SYNTH_MAX_RANKS (1u << 24)

static void synth_usage(FILE *f) {
    fputs("usage: clustersim synth --workload-configuration=PREFIX --out NEWPREFIX [options]\n\n"
          "Writes a synthetic look-alike of a Chakra trace set: the simulated behaviour is kept (every\n"
          "communication node with its group, peers and rounded size; every dependency between compute\n"
          "segments and communication; each compute segment's total time) while names, attributes, node\n"
          "ids, the kernels inside each compute segment and exact sizes are not (docs/synth.md).\n"
          "Writes NEWPREFIX.<rank>.et (NEWPREFIX alone when PREFIX is one file for every rank) and\n"
          "NEWPREFIX.synth.json (the fitted statistics, what was kept and hidden, totals before/after).\n"
          "The communicator-group file, when the set has one, applies unchanged.\n\n"
          "options:\n"
          "  --workload-configuration=PREFIX  the source: PREFIX.<rank>.et (or .et.gz), or one file\n"
          "  --npus N                 ranks of the source (default: PREFIX.0.et, PREFIX.1.et, ... as found)\n"
          "  --out NEWPREFIX          where the look-alike goes (must differ from PREFIX)\n"
          "  --seed N                 random stream (default 1): same inputs and seed, same bytes\n"
          "  --size-bits B            significant bits kept in every byte count, 1..64 (default 8: each\n"
          "                           count within 2^-8 = 0.39 %; 64 = exact)\n"
          "  --noise CV               multiply each compute segment's total by a lognormal factor of mean 1\n"
          "                           and this coefficient of variation (default 0: totals kept exactly)\n"
          "  --keep-roofline          keep COMP nodes that carry num_ops/tensor_size one for one (for systems\n"
          "                           with roofline-enabled; by default segments keep durations only)\n"
          "  --ignore-ctrl-deps, --allow-missing-data-deps   read the source as run would\n"
          "  --quiet, --help\n",
          f);
}

static int exists(const char *p) {
    struct stat st;
    return stat(p, &st) == 0;
}

/* Ranks of PREFIX.<r>.et[.gz] as found, 0 when none. */
static uint32_t count_ranks(const char *prefix) {
    char p[4200];
    uint32_t r = 0;
    for (; r < SYNTH_MAX_RANKS; r++) {
        snprintf(p, sizeof p, "%s.%u.et", prefix, r);
        if (exists(p)) continue;
        snprintf(p, sizeof p, "%s.%u.et.gz", prefix, r);
        if (!exists(p)) break;
    }
    return r;
}

static json_t *hist_json(const uint64_t *h) {
    int top = CS_SYNTH_BUCKETS - 1;
    while (top > 0 && !h[top]) top--;
    json_t *a = json_array();
    for (int b = 0; b <= top; b++) json_array_append_new(a, json_integer((json_int_t)h[b]));
    return a;
}

static json_t *counts_json(const cs_synth_counts *c) {
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "nodes", (json_int_t)c->nodes, "comp_nodes",
                     (json_int_t)c->comp_nodes, "comm_nodes", (json_int_t)c->comm_nodes, "compute_segments",
                     (json_int_t)c->segments, "comp_us", (json_int_t)c->comp_us, "comm_bytes",
                     (json_int_t)c->comm_bytes, "mem_bytes", (json_int_t)c->mem_bytes);
}

static void add_weighted(cs_synth_counts *t, const cs_synth_counts *c, uint64_t w) {
    t->nodes += c->nodes * w;
    t->comp_nodes += c->comp_nodes * w;
    t->comm_nodes += c->comm_nodes * w;
    t->segments += c->segments * w;
    t->comp_us += c->comp_us * w;
    t->comm_bytes += c->comm_bytes * w;
    t->mem_bytes += c->mem_bytes * w;
    if (c->max_size_change > t->max_size_change) t->max_size_change = c->max_size_change;
}

/* Graph pointers sorted, to find a rank's graph index. */
typedef struct gref {
    const cs_graph *g;
    uint32_t i;
} gref;

static int cmp_gref(const void *a, const void *b) {
    uintptr_t x = (uintptr_t)((const gref *)a)->g, y = (uintptr_t)((const gref *)b)->g;
    return x < y ? -1 : x > y;
}

static uint32_t graph_index(const gref *t, uint32_t n, const cs_graph *g) {
    gref key = {g, 0};
    const gref *f = bsearch(&key, t, n, sizeof *t, cmp_gref);
    return f ? f->i : 0;
}

static const ChakraProtoMsg__GlobalMetadata *synth_metadata(ChakraProtoMsg__GlobalMetadata *md,
                                                            ChakraProtoMsg__AttributeProto *a,
                                                            ChakraProtoMsg__AttributeProto **ap, char *kept,
                                                            char *hidden) {
    static char n_kept[] = "clustersim_synth_kept", n_hidden[] = "clustersim_synth_hidden", version[] = "1.0.0";
    char *names[] = {n_kept, n_hidden};
    char *vals[] = {kept, hidden};
    for (int i = 0; i < 2; i++) {
        chakra_proto_msg__attribute_proto__init(&a[i]);
        a[i].name = names[i];
        a[i].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
        a[i].string_val = vals[i];
        ap[i] = &a[i];
    }
    chakra_proto_msg__global_metadata__init(md);
    md->version = version;
    md->n_attr = 2;
    md->attr = ap;
    return md;
}

int cs_cli_synth(int argc, char **argv) {
    const char *prefix = NULL, *out = NULL;
    cs_synth_options o = {.seed = 1, .size_bits = 8, .noise_cv = 0};
    cs_graph_options go = {0, 0, NULL};
    uint32_t npus = 0;
    int quiet = 0;
    for (int i = 0; i < argc; i++) {
        char name[64];
        const char *a = argv[i], *val;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            synth_usage(stdout);
            return 0;
        }
        if (a[0] != '-' || !a[1]) {
            fprintf(stderr, "clustersim synth: unexpected argument \"%s\" (see --help)\n", a);
            return 2;
        }
        cs_cli_split_flag(a, name, sizeof name, &val);
        static const char *const flags[] = {"--quiet", "--ignore-ctrl-deps", "--allow-missing-data-deps",
                                            "--keep-roofline"};
        int fi = cs_str_index(name, flags, 4);
        if (fi >= 0) {
            if (val) {
                fprintf(stderr, "clustersim synth: %s takes no value\n", name);
                return 2;
            }
            if (fi == 0) quiet = 1;
            else if (fi == 1) go.ignore_ctrl_deps = 1;
            else if (fi == 2) go.allow_missing_data_deps = 1;
            else o.keep_roofline = 1;
            continue;
        }
        static const char *const known[] = {"--workload-configuration", "--out", "--npus", "--seed", "--size-bits",
                                            "--noise"};
        int ki = cs_str_index(name, known, 6);
        if (ki < 0) {
            fprintf(stderr, "clustersim synth: unknown option %s (see clustersim synth --help)\n", a);
            return 2;
        }
        int rc = cs_cli_flag_value(argc, argv, &i, "synth", NULL, name, &val);
        if (rc) return rc;
        char *end = NULL;
        errno = 0;
        switch (ki) {
        case 0: prefix = val; break;
        case 1: out = val; break;
        case 2:
            if (cs_cli_parse_u32(val, 1, SYNTH_MAX_RANKS, &npus)) {
                fprintf(stderr, "clustersim: error: --npus '%s': expected an integer from 1 to %u\n", val,
                        SYNTH_MAX_RANKS);
                return 1;
            }
            break;
        case 3:
            o.seed = strtoull(val, &end, 10);
            if (!*val || *end || errno || val[0] == '-') {
                fprintf(stderr, "clustersim: error: --seed '%s': expected an integer from 0 to 2^64-1\n", val);
                return 1;
            }
            break;
        case 4: {
            uint32_t b;
            if (cs_cli_parse_u32(val, 1, 64, &b)) {
                fprintf(stderr, "clustersim: error: --size-bits '%s': expected an integer from 1 to 64\n", val);
                return 1;
            }
            o.size_bits = b;
            break;
        }
        case 5:
            o.noise_cv = strtod(val, &end);
            if (!*val || *end || !(o.noise_cv >= 0 && o.noise_cv <= 10)) {
                fprintf(stderr,
                        "clustersim: error: --noise '%s': expected a coefficient of variation from 0 to 10\n", val);
                return 1;
            }
            break;
        }
    }
    if (!prefix || !out) {
        fprintf(stderr, "clustersim synth: expected --workload-configuration=PREFIX and --out NEWPREFIX (see --help)\n");
        return 2;
    }
    if (strcmp(prefix, out) == 0) {
        fprintf(stderr, "clustersim: error: --out %s: the source's prefix; expected another prefix\n", out);
        return 1;
    }
    struct stat st;
    int single = stat(prefix, &st) == 0 && S_ISREG(st.st_mode);
    if (single) npus = 1;
    if (!npus) npus = count_ranks(prefix);
    if (!npus) {
        fprintf(stderr,
                "clustersim: error: --workload-configuration %s: no trace found; expected %s.0.et (or .et.gz), or a "
                "trace file\n",
                prefix, prefix);
        return 1;
    }
    cs_error err;
    cs_error_clear(&err);
    cs_workload w;
    memset(&w, 0, sizeof w);
    if (cs_workload_load(prefix, npus, &go, &w, &err)) {
        fprintf(stderr, "clustersim: error: %s\n", err.msg);
        return 1;
    }
    if ((!single && cs_workload_check_out_prefix("--out", out, w.nranks, &err)) ||
        (single && !*out && CS_ERR(&err, CS_EINVAL, "--out '': expected a file name"))) {
        fprintf(stderr, "clustersim: error: %s\n", err.msg);
        cs_workload_free(&w);
        return 1;
    }
    /* fit over the distinct graphs; counts weighted by the ranks that share each */
    cs_synth_fit fit;
    memset(&fit, 0, sizeof fit);
    cs_synth_counts src_tot = {0}, out_tot = {0};
    for (uint32_t gi = 0; gi < w.ngraphs; gi++) {
        cs_synth_counts c;
        cs_synth_fit_add(&fit, w.graphs[gi], &o, &c);
        add_weighted(&src_tot, &c, w.graphs[gi]->refcount ? w.graphs[gi]->refcount : 1);
    }
    char kept[] = "every communication and memory node (type, collective, group, peers, tag, priority, involved "
                  "dimensions; sizes rounded to --size-bits significant bits); every dependency between compute "
                  "segments and other nodes; each compute segment's total duration (unless --noise)";
    char hidden[] = "node names and ids, every other attribute, the number and durations of the kernels inside each "
                    "compute segment (drawn from the fitted histograms), exact byte counts";
    ChakraProtoMsg__GlobalMetadata md;
    ChakraProtoMsg__AttributeProto attrs[2], *ap[2];
    synth_metadata(&md, attrs, ap, kept, hidden);

    /* each distinct graph once into memory, then to its ranks */
    char **buf = cs_calloc(w.ngraphs ? w.ngraphs : 1, sizeof *buf);
    size_t *len = cs_calloc(w.ngraphs ? w.ngraphs : 1, sizeof *len);
    uint32_t *salt = cs_malloc((w.ngraphs ? w.ngraphs : 1) * sizeof *salt);
    gref *tab = cs_malloc((w.ngraphs ? w.ngraphs : 1) * sizeof *tab);
    for (uint32_t gi = 0; gi < w.ngraphs; gi++) {
        salt[gi] = UINT32_MAX;
        tab[gi] = (gref){w.graphs[gi], gi};
    }
    if (w.ngraphs > 1) qsort(tab, w.ngraphs, sizeof *tab, cmp_gref);
    for (uint32_t r = w.nranks; r-- > 0;) salt[graph_index(tab, w.ngraphs, w.rank_graph[r])] = r; /* the first rank */
    int rc = CS_OK;
    cs_cli_stop trap; /* Ctrl-C from here on stops between ranks: never half a set under --out */
    volatile sig_atomic_t *stop = cs_cli_stop_begin(&trap);
    for (uint32_t gi = 0; gi < w.ngraphs && rc == CS_OK; gi++) {
        if (*stop) {
            rc = CS_ERR(&err, CS_EINTR, "synth stopped after drawing %u of %u distinct graphs", gi, w.ngraphs);
            break;
        }
        FILE *f = open_memstream(&buf[gi], &len[gi]);
        if (!f) {
            rc = CS_ERR(&err, CS_EIO, "synth: cannot open a memory stream: %s", strerror(errno));
            break;
        }
        cs_et_writer *wr = NULL;
        rc = cs_et_writer_open_stream(f, w.graphs[gi]->source ? w.graphs[gi]->source : "trace", &md, &wr, &err);
        cs_synth_counts c = {0};
        if (rc == CS_OK) rc = cs_synth_graph(w.graphs[gi], &fit, &o, salt[gi], wr, &c, &err);
        int rc2 = wr ? cs_et_writer_close(wr, rc ? NULL : &err) : CS_OK;
        if (rc == CS_OK) rc = rc2;
        add_weighted(&out_tot, &c, w.graphs[gi]->refcount ? w.graphs[gi]->refcount : 1);
    }
    char path[4200];
    uint32_t written = 0;
    for (uint32_t r = 0; r < w.nranks && rc == CS_OK; r++) {
        if (*stop) {
            rc = CS_ERR(&err, CS_EINTR, "synth stopped after writing %u of %u ranks", written, w.nranks);
            break;
        }
        uint32_t gi = graph_index(tab, w.ngraphs, w.rank_graph[r]);
        if (single) snprintf(path, sizeof path, "%s", out);
        else snprintf(path, sizeof path, "%s.%u.et", out, r);
        rc = cs_write_file_atomic(path, buf[gi], len[gi], &err);
        if (rc == CS_OK) written++;
    }
    if (rc == CS_OK) {
        json_t *j = json_pack("{s:o, s:I, s:I, s:{s:I, s:I, s:f, s:b}, s:o, s:o, s:f, s:{s:o, s:o}, s:s, s:s}", "source",
                              cs_json_string_lossy(prefix), "ranks", (json_int_t)w.nranks, "distinct_graphs",
                              (json_int_t)w.ngraphs,
                              "options", "seed", (json_int_t)o.seed, "size_bits", (json_int_t)o.size_bits,
                              "noise_cv", o.noise_cv, "keep_roofline", o.keep_roofline, "source_totals", counts_json(&src_tot), "synthetic_totals",
                              counts_json(&out_tot), "max_size_change_ratio", out_tot.max_size_change, "fitted",
                              "comp_duration_us_log2_histogram", hist_json(fit.dur_hist),
                              "segment_nodes_log2_histogram", hist_json(fit.seg_hist), "kept", kept, "hidden",
                              hidden);
        snprintf(path, sizeof path, "%s.synth.json", out);
        rc = cs_write_json_atomic(path, j, &err);
        json_decref(j);
    }
    if (rc != CS_OK && single && written) { /* leave nothing of this run */
        cs_remove_output(out);
    } else if (rc != CS_OK && written) { /* the set under --out is broken: none of it stays */
        cs_workload_remove_ranks(out);
    }
    if (rc != CS_OK && written) { /* nor an earlier run's statistics beside it */
        snprintf(path, sizeof path, "%s.synth.json", out);
        cs_remove_output(path);
    }
    cs_cli_stop_end(&trap);
    if (rc == CS_OK && !quiet) {
        printf("clustersim synth: %u rank%s (%u distinct graph%s) -> %s%s\n", w.nranks, w.nranks == 1 ? "" : "s",
               w.ngraphs, w.ngraphs == 1 ? "" : "s", out, single ? "" : ".<rank>.et");
        printf("  %-22s %14s %14s\n", "(summed over ranks)", "source", "synthetic");
        printf("  %-22s %14" PRIu64 " %14" PRIu64 "\n", "nodes", src_tot.nodes, out_tot.nodes);
        printf("  %-22s %14" PRIu64 " %14" PRIu64 "\n", "COMP nodes", src_tot.comp_nodes, out_tot.comp_nodes);
        printf("  %-22s %14" PRIu64 " %14" PRIu64 "\n", "compute segments", src_tot.segments, out_tot.segments);
        printf("  %-22s %14" PRIu64 " %14" PRIu64 "\n", "compute (us)", src_tot.comp_us, out_tot.comp_us);
        printf("  %-22s %14" PRIu64 " %14" PRIu64 "\n", "communication (bytes)", src_tot.comm_bytes,
               out_tot.comm_bytes);
        printf("  largest size change %.4f %%; wrote %s.synth.json\n", 100.0 * out_tot.max_size_change, out);
    }
    for (uint32_t gi = 0; gi < w.ngraphs; gi++) free(buf[gi]);
    cs_free(buf);
    cs_free(len);
    cs_free(salt);
    cs_free(tab);
    cs_workload_free(&w);
    return cs_cli_exit(rc, &err, (int)*stop, "; no trace written");
}
