// SPDX-License-Identifier: MIT
// kernels/backend/blas_cuda.cu: device side of gcoo/blas.h (copies, cuBLAS GEMM and diagonal
// scaling, column dot products through kernels/common/column_sums.cuh) for the CUDA backend's table of
// functions.
#include "blas_cuda.h"
#include "common/column_sums.cuh"
#include "copy_staged.h"
#include "common/cuda_check.h"

namespace {

// A_ij * B_ij for strided operands, the summand of the column dot products.
template <typename T>
struct coldot_op {
  const T *A;
  int64_t ars, acs;
  const T *B;
  int64_t brs, bcs;
  __device__ double operator()(int64_t i, int64_t j) const {
    return (double)A[i * ars + j * acs] * (double)B[i * brs + j * bcs];
  }
};

inline int64_t rstride(const gcoo_dense *M) { return M->layout == GCOO_ROW_MAJOR ? M->ld : 1; }
inline int64_t cstride(const gcoo_dense *M) { return M->layout == GCOO_ROW_MAJOR ? 1 : M->ld; }

template <typename T>
gcoo_status coldot_t(cudaStream_t s, const gcoo_dense *A, const gcoo_dense *B, gcoo_dense *out) {
  const int64_t n = A->nrows, k = A->ncols;
  if (k == 0) return GCOO_SUCCESS;
  int nblocks = (int)((n + 4095) / 4096);
  if (nblocks < 1) nblocks = 1;
  if (nblocks > 1024) nblocks = 1024;
  double *partial = nullptr;
  GCOO_CALL(
      gcoo__cuda_alloc_async(&partial, sizeof(double) * nblocks * k, "column dot partials", s));
  const coldot_op<T> f = {(const T *)A->data, rstride(A), cstride(A),
                          (const T *)B->data, rstride(B), cstride(B)};
  gcoo_colsum::column_partials<<<nblocks, 256, 256 * sizeof(double), s>>>(n, k, f, partial);
  GCOO_CALL_CUDA(cudaGetLastError());
  int64_t ostride = out->nrows == 1 ? cstride(out) : rstride(out);
  gcoo_colsum::column_totals<T>
      <<<gcoo_colsum::totals_grid(k), 256, 0, s>>>(partial, nblocks, k, (T *)out->data, ostride);
  GCOO_CALL_CUDA(cudaGetLastError());
  GCOO_CALL_CUDA(cudaFreeAsync(partial, s));
  return GCOO_SUCCESS;
}

} // namespace

extern "C" gcoo_status gcoo__cuda_dense_copy(cudaStream_t s, gcoo_dense *dst,
                                             const gcoo_dense *src) {
  size_t es = gcoo_dtype_size(src->dtype);
  int64_t nmaj = src->layout == GCOO_ROW_MAJOR ? src->nrows : src->ncols;
  int64_t nmin = src->layout == GCOO_ROW_MAJOR ? src->ncols : src->nrows;
  if (nmaj == 0 || nmin == 0) return GCOO_SUCCESS;
  // large pageable host <-> device copies are staged through pinned chunks (kernels/backend/copy_staged.c)
  GCOO_CALL(gcoo__cuda_copy_rows(dst->data, (size_t)dst->ld * es, src->data, (size_t)src->ld * es,
                                 (size_t)nmin * es, nmaj, s));
  if (dst->mem == GCOO_MEM_HOST) GCOO_CALL_CUDA(cudaStreamSynchronize(s));
  return GCOO_SUCCESS;
}

extern "C" gcoo_status gcoo__cuda_gemm(cublasHandle_t h, int ta, int tb, double alpha,
                                       const gcoo_dense *A, const gcoo_dense *B, double beta,
                                       gcoo_dense *C) {
  const int m = (int)C->nrows, n = (int)C->ncols, k = (int)(ta ? A->nrows : A->ncols);
  if (m == 0 || n == 0) return GCOO_SUCCESS;
  // One call for both element types: cublasGemmEx with the type's own compute type (FP64, or
  // plain FP32 as cublasSgemm: no TF32), scalars of that type.
  const bool dbl = C->dtype == GCOO_FLOAT64;
  const float af = (float)alpha, bf = (float)beta;
  const void *pa = dbl ? (const void *)&alpha : (const void *)&af;
  const void *pb = dbl ? (const void *)&beta : (const void *)&bf;
  const cudaDataType_t t = dbl ? CUDA_R_64F : CUDA_R_32F;
  const cublasComputeType_t ct = dbl ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
  // cuBLAS is column-major: a row-major C = op(A) op(B) is the column-major C^T = op(B)^T op(A)^T
  const bool rm = C->layout == GCOO_ROW_MAJOR;
  const gcoo_dense *L = rm ? B : A, *R = rm ? A : B;
  const int tl = rm ? tb : ta, tr = rm ? ta : tb;
  GCOO_CALL_CUBLAS(gcoo__cublas.GemmEx(h, tl ? CUBLAS_OP_T : CUBLAS_OP_N,
                                       tr ? CUBLAS_OP_T : CUBLAS_OP_N, rm ? n : m, rm ? m : n, k,
                                       pa, L->data, t, (int)L->ld, R->data, t, (int)R->ld, pb,
                                       C->data, t, (int)C->ld, ct, CUBLAS_GEMM_DEFAULT));
  return GCOO_SUCCESS;
}

extern "C" gcoo_status gcoo__cuda_dgmm(cublasHandle_t h, const gcoo_dense *d, const gcoo_dense *A,
                                       gcoo_dense *C) {
  const int64_t rows = A->nrows, ncols = A->ncols;
  if (rows == 0 || ncols == 0) return GCOO_SUCCESS;
  const int incx = (int)(d->nrows == 1 ? cstride(d) : rstride(d));
  const bool dbl = C->dtype == GCOO_FLOAT64;
  // row-major A (rows x ncols) is column-major A^T (ncols x rows): scaling rows of A scales the
  // columns of A^T, i.e. multiplies from the right
  cublasSideMode_t side = A->layout == GCOO_ROW_MAJOR ? CUBLAS_SIDE_RIGHT : CUBLAS_SIDE_LEFT;
  int m = (int)(A->layout == GCOO_ROW_MAJOR ? ncols : rows);
  int n = (int)(A->layout == GCOO_ROW_MAJOR ? rows : ncols);
  if (dbl)
    GCOO_CALL_CUBLAS(gcoo__cublas.Ddgmm(h, side, m, n, (const double *)A->data, (int)A->ld,
                                        (const double *)d->data, incx, (double *)C->data,
                                        (int)C->ld));
  else
    GCOO_CALL_CUBLAS(gcoo__cublas.Sdgmm(h, side, m, n, (const float *)A->data, (int)A->ld,
                                        (const float *)d->data, incx, (float *)C->data,
                                        (int)C->ld));
  return GCOO_SUCCESS;
}

extern "C" gcoo_status gcoo__cuda_coldot(cudaStream_t s, const gcoo_dense *A, const gcoo_dense *B,
                                         gcoo_dense *out) {
  if (out->dtype == GCOO_FLOAT64) return coldot_t<double>(s, A, B, out);
  return coldot_t<float>(s, A, B, out);
}
