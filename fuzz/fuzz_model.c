/*
 * fuzz_model.c -- libFuzzer target for the model-file reader
 * (src/gen/model.c: cs_gen_model_load_json, the family registry and each
 * family's key table) and the closed forms a model feeds.
 *
 * Each input is a whole model JSON file (as --model FILE reads it).
 * Contracts checked besides the sanitizers: a refusal carries its code and
 * a message starting with the file's path; an accepted model has a family
 * and a name, and its parameter count, model FLOPs, plan check and memory
 * breakdown under the default plan are computed without crashing (plan
 * refusals are fine).  Seeds: fuzz/corpus/model/ (the files of models/ and the
 * Megatron examples).
 */
#include <stdio.h>
#include <string.h>

#include "fuzz_common.h"
#include "gen/family.h"
#include "gen/gen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_init("fuzz_model");
    const char *path = fz_input("model.json", data, size);
    cs_gen_model m;
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_gen_model_load_json(path, &m, &err);
    if (rc != CS_OK) {
        fz_check_error(rc, &err, path);
        return 0;
    }
    fz_check(m.family != NULL, "a model has a family");
    (void)cs_gen_total_params(&m);
    cs_gen_plan p;
    cs_gen_plan_defaults(&p);
    cs_error_clear(&err);
    if (cs_gen_plan_check(&m, &p, &err) == CS_OK) {
        (void)cs_gen_model_flops(&m, &p);
        cs_gen_memory w;
        cs_gen_memory_worst(&m, &p, &w);
    } else {
        fz_check(err.code < 0 && err.msg[0] != '\0', "a refused plan says why");
    }
    return 0;
}
