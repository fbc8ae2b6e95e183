/*
 * test_neuron_part.c -- unit tests for the Hungarian method
 * (src/core/hungarian.h) and the neuron partitioner (src/gen/neuron_part.h).
 *
 * Hungarian: against brute force over all n! permutations for random
 * matrices with n <= 7 (small and large, negative costs, many ties); the
 * result is a permutation whose cost is the total returned.
 * Partitioner, on random traces: the co-activation counts equal a direct
 * count over the tokens; the traffic (partials, crossing tokens, cut) equals
 * a direct count per token with a bitmask of workers; partials <= cut (the
 * matrix bound); the Hungarian labelling moves as few neurons as the best of
 * all w! labellings of the grown groups, brute force; the partition never
 * raises the partials; every group has n / w neurons; two runs agree.
 * Malformed files: refused with path:line, the column, what was expected.
 */
#include "testutil.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/hungarian.h"
#include "core/rand.h"
#include "gen/neuron_part.h"

/* ---- Hungarian vs brute force --------------------------------------------------------- */

/* least sum over permutations of [0, n) (Heap's algorithm is overkill: recursion over free columns) */
static int64_t brute(const int64_t *c, size_t n, size_t row, unsigned used) {
    if (row == n) return 0;
    int64_t best = INT64_MAX;
    for (size_t j = 0; j < n; j++) {
        if (used & (1u << j)) continue;
        int64_t v = c[row * n + j] + brute(c, n, row + 1, used | (1u << j));
        if (v < best) best = v;
    }
    return best;
}

static void test_hungarian_brute(void **state) {
    (void)state;
    uint64_t seed = 17;
    int64_t c[49];
    size_t col[7];
    for (int trial = 0; trial < 3000; trial++) {
        size_t n = 1 + (size_t)(cs_rand_next(&seed) % 7);
        int kind = trial % 4; /* 0: [0, 10) many ties; 1: [-1000, 1000); 2: large; 3: [0, 3) */
        for (size_t k = 0; k < n * n; k++) {
            uint64_t r = cs_rand_next(&seed);
            c[k] = kind == 0   ? (int64_t)(r % 10)
                   : kind == 1 ? (int64_t)(r % 2001) - 1000
                   : kind == 2 ? (int64_t)(r % (uint64_t)CS_HUNGARIAN_MAX_COST)
                               : (int64_t)(r % 3);
        }
        int64_t got = cs_hungarian(c, n, col);
        int64_t want = brute(c, n, 0, 0);
        assert_int_equal(got, want);
        unsigned seen = 0;
        int64_t sum = 0;
        for (size_t i = 0; i < n; i++) {
            assert_true(col[i] < n);
            assert_false(seen & (1u << col[i]));
            seen |= 1u << col[i];
            sum += c[i * n + col[i]];
        }
        assert_int_equal(sum, got);
    }
}

/* a hand case: the diagonal costs 5, the anti-diagonal 1, else 9: the anti-diagonal, 3 */
static void test_hungarian_hand(void **state) {
    (void)state;
    int64_t c[9] = {5, 9, 1, 9, 1, 9, 1, 9, 5};
    size_t col[3];
    assert_int_equal(cs_hungarian(c, 3, col), 3);
    assert_int_equal(col[0], 2);
    assert_int_equal(col[1], 1);
    assert_int_equal(col[2], 0);
}

/* ---- partitioner on random traces ----------------------------------------------------- */

typedef struct trace {
    uint32_t n, ntok;
    uint32_t set[64]; /* bitmask of active neurons per token (n <= 12) */
} trace;

static const char *write_trace(const trace *t, const char *name) {
    static char text[8192];
    size_t k = (size_t)snprintf(text, sizeof text, "# random\nactivations,%" PRIu32 "\n", t->n);
    for (uint32_t x = 0; x < t->ntok; x++) {
        int first = 1;
        for (uint32_t i = 0; i < t->n; i++)
            if (t->set[x] & (1u << i)) {
                k += (size_t)snprintf(text + k, sizeof text - k, "%s%" PRIu32, first ? "" : ",", i);
                first = 0;
            }
        k += (size_t)snprintf(text + k, sizeof text - k, "%s\n", first ? "-" : "");
    }
    return tu_write_tmp(name, text);
}

/* partials, crossing tokens and cut of an assignment, straight from the token sets */
static void direct_traffic(const trace *t, const uint32_t *worker, uint64_t *partials, uint64_t *crossing,
                           uint64_t *cut) {
    *partials = *crossing = *cut = 0;
    for (uint32_t x = 0; x < t->ntok; x++) {
        unsigned ws = 0;
        for (uint32_t i = 0; i < t->n; i++)
            if (t->set[x] & (1u << i)) ws |= 1u << worker[i];
        int k = __builtin_popcount(ws);
        if (k >= 2) {
            *partials += (uint64_t)(k - 1);
            (*crossing)++;
        }
        for (uint32_t i = 0; i < t->n; i++)
            for (uint32_t j = i + 1; j < t->n; j++)
                if ((t->set[x] >> i & 1) && (t->set[x] >> j & 1) && worker[i] != worker[j]) (*cut)++;
    }
}

/* least neurons moved over every labelling of the groups with workers */
static uint64_t best_moved(const uint32_t *group, const uint32_t *before, uint32_t n, uint32_t w, uint32_t *lab,
                           uint32_t g, unsigned used) {
    if (g == w) {
        uint64_t m = 0;
        for (uint32_t i = 0; i < n; i++) m += lab[group[i]] != before[i];
        return m;
    }
    uint64_t best = UINT64_MAX;
    for (uint32_t k = 0; k < w; k++) {
        if (used & (1u << k)) continue;
        lab[g] = k;
        uint64_t v = best_moved(group, before, n, w, lab, g + 1, used | (1u << k));
        if (v < best) best = v;
    }
    return best;
}

static void test_partition_random(void **state) {
    (void)state;
    static const uint32_t shapes[][2] = {{4, 2}, {6, 2}, {6, 3}, {8, 2}, {8, 4}, {9, 3}, {10, 5}, {12, 4}, {12, 6}};
    uint64_t seed = 99;
    for (int trial = 0; trial < 200; trial++) {
        trace t;
        t.n = shapes[trial % 9][0];
        uint32_t w = shapes[trial % 9][1];
        t.ntok = 1 + (uint32_t)(cs_rand_next(&seed) % 40);
        for (uint32_t x = 0; x < t.ntok; x++) t.set[x] = (uint32_t)(cs_rand_next(&seed) & ((1u << t.n) - 1));
        const char *path = write_trace(&t, "rand.txt");
        cs_npart_data d;
        cs_error err;
        cs_error_clear(&err);
        assert_int_equal(cs_npart_load(path, CS_NPART_MAX_NEURONS, &d, &err), CS_OK);
        assert_int_equal(d.n, t.n);
        assert_int_equal(d.tokens, t.ntok);
        for (uint32_t i = 0; i < t.n; i++)
            for (uint32_t j = 0; j < t.n; j++) {
                uint32_t c = 0;
                for (uint32_t x = 0; x < t.ntok; x++) c += (t.set[x] >> i & 1) && (t.set[x] >> j & 1);
                assert_int_equal(cs_npart_co(&d, i, j), c);
            }
        cs_npart_result r, r2;
        assert_int_equal(cs_npart_partition(&d, w, &r, &err), CS_OK);
        assert_int_equal(cs_npart_partition(&d, w, &r2, &err), CS_OK);
        assert_memory_equal(r.after, r2.after, t.n * sizeof *r.after);
        assert_memory_equal(r.group, r2.group, t.n * sizeof *r.group);
        uint32_t s = t.n / w, size[12] = {0};
        for (uint32_t i = 0; i < t.n; i++) {
            assert_int_equal(r.before[i], i / s);
            assert_true(r.group[i] < w);
            size[r.group[i]]++;
        }
        for (uint32_t g = 0; g < w; g++) assert_int_equal(size[g], s);
        /* traffic of before and of the grown partition, counted directly */
        uint32_t grown[12];
        for (uint32_t i = 0; i < t.n; i++) grown[i] = r.group_worker[r.group[i]];
        const uint32_t *lay[2] = {r.before, grown};
        const cs_npart_traffic *tr[2] = {&r.t_before, &r.t_grown};
        for (int k = 0; k < 2; k++) {
            uint64_t p, cr, cut;
            direct_traffic(&t, lay[k], &p, &cr, &cut);
            assert_int_equal(tr[k]->partials, p);
            assert_int_equal(tr[k]->tokens_crossing, cr);
            assert_int_equal(tr[k]->cut, cut);
            assert_true(p <= cut);
        }
        /* the chosen one never raises the partials; the labelling is the least moving one */
        assert_true(r.t_after.partials <= r.t_before.partials);
        if (r.kept_contiguous) {
            assert_int_equal(r.moved, 0);
        } else {
            uint32_t lab[12];
            uint64_t m = 0;
            for (uint32_t i = 0; i < t.n; i++) m += grown[i] != r.before[i];
            assert_int_equal(r.moved, m);
            assert_int_equal(m, best_moved(r.group, r.before, t.n, w, lab, 0, 0));
        }
        cs_npart_result_free(&r);
        cs_npart_result_free(&r2);
        cs_npart_data_free(&d);
    }
}

/* ---- the interleaved blocks, by hand --------------------------------------------------- */

/* 8 neurons, 2 workers; tokens alternate {0,2,4,6} and {1,3,5,7}, 4 tokens.  Contiguous
 * ({0..3}, {4..7}): every token touches both workers: 4 partials; pairs split: per token the
 * 2 x 2 active neurons on different workers, 4 x 4 = 16.  Grown: seed 0 (all active in 2
 * tokens, lowest id), then 2, 4, 6 (co-activation 2 each, odd ones 0): {0,2,4,6} and
 * {1,3,5,7}: 0 partials, cut 0.  Labelling: each group has 2 neurons on each contiguous
 * worker, so any labelling moves 4. */
static void test_interleaved_blocks(void **state) {
    (void)state;
    const char *path = tu_write_tmp("il.txt", "activations,8\n0,2,4,6\n1,3,5,7\n0,2,4,6\n1,3,5,7\n");
    cs_npart_data d;
    cs_npart_result r;
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_npart_load(path, CS_NPART_MAX_NEURONS, &d, &err), CS_OK);
    assert_int_equal(cs_npart_partition(&d, 2, &r, &err), CS_OK);
    assert_int_equal(r.t_before.partials, 4);
    assert_int_equal(r.t_before.cut, 16);
    assert_int_equal(r.t_after.partials, 0);
    assert_int_equal(r.t_after.cut, 0);
    assert_false(r.kept_contiguous);
    for (uint32_t i = 0; i < 8; i++) assert_int_equal(r.group[i], i % 2);
    assert_int_equal(r.after[0], r.after[6]);
    assert_int_not_equal(r.after[0], r.after[1]);
    assert_int_equal(r.moved, 4);
    cs_npart_result_free(&r);
    cs_npart_data_free(&d);
    /* the same counts as a matrix: entries 2 where the parities agree */
    char text[512];
    size_t k = (size_t)snprintf(text, sizeof text, "coactivation,8,4\n");
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) k += (size_t)snprintf(text + k, sizeof text - k, "%d%s", (i - j) % 2 ? 0 : 2, j == 7 ? "\n" : ",");
    path = tu_write_tmp("il.csv", text);
    assert_int_equal(cs_npart_load(path, CS_NPART_MAX_NEURONS, &d, &err), CS_OK);
    assert_false(d.from_trace);
    assert_int_equal(cs_npart_partition(&d, 2, &r, &err), CS_OK);
    assert_int_equal(r.t_before.partials, 16); /* the bound: the cut */
    assert_int_equal(r.t_after.partials, 0);
    for (uint32_t i = 0; i < 8; i++) assert_int_equal(r.group[i], i % 2);
    cs_npart_result_free(&r);
    cs_npart_data_free(&d);
}

/* the labelling matters: groups {1,4,5} (seeded first: active in 2 tokens) and {0,2,3};
 * group 0 has 2 neurons on contiguous worker 1, so it is labelled 1: 2 neurons move (1, 3),
 * where group g -> worker g would move 4. */
static void test_labelling_by_hand(void **state) {
    (void)state;
    const char *path = tu_write_tmp("hu.txt", "activations,6\n1,4,5\n1,4,5\n0,2,3\n");
    cs_npart_data d;
    cs_npart_result r;
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_npart_load(path, CS_NPART_MAX_NEURONS, &d, &err), CS_OK);
    assert_int_equal(cs_npart_partition(&d, 2, &r, &err), CS_OK);
    static const uint32_t group[6] = {1, 0, 1, 1, 0, 0}, after[6] = {0, 1, 0, 0, 1, 1};
    assert_memory_equal(r.group, group, sizeof group);
    assert_memory_equal(r.after, after, sizeof after);
    assert_int_equal(r.moved, 2);
    assert_int_equal(r.t_before.partials, 3);
    assert_int_equal(r.t_after.partials, 0);
    cs_npart_result_free(&r);
    cs_npart_data_free(&d);
}

/* ---- memory follows the file ------------------------------------------------------------ */

/* A 40-byte trace that declares the largest N: before, its counts were an N x N array
 * (8192^2 x 4 B = 256 MiB) whatever the file held.  Now what is allocated is the file, the
 * ids and offsets, and three arrays of N 32-bit words (activity, index offsets, fill):
 * 3 x 8193 x 4 B < 100 KiB; with the partition's own arrays (N words each for before,
 * group, after, 2 N words of gain) and a W x W cost matrix for W = 2, under 1 MiB.
 * Runs first, so the allocator's peak is this test's. */
static void test_trace_memory(void **state) {
    (void)state;
    size_t base = cs_alloc_bytes_in_use();
    assert_true(cs_alloc_bytes_peak() < base + (1u << 20));
    const char *path = tu_write_tmp("wide.txt", "activations,8192\n0,8191\n-\n5\n0,5\n");
    cs_npart_data d;
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_npart_load(path, CS_NPART_MAX_NEURONS, &d, &err), CS_OK);
    assert_int_equal(d.n, 8192);
    assert_int_equal(d.tokens, 4);
    /* counts by hand: 0 in tokens 0 and 3, 5 in 2 and 3, 8191 in 0 */
    assert_int_equal(cs_npart_co(&d, 0, 0), 2);
    assert_int_equal(cs_npart_co(&d, 5, 5), 2);
    assert_int_equal(cs_npart_co(&d, 0, 5), 1);
    assert_int_equal(cs_npart_co(&d, 5, 0), 1);
    assert_int_equal(cs_npart_co(&d, 0, 8191), 1);
    assert_int_equal(cs_npart_co(&d, 5, 8191), 0);
    assert_int_equal(cs_npart_co(&d, 7, 7), 0);
    cs_npart_result r;
    assert_int_equal(cs_npart_partition(&d, 2, &r, &err), CS_OK);
    /* grown: group 0 seeded with 0 (most active, lowest id), then 5 and 8191 (gain 1 each)
     * join it with the 4093 inactive neurons after them: no pair is split, 0 partials */
    assert_int_equal(r.t_grown.partials, 0);
    assert_int_equal(r.t_grown.cut, 0);
    /* contiguous: 0 and 5 on worker 0, 8191 on worker 1: token 0 is split (cut 1, 1 partial) */
    assert_int_equal(r.t_before.partials, 1);
    assert_int_equal(r.t_before.cut, 1);
    assert_true(cs_alloc_bytes_peak() < base + (1u << 20));
    cs_npart_result_free(&r);
    cs_npart_data_free(&d);
}

/* ---- malformed files --------------------------------------------------------------------- */

static void refused(const char *text, int line, const char *extra) {
    const char *path = tu_write_tmp("bad.txt", text);
    cs_npart_data d;
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_npart_load(path, 64, &d, &err);
    if (rc == CS_OK) fail_msg("accepted: %s", text);
    assert_int_equal(rc, CS_EFORMAT);
    tu_assert_located(err.msg, path, line, NULL, extra);
    assert_null(d.co);
}

static void test_malformed(void **state) {
    (void)state;
    refused("matrix,2,1\n1,0\n0,1\n", 1, "column 1");
    refused("coactivation,x,1\n", 1, "column 2: neurons");
    refused("coactivation,65,1\n", 1, "[1, 64]");
    refused("coactivation,2\n1,0\n0,1\n", 1, "column 3: tokens");
    refused("coactivation,2,1,7\n1,0\n0,1\n", 1, "column 3: tokens");
    refused("coactivation,4,1\n1,0\n", 1, "expected at least 32 bytes");
    refused("coactivation,2,1\n1,0\n0,2\n", 3, "column 2");             /* above T */
    refused("coactivation,2,5\n1,0\n1,1\n", 3, "symmetric");             /* (1,0) != (0,1) */
    refused("coactivation,2,5\n1,2\n2,3\n", 2, "at most the smaller");   /* pair 2 > neuron 0's 1 */
    refused("coactivation,2,5\n1,0\n0\n# c\n\n\n\n", 3, "expected 2 columns");
    refused("coactivation,2,5\n1,0,0\n0,1\n\n\n", 2, "column 3");
    refused("coactivation,2,5\n1,0\n0,1\n0,1\n", 4, "end of the file");
    refused("coactivation,2,5\n1,-0\n0,1\n\n\n", 2, "column 2");
    refused("coactivation,2,5\n1, 0\n0,1\n\n\n", 2, "column 2");
    refused("activations,4\n0,1\n3,1\n", 3, "column 2");                 /* not increasing */
    refused("activations,4\n0,4\n", 2, "[0, 3]");
    refused("activations,4\n\n", 2, "column 1");                         /* empty: "-" expected */
    refused("activations,4\n0,,1\n", 2, "column 2");
    refused("activations,0\n", 1, "column 2: neurons");
    refused("# only a comment\n", 1, "no header");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trace_memory),      cmocka_unit_test(test_hungarian_brute),   cmocka_unit_test(test_hungarian_hand),
        cmocka_unit_test(test_partition_random),  cmocka_unit_test(test_interleaved_blocks),
        cmocka_unit_test(test_labelling_by_hand), cmocka_unit_test(test_malformed),
    };
    return cmocka_run_group_tests_name("neuron_part", tests, NULL, NULL);
}
