/*
 * test_api.c -- the public interface (include/clustersim/clustersim.h):
 * version, and a run of the pipeline example in-process whose summary holds
 * the hand-computed time of docs/examples.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clustersim/clustersim.h"
#include "testutil.h"

static void test_version(void **state) {
    (void)state;
    assert_non_null(clustersim_version());
    assert_true(strlen(clustersim_version()) >= 5);
}

static void test_run_in_process(void **state) {
    (void)state;
    char wl[4096], net[4096], out[4096], summary[4200];
    snprintf(wl, sizeof wl, "--workload-configuration=%s/examples/pipeline/pipeline", tu_source_dir());
    snprintf(net, sizeof net, "--network-configuration=%s/examples/pipeline/network.yml", tu_source_dir());
    snprintf(out, sizeof out, "%s/api_out", tu_tmp_dir());
    char a0[] = "clustersim", a1[] = "run", a4[] = "--quiet", a5[] = "--no-progress", a6[] = "--out";
    char *argv[] = {a0, a1, wl, net, a4, a5, a6, out, NULL};
    assert_int_equal(clustersim_main(8, argv), 0);
    snprintf(summary, sizeof summary, "%s/summary.json", out);
    FILE *f = fopen(summary, "r");
    assert_non_null(f);
    char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* docs/examples.md: the step takes 33,633,396 ns */
    tu_assert_has(buf, "\"sim_time_ns\": 33633396,");
    tu_assert_has(buf, "\"schema_version\": 1,");
}

static void test_usage_error(void **state) {
    (void)state;
    char a0[] = "clustersim", a1[] = "run", a2[] = "--no-such-option";
    char *argv[] = {a0, a1, a2, NULL};
    assert_int_equal(clustersim_main(3, argv), 2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version),
        cmocka_unit_test(test_run_in_process),
        cmocka_unit_test(test_usage_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
