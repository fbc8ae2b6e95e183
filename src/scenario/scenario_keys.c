/*
 * scenario_keys.c -- the typed sections of the scenario namespace: run.*,
 * plan.*, model.*, device.* (see scenario_int.h).  Each key is declared once
 * here with its type, default, range, unit and help; the option engine
 * (core/opts.h) turns the tables into parsing, checking, the dump and
 * `--help-config`.  The ASTRA-sim sections (network.*, system.*, memory.*,
 * comm-groups.*) keep the tables of their readers in src/config.
 */
#include "scenario/scenario_int.h"

#include <float.h>
#include <stddef.h>

#define R(f) offsetof(cs_run_params, f)
static const char *const SYMMETRY[] = {"auto", "off", "require", NULL};
static const cs_opt RUN_OPTS[] = {
    {.key = "workload", .type = CS_OPT_STR, .nodef = 1, .off = R(workload),
     .help = "Chakra traces PREFIX.<rank>.et, one per NPU, or one file every rank runs "
             "(ASTRA-sim --workload-configuration), or an ASTRA-sim 1.0 / SimAI text workload (FILE.txt, "
             "or a file whose first word is its parallelism policy); leave unset for a generated plan "
             "(model.name)"},
    {.key = "backend", .type = CS_OPT_STR, .def_str = "analytical", .off = R(backend),
     .help = "network backend: analytical, analytical-congestion, flow, packet (docs/network.md)"},
    {.key = "placement", .type = CS_OPT_STR, .def_str = "contiguous", .off = R(placement),
     .help = "graph backends: ranks onto NPUs: contiguous, random[:SEED], strided:K, pack"},
    {.key = "compare-healthy", .type = CS_OPT_BOOL, .off = R(compare_healthy),
     .help = "also simulate the run without its failures and timed changes (graph backends) and without its "
             "stragglers (slow-ranks, compute-jitter): the report's slowdown"},
    {.key = "slow-ranks", .type = CS_OPT_STR, .nodef = 1, .off = R(slow_ranks),
     .help = "stragglers: RANK[-RANK]:FACTOR,... -- those ranks' GPU compute takes FACTOR times as long (a slower "
             "or throttled GPU; < 1 is faster), e.g. 3:1.25,16-23:1.1"},
    {.key = "slow-nics", .type = CS_OPT_STR, .nodef = 1, .off = R(slow_nics),
     .help = "stragglers: RANK[-RANK]:FACTOR,... -- those ranks' NICs (graph backends: every link of the rank's NPU "
             "and of a NIC node attached to it) run at FACTOR x their bandwidth, FACTOR in (0, 1], e.g. 7:0.5"},
    {.key = "attribute-stragglers", .type = CS_OPT_BOOL, .off = R(attribute_stragglers),
     .help = "attribute the step's loss to each straggler: the run again without each item of run.slow-ranks and "
             "run.slow-nics (and without run.compute-jitter); each item's loss is the time it adds (leave-one-out)"},
    {.key = "compute-jitter", .type = CS_OPT_NUM, .min = 0, .max = 2, .off = R(compute_jitter),
     .help = "every GPU compute node's time times a lognormal draw of mean 1 with this coefficient of variation "
             "(0 = none), seeded by run.jitter-seed, the rank and the node id"},
    {.key = "jitter-seed", .type = CS_OPT_INT, .def = 1, .min = 0, .max = 2147483647, .off = R(jitter_seed),
     .help = "seed of run.compute-jitter (a sweep's seeds dimension gives the spread)"},
    {.key = "symmetry", .type = CS_OPT_ENUM, .values = SYMMETRY, .off = R(symmetry),
     .help = "auto: simulate one representative rank (or one per class) when every rank provably "
             "follows its timeline (identical results); off: simulate every rank; require: as auto, but "
             "fail with the reason instead of simulating every rank"},
    {.key = "comm-streams", .type = CS_OPT_INT, .min = 0, .max = 1000000, .off = R(comm_streams),
     .help = "communication operations a rank runs at once; 0 = the workload's default: 1 for "
             "traces (ASTRA-sim), 4 for generated plans, 1000000 (all) for text workloads (ASTRA-sim 1.0, SimAI)"},
    {.key = "injection-scale", .type = CS_OPT_NUM, .def = 1, .min = 0, .min_open = 1, .max = 1e9,
     .off = R(injection_scale), .help = "ASTRA-sim --injection-scale: endpoint-delay scale"},
    {.key = "ignore-ctrl-deps", .type = CS_OPT_BOOL, .off = R(ignore_ctrl_deps),
     .help = "honour data dependencies only (Chakra v1 feeder behaviour)"},
    {.key = "allow-missing-data-deps", .type = CS_OPT_BOOL, .off = R(allow_missing_data_deps),
     .help = "drop data dependencies on nodes absent from a trace (default: error)"},
    {.key = "num-queues-per-dim", .type = CS_OPT_INT, .def = 1, .min = 1, .max = 1000000,
     .off = R(num_queues_per_dim), .help = "ASTRA-sim: queues per dimension (only 1 is modelled)"},
    {.key = "compute-scale", .type = CS_OPT_NUM, .def = 1, .min = 0, .min_open = 1, .max = 1e9,
     .off = R(compute_scale), .help = "ASTRA-sim: parsed, unused by its analytical backend"},
    {.key = "comm-scale", .type = CS_OPT_NUM, .def = 1, .min = 0, .min_open = 1, .max = 1e9,
     .off = R(comm_scale), .help = "ASTRA-sim: communication size scale (not modelled: warns unless 1)"},
    {.key = "rendezvous-protocol", .type = CS_OPT_BOOL, .off = R(rendezvous),
     .help = "ASTRA-sim: rendezvous send/recv (not modelled: sends are eager)"},
};

#define P(f) offsetof(cs_plan_params, f)
static const char *const CP_COMM[] = {"allgather", "p2p", "ring", NULL};
static const char *const RECOMPUTE[] = {"none", "selective", "full", NULL};
static const char *const SCHEDULE[] = {"gpipe", "1f1b", NULL};
static const char *const FSDP_STRATEGY[] = {"none", "FULL_SHARD", "SHARD_GRAD_OP", "HYBRID_SHARD", "_HYBRID_SHARD_ZERO2",
                                            NULL};
static const char *const REDUCE_DTYPE[] = {"bf16", "fp32", NULL};
static const char *const PHASE[] = {"train", "prefill", "decode", NULL};
static const cs_opt PLAN_OPTS[] = {
    {.key = "tp", .type = CS_OPT_INT, .def = 1, .min = 1, .max = 1000000, .off = P(tp),
     .help = "tensor-parallel degree"},
    {.key = "pp", .type = CS_OPT_INT, .def = 1, .min = 1, .max = 1000000, .off = P(pp),
     .help = "pipeline-parallel degree"},
    {.key = "dp", .type = CS_OPT_INT, .def = 1, .min = 1, .max = 1000000, .off = P(dp),
     .help = "data-parallel degree"},
    {.key = "ep", .type = CS_OPT_INT, .def = 1, .min = 1, .max = 1000000, .off = P(ep),
     .help = "expert-parallel degree for MoE models (a divisor of dp and of the expert count)"},
    {.key = "cp", .type = CS_OPT_INT, .def = 1, .min = 1, .max = 1000000, .off = P(cp),
     .help = "context-parallel degree: each rank holds seq / cp tokens of every sequence"},
    {.key = "cp-comm", .type = CS_OPT_ENUM, .values = CP_COMM, .off = P(cp_comm),
     .help = "context parallelism's attention: all-gather K/V over the CP group (Llama 3), or ring "
             "attention passing K/V blocks (p2p; ring is a synonym)"},
    {.key = "placement", .type = CS_OPT_STR, .nodef = 1, .off = P(placement),
     .help = "order of the parallel dimensions on the ranks, innermost (contiguous) first; unset = "
             "tp,cp,dp,pp (cp may be left out: then just outside tp)"},
    {.key = "sp", .type = CS_OPT_BOOL, .off = P(sp), .help = "sequence parallelism (with tp > 1)"},
    {.key = "flash-attention", .type = CS_OPT_BOOL, .off = P(flash),
     .help = "fused attention: the s x s scores never reach HBM; the backward recomputes them; the tiles above the causal diagonal are skipped (1/2 + 64/s of the scores computed)"},
    {.key = "recompute", .type = CS_OPT_ENUM, .values = RECOMPUTE, .off = P(recompute),
     .help = "activation recomputation"},
    {.key = "micro-batch", .type = CS_OPT_INT, .min = 0, .max = 1000000000, .off = P(micro_batch),
     .help = "micro-batch size in sequences, images or samples; 0 = the family's default (1 sequence; "
             "resnet50, dlrm: global batch / dp)"},
    {.key = "global-batch", .type = CS_OPT_INT, .min = 0, .max = 1000000000, .off = P(global_batch),
     .help = "global batch; 0 = the family's default (micro-batch x dp x pp; resnet50: 32 dp; dlrm: 512 dp)"},
    {.key = "schedule", .type = CS_OPT_ENUM, .def = 1, .values = SCHEDULE, .off = P(schedule),
     .help = "pipeline schedule"},
    {.key = "virtual-stages", .type = CS_OPT_INT, .def = 1, .min = 1, .max = 1000000, .off = P(vstages),
     .help = "interleaved 1F1B: model chunks per pipeline stage (1 = plain 1F1B)"},
    {.key = "layout", .type = CS_OPT_STR, .nodef = 1, .off = P(layout),
     .help = "what each virtual pipeline stage holds, as Megatron-LM's --pipeline-model-parallel-layout: E "
             "(embedding), t (decoder layer), L (output layer and loss), | between stages (virtual rank 0's pp "
             "stages first), t*N and (...)*N repeats, e.g. \"E|(t|)*126L\"; sets virtual-stages to stages / pp; "
             "unset = the default split (docs/generator.md)"},
    {.key = "zero", .type = CS_OPT_INT, .min = 0, .max = 3, .off = P(zero),
     .help = "ZeRO stage: optimizer (1), + gradients (2), + weights (3) sharded over DP"},
    {.key = "fsdp", .type = CS_OPT_BOOL, .off = P(fsdp), .help = "fully sharded data parallel (zero 3)"},
    {.key = "use-distributed-optimizer", .type = CS_OPT_BOOL, .off = P(dist_opt),
     .help = "Megatron-LM's distributed optimizer: optimizer state sharded over DP (zero 1), fp32 gradients "
             "reduce-scattered once per step (4 bytes each), bf16 parameters all-gathered after the step: 6 + 12/dp "
             "bytes per parameter"},
    {.key = "fsdp-sharding-strategy", .type = CS_OPT_ENUM, .values = FSDP_STRATEGY, .off = P(fsdp_strategy),
     .help = "PyTorch FSDP's ShardingStrategy with its per-unit schedule (a unit per layer): FULL_SHARD (zero 3: "
             "parameters gathered before every forward and backward) or SHARD_GRAD_OP (zero 2: gathered before the "
             "forward, kept for the backward); gradients reduce-scattered per unit after its backward; HYBRID_SHARD "
             "and _HYBRID_SHARD_ZERO2 (HSDP) do the same within shard groups of plan.hsdp-shard-size DP ranks and "
             "all-reduce the gradient shards across the groups"},
    {.key = "hsdp-shard-size", .type = CS_OPT_INT, .min = 0, .max = 1000000, .off = P(hsdp_shard), .unit = "DP ranks",
     .help = "HSDP: DP ranks of a shard group (consecutive DP indices; a divisor of dp); required with the hybrid "
             "strategies"},
    {.key = "fsdp-no-sync", .type = CS_OPT_BOOL, .off = P(fsdp_no_sync),
     .help = "gradient accumulation under FSDP's no_sync(): gradients accumulate unsharded and are "
             "reduce-scattered in the last micro-batch only; with SHARD_GRAD_OP the parameters are gathered once "
             "and kept for the step (Llama 3)"},
    {.key = "fsdp-reduce-dtype", .type = CS_OPT_ENUM, .values = REDUCE_DTYPE, .off = P(fsdp_reduce_dtype),
     .help = "FSDP MixedPrecision reduce_dtype: bf16 (2-byte gradients) or fp32 (4-byte gradients, accumulated and "
             "reduce-scattered in fp32, as Llama 3)"},
    {.key = "kernel-overhead-us", .type = CS_OPT_NUM, .min = 0, .max = 1e6, .off = P(kernel_overhead_us),
     .unit = "us", .help = "time added to every generated GPU kernel (COMP node): launch and framework overhead not "
                           "hidden by asynchronous launches; 0 = none (docs/generator.md)"},
    {.key = "bucket-mparams", .type = CS_OPT_INT, .min = 0, .max = 1000000000, .off = P(bucket_mparams),
     .unit = "M parameters", .help = "DP gradient bucket; 0 = the family's default (40; resnet50, dlrm: 12.5)"},
    {.key = "bucket-mb", .type = CS_OPT_INT, .min = 0, .max = 1000000000, .off = P(bucket_mb), .unit = "MB",
     .help = "DP gradient bucket in MB of 2-byte gradients (instead of bucket-mparams); 0 = unset"},
    {.key = "no-overlap-grad-reduce", .type = CS_OPT_BOOL, .off = P(no_grad_overlap),
     .help = "reduce the gradients after the last backward pass, one collective per group"},
    {.key = "async-tensor-model-parallel-allreduce", .type = CS_OPT_BOOL, .off = P(async_tp),
     .help = "Megatron-LM's asynchronous TP reduction: the input gradient of the QKV, the MLP's first layer "
             "and the output layer all-reduced (reduce-scattered with sp) while the weight gradient computes "
             "(Megatron-LM's default from 2022-02; off: the 2021 code, blocking)"},
    {.key = "gradient-accumulation-fusion", .type = CS_OPT_BOOL, .off = P(ga_fusion),
     .help = "Megatron-LM's gradient-accumulation fusion: the linear layers' weight-gradient GEMMs add into an "
             "fp32 main_grad (no accumulation kernel; fp32 gradients reduced; default from 2022-02 with fp32 "
             "accumulation; off: the 2021 code)"},
    {.key = "offload-optimizer", .type = CS_OPT_BOOL, .off = P(offload_opt),
     .help = "ZeRO-Offload style: the optimizer state (12 bytes per parameter of the rank's shard) lives in remote "
             "memory (memory.*, not HBM); the optimizer step loads it and stores it back (MEM_LOAD / MEM_STORE)"},
    {.key = "phase", .type = CS_OPT_ENUM, .values = PHASE, .off = P(phase),
     .help = "train: a training step; prefill or decode: one serving step of a transformer -- one batch of "
             "micro-batch sequences per DP rank forward, no backward (docs/inference.md)"},
    {.key = "context-tokens", .type = CS_OPT_INT, .min = 0, .max = 100000000, .off = P(context_tokens),
     .unit = "tokens", .help = "serving steps: the tokens attention sees per sequence -- the prompt (prefill), "
                                "the cache including the new token (decode)"},
    {.key = "kv-tokens", .type = CS_OPT_INT, .min = 0, .max = 100000000, .off = P(kv_tokens), .unit = "tokens",
     .help = "serving steps: KV-cache tokens held per sequence for the memory check; 0 = context-tokens"},
    {.key = "mlp-reduce-bytes-per-token", .type = CS_OPT_INT, .min = 0, .max = 1000000000, .off = P(mlp_reduce_bytes),
     .unit = "bytes", .help = "serving steps of a dense transformer: each layer's MLP all-reduce (ar2) carries this many "
                              "bytes per token instead of 2 x hidden -- the partial results that still cross workers "
                              "after a neuron partition (clustersim partition, docs/inference.md); 0 = dense"},
    {.key = "no-memory-check", .type = CS_OPT_BOOL, .off = P(no_memory_check),
     .help = "simulate even if the plan does not fit in HBM"},
};

static const cs_opt MODEL_OPTS[] = {
    {.key = "name", .type = CS_OPT_STR, .nodef = 1, .off = offsetof(cs_model_params, name),
     .help = "model preset (gpt3-175b, llama3-70b, ...) or model JSON file (models/); setting it makes "
             "the workload a generated plan"},
};
static const cs_opt DEVICE_OPTS[] = {
    {.key = "name", .type = CS_OPT_STR, .def_str = "A100-80GB", .off = offsetof(cs_device_params, name),
     .help = "device preset (A100-80GB, H100-SXM, H200, B200, MI300X, A100-40GB) or device JSON file"},
};

#define I(f) offsetof(cs_ingest_params, f)
static const cs_opt INGEST_OPTS[] = {
    {.key = "bytes-per-sample", .type = CS_OPT_NUM, .min = 0, .max = 1e15, .off = I(bytes_per_sample),
     .unit = "bytes", .help = "raw input read from storage per sample (sequence, image, sample); 0 = no input "
                              "pipeline: no ingest nodes (docs/ingest.md)"},
    {.key = "storage-read-gbps", .type = CS_OPT_NUM, .def = 25, .min = 0, .min_open = 1, .max = 1e9,
     .off = I(storage_read_gbps), .unit = "GB/s (1e9 bytes/s)",
     .help = "storage read bandwidth of one ingest host (the cost model's storage / preprocessing hosts, one per "
             "cost.storage-npus-per-host accelerators), shared equally by the loading ranks"},
    {.key = "preprocess-samples-per-s", .type = CS_OPT_NUM, .min = 0, .max = 1e15,
     .off = I(preprocess_samples_per_s), .unit = "samples/s",
     .help = "preprocessing throughput of one ingest host (decode, augment, tokenize), shared equally by the "
             "loading ranks; required (> 0) with ingest.bytes-per-sample"},
    {.key = "prefetch-depth", .type = CS_OPT_INT, .def = 2, .min = 1, .max = 1000000, .off = I(prefetch_depth),
     .unit = "micro-batches", .help = "how far the data loader runs ahead: batch i is read once batch i - depth "
                                      "has been consumed (its first forward node done)"},
    {.key = "h2d-gbps", .type = CS_OPT_NUM, .def = 31.5, .min = 0, .min_open = 1, .max = 1e9, .off = I(h2d_gbps),
     .unit = "GB/s (1e9 bytes/s)", .help = "host-to-device copy bandwidth of one accelerator (PCIe 4.0 x16)"},
    {.key = "h2d-bytes-per-sample", .type = CS_OPT_NUM, .min = 0, .max = 1e15, .off = I(h2d_bytes_per_sample),
     .unit = "bytes", .help = "preprocessed bytes copied to the device per sample; 0 = bytes-per-sample"},
};

#define SV(f) offsetof(cs_serve_params, f)
static const char *const ARRIVALS[] = {"poisson", "uniform", NULL};
static const cs_opt SERVE_OPTS[] = {
    {.key = "batch", .type = CS_OPT_INT, .def = 1, .min = 1, .max = 1000000, .off = SV(batch), .unit = "sequences",
     .help = "static batch: requests per batch and DP rank (partial batches run padded to it)"},
    {.key = "prompt-tokens", .type = CS_OPT_INT, .def = 512, .min = 1, .max = 10000000, .off = SV(prompt_tokens),
     .unit = "tokens", .help = "prompt tokens per request (P)"},
    {.key = "output-tokens", .type = CS_OPT_INT, .def = 128, .min = 1, .max = 10000000, .off = SV(output_tokens),
     .unit = "tokens", .help = "tokens generated per request (O): the first by the prefill, O - 1 decode steps"},
    {.key = "requests", .type = CS_OPT_INT, .min = 0, .max = 10000000, .off = SV(requests),
     .help = "requests arriving (0 = one full batch at time 0)"},
    {.key = "arrival-rate", .type = CS_OPT_NUM, .def = 1, .min = 0, .min_open = 1, .max = 1e12, .off = SV(arrival_rate),
     .unit = "requests/s", .help = "mean arrival rate of the requests"},
    {.key = "arrivals", .type = CS_OPT_ENUM, .values = ARRIVALS, .off = SV(arrivals),
     .help = "poisson: exponential gaps (serve.seed); uniform: request i arrives at i / arrival-rate"},
    {.key = "seed", .type = CS_OPT_INT, .def = 1, .min = 0, .max = 2147483647, .off = SV(seed),
     .help = "seed of the Poisson arrivals"},
};

const cs_sc_section CS_SC_SECTIONS[] = {
    {"run", RUN_OPTS, sizeof RUN_OPTS / sizeof RUN_OPTS[0], sizeof(cs_run_params),
     "how the run is set up: workload source, backend, topology, symmetry"},
    {"plan", PLAN_OPTS, sizeof PLAN_OPTS / sizeof PLAN_OPTS[0], sizeof(cs_plan_params),
     "parallelism plan of a generated training step (docs/generator.md)"},
    {"model", MODEL_OPTS, 1, sizeof(cs_model_params), "the model of a generated training step"},
    {"device", DEVICE_OPTS, 1, sizeof(cs_device_params),
     "the accelerator: a generated step's compute, and every run's power and price (cost.*)"},
    {"cost", CS_COST_OPTS, CS_COST_NKEYS, sizeof(cs_cost_params),
     "the cost and power model: prices, power figures, facility (docs/cost.md); every run reports them"},
    {"ingest", INGEST_OPTS, sizeof INGEST_OPTS / sizeof INGEST_OPTS[0], sizeof(cs_ingest_params),
     "the input pipeline of a generated step: storage, preprocessing, prefetch, host-to-device copy "
     "(docs/ingest.md)"},
    {"serve", SERVE_OPTS, sizeof SERVE_OPTS / sizeof SERVE_OPTS[0], sizeof(cs_serve_params),
     "clustersim serve: batching, prompt and output tokens, request arrivals (docs/inference.md)"},
    {NULL, NULL, 0, 0, NULL},
};
