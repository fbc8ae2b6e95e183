/*
 * fuzz_et_reader.c -- libFuzzer target for the Chakra ET reader
 * (src/workload/et_reader.c and the code that consumes its nodes).
 *
 * Each input is a whole trace, plain or gzip.  The target opens it from
 * memory, reads every node, and puts each through the JSON form, the
 * attribute accessors, the name tables and a protobuf-c pack/unpack round
 * trip; it also runs the wire explainer on the raw bytes.  Besides the
 * sanitizers it checks the reader's contract and aborts when it is broken:
 * an error carries its code and a message that starts with the trace name;
 * a node re-packs to bytes that unpack to the same packing.
 * Seeds: fuzz/corpus/ (small traces made with our writer).  Run with
 * fuzz/run.sh.
 *
 * The same input also goes to the text workload reader (ASTRA-sim 1.0 /
 * SimAI, src/workload/text_workload.c), for 8 ranks and for the header's
 * all_gpus (no new target: CI time).  Its contract: an error starts with
 * the name and leaves nothing allocated; a workload has every rank's graph
 * over one node array, and every group a rank's node names holds that
 * rank, with ranks below the rank count.  Text seeds: corpus/et_reader/
 * text_*.txt, words in dict/et_reader.dict.
 *
 * The trace is also built into a graph (cs_graph_load_mem: the reader, then
 * decode_node and the dependency checks, as `run` reads a trace), with and
 * without control dependencies.  Its contract: an error carries its code
 * and starts with the trace name, a graph has its nodes sorted by id, each
 * node's parents counted and its children in range.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "workload/et.h"
#include "workload/graph.h"
#include "workload/text_workload.h"

#define NAME "fuzz.et"
#define MAX_NODES 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "fuzz_et_reader: contract broken: %s\n", what);
        abort();
    }
}

static void check_error(int rc, const cs_error *err) {
    check(rc < 0, "failure code is negative");
    check(err->code == rc, "cs_error.code equals the returned code");
    check(strncmp(err->msg, NAME ": ", strlen(NAME) + 2) == 0, "message starts with the name");
}

static void exercise_json(json_t *j) {
    check(j != NULL, "JSON conversion returns a value");
    char *s = json_dumps(j, JSON_COMPACT);
    check(s != NULL, "JSON value dumps");
    free(s);
    json_decref(j);
}

static void exercise_attrs(const ChakraProtoMsg__Node *n) {
    static const char *const names[] = {"comm_size", "comm_type", "is_cpu_op", "pg_name",
                                        "involved_dim", "num_ops", "tensor_size", ""};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        cs_error err;
        int64_t iv;
        uint64_t uv;
        int bv;
        const char *sv;
        const protobuf_c_boolean *lv;
        size_t ln;
        cs_error_clear(&err);
        int rc = cs_et_attr_get_int(n, names[i], &iv, &err);
        check(rc >= 0 || rc == CS_EFORMAT, "get_int code");
        cs_error_clear(&err);
        rc = cs_et_attr_get_uint(n, names[i], &uv, &err);
        check(rc >= 0 || rc == CS_EFORMAT, "get_uint code");
        cs_error_clear(&err);
        rc = cs_et_attr_get_bool(n, names[i], &bv, &err);
        check(rc >= 0 || rc == CS_EFORMAT, "get_bool code");
        cs_error_clear(&err);
        rc = cs_et_attr_get_string(n, names[i], &sv, &err);
        check(rc != 1 || sv != NULL, "get_string result");
        cs_error_clear(&err);
        rc = cs_et_attr_get_bool_list(n, names[i], &lv, &ln, &err);
        check(rc != 1 || ln == 0 || lv != NULL, "get_bool_list result");
    }
    (void)cs_et_node_type_name((int)n->type);
    for (size_t i = 0; i < n->n_attr; i++) (void)cs_et_attr_value_name((int)n->attr[i]->value_case);
}

/* pack -> unpack -> pack must give the same bytes. */
static void exercise_repack(const ChakraProtoMsg__Node *n) {
    size_t len = protobuf_c_message_get_packed_size(&n->base);
    uint8_t *a = malloc(len + 1);
    check(protobuf_c_message_pack(&n->base, a) == len, "pack size");
    ChakraProtoMsg__Node *m = chakra_proto_msg__node__unpack(NULL, len, a);
    check(m != NULL, "a packed node unpacks");
    size_t len2 = protobuf_c_message_get_packed_size(&m->base);
    check(len2 == len, "repacked size is stable");
    uint8_t *b = malloc(len2 + 1);
    protobuf_c_message_pack(&m->base, b);
    check(memcmp(a, b, len) == 0, "repacked bytes are stable");
    free(a);
    free(b);
    chakra_proto_msg__node__free_unpacked(m, NULL); /* unpacked here, not by the reader */
}

#define TEXT_NAME "fuzz.txt"

static void exercise_text(const uint8_t *data, size_t size, uint32_t nranks) {
    cs_workload w;
    cs_comm_groups g;
    cs_text_workload_info info;
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_text_workload_load_mem((const char *)data, size, TEXT_NAME, nranks, &w, &g, &info, &err);
    if (rc != CS_OK) {
        check(rc < 0 && err.code == rc, "text: failure code");
        check(strncmp(err.msg, TEXT_NAME, strlen(TEXT_NAME)) == 0, "text: message starts with the name");
        check(w.ngraphs == 0 && g.ngroups == 0, "text: nothing left on failure");
        return;
    }
    check(w.nranks >= 1 && w.ngraphs >= 1 && (nranks == 0 || w.nranks == nranks), "text: ranks");
    check(info.nodes == w.graphs[0]->nnodes && info.nodes > 0, "text: node count");
    for (size_t i = 0; i < g.ngroups; i++)
        for (uint32_t j = 0; j < g.groups[i].nranks; j++) check(g.groups[i].ranks[j] < w.nranks, "text: group ranks");
    for (uint32_t r = 0; r < w.nranks; r++) {
        const cs_graph *x = w.rank_graph[r];
        check(x->nodes == w.graphs[0]->nodes, "text: one node array");
        for (uint32_t q = 1; q < x->npg; q++) {
            if (!x->pg_names[q][0]) continue;
            const cs_comm_group *cg = cs_comm_groups_find(&g, x->pg_names[q]);
            check(cg != NULL, "text: a rank's group exists");
            int in = 0;
            for (uint32_t j = 0; j < cg->nranks; j++) in |= cg->ranks[j] == r;
            check(in, "text: a rank is in its groups");
        }
    }
    cs_workload_free(&w);
    cs_comm_groups_free(&g);
}

static void exercise_graph(const uint8_t *data, size_t size, int ignore_ctrl) {
    cs_graph_options opt = {ignore_ctrl, 0, NULL};
    cs_graph *g = NULL;
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_graph_load_mem(data, size, NAME, &opt, &g, &err);
    if (rc != CS_OK) {
        check(g == NULL, "graph: none on failure");
        check_error(rc, &err);
        return;
    }
    uint64_t parents = 0;
    for (uint32_t i = 0; i < g->nnodes; i++) {
        check(i == 0 || g->nodes[i - 1].id < g->nodes[i].id, "graph: nodes sorted by id, ids unique");
        check(g->nodes[i].pg < g->npg, "graph: group index in range");
        for (uint32_t c = g->nodes[i].child_begin; c < cs_graph_child_end(g, i); c++) {
            check(g->children[c] < g->nnodes && g->children[c] != i, "graph: child in range, not itself");
            parents++;
        }
    }
    uint64_t counted = 0;
    for (uint32_t i = 0; i < g->nnodes; i++) counted += g->nodes[i].nparents;
    check(counted == parents, "graph: parents counted = edges");
    cs_graph_free(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cs_log_set_level(CS_LOG_ERROR); /* the zero-length-record warning is expected */
    exercise_text(data, size, 8);
    exercise_text(data, size, 0);
    exercise_graph(data, size, 0);
    exercise_graph(data, size, 1);
    char why[256];
    (void)cs_et_wire_explain(data, size, &chakra_proto_msg__node__descriptor, why, sizeof why);
    check(strlen(why) < sizeof why, "explanation is terminated");

    cs_error err;
    cs_error_clear(&err);
    cs_et_reader *r = NULL;
    int rc = cs_et_reader_open_mem(data, size, NAME, &r, &err);
    if (rc != CS_OK) {
        check(r == NULL, "no reader on failure");
        check_error(rc, &err);
        return 0;
    }
    exercise_json(cs_et_metadata_to_json(cs_et_reader_metadata(r)));
    ChakraProtoMsg__Node *n = NULL;
    for (int i = 0; i < MAX_NODES && (rc = cs_et_reader_next(r, &n, &err)) == 1; i++) {
        exercise_json(cs_et_node_to_json(n));
        exercise_attrs(n);
        exercise_repack(n);
        cs_et_node_free(n);
    }
    if (rc < 0) check_error(rc, &err);
    cs_et_reader_close(r);
    return 0;
}
