/* SPDX-License-Identifier: MIT */
/* gcoo/blas.h: the few dense block operations iterative solvers need, on the context's backend
 * (OpenMP loops on the CPU, cuBLAS on a GPU), for tall-skinny blocks of vectors (n x k, k small)
 * and small k x k coefficient matrices. Operands are gcoo_dense descriptors in the context's
 * memory space; all operands of one call share one memory space and one element type. */
#ifndef GCOO_BLAS_H
#define GCOO_BLAS_H

#include "gcoo/ctx.h"
#include "gcoo/dense.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Allocate a zeroed nrows x ncols matrix in mem (GCOO_MEM_DEVICE: on the context's GPU).
 *  Free with gcoo_ctx_dense_destroy. Not collective. */
gcoo_status gcoo_ctx_dense_create(gcoo_ctx ctx, gcoo_dense *D, gcoo_dtype dtype, gcoo_layout layout,
                                  int64_t nrows, int64_t ncols, gcoo_memspace mem);
/** Free the storage D owns (made by gcoo_ctx_dense_create on ctx, host or device); D's data
 *  becomes NULL. D NULL, or without data, is accepted; ctx is only needed (and checked:
 *  GCOO_ERR_NULL, GCOO_ERR_INVALID_OBJECT) for device memory; the backend's error (GCOO_ERR_CUDA)
 *  otherwise. Not collective. */
gcoo_status gcoo_ctx_dense_destroy(gcoo_ctx ctx, gcoo_dense *D);

/** dst = src, any memory spaces, same shape, element type and layout (leading dimensions may
 *  differ). Ordered on the context's stream; returns when a device-to-host copy is complete. */
gcoo_status gcoo_ctx_dense_copy(gcoo_ctx ctx, gcoo_dense *dst, const gcoo_dense *src);

/** gcoo_dense_fill_random_rows (gcoo/generate.h) in either memory space: rows [row0, row0 +
 *  D->nrows) of the random matrix of seed, the same values bit for bit; device memory is filled
 *  on the GPU (no host copy of D is made). Ordered on the context's stream. Not collective. */
gcoo_status gcoo_ctx_dense_fill_random_rows(gcoo_ctx ctx, gcoo_dense *D, uint64_t seed,
                                            int64_t row0);

/** sums[0] = the sum of D's elements, sums[1] = the sum of their absolute values, in double and
 *  in one fixed order whatever D's memory space and the thread count: D's storage vectors (rows
 *  of a row-major D, columns of a column-major one) in blocks of 256, each block summed vector
 *  after vector, element after element, the blocks' sums then added in order. Host and device
 *  give the same bits. A device D is summed on the GPU (16 bytes per block come back, not D);
 *  returns when the sums are there. Not collective. */
gcoo_status gcoo_ctx_dense_sums(gcoo_ctx ctx, const gcoo_dense *D, double sums[2]);

/** C = alpha * op(A) * op(B) + beta * C, op(M) = M or M^T (trans != 0). A, B, C of one layout. */
gcoo_status gcoo_blas_gemm(gcoo_ctx ctx, int transA, int transB, double alpha, const gcoo_dense *A,
                           const gcoo_dense *B, double beta, gcoo_dense *C);

/** C = diag(d) * A (row i of A scaled by d[i]); d is an n x 1 (or 1 x n) matrix. C may be A. */
gcoo_status gcoo_blas_dgmm(gcoo_ctx ctx, const gcoo_dense *d, const gcoo_dense *A, gcoo_dense *C);

/** Column-wise dot products: out(0, j) = sum_i A(i, j) B(i, j), out a 1 x k matrix in the
 *  operands' memory space (squared column norms when A = B). Accumulated in double. */
gcoo_status gcoo_blas_coldot(gcoo_ctx ctx, const gcoo_dense *A, const gcoo_dense *B,
                             gcoo_dense *out);

#ifdef __cplusplus
}
#endif
#endif
