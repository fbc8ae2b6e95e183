/*
 * test_config_memory.c -- the remote-memory JSON reader
 * (src/config/memory_config.c): every reference case loads, hand-checked
 * values, the per-type required keys, one test per user error (code, file
 * name, line, key and "expected" in the message), warnings, dump, --help.
 */
#include "testutil.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/memory_config.h"
#include "core/log.h"



static void expect_error(const char *name, const char *text, int line, const char *key,
                         const char *extra) {
    const char *p = tu_write_tmp(name, text);
    cs_memory_config c;
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_memory_config_load(p, &c, &err);
    if (rc != CS_EINVAL) fail_msg("%s: rc %d, message \"%s\"", name, rc, err.msg);
    tu_assert_located(err.msg, p, line, key, extra);
    assert_null(c.path);
}

static cs_memory_config load_ok(const char *path) {
    cs_memory_config c;
    cs_error err;
    cs_error_clear(&err);
    if (cs_memory_config_load(path, &c, &err) != CS_OK) fail_msg("%s: %s", path, err.msg);
    return c;
}

static const char *case_file(const char *case_name) {
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/testdata/astra-sim/cases/%s/memory.json", tu_shared_dir(),
             case_name);
    return buf;
}


static void test_all_cases_load(void **state) {
    (void)state;
    if (!tu_shared_dir()) {
        fprintf(stderr, "SKIP: ../shared is absent; reference cases not checked\n");
        skip();
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/testdata/astra-sim/cases", tu_shared_dir());
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    tu_capture_warnings();
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char p[8192];
        snprintf(p, sizeof p, "%s/%s/memory.json", dir, e->d_name);
        FILE *f = fopen(p, "r");
        if (!f) continue;
        fclose(f);
        cs_memory_config c = load_ok(p);
        assert_int_equal(cs_memory_config_validate(&c, 64, NULL), CS_OK);
        cs_memory_config_free(&c);
        n++;
    }
    closedir(d);
    tu_capture_end();
    assert_true(n >= 40);
    assert_int_equal(tu_warning_count(), 0);
}

static void test_case_values(void **state) {
    (void)state;
    if (!tu_shared_dir()) skip();
    cs_memory_config c = load_ok(case_file("p04_p2p_mixed_fc4_pool_cu"));
    assert_int_equal(c.type, CS_MEM_POOL);
    assert_true(c.remote_mem_latency_ns == 500.0);
    assert_true(c.remote_mem_bw_gbps == 64.0);
    cs_memory_config_free(&c);

    c = load_ok(case_file("p01_p2p_mixed_ring4_pernpu_cu"));
    assert_int_equal(c.type, CS_MEM_PER_NPU_EXPANSION);
    assert_true(c.remote_mem_latency_ns == 1000.0);
    assert_true(c.remote_mem_bw_gbps == 32.0);
    cs_memory_config_free(&c);

    c = load_ok(case_file("a_ar_ring8_64MB_cu"));
    assert_int_equal(c.type, CS_MEM_NO_EXPANSION);
    assert_true(c.remote_mem_bw_gbps == 0.0);
    json_t *j = cs_memory_config_to_json(&c);
    char *s = json_dumps(j, JSON_COMPACT);
    assert_string_equal(s, "{\"memory-type\":\"NO_MEMORY_EXPANSION\"}");
    free(s);
    json_decref(j);
    cs_memory_config_free(&c);
}

static void test_per_node(void **state) {
    (void)state;
    const char *p = tu_write_tmp("node.json",
                              "{\n  \"memory-type\": \"PER_NODE_MEMORY_EXPANSION\",\n"
                              "  \"remote-mem-latency\": 250.5,\n  \"remote-mem-bw\": 12.5,\n"
                              "  \"num-nodes\": 2,\n  \"num-npus-per-node\": 4\n}\n");
    cs_memory_config c = load_ok(p);
    assert_int_equal(c.type, CS_MEM_PER_NODE_EXPANSION);
    assert_int_equal(c.num_nodes, 2);
    assert_int_equal(c.num_npus_per_node, 4);
    assert_true(c.remote_mem_latency_ns == 250.5 && c.remote_mem_bw_gbps == 12.5);
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_memory_config_validate(&c, 8, &err), CS_OK);
    assert_int_equal(cs_memory_config_validate(&c, 16, &err), CS_EINVAL);
    char want[4200];
    snprintf(want, sizeof want, "%s:5: num-nodes: expected", p);
    tu_assert_has(err.msg, want);
    tu_assert_has(err.msg, "got 2 x 4 = 8");

    json_t *j = cs_memory_config_to_json(&c);
    assert_int_equal(json_object_size(j), 5);
    assert_true(json_real_value(json_object_get(j, "remote-mem-latency")) == 250.5);
    assert_int_equal(json_integer_value(json_object_get(j, "num-npus-per-node")), 4);
    char dump[4096];
    snprintf(dump, sizeof dump, "%s", tu_path(tu_tmp_dir(), "node_dump.json"));
    assert_int_equal(json_dump_file(j, dump, 0), 0);
    cs_memory_config c2 = load_ok(dump);
    json_t *j2 = cs_memory_config_to_json(&c2);
    assert_true(json_equal(j, j2));
    json_decref(j);
    json_decref(j2);
    cs_memory_config_free(&c2);
    cs_memory_config_free(&c);
}

static void test_defaults_units_help(void **state) {
    (void)state;
    cs_memory_config c;
    assert_int_equal(cs_memory_config_defaults(&c), CS_OK);
    assert_int_equal(c.type, CS_MEM_NO_EXPANSION);
    assert_null(c.path);
    cs_memory_config_free(&c);
    assert_string_equal(cs_memory_type_name(CS_MEM_POOL), "MEMORY_POOL");
    json_t *u = cs_memory_config_units_json();
    assert_string_equal(json_string_value(json_object_get(u, "remote-mem-bw")), "GB/s");
    assert_string_equal(json_string_value(json_object_get(u, "remote-mem-latency")), "ns");
    json_decref(u);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cs_memory_config_print_help(f);
    fclose(f);
    assert_non_null(strstr(buf, "num-npus-per-node"));
    assert_non_null(strstr(buf, "PER_NODE_MEMORY_EXPANSION"));
    free(buf);
}

static void test_err_missing_type(void **state) {
    (void)state;
    expect_error("notype.json", "\n{\"remote-mem-bw\": 5}\n", 2, "memory-type", "required");
}

static void test_err_unknown_type(void **state) {
    (void)state;
    expect_error("badtype.json", "{\n  \"memory-type\": \"CXL\"\n}\n", 2, "memory-type",
                 "NO_MEMORY_EXPANSION, PER_NPU_MEMORY_EXPANSION, PER_NODE_MEMORY_EXPANSION, "
                 "MEMORY_POOL");
}

static void test_err_missing_bw(void **state) {
    (void)state;
    expect_error("nobw.json", "{\n  \"memory-type\": \"MEMORY_POOL\",\n  \"remote-mem-latency\": 5\n}\n",
                 1, "remote-mem-bw", "MEMORY_POOL");
}

static void test_err_missing_nodes(void **state) {
    (void)state;
    expect_error("nonodes.json",
                 "{\n  \"memory-type\": \"PER_NODE_MEMORY_EXPANSION\",\n  \"remote-mem-bw\": 5,\n"
                 "  \"num-npus-per-node\": 4\n}\n",
                 1, "num-nodes", "line 2");
    expect_error("noper.json",
                 "{\n  \"memory-type\": \"PER_NODE_MEMORY_EXPANSION\",\n  \"remote-mem-bw\": 5,\n"
                 "  \"num-nodes\": 4\n}\n",
                 1, "num-npus-per-node", "required");
}

static void test_err_zero_bw(void **state) {
    (void)state;
    expect_error("zerobw.json",
                 "{\n  \"memory-type\": \"PER_NPU_MEMORY_EXPANSION\",\n  \"remote-mem-bw\": 0\n}\n",
                 3, "remote-mem-bw", "> 0");
}

static void test_err_negative_latency(void **state) {
    (void)state;
    expect_error("neglat.json",
                 "{\n  \"memory-type\": \"PER_NPU_MEMORY_EXPANSION\",\n  \"remote-mem-bw\": 1,\n"
                 "  \"remote-mem-latency\": -1\n}\n",
                 4, "remote-mem-latency", "got -1");
}

static void test_err_non_integer_nodes(void **state) {
    (void)state;
    expect_error("fracnodes.json",
                 "{\n  \"memory-type\": \"PER_NODE_MEMORY_EXPANSION\",\n  \"remote-mem-bw\": 1,\n"
                 "  \"num-nodes\": 1.5,\n  \"num-npus-per-node\": 2\n}\n",
                 4, "num-nodes", "integer");
    expect_error("zeronodes.json",
                 "{\n  \"memory-type\": \"PER_NODE_MEMORY_EXPANSION\",\n  \"remote-mem-bw\": 1,\n"
                 "  \"num-nodes\": 2,\n  \"num-npus-per-node\": 0\n}\n",
                 5, "num-npus-per-node", "from 1 to");
}

static void test_err_wrong_type(void **state) {
    (void)state;
    expect_error("strbw.json",
                 "{\n  \"memory-type\": \"MEMORY_POOL\",\n  \"remote-mem-bw\": \"64\"\n}\n", 3,
                 "remote-mem-bw", "got \"64\"");
    expect_error("numtype.json", "{\"memory-type\": 0}\n", 1, "memory-type", "got 0");
}

static void test_err_syntax_and_shape(void **state) {
    (void)state;
    expect_error("syntax.json", "{\n  \"memory-type\": NO_MEMORY_EXPANSION\n}\n", 2, NULL, "JSON");
    expect_error("string.json", "\"NO_MEMORY_EXPANSION\"\n", 1, NULL, "object");
}

static void test_err_unreadable(void **state) {
    (void)state;
    cs_memory_config c;
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_memory_config_load(tu_path(tu_tmp_dir(), "no-such-memory.json"), &c, &err), CS_EIO);
    tu_assert_has(err.msg, "no-such-memory.json");
}

static void test_warnings(void **state) {
    (void)state;
    const char *p = tu_write_tmp("warn.json",
                              "{\n  \"memory-type\": \"PER_NPU_MEMORY_EXPANSION\",\n"
                              "  \"remote-mem-bw\": 1,\n  \"num-nodes\": 2,\n"
                              "  \"remote-mem-latncy\": 3\n}\n");
    tu_capture_warnings();
    cs_memory_config c = load_ok(p);
    tu_capture_end();
    assert_int_equal(tu_warning_count(), 2);
    assert_int_equal(c.num_nodes, 0);
    cs_memory_config_free(&c);
    char want[4200];
    snprintf(want, sizeof want, "%s:5: unknown key \"remote-mem-latncy\" ignored (did you mean "
             "\"remote-mem-latency\"?)", p);
    tu_assert_has(tu_warnings(), want);
    snprintf(want, sizeof want, "%s:4: num-nodes is ignored", p);
    tu_assert_has(tu_warnings(), want);

    p = tu_write_tmp("warn2.json", "{\"memory-type\": \"NO_MEMORY_EXPANSION\",\n \"colour\": 1}\n");
    tu_capture_warnings();
    c = load_ok(p);
    tu_capture_end();
    cs_memory_config_free(&c);
    assert_int_equal(tu_warning_count(), 1);
    snprintf(want, sizeof want, "%s:2: unknown key \"colour\"", p);
    tu_assert_has(tu_warnings(), want);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_cases_load),
        cmocka_unit_test(test_case_values),
        cmocka_unit_test(test_per_node),
        cmocka_unit_test(test_defaults_units_help),
        cmocka_unit_test(test_err_missing_type),
        cmocka_unit_test(test_err_unknown_type),
        cmocka_unit_test(test_err_missing_bw),
        cmocka_unit_test(test_err_missing_nodes),
        cmocka_unit_test(test_err_zero_bw),
        cmocka_unit_test(test_err_negative_latency),
        cmocka_unit_test(test_err_non_integer_nodes),
        cmocka_unit_test(test_err_wrong_type),
        cmocka_unit_test(test_err_syntax_and_shape),
        cmocka_unit_test(test_err_unreadable),
        cmocka_unit_test(test_warnings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
