/* SPDX-License-Identifier: MIT */
/* solver/amg/amg_cycle.c: one application of the AMG preconditioner, Z = M^-1 R, on n x k
 * blocks: a V-cycle (or W-cycle) from a zero initial guess on every level, so that M^-1 is a
 * fixed linear operator (CG needs one), symmetric when A is: the pre- and post-smoother are the
 * same polynomial in D^-1 A.
 *
 * Smoothers are polynomials p(D^-1 A) D^-1 applied by their three-term recurrence, each step
 * one product W = A D (the level operator's SpMM on k columns) and one fused pass
 * (gcoo_vec_ops.smooth_step: R -= W, D = a D + b D^-1 R, X += D). Chebyshev (Saad, Iterative
 * Methods, Alg. 12.1) on [lower, upper] x rho(D^-1 A) damps the upper part of the spectrum;
 * l1-Jacobi is the degree-1 step with D the l1 row norms. The residual is carried along, so a
 * degree-d sweep costs d products with the residual for the restriction included (d - 1 from
 * a zero guess before it). Workspace is made at set-up for one column and grown once for wider
 * blocks; an application allocates nothing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amg_impl.h"

static void free_block(gcoo_dense *X) {
  free(X->data);
  memset(X, 0, sizeof *X);
}

void gcoo__amg_workspace_free(amg *H) {
  for (int l = 0; l < H->nlevels; l++) {
    amg_level *L = &H->level[l];
    free_block(&L->X);
    free_block(&L->B);
    free_block(&L->Res);
    free_block(&L->D);
    free_block(&L->W);
  }
  H->kcap = 0;
}

static gcoo_status make_block(amg *H, int64_t n, int64_t k, gcoo_dense *X) {
  void *p = NULL;
  free_block(X);
  GCOO_CALL(gcoo__malloc_n(&p, n * k + 1, gcoo_dtype_size(H->dtype), "AMG workspace"));
  memset(p, 0, (size_t)(n * k + 1) * gcoo_dtype_size(H->dtype));
  *X = gcoo_dense_wrap(p, H->dtype, GCOO_ROW_MAJOR, n, k, k);
  return GCOO_SUCCESS;
}

gcoo_status gcoo__amg_reserve(amg *H, int64_t k) {
  gcoo_status st = GCOO_SUCCESS;
  if (k <= H->kcap) return GCOO_SUCCESS;
  for (int l = 0; l < H->nlevels && st >= 0; l++) {
    amg_level *L = &H->level[l];
    gcoo_dense *blocks[5] = {&L->X, &L->B, &L->Res, &L->D, &L->W};
    for (int b = 0; b < 5 && st >= 0; b++)
      if (l > 0 || b >= 2) st = make_block(H, L->n, k, blocks[b]);
  }
  amg_coarse *C = &H->coarse;
  free(C->rhs);
  free(C->buf);
  C->rhs = C->buf = NULL;
  if (st >= 0) st = gcoo__malloc_n((void **)&C->rhs, C->n * k + 1, sizeof(double), "AMG coarse");
  if (st >= 0) st = gcoo__malloc_n((void **)&C->buf, C->n * k + 1, sizeof(double), "AMG coarse");
  GCOO_CALL(gcoo_dist_agree(H->d, st));
  for (int l = 0; l < H->nlevels; l++) {
    amg_level *L = &H->level[l];
    GCOO_CALL(gcoo__dist_op_reserve(L->Aop, k, GCOO_MEM_HOST));
    if (L->Pop) GCOO_CALL(gcoo__dist_op_reserve(L->Pop, k, GCOO_MEM_HOST));
    if (L->Rop) GCOO_CALL(gcoo__dist_op_reserve(L->Rop, k, GCOO_MEM_HOST));
  }
  H->kcap = k;
  return GCOO_SUCCESS;
}

/* The block's first k columns, contiguous (leading dimension k). */
static gcoo_dense cols(const gcoo_dense *X, int64_t k) {
  return gcoo_dense_wrap(X->data, X->dtype, GCOO_ROW_MAJOR, X->nrows, k, k);
}

/* The smoother's polynomial: steps a[j], b[j] of the recurrence D = a D + b D^-1 R. */
static int polynomial(const gcoo_amg_options *o, double rho, double *a, double *b) {
  if (o->smoother == GCOO_AMG_L1_JACOBI) {
    a[0] = 0.0;
    b[0] = 1.0;
    return 1;
  }
  const double hi = o->cheby_upper * rho, lo = o->cheby_lower * rho;
  const double theta = 0.5 * (hi + lo), delta = 0.5 * (hi - lo), sigma = theta / delta;
  double r = 1.0 / sigma;
  a[0] = 0.0;
  b[0] = 1.0 / theta;
  for (int j = 1; j < o->degree; j++) {
    const double rn = 1.0 / (2.0 * sigma - r);
    a[j] = rn * r;
    b[j] = 2.0 * rn / delta;
    r = rn;
  }
  return o->degree;
}

/* sweeps applications of the smoother to A X = B on level L (X = 0 on entry when x_zero);
 * with res (not NULL), *res = the block holding B - A X on return (B itself when nothing
 * changed X from zero). */
static gcoo_status smooth(amg *H, const gcoo_amg_options *o, amg_level *L, const gcoo_dense *B,
                          gcoo_dense *X, int x_zero, int sweeps, const gcoo_dense **res) {
  const gcoo_vec_ops *vo = &gcoo__vec_host;
  const int64_t k = B->ncols;
  if (sweeps == 0 && !res) return GCOO_SUCCESS;
  gcoo_dense *Res = &L->Res, *D = &L->D, *W = &L->W;
  *Res = cols(Res, k), *D = cols(D, k), *W = cols(W, k);
  double a[8], b[8];
  const int deg = polynomial(o, L->rho, a, b);
  if (o->smoother == GCOO_AMG_L1_JACOBI) sweeps *= o->degree;
  const gcoo_dense *S = B; /* the current residual B - A X */
  if (!x_zero) {
    GCOO_CALL(gcoo__dist_op_apply_checked(L->Aop, 1.0, X, 0.0, W));
    GCOO_CALL(vo->smooth_step(H->ctx, 0.0, 0.0, &L->dinv, B, W, Res, NULL, NULL, 0));
    S = Res;
  }
  for (int s = 0; s < sweeps; s++)
    for (int j = 0; j < deg; j++) {
      if (j == 0 && s == 0) {
        GCOO_CALL(vo->smooth_step(H->ctx, 0.0, b[0], &L->dinv, S, NULL, NULL, D, X, x_zero));
        continue;
      }
      GCOO_CALL(gcoo__dist_op_apply_checked(L->Aop, 1.0, D, 0.0, W));
      if (j == 0) { /* a new sweep: the residual first, then a fresh recurrence */
        GCOO_CALL(vo->smooth_step(H->ctx, 0.0, 0.0, &L->dinv, S, W, Res, NULL, NULL, 0));
        S = Res;
        GCOO_CALL(vo->smooth_step(H->ctx, 0.0, b[0], &L->dinv, S, NULL, NULL, D, X, 0));
      } else {
        GCOO_CALL(vo->smooth_step(H->ctx, a[j], b[j], &L->dinv, S, W, Res, D, X, 0));
        S = Res;
      }
    }
  if (res && sweeps > 0) {
    GCOO_CALL(gcoo__dist_op_apply_checked(L->Aop, 1.0, D, 0.0, W));
    GCOO_CALL(vo->smooth_step(H->ctx, 0.0, 0.0, &L->dinv, S, W, Res, NULL, NULL, 0));
    S = Res;
  }
  if (res) *res = S;
  return GCOO_SUCCESS;
}

static gcoo_status cycle(amg *H, const gcoo_amg_options *o, int l, const gcoo_dense *B,
                         gcoo_dense *X) {
  amg_level *L = &H->level[l];
  const int64_t k = B->ncols;
  if (l == H->nlevels - 1) {
    GCOO_CALL(gcoo__amg_coarse_solve(H, L, B, X));
    return GCOO_SUCCESS;
  }
  const gcoo_vec_ops *vo = &gcoo__vec_host;
  amg_level *C = &H->level[l + 1];
  gcoo_dense Bc = cols(&C->B, k), Xc = cols(&C->X, k);
  const gcoo_dense *res = NULL;
  if (o->pre_sweeps == 0) GCOO_CALL(vo->fill(H->ctx, X, 0.0));
  GCOO_CALL(smooth(H, o, L, B, X, 1, o->pre_sweeps, &res));
  const int corrections = o->cycle == GCOO_AMG_W_CYCLE && l + 2 < H->nlevels ? 2 : 1;
  for (int c = 0; c < corrections; c++) {
    if (c > 0) { /* the residual of the corrected X */
      GCOO_CALL(gcoo__dist_op_apply_checked(L->Aop, 1.0, X, 0.0, &L->W));
      GCOO_CALL(vo->smooth_step(H->ctx, 0.0, 0.0, &L->dinv, B, &L->W, &L->Res, NULL, NULL, 0));
      res = &L->Res;
    }
    GCOO_CALL(gcoo__dist_op_apply_checked(L->Rop, 1.0, res, 0.0, &Bc));
    GCOO_CALL(cycle(H, o, l + 1, &Bc, &Xc));
    GCOO_CALL(gcoo__dist_op_apply_checked(L->Pop, 1.0, &Xc, 1.0, X));
  }
  GCOO_CALL(smooth(H, o, L, B, X, 0, o->post_sweeps, NULL));
  return GCOO_SUCCESS;
}

gcoo_status gcoo__amg_cycle_apply(amg *H, const gcoo_amg_options *o, const gcoo_dense *R,
                                  gcoo_dense *Z) {
  GCOO_CALL(gcoo__amg_reserve(H, R->ncols));
  GCOO_CALL(cycle(H, o, 0, R, Z));
  return GCOO_SUCCESS;
}
