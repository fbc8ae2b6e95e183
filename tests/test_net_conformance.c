/*
 * test_net_conformance.c -- the same scenarios on every registered network
 * backend (cs_net_backends()): a backend joins this test by being registered
 * in src/network/network.c, nothing else.
 *
 * Scenarios (each one loops over the registry):
 *   table       the function table matches the capabilities it declares
 *   single      one uncontended transfer on Ring, FullyConnected and Switch
 *               == cs_net_uncontended_time == the alpha-beta closed form
 *   zero        0 bytes (latency only) and a message to itself (no time)
 *   determinism a mixed all-to-all with staggered sends, run twice: the same
 *               arrival times and order
 *   conservation every message delivered once; bytes delivered == bytes sent
 *               per destination; links into each NPU carried those bytes
 *               (backends that report link statistics)
 *   incast      N senders to one receiver: a congestion-aware backend does
 *               not finish before N * bytes / bandwidth
 *   switch      send_switch (CS_NET_SWITCH_ENDPOINTS): one link up
 *   range       a transfer whose arrival is beyond the simulated-time range
 *               (2^63 bytes at 50 GB/s: 1.7e17 ns; or 1 KiB at 19 days from
 *               the end) is refused at send with CS_EINVAL, the range named
 *               and nothing scheduled; the largest that fits is delivered
 *
 * A backend that differs from the common expectation by design says so in
 * EXCEPTIONS below, with the reason; a backend without
 * CS_NET_CONGESTION_AWARE that is not listed there fails.
 *
 * Backends with CS_NET_NEEDS_TOPOLOGY run on the ASTRA-sim product of the
 * network's dimensions (cs_topo_build_astra), given through cs_net_env.topo.
 *
 * Numbers, worked by hand (every case below: 50 GB/s, 500 ns per dimension):
 *   B = 50 GB/s read as GiB/s = 50 * 2^30 / 1e9 = 53.6870912 bytes/ns
 *   1 MiB = 1048576 B: s / B = 19531.25 ns; 12345 B: s / B = 229.9435... ns
 * Cut-through alpha-beta, floor(h * L + s / B), h = hops (Ring: shorter way
 * round; FullyConnected: 1; Switch: 2, up and down):
 *   1 MiB   h = 1: floor(500 + 19531.25)  = 20031 ns
 *           h = 2: floor(1000 + 19531.25) = 20531 ns
 *           h = 3: floor(1500 + 19531.25) = 21031 ns
 *   12345 B h = 1: floor(729.94) = 729;  h = 2: 1229;  h = 3: 1729 ns
 * Store-and-forward (each hop floor(L + s / B), summed):
 *   1 MiB   h = 2: 2 * 20031 = 40062;  h = 3: 3 * 20031 = 60093 ns
 *   12345 B h = 2: 2 * 729 = 1458;     h = 3: 3 * 729 = 2187 ns
 * Incast, 7 senders x 1 MiB into one NPU over one link of B:
 *   7 * 19531.25 = 136718.75 ns at the least.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/eventq.h"
#include "network/network.h"
#include "topology/topology.h"
#include "testutil.h"

#define NS(x) ((cs_time)(x) * 1000ULL)
#define MIB 1048576ULL
#define MAXMSG 256

/* ---- exceptions: by design, recorded here and not silently ---------------- */

enum {
    EXC_STORE_AND_FORWARD = 1u << 0, /* per hop floor(L + s/B), not floor(hL + s/B) */
    EXC_NO_CONGESTION = 1u << 1,     /* incast finishes in one message's time */
    EXC_PACKETS = 1u << 2,           /* messages are packets with headers: see the packet cases */
};

typedef struct conf_exception {
    const char *backend;
    unsigned what;
    const char *why;
} conf_exception;

static const conf_exception EXCEPTIONS[] = {
    {"analytical", EXC_NO_CONGESTION,
     "congestion-unaware by design (ASTRA-sim's analytical backend): N messages into one NPU each see "
     "the full bandwidth and all arrive after one message's time"},
    {"analytical-congestion", EXC_STORE_AND_FORWARD,
     "ASTRA-sim's congestion-aware model stores and forwards a message on every hop: "
     "sum over hops of floor(L + s/B)"},
    {"packet", EXC_PACKETS,
     "a message is ceil(s / 4096) packets of 82 header bytes each, stored and forwarded per packet: "
     "between the cut-through form and the store-and-forward form with headers (its exact closed forms are "
     "tests/test_packet.c's); 0 bytes is one 82-byte packet; transfers of 2^50 bytes (2.7e11 packets) are "
     "not simulated"},
};

static unsigned exceptions_of(const cs_net_backend *be) {
    for (size_t i = 0; i < sizeof EXCEPTIONS / sizeof EXCEPTIONS[0]; i++)
        if (strcmp(EXCEPTIONS[i].backend, be->name) == 0) return EXCEPTIONS[i].what;
    return 0;
}

/* ---- a network under test --------------------------------------------------- */

typedef struct tnet {
    const cs_net_backend *be;
    cs_eventq *q;
    cs_net net;
    cs_network_config cfg;
    cs_topo *topo; /* CS_NET_NEEDS_TOPOLOGY: the product of the dimensions (owned) */
    cs_time t[MAXMSG];
    uint64_t bytes[MAXMSG];
    uint32_t dst[MAXMSG];
    uint32_t got[MAXMSG];   /* deliveries per cookie */
    uint64_t order[MAXMSG]; /* cookies in arrival order */
    uint32_t n;
} tnet;

static cs_network_config dims1(cs_topo_kind k, uint32_t n) {
    cs_network_config c;
    memset(&c, 0, sizeof c);
    c.ndims = 1;
    c.topo[0] = k;
    c.npus[0] = n;
    c.bandwidth_gbps[0] = 50;
    c.latency_ns[0] = 500;
    c.total_npus = n;
    return c;
}

static void on_done(void *ctx, uint64_t cookie) {
    tnet *tn = ctx;
    assert_true(cookie < MAXMSG);
    tn->t[cookie] = cs_eventq_now(tn->q);
    tn->got[cookie]++;
    tn->order[tn->n++] = cookie;
}

static void tn_open(tnet *tn, const cs_net_backend *be, cs_topo_kind k, uint32_t npus) {
    memset(tn, 0, sizeof *tn);
    tn->be = be;
    tn->cfg = dims1(k, npus);
    tn->q = cs_eventq_new();
    if (be->caps & CS_NET_NEEDS_TOPOLOGY) {
        tn->topo = cs_topo_build_astra(&tn->cfg);
        tn->cfg.topology = tn->topo;
    }
    cs_net_env env = {.cfg = &tn->cfg, .topo = tn->topo, .q = tn->q};
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_net_init(&tn->net, be, &env, &err);
    if (rc) fail_msg("%s: create failed: %s", be->name, err.msg);
}

static void tn_close(tnet *tn) {
    cs_net_destroy(&tn->net);
    cs_eventq_free(tn->q);
    cs_topo_free(tn->topo);
}

static void tn_send(tnet *tn, uint32_t src, uint32_t dst, uint64_t bytes, uint64_t cookie) {
    assert_true(cookie < MAXMSG);
    tn->bytes[cookie] = bytes;
    tn->dst[cookie] = dst;
    cs_net_msg m = {.src = src, .dst = dst, .bytes = bytes, .key = ((uint64_t)src << 32) | cookie,
                    .done = on_done, .ctx = tn, .cookie = cookie};
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_net_send(&tn->net, &m, &err);
    if (rc) fail_msg("%s: send %u -> %u: %s", tn->be->name, src, dst, err.msg);
}

/* ---- table -------------------------------------------------------------------- */

static void test_table(void **st) {
    (void)st;
    size_t n = 0;
    for (const cs_net_backend *const *b = cs_net_backends(); *b; b++, n++) {
        const cs_net_backend *be = *b;
        assert_non_null(be->name);
        assert_non_null(be->help);
        assert_ptr_equal(cs_net_backend_find(be->name), be);
        assert_non_null(be->create);
        assert_non_null(be->send);
        assert_non_null(be->uncontended_time);
        assert_non_null(be->destroy);
        if (be->caps & CS_NET_SWITCH_ENDPOINTS) assert_non_null(be->send_switch);
        else assert_null(be->send_switch);
        if (be->nopts) {
            assert_non_null(be->opts);
            assert_true(be->opts_size > 0);
            for (size_t i = 0; i < be->nopts; i++) {
                assert_non_null(be->opts[i].key);
                assert_non_null(be->opts[i].help);
                assert_true(be->opts[i].off < be->opts_size);
            }
        }
        /* exact deliveries under any load and link sharing exclude each other */
        assert_false((be->caps & CS_NET_EXACT_UNCONTENDED) && (be->caps & CS_NET_CONGESTION_AWARE));
        /* a backend that is not congestion-aware says so in EXCEPTIONS */
        if (!(be->caps & CS_NET_CONGESTION_AWARE) && !(exceptions_of(be) & EXC_NO_CONGESTION))
            fail_msg("%s: not CS_NET_CONGESTION_AWARE and not listed as an exception", be->name);
        if ((be->caps & CS_NET_CONGESTION_AWARE) && (exceptions_of(be) & EXC_NO_CONGESTION))
            fail_msg("%s: CS_NET_CONGESTION_AWARE but listed as congestion-unaware", be->name);
    }
    assert_true(n >= 3);
    assert_non_null(cs_net_backend_find(CS_NET_DEFAULT_BACKEND));
    assert_null(cs_net_backend_find("no-such-backend"));
    assert_false(cs_net_backend_has("no-such-backend", 0));
}

/* ---- single uncontended transfers --------------------------------------------- */

typedef struct single_case {
    cs_topo_kind kind;
    uint32_t npus, src, dst, hops;
    uint64_t bytes;
    uint64_t cut_ns, sf_ns; /* cut-through / store-and-forward, worked in the file comment */
} single_case;

static const single_case SINGLES[] = {
    {CS_TOPO_RING, 8, 0, 1, 1, MIB, 20031, 20031},
    {CS_TOPO_RING, 8, 0, 3, 3, MIB, 21031, 60093},
    {CS_TOPO_RING, 8, 6, 1, 3, MIB, 21031, 60093}, /* 6 -> 7 -> 0 -> 1 */
    {CS_TOPO_RING, 8, 0, 3, 3, 12345, 1729, 2187},
    {CS_TOPO_FULLY_CONNECTED, 5, 4, 2, 1, MIB, 20031, 20031},
    {CS_TOPO_FULLY_CONNECTED, 5, 4, 2, 1, 12345, 729, 729},
    {CS_TOPO_SWITCH, 16, 3, 11, 2, MIB, 20531, 40062},
    {CS_TOPO_SWITCH, 16, 3, 11, 2, 12345, 1229, 1458},
};

static void test_single(void **st) {
    (void)st;
    for (const cs_net_backend *const *b = cs_net_backends(); *b; b++) {
        int sf = (exceptions_of(*b) & EXC_STORE_AND_FORWARD) != 0;
        for (size_t i = 0; i < sizeof SINGLES / sizeof SINGLES[0]; i++) {
            const single_case *c = &SINGLES[i];
            tnet tn;
            tn_open(&tn, *b, c->kind, c->npus);
            cs_time un = cs_net_uncontended_time(&tn.net, c->src, c->dst, c->bytes);
            tn_send(&tn, c->src, c->dst, c->bytes, 0);
            cs_eventq_run(tn.q, CS_TIME_MAX);
            cs_time want = NS(sf ? c->sf_ns : c->cut_ns);
            if (exceptions_of(*b) & EXC_PACKETS) {
                /* no faster than the fluid cut-through form; no slower than
                 * store-and-forward of the whole message with 82/4096 more
                 * bytes, plus one packet's serialization per hop */
                double hi = (double)c->sf_ns * 1e3 * (1 + 82.0 / 4096) + c->hops * 4178 * 1e3 / 53.6870912;
                if (tn.n == 1 && tn.t[0] == un && tn.t[0] >= NS(c->cut_ns) && (double)tn.t[0] <= hi) want = un;
            }
            if (tn.n != 1 || tn.t[0] != un || tn.t[0] != want)
                fail_msg("%s, %s(%u) %u -> %u (%u hops), %" PRIu64 " B: arrived %" PRIu64 " ps, "
                         "cs_net_uncontended_time %" PRIu64 " ps, closed form %" PRIu64 " ps",
                         (*b)->name, cs_topo_kind_name(c->kind), c->npus, c->src, c->dst, c->hops, c->bytes,
                         tn.t[0], un, want);
            char pend[128];
            cs_net_describe_pending(&tn.net, pend, sizeof pend);
            assert_string_equal(pend, ""); /* nothing left in flight */
            tn_close(&tn);
        }
    }
}

/* ---- 0 bytes, self-send --------------------------------------------------------- */

static void test_zero_and_self(void **st) {
    (void)st;
    for (const cs_net_backend *const *b = cs_net_backends(); *b; b++) {
        tnet tn;
        tn_open(&tn, *b, CS_TOPO_RING, 8);
        tn_send(&tn, 0, 3, 0, 0);   /* 0 bytes, 3 hops: 3 x 500 ns either way */
        tn_send(&tn, 5, 5, MIB, 1); /* to itself: no network time */
        cs_eventq_run(tn.q, CS_TIME_MAX);
        assert_int_equal(tn.n, 2);
        /* packets: one header-only packet of 82 bytes, stored and forwarded:
         * 3 x (500 ns + ceil(82e3 / 53.6870912 = 1527.37) ps) */
        cs_time zero3 = exceptions_of(*b) & EXC_PACKETS ? 3 * (NS(500) + 1528) : NS(1500);
        cs_time zero2 = exceptions_of(*b) & EXC_PACKETS ? 2 * (NS(500) + 1528) : NS(1000);
        assert_int_equal(tn.t[0], zero3);
        assert_int_equal(tn.t[0], cs_net_uncontended_time(&tn.net, 0, 3, 0));
        assert_int_equal(tn.t[1], 0);
        assert_int_equal(cs_net_uncontended_time(&tn.net, 5, 5, MIB), 0);
        tn_close(&tn);
        tn_open(&tn, *b, CS_TOPO_SWITCH, 4);
        tn_send(&tn, 1, 2, 0, 0); /* up and down: 2 x 500 ns */
        cs_eventq_run(tn.q, CS_TIME_MAX);
        assert_int_equal(tn.t[0], zero2);
        tn_close(&tn);
    }
}

/* ---- a mixed scenario: determinism and conservation ----------------------------- */

typedef struct later {
    tnet *tn;
    uint32_t src, dst;
    uint64_t bytes, cookie;
} later;

static void later_fire(void *ctx, const cs_event *ev) {
    (void)ev;
    later *l = ctx;
    tn_send(l->tn, l->src, l->dst, l->bytes, l->cookie);
}

/* All-to-all on Switch(8), sizes varying by pair, half the senders starting
 * 3 us late: 56 messages. */
static later *mixed(tnet *tn, const cs_net_backend *be) {
    tn_open(tn, be, CS_TOPO_SWITCH, 8);
    later *ls = cs_calloc(64, sizeof *ls);
    uint64_t c = 0;
    for (uint32_t s = 0; s < 8; s++)
        for (uint32_t d = 0; d < 8; d++) {
            if (s == d) continue;
            uint64_t bytes = 1000 + 7919ULL * ((s * 8 + d) % 13) * (s + 1);
            if (s % 2 == 0) {
                tn_send(tn, s, d, bytes, c);
            } else {
                ls[c] = (later){tn, s, d, bytes, c};
                cs_eventq_push(tn->q, NS(3000), ((uint64_t)s << 32) | (1u << 20) | c, later_fire, &ls[c], 0);
            }
            c++;
        }
    cs_eventq_run(tn->q, CS_TIME_MAX);
    assert_int_equal(tn->n, 56);
    return ls;
}

static void test_determinism(void **st) {
    (void)st;
    for (const cs_net_backend *const *b = cs_net_backends(); *b; b++) {
        tnet a, c;
        later *la = mixed(&a, *b), *lc = mixed(&c, *b);
        for (uint32_t i = 0; i < 56; i++) {
            if (a.t[i] != c.t[i] || a.order[i] != c.order[i])
                fail_msg("%s: two runs differ at message %u: %" PRIu64 " vs %" PRIu64 " ps (arrival #%u: cookie %" PRIu64
                         " vs %" PRIu64 ")", (*b)->name, i, a.t[i], c.t[i], i, a.order[i], c.order[i]);
        }
        cs_net_link_report ra, rc;
        cs_error err;
        cs_error_clear(&err);
        assert_int_equal(cs_net_report(&a.net, &ra, &err), CS_OK);
        assert_int_equal(cs_net_report(&c.net, &rc, &err), CS_OK);
        assert_int_equal(ra.nlinks, rc.nlinks);
        if (ra.nlinks) assert_memory_equal(ra.links, rc.links, ra.nlinks * sizeof *ra.links);
        cs_net_link_report_free(&ra);
        cs_net_link_report_free(&rc);
        tn_close(&a);
        tn_close(&c);
        cs_free(la);
        cs_free(lc);
    }
}

static void test_conservation(void **st) {
    (void)st;
    for (const cs_net_backend *const *b = cs_net_backends(); *b; b++) {
        tnet tn;
        later *ls = mixed(&tn, *b);
        uint64_t sent[8] = {0}, got[8] = {0}, total = 0;
        for (uint32_t i = 0; i < 56; i++) {
            if (tn.got[i] != 1) fail_msg("%s: message %u delivered %u times", (*b)->name, i, tn.got[i]);
            sent[tn.dst[i]] += tn.bytes[i];
            got[tn.dst[i]] += tn.bytes[i] * tn.got[i];
            total += tn.bytes[i];
        }
        for (uint32_t d = 0; d < 8; d++) assert_int_equal(got[d], sent[d]);
        assert_int_equal(tn.net.stats.messages, 56);
        assert_int_equal(tn.net.stats.bytes, total);
        /* link statistics: on a Switch, the last link of every route enters
         * its destination NPU and no other link does */
        cs_net_link_report r;
        cs_error err;
        cs_error_clear(&err);
        assert_int_equal(cs_net_report(&tn.net, &r, &err), CS_OK);
        if (r.nlinks) {
            assert_non_null(tn.topo);
            assert_int_equal(r.nlinks, tn.topo->nlinks);
            uint64_t into[8] = {0};
            for (uint32_t l = 0; l < r.nlinks; l++) {
                uint32_t v = tn.topo->links[l].dst;
                if (v < 8) into[v] += r.links[l].bytes;
                assert_true(r.links[l].peak_util >= 0 && r.links[l].peak_util <= 1);
                assert_true(r.links[l].bytes == 0 || r.links[l].busy > 0);
            }
            for (uint32_t d = 0; d < 8; d++) assert_int_equal(into[d], sent[d]);
        }
        cs_net_link_report_free(&r);
        tn_close(&tn);
        cs_free(ls);
    }
}

/* ---- incast --------------------------------------------------------------------- */

static void test_incast(void **st) {
    (void)st;
    const uint32_t N = 7;
    for (const cs_net_backend *const *b = cs_net_backends(); *b; b++) {
        tnet tn;
        tn_open(&tn, *b, CS_TOPO_SWITCH, N + 1);
        for (uint32_t i = 0; i < N; i++) tn_send(&tn, i + 1, 0, MIB, i);
        cs_eventq_run(tn.q, CS_TIME_MAX);
        assert_int_equal(tn.n, N);
        cs_time last = 0;
        for (uint32_t i = 0; i < N; i++)
            if (tn.t[i] > last) last = tn.t[i];
        /* N * s / B = 136718.75 ns (file comment) */
        cs_time bound = NS(136718) + 750;
        if ((*b)->caps & CS_NET_EXACT_UNCONTENDED) /* every message as if alone */
            for (uint32_t i = 0; i < N; i++) assert_int_equal(tn.t[i], cs_net_uncontended_time(&tn.net, i + 1, 0, MIB));
        if (exceptions_of(*b) & EXC_NO_CONGESTION) {
            assert_int_equal(last, NS(20531)); /* one message's time: the recorded exception */
        } else if (last < bound) {
            fail_msg("%s: %u x 1 MiB into one NPU done at %" PRIu64 " ps, before N s / B = %" PRIu64 " ps",
                     (*b)->name, N, last, bound);
        }
        tn_close(&tn);
    }
}

/* ---- switch endpoints ----------------------------------------------------------- */

static void test_switch_endpoints(void **st) {
    (void)st;
    for (const cs_net_backend *const *b = cs_net_backends(); *b; b++) {
        tnet tn;
        tn_open(&tn, *b, CS_TOPO_SWITCH, 16);
        cs_net_msg m = {.src = 3, .dst = 11, .bytes = MIB, .key = 1, .done = on_done, .ctx = &tn, .cookie = 0};
        cs_error err;
        cs_error_clear(&err);
        int rc = cs_net_send_switch(&tn.net, &m, 1, &err);
        if (!((*b)->caps & CS_NET_SWITCH_ENDPOINTS)) {
            assert_int_equal(rc, CS_EUNSUPPORTED);
        } else {
            assert_int_equal(rc, CS_OK);
            m.cookie = 1;
            m.key = 2;
            assert_int_equal(cs_net_send_switch(&tn.net, &m, 0, &err), CS_OK);
            cs_eventq_run(tn.q, CS_TIME_MAX);
            /* one link each way, sharing nothing: floor(500 + 19531.25) */
            assert_int_equal(tn.t[0], NS(20031));
            assert_int_equal(tn.t[1], NS(20031));
        }
        tn_close(&tn);
    }
}

/* ---- the simulated-time range ---------------------------------------------------- */

static void noop_ev(void *ctx, const cs_event *ev) { (void)ctx, (void)ev; }

static void test_time_range(void **st) {
    (void)st;
    for (const cs_net_backend *const *b = cs_net_backends(); *b; b++) {
        tnet tn;
        tn_open(&tn, *b, CS_TOPO_RING, 4);
        cs_error err;
        cs_error_clear(&err);
        cs_net_msg m = {.src = 0, .dst = 1, .bytes = 1ULL << 63, .key = 1, .done = on_done, .ctx = &tn, .cookie = 0};
        assert_int_equal(cs_net_send(&tn.net, &m, &err), CS_EINVAL);
        /* 2^63 / 53.6870912 = 1.718e17 ns; packets: (2^63 + 2^51 x 82) / 53.6870912 = 1.752e17 ns */
        tu_assert_has(err.msg, exceptions_of(*b) & EXC_PACKETS
                                   ? "transfer of 9223372036854775808 bytes from rank 0 to rank 1: takes 1.752e+17 ns"
                                   : "transfer of 9223372036854775808 bytes from rank 0 to rank 1: takes 1.718e+17 ns");
        tu_assert_has(err.msg, "exceeds the simulated-time range of 2^64 ps (213 days)");
        assert_true(cs_time_beyond(cs_net_uncontended_time(&tn.net, 0, 1, 1ULL << 63)));
        /* 1 KiB (519 ns on one hop) sent 100 ns before the end of the range */
        cs_eventq_push(tn.q, CS_TIME_MAX - NS(100), 0, noop_ev, NULL, 0);
        cs_eventq_run(tn.q, CS_TIME_MAX);
        cs_error_clear(&err);
        m.bytes = 1024;
        assert_int_equal(cs_net_send(&tn.net, &m, &err), CS_EINVAL);
        tu_assert_has(err.msg, "its arrival at ");
        cs_eventq_run(tn.q, CS_TIME_MAX);
        assert_int_equal(tn.n, 0); /* nothing was scheduled */
        tn_close(&tn);
        /* the largest that fits: 2^50 bytes, 2.1e13 ns */
        if (exceptions_of(*b) & EXC_PACKETS) continue; /* 2.7e11 packets: not simulated (EXCEPTIONS) */
        tn_open(&tn, *b, CS_TOPO_RING, 4);
        tn_send(&tn, 0, 1, 1ULL << 50, 0);
        cs_eventq_run(tn.q, CS_TIME_MAX);
        assert_int_equal(tn.n, 1);
        assert_int_equal(tn.t[0], cs_net_uncontended_time(&tn.net, 0, 1, 1ULL << 50));
        tn_close(&tn);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_single),
        cmocka_unit_test(test_zero_and_self),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_conservation),
        cmocka_unit_test(test_incast),
        cmocka_unit_test(test_switch_endpoints),
        cmocka_unit_test(test_time_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
