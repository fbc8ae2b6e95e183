/*
 * et_json.c -- ET messages as JSON, in the exact form Chakra's jsonizer
 * prints (protobuf's MessageToJson with default options), so our reader can
 * be checked value for value against the reference dumps in
 * shared/testdata/chakra (see et.h and spec section 8, item 10).
 *
 * The conversion is driven by the protobuf-c descriptors generated from
 * chakra_et.proto, so every message of the schema is covered by one walk:
 *   - keys are the field names in lowerCamelCase (doc_string -> docString);
 *   - plain (proto3) scalars are omitted when zero, "" or empty bytes;
 *     repeated fields when empty; sub-messages when absent (NULL);
 *   - a oneof member is shown whenever it is the set case, even when zero;
 *   - int64/uint64/sint64/fixed64/sfixed64 are decimal strings, 32-bit
 *     integers are numbers, bool is true/false;
 *   - enums by name, values outside the schema as numbers;
 *   - float: the shortest %.Ng (N = 6..9) that reads back as the same float,
 *     as protobuf's Python ToShortestFloat does; double: the value itself;
 *     NaN and infinities as the strings "NaN", "Infinity", "-Infinity";
 *   - bytes: standard base64 with padding;
 *   - strings: UTF-8 as is; invalid UTF-8 (protobuf-c accepts it, Python
 *     protobuf would not) has each bad byte replaced by U+FFFD.
 * Every returned value is a new jansson reference owned by the caller.
 */
#include "workload/et.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/opts.h"

static json_t *msg_to_json(const ProtobufCMessage *m);

/* ---- scalars ------------------------------------------------------------ */

static json_t *float_json(float f) {
    if (isnan(f)) return json_string("NaN");
    if (isinf(f)) return json_string(f > 0 ? "Infinity" : "-Infinity");
    char s[64];
    for (int prec = 6; prec <= 9; prec++) {
        snprintf(s, sizeof s, "%.*g", prec, (double)f);
        double d = strtod(s, NULL);
        if ((float)d == f) return json_real(d);
    }
    return json_real((double)f);
}

static json_t *double_json(double d) {
    if (isnan(d)) return json_string("NaN");
    if (isinf(d)) return json_string(d > 0 ? "Infinity" : "-Infinity");
    return json_real(d);
}

static json_t *i64_json(int64_t v) {
    char s[32];
    snprintf(s, sizeof s, "%" PRId64, v);
    return json_string(s);
}

static json_t *u64_json(uint64_t v) {
    char s[32];
    snprintf(s, sizeof s, "%" PRIu64, v);
    return json_string(s);
}

static json_t *bytes_json(const ProtobufCBinaryData *b) {
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = b->len;
    char *s = cs_malloc(4 * ((n + 2) / 3) + 1);
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)b->data[i] << 16;
        if (i + 1 < n) v |= (uint32_t)b->data[i + 1] << 8;
        if (i + 2 < n) v |= b->data[i + 2];
        s[o++] = tab[(v >> 18) & 63];
        s[o++] = tab[(v >> 12) & 63];
        s[o++] = i + 1 < n ? tab[(v >> 6) & 63] : '=';
        s[o++] = i + 2 < n ? tab[v & 63] : '=';
    }
    s[o] = '\0';
    json_t *j = json_string(s);
    cs_free(s);
    return j;
}

/* ---- generic field access ----------------------------------------------- */

static size_t elem_size(ProtobufCType t) {
    switch (t) {
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE: return 8;
    case PROTOBUF_C_TYPE_BOOL: return sizeof(protobuf_c_boolean);
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_MESSAGE: return sizeof(void *);
    case PROTOBUF_C_TYPE_BYTES: return sizeof(ProtobufCBinaryData);
    default: return 4;
    }
}

static json_t *enum_json(const ProtobufCFieldDescriptor *f, int v) {
    const ProtobufCEnumValue *ev = protobuf_c_enum_descriptor_get_value(f->descriptor, v);
    return ev ? json_string(ev->name) : json_integer(v);
}

/* The JSON form of one value of field f stored at p. */
static json_t *value_json(const ProtobufCFieldDescriptor *f, const void *p) {
    union {
        int32_t i32;
        uint32_t u32;
        int64_t i64;
        uint64_t u64;
        float f;
        double d;
        protobuf_c_boolean b;
        const void *ptr;
        ProtobufCBinaryData bin;
    } v;
    memcpy(&v, p, elem_size(f->type));
    switch (f->type) {
    case PROTOBUF_C_TYPE_INT32:
    case PROTOBUF_C_TYPE_SINT32:
    case PROTOBUF_C_TYPE_SFIXED32: return json_integer(v.i32);
    case PROTOBUF_C_TYPE_UINT32:
    case PROTOBUF_C_TYPE_FIXED32: return json_integer(v.u32);
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64: return i64_json(v.i64);
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64: return u64_json(v.u64);
    case PROTOBUF_C_TYPE_FLOAT: return float_json(v.f);
    case PROTOBUF_C_TYPE_DOUBLE: return double_json(v.d);
    case PROTOBUF_C_TYPE_BOOL: return json_boolean(v.b);
    case PROTOBUF_C_TYPE_ENUM: return enum_json(f, v.i32);
    case PROTOBUF_C_TYPE_STRING: return cs_json_string_lossy(v.ptr);
    case PROTOBUF_C_TYPE_BYTES: return bytes_json(&v.bin);
    case PROTOBUF_C_TYPE_MESSAGE: return v.ptr ? msg_to_json(v.ptr) : json_object();
    }
    return json_null();
}

/* Whether a plain (non-repeated, non-oneof) proto3 field holds its default. */
static int is_default(const ProtobufCFieldDescriptor *f, const void *p) {
    static const unsigned char zero[sizeof(ProtobufCBinaryData)];
    switch (f->type) {
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_MESSAGE: {
        const char *s;
        memcpy(&s, p, sizeof s);
        return !s || (f->type == PROTOBUF_C_TYPE_STRING && s[0] == '\0');
    }
    case PROTOBUF_C_TYPE_BYTES: {
        ProtobufCBinaryData b;
        memcpy(&b, p, sizeof b);
        return b.len == 0;
    }
    case PROTOBUF_C_TYPE_FLOAT: {
        float x;
        memcpy(&x, p, sizeof x);
        return x == 0.0f && !signbit(x);
    }
    case PROTOBUF_C_TYPE_DOUBLE: {
        double x;
        memcpy(&x, p, sizeof x);
        return x == 0.0 && !signbit(x);
    }
    default: return memcmp(p, zero, elem_size(f->type)) == 0;
    }
}

/* "doc_string" -> "docString" (MessageToJson's default key). */
static void camel(const char *name, char *out, size_t cap) {
    size_t o = 0;
    int up = 0;
    for (const char *c = name; *c && o + 1 < cap; c++) {
        if (*c == '_') {
            up = 1;
            continue;
        }
        out[o++] = up && *c >= 'a' && *c <= 'z' ? (char)(*c - 'a' + 'A') : *c;
        up = 0;
    }
    out[o] = '\0';
}

static json_t *repeated_json(const ProtobufCFieldDescriptor *f, const char *base, size_t n) {
    const char *arr;
    memcpy(&arr, base + f->offset, sizeof arr);
    json_t *a = json_array();
    for (size_t k = 0; k < n; k++)
        json_array_append_new(a, value_json(f, arr + k * elem_size(f->type)));
    return a;
}

/* The value of field f of the message at base, or NULL when not shown. */
static json_t *field_json(const ProtobufCFieldDescriptor *f, const char *base) {
    const void *p = base + f->offset;
    if (f->label == PROTOBUF_C_LABEL_REPEATED) {
        size_t n;
        memcpy(&n, base + f->quantifier_offset, sizeof n);
        return n ? repeated_json(f, base, n) : NULL;
    }
    if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
        uint32_t which;
        memcpy(&which, base + f->quantifier_offset, sizeof which);
        return which == f->id ? value_json(f, p) : NULL;
    }
    if (f->label == PROTOBUF_C_LABEL_OPTIONAL && f->quantifier_offset) {
        protobuf_c_boolean has; /* proto2-style presence flag */
        memcpy(&has, base + f->quantifier_offset, sizeof has);
        return has ? value_json(f, p) : NULL;
    }
    return is_default(f, p) ? NULL : value_json(f, p);
}

static json_t *msg_to_json(const ProtobufCMessage *m) {
    const ProtobufCMessageDescriptor *d = m->descriptor;
    const char *base = (const char *)m;
    json_t *o = json_object();
    for (unsigned i = 0; i < d->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &d->fields[i];
        json_t *v = field_json(f, base);
        if (!v) continue;
        char key[128];
        camel(f->name, key, sizeof key);
        json_object_set_new(o, key, v);
    }
    return o;
}

json_t *cs_et_metadata_to_json(const ChakraProtoMsg__GlobalMetadata *md) {
    return md ? msg_to_json(&md->base) : NULL;
}

json_t *cs_et_node_to_json(const ChakraProtoMsg__Node *n) {
    return n ? msg_to_json(&n->base) : NULL;
}
