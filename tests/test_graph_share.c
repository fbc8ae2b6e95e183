/*
 * test_graph_share.c -- graphs that share their nodes (src/workload/graph.c
 * cs_graph_share, cs_graph_share_hash; graph.h): a view of base reads, node
 * for node through cs_graph_comm_src / _dst and its own communicator names,
 * exactly as the graph it replaces; anything else keeps the graph.
 *
 * The graphs are written out by hand: a send to rank 8 and a receive from
 * rank 8 on rank 0 (a pipeline stage's first rank), a collective on
 * communicator "tp_0", two compute nodes.  The same stage's rank 3 sends to
 * 11 and receives from 11 on "tp_3": a view with peer_shift 3.  Refused:
 * peers moved by two offsets, a duration, a dependency, a name or a
 * collective's (not point-to-point) comm_src that differs, a view as base.
 * The sharer: 100 graphs of 50 kinds, and graphs of one hash refused.
 */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "workload/graph.h"

/* rank r of the stage: COMP(1) -> SEND(2, r -> r + 8) -> COLL(3, on "tp_r")
 * -> RECV(4, r + 8 -> r) -> COMP(5) */
static cs_graph *stage_graph(int32_t r) {
    cs_graph *g = cs_calloc(1, sizeof *g);
    char src[32];
    snprintf(src, sizeof src, "rank.%d.et", r);
    g->source = cs_strdup(src);
    g->nnodes = 5;
    g->nodes = cs_calloc(5, sizeof *g->nodes);
    static const int32_t types[5] = {CS_NODE_COMP, CS_NODE_COMM_SEND, CS_NODE_COMM_COLL, CS_NODE_COMM_RECV,
                                     CS_NODE_COMP};
    for (uint32_t i = 0; i < 5; i++) {
        cs_node *n = &g->nodes[i];
        n->id = i + 1;
        n->type = types[i];
        n->nparents = i ? 1 : 0;
        n->child_begin = i < 4 ? i : 4;
        n->name = 0;
    }
    g->nodes[0].duration_us = 100;
    g->nodes[4].duration_us = 50;
    g->nodes[1].comm_src = r;
    g->nodes[1].comm_dst = r + 8;
    g->nodes[1].flags = CS_NF_HAS_SRC | CS_NF_HAS_DST | CS_NF_HAS_COMM_SIZE;
    g->nodes[1].comm_size = 1 << 20;
    g->nodes[2].comm_type = 1;
    g->nodes[2].comm_size = 4 << 20;
    g->nodes[2].flags = CS_NF_HAS_COMM_TYPE | CS_NF_HAS_COMM_SIZE;
    g->nodes[2].pg = 1;
    g->nodes[3].comm_src = r + 8;
    g->nodes[3].comm_dst = r;
    g->nodes[3].flags = CS_NF_HAS_SRC | CS_NF_HAS_DST | CS_NF_HAS_COMM_SIZE;
    g->nodes[3].comm_size = 1 << 20;
    g->nchildren = 4;
    g->children = cs_calloc(4, sizeof *g->children);
    for (uint32_t i = 0; i < 4; i++) g->children[i] = i + 1;
    g->strings_len = 5;
    g->strings = cs_malloc(5);
    memcpy(g->strings, "node", 5);
    g->npg = 2;
    g->pg_names = cs_calloc(2, sizeof *g->pg_names);
    g->pg_names[0] = cs_strdup("");
    char pg[32];
    snprintf(pg, sizeof pg, "tp_%d", r);
    g->pg_names[1] = cs_strdup(pg);
    return g;
}

static void test_view_reads_as_the_graph(void **state) {
    (void)state;
    cs_graph *base = stage_graph(0), *g3 = stage_graph(3), *same = stage_graph(0);
    assert_true(cs_graph_share_hash(base) == cs_graph_share_hash(g3));
    cs_graph *v = cs_graph_share(base, g3); /* frees g3 */
    assert_non_null(v);
    assert_ptr_equal(v->base, base);
    assert_ptr_equal(v->nodes, base->nodes);
    assert_int_equal(v->peer_shift, 3);
    assert_string_equal(v->source, "rank.3.et");
    assert_string_equal(v->pg_names[v->nodes[2].pg], "tp_3");
    /* what rank 3's own graph said, written out */
    assert_int_equal(cs_graph_comm_src(v, &v->nodes[1]), 3);
    assert_int_equal(cs_graph_comm_dst(v, &v->nodes[1]), 11);
    assert_int_equal(cs_graph_comm_src(v, &v->nodes[3]), 11);
    assert_int_equal(cs_graph_comm_dst(v, &v->nodes[3]), 3);
    /* the base reads as itself */
    assert_int_equal(cs_graph_comm_dst(base, &base->nodes[1]), 8);
    /* an identical graph: a view without a shift */
    cs_graph *v0 = cs_graph_share(base, same);
    assert_non_null(v0);
    assert_int_equal(v0->peer_shift, 0);
    /* a view is not a base */
    cs_graph *g5 = stage_graph(5);
    assert_null(cs_graph_share(v, g5));
    cs_graph_free(g5);
    cs_graph_free(v0);
    cs_graph_free(v);
    cs_graph_free(base);
}

/* Each change below makes g differ from base in something a view cannot
 * express: cs_graph_share refuses and leaves g as it was. */
static void refused(cs_graph *base, cs_graph *g, const char *why) {
    cs_node before[5];
    memcpy(before, g->nodes, sizeof before);
    if (cs_graph_share(base, g) != NULL) fail_msg("shared although %s", why);
    assert_memory_equal(before, g->nodes, sizeof before);
    assert_non_null(g->source);
    assert_int_equal(g->npg, 2);
    cs_graph_free(g);
}

static void test_refusals(void **state) {
    (void)state;
    cs_graph *base = stage_graph(0), *g;
    g = stage_graph(3);
    g->nodes[3].comm_src = 12; /* the receive from another stage's rank: two offsets */
    refused(base, g, "the peers move by 3 and 4");
    g = stage_graph(3);
    g->nodes[1].comm_src = 0; /* the send names another sender */
    refused(base, g, "a send's comm_src does not move with its comm_dst");
    g = stage_graph(3);
    g->nodes[0].duration_us = 101;
    assert_true(cs_graph_share_hash(g) != cs_graph_share_hash(base));
    refused(base, g, "a duration differs");
    g = stage_graph(3);
    g->children[2] = 4; /* 3 -> 5 instead of 3 -> 4 */
    refused(base, g, "a dependency differs");
    g = stage_graph(3);
    g->strings[0] = 'N';
    refused(base, g, "a node name differs");
    /* a collective's comm_src is not a peer: compared as is, even when it
     * moves by the point-to-point peers' offset */
    base->nodes[2].flags |= CS_NF_HAS_SRC;
    base->nodes[2].comm_src = 0;
    g = stage_graph(3);
    g->nodes[2].flags |= CS_NF_HAS_SRC;
    g->nodes[2].comm_src = 3;
    refused(base, g, "a collective's comm_src differs");
    base->nodes[2].flags &= ~(uint32_t)CS_NF_HAS_SRC;
    g = stage_graph(3);
    g->nodes[2].pg = 0; /* another communicator index */
    refused(base, g, "a node's communicator index differs");
    cs_graph_free(base);
}

/* The sharer (cs_graph_sharer_put) over 100 graphs of 50 kinds: stage
 * graphs of ranks 0..99 whose first duration is 100 + r / 2 -- ranks 2k
 * and 2k + 1 alike but for their peers (moved by 1) and names -- so 50
 * bases and 50 views, each view of the base of its pair, read as its own
 * graph; the table grows past its first 64 slots on the way.  Then two
 * graphs that differ from a base only in missing_ctrl_deps (one hash,
 * compared and refused): the first becomes a base, the second, equal to
 * it, is found past the refused one. */
static void test_sharer(void **state) {
    (void)state;
    cs_graph_sharer *sh = cs_graph_sharer_new();
    cs_graph *gs[103];
    uint32_t views = 0;
    for (int32_t r = 0; r < 100; r++) {
        cs_graph *g = stage_graph(r);
        g->nodes[0].duration_us = 100 + (uint64_t)r / 2;
        gs[r] = cs_graph_sharer_put(sh, g);
        if (r % 2 == 0) {
            assert_ptr_equal(gs[r], g);
            assert_null(gs[r]->base);
        } else {
            assert_ptr_equal(gs[r]->base, gs[r - 1]);
            assert_int_equal(gs[r]->peer_shift, 1);
            views++;
        }
        assert_int_equal(gs[r]->nodes[0].duration_us, 100 + (uint64_t)r / 2);
        assert_int_equal(cs_graph_comm_dst(gs[r], &gs[r]->nodes[1]), r + 8);
        char pg[32];
        snprintf(pg, sizeof pg, "tp_%d", r);
        assert_string_equal(gs[r]->pg_names[gs[r]->nodes[2].pg], pg);
    }
    assert_int_equal(views, 50);
    cs_graph *a = stage_graph(0), *b = stage_graph(0);
    a->nodes[0].duration_us = b->nodes[0].duration_us = 100;
    a->missing_ctrl_deps = b->missing_ctrl_deps = 1;
    gs[100] = cs_graph_sharer_put(sh, a);
    assert_ptr_equal(gs[100], a); /* refused by gs[0], a base of its own */
    gs[101] = cs_graph_sharer_put(sh, b);
    assert_ptr_equal(gs[101]->base, a);
    gs[102] = cs_graph_sharer_put(sh, gs[101]); /* a view is kept as it is */
    assert_ptr_equal(gs[102], gs[101]);
    cs_graph_sharer_free(sh);
    cs_graph_free(gs[101]); /* (gs[102] is the same view) */
    for (int i = 101; i-- > 0;) /* views before their bases (either order is safe) */
        cs_graph_free(gs[i]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_view_reads_as_the_graph),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_sharer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
