/*
 * metrics.c -- the metrics a sweep records per run (see metrics.h).  Times
 * are nanoseconds from the integer picosecond clock (exact to 1e-3 ns up
 * to 2^53 ps, about 2.5 hours); bytes are exact integers.
 */
#include "sweep/metrics.h"

#include "scenario/result.h"

static json_t *ns(cs_time ps) { return json_real((double)ps / 1000.0); }

/* The slowest rank (the first of equals): its row sets the step time. */
static const cs_rank_result *slowest(const cs_result *r) {
    const cs_rank_result *s = NULL;
    for (uint32_t i = 0; i < r->sim.nranks; i++)
        if (!s || r->sim.ranks[i].finish > s->finish) s = &r->sim.ranks[i];
    return s;
}

static json_t *m_time(const cs_result *r) { return ns(r->sim.sim_time); }
static json_t *m_ranks(const cs_result *r) { return json_integer(r->sim.nranks); }
static json_t *m_slowest(const cs_result *r) {
    const cs_rank_result *s = slowest(r);
    return s ? json_integer(s - r->sim.ranks) : NULL;
}
static json_t *m_compute(const cs_result *r) {
    const cs_rank_result *s = slowest(r);
    return s ? ns(s->compute) : NULL;
}
static json_t *m_exposed(const cs_result *r) {
    const cs_rank_result *s = slowest(r);
    return s ? ns(cs_rank_exposed_comm(s)) : NULL;
}
static json_t *m_comm_busy(const cs_result *r) {
    const cs_rank_result *s = slowest(r);
    return s ? ns(s->comm_busy) : NULL;
}
static json_t *m_cpu_only(const cs_result *r) {
    const cs_rank_result *s = slowest(r);
    return s ? ns(s->cpu_only) : NULL;
}
static json_t *m_comm_only(const cs_result *r) {
    const cs_rank_result *s = slowest(r);
    return s ? ns(s->comm_only) : NULL;
}
static json_t *m_idle(const cs_result *r) {
    const cs_rank_result *s = slowest(r);
    return s ? ns(cs_rank_idle(s, r->sim.sim_time)) : NULL;
}
static json_t *m_events(const cs_result *r) { return json_integer((json_int_t)r->sim.events); }
static json_t *m_simulated(const cs_result *r) { return json_integer(r->sim.simulated_ranks); }
static json_t *m_symmetry(const cs_result *r) { return json_string(cs_result_symmetry(r, NULL, NULL)); }
static json_t *m_colls(const cs_result *r) { return json_integer((json_int_t)r->sim.coll.collectives); }
static json_t *m_coll_bytes(const cs_result *r) { return json_integer((json_int_t)r->sim.coll.bytes_sent); }
static json_t *m_p2p_bytes(const cs_result *r) {
    uint64_t b = 0;
    for (uint32_t i = 0; i < r->sim.nranks; i++) b += r->sim.ranks[i].bytes_sent;
    return json_integer((json_int_t)b);
}
static json_t *m_healthy(const cs_result *r) { return r->has_healthy ? ns(r->healthy_time) : NULL; }
static json_t *m_slowdown(const cs_result *r) {
    if (!r->has_healthy || !r->healthy_time) return NULL;
    return json_real((double)r->sim.sim_time / (double)r->healthy_time);
}
static json_t *m_link_peak(const cs_result *r) {
    if (!r->links.nlinks) return NULL;
    double p = 0;
    for (uint32_t i = 0; i < r->links.nlinks; i++)
        if (r->links.links[i].peak_util > p) p = r->links.links[i].peak_util;
    return json_real(p);
}
static json_t *m_link_bytes(const cs_result *r) {
    if (!r->links.nlinks) return NULL;
    uint64_t b = 0;
    for (uint32_t i = 0; i < r->links.nlinks; i++)
        if (r->links.links[i].bytes > b) b = r->links.links[i].bytes;
    return json_integer((json_int_t)b);
}
static json_t *m_mfu(const cs_result *r) { return r->plan.valid ? json_real(r->plan.mfu) : NULL; }
static json_t *m_tput(const cs_result *r) { return r->plan.valid ? json_real(r->plan.throughput) : NULL; }
static json_t *m_tput_unit(const cs_result *r) { return r->plan.valid ? json_string(r->plan.throughput_unit) : NULL; }
static json_t *m_flops(const cs_result *r) { return r->plan.valid ? json_real(r->plan.model_flops) : NULL; }
static json_t *m_hwflops(const cs_result *r) { return r->plan.valid ? json_real(r->plan.hardware_flops) : NULL; }
static json_t *m_hfu(const cs_result *r) { return r->plan.valid ? json_real(r->plan.hfu) : NULL; }
static json_t *m_mem(const cs_result *r) {
    return r->plan.valid ? json_integer((json_int_t)r->plan.memory_worst_bytes) : NULL;
}
static json_t *m_power(const cs_result *r) { return r->cost.valid ? json_real(r->cost.power_w) : NULL; }
static json_t *m_energy(const cs_result *r) { return r->cost.valid ? json_real(r->cost.energy_step_j) : NULL; }
static json_t *m_energy_item(const cs_result *r) {
    return r->cost.valid && r->cost.items_per_step > 0 ? json_real(r->cost.energy_item_j) : NULL;
}
static json_t *m_capex(const cs_result *r) { return r->cost.valid ? json_real(r->cost.capex_usd) : NULL; }
static json_t *m_net_capex(const cs_result *r) {
    return r->cost.valid ? json_real(r->cost.capex_scaleup_usd + r->cost.capex_scaleout_usd) : NULL;
}
static json_t *m_step_cost(const cs_result *r) { return r->cost.valid ? json_real(r->cost.cost_step_usd) : NULL; }
static json_t *m_bubble(const cs_result *r) { return r->plan.valid ? ns(r->plan.rank0_bubble_ps) : NULL; }
static json_t *m_input(const cs_result *r) { return r->ingest.on ? ns(r->ingest.input_per_step) : NULL; }
static json_t *m_input_exposed(const cs_result *r) {
    if (!r->ingest.on) return NULL;
    return ns(r->sim.sim_time > r->ingest.no_input_step ? r->sim.sim_time - r->ingest.no_input_step : 0);
}

const cs_sweep_metric CS_SWEEP_METRICS[] = {
    {"time_ns", 1, "step time: the latest finish over all ranks", m_time},
    {"ranks", 0, "ranks (NPUs) of the run", m_ranks},
    {"slowest_rank", 0, "the rank that finished last", m_slowest},
    {"compute_ns", 1, "the slowest rank's GPU compute time", m_compute},
    {"exposed_comm_ns", 1, "the slowest rank's finish minus its compute time", m_exposed},
    {"comm_busy_ns", 1, "the slowest rank's time with communication in flight", m_comm_busy},
    {"cpu_only_ns", 1, "the slowest rank's time running a CPU op while its GPU is idle", m_cpu_only},
    {"comm_only_ns", 1, "the slowest rank's time with communication in flight and neither GPU nor CPU computing",
     m_comm_only},
    {"idle_ns", 1, "the slowest rank's time running nothing (compute + cpu_only + comm_only + idle = time)", m_idle},
    {"collectives", 0, "collective instances completed", m_colls},
    {"collective_bytes", 1, "bytes the collectives sent, all ranks", m_coll_bytes},
    {"p2p_bytes", 1, "point-to-point payload bytes sent, all ranks", m_p2p_bytes},
    {"max_link_utilization", 1, "graph backends: the highest peak utilization of any link (0..1)", m_link_peak},
    {"max_link_bytes", 1, "graph backends: the bytes of the busiest link", m_link_bytes},
    {"healthy_time_ns", 1, "run.compare-healthy: the step time without failures", m_healthy},
    {"slowdown", 1, "run.compare-healthy: time_ns / healthy_time_ns", m_slowdown},
    {"mfu", 1, "plans: model FLOPs utilization (0..1)", m_mfu},
    {"throughput", 1, "plans: samples of throughput_unit per second", m_tput},
    {"throughput_unit", 0, "plans: tokens/s, images/s or samples/s", m_tput_unit},
    {"model_flops", 1, "plans: model FLOPs per step (without recomputation)", m_flops},
    {"hardware_flops", 1, "plans: FLOPs executed per step (with recomputation)", m_hwflops},
    {"hfu", 1, "plans: hardware FLOPs utilization (0..1)", m_hfu},
    {"memory_worst_bytes", 1, "plans: HBM per GPU of the worst pipeline stage", m_mem},
    {"bubble_ns", 1, "plans: rank 0's pipeline bubble", m_bubble},
    {"input_per_step_ns", 1, "plans with ingest.*: rank 0's data-loader time per step (docs/ingest.md)", m_input},
    {"exposed_input_ns", 1, "plans with ingest.*: the GPU's wait for input, time_ns minus the step without the "
                            "input pipeline", m_input_exposed},
    {"power_w", 1, "cost model: average facility power over the step (docs/cost.md)", m_power},
    {"energy_per_step_j", 1, "cost model: facility energy of one step", m_energy},
    {"energy_per_item_j", 1, "cost model, plans: energy per token, image or sample (throughput_unit)", m_energy_item},
    {"capex_usd", 1, "cost model: purchase price of the cluster", m_capex},
    {"network_capex_usd", 1, "cost model: purchase price of the scale-up and scale-out network", m_net_capex},
    {"cost_per_step_usd", 1, "cost model: hardware amortized plus energy, per step", m_step_cost},
    {"events", 0, "events the run represents", m_events},
    {"simulated_ranks", 0, "ranks whose events ran (symmetry)", m_simulated},
    {"symmetry", 0, "full, representative or class", m_symmetry},
};
const size_t CS_SWEEP_NMETRICS = sizeof CS_SWEEP_METRICS / sizeof CS_SWEEP_METRICS[0];

json_t *cs_sweep_metrics(const cs_result *r) {
    json_t *o = json_object();
    for (size_t i = 0; i < CS_SWEEP_NMETRICS; i++) {
        json_t *v = CS_SWEEP_METRICS[i].get(r);
        if (v) json_object_set_new(o, CS_SWEEP_METRICS[i].name, v);
    }
    return o;
}
