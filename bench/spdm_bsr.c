/* SPDX-License-Identifier: MIT */
/* bench/spdm_bsr.c: cuSPARSE's BSR SpMM (generic API, CUSPARSE_SPMM_BSR_ALG1), the peer that a
 * matrix of dense blocks deserves beside cuSPARSE's CSR algorithms (the Kronecker constructions
 * of spdm_bench's section "large" are made of dense b x b blocks; FEM matrices such as the
 * bcsstk ones of 3 x 3). It runs where A has dense blocks: the block size is the largest of
 * 2, 3, 4, 5, 6, 8 that divides both of A's dimensions and whose blocks hold at most
 * BENCH_BSR_MAX_FILL times nnz(A) entries (the explicit zeros they add included); otherwise the
 * case says "no dense blocks". The BSR arrays are made on the host from A's CSR (not timed: the
 * conversion a user of BSR would do once, left out of its set-up in its favour); the set-up
 * timed is the upload, the descriptors, the workspace and cuSPARSE's preprocessing. X and Y are
 * row-major, as for CSR_ALG2 and ALG3; where cuSPARSE does not take row-major operands for BSR,
 * column-major ones (bench_bsr_order says which). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "spdm_bench.h"

#define BSR_CALL(x)                                                                \
  do {                                                                             \
    cusparseStatus_t s_ = (x);                                                     \
    if (s_ != CUSPARSE_STATUS_SUCCESS)                                             \
      return GCOO_ERROR(s_ == CUSPARSE_STATUS_NOT_SUPPORTED ? GCOO_ERR_UNSUPPORTED \
                                                            : GCOO_ERR_CUSPARSE,   \
                        "%s: %s", #x, cusparseGetErrorString(s_));                 \
  } while (0)

#define BSR_CUDA(x)                                                                                \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) return GCOO_ERROR(GCOO_ERR_CUDA, "%s: %s", #x, cudaGetErrorString(e_)); \
  } while (0)

/* Blocks of b x b that A's entries fall into. */
static int64_t count_blocks(const gcoo_sparse_arrays *a, int64_t m, int64_t k, int b,
                            int32_t *mark) {
  const int64_t mb = m / b, kb = k / b;
  int64_t nnzb = 0;
  for (int64_t j = 0; j < kb; j++) mark[j] = -1;
  for (int64_t br = 0; br < mb; br++)
    for (int64_t i = br * b; i < (br + 1) * b; i++)
      for (int64_t e = a->ptr[i]; e < a->ptr[i + 1]; e++) {
        const int64_t bc = a->ind[e] / b;
        if (mark[bc] != (int32_t)br) {
          mark[bc] = (int32_t)br;
          nnzb++;
        }
      }
  return nnzb;
}

int bench_bsr_block(gcoo_sparse A, double *fill) {
  static const int sizes[] = {8, 6, 5, 4, 3, 2};
  gcoo_sparse_info ai;
  gcoo_sparse_arrays a;
  *fill = INFINITY;
  if (gcoo_sparse_get_info(A, &ai) < 0 || gcoo_sparse_get_arrays(A, &a) < 0 || ai.nnz < 1 ||
      ai.format != GCOO_FORMAT_CSR)
    return 0;
  int32_t *mark = malloc((size_t)(ai.ncols > 0 ? ai.ncols : 1) * sizeof *mark);
  if (!mark) return 0;
  int best = 0;
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0] && !best; s++) {
    const int b = sizes[s];
    if (ai.nrows % b || ai.ncols % b || ai.nrows / b > INT32_MAX) continue;
    const double f = (double)count_blocks(&a, ai.nrows, ai.ncols, b, mark) * b * b / (double)ai.nnz;
    if (f < *fill) *fill = f;
    if (f <= BENCH_BSR_MAX_FILL) {
      best = b;
      *fill = f;
    }
  }
  free(mark);
  return best;
}

gcoo_status bench_bsr_make(bench_env *E, gcoo_sparse A, int b, bench_bsr *B) {
  gcoo_sparse_info ai;
  gcoo_sparse_arrays a;
  memset(B, 0, sizeof *B);
  GCOO_CALL(gcoo_sparse_get_info(A, &ai));
  GCOO_CALL(gcoo_sparse_get_arrays(A, &a));
  GCOO_CHECK(b > 1 && ai.nrows % b == 0 && ai.ncols % b == 0, GCOO_ERR_INVALID_ARG,
             "block size %d for a %lld x %lld matrix", b, (long long)ai.nrows, (long long)ai.ncols);
  const int64_t mb = ai.nrows / b, kb = ai.ncols / b;
  const size_t es = gcoo_dtype_size(ai.dtype), bb = (size_t)b * (size_t)b;
  int32_t *mark = malloc((size_t)(kb > 0 ? kb : 1) * sizeof *mark);
  int32_t *slot = malloc((size_t)(kb > 0 ? kb : 1) * sizeof *slot);
  int32_t *rp = malloc((size_t)(mb + 1) * sizeof *rp);
  GCOO_CHECK(mark && slot && rp, GCOO_ERR_NO_MEMORY, "BSR conversion of %lld rows",
             (long long)ai.nrows);
  const int64_t nnzb = count_blocks(&a, ai.nrows, ai.ncols, b, mark);
  int32_t *ci = malloc((size_t)(nnzb > 0 ? nnzb : 1) * sizeof *ci);
  char *val = calloc((size_t)(nnzb > 0 ? nnzb : 1) * bb, es);
  GCOO_CHECK(ci && val && nnzb <= INT32_MAX, GCOO_ERR_NO_MEMORY, "BSR arrays of %lld blocks",
             (long long)nnzb);
  /* block rows: the blocks in the order of their first entry, then sorted by column */
  for (int64_t j = 0; j < kb; j++) mark[j] = -1;
  int64_t n = 0;
  rp[0] = 0;
  for (int64_t br = 0; br < mb; br++) {
    const int64_t first = n;
    for (int64_t i = br * b; i < (br + 1) * b; i++)
      for (int64_t e = a.ptr[i]; e < a.ptr[i + 1]; e++) {
        const int32_t bc = a.ind[e] / b;
        if (mark[bc] != (int32_t)br) {
          mark[bc] = (int32_t)br;
          ci[n++] = bc;
        }
      }
    /* insertion sort of the block row's columns (a few blocks a row) */
    for (int64_t x = first + 1; x < n; x++) {
      const int32_t v = ci[x];
      int64_t y = x;
      while (y > first && ci[y - 1] > v) {
        ci[y] = ci[y - 1];
        y--;
      }
      ci[y] = v;
    }
    for (int64_t x = first; x < n; x++) slot[ci[x]] = (int32_t)x;
    for (int64_t i = br * b; i < (br + 1) * b; i++)
      for (int64_t e = a.ptr[i]; e < a.ptr[i + 1]; e++) {
        const int32_t c = a.ind[e];
        const size_t at = (size_t)slot[c / b] * bb + (size_t)(i - br * b) * (size_t)b +
                          (size_t)(c % b);
        memcpy(val + at * es, (const char *)a.values + (size_t)e * es, es);
      }
    rp[br + 1] = (int32_t)n;
  }
  free(mark);
  free(slot);
  B->bdim = b;
  B->nnzb = nnzb;
  B->mb = mb;
  B->kb = kb;
  B->dtype = ai.dtype;
  /* the set-up a user of BSR pays on the device, timed */
  const double t0 = gcoo__wtime();
  gcoo_status st = GCOO_SUCCESS;
  if (cudaMalloc((void **)&B->rowptr, (size_t)(mb + 1) * sizeof *rp) != cudaSuccess ||
      cudaMalloc((void **)&B->colind, (size_t)(nnzb > 0 ? nnzb : 1) * sizeof *ci) != cudaSuccess ||
      cudaMalloc(&B->values, (size_t)(nnzb > 0 ? nnzb : 1) * bb * es) != cudaSuccess ||
      cudaMemcpy(B->rowptr, rp, (size_t)(mb + 1) * sizeof *rp, cudaMemcpyHostToDevice) !=
          cudaSuccess ||
      cudaMemcpy(B->colind, ci, (size_t)nnzb * sizeof *ci, cudaMemcpyHostToDevice) != cudaSuccess ||
      cudaMemcpy(B->values, val, (size_t)nnzb * bb * es, cudaMemcpyHostToDevice) != cudaSuccess)
    st = GCOO_ERROR(GCOO_ERR_CUDA, "BSR upload (%lld blocks of %d x %d)", (long long)nnzb, b, b);
  free(rp);
  free(ci);
  free(val);
  GCOO_CALL(st);
  const cudaDataType dt = ai.dtype == GCOO_FLOAT64 ? CUDA_R_64F : CUDA_R_32F;
  BSR_CALL(cusparseCreateBsr(&B->A, mb, kb, nnzb, b, b, B->rowptr, B->colind, B->values,
                             CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, dt,
                             CUSPARSE_ORDER_ROW));
  B->setup_ms = 1e3 * (gcoo__wtime() - t0);
  (void)E;
  return GCOO_SUCCESS;
}

gcoo_status bench_bsr_bind(bench_env *E, bench_bsr *B, int slot, void *X, void *Y, int64_t N,
                           gcoo_layout layout) {
  const cudaDataType dt = B->dtype == GCOO_FLOAT64 ? CUDA_R_64F : CUDA_R_32F;
  const int64_t k = B->kb * B->bdim, m = B->mb * B->bdim;
  const int row = layout == GCOO_ROW_MAJOR;
  const double t0 = gcoo__wtime();
  GCOO_CHECK(slot >= 0 && slot < 8, GCOO_ERR_INVALID_ARG, "operand slot %d", slot);
  B->layout = layout;
  BSR_CALL(cusparseCreateDnMat(&B->X[slot], k, N, row ? N : k, X, dt,
                               row ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL));
  BSR_CALL(cusparseCreateDnMat(&B->Y[slot], m, N, row ? N : m, Y, dt,
                               row ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL));
  if (slot == 0) { /* the workspace and cuSPARSE's preprocessing, once */
    const double one_d = 1.0, zero_d = 0.0;
    const float one_f = 1.0f, zero_f = 0.0f;
    const int dbl = B->dtype == GCOO_FLOAT64;
    const void *one = dbl ? (const void *)&one_d : (const void *)&one_f;
    const void *zero = dbl ? (const void *)&zero_d : (const void *)&zero_f;
    size_t bytes = 0;
    BSR_CALL(cusparseSpMM_bufferSize(E->sparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                     CUSPARSE_OPERATION_NON_TRANSPOSE, one, B->A, B->X[0], zero,
                                     B->Y[0], dt, CUSPARSE_SPMM_BSR_ALG1, &bytes));
    BSR_CUDA(cudaMalloc(&B->buffer, bytes ? bytes : 4));
    /* optional in cuSPARSE's contract: where it is not supported, SpMM runs without it */
    B->preprocessed = cusparseSpMM_preprocess(E->sparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                              CUSPARSE_OPERATION_NON_TRANSPOSE, one, B->A, B->X[0],
                                              zero, B->Y[0], dt, CUSPARSE_SPMM_BSR_ALG1,
                                              B->buffer) == CUSPARSE_STATUS_SUCCESS;
    BSR_CUDA(cudaStreamSynchronize(E->stream));
  }
  B->setup_ms += 1e3 * (gcoo__wtime() - t0);
  return GCOO_SUCCESS;
}

gcoo_status bench_bsr_apply(bench_env *E, bench_bsr *B, int slot) {
  const cudaDataType dt = B->dtype == GCOO_FLOAT64 ? CUDA_R_64F : CUDA_R_32F;
  const double one_d = 1.0, zero_d = 0.0;
  const float one_f = 1.0f, zero_f = 0.0f;
  const int dbl = B->dtype == GCOO_FLOAT64;
  BSR_CALL(cusparseSpMM(E->sparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                        CUSPARSE_OPERATION_NON_TRANSPOSE,
                        dbl ? (const void *)&one_d : (const void *)&one_f, B->A, B->X[slot],
                        dbl ? (const void *)&zero_d : (const void *)&zero_f, B->Y[slot], dt,
                        CUSPARSE_SPMM_BSR_ALG1, B->buffer));
  return GCOO_SUCCESS;
}

void bench_bsr_unbind(bench_bsr *B) {
  for (int r = 0; r < 8; r++) {
    if (B->X[r]) cusparseDestroyDnMat(B->X[r]);
    if (B->Y[r]) cusparseDestroyDnMat(B->Y[r]);
    B->X[r] = B->Y[r] = NULL;
  }
  cudaFree(B->buffer);
  B->buffer = NULL;
}

void bench_bsr_free(bench_bsr *B) {
  bench_bsr_unbind(B);
  if (B->A) cusparseDestroySpMat(B->A);
  cudaFree(B->rowptr);
  cudaFree(B->colind);
  cudaFree(B->values);
  memset(B, 0, sizeof *B);
}
