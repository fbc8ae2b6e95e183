/*
 * opts.h -- the option-table engine and the JSON-with-lines reader, shared by
 * every layer that declares options (config readers, topology builders,
 * network backends, model families, the scenario namespace).
 *
 * Three pieces (opts.c, jdoc.c, textutil.c):
 *   - file reading and value formatting for messages ("got ..." parts);
 *   - cs_jdoc: a JSON file parsed by jansson plus a line index.  jansson
 *     keeps no positions for values, so after jansson has accepted the text we
 *     walk the raw bytes once more with a tiny scanner and record, for every
 *     top-level key, the line of the key and the line of each element when the
 *     value is a list.  Messages then say "file:line: key: expected ..., got ...";
 *   - cs_opt: the option-table engine.  A reader declares every key once (key,
 *     type, default, bounds, unit, accepted values, help, struct offset) and
 *     the engine drives parsing, validation, defaults, the effective-config
 *     dump and --help from that one table (STYLE.md habit 12).
 *
 * Ownership: a cs_jdoc owns its jansson root and its index; the option
 * engine writes into a caller-owned struct and strdup's strings with cs_strdup
 * (freed by cs_opts_free).
 */
#ifndef CS_CORE_OPTS_H
#define CS_CORE_OPTS_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "core/error.h"

/* ---- files and formatting ------------------------------------------- */

/* Largest configuration file read (64 MiB): every reader of a text input
 * (JSON through cs_jdoc, the network YAML, topology, model and device files)
 * refuses a bigger one before reading it (docs/config.md). */
#define CS_CONFIG_MAX_BYTES ((size_t)64 << 20)

/* Read a whole configuration file, NUL-terminated (*len excludes the NUL).
 * Only a regular file of at most CS_CONFIG_MAX_BYTES is read: a device
 * (/dev/zero), FIFO, socket or directory is refused before any byte is read
 * (a FIFO is opened without blocking), and so is a bigger file.  CS_EIO with
 * "path: cannot read: <reason>" when it cannot be opened or read, or is the
 * wrong kind of file or too big ("expected a regular file, got ...",
 * "the file is N bytes, expected at most 67108864 bytes ..."). */
int cs_read_file(const char *path, char **buf, size_t *len, cs_error *err);

/* Copy user text s into buf for a message: control characters become \n,
 * \t, \xHH, and text beyond max bytes is cut with "...".  Returns buf. */
const char *cs_escape(const char *s, size_t max, char *buf, size_t n);

/* Length of the valid UTF-8 sequence at s (1-4; 1 for the NUL ending s), 0
 * when the bytes there are not UTF-8 (overlong, a surrogate, past U+10FFFF,
 * cut short). */
size_t cs_utf8_seq(const unsigned char *s);

/* A JSON string of s (NULL: ""), its bytes that are not UTF-8 each U+FFFD:
 * for text from outside (paths, trace strings, messages quoting them) going
 * into a result, where json_string would return NULL and the key be lost. */
json_t *cs_json_string_lossy(const char *s);

/* Shortest "%g" form of d that reads back as the same double. */
void cs_fmt_double(char *buf, size_t n, double d);

/* Human form of a JSON value for the "got ..." part of a message:
 * "abc" (quoted, truncated), 12, 2.5, true, null, a list of 3 entries,
 * an object. */
void cs_json_repr(const json_t *v, char *buf, size_t n);

/* Strict number parsing of text (YAML scalars, group names).
 * cs_parse_double: decimal/exponent notation only (no hex, inf, nan), whole
 * string consumed.  cs_parse_ll: an integer, or a number whose value is
 * integral (8.0); 0 on success, -1 on failure. */
int cs_parse_double(const char *s, double *out);
int cs_parse_ll(const char *s, long long *out);
/* "A" or "A-B" (decimal, no sign) at s: *a, *b (= *a for "A") and *end just
 * after; 0 on success, -1 when s does not start with one. */
int cs_parse_rank_range(const char *s, const char **end, unsigned long long *a, unsigned long long *b);
/* The index of s among list[0..n), or -1 when it is none of them. */
int cs_str_index(const char *s, const char *const *list, size_t n);
/* Path p as a file names it: absolute as is, else relative to file's directory (new, owned). */
char *cs_path_near(const char *file, const char *p);

/* A JSON number that is an integer or an integral real -> *out; 0 or -1. */
int cs_json_ll(const json_t *v, long long *out);

/* Warn "path:line: unknown key "k" ignored (did you mean "x"?)"; known is a
 * list of accepted keys used for the suggestion (may be NULL). */
void cs_warn_unknown_key(const char *path, int line, const char *key,
                          const char *const *known, size_t nknown);

/* ---- JSON document with line index ---------------------------------- */

typedef struct cs_jmember {
    char *key;       /* decoded key */
    int key_line;    /* 1-based line of the key */
    size_t nelem;    /* number of elements when the value is a list, else 0 */
    int *elem_lines; /* nelem lines (NULL when nelem == 0) */
} cs_jmember;

typedef struct cs_jdoc {
    char *path;        /* as given */
    json_t *root;      /* top-level object (owned) */
    int root_line;     /* line of the opening '{' */
    cs_jmember *m;    /* members in file order */
    size_t nm;
} cs_jdoc;

/* Load path as JSON (duplicate keys rejected) whose top level must be an
 * object, and index it.  `what` names the file kind for messages
 * ("system configuration"). */
int cs_jdoc_load(const char *path, const char *what, cs_jdoc *doc, cs_error *err);
/* The same from text already in memory (len bytes; path labels messages). */
int cs_jdoc_load_text(const char *path, const char *buf, size_t len, const char *what, cs_jdoc *doc,
                      cs_error *err);
void cs_jdoc_free(cs_jdoc *doc);
/* Line of key (root_line when unknown to the index). */
int cs_jdoc_key_line(const cs_jdoc *doc, const char *key);
/* Line of element i of the list under key (key line when not indexed). */
int cs_jdoc_elem_line(const cs_jdoc *doc, const char *key, size_t i);

/* ---- the option-table engine ---------------------------------------- */

typedef enum cs_opt_type {
    CS_OPT_ENUM,    /* string from `values`; field: int (an enum) = index */
    CS_OPT_INT,     /* integer in [min, max]; field: int */
    CS_OPT_NUM,     /* number, >= min (or > min when min_open), <= max; field: double */
    CS_OPT_BOOL,    /* 0, 1, true, false; field: bool */
    CS_OPT_STR,     /* string; field: char * (owned; NULL = not set) */
    CS_OPT_CUSTOM,  /* parse/dump/free callbacks; field: anything */
    CS_OPT_IGNORED  /* accepted silently, not stored (ASTRA-sim's dead keys) */
} cs_opt_type;

struct cs_opt;
typedef int (*cs_opt_parse_fn)(const cs_jdoc *doc, const struct cs_opt *o,
                            const json_t *v, void *field, cs_error *err);
/* Return NULL to leave the key out of the dump (value not set). */
typedef json_t *(*cs_opt_dump_fn)(const struct cs_opt *o, const void *field);
typedef void (*cs_opt_free_fn)(void *field);

typedef struct cs_opt {
    const char *key;            /* as in the file */
    cs_opt_type type;
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
    /* CS_OPT_CUSTOM only */
    const char *type_text;      /* for help: "list of algorithms, one per dimension" */
    cs_opt_parse_fn parse;
    cs_opt_dump_fn dump;
    cs_opt_free_fn free_fn;
} cs_opt;

/* Set every field to its default (the struct is assumed uninitialised or
 * already freed; CUSTOM fields are zeroed). */
void cs_opts_defaults(const cs_opt *t, size_t n, void *base);
/* Parse doc into base (which must hold defaults): unknown keys warn, wrong
 * values and missing required keys are CS_EINVAL.  lines (n entries, may be
 * NULL) receives each option's key line, 0 when absent from the file. */
int cs_opts_parse(const cs_jdoc *doc, const cs_opt *t, size_t n, void *base,
                   int *lines, cs_error *err);
void cs_opts_free(const cs_opt *t, size_t n, void *base);
/* Effective values, keys as in the file. */
json_t *cs_opts_to_json(const cs_opt *t, size_t n, const void *base);
/* {"key": "unit", ...} for the keys that have a unit. */
json_t *cs_opts_units_json(const cs_opt *t, size_t n);
void cs_opts_print_help(FILE *f, const cs_opt *t, size_t n);

/* "expected ..." text of an option, e.g. "an integer >= 1", "one of LIFO,
 * FIFO, EXPLICIT" (no unit). */
void cs_opt_expected(const cs_opt *o, char *buf, size_t n);

/* A bandwidth key (GB/s, read as 1 byte per ns) at path:line must be at
 * least CS_GBPS_MIN (core/units.h: one byte within the simulated-time
 * range); CS_EINVAL naming file, line and key otherwise. */
int cs_check_min_gbps(const char *path, int line, const char *key, double gbps, cs_error *err);

#endif
