/*
 * rescale_pp.h -- pipeline re-forming for `clustersim rescale --to-pp`
 * (private to src/gen/rescale*.c; docs/rescale.md, "The pipeline degree").
 *
 * The source is a generated dense transformer trace set (tp x pp templates
 * of replica 0, node names L<k>.<op>, embed, logits, dp.grads, optimizer).
 * Every node the target needs exists in the source (layer k's nodes are
 * on the stage that held it), so a target stage is re-emitted with the
 * generator's rules -- the default layer split, the 1F1B or GPipe order,
 * the chain of dependencies, pipeline messages with tags 2 mb (+1), one
 * gradient bucket per layer -- taking every node's values from the source.
 * Before anything is written the source's own stages are rebuilt the same
 * way at the source's pp and must equal the templates node for node;
 * anything else (ZeRO, FSDP, interleaving, a layout, MoE, ...) is refused
 * there.  Only the optimizer's values are computed: its tensor_size
 * exactly (54 bytes per parameter, the per-layer count read from a
 * one-layer bucket or a middle stage), its duration scaled from the source.
 *
 * Ownership: the templates stay the caller's; cs_rescale_pp_free frees the
 * rest.
 */
#ifndef CS_GEN_RESCALE_PP_H
#define CS_GEN_RESCALE_PP_H

#include <stdint.h>
#include <stdio.h>

#include "core/error.h"
#include "gen/gen.h"
#include "workload/et.h"

typedef struct cs_rescale_pp cs_rescale_pp;

/* nodes[pi * tp + ti], counts likewise: the source's templates; paths: their
 * files (for messages).  src / dst: the plans (dst differs in pp, maybe dp). */
int cs_rescale_pp_prepare(cs_rescale_pp **out, const cs_gen_plan *src, const cs_gen_plan *dst,
                          ChakraProtoMsg__Node *const *const *nodes, const size_t *counts, const char *const *paths,
                          FILE *log, cs_error *err);
/* Target rank r's graph into w; *nodes += its node count. */
int cs_rescale_pp_write(cs_rescale_pp *R, uint32_t r, cs_et_writer *w, uint64_t *nodes, cs_error *err);
void cs_rescale_pp_free(cs_rescale_pp *R);

#endif
