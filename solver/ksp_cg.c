/* SPDX-License-Identifier: MIT */
/* solver/ksp_cg.c: preconditioned conjugate gradients (Hestenes and Stiefel), k columns in
 * lockstep: one operator application a k-column block per iteration and two reductions of k (or
 * 2k) values for all columns. A converged column keeps its place in the block with zero step
 * lengths, so X and R no longer change there.
 *
 *   R = B - A X;  Z = M R;  P = Z;  rz = R^T Z
 *   repeat
 *     Q = A P;  alpha = rz / P^T Q                (reduction 1; P^T Q <= 0: A is not SPD)
 *     X += alpha P;  R -= alpha Q                 one pass, with R^T R (and R^T D^-1 R: Jacobi)
 *     Z = M R;  rz' = R^T Z                       (reduction 2, with ||R||^2)
 *     stop column j when ||R_j|| <= tol_j;  beta = rz' / rz;  P = Z + beta P
 *
 * With Jacobi the preconditioned residual is never stored: the update pass sums R^T D^-1 R and
 * the direction pass forms D^-1 R + beta P directly, so an iteration is the product and three
 * passes over the vectors (P^T Q, the update, the direction). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver_impl.h"

gcoo_status gcoo__ksp_cg(gcoo__run *r, const gcoo_dense *B, gcoo_dense *X) {
  gcoo_status st = GCOO_SUCCESS;
  const gcoo_vec_ops *vo;
  const int64_t k = r->k;
  gcoo_dense R = {0}, P = {0}, Q = {0}, Z = {0};
  double *buf = NULL;
  GCOO_CALL(gcoo__run_vec(r, "cg", &vo));
  const gcoo_pc pc = r->ksp->pc;
  const gcoo_dense *dinv = gcoo__pc_jacobi_dinv(pc);
  const int plain = pc->type == GCOO_PC_NONE, general = !plain && !dinv;
  GCOO_GOTO(gcoo__malloc_n((void **)&buf, 6 * k, sizeof *buf, "cg scalars"));
  double *alpha = buf, *beta = buf + k, *rz = buf + 2 * k, *red = buf + 3 * k, *rn = buf + 5 * k;
  GCOO_GOTO(gcoo__block_create(r, k, &R));
  GCOO_GOTO(gcoo__block_create(r, k, &P));
  GCOO_GOTO(gcoo__block_create(r, k, &Q));
  if (general) GCOO_GOTO(gcoo__block_create(r, k, &Z));

  /* R = B - A X; P = M R; red = {R^T P, R^T R} */
  if (r->x_zero) {
    for (int64_t j = 0; j < k; j++) alpha[j] = 1.0, beta[j] = 0.0;
    GCOO_GOTO(vo->axpby(r->ctx, alpha, B, beta, &R));
  } else {
    GCOO_GOTO(gcoo__run_residual(r, B, X, &R));
  }
  for (int64_t j = 0; j < k; j++) beta[j] = 0.0;
  if (general) GCOO_GOTO(gcoo__run_apply_pc(r, &R, &Z));
  GCOO_GOTO(vo->cg_direction(r->ctx, beta, dinv, general ? &Z : &R, &P));
  {
    const gcoo_dense *x[2] = {&R, &R}, *y[2] = {&P, &R};
    GCOO_GOTO(vo->dots(r->ctx, 2, x, y, red));
  }
  GCOO_GOTO(gcoo__run_allreduce(r, red, 2 * k));
  for (int64_t j = 0; j < k; j++) {
    rz[j] = red[j];
    rn[j] = sqrt(fmax(red[k + j], 0.0));
    if (r->reason[j] == GCOO_KSP_ITERATING && !(rz[j] >= 0.0) && isfinite(rz[j]))
      gcoo__run_stop(r, j, 0, GCOO_KSP_DIVERGED_INDEFINITE);
  }
  int64_t it = 0;
  int64_t active = gcoo__run_check(r, 0, rn);
  while (active > 0 && it < r->maxit) {
    it++;
    GCOO_GOTO(gcoo__run_apply_A(r, &P, &Q));
    {
      const gcoo_dense *x[1] = {&P}, *y[1] = {&Q};
      GCOO_GOTO(vo->dots(r->ctx, 1, x, y, red));
    }
    GCOO_GOTO(gcoo__run_allreduce(r, red, k));
    for (int64_t j = 0; j < k; j++) {
      alpha[j] = 0.0;
      if (r->reason[j] != GCOO_KSP_ITERATING) continue;
      if (!isfinite(red[j]) || !isfinite(rz[j]))
        gcoo__run_stop(r, j, it, GCOO_KSP_DIVERGED_NANORINF);
      else if (red[j] <= 0.0)
        gcoo__run_stop(r, j, it, GCOO_KSP_DIVERGED_INDEFINITE);
      else
        alpha[j] = rz[j] / red[j];
    }
    /* X += alpha P, R -= alpha Q; red = {R^T D^-1 R (Jacobi), R^T R} */
    GCOO_GOTO(vo->cg_update(r->ctx, alpha, &P, &Q, X, &R, dinv, red));
    if (general) {
      GCOO_GOTO(gcoo__run_apply_pc(r, &R, &Z));
      const gcoo_dense *x[1] = {&R}, *y[1] = {&Z};
      GCOO_GOTO(vo->dots(r->ctx, 1, x, y, red));
    }
    if (plain) memcpy(red, red + k, (size_t)k * sizeof *red);
    GCOO_GOTO(gcoo__run_allreduce(r, red, 2 * k));
    for (int64_t j = 0; j < k; j++) rn[j] = sqrt(fmax(red[k + j], 0.0));
    active = gcoo__run_check(r, it, rn);
    for (int64_t j = 0; j < k; j++) {
      beta[j] = 0.0;
      if (r->reason[j] != GCOO_KSP_ITERATING) continue;
      if (red[j] < 0.0) { /* r^T M^{-1} r < 0: the preconditioner is not positive definite */
        gcoo__run_stop(r, j, it, GCOO_KSP_DIVERGED_INDEFINITE);
        continue;
      }
      beta[j] = rz[j] > 0.0 ? red[j] / rz[j] : 0.0;
      rz[j] = red[j];
    }
    active = gcoo__run_active(r);
    if (active == 0) break;
    GCOO_GOTO(vo->cg_direction(r->ctx, beta, dinv, general ? &Z : &R, &P));
  }
  r->iterations = it;
done:
  gcoo__block_destroy(r, &R);
  gcoo__block_destroy(r, &P);
  gcoo__block_destroy(r, &Q);
  gcoo__block_destroy(r, &Z);
  free(buf);
  return st;
}
