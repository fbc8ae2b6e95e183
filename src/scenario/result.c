/*
 * result.c -- a run's results in memory: life cycle and the public
 * accessors of include/clustersim/clustersim.h (see result.h).
 */
#include "scenario/result.h"

#include <string.h>

#include "core/alloc.h"

cs_result *cs_result_new(void) { return cs_calloc(1, sizeof(cs_result)); }

void cs_result_free(cs_result *r) {
    if (!r) return;
    cs_engine_result_free(&r->sim);
    json_decref(r->config);
    json_decref(r->scenario);
    r->net.topology = NULL;
    cs_network_config_free(&r->net);
    cs_free(r->backend);
    cs_free(r->workload_prefix);
    cs_topo_free(r->topo);
    cs_net_link_report_free(&r->links);
    cs_coll_agg_free(r->colls);
    cs_free(r->rows);
    cs_free(r->attrib);
    cs_free(r);
}

uint64_t cs_result_time_ps(const cs_result *r) { return r->sim.sim_time; }
uint32_t cs_result_nranks(const cs_result *r) { return r->sim.nranks; }
uint64_t cs_result_events(const cs_result *r) { return r->sim.events; }

int cs_result_rank(const cs_result *r, uint32_t i, cs_rank_row *out) {
    if (i >= r->sim.nranks) return -1;
    const cs_rank_result *x = &r->sim.ranks[i];
    *out = (cs_rank_row){x->finish, x->compute, x->cpu, x->comm_busy, cs_rank_exposed_comm(x),
                         x->nodes, x->bytes_sent, x->bytes_recv,
                         x->cpu_only, x->comm_only, cs_rank_idle(x, r->sim.sim_time)};
    return 0;
}

size_t cs_result_collectives(const cs_result *r) { return r->nrows; }
uint64_t cs_result_collectives_total(const cs_result *r) { return r->colls ? cs_coll_agg_count(r->colls) : 0; }

int cs_result_collective(const cs_result *r, size_t i, cs_collective_row *out) {
    if (i >= r->nrows) return -1;
    *out = r->rows[i];
    return 0;
}

size_t cs_result_links(const cs_result *r) { return r->topo ? r->topo->nlinks : 0; }

int cs_result_link(const cs_result *r, size_t i, cs_link_row *out) {
    if (!r->topo || i >= r->topo->nlinks) return -1;
    const cs_link *l = &r->topo->links[i];
    memset(out, 0, sizeof *out);
    out->src = l->src;
    out->dst = l->dst;
    out->bandwidth_gbps = l->nominal_bw; /* bytes per ns = GB/s */
    if (i < r->links.nlinks) {
        const cs_net_link_stat *s = &r->links.links[i];
        out->bytes = s->bytes;
        out->busy_ps = s->busy;
        out->peak_utilization = s->peak_util;
    }
    return 0;
}

int cs_result_plan(const cs_result *r, cs_plan_row *out) {
    *out = r->plan;
    return r->plan.valid ? 0 : -1;
}

const char *cs_result_symmetry(const cs_result *r, uint32_t *simulated_ranks, const char **why) {
    if (simulated_ranks) *simulated_ranks = r->sim.simulated_ranks;
    if (why) *why = r->sym_why;
    return r->sim.symmetric == 2 ? "class" : r->sim.symmetric == 1 ? "representative" : "full";
}
