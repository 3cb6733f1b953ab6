/* SPDX-License-Identifier: MIT */
/* src/generate.c: matrices generated row by row (see gcoo/generate.h): the paper's random sparse
 * matrices, 3-D Poisson stencils and random dense blocks, any row range of each. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gcoo/generate.h"
#include "sparse_impl.h"

/* ---- the paper's random matrix ------------------------------------------------------------ */

/* Walk row `row` of the random matrix: call emit(j, v) for each nonzero. Each row draws its own
 * stream (seed, row), so the matrix depends neither on the thread count nor on which rank makes
 * which rows. Positions come from geometric skips: O(nnz) work, exact Bernoulli(density) per
 * entry. Returns the number of entries. The same walk counts (out == NULL) and fills. */
/* Entry k of a generated row: column j, value v in the row's element type. */
static void put_entry(gcoo_dtype dtype, int32_t *cols, void *vals, int64_t k, int64_t j, double v) {
  cols[k] = (int32_t)j;
  if (dtype == GCOO_FLOAT64)
    ((double *)vals)[k] = v;
  else
    ((float *)vals)[k] = (float)v;
}

static int64_t random_row(uint64_t seed, int64_t row, int64_t ncols, double density, double lq,
                          gcoo_dtype dtype, int32_t *cols, void *vals) {
  gcoo_rng r;
  gcoo__rng_seed(&r, seed, (uint64_t)row);
  int64_t k = 0, j = -1;
  if (density <= 0.0) return 0;
  for (;;) {
    if (density >= 1.0) {
      j++;
    } else {
      double u = gcoo__rng_uniform(&r);
      j += 1 + (int64_t)floor(log1p(-u) / lq);
    }
    if (j >= ncols || j < 0) break;
    double v = 2.0 * gcoo__rng_uniform(&r) - 1.0;
    if (cols) put_entry(dtype, cols, vals, k, j, v);
    k++;
  }
  return k;
}

gcoo_status gcoo_sparse_random_rows(gcoo_sparse *A, gcoo_dtype dtype, gcoo_format format,
                                    int64_t nrows, int64_t ncols, double sparsity, uint64_t seed,
                                    int32_t p, int64_t row0, int64_t row1) {
  gcoo_status st = GCOO_SUCCESS;
  int64_t *rowcnt = NULL;
  GCOO_CHECK(A != NULL, GCOO_ERR_NULL, "output handle is NULL");
  *A = NULL;
  GCOO_CHECK(sparsity >= 0.0 && sparsity <= 1.0, GCOO_ERR_INVALID_ARG, "sparsity %g outside [0, 1]",
             sparsity);
  GCOO_CHECK_DTYPE(dtype);
  GCOO_CHECK((unsigned)format <= GCOO_FORMAT_GCOO, GCOO_ERR_INVALID_ARG, "unknown sparse format %d",
             (int)format);
  GCOO_CHECK(format != GCOO_FORMAT_GCOO || p >= 0, GCOO_ERR_INVALID_ARG,
             "GCOO group width p = %d must be >= 0 (0: default)", p);
  GCOO_CHECK(nrows >= 0 && ncols >= 0, GCOO_ERR_INVALID_ARG, "negative shape %lld x %lld",
             (long long)nrows, (long long)ncols);
  GCOO_CHECK_DIM(nrows, "rows");
  GCOO_CHECK_DIM(ncols, "columns");
  GCOO_CHECK(0 <= row0 && row0 <= row1 && row1 <= nrows, GCOO_ERR_INVALID_ARG,
             "row range [%lld, %lld) outside the %lld rows", (long long)row0, (long long)row1,
             (long long)nrows);
  const int64_t m = row1 - row0;
  const double work = (double)m * (1.0 + (double)ncols * (1.0 - sparsity)); /* expected draws */
  gcoo_triplets t = {dtype, m, ncols, 0, NULL, NULL, NULL};
  const double density = 1.0 - sparsity;
  const double lq = density < 1.0 ? log1p(-density) : 0.0;
  /* pass 1: count each row; pass 2: fill at the row's offset */
  GCOO_GOTO(gcoo__calloc((void **)&rowcnt, (size_t)m + 1, sizeof *rowcnt, "row counts"));
#pragma omp parallel for schedule(dynamic, 256) if (work > GCOO_OMP_MIN_WORK)
  for (int64_t i = 0; i < m; i++)
    rowcnt[i + 1] = random_row(seed, row0 + i, ncols, density, lq, dtype, NULL, NULL);
  for (int64_t i = 0; i < m; i++) rowcnt[i + 1] += rowcnt[i];
  t.nnz = rowcnt[m];
  GCOO_GOTO(gcoo__malloc_n((void **)&t.rows, t.nnz, sizeof(int32_t), "rows"));
  GCOO_GOTO(gcoo__malloc_n((void **)&t.cols, t.nnz, sizeof(int32_t), "cols"));
  GCOO_GOTO(gcoo__malloc_n(&t.vals, t.nnz, gcoo_dtype_size(dtype), "values"));
  const size_t es = gcoo_dtype_size(dtype);
#pragma omp parallel for schedule(dynamic, 256) if (work > GCOO_OMP_MIN_WORK)
  for (int64_t i = 0; i < m; i++) {
    int64_t k0 = rowcnt[i];
    random_row(seed, row0 + i, ncols, density, lq, dtype, t.cols + k0, (char *)t.vals + k0 * es);
    for (int64_t k = k0; k < rowcnt[i + 1]; k++) t.rows[k] = (int32_t)i;
  }
  GCOO_GOTO(gcoo__sparse_from_triplets(A, &t, format, p));
done:
  free(rowcnt);
  gcoo__triplets_free(&t);
  return st;
}

gcoo_status gcoo_sparse_random(gcoo_sparse *A, gcoo_dtype dtype, gcoo_format format, int64_t nrows,
                               int64_t ncols, double sparsity, uint64_t seed, int32_t p) {
  GCOO_CALL(gcoo_sparse_random_rows(A, dtype, format, nrows, ncols, sparsity, seed, p, 0, nrows));
  return GCOO_SUCCESS;
}

/* ---- 3-D Poisson -------------------------------------------------------------------------- */

/* Neighbour (dx, dy, dz) belongs to the stencil: faces only for 7 points, all 26 for 27. */
static int in_stencil(int stencil, int dx, int dy, int dz) {
  return stencil == 27 || abs(dx) + abs(dy) + abs(dz) <= 1;
}

/* Walk row g: emit its columns in increasing order (z slowest, so the dz, dy, dx loop order is
 * the column order) with their values. Returns the entry count; cols == NULL only counts. */
static int64_t poisson_row(int stencil, int64_t n, int64_t g, gcoo_dtype dtype, int32_t *cols,
                           void *vals) {
  const int64_t x = g % n, y = (g / n) % n, z = g / (n * n);
  const double diag = stencil == 27 ? 26.0 : 6.0;
  int64_t k = 0;
  for (int dz = -1; dz <= 1; dz++)
    for (int dy = -1; dy <= 1; dy++)
      for (int dx = -1; dx <= 1; dx++) {
        if (!in_stencil(stencil, dx, dy, dz)) continue;
        if (x + dx < 0 || x + dx >= n || y + dy < 0 || y + dy >= n || z + dz < 0 || z + dz >= n)
          continue;
        if (cols)
          put_entry(dtype, cols, vals, k, g + dx + dy * n + dz * n * n,
                    (dx | dy | dz) ? -1.0 : diag);
        k++;
      }
  return k;
}

int64_t gcoo_poisson3d_row_nnz(int stencil, int64_t n, int64_t row) {
  if ((stencil != 7 && stencil != 27) || n < 1 || row < 0 || row >= n * n * n) return 0;
  return poisson_row(stencil, n, row, GCOO_FLOAT64, NULL, NULL);
}

gcoo_status gcoo_sparse_poisson3d_rows(gcoo_sparse *A, gcoo_dtype dtype, gcoo_format format,
                                       int stencil, int64_t n, int64_t row0, int64_t row1,
                                       int32_t p) {
  gcoo_status st = GCOO_SUCCESS;
  int64_t *ptr = NULL;
  int32_t *ind = NULL;
  void *vals = NULL;
  gcoo_sparse csr = NULL;
  GCOO_CHECK(A != NULL, GCOO_ERR_NULL, "output handle is NULL");
  *A = NULL;
  GCOO_CHECK(stencil == 7 || stencil == 27, GCOO_ERR_INVALID_ARG,
             "stencil %d: expected 7 or 27 points", stencil);
  GCOO_CHECK_DTYPE(dtype);
  GCOO_CHECK(n >= 1 && n <= 1290, n < 1 ? GCOO_ERR_INVALID_ARG : GCOO_ERR_TOO_LARGE,
             "grid %lld^3: n must be in [1, 1290] so that n^3 fits a 32-bit index", (long long)n);
  const int64_t N = n * n * n;
  GCOO_CHECK(0 <= row0 && row0 <= row1 && row1 <= N, GCOO_ERR_INVALID_ARG,
             "row range [%lld, %lld) outside the %lld rows of a %lld^3 grid", (long long)row0,
             (long long)row1, (long long)N, (long long)n);
  const int64_t m = row1 - row0;
  GCOO_GOTO(gcoo__calloc((void **)&ptr, (size_t)m + 1, sizeof *ptr, "Poisson row pointer"));
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < m; i++) ptr[i + 1] = poisson_row(stencil, n, row0 + i, dtype, NULL, NULL);
  for (int64_t i = 0; i < m; i++) ptr[i + 1] += ptr[i];
  GCOO_GOTO(gcoo__malloc_n((void **)&ind, ptr[m], sizeof *ind, "Poisson columns"));
  GCOO_GOTO(gcoo__malloc_n(&vals, ptr[m], gcoo_dtype_size(dtype), "Poisson values"));
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < m; i++)
    poisson_row(stencil, n, row0 + i, dtype, ind + ptr[i],
                (char *)vals + (size_t)ptr[i] * gcoo_dtype_size(dtype));
  /* rows come out sorted and without duplicates: adopt the arrays as they are */
  st = gcoo__sparse_adopt(&csr, GCOO_FORMAT_CSR, dtype, m, N, ptr[m], 0, ptr, ind, NULL, NULL, NULL,
                          vals);
  ptr = NULL, ind = NULL, vals = NULL;
  GCOO_GOTO(st);
  if (format == GCOO_FORMAT_CSR) {
    *A = csr;
    csr = NULL;
  } else {
    GCOO_GOTO(gcoo_sparse_convert(A, csr, format, p));
  }
done:
  free(ptr);
  free(ind);
  free(vals);
  gcoo_sparse_destroy(&csr);
  return st;
}

/* ---- random dense rows -------------------------------------------------------------------- */

gcoo_status gcoo_dense_fill_random_rows(gcoo_dense *D, uint64_t seed, int64_t row0) {
  GCOO_CALL(gcoo_dense_check(D));
  GCOO_CHECK(D->mem == GCOO_MEM_HOST, GCOO_ERR_INVALID_ARG, "dense matrix must be in host memory");
  GCOO_CHECK(row0 >= 0, GCOO_ERR_INVALID_ARG, "first row %lld < 0", (long long)row0);
  if (D->nrows == 0 || D->ncols == 0) return GCOO_SUCCESS; /* a 2^40 x 0 matrix is valid */
    /* one stream per global row: the same matrix whatever the thread count, and a rank can make
   * any block of rows by itself */
#pragma omp parallel for schedule(static) if (D->nrows * D->ncols > GCOO_OMP_MIN_WORK)
  for (int64_t i = 0; i < D->nrows; i++) {
    gcoo_rng r;
    gcoo__dense_row_rng(&r, seed, row0 + i);
    for (int64_t j = 0; j < D->ncols; j++) gcoo_dense_set(D, i, j, gcoo__dense_row_next(&r));
  }
  return GCOO_SUCCESS;
}
