/*
 * error.h -- located error reports.
 *
 * Every fallible function in clustersim returns an int status (CS_OK = 0, a
 * negative CS_E* code otherwise) and fills a caller-owned cs_error with a
 * human-readable message.  User-facing messages carry the *user's* location
 * (file:line: field: what was expected); the C source location that raised
 * the error is kept separately (src_file/src_line) for --verbose output and
 * bug reports.  cs_error is a plain value: no allocation, no cleanup.
 *
 * A report longer than the message (the deadlock report: the cycle of
 * waits, its victims, the remedy) is attached as a detail text: msg stays
 * one short, complete line and the CLI prints the detail under it.  The
 * process keeps one detail, the latest attached (an error names it by a
 * serial number, so a copy of the error still finds it and an older error
 * never shows a newer one's); cs_error stays a plain value.
 */
#ifndef CS_CORE_ERROR_H
#define CS_CORE_ERROR_H

#include <stdarg.h>

enum {
    CS_OK = 0,
    CS_EINVAL = -1,       /* bad user input (config value, CLI flag, trace content) */
    CS_EIO = -2,          /* file missing / unreadable / write failed */
    CS_EFORMAT = -3,      /* malformed file (truncated, garbled, not a trace) */
    CS_EUNSUPPORTED = -4, /* valid input we do not (yet) simulate */
    CS_ENOMEM = -5,       /* allocation failed */
    CS_EDEADLOCK = -6,    /* simulation stopped with work outstanding */
    CS_EINTERNAL = -7,    /* invariant broken: a clustersim bug */
    CS_EINTR = -8         /* the run was stopped (SIGINT/SIGTERM, cs_engine_options.stop) */
};

#define CS_ERROR_MSG_MAX 1024

typedef struct cs_error {
    int code;                   /* CS_OK or a CS_E* value */
    char msg[CS_ERROR_MSG_MAX]; /* user-facing, already includes user location */
    const char *src_file;       /* C source that raised it */
    int src_line;
    unsigned detail;            /* serial number of the attached detail text (0 = none) */
} cs_error;

/* Reset to "no error". */
void cs_error_clear(cs_error *err);

/* Record an error; returns code so callers can `return CS_ERR(...)`.
 * err may be NULL (the message is dropped). The first error wins: a second
 * call on an error already set appends nothing and keeps the original. */
int cs_error_set(cs_error *err, int code, const char *src_file, int src_line,
                 const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
int cs_error_vset(cs_error *err, int code, const char *src_file, int src_line,
                  const char *fmt, va_list ap);

/* Prefix an existing message with more context ("while reading X: ..."). */
void cs_error_prefix(cs_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Attach a detail text (several lines, no length limit) to an error set
 * before; it replaces the detail any earlier error had (which then has
 * none).  No effect when err is NULL or holds no error. */
void cs_error_set_detail(cs_error *err, const char *text);
/* The detail attached to err, or NULL. */
const char *cs_error_detail(const cs_error *err);

/* Name of a code, e.g. "invalid input". */
const char *cs_error_code_name(int code);

/* A C source path as __FILE__ gives it, relative to the source tree
 * ("src/core/alloc.c") when it lies inside it, else unchanged. */
const char *cs_src_path(const char *file);

#define CS_ERR(err, code, ...) cs_error_set((err), (code), __FILE__, __LINE__, __VA_ARGS__)

#endif
