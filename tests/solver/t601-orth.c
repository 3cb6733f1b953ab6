/* SPDX-License-Identifier: MIT */
/* tests/solver/t601-orth.c: the rank-revealing orthonormalisation and the Cholesky helpers of
 * block CG (src/smallmat.c): W with independent, dependent and zero columns gives W T with
 * orthonormal columns (||(WT)^T WT - I||_max <= 1e-10) and the right rank; Cholesky solves
 * match; a matrix that is not SPD is refused with GCOO_ERR_BREAKDOWN. */
#include <math.h>
#include <string.h>

#include "backend_impl.h"
#include "gcoo_test.h"

static void check(int64_t n, int64_t k, int64_t want_rank, uint64_t seed, int dependent) {
  double *W = malloc(sizeof(double) * n * k), *G = calloc(k * k, sizeof(double));
  double *T = malloc(sizeof(double) * k * k);
  gcoo_rng r;
  gcoo__rng_seed(&r, seed, 0);
  for (int64_t i = 0; i < n * k; i++) W[i] = 2.0 * gcoo__rng_uniform(&r) - 1.0;
  if (dependent) /* column 1 = 2 * column 0 + column 2, column 3 = 0 */
    for (int64_t i = 0; i < n; i++) {
      W[i * k + 1] = 2.0 * W[i * k + 0] + W[i * k + 2];
      W[i * k + 3] = 0.0;
    }
  for (int64_t a = 0; a < k; a++)
    for (int64_t b = 0; b < k; b++)
      for (int64_t i = 0; i < n; i++) G[a * k + b] += W[i * k + a] * W[i * k + b];
  int64_t rank = -1;
  TEST_CALL(gcoo__orth_transform(k, G, 1e-13, T, &rank));
  TEST_CHECK(rank == want_rank, "n %lld k %lld: rank %lld, expected %lld", (long long)n,
             (long long)k, (long long)rank, (long long)want_rank);
  double worst = 0.0;
  for (int64_t a = 0; a < rank; a++)
    for (int64_t b = 0; b < rank; b++) {
      double s = 0.0;
      for (int64_t i = 0; i < n; i++) {
        double pa = 0.0, pb = 0.0;
        for (int64_t l = 0; l < k; l++) {
          pa += W[i * k + l] * T[l * rank + a];
          pb += W[i * k + l] * T[l * rank + b];
        }
        s += pa * pb;
      }
      worst = fmax(worst, fabs(s - (a == b ? 1.0 : 0.0)));
    }
  TEST_CHECK(worst <= 1e-10, "orthonormality error %g", worst);
  free(W);
  free(G);
  free(T);
}

int main(void) {
  check(200, 8, 8, 1, 0);
  check(200, 8, 6, 2, 1);
  check(5, 8, 5, 3, 0); /* more columns than rows: rank n */
  check(1000, 1, 1, 4, 0);
  /* Cholesky: SPD solve and a refusal */
  double A[9] = {4, 2, 0, 2, 5, 1, 0, 1, 3}, L[9], B[3] = {1, 2, 3}, X[3];
  memcpy(L, A, sizeof A);
  TEST_CALL(gcoo__chol(3, L));
  memcpy(X, B, sizeof B);
  gcoo__chol_solve(3, L, 1, X);
  for (int i = 0; i < 3; i++) {
    double s = 0.0;
    for (int j = 0; j < 3; j++) s += A[i * 3 + j] * X[j];
    TEST_CHECK(fabs(s - B[i]) <= 1e-14, "Cholesky solve row %d: %g vs %g", i, s, B[i]);
  }
  double N[4] = {1, 2, 2, 1};
  TEST_FAILS(gcoo__chol(2, N), GCOO_ERR_BREAKDOWN, "not positive definite");
  return gcoo_test_finish("t601-orth");
}
