/* SPDX-License-Identifier: MIT */
/* src/smallmat.c: the k x k dense algebra of block solvers, on the host in double: Cholesky
 * factor and solve for the SPD coefficient systems, and a pivoted (rank-revealing) Cholesky
 * that turns a Gram matrix W^T W into the k x s transform T with W T orthonormal.
 * k is at most a few hundred: plain loops are the right tool; these are not bulk kernels. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend_impl.h"

gcoo_status gcoo__chol(int64_t n, double *A) {
  for (int64_t j = 0; j < n; j++) {
    double d = A[j * n + j];
    for (int64_t l = 0; l < j; l++) d -= A[j * n + l] * A[j * n + l];
    GCOO_CHECK(d > 0.0 && isfinite(d), GCOO_ERR_BREAKDOWN,
               "Cholesky pivot %lld of a %lld x %lld matrix is %g: the matrix is not positive "
               "definite (is the operator SPD?)",
               (long long)j, (long long)n, (long long)n, d);
    double ljj = sqrt(d);
    A[j * n + j] = ljj;
    for (int64_t i = j + 1; i < n; i++) {
      double s = A[i * n + j];
      for (int64_t l = 0; l < j; l++) s -= A[i * n + l] * A[j * n + l];
      A[i * n + j] = s / ljj;
    }
    for (int64_t i = 0; i < j; i++) A[i * n + j] = 0.0; /* keep the factor lower triangular */
  }
  return GCOO_SUCCESS;
}

void gcoo__chol_solve(int64_t n, const double *L, int64_t nrhs, double *B) {
  for (int64_t c = 0; c < nrhs; c++) {
    for (int64_t i = 0; i < n; i++) { /* L y = b */
      double s = B[i * nrhs + c];
      for (int64_t l = 0; l < i; l++) s -= L[i * n + l] * B[l * nrhs + c];
      B[i * nrhs + c] = s / L[i * n + i];
    }
    for (int64_t i = n - 1; i >= 0; i--) { /* L^T x = y */
      double s = B[i * nrhs + c];
      for (int64_t l = i + 1; l < n; l++) s -= L[l * n + i] * B[l * nrhs + c];
      B[i * nrhs + c] = s / L[i * n + i];
    }
  }
}

gcoo_status gcoo__orth_transform(int64_t k, const double *G, double rank_tol, double *T,
                                 int64_t *rank) {
  gcoo_status st = GCOO_SUCCESS;
  double *S = NULL, *L = NULL, *Rinv = NULL;
  int64_t *piv = NULL;
  GCOO_GOTO(gcoo__malloc_n((void **)&S, k * k, sizeof *S, "Gram copy"));
  GCOO_GOTO(gcoo__calloc((void **)&L, (size_t)(k * k), sizeof *L, "pivoted factor"));
  GCOO_GOTO(gcoo__calloc((void **)&Rinv, (size_t)(k * k), sizeof *Rinv, "inverse factor"));
  GCOO_GOTO(gcoo__malloc_n((void **)&piv, k, sizeof *piv, "pivots"));
  memcpy(S, G, (size_t)(k * k) * sizeof *S);
  double dmax = 0.0;
  for (int64_t i = 0; i < k; i++) {
    piv[i] = i;
    if (S[i * k + i] > dmax) dmax = S[i * k + i];
  }
  int64_t r = 0;
  /* outer-product Cholesky with diagonal pivoting on the Schur complement S */
  for (int64_t j = 0; j < k && dmax > 0.0; j++) {
    int64_t p = j;
    for (int64_t i = j + 1; i < k; i++)
      if (S[i * k + i] > S[p * k + p]) p = i;
    if (!(S[p * k + p] > rank_tol * dmax)) break;
    if (p != j) { /* symmetric swap of j and p in S, rows of L, and the permutation */
      for (int64_t i = 0; i < k; i++) {
        double t = S[j * k + i];
        S[j * k + i] = S[p * k + i];
        S[p * k + i] = t;
      }
      for (int64_t i = 0; i < k; i++) {
        double t = S[i * k + j];
        S[i * k + j] = S[i * k + p];
        S[i * k + p] = t;
      }
      for (int64_t l = 0; l < j; l++) {
        double t = L[j * k + l];
        L[j * k + l] = L[p * k + l];
        L[p * k + l] = t;
      }
      int64_t t = piv[j];
      piv[j] = piv[p];
      piv[p] = t;
    }
    double ljj = sqrt(S[j * k + j]);
    L[j * k + j] = ljj;
    for (int64_t i = j + 1; i < k; i++) L[i * k + j] = S[i * k + j] / ljj;
    for (int64_t i = j + 1; i < k; i++)
      for (int64_t l = j + 1; l < k; l++) S[i * k + l] -= L[i * k + j] * L[l * k + j];
    r = j + 1;
  }
  /* R = L^T (r x r upper triangular); Rinv = R^{-1}, column by column */
  for (int64_t c = 0; c < r; c++) {
    for (int64_t i = c; i >= 0; i--) {
      double s = (i == c) ? 1.0 : 0.0;
      for (int64_t l = i + 1; l <= c; l++) s -= L[l * k + i] * Rinv[l * k + c];
      Rinv[i * k + c] = s / L[i * k + i];
    }
  }
  /* T (k x r): row piv[a] of T is row a of R^{-1}, so W T = W[:, piv[0..r)] R^{-1} */
  memset(T, 0, (size_t)(k * (r > 0 ? r : 1)) * sizeof *T);
  for (int64_t a = 0; a < r; a++)
    for (int64_t b = 0; b < r; b++) T[piv[a] * r + b] = Rinv[a * k + b];
  *rank = r;
done:
  free(S);
  free(L);
  free(Rinv);
  free(piv);
  return st;
}
