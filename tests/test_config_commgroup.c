/*
 * test_config_commgroup.c -- the communicator-group JSON reader
 * (src/config/comm_group.c): every reference comm_group.json loads,
 * "empty", sorting and lookup, the pg_name rule for "" and "0", one test
 * per user error (code, file name, line, key and "expected" in the message)
 * and the rank-range validation.
 */
#include "testutil.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/comm_group.h"
#include "core/log.h"



static void expect_error(const char *name, const char *text, int line, const char *key,
                         const char *extra) {
    const char *p = tu_write_tmp(name, text);
    cs_comm_groups g;
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_comm_groups_load(p, &g, &err);
    if (rc != CS_EINVAL) fail_msg("%s: rc %d, message \"%s\"", name, rc, err.msg);
    tu_assert_located(err.msg, p, line, key, extra);
    assert_null(g.path);
    assert_int_equal(g.ngroups, 0);
}

static cs_comm_groups load_ok(const char *path) {
    cs_comm_groups g;
    cs_error err;
    cs_error_clear(&err);
    if (cs_comm_groups_load(path, &g, &err) != CS_OK) fail_msg("%s: %s", path, err.msg);
    return g;
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
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char p[8192];
        snprintf(p, sizeof p, "%s/%s/comm_group.json", dir, e->d_name);
        FILE *f = fopen(p, "r");
        if (!f) continue;
        fclose(f);
        cs_comm_groups g = load_ok(p);
        assert_true(g.ngroups >= 1);
        cs_comm_groups_free(&g);
        n++;
    }
    closedir(d);
    assert_true(n >= 1);
}

static void test_case_values(void **state) {
    (void)state;
    if (!tu_shared_dir()) skip();
    char p[4096];
    snprintf(p, sizeof p, "%s/testdata/astra-sim/cases/g01_p2p_pg12_ring4_cg_cu/comm_group.json",
             tu_shared_dir());
    cs_comm_groups g = load_ok(p);
    assert_int_equal(g.ngroups, 2);
    assert_string_equal(g.groups[0].name, "1");
    assert_int_equal(g.groups[0].nranks, 2);
    assert_int_equal(g.groups[0].ranks[0], 0);
    assert_int_equal(g.groups[0].ranks[1], 1);
    assert_string_equal(g.groups[1].name, "2");
    assert_int_equal(g.groups[1].ranks[0], 2);
    assert_int_equal(g.groups[1].ranks[1], 3);
    assert_int_equal(cs_comm_groups_validate(&g, 4, NULL), CS_OK);
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_comm_groups_validate(&g, 3, &err), CS_EINVAL);
    tu_assert_has(err.msg, "comm_group.json:1: group \"2\": expected NPU ranks below 3");
    assert_ptr_equal(cs_comm_groups_find(&g, "2"), &g.groups[1]);
    cs_comm_groups_free(&g);
}

static void test_empty(void **state) {
    (void)state;
    cs_comm_groups g = load_ok("empty");
    assert_int_equal(g.ngroups, 0);
    assert_null(g.path);
    const cs_comm_group *cg = (const cs_comm_group *)&g;
    assert_int_equal(cs_comm_groups_resolve(&g, "", &cg, NULL), CS_OK);
    assert_null(cg);
    assert_int_equal(cs_comm_groups_resolve(&g, "0", &cg, NULL), CS_OK);
    assert_null(cg);
    assert_int_equal(cs_comm_groups_resolve(&g, NULL, &cg, NULL), CS_OK);
    assert_null(cg);
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_comm_groups_resolve(&g, "1", &cg, &err), CS_EINVAL);
    tu_assert_has(err.msg, "pg_name: expected");
    tu_assert_has(err.msg, "got \"1\"");
    assert_int_equal(cs_comm_groups_validate(&g, 1, NULL), CS_OK);
    cs_comm_groups_free(&g);
}

static void test_sorted_lookup_and_group_zero(void **state) {
    (void)state;
    const char *p = tu_write_tmp("sorted.json",
                              "{\n  \"10\": [5, 1],\n  \"2\": [\n    0,\n    3\n  ],\n"
                              "  \"0\": [7]\n}\n");
    cs_comm_groups g = load_ok(p);
    assert_int_equal(g.ngroups, 3);
    assert_int_equal(g.groups[0].id, 0);
    assert_int_equal(g.groups[1].id, 2);
    assert_int_equal(g.groups[2].id, 10);
    assert_int_equal(g.groups[2].ranks[0], 5); /* file order kept */
    assert_int_equal(g.groups[1].rank_lines[1], 5);
    assert_int_equal(g.groups[2].line, 2);
    assert_ptr_equal(cs_comm_groups_find(&g, "10"), &g.groups[2]);
    assert_ptr_equal(cs_comm_groups_find(&g, "010"), &g.groups[2]);
    assert_null(cs_comm_groups_find(&g, "3"));
    assert_null(cs_comm_groups_find(&g, "x"));
    assert_null(cs_comm_groups_find(&g, ""));
    const cs_comm_group *cg = NULL;
    /* a group "0" defined in the file is that group, not "all ranks" */
    assert_int_equal(cs_comm_groups_resolve(&g, "0", &cg, NULL), CS_OK);
    assert_ptr_equal(cg, &g.groups[0]);
    assert_int_equal(cs_comm_groups_resolve(&g, "", &cg, NULL), CS_OK);
    assert_null(cg);
    assert_int_equal(cs_comm_groups_resolve(&g, "2", &cg, NULL), CS_OK);
    assert_ptr_equal(cg, &g.groups[1]);
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_comm_groups_resolve(&g, "4", &cg, &err), CS_EINVAL);
    tu_assert_has(err.msg, "sorted.json");
    tu_assert_has(err.msg, "got \"4\"");

    cs_error_clear(&err);
    assert_int_equal(cs_comm_groups_validate(&g, 7, &err), CS_EINVAL);
    char want[4200];
    snprintf(want, sizeof want, "%s:7: group \"0\": expected NPU ranks below 7", p);
    tu_assert_has(err.msg, want);
    tu_assert_has(err.msg, "got 7");
    assert_int_equal(cs_comm_groups_validate(&g, 8, NULL), CS_OK);
    cs_comm_groups_free(&g);

    p = tu_write_tmp("none.json", "{}\n");
    g = load_ok(p);
    assert_int_equal(g.ngroups, 0);
    assert_non_null(g.path);
    cs_comm_groups_free(&g);
}

static void test_err_bad_id(void **state) {
    (void)state;
    expect_error("badid.json", "{\n  \"1\": [0],\n  \"tp\": [1]\n}\n", 3, "tp", "decimal");
    expect_error("negid.json", "{\n  \"-1\": [0]\n}\n", 2, "-1", "decimal");
    expect_error("bigid.json", "{\"2147483648\": [0]}\n", 1, "2147483648", "2147483647");
    expect_error("emptyid.json", "{\"\": [0]}\n", 1, NULL, "decimal");
}

static void test_err_bad_rank(void **state) {
    (void)state;
    expect_error("negrank.json", "{\n  \"1\": [\n    0,\n    -3\n  ]\n}\n", 4, "1", "got -3");
    expect_error("fracrank.json", "{\"1\": [0, 1.5]}\n", 1, "1", "got 1.5");
    expect_error("strrank.json", "{\n\"1\": [\"0\"]}\n", 2, "1", "got \"0\"");
    expect_error("hugerank.json", "{\"1\": [4294967296]}\n", 1, "1", "4294967295");
}

static void test_err_duplicate_rank(void **state) {
    (void)state;
    expect_error("duprank.json", "{\n  \"1\": [3,\n    1,\n    3]\n}\n", 4, "1",
                 "rank 3 again (first at line 2)");
}

static void test_err_not_a_list(void **state) {
    (void)state;
    expect_error("notlist.json", "{\n  \"1\": 0\n}\n", 2, "1", "list");
    expect_error("emptylist.json", "{\n  \"1\": []\n}\n", 2, "1", "non-empty");
    expect_error("object.json", "{\n  \"1\": {\"ranks\": [0]}\n}\n", 2, "1", "an object");
}

static void test_err_duplicate_group(void **state) {
    (void)state;
    expect_error("dupgroup.json", "{\n  \"1\": [0],\n  \"01\": [1]\n}\n", 3, "01",
                 "group 1 again (first at line 2");
    expect_error("dupkey.json", "{\n  \"1\": [0],\n  \"1\": [1]\n}\n", 3, "1", "first at line 2");
}

static void test_err_shape_and_syntax(void **state) {
    (void)state;
    expect_error("array.json", "[[0, 1], [2, 3]]\n", 1, NULL, "object");
    expect_error("syntax.json", "{\"1\": [0, 1],\n \"2\": [2 3]}\n", 2, NULL, "JSON");
}

static void test_err_unreadable(void **state) {
    (void)state;
    cs_comm_groups g;
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_comm_groups_load(tu_path(tu_tmp_dir(), "no-such-commgroup.json"), &g, &err),
                     CS_EIO);
    tu_assert_has(err.msg, "no-such-commgroup.json");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_cases_load),
        cmocka_unit_test(test_case_values),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_sorted_lookup_and_group_zero),
        cmocka_unit_test(test_err_bad_id),
        cmocka_unit_test(test_err_bad_rank),
        cmocka_unit_test(test_err_duplicate_rank),
        cmocka_unit_test(test_err_not_a_list),
        cmocka_unit_test(test_err_duplicate_group),
        cmocka_unit_test(test_err_shape_and_syntax),
        cmocka_unit_test(test_err_unreadable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
