/*
 * config_int.h -- helpers private to src/config (not for other layers).
 *
 * The config readers share three pieces:
 *   - file reading and value formatting for messages ("got ..." parts);
 *   - cfg_jdoc: a JSON file parsed by jansson plus a line index.  jansson
 *     keeps no positions for values, so after jansson has accepted the text we
 *     walk the raw bytes once more with a tiny scanner and record, for every
 *     top-level key, the line of the key and the line of each element when the
 *     value is a list.  Messages then say "file:line: key: expected ..., got ...";
 *   - cfg_opt: the option-table engine.  A reader declares every key once (key,
 *     type, default, bounds, unit, accepted values, help, struct offset) and
 *     the engine drives parsing, validation, defaults, the effective-config
 *     dump and --help from that one table (STYLE.md habit 12).
 *
 * Ownership: a cfg_jdoc owns its jansson root and its index; the option
 * engine writes into a caller-owned struct and strdup's strings with cs_strdup
 * (freed by cfg_opts_free).
 */
#ifndef CS_CONFIG_CONFIG_INT_H
#define CS_CONFIG_CONFIG_INT_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "core/error.h"

/* ---- files and formatting ------------------------------------------- */

/* Read a whole file, NUL-terminated (*len excludes the NUL).  CS_EIO with
 * "path: cannot read: <reason>" when it cannot be opened or read. */
int cfg_read_file(const char *path, char **buf, size_t *len, cs_error *err);

/* Copy user text s into buf for a message: control characters become \n,
 * \t, \xHH, and text beyond max bytes is cut with "...".  Returns buf. */
const char *cfg_escape(const char *s, size_t max, char *buf, size_t n);

/* Shortest "%g" form of d that reads back as the same double. */
void cfg_fmt_double(char *buf, size_t n, double d);

/* Human form of a JSON value for the "got ..." part of a message:
 * "abc" (quoted, truncated), 12, 2.5, true, null, a list of 3 entries,
 * an object. */
void cfg_json_repr(const json_t *v, char *buf, size_t n);

/* Strict number parsing of text (YAML scalars, group names).
 * cfg_parse_double: decimal/exponent notation only (no hex, inf, nan), whole
 * string consumed.  cfg_parse_ll: an integer, or a number whose value is
 * integral (8.0); 0 on success, -1 on failure. */
int cfg_parse_double(const char *s, double *out);
int cfg_parse_ll(const char *s, long long *out);

/* A JSON number that is an integer or an integral real -> *out; 0 or -1. */
int cfg_json_ll(const json_t *v, long long *out);

/* Warn "path:line: unknown key "k" ignored (did you mean "x"?)"; known is a
 * list of accepted keys used for the suggestion (may be NULL). */
void cfg_warn_unknown_key(const char *path, int line, const char *key,
                          const char *const *known, size_t nknown);

/* ---- JSON document with line index ---------------------------------- */

typedef struct cfg_jmember {
    char *key;       /* decoded key */
    int key_line;    /* 1-based line of the key */
    size_t nelem;    /* number of elements when the value is a list, else 0 */
    int *elem_lines; /* nelem lines (NULL when nelem == 0) */
} cfg_jmember;

typedef struct cfg_jdoc {
    char *path;        /* as given */
    json_t *root;      /* top-level object (owned) */
    int root_line;     /* line of the opening '{' */
    cfg_jmember *m;    /* members in file order */
    size_t nm;
} cfg_jdoc;

/* Load path as JSON (duplicate keys rejected) whose top level must be an
 * object, and index it.  `what` names the file kind for messages
 * ("system configuration"). */
int cfg_jdoc_load(const char *path, const char *what, cfg_jdoc *doc, cs_error *err);
void cfg_jdoc_free(cfg_jdoc *doc);
/* Line of key (root_line when unknown to the index). */
int cfg_jdoc_key_line(const cfg_jdoc *doc, const char *key);
/* Line of element i of the list under key (key line when not indexed). */
int cfg_jdoc_elem_line(const cfg_jdoc *doc, const char *key, size_t i);

/* ---- the option-table engine ---------------------------------------- */

typedef enum cfg_type {
    CFG_ENUM,    /* string from `values`; field: int (an enum) = index */
    CFG_INT,     /* integer in [min, max]; field: int */
    CFG_NUM,     /* number, >= min (or > min when min_open), <= max; field: double */
    CFG_BOOL,    /* 0, 1, true, false; field: bool */
    CFG_STR,     /* string; field: char * (owned; NULL = not set) */
    CFG_CUSTOM,  /* parse/dump/free callbacks; field: anything */
    CFG_IGNORED  /* accepted silently, not stored (ASTRA-sim's dead keys) */
} cfg_type;

struct cfg_opt;
typedef int (*cfg_parse_fn)(const cfg_jdoc *doc, const struct cfg_opt *o,
                            const json_t *v, void *field, cs_error *err);
/* Return NULL to leave the key out of the dump (value not set). */
typedef json_t *(*cfg_dump_fn)(const struct cfg_opt *o, const void *field);
typedef void (*cfg_free_fn)(void *field);

typedef struct cfg_opt {
    const char *key;            /* as in the file */
    cfg_type type;
    int required;               /* 1: a file must set it */
    double def;                 /* INT/NUM/BOOL default; ENUM: index */
    const char *def_str;        /* STR default (NULL = not set) */
    double min, max;            /* INT/NUM bounds (inclusive) */
    int min_open;               /* NUM: value must be > min */
    int nodef;                  /* no meaningful default: help says "(not set)" */
    const char *unit;           /* "ns", "GB/s", ... or NULL */
    const char *const *values;  /* ENUM: accepted strings, NULL-terminated */
    const char *help;
    size_t off;                 /* offsetof the field in the target struct */
    /* CFG_CUSTOM only */
    const char *type_text;      /* for help: "list of algorithms, one per dimension" */
    cfg_parse_fn parse;
    cfg_dump_fn dump;
    cfg_free_fn free_fn;
} cfg_opt;

/* Set every field to its default (the struct is assumed uninitialised or
 * already freed; CUSTOM fields are zeroed). */
void cfg_opts_defaults(const cfg_opt *t, size_t n, void *base);
/* Parse doc into base (which must hold defaults): unknown keys warn, wrong
 * values and missing required keys are CS_EINVAL.  lines (n entries, may be
 * NULL) receives each option's key line, 0 when absent from the file. */
int cfg_opts_parse(const cfg_jdoc *doc, const cfg_opt *t, size_t n, void *base,
                   int *lines, cs_error *err);
void cfg_opts_free(const cfg_opt *t, size_t n, void *base);
/* Effective values, keys as in the file. */
json_t *cfg_opts_to_json(const cfg_opt *t, size_t n, const void *base);
/* {"key": "unit", ...} for the keys that have a unit. */
json_t *cfg_opts_units_json(const cfg_opt *t, size_t n);
void cfg_opts_print_help(FILE *f, const cfg_opt *t, size_t n);

/* "expected ..." text of an option, e.g. "an integer >= 1", "one of LIFO,
 * FIFO, EXPLICIT" (no unit). */
void cfg_opt_expected(const cfg_opt *o, char *buf, size_t n);

#endif
