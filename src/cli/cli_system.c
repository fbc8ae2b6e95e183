/*
 * cli_system.c -- apply the system JSON to a run (see cli_int.h).
 *
 * Without --system-configuration the run uses the defaults of
 * cs_system_config_defaults (replayed compute).  The effective system
 * configuration is recorded in summary.json either way.
 */
#include <string.h>

#include "cli/cli_int.h"
#include "config/system_config.h"
#include "core/log.h"

int cs_cli_apply_system(const cs_run_opts *ro, cs_sim_options *so, json_t *config, cs_error *err) {
    cs_system_config sc;
    memset(&sc, 0, sizeof sc);
    int rc = ro->system ? cs_system_config_load(ro->system, &sc, err) : cs_system_config_defaults(&sc);
    if (rc) return rc;
    so->compute.roofline = sc.roofline_enabled ? 1 : 0;
    so->compute.peak_flops = sc.peak_perf_tflops * 1e12;
    so->compute.mem_bw_bytes_ps = sc.local_mem_bw_gbps * 1e9;
    if (sc.replay_only)
        cs_warn("%s: replay-only = 1 is not modelled yet; nodes are timed as usual",
                ro->system ? ro->system : "system configuration");
    json_object_set_new(config, "system", cs_system_config_to_json(&sc));
    json_object_set_new(config, "system_units", cs_system_config_units_json());
    cs_system_config_free(&sc);
    return CS_OK;
}
