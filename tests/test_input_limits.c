/*
 * test_input_limits.c -- inputs are bounded by what they contain.
 *
 * Configuration files (JSON through cs_jdoc, the network YAML, topology,
 * model and device files): only regular files of at most 64 MiB
 * (CS_CONFIG_MAX_BYTES) are read; /dev/zero, a FIFO and a bigger (sparse)
 * file are refused before reading, naming the file, the limit and what was
 * expected.  The network YAML: nesting deeper than CS_NETWORK_MAX_DEPTH is
 * refused with file:line before libyaml builds the document.  Chakra
 * traces: a record longer than CS_ET_MAX_RECORD is refused at its length;
 * a gzip stream expanding beyond CS_ET_MAX_GZIP_RATIO is refused while
 * decompressing (a 256 KB gzip bomb used to take 3.4 GB), while the same
 * trace uncompressed reads; a device (/dev/zero) is refused as a trace.
 * Needs nothing from ../shared.
 */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "compute/device.h"
#include "config/comm_group.h"
#include "config/memory_config.h"
#include "config/network_config.h"
#include "config/system_config.h"
#include "config/topology_file.h"
#include "core/alloc.h"
#include "core/log.h"
#include "core/opts.h"
#include "gen/gen.h"
#include "workload/et.h"
#include "workload/workload.h"

/* ---- configuration files -------------------------------------------------- */

typedef int (*load_fn)(const char *path, cs_error *err);

static int load_network(const char *path, cs_error *err) {
    cs_network_config c;
    int rc = cs_network_config_load(path, &c, err);
    cs_network_config_free(&c);
    return rc;
}
static int load_system(const char *path, cs_error *err) {
    cs_system_config c;
    int rc = cs_system_config_load(path, &c, err);
    if (rc == CS_OK) cs_system_config_free(&c);
    return rc;
}
static int load_memory(const char *path, cs_error *err) {
    cs_memory_config c;
    int rc = cs_memory_config_load(path, &c, err);
    if (rc == CS_OK) cs_memory_config_free(&c);
    return rc;
}
static int load_groups(const char *path, cs_error *err) {
    cs_comm_groups g;
    int rc = cs_comm_groups_load(path, &g, err);
    if (rc == CS_OK) cs_comm_groups_free(&g);
    return rc;
}
static int load_topology(const char *path, cs_error *err) {
    cs_network_config net = {0};
    net.ndims = 1;
    net.topo[0] = CS_TOPO_SWITCH;
    net.npus[0] = 8;
    net.bandwidth_gbps[0] = 100;
    net.total_npus = 8;
    cs_topo *t = NULL;
    int rc = cs_topology_file_load(path, &net, &t, err);
    if (t) cs_topo_free(t);
    return rc;
}
static int load_model(const char *path, cs_error *err) {
    cs_gen_model m;
    return cs_gen_model_load_json(path, &m, err);
}
static int load_device(const char *path, cs_error *err) {
    cs_device d;
    return cs_device_load_json(path, &d, err);
}

static const struct reader {
    const char *what;
    load_fn load;
} READERS[] = {
    {"network YAML", load_network}, {"system JSON", load_system}, {"memory JSON", load_memory},
    {"comm-group JSON", load_groups}, {"topology file", load_topology}, {"model file", load_model},
    {"device file", load_device},
};
#define NREADERS (sizeof READERS / sizeof READERS[0])

/* Every reader refuses path with CS_EIO, naming it, and the message holds want. */
static void expect_refused(const char *path, const char *want) {
    for (size_t i = 0; i < NREADERS; i++) {
        cs_error err;
        cs_error_clear(&err);
        int rc = READERS[i].load(path, &err);
        if (rc != CS_EIO) fail_msg("%s on %s: rc %d, message \"%s\"", READERS[i].what, path, rc, err.msg);
        char head[4200];
        snprintf(head, sizeof head, "%s: ", path);
        if (strncmp(err.msg, head, strlen(head)) != 0)
            fail_msg("%s: message \"%s\" does not start with the file", READERS[i].what, err.msg);
        tu_assert_has(err.msg, "expected");
        tu_assert_has(err.msg, want);
    }
}

/* Before the limit, the YAML reader read /dev/zero until 2 GB were used. */
static void test_dev_zero_refused(void **state) {
    (void)state;
    if (access("/dev/zero", R_OK) != 0) skip();
    expect_refused("/dev/zero", "expected a regular file, got a character device");
}

/* A FIFO without a writer: refused at once instead of blocking in open. */
static void test_fifo_refused(void **state) {
    (void)state;
    const char *p = tu_path(tu_tmp_dir(), "limits.fifo");
    unlink(p);
    if (mkfifo(p, 0600) != 0) {
        fprintf(stderr, "SKIP: mkfifo %s: %s\n", p, strerror(errno));
        skip();
    }
    char path[4096];
    snprintf(path, sizeof path, "%s", p);
    expect_refused(path, "expected a regular file, got a FIFO");
    unlink(path);
}

static void test_directory_refused(void **state) {
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s", tu_tmp_dir());
    expect_refused(path, "expected a regular file, got a directory");
}

/* A sparse file one byte above 64 MiB (no disk space used) is refused from
 * its size; one of exactly 64 MiB is read (and fails as a document). */
static void test_size_limit(void **state) {
    (void)state;
    assert_int_equal(CS_CONFIG_MAX_BYTES, 67108864);
    char path[4096];
    snprintf(path, sizeof path, "%s", tu_path(tu_tmp_dir(), "limits_big.json"));
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)CS_CONFIG_MAX_BYTES + 1), 0);
    close(fd);
    expect_refused(path, "the file is 67108865 bytes, expected at most 67108864 bytes (64 MiB");

    fd = open(path, O_WRONLY | O_TRUNC);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)CS_CONFIG_MAX_BYTES), 0);
    close(fd);
    cs_error err;
    cs_error_clear(&err);
    char *buf = NULL;
    size_t len = 0;
    assert_int_equal(cs_read_file(path, &buf, &len, &err), CS_OK);
    assert_int_equal(len, CS_CONFIG_MAX_BYTES);
    cs_free(buf);
    unlink(path);
}

/* ---- YAML nesting ------------------------------------------------------------ */

static char *nested_flow(size_t depth) {
    char *s = malloc(2 * depth + 32);
    size_t o = (size_t)sprintf(s, "topology: ");
    for (size_t i = 0; i + 1 < depth; i++) s[o++] = '[';
    for (size_t i = 0; i + 1 < depth; i++) s[o++] = ']';
    s[o++] = '\n';
    s[o] = '\0';
    return s;
}

static void expect_depth_refused(const char *name, const char *text, int line) {
    const char *p = tu_write_tmp(name, text);
    cs_network_config c;
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_network_config_load(p, &c, &err);
    if (rc != CS_EINVAL) fail_msg("%s: rc %d, message \"%s\"", name, rc, err.msg);
    tu_assert_located(err.msg, p, line, NULL, "expected at most 64 levels of nested lists and mappings");
    tu_assert_has(err.msg, "got level 65");
    assert_null(c.path);
}

/* 65 levels (the mapping and 64 lists) are refused; 64 pass the check. */
static void test_yaml_depth_limit(void **state) {
    (void)state;
    assert_int_equal(CS_NETWORK_MAX_DEPTH, 64);
    char *s = nested_flow(65);
    expect_depth_refused("deep65.yml", s, 1);
    free(s);
    s = nested_flow(64);
    const char *p = tu_write_tmp("deep64.yml", s);
    free(s);
    cs_network_config c;
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_network_config_load(p, &c, &err), CS_EINVAL);
    if (strstr(err.msg, "levels")) fail_msg("64 levels refused: %s", err.msg);
    tu_assert_has(err.msg, "npus_count: expected"); /* the depth check passed */
}

/* Block style: the line of the 65th level is named. */
static void test_yaml_depth_block_line(void **state) {
    (void)state;
    size_t cap = 65 * 80 + 16, o = 0;
    char *s = malloc(cap);
    for (int d = 0; d < 65; d++) o += (size_t)snprintf(s + o, cap - o, "%*sk%d:\n", d, "", d);
    o += (size_t)snprintf(s + o, cap - o, "%*sx\n", 65, "");
    expect_depth_refused("deep_block.yml", s, 65);
    free(s);
}

/* The 200 KB file of the issue (libyaml spent 27 s on it): refused. */
static void test_yaml_deep_200k(void **state) {
    (void)state;
    char *s = nested_flow(100000);
    expect_depth_refused("deep200k.yml", s, 1);
    free(s);
}

/* ---- Chakra traces -------------------------------------------------------------- */

/* A valid record 0: GlobalMetadata{version: "1.0.0"} (8 bytes). */
#define MD "\x07\x0a\x05" "1.0.0"
#define MD_LEN 8

static size_t put_varint(unsigned char *p, uint64_t v) {
    size_t n = 0;
    do {
        p[n] = (unsigned char)(v & 0x7f);
        v >>= 7;
        if (v) p[n] |= 0x80;
        n++;
    } while (v);
    return n;
}

/* gzip writer over a growing memory buffer. */
typedef struct gz {
    z_stream zs;
    unsigned char *out;
    size_t len, cap;
} gz;

static void gz_begin(gz *g) {
    memset(g, 0, sizeof *g);
    assert_int_equal(deflateInit2(&g->zs, 9, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY), Z_OK);
}

static void gz_put(gz *g, const void *data, size_t n, int flush) {
    g->zs.next_in = (unsigned char *)(uintptr_t)data;
    g->zs.avail_in = (uInt)n;
    do {
        if (g->cap - g->len < 65536) {
            g->cap = g->cap * 2 + 65536;
            g->out = realloc(g->out, g->cap);
        }
        g->zs.next_out = g->out + g->len;
        g->zs.avail_out = (uInt)(g->cap - g->len);
        int ret = deflate(&g->zs, flush);
        assert_true(ret == Z_OK || ret == Z_STREAM_END || ret == Z_BUF_ERROR);
        g->len = g->cap - g->zs.avail_out;
    } while (g->zs.avail_in > 0 || (flush == Z_FINISH && g->zs.avail_out == 0));
}

static void gz_end(gz *g) {
    gz_put(g, "", 0, Z_FINISH);
    deflateEnd(&g->zs);
}

static const char *write_bytes(const char *name, const void *data, size_t len) {
    const char *path = tu_path(tu_tmp_dir(), name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
    return path;
}

/* Reads every node; returns the first failure code (0 = all read). */
static int read_all(const char *path, cs_error *err) {
    cs_et_reader *r = NULL;
    int rc = cs_et_reader_open(path, &r, err);
    if (rc) return rc;
    ChakraProtoMsg__Node *n;
    while ((rc = cs_et_reader_next(r, &n, err)) == 1) cs_et_node_free(n);
    cs_et_reader_close(r);
    return rc;
}

/* A record of 16 MiB + 1: refused at its length, before it is read. */
static void test_et_record_limit(void **state) {
    (void)state;
    unsigned char b[32];
    memcpy(b, MD, MD_LEN);
    size_t n = MD_LEN + put_varint(b + MD_LEN, (uint64_t)CS_ET_MAX_RECORD + 1);
    b[n++] = 0x08;
    const char *path = write_bytes("big_record.et", b, n);
    char p[4096];
    snprintf(p, sizeof p, "%s", path);
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(read_all(p, &err), CS_EFORMAT);
    char head[4200];
    snprintf(head, sizeof head, "%s: record 1 (Node) at byte 8: length 16777217 is above the limit of 16777216 "
                                "bytes per record, expected",
             p);
    tu_assert_has(err.msg, head);
}

/* A Node whose name is 4 MiB of one letter: ~1000 x compressible.  Plain,
 * it reads; gzip, it is refused once the output passes 100 x + 1 MiB. */
static void test_et_gzip_ratio(void **state) {
    (void)state;
    size_t name_len = (size_t)4 << 20;
    size_t cap = name_len + 64;
    unsigned char *t = malloc(cap);
    memcpy(t, MD, MD_LEN);
    size_t o = MD_LEN;
    unsigned char hdr[16];
    size_t hl = put_varint(hdr, name_len);
    o += put_varint(t + o, 2 + 1 + hl + name_len);
    t[o++] = 0x08; /* id = 1 */
    t[o++] = 0x01;
    t[o++] = 0x12; /* name */
    memcpy(t + o, hdr, hl);
    o += hl;
    memset(t + o, 'a', name_len);
    o += name_len;

    const char *plain = write_bytes("ratio.et", t, o);
    char pp[4096];
    snprintf(pp, sizeof pp, "%s", plain);
    cs_error err;
    cs_error_clear(&err);
    int rc = read_all(pp, &err);
    if (rc != 0) fail_msg("plain trace refused: %s", err.msg);

    gz g;
    gz_begin(&g);
    gz_put(&g, t, o, Z_NO_FLUSH);
    gz_end(&g);
    free(t);
    assert_true(g.len < o / 200);
    const char *zp = write_bytes("ratio.et.gz", g.out, g.len);
    free(g.out);
    char zpath[4096];
    snprintf(zpath, sizeof zpath, "%s", zp);
    cs_error_clear(&err);
    assert_int_equal(read_all(zpath, &err), CS_EFORMAT);
    char head[4200];
    snprintf(head, sizeof head, "%s: gzip stream expands too much: ", zpath);
    tu_assert_has(err.msg, head);
    tu_assert_has(err.msg, "expected at most 100 bytes per compressed byte + 1 MiB");
}

/* The bomb: 256 KB of gzip holding 64 records of 4 MiB, each a
 * Node of two million empty attributes (2 bytes each, ~13 x that in
 * memory once unpacked).  Refused within the first record, and the
 * reader's own buffers stay small. */
static void test_et_gzip_bomb(void **state) {
    (void)state;
    size_t rec = (size_t)4 << 20;
    unsigned char *payload = malloc(rec);
    for (size_t i = 0; i < rec; i += 2) {
        payload[i] = 0x52; /* attr (field 10), length-delimited */
        payload[i + 1] = 0x00;
    }
    gz g;
    gz_begin(&g);
    gz_put(&g, MD, MD_LEN, Z_NO_FLUSH);
    for (int k = 0; k < 64; k++) {
        unsigned char v[8];
        size_t vl = put_varint(v, rec);
        gz_put(&g, v, vl, Z_NO_FLUSH);
        gz_put(&g, payload, rec, Z_NO_FLUSH);
    }
    gz_end(&g);
    free(payload);
    assert_true(g.len < (size_t)400 << 10);
    const char *zp = write_bytes("bomb.et.gz", g.out, g.len);
    free(g.out);
    char zpath[4096];
    snprintf(zpath, sizeof zpath, "%s", zp);
    size_t before = cs_alloc_bytes_in_use(), peak0 = cs_alloc_bytes_peak();
    cs_et_reader *r = NULL;
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_et_reader_open(zpath, &r, &err);
    if (rc) fail_msg("open: %s", err.msg);
    ChakraProtoMsg__Node *n = NULL;
    rc = cs_et_reader_next(r, &n, &err);
    assert_int_equal(rc, CS_EFORMAT);
    assert_null(n);
    /* sound whatever ran before: an earlier, higher peak hides nothing false */
    size_t bound = before + ((size_t)8 << 20);
    assert_true(cs_alloc_bytes_peak() <= (peak0 > bound ? peak0 : bound));
    cs_et_reader_close(r);
    tu_assert_has(err.msg, zpath);
    tu_assert_has(err.msg, "gzip stream expands too much");
}

/* A device as a trace: /dev/zero read as an endless run of empty Nodes
 * (inspect grew by 600 MB in 5 s, run by 3 GB); refused at open, directly
 * and through a rank file that links to it. */
static void test_trace_device_refused(void **state) {
    (void)state;
    if (access("/dev/zero", R_OK) != 0) skip();
    cs_et_reader *r = NULL;
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_et_reader_open("/dev/zero", &r, &err), CS_EIO);
    assert_null(r);
    tu_assert_has(err.msg, "/dev/zero: cannot read trace file: expected a regular file or a pipe, got a "
                           "character device");

    char prefix[4096], link[4200];
    snprintf(prefix, sizeof prefix, "%s", tu_path(tu_tmp_dir(), "limits_devzero"));
    snprintf(link, sizeof link, "%s.0.et", prefix);
    unlink(link);
    assert_int_equal(symlink("/dev/zero", link), 0);
    cs_workload w;
    cs_graph_options go = {0, 0, NULL};
    cs_error_clear(&err);
    int rc = cs_workload_load(prefix, 1, &go, &w, &err);
    if (rc != CS_EIO) fail_msg("rc %d: %s", rc, err.msg);
    cs_workload_free(&w);
    tu_assert_has(err.msg, link);
    tu_assert_has(err.msg, "expected a Chakra trace file (a regular file or a pipe), found a character device");
    unlink(link);
}

int main(void) {
    cs_log_set_level(CS_LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_et_gzip_bomb), /* first: the peak is still low */
        cmocka_unit_test(test_dev_zero_refused),     cmocka_unit_test(test_fifo_refused),
        cmocka_unit_test(test_directory_refused),    cmocka_unit_test(test_size_limit),
        cmocka_unit_test(test_yaml_depth_limit),     cmocka_unit_test(test_yaml_depth_block_line),
        cmocka_unit_test(test_yaml_deep_200k),       cmocka_unit_test(test_et_record_limit),
        cmocka_unit_test(test_et_gzip_ratio),        cmocka_unit_test(test_trace_device_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
