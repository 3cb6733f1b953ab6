/* SPDX-License-Identifier: MIT */
/* src/sparse_impl.h: the sparse matrix object, private to src/ (other layers use
 * gcoo_sparse_get_arrays and the views of gcoo/backend.h). */
#ifndef GCOO_SPARSE_IMPL_H
#define GCOO_SPARSE_IMPL_H

#include "backend_impl.h"

struct gcoo_sparse_s {
  uint64_t magic;
  gcoo_format format;
  gcoo_dtype dtype;
  int64_t nrows, ncols, nnz;
  int32_t p;       /* GCOO only */
  int64_t ngroups; /* GCOO only */
  int64_t *ptr;    /* CSR rowptr / CSC colptr */
  int32_t *ind;    /* CSR colind / CSC rowind */
  int32_t *rows;   /* COO, GCOO */
  int32_t *cols;   /* COO, GCOO */
  int64_t *gidx;   /* GCOO gIdxes (ngroups + 1) */
  int64_t *gnnz;   /* GCOO nnzPerGroup (ngroups) */
  void *values;
};

/* Coordinates sorted by (row, column) without duplicates: the hub every conversion goes
 * through (any format -> triplets -> any format), so each format needs one way in, one way out. */
typedef struct gcoo_triplets {
  gcoo_dtype dtype;
  int64_t nrows, ncols, nnz;
  int32_t *rows, *cols;
  void *vals;
} gcoo_triplets;

void gcoo__triplets_free(gcoo_triplets *t);
/** Sort by (row, col) in O(nnz + nrows + ncols) (two stable counting passes) and resolve
 *  duplicates by summing or refusing them (GCOO_DUPLICATES_ERROR). */
gcoo_status gcoo__triplets_canonicalize(gcoo_triplets *t, unsigned flags);
/** Canonical triplets of a matrix (a copy). */
gcoo_status gcoo__triplets_from_sparse(gcoo_sparse A, gcoo_triplets *t);
/** Build a matrix of the given format from canonical triplets; t is consumed (freed). */
gcoo_status gcoo__sparse_from_triplets(gcoo_sparse *A, gcoo_triplets *t, gcoo_format format,
                                       int32_t p);

/** Check values for NaN/Inf (GCOO_ERR_NOT_FINITE naming the first bad entry). */
gcoo_status gcoo__check_finite(gcoo_dtype dtype, const void *vals, int64_t n, const char *what);

#endif
