/* SPDX-License-Identifier: MIT */
/* gcoo/dense.h: dense matrices are plain descriptors of the caller's buffers (no copy). */
#ifndef GCOO_DENSE_H
#define GCOO_DENSE_H

#include "gcoo/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A dense nrows x ncols matrix in a buffer gcoo does not own (unless made by
 *  gcoo_dense_create). Element (i, j) is data[i * ld + j] in row-major layout and
 *  data[i + j * ld] in column-major layout; ld >= ncols (row-major) or >= nrows (column-major). */
typedef struct gcoo_dense {
  gcoo_dtype dtype;   /**< element type */
  gcoo_layout layout; /**< GCOO_ROW_MAJOR or GCOO_COL_MAJOR */
  gcoo_memspace mem;  /**< host, or device memory of the context's GPU */
  int64_t nrows;      /**< rows */
  int64_t ncols;      /**< columns */
  int64_t ld;         /**< leading dimension, in elements */
  void *data;         /**< first element */
  int owned;          /**< 1 if gcoo_dense_create allocated data (freed by gcoo_dense_destroy) */
} gcoo_dense;

/** Describe a caller's host buffer; ld = 0 means the natural leading dimension. */
static inline gcoo_dense gcoo_dense_wrap(void *data, gcoo_dtype dtype, gcoo_layout layout,
                                         int64_t nrows, int64_t ncols, int64_t ld) {
  gcoo_dense d;
  d.dtype = dtype;
  d.layout = layout;
  d.mem = GCOO_MEM_HOST;
  d.nrows = nrows;
  d.ncols = ncols;
  d.ld = ld ? ld : (layout == GCOO_ROW_MAJOR ? ncols : nrows);
  d.data = data;
  d.owned = 0;
  return d;
}

/** Allocate a zeroed host matrix with the natural leading dimension. Not collective. */
gcoo_status gcoo_dense_create(gcoo_dense *D, gcoo_dtype dtype, gcoo_layout layout, int64_t nrows,
                              int64_t ncols);

/** Free a matrix made by gcoo_dense_create (no-op for wrapped buffers); resets *D. */
void gcoo_dense_destroy(gcoo_dense *D);

/** Check a descriptor: non-negative sizes, ld large enough, data non-NULL when not empty. */
gcoo_status gcoo_dense_check(const gcoo_dense *D);

/** Value of element (i, j) of a host matrix as a double (for checks and small tools). */
double gcoo_dense_get(const gcoo_dense *D, int64_t i, int64_t j);

/** Set element (i, j) of a host matrix. */
void gcoo_dense_set(gcoo_dense *D, int64_t i, int64_t j, double v);

/** Fill a host matrix with uniform random values in [-1, 1) from a seeded, reproducible
 *  generator (the same seed gives the same matrix on every machine and rank count). */
gcoo_status gcoo_dense_fill_random(gcoo_dense *D, uint64_t seed);

/** Fill a host matrix with one value (NaN poisons outputs before a run in the tests). */
gcoo_status gcoo_dense_fill(gcoo_dense *D, double value);

#ifdef __cplusplus
}
#endif
#endif
