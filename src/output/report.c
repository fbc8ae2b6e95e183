/*
 * report.c -- terminal report, summary.json and ranks.csv (see report.h);
 * the per-collective parts are written by output/collectives.c.
 */
#include "output/report.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "core/afile.h"
#include "core/alloc.h"
#include "gen/family.h"
#include "gen/gen.h"
#include "output/jsonw.h"
#include "system/coll_type.h"

static uint32_t slowest_rank(const cs_engine_result *res) {
    uint32_t best = 0;
    for (uint32_t r = 1; r < res->nranks; r++)
        if (res->ranks[r].finish > res->ranks[best].finish) best = r;
    return best;
}

/* j (consumed) as a member value: nested lines indented two spaces to sit inside the object. */
static void write_indented(FILE *f, json_t *j, size_t flags) {
    char *s = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS | flags);
    for (const char *p = s; p && *p; p++) {
        fputc(*p, f);
        if (*p == '\n') fputs("  ", f);
    }
    cs_json_free(s);
    json_decref(j);
}

/* A generated plan: its parameters, FLOP counts and memory per stage (units in the names). */
static json_t *plan_json(const cs_result *r) {
    const cs_gen_plan *p = &r->plan_cfg;
    const cs_plan_row *pr = &r->plan;
    static const char *const RECOMP[] = {"none", "selective", "full"};
    json_t *j = json_object();
    json_object_set_new(j, "model", json_string(r->model.name));
    json_object_set_new(j, "device", json_string(r->device.name));
    json_object_set_new(j, "tp", json_integer(p->tp));
    json_object_set_new(j, "cp", json_integer(p->cp ? p->cp : 1));
    json_object_set_new(j, "pp", json_integer(p->pp));
    json_object_set_new(j, "dp", json_integer(p->dp));
    json_object_set_new(j, "ep", json_integer(p->ep ? p->ep : 1));
    json_object_set_new(j, "sp", json_boolean(p->sp));
    json_object_set_new(j, "micro_batch", json_integer(p->micro_batch));
    json_object_set_new(j, "global_batch", json_integer(p->global_batch));
    json_object_set_new(j, "micro_batches", json_integer(cs_gen_micro_batches(p)));
    json_object_set_new(j, "virtual_stages", json_integer(p->vstages ? p->vstages : 1));
    json_object_set_new(j, "schedule", json_string(p->schedule == CS_SCHED_GPIPE ? "gpipe" : "1f1b"));
    json_object_set_new(j, "recompute", json_string(RECOMP[p->recompute >= 0 && p->recompute < 3 ? p->recompute : 0]));
    json_object_set_new(j, "zero", json_integer(p->zero));
    json_object_set_new(j, "flash_attention", json_boolean(p->flash));
    json_object_set_new(j, "offload_optimizer", json_boolean(p->offload_opt));
    json_object_set_new(j, "async_tensor_model_parallel_allreduce", json_boolean(p->async_tp));
    json_object_set_new(j, "gradient_accumulation_fusion", json_boolean(p->grad_acc_fusion));
    char pl[64];
    cs_gen_placement_format(p, pl, sizeof pl);
    json_object_set_new(j, "placement", json_string(pl));
    json_object_set_new(j, "model_flops", json_real(pr->model_flops));
    json_object_set_new(j, "hardware_flops", json_real(pr->hardware_flops));
    json_object_set_new(j, "mfu", json_real(pr->mfu));
    json_object_set_new(j, "hfu", json_real(pr->hfu));
    json_t *st = json_array();
    for (uint32_t s = 0; s < p->pp; s++) {
        cs_gen_memory m;
        cs_gen_memory_stage(&r->model, p, s, &m);
        json_t *o = json_object();
        json_object_set_new(o, "stage", json_integer(s));
        json_object_set_new(o, "weights_bytes", json_real(m.weights));
        json_object_set_new(o, "gradients_bytes", json_real(m.grads));
        json_object_set_new(o, "optimizer_bytes", json_real(m.optimizer));
        json_object_set_new(o, "activations_bytes", json_real(m.activations));
        json_object_set_new(o, "total_bytes", json_real(m.total));
        json_object_set_new(o, "remote_bytes", json_real(m.offloaded));
        json_object_set_new(o, "micro_batches_in_flight", json_integer(m.inflight));
        json_array_append_new(st, o);
    }
    json_object_set_new(j, "memory_per_stage", st);
    json_object_set_new(j, "hbm_bytes", json_real(r->device.hbm_bytes));
    return j;
}

/* ---- the input pipeline (docs/ingest.md) ------------------------------------ */

/* The GPU's wait for input: the step less the step without the input pipeline. */
static cs_time ingest_exposed(const cs_result *r) {
    return r->sim.sim_time > r->ingest.no_input_step ? r->sim.sim_time - r->ingest.no_input_step : 0;
}
/* Input bounds the step when the GPU waits for it beyond the first batch's latency. */
static int ingest_bound(const cs_result *r) { return ingest_exposed(r) > r->ingest.first_batch; }

static json_t *ingest_json(const cs_result *r) {
    const struct cs_ingest_row *g = &r->ingest;
    const cs_gen_ingest *in = &r->plan_cfg.ingest;
    json_t *j = json_object();
    json_object_set_new(j, "loaders", json_integer(g->times.loaders));
    json_object_set_new(j, "ingest_hosts", json_integer(g->hosts));
    json_object_set_new(j, "prefetch_depth", json_integer(in->prefetch));
    json_object_set_new(j, "read_per_micro_batch_ns", json_real((double)g->times.read_us * 1e3));
    json_object_set_new(j, "preprocess_per_micro_batch_ns", json_real((double)g->times.preprocess_us * 1e3));
    json_object_set_new(j, "h2d_per_micro_batch_ns", json_real((double)g->times.h2d_us * 1e3));
    json_object_set_new(j, "first_batch_ns", json_real((double)g->first_batch / 1e3));
    json_object_set_new(j, "input_per_step_ns", json_real((double)g->input_per_step / 1e3));
    json_object_set_new(j, "step_without_input_ns", json_real((double)g->no_input_step / 1e3));
    json_object_set_new(j, "exposed_input_ns", json_real((double)ingest_exposed(r) / 1e3));
    json_object_set_new(j, "input_bound", json_boolean(ingest_bound(r)));
    return j;
}

static void ingest_lines(FILE *f, const cs_result *r) {
    const struct cs_ingest_row *g = &r->ingest;
    if (!g->on) return;
    char a[32], b[32], c[32], d[32], e[32], h[32];
    fprintf(f, "  input pipeline   %s per step on each of %u loaders (per micro-batch: read %s + preprocess %s + "
               "host-to-device %s; %u ingest host%s, prefetch %u)\n",
            cs_time_fmt(g->input_per_step, a, sizeof a), g->times.loaders,
            cs_time_fmt(cs_time_from_us(g->times.read_us), b, sizeof b),
            cs_time_fmt(cs_time_from_us(g->times.preprocess_us), c, sizeof c),
            cs_time_fmt(cs_time_from_us(g->times.h2d_us), d, sizeof d), g->hosts, g->hosts == 1 ? "" : "s",
            r->plan_cfg.ingest.prefetch);
    fprintf(f, "  input-bound      %s: the GPU waits %s for input (the step %s, without the input pipeline %s; "
               "the first batch's %s is exposed in any case)\n",
            ingest_bound(r) ? "yes" : "no", cs_time_fmt(ingest_exposed(r), e, sizeof e),
            cs_time_fmt(r->sim.sim_time, a, sizeof a), cs_time_fmt(g->no_input_step, b, sizeof b),
            cs_time_fmt(g->first_batch, h, sizeof h));
}

int cs_report_summary_json(const char *path, const cs_result *r, const cs_coll_out *colls, cs_error *err) {
    const cs_engine_result *res = &r->sim;
    cs_afile af;
    int rc = cs_afile_open(&af, path, err);
    if (rc) return rc;
    FILE *f = af.f;
    cs_time max_compute = 0, max_exposed = 0, max_cpu_only = 0, max_comm_only = 0, max_idle = 0;
    for (uint32_t k = 0; k < res->nranks; k++) {
        const cs_rank_result *rr = &res->ranks[k];
        if (rr->compute > max_compute) max_compute = rr->compute;
        cs_time e = cs_rank_exposed_comm(rr), idle = cs_rank_idle(rr, res->sim_time);
        if (e > max_exposed) max_exposed = e;
        if (rr->cpu_only > max_cpu_only) max_cpu_only = rr->cpu_only;
        if (rr->comm_only > max_comm_only) max_comm_only = rr->comm_only;
        if (idle > max_idle) max_idle = idle;
    }
    fprintf(f, "{\n  \"schema_version\": %d,\n  \"generator\": \"clustersim %s\",\n",
            CS_SUMMARY_SCHEMA_VERSION, CS_VERSION);
    fputs("  \"sim_time_ns\": ", f);
    cs_jsonw_ns(f, res->sim_time);
    fprintf(f, ",\n  \"sim_time_ps\": %" PRIu64 ",\n", res->sim_time);
    if (r->has_healthy) {
        fputs("  \"healthy_sim_time_ns\": ", f);
        cs_jsonw_ns(f, r->healthy_time);
        fprintf(f, ",\n  \"slowdown_vs_healthy\": %.6f,\n",
                r->healthy_time ? (double)res->sim_time / (double)r->healthy_time : 1.0);
    }
    fprintf(f, "  \"ranks_count\": %u,\n", res->nranks);
    fprintf(f, "  \"slowest_rank\": %u,\n", slowest_rank(res));
    fputs("  \"totals\": {\"max_compute_ns\": ", f);
    cs_jsonw_ns(f, max_compute);
    fputs(", \"max_exposed_comm_ns\": ", f);
    cs_jsonw_ns(f, max_exposed);
    fputs(", \"max_cpu_only_ns\": ", f);
    cs_jsonw_ns(f, max_cpu_only);
    fputs(", \"max_comm_only_ns\": ", f);
    cs_jsonw_ns(f, max_comm_only);
    fputs(", \"max_idle_ns\": ", f);
    cs_jsonw_ns(f, max_idle);
    fprintf(f,
            ", \"events\": %" PRIu64 ", \"network_messages\": %" PRIu64 ", \"network_bytes\": %" PRIu64
            ", \"roofline_fallbacks\": %" PRIu64 ", \"warnings\": %" PRIu64 ", \"symmetry\": \"%s\"},\n",
            res->events, res->net_messages, res->net_bytes, res->roofline_fallbacks, res->warnings,
            res->symmetric ? "representative" : "full");
    if (r->links.summary[0]) {
        fputs("  \"network_summary\": ", f);
        write_indented(f, json_string(r->links.summary), JSON_ENCODE_ANY);
        fputs(",\n", f);
    }
    fputs("  \"ranks\": [\n", f);
    for (uint32_t k = 0; k < res->nranks; k++) {
        const cs_rank_result *rr = &res->ranks[k];
        fputs("    {\"rank\": ", f);
        cs_jsonw_u64(f, k);
        fputs(", \"finish_ns\": ", f);
        cs_jsonw_ns(f, rr->finish);
        fputs(", \"compute_ns\": ", f);
        cs_jsonw_ns(f, rr->compute);
        fputs(", \"exposed_comm_ns\": ", f);
        cs_jsonw_ns(f, cs_rank_exposed_comm(rr));
        fputs(", \"cpu_ns\": ", f);
        cs_jsonw_ns(f, rr->cpu);
        fputs(", \"comm_busy_ns\": ", f);
        cs_jsonw_ns(f, rr->comm_busy);
        fputs(", \"cpu_only_ns\": ", f);
        cs_jsonw_ns(f, rr->cpu_only);
        fputs(", \"comm_only_ns\": ", f);
        cs_jsonw_ns(f, rr->comm_only);
        fputs(", \"idle_ns\": ", f);
        cs_jsonw_ns(f, cs_rank_idle(rr, res->sim_time));
        fputs(", \"nodes\": ", f);
        cs_jsonw_u64(f, rr->nodes);
        fputs(", \"p2p_bytes_sent\": ", f);
        cs_jsonw_u64(f, rr->bytes_sent);
        fputs(", \"p2p_bytes_received\": ", f);
        cs_jsonw_u64(f, rr->bytes_recv);
        fputs(k + 1 < res->nranks ? "},\n" : "}\n", f);
    }
    fputs("  ],\n", f);
    rc = cs_coll_out_write_json(colls, r, f, path, err);
    if (rc) {
        cs_afile_abort(&af);
        return rc;
    }
    if (r->nattrib) { /* each straggler's share of the loss (leave-one-out) */
        fputs("  \"straggler_attribution\": [", f);
        for (size_t i = 0; i < r->nattrib; i++) {
            fprintf(f, "%s\n    {\"straggler\": \"%s\", \"resource\": \"%s\", \"sim_time_without_ns\": ", i ? "," : "",
                    r->attrib[i].what, r->attrib[i].resource);
            cs_jsonw_ns(f, r->attrib[i].without);
            fputs(", \"loss_ns\": ", f);
            cs_jsonw_ns(f, r->sim.sim_time > r->attrib[i].without ? r->sim.sim_time - r->attrib[i].without : 0);
            fputc('}', f);
        }
        fputs("\n  ],\n", f);
    }
    if (r->slow_compute) {
        fprintf(f, "  \"stragglers\": {\"rank\": %u, \"compute_ns\": ", r->straggle_rank);
        cs_jsonw_ns(f, r->sim.ranks[r->straggle_rank].compute);
        fputs(", \"median_compute_ns\": ", f);
        cs_jsonw_ns(f, r->median_compute);
        fprintf(f, ", \"factor\": %.17g},\n", r->straggle_factor);
    }
    if (r->plan.valid) {
        fputs("  \"plan\": ", f);
        write_indented(f, plan_json(r), JSON_REAL_PRECISION(17));
        fputs(",\n", f);
    }
    if (r->ingest.on) {
        fputs("  \"ingest\": ", f);
        write_indented(f, ingest_json(r), JSON_REAL_PRECISION(17));
        fputs(",\n", f);
    }
    fputs("  \"cost\": ", f);
    write_indented(f, cs_cost_report_json(&r->cost), JSON_REAL_PRECISION(17));
    fputs(",\n  \"configuration\": ", f);
    write_indented(f, r->config ? json_incref(r->config) : json_object(), 0);
    fputs("\n}\n", f);
    return cs_afile_commit(&af, err);
}

int cs_report_ranks_csv(const char *path, const cs_result *r, cs_error *err) {
    const cs_engine_result *res = &r->sim;
    cs_afile af;
    int rc = cs_afile_open(&af, path, err);
    if (rc) return rc;
    FILE *f = af.f;
    fputs("rank,finish_ns,compute_ns,exposed_comm_ns,cpu_ns,comm_busy_ns,nodes,p2p_bytes_sent,"
          "p2p_bytes_received,cpu_only_ns,comm_only_ns,idle_ns\n",
          f);
    for (uint32_t k = 0; k < res->nranks; k++) {
        const cs_rank_result *rr = &res->ranks[k];
        cs_jsonw_u64(f, k);
        fputc(',', f);
        cs_jsonw_ns(f, rr->finish);
        fputc(',', f);
        cs_jsonw_ns(f, rr->compute);
        fputc(',', f);
        cs_jsonw_ns(f, cs_rank_exposed_comm(rr));
        fputc(',', f);
        cs_jsonw_ns(f, rr->cpu);
        fputc(',', f);
        cs_jsonw_ns(f, rr->comm_busy);
        fputc(',', f);
        cs_jsonw_u64(f, rr->nodes);
        fputc(',', f);
        cs_jsonw_u64(f, rr->bytes_sent);
        fputc(',', f);
        cs_jsonw_u64(f, rr->bytes_recv);
        fputc(',', f);
        cs_jsonw_ns(f, rr->cpu_only);
        fputc(',', f);
        cs_jsonw_ns(f, rr->comm_only);
        fputc(',', f);
        cs_jsonw_ns(f, cs_rank_idle(rr, res->sim_time));
        fputc('\n', f);
    }
    return cs_afile_commit(&af, err);
}

static void fmt_bytes(uint64_t b, char *buf, size_t n) {
    if (b >= (1ULL << 30))
        snprintf(buf, n, "%.2f GiB", (double)b / (double)(1ULL << 30));
    else if (b >= (1ULL << 20))
        snprintf(buf, n, "%.2f MiB", (double)b / (double)(1ULL << 20));
    else if (b >= (1ULL << 10))
        snprintf(buf, n, "%.2f KiB", (double)b / 1024.0);
    else
        snprintf(buf, n, "%" PRIu64 " B", b);
}

static double pct(cs_time part, cs_time whole) { return whole ? 100.0 * (double)part / (double)whole : 0.0; }

static void rank_row(FILE *f, const char *label, const cs_rank_result *rr, cs_time step) {
    char a[32], b[32], c[32], d[32], e[32], g[32], h[32];
    fprintf(f, "  %-10s %14s %14s %14s %14s %14s %14s %14s\n", label, cs_time_fmt(rr->finish, a, sizeof a),
            cs_time_fmt(rr->compute, b, sizeof b), cs_time_fmt(cs_rank_exposed_comm(rr), c, sizeof c),
            cs_time_fmt(rr->comm_busy, d, sizeof d), cs_time_fmt(rr->cpu_only, e, sizeof e),
            cs_time_fmt(rr->comm_only, g, sizeof g), cs_time_fmt(cs_rank_idle(rr, step), h, sizeof h));
}

/* One line per collective type: count, total comm_size, mean busbw. */
static void coll_lines(FILE *f, const cs_coll_agg *a) {
    cs_coll_type_stats t[16];
    size_t n = cs_coll_agg_types(a, t, 16);
    if (n == 0) return;
    if (n > 16) n = 16;
    fprintf(f, "\n  %-16s %10s %14s %16s\n", "collective", "count", "total bytes", "mean busbw");
    for (size_t i = 0; i < n; i++) {
        char b[32], bw[32];
        fmt_bytes(t[i].bytes, b, sizeof b);
        if (t[i].timed)
            snprintf(bw, sizeof bw, "%.2f GB/s", t[i].busbw_sum_gbps / (double)t[i].timed);
        else
            snprintf(bw, sizeof bw, "-");
        fprintf(f, "  %-16s %10" PRIu64 " %14s %16s\n", cs_coll_type_label(t[i].comm_type), t[i].count, b, bw);
    }
    fprintf(f, "  (mean busbw over the instances that moved bytes; nccl-tests convention, 1 GB/s = 1e9 bytes/s)\n");
}

/* Stragglers: the slowest rank against the median, and the slowdown when measured. */
static void straggle_line(FILE *f, const cs_result *r) {
    char a[32], b[32];
    for (size_t i = 0; i < r->nattrib; i++) { /* leave-one-out: what each straggler adds */
        const struct cs_straggler_share *x = &r->attrib[i];
        cs_time loss = r->sim.sim_time > x->without ? r->sim.sim_time - x->without : 0;
        fprintf(f, "  %-16s %s (%s): +%s (%.2f %% of the step; the step without it: %s)\n",
                i ? "" : "loss by straggler", x->what, x->resource, cs_time_fmt(loss, a, sizeof a),
                r->sim.sim_time ? 100.0 * (double)loss / (double)r->sim.sim_time : 0.0,
                cs_time_fmt(x->without, b, sizeof b));
    }
    if (r->nattrib && r->has_healthy) {
        cs_time sum = 0, all = r->sim.sim_time > r->healthy_time ? r->sim.sim_time - r->healthy_time : 0;
        for (size_t i = 0; i < r->nattrib; i++)
            sum += r->sim.sim_time > r->attrib[i].without ? r->sim.sim_time - r->attrib[i].without : 0;
        fprintf(f, "  %-16s the items' losses add up to %s of the %s over the run without them%s\n", "",
                cs_time_fmt(sum, a, sizeof a), cs_time_fmt(all, b, sizeof b),
                sum == all ? "" : " (the rest: stragglers that overlap or compound)");
    }
    if (!r->slow_compute) return;
    const cs_rank_result *s = &r->sim.ranks[r->straggle_rank];
    fprintf(f, "  stragglers       rank %u computes longest: GPU compute %s, %.3fx the median rank's %s", r->straggle_rank,
            cs_time_fmt(s->compute, a, sizeof a),
            r->median_compute ? (double)s->compute / (double)r->median_compute : 0.0,
            cs_time_fmt(r->median_compute, b, sizeof b));
    if (r->straggle_factor != 1.0) fprintf(f, " (run.slow-ranks factor %g)", r->straggle_factor);
    if (r->has_healthy && r->healthy_time)
        fprintf(f, "; step %+.2f %% over the run without stragglers%s",
                100.0 * ((double)r->sim.sim_time / (double)r->healthy_time - 1.0), r->topo ? " or failures" : "");
    fputc('\n', f);
}

void cs_report_terminal(FILE *f, const cs_result *r, const char *const *outputs) {
    const cs_engine_result *res = &r->sim;
    char t1[32], t2[32];
    const cs_network_config *net = &r->net;
    fprintf(f, "\nclustersim %s -- simulation report\n\n", CS_VERSION);
    fprintf(f, "  workload   %s%s  (%u ranks, %u distinct graph%s, %" PRIu64 " nodes)\n",
            r->workload_prefix, r->single_file ? "" : ".<rank>.et", res->nranks,
            r->ngraphs, r->ngraphs == 1 ? "" : "s", r->graph_nodes);
    fprintf(f, "  network    %s: ", net->path ? net->path : "(built-in)");
    for (int d = 0; d < net->ndims; d++)
        fprintf(f, "%s%s(%u) %g GB/s %g ns", d ? " x " : "", cs_topo_kind_name(net->topo[d]), net->npus[d],
                net->bandwidth_gbps[d], net->latency_ns[d]);
    fprintf(f, "\n  backend    %s\n", r->backend);
    if (res->symmetric)
        fprintf(f, "  mode       symmetric: rank 0 simulated, standing for all %u ranks (exact; --symmetry=off for the full run)\n\n",
                res->nranks);
    else
        fprintf(f, "  mode       full: every rank simulated\n\n");

    uint32_t slow = slowest_rank(res);
    const cs_rank_result *sr = &res->ranks[slow];
    fprintf(f, "  simulated time   %s   (slowest: rank %u)\n", cs_time_fmt(res->sim_time, t1, sizeof t1), slow);
    if (r->has_healthy)
        fprintf(f, "  %-16s %s   (%s: %+.2f %%, x%.4f)\n", r->topo ? "healthy network" : "no stragglers",
                cs_time_fmt(r->healthy_time, t2, sizeof t2),
                r->topo && r->stragglers ? "failures/degradation/stragglers"
                : r->topo                ? "failures/degradation"
                                         : "stragglers",
                r->healthy_time ? 100.0 * ((double)res->sim_time / (double)r->healthy_time - 1.0) : 0.0,
                r->healthy_time ? (double)res->sim_time / (double)r->healthy_time : 1.0);
    straggle_line(f, r);
    ingest_lines(f, r);
    fprintf(f, "  on rank %u: compute %s (%.1f %%), exposed communication %s (%.1f %%)\n", slow,
            cs_time_fmt(sr->compute, t1, sizeof t1), pct(sr->compute, sr->finish),
            cs_time_fmt(cs_rank_exposed_comm(sr), t2, sizeof t2), pct(cs_rank_exposed_comm(sr), sr->finish));
    if (cs_rank_exposed_comm(sr)) { /* ASTRA-sim's number counts CPU work and idle time as communication */
        char t3[32];
        cs_time idle = cs_rank_idle(sr, res->sim_time);
        fprintf(f, "    of which: CPU ops %s (%.1f %%), communication %s (%.1f %%), idle %s (%.1f %%)%s\n",
                cs_time_fmt(sr->cpu_only, t1, sizeof t1), pct(sr->cpu_only, sr->finish),
                cs_time_fmt(sr->comm_only, t2, sizeof t2), pct(sr->comm_only, sr->finish),
                cs_time_fmt(idle, t3, sizeof t3), pct(idle, sr->finish),
                sr->cpu_only > sr->comm_only && sr->cpu_only > idle ? ": CPU-bound" : "");
    }
    fputc('\n', f);

    fprintf(f, "  %-10s %14s %14s %14s %14s %14s %14s %14s\n", "rank", "finish", "GPU compute", "exposed comm",
            "comm busy", "CPU only", "comm only", "idle");
    if (res->nranks <= 16) {
        for (uint32_t k = 0; k < res->nranks; k++) {
            char label[16];
            snprintf(label, sizeof label, "%u", k);
            rank_row(f, label, &res->ranks[k], res->sim_time);
        }
    } else {
        cs_rank_result mn = res->ranks[0], mx = res->ranks[0];
        for (uint32_t k = 1; k < res->nranks; k++) {
            const cs_rank_result *rr = &res->ranks[k];
            if (rr->finish < mn.finish) mn = *rr;
            if (rr->finish > mx.finish) mx = *rr;
        }
        rank_row(f, "fastest", &mn, res->sim_time);
        rank_row(f, "slowest", &mx, res->sim_time);
        fprintf(f, "  (%u ranks: see ranks.csv / summary.json for every rank)\n", res->nranks);
    }
    fputs("  (exposed comm: ASTRA-sim's finish - GPU compute; it splits into CPU only: CPU ops while the GPU is "
          "idle,\n   comm only: communication in flight while neither computes, and idle: nothing running, "
          "counted to the end of the step)\n",
          f);
    char b[32];
    fmt_bytes(res->net_bytes, b, sizeof b);
    fprintf(f, "\n  %" PRIu64 " events, %" PRIu64 " network messages (%s)", res->events, res->net_messages, b);
    if (r->wall_s > 0) fprintf(f, ", %.3f s wall", r->wall_s);
    fputs("\n", f);
    if (r->links.summary[0]) fprintf(f, "  network: %s\n", r->links.summary);
    if (res->roofline_fallbacks)
        fprintf(f, "  note: %" PRIu64 " COMP nodes had no num_ops and were replayed from duration_micros\n",
                res->roofline_fallbacks);
    fputs("\n", f);
    cs_cost_report_print(f, &r->cost);
    coll_lines(f, r->colls);
    int any = 0;
    for (int i = 0; outputs && outputs[i]; i++) {
        fprintf(f, "%s%s", any ? ", " : "  outputs: ", outputs[i]);
        any = 1;
    }
    if (any) fputs("\n", f);
    fputs("\n", f);
}

/* ---- generated plans ------------------------------------------------------- */

void cs_report_plan(FILE *f, const cs_gen_model *m, const cs_device *d, const cs_gen_plan *p) {
    m->family->describe(f, m, p);
    cs_gen_memory w;
    cs_gen_memory_worst(m, p, &w);
    char buf[512];
    cs_gen_memory_format(&w, buf, sizeof buf);
    fprintf(f, "  device     %s: %.0f TFLOP/s, %.0f GB HBM\n  memory     %s (largest)\n", d->name,
            d->peak_bf16_flops / 1e12, d->hbm_bytes / 1e9, buf);
}

/* The training report (generated plans). */
void cs_report_train(FILE *f, const cs_result *r) {
    const cs_plan_row *pr = &r->plan;
    uint32_t n = r->sim.nranks;
    double it = cs_time_as_s_f(r->sim.sim_time);
    int ph = r->plan_cfg.phase;
    fprintf(f, "clustersim %s -- %s step\n\n", CS_VERSION,
            ph == CS_PHASE_PREFILL ? "serving (prefill)" : ph == CS_PHASE_DECODE ? "serving (decode)" : "training");
    cs_report_plan(f, &r->model, &r->device, &r->plan_cfg);
    fprintf(f, "  network    %s (%" PRIu64 " NPUs), backend %s\n\n", r->net.path, r->net.total_npus, r->backend);
    const char *unit = pr->throughput_unit;
    fprintf(f, "  iteration time   %.4f s\n  MFU              %.1f %%  (%.3g model FLOPs, %.0f TFLOP/s per GPU)\n"
               "  HFU              %.1f %%  (%.3g hardware FLOPs with recomputation, %.0f TFLOP/s per GPU)\n"
               "  %-16s %.0f\n",
            it, 100 * pr->mfu, pr->model_flops, it > 0 ? pr->model_flops / it / n / 1e12 : 0.0, 100 * pr->hfu,
            pr->hardware_flops, it > 0 ? pr->hardware_flops / it / n / 1e12 : 0.0, unit, pr->throughput);
    double c = cs_time_as_s_f(pr->rank0_compute_ps), e = cs_time_as_s_f(pr->rank0_exposed_comm_ps),
           b = cs_time_as_s_f(pr->rank0_bubble_ps);
    fprintf(f, "  rank 0 split     compute %.4f s (%.1f %%), exposed communication %.4f s (%.1f %%), bubble/wait "
               "%.4f s (%.1f %%)\n",
            c, 100 * c / it, e, 100 * e / it, b, 100 * b / it);
    if (r->sim.symmetric == 2)
        fprintf(f, "  symmetry         %u classes of %u ranks: one representative per class simulated%s%s%s\n",
                r->sim.simulated_ranks, n / r->sim.simulated_ranks, r->sym_retry[0] ? " (" : "", r->sym_retry,
                r->sym_retry[0] ? ")" : "");
    else if (r->sim.symmetric == 1)
        fprintf(f, "  symmetry         every rank runs rank 0's graph: rank 0 simulated\n");
    else
        fprintf(f, "  symmetry         every rank simulated%s%s\n", r->sym_why[0] ? ": " : "",
                r->sym_why[0] ? r->sym_why : r->sym_off ? " (--symmetry off)" : "");
    fprintf(f, "  simulated %" PRIu64 " events (%" PRIu64 " represented), %u graphs generated, wall %.2f s\n",
            r->sim.events / (n / (r->sim.simulated_ranks ? r->sim.simulated_ranks : n)), r->sim.events, r->ngraphs,
            r->wall_s);
    if (r->has_healthy)
        fprintf(f, "  healthy network  %.4f s (slowdown x%.4f)\n", cs_time_as_s_f(r->healthy_time),
                r->healthy_time ? (double)r->sim.sim_time / (double)r->healthy_time : 1.0);
    straggle_line(f, r);
    ingest_lines(f, r);
    cs_cost_report_print(f, &r->cost);
}

int cs_report_train_json(const char *path, const cs_result *r, cs_error *err) {
    const cs_plan_row *pr = &r->plan;
    json_t *j = json_object();
    json_object_set_new(j, "model", json_string(r->model.name));
    json_object_set_new(j, "device", json_string(r->device.name));
    json_object_set_new(j, "ranks", json_integer(r->sim.nranks));
    json_object_set_new(j, "iteration_time_ns", json_real((double)r->sim.sim_time / 1e3));
    json_object_set_new(j, "iteration_time_ps", json_integer((json_int_t)r->sim.sim_time));
    json_object_set_new(j, "mfu", json_real(pr->mfu));
    char key[32];
    snprintf(key, sizeof key, "%.*s_per_s", (int)strcspn(pr->throughput_unit, "/"), pr->throughput_unit);
    json_object_set_new(j, key, json_real(pr->throughput));
    json_object_set_new(j, "model_flops", json_real(pr->model_flops));
    json_object_set_new(j, "hardware_flops", json_real(pr->hardware_flops));
    json_object_set_new(j, "hfu", json_real(pr->hfu));
    json_object_set_new(j, "rank0_compute_ns", json_real((double)pr->rank0_compute_ps / 1e3));
    json_object_set_new(j, "rank0_exposed_comm_ns", json_real((double)pr->rank0_exposed_comm_ps / 1e3));
    json_object_set_new(j, "rank0_bubble_ns", json_real((double)pr->rank0_bubble_ps / 1e3));
    json_object_set_new(j, "memory_worst_stage_bytes", json_integer((json_int_t)pr->memory_worst_bytes));
    json_object_set_new(j, "simulated_ranks", json_integer(r->sim.simulated_ranks));
    json_object_set_new(j, "events", json_integer((json_int_t)r->sim.events));
    json_object_set_new(j, "symmetry", json_string(cs_result_symmetry(r, NULL, NULL)));
    json_object_set_new(j, "cost", cs_cost_report_json(&r->cost));
    if (r->ingest.on) json_object_set_new(j, "ingest", ingest_json(r));
    json_object_set_new(j, "plan", plan_json(r));
    json_object_set_new(j, "network", cs_network_config_to_json(&r->net));
    json_object_set_new(j, "network_units", cs_network_config_units_json());
    json_object_set(j, "scenario", r->scenario);
    char *s = json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    json_decref(j);
    int rc = cs_write_file_atomic(path, s, strlen(s), err);
    cs_json_free(s);
    return rc;
}
