/*
 * test_core_error_log.c -- unit tests for located errors (src/core/error.h)
 * and diagnostics (src/core/log.h).
 *
 * Errors: the first error wins, prefixes stack outermost-first, code names,
 * and messages longer than CS_ERROR_MSG_MAX are cut without writing past the
 * buffer (checked with a guard area after the struct); a detail text of any
 * length is attached whole, found through copies of the error, replaced by
 * the next one attached (the older error then has none), never on no error.
 * Log: messages are captured through a sink; warnings of one "shape" (text
 * with digits removed) are shown 3 times, the rest counted and reported by
 * cs_log_flush_summary(); levels filter what reaches the sink; the default
 * sink writes "clustersim: <level>: <msg>" lines to stderr.
 */
#include "testutil.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "core/log.h"

/* ---- errors ---------------------------------------------------------------- */

/* The error followed by a guard area: any write past msg[] or the struct
 * would show up as a changed src_file or guard byte. */
typedef struct guarded {
    cs_error e;
    unsigned char guard[64];
} guarded;

static void guard_init(guarded *g) {
    memset(g, 0x5a, sizeof *g);
    cs_error_clear(&g->e);
}

static void guard_check(const guarded *g) {
    for (size_t i = 0; i < sizeof g->guard; i++) assert_int_equal(g->guard[i], 0x5a);
}

static void test_error_clear(void **state) {
    (void)state;
    cs_error e;
    memset(&e, 0x7f, sizeof e);
    cs_error_clear(&e);
    assert_int_equal(e.code, CS_OK);
    assert_string_equal(e.msg, "");
    assert_null(e.src_file);
    assert_int_equal(e.src_line, 0);
    cs_error_clear(NULL); /* allowed */
}

static void test_error_set_records_location(void **state) {
    (void)state;
    cs_error e;
    cs_error_clear(&e);
    int line = __LINE__ + 1;
    int rc = CS_ERR(&e, CS_EINVAL, "%s:%d: %s: expected %s", "a.yaml", 3, "ranks", "an integer");
    assert_int_equal(rc, CS_EINVAL);
    assert_int_equal(e.code, CS_EINVAL);
    assert_string_equal(e.msg, "a.yaml:3: ranks: expected an integer");
    assert_non_null(e.src_file);
    assert_string_equal(e.src_file, __FILE__);
    assert_int_equal(e.src_line, line);
}

static void test_error_first_wins(void **state) {
    (void)state;
    cs_error e;
    cs_error_clear(&e);
    CS_ERR(&e, CS_EIO, "cannot open %s", "trace.et");
    int first_line = e.src_line;
    /* the return value is still the new code, so `return CS_ERR(...)` works */
    assert_int_equal(CS_ERR(&e, CS_EFORMAT, "second"), CS_EFORMAT);
    assert_int_equal(cs_error_set(&e, CS_EINTERNAL, "x.c", 99, "third %d", 3), CS_EINTERNAL);
    assert_int_equal(e.code, CS_EIO);
    assert_string_equal(e.msg, "cannot open trace.et");
    assert_int_equal(e.src_line, first_line);
    /* after a clear the next error is recorded again */
    cs_error_clear(&e);
    assert_int_equal(cs_error_set(&e, CS_EDEADLOCK, "y.c", 7, "stuck at %d", 42), CS_EDEADLOCK);
    assert_int_equal(e.code, CS_EDEADLOCK);
    assert_string_equal(e.msg, "stuck at 42");
    assert_string_equal(e.src_file, "y.c");
    assert_int_equal(e.src_line, 7);
}

static void test_error_null_target(void **state) {
    (void)state;
    assert_int_equal(CS_ERR(NULL, CS_EUNSUPPORTED, "dropped %d", 1), CS_EUNSUPPORTED);
    cs_error_prefix(NULL, "nothing: ");
}

static int vset_helper(cs_error *err, int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int rc = cs_error_vset(err, code, "helper.c", 12, fmt, ap);
    va_end(ap);
    return rc;
}

static void test_error_vset(void **state) {
    (void)state;
    cs_error e;
    cs_error_clear(&e);
    assert_int_equal(vset_helper(&e, CS_ENOMEM, "%zu bytes", (size_t)4096), CS_ENOMEM);
    assert_string_equal(e.msg, "4096 bytes");
    assert_string_equal(e.src_file, "helper.c");
    assert_int_equal(e.src_line, 12);
    assert_int_equal(vset_helper(&e, CS_EIO, "later"), CS_EIO);
    assert_string_equal(e.msg, "4096 bytes");
    assert_int_equal(vset_helper(NULL, CS_EIO, "x"), CS_EIO);
}

static void test_error_prefix(void **state) {
    (void)state;
    cs_error e;
    cs_error_clear(&e);
    cs_error_prefix(&e, "ignored: "); /* no error: nothing to prefix */
    assert_int_equal(e.code, CS_OK);
    assert_string_equal(e.msg, "");
    CS_ERR(&e, CS_EINVAL, "line 4: bad value");
    cs_error_prefix(&e, "while reading %s: ", "net.yaml");
    assert_string_equal(e.msg, "while reading net.yaml: line 4: bad value");
    cs_error_prefix(&e, "config: ");
    assert_string_equal(e.msg, "config: while reading net.yaml: line 4: bad value");
    assert_int_equal(e.code, CS_EINVAL); /* prefixing does not change the code */
}

static void test_error_message_truncation(void **state) {
    (void)state;
    static char longs[3000];
    memset(longs, 'x', sizeof longs - 1);
    longs[sizeof longs - 1] = '\0';
    guarded g;
    guard_init(&g);
    cs_error_set(&g.e, CS_EINVAL, "src.c", 1, "%s", longs);
    assert_int_equal(strlen(g.e.msg), CS_ERROR_MSG_MAX - 1);
    assert_int_equal(g.e.msg[CS_ERROR_MSG_MAX - 2], 'x');
    assert_string_equal(g.e.src_file, "src.c");
    assert_int_equal(g.e.src_line, 1);
    guard_check(&g);

    /* exactly fitting: 1023 characters are kept whole */
    guard_init(&g);
    cs_error_set(&g.e, CS_EINVAL, "src.c", 2, "%.*s", CS_ERROR_MSG_MAX - 1, longs);
    assert_int_equal(strlen(g.e.msg), CS_ERROR_MSG_MAX - 1);
    guard_check(&g);
}

static void test_error_prefix_truncation(void **state) {
    (void)state;
    static char body[1001], head[2001];
    memset(body, 'm', 1000);
    body[1000] = '\0';
    memset(head, 'p', 2000);
    head[2000] = '\0';

    guarded g;
    guard_init(&g);
    cs_error_set(&g.e, CS_EFORMAT, "src.c", 3, "%s", body);
    cs_error_prefix(&g.e, "%.100s", head); /* 100 + 1000 > 1023: the tail is cut */
    assert_int_equal(strlen(g.e.msg), CS_ERROR_MSG_MAX - 1);
    for (size_t i = 0; i < 100; i++) assert_int_equal(g.e.msg[i], 'p');
    for (size_t i = 100; i < CS_ERROR_MSG_MAX - 1; i++) assert_int_equal(g.e.msg[i], 'm');
    assert_string_equal(g.e.src_file, "src.c");
    guard_check(&g);

    /* a prefix longer than the whole buffer */
    guard_init(&g);
    cs_error_set(&g.e, CS_EFORMAT, "src.c", 4, "short");
    cs_error_prefix(&g.e, "%s", head);
    assert_int_equal(strlen(g.e.msg), CS_ERROR_MSG_MAX - 1);
    for (size_t i = 0; i < CS_ERROR_MSG_MAX - 1; i++) assert_int_equal(g.e.msg[i], 'p');
    assert_int_equal(g.e.code, CS_EFORMAT);
    guard_check(&g);
}

static void test_error_code_names(void **state) {
    (void)state;
    assert_string_equal(cs_error_code_name(CS_OK), "ok");
    assert_string_equal(cs_error_code_name(CS_EINVAL), "invalid input");
    assert_string_equal(cs_error_code_name(CS_EIO), "i/o error");
    assert_string_equal(cs_error_code_name(CS_EFORMAT), "malformed file");
    assert_string_equal(cs_error_code_name(CS_EUNSUPPORTED), "unsupported");
    assert_string_equal(cs_error_code_name(CS_ENOMEM), "out of memory");
    assert_string_equal(cs_error_code_name(CS_EDEADLOCK), "deadlock");
    assert_string_equal(cs_error_code_name(CS_EINTERNAL), "internal error");
    assert_string_equal(cs_error_code_name(1), "unknown error");
    assert_string_equal(cs_error_code_name(CS_EINTR), "interrupted");
    assert_string_equal(cs_error_code_name(-9), "unknown error");
    assert_string_equal(cs_error_code_name(INT_MIN), "unknown error");
    /* codes are distinct and negative (0 is success) */
    const int codes[] = {CS_EINVAL, CS_EIO,       CS_EFORMAT,  CS_EUNSUPPORTED,
                         CS_ENOMEM, CS_EDEADLOCK, CS_EINTERNAL, CS_EINTR};
    for (size_t i = 0; i < 8; i++) {
        assert_true(codes[i] < 0);
        for (size_t j = 0; j < i; j++) assert_true(codes[i] != codes[j]);
    }
}

/* ---- log ------------------------------------------------------------------- */

#define CAP_MAX 64

static struct capture {
    size_t n; /* messages received (all of them) */
    int level[CAP_MAX];
    char msg[CAP_MAX][2100];
} cap;

static void capture_sink(int level, const char *msg, void *ud) {
    assert_ptr_equal(ud, &cap);
    if (cap.n < CAP_MAX) {
        cap.level[cap.n] = level;
        snprintf(cap.msg[cap.n], sizeof cap.msg[0], "%s", msg);
    }
    cap.n++;
}

static int log_setup(void **state) {
    (void)state;
    memset(&cap, 0, sizeof cap);
    cs_log_reset();
    cs_log_set_level(CS_LOG_WARN);
    cs_log_set_sink(capture_sink, &cap);
    return 0;
}

static int log_teardown(void **state) {
    (void)state;
    cs_log_set_sink(NULL, NULL);
    cs_log_set_level(CS_LOG_WARN);
    cs_log_reset();
    return 0;
}

/* Index of the captured message equal to s, or -1. */
static int cap_find(const char *s) {
    for (size_t i = 0; i < cap.n && i < CAP_MAX; i++)
        if (strcmp(cap.msg[i], s) == 0) return (int)i;
    return -1;
}

static void test_log_sink_captures(void **state) {
    (void)state;
    assert_int_equal(cs_log_level(), CS_LOG_WARN); /* the documented default */
    cs_warn("disk %s is slow", "sda");
    cs_log(CS_LOG_ERROR, "bad value %d", 5);
    assert_int_equal(cap.n, 2);
    assert_int_equal(cap.level[0], CS_LOG_WARN);
    assert_string_equal(cap.msg[0], "disk sda is slow");
    assert_int_equal(cap.level[1], CS_LOG_ERROR);
    assert_string_equal(cap.msg[1], "bad value 5");
    assert_int_equal(cs_log_warning_count(), 1);
}

static void test_log_level_filtering(void **state) {
    (void)state;
    cs_log_set_level(CS_LOG_ERROR);
    assert_int_equal(cs_log_level(), CS_LOG_ERROR);
    cs_warn("w");
    cs_info("i");
    cs_debug("d");
    cs_log(CS_LOG_ERROR, "e");
    assert_int_equal(cap.n, 1);
    assert_string_equal(cap.msg[0], "e");

    cs_log_set_level(CS_LOG_INFO);
    cs_warn("w2");
    cs_info("i2");
    cs_debug("d2");
    assert_int_equal(cap.n, 3);
    assert_string_equal(cap.msg[1], "w2");
    assert_int_equal(cap.level[2], CS_LOG_INFO);
    assert_string_equal(cap.msg[2], "i2");

    cs_log_set_level(CS_LOG_DEBUG);
    cs_debug("d3 %d", 3);
    assert_int_equal(cap.n, 4);
    assert_int_equal(cap.level[3], CS_LOG_DEBUG);
    assert_string_equal(cap.msg[3], "d3 3");
}

static void test_log_warning_repeats_suppressed(void **state) {
    (void)state;
    /* digits differ, shape is the same: only the first three are shown */
    for (int i = 0; i < 10; i++) cs_warn("rank %d: link %d down", i, i * 7 + 100);
    assert_int_equal(cap.n, 3);
    assert_string_equal(cap.msg[0], "rank 0: link 100 down");
    assert_string_equal(cap.msg[1], "rank 1: link 107 down");
    assert_string_equal(cap.msg[2], "rank 2: link 114 down");
    assert_int_equal(cs_log_warning_count(), 10); /* repeats are still counted */

    /* a different non-digit text is a different shape and is shown */
    cs_warn("rank 1: link 2 up");
    assert_int_equal(cap.n, 4);
    assert_string_equal(cap.msg[3], "rank 1: link 2 up");
    /* digits anywhere, of any length, are ignored: "x1y" ~ "x22y" ~ "xy" */
    cs_warn("x1y");
    cs_warn("x22y");
    cs_warn("xy");
    cs_warn("x333y");
    assert_int_equal(cap.n, 7);
    assert_int_equal(cap_find("x333y"), -1);
    assert_int_equal(cs_log_warning_count(), 15);
}

/* A text repeated exactly (one file's unknown key, read again by each stage
 * that checks the file) is shown once and counted every time; the same
 * shape with other digits is shown. */
static void test_log_exact_repeats_once(void **state) {
    (void)state;
    for (int i = 0; i < 4; i++) cs_warn("t.json:1: unknown key \"x\" ignored");
    assert_int_equal(cap.n, 1);
    assert_int_equal(cs_log_warning_count(), 4);
    cs_warn("t.json:2: unknown key \"x\" ignored");
    assert_int_equal(cap.n, 2);
    assert_int_equal(cs_log_warning_count(), 5);
    cs_log_flush_summary(); /* nothing beyond what was shown */
    assert_int_equal(cap.n, 2);
    cs_log_reset();
    cs_warn("t.json:1: unknown key \"x\" ignored"); /* new again after a reset */
    assert_int_equal(cap.n, 3);
}

static void test_log_suppression_only_for_warnings(void **state) {
    (void)state;
    cs_log_set_level(CS_LOG_DEBUG);
    for (int i = 0; i < 6; i++) cs_info("step %d", i);
    for (int i = 0; i < 6; i++) cs_log(CS_LOG_ERROR, "fatal %d", i);
    assert_int_equal(cap.n, 12);
    assert_int_equal(cs_log_warning_count(), 0);
}

static void test_log_summary_lines(void **state) {
    (void)state;
    for (int i = 0; i < 10; i++) cs_warn("rank %d: link down", i); /* 7 suppressed */
    for (int i = 0; i < 5; i++) cs_warn("gpu %d hot", i);          /* 2 suppressed */
    for (int i = 0; i < 3; i++) cs_warn("node %d late", i);        /* 0 suppressed */
    assert_int_equal(cap.n, 9);
    cs_log_flush_summary();
    assert_int_equal(cap.n, 11); /* one line per shape that lost messages */
    int a = cap_find("7 more warnings like: rank 0: link down");
    int b = cap_find("2 more warnings like: gpu 0 hot");
    assert_true(a >= 9);
    assert_true(b >= 9);
    assert_int_equal(cap.level[a], CS_LOG_WARN);
    assert_int_equal(cap.level[b], CS_LOG_WARN);
    /* each suppressed warning is reported once */
    cs_log_flush_summary();
    assert_int_equal(cap.n, 11);
    /* later repeats are still suppressed, and reported by the next summary */
    for (int i = 0; i < 4; i++) cs_warn("rank %d: link down", 50 + i);
    assert_int_equal(cap.n, 11);
    cs_log_flush_summary();
    assert_int_equal(cap.n, 12);
    assert_string_equal(cap.msg[11], "4 more warnings like: rank 0: link down");
    assert_int_equal(cs_log_warning_count(), 22);
}

static void test_log_summary_respects_level(void **state) {
    (void)state;
    for (int i = 0; i < 5; i++) cs_warn("q %d", i);
    assert_int_equal(cap.n, 3);
    cs_log_set_level(CS_LOG_ERROR); /* errors only: no summary lines either */
    cs_log_flush_summary();
    assert_int_equal(cap.n, 3);
}

static void test_log_reset(void **state) {
    (void)state;
    for (int i = 0; i < 5; i++) cs_warn("again %d", i);
    assert_int_equal(cap.n, 3);
    cs_log_reset();
    assert_int_equal(cs_log_warning_count(), 0);
    for (int i = 0; i < 5; i++) cs_warn("again %d", i);
    assert_int_equal(cap.n, 6); /* the shape is new again */
    cs_log_flush_summary();
    assert_int_equal(cap.n, 7);
    assert_string_equal(cap.msg[6], "2 more warnings like: again 0");
}

static void test_log_many_shapes_never_dropped(void **state) {
    (void)state;
    /* more distinct shapes than any small table holds: each one is shown */
    for (int i = 0; i < 400; i++) cs_warn("filler %c%c", 'a' + i / 26, 'a' + i % 26);
    assert_int_equal(cap.n, 400);
    for (int i = 0; i < 5; i++) cs_warn("late shape %d", i);
    assert_true(cap.n >= 403); /* at least its first three */
    assert_int_equal(cs_log_warning_count(), 405);
}

static void test_log_long_message(void **state) {
    (void)state;
    static char big[5000];
    memset(big, 'z', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    big[10] = '0'; /* a digit, so that repeats differ in text but share the shape */
    cs_warn("%s", big);
    assert_int_equal(cap.n, 1);
    size_t len = strlen(cap.msg[0]);
    assert_true(len >= 1000 && len < sizeof big - 1); /* cut, not overflowed */
    for (size_t i = 0; i < len; i++) assert_int_equal(cap.msg[0][i], i == 10 ? '0' : 'z');
    /* two more of its shape are shown, the fourth is suppressed; the summary
     * line quotes (a prefix of) the first message */
    for (int i = 1; i <= 3; i++) {
        big[10] = (char)('0' + i);
        cs_warn("%s", big);
    }
    assert_int_equal(cap.n, 3);
    cs_log_flush_summary();
    assert_int_equal(cap.n, 4);
    assert_int_equal(strncmp(cap.msg[3], "1 more warnings like: zzzzzzzzzz0zz", 35), 0);
}

/* The default sink writes to stderr; capture fd 2 in a temporary file. */
static void test_log_default_sink_stderr(void **state) {
    (void)state;
    cs_log_set_sink(NULL, NULL);
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    fflush(stderr);
    int saved = dup(2);
    assert_true(saved >= 0);
    assert_true(dup2(fileno(tmp), 2) >= 0);
    cs_warn("to stderr %d", 1);
    cs_log(CS_LOG_ERROR, "broken %s", "thing");
    cs_info("hidden at the default level");
    for (int i = 0; i < 4; i++) cs_warn("to stderr %d", i + 2);
    cs_log_flush_summary();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char buf[1024];
    rewind(tmp);
    size_t n = fread(buf, 1, sizeof buf - 1, tmp);
    buf[n] = '\0';
    fclose(tmp);
    assert_string_equal(buf, "clustersim: warning: to stderr 1\n"
                             "clustersim: error: broken thing\n"
                             "clustersim: warning: to stderr 2\n"
                             "clustersim: warning: to stderr 3\n"
                             "clustersim: warning: 2 more warnings like: to stderr 1\n");
    assert_int_equal(cap.n, 0);
}

static void test_error_detail(void **state) {
    (void)state;
    cs_error a, b;
    cs_error_clear(&a);
    cs_error_set_detail(&a, "ignored"); /* no error: nothing attached */
    assert_null(cs_error_detail(&a));
    CS_ERR(&a, CS_EDEADLOCK, "stuck");
    assert_null(cs_error_detail(&a));
    char big[5000]; /* longer than the message buffer: kept whole */
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    cs_error_set_detail(&a, big);
    assert_non_null(cs_error_detail(&a));
    assert_int_equal(strlen(cs_error_detail(&a)), sizeof big - 1);
    cs_error copy = a;
    assert_ptr_equal(cs_error_detail(&copy), cs_error_detail(&a));
    cs_error_clear(&b);
    CS_ERR(&b, CS_EINVAL, "other");
    cs_error_set_detail(&b, "second");
    assert_string_equal(cs_error_detail(&b), "second");
    assert_null(cs_error_detail(&a)); /* replaced */
    cs_error_clear(&b);
    assert_null(cs_error_detail(&b));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_error_clear),
        cmocka_unit_test(test_error_set_records_location),
        cmocka_unit_test(test_error_first_wins),
        cmocka_unit_test(test_error_null_target),
        cmocka_unit_test(test_error_vset),
        cmocka_unit_test(test_error_prefix),
        cmocka_unit_test(test_error_message_truncation),
        cmocka_unit_test(test_error_prefix_truncation),
        cmocka_unit_test(test_error_code_names),
        cmocka_unit_test(test_error_detail),
        cmocka_unit_test_setup_teardown(test_log_sink_captures, log_setup, log_teardown),
        cmocka_unit_test_setup_teardown(test_log_level_filtering, log_setup, log_teardown),
        cmocka_unit_test_setup_teardown(test_log_warning_repeats_suppressed, log_setup,
                                        log_teardown),
        cmocka_unit_test_setup_teardown(test_log_exact_repeats_once, log_setup, log_teardown),
        cmocka_unit_test_setup_teardown(test_log_suppression_only_for_warnings, log_setup,
                                        log_teardown),
        cmocka_unit_test_setup_teardown(test_log_summary_lines, log_setup, log_teardown),
        cmocka_unit_test_setup_teardown(test_log_summary_respects_level, log_setup, log_teardown),
        cmocka_unit_test_setup_teardown(test_log_reset, log_setup, log_teardown),
        cmocka_unit_test_setup_teardown(test_log_many_shapes_never_dropped, log_setup,
                                        log_teardown),
        cmocka_unit_test_setup_teardown(test_log_long_message, log_setup, log_teardown),
        cmocka_unit_test_setup_teardown(test_log_default_sink_stderr, log_setup, log_teardown),
    };
    return cmocka_run_group_tests_name("core_error_log", tests, NULL, NULL);
}
