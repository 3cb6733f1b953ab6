/* SPDX-License-Identifier: MIT */
/* solver/amg/amg_csr.c: the host CSR work of AMG's set-up (double): a transpose by counting,
 * columns made local to a halo, rows stacked, the element type's copy, and the products through
 * the library's SpGEMM with its sampled prediction. */
#include <stdlib.h>
#include <string.h>

#include "amg_impl.h"

gcoo_status gcoo__amg_csr_alloc(gcoo__csr_arrays *a, int64_t nrows, int64_t nnz) {
  GCOO_CALL(gcoo__malloc_n((void **)&a->ptr, nrows + 1, sizeof *a->ptr, "AMG rows"));
  GCOO_CALL(gcoo__malloc_n((void **)&a->ind, nnz, sizeof *a->ind, "AMG columns"));
  GCOO_CALL(gcoo__malloc_n(&a->values, nnz, sizeof(double), "AMG values"));
  return GCOO_SUCCESS;
}

gcoo_status gcoo__amg_view(gcoo_sparse M, gcoo_csr_view *v) {
  GCOO_CALL(gcoo__sparse_csr_view(M, v));
  GCOO_CHECK(v->dtype == GCOO_FLOAT64, GCOO_ERR_INTERNAL, "AMG set-up matrices are double");
  return GCOO_SUCCESS;
}

gcoo_status gcoo__amg_transpose(gcoo_sparse A, gcoo_sparse *C) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_csr_view v;
  gcoo__csr_arrays t = {0};
  GCOO_CALL(gcoo__amg_view(A, &v));
  const int64_t m = v.ncols;
  GCOO_GOTO(gcoo__amg_csr_alloc(&t, m, v.nnz));
  memset(t.ptr, 0, (size_t)(m + 1) * sizeof *t.ptr);
  for (int64_t e = 0; e < v.nnz; e++) t.ptr[v.ind[e] + 1]++;
  for (int64_t i = 0; i < m; i++) t.ptr[i + 1] += t.ptr[i];
  const double *av = v.values;
  double *tv = t.values;
  for (int64_t i = 0; i < v.nrows; i++) /* rows in order: every column of C comes out sorted */
    for (int64_t e = v.ptr[i]; e < v.ptr[i + 1]; e++) {
      const int64_t w = t.ptr[v.ind[e]]++;
      t.ind[w] = (int32_t)i;
      tv[w] = av[e];
    }
  for (int64_t i = m; i > 0; i--) t.ptr[i] = t.ptr[i - 1];
  t.ptr[0] = 0;
  GCOO_GOTO(gcoo__csr_arrays_adopt(&t, C, GCOO_FLOAT64, m, v.nrows, v.nnz));
done:
  gcoo__csr_arrays_free(&t);
  return st;
}

/* Place of g in the sorted array a[0..n), or -1. */
static int64_t find_sorted(const int32_t *a, int64_t n, int32_t g) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (a[mid] < g)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && a[lo] == g ? lo : -1;
}

gcoo_status gcoo__amg_compact_columns(gcoo_sparse M, int64_t x0, int64_t xn, int64_t nhalo,
                                      const int32_t *halo, gcoo_sparse *C) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_csr_view v;
  gcoo__csr_arrays t = {0};
  GCOO_CALL(gcoo__amg_view(M, &v));
  GCOO_GOTO(gcoo__amg_csr_alloc(&t, v.nrows, v.nnz));
  memcpy(t.ptr, v.ptr, (size_t)(v.nrows + 1) * sizeof *t.ptr);
  memcpy(t.values, v.values, (size_t)v.nnz * sizeof(double));
  for (int64_t e = 0; e < v.nnz && st >= 0; e++) {
    const int32_t g = v.ind[e];
    if (g >= x0 && g < x0 + xn) {
      t.ind[e] = (int32_t)(g - x0);
    } else {
      const int64_t h = find_sorted(halo, nhalo, g);
      if (h < 0) st = GCOO_ERROR(GCOO_ERR_INTERNAL, "column %d is not in the halo", (int)g);
      t.ind[e] = (int32_t)(xn + h);
    }
  }
  GCOO_GOTO(st);
  GCOO_GOTO(gcoo__csr_arrays_adopt(&t, C, GCOO_FLOAT64, v.nrows, xn + nhalo, v.nnz));
done:
  gcoo__csr_arrays_free(&t);
  return st;
}

gcoo_status gcoo__amg_stack_rows(gcoo_sparse top, gcoo_sparse bottom, gcoo_sparse *C) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_csr_view a, b;
  gcoo__csr_arrays t = {0};
  GCOO_CALL(gcoo__amg_view(top, &a));
  GCOO_CALL(gcoo__amg_view(bottom, &b));
  const int64_t m = a.nrows + b.nrows, nnz = a.nnz + b.nnz;
  GCOO_GOTO(gcoo__amg_csr_alloc(&t, m, nnz));
  memcpy(t.ptr, a.ptr, (size_t)(a.nrows + 1) * sizeof *t.ptr);
  for (int64_t i = 1; i <= b.nrows; i++) t.ptr[a.nrows + i] = a.nnz + b.ptr[i];
  memcpy(t.ind, a.ind, (size_t)a.nnz * sizeof *t.ind);
  memcpy(t.ind + a.nnz, b.ind, (size_t)b.nnz * sizeof *t.ind);
  memcpy(t.values, a.values, (size_t)a.nnz * sizeof(double));
  memcpy((double *)t.values + a.nnz, b.values, (size_t)b.nnz * sizeof(double));
  GCOO_GOTO(gcoo__csr_arrays_adopt(&t, C, GCOO_FLOAT64, m, a.ncols, nnz));
done:
  gcoo__csr_arrays_free(&t);
  return st;
}

gcoo_status gcoo__amg_spgemm(gcoo_ctx ctx, gcoo_sparse A, gcoo_sparse B, gcoo_sparse *C,
                             int64_t *predicted) {
  gcoo_spgemm_info info;
  if (!ctx->ops->spgemm) {
    /* the CPU SpGEMM sizes its row buffers itself; the prediction gives the per-row FLOP it
     * would otherwise count, and the predicted size the report compares with the exact one */
    gcoo_predict_options po = GCOO_PREDICT_OPTIONS_INIT;
    po.method = GCOO_PREDICT_CLASSES; /* the GPU SpGEMM's: 1 % of the rows of each class */
    po.want_row_flop = 1;
    gcoo_prediction pred;
    GCOO_CALL(gcoo_predict(A, B, &po, &pred));
    gcoo_status st = gcoo_spgemm_cpu(A, B, pred.row_flop, C, &info);
    *predicted = pred.nnz_predicted;
    gcoo_prediction_free(&pred);
    GCOO_CALL(st);
    return GCOO_SUCCESS;
  }
  GCOO_CALL(gcoo_spgemm(ctx, A, B, NULL, C, &info));
  *predicted = info.nnz_predicted;
  return GCOO_SUCCESS;
}

gcoo_status gcoo__amg_as_dtype(gcoo_sparse M, gcoo_dtype dtype, gcoo_sparse *C) {
  if (dtype == GCOO_FLOAT64) {
    GCOO_CALL(gcoo__sparse_clone(M, C));
    return GCOO_SUCCESS;
  }
  gcoo_status st = GCOO_SUCCESS;
  gcoo_csr_view v;
  gcoo__csr_arrays t = {0};
  GCOO_CALL(gcoo__amg_view(M, &v));
  GCOO_GOTO(gcoo__malloc_n((void **)&t.ptr, v.nrows + 1, sizeof *t.ptr, "AMG rows"));
  GCOO_GOTO(gcoo__malloc_n((void **)&t.ind, v.nnz, sizeof *t.ind, "AMG columns"));
  GCOO_GOTO(gcoo__malloc_n(&t.values, v.nnz, sizeof(float), "AMG values"));
  memcpy(t.ptr, v.ptr, (size_t)(v.nrows + 1) * sizeof *t.ptr);
  memcpy(t.ind, v.ind, (size_t)v.nnz * sizeof *t.ind);
  for (int64_t e = 0; e < v.nnz; e++) ((float *)t.values)[e] = (float)((const double *)v.values)[e];
  GCOO_GOTO(gcoo__csr_arrays_adopt(&t, C, GCOO_FLOAT32, v.nrows, v.ncols, v.nnz));
done:
  gcoo__csr_arrays_free(&t);
  return st;
}
