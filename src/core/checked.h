/*
 * checked.h -- unsigned integer arithmetic that reports overflow instead of
 * wrapping.
 *
 * Counts and sizes that come from users (plan degrees, batch sizes, node
 * counts of a topology file) are multiplied before anything is allocated or
 * divided; a product that wraps turns into a silent wrong answer, a division
 * by zero or a huge allocation.  These helpers return 1 on overflow (the
 * result is then the saturated maximum), 0 otherwise, so a caller can refuse
 * the input by name.  Simulated time has its own saturating helpers
 * (core/time.h).
 */
#ifndef CS_CORE_CHECKED_H
#define CS_CORE_CHECKED_H

#include <stdint.h>

/* *out = a * b; 1 (and *out = UINT64_MAX) when it does not fit 64 bits. */
static inline int cs_mul_u64(uint64_t a, uint64_t b, uint64_t *out) {
    if (__builtin_mul_overflow(a, b, out)) {
        *out = UINT64_MAX;
        return 1;
    }
    return 0;
}

/* *out = a + b; 1 (and *out = UINT64_MAX) when it does not fit 64 bits. */
static inline int cs_add_u64(uint64_t a, uint64_t b, uint64_t *out) {
    if (__builtin_add_overflow(a, b, out)) {
        *out = UINT64_MAX;
        return 1;
    }
    return 0;
}

/* a + b, saturating at UINT64_MAX. */
static inline uint64_t cs_add_u64_sat(uint64_t a, uint64_t b) {
    uint64_t r;
    cs_add_u64(a, b, &r);
    return r;
}

/* a * b, saturating at UINT64_MAX. */
static inline uint64_t cs_mul_u64_sat(uint64_t a, uint64_t b) {
    uint64_t r;
    cs_mul_u64(a, b, &r);
    return r;
}

#endif
