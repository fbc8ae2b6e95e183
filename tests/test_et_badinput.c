/*
 * test_et_badinput.c -- the Chakra ET reader on broken input.
 *
 * One test per kind of damage.  Each builds its input in tu_tmp_dir() at
 * run time and checks the return code AND that the message names the file
 * and says what was expected (spec section 1: only a clean end at a record
 * boundary ends a trace).  Needs nothing from ../shared.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "core/log.h"
#include "workload/et.h"

typedef ChakraProtoMsg__Node node_t;

/* A valid record 0: GlobalMetadata{version: "1.0.0"} (8 bytes). */
#define MD "\x07\x0a\x05" "1.0.0"
#define MD_LEN 8

static const char *tmp_file(const char *name, const void *data, size_t len) {
    const char *path = tu_path(tu_tmp_dir(), name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    return path;
}

static void expect_msg(const cs_error *err, const char *a, const char *b, const char *c) {
    const char *parts[3] = {a, b, c};
    for (int i = 0; i < 3; i++)
        if (parts[i] && !strstr(err->msg, parts[i]))
            fail_msg("message lacks \"%s\": %s", parts[i], err->msg);
}

/* Opens path, then reads nodes until something other than 1; returns that
 * code and leaves the message in err. */
static int read_until_error(const char *path, cs_error *err) {
    cs_error_clear(err);
    cs_et_reader *r = NULL;
    int rc = cs_et_reader_open(path, &r, err);
    if (rc != CS_OK) {
        assert_null(r);
        return rc;
    }
    node_t *n = NULL;
    while ((rc = cs_et_reader_next(r, &n, err)) == 1) cs_et_node_free(n);
    if (rc < 0) { /* errors are sticky */
        cs_error again;
        cs_error_clear(&again);
        assert_int_equal(cs_et_reader_next(r, &n, &again), rc);
        assert_null(n);
    }
    cs_et_reader_close(r);
    return rc;
}

static void test_nonexistent_path(void **state) {
    (void)state;
    cs_error err;
    const char *path = tu_path(tu_tmp_dir(), "does_not_exist.et");
    assert_int_equal(read_until_error(path, &err), CS_EIO);
    expect_msg(&err, path, "No such file or directory", NULL);
}

static void test_directory(void **state) {
    (void)state;
    cs_error err;
    const char *path = tu_tmp_dir();
    assert_int_equal(read_until_error(path, &err), CS_EIO);
    expect_msg(&err, path, "Is a directory", "expected a regular file");
}

static void test_unreadable_file(void **state) {
    (void)state;
    cs_error err;
    const char *path = tmp_file("unreadable.et", MD, MD_LEN);
    assert_int_equal(chmod(path, 0), 0);
    int rc = read_until_error(path, &err);
    if (geteuid() == 0) {
        print_message("running as root, which can read mode-000 files: only checking that "
                      "the (valid) file reads cleanly\n");
        assert_int_equal(rc, 0);
    } else {
        assert_int_equal(rc, CS_EIO);
        expect_msg(&err, path, "Permission denied", NULL);
    }
    chmod(path, 0644);
}

static void test_empty_file(void **state) {
    (void)state;
    cs_error err;
    const char *path = tmp_file("empty.et", "", 0);
    assert_int_equal(read_until_error(path, &err), CS_EFORMAT);
    expect_msg(&err, path, "expected record 0 (GlobalMetadata)", "ends at byte 0");
}

static void test_truncated_length_varint(void **state) {
    (void)state;
    cs_error err;
    const char *path = tmp_file("trunc_varint.et", MD "\x85\x80", MD_LEN + 2);
    assert_int_equal(read_until_error(path, &err), CS_EFORMAT);
    expect_msg(&err, path, "record 1 (Node) at byte 8: length varint truncated",
               "expected a last byte below 0x80");

    path = tmp_file("trunc_varint0.et", "\x80", 1);
    assert_int_equal(read_until_error(path, &err), CS_EFORMAT);
    expect_msg(&err, path, "record 0 (GlobalMetadata) at byte 0: length varint truncated",
               "expected");
}

static void test_varint_too_long(void **state) {
    (void)state;
    cs_error err;
    const char *path = tmp_file("long_varint.et", MD "\x80\x80\x80\x80\x80\x01", MD_LEN + 6);
    assert_int_equal(read_until_error(path, &err), CS_EFORMAT);
    expect_msg(&err, path, "record 1 (Node) at byte 8: length varint longer than 5 bytes",
               "expected a 32-bit length");

    path = tmp_file("big_varint.et", MD "\xff\xff\xff\xff\x1f", MD_LEN + 5);
    assert_int_equal(read_until_error(path, &err), CS_EFORMAT);
    expect_msg(&err, path, "length 8589934591 is above 2^32-1",
               "expected a 32-bit record length");
}

static void test_truncated_payload(void **state) {
    (void)state;
    cs_error err;
    const char *path = tmp_file("trunc_payload.et", MD "\x0a\x08\x01", MD_LEN + 3);
    assert_int_equal(read_until_error(path, &err), CS_EFORMAT);
    expect_msg(&err, path, "record 1 (Node) at byte 8: truncated",
               "expected 10 payload bytes, the file ends after 2");

    path = tmp_file("trunc_md.et", "\x28\x0a\x05\x31", 4);
    assert_int_equal(read_until_error(path, &err), CS_EFORMAT);
    expect_msg(&err, path, "record 0 (GlobalMetadata) at byte 0: truncated",
               "expected 40 payload bytes, the file ends after 3");
}

static void test_payload_fails_to_unpack(void **state) {
    (void)state;
    cs_error err;
    /* Node.type (field 3) must be a varint; here it is length-delimited. */
    const char *path = tmp_file("bad_payload.et", MD "\x04\x08\x01\x1a\x00", MD_LEN + 5);
    assert_int_equal(read_until_error(path, &err), CS_EFORMAT);
    expect_msg(&err, path, "record 1 (Node) at byte 8: 4-byte payload is not a valid Node",
               "field type (3) at payload byte 2 has wire type 2 (length-delimited), "
               "expected 0 (varint)");

    /* An attribute's int64_val with the wrong wire type, one level down. */
    path = tmp_file("bad_attr.et", MD "\x07\x52\x05\x0a\x01x\x4a\x00", MD_LEN + 8);
    assert_int_equal(read_until_error(path, &err), CS_EFORMAT);
    expect_msg(&err, path, "field attr[0].int64_val (9) at payload byte 5 has wire type 2",
               "expected 0 (varint)");

    /* Field number 0 in a non-minimal tag (82 00): protobuf-c alone would
     * accept it, then fail on its own re-packing. */
    path = tmp_file("field_zero.et", MD "\x05\x08\x01\x82\x00\x00", MD_LEN + 6);
    assert_int_equal(read_until_error(path, &err), CS_EFORMAT);
    expect_msg(&err, path, "field tag at payload byte 2: field number 0 is out of range",
               "expected 1 to 536870911");

    /* A Node where the GlobalMetadata should be (e.g. a legacy trace). */
    path = tmp_file("no_md.et", "\x02\x08\x43", 3);
    assert_int_equal(read_until_error(path, &err), CS_EFORMAT);
    expect_msg(&err, path, "record 0 (GlobalMetadata) at byte 0",
               "field version (1) at payload byte 0 has wire type 0 (varint), expected 2");
    expect_msg(&err, "must start with a GlobalMetadata", NULL, NULL);
}

static char g_warning[1024];
static int g_warnings;

static void capture(int level, const char *msg, void *ud) {
    (void)ud;
    if (level != CS_LOG_WARN) return;
    g_warnings++;
    snprintf(g_warning, sizeof g_warning, "%s", msg);
}

static void test_zero_length_record_is_empty_node(void **state) {
    (void)state;
    cs_error err;
    cs_error_clear(&err);
    const char *path = tmp_file("zero_len.et", MD "\x00\x00", MD_LEN + 2);
    cs_et_reader *r = NULL;
    cs_log_reset();
    cs_log_set_sink(capture, NULL);
    assert_int_equal(cs_et_reader_open(path, &r, &err), CS_OK);
    node_t *n = NULL;
    for (int i = 0; i < 2; i++) {
        assert_int_equal(cs_et_reader_next(r, &n, &err), 1);
        assert_true(n->id == 0 && n->type == 0 && n->n_attr == 0);
        cs_et_node_free(n);
    }
    assert_int_equal(cs_et_reader_next(r, &n, &err), 0);
    assert_null(n);
    cs_et_reader_close(r);
    cs_log_set_sink(NULL, NULL);
    assert_int_equal(g_warnings, 1); /* once per file */
    if (!strstr(g_warning, path) || !strstr(g_warning, "record 1 at byte 8 has length 0"))
        fail_msg("unexpected warning: %s", g_warning);
}

/* A gzip file of MD plus 200 small nodes, minus its last cut_from_end bytes,
 * with its first deflate byte (offset 10) destroyed when corrupt. */
static const char *gzip_file(const char *name, long cut_from_end, int corrupt) {
    const char *path = tu_path(tu_tmp_dir(), name);
    gzFile g = gzopen(path, "wb9");
    assert_non_null(g);
    assert_int_equal(gzwrite(g, MD, MD_LEN), MD_LEN);
    for (int i = 0; i < 200; i++) {
        unsigned char rec[4] = {0x03, 0x08, (unsigned char)(0x80 | i), 0x01};
        assert_int_equal(gzwrite(g, rec, 4), 4);
    }
    assert_int_equal(gzclose(g), Z_OK);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long size = ftell(f);
    if (corrupt) {
        assert_int_equal(fseek(f, 10, SEEK_SET), 0); /* first deflate byte */
        assert_int_equal(fwrite("\xff\xff\xff\xff\xff\xff", 1, 6, f), 6);
    }
    assert_int_equal(fclose(f), 0);
    assert_int_equal(truncate(path, size - cut_from_end), 0);
    return path;
}

static void test_truncated_gzip(void **state) {
    (void)state;
    cs_error err;
    /* cut inside the deflate data, and inside the 8-byte trailer only */
    static const long cuts[] = {40, 3};
    for (int i = 0; i < 2; i++) {
        const char *path = gzip_file("trunc.et.gz", cuts[i], 0);
        assert_int_equal(read_until_error(path, &err), CS_EFORMAT);
        expect_msg(&err, path, "gzip stream truncated", "expected more compressed data");
    }
    const char *path = gzip_file("whole.et.gz", 0, 0);
    assert_int_equal(read_until_error(path, &err), 0);
}

static void test_corrupt_gzip(void **state) {
    (void)state;
    cs_error err;
    const char *path = gzip_file("corrupt.et.gz", 0, 1);
    assert_int_equal(read_until_error(path, &err), CS_EFORMAT);
    expect_msg(&err, path, "gzip stream corrupt at compressed byte", "expected valid deflate data");
}

/* Appends one gzip member holding data to f. */
static void gzip_member(FILE *f, const void *data, unsigned len) {
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    assert_int_equal(deflateInit2(&zs, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
    unsigned char out[512];
    zs.next_in = (Bytef *)(uintptr_t)data;
    zs.avail_in = len;
    zs.next_out = out;
    zs.avail_out = sizeof out;
    assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
    size_t n = sizeof out - zs.avail_out;
    assert_int_equal(fwrite(out, 1, n, f), n);
    deflateEnd(&zs);
}

/* Like gzip(1) and Python's gzip module: members concatenate, trailing zero
 * bytes are padding, anything else after a member must be another member. */
static void test_gzip_members_and_padding(void **state) {
    (void)state;
    cs_error err;
    for (int variant = 0; variant < 2; variant++) {
        const char *path = tu_path(tu_tmp_dir(), "members.et.gz");
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        gzip_member(f, MD "\x02\x08\x01", MD_LEN + 3);
        gzip_member(f, "\x02\x08\x02", 3);
        if (variant == 0)
            assert_int_equal(fwrite("\0\0\0\0", 1, 4, f), 4);
        else
            assert_int_equal(fwrite("\0\0junk", 1, 6, f), 6);
        assert_int_equal(fclose(f), 0);
        cs_error_clear(&err);
        cs_et_reader *r = NULL;
        assert_int_equal(cs_et_reader_open(path, &r, &err), CS_OK);
        node_t *n = NULL;
        for (uint64_t id = 1; id <= 2; id++) {
            assert_int_equal(cs_et_reader_next(r, &n, &err), 1);
            assert_true(n->id == id);
            cs_et_node_free(n);
        }
        int rc = cs_et_reader_next(r, &n, &err);
        cs_et_reader_close(r);
        if (variant == 0) {
            assert_int_equal(rc, 0);
        } else {
            assert_int_equal(rc, CS_EFORMAT);
            expect_msg(&err, path, "gzip stream corrupt", "expected valid deflate data");
        }
    }
}

static void test_random_bytes(void **state) {
    (void)state;
    cs_error err;
    unsigned char buf[4096];
    unsigned seed = 12345;
    for (int round = 0; round < 20; round++) {
        for (size_t i = 0; i < sizeof buf; i++) {
            seed = seed * 1103515245u + 12345u;
            buf[i] = (unsigned char)(seed >> 16);
        }
        const char *path = tmp_file("random.et", buf, sizeof buf);
        int rc = read_until_error(path, &err);
        assert_int_equal(rc, CS_EFORMAT);
        expect_msg(&err, path, "expected", NULL);
    }
}

static void test_memory_source_names(void **state) {
    (void)state;
    cs_error err;
    cs_error_clear(&err);
    cs_et_reader *r = NULL;
    assert_int_equal(cs_et_reader_open_mem("\x28\x0a", 2, "rank7.et", &r, &err), CS_EFORMAT);
    assert_null(r);
    expect_msg(&err, "rank7.et: record 0 (GlobalMetadata) at byte 0: truncated",
               "expected 40 payload bytes, the file ends after 1", NULL);
    cs_error_clear(&err);
    assert_int_equal(cs_et_reader_open_mem(MD, MD_LEN, "ok.et", &r, &err), CS_OK);
    assert_string_equal(cs_et_reader_path(r), "ok.et");
    assert_string_equal(cs_et_reader_metadata(r)->version, "1.0.0");
    node_t *n = NULL;
    assert_int_equal(cs_et_reader_next(r, &n, &err), 0);
    cs_et_reader_close(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nonexistent_path),
        cmocka_unit_test(test_directory),
        cmocka_unit_test(test_unreadable_file),
        cmocka_unit_test(test_empty_file),
        cmocka_unit_test(test_truncated_length_varint),
        cmocka_unit_test(test_varint_too_long),
        cmocka_unit_test(test_truncated_payload),
        cmocka_unit_test(test_payload_fails_to_unpack),
        cmocka_unit_test(test_zero_length_record_is_empty_node),
        cmocka_unit_test(test_truncated_gzip),
        cmocka_unit_test(test_corrupt_gzip),
        cmocka_unit_test(test_gzip_members_and_padding),
        cmocka_unit_test(test_random_bytes),
        cmocka_unit_test(test_memory_source_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
