/* SPDX-License-Identifier: MIT */
/* kernels/backend/blas_cuda.h: device side of gcoo/blas.h (kernels/backend/blas_cuda.cu), called by the CUDA
 * backend's table in backend_cuda.c with the context's device current and its stream/handle. */
#ifndef GCOO_BLAS_CUDA_H
#define GCOO_BLAS_CUDA_H

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "backend_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

gcoo_status gcoo__cuda_dense_copy(cudaStream_t s, gcoo_dense *dst, const gcoo_dense *src);
gcoo_status gcoo__cuda_gemm(cublasHandle_t h, int ta, int tb, double alpha, const gcoo_dense *A,
                            const gcoo_dense *B, double beta, gcoo_dense *C);
gcoo_status gcoo__cuda_dgmm(cublasHandle_t h, const gcoo_dense *d, const gcoo_dense *A,
                            gcoo_dense *C);
gcoo_status gcoo__cuda_coldot(cudaStream_t s, const gcoo_dense *A, const gcoo_dense *B,
                              gcoo_dense *out);

#ifdef __cplusplus
}
#endif
#endif
