/* SPDX-License-Identifier: MIT */
/* solver/amg/amg_prolong.c: the near-null space B of the finest level, the tentative
 * prolongator P_t from the aggregates (per aggregate, the QR factorisation of its rows of B:
 * Q gives P_t's entries, so that P_t B_c = B with B_c = R, and P_t^T P_t = I), and its
 * smoothing P = (I - w D^-1 A) P_t. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amg_impl.h"

gcoo_status gcoo__amg_nullspace(gcoo_pc pc, int64_t n, double **Bout, int *bout) {
  double *B = NULL;
  *Bout = NULL;
  if (pc->nullspace.data) {
    const gcoo_dense *N = &pc->nullspace;
    GCOO_CHECK(N->nrows == n, GCOO_ERR_SHAPE,
               "the near-null space has %lld rows on this rank, the operator %lld",
               (long long)N->nrows, (long long)n);
    const int b = (int)N->ncols;
    GCOO_CALL(gcoo__malloc_n((void **)&B, n * b, sizeof *B, "AMG near-null space"));
    for (int64_t i = 0; i < n; i++)
      for (int m = 0; m < b; m++) B[i * b + m] = gcoo_dense_get(N, i, m);
    *Bout = B;
    *bout = b;
    return GCOO_SUCCESS;
  }
  if (pc->coords.data) {
    const gcoo_dense *X = &pc->coords;
    const int dim = (int)X->ncols, b = dim == 2 ? 3 : 6;
    GCOO_CHECK(X->nrows * dim == n, GCOO_ERR_SHAPE,
               "%lld nodes of %d unknowns on this rank, the operator has %lld rows",
               (long long)X->nrows, dim, (long long)n);
    GCOO_CALL(gcoo__calloc((void **)&B, (size_t)(n * b), sizeof *B, "AMG rigid-body modes"));
    for (int64_t v = 0; v < X->nrows; v++) {
      const double x = gcoo_dense_get(X, v, 0), y = gcoo_dense_get(X, v, 1);
      double *r = B + v * dim * b; /* rows of the node's dim unknowns, b modes each */
      for (int c = 0; c < dim; c++) r[c * b + c] = 1.0; /* translations */
      if (dim == 2) {
        r[0 * b + 2] = -y; /* rotation in the plane */
        r[1 * b + 2] = x;
      } else {
        const double z = gcoo_dense_get(X, v, 2);
        r[0 * b + 3] = -y, r[1 * b + 3] = x; /* about z */
        r[1 * b + 4] = -z, r[2 * b + 4] = y; /* about x */
        r[0 * b + 5] = z, r[2 * b + 5] = -x; /* about y */
      }
    }
    *Bout = B;
    *bout = b;
    return GCOO_SUCCESS;
  }
  GCOO_CALL(gcoo__malloc_n((void **)&B, n, sizeof *B, "AMG near-null space"));
  for (int64_t i = 0; i < n; i++) B[i] = 1.0;
  *Bout = B;
  *bout = 1;
  return GCOO_SUCCESS;
}

/* QR of one aggregate's m x b rows of B (column-major in W, m >= 1): W becomes Q's m x b
 * columns (zero past min(m, b)), R its b x b upper triangle (row-major, zero rows past m). */
static gcoo_status agg_qr(int m, int b, double *W, double *R, double *tau, double *work,
                          int lwork) {
  int info = 0;
  const int k = m < b ? m : b;
  dgeqrf_(&m, &b, W, &m, tau, work, &lwork, &info);
  GCOO_CHECK(info == 0, GCOO_ERR_INTERNAL, "LAPACK dgeqrf: info %d", info);
  for (int r = 0; r < b; r++)
    for (int c = 0; c < b; c++) R[r * b + c] = r < k && c >= r ? W[r + (int64_t)c * m] : 0.0;
  dorgqr_(&m, &k, &k, W, &m, tau, work, &lwork, &info);
  GCOO_CHECK(info == 0, GCOO_ERR_INTERNAL, "LAPACK dorgqr: info %d", info);
  for (int c = k; c < b; c++)
    for (int r = 0; r < m; r++) W[r + (int64_t)c * m] = 0.0;
  return GCOO_SUCCESS;
}

gcoo_status gcoo__amg_tentative(const amg_level *L, const double *B, int b, int64_t col0,
                                int64_t ncols, gcoo_sparse *Pt, double *Bc) {
  gcoo_status st = GCOO_SUCCESS;
  const int bs = L->bs;
  const int64_t n = L->n, nn = n / bs, na = L->nagg;
  int64_t *aptr = NULL;
  int32_t *alist = NULL;
  double *W = NULL, *tau = NULL, *work = NULL;
  gcoo__csr_arrays t = {0};
  /* the nodes of every aggregate, in order (a counting sort) */
  GCOO_GOTO(gcoo__calloc((void **)&aptr, (size_t)na + 2, sizeof *aptr, "AMG aggregates"));
  GCOO_GOTO(gcoo__malloc_n((void **)&alist, nn, sizeof *alist, "AMG aggregates"));
  for (int64_t v = 0; v < nn; v++)
    if (L->agg[v] >= 0) aptr[L->agg[v] + 2]++;
  for (int64_t a = 0; a < na; a++) aptr[a + 2] += aptr[a + 1];
  for (int64_t v = 0; v < nn; v++)
    if (L->agg[v] >= 0) alist[aptr[L->agg[v] + 1]++] = (int32_t)v;
  /* rows of P_t: b entries for an aggregated unknown, none otherwise */
  int64_t nnz = 0;
  for (int64_t v = 0; v < nn; v++) nnz += L->agg[v] >= 0 ? (int64_t)bs * b : 0;
  GCOO_GOTO(gcoo__amg_csr_alloc(&t, n, nnz));
  t.ptr[0] = 0;
  for (int64_t i = 0; i < n; i++) t.ptr[i + 1] = t.ptr[i] + (L->agg[i / bs] >= 0 ? b : 0);
  double *pv = t.values;
  if (b == 1) {
    for (int64_t a = 0; a < na; a++) {
      double s = 0.0;
      for (int64_t q = aptr[a]; q < aptr[a + 1]; q++)
        for (int64_t i = (int64_t)alist[q] * bs; i < ((int64_t)alist[q] + 1) * bs; i++)
          s += B[i] * B[i];
      const double r = sqrt(s), inv = r > 0.0 ? 1.0 / r : 0.0;
      Bc[a] = r;
      for (int64_t q = aptr[a]; q < aptr[a + 1]; q++)
        for (int64_t i = (int64_t)alist[q] * bs; i < ((int64_t)alist[q] + 1) * bs; i++) {
          t.ind[t.ptr[i]] = (int32_t)(col0 + a);
          pv[t.ptr[i]] = B[i] * inv;
        }
    }
  } else {
    int64_t mmax = 0;
    for (int64_t a = 0; a < na; a++)
      if ((aptr[a + 1] - aptr[a]) * bs > mmax) mmax = (aptr[a + 1] - aptr[a]) * bs;
    const int lwork = 64 * b;
    GCOO_GOTO(gcoo__malloc_n((void **)&W, mmax * b, sizeof *W, "AMG QR"));
    GCOO_GOTO(gcoo__malloc_n((void **)&tau, b, sizeof *tau, "AMG QR"));
    GCOO_GOTO(gcoo__malloc_n((void **)&work, lwork, sizeof *work, "AMG QR"));
    for (int64_t a = 0; a < na; a++) {
      const int m = (int)((aptr[a + 1] - aptr[a]) * bs);
      int r = 0;
      for (int64_t q = aptr[a]; q < aptr[a + 1]; q++)
        for (int64_t i = (int64_t)alist[q] * bs; i < ((int64_t)alist[q] + 1) * bs; i++, r++)
          for (int c = 0; c < b; c++) W[r + (int64_t)c * m] = B[i * b + c];
      GCOO_GOTO(agg_qr(m, b, W, Bc + a * b * b, tau, work, lwork));
      r = 0;
      for (int64_t q = aptr[a]; q < aptr[a + 1]; q++)
        for (int64_t i = (int64_t)alist[q] * bs; i < ((int64_t)alist[q] + 1) * bs; i++, r++)
          for (int c = 0; c < b; c++) {
            t.ind[t.ptr[i] + c] = (int32_t)(col0 + a * b + c);
            pv[t.ptr[i] + c] = W[r + (int64_t)c * m];
          }
    }
  }
  GCOO_GOTO(gcoo__csr_arrays_adopt(&t, Pt, GCOO_FLOAT64, n, ncols, nnz));
done:
  gcoo__csr_arrays_free(&t);
  free(aptr);
  free(alist);
  free(W);
  free(tau);
  free(work);
  return st;
}

gcoo_status gcoo__amg_smooth_prolongator(gcoo_sparse APt, gcoo_sparse Pt, const double *diag,
                                         double w, gcoo_sparse *P) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_csr_view a, p;
  gcoo__csr_arrays t = {0};
  GCOO_CALL(gcoo__amg_view(APt, &a));
  GCOO_CALL(gcoo__amg_view(Pt, &p));
  GCOO_GOTO(gcoo__amg_csr_alloc(&t, a.nrows, a.nnz + p.nnz));
  const double *av = a.values, *pv = p.values;
  double *tv = t.values;
  int64_t w_ = 0;
  t.ptr[0] = 0;
  for (int64_t i = 0; i < a.nrows; i++) {
    const double s = diag[i] != 0.0 ? -w / diag[i] : 0.0;
    int64_t x = a.ptr[i], y = p.ptr[i];
    const int64_t x1 = a.ptr[i + 1], y1 = p.ptr[i + 1];
    while (x < x1 || y < y1) { /* merge of two sorted rows */
      if (y >= y1 || (x < x1 && a.ind[x] < p.ind[y])) {
        t.ind[w_] = a.ind[x];
        tv[w_++] = s * av[x++];
      } else if (x >= x1 || p.ind[y] < a.ind[x]) {
        t.ind[w_] = p.ind[y];
        tv[w_++] = pv[y++];
      } else {
        t.ind[w_] = a.ind[x];
        tv[w_++] = s * av[x++] + pv[y++];
      }
    }
    t.ptr[i + 1] = w_;
  }
  GCOO_GOTO(gcoo__csr_arrays_adopt(&t, P, GCOO_FLOAT64, a.nrows, a.ncols, w_));
done:
  gcoo__csr_arrays_free(&t);
  return st;
}
