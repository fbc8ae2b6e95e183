/*
 * et_wire.c -- says why a payload is not a valid protobuf message (see
 * cs_et_wire_explain in et.h).
 *
 * protobuf-c's unpack returns NULL without a reason.  This walks the
 * protobuf wire format (tag varint, then a varint, 8 bytes, 4 bytes or a
 * length-delimited run per wire type) against the message descriptor
 * generated from chakra_et.proto, recursing into sub-messages, and reports
 * the first fault with the field path and its byte offset in the payload.
 * It only diagnoses: the reader has already rejected the payload.  Nothing
 * is allocated.
 */
#include "workload/et.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MAX_DEPTH 16

typedef struct walk {
    char *why;
    size_t cap;
} walk;

/* 0 = ok, 1 = truncated, 2 = longer than 10 bytes. */
static int get_varint(const uint8_t *p, size_t len, size_t *pos, uint64_t *v) {
    *v = 0;
    for (int i = 0; i < 10; i++) {
        if (*pos >= len) return 1;
        uint8_t b = p[(*pos)++];
        *v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) return 0;
    }
    return 2;
}

static int wire_type_of(ProtobufCType t) {
    switch (t) {
    case PROTOBUF_C_TYPE_SFIXED32:
    case PROTOBUF_C_TYPE_FIXED32:
    case PROTOBUF_C_TYPE_FLOAT: return 5;
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE: return 1;
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_BYTES:
    case PROTOBUF_C_TYPE_MESSAGE: return 2;
    default: return 0;
    }
}

static const char *wire_type_name(int wt) {
    static const char *const names[8] = {"varint",    "64-bit",    "length-delimited",
                                          "start group", "end group", "32-bit",
                                          "invalid",   "invalid"};
    return names[wt & 7];
}

static int fault(walk *w, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static int fault(walk *w, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->why, w->cap, fmt, ap);
    va_end(ap);
    return 1;
}

/* Skips one value of wire type wt starting at *pos.  Returns 1 on a fault. */
static int skip_value(walk *w, const uint8_t *p, size_t len, size_t *pos, int wt,
                      const char *what, size_t base) {
    size_t at = base + *pos;
    uint64_t v;
    int rc;
    switch (wt) {
    case 0:
        rc = get_varint(p, len, pos, &v);
        if (rc == 1) return fault(w, "%s at payload byte %zu: varint truncated", what, at);
        if (rc == 2) return fault(w, "%s at payload byte %zu: varint longer than 10 bytes", what, at);
        return 0;
    case 1:
    case 5: {
        size_t need = wt == 1 ? 8 : 4;
        if (len - *pos < need)
            return fault(w, "%s at payload byte %zu: expected %zu bytes, %zu left", what, at,
                         need, len - *pos);
        *pos += need;
        return 0;
    }
    case 2:
        rc = get_varint(p, len, pos, &v);
        if (rc) return fault(w, "%s at payload byte %zu: length varint %s", what, at,
                             rc == 1 ? "truncated" : "longer than 10 bytes");
        if (v > len - *pos)
            return fault(w, "%s at payload byte %zu: length %llu, but only %zu bytes are left",
                         what, at, (unsigned long long)v, len - *pos);
        *pos += (size_t)v;
        return 0;
    default:
        return fault(w, "%s at payload byte %zu: wire type %d (%s) is not used by this format",
                     what, at, wt, wire_type_name(wt));
    }
}

/* Checks the body of a packed repeated field. */
static int check_packed(walk *w, const uint8_t *p, size_t len, int elem_wt, const char *what,
                        size_t base) {
    if (elem_wt == 1 || elem_wt == 5) {
        size_t sz = elem_wt == 1 ? 8 : 4;
        if (len % sz)
            return fault(w, "%s at payload byte %zu: packed length %zu is not a multiple of %zu",
                         what, base, len, sz);
        return 0;
    }
    size_t pos = 0;
    while (pos < len)
        if (skip_value(w, p, len, &pos, 0, what, base)) return 1;
    return 0;
}

static int walk_msg(walk *w, const uint8_t *p, size_t len, size_t base,
                    const ProtobufCMessageDescriptor *desc, const char *path, int depth);

/* Checks one known field's value, recursing into sub-messages. */
static int check_field(walk *w, const uint8_t *p, size_t len, size_t base, size_t start,
                       size_t vstart, const ProtobufCFieldDescriptor *fd, int wt,
                       const char *name, int depth) {
    int want = wire_type_of(fd->type);
    int packed = fd->label == PROTOBUF_C_LABEL_REPEATED && wt == 2 && want != 2;
    if (wt != want && !packed)
        return fault(w, "field %s (%u) at payload byte %zu has wire type %d (%s), expected %d (%s)",
                     name, fd->id, base + start, wt, wire_type_name(wt), want,
                     wire_type_name(want));
    if (wt != 2) return 0;
    size_t pos = vstart;
    uint64_t n;
    (void)get_varint(p, len, &pos, &n); /* already validated by skip_value */
    if (packed) return check_packed(w, p + pos, (size_t)n, want, name, base + pos);
    if (fd->type != PROTOBUF_C_TYPE_MESSAGE) return 0;
    char sub[300];
    snprintf(sub, sizeof sub, "%s.", name);
    return walk_msg(w, p + pos, (size_t)n, base + pos, fd->descriptor, sub, depth + 1);
}

static int walk_msg(walk *w, const uint8_t *p, size_t len, size_t base,
                    const ProtobufCMessageDescriptor *desc, const char *path, int depth) {
    unsigned counts[64] = {0};
    size_t pos = 0;
    if (depth > MAX_DEPTH) return 0;
    while (pos < len) {
        size_t start = pos;
        uint64_t tag;
        int rc = get_varint(p, len, &pos, &tag);
        if (rc) return fault(w, "field tag at payload byte %zu: varint %s", base + start,
                             rc == 1 ? "truncated" : "longer than 10 bytes");
        if ((tag >> 3) == 0 || (tag >> 3) > 0x1fffffff)
            return fault(w, "field tag at payload byte %zu: field number %llu is out of range, "
                            "expected 1 to 536870911",
                         base + start, (unsigned long long)(tag >> 3));
        uint32_t num = (uint32_t)(tag >> 3);
        int wt = (int)(tag & 7);
        const ProtobufCFieldDescriptor *fd = protobuf_c_message_descriptor_get_field(desc, num);
        char name[256], what[300];
        if (fd && fd->label == PROTOBUF_C_LABEL_REPEATED && fd->type == PROTOBUF_C_TYPE_MESSAGE)
            snprintf(name, sizeof name, "%s%s[%u]", path, fd->name, num < 64 ? counts[num]++ : 0);
        else
            snprintf(name, sizeof name, "%s%s", path, fd ? fd->name : "");
        if (fd)
            snprintf(what, sizeof what, "field %s (%u)", name, num);
        else
            snprintf(what, sizeof what, "unknown field %s%u", path, num);
        size_t vstart = pos;
        if (skip_value(w, p, len, &pos, wt, what, base)) return 1;
        if (fd && check_field(w, p, len, base, start, vstart, fd, wt, name, depth)) return 1;
    }
    return 0;
}

int cs_et_wire_explain(const uint8_t *buf, size_t len, const ProtobufCMessageDescriptor *desc,
                       char *why, size_t cap) {
    walk w = {why, cap};
    if (cap) why[0] = '\0';
    if (walk_msg(&w, buf, len, 0, desc, "", 0)) return 1;
    if (cap)
        snprintf(why, cap,
                 "protobuf-c rejected it although its wire structure matches the %s schema",
                 desc->short_name);
    return 0;
}
