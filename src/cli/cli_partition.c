/*
 * cli_partition.c -- `clustersim partition`: a layer's neurons partitioned
 * across tensor-parallel workers by co-activation (src/gen/neuron_part.h;
 * docs/inference.md, "Neuron partitioning"), the traffic of partial results
 * before (contiguous) and after, the terminal table, partition.csv and
 * summary.json (written atomically).
 */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli_int.h"
#include "core/afile.h"
#include "core/alloc.h"
#include "core/opts.h"
#include "gen/neuron_part.h"

static void partition_usage(FILE *f) {
    fputs("usage: clustersim partition (--coactivation FILE | --activations FILE) --workers W\n"
          "                            [--hidden-bytes B] [--batch TOKENS] [--out DIR] [--json FILE] [--quiet]\n\n"
          "Partitions the N neurons of a layer (an MLP's hidden units) across W tensor-parallel workers so that\n"
          "neurons active for the same tokens sit on the same worker: W groups of N / W grown greedily by\n"
          "co-activation, labelled with workers by the Hungarian method (fewest neurons moved from the\n"
          "contiguous layout).  Prints the traffic of partial results before (contiguous: neuron i on worker\n"
          "i / (N / W), Megatron's) and after: per token, every worker holding an active neuron beyond the\n"
          "first sends one partial result of B bytes (docs/inference.md).\n\n"
          "  --coactivation FILE  header coactivation,N,T then N rows of N counts (tokens in which neurons i and\n"
          "                       j are both active; diagonal: i active), T tokens: traffic is an upper bound\n"
          "  --activations FILE   header activations,N then one line per token: its active ids, increasing,\n"
          "                       comma-separated, or - for none: traffic is exact\n"
          "  --workers W          tensor-parallel workers; W must divide N (required)\n"
          "  --hidden-bytes B     bytes of one partial result: hidden size x bytes per element (default 8192)\n"
          "  --batch TOKENS       tokens per step, for the bytes per step (default 1)\n"
          "  --out DIR            write DIR/partition.csv (neuron -> worker before and after, new index) and\n"
          "                       DIR/summary.json\n"
          "  --json FILE          the summary alone\n"
          "  --quiet              no table\n"
          "  --help               this help\n",
          f);
}

static int parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out) {
    if (!s || *s < '0' || *s > '9') return -1;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || v < lo || v > hi || (v == ULLONG_MAX)) return -1;
    *out = v;
    return 0;
}

/* The bytes per token of a dense all-reduce standing for the exchange, for clustersim serve's
 * plan.mlp-reduce-bytes-per-token: an all-reduce is a reduction (a partial result from every worker
 * but one: W - 1 per token) and a broadcast of the result (every worker needs it: the next layer's
 * input is replicated).  Only the reduction shrinks, to the partials that cross: f = (partials per
 * token) / (W - 1), at most 1; the size is hidden x (1 + f) / 2, rounded up. */
static uint64_t serve_bytes(const cs_npart_traffic *t, uint64_t tokens, uint32_t w, uint64_t hidden) {
    if (w < 2 || !tokens) return hidden;
    double f = (double)t->partials / (double)tokens / (double)(w - 1);
    if (f > 1) f = 1;
    return (uint64_t)ceil((double)hidden * (1 + f) / 2);
}

static json_t *traffic_json(const cs_npart_traffic *t, uint64_t tokens, uint32_t w, uint64_t hidden, uint64_t batch) {
    double per_tok = tokens ? (double)t->partials / (double)tokens : 0.0;
    json_t *j = json_object();
    json_object_set_new(j, "coactivations_split", json_integer((json_int_t)t->cut));
    json_object_set_new(j, "partial_results", json_integer((json_int_t)t->partials));
    json_object_set_new(j, "tokens_crossing", json_integer((json_int_t)t->tokens_crossing));
    json_object_set_new(j, "partial_results_per_token", json_real(per_tok));
    json_object_set_new(j, "bytes_per_token", json_real(per_tok * (double)hidden));
    json_object_set_new(j, "bytes_per_step", json_real(per_tok * (double)hidden * (double)batch));
    json_object_set_new(j, "serve_mlp_reduce_bytes_per_token", json_integer((json_int_t)serve_bytes(t, tokens, w, hidden)));
    return j;
}

static json_t *summary_json(const char *path, const cs_npart_data *d, const cs_npart_result *r, uint64_t hidden,
                            uint64_t batch) {
    json_t *j = json_object();
    json_object_set_new(j, "input", cs_json_string_lossy(path));
    json_object_set_new(j, "format", json_string(d->from_trace ? "activations" : "coactivation"));
    json_object_set_new(j, "traffic_exact", json_boolean(d->from_trace));
    json_object_set_new(j, "neurons", json_integer(d->n));
    json_object_set_new(j, "tokens", json_integer((json_int_t)d->tokens));
    json_object_set_new(j, "workers", json_integer(r->w));
    json_object_set_new(j, "neurons_per_worker", json_integer(d->n / r->w));
    json_object_set_new(j, "hidden_bytes", json_integer((json_int_t)hidden));
    json_object_set_new(j, "batch_tokens", json_integer((json_int_t)batch));
    json_object_set_new(j, "before", traffic_json(&r->t_before, d->tokens, r->w, hidden, batch));
    json_object_set_new(j, "grown", traffic_json(&r->t_grown, d->tokens, r->w, hidden, batch));
    json_object_set_new(j, "after", traffic_json(&r->t_after, d->tokens, r->w, hidden, batch));
    json_object_set_new(j, "kept_contiguous", json_boolean(r->kept_contiguous));
    json_object_set_new(j, "neurons_moved", json_integer((json_int_t)r->moved));
    json_object_set_new(j, "weight_bytes_moved", json_integer((json_int_t)(r->moved * 2 * hidden)));
    double red = r->t_before.partials
                     ? 100.0 * (double)(r->t_before.partials - r->t_after.partials) / (double)r->t_before.partials
                     : 0.0;
    json_object_set_new(j, "traffic_reduction_pct", json_real(red));
    json_t *u = json_object();
    json_object_set_new(u, "partial_results", json_string("count: messages of hidden_bytes"));
    json_object_set_new(u, "bytes_per_token", json_string("bytes"));
    json_object_set_new(u, "bytes_per_step", json_string("bytes, batch_tokens tokens"));
    json_object_set_new(u, "weight_bytes_moved", json_string("bytes: 2 x hidden_bytes per neuron moved"));
    json_object_set_new(u, "serve_mlp_reduce_bytes_per_token",
                        json_string("bytes per token: hidden_bytes x (1 + f) / 2, f = partial results per token / "
                                    "(workers - 1), for clustersim serve --set plan.mlp-reduce-bytes-per-token"));
    json_object_set_new(j, "units", u);
    return j;
}

/* partition.csv: one row per neuron; new_index is its position in the reordered layer (worker w holds
 * w * N / W .. (w + 1) * N / W - 1, ascending neuron ids within a worker). */
static void write_csv(FILE *f, const cs_npart_data *d, const cs_npart_result *r, uint32_t *next) {
    uint32_t n = d->n, s = n / r->w;
    fputs("neuron,worker_before,group,worker_after,new_index,moved\n", f);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t w = r->after[i];
        fprintf(f, "%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%d\n", i, r->before[i], r->group[i],
                w, w * s + next[w]++, r->after[i] != r->before[i]);
    }
}

/* The result files, complete or absent together: every allocation (the JSON text, the files'
 * temporary names) is made before the first rename, and files renamed before a failed one are
 * removed. */
static int write_outputs(const char *out, const char *json_path, const json_t *j, const cs_npart_data *d,
                         const cs_npart_result *r, cs_error *err) {
    enum { CSV, SUMMARY, JSON, NF };
    char *paths[NF] = {NULL, NULL, NULL};
    cs_afile af[NF];
    memset(af, 0, sizeof af);
    int rc = CS_OK;
    if (out) {
        rc = cs_mkdir_p(out, "--out", err);
        size_t len = strlen(out) + 32;
        paths[CSV] = cs_malloc(len);
        paths[SUMMARY] = cs_malloc(len);
        snprintf(paths[CSV], len, "%s/partition.csv", out);
        snprintf(paths[SUMMARY], len, "%s/summary.json", out);
    }
    if (json_path) paths[JSON] = cs_strdup(json_path);
    char *text = json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    if (!text && rc == CS_OK) rc = CS_ERR(err, CS_ENOMEM, "summary: cannot format the JSON");
    uint32_t *next = cs_calloc(r->w, sizeof *next);
    for (int k = 0; k < NF && rc == CS_OK; k++)
        if (paths[k]) rc = cs_afile_open(&af[k], paths[k], err);
    if (rc == CS_OK) {
        if (paths[CSV]) write_csv(af[CSV].f, d, r, next);
        if (paths[SUMMARY]) fprintf(af[SUMMARY].f, "%s\n", text);
        if (paths[JSON]) fprintf(af[JSON].f, "%s\n", text);
    }
    int committed[NF] = {0, 0, 0};
    for (int k = 0; k < NF; k++) {
        if (!af[k].f) continue;
        if (rc == CS_OK) {
            rc = cs_afile_commit(&af[k], err);
            committed[k] = rc == CS_OK;
        } else {
            cs_afile_abort(&af[k]);
        }
    }
    if (rc != CS_OK)
        for (int k = 0; k < NF; k++)
            if (committed[k]) cs_remove_output(paths[k]);
    cs_json_free(text);
    cs_free(next);
    for (int k = 0; k < NF; k++) cs_free(paths[k]);
    return rc;
}

static void print_row(const char *name, const cs_npart_traffic *t, uint64_t tokens, uint64_t hidden,
                      uint64_t batch) {
    double per_tok = tokens ? (double)t->partials / (double)tokens : 0.0;
    printf("  %-26s %16" PRIu64 " %12.4f %16.1f %18.1f\n", name, t->partials, per_tok, per_tok * (double)hidden,
           per_tok * (double)hidden * (double)batch);
}

int cs_cli_partition(int argc, char **argv) {
    const char *co_path = NULL, *act_path = NULL, *out = NULL, *json_path = NULL;
    uint64_t workers = 0, hidden = 8192, batch = 1;
    int quiet = 0;
    for (int i = 0; i < argc; i++) {
        char name[64];
        const char *val;
        cs_cli_split_flag(argv[i], name, sizeof name, &val);
        if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
            partition_usage(stdout);
            return 0;
        }
        if (strcmp(name, "--quiet") == 0) {
            quiet = 1;
            continue;
        }
        int takes = strcmp(name, "--coactivation") == 0 || strcmp(name, "--activations") == 0 ||
                    strcmp(name, "--workers") == 0 || strcmp(name, "--hidden-bytes") == 0 ||
                    strcmp(name, "--batch") == 0 || strcmp(name, "--out") == 0 || strcmp(name, "--json") == 0;
        if (!takes) {
            fprintf(stderr, "clustersim partition: unknown option %s (see clustersim partition --help)\n", argv[i]);
            return 2;
        }
        if (cs_cli_flag_value(argc, argv, &i, "partition", NULL, name, &val)) return 2;
        if (strcmp(name, "--coactivation") == 0) co_path = val;
        else if (strcmp(name, "--activations") == 0) act_path = val;
        else if (strcmp(name, "--out") == 0) out = val;
        else if (strcmp(name, "--json") == 0) json_path = val;
        else {
            uint64_t *dst = strcmp(name, "--workers") == 0 ? &workers : strcmp(name, "--batch") == 0 ? &batch : &hidden;
            uint64_t hi = dst == &workers ? CS_NPART_MAX_WORKERS : dst == &batch ? UINT32_MAX : ((uint64_t)1 << 40);
            if (parse_u64(val, 1, hi, dst)) {
                fprintf(stderr, "clustersim: error: %s %s: expected an integer in [1, %" PRIu64 "]\n", name, val, hi);
                return 1;
            }
        }
    }
    if (!co_path == !act_path) {
        fprintf(stderr, "clustersim partition: expected one of --coactivation FILE or --activations FILE (see --help)\n");
        return 2;
    }
    if (!workers) {
        fprintf(stderr, "clustersim partition: --workers W is required (see --help)\n");
        return 2;
    }
    const char *path = co_path ? co_path : act_path;
    cs_error err;
    cs_error_clear(&err);
    cs_npart_data d;
    cs_npart_result r;
    memset(&r, 0, sizeof r);
    json_t *j = NULL;
    if (out) { /* a failed run leaves no earlier results behind */
        static const char *const files[] = {"partition.csv", "summary.json"};
        for (size_t k = 0; k < sizeof files / sizeof *files; k++) {
            size_t len = strlen(out) + 32;
            char *p = cs_malloc(len);
            snprintf(p, len, "%s/%s", out, files[k]);
            cs_remove_output(p);
            cs_free(p);
        }
    }
    if (json_path) cs_remove_output(json_path);
    int rc = cs_npart_load(path, CS_NPART_MAX_NEURONS, &d, &err);
    if (rc == CS_OK && d.from_trace != (act_path != NULL))
        rc = CS_ERR(&err, CS_EINVAL, "%s %s: the file is %s; pass it with %s", co_path ? "--coactivation" : "--activations",
                    path,
                    d.from_trace ? "an activation trace (header activations,N)"
                                 : "a co-activation matrix (header coactivation,N,T)",
                    d.from_trace ? "--activations" : "--coactivation");
    if (rc == CS_OK) rc = cs_npart_partition(&d, (uint32_t)workers, &r, &err);
    if (rc == CS_OK) j = summary_json(path, &d, &r, hidden, batch);
    if (rc == CS_OK && (out || json_path)) rc = write_outputs(out, json_path, j, &d, &r, &err);
    if (rc == CS_OK && !quiet) {
        printf("clustersim partition -- %s: %" PRIu32 " neurons, %" PRIu64 " tokens, %" PRIu32
               " workers of %" PRIu32 " neurons\n",
               path, d.n, d.tokens, r.w, d.n / r.w);
        printf("  traffic: %s; a partial result is %" PRIu64 " bytes; a step is %" PRIu64 " tokens\n\n",
               d.from_trace ? "exact (per token, workers holding an active neuron - 1)"
                            : "upper bound (co-activations split across workers)",
               hidden, batch);
        printf("  %-26s %16s %12s %16s %18s\n", "layout", "partial results", "per token", "bytes/token",
               "bytes/step");
        print_row("contiguous (before)", &r.t_before, d.tokens, hidden, batch);
        print_row("grown by co-activation", &r.t_grown, d.tokens, hidden, batch);
        print_row(r.kept_contiguous ? "chosen (contiguous kept)" : "chosen (after)", &r.t_after, d.tokens, hidden,
                  batch);
        printf("\n  neurons moved: %" PRIu64 " of %" PRIu32 " (weights moved: %" PRIu64 " bytes)\n", r.moved, d.n,
               r.moved * 2 * hidden);
        printf("  clustersim serve --tp %" PRIu32 ": --set plan.mlp-reduce-bytes-per-token=%" PRIu64
               " (after; contiguous: %" PRIu64 ", dense: 2 x hidden)\n",
               r.w, serve_bytes(&r.t_after, d.tokens, r.w, hidden), serve_bytes(&r.t_before, d.tokens, r.w, hidden));
    }
    json_decref(j);
    cs_npart_result_free(&r);
    cs_npart_data_free(&d);
    return cs_cli_exit(rc, &err, 0, "");
}
