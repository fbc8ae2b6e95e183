/*
 * test_gen_ingest.c -- the input pipeline in the generated graphs
 * (src/gen/ingest.c, docs/ingest.md).  Invariants, for every family:
 * with ingest on, a first-stage rank's graph is the graph without ingest
 * plus 3 CPU nodes per micro-batch (read, preprocess, copy), its GPU
 * nodes unchanged in name, order and duration; later stages get none; the
 * first forward node of micro-batch i waits for copy i; read i waits for
 * copy i - 1 and for the first forward node of batch i - P.  Durations
 * are the closed forms of the docs, worked by hand below.  The checks
 * refuse bad values by key.
 */
#include "testutil.h"

#include <string.h>

#include "compute/device.h"
#include "gen/gen.h"
#include "workload/et.h"

#define MAXN 4096
typedef struct node_rec {
    uint64_t id, dur;
    int cpu;
    char name[32];
    uint64_t deps[4];
    size_t ndeps;
} node_rec;
typedef struct graph_rec {
    node_rec n[MAXN];
    size_t len;
} graph_rec;

static int capture(void *ud, const ChakraProtoMsg__Node *n, cs_error *err) {
    (void)err;
    graph_rec *g = ud;
    if (g->len >= MAXN) return CS_EINVAL;
    node_rec *r = &g->n[g->len++];
    memset(r, 0, sizeof *r);
    r->id = n->id;
    r->dur = n->duration_micros;
    snprintf(r->name, sizeof r->name, "%s", n->name);
    for (size_t i = 0; i < n->n_attr; i++)
        if (strcmp(n->attr[i]->name, "is_cpu_op") == 0) r->cpu = n->attr[i]->bool_val;
    for (size_t i = 0; i < n->n_data_deps && i < 4; i++) r->deps[r->ndeps++] = n->data_deps[i];
    return CS_OK;
}

static int has_dep(const node_rec *r, uint64_t id) {
    for (size_t i = 0; i < r->ndeps; i++)
        if (r->deps[i] == id) return 1;
    return 0;
}
static const node_rec *by_id(const graph_rec *g, uint64_t id) {
    for (size_t i = 0; i < g->len; i++)
        if (g->n[i].id == id) return &g->n[i];
    return NULL;
}

static void gen(const cs_gen_model *m, const cs_gen_plan *p, uint32_t rank, graph_rec *g) {
    cs_error err;
    cs_error_clear(&err);
    g->len = 0;
    int rc = cs_gen_rank(m, p, cs_device_find("A100-80GB"), rank, capture, g, NULL, &err);
    if (rc) fail_msg("%s", err.msg);
}

/* The invariants above for rank `rank` (a first-stage rank if first). */
static void check_rank(const cs_gen_model *m, const cs_gen_plan *p, uint32_t rank, int first) {
    static graph_rec a, b;
    cs_gen_plan q = *p;
    q.ingest.bytes_per_sample = 0;
    gen(m, &q, rank, &a);
    gen(m, p, rank, &b);
    uint32_t M = cs_gen_micro_batches(p), P = p->ingest.prefetch;
    assert_int_equal(b.len, a.len + (first ? 3u * M : 0u));
    size_t j = 0, k = 0;
    uint64_t cons[64] = {0}, h2d_prev = 0;
    for (; k < b.len; k++) {
        const node_rec *x = &b.n[k];
        if (x->cpu) { /* only loaders have CPU nodes */
            assert_true(first);
            continue;
        }
        assert_true(j < a.len);
        assert_string_equal(x->name, a.n[j].name);
        assert_int_equal(x->dur, a.n[j].dur);
        j++;
    }
    assert_int_equal(j, a.len);
    if (!first) return;
    /* dependencies, batch by batch */
    uint32_t i = 0;
    for (k = 0; k < b.len; k++) {
        const node_rec *x = &b.n[k];
        if (strcmp(x->name, "ingest.read") != 0) continue;
        const node_rec *pre = &b.n[k + 1], *cp = &b.n[k + 2], *fw = &b.n[k + 3];
        assert_string_equal(pre->name, "ingest.preprocess");
        assert_string_equal(cp->name, "ingest.h2d");
        assert_false(fw->cpu);
        assert_true(has_dep(pre, x->id) && has_dep(cp, pre->id) && has_dep(fw, cp->id));
        if (h2d_prev) assert_true(has_dep(x, h2d_prev));
        if (i >= P) assert_true(has_dep(x, cons[(i - P) % 64]));
        assert_int_equal(x->ndeps, (size_t)(h2d_prev != 0) + (i >= P));
        assert_non_null(by_id(&b, fw->id));
        cons[i % 64] = fw->id;
        h2d_prev = cp->id;
        i++;
    }
    assert_int_equal(i, M);
}

static cs_gen_ingest ing(double bytes, uint32_t prefetch) {
    cs_gen_ingest g = {0};
    g.bytes_per_sample = bytes;
    g.read_bytes_per_s = 1e9;
    g.preprocess_samples_per_s = 1000;
    g.h2d_bytes_per_s = 1e9;
    g.prefetch = prefetch;
    g.hosts = 1;
    return g;
}

static void test_resnet_dlrm(void **state) {
    (void)state;
    const char *names[] = {"resnet50", "dlrm"};
    for (int f = 0; f < 2; f++) {
        const cs_gen_model *m = cs_gen_model_preset(names[f]);
        cs_gen_plan p;
        cs_gen_plan_defaults(&p);
        p.dp = 2;
        cs_gen_plan_batch(m, &p, 4, 32); /* M = 32 / (4 x 2) = 4 */
        for (uint32_t P = 1; P <= 3; P++) {
            p.ingest = ing(1000, P);
            check_rank(m, &p, 0, 1);
            check_rank(m, &p, 1, 1);
        }
    }
}

static void test_transformer_stages(void **state) {
    (void)state;
    const cs_gen_model *m0 = cs_gen_model_preset("gpt3-6.7b");
    cs_gen_model m = *m0;
    m.u.tf.layers = 4;
    const cs_gen_model *mm = &m;
    cs_gen_plan p;
    cs_gen_plan_defaults(&p);
    p.tp = 2;
    p.pp = 2;
    p.global_batch = 6; /* M = 6 */
    p.ingest = ing(8192, 2);
    /* ranks 0, 1: stage 0 (TP 2) load; 2, 3: stage 1 none */
    check_rank(mm, &p, 0, 1);
    check_rank(mm, &p, 1, 1);
    check_rank(mm, &p, 2, 0);
    check_rank(mm, &p, 3, 0);
    p.vstages = 2;
    p.global_batch = 4;
    check_rank(mm, &p, 0, 1);
    check_rank(mm, &p, 3, 0);
}

/* Durations by hand: micro-batch 4, 2 loaders (dp 2), 1 host:
 *   read  4 x 1000 B x 2 / 1e9 B/s   = 8 us
 *   prep  4 x 2 / 1000 samples/s    = 8000 us
 *   h2d   4 x 2500 B / 1e9 B/s      = 10 us
 * with 3 hosts: read 8/3 = 2.67 -> 3 us, prep 2666.67 -> 2667 us. */
static void test_times(void **state) {
    (void)state;
    cs_gen_plan p;
    cs_gen_plan_defaults(&p);
    p.dp = 2;
    p.micro_batch = 4;
    p.global_batch = 8;
    p.ingest = ing(1000, 2);
    p.ingest.h2d_bytes_per_sample = 2500;
    cs_gen_ingest_times t;
    cs_gen_ingest_times_of(&p, &t);
    assert_int_equal(t.read_us, 8);
    assert_int_equal(t.preprocess_us, 8000);
    assert_int_equal(t.h2d_us, 10);
    assert_int_equal(t.loaders, 2);
    p.ingest.hosts = 3;
    cs_gen_ingest_times_of(&p, &t);
    assert_int_equal(t.read_us, 3);
    assert_int_equal(t.preprocess_us, 2667);
    p.ingest.bytes_per_sample = 0;
    cs_gen_ingest_times_of(&p, &t);
    assert_int_equal(t.read_us + t.preprocess_us + t.h2d_us + t.loaders, 0);
}

static void test_checks(void **state) {
    (void)state;
    cs_gen_plan p;
    cs_gen_plan_defaults(&p);
    cs_error err;
    static const char *const keys[] = {"ingest.storage-read-gbps", "ingest.preprocess-samples-per-s",
                                       "ingest.h2d-gbps", "ingest.prefetch-depth", "cost.storage-npus-per-host"};
    for (int c = 0; c < 5; c++) {
        p.ingest = ing(1000, 2);
        if (c == 0) p.ingest.read_bytes_per_s = 0;
        if (c == 1) p.ingest.preprocess_samples_per_s = 0;
        if (c == 2) p.ingest.h2d_bytes_per_s = -1;
        if (c == 3) p.ingest.prefetch = 0;
        if (c == 4) p.ingest.hosts = 0;
        cs_error_clear(&err);
        assert_int_equal(cs_gen_ingest_check(&p, &err), CS_EINVAL);
        if (!strstr(err.msg, keys[c])) fail_msg("case %d: %s lacks %s", c, err.msg, keys[c]);
    }
    p.ingest = ing(0, 0); /* off: nothing else is looked at */
    p.ingest.read_bytes_per_s = 0;
    cs_error_clear(&err);
    assert_int_equal(cs_gen_ingest_check(&p, &err), CS_OK);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resnet_dlrm),
        cmocka_unit_test(test_transformer_stages),
        cmocka_unit_test(test_times),
        cmocka_unit_test(test_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
