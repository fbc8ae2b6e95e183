/*
 * cost.c -- the cost and power model (see cost.h; defaults and their
 * sources in docs/cost.md).
 */
#include "cost/cost.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"

#define C(f) offsetof(cs_cost_params, f)
#define NUM(k, f, d, u, h) \
    {.key = k, .type = CS_OPT_NUM, .def = d, .min = 0, .max = 1e12, .unit = u, .off = C(f), .help = h}
#define GBPS "US$ per GB/s"
const cs_opt CS_COST_OPTS[CS_COST_NKEYS] = {
    NUM("npu-price-usd", npu_price_usd, 0, "US$", "accelerator price; 0 = the device's figure (device.name)"),
    NUM("npu-power-w", npu_power_w, 0, "W", "accelerator board power at full load (TDP); 0 = the device's figure"),
    NUM("npu-idle-power-w", npu_idle_power_w, 0, "W",
        "accelerator board power idle (communication-only and waiting time); 0 = the device's figure"),
    {.key = "npus-per-host", .type = CS_OPT_INT, .def = 8, .min = 1, .max = 1000000, .off = C(npus_per_host),
     .help = "accelerators per server; dimensions (or graph links) inside one server are scale-up"},
    NUM("host-price-usd", host_price_usd, 60000, "US$",
        "server without its accelerators and scale-out NICs (CPUs, DRAM, chassis, power supplies)"),
    NUM("host-power-w", host_power_w, 1500, "W", "server power without accelerators and NICs, while training"),
    {.key = "storage-npus-per-host", .type = CS_OPT_INT, .def = 64, .min = 0, .max = 1000000000,
     .off = C(storage_npus_per_host),
     .help = "accelerators served by one storage / preprocessing host of the ingest path; 0 = none counted"},
    NUM("storage-host-price-usd", storage_host_price_usd, 50000, "US$", "storage / preprocessing host"),
    NUM("storage-host-power-w", storage_host_power_w, 1200, "W", "storage / preprocessing host power"),
    NUM("scaleup-link-usd-per-gbps", scaleup_link_usd_per_gbps, 4.0, GBPS,
        "scale-up (NVLink-class) links per GB/s of an NPU's bandwidth (LIBRA)"),
    NUM("scaleup-switch-usd-per-gbps", scaleup_switch_usd_per_gbps, 13.0, GBPS,
        "scale-up switches per GB/s of an NPU's bandwidth in a switched scale-up dimension (LIBRA)"),
    NUM("scaleup-w-per-gbps", scaleup_w_per_gbps, 0.1, "W per GB/s",
        "scale-up links and switches, per GB/s of an NPU's scale-up bandwidth"),
    NUM("nic-usd-per-gbps", nic_usd_per_gbps, 31.6, GBPS, "scale-out NIC port (LIBRA)"),
    NUM("nic-w-per-gbps", nic_w_per_gbps, 0.5, "W per GB/s", "scale-out NIC port power"),
    NUM("scaleout-link-usd-per-gbps", scaleout_link_usd_per_gbps, 7.8, GBPS,
        "scale-out cable with its transceivers (LIBRA)"),
    NUM("scaleout-switch-usd-per-gbps", scaleout_switch_usd_per_gbps, 18.0, GBPS, "scale-out switch port (LIBRA)"),
    NUM("switch-port-w-per-gbps", switch_port_w_per_gbps, 0.25, "W per GB/s",
        "scale-out switch port power (without transceivers)"),
    NUM("optic-w-per-gbps", optic_w_per_gbps, 0.2, "W per GB/s",
        "one optical transceiver; a scale-out cable has two"),
    {.key = "scaleout-copper-tiers", .type = CS_OPT_INT, .min = 0, .max = 64, .off = C(scaleout_copper_tiers),
     .help = "reach: the lowest N tiers of scale-out cables are copper (DAC, inside a rack: no transceivers); "
             "tier 1 = the cables at NPUs and NICs; 0 = every scale-out cable optical"},
    {.key = "switch-radix", .type = CS_OPT_INT, .def = 64, .min = 2, .max = 1000000, .off = C(switch_radix),
     .help = "ports of a scale-out switch: a switched dimension larger than this is a multi-tier Clos"},
    NUM("remote-memory-usd-per-gb", remote_usd_per_gb, 4.0, "US$ per GB",
        "remote (CXL or host) memory holding offloaded state (plan.offload-optimizer), per GB of capacity"),
    NUM("remote-memory-w-per-gb", remote_w_per_gb, 0.375, "W per GB", "remote memory power per GB of capacity"),
    {.key = "pue", .type = CS_OPT_NUM, .def = 1.1, .min = 1, .max = 10, .off = C(pue),
     .help = "power usage effectiveness: facility power / IT power (cooling, power distribution)"},
    NUM("electricity-usd-per-kwh", electricity_usd_per_kwh, 0.08, "US$ per kWh", "energy price"),
    {.key = "amortization-years", .type = CS_OPT_NUM, .def = 4, .min = 0, .min_open = 1, .max = 100,
     .unit = "years", .off = C(amortization_years), .help = "hardware life over which the capital is spread"},
};
_Static_assert(sizeof CS_COST_OPTS / sizeof CS_COST_OPTS[0] == CS_COST_NKEYS, "CS_COST_NKEYS");
#undef NUM
#undef GBPS

uint32_t cs_cost_clos_tiers(uint64_t k, uint32_t radix) {
    if (k <= radix) return 1;
    double half = radix / 2.0, cap = 2.0 * half;
    uint32_t l = 1;
    while (cap < (double)k && l < 64) {
        cap *= half;
        l++;
    }
    return l;
}

/* ---- the network from the logical dimensions ------------------------------------------- */

static void net_dims(const cs_cost_params *p, const cs_network_config *net, cs_cost_report *o) {
    uint64_t prod = 1;
    double n = (double)net->total_npus;
    for (int d = 0; d < net->ndims; d++) {
        uint32_t k = net->npus[d];
        prod *= k;
        double b = net->bandwidth_gbps[d];
        if (k <= 1) continue;
        int up = prod <= (uint64_t)p->npus_per_host;
        /* per NPU, as the graph of the dimension has them (build_astra.c): NPU ends, switch ports, cables */
        double ends, ports = 0, cables;
        switch (net->topo[d]) {
        case CS_TOPO_RING: ends = k == 2 ? 1 : 2; cables = k == 2 ? 0.5 : 1; break;
        case CS_TOPO_FULLY_CONNECTED: ends = k - 1; cables = (k - 1) / 2.0; break;
        default: {
            uint32_t l = up ? 1 : cs_cost_clos_tiers(k, (uint32_t)p->switch_radix);
            ends = 1;
            ports = 2.0 * l - 1;
            cables = l;
        }
        }
        if (up) {
            o->dim_usd_per_gbps[d] = n * (cables * p->scaleup_link_usd_per_gbps + ports * p->scaleup_switch_usd_per_gbps);
            o->capex_scaleup_usd += b * o->dim_usd_per_gbps[d];
            o->power_scaleup_w += n * b * ends * p->scaleup_w_per_gbps;
            continue;
        }
        o->dim_usd_per_gbps[d] = n * (ends * p->nic_usd_per_gbps + ports * p->scaleout_switch_usd_per_gbps +
                                      cables * p->scaleout_link_usd_per_gbps);
        o->capex_scaleout_usd += b * o->dim_usd_per_gbps[d];
        /* the first cable per NPU is tier 1 (ring and fully connected: all of them), the others tiers 2.. */
        double optical = net->topo[d] == CS_TOPO_SWITCH ? fmax(0, cables - p->scaleout_copper_tiers)
                                                        : p->scaleout_copper_tiers ? 0 : cables;
        o->power_scaleout_w += n * b * (ends * p->nic_w_per_gbps + ports * p->switch_port_w_per_gbps +
                                        2 * optical * p->optic_w_per_gbps);
        o->scaleout_switch_ports += n * ports;
        o->scaleout_cables += n * cables;
    }
}

/* ---- the network from the physical graph ------------------------------------------------ */

/* A switch is inside a host when every neighbour is an NPU of that host. */
static int *local_switch_hosts(const cs_topo *t, uint32_t per_host) {
    int *host = cs_malloc((size_t)t->nnodes * sizeof *host);
    for (uint32_t v = 0; v < t->nnodes; v++) {
        host[v] = v < t->nnpus ? (int)(v / per_host) : -1;
        if (t->kind[v] != CS_NODE_SWITCH) continue;
        int h = -2; /* -2: no neighbour yet */
        for (uint32_t i = t->out_off[v]; i < t->out_off[v + 1] && h != -1; i++) {
            uint32_t u = t->links[t->out_idx[i]].dst;
            int hu = u < t->nnpus ? (int)(u / per_host) : -1;
            h = h == -2 ? hu : h == hu ? h : -1;
        }
        for (uint32_t i = t->in_off[v]; i < t->in_off[v + 1] && h != -1; i++) {
            uint32_t u = t->links[t->in_idx[i]].src;
            int hu = u < t->nnpus ? (int)(u / per_host) : -1;
            h = h == -2 ? hu : h == hu ? h : -1;
        }
        host[v] = h < 0 ? -1 : h;
    }
    return host;
}

static void net_graph(const cs_cost_params *p, const cs_topo *t, cs_cost_report *o) {
    int *host = local_switch_hosts(t, (uint32_t)p->npus_per_host);
    const double giB = 1073741824.0 / 1e9; /* graph bytes/ns -> GB/s as the files write it */
    for (uint32_t i = 0; i < t->nlinks; i++) {
        const cs_link *l = &t->links[i];
        double b = l->nominal_bw / giB / 2; /* half a cable per direction */
        int ks = t->kind[l->src], kd = t->kind[l->dst];
        if ((ks == CS_NODE_NIC && kd == CS_NODE_NPU) || (ks == CS_NODE_NPU && kd == CS_NODE_NIC)) continue;
        if (host[l->src] >= 0 && host[l->src] == host[l->dst]) { /* scale-up */
            int sw = (ks == CS_NODE_SWITCH) + (kd == CS_NODE_SWITCH);
            o->capex_scaleup_usd += b * (p->scaleup_link_usd_per_gbps + sw * p->scaleup_switch_usd_per_gbps);
            /* power per GB/s of an NPU's bandwidth: one NPU end per NPU-switch cable, two per NPU-NPU cable */
            o->power_scaleup_w += b * (2 - sw) * p->scaleup_w_per_gbps;
            continue;
        }
        int sw = (ks == CS_NODE_SWITCH) + (kd == CS_NODE_SWITCH);
        o->capex_scaleout_usd += b * ((2 - sw) * p->nic_usd_per_gbps + sw * p->scaleout_switch_usd_per_gbps +
                                      p->scaleout_link_usd_per_gbps);
        int tier = sw == 2 ? 2 : 1; /* switch to switch: tier 2 and above */
        o->power_scaleout_w += b * ((2 - sw) * p->nic_w_per_gbps + sw * p->switch_port_w_per_gbps +
                                    (tier <= p->scaleout_copper_tiers ? 0 : 2 * p->optic_w_per_gbps));
        o->scaleout_switch_ports += sw / 2.0;
        o->scaleout_cables += 0.5;
    }
    cs_free(host);
}

/* The model with busy_s, the NPUs' GPU compute seconds (each capped at the step), summed. */
static int eval(const cs_cost_params *p, const cs_device *dev, const cs_network_config *net, const cs_topo *topo,
                double busy_s, uint32_t nnpus, cs_time step_ps, double items, const char *item, double remote_bytes,
                cs_cost_report *o, cs_error *err);

int cs_cost_eval(const cs_cost_params *p, const cs_device *dev, const cs_network_config *net, const cs_topo *topo,
                 const cs_time *compute_ps, uint32_t nnpus, cs_time step_ps, double items, const char *item,
                 double remote_bytes, cs_cost_report *o, cs_error *err) {
    double busy_s = 0;
    for (uint32_t i = 0; i < nnpus; i++) busy_s += cs_time_as_s_f(compute_ps[i] < step_ps ? compute_ps[i] : step_ps);
    return eval(p, dev, net, topo, busy_s, nnpus, step_ps, items, item, remote_bytes, o, err);
}

int cs_cost_eval_uniform(const cs_cost_params *p, const cs_device *dev, const cs_network_config *net,
                         const cs_topo *topo, cs_time compute_ps, uint32_t nnpus, cs_time step_ps, double items,
                         const char *item, double remote_bytes, cs_cost_report *o, cs_error *err) {
    double busy_s = (double)nnpus * cs_time_as_s_f(compute_ps < step_ps ? compute_ps : step_ps);
    return eval(p, dev, net, topo, busy_s, nnpus, step_ps, items, item, remote_bytes, o, err);
}

static int eval(const cs_cost_params *p, const cs_device *dev, const cs_network_config *net, const cs_topo *topo,
                double busy_s, uint32_t nnpus, cs_time step_ps, double items, const char *item, double remote_bytes,
                cs_cost_report *o, cs_error *err) {
    memset(o, 0, sizeof *o);
    snprintf(o->device, sizeof o->device, "%s", dev->name);
    double price = p->npu_price_usd > 0 ? p->npu_price_usd : dev->price_usd;
    double tdp = p->npu_power_w > 0 ? p->npu_power_w : dev->tdp_w;
    double idle = p->npu_idle_power_w > 0 ? p->npu_idle_power_w : dev->idle_w;
    if (idle > tdp && tdp > 0)
        return CS_ERR(err, CS_EINVAL,
                      "cost.npu-idle-power-w: expected at most the full-load power (%g W, %s), got %g W", tdp,
                      p->npu_power_w > 0 ? "cost.npu-power-w" : dev->name, idle);
    o->valid = 1;
    if (!(tdp > 0)) {
        o->valid = 0;
        snprintf(o->why, sizeof o->why, "device %s has no power figure: set cost.npu-power-w (or tdp_w in its file)",
                 dev->name);
    } else if (!(price > 0)) {
        o->valid = 0;
        snprintf(o->why, sizeof o->why, "device %s has no price: set cost.npu-price-usd (or price_usd in its file)",
                 dev->name);
    }
    o->npus = nnpus;
    o->hosts = (uint32_t)((nnpus + (uint64_t)p->npus_per_host - 1) / (uint64_t)p->npus_per_host);
    o->storage_hosts = p->storage_npus_per_host
                           ? (uint32_t)((nnpus + (uint64_t)p->storage_npus_per_host - 1) /
                                        (uint64_t)p->storage_npus_per_host)
                           : 0;
    o->step_s = cs_time_as_s_f(step_ps);
    /* accelerators: idle + (tdp - idle) * utilization, integrated over the step */
    o->npu_utilization = o->step_s > 0 && nnpus ? busy_s / (o->step_s * nnpus) : 0;
    double e_npu = idle * o->step_s * nnpus + (tdp - idle) * busy_s;
    o->power_npu_w = o->step_s > 0 ? e_npu / o->step_s : idle * nnpus;
    o->power_host_w = o->hosts * p->host_power_w;
    o->power_storage_w = o->storage_hosts * p->storage_host_power_w;
    if (topo) net_graph(p, topo, o);
    else net_dims(p, net, o);
    o->net_from_dims = !topo;
    o->remote_bytes = remote_bytes > 0 ? remote_bytes : 0;
    o->capex_remote_usd = o->remote_bytes / 1e9 * p->remote_usd_per_gb;
    o->power_remote_w = o->remote_bytes / 1e9 * p->remote_w_per_gb;
    double it_w = o->power_npu_w + o->power_host_w + o->power_storage_w + o->power_scaleup_w + o->power_scaleout_w +
                  o->power_remote_w;
    o->power_facility_w = it_w * (p->pue - 1);
    o->power_w = it_w + o->power_facility_w;
    o->capex_npu_usd = price * nnpus;
    o->capex_host_usd = p->host_price_usd * o->hosts;
    o->capex_storage_usd = p->storage_host_price_usd * o->storage_hosts;
    o->capex_usd = o->capex_npu_usd + o->capex_host_usd + o->capex_storage_usd + o->capex_scaleup_usd +
                   o->capex_scaleout_usd + o->capex_remote_usd;
    o->energy_step_j = o->power_w * o->step_s;
    double life_s = p->amortization_years * 365.25 * 86400.0;
    o->cost_step_usd = o->step_s * o->capex_usd / life_s + o->energy_step_j / 3.6e6 * p->electricity_usd_per_kwh;
    o->items_per_step = items > 0 ? items : 0;
    snprintf(o->item, sizeof o->item, "%s", item ? item : "");
    o->energy_item_j = o->items_per_step > 0 ? o->energy_step_j / o->items_per_step : 0;
    return CS_OK;
}

json_t *cs_cost_report_json(const cs_cost_report *r) {
    json_t *j = json_object();
    json_object_set_new(j, "valid", json_boolean(r->valid));
    if (!r->valid) {
        json_object_set_new(j, "why", json_string(r->why));
        return j;
    }
    json_object_set_new(j, "device", json_string(r->device));
    json_object_set_new(j, "npus", json_integer(r->npus));
    json_object_set_new(j, "hosts", json_integer(r->hosts));
    json_object_set_new(j, "storage_hosts", json_integer(r->storage_hosts));
    json_t *c = json_object();
    json_object_set_new(c, "total_usd", json_real(r->capex_usd));
    json_object_set_new(c, "npus_usd", json_real(r->capex_npu_usd));
    json_object_set_new(c, "hosts_usd", json_real(r->capex_host_usd));
    json_object_set_new(c, "storage_usd", json_real(r->capex_storage_usd));
    json_object_set_new(c, "scaleup_network_usd", json_real(r->capex_scaleup_usd));
    json_object_set_new(c, "scaleout_network_usd", json_real(r->capex_scaleout_usd));
    json_object_set_new(c, "remote_memory_usd", json_real(r->capex_remote_usd));
    json_object_set_new(j, "capex", c);
    json_t *p = json_object();
    json_object_set_new(p, "total_w", json_real(r->power_w));
    json_object_set_new(p, "npus_w", json_real(r->power_npu_w));
    json_object_set_new(p, "hosts_w", json_real(r->power_host_w));
    json_object_set_new(p, "storage_w", json_real(r->power_storage_w));
    json_object_set_new(p, "scaleup_network_w", json_real(r->power_scaleup_w));
    json_object_set_new(p, "scaleout_network_w", json_real(r->power_scaleout_w));
    json_object_set_new(p, "remote_memory_w", json_real(r->power_remote_w));
    json_object_set_new(p, "facility_overhead_w", json_real(r->power_facility_w));
    json_object_set_new(j, "average_power", p);
    json_object_set_new(j, "npu_utilization", json_real(r->npu_utilization));
    json_object_set_new(j, "remote_memory_bytes", json_real(r->remote_bytes));
    json_object_set_new(j, "scaleout_switch_ports", json_real(r->scaleout_switch_ports));
    json_object_set_new(j, "scaleout_cables", json_real(r->scaleout_cables));
    json_object_set_new(j, "energy_per_step_j", json_real(r->energy_step_j));
    json_object_set_new(j, "cost_per_step_usd", json_real(r->cost_step_usd));
    if (r->items_per_step > 0) {
        json_object_set_new(j, "items_per_step", json_real(r->items_per_step));
        json_object_set_new(j, "item", json_string(r->item));
        json_object_set_new(j, "energy_per_item_j", json_real(r->energy_item_j));
    }
    return j;
}

static void money(double usd, char *buf, size_t n) {
    if (usd >= 1e9) snprintf(buf, n, "$%.2f B", usd / 1e9);
    else if (usd >= 1e6) snprintf(buf, n, "$%.2f M", usd / 1e6);
    else if (usd >= 1e3) snprintf(buf, n, "$%.1f k", usd / 1e3);
    else snprintf(buf, n, "$%.4g", usd);
}

static void watts(double w, char *buf, size_t n) {
    if (w >= 1e6) snprintf(buf, n, "%.3f MW", w / 1e6);
    else if (w >= 1e3) snprintf(buf, n, "%.2f kW", w / 1e3);
    else snprintf(buf, n, "%.1f W", w);
}

void cs_cost_report_print(FILE *f, const cs_cost_report *r) {
    if (!r->valid) {
        fprintf(f, "  power & cost     not computed: %s\n", r->why);
        return;
    }
    char a[32], b[32], c[32];
    double pct_npu = r->power_w > 0 ? 100 * r->power_npu_w / r->power_w : 0;
    watts(r->power_w, a, sizeof a);
    fprintf(f, "  power            %s average (%s accelerators %.1f %%, at %.1f %% compute utilization), %.4g J "
               "per step",
            a, r->device, pct_npu, 100 * r->npu_utilization, r->energy_step_j);
    if (r->items_per_step > 0) fprintf(f, ", %.4g J per %s", r->energy_item_j, r->item);
    money(r->capex_usd, b, sizeof b);
    money(r->capex_scaleup_usd + r->capex_scaleout_usd, c, sizeof c);
    fprintf(f, "\n  cost             %s to buy (network %s), $%.4g per step with the hardware amortized "
               "(docs/cost.md)\n",
            b, c, r->cost_step_usd);
}
