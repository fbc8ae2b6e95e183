/*
 * testutil.c -- shared helpers for the cmocka tests (see testutil.h).
 */
#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *tu_shared_dir(void) {
    const char *d = getenv("CS_SHARED_DIR");
    struct stat st;
    if (!d || stat(d, &st) != 0 || !S_ISDIR(st.st_mode)) return NULL;
    return d;
}

void tu_require_shared(void) {
    if (!tu_shared_dir()) {
        fprintf(stderr, "SKIP: ../shared (reference data) is not present next to the "
                        "repository; this test runs in CI, where it is.\n");
        exit(77);
    }
}

const char *tu_source_dir(void) {
    const char *d = getenv("CS_SOURCE_DIR");
    return d ? d : ".";
}

const char *tu_tmp_dir(void) {
    const char *d = getenv("CS_TMP");
    if (!d) d = "/tmp/clustersim_test";
    if (mkdir(d, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "cannot create %s: %s\n", d, strerror(errno));
        exit(1);
    }
    return d;
}

const char *tu_path(const char *a, const char *b) {
    static char bufs[8][4096];
    static int next;
    char *buf = bufs[next++ & 7];
    snprintf(buf, sizeof bufs[0], "%s/%s", a, b);
    return buf;
}

#include "workload/et.h"

static int parse_list(const char *v, uint64_t *out, int max) {
    int n = 0;
    while (*v && n < max) {
        char *end;
        out[n++] = strtoull(v, &end, 10);
        if (*end == ',') end++;
        if (end == v) return -1;
        v = end;
    }
    return n;
}

static int kind_of(const char *k, int *type, int *cpu) {
    static const struct {
        const char *name;
        int type, cpu;
    } kinds[] = {{"COMP", 4, 0}, {"CPU", 4, 1},   {"SEND", 5, 0},  {"RECV", 6, 0},    {"COLL", 7, 0},
                 {"LOAD", 2, 0}, {"STORE", 3, 0}, {"META", 1, 0}, {"INVALID", 0, 0},
                 {"HOSTCOLL", 7, 1}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(k, kinds[i].name) == 0) {
            *type = kinds[i].type;
            *cpu = kinds[i].cpu;
            return 0;
        }
    if (k[0] == 'T') {
        *type = atoi(k + 1);
        *cpu = -1;
        return 0;
    }
    return -1;
}

int tu_write_trace(const char *path, const char *spec) {
    cs_error err;
    cs_error_clear(&err);
    cs_et_writer *w = NULL;
    /* "GLOBAL key=N ...;" first: integer attributes of the GlobalMetadata */
    ChakraProtoMsg__GlobalMetadata md = CHAKRA_PROTO_MSG__GLOBAL_METADATA__INIT;
    ChakraProtoMsg__AttributeProto mattr[8], *mptr[8];
    char mnames[8][64];
    int global = strncmp(spec, "GLOBAL ", 7) == 0;
    if (global) {
        md.version = (char *)"0.0.4";
        const char *p = spec + 7;
        while (*p && *p != ';' && md.n_attr < 8) {
            while (*p == ' ') p++;
            const char *eq = strchr(p, '=');
            if (!eq) break;
            size_t n = (size_t)(eq - p) < 63 ? (size_t)(eq - p) : 63;
            ChakraProtoMsg__AttributeProto *a = &mattr[md.n_attr];
            chakra_proto_msg__attribute_proto__init(a);
            memcpy(mnames[md.n_attr], p, n);
            mnames[md.n_attr][n] = '\0';
            a->name = mnames[md.n_attr];
            a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
            a->int64_val = strtoll(eq + 1, NULL, 10);
            mptr[md.n_attr] = a;
            md.n_attr++;
            p = eq + 1;
            while (*p && *p != ' ' && *p != ';') p++;
        }
        md.attr = mptr;
        spec = strchr(spec, ';') ? strchr(spec, ';') + 1 : "";
    }
    if (cs_et_writer_open(path, 0, global ? &md : NULL, &w, &err)) {
        fprintf(stderr, "tu_write_trace: %s\n", err.msg);
        return -1;
    }
    char *copy = strdup(spec);
    char *save1 = NULL;
    int rc = 0;
    for (char *nodes = strtok_r(copy, ";", &save1); nodes && !rc; nodes = strtok_r(NULL, ";", &save1)) {
        char *save2 = NULL;
        char *tok = strtok_r(nodes, " \t\n", &save2);
        if (!tok) continue;
        uint64_t id = strtoull(tok, NULL, 10);
        char *kind = strtok_r(NULL, " \t\n", &save2);
        int type = 0, cpu = 0;
        if (!kind || kind_of(kind, &type, &cpu)) {
            fprintf(stderr, "tu_write_trace: bad kind in \"%s\"\n", spec);
            rc = -1;
            break;
        }
        char name[64];
        snprintf(name, sizeof name, "%s_%llu", kind, (unsigned long long)id);
        const char *nm = name;
        char *kv;
        /* first pass for name= */
        cs_et_nb *b = NULL;
        char *rest[32];
        int nrest = 0;
        while ((kv = strtok_r(NULL, " \t\n", &save2)) && nrest < 32) {
            if (strncmp(kv, "name=", 5) == 0)
                nm = kv + 5;
            else
                rest[nrest++] = kv;
        }
        b = cs_et_nb_new(id, nm, type);
        if (cpu >= 0) cs_et_nb_attr_bool(b, "is_cpu_op", cpu);
        for (int i = 0; i < nrest && !rc; i++) {
            char *eq = strchr(rest[i], '=');
            if (!eq) {
                rc = -1;
                break;
            }
            *eq = '\0';
            const char *key = rest[i], *val = eq + 1;
            uint64_t list[64];
            if (strcmp(key, "dur") == 0)
                cs_et_nb_duration_us(b, strtoull(val, NULL, 10));
            else if (strcmp(key, "data") == 0 || strcmp(key, "ctrl") == 0) {
                int n = parse_list(val, list, 64);
                for (int k = 0; k < n; k++)
                    (key[0] == 'd' ? cs_et_nb_data_dep : cs_et_nb_ctrl_dep)(b, list[k]);
            } else if (strcmp(key, "size") == 0)
                cs_et_nb_attr_int64(b, "comm_size", (int64_t)strtoull(val, NULL, 10));
            else if (strcmp(key, "src") == 0)
                cs_et_nb_attr_int32(b, "comm_src", (int32_t)atoi(val));
            else if (strcmp(key, "dst") == 0)
                cs_et_nb_attr_int32(b, "comm_dst", (int32_t)atoi(val));
            else if (strcmp(key, "tag") == 0)
                cs_et_nb_attr_int32(b, "comm_tag", (int32_t)atoi(val));
            else if (strcmp(key, "ops") == 0)
                cs_et_nb_attr_int64(b, "num_ops", (int64_t)strtoull(val, NULL, 10));
            else if (strcmp(key, "tensor") == 0)
                cs_et_nb_attr_uint64(b, "tensor_size", strtoull(val, NULL, 10));
            else if (strcmp(key, "ctype") == 0)
                cs_et_nb_attr_int64(b, "comm_type", atoll(val));
            else if (strcmp(key, "pg") == 0)
                cs_et_nb_attr_string(b, "pg_name", val);
            else if (strcmp(key, "inv") == 0) {
                int n = parse_list(val, list, 64), bits[64];
                for (int k = 0; k < n; k++) bits[k] = (int)list[k];
                cs_et_nb_attr_bool_list(b, "involved_dim", bits, (size_t)n);
            } else {
                fprintf(stderr, "tu_write_trace: unknown key %s\n", key);
                rc = -1;
            }
        }
        if (!rc && cs_et_writer_write(w, cs_et_nb_node(b), &err)) {
            fprintf(stderr, "tu_write_trace: %s\n", err.msg);
            rc = -1;
        }
        cs_et_nb_free(b);
    }
    free(copy);
    if (cs_et_writer_close(w, &err) && !rc) {
        fprintf(stderr, "tu_write_trace: %s\n", err.msg);
        rc = -1;
    }
    return rc;
}

int tu_write_traces(const char *prefix, const char *const *specs, unsigned nranks) {
    char path[4096];
    for (unsigned r = 0; r < nranks; r++) {
        snprintf(path, sizeof path, "%s.%u.et", prefix, r);
        if (tu_write_trace(path, specs[r])) return -1;
    }
    return 0;
}

int tu_write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fputs(text, f);
    return fclose(f) == 0 ? 0 : -1;
}

#include "core/log.h"

const char *tu_write_tmp(const char *name, const char *text) {
    static char paths[8][4096];
    static int next;
    char *p = paths[next++ & 7];
    snprintf(p, sizeof paths[0], "%s", tu_path(tu_tmp_dir(), name));
    if (tu_write_file(p, text) != 0) fail_msg("cannot write %s", p);
    return p;
}

void tu_assert_has(const char *msg, const char *want) {
    if (!strstr(msg, want)) fail_msg("message \"%s\" lacks \"%s\"", msg, want);
}

void tu_assert_located(const char *msg, const char *path, int line, const char *key, const char *extra) {
    char want[4200];
    snprintf(want, sizeof want, "%s:%d: ", path, line);
    tu_assert_has(msg, want);
    if (key) tu_assert_has(msg, key);
    tu_assert_has(msg, "expected");
    if (extra) tu_assert_has(msg, extra);
}

static char g_warn_text[16384];
static int g_warn_count;

static void warn_sink(int level, const char *msg, void *ud) {
    (void)ud;
    if (level != CS_LOG_WARN) return;
    size_t used = strlen(g_warn_text);
    snprintf(g_warn_text + used, sizeof g_warn_text - used, "%s\n", msg);
    g_warn_count++;
}

void tu_capture_warnings(void) {
    cs_log_reset();
    g_warn_text[0] = '\0';
    g_warn_count = 0;
    cs_log_set_sink(warn_sink, NULL);
}

const char *tu_warnings(void) { return g_warn_text; }
int tu_warning_count(void) { return g_warn_count; }
void tu_capture_end(void) { cs_log_set_sink(NULL, NULL); }

#include "config/system_config.h"

void tu_set_algo(cs_coll_impl *a, const char *name) {
    if (cs_coll_impl_parse(name, a) != 0) cs_coll_impl_parse("ring", a);
}
