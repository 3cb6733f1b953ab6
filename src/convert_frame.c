/* SPDX-License-Identifier: MIT */
/* src/convert_frame.c: the conversions between the two frames of one operator, each a single
 * pass over the entries and, where the layouts allow it, in place.
 *
 * docs/readings.md: a GCOO of S with groups of p columns of S is, read the other way, the entries
 * of A = S^T in groups of p rows of A. The same set of entries occupies the same positions in the
 * CSR of A and in the GCOO of S (group q is rows q*p .. q*p + p - 1 of A in both); only their order
 * inside a group differs: CSR orders a group by (row of A, column of A), GCOO by (row of S, column
 * of S) = (column of A, row of A). So
 *   - CSR of A -> GCOO of S is a merge of the group's p sorted rows, done in the arrays
 *     themselves (the index array becomes the rows of S, the values are permuted inside each
 *     group), with one new array, the columns of S;
 *   - GCOO of S -> CSR of A is one stable counting pass per group with p counters;
 *   - CSC of S is, bit for bit, CSR of A (the transposed view: no pass at all).
 * The general conversions of src/convert.c go through sorted triplets instead (three to five
 * passes and copies); these are what the read and set-up path uses. */
#include <stdlib.h>
#include <string.h>

#include "sparse_impl.h"

#ifdef _OPENMP
#include <omp.h>
#endif

gcoo_status gcoo__sparse_clone(gcoo_sparse A, gcoo_sparse *B) {
  gcoo_status st = GCOO_SUCCESS;
  int64_t *ptr = NULL, *gidx = NULL;
  int32_t *ind = NULL, *rows = NULL, *cols = NULL;
  void *vals = NULL;
  GCOO_VALID_OBJECT(A, GCOO_MAGIC_SPARSE, "sparse matrix");
  *B = NULL;
  const size_t es = gcoo_dtype_size(A->dtype);
  const int compressed = A->format == GCOO_FORMAT_CSR || A->format == GCOO_FORMAT_CSC;
  const int64_t nmaj = A->format == GCOO_FORMAT_CSR ? A->nrows : A->ncols;
  GCOO_GOTO(gcoo__malloc_n(&vals, A->nnz, es, "values"));
  if (A->nnz) memcpy(vals, A->values, (size_t)A->nnz * es);
  if (compressed) {
    GCOO_GOTO(gcoo__malloc_n((void **)&ptr, nmaj + 1, sizeof *ptr, "pointers"));
    GCOO_GOTO(gcoo__malloc_n((void **)&ind, A->nnz, sizeof *ind, "indices"));
    memcpy(ptr, A->ptr, (size_t)(nmaj + 1) * sizeof *ptr);
    if (A->nnz) memcpy(ind, A->ind, (size_t)A->nnz * sizeof *ind);
  } else {
    GCOO_GOTO(gcoo__malloc_n((void **)&rows, A->nnz, sizeof *rows, "rows"));
    GCOO_GOTO(gcoo__malloc_n((void **)&cols, A->nnz, sizeof *cols, "cols"));
    if (A->nnz) memcpy(rows, A->rows, (size_t)A->nnz * sizeof *rows);
    if (A->nnz) memcpy(cols, A->cols, (size_t)A->nnz * sizeof *cols);
    if (A->format == GCOO_FORMAT_GCOO) {
      GCOO_GOTO(gcoo__malloc_n((void **)&gidx, A->ngroups + 1, sizeof *gidx, "gIdxes"));
      memcpy(gidx, A->gidx, (size_t)(A->ngroups + 1) * sizeof *gidx);
    }
  }
  st = gcoo__sparse_adopt(B, A->format, A->dtype, A->nrows, A->ncols, A->nnz, A->p, ptr, ind, rows,
                          cols, gidx, vals);
  ptr = NULL, ind = NULL, rows = NULL, cols = NULL, gidx = NULL, vals = NULL;
  GCOO_GOTO(st);
done:
  free(ptr);
  free(ind);
  free(rows);
  free(cols);
  free(gidx);
  free(vals);
  return st;
}

gcoo_status gcoo__sparse_flip_compressed(gcoo_sparse A) {
  GCOO_VALID_OBJECT(A, GCOO_MAGIC_SPARSE, "sparse matrix");
  GCOO_CHECK(A->format == GCOO_FORMAT_CSR || A->format == GCOO_FORMAT_CSC, GCOO_ERR_INVALID_ARG,
             "only CSR and CSC matrices are views of each other's transpose");
  A->format = A->format == GCOO_FORMAT_CSR ? GCOO_FORMAT_CSC : GCOO_FORMAT_CSR;
  int64_t t = A->nrows;
  A->nrows = A->ncols;
  A->ncols = t;
  return GCOO_SUCCESS;
}

/* Merge the sorted runs [b[r], b[r+1]) of keys (nr runs) into one sorted run, bottom-up,
 * ping-ponging between a and t; returns the buffer that holds the result. b is overwritten. */
static uint64_t *merge_runs(uint64_t *a, uint64_t *t, int64_t *b, int64_t nr) {
  while (nr > 1) {
    int64_t w = 0;
    for (int64_t r = 0; r < nr; r += 2) {
      const int64_t lo = b[r], mid = b[r + 1], hi = r + 2 <= nr ? b[r + 2] : mid;
      int64_t i = lo, j = mid, o = lo;
      if (mid == hi || a[mid - 1] <= a[mid]) { /* already in order: copy */
        memcpy(t + lo, a + lo, (size_t)(hi - lo) * sizeof *a);
      } else {
        while (i < mid && j < hi) t[o++] = a[i] <= a[j] ? a[i++] : a[j++];
        while (i < mid) t[o++] = a[i++];
        while (j < hi) t[o++] = a[j++];
      }
      b[w++] = lo;
    }
    b[w] = b[nr];
    nr = w;
    uint64_t *s = a;
    a = t;
    t = s;
  }
  return a;
}

gcoo_status gcoo__csr_to_gcoo_of_transpose(gcoo_sparse *Ain, int32_t p, gcoo_sparse *S) {
  gcoo_status st = GCOO_SUCCESS;
  struct gcoo_sparse_s *A = *Ain;
  int64_t *gidx = NULL;
  int32_t *cols_s = NULL;
  char *scratch = NULL;
  *S = NULL;
  GCOO_VALID_OBJECT(A, GCOO_MAGIC_SPARSE, "sparse matrix");
  GCOO_CHECK_GOTO(A->format == GCOO_FORMAT_CSR, GCOO_ERR_INVALID_ARG, "matrix is not CSR");
  GCOO_CHECK_GOTO(p >= 1, GCOO_ERR_INVALID_ARG, "GCOO group width p = %d must be >= 1", p);
  const int64_t m = A->nrows, nnz = A->nnz, ng = (m + p - 1) / p;
  const size_t es = gcoo_dtype_size(A->dtype);
  GCOO_GOTO(gcoo__malloc_n((void **)&gidx, ng + 1, sizeof *gidx, "gIdxes"));
  GCOO_GOTO(gcoo__malloc_n((void **)&cols_s, nnz, sizeof *cols_s, "columns of S"));
  int64_t gmax = 0;
  for (int64_t q = 0; q <= ng; q++) {
    gidx[q] = A->ptr[q * p < m ? q * p : m];
    if (q > 0 && gidx[q] - gidx[q - 1] > gmax) gmax = gidx[q] - gidx[q - 1];
  }
  GCOO_CHECK_GOTO(gmax < ((int64_t)1 << 32), GCOO_ERR_TOO_LARGE,
                  "a group of %d rows holds %lld entries (at most 2^32 - 1)", p, (long long)gmax);
  int nthreads = 1;
#ifdef _OPENMP
  nthreads = nnz > GCOO_OMP_MIN_WORK ? omp_get_max_threads() : 1;
#endif
  /* per thread: two key buffers, the local row of each entry, the group's values, run bounds */
  const size_t per = (size_t)gmax * (2 * sizeof(uint64_t) + sizeof(int32_t) + es) +
                     (size_t)(p + 1) * sizeof(int64_t) + 64;
  GCOO_GOTO(gcoo__malloc_n((void **)&scratch, nthreads, per, "group scratch"));
  int32_t *ind = A->ind;
  char *vals = A->values;
  const int64_t *ptr = A->ptr;
#pragma omp parallel num_threads(nthreads)
  {
    int tid = 0;
#ifdef _OPENMP
    tid = omp_get_thread_num();
#endif
    char *base = scratch + (size_t)tid * per;
    uint64_t *ka = (uint64_t *)base, *kb = ka + gmax;
    int64_t *bounds = (int64_t *)(kb + gmax);
    int32_t *rowof = (int32_t *)(bounds + p + 1);
    char *vs = (char *)(rowof + gmax);
#pragma omp for schedule(dynamic, 64)
    for (int64_t q = 0; q < ng; q++) {
      const int64_t g0 = gidx[q], n = gidx[q + 1] - g0, r0 = q * p;
      const int64_t r1 = r0 + p < m ? r0 + p : m;
      if (n == 0) continue;
      int64_t nr = 0;
      for (int64_t r = r0; r < r1; r++) {
        if (ptr[r + 1] == ptr[r]) continue;
        bounds[nr++] = ptr[r] - g0;
        for (int64_t e = ptr[r]; e < ptr[r + 1]; e++) {
          ka[e - g0] = (uint64_t)(uint32_t)ind[e] << 32 | (uint64_t)(e - g0);
          rowof[e - g0] = (int32_t)r;
        }
      }
      bounds[nr] = n;
      const uint64_t *sorted = merge_runs(ka, kb, bounds, nr);
      memcpy(vs, vals + (size_t)g0 * es, (size_t)n * es);
      for (int64_t j = 0; j < n; j++) {
        const int64_t src = (int64_t)(sorted[j] & 0xffffffffu);
        ind[g0 + j] = (int32_t)(sorted[j] >> 32);
        cols_s[g0 + j] = rowof[src];
        memcpy(vals + (size_t)(g0 + j) * es, vs + (size_t)src * es, es);
      }
    }
  }
  /* the arrays change hands: ind -> rows of S, values stay, ptr is no longer needed */
  const int64_t k = A->ncols;
  const gcoo_dtype dt = A->dtype;
  A->ind = NULL;
  A->values = NULL;
  gcoo_sparse_destroy(Ain);
  st = gcoo__sparse_adopt(S, GCOO_FORMAT_GCOO, dt, k, m, nnz, p, NULL, NULL, ind, cols_s, gidx,
                          vals);
  gidx = NULL, cols_s = NULL;
  GCOO_GOTO(st);
done:
  if (*Ain) gcoo_sparse_destroy(Ain);
  free(gidx);
  free(cols_s);
  free(scratch);
  return st;
}

gcoo_status gcoo__gcoo_to_csr_of_transpose(gcoo_sparse S, gcoo_sparse *A) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo__csr_arrays a = {NULL, NULL, NULL};
  *A = NULL;
  GCOO_VALID_OBJECT(S, GCOO_MAGIC_SPARSE, "sparse matrix");
  GCOO_CHECK(S->format == GCOO_FORMAT_GCOO, GCOO_ERR_INVALID_ARG, "matrix is not GCOO");
  const int64_t m = S->ncols, nnz = S->nnz;
  const size_t es = gcoo_dtype_size(S->dtype);
  GCOO_GOTO(gcoo__calloc((void **)&a.ptr, (size_t)m + 1, sizeof *a.ptr, "row pointer"));
  GCOO_GOTO(gcoo__malloc_n((void **)&a.ind, nnz, sizeof *a.ind, "column indices"));
  GCOO_GOTO(gcoo__malloc_n(&a.values, nnz, es, "values"));
  int64_t *const ptr = a.ptr;
  int32_t *const ind = a.ind;
  char *const vals = a.values;
  const int32_t *rs = S->rows, *cs = S->cols;
  const char *vs = S->values;
  const int64_t *g = S->gidx;
  /* a group's columns of S are its own rows of A: groups write disjoint rows */
#pragma omp parallel for schedule(dynamic, 64) if (nnz > GCOO_OMP_MIN_WORK)
  for (int64_t q = 0; q < S->ngroups; q++)
    for (int64_t e = g[q]; e < g[q + 1]; e++) ptr[cs[e] + 1]++;
  for (int64_t i = 0; i < m; i++) ptr[i + 1] += ptr[i];
    /* fill with ptr[i] as row i's cursor (a group's entries come by row of S = column of A, so
   * each row of A gets its columns in increasing order); the cursors end at the next row's start */
#pragma omp parallel for schedule(dynamic, 64) if (nnz > GCOO_OMP_MIN_WORK)
  for (int64_t q = 0; q < S->ngroups; q++)
    for (int64_t e = g[q]; e < g[q + 1]; e++) {
      const int64_t w = ptr[cs[e]]++;
      ind[w] = rs[e];
      memcpy(vals + (size_t)w * es, vs + (size_t)e * es, es);
    }
  for (int64_t i = m; i > 0; i--) ptr[i] = ptr[i - 1];
  ptr[0] = 0;
  GCOO_GOTO(gcoo__csr_arrays_adopt(&a, A, S->dtype, m, S->nrows, nnz));
done:
  gcoo__csr_arrays_free(&a);
  return st;
}

/* Rows of A in another order: row r of B is row order[r] of A (entries and their order within
 * the row unchanged), so B X is A X with its rows permuted. The tensor-core mode's window order
 * (kernels/spdm/tc_order.c) builds its layout from such a copy, and the benchmark times the exact
 * kernels on one. One pass; order is checked to be a permutation of 0 .. m - 1. */
gcoo_status gcoo__csr_rows_permuted(gcoo_sparse A, const int32_t *order, gcoo_sparse *B) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo__csr_arrays a = {NULL, NULL, NULL};
  unsigned char *seen = NULL;
  GCOO_VALID_OBJECT(A, GCOO_MAGIC_SPARSE, "sparse matrix");
  GCOO_CHECK(B != NULL && (order != NULL || A->nrows == 0), GCOO_ERR_NULL,
             "rows_permuted: NULL output or order");
  *B = NULL;
  GCOO_CHECK(A->format == GCOO_FORMAT_CSR, GCOO_ERR_INVALID_ARG,
             "rows_permuted takes a CSR matrix");
  const int64_t m = A->nrows, nnz = A->nnz;
  const size_t es = gcoo_dtype_size(A->dtype);
  GCOO_GOTO(gcoo__calloc((void **)&seen, (size_t)m + 1, 1, "row marks"));
  for (int64_t r = 0; r < m; r++) {
    GCOO_CHECK_GOTO(order[r] >= 0 && order[r] < m && !seen[order[r]], GCOO_ERR_INVALID_ARG,
                    "rows_permuted: order[%lld] = %lld is %s", (long long)r, (long long)order[r],
                    order[r] < 0 || order[r] >= m ? "outside the rows" : "a repeated row");
    seen[order[r]] = 1;
  }
  GCOO_GOTO(gcoo__malloc_n((void **)&a.ptr, m + 1, sizeof *a.ptr, "row pointer"));
  GCOO_GOTO(gcoo__malloc_n((void **)&a.ind, nnz, sizeof *a.ind, "column indices"));
  GCOO_GOTO(gcoo__malloc_n(&a.values, nnz, es, "values"));
  a.ptr[0] = 0;
  for (int64_t r = 0; r < m; r++) {
    const int64_t i = order[r], len = A->ptr[i + 1] - A->ptr[i];
    if (len) {
      memcpy(a.ind + a.ptr[r], A->ind + A->ptr[i], (size_t)len * sizeof *a.ind);
      memcpy((char *)a.values + (size_t)a.ptr[r] * es,
             (const char *)A->values + (size_t)A->ptr[i] * es, (size_t)len * es);
    }
    a.ptr[r + 1] = a.ptr[r] + len;
  }
  GCOO_GOTO(gcoo__csr_arrays_adopt(&a, B, A->dtype, m, A->ncols, nnz));
done:
  gcoo__csr_arrays_free(&a);
  free(seen);
  return st;
}

/* The caller's matrix, in the reading the options name, as an owned copy in one of the two
 * frames with at most one conversion (docs/datapath.md):
 *   SPARSE_DENSE: A in CSR (a copy) or any other format converted to CSR;
 *   DENSE_SPARSE: S in GCOO (a copy: the CPU kernel's layout), S in CSC (a copy read as the CSR
 *                 of A = S^T), S in CSR or COO transposed to the CSR of A. */
gcoo_status gcoo__sparse_frame_copy(gcoo_sparse A, gcoo_reading reading, gcoo_sparse *out) {
  gcoo_sparse_info ai;
  GCOO_CALL(gcoo_sparse_get_info(A, &ai));
  *out = NULL;
  if (reading == GCOO_SPARSE_DENSE) {
    if (ai.format == GCOO_FORMAT_CSR)
      GCOO_CALL(gcoo__sparse_clone(A, out));
    else
      GCOO_CALL(gcoo_sparse_convert(out, A, GCOO_FORMAT_CSR, 0));
    return GCOO_SUCCESS;
  }
  if (ai.format == GCOO_FORMAT_GCOO || ai.format == GCOO_FORMAT_CSC) {
    GCOO_CALL(gcoo__sparse_clone(A, out));
    if (ai.format == GCOO_FORMAT_CSC) {
      gcoo_status st = gcoo__sparse_flip_compressed(*out);
      if (st < 0) gcoo_sparse_destroy(out);
      GCOO_CALL(st);
    }
    return GCOO_SUCCESS;
  }
  gcoo_sparse At = NULL;
  GCOO_CALL(gcoo_sparse_transpose(&At, A));
  if (ai.format == GCOO_FORMAT_CSR) { /* the transpose of a CSR matrix comes as CSR */
    *out = At;
    return GCOO_SUCCESS;
  }
  gcoo_status st = gcoo_sparse_convert(out, At, GCOO_FORMAT_CSR, 0);
  gcoo_sparse_destroy(&At);
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}
