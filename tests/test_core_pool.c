/*
 * test_core_pool.c -- unit tests for the fixed-size object pool
 * (src/core/pool.h).
 *
 * Checks LIFO reuse of returned objects, in-use/capacity counts across slab
 * boundaries (a slab holds 1024 objects), object alignment (at least 8 bytes;
 * objects of 33-64 bytes within one cache line),
 * that distinct live objects never overlap, and that all pool memory is
 * accounted in cs_alloc_bytes_in_use and returned by cs_pool_free.
 */
#include "testutil.h"

#include <stdint.h>
#include <string.h>

#include "core/alloc.h"
#include "core/pool.h"

#define SLAB 1024 /* objects per slab, as documented in pool.h */

static void test_new_pool_is_empty(void **state) {
    (void)state;
    size_t base = cs_alloc_bytes_in_use();
    cs_pool *p = cs_pool_new(40);
    assert_non_null(p);
    assert_int_equal(cs_pool_in_use(p), 0);
    assert_int_equal(cs_pool_capacity(p), 0); /* slabs are made lazily */
    cs_pool_free(p);
    assert_int_equal(cs_alloc_bytes_in_use(), base);
    cs_pool_free(NULL);
}

static void test_lifo_reuse(void **state) {
    (void)state;
    cs_pool *p = cs_pool_new(24);
    void *a = cs_pool_get(p);
    void *b = cs_pool_get(p);
    void *c = cs_pool_get(p);
    assert_true(a != b && b != c && a != c);
    assert_int_equal(cs_pool_in_use(p), 3);
    cs_pool_put(p, a);
    cs_pool_put(p, c);
    assert_int_equal(cs_pool_in_use(p), 1);
    /* last returned, first handed out */
    assert_ptr_equal(cs_pool_get(p), c);
    assert_ptr_equal(cs_pool_get(p), a);
    assert_int_equal(cs_pool_in_use(p), 3);
    /* the same object over and over */
    for (int i = 0; i < 100; i++) {
        cs_pool_put(p, b);
        assert_ptr_equal(cs_pool_get(p), b);
    }
    assert_int_equal(cs_pool_capacity(p), SLAB);
    cs_pool_free(p);
}

static void test_put_null_is_noop(void **state) {
    (void)state;
    cs_pool *p = cs_pool_new(16);
    void *a = cs_pool_get(p);
    cs_pool_put(p, NULL);
    assert_int_equal(cs_pool_in_use(p), 1);
    /* NULL did not enter the free list: the next object is a fresh, distinct one */
    void *b = cs_pool_get(p);
    assert_non_null(b);
    assert_true(b != a);
    assert_int_equal(cs_pool_in_use(p), 2);
    cs_pool_put(p, b);
    assert_ptr_equal(cs_pool_get(p), b);
    cs_pool_free(p);
}

static void test_counts_across_slabs(void **state) {
    (void)state;
    enum { N = 3 * SLAB + 5 };
    static void *objs[N];
    cs_pool *p = cs_pool_new(32);
    for (size_t i = 0; i < N; i++) {
        objs[i] = cs_pool_get(p);
        assert_int_equal(cs_pool_in_use(p), i + 1);
        /* capacity = slabs so far * 1024 = ceil((i+1) / 1024) * 1024 */
        assert_int_equal(cs_pool_capacity(p), (i / SLAB + 1) * SLAB);
    }
    assert_int_equal(cs_pool_capacity(p), 4 * SLAB);
    /* exactly at the boundary: 1024 objects need one slab, 1025 two */
    cs_pool *q = cs_pool_new(32);
    for (size_t i = 0; i < SLAB; i++) cs_pool_get(q);
    assert_int_equal(cs_pool_capacity(q), SLAB);
    cs_pool_get(q);
    assert_int_equal(cs_pool_capacity(q), 2 * SLAB);
    cs_pool_free(q);

    /* returning everything keeps the slabs; taking them again adds none */
    size_t bytes = cs_alloc_bytes_in_use();
    for (size_t i = 0; i < N; i++) cs_pool_put(p, objs[N - 1 - i]);
    assert_int_equal(cs_pool_in_use(p), 0);
    assert_int_equal(cs_pool_capacity(p), 4 * SLAB);
    for (size_t i = 0; i < 4 * SLAB; i++) objs[i % N] = cs_pool_get(p);
    assert_int_equal(cs_pool_in_use(p), 4 * SLAB);
    assert_int_equal(cs_pool_capacity(p), 4 * SLAB);
    assert_int_equal(cs_alloc_bytes_in_use(), bytes);
    cs_pool_get(p); /* one more than 4 slabs hold */
    assert_int_equal(cs_pool_capacity(p), 5 * SLAB);
    assert_true(cs_alloc_bytes_in_use() > bytes);
    cs_pool_free(p);
}

static void test_alignment_and_no_overlap(void **state) {
    (void)state;
    /* odd sizes, including smaller than a pointer */
    static const size_t sizes[] = {1, 3, 7, 8, 12, 17, 24, 33, 100};
    enum { N = SLAB + 300 };
    static unsigned char *objs[N];
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t sz = sizes[s];
        cs_pool *p = cs_pool_new(sz);
        for (size_t i = 0; i < N; i++) {
            objs[i] = cs_pool_get(p);
            assert_int_equal((uintptr_t)objs[i] % 8, 0);
            assert_int_equal((uintptr_t)objs[i] % sizeof(void *), 0);
            memset(objs[i], (int)(i & 0xff), sz); /* fill every byte we asked for */
        }
        /* if any two objects overlapped, a later fill would clobber an earlier one */
        for (size_t i = 0; i < N; i++)
            for (size_t k = 0; k < sz; k++) assert_int_equal(objs[i][k], i & 0xff);
        /* a put/get cycle leaves the object's neighbours alone */
        cs_pool_put(p, objs[5]);
        assert_ptr_equal(cs_pool_get(p), objs[5]);
        for (size_t k = 0; k < sz; k++) {
            assert_int_equal(objs[4][k], 4);
            assert_int_equal(objs[6][k], 6);
        }
        cs_pool_free(p);
    }
}

/* An object of 33-64 bytes lies within one 64-byte cache line (so reading
 * it in a handler costs at most one miss): 48-byte objects packed at 48-byte
 * steps would straddle two lines every other object. */
static void test_line_objects_do_not_straddle(void **state) {
    (void)state;
    const size_t sizes[] = {33, 40, 48, 56, 64};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        cs_pool *p = cs_pool_new(sizes[k]);
        for (int i = 0; i < 2 * SLAB + 3; i++) {
            uintptr_t a = (uintptr_t)cs_pool_get(p);
            assert_int_equal(a / 64, (a + sizes[k] - 1) / 64);
        }
        cs_pool_free(p);
    }
}

static void test_memory_returns_to_baseline(void **state) {
    (void)state;
    size_t base = cs_alloc_bytes_in_use();
    cs_pool *p = cs_pool_new(48);
    size_t after_new = cs_alloc_bytes_in_use();
    assert_true(after_new > base); /* the pool header itself is accounted */
    for (int i = 0; i < 2500; i++) cs_pool_get(p); /* 3 slabs */
    size_t used = cs_alloc_bytes_in_use() - after_new;
    /* three slabs of 1024 objects x 64 bytes (an object of 33-64 bytes takes
     * a whole cache line), plus per-slab headers and up to a line of
     * alignment, plus the stack of free pointers: one 8-byte slot per object */
    assert_true(used >= 3 * SLAB * 64 + 3 * SLAB * sizeof(void *));
    assert_true(used <= 3 * SLAB * 64 + 3 * SLAB * sizeof(void *) + 3 * (64 + 64));
    assert_true(cs_alloc_bytes_peak() >= base + used);
    cs_pool_free(p); /* objects still in use are released with the pool */
    assert_int_equal(cs_alloc_bytes_in_use(), base);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_pool_is_empty),
        cmocka_unit_test(test_lifo_reuse),
        cmocka_unit_test(test_put_null_is_noop),
        cmocka_unit_test(test_counts_across_slabs),
        cmocka_unit_test(test_alignment_and_no_overlap),
        cmocka_unit_test(test_line_objects_do_not_straddle),
        cmocka_unit_test(test_memory_returns_to_baseline),
    };
    return cmocka_run_group_tests_name("core_pool", tests, NULL, NULL);
}
