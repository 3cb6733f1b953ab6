/* SPDX-License-Identifier: MIT */
/* src/frames.h: the operator's two frames (the CSR of A, the GCOO of S = A^T) and the
 * conversions between them (src/convert_frame.c), and operators made from or asked for them
 * (src/op.c). */
#ifndef GCOO_SRC_FRAMES_H
#define GCOO_SRC_FRAMES_H

#include "gcoo/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the operator's two frames (src/convert_frame.c): single passes, in place where possible
 * (docs/readings.md; docs/datapath.md). */
/** A copy in the same format (arrays copied, nothing re-sorted). */
gcoo_status gcoo__sparse_clone(gcoo_sparse A, gcoo_sparse *B);
/** A CSR matrix turned, in place, into the CSC of its transpose (or CSC into CSR): the same
 *  arrays, dimensions swapped. */
gcoo_status gcoo__sparse_flip_compressed(gcoo_sparse A);
/** CSR of A (m x k) -> GCOO of S = A^T (k x m), groups of p rows of A, in place: *A is consumed
 *  (its index array becomes the rows of S, its values are permuted inside each group; one new
 *  array, the columns of S). *A is destroyed on failure too. */
gcoo_status gcoo__csr_to_gcoo_of_transpose(gcoo_sparse *A, int32_t p, gcoo_sparse *S);
/** GCOO of S (k x m) -> CSR of A = S^T (m x k), a new matrix: one counting pass per group. */
gcoo_status gcoo__gcoo_to_csr_of_transpose(gcoo_sparse S, gcoo_sparse *A);
/** Row r of the new CSR *B is row order[r] of the CSR A (order: a permutation of 0 .. m - 1,
 *  checked; entries inside a row unchanged). */
gcoo_status gcoo__csr_rows_permuted(gcoo_sparse A, const int32_t *order, gcoo_sparse *B);
/** A caller's matrix (A for GCOO_SPARSE_DENSE, S for GCOO_DENSE_SPARSE, any format) as an owned
 *  copy in one of an operator's two frames, with at most one conversion: the CSR of A, or the
 *  GCOO of S as given. */
gcoo_status gcoo__sparse_frame_copy(gcoo_sparse A, gcoo_reading reading, gcoo_sparse *out);

/** An operator from a slab already in one of its two frames, taken over (no copy): *A is the
 *  CSR of A (m x k) or the GCOO of S = A^T (k x m, groups of rows of A), whatever the reading
 *  in opts (which only decides how apply reads its operands). *A is NULL afterwards, on
 *  failure too. */
gcoo_status gcoo__op_create_take(gcoo_op *op, gcoo_ctx ctx, gcoo_sparse *A,
                                 const gcoo_op_options *opts);
/** The operator's matrix as a new CSR of A (the SPARSE_DENSE frame), from what it holds. */
gcoo_status gcoo__op_csr(gcoo_op op, gcoo_sparse *A_csr);
/** Rows rows[0..n) (strictly increasing, local to the operator, A frame) as a new n x k CSR,
 *  from what the operator holds on the host; for checks, O(entries of the rows' groups). */
gcoo_status gcoo__op_rows(gcoo_op op, const int64_t *rows, int64_t n, gcoo_sparse *R);

#ifdef __cplusplus
}
#endif
#endif
