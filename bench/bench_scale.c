/*
 * bench_scale.c -- wall time and peak memory of one 64 MiB all-reduce on 3-D
 * Ring x FullyConnected x Switch networks from 64 to 1,048,576 NPUs, through
 * the clustersim program exactly as a user runs it (trace + YAML + JSON in,
 * summary out).
 *
 * Every rank runs the same one-node trace, given once for all ranks (a
 * million-NPU run needs no million files).  Each size runs in a child process;
 * its wall time comes from CLOCK_MONOTONIC around fork/wait and its peak
 * resident memory from wait4's rusage (ru_maxrss), and its CPU time (user +
 * system) from the same rusage: on a shared machine wall time includes waiting
 * for a core, CPU time does not.  The events column is the summary's
 * totals.events (events dispatched, or represented in symmetric mode).
 *
 *   usage: bench_scale CLUSTERSIM_BINARY [--max-npus N] [--min-npus N]
 *                      [--backend NAME] [--symmetry auto|off]
 *                      [--threads N[,N...]] [--astra ASTRA_SIM_BINARY]
 * --threads runs every size once per listed thread count (clustersim
 * --threads, docs/parallel.md), one row each, side by side, with a column
 * saying whether the summary is byte for byte the first count's; the load
 * average at the start and the end of the run is printed below the table
 * (the machine is shared).  --min-npus skips the smaller sizes.
 * --symmetry is passed to clustersim: auto (its default) simulates one
 * representative rank when every rank provably follows the same timeline,
 * off simulates every rank.  --astra runs ASTRA-sim's analytical
 * (congestion-unaware) binary, built beside the project (docs/performance.md
 * says how), on the same inputs right after clustersim at each size: the
 * same network YAML and system JSON, a NO_MEMORY_EXPANSION memory file and
 * the same one-node trace once per rank (symbolic links all_reduce.R.et, as
 * ASTRA-sim opens one file per rank; the open-file limit is raised to its
 * hard maximum for it), measured the same way; its simulated time is the
 * largest "sys[R] finished, T cycles" it prints, and the table says whether
 * it equals clustersim's.  Two ratios: ASTRA-sim's CPU time over the first
 * thread count's CPU time, and ASTRA-sim's wall time over clustersim's
 * shortest wall time among the thread counts (ASTRA-sim runs one thread;
 * on a quiet machine its wall time is its CPU time, and the second ratio
 * is how much sooner a user has the answer with the cores clustersim
 * uses).  Prints a Markdown table (docs/performance.md records it).
 */
#define _DEFAULT_SOURCE /* wait4 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "workload/et.h"

/* Whether two files hold the same bytes. */
static int same_file(const char *a, const char *b) {
    FILE *x = fopen(a, "rb"), *y = fopen(b, "rb");
    int same = x && y;
    while (same) {
        int c = fgetc(x), d = fgetc(y);
        if (c != d) same = 0;
        if (c == EOF || d == EOF) break;
    }
    if (x) fclose(x);
    if (y) fclose(y);
    return same;
}

static void print_load(const char *when) {
    double l[3];
    if (getloadavg(l, 3) == 3) printf("load average %s: %.2f %.2f %.2f\n", when, l[0], l[1], l[2]);
}

typedef struct size3 {
    unsigned a, b, c;
} size3;

static const size3 g_sizes[] = {
    {4, 4, 4},     {8, 8, 8},     {8, 8, 16},    {16, 16, 16},  {16, 16, 32},
    {16, 32, 32},  {32, 32, 64},  {64, 64, 64},  {64, 128, 128},
};

static int write_trace(const char *path) {
    cs_error err;
    cs_error_clear(&err);
    cs_et_writer *w = NULL;
    if (cs_et_writer_open(path, 0, NULL, &w, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    cs_et_nb *b = cs_et_nb_new(1, "all_reduce_64MiB", CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE);
    cs_et_nb_attr_bool(b, "is_cpu_op", 0);
    cs_et_nb_attr_int64(b, "comm_type", 0);
    cs_et_nb_attr_int64(b, "comm_size", 64 << 20);
    int rc = cs_et_writer_write(w, cs_et_nb_node(b), &err);
    cs_et_nb_free(b);
    if (cs_et_writer_close(w, &err) || rc) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    return 0;
}

/* One child run: wall time from CLOCK_MONOTONIC, CPU time and peak RSS from
 * wait4's rusage.  Standard output goes to out_path when given; the child
 * runs in dir when given and with the open-file limit raised when raise_nofile. */
typedef struct child_run {
    double wall_s, cpu_s, rss_mb;
    int ok;
} child_run;

static child_run run_child(char *const argv[], const char *dir, const char *out_path, int raise_nofile) {
    child_run r = {0, 0, 0, 0};
    struct timespec t0, t1;
    fflush(stdout); /* the child must not inherit buffered lines */
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid == 0) {
        if (dir && chdir(dir) != 0) _exit(126);
        if (out_path) {
            FILE *o = freopen(out_path, "w", stdout);
            if (!o) _exit(126);
        }
        if (raise_nofile) {
            struct rlimit rl;
            if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
                rl.rlim_cur = rl.rlim_max;
                setrlimit(RLIMIT_NOFILE, &rl);
            }
        }
        execv(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) < 0) {
        perror("fork/wait4");
        return r;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    r.wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    r.cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
              (double)ru.ru_stime.tv_usec / 1e6;
    r.rss_mb = (double)ru.ru_maxrss / 1024.0;
    r.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    return r;
}

/* The largest T of ASTRA-sim's "sys[R] finished, T cycles" lines (cycles are
 * ns in its analytical backend); 0 when there is none. */
static unsigned long long astra_finish_ns(const char *log_path) {
    FILE *f = fopen(log_path, "r");
    if (!f) return 0;
    char line[1024];
    unsigned long long best = 0;
    while (fgets(line, sizeof line, f)) {
        const char *p = strstr(line, "] finished, ");
        unsigned long long t;
        if (p && strstr(line, "sys[") && sscanf(p, "] finished, %llu cycles", &t) == 1 && t > best) best = t;
    }
    fclose(f);
    return best;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static int write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fputs(text, f);
    return fclose(f);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s CLUSTERSIM_BINARY [--max-npus N] [--backend NAME] [--symmetry auto|off]\n",
                argv[0]);
        return 2;
    }
    const char *bin = argv[1], *backend = "analytical", *symmetry = "auto", *astra = NULL;
    unsigned long max_npus = 1UL << 20, min_npus = 0;
    unsigned threads[16] = {0}, nthreads = 0; /* 0 = no --threads flag */
    for (int i = 2; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--max-npus") == 0) max_npus = strtoul(argv[i + 1], NULL, 10);
        if (strcmp(argv[i], "--min-npus") == 0) min_npus = strtoul(argv[i + 1], NULL, 10);
        if (strcmp(argv[i], "--threads") == 0) {
            char *p = argv[i + 1];
            while (nthreads < 16) {
                char *end;
                unsigned long t = strtoul(p, &end, 10);
                if (end == p || t < 1 || t > 256) {
                    fprintf(stderr, "bench_scale: --threads '%s': expected a list of counts 1..256, e.g. 1,2\n",
                            argv[i + 1]);
                    return 2;
                }
                threads[nthreads++] = (unsigned)t;
                if (*end != ',') break;
                p = end + 1;
            }
        }
        if (strcmp(argv[i], "--backend") == 0) backend = argv[i + 1];
        if (strcmp(argv[i], "--symmetry") == 0) symmetry = argv[i + 1];
        if (strcmp(argv[i], "--astra") == 0) astra = argv[i + 1];
    }
    char dir[] = "/tmp/cs_bench_scaleXXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char trace[256], sys[256], net[256], out[256], mem[256], etdir[256], alog[300];
    snprintf(trace, sizeof trace, "%s/all_reduce.et", dir);
    snprintf(sys, sizeof sys, "%s/system.json", dir);
    snprintf(mem, sizeof mem, "%s/memory.json", dir);
    snprintf(etdir, sizeof etdir, "%s/et", dir);
    if (write_trace(trace) ||
        write_text(sys, "{\n \"scheduling-policy\": \"LIFO\", \"endpoint-delay\": 10,\n"
                        " \"active-chunks-per-dimension\": 1, \"preferred-dataset-splits\": 4,\n"
                        " \"all-reduce-implementation\": [\"ring\", \"ring\", \"ring\"],\n"
                        " \"all-gather-implementation\": [\"ring\", \"ring\", \"ring\"],\n"
                        " \"reduce-scatter-implementation\": [\"ring\", \"ring\", \"ring\"],\n"
                        " \"all-to-all-implementation\": [\"ring\", \"ring\", \"ring\"],\n"
                        " \"collective-optimization\": \"localBWAware\", \"local-mem-bw\": 1600\n}\n") ||
        write_text(mem, "{ \"memory-type\": \"NO_MEMORY_EXPANSION\" }\n") || mkdir(etdir, 0700) != 0) {
        fprintf(stderr, "cannot write inputs in %s\n", dir);
        return 1;
    }
    unsigned long links = 0; /* all_reduce.R.et links made so far */
    printf("| NPUs | dims (Ring x FC x Switch) | backend | symmetry | wall time (s) | CPU time (s) | peak RSS (MB) | "
           "sim time (ns) | events |%s%s\n", nthreads ? " threads | same summary as the first |" : "",
           astra ? " ASTRA-sim wall (s) | ASTRA-sim CPU (s) | ASTRA-sim peak RSS (MB) | ASTRA-sim sim time (ns) | "
                   "same sim time | ASTRA-sim CPU / clustersim CPU | ASTRA-sim wall / clustersim best wall |"
                 : "");
    printf("|---:|---|---|---|---:|---:|---:|---:|---:|%s%s\n", nthreads ? "---:|---|" : "",
           astra ? "---:|---:|---:|---:|---|---:|---:|" : "");
    if (nthreads) print_load("at the start");
    for (size_t k = 0; k < sizeof g_sizes / sizeof g_sizes[0]; k++) {
        size3 s = g_sizes[k];
        unsigned long n = (unsigned long)s.a * s.b * s.c;
        if (n > max_npus) break;
        if (n < min_npus) continue;
        snprintf(net, sizeof net, "%s/net_%lu.yml", dir, n);
        snprintf(out, sizeof out, "%s/summary_%lu.json", dir, n);
        char yml[512];
        snprintf(yml, sizeof yml,
                 "topology: [ Ring, FullyConnected, Switch ]\nnpus_count: [ %u, %u, %u ]\n"
                 "bandwidth: [ 200.0, 100.0, 50.0 ]\nlatency: [ 50.0, 500.0, 2000.0 ]\n",
                 s.a, s.b, s.c);
        if (write_text(net, yml)) return 1;
        char wl[300], nc[300], sc[300], be[300], sy[64], mc[300];
        snprintf(wl, sizeof wl, "--workload-configuration=%s", trace);
        snprintf(nc, sizeof nc, "--network-configuration=%s", net);
        snprintf(sc, sizeof sc, "--system-configuration=%s", sys);
        snprintf(be, sizeof be, "--backend=%s", backend);
        snprintf(sy, sizeof sy, "--symmetry=%s", symmetry);
        char a_bin[4096], a_run[] = "run", a_quiet[] = "--quiet", a_noprog[] = "--no-progress", a_json[] = "--json";
        snprintf(a_bin, sizeof a_bin, "%s", bin);
        char a_thr[32], first_out[300];
        snprintf(first_out, sizeof first_out, "%s", out);
        child_run cr = {0, 0, 0, 0};
        double best_wall = 0; /* clustersim's shortest wall time over the thread counts */
        char simt[64] = "failed", events[64] = "?";
        for (unsigned ti = 0; ti < (nthreads ? nthreads : 1); ti++) {
        if (nthreads) snprintf(out, sizeof out, "%s/summary_%lu_t%u.json", dir, n, threads[ti]);
        if (ti == 0) snprintf(first_out, sizeof first_out, "%s", out);
        snprintf(a_thr, sizeof a_thr, "--threads=%u", nthreads ? threads[ti] : 1);
        char *cs_argv[] = {a_bin, a_run, wl, nc, sc, be, sy, a_quiet, a_noprog, a_json, out,
                           nthreads ? a_thr : NULL, NULL};
        child_run c1 = run_child(cs_argv, NULL, NULL, 0);
        if (ti == 0) cr = c1;
        if (c1.ok && (best_wall == 0 || c1.wall_s < best_wall)) best_wall = c1.wall_s;
        snprintf(simt, sizeof simt, "failed");
        snprintf(events, sizeof events, "?");
        FILE *f = fopen(out, "r");
        if (f && c1.ok) {
            char line[4096];
            int have_t = 0, have_e = 0;
            while ((!have_t || !have_e) && fgets(line, sizeof line, f)) {
                if (!have_t && sscanf(line, "  \"sim_time_ns\": %63[0-9.]", simt) == 1) have_t = 1;
                const char *ev = strstr(line, "\"events\": ");
                if (!have_e && strncmp(line, "  \"totals\"", 10) == 0 && ev &&
                    sscanf(ev, "\"events\": %63[0-9]", events) == 1)
                    have_e = 1;
            }
        }
        if (f) fclose(f);
        printf("| %lu | %u x %u x %u | %s | %s | %.2f | %.2f | %.0f | %s | %s |", n, s.a, s.b, s.c, backend, symmetry,
               c1.wall_s, c1.cpu_s, c1.rss_mb, simt, events);
        if (nthreads)
            printf(" %u | %s |", threads[ti], ti == 0 ? "(first)" : same_file(first_out, out) ? "yes" : "NO");
        if (nthreads && ti + 1 < nthreads) printf("\n");
        }
        if (astra) {
            for (; links < n; links++) {
                char link[300];
                snprintf(link, sizeof link, "%s/all_reduce.%lu.et", etdir, links);
                if (symlink(trace, link) != 0 && errno != EEXIST) {
                    perror(link);
                    return 1;
                }
            }
            char awl[300], anc[300], asc[300];
            snprintf(awl, sizeof awl, "--workload-configuration=%s/all_reduce", etdir);
            snprintf(anc, sizeof anc, "--network-configuration=%s", net);
            snprintf(asc, sizeof asc, "--system-configuration=%s", sys);
            snprintf(mc, sizeof mc, "--remote-memory-configuration=%s", mem);
            snprintf(alog, sizeof alog, "%s/astra_%lu.log", dir, n);
            char a_astra[4096];
            snprintf(a_astra, sizeof a_astra, "%s", astra);
            char *as_argv[] = {a_astra, awl, asc, anc, mc, NULL};
            child_run ar = run_child(as_argv, dir, alog, 1);
            unsigned long long at = ar.ok ? astra_finish_ns(alog) : 0;
            /* clustersim prints ns with 3 decimals; ASTRA-sim whole ns */
            double cst = strtod(simt, NULL);
            if (at)
                printf(" %.2f | %.2f | %.0f | %llu | %s | %.0fx | %.0fx |", ar.wall_s, ar.cpu_s, ar.rss_mb, at,
                       (double)at == cst ? "yes" : "NO", cr.cpu_s > 0 ? ar.cpu_s / cr.cpu_s : 0.0,
                       best_wall > 0 ? ar.wall_s / best_wall : 0.0);
            else
                printf(" %.2f | %.2f | %.0f | failed (%s) | | | |", ar.wall_s, ar.cpu_s, ar.rss_mb, alog);
        }
        printf("\n");
        fflush(stdout);
    }
    if (nthreads) print_load("at the end");
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS); /* the inputs, summaries, links and logs */
    return 0;
}
