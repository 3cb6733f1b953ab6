/* SPDX-License-Identifier: MIT */
/* solver/amg/amg_spectral.c: an estimate of rho(D^-1 A), which sets the prolongator's damping
 * and the Chebyshev interval. D^-1 A is self-adjoint in the D inner product <x, y> = x^T D y
 * when A is symmetric and D > 0, so Lanczos in that inner product gives Ritz values that
 * approach its extreme eigenvalues from inside; a few steps find the largest well (the
 * smoother's interval adds its margin above it). The start vector is a hash of the global row
 * number: the same estimate for any rank count, up to rounding. A diagonal with entries <= 0
 * (not SPD) falls back to the Euclidean inner product. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amg_impl.h"

static double start_value(int64_t g) {
  uint64_t z = (uint64_t)g * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return 0.5 + (double)(z >> 11) * 0x1p-53; /* in [0.5, 1.5): no cancellation with A's kernel */
}

gcoo_status gcoo__amg_rho(amg *H, amg_level *L, int steps, double *rho) {
  gcoo_status st = GCOO_SUCCESS;
  const int64_t n = L->n;
  const MPI_Comm comm = gcoo_dist_comm(H->d);
  double *buf = NULL, *alpha = NULL, *beta = NULL, *dw = NULL;
  gcoo_dense X = {0}, Y = {0};
  const int dbl = H->dtype == GCOO_FLOAT64;
  *rho = 0.0;
  int dpos = 1;
  for (int64_t i = 0; i < n; i++) dpos &= L->diag[i] > 0.0;
  GCOO_GOTO(GCOO_MPI(MPI_Allreduce(MPI_IN_PLACE, &dpos, 1, MPI_INT, MPI_MIN, comm)));
  st = gcoo__malloc_n((void **)&buf, 4 * (n + 1), sizeof *buf, "Lanczos");
  if (st >= 0) st = gcoo__calloc((void **)&alpha, (size_t)steps + 1, sizeof *alpha, "Lanczos");
  if (st >= 0) st = gcoo__calloc((void **)&beta, (size_t)steps + 1, sizeof *beta, "Lanczos");
  if (st >= 0 && !dbl) st = gcoo_dense_create(&X, H->dtype, GCOO_ROW_MAJOR, n, 1);
  if (st >= 0 && !dbl) st = gcoo_dense_create(&Y, H->dtype, GCOO_ROW_MAJOR, n, 1);
  GCOO_GOTO(gcoo_dist_agree(H->d, st));
  GCOO_GOTO(gcoo__dist_op_reserve(L->Aop, 1, GCOO_MEM_HOST));
  /* three Lanczos vectors rotated through buf (v, the previous v, the next), and the weights
   * of the inner product: D, or 1 */
  double *v = buf, *vp = buf + (n + 1), *w = buf + 2 * (n + 1);
  dw = buf + 3 * (n + 1);
  for (int64_t i = 0; i < n; i++) dw[i] = dpos ? L->diag[i] : 1.0;
  double s = 0.0;
  for (int64_t i = 0; i < n; i++) {
    v[i] = start_value(L->row0 + i);
    vp[i] = 0.0;
    s += dw[i] * v[i] * v[i];
  }
  GCOO_GOTO(GCOO_MPI(MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, comm)));
  for (int64_t i = 0; i < n; i++) v[i] /= sqrt(s);
  int m = 0;
  for (int j = 0; j < steps; j++) {
    /* w = A v (double: straight into w; float: through the element type's blocks) */
    if (dbl) {
      X = gcoo_dense_wrap(v, GCOO_FLOAT64, GCOO_ROW_MAJOR, n, 1, 1);
      Y = gcoo_dense_wrap(w, GCOO_FLOAT64, GCOO_ROW_MAJOR, n, 1, 1);
      GCOO_GOTO(gcoo__dist_op_apply_checked(L->Aop, 1.0, &X, 0.0, &Y));
    } else {
      amg_put(v, &X);
      GCOO_GOTO(gcoo__dist_op_apply_checked(L->Aop, 1.0, &X, 0.0, &Y));
      amg_get(&Y, w);
    }
    /* alpha = <D^-1 A v, v> in the weights: (A v)^T v with D, (D^-1 A v)^T v without */
    double red = 0.0;
    for (int64_t i = 0; i < n; i++) {
      w[i] = L->diag[i] != 0.0 ? w[i] / L->diag[i] : 0.0;
      red += dw[i] * w[i] * v[i];
    }
    GCOO_GOTO(GCOO_MPI(MPI_Allreduce(MPI_IN_PLACE, &red, 1, MPI_DOUBLE, MPI_SUM, comm)));
    alpha[j] = red;
    const double bprev = j > 0 ? beta[j - 1] : 0.0;
    red = 0.0;
    for (int64_t i = 0; i < n; i++) {
      w[i] -= alpha[j] * v[i] + bprev * vp[i];
      red += dw[i] * w[i] * w[i];
    }
    GCOO_GOTO(GCOO_MPI(MPI_Allreduce(MPI_IN_PLACE, &red, 1, MPI_DOUBLE, MPI_SUM, comm)));
    m = j + 1;
    beta[j] = sqrt(fmax(red, 0.0));
    if (!(beta[j] > 1e-10 * fabs(alpha[j]))) break; /* an invariant subspace: exact */
    const double inv = 1.0 / beta[j];
    for (int64_t i = 0; i < n; i++) w[i] *= inv;
    double *t = vp; /* rotate: the previous v goes, v becomes it, w becomes v */
    vp = v;
    v = w;
    w = t;
  }
  {
    /* the largest Ritz value: eigenvalues of the m x m tridiagonal (alpha, beta) */
    int mm = m, info = 0, one = 1;
    double z = 0.0, work = 0.0;
    for (int j = 0; j < m; j++)
      if (!isfinite(alpha[j]) || !isfinite(beta[j])) mm = 0;
    if (mm > 0) dstev_("N", &mm, alpha, beta, &z, &one, &work, &info);
    GCOO_CHECK_GOTO(mm > 0 && info == 0, GCOO_ERR_NOT_FINITE,
                    "the spectral estimate of D^-1 A failed (%s): A has non-finite entries or a "
                    "zero diagonal",
                    mm > 0 ? "LAPACK dstev" : "non-finite Lanczos coefficients");
    double r = 0.0;
    for (int j = 0; j < mm; j++) r = fmax(r, fabs(alpha[j]));
    *rho = r;
  }
done:
  free(buf);
  free(alpha);
  free(beta);
  if (!dbl) {
    gcoo_dense_destroy(&X);
    gcoo_dense_destroy(&Y);
  }
  return st;
}
