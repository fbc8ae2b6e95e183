/*
 * fuzz_scenario.c -- libFuzzer target for the scenario layer's readers
 * (src/scenario/scenario.c): scenario files (cs_scenario_load_file: every
 * section, inline or naming a file, backend.NAME.KEY, paths), --set values
 * (cs_sc_set_text: KEY=VALUE as text, lists, a section's JSON), and the
 * typed sections' option tables (scenario_keys.c: run, plan, model,
 * device, cost, ingest, serve -- serve's request arrivals included), read
 * as a run reads them; with a plan, the generator's inputs
 * (cs_scenario_plan: model and device by name, plan.layout and
 * plan.placement through their parsers, the plan and memory checks).
 * fuzz_cli reaches these through `run --scenario` and `--set` seeds too,
 * at its rate and parse-only; here the scenario is the whole input.
 *
 * Input, parts separated by lines "%%":
 *
 *     <scen.json>      the scenario file
 *     %%
 *     KEY=VALUE        --set lines, one per line (at most 64)
 *     %%
 *     <f>              a file the scenario may name ("network": "f", ...)
 *
 * An input holding "/" or "\" is skipped, so every path the scenario names
 * (resolved against its directory) is a file of the scratch directory.
 * Contracts checked besides the sanitizers: a refusal returns a negative
 * code equal to cs_error.code with a message that starts with the
 * scenario's path (the file), with "--set" (a --set line) or, for the
 * effective values, names a section; an accepted scenario's effective
 * values (cs_scenario_to_json: every section through its reader) dump and
 * load back to the same effective values.  Seeds: fuzz/corpus/scenario/
 * (examples/api/scenario.json, the bandwidth and sweep examples' bases,
 * the tests' scenarios); dictionary: fuzz/dict/scenario.dict.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cost/cost.h"
#include "fuzz_common.h"
#include "gen/gen.h"
#include "compute/device.h"
#include "scenario/scenario.h"
#include "scenario/scenario_int.h"
#include "scenario/scenario_run.h"

#define MAX_SETS 64

static int contains(const uint8_t *p, size_t n, char c) { return memchr(p, c, n) != NULL; }

/* A failure of a reader over the scenario's keys: a code and a message. */
static void check_failure(int rc, const cs_error *err) {
    fz_check(rc < 0 && err->code == rc, "failure code is negative and in cs_error.code");
    fz_check(err->msg[0] != '\0', "a failure has a message");
}

static void set_lines(cs_scenario *sc, const uint8_t *p, size_t n) {
    int count = 0;
    while (n > 0 && count < MAX_SETS) {
        const uint8_t *nl = memchr(p, '\n', n);
        size_t len = nl ? (size_t)(nl - p) : n;
        char *line = malloc(len + 1);
        memcpy(line, p, len);
        line[len] = '\0';
        char *eq = strchr(line, '=');
        if (eq && strlen(line) == len) { /* no NUL inside: as argv gives it */
            *eq = '\0';
            cs_error err;
            cs_error_clear(&err);
            int rc = cs_sc_set_text(sc, line, eq + 1, "--set", &err);
            if (rc != CS_OK) {
                check_failure(rc, &err);
                fz_check(strncmp(err.msg, "--set", 5) == 0, "a --set refusal starts with --set");
            }
            count++;
        }
        free(line);
        if (!nl) break;
        p += len + 1;
        n -= len + 1;
    }
}

/* Every typed section through its option table, and the readers a run
 * and serve use on them. */
static void typed_sections(const cs_scenario *sc) {
    for (int s = SC_RUN; s <= SC_LAST_TYPED; s++) {
        cs_sc_typed_any u;
        cs_error err;
        cs_error_clear(&err);
        int rc = cs_sc_parse_typed(sc, s, &u, &err);
        if (rc != CS_OK) check_failure(rc, &err);
        else cs_sc_free_typed(s, &u);
    }
    cs_serve_params v;
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_scenario_serve_params(sc, &v, &err);
    if (rc != CS_OK) check_failure(rc, &err);
    else fz_check(v.arrivals == CS_ARRIVALS_POISSON || v.arrivals == CS_ARRIVALS_UNIFORM, "known arrivals");
    cs_cost_params c;
    cs_error_clear(&err);
    rc = cs_scenario_cost_params(sc, &c, &err);
    if (rc != CS_OK) check_failure(rc, &err);
    if (cs_scenario_is_plan(sc)) {
        cs_gen_model m;
        cs_device d;
        cs_gen_plan p;
        cs_error_clear(&err);
        rc = cs_scenario_plan(sc, &m, &d, &p, &err);
        if (rc != CS_OK) check_failure(rc, &err);
        else fz_check(cs_gen_ranks(&p) >= 1 && cs_gen_ranks(&p) <= CS_GEN_MAX_RANKS, "a checked plan's ranks");
    }
    (void)cs_scenario_npus(sc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_init("fuzz_scenario");
    if (contains(data, size, '/') || contains(data, size, '\\')) return -1;
    const uint8_t *part[3] = {data, NULL, NULL};
    size_t plen[3] = {size, 0, 0};
    size_t l1, l2;
    const uint8_t *rest;
    if (fz_split(data, size, &l1, &rest, &l2)) {
        plen[0] = l1;
        part[1] = rest;
        plen[1] = l2;
        if (fz_split(part[1], plen[1], &l1, &rest, &l2)) {
            plen[1] = l1;
            part[2] = rest;
            plen[2] = l2;
        }
    }
    (void)fz_input("f", part[2] ? part[2] : (const uint8_t *)"", plen[2]);
    const char *path = fz_input("scen.json", part[0], plen[0]);

    cs_scenario *sc = cs_scenario_new();
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_scenario_load_file(sc, path, &err);
    if (rc != CS_OK) {
        fz_check_error(rc, &err, path);
        cs_scenario_free(sc);
        return 0;
    }
    if (part[1]) set_lines(sc, part[1], plen[1]);
    typed_sections(sc);

    /* the effective values dump and load back to the same values */
    cs_error_clear(&err);
    json_t *eff = cs_scenario_to_json(sc, &err);
    if (!eff) {
        fz_check(err.msg[0] != '\0', "a refused scenario says why");
        cs_scenario_free(sc);
        return 0;
    }
    char *s = json_dumps(eff, JSON_COMPACT | JSON_REAL_PRECISION(17));
    fz_check(s != NULL, "the effective scenario dumps");
    const char *dump = fz_input("dump.json", (const uint8_t *)s, strlen(s));
    cs_scenario *sc2 = cs_scenario_new();
    cs_error_clear(&err);
    rc = cs_scenario_load_file(sc2, dump, &err);
    if (rc != CS_OK) fprintf(stderr, "dump: %s\nerror: %s\n", s, err.msg);
    fz_check(rc == CS_OK, "the effective scenario loads again");
    cs_error_clear(&err);
    json_t *eff2 = cs_scenario_to_json(sc2, &err);
    if (!eff2) fprintf(stderr, "dump: %s\nerror: %s\n", s, err.msg);
    fz_check(eff2 != NULL, "the reloaded scenario has effective values");
    if (!json_equal(eff, eff2)) {
        char *s2 = json_dumps(eff2, JSON_COMPACT | JSON_REAL_PRECISION(17));
        fprintf(stderr, "dump: %s\nreloaded: %s\n", s, s2);
        free(s2);
        fz_check(0, "the effective scenario round-trips");
    }
    json_decref(eff2);
    cs_scenario_free(sc2);
    free(s);
    json_decref(eff);
    cs_scenario_free(sc);
    return 0;
}
