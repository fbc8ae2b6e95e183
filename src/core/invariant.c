/*
 * invariant.c -- the report of a violated invariant (see invariant.h).
 * Compiled in every build (a build without CS_INVARIANTS never calls it).
 */
#include "core/invariant.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"

void cs_invariant_fail(const char *file, int line, const char *cond, const char *fmt, ...) {
    fflush(stdout);
    fprintf(stderr, "clustersim: invariant violated at %s:%d: %s: ", cs_src_path(file), line, cond);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(" (a clustersim bug; please report it with the command line)\n", stderr);
    fflush(stderr);
    abort();
}
