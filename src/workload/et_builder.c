/*
 * et_builder.c -- cs_et_nb: builds one ChakraProtoMsg__Node for our own
 * trace generators and tests (see et.h).
 *
 * The builder owns the Node and everything it points to (name, dependency
 * arrays, attributes and their strings and lists), all from the project
 * allocator; cs_et_nb_free releases it.  Attributes use the oneof member
 * Chakra's own tools use for each kind of value (spec section 5), and are
 * kept in call order.
 *
 * Reuse (cs_et_nb_reset, for generators that build one node at a time):
 * the attribute records, the dependency arrays and a string arena stay
 * allocated from one node to the next, so a generator's steady state
 * allocates nothing per node.  Strings are copied into the arena; one
 * that does not fit is allocated on its own ("spilled") and the arena
 * grows by the spilled bytes at the next reset.
 */
#include "workload/et.h"

#include <string.h>

#include "core/alloc.h"

typedef ChakraProtoMsg__AttributeProto attr_t;

#define VC(x) CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_##x

struct cs_et_nb {
    ChakraProtoMsg__Node node;
    size_t attr_cap, ctrl_cap, data_cap;
    size_t attr_made;          /* attribute records allocated in node.attr[0..attr_made) (reused) */
    char *arena;               /* strings: [0, arena_len) used of arena_cap */
    size_t arena_len, arena_cap;
    char **spill;              /* strings that did not fit, each its own allocation */
    size_t nspill, cap_spill, spill_bytes;
};

/* A copy of s owned by the builder until its next reset or free. */
static char *nb_str(cs_et_nb *b, const char *s) {
    size_t n = strlen(s) + 1;
    if (b->arena_cap - b->arena_len >= n) {
        char *d = b->arena + b->arena_len;
        memcpy(d, s, n);
        b->arena_len += n;
        return d;
    }
    CS_GROW(b->spill, b->cap_spill, b->nspill + 1);
    char *d = cs_strdup(s);
    b->spill[b->nspill++] = d;
    b->spill_bytes += n;
    return d;
}

/* The lists attributes own (bool lists), released. */
static void free_lists(cs_et_nb *b) {
    for (size_t i = 0; i < b->node.n_attr; i++) {
        attr_t *a = b->node.attr[i];
        if (a->value_case == VC(BOOL_LIST) && a->bool_list) {
            cs_free(a->bool_list->values);
            cs_free(a->bool_list);
            a->bool_list = NULL;
        }
    }
}

void cs_et_nb_reset(cs_et_nb *b, uint64_t id, const char *name, int type) {
    free_lists(b);
    if (b->nspill) { /* grow the arena so that the next node of this size fits (nothing points into it now) */
        for (size_t i = 0; i < b->nspill; i++) cs_free(b->spill[i]);
        b->nspill = 0;
        size_t cap = b->arena_cap + b->spill_bytes + 64;
        cs_free(b->arena);
        b->arena = cs_malloc(cap);
        b->arena_cap = cap;
        b->spill_bytes = 0;
    }
    b->arena_len = 0;
    ChakraProtoMsg__AttributeProto **attr = b->node.attr;
    uint64_t *ctrl = b->node.ctrl_deps, *data = b->node.data_deps;
    chakra_proto_msg__node__init(&b->node);
    b->node.attr = attr; /* kept, with their records; counts back to 0 */
    b->node.ctrl_deps = ctrl;
    b->node.data_deps = data;
    b->node.id = id;
    b->node.name = nb_str(b, name ? name : "");
    b->node.type = (ChakraProtoMsg__NodeType)type;
}

cs_et_nb *cs_et_nb_new(uint64_t id, const char *name, int type) {
    cs_et_nb *b = cs_calloc(1, sizeof *b);
    chakra_proto_msg__node__init(&b->node);
    b->node.id = id;
    b->node.name = nb_str(b, name ? name : "");
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

/* Appends a named attribute with no value yet (a record kept from an
 * earlier node when there is one). */
static attr_t *add_attr(cs_et_nb *b, const char *name, int value_case) {
    attr_t *a;
    if (b->node.n_attr < b->attr_made) {
        a = b->node.attr[b->node.n_attr];
    } else {
        CS_GROW(b->node.attr, b->attr_cap, b->node.n_attr + 1);
        a = cs_malloc(sizeof *a);
        b->node.attr[b->node.n_attr] = a;
        b->attr_made++;
    }
    chakra_proto_msg__attribute_proto__init(a);
    a->name = nb_str(b, name);
    a->value_case = (ChakraProtoMsg__AttributeProto__ValueCase)value_case;
    b->node.n_attr++;
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
    add_attr(b, name, VC(STRING_VAL))->string_val = nb_str(b, v ? v : "");
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

void cs_et_nb_free(cs_et_nb *b) {
    if (!b) return;
    free_lists(b);
    for (size_t i = 0; i < b->attr_made; i++) cs_free(b->node.attr[i]);
    cs_free(b->node.attr);
    cs_free(b->node.ctrl_deps);
    cs_free(b->node.data_deps);
    for (size_t i = 0; i < b->nspill; i++) cs_free(b->spill[i]);
    cs_free(b->spill);
    cs_free(b->arena);
    cs_free(b);
}
