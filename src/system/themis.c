/*
 * themis.c -- the offline-greedy inter-dimension scheduler ("Themis") and
 * its flexible-chunk variant (part of the system layer; see sys_int.h).
 * Owned by the system layer.
 *
 * Themis keeps an estimated load (elapsed time) per network dimension and
 * sends each chunk first through the least loaded dimension:
 *  - loads are in "MiB at the first dimension's bandwidth": a reduce-scatter
 *    (and an all-reduce, counted as its reduce-scatter) of c bytes over a
 *    dimension of size n and bandwidth B adds (c / 2^20) (n-1)/n / (B/B0) and
 *    leaves c/n for the next dimension; an all-gather adds (c/2^20)(n-1)/(B/B0)
 *    and grows the chunk n-fold;
 *  - the dimensions are kept in one persistent order, re-sorted (stably) by
 *    load for every chunk, reversed for all-gather;
 *  - offlineGreedy: when the load difference between the least and most
 *    loaded involved dimension is worth less than 1/16 of a chunk, the chunk
 *    goes in plain ascending order;
 *  - offlineGreedyFlex: the chunk size itself is chosen to equalise the
 *    loads (never below the configured chunk size).
 * Loads are reset when a collective is planned at a new instant.  This is
 * ASTRA-sim's OfflineGreedy, re-derived (its state lives on rank 0 there;
 * ours is one per simulation, used when a collective is planned).
 */
#include <math.h>

#include "system/sys_int.h"

void css_themis_init(cs_system *s) {
    cs_themis *t = &s->themis;
    t->n = s->ndims;
    for (int d = 0; d < t->n; d++) {
        t->order[d] = d;
        t->elapsed[d] = 0;
        t->bw[d] = s->netcfg->bandwidth_gbps[d];
        t->size[d] = s->netcfg->npus[d];
    }
    t->have_reset = 0;
}

void css_themis_maybe_reset(cs_system *s) {
    cs_themis *t = &s->themis;
    cs_time now = cs_eventq_now(s->q);
    if (t->have_reset && t->last_reset == now) return;
    t->have_reset = 1;
    t->last_reset = now;
    for (int i = 0; i < t->n; i++) {
        t->order[i] = i;
        t->elapsed[i] = 0;
    }
}

static int dim_active(const cs_themis *t, uint32_t involved, int d) {
    return (involved >> d & 1u) && t->size[d] != 1;
}

/* Stable insertion sort of the order by load. */
static void sort_by_load(cs_themis *t) {
    for (int i = 1; i < t->n; i++) {
        int od = t->order[i];
        double oe = t->elapsed[i];
        int j = i;
        while (j > 0 && oe < t->elapsed[j - 1]) {
            t->order[j] = t->order[j - 1];
            t->elapsed[j] = t->elapsed[j - 1];
            j--;
        }
        t->order[j] = od;
        t->elapsed[j] = oe;
    }
}

static void reverse_order(cs_themis *t) {
    for (int i = 0, j = t->n - 1; i < j; i++, j--) {
        int od = t->order[i];
        double oe = t->elapsed[i];
        t->order[i] = t->order[j];
        t->elapsed[i] = t->elapsed[j];
        t->order[j] = od;
        t->elapsed[j] = oe;
    }
}

/* Put the order back to dimension numbers 0..n-1 (keeping the loads). */
static void order_by_dim(cs_themis *t) {
    int order[CS_MAX_DIMS];
    double el[CS_MAX_DIMS];
    for (int d = 0; d < t->n; d++) {
        order[d] = t->order[0];
        el[d] = t->elapsed[0];
        for (int i = 0; i < t->n; i++)
            if (t->order[i] == d) {
                order[d] = d;
                el[d] = t->elapsed[i];
                break;
            }
    }
    for (int d = 0; d < t->n; d++) {
        t->order[d] = order[d];
        t->elapsed[d] = el[d];
    }
}

static double ratio(const cs_themis *t, int d) { return t->bw[d] / t->bw[0]; }

static void add_load(cs_themis *t, int pos, int d, int rs, uint64_t *chunk) {
    double n = (double)t->size[d];
    if (rs) {
        t->elapsed[pos] += (((double)*chunk / 1048576) * ((n - 1) / n)) / ratio(t, d);
        *chunk /= t->size[d];
    } else {
        t->elapsed[pos] += (((double)*chunk / 1048576) * (n - 1)) / ratio(t, d);
        *chunk *= t->size[d];
    }
}

static uint64_t size_for_load(const cs_themis *t, double load, int d, int rs) {
    double n = (double)t->size[d];
    double per = rs ? (n - 1) / n : (n - 1);
    return (uint64_t)(((load * ratio(t, d)) / per) * 1048576);
}

/* The chunk "goes in plain order": loads added in dimension order. */
static void plain_order(cs_themis *t, int rs, int ag, uint32_t involved, uint64_t chunk, int *map,
                        int *nmap) {
    for (int d = 0; d < t->n; d++) map[d] = d;
    *nmap = t->n;
    order_by_dim(t);
    if (ag) reverse_order(t);
    for (int pos = 0; pos < t->n; pos++) {
        if (!dim_active(t, involved, pos)) continue;
        /* ASTRA-sim indexes sizes and bandwidths by position here */
        add_load(t, pos, pos, rs, &chunk);
    }
}

uint64_t css_themis_chunk(cs_system *s, int flex, int ct, uint64_t *remaining, uint64_t recommended,
                      uint32_t involved, int *map) {
    cs_themis *t = &s->themis;
    int rs = ct != CT_AG; /* an all-reduce is balanced as its reduce-scatter */
    int ag = ct == CT_AG;
    uint64_t before = *remaining;
    sort_by_load(t);
    if (ag) reverse_order(t);
    int nmap = 0;
    uint64_t chunk = recommended;
    int calculated = 0;
    if (!flex) {
        uint64_t g = *remaining < chunk ? *remaining : chunk;
        *remaining -= g;
    }
    for (int pos = 0; pos < t->n; pos++) {
        int d = t->order[pos];
        if (!dim_active(t, involved, d)) {
            map[nmap++] = d;
            continue;
        }
        if (!calculated) {
            calculated = 1;
            uint64_t want;
            if (rs) {
                double diff = fabs(t->elapsed[t->n - 1] - t->elapsed[pos]);
                want = size_for_load(t, diff, d, 1);
            } else {
                int last = t->n - 1;
                while (last > 0 && !dim_active(t, involved, t->order[last])) last--;
                double diff = fabs(t->elapsed[last] - t->elapsed[pos]);
                want = size_for_load(t, diff, t->order[last], 0);
                for (last--; pos <= last; last--)
                    if (dim_active(t, involved, t->order[last])) want /= t->size[t->order[last]];
            }
            if (flex) {
                if (want < recommended) {
                    uint64_t g = *remaining < recommended ? *remaining : recommended;
                    *remaining -= g;
                    plain_order(t, rs, ag, involved, g, map, &nmap);
                    return before - *remaining;
                }
                chunk = want;
                uint64_t g = *remaining < chunk ? *remaining : chunk;
                *remaining -= g;
            } else if (want < recommended / 16) {
                plain_order(t, rs, ag, involved, chunk, map, &nmap);
                return before - *remaining;
            }
        }
        map[nmap++] = d;
        add_load(t, pos, d, rs, &chunk);
    }
    if (*remaining == before) { /* no dimension involved: take a plain chunk */
        uint64_t g = *remaining < recommended ? *remaining : recommended;
        *remaining -= g;
    }
    return before - *remaining;
}
