/* SPDX-License-Identifier: MIT */
/* bench/spdm_order.c: row orders of a matrix and the column reuse they give a block of
 * consecutive rows, for the benchmark's "reordered" section and bench/order_stats.c.
 *
 * Why (docs/kernels.md, "Row order"): on the graph matrices of the tc-speedup target (cage11,
 * ct2010, delaunay_n16, wiki-Vote) the exact kernels gather about one X row per stored entry;
 * a block of the direct kernel holds 8 or 32 consecutive rows, and its L1 can only serve an X row
 * twice when two of its rows share that column. The tensor-core mode's window order
 * (kernels/spdm/tc_order.c) already puts rows that share columns into windows of 16 for its tiles;
 * whether the exact kernels gain from the same order is measured by running them on a copy of A
 * whose rows are in that order (the product is A X with its rows permuted; an operator that
 * reordered internally would write each row back to its place, as the tensor-core kernel does).
 * Reverse Cuthill-McKee is the textbook alternative, timed beside it. */
#include <stdlib.h>
#include <string.h>

#include "spdm_order.h"

const char *bench_order_name(bench_order kind) {
  return kind == BENCH_ORDER_WINDOW ? "win" : kind == BENCH_ORDER_RCM ? "rcm" : "A";
}

/* Reverse Cuthill-McKee of the pattern of A + A^T (A square): breadth-first from an unvisited
 * row of least degree, each row's unvisited neighbours appended by ascending degree (ties: the
 * lower row), then the whole order reversed (George and Liu). Diagonal entries are ignored. */
static gcoo_status rcm_order(const gcoo_sparse_arrays *a, int64_t m, int32_t *order) {
  gcoo_status st = GCOO_SUCCESS;
  int64_t *aptr = NULL, *fill = NULL;
  int32_t *adj = NULL, *deg = NULL, *bydeg = NULL;
  unsigned char *seen = NULL;
  const int64_t nnz = a->ptr[m];
  GCOO_GOTO(gcoo__calloc((void **)&aptr, (size_t)m + 1, sizeof *aptr, "RCM offsets"));
  GCOO_GOTO(gcoo__malloc_n((void **)&fill, m + 1, sizeof *fill, "RCM cursors"));
  GCOO_GOTO(gcoo__malloc_n((void **)&adj, 2 * nnz + 1, sizeof *adj, "RCM neighbours"));
  GCOO_GOTO(gcoo__calloc((void **)&deg, (size_t)m + 1, sizeof *deg, "RCM degrees"));
  GCOO_GOTO(gcoo__malloc_n((void **)&bydeg, m + 1, sizeof *bydeg, "RCM rows by degree"));
  GCOO_GOTO(gcoo__calloc((void **)&seen, (size_t)m + 1, 1, "RCM marks"));
  /* both directions of every off-diagonal entry, then each list sorted and made unique */
  for (int64_t i = 0; i < m; i++)
    for (int64_t e = a->ptr[i]; e < a->ptr[i + 1]; e++)
      if (a->ind[e] != i) aptr[i + 1]++, aptr[a->ind[e] + 1]++;
  for (int64_t i = 0; i < m; i++) aptr[i + 1] += aptr[i];
  memcpy(fill, aptr, (size_t)(m + 1) * sizeof *fill);
  for (int64_t i = 0; i < m; i++)
    for (int64_t e = a->ptr[i]; e < a->ptr[i + 1]; e++) {
      const int32_t j = a->ind[e];
      if (j == i) continue;
      adj[fill[i]++] = j;
      adj[fill[j]++] = (int32_t)i;
    }
  for (int64_t i = 0; i < m; i++) {
    int32_t *l = adj + aptr[i];
    const int64_t n = aptr[i + 1] - aptr[i];
    for (int64_t x = 1; x < n; x++) /* insertion sort: neighbour lists are short */
      for (int64_t y = x; y > 0 && l[y] < l[y - 1]; y--) {
        const int32_t t = l[y];
        l[y] = l[y - 1];
        l[y - 1] = t;
      }
    int64_t u = 0;
    for (int64_t x = 0; x < n; x++)
      if (u == 0 || l[x] != l[u - 1]) l[u++] = l[x];
    deg[i] = (int32_t)u;
  }
  /* rows by ascending degree (counting sort), to find each component's start */
  {
    int64_t maxd = 0;
    for (int64_t i = 0; i < m; i++)
      if (deg[i] > maxd) maxd = deg[i];
    int64_t *cnt = NULL;
    GCOO_GOTO(gcoo__calloc((void **)&cnt, (size_t)maxd + 2, sizeof *cnt, "RCM degree counts"));
    for (int64_t i = 0; i < m; i++) cnt[deg[i] + 1]++;
    for (int64_t d = 0; d <= maxd; d++) cnt[d + 1] += cnt[d];
    for (int64_t i = 0; i < m; i++) bydeg[cnt[deg[i]]++] = (int32_t)i;
    free(cnt);
  }
  int64_t out = 0, head = 0, next = 0;
  while (out < m) {
    while (seen[bydeg[next]]) next++;
    order[out++] = bydeg[next];
    seen[bydeg[next]] = 1;
    for (; head < out; head++) {
      const int32_t v = order[head];
      const int64_t first = out;
      for (int64_t e = aptr[v]; e < aptr[v] + deg[v]; e++)
        if (!seen[adj[e]]) {
          seen[adj[e]] = 1;
          order[out++] = adj[e];
        }
      for (int64_t x = first + 1; x < out; x++) /* by degree, then row */
        for (int64_t y = x;
             y > first && (deg[order[y]] < deg[order[y - 1]] ||
                           (deg[order[y]] == deg[order[y - 1]] && order[y] < order[y - 1]));
             y--) {
          const int32_t t = order[y];
          order[y] = order[y - 1];
          order[y - 1] = t;
        }
    }
  }
  for (int64_t i = 0; i < m / 2; i++) {
    const int32_t t = order[i];
    order[i] = order[m - 1 - i];
    order[m - 1 - i] = t;
  }
done:
  free(aptr);
  free(fill);
  free(adj);
  free(deg);
  free(bydeg);
  free(seen);
  return st;
}

gcoo_status bench_row_order(gcoo_sparse A, bench_order kind, int32_t *order) {
  gcoo_sparse_info ai;
  gcoo_sparse_arrays a;
  GCOO_CALL(gcoo_sparse_get_info(A, &ai));
  GCOO_CALL(gcoo_sparse_get_arrays(A, &a));
  GCOO_CHECK(ai.format == GCOO_FORMAT_CSR, GCOO_ERR_INVALID_ARG, "row orders need a CSR matrix");
  if (kind == BENCH_ORDER_NATURAL || ai.nrows == 0 || ai.nnz == 0) {
    for (int64_t i = 0; i < ai.nrows; i++) order[i] = (int32_t)i;
    return GCOO_SUCCESS;
  }
  if (kind == BENCH_ORDER_WINDOW) {
    int64_t t_nat = 0, t_ord = 0;
    return gcoo__tc_row_order(a.ptr, a.ind, ai.nrows, ai.ncols, GCOO_TC_ROWS, GCOO_TC_K, order,
                              &t_nat, &t_ord);
  }
  GCOO_CHECK(ai.nrows == ai.ncols, GCOO_ERR_INVALID_ARG,
             "reverse Cuthill-McKee needs a square matrix, not %lld x %lld", (long long)ai.nrows,
             (long long)ai.ncols);
  return rcm_order(&a, ai.nrows, order);
}

gcoo_status bench_block_reuse(gcoo_sparse A, const int32_t *order, int rows, double *reuse) {
  gcoo_sparse_info ai;
  gcoo_sparse_arrays a;
  GCOO_CALL(gcoo_sparse_get_info(A, &ai));
  GCOO_CALL(gcoo_sparse_get_arrays(A, &a));
  GCOO_CHECK(ai.format == GCOO_FORMAT_CSR, GCOO_ERR_INVALID_ARG, "block reuse needs a CSR matrix");
  int64_t distinct = 0; /* tiles one column wide: the distinct columns of the blocks */
  GCOO_CALL(gcoo__tc_window_tiles(a.ptr, a.ind, ai.nrows, ai.ncols, order, rows, 1, &distinct));
  *reuse = distinct > 0 ? (double)ai.nnz / (double)distinct : 0.0;
  return GCOO_SUCCESS;
}
