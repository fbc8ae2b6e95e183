/*
 * test_config_network.c -- the analytical network YAML reader
 * (src/config/network_config.c): every reference case loads, hand-checked
 * values for three of them, YAML styles, one test per user error (code,
 * file name, line, key and "expected" in the message), the unknown-key
 * warning, the dump and --help; ASTRA-sim 1.0's JSON networks (mapping with
 * factors and latencies worked out by hand, warnings, errors) and the ns-3 /
 * HTSim files refused by content.
 */
#include "testutil.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/network_config.h"
#include "core/log.h"



/* Load text from a temp file; expect code with path:line: key ... expected. */
static void expect_error(const char *name, const char *text, int line, const char *key,
                         const char *extra) {
    const char *p = tu_write_tmp(name, text);
    cs_network_config c;
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_network_config_load(p, &c, &err);
    if (rc != CS_EINVAL) fail_msg("%s: rc %d, message \"%s\"", name, rc, err.msg);
    assert_int_equal(err.code, CS_EINVAL);
    tu_assert_located(err.msg, p, line, key, extra);
    assert_null(c.path); /* freed on failure */
    assert_int_equal(c.ndims, 0);
}

static cs_network_config load_ok(const char *path) {
    cs_network_config c;
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_network_config_load(path, &c, &err);
    if (rc != CS_OK) fail_msg("%s: %s", path, err.msg);
    return c;
}

static const char *case_file(const char *case_name, const char *file) {
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/testdata/astra-sim/cases/%s/%s", tu_shared_dir(), case_name,
             file);
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
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char p[8192];
        snprintf(p, sizeof p, "%s/%s/network.yml", dir, e->d_name);
        FILE *f = fopen(p, "r");
        if (!f) continue;
        fclose(f);
        cs_network_config c = load_ok(p);
        assert_true(c.ndims >= 1 && c.ndims <= CS_MAX_DIMS);
        assert_true(c.total_npus >= 1);
        cs_network_config_free(&c);
        n++;
    }
    closedir(d);
    assert_true(n >= 40);
}

static void test_case_values(void **state) {
    (void)state;
    if (!tu_shared_dir()) skip();
    cs_network_config c = load_ok(case_file("a_ar_rfs4x4x4_64MB_cu", "network.yml"));
    assert_int_equal(c.ndims, 3);
    assert_int_equal(c.topo[0], CS_TOPO_RING);
    assert_int_equal(c.topo[1], CS_TOPO_FULLY_CONNECTED);
    assert_int_equal(c.topo[2], CS_TOPO_SWITCH);
    for (int d = 0; d < 3; d++) assert_int_equal(c.npus[d], 4);
    assert_true(c.bandwidth_gbps[0] == 200.0 && c.bandwidth_gbps[1] == 100.0 &&
                c.bandwidth_gbps[2] == 50.0);
    assert_true(c.latency_ns[0] == 50.0 && c.latency_ns[1] == 500.0 &&
                c.latency_ns[2] == 2000.0);
    assert_int_equal(c.total_npus, 64);
    assert_string_equal(c.path, case_file("a_ar_rfs4x4x4_64MB_cu", "network.yml"));
    cs_network_config_free(&c);

    c = load_ok(case_file("c23_ar64M_rfs2x4_oneRing_cu", "network.yml"));
    assert_int_equal(c.ndims, 2);
    assert_int_equal(c.topo[0], CS_TOPO_RING);
    assert_int_equal(c.topo[1], CS_TOPO_SWITCH);
    assert_int_equal(c.npus[0], 2);
    assert_int_equal(c.npus[1], 4);
    assert_true(c.bandwidth_gbps[1] == 50.0 && c.latency_ns[0] == 100.0);
    assert_int_equal(c.total_npus, 8);
    cs_network_config_free(&c);

    c = load_ok(case_file("a_ar_sw64_64MB_cu", "network.yml"));
    assert_int_equal(c.ndims, 1);
    assert_int_equal(c.topo[0], CS_TOPO_SWITCH);
    assert_int_equal(c.total_npus, 64);
    assert_true(c.bandwidth_gbps[0] == 50.0 && c.latency_ns[0] == 500.0);
    cs_network_config_free(&c);
}

static void test_block_style_comments_one_npu(void **state) {
    (void)state;
    const char *p = tu_write_tmp("block.yml",
                              "# a comment\n"
                              "topology:\n"
                              "  - Ring      # dim 0\n"
                              "  - \"Switch\"\n"
                              "npus_count:\n"
                              "  - 1\n"
                              "  - 8.0\n"
                              "bandwidth: [50, 12.5]\n"
                              "latency:\n"
                              "  - 0\n"
                              "  - 1e3\n");
    cs_network_config c = load_ok(p);
    assert_int_equal(c.ndims, 2);
    assert_int_equal(c.topo[1], CS_TOPO_SWITCH);
    assert_int_equal(c.npus[0], 1);
    assert_int_equal(c.npus[1], 8);
    assert_true(c.bandwidth_gbps[1] == 12.5);
    assert_true(c.latency_ns[0] == 0.0 && c.latency_ns[1] == 1000.0);
    assert_int_equal(c.total_npus, 8);
    cs_network_config_free(&c);

    p = tu_write_tmp("single.yml", "topology: [Ring]\nnpus_count: [1]\nbandwidth: [1]\nlatency: [1]\n");
    c = load_ok(p);
    assert_int_equal(c.total_npus, 1);
    cs_network_config_free(&c);
}

static void test_max_dims_and_total(void **state) {
    (void)state;
    const char *p = tu_write_tmp("eight.yml",
                              "topology: [Ring, Ring, Ring, Ring, Ring, Ring, Ring, Ring]\n"
                              "npus_count: [2, 2, 2, 2, 2, 2, 2, 2]\n"
                              "bandwidth: [1, 1, 1, 1, 1, 1, 1, 1]\n"
                              "latency: [1, 1, 1, 1, 1, 1, 1, 1]\n");
    cs_network_config c = load_ok(p);
    assert_int_equal(c.ndims, 8);
    assert_int_equal(c.total_npus, 256);
    cs_network_config_free(&c);
    /* 2^32 - 1 NPUs is the largest network */
    p = tu_write_tmp("big.yml", "topology: [Ring, Ring]\nnpus_count: [4294967295, 1]\n"
                             "bandwidth: [1, 1]\nlatency: [1, 1]\n");
    c = load_ok(p);
    assert_true(c.total_npus == CS_MAX_TOTAL_NPUS);
    cs_network_config_free(&c);
}

static void test_err_missing_key(void **state) {
    (void)state;
    expect_error("missing.yml", "topology: [Ring]\nnpus_count: [4]\nbandwidth: [50]\n", 1,
                 "latency", "required");
}

static void test_err_length_mismatch(void **state) {
    (void)state;
    expect_error("mismatch.yml",
                 "topology: [Ring, Switch]\nnpus_count: [4, 4]\nbandwidth: [50]\n"
                 "latency: [1, 1]\n",
                 3, "bandwidth", "got 1");
}

static void test_err_negative_bandwidth(void **state) {
    (void)state;
    expect_error("negbw.yml",
                 "topology: [Ring, Ring]\nnpus_count: [4, 4]\nbandwidth:\n  - 50\n  - -5\n"
                 "latency: [1, 1]\n",
                 5, "bandwidth", "got -5");
}

static void test_err_zero_bandwidth(void **state) {
    (void)state;
    expect_error("zerobw.yml", "topology: [Ring]\nnpus_count: [4]\nbandwidth: [0]\nlatency: [1]\n",
                 3, "bandwidth", "> 0");
}

static void test_err_negative_latency(void **state) {
    (void)state;
    expect_error("neglat.yml",
                 "topology: [Ring]\nnpus_count: [4]\nbandwidth: [5]\nlatency: [-0.5]\n", 4,
                 "latency", ">= 0");
}

static void test_err_non_integer_npus(void **state) {
    (void)state;
    expect_error("frac.yml",
                 "topology:\n  - Ring\n  - Ring\nnpus_count:\n  - 4\n  - 2.5\n"
                 "bandwidth: [1, 1]\nlatency: [1, 1]\n",
                 6, "npus_count", "integer");
}

static void test_err_zero_npus(void **state) {
    (void)state;
    expect_error("zeronpus.yml", "topology: [Ring]\nnpus_count: [0]\nbandwidth: [1]\nlatency: [1]\n",
                 2, "npus_count", "got 0");
}

static void test_err_unknown_topology(void **state) {
    (void)state;
    expect_error("torus.yml",
                 "topology: [Ring,\n  Torus]\nnpus_count: [4, 4]\nbandwidth: [1, 1]\n"
                 "latency: [1, 1]\n",
                 2, "topology", "Ring, FullyConnected, Switch");
}

static void test_err_scalar_not_list(void **state) {
    (void)state;
    expect_error("scalar.yml", "topology: [Ring]\nnpus_count: 8\nbandwidth: [1]\nlatency: [1]\n", 2,
                 "npus_count", "a list");
}

static void test_err_text_number(void **state) {
    (void)state;
    expect_error("text.yml",
                 "topology: [Ring]\nnpus_count: [4]\nbandwidth: [fast]\nlatency: [1]\n", 3,
                 "bandwidth", "got fast");
}

static void test_err_too_many_dims(void **state) {
    (void)state;
    expect_error("nine.yml",
                 "\ntopology: [Ring, Ring, Ring, Ring, Ring, Ring, Ring, Ring, Ring]\n"
                 "npus_count: [2, 2, 2, 2, 2, 2, 2, 2, 2]\n"
                 "bandwidth: [1, 1, 1, 1, 1, 1, 1, 1, 1]\n"
                 "latency: [1, 1, 1, 1, 1, 1, 1, 1, 1]\n",
                 2, "topology", "got 9");
}

static void test_err_empty_list(void **state) {
    (void)state;
    expect_error("emptylist.yml", "topology: []\nnpus_count: []\nbandwidth: []\nlatency: []\n", 1,
                 "topology", "got 0");
}

static void test_err_total_overflow(void **state) {
    (void)state;
    /* exactly 2^32: the readers allowed it, and every later stage saw 0 ranks (uint32_t) */
    expect_error("two32.yml",
                 "topology: [Ring, Ring]\nnpus_count: [65536, 65536]\n"
                 "bandwidth: [1, 1]\nlatency: [1, 1]\n",
                 2, "npus_count", "at most 4294967295 NPUs in total, got 65536 x 65536 = 4294967296");
    expect_error("overflow.yml",
                 "topology: [Ring, Ring, Ring]\nnpus_count: [2, 65536, 65536]\n"
                 "bandwidth: [1, 1, 1]\nlatency: [1, 1, 1]\n",
                 2, "npus_count", "2 x 65536 x 65536 = 8589934592");
}

static void test_err_yaml_syntax(void **state) {
    (void)state;
    expect_error("syntax.yml", "topology: [Ring]\nnpus_count: [4\nbandwidth: [1]\n", 3, NULL,
                 "YAML");
}

static void test_err_duplicate_key(void **state) {
    (void)state;
    expect_error("dup.yml",
                 "topology: [Ring]\nnpus_count: [4]\nbandwidth: [1]\nlatency: [1]\n"
                 "npus_count: [8]\n",
                 5, "npus_count", "line 2");
}

static void test_err_empty_file(void **state) {
    (void)state;
    expect_error("empty.yml", "# nothing here\n", 1, NULL, "mapping");
}

static void test_err_not_a_mapping(void **state) {
    (void)state;
    expect_error("list.yml", "- Ring\n- Switch\n", 1, NULL, "mapping");
}

static void test_err_unreadable(void **state) {
    (void)state;
    cs_network_config c;
    cs_error err;
    cs_error_clear(&err);
    const char *p = tu_path(tu_tmp_dir(), "does-not-exist.yml");
    assert_int_equal(cs_network_config_load(p, &c, &err), CS_EIO);
    tu_assert_has(err.msg, "does-not-exist.yml");
}


static void test_unknown_key_warns(void **state) {
    (void)state;
    const char *p = tu_write_tmp("unknown.yml",
                              "topology: [Ring]\nnpus_count: [4]\nbandwidth: [1]\nlatency: [1]\n"
                              "latencyy: [2]\n");
    tu_capture_warnings();
    cs_network_config c = load_ok(p);
    tu_capture_end();
    cs_network_config_free(&c);
    char want[4200];
    snprintf(want, sizeof want, "%s:5: ", p);
    if (!strstr(tu_warnings(), want) || !strstr(tu_warnings(), "latencyy") || !strstr(tu_warnings(), "latency\""))
        fail_msg("warning \"%s\"", tu_warnings());
}

static void test_dump_and_help(void **state) {
    (void)state;
    const char *p = tu_write_tmp("dump.yml", "topology: [FullyConnected, Switch]\nnpus_count: [2, 3]\n"
                                          "bandwidth: [25, 12.5]\nlatency: [10, 20]\n");
    cs_network_config c = load_ok(p);
    json_t *j = cs_network_config_to_json(&c);
    char *s = json_dumps(j, JSON_COMPACT);
    assert_string_equal(s, "{\"topology\":[\"FullyConnected\",\"Switch\"],\"npus_count\":[2,3],"
                           "\"bandwidth\":[25.0,12.5],\"latency\":[10.0,20.0]}");
    free(s);
    json_decref(j);
    j = cs_network_config_units_json();
    assert_string_equal(json_string_value(json_object_get(j, "bandwidth")), "GB/s");
    json_decref(j);
    cs_network_config_free(&c);
    assert_string_equal(cs_topo_kind_name(CS_TOPO_FULLY_CONNECTED), "FullyConnected");

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cs_network_config_print_help(f);
    fclose(f);
    assert_non_null(strstr(buf, "npus_count"));
    assert_non_null(strstr(buf, "GB/s"));
    free(buf);
}


/* ---- ASTRA-sim 1.0 JSON (config/network_astra1.c) ------------------------------- */

static void test_astra1_mapping(void **state) {
    (void)state;
    /* FullyConnected(4), 7 links: factor floor(7 / 3) = 2 (a warning: not a multiple) -> 20 x 2 = 40 GB/s;
     *   latency 100 + 2 x nic 5 = 110 (1 hop).
     * Ring(3), 3 links: odd, factor 2 (a warning) -> 10 x 2 = 20 GB/s; at most 1 hop on a Ring of 3:
     *   latency 200 + 2 x 5 = 210.
     * Switch(2), 4 links: factor 4 -> 2.5 x 4 = 10 GB/s; 2 hops: latency 300 + (2 x nic 1 + router 2) / 2
     *   = 302.  Dimension 0 is spelled "AllToAll", the earliest 1.0 inputs' FullyConnected. */
    const char *p = tu_write_tmp("v1.json",
                                 "{\"topology-name\": \"Hierarchical\", \"dimensions-count\": 3,\n"
                                 " \"topologies-per-dim\": [\"AllToAll\", \"Ring\", \"Switch\"],\n"
                                 " \"units-count\": [4, 3, 2], \"links-count\": [7, 3, 4],\n"
                                 " \"link-latency\": [100, 200, 300], \"link-bandwidth\": [20, 10, 2.5],\n"
                                 " \"nic-latency\": [5, 5, 1], \"router-latency\": [0, 0, 2], \"hbm-scale\": [0, 0, 0]}\n");
    tu_capture_warnings();
    cs_network_config c = load_ok(p);
    tu_capture_end();
    assert_int_equal(c.ndims, 3);
    assert_int_equal(c.total_npus, 24);
    assert_int_equal(c.topo[0], CS_TOPO_FULLY_CONNECTED);
    assert_int_equal(c.topo[1], CS_TOPO_RING);
    assert_int_equal(c.topo[2], CS_TOPO_SWITCH);
    assert_true(c.bandwidth_gbps[0] == 40.0 && c.bandwidth_gbps[1] == 20.0 && c.bandwidth_gbps[2] == 10.0);
    assert_true(c.latency_ns[0] == 110.0 && c.latency_ns[1] == 210.0 && c.latency_ns[2] == 302.0);
    assert_string_equal(c.path, p);
    /* two warnings (the links counts), no list of ignored keys: none given */
    assert_int_equal(tu_warning_count(), 2);
    tu_assert_has(tu_warnings(), "not a multiple of 3");
    tu_assert_has(tu_warnings(), "is odd");
    /* the effective configuration reads back as YAML to the same network */
    json_t *j = cs_network_config_to_json(&c);
    char *text = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(17));
    cs_network_config y;
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_network_config_load_text("dump", text, strlen(text), &y, &err), CS_OK);
    for (int d = 0; d < 3; d++) {
        assert_int_equal(y.topo[d], c.topo[d]);
        assert_int_equal(y.npus[d], c.npus[d]);
        assert_true(y.bandwidth_gbps[d] == c.bandwidth_gbps[d] && y.latency_ns[d] == c.latency_ns[d]);
    }
    free(text);
    json_decref(j);
    cs_network_config_free(&y);
    cs_network_config_free(&c);
}

static void test_astra1_ignored_keys_warn(void **state) {
    (void)state;
    const char *p = tu_write_tmp("v1ign.json",
                                 "{\"topology-name\": \"Hierarchical\", \"dimensions-count\": 1,\n"
                                 " \"topologies-per-dim\": [\"Ring\"], \"dimension-type\": [\"N\"],\n"
                                 " \"units-count\": [8], \"links-count\": [2], \"link-latency\": [1],\n"
                                 " \"link-bandwidth\": [1], \"router-latency\": [3], \"hbm-latency\": [500],\n"
                                 " \"hbm-bandwidth\": [370], \"hbm-scale\": [0], \"colour\": 1}\n");
    tu_capture_warnings();
    cs_network_config c = load_ok(p);
    tu_capture_end();
    assert_true(c.bandwidth_gbps[0] == 2.0 && c.latency_ns[0] == 1.0); /* router-latency: no effect on a Ring */
    tu_assert_has(tu_warnings(), "dimension-type (1.0's cost model only");
    tu_assert_has(tu_warnings(), "router-latency on Ring and FullyConnected");
    tu_assert_has(tu_warnings(), "hbm-latency, hbm-bandwidth");
    tu_assert_has(tu_warnings(), "\"colour\""); /* an unknown key, with its line */
    tu_assert_has(tu_warnings(), ":5: ");
    cs_network_config_free(&c);
}

static void test_astra1_errors(void **state) {
    (void)state;
    static const char head[] = "{\"topology-name\": \"Hierarchical\", \"dimensions-count\": 1,\n";
    char t[1024];
    snprintf(t, sizeof t, "%s \"topologies-per-dim\": [\"Torus\"], \"units-count\": [4], \"links-count\": [2],\n"
             " \"link-latency\": [1], \"link-bandwidth\": [1]}\n", head);
    expect_error("e1.json", t, 2, "topologies-per-dim", "Ring, FullyConnected (or AllToAll) or Switch");
    snprintf(t, sizeof t, "%s \"topologies-per-dim\": [\"Ring\"], \"units-count\": [0], \"links-count\": [2],\n"
             " \"link-latency\": [1], \"link-bandwidth\": [1]}\n", head);
    expect_error("e2.json", t, 2, "units-count", "between 1 and 4294967295");
    snprintf(t, sizeof t, "%s \"topologies-per-dim\": [\"Ring\"], \"units-count\": [4], \"links-count\": [2],\n"
             " \"link-bandwidth\": [1]}\n", head);
    expect_error("e3.json", t, 1, "link-latency", "a required key");
    snprintf(t, sizeof t, "%s \"topologies-per-dim\": [\"FullyConnected\"], \"units-count\": [8], \"links-count\": [6],\n"
             " \"link-latency\": [1], \"link-bandwidth\": [1]}\n", head);
    expect_error("e4.json", t, 2, "links-count", "units-count - 1"); /* 6 / 7 = 0 */
    snprintf(t, sizeof t, "%s \"topologies-per-dim\": [\"Ring\"], \"units-count\": [4], \"links-count\": [2],\n"
             " \"link-latency\": [1], \"link-bandwidth\": [0]}\n", head);
    expect_error("e5.json", t, 3, "link-bandwidth", "> 0");
    snprintf(t, sizeof t, "%s \"topologies-per-dim\": [\"Ring\"], \"units-count\": [4], \"links-count\": [2],\n"
             " \"link-latency\": [1], \"link-bandwidth\": [1], \"nic-latency\": [1]}\n", head);
    expect_error("e6.json", t, 3, "nic-latency", "Ring of 4");
    expect_error("e7.json", "{\"topology-name\": \"Hierarchical\", \"dimensions-count\": 9}\n", 1, "dimensions-count",
                 "from 1 to 8");
}

/* ---- ns-3 / HTSim files (config/network_foreign.c) ------------------------------ */

static void test_foreign_files(void **state) {
    (void)state;
    expect_error("config.txt", "ENABLE_QCN 1\nUSE_DYNAMIC_PFC_THRESHOLD 1\n\nCC_MODE 12\n", 1, "ENABLE_QCN",
                 "ns-3 network configuration");
    expect_error("cfg2.txt", "# comment\n\nTOPOLOGY_FILE mix/topology.txt\n", 3, "TOPOLOGY_FILE", "--backend packet");
    expect_error("topo.txt", "3 1 2\n2\n0 2 100Gbps 0.001ms 0\n1 2 100Gbps 0.001ms 0\n", 1, NULL, "ns-3 topology file");
    expect_error("h.topo", "Nodes 8\nTiers 3\nPodsize 4\n", 1, "Nodes, Tiers", "HTSim topology");
    expect_error("logical.json", "{\n  \"logical-dims\": [\"8\", \"2\"]\n}\n", 2, "logical-dims",
                 "--logical-topology-configuration");
    expect_error("sys.json", "{\n  \"scheduling-policy\": \"LIFO\",\n  \"endpoint-delay\": 10\n}\n", 2,
                 "scheduling-policy", "--system-configuration");
    /* a YAML file whose keys look like ns-3's is still YAML (a colon after the key) */
    expect_error("yamlish.yml", "TOPOLOGY_FILE: x\n", 1, "topology", "required key");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_cases_load),
        cmocka_unit_test(test_case_values),
        cmocka_unit_test(test_block_style_comments_one_npu),
        cmocka_unit_test(test_max_dims_and_total),
        cmocka_unit_test(test_err_missing_key),
        cmocka_unit_test(test_err_length_mismatch),
        cmocka_unit_test(test_err_negative_bandwidth),
        cmocka_unit_test(test_err_zero_bandwidth),
        cmocka_unit_test(test_err_negative_latency),
        cmocka_unit_test(test_err_non_integer_npus),
        cmocka_unit_test(test_err_zero_npus),
        cmocka_unit_test(test_err_unknown_topology),
        cmocka_unit_test(test_err_scalar_not_list),
        cmocka_unit_test(test_err_text_number),
        cmocka_unit_test(test_err_too_many_dims),
        cmocka_unit_test(test_err_empty_list),
        cmocka_unit_test(test_err_total_overflow),
        cmocka_unit_test(test_err_yaml_syntax),
        cmocka_unit_test(test_err_duplicate_key),
        cmocka_unit_test(test_err_empty_file),
        cmocka_unit_test(test_err_not_a_mapping),
        cmocka_unit_test(test_err_unreadable),
        cmocka_unit_test(test_unknown_key_warns),
        cmocka_unit_test(test_dump_and_help),
        cmocka_unit_test(test_astra1_mapping),
        cmocka_unit_test(test_astra1_ignored_keys_warn),
        cmocka_unit_test(test_astra1_errors),
        cmocka_unit_test(test_foreign_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
