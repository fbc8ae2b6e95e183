/*
 * log.c -- diagnostics on stderr with repeat suppression (see log.h).
 *
 * Repeats are detected on the message's "shape": its text with digits
 * removed, so "rank 7: ..." and "rank 8: ..." count as one warning.  Shapes are
 * kept in a small open-addressing table of hashes; once it is full, further
 * distinct shapes are still printed (never dropped silently).  A warning
 * whose text repeats exactly (e.g. one file's unknown key, read again by
 * every stage that checks it) is shown once and still counted (the counts
 * are results: a representative's warnings stand for its class's): a second
 * table holds the exact texts' hashes.
 */
#include "core/log.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define SHAPES 256
#define SHOW_PER_SHAPE 3
#define EXACTS 1024

static int g_level = CS_LOG_WARN;
static cs_log_sink g_sink;
static void *g_sink_ud;
static unsigned long g_warnings;
static struct {
    uint64_t hash;
    unsigned long count;
    char example[160];
} g_shapes[SHAPES];
static uint64_t g_exact[EXACTS]; /* hashes of warning texts seen (0 = free) */

void cs_log_set_level(int level) { g_level = level; }
int cs_log_level(void) { return g_level; }
void cs_log_set_sink(cs_log_sink sink, void *ud) {
    g_sink = sink;
    g_sink_ud = ud;
}

/* FNV-1a of the text, without its digits when shape (never 0: 0 marks a free slot). */
static uint64_t text_hash(const char *s, int shape) {
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++) {
        if (shape && isdigit((unsigned char)*s)) continue;
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h ? h : 1;
}

/* Whether this exact text was warned before (and note it if not; a full
 * table notes nothing and reports no repeat). */
static int seen_exact(const char *msg) {
    uint64_t h = text_hash(msg, 0);
    for (unsigned i = 0; i < EXACTS; i++) {
        unsigned k = (unsigned)((h + i) % EXACTS);
        if (g_exact[k] == h) return 1;
        if (g_exact[k] == 0) {
            g_exact[k] = h;
            return 0;
        }
    }
    return 0;
}

/* Returns the repeat count of this shape including this one (0 = table full). */
static unsigned long note_shape(const char *msg) {
    uint64_t h = text_hash(msg, 1);
    for (unsigned i = 0; i < SHAPES; i++) {
        unsigned k = (unsigned)((h + i) % SHAPES);
        if (g_shapes[k].hash == h) return ++g_shapes[k].count;
        if (g_shapes[k].hash == 0) {
            g_shapes[k].hash = h;
            g_shapes[k].count = 1;
            size_t n = strlen(msg);
            if (n > sizeof g_shapes[k].example - 1) n = sizeof g_shapes[k].example - 1;
            memcpy(g_shapes[k].example, msg, n);
            g_shapes[k].example[n] = '\0';
            return 1;
        }
    }
    return 0;
}

void cs_log(int level, const char *fmt, ...) {
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (level == CS_LOG_WARN) {
        g_warnings++;
        if (seen_exact(msg)) return; /* counted, not shown again */
        unsigned long n = note_shape(msg);
        if (n > SHOW_PER_SHAPE) return;
    }
    if (level > g_level) return;
    if (g_sink) {
        g_sink(level, msg, g_sink_ud);
        return;
    }
    static const char *const tag[] = {"error", "warning", "info", "debug"};
    fprintf(stderr, "clustersim: %s: %s\n", tag[level < 0 ? 0 : (level > 3 ? 3 : level)], msg);
}

unsigned long cs_log_warning_count(void) { return g_warnings; }

void cs_log_flush_summary(void) {
    if (g_level < CS_LOG_WARN) return;
    for (unsigned k = 0; k < SHAPES; k++) {
        if (g_shapes[k].hash && g_shapes[k].count > SHOW_PER_SHAPE) {
            char msg[400];
            snprintf(msg, sizeof msg, "%lu more warnings like: %s",
                     g_shapes[k].count - SHOW_PER_SHAPE, g_shapes[k].example);
            if (g_sink)
                g_sink(CS_LOG_WARN, msg, g_sink_ud);
            else
                fprintf(stderr, "clustersim: warning: %s\n", msg);
            g_shapes[k].count = SHOW_PER_SHAPE; /* report once */
        }
    }
}

void cs_log_reset(void) {
    memset(g_shapes, 0, sizeof g_shapes);
    memset(g_exact, 0, sizeof g_exact);
    g_warnings = 0;
}
