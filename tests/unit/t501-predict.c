/* SPDX-License-Identifier: MIT */
/* tests/unit/t501-predict.c: the output-size predictor: exact FLOP and NNZ against a dense-marker
 * count, every method's bounds and reproducibility, the paper's traps (s = 0, 32-bit sums,
 * fixed seed), empty and 1 x 1 products, and bad input. */
#include <math.h>
#include <string.h>

#include "spgemm_check.h"

static int64_t flop_naive(gcoo_sparse A, gcoo_sparse B) {
  gcoo_sparse Ac = spgemm_check_csr(A), Bc = spgemm_check_csr(B);
  gcoo_sparse_arrays a, b;
  gcoo_sparse_info ai;
  TEST_CALL(gcoo_sparse_get_info(Ac, &ai));
  TEST_CALL(gcoo_sparse_get_arrays(Ac, &a));
  TEST_CALL(gcoo_sparse_get_arrays(Bc, &b));
  int64_t f = 0;
  for (int64_t p = 0; p < ai.nnz; p++) f += b.ptr[a.ind[p] + 1] - b.ptr[a.ind[p]];
  gcoo_sparse_destroy(&Ac);
  gcoo_sparse_destroy(&Bc);
  return f;
}

static const gcoo_predict_method all_methods[] = {GCOO_PREDICT_DEFAULT, GCOO_PREDICT_ADAPTIVE,
                                                  GCOO_PREDICT_PAPER,   GCOO_PREDICT_REFERENCE,
                                                  GCOO_PREDICT_PPS,     GCOO_PREDICT_UPPER,
                                                  GCOO_PREDICT_EXACT,   GCOO_PREDICT_CLASSES};

/* Every method on one product: FLOP exact, bounds hold, per-row sizes inside the bounds,
 * same seed -> same answer, EXACT and a full-budget ADAPTIVE are exact. */
static void check_product(gcoo_sparse A, gcoo_sparse B, const char *what) {
  gcoo_sparse_info ai;
  TEST_CALL(gcoo_sparse_get_info(A, &ai));
  int64_t *rows = malloc((size_t)(ai.nrows + 1) * sizeof *rows);
  const int64_t Z = spgemm_check_nnz(A, B, rows), F = flop_naive(A, B);
  int64_t z2 = -1;
  int64_t *rows2 = malloc((size_t)(ai.nrows + 1) * sizeof *rows2);
  TEST_CALL(gcoo_spgemm_nnz_exact(A, B, &z2, rows2));
  TEST_CHECK(z2 == Z, "%s: gcoo_spgemm_nnz_exact %lld, dense marker %lld", what, (long long)z2,
             (long long)Z);
  for (int64_t i = 0; i < ai.nrows; i++)
    if (rows2[i] != rows[i]) {
      TEST_CHECK(rows2[i] == rows[i], "%s: row %lld: %lld, expected %lld", what, (long long)i,
                 (long long)rows2[i], (long long)rows[i]);
      break;
    }
  for (size_t m = 0; m < sizeof all_methods / sizeof *all_methods; m++) {
    gcoo_predict_options o = GCOO_PREDICT_OPTIONS_INIT;
    gcoo_prediction p, q;
    o.method = all_methods[m];
    o.want_row_flop = o.want_row_nnz = 1;
    o.seed = 42;
    TEST_CALL(gcoo_predict(A, B, &o, &p));
    TEST_CALL(gcoo_predict(A, B, &o, &q));
    const char *mn = gcoo_predict_method_name(o.method);
    TEST_CHECK(p.flop_total == F, "%s %s: FLOP %lld, expected %lld", what, mn,
               (long long)p.flop_total, (long long)F);
    TEST_CHECK(p.nnz_lower <= Z && Z <= p.nnz_upper, "%s %s: bounds %lld..%lld miss %lld", what, mn,
               (long long)p.nnz_lower, (long long)p.nnz_upper, (long long)Z);
    TEST_CHECK(p.nnz_predicted == q.nnz_predicted && p.rows_counted == q.rows_counted,
               "%s %s: same seed gave %lld and %lld", what, mn, (long long)p.nnz_predicted,
               (long long)q.nnz_predicted);
    TEST_CHECK(p.samples >= 1 || F == 0 || p.nnz_lower == p.nnz_upper ||
                   o.method == GCOO_PREDICT_UPPER,
               "%s %s: no sample drawn", what, mn);
    TEST_CHECK(isfinite(p.nnz_estimate) && p.compression_ratio >= (F ? 0.0 : 1.0),
               "%s %s: estimate %g ratio %g", what, mn, p.nnz_estimate, p.compression_ratio);
    if (o.method == GCOO_PREDICT_ADAPTIVE || o.method == GCOO_PREDICT_DEFAULT ||
        o.method == GCOO_PREDICT_UPPER || o.method == GCOO_PREDICT_EXACT ||
        o.method == GCOO_PREDICT_CLASSES)
      TEST_CHECK(p.nnz_lower <= p.nnz_predicted && p.nnz_predicted <= p.nnz_upper,
                 "%s %s: prediction %lld outside the bounds %lld..%lld", what, mn,
                 (long long)p.nnz_predicted, (long long)p.nnz_lower, (long long)p.nnz_upper);
    if (o.method == GCOO_PREDICT_EXACT || p.exact)
      TEST_CHECK(p.nnz_predicted == Z, "%s %s: exact run gave %lld, expected %lld", what, mn,
                 (long long)p.nnz_predicted, (long long)Z);
    if (o.method == GCOO_PREDICT_UPPER) {
      TEST_CHECK(p.nnz_predicted == p.nnz_upper, "%s upper: %lld != bound %lld", what,
                 (long long)p.nnz_predicted, (long long)p.nnz_upper);
    }
    int64_t fsum = 0;
    for (int64_t i = 0; i < ai.nrows; i++) {
      fsum += p.row_flop[i];
      if (p.row_nnz[i] > p.row_flop[i] || p.row_nnz[i] < 0 ||
          (p.exact && p.row_nnz[i] != rows[i])) {
        TEST_CHECK(0, "%s %s: row %lld predicted %lld (flop %lld, exact %lld)", what, mn,
                   (long long)i, (long long)p.row_nnz[i], (long long)p.row_flop[i],
                   (long long)rows[i]);
        break;
      }
    }
    TEST_CHECK(fsum == F, "%s %s: row FLOP sum %lld != %lld", what, mn, (long long)fsum,
               (long long)F);
    gcoo_prediction_free(&p);
    gcoo_prediction_free(&q);
  }
  /* ADAPTIVE with the whole FLOP allowed and an unreachable target counts every row: exact */
  gcoo_predict_options o = GCOO_PREDICT_OPTIONS_INIT;
  gcoo_prediction p;
  o.rel_error = 1e-12;
  o.max_cost = 1.0;
  TEST_CALL(gcoo_predict(A, B, &o, &p));
  TEST_CHECK(p.exact && p.nnz_predicted == Z && p.rel_stderr == 0.0,
             "%s: full-budget adaptive gave %lld (exact %d), expected %lld", what,
             (long long)p.nnz_predicted, p.exact, (long long)Z);
  gcoo_prediction_free(&p);
  free(rows);
  free(rows2);
}

/* The sampled estimate on a product large enough to be sampled: accurate, and its own error
 * estimate honest (a fixed seed: deterministic). */
static void check_accuracy(gcoo_sparse A, gcoo_sparse B, const char *what, double tol) {
  const int64_t Z = spgemm_check_nnz(A, B, NULL);
  const gcoo_predict_method ms[] = {GCOO_PREDICT_ADAPTIVE, GCOO_PREDICT_PPS};
  for (int m = 0; m < 2; m++) {
    gcoo_predict_options o = GCOO_PREDICT_OPTIONS_INIT;
    gcoo_prediction p;
    o.method = ms[m];
    TEST_CALL(gcoo_predict(A, B, &o, &p));
    const double e = fabs((double)p.nnz_predicted - (double)Z) / (double)Z;
    TEST_CHECK(e <= tol, "%s %s: relative error %.4f > %.4f (predicted %lld, exact %lld)", what,
               gcoo_predict_method_name(o.method), e, tol, (long long)p.nnz_predicted,
               (long long)Z);
    TEST_CHECK(!p.exact && p.rows_counted < p.nrows,
               "%s %s: expected a sample, counted %lld of "
               "%lld rows",
               what, gcoo_predict_method_name(o.method), (long long)p.rows_counted,
               (long long)p.nrows);
    TEST_CHECK(e <= 5.0 * p.rel_stderr + 1e-3, "%s %s: error %.4f vs its estimate %.4f", what,
               gcoo_predict_method_name(o.method), e, p.rel_stderr);
    printf("%s %s: error %.4f %%, estimated standard error %.4f %%, %lld of %lld rows counted\n",
           what, gcoo_predict_method_name(o.method), 100 * e, 100 * p.rel_stderr,
           (long long)p.rows_counted, (long long)p.nrows);
    gcoo_prediction_free(&p);
  }
}

int main(void) {
  /* random products of several shapes, both element types (only the pattern matters) */
  const int64_t shapes[][3] = {{1, 1, 1},
                               {7, 5, 9},
                               {200, 150, 120},
                               {333, 400, 350},
                               {2000, 1500, 1800}};
  const double spars[] = {0.0, 0.5, 0.97, 0.98, 0.995};
  for (int s = 0; s < 5; s++)
    for (int dt = 0; dt < 2; dt++) {
      gcoo_sparse A = NULL, B = NULL;
      char what[96];
      TEST_CALL(gcoo_sparse_random(&A, (gcoo_dtype)dt, GCOO_FORMAT_CSR, shapes[s][0], shapes[s][1],
                                   spars[s], 100 + s, 0));
      TEST_CALL(gcoo_sparse_random(&B, (gcoo_dtype)dt, s % 2 ? GCOO_FORMAT_COO : GCOO_FORMAT_CSR,
                                   shapes[s][1], shapes[s][2], spars[s], 200 + s, 0));
      snprintf(what, sizeof what, "random %lldx%lldx%lld %s", (long long)shapes[s][0],
               (long long)shapes[s][1], (long long)shapes[s][2], dt ? "double" : "float");
      check_product(A, B, what);
      gcoo_sparse_destroy(&A);
      gcoo_sparse_destroy(&B);
    }
  /* structured products: a mesh (low compression) and a power-law graph (skewed rows) */
  gcoo_sparse L = spgemm_check_laplacian(GCOO_FLOAT64, 120, 100);
  check_product(L, L, "laplacian^2");
  check_accuracy(L, L, "laplacian^2", 0.01);
  gcoo_sparse P = spgemm_check_powerlaw(GCOO_FLOAT32, 20000, 20000, 6, 7);
  check_product(P, P, "powerlaw^2");
  check_accuracy(P, P, "powerlaw^2", 0.03);
  gcoo_sparse_destroy(&L);
  gcoo_sparse_destroy(&P);

  /* the paper's s = 0 trap: M < 334 gives 0.003 M < 1; we count every row instead */
  {
    gcoo_sparse A = NULL;
    gcoo_prediction p;
    gcoo_predict_options o = GCOO_PREDICT_OPTIONS_INIT;
    TEST_CALL(gcoo_sparse_random(&A, GCOO_FLOAT64, GCOO_FORMAT_CSR, 300, 300, 0.95, 9, 0));
    for (int m = GCOO_PREDICT_PAPER; m <= GCOO_PREDICT_REFERENCE; m++) {
      o.method = (gcoo_predict_method)m;
      TEST_CALL(gcoo_predict(A, A, &o, &p));
      TEST_CHECK(p.samples == 300 && p.exact && p.nnz_predicted == spgemm_check_nnz(A, A, NULL),
                 "%s on M = 300: %lld samples, exact %d", gcoo_predict_method_name(o.method),
                 (long long)p.samples, p.exact);
      gcoo_prediction_free(&p);
    }
    /* explicit sample counts are honoured; different seeds draw different rows */
    gcoo_prediction q;
    o.method = GCOO_PREDICT_PAPER;
    o.samples = 17;
    TEST_CALL(gcoo_predict(A, A, &o, &p));
    o.seed = 43;
    TEST_CALL(gcoo_predict(A, A, &o, &q));
    TEST_CHECK(p.samples == 17 && q.samples == 17, "samples %lld / %lld, asked 17",
               (long long)p.samples, (long long)q.samples);
    TEST_CHECK(p.nnz_estimate != q.nnz_estimate, "seeds 42 and 43 gave the same estimate %g",
               p.nnz_estimate);
    gcoo_prediction_free(&p);
    gcoo_prediction_free(&q);
    gcoo_sparse_destroy(&A);
  }

  /* 64-bit FLOP and NNZ: 30000 rows of A each pick the one 100000-entry row of B: F = 3e9 */
  {
    const int64_t m = 30000, n = 100000;
    int64_t *ap = malloc((size_t)(m + 1) * sizeof *ap), bp[2] = {0, n};
    int32_t *ai = calloc((size_t)m, sizeof *ai), *bi = malloc((size_t)n * sizeof *bi);
    for (int64_t i = 0; i <= m; i++) ap[i] = i;
    for (int64_t j = 0; j < n; j++) bi[j] = (int32_t)j;
    gcoo_sparse A = NULL, B = NULL;
    TEST_CALL(gcoo_sparse_create_csr(&A, GCOO_FLOAT32, m, 1, ap, ai, NULL, 0));
    TEST_CALL(gcoo_sparse_create_csr(&B, GCOO_FLOAT32, 1, n, bp, bi, NULL, 0));
    for (size_t k = 0; k < sizeof all_methods / sizeof *all_methods; k++) {
      gcoo_prediction p;
      gcoo_predict_options o = GCOO_PREDICT_OPTIONS_INIT;
      o.method = all_methods[k];
      TEST_CALL(gcoo_predict(A, B, &o, &p));
      TEST_CHECK(p.flop_total == m * n && p.nnz_predicted == m * n && p.exact,
                 "%s: FLOP %lld NNZ %lld, expected both %lld (64-bit sums)",
                 gcoo_predict_method_name(o.method), (long long)p.flop_total,
                 (long long)p.nnz_predicted, (long long)(m * n));
      gcoo_prediction_free(&p);
    }
    free(ap);
    free(ai);
    free(bi);
    gcoo_sparse_destroy(&A);
    gcoo_sparse_destroy(&B);
  }

  /* empty products: 0 x 0, no entries, empty inner dimension; ratio defined (1) */
  {
    const int64_t dims[][3] = {{0, 0, 0}, {5, 0, 4}, {0, 3, 2}, {6, 4, 3}};
    for (int d = 0; d < 4; d++) {
      gcoo_sparse A = NULL, B = NULL;
      TEST_CALL(
          gcoo_sparse_create_coo(&A, GCOO_FLOAT64, dims[d][0], dims[d][1], 0, NULL, NULL, NULL, 0));
      TEST_CALL(
          gcoo_sparse_create_coo(&B, GCOO_FLOAT64, dims[d][1], dims[d][2], 0, NULL, NULL, NULL, 0));
      for (size_t k = 0; k < sizeof all_methods / sizeof *all_methods; k++) {
        gcoo_prediction p;
        gcoo_predict_options o = GCOO_PREDICT_OPTIONS_INIT;
        o.method = all_methods[k];
        o.want_row_nnz = o.want_row_flop = 1;
        TEST_CALL(gcoo_predict(A, B, &o, &p));
        TEST_CHECK(p.flop_total == 0 && p.nnz_predicted == 0 && p.compression_ratio == 1.0 &&
                       p.exact && p.nrows == dims[d][0],
                   "empty %lldx%lldx%lld %s: flop %lld nnz %lld ratio %g", (long long)dims[d][0],
                   (long long)dims[d][1], (long long)dims[d][2], gcoo_predict_method_name(o.method),
                   (long long)p.flop_total, (long long)p.nnz_predicted, p.compression_ratio);
        gcoo_prediction_free(&p);
      }
      gcoo_sparse_destroy(&A);
      gcoo_sparse_destroy(&B);
    }
  }

  /* bad input: a clear status and a message with the numbers */
  {
    gcoo_sparse A = NULL, B = NULL;
    gcoo_prediction p;
    gcoo_predict_options o = GCOO_PREDICT_OPTIONS_INIT;
    int64_t z;
    TEST_CALL(gcoo_sparse_random(&A, GCOO_FLOAT64, GCOO_FORMAT_CSR, 10, 7, 0.5, 1, 0));
    TEST_CALL(gcoo_sparse_random(&B, GCOO_FLOAT64, GCOO_FORMAT_CSR, 8, 9, 0.5, 2, 0));
    TEST_FAILS(gcoo_predict(A, B, NULL, &p), GCOO_ERR_SHAPE, "10 x 7 but B is 8 x 9");
    TEST_FAILS(gcoo_spgemm_nnz_exact(A, B, &z, NULL), GCOO_ERR_SHAPE, "inner dimensions");
    o.samples = -3;
    TEST_FAILS(gcoo_predict(A, A, &o, &p), GCOO_ERR_INVALID_ARG, "-3");
    o = (gcoo_predict_options)GCOO_PREDICT_OPTIONS_INIT;
    o.size = 8;
    TEST_FAILS(gcoo_predict(A, A, &o, &p), GCOO_ERR_INVALID_ARG, "GCOO_PREDICT_OPTIONS_INIT");
    o = (gcoo_predict_options)GCOO_PREDICT_OPTIONS_INIT;
    o.method = (gcoo_predict_method)99;
    TEST_FAILS(gcoo_predict(A, A, &o, &p), GCOO_ERR_INVALID_ARG, "method 99");
    o = (gcoo_predict_options)GCOO_PREDICT_OPTIONS_INIT;
    o.max_cost = 2.0;
    TEST_FAILS(gcoo_predict(A, A, &o, &p), GCOO_ERR_INVALID_ARG, "max_cost 2");
    TEST_FAILS(gcoo_predict(NULL, A, NULL, &p), GCOO_ERR_NULL, "NULL");
    TEST_CHECK(gcoo_predict_method_from_name("paper") == GCOO_PREDICT_PAPER &&
                   gcoo_predict_method_from_name("nope") == -1 &&
                   !strcmp(gcoo_predict_method_name(GCOO_PREDICT_ADAPTIVE), "adaptive"),
               "method names");
    gcoo_sparse_destroy(&A);
    gcoo_sparse_destroy(&B);
  }
  return gcoo_test_finish("t501-predict");
}
