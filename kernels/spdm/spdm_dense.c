/* SPDX-License-Identifier: MIT */
/* kernels/spdm/spdm_dense.c: the dense baselines behind the operator interface: A densified once at
 * setup (row-major m x k on the device), then cuBLAS GEMM per apply: FP32 with the default math
 * (no TF32), TF32 tensor cores (CUBLAS_COMPUTE_32F_FAST_TF32, float only, ~3e-4 relative error),
 * FP64 for double. Any operand layouts (cuBLAS takes transposes).
 *
 * In column-major terms (cuBLAS's), the row-major dense A is A^T (k x m, ld = lda):
 *   Y row-major:     Y^T (N x m) = X^T (N x k) * A^T   -> gemm(opX, N, N, m, k, X, A, Y)
 *   Y column-major:  Y (m x N)   = A (m x k) * X       -> gemm(T, opX', m, N, k, A, X, Y)
 * where X row-major is X^T in column-major (no transpose needed for the first form). */
#include "backend/backend_cuda_impl.h"

gcoo_status gcoo__dense_fits(gcoo_op op, size_t *bytes, int *fits) {
  cuda_op_state *o = gcoo__cuda_op(op);
  const size_t es = gcoo_dtype_size(o->csr.dtype);
  *fits = 0;
  *bytes = 0;
  const double want = (double)o->csr.nrows * (double)o->csr.ncols * (double)es;
  if (want > (double)SIZE_MAX / 2) return GCOO_SUCCESS;
  *bytes = (size_t)want;
  size_t free_b = 0, total_b = 0;
  GCOO_CALL_CUDA(cudaMemGetInfo(&free_b, &total_b));
  *fits = (double)*bytes <= 0.95 * (double)free_b;
  return GCOO_SUCCESS;
}

gcoo_status gcoo__dense_setup(gcoo_op op) {
  cuda_op_state *o = gcoo__cuda_op(op);
  cudaStream_t s = (cudaStream_t)op->ctx->stream;
  size_t bytes = 0;
  int fits = 0;
  o->lda = o->csr.ncols > 0 ? o->csr.ncols : 1;
  cublasHandle_t h;
  GCOO_CALL(gcoo__cuda_blas_handle(op->ctx, &h)); /* cuBLAS is loaded here, not at the product */
  if (o->csr.nrows == 0 || o->csr.ncols == 0) return GCOO_SUCCESS;
  GCOO_CALL(gcoo__dense_fits(op, &bytes, &fits));
  if (!fits) {
    size_t free_b = 0, total_b = 0;
    GCOO_CALL_CUDA(cudaMemGetInfo(&free_b, &total_b));
    return GCOO_ERROR(GCOO_ERR_NO_MEMORY,
                      "the dense copy of A (%lld x %lld) needs %zu bytes of device memory, %zu of "
                      "%zu are free: use a sparse algorithm",
                      (long long)o->csr.nrows, (long long)o->csr.ncols, bytes, free_b, total_b);
  }
  GCOO_CALL(gcoo__cuda_alloc(&o->dense, bytes, "the dense copy of A"));
  o->device_bytes += bytes;
  GCOO_CALL(gcoo_cuda_csr_to_dense(&o->csr, o->dense, o->lda, s));
  return GCOO_SUCCESS;
}

void gcoo__dense_destroy(gcoo_op op) {
  cuda_op_state *o = gcoo__cuda_op(op);
  if (o->dense) cudaFree(o->dense);
  (void)cudaGetLastError();
  o->dense = NULL;
}

gcoo_status gcoo__dense_apply(gcoo_op op, int tf32, double alpha, const cuda_operand *X,
                              double beta, const cuda_operand *Y) {
  cuda_op_state *o = gcoo__cuda_op(op);
  const int dbl = o->csr.dtype == GCOO_FLOAT64;
  GCOO_CHECK(!(tf32 && dbl), GCOO_ERR_UNSUPPORTED, "TF32 GEMM is for float operators only");
  GCOO_CHECK(o->dense != NULL, GCOO_ERR_INTERNAL, "dense copy of A missing");
  const cudaDataType t = dbl ? CUDA_R_64F : CUDA_R_32F;
  const cublasComputeType_t ct = dbl ? CUBLAS_COMPUTE_64F
                                     : (tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F);
  float af = (float)alpha, bf = (float)beta;
  const void *pa = dbl ? (const void *)&alpha : (const void *)&af;
  const void *pb = dbl ? (const void *)&beta : (const void *)&bf;
  const int64_t m = o->csr.nrows, k = o->csr.ncols, n = X->ncols;
  cublasHandle_t h;
  GCOO_CALL(gcoo__cuda_blas_handle(op->ctx, &h));
  GCOO_CALL_CUBLAS(gcoo__cublas.SetStream(h, (cudaStream_t)op->ctx->stream));
  if (Y->layout == GCOO_ROW_MAJOR) {
    const cublasOperation_t opx = X->layout == GCOO_ROW_MAJOR ? CUBLAS_OP_N : CUBLAS_OP_T;
    GCOO_CALL_CUBLAS(gcoo__cublas.GemmEx_64(h, opx, CUBLAS_OP_N, n, m, k, pa, X->data, t, X->ld,
                                            o->dense, t, o->lda, pb, Y->data, t, Y->ld, ct,
                                            CUBLAS_GEMM_DEFAULT));
  } else {
    const cublasOperation_t opx = X->layout == GCOO_COL_MAJOR ? CUBLAS_OP_N : CUBLAS_OP_T;
    GCOO_CALL_CUBLAS(gcoo__cublas.GemmEx_64(h, CUBLAS_OP_T, opx, m, n, k, pa, o->dense, t, o->lda,
                                            X->data, t, X->ld, pb, Y->data, t, Y->ld, ct,
                                            CUBLAS_GEMM_DEFAULT));
  }
  return GCOO_SUCCESS;
}
