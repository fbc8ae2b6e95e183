/*
 * alloc.h -- the one allocator wrapper.
 *
 * All heap memory in clustersim goes through cs_malloc/cs_calloc/cs_realloc/
 * cs_free so that the bytes in use and the peak are known (reported in
 * summary.json and checked by the scale benchmarks).  Exhaustion is not a
 * recoverable condition for a simulator: the wrapper prints how much was asked
 * for and how much is in use, then exits with status 3 (like Redis' zmalloc).
 * Sizes are tracked with a small header in front of each block.
 */
#ifndef CS_CORE_ALLOC_H
#define CS_CORE_ALLOC_H

#include <stddef.h>
#include <stdint.h>

void *cs_malloc(size_t size);
void *cs_calloc(size_t n, size_t size);
void *cs_realloc(void *ptr, size_t size);
void cs_free(void *ptr);
char *cs_strdup(const char *s);

/* Grow *arr (element size elem) so that it can hold at least need elements;
 * capacity doubles. */
void cs_grow(void **arr, size_t *cap, size_t need, size_t elem);
#define CS_GROW(arr, cap, need) cs_grow((void **)&(arr), &(cap), (need), sizeof *(arr))

size_t cs_alloc_bytes_in_use(void);
size_t cs_alloc_bytes_peak(void);

#endif
