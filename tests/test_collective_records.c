/*
 * test_collective_records.c -- per-collective records (src/scenario/
 * coll_agg.c, src/output/collectives.c): the aggregation of the system layer's per-rank records
 * into one row per collective instance, the nccl-tests bandwidths, the CSV
 * and summary.json outputs, ordering, determinism and bounded memory.
 *
 * Times are worked out by hand from docs/collectives.md (notation there):
 * B = 50 GB/s read as 50 x 2^30 / 1e9 = 53.6870912 bytes/ns, latency 500 ns,
 * d = endpoint-delay 10 ns, net(m) = trunc(hops x 500 + m / B),
 * red(m) = 3 x trunc(m / 1600), local-mem-bw 1600 GB/s.
 * Bandwidths: algbw = data_bytes / duration in bytes/ns = GB/s (1e9 B/s);
 * data_bytes = comm_size, except all-gather: comm_size x n (ASTRA-sim's
 * all-gather comm_size is one rank's part); busbw = algbw x 2(n-1)/n for
 * all-reduce, x (n-1)/n for all-gather, reduce-scatter and all-to-all.
 */
#include <jansson.h>
#include <math.h>

#include "core/alloc.h"
#include "output/collectives.h"
#include "output/jsonw.h"
#include "output/report.h"
#include "sys_testlib.h"

#define MAXROWS 64

typedef struct rows {
    cs_coll_row r[MAXROWS];
    char comm[MAXROWS][16];
    char algos[MAXROWS][64];
    unsigned n;
    unsigned records; /* observer calls */
    cs_coll_agg *agg;
    cs_coll_out *out; /* collectives.csv and summary.json's entries, or NULL */
} rows;

static void on_row(void *ud, const cs_coll_row *row) {
    rows *rs = ud;
    if (rs->n >= MAXROWS) return;
    rs->r[rs->n] = *row;
    snprintf(rs->comm[rs->n], sizeof rs->comm[0], "%s", row->communicator);
    snprintf(rs->algos[rs->n], sizeof rs->algos[0], "%s", row->algorithms);
    rs->r[rs->n].communicator = rs->comm[rs->n];
    rs->r[rs->n].algorithms = rs->algos[rs->n];
    rs->n++;
    if (rs->out) cs_coll_out_row(rs->out, row);
}

/* Counts the system's records, then hands them to the aggregator. */
static void tee(void *ud, const cs_coll_record *r) {
    rows *rs = ud;
    rs->records++;
    cs_coll_agg_record(rs->agg, r);
}

static void fill_configs(const setup *u, cs_network_config *net, cs_system_config *sc) {
    memset(net, 0, sizeof *net);
    net->ndims = u->ndims;
    net->total_npus = 1;
    for (int d = 0; d < u->ndims; d++) {
        net->topo[d] = u->topo[d];
        net->npus[d] = u->npus[d];
        net->bandwidth_gbps[d] = u->bw[d];
        net->latency_ns[d] = u->lat[d];
        net->total_npus *= u->npus[d];
    }
    cs_system_config_defaults(sc);
    sc->scheduling_policy = u->policy;
    sc->collective_optimization = u->opt;
    sc->endpoint_delay_ns = u->endpoint;
    sc->active_chunks_per_dimension = u->active;
    sc->preferred_dataset_splits = u->splits;
    sc->local_mem_bw_gbps = 1600;
    for (int k = 0; k < CS_CFG_NCOLL; k++) {
        sc->impl[k].n = u->ndims;
        for (int d = 0; d < u->ndims; d++) tu_set_algo(&sc->impl[k].algo[d], u->impl);
    }
}

/* Symmetry options for the next runs (scenario/engine.h). */
static int g_symmetry = CS_SYMMETRY_AUTO, g_records_representative = 0;

/* Run a workload with an aggregator (CSV into csv when not NULL, JSON kept
 * with cap json_cap); rows collected into *rs; the aggregator is left in
 * rs->agg (finished) for the caller to inspect and free. */
static int run_workload(const cs_workload *w, const cs_network_config *net, const cs_system_config *sc,
                        const cs_comm_groups *groups, const char *csv, uint64_t json_cap, rows *rs,
                        cs_engine_result *res_out) {
    memset(rs, 0, sizeof *rs);
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_coll_out_new(csv, 1, json_cap, &rs->out, &err);
    if (rc) return rc;
    rs->agg = cs_coll_agg_new(groups);
    cs_coll_agg_set_row_hook(rs->agg, on_row, rs);
    cs_engine_options so;
    cs_engine_options_init(&so);
    cs_engine_options_set_system(&so, sc);
    so.comm_groups = groups;
    so.symmetry = g_symmetry;
    so.coll_records_representative = g_records_representative;
    cs_coll_observer obs = {tee, rs};
    so.coll_observer = &obs;
    cs_engine_result res;
    rc = cs_engine_run(w, net, &so, &res, &err);
    cs_coll_agg_finish(rs->agg);
    if (rc == CS_OK) rc = cs_coll_out_finish(rs->out, &err);
    if (rc) fprintf(stderr, "run failed: %s\n", err.msg);
    if (rc == CS_OK) {
        if (res_out)
            *res_out = res;
        else
            cs_engine_result_free(&res);
    }
    return rc;
}

static int run_specs_agg(const setup *u, const char *const *specs, unsigned n, const cs_comm_groups *groups,
                         const char *csv, uint64_t json_cap, rows *rs, cs_engine_result *res) {
    static unsigned run_no;
    char pfx[512];
    snprintf(pfx, sizeof pfx, "%s", tu_path(tu_tmp_dir(), "r"));
    size_t l = strlen(pfx);
    snprintf(pfx + l, sizeof pfx - l, "%u", run_no++);
    if (tu_write_traces(pfx, specs, n)) return CS_EIO;
    cs_network_config net;
    cs_system_config sc;
    fill_configs(u, &net, &sc);
    cs_workload w;
    memset(&w, 0, sizeof w);
    cs_graph_options go = {0, 0, NULL};
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_workload_load(pfx, (uint32_t)net.total_npus, &go, &w, &err);
    if (rc == CS_OK) rc = run_workload(&w, &net, &sc, groups, csv, json_cap, rs, res);
    cs_workload_free(&w);
    cs_system_config_free(&sc);
    return rc;
}

static void free_rows(rows *rs) {
    cs_coll_agg_free(rs->agg);
    rs->agg = NULL;
    cs_coll_out_free(rs->out);
    rs->out = NULL;
}

/* A result holding a run's rows and aggregator (taken from res and rs). */
static cs_result *as_result(cs_engine_result *res, rows *rs) {
    cs_result *r = cs_result_new();
    r->sim = *res;
    memset(res, 0, sizeof *res);
    r->colls = rs->agg;
    rs->agg = NULL;
    return r;
}

#define ASSERT_NEAR(a, b)                                                                        \
    do {                                                                                         \
        double a_ = (a), b_ = (b);                                                               \
        if (fabs(a_ - b_) > 1e-9 * fabs(b_) + 1e-12) fprintf(stderr, "%.12g != %.12g\n", a_, b_); \
        assert_true(fabs(a_ - b_) <= 1e-9 * fabs(b_) + 1e-12);                                   \
    } while (0)

static const char *same8[8];
static const char *const *all8(const char *spec) {
    for (int i = 0; i < 8; i++) same8[i] = spec;
    return same8;
}

/* ---- the conventions ------------------------------------------------------------- */

static void test_conventions(void **state) {
    (void)state;
    ASSERT_NEAR(cs_coll_busbw_factor(CS_COLL_ALL_REDUCE, 8), 14.0 / 8);
    ASSERT_NEAR(cs_coll_busbw_factor(CS_COLL_ALL_GATHER, 8), 7.0 / 8);
    ASSERT_NEAR(cs_coll_busbw_factor(CS_COLL_REDUCE_SCATTER, 4), 3.0 / 4);
    ASSERT_NEAR(cs_coll_busbw_factor(CS_COLL_ALL_TO_ALL, 2), 1.0 / 2);
    ASSERT_NEAR(cs_coll_busbw_factor(CS_COLL_BROADCAST, 8), 1.0);
    ASSERT_NEAR(cs_coll_busbw_factor(CS_COLL_BARRIER, 8), 1.0);
    ASSERT_NEAR(cs_coll_busbw_factor(CS_COLL_ALL_REDUCE, 1), 0.0);
    assert_int_equal(cs_coll_data_bytes(CS_COLL_ALL_GATHER, 1000, 8), 8000);
    assert_int_equal(cs_coll_data_bytes(CS_COLL_REDUCE_SCATTER, 1000, 8), 1000);
    assert_int_equal(cs_coll_data_bytes(CS_COLL_ALL_REDUCE, 1000, 8), 1000);
    assert_int_equal(cs_coll_data_bytes(CS_COLL_ALL_TO_ALL, 1000, 8), 1000);
    assert_int_equal(cs_coll_data_bytes(CS_COLL_ALL_GATHER, UINT64_MAX / 2, 8), UINT64_MAX);
}

/* ---- a ring all-reduce on a Ring of 8 --------------------------------------------- */

/* 64 MiB in preferred-dataset-splits 4 = 4 chunks of 16 MiB, one after another
 * (active-chunks-per-dimension 1), each T = d + 2(n-1)(net(m) + d) + (n-1) red(m),
 * m = 16 MiB / 8 = 2 MiB: net(2 MiB) = trunc(500 + 39062.5) = 39562,
 * red(2 MiB) = 3 x trunc(1310.72) = 3930, T = 10 + 14 x 39572 + 7 x 3930
 * = 581528; the collective: 4 x 581528 = 2326112 ns (ASTRA-sim's
 * a_ar_ring8_64MB_cu prints exactly this).
 * algbw = 67108864 / 2326112 = 28.8502... GB/s; busbw = algbw x 14/8 = 50.4879... */
static void check_ar_row(const cs_coll_row *w) {
    assert_int_equal(w->comm_type, CS_COLL_ALL_REDUCE);
    assert_int_equal(w->comm_size, 67108864);
    assert_int_equal(w->data_bytes, 67108864);
    assert_int_equal(w->nranks, 8);
    assert_int_equal(w->group_id, 0);
    assert_string_equal(w->communicator, "all");
    assert_int_equal(w->seq, 0);
    assert_int_equal(w->start, 0);
    assert_int_equal(w->end, cs_time_from_ns(2326112));
    ASSERT_NEAR(w->algbw_gbps, 67108864.0 / 2326112.0);
    ASSERT_NEAR(w->busbw_gbps, 67108864.0 / 2326112.0 * 14.0 / 8.0);
    assert_true(w->busbw_gbps > 50.487 && w->busbw_gbps < 50.488);
    assert_int_equal(w->chunks, 4);
    assert_int_equal(w->phases, 1);
    assert_string_equal(w->algorithms, "ring");
    /* conservation: 8 ranks x 4 chunks x 14 sends of 2 MiB */
    assert_int_equal(w->bytes_sent, 8ULL * 4 * 14 * 2097152);
    assert_int_equal(w->bytes_recv, w->bytes_sent);
    assert_int_equal(w->member_records, 8);
}

static void test_ring_allreduce_ring8(void **state) {
    (void)state;
    setup u;
    default_setup(&u, CS_TOPO_RING, 8);
    u.splits = 4;
    uint64_t m = 2097152;
    uint64_t T = 4 * (10 + 14 * (net_t(1, 500, 50, m) + 10) + 7 * red(m));
    assert_int_equal(T, 2326112);
    rows rs;
    assert_int_equal(run_specs_agg(&u, all8("1 COLL ctype=0 size=67108864"), 8, NULL, NULL, 0, &rs, NULL), 0);
    assert_int_equal(rs.n, 1);
    assert_int_equal(rs.records, 8);
    assert_int_equal(cs_coll_agg_count(rs.agg), 1);
    check_ar_row(&rs.r[0]);
    free_rows(&rs);
}

/* The same from ASTRA-sim's own files of a_ar_ring8_64MB_cu (when ../shared
 * is present): its expected finish is 2326112 ns on every rank. */
static void test_reference_case(void **state) {
    (void)state;
    const char *shared = tu_shared_dir();
    if (!shared) {
        printf("SKIP: ../shared is not present (reference case a_ar_ring8_64MB_cu)\n");
        skip();
    }
    char dir[1024], p1[1100], p2[1100], p3[1100];
    snprintf(dir, sizeof dir, "%s/testdata/astra-sim/cases/a_ar_ring8_64MB_cu", shared);
    snprintf(p1, sizeof p1, "%s/network.yml", dir);
    snprintf(p2, sizeof p2, "%s/system.json", dir);
    snprintf(p3, sizeof p3, "%s/workload/all_reduce", dir);
    cs_error err;
    cs_error_clear(&err);
    cs_network_config net;
    memset(&net, 0, sizeof net);
    cs_system_config sc;
    memset(&sc, 0, sizeof sc);
    assert_int_equal(cs_network_config_load(p1, &net, &err), 0);
    assert_int_equal(cs_system_config_load(p2, &sc, &err), 0);
    cs_workload w;
    memset(&w, 0, sizeof w);
    cs_graph_options go = {0, 0, NULL};
    assert_int_equal(cs_workload_load(p3, 8, &go, &w, &err), 0);
    rows rs;
    cs_engine_result res;
    assert_int_equal(run_workload(&w, &net, &sc, NULL, NULL, 0, &rs, &res), 0);
    assert_int_equal(rs.n, 1);
    for (uint32_t r = 0; r < 8; r++) assert_int_equal(res.ranks[r].finish, cs_time_from_ns(2326112));
    check_ar_row(&rs.r[0]);
    cs_engine_result_free(&res);
    free_rows(&rs);
    cs_workload_free(&w);
    cs_system_config_free(&sc);
    cs_network_config_free(&net);
}

/* The same collective in a full run, in a symmetric run with one record per
 * rank, and in a symmetric run with one record standing for all 8 members
 * (cs_coll_record.represents): the same row every time. */
static void test_symmetric_records(void **state) {
    (void)state;
    setup u;
    default_setup(&u, CS_TOPO_RING, 8);
    u.splits = 4;
    const int modes[3][2] = {{CS_SYMMETRY_OFF, 0}, {CS_SYMMETRY_AUTO, 0}, {CS_SYMMETRY_AUTO, 1}};
    const unsigned records[3] = {8, 8, 1};
    for (int m = 0; m < 3; m++) {
        g_symmetry = modes[m][0];
        g_records_representative = modes[m][1];
        rows rs;
        cs_engine_result res;
        assert_int_equal(run_specs_agg(&u, all8("1 COLL ctype=0 size=67108864"), 8, NULL, NULL, 0, &rs, &res), 0);
        assert_int_equal(rs.n, 1);
        check_ar_row(&rs.r[0]);
        if (m == 0 || res.symmetric)
            assert_int_equal(rs.records, records[m]);
        else
            printf("note: the symmetric run fell back to a full run\n");
        cs_engine_result_free(&res);
        free_rows(&rs);
    }
    g_symmetry = CS_SYMMETRY_AUTO;
    g_records_representative = 0;
}

/* ---- all-gather, reduce-scatter, all-to-all on a Ring of 8 ------------------------ */

/* One after another on every rank (data dependencies), one chunk each:
 *  all-gather of 1 MiB per rank: d + (n-1)(net(S) + d); net(1 MiB) =
 *    trunc(500 + 19531.25) = 20031; T = 10 + 7 x 20041 = 140297 ns;
 *    data_bytes = 8 MiB (the gathered buffer), algbw = 8388608 / 140297,
 *    busbw = algbw x 7/8 (= 7 MiB received per rank / T);
 *  reduce-scatter of 8 MiB: d + (n-1)(net(m) + d + red(m)), m = 1 MiB,
 *    red(1 MiB) = 3 x trunc(655.36) = 1965; T = 10 + 7 x 22006 = 154052 ns;
 *    algbw = 8388608 / 154052, busbw x 7/8;
 *  all-to-all of 8 MiB: d + n(n-1)/2 (net(S/n) + d) = 10 + 28 x 20041
 *    = 561158 ns; algbw = 8388608 / 561158, busbw x 7/8. */
static void test_ag_rs_a2a(void **state) {
    (void)state;
    setup u;
    default_setup(&u, CS_TOPO_RING, 8);
    uint64_t M = 1048576;
    uint64_t tag = 10 + 7 * (net_t(1, 500, 50, M) + 10);
    uint64_t trs = 10 + 7 * (net_t(1, 500, 50, M) + 10 + red(M));
    uint64_t ta2a = 10 + 28 * (net_t(1, 500, 50, M) + 10);
    assert_int_equal(tag, 140297);
    assert_int_equal(trs, 154052);
    assert_int_equal(ta2a, 561158);
    rows rs;
    assert_int_equal(run_specs_agg(&u,
                                   all8("1 COLL ctype=2 size=1048576; 2 COLL ctype=7 size=8388608 data=1; "
                                        "3 COLL ctype=6 size=8388608 data=2"),
                                   8, NULL, NULL, 0, &rs, NULL),
                     0);
    assert_int_equal(rs.n, 3);
    assert_int_equal(rs.records, 24);
    const int32_t type[3] = {CS_COLL_ALL_GATHER, CS_COLL_REDUCE_SCATTER, CS_COLL_ALL_TO_ALL};
    const uint64_t size[3] = {M, 8 * M, 8 * M}, dur[3] = {tag, trs, ta2a};
    uint64_t t0 = 0;
    for (int i = 0; i < 3; i++) {
        const cs_coll_row *w = &rs.r[i];
        assert_int_equal(w->index, i);
        assert_int_equal(w->comm_type, type[i]);
        assert_int_equal(w->comm_size, size[i]);
        assert_int_equal(w->data_bytes, 8 * M);
        assert_int_equal(w->seq, i);
        assert_int_equal(w->start, cs_time_from_ns(t0));
        assert_int_equal(w->end, cs_time_from_ns(t0 + dur[i]));
        ASSERT_NEAR(w->algbw_gbps, 8388608.0 / (double)dur[i]);
        ASSERT_NEAR(w->busbw_gbps, 8388608.0 / (double)dur[i] * 7.0 / 8.0);
        assert_int_equal(w->bytes_sent, w->bytes_recv);
        t0 += dur[i];
    }
    /* the all-gather's busbw is the bytes each rank received over the time */
    ASSERT_NEAR(rs.r[0].busbw_gbps, 7.0 * 1048576.0 / 140297.0);
    /* per-type totals for the terminal report */
    cs_coll_type_stats t[8];
    assert_int_equal(cs_coll_agg_types(rs.agg, t, 8), 3);
    assert_int_equal(t[0].comm_type, CS_COLL_ALL_GATHER);
    assert_int_equal(t[0].count, 1);
    assert_int_equal(t[0].bytes, M);
    assert_int_equal(t[2].comm_type, CS_COLL_REDUCE_SCATTER);
    free_rows(&rs);
}

/* ---- two communicators --------------------------------------------------------------- */

static int load_groups(const char *json, cs_comm_groups *g) {
    const char *path = tu_path(tu_tmp_dir(), "groups.json");
    if (tu_write_file(path, json)) return -1;
    cs_error err;
    cs_error_clear(&err);
    memset(g, 0, sizeof *g);
    return cs_comm_groups_load(path, g, &err);
}

/* FullyConnected(8) (every pair one hop), groups 1 = {0,1,2,3}, 2 = {4,5,6,7}:
 * each a ring of 4 in file order with 10 ns bundles.
 *  group 1: all-reduce of 1 MiB at 0: 10 + 6(net(256 KiB) + 10) + 3 red(256 KiB)
 *    = 10 + 6 x (trunc(500 + 4882.8125) + 10) + 3 x 3 x trunc(163.84)
 *    = 10 + 6 x 5392 + 3 x 489 = 33829 ns; then an all-gather of 64 KiB per
 *    rank: 10 + 3(net(64 KiB) + 10) = 10 + 3 x (trunc(500 + 1220.70) + 10)
 *    = 5200 ns, from 33829 to 39029; data_bytes 256 KiB, busbw x 3/4.
 *  group 2: an all-reduce of 1 MiB whose members arrive at 5, 5, 5 and 7 us
 *    (a COMP first): start = the earliest member's start (5000 ns), end = the
 *    last member's end (each rank's finish: the collective is its last node). */
static const char *two_comm_specs[8] = {
    "1 COLL ctype=0 size=1048576 pg=1; 2 COLL ctype=2 size=65536 pg=1 data=1",
    "1 COLL ctype=0 size=1048576 pg=1; 2 COLL ctype=2 size=65536 pg=1 data=1",
    "1 COLL ctype=0 size=1048576 pg=1; 2 COLL ctype=2 size=65536 pg=1 data=1",
    "1 COLL ctype=0 size=1048576 pg=1; 2 COLL ctype=2 size=65536 pg=1 data=1",
    "1 COMP dur=5; 2 COLL ctype=0 size=1048576 pg=2 data=1",
    "1 COMP dur=5; 2 COLL ctype=0 size=1048576 pg=2 data=1",
    "1 COMP dur=5; 2 COLL ctype=0 size=1048576 pg=2 data=1",
    "1 COMP dur=7; 2 COLL ctype=0 size=1048576 pg=2 data=1"};

static const cs_coll_row *find_row(const rows *rs, uint32_t group, uint64_t seq) {
    for (unsigned i = 0; i < rs->n; i++)
        if (rs->r[i].group_id == group && rs->r[i].seq == seq) return &rs->r[i];
    return NULL;
}

static void test_two_communicators(void **state) {
    (void)state;
    cs_comm_groups g;
    assert_int_equal(load_groups("{\"1\": [0, 1, 2, 3], \"2\": [4, 5, 6, 7]}", &g), 0);
    setup u;
    default_setup(&u, CS_TOPO_FULLY_CONNECTED, 8);
    rows rs;
    cs_engine_result res;
    assert_int_equal(run_specs_agg(&u, two_comm_specs, 8, &g, NULL, 0, &rs, &res), 0);
    assert_int_equal(rs.n, 3);       /* three collectives */
    assert_int_equal(rs.records, 12); /* one record per member of each */
    const cs_coll_row *ar1 = find_row(&rs, 1, 0), *ag1 = find_row(&rs, 1, 1), *ar2 = find_row(&rs, 2, 0);
    assert_non_null(ar1);
    assert_non_null(ag1);
    assert_non_null(ar2);
    uint64_t K = 262144;
    uint64_t tar = 10 + 6 * (net_t(1, 500, 50, K) + 10) + 3 * red(K);
    uint64_t tag = 10 + 3 * (net_t(1, 500, 50, 65536) + 10);
    assert_int_equal(tar, 33829);
    assert_int_equal(tag, 5200);
    assert_string_equal(ar1->communicator, "1");
    assert_string_equal(ar2->communicator, "2");
    assert_int_equal(ar1->nranks, 4);
    assert_int_equal(ar1->start, 0);
    assert_int_equal(ar1->end, cs_time_from_ns(tar));
    ASSERT_NEAR(ar1->busbw_gbps, 1048576.0 / (double)tar * 6.0 / 4.0);
    assert_int_equal(ag1->comm_type, CS_COLL_ALL_GATHER);
    assert_int_equal(ag1->start, cs_time_from_ns(tar));
    assert_int_equal(ag1->end, cs_time_from_ns(tar + tag));
    assert_int_equal(ag1->data_bytes, 4 * 65536);
    ASSERT_NEAR(ag1->algbw_gbps, 262144.0 / (double)tag);
    ASSERT_NEAR(ag1->busbw_gbps, 262144.0 / (double)tag * 3.0 / 4.0);
    /* group 2: earliest start, latest end */
    cs_time last = 0;
    for (uint32_t r = 4; r < 8; r++)
        if (res.ranks[r].finish > last) last = res.ranks[r].finish;
    assert_int_equal(ar2->start, cs_time_from_ns(5000));
    assert_int_equal(ar2->end, last);
    assert_true(last > cs_time_from_ns(7000 + tar - 1)); /* the late member needs a whole all-reduce */
    ASSERT_NEAR(ar2->algbw_gbps, 1048576.0 / cs_time_as_ns_f(ar2->end - ar2->start));
    assert_string_equal(ar2->algorithms, "ring");
    /* completion order */
    for (unsigned i = 1; i < rs.n; i++) assert_true(rs.r[i - 1].end <= rs.r[i].end);
    cs_engine_result_free(&res);
    free_rows(&rs);
    cs_comm_groups_free(&g);
}

/* ---- the files ---------------------------------------------------------------------- */

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    size_t got = fread(b, 1, (size_t)n, f);
    fclose(f);
    b[got] = '\0';
    if (len) *len = got;
    return b;
}

/* Run the two-communicator case writing collectives.csv and summary.json
 * (json_cap entries in the array). */
static void run_files(const char *tag, uint64_t json_cap, char *csv, char *json, size_t n) {
    cs_comm_groups g;
    assert_int_equal(load_groups("{\"1\": [0, 1, 2, 3], \"2\": [4, 5, 6, 7]}", &g), 0);
    setup u;
    default_setup(&u, CS_TOPO_FULLY_CONNECTED, 8);
    snprintf(csv, n, "%s/%s.csv", tu_tmp_dir(), tag);
    snprintf(json, n, "%s/%s.json", tu_tmp_dir(), tag);
    rows rs;
    cs_engine_result res;
    assert_int_equal(run_specs_agg(&u, two_comm_specs, 8, &g, csv, json_cap, &rs, &res), 0);
    cs_result *r = as_result(&res, &rs);
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_report_summary_json(json, r, rs.out, &err), 0);
    /* a second summary from the same sink (--out and --json) is identical */
    char json2[1100];
    snprintf(json2, sizeof json2, "%s.again", json);
    assert_int_equal(cs_report_summary_json(json2, r, rs.out, &err), 0);
    /* without the sink, from the rows the result keeps: identical too */
    char json3[1100];
    snprintf(json3, sizeof json3, "%s.kept", json);
    for (unsigned i = 0; i < rs.n; i++) {
        CS_GROW(r->rows, r->caprows, r->nrows + 1);
        cs_coll_row_public(&rs.r[i], &r->rows[r->nrows++]);
    }
    if (json_cap >= rs.n) {
        assert_int_equal(cs_report_summary_json(json3, r, NULL, &err), 0);
        size_t l3;
        char *c3 = slurp(json3, &l3), *c1 = slurp(json, NULL);
        assert_string_equal(c3, c1);
        free(c3);
        free(c1);
    }
    size_t l1, l2;
    char *a = slurp(json, &l1), *b = slurp(json2, &l2);
    assert_int_equal(l1, l2);
    assert_memory_equal(a, b, l1);
    free(a);
    free(b);
    cs_result_free(r);
    free_rows(&rs);
    cs_comm_groups_free(&g);
}

static void test_csv_and_json(void **state) {
    (void)state;
    char csv[1024], json[1024];
    run_files("full", 0, csv, json, sizeof csv);
    char *text = slurp(csv, NULL);
    assert_non_null(text);
    /* header with units */
    const char *nl = strchr(text, '\n');
    assert_non_null(nl);
    assert_int_equal((size_t)(nl - text), strlen(CS_COLL_CSV_HEADER));
    assert_memory_equal(text, CS_COLL_CSV_HEADER, strlen(CS_COLL_CSV_HEADER));
    assert_non_null(strstr(CS_COLL_CSV_HEADER, "start_ns,end_ns,duration_ns,algbw_gbps,busbw_gbps"));
    assert_non_null(strstr(CS_COLL_CSV_HEADER, "comm_size_bytes"));
    /* one row per collective, same number of fields in every line */
    int lines = 0;
    for (const char *p = text; *p; p++)
        if (*p == '\n') lines++;
    assert_int_equal(lines, 4);
    int fields = -1;
    for (const char *line = text; *line;) {
        int f = 1;
        const char *e = strchr(line, '\n');
        for (const char *p = line; p < e; p++)
            if (*p == ',') f++;
        if (fields < 0) fields = f;
        assert_int_equal(f, fields);
        line = e + 1;
    }
    assert_int_equal(fields, 19);
    /* the first row completes first: group 1's all-reduce at 33829 ns */
    assert_non_null(strstr(text, "\n0,ALL_REDUCE,1048576,1048576,1,1,4,0,0,33829,33829,"));
    free(text);

    json_error_t je;
    json_t *root = json_load_file(json, 0, &je);
    assert_non_null(root);
    json_t *arr = json_object_get(root, "collectives");
    assert_true(json_is_array(arr));
    assert_int_equal(json_array_size(arr), 3);
    assert_int_equal(json_integer_value(json_object_get(root, "collectives_count")), 3);
    assert_int_equal(json_integer_value(json_object_get(root, "collectives_truncated")), 0);
    json_t *e0 = json_array_get(arr, 0);
    assert_string_equal(json_string_value(json_object_get(e0, "type")), "ALL_REDUCE");
    assert_string_equal(json_string_value(json_object_get(e0, "communicator")), "1");
    assert_int_equal(json_integer_value(json_object_get(e0, "nranks")), 4);
    assert_int_equal(json_integer_value(json_object_get(e0, "end_ns")), 33829);
    /* written with 6 decimals */
    assert_true(fabs(json_real_value(json_object_get(e0, "busbw_gbps")) - 1048576.0 / 33829.0 * 1.5) <= 5e-7);
    json_t *al = json_object_get(e0, "algorithms");
    assert_true(json_is_array(al));
    assert_string_equal(json_string_value(json_array_get(al, 0)), "ring");
    json_t *e1 = json_array_get(arr, 1); /* group 1's all-gather ends at 39029, before group 2 */
    assert_string_equal(json_string_value(json_object_get(e1, "type")), "ALL_GATHER");
    assert_int_equal(json_integer_value(json_object_get(e1, "data_bytes")), 262144);
    assert_int_equal(json_integer_value(json_object_get(e1, "end_ns")), 39029);
    json_t *e2 = json_array_get(arr, 2);
    assert_string_equal(json_string_value(json_object_get(e2, "communicator")), "2");
    assert_int_equal(json_integer_value(json_object_get(e2, "start_ns")), 5000);
    json_decref(root);

    /* capped: 2 entries in summary.json, the CSV keeps all three */
    run_files("capped", 2, csv, json, sizeof csv);
    root = json_load_file(json, 0, &je);
    assert_non_null(root);
    assert_int_equal(json_array_size(json_object_get(root, "collectives")), 2);
    assert_int_equal(json_integer_value(json_object_get(root, "collectives_count")), 3);
    assert_int_equal(json_integer_value(json_object_get(root, "collectives_truncated")), 1);
    json_decref(root);
    text = slurp(csv, NULL);
    lines = 0;
    for (const char *p = text; *p; p++)
        if (*p == '\n') lines++;
    assert_int_equal(lines, 4);
    free(text);

    /* no aggregator: an empty array */
    cs_result *res = cs_result_new();
    cs_rank_result one;
    memset(&one, 0, sizeof one);
    res->sim.nranks = 1;
    res->sim.ranks = &one;
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_report_summary_json(json, res, NULL, &err), 0);
    res->sim.ranks = NULL;
    cs_result_free(res);
    root = json_load_file(json, 0, &je);
    assert_non_null(root);
    assert_int_equal(json_array_size(json_object_get(root, "collectives")), 0);
    assert_int_equal(json_integer_value(json_object_get(root, "collectives_count")), 0);
    json_decref(root);
}

static void test_determinism(void **state) {
    (void)state;
    char csv1[1024], json1[1024], csv2[1024], json2[1024];
    run_files("det1", 0, csv1, json1, sizeof csv1);
    run_files("det2", 0, csv2, json2, sizeof csv2);
    size_t a, b;
    char *x = slurp(csv1, &a), *y = slurp(csv2, &b);
    assert_int_equal(a, b);
    assert_memory_equal(x, y, a);
    free(x);
    free(y);
    x = slurp(json1, &a);
    y = slurp(json2, &b);
    assert_int_equal(a, b);
    assert_memory_equal(x, y, a);
    free(x);
    free(y);
}

/* ---- the aggregator alone: order, incomplete instances, bounded memory ------------- */

static cs_coll_record mkrec(uint32_t rank, uint32_t group, uint32_t n, uint64_t seq, uint64_t start_ns,
                            uint64_t end_ns) {
    cs_coll_record r;
    memset(&r, 0, sizeof r);
    r.rank = rank;
    r.comm_type = CS_COLL_ALL_REDUCE;
    r.bytes = 1000;
    r.group_id = group;
    r.nmembers = n;
    r.seq = seq;
    r.chunks = 1;
    r.phases = 1;
    r.algorithms = "ring,direct";
    r.start = cs_time_from_ns(start_ns);
    r.end = cs_time_from_ns(end_ns);
    r.bytes_sent = r.bytes_recv = 10;
    return r;
}

static void test_order_and_incomplete(void **state) {
    (void)state;
    rows rs;
    memset(&rs, 0, sizeof rs);
    cs_error err;
    cs_error_clear(&err);
    char csv[1024];
    snprintf(csv, sizeof csv, "%s/synthetic.csv", tu_tmp_dir());
    assert_int_equal(cs_coll_out_new(csv, 0, 0, &rs.out, &err), 0);
    rs.agg = cs_coll_agg_new(NULL);
    cs_coll_agg_set_row_hook(rs.agg, on_row, &rs);
    cs_coll_observer o = cs_coll_agg_observer(rs.agg);
    /* groups 3 and 2 (2 members each) both complete at 100 ns, group 3 first:
     * written in (end, group, seq) order, so group 2 first; an instance of
     * group 5 that only one of its two members reports; group 1 at 200 ns. */
    cs_coll_record r[7] = {mkrec(0, 3, 2, 0, 0, 90),  mkrec(4, 5, 2, 0, 10, 95), mkrec(1, 3, 2, 0, 5, 100),
                           mkrec(2, 2, 2, 0, 0, 100), mkrec(3, 2, 2, 0, 0, 100), mkrec(6, 1, 2, 7, 0, 150),
                           mkrec(7, 1, 2, 7, 20, 200)};
    for (int i = 0; i < 7; i++) o.coll_done(o.ud, &r[i]);
    assert_int_equal(rs.n, 2); /* group 1's instance waits for a later instant (or the end) */
    cs_coll_agg_finish(rs.agg);
    assert_int_equal(cs_coll_out_finish(rs.out, &err), 0);
    assert_int_equal(rs.n, 4);
    assert_int_equal(rs.r[0].group_id, 2);
    assert_int_equal(rs.r[1].group_id, 3);
    assert_int_equal(rs.r[1].start, cs_time_from_ns(0));
    assert_int_equal(rs.r[1].end, cs_time_from_ns(100));
    assert_int_equal(rs.r[1].bytes_sent, 20);
    assert_string_equal(rs.r[1].algorithms, "ring,direct");
    assert_int_equal(rs.r[2].group_id, 1);
    assert_int_equal(rs.r[2].seq, 7);
    assert_int_equal(rs.r[2].start, 0);
    assert_int_equal(rs.r[2].end, cs_time_from_ns(200));
    assert_string_equal(rs.r[2].communicator, "1");
    assert_int_equal(rs.r[3].group_id, 5); /* incomplete: last, flagged */
    assert_int_equal(rs.r[3].member_records, 1);
    assert_int_equal(rs.r[2].member_records, 2);
    o.coll_done(o.ud, &r[0]); /* after finish: ignored */
    assert_int_equal(rs.n, 4);
    char *text = slurp(csv, NULL);
    assert_non_null(strstr(text, ",ring;direct,"));
    free(text);
    free_rows(&rs);
}

/* A record standing for all 4 members completes its instance alone; its
 * bytes count once per member. */
static void test_representative_record(void **state) {
    (void)state;
    rows rs;
    memset(&rs, 0, sizeof rs);
    cs_error err;
    cs_error_clear(&err);
    rs.agg = cs_coll_agg_new(NULL);
    cs_coll_agg_set_row_hook(rs.agg, on_row, &rs);
    cs_coll_record r = mkrec(0, 0, 4, 0, 0, 50);
    r.represents = 4;
    cs_coll_agg_record(rs.agg, &r);
    r.seq = 1;
    r.start = cs_time_from_ns(50);
    r.end = cs_time_from_ns(80);
    cs_coll_agg_record(rs.agg, &r);
    cs_coll_agg_finish(rs.agg);
    assert_int_equal(rs.n, 2);
    assert_int_equal(rs.r[0].member_records, 4);
    assert_int_equal(rs.r[0].bytes_sent, 40);
    assert_int_equal(rs.r[1].seq, 1);
    assert_string_equal(rs.r[0].communicator, "all");
    free_rows(&rs);
}

/* 20,000 instances in flight at once (the hash grows), then all complete:
 * everything the aggregator allocated for them is freed as they are emitted. */
static void test_bounded_memory(void **state) {
    (void)state;
    cs_coll_agg *a = cs_coll_agg_new(NULL);
    size_t base = cs_alloc_bytes_in_use();
    const uint64_t N = 20000;
    for (uint64_t s = 0; s < N; s++) {
        cs_coll_record r = mkrec(0, 0, 2, s, s, s + 10);
        cs_coll_agg_record(a, &r);
    }
    size_t held = cs_alloc_bytes_in_use() - base;
    assert_true(held > N * 64); /* one entry per instance in flight */
    for (uint64_t s = 0; s < N; s++) {
        cs_coll_record r = mkrec(1, 0, 2, s, s, N + s);
        cs_coll_agg_record(a, &r);
    }
    /* only the grown hash table and the last instant's pending instance remain */
    size_t after = cs_alloc_bytes_in_use() - base;
    assert_true(after < held / 4);
    cs_coll_agg_finish(a);
    assert_int_equal(cs_coll_agg_count(a), N);
    cs_coll_agg_free(a);
}

/* The number writers of summary.json, ranks.csv and links.csv (by hand, not printf): a
 * picosecond time as nanoseconds with at most 3 decimals and no trailing zeros, and a
 * u64 in decimal.  Expected texts worked by hand: 0 ps = "0"; 1 ps = 0.001 ns; 500 ps =
 * 0.5 ns; 12,340 ps = 12.34 ns; 1,000 ps = 1 ns; 657,082,040 ps = 657,082.04 ns;
 * 2^64 - 1 ps = 18,446,744,073,709,551.615 ns. */
static void test_jsonw_numbers(void **state) {
    (void)state;
    static const struct { cs_time t; const char *want; } ns[] = {
        {0, "0"}, {1, "0.001"}, {500, "0.5"}, {12340, "12.34"}, {1000, "1"}, {10, "0.01"},
        {657082040, "657082.04"}, {UINT64_MAX, "18446744073709551.615"}};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        char buf[64] = {0};
        FILE *f = fmemopen(buf, sizeof buf - 1, "w");
        assert_non_null(f);
        cs_jsonw_ns(f, ns[i].t);
        fclose(f);
        assert_string_equal(buf, ns[i].want);
    }
    static const struct { uint64_t v; const char *want; } u[] = {
        {0, "0"}, {7, "7"}, {1024, "1024"}, {UINT64_MAX, "18446744073709551615"}};
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
        char buf[64] = {0};
        FILE *f = fmemopen(buf, sizeof buf - 1, "w");
        assert_non_null(f);
        cs_jsonw_u64(f, u[i].v);
        fclose(f);
        assert_string_equal(buf, u[i].want);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conventions),
        cmocka_unit_test(test_jsonw_numbers),
        cmocka_unit_test(test_ring_allreduce_ring8),
        cmocka_unit_test(test_reference_case),
        cmocka_unit_test(test_symmetric_records),
        cmocka_unit_test(test_ag_rs_a2a),
        cmocka_unit_test(test_two_communicators),
        cmocka_unit_test(test_csv_and_json),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_order_and_incomplete),
        cmocka_unit_test(test_representative_record),
        cmocka_unit_test(test_bounded_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
