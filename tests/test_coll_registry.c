/*
 * test_coll_registry.c -- the collective-algorithm registry
 * (src/system/coll_algo.h) walked entry by entry, so that a newly
 * registered algorithm is tested without editing this file: every algorithm
 * has a unique name, help, the hooks it must have and (when it refuses
 * representative mode) a reason; reads back from a system JSON under its
 * name (and its one<Name> form); is listed in the reader's error message;
 * and runs an all-reduce on a 4-NPU Ring or Switch -- whichever its check
 * accepts -- to the end with bytes sent == bytes received on every rank.
 * An algorithm written <name>:TEXT (CS_ALGO_TEXT; custom:PREFIX is the one
 * such) reads back with a text, and runs with a set of shift graphs
 * (position i sends 1/4 of the phase to i+1) as its text.
 * Owned by the system layer.
 */
#include "sys_testlib.h"

#define SYS_JSON                                                                              \
    "{\n"                                                                                     \
    "    \"scheduling-policy\": \"LIFO\",\n"                                                  \
    "    \"collective-optimization\": \"localBWAware\",\n"                                    \
    "    \"preferred-dataset-splits\": 4,\n"                                                  \
    "    \"local-mem-bw\": 1600,\n"                                                           \
    "    \"all-reduce-implementation\": [\"%s\"]\n"                                           \
    "}\n"

/* Load a system JSON whose all-reduce list is [entry]; CS_OK or the error. */
static int load_entry(const char *entry, cs_system_config *c, cs_error *err) {
    char text[1024];
    snprintf(text, sizeof text, SYS_JSON, entry);
    const char *p = tu_write_tmp("sys.json", text);
    cs_error_clear(err);
    return cs_system_config_load(p, c, err);
}

static void test_entries_well_formed(void **state) {
    (void)state;
    size_t n = cs_coll_algo_count();
    assert_true(n >= 1);
    assert_null(cs_coll_algo_at(n));
    for (size_t i = 0; i < n; i++) {
        const cs_coll_algo *a = cs_coll_algo_at(i);
        assert_non_null(a);
        assert_non_null(a->name);
        assert_true(a->name[0] != '\0');
        if (!a->help || !a->help[0]) fail_msg("algorithm %s: no help text", a->name);
        if (!a->run) fail_msg("algorithm %s: no run hook", a->name);
        if (a->sym_op == CS_ALGO_SYM_NONE && (!a->sym_why || !a->sym_why[0]))
            fail_msg("algorithm %s refuses representative mode without saying why", a->name);
        if (a->param && !a->parse_param && !(a->flags & CS_ALGO_TEXT)) fail_msg("algorithm %s: a parameter form without parse_param", a->name);
        assert_int_equal(cs_coll_algo_index(a), (int)i);
        assert_ptr_equal(cs_coll_algo_find(a->name), a);
        for (size_t j = 0; j < i; j++)
            if (strcmp(cs_coll_algo_at(j)->name, a->name) == 0)
                fail_msg("algorithm name \"%s\" registered twice (entries %zu and %zu)", a->name, j, i);
    }
    assert_null(cs_coll_algo_find("noSuchAlgorithm"));
}

static void test_names_parse_from_json(void **state) {
    (void)state;
    char forms[1024];
    cs_coll_algo_forms(forms, sizeof forms);
    for (size_t i = 0; i < cs_coll_algo_count(); i++) {
        const cs_coll_algo *a = cs_coll_algo_at(i);
        for (int one = 0; one <= ((a->flags & CS_ALGO_ONE) != 0); one++) {
            cs_coll_impl want = {.algo = a, .one = one != 0, .param = 0};
            if (a->flags & CS_ALGO_TEXT) snprintf(want.text, sizeof want.text, "graphs/x");
            char entry[300], back[300];
            cs_coll_impl_format(&want, entry, sizeof entry);
            cs_system_config c;
            cs_error err;
            if (load_entry(entry, &c, &err) != CS_OK) fail_msg("\"%s\" does not load: %s", entry, err.msg);
            const cs_coll_impl *got = &c.impl[CS_CFG_ALL_REDUCE].algo[0];
            assert_int_equal(c.impl[CS_CFG_ALL_REDUCE].n, 1);
            assert_ptr_equal(got->algo, a);
            assert_int_equal(got->one, one);
            assert_int_equal(got->param, 0);
            assert_string_equal(got->text, want.text);
            assert_string_equal(cs_coll_impl_format(got, back, sizeof back), entry);
            cs_system_config_free(&c);
            /* the reader's message lists the form */
            if (a->flags & CS_ALGO_TEXT) {
                char form[80];
                snprintf(form, sizeof form, "%s%s", a->name, a->param ? a->param : ":TEXT");
                tu_assert_has(forms, form);
                /* the text is required */
                snprintf(form, sizeof form, "%s:", a->name);
                assert_int_equal(load_entry(form, &c, &err), CS_EINVAL);
                tu_assert_has(err.msg, ":6: all-reduce-implementation: expected one of ");
            } else {
                tu_assert_has(forms, entry);
            }
        }
    }
    /* an unknown name is refused, at its line, listing every registered form */
    cs_system_config c;
    cs_error err;
    assert_int_equal(load_entry("noSuchAlgorithm", &c, &err), CS_EINVAL);
    tu_assert_has(err.msg, ":6: all-reduce-implementation: expected one of ");
    tu_assert_has(err.msg, forms);
}

/* An all-reduce of 1 MiB with the entry on a 4-NPU network of kind k:
 * -1 when the algorithm's check refuses it, else 0 after checking it ran. */
static int run_allreduce(const char *entry, cs_topo_kind k) {
    setup u;
    default_setup(&u, k, 4);
    u.impl = entry;
    uint64_t fin[MAXR];
    rec_sum rs;
    cs_error err;
    cs_error_clear(&err);
    const char *spec = "1 COLL ctype=0 size=1048576";
    int rc = run_specs(&u, &spec, 1, fin, &rs, &err);
    if (rc == CS_EUNSUPPORTED && strstr(err.msg, "expected")) return -1; /* refused by check */
    if (rc != CS_OK) fail_msg("%s on %s: rc %d: %s", entry, cs_topo_kind_name(k), rc, err.msg);
    assert_int_equal(rs.records, 4);
    if (rs.sent == 0 || rs.sent != rs.recv)
        fail_msg("%s on %s: %" PRIu64 " bytes sent, %" PRIu64 " received", entry, cs_topo_kind_name(k),
                 rs.sent, rs.recv);
    for (uint32_t r = 0; r < 4; r++)
        if (fin[r] == 0) fail_msg("%s on %s: rank %u never finished", entry, cs_topo_kind_name(k), r);
    return 0;
}

static void test_every_algorithm_runs_allreduce(void **state) {
    (void)state;
    for (size_t i = 0; i < cs_coll_algo_count(); i++) {
        const cs_coll_algo *a = cs_coll_algo_at(i);
        for (int one = 0; one <= ((a->flags & CS_ALGO_ONE) != 0); one++) {
            cs_coll_impl e = {.algo = a, .one = one != 0, .param = 0};
            char entry[300];
            if (a->flags & CS_ALGO_TEXT) { /* a set of shift graphs: position i sends to i+1 */
                const char *prefix = tu_path(tu_tmp_dir(), "shift");
                const char *specs[4] = {
                    "GLOBAL phase_bytes=4; 1 SEND dst=1 size=1 tag=0; 2 RECV src=3 size=1 tag=0",
                    "GLOBAL phase_bytes=4; 1 SEND dst=2 size=1 tag=0; 2 RECV src=0 size=1 tag=0",
                    "GLOBAL phase_bytes=4; 1 SEND dst=3 size=1 tag=0; 2 RECV src=1 size=1 tag=0",
                    "GLOBAL phase_bytes=4; 1 SEND dst=0 size=1 tag=0; 2 RECV src=2 size=1 tag=0"};
                assert_int_equal(tu_write_traces(prefix, specs, 4), 0);
                snprintf(e.text, sizeof e.text, "%s", prefix);
            }
            cs_coll_impl_format(&e, entry, sizeof entry);
            if (run_allreduce(entry, CS_TOPO_RING) == 0) continue;
            if (run_allreduce(entry, CS_TOPO_SWITCH) == 0) continue;
            fail_msg("%s: refused on both a 4-NPU Ring and a 4-NPU Switch", entry);
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_entries_well_formed),
        cmocka_unit_test(test_names_parse_from_json),
        cmocka_unit_test(test_every_algorithm_runs_allreduce),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
