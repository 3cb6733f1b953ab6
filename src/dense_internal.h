/* SPDX-License-Identifier: MIT */
/* src/dense_internal.h: dense matrices inside the library: overlapping operands, the transpose as
 * a view, and the one definition of gcoo_ctx_dense_sums's blocks for the host and the GPU. */
#ifndef GCOO_SRC_DENSE_INTERNAL_H
#define GCOO_SRC_DENSE_INTERNAL_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/** 1 if the elements of two dense matrices in the same memory space share bytes (an output
 *  that overlaps an input), 0 otherwise; empty matrices overlap nothing. */
int gcoo__dense_overlap(const gcoo_dense *a, const gcoo_dense *b);

/** The transpose of a dense matrix as a view of the same buffer (the readings' mapping:
 *  a column-major matrix read as row-major is its transpose). */
static inline gcoo_dense gcoo__dense_transposed(const gcoo_dense *D) {
  gcoo_dense T = *D;
  T.nrows = D->ncols;
  T.ncols = D->nrows;
  T.layout = D->layout == GCOO_ROW_MAJOR ? GCOO_COL_MAJOR : GCOO_ROW_MAJOR;
  T.owned = 0;
  return T;
}

/** gcoo_ctx_dense_sums's order: a dense array's storage vectors (rows of a row-major matrix,
 *  columns of a column-major one) in blocks of GCOO_DENSE_SUM_BLOCK, each block's sum and sum of
 *  absolute values taken vector after vector, element after element, in double; the blocks are
 *  then added in order (src/blas.c). The one definition of a block's sums for the host and the
 *  GPU (kernels/backend/dense_sums.cu), so both give the same bits. */
#define GCOO_DENSE_SUM_BLOCK 256
#define GCOO__DENSE_BLOCK_SUM(T, sfx)                                                      \
  static inline GCOO_HOST_DEVICE void gcoo__dense_block_sum_##sfx(const T *d, int64_t ld,  \
                                                                  int64_t len, int64_t v0, \
                                                                  int64_t v1, double *sum, \
                                                                  double *abs) {           \
    double s = 0.0, a = 0.0;                                                               \
    for (int64_t v = v0; v < v1; v++)                                                      \
      for (int64_t e = 0; e < len; e++) {                                                  \
        const double x = (double)d[v * ld + e];                                            \
        s += x;                                                                            \
        a += x < 0 ? -x : x;                                                               \
      }                                                                                    \
    *sum = s;                                                                              \
    *abs = a;                                                                              \
  }
GCOO__DENSE_BLOCK_SUM(float, f32)
GCOO__DENSE_BLOCK_SUM(double, f64)
#undef GCOO__DENSE_BLOCK_SUM
/** gcoo_ctx_dense_sums's blocks of D: *nvec storage vectors of *len elements, returns the number
 *  of blocks; block b holds vectors [*v0, *v1) (gcoo__dense_sum_block). */
static inline int64_t gcoo__dense_sum_blocks(const gcoo_dense *D, int64_t *nvec, int64_t *len) {
  *nvec = D->layout == GCOO_ROW_MAJOR ? D->nrows : D->ncols;
  *len = D->layout == GCOO_ROW_MAJOR ? D->ncols : D->nrows;
  return (*nvec + GCOO_DENSE_SUM_BLOCK - 1) / GCOO_DENSE_SUM_BLOCK;
}
static inline GCOO_HOST_DEVICE void gcoo__dense_sum_block(int64_t b, int64_t nvec, int64_t *v0,
                                                          int64_t *v1) {
  *v0 = b * GCOO_DENSE_SUM_BLOCK;
  *v1 = *v0 + GCOO_DENSE_SUM_BLOCK < nvec ? *v0 + GCOO_DENSE_SUM_BLOCK : nvec;
}

#ifdef __cplusplus
}
#endif
#endif
