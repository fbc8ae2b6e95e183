/*
 * nccl_model.h -- NCCL's tuning model (collective-model nccl): for one
 * all-reduce, all-gather or reduce-scatter on one node or on nNodes nodes
 * joined by a network (NET: one NIC per GPU, rail-aligned), the algorithm and
 * protocol NCCL would pick, the time it predicts, and what the system layer
 * then simulates: the launch cost, the latency of each step and the
 * bandwidth efficiency.  Pure functions over NCCL's published constants (no
 * state); the planner (planner.c) calls it and runs the choice through the
 * registered algorithms (ring = NCCL's ring and its one-node tree,
 * a chain; inSwitch = NVLS; across nodes every choice is a ring of the
 * nodes on the NET dimension carrying NCCL's time, or, for the in-network
 * reductions (CollNet, NVLS + SHARP), inSwitch on it).  Owned by the
 * system layer.  The model, its constants and their file:line in NCCL are
 * docs/collectives.md, "The nccl model"; written from reading NCCL's
 * src/graph/tuning.cc and src/enqueue.cc, no code taken from it.
 */
#ifndef CS_SYSTEM_NCCL_MODEL_H
#define CS_SYSTEM_NCCL_MODEL_H

#include <stdint.h>

/* GPU generations (NCCL's compCapIndex), the values of nccl-arch. */
typedef enum { CS_NCCL_VOLTA = 0, CS_NCCL_AMPERE = 1, CS_NCCL_HOPPER = 2, CS_NCCL_BLACKWELL = 3 } cs_nccl_arch;
/* NCCL's algorithm and protocol numbers (those this model knows). */
enum {
    CS_NCCL_TREE = 0,
    CS_NCCL_RING = 1,
    CS_NCCL_COLLNET_DIRECT = 2,
    CS_NCCL_COLLNET_CHAIN = 3,
    CS_NCCL_NVLS = 4,
    CS_NCCL_NVLS_TREE = 5,
    CS_NCCL_PAT = 6,
    CS_NCCL_NALGO = 7
};
enum { CS_NCCL_LL = 0, CS_NCCL_LL128 = 1, CS_NCCL_SIMPLE = 2, CS_NCCL_NPROTO = 3 };
/* CPU vendors (NCCL's cpuVendor; multi-node LL bandwidth cap and net overhead). */
enum { CS_NCCL_CPU_INTEL = 0, CS_NCCL_CPU_AMD = 1 };
/* Collectives (NCCL's ncclFunc order is not needed: our own). */
enum { CS_NCCL_ALL_REDUCE = 0, CS_NCCL_ALL_GATHER = 1, CS_NCCL_REDUCE_SCATTER = 2 };

typedef struct cs_nccl_in {
    int coll;          /* CS_NCCL_ALL_REDUCE, ... */
    uint32_t nranks;   /* ranks of the communicator (nnodes x ranks per node) */
    uint64_t nbytes;   /* NCCL's nBytes: all-reduce its buffer, all-gather the gathered buffer,
                          reduce-scatter the input buffer */
    double bw_gbps;    /* the dimension's bandwidth, GB/s = bytes/ns (NCCL's nChannels x bwIntra) */
    int channels;      /* nChannels of the rings and trees (nccl-channels); NVLS: its own graph, min(n, 32) one node */
    cs_nccl_arch arch;
    int nvls;          /* NVLS available: a Switch dimension, nccl-nvls, arch >= Hopper (NVLS on one node,
                          NVLS-tree across nodes) */
    /* Multi-node (nnodes >= 2; 0 and 1 mean one node and the fields below are unused): */
    uint32_t nnodes;      /* NCCL's nNodes; nranks / nnodes ranks per node (ppn), each with its NIC */
    double net_bw_gbps;   /* one NIC's bandwidth (the NET dimension's), GB/s */
    int cpu;              /* CS_NCCL_CPU_*: nccl-cpu */
    int collnet;          /* CollNet (SHARP) enabled: nccl-collnet (NCCL_COLLNET_ENABLE=1 with a CollNet plugin)
                             and the NET dimension a Switch that reduces in-network: CollNet Direct and Chain,
                             and NVLS across nodes (NVLS + SHARP), become all-reduce candidates */
    int nvswitch;         /* the node's GPUs are joined by an NVSwitch (dimension 0 a Switch): CollNet Direct
                             needs it (tuning.cc:508-509) */
} cs_nccl_in;

/* What the system layer runs: Ring and Tree (NCCL's one-node tree is a chain
 * up and down: 2(n-1) steps, as its latency counts them) on the ring
 * algorithm, NVLS on inSwitch; across nodes CollNet Direct, CollNet Chain and
 * NVLS (SHARP) on inSwitch of the NET dimension, the others on its ring
 * (planner.c). */
typedef struct cs_nccl_choice {
    int algo, proto;     /* CS_NCCL_* */
    double time_us;      /* NCCL's predicted time of the choice, with all nChannels (what picks it) */
    int run_channels;    /* the channels NCCL then runs it on (cs_nccl_run_channels): nChannels but for
                            small sizes of Ring, Tree and CollNet Chain (NVLS, NVLS-tree, CollNet Direct
                            and PAT: nChannels, their formulas counting their own graph's channels) */
    /* The bandwidths of the run, on run_channels (equal to those of time_us when all channels run): */
    double busbw_gbps;   /* its bandwidth after the protocol refinements, before bus -> algorithm */
    double algbw_gbps;   /* its algorithm bandwidth (bus -> algorithm) */
    double effbw_gbps;   /* nBytes / effbw is the bandwidth term of the run (of time_us with all
                            channels): algbw, x the tree's treeCorrectionFactor */
    uint64_t launch_ns;  /* one node: paid once before the first step: baseLat[algo][proto] */
    uint64_t step_ns;    /* one node: paid per step (packet bundle) of the simulated algorithm */
    uint64_t lat_ns;     /* NCCL's latency term of time_us (ring plateau included), ns */
    uint64_t net_lat_ns; /* multi-node: the part of lat_ns paid on NET steps (ring: nInterSteps x
                            interLat; tree: 2 log2(nNodes) interLat); 0 on one node */
} cs_nccl_choice;

/* The (algorithm, protocol) with the least predicted time, as NCCL's
 * topoGetAlgoInfo picks it; ties keep the first in NCCL's order (algorithm,
 * then protocol).  Returns 0, or -1 when no candidate exists (nranks < 2). */
int cs_nccl_choose(const cs_nccl_in *in, cs_nccl_choice *out);
/* NCCL's predicted time (us) of one (algorithm, protocol), or -1 when it is
 * not a candidate; *busbw / *algbw / *effbw (GB/s, each may be NULL) as in
 * cs_nccl_choice. */
double cs_nccl_time_us(const cs_nccl_in *in, int algo, int proto, double *busbw, double *algbw, double *effbw);
/* The channels NCCL runs one (algorithm, protocol) on for in->nbytes, after
 * choosing it (enqueue.cc's channel tuning): in->channels less one while the
 * size gives each channel's threads less than their threshold, for Ring,
 * Tree and CollNet Chain; in->channels for the others (NVLS: its own graph,
 * whose channels the bandwidth formula already counts). */
int cs_nccl_run_channels(const cs_nccl_in *in, int algo, int proto);
/* NCCL's latency (ns) of one (algorithm, protocol) -- the latency term of
 * cs_nccl_time_us -- and, in *net_ns (may be NULL), its part on NET steps;
 * -1 when no candidate. */
int64_t cs_nccl_latency_ns(const cs_nccl_in *in, int algo, int proto, uint64_t *net_ns);
/* "Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT"; "LL", "LL128", "Simple". */
/* Whether a communicator group of n ranks (file order) is one the nccl
 * model runs on nodes of np0 ranks (docs/collectives.md "Across nodes"):
 * within one node, or the same number k of members on each of its nodes,
 * listed node by node, no node twice.  Returns k, the members per node (n
 * within one node), or 0 when it is not such a group (the planner's ranks
 * per node, planner.c plan_nccl; the generator's system choice,
 * gen/workload.c). */
uint32_t cs_nccl_group_fits(const uint32_t *ranks, uint32_t n, uint32_t np0);
const char *cs_nccl_algo_name(int algo);
const char *cs_nccl_proto_name(int proto);

#endif
