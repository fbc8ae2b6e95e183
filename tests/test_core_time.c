/*
 * test_core_time.c -- unit tests for simulated time (src/core/time.h).
 *
 * Every expected value is worked out by hand from the definition "cs_time is
 * a count of picoseconds": 1 ns = 10^3 ps, 1 us = 10^6 ps, 1 ms = 10^9 ps,
 * 1 s = 10^12 ps, UINT64_MAX ps = 18446744.073709551615 s.
 */
#include "testutil.h"

#include <math.h>
#include <string.h>

#include "core/time.h"

static void test_unit_constants(void **state) {
    (void)state;
    assert_int_equal(CS_PS_PER_NS, 1000ULL);
    assert_int_equal(CS_PS_PER_US, 1000000ULL);
    assert_int_equal(CS_PS_PER_MS, 1000000000ULL);
    assert_int_equal(CS_PS_PER_S, 1000000000000ULL);
    assert_true(CS_TIME_MAX == 18446744073709551615ULL);
}

static void test_from_integer_units(void **state) {
    (void)state;
    assert_int_equal(cs_time_from_ps(0), 0);
    assert_int_equal(cs_time_from_ps(7), 7);
    assert_int_equal(cs_time_from_ns(0), 0);
    assert_int_equal(cs_time_from_ns(1), 1000ULL);
    assert_int_equal(cs_time_from_ns(42), 42000ULL);
    assert_int_equal(cs_time_from_us(3), 3000000ULL);
    assert_int_equal(cs_time_from_us(1500), 1500000000ULL);
    assert_int_equal(cs_time_from_ms(2), 2000000000ULL);
    /* 10^6 ms = 1000 s = 10^15 ps */
    assert_int_equal(cs_time_from_ms(1000000), 1000000000000000ULL);
    /* The largest whole-ms value that fits: floor((2^64-1) / 10^9) = 18446744073 ms. */
    assert_int_equal(cs_time_from_ms(18446744073ULL), 18446744073000000000ULL);
    /* Units compose: 1 ms = 1000 us = 10^6 ns. */
    assert_int_equal(cs_time_from_ms(1), cs_time_from_us(1000));
    assert_int_equal(cs_time_from_us(1), cs_time_from_ns(1000));
}

static void test_truncating_views(void **state) {
    (void)state;
    assert_int_equal(cs_time_as_ns(0), 0);
    assert_int_equal(cs_time_as_ns(999), 0);       /* 0.999 ns -> 0 */
    assert_int_equal(cs_time_as_ns(1000), 1);
    assert_int_equal(cs_time_as_ns(1999), 1);      /* 1.999 ns -> 1, not 2 */
    assert_int_equal(cs_time_as_ns(123456789), 123456);
    assert_int_equal(cs_time_as_us(999999), 0);    /* 0.999999 us -> 0 */
    assert_int_equal(cs_time_as_us(1000000), 1);
    assert_int_equal(cs_time_as_us(2999999), 2);
    assert_int_equal(cs_time_as_us(CS_TIME_MAX), 18446744073709ULL);
    assert_int_equal(cs_time_as_ns(CS_TIME_MAX), 18446744073709551ULL);
    /* Round trip through a coarser unit loses only the remainder. */
    cs_time t = 7654321;
    assert_int_equal(cs_time_from_ns(cs_time_as_ns(t)), 7654000);
}

static void test_float_views(void **state) {
    (void)state;
    assert_true(cs_time_as_ns_f(1500) == 1.5);
    assert_true(cs_time_as_us_f(2500000) == 2.5);
    assert_true(cs_time_as_ms_f(250000000) == 0.25);
    assert_true(cs_time_as_s_f(3000000000000ULL) == 3.0);
    assert_true(cs_time_as_s_f(0) == 0.0);
}

static void test_from_ns_f_exact_and_rounding(void **state) {
    (void)state;
    assert_int_equal(cs_time_from_ns_f(0.0), 0);
    assert_int_equal(cs_time_from_ns_f(1.0), 1000);
    assert_int_equal(cs_time_from_ns_f(1.5), 1500);
    assert_int_equal(cs_time_from_ns_f(0.25), 250);
    /* Nearest picosecond, not truncation: 0.0004 ns = 0.4 ps -> 0, 0.0006 ns
     * = 0.6 ps -> 1, 2.4996 ns = 2499.6 ps -> 2500, 2.4994 ns -> 2499. */
    assert_int_equal(cs_time_from_ns_f(0.0004), 0);
    assert_int_equal(cs_time_from_ns_f(0.0006), 1);
    assert_int_equal(cs_time_from_ns_f(2.4996), 2500);
    assert_int_equal(cs_time_from_ns_f(2.4994), 2499);
    assert_int_equal(cs_time_from_ns_f(0.9999), 1000); /* 999.9 ps -> 1000 */
    /* An exact binary tie (1/16 ns = 62.5 ps) lands on one of its neighbours. */
    cs_time tie = cs_time_from_ns_f(0.0625);
    assert_true(tie == 62 || tie == 63);
    /* Large but representable: 2^53 ns = 9007199254740992000 ps exactly. */
    assert_true(cs_time_from_ns_f(9007199254740992.0) == 9007199254740992000ULL);
}

static void test_from_ns_f_bad_inputs(void **state) {
    (void)state;
    assert_int_equal(cs_time_from_ns_f(NAN), 0);
    assert_int_equal(cs_time_from_ns_f(-NAN), 0);
    assert_int_equal(cs_time_from_ns_f(-1.0), 0);
    assert_int_equal(cs_time_from_ns_f(-0.0), 0);
    assert_int_equal(cs_time_from_ns_f(-1e300), 0);
    assert_int_equal(cs_time_from_ns_f(-INFINITY), 0);
}

static void test_from_ns_f_saturates(void **state) {
    (void)state;
    assert_true(cs_time_from_ns_f(INFINITY) == CS_TIME_MAX);
    assert_true(cs_time_from_ns_f(1e300) == CS_TIME_MAX);
    /* 2^64 ps = 18446744073709551.616 ns: the first value that cannot fit. */
    assert_true(cs_time_from_ns_f(18446744073709551.616) == CS_TIME_MAX);
    assert_true(cs_time_from_ns_f(1e17) == CS_TIME_MAX);
    /* 10^16 ns = 10^19 ps < 2^64 - 1 (about 1.8447e19): fits exactly. */
    assert_true(cs_time_from_ns_f(1e16) == 10000000000000000000ULL);
}

/* Whole-ns truncation (the backends' and the roofline's rounding) and the
 * saturating integer conversions: exact inside the range, CS_TIME_MAX (the
 * mark of a time beyond it) outside, never a wrapped value.  1e-300 GB/s
 * once gave 7,280 ns: (uint64_t) of 1e305 is undefined, and x 1000 wrapped. */
static void test_checked_conversions(void **state) {
    (void)state;
    assert_int_equal(cs_time_from_whole_ns_f(19531.25), 19531000);
    assert_int_equal(cs_time_from_whole_ns_f(0.999), 0);
    assert_int_equal(cs_time_from_whole_ns_f(-5), 0);
    assert_true(cs_time_from_whole_ns_f(NAN) == CS_TIME_MAX);
    assert_true(cs_time_from_whole_ns_f(INFINITY) == CS_TIME_MAX);
    assert_true(cs_time_from_whole_ns_f(1.95e305) == CS_TIME_MAX);
    assert_true(cs_time_from_whole_ns_f(1.8e17) == CS_TIME_MAX);
    assert_true(cs_time_from_whole_ns_f(18446744073709552.0) == CS_TIME_MAX);
    /* the largest double below 2^64 ps / 1000 fits */
    assert_true(cs_time_from_whole_ns_f(18446744073709548.0) == 18446744073709548000ULL);
    assert_true(cs_time_from_ns_sat(CS_TIME_MAX_NS) == CS_TIME_MAX_NS * 1000);
    assert_true(cs_time_from_ns_sat(CS_TIME_MAX_NS + 1) == CS_TIME_MAX);
    assert_true(cs_time_from_ns_sat(UINT64_MAX) == CS_TIME_MAX);
    assert_true(cs_time_from_us_sat(CS_TIME_MAX_US) == CS_TIME_MAX_US * 1000000);
    assert_true(cs_time_from_us_sat(CS_TIME_MAX_US + 1) == CS_TIME_MAX);
    assert_true(cs_time_beyond(CS_TIME_MAX));
    assert_false(cs_time_beyond(CS_TIME_MAX - 1));
    assert_true(CS_TIME_MAX_US == 18446744073709ULL);
}

static void test_add_saturates(void **state) {
    (void)state;
    assert_int_equal(cs_time_add(0, 0), 0);
    assert_int_equal(cs_time_add(2, 3), 5);
    assert_true(cs_time_add(CS_TIME_MAX - 5, 5) == CS_TIME_MAX);
    assert_true(cs_time_add(CS_TIME_MAX - 5, 4) == CS_TIME_MAX - 1);
    assert_true(cs_time_add(CS_TIME_MAX - 5, 6) == CS_TIME_MAX);
    assert_true(cs_time_add(CS_TIME_MAX, 1) == CS_TIME_MAX);
    assert_true(cs_time_add(1, CS_TIME_MAX) == CS_TIME_MAX);
    assert_true(cs_time_add(CS_TIME_MAX, CS_TIME_MAX) == CS_TIME_MAX);
    assert_true(cs_time_add(CS_TIME_MAX, 0) == CS_TIME_MAX);
    assert_true(cs_time_add(0, CS_TIME_MAX) == CS_TIME_MAX);
    /* 2^63 + 2^63 = 2^64 wraps to 0 without saturation. */
    assert_true(cs_time_add(1ULL << 63, 1ULL << 63) == CS_TIME_MAX);
}

static void check_fmt(cs_time t, const char *want) {
    char buf[64];
    memset(buf, 'x', sizeof buf);
    const char *got = cs_time_fmt(t, buf, sizeof buf);
    assert_ptr_equal(got, buf);
    assert_string_equal(got, want);
}

static void test_fmt_units(void **state) {
    (void)state;
    check_fmt(0, "0.000 ns");
    check_fmt(1, "0.001 ns");
    check_fmt(999, "0.999 ns");
    check_fmt(1000, "1.000 ns");
    check_fmt(1234, "1.234 ns");
    check_fmt(999999, "999.999 ns");
    check_fmt(1000000, "1.000 us");
    check_fmt(1234567, "1.235 us");       /* 1.234567 us rounds to 1.235 */
    check_fmt(1234499, "1.234 us");       /* 1.234499 us rounds to 1.234 */
    check_fmt(1000000000ULL, "1.000 ms");
    check_fmt(12345678901ULL, "12.346 ms");
    check_fmt(1000000000000ULL, "1.000 s");
    check_fmt(3600000000000000ULL, "3600.000 s");
    /* UINT64_MAX ps = 18446744.073709551615 s */
    check_fmt(CS_TIME_MAX, "18446744.074 s");
}

static void test_fmt_unit_boundaries(void **state) {
    (void)state;
    /* Rounding to three decimals must not print "1000.000" of a smaller unit:
     * 999999999 ps = 999.999999 us, which rounds to 1.000 ms. */
    check_fmt(999999999ULL, "1.000 ms");
    check_fmt(999999999999ULL, "1.000 s");
    check_fmt(999999499ULL, "999.999 us");   /* 999.999499 us */
    check_fmt(999998999999ULL, "999.999 ms"); /* 999.998999999 ms */
}

static void test_fmt_truncates_to_bufsize(void **state) {
    (void)state;
    char buf[6];
    memset(buf, 'x', sizeof buf);
    cs_time_fmt(1234, buf, sizeof buf); /* "1.234 ns" cut to 5 chars + NUL */
    assert_string_equal(buf, "1.234");
    char one[1] = {'x'};
    cs_time_fmt(1234, one, 1);
    assert_int_equal(one[0], '\0');
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unit_constants),
        cmocka_unit_test(test_from_integer_units),
        cmocka_unit_test(test_truncating_views),
        cmocka_unit_test(test_float_views),
        cmocka_unit_test(test_from_ns_f_exact_and_rounding),
        cmocka_unit_test(test_from_ns_f_bad_inputs),
        cmocka_unit_test(test_from_ns_f_saturates),
        cmocka_unit_test(test_checked_conversions),
        cmocka_unit_test(test_add_saturates),
        cmocka_unit_test(test_fmt_units),
        cmocka_unit_test(test_fmt_unit_boundaries),
        cmocka_unit_test(test_fmt_truncates_to_bufsize),
    };
    return cmocka_run_group_tests_name("core_time", tests, NULL, NULL);
}
