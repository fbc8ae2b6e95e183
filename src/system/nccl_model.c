/*
 * nccl_model.c -- NCCL's tuning model, one node and across nodes (see nccl_model.h).  The
 * constants are NCCL's (github:NVIDIA/nccl, commit 5067397c, src/graph/
 * tuning.cc); every table below names its lines.  Latencies are kept in
 * integer nanoseconds (NCCL writes them in microseconds with one or two
 * decimals, so the conversion is exact); bandwidths in GB/s (bytes per ns).
 */
#include "system/nccl_model.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "core/alloc.h"

/* tuning.cc:150-155 baseLatencies (us), Tree and Ring x (LL, LL128, Simple);
 * NVLS's is 0 and NCCL overwrites it (tuning.cc:425). */
static const uint64_t BASE_NS[2][3] = {{6800, 14000, 8400}, {6600, 14000, 8400}};
/* tuning.cc:154 baseLatencies[PAT] (us), Simple. */
#define PAT_BASE_NS 8000
/* tuning.cc:158-162 hwLatencies[NVLINK] (us): Tree, Ring, NVLS. */
static const uint64_t HW_NVL_NS[3][3] = {{600, 1250, 4000}, {600, 1900, 3400}, {0, 0, 25000}};
/* tuning.cc:170-171 hwLatencies[NET] (us): Tree, Ring. */
static const uint64_t HW_NET_NS[2][3] = {{5000, 8500, 14000}, {2700, 4000, 14000}};
/* tuning.cc:228-232 getNetOverhead (us): x86 Intel 1.0, AMD 2.0; x 3 for Simple (tuning.cc:408). */
static const uint64_t NET_OVERHEAD_NS[2] = {1000, 2000};
/* tuning.cc:178-183 llMaxBws[compCap][0] (one node: indexed by GPU), GB/s. */
static const double LL_MAX_BW[4] = {39.0, 87.7, 141.0, 2 * 141.0};
/* tuning.cc:178-183 llMaxBws[index1][1..2] (multi-node: indexed by CPU, tuning.cc:269-271:
 * Intel row 0, AMD row 1), nNodes 2 and > 2 (index2, tuning.cc:267). */
static const double LL_MAX_BW_NET[2][2] = {{39.0, 20.4}, {22.5, 19.0}};
/* tuning.cc:185-190 perChMaxRingLL128Bws[compCap] (the same for N1, N2, N4), GB/s per channel. */
static const double RING_LL128_CH_BW[4] = {20.0, 20.0, 36.7, 40.0};
/* tuning.cc:191-197 perChMaxTreeLL128Bws[compCap][N1, N2, N4]. */
static const double TREE_LL128_CH_BW[4][3] = {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0},
                                              {55.6, 31.67, 20.0}};
/* tuning.cc:198-204 perChMaxTreeBws[compCap][N1, N2, N4]. */
static const double TREE_CH_BW[4][3] = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0},
                                        {70.0, 42.8, 24.0}};
/* tuning.cc:205-211 perChMaxNVLSTreeBws[compCap][N1, N2, N4]. */
static const double NVLS_TREE_CH_BW[4][3] = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5},
                                             {0.0, 96.0, 80.0}};
/* tuning.cc:158-175 hwLatencies NVLSTree Simple (us): NVLink 25, NET 20.9. */
#define NVLS_TREE_NVL_NS 25000
#define NVLS_TREE_NET_NS 20900
/* tuning.cc:139-144 nvlsEfficiency. */
static const double NVLS_EFF[4] = {0.0, 0.0, 0.85, 0.74};
/* tuning.cc:623-627 treeCorrectionFactor[proto][log2(nBytes/64)]. */
static const double TREE_CORR[3][24] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9}};
/* device.h:213 NCCL_MAX_NVLS_ARITY: NVLS all-gather / reduce-scatter on at most 32 local ranks
 * (enqueue.cc:2004-2007), and at most 32 channels (heads) in NCCL's NVLS graph (search.cc:1126-1127),
 * which NVLS and NVLS-tree run on. */
#define MAX_NVLS_ARITY 32
/* CollNet (SHARP) -- tuning.cc:152 baseLatencies 0; :160 hwLatencies[NVLINK] CollNetDirect / Chain Simple
 * 3.7 / 2.8 us; :172 hwLatencies[NET] 31 / 30 us; :173 hwLatencies[NET][NVLS] Simple 18 us (NVLS across
 * nodes, NVLS + SHARP); :419-421 0.4 us of arity serialization per local rank (CollNet Direct). */
#define COLLNET_DIRECT_NVL_NS 3700
#define COLLNET_CHAIN_NVL_NS 2800
#define COLLNET_DIRECT_NET_NS 31000
#define COLLNET_CHAIN_NET_NS 30000
#define NVLS_NET_NS 18000
#define COLLNET_ARITY_NS 400
/* device.h:199 NCCL_MAX_DIRECT_ARITY 7: CollNet Direct and Chain on at most 8 local ranks
 * (enqueue.cc:2000-2003), CollNet Direct's graph at most 8 heads (search.cc:1129-1130). */
#define MAX_DIRECT_RANKS 8

static double dmin(double a, double b) { return a < b ? a : b; }

static int log2i(uint64_t v) {
    int l = -1;
    while (v) {
        v >>= 1;
        l++;
    }
    return l;
}

static uint64_t umax(uint64_t a, uint64_t b) { return a > b ? a : b; }

static int multi(const cs_nccl_in *in) { return in->nnodes >= 2; }

/* A candidate at all: the (algorithm, protocol) pairs NCCL computes and does not disable. */
static int candidate(const cs_nccl_in *in, int a, int p) {
    if (in->nranks < 2 || p < 0 || p >= CS_NCCL_NPROTO || (unsigned)in->arch > CS_NCCL_BLACKWELL) return 0;
    if (multi(in) && (in->nranks % in->nnodes != 0 || (unsigned)in->cpu > CS_NCCL_CPU_AMD)) return 0;
    int ar = in->coll == CS_NCCL_ALL_REDUCE;
    if (a == CS_NCCL_RING) return 1;
    if (a == CS_NCCL_TREE) return ar; /* tuning.cc:295-297: all-gather, reduce-scatter have no tree */
    /* PAT: all-gather and reduce-scatter, Simple, one GPU per node (ncclPatEnable, tuning.cc:216-223; NCCL_PAT_ENABLE default) */
    if (a == CS_NCCL_PAT) return !ar && p == CS_NCCL_SIMPLE && multi(in) && in->nranks == in->nnodes;
    if (a == CS_NCCL_NVLS_TREE) /* all-reduce, Simple, across nodes (tuning.cc:295-297, 301, 500-502) */
        return ar && p == CS_NCCL_SIMPLE && multi(in) && in->nvls && in->nranks / in->nnodes >= 2 &&
               NVLS_EFF[in->arch] > 0;
    if (a == CS_NCCL_COLLNET_DIRECT || a == CS_NCCL_COLLNET_CHAIN) {
        /* all-reduce (Chain: tuning.cc:295-297; Direct's all-gather / reduce-scatter need the plugin's
         * iallgather / ireducescatter, tuning.cc:351-372, not modelled), Simple (:338-339), CollNet enabled
         * on 2 nodes or more (tuning.cc:503-506; NCCL_COLLNET_NODE_THRESHOLD 2, init.cc:857, 1469-1475), at
         * most 8 local ranks (enqueue.cc:2000-2003); Direct on an NVSwitch node (tuning.cc:508-509) */
        if (!ar || p != CS_NCCL_SIMPLE || !multi(in) || !in->collnet || in->nranks / in->nnodes > MAX_DIRECT_RANKS)
            return 0;
        return a == CS_NCCL_COLLNET_CHAIN || in->nvswitch;
    }
    if (a == CS_NCCL_NVLS) {
        if (p != CS_NCCL_SIMPLE || !in->nvls || NVLS_EFF[in->arch] <= 0) return 0;
        /* across nodes NVLS needs CollNet (NVLS + SHARP: tuning.cc:503-506, enqueue.cc:2008); its all-gather
         * and reduce-scatter the plugin's iallgather / ireducescatter (tuning.cc:351-372): all-reduce only;
         * at least 2 heads, i.e. local ranks (tuning.cc:308-309) */
        if (multi(in)) return ar && in->collnet && in->nranks / in->nnodes >= 2;
        /* one node: NCCL's NVLS graph has min(n, 32) channels (search.cc:1126-1127, 1135-1137), at least
         * 2 (tuning.cc:308-309) for n >= 2 */
        return ar || in->nranks <= MAX_NVLS_ARITY;
    }
    return 0;
}

int64_t cs_nccl_latency_ns(const cs_nccl_in *in, int a, int p, uint64_t *net_ns) {
    if (net_ns) *net_ns = 0;
    if (!candidate(in, a, p)) return -1;
    uint64_t n = in->nranks;
    int ar = in->coll == CS_NCCL_ALL_REDUCE;
    uint64_t nsteps = ar ? 2 * (n - 1) : n - 1; /* tuning.cc:289-291 */
    if (a == CS_NCCL_NVLS) {
        if (!multi(in)) return (int64_t)HW_NVL_NS[2][2]; /* tuning.cc:424-425: hwLat alone */
        /* tuning.cc:424-426: intraLat + interLat (NET NVLS 18 us; ppn >= 2 here) */
        if (net_ns) *net_ns = NVLS_NET_NS;
        return (int64_t)(HW_NVL_NS[2][2] + NVLS_NET_NS);
    }
    if (a == CS_NCCL_COLLNET_DIRECT || a == CS_NCCL_COLLNET_CHAIN) {
        /* interLat: the NET CollNet one, the NET Tree's when ppn = 1 (tuning.cc:387-388), + latencyInter 0 */
        uint64_t ppn = n / in->nnodes;
        uint64_t inter = ppn == 1 ? HW_NET_NS[0][CS_NCCL_SIMPLE]
                                  : a == CS_NCCL_COLLNET_DIRECT ? COLLNET_DIRECT_NET_NS : COLLNET_CHAIN_NET_NS;
        if (net_ns) *net_ns = inter;
        if (a == CS_NCCL_COLLNET_CHAIN) /* tuning.cc:422-423: base 0 + 2 (ppn - 1) intraLat + interLat */
            return (int64_t)(2 * (ppn - 1) * COLLNET_CHAIN_NVL_NS + inter);
        /* tuning.cc:418-421: base 0 + 2 (min(1, ppn - 1) intraLat + (ppn - 1) 0.4 us) + interLat */
        return (int64_t)(2 * ((ppn > 1 ? COLLNET_DIRECT_NVL_NS : 0) + (ppn - 1) * COLLNET_ARITY_NS) + inter);
    }
    if (a == CS_NCCL_NVLS_TREE) {
        /* tuning.cc:427-428: baseLat 0 + intraLat + 2 log2i(nNodes) interLat (+ latencyInter 0) */
        uint64_t net = 2 * (uint64_t)log2i(in->nnodes) * NVLS_TREE_NET_NS;
        if (net_ns) *net_ns = net;
        return (int64_t)(NVLS_TREE_NVL_NS + net);
    }
    if (a == CS_NCCL_PAT) {
        /* tuning.cc:430-434: base + log2i(nNodes) interLat / 3.5 + 2.8 us x nRanks; interLat the NET
         * Tree's (ppn = 1, tuning.cc:387): 14 us / 3.5 = 4 us */
        uint64_t net = (uint64_t)log2i(in->nnodes) * (HW_NET_NS[0][CS_NCCL_SIMPLE] * 10 / 35) + 2800 * n;
        if (net_ns) *net_ns = net;
        return (int64_t)(PAT_BASE_NS + net);
    }
    int t = a == CS_NCCL_TREE ? 0 : 1;
    if (!multi(in)) {
        /* tuning.cc:393-417, one node: Ring base + nsteps hwLat, Tree base + 2 (nRanks - 1) hwLat */
        return (int64_t)(BASE_NS[t][p] + (a == CS_NCCL_RING ? nsteps : 2 * (n - 1)) * HW_NVL_NS[t][p]);
    }
    uint64_t nn = in->nnodes, ppn = n / nn, lat, net;
    /* tuning.cc:387-391: interLat is the NET hwLat (the Tree's when ppn = 1), + the graph's
     * latencyInter (x 2 for Simple), which NCCL's IB transport reports as 0 (net_ib/init.cc:558) */
    uint64_t inter = HW_NET_NS[ppn == 1 ? 0 : t][p];
    if (a == CS_NCCL_RING) {
        /* tuning.cc:404-412: the intra-node steps pay at least the net overhead (x 3 Simple) */
        uint64_t intra = umax(HW_NVL_NS[1][p], NET_OVERHEAD_NS[in->cpu] * (p == CS_NCCL_SIMPLE ? 3 : 1));
        uint64_t ninter = ar ? 2 * (nn - 1) : nn - 1;
        net = ninter * inter;
        lat = BASE_NS[1][p] + (nsteps - ninter) * intra + net;
        /* tuning.cc:646-650: ring all-reduce Simple across nodes, nBytes / (nChannels nRanks) >= 64
         * (integer division): latency x 1.4 (x 1.9 before Ampere) -- the "plateau effect of ring" */
        if (ar && p == CS_NCCL_SIMPLE && in->channels > 0 && in->nbytes / ((uint64_t)in->channels * n) >= 64) {
            uint64_t k = in->arch == CS_NCCL_VOLTA ? 19 : 14;
            lat = lat * k / 10; /* NCCL's latencies are whole 100 ns: exact */
            net = net * k / 10;
        }
    } else {
        /* tuning.cc:414-417: base + 2 ((nRanks/nNodes - 1) intraLat + log2i(nNodes) interLat) */
        net = 2 * (uint64_t)log2i(nn) * inter;
        lat = BASE_NS[0][p] + 2 * (ppn - 1) * HW_NVL_NS[0][p] + net;
    }
    if (net_ns) *net_ns = net;
    return (int64_t)lat;
}

/* device.h:95-114 NCCL_{SIMPLE,LL,LL128}_MAX_NTHREADS, :93 NCCL_MAX_NTHREADS; comm.h:49-51
 * NCCL_{LL,LL128,SIMPLE}_THREAD_THRESHOLD (bytes per thread); topo.h:25 PCI_BW (GB/s). */
#define SIMPLE_MAX_NTHREADS 512
#define LL_MAX_NTHREADS 512
#define LL128_MAX_NTHREADS 640
#define MAX_NTHREADS 640
#define LL_THREAD_THRESHOLD 8
#define LL128_THREAD_THRESHOLD 8
#define SIMPLE_THREAD_THRESHOLD 64
#define PCI_BW_GBPS 12.0

/* The channels NCCL runs (a, p) on for nBytes, after picking it with all of
 * them (enqueue.cc:2070-2105, "Ring/Tree channel tuning"): nc starts at
 * nChannels and drops by one while nBytes < nc x nt x threadThreshold and nc
 * >= 2, nt = maxThreads[a][p] (tuning.cc:245-257: Simple 512 -- 256 when the
 * ring's nChannels x bwIntra <= PCI_BW --, LL 512, LL128 640; CollNet Chain
 * 640) and threadThreshold[a][p] (tuning.cc:588-595: LL 8 bytes per thread,
 * x nRanks for the ring; LL128 8; Simple 64; CollNet Chain 512).  NVLS and
 * NVLS-tree run on their own graph's channels (:2084-2090); PAT's maxThreads
 * is 0 (tuning.cc sets none), so the loop leaves it alone; CollNet Direct's
 * own loop (:2073-2083, over its heads) is not modelled: all its channels.
 * The threads NCCL then halves for still smaller sizes (:2099-2104) are not
 * modelled (a channel's bandwidth is taken not to depend on them).  NCCL
 * computes nc x nt x threshold in an int: for the ring's LL from 32,768 ranks
 * on (8 x nRanks bytes a thread) it overflows there; here it is 64-bit. */
static int run_channels(const cs_nccl_in *in, int a, int p, double ring_bw) {
    int C = in->channels;
    if (C < 2 || (a != CS_NCCL_RING && a != CS_NCCL_TREE && a != CS_NCCL_COLLNET_CHAIN)) return C;
    uint64_t nt, thr;
    if (a == CS_NCCL_COLLNET_CHAIN) {
        nt = MAX_NTHREADS;
        thr = 512;
    } else if (p == CS_NCCL_LL) {
        nt = LL_MAX_NTHREADS;
        thr = LL_THREAD_THRESHOLD * (a == CS_NCCL_RING ? (uint64_t)in->nranks : 1);
    } else if (p == CS_NCCL_LL128) {
        nt = LL128_MAX_NTHREADS;
        thr = LL128_THREAD_THRESHOLD;
    } else {
        nt = a == CS_NCCL_RING && ring_bw <= PCI_BW_GBPS ? 256 : SIMPLE_MAX_NTHREADS;
        thr = SIMPLE_THREAD_THRESHOLD;
    }
    int nc = C;
    while (nc >= 2 && in->nbytes < (uint64_t)nc * nt * thr) nc--;
    return nc;
}

/* NCCL's time of (a, p) as its tuning model predicts it with all nChannels
 * (nc = in->channels), or the bandwidths of a run on nc of them: Ring, Tree
 * and CollNet Chain take nc x bwIntra where the model has nChannels x
 * bwIntra, and nc in its per-channel caps. */
static double time_nc(const cs_nccl_in *in, int a, int p, int nc, double *busbw_out, double *algbw_out,
                      double *effbw_out);

double cs_nccl_time_us(const cs_nccl_in *in, int a, int p, double *busbw_out, double *algbw_out, double *effbw_out) {
    return time_nc(in, a, p, in->channels, busbw_out, algbw_out, effbw_out);
}

int cs_nccl_run_channels(const cs_nccl_in *in, int a, int p) {
    double B = in->bw_gbps;
    if (multi(in)) B = dmin(B, (in->nranks / (double)in->nnodes) * in->net_bw_gbps);
    return run_channels(in, a, p, B);
}

static double time_nc(const cs_nccl_in *in, int a, int p, int nc, double *busbw_out, double *algbw_out,
                      double *effbw_out) {
    if (busbw_out) *busbw_out = 0;
    if (algbw_out) *algbw_out = 0;
    if (effbw_out) *effbw_out = 0;
    int64_t lat_ns = cs_nccl_latency_ns(in, a, p, NULL);
    if (lat_ns < 0) return -1;
    double n = (double)in->nranks, C = (double)in->channels, B = in->bw_gbps;
    int ar = in->coll == CS_NCCL_ALL_REDUCE;
    double nsteps = ar ? 2 * (n - 1) : n - 1; /* tuning.cc:289-291 */
    int ix = 0;                               /* index2, tuning.cc:267: N1, N2, N4 */
    double llmax = LL_MAX_BW[in->arch];
    if (multi(in)) {
        ix = in->nnodes <= 2 ? 1 : 2;
        llmax = LL_MAX_BW_NET[in->cpu][ix - 1]; /* tuning.cc:269-272 */
        /* nChannels x bw (tuning.cc:306, 324) of the graph NCCL's search finds (src/graph/search.cc,
         * not modelled): its channels cross every node's NVLink and leave through a NIC, a channel per
         * NIC, all ppn NICs of a node in use (rail-aligned): bwInter x nChannels <= ppn x NIC.  The ring
         * keeps bwIntra = bwInter (search.cc:1270-1272); a tree may raise bwIntra up to 2 bwInter
         * (search.cc:1279-1282), which tuning.cc:306 uses on 2 nodes: min(NVLink, 2 ppn NIC) there */
        double net = (n / (double)in->nnodes) * in->net_bw_gbps;
        B = dmin(B, a == CS_NCCL_TREE && in->nnodes <= 2 ? 2 * net : net);
    }
    double share = 1.0; /* nc of the nChannels run: Ring, Tree, CollNet Chain (run_channels) */
    if (nc != in->channels && C > 0 && (a == CS_NCCL_RING || a == CS_NCCL_TREE || a == CS_NCCL_COLLNET_CHAIN)) {
        share = nc / C;
        B *= share;
        C = nc;
    }
    double busbw;
    if (a == CS_NCCL_RING) {
        busbw = B;                                                                /* tuning.cc:306, 324 */
        if (p == CS_NCCL_LL) busbw = dmin(llmax, busbw * .5);                       /* tuning.cc:327 */
        if (p == CS_NCCL_LL128) busbw = dmin(busbw * .92, C * RING_LL128_CH_BW[in->arch]); /* :328-329 */
    } else if (a == CS_NCCL_TREE) {
        busbw = dmin(B * .92, C * TREE_CH_BW[in->arch][ix]);                      /* tuning.cc:330-331 */
        if (p == CS_NCCL_LL) busbw = dmin(busbw / 3.8, llmax);                    /* :332 */
        /* :333-335: 7/9 on one node, 120/128 across nodes */
        if (p == CS_NCCL_LL128)
            busbw = dmin(busbw * (multi(in) ? 120.0 / 128.0 : 7.0 / 9.0), C * TREE_LL128_CH_BW[in->arch][ix]);
        /* :336 (x 0.85 when the tree graph's pattern is NCCL_TOPO_PATTERN_TREE) is not applied: with a NIC
         * per GPU NCCL's search keeps its first pattern, the balanced tree */
    } else if (a == CS_NCCL_NVLS_TREE || (a == CS_NCCL_NVLS && multi(in))) {
        /* tuning.cc:307-324 on NCCL's NVLS graph (init.cc:980-981), whose channels are its heads: a GPU
         * with its NIC each, at most 32 (search.cc:1126-1127, 754-767): H = min(ppn, 32) channels, bwIntra
         * = NVLink / H, bwInter = min(NVLink, H NIC) / H (search.cc not modelled).  NVLS across nodes
         * (NVLS + SHARP): the same graph, bwInter not doubled on 2 nodes and no perChMaxNVLSTreeBw cap */
        double ppn = n / (double)in->nnodes;
        double H = ppn < MAX_NVLS_ARITY ? ppn : MAX_NVLS_ARITY;
        double intra = (in->bw_gbps / H) * NVLS_EFF[in->arch] * (H - 1) / H * 2.0; /* all-reduce x 2 */
        double inter = dmin(in->bw_gbps, H * in->net_bw_gbps) / H;
        if (a == CS_NCCL_NVLS) busbw = H * dmin(intra, inter);
        else busbw = H * dmin(dmin(intra, inter * (in->nnodes <= 2 ? 2.0 : 1.0)), NVLS_TREE_CH_BW[in->arch][ix]);
    } else if (a == CS_NCCL_COLLNET_DIRECT || a == CS_NCCL_COLLNET_CHAIN) {
        /* CollNet's graphs (search.cc, not modelled): Direct's channels are its heads, a GPU with its NIC
         * each, at most 8 (search.cc:1129-1130, 754-767): H = min(ppn, 8); Chain's channels are the ring's
         * (init.cc:1189-1194), leaving the node through its ppn NICs.  bw = bwIntra for CollNet on any
         * number of nodes (tuning.cc:306), which the search raises up to 2 bwInter (search.cc:1279-1282,
         * "2 nodes or collnet"); all channels share the GPU's NVLink: nChannels x bwIntra = min(NVLink, 2 x
         * heads x NIC), heads = H (Direct), ppn (Chain) */
        double ppn = n / (double)in->nnodes;
        double H = a == CS_NCCL_COLLNET_DIRECT ? dmin(ppn, MAX_DIRECT_RANKS) : ppn;
        busbw = dmin(in->bw_gbps, 2.0 * H * in->net_bw_gbps);
        if (a == CS_NCCL_COLLNET_CHAIN) busbw *= share;
        if (a == CS_NCCL_COLLNET_DIRECT) {
            /* tuning.cc:343-349: / the GPU:NIC ratio f = ppn / H, less (f - 1) / 2; x 0.85 from Hopper on */
            double f = ppn / H;
            busbw /= f - (f - 1) / 2;
            if (in->arch >= CS_NCCL_HOPPER) busbw *= .85;
        }
    } else if (a == CS_NCCL_PAT) {
        busbw = .75 * B; /* tuning.cc:337; all-gather and reduce-scatter: not converted (:376) */
    } else {
        /* one node: NCCL's NVLS graph has H = min(n, 32) channels, all its GPUs pulling from the switch
         * (search.cc:1126-1127; 1135-1137: on one node minChannels = maxChannels, so exactly that many), not
         * nccl-channels; bwIntra B / H each (search.cc not modelled) */
        C = n < MAX_NVLS_ARITY ? n : MAX_NVLS_ARITY;
        double per = (B / C) * NVLS_EFF[in->arch] * (C - 1) / C; /* tuning.cc:311-312 */
        per *= ar ? 2.0 : (n - 1) / n;                           /* tuning.cc:314-318 */
        busbw = C * per;                                         /* tuning.cc:324 */
    }
    /* bus -> algorithm bandwidth, tuning.cc:376-382: ring and NVLS x nRanks / nsteps, tree and CollNet x
     * 0.5; NVLS all-gather / reduce-scatter unchanged */
    double algbw = busbw;
    if (a == CS_NCCL_RING || (a == CS_NCCL_NVLS && ar) || a == CS_NCCL_NVLS_TREE) algbw *= n / nsteps;
    else if (a == CS_NCCL_TREE || a == CS_NCCL_COLLNET_DIRECT || a == CS_NCCL_COLLNET_CHAIN) algbw *= .5;
    if (busbw_out) *busbw_out = busbw;
    if (algbw_out) *algbw_out = algbw;
    double bw = algbw;
    int ls = log2i(in->nbytes >> 6); /* tuning.cc:639-642 */
    if (a == CS_NCCL_TREE && ls >= 0 && ls < 23) bw *= TREE_CORR[p][ls];
    /* tuning.cc:643-646: NVLS-tree's too, from Blackwell on x86 (nccl-cpu is x86) */
    if (a == CS_NCCL_NVLS_TREE && in->arch >= CS_NCCL_BLACKWELL && ls >= 0 && ls < 24) bw *= TREE_CORR[p][ls];
    if (!(bw > 0)) return -1;
    if (effbw_out) *effbw_out = bw;
    return (double)lat_ns / 1000.0 + (double)in->nbytes / (1000.0 * bw); /* tuning.cc:653, one operation */
}

int cs_nccl_choose(const cs_nccl_in *in, cs_nccl_choice *out) {
    double best = -1;
    int ba = -1, bp = -1;
    static const int ORDER[] = {CS_NCCL_TREE,  CS_NCCL_RING,      CS_NCCL_COLLNET_DIRECT, CS_NCCL_COLLNET_CHAIN,
                                CS_NCCL_NVLS, CS_NCCL_NVLS_TREE, CS_NCCL_PAT}; /* NCCL's */
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
    out->run_channels = cs_nccl_run_channels(in, ba, bp);
    if (out->run_channels != in->channels) /* the run's bandwidths, on fewer channels than the prediction's */
        time_nc(in, ba, bp, out->run_channels, &out->busbw_gbps, &out->algbw_gbps, &out->effbw_gbps);
    out->lat_ns = (uint64_t)cs_nccl_latency_ns(in, ba, bp, &out->net_lat_ns);
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
    case CS_NCCL_COLLNET_DIRECT: return "CollNetDirect";
    case CS_NCCL_COLLNET_CHAIN: return "CollNetChain";
    case CS_NCCL_NVLS: return "NVLS";
    case CS_NCCL_NVLS_TREE: return "NVLSTree";
    case CS_NCCL_PAT: return "PAT";
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

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

uint32_t cs_nccl_group_fits(const uint32_t *ranks, uint32_t n, uint32_t np0) {
    if (n == 0 || np0 == 0) return 0;
    uint32_t first = ranks[0] / np0, k = 0;
    for (uint32_t i = 0; i < n; i++) k += ranks[i] / np0 == first;
    if (k == n) return n; /* one node */
    if (n % k) return 0;
    uint32_t nb = n / k;
    uint32_t *node = cs_malloc((size_t)nb * sizeof *node);
    int ok = 1;
    for (uint32_t b = 0; ok && b < nb; b++) {
        node[b] = ranks[(size_t)b * k] / np0;
        for (uint32_t i = 1; ok && i < k; i++) ok = ranks[(size_t)b * k + i] / np0 == node[b];
    }
    if (ok) qsort(node, nb, sizeof *node, cmp_u32);
    for (uint32_t b = 1; ok && b < nb; b++) ok = node[b] != node[b - 1]; /* no node twice */
    cs_free(node);
    return ok ? k : 0;
}
