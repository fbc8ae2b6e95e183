/*
 * test_gen_transformer.c -- the transformer generator, the memory footprint
 * and the device library, against closed forms worked out by hand.
 *
 * FLOPs: for a GPT-shaped layer (ffn 4h, heads a, no GQA) the matmul FLOPs
 * of one token's forward pass are 2 * 12h^2 (QKV 3h^2, projection h^2, MLP
 * 8h^2) plus attention 2 * 2 * s * h (QK^T and AV over s keys); the logits
 * add 2hV.  Backward is twice forward, so one step over T tokens is
 *     F = 6 T (12 L h^2 + V h) + 12 T L s h = 6 P_matmul T + 12 T L s h,
 * the 6PT rule with its attention correction (P_matmul excludes biases,
 * norms and position embeddings, which do no matmul).  Full recomputation
 * repeats every layer's forward: + 2 T 12 L h^2 + 4 T L s h (8PT in the
 * limit); selective repeats only the attention core: + 4 T L s h.
 */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compute/device.h"
#include "workload/et.h"
#include "gen/family.h"
#include "gen/gen.h"
#include "workload/graph.h"

static cs_gen_model small_model(void) {
    cs_gen_model m;
    memset(&m, 0, sizeof m);
    snprintf(m.name, sizeof m.name, "small");
    m.family = cs_gen_family_find("transformer");
    m.u.tf.layers = 4;
    m.u.tf.hidden = 256;
    m.u.tf.heads = 8;
    m.u.tf.kv_heads = 8;
    m.u.tf.ffn_hidden = 1024;
    m.u.tf.vocab = 1000;
    m.u.tf.seq = 128;
    m.u.tf.bias = 1;
    m.u.tf.tied_embeddings = 1;
    return m;
}

/* The small model at kernel-sized shapes (h 2048, ffn 8192, s 2048, vocab
 * 8000), the GPT whose kernels the framework-kernel and Megatron-version
 * tests work out by hand. */
static cs_gen_model kernel_model(void) {
    cs_gen_model m = small_model();
    m.u.tf.hidden = 2048;
    m.u.tf.ffn_hidden = 8192;
    m.u.tf.seq = 2048;
    m.u.tf.vocab = 8000;
    return m;
}

static int null_sink(void *ud, const ChakraProtoMsg__Node *n, cs_error *err) {
    (void)ud; (void)n; (void)err;
    return CS_OK;
}

/* Sum of num_ops over every rank of the plan. */
static double total_flops(const cs_gen_model *m, const cs_gen_plan *p) {
    const cs_device *d = cs_device_find("A100-80GB");
    double sum = 0;
    for (uint32_t r = 0; r < cs_gen_ranks(p); r++) {
        cs_gen_stats st;
        cs_error err;
        cs_error_clear(&err);
        assert_int_equal(cs_gen_rank(m, p, d, r, null_sink, NULL, &st, &err), CS_OK);
        sum += st.matmul_flops;
    }
    return sum;
}

static void test_flops_closed_form(void **state) {
    (void)state;
    cs_gen_model m = small_model();
    cs_gen_plan p;
    cs_gen_plan_defaults(&p);
    p.tp = 2;
    p.pp = 2;
    p.dp = 2;
    p.micro_batch = 2;
    p.global_batch = 8;
    double L = 4, h = 256, V = 1000, s = 128, T = 8 * 128;
    double pmat = 12 * L * h * h + V * h;
    double want = 6 * pmat * T + 12 * T * L * s * h;
    assert_true(fabs(cs_gen_model_flops(&m, &p) - want) < 0.5);
    for (int sp = 0; sp < 2; sp++) {
        p.sp = sp;
        p.recompute = CS_RECOMP_NONE;
        double got = total_flops(&m, &p);
        printf("no recompute: got %.0f want %.0f\n", got, want);
        assert_true(fabs(got - want) < 0.5);
        p.recompute = CS_RECOMP_FULL;
        got = total_flops(&m, &p);
        assert_true(fabs(got - (want + 2 * T * 12 * L * h * h + 4 * T * L * s * h)) < 0.5);
        p.recompute = CS_RECOMP_SELECTIVE;
        got = total_flops(&m, &p);
        assert_true(fabs(got - (want + 4 * T * L * s * h)) < 0.5);
    }
    /* GPipe schedules the same work */
    p.schedule = CS_SCHED_GPIPE;
    p.recompute = CS_RECOMP_NONE;
    assert_true(fabs(total_flops(&m, &p) - want) < 0.5);
}

/* Flash attention: the same forward FLOPs; its backward recomputes QK^T,
 * 5 attention matmuls instead of 4 (2.5x the forward's 2), so a step adds
 * half the forward attention, 2 T L s h.  Selective recomputation has
 * nothing left to repeat (the flash backward does it); full recomputation
 * repeats the forward as before.  Memory: no s x s scores, so no
 * recomputation stores what selective stores: s b h (10 + 24/t) per layer
 * (t 2, s 128, b 1, h 256: 32,768 x 22 = 720,896 bytes). */
static void test_flash(void **state) {
    (void)state;
    cs_gen_model m = small_model();
    cs_gen_plan p;
    cs_gen_plan_defaults(&p);
    p.tp = 2;
    p.pp = 2;
    p.dp = 2;
    p.micro_batch = 2;
    p.global_batch = 8;
    p.flash = 1;
    double L = 4, h = 256, V = 1000, s = 128, T = 8 * 128;
    double want = 6 * (12 * L * h * h + V * h) * T + 12 * T * L * s * h;
    for (uint32_t cp = 1; cp <= 2; cp++) {
        /* the causal share (test_flash_causal): s = 128 is one tile, computed whole; with cp 2 the rank's
         * two chunks of 32 tokens (chunks r and 3 - r) see 3 whole chunks between them, and their two
         * diagonals, each one tile computed whole: 5 x 32^2 of the 2 x 32 x 128 block, 5/8 */
        double sh = cp == 1 ? 1 : 5.0 / 8;
        double base = want - 12 * T * L * s * h;
        p.cp = cp;
        p.recompute = CS_RECOMP_NONE;
        assert_true(fabs(total_flops(&m, &p) - (base + 14 * T * L * s * h * sh)) < 0.5);
        p.recompute = CS_RECOMP_SELECTIVE;
        assert_true(fabs(total_flops(&m, &p) - (base + 14 * T * L * s * h * sh)) < 0.5);
        p.recompute = CS_RECOMP_FULL;
        assert_true(fabs(total_flops(&m, &p) - (base + 2 * T * 12 * L * h * h + 18 * T * L * s * h * sh)) < 0.5);
    }
    p.cp = 1;
    p.pp = 1;
    p.micro_batch = 1;
    p.global_batch = 2;
    p.recompute = CS_RECOMP_NONE;
    cs_gen_memory a, b;
    cs_gen_memory_stage(&m, &p, 0, &a);
    p.flash = 0;
    p.recompute = CS_RECOMP_SELECTIVE;
    cs_gen_memory_stage(&m, &p, 0, &b);
    assert_true(a.activations == b.activations);
    assert_true(a.activations == 4 * 720896.0 + 4.0 * 128 * (256 + 1000) / 2);
}

/* Flash attention skips the tiles of scores wholly above the causal
 * diagonal.  A run of n queries against the keys up to each, cut into tiles
 * of a_i rows from its start, computes sum_i a_i (a_1 + .. + a_i) = (n^2 +
 * sum a_i^2) / 2 scores.  Worked by hand:
 *   - no CP, s = 1,024: 8 tiles of 128, (1024^2 + 8 x 128^2) / 2 of 1024^2 =
 *     9/16; s = 1,088: 8 tiles of 128 and one of 64, 1/2 + (8 x 16,384 +
 *     4,096) / (2 x 1,088^2); s <= 128: one tile, all of it;
 *   - CP, the 2 cp chunks of c = s / (2 cp) dealt out load-balanced (rank
 *     r: chunks r and 2 cp - 1 - r), each tiled from its start: chunk k sees
 *     k whole chunks and its diagonal, so a rank computes (2 cp - 1) c^2 +
 *     c^2 + sum a_i^2 of its 2 c x s block: 1/2 + sum a_i^2 / (4 cp c^2) --
 *     9/16 again at s = 1,024 with cp 2 and 4 (c = 256, 128); cp 4 at s =
 *     1,536 (c = 192: a tile of 128 and one of 64) 1/2 + 20,480 / (16 x
 *     192^2); cp 8 at s = 1,024 (c = 64, smaller than a tile) 1/2 + 1/32;
 *   - ring attention: the same sum over its steps (below, step by step).
 * A step's matmul FLOPs are then 6 P T + 14 T L s h x share (forward 4,
 * backward 10 with QK^T recomputed); the unfused kernels compute every
 * score, 6 P T + 12 T L s h + 4 T L s h with selective recomputation.  The
 * model FLOPs (cs_gen_model_flops) count every score. */
typedef struct ring_rec {
    double step[16]; /* num_ops of the nodes named *.cp<i> (forward and backward) */
} ring_rec;

static int ring_sink(void *ud, const ChakraProtoMsg__Node *n, cs_error *err) {
    (void)err;
    ring_rec *r = ud;
    const char *c = n->name ? strrchr(n->name, '.') : NULL;
    if (!c || strncmp(c, ".cp", 3) != 0 || c[3] < '0' || c[3] > '9') return CS_OK;
    unsigned i = (unsigned)atoi(c + 3);
    for (size_t a = 0; a < n->n_attr && i < 16; a++)
        if (strcmp(n->attr[a]->name, "num_ops") == 0) r->step[i] += (double)n->attr[a]->uint64_val;
    return CS_OK;
}

static void test_flash_causal(void **state) {
    (void)state;
    cs_gen_model m = small_model();
    cs_gen_plan p;
    cs_gen_plan_defaults(&p);
    p.tp = 2;
    p.dp = 2;
    p.micro_batch = 1;
    p.global_batch = 4;
    p.recompute = CS_RECOMP_SELECTIVE;
    double L = 4, h = 256, V = 1000;
    static const struct {
        uint32_t s, cp;
        int comm;
        double share;
    } cases[] = {
        {1024, 1, CS_CP_ALLGATHER, 9.0 / 16},
        {1024, 2, CS_CP_ALLGATHER, 9.0 / 16},
        {1024, 2, CS_CP_P2P, 9.0 / 16},
        {1024, 4, CS_CP_ALLGATHER, 9.0 / 16},
        {1024, 4, CS_CP_P2P, 9.0 / 16},
        {1088, 1, CS_CP_ALLGATHER, 0.5 + (8 * 16384.0 + 4096) / (2 * 1088.0 * 1088)},
        {1536, 4, CS_CP_ALLGATHER, 0.5 + 20480.0 / (16 * 192.0 * 192)},
        {1536, 4, CS_CP_P2P, 0.5 + 20480.0 / (16 * 192.0 * 192)},
        {1024, 8, CS_CP_ALLGATHER, 0.5 + 1.0 / 32},
        {1024, 8, CS_CP_P2P, 0.5 + 1.0 / 32},
        {128, 1, CS_CP_ALLGATHER, 1},
        {64, 1, CS_CP_ALLGATHER, 1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        double s = cases[k].s, T = 4 * s;
        double base = 6 * (12 * L * h * h + V * h) * T;
        m.u.tf.seq = cases[k].s;
        p.cp = cases[k].cp;
        p.cp_comm = cases[k].comm;
        p.flash = 0;
        if (p.cp == 1) assert_true(fabs(total_flops(&m, &p) - (base + 16 * T * L * s * h)) < 0.5); /* unfused */
        p.flash = 1;
        double got = total_flops(&m, &p), want = base + 14 * T * L * s * h * cases[k].share;
        printf("flash, s %u, cp %u, %s: got %.0f want %.0f\n", cases[k].s, cases[k].cp,
               cases[k].comm ? "ring" : "all-gather", got, want);
        assert_true(fabs(got - want) < 0.5);
        assert_true(fabs(cs_gen_model_flops(&m, &p) - (base + 12 * T * L * s * h)) < 0.5);
    }
    /* ring attention step by step (tp 1, dp 1: the ranks are the CP group; s
     * = 1,536, cp 4, c = 192): the rank's own block (step 0) computes its two
     * diagonal chunks and one whole one, 2 c^2 + (128^2 + 64^2) of 4 c^2; each
     * other block exactly half, 2 c^2 -- on every rank */
    m.u.tf.seq = 1536;
    p.tp = 1;
    p.dp = 1;
    p.cp = 4;
    p.cp_comm = CS_CP_P2P;
    p.global_batch = 1;
    const cs_device *d = cs_device_find("A100-80GB");
    for (uint32_t r = 0; r < 4; r++) {
        ring_rec rec;
        memset(&rec, 0, sizeof rec);
        cs_gen_stats st;
        cs_error err;
        cs_error_clear(&err);
        assert_int_equal(cs_gen_rank(&m, &p, d, r, ring_sink, &rec, &st, &err), CS_OK);
        assert_true(rec.step[0] > 0 && rec.step[4] == 0);
        for (int i = 1; i < 4; i++) {
            assert_true(rec.step[i] == rec.step[1]);
            /* step 0 / step i = (2 c^2 + 20,480) / 2 c^2 = 94,208 / 73,728 = 23 / 18 (exact in doubles) */
            assert_true(rec.step[0] * 18 == rec.step[i] * 23);
        }
    }
}

static void test_tp_bytes(void **state) {
    (void)state;
    cs_gen_model m = small_model();
    cs_gen_plan p;
    cs_gen_plan_defaults(&p);
    p.tp = 4;
    p.micro_batch = 2;
    p.global_batch = 6; /* 3 micro-batches */
    const cs_device *d = cs_device_find("A100-80GB");
    cs_error err;
    cs_error_clear(&err);
    cs_gen_stats st;
    double sbh2 = 128.0 * 2 * 256 * 2; /* b s h x 2 bytes = 131072 */
    /* no SP: per micro-batch 1 embedding AR + 2 per layer forward + 2 per layer
     * backward + 1 logits-backward AR, each b*s*h*2 bytes */
    assert_int_equal(cs_gen_rank(&m, &p, d, 1, null_sink, NULL, &st, &err), CS_OK);
    assert_int_equal(st.tp_colls, 3 * (1 + 4 * 4 + 1));
    assert_true(st.tp_bytes == 3 * (1 + 4 * 4 + 1) * sbh2);
    /* full recompute repeats the 2 forward all-reduces per layer */
    p.recompute = CS_RECOMP_FULL;
    assert_int_equal(cs_gen_rank(&m, &p, d, 1, null_sink, NULL, &st, &err), CS_OK);
    assert_int_equal(st.tp_colls, 3 * (1 + 6 * 4 + 1));
    /* SP: per layer and pass 2 all-gathers (comm_size = the rank's shard,
     * sbh2/t) and 2 reduce-scatters (sbh2); embedding RS, logits AG, logits-bwd RS */
    p.recompute = CS_RECOMP_NONE;
    p.sp = 1;
    assert_int_equal(cs_gen_rank(&m, &p, d, 1, null_sink, NULL, &st, &err), CS_OK);
    assert_int_equal(st.tp_colls, 3 * (3 + 8 * 4));
    /* all-gathers: 4 per layer + logits = 17 shards; reduce-scatters: 4 per layer + 2 = 18 */
    assert_true(st.tp_bytes == 3 * (17 * sbh2 / 4 + 18 * sbh2));
    /* pipeline: stage boundaries carry b*s*h*2 (SP: /t) per micro-batch each way */
    p.sp = 0;
    p.pp = 2;
    p.tp = 2;
    assert_int_equal(cs_gen_rank(&m, &p, d, 0, null_sink, NULL, &st, &err), CS_OK);
    assert_int_equal(st.sends, 3);
    assert_int_equal(st.recvs, 3);
    assert_true(st.p2p_bytes == 3 * sbh2);
    /* data parallel: the gradients of the rank cross the DP group once */
    p.pp = 1;
    p.dp = 2;
    p.global_batch = 12;
    assert_int_equal(cs_gen_rank(&m, &p, d, 0, null_sink, NULL, &st, &err), CS_OK);
    double params = (4 * cs_gen_tx_layer_params(&m) + 1000.0 * 256 + 128.0 * 256 + 2 * 256) / 2;
    assert_true(fabs(st.dp_bytes - 2 * params) <= st.dp_colls);
}

static void test_memory_175b(void **state) {
    (void)state;
    const cs_gen_model *m = cs_gen_model_preset("gpt3-175b");
    assert_non_null(m);
    cs_gen_plan p;
    cs_gen_plan_defaults(&p);
    p.tp = 8;
    p.pp = 8;
    p.sp = 1;
    p.recompute = CS_RECOMP_SELECTIVE;
    p.global_batch = 64;
    cs_gen_memory mm;
    cs_gen_memory_stage(m, &p, 0, &mm);
    /* by hand: layer 12h^2+13h = 1,812,099,072; 12 layers + V h + s h, / 8 */
    assert_true(mm.params == 2799937536.0);
    assert_true(mm.weights == 5599875072.0);
    assert_true(mm.grads == 5599875072.0);
    assert_true(mm.optimizer == 33599250432.0);
    /* 8 in flight x 12 layers x 34 s b h / t = 106,954,752 bytes per layer */
    assert_int_equal(mm.inflight, 8);
    assert_true(mm.activations == 10267656192.0);
    assert_true(mm.total == 55066656768.0);
    /* last stage: 1 in flight, head (2h norm + Megatron's copy of V h) and Korthikanti's output term */
    cs_gen_memory_stage(m, &p, 7, &mm);
    assert_int_equal(mm.inflight, 1);
    double pl = (12 * 1812099072.0 + 2 * 12288 + 51200.0 * 12288) / 8;
    assert_true(mm.params == pl);
    assert_true(fabs(mm.activations - (12 * 106954752.0 + 4.0 * 2048 * (12288 + 51200) / 8)) < 1);
    /* no recompute, no SP: sbh(10 + 24/t + 5as/(ht)) per layer */
    p.sp = 0;
    p.recompute = CS_RECOMP_NONE;
    cs_gen_memory_stage(m, &p, 0, &mm);
    double sbh = 2048.0 * 12288;
    assert_true(fabs(mm.activations - 8 * 12 * sbh * (10 + 24.0 / 8 + 5.0 * 96 * 2048 / (12288.0 * 8))) < 1);
    /* full: 2sbh per layer + one layer's full activations while recomputing */
    p.recompute = CS_RECOMP_FULL;
    cs_gen_memory_stage(m, &p, 0, &mm);
    assert_true(fabs(mm.activations - (8 * 12 * 2 * sbh + sbh * (10 + 3 + 5.0 * 96 * 2048 / (12288.0 * 8)))) < 1);
    /* ZeRO-1/2/3 over DP 4 */
    p.dp = 4;
    p.global_batch = 256;
    p.zero = 3;
    cs_gen_memory_stage(m, &p, 0, &mm);
    assert_true(mm.optimizer == 33599250432.0 / 4 && mm.grads == 5599875072.0 / 4 && mm.weights == 5599875072.0 / 4);
}

static void test_refuse_oom(void **state) {
    (void)state;
    const cs_gen_model *m = cs_gen_model_preset("gpt3-175b");
    cs_gen_plan p;
    cs_gen_plan_defaults(&p);
    p.tp = 8;
    p.global_batch = 1;
    cs_error err;
    cs_error_clear(&err);
    cs_gen_memory w;
    assert_int_equal(cs_gen_memory_check(m, &p, cs_device_find("A100-80GB"), &w, &err), CS_EINVAL);
    tu_assert_has(err.msg, "does not fit");
    /* P = 96 x 1,812,099,072 + V h + s h + 2h = 174,615,846,912; / 8 = 21,826,980,864 per rank;
     * activations 96 x sbh(10 + 24/8 + 5as/(8h)) + 4sb(h + V)/8 = 55.63 GB */
    tu_assert_has(err.msg, "weights 43.65 GB + gradients 43.65 GB + optimizer 261.92 GB + activations 55.63 GB");
    tu_assert_has(err.msg, "A100-80GB HBM 80.00 GB");
    /* fits on 64 GPUs with SP + selective recomputation, as in Korthikanti
     * (without recomputation it does not: 55.6 GB of activations) */
    p.pp = 8;
    p.sp = 1;
    p.recompute = CS_RECOMP_SELECTIVE;
    p.global_batch = 64;
    cs_error_clear(&err);
    assert_int_equal(cs_gen_memory_check(m, &p, cs_device_find("A100-80GB"), &w, &err), CS_OK);
}

/* ---- ET round trip ------------------------------------------------------ */

typedef struct both_sink {
    cs_et_writer *w;
    char **json;
    size_t n, cap;
} both_sink;

static int both(void *ud, const ChakraProtoMsg__Node *node, cs_error *err) {
    both_sink *b = ud;
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 256;
        b->json = realloc(b->json, b->cap * sizeof *b->json);
    }
    json_t *j = cs_et_node_to_json(node);
    b->json[b->n++] = json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT);
    json_decref(j);
    return cs_et_writer_write(b->w, node, err);
}

static void test_et_roundtrip(void **state) {
    (void)state;
    cs_gen_model m = small_model();
    cs_gen_plan p;
    cs_gen_plan_defaults(&p);
    p.tp = 2;
    p.pp = 2;
    p.dp = 2;
    p.sp = 1;
    p.recompute = CS_RECOMP_SELECTIVE;
    p.global_batch = 8;
    p.bucket_params = 100000;
    const char *path = tu_path(tu_tmp_dir(), "gen.et");
    cs_error err;
    cs_error_clear(&err);
    both_sink b;
    memset(&b, 0, sizeof b);
    assert_int_equal(cs_et_writer_open(path, 0, NULL, &b.w, &err), CS_OK);
    cs_gen_stats st;
    assert_int_equal(cs_gen_rank(&m, &p, cs_device_find("H100-SXM"), 6, both, &b, &st, &err), CS_OK);
    assert_int_equal(cs_et_writer_close(b.w, &err), CS_OK);
    assert_int_equal(st.nodes, b.n);
    assert_true(st.dp_colls >= 2);
    cs_et_reader *r;
    assert_int_equal(cs_et_reader_open(path, &r, &err), CS_OK);
    ChakraProtoMsg__Node *node;
    size_t i = 0;
    int rc;
    while ((rc = cs_et_reader_next(r, &node, &err)) == 1) {
        json_t *j = cs_et_node_to_json(node);
        char *s = json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT);
        assert_true(i < b.n);
        assert_string_equal(s, b.json[i]);
        free(s);
        json_decref(j);
        cs_et_node_free(node);
        i++;
    }
    assert_int_equal(rc, 0);
    assert_int_equal(i, b.n);
    cs_et_reader_close(r);
    for (i = 0; i < b.n; i++) free(b.json[i]);
    free(b.json);
    cs_graph *g;
    cs_graph_options go = {0, 0, NULL};
    assert_int_equal(cs_graph_load(path, &go, &g, &err), CS_OK);
    assert_int_equal(g->nnodes, st.nodes);
    cs_graph_free(g);
}

static void test_comm_groups(void **state) {
    (void)state;
    cs_gen_plan p;
    cs_gen_plan_defaults(&p);
    p.tp = 4;
    p.pp = 2;
    p.dp = 3;
    cs_comm_groups g;
    cs_gen_comm_groups(&p, &g);
    assert_int_equal(g.ngroups, 6 + 8);
    /* TP group of (pp 1, dp 2): ranks 20..23, contiguous */
    const cs_comm_group *t = cs_comm_groups_find(&g, "6");
    assert_non_null(t);
    assert_int_equal(t->nranks, 4);
    assert_int_equal(t->ranks[0], 20);
    assert_int_equal(t->ranks[3], 23);
    /* DP group of (pp 1, tp 3): 15, 19, 23 */
    const cs_comm_group *d = cs_comm_groups_find(&g, "14");
    assert_int_equal(d->nranks, 3);
    assert_int_equal(d->ranks[0], 15);
    assert_int_equal(d->ranks[2], 23);
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_comm_groups_validate(&g, 24, &err), CS_OK);
    cs_comm_groups_free(&g);
}

static void test_devices_and_models(void **state) {
    (void)state;
    const cs_device *a = cs_device_find("a100-80gb");
    assert_non_null(a);
    assert_true(a->peak_bf16_flops == 312e12 && a->hbm_bytes == 80e9 && a->hbm_bw == 2039e9);
    assert_true(cs_device_find("H100-SXM")->peak_fp8_flops == 1979e12);
    assert_true(cs_device_find("MI300X")->hbm_bytes == 192e9);
    assert_null(cs_device_find("nope"));
    cs_error err;
    cs_error_clear(&err);
    cs_device d;
    const char *f = tu_write_tmp("dev.json", "{\n  \"name\": \"X\",\n  \"peak_bf16_tflops\": 400,\n  \"hbm_gb\": 96\n}\n");
    assert_int_equal(cs_device_load_json(f, &d, &err), CS_EINVAL);
    tu_assert_has(err.msg, "dev.json:1: hbm_bw_gbps: expected a number > 0");
    f = tu_write_tmp("dev2.json", "{\n  \"peak_bf16_tflops\": 400,\n  \"hbm_gb\": 96,\n  \"hbm_bw_gbps\": \"fast\"\n}\n");
    cs_error_clear(&err);
    assert_int_equal(cs_device_load_json(f, &d, &err), CS_EINVAL);
    tu_assert_has(err.msg, "dev2.json:4: hbm_bw_gbps: expected a number > 0 and <= 1e+15 (in GB/s), got \"fast\"");
    f = tu_write_tmp("dev3.json", "{\"name\": \"Y\", \"peak_bf16_tflops\": 400, \"hbm_gb\": 96, \"hbm_bw_gbps\": 3000}");
    cs_error_clear(&err);
    assert_int_equal(cs_device_resolve(f, &d, &err), CS_OK);
    assert_string_equal(d.name, "Y");
    assert_true(d.hbm_bw == 3000e9 && d.gemm_eff_max == a->gemm_eff_max);
    /* every preset's file under models/ describes the same model */
    for (size_t i = 0; cs_gen_model_preset_at(i); i++) {
        const cs_gen_model *pm = cs_gen_model_preset_at(i);
        char rel[128];
        snprintf(rel, sizeof rel, "models/%s.json", pm->name);
        cs_gen_model fm;
        cs_error_clear(&err);
        assert_int_equal(cs_gen_model_load_json(tu_path(tu_source_dir(), rel), &fm, &err), CS_OK);
        assert_memory_equal(&fm, pm, sizeof fm);
    }
    /* GQA + SwiGLU parameter count: Llama 3 70B is 70.55B */
    double P = cs_gen_total_params(cs_gen_model_preset("llama3-70b"));
    assert_true(P > 70.5e9 && P < 70.6e9);
    f = tu_write_tmp("m.json", "{\n  \"layers\": 2,\n  \"hidden\": 100,\n  \"heads\": 3,\n  \"vocab\": 10,\n  \"seq\": 8\n}\n");
    cs_gen_model mm;
    cs_error_clear(&err);
    assert_int_equal(cs_gen_model_load_json(f, &mm, &err), CS_EINVAL);
    tu_assert_has(err.msg, "m.json:4: heads: expected a divisor of hidden (100), got 3");
}

/* ---- mixture of experts ----------------------------------------------------
 * Small MoE: L 4, h 256, 8 heads, f 512 per expert (GeLU: 2 matrices), E 4
 * experts, top-2, V 1000, s 128, no biases, tied embeddings.
 * Forward matmul FLOPs per token and layer:
 *   2 (3h^2 + h^2 + k 2hf + hE) + 4sh
 *   = 2 (196608 + 65536 + 524288 + 1024) + 131072 = 1,705,984
 * (attention, k experts, router); logits 2hV = 512,000.  One step over
 * T = 8 x 128 = 1024 tokens: 3 T (4 x 1705984 + 512000) = 22,535,995,392.
 * All-to-all convention: comm_size = the rank's whole send buffer, every
 * token it holds times top_k times h x 2 bytes: 128 x 2 x 256 x 2 = 131,072;
 * per layer and micro-batch dispatch + combine forward and backward = 4. */
static cs_gen_model moe_model(void) {
    cs_gen_model m = small_model();
    snprintf(m.name, sizeof m.name, "small-moe");
    m.u.tf.ffn_hidden = 512;
    m.u.tf.bias = 0;
    m.u.tf.experts = 4;
    m.u.tf.top_k = 2;
    return m;
}

typedef struct pg_sink {
    char a2a_pg[16], edp_pg[16];
} pg_sink;

static int pg_capture(void *ud, const ChakraProtoMsg__Node *n, cs_error *err) {
    (void)err;
    pg_sink *ps = ud;
    if (n->type != CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE) return CS_OK;
    const char *pg = NULL;
    int64_t type = -1;
    for (size_t i = 0; i < n->n_attr; i++) {
        if (strcmp(n->attr[i]->name, "pg_name") == 0) pg = n->attr[i]->string_val;
        if (strcmp(n->attr[i]->name, "comm_type") == 0) type = n->attr[i]->int64_val;
    }
    if (type == CS_COLL_ALL_TO_ALL && !ps->a2a_pg[0]) snprintf(ps->a2a_pg, sizeof ps->a2a_pg, "%s", pg);
    if (strcmp(n->name, "edp.grads") == 0 && !ps->edp_pg[0]) snprintf(ps->edp_pg, sizeof ps->edp_pg, "%s", pg);
    return CS_OK;
}

static void test_moe(void **state) {
    (void)state;
    cs_gen_model m = moe_model();
    cs_gen_plan p;
    cs_gen_plan_defaults(&p);
    p.tp = 2;
    p.dp = 4;
    p.ep = 2;
    p.global_batch = 8; /* 2 micro-batches per DP rank */
    assert_true(cs_gen_model_flops(&m, &p) == 22535995392.0);
    assert_true(total_flops(&m, &p) == 22535995392.0);
    const cs_device *d = cs_device_find("A100-80GB");
    cs_error err;
    cs_error_clear(&err);
    cs_gen_stats st;
    assert_int_equal(cs_gen_rank(&m, &p, d, 5, null_sink, NULL, &st, &err), CS_OK);
    assert_int_equal(st.ep_colls, 2 * 4 * 4);
    assert_true(st.ep_bytes == 2 * 4 * 4 * 131072.0);
    /* full recomputation repeats the forward dispatch and combine */
    p.recompute = CS_RECOMP_FULL;
    assert_int_equal(cs_gen_rank(&m, &p, d, 5, null_sink, NULL, &st, &err), CS_OK);
    assert_int_equal(st.ep_colls, 2 * 4 * 6);
    p.recompute = CS_RECOMP_NONE;
    /* memory, per rank (t 2, ep 2, dp 4 -> expert-DP 2):
     *   experts L E 2hf / (ep t) = 4 x 4 x 262144 / 4 = 1,048,576
     *   dense: layer 3h^2 + h^2 + hE (router) + 2h (RMSNorms) = 263,680, x 4
     *          + V h 256,000 + final norm 256 = 1,310,976, / t = 655,488
     *   ZeRO-1: optimizer 12 (655488 / dp + 1048576 / edp) = 8,257,920 */
    p.zero = 1;
    cs_gen_memory mm;
    cs_gen_memory_stage(&m, &p, 0, &mm);
    assert_true(mm.expert_params == 1048576.0);
    assert_true(mm.params == 655488.0 + 1048576.0);
    assert_true(mm.weights == 2 * 1704064.0 && mm.grads == 2 * 1704064.0);
    assert_true(mm.optimizer == 8257920.0);
    p.zero = 3;
    cs_gen_memory_stage(&m, &p, 0, &mm);
    assert_true(mm.weights == 2 * (655488.0 / 4 + 1048576.0 / 2));
    /* gradients: dense ones all-reduced on the DP group, experts' on the
     * expert-DP group; together the rank's parameters x 2 bytes */
    p.zero = 0;
    assert_int_equal(cs_gen_rank(&m, &p, d, 5, null_sink, NULL, &st, &err), CS_OK);
    assert_true(fabs(st.dp_bytes - 2 * 1704064.0) <= (double)st.dp_colls);
    /* groups: 4 TP + 2 DP + 4 EP + 4 expert-DP.  Rank 5 = (tp 1, dp 2): EP
     * group (tp 1, block 1) = id 1 + 4 + 2 + 1 x 2 + 1 = 10 = ranks {5, 7};
     * expert-DP group (tp 1, dp 2 % 2 = 0) = 11 + 1 x 2 + 0 = 13 = {1, 5} */
    cs_comm_groups g;
    cs_gen_comm_groups(&p, &g);
    assert_int_equal(g.ngroups, 14);
    const cs_comm_group *e = cs_comm_groups_find(&g, "10");
    assert_true(e && e->nranks == 2 && e->ranks[0] == 5 && e->ranks[1] == 7);
    e = cs_comm_groups_find(&g, "13");
    assert_true(e && e->nranks == 2 && e->ranks[0] == 1 && e->ranks[1] == 5);
    assert_int_equal(cs_comm_groups_validate(&g, 8, &err), CS_OK);
    cs_comm_groups_free(&g);
    pg_sink ps;
    memset(&ps, 0, sizeof ps);
    assert_int_equal(cs_gen_rank(&m, &p, d, 5, pg_capture, &ps, NULL, &err), CS_OK);
    assert_string_equal(ps.a2a_pg, "10");
    assert_string_equal(ps.edp_pg, "13");
    /* EP 1: every expert local, no all-to-all; same FLOPs */
    p.ep = 1;
    assert_int_equal(cs_gen_rank(&m, &p, d, 5, null_sink, NULL, &st, &err), CS_OK);
    assert_int_equal(st.ep_colls, 0);
    assert_true(total_flops(&m, &p) == 22535995392.0);
    /* bad EP */
    p.ep = 3;
    assert_int_equal(cs_gen_plan_check(&m, &p, &err), CS_EINVAL);
    tu_assert_has(err.msg, "--ep 3: expected a divisor of --dp (4) and of the expert count (4)");
    /* Mixtral 8x7B: 46.70B parameters (Jiang et al. 2024), 12.9B active */
    double P = cs_gen_total_params(cs_gen_model_preset("mixtral-8x7b"));
    assert_true(P > 46.6e9 && P < 46.8e9);
}

/* ---- ZeRO communication ------------------------------------------------------
 * Dense small model, TP 2, DP 2, 3 micro-batches.  P_r = the rank's parameters
 * = (4 x 789,760 + V h + s h + 2h) / 2 = (3,159,040 + 256,000 + 32,768 + 512)/2
 * = 1,724,160.  Reduce-scatter comm_size = the full buffer; all-gather
 * comm_size = the rank's shard (P_r / dp parameters x 2 bytes).
 *   ZeRO-1: RS of 2 P_r once (gradients accumulate locally), AG 2 P_r / 2.
 *   ZeRO-2: gradients are sharded, so every micro-batch reduce-scatters:
 *           RS 3 x 2 P_r; AG 2 P_r / 2 after the step.
 *   ZeRO-3: + every layer (and the embedding/head "extra" unit) gathered
 *           before its forward and again before its backward: AG
 *           3 x 2 x 2 P_r / 2 = 6 P_r; no gather after the step. */
static void test_zero_comm(void **state) {
    (void)state;
    cs_gen_model m = small_model();
    cs_gen_plan p;
    cs_gen_plan_defaults(&p);
    p.tp = 2;
    p.dp = 2;
    p.global_batch = 6;
    const cs_device *d = cs_device_find("A100-80GB");
    cs_error err;
    cs_error_clear(&err);
    cs_gen_stats st;
    double Pr = 1724160.0;
    cs_gen_memory mm;
    cs_gen_memory_stage(&m, &p, 0, &mm);
    assert_true(mm.params == Pr);
    p.zero = 1;
    assert_int_equal(cs_gen_rank(&m, &p, d, 3, null_sink, NULL, &st, &err), CS_OK);
    assert_true(st.dp_rs_bytes == 2 * Pr && st.dp_ag_bytes == Pr);
    p.zero = 2;
    assert_int_equal(cs_gen_rank(&m, &p, d, 3, null_sink, NULL, &st, &err), CS_OK);
    assert_true(st.dp_rs_bytes == 3 * 2 * Pr && st.dp_ag_bytes == Pr);
    p.zero = 3;
    assert_int_equal(cs_gen_rank(&m, &p, d, 3, null_sink, NULL, &st, &err), CS_OK);
    assert_true(st.dp_rs_bytes == 3 * 2 * Pr);
    assert_true(st.dp_ag_bytes == 6 * Pr);
    /* 3 micro-batches x 2 passes x (4 layers + the extra unit) gathers */
    uint64_t rs = st.dp_colls - 30;
    assert_true(rs >= 3);
    /* full recomputation reuses the backward's gather: same bytes */
    p.recompute = CS_RECOMP_FULL;
    assert_int_equal(cs_gen_rank(&m, &p, d, 3, null_sink, NULL, &st, &err), CS_OK);
    assert_true(st.dp_ag_bytes == 6 * Pr && st.dp_colls == 30 + rs);
    /* the same with pipeline stages: each stage gathers its own parameters */
    p.recompute = CS_RECOMP_NONE;
    p.pp = 2;
    p.global_batch = 6;
    for (uint32_t r = 0; r < 8; r += 7) {
        assert_int_equal(cs_gen_rank(&m, &p, d, r, null_sink, NULL, &st, &err), CS_OK);
        cs_gen_memory_stage(&m, &p, r / 4, &mm);
        assert_true(fabs(st.dp_ag_bytes - 3 * 2 * 2 * mm.params / 2) < 1);
    }
}

/* --no-overlap-grad-reduce (Megatron-LM 2021): the rank's gradients, 2 P_r
 * bytes, in one all-reduce after the last backward, on the chain, so the
 * optimizer's only dependency is that collective. */
typedef struct grad_sink {
    uint64_t grads_id, opt_dep;
    int ngrads;
} grad_sink;

static int grad_capture(void *ud, const ChakraProtoMsg__Node *n, cs_error *err) {
    (void)err;
    grad_sink *g = ud;
    if (strcmp(n->name, "dp.grads") == 0) {
        g->grads_id = n->id;
        g->ngrads++;
    }
    if (strcmp(n->name, "optimizer") == 0 && n->n_data_deps == 1) g->opt_dep = n->data_deps[0];
    return CS_OK;
}

static void test_grad_no_overlap(void **state) {
    (void)state;
    cs_gen_model m = small_model();
    cs_gen_plan p;
    cs_gen_plan_defaults(&p);
    p.tp = 2;
    p.dp = 2;
    p.global_batch = 6;
    p.bucket_params = 100000; /* many buckets when overlapped */
    const cs_device *d = cs_device_find("A100-80GB");
    cs_error err;
    cs_error_clear(&err);
    cs_gen_stats st;
    double Pr = 1724160.0;
    assert_int_equal(cs_gen_rank(&m, &p, d, 3, null_sink, NULL, &st, &err), CS_OK);
    assert_true(st.dp_colls >= 4); /* a bucket per layer at least */
    p.no_grad_overlap = 1;
    assert_int_equal(cs_gen_rank(&m, &p, d, 3, null_sink, NULL, &st, &err), CS_OK);
    assert_int_equal(st.dp_colls, 1);
    assert_true(st.dp_bytes == 2 * Pr);
    grad_sink g;
    memset(&g, 0, sizeof g);
    assert_int_equal(cs_gen_rank(&m, &p, d, 3, grad_capture, &g, NULL, &err), CS_OK);
    assert_int_equal(g.ngrads, 1);
    assert_true(g.grads_id != 0 && g.opt_dep == g.grads_id);
    p.zero = 1; /* reduce-scatter, then the shard's all-gather */
    assert_int_equal(cs_gen_rank(&m, &p, d, 3, null_sink, NULL, &st, &err), CS_OK);
    assert_int_equal(st.dp_colls, 2);
    assert_true(st.dp_rs_bytes == 2 * Pr && st.dp_ag_bytes == Pr);
}

/* ---- ResNet-50 (data parallel) ---------------------------------------------
 * Multiply-accumulates per 224x224 image (He et al. 2016, Table 1, v1.5
 * strides), stage by stage, output side^2 x cin x cout x k^2:
 *   conv1   112^2 x 3 x 64 x 49                                   =   118,013,952
 *   conv2_x block 1: a 56^2 64 64 + b 56^2 64 64 9 + c 56^2 64 256
 *           + ds 56^2 64 256 = 231,211,008; blocks 2-3: 2 x 218,365,952
 *                                                                 =   667,942,912
 *   conv3_x (stride on b and ds)                                  = 1,027,604,480
 *   conv4_x                                                       = 1,464,336,384
 *   conv5_x                                                       =   809,238,528
 *   fc      2048 x 1000                                           =     2,048,000
 *   total 4,089,184,256 MACs = 8.178 GFLOP forward (the "4.1 GFLOPs" usually
 *   quoted are these multiply-accumulates); a step is 3 x forward.
 * Parameters: convolutions + BatchNorm (2 per channel) + fc (2048 x 1000 +
 * 1000) = 25,557,032.  Gradient buckets of 12.5 M parameters (25 MB at 2
 * bytes), filled in backward order: fc (2,049,000) + conv5_3 and conv5_2
 * (2 x 4,462,592) + conv5_1.ds (2,101,248) = 13,075,432 >= 12.5 M closes the
 * first; the rest, 12,481,600, is the second: 2 all-reduces of 26,150,864 and
 * 24,963,200 bytes, 2 P in all.  Memory (b = 32 images per rank): weights
 * 2 P = 51,114,064, gradients 2 P, optimizer 12 P = 306,684,384; activations
 * b x 2 bytes x (3 x 224^2 + 2 x 11,113,984 conv output elements)
 * = 32 x 44,756,992 = 1,432,223,744 bytes. */
typedef struct coll_rec {
    int n;
    uint64_t size[8];
} coll_rec;

static int coll_sink(void *ud, const ChakraProtoMsg__Node *n, cs_error *err) {
    (void)err;
    coll_rec *r = ud;
    if (n->type != CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE) return CS_OK;
    for (size_t i = 0; i < n->n_attr; i++)
        if (strcmp(n->attr[i]->name, "comm_size") == 0 && r->n < 8) r->size[r->n++] = n->attr[i]->uint64_val;
    return CS_OK;
}

static void test_resnet50(void **state) {
    (void)state;
    const cs_gen_model *m = cs_gen_model_preset("resnet50");
    assert_non_null(m);
    assert_true(cs_gen_rn_forward_macs(m) == 4089184256.0);
    assert_true(cs_gen_total_params(m) == 25557032.0);
    assert_true(cs_gen_rn_activation_elems(m) == 3.0 * 224 * 224 + 2 * 11113984.0);
    cs_gen_plan p;
    cs_gen_plan_defaults(&p);
    p.dp = 8;
    p.global_batch = 256;
    p.micro_batch = 32;
    p.bucket_params = 12500000;
    assert_true(cs_gen_model_flops(m, &p) == 3.0 * 256 * 2 * 4089184256.0);
    const cs_device *d = cs_device_find("A100-80GB");
    cs_gen_stats st;
    cs_error err;
    cs_error_clear(&err);
    coll_rec rec;
    memset(&rec, 0, sizeof rec);
    assert_int_equal(cs_gen_rank(m, &p, d, 3, coll_sink, &rec, &st, &err), CS_OK);
    assert_true(st.matmul_flops == 3.0 * 32 * 2 * 4089184256.0);
    assert_int_equal(st.nodes, 2 * 54 + 2 + 1); /* 54 layers forward and backward, 2 buckets, optimizer */
    assert_int_equal(st.dp_colls, 2);
    assert_int_equal(st.tp_colls + st.sends + st.recvs, 0);
    assert_int_equal(rec.n, 2);
    assert_true(rec.size[0] == 26150864 && rec.size[1] == 24963200);
    assert_true(st.dp_bytes == 2 * 25557032.0);
    cs_gen_memory mm;
    cs_gen_memory_stage(m, &p, 0, &mm);
    assert_true(mm.weights == 51114064.0 && mm.grads == 51114064.0 && mm.optimizer == 306684384.0);
    assert_true(mm.activations == 1432223744.0);
    /* ZeRO-1: the buckets become reduce-scatters, then an all-gather of the 2 P / dp shard */
    p.zero = 1;
    assert_int_equal(cs_gen_rank(m, &p, d, 0, null_sink, NULL, &st, &err), CS_OK);
    assert_true(st.dp_rs_bytes == 2 * 25557032.0 && st.dp_ag_bytes == 2 * 25557032.0 / 8);
    cs_gen_memory_stage(m, &p, 0, &mm);
    assert_true(mm.optimizer == 306684384.0 / 8);
    /* gradient accumulation: 4 micro-batches of 8, buckets only in the last backward */
    p.zero = 0;
    p.micro_batch = 8;
    assert_int_equal(cs_gen_rank(m, &p, d, 0, null_sink, NULL, &st, &err), CS_OK);
    assert_true(st.matmul_flops == 3.0 * 32 * 2 * 4089184256.0);
    assert_int_equal(st.dp_colls, 2);
    /* data parallel only */
    p.tp = 2;
    assert_int_equal(cs_gen_plan_check(m, &p, &err), CS_EINVAL);
    tu_assert_has(err.msg, "data-parallel only");
}

/* ---- DLRM ---------------------------------------------------------------------
 * Preset: 8 tables of 1,000,000 x 64, one lookup each, 512 dense features,
 * bottom MLP 512 -> 512 -> 64, F = 9 feature vectors, 36 pairwise dots, top
 * MLP (64 + 36 = 100) -> 1024 -> 1024 -> 1.
 *   MLP parameters: 512*512+512 + 512*64+64 + 100*1024+1024 + 1024*1024+1024
 *     + 1024+1 = 262,656 + 32,832 + 103,424 + 1,049,600 + 1,025 = 1,449,537
 *   embeddings 8 x 10^6 x 64 = 512,000,000
 *   forward FLOPs per sample: 2 (262,144 + 32,768 + 102,400 + 1,048,576 + 1,024)
 *     + 2 F^2 d (interaction) = 2,893,824 + 10,368 = 2,904,192
 * dp 8, global batch 4096: b = 512 per rank, one table per rank.  All-to-all
 * per direction: B x 1 table x 64 x 4 bytes = 1,048,576; MLP gradients one
 * bucket, all-reduce of 2 x 1,449,537 = 2,899,074 bytes.  Memory: weights
 * 2 P + 4 x 10^6 x 64 = 258,899,074, gradients 2 P = 2,899,074, optimizer
 * 12 P = 17,394,444, activations 2 b (576 + 2049 MLP outputs + 9 x 64 + 36)
 * + 4 B d (pooled local embeddings) = 3,314,688 + 1,048,576 = 4,363,264. */
static void test_dlrm(void **state) {
    (void)state;
    const cs_gen_model *m = cs_gen_model_preset("dlrm");
    assert_non_null(m);
    assert_true(cs_gen_dlrm_mlp_params(m) == 1449537.0);
    assert_true(cs_gen_dlrm_emb_params(m) == 512000000.0);
    assert_true(cs_gen_total_params(m) == 513449537.0);
    assert_true(cs_gen_dlrm_forward_flops(m) == 2904192.0);
    cs_gen_plan p;
    cs_gen_plan_defaults(&p);
    p.dp = 8;
    p.global_batch = 4096;
    p.micro_batch = 512;
    p.bucket_params = 12500000;
    assert_true(cs_gen_model_flops(m, &p) == 3.0 * 4096 * 2904192.0);
    const cs_device *d = cs_device_find("A100-80GB");
    cs_gen_stats st;
    cs_error err;
    cs_error_clear(&err);
    coll_rec rec;
    memset(&rec, 0, sizeof rec);
    assert_int_equal(cs_gen_rank(m, &p, d, 5, coll_sink, &rec, &st, &err), CS_OK);
    assert_true(st.matmul_flops == 3.0 * 512 * 2904192.0);
    assert_int_equal(st.nodes, 8 + 8 + 1 + 1);
    assert_int_equal(st.ep_colls, 2);
    assert_true(st.ep_bytes == 2 * 1048576.0);
    assert_int_equal(st.dp_colls, 1);
    assert_true(st.dp_bytes == 2899074.0);
    assert_int_equal(rec.n, 3);
    assert_true(rec.size[0] == 1048576 && rec.size[1] == 1048576 && rec.size[2] == 2899074);
    cs_gen_memory mm;
    cs_gen_memory_stage(m, &p, 0, &mm);
    assert_true(mm.weights == 258899074.0 && mm.grads == 2899074.0 && mm.optimizer == 17394444.0);
    assert_true(mm.activations == 4363264.0);
    /* tables are split table-wise: dp must divide the table count */
    p.dp = 16;
    p.global_batch = 8192;
    assert_int_equal(cs_gen_plan_check(m, &p, &err), CS_EINVAL);
    tu_assert_has(err.msg, "--dp 16: expected a divisor of the table count (8)");
    /* a model file's bottom MLP must end at emb_dim */
    const char *f = tu_write_tmp("d.json", "{\n  \"arch\": \"dlrm\",\n  \"tables\": 2,\n  \"rows\": 10,\n"
                                           "  \"emb_dim\": 16,\n  \"dense_features\": 4,\n  \"bottom_mlp\": [8, 32],\n"
                                           "  \"top_mlp\": [1]\n}\n");
    cs_gen_model dm;
    cs_error_clear(&err);
    assert_int_equal(cs_gen_model_load_json(f, &dm, &err), CS_EINVAL);
    tu_assert_has(err.msg, "d.json:7: bottom_mlp: the last width must be emb_dim (16), got 32");
}

/* ---- placement of the parallel groups onto ranks ----------------------------
 * For every order of (tp 2, dp 3, pp 2), innermost first: the innermost
 * dimension's groups are contiguous rank ranges, the next one's members are
 * spaced by the innermost size, the outermost's by the product of the other
 * two; every rank is in exactly one TP and one DP group; the step's FLOPs do
 * not depend on the order, and every pipeline send has its receive. */
static void test_placement(void **state) {
    (void)state;
    static const char *orders[6] = {"tp,dp,pp", "tp,pp,dp", "dp,tp,pp", "dp,pp,tp", "pp,tp,dp", "pp,dp,tp"};
    cs_gen_model m = small_model();
    for (int k = 0; k < 6; k++) {
        cs_gen_plan p;
        cs_gen_plan_defaults(&p);
        p.tp = 2;
        p.dp = 3;
        p.pp = 2;
        p.global_batch = 12;
        cs_error err;
        cs_error_clear(&err);
        assert_int_equal(cs_gen_placement_parse(orders[k], &p, &err), CS_OK);
        uint32_t size[CS_GEN_NDIMS] = {2, 3, 2, 1}, stride[CS_GEN_NDIMS], x = 1; /* TP, DP, PP, CP */
        for (int i = 0; i < CS_GEN_NDIMS; i++) {
            stride[p.order[i]] = x;
            x *= size[p.order[i]];
        }
        assert_int_equal(stride[p.order[0]], 1);
        for (uint32_t r = 0; r < 12; r++) {
            uint32_t c[CS_GEN_NDIMS];
            cs_gen_rank_coords(&p, r, c);
            assert_int_equal(c[CS_DIM_CP], 0);
            assert_int_equal(cs_gen_rank_of(&p, c), r);
            assert_int_equal(c[CS_DIM_TP] * stride[CS_DIM_TP] + c[CS_DIM_DP] * stride[CS_DIM_DP] +
                                 c[CS_DIM_PP] * stride[CS_DIM_PP], r);
        }
        cs_comm_groups g;
        cs_gen_comm_groups(&p, &g);
        assert_int_equal(g.ngroups, 6 + 4); /* pp dp TP groups, pp tp DP groups */
        int seen_tp[12] = {0}, seen_dp[12] = {0};
        for (size_t i = 0; i < g.ngroups; i++) {
            int is_tp = i < 6;
            uint32_t dim = is_tp ? CS_DIM_TP : CS_DIM_DP;
            assert_int_equal(g.groups[i].nranks, size[dim]);
            for (uint32_t j = 0; j < g.groups[i].nranks; j++) {
                assert_int_equal(g.groups[i].ranks[j], g.groups[i].ranks[0] + j * stride[dim]);
                (is_tp ? seen_tp : seen_dp)[g.groups[i].ranks[j]]++;
            }
            if (dim == p.order[0]) assert_int_equal(g.groups[i].ranks[0] % size[dim], 0); /* a contiguous block */
        }
        for (int r = 0; r < 12; r++) assert_true(seen_tp[r] == 1 && seen_dp[r] == 1);
        cs_comm_groups_free(&g);
        const cs_device *d = cs_device_find("A100-80GB");
        double fl = 0, sends = 0, recvs = 0;
        for (uint32_t r = 0; r < 12; r++) {
            cs_gen_stats st;
            assert_int_equal(cs_gen_rank(&m, &p, d, r, null_sink, NULL, &st, &err), CS_OK);
            fl += st.matmul_flops;
            sends += (double)st.sends;
            recvs += (double)st.recvs;
        }
        assert_true(fl == total_flops(&m, &(cs_gen_plan){.tp = 2, .dp = 3, .pp = 2, .global_batch = 12, .micro_batch = 1,
                                                          .ep = 1, .schedule = CS_SCHED_1F1B, .bucket_params = 40000000}));
        assert_true(sends == recvs && sends > 0);
    }
    cs_gen_plan p;
    cs_gen_plan_defaults(&p);
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_gen_placement_parse("tp,tp,pp", &p, &err), CS_EINVAL);
    tu_assert_has(err.msg, "--placement tp,tp,pp: expected tp, dp and pp (and cp) once each");
    char buf[256];
    p.tp = 8;
    p.dp = 4;
    cs_gen_placement_format(&p, buf, sizeof buf);
    tu_assert_has(buf, "rank = tp_i + 8 dp_i + 32 pp_i: TP innermost, then DP, then PP");
}

/* ---- context parallelism ------------------------------------------------------
 * Small model (L 4, h 256, a = g = 8 heads of d 32, s 128, V 1000).  With cp
 * CP ranks each holds s / cp tokens of every sequence; the linear layers work
 * on those, the attention core on the rank's s / cp queries against all s
 * keys, so the step's FLOPs summed over all ranks are the cp = 1 closed form
 * (test_flops_closed_form: 6 P_matmul T + 12 T L s h, T = 8 x 128).
 * K and V of a rank, TP 2, cp 2, micro-batch 2: 64 tokens x 2 sequences = 128
 * tokens x (g d / t = 128 channels) x 2 bytes = 32,768 bytes each, 65,536
 * for the pair.
 *   all-gather: per layer and micro-batch one ALL_GATHER of K/V before the
 *     forward attention, one before the backward's (a selective or full
 *     recomputation's forward gathers it instead), one REDUCE_SCATTER of dK/dV
 *     (comm_size = the whole tensor, cp x 65,536): 4 x 65,536 bytes;
 *   ring (p2p): forward cp - 1 K/V messages, backward cp - 1 K/V and cp
 *     dK/dV messages; a recomputed forward adds cp - 1.  cp 2: 4 messages of
 *     65,536 bytes (5 with recomputation); cp 4 (32 tokens x 2 = 64 tokens,
 *     32,768 bytes): 3 + 3 + 4 = 10 messages.
 * Gradients are reduced over DP x CP (dp cp ranks share the weights): the
 * rank's P_r = 1,724,160 parameters (test_zero_comm) x 2 bytes; ZeRO-1's
 * all-gather moves the shard 2 P_r / (dp cp).
 * Memory (tp 2, cp 2, dp 2, pp 1, ZeRO-1, no recomputation, 1 micro-batch):
 *   weights 2 P_r, gradients 2 P_r, optimizer 12 P_r / (dp cp) = 3 P_r;
 *   activations per layer s_r b h (10 + 24/t + 5 a s / (h t)) with s_r = 64
 *   local tokens and s = 128 keys: 16,384 x (10 + 12 + 10) = 524,288, half
 *   of cp = 1's; 4 layers + the output layer's 4 s_r b (h + V) / t = 160,768:
 *   2,257,920 bytes. */
typedef struct cp_sink {
    char ag_pg[16], grads_pg[16];
    int32_t ring_peer[2]; /* first ring message's destination, first receive's source */
    int nsend, nrecv;
    uint32_t rank;
} cp_sink;

static int cp_capture(void *ud, const ChakraProtoMsg__Node *n, cs_error *err) {
    (void)err;
    cp_sink *c = ud;
    const char *pg = NULL;
    int32_t src = -1, dst = -1, tag = 0;
    for (size_t i = 0; i < n->n_attr; i++) {
        if (strcmp(n->attr[i]->name, "pg_name") == 0) pg = n->attr[i]->string_val;
        if (strcmp(n->attr[i]->name, "comm_src") == 0) src = n->attr[i]->int32_val;
        if (strcmp(n->attr[i]->name, "comm_dst") == 0) dst = n->attr[i]->int32_val;
        if (strcmp(n->attr[i]->name, "comm_tag") == 0) tag = n->attr[i]->int32_val;
    }
    size_t len = strlen(n->name);
    if (pg && len > 5 && strcmp(n->name + len - 5, "cp_ag") == 0 && !c->ag_pg[0])
        snprintf(c->ag_pg, sizeof c->ag_pg, "%s", pg);
    if (pg && strcmp(n->name, "dp.grads") == 0 && !c->grads_pg[0]) snprintf(c->grads_pg, sizeof c->grads_pg, "%s", pg);
    if (tag >= (1 << 30) && n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE && c->nsend++ == 0)
        c->ring_peer[0] = dst;
    if (tag >= (1 << 30) && n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE && c->nrecv++ == 0)
        c->ring_peer[1] = src;
    return CS_OK;
}

static void test_context_parallel(void **state) {
    (void)state;
    cs_gen_model m = small_model();
    const cs_device *d = cs_device_find("A100-80GB");
    cs_error err;
    cs_error_clear(&err);
    cs_gen_plan p;
    cs_gen_plan_defaults(&p);
    p.tp = 2;
    p.cp = 2;
    p.pp = 2;
    p.dp = 2;
    p.micro_batch = 2;
    p.global_batch = 8;
    assert_int_equal(cs_gen_ranks(&p), 16);
    double L = 4, h = 256, V = 1000, s = 128, T = 8 * 128;
    double want = 6 * (12 * L * h * h + V * h) * T + 12 * T * L * s * h;
    assert_true(fabs(cs_gen_model_flops(&m, &p) - want) < 0.5);
    for (int comm = CS_CP_ALLGATHER; comm <= CS_CP_P2P; comm++)
        for (int sp = 0; sp < 2; sp++) {
            p.cp_comm = comm;
            p.sp = sp;
            p.recompute = CS_RECOMP_NONE;
            assert_true(fabs(total_flops(&m, &p) - want) < 0.5);
            p.recompute = CS_RECOMP_SELECTIVE;
            assert_true(fabs(total_flops(&m, &p) - (want + 4 * T * L * s * h)) < 0.5);
            p.recompute = CS_RECOMP_FULL;
            assert_true(fabs(total_flops(&m, &p) - (want + 2 * T * 12 * L * h * h + 4 * T * L * s * h)) < 0.5);
        }
    /* communication of one rank: tp 2, cp 2, 3 micro-batches of 2 */
    p.sp = 0;
    p.pp = 1;
    p.dp = 1;
    p.global_batch = 6;
    p.cp_comm = CS_CP_ALLGATHER;
    cs_gen_stats st;
    for (int rc = CS_RECOMP_NONE; rc <= CS_RECOMP_FULL; rc++) {
        p.recompute = rc;
        assert_int_equal(cs_gen_rank(&m, &p, d, 3, null_sink, NULL, &st, &err), CS_OK);
        assert_int_equal(st.cp_colls, 3 * 4 * 3);
        assert_true(st.cp_bytes == 3 * 4 * 4 * 65536.0);
        assert_int_equal(st.cp_sends, 0);
    }
    p.cp_comm = CS_CP_P2P;
    for (int rc = CS_RECOMP_NONE; rc <= CS_RECOMP_FULL; rc++) {
        p.recompute = rc;
        assert_int_equal(cs_gen_rank(&m, &p, d, 3, null_sink, NULL, &st, &err), CS_OK);
        uint64_t per = rc == CS_RECOMP_NONE ? 4 : 5;
        assert_int_equal(st.cp_colls, 0);
        assert_int_equal(st.cp_sends, 3 * 4 * per);
        assert_int_equal(st.cp_recvs, st.cp_sends);
        assert_true(st.cp_p2p_bytes == 3.0 * 4 * (double)per * 65536.0);
        assert_int_equal(st.sends, 0); /* no pipeline */
    }
    p.recompute = CS_RECOMP_NONE;
    p.cp = 4;
    assert_int_equal(cs_gen_rank(&m, &p, d, 5, null_sink, NULL, &st, &err), CS_OK);
    assert_int_equal(st.cp_sends, 3 * 4 * 10);
    assert_true(st.cp_p2p_bytes == 3 * 4 * 10 * 32768.0);
    /* rank 5 = (tp 1, cp 2): the ring goes to cp 3 = rank 7, comes from cp 1 = rank 3 */
    cp_sink cs;
    memset(&cs, 0, sizeof cs);
    assert_int_equal(cs_gen_rank(&m, &p, d, 5, cp_capture, &cs, NULL, &err), CS_OK);
    assert_int_equal(cs.ring_peer[0], 7);
    assert_int_equal(cs.ring_peer[1], 3);
    /* gradients over DP x CP */
    p.cp = 2;
    p.dp = 2;
    p.global_batch = 12;
    double Pr = 1724160.0;
    assert_int_equal(cs_gen_rank(&m, &p, d, 6, null_sink, NULL, &st, &err), CS_OK);
    assert_true(fabs(st.dp_bytes - 2 * Pr) <= (double)st.dp_colls);
    p.zero = 1;
    assert_int_equal(cs_gen_rank(&m, &p, d, 6, null_sink, NULL, &st, &err), CS_OK);
    assert_true(st.dp_rs_bytes == 2 * Pr && st.dp_ag_bytes == 2 * Pr / 4);
    /* rank 6 = (tp 0, cp 1, dp 1): TP group 1 + (0 x 2 + 1) x 2 + 1 = 4; DP x
     * CP group of tp 0 = 1 + 4 + 0 = 5 = {0, 2, 4, 6}; CP group (dp 1, tp 0)
     * = 1 + 4 + 2 + 1 x 2 + 0 = 9 = {4, 6} */
    p.cp_comm = CS_CP_ALLGATHER;
    memset(&cs, 0, sizeof cs);
    assert_int_equal(cs_gen_rank(&m, &p, d, 6, cp_capture, &cs, NULL, &err), CS_OK);
    assert_string_equal(cs.ag_pg, "9");
    assert_string_equal(cs.grads_pg, "5");
    cs_comm_groups g;
    cs_gen_comm_groups(&p, &g);
    assert_int_equal(g.ngroups, 4 + 2 + 4);
    const cs_comm_group *x = cs_comm_groups_find(&g, "5");
    assert_true(x && x->nranks == 4 && x->ranks[0] == 0 && x->ranks[1] == 2 && x->ranks[2] == 4 && x->ranks[3] == 6);
    x = cs_comm_groups_find(&g, "9");
    assert_true(x && x->nranks == 2 && x->ranks[0] == 4 && x->ranks[1] == 6);
    x = cs_comm_groups_find(&g, "4");
    assert_true(x && x->nranks == 2 && x->ranks[0] == 6 && x->ranks[1] == 7);
    assert_int_equal(cs_comm_groups_validate(&g, 8, &err), CS_OK);
    cs_comm_groups_free(&g);
    /* memory */
    p.micro_batch = 1;
    p.global_batch = 2;
    cs_gen_memory mm;
    cs_gen_memory_stage(&m, &p, 0, &mm);
    assert_true(mm.params == Pr);
    assert_true(mm.weights == 2 * Pr && mm.grads == 2 * Pr && mm.optimizer == 3 * Pr);
    assert_true(mm.activations == 2257920.0);
    p.cp = 1;
    cs_gen_memory_stage(&m, &p, 0, &mm);
    assert_true(mm.activations == 4 * 1048576.0 + 321536.0);
    /* refusals */
    p.cp = 3;
    cs_error_clear(&err);
    assert_int_equal(cs_gen_plan_check(&m, &p, &err), CS_EINVAL);
    tu_assert_has(err.msg, "--cp 3: the sequence (128) must be divisible by cp (3)");
    p.cp = 128;
    p.sp = 1;
    cs_error_clear(&err);
    assert_int_equal(cs_gen_plan_check(&m, &p, &err), CS_EINVAL);
    tu_assert_has(err.msg, "--cp 128: the sequence (128) must be divisible by cp x tp with --sp (256)");
    p.sp = 0; /* 128 tokens over 128 CP ranks: not 2 x 128 load-balanced chunks */
    cs_error_clear(&err);
    assert_int_equal(cs_gen_plan_check(&m, &p, &err), CS_EINVAL);
    tu_assert_has(err.msg, "--cp 128: the sequence (128) is cut into 2 x cp = 256 load-balanced chunks");
    p.sp = 1;
    cs_gen_model moe = moe_model();
    p.cp = 2;
    p.sp = 0;
    p.ep = 2;
    cs_error_clear(&err);
    assert_int_equal(cs_gen_plan_check(&moe, &p, &err), CS_EINVAL);
    tu_assert_has(err.msg, "--cp 2 with --ep 2");
    p.ep = 1;
    p.tp = 1;
    cs_error_clear(&err);
    assert_int_equal(cs_gen_plan_check(cs_gen_model_preset("resnet50"), &p, &err), CS_EINVAL);
    tu_assert_has(err.msg, "--cp 2: context parallelism splits a transformer's sequence");
}

/* Placement with four dimensions: every group is an arithmetic progression
 * with its dimension's stride (DP x CP: the rank's (tp_i, pp_i) fixed, all dp
 * cp pairs), every rank in one group of each kind; cp left out of
 * --placement sits just outside tp. */
static void test_cp_placement(void **state) {
    (void)state;
    static const char *orders[] = {"tp,cp,dp,pp", "cp,tp,pp,dp", "pp,dp,cp,tp", "dp,pp,tp", "pp,tp,dp"};
    for (size_t k = 0; k < sizeof orders / sizeof *orders; k++) {
        cs_gen_plan p;
        cs_gen_plan_defaults(&p);
        p.tp = 2;
        p.cp = 2;
        p.dp = 3;
        p.pp = 2;
        cs_error err;
        cs_error_clear(&err);
        assert_int_equal(cs_gen_placement_parse(orders[k], &p, &err), CS_OK);
        uint32_t size[CS_GEN_NDIMS] = {2, 3, 2, 2}, stride[CS_GEN_NDIMS], x = 1;
        for (int i = 0; i < CS_GEN_NDIMS; i++) {
            stride[p.order[i]] = x;
            x *= size[p.order[i]];
            if (k >= 3 && p.order[i] == CS_DIM_CP) assert_true(i > 0 && p.order[i - 1] == CS_DIM_TP);
        }
        cs_comm_groups g;
        cs_gen_comm_groups(&p, &g);
        assert_int_equal(g.ngroups, 12 + 4 + 12);
        int seen[3][24] = {{0}};
        for (size_t i = 0; i < g.ngroups; i++) {
            int kind = i < 12 ? 0 : i < 16 ? 1 : 2; /* TP, DP x CP, CP */
            const cs_comm_group *cg = &g.groups[i];
            uint32_t c0[CS_GEN_NDIMS];
            cs_gen_rank_coords(&p, cg->ranks[0], c0);
            for (uint32_t j = 0; j < cg->nranks; j++) {
                uint32_t c[CS_GEN_NDIMS];
                cs_gen_rank_coords(&p, cg->ranks[j], c);
                if (kind == 0) assert_int_equal(cg->ranks[j], cg->ranks[0] + j * stride[CS_DIM_TP]);
                if (kind == 2) assert_int_equal(cg->ranks[j], cg->ranks[0] + j * stride[CS_DIM_CP]);
                if (kind == 1) {
                    assert_true(c[CS_DIM_TP] == c0[CS_DIM_TP] && c[CS_DIM_PP] == c0[CS_DIM_PP]);
                    assert_true(c[CS_DIM_DP] == j / 2 && c[CS_DIM_CP] == j % 2);
                }
                seen[kind][cg->ranks[j]]++;
            }
            assert_int_equal(cg->nranks, kind == 0 ? 2 : kind == 1 ? 6 : 2);
        }
        for (int r = 0; r < 24; r++) assert_true(seen[0][r] == 1 && seen[1][r] == 1 && seen[2][r] == 1);
        assert_int_equal(cs_comm_groups_validate(&g, 24, &err), CS_OK);
        cs_comm_groups_free(&g);
    }
    cs_gen_plan p;
    cs_gen_plan_defaults(&p);
    p.tp = 8;
    p.cp = 2;
    p.dp = 4;
    char buf[256];
    cs_gen_placement_format(&p, buf, sizeof buf);
    tu_assert_has(buf, "rank = tp_i + 8 cp_i + 16 dp_i + 64 pp_i: TP innermost, then CP, then DP, then PP "
                       "(--placement tp,cp,dp,pp)");
}

/* ---- interleaved 1F1B ------------------------------------------------------------
 * Small model (4 layers), pp 2, v 2 chunks per stage (1 layer each: stage 0
 * holds layers 0 and 2, stage 1 layers 1 and 3), 4 micro-batches.  The FLOPs
 * are those of plain 1F1B; every micro-batch crosses pp v - 1 = 3 boundaries
 * forward and 3 backward: 24 sends and 24 receives of 2 s b h bytes.  Memory
 * (Korthikanti et al. 2022, Sec. 4.2.3): stage 0 runs 2 (pp - 1) + (v - 1) pp
 * = 4 warm-up units, so 5 chunk-micro-batches of 1 layer are in flight
 * against 2 micro-batches of 2 layers for plain 1F1B: a factor
 * 1 + (pp - 1)/(pp v) = 5/4. */
/* Serving steps (docs/inference.md) on the small GPT-shaped model, TP 2 x PP 2,
 * batch B = 3: matmul FLOPs over all ranks, forward only,
 *     prefill: B P L (24 h^2 + 4 P h) + B 2 h V   (every prompt token; logits of the last token)
 *     decode:  B L (24 h^2 + 4 c h) + B 2 h V     (one token against c keys)
 * (24 h^2 = 2 x (QKV 3h^2 + proj h^2 + MLP 8h^2)); per rank of stage 0: the embedding's and 2 per
 * layer TP all-reduces of 2 sb h bytes (sb = P B or B), one send of 2 sb h bytes; no optimizer.
 * KV cache per rank: 2 x 2 layers x (8 / 2) heads x 32 x kv_tokens x B x 2 bytes. */
/* got within half a unit of want; prints both values otherwise. */
static void near_eq(double got, double want, const char *what) {
    if (!(fabs(got - want) < 0.5)) fail_msg("%s: got %.17g, expected %.17g", what, got, want);
}
#define NEAR(got, want) near_eq((got), (want), #got)

static void test_serving_steps(void **state) {
    (void)state;
    cs_gen_model m = small_model();
    const cs_device *d = cs_device_find("A100-80GB");
    cs_gen_plan p;
    cs_gen_plan_defaults(&p);
    p.tp = 2;
    p.pp = 2;
    p.micro_batch = 3;
    p.global_batch = 3;
    p.context_tokens = 100;
    p.kv_tokens = 160;
    double h = 256, L = 4, V = 1000, B = 3, P = 100, c = 100;
    for (int ph = CS_PHASE_PREFILL; ph <= CS_PHASE_DECODE; ph++) {
        p.phase = ph;
        double tok = ph == CS_PHASE_PREFILL ? B * P : B;
        NEAR(total_flops(&m, &p), tok * L * (24 * h * h + 4 * c * h) + B * 2 * h * V);
        cs_gen_stats st;
        cs_error err;
        cs_error_clear(&err);
        assert_int_equal(cs_gen_rank(&m, &p, d, 0, null_sink, NULL, &st, &err), CS_OK);
        assert_int_equal(st.tp_colls, 1 + 2 * 2);
        NEAR(st.tp_bytes, 5 * 2 * tok * h);
        assert_int_equal(st.sends, 1);
        assert_int_equal(st.recvs, 0);
        NEAR(st.p2p_bytes, 2 * tok * h);
        assert_int_equal(st.dp_colls, 0);
        cs_gen_memory mm;
        cs_gen_memory_stage(&m, &p, 1, &mm);
        NEAR(mm.kv_cache, 2.0 * 2 * 4 * 32 * 160 * 3 * 2);
        NEAR(mm.grads + mm.optimizer + mm.activations, 0);
        NEAR(mm.total, mm.weights + mm.kv_cache);
    }
    /* a serving step takes TP, PP, DP and EP only; its batch is one micro-batch per DP rank */
    cs_error err;
    cs_error_clear(&err);
    p.sp = 1;
    assert_int_equal(cs_gen_plan_check(&m, &p, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "TP, PP, DP and EP only"));
    p.sp = 0;
    p.global_batch = 6;
    cs_error_clear(&err);
    assert_int_equal(cs_gen_plan_check(&m, &p, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "one batch"));
}

static void test_interleaved(void **state) {
    (void)state;
    cs_gen_model m = small_model();
    cs_gen_plan p;
    cs_gen_plan_defaults(&p);
    p.pp = 2;
    p.global_batch = 4;
    cs_gen_plan q = p;
    q.vstages = 2;
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_gen_plan_check(&m, &q, &err), CS_OK);
    assert_true(total_flops(&m, &q) == total_flops(&m, &p));
    const cs_device *d = cs_device_find("A100-80GB");
    double sends = 0, recvs = 0, bytes = 0;
    for (uint32_t r = 0; r < 2; r++) {
        cs_gen_stats st;
        assert_int_equal(cs_gen_rank(&m, &q, d, r, null_sink, NULL, &st, &err), CS_OK);
        sends += (double)st.sends;
        recvs += (double)st.recvs;
        bytes += st.p2p_bytes;
    }
    assert_true(sends == 24 && recvs == 24 && bytes == 24 * 2.0 * 128 * 256);
    cs_gen_memory a, b;
    cs_gen_memory_stage(&m, &p, 0, &a);
    cs_gen_memory_stage(&m, &q, 0, &b);
    assert_int_equal(a.inflight, 2);
    assert_int_equal(b.inflight, 5);
    assert_true(fabs(b.activations / a.activations - 1.25) < 1e-12);
    /* uneven chunks: 6 layers on pp 2 x v 2 = 4 virtual stages of 1, 2, 2, 1
     * (the deficit from the last and the first): stage 0 holds layers 0 and
     * 3-4, stage 1 layers 1-2 and 5; same FLOPs as plain 1F1B; each
     * micro-batch still crosses 3 boundaries each way */
    cs_gen_model m6 = small_model();
    m6.u.tf.layers = 6;
    uint32_t first = 99;
    assert_int_equal(cs_gen_plan_check(&m6, &q, &err), CS_OK);
    assert_int_equal(cs_gen_tx_stage_layers(&m6, &q, 0, &first), 3);
    assert_int_equal(first, 0);
    assert_int_equal(cs_gen_tx_stage_layers(&m6, &q, 1, &first), 3);
    assert_int_equal(first, 1);
    assert_true(total_flops(&m6, &q) == total_flops(&m6, &p));
    sends = recvs = 0;
    for (uint32_t r = 0; r < 2; r++) {
        cs_gen_stats st;
        assert_int_equal(cs_gen_rank(&m6, &q, d, r, null_sink, NULL, &st, &err), CS_OK);
        sends += (double)st.sends;
        recvs += (double)st.recvs;
    }
    assert_true(sends == 24 && recvs == 24);
    q.vstages = 4; /* 8 chunks for 6 layers */
    assert_int_equal(cs_gen_plan_check(&m6, &q, &err), CS_EINVAL);
    tu_assert_has(err.msg, "--virtual-stages 4: expected at least one layer per model chunk, got 6 layers");
    q.vstages = 2;
    cs_error_clear(&err);
    q.global_batch = 3;
    assert_int_equal(cs_gen_plan_check(&m, &q, &err), CS_EINVAL);
    tu_assert_has(err.msg, "--virtual-stages 2: the micro-batch count (3) must be a multiple of --pp 2");
    q.global_batch = 4;
    q.schedule = CS_SCHED_GPIPE;
    cs_error_clear(&err);
    assert_int_equal(cs_gen_plan_check(&m, &q, &err), CS_EINVAL);
    tu_assert_has(err.msg, "interleaving needs a transformer, --pp > 1, --schedule 1f1b");
}


/* plan.layout (Megatron-LM's --pipeline-model-parallel-layout): the small
 * model (L 4, h 256, f 1024, V 1000, s 128, biases, tied) on pp 2 x v 2 as
 * "E|t*2|t|tL": virtual stages 0..3 hold 0 (+ embedding), 2, 1, 1 (+ output
 * layer) decoder layers; stage 0 = vs 0 and 2 (layer 2), stage 1 = vs 1 and
 * 3 (layers 0, 1, 3).  Worked by hand: one layer holds 3h^2+3h (QKV) +
 * h^2+h (proj) + 2hf+f+h (MLP) + 4h (norms) = 789,760 parameters; the
 * embedding V h + s h = 288,768; the output layer 2h = 512 plus Megatron's
 * copy of the tied embedding V h = 256,000.  One layer's forward is
 * (2 x 12 h^2 + 4 s h) = 1,703,936 FLOPs per token, x 128 tokens x 3
 * (forward + backward) = 654,311,424 per micro-batch; the logits 3 x 2 s h V
 * = 196,608,000. */
static void test_layout(void **state) {
    (void)state;
    cs_gen_model m = small_model();
    cs_gen_plan p;
    cs_gen_plan_defaults(&p);
    p.pp = 2;
    p.global_batch = 4; /* 4 micro-batches */
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_gen_layout_parse("E|t*2|t|t,L", &p, &err), CS_OK);
    assert_int_equal(p.nlayout, 4);
    assert_true(p.layout[0] == 0 && p.layout[1] == 2 && p.layout[2] == 1 && p.layout[3] == 1);
    p.vstages = 2;
    assert_int_equal(cs_gen_plan_check(&m, &p, &err), CS_OK);
    uint32_t first = 99;
    assert_int_equal(cs_gen_tx_stage_layers(&m, &p, 0, &first), 1);
    assert_int_equal(first, 0);
    assert_int_equal(cs_gen_tx_stage_layers(&m, &p, 1, &first), 3);
    assert_int_equal(first, 0);
    assert_int_equal(cs_gen_vstage_layers(4, &p, 2, &first), 1);
    assert_int_equal(first, 2);
    cs_gen_memory s0, s1;
    cs_gen_memory_stage(&m, &p, 0, &s0);
    cs_gen_memory_stage(&m, &p, 1, &s1);
    assert_true(s0.params == 789760.0 + 288768.0);
    assert_true(s1.params == 3 * 789760.0 + 512.0 + 256000.0);
    /* in flight: stage 0 runs 2 (pp - 1) + (v - 1) pp + 1 = 5 forward units
     * before its first backward: units 0, 1 of chunk 0 (0 layers), 2, 3 of
     * chunk 1 (1 layer), 4 of chunk 0: 2 layer-micro-batches; plain 1F1B
     * holds 2 micro-batches of its 2 layers = 4 */
    cs_gen_plan q;
    cs_gen_plan_defaults(&q);
    q.pp = 2;
    q.global_batch = 4;
    cs_gen_memory a0;
    cs_gen_memory_stage(&m, &q, 0, &a0);
    assert_int_equal(a0.inflight, 2);
    assert_int_equal(s0.inflight, 5);
    assert_true(fabs(s0.activations / a0.activations - 0.5) < 1e-12);
    /* stage 1: 3 units, chunk 0 (2 layers) twice and chunk 1 (1 layer): 5
     * layer-micro-batches of a0.activations / 4 each, + the output layer's
     * 4 s b (h + V) */
    double out = 4.0 * 128 * (256 + 1000);
    assert_true(fabs(s1.activations - (5 * a0.activations / 4 + out)) < 1e-6);
    /* FLOPs per rank: stage 0 4 micro-batches of 1 layer, stage 1 of 3
     * layers and the logits; the sum is plain 1F1B's */
    const cs_device *d = cs_device_find("A100-80GB");
    cs_gen_stats st0, st1;
    assert_int_equal(cs_gen_rank(&m, &p, d, 0, null_sink, NULL, &st0, &err), CS_OK);
    assert_int_equal(cs_gen_rank(&m, &p, d, 1, null_sink, NULL, &st1, &err), CS_OK);
    assert_true(st0.matmul_flops == 4 * 654311424.0);
    assert_true(st1.matmul_flops == 4 * (3 * 654311424.0 + 196608000.0));
    assert_true(total_flops(&m, &p) == total_flops(&m, &q));
    /* each micro-batch crosses pp v - 1 = 3 boundaries each way: 4 x 3 x 2
     * messages of 2 s h bytes over both ranks, the empty chunk too */
    assert_true(st0.sends + st1.sends == 24 && st0.recvs + st1.recvs == 24);
    assert_true(st0.p2p_bytes + st1.p2p_bytes == 24 * 2.0 * 128 * 256);
    /* Llama 3's shape: the embedding and the output layer on stages of their
     * own, more stages than layers (refused without a layout) */
    cs_gen_plan_defaults(&p);
    p.pp = 6;
    p.global_batch = 6;
    assert_int_equal(cs_gen_plan_check(&m, &p, &err), CS_EINVAL);
    tu_assert_has(err.msg, "--pp 6: expected at most one stage per layer (4 layers)");
    cs_error_clear(&err);
    assert_int_equal(cs_gen_layout_parse("E|(t|)*4L", &p, &err), CS_OK);
    assert_int_equal(p.nlayout, 6);
    assert_int_equal(cs_gen_plan_check(&m, &p, &err), CS_OK);
    assert_int_equal(cs_gen_rank(&m, &p, d, 0, null_sink, NULL, &st0, &err), CS_OK);
    assert_true(st0.matmul_flops == 0 && st0.sends == 6 && st0.recvs == 6);
    assert_int_equal(cs_gen_rank(&m, &p, d, 5, null_sink, NULL, &st1, &err), CS_OK);
    assert_true(st1.matmul_flops == 6 * 196608000.0 && st1.sends == 6 && st1.recvs == 6);
    assert_true(total_flops(&m, &p) == 6 * (4 * 654311424.0 + 196608000.0));
    /* checks */
    static const struct { const char *s, *msg; } bad[] = {
        {"E|t*2|t|t", "expected L (output layer and loss) closing the last stage"},
        {"t|E|tt|tL", "expected one E (embedding), opening the first stage"},
        {"E|tt|tLt|", "a decoder layer (t) after L"},
        {"E|t|m|ttL", "m (multi-token prediction layer) is not modelled"},
        {"E|(t|t", "the '(' at character 3: expected a closing ')'"},
        {"E|t)|L", "character 4 ')': expected a '(' before it"},
        {"E|t*0|L", "expected a repeat count >= 1"},
        {"E|x|L", "character 3 'x': expected E (embedding), t (decoder layer)"},
        {"E((((t*1000)*1000)*1000))L", "expands to more than 1048576 characters"},
        {"E(((((((((t)))))))))L", "expected at most 8 nested parentheses"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cs_gen_plan_defaults(&p);
        cs_error_clear(&err);
        assert_int_equal(cs_gen_layout_parse(bad[i].s, &p, &err), CS_EINVAL);
        tu_assert_has(err.msg, bad[i].msg);
    }
    cs_gen_plan_defaults(&p);
    p.pp = 2;
    p.global_batch = 4;
    cs_error_clear(&err);
    assert_int_equal(cs_gen_layout_parse("Et|t*2L", &p, &err), CS_OK);
    assert_int_equal(cs_gen_plan_check(&m, &p, &err), CS_EINVAL);
    tu_assert_has(err.msg, "plan.layout: 3 decoder layers (t); expected the model's 4");
    cs_error_clear(&err);
    assert_int_equal(cs_gen_layout_parse("Et|t|t*2L", &p, &err), CS_OK);
    assert_int_equal(cs_gen_plan_check(&m, &p, &err), CS_EINVAL);
    tu_assert_has(err.msg, "plan.layout: 3 stages; expected pp x virtual-stages = 2 x 1 = 2");
}

/* Data-parallel sharding as the frameworks name it, on the small model with
 * TP 2 x DP 2 and 3 micro-batches: P_r = 1,724,160 parameters per rank
 * (test_zero_comm), 5 FSDP units per step (4 layers and the embedding /
 * output-layer unit).  Counted by node name: "dp.grads" reduce-scatters,
 * "zero3.ag" gathers (forward, "bwd." backward), "dp.params" the gather
 * after the optimizer. */
typedef struct shard_count {
    int rs, ag_fwd, ag_bwd, params;
} shard_count;

static int shard_capture(void *ud, const ChakraProtoMsg__Node *n, cs_error *err) {
    (void)err;
    shard_count *c = ud;
    if (strcmp(n->name, "dp.grads") == 0) c->rs++;
    if (strcmp(n->name, "dp.params") == 0) c->params++;
    if (strstr(n->name, "zero3.ag")) {
        if (strncmp(n->name, "bwd.", 4) == 0) c->ag_bwd++;
        else c->ag_fwd++;
    }
    return CS_OK;
}

static void shard_run(const cs_gen_model *m, const cs_gen_plan *p, shard_count *c, cs_gen_stats *st) {
    cs_error err;
    cs_error_clear(&err);
    memset(c, 0, sizeof *c);
    assert_int_equal(cs_gen_plan_check(m, p, &err), CS_OK);
    assert_int_equal(cs_gen_rank(m, p, cs_device_find("A100-80GB"), 3, shard_capture, c, st, &err), CS_OK);
}

static void test_sharding_frameworks(void **state) {
    (void)state;
    cs_gen_model m = small_model();
    cs_gen_plan p;
    cs_gen_plan_defaults(&p);
    p.tp = 2;
    p.dp = 2;
    p.global_batch = 6;
    const double Pr = 1724160.0;
    shard_count c;
    cs_gen_stats st;
    cs_gen_memory mm;
    /* Megatron's distributed optimizer: fp32 gradients reduce-scattered in
     * the last micro-batch (4 P_r bytes, one 40 M bucket: P_r < 40 M), the
     * bf16 shard gathered after the step (2 P_r / 2); 6 + 12/dp bytes per
     * parameter */
    p.zero = 1;
    p.dist_opt = 1;
    shard_run(&m, &p, &c, &st);
    assert_int_equal(c.rs, 1);
    assert_int_equal(c.params, 1);
    assert_true(st.dp_rs_bytes == 4 * Pr && st.dp_ag_bytes == Pr);
    cs_gen_memory_stage(&m, &p, 0, &mm);
    assert_true(mm.weights == 2 * Pr && mm.grads == 4 * Pr && mm.optimizer == 12 * Pr / 2);
    /* FSDP FULL_SHARD: per micro-batch each unit gathered before its forward
     * and its backward (2 P_r / 2 bytes per pass) and reduce-scattered after
     * its backward (2 P_r per micro-batch); nothing after the step */
    p.dist_opt = 0;
    p.zero = 3;
    p.fsdp_strategy = CS_FSDP_FULL_SHARD;
    shard_run(&m, &p, &c, &st);
    assert_true(c.rs == 3 * 5 && c.ag_fwd == 3 * 5 && c.ag_bwd == 3 * 5 && c.params == 0);
    assert_true(st.dp_rs_bytes == 3 * 2 * Pr && st.dp_ag_bytes == 3 * 2 * Pr);
    /* ... under no_sync(): the same gathers, one reduce-scatter per unit in
     * the last micro-batch; the gradients accumulate whole (2 P_r).  Weights:
     * the 2 P_r / 2 shard plus the two largest units unsharded (the one
     * computed, the one prefetched): two layers of 789,760 / t = 394,880
     * parameters (the other unit, embedding + final norm, is (288,768 +
     * 512) / 2 = 144,640), 2 x 2 x 394,880 = 2 x 789,760 bytes */
    p.fsdp_no_sync = 1;
    shard_run(&m, &p, &c, &st);
    assert_true(c.rs == 5 && c.ag_fwd == 15 && c.ag_bwd == 15);
    assert_true(st.dp_rs_bytes == 2 * Pr && st.dp_ag_bytes == 6 * Pr);
    cs_gen_memory_stage(&m, &p, 0, &mm);
    assert_true(mm.weights == Pr + 2 * 789760.0 && mm.grads == 2 * Pr && mm.optimizer == 6 * Pr);
    /* SHARD_GRAD_OP: gathered before each forward only (kept for the
     * backward), 3 x P_r bytes; gradients as FULL_SHARD; full weights held */
    p.fsdp_no_sync = 0;
    p.zero = 2;
    p.fsdp_strategy = CS_FSDP_SHARD_GRAD_OP;
    shard_run(&m, &p, &c, &st);
    assert_true(c.rs == 15 && c.ag_fwd == 15 && c.ag_bwd == 0 && c.params == 0);
    assert_true(st.dp_rs_bytes == 6 * Pr && st.dp_ag_bytes == 3 * Pr);
    cs_gen_memory_stage(&m, &p, 0, &mm);
    assert_true(mm.weights == 2 * Pr && mm.grads == Pr && mm.optimizer == 6 * Pr);
    /* ... under no_sync() (Llama 3): gathered once, reduce-scattered once */
    p.fsdp_no_sync = 1;
    shard_run(&m, &p, &c, &st);
    assert_true(c.rs == 5 && c.ag_fwd == 5 && c.ag_bwd == 0 && c.params == 0);
    assert_true(st.dp_rs_bytes == 2 * Pr && st.dp_ag_bytes == Pr);
    cs_gen_memory_stage(&m, &p, 0, &mm);
    assert_true(mm.weights == 2 * Pr && mm.grads == 2 * Pr && mm.optimizer == 6 * Pr);
    /* with a pipeline (pp 2: stage 0 = 2 layers + the embedding, 3 units) */
    p.pp = 2;
    shard_run(&m, &p, &c, &st); /* rank 3 = tp 1, dp 1 of stage 0 */
    assert_true(c.rs == 3 && c.ag_fwd == 3);
    /* checks */
    cs_error err;
    cs_error_clear(&err);
    p.fsdp_no_sync = 0;
    assert_int_equal(cs_gen_plan_check(&m, &p, &err), CS_EINVAL);
    tu_assert_has(err.msg, "SHARD_GRAD_OP with plan.pp 2: which of its gathers run depends on how the pipeline");
    cs_error_clear(&err);
    p.pp = 1;
    p.zero = 3;
    assert_int_equal(cs_gen_plan_check(&m, &p, &err), CS_EINVAL);
    tu_assert_has(err.msg, "plan.fsdp-sharding-strategy SHARD_GRAD_OP: is ZeRO-2; expected plan.zero 2 or unset, got 3");
    cs_error_clear(&err);
    p.fsdp_strategy = CS_FSDP_NONE;
    p.fsdp_no_sync = 1;
    assert_int_equal(cs_gen_plan_check(&m, &p, &err), CS_EINVAL);
    tu_assert_has(err.msg, "plan.fsdp-no-sync: FSDP's no_sync() needs a plan.fsdp-sharding-strategy");
    cs_error_clear(&err);
    p.fsdp_no_sync = 0;
    p.dist_opt = 1;
    assert_int_equal(cs_gen_plan_check(&m, &p, &err), CS_EINVAL);
    tu_assert_has(err.msg, "plan.use-distributed-optimizer: Megatron-LM's distributed optimizer shards the optimizer state");
}

/* HSDP (PyTorch FSDP HYBRID_SHARD): TP 2 x DP 4, shard groups of S = 2
 * consecutive DP ranks, 3 micro-batches, P_r = 1,724,160, 5 units.  Groups
 * (rank = tp_i + 2 dp_i): TP 1-4, DP 5-6, shard groups 7-10 (tp_i, dp_i / 2),
 * replica groups 11-14 (tp_i, dp_i mod 2); rank 3 (tp 1, dp 1) is in shard
 * group 7 + 2 = 9 = {1, 3} and replica group 11 + 2 + 1 = 14 = {3, 7}. */
typedef struct hsdp_count {
    int rs, ar, ag;
    char rs_pg[16], ar_pg[16], ag_pg[16];
} hsdp_count;

static int hsdp_capture(void *ud, const ChakraProtoMsg__Node *n, cs_error *err) {
    (void)err;
    hsdp_count *c = ud;
    const char *pg = NULL;
    for (size_t i = 0; i < n->n_attr; i++)
        if (strcmp(n->attr[i]->name, "pg_name") == 0) pg = n->attr[i]->string_val;
    if (strcmp(n->name, "dp.grads") == 0) {
        c->rs++;
        snprintf(c->rs_pg, sizeof c->rs_pg, "%s", pg);
    } else if (strcmp(n->name, "dp.grads.replicas") == 0) {
        c->ar++;
        snprintf(c->ar_pg, sizeof c->ar_pg, "%s", pg);
    } else if (strstr(n->name, "zero3.ag")) {
        c->ag++;
        snprintf(c->ag_pg, sizeof c->ag_pg, "%s", pg);
    }
    return CS_OK;
}

static void test_hsdp(void **state) {
    (void)state;
    cs_gen_model m = small_model();
    cs_gen_plan p;
    cs_gen_plan_defaults(&p);
    p.tp = 2;
    p.dp = 4;
    p.global_batch = 12;
    p.fsdp_strategy = CS_FSDP_HYBRID_SHARD;
    p.zero = 3;
    p.hsdp_shard = 2;
    const double Pr = 1724160.0;
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_gen_plan_check(&m, &p, &err), CS_OK);
    hsdp_count c;
    memset(&c, 0, sizeof c);
    cs_gen_stats st;
    assert_int_equal(cs_gen_rank(&m, &p, cs_device_find("A100-80GB"), 3, hsdp_capture, &c, &st, &err), CS_OK);
    /* per micro-batch and unit: gather before forward and backward (2 U / S
     * each), reduce-scatter in the shard group (2 U), all-reduce of the
     * rank's 1/S across the 2 replicas (2 U / S) */
    assert_true(c.rs == 15 && c.ar == 15 && c.ag == 30);
    assert_string_equal(c.rs_pg, "9");
    assert_string_equal(c.ag_pg, "9");
    assert_string_equal(c.ar_pg, "14");
    assert_true(st.dp_rs_bytes == 3 * 2 * Pr && st.dp_ag_bytes == 3 * 2 * 2 * Pr / 2);
    assert_true(st.dp_bytes == 6 * Pr + 6 * Pr + 3 * 2 * Pr / 2);
    cs_comm_groups g;
    cs_gen_comm_groups(&p, &g);
    assert_int_equal(g.ngroups, 14);
    assert_true(g.groups[8].nranks == 2 && g.groups[8].ranks[0] == 1 && g.groups[8].ranks[1] == 3);
    assert_true(g.groups[13].nranks == 2 && g.groups[13].ranks[0] == 3 && g.groups[13].ranks[1] == 7);
    cs_comm_groups_free(&g);
    /* memory: sharded over the 2 ranks of the shard group, not the 4 of DP;
     * weights add two unsharded layers (test_sharding_frameworks) */
    cs_gen_memory mm;
    cs_gen_memory_stage(&m, &p, 0, &mm);
    assert_true(mm.weights == Pr + 2 * 789760.0 && mm.grads == Pr && mm.optimizer == 6 * Pr);
    /* _HYBRID_SHARD_ZERO2 under no_sync: one gather, one reduce-scatter and
     * one all-reduce per unit and step */
    p.fsdp_strategy = CS_FSDP_HYBRID_SHARD_ZERO2;
    p.zero = 2;
    p.fsdp_no_sync = 1;
    memset(&c, 0, sizeof c);
    assert_int_equal(cs_gen_rank(&m, &p, cs_device_find("A100-80GB"), 3, hsdp_capture, &c, &st, &err), CS_OK);
    assert_true(c.rs == 5 && c.ar == 5 && c.ag == 5);
    assert_true(st.dp_rs_bytes == 2 * Pr && st.dp_ag_bytes == Pr && st.dp_bytes == 2 * Pr + Pr + Pr);
    /* checks */
    p.hsdp_shard = 3;
    assert_int_equal(cs_gen_plan_check(&m, &p, &err), CS_EINVAL);
    tu_assert_has(err.msg, "plan.hsdp-shard-size 3: _HYBRID_SHARD_ZERO2 shards within groups of consecutive DP ranks; "
                           "expected a divisor of plan.dp (4)");
    cs_error_clear(&err);
    p.hsdp_shard = 2;
    p.fsdp_strategy = CS_FSDP_SHARD_GRAD_OP;
    assert_int_equal(cs_gen_plan_check(&m, &p, &err), CS_EINVAL);
    tu_assert_has(err.msg, "plan.hsdp-shard-size: needs plan.fsdp-sharding-strategy HYBRID_SHARD");
}

/* FSDP with interleaving: one rank's gathers and reduce-scatters per model
 * chunk, worked by hand.  The small model with 8 layers, TP 1 x PP 2 x DP 2,
 * 2 chunks per stage (virtual stages 0..3 of 2 layers each: stage 0 holds
 * 0 (layers 0-1 + the embedding) and 2 (layers 4-5), stage 1 holds 1
 * (layers 2-3) and 3 (layers 6-7 + final norm + Megatron's copy of the tied
 * embedding)), micro-batch 1, global batch 8: M = 4 micro-batches.
 * rank = dp_i + 2 pp_i: rank 0 is stage 0, rank 2 stage 1.
 * Parameters: a layer L1 = 3h^2 + 3h + h^2 + h + 2hf + f + h + 4h with h 256,
 * f 1024 = 789,760; embedding E = V h + s h = 256,000 + 32,768 = 288,768;
 * last chunk's others H = 2h + V h = 512 + 256,000 = 256,512.  Units of
 * stage 0: 4 layers + E (P0 = 4 L1 + E = 3,447,808), stage 1: 4 layers + H
 * (P1 = 3,415,552).  A gather's comm_size = 2 x unit / dp = the unit. */
typedef struct rank_count {
    shard_count c;
    cs_gen_stats st;
} rank_count;

static void shard_run_rank(const cs_gen_model *m, const cs_gen_plan *p, uint32_t rank, rank_count *r) {
    cs_error err;
    cs_error_clear(&err);
    memset(r, 0, sizeof *r);
    assert_int_equal(cs_gen_plan_check(m, p, &err), CS_OK);
    assert_int_equal(cs_gen_rank(m, p, cs_device_find("A100-80GB"), rank, shard_capture, &r->c, &r->st, &err), CS_OK);
}

static void test_fsdp_interleaved(void **state) {
    (void)state;
    cs_gen_model m = small_model();
    m.u.tf.layers = 8;
    cs_gen_plan p;
    cs_gen_plan_defaults(&p);
    p.pp = 2;
    p.dp = 2;
    p.vstages = 2;
    p.global_batch = 8;
    const double L1 = 789760, E = 288768, H = 256512, P0 = 4 * L1 + E, P1 = 4 * L1 + H;
    rank_count r;
    cs_gen_memory mm;
    /* SHARD_GRAD_OP under no_sync, fp32 gradients (Llama 3): each chunk's
     * units gathered once, in its micro-batch 0 forward (stage 0: E + 2
     * layers for chunk 0, 2 layers for chunk 2 = 5 gathers, P0 bytes), kept
     * through the step; each unit reduce-scattered once, in its chunk's
     * micro-batch 3 backward, in fp32 (5, 4 P0 bytes) */
    p.fsdp_strategy = CS_FSDP_SHARD_GRAD_OP;
    p.zero = 2;
    p.fsdp_no_sync = 1;
    p.fsdp_fp32_grads = 1;
    shard_run_rank(&m, &p, 0, &r);
    assert_true(r.c.rs == 5 && r.c.ag_fwd == 5 && r.c.ag_bwd == 0 && r.c.params == 0);
    assert_true(r.st.dp_rs_bytes == 4 * P0 && r.st.dp_ag_bytes == P0);
    shard_run_rank(&m, &p, 2, &r);
    assert_true(r.c.rs == 5 && r.c.ag_fwd == 5 && r.c.ag_bwd == 0);
    assert_true(r.st.dp_rs_bytes == 4 * P1 && r.st.dp_ag_bytes == P1);
    /* memory: every chunk's weights whole from its first forward to its
     * last backward (all held at once: chunk 1's micro-batch 0 forward comes
     * before any chunk's micro-batch 3 backward), fp32 gradients whole,
     * optimizer sharded: 2 P + 4 P + 12 P / 2 */
    cs_gen_memory_stage(&m, &p, 0, &mm);
    assert_true(mm.params == P0 && mm.weights == 2 * P0 && mm.grads == 4 * P0 && mm.optimizer == 6 * P0);
    cs_gen_memory_stage(&m, &p, 1, &mm);
    assert_true(mm.params == P1 && mm.weights == 2 * P1 && mm.grads == 4 * P1 && mm.optimizer == 6 * P1);
    /* bf16 gradients: half the reduce-scatter bytes and gradient memory */
    p.fsdp_fp32_grads = 0;
    shard_run_rank(&m, &p, 0, &r);
    assert_true(r.st.dp_rs_bytes == 2 * P0 && r.st.dp_ag_bytes == P0);
    cs_gen_memory_stage(&m, &p, 0, &mm);
    assert_true(mm.grads == 2 * P0);
    /* FULL_SHARD: every unit gathered before each forward and each backward
     * of its chunk and reduce-scattered after each backward: per micro-batch
     * 5 units each way; 4 micro-batches: 20 + 20 gathers of 4 x P0 bytes
     * each way, 20 reduce-scatters of 4 x 2 P0 bytes */
    p.fsdp_strategy = CS_FSDP_FULL_SHARD;
    p.zero = 3;
    p.fsdp_no_sync = 0;
    shard_run_rank(&m, &p, 0, &r);
    assert_true(r.c.rs == 20 && r.c.ag_fwd == 20 && r.c.ag_bwd == 20 && r.c.params == 0);
    assert_true(r.st.dp_rs_bytes == 8 * P0 && r.st.dp_ag_bytes == 8 * P0);
    shard_run_rank(&m, &p, 2, &r);
    assert_true(r.c.rs == 20 && r.c.ag_fwd == 20 && r.c.ag_bwd == 20);
    assert_true(r.st.dp_rs_bytes == 8 * P1 && r.st.dp_ag_bytes == 8 * P1);
    /* memory: shards (2 P / 2) plus the two largest units unsharded, two
     * layers (L1 > E, H): 2 x 2 L1; gradients 2 P / 2 */
    cs_gen_memory_stage(&m, &p, 0, &mm);
    assert_true(mm.weights == P0 + 4 * L1 && mm.grads == P0 && mm.optimizer == 6 * P0);
    /* a layout with the embedding and the output layer in chunks of their
     * own, "E|t*2|t*2|t*2|t*2|L" (pp 2 x 3 chunks; stage 0 holds E, layers
     * 2-3 and 6-7) and a vocabulary of 10,000 so that the embedding (E' =
     * 2,560,000 + 32,768 = 2,592,768) outweighs a layer: FULL_SHARD per
     * micro-batch gathers E' alone for chunk 0, then 2 + 2 layers, 5 units
     * each way (8 x P0' bytes in all, P0' = 4 L1 + E'); the two largest
     * units unsharded are E' and a layer */
    cs_gen_model w = m;
    w.u.tf.vocab = 10000;
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_gen_layout_parse("E|t*2|t*2|t*2|t*2|L", &p, &err), CS_OK);
    p.vstages = 3;
    const double E2 = 2592768, Q0 = 4 * L1 + E2;
    shard_run_rank(&w, &p, 0, &r);
    assert_true(r.c.rs == 20 && r.c.ag_fwd == 20 && r.c.ag_bwd == 20);
    assert_true(r.st.dp_rs_bytes == 8 * Q0 && r.st.dp_ag_bytes == 8 * Q0);
    cs_gen_memory_stage(&w, &p, 0, &mm);
    assert_true(mm.params == Q0 && mm.weights == Q0 + 2 * (E2 + L1));
    /* HSDP (_HYBRID_SHARD_ZERO2, dp 4 in shard groups of 2, no_sync) with
     * the 2-chunk split: one gather, one reduce-scatter in the shard group
     * and one all-reduce of the 1/2 shard across the 2 replicas per unit:
     * gathers P0 (2 x unit / 2), reduce-scatters 2 P0, all-reduces P0 */
    p.nlayout = 0;
    p.vstages = 2;
    p.dp = 4;
    p.global_batch = 16;
    p.fsdp_strategy = CS_FSDP_HYBRID_SHARD_ZERO2;
    p.zero = 2;
    p.fsdp_no_sync = 1;
    p.hsdp_shard = 2;
    shard_run_rank(&m, &p, 0, &r);
    assert_true(r.c.rs == 5 && r.c.ag_fwd == 5 && r.c.ag_bwd == 0);
    assert_true(r.st.dp_rs_bytes == 2 * P0 && r.st.dp_ag_bytes == P0 && r.st.dp_bytes == 2 * P0 + P0 + P0);
    /* plain ZeRO-3 (DDP-style buckets) still refuses interleaving */
    p.fsdp_strategy = CS_FSDP_NONE;
    p.fsdp_no_sync = 0;
    p.hsdp_shard = 0;
    p.zero = 3;
    assert_int_equal(cs_gen_plan_check(&m, &p, &err), CS_EINVAL);
    tu_assert_has(err.msg, "--zero 0..2 or an FSDP strategy");
}

/* plan.kernel-overhead-us: a fixed time on every generated GPU kernel.  A
 * 4-layer model (h 2048, s 2048) on one rank, one micro-batch: forward embed
 * + 4 layers x 7 (ln1, qkv, attn, proj, res1_ln2, mlp, res2) + final_ln +
 * logits = 31 COMP nodes, backward the same 31 + 4 layers' and the
 * embedding's gradient accumulation (grad_acc) = 36, the optimizer 1: 68;
 * each gains 5 us, the step 340 us.  (Durations are whole microseconds, at
 * least 1: the baseline's shortest kernel must be >= 2 us for the 5 us to
 * show whole, which the test checks.) */
typedef struct comp_sum {
    uint64_t n, us, min_us;
} comp_sum;

static int comp_capture(void *ud, const ChakraProtoMsg__Node *n, cs_error *err) {
    (void)err;
    comp_sum *c = ud;
    if (n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE) {
        c->n++;
        c->us += n->duration_micros;
        if (!c->min_us || n->duration_micros < c->min_us) c->min_us = n->duration_micros;
    }
    return CS_OK;
}

static void test_kernel_overhead(void **state) {
    (void)state;
    cs_gen_model m = kernel_model();
    cs_gen_plan p;
    cs_gen_plan_defaults(&p);
    p.global_batch = 1;
    const cs_device *d = cs_device_find("A100-80GB");
    cs_error err;
    cs_error_clear(&err);
    comp_sum a = {0, 0, 0}, b = {0, 0, 0};
    assert_int_equal(cs_gen_rank(&m, &p, d, 0, comp_capture, &a, NULL, &err), CS_OK);
    p.kernel_overhead_s = 5e-6;
    assert_int_equal(cs_gen_rank(&m, &p, d, 0, comp_capture, &b, NULL, &err), CS_OK);
    assert_int_equal(a.n, 68);
    assert_int_equal(b.n, 68);
    assert_true(a.min_us >= 2);
    assert_int_equal(b.us - a.us, 68 * 5);
}

/* Framework kernels (gen_int.h, docs/generator.md "Framework kernels"): the
 * optimizer's 54 bytes per parameter, the gradient accumulation's 6 bytes
 * per parameter and micro-batch, the fp32 cross entropy's 38 + 14 bytes per
 * logit.  Worked by hand for a 4-layer GPT (h 2048, ffn 8192, s 2048,
 * vocab 8000, biases, tied embeddings) on one A100-80GB, one micro-batch;
 * streaming at 2039e9 x 0.80 = 1631.2e9 B/s, durations in whole us:
 *   layer parameters 12 h^2 + 13 h = 50,358,272:
 *     bwd.L<k>.grad_acc   6 x 50,358,272 = 302,149,632 B   -> 185.23 us = 185
 *   embedding V h + s h = 16,384,000 + 4,194,304 = 20,578,304:
 *     bwd.embed.grad_acc  6 x 20,578,304 = 123,469,824 B   ->  75.69 us = 76
 *   optimizer: 4 layers + embedding + final norm (2 h) = 222,015,488
 *     parameters x 54 = 11,988,836,352 B                   -> 7349.70 us = 7350
 *   logits: the GEMM 2048 x 8000 x 2048 is compute-bound:
 *     2 s V h / (312e12 x 0.8 x f(2048) f(8000) f(2048)), f(d) = d / (d + 32),
 *     = 278.44 us (its bytes 2 (s h + h V + s V) take 45.32 us), plus the
 *     cross entropy 38 x 2048 x 8000 = 622,592,000 B = 381.68 us: 660.12 = 660
 *   bwd.logits: two GEMMs 556.89 us + 14 x s V = 229,376,000 B (140.62 us)
 *     + the output layer's gradient accumulation 6 V h = 98,304,000 B
 *     (60.26 us) = 757.77 us = 758 */
typedef struct named_dur {
    const char *name[6];
    uint64_t us[6];
} named_dur;

static int named_capture(void *ud, const ChakraProtoMsg__Node *n, cs_error *err) {
    (void)err;
    named_dur *c = ud;
    for (int i = 0; i < 6; i++)
        if (n->name && strcmp(n->name, c->name[i]) == 0 && !c->us[i]) c->us[i] = n->duration_micros;
    return CS_OK;
}

static void test_framework_kernels(void **state) {
    (void)state;
    cs_gen_model m = kernel_model();
    cs_gen_plan p;
    cs_gen_plan_defaults(&p);
    p.global_batch = 1;
    const cs_device *d = cs_device_find("A100-80GB");
    cs_error err;
    cs_error_clear(&err);
    named_dur c = {{"bwd.L3.grad_acc", "bwd.L0.grad_acc", "bwd.embed.grad_acc", "optimizer", "logits", "bwd.logits"},
                   {0, 0, 0, 0, 0, 0}};
    assert_int_equal(cs_gen_rank(&m, &p, d, 0, named_capture, &c, NULL, &err), CS_OK);
    assert_int_equal(c.us[0], 185);
    assert_int_equal(c.us[1], 185);
    assert_int_equal(c.us[2], 76);
    assert_int_equal(c.us[3], 7350);
    assert_int_equal(c.us[4], 660);
    assert_int_equal(c.us[5], 758);
}


/* Megatron-LM's 2022 backward (docs/generator.md, "Megatron-LM versions"),
 * the model of test_framework_kernels (4 layers, h 2048, ffn 8192, s 2048,
 * 8 heads, vocab 8000, biases, tied embeddings), one micro-batch:
 *
 * plan.async_tp, TP 2: the QKV's backward becomes its dgrad and its wgrad,
 * each the forward's GEMM 2048 x (3 x 2048 / 2 = 3072) x 2048 =
 * 2 x 2048 x 3072 x 2048 = 25,769,803,776 FLOPs at 312e12 x 0.8 x
 * f(2048)^2 f(3072), f(d) = d / (d + 32): 107.605 us = 108 each (the
 * blocking node: 215.21 = 215); the TP all-reduce ar1 depends on the dgrad
 * only and ln1 waits for the wgrad and ar1.  The MLP's first layer's
 * wgrad: 2048 x 4096 x 2048, 34,359,738,368 FLOPs, 143.104 us = 143; ar2
 * after the rest of the MLP's backward, res1_ln2 after both.  The rank's
 * FLOPs are unchanged; with SP the reductions are reduce-scatters.
 *
 * plan.grad_acc_fusion, TP 1: the layers' accumulation keeps the norms'
 * and biases' 13 h = 26,624 parameters at 10 bytes (266,240 B); the
 * embedding's 20,578,304 parameters at 10 bytes = 205,783,040 B = 126.154
 * us = 126; the output layer's accumulation is gone: bwd.logits = two GEMMs
 * 2 x 278.443 + the cross entropy 140.618 = 697.503 us = 698; the
 * optimizer 50 (not 54) bytes x 222,015,488 parameters = 6805.28 us = 6805
 * (its tensor_size still 54 per parameter); gradients in memory fp32:
 * 4 x 222,015,488 bytes. */
typedef struct node_rec {
    char name[24];
    uint64_t id, dur, ops, size, dep[4];
    int ndep, type, ctype;
} node_rec;
typedef struct node_log {
    node_rec n[512];
    int count;
} node_log;

static int node_capture(void *ud, const ChakraProtoMsg__Node *n, cs_error *err) {
    (void)err;
    node_log *L = ud;
    if (L->count >= 512) return CS_OK;
    node_rec *r = &L->n[L->count++];
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", n->name ? n->name : "");
    r->id = n->id;
    r->dur = n->duration_micros;
    r->type = (int)n->type;
    r->ndep = (int)(n->n_data_deps < 4 ? n->n_data_deps : 4);
    for (int i = 0; i < r->ndep; i++) r->dep[i] = n->data_deps[i];
    r->ctype = -1;
    for (size_t i = 0; i < n->n_attr; i++) {
        if (strcmp(n->attr[i]->name, "num_ops") == 0) r->ops = n->attr[i]->uint64_val;
        if (strcmp(n->attr[i]->name, "tensor_size") == 0) r->size = n->attr[i]->uint64_val;
        if (strcmp(n->attr[i]->name, "comm_type") == 0) r->ctype = (int)n->attr[i]->int64_val;
    }
    return CS_OK;
}
static const node_rec *node_named(const node_log *L, const char *name) {
    for (int i = 0; i < L->count; i++)
        if (strcmp(L->n[i].name, name) == 0) return &L->n[i];
    fail_msg("no node %s", name);
    return NULL;
}
static int node_deps_on(const node_rec *r, uint64_t id) {
    for (int i = 0; i < r->ndep; i++)
        if (r->dep[i] == id) return 1;
    return 0;
}
static uint64_t node_ops(const node_log *L) {
    uint64_t s = 0;
    for (int i = 0; i < L->count; i++) s += L->n[i].ops;
    return s;
}

static void test_megatron_2022(void **state) {
    (void)state;
    cs_gen_model m = kernel_model();
    cs_gen_plan p;
    cs_gen_plan_defaults(&p);
    p.global_batch = 1;
    p.tp = 2;
    const cs_device *d = cs_device_find("A100-80GB");
    cs_error err;
    cs_error_clear(&err);
    static node_log a, b;
    memset(&a, 0, sizeof a);
    assert_int_equal(cs_gen_rank(&m, &p, d, 1, node_capture, &a, NULL, &err), CS_OK);
    assert_int_equal(node_named(&a, "bwd.L3.qkv")->dur, 215);
    p.async_tp = 1;
    assert_int_equal(cs_gen_plan_check(&m, &p, &err), CS_OK);
    memset(&b, 0, sizeof b);
    assert_int_equal(cs_gen_rank(&m, &p, d, 1, node_capture, &b, NULL, &err), CS_OK);
    assert_int_equal(b.count, a.count + 2 * 4 + 1); /* two wgrad nodes per layer, the output layer's */
    assert_true(node_ops(&a) == node_ops(&b));
    for (int l = 0; l < 4; l++) {
        char n1[24], n2[24], n3[24], n4[24];
        snprintf(n1, sizeof n1, "bwd.L%d.qkv", l);
        snprintf(n2, sizeof n2, "bwd.L%d.ar1", l);
        snprintf(n3, sizeof n3, "bwd.L%d.qkv_wgrad", l);
        snprintf(n4, sizeof n4, "bwd.L%d.ln1", l);
        const node_rec *dg = node_named(&b, n1), *ar = node_named(&b, n2), *wg = node_named(&b, n3),
                       *nx = node_named(&b, n4);
        assert_int_equal(dg->dur, 108);
        assert_int_equal(wg->dur, 108);
        assert_true(dg->ops == 25769803776ull && wg->ops == 25769803776ull);
        assert_true(dg->size == 33554432ull && wg->size == 33554432ull); /* 2 (sb h + h q + sb q) each */
        assert_int_equal(ar->ctype, CS_COLL_ALL_REDUCE);
        assert_true(ar->ndep == 1 && ar->dep[0] == dg->id);
        assert_true(wg->ndep == 1 && wg->dep[0] == dg->id);
        assert_true(nx->ndep == 2 && node_deps_on(nx, wg->id) && node_deps_on(nx, ar->id));
        snprintf(n1, sizeof n1, "bwd.L%d.mlp", l);
        snprintf(n2, sizeof n2, "bwd.L%d.ar2", l);
        snprintf(n3, sizeof n3, "bwd.L%d.mlp_wgrad", l);
        snprintf(n4, sizeof n4, "bwd.L%d.res1_ln2", l);
        dg = node_named(&b, n1);
        ar = node_named(&b, n2);
        wg = node_named(&b, n3);
        nx = node_named(&b, n4);
        assert_int_equal(wg->dur, 143);
        assert_true(wg->ops == 34359738368ull);
        /* wgrad 2 (h f + sb h) = 25,165,824 B; the rest of 4 (2 h f + 2 sb h) = 100,663,296 */
        assert_true(wg->size == 25165824ull && dg->size == 75497472ull);
        assert_true(ar->ndep == 1 && ar->dep[0] == dg->id);
        assert_true(wg->ndep == 1 && wg->dep[0] == dg->id);
        assert_true(nx->ndep == 2 && node_deps_on(nx, wg->id) && node_deps_on(nx, ar->id));
    }
    /* the output layer (column-parallel, V / t = 4000 columns): the cross entropy's backward (14 x
     * 2048 x 4000 B, 70.309 us) and the dgrad (GEMM 2048 x 4000 x 2048, 139.776 us) = 210.085 us, the
     * reduction beside the wgrad (139.776 us) and the accumulation (6 x 4000 x 2048 B, 30.132 us) =
     * 169.908 us; bwd.final_ln after both */
    {
        const node_rec *dg = node_named(&b, "bwd.logits"), *ar = node_named(&b, "bwd.logits.ar"),
                       *wg = node_named(&b, "bwd.logits_wgrad"), *nx = node_named(&b, "bwd.final_ln");
        assert_int_equal(dg->dur, 210);
        assert_int_equal(wg->dur, 170);
        assert_true(ar->ndep == 1 && ar->dep[0] == dg->id && wg->ndep == 1 && wg->dep[0] == dg->id);
        assert_true(nx->ndep == 2 && node_deps_on(nx, wg->id) && node_deps_on(nx, ar->id));
    }
    p.sp = 1;
    memset(&b, 0, sizeof b);
    assert_int_equal(cs_gen_rank(&m, &p, d, 1, node_capture, &b, NULL, &err), CS_OK);
    assert_int_equal(node_named(&b, "bwd.L2.ar1")->ctype, CS_COLL_REDUCE_SCATTER);
    assert_int_equal(node_named(&b, "bwd.L2.ar2")->ctype, CS_COLL_REDUCE_SCATTER);
    /* TP 1: nothing to overlap, the same graph */
    p.sp = 0;
    p.tp = 1;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    assert_int_equal(cs_gen_rank(&m, &p, d, 0, node_capture, &b, NULL, &err), CS_OK);
    p.async_tp = 0;
    assert_int_equal(cs_gen_rank(&m, &p, d, 0, node_capture, &a, NULL, &err), CS_OK);
    assert_int_equal(a.count, b.count);
    for (int i = 0; i < a.count; i++) assert_true(a.n[i].dur == b.n[i].dur && strcmp(a.n[i].name, b.n[i].name) == 0);

    /* gradient-accumulation fusion */
    p.grad_acc_fusion = 1;
    assert_int_equal(cs_gen_plan_check(&m, &p, &err), CS_OK);
    memset(&b, 0, sizeof b);
    assert_int_equal(cs_gen_rank(&m, &p, d, 0, node_capture, &b, NULL, &err), CS_OK);
    assert_int_equal(b.count, a.count);
    assert_true(node_named(&b, "bwd.L3.grad_acc")->size == 266240);
    assert_true(node_named(&b, "bwd.L0.grad_acc")->size == 266240);
    assert_int_equal(node_named(&b, "bwd.embed.grad_acc")->dur, 126);
    assert_int_equal(node_named(&b, "bwd.logits")->dur, 698);
    assert_int_equal(node_named(&b, "logits")->dur, 660);
    assert_int_equal(node_named(&b, "optimizer")->dur, 6805);
    assert_true(node_named(&b, "optimizer")->size == 54ull * 222015488ull);
    cs_gen_memory mem;
    cs_gen_memory_stage(&m, &p, 0, &mem);
    assert_true(mem.grads == 4.0 * 222015488.0);
    /* refused where Megatron-LM's buffer is not the gradients' home, and for other families */
    for (int z = 2; z <= 3; z++) {
        p.zero = z;
        cs_error_clear(&err);
        assert_int_equal(cs_gen_plan_check(&m, &p, &err), CS_EINVAL);
        tu_assert_has(err.msg, "plan.gradient-accumulation-fusion: Megatron-LM's fusion adds into its own fp32");
    }
    p.zero = 3;
    p.dp = 2;
    p.global_batch = 2;
    p.fsdp_strategy = CS_FSDP_FULL_SHARD;
    cs_error_clear(&err);
    assert_int_equal(cs_gen_plan_check(&m, &p, &err), CS_EINVAL);
    tu_assert_has(err.msg, "plan.gradient-accumulation-fusion: Megatron-LM's fusion adds into its own fp32");
    p.fsdp_strategy = CS_FSDP_NONE;
    p.dp = 1;
    p.global_batch = 1;
    p.zero = 0;
    cs_gen_model r50 = *cs_gen_model_preset("resnet50");
    cs_gen_plan q;
    cs_gen_plan_defaults(&q);
    q.async_tp = 1;
    cs_error_clear(&err);
    assert_int_equal(cs_gen_plan_check(&r50, &q, &err), CS_EINVAL);
    tu_assert_has(err.msg, "plan.async-tensor-model-parallel-allreduce: Megatron-LM's linear layers are modelled "
                           "for transformers; model resnet50 is of the resnet50 family");
}

/* More of Megatron-LM's 2022 backward, the same model with other shapes:
 * - SwiGLU, TP 2, async: the MLP's first layer is two matrices (gate and
 *   up, 4096 columns each per rank): its wgrad 2 x 143.104 = 286.208 us =
 *   286, 2 x 2 x 2048 x 2048 x 4096 = 68,719,476,736 FLOPs.
 * - MoE (4 experts of ffn 8192, top-2), TP 2, EP 2, async: the QKV splits,
 *   the experts' backward keeps its blocking all-reduce (ar2 on the chain,
 *   res1_ln2 after it alone).
 * - The same MoE with the fusion: the hook keeps the norms' 4h, the QKV's
 *   and projection's biases 4h, the router's h E = 4h (dense: 12 h =
 *   24,576, over t = 2) and the experts' biases E (f + h) = 40,960 (over
 *   ep t = 4): 10 x (12,288 + 10,240) = 225,280 B.
 * - Llama-style (no biases, RMSNorm, SwiGLU) with the fusion: the hook
 *   keeps the two norms' 2h = 4,096 parameters, over t: 10 x 4,096 =
 *   40,960 B at TP 1, 20,480 at TP 2. */
static void test_megatron_2022_shapes(void **state) {
    (void)state;
    cs_gen_model m = kernel_model();
    cs_gen_plan p;
    cs_gen_plan_defaults(&p);
    p.global_batch = 1;
    p.tp = 2;
    p.async_tp = 1;
    const cs_device *d = cs_device_find("A100-80GB");
    cs_error err;
    cs_error_clear(&err);
    static node_log b;
    cs_gen_model sw = m;
    sw.u.tf.swiglu = 1;
    memset(&b, 0, sizeof b);
    assert_int_equal(cs_gen_rank(&sw, &p, d, 0, node_capture, &b, NULL, &err), CS_OK);
    assert_int_equal(node_named(&b, "bwd.L1.mlp_wgrad")->dur, 286);
    assert_true(node_named(&b, "bwd.L1.mlp_wgrad")->ops == 68719476736ull);

    cs_gen_model moe = m;
    moe.u.tf.experts = 4;
    moe.u.tf.top_k = 2;
    p.ep = 2;
    p.dp = 2;
    p.global_batch = 2;
    assert_int_equal(cs_gen_plan_check(&moe, &p, &err), CS_OK);
    memset(&b, 0, sizeof b);
    assert_int_equal(cs_gen_rank(&moe, &p, d, 0, node_capture, &b, NULL, &err), CS_OK);
    const node_rec *ar1 = node_named(&b, "bwd.L2.ar1"), *qw = node_named(&b, "bwd.L2.qkv_wgrad");
    assert_true(ar1->ndep == 1 && qw->ndep == 1 && ar1->dep[0] == qw->dep[0]);
    const node_rec *ar2 = node_named(&b, "bwd.L2.ar2"), *nx = node_named(&b, "bwd.L2.res1_ln2");
    assert_true(nx->ndep == 1 && nx->dep[0] == ar2->id); /* blocking */
    for (int i = 0; i < b.count; i++) assert_null(strstr(b.n[i].name, "mlp_wgrad"));
    p.async_tp = 0;
    p.grad_acc_fusion = 1;
    memset(&b, 0, sizeof b);
    assert_int_equal(cs_gen_rank(&moe, &p, d, 0, node_capture, &b, NULL, &err), CS_OK);
    assert_true(node_named(&b, "bwd.L2.grad_acc")->size == 225280ull);

    cs_gen_model ll = m;
    ll.u.tf.bias = 0;
    ll.u.tf.swiglu = 1;
    ll.u.tf.tied_embeddings = 0;
    p.ep = 1;
    p.dp = 1;
    p.global_batch = 1;
    memset(&b, 0, sizeof b);
    assert_int_equal(cs_gen_rank(&ll, &p, d, 0, node_capture, &b, NULL, &err), CS_OK);
    assert_true(node_named(&b, "bwd.L0.grad_acc")->size == 20480ull);
    p.tp = 1;
    memset(&b, 0, sizeof b);
    assert_int_equal(cs_gen_rank(&ll, &p, d, 0, node_capture, &b, NULL, &err), CS_OK);
    assert_true(node_named(&b, "bwd.L0.grad_acc")->size == 40960ull);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flops_closed_form), cmocka_unit_test(test_tp_bytes),
        cmocka_unit_test(test_memory_175b),       cmocka_unit_test(test_refuse_oom),
        cmocka_unit_test(test_et_roundtrip),      cmocka_unit_test(test_comm_groups),
        cmocka_unit_test(test_devices_and_models), cmocka_unit_test(test_moe),
        cmocka_unit_test(test_zero_comm),         cmocka_unit_test(test_resnet50), cmocka_unit_test(test_dlrm), cmocka_unit_test(test_placement), cmocka_unit_test(test_interleaved), cmocka_unit_test(test_serving_steps),
        cmocka_unit_test(test_context_parallel), cmocka_unit_test(test_grad_no_overlap), cmocka_unit_test(test_flash), cmocka_unit_test(test_flash_causal), cmocka_unit_test(test_cp_placement), cmocka_unit_test(test_layout), cmocka_unit_test(test_sharding_frameworks), cmocka_unit_test(test_hsdp), cmocka_unit_test(test_fsdp_interleaved), cmocka_unit_test(test_kernel_overhead), cmocka_unit_test(test_framework_kernels), cmocka_unit_test(test_megatron_2022), cmocka_unit_test(test_megatron_2022_shapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
