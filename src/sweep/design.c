/*
 * design.c -- the sweep spec: reading it and numbering its points (see
 * design.h).
 */
#include "sweep/design.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/opts.h"
#include "core/rand.h"

enum { D_CONST, D_CHOICE, D_INT, D_UNIFORM, D_LOGU, D_LIST };

typedef struct dist {
    int kind;
    json_t *v;          /* D_CONST: the value; D_CHOICE: the list (borrowed from the spec) */
    double lo, hi;      /* D_UNIFORM, D_LOGU */
    long long ilo, ihi; /* D_INT */
    struct dist *elems; /* D_LIST */
    size_t n;
} dist;

struct cs_design {
    char *path, *base;
    json_t *root;   /* the spec (owned) */
    json_t *fixed;  /* "set" (borrowed from root, or an empty object owned) */
    size_t nknobs;
    const char **knob;  /* borrowed from root */
    int *is_seed;
    /* grid: knobs [0, ngrid) */
    size_t ngrid;
    json_t **grid;      /* arrays (borrowed) */
    /* zip: knobs [ngrid, ngrid + nzip) */
    size_t nzip;
    uint64_t zip_len;   /* 1 without zip */
    json_t **zip;
    /* random: the next nrand knobs */
    size_t nrand;
    uint64_t rand_count, rand_seed; /* count 1 without random */
    dist *rand;
    /* seeds: the last knob when present */
    json_t *seeds;      /* array (borrowed or owned: seed_owned) */
    int seed_owned;
    uint64_t nseeds;
    uint64_t npoints;
};

static void dist_free(dist *d) {
    if (d->kind == D_LIST) {
        for (size_t i = 0; i < d->n; i++) dist_free(&d->elems[i]);
        cs_free(d->elems);
    }
}

void cs_design_free(cs_design *d) {
    if (!d) return;
    for (size_t i = 0; i < d->nrand; i++) dist_free(&d->rand[i]);
    cs_free(d->rand);
    cs_free(d->grid);
    cs_free(d->zip);
    cs_free(d->knob);
    cs_free(d->is_seed);
    if (d->seed_owned) json_decref(d->seeds);
    if (!json_object_get(d->root, "set")) json_decref(d->fixed);
    json_decref(d->root);
    cs_free(d->path);
    cs_free(d->base);
    cs_free(d);
}

/* One product step with the point limit: *n *= k, or -1 past the limit. */
static int mul_points(uint64_t *n, uint64_t k) {
    if (k && *n > CS_DESIGN_MAX_POINTS / k) return -1;
    *n *= k;
    return *n > CS_DESIGN_MAX_POINTS ? -1 : 0;
}

static void add_knob(cs_design *d, const char *key, int seed) {
    d->knob = cs_realloc(d->knob, (d->nknobs + 1) * sizeof *d->knob);
    d->is_seed = cs_realloc(d->is_seed, (d->nknobs + 1) * sizeof *d->is_seed);
    d->knob[d->nknobs] = key;
    d->is_seed[d->nknobs] = seed;
    d->nknobs++;
}

/* A knob key appears once: not twice among the varying keys, not in "set". */
static int unique_knob(const cs_design *d, const char *path, int line, const char *where, const char *key,
                       cs_error *err) {
    if (!key[0] || strlen(key) > 200)
        return CS_ERR(err, CS_EINVAL, "%s:%d: %s: expected a scenario key (SECTION.KEY), got \"%.200s\"", path,
                      line, where, key);
    for (size_t k = 0; k < d->nknobs; k++)
        if (strcmp(d->knob[k], key) == 0)
            return CS_ERR(err, CS_EINVAL, "%s:%d: %s: %s varies twice in the spec; expected each key in one place",
                          path, line, where, key);
    if (json_object_get(d->fixed, key))
        return CS_ERR(err, CS_EINVAL, "%s:%d: %s: %s is also fixed in \"set\"; expected a key to be fixed or varied",
                      path, line, where, key);
    return CS_OK;
}

static int num(const json_t *v, double *out) {
    if (!json_is_number(v)) return -1;
    *out = json_number_value(v);
    return isfinite(*out) ? 0 : -1;
}

/* A random key's distribution: {"choice": [..]}, {"int": [lo, hi]},
 * {"uniform": [lo, hi]}, {"log-uniform": [lo, hi]}, a list of those
 * (elementwise: the value is a list), or a constant. */
static int parse_dist(json_t *v, dist *out, const char *path, int line, const char *key, int depth, cs_error *err) {
    memset(out, 0, sizeof *out);
    if (json_is_array(v)) {
        if (depth > 0 || json_array_size(v) == 0 || json_array_size(v) > 1024)
            return CS_ERR(err, CS_EINVAL,
                          "%s:%d: random.keys.%s: expected a distribution, a constant or a list of 1 to 1024 of "
                          "them (not nested)",
                          path, line, key);
        out->kind = D_LIST;
        out->n = json_array_size(v);
        out->elems = cs_calloc(out->n, sizeof *out->elems);
        for (size_t i = 0; i < out->n; i++) {
            int rc = parse_dist(json_array_get(v, i), &out->elems[i], path, line, key, depth + 1, err);
            if (rc) return rc;
        }
        return CS_OK;
    }
    if (!json_is_object(v)) {
        out->kind = D_CONST;
        out->v = v;
        return CS_OK;
    }
    const char *name;
    json_t *arg;
    if (json_object_size(v) != 1) goto bad;
    json_object_foreach(v, name, arg) break;
    if (strcmp(name, "choice") == 0) {
        if (!json_is_array(arg) || json_array_size(arg) == 0) goto bad;
        out->kind = D_CHOICE;
        out->v = arg;
        return CS_OK;
    }
    double lo, hi;
    if (!json_is_array(arg) || json_array_size(arg) != 2 || num(json_array_get(arg, 0), &lo) ||
        num(json_array_get(arg, 1), &hi) || lo > hi)
        goto bad;
    if (strcmp(name, "int") == 0) {
        if (lo != floor(lo) || hi != floor(hi) || lo < -9007199254740992.0 || hi > 9007199254740992.0) goto bad;
        out->kind = D_INT;
        out->ilo = (long long)lo;
        out->ihi = (long long)hi;
    } else if (strcmp(name, "uniform") == 0) {
        out->kind = D_UNIFORM;
    } else if (strcmp(name, "log-uniform") == 0) {
        if (lo <= 0) goto bad;
        out->kind = D_LOGU;
    } else {
        goto bad;
    }
    out->lo = lo;
    out->hi = hi;
    return CS_OK;
bad:
    return CS_ERR(err, CS_EINVAL,
                  "%s:%d: random.keys.%s: expected {\"choice\": [v, ...]}, {\"int\": [lo, hi]}, {\"uniform\": [lo, "
                  "hi]} or {\"log-uniform\": [lo, hi]} with finite numbers lo <= hi (log-uniform: lo > 0; int: "
                  "integers), a list of those, or a constant",
                  path, line, key);
}

/* A list of values under section.key: non-empty, at most 1e6 entries. */
static int value_list(json_t *v, const char *path, int line, const char *sect, const char *key, cs_error *err) {
    if (!json_is_array(v) || json_array_size(v) == 0 || json_array_size(v) > 1000000)
        return CS_ERR(err, CS_EINVAL, "%s:%d: %s.%s: expected a list of 1 to 1,000,000 values", path, line, sect,
                      key);
    return CS_OK;
}

static int parse_spec(cs_design *d, const cs_jdoc *doc, cs_error *err) {
    const char *path = doc->path;
    json_t *root = doc->root;
    static const char *const known[] = {"clustersim-sweep", "scenario", "set", "grid", "zip", "random", "seeds"};
    const char *k;
    json_t *v;
    json_object_foreach(root, k, v) {
        if (cs_str_index(k, known, sizeof known / sizeof *known) < 0)
            return CS_ERR(err, CS_EINVAL,
                          "%s:%d: %s: unknown key; expected clustersim-sweep, scenario, set, grid, zip, random or "
                          "seeds",
                          path, cs_jdoc_key_line(doc, k), k);
    }
    v = json_object_get(root, "clustersim-sweep");
    if (!json_is_integer(v) || json_integer_value(v) != 1)
        return CS_ERR(err, CS_EINVAL, "%s:%d: clustersim-sweep: expected 1 (the spec format's version)%s", path,
                      cs_jdoc_key_line(doc, "clustersim-sweep"), v ? "" : ", got no such key");
    v = json_object_get(root, "scenario");
    if (v) {
        if (!json_is_string(v) || !json_string_value(v)[0])
            return CS_ERR(err, CS_EINVAL, "%s:%d: scenario: expected the path of a scenario file", path,
                          cs_jdoc_key_line(doc, "scenario"));
        d->base = cs_path_near(path, json_string_value(v)); /* relative to the spec's directory */
    }
    d->fixed = json_object_get(root, "set");
    if (d->fixed && !json_is_object(d->fixed))
        return CS_ERR(err, CS_EINVAL, "%s:%d: set: expected an object of scenario keys and values", path,
                      cs_jdoc_key_line(doc, "set"));
    if (!d->fixed) d->fixed = json_object();
    d->npoints = 1;
    const char *toomany = NULL;
    /* grid */
    json_t *grid = json_object_get(root, "grid");
    if (grid) {
        int line = cs_jdoc_key_line(doc, "grid");
        if (!json_is_object(grid))
            return CS_ERR(err, CS_EINVAL, "%s:%d: grid: expected an object of keys and lists of values", path, line);
        json_object_foreach(grid, k, v) {
            int rc = value_list(v, path, line, "grid", k, err);
            if (rc == CS_OK) rc = unique_knob(d, path, line, "grid", k, err);
            if (rc) return rc;
            add_knob(d, k, 0);
            d->grid = cs_realloc(d->grid, (d->ngrid + 1) * sizeof *d->grid);
            d->grid[d->ngrid++] = v;
            if (mul_points(&d->npoints, json_array_size(v))) toomany = "grid";
        }
    }
    /* zip */
    d->zip_len = 1;
    json_t *zip = json_object_get(root, "zip");
    if (zip) {
        int line = cs_jdoc_key_line(doc, "zip");
        if (!json_is_object(zip) || json_object_size(zip) == 0)
            return CS_ERR(err, CS_EINVAL, "%s:%d: zip: expected an object of keys and lists of equal length", path,
                          line);
        const char *first = NULL;
        json_object_foreach(zip, k, v) {
            int rc = value_list(v, path, line, "zip", k, err);
            if (rc == CS_OK) rc = unique_knob(d, path, line, "zip", k, err);
            if (rc) return rc;
            if (first && json_array_size(v) != d->zip_len)
                return CS_ERR(err, CS_EINVAL, "%s:%d: zip.%s: expected %llu values (as zip.%s), got %zu", path, line,
                              k, (unsigned long long)d->zip_len, first, json_array_size(v));
            if (!first) {
                first = k;
                d->zip_len = json_array_size(v);
            }
            add_knob(d, k, 0);
            d->zip = cs_realloc(d->zip, (d->nzip + 1) * sizeof *d->zip);
            d->zip[d->nzip++] = v;
        }
        if (mul_points(&d->npoints, d->zip_len)) toomany = "zip";
    }
    /* random */
    d->rand_count = 1;
    json_t *rnd = json_object_get(root, "random");
    if (rnd) {
        int line = cs_jdoc_key_line(doc, "random");
        json_t *cnt = json_object_get(rnd, "count"), *seed = json_object_get(rnd, "seed"),
               *keys = json_object_get(rnd, "keys");
        if (!json_is_object(rnd) || !json_is_integer(cnt) || json_integer_value(cnt) < 1 ||
            json_integer_value(cnt) > (json_int_t)CS_DESIGN_MAX_POINTS || (seed && !json_is_integer(seed)) ||
            (seed && json_integer_value(seed) < 0) || !json_is_object(keys) || json_object_size(keys) == 0 ||
            json_object_size(rnd) != 2u + (seed != NULL))
            return CS_ERR(err, CS_EINVAL,
                          "%s:%d: random: expected {\"count\": N (1 to 10,000,000), \"seed\": S (an integer >= 0, "
                          "optional, default 1), \"keys\": {KEY: distribution, ...}}",
                          path, line);
        d->rand_count = (uint64_t)json_integer_value(cnt);
        d->rand_seed = seed ? (uint64_t)json_integer_value(seed) : 1;
        d->rand = cs_calloc(json_object_size(keys), sizeof *d->rand);
        json_object_foreach(keys, k, v) {
            int rc = unique_knob(d, path, line, "random.keys", k, err);
            if (rc == CS_OK) rc = parse_dist(v, &d->rand[d->nrand], path, line, k, 0, err);
            d->nrand++; /* (freed whole on failure) */
            if (rc) return rc;
            add_knob(d, k, 0);
        }
        if (mul_points(&d->npoints, d->rand_count)) toomany = "random.count";
    }
    /* seeds */
    d->nseeds = 1;
    json_t *seeds = json_object_get(root, "seeds");
    if (seeds) {
        int line = cs_jdoc_key_line(doc, "seeds");
        json_t *key = json_object_get(seeds, "key"), *vals = json_object_get(seeds, "values"),
               *cnt = json_object_get(seeds, "count"), *first = json_object_get(seeds, "first");
        int ok = json_is_object(seeds) && json_is_string(key);
        if (ok && vals)
            ok = json_object_size(seeds) == 2 && json_is_array(vals) && json_array_size(vals) >= 1 &&
                 json_array_size(vals) <= 100000;
        else if (ok)
            ok = json_is_integer(cnt) && json_integer_value(cnt) >= 1 && json_integer_value(cnt) <= 100000 &&
                 (!first || (json_is_integer(first) && json_integer_value(first) >= 0 &&
                             json_integer_value(first) <= INT32_MAX - json_integer_value(cnt))) &&
                 json_object_size(seeds) == 2u + (first != NULL);
        if (!ok)
            return CS_ERR(err, CS_EINVAL,
                          "%s:%d: seeds: expected {\"key\": KEY, \"values\": [v, ...]} or {\"key\": KEY, \"count\": "
                          "N (1 to 100,000), \"first\": F (default 1)}",
                          path, line);
        int rc = unique_knob(d, path, line, "seeds", json_string_value(key), err);
        if (rc) return rc;
        if (vals) {
            d->seeds = vals;
        } else {
            d->seeds = json_array();
            d->seed_owned = 1;
            json_int_t f = first ? json_integer_value(first) : 1;
            for (json_int_t i = 0; i < json_integer_value(cnt); i++) json_array_append_new(d->seeds, json_integer(f + i));
        }
        d->nseeds = json_array_size(d->seeds);
        add_knob(d, json_string_value(key), 1);
        if (mul_points(&d->npoints, d->nseeds)) toomany = "seeds";
    }
    if (toomany)
        return CS_ERR(err, CS_EINVAL, "%s: %s: the design has more than %llu points; expected fewer", path, toomany,
                      (unsigned long long)CS_DESIGN_MAX_POINTS);
    if (d->nknobs == 0)
        return CS_ERR(err, CS_EINVAL, "%s:%d: expected at least one of grid, zip, random or seeds (nothing varies)",
                      path, doc->root_line);
    return CS_OK;
}

int cs_design_load(const char *path, cs_design **out, cs_error *err) {
    *out = NULL;
    cs_jdoc doc;
    int rc = cs_jdoc_load(path, "sweep spec", &doc, err);
    if (rc) return rc;
    cs_design *d = cs_calloc(1, sizeof *d);
    d->path = cs_strdup(path);
    d->root = json_incref(doc.root);
    rc = parse_spec(d, &doc, err);
    cs_jdoc_free(&doc);
    if (rc) {
        cs_design_free(d);
        return rc;
    }
    *out = d;
    return CS_OK;
}

uint64_t cs_design_points(const cs_design *d) { return d->npoints; }
uint32_t cs_design_seeds(const cs_design *d) { return (uint32_t)d->nseeds; }
size_t cs_design_nknobs(const cs_design *d) { return d->nknobs; }
const char *cs_design_knob(const cs_design *d, size_t k) { return d->knob[k]; }
int cs_design_knob_is_seed(const cs_design *d, size_t k) { return d->is_seed[k]; }
const char *cs_design_base(const cs_design *d) { return d->base; }
json_t *cs_design_fixed(const cs_design *d) { return d->fixed; }
const char *cs_design_path(const cs_design *d) { return d->path; }

static json_t *draw(const dist *ds, uint64_t *s) {
    switch (ds->kind) {
    case D_CONST: return json_incref(ds->v);
    case D_CHOICE: return json_incref(json_array_get(ds->v, (size_t)(cs_rand_next(s) % json_array_size(ds->v))));
    case D_INT: {
        uint64_t range = (uint64_t)(ds->ihi - ds->ilo) + 1; /* <= 2^54 */
        return json_integer((json_int_t)(ds->ilo + (long long)(cs_rand_next(s) % range)));
    }
    case D_UNIFORM:
    case D_LOGU: {
        double u = cs_rand_unit(cs_rand_next(s));
        if (ds->kind == D_UNIFORM) return json_real(ds->lo + u * (ds->hi - ds->lo));
        return json_real(exp(log(ds->lo) + u * (log(ds->hi) - log(ds->lo))));
    }
    default: {
        json_t *a = json_array();
        for (size_t i = 0; i < ds->n; i++) json_array_append_new(a, draw(&ds->elems[i], s));
        return a;
    }
    }
}

void cs_design_point(const cs_design *d, uint64_t i, json_t **vals) {
    size_t k = d->nknobs;
    if (d->seeds) {
        vals[--k] = json_incref(json_array_get(d->seeds, (size_t)(i % d->nseeds)));
        i /= d->nseeds;
    }
    uint64_t sample = i % d->rand_count;
    i /= d->rand_count;
    if (d->nrand) {
        uint64_t s = d->rand_seed * 0xD1B54A32D192ED03ull ^ (sample + 1) * 0x9E3779B97F4A7C15ull;
        size_t first = k - d->nrand;
        for (size_t j = 0; j < d->nrand; j++) vals[first + j] = draw(&d->rand[j], &s);
        k = first;
    }
    uint64_t row = i % d->zip_len;
    i /= d->zip_len;
    for (size_t j = d->nzip; j-- > 0;) vals[--k] = json_incref(json_array_get(d->zip[j], (size_t)row));
    for (size_t j = d->ngrid; j-- > 0;) {
        size_t n = json_array_size(d->grid[j]);
        vals[--k] = json_incref(json_array_get(d->grid[j], (size_t)(i % n)));
        i /= n;
    }
}
