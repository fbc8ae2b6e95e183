/*
 * nccl_model.c -- NCCL's tuning model for one node (see nccl_model.h).  The
 * constants are NCCL's (github:NVIDIA/nccl, commit 5067397c, src/graph/
 * tuning.cc); every table below names its lines.  Latencies are kept in
 * integer nanoseconds (NCCL writes them in microseconds with one or two
 * decimals, so the conversion is exact); bandwidths in GB/s (bytes per ns).
 */
#include "system/nccl_model.h"

#include <math.h>
#include <stddef.h>

/* tuning.cc:150-155 baseLatencies (us), Tree and Ring x (LL, LL128, Simple);
 * NVLS's is 0 and NCCL overwrites it (tuning.cc:425). */
static const uint64_t BASE_NS[2][3] = {{6800, 14000, 8400}, {6600, 14000, 8400}};
/* tuning.cc:158-162 hwLatencies[NVLINK] (us): Tree, Ring, NVLS. */
static const uint64_t HW_NVL_NS[3][3] = {{600, 1250, 4000}, {600, 1900, 3400}, {0, 0, 25000}};
/* tuning.cc:178-183 llMaxBws[compCap][0] (one node: indexed by GPU), GB/s. */
static const double LL_MAX_BW[4] = {39.0, 87.7, 141.0, 2 * 141.0};
/* tuning.cc:185-190 perChMaxRingLL128Bws[compCap][0], GB/s per channel. */
static const double RING_LL128_CH_BW[4] = {20.0, 20.0, 36.7, 40.0};
/* tuning.cc:191-197 perChMaxTreeLL128Bws[compCap][0]. */
static const double TREE_LL128_CH_BW[4] = {20.0, 20.0, 36.7, 55.6};
/* tuning.cc:198-204 perChMaxTreeBws[compCap][0]. */
static const double TREE_CH_BW[4] = {26.5, 24.0, 38.7, 70.0};
/* tuning.cc:139-144 nvlsEfficiency. */
static const double NVLS_EFF[4] = {0.0, 0.0, 0.85, 0.74};
/* tuning.cc:623-627 treeCorrectionFactor[proto][log2(nBytes/64)]. */
static const double TREE_CORR[3][24] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9}};
/* device.h:213 NCCL_MAX_NVLS_ARITY: NVLS all-gather / reduce-scatter on at most 32 local ranks
 * (enqueue.cc:2004-2007). */
#define MAX_NVLS_ARITY 32

static double dmin(double a, double b) { return a < b ? a : b; }

static int log2i(uint64_t v) {
    int l = -1;
    while (v) {
        v >>= 1;
        l++;
    }
    return l;
}

double cs_nccl_time_us(const cs_nccl_in *in, int a, int p, double *busbw_out, double *algbw_out, double *effbw_out) {
    if (busbw_out) *busbw_out = 0;
    if (algbw_out) *algbw_out = 0;
    if (effbw_out) *effbw_out = 0;
    if (in->nranks < 2 || p < 0 || p >= CS_NCCL_NPROTO || (unsigned)in->arch > CS_NCCL_BLACKWELL) return -1;
    double n = (double)in->nranks, C = (double)in->channels, B = in->bw_gbps;
    int ar = in->coll == CS_NCCL_ALL_REDUCE;
    double nsteps = ar ? 2 * (n - 1) : n - 1; /* tuning.cc:289-291 */
    double busbw, lat_us;
    if (a == CS_NCCL_RING) {
        busbw = B;                                                         /* tuning.cc:306, 324 */
        if (p == CS_NCCL_LL) busbw = dmin(LL_MAX_BW[in->arch], busbw * .5); /* tuning.cc:327 */
        if (p == CS_NCCL_LL128) busbw = dmin(busbw * .92, C * RING_LL128_CH_BW[in->arch]); /* :328-329 */
        /* tuning.cc:393-413, one node: base + nsteps x hwLat */
        lat_us = (double)(BASE_NS[1][p] + (uint64_t)nsteps * HW_NVL_NS[1][p]) / 1000.0;
    } else if (a == CS_NCCL_TREE) {
        if (!ar) return -1; /* tuning.cc:295-297: all-gather, reduce-scatter have no tree */
        busbw = dmin(B * .92, C * TREE_CH_BW[in->arch]);                   /* tuning.cc:330-331 */
        if (p == CS_NCCL_LL) busbw = dmin(busbw / 3.8, LL_MAX_BW[in->arch]); /* :332 */
        if (p == CS_NCCL_LL128) busbw = dmin(busbw * 7.0 / 9.0, C * TREE_LL128_CH_BW[in->arch]); /* :333-335 */
        /* tuning.cc:414-417, one node: base + 2 (nRanks - 1) hwLat */
        lat_us = (double)(BASE_NS[0][p] + 2 * (in->nranks - 1) * HW_NVL_NS[0][p]) / 1000.0;
    } else if (a == CS_NCCL_NVLS) {
        if (p != CS_NCCL_SIMPLE || !in->nvls || in->channels < 2 || NVLS_EFF[in->arch] <= 0) return -1;
        if (!ar && in->nranks > MAX_NVLS_ARITY) return -1;
        double per = (B / C) * NVLS_EFF[in->arch] * (C - 1) / C; /* tuning.cc:311-312 */
        per *= ar ? 2.0 : (n - 1) / n;                           /* tuning.cc:314-318 */
        busbw = C * per;                                         /* tuning.cc:324 */
        lat_us = (double)HW_NVL_NS[2][2] / 1000.0;               /* tuning.cc:424-425 */
    } else {
        return -1;
    }
    /* bus -> algorithm bandwidth, tuning.cc:376-382: ring and NVLS x nRanks / nsteps, tree x 0.5;
     * NVLS all-gather / reduce-scatter unchanged */
    double algbw = busbw;
    if (a == CS_NCCL_RING || (a == CS_NCCL_NVLS && ar)) algbw *= n / nsteps;
    else if (a == CS_NCCL_TREE) algbw *= .5;
    if (busbw_out) *busbw_out = busbw;
    if (algbw_out) *algbw_out = algbw;
    double bw = algbw;
    int ls = log2i(in->nbytes >> 6); /* tuning.cc:639-642 */
    if (a == CS_NCCL_TREE && ls >= 0 && ls < 23) bw *= TREE_CORR[p][ls];
    if (!(bw > 0)) return -1;
    if (effbw_out) *effbw_out = bw;
    return lat_us + (double)in->nbytes / (1000.0 * bw); /* tuning.cc:653, one operation */
}

int cs_nccl_choose(const cs_nccl_in *in, cs_nccl_choice *out) {
    double best = -1;
    int ba = -1, bp = -1;
    static const int ORDER[] = {CS_NCCL_TREE, CS_NCCL_RING, CS_NCCL_NVLS}; /* NCCL's algorithm order */
    for (size_t i = 0; i < sizeof ORDER / sizeof ORDER[0]; i++)
        for (int p = 0; p < CS_NCCL_NPROTO; p++) {
            double t = cs_nccl_time_us(in, ORDER[i], p, NULL, NULL, NULL);
            if (t >= 0 && (ba < 0 || t < best)) { /* enqueue.cc:2035-2044 */
                best = t;
                ba = ORDER[i];
                bp = p;
            }
        }
    if (ba < 0) return -1;
    out->algo = ba;
    out->proto = bp;
    out->time_us = cs_nccl_time_us(in, ba, bp, &out->busbw_gbps, &out->algbw_gbps, &out->effbw_gbps);
    if (ba == CS_NCCL_NVLS) {
        out->launch_ns = 0;                    /* NCCL's NVLS latency is hwLat alone (tuning.cc:425) */
        out->step_ns = HW_NVL_NS[2][2] / 2;    /* split over inSwitch's two bundles */
    } else {
        out->launch_ns = BASE_NS[ba == CS_NCCL_TREE ? 0 : 1][bp];
        out->step_ns = HW_NVL_NS[ba == CS_NCCL_TREE ? 0 : 1][bp];
    }
    return 0;
}

const char *cs_nccl_algo_name(int a) {
    switch (a) {
    case CS_NCCL_TREE: return "Tree";
    case CS_NCCL_RING: return "Ring";
    case CS_NCCL_NVLS: return "NVLS";
    default: return "?";
    }
}

const char *cs_nccl_proto_name(int p) {
    switch (p) {
    case CS_NCCL_LL: return "LL";
    case CS_NCCL_LL128: return "LL128";
    case CS_NCCL_SIMPLE: return "Simple";
    default: return "?";
    }
}
