/*
 * comm_groups.c -- lookups over communicator groups (see comm_groups.h):
 * freeing, the rank-range check, find by id and the pg_name naming rule.
 */
#include "system/comm_groups.h"

#include <string.h>

#include "core/alloc.h"

void cs_comm_groups_free(cs_comm_groups *g) {
    if (!g) return;
    for (size_t i = 0; i < g->ngroups; i++) {
        cs_free(g->groups[i].name);
        cs_free(g->groups[i].ranks);
        cs_free(g->groups[i].rank_lines);
    }
    cs_free(g->groups);
    cs_free(g->path);
    memset(g, 0, sizeof *g);
}

int cs_comm_group_parse_id(const char *s, long long max, long long *out) {
    if (!*s) return -1;
    long long v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9') return -1;
        v = v * 10 + (*p - '0');
        if (v > max) return -1;
    }
    *out = v;
    return 0;
}

int cs_comm_groups_validate(const cs_comm_groups *g, uint64_t total_npus, cs_error *err) {
    for (size_t i = 0; i < g->ngroups; i++) {
        const cs_comm_group *cg = &g->groups[i];
        for (uint32_t k = 0; k < cg->nranks; k++) {
            if (cg->ranks[k] >= total_npus)
                return CS_ERR(err, CS_EINVAL,
                              "%s:%d: group \"%s\": expected NPU ranks below %llu (the network's NPU "
                              "count), got %u",
                              g->path ? g->path : "(comm groups)", cg->rank_lines[k], cg->name,
                              (unsigned long long)total_npus, cg->ranks[k]);
        }
    }
    return CS_OK;
}

const cs_comm_group *cs_comm_groups_find(const cs_comm_groups *g, const char *name) {
    long long id;
    if (!g || !name || cs_comm_group_parse_id(name, (long long)UINT32_MAX, &id) != 0) return NULL;
    size_t lo = 0, hi = g->ngroups;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->groups[mid].id < (uint32_t)id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < g->ngroups && g->groups[lo].id == (uint32_t)id) return &g->groups[lo];
    return NULL;
}

int cs_comm_groups_resolve(const cs_comm_groups *g, const char *pg_name,
                           const cs_comm_group **out, cs_error *err) {
    *out = NULL;
    if (!pg_name || !*pg_name) return CS_OK; /* all ranks */
    const cs_comm_group *cg = cs_comm_groups_find(g, pg_name);
    if (cg) {
        *out = cg;
        return CS_OK;
    }
    long long id;
    if (cs_comm_group_parse_id(pg_name, (long long)UINT32_MAX, &id) == 0 && id == 0) return CS_OK;
    if (!g || !g->path)
        return CS_ERR(err, CS_EINVAL,
                      "pg_name: expected \"\" or \"0\" (all ranks) because no communicator "
                      "group file was given, got \"%s\"",
                      pg_name);
    return CS_ERR(err, CS_EINVAL,
                  "pg_name: expected the id of a communicator group defined in %s (%zu "
                  "group%s), \"\" or \"0\", got \"%s\"",
                  g->path, g->ngroups, g->ngroups == 1 ? "" : "s", pg_name);
}
