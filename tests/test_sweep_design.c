/*
 * test_sweep_design.c -- the sweep's design numbering and statistics
 * (src/sweep/design.h, src/core/stats.h), against values worked by hand: the index
 * digits of a grid x zip x seeds design, random samples that do not depend
 * on the sample count, the t quantiles of the standard table, and the
 * mean, sample standard deviation and 95 % interval of a known sample.
 */
#include "testutil.h"

#include <math.h>
#include <string.h>

#include "sweep/design.h"
#include "core/stats.h"

static cs_design *load(const char *name, const char *text) {
    cs_error err;
    cs_error_clear(&err);
    cs_design *d = NULL;
    int rc = cs_design_load(tu_write_tmp(name, text), &d, &err);
    if (rc) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, CS_OK);
    return d;
}

/* grid a (3) x b (2) x zip (2 rows) x seeds (2): 24 points; point i's
 * digits from the outermost: a, b, zip row, seed. */
static void test_point_numbering(void **state) {
    (void)state;
    cs_design *d = load("num.json", "{\"clustersim-sweep\": 1, \"grid\": {\"a\": [1, 2, 3], \"b\": [\"x\", \"y\"]},"
                                    " \"zip\": {\"c\": [10, 20], \"e\": [true, false]},"
                                    " \"seeds\": {\"key\": \"s\", \"count\": 2, \"first\": 5}}");
    assert_int_equal(cs_design_points(d), 24);
    assert_int_equal(cs_design_seeds(d), 2);
    assert_int_equal(cs_design_nknobs(d), 5);
    const char *names[] = {"a", "b", "c", "e", "s"};
    for (size_t k = 0; k < 5; k++) assert_string_equal(cs_design_knob(d, k), names[k]);
    assert_true(cs_design_knob_is_seed(d, 4) && !cs_design_knob_is_seed(d, 0));
    json_t *v[5];
    /* point 19 = a 2 (19 / 8 = 2), b 0 ((19 / 4) % 2 = 0), zip row 1 ((19 / 2) % 2), seed 1 */
    cs_design_point(d, 19, v);
    assert_int_equal(json_integer_value(v[0]), 3);
    assert_string_equal(json_string_value(v[1]), "x");
    assert_int_equal(json_integer_value(v[2]), 20);
    assert_true(json_is_false(v[3]));
    assert_int_equal(json_integer_value(v[4]), 6);
    for (int k = 0; k < 5; k++) json_decref(v[k]);
    cs_design_point(d, 0, v);
    assert_int_equal(json_integer_value(v[0]), 1);
    assert_string_equal(json_string_value(v[1]), "x");
    assert_int_equal(json_integer_value(v[2]), 10);
    assert_int_equal(json_integer_value(v[4]), 5);
    for (int k = 0; k < 5; k++) json_decref(v[k]);
    cs_design_free(d);
}

/* A random sample's values depend on (seed, sample) only. */
static void test_random_samples_stable(void **state) {
    (void)state;
    cs_design *d5 = load("r5.json", "{\"clustersim-sweep\": 1, \"random\": {\"count\": 5, \"seed\": 3, \"keys\": "
                                    "{\"u\": {\"uniform\": [1, 2]}, \"i\": {\"int\": [-3, 3]}, \"l\": {\"log-uniform\": "
                                    "[1, 1000]}, \"v\": [{\"choice\": [\"p\", \"q\"]}, 7]}}}");
    cs_design *d9 = load("r9.json", "{\"clustersim-sweep\": 1, \"random\": {\"count\": 9, \"seed\": 3, \"keys\": "
                                    "{\"u\": {\"uniform\": [1, 2]}, \"i\": {\"int\": [-3, 3]}, \"l\": {\"log-uniform\": "
                                    "[1, 1000]}, \"v\": [{\"choice\": [\"p\", \"q\"]}, 7]}}}");
    int seen_i[7] = {0};
    for (uint64_t p = 0; p < 5; p++) {
        json_t *a[4], *b[4];
        cs_design_point(d5, p, a);
        cs_design_point(d9, p, b);
        for (int k = 0; k < 4; k++) assert_true(json_equal(a[k], b[k]));
        double u = json_real_value(a[0]), l = json_real_value(a[2]);
        json_int_t i = json_integer_value(a[1]);
        assert_true(u >= 1 && u < 2);
        assert_true(i >= -3 && i <= 3);
        assert_true(l >= 1 && l <= 1000);
        assert_int_equal(json_array_size(a[3]), 2);
        assert_int_equal(json_integer_value(json_array_get(a[3], 1)), 7);
        seen_i[i + 3] = 1;
        for (int k = 0; k < 4; k++) {
            json_decref(a[k]);
            json_decref(b[k]);
        }
    }
    int distinct = 0;
    for (int k = 0; k < 7; k++) distinct += seen_i[k];
    assert_true(distinct >= 2);
    cs_design_free(d5);
    cs_design_free(d9);
}

static void test_t_table(void **state) {
    (void)state;
    assert_true(fabs(cs_t975(1) - 12.706) < 1e-9);
    assert_true(fabs(cs_t975(2) - 4.303) < 1e-9);
    assert_true(fabs(cs_t975(30) - 2.042) < 1e-9);
    assert_true(fabs(cs_t975(60) - 2.000) < 1e-9);
    assert_true(fabs(cs_t975(120) - 1.980) < 1e-9);
    double t45 = cs_t975(45); /* between the 40 and 60 entries */
    assert_true(t45 < 2.021 && t45 > 2.000);
    assert_true(cs_t975(1000000) > 1.959 && cs_t975(1000000) < 1.961);
}

/* {2, 4, 4, 4, 5, 5, 7, 9}: mean 5, sum of squared deviations 32, sample
 * standard deviation sqrt(32 / 7) = 2.13809, 95 % half-width
 * 2.365 x 2.13809 / sqrt(8) = 1.78777. */
static void test_stats(void **state) {
    (void)state;
    static const double x[] = {2, 4, 4, 4, 5, 5, 7, 9};
    cs_stats s;
    cs_stats_init(&s);
    for (int i = 0; i < 8; i++) cs_stats_add(&s, x[i]);
    assert_true(fabs(s.mean - 5) < 1e-12);
    assert_true(fabs(cs_stats_stddev(&s) - sqrt(32.0 / 7.0)) < 1e-12);
    assert_true(fabs(cs_stats_ci95(&s) - 2.365 * sqrt(32.0 / 7.0) / sqrt(8.0)) < 1e-12);
    assert_true(fabs(cs_stats_ci95(&s) - 1.78777) < 1e-5);
    assert_true(s.min == 2 && s.max == 9);
    cs_stats one;
    cs_stats_init(&one);
    cs_stats_add(&one, 3);
    assert_true(cs_stats_ci95(&one) == 0 && cs_stats_stddev(&one) == 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_point_numbering),
        cmocka_unit_test(test_random_samples_stable),
        cmocka_unit_test(test_t_table),
        cmocka_unit_test(test_stats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
