/*
 * cost.h -- the cost and power model of a run: what the cluster costs to buy
 * (capital expense), what it draws while it runs the step, the energy of one
 * step and of one token (or image, or sample), and the cost of one step with
 * the hardware amortized.  docs/cost.md gives every default with its source.
 *
 * Inputs: the cost.* keys of the scenario (cs_cost_params, declared once in
 * CS_COST_OPTS), the accelerator (its TDP, idle power and price, device.h),
 * the network -- the logical dimensions, or the physical graph when the run
 * has one -- and the run's per-rank GPU compute time and step time.
 *
 *  - accelerators: P = idle + (tdp - idle) * u per NPU, u = its GPU compute
 *    time / step time (communication-only and waiting time at idle power);
 *  - hosts: ceil(npus / npus-per-host) servers at host-power-w, and storage
 *    and preprocessing hosts for the ingest path, one per
 *    storage-npus-per-host NPUs (0 = none);
 *  - network, per GB/s of bandwidth (GB/s as the network files write it):
 *    a dimension whose NPUs fit in one host (or a graph link inside one
 *    host, or a switch whose neighbours are one host's NPUs) is scale-up:
 *    links and switches at the scale-up prices; everything else is scale-out:
 *    a NIC port at each NPU or NIC end, a switch port at each switch end, the
 *    cable, and two optical transceivers (power) unless its tier is copper
 *    (scaleout-copper-tiers: tier 1 = cables at NPUs and NICs).  A
 *    switched dimension of k NPUs with radix R is a folded Clos of L tiers
 *    (L = 1 if k <= R, else the least L with 2 (R/2)^L >= k): 2L - 1 switch
 *    ports and L cables per NPU;
 *  - remote memory (an offloaded optimizer state): its capacity at
 *    remote-memory-usd-per-gb and remote-memory-w-per-gb (1 GB = 1e9 bytes);
 *  - facility: the IT power times pue; energy price per kWh; the capital
 *    amortized over amortization-years.
 *
 * Everything is a double in SI units named in the field (usd, w, j, s).
 */
#ifndef CS_COST_COST_H
#define CS_COST_COST_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compute/device.h"
#include "core/error.h"
#include "core/opts.h"
#include "core/time.h"
#include "topology/dims.h"
#include "topology/topology.h"

/* The cost.* keys (scenario section "cost"; CS_COST_OPTS). */
typedef struct cs_cost_params {
    double npu_price_usd, npu_power_w, npu_idle_power_w; /* 0 = the device's figure */
    int npus_per_host;
    double host_price_usd, host_power_w;
    int storage_npus_per_host;
    double storage_host_price_usd, storage_host_power_w;
    double scaleup_link_usd_per_gbps, scaleup_switch_usd_per_gbps, scaleup_w_per_gbps;
    double nic_usd_per_gbps, nic_w_per_gbps;
    double scaleout_link_usd_per_gbps, scaleout_switch_usd_per_gbps, switch_port_w_per_gbps;
    double optic_w_per_gbps;
    int scaleout_copper_tiers;
    int switch_radix;
    double remote_usd_per_gb, remote_w_per_gb;
    double pue, electricity_usd_per_kwh, amortization_years;
} cs_cost_params;

#define CS_COST_NKEYS 25 /* entries of CS_COST_OPTS (checked in cost.c) */
extern const cs_opt CS_COST_OPTS[CS_COST_NKEYS];

/* What the model says about one run. */
typedef struct cs_cost_report {
    int valid;             /* 0: a figure is missing; why says which */
    char why[256];
    char device[48];
    uint32_t npus, hosts, storage_hosts;
    /* capital expense, US$ */
    double capex_usd, capex_npu_usd, capex_host_usd, capex_storage_usd, capex_scaleup_usd, capex_scaleout_usd,
        capex_remote_usd;
    /* average power over the step, W (it = before the facility overhead) */
    double power_w, power_npu_w, power_host_w, power_storage_w, power_scaleup_w, power_scaleout_w,
        power_remote_w, power_facility_w;
    double remote_bytes;    /* remote memory the run needs (offloaded state), all NPUs */
    double npu_utilization; /* mean GPU compute time / step time over the NPUs (0..1) */
    double scaleout_switch_ports, scaleout_cables; /* counted (dimensions: per the Clos formula) */
    /* network priced from the dimensions (no explicit topology): the network's capital is
     * sum over d of dim_usd_per_gbps[d] x bandwidth_gbps[d] (the model is linear in each) */
    int net_from_dims;
    double dim_usd_per_gbps[CS_MAX_DIMS];
    double step_s, energy_step_j, cost_step_usd;
    double items_per_step;  /* tokens, images or samples per step; 0 = unknown (traces) */
    char item[16];          /* "token", "image", "sample" */
    double energy_item_j;   /* 0 when items_per_step is 0 */
} cs_cost_report;

/* The model for one run.  topo (may be NULL) replaces the dimensions of net
 * for the network part; compute_ps[i] is NPU i's GPU compute time; items is
 * the work of one step (0 = unknown) counted in `item` units.  Missing
 * device figures make the report invalid (why), not an error; CS_EINVAL
 * only for parameters that contradict each other (named). */
int cs_cost_eval(const cs_cost_params *p, const cs_device *dev, const cs_network_config *net, const cs_topo *topo,
                 const cs_time *compute_ps, uint32_t nnpus, cs_time step_ps, double items, const char *item,
                 double remote_bytes, cs_cost_report *out, cs_error *err);

/* The same with every NPU computing compute_ps (the search's estimates). */
int cs_cost_eval_uniform(const cs_cost_params *p, const cs_device *dev, const cs_network_config *net,
                         const cs_topo *topo, cs_time compute_ps, uint32_t nnpus, cs_time step_ps, double items,
                         const char *item, double remote_bytes, cs_cost_report *out, cs_error *err);

/* Tiers of a folded Clos of radix R holding k endpoints (1 if k <= R). */
uint32_t cs_cost_clos_tiers(uint64_t k, uint32_t radix);

/* The report as a JSON object (units in the names). */
json_t *cs_cost_report_json(const cs_cost_report *r);

/* Two lines for the terminal reports ("  power ... / cost ..."). */
void cs_cost_report_print(FILE *f, const cs_cost_report *r);

#endif
