/*
 * test_system_groups.c -- communicator groups, BARRIER / BROADCAST, the
 * edge cases ASTRA-sim stops or hangs on, and the errors of the system layer
 * (each names the trace file and node).  Owned by the system layer.
 * Notation as in test_system_algos.c.
 */
#include "sys_testlib.h"

static int load_groups(const char *json, cs_comm_groups *g) {
    const char *path = tu_path(tu_tmp_dir(), "groups.json");
    if (tu_write_file(path, json)) return -1;
    cs_error err;
    cs_error_clear(&err);
    memset(g, 0, sizeof *g);
    int rc = cs_comm_groups_load(path, g, &err);
    if (rc) fprintf(stderr, "groups: %s\n", err.msg);
    return rc;
}

static int run_err(const setup *u, const char *const *specs, unsigned n, char *msg, size_t len) {
    uint64_t fin[MAXR];
    cs_error err;
    cs_error_clear(&err);
    int rc = run_specs(u, specs, n, fin, NULL, &err);
    snprintf(msg, len, "%s", err.msg);
    if (rc) fprintf(stderr, "(expected) %s\n", err.msg);
    return rc;
}

/* A group smaller than the network is a ring of its members in file order
 * ({2, 0}: ranks 2 and 0, two hops apart on Ring(4)) whose bundles take
 * ASTRA-sim's 10 ns "local" delay, not endpoint-delay (100 here):
 *   T = 10 + 2(net(2 hops, S/2) + 10) + red(S/2). */
static void test_subset_groups(void **state) {
    (void)state;
    cs_comm_groups g;
    assert_int_equal(load_groups("{\"1\": [2, 0], \"2\": [1, 3]}", &g), 0);
    setup u;
    default_setup(&u, CS_TOPO_RING, 4);
    u.endpoint = 100;
    u.groups = &g;
    const char *a = "1 COLL ctype=0 size=1048576 pg=1", *b = "1 COLL ctype=0 size=1048576 pg=2";
    const char *specs[4] = {a, b, a, b};
    uint64_t S = 1 << 20, fin[MAXR];
    rec_sum rs;
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(run_specs(&u, specs, 4, fin, &rs, &err), 0);
    uint64_t T = 10 + 2 * (net_t(2, 500, 50, S / 2) + 10) + red(S / 2);
    for (int r = 0; r < 4; r++) assert_int_equal(fin[r], T);
    assert_int_equal(rs.records, 4);
    assert_int_equal(rs.sent, rs.recv);
    assert_int_equal(rs.sent, 4 * 2 * (S / 2));
    cs_comm_groups_free(&g);
}

/* A group that lists every NPU (in any order) runs on the network's
 * dimensions like the default communicator; pg_name "0" means all ranks
 * unless the file defines a group "0". */
static void test_whole_group_and_zero(void **state) {
    (void)state;
    cs_comm_groups g;
    assert_int_equal(load_groups("{\"5\": [3, 2, 1, 0]}", &g), 0);
    setup u;
    default_setup(&u, CS_TOPO_RING, 4);
    u.groups = &g;
    uint64_t S = 1 << 20, m = S / 4, fin[MAXR];
    uint64_t T = 10 + 6 * (net_t(1, 500, 50, m) + 10) + 3 * red(m);
    assert_int_equal(run1(&u, "1 COLL ctype=0 size=1048576 pg=5", fin, NULL), 0);
    EXPECT_ALL(fin, 4, T);
    assert_int_equal(run1(&u, "1 COLL ctype=0 size=1048576 pg=0", fin, NULL), 0);
    EXPECT_ALL(fin, 4, T);
    cs_comm_groups_free(&g);
    /* a file group "0": {0, 1} and {2, 3} as two rings of 2 (one hop) */
    assert_int_equal(load_groups("{\"0\": [0, 1], \"2\": [2, 3]}", &g), 0);
    u.groups = &g;
    const char *a = "1 COLL ctype=0 size=1048576 pg=0", *b = "1 COLL ctype=0 size=1048576 pg=2";
    const char *specs[4] = {a, a, b, b};
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(run_specs(&u, specs, 4, fin, NULL, &err), 0);
    EXPECT_ALL(fin, 4, 10 + 2 * (net_t(1, 500, 50, S / 2) + 10) + red(S / 2));
    cs_comm_groups_free(&g);
}

static void test_group_errors(void **state) {
    (void)state;
    cs_comm_groups g;
    assert_int_equal(load_groups("{\"1\": [0, 1], \"2\": [2, 3]}", &g), 0);
    setup u;
    default_setup(&u, CS_TOPO_RING, 4);
    u.groups = &g;
    char msg[CS_ERROR_MSG_MAX];
    /* rank 2 and 3 issue on group 1, which they are not in */
    const char *s1 = "1 COLL ctype=0 size=1048576 pg=1";
    const char *specs[4] = {s1, s1, s1, s1};
    assert_int_equal(run_err(&u, specs, 4, msg, sizeof msg), CS_EINVAL);
    assert_non_null(strstr(msg, "node 1"));
    assert_non_null(strstr(msg, "does not contain it"));
    assert_non_null(strstr(msg, ".et"));
    /* an unknown group */
    const char *s7 = "1 COLL ctype=0 size=1048576 pg=7";
    const char *specs7[4] = {s7, s7, s7, s7};
    assert_int_equal(run_err(&u, specs7, 4, msg, sizeof msg), CS_EINVAL);
    assert_non_null(strstr(msg, "\"7\""));
    assert_non_null(strstr(msg, "node 1"));
    /* ... and with no group file at all */
    u.groups = NULL;
    assert_int_equal(run_err(&u, specs7, 4, msg, sizeof msg), CS_EINVAL);
    assert_non_null(strstr(msg, "no communicator group file"));
    /* double binary tree on a group smaller than the network */
    u.groups = &g;
    u.impl = "doubleBinaryTree";
    const char *a = "1 COLL ctype=0 size=1048576 pg=1", *b = "1 COLL ctype=0 size=1048576 pg=2";
    const char *specs2[4] = {a, a, b, b};
    assert_int_equal(run_err(&u, specs2, 4, msg, sizeof msg), CS_EUNSUPPORTED);
    assert_non_null(strstr(msg, "doubleBinaryTree"));
    cs_comm_groups_free(&g);
}

static void test_errors(void **state) {
    (void)state;
    setup u;
    default_setup(&u, CS_TOPO_RING, 4);
    char msg[CS_ERROR_MSG_MAX];
    /* collectives ASTRA-sim does not simulate */
    static const char *const kinds[] = {"1", "3", "4", "8"};
    for (int i = 0; i < 4; i++) {
        char spec[96];
        snprintf(spec, sizeof spec, "5 COLL ctype=%s size=1048576", kinds[i]);
        const char *sp = spec;
        assert_int_equal(run_err(&u, &sp, 1, msg, sizeof msg), CS_EUNSUPPORTED);
        assert_non_null(strstr(msg, "node 5"));
        assert_non_null(strstr(msg, "not supported"));
    }
    /* halving-doubling needs a power of two */
    default_setup(&u, CS_TOPO_RING, 6);
    u.impl = "halvingDoubling";
    const char *ar = "1 COLL ctype=0 size=1048576";
    assert_int_equal(run_err(&u, &ar, 1, msg, sizeof msg), CS_EUNSUPPORTED);
    assert_non_null(strstr(msg, "power of two"));
    /* members that disagree on the collective */
    default_setup(&u, CS_TOPO_RING, 2);
    const char *specs[2] = {"1 COLL ctype=0 size=1048576", "1 COLL ctype=0 size=2097152"};
    assert_int_equal(run_err(&u, specs, 2, msg, sizeof msg), CS_EINVAL);
    assert_non_null(strstr(msg, "issue order"));
    /* a rank that never issues the collective: a clear deadlock report */
    const char *specs2[2] = {"1 COLL ctype=0 size=1048576", "1 COMP dur=1"};
    assert_int_equal(run_err(&u, specs2, 2, msg, sizeof msg), CS_EDEADLOCK);
    assert_non_null(strstr(msg, "never issued"));
}

/* No implementation list for the collective issued. */
static void test_missing_implementation(void **state) {
    (void)state;
    cs_network_config net;
    memset(&net, 0, sizeof net);
    net.ndims = 1;
    net.topo[0] = CS_TOPO_RING;
    net.npus[0] = 2;
    net.bandwidth_gbps[0] = 50;
    net.latency_ns[0] = 500;
    net.total_npus = 2;
    cs_system_config sc;
    cs_system_config_defaults(&sc); /* no implementation lists */
    const char *path = tu_path(tu_tmp_dir(), "noimpl.et");
    assert_int_equal(tu_write_trace(path, "4 COLL ctype=2 size=1024"), 0);
    cs_workload w;
    memset(&w, 0, sizeof w);
    cs_graph_options go = {0, 0, NULL};
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_workload_load(path, 2, &go, &w, &err), 0);
    cs_engine_options so;
    cs_engine_options_init(&so);
    cs_engine_options_set_system(&so, &sc);
    cs_engine_result res;
    assert_int_equal(cs_engine_run(&w, &net, &so, &res, &err), CS_EINVAL);
    fprintf(stderr, "(expected) %s\n", err.msg);
    assert_non_null(strstr(err.msg, "all-gather-implementation"));
    assert_non_null(strstr(err.msg, "node 4"));
    cs_workload_free(&w);
    cs_system_config_free(&sc);
}

/* BARRIER completes on every member when the last arrives; BROADCAST is
 * replayed from duration_micros; a 0-byte collective and a single-NPU
 * network have nothing to move and complete at once. */
static void test_barrier_broadcast_empty(void **state) {
    (void)state;
    setup u;
    default_setup(&u, CS_TOPO_RING, 2);
    uint64_t fin[MAXR];
    cs_error err;
    cs_error_clear(&err);
    const char *specs[2] = {"1 COMP dur=10; 2 COLL ctype=9 size=0 data=1; 3 COMP dur=1 data=2",
                            "1 COMP dur=30; 2 COLL ctype=9 size=0 data=1; 3 COMP dur=1 data=2"};
    assert_int_equal(run_specs(&u, specs, 2, fin, NULL, &err), 0);
    assert_int_equal(fin[0], 31000);
    assert_int_equal(fin[1], 31000);
    assert_int_equal(run1(&u, "1 COLL ctype=5 size=1024 dur=7", fin, NULL), 0);
    EXPECT_ALL(fin, 2, 7000);
    assert_int_equal(run1(&u, "1 COLL ctype=0 size=0; 2 COMP dur=5 data=1", fin, NULL), 0);
    EXPECT_ALL(fin, 2, 5000);
    default_setup(&u, CS_TOPO_RING, 1);
    assert_int_equal(run1(&u, "1 COLL ctype=0 size=1048576; 2 COMP dur=2 data=1", fin, NULL), 0);
    assert_int_equal(fin[0], 2000);
}

/* Direct on a communicator group's ring: bundles take 10 ns, not
 * endpoint-delay.  Group {0, 1, 2} of FullyConnected(4), window 2 = n-1,
 * all-gather of S: both shards leave after 10 ns, the phase ends once both
 * replies have been through a bundle:  T = 10 + net(S) + 10. */
static void test_direct_on_group(void **state) {
    (void)state;
    cs_comm_groups g;
    assert_int_equal(load_groups("{\"1\": [0, 1, 2], \"2\": [3]}", &g), 0);
    setup u;
    default_setup(&u, CS_TOPO_FULLY_CONNECTED, 4);
    u.impl = "direct2";
    u.endpoint = 100;
    u.groups = &g;
    const char *a = "1 COLL ctype=2 size=1048576 pg=1", *b = "1 COLL ctype=2 size=1048576 pg=2";
    const char *specs[4] = {a, a, a, b};
    uint64_t S = 1 << 20, fin[MAXR];
    rec_sum rs;
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(run_specs(&u, specs, 4, fin, &rs, &err), 0);
    for (int r = 0; r < 3; r++) assert_int_equal(fin[r], 20 + net_t(1, 500, 50, S));
    assert_int_equal(fin[3], 0); /* a group of one: nothing to do */
    assert_int_equal(rs.sent, rs.recv);
    assert_int_equal(rs.sent, 3 * 2 * S);
    cs_comm_groups_free(&g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_subset_groups),
        cmocka_unit_test(test_whole_group_and_zero),
        cmocka_unit_test(test_group_errors),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_missing_implementation),
        cmocka_unit_test(test_barrier_broadcast_empty),
        cmocka_unit_test(test_direct_on_group),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
