/*
 * alloc.c -- counting allocator wrapper (see alloc.h).
 *
 * Each block carries a 16-byte header holding its size (16 keeps the payload
 * aligned for any type).  Counters are plain globals: clustersim is
 * single-threaded per process; parallel runs use processes.
 */
#include "core/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HDR 16

static size_t g_in_use;
static size_t g_peak;

static void oom(size_t size) {
    fprintf(stderr,
            "clustersim: out of memory: could not allocate %zu bytes "
            "(%zu bytes in use, peak %zu)\n",
            size, g_in_use, g_peak);
    exit(3);
}

static void *account(unsigned char *raw, size_t size) {
    memcpy(raw, &size, sizeof size);
    g_in_use += size;
    if (g_in_use > g_peak) g_peak = g_in_use;
    return raw + HDR;
}

void *cs_malloc(size_t size) {
    if (size > SIZE_MAX - HDR) oom(size);
    unsigned char *raw = malloc(size + HDR);
    if (!raw) oom(size);
    return account(raw, size);
}

void *cs_calloc(size_t n, size_t size) {
    if (size && n > (SIZE_MAX - HDR) / size) oom(SIZE_MAX);
    size_t total = n * size;
    unsigned char *raw = calloc(1, total + HDR);
    if (!raw) oom(total);
    return account(raw, total);
}

void *cs_realloc(void *ptr, size_t size) {
    if (!ptr) return cs_malloc(size);
    if (size > SIZE_MAX - HDR) oom(size);
    unsigned char *raw = (unsigned char *)ptr - HDR;
    size_t old;
    memcpy(&old, raw, sizeof old);
    unsigned char *nraw = realloc(raw, size + HDR);
    if (!nraw) oom(size);
    g_in_use -= old;
    return account(nraw, size);
}

void cs_free(void *ptr) {
    if (!ptr) return;
    unsigned char *raw = (unsigned char *)ptr - HDR;
    size_t old;
    memcpy(&old, raw, sizeof old);
    g_in_use -= old;
    free(raw);
}

char *cs_strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = cs_malloc(n);
    memcpy(d, s, n);
    return d;
}

void cs_grow(void **arr, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return;
    size_t ncap = *cap ? *cap : 8;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2 / elem) oom(SIZE_MAX);
        ncap *= 2;
    }
    *arr = cs_realloc(*arr, ncap * elem);
    *cap = ncap;
}

size_t cs_alloc_bytes_in_use(void) { return g_in_use; }
size_t cs_alloc_bytes_peak(void) { return g_peak; }
