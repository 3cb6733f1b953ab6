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

/* C = alpha A^T B + beta C with A (K x m) and B (K x n) row-major, K long (Gram matrices of
 * blocks of vectors): each thread sums the outer products of its rows into its own m x n
 * partial, the partials are added in thread order. */
static gcoo_status GCOO_FN(gram_rowmajor)(double alpha, const gcoo_dense *A, const gcoo_dense *B,
                                          double beta, gcoo_dense *C) {
  const int64_t K = A->nrows, m = A->ncols, n = B->ncols, mn = m * n;
  const int64_t la = A->ld, lb = B->ld;
  const GCOO_T *a = A->data, *b = B->data;
  int nt = 1;
#ifdef _OPENMP
  nt = omp_get_max_threads();
#endif
  const int par = (double)K * (double)mn > GCOO_OMP_MIN_WORK;
  if (!par) nt = 1;
  double *part = NULL;
#if GCOO_HAVE_LAPACK
  const int blas = GCOO_DT == GCOO_FLOAT64 && K <= INT32_MAX && la <= INT32_MAX && lb <= INT32_MAX;
  if (blas && !gcoo__blas_serial()) nt = 1;
#else
  const int blas = 0;
#endif
  GCOO_CALL(gcoo__calloc((void **)&part, (size_t)nt * (size_t)(mn + 8), sizeof *part,
                         "gemm partial sums"));
#pragma omp parallel num_threads(nt) if (nt > 1)
  {
#ifdef _OPENMP
    const int t = omp_get_thread_num(), T = omp_get_num_threads();
#else
    const int t = 0, T = 1;
#endif
    const int64_t i0 = K * t / T, i1 = K * (t + 1) / T;
    double *restrict acc = part + (size_t)t * (size_t)(mn + 8);
#if GCOO_HAVE_LAPACK
    if (blas) { /* the partial is A_t^T B_t: column-major B_t^T A_t, the same bytes */
      const int im = (int)m, in = (int)n, rows = (int)(i1 - i0), ia = (int)la, ib = (int)lb;
      const double one = 1.0, zero = 0.0;
      if (rows > 0)
        dgemm_("N", "T", &in, &im, &rows, &one, (const double *)b + i0 * lb, &ib,
               (const double *)a + i0 * la, &ia, &zero, acc, &in);
    }
#endif
    for (int64_t i = blas ? i1 : i0; i < i1; i++) {
      const GCOO_T *restrict ai = a + i * la, *restrict bi = b + i * lb;
      for (int64_t p = 0; p < m; p++) {
        const double ap = ai[p];
        if (ap == 0.0) continue;
        double *restrict row = acc + p * n;
        for (int64_t q = 0; q < n; q++) row[q] += ap * (double)bi[q];
      }
    }
  }
  for (int64_t p = 0; p < m; p++)
    for (int64_t q = 0; q < n; q++) {
      double v = 0.0;
      for (int t = 0; t < nt; t++) v += part[(size_t)t * (size_t)(mn + 8) + p * n + q];
      GCOO_T *c = GCOO_FN(ref)(C, p, q);
      *c = (GCOO_T)(alpha * v + (beta != 0.0 ? beta * (double)*c : 0.0));
    }
  free(part);
  return GCOO_SUCCESS;
}

/* C = alpha A T + beta C with A (m x K) row-major, K small, and T (K x n) small: row by row. */
static gcoo_status GCOO_FN(tall_times_small)(double alpha, const gcoo_dense *A, const gcoo_dense *T,
                                             double beta, gcoo_dense *C) {
  const int64_t m = A->nrows, K = A->ncols, n = T->ncols;
  const int64_t la = A->ld, lt = T->ld, lc = C->ld;
  const GCOO_T *a = A->data, *tt = T->data;
  GCOO_T *c = C->data;
#if GCOO_HAVE_LAPACK
  if (GCOO_DT == GCOO_FLOAT64 && m <= INT32_MAX && la <= INT32_MAX && lc <= INT32_MAX) {
    /* column-major: C^T = T^T A^T, each thread its rows of A and C */
    int nt = 1;
#ifdef _OPENMP
    if (gcoo__blas_serial() && (double)m * (double)(K * n) > GCOO_OMP_MIN_WORK)
      nt = omp_get_max_threads();
#endif
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
#ifdef _OPENMP
      const int t = omp_get_thread_num(), nth = omp_get_num_threads();
#else
      const int t = 0, nth = 1;
#endif
      const int64_t i0 = m * t / nth, i1 = m * (t + 1) / nth;
      const int rows = (int)(i1 - i0), in = (int)n, ik = (int)K, ia = (int)la, it = (int)lt,
                ic = (int)lc;
      if (rows > 0)
        dgemm_("N", "N", &in, &rows, &ik, &alpha, (const double *)tt, &it,
               (const double *)a + i0 * la, &ia, &beta, (double *)c + i0 * lc, &ic);
    }
    return GCOO_SUCCESS;
  }
#endif
#pragma omp parallel for schedule(static) if ((double)m * (double)(K * n) > GCOO_OMP_MIN_WORK)
  for (int64_t i = 0; i < m; i++) {
    const GCOO_T *restrict ai = a + i * la;
    GCOO_T *restrict ci = c + i * lc;
    double acc[64];
    for (int64_t q0 = 0; q0 < n; q0 += 64) {
      const int64_t qn = n - q0 < 64 ? n - q0 : 64;
      for (int64_t q = 0; q < qn; q++) acc[q] = 0.0;
      for (int64_t l = 0; l < K; l++) {
        const double al = ai[l];
        if (al == 0.0) continue;
        const GCOO_T *restrict tl = tt + l * lt + q0;
        for (int64_t q = 0; q < qn; q++) acc[q] += al * (double)tl[q];
      }
      for (int64_t q = 0; q < qn; q++)
        ci[q0 + q] = (GCOO_T)(alpha * acc[q] + (beta != 0.0 ? beta * (double)ci[q0 + q] : 0.0));
    }
  }
  return GCOO_SUCCESS;
}

static gcoo_status GCOO_FN(gemm_host)(int ta, int tb, double alpha, const gcoo_dense *A,
                                      const gcoo_dense *B, double beta, gcoo_dense *C) {
  const int64_t m = C->nrows, n = C->ncols, K = ta ? A->nrows : A->ncols;
  /* the shapes of block methods, row-major: Gram matrices V^T W and tall blocks times small ones */
  if (A->layout == GCOO_ROW_MAJOR && !tb) {
    if (ta && K > 4 * m * n) return GCOO_FN(gram_rowmajor)(alpha, A, B, beta, C);
    if (!ta && K <= 256 && n <= 256 && m > 4 * K)
      return GCOO_FN(tall_times_small)(alpha, A, B, beta, C);
  }
  if (K > 4 * m * n && K > 1024) {
    /* long inner dimension: per-thread partial products, then a sum */
    double *acc = NULL;
    GCOO_CALL(gcoo__calloc((void **)&acc, (size_t)(m * n), sizeof *acc, "gemm partial sums"));
    int failed = 0;
#pragma omp parallel if ((double)K * (double)(m * n) > GCOO_OMP_MIN_WORK)
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
#pragma omp parallel if ((double)n * (double)k > GCOO_OMP_MIN_WORK)
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
