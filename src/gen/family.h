/*
 * family.h -- model families behind one table (cs_model_family) and their
 * registry.  A family owns everything that depends on what the model is:
 * its model-file keys (an option table, core/opts.h), its presets, its plan
 * checks, parameter and FLOP counts, the memory footprint of a stage, the
 * nodes of one rank's training step, its batch defaults, how a plan is
 * described and what its throughput counts (tokens/s, images/s, samples/s).
 * Nothing outside a family's file branches on the family: callers go
 * through this table (docs/architecture.md, "Adding a model family").
 *
 * The registry is a constant array in family.c; cs_gen_family_at(0) is the
 * default family of a model file without "arch".  Tables are read-only.
 */
#ifndef CS_GEN_FAMILY_H
#define CS_GEN_FAMILY_H

#include <stddef.h>
#include <stdio.h>

#include "core/opts.h"
#include "gen/gen.h"

struct cs_gen_ctx; /* the emitter's state of one rank (gen/gen_int.h) */

typedef struct cs_model_family {
    const char *name;        /* "arch" in a model file */
    const char *summary;     /* one line for help */
    /* Model-file keys: offsets into this family's member of cs_gen_model.u;
     * every key has help text (tests/test_gen_family.c checks). */
    const cs_opt *keys;
    size_t nkeys;
    /* Built-in models of the family (their family pointer is this table). */
    const cs_gen_model *presets;
    size_t npresets;
    /* Defaults of the family's parameters before a model file is read. */
    void (*init)(cs_gen_model *m);
    /* Checks across keys after a model file is read (file:line errors). */
    int (*finish)(const cs_jdoc *doc, cs_gen_model *m, cs_error *err);
    /* Plan checks beyond the family-independent ones of cs_gen_plan_check. */
    int (*check)(const cs_gen_model *m, const cs_gen_plan *p, cs_error *err);
    /* Whether plans may use context parallelism / interleaved stages. */
    int context_parallel, interleaving;
    /* Whether plans may be serving steps (cs_gen_plan.phase; docs/inference.md). */
    int inference;
    double (*params)(const cs_gen_model *m);
    double (*flops)(const cs_gen_model *m, const cs_gen_plan *p);
    void (*memory)(const cs_gen_model *m, const cs_gen_plan *p, uint32_t stage, cs_gen_memory *out);
    /* The nodes of one rank's step before the optimizer (gen/gen_int.h). */
    void (*emit)(struct cs_gen_ctx *G);
    /* Batch defaults (cs_gen_plan_batch); 0 = not given. */
    void (*batch)(const cs_gen_model *m, cs_gen_plan *p, uint32_t micro, uint32_t global);
    /* The "  model ..." and "  plan ..." lines of a report. */
    void (*describe)(FILE *f, const cs_gen_model *m, const cs_gen_plan *p);
    /* Throughput: items per training step, their unit ("tokens/s") and the
     * JSON key of the rate ("tokens_per_s"). */
    double (*items)(const cs_gen_model *m, const cs_gen_plan *p);
    const char *unit, *unit_json;
} cs_model_family;

/* Registry: the i-th family (NULL past the end), or by name (NULL). */
const cs_model_family *cs_gen_family_at(size_t i);
const cs_model_family *cs_gen_family_find(const char *name);

/* ---- family helpers the tests check against closed forms ----------------- */

/* Transformer: parameters of one layer.  Layers of pipeline stage st and
 * the first of them (with interleaving: the sum over its v chunks, and the
 * first of chunk 0).  When pp (pp v virtual stages with interleaving) does
 * not divide the layers, every (virtual) stage gets ceil(layers / pp) but
 * for the deficit, taken one layer each from the last, the first, the
 * second-last, the second, ... (the stages that also hold the output layer
 * and the embedding; Llama 3 405B's 126 layers on 16 stages are 7 + 14 x 8
 * + 7, as Dubey et al. 2024 describe, and so are they with 2 chunks per
 * stage: 3 + 4, 4 + 4, ..., 4 + 3). */
double cs_gen_tx_layer_params(const cs_gen_model *m);
uint32_t cs_gen_tx_stage_layers(const cs_gen_model *m, const cs_gen_plan *p, uint32_t st, uint32_t *first);
/* ResNet-50: multiply-accumulates of one image's forward pass (convolutions
 * and the classifier), and the activation elements stored per image. */
double cs_gen_rn_forward_macs(const cs_gen_model *m);
double cs_gen_rn_activation_elems(const cs_gen_model *m);
/* DLRM: parameters of the MLPs (data parallel) and of the embedding tables,
 * matmul FLOPs of one sample's forward pass (MLPs + interaction). */
double cs_gen_dlrm_mlp_params(const cs_gen_model *m);
double cs_gen_dlrm_emb_params(const cs_gen_model *m);
double cs_gen_dlrm_forward_flops(const cs_gen_model *m);

#endif
