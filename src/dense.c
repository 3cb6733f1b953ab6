/* SPDX-License-Identifier: MIT */
/* src/dense.c: host dense matrices: allocation, checks, element access, fills. */
#include <stdlib.h>
#include <string.h>

#include "backend_impl.h"
#include "gcoo/generate.h"

static inline size_t offset(const gcoo_dense *D, int64_t i, int64_t j) {
  return D->layout == GCOO_ROW_MAJOR ? (size_t)(i * D->ld + j) : (size_t)(i + j * D->ld);
}

gcoo_status gcoo_dense_check(const gcoo_dense *D) {
  GCOO_CHECK(D != NULL, GCOO_ERR_NULL, "dense matrix is NULL");
  GCOO_CHECK_DTYPE(D->dtype);
  GCOO_CHECK(D->layout == GCOO_ROW_MAJOR || D->layout == GCOO_COL_MAJOR, GCOO_ERR_INVALID_ARG,
             "unknown layout %d", (int)D->layout);
  GCOO_CHECK(D->mem == GCOO_MEM_HOST || D->mem == GCOO_MEM_DEVICE, GCOO_ERR_INVALID_ARG,
             "unknown memory space %d", (int)D->mem);
  GCOO_CHECK(D->nrows >= 0 && D->ncols >= 0, GCOO_ERR_INVALID_ARG, "negative shape %lld x %lld",
             (long long)D->nrows, (long long)D->ncols);
  int64_t minld = D->layout == GCOO_ROW_MAJOR ? D->ncols : D->nrows;
  /* BLAS asks ld >= max(1, minld); an empty matrix has no element to address, and
   * gcoo_dense_wrap gives it its natural ld, which may be 0 (5 x 0 row-major). */
  const int empty = D->nrows == 0 || D->ncols == 0;
  GCOO_CHECK(D->ld >= minld && (D->ld >= 1 || empty), GCOO_ERR_INVALID_ARG,
             "leading dimension %lld < %lld for a %s %lld x %lld matrix", (long long)D->ld,
             (long long)(minld > 1 ? minld : 1),
             D->layout == GCOO_ROW_MAJOR ? "row-major" : "column-major", (long long)D->nrows,
             (long long)D->ncols);
  GCOO_CHECK(D->data != NULL || D->nrows == 0 || D->ncols == 0, GCOO_ERR_NULL,
             "dense data is NULL for a %lld x %lld matrix", (long long)D->nrows,
             (long long)D->ncols);
  int64_t major = D->layout == GCOO_ROW_MAJOR ? D->nrows : D->ncols;
  /* in bytes, not only elements: byte offsets (gcoo__dense_overlap, memcpy sizes) are computed
   * from these, and a 2^62 x 1 float64 descriptor has 2^62 elements but 2^65 bytes */
  const int64_t es = (int64_t)gcoo_dtype_size(D->dtype);
  GCOO_CHECK(major == 0 || D->ld <= INT64_MAX / es / major, GCOO_ERR_TOO_LARGE,
             "%lld x %lld elements of %lld bytes overflow a 64-bit offset", (long long)major,
             (long long)D->ld, (long long)es);
  return GCOO_SUCCESS;
}

gcoo_status gcoo_dense_create(gcoo_dense *D, gcoo_dtype dtype, gcoo_layout layout, int64_t nrows,
                              int64_t ncols) {
  GCOO_CHECK(D != NULL, GCOO_ERR_NULL, "dense matrix is NULL");
  *D = gcoo_dense_wrap(NULL, dtype, layout, nrows, ncols, 0);
  GCOO_CHECK_DTYPE(dtype);
  GCOO_CHECK(layout == GCOO_ROW_MAJOR || layout == GCOO_COL_MAJOR, GCOO_ERR_INVALID_ARG,
             "unknown layout %d", (int)layout);
  if (D->ld < 1) D->ld = 1;
  GCOO_CHECK(nrows >= 0 && ncols >= 0, GCOO_ERR_INVALID_ARG, "negative shape %lld x %lld",
             (long long)nrows, (long long)ncols);
  GCOO_CHECK(ncols == 0 || nrows <= INT64_MAX / ncols, GCOO_ERR_TOO_LARGE,
             "%lld x %lld elements overflow 64 bits", (long long)nrows, (long long)ncols);
  GCOO_CALL(
      gcoo__calloc(&D->data, (size_t)(nrows * ncols), gcoo_dtype_size(dtype), "dense matrix"));
  D->owned = 1;
  /* A large calloc is fresh zero pages, each faulted in by its first write: by one thread when
   * the first writer is a copy from the GPU (measured on an H200 VM: 0.3-0.5 s for 0.5 GB).
   * Touching one byte a page here spreads those faults over the threads. */
  const size_t bytes = (size_t)(nrows * ncols) * gcoo_dtype_size(dtype), page = 4096;
  if (bytes >= ((size_t)64 << 20)) {
    volatile char *p = D->data;
#pragma omp parallel for schedule(static)
    for (int64_t q = 0; q < (int64_t)(bytes / page); q++) p[(size_t)q * page] = 0;
  }
  return GCOO_SUCCESS;
}

void gcoo_dense_destroy(gcoo_dense *D) {
  if (!D) return;
  if (D->owned) free(D->data);
  D->data = NULL;
  D->owned = 0;
  D->nrows = D->ncols = 0;
}

double gcoo_dense_get(const gcoo_dense *D, int64_t i, int64_t j) {
  size_t o = offset(D, i, j);
  return D->dtype == GCOO_FLOAT64 ? ((const double *)D->data)[o] : ((const float *)D->data)[o];
}

void gcoo_dense_set(gcoo_dense *D, int64_t i, int64_t j, double v) {
  size_t o = offset(D, i, j);
  if (D->dtype == GCOO_FLOAT64)
    ((double *)D->data)[o] = v;
  else
    ((float *)D->data)[o] = (float)v;
}

gcoo_status gcoo_dense_fill(gcoo_dense *D, double value) {
  GCOO_CALL(gcoo_dense_check(D));
  GCOO_CHECK(D->mem == GCOO_MEM_HOST, GCOO_ERR_INVALID_ARG, "dense matrix must be in host memory");
  if (D->nrows == 0 || D->ncols == 0) return GCOO_SUCCESS; /* 2^40 x 0: no 2^40 empty rows */
#pragma omp parallel for schedule(static) if (D->nrows * D->ncols > GCOO_OMP_MIN_WORK)
  for (int64_t i = 0; i < D->nrows; i++)
    for (int64_t j = 0; j < D->ncols; j++) gcoo_dense_set(D, i, j, value);
  return GCOO_SUCCESS;
}

gcoo_status gcoo_dense_fill_random(gcoo_dense *D, uint64_t seed) {
  /* rows of one global random matrix, any of which a rank can make alone (src/generate.c) */
  GCOO_CALL(gcoo_dense_fill_random_rows(D, seed, 0));
  return GCOO_SUCCESS;
}

/* Byte range [lo, hi) spanned by the elements of D (0, 0 when empty). */
static void byte_range(const gcoo_dense *D, uintptr_t *lo, uintptr_t *hi) {
  int64_t major = D->layout == GCOO_ROW_MAJOR ? D->nrows : D->ncols;
  int64_t minor = D->layout == GCOO_ROW_MAJOR ? D->ncols : D->nrows;
  *lo = *hi = 0;
  if (major == 0 || minor == 0) return;
  *lo = (uintptr_t)D->data;
  *hi = *lo + (uintptr_t)(((major - 1) * D->ld + minor) * (int64_t)gcoo_dtype_size(D->dtype));
}

int gcoo__dense_overlap(const gcoo_dense *a, const gcoo_dense *b) {
  uintptr_t alo, ahi, blo, bhi;
  if (a->mem != b->mem) return 0;
  byte_range(a, &alo, &ahi);
  byte_range(b, &blo, &bhi);
  return alo < ahi && blo < bhi && alo < bhi && blo < ahi;
}
