/*
 * core/opts.c -- the option-table engine (see core/opts.h).
 *
 * One table of cs_opt descriptors per config file drives: defaults
 * (cs_opts_defaults), parsing and validation with located messages
 * (cs_opts_parse), the effective-config dump (cs_opts_to_json), the unit
 * list (cs_opts_units_json) and --help (cs_opts_print_help).  Readers add
 * only what a table cannot say (conditional requirements, cross-checks).
 */
#include "core/opts.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "core/alloc.h"
#include "core/time.h"
#include "core/units.h"

#define FIELD(base, o, type) ((type *)(void *)((char *)(base) + (o)->off))
#define CFIELD(base, o, type) ((const type *)(const void *)((const char *)(base) + (o)->off))

/* A number key's upper bound: its table's, and for the units that become
 * simulated quantities at most what those can hold -- a duration (ns) the
 * simulated-time range (CS_TIME_MAX_NS_F), a bandwidth (GB/s) CS_GBPS_MAX
 * (core/units.h) -- so that no key of any table (topology builders,
 * backends, configuration files, --set) passes a value the simulation
 * would only find beyond its range, or infinite, after converting it. */
static double opt_max(const cs_opt *o) {
    double hi = o->max;
    if (o->type == CS_OPT_NUM && o->unit && strcmp(o->unit, CS_UNIT_NS) == 0 && hi > CS_TIME_MAX_NS_F)
        hi = CS_TIME_MAX_NS_F;
    if (o->type == CS_OPT_NUM && o->unit && strcmp(o->unit, CS_UNIT_GBPS) == 0 && hi > CS_GBPS_MAX) hi = CS_GBPS_MAX;
    return hi;
}

void cs_opt_expected(const cs_opt *o, char *buf, size_t n) {
    char a[40], b[40];
    switch (o->type) {
    case CS_OPT_ENUM: {
        size_t used = (size_t)snprintf(buf, n, "one of ");
        for (size_t i = 0; o->values[i] && used < n; i++)
            used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", o->values[i]);
        break;
    }
    case CS_OPT_INT:
        cs_fmt_double(a, sizeof a, o->min);
        cs_fmt_double(b, sizeof b, o->max);
        snprintf(buf, n, "an integer from %s to %s", a, b);
        break;
    case CS_OPT_NUM:
        cs_fmt_double(a, sizeof a, o->min);
        cs_fmt_double(b, sizeof b, opt_max(o));
        if (opt_max(o) >= DBL_MAX)
            snprintf(buf, n, "a number %s %s", o->min_open ? ">" : ">=", a);
        else
            snprintf(buf, n, "a number %s %s and <= %s", o->min_open ? ">" : ">=", a, b);
        break;
    case CS_OPT_BOOL: snprintf(buf, n, "0, 1, true or false"); break;
    case CS_OPT_STR: snprintf(buf, n, "a string"); break;
    case CS_OPT_CUSTOM: snprintf(buf, n, "%s", o->type_text ? o->type_text : "a value"); break;
    case CS_OPT_IGNORED: snprintf(buf, n, "any value"); break;
    }
}

int cs_check_min_gbps(const char *path, int line, const char *key, double gbps, cs_error *err) {
    if (!(gbps > 0) || gbps >= CS_GBPS_MIN) return CS_OK; /* (> 0 is the table's bound) */
    char got[40];
    cs_fmt_double(got, sizeof got, gbps);
    return CS_ERR(err, CS_EINVAL,
                  "%s:%d: %s: %s GB/s: one byte would take %.3g ns, beyond " CS_TIME_RANGE_TEXT
                  "; expected a number >= %g (in GB/s)",
                  path, line, key, got, 1.0 / gbps, CS_GBPS_MIN); /* these keys read 1 GB/s as 1 byte per ns */
}

static int value_error(const cs_jdoc *doc, const cs_opt *o, int line, const json_t *v,
                       cs_error *err) {
    char exp[256], got[320];
    cs_opt_expected(o, exp, sizeof exp);
    cs_json_repr(v, got, sizeof got);
    if (o->unit && o->type != CS_OPT_ENUM && o->type != CS_OPT_BOOL && o->type != CS_OPT_STR)
        return CS_ERR(err, CS_EINVAL, "%s:%d: %s: expected %s (in %s), got %s", doc->path, line,
                      o->key, exp, o->unit, got);
    return CS_ERR(err, CS_EINVAL, "%s:%d: %s: expected %s, got %s", doc->path, line, o->key, exp,
                  got);
}

void cs_opts_defaults(const cs_opt *t, size_t n, void *base) {
    for (size_t i = 0; i < n; i++) {
        const cs_opt *o = &t[i];
        switch (o->type) {
        case CS_OPT_ENUM: *FIELD(base, o, int) = (int)o->def; break;
        case CS_OPT_INT: *FIELD(base, o, int) = (int)o->def; break;
        case CS_OPT_NUM: *FIELD(base, o, double) = o->def; break;
        case CS_OPT_BOOL: *FIELD(base, o, bool) = o->def != 0; break;
        case CS_OPT_STR: *FIELD(base, o, char *) = o->def_str ? cs_strdup(o->def_str) : NULL; break;
        case CS_OPT_CUSTOM:
        case CS_OPT_IGNORED: break; /* custom fields: zeroed by the reader */
        }
    }
}

static int parse_one(const cs_jdoc *doc, const cs_opt *o, int line, const json_t *v,
                     void *base, cs_error *err) {
    switch (o->type) {
    case CS_OPT_ENUM: {
        if (json_is_string(v)) {
            const char *s = json_string_value(v);
            for (int k = 0; o->values[k]; k++) {
                if (strcmp(s, o->values[k]) == 0) {
                    *FIELD(base, o, int) = k;
                    return CS_OK;
                }
            }
        }
        return value_error(doc, o, line, v, err);
    }
    case CS_OPT_INT: {
        long long x;
        if (cs_json_ll(v, &x) != 0 || (double)x < o->min || (double)x > o->max)
            return value_error(doc, o, line, v, err);
        *FIELD(base, o, int) = (int)x;
        return CS_OK;
    }
    case CS_OPT_NUM: {
        if (!json_is_number(v)) return value_error(doc, o, line, v, err);
        double x = json_number_value(v);
        if (!isfinite(x) || x < o->min || (o->min_open && x <= o->min) || x > opt_max(o))
            return value_error(doc, o, line, v, err);
        if (o->unit && strcmp(o->unit, CS_UNIT_GBPS) == 0) { /* (0 may mean "unset": the table's bound) */
            int rc = cs_check_min_gbps(doc->path, line, o->key, x, err);
            if (rc) return rc;
        }
        *FIELD(base, o, double) = x;
        return CS_OK;
    }
    case CS_OPT_BOOL: {
        long long x;
        if (json_is_boolean(v)) {
            *FIELD(base, o, bool) = json_is_true(v);
            return CS_OK;
        }
        if (cs_json_ll(v, &x) == 0 && (x == 0 || x == 1)) {
            *FIELD(base, o, bool) = x == 1;
            return CS_OK;
        }
        return value_error(doc, o, line, v, err);
    }
    case CS_OPT_STR: {
        if (!json_is_string(v)) return value_error(doc, o, line, v, err);
        char **f = FIELD(base, o, char *);
        cs_free(*f);
        *f = cs_strdup(json_string_value(v));
        return CS_OK;
    }
    case CS_OPT_CUSTOM: return o->parse(doc, o, v, FIELD(base, o, char), err);
    case CS_OPT_IGNORED: return CS_OK;
    }
    return CS_OK;
}

int cs_opts_parse(const cs_jdoc *doc, const cs_opt *t, size_t n, void *base, int *lines,
                   cs_error *err) {
    const char *known[128];
    size_t nknown = n < 128 ? n : 128;
    for (size_t i = 0; i < nknown; i++) known[i] = t[i].key;
    if (lines)
        for (size_t i = 0; i < n; i++) lines[i] = 0;

    const char *key;
    json_t *v;
    json_object_foreach(doc->root, key, v) {
        int line = cs_jdoc_key_line(doc, key);
        const cs_opt *o = NULL;
        size_t idx = 0;
        for (size_t i = 0; i < n; i++) {
            if (strcmp(t[i].key, key) == 0) {
                o = &t[i];
                idx = i;
                break;
            }
        }
        if (!o) {
            cs_warn_unknown_key(doc->path, line, key, known, nknown);
            continue;
        }
        if (lines) lines[idx] = line;
        int rc = parse_one(doc, o, line, v, base, err);
        if (rc) return rc;
    }
    for (size_t i = 0; i < n; i++) {
        const cs_opt *o = &t[i];
        if (!o->required || json_object_get(doc->root, o->key)) continue;
        char exp[256];
        cs_opt_expected(o, exp, sizeof exp);
        return CS_ERR(err, CS_EINVAL,
                      "%s:%d: %s: expected %s%s%s (a required key), got no such key", doc->path,
                      doc->root_line, o->key, exp, o->unit ? " in " : "", o->unit ? o->unit : "");
    }
    return CS_OK;
}

void cs_opts_free(const cs_opt *t, size_t n, void *base) {
    for (size_t i = 0; i < n; i++) {
        const cs_opt *o = &t[i];
        if (o->type == CS_OPT_STR) {
            char **f = FIELD(base, o, char *);
            cs_free(*f);
            *f = NULL;
        } else if (o->type == CS_OPT_CUSTOM && o->free_fn) {
            o->free_fn(FIELD(base, o, char));
        }
    }
}

/* Integral doubles are dumped as JSON integers (1600, not 1600.0). */
static json_t *num_json(double x) {
    if (x == floor(x) && fabs(x) < 9007199254740992.0) return json_integer((json_int_t)x);
    return json_real(x);
}

json_t *cs_opts_to_json(const cs_opt *t, size_t n, const void *base) {
    json_t *obj = json_object();
    for (size_t i = 0; i < n; i++) {
        const cs_opt *o = &t[i];
        json_t *v = NULL;
        switch (o->type) {
        case CS_OPT_ENUM: v = json_string(o->values[*CFIELD(base, o, int)]); break;
        case CS_OPT_INT: v = json_integer(*CFIELD(base, o, int)); break;
        case CS_OPT_NUM: v = num_json(*CFIELD(base, o, double)); break;
        case CS_OPT_BOOL: v = json_integer(*CFIELD(base, o, bool) ? 1 : 0); break;
        case CS_OPT_STR: {
            const char *s = *(char *const *)(const void *)((const char *)base + o->off);
            v = s ? json_string(s) : NULL;
            break;
        }
        case CS_OPT_CUSTOM: v = o->dump ? o->dump(o, CFIELD(base, o, char)) : NULL; break;
        case CS_OPT_IGNORED: break;
        }
        if (v) json_object_set_new(obj, o->key, v);
    }
    return obj;
}

json_t *cs_opts_units_json(const cs_opt *t, size_t n) {
    json_t *obj = json_object();
    for (size_t i = 0; i < n; i++)
        if (t[i].unit) json_object_set_new(obj, t[i].key, json_string(t[i].unit));
    return obj;
}

static void default_text(const cs_opt *o, char *buf, size_t n) {
    char num[40];
    if (o->nodef) {
        snprintf(buf, n, "(not set)");
        return;
    }
    switch (o->type) {
    case CS_OPT_ENUM: snprintf(buf, n, "%s", o->values[(int)o->def]); break;
    case CS_OPT_INT:
    case CS_OPT_NUM:
        cs_fmt_double(num, sizeof num, o->def);
        snprintf(buf, n, "%s", num);
        break;
    case CS_OPT_BOOL: snprintf(buf, n, "%d", o->def != 0); break;
    case CS_OPT_STR: snprintf(buf, n, "%s", o->def_str ? o->def_str : "(not set)"); break;
    case CS_OPT_CUSTOM: snprintf(buf, n, "(not set)"); break;
    case CS_OPT_IGNORED: snprintf(buf, n, "(ignored)"); break;
    }
}

void cs_opts_print_help(FILE *f, const cs_opt *t, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const cs_opt *o = &t[i];
        char exp[256], def[128];
        cs_opt_expected(o, exp, sizeof exp);
        default_text(o, def, sizeof def);
        fprintf(f, "  %s\n", o->key);
        if (o->type == CS_OPT_IGNORED) {
            fprintf(f, "      accepted and ignored\n");
        } else {
            fprintf(f, "      %s%s%s; ", exp, o->unit ? ", in " : "", o->unit ? o->unit : "");
            if (o->required)
                fprintf(f, "required (programmatic default %s)\n", def);
            else
                fprintf(f, "default %s\n", def);
        }
        fprintf(f, "      %s\n", o->help);
    }
}
