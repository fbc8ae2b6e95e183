/*
 * gen_pipeline.c -- writes examples/pipeline: a GPipe pipeline-parallel
 * training step over 4 stages with 8 micro-batches.
 *
 * Each stage holds a quarter of the layers.  Forward: stage s receives the
 * micro-batch's activations from stage s-1, computes, and sends its output to
 * stage s+1.  Backward (after the last forward), in reverse micro-batch order:
 * receive the gradient from stage s+1, compute, send the gradient to s-1.
 * Activations/gradients: micro-batch 1 x sequence 2048 x hidden 4096 x 2 bytes
 * (BF16) = 16 MiB.  Forward 1,000 us and backward 2,000 us per micro-batch per
 * stage (a backward pass costs about twice the forward).
 *
 *   usage: cs_example_pipeline OUTDIR     (writes OUTDIR/pipeline.<stage>.et)
 */
#include <stdio.h>

#include "workload/et.h"

#define STAGES 4
#define MICRO 8
#define ACT_BYTES (16u << 20)
#define FWD_US 1000
#define BWD_US 2000

static int emit(cs_et_writer *w, cs_et_nb *b, cs_error *err) {
    int rc = cs_et_writer_write(w, cs_et_nb_node(b), err);
    cs_et_nb_free(b);
    return rc;
}

static cs_et_nb *p2p(uint64_t id, const char *name, int type, int src, int dst, int tag) {
    cs_et_nb *b = cs_et_nb_new(id, name, type);
    cs_et_nb_attr_bool(b, "is_cpu_op", 0);
    cs_et_nb_attr_int32(b, "comm_src", src);
    cs_et_nb_attr_int32(b, "comm_dst", dst);
    cs_et_nb_attr_int32(b, "comm_tag", tag);
    cs_et_nb_attr_int64(b, "comm_size", ACT_BYTES);
    return b;
}

static int write_stage(const char *dir, int s, cs_error *err) {
    char path[4096], name[64];
    snprintf(path, sizeof path, "%s/pipeline.%d.et", dir, s);
    cs_et_writer *w = NULL;
    int rc = cs_et_writer_open(path, 0, NULL, &w, err);
    if (rc) return rc;
    uint64_t id = 1, prev_compute = 0;
    /* forward */
    for (int m = 0; m < MICRO && !rc; m++) {
        uint64_t recv = 0;
        if (s > 0) {
            snprintf(name, sizeof name, "recv_act_mb%d", m);
            recv = id++;
            rc = emit(w, p2p(recv, name, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE, s - 1, s, m), err);
        }
        snprintf(name, sizeof name, "fwd_mb%d", m);
        uint64_t f = id++;
        cs_et_nb *b = cs_et_nb_new(f, name, CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE);
        cs_et_nb_attr_bool(b, "is_cpu_op", 0);
        cs_et_nb_duration_us(b, FWD_US);
        if (recv) cs_et_nb_data_dep(b, recv);
        if (prev_compute) cs_et_nb_data_dep(b, prev_compute);
        if (!rc) rc = emit(w, b, err); else cs_et_nb_free(b);
        prev_compute = f;
        if (s < STAGES - 1 && !rc) {
            snprintf(name, sizeof name, "send_act_mb%d", m);
            cs_et_nb *sb = p2p(id++, name, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE, s, s + 1, m);
            cs_et_nb_data_dep(sb, f);
            rc = emit(w, sb, err);
        }
    }
    /* backward, last micro-batch first */
    for (int m = MICRO - 1; m >= 0 && !rc; m--) {
        uint64_t recv = 0;
        if (s < STAGES - 1) {
            snprintf(name, sizeof name, "recv_grad_mb%d", m);
            recv = id++;
            rc = emit(w, p2p(recv, name, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE, s + 1, s, 100 + m), err);
        }
        snprintf(name, sizeof name, "bwd_mb%d", m);
        uint64_t bw = id++;
        cs_et_nb *b = cs_et_nb_new(bw, name, CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE);
        cs_et_nb_attr_bool(b, "is_cpu_op", 0);
        cs_et_nb_duration_us(b, BWD_US);
        if (recv) cs_et_nb_data_dep(b, recv);
        cs_et_nb_data_dep(b, prev_compute);
        if (!rc) rc = emit(w, b, err); else cs_et_nb_free(b);
        prev_compute = bw;
        if (s > 0 && !rc) {
            snprintf(name, sizeof name, "send_grad_mb%d", m);
            cs_et_nb *sb = p2p(id++, name, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE, s, s - 1, 100 + m);
            cs_et_nb_data_dep(sb, bw);
            rc = emit(w, sb, err);
        }
    }
    int rc2 = cs_et_writer_close(w, rc ? NULL : err);
    return rc ? rc : rc2;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    cs_error err;
    cs_error_clear(&err);
    for (int s = 0; s < STAGES; s++)
        if (write_stage(argv[1], s, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
    return 0;
}
