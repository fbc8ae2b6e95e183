/*
 * test_config_system.c -- the system JSON reader (src/config/system_config.c):
 * every reference case loads and fits its network, hand-checked values for
 * a few, defaults and the dump round trip, one test per user error (code,
 * file name, line, key and "expected" in the message), warnings, --help.
 */
#include "testutil.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/network_config.h"
#include "config/system_config.h"
#include "core/log.h"



/* A valid file body without the closing brace, to add one key to. */
#define BASE                                                                                  \
    "{\n"                                                                                     \
    "    \"scheduling-policy\": \"LIFO\",\n"                                                  \
    "    \"collective-optimization\": \"localBWAware\",\n"                                    \
    "    \"preferred-dataset-splits\": 4,\n"                                                  \
    "    \"local-mem-bw\": 1600"
/* BASE ends on line 5; a key added after it is on line 6. */

static void expect_error(const char *name, const char *text, int line, const char *key,
                         const char *extra) {
    const char *p = tu_write_tmp(name, text);
    cs_system_config c;
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_system_config_load(p, &c, &err);
    if (rc != CS_EINVAL) fail_msg("%s: rc %d, message \"%s\"", name, rc, err.msg);
    tu_assert_located(err.msg, p, line, key, extra);
    assert_null(c.path);
    assert_null(c.local_mem_trace_filename);
}

/* The entry names the registered algorithm `name` (one<Name> forms included). */
static void expect_algo(const cs_coll_impl *e, const char *name) {
    char buf[64];
    assert_non_null(e->algo);
    assert_string_equal(cs_coll_impl_name(e, buf, sizeof buf), name);
}

static cs_system_config load_ok(const char *path) {
    cs_system_config c;
    cs_error err;
    cs_error_clear(&err);
    if (cs_system_config_load(path, &c, &err) != CS_OK) fail_msg("%s: %s", path, err.msg);
    return c;
}

static const char *case_file(const char *case_name, const char *file) {
    static char buf[2][4096];
    static int next;
    char *b = buf[next++ & 1];
    snprintf(b, sizeof buf[0], "%s/testdata/astra-sim/cases/%s/%s", tu_shared_dir(), case_name,
             file);
    return b;
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
        char p[8192], q[8192];
        snprintf(p, sizeof p, "%s/%s/system.json", dir, e->d_name);
        snprintf(q, sizeof q, "%s/%s/network.yml", dir, e->d_name);
        FILE *f = fopen(p, "r");
        if (!f) continue;
        fclose(f);
        cs_system_config c = load_ok(p);
        cs_network_config net;
        cs_error err;
        cs_error_clear(&err);
        if (cs_network_config_load(q, &net, &err) != CS_OK) fail_msg("%s", err.msg);
        if (cs_system_config_check_network(&c, net.ndims, &err) != CS_OK)
            fail_msg("%s", err.msg);
        cs_network_config_free(&net);
        cs_system_config_free(&c);
        n++;
    }
    closedir(d);
    tu_capture_end();
    assert_true(n >= 40);
    if (tu_warning_count()) fail_msg("unexpected warning: %s", tu_warnings()); /* boost-mode is silent */
}

static void test_case_values(void **state) {
    (void)state;
    if (!tu_shared_dir()) skip();
    char buf[32];
    cs_system_config c = load_ok(case_file("c27_ar64M_sw8_direct4_cu", "system.json"));
    assert_int_equal(c.scheduling_policy, CS_SCHED_LIFO);
    assert_int_equal(c.collective_optimization, CS_COLLOPT_LOCAL_BW_AWARE);
    assert_int_equal(c.endpoint_delay_ns, 10);
    assert_int_equal(c.active_chunks_per_dimension, 1);
    assert_int_equal(c.preferred_dataset_splits, 4);
    for (int k = 0; k < CS_CFG_NCOLL; k++) {
        assert_int_equal(c.impl[k].n, 1);
        expect_algo(&c.impl[k].algo[0], "direct");
        assert_int_equal(c.impl[k].algo[0].param, 4);
        assert_null(c.custom_impl[k]);
    }
    assert_string_equal(cs_coll_impl_format(&c.impl[0].algo[0], buf, sizeof buf), "direct4");
    assert_true(c.local_mem_bw_gbps == 1600.0);
    assert_false(c.roofline_enabled);
    assert_int_equal(c.inter_dim_scheduling, CS_INTER_ASCENDING);
    assert_int_equal(c.intra_dim_scheduling, CS_INTRA_FIFO);
    assert_string_equal(c.local_mem_trace_filename, "local_mem_trace");
    cs_system_config_free(&c);

    c = load_ok(case_file("th_ar_rfs4x4x4_bw50-100-200_64MB_s4_a1_offlineGreedySCF",
                          "system.json"));
    assert_int_equal(c.inter_dim_scheduling, CS_INTER_OFFLINE_GREEDY);
    assert_int_equal(c.intra_dim_scheduling, CS_INTRA_SMALLEST_FIRST);
    assert_int_equal(c.impl[CS_CFG_ALL_REDUCE].n, 3);
    expect_algo(&c.impl[CS_CFG_ALL_REDUCE].algo[2], "ring");
    assert_int_equal(c.impl[CS_CFG_ALL_REDUCE].line, 6);
    cs_system_config_free(&c);

    c = load_ok(case_file("r01_p2p_mixed_ring4_roofline_pp10_cu", "system.json"));
    assert_true(c.roofline_enabled);
    assert_true(c.peak_perf_tflops == 10.0);
    cs_system_config_free(&c);

    c = load_ok(case_file("d_ar_rfs4x4x4_64MB_FIFO_c2_s4_cu", "system.json"));
    assert_int_equal(c.scheduling_policy, CS_SCHED_FIFO);
    assert_int_equal(c.active_chunks_per_dimension, 2);
    cs_system_config_free(&c);

    c = load_ok(case_file("c23_ar64M_rfs2x4_oneRing_cu", "system.json"));
    expect_algo(&c.impl[CS_CFG_ALL_GATHER].algo[1], "oneRing");
    cs_system_config_free(&c);
}

static void test_all_keys(void **state) {
    (void)state;
    const char *p = tu_write_tmp(
        "all.json",
        "{\"scheduling-policy\": \"EXPLICIT\", \"collective-optimization\": \"baseline\",\n"
        " \"endpoint-delay\": 0, \"local-reduction-delay\": 3,\n"
        " \"active-chunks-per-dimension\": 2, \"preferred-dataset-splits\": 16.0,\n"
        " \"all-reduce-implementation\": [\"oneHalvingDoubling\", \"doubleBinaryTree\"],\n"
        " \"all-gather-implementation\": [\"halvingDoubling\", \"direct\"],\n"
        " \"reduce-scatter-implementation\": [\"oneDirect7\", \"oneDirect\"],\n"
        " \"all-to-all-implementation\": [\"oneRing\", \"ring\"],\n"
        " \"all-reduce-implementation-custom\": [\"ar.et\"],\n"
        " \"all-gather-implementation-custom\": [\"ag.et\"],\n"
        " \"reduce-scatter-implementation-custom\": [\"rs.et\"],\n"
        " \"all-to-all-implementation-custom\": [\"a2a.et\"],\n"
        " \"per-node-custom-implementation\": \"nodes.yml\",\n"
        " \"local-mem-bw\": 50.5, \"peak-perf\": 312.5, \"roofline-enabled\": true,\n"
        " \"model-shared-bus\": 1, \"L\": 1, \"o\": 2.5, \"g\": 3, \"G\": 0.01,\n"
        " \"trace-enabled\": false, \"replay-only\": 1, \"track-local-mem\": 1,\n"
        " \"local-mem-trace-filename\": \"mem.json\", \"boost-mode\": {\"any\": 1},\n"
        " \"inter-dimension-scheduling\": \"offlineGreedyFlex\",\n"
        " \"intra-dimension-scheduling\": \"lessRemainingPhaseFirst\"}\n");
    tu_capture_warnings();
    cs_system_config c = load_ok(p);
    tu_capture_end();
    assert_int_equal(tu_warning_count(), 0);
    assert_int_equal(c.scheduling_policy, CS_SCHED_EXPLICIT);
    assert_int_equal(c.collective_optimization, CS_COLLOPT_BASELINE);
    assert_int_equal(c.endpoint_delay_ns, 0); /* ASTRA-sim asserts on 0; we accept it */
    assert_int_equal(c.local_reduction_delay, 3);
    assert_int_equal(c.preferred_dataset_splits, 16);
    expect_algo(&c.impl[CS_CFG_ALL_REDUCE].algo[0], "oneHalvingDoubling");
    expect_algo(&c.impl[CS_CFG_ALL_REDUCE].algo[1], "doubleBinaryTree");
    expect_algo(&c.impl[CS_CFG_ALL_GATHER].algo[1], "direct");
    assert_int_equal(c.impl[CS_CFG_ALL_GATHER].algo[1].param, 0);
    expect_algo(&c.impl[CS_CFG_REDUCE_SCATTER].algo[0], "oneDirect");
    assert_int_equal(c.impl[CS_CFG_REDUCE_SCATTER].algo[0].param, 7);
    assert_string_equal(c.custom_impl[CS_CFG_ALL_TO_ALL], "a2a.et");
    assert_string_equal(c.per_node_custom_impl, "nodes.yml");
    assert_true(c.local_mem_bw_gbps == 50.5 && c.peak_perf_tflops == 312.5);
    assert_true(c.roofline_enabled && c.model_shared_bus && !c.trace_enabled && c.replay_only);
    assert_true(c.loggp_o_ns == 2.5 && c.loggp_G_ns_per_byte == 0.01);
    assert_string_equal(c.local_mem_trace_filename, "mem.json");
    assert_int_equal(c.inter_dim_scheduling, CS_INTER_OFFLINE_GREEDY_FLEX);
    assert_int_equal(c.intra_dim_scheduling, CS_INTRA_LESS_REMAINING_PHASE_FIRST);

    /* dump -> file -> load gives the same dump */
    json_t *j = cs_system_config_to_json(&c);
    const char *q = tu_path(tu_tmp_dir(), "all_dump.json");
    char qpath[4096];
    snprintf(qpath, sizeof qpath, "%s", q);
    assert_int_equal(json_dump_file(j, qpath, JSON_INDENT(2)), 0);
    json_t *rs = json_object_get(j, "reduce-scatter-implementation");
    assert_non_null(rs);
    assert_string_equal(json_string_value(json_array_get(rs, 0)), "oneDirect7");
    assert_int_equal(json_integer_value(json_object_get(j, "replay-only")), 1);
    assert_null(json_object_get(j, "boost-mode"));
    cs_system_config c2 = load_ok(qpath);
    json_t *j2 = cs_system_config_to_json(&c2);
    assert_true(json_equal(j, j2));
    json_decref(j);
    json_decref(j2);
    cs_system_config_free(&c2);

    assert_int_equal(cs_system_config_check_network(&c, 2, NULL), CS_OK);
    cs_system_config_free(&c);
}

static void test_defaults_and_dump(void **state) {
    (void)state;
    cs_system_config c;
    assert_int_equal(cs_system_config_defaults(&c), CS_OK);
    assert_int_equal(c.scheduling_policy, CS_SCHED_LIFO);
    assert_int_equal(c.collective_optimization, CS_COLLOPT_LOCAL_BW_AWARE);
    assert_int_equal(c.endpoint_delay_ns, 10);
    assert_int_equal(c.local_reduction_delay, 1);
    assert_int_equal(c.active_chunks_per_dimension, 1);
    assert_int_equal(c.preferred_dataset_splits, 4);
    assert_true(c.local_mem_bw_gbps == 1600.0);
    assert_int_equal(c.impl[0].n, 0);
    assert_null(c.path);
    json_t *j = cs_system_config_to_json(&c);
    assert_int_equal(json_integer_value(json_object_get(j, "local-mem-bw")), 1600);
    assert_string_equal(json_string_value(json_object_get(j, "inter-dimension-scheduling")),
                        "ascending");
    assert_null(json_object_get(j, "all-reduce-implementation"));
    assert_null(json_object_get(j, "per-node-custom-implementation"));
    /* the dump of the defaults is itself a valid file */
    char path[4096];
    snprintf(path, sizeof path, "%s", tu_path(tu_tmp_dir(), "defaults_dump.json"));
    assert_int_equal(json_dump_file(j, path, 0), 0);
    cs_system_config c2 = load_ok(path);
    json_t *j2 = cs_system_config_to_json(&c2);
    assert_true(json_equal(j, j2));
    json_decref(j);
    json_decref(j2);
    cs_system_config_free(&c2);
    cs_system_config_free(&c);

    j = cs_system_config_units_json();
    assert_string_equal(json_string_value(json_object_get(j, "endpoint-delay")), "ns");
    assert_string_equal(json_string_value(json_object_get(j, "local-mem-bw")), "GB/s");
    assert_string_equal(json_string_value(json_object_get(j, "peak-perf")), "TFLOP/s");
    json_decref(j);
}

static void test_help(void **state) {
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cs_system_config_print_help(f);
    fclose(f);
    static const char *const keys[] = {
        "scheduling-policy", "collective-optimization", "endpoint-delay",
        "local-reduction-delay", "active-chunks-per-dimension", "preferred-dataset-splits",
        "all-reduce-implementation", "all-to-all-implementation-custom",
        "per-node-custom-implementation", "local-mem-bw", "peak-perf", "roofline-enabled",
        "model-shared-bus", "trace-enabled", "replay-only", "track-local-mem",
        "local-mem-trace-filename", "boost-mode", "inter-dimension-scheduling",
        "intra-dimension-scheduling", "EXPLICIT", "offlineGreedy", "required", "GB/s"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strstr(buf, keys[i])) fail_msg("help lacks %s", keys[i]);
    free(buf);
}

static void test_err_unknown_enum(void **state) {
    (void)state;
    expect_error("enum.json",
                 "{\n  \"collective-optimization\": \"baseline\",\n"
                 "  \"scheduling-policy\": \"lifo\",\n  \"preferred-dataset-splits\": 1,\n"
                 "  \"local-mem-bw\": 1}\n",
                 3, "scheduling-policy", "LIFO, FIFO, EXPLICIT");
}

static void test_err_unknown_inter_scheduling(void **state) {
    (void)state;
    expect_error("inter.json", BASE ",\n    \"inter-dimension-scheduling\": \"themis\"\n}\n", 6,
                 "inter-dimension-scheduling", "offlineGreedy");
}

static void test_err_missing_required(void **state) {
    (void)state;
    expect_error("missing.json",
                 "\n{\"scheduling-policy\": \"LIFO\", \"collective-optimization\": "
                 "\"baseline\", \"local-mem-bw\": 5}\n",
                 2, "preferred-dataset-splits", "required");
    expect_error("missing2.json",
                 "{\"scheduling-policy\": \"LIFO\", \"preferred-dataset-splits\": 2, "
                 "\"local-mem-bw\": 5}\n",
                 1, "collective-optimization", "localBWAware");
    expect_error("missing3.json",
                 "{\"scheduling-policy\": \"LIFO\", \"preferred-dataset-splits\": 2, "
                 "\"collective-optimization\": \"baseline\"}\n",
                 1, "local-mem-bw", "required");
}

static void test_err_non_integer(void **state) {
    (void)state;
    expect_error("nonint.json", BASE ",\n    \"endpoint-delay\": 2.5\n}\n", 6, "endpoint-delay",
                 "got 2.5");
}

static void test_err_negative_int(void **state) {
    (void)state;
    expect_error("negint.json", BASE ",\n    \"endpoint-delay\": -1\n}\n", 6, "endpoint-delay",
                 "from 0 to 2147483647");
    expect_error("zerochunks.json", BASE ",\n    \"active-chunks-per-dimension\": 0\n}\n", 6,
                 "active-chunks-per-dimension", "from 1 to");
}

static void test_err_int_too_big(void **state) {
    (void)state;
    expect_error("bigint.json", BASE ",\n    \"endpoint-delay\": 99999999999\n}\n", 6,
                 "endpoint-delay", "got 99999999999");
}

static void test_err_wrong_type(void **state) {
    (void)state;
    expect_error("type.json", BASE ",\n    \"active-chunks-per-dimension\": \"2\"\n}\n", 6,
                 "active-chunks-per-dimension", "got \"2\"");
    expect_error("type2.json", BASE ",\n    \"local-mem-trace-filename\": 5\n}\n", 6,
                 "local-mem-trace-filename", "a string");
    expect_error("type3.json", BASE ",\n    \"all-reduce-implementation\": \"ring\"\n}\n", 6,
                 "all-reduce-implementation", "got \"ring\"");
}

static void test_err_zero_bandwidth(void **state) {
    (void)state;
    expect_error("zerobw.json",
                 "{\"scheduling-policy\": \"LIFO\",\n\"collective-optimization\": \"baseline\",\n"
                 "\"preferred-dataset-splits\": 1,\n\"local-mem-bw\": 0}\n",
                 4, "local-mem-bw", "> 0");
    expect_error("negbw.json",
                 "{\"scheduling-policy\": \"LIFO\",\n\"collective-optimization\": \"baseline\",\n"
                 "\"preferred-dataset-splits\": 1,\n\"local-mem-bw\": -3}\n",
                 4, "local-mem-bw", "GB/s");
}

static void test_err_bad_algorithm(void **state) {
    (void)state;
    expect_error("algo.json",
                 BASE ",\n    \"all-gather-implementation\": [\n        \"ring\",\n"
                      "        \"rnig\"\n    ]\n}\n",
                 8, "all-gather-implementation", "got \"rnig\"");
    expect_error("direct0.json", BASE ",\n    \"all-to-all-implementation\": [\"direct0\"]\n}\n",
                 6, "all-to-all-implementation", "direct<N>");
    expect_error("directx.json", BASE ",\n    \"all-to-all-implementation\": [\"direct-2\"]\n}\n",
                 6, "all-to-all-implementation", "got \"direct-2\"");
    expect_error("algonum.json", BASE ",\n    \"all-reduce-implementation\": [1]\n}\n", 6,
                 "all-reduce-implementation", "got 1");
}

static void test_err_algorithm_list_length(void **state) {
    (void)state;
    expect_error("algo9.json",
                 BASE ",\n    \"all-reduce-implementation\": [\"ring\", \"ring\", \"ring\", "
                      "\"ring\", \"ring\", \"ring\", \"ring\", \"ring\", \"ring\"]\n}\n",
                 6, "all-reduce-implementation", "1 to 8");
    expect_error("algo0.json", BASE ",\n    \"all-reduce-implementation\": []\n}\n", 6,
                 "all-reduce-implementation", "got a list of 0 entries");
}

static void test_err_custom_list(void **state) {
    (void)state;
    expect_error("custom.json",
                 BASE ",\n    \"all-reduce-implementation-custom\": [\"a.et\", \"b.et\"]\n}\n", 6,
                 "all-reduce-implementation-custom", "exactly one");
}

static void test_err_bool(void **state) {
    (void)state;
    expect_error("bool.json", BASE ",\n    \"trace-enabled\": 2\n}\n", 6, "trace-enabled",
                 "0, 1, true or false");
}

static void test_err_roofline_needs_peak_perf(void **state) {
    (void)state;
    expect_error("roof.json", BASE ",\n    \"roofline-enabled\": 1\n}\n", 1, "peak-perf",
                 "roofline-enabled");
    expect_error("roof0.json", BASE ",\n    \"roofline-enabled\": 1,\n    \"peak-perf\": 0\n}\n",
                 7, "peak-perf", "got 0");
}

static void test_err_json_syntax(void **state) {
    (void)state;
    expect_error("syntax.json", BASE ",\n    \"endpoint-delay\": 10,\n}\n", 7, NULL, "JSON");
}

static void test_err_not_object(void **state) {
    (void)state;
    expect_error("array.json", "[1, 2]\n", 1, NULL, "object");
}

static void test_err_duplicate_key(void **state) {
    (void)state;
    expect_error("dup.json", BASE ",\n    \"local-mem-bw\": 20\n}\n", 6, "local-mem-bw",
                 "first at line 5");
}

static void test_err_unreadable(void **state) {
    (void)state;
    cs_system_config c;
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_system_config_load(tu_path(tu_tmp_dir(), "no-such-system.json"), &c, &err),
                     CS_EIO);
    tu_assert_has(err.msg, "no-such-system.json");
}

static void test_err_check_network(void **state) {
    (void)state;
    const char *p = tu_write_tmp("dims.json",
                              BASE ",\n    \"all-reduce-implementation\": [\"ring\", \"ring\"],\n"
                                   "    \"all-gather-implementation\": [\"oneRing\"]\n}\n");
    cs_system_config c = load_ok(p);
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_system_config_check_network(&c, 2, &err), CS_OK);
    /* oneRing spans all dimensions: a shorter list is fine */
    assert_int_equal(cs_system_config_check_network(&c, 3, &err), CS_EINVAL);
    char want[4200];
    snprintf(want, sizeof want, "%s:6: ", p);
    tu_assert_has(err.msg, want);
    tu_assert_has(err.msg, "all-reduce-implementation");
    tu_assert_has(err.msg, "expected 3 entries");
    cs_error_clear(&err);
    assert_int_equal(cs_system_config_check_network(&c, 1, &err), CS_EINVAL);
    tu_assert_has(err.msg, "got 2");
    cs_system_config_free(&c);
}

static void test_unknown_key_warns(void **state) {
    (void)state;
    const char *p = tu_write_tmp("unknown.json", BASE ",\n    \"endpoint-dealy\": 5,\n"
                                                   "    \"boost-mode\": 1\n}\n");
    tu_capture_warnings();
    cs_system_config c = load_ok(p);
    tu_capture_end();
    cs_system_config_free(&c);
    char want[4200];
    snprintf(want, sizeof want, "%s:6: ", p);
    assert_int_equal(tu_warning_count(), 1); /* boost-mode is accepted silently */
    tu_assert_has(tu_warnings(), want);
    tu_assert_has(tu_warnings(), "endpoint-dealy");
    tu_assert_has(tu_warnings(), "did you mean \"endpoint-delay\"");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_cases_load),
        cmocka_unit_test(test_case_values),
        cmocka_unit_test(test_all_keys),
        cmocka_unit_test(test_defaults_and_dump),
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_err_unknown_enum),
        cmocka_unit_test(test_err_unknown_inter_scheduling),
        cmocka_unit_test(test_err_missing_required),
        cmocka_unit_test(test_err_non_integer),
        cmocka_unit_test(test_err_negative_int),
        cmocka_unit_test(test_err_int_too_big),
        cmocka_unit_test(test_err_wrong_type),
        cmocka_unit_test(test_err_zero_bandwidth),
        cmocka_unit_test(test_err_bad_algorithm),
        cmocka_unit_test(test_err_algorithm_list_length),
        cmocka_unit_test(test_err_custom_list),
        cmocka_unit_test(test_err_bool),
        cmocka_unit_test(test_err_roofline_needs_peak_perf),
        cmocka_unit_test(test_err_json_syntax),
        cmocka_unit_test(test_err_not_object),
        cmocka_unit_test(test_err_duplicate_key),
        cmocka_unit_test(test_err_unreadable),
        cmocka_unit_test(test_err_check_network),
        cmocka_unit_test(test_unknown_key_warns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
