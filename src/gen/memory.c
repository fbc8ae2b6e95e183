/*
 * memory.c -- the per-rank memory footprint of a plan: the family computes
 * one pipeline stage (the transformer's is Korthikanti et al. 2022's,
 * family_transformer.c); here the largest stage, the check against the
 * device's HBM and the one-line breakdown.  See gen.h.
 */
#include <stdio.h>
#include <string.h>

#include "gen/gen_int.h"

void cs_gen_memory_stage(const cs_gen_model *m, const cs_gen_plan *p, uint32_t st, cs_gen_memory *o) {
    memset(o, 0, sizeof *o);
    o->stage = st;
    m->family->memory(m, p, st, o);
    if (p->offload_opt) { /* the optimizer state moves to remote memory */
        o->offloaded = o->optimizer;
        o->optimizer = 0;
    }
    o->total = o->weights + o->grads + o->optimizer + o->activations + o->kv_cache;
}

void cs_gen_memory_format(const cs_gen_memory *mm, char *buf, size_t n) {
    if (mm->kv_tokens) { /* a serving step (docs/inference.md) */
        snprintf(buf, n, "stage %u: weights %.2f GB + KV cache %.2f GB (%u tokens per sequence) = %.2f GB",
                 mm->stage, mm->weights / 1e9, mm->kv_cache / 1e9, mm->kv_tokens, mm->total / 1e9);
        return;
    }
    int k = snprintf(buf, n,
                     "stage %u: weights %.2f GB + gradients %.2f GB + optimizer %.2f GB + activations %.2f GB "
                     "(%u micro-batches in flight) = %.2f GB",
                     mm->stage, mm->weights / 1e9, mm->grads / 1e9, mm->optimizer / 1e9, mm->activations / 1e9,
                     mm->inflight, mm->total / 1e9);
    if (mm->offloaded > 0 && k > 0 && (size_t)k < n)
        snprintf(buf + k, n - (size_t)k, "; optimizer %.2f GB in remote memory", mm->offloaded / 1e9);
}

void cs_gen_memory_worst(const cs_gen_model *m, const cs_gen_plan *p, cs_gen_memory *w) {
    cs_gen_memory x;
    cs_gen_memory_stage(m, p, 0, w);
    for (uint32_t s = 1; s < p->pp; s++) {
        cs_gen_memory_stage(m, p, s, &x);
        if (x.total > w->total) *w = x;
    }
}

int cs_gen_memory_check(const cs_gen_model *m, const cs_gen_plan *p, const cs_device *d, cs_gen_memory *worst,
                        cs_error *err) {
    cs_gen_memory w;
    cs_gen_memory_worst(m, p, &w);
    if (worst) *worst = w;
    if (w.total > d->hbm_bytes) {
        char buf[512];
        cs_gen_memory_format(&w, buf, sizeof buf);
        return CS_ERR(err, CS_EINVAL, "the plan does not fit in memory: %s > %s HBM %.2f GB", buf, d->name,
                      d->hbm_bytes / 1e9);
    }
    return CS_OK;
}
