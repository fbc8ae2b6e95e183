/*
 * design.h -- a sweep's design: which scenario keys vary, over which values,
 * and how the points are numbered (the spec file of `clustersim sweep`,
 * docs/sweep.md).
 *
 * A spec is a JSON object:
 *
 *     {"clustersim-sweep": 1,
 *      "scenario": "base.json",                 base scenario (optional)
 *      "set":  {"run.backend": "flow"},          fixed keys (optional)
 *      "grid": {"plan.tp": [1, 2, 4], ...},      every combination
 *      "zip":  {"plan.tp": [1, 2], "plan.dp": [8, 4]},  varied together
 *      "random": {"count": 100, "seed": 7,
 *                 "keys": {"plan.micro-batch": {"choice": [1, 2, 4]},
 *                          "network.bandwidth": [{"uniform": [50, 400]}, 25]}},
 *      "seeds": {"key": "backend.flow.ecmp_seed", "values": [1, 2, 3]}}
 *
 * The points are the product grid x zip x random x seeds; point i's index
 * digits are, from the outermost: the grid keys in file order (the last
 * varies fastest), the zip row, the random sample, the seed.  The seeds
 * of one design point are consecutive (cs_design_seeds of them).  A random
 * sample j draws its values from a generator seeded by (seed, j) alone, so
 * a point's values do not depend on which points run or in what order.
 *
 * Ownership: a cs_design owns its JSON; cs_design_point returns new
 * references.
 */
#ifndef CS_SWEEP_DESIGN_H
#define CS_SWEEP_DESIGN_H

#include <jansson.h>
#include <stdint.h>

#include "core/error.h"

typedef struct cs_design cs_design;

/* Read and check a spec (structure and value shapes; whether each value is
 * valid for its key is the scenario's to say, see sweep.c).  Errors name
 * the file, line and field. */
int cs_design_load(const char *path, cs_design **out, cs_error *err);
void cs_design_free(cs_design *d);

/* Points in all (CS_DESIGN_MAX_POINTS at most). */
#define CS_DESIGN_MAX_POINTS 10000000ull
uint64_t cs_design_points(const cs_design *d);
/* Seeds per design point (1 without "seeds"). */
uint32_t cs_design_seeds(const cs_design *d);

/* The varying keys (knobs), in column order: grid, zip, random, seed. */
size_t cs_design_nknobs(const cs_design *d);
const char *cs_design_knob(const cs_design *d, size_t k);
/* 1 = knob k is the seed key. */
int cs_design_knob_is_seed(const cs_design *d, size_t k);

/* Values of point i: vals[k] for knob k (new references; the caller
 * decrefs each). */
void cs_design_point(const cs_design *d, uint64_t i, json_t **vals);

/* The base scenario file (absolute, or NULL) and the fixed keys (object,
 * borrowed), and the spec's path as given. */
const char *cs_design_base(const cs_design *d);
json_t *cs_design_fixed(const cs_design *d);
const char *cs_design_path(const cs_design *d);

#endif
