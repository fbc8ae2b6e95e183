/*
 * report.c -- terminal report, summary.json and ranks.csv (see report.h);
 * the per-collective parts are written by output/collectives.c.
 */
#include "output/report.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "output/jsonw.h"

static int close_checked(FILE *f, const char *path, cs_error *err) {
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) return CS_ERR(err, CS_EIO, "%s: write error: %s", path, strerror(errno));
    return CS_OK;
}

static uint32_t slowest_rank(const cs_sim_result *res) {
    uint32_t best = 0;
    for (uint32_t r = 1; r < res->nranks; r++)
        if (res->ranks[r].finish > res->ranks[best].finish) best = r;
    return best;
}

int cs_report_summary_json(const char *path, const cs_run_info *info, const cs_sim_result *res,
                           cs_error *err) {
    FILE *f = fopen(path, "w");
    if (!f) return CS_ERR(err, CS_EIO, "%s: cannot write summary: %s", path, strerror(errno));
    cs_time max_compute = 0, max_exposed = 0;
    for (uint32_t r = 0; r < res->nranks; r++) {
        if (res->ranks[r].compute > max_compute) max_compute = res->ranks[r].compute;
        cs_time e = cs_rank_exposed_comm(&res->ranks[r]);
        if (e > max_exposed) max_exposed = e;
    }
    fprintf(f, "{\n  \"schema_version\": %d,\n  \"generator\": \"clustersim %s\",\n",
            CS_SUMMARY_SCHEMA_VERSION, CS_VERSION);
    fputs("  \"sim_time_ns\": ", f);
    cs_jsonw_ns(f, res->sim_time);
    fprintf(f, ",\n  \"sim_time_ps\": %" PRIu64 ",\n", res->sim_time);
    if (info->has_healthy) {
        fputs("  \"healthy_sim_time_ns\": ", f);
        cs_jsonw_ns(f, info->healthy_time);
        fprintf(f, ",\n  \"slowdown_vs_healthy\": %.6f,\n",
                info->healthy_time ? (double)res->sim_time / (double)info->healthy_time : 1.0);
    }
    fprintf(f, "  \"ranks_count\": %u,\n", res->nranks);
    fprintf(f, "  \"slowest_rank\": %u,\n", slowest_rank(res));
    fputs("  \"totals\": {\"max_compute_ns\": ", f);
    cs_jsonw_ns(f, max_compute);
    fputs(", \"max_exposed_comm_ns\": ", f);
    cs_jsonw_ns(f, max_exposed);
    fprintf(f,
            ", \"events\": %" PRIu64 ", \"network_messages\": %" PRIu64 ", \"network_bytes\": %" PRIu64
            ", \"roofline_fallbacks\": %" PRIu64 ", \"warnings\": %" PRIu64 ", \"symmetry\": \"%s\"},\n",
            res->events, res->net_messages, res->net_bytes, res->roofline_fallbacks, res->warnings,
            res->symmetric ? "representative" : "full");
    fputs("  \"ranks\": [\n", f);
    for (uint32_t r = 0; r < res->nranks; r++) {
        const cs_rank_result *rr = &res->ranks[r];
        fprintf(f, "    {\"rank\": %u, \"finish_ns\": ", r);
        cs_jsonw_ns(f, rr->finish);
        fputs(", \"compute_ns\": ", f);
        cs_jsonw_ns(f, rr->compute);
        fputs(", \"exposed_comm_ns\": ", f);
        cs_jsonw_ns(f, cs_rank_exposed_comm(rr));
        fputs(", \"cpu_ns\": ", f);
        cs_jsonw_ns(f, rr->cpu);
        fputs(", \"comm_busy_ns\": ", f);
        cs_jsonw_ns(f, rr->comm_busy);
        fprintf(f, ", \"nodes\": %" PRIu64 ", \"p2p_bytes_sent\": %" PRIu64 ", \"p2p_bytes_received\": %" PRIu64 "}%s\n",
                rr->nodes, rr->bytes_sent, rr->bytes_recv, r + 1 < res->nranks ? "," : "");
    }
    fputs("  ],\n", f);
    int rc = cs_coll_agg_write_json(info->collectives, f, path, err);
    if (rc) {
        fclose(f);
        return rc;
    }
    fputs("  \"configuration\": ", f);
    if (info->config) {
        char *s = json_dumps(info->config, JSON_INDENT(2) | JSON_SORT_KEYS);
        /* indent nested lines by two spaces to sit inside the object */
        for (const char *p = s; p && *p; p++) {
            fputc(*p, f);
            if (*p == '\n') fputs("  ", f);
        }
        free(s);
    } else {
        fputs("{}", f);
    }
    fputs("\n}\n", f);
    return close_checked(f, path, err);
}

int cs_report_ranks_csv(const char *path, const cs_sim_result *res, cs_error *err) {
    FILE *f = fopen(path, "w");
    if (!f) return CS_ERR(err, CS_EIO, "%s: cannot write: %s", path, strerror(errno));
    fputs("rank,finish_ns,compute_ns,exposed_comm_ns,cpu_ns,comm_busy_ns,nodes,p2p_bytes_sent,"
          "p2p_bytes_received\n",
          f);
    for (uint32_t r = 0; r < res->nranks; r++) {
        const cs_rank_result *rr = &res->ranks[r];
        fprintf(f, "%u,", r);
        cs_jsonw_ns(f, rr->finish);
        fputc(',', f);
        cs_jsonw_ns(f, rr->compute);
        fputc(',', f);
        cs_jsonw_ns(f, cs_rank_exposed_comm(rr));
        fputc(',', f);
        cs_jsonw_ns(f, rr->cpu);
        fputc(',', f);
        cs_jsonw_ns(f, rr->comm_busy);
        fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", rr->nodes, rr->bytes_sent, rr->bytes_recv);
    }
    return close_checked(f, path, err);
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

static void rank_row(FILE *f, const char *label, const cs_rank_result *rr) {
    char a[32], b[32], c[32], d[32];
    fprintf(f, "  %-10s %14s %14s %14s %14s\n", label, cs_time_fmt(rr->finish, a, sizeof a),
            cs_time_fmt(rr->compute, b, sizeof b), cs_time_fmt(cs_rank_exposed_comm(rr), c, sizeof c),
            cs_time_fmt(rr->comm_busy, d, sizeof d));
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

void cs_report_terminal(FILE *f, const cs_run_info *info, const cs_sim_result *res) {
    char t1[32], t2[32];
    const cs_network_config *net = info->network;
    fprintf(f, "\nclustersim %s -- simulation report\n\n", CS_VERSION);
    fprintf(f, "  workload   %s%s  (%u ranks, %u distinct graph%s, %" PRIu64 " nodes)\n",
            info->workload_prefix, info->single_file ? "" : ".<rank>.et", res->nranks,
            info->ngraphs, info->ngraphs == 1 ? "" : "s", info->graph_nodes);
    fprintf(f, "  network    %s: ", net->path ? net->path : "(built-in)");
    for (int d = 0; d < net->ndims; d++)
        fprintf(f, "%s%s(%u) %g GB/s %g ns", d ? " x " : "", cs_topo_kind_name(net->topo[d]), net->npus[d],
                net->bandwidth_gbps[d], net->latency_ns[d]);
    fprintf(f, "\n  backend    %s\n", info->backend);
    if (res->symmetric)
        fprintf(f, "  mode       symmetric: rank 0 simulated, standing for all %u ranks (exact; --symmetry=off for the full run)\n\n",
                res->nranks);
    else
        fprintf(f, "  mode       full: every rank simulated\n\n");

    uint32_t slow = slowest_rank(res);
    const cs_rank_result *sr = &res->ranks[slow];
    fprintf(f, "  simulated time   %s   (slowest: rank %u)\n", cs_time_fmt(res->sim_time, t1, sizeof t1), slow);
    if (info->has_healthy)
        fprintf(f, "  healthy network  %s   (failures/degradation: %+.2f %%, x%.4f)\n",
                cs_time_fmt(info->healthy_time, t2, sizeof t2),
                info->healthy_time ? 100.0 * ((double)res->sim_time / (double)info->healthy_time - 1.0) : 0.0,
                info->healthy_time ? (double)res->sim_time / (double)info->healthy_time : 1.0);
    fprintf(f, "  on rank %u: compute %s (%.1f %%), exposed communication %s (%.1f %%)\n\n", slow,
            cs_time_fmt(sr->compute, t1, sizeof t1), pct(sr->compute, sr->finish),
            cs_time_fmt(cs_rank_exposed_comm(sr), t2, sizeof t2), pct(cs_rank_exposed_comm(sr), sr->finish));

    fprintf(f, "  %-10s %14s %14s %14s %14s\n", "rank", "finish", "GPU compute", "exposed comm", "comm busy");
    if (res->nranks <= 16) {
        for (uint32_t r = 0; r < res->nranks; r++) {
            char label[16];
            snprintf(label, sizeof label, "%u", r);
            rank_row(f, label, &res->ranks[r]);
        }
    } else {
        cs_rank_result mn = res->ranks[0], mx = res->ranks[0];
        for (uint32_t r = 1; r < res->nranks; r++) {
            const cs_rank_result *rr = &res->ranks[r];
            if (rr->finish < mn.finish) mn = *rr;
            if (rr->finish > mx.finish) mx = *rr;
        }
        rank_row(f, "fastest", &mn);
        rank_row(f, "slowest", &mx);
        fprintf(f, "  (%u ranks: see ranks.csv / summary.json for every rank)\n", res->nranks);
    }
    char b[32];
    fmt_bytes(res->net_bytes, b, sizeof b);
    fprintf(f, "\n  %" PRIu64 " events, %" PRIu64 " network messages (%s)", res->events, res->net_messages, b);
    if (info->wall_s > 0) fprintf(f, ", %.3f s wall", info->wall_s);
    fputs("\n", f);
    if (res->roofline_fallbacks)
        fprintf(f, "  note: %" PRIu64 " COMP nodes had no num_ops and were replayed from duration_micros\n",
                res->roofline_fallbacks);
    coll_lines(f, info->collectives);
    int any = 0;
    for (int i = 0; i < 8 && info->outputs[i]; i++) {
        fprintf(f, "%s%s", any ? ", " : "  outputs: ", info->outputs[i]);
        any = 1;
    }
    if (any) fputs("\n", f);
    fputs("\n", f);
}
