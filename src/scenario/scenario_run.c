/*
 * scenario_run.c -- one scenario run: the composition every front end
 * shares (cs_scenario_run_hooked, scenario.h).
 *
 * In order: the network dimensions; the physical topology (the file of
 * topology.* section, or the dimensions' product for a backend that needs a
 * graph) and the placement of ranks onto its NPUs; the system configuration
 * (system.* keys, or the workload's defaults) and the communicator groups
 * (comm-groups.*, or the plan's); the memory model; the workload (Chakra
 * traces, or the plan generated in memory); then the engine (engine.h).
 * For a generated plan the symmetry policy is class mode first (only the
 * representatives' graphs are generated) and, if the run meets something
 * the symmetry argument does not cover, every rank generated and
 * simulated; the result says which ran and why.  --compare-healthy runs the
 * same scenario once more on the topology without failures.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compute/device.h"
#include "core/alloc.h"
#include "core/log.h"
#include "network/network.h"
#include "scenario/result.h"
#include "scenario/scenario_run.h"
#include "gen/family.h"
#include "gen/gen.h"
#include "topology/route.h"
#include "workload/text_workload.h"
#include "workload/workload.h"

/* ---- stragglers --------------------------------------------------------------------- */

static int time_cmp(const void *a, const void *b) {
    cs_time x = *(const cs_time *)a, y = *(const cs_time *)b;
    return x < y ? -1 : x > y;
}

int cs_sc_slow_ranks(const char *key, const char *spec, double fmax, uint32_t n, double **out, cs_error *err) {
    *out = NULL;
    if (!spec) return CS_OK;
    double *f = cs_malloc((n ? n : 1) * sizeof *f);
    for (uint32_t i = 0; i < n; i++) f[i] = 1.0;
    const char *p = spec;
    if (!*p) goto bad; /* (an empty spec was taken for "nobody slowed": fuzz/regress/flag_strings) */
    while (*p) {
        const char *end;
        unsigned long long a, b;
        if (cs_parse_rank_range(p, &end, &a, &b) || *end != ':') goto bad;
        const char *fs = end + 1;
        char *fe;
        double x = strtod(fs, &fe);
        end = fe;
        if (fe == fs || !(x > 0 && x <= fmax) || (*end && *end != ',')) goto bad;
        if (b < a || b >= n) {
            cs_free(f);
            return CS_ERR(err, CS_EINVAL, "%s %s: ranks %llu-%llu: expected ranks 0 to %u, FIRST <= LAST", key,
                          spec, a, b, n ? n - 1 : 0);
        }
        for (unsigned long long r = a; r <= b; r++) f[r] = x;
        p = *end ? end + 1 : end;
        if (*end && !*p) goto bad;
    }
    *out = f;
    return CS_OK;
bad:
    cs_free(f);
    return CS_ERR(err, CS_EINVAL, "%s %s: expected RANK[-RANK]:FACTOR,... with FACTOR in (0, %g], e.g. %s", key,
                  *spec ? spec : "\"\"", fmax, fmax > 1 ? "3:1.25,16-23:1.1" : "7:0.5,16-23:0.8");
}

static int slow_ranks(const char *spec, uint32_t n, double **out, cs_error *err) {
    return cs_sc_slow_ranks("run.slow-ranks", spec, 1000, n, out, err);
}

/* run.slow-nics: every link of each slowed rank's NPU and of a NIC node attached to it at the factor (a
 * link shared by two slowed endpoints takes the smaller factor). */
static void slow_nics_apply(cs_topo *t, const double *f, uint32_t n) {
    double *lf = cs_malloc((size_t)(t->nlinks ? t->nlinks : 1) * sizeof *lf);
    for (uint32_t i = 0; i < t->nlinks; i++) lf[i] = 1.0;
#define SLOW(id) (lf[id] = f[r] < lf[id] ? f[r] : lf[id])
    for (uint32_t r = 0; r < n; r++) {
        if (f[r] == 1.0) continue;
        uint32_t v = cs_topo_rank_npu(t, r);
        for (uint32_t i = t->in_off[v]; i < t->in_off[v + 1]; i++) SLOW(t->in_idx[i]);
        for (uint32_t i = t->out_off[v]; i < t->out_off[v + 1]; i++) {
            uint32_t id = t->out_idx[i], w = t->links[id].dst;
            SLOW(id);
            if (t->kind[w] != CS_NODE_NIC) continue; /* the NIC's own links too */
            for (uint32_t k = t->out_off[w]; k < t->out_off[w + 1]; k++) SLOW(t->out_idx[k]);
            for (uint32_t k = t->in_off[w]; k < t->in_off[w + 1]; k++) SLOW(t->in_idx[k]);
        }
    }
#undef SLOW
    for (uint32_t i = 0; i < t->nlinks; i++) t->links[i].bw *= lf[i];
    cs_free(lf);
}

/* ---- the physical topology against the logical dimensions -------------------------------- */

/* A warning per network dimension whose bandwidth the explicit topology does not give: for rank 0 and the
 * members of its line in dimension d (rank j x stride, after placement; all of them up to 32, else 32 spread
 * evenly from the neighbour to the last), the bottleneck of their route against the dimension's bandwidth, off
 * by more than 2x either way -- the first member that is (e.g. a fat-tree without the NVLink of dimension 0, or
 * servers of 4 GPUs under a scale-up dimension of 8: its 5th member is behind a NIC). */
#define CS_DIMS_CHECK_MEMBERS 32
void cs_sc_warn_dims_vs_topology(const cs_network_config *net, const cs_topo *t) {
    cs_router *r = cs_router_new(t, t->ecmp_seed);
    uint64_t stride = 1;
    for (int d = 0; d < net->ndims; d++) {
        uint32_t k = net->npus[d];
        uint32_t checks = k - 1 < CS_DIMS_CHECK_MEMBERS ? k - 1 : CS_DIMS_CHECK_MEMBERS;
        double want = cs_gbps_to_bytes_per_ns(net->bandwidth_gbps[d]), unit = cs_gbps_to_bytes_per_ns(1);
        for (uint32_t i = 0; k > 1 && i < checks && stride < net->total_npus; i++) {
            /* members 1 .. k-1, or 32 of them from 1 to k-1 evenly */
            uint64_t j = checks == k - 1 ? (uint64_t)i + 1 : 1 + (uint64_t)i * (k - 2) / (checks - 1);
            uint64_t rank = j * stride;
            uint32_t a = cs_topo_rank_npu(t, 0), b = cs_topo_rank_npu(t, (uint32_t)rank);
            const uint32_t *links;
            uint32_t n;
            cs_error e;
            cs_error_clear(&e);
            if (cs_router_route(r, a, b, &links, &n, &e) != CS_OK || !n) continue;
            double bott = t->links[links[0]].bw;
            for (uint32_t l = 1; l < n; l++)
                if (t->links[links[l]].bw < bott) bott = t->links[links[l]].bw;
            if (bott > 0 && (bott < want / 2 || bott > want * 2)) {
                cs_warn("%s: dimension %d (%s of %u NPUs, %g GB/s) but the topology's route from rank 0 to rank "
                        "%llu (%s in that dimension) has a bottleneck of %.4g GB/s (%s): the physical "
                        "topology contradicts the logical dimensions; bytes move over the topology, while the "
                        "collectives' algorithms follow the dimensions",
                        net->path ? net->path : "network", d, cs_topo_kind_name(net->topo[d]), k,
                        net->bandwidth_gbps[d], (unsigned long long)rank,
                        j == 1 ? "its neighbour" : "a member of its line", bott / unit,
                        t->desc ? t->desc : "topology");
                break; /* one warning per dimension */
            }
        }
        stride *= k;
    }
    cs_router_free(r);
}

/* ---- attribution of the stragglers' loss (run.attribute-stragglers) ----------------------- */

/* spec without its item k ("0:1" -- nobody slowed -- when it was the only one). */
static void spec_without(const char *spec, size_t k, char *out, size_t n) {
    size_t len = 0, i = 0;
    out[0] = 0;
    for (const char *p = spec; *p; i++) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (i != k && len + l + 2 < n) len += (size_t)snprintf(out + len, n - len, "%s%.*s", len ? "," : "", (int)l, p);
        p = e ? e + 1 : p + l;
    }
    if (!len) snprintf(out, n, "0:1");
}

static size_t spec_items(const char *spec) {
    size_t k = spec && *spec ? 1 : 0;
    for (const char *p = spec; p && *p; p++) k += *p == ',';
    return k;
}

/* Each item of run.slow-ranks and run.slow-nics, and run.compute-jitter, left out in turn: the step without it. */
static int attribute_stragglers(cs_scenario *sc, const cs_run_inputs *in, const cs_run_params *ro,
                                const cs_run_hooks *hooks, cs_result *res, cs_error *err) {
    size_t nr = spec_items(ro->slow_ranks), nn = spec_items(ro->slow_nics), n = nr + nn + (ro->compute_jitter > 0);
    if (n == 0)
        return CS_ERR(err, CS_EINVAL, "run.attribute-stragglers: no stragglers to attribute; expected run.slow-ranks, "
                                      "run.slow-nics or run.compute-jitter");
    if (n > 32)
        return CS_ERR(err, CS_EINVAL, "run.attribute-stragglers: %zu straggler items; expected at most 32 (one run "
                                      "each)",
                      n);
    res->attrib = cs_calloc(n, sizeof *res->attrib);
    cs_run_hooks ah;
    memset(&ah, 0, sizeof ah);
    ah.stop = hooks->stop;
    ah.no_collectives = 1;
    int rc = CS_OK;
    for (size_t k = 0; k < n && rc == CS_OK; k++) {
        struct cs_straggler_share *a = &res->attrib[k];
        cs_scenario *t = cs_scenario_copy(sc);
        char spec[1024];
        const char *key;
        json_t *v;
        if (k < nr + nn) {
            const char *full = k < nr ? ro->slow_ranks : ro->slow_nics;
            size_t item = k < nr ? k : k - nr;
            key = k < nr ? "run.slow-ranks" : "run.slow-nics";
            spec_without(full, item, spec, sizeof spec);
            const char *p = full;
            for (size_t i = 0; i < item; i++) p = strchr(p, ',') + 1;
            snprintf(a->what, sizeof a->what, "%s %.*s", key, (int)strcspn(p, ","), p);
            snprintf(a->resource, sizeof a->resource, "%s", k < nr ? "GPU compute" : "NIC");
            v = json_string(spec);
        } else {
            key = "run.compute-jitter";
            snprintf(a->what, sizeof a->what, "run.compute-jitter %g", ro->compute_jitter);
            snprintf(a->resource, sizeof a->resource, "GPU compute");
            v = json_real(0);
        }
        rc = cs_scenario_set_json(t, key, v, "run.attribute-stragglers", err);
        json_decref(v);
        v = json_false();
        if (rc == CS_OK) rc = cs_scenario_set_json(t, "run.attribute-stragglers", v, "run.attribute-stragglers", err);
        if (rc == CS_OK) rc = cs_scenario_set_json(t, "run.compare-healthy", v, "run.attribute-stragglers", err);
        json_decref(v);
        cs_result *r = NULL;
        if (rc == CS_OK) rc = cs_scenario_run_with(t, in, &ah, &r, err);
        if (rc == CS_OK) a->without = r->sim.sim_time;
        else cs_error_prefix(err, "run.attribute-stragglers (without %s): ", a->what);
        cs_result_free(r);
        cs_scenario_free(t);
        res->nattrib = k + 1;
    }
    return rc;
}

/* ---- hardware FLOPs --------------------------------------------------------------- */

typedef struct graph_flops { const cs_graph *g; double flops; } graph_flops;
static int gf_cmp(const void *a, const void *b) {
    uintptr_t x = (uintptr_t)((const graph_flops *)a)->g, y = (uintptr_t)((const graph_flops *)b)->g;
    return x < y ? -1 : x > y;
}

/* The COMP nodes' num_ops over every rank's graph (a shared graph counts once per rank). */
static double workload_flops(const cs_workload *w) {
    graph_flops *t = cs_malloc((w->ngraphs ? w->ngraphs : 1) * sizeof *t);
    for (uint32_t g = 0; g < w->ngraphs; g++) {
        t[g] = (graph_flops){w->graphs[g], 0};
        for (uint32_t k = 0; k < w->graphs[g]->nnodes; k++)
            if (w->graphs[g]->nodes[k].type == CS_NODE_COMP) t[g].flops += (double)w->graphs[g]->nodes[k].num_ops;
    }
    qsort(t, w->ngraphs, sizeof *t, gf_cmp);
    double sum = 0;
    for (uint32_t r = 0; r < w->nranks; r++) {
        graph_flops key = {w->rank_graph[r], 0};
        const graph_flops *f = bsearch(&key, t, w->ngraphs, sizeof *t, gf_cmp);
        if (f) sum += f->flops;
    }
    cs_free(t);
    return sum;
}

/* ---- the cost and power model ----------------------------------------------------- */

/* The cost model's inputs: cost.* (free cp with cs_sc_free_typed when CS_OK) and the device (the plan's, or
 * device.name for traces). */
static int cost_inputs(const cs_scenario *sc, const cs_device *plan_dev, cs_cost_params *cp, cs_device *d,
                       cs_error *err) {
    int rc = cs_sc_parse_typed(sc, SC_COST, cp, err);
    if (rc) return rc;
    if (plan_dev) {
        *d = *plan_dev;
        return CS_OK;
    }
    cs_device_params dp;
    rc = cs_sc_parse_typed(sc, SC_DEVICE, &dp, err);
    if (rc == CS_OK) {
        rc = cs_device_resolve(dp.name, d, err);
        if (rc) cs_error_prefix(err, "device.name: ");
        cs_sc_free_typed(SC_DEVICE, &dp);
    }
    if (rc) cs_sc_free_typed(SC_COST, cp);
    return rc;
}

/* res->cost from cost.* and the device (the plan's, or device.name for traces). */
static int run_cost(const cs_scenario *sc, const cs_device *plan_dev, const cs_gen_model *m, const cs_gen_plan *p,
                    int explicit_topo, cs_result *res, cs_error *err) {
    cs_cost_params cp;
    cs_device d;
    int rc = cost_inputs(sc, plan_dev, &cp, &d, err);
    if (rc) return rc;
    uint32_t n = res->sim.nranks;
    cs_time *comp = cs_calloc(n ? n : 1, sizeof *comp);
    for (uint32_t i = 0; i < n; i++) comp[i] = res->sim.ranks[i].compute;
    double items = 0;
    char item[16] = "";
    if (m) { /* "tokens/s" -> "token" */
        items = m->family->items(m, p);
        size_t k = strcspn(m->family->unit, "/");
        if (k > 1 && m->family->unit[k - 1] == 's') k--;
        snprintf(item, sizeof item, "%.*s", (int)k, m->family->unit);
    }
    double remote = 0; /* offloaded state: every stage's, times its ranks */
    if (m && p->offload_opt)
        for (uint32_t s = 0; s < p->pp; s++) {
            cs_gen_memory x;
            cs_gen_memory_stage(m, p, s, &x);
            remote += x.offloaded * (double)(n / p->pp);
        }
    if (rc == CS_OK)
        rc = cs_cost_eval(&cp, &d, &res->net, explicit_topo ? res->topo : NULL, comp, n, res->sim.sim_time, items,
                          item, remote, &res->cost, err);
    cs_free(comp);
    cs_sc_free_typed(SC_COST, &cp);
    return rc;
}

/* ---- generated plans -------------------------------------------------------------- */

/* ingest.* into the plan; its hosts are the cost model's storage / preprocessing hosts, one per
 * cost.storage-npus-per-host of the plan's ranks (one concept, counted once: docs/ingest.md). */
static int ingest_parse(const cs_scenario *sc, cs_gen_plan *p, cs_error *err) {
    cs_ingest_params ip;
    cs_cost_params cp;
    int rc = cs_sc_parse_typed(sc, SC_INGEST, &ip, err);
    if (rc == CS_OK) rc = cs_sc_parse_typed(sc, SC_COST, &cp, err);
    if (rc) return rc;
    cs_gen_ingest *g = &p->ingest;
    g->bytes_per_sample = ip.bytes_per_sample;
    g->h2d_bytes_per_sample = ip.h2d_bytes_per_sample;
    g->read_bytes_per_s = ip.storage_read_gbps * 1e9;
    g->preprocess_samples_per_s = ip.preprocess_samples_per_s;
    g->h2d_bytes_per_s = ip.h2d_gbps * 1e9;
    g->prefetch = (uint32_t)ip.prefetch_depth;
    uint64_t n = (uint64_t)p->tp * (p->cp ? p->cp : 1) * p->pp * p->dp, per = (uint64_t)cp.storage_npus_per_host;
    g->hosts = per ? (uint32_t)((n + per - 1) / per) : 0;
    return CS_OK;
}

/* The generator's inputs from plan.*, model.*, device.* (CS_EINVAL naming the key); *no_mem_check (may be
 * NULL) gets plan.no-memory-check for plan_check. */
static int plan_parse(const cs_scenario *sc, cs_gen_model *m, cs_device *d, cs_gen_plan *p, int *no_mem_check,
                      cs_error *err) {
    cs_plan_params o;
    cs_model_params mp;
    cs_device_params dp;
    int rc = cs_sc_parse_typed(sc, SC_PLAN, &o, err);
    if (rc) return rc;
    rc = cs_sc_parse_typed(sc, SC_MODEL, &mp, err);
    if (rc) {
        cs_sc_free_typed(SC_PLAN, &o);
        return rc;
    }
    rc = cs_sc_parse_typed(sc, SC_DEVICE, &dp, err);
    if (rc) {
        cs_sc_free_typed(SC_PLAN, &o);
        cs_sc_free_typed(SC_MODEL, &mp);
        return rc;
    }
    cs_gen_plan_defaults(p);
    rc = cs_sc_model(sc, mp.name, m, err);
    if (rc == CS_OK) {
        rc = cs_device_resolve(dp.name, d, err);
        if (rc) cs_error_prefix(err, "device.name: ");
    }
    if (rc == CS_OK) {
        p->tp = (uint32_t)o.tp;
        p->pp = (uint32_t)o.pp;
        p->dp = (uint32_t)o.dp;
        p->ep = (uint32_t)o.ep;
        p->cp = (uint32_t)o.cp;
        p->sp = o.sp;
        p->flash = o.flash;
        p->cp_comm = o.cp_comm == 0 ? CS_CP_ALLGATHER : CS_CP_P2P;
        static const int phase[] = {CS_PHASE_TRAIN, CS_PHASE_PREFILL, CS_PHASE_DECODE};
        p->phase = phase[o.phase];
        p->context_tokens = (uint32_t)o.context_tokens;
        p->kv_tokens = (uint32_t)o.kv_tokens;
        p->mlp_reduce_bytes = (uint32_t)o.mlp_reduce_bytes;
        /* the family's batch defaults (0 = not given); guard the product against 32 bits */
        uint64_t mb = (uint64_t)o.micro_batch, gb = (uint64_t)o.global_batch;
        if (!gb && (mb ? mb : 1) * (uint64_t)o.dp * (uint64_t)o.pp * 512u > UINT32_MAX)
            rc = CS_ERR(err, CS_EINVAL,
                        "plan.micro-batch x plan.dp x plan.pp = %" PRIu64 " x %d x %d: the global batch would pass "
                        "2^32 samples; expected a smaller plan",
                        mb ? mb : 1, o.dp, o.pp);
        else cs_gen_plan_batch(m, p, (uint32_t)mb, (uint32_t)gb);
        p->zero = o.fsdp ? 3 : o.zero;
        p->dist_opt = o.dist_opt;
        p->fsdp_strategy = o.fsdp_strategy; /* CS_FSDP_* in FSDP_STRATEGY's order */
        p->fsdp_no_sync = o.fsdp_no_sync;
        p->fsdp_fp32_grads = o.fsdp_reduce_dtype == 1;
        p->hsdp_shard = (uint32_t)o.hsdp_shard;
        p->kernel_overhead_s = o.kernel_overhead_us * 1e-6;
        if (p->fsdp_strategy && !o.fsdp && !o.zero)
            p->zero = p->fsdp_strategy == CS_FSDP_SHARD_GRAD_OP || p->fsdp_strategy == CS_FSDP_HYBRID_SHARD_ZERO2 ? 2 : 3;
        if (p->dist_opt && !o.zero) p->zero = 1;
        p->no_grad_overlap = o.no_grad_overlap;
        p->async_tp = o.async_tp;
        p->grad_acc_fusion = o.ga_fusion;
        p->offload_opt = o.offload_opt;
        p->vstages = (uint32_t)o.vstages;
    }
    if (rc == CS_OK && o.placement) {
        rc = cs_gen_placement_parse(o.placement, p, err);
        if (rc) cs_error_prefix(err, "plan.placement: ");
    }
    if (rc == CS_OK && o.mlp_reduce_bytes && p->phase == CS_PHASE_TRAIN)
        rc = CS_ERR(err, CS_EINVAL, "plan.mlp-reduce-bytes-per-token %d: expected plan.phase prefill or decode (a "
                    "serving step; a training step's backward needs the dense all-reduce)", o.mlp_reduce_bytes);
    if (rc == CS_OK && o.layout) {
        rc = cs_gen_layout_parse(o.layout, p, err);
        if (rc == CS_OK && p->nlayout % p->pp)
            rc = CS_ERR(err, CS_EINVAL, "plan.layout: %u stages; expected a multiple of plan.pp (%u): virtual pipeline "
                        "rank 0's stages, then rank 1's, ...", p->nlayout, p->pp);
        if (rc == CS_OK && o.vstages != 1 && (uint32_t)o.vstages != p->nlayout / p->pp)
            rc = CS_ERR(err, CS_EINVAL, "plan.layout: %u stages = plan.pp %u x %u virtual stages; expected "
                        "plan.virtual-stages %u or unset, got %d", p->nlayout, p->pp, p->nlayout / p->pp,
                        p->nlayout / p->pp, o.vstages);
        if (rc == CS_OK) p->vstages = p->nlayout / p->pp;
    }
    if (rc == CS_OK && o.fsdp && o.zero && o.zero != 3) /* (fsdp made it 3 without a word) */
        rc = CS_ERR(err, CS_EINVAL, "plan.fsdp: is ZeRO-3 (parameters, gradients and optimizer state sharded); "
                    "expected plan.zero 3 or unset, got %d", o.zero);
    if (rc == CS_OK && o.bucket_mparams && o.bucket_mb)
        rc = CS_ERR(err, CS_EINVAL, "plan.bucket-mparams and plan.bucket-mb: give one of them");
    if (rc == CS_OK && o.bucket_mparams) p->bucket_params = (uint64_t)o.bucket_mparams * 1000000u;
    if (rc == CS_OK && o.bucket_mb) p->bucket_params = (uint64_t)o.bucket_mb * 500000u;
    if (rc == CS_OK) {
        static const int recomp[] = {CS_RECOMP_NONE, CS_RECOMP_SELECTIVE, CS_RECOMP_FULL};
        p->recompute = recomp[o.recompute];
        p->schedule = o.schedule == 0 ? CS_SCHED_GPIPE : CS_SCHED_1F1B;
    }
    if (rc == CS_OK) rc = ingest_parse(sc, p, err);
    if (no_mem_check) *no_mem_check = o.no_memory_check;
    cs_sc_free_typed(SC_PLAN, &o);
    cs_sc_free_typed(SC_MODEL, &mp);
    cs_sc_free_typed(SC_DEVICE, &dp);
    return rc;
}

uint64_t cs_scenario_npus(const cs_scenario *sc) {
    cs_network_config c;
    cs_error e;
    cs_error_clear(&e);
    uint64_t n = cs_sc_network(sc, &c, &e) == CS_OK ? c.total_npus : 0;
    cs_network_config_free(&c);
    return n;
}

int cs_scenario_class_axes(const cs_scenario *sc, const cs_gen_plan *p, cs_sym_axes *ax) {
    cs_network_config c;
    cs_error e;
    cs_error_clear(&e);
    memset(&c, 0, sizeof c);
    int n = 0;
    if (cs_gen_sym_axes(p, ax) > 0 && cs_sc_network(sc, &c, &e) == CS_OK) n = cs_sym_axes_fit(ax, &c);
    else ax->n = 0;
    cs_network_config_free(&c);
    return n;
}

int cs_scenario_serve_params(const cs_scenario *sc, cs_serve_params *out, cs_error *err) {
    return cs_sc_parse_typed(sc, SC_SERVE, out, err); /* (no owned strings) */
}

int cs_scenario_cost_params(const cs_scenario *sc, cs_cost_params *out, cs_error *err) {
    return cs_sc_parse_typed(sc, SC_COST, out, err); /* (no owned strings: nothing to free) */
}

/* The plan's checks, then its memory against the HBM (a warning with plan.no-memory-check). */
static int plan_check(const cs_gen_model *m, const cs_gen_plan *p, const cs_device *d, int no_mem_check,
                      cs_error *err) {
    int rc = cs_gen_plan_check(m, p, err);
    if (rc == CS_OK) {
        cs_gen_memory worst;
        rc = cs_gen_memory_check(m, p, d, &worst, err);
        if (rc && no_mem_check) {
            cs_warn("%s (simulating anyway: plan.no-memory-check)", err->msg);
            cs_error_clear(err);
            rc = CS_OK;
        }
    }
    return rc;
}

int cs_scenario_plan(const cs_scenario *sc, cs_gen_model *m, cs_device *d, cs_gen_plan *p, cs_error *err) {
    int no_mem = 0;
    int rc = plan_parse(sc, m, d, p, &no_mem, err);
    return rc ? rc : plan_check(m, p, d, no_mem, err);
}

int cs_scenario_plan_inputs(const cs_scenario *sc, cs_gen_model *m, cs_device *d, cs_gen_plan *p,
                            cs_network_config *net, cs_system_config *sys, cs_error *err) {
    memset(net, 0, sizeof *net);
    memset(sys, 0, sizeof *sys);
    if (!cs_scenario_is_plan(sc))
        return CS_ERR(err, CS_EINVAL, "model.name: expected a model (--model) for a generated plan");
    int rc = plan_parse(sc, m, d, p, NULL, err);
    if (rc == CS_OK) rc = cs_sc_network(sc, net, err);
    if (rc == CS_OK) rc = cs_sc_effective_system(sc, sys, err);
    if (rc) {
        cs_network_config_free(net);
        cs_system_config_free(sys);
    }
    return rc;
}

int cs_sc_effective_system(const cs_scenario *sc, cs_system_config *out, cs_error *err) {
    int given;
    if (!cs_scenario_is_plan(sc)) return cs_sc_system(sc, out, &given, err);
    memset(out, 0, sizeof *out);
    cs_network_config net;
    memset(&net, 0, sizeof net);
    int have_net = json_object_size(((const struct cs_scenario *)sc)->sect[SC_NETWORK]) > 0;
    int rc = have_net ? cs_sc_network(sc, &net, err) : CS_OK;
    cs_gen_model m;
    cs_device d;
    cs_gen_plan p;
    if (rc == CS_OK) rc = plan_parse(sc, &m, &d, &p, NULL, err); /* the plan and device choose the model */
    if (rc == CS_OK) rc = cs_sc_plan_system(sc, have_net ? &net : NULL, &d, &p, out, err);
    cs_network_config_free(&net);
    return rc;
}

/* ---- the training split of rank 0 --------------------------------------------------- */

/* Busy compute, collectives not hidden behind compute, and the rest
 * (pipeline bubble and waits for receives) of one rank. */
typedef struct span { cs_time a, b; } span;
typedef struct split_obs {
    uint32_t rank;
    span *comp, *coll;
    size_t ncomp, ncoll, capcomp, capcoll;
    const cs_exec_observer *next; /* the front end's observer */
} split_obs;

static void push(span **v, size_t *n, size_t *cap, cs_time a, cs_time b) {
    CS_GROW(*v, *cap, *n + 1);
    (*v)[(*n)++] = (span){a, b};
}

static void split_node_done(void *ud, const cs_node_span *s) {
    split_obs *o = ud;
    if (o->next && o->next->node_done) o->next->node_done(o->next->ud, s);
    if (s->rank != o->rank) return;
    if (s->lane == CS_LANE_COMPUTE) push(&o->comp, &o->ncomp, &o->capcomp, s->start, s->end);
    else if (s->node->type == CS_NODE_COMM_COLL) push(&o->coll, &o->ncoll, &o->capcoll, s->start, s->end);
}

static int cmp_span(const void *x, const void *y) {
    const span *a = x, *b = y;
    return (a->a > b->a) - (a->a < b->a);
}

/* Measure of union(coll) minus union(comp). */
static cs_time exposed_coll(split_obs *o) {
    if (o->ncoll) qsort(o->coll, o->ncoll, sizeof *o->coll, cmp_span);
    if (o->ncomp) qsort(o->comp, o->ncomp, sizeof *o->comp, cmp_span);
    cs_time total = 0;
    size_t j = 0;
    for (size_t i = 0; i < o->ncoll;) {
        cs_time a = o->coll[i].a, b = o->coll[i].b;
        for (i++; i < o->ncoll && o->coll[i].a <= b; i++)
            if (o->coll[i].b > b) b = o->coll[i].b;
        cs_time len = b - a;
        while (j < o->ncomp && o->comp[j].b <= a) j++;
        for (size_t k = j; k < o->ncomp && o->comp[k].a < b; k++) {
            cs_time lo = o->comp[k].a > a ? o->comp[k].a : a, hi = o->comp[k].b < b ? o->comp[k].b : b;
            if (hi > lo) len -= hi - lo;
        }
        total += len;
    }
    return total;
}

/* ---- collective rows kept in memory ------------------------------------------------------ */

typedef struct row_keep {
    cs_result *r;
    const cs_run_hooks *hooks;
} row_keep;

static void keep_row(void *ud, const cs_coll_row *row) {
    row_keep *k = ud;
    cs_result *r = k->r;
    if (k->hooks->coll_row) k->hooks->coll_row(k->hooks->coll_ud, row);
    if (r->nrows >= CS_RESULT_MAX_COLLS) return;
    CS_GROW(r->rows, r->caprows, r->nrows + 1);
    cs_coll_row_public(row, &r->rows[r->nrows++]);
}

/* ---- the run ------------------------------------------------------------------------------ */

static void warn_astra_only(const cs_run_params *ro, const cs_system_config *sc) {
    if (ro->num_queues_per_dim != 1)
        cs_warn("run.num-queues-per-dim = %d: only 1 queue per dimension is modelled; using 1", ro->num_queues_per_dim);
    if (ro->comm_scale != 1.0) cs_warn("run.comm-scale = %g is not modelled yet; ignored", ro->comm_scale);
    if (ro->rendezvous) cs_warn("run.rendezvous-protocol = true is not modelled; sends are eager");
    if (sc->replay_only)
        cs_warn("%s: replay-only = 1 is not modelled yet; nodes are timed as usual", sc->path ? sc->path : "system");
    if (sc->model_shared_bus)
        cs_warn("%s: model-shared-bus = 1 (the LogGP bus model) is not modelled yet; every packet bundle pays "
                "endpoint-delay as with model-shared-bus = 0",
                sc->path ? sc->path : "system");
}

/* The healthy twin of a run with failures (--compare-healthy): the same
 * inputs on the topology with every link at its built bandwidth and no
 * timed changes; no observers. */
static int run_healthy(const cs_workload *w, const cs_network_config *net, const cs_engine_options *so, cs_time *t,
                       cs_error *err) {
    cs_engine_options ho = *so;
    ho.observer = NULL;
    ho.coll_observer = NULL;
    ho.net_observer = NULL;
    ho.link_report = NULL;
    ho.net_healthy = 1; /* the backend ignores failures and timed changes; the topology is not touched */
    ho.compute.rank_factor = NULL; /* and no stragglers */
    ho.compute.jitter_cv = 0;
    ho.progress = 0;
    cs_engine_result hr;
    memset(&hr, 0, sizeof hr);
    int rc = cs_engine_run(w, net, &ho, &hr, err);
    if (rc == CS_OK) *t = hr.sim_time;
    else cs_error_prefix(err, "run.compare-healthy (healthy run): ");
    cs_engine_result_free(&hr);
    return rc;
}

/* A plan with ingest: the same plan without it (the compute-bound step), class mode as the run
 * had it, no observers; res->ingest gets both sides (docs/ingest.md). */
/* Before a run of many ranks: more representatives than this is said as a
 * warning, and a run's memory is estimated at this range of bytes per
 * distinct graph node (peak RSS over nodes of two runs with every rank
 * simulated, each with a graph of its own, docs/performance.md: GPT-3 175B
 * TP 4 x PP 16 x DP 64, 2.03 GB for 18.68 M nodes = 109 B; Llama 3 405B
 * with ZeRO-2 and 4 chunks per stage, 5.8 GB for 74.5 M = 78 B, issue 12's
 * figure) plus this range per node of every rank (the executor's count of
 * pending parents, 4 bytes, and what grows with it: the GPT-3 run above
 * with the ranks of a stage sharing their graph, 95 MB for 19.48 M nodes,
 * 2026-11-27). */
#define CS_SC_MANY_REPS 256
#define CS_SC_NODE_BYTES_LO 80u
#define CS_SC_NODE_BYTES_HI 110u
#define CS_SC_RANK_NODE_BYTES_LO 4u
#define CS_SC_RANK_NODE_BYTES_HI 6u

/* Graph nodes of w -- of every rank's graph (every_rank) or of its graphs
 * once each -- the distinct ones among them (not views, cs_graph_share),
 * and the memory estimate of the range above, in bytes. */
typedef struct graph_mem { uint64_t nodes, distinct; double lo_bytes, hi_bytes; } graph_mem;
static graph_mem graph_memory(const cs_workload *w, int every_rank) {
    graph_mem m = {0, 0, 0, 0};
    if (every_rank)
        for (uint32_t r = 0; r < w->nranks; r++) m.nodes += w->rank_graph[r]->nnodes;
    for (uint32_t g = 0; g < w->ngraphs; g++) {
        if (!every_rank) m.nodes += w->graphs[g]->nnodes;
        m.distinct += w->graphs[g]->base ? 0 : w->graphs[g]->nnodes;
    }
    m.lo_bytes = (double)m.nodes * CS_SC_RANK_NODE_BYTES_LO + (double)m.distinct * CS_SC_NODE_BYTES_LO;
    m.hi_bytes = (double)m.nodes * CS_SC_RANK_NODE_BYTES_HI + (double)m.distinct * CS_SC_NODE_BYTES_HI;
    return m;
}

/* Ranks per class of axes ax. */
static uint64_t sym_axes_class_size(const cs_sym_axes *ax) {
    uint64_t n = 1;
    for (int a = 0; a < ax->n; a++) n *= ax->size[a];
    return n;
}

static int run_no_ingest(const cs_gen_model *m, const cs_gen_plan *p, const cs_device *d, const cs_sym_axes *ax,
                         const cs_network_config *net, const cs_engine_options *so, const cs_run_hooks *hooks,
                         cs_result *res, cs_error *err) {
    cs_gen_plan q = *p;
    q.ingest.bytes_per_sample = 0;
    cs_engine_options o = *so;
    o.observer = NULL;
    o.coll_observer = NULL;
    o.net_observer = NULL;
    o.link_report = NULL;
    o.progress = 0;
    o.sym_axes = ax;
    o.sym_no_fallback = ax != NULL;
    cs_workload w;
    memset(&w, 0, sizeof w);
    cs_engine_result r;
    memset(&r, 0, sizeof r);
    int rc = cs_gen_workload(m, &q, d, ax, hooks->stop, &w, err);
    if (rc == CS_OK) rc = cs_engine_run(&w, net, &o, &r, err);
    if (rc != CS_OK && rc != CS_EINTR && ax) { /* class mode does not hold for this plan: every rank, as the run */
        cs_error_clear(err);
        cs_engine_result_free(&r);
        memset(&r, 0, sizeof r);
        cs_workload_free(&w);
        memset(&w, 0, sizeof w);
        o.sym_axes = NULL;
        o.sym_no_fallback = 0;
        rc = cs_gen_workload(m, &q, d, NULL, hooks->stop, &w, err);
        if (rc == CS_OK) rc = cs_engine_run(&w, net, &o, &r, err);
    }
    if (rc == CS_OK) {
        cs_gen_ingest_times t;
        cs_gen_ingest_times_of(p, &t);
        res->ingest.on = 1;
        res->ingest.no_input_step = r.sim_time;
        res->ingest.input_per_step = res->sim.nranks ? res->sim.ranks[0].cpu : 0;
        res->ingest.first_batch = cs_time_from_us(t.read_us + t.preprocess_us + t.h2d_us);
        res->ingest.times = t;
        res->ingest.hosts = p->ingest.hosts;
    } else {
        cs_error_prefix(err, "ingest (the run without the input pipeline): ");
    }
    cs_engine_result_free(&r);
    cs_workload_free(&w);
    return rc;
}

/* cs_scenario_run_with's rc after a check (hooks->check_only) passed: no error code, so every step after
 * the check is skipped; the function returns CS_OK. */
#define CS_SC_CHECKED (-3000)

int cs_scenario_run_hooked(cs_scenario *sc, const cs_run_hooks *hooks, cs_result **out, cs_error *err) {
    return cs_scenario_run_with(sc, NULL, hooks, out, err);
}

int cs_scenario_run_with(cs_scenario *sc, const cs_run_inputs *in, const cs_run_hooks *hooks, cs_result **out,
                         cs_error *err) {
    static const cs_run_hooks no_hooks;
    if (!hooks) hooks = &no_hooks;
    *out = NULL;
    double t0 = cs_host_wall_s();
    cs_run_params ro;
    int rc = cs_sc_parse_typed(sc, SC_RUN, &ro, err);
    if (rc) return rc;
    int plan = !in && cs_scenario_is_plan(sc);
    int plan_defaults = plan || (in && in->plan_defaults); /* the generator's system and comm-streams defaults */
    int text = !in && !plan && ro.workload && cs_text_workload_detect(ro.workload); /* ASTRA-sim 1.0 / SimAI */
    cs_result *res = cs_result_new();
    cs_system_config sysc;
    memset(&sysc, 0, sizeof sysc);
    cs_comm_groups groups;
    memset(&groups, 0, sizeof groups);
    cs_memory_config mem;
    cs_memory_config_defaults(&mem);
    cs_workload w;
    memset(&w, 0, sizeof w);
    const cs_workload *W = in ? in->workload : &w;   /* the ranks' graphs */
    const cs_comm_groups *G = in ? in->groups : &groups; /* and their communicator groups */
    cs_gen_model m;
    cs_device d;
    cs_gen_plan p;
    split_obs split;
    memset(&split, 0, sizeof split);
    cs_engine_options so;
    double *factors = NULL; /* run.slow-ranks per rank (so.compute borrows it) */
    cs_engine_options_init(&so);
    json_t *config = json_object();
    const cs_net_backend *be = cs_net_backend_find(ro.backend);

    if (in && (ro.workload || cs_scenario_is_plan(sc)))
        rc = CS_ERR(err, CS_EINVAL, "run.workload, model.name: the jobs give the workload; expected neither key");
    else if (in)
        rc = CS_OK;
    else if (plan && ro.workload)
        rc = CS_ERR(err, CS_EINVAL, "run.workload %s and model.name: expected one workload, traces or a generated "
                                    "plan, got both",
                    ro.workload);
    else if (!plan && !ro.workload)
        rc = CS_ERR(err, CS_EINVAL, "run.workload: expected Chakra traces (--workload-configuration PREFIX) or a "
                                    "model for a generated plan (--model, model.name)");
    if (rc == CS_OK && !be)
        rc = CS_ERR(err, CS_EINVAL, "run.backend %s: unknown network backend; expected one of the list in "
                                    "clustersim run --help",
                    ro.backend);
    if (rc == CS_OK) rc = cs_sc_network(sc, &res->net, err);
    /* the plan's shape against the network first (the error a user fixes first), then its checks and memory */
    int no_mem_check = 0;
    if (rc == CS_OK && plan) rc = plan_parse(sc, &m, &d, &p, &no_mem_check, err);
    if (rc == CS_OK && plan && res->net.total_npus != cs_gen_ranks(&p))
        rc = CS_ERR(err, CS_EINVAL, "%s: npus_count: expected %u NPUs in all (tp x cp x pp x dp), got %" PRIu64,
                    res->net.path, cs_gen_ranks(&p), res->net.total_npus);
    if (rc == CS_OK && plan) rc = plan_check(&m, &p, &d, no_mem_check, err);
    /* physical topology: for the backends that move bytes over a graph */
    int graph_backend = be && (be->caps & CS_NET_NEEDS_TOPOLOGY);
    if (rc == CS_OK) rc = cs_sc_topology(sc, &res->net, &res->topo, err);
    int explicit_topo = res->topo != NULL; /* a fabric of its own, not the dimensions' product */
    if (rc == CS_OK && res->topo && !graph_backend)
        rc = CS_ERR(err, CS_EINVAL, "%s: only a graph backend (flow, packet) uses a topology; run.backend is %s",
                    cs_sc_topology_label(sc), ro.backend);
    if (rc == CS_OK && !res->topo && graph_backend) {
        rc = cs_topo_check_astra(&res->net, err); /* too big a graph: say so before building */
        if (rc == CS_OK) res->topo = cs_topo_build_astra(&res->net);
    }
    res->net.topology = res->topo;
    if (rc == CS_OK) rc = cs_sc_effective_system(sc, &sysc, err);
    if (rc == CS_OK && in && in->plan_defaults && !json_object_size(sc->sect[SC_SYSTEM])) {
        cs_system_config_free(&sysc); /* a cluster's generated jobs: the generator's system for them together */
        char why[640];
        rc = cs_gen_system_groups(&res->net, in->plan_device, G, &sysc, why, sizeof why);
        if (rc == CS_OK && why[0])
            cs_warn("note: the cluster's generated jobs run collective-model astra (ring on every dimension, a "
                    "queue per communicator), not the default nccl: %s; system.collective-model chooses (astra or "
                    "nccl)", why);
    }
    if (rc == CS_OK && !(plan_defaults && !json_object_size(sc->sect[SC_SYSTEM])))
        rc = cs_system_config_check_network(&sysc, res->net.ndims, err);
    if (rc == CS_OK && in) {
        if (cs_sc_groups_given(sc))
            rc = CS_ERR(err, CS_EINVAL, "comm-groups: the jobs make the cluster's communicator groups; expected no "
                                        "comm-groups keys in the cluster's scenario");
        else if (G && G->ngroups) rc = cs_comm_groups_validate(G, res->net.total_npus, err);
    } else if (rc == CS_OK) {
        if (plan) {
            if (cs_sc_groups_given(sc))
                rc = CS_ERR(err, CS_EINVAL, "comm-groups: a generated plan makes its own communicator groups; "
                                            "expected no comm-groups keys with model.name");
            else cs_gen_comm_groups(&p, &groups);
        } else if (text) { /* the file gives its graphs and their groups together */
            if (cs_sc_groups_given(sc))
                rc = CS_ERR(err, CS_EINVAL, "comm-groups: the text workload %s makes its own communicator groups "
                                            "(TP, DP, EP); expected no --comm-group-configuration with it",
                            ro.workload);
            else if (res->net.total_npus > UINT32_MAX)
                rc = CS_ERR(err, CS_EUNSUPPORTED, "%s: more than 2^32 NPUs", res->net.path);
            else
                rc = cs_text_workload_load(ro.workload, (uint32_t)res->net.total_npus, &w, &groups, NULL, err);
        } else {
            rc = cs_sc_groups(sc, &groups, err);
            if (rc == CS_OK && groups.ngroups) rc = cs_comm_groups_validate(&groups, res->net.total_npus, err);
        }
    }
    if (rc == CS_OK) {
        cs_engine_options_set_system(&so, &sysc);
        rc = slow_ranks(ro.slow_ranks, (uint32_t)res->net.total_npus, &factors, err);
        so.compute.rank_factor = factors;
        so.compute.jitter_cv = ro.compute_jitter;
        so.compute.jitter_seed = (uint64_t)ro.jitter_seed;
        res->slow_compute = cs_compute_has_stragglers(&so.compute);
        res->stragglers = res->slow_compute || ro.slow_nics;
        so.comm_groups = G && G->ngroups ? G : NULL;
        so.rank_start = in ? in->rank_start : NULL;
        so.rank_tclass = in ? in->rank_tclass : NULL;
        so.injection_scale = ro.injection_scale;
        so.backend = ro.backend;
        so.comm_streams = (uint32_t)(ro.comm_streams ? ro.comm_streams : text ? CS_TEXT_COMM_STREAMS
                                                          : plan_defaults ? 4 : 1);
        so.threads = hooks->threads;
        so.par_min_events = hooks->par_min_events;
        so.progress = hooks->progress;
        so.progress_ms = hooks->progress_ms;
        so.stop = hooks->stop;
        so.symmetry = ro.symmetry == 1 ? CS_SYMMETRY_OFF : ro.symmetry == 2 ? CS_SYMMETRY_REQUIRE : CS_SYMMETRY_AUTO;
        warn_astra_only(&ro, &sysc);
    }
    if (rc == CS_OK && ro.placement && strcmp(ro.placement, "contiguous") != 0) {
        if (in) {
            rc = CS_ERR(err, CS_EINVAL, "run.placement %s: each job places its ranks (its \"placement\"); expected "
                                        "run.placement contiguous in a cluster", ro.placement);
        } else if (!res->topo) {
            rc = CS_ERR(err, CS_EINVAL, "run.placement %s needs a graph backend (run.backend flow)", ro.placement);
        } else {
            cs_placement_group *pg = cs_calloc(groups.ngroups ? groups.ngroups : 1, sizeof *pg);
            for (size_t i = 0; i < groups.ngroups; i++)
                pg[i] = (cs_placement_group){groups.groups[i].ranks, groups.groups[i].nranks};
            rc = cs_topo_place(res->topo, ro.placement, pg, groups.ngroups, err);
            cs_free(pg);
        }
    }
    /* (a caller that composes the workload, as a cluster, warns once for its runs) */
    if (rc == CS_OK && explicit_topo && !in) cs_sc_warn_dims_vs_topology(&res->net, res->topo);
    if (rc == CS_OK && ro.slow_nics) { /* slower NICs: their links, after placement */
        double *nf = NULL;
        if (!res->topo)
            rc = CS_ERR(err, CS_EINVAL, "run.slow-nics %s needs a graph backend (run.backend flow or packet)",
                        ro.slow_nics);
        else rc = cs_sc_slow_ranks("run.slow-nics", ro.slow_nics, 1, (uint32_t)res->net.total_npus, &nf, err);
        if (rc == CS_OK) slow_nics_apply(res->topo, nf, (uint32_t)res->net.total_npus);
        cs_free(nf);
    }
    void *net_opts = NULL;
    if (rc == CS_OK) {
        rc = cs_sc_backend_opts(sc, be, &net_opts, err);
        so.net_opts = net_opts;
    }
    if (rc == CS_OK) {
        rc = cs_sc_memory(sc, &mem, err);
        if (rc == CS_OK) rc = cs_memory_config_validate(&mem, res->net.total_npus, err);
        if (rc == CS_OK && plan && p.offload_opt && mem.type == CS_MEM_NO_EXPANSION)
            rc = CS_ERR(err, CS_EINVAL, "plan.offload-optimizer: the optimizer state needs a remote memory; expected "
                                        "memory.memory-type PER_NPU_MEMORY_EXPANSION, PER_NODE_MEMORY_EXPANSION or "
                                        "MEMORY_POOL (--remote-memory-configuration FILE), got NO_MEMORY_EXPANSION");
        so.memory = &mem;
    }
    /* check only: what the engine reads and creates before its first event, and the cost model's inputs;
     * then nothing more (CS_SC_CHECKED skips the rest, returned as CS_OK below) */
    if (rc == CS_OK && hooks->check_only) {
        rc = cs_engine_check(&res->net, &so, err);
        cs_cost_params cp;
        cs_device cd;
        if (rc == CS_OK && (rc = cost_inputs(sc, plan ? &d : NULL, &cp, &cd, err)) == CS_OK) {
            cs_sc_free_typed(SC_COST, &cp);
            rc = CS_SC_CHECKED;
        }
    }
    /* observers: the front end's, and for plans rank 0's split */
    split.rank = 0;
    split.next = hooks->observer;
    cs_exec_observer split_o = {split_node_done, &split};
    so.observer = plan ? &split_o : hooks->observer;
    cs_coll_observer cobs;
    row_keep keep = {res, hooks};
    if (rc == CS_OK && !hooks->no_collectives) {
        res->colls = cs_coll_agg_new(G);
        cs_coll_agg_set_row_hook(res->colls, keep_row, &keep);
        cobs = cs_coll_agg_observer(res->colls);
        so.coll_observer = &cobs;
        so.coll_records_representative = 1;
    }
    /* the workload, and for plans the symmetry policy */
    cs_sym_axes ax;
    int use_cls = 0;
    if (rc == CS_OK && in) {
        /* the caller's workload */
    } else if (rc == CS_OK && text) {
        /* read with the groups above */
    } else if (rc == CS_OK && !plan) {
        cs_graph_options go = {ro.ignore_ctrl_deps, ro.allow_missing_data_deps, hooks->stop};
        /* before the traces' rank table (a pointer per rank) and the run: a run that cannot fit is
         * refused now, not after filling gigabytes of it */
        rc = cs_engine_fits_machine((uint32_t)res->net.total_npus, &res->net, ro.symmetry == 1, sizeof(void *),
                                    "--symmetry off was given", err);
        if (rc == CS_OK) rc = cs_workload_load(ro.workload, (uint32_t)res->net.total_npus, &go, &w, err);
    } else if (rc == CS_OK) {
        use_cls = ro.symmetry != 1 && !res->stragglers && cs_gen_sym_axes(&p, &ax) > 0 &&
                  cs_sym_axes_fit(&ax, &res->net) > 0;
        if (res->stragglers && ro.symmetry != 1)
            snprintf(res->sym_why, sizeof res->sym_why,
                     "run.slow-ranks / run.compute-jitter: the ranks compute at different rates");
    }
    if (rc == CS_OK && ro.compare_healthy) {
        if (!res->topo && !res->stragglers) {
            rc = CS_ERR(err, CS_EINVAL, "run.compare-healthy needs something to compare: failures on a graph "
                                        "backend (run.backend flow) or stragglers (run.slow-ranks, "
                                        "run.compute-jitter)");
        } else {
            if (plan) rc = cs_gen_workload(&m, &p, &d, NULL, hooks->stop, &w, err);
            if (rc == CS_OK) rc = run_healthy(W, &res->net, &so, &res->healthy_time, err);
            if (plan) cs_workload_free(&w);
            res->has_healthy = 1;
        }
    }
    cs_net_observer lobs = {res->topo ? hooks->link_util : NULL, hooks->link_ud, hooks->net_message,
                            hooks->net_message_ud, res->topo ? hooks->link_queue : NULL};
    if (rc == CS_OK && (lobs.link_util || lobs.message || lobs.link_queue)) so.net_observer = &lobs;
    if (res->topo) so.link_report = &res->links; /* the backend's per-link statistics */
    /* class mode: the representatives' graphs only; if the run stops, again
     * with the largest axis left out (more representatives, each class a
     * subset of one before, so the same argument and guard) while that
     * stays small, else every rank */
    while (rc == CS_OK && plan && use_cls) {
        rc = cs_gen_workload(&m, &p, &d, &ax, hooks->stop, &w, err);
        if (rc == CS_OK && hooks->progress) { /* its size, before the run */
            graph_mem gm = graph_memory(&w, 0); /* (representatives may share nodes: cs_graph_share) */
            if (w.ngraphs > CS_SC_MANY_REPS)
                cs_warn("class mode simulates %u representatives of %u ranks (the plan's symmetry on this network "
                        "leaves %u classes): %.1f M graph nodes, %.2f M of them distinct, about %.2f-%.2f GB of "
                        "memory", w.ngraphs, w.nranks, w.ngraphs, (double)gm.nodes / 1e6, (double)gm.distinct / 1e6,
                        gm.lo_bytes / 1e9, gm.hi_bytes / 1e9);
            else
                cs_info("class mode simulates %u representatives of %u ranks: %.2f M graph nodes", w.ngraphs,
                        w.nranks, (double)gm.nodes / 1e6);
        }
        if (rc != CS_OK) break;
        so.sym_axes = &ax;
        so.sym_no_fallback = 1;
        cs_error e;
        cs_error_clear(&e);
        int rc2 = cs_engine_run(&w, &res->net, &so, &res->sim, &e);
        if (rc2 == CS_OK) { /* (after a retry too: sym_why is for runs of every rank) */
            res->sym_why[0] = '\0';
            res->cls_axes = ax;
            break;
        }
        /* a retry without the largest axis only while it stays small (up to
         * CS_SC_MANY_REPS representatives): a larger one costs a good part
         * of the full run and, measured on Llama 3 405B at 16,384 GPUs
         * (docs/performance.md), stopped as well */
        cs_sym_axes narrower = ax;
        /* (not when the backend is why: no axis helps there) */
        int retry = cs_net_backend_has(ro.backend, CS_NET_EXACT_UNCONTENDED) &&
                    cs_sym_axes_drop_largest(&narrower) >= 0 && narrower.n > 0 &&
                    (uint64_t)w.nranks / sym_axes_class_size(&narrower) <= CS_SC_MANY_REPS;
        if (rc2 == CS_EINTR || (ro.symmetry == 2 && !retry)) { /* stopped; require: no fallback (prefixed below) */
            rc = rc2;
            *err = e;
            break;
        }
        snprintf(res->sym_why, sizeof res->sym_why, "%.560s", e.msg);
        split.ncomp = split.ncoll = 0;
        /* (a representative run reports no collective until it has
         * succeeded: the aggregator and the hooks have seen none) */
        if (res->colls && cs_coll_agg_count(res->colls) != 0) {
            rc = CS_ERR(err, CS_EINTERNAL, "collective rows of a stopped class-mode run");
            break;
        }
        if (retry) { /* leave out the largest axis (the later one of equal size) and try again */
            cs_sym_axes before = ax;
            int big = cs_sym_axes_drop_largest(&ax);
            uint32_t reps = w.ngraphs, st = before.stride[big], sz = before.size[big];
            if (!res->sym_retry[0]) { /* the first stop: the report says it, progress or not */
                static const char lead[] = "the representative run stopped: ";
                const char *why = strncmp(e.msg, lead, sizeof lead - 1) == 0 ? e.msg + sizeof lead - 1 : e.msg;
                snprintf(res->sym_retry, sizeof res->sym_retry, "with %u representatives the run stopped: %.300s",
                         reps, why);
            }
            if (hooks->progress)
                cs_warn("class mode with %u representatives stopped (%.300s); trying again without the symmetric "
                        "axis of rank stride %u and %u ranks (%u times the representatives)", reps, e.msg, st, sz, sz);
            cs_workload_free(&w);
            continue;
        }
        if (hooks->progress) { /* said before the long part, not after it, with its size */
            /* every rank's graph is its representative's, relabelled; the
             * full run's ranks share what the representatives' graphs hold
             * (cs_graph_share), at most these */
            graph_mem gm = graph_memory(&w, 1);
            cs_warn("class mode does not apply (%.300s); generating and simulating all %u ranks instead: "
                    "%.1f M graph nodes, of which at most %.2f M distinct (ranks that differ only in their peers "
                    "and communicators share them), about %.2f-%.2f GB of memory (bound the run with "
                    "--max-wall / --max-memory)",
                    e.msg, cs_gen_ranks(&p), (double)gm.nodes / 1e6, (double)gm.distinct / 1e6, gm.lo_bytes / 1e9,
                    gm.hi_bytes / 1e9);
        }
        cs_workload_free(&w);
        so.sym_axes = NULL;
        so.sym_no_fallback = 0;
        use_cls = 0;
    }
    if (rc == CS_OK && plan && !use_cls) {
        if (hooks->progress && ro.symmetry != 1 && !res->sym_why[0] && cs_gen_ranks(&p) > CS_SC_MANY_REPS)
            cs_warn("the plan has no symmetric axis that class mode can use on this network: generating all %u "
                    "ranks' graphs, and simulating every rank unless all run one graph (bound the run with "
                    "--max-wall / --max-memory)", cs_gen_ranks(&p));
        rc = cs_gen_workload(&m, &p, &d, NULL, hooks->stop, &w, err);
        if (rc == CS_OK) rc = cs_engine_run(&w, &res->net, &so, &res->sim, err);
    } else if (rc == CS_OK && !plan) {
        rc = cs_engine_run(W, &res->net, &so, &res->sim, err);
    }
    if (rc == CS_OK && plan && p.ingest.bytes_per_sample > 0)
        rc = run_no_ingest(&m, &p, &d, use_cls ? &ax : NULL, &res->net, &so, hooks, res, err);
    if (rc == CS_EUNSUPPORTED && ro.symmetry == 2) cs_error_prefix(err, "run.symmetry require: ");
    if (rc == CS_OK && res->colls) cs_coll_agg_finish(res->colls);
    if (rc == CS_OK) {
        res->sym_off = ro.symmetry == 1;
        res->backend = cs_strdup(ro.backend);
        res->single_file = plan ? 1 : W->single_file;
        res->ngraphs = W->ngraphs;
        for (uint32_t g = 0; g < W->ngraphs; g++) res->graph_nodes += W->graphs[g]->nnodes;
        if (plan) {
            char name[128];
            snprintf(name, sizeof name, "generated: %s", m.name);
            res->workload_prefix = cs_strdup(name);
        } else {
            res->workload_prefix = cs_strdup(in ? in->label : w.prefix);
        }
        /* the effective configuration, as summary.json records it */
        res->scenario = cs_scenario_to_json(sc, err);
        if (!res->scenario) rc = err->code ? err->code : CS_EINVAL;
    }
    if (rc == CS_OK) {
        json_object_set(config, "scenario", res->scenario);
        json_object_set_new(config, "network", cs_network_config_to_json(&res->net));
        json_object_set_new(config, "network_units", cs_network_config_units_json());
        json_object_set_new(config, "system", cs_system_config_to_json(&sysc));
        json_object_set_new(config, "system_units", cs_system_config_units_json());
        json_object_set_new(config, "memory", cs_memory_config_to_json(&mem));
        json_object_set_new(config, "memory_units", cs_memory_config_units_json());
        if (G && G->ngroups) json_object_set_new(config, "comm_groups", cs_comm_groups_to_json(G));
        if (res->topo) {
            cs_topo *topo = res->topo;
            json_t *tj = json_object();
            uint32_t down, degraded;
            cs_topo_count_faults(topo, &down, &degraded);
            json_object_set_new(tj, "description", json_string(topo->desc ? topo->desc : ""));
            json_object_set_new(tj, "links", json_integer(topo->nlinks));
            json_object_set_new(tj, "links_down_at_start", json_integer(down));
            json_object_set_new(tj, "links_degraded_at_start", json_integer(degraded));
            json_object_set_new(tj, "timed_changes", json_integer(topo->nchanges));
            json_object_set_new(tj, "placement", json_string(topo->placement[0] ? topo->placement : "contiguous"));
            if (G && G->ngroups) {
                json_t *gs = json_object();
                for (size_t i = 0; i < G->ngroups; i++)
                    json_object_set_new(gs, G->groups[i].name,
                                        json_integer(cs_topo_group_switches(topo, G->groups[i].ranks,
                                                                            G->groups[i].nranks)));
                json_object_set_new(tj, "group_switches", gs);
            }
            json_object_set_new(config, "topology", tj);
        }
        res->config = json_incref(config);
    }
    if (rc == CS_OK && plan) {
        cs_plan_row *pr = &res->plan;
        uint32_t n = cs_gen_ranks(&p);
        double it = cs_time_as_s_f(res->sim.sim_time);
        pr->valid = 1;
        pr->model_flops = cs_gen_model_flops(&m, &p);
        pr->mfu = it > 0 ? pr->model_flops / (it * n * d.peak_bf16_flops) : 0;
        pr->throughput = it > 0 ? m.family->items(&m, &p) / it : 0;
        snprintf(pr->throughput_unit, sizeof pr->throughput_unit, "%s", m.family->unit);
        cs_time comp = res->sim.ranks[0].compute, exp = exposed_coll(&split), fin = res->sim.sim_time;
        pr->rank0_compute_ps = comp;
        pr->rank0_exposed_comm_ps = exp;
        pr->rank0_bubble_ps = fin > comp + exp ? fin - comp - exp : 0;
        cs_gen_memory worst;
        cs_gen_memory_worst(&m, &p, &worst);
        pr->memory_worst_bytes = (uint64_t)worst.total;
        pr->hardware_flops = workload_flops(&w);
        pr->hfu = it > 0 ? pr->hardware_flops / (it * n * d.peak_bf16_flops) : 0;
        res->model = m;
        res->device = d;
        res->plan_cfg = p;
    }
    if (rc == CS_OK && res->slow_compute && res->sim.nranks) { /* the attribution the reports print */
        uint32_t n = res->sim.nranks, slow = 0;
        cs_time *c = cs_malloc(n * sizeof *c);
        for (uint32_t i = 0; i < n; i++) {
            c[i] = res->sim.ranks[i].compute;
            if (res->sim.ranks[i].compute > res->sim.ranks[slow].compute) slow = i; /* the straggler: most compute */
        }
        qsort(c, n, sizeof *c, time_cmp);
        res->median_compute = c[n / 2];
        res->straggle_rank = slow;
        res->straggle_factor = factors ? factors[slow] : 1.0;
        cs_free(c);
    }
    if (rc == CS_OK && ro.attribute_stragglers) rc = attribute_stragglers(sc, in, &ro, hooks, res, err);
    if (rc == CS_OK) rc = run_cost(sc, plan ? &d : NULL, plan ? &m : NULL, plan ? &p : NULL, explicit_topo, res, err);
    res->wall_s = cs_host_wall_s() - t0;
    json_decref(config);
    cs_free(split.comp);
    cs_free(factors);
    cs_free(split.coll);
    cs_workload_free(&w);
    cs_comm_groups_free(&groups);
    cs_system_config_free(&sysc);
    cs_memory_config_free(&mem);
    if (be) cs_sc_backend_opts_free(be, net_opts);
    cs_sc_free_typed(SC_RUN, &ro);
    if (rc) {
        cs_result_free(res);
        return rc == CS_SC_CHECKED ? CS_OK : rc;
    }
    *out = res;
    return CS_OK;
}
