/* SPDX-License-Identifier: MIT */
/* solver/ksp_pipecg.c: pipelined preconditioned CG (Ghysels and Vanroose, Parallel Computing 40,
 * 2014, Algorithm 4), k columns in lockstep. The one reduction an iteration (gamma = r^T u,
 * delta = w^T u and ||r||^2, for all k columns) travels while the preconditioner and the
 * operator are applied: with many ranks its latency hides behind them. The eight recurrences and
 * the next iteration's sums are one pass over the vectors (gcoo_vec_ops.pipecg_update).
 *
 *   r = b - A x;  u = M r;  w = A u
 *   repeat
 *     start the sums gamma, delta, ||r||^2      (non-blocking)
 *     m = M w;  n = A m
 *     finish the sums; stop columns whose ||r|| <= tol
 *     beta = gamma / gamma_old;  alpha = gamma / (delta - beta gamma / alpha_old)   (first: 0, gamma / delta)
 *     z = n + beta z;  q = m + beta q;  s = w + beta s;  p = u + beta p
 *     x += alpha p;  r -= alpha s;  u -= alpha q;  w -= alpha z
 *
 * The recurrences carry rounding errors further than CG's; the driver's check of the true
 * residual restarts the iteration from x where they drifted. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver_impl.h"

gcoo_status gcoo__ksp_pipecg(gcoo__run *r, const gcoo_dense *B, gcoo_dense *X) {
  gcoo_status st = GCOO_SUCCESS;
  const gcoo_vec_ops *vo;
  const int64_t k = r->k;
  /* v = {z, q, s, p, x, r, u, w, n, m}: the pass's order */
  gcoo_dense Z = {0}, Q = {0}, S = {0}, P = {0}, R = {0}, U = {0}, W = {0}, N = {0}, M = {0};
  double *buf = NULL;
  gcoo__iallreduce h = {0};
  GCOO_CALL(gcoo__run_vec(r, "pipecg", &vo));
  GCOO_GOTO(gcoo__malloc_n((void **)&buf, 9 * k, sizeof *buf, "pipecg scalars"));
  double *alpha = buf, *beta = buf + k, *gold = buf + 2 * k, *aold = buf + 3 * k,
         *sums = buf + 4 * k, *rn = buf + 7 * k, *one = buf + 8 * k;
  gcoo_dense *blocks[] = {&Z, &Q, &S, &P, &R, &U, &W, &N, &M};
  for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++)
    GCOO_GOTO(gcoo__block_create(r, k, blocks[i]));
  for (int64_t j = 0; j < k; j++) one[j] = 1.0, beta[j] = 0.0;
  if (r->x_zero)
    GCOO_GOTO(vo->axpby(r->ctx, one, B, beta, &R));
  else
    GCOO_GOTO(gcoo__run_residual(r, B, X, &R));
  GCOO_GOTO(gcoo__run_apply_pc(r, &R, &U));
  GCOO_GOTO(gcoo__run_apply_A(r, &U, &W));
  {
    const gcoo_dense *x[3] = {&R, &W, &R}, *y[3] = {&U, &U, &R};
    GCOO_GOTO(vo->dots(r->ctx, 3, x, y, sums));
  }
  gcoo_dense *v[10] = {&Z, &Q, &S, &P, X, &R, &U, &W, &N, &M};
  int64_t it = 0;
  for (;;) {
    GCOO_GOTO(gcoo__run_iallreduce_begin(r, sums, 3 * k, &h));
    GCOO_GOTO(gcoo__run_apply_pc(r, &W, &M));
    GCOO_GOTO(gcoo__run_apply_A(r, &M, &N));
    GCOO_GOTO(gcoo__run_iallreduce_end(r, &h));
    for (int64_t j = 0; j < k; j++) rn[j] = sqrt(fmax(sums[2 * k + j], 0.0));
    if (gcoo__run_check(r, it, rn) == 0 || it >= r->maxit) break;
    for (int64_t j = 0; j < k; j++) {
      const double gamma = sums[j], delta = sums[k + j];
      alpha[j] = beta[j] = 0.0;
      if (r->reason[j] != GCOO_KSP_ITERATING) continue;
      const double b = it == 0 ? 0.0 : gamma / gold[j];
      const double den = it == 0 ? delta : delta - b * gamma / aold[j];
      if (!isfinite(den) || !isfinite(gamma))
        gcoo__run_stop(r, j, it + 1, GCOO_KSP_DIVERGED_NANORINF);
      else if (den <= 0.0 || gamma < 0.0)
        gcoo__run_stop(r, j, it + 1, GCOO_KSP_DIVERGED_INDEFINITE);
      else {
        beta[j] = b;
        alpha[j] = gamma / den;
        gold[j] = gamma;
        aold[j] = alpha[j];
      }
    }
    if (gcoo__run_active(r) == 0) break;
    it++;
    GCOO_GOTO(vo->pipecg_update(r->ctx, alpha, beta, v, sums));
  }
  r->iterations = it;
done:
  if (h.pending) gcoo__run_iallreduce_end(r, &h);
  for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) gcoo__block_destroy(r, blocks[i]);
  free(buf);
  return st;
}
