/*
 * scenario_demo.c -- the public C API in a dozen lines: load a scenario,
 * run it, change one key, run again, print both step times.
 *
 *     scenario_demo SCENARIO.json KEY VALUE
 *     scenario_demo examples/api/scenario.json network.bandwidth 300
 *
 * Only <clustersim/clustersim.h> is used; CI builds and runs it
 * (tests/cli_api_example.sh compares its numbers with `clustersim run`).
 */
#include <clustersim/clustersim.h>
#include <inttypes.h>
#include <stdio.h>

static int run_once(cs_scenario *sc, uint64_t *ps) {
    cs_result *r;
    if (cs_scenario_run(sc, &r) != 0) {
        fprintf(stderr, "scenario_demo: %s\n", cs_scenario_error(sc));
        return -1;
    }
    *ps = cs_result_time_ps(r);
    cs_result_free(r);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: scenario_demo SCENARIO.json KEY VALUE\n");
        return 2;
    }
    cs_scenario *sc = cs_scenario_new();
    uint64_t before, after;
    int rc = cs_scenario_load(sc, argv[1]) != 0 ? -1 : run_once(sc, &before);
    if (rc == 0 && cs_scenario_set(sc, argv[2], argv[3]) != 0) {
        fprintf(stderr, "scenario_demo: %s\n", cs_scenario_error(sc));
        rc = -1;
    }
    if (rc == 0) rc = run_once(sc, &after);
    if (rc == 0) {
        printf("step time: %" PRIu64 " ps\n", before);
        printf("step time with %s = %s: %" PRIu64 " ps\n", argv[2], argv[3], after);
    } else if (cs_scenario_error(sc)[0]) {
        fprintf(stderr, "scenario_demo: %s\n", cs_scenario_error(sc));
    }
    cs_scenario_free(sc);
    return rc == 0 ? 0 : 1;
}
