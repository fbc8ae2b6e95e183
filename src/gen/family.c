/*
 * family.c -- the registry of model families (family.h): one line per
 * family.  The first is the default of a model file without "arch".
 */
#include <string.h>

#include "gen/gen_int.h"

/* One X(name) per family; cs_gen_family_<name> is defined in
 * family_<name>.c. */
#define FAMILIES(X) X(transformer) X(resnet50) X(dlrm)

#define DECLARE(n) extern const cs_model_family cs_gen_family_##n;
#define ENTRY(n) &cs_gen_family_##n,
FAMILIES(DECLARE)
static const cs_model_family *const families[] = {FAMILIES(ENTRY)};
#define NFAMILIES (sizeof families / sizeof families[0])

const cs_model_family *cs_gen_family_at(size_t i) { return i < NFAMILIES ? families[i] : NULL; }

const cs_model_family *cs_gen_family_find(const char *name) {
    for (size_t i = 0; i < NFAMILIES; i++)
        if (strcmp(families[i]->name, name) == 0) return families[i];
    return NULL;
}

double cs_gen_total_params(const cs_gen_model *m) { return m->family->params(m); }
double cs_gen_model_flops(const cs_gen_model *m, const cs_gen_plan *p) { return m->family->flops(m, p); }
