/*
 * fuzz_system_config.c -- libFuzzer target for the ASTRA-sim system JSON
 * reader (src/config/system_config.c over core/jdoc.c and the option
 * engine core/opts.c).
 *
 * Each input is a whole system.json read from a file.  Contracts checked
 * besides the sanitizers: a refusal carries its code and a message starting
 * with the file's path; an accepted file's effective configuration reads
 * back to the same configuration, and its implementation lists are checked
 * against networks of 1 to 4 dimensions without crashing (the answer
 * depends on the lists).  Seeds: fuzz/corpus/system_config/.
 */
#include <stdlib.h>
#include <string.h>

#include "config/system_config.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_init("fuzz_system_config");
    const char *path = fz_input("system.json", data, size);
    cs_system_config c;
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_system_config_load(path, &c, &err);
    if (rc != CS_OK) {
        fz_check_error(rc, &err, path);
        return 0;
    }
    for (int nd = 1; nd <= 4; nd++) {
        cs_error_clear(&err);
        rc = cs_system_config_check_network(&c, nd, &err);
        if (rc != CS_OK) fz_check_error(rc, &err, path);
    }
    json_t *j = cs_system_config_to_json(&c);
    char *s = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(17));
    fz_check(s != NULL, "the effective configuration dumps");
    cs_system_config c2;
    cs_error_clear(&err);
    rc = cs_system_config_load_text("roundtrip.json", s, strlen(s), &c2, &err);
    if (rc != CS_OK) fprintf(stderr, "dump: %s\nerror: %s\n", s, err.msg);
    fz_check(rc == CS_OK, "the effective configuration loads again");
    json_t *j2 = cs_system_config_to_json(&c2);
    fz_check(json_equal(j, j2), "the effective configuration round-trips");
    json_decref(j2);
    cs_system_config_free(&c2);
    free(s);
    json_decref(j);
    cs_system_config_free(&c);
    return 0;
}
