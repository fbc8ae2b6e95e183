/*
 * time.c -- simulated-time helpers that are not inline (see time.h).
 */
#include "core/time.h"

#include <math.h>
#include <stdio.h>
#include <time.h>

cs_time cs_time_from_ns_f(double ns) {
    if (!(ns > 0.0)) return 0; /* also catches NaN */
    double ps = nearbyint(ns * 1e3);
    if (ps >= 18446744073709551615.0) return CS_TIME_MAX;
    return (cs_time)ps;
}

/* t / d rounded half up, without overflow near CS_TIME_MAX. */
static uint64_t div_round(uint64_t t, uint64_t d) {
    return t / d + ((t % d) >= d - d / 2 ? 1 : 0);
}

/* Exact integer formatting: the value in the chosen unit is rounded to three
 * decimals (half up), and the unit moves up when that rounding reaches 1000,
 * so 999999999 ps prints "1.000 ms", never "1000.000 us". */
const char *cs_time_fmt(cs_time t, char *buf, unsigned bufsize) {
    static const struct {
        uint64_t milli_ps; /* one thousandth of the unit, in ps */
        const char *name;
    } units[] = {{1, "ns"}, {CS_PS_PER_NS, "us"}, {CS_PS_PER_US, "ms"}, {CS_PS_PER_MS, "s"}};
    unsigned u = 0;
    while (u < 3 && t >= units[u + 1].milli_ps * 1000) u++; /* at least 1 of unit u */
    uint64_t r = div_round(t, units[u].milli_ps);           /* thousandths of unit u */
    if (u < 3 && r >= 1000000) r = div_round(t, units[++u].milli_ps);
    snprintf(buf, bufsize, "%llu.%03u %s", (unsigned long long)(r / 1000), (unsigned)(r % 1000),
             units[u].name);
    return buf;
}

double cs_host_wall_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

double cs_host_cpu_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}
