/*
 * system_config.c -- the system layer's parameters (see system_config.h):
 * their names and their key table.
 *
 * OPTS below is the single declaration of every key of the ASTRA-sim system
 * JSON: type, default, bounds, unit, accepted values, help and where it
 * lands in cs_system_config.  The option engine (core/opts.c) turns it into
 * defaults (here), and parsing, messages, the dump and --help (the reader,
 * config/system_config.c).  What a table row cannot say lives here too: the
 * algorithm-list and custom-ET value types.
 */
#include "system/system_config.h"

#include <float.h>
#include <limits.h>
#include <stddef.h>
#include <string.h>

#include "core/opts.h"
#include "core/alloc.h"
#include "core/time.h"

_Static_assert(sizeof(cs_scheduling_policy) == sizeof(int), "enum fields are written as int");
_Static_assert(sizeof(cs_collective_optimization) == sizeof(int), "enum as int");
_Static_assert(sizeof(cs_inter_dim_scheduling) == sizeof(int), "enum as int");
_Static_assert(sizeof(cs_intra_dim_scheduling) == sizeof(int), "enum as int");

static const char *const SCHED_NAMES[] = {"LIFO", "FIFO", "EXPLICIT", NULL};
static const char *const COLLOPT_NAMES[] = {"baseline", "localBWAware", NULL};
static const char *const INTER_NAMES[] = {"ascending",  "offlineGreedy", "offlineGreedyFlex",
                                          "roundRobin", "onlineGreedy",  NULL};
static const char *const INTRA_NAMES[] = {"FIFO", "RG", "smallestFirst",
                                          "lessRemainingPhaseFirst", NULL};
static const char *const COLL_NAMES[] = {"all-reduce", "all-gather", "reduce-scatter",
                                         "all-to-all"};

/* The algorithms themselves are the system layer's registry
 * (system/coll_algo.h): their names, forms and help come from there. */
#define ALGO_TEXT "a list of 1 to 8 collective algorithms (one per dimension; listed below)"

const char *cs_scheduling_policy_name(cs_scheduling_policy p) {
    return (unsigned)p < 3 ? SCHED_NAMES[p] : "unknown";
}
const char *cs_collective_optimization_name(cs_collective_optimization o) {
    return (unsigned)o < 2 ? COLLOPT_NAMES[o] : "unknown";
}
const char *cs_inter_dim_scheduling_name(cs_inter_dim_scheduling s) {
    return (unsigned)s < 5 ? INTER_NAMES[s] : "unknown";
}
const char *cs_intra_dim_scheduling_name(cs_intra_dim_scheduling s) {
    return (unsigned)s < 4 ? INTRA_NAMES[s] : "unknown";
}
const char *cs_cfg_coll_name(cs_cfg_coll c) {
    return (unsigned)c < CS_CFG_NCOLL ? COLL_NAMES[c] : "unknown";
}

static int parse_algo_list(const cs_jdoc *doc, const cs_opt *o, const json_t *v, void *field,
                           cs_error *err) {
    cs_coll_algo_list *l = field;
    int line = cs_jdoc_key_line(doc, o->key);
    char got[320], forms[512];
    cs_coll_algo_forms(forms, sizeof forms);
    if (!json_is_array(v) || json_array_size(v) < 1 || json_array_size(v) > CS_MAX_DIMS) {
        cs_json_repr(v, got, sizeof got);
        return CS_ERR(err, CS_EINVAL, "%s:%d: %s: expected a list of 1 to %d of %s (one per dimension), got %s",
                      doc->path, line, o->key, CS_MAX_DIMS, forms, got);
    }
    memset(l, 0, sizeof *l);
    for (size_t i = 0; i < json_array_size(v); i++) {
        const json_t *e = json_array_get(v, i);
        if (!json_is_string(e) || cs_coll_impl_parse(json_string_value(e), &l->algo[i]) != 0) {
            cs_json_repr(e, got, sizeof got);
            return CS_ERR(err, CS_EINVAL, "%s:%d: %s: expected one of %s for dimension %zu, got %s",
                          doc->path, cs_jdoc_elem_line(doc, o->key, i), o->key, forms, i, got);
        }
    }
    l->n = (int)json_array_size(v);
    l->line = line;
    return CS_OK;
}

static json_t *dump_algo_list(const cs_opt *o, const void *field) {
    (void)o;
    const cs_coll_algo_list *l = field;
    if (l->n == 0) return NULL;
    json_t *a = json_array();
    char buf[CS_COLL_IMPL_TEXT_MAX + 64];
    for (int i = 0; i < l->n; i++)
        json_array_append_new(a, json_string(cs_coll_impl_format(&l->algo[i], buf, sizeof buf)));
    return a;
}

/* *-implementation-custom: a list holding exactly one Chakra ET file name. */
static int parse_path1(const cs_jdoc *doc, const cs_opt *o, const json_t *v, void *field,
                       cs_error *err) {
    char **p = field;
    if (!json_is_array(v) || json_array_size(v) != 1 ||
        !json_is_string(json_array_get(v, 0))) {
        char got[320];
        cs_json_repr(v, got, sizeof got);
        return CS_ERR(err, CS_EINVAL, "%s:%d: %s: expected %s, got %s", doc->path,
                      cs_jdoc_key_line(doc, o->key), o->key, o->type_text, got);
    }
    cs_free(*p);
    *p = cs_strdup(json_string_value(json_array_get(v, 0)));
    return CS_OK;
}

static json_t *dump_path1(const cs_opt *o, const void *field) {
    (void)o;
    const char *const *p = field;
    if (!*p) return NULL;
    json_t *a = json_array();
    json_array_append_new(a, json_string(*p));
    return a;
}

static void free_path1(void *field) {
    char **p = field;
    cs_free(*p);
    *p = NULL;
}

#define OFF(f) offsetof(cs_system_config, f)
#define IMAX ((double)INT_MAX)
#define ALGOS(k, coll)                                                                         \
    {.key = k "-implementation", .type = CS_OPT_CUSTOM, .off = OFF(impl[coll]),                   \
     .type_text = ALGO_TEXT, .parse = parse_algo_list, .dump = dump_algo_list,                 \
     .help = "algorithm of each dimension for " k "; optional: without it (and without "      \
             k "-implementation-custom) a workload that issues " k " is an error"}
#define CUSTOM(k, coll)                                                                        \
    {.key = k "-implementation-custom", .type = CS_OPT_CUSTOM, .off = OFF(custom_impl[coll]),     \
     .type_text = "a list with exactly one Chakra ET file name", .parse = parse_path1,         \
     .dump = dump_path1, .free_fn = free_path1,                                                \
     .help = "custom " k ": the prefix of per-rank Chakra ETs of sends, receives and compute, "  \
             "PREFIX.<rank>.et relative to the working directory, covering all dimensions "   \
             "(ASTRA-sim custom collectives); overrides " k "-implementation"}

static const char *const COMM_QUEUES[] = {"shared", "per-communicator", NULL};
static const char *const COLL_MODELS[] = {"astra", "nccl", NULL};
static const char *const NCCL_ARCHS[] = {"volta", "ampere", "hopper", "blackwell", NULL};
static const char *const NCCL_CPUS[] = {"intel", "amd", NULL};
static const cs_opt OPTS[] = {
    {.key = "scheduling-policy", .type = CS_OPT_ENUM, .required = 1, .def = CS_SCHED_LIFO,
     .values = SCHED_NAMES, .off = OFF(scheduling_policy),
     .help = "order of ready collective chunks (streams): LIFO newest first, FIFO oldest "
             "first, EXPLICIT priority from the trace"},
    /* required unless all-reduce-implementation-custom is set (config/system_config.c checks it) */
    {.key = "collective-optimization", .type = CS_OPT_ENUM,
     .def = CS_COLLOPT_LOCAL_BW_AWARE, .values = COLLOPT_NAMES,
     .off = OFF(collective_optimization),
     .help = "all-reduce over dimensions: baseline = full all-reduce in every dimension, "
             "localBWAware = reduce-scatter up, all-reduce in the last, all-gather down; required "
             "unless all-reduce-implementation-custom is set"},
    {.key = "endpoint-delay", .type = CS_OPT_INT, .def = 10, .min = 0, .max = IMAX, .unit = "ns",
     .off = OFF(endpoint_delay_ns),
     .help = "NPU-to-network delay paid per packet bundle (multiplied by --injection-scale)"},
    {.key = "local-reduction-delay", .type = CS_OPT_INT, .def = 1, .min = 0, .max = IMAX,
     .unit = "ns per 100 bytes", .off = OFF(local_reduction_delay),
     .help = "reduction cost in the LogGP shared-bus model (used only when model-shared-bus "
             "is 1)"},
    {.key = "active-chunks-per-dimension", .type = CS_OPT_INT, .def = 1, .min = 1, .max = IMAX,
     .off = OFF(active_chunks_per_dimension),
     .help = "chunks allowed to run at once in the first-phase queues"},
    {.key = "preferred-dataset-splits", .type = CS_OPT_INT, .required = 1, .def = 4, .min = 1,
     .max = IMAX, .off = OFF(preferred_dataset_splits),
     .help = "number of chunks a collective is split into"},
    ALGOS("all-reduce", CS_CFG_ALL_REDUCE),
    ALGOS("all-gather", CS_CFG_ALL_GATHER),
    ALGOS("reduce-scatter", CS_CFG_REDUCE_SCATTER),
    ALGOS("all-to-all", CS_CFG_ALL_TO_ALL),
    CUSTOM("all-reduce", CS_CFG_ALL_REDUCE),
    CUSTOM("all-gather", CS_CFG_ALL_GATHER),
    CUSTOM("reduce-scatter", CS_CFG_REDUCE_SCATTER),
    CUSTOM("all-to-all", CS_CFG_ALL_TO_ALL),
    {.key = "per-node-custom-implementation", .type = CS_OPT_STR, .off = OFF(per_node_custom_impl),
     .help = "YAML file mapping trace node ids to custom collective prefixes (ASTRA-sim), "
             "relative to the working directory; a node listed there runs that custom graph "
             "whatever the per-type keys say"},
    {.key = "local-mem-bw", .type = CS_OPT_NUM, .required = 1, .def = 1600, .min = 0,
     .min_open = 1, .max = DBL_MAX, .unit = "GB/s", .off = OFF(local_mem_bw_gbps),
     .help = "local memory bandwidth (1 GB = 1e9 bytes): reduction cost 3 x size / bw, and "
             "the memory roof of the roofline model"},
    {.key = "peak-perf", .type = CS_OPT_NUM, .def = 0, .min = 0, .max = DBL_MAX, .unit = "TFLOP/s",
     .off = OFF(peak_perf_tflops),
     .help = "compute roof of the roofline model (required > 0 when roofline-enabled is 1)"},
    {.key = "roofline-enabled", .type = CS_OPT_BOOL, .def = 0, .off = OFF(roofline_enabled),
     .help = "time compute nodes with the roofline model instead of their recorded duration"},
    {.key = "model-shared-bus", .type = CS_OPT_BOOL, .def = 0, .off = OFF(model_shared_bus),
     .help = "use the LogGP shared-bus model (L, o, g, G) instead of a fixed endpoint delay"},
    {.key = "L", .type = CS_OPT_NUM, .def = 0, .min = 0, .max = CS_TIME_MAX_NS_F, .unit = "ns",
     .off = OFF(loggp_L_ns), .help = "LogGP latency (model-shared-bus only)"},
    {.key = "o", .type = CS_OPT_NUM, .def = 0, .min = 0, .max = CS_TIME_MAX_NS_F, .unit = "ns",
     .off = OFF(loggp_o_ns), .help = "LogGP overhead (model-shared-bus only)"},
    {.key = "g", .type = CS_OPT_NUM, .def = 0, .min = 0, .max = CS_TIME_MAX_NS_F, .unit = "ns",
     .off = OFF(loggp_g_ns), .help = "LogGP gap between messages (model-shared-bus only)"},
    {.key = "G", .type = CS_OPT_NUM, .def = 0, .min = 0, .max = CS_TIME_MAX_NS_F, .unit = "ns per byte",
     .off = OFF(loggp_G_ns_per_byte), .help = "LogGP gap per byte (model-shared-bus only)"},
    {.key = "trace-enabled", .type = CS_OPT_BOOL, .def = 0, .off = OFF(trace_enabled),
     .help = "debug trace of every node issue and finish"},
    {.key = "replay-only", .type = CS_OPT_BOOL, .def = 0, .off = OFF(replay_only),
     .help = "replay every node with its recorded duration"},
    {.key = "track-local-mem", .type = CS_OPT_BOOL, .def = 0, .off = OFF(track_local_mem),
     .help = "write local memory usage over time to local-mem-trace-filename"},
    {.key = "local-mem-trace-filename", .type = CS_OPT_STR, .def_str = "local_mem_trace",
     .off = OFF(local_mem_trace_filename),
     .help = "output file of track-local-mem"},
    {.key = "boost-mode", .type = CS_OPT_IGNORED,
     .help = "present in ASTRA-sim's examples but read by no ASTRA-sim 2.x code; ignored"},
    {.key = "inter-dimension-scheduling", .type = CS_OPT_ENUM, .def = CS_INTER_ASCENDING,
     .values = INTER_NAMES, .off = OFF(inter_dim_scheduling),
     .help = "(ASTRA-sim 1.0 key) order in which a chunk visits dimensions: ascending, "
             "offlineGreedy (Themis), offlineGreedyFlex, roundRobin, onlineGreedy"},
    {.key = "intra-dimension-scheduling", .type = CS_OPT_ENUM, .def = CS_INTRA_FIFO,
     .values = INTRA_NAMES, .off = OFF(intra_dim_scheduling),
     .help = "(ASTRA-sim 1.0 key) order of chunks within one dimension's queue"},
    {.key = "communicator-queues", .type = CS_OPT_ENUM, .def = 0, .values = COMM_QUEUES,
     .off = OFF(per_comm_queues),
     .help = "(clustersim) shared: one queue per dimension per rank, every communicator's chunks in it "
             "(ASTRA-sim; communicators can block each other and deadlock); per-communicator: a queue per "
             "communicator and dimension per rank (as NCCL's stream per communicator): communicators never "
             "block each other; default shared, per-communicator when collective-model is nccl"},
    {.key = "collective-model", .type = CS_OPT_ENUM, .def = 0, .values = COLL_MODELS,
     .off = OFF(collective_model),
     .help = "(clustersim) astra: the *-implementation lists, chunks and delays as ASTRA-sim runs them; nccl: "
             "all-reduce, all-gather and reduce-scatter pick the algorithm and protocol NCCL's tuning model "
             "picks (ring, tree with LL/LL128/Simple; NVLS; across nodes NVLS-tree, PAT, CollNet) and pay its "
             "latencies "
             "and bandwidth efficiencies "
             "(docs/collectives.md, \"The nccl model\"); one network dimension (one node) or two (nodes, "
             "then the NET joining them); a generated plan's system: nccl where the model can express it "
             "(docs/generator.md)"},
    {.key = "nccl-channels", .type = CS_OPT_INT, .def = 16, .min = 1, .max = 64, .unit = "channels",
     .off = OFF(nccl_channels),
     .help = "(collective-model nccl) NCCL channels of the rings and trees: the LL128 bandwidth cap is 36.7 GB/s "
             "(Hopper) per channel (NVLS has its own graph: min(GPUs, 32) channels)"},
    {.key = "nccl-arch", .type = CS_OPT_ENUM, .def = 2, .values = NCCL_ARCHS, .off = OFF(nccl_arch),
     .help = "(collective-model nccl) GPU generation whose NCCL constants apply (LL bandwidth cap, LL128 and "
             "tree caps, NVLS efficiency; NVLS needs hopper or blackwell); a generated plan's: its device's"},
    {.key = "nccl-nvls", .type = CS_OPT_BOOL, .def = 1, .off = OFF(nccl_nvls),
     .help = "(collective-model nccl) NVLS (in-switch reduction) is a candidate on a Switch dimension "
             "(hopper, blackwell), NVLS-tree across nodes of such a dimension; 0 as NCCL_NVLS_ENABLE=0"},
    {.key = "nccl-cpu", .type = CS_OPT_ENUM, .def = 0, .values = NCCL_CPUS, .off = OFF(nccl_cpu),
     .help = "(collective-model nccl) the hosts' x86 CPU vendor, as NCCL's multi-node tuning reads it: the LL "
             "bandwidth cap (Intel 39.0 / 20.4 GB/s, AMD 22.5 / 19.0 on 2 / more nodes) and the net overhead "
             "per ring step (Intel 1 us, AMD 2 us)"},
    {.key = "nccl-collnet", .type = CS_OPT_BOOL, .def = 0, .off = OFF(nccl_collnet),
     .help = "(collective-model nccl) CollNet: the NET dimension's switches reduce in-network (SHARP) when that "
             "dimension is a Switch, and NCCL runs with NCCL_COLLNET_ENABLE=1 and a CollNet plugin: CollNet "
             "Direct (NVSwitch nodes), CollNet Chain and NVLS across nodes (with nccl-nvls) become all-reduce "
             "candidates; 0 as NCCL's default"},
};
#define NOPTS (sizeof OPTS / sizeof OPTS[0])

int cs_system_config_defaults(cs_system_config *c) {
    memset(c, 0, sizeof *c);
    cs_opts_defaults(OPTS, NOPTS, c);
    return CS_OK;
}

void cs_system_config_free(cs_system_config *c) {
    if (!c) return;
    cs_opts_free(OPTS, NOPTS, c);
    cs_free(c->path);
    memset(c, 0, sizeof *c);
}

const cs_opt *cs_system_config_opts(size_t *n) {
    *n = NOPTS;
    return OPTS;
}
