/*
 * test_et_reader.c -- the Chakra ET reader against real traces.
 *
 * Walks every .et / .et.gz under $CS_SHARED_DIR/testdata/chakra (276 files
 * made by Chakra's own tools), reads it with cs_et_reader_* and checks every
 * record, converted by cs_et_*_to_json, against the reference dump made by
 * Chakra's jsonizer next to it (X.et.json, or X.et.json.gz).  Then checks
 * facts listed in testdata/chakra/README.md through the attribute
 * accessors.  Needs ../shared: skips (exit 77) without it.
 */
#include "testutil.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "workload/et.h"

#define EXPECTED_FILES 276
#define EXPECTED_MESSAGES 8912

typedef ChakraProtoMsg__Node node_t;

/* ---- helpers ------------------------------------------------------------ */

typedef struct strvec {
    char **v;
    size_t n, cap;
} strvec;

static void sv_push(strvec *s, const char *p) {
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
        assert_non_null(s->v);
    }
    s->v[s->n++] = strdup(p);
}

static void sv_free(strvec *s) {
    for (size_t i = 0; i < s->n; i++) free(s->v[i]);
    free(s->v);
}

static int ends_with(const char *s, const char *suf) {
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void collect(const char *dir, strvec *out) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        assert_int_equal(stat(p, &st), 0);
        if (S_ISDIR(st.st_mode))
            collect(p, out);
        else if (ends_with(p, ".et") || ends_with(p, ".et.gz"))
            sv_push(out, p);
    }
    closedir(d);
}

static const char *chakra_dir(void) { return tu_path(tu_shared_dir(), "testdata/chakra"); }

static strvec all_traces(void) {
    strvec s = {0};
    collect(chakra_dir(), &s);
    qsort(s.v, s.n, sizeof *s.v, cmp_str);
    return s;
}

/* Whole file, gunzipped when compressed (gzread reads plain files too). */
static char *slurp(const char *path, size_t *len) {
    gzFile g = gzopen(path, "rb");
    assert_non_null(g);
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    int k;
    while ((k = gzread(g, buf + n, (unsigned)(cap - n))) > 0) {
        n += (size_t)k;
        if (n == cap) buf = realloc(buf, (cap *= 2) + 1);
    }
    assert_true(k == 0);
    gzclose(g);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* The reference dump: concatenated JSON objects, split with jansson. */
static json_t *load_reference(const char *trace) {
    char base[4096], p[4200];
    snprintf(base, sizeof base, "%s", trace);
    if (ends_with(base, ".gz")) base[strlen(base) - 3] = '\0';
    struct stat st;
    snprintf(p, sizeof p, "%s.json", base);
    if (stat(p, &st) != 0) snprintf(p, sizeof p, "%s.json.gz", base);
    size_t len;
    char *text = slurp(p, &len);
    json_t *arr = json_array();
    size_t pos = 0;
    for (;;) {
        while (pos < len && strchr(" \t\r\n", text[pos])) pos++;
        if (pos == len) break;
        json_error_t je;
        json_t *o = json_loadb(text + pos, len - pos, JSON_DISABLE_EOF_CHECK, &je);
        if (!o) fail_msg("%s: JSON error at byte %zu: %s", p, pos + je.position, je.text);
        assert_true(json_is_object(o));
        json_array_append_new(arr, o);
        pos += je.position;
    }
    free(text);
    return arr;
}

static void expect_json(const char *file, size_t rec, json_t *got, json_t *want) {
    if (want && json_equal(got, want)) return;
    char *g = json_dumps(got, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
    char *w = want ? json_dumps(want, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(17))
                   : strdup("(no reference object: the dump has fewer records)");
    print_error("%s: record %zu differs from the reference dump\n--- ours:\n%s\n--- "
                "reference:\n%s\n",
                file, rec, g, w);
    free(g);
    free(w);
    fail();
}

static cs_et_reader *open_ok(const char *path) {
    cs_error err;
    cs_error_clear(&err);
    cs_et_reader *r = NULL;
    int rc = cs_et_reader_open(path, &r, &err);
    if (rc != CS_OK) fail_msg("%s", err.msg);
    return r;
}

/* Checks one trace against its dump; returns the number of records. */
static size_t check_trace(const char *path) {
    json_t *ref = load_reference(path);
    cs_et_reader *r = open_ok(path);
    json_t *j = cs_et_metadata_to_json(cs_et_reader_metadata(r));
    expect_json(path, 0, j, json_array_get(ref, 0));
    json_decref(j);
    size_t rec = 1;
    node_t *n;
    cs_error err;
    cs_error_clear(&err);
    int rc;
    while ((rc = cs_et_reader_next(r, &n, &err)) == 1) {
        j = cs_et_node_to_json(n);
        expect_json(path, rec, j, json_array_get(ref, rec));
        json_decref(j);
        cs_et_node_free(n);
        rec++;
    }
    if (rc != 0) fail_msg("%s", err.msg);
    if (rec != json_array_size(ref))
        fail_msg("%s: read %zu records, the dump has %zu", path, rec, json_array_size(ref));
    cs_et_reader_close(r);
    json_decref(ref);
    return rec;
}

/* ---- tests -------------------------------------------------------------- */

static void test_all_traces_match_reference_dumps(void **state) {
    (void)state;
    strvec s = all_traces();
    assert_int_equal(s.n, EXPECTED_FILES);
    size_t messages = 0;
    for (size_t i = 0; i < s.n; i++) messages += check_trace(s.v[i]);
    assert_int_equal(messages, EXPECTED_MESSAGES);
    sv_free(&s);
}

static const char *trace(const char *rel) { return tu_path(chakra_dir(), rel); }

/* Finds the node with this id in a file (caller frees); fails when absent. */
static node_t *find_node(const char *rel, uint64_t id) {
    cs_et_reader *r = open_ok(trace(rel));
    node_t *n, *hit = NULL;
    cs_error err;
    cs_error_clear(&err);
    while (!hit && cs_et_reader_next(r, &n, &err) == 1) {
        if (n->id == id)
            hit = n;
        else
            cs_et_node_free(n);
    }
    cs_et_reader_close(r);
    if (!hit) fail_msg("%s: no node with id %llu", rel, (unsigned long long)id);
    return hit;
}

static void test_edge_cases(void **state) {
    (void)state;
    const char *f = "custom_edge_cases_1npu/edge_cases.0.et";
    cs_error err;
    cs_error_clear(&err);
    uint64_t u = 0;
    int64_t i = 0;
    const uint64_t big = ((uint64_t)1 << 40) + 1;
    node_t *n = find_node(f, big);
    assert_int_equal(n->type, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE);
    assert_int_equal(cs_et_attr_get_uint(n, "comm_size", &u, &err), 1);
    assert_true(u == ((uint64_t)1 << 33) + 5);
    assert_int_equal(cs_et_attr_get_int(n, "comm_type", &i, &err), 1);
    assert_int_equal(i, CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_TO_ALL);
    assert_string_equal(cs_et_comm_type_name((int)i), "ALL_TO_ALL");
    assert_int_equal(n->n_data_deps, 1);
    assert_true(n->data_deps[0] == 10);
    cs_et_node_free(n);

    n = find_node(f, 10); /* forward reference to 11 */
    assert_int_equal(n->n_data_deps, 1);
    assert_true(n->data_deps[0] == 11);
    cs_et_node_free(n);

    n = find_node(f, 12); /* zero-valued oneofs are present */
    const char *s = NULL;
    i = 99;
    assert_int_equal(cs_et_attr_get_int(n, "num_ops", &i, &err), 1);
    assert_int_equal(i, 0);
    assert_int_equal(cs_et_attr_get_string(n, "empty_str", &s, &err), 1);
    assert_string_equal(s, "");
    assert_int_equal(cs_et_attr_get_int(n, "empty_str", &i, &err), CS_EFORMAT);
    assert_non_null(strstr(err.msg, "attribute empty_str: expected an integer, found string_val"));
    assert_int_equal(n->n_data_deps, 3);
    cs_et_node_free(n);

    n = find_node(f, 13);
    cs_error_clear(&err);
    assert_int_equal(cs_et_attr_get_int(n, "neg", &i, &err), 1);
    assert_int_equal(i, -1);
    assert_int_equal(cs_et_attr_get_uint(n, "neg", &u, &err), CS_EFORMAT);
    assert_non_null(strstr(err.msg, "non-negative"));
    assert_int_equal(cs_et_attr_get_int(n, "sneg", &i, &err), 1);
    assert_true(i == -123456789012LL);
    assert_string_equal(n->name, "unicode_\xc3\xa9\xe4\xb8\xad");
    int b = -1;
    assert_int_equal(cs_et_attr_get_bool(n, "is_cpu_op", &b, &err), 1);
    assert_int_equal(b, 1);
    cs_et_node_free(n);

    n = find_node(f, 14); /* comm_size as uint64_val, no is_cpu_op */
    assert_int_equal(cs_et_attr_get_int(n, "comm_size", &i, &err), 1);
    assert_int_equal(i, 12345);
    b = 7;
    assert_int_equal(cs_et_attr_get_bool(n, "is_cpu_op", &b, &err), 0);
    assert_int_equal(b, 7);
    cs_et_node_free(n);

    n = find_node(f, 0); /* METADATA_NODE written last */
    assert_int_equal(n->type, CHAKRA_PROTO_MSG__NODE_TYPE__METADATA_NODE);
    assert_string_equal(cs_et_node_type_name((int)n->type), "METADATA_NODE");
    cs_et_node_free(n);
}

static void test_unpacked_deps(void **state) {
    (void)state;
    node_t *n = find_node("custom_edge_cases_1npu/unpacked_deps.0.et", 3);
    assert_int_equal(n->n_ctrl_deps, 2);
    assert_int_equal(n->n_data_deps, 2);
    assert_true(n->ctrl_deps[0] == 1 && n->ctrl_deps[1] == 2);
    assert_true(n->data_deps[0] == 1 && n->data_deps[1] == 2);
    cs_et_node_free(n);
}

typedef struct stats {
    size_t nodes, by_type[8], data_deps, ctrl_deps, with_comm_type;
    uint64_t duration;
} stats;

static stats file_stats(const char *rel) {
    stats st = {0};
    cs_et_reader *r = open_ok(trace(rel));
    node_t *n;
    cs_error err;
    cs_error_clear(&err);
    int rc;
    while ((rc = cs_et_reader_next(r, &n, &err)) == 1) {
        st.nodes++;
        if (n->type < 8) st.by_type[n->type]++;
        st.data_deps += n->n_data_deps;
        st.ctrl_deps += n->n_ctrl_deps;
        st.duration += n->duration_micros;
        if (cs_et_attr_find(n, "comm_type")) st.with_comm_type++;
        cs_et_node_free(n);
    }
    assert_int_equal(rc, 0);
    assert_true(cs_et_reader_record_index(r) == st.nodes + 1);
    cs_et_reader_close(r);
    return st;
}

static void test_readme_counts(void **state) {
    (void)state;
    stats st = file_stats("repo_feeder_tests_1npu/chakra.0.et");
    assert_int_equal(st.nodes, 3664);
    assert_int_equal(st.by_type[CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE], 3643);
    assert_int_equal(st.by_type[CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE], 21);
    assert_int_equal(st.with_comm_type, 7);
    assert_int_equal(st.data_deps, 181878);
    assert_int_equal(st.ctrl_deps, 3664);

    st = file_stats("custom_chain_1000_2npu/chain.0.et");
    assert_int_equal(st.nodes, 1000);
    assert_int_equal(st.by_type[CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE], 900);
    assert_int_equal(st.by_type[CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE], 100);
    assert_true(st.duration == 3596);

    st = file_stats("text_data_parallel_8npu/data_parallel.0.et");
    assert_int_equal(st.nodes, 22);
    assert_int_equal(st.by_type[CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE], 16);
    assert_int_equal(st.data_deps, 23);
    assert_true(st.duration == 1670);

    st = file_stats("pytorch_host_1.0.2_1npu/pytorch_1.0.2.0.et");
    assert_int_equal(st.nodes, 262);
    assert_int_equal(st.data_deps, 261);
    assert_int_equal(st.ctrl_deps, 91);
}

static void test_gzip_chain_equals_chain(void **state) {
    (void)state;
    for (int rank = 0; rank < 2; rank++) {
        char a[64], b[64];
        snprintf(a, sizeof a, "custom_chain_1000_2npu/chain.%d.et", rank);
        snprintf(b, sizeof b, "gzip_chain_2npu/chain_gz.%d.et.gz", rank);
        cs_et_reader *ra = open_ok(trace(a)), *rb = open_ok(trace(b));
        size_t count = 0;
        for (;;) {
            node_t *x, *y;
            cs_error err;
            cs_error_clear(&err);
            int ka = cs_et_reader_next(ra, &x, &err);
            int kb = cs_et_reader_next(rb, &y, &err);
            assert_int_equal(ka, kb);
            if (ka != 1) break;
            size_t lx = protobuf_c_message_get_packed_size(&x->base);
            size_t ly = protobuf_c_message_get_packed_size(&y->base);
            assert_int_equal(lx, ly);
            uint8_t *px = malloc(lx + 1), *py = malloc(ly + 1);
            protobuf_c_message_pack(&x->base, px);
            protobuf_c_message_pack(&y->base, py);
            assert_memory_equal(px, py, lx);
            free(px);
            free(py);
            cs_et_node_free(x);
            cs_et_node_free(y);
            count++;
        }
        assert_int_equal(count, 1000);
        cs_et_reader_close(ra);
        cs_et_reader_close(rb);
    }
}

static void test_p2p_attributes(void **state) {
    (void)state;
    const char *f = "custom_p2p_mixed_deps_4npu/p2p_mixed.2.et";
    cs_error err;
    cs_error_clear(&err);
    node_t *n = find_node(f, 1); /* SEND to (r+1)%4 */
    int64_t v = -1;
    assert_int_equal(cs_et_attr_get_int(n, "comm_src", &v, &err), 1);
    assert_int_equal(v, 2);
    assert_int_equal(cs_et_attr_get_int(n, "comm_dst", &v, &err), 1);
    assert_int_equal(v, 3);
    assert_int_equal(cs_et_attr_get_int(n, "comm_tag", &v, &err), 1);
    assert_int_equal(v, 7);
    cs_et_node_free(n);

    n = find_node(f, 3); /* ALL_REDUCE with involved_dim [true, false] */
    const protobuf_c_boolean *dims = NULL;
    size_t nd = 0;
    assert_int_equal(cs_et_attr_get_bool_list(n, "involved_dim", &dims, &nd, &err), 1);
    assert_int_equal(nd, 2);
    assert_true(dims[0] && !dims[1]);
    const char *pg = NULL;
    assert_int_equal(cs_et_attr_get_string(n, "pg_name", &pg, &err), 1);
    assert_string_equal(pg, "0");
    assert_int_equal(cs_et_attr_get_bool_list(n, "pg_name", &dims, &nd, &err), CS_EFORMAT);
    assert_non_null(strstr(err.msg, "expected a bool_list, found string_val"));
    cs_et_node_free(n);

    n = find_node(f, 7); /* comm_size as uint64_val */
    uint64_t u = 0;
    assert_int_equal(cs_et_attr_get_uint(n, "comm_size", &u, &err), 1);
    assert_true(u == 16u << 20);
    cs_et_node_free(n);

    cs_et_reader *r = open_ok(trace(f));
    const ChakraProtoMsg__GlobalMetadata *md = cs_et_reader_metadata(r);
    assert_string_equal(md->version, "1.0.0");
    assert_int_equal(md->n_attr, 2);
    assert_string_equal(md->attr[1]->name, "num_npus");
    assert_true(md->attr[1]->uint64_val == 4);
    cs_et_reader_close(r);
}

static void test_generator_example(void **state) {
    (void)state;
    cs_error err;
    cs_error_clear(&err);
    node_t *n = find_node("generator_8npu_default/ALL_REDUCE.3.et", 67);
    assert_string_equal(n->name, "ALL_REDUCE");
    int b = -1;
    assert_int_equal(cs_et_attr_get_bool(n, "is_cpu_op", &b, &err), 1);
    assert_int_equal(b, 0);
    uint64_t size = 0;
    assert_int_equal(cs_et_attr_get_uint(n, "comm_size", &size, &err), 1);
    assert_true(size == 65536);
    cs_et_node_free(n);
}

static void test_names(void **state) {
    (void)state;
    assert_string_equal(cs_et_node_type_name(0), "INVALID_NODE");
    assert_string_equal(cs_et_node_type_name(4), "COMP_NODE");
    assert_string_equal(cs_et_node_type_name(7), "COMM_COLL_NODE");
    assert_null(cs_et_node_type_name(8));
    assert_null(cs_et_node_type_name(-1));
    assert_string_equal(cs_et_comm_type_name(0), "ALL_REDUCE");
    assert_string_equal(cs_et_comm_type_name(9), "BARRIER");
    assert_null(cs_et_comm_type_name(10));
    assert_string_equal(cs_et_attr_value_name(9), "int64_val");
    assert_string_equal(cs_et_attr_value_name(32), "bytes_list");
    assert_null(cs_et_attr_value_name(33));
}

int main(void) {
    tu_require_shared();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_traces_match_reference_dumps),
        cmocka_unit_test(test_edge_cases),
        cmocka_unit_test(test_unpacked_deps),
        cmocka_unit_test(test_readme_counts),
        cmocka_unit_test(test_gzip_chain_equals_chain),
        cmocka_unit_test(test_p2p_attributes),
        cmocka_unit_test(test_generator_example),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
