/*
 * test_cost.c -- the cost and power model (cost/cost.h) against numbers
 * worked by hand: a two-dimension cluster with every price and power set to
 * round values (the arithmetic is in the comments), the tiers of a folded
 * Clos, the graph count of a network equal to the dimension formula on the
 * graph the dimensions build, a missing device figure reported (not
 * invented) and contradictory power figures refused by name.
 */
#include "testutil.h"

#include <math.h>
#include <string.h>

#include "cost/cost.h"
#include "topology/topology.h"

static void params(cs_cost_params *p) {
    memset(p, 0, sizeof *p);
    p->npus_per_host = 4;
    p->host_price_usd = 1000;
    p->host_power_w = 100;
    p->storage_npus_per_host = 8;
    p->storage_host_price_usd = 500;
    p->storage_host_power_w = 50;
    p->scaleup_link_usd_per_gbps = 1;
    p->scaleup_switch_usd_per_gbps = 2;
    p->scaleup_w_per_gbps = 0.1;
    p->nic_usd_per_gbps = 10;
    p->nic_w_per_gbps = 1;
    p->scaleout_link_usd_per_gbps = 3;
    p->scaleout_switch_usd_per_gbps = 5;
    p->switch_port_w_per_gbps = 0.5;
    p->optic_w_per_gbps = 0.25;
    p->switch_radix = 4;
    p->remote_usd_per_gb = 2;
    p->remote_w_per_gb = 0.5;
    p->pue = 1.5;
    p->electricity_usd_per_kwh = 0.1;
    p->amortization_years = 1;
}

static cs_device device(double tdp, double idle, double price) {
    cs_device d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "X");
    d.tdp_w = tdp;
    d.idle_w = idle;
    d.price_usd = price;
    return d;
}

static cs_network_config net2(cs_topo_kind k0, uint32_t n0, double b0, cs_topo_kind k1, uint32_t n1, double b1) {
    cs_network_config n;
    memset(&n, 0, sizeof n);
    n.ndims = 2;
    n.topo[0] = k0;
    n.npus[0] = n0;
    n.bandwidth_gbps[0] = b0;
    n.topo[1] = k1;
    n.npus[1] = n1;
    n.bandwidth_gbps[1] = b1;
    n.total_npus = (uint64_t)n0 * n1;
    return n;
}

#define NEAR(a, b) near((double)(a), (double)(b))
static void near(double a, double b) {
    if (!(fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b)))) fail_msg("%.17g != %.17g", a, b);
}

static void test_hand_worked(void **state) {
    (void)state;
    cs_cost_params p;
    params(&p);
    cs_device d = device(400, 100, 10000);
    /* Switch(4) at 100 GB/s inside a host of 4; Switch(8) at 10 GB/s across hosts: 8 > radix 4, so
     * a two-tier Clos (2 (4/2)^2 = 8): 3 switch ports and 2 cables per NPU.  32 NPUs. */
    cs_network_config n = net2(CS_TOPO_SWITCH, 4, 100, CS_TOPO_SWITCH, 8, 10);
    cs_time comp[32];
    for (int i = 0; i < 32; i++) comp[i] = i % 2 ? 500000000000ull : 2000000000000ull; /* 0.5 s; 2 s capped at 1 */
    cs_cost_report r;
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_cost_eval(&p, &d, &n, NULL, comp, 32, 1000000000000ull, 1000, "token", 0, &r, &err), CS_OK);
    assert_true(r.valid);
    assert_int_equal(r.hosts, 8);
    assert_int_equal(r.storage_hosts, 4);
    NEAR(r.capex_scaleup_usd, 32 * 100 * (1 + 2));                     /* 9,600 */
    NEAR(r.power_scaleup_w, 32 * 100 * 0.1);                           /* 320 */
    NEAR(r.capex_scaleout_usd, 32 * 10 * (10 + 3 * 5 + 2 * 3));        /* 9,920 */
    NEAR(r.power_scaleout_w, 32 * 10 * (1 + 3 * 0.5 + 2 * 2 * 0.25));  /* 1,120 */
    NEAR(r.scaleout_switch_ports, 96);
    NEAR(r.scaleout_cables, 64);
    NEAR(r.capex_usd, 320000 + 8000 + 2000 + 9600 + 9920);             /* 349,520 */
    NEAR(r.npu_utilization, 0.75);                                     /* (16 x 1 + 16 x 0.5) / 32 */
    NEAR(r.power_npu_w, 100 * 32 + 300 * 24);                          /* 10,400 */
    NEAR(r.power_w, 1.5 * (10400 + 800 + 200 + 320 + 1120));           /* 19,260 */
    NEAR(r.power_facility_w, 0.5 * 12840);
    NEAR(r.energy_step_j, 19260);
    NEAR(r.energy_item_j, 19.26);
    NEAR(r.cost_step_usd, 349520 / (365.25 * 86400) + 19260 / 3.6e6 * 0.1);
    /* 1,000 GB of offloaded state in remote memory: $2 and 0.5 W per GB */
    assert_int_equal(cs_cost_eval(&p, &d, &n, NULL, comp, 32, 1000000000000ull, 1000, "token", 1e12, &r, &err), CS_OK);
    NEAR(r.capex_remote_usd, 2000);
    NEAR(r.capex_usd, 349520 + 2000);
    NEAR(r.power_remote_w, 500);
    NEAR(r.power_w, 1.5 * (12840 + 500));
    assert_int_equal(cs_cost_eval(&p, &d, &n, NULL, comp, 32, 1000000000000ull, 1000, "token", 0, &r, &err), CS_OK);
    /* copper in tier 1 (NIC to leaf): transceivers on the leaf-spine cable only; both tiers: none */
    p.scaleout_copper_tiers = 1;
    assert_int_equal(cs_cost_eval(&p, &d, &n, NULL, comp, 32, 1000000000000ull, 0, NULL, 0, &r, &err), CS_OK);
    NEAR(r.power_scaleout_w, 32 * 10 * (1 + 3 * 0.5 + 2 * 1 * 0.25));
    p.scaleout_copper_tiers = 2;
    assert_int_equal(cs_cost_eval(&p, &d, &n, NULL, comp, 32, 1000000000000ull, 0, NULL, 0, &r, &err), CS_OK);
    NEAR(r.power_scaleout_w, 32 * 10 * (1 + 3 * 0.5));
    assert_true(r.energy_item_j == 0 && r.items_per_step == 0);
    /* overrides win over the device */
    p.npu_power_w = 500;
    p.npu_idle_power_w = 200;
    p.npu_price_usd = 1;
    assert_int_equal(cs_cost_eval(&p, &d, &n, NULL, comp, 32, 1000000000000ull, 0, NULL, 0, &r, &err), CS_OK);
    NEAR(r.power_npu_w, 200 * 32 + 300 * 24);
    NEAR(r.capex_npu_usd, 32);
}

/* Every NPU computing the same time: the uniform entry point = the per-rank one. */
static void test_uniform_equals_per_rank(void **state) {
    (void)state;
    cs_cost_params p;
    params(&p);
    cs_device d = device(400, 100, 10000);
    cs_network_config n = net2(CS_TOPO_SWITCH, 4, 100, CS_TOPO_SWITCH, 8, 10);
    cs_time comp[32];
    for (int i = 0; i < 32; i++) comp[i] = 700000000000ull; /* 0.7 s of a 1 s step */
    cs_cost_report a, b;
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_cost_eval(&p, &d, &n, NULL, comp, 32, 1000000000000ull, 10, "token", 0, &a, &err), CS_OK);
    assert_int_equal(cs_cost_eval_uniform(&p, &d, &n, NULL, comp[0], 32, 1000000000000ull, 10, "token", 0, &b, &err),
                     CS_OK);
    NEAR(b.power_w, a.power_w);
    NEAR(b.energy_step_j, a.energy_step_j);
    NEAR(b.cost_step_usd, a.cost_step_usd);
    NEAR(b.npu_utilization, 0.7);
}

static void test_clos_tiers(void **state) {
    (void)state;
    assert_int_equal(cs_cost_clos_tiers(64, 64), 1);
    assert_int_equal(cs_cost_clos_tiers(65, 64), 2);   /* 2 x 32 = 64 < 65 <= 2 x 32^2 */
    assert_int_equal(cs_cost_clos_tiers(2048, 64), 2);
    assert_int_equal(cs_cost_clos_tiers(2049, 64), 3);
    assert_int_equal(cs_cost_clos_tiers(8, 4), 2);
    assert_int_equal(cs_cost_clos_tiers(9, 4), 3);     /* 2 x 2^2 = 8 < 9 <= 16 */
}

/* The graph count on the graph the dimensions build (build_astra.c) equals the dimension formula. */
static void graph_equals_dims_copper(cs_network_config n, uint32_t per_host, int copper) {
    cs_cost_params p;
    params(&p);
    p.scaleout_copper_tiers = copper;
    p.npus_per_host = (int)per_host;
    p.switch_radix = 1000; /* one switch per switched dimension, as the graph has */
    cs_device d = device(400, 100, 10000);
    uint32_t nn = (uint32_t)n.total_npus;
    cs_time *comp = calloc(nn, sizeof *comp);
    cs_cost_report a, b;
    cs_error err;
    cs_error_clear(&err);
    cs_topo *t = cs_topo_build_astra(&n);
    assert_non_null(t);
    assert_int_equal(cs_cost_eval(&p, &d, &n, NULL, comp, nn, 1000, 0, NULL, 0, &a, &err), CS_OK);
    assert_int_equal(cs_cost_eval(&p, &d, &n, t, comp, nn, 1000, 0, NULL, 0, &b, &err), CS_OK);
    assert_true(a.capex_scaleup_usd > 0 || a.capex_scaleout_usd > 0);
    NEAR(b.capex_scaleup_usd, a.capex_scaleup_usd);
    NEAR(b.capex_scaleout_usd, a.capex_scaleout_usd);
    NEAR(b.power_scaleup_w, a.power_scaleup_w);
    NEAR(b.power_scaleout_w, a.power_scaleout_w);
    NEAR(b.scaleout_switch_ports, a.scaleout_switch_ports);
    NEAR(b.scaleout_cables, a.scaleout_cables);
    cs_topo_free(t);
    free(comp);
}

static void graph_equals_dims(cs_network_config n, uint32_t per_host) {
    for (int copper = 0; copper <= 1; copper++) graph_equals_dims_copper(n, per_host, copper);
}

static void test_graph_equals_dims(void **state) {
    (void)state;
    /* scale-up ring of 4, scale-out fully connected 3 */
    graph_equals_dims(net2(CS_TOPO_RING, 4, 100, CS_TOPO_FULLY_CONNECTED, 3, 20), 4);
    /* scale-up switch of 8, scale-out ring of 2 (one cable) */
    graph_equals_dims(net2(CS_TOPO_SWITCH, 8, 300, CS_TOPO_RING, 2, 25), 8);
    /* scale-up fully connected 2, scale-out switch of 5 and ring of 5 across hosts (per host 2) */
    graph_equals_dims(net2(CS_TOPO_FULLY_CONNECTED, 2, 50, CS_TOPO_SWITCH, 5, 12.5), 2);
    graph_equals_dims(net2(CS_TOPO_RING, 2, 50, CS_TOPO_RING, 5, 12.5), 2);
    /* everything scale-out (one NPU per host) */
    graph_equals_dims(net2(CS_TOPO_SWITCH, 4, 50, CS_TOPO_FULLY_CONNECTED, 4, 12.5), 1);
}

static void test_missing_and_contradictory(void **state) {
    (void)state;
    cs_cost_params p;
    params(&p);
    cs_network_config n = net2(CS_TOPO_SWITCH, 4, 100, CS_TOPO_SWITCH, 2, 10);
    cs_time comp[8] = {0};
    cs_cost_report r;
    cs_error err;
    cs_error_clear(&err);
    cs_device d = device(0, 0, 10000); /* no power figure */
    assert_int_equal(cs_cost_eval(&p, &d, &n, NULL, comp, 8, 1000, 0, NULL, 0, &r, &err), CS_OK);
    assert_false(r.valid);
    assert_non_null(strstr(r.why, "cost.npu-power-w"));
    d = device(400, 100, 0); /* no price */
    assert_int_equal(cs_cost_eval(&p, &d, &n, NULL, comp, 8, 1000, 0, NULL, 0, &r, &err), CS_OK);
    assert_false(r.valid);
    assert_non_null(strstr(r.why, "cost.npu-price-usd"));
    d = device(400, 100, 10000);
    p.npu_idle_power_w = 450; /* above the device's 400 W */
    assert_int_equal(cs_cost_eval(&p, &d, &n, NULL, comp, 8, 1000, 0, NULL, 0, &r, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "cost.npu-idle-power-w"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_worked),
        cmocka_unit_test(test_clos_tiers),
        cmocka_unit_test(test_uniform_equals_per_rank),
        cmocka_unit_test(test_graph_equals_dims),
        cmocka_unit_test(test_missing_and_contradictory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
