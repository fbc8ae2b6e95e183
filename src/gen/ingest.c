/*
 * ingest.c -- the input pipeline as a stage of the generated step
 * (docs/ingest.md): storage, preprocessing on the host CPUs, the
 * host-to-device copy, and the data loader's prefetch depth.
 *
 * Every rank of the first pipeline stage runs a data loader.  For each
 * micro-batch of b samples it emits three host CPU nodes (is_cpu_op: the
 * executor runs a rank's CPU nodes one at a time, beside the GPU stream):
 *   ingest.read        b x bytes_per_sample / (hosts x read_bytes_per_s / loaders)
 *   ingest.preprocess  b / (hosts x preprocess_samples_per_s / loaders)
 *   ingest.h2d         b x h2d_bytes_per_sample / h2d_bytes_per_s
 * chained one after the other and after the previous batch's copy.  The
 * micro-batch's first forward node on the GPU waits for its copy (it
 * consumes the batch), and batch mb's read waits for the consumption of
 * batch mb - prefetch: the loader runs at most `prefetch` batches ahead.
 * The ingest hosts' bandwidth and throughput are shared equally by the
 * loaders (the first stage's tp x cp x dp ranks).  Owns nothing beyond
 * the emitter's ring of consumer ids (emit.c allocates and frees it).
 */
#include <math.h>

#include "gen/gen_int.h"

/* Loaders: the ranks of the first stage, each loading its replica's micro-batch. */
static uint32_t loaders(const cs_gen_plan *p) { return p->tp * cs_gen_cp(p) * p->dp; }

static void batch_secs(const cs_gen_plan *p, double s[3]) {
    const cs_gen_ingest *g = &p->ingest;
    double b = p->micro_batch, L = loaders(p), H = g->hosts ? g->hosts : 1;
    double h2d = g->h2d_bytes_per_sample > 0 ? g->h2d_bytes_per_sample : g->bytes_per_sample;
    s[0] = b * g->bytes_per_sample * L / (H * g->read_bytes_per_s);
    s[1] = b * L / (H * g->preprocess_samples_per_s);
    s[2] = b * h2d / g->h2d_bytes_per_s;
}

void cs_gen_ingest_times_of(const cs_gen_plan *p, cs_gen_ingest_times *out) {
    out->read_us = out->preprocess_us = out->h2d_us = 0;
    out->loaders = 0;
    if (!(p->ingest.bytes_per_sample > 0)) return;
    double s[3];
    batch_secs(p, s);
    out->read_us = cs_gen_duration_us(s[0]);
    out->preprocess_us = cs_gen_duration_us(s[1]);
    out->h2d_us = cs_gen_duration_us(s[2]);
    out->loaders = loaders(p);
}

int cs_gen_ingest_check(const cs_gen_plan *p, cs_error *err) {
    const cs_gen_ingest *g = &p->ingest;
    if (!(g->bytes_per_sample >= 0) || !isfinite(g->bytes_per_sample))
        return CS_ERR(err, CS_EINVAL, "ingest.bytes-per-sample: expected a number of bytes >= 0 (0 = no ingest)");
    if (g->bytes_per_sample == 0) return CS_OK;
    if (!(g->read_bytes_per_s > 0))
        return CS_ERR(err, CS_EINVAL, "ingest.storage-read-gbps: expected a bandwidth > 0 GB/s");
    if (!(g->preprocess_samples_per_s > 0))
        return CS_ERR(err, CS_EINVAL,
                      "ingest.preprocess-samples-per-s: expected a throughput > 0 samples/s per ingest host with "
                      "ingest.bytes-per-sample set (no default: it depends on the data and the host)");
    if (!(g->h2d_bytes_per_s > 0))
        return CS_ERR(err, CS_EINVAL, "ingest.h2d-gbps: expected a bandwidth > 0 GB/s");
    if (!(g->h2d_bytes_per_sample >= 0))
        return CS_ERR(err, CS_EINVAL, "ingest.h2d-bytes-per-sample: expected a number of bytes >= 0");
    if (g->prefetch < 1)
        return CS_ERR(err, CS_EINVAL, "ingest.prefetch-depth: expected an integer >= 1 (micro-batches)");
    if (g->hosts < 1)
        return CS_ERR(err, CS_EINVAL,
                      "cost.storage-npus-per-host: expected >= 1 with ingest.bytes-per-sample set (the ingest hosts "
                      "are one per that many accelerators), got 0");
    double s[3];
    batch_secs(p, s);
    for (int i = 0; i < 3; i++)
        if (!(s[i] * 1e6 <= (double)CS_TIME_MAX_US))
            return CS_ERR(err, CS_EINVAL,
                          "ingest: a micro-batch's %s takes %.4g s, beyond the simulated-time range of %s; expected "
                          "larger ingest.* bandwidths or fewer bytes per sample",
                          i == 0 ? "read" : i == 1 ? "preprocessing" : "host-to-device copy", s[i],
                          CS_TIME_RANGE_TEXT);
    return CS_OK;
}

void cs_gen_ingest_batch(cs_gen_ctx *G, uint32_t mb) {
    const cs_gen_ingest *g = &G->p->ingest;
    if (G->cost || !G->ing_cons || G->pi != 0 || G->rc != CS_OK) return;
    double s[3], b = G->p->micro_batch;
    double h2d = g->h2d_bytes_per_sample > 0 ? g->h2d_bytes_per_sample : g->bytes_per_sample;
    batch_secs(G->p, s);
    uint32_t P = g->prefetch, slot = mb % P;
    uint64_t deps[2] = {G->ing_last, mb >= P ? G->ing_cons[slot] : 0};
    uint64_t r = cs_gen_cpu(G, "ingest.read", b * g->bytes_per_sample, s[0], deps, 2);
    uint64_t q = cs_gen_cpu(G, "ingest.preprocess", b * g->bytes_per_sample, s[1], &r, 1);
    uint64_t c = cs_gen_cpu(G, "ingest.h2d", b * h2d, s[2], &q, 1);
    G->ing_last = c;
    if (G->nneed < sizeof G->need / sizeof G->need[0]) G->need[G->nneed++] = c;
    else G->rc = CS_ERR(G->err, CS_EINTERNAL, "ingest: the micro-batch's first node already waits for two nodes");
    G->ing_cons[slot] = G->next_id + 1; /* the next chained node: the batch's first forward */
}
