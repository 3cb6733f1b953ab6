/* SPDX-License-Identifier: MIT */
/* gcoo/sparse.h: sparse matrix objects (COO, CSR, CSC, GCOO), their creation, validation and
 * conversions on the CPU.
 *
 * GCOO (Shi et al., ICPADS 2020; docs/readings.md): an nrows x ncols matrix is cut into
 * g = ceil(ncols / p) groups of p consecutive columns (the last may be narrower). Group q holds
 * the entries whose column is in [q*p, min((q+1)*p, ncols)) as COO, ordered by row, then column;
 * the groups' rows, cols and values arrays are concatenated; gIdxes[q] .. gIdxes[q+1] locate group
 * q and nnzPerGroup[q] = gIdxes[q+1] - gIdxes[q]. Indices are global (not group-relative).
 *
 * Every object is owned by gcoo: creation copies the caller's arrays. Objects are immutable after
 * creation, so one may be shared by threads for reading. */
#ifndef GCOO_SPARSE_H
#define GCOO_SPARSE_H

#include "gcoo/dense.h"
#include "gcoo/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A sparse matrix (opaque): COO, CSR, CSC or GCOO, float32 or float64, on the host. */
typedef struct gcoo_sparse_s *gcoo_sparse;

/** Flags for creation and validation (combine with |). */
enum gcoo_sparse_flags {
  GCOO_DUPLICATES_SUM = 0,         /**< default: repeated (row, col) entries are summed */
  GCOO_DUPLICATES_ERROR = 1u << 0, /**< refuse repeated entries with GCOO_ERR_DUPLICATE */
  GCOO_REQUIRE_FINITE = 1u << 1,   /**< refuse NaN and infinities with GCOO_ERR_NOT_FINITE */
  GCOO_KEEP_ZEROS = 1u << 2        /**< from dense: keep explicit zeros (default drops them) */
};

/** Group width p used when the caller passes p = 0. */
#define GCOO_DEFAULT_P 32

/* The creators below share their contract:
 *  - A: receives the new matrix (NULL on failure); it owns copies of the caller's arrays (the
 *    caller keeps its own) and is freed with gcoo_sparse_destroy.
 *  - dtype: GCOO_FLOAT32 or GCOO_FLOAT64, the type of values; nrows, ncols: 0 .. 2^31 - 1;
 *    indices are 0-based int32, offsets int64; values may be NULL (a pattern: all ones).
 *  - flags: gcoo_sparse_flags (0: duplicates summed, non-finite values kept).
 *  - errors: GCOO_ERR_NULL (A NULL, or an array NULL with entries to read),
 *    GCOO_ERR_INVALID_ARG (an unknown dtype, negative sizes, p < 1), GCOO_ERR_TOO_LARGE (a
 *    dimension past 32-bit indices), GCOO_ERR_FORMAT (offsets not starting at 0 or
 *    decreasing), GCOO_ERR_INDEX_RANGE, GCOO_ERR_UNSORTED (GCOO only), GCOO_ERR_DUPLICATE and
 *    GCOO_ERR_NOT_FINITE (with the flags that ask for them), GCOO_ERR_NO_MEMORY.
 *  None is collective. */

/** COO from coordinates in any order; sorted by row then column on creation.
 *  values may be NULL for a pattern matrix (all values 1). Not collective. */
gcoo_status gcoo_sparse_create_coo(gcoo_sparse *A, gcoo_dtype dtype, int64_t nrows, int64_t ncols,
                                   int64_t nnz, const int32_t *rows, const int32_t *cols,
                                   const void *values, unsigned flags);

/** CSR from rowptr (nrows+1), colind and values (rowptr[nrows] entries). Columns inside a row
 *  may come in any order; they are sorted. values may be NULL (pattern). */
gcoo_status gcoo_sparse_create_csr(gcoo_sparse *A, gcoo_dtype dtype, int64_t nrows, int64_t ncols,
                                   const int64_t *rowptr, const int32_t *colind, const void *values,
                                   unsigned flags);

/** CSC from colptr (ncols+1), rowind and values. */
gcoo_status gcoo_sparse_create_csc(gcoo_sparse *A, gcoo_dtype dtype, int64_t nrows, int64_t ncols,
                                   const int64_t *colptr, const int32_t *rowind, const void *values,
                                   unsigned flags);

/** GCOO from its arrays, checked strictly: gidx has ceil(ncols/p)+1 non-decreasing offsets from 0,
 *  every entry of group q has its column in group q, entries are ordered by row then column
 *  (GCOO_ERR_UNSORTED otherwise), no duplicates unless summed by flag. */
gcoo_status gcoo_sparse_create_gcoo(gcoo_sparse *A, gcoo_dtype dtype, int64_t nrows, int64_t ncols,
                                    int32_t p, const int64_t *gidx, const int32_t *rows,
                                    const int32_t *cols, const void *values, unsigned flags);

/** Any format to any format; p is the GCOO group width (0: the source's p when it is GCOO,
 *  else GCOO_DEFAULT_P; ignored for other target formats). */
gcoo_status gcoo_sparse_convert(gcoo_sparse *B, gcoo_sparse A, gcoo_format format, int32_t p);

/** Same matrix with the other element type (values rounded when narrowing). */
gcoo_status gcoo_sparse_astype(gcoo_sparse *B, gcoo_sparse A, gcoo_dtype dtype);

/** Transpose, in the same format (a GCOO transpose keeps p). */
gcoo_status gcoo_sparse_transpose(gcoo_sparse *B, gcoo_sparse A);

/** B = A + shift * E in A's format, where E has ones at (i, i + offset) for every row i with
 *  0 <= i + offset < ncols (offset = row0 turns a slab of rows into its share of A + shift I).
 *  Missing diagonal entries are inserted. */
gcoo_status gcoo_sparse_add_diagonal(gcoo_sparse *B, gcoo_sparse A, double shift, int64_t offset);

/** From a host dense matrix; exact zeros are dropped unless GCOO_KEEP_ZEROS. */
gcoo_status gcoo_sparse_from_dense(gcoo_sparse *A, const gcoo_dense *D, gcoo_format format,
                                   int32_t p, unsigned flags);

/** Into a host dense matrix of the same shape and element type (every element written). */
gcoo_status gcoo_sparse_to_dense(gcoo_sparse A, gcoo_dense *D);

/** Check the object again (index ranges, order, finiteness with GCOO_REQUIRE_FINITE). */
gcoo_status gcoo_sparse_validate(gcoo_sparse A, unsigned flags);

/** Free; *A becomes NULL. Accepts NULL and a pointer to NULL. */
gcoo_status gcoo_sparse_destroy(gcoo_sparse *A);

/** Shape and storage of a matrix. */
typedef struct gcoo_sparse_info {
  gcoo_format format;        /**< storage format */
  gcoo_dtype dtype;          /**< element type */
  int64_t nrows, ncols, nnz; /**< shape and stored entries */
  int32_t p;                 /**< GCOO group width (0 for other formats) */
  int64_t ngroups;           /**< GCOO groups ceil(ncols/p) (0 for other formats) */
} gcoo_sparse_info;

/** Fill *info (caller's struct) for A. GCOO_ERR_NULL (A or info NULL), GCOO_ERR_INVALID_OBJECT
 *  (A not a live matrix). */
gcoo_status gcoo_sparse_get_info(gcoo_sparse A, gcoo_sparse_info *info);

/** Read-only views of the arrays; unused members are NULL.
 *  COO: rows, cols, values. CSR: ptr (rowptr), ind (colind), values. CSC: ptr (colptr),
 *  ind (rowind), values. GCOO: gidx (gIdxes, ngroups+1), gnnz (nnzPerGroup), rows, cols, values.
 *  Valid while A lives. */
typedef struct gcoo_sparse_arrays {
  const int64_t *ptr;  /**< CSR row / CSC column offsets (major dimension + 1) */
  const int32_t *ind;  /**< CSR column / CSC row indices (nnz) */
  const int32_t *rows; /**< COO, GCOO: row indices (nnz) */
  const int32_t *cols; /**< COO, GCOO: column indices (nnz) */
  const int64_t *gidx; /**< GCOO: group offsets gIdxes (ngroups + 1) */
  const int64_t *gnnz; /**< GCOO: entries per group nnzPerGroup (ngroups) */
  const void *values;  /**< nnz values of the matrix's dtype */
} gcoo_sparse_arrays;

/** Fill *arrays (caller's struct) with views of A's arrays (owned by A: do not free or write
 *  them). GCOO_ERR_NULL (A or arrays NULL), GCOO_ERR_INVALID_OBJECT. */
gcoo_status gcoo_sparse_get_arrays(gcoo_sparse A, gcoo_sparse_arrays *arrays);

/** A random sparse matrix like the paper's: every entry nonzero independently with probability
 *  1 - sparsity, values uniform in [-1, 1), from a seeded reproducible generator. Built row by
 *  row in O(nnz) expected time (geometric skips), any size that fits the index types. */
gcoo_status gcoo_sparse_random(gcoo_sparse *A, gcoo_dtype dtype, gcoo_format format, int64_t nrows,
                               int64_t ncols, double sparsity, uint64_t seed, int32_t p);

#ifdef __cplusplus
}
#endif
#endif
