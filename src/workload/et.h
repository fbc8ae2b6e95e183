/*
 * et.h -- Chakra execution-trace (ET) files: reader, writer, node builder,
 * attribute accessors and the reference JSON form.
 *
 * The on-disk format is shared/spec/chakra-et-format.md: a sequence of
 * records, each a base-128 varint length followed by that many bytes of one
 * protobuf message; record 0 is a GlobalMetadata, records 1..k are Nodes.
 * The whole stream may be gzip-compressed (sniffed by the magic 1f 8b).
 * Messages are the protobuf-c structs generated from chakra_et.proto.
 *
 * Implementation, one concept per file (all private state is static there):
 *   et_reader.c  byte source (plain or gzip, file or memory), record
 *                framing, GlobalMetadata check, Node unpacking
 *   et_wire.c    explains why protobuf-c rejected a payload
 *   et_writer.c  record framing on output, plain or gzip
 *   et_builder.c cs_et_nb_*: owned Node construction for generators/tests
 *   et_attr.c    attribute look-up and integer/bool/string accessors, names
 *   et_json.c    the JSON form printed by Chakra's jsonizer
 *
 * Ownership: a reader owns its metadata (valid until close); each Node
 * returned by cs_et_reader_next belongs to the caller (cs_et_node_free).
 * The writer copies nothing it does not need: nodes passed to it may be
 * freed after the call.  A builder owns everything reachable from the Node
 * it hands out, until cs_et_nb_free.  JSON values are new references.
 */
#ifndef CS_WORKLOAD_ET_H
#define CS_WORKLOAD_ET_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include <jansson.h>

#include "chakra_et.pb-c.h"
#include "core/error.h"

/* ---- reader ------------------------------------------------------------- */

typedef struct cs_et_reader cs_et_reader;

/* Input bounds: what a trace may cost is bounded by what it contains.
 *   CS_ET_MAX_RECORD      largest record payload (16 MiB; Chakra nodes are
 *                         a few KB, the largest reference record is 20 KB);
 *                         a longer length is refused at its varint, before
 *                         any byte of it is read or allocated;
 *   CS_ET_MAX_GZIP_RATIO  a gzip stream may expand to at most this many
 *                         bytes per compressed byte read, plus
 *   CS_ET_GZIP_SLACK      (1 MiB) (real traces compress 5-20 x; deflate can
 *                         reach 1032 x, a "gzip bomb").  Past it reading
 *                         stops with CS_EFORMAT; gunzip such a file to read
 *                         it anyway (plain traces have no ratio). */
#define CS_ET_MAX_RECORD ((uint32_t)16 << 20)
#define CS_ET_MAX_GZIP_RATIO 100
#define CS_ET_GZIP_SLACK ((uint64_t)1 << 20)

/* Opens a trace file, plain or gzip (sniffed by the magic 1f 8b; the gzip
 * stream may consist of several members).  Reads and validates record 0
 * (GlobalMetadata).  Missing file, directory, permission denied: CS_EIO with
 * the strerror text; a device (/dev/zero) or socket: CS_EIO "expected a
 * regular file or a pipe".  Framing problems: CS_EFORMAT naming the path, record
 * index, byte offset and what was expected.  Byte offsets always count
 * bytes of the (decompressed) record stream. */
int cs_et_reader_open(const char *path, cs_et_reader **out, cs_error *err);

/* Same, from memory (plain or gzip bytes); 'name' is used in messages.  The
 * bytes are not copied and must outlive the reader. */
int cs_et_reader_open_mem(const void *data, size_t len, const char *name,
                          cs_et_reader **out, cs_error *err);

const ChakraProtoMsg__GlobalMetadata *cs_et_reader_metadata(const cs_et_reader *r);

/* Next Node.  Returns 1 = *node set (caller owns it, free with
 * cs_et_node_free), 0 = clean end of file at a record boundary, <0 = CS_E*
 * with a message naming the file, record index and byte offset: truncated
 * length varint, varint longer than 5 bytes or above 2^32-1, truncated
 * payload, payload that is not a Node, record above CS_ET_MAX_RECORD, gzip
 * stream corrupt, truncated or expanding beyond CS_ET_MAX_GZIP_RATIO, read
 * error.  A zero-length record (the single byte 00) is accepted as an empty
 * Node (all fields default, id 0), as Chakra's C++ reader does; Chakra's
 * Python reader would stop there instead.  Errors are sticky: after one,
 * every later call fails again. */
int cs_et_reader_next(cs_et_reader *r, ChakraProtoMsg__Node **node, cs_error *err);

/* Index of the next record to be read (1 after open); useful in messages. */
uint64_t cs_et_reader_record_index(const cs_et_reader *r);

/* Free a Node from cs_et_reader_next (unpacked through the allocator
 * wrapper, core/alloc.h: not for a Node unpacked by other means). */
void cs_et_node_free(ChakraProtoMsg__Node *node);
void cs_et_reader_close(cs_et_reader *r);
const char *cs_et_reader_path(const cs_et_reader *r);

/* Explains why 'len' bytes are not a valid 'desc' message, by walking the
 * protobuf wire format against the schema: writes e.g. "field attr[2].int64_val
 * (9) at payload byte 37 has wire type 2 (length-delimited), expected 0
 * (varint)" into why (always NUL-terminated).  Returns 1 when a fault was
 * found, 0 when the wire structure looks valid (why then says so). */
int cs_et_wire_explain(const uint8_t *buf, size_t len, const ProtobufCMessageDescriptor *desc,
                       char *why, size_t cap);

/* ---- attributes --------------------------------------------------------- */

/* The FIRST attribute with this name wins (ASTRA-sim feeder v3's rule;
 * Chakra's v1 feeder takes the last).  NULL when absent. */
const ChakraProtoMsg__AttributeProto *cs_et_attr_find(const ChakraProtoMsg__Node *n,
                                                      const char *name);

/* Integer accessors.  Integer-like members are accepted interchangeably:
 * int32/int64/uint32/uint64/sint32/sint64/fixed32/fixed64/sfixed32/sfixed64
 * and bool (0/1).  Return 1 = found and stored, 0 = absent (*out untouched),
 * CS_EFORMAT = present with a non-integer member or a value out of range
 * (err names the node id, the attribute and the member found, e.g.
 * "node 7: attribute comm_size: expected an integer, found string_val").
 * get_int rejects uint64/fixed64 values above INT64_MAX; get_uint rejects
 * negative values. */
int cs_et_attr_get_int(const ChakraProtoMsg__Node *n, const char *name, int64_t *out,
                       cs_error *err);
int cs_et_attr_get_uint(const ChakraProtoMsg__Node *n, const char *name, uint64_t *out,
                        cs_error *err);
/* bool_val, or any integer member (nonzero = true). */
int cs_et_attr_get_bool(const ChakraProtoMsg__Node *n, const char *name, int *out,
                        cs_error *err);
/* string_val only.  *out points into the node. */
int cs_et_attr_get_string(const ChakraProtoMsg__Node *n, const char *name, const char **out,
                          cs_error *err);
/* bool_list only.  *vals points into the node (NULL when count is 0). */
int cs_et_attr_get_bool_list(const ChakraProtoMsg__Node *n, const char *name,
                             const protobuf_c_boolean **vals, size_t *count, cs_error *err);

/* The same conversions of an attribute already found (a = NULL: absent,
 * 0), for a reader that finds several attributes in one pass over a node. */
int cs_et_attr_int(const ChakraProtoMsg__Node *n, const ChakraProtoMsg__AttributeProto *a, int64_t *out,
                   cs_error *err);
int cs_et_attr_uint(const ChakraProtoMsg__Node *n, const ChakraProtoMsg__AttributeProto *a, uint64_t *out,
                    cs_error *err);
int cs_et_attr_bool(const ChakraProtoMsg__Node *n, const ChakraProtoMsg__AttributeProto *a, int *out,
                    cs_error *err);
int cs_et_attr_string(const ChakraProtoMsg__Node *n, const ChakraProtoMsg__AttributeProto *a, const char **out,
                      cs_error *err);
int cs_et_attr_bool_list(const ChakraProtoMsg__Node *n, const ChakraProtoMsg__AttributeProto *a,
                         const protobuf_c_boolean **vals, size_t *count, cs_error *err);

/* Name of a oneof member as in the schema ("int64_val", "bool_list", ...),
 * "no value" for an attribute without one, NULL for an unknown case. */
const char *cs_et_attr_value_name(int value_case);

/* "COMP_NODE", ...; NULL for a value outside the schema (callers print the
 * number).  Same for cs_et_comm_type_name ("ALL_REDUCE", ...). */
const char *cs_et_node_type_name(int type);
const char *cs_et_comm_type_name(int comm_type);

/* ---- writer ------------------------------------------------------------- */

typedef struct cs_et_writer cs_et_writer;

/* Creates/truncates 'path' and writes record 0.  gzip != 0 compresses the
 * whole stream (zlib level 9).  md NULL = version "1.0.0", no attributes.
 * Records are a 1-5 byte varint length plus the protobuf-c packing.
 *
 * Zero-length records are never written: a message whose fields are all
 * default would pack to 0 bytes, which Chakra's Python reader takes as end of
 * file.  Such a message is written as the 2-byte payload 08 00 (Node: id = 0
 * stated explicitly) or 0a 00 (GlobalMetadata: version = "" stated
 * explicitly); both decode to the same all-default message everywhere. */
int cs_et_writer_open(const char *path, int gzip, const ChakraProtoMsg__GlobalMetadata *md,
                      cs_et_writer **out, cs_error *err);
/* The same records into an open stream (e.g. open_memstream), which the
 * writer then owns and fclose's in cs_et_writer_close (also on error);
 * name is used in messages.  No gzip. */
int cs_et_writer_open_stream(FILE *fp, const char *name, const ChakraProtoMsg__GlobalMetadata *md,
                             cs_et_writer **out, cs_error *err);
int cs_et_writer_write(cs_et_writer *w, const ChakraProtoMsg__Node *node, cs_error *err);
/* Flushes and closes; frees w even on error.  NULL is a no-op. */
int cs_et_writer_close(cs_et_writer *w, cs_error *err);

/* ---- node builder ------------------------------------------------------- */

/* Builds one Node for our own generators and tests.  The builder owns all
 * memory reachable from cs_et_nb_node() until cs_et_nb_free.  Attributes are
 * appended in call order; names and string values are copied.  Out of
 * memory exits (see core/alloc.h), so these calls cannot fail. */
typedef struct cs_et_nb cs_et_nb;

cs_et_nb *cs_et_nb_new(uint64_t id, const char *name, int type);
/* Starts the next node in b (as cs_et_nb_new, keeping b's allocations for
 * reuse): the previous node, and everything cs_et_nb_node() gave for it,
 * is gone. */
void cs_et_nb_reset(cs_et_nb *b, uint64_t id, const char *name, int type);
void cs_et_nb_data_dep(cs_et_nb *b, uint64_t parent);
void cs_et_nb_ctrl_dep(cs_et_nb *b, uint64_t parent);
void cs_et_nb_duration_us(cs_et_nb *b, uint64_t us);
void cs_et_nb_start_time_us(cs_et_nb *b, uint64_t us);
void cs_et_nb_attr_int64(cs_et_nb *b, const char *name, int64_t v);
void cs_et_nb_attr_uint64(cs_et_nb *b, const char *name, uint64_t v);
void cs_et_nb_attr_int32(cs_et_nb *b, const char *name, int32_t v);
void cs_et_nb_attr_bool(cs_et_nb *b, const char *name, int v);
void cs_et_nb_attr_string(cs_et_nb *b, const char *name, const char *v);
void cs_et_nb_attr_bool_list(cs_et_nb *b, const char *name, const int *v, size_t n);
const ChakraProtoMsg__Node *cs_et_nb_node(cs_et_nb *b);
void cs_et_nb_free(cs_et_nb *b);

/* ---- JSON --------------------------------------------------------------- */

/* The form Chakra's jsonizer prints (protobuf MessageToJson): camelCase
 * keys, 64-bit integers as strings, enum names (values outside the schema as
 * numbers), zero-valued plain scalars and empty repeated fields omitted,
 * present sub-messages and oneof members shown even when zero/empty, bytes
 * in base64, floats rounded to the shortest decimal that reads back to the
 * same float, NaN/Infinity/-Infinity as strings.  Invalid UTF-8 in strings
 * (which protobuf-c does not reject) becomes U+FFFD.  Returns a new
 * reference. */
json_t *cs_et_metadata_to_json(const ChakraProtoMsg__GlobalMetadata *md);
json_t *cs_et_node_to_json(const ChakraProtoMsg__Node *n);

#endif
