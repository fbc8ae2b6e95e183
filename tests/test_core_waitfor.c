/*
 * test_core_waitfor.c -- unit tests for the wait-for graph of the deadlock
 * report (src/core/waitfor.h), on graphs drawn by hand:
 *   a -> b -> c -> d -> b (cycle b c d), e -> a, f alone:
 *   the cycle is b, c, d (rotated to the lowest rank: c has rank 0), with
 *   the reasons of its edges; a is 1 wait from it, e 2, f none;
 *   keys find their vertices, duplicate edges count once, notes append;
 *   a graph without a cycle reports none.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/waitfor.h"

static void test_cycle_and_distances(void **state) {
    (void)state;
    cs_wfg *g = cs_wfg_new();
    uint32_t a = cs_wfg_add(g, NULL, CS_WV_NODE, 5, 1, 0, "a");
    uint32_t b = cs_wfg_add(g, NULL, CS_WV_STREAM, 3, 1, 0, "b");
    uint32_t c = cs_wfg_add(g, NULL, CS_WV_STREAM, 0, 2, 0, "c");
    uint32_t d = cs_wfg_add(g, NULL, CS_WV_ISSUE, 4, 1, 7, "d");
    uint32_t e = cs_wfg_add(g, NULL, CS_WV_NODE, 6, 1, 0, "e");
    int added = 1;
    uint32_t f = cs_wfg_add(g, &added, CS_WV_NODE, 7, 9, 0, "f");
    assert_int_equal(added, 1);
    assert_int_equal(cs_wfg_add(g, &added, CS_WV_STREAM, 0, 2, 0, "again"), c);
    assert_int_equal(added, 0);
    assert_string_equal(cs_wfg_label(g, c), "c");
    assert_int_equal(cs_wfg_find(g, CS_WV_ISSUE, 4, 1, 7), d);
    assert_int_equal(cs_wfg_find(g, CS_WV_ISSUE, 4, 1, 8), UINT32_MAX);
    cs_wfg_edge(g, a, b, CS_WE_MEMBER);
    cs_wfg_edge(g, b, c, CS_WE_QUEUE);
    cs_wfg_edge(g, b, c, CS_WE_QUEUE); /* once */
    cs_wfg_edge(g, c, d, CS_WE_ISSUE);
    cs_wfg_edge(g, d, b, CS_WE_NODE);
    cs_wfg_edge(g, e, a, CS_WE_PARENT);
    assert_int_equal(cs_wfg_out_degree(g, b), 1);
    assert_int_equal(cs_wfg_out_degree(g, f), 0);
    cs_wfg_note(g, f, ": never %s", "sent");
    assert_string_equal(cs_wfg_label(g, f), "f: never sent");
    const uint32_t *cyc;
    const int *why;
    assert_int_equal(cs_wfg_cycle(g, &cyc, &why), 3);
    assert_int_equal(cyc[0], c); /* rank 0 first */
    assert_int_equal(cyc[1], d);
    assert_int_equal(cyc[2], b);
    assert_int_equal(why[0], CS_WE_ISSUE);
    assert_int_equal(why[1], CS_WE_NODE);
    assert_int_equal(why[2], CS_WE_QUEUE);
    uint32_t next;
    int w;
    assert_int_equal(cs_wfg_dist(g, b, NULL, NULL), 0);
    assert_int_equal(cs_wfg_dist(g, a, &next, &w), 1);
    assert_int_equal(next, b);
    assert_int_equal(w, CS_WE_MEMBER);
    assert_int_equal(cs_wfg_dist(g, e, &next, &w), 2);
    assert_int_equal(next, a);
    assert_int_equal(cs_wfg_dist(g, f, NULL, NULL), UINT32_MAX);
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    cs_wfg_write_cycle(g, m, "  ");
    fclose(m);
    char want[512];
    snprintf(want, sizeof want, "  c: %s\n  d: %s\n  b: %s\n  c (the first line again: the waits close a cycle)\n",
             cs_wfg_why_text(CS_WE_ISSUE), cs_wfg_why_text(CS_WE_NODE), cs_wfg_why_text(CS_WE_QUEUE));
    assert_string_equal(text, want);
    free(text);
    cs_wfg_free(g);
}

static void test_no_cycle(void **state) {
    (void)state;
    cs_wfg *g = cs_wfg_new();
    uint32_t v[600];
    for (uint32_t i = 0; i < 600; i++) v[i] = cs_wfg_add(g, NULL, CS_WV_NODE, i, i, 0, "v%u", i); /* rehashes */
    for (uint32_t i = 0; i + 1 < 600; i++) cs_wfg_edge(g, v[i], v[i + 1], CS_WE_PARENT);
    for (uint32_t i = 0; i < 600; i++) assert_int_equal(cs_wfg_find(g, CS_WV_NODE, i, i, 0), v[i]);
    const uint32_t *cyc;
    const int *why;
    assert_int_equal(cs_wfg_cycle(g, &cyc, &why), 0);
    assert_int_equal(cs_wfg_dist(g, v[0], NULL, NULL), UINT32_MAX);
    cs_wfg_free(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cycle_and_distances),
        cmocka_unit_test(test_no_cycle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
