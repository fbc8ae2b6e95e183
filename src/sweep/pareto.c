/*
 * pareto.c -- objectives and the Pareto front (see pareto.h).
 *
 * The front: sort the rows lexicographically; a row's dominators all come
 * before it, and a dominated dominator is itself dominated by a row already
 * on the front, so each row is checked against the front only:
 * O(n log n + n f k) for a front of f rows.
 */
#include "sweep/pareto.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "sweep/metrics.h"

int cs_objectives_parse(const char *text, const char *flag, cs_objective *obj, size_t *nobj, cs_error *err) {
    *nobj = 0;
    const char *p = text;
    if (!*p) return CS_ERR(err, CS_EINVAL, "%s: expected a list of metrics, got an empty value", flag);
    while (*p) {
        size_t len = strcspn(p, ",");
        char item[96];
        snprintf(item, sizeof item, "%.*s", (int)(len < 95 ? len : 95), p);
        int max = strncmp(item, "max:", 4) == 0;
        const char *name = max ? item + 4 : strncmp(item, "min:", 4) == 0 ? item + 4 : item;
        size_t k = 0;
        while (k < CS_SWEEP_NMETRICS && !(CS_SWEEP_METRICS[k].numeric && strcmp(CS_SWEEP_METRICS[k].name, name) == 0))
            k++;
        if (k == CS_SWEEP_NMETRICS || len > 95) {
            char list[1024] = "";
            size_t used = 0;
            for (size_t i = 0; i < CS_SWEEP_NMETRICS && used < sizeof list; i++)
                if (CS_SWEEP_METRICS[i].numeric)
                    used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "",
                                             CS_SWEEP_METRICS[i].name);
            return CS_ERR(err, CS_EINVAL, "%s: \"%s\": expected a numeric metric, optionally max:METRIC, one of %s",
                          flag, item, list);
        }
        for (size_t i = 0; i < *nobj; i++)
            if (obj[i].metric == k) return CS_ERR(err, CS_EINVAL, "%s: %s: given twice", flag, name);
        if (*nobj == CS_MAX_OBJECTIVES)
            return CS_ERR(err, CS_EINVAL, "%s: expected at most %d metrics", flag, CS_MAX_OBJECTIVES);
        obj[(*nobj)++] = (cs_objective){k, max};
        p += len;
        if (*p == ',') {
            p++;
            if (!*p) return CS_ERR(err, CS_EINVAL, "%s: a trailing comma; expected a metric after it", flag);
        }
    }
    return CS_OK;
}

const char *cs_objective_name(const cs_objective *o, char *buf, size_t n) {
    snprintf(buf, n, "%s%s", o->maximize ? "max:" : "", CS_SWEEP_METRICS[o->metric].name);
    return buf;
}

static const double *g_v;
static size_t g_k;
static int row_cmp(const void *a, const void *b) {
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    for (size_t c = 0; c < g_k; c++) {
        double x = g_v[i * g_k + c], y = g_v[j * g_k + c];
        if (x < y) return -1;
        if (x > y) return 1;
    }
    return i < j ? -1 : i > j; /* stable */
}

size_t cs_pareto_front(const double *v, size_t n, size_t k, int *on_front) {
    size_t *ord = cs_malloc((n ? n : 1) * sizeof *ord), m = 0;
    for (size_t i = 0; i < n; i++) {
        on_front[i] = 0;
        int nan = 0;
        for (size_t c = 0; c < k; c++) nan |= isnan(v[i * k + c]);
        if (!nan) ord[m++] = i;
    }
    g_v = v;
    g_k = k;
    qsort(ord, m, sizeof *ord, row_cmp);
    size_t *front = cs_malloc((m ? m : 1) * sizeof *front), nf = 0;
    for (size_t a = 0; a < m; a++) {
        size_t i = ord[a];
        int dominated = 0;
        for (size_t f = 0; f < nf && !dominated; f++) {
            size_t j = front[f];
            int le = 1, lt = 0;
            for (size_t c = 0; c < k && le; c++) {
                double x = v[j * k + c], y = v[i * k + c];
                if (x > y) le = 0;
                else if (x < y) lt = 1;
            }
            dominated = le && lt;
        }
        if (!dominated) {
            front[nf++] = i;
            on_front[i] = 1;
        }
    }
    cs_free(front);
    cs_free(ord);
    return nf;
}
