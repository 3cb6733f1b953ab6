/* SPDX-License-Identifier: MIT */
/* kernels/spdm/tc_order.c: a row order for the tensor-core mode (docs/kernels.md, "The tensor-core
 * mode"): rows that share columns put into the same window of GCOO_TC_ROWS rows, so that a window's
 * distinct columns, and with them its 16 x 8 tiles (padding included), are fewer. On the host, once
 * at setup.
 *
 * Greedy, window by window (the affinity reordering of DTC-SpMM / Acc-SpMM in its simplest
 * form): the first row not yet placed opens a window; the window then takes, one at a time, the
 * unplaced row with the most columns already in the window, less half its columns that are not
 * (ties: the lower row), looked for among the rows of the window's columns; where none shares a
 * column, the next unplaced rows in their order fill it. Columns with more than
 * TC_ORDER_MAX_COLUMN_ROWS rows propose no candidates (dense columns would make every row a
 * candidate), and a window considers at most TC_ORDER_MAX_CANDIDATES rows. Cost: O(nnz) memory,
 * about nnz x window x (rows a column) steps, bounded by the two limits.
 * Counted on the shared matrices (tile slots a stored entry, A's order -> this order; 4-44 ms
 * each on one core): ct2010 15.1 -> 7.4, ca-CondMat 12.2 -> 7.3, cage11 12.5 -> 8.0,
 * delaunay_n16 9.1 -> 6.5, wiki-Vote 12.0 -> 9.1, TSOPF_RS_b39_c30 3.6 -> 3.2; the banded
 * bcsstk24, bcsstk33 and cavity19 gain 2-8 % (the caller keeps A's order below 10 %). */
#include <stdlib.h>
#include <string.h>

#include "common/gcoo_kernels.h"

#define TC_ORDER_MAX_COLUMN_ROWS 64
#define TC_ORDER_MAX_CANDIDATES 2048

/* Tiles of the windows of `rows` rows taken in order (order NULL: the natural one): per window
 * ceil(distinct columns / kcols). mark: k entries, all < 0 on entry, left so. */
static int64_t count_tiles(const int64_t *ptr, const int32_t *ind, int64_t m, const int32_t *order,
                           int rows, int kcols, int64_t *mark) {
  int64_t tiles = 0;
  for (int64_t w0 = 0; w0 < m; w0 += rows) {
    int64_t distinct = 0;
    const int64_t w1 = w0 + rows < m ? w0 + rows : m;
    for (int64_t r = w0; r < w1; r++) {
      const int64_t i = order ? order[r] : r;
      for (int64_t e = ptr[i]; e < ptr[i + 1]; e++)
        if (mark[ind[e]] != w0) {
          mark[ind[e]] = w0;
          distinct++;
        }
    }
    tiles += (distinct + kcols - 1) / kcols;
  }
  for (int64_t r = 0; r < m; r++) { /* reset what this count marked */
    const int64_t i = order ? order[r] : r;
    for (int64_t e = ptr[i]; e < ptr[i + 1]; e++) mark[ind[e]] = -1;
  }
  return tiles;
}

gcoo_status gcoo__tc_row_order(const int64_t *ptr, const int32_t *ind, int64_t m, int64_t k,
                               int rows, int kcols, int32_t *order, int64_t *tiles_natural,
                               int64_t *tiles_ordered) {
  GCOO_CHECK(ptr != NULL && order != NULL && tiles_natural != NULL && tiles_ordered != NULL,
             GCOO_ERR_NULL, "tensor-core row order: NULL argument");
  GCOO_CHECK(m >= 0 && m <= INT32_MAX && k >= 0 && rows >= 1 && kcols >= 1, GCOO_ERR_INVALID_ARG,
             "tensor-core row order: m = %lld, k = %lld, windows of %d rows, tiles %d wide",
             (long long)m, (long long)k, rows, kcols);
  const int64_t nnz = ptr[m];
  gcoo_status st = GCOO_SUCCESS;
  int64_t *cptr = NULL, *mark = NULL;
  int32_t *crow = NULL, *score = NULL, *cand = NULL, *win = NULL;
  unsigned char *placed = NULL;
  GCOO_GOTO(gcoo__calloc((void **)&cptr, (size_t)k + 1, sizeof *cptr, "column offsets"));
  GCOO_GOTO(
      gcoo__malloc_n((void **)&crow, (size_t)(nnz > 0 ? nnz : 1), sizeof *crow, "column rows"));
  GCOO_GOTO(gcoo__malloc_n((void **)&mark, (size_t)(k > 0 ? k : 1), sizeof *mark, "column marks"));
  GCOO_GOTO(gcoo__calloc((void **)&score, (size_t)(m > 0 ? m : 1), sizeof *score, "row scores"));
  GCOO_GOTO(gcoo__calloc((void **)&placed, (size_t)(m > 0 ? m : 1), 1, "placed rows"));
  GCOO_GOTO(gcoo__malloc_n((void **)&cand, TC_ORDER_MAX_CANDIDATES, sizeof *cand, "candidates"));
  GCOO_GOTO(gcoo__malloc_n((void **)&win, (size_t)rows, sizeof *win, "window rows"));
  for (int64_t j = 0; j < k; j++) mark[j] = -1;
  /* the pattern by column (rows ascending) */
  for (int64_t e = 0; e < nnz; e++) cptr[ind[e] + 1]++;
  for (int64_t j = 0; j < k; j++) cptr[j + 1] += cptr[j];
  {
    int64_t *fill = mark; /* borrowed as the fill cursor, reset below */
    for (int64_t j = 0; j < k; j++) fill[j] = cptr[j];
    for (int64_t i = 0; i < m; i++)
      for (int64_t e = ptr[i]; e < ptr[i + 1]; e++) crow[fill[ind[e]]++] = (int32_t)i;
    for (int64_t j = 0; j < k; j++) mark[j] = -1;
  }
  int64_t out = 0, next = 0; /* rows placed; the first row that may be unplaced */
  while (out < m) {
    while (placed[next]) next++;
    int nwin = 0, ncand = 0;
    const int64_t stamp = out; /* marks this window's columns */
    int32_t add = (int32_t)next;
    for (;;) {
      placed[add] = 1;
      win[nwin++] = add;
      score[add] = 0;
      if (nwin == rows) break;
      /* the new row's columns join the window: their unplaced rows gain a shared column */
      for (int64_t e = ptr[add]; e < ptr[add + 1]; e++) {
        const int32_t j = ind[e];
        if (mark[j] == stamp) continue;
        mark[j] = stamp;
        if (cptr[j + 1] - cptr[j] > TC_ORDER_MAX_COLUMN_ROWS) continue;
        for (int64_t q = cptr[j]; q < cptr[j + 1]; q++) {
          const int32_t i = crow[q];
          if (placed[i]) continue;
          if (score[i] == 0) {
            if (ncand == TC_ORDER_MAX_CANDIDATES) continue;
            cand[ncand++] = i;
          }
          score[i]++;
        }
      }
      /* the best candidate: most shared columns, least half its new ones */
      int32_t best = -1;
      double best_v = 0;
      for (int c = 0; c < ncand; c++) {
        const int32_t i = cand[c];
        if (placed[i]) continue;
        const double v = 1.5 * score[i] - 0.5 * (double)(ptr[i + 1] - ptr[i]);
        if (best < 0 || v > best_v || (v == best_v && i < best)) {
          best = i;
          best_v = v;
        }
      }
      if (best < 0) { /* nothing shares a column: the next unplaced row */
        while (next < m && placed[next]) next++;
        if (next >= m) break;
        best = (int32_t)next;
      }
      add = best;
    }
    for (int c = 0; c < ncand; c++) score[cand[c]] = 0;
    for (int r = 0; r < nwin; r++) order[out + r] = win[r];
    out += nwin;
  }
  for (int64_t j = 0; j < k; j++) mark[j] = -1;
  *tiles_natural = count_tiles(ptr, ind, m, NULL, rows, kcols, mark);
  *tiles_ordered = count_tiles(ptr, ind, m, order, rows, kcols, mark);
done:
  free(cptr);
  free(crow);
  free(mark);
  free(score);
  free(placed);
  free(cand);
  free(win);
  return st;
}

gcoo_status gcoo__tc_window_tiles(const int64_t *ptr, const int32_t *ind, int64_t m, int64_t k,
                                  const int32_t *order, int rows, int kcols, int64_t *tiles) {
  GCOO_CHECK(ptr != NULL && tiles != NULL, GCOO_ERR_NULL, "window tiles: NULL argument");
  GCOO_CHECK(m >= 0 && k >= 0 && rows >= 1 && kcols >= 1, GCOO_ERR_INVALID_ARG,
             "window tiles: m = %lld, k = %lld, windows of %d rows, tiles %d wide", (long long)m,
             (long long)k, rows, kcols);
  int64_t *mark = NULL;
  GCOO_CALL(gcoo__malloc_n((void **)&mark, (size_t)(k > 0 ? k : 1), sizeof *mark, "column marks"));
  for (int64_t j = 0; j < k; j++) mark[j] = -1;
  *tiles = count_tiles(ptr, ind, m, order, rows, kcols, mark);
  free(mark);
  return GCOO_SUCCESS;
}
