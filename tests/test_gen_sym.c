/*
 * test_gen_sym.c -- class mode on generated training steps.
 *
 * 1. The symmetry the generator declares (cs_gen_sym_axes) holds rank by
 *    rank: for every rank x of a plan, x's graph equals its class
 *    representative's with every rank it names moved by x's offset along the
 *    axes and every communicator group it names replaced by the group the
 *    move maps it onto (same members moved, same file order up to rotation).
 * 2. Class mode gives the full simulation's results: for plans covering
 *    TP, DP, PP, SP, recomputation, ZeRO 0-3, GPipe / 1F1B / interleaved,
 *    placements, MoE with EP (DP axis in steps of ep), HSDP, uneven pipeline stages (default and
 *    plan.layout, with embedding- and output-only chunks), context parallelism
 *    (all-gather and ring attention, with and without DP), TP that does not fill a server (the
 *    DP axis cut to its whole-server part, groups of several representatives), Ring / Switch /
 *    FullyConnected dimensions and ring / direct / halving-doubling
 *    collectives, every rank's finish, compute, communication, node and
 *    byte counts and the event count of a run of the representatives alone
 *    equal those of a run of every rank, to the picosecond.
 * 3. Where the argument does not hold, class mode refuses with the reason;
 *    on Meta's Llama 3 plan shape with shared queues the full run itself is
 *    not symmetric, so the refusal is required (test_meta_queues).
 * 4. train's graphs (the generator's nodes handed to the graph builder)
 *    equal generate's ET bytes read back by the trace reader, node for node.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compute/device.h"
#include "gen/family.h"
#include "gen/gen.h"
#include "workload/graph.h"
#include "workload/workload.h"
#include "scenario/coll_agg.h"
#include "scenario/engine.h"

static cs_gen_model small_model(uint32_t layers) {
    cs_gen_model m;
    memset(&m, 0, sizeof m);
    snprintf(m.name, sizeof m.name, "small");
    m.family = cs_gen_family_find("transformer");
    m.u.tf.layers = layers;
    m.u.tf.hidden = 1024; /* large enough that operations take microseconds: */
    m.u.tf.heads = 8;     /* durations are whole microseconds in Chakra */
    m.u.tf.kv_heads = 8;
    m.u.tf.ffn_hidden = 4096;
    m.u.tf.vocab = 8000;
    m.u.tf.seq = 512;
    m.u.tf.bias = 1;
    m.u.tf.tied_embeddings = 1;
    return m;
}

static uint32_t move_rank(const cs_sym_axes *ax, uint32_t v, uint32_t x) {
    /* v moved by x's coordinates on every axis (cyclic shift) */
    uint64_t r = v;
    for (int a = 0; a < ax->n; a++) {
        uint64_t s = ax->stride[a], n = ax->size[a];
        uint64_t c = (r / s) % n, d = ((uint64_t)x / s) % n;
        r = r - c * s + ((c + d) % n) * s;
    }
    return (uint32_t)r;
}

static uint32_t rep_of(const cs_sym_axes *ax, uint32_t x) {
    for (int a = 0; a < ax->n; a++) x -= (x / ax->stride[a]) % ax->size[a] * ax->stride[a];
    return x;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The group whose members are exactly set (sorted), or NULL. */
static const cs_comm_group *group_with(const cs_comm_groups *gs, const uint32_t *set, uint32_t n) {
    uint32_t *tmp = malloc(n * sizeof *tmp);
    const cs_comm_group *found = NULL;
    for (size_t i = 0; i < gs->ngroups && !found; i++) {
        const cs_comm_group *g = &gs->groups[i];
        if (g->nranks != n) continue;
        memcpy(tmp, g->ranks, n * sizeof *tmp);
        qsort(tmp, n, sizeof *tmp, cmp_u32);
        if (memcmp(tmp, set, n * sizeof *tmp) == 0) found = g;
    }
    free(tmp);
    return found;
}

static const cs_comm_group *group_named(const cs_comm_groups *gs, const char *name) {
    for (size_t i = 0; i < gs->ngroups; i++)
        if (strcmp(gs->groups[i].name, name) == 0) return &gs->groups[i];
    return NULL;
}

/* 1: x's graph is its representative's moved by x. */
static void check_invariance(const cs_gen_model *m, const cs_gen_plan *p) {
    cs_sym_axes ax;
    assert_true(cs_gen_sym_axes(p, &ax) > 0);
    cs_workload w;
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_gen_workload(m, p, cs_device_find("A100-80GB"), NULL, NULL, &w, &err), CS_OK);
    cs_comm_groups gs;
    memset(&gs, 0, sizeof gs);
    cs_gen_comm_groups(p, &gs);
    uint32_t *set = malloc(w.nranks * sizeof *set);
    for (uint32_t x = 0; x < w.nranks; x++) {
        const cs_graph *gx = w.rank_graph[x], *g0 = w.rank_graph[rep_of(&ax, x)];
        assert_int_equal(gx->nnodes, g0->nnodes);
        assert_int_equal(gx->nchildren, g0->nchildren);
        assert_memory_equal(gx->children, g0->children, gx->nchildren * sizeof *gx->children);
        for (uint32_t i = 0; i < gx->nnodes; i++) {
            const cs_node *a = &gx->nodes[i], *b = &g0->nodes[i];
            assert_int_equal(a->type, b->type);
            assert_int_equal(a->duration_us, b->duration_us);
            assert_int_equal(a->num_ops, b->num_ops);
            assert_int_equal(a->tensor_size, b->tensor_size);
            assert_int_equal(a->comm_size, b->comm_size);
            assert_int_equal(a->comm_type, b->comm_type);
            assert_int_equal(a->comm_tag, b->comm_tag);
            assert_int_equal(a->flags, b->flags);
            assert_int_equal(a->nparents, b->nparents);
            if (a->type == CS_NODE_COMM_SEND || a->type == CS_NODE_COMM_RECV) {
                assert_int_equal(cs_graph_comm_src(gx, a), move_rank(&ax, (uint32_t)cs_graph_comm_src(g0, b), x));
                assert_int_equal(cs_graph_comm_dst(gx, a), move_rank(&ax, (uint32_t)cs_graph_comm_dst(g0, b), x));
            }
            if (a->type == CS_NODE_COMM_COLL) {
                const cs_comm_group *ga = group_named(&gs, gx->pg_names[a->pg]);
                const cs_comm_group *gb = group_named(&gs, g0->pg_names[b->pg]);
                assert_non_null(ga);
                assert_non_null(gb);
                assert_int_equal(ga->nranks, gb->nranks);
                for (uint32_t j = 0; j < gb->nranks; j++) set[j] = move_rank(&ax, gb->ranks[j], x);
                qsort(set, gb->nranks, sizeof *set, cmp_u32);
                /* ga has exactly the moved members (with dp = 1 the DP x CP and the
                 * CP group of a rank are two groups with one member set) */
                assert_non_null(group_with(&gs, set, gb->nranks));
                uint32_t *sa = malloc(ga->nranks * sizeof *sa);
                memcpy(sa, ga->ranks, ga->nranks * sizeof *sa);
                qsort(sa, ga->nranks, sizeof *sa, cmp_u32);
                assert_memory_equal(sa, set, ga->nranks * sizeof *sa);
                free(sa);
                /* file order: the moved representative's group, rotated */
                uint32_t first = move_rank(&ax, gb->ranks[0], x), k = 0;
                while (k < ga->nranks && ga->ranks[k] != first) k++;
                assert_true(k < ga->nranks);
                for (uint32_t j = 0; j < gb->nranks; j++)
                    assert_int_equal(ga->ranks[(k + j) % ga->nranks], move_rank(&ax, gb->ranks[j], x));
            }
        }
    }
    free(set);
    cs_comm_groups_free(&gs);
    cs_workload_free(&w);
}

static void plan_base(cs_gen_plan *p, uint32_t tp, uint32_t pp, uint32_t dp, uint32_t mbs) {
    cs_gen_plan_defaults(p);
    p->tp = tp;
    p->pp = pp;
    p->dp = dp;
    p->micro_batch = 1;
    p->global_batch = mbs * dp;
}

static void test_invariance(void **state) {
    (void)state;
    cs_gen_model m = small_model(4);
    cs_gen_plan p;
    plan_base(&p, 2, 2, 4, 4);
    p.sp = 1;
    p.recompute = CS_RECOMP_SELECTIVE;
    check_invariance(&m, &p);
    p.zero = 3;
    check_invariance(&m, &p);
    plan_base(&p, 4, 2, 2, 4); /* placement dp, tp, pp */
    p.order[0] = CS_DIM_DP;
    p.order[1] = CS_DIM_TP;
    p.order[2] = CS_DIM_PP;
    p.order[3] = CS_DIM_CP;
    check_invariance(&m, &p);
    plan_base(&p, 2, 2, 2, 4); /* interleaved */
    p.vstages = 2;
    check_invariance(&m, &p);
    plan_base(&p, 2, 2, 1, 4); /* context parallel, K/V all-gathered: TP and CP axes */
    p.cp = 4;
    p.sp = 1;
    cs_sym_axes ax;
    assert_int_equal(cs_gen_sym_axes(&p, &ax), 2);
    check_invariance(&m, &p);
    plan_base(&p, 2, 2, 2, 4); /* ring attention, DP x CP: TP and DP axes (CP groups hold representatives) */
    p.cp = 2;
    p.cp_comm = CS_CP_P2P;
    assert_int_equal(cs_gen_sym_axes(&p, &ax), 2);
    check_invariance(&m, &p);
    p.cp_comm = CS_CP_ALLGATHER;
    check_invariance(&m, &p);
}

/* ---- 2: class mode against the full run ------------------------------------------ */

typedef struct netspec {
    int ndims;
    cs_topo_kind topo[3];
    uint32_t npus[3];
} netspec;

static void build_net(const netspec *ns, cs_network_config *net) {
    memset(net, 0, sizeof *net);
    net->ndims = ns->ndims;
    net->total_npus = 1;
    static const double bw[3] = {200, 50, 25}, lat[3] = {500, 2000, 3000};
    for (int d = 0; d < ns->ndims; d++) {
        net->topo[d] = ns->topo[d];
        net->npus[d] = ns->npus[d];
        net->bandwidth_gbps[d] = bw[d];
        net->latency_ns[d] = lat[d];
        net->total_npus *= ns->npus[d];
    }
}

/* communicator-queues: per-communicator in the next runs (test_meta_queues) */
static int g_per_comm;

/* algo "nccl": the nccl collective model (its ring or tree on the list's ring) */
static void build_sys(cs_system_config *sc, const char *algo) {
    int nccl = strcmp(algo, "nccl") == 0;
    if (nccl) algo = "ring";
    cs_system_config_defaults(sc);
    sc->collective_model = nccl;
    sc->roofline_enabled = 0;
    sc->active_chunks_per_dimension = 1;
    sc->endpoint_delay_ns = 10;
    sc->per_comm_queues = g_per_comm;
    for (int c = 0; c < CS_CFG_NCOLL; c++) {
        sc->impl[c].n = 1; /* communicator groups run the first entry */
        tu_set_algo(&sc->impl[c].algo[0], algo);
    }
}

/* Runs the plan in full and in class mode; returns 1 when class mode ran
 * (and then asserts equality), 0 when it refused (why gets the reason). */
/* What a run of plan p needs: its symmetry axes, the network of ns (each
 * axis's part in one dimension, as train checks), a system of algo on
 * every dimension, the plan's communicator groups and the engine options
 * over them (streams comm streams). */
typedef struct {
    cs_sym_axes ax;
    cs_network_config net;
    cs_system_config sc;
    cs_comm_groups gs;
    cs_engine_options so;
} run_setup;

static void setup_run(run_setup *u, const cs_gen_plan *p, const netspec *ns, const char *algo, uint32_t streams) {
    assert_true(cs_gen_sym_axes(p, &u->ax) > 0);
    build_net(ns, &u->net);
    assert_true(cs_sym_axes_fit(&u->ax, &u->net) > 0); /* as train does: each axis's part in one dimension */
    build_sys(&u->sc, algo);
    memset(&u->gs, 0, sizeof u->gs);
    cs_gen_comm_groups(p, &u->gs);
    cs_engine_options_init(&u->so);
    cs_engine_options_set_system(&u->so, &u->sc);
    u->so.comm_groups = &u->gs;
    u->so.comm_streams = streams;
}

static void free_run(run_setup *u) {
    cs_comm_groups_free(&u->gs);
    cs_system_config_free(&u->sc);
}

/* The collective rows of a run (coll_agg.h), kept for comparison. */
typedef struct {
    uint32_t group_id, nranks;
    uint64_t seq, start, end, bytes_sent, bytes_recv, member_records;
} row_rec;
typedef struct {
    row_rec *r;
    size_t n, cap;
} row_list;

static void keep_row(void *ud, const cs_coll_row *w) {
    row_list *l = ud;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->r = realloc(l->r, l->cap * sizeof *l->r);
        assert_non_null(l->r);
    }
    l->r[l->n++] = (row_rec){w->group_id, w->nranks, w->seq, w->start, w->end, w->bytes_sent, w->bytes_recv,
                             w->member_records};
}

/* Class mode's rows are the full run's rows of the representatives'
 * communicators: each equal to the full run's row of its instance, none
 * twice, in the full run's order (the other communicators' instances are
 * left out). */
static void compare_rows(const row_list *full, const row_list *cls) {
    size_t j = 0;
    for (size_t i = 0; i < cls->n; i++) {
        const row_rec *c = &cls->r[i];
        while (j < full->n && !(full->r[j].group_id == c->group_id && full->r[j].nranks == c->nranks &&
                                full->r[j].seq == c->seq))
            j++;
        if (j == full->n)
            fail_msg("class-mode row %zu (group %u of %u, #%llu) is not in the full run's rows after the previous one",
                     i, c->group_id, c->nranks, (unsigned long long)c->seq);
        const row_rec *f = &full->r[j++];
        if (memcmp(c, f, sizeof *c) != 0)
            fail_msg("group %u #%llu: class mode start %llu end %llu sent %llu recv %llu records %llu, full %llu %llu "
                     "%llu %llu %llu",
                     c->group_id, (unsigned long long)c->seq, (unsigned long long)c->start,
                     (unsigned long long)c->end, (unsigned long long)c->bytes_sent, (unsigned long long)c->bytes_recv,
                     (unsigned long long)c->member_records, (unsigned long long)f->start, (unsigned long long)f->end,
                     (unsigned long long)f->bytes_sent, (unsigned long long)f->bytes_recv,
                     (unsigned long long)f->member_records);
        assert_int_equal(c->member_records, c->nranks);
    }
}

static int compare_runs(const cs_gen_model *m, const cs_gen_plan *p, const netspec *ns, const char *algo,
                        uint32_t streams, char *why, size_t whylen) {
    const cs_device *d = cs_device_find("A100-80GB");
    run_setup u;
    setup_run(&u, p, ns, algo, streams);
    cs_error err;
    cs_error_clear(&err);

    cs_workload wf, wc;
    assert_int_equal(cs_gen_workload(m, p, d, NULL, NULL, &wf, &err), CS_OK);
    assert_int_equal(cs_gen_workload(m, p, d, &u.ax, NULL, &wc, &err), CS_OK);
    assert_true(wc.ngraphs < wf.ngraphs);
    cs_engine_result full, cls;
    int rc0;
    row_list rows_full = {0}, rows_cls = {0};
    cs_coll_agg *agg = cs_coll_agg_new(&u.gs);
    cs_coll_agg_set_row_hook(agg, keep_row, &rows_full);
    cs_coll_observer obs = cs_coll_agg_observer(agg);
    u.so.coll_observer = &obs;
    u.so.coll_records_representative = 1; /* as train runs */
    u.so.symmetry = CS_SYMMETRY_OFF;
    rc0 = cs_engine_run(&wf, &u.net, &u.so, &full, &err);
    if (rc0) printf("full run: %s\n", err.msg);
    assert_int_equal(rc0, CS_OK);
    assert_int_equal(full.symmetric, 0);
    cs_coll_agg_finish(agg);
    cs_coll_agg_free(agg);
    agg = cs_coll_agg_new(&u.gs);
    cs_coll_agg_set_row_hook(agg, keep_row, &rows_cls);
    obs = cs_coll_agg_observer(agg);
    u.so.symmetry = CS_SYMMETRY_AUTO;
    u.so.sym_axes = &u.ax;
    u.so.sym_no_fallback = 1;
    cs_error_clear(&err);
    int rc = cs_engine_run(&wc, &u.net, &u.so, &cls, &err);
    int ran = rc == CS_OK;
    if (ran) {
        cs_coll_agg_finish(agg);
        assert_true(rows_full.n > 0);
        assert_true(rows_cls.n > 0);
        compare_rows(&rows_full, &rows_cls);
    }
    cs_coll_agg_free(agg);
    free(rows_full.r);
    free(rows_cls.r);
    if (!ran) {
        assert_int_equal(rc, CS_EUNSUPPORTED);
        snprintf(why, whylen, "%.500s", err.msg);
    } else {
        assert_int_equal(cls.symmetric, 2);
        assert_int_equal(cls.simulated_ranks, wc.ngraphs);
        assert_int_equal(cls.sim_time, full.sim_time);
        assert_int_equal(cls.events, full.events);
        assert_int_equal(cls.coll.bytes_sent, full.coll.bytes_sent);
        for (uint32_t r = 0; r < wf.nranks; r++) {
            const cs_rank_result *a = &cls.ranks[r], *b = &full.ranks[r];
            if (a->finish != b->finish || a->compute != b->compute || a->comm_busy != b->comm_busy ||
                a->nodes != b->nodes || a->bytes_sent != b->bytes_sent || a->bytes_recv != b->bytes_recv)
                fail_msg("rank %u: class mode finish %llu compute %llu comm %llu nodes %llu, full %llu %llu %llu %llu",
                         r, (unsigned long long)a->finish, (unsigned long long)a->compute,
                         (unsigned long long)a->comm_busy, (unsigned long long)a->nodes,
                         (unsigned long long)b->finish, (unsigned long long)b->compute,
                         (unsigned long long)b->comm_busy, (unsigned long long)b->nodes);
        }
        cs_engine_result_free(&cls);
    }
    cs_engine_result_free(&full);
    cs_workload_free(&wf);
    cs_workload_free(&wc);
    free_run(&u);
    return ran;
}

static void expect_equal(const cs_gen_model *m, const cs_gen_plan *p, const netspec *ns, const char *algo,
                         uint32_t streams) {
    char why[600] = "";
    if (!compare_runs(m, p, ns, algo, streams, why, sizeof why))
        fail_msg("class mode refused (tp %u cp %u dp %u pp %u ep %u v %u zero %d, %s, %u streams): %s", p->tp, p->cp,
                 p->dp, p->pp, p->ep, p->vstages, p->zero, algo, streams, why);
}

static const netspec SW_2x4 = {2, {CS_TOPO_SWITCH, CS_TOPO_SWITCH}, {2, 4}};
static const netspec RING_2x2x2 = {3, {CS_TOPO_RING, CS_TOPO_RING, CS_TOPO_RING}, {2, 2, 2}};

static void test_equal_dense(void **state) {
    (void)state;
    cs_gen_model m = small_model(4);
    cs_gen_plan p;
    plan_base(&p, 2, 2, 2, 4); /* TP 2 x DP 2 x PP 2, 1F1B */
    p.sp = 1;
    p.recompute = CS_RECOMP_SELECTIVE;
    expect_equal(&m, &p, &SW_2x4, "ring", 4);
    expect_equal(&m, &p, &RING_2x2x2, "ring", 1);
    expect_equal(&m, &p, &SW_2x4, "direct", 4);
    expect_equal(&m, &p, &SW_2x4, "halvingDoubling", 2);
    p.schedule = CS_SCHED_GPIPE;
    p.recompute = CS_RECOMP_FULL;
    expect_equal(&m, &p, &SW_2x4, "ring", 4);
    plan_base(&p, 2, 2, 2, 4); /* interleaved 1F1B */
    p.vstages = 2;
    expect_equal(&m, &p, &SW_2x4, "ring", 4);
}

static void test_equal_dp_heavy(void **state) {
    (void)state;
    cs_gen_model m = small_model(4);
    cs_gen_plan p;
    netspec fc4x4 = {2, {CS_TOPO_FULLY_CONNECTED, CS_TOPO_SWITCH}, {4, 4}};
    netspec fc2x8 = {2, {CS_TOPO_FULLY_CONNECTED, CS_TOPO_SWITCH}, {2, 8}};
    for (int z = 0; z <= 2; z++) { /* TP 2 x DP 4 x PP 2, ZeRO 0..2 */
        plan_base(&p, 2, 2, 4, 4);
        p.zero = z;
        expect_equal(&m, &p, &fc2x8, "ring", 4);
    }
    /* ZeRO-3: a layer's gather completes (its cause a DP peer) and issues a
     * receive whose bytes are here; the receive ends in the same instant
     * with a fresh key of the rank itself.  The two keys' ranks can swap
     * order across the class, but the second event descends from the first,
     * so every rank runs them in the same order: exact (the guard stopped
     * here before it knew causes within an instant). */
    plan_base(&p, 2, 2, 4, 4);
    p.zero = 3;
    expect_equal(&m, &p, &fc2x8, "ring", 4);
    plan_base(&p, 1, 4, 4, 8); /* DP 4, PP 4, no TP */
    expect_equal(&m, &p, &fc4x4, "ring", 4);
    /* the frameworks' sharding: Megatron's distributed optimizer and FSDP
     * under no_sync exact; FULL_SHARD refused by the guard as ZeRO-3 */
    plan_base(&p, 2, 2, 4, 4);
    p.zero = 1;
    p.dist_opt = 1;
    expect_equal(&m, &p, &fc2x8, "ring", 4);
    plan_base(&p, 2, 2, 4, 4); /* SHARD_GRAD_OP under no_sync (Llama 3): one gather, one reduce-scatter per unit */
    p.fsdp_strategy = CS_FSDP_SHARD_GRAD_OP;
    p.zero = 2;
    p.fsdp_no_sync = 1;
    expect_equal(&m, &p, &fc2x8, "ring", 4);
    p.fsdp_strategy = CS_FSDP_FULL_SHARD; /* FULL_SHARD under no_sync */
    p.zero = 3;
    expect_equal(&m, &p, &fc2x8, "ring", 4);
    /* HSDP (TP 2 x DP 4, shard groups of 2): its groups are blocks of the DP
     * axis, so only TP is a class axis (as with EP); moved rank by rank,
     * and class mode exact */
    plan_base(&p, 2, 1, 4, 2);
    p.fsdp_strategy = CS_FSDP_HYBRID_SHARD_ZERO2;
    p.zero = 2;
    p.fsdp_no_sync = 1;
    p.hsdp_shard = 2;
    cs_sym_axes hx;
    assert_int_equal(cs_gen_sym_axes(&p, &hx), 2); /* TP, and DP in steps of the shard size */
    assert_int_equal(hx.stride[1], 4);
    assert_int_equal(hx.size[1], 2);
    check_invariance(&m, &p);
    expect_equal(&m, &p, &SW_2x4, "ring", 4);
    p.fsdp_strategy = CS_FSDP_HYBRID_SHARD;
    p.zero = 3;
    p.fsdp_no_sync = 0;
    check_invariance(&m, &p);
    expect_equal(&m, &p, &SW_2x4, "ring", 4);
    plan_base(&p, 2, 2, 4, 4);
    p.fsdp_strategy = CS_FSDP_FULL_SHARD;
    p.zero = 3;
    p.fsdp_no_sync = 0; /* FULL_SHARD: ZeRO-3's gathers, exact as above */
    expect_equal(&m, &p, &fc2x8, "ring", 4);
    plan_base(&p, 4, 1, 4, 2); /* one class: TP 4 x DP 4 */
    p.zero = 1;
    expect_equal(&m, &p, &fc4x4, "ring", 4);
    /* direct: a member's messages from every other member arrive in one
     * instant, caused by different ranks; the guard cannot tell that their
     * order does not matter and stops (the full run follows). */
    char why2[600] = "";
    assert_int_equal(compare_runs(&m, &p, &fc4x4, "direct", 4, why2, sizeof why2), 0);
    tu_assert_has(why2, "both act on one stream");
}

/* FSDP and HSDP with interleaving: class mode against the full run, rank by
 * rank (TP 2 x PP 2 x DP 4, 2 chunks per stage, 8 layers: 2 per chunk). */
static void fsdp_try(const cs_gen_model *m, cs_gen_plan *p, const netspec *ns, int strategy, int no_sync,
                     uint32_t shard, char *why, size_t n) {
    p->fsdp_strategy = strategy;
    p->zero = strategy == CS_FSDP_SHARD_GRAD_OP || strategy == CS_FSDP_HYBRID_SHARD_ZERO2 ? 2 : 3;
    p->fsdp_no_sync = no_sync;
    p->hsdp_shard = shard;
    why[0] = 0;
    if (!compare_runs(m, p, ns, "ring", 4, why, n)) printf("class mode refused (strategy %d): %s\n", strategy, why);
}

static void test_equal_fsdp_interleaved(void **state) {
    (void)state;
    cs_gen_model m = small_model(8);
    cs_gen_plan p;
    netspec fc2x8 = {2, {CS_TOPO_FULLY_CONNECTED, CS_TOPO_SWITCH}, {2, 8}};
    char why[600];
    plan_base(&p, 2, 2, 4, 4);
    p.vstages = 2;
    p.fsdp_fp32_grads = 1;
    fsdp_try(&m, &p, &fc2x8, CS_FSDP_SHARD_GRAD_OP, 1, 0, why, sizeof why); /* Llama 3's */
    assert_string_equal(why, "");
    fsdp_try(&m, &p, &fc2x8, CS_FSDP_HYBRID_SHARD_ZERO2, 1, 2, why, sizeof why);
    assert_string_equal(why, "");
    fsdp_try(&m, &p, &fc2x8, CS_FSDP_HYBRID_SHARD, 0, 2, why, sizeof why); /* gathers in the shard groups */
    assert_string_equal(why, "");
    /* FULL_SHARD gathers over the whole DP axis before every pass: exact as
     * ZeRO-3 (test_equal_dp_heavy) */
    fsdp_try(&m, &p, &fc2x8, CS_FSDP_FULL_SHARD, 0, 0, why, sizeof why);
    assert_string_equal(why, "");
    plan_base(&p, 2, 2, 2, 4); /* DP 2 on 2 x 4 switches (DP across the outer dimension) */
    p.vstages = 2;
    fsdp_try(&m, &p, &SW_2x4, CS_FSDP_SHARD_GRAD_OP, 1, 0, why, sizeof why);
    assert_string_equal(why, "");
    /* the embedding and the output layer in chunks of their own */
    cs_error err;
    cs_error_clear(&err);
    plan_base(&p, 2, 2, 4, 4);
    assert_int_equal(cs_gen_layout_parse("E|t*2|t*2|t*2|t*2|L", &p, &err), CS_OK);
    p.vstages = 3;
    fsdp_try(&m, &p, &fc2x8, CS_FSDP_SHARD_GRAD_OP, 1, 0, why, sizeof why);
    assert_string_equal(why, "");
}

/* Plans drawn at random (a fixed sequence; CS_GENSYM_SWEEP=N draws N, the
 * default 60, CS_GENSYM_SEED another sequence): TP 1-4, PP 1-4, DP 2-8 on
 * up to 32 ranks, ZeRO 0-3, interleaving, SP, recomputation, GPipe / 1F1B,
 * 2-8 micro-batches, on 2-D networks of Ring / FullyConnected / Switch
 * shapes, with ring, direct, halving-doubling or the nccl model, 1-4 comm
 * streams, shared or per-communicator queues.  Wherever class mode runs,
 * compare_runs asserts it equals the full run rank by rank; refusals are
 * counted (the guard is allowed to be cautious, never wrong). */
static uint64_t sweep_rng(uint64_t *x) {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static void test_equal_sweep(void **state) {
    (void)state;
    const char *e = getenv("CS_GENSYM_SWEEP"), *sd = getenv("CS_GENSYM_SEED");
    int n = e ? atoi(e) : 60, ran = 0, refused = 0, skipped = 0;
    uint64_t x = 0x9e3779b97f4a7c15ULL ^ (sd ? strtoull(sd, NULL, 10) : 0);
    static const char *algos[] = {"ring", "direct", "halvingDoubling", "nccl"};
    static const cs_topo_kind topos[] = {CS_TOPO_RING, CS_TOPO_FULLY_CONNECTED, CS_TOPO_SWITCH};
    for (int i = 0; i < n; i++) {
        uint32_t tp = 1u << (sweep_rng(&x) % 3), pp = 1u << (sweep_rng(&x) % 3), dp = 2u << (sweep_rng(&x) % 3);
        if (tp * pp * dp > 32) {
            skipped++;
            continue;
        }
        uint32_t mbs = 2u << (sweep_rng(&x) % 3);
        cs_gen_model m = small_model(sweep_rng(&x) % 2 ? 8 : 4);
        cs_gen_plan p;
        plan_base(&p, tp, pp, dp, mbs);
        p.zero = (int)(sweep_rng(&x) % 4);
        p.sp = tp > 1 && sweep_rng(&x) % 2;
        p.recompute = (int)(sweep_rng(&x) % 3);
        if (pp > 1 && p.zero < 3 && sweep_rng(&x) % 3 == 0) p.vstages = 2;
        else if (sweep_rng(&x) % 4 == 0) p.schedule = CS_SCHED_GPIPE;
        uint32_t total = tp * pp * dp, inner = 2u << (sweep_rng(&x) % 3);
        if (inner >= total) inner = total / 2;
        netspec ns = {2, {topos[sweep_rng(&x) % 3], topos[sweep_rng(&x) % 3]}, {inner, total / inner}};
        const char *algo = algos[sweep_rng(&x) % 4];
        uint32_t streams = 1 + (uint32_t)(sweep_rng(&x) % 4);
        g_per_comm = (int)(sweep_rng(&x) % 2);
        cs_error err;
        cs_error_clear(&err);
        cs_sym_axes ax;
        cs_network_config net;
        build_net(&ns, &net);
        if (cs_gen_plan_check(&m, &p, &err) || cs_gen_sym_axes(&p, &ax) <= 0 || cs_sym_axes_fit(&ax, &net) <= 0) {
            skipped++;
            continue;
        }
        char why[600] = "";
        if (compare_runs(&m, &p, &ns, algo, streams, why, sizeof why)) ran++;
        else refused++;
    }
    g_per_comm = 0;
    printf("class-mode sweep: %d plans, %d in class mode equal to the full run, %d refused, %d skipped\n", n, ran,
           refused, skipped);
    assert_true(ran >= n / 4); /* the sweep exercises class mode, not only its refusals */
}

/* The full run alone: how many ranks differ from their class representative
 * (finish, compute or communication time). */
static uint32_t full_run_unlike_rep(const cs_gen_model *m, const cs_gen_plan *p, const netspec *ns) {
    run_setup u;
    setup_run(&u, p, ns, "ring", 4);
    u.so.symmetry = CS_SYMMETRY_OFF;
    cs_error err;
    cs_error_clear(&err);
    cs_workload w;
    assert_int_equal(cs_gen_workload(m, p, cs_device_find("A100-80GB"), NULL, NULL, &w, &err), CS_OK);
    cs_engine_result full;
    assert_int_equal(cs_engine_run(&w, &u.net, &u.so, &full, &err), CS_OK);
    uint32_t unlike = 0;
    for (uint32_t r = 0; r < w.nranks; r++) {
        const cs_rank_result *a = &full.ranks[r], *b = &full.ranks[rep_of(&u.ax, r)];
        if (a->finish != b->finish || a->compute != b->compute || a->comm_busy != b->comm_busy) unlike++;
    }
    cs_engine_result_free(&full);
    cs_workload_free(&w);
    free_run(&u);
    return unlike;
}

/* Llama 3 405B's plan shape as Meta trained it (docs/validation.md, Llama
 * 3), small: Llama 3 405B's layer with 6 decoder layers, TP 8 + SP, PP 4
 * with the layout E|(t|)*6L (2 chunks per stage, the embedding and the
 * output layer in chunks of their own), DP 2, 8 micro-batches, flash
 * attention, SHARD_GRAD_OP under no_sync with FP32 gradients, on 8 x 8
 * switches.  With the shared per-rank queues (ASTRA-sim's, the default) a
 * DP reduce-scatter's step ends in the picosecond the rank's own SP
 * all-gather enters the same queue (one active chunk), the two caused by
 * DP ranks 0 and 1 of stage 1; the full run orders them by the causes'
 * rank numbers, so DP rank 0 admits the all-gather first and DP rank 1 the
 * reduce-scatter's next chunk: the full run itself is not symmetric (ranks
 * of one class finish at different times), no class-mode run can equal it,
 * and the guard stops (as on all three rows of Meta's Table 4).  With
 * communicator-queues per-communicator (a queue per communicator, NCCL's
 * streams) the two collectives never share a queue, the full run is
 * symmetric and class mode equals it rank by rank. */
/* Meta's plan shape at DP dp: TP 8 + SP, PP 4 with the layout E|(t|)*6L (2
 * chunks per stage), 8 micro-batches, flash attention, SHARD_GRAD_OP under
 * no_sync with FP32 gradients. */
static void meta_plan(cs_gen_plan *p, uint32_t dp) {
    plan_base(p, 8, 4, dp, 8);
    p->sp = 1;
    p->flash = 1;
    p->fsdp_strategy = CS_FSDP_SHARD_GRAD_OP;
    p->zero = 2;
    p->fsdp_no_sync = 1;
    p->fsdp_fp32_grads = 1;
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_gen_layout_parse("E|(t|)*6L", p, &err), CS_OK);
    p->vstages = 2;
}

static void test_meta_queues(void **state) {
    (void)state;
    const cs_gen_model *l405 = cs_gen_model_preset("llama3-405b");
    assert_non_null(l405);
    cs_gen_model m = *l405;
    m.u.tf.layers = 6;
    cs_gen_plan p;
    meta_plan(&p, 2);
    netspec sw8x8 = {2, {CS_TOPO_SWITCH, CS_TOPO_SWITCH}, {8, 8}};
    char why[600] = "";
    g_per_comm = 0;
    assert_int_equal(compare_runs(&m, &p, &sw8x8, "ring", 4, why, sizeof why), 0);
    tu_assert_has(why, "one dimension queue (communicator-queues shared: per-communicator gives each");
    /* the 16 ranks of DP 1 in stages 0 and 1 finish unlike DP 0 */
    assert_true(full_run_unlike_rep(&m, &p, &sw8x8) > 0);
    g_per_comm = 1;
    assert_int_equal(full_run_unlike_rep(&m, &p, &sw8x8), 0);
    expect_equal(&m, &p, &sw8x8, "ring", 4);
    meta_plan(&p, 4); /* DP 4 on 8 x 16 switches */
    netspec sw8x16 = {2, {CS_TOPO_SWITCH, CS_TOPO_SWITCH}, {8, 16}};
    expect_equal(&m, &p, &sw8x16, "ring", 4);
    g_per_comm = 0;
    assert_true(full_run_unlike_rep(&m, &p, &sw8x16) > 0);
}

static void test_equal_placement_moe_uneven(void **state) {
    (void)state;
    cs_gen_model m = small_model(4);
    cs_gen_plan p;
    plan_base(&p, 2, 2, 2, 4); /* placement dp, tp, pp */
    p.order[0] = CS_DIM_DP;
    p.order[1] = CS_DIM_TP;
    p.order[2] = CS_DIM_PP;
    p.order[3] = CS_DIM_CP;
    expect_equal(&m, &p, &RING_2x2x2, "ring", 4);
    cs_gen_model u = small_model(6); /* 6 layers on 4 stages: 1, 2, 2, 1 */
    uint32_t first = 99;
    plan_base(&p, 2, 4, 1, 8);
    assert_int_equal(cs_gen_tx_stage_layers(&u, &p, 0, &first), 1);
    assert_int_equal(first, 0);
    assert_int_equal(cs_gen_tx_stage_layers(&u, &p, 1, &first), 2);
    assert_int_equal(first, 1);
    assert_int_equal(cs_gen_tx_stage_layers(&u, &p, 2, &first), 2);
    assert_int_equal(first, 3);
    assert_int_equal(cs_gen_tx_stage_layers(&u, &p, 3, &first), 1);
    assert_int_equal(first, 5);
    expect_equal(&u, &p, &SW_2x4, "ring", 4);
    plan_base(&p, 2, 2, 2, 4); /* 6 layers in 4 uneven chunks: 1, 2, 2, 1 */
    p.vstages = 2;
    expect_equal(&u, &p, &SW_2x4, "ring", 4);
    /* plan.layout: embedding-only and output-only chunks, interleaved
     * (TP 2 x DP 2 x PP 2 x v 2) and plain 1F1B (TP 2 x PP 4; TP 2 x DP 2 x PP 2
     * with ZeRO-2) */
    cs_error err;
    cs_error_clear(&err);
    plan_base(&p, 2, 2, 2, 4);
    assert_int_equal(cs_gen_layout_parse("E|t*3|tt|tL", &p, &err), CS_OK);
    p.vstages = 2;
    assert_int_equal(cs_gen_plan_check(&u, &p, &err), CS_OK);
    expect_equal(&u, &p, &SW_2x4, "ring", 4);
    plan_base(&p, 2, 4, 1, 8);
    assert_int_equal(cs_gen_layout_parse("E|tttt|tt|L", &p, &err), CS_OK);
    assert_int_equal(cs_gen_plan_check(&u, &p, &err), CS_OK);
    expect_equal(&u, &p, &SW_2x4, "ring", 4);
    plan_base(&p, 2, 2, 2, 4);
    assert_int_equal(cs_gen_layout_parse("E|t*6L", &p, &err), CS_OK);
    p.zero = 2;
    assert_int_equal(cs_gen_plan_check(&u, &p, &err), CS_OK);
    expect_equal(&u, &p, &SW_2x4, "ring", 4);
    cs_gen_model moe = small_model(2); /* 4 experts, top 2, EP 2 over DP 2 */
    moe.u.tf.experts = 4;
    moe.u.tf.top_k = 2;
    plan_base(&p, 2, 1, 4, 2);
    p.ep = 2;
    cs_sym_axes ax;
    /* TP, and DP in steps of ep: EP blocks moved onto EP blocks (rank = tp_i +
     * 2 dp_i: the DP axis has stride 2 x ep = 4 and 2 ranks); the DP group is
     * ep = 2 orbits of it, members 0 and 1 representatives */
    assert_int_equal(cs_gen_sym_axes(&p, &ax), 2);
    assert_int_equal(ax.stride[1], 4);
    assert_int_equal(ax.size[1], 2);
    check_invariance(&moe, &p);
    expect_equal(&moe, &p, &SW_2x4, "ring", 4);
    plan_base(&p, 1, 2, 8, 2); /* EP 2 over DP 8, PP 2: DP axis stride 2, 4 ranks over two dimensions */
    p.ep = 2;
    assert_int_equal(cs_gen_sym_axes(&p, &ax), 1);
    check_invariance(&moe, &p);
    netspec sw4x4 = {2, {CS_TOPO_SWITCH, CS_TOPO_SWITCH}, {4, 4}};
    expect_equal(&moe, &p, &sw4x4, "ring", 4);
}

/* Context parallelism: all-gathered K/V with DP (TP axis; the DP x CP and CP
 * groups hold representatives only and run for real), without DP (the CP
 * group is an axis, ZeRO-1 on it), ring attention (messages between
 * representatives), with pipeline stages and full recomputation. */
static void test_equal_cp(void **state) {
    (void)state;
    cs_gen_model m = small_model(4);
    cs_gen_plan p;
    plan_base(&p, 2, 1, 2, 4);
    p.cp = 2;
    p.sp = 1;
    p.recompute = CS_RECOMP_SELECTIVE;
    expect_equal(&m, &p, &SW_2x4, "ring", 4);
    p.cp_comm = CS_CP_P2P;
    p.flash = 1;
    expect_equal(&m, &p, &SW_2x4, "ring", 4);
    plan_base(&p, 2, 1, 1, 4);
    p.cp = 4;
    p.zero = 1;
    expect_equal(&m, &p, &SW_2x4, "ring", 4);
    expect_equal(&m, &p, &SW_2x4, "halvingDoubling", 4);
    plan_base(&p, 2, 2, 1, 4);
    p.cp = 2;
    p.cp_comm = CS_CP_P2P;
    p.recompute = CS_RECOMP_FULL;
    expect_equal(&m, &p, &RING_2x2x2, "ring", 2);
}

/* TP that does not fill a server.  TP 2 x DP 4 x PP 2 on servers of 4
 * (Switch 4 x Switch 4): rank = tp_i + 2 dp_i + 8 pp_i, so the DP axis
 * (stride 2, 4 ranks) has its low digit inside a server and its high digit
 * across servers.  Its ring 0 -> 1 -> 2 -> 3 -> 0 alternates an in-server
 * step (dimension 0) with a cross-server one (dimension 1); a shift by one
 * swaps them, a shift by two keeps them.  cs_sym_axes_fit keeps the part of
 * the axis that moves whole servers (stride 4, 2 ranks): DP indices 0 and 1
 * are both representatives (q = 2 orbits), 4 of the 16 ranks are simulated,
 * and every rank's times equal the full run's. */
static void test_equal_partial_servers(void **state) {
    (void)state;
    cs_gen_model m = small_model(4);
    cs_gen_plan p;
    netspec sw4x4 = {2, {CS_TOPO_SWITCH, CS_TOPO_SWITCH}, {4, 4}};
    cs_network_config net;
    build_net(&sw4x4, &net);
    plan_base(&p, 2, 2, 4, 4);
    p.sp = 1;
    cs_sym_axes ax;
    assert_int_equal(cs_gen_sym_axes(&p, &ax), 2);
    assert_int_equal(ax.stride[1], 2);
    assert_int_equal(ax.size[1], 4);
    assert_int_equal(cs_sym_axes_fit(&ax, &net), 2);
    assert_int_equal(ax.stride[0], 1); /* TP: inside a server, unchanged */
    assert_int_equal(ax.size[0], 2);
    assert_int_equal(ax.stride[1], 4); /* DP: the whole-server part */
    assert_int_equal(ax.size[1], 2);
    assert_int_equal(cs_sym_axes_rep(&ax, 2), 2);  /* DP index 1: its own representative */
    assert_int_equal(cs_sym_axes_rep(&ax, 7), 2);  /* tp 1, dp 3 -> tp 0, dp 1 */
    assert_int_equal(cs_sym_axes_rep(&ax, 13), 8); /* tp 1, dp 2, pp 1 -> tp 0, dp 0, pp 1 */
    expect_equal(&m, &p, &sw4x4, "ring", 4);
    expect_equal(&m, &p, &sw4x4, "halvingDoubling", 2);
    /* direct: messages of several members arrive in one instant, as with one
     * class per group (test_equal_dp_heavy); the guard stops the run */
    char why[600] = "";
    assert_int_equal(compare_runs(&m, &p, &sw4x4, "direct", 4, why, sizeof why), 0);
    tu_assert_has(why, "simultaneous events");
    p.zero = 1;
    p.recompute = CS_RECOMP_FULL;
    expect_equal(&m, &p, &sw4x4, "ring", 1);
    plan_base(&p, 2, 2, 4, 4); /* interleaved, ZeRO-2 */
    p.vstages = 2;
    p.zero = 2;
    expect_equal(&m, &p, &sw4x4, "ring", 4);
    /* three dimensions: FullyConnected 2 x Switch 2 x Switch 4; the DP axis
     * (stride 2, 4 ranks) spans dimensions 1 and 2; its part in dimension 2
     * (stride 4, 2 ranks) is kept */
    netspec three = {3, {CS_TOPO_FULLY_CONNECTED, CS_TOPO_SWITCH, CS_TOPO_SWITCH}, {2, 2, 4}};
    plan_base(&p, 2, 2, 4, 4);
    expect_equal(&m, &p, &three, "ring", 4);
    /* no TP, DP 4 x PP 2 on servers of 2 (Switch 2 x Switch 4): DP stride 1
     * cut to stride 2; and DP 8 x PP 2 on servers of 4 (q = 4) */
    netspec sw2x4 = {2, {CS_TOPO_SWITCH, CS_TOPO_SWITCH}, {2, 4}};
    plan_base(&p, 1, 2, 4, 4);
    p.zero = 1;
    expect_equal(&m, &p, &sw2x4, "ring", 4);
    plan_base(&p, 1, 2, 8, 2);
    expect_equal(&m, &p, &sw4x4, "ring", 4);
    expect_equal(&m, &p, &sw4x4, "halvingDoubling", 4);
    /* TP 2 x CP 2 x DP 2 on servers of 2: TP fills the server, CP and DP
     * cross servers; DP x CP group = 2 orbits of the DP axis */
    plan_base(&p, 2, 1, 2, 4);
    p.cp = 2;
    p.sp = 1;
    expect_equal(&m, &p, &sw2x4, "ring", 4);
}

/* 3: the analytical time of a message depends on the ring distance, which
 * a move along an inner part of a Ring dimension does not keep. */
/* The nccl model (one instance per collective, NCCL's latencies and wire
 * bytes) in class mode, exact against the full run: groups within one node
 * (TP) and of one rank per node (DP).  (A plan of DP alone has no class
 * axis: every rank runs one graph, the symmetric mode.) */
static void test_equal_nccl(void **state) {
    (void)state;
    cs_gen_model m = small_model(4);
    cs_gen_plan p;
    plan_base(&p, 2, 2, 2, 4); /* TP 2 (a node of 2) x DP 2 x PP 2, 1F1B */
    p.sp = 1;
    p.recompute = CS_RECOMP_SELECTIVE;
    expect_equal(&m, &p, &SW_2x4, "nccl", 4);
    expect_equal(&m, &p, &SW_2x4, "nccl", 1);
    p.vstages = 2; /* interleaved */
    expect_equal(&m, &p, &SW_2x4, "nccl", 4);
    plan_base(&p, 2, 1, 4, 4); /* TP 2 x DP 4, ZeRO-1: the DP groups one rank per node */
    p.zero = 1;
    expect_equal(&m, &p, &SW_2x4, "nccl", 4);
    /* Rails: TP 2 on servers of 4 puts 2 members of each DP group on each
     * server; the nccl model runs such a group as one ring per position
     * within the server (SP_GSTRIDE, gstride 2).  The DP axis's part that
     * moves whole servers has stride 4, so q = 2 representatives per orbit,
     * and a move by s maps member j to j + 2 s: each rail's ring onto
     * itself, rotated.  With shared and with per-communicator queues. */
    netspec sw4x4 = {2, {CS_TOPO_SWITCH, CS_TOPO_SWITCH}, {4, 4}};
    netspec sw4x4r = {2, {CS_TOPO_SWITCH, CS_TOPO_RING}, {4, 4}};
    for (int pc = 0; pc < 2; pc++) {
        g_per_comm = pc;
        plan_base(&p, 2, 1, 8, 4); /* TP 2 x DP 8: DP groups of 2 members on each of 4 servers */
        p.zero = 1;
        expect_equal(&m, &p, &sw4x4, "nccl", 4);
        expect_equal(&m, &p, &sw4x4r, "nccl", 4); /* the servers on a ring: distances kept by the move */
        plan_base(&p, 2, 2, 4, 4); /* TP 2 x DP 4 x PP 2: DP groups of 2 members on each of 2 servers */
        p.sp = 1;
        p.vstages = 2;
        expect_equal(&m, &p, &sw4x4, "nccl", 4);
        plan_base(&p, 1, 2, 8, 2); /* DP 8 x PP 2, no TP: 4 DP members on each of 2 servers */
        expect_equal(&m, &p, &sw4x4, "nccl", 4);
    }
    g_per_comm = 0;
}

static void test_refusals(void **state) {
    (void)state;
    cs_gen_model m = small_model(4);
    cs_gen_plan p;
    plan_base(&p, 2, 2, 2, 2);
    netspec ring8 = {1, {CS_TOPO_RING}, {8}};
    char why[600] = "";
    assert_int_equal(compare_runs(&m, &p, &ring8, "ring", 4, why, sizeof why), 0);
    tu_assert_has(why, "inner part of Ring dimension 0");
    netspec sw8 = {1, {CS_TOPO_SWITCH}, {8}}; /* the same plan on a switch: fine */
    expect_equal(&m, &p, &sw8, "ring", 4);
    /* halving-doubling moves by XOR, which changes ring distances */
    netspec ring_sw = {2, {CS_TOPO_SWITCH, CS_TOPO_RING}, {2, 4}};
    plan_base(&p, 2, 1, 4, 2);
    why[0] = '\0';
    assert_int_equal(compare_runs(&m, &p, &ring_sw, "halvingDoubling", 4, why, sizeof why), 0);
    tu_assert_has(why, "XOR moves change ring distances");
}

/* ---- 4: train's graphs equal generate's files read back ------------------------ */

static void assert_same_graph(const cs_graph *a, const cs_graph *b, uint32_t r) {
    if (a->nnodes != b->nnodes || a->nchildren != b->nchildren || a->npg != b->npg ||
        a->missing_ctrl_deps != b->missing_ctrl_deps)
        fail_msg("rank %u: nodes %u/%u, children %u/%u, groups %u/%u", r, a->nnodes, b->nnodes, a->nchildren,
                 b->nchildren, a->npg, b->npg);
    for (uint32_t i = 0; i < a->nnodes; i++) {
        const cs_node *x = &a->nodes[i], *y = &b->nodes[i];
        if (x->id != y->id || x->duration_us != y->duration_us || x->num_ops != y->num_ops ||
            x->tensor_size != y->tensor_size || x->comm_size != y->comm_size || x->type != y->type ||
            x->comm_type != y->comm_type || cs_graph_comm_src(a, x) != cs_graph_comm_src(b, y) ||
            cs_graph_comm_dst(a, x) != cs_graph_comm_dst(b, y) ||
            x->comm_tag != y->comm_tag || x->comm_priority != y->comm_priority || x->flags != y->flags ||
            x->involved_dim != y->involved_dim || x->nparents != y->nparents || x->child_begin != y->child_begin ||
            strcmp(a->pg_names[x->pg], b->pg_names[y->pg]) != 0 ||
            strcmp(cs_graph_node_name(a, x), cs_graph_node_name(b, y)) != 0)
            fail_msg("rank %u: node %u (id %llu, %s) differs", r, i, (unsigned long long)x->id,
                     cs_graph_node_name(a, x));
    }
    for (uint32_t i = 0; i < a->nchildren; i++)
        if (a->children[i] != b->children[i]) fail_msg("rank %u: child %u differs", r, i);
}

/* What train simulates (cs_gen_workload: the generator's node messages
 * straight into the graph builder) equals what generate writes, read back by
 * the trace reader (cs_gen_rank_bytes, cs_graph_load_mem), node for node,
 * rank by rank: the generator's messages survive packing unchanged (both
 * sides decode through the same decode_node; test_graph_decode.c tests the
 * decoding itself).  Plans with COMP, COMM_COLL (every collective kind the
 * generator emits), COMM_SEND/RECV, MEM_LOAD/STORE (offloaded optimizer),
 * CPU ingest nodes, FSDP/HSDP, a layout, ResNet-50 and DLRM. */
/* cs_gen_workload shares one graph between the ranks of a stage (views,
 * graph.h cs_graph_share): the comparison reads a view's peers and
 * communicator names as the executor does, so a view that read otherwise
 * than the rank's own trace would fail it.  Counted: views, and views whose
 * point-to-point peers are moved (pipeline neighbours). */
static uint32_t views_seen, shifted_views_seen;

/* Returns the node kinds seen: bit t for Chakra node type t, bit 8 for a CPU node. */
static unsigned direct_equals_bytes(const cs_gen_model *m, const cs_gen_plan *p) {
    unsigned seen = 0;
    const cs_device *d = cs_device_find("A100-80GB");
    cs_error err;
    cs_error_clear(&err);
    cs_workload w;
    assert_int_equal(cs_gen_workload(m, p, d, NULL, NULL, &w, &err), CS_OK);
    for (uint32_t r = 0; r < w.nranks; r++) {
        char *buf = NULL, name[48];
        size_t len = 0;
        snprintf(name, sizeof name, "rank.%u.et", r);
        assert_int_equal(cs_gen_rank_bytes(m, p, d, r, &buf, &len, &err), CS_OK);
        assert_true(len > 0);
        cs_graph *g = NULL;
        assert_int_equal(cs_graph_load_mem(buf, len, name, &(cs_graph_options){0, 0, NULL}, &g, &err), CS_OK);
        assert_same_graph(w.rank_graph[r], g, r);
        views_seen += w.rank_graph[r]->base != NULL;
        shifted_views_seen += w.rank_graph[r]->peer_shift != 0;
        for (uint32_t i = 0; i < g->nnodes; i++)
            seen |= 1u << (g->nodes[i].type & 7) | ((g->nodes[i].flags & CS_NF_CPU) ? 1u << 8 : 0);
        cs_graph_free(g);
        free(buf);
    }
    cs_workload_free(&w);
    return seen;
}

static void test_direct_graphs(void **state) {
    (void)state;
    cs_gen_model m = small_model(4);
    cs_gen_plan p;
    unsigned seen = 0;
    plan_base(&p, 2, 2, 2, 4); /* TP + SP, 1F1B, selective recompute */
    p.sp = 1;
    p.recompute = CS_RECOMP_SELECTIVE;
    seen |= direct_equals_bytes(&m, &p);
    plan_base(&p, 2, 2, 4, 4); /* interleaved, ZeRO-2 */
    p.vstages = 2;
    p.zero = 2;
    seen |= direct_equals_bytes(&m, &p);
    plan_base(&p, 1, 2, 4, 2); /* ZeRO-3 */
    p.zero = 3;
    seen |= direct_equals_bytes(&m, &p);
    plan_base(&p, 2, 1, 2, 4); /* context parallelism, ring attention */
    p.cp = 2;
    p.sp = 1;
    p.cp_comm = CS_CP_P2P;
    seen |= direct_equals_bytes(&m, &p);
    const cs_gen_model *moe = cs_gen_model_preset("mixtral-8x7b");
    assert_non_null(moe);
    cs_gen_model mm = *moe;
    mm.u.tf.layers = 2;
    plan_base(&p, 2, 1, 4, 2); /* experts: all-to-alls, expert-DP groups */
    p.ep = 2;
    seen |= direct_equals_bytes(&mm, &p);
    cs_gen_model m8 = small_model(8);
    cs_error err;
    cs_error_clear(&err);
    plan_base(&p, 2, 2, 4, 4); /* HSDP with interleaving, no_sync, fp32 gradients */
    p.vstages = 2;
    p.fsdp_strategy = CS_FSDP_HYBRID_SHARD_ZERO2;
    p.zero = 2;
    p.fsdp_no_sync = 1;
    p.fsdp_fp32_grads = 1;
    p.hsdp_shard = 2;
    seen |= direct_equals_bytes(&m8, &p);
    plan_base(&p, 2, 2, 2, 4); /* a layout with embedding- and output-only chunks; offloaded optimizer;
                                * the input pipeline (CPU nodes on the first stage) */
    assert_int_equal(cs_gen_layout_parse("E|tt|tt|tt|tt|L", &p, &err), CS_OK);
    p.vstages = 3;
    p.offload_opt = 1;
    p.ingest.bytes_per_sample = 150000;
    p.ingest.read_bytes_per_s = 1e9;
    p.ingest.preprocess_samples_per_s = 1000;
    p.ingest.h2d_bytes_per_s = 1e9;
    p.ingest.prefetch = 2;
    p.ingest.hosts = 1;
    seen |= direct_equals_bytes(&m8, &p);
    const cs_gen_model *rn = cs_gen_model_preset("resnet50"), *dl = cs_gen_model_preset("dlrm");
    assert_non_null(rn);
    assert_non_null(dl);
    cs_gen_plan_defaults(&p);
    p.dp = 4;
    p.global_batch = 64;
    p.micro_batch = 16;
    p.bucket_params = 12500000;
    seen |= direct_equals_bytes(rn, &p);
    p.global_batch = 2048;
    p.micro_batch = 512;
    seen |= direct_equals_bytes(dl, &p);
    /* every kind of node the generator emits went through both paths */
    unsigned want = 1u << CS_NODE_COMP | 1u << CS_NODE_COMM_COLL | 1u << CS_NODE_COMM_SEND | 1u << CS_NODE_COMM_RECV |
                    1u << CS_NODE_MEM_LOAD | 1u << CS_NODE_MEM_STORE | 1u << 8;
    assert_int_equal(seen & want, want);
    /* the plans' ranks shared graphs, pipeline neighbours' peers moved too */
    assert_true(views_seen > 0);
    assert_true(shifted_views_seen > 0);
}

/* The same sharing when `run` reads a generated trace set from its files
 * (cs_workload_load): PP 2 x DP 2 x TP 2, every rank's file written by
 * cs_gen_write_rank; each rank's graph reads, through its view, as its own
 * file loaded alone, and the ranks of a stage after the first are views
 * (rank 2, DP 1 of stage 0: rank 0's nodes, peers moved by 2). */
static void test_loaded_views(void **state) {
    (void)state;
    cs_gen_model m = small_model(4);
    cs_gen_plan p;
    plan_base(&p, 2, 2, 2, 4);
    const cs_device *d = cs_device_find("A100-80GB");
    cs_error err;
    cs_error_clear(&err);
    const char *prefix = tu_path(tu_tmp_dir(), "pp2");
    char path[4200];
    for (uint32_t r = 0; r < 8; r++) {
        snprintf(path, sizeof path, "%s.%u.et", prefix, r);
        assert_int_equal(cs_gen_write_rank(&m, &p, d, r, path, NULL, &err), CS_OK);
    }
    cs_workload w;
    assert_int_equal(cs_workload_load(prefix, 8, NULL, &w, &err), CS_OK);
    uint32_t views = 0;
    for (uint32_t r = 0; r < 8; r++) {
        snprintf(path, sizeof path, "%s.%u.et", prefix, r);
        cs_graph *g = NULL;
        assert_int_equal(cs_graph_load(path, &(cs_graph_options){0, 0, NULL}, &g, &err), CS_OK);
        assert_same_graph(w.rank_graph[r], g, r);
        cs_graph_free(g);
        views += w.rank_graph[r]->base != NULL;
    }
    /* rank = tp + 2 dp + 4 pp: ranks 0 and 4 are the stages' bases, the rest views */
    assert_null(w.rank_graph[0]->base);
    assert_null(w.rank_graph[4]->base);
    assert_int_equal(views, 6);
    assert_ptr_equal(w.rank_graph[2]->base, w.rank_graph[0]);
    assert_int_equal(w.rank_graph[2]->peer_shift, 2);
    assert_ptr_equal(w.rank_graph[7]->base, w.rank_graph[4]);
    assert_int_equal(w.rank_graph[7]->peer_shift, 3);
    cs_workload_free(&w);
}

/* Every test starts with the shared queues (a failed test may leave
 * g_per_comm set). */
static int reset_queues(void **state) {
    (void)state;
    g_per_comm = 0;
    return 0;
}

/* test_gen_sym [NAME]: only the tests whose names match NAME (cmocka's
 * filter, * and ? allowed), e.g. test_equal_sweep. */
int main(int argc, char **argv) {
    if (argc > 1) cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_invariance, reset_queues),
        cmocka_unit_test_setup(test_equal_dense, reset_queues),
        cmocka_unit_test_setup(test_equal_dp_heavy, reset_queues),
        cmocka_unit_test_setup(test_equal_placement_moe_uneven, reset_queues),
        cmocka_unit_test_setup(test_equal_fsdp_interleaved, reset_queues),
        cmocka_unit_test_setup(test_meta_queues, reset_queues),
        cmocka_unit_test_setup(test_equal_sweep, reset_queues),
        cmocka_unit_test_setup(test_equal_cp, reset_queues),
        cmocka_unit_test_setup(test_equal_partial_servers, reset_queues),
        cmocka_unit_test_setup(test_equal_nccl, reset_queues),
        cmocka_unit_test_setup(test_refusals, reset_queues),
        cmocka_unit_test_setup(test_direct_graphs, reset_queues),
        cmocka_unit_test_setup(test_loaded_views, reset_queues),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
