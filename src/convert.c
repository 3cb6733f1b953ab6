/* SPDX-License-Identifier: MIT */
/* src/convert.c: conversions between COO, CSR, CSC, GCOO and dense on the CPU.
 *
 * Every conversion goes through canonical triplets (coordinates sorted by row, then column,
 * no duplicates). Sorting is two stable counting passes (by column, then by row), O(nnz + n),
 * and each format is built from the triplets with one more stable counting pass:
 *   CSR  = triplets (already row-major) with row counts;
 *   CSC  = triplets stably re-sorted by column (rows stay increasing inside a column);
 *   GCOO = triplets stably re-sorted by group col / p (row, column order kept inside a group). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sparse_impl.h"

void gcoo__triplets_free(gcoo_triplets *t) {
  free(t->rows);
  free(t->cols);
  free(t->vals);
  t->rows = t->cols = NULL;
  t->vals = NULL;
}

typedef struct key_at {
  int64_t key, k;
} key_at;

static int key_at_cmp(const void *a, const void *b) {
  const key_at *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->k < y->k ? -1 : x->k > y->k; /* by position: stable */
}

/* Stable counting sort permutation: perm[k] = index of the k-th entry in key order.
 * start (nkeys + 1) receives the offsets of each key; it may be NULL.
 * Counting costs nkeys + 1 counters and O(nkeys + n) time: the right sort for ordinary matrices,
 * but 16 GB of counters (and seconds) to sort three entries of a 2^31 - 1 row hypersparse matrix
 * (a huge empty shape, a slab with global indices). When the caller needs no key offsets and the
 * keys far outnumber the entries, (key, position) pairs are sorted instead: O(n log n) time,
 * O(n) memory, the same stable order. */
static gcoo_status counting_perm(const int32_t *key, int32_t divisor, int64_t nkeys, int64_t n,
                                 int64_t *perm, int64_t *start) {
  if (!start && nkeys > 4 * n + 4096) {
    key_at *ka = NULL;
    GCOO_CALL(gcoo__malloc_n((void **)&ka, n, sizeof *ka, "sort keys"));
    for (int64_t k = 0; k < n; k++) ka[k] = (key_at){key[k] / divisor, k};
    qsort(ka, (size_t)n, sizeof *ka, key_at_cmp);
    for (int64_t k = 0; k < n; k++) perm[k] = ka[k].k;
    free(ka);
    return GCOO_SUCCESS;
  }
  int64_t *cnt = NULL;
  GCOO_CALL(gcoo__calloc((void **)&cnt, (size_t)nkeys + 1, sizeof *cnt, "counting sort"));
  for (int64_t k = 0; k < n; k++) cnt[key[k] / divisor + 1]++;
  for (int64_t i = 0; i < nkeys; i++) cnt[i + 1] += cnt[i];
  if (start) memcpy(start, cnt, (size_t)(nkeys + 1) * sizeof *cnt);
  for (int64_t k = 0; k < n; k++) perm[cnt[key[k] / divisor]++] = k;
  free(cnt);
  return GCOO_SUCCESS;
}

/* Apply perm to the triplets' three arrays (dst[k] = src[perm[k]]). */
static gcoo_status permute(gcoo_triplets *t, const int64_t *perm) {
  gcoo_status st = GCOO_SUCCESS;
  size_t es = gcoo_dtype_size(t->dtype);
  gcoo_triplets p = *t; /* the permuted copy: t's shape, new arrays */
  p.rows = NULL, p.cols = NULL, p.vals = NULL;
  GCOO_GOTO(gcoo__malloc_n((void **)&p.rows, t->nnz, sizeof *p.rows, "permuted rows"));
  GCOO_GOTO(gcoo__malloc_n((void **)&p.cols, t->nnz, sizeof *p.cols, "permuted cols"));
  GCOO_GOTO(gcoo__malloc_n(&p.vals, t->nnz, es, "permuted values"));
  const char *sv = t->vals;
  char *v = p.vals;
#pragma omp parallel for schedule(static) if (t->nnz > GCOO_OMP_MIN_WORK)
  for (int64_t k = 0; k < t->nnz; k++) {
    p.rows[k] = t->rows[perm[k]];
    p.cols[k] = t->cols[perm[k]];
    memcpy(v + (size_t)k * es, sv + (size_t)perm[k] * es, es);
  }
  gcoo__triplets_free(t);
  *t = p;
  p.rows = NULL, p.cols = NULL, p.vals = NULL; /* now t's */
done:
  gcoo__triplets_free(&p);
  return st;
}

gcoo_status gcoo__triplets_canonicalize(gcoo_triplets *t, unsigned flags) {
  gcoo_status st = GCOO_SUCCESS;
  int64_t *perm = NULL;
  /* already canonical? (the common case for files and conversions) */
  int canonical = 1;
  for (int64_t k = 1; k < t->nnz && canonical; k++)
    canonical = t->rows[k - 1] < t->rows[k] ||
                (t->rows[k - 1] == t->rows[k] && t->cols[k - 1] < t->cols[k]);
  if (canonical) return GCOO_SUCCESS;
  GCOO_GOTO(gcoo__malloc_n((void **)&perm, t->nnz, sizeof *perm, "sort permutation"));
  GCOO_GOTO(counting_perm(t->cols, 1, t->ncols, t->nnz, perm, NULL));
  GCOO_GOTO(permute(t, perm));
  GCOO_GOTO(counting_perm(t->rows, 1, t->nrows, t->nnz, perm, NULL));
  GCOO_GOTO(permute(t, perm));
  /* resolve duplicates, now adjacent */
  int64_t w = 0;
  for (int64_t k = 0; k < t->nnz; k++) {
    if (w > 0 && t->rows[w - 1] == t->rows[k] && t->cols[w - 1] == t->cols[k]) {
      GCOO_CHECK_GOTO(!(flags & GCOO_DUPLICATES_ERROR), GCOO_ERR_DUPLICATE,
                      "entry (%d, %d) appears more than once", t->rows[k], t->cols[k]);
      double sum;
      if (t->dtype == GCOO_FLOAT64)
        sum = ((double *)t->vals)[w - 1] += ((double *)t->vals)[k];
      else
        sum = ((float *)t->vals)[w - 1] += ((float *)t->vals)[k];
      /* finite values can sum to infinity (1e308 twice; 3e38 twice in float32): the checks of
       * GCOO_REQUIRE_FINITE on the inputs do not cover the sums */
      GCOO_CHECK_GOTO(!(flags & GCOO_REQUIRE_FINITE) || isfinite(sum), GCOO_ERR_NOT_FINITE,
                      "entry (%d, %d): repeated values sum to %g, which overflows %s", t->rows[k],
                      t->cols[k], sum, t->dtype == GCOO_FLOAT64 ? "float64" : "float32");
      continue;
    }
    t->rows[w] = t->rows[k];
    t->cols[w] = t->cols[k];
    if (t->dtype == GCOO_FLOAT64)
      ((double *)t->vals)[w] = ((double *)t->vals)[k];
    else
      ((float *)t->vals)[w] = ((float *)t->vals)[k];
    w++;
  }
  t->nnz = w;
done:
  free(perm);
  return st;
}

gcoo_status gcoo__triplets_from_sparse(gcoo_sparse A, gcoo_triplets *t) {
  gcoo_status st = GCOO_SUCCESS;
  GCOO_VALID_OBJECT(A, GCOO_MAGIC_SPARSE, "sparse matrix");
  size_t es = gcoo_dtype_size(A->dtype);
  *t = (gcoo_triplets){A->dtype, A->nrows, A->ncols, A->nnz, NULL, NULL, NULL};
  GCOO_GOTO(gcoo__malloc_n((void **)&t->rows, A->nnz, sizeof(int32_t), "rows"));
  GCOO_GOTO(gcoo__malloc_n((void **)&t->cols, A->nnz, sizeof(int32_t), "cols"));
  GCOO_GOTO(gcoo__malloc_n(&t->vals, A->nnz, es, "values"));
  if (A->nnz) memcpy(t->vals, A->values, (size_t)A->nnz * es);
  switch (A->format) {
    case GCOO_FORMAT_COO:
    case GCOO_FORMAT_GCOO:
      if (A->nnz) memcpy(t->rows, A->rows, (size_t)A->nnz * sizeof(int32_t));
      if (A->nnz) memcpy(t->cols, A->cols, (size_t)A->nnz * sizeof(int32_t));
      break;
    case GCOO_FORMAT_CSR:
    case GCOO_FORMAT_CSC: {
      int csr = A->format == GCOO_FORMAT_CSR;
      int64_t nmaj = csr ? A->nrows : A->ncols;
      for (int64_t i = 0; i < nmaj; i++)
        for (int64_t k = A->ptr[i]; k < A->ptr[i + 1]; k++) {
          t->rows[k] = csr ? (int32_t)i : A->ind[k];
          t->cols[k] = csr ? A->ind[k] : (int32_t)i;
        }
      break;
    }
  }
  /* COO and CSR are canonical already; CSC and GCOO need the row pass. */
  GCOO_GOTO(gcoo__triplets_canonicalize(t, 0));
done:
  if (st < 0) gcoo__triplets_free(t);
  return st;
}

gcoo_status gcoo__sparse_from_triplets(gcoo_sparse *A, gcoo_triplets *t, gcoo_format format,
                                       int32_t p) {
  gcoo_status st = GCOO_SUCCESS;
  int64_t *ptr = NULL, *perm = NULL, *gidx = NULL;
  int32_t *ind = NULL;
  *A = NULL;
  switch (format) {
    case GCOO_FORMAT_COO:
      st = gcoo__sparse_adopt(A, format, t->dtype, t->nrows, t->ncols, t->nnz, 0, NULL, NULL,
                              t->rows, t->cols, NULL, t->vals);
      t->rows = t->cols = NULL, t->vals = NULL;
      GCOO_GOTO(st);
      break;
    case GCOO_FORMAT_CSR:
      GCOO_GOTO(gcoo__calloc((void **)&ptr, (size_t)t->nrows + 1, sizeof *ptr, "rowptr"));
      for (int64_t k = 0; k < t->nnz; k++) ptr[t->rows[k] + 1]++;
      for (int64_t i = 0; i < t->nrows; i++) ptr[i + 1] += ptr[i];
      st = gcoo__sparse_adopt(A, format, t->dtype, t->nrows, t->ncols, t->nnz, 0, ptr, t->cols,
                              NULL, NULL, NULL, t->vals);
      ptr = NULL, t->cols = NULL, t->vals = NULL;
      GCOO_GOTO(st);
      break;
    case GCOO_FORMAT_CSC:
      GCOO_GOTO(gcoo__malloc_n((void **)&perm, t->nnz, sizeof *perm, "column permutation"));
      GCOO_GOTO(gcoo__malloc_n((void **)&ptr, t->ncols + 1, sizeof *ptr, "colptr"));
      GCOO_GOTO(counting_perm(t->cols, 1, t->ncols, t->nnz, perm, ptr));
      GCOO_GOTO(permute(t, perm));
      st = gcoo__sparse_adopt(A, format, t->dtype, t->nrows, t->ncols, t->nnz, 0, ptr, t->rows,
                              NULL, NULL, NULL, t->vals);
      ptr = NULL, t->rows = NULL, t->vals = NULL;
      GCOO_GOTO(st);
      break;
    case GCOO_FORMAT_GCOO: {
      if (p == 0) p = GCOO_DEFAULT_P;
      GCOO_CHECK_GOTO(p >= 1, GCOO_ERR_INVALID_ARG, "GCOO group width p = %d must be >= 1", p);
      int64_t ng = (t->ncols + p - 1) / p;
      GCOO_GOTO(gcoo__malloc_n((void **)&perm, t->nnz, sizeof *perm, "group permutation"));
      GCOO_GOTO(gcoo__malloc_n((void **)&gidx, ng + 1, sizeof *gidx, "gIdxes"));
      GCOO_GOTO(counting_perm(t->cols, p, ng, t->nnz, perm, gidx));
      GCOO_GOTO(permute(t, perm));
      st = gcoo__sparse_adopt(A, format, t->dtype, t->nrows, t->ncols, t->nnz, p, NULL, NULL,
                              t->rows, t->cols, gidx, t->vals);
      gidx = NULL, t->rows = t->cols = NULL, t->vals = NULL;
      GCOO_GOTO(st);
      break;
    }
    default: GCOO_CHECK_GOTO(0, GCOO_ERR_INVALID_ARG, "unknown sparse format %d", (int)format);
  }
done:
  free(ptr);
  free(perm);
  free(gidx);
  free(ind);
  gcoo__triplets_free(t);
  return st;
}

gcoo_status gcoo_sparse_convert(gcoo_sparse *B, gcoo_sparse A, gcoo_format format, int32_t p) {
  gcoo_triplets t;
  GCOO_CHECK(B != NULL, GCOO_ERR_NULL, "output handle is NULL");
  *B = NULL;
  GCOO_CHECK(p >= 0, GCOO_ERR_INVALID_ARG, "GCOO group width p = %d must be >= 0", p);
  GCOO_CALL(gcoo__triplets_from_sparse(A, &t));
  GCOO_CALL(gcoo__sparse_from_triplets(B, &t, format, p ? p : (A->p ? A->p : GCOO_DEFAULT_P)));
  return GCOO_SUCCESS;
}

gcoo_status gcoo_sparse_transpose(gcoo_sparse *B, gcoo_sparse A) {
  gcoo_triplets t;
  GCOO_CHECK(B != NULL, GCOO_ERR_NULL, "output handle is NULL");
  *B = NULL;
  GCOO_CALL(gcoo__triplets_from_sparse(A, &t));
  int32_t *tmp = t.rows;
  t.rows = t.cols;
  t.cols = tmp;
  int64_t n = t.nrows;
  t.nrows = t.ncols;
  t.ncols = n;
  gcoo_status st = gcoo__triplets_canonicalize(&t, 0);
  if (st < 0) {
    gcoo__triplets_free(&t);
    GCOO_CALL(st);
  }
  GCOO_CALL(gcoo__sparse_from_triplets(B, &t, A->format, A->p));
  return GCOO_SUCCESS;
}

gcoo_status gcoo_sparse_astype(gcoo_sparse *B, gcoo_sparse A, gcoo_dtype dtype) {
  gcoo_triplets t;
  GCOO_CHECK(B != NULL, GCOO_ERR_NULL, "output handle is NULL");
  *B = NULL;
  GCOO_CHECK_DTYPE(dtype);
  GCOO_CALL(gcoo__triplets_from_sparse(A, &t));
  if (dtype != t.dtype) {
    void *v = NULL;
    gcoo_status st = gcoo__malloc_n(&v, t.nnz, gcoo_dtype_size(dtype), "values");
    if (st < 0) {
      gcoo__triplets_free(&t);
      GCOO_CALL(st);
    }
    for (int64_t k = 0; k < t.nnz; k++) {
      if (dtype == GCOO_FLOAT64)
        ((double *)v)[k] = ((float *)t.vals)[k];
      else
        ((float *)v)[k] = (float)((double *)t.vals)[k];
    }
    free(t.vals);
    t.vals = v;
    t.dtype = dtype;
  }
  GCOO_CALL(gcoo__sparse_from_triplets(B, &t, A->format, A->p));
  return GCOO_SUCCESS;
}

gcoo_status gcoo_sparse_from_dense(gcoo_sparse *A, const gcoo_dense *D, gcoo_format format,
                                   int32_t p, unsigned flags) {
  gcoo_status st = GCOO_SUCCESS;
  GCOO_CHECK(A != NULL, GCOO_ERR_NULL, "output handle is NULL");
  *A = NULL;
  GCOO_CALL(gcoo_dense_check(D));
  GCOO_CHECK(D->mem == GCOO_MEM_HOST, GCOO_ERR_INVALID_ARG, "dense matrix must be in host memory");
  GCOO_CHECK_DIM(D->nrows, "rows");
  GCOO_CHECK_DIM(D->ncols, "columns");
  gcoo_triplets t = {D->dtype, D->nrows, D->ncols, 0, NULL, NULL, NULL};
  int64_t n = 0;
  for (int64_t i = 0; i < D->nrows; i++)
    for (int64_t j = 0; j < D->ncols; j++) {
      double v = gcoo_dense_get(D, i, j);
      if ((flags & GCOO_REQUIRE_FINITE) && !isfinite(v))
        return GCOO_ERROR(GCOO_ERR_NOT_FINITE, "dense element (%lld, %lld) is not finite",
                          (long long)i, (long long)j);
      n += (v != 0.0 || (flags & GCOO_KEEP_ZEROS));
    }
  t.nnz = n;
  GCOO_GOTO(gcoo__malloc_n((void **)&t.rows, n, sizeof(int32_t), "rows"));
  GCOO_GOTO(gcoo__malloc_n((void **)&t.cols, n, sizeof(int32_t), "cols"));
  GCOO_GOTO(gcoo__malloc_n(&t.vals, n, gcoo_dtype_size(D->dtype), "values"));
  int64_t k = 0;
  for (int64_t i = 0; i < D->nrows; i++)
    for (int64_t j = 0; j < D->ncols; j++) {
      double v = gcoo_dense_get(D, i, j);
      if (v == 0.0 && !(flags & GCOO_KEEP_ZEROS)) continue;
      t.rows[k] = (int32_t)i;
      t.cols[k] = (int32_t)j;
      if (D->dtype == GCOO_FLOAT64)
        ((double *)t.vals)[k] = v;
      else
        ((float *)t.vals)[k] = (float)v;
      k++;
    }
  GCOO_GOTO(gcoo__sparse_from_triplets(A, &t, format, p));
done:
  gcoo__triplets_free(&t);
  return st;
}

gcoo_status gcoo_sparse_to_dense(gcoo_sparse A, gcoo_dense *D) {
  gcoo_triplets t;
  GCOO_VALID_OBJECT(A, GCOO_MAGIC_SPARSE, "sparse matrix");
  GCOO_CALL(gcoo_dense_check(D));
  GCOO_CHECK(D->mem == GCOO_MEM_HOST, GCOO_ERR_INVALID_ARG, "dense matrix must be in host memory");
  GCOO_CHECK(D->nrows == A->nrows && D->ncols == A->ncols, GCOO_ERR_SHAPE,
             "dense is %lld x %lld, sparse is %lld x %lld", (long long)D->nrows,
             (long long)D->ncols, (long long)A->nrows, (long long)A->ncols);
  GCOO_CHECK(D->dtype == A->dtype, GCOO_ERR_DTYPE, "element types differ");
  GCOO_CALL(gcoo_dense_fill(D, 0.0));
  GCOO_CALL(gcoo__triplets_from_sparse(A, &t));
  for (int64_t k = 0; k < t.nnz; k++)
    gcoo_dense_set(D, t.rows[k], t.cols[k],
                   t.dtype == GCOO_FLOAT64 ? ((double *)t.vals)[k] : ((float *)t.vals)[k]);
  gcoo__triplets_free(&t);
  return GCOO_SUCCESS;
}

gcoo_status gcoo_sparse_add_diagonal(gcoo_sparse *B, gcoo_sparse A, double shift, int64_t offset) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_triplets t = {0};
  GCOO_CHECK(B != NULL, GCOO_ERR_NULL, "output handle is NULL");
  *B = NULL;
  GCOO_CALL(gcoo__triplets_from_sparse(A, &t));
  /* rows i whose diagonal column i + offset is inside the matrix */
  int64_t i0 = offset < 0 ? -offset : 0,
          i1 = t.ncols - offset < t.nrows ? t.ncols - offset : t.nrows;
  int64_t nd = i1 > i0 ? i1 - i0 : 0;
  size_t es = gcoo_dtype_size(t.dtype);
  int32_t *r = realloc(t.rows, (size_t)(t.nnz + nd + 1) * sizeof *r);
  if (r) t.rows = r;
  int32_t *c = realloc(t.cols, (size_t)(t.nnz + nd + 1) * sizeof *c);
  if (c) t.cols = c;
  void *v = realloc(t.vals, (size_t)(t.nnz + nd + 1) * es);
  if (v) t.vals = v;
  GCOO_CHECK_GOTO(r && c && v, GCOO_ERR_NO_MEMORY, "no memory for %lld diagonal entries",
                  (long long)nd);
  for (int64_t d = 0; d < nd; d++) {
    int64_t k = t.nnz + d, i = i0 + d;
    t.rows[k] = (int32_t)i;
    t.cols[k] = (int32_t)(i + offset);
    if (t.dtype == GCOO_FLOAT64)
      ((double *)t.vals)[k] = shift;
    else
      ((float *)t.vals)[k] = (float)shift;
  }
  t.nnz += nd;
  GCOO_GOTO(gcoo__triplets_canonicalize(&t, 0)); /* sums the shift into existing diagonals */
  gcoo_sparse_info ai;
  GCOO_GOTO(gcoo_sparse_get_info(A, &ai));
  GCOO_GOTO(gcoo__sparse_from_triplets(B, &t, ai.format, ai.p));
done:
  gcoo__triplets_free(&t);
  return st;
}
