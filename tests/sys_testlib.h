/*
 * sys_testlib.h -- helpers shared by the system layer's tests
 * (test_system_*.c): build a network and a system configuration in memory,
 * write traces, run the simulation and collect the per-collective records.
 * Owned by the system layer.  Header-only (static functions).
 */
#ifndef CS_TESTS_SYS_TESTLIB_H
#define CS_TESTS_SYS_TESTLIB_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/comm_group.h"
#include "config/network_config.h"
#include "config/system_config.h"
#include "system/system.h"
#include "testutil.h"
#include "scenario/engine.h"
#include "workload/workload.h"

#define MAXR 64

typedef struct rec_sum {
    uint64_t sent, recv;   /* over all records */
    uint32_t records;
    cs_time end[MAXR];
    cs_time end_node[3][MAXR]; /* by node id 1, 2 */
    uint64_t rank_sent[MAXR];
} rec_sum;

static inline void on_coll(void *ud, const cs_coll_record *r) {
    rec_sum *s = ud;
    s->sent += r->bytes_sent;
    s->recv += r->bytes_recv;
    s->records++;
    if (r->rank < MAXR) {
        s->end[r->rank] = r->end;
        if (r->node_id < 3) s->end_node[r->node_id][r->rank] = r->end;
        s->rank_sent[r->rank] += r->bytes_sent;
    }
}

typedef struct setup {
    int ndims;
    cs_topo_kind topo[3];
    uint32_t npus[3];
    double bw[3], lat[3];
    const char *impl;       /* applied to every dimension, e.g. "ring" */
    int splits;
    int endpoint;
    int active;
    cs_scheduling_policy policy;
    cs_collective_optimization opt;
    uint32_t comm_streams;
    cs_inter_dim_scheduling inter;
    cs_intra_dim_scheduling intra;
    const cs_comm_groups *groups;
    int per_dim;     /* 1: dimension d uses impl_list[d] instead of impl */
    const char *impl_list[3];
} setup;

static inline void default_setup(setup *u, cs_topo_kind k, uint32_t n) {
    memset(u, 0, sizeof *u);
    u->ndims = 1;
    u->topo[0] = k;
    u->npus[0] = n;
    u->bw[0] = 50;
    u->lat[0] = 500;
    u->impl = "ring";
    u->splits = 1;
    u->endpoint = 10;
    u->active = 1;
    u->policy = CS_SCHED_LIFO;
    u->opt = CS_COLLOPT_LOCAL_BW_AWARE;
    u->comm_streams = 1;
}


/* Run the trace spec(s) on the setup; finish times (ns) into fin. */
static inline int run_specs(const setup *u, const char *const *specs, unsigned nspecs, uint64_t *fin,
                     rec_sum *rs, cs_error *err) {
    cs_network_config net;
    memset(&net, 0, sizeof net);
    net.ndims = u->ndims;
    net.total_npus = 1;
    for (int d = 0; d < u->ndims; d++) {
        net.topo[d] = u->topo[d];
        net.npus[d] = u->npus[d];
        net.bandwidth_gbps[d] = u->bw[d];
        net.latency_ns[d] = u->lat[d];
        net.total_npus *= u->npus[d];
    }
    cs_system_config sc;
    cs_system_config_defaults(&sc);
    sc.scheduling_policy = u->policy;
    sc.collective_optimization = u->opt;
    sc.endpoint_delay_ns = u->endpoint;
    sc.active_chunks_per_dimension = u->active;
    sc.preferred_dataset_splits = u->splits;
    sc.local_mem_bw_gbps = 1600;
    sc.inter_dim_scheduling = u->inter;
    sc.intra_dim_scheduling = u->intra;
    for (int k = 0; k < CS_CFG_NCOLL; k++) {
        sc.impl[k].n = u->ndims;
        for (int d = 0; d < u->ndims; d++) tu_set_algo(&sc.impl[k].algo[d], u->per_dim ? u->impl_list[d] : u->impl);
        if (strncmp(u->impl, "one", 3) == 0) sc.impl[k].n = 1;
    }
    static unsigned run_no; /* a fresh trace prefix per run: no stale rank files */
    char name[32];
    snprintf(name, sizeof name, "t%u", run_no++);
    const char *prefix = tu_path(tu_tmp_dir(), name);
    char pfx[512];
    snprintf(pfx, sizeof pfx, "%s", prefix);
    int rc;
    if (nspecs == 1) {
        snprintf(pfx, sizeof pfx, "%s.et", prefix);
        rc = tu_write_trace(pfx, specs[0]);
    } else {
        rc = tu_write_traces(pfx, specs, nspecs);
    }
    if (rc) {
        cs_system_config_free(&sc);
        return CS_EIO;
    }
    cs_workload w;
    memset(&w, 0, sizeof w);
    cs_graph_options go = {0, 0, NULL};
    rc = cs_workload_load(pfx, (uint32_t)net.total_npus, &go, &w, err);
    if (rc) {
        cs_system_config_free(&sc);
        return rc;
    }
    cs_engine_options so;
    cs_engine_options_init(&so);
    cs_engine_options_set_system(&so, &sc);
    so.comm_streams = u->comm_streams;
    so.comm_groups = u->groups;
    cs_coll_observer obs = {on_coll, rs};
    if (rs) {
        memset(rs, 0, sizeof *rs);
        so.coll_observer = &obs;
    }
    cs_engine_result res;
    so.symmetry = CS_SYMMETRY_OFF; /* the full simulation is what these tests check ... */
    rc = cs_engine_run(&w, &net, &so, &res, err);
    if (rc == CS_OK) {
        for (uint32_t r = 0; r < res.nranks && r < MAXR; r++) fin[r] = cs_time_as_ns(res.ranks[r].finish);
        /* ... and the default run (one representative rank, when symmetry
         * applies: test_symmetry.c) must agree with it exactly */
        rec_sum rs2;
        cs_coll_observer obs2 = {on_coll, &rs2};
        memset(&rs2, 0, sizeof rs2);
        if (rs) so.coll_observer = &obs2;
        so.symmetry = CS_SYMMETRY_AUTO;
        cs_engine_result res2;
        cs_error e2;
        cs_error_clear(&e2);
        int rc2 = cs_engine_run(&w, &net, &so, &res2, &e2);
        int same = rc2 == CS_OK && res2.sim_time == res.sim_time && res2.events == res.events &&
                   memcmp(res2.ranks, res.ranks, res.nranks * sizeof *res.ranks) == 0 &&
                   (!rs || (rs2.sent == rs->sent && rs2.recv == rs->recv && rs2.records == rs->records &&
                            memcmp(rs2.end, rs->end, sizeof rs2.end) == 0));
        if (rc2 == CS_OK) cs_engine_result_free(&res2);
        if (!same) {
            fprintf(stderr, "run_specs: the default (symmetric) run differs from the full run (rc %d: %s)\n",
                    rc2, e2.msg);
            rc = CS_EINTERNAL;
            CS_ERR(err, rc, "the default (symmetric) run differs from the full run");
        }
        cs_engine_result_free(&res);
    }
    cs_workload_free(&w);
    cs_system_config_free(&sc);
    return rc;
}

static inline int run1(const setup *u, const char *spec, uint64_t *fin, rec_sum *rs) {
    cs_error err;
    cs_error_clear(&err);
    int rc = run_specs(u, &spec, 1, fin, rs, &err);
    if (rc) fprintf(stderr, "run failed: %s\n", err.msg);
    return rc;
}

/* ---- the model's pieces ---------------------------------------------------------- */

static inline double bpns(double gbps) { return gbps * 1073741824.0 / 1e9; }
static inline uint64_t net_t(uint32_t hops, double lat, double gbps, uint64_t m) {
    return (uint64_t)((double)hops * lat + (double)m / bpns(gbps));
}
static inline uint64_t red(uint64_t m) { return 3 * (uint64_t)((double)m / 1600e9 * 1e9); }


#define EXPECT_ALL(fin, n, val)                                                                \
    do {                                                                                       \
        for (uint32_t r_ = 0; r_ < (n); r_++) {                                                \
            if ((fin)[r_] != (val))                                                            \
                fprintf(stderr, "rank %u: expected %" PRIu64 " got %" PRIu64 "\n", r_,         \
                        (uint64_t)(val), (uint64_t)(fin)[r_]);                                 \
            assert_int_equal((fin)[r_], (val));                                                \
        }                                                                                      \
    } while (0)

#endif
