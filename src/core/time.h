/*
 * time.h -- simulated time.
 *
 * Simulated time is an unsigned 64-bit count of picoseconds (cs_time): ~213
 * days of simulated time, far beyond any training step.  Integer time keeps
 * the event core exact and runs bit-for-bit reproducible; floating point is
 * used only at the edges (reading bandwidths from config, printing reports).
 * Helpers are named for their unit so a conversion is visible where it happens.
 *
 * The range.  A duration computed from user input (bytes over a bandwidth, a
 * latency, FLOPs over a peak) can exceed it.  Conversions and sums saturate
 * at CS_TIME_MAX, which is therefore not a time but the mark of one that did
 * not fit (cs_time_beyond): the layer that computed it refuses the run with a
 * located error ("... exceeds " CS_TIME_RANGE_TEXT, naming what), never
 * wraps and never reports a capped time as a result.  Configuration readers
 * refuse values that cannot fit at all (a latency beyond the range).
 */
#ifndef CS_CORE_TIME_H
#define CS_CORE_TIME_H

#include <stdint.h>

typedef uint64_t cs_time; /* picoseconds */

#define CS_TIME_MAX UINT64_MAX
/* What messages call the range of cs_time, for a duration that does not fit. */
#define CS_TIME_RANGE_TEXT "the simulated-time range of 2^64 ps (213 days)"
/* The largest whole nanoseconds and microseconds that fit
 * (18446744073709551 ns, 18446744073709 us). */
#define CS_TIME_MAX_NS (CS_TIME_MAX / 1000ULL)
#define CS_TIME_MAX_US (CS_TIME_MAX / 1000000ULL)
/* The range in ns as a double, for checking floating-point durations. */
#define CS_TIME_MAX_NS_F 18446744073709551.615
#define CS_PS_PER_NS 1000ULL
#define CS_PS_PER_US 1000000ULL
#define CS_PS_PER_MS 1000000000ULL
#define CS_PS_PER_S 1000000000000ULL

static inline cs_time cs_time_from_ps(uint64_t ps) { return ps; }
static inline cs_time cs_time_from_ns(uint64_t ns) { return ns * CS_PS_PER_NS; }
static inline cs_time cs_time_from_us(uint64_t us) { return us * CS_PS_PER_US; }
static inline cs_time cs_time_from_ms(uint64_t ms) { return ms * CS_PS_PER_MS; }

/* Truncating conversions (whole units elapsed). */
static inline uint64_t cs_time_as_ns(cs_time t) { return t / CS_PS_PER_NS; }
static inline uint64_t cs_time_as_us(cs_time t) { return t / CS_PS_PER_US; }

/* Floating-point views, for reports only. */
static inline double cs_time_as_ns_f(cs_time t) { return (double)t / 1e3; }
static inline double cs_time_as_us_f(cs_time t) { return (double)t / 1e6; }
static inline double cs_time_as_ms_f(cs_time t) { return (double)t / 1e9; }
static inline double cs_time_as_s_f(cs_time t) { return (double)t / 1e12; }

/* Whether t is the mark of a time beyond the range (see above). */
static inline int cs_time_beyond(cs_time t) { return t == CS_TIME_MAX; }

/* Saturating conversions of whole units (CS_TIME_MAX when beyond). */
static inline cs_time cs_time_from_ns_sat(uint64_t ns) {
    return ns > CS_TIME_MAX_NS ? CS_TIME_MAX : ns * CS_PS_PER_NS;
}
static inline cs_time cs_time_from_us_sat(uint64_t us) {
    return us > CS_TIME_MAX_US ? CS_TIME_MAX : us * CS_PS_PER_US;
}

/* From a (non-negative, finite) floating-point nanosecond count, rounded to the
 * nearest picosecond; saturates at CS_TIME_MAX. */
cs_time cs_time_from_ns_f(double ns);
/* From a floating-point nanosecond count truncated to whole nanoseconds (how
 * ASTRA-sim rounds link and compute times): 0 when ns <= 0; CS_TIME_MAX when
 * it does not fit, is infinite or NaN.  Inline: it runs once per message. */
static inline cs_time cs_time_from_whole_ns_f(double ns) {
    if (ns != ns) return CS_TIME_MAX; /* NaN: no time at all */
    if (!(ns > 0.0)) return 0;
    if (!(ns < CS_TIME_MAX_NS_F)) return CS_TIME_MAX; /* also infinity; the cast below is defined */
    /* ns is positive and finite here: the conversion truncates, which is
     * floor() without a libm call */
    return cs_time_from_ns_sat((uint64_t)ns);
}

/* Saturating add: time never wraps. */
static inline cs_time cs_time_add(cs_time a, cs_time b) {
    return (a > CS_TIME_MAX - b) ? CS_TIME_MAX : a + b;
}

/* Format t with an adaptive unit ("1.234 ms") into buf; returns buf. */
const char *cs_time_fmt(cs_time t, char *buf, unsigned bufsize);

/* Host time for reports of how long a run took (never simulated time):
 * the monotonic clock and this process's CPU time, in seconds. */
double cs_host_wall_s(void);
double cs_host_cpu_s(void);

#endif
