/*
 * cli_inspect.c -- `clustersim inspect FILE.et`: summary, validation, JSON dump.
 *
 * The summary counts nodes by type, collectives by kind and bytes,
 * dependencies (data/control, forward references, parents absent from the
 * file) and replayed compute time.  Validation builds the dependency graph
 * exactly as `run` does (missing data parents, cycles, duplicate ids), and
 * checks what run refuses of a node on any network (unknown node types and
 * collective types, messages without a peer or to a negative one); the
 * exit status says whether the trace would run: 0 valid, 1 invalid.
 * --json prints the trace in the form of Chakra's jsonizer (the metadata
 * object, then one object per node).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_int.h"
#include "core/alloc.h"
#include "core/log.h"
#include "workload/et.h"
#include "workload/graph.h"
#include "workload/text_workload.h"

static void inspect_help(FILE *f) {
    fputs("usage: clustersim inspect FILE.et [--json] [--ignore-ctrl-deps]\n\n"
          "Summarizes and validates one Chakra execution trace (plain or gzip).\n"
          "  --json              print the trace as JSON, in the form of Chakra's jsonizer\n"
          "  --ignore-ctrl-deps  validate with data dependencies only\n"
          "Exit status: 0 = the trace is valid, 1 = it is not (the reason is printed), 2 = usage.\n",
          f);
}

typedef struct id_set {
    uint64_t *ids;
    size_t n, cap;
} id_set;

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int has_id(const id_set *s, uint64_t id) {
    return bsearch(&id, s->ids, s->n, sizeof *s->ids, cmp_u64) != NULL;
}

/* The first node `run` refuses on any network, in its words (workload/exec.c:
 * issue_coll, issue_send, issue_recv): a collective without a known
 * comm_type, a message without its peer or with a negative one.  0: none. */
static int run_refuses(const cs_graph *g, char *why, size_t n) {
    for (uint32_t i = 0; i < g->nnodes; i++) {
        const cs_node *x = &g->nodes[i];
        if (x->flags & CS_NF_CPU) continue; /* a host-side record: run replays it as CPU compute */
        if (x->type == CS_NODE_COMM_COLL && !(x->flags & CS_NF_HAS_COMM_TYPE))
            snprintf(why, n, "node %" PRIu64 " (COMM_COLL): no comm_type attribute; expected a collective type "
                     "(0 ALL_REDUCE .. 9 BARRIER)", x->id);
        else if (x->type == CS_NODE_COMM_COLL && (x->comm_type < 0 || x->comm_type > 9))
            snprintf(why, n, "node %" PRIu64 " (COMM_COLL): comm_type %d is unknown; expected 0..9", x->id,
                     x->comm_type);
        else if (x->type == CS_NODE_COMM_SEND && !(x->flags & CS_NF_HAS_DST))
            snprintf(why, n, "node %" PRIu64 " (COMM_SEND): no comm_dst attribute; expected the receiving rank", x->id);
        else if (x->type == CS_NODE_COMM_SEND && cs_graph_comm_dst(g, x) < 0)
            snprintf(why, n, "node %" PRIu64 " (COMM_SEND): comm_dst %d is not a rank; expected a rank >= 0", x->id,
                     cs_graph_comm_dst(g, x));
        else if (x->type == CS_NODE_COMM_RECV && !(x->flags & CS_NF_HAS_SRC))
            snprintf(why, n, "node %" PRIu64 " (COMM_RECV): no comm_src attribute; expected the sending rank", x->id);
        else if (x->type == CS_NODE_COMM_RECV && cs_graph_comm_src(g, x) < 0)
            snprintf(why, n, "node %" PRIu64 " (COMM_RECV): comm_src %d is not a rank; expected a rank >= 0", x->id,
                     cs_graph_comm_src(g, x));
        else
            continue;
        return 1;
    }
    return 0;
}

int cs_cli_inspect(int argc, char **argv) {
    const char *path = NULL;
    int as_json = 0, ignore_ctrl = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            inspect_help(stdout);
            return 0;
        } else if (strcmp(argv[i], "--json") == 0) {
            as_json = 1;
        } else if (strcmp(argv[i], "--ignore-ctrl-deps") == 0) {
            ignore_ctrl = 1;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "clustersim inspect: unknown option %s (see --help)\n", argv[i]);
            return 2;
        } else if (!path) {
            path = argv[i];
        } else {
            fprintf(stderr, "clustersim inspect: one trace file at a time (got %s and %s)\n", path, argv[i]);
            return 2;
        }
    }
    if (!path) {
        inspect_help(stderr);
        return 2;
    }
    if (cs_text_workload_detect(path)) {
        fprintf(stderr, "clustersim: error: %s: an ASTRA-sim 1.0 / SimAI text workload; inspect reads Chakra traces "
                        "(clustersim run --workload-configuration=%s runs it)\n", path, path);
        return 1;
    }
    cs_error err;
    cs_error_clear(&err);
    cs_et_reader *rd = NULL;
    int rc = cs_et_reader_open(path, &rd, &err);
    if (rc) {
        fprintf(stderr, "clustersim: error: %s\n", err.msg);
        return 1;
    }
    if (as_json) {
        json_t *md = cs_et_metadata_to_json(cs_et_reader_metadata(rd));
        char *s = json_dumps(md, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        printf("%s\n", s);
        cs_json_free(s);
        json_decref(md);
    }
    uint64_t by_type[9] = {0}, coll_count[11] = {0}, coll_bytes[11] = {0};
    uint64_t nodes = 0, data_deps = 0, ctrl_deps = 0, comp_us = 0, cpu_us = 0, min_id = UINT64_MAX, max_id = 0;
    uint64_t p2p_bytes = 0, mem_bytes = 0;
    id_set seen = {0}, deps_data = {0}, deps_ctrl = {0};
    uint64_t fwd_refs = 0;
    for (;;) {
        ChakraProtoMsg__Node *n = NULL;
        rc = cs_et_reader_next(rd, &n, &err);
        if (rc <= 0) break;
        if (as_json) {
            json_t *j = cs_et_node_to_json(n);
            char *s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
            printf("%s\n", s);
            cs_json_free(s);
            json_decref(j);
        }
        nodes++;
        int t = (int)n->type;
        by_type[(t >= 0 && t <= 7) ? t : 8]++;
        if (n->id < min_id) min_id = n->id;
        if (n->id > max_id) max_id = n->id;
        CS_GROW(seen.ids, seen.cap, seen.n + 1);
        seen.ids[seen.n++] = n->id;
        data_deps += n->n_data_deps;
        ctrl_deps += n->n_ctrl_deps;
        for (size_t k = 0; k < n->n_data_deps; k++) {
            CS_GROW(deps_data.ids, deps_data.cap, deps_data.n + 1);
            deps_data.ids[deps_data.n++] = n->data_deps[k];
        }
        for (size_t k = 0; k < n->n_ctrl_deps; k++) {
            CS_GROW(deps_ctrl.ids, deps_ctrl.cap, deps_ctrl.n + 1);
            deps_ctrl.ids[deps_ctrl.n++] = n->ctrl_deps[k];
        }
        int cpu = 0;
        cs_et_attr_get_bool(n, "is_cpu_op", &cpu, NULL);
        if (t == 4) {
            if (cpu)
                cpu_us += n->duration_micros;
            else
                comp_us += n->duration_micros;
        }
        uint64_t size = 0;
        if (t == 7) {
            int64_t ct = -1;
            cs_et_attr_get_int(n, "comm_type", &ct, NULL);
            cs_et_attr_get_uint(n, "comm_size", &size, NULL);
            int k = (ct >= 0 && ct <= 9) ? (int)ct : 10;
            coll_count[k]++;
            coll_bytes[k] += size;
        } else if (t == 5 || t == 6) {
            cs_et_attr_get_uint(n, "comm_size", &size, NULL);
            if (t == 5) p2p_bytes += size;
        } else if (t == 2 || t == 3) {
            cs_et_attr_get_uint(n, "tensor_size", &size, NULL);
            mem_bytes += size;
        }
        cs_et_node_free(n);
    }
    const ChakraProtoMsg__GlobalMetadata *md = cs_et_reader_metadata(rd);
    FILE *o = as_json ? stderr : stdout;
    if (rc < 0) {
        fprintf(stderr, "clustersim: error: %s\n", err.msg);
    } else {
        if (seen.n > 1) qsort(seen.ids, seen.n, sizeof *seen.ids, cmp_u64);
        uint64_t miss_data = 0, miss_ctrl = 0;
        for (size_t k = 0; k < deps_data.n; k++) miss_data += !has_id(&seen, deps_data.ids[k]);
        for (size_t k = 0; k < deps_ctrl.n; k++) miss_ctrl += !has_id(&seen, deps_ctrl.ids[k]);
        (void)fwd_refs;
        fprintf(o, "%s\n", path);
        fprintf(o, "  metadata      version \"%s\", %zu attribute%s\n", md && md->version ? md->version : "",
                md ? md->n_attr : 0, md && md->n_attr == 1 ? "" : "s");
        for (size_t a = 0; md && a < md->n_attr; a++) { /* a look-alike written by clustersim synth says so */
            const ChakraProtoMsg__AttributeProto *at = md->attr[a];
            if (!at->name || at->value_case != CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL || !at->string_val)
                continue;
            if (strcmp(at->name, "clustersim_synth_kept") == 0)
                fprintf(o, "  synthetic     written by clustersim synth; kept: %s\n", at->string_val);
            else if (strcmp(at->name, "clustersim_synth_hidden") == 0)
                fprintf(o, "  synthetic     hidden: %s\n", at->string_val);
        }
        fprintf(o, "  nodes         %" PRIu64, nodes);
        if (nodes) fprintf(o, " (ids %" PRIu64 "..%" PRIu64 ")", min_id, max_id);
        fputc('\n', o);
        for (int k = 0; k <= 8; k++)
            if (by_type[k])
                fprintf(o, "    %-12s %" PRIu64 "\n", k == 8 ? "UNKNOWN" : cs_node_type_label(k), by_type[k]);
        for (int k = 0; k <= 10; k++)
            if (coll_count[k])
                fprintf(o, "  collective    %-20s x%" PRIu64 ", %" PRIu64 " bytes in all\n",
                        k == 10 ? "UNKNOWN" : cs_coll_type_label(k), coll_count[k], coll_bytes[k]);
        if (p2p_bytes) fprintf(o, "  p2p sends     %" PRIu64 " bytes\n", p2p_bytes);
        if (mem_bytes) fprintf(o, "  memory        %" PRIu64 " bytes loaded/stored\n", mem_bytes);
        fprintf(o, "  compute       %" PRIu64 " us on the accelerator, %" PRIu64 " us on the CPU (duration_micros)\n",
                comp_us, cpu_us);
        fprintf(o, "  dependencies  %" PRIu64 " data (%" PRIu64 " on absent nodes), %" PRIu64 " control (%" PRIu64
                   " on absent nodes)\n",
                data_deps, miss_data, ctrl_deps, miss_ctrl);
        /* Validate exactly as `run` would. */
        cs_graph_options go = {ignore_ctrl, 0, NULL};
        cs_graph *g = NULL;
        int saved = cs_log_level();
        cs_log_set_level(CS_LOG_ERROR);
        rc = cs_graph_load(path, &go, &g, &err);
        cs_log_set_level(saved);
        if (rc == CS_OK) {
            uint64_t unknown = by_type[8];
            char why[256];
            if (unknown) {
                fprintf(o, "  validation    INVALID: %" PRIu64 " node%s of unknown type (expected 0..7)\n", unknown,
                        unknown == 1 ? "" : "s");
                rc = CS_EINVAL;
            } else if (run_refuses(g, why, sizeof why)) {
                fprintf(o, "  validation    INVALID: %s: %s\n", path, why);
                rc = CS_EINVAL;
            } else {
                fprintf(o, "  validation    ok: acyclic, every data dependency resolves\n");
            }
            cs_graph_free(g);
        } else {
            fprintf(o, "  validation    INVALID: %s\n", err.msg);
        }
    }
    cs_free(seen.ids);
    cs_free(deps_data.ids);
    cs_free(deps_ctrl.ids);
    cs_et_reader_close(rd);
    return rc ? 1 : 0;
}
