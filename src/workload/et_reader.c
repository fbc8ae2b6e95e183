/*
 * et_reader.c -- reading Chakra ET files (see et.h and
 * shared/spec/chakra-et-format.md section 1).
 *
 * Three layers, bottom up, all private to this file:
 *   raw input     the bytes as stored: a FILE read in RAW_CHUNK pieces, or a
 *                 caller's memory block (not copied);
 *   record stream the raw bytes, or their gzip decompression (zlib inflate
 *                 in DEC_CHUNK pieces, multi-member, trailing zero padding
 *                 allowed as Python's gzip module does);
 *   records       varint length + payload, unpacked with protobuf-c.
 * The same code serves files and memory, so the fuzzer exercises exactly
 * what real runs use.  Byte offsets in messages count bytes of the record
 * stream (after decompression).  Bounds (et.h): a record longer than
 * CS_ET_MAX_RECORD is refused at its length, and a gzip stream that expands
 * beyond CS_ET_MAX_GZIP_RATIO x the compressed bytes read (+ CS_ET_GZIP_SLACK)
 * is refused as it is decompressed, so a small file cannot cost gigabytes.  When protobuf-c rejects a payload (it says
 * nothing about why), cs_et_wire_explain (et_wire.c) walks the wire format
 * against the schema to name the field and byte at fault.
 *
 * Ownership: the reader owns its buffers, the zlib state and the unpacked
 * GlobalMetadata; Nodes handed out belong to the caller.
 */
#define ZLIB_CONST
#include "workload/et.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "core/afile.h"
#include "core/alloc.h"
#include "core/log.h"

#define RAW_CHUNK ((size_t)1 << 16)
#define DEC_CHUNK ((size_t)1 << 16)
/* A record's buffer grows by at most this much ahead of the bytes actually
 * present, so a bogus 4 GiB length in a small file costs no memory. */
#define PAYLOAD_STEP ((size_t)1 << 20)

struct cs_et_reader {
    char *name; /* path or caller's name, for messages */
    FILE *fp;   /* file source, or NULL for memory */
    /* raw input window */
    const unsigned char *in;
    size_t in_len, in_pos;
    uint64_t in_base;     /* raw offset of in[0] */
    unsigned char *inbuf; /* RAW_CHUNK bytes for a file source */
    /* decoded record stream window */
    const unsigned char *d;
    size_t d_len, d_pos;
    unsigned char *outbuf; /* DEC_CHUNK bytes when gzip */
    int gzip, z_live, z_done;
    z_stream zs;
    uint64_t z_out;  /* bytes decompressed so far (all members) */
    uint64_t offset; /* record-stream offset of the next byte */
    uint64_t index;  /* index of the next record */
    unsigned char *buf; /* payload buffer */
    size_t cap;
    ChakraProtoMsg__GlobalMetadata *md;
    int failed;       /* sticky error code, 0 = none */
    int warned_empty; /* zero-length record already reported */
};

/* ---- raw input ---------------------------------------------------------- */

/* Makes raw bytes available.  1 = some, 0 = end of input, <0 = error. */
static int raw_fill(cs_et_reader *r, cs_error *err) {
    if (r->in_pos < r->in_len) return 1;
    if (!r->fp) return 0;
    r->in_base += r->in_len;
    size_t n = fread(r->inbuf, 1, RAW_CHUNK, r->fp);
    if (n == 0 && ferror(r->fp))
        return CS_ERR(err, CS_EIO, "%s: read error at byte %llu of the file: %s", r->name,
                      (unsigned long long)r->in_base, strerror(errno));
    r->in = r->inbuf;
    r->in_len = n;
    r->in_pos = 0;
    return n > 0;
}

static uint64_t raw_offset(const cs_et_reader *r) { return r->in_base + r->in_pos; }

/* ---- gzip --------------------------------------------------------------- */

static voidpf z_alloc(voidpf opaque, uInt items, uInt size) {
    (void)opaque;
    return cs_calloc(items, size);
}

/* protobuf-c's allocations (unpacked records) through the wrapper too. */
static void *pb_alloc(void *data, size_t size) {
    (void)data;
    return cs_malloc_at(size, "(protobuf-c)", 0);
}
static void pb_free(void *data, void *p) {
    (void)data;
    cs_free(p);
}
static ProtobufCAllocator g_pb_alloc = {pb_alloc, pb_free, NULL};

static void z_free(voidpf opaque, voidpf p) {
    (void)opaque;
    cs_free(p);
}

static int gz_start(cs_et_reader *r, cs_error *err) {
    r->zs.zalloc = z_alloc;
    r->zs.zfree = z_free;
    r->zs.opaque = Z_NULL;
    if (inflateInit2(&r->zs, 16 + MAX_WBITS) != Z_OK)
        return CS_ERR(err, CS_ENOMEM, "%s: cannot start gzip decompression", r->name);
    r->z_live = 1;
    r->outbuf = cs_malloc(DEC_CHUNK);
    return CS_OK;
}

/* After a member's end: skip zero padding; more input starts a new member. */
static int gz_next_member(cs_et_reader *r, cs_error *err) {
    for (;;) {
        int rc = raw_fill(r, err);
        if (rc < 0) return rc;
        if (rc == 0) {
            r->z_done = 1;
            return CS_OK;
        }
        while (r->in_pos < r->in_len && r->in[r->in_pos] == 0) r->in_pos++;
        if (r->in_pos < r->in_len) break;
    }
    inflateReset(&r->zs);
    return CS_OK;
}

static int gz_error(cs_et_reader *r, int ret, int input_left, cs_error *err) {
    if (ret == Z_MEM_ERROR)
        return CS_ERR(err, CS_ENOMEM, "%s: out of memory in gzip decompression", r->name);
    if (ret == Z_BUF_ERROR && !input_left)
        return CS_ERR(err, CS_EFORMAT,
                      "%s: gzip stream truncated: the file ends at compressed byte %llu "
                      "(record-stream byte %llu), expected more compressed data and the "
                      "gzip trailer",
                      r->name, (unsigned long long)raw_offset(r),
                      (unsigned long long)r->offset);
    return CS_ERR(err, CS_EFORMAT,
                  "%s: gzip stream corrupt at compressed byte %llu: %s (expected valid "
                  "deflate data)",
                  r->name, (unsigned long long)raw_offset(r),
                  r->zs.msg ? r->zs.msg : "inflate failed");
}

/* One inflate step into outbuf.  1 = produced bytes, 0 = end, <0 = error. */
static int gz_fill(cs_et_reader *r, cs_error *err) {
    while (!r->z_done) {
        int rc = raw_fill(r, err);
        if (rc < 0) return rc;
        size_t avail = r->in_len - r->in_pos;
        uInt in_n = avail > UINT_MAX ? UINT_MAX : (uInt)avail;
        r->zs.next_in = r->in + r->in_pos;
        r->zs.avail_in = in_n;
        r->zs.next_out = r->outbuf;
        r->zs.avail_out = (uInt)DEC_CHUNK;
        int ret = inflate(&r->zs, Z_NO_FLUSH);
        r->in_pos += in_n - r->zs.avail_in;
        size_t made = DEC_CHUNK - r->zs.avail_out;
        if (ret == Z_STREAM_END) {
            rc = gz_next_member(r, err);
            if (rc < 0) return rc;
        } else if (ret != Z_OK) {
            return gz_error(r, ret, avail > 0, err);
        }
        r->z_out += made;
        if (r->z_out > CS_ET_GZIP_SLACK + (uint64_t)CS_ET_MAX_GZIP_RATIO * raw_offset(r))
            return CS_ERR(err, CS_EFORMAT,
                          "%s: gzip stream expands too much: %llu bytes from the first %llu "
                          "compressed bytes, expected at most %d bytes per compressed byte + "
                          "1 MiB (the limit against gzip bombs; gunzip the file to read it "
                          "anyway)",
                          r->name, (unsigned long long)r->z_out,
                          (unsigned long long)raw_offset(r), CS_ET_MAX_GZIP_RATIO);
        if (made > 0) {
            r->d = r->outbuf;
            r->d_len = made;
            r->d_pos = 0;
            return 1;
        }
    }
    return 0;
}

/* ---- record stream ------------------------------------------------------ */

/* Makes decoded bytes available.  1 = some, 0 = end, <0 = error. */
static int dec_fill(cs_et_reader *r, cs_error *err) {
    if (r->d_pos < r->d_len) return 1;
    if (r->gzip) return gz_fill(r, err);
    int rc = raw_fill(r, err);
    if (rc <= 0) return rc;
    r->d = r->in + r->in_pos;
    r->d_len = r->in_len - r->in_pos;
    r->d_pos = 0;
    r->in_pos = r->in_len;
    return 1;
}

/* Reads up to n bytes; *got < n only at the end of the stream. */
static int rd(cs_et_reader *r, unsigned char *dst, size_t n, size_t *got, cs_error *err) {
    *got = 0;
    while (*got < n) {
        int rc = dec_fill(r, err);
        if (rc < 0) return rc;
        if (rc == 0) break;
        size_t k = r->d_len - r->d_pos;
        if (k > n - *got) k = n - *got;
        memcpy(dst + *got, r->d + r->d_pos, k);
        r->d_pos += k;
        *got += k;
        r->offset += k;
    }
    return CS_OK;
}

/* ---- records ------------------------------------------------------------ */

static const char *kind_of(uint64_t index) { return index == 0 ? "GlobalMetadata" : "Node"; }

/* Reads a record's length.  *eof = 1 for a clean end before its first byte. */
static int read_length(cs_et_reader *r, uint64_t start, uint32_t *len, int *eof,
                       cs_error *err) {
    uint64_t v = 0;
    *eof = 0;
    for (int i = 0; i < 5; i++) {
        unsigned char b;
        size_t got;
        int rc = rd(r, &b, 1, &got, err);
        if (rc < 0) return rc;
        if (got == 0 && i == 0) {
            *eof = 1;
            return CS_OK;
        }
        if (got == 0)
            return CS_ERR(err, CS_EFORMAT,
                          "%s: record %llu (%s) at byte %llu: length varint truncated: the "
                          "file ends after %d of its bytes, expected a last byte below 0x80",
                          r->name, (unsigned long long)r->index, kind_of(r->index),
                          (unsigned long long)start, i);
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            if (v > UINT32_MAX)
                return CS_ERR(err, CS_EFORMAT,
                              "%s: record %llu (%s) at byte %llu: length %llu is above "
                              "2^32-1, expected a 32-bit record length",
                              r->name, (unsigned long long)r->index, kind_of(r->index),
                              (unsigned long long)start, (unsigned long long)v);
            *len = (uint32_t)v;
            return CS_OK;
        }
    }
    return CS_ERR(err, CS_EFORMAT,
                  "%s: record %llu (%s) at byte %llu: length varint longer than 5 bytes, "
                  "expected a 32-bit length of 1-5 bytes",
                  r->name, (unsigned long long)r->index, kind_of(r->index),
                  (unsigned long long)start);
}

/* Reads len payload bytes into r->buf, growing it only as bytes arrive. */
static int read_payload(cs_et_reader *r, uint64_t start, uint32_t len, cs_error *err) {
    size_t have = 0;
    while (have < len) {
        size_t step = len - have;
        if (step > PAYLOAD_STEP) step = PAYLOAD_STEP;
        CS_GROW(r->buf, r->cap, have + step);
        size_t got;
        int rc = rd(r, r->buf + have, step, &got, err);
        if (rc < 0) return rc;
        have += got;
        if (got < step)
            return CS_ERR(err, CS_EFORMAT,
                          "%s: record %llu (%s) at byte %llu: truncated: expected %lu "
                          "payload bytes, the file ends after %zu",
                          r->name, (unsigned long long)r->index, kind_of(r->index),
                          (unsigned long long)start, (unsigned long)len, have);
    }
    return CS_OK;
}

static int unpack_error(cs_et_reader *r, uint64_t start, uint32_t len,
                        const ProtobufCMessageDescriptor *desc, cs_error *err) {
    char why[512];
    cs_et_wire_explain(r->buf, len, desc, why, sizeof why);
    return CS_ERR(err, CS_EFORMAT,
                  "%s: record %llu (%s) at byte %llu: %lu-byte payload is not a valid %s "
                  "message (expected protobuf wire format): %s%s",
                  r->name, (unsigned long long)r->index, kind_of(r->index),
                  (unsigned long long)start, (unsigned long)len, kind_of(r->index), why,
                  r->index == 0 ? " (every ET file must start with a GlobalMetadata record)"
                                : "");
}

static int has_field_zero(const ProtobufCMessage *m);

/* Whether field f of m holds a sub-message with an unknown field number 0. */
static int field_has_zero(const ProtobufCMessage *m, const ProtobufCFieldDescriptor *f) {
    const char *base = (const char *)m;
    const ProtobufCMessage *const *sub;
    size_t n = 1;
    if (f->type != PROTOBUF_C_TYPE_MESSAGE) return 0;
    if (f->label == PROTOBUF_C_LABEL_REPEATED) {
        memcpy(&n, base + f->quantifier_offset, sizeof n);
        memcpy(&sub, base + f->offset, sizeof sub);
    } else {
        if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
            uint32_t which;
            memcpy(&which, base + f->quantifier_offset, sizeof which);
            if (which != f->id) return 0;
        }
        sub = (const ProtobufCMessage *const *)(const void *)(base + f->offset);
    }
    for (size_t i = 0; i < n; i++)
        if (sub[i] && has_field_zero(sub[i])) return 1;
    return 0;
}

/* protobuf-c accepts field number 0 when its tag varint is not minimal
 * (82 00) and keeps it as an unknown field, but packs it back as 02, which
 * it then rejects.  Such a message is refused here, so that whatever we
 * read can be written back and read again. */
static int has_field_zero(const ProtobufCMessage *m) {
    for (unsigned i = 0; i < m->n_unknown_fields; i++)
        if (m->unknown_fields[i].tag == 0) return 1;
    for (unsigned i = 0; i < m->descriptor->n_fields; i++)
        if (field_has_zero(m, &m->descriptor->fields[i])) return 1;
    return 0;
}

/* Reads one framed record and unpacks it with desc.  1 = *msg set, 0 = clean
 * end of file, <0 = error. */
static int read_record(cs_et_reader *r, const ProtobufCMessageDescriptor *desc,
                       ProtobufCMessage **msg, cs_error *err) {
    static const uint8_t empty[1];
    uint64_t start = r->offset;
    uint32_t len = 0;
    int eof;
    int rc = read_length(r, start, &len, &eof, err);
    if (rc < 0) return rc;
    if (eof) return 0;
    if (len > CS_ET_MAX_RECORD)
        return CS_ERR(err, CS_EFORMAT,
                      "%s: record %llu (%s) at byte %llu: length %lu is above the limit of %lu "
                      "bytes per record, expected a record of at most 16 MiB",
                      r->name, (unsigned long long)r->index, kind_of(r->index),
                      (unsigned long long)start, (unsigned long)len,
                      (unsigned long)CS_ET_MAX_RECORD);
    rc = read_payload(r, start, len, err);
    if (rc < 0) return rc;
    *msg = protobuf_c_message_unpack(desc, &g_pb_alloc, len, len ? r->buf : empty);
    if (*msg && has_field_zero(*msg)) {
        protobuf_c_message_free_unpacked(*msg, &g_pb_alloc);
        *msg = NULL;
    }
    if (!*msg) return unpack_error(r, start, len, desc, err);
    if (len == 0 && r->index > 0 && !r->warned_empty) {
        r->warned_empty = 1;
        cs_warn("%s: record %llu at byte %llu has length 0: read as an empty Node (id 0, "
                "INVALID_NODE), as are any later ones; Chakra's Python tools stop reading there",
                r->name, (unsigned long long)r->index, (unsigned long long)start);
    }
    r->index++;
    return 1;
}

/* ---- open / next / close ------------------------------------------------ */

static cs_et_reader *reader_new(const char *name) {
    cs_et_reader *r = cs_calloc(1, sizeof *r);
    r->name = cs_strdup(name);
    return r;
}

/* Sniffs gzip, then reads and checks record 0. */
static int reader_start(cs_et_reader *r, cs_error *err) {
    int rc = raw_fill(r, err);
    if (rc < 0) return rc;
    if (r->in_len - r->in_pos >= 2 && r->in[r->in_pos] == 0x1f && r->in[r->in_pos + 1] == 0x8b) {
        r->gzip = 1;
        rc = gz_start(r, err);
        if (rc < 0) return rc;
    }
    ProtobufCMessage *m = NULL;
    rc = read_record(r, &chakra_proto_msg__global_metadata__descriptor, &m, err);
    if (rc < 0) return rc;
    if (rc == 0)
        return CS_ERR(err, CS_EFORMAT,
                      "%s: no records: expected record 0 (GlobalMetadata), the %s ends at "
                      "byte 0",
                      r->name, r->gzip ? "decompressed stream" : "file");
    r->md = (ChakraProtoMsg__GlobalMetadata *)m;
    return CS_OK;
}

static int open_finish(cs_et_reader *r, cs_et_reader **out, cs_error *err) {
    int rc = reader_start(r, err);
    if (rc < 0) {
        cs_et_reader_close(r);
        return rc;
    }
    *out = r;
    return CS_OK;
}

int cs_et_reader_open(const char *path, cs_et_reader **out, cs_error *err) {
    *out = NULL;
    FILE *fp = fopen(path, "rb");
    if (!fp) return CS_ERR(err, CS_EIO, "%s: cannot open trace file: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(fp);
        return CS_ERR(err, CS_EIO, "%s: cannot read trace file: %s (expected a regular file)",
                      path, strerror(EISDIR));
    }
    /* a device never ends (/dev/zero is an endless run of empty Nodes) */
    if (fstat(fileno(fp), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
        fclose(fp);
        return CS_ERR(err, CS_EIO,
                      "%s: cannot read trace file: expected a regular file or a pipe, got %s", path,
                      S_ISCHR(st.st_mode)   ? "a character device"
                      : S_ISBLK(st.st_mode) ? "a block device"
                      : S_ISSOCK(st.st_mode) ? "a socket"
                                             : "not a regular file");
    }
    cs_input_note(path); /* no result may overwrite it (core/afile.h) */
    cs_et_reader *r = reader_new(path);
    r->fp = fp;
    r->inbuf = cs_malloc(RAW_CHUNK);
    return open_finish(r, out, err);
}

int cs_et_reader_open_mem(const void *data, size_t len, const char *name, cs_et_reader **out,
                          cs_error *err) {
    *out = NULL;
    cs_et_reader *r = reader_new(name ? name : "(memory)");
    r->in = data;
    r->in_len = data ? len : 0;
    return open_finish(r, out, err);
}

int cs_et_reader_next(cs_et_reader *r, ChakraProtoMsg__Node **node, cs_error *err) {
    *node = NULL;
    if (r->failed)
        return CS_ERR(err, r->failed, "%s: record %llu: reading stopped after an earlier error",
                      r->name, (unsigned long long)r->index);
    ProtobufCMessage *m = NULL;
    int rc = read_record(r, &chakra_proto_msg__node__descriptor, &m, err);
    if (rc < 0) {
        r->failed = rc;
        return rc;
    }
    if (rc == 1) *node = (ChakraProtoMsg__Node *)m;
    return rc;
}

const ChakraProtoMsg__GlobalMetadata *cs_et_reader_metadata(const cs_et_reader *r) {
    return r->md;
}

uint64_t cs_et_reader_record_index(const cs_et_reader *r) { return r->index; }

const char *cs_et_reader_path(const cs_et_reader *r) { return r->name; }

void cs_et_node_free(ChakraProtoMsg__Node *node) {
    if (node) chakra_proto_msg__node__free_unpacked(node, &g_pb_alloc);
}

void cs_et_reader_close(cs_et_reader *r) {
    if (!r) return;
    if (r->md) chakra_proto_msg__global_metadata__free_unpacked(r->md, &g_pb_alloc);
    if (r->z_live) inflateEnd(&r->zs);
    if (r->fp) fclose(r->fp);
    cs_free(r->inbuf);
    cs_free(r->outbuf);
    cs_free(r->buf);
    cs_free(r->name);
    cs_free(r);
}
