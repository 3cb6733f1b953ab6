/* SPDX-License-Identifier: MIT */
/* tests/unit/unit_util.c: see unit_util.h. */
#define _XOPEN_SOURCE 700
#include "unit_util.h"

#include <dirent.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

double ut_uniform(ut_rng *r) {
  uint64_t z = (r->x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

uint64_t ut_below(ut_rng *r, uint64_t n) { return (uint64_t)(ut_uniform(r) * (double)n) % n; }

gcoo_dense ut_random_dense(gcoo_dtype dtype, gcoo_layout layout, int64_t m, int64_t n,
                           double density, uint64_t seed) {
  gcoo_dense D;
  ut_rng r = {seed * 0x2545f4914f6cdd1dull + 17};
  TEST_CALL(gcoo_dense_create(&D, dtype, layout, m, n));
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      double v = 0.0;
      if (ut_uniform(&r) < density) {
        v = 2.0 * ut_uniform(&r) - 1.0;
        if ((float)v == 0.0f) v = 0.5; /* keep the pattern exact in both types */
      }
      gcoo_dense_set(&D, i, j, v);
    }
  return D;
}

static void push(ut_expect *e, const gcoo_dense *D, int64_t i, int64_t j) {
  e->rows[e->nnz] = (int32_t)i;
  e->cols[e->nnz] = (int32_t)j;
  double v = gcoo_dense_get(D, i, j);
  if (e->dtype == GCOO_FLOAT64)
    ((double *)e->vals)[e->nnz] = v;
  else
    ((float *)e->vals)[e->nnz] = (float)v;
  e->nnz++;
}

ut_expect ut_expect_from_dense(const gcoo_dense *D, gcoo_format format, int32_t p) {
  ut_expect e;
  memset(&e, 0, sizeof e);
  e.format = format;
  e.dtype = D->dtype;
  e.nrows = D->nrows;
  e.ncols = D->ncols;
  int64_t cap = D->nrows * D->ncols + 1;
  e.rows = malloc((size_t)cap * sizeof *e.rows);
  e.cols = malloc((size_t)cap * sizeof *e.cols);
  e.vals = malloc((size_t)cap * gcoo_dtype_size(D->dtype));
  e.ptr = calloc((size_t)(D->nrows > D->ncols ? D->nrows : D->ncols) + 1, sizeof *e.ptr);
  if (!e.rows || !e.cols || !e.vals || !e.ptr) {
    fprintf(stderr, "FAIL: out of memory in the test\n");
    exit(1);
  }
  switch (format) {
    case GCOO_FORMAT_COO:
    case GCOO_FORMAT_CSR:
      for (int64_t i = 0; i < D->nrows; i++) {
        for (int64_t j = 0; j < D->ncols; j++)
          if (gcoo_dense_get(D, i, j) != 0.0) push(&e, D, i, j);
        e.ptr[i + 1] = e.nnz;
      }
      break;
    case GCOO_FORMAT_CSC:
      for (int64_t j = 0; j < D->ncols; j++) {
        for (int64_t i = 0; i < D->nrows; i++)
          if (gcoo_dense_get(D, i, j) != 0.0) push(&e, D, i, j);
        e.ptr[j + 1] = e.nnz;
      }
      break;
    case GCOO_FORMAT_GCOO:
      e.p = p;
      e.ngroups = (D->ncols + p - 1) / p;
      e.gidx = calloc((size_t)e.ngroups + 1, sizeof *e.gidx);
      for (int64_t q = 0; q < e.ngroups; q++) {
        int64_t c1 = (q + 1) * p < D->ncols ? (q + 1) * p : D->ncols;
        for (int64_t i = 0; i < D->nrows; i++)
          for (int64_t j = q * p; j < c1; j++)
            if (gcoo_dense_get(D, i, j) != 0.0) push(&e, D, i, j);
        e.gidx[q + 1] = e.nnz;
      }
      break;
  }
  return e;
}

void ut_expect_free(ut_expect *e) {
  free(e->ptr);
  free(e->gidx);
  free(e->ind);
  free(e->rows);
  free(e->cols);
  free(e->vals);
  memset(e, 0, sizeof *e);
}

const char *ut_format_name(gcoo_format f) {
  static const char *names[] = {"COO", "CSR", "CSC", "GCOO"};
  return (unsigned)f < 4 ? names[f] : "?";
}

static int differ(const void *a, const void *b, int64_t n, size_t es) {
  return n > 0 && memcmp(a, b, (size_t)n * es) != 0;
}

int ut_check_arrays(gcoo_sparse A, const ut_expect *e, const char *what) {
  gcoo_sparse_info info;
  gcoo_sparse_arrays a;
  int bad = 0;
  TEST_CALL(gcoo_sparse_get_info(A, &info));
  TEST_CALL(gcoo_sparse_get_arrays(A, &a));
#define UT_EXPECT(cond, ...)                                                         \
  do {                                                                               \
    if (!(cond)) {                                                                   \
      fprintf(stderr, "FAIL %s (%s): %s: ", what, ut_format_name(e->format), #cond); \
      fprintf(stderr, __VA_ARGS__);                                                  \
      fprintf(stderr, "\n");                                                         \
      bad++;                                                                         \
    }                                                                                \
  } while (0)
  UT_EXPECT(info.format == e->format, "format %d", (int)info.format);
  UT_EXPECT(info.dtype == e->dtype, "dtype %d", (int)info.dtype);
  UT_EXPECT(info.nrows == e->nrows && info.ncols == e->ncols, "shape %lld x %lld",
            (long long)info.nrows, (long long)info.ncols);
  UT_EXPECT(info.nnz == e->nnz, "nnz %lld, expected %lld", (long long)info.nnz, (long long)e->nnz);
  if (bad) goto out;
  int64_t nnz = e->nnz;
  UT_EXPECT(!differ(a.values, e->vals, nnz, gcoo_dtype_size(e->dtype)), "values differ");
  switch (e->format) {
    case GCOO_FORMAT_COO:
      UT_EXPECT(!differ(a.rows, e->rows, nnz, 4) && !differ(a.cols, e->cols, nnz, 4),
                "coordinates differ");
      UT_EXPECT(a.ptr == NULL && a.gidx == NULL, "unexpected arrays");
      break;
    case GCOO_FORMAT_CSR:
    case GCOO_FORMAT_CSC: {
      int csr = e->format == GCOO_FORMAT_CSR;
      int64_t nmaj = csr ? e->nrows : e->ncols;
      UT_EXPECT(!differ(a.ptr, e->ptr, nmaj + 1, 8), "pointers differ");
      UT_EXPECT(!differ(a.ind, csr ? e->cols : e->rows, nnz, 4), "indices differ");
      UT_EXPECT(a.rows == NULL && a.gidx == NULL, "unexpected arrays");
      break;
    }
    case GCOO_FORMAT_GCOO:
      UT_EXPECT(info.p == e->p && info.ngroups == e->ngroups,
                "p %d, %lld groups (expected %d, %lld)", info.p, (long long)info.ngroups, e->p,
                (long long)e->ngroups);
      if (bad) break;
      UT_EXPECT(!differ(a.gidx, e->gidx, e->ngroups + 1, 8), "gIdxes differ");
      for (int64_t q = 0; q < e->ngroups; q++)
        UT_EXPECT(a.gnnz[q] == e->gidx[q + 1] - e->gidx[q], "nnzPerGroup[%lld] = %lld",
                  (long long)q, (long long)a.gnnz[q]);
      UT_EXPECT(!differ(a.rows, e->rows, nnz, 4) && !differ(a.cols, e->cols, nnz, 4),
                "coordinates differ");
      break;
  }
#undef UT_EXPECT
out:
  gcoo_test_failures += bad;
  return bad;
}

int ut_check_same(gcoo_sparse A, gcoo_sparse B, const char *what) {
  gcoo_sparse_info ia, ib;
  gcoo_sparse_arrays a, b;
  TEST_CALL(gcoo_sparse_get_info(A, &ia));
  TEST_CALL(gcoo_sparse_get_info(B, &ib));
  TEST_CALL(gcoo_sparse_get_arrays(A, &a));
  TEST_CALL(gcoo_sparse_get_arrays(B, &b));
  int same = ia.format == ib.format && ia.dtype == ib.dtype && ia.nrows == ib.nrows &&
             ia.ncols == ib.ncols && ia.nnz == ib.nnz && ia.p == ib.p && ia.ngroups == ib.ngroups;
  if (same) {
    int64_t n = ia.nnz;
    int csr = ia.format == GCOO_FORMAT_CSR, csc = ia.format == GCOO_FORMAT_CSC;
    int64_t nmaj = csr ? ia.nrows : ia.ncols;
    same = !differ(a.values, b.values, n, gcoo_dtype_size(ia.dtype));
    if (csr || csc)
      same = same && !differ(a.ptr, b.ptr, nmaj + 1, 8) && !differ(a.ind, b.ind, n, 4);
    else
      same = same && !differ(a.rows, b.rows, n, 4) && !differ(a.cols, b.cols, n, 4);
    if (ia.format == GCOO_FORMAT_GCOO)
      same = same && !differ(a.gidx, b.gidx, ia.ngroups + 1, 8) &&
             !differ(a.gnnz, b.gnnz, ia.ngroups, 8);
  }
  if (!same) {
    fprintf(stderr,
            "FAIL %s: matrices differ (%s %lld x %lld nnz %lld vs %s %lld x %lld nnz %lld)\n", what,
            ut_format_name(ia.format), (long long)ia.nrows, (long long)ia.ncols, (long long)ia.nnz,
            ut_format_name(ib.format), (long long)ib.nrows, (long long)ib.ncols, (long long)ib.nnz);
    gcoo_test_failures++;
  }
  return !same;
}

int ut_check_dense_equal(const gcoo_dense *A, const gcoo_dense *B, const char *what) {
  int bad = A->nrows != B->nrows || A->ncols != B->ncols || A->dtype != B->dtype;
  for (int64_t i = 0; !bad && i < A->nrows; i++)
    for (int64_t j = 0; !bad && j < A->ncols; j++) {
      double x = gcoo_dense_get(A, i, j), y = gcoo_dense_get(B, i, j);
      if (memcmp(&x, &y, sizeof x) != 0) {
        fprintf(stderr, "FAIL %s: element (%lld, %lld): %.17g vs %.17g\n", what, (long long)i,
                (long long)j, x, y);
        bad = 1;
      }
    }
  if (bad && (A->nrows != B->nrows || A->ncols != B->ncols || A->dtype != B->dtype))
    fprintf(stderr, "FAIL %s: shapes or types differ\n", what);
  gcoo_test_failures += bad;
  return bad;
}

static char tmpdir[256];

const char *ut_tmpdir(void) {
  if (!tmpdir[0]) {
    const char *base = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/gcoo-test-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmpdir)) {
      perror("mkdtemp");
      exit(1);
    }
  }
  return tmpdir;
}

int ut_count_files(const char *dir, const char *needle) {
  DIR *d = opendir(dir);
  int n = 0;
  if (!d) return 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;)
    if (strstr(e->d_name, needle)) n++;
  closedir(d);
  return n;
}

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb;
  (void)flag;
  (void)ftw;
  return remove(path);
}

void ut_tmpdir_remove(void) {
  if (tmpdir[0]) nftw(tmpdir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
  tmpdir[0] = '\0';
}
