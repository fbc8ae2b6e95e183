/*
 * hungarian.c -- the assignment problem by the Hungarian method, O(n^3)
 * (see hungarian.h).
 *
 * Rows are added one at a time.  For the new row a Dijkstra-like search over
 * columns grows a tree of tight edges (reduced cost cost[i][j] - u[i] - v[j]
 * = 0) from a virtual column 0 holding the row; each step raises the
 * potentials of the rows in the tree and lowers those of its columns by the
 * least reduced cost leaving it (which keeps every reduced cost >= 0 and the
 * tree's edges tight), until a free column is reached; the matching is then
 * flipped along the path.  After n rows the matching is perfect and, with
 * all reduced costs >= 0 and the matched ones 0, optimal (LP duality).
 * Arrays are 1-based in columns; column 0 is the virtual one.
 */
#include "core/hungarian.h"

#include <assert.h>

#include "core/alloc.h"

int64_t cs_hungarian(const int64_t *cost, size_t n, size_t *col) {
    assert(n >= 1 && n <= CS_HUNGARIAN_MAX_N);
    const int64_t inf = INT64_MAX / 4;
    int64_t *u = cs_calloc(n + 1, sizeof *u);       /* row potentials (1-based) */
    int64_t *v = cs_calloc(n + 1, sizeof *v);       /* column potentials */
    int64_t *minv = cs_calloc(n + 1, sizeof *minv); /* least reduced cost into column j from the tree */
    size_t *row_of = cs_calloc(n + 1, sizeof *row_of); /* row matched to column j (0: free) */
    size_t *way = cs_calloc(n + 1, sizeof *way);       /* column before j on the path */
    unsigned char *used = cs_calloc(n + 1, 1);
    for (size_t i = 1; i <= n; i++) {
        row_of[0] = i;
        size_t j0 = 0;
        for (size_t j = 0; j <= n; j++) {
            minv[j] = inf;
            used[j] = 0;
        }
        do {
            used[j0] = 1;
            size_t i0 = row_of[j0], j1 = 0;
            int64_t delta = inf;
            for (size_t j = 1; j <= n; j++) {
                if (used[j]) continue;
                int64_t cur = cost[(i0 - 1) * n + (j - 1)] - u[i0] - v[j];
                if (cur < minv[j]) {
                    minv[j] = cur;
                    way[j] = j0;
                }
                if (minv[j] < delta) {
                    delta = minv[j];
                    j1 = j;
                }
            }
            assert(j1 != 0);
            for (size_t j = 0; j <= n; j++) {
                if (used[j]) {
                    u[row_of[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
        } while (row_of[j0] != 0);
        do { /* flip the matching along the path back to the virtual column */
            size_t j1 = way[j0];
            row_of[j0] = row_of[j1];
            j0 = j1;
        } while (j0 != 0);
    }
    int64_t total = 0;
    for (size_t j = 1; j <= n; j++) {
        col[row_of[j] - 1] = j - 1;
        total += cost[(row_of[j] - 1) * n + (j - 1)];
    }
    cs_free(u);
    cs_free(v);
    cs_free(minv);
    cs_free(row_of);
    cs_free(way);
    cs_free(used);
    return total;
}
