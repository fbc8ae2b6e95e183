/*
 * bench_peq.c -- the parallel event engine (src/core/peq.h) against the
 * sequential queue (src/core/eventq.h) on one synthetic model: wall and CPU
 * time, events, windows, and whether every rank's result is identical.
 *
 * The model (the shape of a full simulation's collective traffic): N ranks
 * on a ring of servers of S ranks; every event of a rank folds (time, key,
 * payload) into the rank's hash, spends W rounds of hashing (the handler's
 * work; W = 0 measures the engines alone), and makes one event: at the
 * same rank 0-2 ns later, at a rank of its server (the same partition:
 * servers are not split) 1 ns later, or -- one time in X -- at a rank of
 * another server, L = 500 ns later (the lookahead).  Keys are inherited
 * from the cause, with a fresh (rank, counter) key one time in 8.  Each rank
 * starts with 4 events and handles E events.
 *
 *   usage: bench_peq [--ranks N] [--server S] [--events E] [--work W]
 *                    [--remote X] [--threads LIST]     (defaults 8192 8 400 40 4 1,2)
 * Prints a Markdown table (docs/performance.md, "Parallel engine").  CPU s:
 * the process's (every thread); barrier CPU s: thread 0's in the barrier
 * phase; critical path CPU s: that plus, per round, the slowest thread's
 * CPU time (cs_peq_stats) -- the wall time idle cores would give, less the
 * barriers' wake-ups, measurable on a loaded machine.
 * Partitions: as many as threads, ranks in blocks of whole servers.
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "core/alloc.h"
#include "core/eventq.h"
#include "core/peq.h"

#define NS 1000ULL

typedef struct rank_st {
    uint64_t h, n, counter;
    char pad[40]; /* one cache line per rank: threads write their own */
} rank_st;

typedef struct model {
    uint32_t nranks, server, work, remote;
    uint64_t budget;
    cs_time look;
    rank_st *r;
    cs_eventq *eq;
    uint32_t nparts;
} model;

static uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
    h *= 0xBF58476D1CE4E5B9ULL;
    return h ^ (h >> 31);
}

static uint32_t part_of(const model *m, uint32_t rank) {
    uint32_t nserv = m->nranks / m->server, s = rank / m->server;
    return (uint32_t)((uint64_t)s * m->nparts / nserv);
}

typedef void (*push_fn)(model *m, void *eng, uint32_t dst, cs_time t, uint64_t key, uint64_t arg);

static void model_event(model *m, void *eng, push_fn push, cs_time now, uint64_t key, uint64_t arg) {
    uint32_t rank = (uint32_t)(arg >> 32);
    rank_st *st = &m->r[rank];
    uint64_t x = mix(mix(mix(st->h, now), key), arg & 0xffffffffu);
    for (uint32_t i = 0; i < m->work; i++) x = mix(x, i);
    st->h = x;
    if (++st->n >= m->budget) return;
    uint32_t dst = rank;
    cs_time t = now + (x >> 8) % 3 * NS;
    uint64_t sel = (x >> 16) % (m->remote ? m->remote : 1);
    uint32_t nserv = m->nranks / m->server;
    if (m->remote && sel == 0 && nserv > 1) { /* another server: another partition (P-1)/P of the time */
        dst = (uint32_t)((rank + (uint64_t)m->server * (1 + (x >> 24) % (nserv - 1))) % m->nranks);
        t = now + m->look;
    } else if (sel == 1) { /* a rank of the server */
        dst = rank - rank % m->server + (uint32_t)((x >> 24) % m->server);
        t = now + NS;
    }
    uint64_t k = (x >> 32) % 8 == 0 ? ((uint64_t)rank << 32 | st->counter++) : key;
    push(m, eng, dst, t, k, (uint64_t)dst << 32 | ((x >> 40) & 0xffff));
}

static void seq_handler(void *ctx, const cs_event *ev);
static void seq_push(model *m, void *eng, uint32_t dst, cs_time t, uint64_t key, uint64_t arg) {
    (void)dst;
    cs_eventq_push(eng, t, key, seq_handler, m, arg);
}
static void seq_handler(void *ctx, const cs_event *ev) {
    model *m = ctx;
    model_event(m, m->eq, seq_push, ev->time, ev->key, ev->arg);
}

static void par_handler(cs_peq_part *p, void *ctx, const cs_event *ev);
static void par_push(model *m, void *eng, uint32_t dst, cs_time t, uint64_t key, uint64_t arg) {
    cs_peq_push(eng, part_of(m, dst), t, key, par_handler, m, arg);
}
static void par_handler(cs_peq_part *p, void *ctx, const cs_event *ev) {
    model_event(ctx, p, par_push, ev->time, ev->key, ev->arg);
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double cpu_s(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           (double)ru.ru_stime.tv_usec / 1e6;
}

static void init_events(model *m, void (*push)(model *, uint32_t, cs_time, uint64_t, uint64_t, void *), void *eng) {
    for (uint32_t r = 0; r < m->nranks; r++)
        for (uint32_t j = 0; j < 4; j++) push(m, r, (cs_time)j * NS, r % 4, (uint64_t)r << 32 | j, eng);
}

static void init_seq(model *m, uint32_t r, cs_time t, uint64_t key, uint64_t arg, void *eng) {
    (void)r;
    cs_eventq_push(eng, t, key, seq_handler, m, arg);
}

static void init_par(model *m, uint32_t r, cs_time t, uint64_t key, uint64_t arg, void *eng) {
    cs_peq_push_initial(eng, part_of(m, r), t, key, par_handler, m, arg);
}

int main(int argc, char **argv) {
    model m = {.nranks = 8192, .server = 8, .work = 40, .remote = 4, .budget = 400, .look = 500 * NS};
    const char *threads = "1,2";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--ranks")) m.nranks = (uint32_t)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--server")) m.server = (uint32_t)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--events")) m.budget = (uint64_t)atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--work")) m.work = (uint32_t)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--remote")) m.remote = (uint32_t)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--threads")) threads = argv[i + 1];
        else {
            fprintf(stderr, "bench_peq: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (!m.server || m.nranks % m.server || m.nranks / m.server < 1) {
        fprintf(stderr, "bench_peq: --ranks must be a multiple of --server\n");
        return 2;
    }
    rank_st *ref = cs_calloc(m.nranks, sizeof *ref);
    m.r = ref;
    m.eq = cs_eventq_new();
    init_events(&m, init_seq, m.eq);
    double w0 = now_s(), c0 = cpu_s();
    uint64_t nseq = cs_eventq_run(m.eq, CS_TIME_MAX);
    double w1 = now_s(), c1 = cpu_s();
    cs_eventq_free(m.eq);
    printf("ranks %u, server %u, events/rank %llu, work %u, remote 1/%u, lookahead %llu ns\n\n", m.nranks, m.server,
           (unsigned long long)m.budget, m.work, m.remote, (unsigned long long)(m.look / NS));
    printf("| engine | threads | events | windows | merges | wall s | CPU s | barrier CPU s | critical path CPU s | identical |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    printf("| eventq (sequential) | 1 | %llu | - | - | %.3f | %.3f | - | %.3f | reference |\n", (unsigned long long)nseq,
           w1 - w0, c1 - c0, c1 - c0);
    int bad = 0;
    for (const char *p = threads; *p;) {
        uint32_t nt = (uint32_t)strtoul(p, NULL, 10);
        if (nt < 1) nt = 1;
        m.nparts = nt;
        m.r = cs_calloc(m.nranks, sizeof *m.r);
        cs_peq *q = cs_peq_new(nt, m.look);
        cs_peq_set_timing(q, 1);
        init_events(&m, init_par, q);
        cs_error err;
        cs_error_clear(&err);
        w0 = now_s();
        c0 = cpu_s();
        int rc = cs_peq_run(q, nt, &err);
        w1 = now_s();
        c1 = cpu_s();
        cs_peq_stats st;
        cs_peq_get_stats(q, &st);
        int same = rc == CS_OK && st.dispatched == nseq;
        for (uint32_t r = 0; same && r < m.nranks; r++) same = m.r[r].h == ref[r].h && m.r[r].n == ref[r].n;
        bad |= !same;
        printf("| peq | %u | %llu | %llu | %llu | %.3f | %.3f | %.3f | %.3f | %s |\n", nt,
               (unsigned long long)st.dispatched, (unsigned long long)st.windows, (unsigned long long)st.merges,
               w1 - w0, c1 - c0, st.serial_cpu_s, st.serial_cpu_s + st.parallel_cpu_s,
               rc ? err.msg : same ? "yes" : "NO");
        cs_peq_free(q);
        cs_free(m.r);
        const char *c = strchr(p, ',');
        if (!c) break;
        p = c + 1;
    }
    cs_free(ref);
    return bad;
}
