/*
 * test_et_writer.c -- the Chakra ET writer, node builder, attribute
 * accessors and JSON form.
 *
 * Writes nodes made with cs_et_nb_* (and one with every oneof member, built
 * by hand), plain and gzip, reads them back and compares protobuf-c packings
 * byte for byte; checks the 73-byte example of spec section 1; checks the
 * JSON form against hand-written expectations.  When ../shared is present,
 * also round-trips every real trace (read, write, read again: identical
 * packed records; identical file bytes for plain files written with
 * packed repeated fields); that part is skipped without it.
 */
#include "testutil.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "workload/et.h"

typedef ChakraProtoMsg__Node node_t;
typedef ChakraProtoMsg__AttributeProto attr_t;

#define VC(x) CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_##x

/* ---- helpers ------------------------------------------------------------ */

static uint8_t *packed(const ProtobufCMessage *m, size_t *len) {
    *len = protobuf_c_message_get_packed_size(m);
    uint8_t *p = malloc(*len + 1);
    protobuf_c_message_pack(m, p);
    return p;
}

static void expect_same_message(const ProtobufCMessage *a, const ProtobufCMessage *b,
                                const char *what, size_t rec) {
    size_t la, lb;
    uint8_t *pa = packed(a, &la), *pb = packed(b, &lb);
    if (la != lb || memcmp(pa, pb, la) != 0)
        fail_msg("%s: record %zu: packed bytes differ (%zu vs %zu bytes)", what, rec, la, lb);
    free(pa);
    free(pb);
}

static uint8_t *file_bytes(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t cap = 1 << 16, n = 0, k;
    uint8_t *buf = malloc(cap);
    while ((k = fread(buf + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap) buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    *len = n;
    return buf;
}

static void write_file(const char *path, int gzip, const ChakraProtoMsg__GlobalMetadata *md,
                       const node_t *const *nodes, size_t n) {
    cs_error err;
    cs_error_clear(&err);
    cs_et_writer *w = NULL;
    if (cs_et_writer_open(path, gzip, md, &w, &err) != CS_OK) fail_msg("%s", err.msg);
    for (size_t i = 0; i < n; i++)
        if (cs_et_writer_write(w, nodes[i], &err) != CS_OK) fail_msg("%s", err.msg);
    if (cs_et_writer_close(w, &err) != CS_OK) fail_msg("%s", err.msg);
}

/* Reads 'path' and checks it holds exactly md (NULL = the default) and nodes. */
static void expect_file_holds(const char *path, const ChakraProtoMsg__GlobalMetadata *md,
                              const node_t *const *nodes, size_t n) {
    cs_error err;
    cs_error_clear(&err);
    cs_et_reader *r = NULL;
    if (cs_et_reader_open(path, &r, &err) != CS_OK) fail_msg("%s", err.msg);
    const ChakraProtoMsg__GlobalMetadata *got = cs_et_reader_metadata(r);
    if (md)
        expect_same_message(&md->base, &got->base, path, 0);
    else
        assert_string_equal(got->version, "1.0.0");
    for (size_t i = 0; i < n; i++) {
        node_t *x = NULL;
        if (cs_et_reader_next(r, &x, &err) != 1) fail_msg("%s: record %zu: %s", path, i + 1, err.msg);
        expect_same_message(&nodes[i]->base, &x->base, path, i + 1);
        cs_et_node_free(x);
    }
    node_t *x = NULL;
    assert_int_equal(cs_et_reader_next(r, &x, &err), 0);
    cs_et_reader_close(r);
}

static cs_et_nb *spec_example_node(void) {
    cs_et_nb *b = cs_et_nb_new(67, "ALL_REDUCE", CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE);
    cs_et_nb_attr_bool(b, "is_cpu_op", 0);
    cs_et_nb_attr_int64(b, "comm_type", CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_REDUCE);
    cs_et_nb_attr_int64(b, "comm_size", 65536);
    return b;
}

/* ---- writer ------------------------------------------------------------- */

/* Spec section 1: generator_8npu_default/ALL_REDUCE.3.et, 73 bytes. */
static const uint8_t spec_example[73] = {
    0x07, 0x0a, 0x05, '1',  '.',  '0',  '.',  '0',  0x40, 0x08, 0x43, 0x12, 0x0a, 'A',  'L',
    'L',  '_',  'R',  'E',  'D',  'U',  'C',  'E',  0x18, 0x07, 0x52, 0x0e, 0x0a, 0x09, 'i',
    's',  '_',  'c',  'p',  'u',  '_',  'o',  'p',  0xd8, 0x01, 0x00, 0x52, 0x0d, 0x0a, 0x09,
    'c',  'o',  'm',  'm',  '_',  't',  'y',  'p',  'e',  0x48, 0x00, 0x52, 0x0f, 0x0a, 0x09,
    'c',  'o',  'm',  'm',  '_',  's',  'i',  'z',  'e',  0x48, 0x80, 0x80, 0x04};

static void test_spec_example_bytes(void **state) {
    (void)state;
    cs_et_nb *b = spec_example_node();
    const node_t *n = cs_et_nb_node(b);
    const char *path = tu_path(tu_tmp_dir(), "spec_example.et");
    write_file(path, 0, NULL, &n, 1);
    size_t len;
    uint8_t *got = file_bytes(path, &len);
    assert_int_equal(len, sizeof spec_example);
    assert_memory_equal(got, spec_example, len);
    free(got);
    if (tu_shared_dir()) {
        const char *ref = tu_path(tu_shared_dir(),
                                  "testdata/chakra/generator_8npu_default/ALL_REDUCE.3.et");
        uint8_t *want = file_bytes(ref, &len);
        assert_int_equal(len, sizeof spec_example);
        assert_memory_equal(want, spec_example, len);
        free(want);
    }
    cs_et_nb_free(b);
}

static cs_et_nb *rich_node(void) {
    static const int dims[] = {1, 0, 1, 1};
    cs_et_nb *b = cs_et_nb_new(((uint64_t)1 << 40) + 1, "all_kinds \xc3\xa9",
                               CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE);
    cs_et_nb_data_dep(b, 1);
    cs_et_nb_data_dep(b, ((uint64_t)1 << 63) + 5);
    cs_et_nb_data_dep(b, UINT64_MAX);
    cs_et_nb_ctrl_dep(b, 3);
    cs_et_nb_duration_us(b, 17);
    cs_et_nb_start_time_us(b, ((uint64_t)1 << 50));
    cs_et_nb_attr_bool(b, "is_cpu_op", 0);
    cs_et_nb_attr_int64(b, "comm_type", 7);
    cs_et_nb_attr_uint64(b, "comm_size", UINT64_MAX);
    cs_et_nb_attr_int64(b, "neg", INT64_MIN);
    cs_et_nb_attr_int32(b, "comm_priority", INT32_MIN);
    cs_et_nb_attr_string(b, "pg_name", "7");
    cs_et_nb_attr_string(b, "empty", "");
    cs_et_nb_attr_bool_list(b, "involved_dim", dims, 4);
    cs_et_nb_attr_bool_list(b, "no_dims", NULL, 0);
    return b;
}

static void roundtrip_builder_nodes(int gzip) {
    cs_et_nb *bs[4];
    bs[0] = rich_node();
    bs[1] = spec_example_node();
    bs[2] = cs_et_nb_new(0, NULL, 0); /* packs to nothing: written as 08 00 */
    bs[3] = cs_et_nb_new(UINT64_MAX, "unknown_type", 42);
    const node_t *nodes[4];
    for (int i = 0; i < 4; i++) nodes[i] = cs_et_nb_node(bs[i]);
    const char *path = tu_path(tu_tmp_dir(), gzip ? "builder.et.gz" : "builder.et");
    write_file(path, gzip, NULL, nodes, 4);
    size_t len;
    uint8_t *raw = file_bytes(path, &len);
    assert_true(len > 2);
    assert_int_equal(raw[0] == 0x1f && raw[1] == 0x8b, gzip);
    free(raw);
    expect_file_holds(path, NULL, nodes, 4);
    for (int i = 0; i < 4; i++) cs_et_nb_free(bs[i]);
}

static void test_builder_roundtrip_plain(void **state) {
    (void)state;
    roundtrip_builder_nodes(0);
}

static void test_builder_roundtrip_gzip(void **state) {
    (void)state;
    roundtrip_builder_nodes(1);
}

static void test_no_zero_length_records(void **state) {
    (void)state;
    static const uint8_t want[] = {0x02, 0x0a, 0x00, 0x02, 0x08, 0x00};
    ChakraProtoMsg__GlobalMetadata md;
    chakra_proto_msg__global_metadata__init(&md);
    cs_et_nb *b = cs_et_nb_new(0, "", 0);
    const node_t *n = cs_et_nb_node(b);
    const char *path = tu_path(tu_tmp_dir(), "zero.et");
    write_file(path, 0, &md, &n, 1);
    size_t len;
    uint8_t *got = file_bytes(path, &len);
    assert_int_equal(len, sizeof want);
    assert_memory_equal(got, want, len);
    free(got);
    expect_file_holds(path, &md, &n, 1);
    cs_et_nb_free(b);
}

static void test_writer_open_errors(void **state) {
    (void)state;
    cs_error err;
    for (int gz = 0; gz < 2; gz++) {
        cs_error_clear(&err);
        cs_et_writer *w = (cs_et_writer *)&err; /* must be reset to NULL */
        const char *path = tu_path(tu_tmp_dir(), "no/such/dir/out.et");
        assert_int_equal(cs_et_writer_open(path, gz, NULL, &w, &err), CS_EIO);
        assert_null(w);
        assert_non_null(strstr(err.msg, path));
        assert_non_null(strstr(err.msg, "No such file or directory"));
    }
    cs_error_clear(&err);
    assert_int_equal(cs_et_writer_close(NULL, &err), CS_OK);
}

/* ---- every oneof member, and the JSON form ------------------------------ */

typedef struct all_kinds {
    attr_t a[33];
    node_t node;
    attr_t *ptrs[33];
    ChakraProtoMsg__IOInfo in;
    double dl[2];
    float fl[2];
    int32_t il[1];
    int64_t ll[2];
    uint32_t ul[1];
    uint64_t ql[1];
    protobuf_c_boolean bl[2];
    char *sl[2];
    ProtobufCBinaryData yl[3];
    ChakraProtoMsg__DoubleList dlist;
    ChakraProtoMsg__FloatList flist;
    ChakraProtoMsg__Int32List ilist;
    ChakraProtoMsg__Int64List llist;
    ChakraProtoMsg__Uint32List ulist;
    ChakraProtoMsg__Uint64List qlist;
    ChakraProtoMsg__Sint32List s32list;
    ChakraProtoMsg__Sint64List s64list;
    ChakraProtoMsg__Fixed32List f32list;
    ChakraProtoMsg__Fixed64List f64list;
    ChakraProtoMsg__Sfixed32List sf32list;
    ChakraProtoMsg__Sfixed64List sf64list;
    ChakraProtoMsg__BoolList blist;
    ChakraProtoMsg__StringList slist;
    ChakraProtoMsg__BytesList ylist;
} all_kinds;

static char s_name[33][16];
static char s_empty[] = "", s_a[] = "a", s_e[] = "\xc3\xa9", s_doc[] = "doc", s_vals[] = "[[1]]";
static uint8_t s_bytes[] = "12345ab";

/* Sets list wrapper l (type T) to n values at v. */
#define SET_LIST(l, init, v, n) do { init(&(l)); (l).n_values = (n); (l).values = (v); } while (0)

static void fill_lists(all_kinds *k) {
    k->dl[0] = 0.1; k->dl[1] = -2.0;
    k->fl[0] = 0.1f; k->fl[1] = NAN;
    k->ll[0] = 1; k->ll[1] = -2;
    k->ul[0] = 4294967295u;
    k->ql[0] = UINT64_MAX;
    k->bl[0] = 1; k->bl[1] = 0;
    k->sl[0] = s_a; k->sl[1] = s_e;
    k->yl[0].len = 0; k->yl[0].data = NULL;
    k->yl[1].len = 1; k->yl[1].data = s_bytes + 5;
    k->yl[2].len = 2; k->yl[2].data = s_bytes + 5;
    SET_LIST(k->dlist, chakra_proto_msg__double_list__init, k->dl, 2);
    SET_LIST(k->flist, chakra_proto_msg__float_list__init, k->fl, 2);
    SET_LIST(k->ilist, chakra_proto_msg__int32_list__init, k->il, 0);
    SET_LIST(k->llist, chakra_proto_msg__int64_list__init, k->ll, 2);
    SET_LIST(k->ulist, chakra_proto_msg__uint32_list__init, k->ul, 1);
    SET_LIST(k->qlist, chakra_proto_msg__uint64_list__init, k->ql, 1);
    SET_LIST(k->s32list, chakra_proto_msg__sint32_list__init, k->il, 0);
    SET_LIST(k->s64list, chakra_proto_msg__sint64_list__init, k->ll, 2);
    SET_LIST(k->f32list, chakra_proto_msg__fixed32_list__init, k->ul, 1);
    SET_LIST(k->f64list, chakra_proto_msg__fixed64_list__init, k->ql, 1);
    SET_LIST(k->sf32list, chakra_proto_msg__sfixed32_list__init, k->il, 0);
    SET_LIST(k->sf64list, chakra_proto_msg__sfixed64_list__init, k->ll, 2);
    SET_LIST(k->blist, chakra_proto_msg__bool_list__init, k->bl, 2);
    SET_LIST(k->slist, chakra_proto_msg__string_list__init, k->sl, 2);
    SET_LIST(k->ylist, chakra_proto_msg__bytes_list__init, k->yl, 3);
}

/* Attribute i (3..32) uses oneof member i; attribute 2 has no value. */
static void fill_values(all_kinds *k) {
    attr_t *a = k->a;
    a[3].double_val = 1.5;              a[4].double_list = &k->dlist;
    a[5].float_val = 1.2345f;           a[6].float_list = &k->flist;
    a[7].int32_val = -7;                a[8].int32_list = &k->ilist;
    a[9].int64_val = -9876543210LL;     a[10].int64_list = &k->llist;
    a[11].uint32_val = 4294967295u;     a[12].uint32_list = &k->ulist;
    a[13].uint64_val = UINT64_MAX;      a[14].uint64_list = &k->qlist;
    a[15].sint32_val = -1;              a[16].sint32_list = &k->s32list;
    a[17].sint64_val = INT64_MIN;       a[18].sint64_list = &k->s64list;
    a[19].fixed32_val = 0;              a[20].fixed32_list = &k->f32list;
    a[21].fixed64_val = 5;              a[22].fixed64_list = &k->f64list;
    a[23].sfixed32_val = -3;            a[24].sfixed32_list = &k->sf32list;
    a[25].sfixed64_val = -4;            a[26].sfixed64_list = &k->sf64list;
    a[27].bool_val = 0;                 a[28].bool_list = &k->blist;
    a[29].string_val = s_empty;         a[30].string_list = &k->slist;
    a[31].bytes_val.len = 5;            a[31].bytes_val.data = s_bytes;
    a[32].bytes_list = &k->ylist;
}

static void all_kinds_init(all_kinds *k) {
    memset(k, 0, sizeof *k);
    fill_lists(k);
    for (int i = 2; i <= 32; i++) {
        chakra_proto_msg__attribute_proto__init(&k->a[i]);
        snprintf(s_name[i], sizeof s_name[i], "m%d", i);
        k->a[i].name = i == 2 ? s_empty : s_name[i];
        k->a[i].value_case = (ChakraProtoMsg__AttributeProto__ValueCase)(i == 2 ? 0 : i);
        k->ptrs[i - 2] = &k->a[i];
    }
    k->a[3].doc_string = s_doc;
    fill_values(k);
    chakra_proto_msg__ioinfo__init(&k->in);
    k->in.values = s_vals;
    chakra_proto_msg__node__init(&k->node);
    k->node.type = (ChakraProtoMsg__NodeType)42;
    k->node.inputs = &k->in;
    k->node.n_attr = 31;
    k->node.attr = k->ptrs;
}

static const char all_kinds_json[] =
    "{\"type\": 42, \"inputs\": {\"values\": \"[[1]]\"}, \"attr\": ["
    "{},"
    "{\"name\": \"m3\", \"docString\": \"doc\", \"doubleVal\": 1.5},"
    "{\"name\": \"m4\", \"doubleList\": {\"values\": [0.1, -2.0]}},"
    "{\"name\": \"m5\", \"floatVal\": 1.2345},"
    "{\"name\": \"m6\", \"floatList\": {\"values\": [0.1, \"NaN\"]}},"
    "{\"name\": \"m7\", \"int32Val\": -7},"
    "{\"name\": \"m8\", \"int32List\": {}},"
    "{\"name\": \"m9\", \"int64Val\": \"-9876543210\"},"
    "{\"name\": \"m10\", \"int64List\": {\"values\": [\"1\", \"-2\"]}},"
    "{\"name\": \"m11\", \"uint32Val\": 4294967295},"
    "{\"name\": \"m12\", \"uint32List\": {\"values\": [4294967295]}},"
    "{\"name\": \"m13\", \"uint64Val\": \"18446744073709551615\"},"
    "{\"name\": \"m14\", \"uint64List\": {\"values\": [\"18446744073709551615\"]}},"
    "{\"name\": \"m15\", \"sint32Val\": -1},"
    "{\"name\": \"m16\", \"sint32List\": {}},"
    "{\"name\": \"m17\", \"sint64Val\": \"-9223372036854775808\"},"
    "{\"name\": \"m18\", \"sint64List\": {\"values\": [\"1\", \"-2\"]}},"
    "{\"name\": \"m19\", \"fixed32Val\": 0},"
    "{\"name\": \"m20\", \"fixed32List\": {\"values\": [4294967295]}},"
    "{\"name\": \"m21\", \"fixed64Val\": \"5\"},"
    "{\"name\": \"m22\", \"fixed64List\": {\"values\": [\"18446744073709551615\"]}},"
    "{\"name\": \"m23\", \"sfixed32Val\": -3},"
    "{\"name\": \"m24\", \"sfixed32List\": {}},"
    "{\"name\": \"m25\", \"sfixed64Val\": \"-4\"},"
    "{\"name\": \"m26\", \"sfixed64List\": {\"values\": [\"1\", \"-2\"]}},"
    "{\"name\": \"m27\", \"boolVal\": false},"
    "{\"name\": \"m28\", \"boolList\": {\"values\": [true, false]}},"
    "{\"name\": \"m29\", \"stringVal\": \"\"},"
    "{\"name\": \"m30\", \"stringList\": {\"values\": [\"a\", \"\\u00e9\"]}},"
    "{\"name\": \"m31\", \"bytesVal\": \"MTIzNDU=\"},"
    "{\"name\": \"m32\", \"bytesList\": {\"values\": [\"\", \"YQ==\", \"YWI=\"]}}"
    "]}";

static void expect_json_text(json_t *got, const char *want_text) {
    json_error_t je;
    json_t *want = json_loads(want_text, 0, &je);
    if (!want) fail_msg("bad expected JSON at %d: %s", je.position, je.text);
    if (!json_equal(got, want)) {
        char *g = json_dumps(got, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
        print_error("ours:\n%s\nexpected:\n%s\n", g, want_text);
        free(g);
        fail();
    }
    json_decref(want);
}

static void test_all_oneof_members(void **state) {
    (void)state;
    all_kinds *k = malloc(sizeof *k);
    all_kinds_init(k);
    const node_t *n = &k->node;
    json_t *j = cs_et_node_to_json(n);
    expect_json_text(j, all_kinds_json);
    json_decref(j);
    for (int gz = 0; gz < 2; gz++) {
        const char *path = tu_path(tu_tmp_dir(), gz ? "all_kinds.et.gz" : "all_kinds.et");
        write_file(path, gz, NULL, &n, 1);
        expect_file_holds(path, NULL, &n, 1);
        cs_et_reader *r = NULL;
        cs_error err;
        cs_error_clear(&err);
        assert_int_equal(cs_et_reader_open(path, &r, &err), CS_OK);
        node_t *x = NULL;
        assert_int_equal(cs_et_reader_next(r, &x, &err), 1);
        j = cs_et_node_to_json(x);
        expect_json_text(j, all_kinds_json);
        json_decref(j);
        cs_et_node_free(x);
        cs_et_reader_close(r);
    }
    free(k);
}

static void test_json_special_values(void **state) {
    (void)state;
    cs_et_nb *b = cs_et_nb_new(0, "bad \xff utf8", 0);
    json_t *j = cs_et_node_to_json(cs_et_nb_node(b));
    expect_json_text(j, "{\"name\": \"bad \\ufffd utf8\"}");
    json_decref(j);
    cs_et_nb_free(b);

    ChakraProtoMsg__GlobalMetadata md;
    chakra_proto_msg__global_metadata__init(&md);
    j = cs_et_metadata_to_json(&md);
    expect_json_text(j, "{}");
    json_decref(j);

    attr_t a[3], *p[3] = {&a[0], &a[1], &a[2]};
    for (int i = 0; i < 3; i++) {
        chakra_proto_msg__attribute_proto__init(&a[i]);
        a[i].value_case = VC(FLOAT_VAL);
    }
    a[0].float_val = INFINITY;
    a[1].value_case = VC(DOUBLE_VAL);
    a[1].double_val = -INFINITY;
    a[2].float_val = 3.0f;
    md.n_attr = 3;
    md.attr = p;
    j = cs_et_metadata_to_json(&md);
    expect_json_text(j, "{\"attr\": [{\"floatVal\": \"Infinity\"}, {\"doubleVal\": \"-Infinity\"},"
                        " {\"floatVal\": 3.0}]}");
    json_decref(j);
}

/* ---- attribute accessors ------------------------------------------------ */

static void test_attribute_accessors(void **state) {
    (void)state;
    static const int dims[] = {0, 1};
    cs_et_nb *b = cs_et_nb_new(5, "n", CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE);
    cs_et_nb_attr_int32(b, "dup", 1);
    cs_et_nb_attr_int64(b, "dup", 2);
    cs_et_nb_attr_uint64(b, "huge", UINT64_MAX);
    cs_et_nb_attr_int64(b, "minus", -3);
    cs_et_nb_attr_bool(b, "flag", 1);
    cs_et_nb_attr_string(b, "s", "text");
    cs_et_nb_attr_bool_list(b, "dims", dims, 2);
    const node_t *n = cs_et_nb_node(b);
    cs_error err;
    cs_error_clear(&err);
    int64_t i = 42;
    uint64_t u = 42;
    int v = 42;
    const char *s = NULL;

    assert_int_equal(cs_et_attr_get_int(n, "absent", &i, &err), 0);
    assert_int_equal(i, 42);
    assert_int_equal(cs_et_attr_get_int(n, "dup", &i, &err), 1);
    assert_int_equal(i, 1); /* first match wins */
    assert_int_equal(cs_et_attr_get_uint(n, "huge", &u, &err), 1);
    assert_true(u == UINT64_MAX);
    assert_int_equal(cs_et_attr_get_int(n, "huge", &i, &err), CS_EFORMAT);
    assert_non_null(strstr(err.msg, "huge"));
    cs_error_clear(&err);
    assert_int_equal(cs_et_attr_get_uint(n, "minus", &u, &err), CS_EFORMAT);
    assert_non_null(strstr(err.msg, "node 5: attribute minus: expected a non-negative integer"));
    cs_error_clear(&err);
    assert_int_equal(cs_et_attr_get_int(n, "flag", &i, &err), 1);
    assert_int_equal(i, 1);
    assert_int_equal(cs_et_attr_get_bool(n, "minus", &v, &err), 1);
    assert_int_equal(v, 1);
    assert_int_equal(cs_et_attr_get_bool(n, "s", &v, &err), CS_EFORMAT);
    assert_non_null(strstr(err.msg, "attribute s: expected a bool or an integer, found string_val"));
    cs_error_clear(&err);
    assert_int_equal(cs_et_attr_get_string(n, "s", &s, &err), 1);
    assert_string_equal(s, "text");
    assert_int_equal(cs_et_attr_get_string(n, "flag", &s, &err), CS_EFORMAT);
    assert_non_null(strstr(err.msg, "found bool_val"));
    cs_error_clear(&err);
    const protobuf_c_boolean *vals = NULL;
    size_t count = 0;
    assert_int_equal(cs_et_attr_get_bool_list(n, "dims", &vals, &count, &err), 1);
    assert_int_equal(count, 2);
    assert_true(!vals[0] && vals[1]);
    assert_int_equal(cs_et_attr_get_int(n, "dims", &i, &err), CS_EFORMAT);
    assert_non_null(strstr(err.msg, "expected an integer, found bool_list"));
    assert_ptr_equal(cs_et_attr_find(n, "s"), n->attr[5]);
    cs_et_nb_free(b);
}

/* ---- every shared trace: read, write, read again ------------------------ */

static int ends_with(const char *s, const char *suf) {
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

/* Reads src, writes it to dst (plain), returns the number of records. */
static size_t copy_trace(const char *src, const char *dst) {
    cs_error err;
    cs_error_clear(&err);
    cs_et_reader *r = NULL;
    cs_et_writer *w = NULL;
    if (cs_et_reader_open(src, &r, &err) != CS_OK) fail_msg("%s", err.msg);
    if (cs_et_writer_open(dst, 0, cs_et_reader_metadata(r), &w, &err) != CS_OK) fail_msg("%s", err.msg);
    node_t *n;
    size_t recs = 1;
    int rc;
    while ((rc = cs_et_reader_next(r, &n, &err)) == 1) {
        if (cs_et_writer_write(w, n, &err) != CS_OK) fail_msg("%s", err.msg);
        cs_et_node_free(n);
        recs++;
    }
    if (rc != 0) fail_msg("%s", err.msg);
    if (cs_et_writer_close(w, &err) != CS_OK) fail_msg("%s", err.msg);
    cs_et_reader_close(r);
    return recs;
}

/* Both files hold the same records, packed identically. */
static void expect_same_records(const char *a, const char *b) {
    cs_error err;
    cs_error_clear(&err);
    cs_et_reader *ra = NULL, *rb = NULL;
    assert_int_equal(cs_et_reader_open(a, &ra, &err), CS_OK);
    assert_int_equal(cs_et_reader_open(b, &rb, &err), CS_OK);
    expect_same_message(&cs_et_reader_metadata(ra)->base, &cs_et_reader_metadata(rb)->base, b, 0);
    for (size_t rec = 1;; rec++) {
        node_t *x = NULL, *y = NULL;
        int ka = cs_et_reader_next(ra, &x, &err), kb = cs_et_reader_next(rb, &y, &err);
        assert_int_equal(ka, kb);
        if (ka != 1) break;
        expect_same_message(&x->base, &y->base, b, rec);
        cs_et_node_free(x);
        cs_et_node_free(y);
    }
    cs_et_reader_close(ra);
    cs_et_reader_close(rb);
}

static void roundtrip_dir(const char *dir, size_t *files, size_t *identical) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        assert_int_equal(stat(p, &st), 0);
        if (S_ISDIR(st.st_mode)) {
            roundtrip_dir(p, files, identical);
            continue;
        }
        if (!ends_with(p, ".et") && !ends_with(p, ".et.gz")) continue;
        char out[4096];
        snprintf(out, sizeof out, "%s/roundtrip.et", tu_tmp_dir());
        copy_trace(p, out);
        expect_same_records(p, out);
        (*files)++;
        /* Chakra's writers pack repeated fields and emit fields in number
         * order, as protobuf-c does: a plain file comes back byte for byte. */
        if (ends_with(p, ".gz") || strstr(p, "unpacked_deps")) continue;
        size_t la, lb;
        uint8_t *ba = file_bytes(p, &la), *bb = file_bytes(out, &lb);
        if (la != lb || memcmp(ba, bb, la) != 0) fail_msg("%s: rewritten file differs", p);
        (*identical)++;
        free(ba);
        free(bb);
    }
    closedir(d);
}

static void test_shared_roundtrip(void **state) {
    (void)state;
    if (!tu_shared_dir()) {
        print_message("../shared absent: shared round trip skipped\n");
        skip();
    }
    size_t files = 0, identical = 0;
    char dir[4096]; /* tu_path's buffers rotate: keep a copy */
    snprintf(dir, sizeof dir, "%s", tu_path(tu_shared_dir(), "testdata/chakra"));
    roundtrip_dir(dir, &files, &identical);
    assert_int_equal(files, 276);
    assert_int_equal(identical, 276 - 3); /* 2 gzip files, 1 unpacked */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_example_bytes),
        cmocka_unit_test(test_builder_roundtrip_plain),
        cmocka_unit_test(test_builder_roundtrip_gzip),
        cmocka_unit_test(test_no_zero_length_records),
        cmocka_unit_test(test_writer_open_errors),
        cmocka_unit_test(test_all_oneof_members),
        cmocka_unit_test(test_json_special_values),
        cmocka_unit_test(test_attribute_accessors),
        cmocka_unit_test(test_shared_roundtrip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
