/* SPDX-License-Identifier: MIT */
/* src/spgemm_rows.c: the pass over A that every SpGEMM and every prediction starts with: the
 * FLOP of each row of C = A B and exact bounds on its NNZ, with 64-bit totals. */
#include "spgemm_rows.h"

gcoo_status gcoo__spgemm_operands(gcoo_sparse A, gcoo_sparse B, gcoo_sparse *Acsr,
                                  gcoo_sparse *Bcsr, gcoo_csr_view *va, gcoo_csr_view *vb) {
  gcoo_sparse_info ai, bi;
  *Acsr = NULL;
  *Bcsr = NULL;
  GCOO_CALL(gcoo_sparse_get_info(A, &ai));
  GCOO_CALL(gcoo_sparse_get_info(B, &bi));
  GCOO_CHECK(ai.ncols == bi.nrows, GCOO_ERR_SHAPE,
             "C = A B: A is %lld x %lld but B is %lld x %lld (inner dimensions differ)",
             (long long)ai.nrows, (long long)ai.ncols, (long long)bi.nrows, (long long)bi.ncols);
  if (ai.format != GCOO_FORMAT_CSR) {
    GCOO_CALL(gcoo_sparse_convert(Acsr, A, GCOO_FORMAT_CSR, 0));
    A = *Acsr;
  }
  if (bi.format != GCOO_FORMAT_CSR) {
    gcoo_status st = gcoo_sparse_convert(Bcsr, B, GCOO_FORMAT_CSR, 0);
    if (st < 0) {
      gcoo_sparse_destroy(Acsr);
      GCOO_CALL(st);
    }
    B = *Bcsr;
  }
  GCOO_CALL(gcoo__sparse_csr_view(A, va));
  GCOO_CALL(gcoo__sparse_csr_view(B, vb));
  return GCOO_SUCCESS;
}

gcoo_status gcoo__row_flop_bounds(const gcoo_csr_view *A, const gcoo_csr_view *B, int64_t *flop,
                                  int32_t *lo, int32_t *hi, gcoo_row_bounds *tot) {
  const int64_t M = A->nrows, N = B->ncols;
  int64_t F = 0, L = 0, H = 0, fmax = 0, hmax = 0;
  const int64_t *bp = B->ptr;
#pragma omp parallel for schedule(static) reduction(+ : F, L, H) reduction(max : fmax, hmax)
  for (int64_t i = 0; i < M; i++) {
    int64_t f = 0, l = 0;
    for (int64_t a = A->ptr[i]; a < A->ptr[i + 1]; a++) {
      const int32_t k = A->ind[a];
      const int64_t len = bp[k + 1] - bp[k];
      f += len;
      if (len > l) l = len;
    }
    const int64_t h = f < N ? f : N;
    if (flop) flop[i] = f;
    if (lo) lo[i] = (int32_t)l;
    if (hi) hi[i] = (int32_t)h;
    F += f;
    L += l;
    H += h;
    if (f > fmax) fmax = f;
    if (h > hmax) hmax = h;
  }
  tot->flop_total = F;
  tot->lo_total = L;
  tot->hi_total = H;
  tot->flop_max = fmax;
  tot->hi_max = hmax;
  return GCOO_SUCCESS;
}
