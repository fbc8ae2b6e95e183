/*
 * fuzz_memory_config.c -- libFuzzer target for the ASTRA-sim remote-memory
 * JSON reader (src/config/memory_config.c over core/jdoc.c).
 *
 * Each input is a whole memory.json read from a file.  Contracts checked
 * besides the sanitizers: a refusal carries its code and a message starting
 * with the file's path; an accepted file validates (or is refused the same
 * way) against networks of 1, 8 and 2^32 NPUs, and its effective
 * configuration reads back to the same configuration.
 * Seeds: fuzz/corpus/memory_config/.
 */
#include <stdlib.h>
#include <string.h>

#include "config/memory_config.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_init("fuzz_memory_config");
    const char *path = fz_input("memory.json", data, size);
    cs_memory_config c;
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_memory_config_load(path, &c, &err);
    if (rc != CS_OK) {
        fz_check_error(rc, &err, path);
        return 0;
    }
    static const uint64_t npus[] = {1, 8, (uint64_t)1 << 32};
    for (size_t i = 0; i < 3; i++) {
        cs_error_clear(&err);
        rc = cs_memory_config_validate(&c, npus[i], &err);
        if (rc != CS_OK) fz_check_error(rc, &err, path);
    }
    json_t *j = cs_memory_config_to_json(&c);
    char *s = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(17));
    fz_check(s != NULL, "the effective configuration dumps");
    cs_memory_config c2;
    cs_error_clear(&err);
    rc = cs_memory_config_load_text("roundtrip.json", s, strlen(s), &c2, &err);
    if (rc != CS_OK) fprintf(stderr, "dump: %s\nerror: %s\n", s, err.msg);
    fz_check(rc == CS_OK, "the effective configuration loads again");
    json_t *j2 = cs_memory_config_to_json(&c2);
    fz_check(json_equal(j, j2), "the effective configuration round-trips");
    json_decref(j2);
    cs_memory_config_free(&c2);
    free(s);
    json_decref(j);
    cs_memory_config_free(&c);
    return 0;
}
