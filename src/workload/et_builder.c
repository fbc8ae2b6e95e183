/*
 * et_builder.c -- cs_et_nb: builds one ChakraProtoMsg__Node for our own
 * trace generators and tests (see et.h).
 *
 * The builder owns the Node and everything it points to (name, dependency
 * arrays, attributes and their strings and lists), all from the project
 * allocator; cs_et_nb_free releases it.  Attributes use the oneof member
 * Chakra's own tools use for each kind of value (spec section 5), and are
 * kept in call order.
 */
#include "workload/et.h"

#include "core/alloc.h"

typedef ChakraProtoMsg__AttributeProto attr_t;

#define VC(x) CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_##x

struct cs_et_nb {
    ChakraProtoMsg__Node node;
    size_t attr_cap, ctrl_cap, data_cap;
};

cs_et_nb *cs_et_nb_new(uint64_t id, const char *name, int type) {
    cs_et_nb *b = cs_calloc(1, sizeof *b);
    chakra_proto_msg__node__init(&b->node);
    b->node.id = id;
    b->node.name = cs_strdup(name ? name : "");
    b->node.type = (ChakraProtoMsg__NodeType)type;
    return b;
}

void cs_et_nb_data_dep(cs_et_nb *b, uint64_t parent) {
    CS_GROW(b->node.data_deps, b->data_cap, b->node.n_data_deps + 1);
    b->node.data_deps[b->node.n_data_deps++] = parent;
}

void cs_et_nb_ctrl_dep(cs_et_nb *b, uint64_t parent) {
    CS_GROW(b->node.ctrl_deps, b->ctrl_cap, b->node.n_ctrl_deps + 1);
    b->node.ctrl_deps[b->node.n_ctrl_deps++] = parent;
}

void cs_et_nb_duration_us(cs_et_nb *b, uint64_t us) { b->node.duration_micros = us; }

void cs_et_nb_start_time_us(cs_et_nb *b, uint64_t us) { b->node.start_time_micros = us; }

/* Appends a named attribute with no value yet. */
static attr_t *add_attr(cs_et_nb *b, const char *name, int value_case) {
    attr_t *a = cs_calloc(1, sizeof *a);
    chakra_proto_msg__attribute_proto__init(a);
    a->name = cs_strdup(name);
    a->value_case = (ChakraProtoMsg__AttributeProto__ValueCase)value_case;
    CS_GROW(b->node.attr, b->attr_cap, b->node.n_attr + 1);
    b->node.attr[b->node.n_attr++] = a;
    return a;
}

void cs_et_nb_attr_int64(cs_et_nb *b, const char *name, int64_t v) {
    add_attr(b, name, VC(INT64_VAL))->int64_val = v;
}

void cs_et_nb_attr_uint64(cs_et_nb *b, const char *name, uint64_t v) {
    add_attr(b, name, VC(UINT64_VAL))->uint64_val = v;
}

void cs_et_nb_attr_int32(cs_et_nb *b, const char *name, int32_t v) {
    add_attr(b, name, VC(INT32_VAL))->int32_val = v;
}

void cs_et_nb_attr_bool(cs_et_nb *b, const char *name, int v) {
    add_attr(b, name, VC(BOOL_VAL))->bool_val = v != 0;
}

void cs_et_nb_attr_string(cs_et_nb *b, const char *name, const char *v) {
    add_attr(b, name, VC(STRING_VAL))->string_val = cs_strdup(v ? v : "");
}

void cs_et_nb_attr_bool_list(cs_et_nb *b, const char *name, const int *v, size_t n) {
    ChakraProtoMsg__BoolList *l = cs_calloc(1, sizeof *l);
    chakra_proto_msg__bool_list__init(l);
    if (n) {
        l->values = cs_calloc(n, sizeof *l->values);
        for (size_t i = 0; i < n; i++) l->values[i] = v[i] != 0;
        l->n_values = n;
    }
    add_attr(b, name, VC(BOOL_LIST))->bool_list = l;
}

const ChakraProtoMsg__Node *cs_et_nb_node(cs_et_nb *b) { return &b->node; }

static void free_attr(attr_t *a) {
    if (a->value_case == VC(STRING_VAL)) cs_free(a->string_val);
    if (a->value_case == VC(BOOL_LIST) && a->bool_list) {
        cs_free(a->bool_list->values);
        cs_free(a->bool_list);
    }
    cs_free(a->name);
    cs_free(a);
}

void cs_et_nb_free(cs_et_nb *b) {
    if (!b) return;
    for (size_t i = 0; i < b->node.n_attr; i++) free_attr(b->node.attr[i]);
    cs_free(b->node.attr);
    cs_free(b->node.ctrl_deps);
    cs_free(b->node.data_deps);
    cs_free(b->node.name);
    cs_free(b);
}
