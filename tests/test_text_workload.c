/*
 * test_text_workload.c -- the ASTRA-sim 1.0 / SimAI text workload reader
 * (src/workload/text_workload.c): the nodes each policy issues and their
 * order (SimAI's Workload.cc loops, worked out by hand below), the TP / DP /
 * EP / DP_EP groups (MockNcclGroup's enumeration, written out by hand), the
 * sharing of one node array between ranks, and every refusal with its
 * file:line and field.  Timing through the simulator is in
 * tests/cli_text_workload.sh.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"
#include "workload/text_workload.h"

typedef struct loaded {
    cs_workload w;
    cs_comm_groups g;
    cs_text_workload_info info;
    cs_error err;
    int rc;
} loaded;

static void load(loaded *L, const char *text, uint32_t nranks) {
    cs_error_clear(&L->err);
    L->rc = cs_text_workload_load_mem(text, strlen(text), "t.txt", nranks, &L->w, &L->g, &L->info, &L->err);
    if (L->rc) fprintf(stderr, "(expected?) %s\n", L->err.msg);
}
static void unload(loaded *L) {
    cs_workload_free(&L->w);
    cs_comm_groups_free(&L->g);
}

static void expect_error(const char *text, uint32_t nranks, int code, const char *want1, const char *want2);
#define LAYER "l -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 1\n"

/* "TYPE:size:pg" or "Cns" per node of a graph, in id order, ';'-joined,
 * with each node's parent ids ("<-a,b") when it has some. */
static void shape(const cs_graph *g, char *out, size_t n) {
    out[0] = 0;
    for (uint32_t i = 0; i < g->nnodes; i++) {
        const cs_node *x = &g->nodes[i];
        char one[160];
        if (x->type == CS_NODE_COMP)
            snprintf(one, sizeof one, "C%" PRIu64, x->duration_us);
        else if (x->type == CS_NODE_METADATA)
            snprintf(one, sizeof one, "WAIT");
        else
            snprintf(one, sizeof one, "%s:%" PRIu64 ":%s", cs_coll_type_label(x->comm_type), x->comm_size,
                     g->pg_names[x->pg][0] ? g->pg_names[x->pg] : "all");
        int np = 0;
        for (uint32_t p = 0; p < i; p++) /* parents have smaller ids; ascending */
            for (uint32_t c = g->nodes[p].child_begin; c < cs_graph_child_end(g, p); c++)
                if (g->children[c] == i) {
                    size_t l = strlen(one);
                    snprintf(one + l, sizeof one - l, "%s%u", np++ ? "," : "<-", p);
                }
        assert_int_equal(np, (int)x->nparents);
        size_t l = strlen(out);
        snprintf(out + l, n - l, "%s%s", l ? ";" : "", one);
    }
}

/* The group's ranks as "a,b,c". */
static const char *members(const cs_comm_groups *G, const char *name, char *buf, size_t n) {
    const cs_comm_group *g = cs_comm_groups_find(G, name);
    buf[0] = 0;
    if (!g) return "(none)";
    for (uint32_t i = 0; i < g->nranks; i++) {
        size_t l = strlen(buf);
        snprintf(buf + l, n - l, "%s%u", i ? "," : "", g->ranks[i]);
    }
    return buf;
}

/* DATA, iterate_data_parallel: forward computes 0..n-1; then from the last
 * layer: wg compute, wg all-reduce (hangs off the chain), ig compute -- but
 * no ig compute for layer 0.  Two layers F = 10, 20; IG = 30, 40;
 * WG = 50, 60; all-reduces of 100 and 200 bytes:
 *   C10; C20<-0; C60<-1; AR200<-2; C40<-2; C50<-4; AR100<-5. */
static void test_data_order(void **state) {
    (void)state;
    loaded L;
    load(&L, "DATA\n2\nl0 -1 10 NONE 0 30 NONE 0 50 ALLREDUCE 100 1\n"
             "l1 -1 20 NONE 0 40 NONE 0 60 ALLREDUCE 200 1\n", 4);
    assert_int_equal(L.rc, 0);
    assert_int_equal(L.w.nranks, 4);
    assert_int_equal(L.w.ngraphs, 1); /* one group, all ranks: one graph */
    assert_int_equal(L.g.ngroups, 0);
    char s[512];
    shape(L.w.rank_graph[3], s, sizeof s);
    assert_string_equal(s, "C10;C20<-0;C60<-1;ALL_REDUCE:200:all<-2;C40<-2;C50<-4;ALL_REDUCE:100:all<-5");
    assert_string_equal(L.info.policy, "DATA");
    assert_int_equal(L.info.layers, 2);
    unload(&L);
}

/* HYBRID_TRANSFORMER, TP 2 x DP 2 on 4 ranks: forward compute + TP
 * all-reduce (blocking), backward per layer ig compute, ig comm, wg compute,
 * wg comm (not waited for).  TP groups {0,1}, {2,3} (ids 1, 2), DP groups
 * {0,2}, {1,3} (ids 3, 4): MockNcclGroup numbers TP groups i*tp + j, DP
 * groups i + j*tp.  Rank 3: TP "2", DP "4". */
static void test_transformer_groups(void **state) {
    (void)state;
    loaded L;
    load(&L, "HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 1 pp: 1 vpp: 1 ga: 1 all_gpus: 4 "
             "checkpoints: 0 checkpoint_initiates: 0\n1\n"
             "l0 -1 1000 ALLREDUCE 64 2000 ALLGATHER 32 3000 REDUCESCATTER 16 100\n", 4);
    assert_int_equal(L.rc, 0);
    char s[512], b[64];
    shape(L.w.rank_graph[3], s, sizeof s);
    assert_string_equal(s, "C1000;ALL_REDUCE:64:2<-0;C2000<-1;ALL_GATHER:32:2<-2;C3000<-3;REDUCE_SCATTER:16:4<-4");
    shape(L.w.rank_graph[0], s, sizeof s);
    assert_string_equal(s, "C1000;ALL_REDUCE:64:1<-0;C2000<-1;ALL_GATHER:32:1<-2;C3000<-3;REDUCE_SCATTER:16:3<-4");
    assert_int_equal(L.g.ngroups, 4);
    assert_string_equal(members(&L.g, "1", b, sizeof b), "0,1");
    assert_string_equal(members(&L.g, "2", b, sizeof b), "2,3");
    assert_string_equal(members(&L.g, "3", b, sizeof b), "0,2");
    assert_string_equal(members(&L.g, "4", b, sizeof b), "1,3");
    /* four group assignments, four graphs, one node array */
    assert_int_equal(L.w.ngraphs, 4);
    for (uint32_t r = 1; r < 4; r++) assert_ptr_equal(L.w.rank_graph[r]->nodes, L.w.rank_graph[0]->nodes);
    assert_int_equal(L.info.tp, 2);
    assert_int_equal(L.info.dp, 2);
    unload(&L);
}

/* 16 ranks, TP 2, DP 8, EP 2 (so DP_EP 4).  By MockNcclGroup's loops, for
 * rank 5 (TP group 2, position 1):
 *   TP    {4,5}                       (consecutive)
 *   DP    {1,3,5,...,15}              (position 1 of every TP group)
 *   EP    TP groups 2,3 -> {5,7}      (ep consecutive TP groups)
 *   DP_EP TP groups 0,2,4,6 -> {1,5,9,13}  (g mod ep, stride ep)
 * Ranks with equal (TP, DP, EP, DP_EP) groups share a view: here every
 * rank differs (its TP group and position say who it is).  TP all-to-all
 * on the forward, EP on the input gradient, DP_EP on the weight gradient. */
static void test_expert_groups(void **state) {
    (void)state;
    loaded L;
    load(&L, "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 2 pp: 1 all_gpus: 16\n2\n"
             "moe -1 1 ALLTOALL 8192 1 ALLTOALL_EP 8192 1 ALLGATHER_DP_EP 8192 1\n"
             "dense -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 4096 1\n", 16);
    assert_int_equal(L.rc, 0);
    const cs_graph *g = L.w.rank_graph[5];
    char b[128];
    int seen = 0;
    for (uint32_t i = 0; i < g->nnodes; i++) {
        const cs_node *x = &g->nodes[i];
        if (x->type != CS_NODE_COMM_COLL) continue;
        const char *m = members(&L.g, g->pg_names[x->pg], b, sizeof b);
        if (x->comm_type == CS_COLL_ALL_TO_ALL && strstr(cs_graph_node_name(g, x), "fwd")) {
            assert_string_equal(m, "4,5"), seen |= 1;
        } else if (x->comm_type == CS_COLL_ALL_TO_ALL) {
            assert_string_equal(m, "5,7"), seen |= 2;
        } else if (x->comm_type == CS_COLL_ALL_GATHER) {
            assert_string_equal(m, "1,5,9,13"), seen |= 4;
        } else if (x->comm_type == CS_COLL_ALL_REDUCE) {
            assert_string_equal(m, "1,3,5,7,9,11,13,15"), seen |= 8;
        }
    }
    assert_int_equal(seen, 15);
    /* 8 TP + 2 DP + 8 EP + 4 DP_EP groups */
    assert_int_equal(L.g.ngroups, 8 + 2 + 8 + 4);
    assert_int_equal(L.w.ngraphs, 16);
    unload(&L);
}

/* Sharing: TP of all ranks (model_parallel_NPU_group = all_gpus) makes the
 * TP group "all ranks" and DP groups of one rank, which issue nothing: one
 * graph for every rank, no groups.  FWD_IN_BCKWD raises a forward
 * collective below 4096 bytes to 4096 (Workload.cc); BROADCAST is no
 * collective; a 0 ns compute is no node. */
static void test_all_tp_and_quirks(void **state) {
    (void)state;
    loaded L;
    load(&L, "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 ep: 1 pp: 1 vpp: 8 ga: 1 all_gpus: 8 "
             "checkpoints: 0 checkpoint_initiates: 0\n2\n"
             "a -1 5 ALLREDUCE 100 0 BROADCAST 16 7 ALLREDUCE 999 1\n\n"
             "b -1 6 ALLREDUCE 5000 0 NONE 0 0 NONE 0 1\n", 8);
    assert_int_equal(L.rc, 0);
    assert_int_equal(L.w.ngraphs, 1);
    assert_int_equal(L.g.ngroups, 0);
    char s[512];
    shape(L.w.rank_graph[7], s, sizeof s);
    /* fwd a: C5, AR 4096; fwd b: C6, AR 5000; bwd b: nothing; bwd a: ig 0 (none), BROADCAST (none),
     * wg C7, its all-reduce over DP = 1 rank: none */
    assert_string_equal(s, "C5;ALL_REDUCE:4096:all<-0;C6<-1;ALL_REDUCE:5000:all<-2;C7<-3");
    assert_int_equal(L.info.nodes, 5);
    unload(&L);
}

/* MODEL, iterate_model_parallel: forward compute + blocking all-ranks
 * collective per layer; backward from the last layer: ig compute, its
 * collective (not for layer 0) running during the wg compute, then the loop
 * waits for it (a WAIT node, no time); weight-gradient collectives are
 * never issued.  F = 10, 20; IG = 30, 40; WG = 50, 60; all-gathers of 100,
 * 200 forward, all-reduces of 300, 400 backward:
 *   0 C10; 1 AG100<-0; 2 C20<-1; 3 AG200<-2; 4 C40<-3; 5 AR400<-4;
 *   6 C60<-4; 7 WAIT<-5,6; 8 C30<-7; 9 C50<-8   (AR300 of layer 0: not issued) */
static void test_model(void **state) {
    (void)state;
    loaded L;
    load(&L, "MODEL\n2\nl0 -1 10 ALLGATHER 100 30 ALLREDUCE 300 50 NONE 0 1\n"
             "l1 -1 20 ALLGATHER 200 40 ALLREDUCE 400 60 ALLREDUCE 9 1\n", 4);
    assert_int_equal(L.rc, 0);
    char s[512];
    shape(L.w.rank_graph[2], s, sizeof s);
    assert_string_equal(s, "C10;ALL_GATHER:100:all<-0;C20<-1;ALL_GATHER:200:all<-2;C40<-3;ALL_REDUCE:400:all<-4;"
                           "C60<-4;WAIT<-5,6;C30<-7;C50<-8");
    unload(&L);
    /* layers without compute: each ig all-reduce is issued after the one before it has finished */
    load(&L, "MODEL\n4\na -1 1 NONE 0 0 ALLREDUCE 1 0 NONE 0 1\nb -1 0 NONE 0 0 ALLREDUCE 2 0 NONE 0 1\n"
             "c -1 0 NONE 0 0 ALLREDUCE 3 0 NONE 0 1\nd -1 0 NONE 0 0 ALLREDUCE 4 0 NONE 0 1\n", 4);
    assert_int_equal(L.rc, 0);
    shape(L.w.rank_graph[0], s, sizeof s);
    /* 0 C1; backward d: 1 AR4<-0, 2 WAIT<-0,1; c: 3 AR3<-2, 4 WAIT<-2,3; b: 5 AR2<-4, 6 WAIT<-4,5; a: none */
    assert_string_equal(s, "C1;ALL_REDUCE:4:all<-0;WAIT<-0,1;ALL_REDUCE:3:all<-2;WAIT<-2,3;ALL_REDUCE:2:all<-4;"
                           "WAIT<-4,5");
    unload(&L);
}

/* HYBRID_DLRM (ASTRA-sim 1.0's header: the last bottom-MLP layer after the
 * policy), iterate_hybrid_parallel_DLRM: forward computes; layer 0's
 * all-to-all is not waited for until the last bottom layer (1) is done;
 * backward from the last layer: wg compute, wg all-reduce (not waited
 * for), ig compute (not layer 0); after the ig compute of layer
 * last-bottom + 1, layer 0's input-gradient all-to-all.
 *   0 C10; 1 A2A100<-0; 2 C20<-0; 3 WAIT<-1,2; 4 C25<-3; 5 C65<-4; 6 AR650<-5;
 *   7 C45<-5; 8 A2A300<-7; 9 C60<-7; 10 AR600<-9; 11 C40<-9; 12 C50<-11 */
static void test_dlrm(void **state) {
    (void)state;
    const char *body = "3\nemb -1 10 ALLTOALL 100 30 ALLTOALL 300 50 NONE 0 1\n"
                       "bot -1 20 NONE 0 40 NONE 0 60 ALLREDUCE 600 1\ntop -1 25 NONE 0 45 NONE 0 65 ALLREDUCE 650 1\n";
    const char *want = "C10;ALL_TO_ALL:100:all<-0;C20<-0;WAIT<-1,2;C25<-3;C65<-4;ALL_REDUCE:650:all<-5;C45<-5;"
                       "ALL_TO_ALL:300:all<-7;C60<-7;ALL_REDUCE:600:all<-9;C40<-9;C50<-11";
    static const char *const heads[] = {"HYBRID_DLRM\t1\n", "HYBRID_DLRM DLRM_LAST_BOTTOM_LAYER: 1\n",
                                        "HYBRID_DLRM_ENHANCED 1\n"};
    for (int h = 0; h < 3; h++) {
        char text[512];
        snprintf(text, sizeof text, "%s%s", heads[h], body);
        loaded L;
        load(&L, text, 8);
        assert_int_equal(L.rc, 0);
        char s[512];
        shape(L.w.rank_graph[5], s, sizeof s);
        assert_string_equal(s, want);
        unload(&L);
    }
    expect_error("HYBRID_DLRM\n1\n" LAYER, 4, CS_EFORMAT, "t.txt:1: HYBRID_DLRM: the last bottom-MLP layer is missing",
                 "'DLRM_LAST_BOTTOM_LAYER: N' (SimAI)");
}

/* MICRO: layer 0's weight-gradient collective, once, over all ranks. */
static void test_micro(void **state) {
    (void)state;
    loaded L;
    load(&L, "MICRO\n1\nx -1 5 NONE 0 5 NONE 0 5 ALLGATHER 1024 1\n", 4);
    assert_int_equal(L.rc, 0);
    char s[256];
    shape(L.w.rank_graph[0], s, sizeof s);
    assert_string_equal(s, "ALL_GATHER:1024:all");
    unload(&L);
}

static void expect_error(const char *text, uint32_t nranks, int code, const char *want1, const char *want2) {
    loaded L;
    load(&L, text, nranks);
    assert_int_equal(L.rc, code);
    tu_assert_has(L.err.msg, want1);
    if (want2) tu_assert_has(L.err.msg, want2);
    assert_int_equal(L.w.ngraphs, 0);
    assert_int_equal(L.g.ngroups, 0);
    unload(&L);
}

#define HT "HYBRID_TRANSFORMER model_parallel_NPU_group: 2 all_gpus: 4\n"

/* Bad input: each refused with the file, the line, the field and what was
 * expected. */
static void test_errors(void **state) {
    (void)state;
    expect_error("", 4, CS_EFORMAT, "t.txt:1: parallelism policy: the file is empty", NULL);
    expect_error("DATAX\n1\n" LAYER, 4, CS_EFORMAT, "t.txt:1: parallelism policy 'DATAX': unknown; expected one of DATA",
                 NULL);
    expect_error("HYBRID_CUSTOMIZED\n1\n" LAYER, 4, CS_EUNSUPPORTED, "t.txt:1: parallelism policy HYBRID_CUSTOMIZED: not modelled",
                 "supported: DATA, HYBRID_TRANSFORMER");
    expect_error("HYBRID_TRANSFORMER model_parallel_NPU_group: 2 pp: 2 all_gpus: 4\n1\n" LAYER, 4, CS_EUNSUPPORTED,
                 "t.txt:1: HYBRID_TRANSFORMER pp: 2: pipeline parallelism is not modelled", NULL);
    expect_error("HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 checkpoints: 1 0\n1\n" LAYER, 4,
                 CS_EUNSUPPORTED, "t.txt:1: checkpoints: 1: recomputation", "expected 0");
    expect_error("HYBRID_TRANSFORMER all_gpus: 4\n1\n" LAYER, 4, CS_EFORMAT, "t.txt:1: model_parallel_NPU_group: missing",
                 NULL);
    expect_error("HYBRID_TRANSFORMER model_parallel_NPU_group: 3\n1\n" LAYER, 4, CS_EINVAL,
                 "t.txt:1: model_parallel_NPU_group: 3 does not divide the 4 NPUs", NULL);
    expect_error("HYBRID_TRANSFORMER model_parallel_NPU_group: two\n1\n" LAYER, 4, CS_EFORMAT,
                 "t.txt:1: model_parallel_NPU_group: expected an integer from 1 to", "got 'two'");
    expect_error(HT "1\n" LAYER, 8, CS_EINVAL, "t.txt:1: all_gpus: 4 NPUs, but the network has 8", NULL);
    expect_error(HT "many\n" LAYER, 4, CS_EFORMAT, "t.txt:2: layer count 'many': expected one whole number", NULL);
    expect_error(HT, 4, CS_EFORMAT, "t.txt:2: layer count: the file ends", NULL);
    /* a count far beyond the lines: refused at the end of the text, nothing allocated for it */
    expect_error(HT "4000000000\n" LAYER, 4, CS_EFORMAT,
                 "t.txt:4: layer 1 of 4000000000: the file ends; expected 4000000000 layer lines after line 2", "found 1");
    expect_error(HT "1\nl -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8\n", 4, CS_EFORMAT,
                 "t.txt:3: layer 0 of 1: field 12 (update time (ns)): the line ends after 11 fields", "expected 12");
    expect_error(HT "1\nl -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 1 DATA\n", 4, CS_EFORMAT, "t.txt:3: layer 0 of 1: 13 fields",
                 NULL);
    expect_error(HT "2\n" LAYER "l -1 1 NONE 0 12x NONE 0 1 ALLREDUCE 8 1\n", 4, CS_EFORMAT,
                 "t.txt:4: layer 1: input-grad compute time (ns) '12x': expected a whole number of ns", NULL);
    expect_error(HT "1\nl -1 1 NONE 0 1 NONE 0 1 ALLREDUCE -8 1\n", 4, CS_EFORMAT,
                 "t.txt:3: layer 0: weight-grad comm size (bytes) '-8': expected a whole number of bytes", NULL);
    expect_error(HT "1\nl x 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 1\n", 4, CS_EFORMAT, "t.txt:3: layer 0: dependency 'x'",
                 NULL);
    expect_error(HT "1\nl -1 1 ALLREDUSE 8 1 NONE 0 1 NONE 0 1\n", 4, CS_EFORMAT,
                 "t.txt:3: layer 0: forward comm type 'ALLREDUSE': unknown; expected NONE, ALLREDUCE", NULL);
    expect_error(HT "1\nl -1 1 NONE 0 1 ALLREDUCEALLTOALL 8 1 NONE 0 1\n", 4, CS_EFORMAT,
                 "t.txt:3: layer 0: input-grad comm type 'ALLREDUCEALLTOALL': unknown", NULL);
    expect_error("DATA\n1\nl -1 1 NONE 0 1 NONE 0 1 ALLREDUCE_EP 8 1\n", 4, CS_EUNSUPPORTED,
                 "t.txt:3: layer 0: weight-grad comm type 'ALLREDUCE_EP': DATA has one group", NULL);
    expect_error("DATA\n1\nl -1 0 NONE 0 0 NONE 0 0 NONE 0 0\n", 4, CS_EFORMAT,
                 "t.txt: the 1 layers have no compute time and no collective", NULL);
    expect_error("DATA\n1\nl -1 99999999999999999 NONE 0 1 NONE 0 1 NONE 0 1\n", 4, CS_EFORMAT,
                 "t.txt:3: layer 0: forward compute time (ns) '99999999999999999': expected a whole number of ns from 0 to "
                 "18446744073709551", NULL);
    const char nul[] = "DATA\n1\nl -1 1\0";
    loaded L;
    cs_error_clear(&L.err);
    L.rc = cs_text_workload_load_mem(nul, sizeof nul - 1, "t.txt", 4, &L.w, &L.g, NULL, &L.err);
    assert_int_equal(L.rc, CS_EFORMAT);
    tu_assert_has(L.err.msg, "t.txt:3: a NUL byte");
}

/* Words of the header clustersim does not know are ignored (as SimAI
 * ignores them) with one warning naming the first; a header of more than
 * 4096 words is refused before any of them is stored. */
static void test_header_words(void **state) {
    (void)state;
    tu_capture_warnings();
    loaded L;
    load(&L, "DATA sp: 2 zz\n1\nl -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 1\n", 4);
    assert_int_equal(L.rc, 0);
    tu_assert_has(tu_warnings(), "t.txt:1: 3 words such as 'sp:' are not a setting clustersim knows");
    tu_capture_end();
    unload(&L);
    size_t n = 5 + 2 * 4097 + 64;
    char *big = malloc(n);
    strcpy(big, "DATA");
    for (int i = 0; i < 4097; i++) strcat(big, " x");
    strcat(big, "\n1\nl -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 1\n");
    load(&L, big, 4);
    assert_int_equal(L.rc, CS_EFORMAT);
    tu_assert_has(L.err.msg, "t.txt:1: the header has 4098 words; expected at most 4096");
    unload(&L);
    free(big);
}

/* Detection: by the .txt suffix, or by a first word that is a policy. */
static void test_detect(void **state) {
    (void)state;
    const char *a = tu_write_tmp("wl.txt", "anything\n");
    const char *b = tu_write_tmp("wl_noext", "  HYBRID_TRANSFORMER model_parallel_NPU_group: 2\n1\n");
    const char *c = tu_write_tmp("notwl", "DATAX\n");
    const char *d = tu_write_tmp("notwl2", "DATA");
    assert_int_equal(cs_text_workload_detect(a), 1);
    assert_int_equal(cs_text_workload_detect(b), 1);
    assert_int_equal(cs_text_workload_detect(c), 0);
    assert_int_equal(cs_text_workload_detect(d), 0); /* no whitespace after the word: not a header */
    assert_int_equal(cs_text_workload_detect(tu_tmp_dir()), 0);
    assert_int_equal(cs_text_workload_detect(tu_path(tu_tmp_dir(), "absent.txt")), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_data_order),      cmocka_unit_test(test_transformer_groups),
        cmocka_unit_test(test_expert_groups),   cmocka_unit_test(test_all_tp_and_quirks),
        cmocka_unit_test(test_micro),           cmocka_unit_test(test_errors),
        cmocka_unit_test(test_model),           cmocka_unit_test(test_dlrm),
        cmocka_unit_test(test_detect),          cmocka_unit_test(test_header_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
