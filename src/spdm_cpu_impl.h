/* SPDX-License-Identifier: MIT */
/* src/spdm_cpu_impl.h: the GCOO kernel of the CPU backend, a C template (see gcoo/template.h).
 * Y = alpha A X + beta Y with S = A^T in GCOO: group q of S (its columns q*p ..) is the block
 * of rows q*p .. of Y, so groups are independent and run in parallel with no atomics; inside a
 * group, entries come by row of S, i.e. by row of X, and each X row is streamed once per entry. */

static void GCOO_FN(spdm_gcoo_cpu)(const gcoo_gcoo_view *S, double alpha_d, const gcoo_dense *X,
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
