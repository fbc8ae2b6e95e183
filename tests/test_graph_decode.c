/*
 * test_graph_decode.c -- how a node's attributes become a graph node
 * (src/workload/graph.c decode_node, through cs_graph_builder; the trace
 * reader feeds the same builder record by record):
 *  - the first attribute of a name wins (ASTRA-sim feeder v3's rule), a
 *    later one of the same name is not even converted;
 *  - integer-like members are interchangeable, bool counts as 0/1;
 *  - when several attributes are bad, the error names the first in the
 *    order the decoder checks them (is_cpu_op, comm_type, num_ops,
 *    tensor_size, comm_size, comm_src, comm_dst, comm_tag, comm_priority,
 *    pg_name, involved_dim), whatever their order in the node, prefixed
 *    with the source name (the node id once: before 2026-11-27 it was
 *    named twice, "t.et: node 11: node 11: attribute ...");
 *  - unknown attributes are ignored; a COMM node with is_cpu_op runs as a
 *    CPU COMP node.
 * Every expected value is the node's own, written out below.
 */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

#include "workload/et.h"
#include "workload/graph.h"

#define VC(x) CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_##x

typedef ChakraProtoMsg__AttributeProto attr_t;

/* An attribute of the given name (copied: the message's fields are not const). */
static char g_names[64][32];
static unsigned g_nnames;
static attr_t named(const char *name) {
    attr_t a;
    chakra_proto_msg__attribute_proto__init(&a);
    char *copy = g_names[g_nnames++ % 64];
    snprintf(copy, sizeof g_names[0], "%s", name);
    a.name = copy;
    return a;
}

static attr_t a_u64(const char *name, uint64_t v) {
    attr_t a = named(name);
    a.value_case = VC(UINT64_VAL);
    a.uint64_val = v;
    return a;
}
static attr_t a_i32(const char *name, int32_t v) {
    attr_t a = named(name);
    a.value_case = VC(INT32_VAL);
    a.int32_val = v;
    return a;
}
static attr_t a_bool(const char *name, int v) {
    attr_t a = named(name);
    a.value_case = VC(BOOL_VAL);
    a.bool_val = v;
    return a;
}
static char g_vals[16][32];
static unsigned g_nvals;
static attr_t a_str(const char *name, const char *v) {
    attr_t a = named(name);
    a.value_case = VC(STRING_VAL);
    char *copy = g_vals[g_nvals++ % 16];
    snprintf(copy, sizeof g_vals[0], "%s", v);
    a.string_val = copy;
    return a;
}

/* One node with the given attributes, built into a graph: CS_OK and *g,
 * or the builder's error. */
static int build_one(uint64_t id, int type, attr_t *at, size_t n, cs_graph **g, cs_error *err) {
    attr_t *ptr[16];
    for (size_t i = 0; i < n; i++) ptr[i] = &at[i];
    ChakraProtoMsg__Node node;
    chakra_proto_msg__node__init(&node);
    static char nname[] = "n";
    node.id = id;
    node.name = nname;
    node.type = (ChakraProtoMsg__NodeType)type;
    node.n_attr = n;
    node.attr = ptr;
    cs_graph_builder *gb = cs_graph_builder_new("t.et", NULL);
    int rc = cs_graph_builder_add(gb, &node, err);
    if (rc) {
        cs_graph_builder_free(gb);
        return rc;
    }
    return cs_graph_builder_finish(gb, g, err);
}

static void test_first_wins(void **state) {
    (void)state;
    cs_error err;
    cs_error_clear(&err);
    /* comm_size 100 then 200 (and a bad third one that is never converted); comm_type as int32 7
     * (REDUCE_SCATTER), then as a string; unknown attributes between */
    attr_t at[] = {a_u64("comm_size", 100), a_str("foo", "bar"),     a_i32("comm_type", 7),
                   a_u64("comm_size", 200), a_str("comm_type", "x"), a_str("comm_size", "not a number"),
                   a_str("pg_name", "7"),   a_str("pg_name", "8"),   a_bool("is_cpu_op", 0)};
    cs_graph *g = NULL;
    assert_int_equal(build_one(5, CS_NODE_COMM_COLL, at, sizeof at / sizeof at[0], &g, &err), CS_OK);
    assert_int_equal(g->nnodes, 1);
    const cs_node *n = &g->nodes[0];
    assert_int_equal(n->comm_size, 100);
    assert_int_equal(n->comm_type, 7);
    assert_true(n->flags & CS_NF_HAS_COMM_SIZE);
    assert_true(n->flags & CS_NF_HAS_COMM_TYPE);
    assert_false(n->flags & (CS_NF_CPU | CS_NF_HAS_NUM_OPS | CS_NF_HAS_SRC | CS_NF_HAS_INVOLVED));
    assert_int_equal(n->type, CS_NODE_COMM_COLL);
    assert_string_equal(g->pg_names[n->pg], "7");
    assert_int_equal(n->involved_dim, UINT32_MAX); /* absent: every dimension */
    cs_graph_free(g);
}

static void test_bool_and_ints(void **state) {
    (void)state;
    cs_error err;
    cs_error_clear(&err);
    /* a COMM_SEND with is_cpu_op (as an int64 1): a CPU COMP node; comm_dst as bool 1, comm_tag as
     * uint64, num_ops as int32 */
    attr_t at[] = {a_u64("is_cpu_op", 1), a_bool("comm_dst", 1), a_u64("comm_tag", 42), a_i32("num_ops", 1000)};
    cs_graph *g = NULL;
    tu_capture_warnings();
    int rc = build_one(9, CS_NODE_COMM_SEND, at, 4, &g, &err);
    tu_capture_end();
    assert_int_equal(rc, CS_OK);
    const cs_node *n = &g->nodes[0];
    assert_int_equal(n->type, CS_NODE_COMP);
    assert_true(n->flags & CS_NF_HOST_COMM);
    assert_true(n->flags & CS_NF_CPU);
    assert_int_equal(n->comm_dst, 1);
    assert_true(n->flags & CS_NF_HAS_DST);
    assert_int_equal(n->comm_tag, 42);
    assert_int_equal(n->num_ops, 1000);
    cs_graph_free(g);
}

/* Two bad attributes: the error is the first the decoder checks, not the first in the node. */
static void test_error_order(void **state) {
    (void)state;
    cs_error err;
    cs_error_clear(&err);
    attr_t at[] = {a_str("comm_dst", "x"), a_str("num_ops", "y"), a_str("comm_type", "z")};
    cs_graph *g = NULL;
    assert_int_equal(build_one(11, CS_NODE_COMM_COLL, at, 3, &g, &err), CS_EFORMAT);
    tu_assert_has(err.msg, "t.et: node 11: attribute comm_type: expected an integer, found string_val");
    cs_error_clear(&err);
    attr_t at2[] = {a_str("comm_dst", "x"), a_str("num_ops", "y")};
    assert_int_equal(build_one(12, CS_NODE_COMM_COLL, at2, 2, &g, &err), CS_EFORMAT);
    tu_assert_has(err.msg, "t.et: node 12: attribute num_ops: expected a non-negative integer");
    cs_error_clear(&err);
    attr_t at3[] = {a_i32("comm_src", -1), a_u64("comm_dst", (uint64_t)1 << 40)};
    assert_int_equal(build_one(13, CS_NODE_COMM_SEND, at3, 2, &g, &err), CS_EFORMAT);
    tu_assert_has(err.msg, "t.et: node 13: attribute comm_dst: expected a 32-bit integer, got 1099511627776");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_wins),
        cmocka_unit_test(test_bool_and_ints),
        cmocka_unit_test(test_error_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
