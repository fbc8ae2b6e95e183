/*
 * test_symmetry.c -- symmetric runs (one representative rank standing for
 * all, scenario/engine.h) against full runs: every per-rank result, every count
 * of the summary, the system layer's totals and every collective record must
 * be identical, over hundreds of configurations drawn from a fixed
 * pseudo-random sequence (1-, 2- and 3-D products of Ring / FullyConnected /
 * Switch; ring, direct, halving-doubling per dimension and collective;
 * all-reduce, all-gather, reduce-scatter, all-to-all, broadcast; baseline /
 * localBWAware; 1..8 splits; 1..2 active chunks; LIFO / FIFO; Themis and the
 * other inter- and intra-dimension schedulers; involved_dim masks; injection
 * scale; several collectives in sequence and concurrently with COMP, CPU and
 * METADATA nodes between; roofline).  Also: the detector's reasons for
 * falling back, the run-time guard (simultaneous events, zero-time
 * messages), representative collective records, and the --verbose line.
 * Owned by the system layer.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/comm_group.h"
#include "config/memory_config.h"
#include "config/network_config.h"
#include "config/system_config.h"
#include "core/log.h"
#include "system/system.h"
#include "testutil.h"
#include "scenario/engine.h"
#include "workload/workload.h"

/* ---- configurations ------------------------------------------------------------ */

typedef struct symcfg {
    int ndims;
    cs_topo_kind topo[3];
    uint32_t npus[3];
    double bw[3], lat[3];
    const char *impl[CS_CFG_NCOLL][3]; /* per collective type and dimension */
    int nimpl[CS_CFG_NCOLL];           /* entries (1 for one* algorithms) */
    int splits, endpoint, active;
    cs_scheduling_policy policy;
    cs_collective_optimization opt;
    cs_inter_dim_scheduling inter;
    cs_intra_dim_scheduling intra;
    uint32_t comm_streams;
    double injection;
    int roofline;
    const char *backend;
    const cs_comm_groups *groups;
    const cs_memory_config *memory;
    int records_representative;
    int timeline; /* install a node observer */
} symcfg;

static void cfg_default(symcfg *c) {
    memset(c, 0, sizeof *c);
    c->ndims = 3;
    cs_topo_kind k[3] = {CS_TOPO_RING, CS_TOPO_FULLY_CONNECTED, CS_TOPO_SWITCH};
    uint32_t n[3] = {4, 4, 4};
    double bw[3] = {200, 100, 50}, lat[3] = {50, 500, 2000};
    for (int d = 0; d < 3; d++) {
        c->topo[d] = k[d];
        c->npus[d] = n[d];
        c->bw[d] = bw[d];
        c->lat[d] = lat[d];
        for (int t = 0; t < CS_CFG_NCOLL; t++) c->impl[t][d] = "ring";
    }
    for (int t = 0; t < CS_CFG_NCOLL; t++) c->nimpl[t] = 3;
    c->splits = 4;
    c->endpoint = 10;
    c->active = 1;
    c->policy = CS_SCHED_LIFO;
    c->opt = CS_COLLOPT_LOCAL_BW_AWARE;
    c->comm_streams = 1;
    c->injection = 1.0;
    c->backend = "analytical";
}


/* ---- one run ---------------------------------------------------------------------- */

typedef struct recs {
    cs_coll_record *r;
    char (*algos)[64];
    size_t n, cap;
} recs;

static void on_rec(void *ud, const cs_coll_record *r) {
    recs *v = ud;
    if (v->n == v->cap) {
        v->cap = v->cap ? 2 * v->cap : 64;
        v->r = realloc(v->r, v->cap * sizeof *v->r);
        v->algos = realloc(v->algos, v->cap * sizeof *v->algos);
    }
    v->r[v->n] = *r;
    snprintf(v->algos[v->n], sizeof v->algos[0], "%s", r->algorithms ? r->algorithms : "");
    v->r[v->n].algorithms = NULL;
    v->n++;
}

typedef struct span_rec {
    uint32_t rank, lane;
    uint64_t node;
    cs_time start, end;
} span_rec;

typedef struct spans {
    span_rec *s;
    size_t n, cap;
} spans;

static void on_node(void *ud, const cs_node_span *sp) {
    spans *v = ud;
    if (!v) return;
    if (v->n == v->cap) {
        v->cap = v->cap ? 2 * v->cap : 64;
        v->s = realloc(v->s, v->cap * sizeof *v->s);
    }
    span_rec r = {sp->rank, sp->lane, sp->node->id, sp->start, sp->end};
    v->s[v->n++] = r;
}

typedef struct outcome {
    int rc;
    char msg[CS_ERROR_MSG_MAX];
    cs_engine_result res;
    recs rec;
    spans sp;
} outcome;

static void outcome_free(outcome *o) {
    if (o->rc == CS_OK) cs_engine_result_free(&o->res);
    free(o->rec.r);
    free(o->rec.algos);
    free(o->sp.s);
    memset(o, 0, sizeof *o);
}

static void build_net(const symcfg *c, cs_network_config *net) {
    memset(net, 0, sizeof *net);
    net->ndims = c->ndims;
    net->total_npus = 1;
    for (int d = 0; d < c->ndims; d++) {
        net->topo[d] = c->topo[d];
        net->npus[d] = c->npus[d];
        net->bandwidth_gbps[d] = c->bw[d];
        net->latency_ns[d] = c->lat[d];
        net->total_npus *= c->npus[d];
    }
}

static void build_sys(const symcfg *c, cs_system_config *sc) {
    cs_system_config_defaults(sc);
    sc->scheduling_policy = c->policy;
    sc->collective_optimization = c->opt;
    sc->endpoint_delay_ns = c->endpoint;
    sc->active_chunks_per_dimension = c->active;
    sc->preferred_dataset_splits = c->splits;
    sc->local_mem_bw_gbps = 1600;
    sc->inter_dim_scheduling = c->inter;
    sc->intra_dim_scheduling = c->intra;
    sc->roofline_enabled = c->roofline != 0;
    sc->peak_perf_tflops = 100;
    for (int t = 0; t < CS_CFG_NCOLL; t++) {
        sc->impl[t].n = c->nimpl[t];
        for (int d = 0; d < c->nimpl[t]; d++) tu_set_algo(&sc->impl[t].algo[d], c->impl[t][d]);
    }
}

static void run_one(const symcfg *c, const cs_workload *w, int symmetry, outcome *o) {
    memset(o, 0, sizeof *o);
    cs_network_config net;
    build_net(c, &net);
    cs_system_config sc;
    build_sys(c, &sc);
    cs_engine_options so;
    cs_engine_options_init(&so);
    cs_engine_options_set_system(&so, &sc);
    so.backend = c->backend;
    so.comm_streams = c->comm_streams;
    so.injection_scale = c->injection;
    so.comm_groups = c->groups;
    so.memory = c->memory;
    so.symmetry = symmetry;
    so.coll_records_representative = c->records_representative;
    cs_coll_observer obs = {on_rec, &o->rec};
    so.coll_observer = &obs;
    cs_exec_observer nobs = {on_node, &o->sp};
    if (c->timeline) so.observer = &nobs;
    cs_error err;
    cs_error_clear(&err);
    o->rc = cs_engine_run(w, &net, &so, &o->res, &err);
    snprintf(o->msg, sizeof o->msg, "%s", err.msg);
    cs_system_config_free(&sc);
}

static int load(const symcfg *c, const char *spec, cs_workload *w) {
    static unsigned no;
    char name[32];
    snprintf(name, sizeof name, "sym%u.et", no++);
    char path[512];
    snprintf(path, sizeof path, "%s", tu_path(tu_tmp_dir(), name));
    if (tu_write_trace(path, spec)) return -1;
    uint64_t n = 1;
    for (int d = 0; d < c->ndims; d++) n *= c->npus[d];
    cs_graph_options go = {0, 0, NULL};
    cs_error err;
    cs_error_clear(&err);
    memset(w, 0, sizeof *w);
    int rc = cs_workload_load(path, (uint32_t)n, &go, w, &err);
    if (rc) fprintf(stderr, "load: %s\n", err.msg);
    return rc;
}

/* ---- comparison ------------------------------------------------------------------ */

static const char *g_desc; /* the configuration being compared, for messages */
static char g_last_info[1024];
static void last_info_sink(int level, const char *msg, void *ud) {
    (void)ud;
    if (level == CS_LOG_INFO && strstr(msg, "symmetry") && !strstr(msg, "symmetry does not apply: off"))
        snprintf(g_last_info, sizeof g_last_info, "%s", msg);
    if (level <= CS_LOG_WARN) fprintf(stderr, "%s\n", msg);
}

#define SAME(what, x, y)                                                                             \
    do {                                                                                             \
        if ((x) != (y)) {                                                                            \
            fprintf(stderr, "%s: %s differs: symmetric %" PRIu64 ", full %" PRIu64 "\n", g_desc, what, \
                    (uint64_t)(x), (uint64_t)(y));                                                   \
            fail();                                                                                  \
        }                                                                                            \
    } while (0)

/* a = the symmetric (auto) run, b = the full run. */
static void compare(outcome *a, outcome *b) {
    if (a->rc != b->rc || strcmp(a->msg, b->msg) != 0) {
        fprintf(stderr, "%s: outcome differs:\n  auto rc %d: %s\n  off  rc %d: %s\n", g_desc, a->rc, a->msg,
                b->rc, b->msg);
        fail();
    }
    if (a->rc) return;
    const cs_engine_result *x = &a->res, *y = &b->res;
    SAME("nranks", x->nranks, y->nranks);
    SAME("sim_time", x->sim_time, y->sim_time);
    SAME("events", x->events, y->events);
    SAME("network messages", x->net_messages, y->net_messages);
    SAME("network bytes", x->net_bytes, y->net_bytes);
    SAME("roofline fallbacks", x->roofline_fallbacks, y->roofline_fallbacks);
    SAME("warnings", x->warnings, y->warnings);
    SAME("collective instances", x->coll.collectives, y->coll.collectives);
    SAME("collective messages", x->coll.messages, y->coll.messages);
    SAME("collective bytes sent", x->coll.bytes_sent, y->coll.bytes_sent);
    SAME("collective bytes received", x->coll.bytes_recv, y->coll.bytes_recv);
    SAME("reductions", x->coll.reductions, y->coll.reductions);
    for (uint32_t r = 0; r < x->nranks; r++) {
        const cs_rank_result *p = &x->ranks[r], *q = &y->ranks[r];
        char what[64];
#define R(f)                                            \
    snprintf(what, sizeof what, "rank %u " #f, r);      \
    SAME(what, p->f, q->f);
        R(finish) R(compute) R(cpu) R(comm_busy) R(nodes) R(bytes_sent) R(bytes_recv)
#undef R
        SAME("exposed communication", cs_rank_exposed_comm(p), cs_rank_exposed_comm(q));
    }
    /* records and timeline spans: the same, in the same order */
    SAME("collective records", a->rec.n, b->rec.n);
    for (size_t i = 0; i < a->rec.n; i++) {
        const cs_coll_record *p = &a->rec.r[i], *q = &b->rec.r[i];
        int same = p->rank == q->rank && p->node_id == q->node_id && p->comm_type == q->comm_type &&
                   p->bytes == q->bytes && p->group_id == q->group_id && p->nmembers == q->nmembers &&
                   p->seq == q->seq && p->chunks == q->chunks && p->phases == q->phases &&
                   p->start == q->start && p->end == q->end && p->bytes_sent == q->bytes_sent &&
                   p->bytes_recv == q->bytes_recv && p->represents == q->represents &&
                   strcmp(a->rec.algos[i], b->rec.algos[i]) == 0;
        if (!same) {
            fprintf(stderr, "%s: collective record %zu differs (rank %u/%u, seq %" PRIu64 "/%" PRIu64
                    ", end %" PRIu64 "/%" PRIu64 ", sent %" PRIu64 "/%" PRIu64 ", %s/%s)\n",
                    g_desc, i, p->rank, q->rank, p->seq, q->seq, p->end, q->end, p->bytes_sent,
                    q->bytes_sent, a->rec.algos[i], b->rec.algos[i]);
            fail();
        }
    }
    SAME("timeline spans", a->sp.n, b->sp.n);
    for (size_t i = 0; i < a->sp.n; i++) {
        const span_rec *p = &a->sp.s[i], *q = &b->sp.s[i];
        if (p->rank != q->rank || p->lane != q->lane || p->node != q->node || p->start != q->start ||
            p->end != q->end) {
            fprintf(stderr, "%s: timeline span %zu differs: rank %u/%u node %" PRIu64 "/%" PRIu64
                    " end %" PRIu64 "/%" PRIu64 "\n", g_desc, i, p->rank, q->rank, p->node, q->node,
                    p->end, q->end);
            fail();
        }
    }
}

/* Run spec on c in both modes and compare; returns 1 when the symmetric
 * run was used, 0 when it fell back (statically or at run time). */
static int check(const symcfg *c, const char *spec, const char *desc) {
    g_desc = desc;
    cs_workload w;
    assert_int_equal(load(c, spec, &w), 0);
    outcome a, b;
    run_one(c, &w, CS_SYMMETRY_AUTO, &a);
    run_one(c, &w, CS_SYMMETRY_OFF, &b);
    compare(&a, &b);
    int used = a.rc == CS_OK && a.res.symmetric;
    if (!used && getenv("CS_SYM_VERBOSE")) fprintf(stderr, "fell back: %s\n  %s\n", desc, g_last_info);
    if (!used && b.rc == CS_OK && getenv("CS_SYM_UNIFORM")) {
        int uniform = 1;
        for (uint32_t r = 1; r < b.res.nranks; r++)
            if (memcmp(&b.res.ranks[r], &b.res.ranks[0], sizeof b.res.ranks[0]) != 0) uniform = 0;
        fprintf(stderr, "FELLBACK uniform=%d %s\n   WHY %s\n", uniform, desc, g_last_info);
    }
    if (b.rc == CS_OK) assert_int_equal(b.res.symmetric, 0);
    outcome_free(&a);
    outcome_free(&b);
    cs_workload_free(&w);
    return used;
}

static int check_reason(const symcfg *c, const char *spec, const char *want) {
    cs_workload w;
    assert_int_equal(load(c, spec, &w), 0);
    cs_network_config net;
    build_net(c, &net);
    cs_system_config sc;
    build_sys(c, &sc);
    cs_engine_options so;
    cs_engine_options_init(&so);
    cs_engine_options_set_system(&so, &sc);
    so.backend = c->backend;
    so.comm_groups = c->groups;
    so.memory = c->memory;
    cs_exec_observer nobs = {on_node, NULL};
    if (c->timeline) so.observer = &nobs;
    char why[512];
    int ok = cs_engine_symmetry_check(&w, &net, &so, why, sizeof why);
    if (want) tu_assert_has(why, want);
    cs_system_config_free(&sc);
    cs_workload_free(&w);
    return ok;
}

/* ---- the pseudo-random sweep ----------------------------------------------------- */

static uint64_t lcg = 0x9E3779B97F4A7C15ULL;
static uint32_t pick(uint32_t n) {
    lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)((lcg >> 33) % n);
}

static int is_pow2(uint32_t n) { return n && !(n & (n - 1)); }

static void random_cfg(symcfg *c) {
    cfg_default(c);
    static const uint32_t sizes[] = {1, 2, 3, 4, 4, 5, 8, 2, 4, 8};
    static const double bws[] = {25, 50, 100, 200, 400};
    static const double lats[] = {1, 50, 500, 2000, 700, 10};
    c->ndims = 1 + (int)pick(3);
    uint64_t total;
    do {
        total = 1;
        for (int d = 0; d < c->ndims; d++) {
            c->topo[d] = (cs_topo_kind)pick(3);
            c->npus[d] = sizes[pick(10)];
            total *= c->npus[d];
        }
    } while (total > 64 || total < 2);
    for (int d = 0; d < c->ndims; d++) {
        c->bw[d] = bws[pick(5)];
        c->lat[d] = lats[pick(6)];
    }
    /* algorithms: usually one per dimension for every collective; sometimes
     * per collective; halving-doubling only on powers of two */
    int per_type = pick(3) == 0;
    const char *base[3];
    for (int d = 0; d < c->ndims; d++) {
        static const char *const algos[] = {"ring", "direct", "direct2", "halvingDoubling", "ring"};
        const char *a = algos[pick(5)];
        if (strcmp(a, "halvingDoubling") == 0 && !is_pow2(c->npus[d])) a = "ring";
        base[d] = a;
    }
    for (int t = 0; t < CS_CFG_NCOLL; t++) {
        c->nimpl[t] = c->ndims;
        for (int d = 0; d < c->ndims; d++) {
            const char *a = base[d];
            if (per_type && pick(2)) {
                static const char *const algos[] = {"ring", "direct", "halvingDoubling"};
                a = algos[pick(3)];
                if (strcmp(a, "halvingDoubling") == 0 && !is_pow2(c->npus[d])) a = "direct";
            }
            if (t == CS_CFG_ALL_TO_ALL && strcmp(a, "halvingDoubling") == 0) a = "direct";
            c->impl[t][d] = a;
        }
    }
    c->splits = 1 + (int)pick(8);
    c->active = 1 + (int)pick(2);
    c->endpoint = pick(4) == 0 ? 0 : 10;
    c->policy = pick(2) ? CS_SCHED_LIFO : CS_SCHED_FIFO;
    c->opt = pick(2) ? CS_COLLOPT_BASELINE : CS_COLLOPT_LOCAL_BW_AWARE;
    c->inter = (cs_inter_dim_scheduling)pick(5);
    c->intra = pick(2) ? CS_INTRA_FIFO : (cs_intra_dim_scheduling)pick(4);
    c->comm_streams = 1 + pick(2);
    static const double inj[] = {1.0, 1.0, 0.5, 2.0};
    c->injection = inj[pick(4)];
    c->roofline = pick(4) == 0;
    c->timeline = pick(3) == 0;
}

static void random_spec(char *spec, size_t n, int ndims) {
    static const int ctypes[] = {0, 2, 7, 6, 0, 0};
    size_t len = 0;
    unsigned id = 1, prev = 0;
    unsigned ncoll = 1 + pick(4);
    for (unsigned i = 0; i < ncoll; i++) {
        int ct = pick(12) == 0 ? 5 : ctypes[pick(6)]; /* broadcast now and then */
        uint64_t size = 1024ull << pick(13);
        char inv[32] = "";
        if (pick(4) == 0) {
            int bits[3] = {(int)pick(2), (int)pick(2), (int)pick(2)};
            if (ndims == 1) snprintf(inv, sizeof inv, " inv=%d", bits[0] | 1);
            if (ndims == 2) snprintf(inv, sizeof inv, " inv=%d,%d", bits[0], bits[1]);
            if (ndims == 3) snprintf(inv, sizeof inv, " inv=%d,%d,%d", bits[0], bits[1], bits[2]);
        }
        char deps[32] = "";
        if (prev && pick(3)) snprintf(deps, sizeof deps, " data=%u", prev);
        len += (size_t)snprintf(spec + len, n - len, "%s%u COLL ctype=%d size=%" PRIu64 " dur=%u%s%s",
                                len ? "; " : "", id, ct, size, 1 + pick(5), inv, deps);
        unsigned coll = id++;
        switch (pick(4)) {
        case 0: /* compute after it */
            len += (size_t)snprintf(spec + len, n - len, "; %u COMP dur=%u ops=%u tensor=4096 data=%u", id,
                                    1 + pick(20), pick(2) ? 1000000 : 0, coll);
            prev = id++;
            break;
        case 1: /* compute beside it, CPU op after */
            len += (size_t)snprintf(spec + len, n - len, "; %u COMP dur=%u; %u CPU dur=2 data=%u", id,
                                    1 + pick(30), id + 1, coll);
            prev = id + 1;
            id += 2;
            break;
        case 2: /* metadata */
            len += (size_t)snprintf(spec + len, n - len, "; %u META data=%u", id, coll);
            prev = id++;
            break;
        default: prev = coll; break;
        }
    }
}

static void describe(char *buf, size_t n, const symcfg *c, const char *spec, int i) {
    size_t len = (size_t)snprintf(buf, n, "case %d [", i);
    for (int d = 0; d < c->ndims; d++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s%u bw%g lat%g", d ? " x " : "",
                                c->topo[d] == CS_TOPO_RING ? "R" : c->topo[d] == CS_TOPO_SWITCH ? "SW" : "FC",
                                c->npus[d], c->bw[d], c->lat[d]);
    len += (size_t)snprintf(buf + len, n - len, "; AR");
    for (int d = 0; d < c->nimpl[0]; d++) len += (size_t)snprintf(buf + len, n - len, " %s", c->impl[0][d]);
    snprintf(buf + len, n - len, "; splits %d active %d ep %d %s %s inter %d intra %d streams %u inj %g roof %d] %s",
             c->splits, c->active, c->endpoint, c->policy == CS_SCHED_LIFO ? "LIFO" : "FIFO",
             c->opt == CS_COLLOPT_BASELINE ? "baseline" : "localBWAware", (int)c->inter, (int)c->intra,
             c->comm_streams, c->injection, c->roofline, spec);
}

static void test_sweep(void **state) {
    (void)state;
    unsigned used = 0, fell = 0, nodirect = 0, used_nodirect = 0;
    /* CS_SYM_SWEEP=N CS_SYM_SEED=S: a longer or another sweep (by hand) */
    int count = getenv("CS_SYM_SWEEP") ? atoi(getenv("CS_SYM_SWEEP")) : 600;
    if (getenv("CS_SYM_SEED")) lcg ^= strtoull(getenv("CS_SYM_SEED"), NULL, 10) * 0x2545F4914F6CDD1DULL;
    for (int i = 0; i < count; i++) {
        symcfg c;
        random_cfg(&c);
        char spec[1024], desc[1600];
        random_spec(spec, sizeof spec, c.ndims);
        describe(desc, sizeof desc, &c, spec, i);
        int direct = 0;
        for (int t = 0; t < CS_CFG_NCOLL; t++)
            for (int d = 0; d < c.nimpl[t]; d++)
                if (strncmp(c.impl[t][d], "direct", 6) == 0 && c.npus[d] > 2) direct = 1;
        int u = check(&c, spec, desc);
        if (u)
            used++;
        else
            fell++;
        nodirect += !direct;
        used_nodirect += u && !direct;
    }
    printf("%d configurations: %u simulated one representative rank, %u fell back to the full "
           "simulation (statically or at run time); all identical.  Without direct on a dimension of "
           "more than 2 NPUs: %u of %u simulated one representative rank\n", count, used, fell,
           used_nodirect, nodirect);
    assert_true(used * 5 > (unsigned)count * 2); /* 294 of the default 600 */
}

/* ---- fixed cases ----------------------------------------------------------------- */

/* The benchmark's shape, small: 64-MiB all-reduce on Ring x FC x Switch. */
static void test_bench_shape(void **state) {
    (void)state;
    static const uint32_t sizes[][3] = {{4, 4, 4}, {8, 4, 2}, {2, 8, 4}, {8, 8, 8}};
    for (int i = 0; i < 4; i++) {
        symcfg c;
        cfg_default(&c);
        for (int d = 0; d < 3; d++) c.npus[d] = sizes[i][d];
        assert_int_equal(check(&c, "1 COLL ctype=0 size=67108864", "bench shape"), 1);
        c.splits = 16;
        c.active = 2;
        c.inter = CS_INTER_OFFLINE_GREEDY_FLEX;
        assert_int_equal(check(&c, "1 COLL ctype=0 size=67108864", "bench shape, Themis flex"), 1);
    }
}

/* Collectives in sequence with compute between, on every algorithm. */
static void test_sequences(void **state) {
    (void)state;
    static const char *const algos[] = {"ring", "direct", "halvingDoubling"};
    const char *spec = "1 COMP dur=3; 2 COLL ctype=0 size=1048576 data=1; 3 COMP dur=7 data=2; "
                       "4 COLL ctype=2 size=65536 data=3; 5 COLL ctype=7 size=4194304; "
                       "6 COMP dur=1 data=5; 7 COLL ctype=6 size=262144 data=6,4";
    const char *spec_hd = "1 COMP dur=3; 2 COLL ctype=0 size=1048576 data=1; 3 COMP dur=7 data=2; "
                          "4 COLL ctype=2 size=65536 data=3; 5 COLL ctype=7 size=4194304; "
                          "6 COMP dur=1 data=5; 7 COLL ctype=0 size=262144 data=6,4";
    for (int a = 0; a < 3; a++)
        for (int opt = 0; opt < 2; opt++) {
            symcfg c;
            cfg_default(&c);
            for (int t = 0; t < CS_CFG_NCOLL; t++)
                for (int d = 0; d < 3; d++)
                    c.impl[t][d] = t == CS_CFG_ALL_TO_ALL && a == 2 ? "direct" : algos[a];
            c.opt = opt ? CS_COLLOPT_BASELINE : CS_COLLOPT_LOCAL_BW_AWARE;
            c.comm_streams = 2;
            c.active = 2;
            /* direct: a rank hears from several ranks at one instant, which
             * the guard usually refuses (see test_guard); identical anyway */
            /* halving-doubling cannot all-to-all; direct there would mix
             * shift and XOR on one dimension (see test_fallback_reasons) */
            int used = check(&c, a == 2 ? spec_hd : spec, "sequence");
            if (a != 1) assert_int_equal(used, 1);
        }
}

/* Every fallback the detector knows, with its reason; results stay identical. */
static void test_fallback_reasons(void **state) {
    (void)state;
    symcfg c;
    const char *ar = "1 COLL ctype=0 size=1048576";
    cfg_default(&c);
    assert_int_equal(check_reason(&c, ar, "applies"), 1);
    /* point-to-point */
    assert_int_equal(check_reason(&c, "1 SEND size=100 dst=1 tag=1; 2 RECV size=100 src=1 tag=1", "point-to-point"), 0);
    /* barrier */
    assert_int_equal(check_reason(&c, "1 COLL ctype=9", "BARRIER"), 0);
    assert_int_equal(check(&c, "1 COLL ctype=9; 2 COLL ctype=0 size=4096 data=1", "barrier"), 0);
    /* double binary tree */
    c.impl[0][1] = "doubleBinaryTree";
    assert_int_equal(check_reason(&c, ar, "doubleBinaryTree"), 0);
    assert_int_equal(check(&c, ar, "dbt"), 0);
    /* ring and halving-doubling on one dimension */
    cfg_default(&c);
    c.impl[CS_CFG_ALL_GATHER][2] = "halvingDoubling";
    assert_int_equal(check_reason(&c, "1 COLL ctype=0 size=1048576; 2 COLL ctype=2 size=4096 data=1",
                                  "dimension 2 runs both"), 0);
    assert_int_equal(check(&c, "1 COLL ctype=0 size=1048576; 2 COLL ctype=2 size=4096 data=1", "mixed"), 0);
    /* ... which is fine on a dimension of two NPUs */
    c.npus[2] = 2;
    assert_int_equal(check(&c, "1 COLL ctype=0 size=1048576; 2 COLL ctype=2 size=4096 data=1", "mixed on 2"), 1);
    /* oneRing over several dimensions, but fine over one */
    cfg_default(&c);
    c.impl[0][0] = "oneRing";
    c.nimpl[0] = 1;
    assert_int_equal(check_reason(&c, ar, "oneRing over every NPU"), 0);
    assert_int_equal(check(&c, ar, "oneRing 3-D"), 0);
    c.npus[1] = c.npus[2] = 1;
    c.npus[0] = 8;
    assert_int_equal(check(&c, ar, "oneRing 1-D"), 1);
    /* the congestion-aware backend */
    cfg_default(&c);
    c.backend = "analytical-congestion";
    assert_int_equal(check_reason(&c, ar, "backend analytical-congestion"), 0);
    assert_int_equal(check(&c, ar, "congestion"), 0);
    /* a timeline: reported for every rank, in the full run's order */
    cfg_default(&c);
    c.timeline = 1;
    assert_int_equal(check(&c, "1 COMP dur=2; 2 COLL ctype=0 size=1048576 data=1; 3 META data=2; "
                               "4 COLL ctype=2 size=4096 data=3; 5 COMP dur=1 data=3", "timeline"), 1);
    /* communicator groups: a subset falls back, a group of every NPU does not */
    cs_comm_groups g;
    cs_error err;
    cs_error_clear(&err);
    const char *path = tu_write_tmp("groups.json",
                                    "{\"1\": [0, 1, 2, 3], \"2\": [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,"
                                    "18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,"
                                    "43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63]}");
    assert_int_equal(cs_comm_groups_load(path, &g, &err), 0);
    cfg_default(&c);
    c.groups = &g;
    assert_int_equal(check_reason(&c, "1 COLL ctype=0 size=1048576 pg=1", "communicator group \"1\""), 0);
    assert_int_equal(check(&c, "1 COLL ctype=0 size=1048576 pg=2", "whole group"), 1);
    cs_comm_groups_free(&g);
    /* shared remote memory */
    cs_memory_config mem;
    cs_memory_config_defaults(&mem);
    mem.type = CS_MEM_POOL;
    mem.remote_mem_bw_gbps = 100;
    cfg_default(&c);
    c.memory = &mem;
    assert_int_equal(check_reason(&c, "1 LOAD tensor=4096; 2 COLL ctype=0 size=4096 data=1", "shared"), 0);
    assert_int_equal(check(&c, "1 LOAD tensor=4096; 2 COLL ctype=0 size=4096 data=1", "pool"), 0);
    mem.type = CS_MEM_PER_NPU_EXPANSION;
    assert_int_equal(check(&c, "1 LOAD tensor=4096; 2 STORE tensor=100 data=1; 3 COLL ctype=0 size=4096 data=2",
                           "per-NPU memory"), 0);
    /* an error is the full run's error */
    cfg_default(&c);
    c.nimpl[CS_CFG_ALL_GATHER] = 0;
    assert_int_equal(check(&c, "1 COLL ctype=2 size=4096", "no implementation"), 0);
    assert_int_equal(check(&c, "1 COLL ctype=1 size=4096", "REDUCE"), 0);
}

/* The run-time guard: messages that take no time, and equal (time, key)
 * events from different ranks, make the run fall back -- still identical. */
static void test_guard(void **state) {
    (void)state;
    symcfg c;
    cfg_default(&c);
    c.lat[0] = c.lat[1] = c.lat[2] = 0;
    c.bw[0] = c.bw[1] = c.bw[2] = 1e9;
    const char *spec = "1 COLL ctype=0 size=1024";
    assert_int_equal(check_reason(&c, spec, "applies"), 1);
    assert_int_equal(check(&c, spec, "zero-time messages"), 0);
}

/* Per-rank trace files that differ only in node ids (as ASTRA-sim's
 * reference traces do) count as one graph; reports carry each rank's ids. */
static void test_node_ids(void **state) {
    (void)state;
    symcfg c;
    cfg_default(&c);
    c.npus[0] = 2; /* 32 ranks */
    c.timeline = 1;
    char *specs[32];
    for (unsigned r = 0; r < 32; r++) {
        unsigned b = 1000 * r + 7;
        char buf[256];
        snprintf(buf, sizeof buf, "%u COMP dur=2; %u COLL ctype=0 size=1048576 data=%u; %u COLL ctype=2 size=4096 "
                 "data=%u; %u COMP dur=1 data=%u", b, b + 3, b, b + 5, b + 3, b + 9, b + 5);
        specs[r] = strdup(buf);
    }
    const char *prefix = tu_path(tu_tmp_dir(), "ids");
    char pfx[512];
    snprintf(pfx, sizeof pfx, "%s", prefix);
    assert_int_equal(tu_write_traces(pfx, (const char *const *)specs, 32), 0);
    cs_workload w;
    cs_error err;
    cs_error_clear(&err);
    cs_graph_options go = {0, 0, NULL};
    assert_int_equal(cs_workload_load(pfx, 32, &go, &w, &err), 0);
    assert_int_equal(w.ngraphs, 32);
    g_desc = "node ids";
    outcome a, b;
    run_one(&c, &w, CS_SYMMETRY_AUTO, &a);
    run_one(&c, &w, CS_SYMMETRY_OFF, &b);
    compare(&a, &b);
    assert_int_equal(a.res.symmetric, 1);
    int seen_other = 0;
    for (size_t i = 0; i < a.rec.n; i++) {
        assert_true(a.rec.r[i].node_id % 1000 == 10 || a.rec.r[i].node_id % 1000 == 12);
        assert_int_equal(a.rec.r[i].node_id / 1000, a.rec.r[i].rank);
        if (a.rec.r[i].rank) seen_other = 1;
    }
    assert_true(seen_other);
    outcome_free(&a);
    outcome_free(&b);
    cs_workload_free(&w);
    /* a rank whose trace differs in substance: the full simulation */
    free(specs[5]);
    specs[5] = strdup("5007 COMP dur=3; 5010 COLL ctype=0 size=1048576 data=5007; 5012 COLL ctype=2 size=4096 "
                      "data=5010; 5016 COMP dur=1 data=5012");
    snprintf(pfx, sizeof pfx, "%s", tu_path(tu_tmp_dir(), "ids2"));
    assert_int_equal(tu_write_traces(pfx, (const char *const *)specs, 32), 0);
    assert_int_equal(cs_workload_load(pfx, 32, &go, &w, &err), 0);
    cs_network_config net;
    build_net(&c, &net);
    cs_engine_options so;
    cs_engine_options_init(&so);
    char why[512];
    assert_int_equal(cs_engine_symmetry_check(&w, &net, &so, why, sizeof why), 0);
    tu_assert_has(why, "node attributes");
    cs_workload_free(&w);
    for (unsigned r = 0; r < 32; r++) free(specs[r]);
}

/* One record per collective standing for every member, when asked. */
static void test_representative_records(void **state) {
    (void)state;
    symcfg c;
    cfg_default(&c);
    c.records_representative = 1;
    cs_workload w;
    assert_int_equal(load(&c, "1 COLL ctype=0 size=1048576; 2 COLL ctype=2 size=4096 data=1", &w), 0);
    outcome a, b;
    run_one(&c, &w, CS_SYMMETRY_AUTO, &a);
    run_one(&c, &w, CS_SYMMETRY_OFF, &b);
    assert_int_equal(a.rc, 0);
    assert_int_equal(b.rc, 0);
    assert_int_equal(a.res.symmetric, 1);
    assert_int_equal(a.rec.n, 2);
    assert_int_equal(b.rec.n, 128);
    for (size_t i = 0; i < a.rec.n; i++) {
        assert_int_equal(a.rec.r[i].represents, 64);
        assert_int_equal(a.rec.r[i].rank, 0);
    }
    for (size_t i = 0; i < b.rec.n; i++) assert_int_equal(b.rec.r[i].represents, 1);
    outcome_free(&a);
    outcome_free(&b);
    cs_workload_free(&w);
}

/* --verbose says whether symmetry applies and why not. */
static char g_info[4096];
static void info_sink(int level, const char *msg, void *ud) {
    (void)ud;
    if (level == CS_LOG_INFO && strstr(msg, "symmetry")) {
        size_t l = strlen(g_info);
        snprintf(g_info + l, sizeof g_info - l, "%s\n", msg);
    }
}

static void test_verbose(void **state) {
    (void)state;
    symcfg c;
    cfg_default(&c);
    cs_workload w;
    assert_int_equal(load(&c, "1 COLL ctype=0 size=1048576", &w), 0);
    cs_log_set_level(CS_LOG_INFO);
    cs_log_set_sink(info_sink, NULL);
    outcome a;
    g_info[0] = '\0';
    run_one(&c, &w, CS_SYMMETRY_AUTO, &a);
    tu_assert_has(g_info, "symmetry applies");
    outcome_free(&a);
    g_info[0] = '\0';
    run_one(&c, &w, CS_SYMMETRY_OFF, &a);
    tu_assert_has(g_info, "symmetry does not apply: off");
    outcome_free(&a);
    c.lat[0] = c.lat[1] = c.lat[2] = 0;
    c.bw[0] = c.bw[1] = c.bw[2] = 1e9;
    g_info[0] = '\0';
    run_one(&c, &w, CS_SYMMETRY_AUTO, &a);
    tu_assert_has(g_info, "takes no time");
    tu_assert_has(g_info, "simulating every rank");
    outcome_free(&a);
    cs_log_set_sink(last_info_sink, NULL);
    cs_workload_free(&w);
}

int main(void) {
    /* keep the last "symmetry" line of --verbose (printed when a case falls
     * back and CS_SYM_VERBOSE is set); warnings still go to stderr */
    cs_log_set_level(CS_LOG_INFO);
    cs_log_set_sink(last_info_sink, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bench_shape),
        cmocka_unit_test(test_sequences),
        cmocka_unit_test(test_fallback_reasons),
        cmocka_unit_test(test_guard),
        cmocka_unit_test(test_node_ids),
        cmocka_unit_test(test_representative_records),
        cmocka_unit_test(test_verbose),
        cmocka_unit_test(test_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
