/*
 * rand.h -- the one pseudo-random mixer of the project: splitmix64 (Steele,
 * Lea, Flood 2014), as a hash of a 64-bit value and as a stream.  Every
 * random choice (ECMP hashing, random placement, compute jitter, sweep
 * samples, ECN marks and packet losses) draws from it, seeded by the user,
 * so the same inputs give the same outputs on every machine.
 */
#ifndef CS_CORE_RAND_H
#define CS_CORE_RAND_H

#include <stdint.h>

/* splitmix64 of x: a well-mixed 64-bit hash. */
static inline uint64_t cs_mix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* The next value of the splitmix64 stream whose state is *s. */
static inline uint64_t cs_rand_next(uint64_t *s) {
    uint64_t r = cs_mix64(*s);
    *s += 0x9e3779b97f4a7c15ULL;
    return r;
}

/* A uniform double in [0, 1) from the top 53 bits of r. */
static inline double cs_rand_unit(uint64_t r) { return (double)(r >> 11) * 0x1.0p-53; }

#endif
