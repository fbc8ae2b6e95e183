/*
 * et_writer.c -- writing Chakra ET files (see et.h, spec section 1).
 *
 * A record is the payload length as a base-128 varint (1-5 bytes) followed
 * by the protobuf-c packing of the message; record 0 is the GlobalMetadata.
 * Output goes through stdio, or through zlib's gzopen("wb9") when gzip is
 * asked for.  A message that packs to zero bytes is written as an explicit
 * default field (08 00 for a Node, 0a 00 for a GlobalMetadata) so that no
 * zero-length record, which Chakra's Python reader takes as end of file, is
 * ever produced.
 *
 * Ownership: the writer owns its file handle and one packing buffer; the
 * messages passed in stay the caller's.
 */
#include "workload/et.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "core/afile.h"
#include "core/alloc.h"

#define GZ_PIECE (1u << 30)

struct cs_et_writer {
    char *path;
    FILE *fp;  /* plain output, or NULL */
    gzFile gz; /* gzip output, or NULL */
    uint64_t index;  /* index of the next record */
    uint64_t offset; /* bytes of record stream written */
    uint8_t *buf;
    size_t cap;
    int failed; /* sticky error code */
};

/* gzwrite takes an unsigned count and returns an int: write in pieces. */
static int gz_put(gzFile gz, const uint8_t *p, size_t n) {
    while (n > 0) {
        unsigned k = n > GZ_PIECE ? GZ_PIECE : (unsigned)n;
        if (gzwrite(gz, p, k) != (int)k) return 0;
        p += k;
        n -= k;
    }
    return 1;
}

static int put_bytes(cs_et_writer *w, const uint8_t *p, size_t n, cs_error *err) {
    int ok = w->gz ? gz_put(w->gz, p, n) : fwrite(p, 1, n, w->fp) == n;
    if (!ok) {
        int zerr = Z_OK;
        const char *why = w->gz ? gzerror(w->gz, &zerr) : strerror(errno);
        if (zerr == Z_ERRNO) why = strerror(errno);
        return CS_ERR(err, CS_EIO, "%s: write failed at byte %" PRIu64 " (record %" PRIu64 "): %s",
                      w->path, w->offset, w->index, why);
    }
    w->offset += n;
    return CS_OK;
}

/* Frames and writes one message; 'stand_in' is the 2-byte payload used when
 * the message packs to nothing. */
static int put_record(cs_et_writer *w, const ProtobufCMessage *m, const uint8_t stand_in[2],
                      cs_error *err) {
    if (w->failed)
        return CS_ERR(err, w->failed, "%s: record %" PRIu64 ": writer stopped after an earlier error",
                      w->path, w->index);
    size_t len = protobuf_c_message_get_packed_size(m);
    if (len > UINT32_MAX) {
        w->failed = CS_EINVAL;
        return CS_ERR(err, CS_EINVAL,
                      "%s: record %" PRIu64 ": message packs to %zu bytes, above the 2^32-1 "
                      "limit of a record",
                      w->path, w->index, len);
    }
    const uint8_t *payload = stand_in;
    if (len == 0) {
        len = 2;
    } else {
        CS_GROW(w->buf, w->cap, len);
        protobuf_c_message_pack(m, w->buf);
        payload = w->buf;
    }
    uint8_t hdr[5];
    size_t h = 0;
    for (uint64_t v = len; ; v >>= 7) {
        hdr[h++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
        if (v < 0x80) break;
    }
    int rc = put_bytes(w, hdr, h, err);
    if (rc == CS_OK) rc = put_bytes(w, payload, len, err);
    if (rc < 0) {
        w->failed = rc;
        return rc;
    }
    w->index++;
    return CS_OK;
}

static int open_output(cs_et_writer *w, int gzip, cs_error *err) {
    errno = 0;
    if (gzip)
        w->gz = gzopen(w->path, "wb9");
    else
        w->fp = fopen(w->path, "wb");
    if (w->gz || w->fp) {
        cs_afile_pending_add(w->path); /* an exit before the close removes it (core/afile.h) */
        return CS_OK;
    }
    return CS_ERR(err, CS_EIO, "%s: cannot create trace file: %s", w->path,
                  errno ? strerror(errno) : "out of memory");
}

/* Record 0 into a writer whose output is open (or not: open_output). */
static int start(cs_et_writer *w, int gzip, const ChakraProtoMsg__GlobalMetadata *md, cs_et_writer **out,
                 cs_error *err) {
    static const uint8_t md_stand_in[2] = {0x0a, 0x00};
    static char default_version[] = "1.0.0";
    ChakraProtoMsg__GlobalMetadata dflt;
    if (!md) {
        chakra_proto_msg__global_metadata__init(&dflt);
        dflt.version = default_version;
        md = &dflt;
    }
    int rc = w->fp ? CS_OK : open_output(w, gzip, err);
    if (rc == CS_OK) rc = put_record(w, &md->base, md_stand_in, err);
    if (rc < 0) {
        cs_error ignored;
        cs_error_clear(&ignored);
        cs_et_writer_close(w, &ignored);
        return rc;
    }
    *out = w;
    return CS_OK;
}

int cs_et_writer_open(const char *path, int gzip, const ChakraProtoMsg__GlobalMetadata *md,
                      cs_et_writer **out, cs_error *err) {
    *out = NULL;
    cs_et_writer *w = cs_calloc(1, sizeof *w);
    w->path = cs_strdup(path);
    return start(w, gzip, md, out, err);
}

int cs_et_writer_open_stream(FILE *fp, const char *name, const ChakraProtoMsg__GlobalMetadata *md,
                             cs_et_writer **out, cs_error *err) {
    *out = NULL;
    cs_et_writer *w = cs_calloc(1, sizeof *w);
    w->path = cs_strdup(name);
    w->fp = fp;
    return start(w, 0, md, out, err);
}

int cs_et_writer_write(cs_et_writer *w, const ChakraProtoMsg__Node *node, cs_error *err) {
    static const uint8_t node_stand_in[2] = {0x08, 0x00};
    return put_record(w, &node->base, node_stand_in, err);
}

int cs_et_writer_close(cs_et_writer *w, cs_error *err) {
    if (!w) return CS_OK;
    int rc = CS_OK;
    if (w->gz) {
        int zrc = gzclose(w->gz);
        if (zrc != Z_OK)
            rc = CS_ERR(err, CS_EIO, "%s: closing the gzip stream failed: %s", w->path,
                        zrc == Z_ERRNO ? strerror(errno) : "zlib error");
    } else if (w->fp && fclose(w->fp) != 0) {
        rc = CS_ERR(err, CS_EIO, "%s: closing failed (data may be lost): %s", w->path,
                    strerror(errno));
    }
    cs_afile_pending_del(w->path);
    cs_free(w->buf);
    cs_free(w->path);
    cs_free(w);
    return rc;
}
