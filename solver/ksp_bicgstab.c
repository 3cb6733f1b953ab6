/* SPDX-License-Identifier: MIT */
/* solver/ksp_bicgstab.c: BiCGStab (van der Vorst 1992) with right preconditioning, k columns in
 * lockstep. Two operator and two preconditioner applications an iteration, three reductions.
 *
 *   R = B - A X;  Rh = R;  rho = alpha = omega = 1;  V = P = 0
 *   repeat
 *     rho' = Rh^T R                     (rho' = 0: breakdown)
 *     beta = (rho' / rho)(alpha / omega);  P = R + beta (P - omega V)
 *     Ph = M^{-1} P;  V = A Ph;  alpha = rho' / Rh^T V
 *     S = R - alpha V
 *     Sh = M^{-1} S;  T = A Sh;  omega = T^T S / T^T T   (with S^T S in one reduction: a column
 *                                                        whose S already meets the tolerance
 *                                                        takes omega = 0 and stops there)
 *     X += alpha Ph + omega Sh;  R = S - omega T;  ||R|| and the next Rh^T R in one reduction */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver_impl.h"

gcoo_status gcoo__ksp_bicgstab(gcoo__run *r, const gcoo_dense *B, gcoo_dense *X) {
  gcoo_status st = GCOO_SUCCESS;
  const gcoo_vec_ops *vo;
  const int64_t k = r->k;
  gcoo_dense R = {0}, Rh = {0}, P = {0}, Ph = {0}, V = {0}, Sh = {0}, T = {0};
  double *buf = NULL;
  GCOO_CALL(gcoo__run_vec(r, "bicgstab", &vo));
  GCOO_GOTO(gcoo__malloc_n((void **)&buf, 12 * k, sizeof *buf, "bicgstab scalars"));
  double *rho = buf, *alpha = buf + k, *omega = buf + 2 * k, *a = buf + 3 * k, *b = buf + 4 * k,
         *red = buf + 5 * k, *rn = buf + 8 * k, *c2 = buf + 9 * k; /* c2: 2k */
  gcoo_dense *blocks[] = {&R, &Rh, &P, &Ph, &V, &Sh, &T};
  for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++)
    GCOO_GOTO(gcoo__block_create(r, k, blocks[i]));
  for (int64_t j = 0; j < k; j++) a[j] = 1.0, b[j] = 0.0;
  if (r->x_zero)
    GCOO_GOTO(vo->axpby(r->ctx, a, B, b, &R));
  else
    GCOO_GOTO(gcoo__run_residual(r, B, X, &R));
  GCOO_GOTO(vo->axpby(r->ctx, a, &R, b, &Rh));
  {
    const gcoo_dense *x[2] = {&Rh, &R}, *y[2] = {&R, &R};
    GCOO_GOTO(vo->dots(r->ctx, 2, x, y, red));
    GCOO_GOTO(gcoo__run_allreduce(r, red, 2 * k));
  }
  for (int64_t j = 0; j < k; j++) {
    rho[j] = alpha[j] = omega[j] = 1.0;
    rn[j] = sqrt(fmax(red[k + j], 0.0));
  }
  int64_t it = 0;
  int64_t active = gcoo__run_check(r, 0, rn);
  while (active > 0 && it < r->maxit) {
    it++;
    /* beta and P = R + beta (P - omega V); red[0..k) holds Rh^T R */
    for (int64_t j = 0; j < k; j++) {
      const int on = r->reason[j] == GCOO_KSP_ITERATING;
      const double rh = red[j];
      if (on && rh == 0.0) gcoo__run_stop(r, j, it, GCOO_KSP_DIVERGED_BREAKDOWN);
      const int go = r->reason[j] == GCOO_KSP_ITERATING;
      const double beta = go ? (rh / rho[j]) * (alpha[j] / omega[j]) : 0.0;
      if (go) rho[j] = rh;
      a[j] = go ? -omega[j] : 0.0; /* P - omega V */
      b[j] = 1.0;
      c2[j] = 1.0; /* then R + beta (.) */
      c2[k + j] = beta;
    }
    GCOO_GOTO(vo->axpby(r->ctx, a, &V, b, &P));
    GCOO_GOTO(vo->axpby(r->ctx, c2, &R, c2 + k, &P));
    GCOO_GOTO(gcoo__run_apply_pc(r, &P, &Ph));
    GCOO_GOTO(gcoo__run_apply_A(r, &Ph, &V));
    {
      const gcoo_dense *x[1] = {&Rh}, *y[1] = {&V};
      GCOO_GOTO(vo->dots(r->ctx, 1, x, y, red));
      GCOO_GOTO(gcoo__run_allreduce(r, red, k));
    }
    for (int64_t j = 0; j < k; j++) {
      alpha[j] = 0.0;
      if (r->reason[j] != GCOO_KSP_ITERATING) continue;
      if (red[j] == 0.0 || !isfinite(red[j]))
        gcoo__run_stop(r, j, it,
                       isfinite(red[j]) ? GCOO_KSP_DIVERGED_BREAKDOWN : GCOO_KSP_DIVERGED_NANORINF);
      else
        alpha[j] = rho[j] / red[j];
      a[j] = -alpha[j];
    }
    /* S = R - alpha V, kept in R */
    {
      const gcoo_dense *x[1] = {&V};
      GCOO_GOTO(vo->maxpy(r->ctx, 1, a, x, &R));
    }
    GCOO_GOTO(gcoo__run_apply_pc(r, &R, &Sh));
    GCOO_GOTO(gcoo__run_apply_A(r, &Sh, &T));
    {
      const gcoo_dense *x[3] = {&T, &T, &R}, *y[3] = {&R, &T, &R};
      GCOO_GOTO(vo->dots(r->ctx, 3, x, y, red));
      GCOO_GOTO(gcoo__run_allreduce(r, red, 3 * k));
    }
    for (int64_t j = 0; j < k; j++) {
      omega[j] = 1.0;
      c2[j] = alpha[j];
      c2[k + j] = 0.0;
      if (r->reason[j] != GCOO_KSP_ITERATING) continue;
      const double ts = red[j], tt = red[k + j], ss = red[2 * k + j];
      if (sqrt(fmax(ss, 0.0)) <= r->tol[j])
        omega[j] = 0.0; /* S is small enough: X += alpha Ph alone, R = S */
      else if (tt == 0.0 || !isfinite(tt) || !isfinite(ts))
        gcoo__run_stop(r, j, it,
                       isfinite(tt) ? GCOO_KSP_DIVERGED_BREAKDOWN : GCOO_KSP_DIVERGED_NANORINF);
      else
        omega[j] = ts / tt;
      c2[k + j] = r->reason[j] == GCOO_KSP_ITERATING ? omega[j] : 0.0;
      if (r->reason[j] != GCOO_KSP_ITERATING) c2[j] = 0.0;
    }
    /* X += alpha Ph + omega Sh; R = S - omega T */
    {
      const gcoo_dense *x[2] = {&Ph, &Sh};
      double *cx = red; /* 2k coefficients, in the order maxpy reads them */
      for (int64_t j = 0; j < k; j++) {
        cx[j] = c2[j];
        cx[k + j] = c2[k + j];
        a[j] = -c2[k + j];
      }
      GCOO_GOTO(vo->maxpy(r->ctx, 2, cx, x, X));
      const gcoo_dense *t[1] = {&T};
      GCOO_GOTO(vo->maxpy(r->ctx, 1, a, t, &R));
    }
    {
      const gcoo_dense *x[2] = {&Rh, &R}, *y[2] = {&R, &R};
      GCOO_GOTO(vo->dots(r->ctx, 2, x, y, red));
      GCOO_GOTO(gcoo__run_allreduce(r, red, 2 * k));
    }
    for (int64_t j = 0; j < k; j++) rn[j] = sqrt(fmax(red[k + j], 0.0));
    active = gcoo__run_check(r, it, rn);
    for (int64_t j = 0; j < k; j++)
      if (r->reason[j] == GCOO_KSP_ITERATING && omega[j] == 0.0)
        gcoo__run_stop(r, j, it, GCOO_KSP_DIVERGED_BREAKDOWN); /* omega = 0 cannot go on */
    active = gcoo__run_active(r);
  }
  r->iterations = it;
done:
  for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) gcoo__block_destroy(r, blocks[i]);
  free(buf);
  return st;
}
