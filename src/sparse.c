/* SPDX-License-Identifier: MIT */
/* src/sparse.c: the sparse matrix object: creation from caller arrays (checked), ownership,
 * validation and read-only access. Conversions between formats are in convert.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparse_impl.h"

static const char *format_name(gcoo_format f) {
  switch (f) {
    case GCOO_FORMAT_COO: return "COO";
    case GCOO_FORMAT_CSR: return "CSR";
    case GCOO_FORMAT_CSC: return "CSC";
    case GCOO_FORMAT_GCOO: return "GCOO";
  }
  return "unknown";
}

/* Every array a matrix may own, whatever its format (the unused ones are NULL). */
static void sparse_free_arrays(struct gcoo_sparse_s *A) {
  void *const arrays[] = {A->ptr, A->ind, A->rows, A->cols, A->gidx, A->gnnz, A->values};
  for (size_t i = 0; i < GCOO_COUNT_OF(arrays); i++) free(arrays[i]);
}

gcoo_status gcoo_sparse_destroy(gcoo_sparse *A) {
  if (!A || !*A) return GCOO_SUCCESS;
  GCOO_VALID_OBJECT(*A, GCOO_MAGIC_SPARSE, "sparse matrix");
  sparse_free_arrays(*A);
  (*A)->magic = GCOO_MAGIC_FREED;
  free(*A);
  *A = NULL;
  return GCOO_SUCCESS;
}

gcoo_status gcoo__check_finite(gcoo_dtype dtype, const void *vals, int64_t n, const char *what) {
  if (!vals) return GCOO_SUCCESS;
  int64_t bad = -1;
  if (dtype == GCOO_FLOAT64) {
    const double *v = vals;
    for (int64_t i = 0; i < n && bad < 0; i++)
      if (!isfinite(v[i])) bad = i;
  } else {
    const float *v = vals;
    for (int64_t i = 0; i < n && bad < 0; i++)
      if (!isfinite(v[i])) bad = i;
  }
  GCOO_CHECK(bad < 0, GCOO_ERR_NOT_FINITE, "%s: value %lld is %s", what, (long long)bad,
             dtype == GCOO_FLOAT64 ? (isnan(((const double *)vals)[bad]) ? "NaN" : "infinite")
                                   : (isnan(((const float *)vals)[bad]) ? "NaN" : "infinite"));
  return GCOO_SUCCESS;
}

gcoo_status gcoo__sparse_adopt(gcoo_sparse *out, gcoo_format format, gcoo_dtype dtype,
                               int64_t nrows, int64_t ncols, int64_t nnz, int32_t p, int64_t *ptr,
                               int32_t *ind, int32_t *rows, int32_t *cols, int64_t *gidx,
                               void *values) {
  gcoo_status st = GCOO_SUCCESS;
  struct gcoo_sparse_s *A = NULL;
  /* the object being made, on the stack (sparse_impl.h's field order; the magic number comes
   * last, when the object is complete): it owns the arrays from here on, so every failure below
   * has the one cleanup sparse_free_arrays */
  struct gcoo_sparse_s t = {0,   format, dtype, nrows, ncols, nnz,  0,     0,
                            ptr, ind,    rows,  cols,  gidx,  NULL, values};
  *out = NULL;
  GCOO_CHECK_GOTO(nrows >= 0 && ncols >= 0 && nnz >= 0, GCOO_ERR_INVALID_ARG,
                  "negative size %lld x %lld, nnz %lld", (long long)nrows, (long long)ncols,
                  (long long)nnz);
  GCOO_CHECK_GOTO(nrows <= GCOO_INDEX_MAX && ncols <= GCOO_INDEX_MAX, GCOO_ERR_TOO_LARGE,
                  "%lld x %lld does not fit 32-bit indices", (long long)nrows, (long long)ncols);
  GCOO_GOTO(gcoo__calloc((void **)&A, 1, sizeof *A, "sparse matrix"));
  if (format == GCOO_FORMAT_GCOO) {
    GCOO_CHECK_GOTO(p >= 1, GCOO_ERR_INVALID_ARG, "GCOO group width p = %d must be >= 1", p);
    t.p = p;
    t.ngroups = (ncols + p - 1) / p;
    GCOO_GOTO(gcoo__malloc_n((void **)&t.gnnz, t.ngroups, sizeof *t.gnnz, "nnzPerGroup"));
    for (int64_t q = 0; q < t.ngroups; q++) t.gnnz[q] = t.gidx[q + 1] - t.gidx[q];
  } else {
    free(t.gidx); /* only GCOO has groups */
    t.gidx = NULL;
  }
  /* Every array an object of this format needs must exist (even when nnz == 0). */
  if (!t.values) GCOO_GOTO(gcoo__malloc((void **)&t.values, 1, "values"));
  if ((format == GCOO_FORMAT_COO || format == GCOO_FORMAT_GCOO) && !t.rows)
    GCOO_GOTO(gcoo__malloc((void **)&t.rows, 1, "rows"));
  if ((format == GCOO_FORMAT_COO || format == GCOO_FORMAT_GCOO) && !t.cols)
    GCOO_GOTO(gcoo__malloc((void **)&t.cols, 1, "cols"));
  if ((format == GCOO_FORMAT_CSR || format == GCOO_FORMAT_CSC) && !t.ind)
    GCOO_GOTO(gcoo__malloc((void **)&t.ind, 1, "indices"));
  GCOO_CHECK_GOTO((format != GCOO_FORMAT_CSR && format != GCOO_FORMAT_CSC) || t.ptr,
                  GCOO_ERR_INTERNAL, "%s object without pointer array", format_name(format));
  GCOO_CHECK_GOTO(format != GCOO_FORMAT_GCOO || t.gidx, GCOO_ERR_INTERNAL,
                  "GCOO object without gIdxes");
  *A = t;
  A->magic = GCOO_MAGIC_SPARSE;
  *out = A;
  return GCOO_SUCCESS;
done:
  sparse_free_arrays(&t);
  free(A);
  return st;
}

gcoo_status gcoo__csr_arrays_adopt(gcoo__csr_arrays *a, gcoo_sparse *out, gcoo_dtype dtype,
                                   int64_t nrows, int64_t ncols, int64_t nnz) {
  gcoo_status st = gcoo__sparse_adopt(out, GCOO_FORMAT_CSR, dtype, nrows, ncols, nnz, 0, a->ptr,
                                      a->ind, NULL, NULL, NULL, a->values);
  *a = (gcoo__csr_arrays){NULL, NULL, NULL}; /* adopted, or freed by gcoo__sparse_adopt */
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}

void gcoo__csr_arrays_free(gcoo__csr_arrays *a) {
  free(a->ptr);
  free(a->ind);
  free(a->values);
  *a = (gcoo__csr_arrays){NULL, NULL, NULL};
}

/* Copy n values (NULL: pattern, all ones) into a new array. */
static gcoo_status copy_values(gcoo_dtype dtype, const void *values, int64_t n, void **out) {
  size_t es = gcoo_dtype_size(dtype);
  GCOO_CALL(gcoo__malloc_n(out, n, es, "values"));
  if (values) {
    if (n) memcpy(*out, values, (size_t)n * es);
  } else if (dtype == GCOO_FLOAT64) {
    for (int64_t i = 0; i < n; i++) ((double *)*out)[i] = 1.0;
  } else {
    for (int64_t i = 0; i < n; i++) ((float *)*out)[i] = 1.0f;
  }
  return GCOO_SUCCESS;
}

static gcoo_status check_shape(gcoo_dtype dtype, int64_t nrows, int64_t ncols) {
  GCOO_CHECK_DTYPE(dtype);
  GCOO_CHECK(nrows >= 0 && ncols >= 0, GCOO_ERR_INVALID_ARG, "negative shape %lld x %lld",
             (long long)nrows, (long long)ncols);
  GCOO_CHECK_DIM(nrows, "rows");
  GCOO_CHECK_DIM(ncols, "columns");
  return GCOO_SUCCESS;
}

/* The way in for COO and GCOO arrays: copies of rows, cols (t->nnz each) and values in the
 * triplets t (freed here), sorted with duplicates resolved as flags say, built as format with
 * group width p (GCOO). what prefixes the names in an out-of-memory message ("COO " or ""). */
static gcoo_status create_from_copies(gcoo_sparse *A, gcoo_triplets *t, const int32_t *rows,
                                      const int32_t *cols, const void *values, unsigned flags,
                                      gcoo_format format, int32_t p, const char *what) {
  gcoo_status st = GCOO_SUCCESS;
  char rows_name[16], cols_name[16];
  snprintf(rows_name, sizeof rows_name, "%srows", what);
  snprintf(cols_name, sizeof cols_name, "%scols", what);
  const size_t n = (size_t)t->nnz;
  GCOO_GOTO(gcoo__malloc_n((void **)&t->rows, t->nnz, sizeof(int32_t), rows_name));
  GCOO_GOTO(gcoo__malloc_n((void **)&t->cols, t->nnz, sizeof(int32_t), cols_name));
  if (n) memcpy(t->rows, rows, n * sizeof(int32_t));
  if (n) memcpy(t->cols, cols, n * sizeof(int32_t));
  GCOO_GOTO(copy_values(t->dtype, values, t->nnz, &t->vals));
  GCOO_GOTO(gcoo__triplets_canonicalize(t, flags));
  GCOO_GOTO(gcoo__sparse_from_triplets(A, t, format, p));
done:
  gcoo__triplets_free(t);
  return st;
}

gcoo_status gcoo_sparse_create_coo(gcoo_sparse *A, gcoo_dtype dtype, int64_t nrows, int64_t ncols,
                                   int64_t nnz, const int32_t *rows, const int32_t *cols,
                                   const void *values, unsigned flags) {
  gcoo_triplets t = {dtype, nrows, ncols, nnz, NULL, NULL, NULL};
  GCOO_CHECK(A != NULL, GCOO_ERR_NULL, "output handle is NULL");
  *A = NULL;
  GCOO_CALL(check_shape(dtype, nrows, ncols));
  GCOO_CHECK(nnz >= 0, GCOO_ERR_INVALID_ARG, "negative nnz %lld", (long long)nnz);
  GCOO_CHECK(nnz == 0 || (rows && cols), GCOO_ERR_NULL, "rows or cols is NULL with nnz = %lld",
             (long long)nnz);
  for (int64_t i = 0; i < nnz; i++) {
    GCOO_CHECK(rows[i] >= 0 && rows[i] < nrows, GCOO_ERR_INDEX_RANGE,
               "entry %lld: row %d outside 0..%lld", (long long)i, rows[i], (long long)nrows - 1);
    GCOO_CHECK(cols[i] >= 0 && cols[i] < ncols, GCOO_ERR_INDEX_RANGE,
               "entry %lld: column %d outside 0..%lld", (long long)i, cols[i],
               (long long)ncols - 1);
  }
  if (flags & GCOO_REQUIRE_FINITE) GCOO_CALL(gcoo__check_finite(dtype, values, nnz, "COO values"));
  GCOO_CALL(create_from_copies(A, &t, rows, cols, values, flags, GCOO_FORMAT_COO, 0, "COO "));
  return GCOO_SUCCESS;
}

/* CSR and CSC are the same structure read along rows or columns; `major` counts the
 * compressed dimension, `minor` the indexed one. Validates ptr and indices, then copies the
 * arrays directly when every segment is sorted and duplicate-free, and otherwise goes through
 * the triplet hub (which sorts and resolves duplicates). */
static gcoo_status create_compressed(gcoo_sparse *A, gcoo_format format, gcoo_dtype dtype,
                                     int64_t nrows, int64_t ncols, const int64_t *ptr,
                                     const int32_t *ind, const void *values, unsigned flags) {
  gcoo_status st = GCOO_SUCCESS;
  const int csr = format == GCOO_FORMAT_CSR;
  const char *maj = csr ? "row" : "column", *min = csr ? "column" : "row";
  int64_t nmajor = csr ? nrows : ncols, nminor = csr ? ncols : nrows;
  int64_t *p2 = NULL;
  int32_t *i2 = NULL;
  void *v2 = NULL;
  gcoo_triplets t = {dtype, nrows, ncols, 0, NULL, NULL, NULL};
  GCOO_CHECK(A != NULL, GCOO_ERR_NULL, "output handle is NULL");
  *A = NULL;
  GCOO_CALL(check_shape(dtype, nrows, ncols));
  GCOO_CHECK(ptr != NULL, GCOO_ERR_NULL, "%s pointer array is NULL", maj);
  GCOO_CHECK(ptr[0] == 0, GCOO_ERR_FORMAT, "%sptr[0] = %lld, must be 0", maj, (long long)ptr[0]);
  int sorted = 1;
  for (int64_t i = 0; i < nmajor; i++) {
    GCOO_CHECK(ptr[i + 1] >= ptr[i], GCOO_ERR_FORMAT, "%sptr decreases at %s %lld (%lld > %lld)",
               maj, maj, (long long)i, (long long)ptr[i], (long long)ptr[i + 1]);
  }
  int64_t nnz = ptr[nmajor];
  GCOO_CHECK(nnz == 0 || ind, GCOO_ERR_NULL, "%s index array is NULL with nnz = %lld", min,
             (long long)nnz);
  for (int64_t i = 0; i < nmajor; i++) {
    for (int64_t k = ptr[i]; k < ptr[i + 1]; k++) {
      GCOO_CHECK(ind[k] >= 0 && ind[k] < nminor, GCOO_ERR_INDEX_RANGE,
                 "%s %lld: %s index %d outside 0..%lld", maj, (long long)i, min, ind[k],
                 (long long)nminor - 1);
      if (k > ptr[i] && ind[k] <= ind[k - 1]) sorted = 0;
    }
  }
  if (flags & GCOO_REQUIRE_FINITE) GCOO_CALL(gcoo__check_finite(dtype, values, nnz, "values"));
  if (sorted) {
    GCOO_GOTO(gcoo__malloc_n((void **)&p2, nmajor + 1, sizeof *p2, "pointers"));
    GCOO_GOTO(gcoo__malloc_n((void **)&i2, nnz, sizeof *i2, "indices"));
    memcpy(p2, ptr, (size_t)(nmajor + 1) * sizeof *p2);
    if (nnz) memcpy(i2, ind, (size_t)nnz * sizeof *i2);
    GCOO_GOTO(copy_values(dtype, values, nnz, &v2));
    st = gcoo__sparse_adopt(A, format, dtype, nrows, ncols, nnz, 0, p2, i2, NULL, NULL, NULL, v2);
    p2 = NULL, i2 = NULL, v2 = NULL;
    GCOO_GOTO(st);
    goto done;
  }
  /* unsorted or duplicated: through the hub */
  t.nnz = nnz;
  GCOO_GOTO(gcoo__malloc_n((void **)&t.rows, nnz, sizeof(int32_t), "rows"));
  GCOO_GOTO(gcoo__malloc_n((void **)&t.cols, nnz, sizeof(int32_t), "cols"));
  for (int64_t i = 0; i < nmajor; i++)
    for (int64_t k = ptr[i]; k < ptr[i + 1]; k++) {
      t.rows[k] = csr ? (int32_t)i : ind[k];
      t.cols[k] = csr ? ind[k] : (int32_t)i;
    }
  GCOO_GOTO(copy_values(dtype, values, nnz, &t.vals));
  GCOO_GOTO(gcoo__triplets_canonicalize(&t, flags));
  GCOO_GOTO(gcoo__sparse_from_triplets(A, &t, format, 0));
done:
  free(p2);
  free(i2);
  free(v2);
  gcoo__triplets_free(&t);
  return st;
}

gcoo_status gcoo_sparse_create_csr(gcoo_sparse *A, gcoo_dtype dtype, int64_t nrows, int64_t ncols,
                                   const int64_t *rowptr, const int32_t *colind, const void *values,
                                   unsigned flags) {
  GCOO_CALL(
      create_compressed(A, GCOO_FORMAT_CSR, dtype, nrows, ncols, rowptr, colind, values, flags));
  return GCOO_SUCCESS;
}

gcoo_status gcoo_sparse_create_csc(gcoo_sparse *A, gcoo_dtype dtype, int64_t nrows, int64_t ncols,
                                   const int64_t *colptr, const int32_t *rowind, const void *values,
                                   unsigned flags) {
  GCOO_CALL(
      create_compressed(A, GCOO_FORMAT_CSC, dtype, nrows, ncols, colptr, rowind, values, flags));
  return GCOO_SUCCESS;
}

/* Strict check of GCOO arrays (shared by creation and validation). */
static gcoo_status check_gcoo_arrays(int64_t nrows, int64_t ncols, int32_t p, const int64_t *gidx,
                                     const int32_t *rows, const int32_t *cols, unsigned flags) {
  int64_t ng = (ncols + p - 1) / p;
  GCOO_CHECK(gidx != NULL, GCOO_ERR_NULL, "gIdxes is NULL");
  GCOO_CHECK(gidx[0] == 0, GCOO_ERR_FORMAT, "gIdxes[0] = %lld, must be 0", (long long)gidx[0]);
  for (int64_t q = 0; q < ng; q++)
    GCOO_CHECK(gidx[q + 1] >= gidx[q], GCOO_ERR_FORMAT, "gIdxes decreases at group %lld",
               (long long)q);
  int64_t nnz = gidx[ng];
  GCOO_CHECK(nnz == 0 || (rows && cols), GCOO_ERR_NULL, "rows or cols is NULL with nnz = %lld",
             (long long)nnz);
  for (int64_t q = 0; q < ng; q++) {
    int64_t c0 = q * p, c1 = c0 + p < ncols ? c0 + p : ncols;
    for (int64_t k = gidx[q]; k < gidx[q + 1]; k++) {
      GCOO_CHECK(rows[k] >= 0 && rows[k] < nrows, GCOO_ERR_INDEX_RANGE,
                 "group %lld entry %lld: row %d outside 0..%lld", (long long)q, (long long)k,
                 rows[k], (long long)nrows - 1);
      GCOO_CHECK(cols[k] >= c0 && cols[k] < c1, GCOO_ERR_INDEX_RANGE,
                 "group %lld entry %lld: column %d outside the group's columns %lld..%lld",
                 (long long)q, (long long)k, cols[k], (long long)c0, (long long)c1 - 1);
      if (k > gidx[q]) {
        int before = rows[k - 1] < rows[k] || (rows[k - 1] == rows[k] && cols[k - 1] < cols[k]);
        int dup = rows[k - 1] == rows[k] && cols[k - 1] == cols[k];
        GCOO_CHECK(!dup || !(flags & GCOO_DUPLICATES_ERROR), GCOO_ERR_DUPLICATE,
                   "group %lld: entry (%d, %d) repeated", (long long)q, rows[k], cols[k]);
        GCOO_CHECK(before || dup, GCOO_ERR_UNSORTED,
                   "group %lld entry %lld: (%d, %d) after (%d, %d); GCOO needs row, then column "
                   "order",
                   (long long)q, (long long)k, rows[k], cols[k], rows[k - 1], cols[k - 1]);
      }
    }
  }
  return GCOO_SUCCESS;
}

gcoo_status gcoo_sparse_create_gcoo(gcoo_sparse *A, gcoo_dtype dtype, int64_t nrows, int64_t ncols,
                                    int32_t p, const int64_t *gidx, const int32_t *rows,
                                    const int32_t *cols, const void *values, unsigned flags) {
  gcoo_triplets t = {dtype, nrows, ncols, 0, NULL, NULL, NULL};
  GCOO_CHECK(A != NULL, GCOO_ERR_NULL, "output handle is NULL");
  *A = NULL;
  GCOO_CALL(check_shape(dtype, nrows, ncols));
  GCOO_CHECK(p >= 1, GCOO_ERR_INVALID_ARG, "GCOO group width p = %d must be >= 1", p);
  GCOO_CALL(check_gcoo_arrays(nrows, ncols, p, gidx, rows, cols, flags));
  int64_t ng = (ncols + p - 1) / p, nnz = gidx[ng];
  if (flags & GCOO_REQUIRE_FINITE) GCOO_CALL(gcoo__check_finite(dtype, values, nnz, "values"));
  /* Copy into triplets, canonicalize (sums any duplicates), rebuild GCOO. */
  t.nnz = nnz;
  GCOO_CALL(create_from_copies(A, &t, rows, cols, values, flags, GCOO_FORMAT_GCOO, p, ""));
  return GCOO_SUCCESS;
}

gcoo_status gcoo_sparse_validate(gcoo_sparse A, unsigned flags) {
  GCOO_VALID_OBJECT(A, GCOO_MAGIC_SPARSE, "sparse matrix");
  if (flags & GCOO_REQUIRE_FINITE)
    GCOO_CALL(gcoo__check_finite(A->dtype, A->values, A->nnz, "values"));
  switch (A->format) {
    case GCOO_FORMAT_GCOO:
      GCOO_CALL(check_gcoo_arrays(A->nrows, A->ncols, A->p, A->gidx, A->rows, A->cols,
                                  flags | GCOO_DUPLICATES_ERROR));
      GCOO_CHECK(A->gidx[A->ngroups] == A->nnz, GCOO_ERR_FORMAT,
                 "gIdxes ends at %lld, the matrix has %lld entries", (long long)A->gidx[A->ngroups],
                 (long long)A->nnz);
      for (int64_t q = 0; q < A->ngroups; q++)
        GCOO_CHECK(A->gnnz[q] == A->gidx[q + 1] - A->gidx[q], GCOO_ERR_FORMAT,
                   "nnzPerGroup[%lld] = %lld disagrees with gIdxes (%lld)", (long long)q,
                   (long long)A->gnnz[q], (long long)(A->gidx[q + 1] - A->gidx[q]));
      break;
    case GCOO_FORMAT_COO:
      for (int64_t k = 0; k < A->nnz; k++) {
        GCOO_CHECK(A->rows[k] >= 0 && A->rows[k] < A->nrows && A->cols[k] >= 0 &&
                       A->cols[k] < A->ncols,
                   GCOO_ERR_INDEX_RANGE, "entry %lld (%d, %d) outside %lld x %lld", (long long)k,
                   A->rows[k], A->cols[k], (long long)A->nrows, (long long)A->ncols);
        GCOO_CHECK(k == 0 || A->rows[k - 1] < A->rows[k] ||
                       (A->rows[k - 1] == A->rows[k] && A->cols[k - 1] < A->cols[k]),
                   GCOO_ERR_UNSORTED, "COO entry %lld out of (row, column) order", (long long)k);
      }
      break;
    case GCOO_FORMAT_CSR:
    case GCOO_FORMAT_CSC: {
      int csr = A->format == GCOO_FORMAT_CSR;
      int64_t nmaj = csr ? A->nrows : A->ncols, nmin = csr ? A->ncols : A->nrows;
      GCOO_CHECK(A->ptr[0] == 0 && A->ptr[nmaj] == A->nnz, GCOO_ERR_FORMAT,
                 "pointer array does not span 0..nnz");
      for (int64_t i = 0; i < nmaj; i++)
        for (int64_t k = A->ptr[i]; k < A->ptr[i + 1]; k++) {
          GCOO_CHECK(A->ind[k] >= 0 && A->ind[k] < nmin, GCOO_ERR_INDEX_RANGE,
                     "index %d outside 0..%lld", A->ind[k], (long long)nmin - 1);
          GCOO_CHECK(k == A->ptr[i] || A->ind[k - 1] < A->ind[k], GCOO_ERR_UNSORTED,
                     "indices of segment %lld not increasing", (long long)i);
        }
      break;
    }
  }
  return GCOO_SUCCESS;
}

gcoo_status gcoo_sparse_get_info(gcoo_sparse A, gcoo_sparse_info *info) {
  GCOO_VALID_OBJECT(A, GCOO_MAGIC_SPARSE, "sparse matrix");
  GCOO_CHECK(info != NULL, GCOO_ERR_NULL, "info is NULL");
  *info = (gcoo_sparse_info){A->format, A->dtype, A->nrows, A->ncols, A->nnz, 0, 0};
  if (A->format == GCOO_FORMAT_GCOO) {
    info->p = A->p;
    info->ngroups = A->ngroups;
  }
  return GCOO_SUCCESS;
}

gcoo_status gcoo_sparse_get_arrays(gcoo_sparse A, gcoo_sparse_arrays *a) {
  GCOO_VALID_OBJECT(A, GCOO_MAGIC_SPARSE, "sparse matrix");
  GCOO_CHECK(a != NULL, GCOO_ERR_NULL, "arrays is NULL");
  memset(a, 0, sizeof *a);
  a->values = A->values;
  switch (A->format) {
    case GCOO_FORMAT_COO:
      a->rows = A->rows;
      a->cols = A->cols;
      break;
    case GCOO_FORMAT_CSR:
    case GCOO_FORMAT_CSC:
      a->ptr = A->ptr;
      a->ind = A->ind;
      break;
    case GCOO_FORMAT_GCOO:
      a->rows = A->rows;
      a->cols = A->cols;
      a->gidx = A->gidx;
      a->gnnz = A->gnnz;
      break;
  }
  return GCOO_SUCCESS;
}

gcoo_status gcoo__sparse_grouped_view(gcoo_sparse A, gcoo_grouped_view *v) {
  GCOO_VALID_OBJECT(A, GCOO_MAGIC_SPARSE, "sparse matrix");
  GCOO_CHECK(A->format == GCOO_FORMAT_GCOO, GCOO_ERR_INVALID_ARG, "matrix is %s, not GCOO",
             format_name(A->format));
  /* in the view's field order */
  *v = (gcoo_grouped_view){A->dtype, A->nrows, A->ncols, A->nnz,  A->p,     A->ngroups,
                           A->gidx,  A->gnnz,  A->rows,  A->cols, A->values};
  return GCOO_SUCCESS;
}

gcoo_status gcoo__sparse_csr_view(gcoo_sparse A, gcoo_csr_view *v) {
  GCOO_VALID_OBJECT(A, GCOO_MAGIC_SPARSE, "sparse matrix");
  GCOO_CHECK(A->format == GCOO_FORMAT_CSR || A->format == GCOO_FORMAT_CSC, GCOO_ERR_INVALID_ARG,
             "matrix is %s, not CSR/CSC", format_name(A->format));
  /* in the view's field order */
  *v = (gcoo_csr_view){A->dtype, A->nrows, A->ncols, A->nnz, A->ptr, A->ind, A->values};
  return GCOO_SUCCESS;
}
