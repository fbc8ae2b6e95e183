/*
 * test_core_invariant.c -- CS_ALWAYS / CS_NEVER (src/core/invariant.h).
 *
 * invariant.h can be included again after CS_INVARIANTS changes (as
 * <assert.h> with NDEBUG), so this one file holds both forms whatever the
 * build: the functions `on_*` below are compiled with the invariants active,
 * the `off_*` ones without.  A violation must abort the process (checked in a
 * child: it dies of SIGABRT) after printing
 *     clustersim: invariant violated at tests/test_core_invariant.c:LINE: COND: MESSAGE
 * and without CS_INVARIANTS neither the condition nor the message arguments
 * may be evaluated.
 */
#include "testutil.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- active ------------------------------------------------------------------ */
#undef CS_INVARIANTS
#define CS_INVARIANTS 1
#include "core/invariant.h"

static int g_evals;

static int count(int v) {
    g_evals++;
    return v;
}

enum { ALWAYS_LINE = __LINE__ + 2 }; /* the lines of the two assertions */
static void on_always(int x) {
    CS_ALWAYS(x < 3, "x is %d, expected below %d", x, 3);
}
enum { NEVER_LINE = __LINE__ + 2 };
static void on_never(int x) {
    CS_NEVER(x == 7, "x is %d", x);
}
enum { UNREACHABLE_LINE = __LINE__ + 3 };
static void on_unreachable(int x) {
    if (x > 0) return;
    CS_UNREACHABLE("x is %d", x);
}
static void on_hold(void) {
    CS_ALWAYS(count(1), "never printed");
    CS_NEVER(count(0), "never printed");
}

/* ---- compiled out ------------------------------------------------------------ */
#undef CS_INVARIANTS
#include "core/invariant.h"

static void off_violate(int x) {
    CS_ALWAYS(count(0), "x is %d", count(x));
    CS_NEVER(count(1), "x is %d", count(x));
    CS_ALWAYS(x < 0, "x is %d", x);
    CS_UNREACHABLE("x is %d", count(x));
}

/* ---- helpers ----------------------------------------------------------------- */

/* Run fn(x) in a child with stderr captured into out; returns the wait status. */
static int in_child(void (*fn)(int), int x, char *out, size_t n) {
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGABRT, SIG_DFL); /* not cmocka's handler */
        close(fd[0]);
        dup2(fd[1], 2);
        fn(x);
        _exit(0);
    }
    close(fd[1]);
    size_t len = 0;
    ssize_t r;
    while (len + 1 < n && (r = read(fd[0], out + len, n - 1 - len)) > 0) len += (size_t)r;
    out[len] = '\0';
    close(fd[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

static void off_violate_child(int x) { off_violate(x); }

/* ---- tests ------------------------------------------------------------------- */

static void test_always_aborts_naming_file_line(void **state) {
    (void)state;
    char out[1024], want[256];
    int status = in_child(on_always, 5, out, sizeof out);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
    snprintf(want, sizeof want,
             "clustersim: invariant violated at tests/test_core_invariant.c:%d: x < 3: x is 5, expected below 3",
             (int)ALWAYS_LINE);
    if (!strstr(out, want)) fail_msg("stderr was \"%s\", expected it to contain \"%s\"", out, want);
    /* holding: returns */
    status = in_child(on_always, 2, out, sizeof out);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_string_equal(out, "");
}

static void test_never_aborts_naming_file_line(void **state) {
    (void)state;
    char out[1024], want[256];
    int status = in_child(on_never, 7, out, sizeof out);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
    snprintf(want, sizeof want, "clustersim: invariant violated at tests/test_core_invariant.c:%d: never x == 7: x is 7",
             (int)NEVER_LINE);
    if (!strstr(out, want)) fail_msg("stderr was \"%s\", expected it to contain \"%s\"", out, want);
    status = in_child(on_never, 6, out, sizeof out);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_unreachable_aborts(void **state) {
    (void)state;
    char out[1024], want[256];
    int status = in_child(on_unreachable, -1, out, sizeof out);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
    snprintf(want, sizeof want, "clustersim: invariant violated at tests/test_core_invariant.c:%d: unreachable: x is -1",
             (int)UNREACHABLE_LINE);
    if (!strstr(out, want)) fail_msg("stderr was \"%s\", expected it to contain \"%s\"", out, want);
    status = in_child(on_unreachable, 1, out, sizeof out);
    assert_true(WIFEXITED(status));
}

static void test_active_conditions_evaluated_once(void **state) {
    (void)state;
    g_evals = 0;
    on_hold();
    assert_int_equal(g_evals, 2);
}

static void test_compiled_out_evaluates_nothing(void **state) {
    (void)state;
    g_evals = 0;
    off_violate(5);
    assert_int_equal(g_evals, 0); /* neither conditions nor message arguments */
    char out[256];
    int status = in_child(off_violate_child, 5, out, sizeof out);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_string_equal(out, "");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_always_aborts_naming_file_line),
        cmocka_unit_test(test_never_aborts_naming_file_line),
        cmocka_unit_test(test_unreachable_aborts),
        cmocka_unit_test(test_active_conditions_evaluated_once),
        cmocka_unit_test(test_compiled_out_evaluates_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
