/*
 * cli_system.c -- apply the system JSON and the communicator groups to a run
 * (see cli_int.h).  Owned by the system layer's maintainer.
 *
 * Without --system-configuration the run uses the defaults of
 * cs_system_config_defaults (replayed compute; collectives then need the
 * implementation lists and fail with a message naming the missing key).
 * --comm-group-configuration "empty" (the default, as in ASTRA-sim) means no
 * groups.  The effective configuration is recorded in summary.json either
 * way.
 */
#include <string.h>

#include "cli/cli_int.h"
#include "core/log.h"

static json_t *groups_json(const cs_comm_groups *g) {
    json_t *o = json_object();
    for (size_t i = 0; i < g->ngroups; i++) {
        json_t *a = json_array();
        for (uint32_t k = 0; k < g->groups[i].nranks; k++) json_array_append_new(a, json_integer(g->groups[i].ranks[k]));
        json_object_set_new(o, g->groups[i].name, a);
    }
    return o;
}

int cs_cli_apply_system(const cs_run_opts *ro, const cs_network_config *net, cs_sim_options *so,
                        cs_system_config *sc, cs_comm_groups *groups, json_t *config, cs_error *err) {
    int rc = ro->system ? cs_system_config_load(ro->system, sc, err) : cs_system_config_defaults(sc);
    if (rc) return rc;
    if (ro->system) {
        rc = cs_system_config_check_network(sc, net->ndims, err);
        if (rc) return rc;
    }
    if (ro->comm_group && strcmp(ro->comm_group, "empty") != 0) {
        rc = cs_comm_groups_load(ro->comm_group, groups, err);
        if (rc == CS_OK) rc = cs_comm_groups_validate(groups, net->total_npus, err);
        if (rc) return rc;
        so->comm_groups = groups;
    }
    cs_sim_options_set_system(so, sc);
    so->injection_scale = ro->injection_scale > 0 ? ro->injection_scale : 1.0;
    if (sc->replay_only)
        cs_warn("%s: replay-only = 1 is not modelled yet; nodes are timed as usual",
                ro->system ? ro->system : "system configuration");
    if (sc->model_shared_bus)
        cs_warn("%s: model-shared-bus = 1 (the LogGP bus model) is not modelled yet; every packet "
                "bundle pays endpoint-delay as with model-shared-bus = 0",
                ro->system ? ro->system : "system configuration");
    json_object_set_new(config, "system", cs_system_config_to_json(sc));
    json_object_set_new(config, "system_units", cs_system_config_units_json());
    if (so->comm_groups) json_object_set_new(config, "comm_groups", groups_json(groups));
    return CS_OK;
}
