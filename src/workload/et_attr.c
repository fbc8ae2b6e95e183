/*
 * et_attr.c -- Node attribute look-up and typed accessors, and the names of
 * the schema's enums and oneof members (see et.h, spec sections 4 and 5).
 *
 * Rules: the first attribute with a given name wins; integer-like oneof
 * members are interchangeable (real traces mix int64_val, uint64_val and
 * int32_val for the same attribute), and bool counts as the integer 0/1.
 * The oneof case decides presence, never the value.  Nothing here allocates;
 * returned pointers point into the node.
 */
#include "workload/et.h"

#include <inttypes.h>
#include <string.h>

#define VC(x) CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_##x

typedef ChakraProtoMsg__AttributeProto attr_t;

const char *cs_et_attr_value_name(int value_case) {
    static const char *const names[] = {
        "double_val",   "double_list",   "float_val",    "float_list",   "int32_val",
        "int32_list",   "int64_val",     "int64_list",   "uint32_val",   "uint32_list",
        "uint64_val",   "uint64_list",   "sint32_val",   "sint32_list",  "sint64_val",
        "sint64_list",  "fixed32_val",   "fixed32_list", "fixed64_val",  "fixed64_list",
        "sfixed32_val", "sfixed32_list", "sfixed64_val", "sfixed64_list", "bool_val",
        "bool_list",    "string_val",    "string_list",  "bytes_val",    "bytes_list"};
    if (value_case == VC(_NOT_SET)) return "no value";
    if (value_case < 3 || value_case > 32) return NULL;
    return names[value_case - 3];
}

const char *cs_et_node_type_name(int type) {
    static const char *const names[] = {"INVALID_NODE",   "METADATA_NODE",  "MEM_LOAD_NODE",
                                        "MEM_STORE_NODE", "COMP_NODE",      "COMM_SEND_NODE",
                                        "COMM_RECV_NODE", "COMM_COLL_NODE"};
    if (type < 0 || type >= (int)(sizeof names / sizeof names[0])) return NULL;
    return names[type];
}

const char *cs_et_comm_type_name(int comm_type) {
    static const char *const names[] = {"ALL_REDUCE", "REDUCE",         "ALL_GATHER",
                                        "GATHER",     "SCATTER",        "BROADCAST",
                                        "ALL_TO_ALL", "REDUCE_SCATTER", "REDUCE_SCATTER_BLOCK",
                                        "BARRIER"};
    if (comm_type < 0 || comm_type >= (int)(sizeof names / sizeof names[0])) return NULL;
    return names[comm_type];
}

const attr_t *cs_et_attr_find(const ChakraProtoMsg__Node *n, const char *name) {
    for (size_t i = 0; i < n->n_attr; i++) {
        const attr_t *a = n->attr[i];
        if (a && a->name && strcmp(a->name, name) == 0) return a;
    }
    return NULL;
}

static const char *member(const attr_t *a) {
    const char *s = cs_et_attr_value_name((int)a->value_case);
    return s ? s : "an unknown member";
}

static int type_error(const ChakraProtoMsg__Node *n, const attr_t *a, const char *expected,
                      cs_error *err) {
    return CS_ERR(err, CS_EFORMAT, "node %" PRIu64 ": attribute %s: expected %s, found %s",
                  n->id, a->name, expected, member(a));
}

/* Reads an integer-like member: *neg = 1 and the value in *s when it is
 * negative, else *neg = 0 and the value in *u.  Returns 0 when the member is
 * not integer-like. */
static int as_integer(const attr_t *a, int *neg, int64_t *s, uint64_t *u) {
    int64_t sv;
    switch (a->value_case) {
    case VC(INT32_VAL): sv = a->int32_val; break;
    case VC(SINT32_VAL): sv = a->sint32_val; break;
    case VC(SFIXED32_VAL): sv = a->sfixed32_val; break;
    case VC(INT64_VAL): sv = a->int64_val; break;
    case VC(SINT64_VAL): sv = a->sint64_val; break;
    case VC(SFIXED64_VAL): sv = a->sfixed64_val; break;
    case VC(UINT32_VAL): *neg = 0; *u = a->uint32_val; return 1;
    case VC(FIXED32_VAL): *neg = 0; *u = a->fixed32_val; return 1;
    case VC(UINT64_VAL): *neg = 0; *u = a->uint64_val; return 1;
    case VC(FIXED64_VAL): *neg = 0; *u = a->fixed64_val; return 1;
    case VC(BOOL_VAL): *neg = 0; *u = a->bool_val ? 1u : 0u; return 1;
    default: return 0;
    }
    *neg = sv < 0;
    *s = sv;
    *u = (uint64_t)sv;
    return 1;
}

int cs_et_attr_int(const ChakraProtoMsg__Node *n, const attr_t *a, int64_t *out,
                       cs_error *err) {
    if (!a) return 0;
    int neg;
    int64_t s = 0;
    uint64_t u = 0;
    if (!as_integer(a, &neg, &s, &u)) return type_error(n, a, "an integer", err);
    if (neg) {
        *out = s;
        return 1;
    }
    if (u > INT64_MAX)
        return CS_ERR(err, CS_EFORMAT,
                      "node %" PRIu64 ": attribute %s: value %" PRIu64
                      " (%s) does not fit a signed 64-bit integer",
                      n->id, a->name, u, member(a));
    *out = (int64_t)u;
    return 1;
}

int cs_et_attr_get_int(const ChakraProtoMsg__Node *n, const char *name, int64_t *out,
                       cs_error *err) {
    return cs_et_attr_int(n, cs_et_attr_find(n, name), out, err);
}

int cs_et_attr_uint(const ChakraProtoMsg__Node *n, const attr_t *a, uint64_t *out,
                        cs_error *err) {
    if (!a) return 0;
    int neg;
    int64_t s = 0;
    uint64_t u = 0;
    if (!as_integer(a, &neg, &s, &u)) return type_error(n, a, "a non-negative integer", err);
    if (neg)
        return CS_ERR(err, CS_EFORMAT,
                      "node %" PRIu64 ": attribute %s: expected a non-negative integer, "
                      "found %s %" PRId64,
                      n->id, a->name, member(a), s);
    *out = u;
    return 1;
}

int cs_et_attr_get_uint(const ChakraProtoMsg__Node *n, const char *name, uint64_t *out,
                        cs_error *err) {
    return cs_et_attr_uint(n, cs_et_attr_find(n, name), out, err);
}

int cs_et_attr_bool(const ChakraProtoMsg__Node *n, const attr_t *a, int *out,
                        cs_error *err) {
    if (!a) return 0;
    int neg;
    int64_t s = 0;
    uint64_t u = 0;
    if (!as_integer(a, &neg, &s, &u)) return type_error(n, a, "a bool or an integer", err);
    *out = u != 0;
    return 1;
}

int cs_et_attr_get_bool(const ChakraProtoMsg__Node *n, const char *name, int *out,
                        cs_error *err) {
    return cs_et_attr_bool(n, cs_et_attr_find(n, name), out, err);
}

int cs_et_attr_string(const ChakraProtoMsg__Node *n, const attr_t *a, const char **out,
                          cs_error *err) {
    if (!a) return 0;
    if (a->value_case != VC(STRING_VAL)) return type_error(n, a, "a string (string_val)", err);
    *out = a->string_val ? a->string_val : "";
    return 1;
}

int cs_et_attr_get_string(const ChakraProtoMsg__Node *n, const char *name, const char **out,
                          cs_error *err) {
    return cs_et_attr_string(n, cs_et_attr_find(n, name), out, err);
}

int cs_et_attr_bool_list(const ChakraProtoMsg__Node *n, const attr_t *a,
                             const protobuf_c_boolean **vals, size_t *count, cs_error *err) {
    if (!a) return 0;
    if (a->value_case != VC(BOOL_LIST)) return type_error(n, a, "a bool_list", err);
    const ChakraProtoMsg__BoolList *l = a->bool_list;
    *count = l ? l->n_values : 0;
    *vals = *count ? l->values : NULL;
    return 1;
}

int cs_et_attr_get_bool_list(const ChakraProtoMsg__Node *n, const char *name,
                             const protobuf_c_boolean **vals, size_t *count, cs_error *err) {
    return cs_et_attr_bool_list(n, cs_et_attr_find(n, name), vals, count, err);
}
