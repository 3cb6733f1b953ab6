/* SPDX-License-Identifier: MIT */
/* src/blas_cpu_impl.h: host dense block operations, a C template (see gcoo/template.h).
 * Shapes are tall-skinny (n x k with k small) or small (k x k): the loops parallelise over the
 * long dimension, and a product whose inner dimension is the long one (Gram matrices V^T W)
 * is reduced from per-thread partial sums in double. */

static inline GCOO_T GCOO_FN(at)(const gcoo_dense *M, int trans, int64_t i, int64_t j) {
  const GCOO_T *d = M->data;
  if (trans) {
    int64_t t = i;
    i = j;
    j = t;
  }
  return M->layout == GCOO_ROW_MAJOR ? d[i * M->ld + j] : d[i + j * M->ld];
}

static inline GCOO_T *GCOO_FN(ref)(gcoo_dense *M, int64_t i, int64_t j) {
  GCOO_T *d = M->data;
  return M->layout == GCOO_ROW_MAJOR ? &d[i * M->ld + j] : &d[i + j * M->ld];
}

static gcoo_status GCOO_FN(gemm_host)(int ta, int tb, double alpha, const gcoo_dense *A,
                                      const gcoo_dense *B, double beta, gcoo_dense *C) {
  const int64_t m = C->nrows, n = C->ncols, K = ta ? A->nrows : A->ncols;
  if (K > 4 * m * n && K > 1024) {
    /* long inner dimension: per-thread partial products, then a sum */
    double *acc = NULL;
    GCOO_CALL(gcoo__calloc((void **)&acc, (size_t)(m * n), sizeof *acc, "gemm partial sums"));
    int failed = 0;
#pragma omp parallel
    {
      double *part = calloc((size_t)(m * n), sizeof *part);
      if (!part) {
#pragma omp atomic write
        failed = 1;
      }
#pragma omp for schedule(static)
      for (int64_t l = 0; l < K; l++) {
        if (!part) continue;
        for (int64_t i = 0; i < m; i++) {
          double a = GCOO_FN(at)(A, ta, i, l);
          if (a == 0.0) continue;
          for (int64_t j = 0; j < n; j++) part[i * n + j] += a * GCOO_FN(at)(B, tb, l, j);
        }
      }
      if (part) {
#pragma omp critical
        for (int64_t t = 0; t < m * n; t++) acc[t] += part[t];
      }
      free(part);
    }
    if (!failed)
      for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
          GCOO_T *c = GCOO_FN(ref)(C, i, j);
          *c = (GCOO_T)(alpha * acc[i * n + j] + (beta != 0.0 ? beta * (double)*c : 0.0));
        }
    free(acc);
    GCOO_CHECK(!failed, GCOO_ERR_NO_MEMORY, "no memory for per-thread gemm sums");
    return GCOO_SUCCESS;
  }
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      double s = 0.0;
      for (int64_t l = 0; l < K; l++)
        s += (double)GCOO_FN(at)(A, ta, i, l) * GCOO_FN(at)(B, tb, l, j);
      GCOO_T *c = GCOO_FN(ref)(C, i, j);
      *c = (GCOO_T)(alpha * s + (beta != 0.0 ? beta * (double)*c : 0.0));
    }
  return GCOO_SUCCESS;
}

static gcoo_status GCOO_FN(dgmm_host)(const gcoo_dense *d, const gcoo_dense *A, gcoo_dense *C) {
  const GCOO_T *dv = d->data;
  const int64_t dstride = d->nrows == 1 ? (d->layout == GCOO_ROW_MAJOR ? 1 : d->ld)
                                        : (d->layout == GCOO_ROW_MAJOR ? d->ld : 1);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < A->nrows; i++)
    for (int64_t j = 0; j < A->ncols; j++)
      *GCOO_FN(ref)(C, i, j) = dv[i * dstride] * GCOO_FN(at)(A, 0, i, j);
  return GCOO_SUCCESS;
}

static gcoo_status GCOO_FN(coldot_host)(const gcoo_dense *A, const gcoo_dense *B, gcoo_dense *out) {
  const int64_t n = A->nrows, k = A->ncols;
  double *acc = NULL;
  GCOO_CALL(gcoo__calloc((void **)&acc, (size_t)(k > 0 ? k : 1), sizeof *acc, "column dots"));
  int failed = 0;
#pragma omp parallel
  {
    double *part = calloc((size_t)(k > 0 ? k : 1), sizeof *part);
    if (!part) {
#pragma omp atomic write
      failed = 1;
    }
#pragma omp for schedule(static)
    for (int64_t i = 0; i < n; i++)
      if (part)
        for (int64_t j = 0; j < k; j++)
          part[j] += (double)GCOO_FN(at)(A, 0, i, j) * GCOO_FN(at)(B, 0, i, j);
    if (part) {
#pragma omp critical
      for (int64_t j = 0; j < k; j++) acc[j] += part[j];
    }
    free(part);
  }
  for (int64_t j = 0; j < k && !failed; j++)
    *GCOO_FN(ref)(out, out->nrows == 1 ? 0 : j, out->nrows == 1 ? j : 0) = (GCOO_T)acc[j];
  free(acc);
  GCOO_CHECK(!failed, GCOO_ERR_NO_MEMORY, "no memory for per-thread column dots");
  return GCOO_SUCCESS;
}
