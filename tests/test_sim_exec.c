/*
 * test_sim_exec.c -- the workload executor against hand-computed times.
 *
 * Every expected number below is worked out by hand in the comment above it
 * from the model's definition (scenario/engine.h, workload/exec.h, compute.h, network/analytical.c):
 * replayed COMP nodes take duration_micros; a rank's GPU COMP nodes run one at
 * a time in id order; a message takes hops*latency + bytes/(GB/s * 2^30/1e9)
 * ns, truncated to whole ns.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "output/timeline.h"
#include "testutil.h"
#include "scenario/engine.h"
#include "workload/workload.h"

static cs_network_config ring(uint32_t n, double gbps, double lat_ns) {
    cs_network_config c;
    memset(&c, 0, sizeof c);
    c.ndims = 1;
    c.topo[0] = CS_TOPO_RING;
    c.npus[0] = n;
    c.bandwidth_gbps[0] = gbps;
    c.latency_ns[0] = lat_ns;
    c.total_npus = n;
    return c;
}

typedef struct run_out {
    int rc;
    cs_error err;
    cs_engine_result res;
    uint32_t ngraphs;
} run_out;

/* Write specs as rank files, load them, run; result in *o (free with done()). */
static void run_specs(const char *name, const char *const *specs, unsigned nranks, const cs_network_config *net,
                      const cs_engine_options *opt_in, run_out *o) {
    char prefix[4096];
    snprintf(prefix, sizeof prefix, "%s/%s", tu_tmp_dir(), name);
    assert_int_equal(tu_write_traces(prefix, specs, nranks), 0);
    cs_engine_options opt;
    if (opt_in)
        opt = *opt_in;
    else
        cs_engine_options_init(&opt);
    memset(o, 0, sizeof *o);
    cs_workload w;
    o->rc = cs_workload_load(prefix, (uint32_t)net->total_npus, NULL, &w, &o->err);
    if (o->rc) return;
    o->ngraphs = w.ngraphs;
    o->rc = cs_engine_run(&w, net, &opt, &o->res, &o->err);
    cs_workload_free(&w);
}

static void done(run_out *o) { cs_engine_result_free(&o->res); }

#define US(x) ((cs_time)(x) * 1000000ULL)
#define NS(x) ((cs_time)(x) * 1000ULL)

static void test_dependent_chain(void **state) {
    (void)state;
    /* 10 -> 20 -> 30 us in a chain: finish 60 us, all of it compute. */
    const char *s[] = {"1 COMP dur=10; 2 COMP dur=20 data=1; 3 COMP dur=30 data=2"};
    cs_network_config net = ring(1, 50, 500);
    run_out o;
    run_specs("chain", s, 1, &net, NULL, &o);
    assert_int_equal(o.rc, CS_OK);
    assert_int_equal(o.res.ranks[0].finish, US(60));
    assert_int_equal(o.res.ranks[0].compute, US(60));
    assert_int_equal(cs_rank_exposed_comm(&o.res.ranks[0]), 0);
    assert_int_equal(o.res.ranks[0].nodes, 3);
    done(&o);
}

/* A valid trace with no nodes (only the metadata header): every rank is done
 * at 0, nothing is simulated.  (The graph builder once sorted a NULL array,
 * which UBSan reports: run under CS_SANITIZE.) */
static void test_zero_nodes(void **state) {
    (void)state;
    const char *s[] = {"", ""};
    cs_network_config net = ring(2, 50, 500);
    run_out o;
    run_specs("no_nodes", s, 2, &net, NULL, &o);
    assert_int_equal(o.rc, CS_OK);
    assert_int_equal(o.res.sim_time, 0);
    assert_int_equal(o.res.ranks[1].nodes, 0);
    done(&o);
}

static void test_independent_serialize(void **state) {
    (void)state;
    /* Three independent COMP nodes share one compute stream: 10+20+30 = 60 us. */
    const char *s[] = {"7 COMP dur=30; 5 COMP dur=10; 6 COMP dur=20"};
    cs_network_config net = ring(1, 50, 500);
    run_out o;
    run_specs("indep", s, 1, &net, NULL, &o);
    assert_int_equal(o.rc, CS_OK);
    assert_int_equal(o.res.ranks[0].finish, US(60));
    assert_int_equal(o.res.ranks[0].compute, US(60));
    done(&o);
}

static void test_diamond(void **state) {
    (void)state;
    /* A(10) -> {B(20), C(30)} -> D(5): B and C serialize: 10+20+30+5 = 65 us. */
    const char *s[] = {"1 COMP dur=10; 2 COMP dur=20 data=1; 3 COMP dur=30 data=1; 4 COMP dur=5 data=2,3"};
    cs_network_config net = ring(1, 50, 500);
    run_out o;
    run_specs("diamond", s, 1, &net, NULL, &o);
    assert_int_equal(o.rc, CS_OK);
    assert_int_equal(o.res.ranks[0].finish, US(65));
    done(&o);
}

static void test_ctrl_and_data_merge(void **state) {
    (void)state;
    /* Node 3 names node 1 as both data and control parent and node 2 as control
     * parent: it waits for both (10 + 20), then runs 5: 35 us. */
    const char *s[] = {"1 COMP dur=10; 2 COMP dur=20; 3 COMP dur=5 data=1 ctrl=1,2"};
    cs_network_config net = ring(1, 50, 500);
    run_out o;
    run_specs("merge", s, 1, &net, NULL, &o);
    assert_int_equal(o.rc, CS_OK);
    assert_int_equal(o.res.ranks[0].finish, US(35));
    done(&o);
}

static void test_zero_duration_is_1ns(void **state) {
    (void)state;
    /* ASTRA-sim counts duration 0 as 1 ns: two of them chained = 2 ns. */
    const char *s[] = {"1 COMP dur=0; 2 COMP dur=0 data=1"};
    cs_network_config net = ring(1, 50, 500);
    run_out o;
    run_specs("zero", s, 1, &net, NULL, &o);
    assert_int_equal(o.rc, CS_OK);
    assert_int_equal(o.res.ranks[0].finish, NS(2));
    done(&o);
}

static void test_cpu_overlaps_gpu(void **state) {
    (void)state;
    /* CPU op 50 us and GPU op 30 us are independent and use different
     * resources: finish 50 us; GPU compute 30 us; exposed (finish - GPU) 20 us. */
    const char *s[] = {"1 CPU dur=50; 2 COMP dur=30"};
    cs_network_config net = ring(1, 50, 500);
    run_out o;
    run_specs("cpu", s, 1, &net, NULL, &o);
    assert_int_equal(o.rc, CS_OK);
    assert_int_equal(o.res.ranks[0].finish, US(50));
    assert_int_equal(o.res.ranks[0].compute, US(30));
    assert_int_equal(o.res.ranks[0].cpu, US(50));
    assert_int_equal(cs_rank_exposed_comm(&o.res.ranks[0]), US(20));
    done(&o);
}

static void test_metadata_releases_children(void **state) {
    (void)state;
    /* A METADATA node and an INVALID node take no time but release children:
     * 10 us + 0 + 0 + 20 us = 30 us. */
    const char *s[] = {"1 COMP dur=10; 2 META data=1; 3 INVALID data=2; 4 COMP dur=20 data=3"};
    cs_network_config net = ring(1, 50, 500);
    run_out o;
    run_specs("meta", s, 1, &net, NULL, &o);
    assert_int_equal(o.rc, CS_OK);
    assert_int_equal(o.res.ranks[0].finish, US(30));
    assert_int_equal(o.res.ranks[0].nodes, 4);
    done(&o);
}

static void test_roofline(void **state) {
    (void)state;
    cs_engine_options opt;
    cs_engine_options_init(&opt);
    opt.compute.roofline = 1;
    opt.compute.peak_flops = 100e12;    /* 100 TFLOP/s */
    opt.compute.mem_bw_bytes_ps = 1e12; /* 1000 GB/s */
    /* Node 1: 2e9 FLOP on 4 MiB: intensity 476.8 FLOP/B, memory roof 4.77e14 >
     * peak, so compute-bound: 2e9 / 1e14 s = 20 us.
     * Node 2: 2e9 FLOP on 4 GiB: memory-bound, time = bytes / bw =
     * 4294967296 / 1e12 s = 4294967.296 ns, truncated to 4294967 ns.
     * Node 3: no tensor_size -> skipped at once (ASTRA-sim).
     * Node 4: no num_ops -> replayed from its duration (7 us), with a warning.
     * Total: 20000 + 4294967 + 0 + 7000 ns. */
    const char *s[] = {"1 COMP ops=2000000000 tensor=4194304 dur=999; "
                       "2 COMP ops=2000000000 tensor=4294967296 data=1; "
                       "3 COMP ops=5 data=2; 4 COMP dur=7 data=3"};
    cs_network_config net = ring(1, 50, 500);
    run_out o;
    cs_log_set_level(CS_LOG_ERROR);
    run_specs("roof", s, 1, &net, &opt, &o);
    cs_log_set_level(CS_LOG_WARN);
    assert_int_equal(o.rc, CS_OK);
    assert_int_equal(o.res.ranks[0].finish, NS(20000 + 4294967 + 7000));
    assert_int_equal(o.res.roofline_fallbacks, 1);
    done(&o);
}

static void test_send_recv_pair(void **state) {
    (void)state;
    /* Ring of 2, 50 GB/s (= 53.6870912 B/ns), 500 ns. Rank 0 computes 10 us, then
     * sends 1 MiB: 500 + 1048576/53.6870912 = 500 + 19531.25 -> 20031 ns, so the
     * bytes arrive at 30031 ns; rank 1 then computes 5 us: 35031 ns. */
    const char *s[] = {"1 COMP dur=10; 2 SEND size=1048576 src=0 dst=1 tag=7 data=1",
                       "1 RECV size=1048576 src=0 dst=1 tag=7; 2 COMP dur=5 data=1"};
    cs_network_config net = ring(2, 50, 500);
    run_out o;
    run_specs("p2p", s, 2, &net, NULL, &o);
    assert_int_equal(o.rc, CS_OK);
    assert_int_equal(o.res.ranks[0].finish, NS(30031));
    assert_int_equal(o.res.ranks[1].finish, NS(35031));
    assert_int_equal(o.res.ranks[1].compute, US(5));
    assert_int_equal(cs_rank_exposed_comm(&o.res.ranks[1]), NS(30031));
    /* conservation: bytes sent = bytes received */
    assert_int_equal(o.res.ranks[0].bytes_sent, 1048576);
    assert_int_equal(o.res.ranks[1].bytes_recv, 1048576);
    assert_int_equal(o.res.net_bytes, 1048576);
    done(&o);
}

static void test_recv_posted_late(void **state) {
    (void)state;
    /* The bytes arrive at 20031 ns but rank 1 posts its receive only after 50 us
     * of compute: the receive completes at once, then 5 us: 55 us. */
    const char *s[] = {"1 SEND size=1048576 dst=1 tag=3",
                       "1 COMP dur=50; 2 RECV size=1048576 src=0 tag=3 data=1; 3 COMP dur=5 data=2"};
    cs_network_config net = ring(2, 50, 500);
    run_out o;
    run_specs("late", s, 2, &net, NULL, &o);
    assert_int_equal(o.rc, CS_OK);
    assert_int_equal(o.res.ranks[0].finish, NS(20031));
    assert_int_equal(o.res.ranks[1].finish, US(55));
    done(&o);
}

static void test_ring_hops_and_tags(void **state) {
    (void)state;
    /* Ring of 4: 0 -> 2 is two hops either way: 2*500 + 19531.25 -> 20531 ns.
     * Two messages 0 -> 2 with different tags are matched by tag, not order:
     * the receive of tag 9 (posted first) gets the second send's bytes. Sends
     * share rank 0's one communication engine: the second starts when the first
     * has arrived (ASTRA-sim: one GPU communication op at a time), so tag 9
     * arrives at 2 * 20531 = 41062 ns. */
    const char *s[] = {"1 SEND size=1048576 dst=2 tag=5; 2 SEND size=1048576 dst=2 tag=9",
                       "1 COMP dur=1",
                       "1 RECV size=1048576 src=0 tag=9; 2 RECV size=1048576 src=0 tag=5 data=1",
                       "1 COMP dur=1"};
    cs_network_config net = ring(4, 50, 500);
    run_out o;
    run_specs("tags", s, 4, &net, NULL, &o);
    assert_int_equal(o.rc, CS_OK);
    assert_int_equal(o.res.ranks[0].finish, NS(41062));
    assert_int_equal(o.res.ranks[2].finish, NS(41062));
    done(&o);
}

/* 3,000 messages, each with its own tag, all arrived before rank 1 posts
 * its receives (after 5 ms of compute) in reverse tag order: 3,000 channels
 * live at once (the table grows past its 1,024 initial buckets) and each
 * is freed on its match.  Every receive completes at once at 5 ms; all
 * bytes arrive (bytes sent = bytes received = 3,000 x 1,000). */
static void test_many_tags(void **state) {
    (void)state;
    enum { N = 3000 };
    size_t cap = (size_t)N * 64;
    char *a = malloc(cap), *b = malloc(cap);
    size_t la = 0, lb = (size_t)snprintf(b, cap, "1 COMP dur=5000");
    for (int i = 0; i < N; i++) {
        la += (size_t)snprintf(a + la, cap - la, "%s%d SEND size=1000 dst=1 tag=%d", i ? "; " : "", i + 1, i);
        lb += (size_t)snprintf(b + lb, cap - lb, "; %d RECV size=1000 src=0 tag=%d data=1", i + 2, N - 1 - i);
    }
    const char *s[] = {a, b};
    cs_network_config net = ring(2, 50, 500);
    run_out o;
    run_specs("tags3000", s, 2, &net, NULL, &o);
    assert_int_equal(o.rc, CS_OK);
    assert_int_equal(o.res.ranks[1].finish, US(5000));
    assert_true(o.res.ranks[0].finish < US(5000));
    assert_int_equal(o.res.ranks[0].bytes_sent, (uint64_t)N * 1000);
    assert_int_equal(o.res.ranks[1].bytes_recv, (uint64_t)N * 1000);
    done(&o);
    free(a);
    free(b);
}

static void test_comm_streams_option(void **state) {
    (void)state;
    /* Same as above with two communication streams: both sends fly at once and
     * arrive at 20531 ns. */
    const char *s[] = {"1 SEND size=1048576 dst=2 tag=5; 2 SEND size=1048576 dst=2 tag=9",
                       "1 COMP dur=1",
                       "1 RECV size=1048576 src=0 tag=9; 2 RECV size=1048576 src=0 tag=5",
                       "1 COMP dur=1"};
    cs_network_config net = ring(4, 50, 500);
    cs_engine_options opt;
    cs_engine_options_init(&opt);
    opt.comm_streams = 2;
    run_out o;
    run_specs("streams", s, 4, &net, &opt, &o);
    assert_int_equal(o.rc, CS_OK);
    assert_int_equal(o.res.ranks[2].finish, NS(20531));
    done(&o);
}

static void test_pipeline_overlap(void **state) {
    (void)state;
    /* Two-stage pipeline, two micro-batches, 4 MiB activations on a ring of 2 at
     * 100 GB/s (107.3741824 B/ns), 1000 ns: a message takes
     * 1000 + 4194304/107.3741824 = 1000 + 39062.5 -> 40062 ns.
     * Stage 0: F0 [0,100us], send0 [100us, 140.062us]; F1 [100,200us] overlaps the
     * send; send1 [200us, 240.062us].
     * Stage 1: recv0 done 140.062us; F0' [140.062, 190.062]; recv1 done 240.062;
     * F1' [240.062, 290.062] -> finish 290062 ns; compute 100 us. */
    const char *s[] = {"1 COMP dur=100; 2 SEND size=4194304 dst=1 tag=0 data=1; "
                       "3 COMP dur=100 data=1; 4 SEND size=4194304 dst=1 tag=1 data=3",
                       "1 RECV size=4194304 src=0 tag=0; 2 COMP dur=50 data=1; "
                       "3 RECV size=4194304 src=0 tag=1; 4 COMP dur=50 data=2,3"};
    cs_network_config net = ring(2, 100, 1000);
    run_out o;
    run_specs("pipe", s, 2, &net, NULL, &o);
    assert_int_equal(o.rc, CS_OK);
    assert_int_equal(o.res.ranks[0].finish, NS(240062));
    assert_int_equal(o.res.ranks[1].finish, NS(290062));
    assert_int_equal(o.res.ranks[1].compute, US(100));
    assert_int_equal(o.res.sim_time, NS(290062));
    done(&o);
}

static void test_identical_files_share_graph(void **state) {
    (void)state;
    const char *s[] = {"1 COMP dur=3", "1 COMP dur=3", "1 COMP dur=4", "1 COMP dur=3"};
    cs_network_config net = ring(4, 50, 500);
    run_out o;
    run_specs("share", s, 4, &net, NULL, &o);
    assert_int_equal(o.rc, CS_OK);
    assert_int_equal(o.ngraphs, 2);
    assert_int_equal(o.res.ranks[2].finish, US(4));
    done(&o);
}

static void test_single_file_for_all_ranks(void **state) {
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/all.et", tu_tmp_dir());
    assert_int_equal(tu_write_trace(path, "1 COMP dur=9"), 0);
    cs_network_config net = ring(8, 50, 500);
    cs_workload w;
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_workload_load(path, 8, NULL, &w, &err), CS_OK);
    assert_int_equal(w.ngraphs, 1);
    cs_engine_options opt;
    cs_engine_options_init(&opt);
    cs_engine_result res;
    assert_int_equal(cs_engine_run(&w, &net, &opt, &res, &err), CS_OK);
    for (uint32_t r = 0; r < 8; r++) assert_int_equal(res.ranks[r].finish, US(9));
    cs_engine_result_free(&res);
    cs_workload_free(&w);
}

static void test_barrier(void **state) {
    (void)state;
    /* A barrier completes on every rank when the last one arrives (30 us). */
    const char *s[] = {"1 COMP dur=10; 2 COLL ctype=9 size=0 data=1; 3 COMP dur=1 data=2",
                       "1 COMP dur=30; 2 COLL ctype=9 size=0 data=1; 3 COMP dur=1 data=2"};
    cs_network_config net = ring(2, 50, 500);
    run_out o;
    run_specs("barrier", s, 2, &net, NULL, &o);
    assert_int_equal(o.rc, CS_OK);
    assert_int_equal(o.res.ranks[0].finish, US(31));
    assert_int_equal(o.res.ranks[1].finish, US(31));
    done(&o);
}

/* ---- errors -------------------------------------------------------------------- */

static void test_deadlock_reported(void **state) {
    (void)state;
    const char *s[] = {"1 COMP dur=1", "1 RECV size=8 src=0 tag=4; 2 COMP dur=1 data=1"};
    cs_network_config net = ring(2, 50, 500);
    run_out o;
    run_specs("dead", s, 2, &net, NULL, &o);
    assert_int_equal(o.rc, CS_EDEADLOCK);
    assert_non_null(strstr(o.err.msg, "never sent"));
    assert_non_null(strstr(o.err.msg, "dead.1.et"));
}

static void test_size_mismatch(void **state) {
    (void)state;
    const char *s[] = {"1 SEND size=8 dst=1 tag=4", "1 RECV size=16 src=0 tag=4"};
    cs_network_config net = ring(2, 50, 500);
    run_out o;
    run_specs("mismatch", s, 2, &net, NULL, &o);
    assert_int_equal(o.rc, CS_EINVAL);
    assert_non_null(strstr(o.err.msg, "size mismatch"));
}

static void test_send_without_dst(void **state) {
    (void)state;
    const char *s[] = {"1 SEND size=8", "1 COMP dur=1"};
    cs_network_config net = ring(2, 50, 500);
    run_out o;
    run_specs("nodst", s, 2, &net, NULL, &o);
    assert_int_equal(o.rc, CS_EINVAL);
    assert_non_null(strstr(o.err.msg, "comm_dst"));
    assert_non_null(strstr(o.err.msg, "nodst.0.et"));
}

static void test_cycle_reported(void **state) {
    (void)state;
    const char *s[] = {"1 COMP dur=1 data=3; 2 COMP dur=1 data=1; 3 COMP dur=1 data=2; 4 COMP dur=1"};
    cs_network_config net = ring(1, 50, 500);
    run_out o;
    run_specs("cycle", s, 1, &net, NULL, &o);
    assert_int_equal(o.rc, CS_EFORMAT);
    assert_non_null(strstr(o.err.msg, "cycle"));
    /* the ids on the cycle are named */
    assert_non_null(strstr(o.err.msg, "1 -> 2 -> 3 -> 1"));
}

static void test_missing_data_dep_is_error(void **state) {
    (void)state;
    const char *s[] = {"1 COMP dur=1; 2 COMP dur=1 data=1,99"};
    cs_network_config net = ring(1, 50, 500);
    run_out o;
    run_specs("missdata", s, 1, &net, NULL, &o);
    assert_int_equal(o.rc, CS_EFORMAT);
    assert_non_null(strstr(o.err.msg, "node 99"));
    assert_non_null(strstr(o.err.msg, "missdata.0.et"));
}

/* duration_micros is unsigned in the schema: a negative value written into it
 * reads as 2^64 - |v| (it ran as 2^64 - 1000 us).  Refused at load, naming
 * file, node and attribute; so is a duration beyond the simulated-time range
 * (2^64 ps = 18446744073709 us).  A broadcast replays its duration too. */
static void test_bad_duration_refused(void **state) {
    (void)state;
    cs_network_config net = ring(1, 50, 500);
    run_out o;
    const char *neg[] = {"1 COMP dur=5; 7 COMP dur=-1000 data=1"};
    run_specs("negdur", neg, 1, &net, NULL, &o);
    assert_int_equal(o.rc, CS_EINVAL);
    tu_assert_has(o.err.msg, "negdur.0.et: node 7 (COMP): attribute duration_micros: expected 0 to 18446744073709 us, "
                             "got -1000 (a negative duration)");
    const char *big[] = {"3 CPU dur=18446744073710"};
    run_specs("bigdur", big, 1, &net, NULL, &o);
    assert_int_equal(o.rc, CS_EINVAL);
    tu_assert_has(o.err.msg, "bigdur.0.et: node 3 (COMP): attribute duration_micros: 18446744073710 us exceeds the "
                             "simulated-time range of 2^64 ps (213 days)");
    const char *bc[] = {"2 COLL ctype=5 size=8 dur=-1"};
    run_specs("negbc", bc, 1, &net, NULL, &o);
    assert_int_equal(o.rc, CS_EINVAL);
    tu_assert_has(o.err.msg, "negbc.0.et: node 2 (COMM_COLL): attribute duration_micros");
    /* the largest duration that fits runs */
    const char *max[] = {"1 COMP dur=18446744073709"};
    run_specs("maxdur", max, 1, &net, NULL, &o);
    assert_int_equal(o.rc, CS_OK);
    assert_int_equal(o.res.sim_time, US(18446744073709ULL));
    done(&o);
}

static int g_warned;
static void count_sink(int level, const char *msg, void *ud) {
    (void)ud;
    if (level == CS_LOG_WARN && strstr(msg, "control dependencies")) g_warned++;
}

static void test_missing_ctrl_dep_is_warning(void **state) {
    (void)state;
    const char *s[] = {"1 COMP dur=1; 2 COMP dur=2 data=1 ctrl=77"};
    cs_network_config net = ring(1, 50, 500);
    cs_log_set_sink(count_sink, NULL);
    g_warned = 0;
    run_out o;
    run_specs("missctrl", s, 1, &net, NULL, &o);
    cs_log_set_sink(NULL, NULL);
    assert_int_equal(o.rc, CS_OK);
    assert_int_equal(g_warned, 1);
    assert_int_equal(o.res.ranks[0].finish, US(3));
    done(&o);
}

static void test_rank_count_mismatch(void **state) {
    (void)state;
    const char *s[] = {"1 COMP dur=1", "1 COMP dur=1", "1 COMP dur=1"};
    char prefix[4096];
    snprintf(prefix, sizeof prefix, "%s/three", tu_tmp_dir());
    assert_int_equal(tu_write_traces(prefix, s, 3), 0);
    cs_workload w;
    cs_error err;
    /* network of 4: rank 3's file is missing */
    cs_error_clear(&err);
    assert_int_equal(cs_workload_load(prefix, 4, NULL, &w, &err), CS_EIO);
    assert_non_null(strstr(err.msg, "three.3.et"));
    assert_non_null(strstr(err.msg, "4 NPUs"));
    /* network of 2: there is a file for rank 2 */
    cs_error_clear(&err);
    assert_int_equal(cs_workload_load(prefix, 2, NULL, &w, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "three.2.et"));
    assert_non_null(strstr(err.msg, "more ranks"));
}

static void test_unknown_node_type(void **state) {
    (void)state;
    const char *s[] = {"1 T42"};
    cs_network_config net = ring(1, 50, 500);
    run_out o;
    run_specs("unknown", s, 1, &net, NULL, &o);
    assert_int_equal(o.rc, CS_EINVAL);
    assert_non_null(strstr(o.err.msg, "type 42"));
    assert_non_null(strstr(o.err.msg, "unknown.0.et"));
}

/* ---- timeline and determinism ---------------------------------------------------- */

static void test_timeline_nests_and_counts(void **state) {
    (void)state;
    const char *s[] = {"1 COMP dur=100; 2 SEND size=4194304 dst=1 tag=0 data=1; "
                       "3 COMP dur=100 data=1; 4 SEND size=4194304 dst=1 tag=1 data=3; 5 META data=4",
                       "1 RECV size=4194304 src=0 tag=0; 2 COMP dur=50 data=1; "
                       "3 RECV size=4194304 src=0 tag=1; 4 COMP dur=50 data=2,3; 5 CPU dur=7"};
    char prefix[4096], tpath[4096];
    snprintf(prefix, sizeof prefix, "%s/tl", tu_tmp_dir());
    snprintf(tpath, sizeof tpath, "%s/tl.json", tu_tmp_dir());
    assert_int_equal(tu_write_traces(prefix, s, 2), 0);
    cs_network_config net = ring(2, 100, 1000);
    cs_workload w;
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_workload_load(prefix, 2, NULL, &w, &err), CS_OK);
    cs_timeline *tl = NULL;
    assert_int_equal(cs_timeline_open(tpath, 2, &tl, &err), CS_OK);
    cs_exec_observer obs = {cs_timeline_node_done, tl};
    cs_engine_options opt;
    cs_engine_options_init(&opt);
    opt.observer = &obs;
    cs_engine_result res;
    assert_int_equal(cs_engine_run(&w, &net, &opt, &res, &err), CS_OK);
    assert_int_equal(cs_timeline_close(tl, &err), CS_OK);

    json_error_t je;
    json_t *root = json_load_file(tpath, 0, &je);
    assert_non_null(root);
    json_t *evs = json_object_get(root, "traceEvents");
    assert_true(json_is_array(evs));
    /* Collect X slices per (pid, tid); check no two overlap in a lane. */
    size_t nx = 0, ni = 0, i;
    double st[64], en[64];
    long pid[64], tid[64];
    json_t *e;
    json_array_foreach(evs, i, e) {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        assert_non_null(ph);
        if (strcmp(ph, "X") == 0) {
            assert_true(nx < 64);
            st[nx] = json_number_value(json_object_get(e, "ts"));
            en[nx] = st[nx] + json_number_value(json_object_get(e, "dur"));
            pid[nx] = (long)json_integer_value(json_object_get(e, "pid"));
            tid[nx] = (long)json_integer_value(json_object_get(e, "tid"));
            assert_non_null(json_object_get(json_object_get(e, "args"), "node_id"));
            nx++;
        } else if (strcmp(ph, "i") == 0) {
            ni++;
        }
    }
    /* 10 nodes: 9 timed slices, 1 instant (the METADATA node) */
    assert_int_equal(nx, 9);
    assert_int_equal(ni, 1);
    for (size_t a = 0; a < nx; a++)
        for (size_t b = a + 1; b < nx; b++)
            if (pid[a] == pid[b] && tid[a] == tid[b]) assert_true(en[a] <= st[b] + 1e-9 || en[b] <= st[a] + 1e-9);
    /* rank 1's second compute slice starts when the second message arrives:
     * 240.062 us (see test_pipeline_overlap) */
    int found = 0;
    json_array_foreach(evs, i, e) {
        if (json_integer_value(json_object_get(e, "pid")) == 1 &&
            json_integer_value(json_object_get(json_object_get(e, "args"), "node_id")) == 4 &&
            strcmp(json_string_value(json_object_get(e, "ph")), "X") == 0) {
            assert_true(json_number_value(json_object_get(e, "ts")) > 240.061 &&
                        json_number_value(json_object_get(e, "ts")) < 240.063);
            found = 1;
        }
    }
    assert_true(found);
    json_decref(root);
    cs_engine_result_free(&res);
    cs_workload_free(&w);
}

static void test_deterministic(void **state) {
    (void)state;
    const char *s[] = {"1 COMP dur=3; 2 SEND size=1000 dst=1 tag=1 data=1; 3 RECV size=1000 src=1 tag=2",
                       "1 COMP dur=4; 2 SEND size=1000 dst=0 tag=2 data=1; 3 RECV size=1000 src=0 tag=1"};
    cs_network_config net = ring(2, 50, 500);
    run_out a, b;
    run_specs("det", s, 2, &net, NULL, &a);
    run_specs("det", s, 2, &net, NULL, &b);
    assert_int_equal(a.rc, CS_OK);
    assert_int_equal(b.rc, CS_OK);
    assert_int_equal(a.res.events, b.res.events);
    assert_memory_equal(a.res.ranks, b.res.ranks, 2 * sizeof *a.res.ranks);
    done(&a);
    done(&b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dependent_chain),        cmocka_unit_test(test_zero_nodes),        cmocka_unit_test(test_independent_serialize),
        cmocka_unit_test(test_diamond),                cmocka_unit_test(test_ctrl_and_data_merge),
        cmocka_unit_test(test_zero_duration_is_1ns),   cmocka_unit_test(test_cpu_overlaps_gpu),
        cmocka_unit_test(test_metadata_releases_children), cmocka_unit_test(test_roofline),
        cmocka_unit_test(test_send_recv_pair), cmocka_unit_test(test_many_tags),         cmocka_unit_test(test_recv_posted_late),
        cmocka_unit_test(test_ring_hops_and_tags),     cmocka_unit_test(test_comm_streams_option),
        cmocka_unit_test(test_pipeline_overlap),       cmocka_unit_test(test_identical_files_share_graph),
        cmocka_unit_test(test_single_file_for_all_ranks), cmocka_unit_test(test_barrier),
        cmocka_unit_test(test_deadlock_reported),      cmocka_unit_test(test_size_mismatch),
        cmocka_unit_test(test_send_without_dst),       cmocka_unit_test(test_cycle_reported),
        cmocka_unit_test(test_missing_data_dep_is_error), cmocka_unit_test(test_bad_duration_refused), cmocka_unit_test(test_missing_ctrl_dep_is_warning),
        cmocka_unit_test(test_rank_count_mismatch),    cmocka_unit_test(test_unknown_node_type),
        cmocka_unit_test(test_timeline_nests_and_counts), cmocka_unit_test(test_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
