/*
 * test_sym_guard.c -- the symmetry guard's causes within an instant, on a
 * bare system (src/system/symmetry.c): events with chosen keys act on rank
 * 0's executor through cs_system_sym_dispatch and push same-instant events
 * with fresh keys through cs_system_sym_event, as the executor does; the
 * guard must let an event act on state another cause touched only when it
 * descends, within the instant, from an event of that cause dispatched no
 * earlier than that cause's last touch -- and only in class mode.
 *
 * The network is one Switch of 4 NPUs; class mode has one axis over all 4
 * ranks (stride 1, size 4), so the order of any two different causes' ranks
 * can swap within the class (symmetry.c order_fixed) and only descent can
 * make a pair safe.  Keys are rank << 32 | counter.  Owned by the system
 * layer.
 */
#include "testutil.h"

#include <string.h>

#include "config/network_config.h"
#include "core/eventq.h"
#include "network/network.h"
#include "system/system.h"

#define T 5000 /* the instant, ps */
#define KEY(rank, c) (((uint64_t)(rank) << 32) | (c))

typedef struct guard_run {
    cs_eventq *q;
    cs_net net;
    cs_system *s;
    cs_network_config cfg;
    cs_sym_axes ax;
} guard_run;

static void open_run(guard_run *g, int class_mode) {
    memset(g, 0, sizeof *g);
    g->cfg.ndims = 1;
    g->cfg.topo[0] = CS_TOPO_SWITCH;
    g->cfg.npus[0] = 4;
    g->cfg.bandwidth_gbps[0] = 50;
    g->cfg.latency_ns[0] = 500;
    g->cfg.total_npus = 4;
    g->q = cs_eventq_new();
    cs_error err;
    cs_error_clear(&err);
    cs_net_env env = {.cfg = &g->cfg, .q = g->q};
    assert_int_equal(cs_net_init(&g->net, cs_net_backend_find("analytical"), &env, &err), CS_OK);
    g->ax.n = 1;
    g->ax.stride[0] = 1;
    g->ax.size[0] = 4;
    cs_system_params p = {.network = &g->cfg, .representative = 1, .axes = class_mode ? &g->ax : NULL};
    assert_int_equal(cs_system_new(g->q, &g->net, 4, &p, &g->s, &err), CS_OK);
}

/* Runs the queue; returns the guard's reason to stop, or NULL. */
static const char *run_and_close(guard_run *g, char *why, size_t n) {
    while (cs_eventq_step(g->q)) {
    }
    const char *b = cs_system_symmetry_broken(g->s);
    snprintf(why, n, "%s", b ? b : "");
    cs_system_free(g->s);
    cs_net_destroy(&g->net);
    cs_eventq_free(g->q);
    return why[0] ? why : NULL;
}

/* What an event does: touch rank 0's executor, and push events at the
 * current instant with fresh keys (registered as the executor registers
 * them). */
typedef struct act {
    guard_run *g;
    int touch;
    uint64_t push[2]; /* fresh keys to push now (0 = none) */
    struct act *pushed[2];
    int unregistered; /* push without telling the guard (not as the executor does) */
} act;

static void act_ev(void *ctx, const cs_event *ev) {
    (void)ev;
    act *a = ctx;
    if (a->touch) cs_system_sym_dispatch(a->g->s, 0);
    for (int i = 0; i < 2; i++)
        if (a->push[i]) {
            cs_time now = cs_eventq_now(a->g->q);
            if (!a->unregistered) cs_system_sym_event(a->g->s, 0, now, a->push[i], 0);
            cs_eventq_push(a->g->q, now, a->push[i], act_ev, a->pushed[i], 0);
        }
}

static void at(guard_run *g, uint64_t key, act *a) { cs_eventq_push(g->q, T, key, act_ev, a, 0); }

/* E1 (cause 1) touches and pushes E2 (fresh key of rank 2), which touches:
 * E2 runs after E1 on every rank, so the pair is safe in class mode.  With
 * one representative the exemption is off (its replay orders an instant by
 * one cause's keys) and the guard stops. */
static void test_descendant(void **state) {
    (void)state;
    char why[400];
    for (int cls = 1; cls >= 0; cls--) {
        guard_run g;
        open_run(&g, cls);
        act e2 = {&g, 1, {0}, {0}, 0};
        act e1 = {&g, 1, {KEY(2, 100)}, {&e2}, 0};
        at(&g, KEY(1, 5), &e1);
        const char *b = run_and_close(&g, why, sizeof why);
        if (cls) {
            assert_null(b);
        } else {
            assert_non_null(b);
            tu_assert_has(b, "caused by ranks 1 and 2 both act on the executor");
        }
    }
}

/* E1 (1,5) touches and pushes E2 (2,100); E3 (1,6), an event of the same
 * cause that does not push E2, runs between them (its key sorts before E2's)
 * and touches too.  E2 comes after E1 everywhere but not necessarily after
 * E3: where the causes' ranks swap, (2,100) sorts before (1,6).  Stop. */
static void test_later_touch_of_the_cause(void **state) {
    (void)state;
    char why[400];
    guard_run g;
    open_run(&g, 1);
    act e2 = {&g, 1, {0}, {0}, 0};
    act e1 = {&g, 1, {KEY(2, 100)}, {&e2}, 0};
    act e3 = {&g, 1, {0}, {0}, 0};
    at(&g, KEY(1, 5), &e1);
    at(&g, KEY(1, 6), &e3);
    const char *b = run_and_close(&g, why, sizeof why);
    assert_non_null(b);
    tu_assert_has(b, "caused by ranks 1 and 2 both act on the executor");
}

/* The same E3 before E1 (key (1,4)): every touch by cause 1 comes before
 * E1, which pushes E2: safe. */
static void test_earlier_touch_of_the_cause(void **state) {
    (void)state;
    char why[400];
    guard_run g;
    open_run(&g, 1);
    act e2 = {&g, 1, {0}, {0}, 0};
    act e1 = {&g, 1, {KEY(2, 100)}, {&e2}, 0};
    act e3 = {&g, 1, {0}, {0}, 0};
    at(&g, KEY(1, 5), &e1);
    at(&g, KEY(1, 4), &e3);
    assert_null(run_and_close(&g, why, sizeof why));
}

/* A chain: E1 (cause 1) touches and pushes E2 (2,100), which pushes E3
 * (3,100), which touches: E3 descends from E1 through E2.  Safe. */
static void test_chain(void **state) {
    (void)state;
    char why[400];
    guard_run g;
    open_run(&g, 1);
    act e3 = {&g, 1, {0}, {0}, 0};
    act e2 = {&g, 0, {KEY(3, 100)}, {&e3}, 0};
    act e1 = {&g, 1, {KEY(2, 100)}, {&e2}, 0};
    at(&g, KEY(1, 5), &e1);
    assert_null(run_and_close(&g, why, sizeof why));
}

/* E2 (2,100) is pushed by an event of cause 3, which touches nothing; cause
 * 1 touched the executor before.  E2 does not descend from cause 1: stop. */
static void test_unrelated_cause(void **state) {
    (void)state;
    char why[400];
    guard_run g;
    open_run(&g, 1);
    act e2 = {&g, 1, {0}, {0}, 0};
    act e0 = {&g, 0, {KEY(2, 100)}, {&e2}, 0};
    act e1 = {&g, 1, {0}, {0}, 0};
    at(&g, KEY(1, 5), &e1);
    at(&g, KEY(3, 5), &e0);
    const char *b = run_and_close(&g, why, sizeof why);
    assert_non_null(b);
    tu_assert_has(b, "caused by ranks 1 and 2 both act on the executor");
}

/* A cause comes back: E1 (1,5) touches and pushes E2 (2,100), which
 * touches and pushes E5 with a fresh key of rank 1 (1,300), which touches.
 * E5 descends from E2, so it runs after it everywhere: safe.  Pushed
 * without telling the guard, E5 is just another event of cause 1 after E2
 * -- the two can swap -- and the guard must stop although cause 1 touched
 * the executor before (every touch is checked against every other cause,
 * not only a cause's first). */
static void test_cause_returns(void **state) {
    (void)state;
    char why[400];
    for (int unreg = 0; unreg <= 1; unreg++) {
        guard_run g;
        open_run(&g, 1);
        act e5 = {&g, 1, {0}, {0}, 0};
        act e2 = {&g, 1, {KEY(1, 300)}, {&e5}, unreg};
        act e1 = {&g, 1, {KEY(2, 100)}, {&e2}, 0};
        at(&g, KEY(1, 5), &e1);
        const char *b = run_and_close(&g, why, sizeof why);
        if (!unreg) {
            assert_null(b);
        } else {
            assert_non_null(b);
            tu_assert_has(b, "caused by ranks 2 and 1 both act on the executor");
        }
    }
}

int main(int argc, char **argv) {
    (void)argc, (void)argv;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_descendant),
        cmocka_unit_test(test_later_touch_of_the_cause),
        cmocka_unit_test(test_earlier_touch_of_the_cause),
        cmocka_unit_test(test_chain),
        cmocka_unit_test(test_unrelated_cause),
        cmocka_unit_test(test_cause_returns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
