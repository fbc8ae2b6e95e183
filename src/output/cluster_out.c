/*
 * cluster_out.c -- the results of a cluster run (scenario/cluster.h) as
 * files and as the terminal report (see cluster_out.h; docs/cluster.md).
 */
#include "output/cluster_out.h"

#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/afile.h"
#include "core/alloc.h"
#include "core/opts.h"
#include "output/links.h"
#include "output/report.h"

static const char *const FILES[] = {"jobs.csv", "iterations.csv", "interference.csv", "windows.csv", "routing.csv",
                                    "routing_links.csv", "cluster.json", "links.csv", "ranks.csv"};

static double slowdown(const cs_cluster_job *j) {
    return j->alone ? (double)j->shared / (double)j->alone : 1.0;
}

/* "0-7,16,18-19": the job's NPUs in rank order as ranges */
static void npu_ranges(const cs_cluster_job *j, char *buf, size_t n) {
    size_t len = 0;
    buf[0] = 0;
    for (uint32_t r = 0; r < j->npus && len + 24 < n;) {
        uint32_t e = r;
        while (e + 1 < j->npus && j->npu[e + 1] == j->npu[e] + 1) e++;
        if (e == r) len += (size_t)snprintf(buf + len, n - len, "%s%u", len ? "," : "", j->npu[r]);
        else len += (size_t)snprintf(buf + len, n - len, "%s%u-%u", len ? "," : "", j->npu[r], j->npu[e]);
        r = e + 1;
        if (r < j->npus && len + 24 >= n) snprintf(buf + len, n - len, ",...");
    }
}

static int jobs_csv(const cs_cluster *c, const char *path, cs_error *err) {
    cs_afile af;
    int rc = cs_afile_open(&af, path, err);
    if (rc) return rc;
    fputs("job,workload,npus,placement,switches,start_ns,iterations,alone_ns,shared_ns,slowdown,alone_step_ns,"
          "shared_step_ns,shared_step_max_ns,compute_alone_ns,compute_shared_ns,links_used,links_shared,"
          "bytes_on_shared_links,seeds,alone_mean_ns,alone_ci95_ns,shared_mean_ns,shared_ci95_ns,slowdown_mean,"
          "slowdown_ci95,npu_list\n",
          af.f);
    for (size_t i = 0; i < c->njobs; i++) {
        const cs_cluster_job *j = &c->jobs[i];
        cs_time maxstep = 0;
        for (uint32_t k = 0; k < j->iterations; k++)
            if (cs_cluster_step(j, k, 1) > maxstep) maxstep = cs_cluster_step(j, k, 1);
        char npus[4096];
        npu_ranges(j, npus, sizeof npus);
        fprintf(af.f, "%s,\"%s\",%u,%s,%u,%.3f,%u,%.3f,%.3f,%.6f,%.3f,%.3f,%.3f,%.3f,%.3f,%u,%u,%" PRIu64
                      ",%u,%.3f,%.3f,%.3f,%.3f,%.6f,%.6f,\"%s\"\n",
                j->name, j->what, j->npus, j->placement, j->domains, cs_time_as_ns_f(j->start), j->iterations,
                cs_time_as_ns_f(j->alone), cs_time_as_ns_f(j->shared), slowdown(j),
                cs_time_as_ns_f(j->alone) / j->iterations, cs_time_as_ns_f(j->shared) / j->iterations,
                cs_time_as_ns_f(maxstep), cs_time_as_ns_f(j->compute_alone), cs_time_as_ns_f(j->compute_shared),
                j->links_used, j->links_shared, j->bytes_on_shared, c->seeds, j->alone_st.mean,
                cs_stats_ci95(&j->alone_st), j->shared_st.mean, cs_stats_ci95(&j->shared_st), j->slowdown_st.mean,
                cs_stats_ci95(&j->slowdown_st), npus);
    }
    return cs_afile_commit(&af, err);
}

static int iterations_csv(const cs_cluster *c, const char *path, cs_error *err) {
    cs_afile af;
    int rc = cs_afile_open(&af, path, err);
    if (rc) return rc;
    fputs("job,iteration,alone_end_ns,shared_end_ns,alone_step_ns,shared_step_ns,slowdown\n", af.f);
    for (size_t i = 0; i < c->njobs; i++) {
        const cs_cluster_job *j = &c->jobs[i];
        for (uint32_t k = 0; k < j->iterations; k++) {
            cs_time a = cs_cluster_step(j, k, 0), s = cs_cluster_step(j, k, 1);
            fprintf(af.f, "%s,%u,%.3f,%.3f,%.3f,%.3f,%.6f\n", j->name, k, cs_time_as_ns_f(j->alone_end[k]),
                    cs_time_as_ns_f(j->shared_end[k]), cs_time_as_ns_f(a), cs_time_as_ns_f(s),
                    a ? (double)s / (double)a : 1.0);
        }
    }
    return cs_afile_commit(&af, err);
}

static int interference_csv(const cs_cluster *c, const char *path, cs_error *err) {
    const cs_topo *t = c->shared->topo;
    cs_afile af;
    int rc = cs_afile_open(&af, path, err);
    if (rc) return rc;
    fputs("link,src,dst,src_kind,dst_kind,bandwidth_GBps,jobs", af.f);
    for (size_t i = 0; i < c->njobs; i++) fprintf(af.f, ",bytes_alone_%s", c->jobs[i].name);
    fputs(",bytes_shared,busy_shared_ns,peak_utilization_shared\n", af.f);
    for (size_t i = 0; i < c->nlinks; i++) {
        const cs_cluster_link *x = &c->links[i];
        const cs_link *l = &t->links[x->link];
        fprintf(af.f, "%u,%u,%u,%s,%s,%.6g,%u", x->link, l->src, l->dst,
                cs_node_kind_name((cs_node_kind)t->kind[l->src]), cs_node_kind_name((cs_node_kind)t->kind[l->dst]),
                l->bw, x->jobs);
        for (size_t j = 0; j < c->njobs; j++) fprintf(af.f, ",%" PRIu64, x->job_bytes[j]);
        fprintf(af.f, ",%" PRIu64 ",%.3f,%.6f\n", x->shared_bytes, cs_time_as_ns_f(x->shared_busy),
                x->shared_peak_util);
    }
    return cs_afile_commit(&af, err);
}

static int windows_csv(const cs_cluster *c, const char *path, cs_error *err) {
    cs_afile af;
    int rc = cs_afile_open(&af, path, err);
    if (rc) return rc;
    fputs("window,rank,extra_job_time_ns,extra_job_time_ci95_ns,max_slowdown,max_slowdown_ci95,seeds", af.f);
    for (size_t j = 0; j < c->njobs; j++) fprintf(af.f, ",%s_ns", c->jobs[j].name);
    fputc('\n', af.f);
    for (size_t i = 0; i < c->nwindows; i++) {
        const cs_cluster_window *w = &c->windows[i];
        fprintf(af.f, "%s,%u,%.3f,%.3f,%.6f,%.6f,%u", w->name, w->rank, w->extra_ns, cs_stats_ci95(&w->extra_st),
                w->max_slowdown, cs_stats_ci95(&w->slowdown_st), c->seeds);
        for (size_t j = 0; j < c->njobs; j++) fprintf(af.f, ",%.3f", cs_time_as_ns_f(w->job_time[j]));
        fputc('\n', af.f);
    }
    return cs_afile_commit(&af, err);
}

static int routing_csv(const cs_cluster *c, const char *path, cs_error *err) {
    cs_afile af;
    int rc = cs_afile_open(&af, path, err);
    if (rc) return rc;
    fputs("routing,seeds,makespan_mean_ns,makespan_ci95_ns,busiest_link_load_mean_ns,busiest_link_load_ci95_ns,"
          "planned_busiest_link_load_ns", af.f);
    for (size_t j = 0; j < c->njobs; j++) fprintf(af.f, ",%s_mean_ns,%s_ci95_ns", c->jobs[j].name, c->jobs[j].name);
    fputc('\n', af.f);
    for (size_t i = 0; i < c->nroutings; i++) {
        const cs_cluster_routing *p = &c->routings[i];
        fprintf(af.f, "%s,%u,%.3f,%.3f,%.3f,%.3f,%.3f", p->name, c->seeds, p->makespan_st.mean,
                cs_stats_ci95(&p->makespan_st), p->busiest_st.mean, cs_stats_ci95(&p->busiest_st), p->planned_ns);
        for (size_t j = 0; j < c->njobs; j++)
            fprintf(af.f, ",%.3f,%.3f", p->job_st[j].mean, cs_stats_ci95(&p->job_st[j]));
        fputc('\n', af.f);
    }
    return cs_afile_commit(&af, err);
}

/* Per link, each policy's bytes (first seed): the load before and after; links no policy used are left out. */
static int routing_links_csv(const cs_cluster *c, const char *path, cs_error *err) {
    const cs_topo *t = c->shared->topo;
    cs_afile af;
    int rc = cs_afile_open(&af, path, err);
    if (rc) return rc;
    fputs("link,src,dst,src_kind,dst_kind,bandwidth_GBps", af.f);
    for (size_t i = 0; i < c->nroutings; i++) fprintf(af.f, ",bytes_%s", c->routings[i].name);
    fputc('\n', af.f);
    for (uint32_t l = 0; l < t->nlinks; l++) {
        int any = 0;
        for (size_t i = 0; i < c->nroutings; i++) any |= l < c->routings[i].nlinks && c->routings[i].link_bytes[l];
        if (!any) continue;
        const cs_link *k = &t->links[l];
        fprintf(af.f, "%u,%u,%u,%s,%s,%.6g", l, k->src, k->dst, cs_node_kind_name((cs_node_kind)t->kind[k->src]),
                cs_node_kind_name((cs_node_kind)t->kind[k->dst]), k->bw);
        for (size_t i = 0; i < c->nroutings; i++)
            fprintf(af.f, ",%" PRIu64, l < c->routings[i].nlinks ? c->routings[i].link_bytes[l] : 0);
        fputc('\n', af.f);
    }
    return cs_afile_commit(&af, err);
}

json_t *cs_cluster_json(const cs_cluster *c) {
    json_t *o = json_object(), *jobs = json_array();
    json_object_set_new(o, "cluster", cs_json_string_lossy(c->path));
    json_object_set_new(o, "backend", json_string(c->shared->backend ? c->shared->backend : ""));
    json_object_set_new(o, "npus", json_integer((json_int_t)c->npus));
    json_object_set_new(o, "seeds", json_integer(c->seeds));
    json_object_set_new(o, "npus_allocated", json_integer((json_int_t)c->allocated));
    json_object_set_new(o, "makespan_ns", json_real(cs_time_as_ns_f(c->makespan)));
    json_object_set_new(o, "compute_utilization", json_real(c->compute_util));
    json_object_set_new(o, "links_crossed_by_several_jobs", json_integer((json_int_t)c->nlinks));
    for (size_t i = 0; i < c->njobs; i++) {
        const cs_cluster_job *j = &c->jobs[i];
        json_t *x = json_object(), *npu = json_array(), *it = json_array();
        json_object_set_new(x, "name", json_string(j->name));
        json_object_set_new(x, "workload", json_string(j->what));
        json_object_set_new(x, "npus", json_integer(j->npus));
        json_object_set_new(x, "placement", json_string(j->placement));
        json_object_set_new(x, "switches", json_integer(j->domains));
        for (uint32_t r = 0; r < j->npus; r++) json_array_append_new(npu, json_integer(j->npu[r]));
        json_object_set_new(x, "npu_of_rank", npu);
        json_object_set_new(x, "start_ns", json_real(cs_time_as_ns_f(j->start)));
        json_object_set_new(x, "iterations", json_integer(j->iterations));
        json_object_set_new(x, "alone_ns", json_real(cs_time_as_ns_f(j->alone)));
        json_object_set_new(x, "shared_ns", json_real(cs_time_as_ns_f(j->shared)));
        json_object_set_new(x, "slowdown", json_real(slowdown(j)));
        json_t *st = json_object();
        json_object_set_new(st, "alone_mean_ns", json_real(j->alone_st.mean));
        json_object_set_new(st, "alone_ci95_ns", json_real(cs_stats_ci95(&j->alone_st)));
        json_object_set_new(st, "shared_mean_ns", json_real(j->shared_st.mean));
        json_object_set_new(st, "shared_ci95_ns", json_real(cs_stats_ci95(&j->shared_st)));
        json_object_set_new(st, "slowdown_mean", json_real(j->slowdown_st.mean));
        json_object_set_new(st, "slowdown_ci95", json_real(cs_stats_ci95(&j->slowdown_st)));
        json_object_set_new(x, "over_seeds", st);
        for (uint32_t k = 0; k < j->iterations; k++) {
            json_t *s = json_object();
            json_object_set_new(s, "alone_step_ns", json_real(cs_time_as_ns_f(cs_cluster_step(j, k, 0))));
            json_object_set_new(s, "shared_step_ns", json_real(cs_time_as_ns_f(cs_cluster_step(j, k, 1))));
            json_array_append_new(it, s);
        }
        json_object_set_new(x, "iteration_steps", it);
        json_object_set_new(x, "links_used", json_integer(j->links_used));
        json_object_set_new(x, "links_shared", json_integer(j->links_shared));
        json_object_set_new(x, "bytes_on_shared_links", json_integer((json_int_t)j->bytes_on_shared));
        json_array_append_new(jobs, x);
    }
    json_object_set_new(o, "jobs", jobs);
    if (c->changes) json_object_set(o, "timed_changes", c->changes);
    if (c->nroutings) {
        json_t *rs = json_array();
        for (size_t i = 0; i < c->nroutings; i++) {
            const cs_cluster_routing *p = &c->routings[i];
            json_t *x = json_object(), *jt = json_object();
            json_object_set_new(x, "routing", json_string(p->name));
            json_object_set_new(x, "makespan_mean_ns", json_real(p->makespan_st.mean));
            json_object_set_new(x, "makespan_ci95_ns", json_real(cs_stats_ci95(&p->makespan_st)));
            json_object_set_new(x, "busiest_link_load_mean_ns", json_real(p->busiest_st.mean));
            json_object_set_new(x, "busiest_link_load_ci95_ns", json_real(cs_stats_ci95(&p->busiest_st)));
            if (strcmp(p->name, "te") == 0) {
                json_object_set_new(x, "planned_busiest_link_load_ns", json_real(p->planned_ns));
                json_object_set_new(x, "demands", json_integer((json_int_t)c->te_demands));
            }
            for (size_t j = 0; j < c->njobs; j++) {
                json_t *s = json_object();
                json_object_set_new(s, "mean_ns", json_real(p->job_st[j].mean));
                json_object_set_new(s, "ci95_ns", json_real(cs_stats_ci95(&p->job_st[j])));
                json_object_set_new(jt, c->jobs[j].name, s);
            }
            json_object_set_new(x, "jobs", jt);
            json_array_append_new(rs, x);
        }
        json_object_set_new(o, "routings", rs);
    }
    if (c->nwindows) {
        json_t *ws = json_array();
        for (size_t i = 0; i < c->nwindows; i++) {
            const cs_cluster_window *w = &c->windows[i];
            json_t *x = json_object(), *t = json_object();
            json_object_set_new(x, "name", json_string(w->name));
            json_object_set_new(x, "rank", json_integer(w->rank));
            json_object_set_new(x, "extra_job_time_ns", json_real(w->extra_ns));
            json_object_set_new(x, "max_slowdown", json_real(w->max_slowdown));
            json_object_set_new(x, "extra_job_time_ci95_ns", json_real(cs_stats_ci95(&w->extra_st)));
            json_object_set_new(x, "max_slowdown_ci95", json_real(cs_stats_ci95(&w->slowdown_st)));
            for (size_t j = 0; j < c->njobs; j++)
                json_object_set_new(t, c->jobs[j].name, json_real(cs_time_as_ns_f(w->job_time[j])));
            json_object_set_new(x, "job_time_ns", t);
            json_object_set_new(x, "operations", json_incref(w->ops));
            json_array_append_new(ws, x);
        }
        json_object_set_new(o, "windows", ws);
    }
    json_t *u = json_object();
    json_object_set_new(u, "makespan_ns", json_string("ns of simulated time, the shared run's end"));
    json_object_set_new(u, "alone_ns", json_string("ns from the job's start to its last node, alone on the cluster"));
    json_object_set_new(u, "shared_ns", json_string("the same with every job on the cluster"));
    json_object_set_new(u, "extra_job_time_ns", json_string("ns of job time a window adds, summed over the jobs, "
                                                            "against the shared run without it"));
    json_object_set_new(u, "bytes_on_shared_links", json_string("bytes the job sends alone over links another job "
                                                                "crosses too"));
    json_object_set_new(o, "units", u);
    return o;
}

void cs_cluster_out_remove(const char *dir) {
    char p[4096];
    for (size_t i = 0; i < sizeof FILES / sizeof *FILES; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, FILES[i]);
        if (cs_remove_output(p) != 0 && errno != ENOENT) continue;
    }
}

int cs_cluster_out_write(const cs_cluster *c, const char *dir, cs_error *err) {
    char p[4096];
    int rc = cs_mkdir_p(dir, "--out", err);
    cs_cluster_out_remove(dir); /* an earlier run's files: none of them stays beside this run's */
#define PATH(name) (snprintf(p, sizeof p, "%s/%s", dir, name), p)
    if (rc == CS_OK) rc = jobs_csv(c, PATH("jobs.csv"), err);
    if (rc == CS_OK) rc = iterations_csv(c, PATH("iterations.csv"), err);
    if (rc == CS_OK && c->shared->topo) rc = interference_csv(c, PATH("interference.csv"), err);
    if (rc == CS_OK && c->nwindows) rc = windows_csv(c, PATH("windows.csv"), err);
    if (rc == CS_OK && c->nroutings) rc = routing_csv(c, PATH("routing.csv"), err);
    if (rc == CS_OK && c->nroutings && c->shared->topo) rc = routing_links_csv(c, PATH("routing_links.csv"), err);
    if (rc == CS_OK && c->shared->topo) rc = cs_links_csv(PATH("links.csv"), c->shared, err);
    if (rc == CS_OK) rc = cs_report_ranks_csv(PATH("ranks.csv"), c->shared, err);
    if (rc == CS_OK) {
        json_t *j = cs_cluster_json(c);
        rc = cs_write_json_atomic(PATH("cluster.json"), j, err);
        json_decref(j);
    }
#undef PATH
    if (rc) cs_cluster_out_remove(dir);
    return rc;
}

void cs_cluster_print(const cs_cluster *c, FILE *f) {
    const cs_result *r = c->shared;
    fprintf(f, "cluster %s: %zu jobs on %" PRIu64 " NPUs, backend %s%s%s\n", c->path, c->njobs, c->npus,
            r->backend ? r->backend : "?", r->topo && r->topo->desc ? ", " : "",
            r->topo && r->topo->desc ? r->topo->desc : "");
    fprintf(f, "  %-12s %6s %-11s %8s %10s %5s %12s %12s %9s %13s\n", "job", "npus", "placement", "switches",
            "start_ms", "iters", "alone_ms", "shared_ms", "slowdown", "links_shared");
    for (size_t i = 0; i < c->njobs; i++) {
        const cs_cluster_job *j = &c->jobs[i];
        char ls[32];
        if (r->topo) snprintf(ls, sizeof ls, "%u of %u", j->links_shared, j->links_used);
        else snprintf(ls, sizeof ls, "-");
        fprintf(f, "  %-12s %6u %-11s %8u %10.3f %5u %12.3f %12.3f %8.3fx %13s\n", j->name, j->npus, j->placement,
                j->domains, cs_time_as_ns_f(j->start) / 1e6, j->iterations, cs_time_as_ns_f(j->alone) / 1e6,
                cs_time_as_ns_f(j->shared) / 1e6, slowdown(j), ls);
    }
    for (size_t i = 0; i < c->njobs; i++)
        fprintf(f, "  %-12s %s\n", c->jobs[i].name, c->jobs[i].what);
    if (c->seeds > 1) {
        fprintf(f, "over %u seeds (ECMP hash, jitter; mean and 95 %% interval; the table above: the first seed):\n",
                c->seeds);
        for (size_t i = 0; i < c->njobs; i++) {
            const cs_cluster_job *j = &c->jobs[i];
            fprintf(f, "  %-12s alone %.3f +- %.3f ms, shared %.3f +- %.3f ms, slowdown %.3fx +- %.3f\n", j->name,
                    j->alone_st.mean / 1e6, cs_stats_ci95(&j->alone_st) / 1e6, j->shared_st.mean / 1e6,
                    cs_stats_ci95(&j->shared_st) / 1e6, j->slowdown_st.mean, cs_stats_ci95(&j->slowdown_st));
        }
    }
    fprintf(f, "cluster: makespan %.3f ms; %" PRIu64 " of %" PRIu64 " NPUs allocated (%.1f %%); GPU compute %.1f %% of "
               "NPU time\n",
            cs_time_as_ns_f(c->makespan) / 1e6, c->allocated, c->npus,
            c->npus ? 100.0 * (double)c->allocated / (double)c->npus : 0, 100.0 * c->compute_util);
    if (c->nwindows) {
        fprintf(f, "maintenance windows, least harmful first (job time added against the shared run without one):\n");
        for (uint32_t rank = 1; rank <= c->nwindows; rank++)
            for (size_t i = 0; i < c->nwindows; i++) {
                const cs_cluster_window *w = &c->windows[i];
                if (w->rank != rank) continue;
                if (c->seeds > 1) {
                    double ci = cs_stats_ci95(&w->extra_st);
                    fprintf(f, "  %2u. %-18s %+.3f +- %.3f ms of job time (95 %%, %u seeds), worst slowdown %.3fx%s\n",
                            w->rank, w->name, w->extra_ns / 1e6, ci / 1e6, c->seeds, w->max_slowdown,
                            fabs(w->extra_ns) <= ci ? "  (not told apart from no window)" : "");
                } else {
                    fprintf(f, "  %2u. %-18s %+.3f ms of job time, worst slowdown %.3fx\n", w->rank, w->name,
                            w->extra_ns / 1e6, w->max_slowdown);
                }
            }
    }
    if (c->nroutings) {
        fprintf(f, "routing policies (the shared run; mean over %u seed%s; busiest link: its bytes / bandwidth):\n",
                c->seeds, c->seeds > 1 ? "s" : "");
        fprintf(f, "  %-10s %14s %16s", "routing", "makespan_ms", "busiest_link_ms");
        for (size_t j = 0; j < c->njobs; j++) fprintf(f, " %14.14s", c->jobs[j].name);
        fputc('\n', f);
        for (size_t i = 0; i < c->nroutings; i++) {
            const cs_cluster_routing *p = &c->routings[i];
            fprintf(f, "  %-10s %14.3f %16.3f", p->name, p->makespan_st.mean / 1e6, p->busiest_st.mean / 1e6);
            for (size_t j = 0; j < c->njobs; j++) fprintf(f, " %14.3f", p->job_st[j].mean / 1e6);
            fputc('\n', f);
        }
        for (size_t i = 0; i < c->nroutings; i++)
            if (strcmp(c->routings[i].name, "te") == 0)
                fprintf(f, "  te placed %" PRIu64 " (src, dst) demands of the shared run's traffic; planned busiest "
                           "link %.3f ms\n",
                        c->te_demands, c->routings[i].planned_ns / 1e6);
    }
    if (!r->topo) {
        fprintf(f, "links: the %s backend has no links to share (run.backend flow or packet names them)\n",
                r->backend ? r->backend : "?");
        return;
    }
    fprintf(f, "links crossed by more than one job (alone): %zu", c->nlinks);
    /* the busiest of them in the shared run */
    size_t best[3], nb = 0; /* the three busiest, busiest first (the first of equals) */
    for (size_t i = 0; i < c->nlinks; i++) {
        size_t pos = nb;
        while (pos > 0 && c->links[i].shared_busy > c->links[best[pos - 1]].shared_busy) pos--;
        if (pos >= 3) continue;
        for (size_t q = (nb < 3 ? nb : 2); q > pos; q--) best[q] = best[q - 1];
        best[pos] = i;
        if (nb < 3) nb++;
    }
    fputs(c->nlinks ? "; busiest:\n" : "\n", f);
    for (size_t q = 0; q < nb; q++) {
        const cs_cluster_link *x = &c->links[best[q]];
        const cs_link *l = &r->topo->links[x->link];
        fprintf(f, "  link %u (%u -> %u): busy %.3f ms shared;", x->link, l->src, l->dst,
                cs_time_as_ns_f(x->shared_busy) / 1e6);
        for (size_t j = 0; j < c->njobs; j++)
            if (x->job_bytes[j]) fprintf(f, " %s %.3f MB", c->jobs[j].name, (double)x->job_bytes[j] / 1e6);
        fputc('\n', f);
    }
}
