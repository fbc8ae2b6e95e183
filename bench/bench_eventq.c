/*
 * bench_eventq.c -- hold-model benchmark of the event queue (src/core/eventq.h).
 *
 * The classic "hold" model: prefill the queue with N events at random times,
 * then repeat M times: pop the minimum, push a new event at the popped time
 * plus a random increment.  The queue size stays N, so the cost per hold
 * (one pop + one push) shows how the queue scales with the number of pending
 * events.  Increments are exponential with mean 1 us, drawn from a fixed-seed
 * xorshift generator into a 64 Ki-entry table before timing, so the timed
 * loop measures the queue rather than log().  Each size runs a warm-up of
 * min(N, M) holds (so the queue reaches its steady-state time distribution),
 * then three timed repetitions of M holds; the median and the minimum are
 * reported.  Memory: the queue's bytes in use (cs_alloc_bytes_in_use) and the
 * process peak (cs_alloc_bytes_peak) after each size.
 *
 * Sizes: N = 1e2 .. 1e6, M = max(5e6, 10 N), so each repetition takes >= 0.2 s.
 * Usage: bench_eventq [--quick]    (--quick: N <= 1e5, M = max(1e5, N))
 * Output: a Markdown table on stdout (see docs/performance.md).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/alloc.h"
#include "core/eventq.h"

#define INC_TABLE (1u << 16)
#define REPS 3

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

/* xorshift64* */
static uint64_t rng_next(void) {
    uint64_t x = rng_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

/* Uniform in (0, 1): never 0, so log() is finite. */
static double rng_open01(void) { return ((double)(rng_next() >> 11) + 0.5) / 9007199254740992.0; }

static cs_time inc[INC_TABLE];

static void fill_increments(double mean_ps) {
    for (unsigned i = 0; i < INC_TABLE; i++) inc[i] = (cs_time)llround(-log(rng_open01()) * mean_ps);
}

static void nothing(void *ctx, const cs_event *ev) {
    (void)ctx;
    (void)ev;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* M holds on q; returns the sum of popped times (kept so the work is not
 * optimised away).  *k is the running key / table index. */
static uint64_t hold(cs_eventq *q, uint64_t m, uint64_t *k) {
    uint64_t sum = 0, key = *k;
    cs_event e;
    for (uint64_t i = 0; i < m; i++) {
        if (!cs_eventq_pop(q, &e)) abort();
        sum += e.time;
        cs_eventq_push(q, e.time + inc[key & (INC_TABLE - 1)], key, nothing, NULL, 0);
        key++;
    }
    *k = key;
    return sum;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int quick = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else {
            fprintf(stderr, "usage: %s [--quick]\n", argv[0]);
            return strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    static const uint64_t sizes[] = {100, 1000, 10000, 100000, 1000000};
    size_t nsizes = quick ? 4 : 5;

    fill_increments(1e6); /* mean increment 1 us = 10^6 ps */
    printf("| N (pending events) | M (holds per rep) | ns/hold (median of %d) | ns/hold (min) "
           "| queue bytes | bytes/event | process peak bytes |\n",
           REPS);
    printf("|---:|---:|---:|---:|---:|---:|---:|\n");
    uint64_t checksum = 0;
    for (size_t s = 0; s < nsizes; s++) {
        uint64_t n = sizes[s];
        uint64_t m = quick ? (n > 100000 ? n : 100000) : (10 * n > 5000000 ? 10 * n : 5000000);
        size_t base = cs_alloc_bytes_in_use();
        cs_eventq *q = cs_eventq_new();
        /* prefill: N events, each at time 0 + an independent random increment */
        uint64_t key = 0;
        for (uint64_t i = 0; i < n; i++)
            cs_eventq_push(q, inc[(rng_next() >> 20) & (INC_TABLE - 1)], key++, nothing, NULL, 0);
        checksum += hold(q, n < m ? n : m, &key); /* warm-up */
        double ns[REPS];
        for (int r = 0; r < REPS; r++) {
            double t0 = now_s();
            checksum += hold(q, m, &key);
            ns[r] = (now_s() - t0) * 1e9 / (double)m;
        }
        if (cs_eventq_size(q) != n) abort();
        size_t qbytes = cs_alloc_bytes_in_use() - base;
        cs_eventq_free(q);
        qsort(ns, REPS, sizeof ns[0], cmp_double);
        printf("| %llu | %llu | %.1f | %.1f | %zu | %.1f | %zu |\n", (unsigned long long)n,
               (unsigned long long)m, ns[REPS / 2], ns[0], qbytes, (double)qbytes / (double)n,
               cs_alloc_bytes_peak());
        fflush(stdout);
    }
    fprintf(stderr, "checksum %llu\n", (unsigned long long)checksum);
    return 0;
}
