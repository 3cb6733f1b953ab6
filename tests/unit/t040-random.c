/* SPDX-License-Identifier: MIT */
/* tests/unit/t040-random.c: gcoo_sparse_random: the number of entries, their positions and
 * values follow the stated distribution (every check within 5 standard deviations, so a correct
 * generator fails one with probability below 1e-6 per check); the same seed gives the same
 * matrix (whatever the thread count), another seed another matrix; argument errors. */
#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "unit_util.h"

#define SIGMAS 5.0

typedef struct {
  int64_t m, n;
  double sparsity;
} rcase;

static void check_stats(gcoo_dtype dtype, rcase c, uint64_t seed) {
  gcoo_sparse A = NULL;
  gcoo_sparse_info info;
  gcoo_sparse_arrays a;
  TEST_CALL(gcoo_sparse_random(&A, dtype, GCOO_FORMAT_CSR, c.m, c.n, c.sparsity, seed, 0));
  TEST_CALL(gcoo_sparse_get_info(A, &info));
  TEST_CALL(gcoo_sparse_get_arrays(A, &a));
  TEST_CALL(gcoo_sparse_validate(A, GCOO_REQUIRE_FINITE | GCOO_DUPLICATES_ERROR));
  const double d = 1.0 - c.sparsity, cells = (double)c.m * (double)c.n;
  /* nnz ~ Binomial(m n, d) */
  double mean = cells * d, sd = sqrt(cells * d * (1.0 - d));
  TEST_CHECK(fabs((double)info.nnz - mean) <= SIGMAS * sd + 1e-9,
             "%lldx%lld s=%g: nnz %lld, expected %.1f +- %.1f", (long long)c.m, (long long)c.n,
             c.sparsity, (long long)info.nnz, mean, SIGMAS * sd);
  if (info.nnz < 100) {
    gcoo_sparse_destroy(&A);
    return;
  }
  /* positions uniform: mean column (n-1)/2, sd sqrt((n^2-1)/12 / nnz); rows the same;
   * values uniform on [-1, 1): mean 0, sd sqrt(1/3 / nnz) */
  double sc = 0.0, sr = 0.0, sv = 0.0, vmin = 1.0, vmax = -1.0;
  for (int64_t i = 0; i < c.m; i++)
    for (int64_t k = a.ptr[i]; k < a.ptr[i + 1]; k++) {
      double v = dtype == GCOO_FLOAT64 ? ((const double *)a.values)[k]
                                       : ((const float *)a.values)[k];
      sc += a.ind[k];
      sr += (double)i;
      sv += v;
      vmin = v < vmin ? v : vmin;
      vmax = v > vmax ? v : vmax;
    }
  double nz = (double)info.nnz;
  double sdc = sqrt(((double)c.n * c.n - 1.0) / 12.0 / nz),
         sdr = sqrt(((double)c.m * c.m - 1.0) / 12.0 / nz);
  TEST_CHECK(fabs(sc / nz - (c.n - 1) / 2.0) <= SIGMAS * sdc, "mean column %g, expected %g +- %g",
             sc / nz, (c.n - 1) / 2.0, SIGMAS * sdc);
  TEST_CHECK(fabs(sr / nz - (c.m - 1) / 2.0) <= SIGMAS * sdr, "mean row %g, expected %g +- %g",
             sr / nz, (c.m - 1) / 2.0, SIGMAS * sdr);
  TEST_CHECK(fabs(sv / nz) <= SIGMAS * sqrt(1.0 / 3.0 / nz), "mean value %g", sv / nz);
  TEST_CHECK(vmin >= -1.0 && vmax < 1.0, "values in [%g, %g]", vmin, vmax);
  /* row counts ~ Binomial(n, d): their sample variance near n d (1 - d) (relative sd of a
   * sample variance over m rows is about sqrt(2 / m) for near-normal counts) */
  if (c.m >= 500 && c.n * d >= 10) {
    double s1 = 0.0, s2 = 0.0;
    for (int64_t i = 0; i < c.m; i++) {
      double r = (double)(a.ptr[i + 1] - a.ptr[i]);
      s1 += r;
      s2 += r * r;
    }
    double var = (s2 - s1 * s1 / c.m) / (c.m - 1), want = c.n * d * (1.0 - d);
    TEST_CHECK(fabs(var / want - 1.0) <= SIGMAS * sqrt(2.0 / c.m),
               "row count variance %g, expected %g", var, want);
  }
  gcoo_sparse_destroy(&A);
}

/* Same seed: same arrays, in every format and whatever the thread count; other seed: other. */
static void check_seeds(void) {
  for (int f = 0; f < 4; f++) {
    gcoo_sparse A = NULL, B = NULL, C = NULL;
    TEST_CALL(gcoo_sparse_random(&A, GCOO_FLOAT64, (gcoo_format)f, 300, 200, 0.95, 7, 4));
#ifdef _OPENMP
    int nt = omp_get_max_threads();
    omp_set_num_threads(nt > 1 ? 1 : 3);
#endif
    TEST_CALL(gcoo_sparse_random(&B, GCOO_FLOAT64, (gcoo_format)f, 300, 200, 0.95, 7, 4));
#ifdef _OPENMP
    omp_set_num_threads(nt);
#endif
    ut_check_same(A, B, "same seed, other thread count");
    TEST_CALL(gcoo_sparse_random(&C, GCOO_FLOAT64, (gcoo_format)f, 300, 200, 0.95, 8, 4));
    gcoo_sparse_info ia, ic;
    gcoo_sparse_arrays aa, ac;
    TEST_CALL(gcoo_sparse_get_info(A, &ia));
    TEST_CALL(gcoo_sparse_get_info(C, &ic));
    TEST_CALL(gcoo_sparse_get_arrays(A, &aa));
    TEST_CALL(gcoo_sparse_get_arrays(C, &ac));
    int64_t n = ia.nnz < ic.nnz ? ia.nnz : ic.nnz;
    TEST_CHECK(ia.nnz != ic.nnz || memcmp(aa.values, ac.values, (size_t)n * 8) != 0,
               "seeds 7 and 8 give the same matrix");
    if (f == GCOO_FORMAT_GCOO) TEST_CHECK(ia.p == 4 && ia.ngroups == 50, "p %d", ia.p);
    gcoo_sparse_destroy(&A);
    gcoo_sparse_destroy(&B);
    gcoo_sparse_destroy(&C);
  }
  /* float32 holds the float64 values rounded: same pattern */
  gcoo_sparse A = NULL, B = NULL, Bf = NULL;
  TEST_CALL(gcoo_sparse_random(&A, GCOO_FLOAT32, GCOO_FORMAT_COO, 40, 60, 0.8, 11, 0));
  TEST_CALL(gcoo_sparse_random(&B, GCOO_FLOAT64, GCOO_FORMAT_COO, 40, 60, 0.8, 11, 0));
  TEST_CALL(gcoo_sparse_astype(&Bf, B, GCOO_FLOAT32));
  ut_check_same(A, Bf, "float32 = float64 rounded");
  gcoo_sparse_destroy(&A);
  gcoo_sparse_destroy(&B);
  gcoo_sparse_destroy(&Bf);
}

static void check_errors(void) {
  gcoo_sparse A = NULL;
  TEST_FAILS(gcoo_sparse_random(NULL, GCOO_FLOAT64, GCOO_FORMAT_CSR, 3, 3, 0.5, 1, 0),
             GCOO_ERR_NULL, "output handle");
  TEST_FAILS(gcoo_sparse_random(&A, GCOO_FLOAT64, GCOO_FORMAT_CSR, 3, 3, -0.1, 1, 0),
             GCOO_ERR_INVALID_ARG, "sparsity -0.1 outside [0, 1]");
  TEST_FAILS(gcoo_sparse_random(&A, GCOO_FLOAT64, GCOO_FORMAT_CSR, 3, 3, 1.5, 1, 0),
             GCOO_ERR_INVALID_ARG, "sparsity 1.5 outside [0, 1]");
  TEST_FAILS(gcoo_sparse_random(&A, GCOO_FLOAT64, GCOO_FORMAT_CSR, 3, 3, NAN, 1, 0),
             GCOO_ERR_INVALID_ARG, "outside [0, 1]");
  TEST_FAILS(gcoo_sparse_random(&A, GCOO_FLOAT64, GCOO_FORMAT_CSR, -3, 3, 0.5, 1, 0),
             GCOO_ERR_INVALID_ARG, "negative shape -3 x 3");
  TEST_FAILS(gcoo_sparse_random(&A, GCOO_FLOAT64, GCOO_FORMAT_CSR, 3, (int64_t)1 << 31, 0.5, 1, 0),
             GCOO_ERR_TOO_LARGE, "columns = 2147483648 does not fit");
  TEST_FAILS(gcoo_sparse_random(&A, (gcoo_dtype)3, GCOO_FORMAT_CSR, 3, 3, 0.5, 1, 0),
             GCOO_ERR_INVALID_ARG, "unknown element type 3");
  TEST_FAILS(gcoo_sparse_random(&A, GCOO_FLOAT64, (gcoo_format)6, 3, 3, 0.5, 1, 0),
             GCOO_ERR_INVALID_ARG, "unknown sparse format 6");
  TEST_FAILS(gcoo_sparse_random(&A, GCOO_FLOAT64, GCOO_FORMAT_GCOO, 3, 3, 0.5, 1, -2),
             GCOO_ERR_INVALID_ARG, "p = -2");
  TEST_CHECK(A == NULL, "handle set on failure");
}

int main(void) {
  const rcase cases[] = {{200, 300, 0.9},   {1000, 50, 0.99},
                         {50, 1000, 0.5},   {300, 300, 0.999},
                         {2000, 500, 0.95}, {7, 5, 0.0},
                         {7, 5, 1.0},       {1, 1, 0.5},
                         {0, 9, 0.5},       {100, 100, 0.9999999999999999}};
  uint64_t seed = 100;
  for (int dt = 0; dt < 2; dt++)
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
      check_stats((gcoo_dtype)dt, cases[k], seed++);
  /* full and empty are exact */
  gcoo_sparse A = NULL;
  gcoo_sparse_info info;
  TEST_CALL(gcoo_sparse_random(&A, GCOO_FLOAT64, GCOO_FORMAT_COO, 13, 17, 0.0, 1, 0));
  TEST_CALL(gcoo_sparse_get_info(A, &info));
  TEST_CHECK(info.nnz == 13 * 17, "sparsity 0: nnz %lld", (long long)info.nnz);
  gcoo_sparse_destroy(&A);
  TEST_CALL(gcoo_sparse_random(&A, GCOO_FLOAT64, GCOO_FORMAT_COO, 13, 17, 1.0, 1, 0));
  TEST_CALL(gcoo_sparse_get_info(A, &info));
  TEST_CHECK(info.nnz == 0, "sparsity 1: nnz %lld", (long long)info.nnz);
  gcoo_sparse_destroy(&A);
  check_seeds();
  check_errors();
  return gcoo_test_finish("t040-random");
}
