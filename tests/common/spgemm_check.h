/* SPDX-License-Identifier: MIT */
/* tests/common/spgemm_check.h: the yardstick of the SpGEMM tests (header only, static): a row-wise
 * dense-accumulator product in double written to be obviously right, compared with a computed C
 * entry by entry (same structural pattern, sorted columns, values within a tolerance), plus
 * generators of structured test matrices. */
#ifndef GCOO_SPGEMM_CHECK_H
#define GCOO_SPGEMM_CHECK_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gcoo_test.h"

static inline double spgemm_check_val(gcoo_dtype t, const void *v, int64_t k) {
  return t == GCOO_FLOAT64 ? ((const double *)v)[k] : (double)((const float *)v)[k];
}

/* CSR copy of any matrix (the caller destroys it). */
static inline gcoo_sparse spgemm_check_csr(gcoo_sparse A) {
  gcoo_sparse C = NULL;
  TEST_CALL(gcoo_sparse_convert(&C, A, GCOO_FORMAT_CSR, 0));
  return C;
}

/* Exact structural nnz of A B, per row if row_nnz != NULL, by a dense marker per row. */
static inline int64_t spgemm_check_nnz(gcoo_sparse A, gcoo_sparse B, int64_t *row_nnz) {
  gcoo_sparse Ac = spgemm_check_csr(A), Bc = spgemm_check_csr(B);
  gcoo_sparse_info ai, bi;
  gcoo_sparse_arrays a, b;
  TEST_CALL(gcoo_sparse_get_info(Ac, &ai));
  TEST_CALL(gcoo_sparse_get_info(Bc, &bi));
  TEST_CALL(gcoo_sparse_get_arrays(Ac, &a));
  TEST_CALL(gcoo_sparse_get_arrays(Bc, &b));
  int64_t *mark = malloc((size_t)(bi.ncols + 1) * sizeof *mark), total = 0;
  for (int64_t j = 0; j < bi.ncols; j++) mark[j] = -1;
  for (int64_t i = 0; i < ai.nrows; i++) {
    int64_t n = 0;
    for (int64_t p = a.ptr[i]; p < a.ptr[i + 1]; p++)
      for (int64_t q = b.ptr[a.ind[p]]; q < b.ptr[a.ind[p] + 1]; q++)
        if (mark[b.ind[q]] != i) {
          mark[b.ind[q]] = i;
          n++;
        }
    if (row_nnz) row_nnz[i] = n;
    total += n;
  }
  free(mark);
  gcoo_sparse_destroy(&Ac);
  gcoo_sparse_destroy(&Bc);
  return total;
}

/* Check C == A B: C is CSR, m x n, sorted unique columns, the structural pattern of A B, and
 * ||C - ref||_F / ||ref||_F <= tol. Returns the relative error (INFINITY on a pattern error,
 * with a message on stderr). */
static inline double spgemm_check(gcoo_sparse A, gcoo_sparse B, gcoo_sparse C, const char *what) {
  gcoo_sparse Ac = spgemm_check_csr(A), Bc = spgemm_check_csr(B);
  gcoo_sparse_info ai, bi, ci;
  gcoo_sparse_arrays a, b, c;
  TEST_CALL(gcoo_sparse_get_info(Ac, &ai));
  TEST_CALL(gcoo_sparse_get_info(Bc, &bi));
  TEST_CALL(gcoo_sparse_get_info(C, &ci));
  TEST_CALL(gcoo_sparse_get_arrays(Ac, &a));
  TEST_CALL(gcoo_sparse_get_arrays(Bc, &b));
  TEST_CALL(gcoo_sparse_get_arrays(C, &c));
  double err = 0.0, ref = 0.0;
  int bad = 0;
  if (ci.format != GCOO_FORMAT_CSR || ci.nrows != ai.nrows || ci.ncols != bi.ncols) {
    fprintf(stderr, "%s: C is %lld x %lld (format %d), expected CSR %lld x %lld\n", what,
            (long long)ci.nrows, (long long)ci.ncols, (int)ci.format, (long long)ai.nrows,
            (long long)bi.ncols);
    bad = 1;
  }
  double *acc = calloc((size_t)(bi.ncols + 1), sizeof *acc);
  char *hit = calloc((size_t)(bi.ncols + 1), 1);
  for (int64_t i = 0; i < ai.nrows && !bad; i++) {
    int64_t n = 0;
    for (int64_t p = a.ptr[i]; p < a.ptr[i + 1]; p++) {
      const double av = spgemm_check_val(ai.dtype, a.values, p);
      for (int64_t q = b.ptr[a.ind[p]]; q < b.ptr[a.ind[p] + 1]; q++) {
        const int32_t j = b.ind[q];
        if (!hit[j]) n++;
        hit[j] = 1;
        acc[j] += av * spgemm_check_val(bi.dtype, b.values, q);
      }
    }
    if (c.ptr[i + 1] - c.ptr[i] != n) {
      fprintf(stderr, "%s: row %lld has %lld entries, expected %lld\n", what, (long long)i,
              (long long)(c.ptr[i + 1] - c.ptr[i]), (long long)n);
      bad = 1;
    }
    for (int64_t q = c.ptr[i]; q < c.ptr[i + 1] && !bad; q++) {
      const int32_t j = c.ind[q];
      if (j < 0 || j >= bi.ncols || !hit[j] || (q > c.ptr[i] && c.ind[q - 1] >= j)) {
        fprintf(stderr, "%s: row %lld: column %d unexpected, repeated or out of order\n", what,
                (long long)i, j);
        bad = 1;
        break;
      }
      const double v = spgemm_check_val(ci.dtype, c.values, q);
      if (isnan(v)) bad = 1;
      err += (v - acc[j]) * (v - acc[j]);
    }
    for (int64_t p = a.ptr[i]; p < a.ptr[i + 1]; p++)
      for (int64_t q = b.ptr[a.ind[p]]; q < b.ptr[a.ind[p] + 1]; q++) {
        const int32_t j = b.ind[q];
        if (hit[j]) ref += acc[j] * acc[j];
        hit[j] = 0;
        acc[j] = 0.0;
      }
  }
  free(acc);
  free(hit);
  gcoo_sparse_destroy(&Ac);
  gcoo_sparse_destroy(&Bc);
  if (bad) return INFINITY;
  return ref > 0.0 ? sqrt(err / ref) : (err > 0.0 ? INFINITY : 0.0);
}

/* CSR of dtype from COO triplets in double (repeats summed); the triplet arrays are freed. */
static inline gcoo_sparse spgemm_check_from_coo(gcoo_dtype dtype, int64_t m, int64_t n, int64_t k,
                                                int32_t *r, int32_t *c, double *v) {
  gcoo_sparse coo = NULL, A = NULL, out = NULL;
  TEST_CALL(gcoo_sparse_create_coo(&coo, GCOO_FLOAT64, m, n, k, r, c, v, 0));
  TEST_CALL(gcoo_sparse_convert(&A, coo, GCOO_FORMAT_CSR, 0));
  gcoo_sparse_destroy(&coo);
  if (dtype != GCOO_FLOAT64) {
    TEST_CALL(gcoo_sparse_astype(&out, A, dtype));
    gcoo_sparse_destroy(&A);
    A = out;
  }
  free(r);
  free(c);
  free(v);
  return A;
}

/* The 5-point Laplacian of an nx x ny grid (a mesh matrix, as CSR). */
static inline gcoo_sparse spgemm_check_laplacian(gcoo_dtype dtype, int nx, int ny) {
  const int64_t n = (int64_t)nx * ny;
  int32_t *r = malloc((size_t)(5 * n + 1) * sizeof *r),
          *c = malloc((size_t)(5 * n + 1) * sizeof *c);
  double *v = malloc((size_t)(5 * n + 1) * sizeof *v);
  int64_t k = 0;
  for (int y = 0; y < ny; y++)
    for (int x = 0; x < nx; x++) {
      const int32_t i = y * nx + x;
      const int32_t nb[5] = {i, x > 0 ? i - 1 : -1, x + 1 < nx ? i + 1 : -1, y > 0 ? i - nx : -1,
                             y + 1 < ny ? i + nx : -1};
      for (int t = 0; t < 5; t++)
        if (nb[t] >= 0) {
          r[k] = i;
          c[k] = nb[t];
          v[k++] = t == 0 ? 4.0 : -1.0;
        }
    }
  return spgemm_check_from_coo(dtype, n, n, k, r, c, v);
}

/* A power-law-ish matrix: row i has about `avg` entries, a few rows far more (hubs), columns
 * skewed towards small indices; seeded. */
static inline gcoo_sparse spgemm_check_powerlaw(gcoo_dtype dtype, int64_t m, int64_t n, int avg,
                                                uint64_t seed) {
  int64_t cap = m * avg * 4 + 1000, k = 0;
  int32_t *r = malloc((size_t)cap * sizeof *r), *c = malloc((size_t)cap * sizeof *c);
  double *v = malloc((size_t)cap * sizeof *v);
  uint64_t x = seed * 2654435761u + 12345u;
#define SPG_NEXT() \
  (x = x * 6364136223846793005ull + 1442695040888963407ull, (double)(x >> 11) / 9007199254740992.0)
  for (int64_t i = 0; i < m; i++) {
    double u = SPG_NEXT();
    int64_t deg = (int64_t)(avg * 0.5 / sqrt(u + 1e-4)); /* heavy tail */
    if (deg > n) deg = n;
    if (k + deg > cap) deg = cap - k;
    for (int64_t t = 0; t < deg; t++) {
      double w = SPG_NEXT();
      r[k] = (int32_t)i;
      c[k] = (int32_t)((double)n * w * w); /* skewed to small columns */
      v[k++] = 2.0 * SPG_NEXT() - 1.0;
    }
  }
#undef SPG_NEXT
  return spgemm_check_from_coo(dtype, m, n, k, r, c, v);
}

/* m x n with d entries a row on seeded uniform random columns (repeats summed); values are
 * multiples of 1/512 in [-1, 1). */
static inline gcoo_sparse spgemm_check_uniform(gcoo_dtype dtype, int64_t m, int64_t n, int64_t d,
                                               uint64_t seed) {
  const int64_t k = m * d;
  int32_t *r = malloc((size_t)(k + 1) * sizeof *r), *c = malloc((size_t)(k + 1) * sizeof *c);
  double *v = malloc((size_t)(k + 1) * sizeof *v);
  uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
  for (int64_t q = 0; q < k; q++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    r[q] = (int32_t)(q / d);
    c[q] = (int32_t)((x >> 33) % (uint64_t)n);
    v[q] = (double)((x >> 11) & 1023) / 512.0 - 1.0;
  }
  return spgemm_check_from_coo(dtype, m, n, k, r, c, v);
}

#endif
