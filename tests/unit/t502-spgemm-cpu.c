/* SPDX-License-Identifier: MIT */
/* tests/unit/t502-spgemm-cpu.c: the CPU SpGEMM against a dense-accumulator product in double:
 * random products of several shapes and densities in float and double, any input format, a
 * mesh and a power-law product, a numerically cancelling product (structure kept), empty rows,
 * empty matrices, 1 x 1, gcoo_spgemm's dispatch and bad input. Error bound: ||C - ref||_F /
 * ||ref||_F <= gcoo_test_tolerance(dtype, longest row of A). */
#include <math.h>
#include <string.h>

#include "spgemm_check.h"

static void run(gcoo_sparse A, gcoo_sparse B, const char *what) {
  gcoo_sparse_info ai, bi;
  TEST_CALL(gcoo_sparse_get_info(A, &ai));
  TEST_CALL(gcoo_sparse_get_info(B, &bi));
  gcoo_sparse C = NULL;
  gcoo_spgemm_info info;
  memset(&info, 0xff, sizeof info); /* poison */
  TEST_CALL(gcoo_spgemm_cpu(A, B, NULL, &C, &info));
  const double err = spgemm_check(A, B, C, what);
  const double tol = gcoo_test_tolerance(ai.dtype, ai.ncols);
  TEST_CHECK(err <= tol, "%s: relative error %.3e > %.3e", what, err, tol);
  TEST_CALL(gcoo_sparse_validate(C, 0)); /* sorted, in range */
  const int64_t z = spgemm_check_nnz(A, B, NULL);
  TEST_CHECK(info.nnz == z && info.batches == 1 && info.seconds >= 0.0 && info.peak_bytes > 0,
             "%s: info nnz %lld (expected %lld) batches %lld", what, (long long)info.nnz,
             (long long)z, (long long)info.batches);
  /* with the FLOP handed over (as from a prediction) the result is the same */
  gcoo_prediction p;
  gcoo_predict_options o = GCOO_PREDICT_OPTIONS_INIT;
  o.want_row_flop = 1;
  TEST_CALL(gcoo_predict(A, B, &o, &p));
  gcoo_sparse C2 = NULL;
  TEST_CALL(gcoo_spgemm_cpu(A, B, p.row_flop, &C2, NULL));
  TEST_CHECK(spgemm_check(A, B, C2, what) <= tol, "%s: with row FLOP given", what);
  TEST_CHECK(info.flop == p.flop_total, "%s: info FLOP %lld, prediction %lld", what,
             (long long)info.flop, (long long)p.flop_total);
  gcoo_prediction_free(&p);
  gcoo_sparse_destroy(&C2);
  gcoo_sparse_destroy(&C);
}

int main(void) {
  const int64_t shapes[][3] = {{1, 1, 1},       {3, 4, 5},         {64, 80, 48},
                               {300, 200, 250}, {1000, 1200, 900}, {50, 5000, 40}};
  const double spars[] = {0.0, 0.3, 0.8, 0.97, 0.995, 0.99};
  const gcoo_format fmts[] = {GCOO_FORMAT_CSR, GCOO_FORMAT_COO, GCOO_FORMAT_CSC, GCOO_FORMAT_GCOO};
  for (int s = 0; s < 6; s++)
    for (int dt = 0; dt < 2; dt++) {
      gcoo_sparse A = NULL, B = NULL;
      char what[96];
      TEST_CALL(gcoo_sparse_random(&A, (gcoo_dtype)dt, fmts[s % 4], shapes[s][0], shapes[s][1],
                                   spars[s], 300 + s, 4));
      TEST_CALL(gcoo_sparse_random(&B, (gcoo_dtype)dt, GCOO_FORMAT_CSR, shapes[s][1], shapes[s][2],
                                   spars[s], 400 + s, 0));
      snprintf(what, sizeof what, "random %lldx%lldx%lld %s", (long long)shapes[s][0],
               (long long)shapes[s][1], (long long)shapes[s][2], dt ? "double" : "float");
      run(A, B, what);
      gcoo_sparse_destroy(&A);
      gcoo_sparse_destroy(&B);
    }
  for (int dt = 0; dt < 2; dt++) {
    gcoo_sparse L = spgemm_check_laplacian((gcoo_dtype)dt, 60, 50);
    gcoo_sparse P = spgemm_check_powerlaw((gcoo_dtype)dt, 3000, 3000, 5, 11);
    run(L, L, dt ? "laplacian^2 double" : "laplacian^2 float");
    run(P, P, dt ? "powerlaw^2 double" : "powerlaw^2 float");
    gcoo_sparse_destroy(&L);
    gcoo_sparse_destroy(&P);
  }

  /* cancellation: [1 1] [1; -1] = 0, kept as a structural entry */
  {
    const int64_t ap[2] = {0, 2}, bp[3] = {0, 1, 2};
    const int32_t ai[2] = {0, 1}, bi[2] = {0, 0};
    const double av[2] = {1.0, 1.0}, bv[2] = {1.0, -1.0};
    gcoo_sparse A = NULL, B = NULL, C = NULL;
    TEST_CALL(gcoo_sparse_create_csr(&A, GCOO_FLOAT64, 1, 2, ap, ai, av, 0));
    TEST_CALL(gcoo_sparse_create_csr(&B, GCOO_FLOAT64, 2, 1, bp, bi, bv, 0));
    TEST_CALL(gcoo_spgemm_cpu(A, B, NULL, &C, NULL));
    gcoo_sparse_info ci;
    gcoo_sparse_arrays c;
    TEST_CALL(gcoo_sparse_get_info(C, &ci));
    TEST_CALL(gcoo_sparse_get_arrays(C, &c));
    TEST_CHECK(ci.nnz == 1 && ((const double *)c.values)[0] == 0.0,
               "cancelling product: nnz %lld, expected 1 structural zero", (long long)ci.nnz);
    gcoo_sparse_destroy(&A);
    gcoo_sparse_destroy(&B);
    gcoo_sparse_destroy(&C);
  }

  /* empty rows in A and in B, and empty matrices */
  {
    const int64_t dims[][3] = {{0, 0, 0}, {4, 0, 3}, {0, 5, 2}, {6, 4, 7}};
    for (int d = 0; d < 4; d++) {
      gcoo_sparse A = NULL, B = NULL;
      TEST_CALL(
          gcoo_sparse_create_coo(&A, GCOO_FLOAT32, dims[d][0], dims[d][1], 0, NULL, NULL, NULL, 0));
      TEST_CALL(
          gcoo_sparse_create_coo(&B, GCOO_FLOAT32, dims[d][1], dims[d][2], 0, NULL, NULL, NULL, 0));
      run(A, B, "empty");
      gcoo_sparse_destroy(&A);
      gcoo_sparse_destroy(&B);
    }
    /* every other row of A empty, and B rows 0..9 empty */
    const int32_t r[] = {0, 0, 2, 4, 4, 6}, c[] = {3, 15, 12, 0, 19, 11};
    gcoo_sparse A = NULL, B = NULL;
    TEST_CALL(gcoo_sparse_create_coo(&A, GCOO_FLOAT64, 8, 20, 6, r, c, NULL, 0));
    TEST_CALL(gcoo_sparse_random(&B, GCOO_FLOAT64, GCOO_FORMAT_CSR, 20, 30, 0.7, 5, 0));
    run(A, B, "empty rows");
    gcoo_sparse_destroy(&A);
    gcoo_sparse_destroy(&B);
  }

  /* gcoo_spgemm on a CPU context, and bad input */
  {
    gcoo_ctx ctx = NULL;
    gcoo_sparse A = NULL, B = NULL, C = NULL, Bf = NULL;
    gcoo_spgemm_info info;
    gcoo_spgemm_options o = GCOO_SPGEMM_OPTIONS_INIT;
    TEST_CALL(gcoo_ctx_create(&ctx, "cpu"));
    TEST_CALL(gcoo_sparse_random(&A, GCOO_FLOAT64, GCOO_FORMAT_CSR, 40, 30, 0.8, 8, 0));
    TEST_CALL(gcoo_sparse_random(&B, GCOO_FLOAT64, GCOO_FORMAT_CSR, 30, 20, 0.8, 9, 0));
    TEST_CALL(gcoo_spgemm(ctx, A, B, NULL, &C, &info));
    TEST_CHECK(spgemm_check(A, B, C, "gcoo_spgemm cpu") <= 1e-14, "gcoo_spgemm on the CPU");
    gcoo_sparse_destroy(&C);
    o.alg = GCOO_SPGEMM_CUSPARSE_ALG1;
    TEST_FAILS(gcoo_spgemm(ctx, A, B, &o, &C, NULL), GCOO_ERR_UNSUPPORTED, "cusparse_alg1");
    o.alg = GCOO_SPGEMM_AUTO;
    o.safety = -1.0;
    TEST_FAILS(gcoo_spgemm(ctx, A, B, &o, &C, NULL), GCOO_ERR_INVALID_ARG, "safety factor -1");
    o = (gcoo_spgemm_options)GCOO_SPGEMM_OPTIONS_INIT;
    o.size = 3;
    TEST_FAILS(gcoo_spgemm(ctx, A, B, &o, &C, NULL), GCOO_ERR_INVALID_ARG,
               "GCOO_SPGEMM_OPTIONS_INIT");
    TEST_FAILS(gcoo_spgemm(ctx, A, A, NULL, &C, NULL), GCOO_ERR_SHAPE, "40 x 30 but B is 40 x 30");
    TEST_CALL(gcoo_sparse_astype(&Bf, B, GCOO_FLOAT32));
    TEST_FAILS(gcoo_spgemm(ctx, A, Bf, NULL, &C, NULL), GCOO_ERR_DTYPE, "A is double, B is float");
    TEST_FAILS(gcoo_spgemm(NULL, A, B, NULL, &C, NULL), GCOO_ERR_NULL, "context");
    TEST_CHECK(C == NULL, "C set after a failure");
    TEST_CHECK(gcoo_spgemm_alg_from_name("cusparse_alg3") == GCOO_SPGEMM_CUSPARSE_ALG3 &&
                   gcoo_spgemm_alg_from_name("x") == -1,
               "algorithm names");
    gcoo_sparse_destroy(&A);
    gcoo_sparse_destroy(&B);
    gcoo_sparse_destroy(&Bf);
    gcoo_ctx_destroy(&ctx);
  }
  return gcoo_test_finish("t502-spgemm-cpu");
}
