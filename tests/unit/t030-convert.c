/* SPDX-License-Identifier: MIT */
/* tests/unit/t030-convert.c: conversions between COO, CSR, CSC, GCOO and dense, transposes and
 * element-type changes, on fresh random matrices of many shapes (0 x 0, 1 x 1, 1 x n, n x 1,
 * empty rows/columns, nnz = 0, full) and group widths (p = 1, p not dividing ncols, p > ncols,
 * empty groups), both element types. Every result is compared BIT FOR BIT with arrays built by
 * plain scans of the dense matrix (unit_util.c), which share no code with src/convert.c. */
#include <math.h>
#include <string.h>

#include "unit_util.h"

static const int64_t shapes[][2] = {{0, 0}, {1, 1},   {1, 17}, {17, 1}, {0, 5},
                                    {5, 0}, {23, 37}, {64, 9}, {3, 200}};
static const double densities[] = {0.0, 0.15, 1.0};
static const int32_t ps[] = {1, 3, 4, 32, 100};
enum { NSHAPES = sizeof shapes / sizeof shapes[0], NDENS = 3, NPS = 5 };

/* The same values in the other element type (float64 -> float32 rounds). */
static gcoo_dense retyped(const gcoo_dense *D, gcoo_dtype dtype) {
  gcoo_dense E;
  TEST_CALL(gcoo_dense_create(&E, dtype, D->layout, D->nrows, D->ncols));
  for (int64_t i = 0; i < D->nrows; i++)
    for (int64_t j = 0; j < D->ncols; j++) {
      double v = gcoo_dense_get(D, i, j);
      gcoo_dense_set(&E, i, j, dtype == GCOO_FLOAT32 ? (double)(float)v : v);
    }
  return E;
}

static gcoo_dense transposed_copy(const gcoo_dense *D) {
  gcoo_dense T;
  TEST_CALL(gcoo_dense_create(&T, D->dtype, GCOO_ROW_MAJOR, D->ncols, D->nrows));
  for (int64_t i = 0; i < D->nrows; i++)
    for (int64_t j = 0; j < D->ncols; j++) gcoo_dense_set(&T, j, i, gcoo_dense_get(D, i, j));
  return T;
}

/* COO from the coordinates in a shuffled order: creation must sort them. */
static gcoo_sparse shuffled_coo(const gcoo_dense *D, uint64_t seed) {
  ut_expect e = ut_expect_from_dense(D, GCOO_FORMAT_COO, 0);
  ut_rng r = {seed};
  size_t es = gcoo_dtype_size(e.dtype);
  char tmp[8];
  for (int64_t k = e.nnz - 1; k > 0; k--) {
    int64_t s = (int64_t)ut_below(&r, (uint64_t)k + 1);
    int32_t t = e.rows[k];
    e.rows[k] = e.rows[s], e.rows[s] = t;
    t = e.cols[k];
    e.cols[k] = e.cols[s], e.cols[s] = t;
    memcpy(tmp, (char *)e.vals + k * es, es);
    memcpy((char *)e.vals + k * es, (char *)e.vals + s * es, es);
    memcpy((char *)e.vals + s * es, tmp, es);
  }
  gcoo_sparse A = NULL;
  TEST_CALL(gcoo_sparse_create_coo(&A, e.dtype, e.nrows, e.ncols, e.nnz, e.rows, e.cols, e.vals,
                                   GCOO_DUPLICATES_ERROR | GCOO_REQUIRE_FINITE));
  ut_expect_free(&e);
  return A;
}

static void check_one(gcoo_dtype dtype, int64_t m, int64_t n, double density, uint64_t seed) {
  char what[160];
  gcoo_dense D = ut_random_dense(dtype, (gcoo_layout)(seed & 1), m, n, density, seed);
  gcoo_dense Dt = transposed_copy(&D);
  gcoo_dtype other = dtype == GCOO_FLOAT64 ? GCOO_FLOAT32 : GCOO_FLOAT64;
  gcoo_dense Do = retyped(&D, other);
  gcoo_sparse A = shuffled_coo(&D, seed + 99);
  for (int pi = 0; pi < NPS; pi++) {
    int32_t p = ps[pi];
    ut_expect ex[4], ext[4], exo[4];
    for (int f = 0; f < 4; f++) {
      ex[f] = ut_expect_from_dense(&D, (gcoo_format)f, p);
      ext[f] = ut_expect_from_dense(&Dt, (gcoo_format)f, p);
      exo[f] = ut_expect_from_dense(&Do, (gcoo_format)f, p);
    }
    gcoo_sparse B[4];
    for (int f = 0; f < 4; f++) {
      snprintf(what, sizeof what, "%s %lldx%lld d=%.2f p=%d: COO -> %s", dtype ? "f64" : "f32",
               (long long)m, (long long)n, density, p, ut_format_name((gcoo_format)f));
      TEST_CALL(gcoo_sparse_convert(&B[f], A, (gcoo_format)f, p));
      ut_check_arrays(B[f], &ex[f], what);
      /* from dense, directly */
      gcoo_sparse F = NULL;
      TEST_CALL(gcoo_sparse_from_dense(&F, &D, (gcoo_format)f, p, GCOO_REQUIRE_FINITE));
      snprintf(what, sizeof what, "%s %lldx%lld p=%d: dense -> %s", dtype ? "f64" : "f32",
               (long long)m, (long long)n, p, ut_format_name((gcoo_format)f));
      ut_check_arrays(F, &ex[f], what);
      gcoo_sparse_destroy(&F);
    }
    for (int f = 0; f < 4; f++) {
      /* every pair of formats */
      for (int g = 0; g < 4; g++) {
        gcoo_sparse G = NULL;
        TEST_CALL(gcoo_sparse_convert(&G, B[f], (gcoo_format)g, p));
        snprintf(what, sizeof what, "%s %lldx%lld p=%d: %s -> %s", dtype ? "f64" : "f32",
                 (long long)m, (long long)n, p, ut_format_name((gcoo_format)f),
                 ut_format_name((gcoo_format)g));
        ut_check_arrays(G, &ex[g], what);
        gcoo_sparse_destroy(&G);
      }
      /* back to dense, into a poisoned buffer of each layout with padding */
      for (int l = 0; l < 2; l++) {
        int64_t ld = (l == GCOO_ROW_MAJOR ? n : m) + 2;
        void *buf = malloc((size_t)((l == GCOO_ROW_MAJOR ? m : n) * ld + 1) * 8);
        gcoo_dense E = gcoo_dense_wrap(buf, dtype, (gcoo_layout)l, m, n, ld);
        TEST_CALL(gcoo_dense_fill(&E, NAN));
        TEST_CALL(gcoo_sparse_to_dense(B[f], &E));
        snprintf(what, sizeof what, "%s -> dense (%s) p=%d", ut_format_name((gcoo_format)f),
                 l ? "col" : "row", p);
        ut_check_dense_equal(&E, &D, what);
        free(buf);
      }
      /* transpose: same format, p kept; twice = the original, bit for bit */
      gcoo_sparse T = NULL, TT = NULL;
      TEST_CALL(gcoo_sparse_transpose(&T, B[f]));
      snprintf(what, sizeof what, "transpose of %s %lldx%lld p=%d", ut_format_name((gcoo_format)f),
               (long long)m, (long long)n, p);
      ut_check_arrays(T, &ext[f], what);
      TEST_CALL(gcoo_sparse_transpose(&TT, T));
      ut_check_same(TT, B[f], "transpose twice");
      gcoo_sparse_destroy(&T);
      gcoo_sparse_destroy(&TT);
      /* element type: float32 -> float64 is exact, float64 -> float32 rounds once */
      gcoo_sparse O = NULL, OO = NULL;
      TEST_CALL(gcoo_sparse_astype(&O, B[f], other));
      snprintf(what, sizeof what, "astype %s of %s p=%d", other ? "f64" : "f32",
               ut_format_name((gcoo_format)f), p);
      ut_check_arrays(O, &exo[f], what);
      TEST_CALL(gcoo_sparse_astype(&OO, O, dtype));
      if (dtype == GCOO_FLOAT32) {
        ut_check_same(OO, B[f], "astype f32 -> f64 -> f32");
      } else {
        gcoo_dense Dr = retyped(&Do, GCOO_FLOAT64);
        ut_expect er = ut_expect_from_dense(&Dr, (gcoo_format)f, p);
        ut_check_arrays(OO, &er, "astype f64 -> f32 -> f64");
        ut_expect_free(&er);
        gcoo_dense_destroy(&Dr);
      }
      gcoo_sparse_destroy(&O);
      gcoo_sparse_destroy(&OO);
      TEST_CALL(gcoo_sparse_validate(B[f], GCOO_REQUIRE_FINITE | GCOO_DUPLICATES_ERROR));
    }
    for (int f = 0; f < 4; f++) {
      gcoo_sparse_destroy(&B[f]);
      ut_expect_free(&ex[f]);
      ut_expect_free(&ext[f]);
      ut_expect_free(&exo[f]);
    }
  }
  gcoo_sparse_destroy(&A);
  gcoo_dense_destroy(&D);
  gcoo_dense_destroy(&Dt);
  gcoo_dense_destroy(&Do);
}

/* Explicit zeros: dropped by default, kept with GCOO_KEEP_ZEROS. */
static void check_zeros(void) {
  gcoo_dense D = ut_random_dense(GCOO_FLOAT64, GCOO_ROW_MAJOR, 6, 7, 0.3, 5);
  for (int f = 0; f < 4; f++) {
    gcoo_sparse A = NULL;
    gcoo_sparse_info info;
    TEST_CALL(gcoo_sparse_from_dense(&A, &D, (gcoo_format)f, 2, GCOO_KEEP_ZEROS));
    TEST_CALL(gcoo_sparse_get_info(A, &info));
    TEST_CHECK(info.nnz == 42, "KEEP_ZEROS %s: nnz %lld", ut_format_name((gcoo_format)f),
               (long long)info.nnz);
    gcoo_sparse_destroy(&A);
  }
  gcoo_dense_destroy(&D);
}

/* The group width when the caller passes p = 0. */
static void check_default_p(void) {
  gcoo_dense D = ut_random_dense(GCOO_FLOAT64, GCOO_ROW_MAJOR, 10, 70, 0.2, 6);
  gcoo_sparse A = NULL, G = NULL, H = NULL;
  gcoo_sparse_info info;
  TEST_CALL(gcoo_sparse_from_dense(&A, &D, GCOO_FORMAT_CSR, 0, 0));
  TEST_CALL(gcoo_sparse_convert(&G, A, GCOO_FORMAT_GCOO, 0));
  TEST_CALL(gcoo_sparse_get_info(G, &info));
  TEST_CHECK(info.p == GCOO_DEFAULT_P && info.ngroups == 3, "CSR -> GCOO p = 0: p %d, %lld groups",
             info.p, (long long)info.ngroups);
  gcoo_sparse_destroy(&G);
  TEST_CALL(gcoo_sparse_from_dense(&G, &D, GCOO_FORMAT_GCOO, 0, 0));
  TEST_CALL(gcoo_sparse_get_info(G, &info));
  TEST_CHECK(info.p == GCOO_DEFAULT_P, "dense -> GCOO p = 0: p %d", info.p);
  gcoo_sparse_destroy(&G);
  /* GCOO -> GCOO with p = 0 keeps the source's width (convert.c; see the report about the
   * header's wording) */
  TEST_CALL(gcoo_sparse_convert(&G, A, GCOO_FORMAT_GCOO, 8));
  TEST_CALL(gcoo_sparse_convert(&H, G, GCOO_FORMAT_GCOO, 0));
  TEST_CALL(gcoo_sparse_get_info(H, &info));
  TEST_CHECK(info.p == 8, "GCOO(p=8) -> GCOO p = 0 gave p = %d", info.p);
  gcoo_sparse_destroy(&G);
  gcoo_sparse_destroy(&H);
  gcoo_sparse_destroy(&A);
  gcoo_dense_destroy(&D);
}

static void check_errors(void) {
  double buf[12] = {0};
  gcoo_dense D = gcoo_dense_wrap(buf, GCOO_FLOAT64, GCOO_ROW_MAJOR, 3, 4, 0);
  gcoo_sparse A = NULL, B = NULL;
  buf[6] = 1.0;
  TEST_CALL(gcoo_sparse_from_dense(&A, &D, GCOO_FORMAT_CSR, 0, 0));
  TEST_FAILS(gcoo_sparse_convert(NULL, A, GCOO_FORMAT_COO, 0), GCOO_ERR_NULL, "output handle");
  TEST_FAILS(gcoo_sparse_convert(&B, A, (gcoo_format)7, 0), GCOO_ERR_INVALID_ARG,
             "unknown sparse format 7");
  TEST_FAILS(gcoo_sparse_convert(&B, A, GCOO_FORMAT_GCOO, -2), GCOO_ERR_INVALID_ARG,
             "p = -2 must be >= 0");
  TEST_FAILS(gcoo_sparse_convert(&B, NULL, GCOO_FORMAT_GCOO, 0), GCOO_ERR_NULL,
             "sparse matrix is NULL");
  TEST_FAILS(gcoo_sparse_transpose(NULL, A), GCOO_ERR_NULL, "output handle");
  TEST_FAILS(gcoo_sparse_astype(&B, A, (gcoo_dtype)4), GCOO_ERR_INVALID_ARG, "element type 4");
  TEST_FAILS(gcoo_sparse_from_dense(&B, NULL, GCOO_FORMAT_CSR, 0, 0), GCOO_ERR_NULL,
             "dense matrix is NULL");
  TEST_FAILS(gcoo_sparse_from_dense(&B, &D, GCOO_FORMAT_GCOO, -1, 0), GCOO_ERR_INVALID_ARG,
             "p = -1 must be >= 1");
  TEST_FAILS(gcoo_sparse_from_dense(&B, &D, (gcoo_format)5, 0, 0), GCOO_ERR_INVALID_ARG,
             "unknown sparse format 5");
  buf[5] = NAN;
  TEST_FAILS(gcoo_sparse_from_dense(&B, &D, GCOO_FORMAT_CSR, 0, GCOO_REQUIRE_FINITE),
             GCOO_ERR_NOT_FINITE, "dense element (1, 1) is not finite");
  buf[5] = 0.0;
  TEST_CHECK(B == NULL, "handle set on failure");
  gcoo_dense E = gcoo_dense_wrap(buf, GCOO_FLOAT64, GCOO_ROW_MAJOR, 4, 3, 0);
  TEST_FAILS(gcoo_sparse_to_dense(A, &E), GCOO_ERR_SHAPE, "dense is 4 x 3, sparse is 3 x 4");
  float fb[12];
  gcoo_dense F = gcoo_dense_wrap(fb, GCOO_FLOAT32, GCOO_ROW_MAJOR, 3, 4, 0);
  TEST_FAILS(gcoo_sparse_to_dense(A, &F), GCOO_ERR_DTYPE, "element types differ");
  gcoo_dense G = D;
  G.mem = GCOO_MEM_DEVICE;
  TEST_FAILS(gcoo_sparse_to_dense(A, &G), GCOO_ERR_INVALID_ARG, "host memory");
  TEST_FAILS(gcoo_sparse_from_dense(&B, &G, GCOO_FORMAT_CSR, 0, 0), GCOO_ERR_INVALID_ARG,
             "host memory");
  TEST_FAILS(gcoo_sparse_to_dense(NULL, &D), GCOO_ERR_NULL, "sparse matrix is NULL");
  gcoo_sparse_destroy(&A);
}

int main(void) {
  uint64_t seed = 1;
  for (int dt = 0; dt < 2; dt++)
    for (int s = 0; s < NSHAPES; s++)
      for (int d = 0; d < NDENS; d++)
        check_one((gcoo_dtype)dt, shapes[s][0], shapes[s][1], densities[d], seed++);
  check_zeros();
  check_default_p();
  check_errors();
  return gcoo_test_finish("t030-convert");
}
