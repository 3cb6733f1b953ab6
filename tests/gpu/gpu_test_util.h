/* SPDX-License-Identifier: MIT */
/* tests/gpu/gpu_test_util.h: helpers the SpDM GPU tests (and their CPU-emulated twin) share:
 * the CPU GCOO every GPU conversion must equal, array comparison, dense operands with odd
 * leading dimensions and misaligned starts, and the reference product. */
#ifndef GCOO_GPU_TEST_UTIL_H
#define GCOO_GPU_TEST_UTIL_H

#include "gcoo_test.h"

/** CPU GCOO of S = A^T with group width p (what gcoo_sparse_convert of the transpose gives). */
gcoo_sparse gt_cpu_gcoo_of_transpose(gcoo_sparse A, int32_t p);

/** Compare GCOO arrays (host copies) with the CPU object; counts failures and prints the first
 *  difference of each array. what names the case. */
void gt_check_gcoo_equal(const char *what, gcoo_sparse cpu, const int64_t *gidx,
                         const int64_t *gnnz, const int32_t *rows, const int32_t *cols,
                         const void *values);

/** Distinct (row / p, column) pairs of A (CPU, for the reuse statistics). */
int64_t gt_cpu_distinct(gcoo_sparse A, int64_t p);

/** A host row-major rows x cols matrix inside a buffer of rows * ld + offset elements whose data
 *  starts `offset` elements in (offset 1 misaligns 16-byte access); random values. Free with
 *  gt_dense_free. */
gcoo_dense gt_dense_padded(gcoo_dtype dtype, int64_t rows, int64_t cols, int64_t ld, int offset,
                           uint64_t seed);
void gt_dense_free(gcoo_dense *D, int offset);

/** Relative error bound for a product of A's rows (by the longest row). */
double gt_tolerance(gcoo_sparse A);

/** Longest row of a CSR matrix. */
int64_t gt_max_row(gcoo_sparse A);

/** A CSR m x k matrix with power-law rows (what the row-split kernel is for): row i has about
 *  `longest` / (i % 61 + 1)^2 entries on distinct random columns (so rows 0, 61, 122, ... are the
 *  long ones, at most k), every fifth row empty, random values in [-1, 1]. */
gcoo_sparse gt_power_law(gcoo_dtype dtype, int64_t m, int64_t k, int64_t longest, uint64_t seed);

/** The tensor-core mode's bound (docs/kernels.md, "The tensor-core mode") checked element by
 *  element: for a float CSR A, host row-major X (k x N), Y0 (m x N, what Y held before) and the
 *  result Y, max over (i, j) of |Y - ref| / bound_ij with ref = alpha A X + beta Y0 in double and
 *  bound_ij = (2^-10 + (n_i + 4) 2^-23) |alpha| (|A||X|)_ij + 2^-24 |beta Y0_ij| + 1e-30 (n_i:
 *  entries of row i). <= 1: the bound holds everywhere; NaN anywhere gives INFINITY. *relerr
 *  (optional) receives ||Y - ref|| / ||ref||. Y0 is not read when beta = 0. */
double gt_tc_bound_ratio(gcoo_sparse A, double alpha, const gcoo_dense *X, double beta,
                         const gcoo_dense *Y0, const gcoo_dense *Y, double *relerr);

#endif
