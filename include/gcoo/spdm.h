/* SPDX-License-Identifier: MIT */
/* gcoo/spdm.h: sparse x dense products (SpDM) with the GCOO format, in two readings.
 *
 * THE TWO READINGS (the one place this mapping is written; docs/readings.md explains it):
 *
 *   GCOO_DENSE_SPARSE, the paper's:  C = alpha * B * S + beta * C
 *       S (k x n) sparse, B (M x k) and C (M x n) dense COLUMN-major.
 *   GCOO_SPARSE_DENSE, SpMM:          Y = alpha * A * X + beta * Y
 *       A (m x k) sparse, X (k x N) and Y (m x N) dense ROW-major.
 *
 * A column-major M x k buffer read as row-major is its k x M transpose, so C = B S column-major
 * is exactly C^T = S^T B^T row-major: with A = S^T, X = B^T, Y = C^T the two readings are one
 * computation on the same buffers. gcoo stores GCOO of S, i.e. groups of p COLUMNS of S, which
 * are groups of p ROWS of A; one kernel serves both, and no data is copied to switch readings.
 * A thread block owns one group: p columns of C (p rows of Y), and every entry S(r, c) = A(c, r)
 * adds v * B(:, r) = v * X(r, :) into C(:, c) = Y(c, :).
 *
 * Operators are persistent: gcoo_op_create partitions nothing (see gcoo/dist.h for that) but
 * converts to GCOO, moves the matrix to the context's device and picks the kernel once; every
 * gcoo_op_apply then costs only the kernel. */
#ifndef GCOO_SPDM_H
#define GCOO_SPDM_H

#include "gcoo/ctx.h"
#include "gcoo/dense.h"
#include "gcoo/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Which computation gcoo_op_apply runs. */
typedef enum gcoo_reading {
  GCOO_SPARSE_DENSE = 0, /**< Y = alpha A X + beta Y, X and Y row-major (SpMM) */
  GCOO_DENSE_SPARSE = 1  /**< C = alpha B S + beta C, B and C column-major (the paper's) */
} gcoo_reading;

/** Algorithm of a product. AUTO applies the dispatch rule of docs/dispatch.md. */
typedef enum gcoo_spdm_alg {
  GCOO_ALG_AUTO = 0,              /**< the fastest measured choice for the shape and sparsity */
  GCOO_ALG_GCOO = 1,              /**< GCOOSpDM, tuned for the device */
  GCOO_ALG_GCOO_FAITHFUL = 2,     /**< GCOOSpDM as published: p = 4, b = 128, one output a thread */
  GCOO_ALG_CUSPARSE = 3,          /**< cuSPARSE SpMM, CSR, the algorithm chosen for the layout */
  GCOO_ALG_CUSPARSE_DEFAULT = 4,  /**< cuSPARSE CUSPARSE_SPMM_ALG_DEFAULT */
  GCOO_ALG_CUSPARSE_CSR_ALG2 = 5, /**< cuSPARSE CUSPARSE_SPMM_CSR_ALG2 (row-major operands) */
  GCOO_ALG_CUSPARSE_CSR_ALG3 = 6, /**< cuSPARSE CUSPARSE_SPMM_CSR_ALG3 */
  GCOO_ALG_DENSE = 7,             /**< cuBLAS GEMM on the densified matrix, full FP32/FP64 */
  GCOO_ALG_DENSE_TF32 = 8,        /**< cuBLAS GEMM with TF32 tensor cores (float only) */
  GCOO_ALG_REFERENCE = 9,         /**< the CPU reference (host operands) */
  GCOO_ALG_CSR = 10               /**< CSR rows split over threads by entries (CPU backend) */
} gcoo_spdm_alg;

/** Name of an algorithm ("gcoo", "cusparse_csr_alg2", ...): a static string, "unknown" for a
 *  value outside the enumeration. */
const char *gcoo_spdm_alg_name(gcoo_spdm_alg alg);
/** The algorithm named name (as gcoo_spdm_alg_name spells it), or -1 if unknown or NULL. */
int gcoo_spdm_alg_from_name(const char *name);

/** Arithmetic an operator may use. EXACT (the default) multiplies in the operator's own
 *  precision (FP32 or FP64). TF32 allows, for float operators on the CUDA backend, the GCOO
 *  tensor-core mode (TF32 inputs, FP32 accumulation; docs/kernels.md, "The tensor-core mode"): per
 *  element |y - exact| <= (2^-10 + (n_i + 4) 2^-23) |alpha| (|A||X|)_ij with n_i the entries of row
 *  i, i.e. about 1e-3 of |A||X| instead of n_i 6e-8. With TF32, AUTO and GCOO_ALG_GCOO run that
 *  mode; other algorithms, double operators and the CPU backend stay exact (as cuBLAS's TF32 math
 *  mode leaves double alone). */
typedef enum gcoo_math {
  GCOO_MATH_EXACT = 0, /**< the operator's own precision throughout */
  GCOO_MATH_TF32 = 1   /**< float: tensor cores with TF32 inputs allowed */
} gcoo_math;

/** Options of an operator. Initialise with GCOO_OP_OPTIONS_INIT, then set what you need. */
typedef struct gcoo_op_options {
  size_t size;          /**< sizeof(gcoo_op_options): lets the struct grow compatibly */
  gcoo_reading reading; /**< which computation */
  gcoo_spdm_alg alg;    /**< GCOO_ALG_AUTO or a forced algorithm */
  int32_t p;            /**< GCOO group width; 0: the backend's tuned default */
  int64_t ncols_hint; /**< expected width of the dense operand (N or M) for dispatch; 0: unknown */
  gcoo_math math; /**< GCOO_MATH_EXACT (default) or GCOO_MATH_TF32 (float, CUDA: tensor cores) */
} gcoo_op_options;

/** The defaults: sparse x dense reading, algorithm chosen by the library, default p. */
#define GCOO_OP_OPTIONS_INIT \
  { sizeof(gcoo_op_options), GCOO_SPARSE_DENSE, GCOO_ALG_AUTO, 0, 0, GCOO_MATH_EXACT }

/** A persistent SpDM operator (opaque): the matrix in the kernel's layout on the context. */
typedef struct gcoo_op_s *gcoo_op;

/** Make a persistent operator from a sparse matrix of any format: A for GCOO_SPARSE_DENSE,
 *  S for GCOO_DENSE_SPARSE. The matrix is copied; the caller may destroy it afterwards. *op
 *  receives the operator (NULL on failure; free it with gcoo_op_destroy); ctx must outlive it;
 *  opts may be NULL (the defaults). Errors: GCOO_ERR_NULL, GCOO_ERR_INVALID_OBJECT (ctx or A),
 *  GCOO_ERR_INVALID_ARG (options: an uninitialised size, unknown reading or algorithm, p < 0),
 *  GCOO_ERR_UNSUPPORTED (an algorithm the backend or dtype lacks), GCOO_ERR_NO_MEMORY and the
 *  backend's (GCOO_ERR_CUDA, GCOO_ERR_CUSPARSE, ...). */
gcoo_status gcoo_op_create(gcoo_op *op, gcoo_ctx ctx, gcoo_sparse A, const gcoo_op_options *opts);

/** Apply the operator. For GCOO_SPARSE_DENSE: X (k x N), Y (m x N); for GCOO_DENSE_SPARSE:
 *  X = B (M x k), Y = C (M x n). Operands in host memory or (CUDA backend) device memory; both
 *  must be in the same space and of the operator's element type. Layouts other than the
 *  reading's are served by cuSPARSE, cuBLAS or the reference (the GCOO kernel needs the
 *  reading's layout). On the CUDA backend the call is asynchronous for device operands. Y is
 *  written, X only read; beta = 0 ignores Y's old values (NaN included). Errors: GCOO_ERR_NULL,
 *  GCOO_ERR_INVALID_OBJECT, GCOO_ERR_SHAPE (operands that do not fit), GCOO_ERR_DTYPE,
 *  GCOO_ERR_INVALID_ARG (operands in different memory spaces), the backend's. */
gcoo_status gcoo_op_apply(gcoo_op op, double alpha, const gcoo_dense *X, double beta,
                          gcoo_dense *Y);

/** What an operator chose and what it cost to set up. */
typedef struct gcoo_op_info {
  gcoo_reading reading;      /**< the computation the operator serves */
  gcoo_dtype dtype;          /**< element type of the operator */
  gcoo_spdm_alg alg;         /**< the algorithm AUTO resolved to (or the forced one) */
  int32_t p;                 /**< group width of its GCOO */
  int64_t nrows, ncols, nnz; /**< shape and entries of the sparse operand as given (A or S) */
  double setup_seconds;      /**< conversion to GCOO and upload, measured */
  size_t device_bytes;       /**< device memory the operator holds */
} gcoo_op_info;

/** Fill *info (caller's struct) for op. GCOO_ERR_NULL (op or info NULL),
 *  GCOO_ERR_INVALID_OBJECT (op not a live operator). */
gcoo_status gcoo_op_get_info(gcoo_op op, gcoo_op_info *info);

/** Free an operator; *op becomes NULL (NULL and a pointer to NULL are accepted). */
gcoo_status gcoo_op_destroy(gcoo_op *op);

/** One-shot Y = alpha A X + beta Y (an operator made, applied once and freed). */
gcoo_status gcoo_spdm(gcoo_ctx ctx, double alpha, gcoo_sparse A, const gcoo_dense *X, double beta,
                      gcoo_dense *Y);

/** One-shot C = alpha B S + beta C, the paper's reading. */
gcoo_status gcoo_dnsp(gcoo_ctx ctx, double alpha, const gcoo_dense *B, gcoo_sparse S, double beta,
                      gcoo_dense *C);

/** CPU reference Y = alpha A X + beta Y: any sparse format, any host layouts, OpenMP over rows,
 *  accumulation in double. The yardstick every other path is checked against. */
gcoo_status gcoo_spdm_reference(double alpha, gcoo_sparse A, const gcoo_dense *X, double beta,
                                gcoo_dense *Y);

/** CPU reference C = alpha B S + beta C: any sparse format, any host layouts. */
gcoo_status gcoo_dnsp_reference(double alpha, const gcoo_dense *B, gcoo_sparse S, double beta,
                                gcoo_dense *C);

#ifdef __cplusplus
}
#endif
#endif
