/*
 * gen_data_parallel.c -- writes examples/data_parallel/dp.et: one data-parallel
 * training step of an 8-layer model, the same on every rank (one file serves
 * all ranks).
 *
 * Forward: 8 layers of 500 us.  Backward, last layer first: per layer an
 * input-gradient pass (500 us) and a weight-gradient pass (500 us); as soon as
 * a layer's weight gradient exists, its 12.5 MiB gradient all-reduce starts
 * (the "gradient bucket" of DDP), overlapping the rest of the backward pass.
 * The optimizer step (200 us) waits for every all-reduce.
 *
 *   usage: cs_example_data_parallel OUTDIR     (writes OUTDIR/dp.et)
 */
#include <stdio.h>

#include "workload/et.h"

#define LAYERS 8
#define FWD_US 500
#define IG_US 500
#define WG_US 500
#define OPT_US 200
#define GRAD_BYTES (25u << 19) /* 12.5 MiB */

static cs_et_nb *comp(uint64_t id, const char *name, uint64_t us) {
    cs_et_nb *b = cs_et_nb_new(id, name, CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE);
    cs_et_nb_attr_bool(b, "is_cpu_op", 0);
    cs_et_nb_duration_us(b, us);
    return b;
}

static int emit(cs_et_writer *w, cs_et_nb *b, cs_error *err) {
    int rc = cs_et_writer_write(w, cs_et_nb_node(b), err);
    cs_et_nb_free(b);
    return rc;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    char path[4096], name[64];
    snprintf(path, sizeof path, "%s/dp.et", argv[1]);
    cs_error err;
    cs_error_clear(&err);
    cs_et_writer *w = NULL;
    int rc = cs_et_writer_open(path, 0, NULL, &w, &err);
    uint64_t id = 1, prev = 0, ar[LAYERS];
    for (int l = 0; l < LAYERS && !rc; l++) {
        snprintf(name, sizeof name, "fwd_layer%d", l);
        cs_et_nb *b = comp(id, name, FWD_US);
        if (prev) cs_et_nb_data_dep(b, prev);
        prev = id++;
        rc = emit(w, b, &err);
    }
    for (int l = LAYERS - 1; l >= 0 && !rc; l--) {
        snprintf(name, sizeof name, "bwd_weight_grad_layer%d", l);
        cs_et_nb *b = comp(id, name, WG_US);
        cs_et_nb_data_dep(b, prev);
        uint64_t wg = id++;
        rc = emit(w, b, &err);
        snprintf(name, sizeof name, "allreduce_grad_layer%d", l);
        b = cs_et_nb_new(id, name, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE);
        cs_et_nb_attr_bool(b, "is_cpu_op", 0);
        cs_et_nb_attr_int64(b, "comm_type", 0);
        cs_et_nb_attr_int64(b, "comm_size", GRAD_BYTES);
        cs_et_nb_data_dep(b, wg);
        ar[l] = id++;
        if (!rc) rc = emit(w, b, &err); else cs_et_nb_free(b);
        if (l > 0 && !rc) {
            snprintf(name, sizeof name, "bwd_input_grad_layer%d", l);
            b = comp(id, name, IG_US);
            cs_et_nb_data_dep(b, prev);
            prev = id++;
            rc = emit(w, b, &err);
        }
    }
    if (!rc) {
        cs_et_nb *b = comp(id++, "optimizer_step", OPT_US);
        for (int l = 0; l < LAYERS; l++) cs_et_nb_data_dep(b, ar[l]);
        rc = emit(w, b, &err);
    }
    int rc2 = cs_et_writer_close(w, rc ? NULL : &err);
    if (rc || rc2) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    return 0;
}
