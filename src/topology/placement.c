/*
 * placement.c -- where ranks run: the map rank -> physical NPU of a cs_topo
 * (topology.h, cs_topo.place), by strategy: contiguous (rank i on NPU i,
 * the default), random (a seeded shuffle), strided (consecutive ranks
 * `stride` NPUs apart), pack (each communicator group on as few switches as
 * possible).  The flow backend translates every send through the map.
 *
 * Owns: nothing beyond cs_topo.place (owned by the topology).  Groups are
 * passed as plain arrays so the topology layer does not depend on the
 * comm-group reader.  docs/topology.md ("Placement") has the rules.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/rand.h"
#include "topology/topology.h"

/* The switch an NPU hangs off: the smallest-numbered switch
 * directly attached (leaf, NVSwitch), else through its NIC (rail switch);
 * UINT32_MAX when it has none (torus/mesh NPUs). */
uint32_t cs_topo_npu_switch(const cs_topo *t, uint32_t v) {
    uint32_t best = UINT32_MAX;
    for (uint32_t i = t->out_off[v]; i < t->out_off[v + 1]; i++) {
        uint32_t d = t->links[t->out_idx[i]].dst;
        if (t->kind[d] == CS_NODE_SWITCH && d < best) best = d;
    }
    if (best != UINT32_MAX) return best; /* a directly attached switch (leaf, NVSwitch) first */
    for (uint32_t i = t->out_off[v]; i < t->out_off[v + 1]; i++) {
        uint32_t d = t->links[t->out_idx[i]].dst;
        if (t->kind[d] == CS_NODE_NIC) /* else through the NIC: its switch */
            for (uint32_t k = t->out_off[d]; k < t->out_off[d + 1]; k++) {
                uint32_t e = t->links[t->out_idx[k]].dst;
                if (t->kind[e] == CS_NODE_SWITCH && e < best) best = e;
            }
    }
    return best;
}

static uint32_t *g_sw;
static int by_switch(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (g_sw[x] != g_sw[y]) return g_sw[x] < g_sw[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

static const cs_placement_group *g_groups;
static int by_size(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (g_groups[x].n != g_groups[y].n) return g_groups[x].n < g_groups[y].n ? -1 : 1;
    return x < y ? -1 : x > y;
}

int cs_topo_place(cs_topo *t, const char *spec, const cs_placement_group *groups, size_t ngroups, cs_error *err) {
    uint32_t n = t->nnpus;
    char name[32];
    unsigned long long arg = 0;
    int has_arg = 0;
    const char *colon = strchr(spec, ':');
    size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
    if (len >= sizeof name) len = sizeof name - 1;
    memcpy(name, spec, len);
    name[len] = 0;
    if (colon) {
        char *end;
        arg = strtoull(colon + 1, &end, 10);
        if (end == colon + 1 || *end)
            return CS_ERR(err, CS_EINVAL, "--placement %s: expected a number after ':'", spec);
        has_arg = 1;
    }
    uint32_t *p = cs_malloc((size_t)(n ? n : 1) * sizeof *p);
    for (uint32_t r = 0; r < n; r++) p[r] = r;
    if (strcmp(name, "contiguous") == 0) {
        if (has_arg) goto bad;
    } else if (strcmp(name, "random") == 0) {
        uint64_t seed = has_arg ? arg : 1;
        for (uint32_t i = n; i > 1; i--) { /* Fisher-Yates, splitmix64 stream */
            uint32_t j = (uint32_t)(cs_mix64(seed ^ cs_mix64(i)) % i);
            uint32_t tmp = p[i - 1];
            p[i - 1] = p[j];
            p[j] = tmp;
        }
    } else if (strcmp(name, "strided") == 0) {
        if (!has_arg || arg == 0 || n % arg) {
            cs_free(p);
            return CS_ERR(err, CS_EINVAL, "--placement %s: expected strided:K with K dividing the %u NPUs", spec, n);
        }
        uint32_t k = (uint32_t)arg, per = n / k;
        for (uint32_t r = 0; r < n; r++) p[r] = (r % per) * k + r / per;
    } else if (strcmp(name, "pack") == 0) {
        if (has_arg) goto bad;
        /* NPUs in switch order (those under one switch consecutive); then
         * groups, smallest first (tensor-parallel before data-parallel),
         * each on consecutive free NPUs of that order; leftovers in rank order */
        uint32_t *order = cs_malloc((size_t)(n ? n : 1) * sizeof *order);
        g_sw = cs_malloc((size_t)(n ? n : 1) * sizeof *g_sw);
        for (uint32_t v = 0; v < n; v++) {
            order[v] = v;
            g_sw[v] = cs_topo_npu_switch(t, v);
        }
        qsort(order, n, sizeof *order, by_switch);
        uint32_t *gi = cs_malloc((ngroups ? ngroups : 1) * sizeof *gi);
        for (size_t i = 0; i < ngroups; i++) gi[i] = (uint32_t)i;
        g_groups = groups;
        qsort(gi, ngroups, sizeof *gi, by_size);
        uint8_t *placed = cs_calloc(n ? n : 1, 1);
        uint32_t next = 0;
        for (size_t i = 0; i < ngroups; i++)
            for (uint32_t k = 0; k < groups[gi[i]].n; k++) {
                uint32_t r = groups[gi[i]].ranks[k];
                if (r >= n || placed[r]) continue;
                placed[r] = 1;
                p[r] = order[next++];
            }
        for (uint32_t r = 0; r < n; r++)
            if (!placed[r]) p[r] = order[next++];
        cs_free(placed);
        cs_free(gi);
        cs_free(order);
        cs_free(g_sw);
        g_sw = NULL;
    } else {
        goto bad;
    }
    cs_free(t->place);
    t->place = p;
    snprintf(t->placement, sizeof t->placement, "%s", spec);
    return CS_OK;
bad:
    cs_free(p);
    return CS_ERR(err, CS_EINVAL,
                  "--placement %s: expected contiguous, random[:SEED], strided:K or pack", spec);
}

uint32_t cs_topo_group_switches(const cs_topo *t, const uint32_t *ranks, uint32_t nranks) {
    uint32_t *sw = cs_malloc((size_t)(nranks ? nranks : 1) * sizeof *sw);
    uint32_t m = 0;
    for (uint32_t k = 0; k < nranks; k++) {
        uint32_t r = ranks[k];
        if (r >= t->nnpus) continue;
        uint32_t s = cs_topo_npu_switch(t, t->place ? t->place[r] : r);
        int seen = 0;
        for (uint32_t j = 0; j < m && !seen; j++) seen = sw[j] == s;
        if (!seen) sw[m++] = s;
    }
    cs_free(sw);
    return m;
}
