/*
 * test_core_alloc.c -- unit tests for the counting allocator wrapper
 * (src/core/alloc.h).
 *
 * Every test measures from the current counters, so the order of tests does
 * not matter: in-use must move by exactly the bytes requested and come back,
 * and the peak must be exactly the largest in-use value seen (nothing else in
 * this program allocates through cs_*).  Exhaustion is checked in a child
 * process, which must exit with status 3 and say what it could not allocate
 * (and where, in builds with allocation-failure injection), after removing
 * the result files still being written (core/afile.h's registry).  jansson's
 * allocations count while cs_alloc_jansson is on.
 */
#include "testutil.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dirent.h>
#include <jansson.h>
#include <sys/stat.h>

#include "core/afile.h"
#include "core/alloc.h"

static size_t max_sz(size_t a, size_t b) { return a > b ? a : b; }

static void test_malloc_free_accounting(void **state) {
    (void)state;
    size_t base = cs_alloc_bytes_in_use();
    size_t peak0 = cs_alloc_bytes_peak();
    assert_true(peak0 >= base);
    char *p = cs_malloc(100);
    assert_non_null(p);
    memset(p, 0xab, 100);
    assert_int_equal(cs_alloc_bytes_in_use(), base + 100);
    char *q = cs_malloc(1);
    assert_int_equal(cs_alloc_bytes_in_use(), base + 101);
    assert_int_equal(cs_alloc_bytes_peak(), max_sz(peak0, base + 101));
    cs_free(p);
    assert_int_equal(cs_alloc_bytes_in_use(), base + 1);
    assert_int_equal(cs_alloc_bytes_peak(), max_sz(peak0, base + 101)); /* peak stays */
    cs_free(q);
    cs_free(NULL);
    assert_int_equal(cs_alloc_bytes_in_use(), base);
    /* malloc(0) is a valid, freeable, zero-byte block */
    void *z = cs_malloc(0);
    assert_non_null(z);
    assert_int_equal(cs_alloc_bytes_in_use(), base);
    cs_free(z);
    assert_int_equal(cs_alloc_bytes_in_use(), base);
}

static void test_payload_alignment(void **state) {
    (void)state;
    void *blocks[8];
    for (size_t i = 0; i < 8; i++) {
        blocks[i] = cs_malloc(i * 3 + 1);
        assert_int_equal((uintptr_t)blocks[i] % 16, 0);
    }
    for (size_t i = 0; i < 8; i++) cs_free(blocks[i]);
}

static void test_calloc_zeroes_and_counts(void **state) {
    (void)state;
    size_t base = cs_alloc_bytes_in_use();
    unsigned char *p = cs_calloc(10, 7);
    assert_int_equal(cs_alloc_bytes_in_use(), base + 70);
    for (size_t i = 0; i < 70; i++) assert_int_equal(p[i], 0);
    void *z = cs_calloc(0, 8);
    assert_non_null(z);
    void *z2 = cs_calloc(8, 0);
    assert_non_null(z2);
    assert_int_equal(cs_alloc_bytes_in_use(), base + 70);
    cs_free(z);
    cs_free(z2);
    cs_free(p);
    assert_int_equal(cs_alloc_bytes_in_use(), base);
}

static void test_realloc_accounting(void **state) {
    (void)state;
    size_t base = cs_alloc_bytes_in_use();
    size_t peak0 = cs_alloc_bytes_peak();
    /* realloc(NULL, n) behaves as malloc(n) */
    unsigned char *p = cs_realloc(NULL, 64);
    assert_non_null(p);
    assert_int_equal(cs_alloc_bytes_in_use(), base + 64);
    for (int i = 0; i < 64; i++) p[i] = (unsigned char)i;
    /* grow: contents kept, in-use moves by the difference */
    p = cs_realloc(p, 300);
    assert_int_equal(cs_alloc_bytes_in_use(), base + 300);
    for (int i = 0; i < 64; i++) assert_int_equal(p[i], i);
    memset(p + 64, 0xee, 236);
    /* shrink */
    p = cs_realloc(p, 50);
    assert_int_equal(cs_alloc_bytes_in_use(), base + 50);
    for (int i = 0; i < 50; i++) assert_int_equal(p[i], i);
    assert_int_equal(cs_alloc_bytes_peak(), max_sz(peak0, base + 300));
    /* to zero bytes: still a block that cs_free accepts */
    p = cs_realloc(p, 0);
    assert_non_null(p);
    assert_int_equal(cs_alloc_bytes_in_use(), base);
    cs_free(p);
    assert_int_equal(cs_alloc_bytes_in_use(), base);
}

static void test_peak_tracks_maximum(void **state) {
    (void)state;
    size_t base = cs_alloc_bytes_in_use();
    size_t peak0 = cs_alloc_bytes_peak();
    /* climb well above any earlier peak so the expected value is known exactly */
    size_t big = peak0 - base + 4096;
    void *a = cs_malloc(big);
    void *b = cs_malloc(1000);
    assert_int_equal(cs_alloc_bytes_peak(), base + big + 1000);
    cs_free(a);
    void *c = cs_malloc(500); /* below the peak: peak unchanged */
    assert_int_equal(cs_alloc_bytes_peak(), base + big + 1000);
    assert_int_equal(cs_alloc_bytes_in_use(), base + 1500);
    cs_free(b);
    cs_free(c);
    assert_int_equal(cs_alloc_bytes_in_use(), base);
    assert_int_equal(cs_alloc_bytes_peak(), base + big + 1000);
}

static void test_strdup(void **state) {
    (void)state;
    size_t base = cs_alloc_bytes_in_use();
    const char *src = "hello, cluster";
    char *d = cs_strdup(src);
    assert_non_null(d);
    assert_true(d != src);
    assert_string_equal(d, src);
    assert_int_equal(cs_alloc_bytes_in_use(), base + strlen(src) + 1);
    char *e = cs_strdup("");
    assert_string_equal(e, "");
    assert_int_equal(cs_alloc_bytes_in_use(), base + strlen(src) + 2);
    cs_free(d);
    cs_free(e);
    assert_int_equal(cs_alloc_bytes_in_use(), base);
}

static void test_grow_doubles(void **state) {
    (void)state;
    size_t base = cs_alloc_bytes_in_use();
    int *arr = NULL;
    size_t cap = 0;
    CS_GROW(arr, cap, 0); /* nothing needed: nothing allocated */
    assert_null(arr);
    assert_int_equal(cap, 0);
    CS_GROW(arr, cap, 1); /* first allocation: 8 elements */
    assert_non_null(arr);
    assert_int_equal(cap, 8);
    assert_int_equal(cs_alloc_bytes_in_use(), base + 8 * sizeof(int));
    for (int i = 0; i < 8; i++) arr[i] = i * 11;
    CS_GROW(arr, cap, 8); /* fits: unchanged */
    assert_int_equal(cap, 8);
    CS_GROW(arr, cap, 9); /* 8 -> 16 */
    assert_int_equal(cap, 16);
    CS_GROW(arr, cap, 100); /* 16 -> 32 -> 64 -> 128 */
    assert_int_equal(cap, 128);
    assert_int_equal(cs_alloc_bytes_in_use(), base + 128 * sizeof(int));
    for (int i = 0; i < 8; i++) assert_int_equal(arr[i], i * 11); /* contents kept */
    arr[127] = 7;                                                  /* whole capacity usable */
    CS_GROW(arr, cap, 128);
    assert_int_equal(cap, 128);
    CS_GROW(arr, cap, 129);
    assert_int_equal(cap, 256);
    cs_free(arr);
    assert_int_equal(cs_alloc_bytes_in_use(), base);

    /* element size is taken from the array type */
    struct big {
        char b[40];
    } *s = NULL;
    size_t scap = 0;
    CS_GROW(s, scap, 20); /* 8 -> 16 -> 32 */
    assert_int_equal(scap, 32);
    assert_int_equal(cs_alloc_bytes_in_use(), base + 32 * 40);
    cs_free(s);

    /* a non-zero starting capacity doubles from there */
    long *l = cs_malloc(3 * sizeof *l);
    size_t lcap = 3;
    CS_GROW(l, lcap, 4);
    assert_int_equal(lcap, 6);
    CS_GROW(l, lcap, 13); /* 6 -> 12 -> 24 */
    assert_int_equal(lcap, 24);
    cs_free(l);
    assert_int_equal(cs_alloc_bytes_in_use(), base);
}

/* Run fn in a child with stderr captured; returns the exit status, message in buf. */
static int run_child(void (*fn)(void), char *buf, size_t bufsize) {
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 2);
        alarm(20); /* a wrapper that loops instead of failing fails the test */
        fn();
        _exit(0); /* fn was expected not to return */
    }
    close(fds[1]);
    /* read to EOF (keeping the first bufsize-1 bytes) so the child never
     * blocks or dies of SIGPIPE on a long message */
    size_t n = 0;
    ssize_t k;
    char sink[256];
    while ((k = read(fds[0], n + 1 < bufsize ? buf + n : sink,
                     n + 1 < bufsize ? bufsize - 1 - n : sizeof sink)) > 0)
        if (n + 1 < bufsize) n += (size_t)k;
    buf[n] = '\0';
    close(fds[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

/* Requests that can never be satisfied; the wrapper must refuse them before
 * calling malloc (so this also runs under AddressSanitizer). */
enum { OOM_MALLOC_LINE = __LINE__ + 1 };
static void oom_malloc(void) { (void)cs_malloc(SIZE_MAX - 4); }
static void oom_calloc(void) { (void)cs_calloc(SIZE_MAX / 4, 8); }
/* Kept in a volatile global so the store is not optimised away and
 * LeakSanitizer (which runs at exit) sees the block as reachable. */
static void *volatile oom_block;
static void oom_realloc(void) {
    oom_block = cs_malloc(8);
    (void)cs_realloc(oom_block, SIZE_MAX - 1);
}
static void oom_grow(void) {
    char *a = NULL;
    size_t cap = 0;
    CS_GROW(a, cap, SIZE_MAX);
}

static void test_exhaustion_exits_with_message(void **state) {
    (void)state;
    char buf[512];
    void (*const fns[])(void) = {oom_malloc, oom_calloc, oom_realloc, oom_grow};
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        buf[0] = '\0';
        int code = run_child(fns[i], buf, sizeof buf);
        assert_int_equal(code, 3);
        assert_non_null(strstr(buf, "out of memory"));
        assert_non_null(strstr(buf, "bytes in use"));
    }
    /* the requested size is reported */
    run_child(oom_malloc, buf, sizeof buf);
    char want[64];
    snprintf(want, sizeof want, "allocate %zu bytes", (size_t)(SIZE_MAX - 4));
    assert_non_null(strstr(buf, want));
#ifdef CS_ALLOC_INJECT
    /* and, in builds with sites, where */
    snprintf(want, sizeof want, "bytes at tests/test_core_alloc.c:%d (", (int)OOM_MALLOC_LINE);
    if (!strstr(buf, want)) fail_msg("\"%s\" lacks \"%s\"", buf, want);
#endif
}

/* ---- unfinished files at exit ------------------------------------------------------ */

static char g_done[512], g_part[512], g_own[512];

/* A committed file, one being written, a registered one; then out of memory. */
static void write_then_oom(void) {
    cs_error err;
    cs_error_clear(&err);
    cs_afile a, b;
    if (cs_afile_open(&a, g_done, &err)) _exit(10);
    fputs("complete\n", a.f);
    if (cs_afile_commit(&a, &err)) _exit(11);
    if (cs_afile_open(&b, g_part, &err)) _exit(12);
    fputs("half of it", b.f);
    fflush(b.f);
    FILE *f = fopen(g_own, "w");
    if (!f) _exit(13);
    fclose(f);
    cs_afile_pending_add(g_own);
    oom_malloc();
}

static int exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

static void test_exit_removes_unfinished_files(void **state) {
    (void)state;
    const char *dir = tu_path(tu_tmp_dir(), "afile_exit");
    mkdir(dir, 0755);
    DIR *d = opendir(dir); /* empty it: an earlier run's leftovers are not this run's */
    assert_non_null(d);
    struct dirent *e;
    char p[1024];
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            remove(p);
        }
    closedir(d);
    snprintf(g_done, sizeof g_done, "%s/done.txt", dir);
    snprintf(g_part, sizeof g_part, "%s/part.txt", dir);
    snprintf(g_own, sizeof g_own, "%s/own.txt", dir);
    char buf[512];
    assert_int_equal(run_child(write_then_oom, buf, sizeof buf), 3);
    assert_non_null(strstr(buf, "out of memory"));
    assert_true(exists(g_done));  /* committed: a result, kept */
    assert_false(exists(g_part)); /* never committed: neither the file ... */
    assert_false(exists(g_own));  /* ... nor a registered one */
    d = opendir(dir);             /* ... nor a temporary name is left */
    assert_non_null(d);
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".tmp.")) fail_msg("%s/%s left behind", dir, e->d_name);
    closedir(d);
    /* in this process: registered then unregistered, nothing happens at exit */
    cs_afile_pending_add(g_done);
    cs_afile_pending_del(g_done);
    assert_true(exists(g_done));
    remove(g_done);
}

/* ---- jansson --------------------------------------------------------------------------- */

static void test_jansson_through_the_wrapper(void **state) {
    (void)state;
    size_t base = cs_alloc_bytes_in_use();
    json_t *plain = json_pack("{s:i}", "a", 1); /* before: jansson's own malloc */
    assert_int_equal(cs_alloc_bytes_in_use(), base);
    cs_alloc_jansson(1);
    cs_alloc_jansson(1); /* nested */
    json_t *j = json_pack("{s:[i,i,i], s:s}", "xs", 1, 2, 3, "name", "counted");
    assert_true(cs_alloc_bytes_in_use() > base);
    char *text = json_dumps(j, JSON_COMPACT);
    assert_string_equal(text, "{\"xs\":[1,2,3],\"name\":\"counted\"}");
    cs_json_free(text);
    json_decref(j);
    assert_int_equal(cs_alloc_bytes_in_use(), base);
    cs_alloc_jansson(0);
    j = json_pack("[i]", 5); /* still on: the outer call */
    assert_true(cs_alloc_bytes_in_use() > base);
    json_decref(j);
    cs_alloc_jansson(0); /* restored */
    text = json_dumps(plain, JSON_COMPACT);
    assert_int_equal(cs_alloc_bytes_in_use(), base);
    assert_string_equal(text, "{\"a\":1}");
    cs_json_free(text);
    json_decref(plain);
}

/* A fake cgroup tree under a temporary directory (cs_alloc_cgroup_limit). */
static void put(const char *dir, const char *rel, const char *text) {
    char p[600], cmd[700];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", p);
    assert_int_equal(system(cmd), 0);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_cgroup_limit(void **state) {
    (void)state;
    char dir[] = "/tmp/cs_cgroupXXXXXX";
    assert_non_null(mkdtemp(dir));
    char pc[600], root[600];
    snprintf(pc, sizeof pc, "%s/cgroup", dir);
    snprintf(root, sizeof root, "%s/fs", dir);
    size_t swap = 1000;
    /* v2, a job's group under a parent: the least of memory.max + swap over the group and its ancestors */
    put(dir, "cgroup", "0::/job 1/step\n");
    put(dir, "fs/job 1/step/memory.max", "max\n");            /* no limit here */
    put(dir, "fs/job 1/memory.max", "5000\n");
    put(dir, "fs/job 1/memory.swap.max", "200\n");           /* the job may swap 200 bytes */
    put(dir, "fs/memory.max", "9000\n");                      /* the root's, swap "max" (absent): + 1000 */
    assert_int_equal(cs_alloc_cgroup_limit(pc, root, swap), 5200);
    put(dir, "fs/job 1/memory.swap.max", "max\n");           /* unlimited swap: the machine's */
    assert_int_equal(cs_alloc_cgroup_limit(pc, root, swap), 6000);
    put(dir, "fs/job 1/memory.max", "max\n");                /* only the root's left */
    assert_int_equal(cs_alloc_cgroup_limit(pc, root, swap), 10000);
    put(dir, "fs/memory.max", "junk\n");                     /* none readable: no limit */
    assert_true(cs_alloc_cgroup_limit(pc, root, swap) == SIZE_MAX);
    /* v1: memsw (memory + swap) when there, else memory + the machine's swap; "no limit" near 2^63 */
    put(dir, "cgroup", "4:memory:/slurm/job\n0::/\n");
    put(dir, "fs/memory/slurm/job/memory.limit_in_bytes", "3000\n");
    assert_int_equal(cs_alloc_cgroup_limit(pc, root, swap), 4000);
    put(dir, "fs/memory/slurm/job/memory.memsw.limit_in_bytes", "3500\n");
    assert_int_equal(cs_alloc_cgroup_limit(pc, root, swap), 3500);
    put(dir, "fs/memory/slurm/job/memory.memsw.limit_in_bytes", "9223372036854771712\n");
    put(dir, "fs/memory/slurm/job/memory.limit_in_bytes", "9223372036854771712\n");
    assert_true(cs_alloc_cgroup_limit(pc, root, swap) == SIZE_MAX);
    /* no cgroup file at all */
    snprintf(pc, sizeof pc, "%s/absent", dir);
    assert_true(cs_alloc_cgroup_limit(pc, root, swap) == SIZE_MAX);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_malloc_free_accounting),
        cmocka_unit_test(test_cgroup_limit),
        cmocka_unit_test(test_payload_alignment),
        cmocka_unit_test(test_calloc_zeroes_and_counts),
        cmocka_unit_test(test_realloc_accounting),
        cmocka_unit_test(test_peak_tracks_maximum),
        cmocka_unit_test(test_strdup),
        cmocka_unit_test(test_grow_doubles),
        cmocka_unit_test(test_exhaustion_exits_with_message),
        cmocka_unit_test(test_exit_removes_unfinished_files),
        cmocka_unit_test(test_jansson_through_the_wrapper),
    };
    return cmocka_run_group_tests_name("core_alloc", tests, NULL, NULL);
}
