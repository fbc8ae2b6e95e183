/*
 * gen_custom_collective.c -- writes examples/custom_collective: a custom
 * all-reduce (ASTRA-sim's *-implementation-custom) given as Chakra ET graphs
 * of sends and receives, and the training step that uses it.
 *
 * The algorithm is a bidirectional ring all-reduce over 8 NPUs (as NCCL runs
 * rings in both directions): the buffer's two halves are all-reduced by two
 * rings at once, one clockwise (rank r sends to r+1), one anticlockwise
 * (r sends to r-1).  Each ring is a reduce-scatter then an all-gather: 2(n-1)
 * = 14 steps, each moving one chunk of half / n = 8 MiB / 16 = 512 KiB to the
 * ring's next rank; step k+1's send waits for step k's receive (the chunk
 * that just arrived is reduced, or copied, and passed on).  Tags: k for the
 * clockwise ring, 100 + k for the anticlockwise one.  No COMP nodes: the
 * reductions are not timed (docs/examples.md says what that leaves out).
 *
 * The step (step.et, every rank): 1,000 us of compute, the all-reduce of
 * 8 MiB, 1,000 us of compute.
 *
 *   usage: cs_example_custom_collective OUTDIR
 *          (writes OUTDIR/bidir_ring.<rank>.et and OUTDIR/step.et)
 */
#include <stdio.h>

#include "workload/et.h"

#define NPUS 8
#define ALLREDUCE_BYTES (8u << 20)
#define CHUNK_BYTES (ALLREDUCE_BYTES / 2 / NPUS) /* 512 KiB */
#define STEPS (2 * (NPUS - 1))
#define COMPUTE_US 1000

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
    cs_et_nb_attr_int64(b, "comm_size", CHUNK_BYTES);
    return b;
}

/* Rank r's graph: per ring, step k = a send to the next rank (after step
 * k-1's receive) and a receive from the previous one. */
static int write_rank(const char *dir, int r, cs_error *err) {
    char path[4096], name[64];
    snprintf(path, sizeof path, "%s/bidir_ring.%d.et", dir, r);
    cs_et_writer *w = NULL;
    int rc = cs_et_writer_open(path, 0, NULL, &w, err);
    if (rc) return rc;
    uint64_t id = 1;
    for (int dir_i = 0; dir_i < 2 && !rc; dir_i++) {
        int next = dir_i == 0 ? (r + 1) % NPUS : (r + NPUS - 1) % NPUS;
        int prev = dir_i == 0 ? (r + NPUS - 1) % NPUS : (r + 1) % NPUS;
        const char *ring = dir_i == 0 ? "cw" : "ccw";
        uint64_t last_recv = 0;
        for (int k = 0; k < STEPS && !rc; k++) {
            int tag = dir_i * 100 + k;
            snprintf(name, sizeof name, "%s_send_step%d", ring, k);
            cs_et_nb *s = p2p(id++, name, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE, r, next, tag);
            if (last_recv) cs_et_nb_data_dep(s, last_recv);
            rc = emit(w, s, err);
            if (rc) break;
            snprintf(name, sizeof name, "%s_recv_step%d", ring, k);
            last_recv = id++;
            rc = emit(w, p2p(last_recv, name, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE, prev, r, tag), err);
        }
    }
    int rc2 = cs_et_writer_close(w, rc ? NULL : err);
    return rc ? rc : rc2;
}

static cs_et_nb *comp(uint64_t id, const char *name, uint64_t parent) {
    cs_et_nb *b = cs_et_nb_new(id, name, CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE);
    cs_et_nb_attr_bool(b, "is_cpu_op", 0);
    cs_et_nb_duration_us(b, COMPUTE_US);
    if (parent) cs_et_nb_data_dep(b, parent);
    return b;
}

static int write_step(const char *dir, cs_error *err) {
    char path[4096];
    snprintf(path, sizeof path, "%s/step.et", dir);
    cs_et_writer *w = NULL;
    int rc = cs_et_writer_open(path, 0, NULL, &w, err);
    if (rc) return rc;
    rc = emit(w, comp(1, "backward", 0), err);
    if (!rc) {
        cs_et_nb *b = cs_et_nb_new(2, "all_reduce_gradients", CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE);
        cs_et_nb_attr_bool(b, "is_cpu_op", 0);
        cs_et_nb_attr_int64(b, "comm_type", CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_REDUCE);
        cs_et_nb_attr_int64(b, "comm_size", ALLREDUCE_BYTES);
        cs_et_nb_data_dep(b, 1);
        rc = emit(w, b, err);
    }
    if (!rc) rc = emit(w, comp(3, "optimizer", 2), err);
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
    int rc = write_step(argv[1], &err);
    for (int r = 0; r < NPUS && !rc; r++) rc = write_rank(argv[1], r, &err);
    if (rc) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    return 0;
}
