/*
 * hungarian.h -- the assignment problem, solved exactly: given an n x n
 * matrix of integer costs, the permutation (row i -> column col[i]) of least
 * total cost.  The Hungarian method (Kuhn 1955, Munkres 1957) in its O(n^3)
 * form of shortest augmenting paths with row and column potentials (one row
 * added at a time; Jonker and Volgenant 1987 describe the same scheme).
 *
 * Used by the neuron partitioner (gen/neuron_part.c) to label groups of
 * neurons with workers.  Deterministic: the same matrix gives the same
 * permutation.  The caller owns cost and col; scratch memory is allocated
 * and freed inside (O(n) words).
 */
#ifndef CS_CORE_HUNGARIAN_H
#define CS_CORE_HUNGARIAN_H

#include <stddef.h>
#include <stdint.h>

/* Costs must lie in [-CS_HUNGARIAN_MAX_COST, CS_HUNGARIAN_MAX_COST] and n in
 * [1, CS_HUNGARIAN_MAX_N]: then every potential and path length fits int64. */
#define CS_HUNGARIAN_MAX_COST ((int64_t)1 << 40)
#define CS_HUNGARIAN_MAX_N 4096

/* cost: n x n, row-major (cost[i * n + j]: row i to column j).  Fills
 * col[0..n) with the column of each row (a permutation) and returns the
 * least total cost sum_i cost[i * n + col[i]]. */
int64_t cs_hungarian(const int64_t *cost, size_t n, size_t *col);

#endif
