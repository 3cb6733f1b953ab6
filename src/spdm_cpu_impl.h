/* SPDX-License-Identifier: MIT */
/* src/spdm_cpu_impl.h: the GCOO kernel of the CPU backend, a C template (see gcoo/template.h).
 * Y = alpha A X + beta Y with S = A^T in GCOO: group q of S (its columns q*p ..) is the block
 * of rows q*p .. of Y, so groups are independent and run in parallel with no atomics; inside a
 * group, entries come by row of S, i.e. by row of X, and each X row is streamed once per entry. */

static void GCOO_FN(spdm_gcoo_cpu)(const gcoo_grouped_view *S, double alpha_d, const gcoo_dense *X,
                                   double beta_d, gcoo_dense *Y) {
  const GCOO_T alpha = (GCOO_T)alpha_d, beta = (GCOO_T)beta_d;
  const GCOO_T *x = X->data, *vals = S->values;
  GCOO_T *y = Y->data;
  const int64_t N = X->ncols;
  /* element (i, j) at i * rs + j * cs */
  const int64_t xrs = X->layout == GCOO_ROW_MAJOR ? X->ld : 1;
  const int64_t xcs = X->layout == GCOO_ROW_MAJOR ? 1 : X->ld;
  const int64_t yrs = Y->layout == GCOO_ROW_MAJOR ? Y->ld : 1;
  const int64_t ycs = Y->layout == GCOO_ROW_MAJOR ? 1 : Y->ld;
  const int unit = xcs == 1 && ycs == 1; /* the reading's own layout: contiguous rows */
#pragma omp parallel for schedule(dynamic, 1) if ((double)(S->nnz + S->ncols) * (double)N > \
                                                  GCOO_OMP_MIN_WORK)
  for (int64_t q = 0; q < S->ngroups; q++) {
    const int64_t c0 = q * S->p, c1 = c0 + S->p < S->ncols ? c0 + S->p : S->ncols;
    for (int64_t c = c0; c < c1; c++)
      for (int64_t j = 0; j < N; j++) {
        GCOO_T *yy = &y[c * yrs + j * ycs];
        *yy = beta == (GCOO_T)0 ? (GCOO_T)0 : beta * *yy;
      }
    for (int64_t k = S->gidx[q]; k < S->gidx[q + 1]; k++) {
      const GCOO_T a = alpha * vals[k];
      const GCOO_T *xr = &x[(int64_t)S->rows[k] * xrs];
      GCOO_T *yr = &y[(int64_t)S->cols[k] * yrs];
      if (unit) {
#pragma omp simd
        for (int64_t j = 0; j < N; j++) yr[j] += a * xr[j];
      } else {
        for (int64_t j = 0; j < N; j++) yr[j * ycs] += a * xr[j * xcs];
      }
    }
  }
}

/* First row of thread t's share of an nnz-balanced split of the m rows (the rows' entries plus
 * one for each row, so that empty rows spread too). */
static inline int64_t GCOO_FN(csr_split)(const int64_t *ptr, int64_t m, int t, int nt) {
  if (t <= 0) return 0;
  if (t >= nt) return m;
  const double goal = (double)(ptr[m] + m) * t / nt;
  int64_t lo = 0, hi = m;
  while (lo < hi) { /* first row i with ptr[i] + i >= goal */
    const int64_t mid = lo + (hi - lo) / 2;
    if ((double)(ptr[mid] + mid) < goal)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* sum_e vals[e] x[ind[e] * xrs] over one row, in double, with four partial sums: a row of
 * tens of entries is otherwise one chain of dependent additions, bound by the adder's latency
 * rather than by memory (bcsstk24, 45 entries a row: SpMV 1.3x faster). The same order on
 * every call. */
static inline double GCOO_FN(csr_row_dot)(const GCOO_T *restrict vals, const int32_t *restrict ind,
                                          const GCOO_T *restrict x, int64_t xrs, int64_t e0,
                                          int64_t e1) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  int64_t e = e0;
  for (; e + 4 <= e1; e += 4) {
    s0 += (double)vals[e] * x[ind[e] * xrs];
    s1 += (double)vals[e + 1] * x[ind[e + 1] * xrs];
    s2 += (double)vals[e + 2] * x[ind[e + 2] * xrs];
    s3 += (double)vals[e + 3] * x[ind[e + 3] * xrs];
  }
  for (; e < e1; e++) s0 += (double)vals[e] * x[ind[e] * xrs];
  return (s0 + s1) + (s2 + s3);
}

/* Rows [r0, r1) of Y = alpha A X + beta Y for a narrow block (N a literal 4, 8 or 16 where it
 * is inlined): a row's N sums stay in registers over the row's entries instead of going
 * through Y's row in memory at every entry (block solvers' k right-hand sides). */
static inline GCOO_SPDM_INLINE void GCOO_FN(csr_rows_narrow)(
    const int64_t *restrict ptr, const int32_t *restrict ind, const GCOO_T *restrict vals,
    const GCOO_T *restrict x, int64_t xrs, GCOO_T *restrict y, int64_t yrs, double alpha,
    double beta, int64_t r0, int64_t r1, const int64_t N) {
  for (int64_t i = r0; i < r1; i++) {
    GCOO_T acc[16];
    for (int64_t j = 0; j < N; j++) acc[j] = (GCOO_T)0;
    for (int64_t e = ptr[i]; e < ptr[i + 1]; e++) {
      const GCOO_T a = vals[e];
      const GCOO_T *restrict xr = &x[(int64_t)ind[e] * xrs];
#pragma omp simd
      for (int64_t j = 0; j < N; j++) acc[j] += a * xr[j];
    }
    GCOO_T *restrict yi = &y[i * yrs];
    if (beta == 0.0)
      for (int64_t j = 0; j < N; j++) yi[j] = (GCOO_T)(alpha * acc[j]);
    else
      for (int64_t j = 0; j < N; j++) yi[j] = (GCOO_T)(alpha * acc[j] + beta * yi[j]);
  }
}

/* Y = alpha A X + beta Y from the CSR of A, rows split over the threads by entries: each row of Y
 * is a sum over its row of A, written once (no atomics, no zeroing pass). One column (SpMV) and
 * contiguous rows of X and Y (SpMM, row-major) have loops of their own. */
static void GCOO_FN(spdm_csr_cpu)(const gcoo_csr_view *A, double alpha, const gcoo_dense *X,
                                  double beta, gcoo_dense *Y) {
  const GCOO_T *restrict x = X->data, *restrict vals = A->values;
  GCOO_T *restrict y = Y->data;
  const int64_t *restrict ptr = A->ptr;
  const int32_t *restrict ind = A->ind;
  const int64_t m = A->nrows, N = X->ncols;
  const int64_t xrs = X->layout == GCOO_ROW_MAJOR ? X->ld : 1;
  const int64_t xcs = X->layout == GCOO_ROW_MAJOR ? 1 : X->ld;
  const int64_t yrs = Y->layout == GCOO_ROW_MAJOR ? Y->ld : 1;
  const int64_t ycs = Y->layout == GCOO_ROW_MAJOR ? 1 : Y->ld;
#pragma omp parallel if ((double)(A->nnz + m) * (double)N > GCOO_OMP_MIN_WORK)
  {
#ifdef _OPENMP
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
#else
    const int t = 0, nt = 1;
#endif
    const int64_t r0 = GCOO_FN(csr_split)(ptr, m, t, nt),
                  r1 = GCOO_FN(csr_split)(ptr, m, t + 1, nt);
    if (N == 1 && xrs == 1 && yrs == 1 && beta == 0.0) { /* SpMV on vectors: the solvers' case */
      for (int64_t i = r0; i < r1; i++)
        y[i] = (GCOO_T)(alpha * GCOO_FN(csr_row_dot)(vals, ind, x, 1, ptr[i], ptr[i + 1]));
    } else if (N == 1) {
      for (int64_t i = r0; i < r1; i++) {
        const double s = GCOO_FN(csr_row_dot)(vals, ind, x, xrs, ptr[i], ptr[i + 1]);
        GCOO_T *yi = &y[i * yrs];
        *yi = (GCOO_T)(beta == 0.0 ? alpha * s : alpha * s + beta * (double)*yi);
      }
    } else if (xcs == 1 && ycs == 1 && (N == 4 || N == 8 || N == 16)) {
      if (N == 4)
        GCOO_FN(csr_rows_narrow)(ptr, ind, vals, x, xrs, y, yrs, alpha, beta, r0, r1, 4);
      else if (N == 8)
        GCOO_FN(csr_rows_narrow)(ptr, ind, vals, x, xrs, y, yrs, alpha, beta, r0, r1, 8);
      else
        GCOO_FN(csr_rows_narrow)(ptr, ind, vals, x, xrs, y, yrs, alpha, beta, r0, r1, 16);
    } else if (xcs == 1 && ycs == 1) {
      for (int64_t i = r0; i < r1; i++) {
        GCOO_T *restrict yi = &y[i * yrs];
        if (beta == 0.0) {
          for (int64_t j = 0; j < N; j++) yi[j] = (GCOO_T)0;
        } else if (beta != 1.0) {
          for (int64_t j = 0; j < N; j++) yi[j] = (GCOO_T)(beta * yi[j]);
        }
        for (int64_t e = ptr[i]; e < ptr[i + 1]; e++) {
          const GCOO_T a = (GCOO_T)(alpha * vals[e]);
          const GCOO_T *restrict xr = &x[(int64_t)ind[e] * xrs];
#pragma omp simd
          for (int64_t j = 0; j < N; j++) yi[j] += a * xr[j];
        }
      }
    } else {
      for (int64_t i = r0; i < r1; i++)
        for (int64_t j = 0; j < N; j++) {
          double s = 0.0;
          for (int64_t e = ptr[i]; e < ptr[i + 1]; e++)
            s += (double)vals[e] * x[ind[e] * xrs + j * xcs];
          GCOO_T *yij = &y[i * yrs + j * ycs];
          *yij = (GCOO_T)(beta == 0.0 ? alpha * s : alpha * s + beta * (double)*yij);
        }
    }
  }
}
