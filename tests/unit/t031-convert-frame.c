/* SPDX-License-Identifier: MIT */
/* tests/unit/t031-convert-frame.c: the single-pass conversions between an operator's two frames
 * (src/convert_frame.c) against arrays built by plain scans of a dense matrix (unit_util):
 *   CSR of A -> GCOO of S = A^T in place (groups of p rows of A), for p = 1, 3, 32, 1000 and
 *   shapes with empty rows, empty groups, a last narrow group, a dense row and an empty matrix;
 *   GCOO of S -> CSR of A; CSC of S flipped into the CSR of A; a clone; the rows of A in a random
 *   order (and a non-permutation refused); every array bit for bit, float and double. And the
 *   product the CPU backend computes from each frame is the same, bit for bit, as from the
 *   general path (the summation order of a row of Y does not change). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "unit_util.h"
#include "backend_impl.h"

static gcoo_dense transposed_copy(const gcoo_dense *D) {
  gcoo_dense T;
  TEST_CALL(gcoo_dense_create(&T, D->dtype, GCOO_ROW_MAJOR, D->ncols, D->nrows));
  for (int64_t i = 0; i < D->nrows; i++)
    for (int64_t j = 0; j < D->ncols; j++) gcoo_dense_set(&T, j, i, gcoo_dense_get(D, i, j));
  return T;
}

/* gcoo__csr_rows_permuted against the CSR scanned from D with its rows in the same random order;
 * an order that repeats a row or leaves the rows, and a matrix that is not CSR, refused. */
static void check_rows_permuted(const gcoo_dense *D, gcoo_sparse A, uint64_t seed,
                                const char *what) {
  const int64_t m = D->nrows, k = D->ncols;
  int32_t *order = malloc((size_t)(m > 0 ? m : 1) * sizeof *order);
  TEST_CHECK(order != NULL, "%s: out of memory", what);
  if (!order) return;
  ut_rng g = {seed * 7919u + 17u};
  for (int64_t i = 0; i < m; i++) order[i] = (int32_t)i;
  for (int64_t i = m - 1; i > 0; i--) { /* Fisher-Yates */
    const int64_t j = (int64_t)ut_below(&g, (uint64_t)i + 1);
    const int32_t t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  gcoo_dense Dp;
  TEST_CALL(gcoo_dense_create(&Dp, D->dtype, GCOO_ROW_MAJOR, m, k));
  for (int64_t r = 0; r < m; r++)
    for (int64_t j = 0; j < k; j++) gcoo_dense_set(&Dp, r, j, gcoo_dense_get(D, order[r], j));
  ut_expect ep = ut_expect_from_dense(&Dp, GCOO_FORMAT_CSR, 0);
  char w2[240];
  snprintf(w2, sizeof w2, "%s rows permuted", what);
  gcoo_sparse B = NULL;
  TEST_CALL(gcoo__csr_rows_permuted(A, order, &B));
  ut_check_arrays(B, &ep, w2);
  gcoo_sparse_destroy(&B);
  if (m >= 2) {
    const int32_t keep = order[1];
    order[1] = order[0];
    TEST_CHECK(gcoo__csr_rows_permuted(A, order, &B) == GCOO_ERR_INVALID_ARG && B == NULL,
               "%s: an order with a repeated row was not refused", w2);
    order[1] = (int32_t)m;
    TEST_CHECK(gcoo__csr_rows_permuted(A, order, &B) == GCOO_ERR_INVALID_ARG && B == NULL,
               "%s: an order naming row m was not refused", w2);
    order[1] = keep;
    gcoo_sparse C = NULL;
    TEST_CALL(gcoo_sparse_convert(&C, A, GCOO_FORMAT_COO, 0));
    TEST_CHECK(gcoo__csr_rows_permuted(C, order, &B) == GCOO_ERR_INVALID_ARG && B == NULL,
               "%s: a COO matrix was not refused", w2);
    gcoo_sparse_destroy(&C);
  }
  ut_expect_free(&ep);
  gcoo_dense_destroy(&Dp);
  free(order);
}

static void check_shape(gcoo_dtype dt, int64_t m, int64_t k, double density, int dense_row,
                        uint64_t seed) {
  static const int32_t ps[] = {1, 3, 32, 1000};
  char what[200];
  gcoo_dense D = ut_random_dense(dt, GCOO_ROW_MAJOR, m, k, density, seed); /* A, m x k */
  if (dense_row && m > 2)
    for (int64_t j = 0; j < k; j++) gcoo_dense_set(&D, 2, j, 0.25 + (double)j / (double)(k + 1));
  gcoo_dense Dt = transposed_copy(&D); /* S = A^T, k x m */
  ut_expect ecsr = ut_expect_from_dense(&D, GCOO_FORMAT_CSR, 0);
  {
    gcoo_sparse A = NULL;
    snprintf(what, sizeof what, "%s A %lldx%lld d=%.2f", dt ? "f64" : "f32", (long long)m,
             (long long)k, density);
    TEST_CALL(gcoo_sparse_from_dense(&A, &D, GCOO_FORMAT_CSR, 0, 0));
    check_rows_permuted(&D, A, seed, what);
    gcoo_sparse_destroy(&A);
  }
  for (size_t pi = 0; pi < sizeof ps / sizeof ps[0]; pi++) {
    const int32_t p = ps[pi];
    snprintf(what, sizeof what, "%s A %lldx%lld d=%.2f%s p=%d", dt ? "f64" : "f32", (long long)m,
             (long long)k, density, dense_row ? " dense row" : "", p);
    ut_expect egcoo = ut_expect_from_dense(&Dt, GCOO_FORMAT_GCOO, p);
    gcoo_sparse A = NULL, C = NULL, S = NULL, B = NULL;
    TEST_CALL(gcoo_sparse_from_dense(&A, &D, GCOO_FORMAT_CSR, 0, 0));
    TEST_CALL(gcoo__sparse_clone(A, &C));
    ut_check_same(C, A, what);
    /* CSR of A -> GCOO of S, in place: C is consumed */
    TEST_CALL(gcoo__csr_to_gcoo_of_transpose(&C, p, &S));
    TEST_CHECK(C == NULL, "%s: the CSR was not consumed", what);
    ut_check_arrays(S, &egcoo, what);
    /* and back */
    TEST_CALL(gcoo__gcoo_to_csr_of_transpose(S, &B));
    ut_check_arrays(B, &ecsr, what);
    gcoo_sparse_destroy(&B);
    /* the CSC of S read as the CSR of A */
    gcoo_sparse Sc = NULL;
    TEST_CALL(gcoo_sparse_from_dense(&Sc, &Dt, GCOO_FORMAT_CSC, 0, 0));
    TEST_CALL(gcoo__sparse_flip_compressed(Sc));
    ut_check_arrays(Sc, &ecsr, what);
    gcoo_sparse_destroy(&Sc);
    /* the CPU kernel on the in-place GCOO gives the product of the general conversion bit for
     * bit (operators made both ways, one through the public create that copies the caller's) */
    gcoo_ctx ctx = NULL;
    TEST_CALL(gcoo_ctx_create(&ctx, "cpu"));
    gcoo_op op1 = NULL, op2 = NULL;
    gcoo_op_options o = GCOO_OP_OPTIONS_INIT;
    o.p = p;
    gcoo_sparse Sg = NULL;
    TEST_CALL(gcoo_sparse_convert(&Sg, A, GCOO_FORMAT_CSR, 0));
    TEST_CALL(gcoo__op_create_take(&op1, ctx, &Sg, &o)); /* CSR of A, built in place */
    TEST_CALL(gcoo_sparse_from_dense(&Sg, &Dt, GCOO_FORMAT_GCOO, p, 0));
    o.reading = GCOO_DENSE_SPARSE;
    TEST_CALL(gcoo_op_create(&op2, ctx, Sg, &o)); /* GCOO of S as given */
    gcoo_sparse_destroy(&Sg);
    const int64_t N = 5;
    gcoo_dense X, Y1, Y2, R;
    TEST_CALL(gcoo_dense_create(&X, dt, GCOO_ROW_MAJOR, k, N));
    TEST_CALL(gcoo_dense_fill_random(&X, seed + 3));
    TEST_CALL(gcoo_dense_create(&Y1, dt, GCOO_ROW_MAJOR, m, N));
    TEST_CALL(gcoo_dense_create(&Y2, dt, GCOO_ROW_MAJOR, m, N));
    TEST_CALL(gcoo_dense_create(&R, dt, GCOO_ROW_MAJOR, m, N));
    TEST_CALL(gcoo_dense_fill(&Y1, NAN));
    TEST_CALL(gcoo_dense_fill(&Y2, NAN));
    TEST_CALL(gcoo_op_apply(op1, 1.0, &X, 0.0, &Y1));
    gcoo_dense Xt = gcoo_dense_wrap(X.data, dt, GCOO_COL_MAJOR, N, k, N);
    gcoo_dense Y2t = gcoo_dense_wrap(Y2.data, dt, GCOO_COL_MAJOR, N, m, N);
    TEST_CALL(gcoo_op_apply(op2, 1.0, &Xt, 0.0, &Y2t));
    TEST_CALL(gcoo_spdm_reference(1.0, A, &X, 0.0, &R));
    ut_check_dense_equal(&Y1, &Y2, what);
    double err = gcoo_test_relerr(&Y1, &R), tol = gcoo_test_tolerance(dt, k);
    TEST_CHECK(m * N == 0 || err <= tol || (err == 0.0), "%s: ||Y - ref|| / ||ref|| = %.3g > %.3g",
               what, err, tol);
    /* sampled rows read from the operator's own layout */
    int64_t rows[3] = {0, m / 2, m - 1};
    int64_t nr = m >= 3 ? 3 : 0;
    if (m >= 3 && rows[1] == 0) nr = 0;
    for (int w = 0; w < 2 && nr; w++) {
      gcoo_sparse Rr = NULL;
      TEST_CALL(gcoo__op_rows(w ? op2 : op1, rows, nr, &Rr));
      gcoo_sparse_arrays ra;
      TEST_CALL(gcoo_sparse_get_arrays(Rr, &ra));
      for (int64_t t = 0; t < nr; t++) {
        const int64_t i = rows[t], n1 = ra.ptr[t + 1] - ra.ptr[t],
                      n0 = ecsr.ptr[i + 1] - ecsr.ptr[i];
        TEST_CHECK(n1 == n0 && !memcmp(ra.ind + ra.ptr[t], ecsr.cols + ecsr.ptr[i], 4 * (size_t)n0),
                   "%s: row %lld from %s has %lld entries, expected %lld", what, (long long)i,
                   w ? "GCOO" : "CSR", (long long)n1, (long long)n0);
      }
      gcoo_sparse_destroy(&Rr);
    }
    gcoo_dense_destroy(&X);
    gcoo_dense_destroy(&Y1);
    gcoo_dense_destroy(&Y2);
    gcoo_dense_destroy(&R);
    gcoo_op_destroy(&op1);
    gcoo_op_destroy(&op2);
    gcoo_ctx_destroy(&ctx);
    gcoo_sparse_destroy(&S);
    gcoo_sparse_destroy(&A);
    ut_expect_free(&egcoo);
  }
  ut_expect_free(&ecsr);
  gcoo_dense_destroy(&D);
  gcoo_dense_destroy(&Dt);
}

int main(void) {
  for (int dt = 0; dt < 2; dt++) {
    check_shape((gcoo_dtype)dt, 0, 0, 0.5, 0, 1);
    check_shape((gcoo_dtype)dt, 7, 0, 0.5, 0, 2);
    check_shape((gcoo_dtype)dt, 1, 9, 0.5, 0, 3);
    check_shape((gcoo_dtype)dt, 65, 40, 0.9, 0, 4);
    check_shape((gcoo_dtype)dt, 100, 120, 0.05, 0, 5); /* empty rows and groups */
    check_shape((gcoo_dtype)dt, 257, 300, 0.2, 1, 6);  /* a dense row; 257 = 8 * 32 + 1 */
    check_shape((gcoo_dtype)dt, 2000, 1500, 0.01, 0, 7);
    check_shape((gcoo_dtype)dt, 40, 70000, 0.002, 0, 8); /* wide: long merges, big column gaps */
  }
  return gcoo_test_finish("t031-convert-frame");
}
