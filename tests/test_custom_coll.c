/*
 * test_custom_coll.c -- the custom collective graph table
 * (src/workload/custom_coll.c) and the per-node map reader
 * (src/config/custom_nodes.c): which prefix a collective runs (per node
 * first, then per type, else none), graphs shared between identical files
 * and checked per communicator size, and the reader's results and errors.
 * Timing is tested through the program (tests/cli_custom_coll.sh).
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/custom_nodes.h"
#include "core/alloc.h"
#include "system/coll_type.h"
#include "workload/custom_coll.h"

static void config_with(cs_system_config *c, int k, const char *prefix) {
    cs_system_config_defaults(c);
    c->custom_impl[k] = cs_strdup(prefix);
}

/* Ranks 0 and 2 have byte-identical files, 1 and 3 another pair: two graphs. */
static void test_sharing_and_checks(void **state) {
    (void)state;
    const char *prefix = tu_path(tu_tmp_dir(), "share");
    const char *specs[4] = {"1 SEND dst=1 size=8 tag=1; 2 RECV src=1 size=8 tag=1",
                            "1 SEND dst=0 size=8 tag=1; 2 RECV src=0 size=8 tag=1",
                            "1 SEND dst=1 size=8 tag=1; 2 RECV src=1 size=8 tag=1",
                            "1 SEND dst=3 size=8 tag=1; 2 RECV src=3 size=8 tag=1"};
    assert_int_equal(tu_write_traces(prefix, specs, 4), 0);
    char *pfx = cs_strdup(prefix);
    cs_system_config cfg;
    config_with(&cfg, CS_CFG_ALL_REDUCE, pfx);
    cs_custom_colls *c = cs_custom_colls_new(&cfg, NULL);
    assert_non_null(c);
    const char *key = NULL;
    const char *p = cs_custom_coll_prefix(c, CS_COLL_ALL_REDUCE, 7, &key);
    assert_string_equal(p, pfx);
    assert_string_equal(key, "all-reduce-implementation-custom");
    assert_null(cs_custom_coll_prefix(c, CS_COLL_ALL_GATHER, 7, &key)); /* no key for all-gather */
    assert_null(cs_custom_coll_prefix(c, CS_COLL_BARRIER, 7, &key));
    const cs_graph *g[4];
    cs_error err;
    for (uint32_t r = 0; r < 4; r++) {
        cs_error_clear(&err);
        assert_int_equal(cs_custom_coll_graph(c, p, key, 4, r, &g[r], &err), CS_OK);
    }
    assert_ptr_equal(g[0], g[2]); /* identical bytes: one graph */
    assert_ptr_not_equal(g[0], g[1]);
    assert_ptr_not_equal(g[1], g[3]); /* same shape, other peer: other bytes */
    const cs_graph *again = NULL;
    assert_int_equal(cs_custom_coll_graph(c, p, key, 4, 1, &again, &err), CS_OK);
    assert_ptr_equal(again, g[1]); /* looked up, not read again */
    /* position 3 names peer 3: fine in 4 ranks, outside a 2-rank communicator's 0..1 */
    cs_error_clear(&err);
    const cs_graph *small = NULL;
    assert_int_equal(cs_custom_coll_graph(c, p, key, 2, 0, &small, &err), CS_OK);
    assert_ptr_equal(small, g[0]);
    cs_error_clear(&err);
    assert_int_equal(cs_custom_coll_graph(c, p, key, 3, 3, &small, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "comm_dst 3 is outside the communicator of 3 ranks; expected 0..2"));
    assert_non_null(strstr(err.msg, "share.3.et: node 1 (COMM_SEND)"));
    /* a position without a file */
    cs_error_clear(&err);
    assert_int_equal(cs_custom_coll_graph(c, p, key, 8, 5, &small, &err), CS_EIO);
    assert_non_null(strstr(err.msg, "share.5.et: custom collective graph for position 5 of a 8-rank communicator "
                                    "does not exist"));
    assert_non_null(strstr(err.msg, "all-reduce-implementation-custom"));
    cs_custom_colls_free(c);
    cs_system_config_free(&cfg);
    cs_free(pfx);
}

/* custom:PREFIX sets: two positions exchanging two messages each with tags
 * 1 and 2 (written in opposite orders on the two sides), a COMP between. */
static void test_dim_set(void **state) {
    (void)state;
    const char *prefix = tu_path(tu_tmp_dir(), "dset");
    const char *specs[2] = {
        /* position 0: send tag 1, send tag 2, receive tag 2 after a 0 us COMP, receive tag 1 */
        "GLOBAL phase_bytes=64; 1 SEND dst=1 size=8 tag=1; 2 SEND dst=1 size=16 tag=2; 3 COMP dur=0;"
        " 4 RECV src=1 size=16 tag=2 data=3; 5 RECV src=1 size=8 tag=1 data=3,4",
        /* position 1: receive tag 2 first, then tag 1, then send both back after a 2 us COMP */
        "GLOBAL phase_bytes=64; 1 RECV src=0 size=16 tag=2; 2 RECV src=0 size=8 tag=1; 3 COMP dur=2 data=1,2;"
        " 4 SEND dst=0 size=8 tag=1 data=3; 5 SEND dst=0 size=16 tag=2 data=3"};
    assert_int_equal(tu_write_traces(prefix, specs, 2), 0);
    cs_system_config cfg;
    cs_system_config_defaults(&cfg);
    assert_int_equal(cs_coll_impl_parse("ring", &cfg.impl[CS_CFG_ALL_REDUCE].algo[0]), 0);
    char entry[300];
    snprintf(entry, sizeof entry, "custom:%s", prefix);
    assert_int_equal(cs_coll_impl_parse(entry, &cfg.impl[CS_CFG_ALL_REDUCE].algo[1]), 0);
    assert_string_equal(cfg.impl[CS_CFG_ALL_REDUCE].algo[1].text, prefix);
    cfg.impl[CS_CFG_ALL_REDUCE].n = 2;
    cs_custom_colls *c = cs_custom_colls_new(&cfg, NULL); /* a custom: entry alone makes a table */
    assert_non_null(c);
    const cs_cdim_set *set = NULL, *again = NULL;
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_custom_colls_dim_set(c, prefix, "sys.json: all-reduce-implementation[1]", 2, &set, &err),
                     CS_OK);
    assert_int_equal(set->n, 2);
    assert_int_equal(set->ref_bytes, 64);
    const cs_cdim_graph *g0 = &set->g[0], *g1 = &set->g[1];
    assert_int_equal(g0->nnodes, 5);
    /* nodes are in id order: index = id - 1 */
    assert_int_equal(g0->nodes[0].kind, CS_CDIM_SEND);
    assert_int_equal(g0->nodes[0].peer, 1);
    assert_int_equal(g0->nodes[0].bytes, 8);
    assert_int_equal(g0->nodes[0].match, 1); /* tag 1 -> position 1's node 2 (index 1) */
    assert_int_equal(g0->nodes[1].match, 0); /* tag 2 -> position 1's node 1 (index 0) */
    assert_int_equal(g1->nodes[3].match, 4); /* tag 1 -> position 0's node 5 */
    assert_int_equal(g1->nodes[4].match, 3); /* tag 2 -> position 0's node 4 */
    assert_int_equal(g0->nodes[2].kind, CS_CDIM_COMP);
    assert_int_equal(g0->nodes[2].dur_ns, 1);    /* 0 us: 1 ns, as the executor times it */
    assert_int_equal(g1->nodes[2].dur_ns, 2000); /* 2 us */
    assert_int_equal(g0->nodes[4].nparents, 2);
    assert_int_equal(g0->nodes[2].nchildren, 2);
    assert_int_equal(g1->nodes[2].nparents, 2);
    assert_int_equal(g1->nodes[0].kind, CS_CDIM_RECV);
    assert_int_equal(g1->nodes[0].peer, 0);
    assert_int_equal(cs_custom_colls_dim_set(c, prefix, "x", 2, &again, &err), CS_OK);
    assert_ptr_equal(again, set); /* converted once */
    /* 3 positions: the set has 2 files */
    cs_error_clear(&err);
    assert_int_equal(cs_custom_colls_dim_set(c, prefix, "sys.json: all-reduce-implementation[1]", 3, &again, &err),
                     CS_EIO);
    tu_assert_has(err.msg, "dset.2.et: custom collective graph for position 2 of a 3-rank dimension does not exist");
    /* 1 position: a second file exists, and position 0 names peer 1 */
    cs_error_clear(&err);
    assert_int_equal(cs_custom_colls_dim_set(c, prefix, "sys.json: all-reduce-implementation[1]", 1, &again, &err),
                     CS_EINVAL);
    tu_assert_has(err.msg, "comm_dst 1 is outside the dimension of 1 ranks; expected 0..0");
    tu_assert_has(err.msg, "sys.json: all-reduce-implementation[1]");
    /* sizes of a send and its receive differ */
    const char *bad = tu_path(tu_tmp_dir(), "dbad");
    const char *bspecs[2] = {"GLOBAL phase_bytes=64; 1 SEND dst=1 size=8 tag=1; 2 RECV src=1 size=8 tag=1",
                             "GLOBAL phase_bytes=64; 1 SEND dst=0 size=8 tag=1; 2 RECV src=0 size=9 tag=1"};
    assert_int_equal(tu_write_traces(bad, bspecs, 2), 0);
    cs_error_clear(&err);
    assert_int_equal(cs_custom_colls_dim_set(c, bad, "sys.json: k[0]", 2, &again, &err), CS_EINVAL);
    tu_assert_has(err.msg, "dbad.0.et: node 1 sends 8 bytes but ");
    tu_assert_has(err.msg, "dbad.1.et: node 2 receives 9; expected the same size (sys.json: k[0])");
    /* phase_bytes differing between positions */
    const char *mixed = tu_path(tu_tmp_dir(), "dmix");
    const char *mspecs[2] = {"GLOBAL phase_bytes=64; 1 SEND dst=1 size=8 tag=1; 2 RECV src=1 size=8 tag=1",
                             "GLOBAL phase_bytes=32; 1 SEND dst=0 size=8 tag=1; 2 RECV src=0 size=8 tag=1"};
    assert_int_equal(tu_write_traces(mixed, mspecs, 2), 0);
    cs_error_clear(&err);
    assert_int_equal(cs_custom_colls_dim_set(c, mixed, "sys.json: k[0]", 2, &again, &err), CS_EINVAL);
    tu_assert_has(err.msg, "dmix.1.et: metadata phase_bytes 32 differs from ");
    cs_custom_colls_free(c);
    cs_system_config_free(&cfg);
}

static void test_nothing_configured(void **state) {
    (void)state;
    cs_system_config cfg;
    cs_system_config_defaults(&cfg);
    assert_null(cs_custom_colls_new(&cfg, NULL));
    assert_null(cs_custom_colls_new(NULL, NULL));
    cs_custom_node_map empty = {0};
    assert_null(cs_custom_colls_new(&cfg, &empty));
    cs_system_config_free(&cfg);
}

static void test_per_node_first(void **state) {
    (void)state;
    const char *path = tu_write_tmp("nodes.yml", "# node: prefix\n40: b\n3: a\n");
    cs_custom_node_map m;
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_custom_nodes_load(path, &m, &err), CS_OK);
    assert_int_equal(m.n, 2);
    assert_int_equal(m.ids[0], 3); /* sorted */
    assert_int_equal(m.ids[1], 40);
    assert_int_equal(m.line[0], 3);
    assert_string_equal(cs_custom_node_map_find(&m, 40), "b");
    assert_null(cs_custom_node_map_find(&m, 4));
    cs_system_config cfg;
    config_with(&cfg, CS_CFG_ALL_REDUCE, "t");
    cs_custom_colls *c = cs_custom_colls_new(&cfg, &m);
    const char *key = NULL;
    assert_string_equal(cs_custom_coll_prefix(c, CS_COLL_ALL_REDUCE, 3, &key), "a");
    assert_string_equal(key, "per-node-custom-implementation");
    assert_string_equal(cs_custom_coll_prefix(c, CS_COLL_ALL_TO_ALL, 40, &key), "b"); /* any of the four types */
    assert_string_equal(cs_custom_coll_prefix(c, CS_COLL_ALL_REDUCE, 4, &key), "t");   /* then the type's key */
    assert_string_equal(key, "all-reduce-implementation-custom");
    assert_null(cs_custom_coll_prefix(c, CS_COLL_ALL_GATHER, 4, &key));               /* then built-in */
    assert_null(cs_custom_coll_prefix(c, CS_COLL_BROADCAST, 3, &key));                /* not a custom type */
    cs_custom_colls_free(c);
    cs_system_config_free(&cfg);
    cs_custom_node_map_free(&m);
    assert_null(m.ids);
}

static void expect_nodes_error(const char *name, const char *text, const char *needle) {
    const char *path = tu_write_tmp(name, text);
    cs_custom_node_map m;
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_custom_nodes_load(path, &m, &err);
    if (rc != CS_EINVAL || !strstr(err.msg, needle) || strncmp(err.msg, path, strlen(path)) != 0)
        fail_msg("%s: rc %d, message \"%s\", expected \"%s\"", name, rc, err.msg, needle);
    assert_null(m.path);
    assert_int_equal(m.n, 0);
}

static void test_nodes_errors(void **state) {
    (void)state;
    expect_nodes_error("e1.yml", "", ":1: expected a mapping of trace node ids to custom collective prefixes, "
                                     "got an empty file");
    expect_nodes_error("e2.yml", "- a\n- b\n", ":1: expected a mapping of trace node ids to custom collective "
                                               "prefixes (\"12: graphs/allreduce\"), got a list");
    expect_nodes_error("e3.yml", "1: a\n-2: b\n", ":2: expected a trace node id (an integer from 0 to 2147483647) "
                                                  "as the key, got -2");
    expect_nodes_error("e4.yml", "2147483648: a\n", ":1: expected a trace node id");
    expect_nodes_error("e5.yml", "1: {x: y}\n", ":1: node 1: expected the prefix");
    expect_nodes_error("e6.yml", "1: \"\"\n", ":1: node 1: expected the prefix of a custom collective's graphs "
                                              "(PREFIX.<rank>.et), got an empty or invalid string");
    expect_nodes_error("e7.yml", "5: a\n6: b\n5: c\n", ":3: node 5: expected each trace node id once, got it "
                                                       "again (first on line 1)");
    expect_nodes_error("e8.yml", "1: [a\n", "expected valid YAML, got a syntax error");
    expect_nodes_error("e9.yml", "1: [[[[[[a]]]]]]\n", "nested");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sharing_and_checks),
        cmocka_unit_test(test_nothing_configured),
        cmocka_unit_test(test_dim_set),
        cmocka_unit_test(test_per_node_first),
        cmocka_unit_test(test_nodes_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
