/*
 * log.h -- diagnostics on stderr.
 *
 * Warnings are for input that is accepted but suspicious (an unknown config
 * key, a control dependency on a node absent from the trace).  Each distinct
 * shape of warning (its text with digits ignored) is printed at most three
 * times per process; cs_log_flush_summary() prints how many more there were, so a million-rank run cannot flood the
 * terminal.  A text repeated exactly is shown once (and counted every time).  Verbosity: 0 = errors only, 1 = warnings (default), 2 = info,
 * 3 = debug.  Tests can capture messages by installing a sink.
 */
#ifndef CS_CORE_LOG_H
#define CS_CORE_LOG_H

enum { CS_LOG_ERROR = 0, CS_LOG_WARN = 1, CS_LOG_INFO = 2, CS_LOG_DEBUG = 3 };

typedef void (*cs_log_sink)(int level, const char *msg, void *ud);

void cs_log_set_level(int level);
int cs_log_level(void);
/* Replace the stderr sink (NULL restores it). */
void cs_log_set_sink(cs_log_sink sink, void *ud);

void cs_log(int level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
#define cs_warn(...) cs_log(CS_LOG_WARN, __VA_ARGS__)
#define cs_info(...) cs_log(CS_LOG_INFO, __VA_ARGS__)
#define cs_debug(...) cs_log(CS_LOG_DEBUG, __VA_ARGS__)

/* Number of warnings emitted so far (including suppressed repeats). */
unsigned long cs_log_warning_count(void);
/* Print "N similar warnings suppressed" lines; call once before exit. */
void cs_log_flush_summary(void);
/* Forget everything (tests). */
void cs_log_reset(void);

#endif
