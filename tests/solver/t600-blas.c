/* SPDX-License-Identifier: MIT */
/* tests/solver/t600-blas.c: dense block operations (gcoo/blas.h) on host operands against
 * naive double loops: gemm with every transpose combination and both layouts, dgmm, coldot,
 * copy, the sums of gcoo_ctx_dense_sums in their documented order; misuse errors. Bound: ||C - ref|| / ||ref|| <= gcoo_test_tolerance(dtype, inner). */
#include <math.h>

#include "gcoo_test.h"

static gcoo_dense make(gcoo_dtype dt, gcoo_layout lay, int64_t r, int64_t c, uint64_t seed) {
  gcoo_dense D;
  TEST_CALL(gcoo_dense_create(&D, dt, lay, r, c));
  TEST_CALL(gcoo_dense_fill_random(&D, seed));
  return D;
}

static void check_gemm(gcoo_ctx ctx, gcoo_dtype dt, gcoo_layout lay, int ta, int tb, int64_t m,
                       int64_t n, int64_t k, uint64_t seed) {
  gcoo_dense A = make(dt, lay, ta ? k : m, ta ? m : k, seed);
  gcoo_dense B = make(dt, lay, tb ? n : k, tb ? k : n, seed + 1);
  gcoo_dense C = make(dt, lay, m, n, seed + 2);
  gcoo_dense R = gcoo_test_copy(&C);
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      double s = 0.0;
      for (int64_t l = 0; l < k; l++)
        s += (ta ? gcoo_dense_get(&A, l, i) : gcoo_dense_get(&A, i, l)) *
             (tb ? gcoo_dense_get(&B, j, l) : gcoo_dense_get(&B, l, j));
      gcoo_dense_set(&R, i, j, 0.75 * s - 0.5 * gcoo_dense_get(&R, i, j));
    }
  TEST_CALL(gcoo_blas_gemm(ctx, ta, tb, 0.75, &A, &B, -0.5, &C));
  double e = gcoo_test_relerr(&C, &R), tol = gcoo_test_tolerance(dt, k);
  TEST_CHECK(e <= tol, "gemm dt %d layout %d ta %d tb %d %lldx%lldx%lld: relerr %.3g > %.3g", dt,
             lay, ta, tb, (long long)m, (long long)n, (long long)k, e, tol);
  gcoo_dense_destroy(&A);
  gcoo_dense_destroy(&B);
  gcoo_dense_destroy(&C);
  gcoo_dense_destroy(&R);
}

int main(void) {
  gcoo_ctx ctx;
  TEST_CALL(gcoo_ctx_create(&ctx, "cpu"));
  const int64_t shapes[][3] = {{7, 5, 3}, {1, 1, 1}, {3, 4, 5000}, {300, 8, 8}, {8, 8, 3000}};
  uint64_t seed = 11;
  for (int dt = 0; dt < 2; dt++)
    for (int lay = 0; lay < 2; lay++)
      for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++)
          for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            check_gemm(ctx, (gcoo_dtype)dt, (gcoo_layout)lay, ta, tb, shapes[s][0], shapes[s][1],
                       shapes[s][2], seed += 3);

  for (int dt = 0; dt < 2; dt++) {
    gcoo_dense A = make(dt, GCOO_ROW_MAJOR, 1000, 6, 5), B = make(dt, GCOO_ROW_MAJOR, 1000, 6, 6);
    gcoo_dense d = make(dt, GCOO_ROW_MAJOR, 1000, 1, 7), C, out;
    TEST_CALL(gcoo_dense_create(&C, dt, GCOO_ROW_MAJOR, 1000, 6));
    TEST_CALL(gcoo_dense_create(&out, dt, GCOO_ROW_MAJOR, 1, 6));
    TEST_CALL(gcoo_dense_fill(&C, NAN));
    TEST_CALL(gcoo_blas_dgmm(ctx, &d, &A, &C));
    double err = 0.0;
    for (int64_t i = 0; i < 1000; i++)
      for (int64_t j = 0; j < 6; j++)
        err = fmax(err, fabs(gcoo_dense_get(&C, i, j) -
                             gcoo_dense_get(&d, i, 0) * gcoo_dense_get(&A, i, j)));
    TEST_CHECK(err <= (dt ? 1e-15 : 1e-6), "dgmm error %g", err);
    TEST_CALL(gcoo_blas_coldot(ctx, &A, &B, &out));
    for (int64_t j = 0; j < 6; j++) {
      double s = 0.0, sa = 0.0;
      for (int64_t i = 0; i < 1000; i++) {
        s += gcoo_dense_get(&A, i, j) * gcoo_dense_get(&B, i, j);
        sa += fabs(gcoo_dense_get(&A, i, j) * gcoo_dense_get(&B, i, j));
      }
      double e = fabs(gcoo_dense_get(&out, 0, j) - s);
      TEST_CHECK(e <= gcoo_test_tolerance(dt, 1000) * sa, "coldot column %lld: %g vs %g",
                 (long long)j, gcoo_dense_get(&out, 0, j), s);
    }
    /* copy with different leading dimensions */
    gcoo_dense big;
    TEST_CALL(gcoo_dense_create(&big, dt, GCOO_ROW_MAJOR, 1000, 9));
    gcoo_dense view = big;
    view.ncols = 6;
    view.owned = 0;
    TEST_CALL(gcoo_ctx_dense_copy(ctx, &view, &A));
    TEST_CHECK(gcoo_test_relerr(&view, &A) == 0.0, "copy into a wider buffer is not exact");
    /* sums in their fixed order (blocks of 256 storage vectors, in order), bit for bit, on a
     * view whose padding holds NaN (never read) */
    TEST_CALL(gcoo_dense_fill(&big, NAN));
    TEST_CALL(gcoo_ctx_dense_copy(ctx, &view, &A));
    for (int lay = 0; lay < 2; lay++) {
      gcoo_dense V = view; /* column-major: 9 x 1000's first 6 rows, i.e. the same storage */
      if (lay) V = gcoo_dense_wrap(big.data, dt, GCOO_COL_MAJOR, 6, 1000, 9);
      double got[2] = {NAN, NAN}, want[2] = {0, 0};
      TEST_CALL(gcoo_ctx_dense_sums(ctx, &V, got));
      for (int64_t b0 = 0; b0 < 1000; b0 += 256) {
        double bs = 0.0, ba = 0.0;
        for (int64_t v = b0; v < b0 + 256 && v < 1000; v++)
          for (int64_t e = 0; e < 6; e++) {
            const double x = lay ? gcoo_dense_get(&V, e, v) : gcoo_dense_get(&V, v, e);
            bs += x, ba += fabs(x);
          }
        want[0] += bs, want[1] += ba;
      }
      TEST_CHECK(got[0] == want[0] && got[1] == want[1], "dense sums %.17g %.17g, want %.17g %.17g",
                 got[0], got[1], want[0], want[1]);
    }
    TEST_FAILS(gcoo_ctx_dense_sums(ctx, &A, NULL), GCOO_ERR_NULL, "sums");
    /* misuse */
    TEST_FAILS(gcoo_blas_gemm(ctx, 0, 0, 1.0, &A, &B, 0.0, &C), GCOO_ERR_SHAPE, "gemm");
    TEST_FAILS(gcoo_blas_gemm(ctx, 1, 0, 1.0, &A, &B, 0.0, &A), GCOO_ERR_SHAPE, "gemm");
    gcoo_dense D;
    TEST_FAILS(gcoo_ctx_dense_create(ctx, &D, dt, GCOO_ROW_MAJOR, 4, 4, GCOO_MEM_DEVICE),
               GCOO_ERR_UNSUPPORTED, "CUDA backend");
    gcoo_dense_destroy(&A);
    gcoo_dense_destroy(&B);
    gcoo_dense_destroy(&C);
    gcoo_dense_destroy(&d);
    gcoo_dense_destroy(&out);
    gcoo_dense_destroy(&big);
  }
  TEST_CALL(gcoo_ctx_destroy(&ctx));
  return gcoo_test_finish("t600-blas");
}
