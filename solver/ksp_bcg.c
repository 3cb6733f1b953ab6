/* SPDX-License-Identifier: MIT */
/* solver/ksp_bcg.c: breakdown-free block conjugate gradients (O'Leary 1980; Ji and Li, BIT 2017),
 * the cg method of gcoo/ksp.h for k > 1 right-hand sides, and its device-resident forms.
 *
 *   R = B - A X;  Z = M R;  P = orth(Z)
 *   repeat
 *     Q = A P                                  one distributed multiply for the whole block
 *     alpha = (P^T Q)^{-1} P^T R               s x k, one reduction for P^T Q and P^T R
 *     X += P alpha;  R -= Q alpha
 *     stop when every ||R_j|| <= rtol ||B_j||
 *     Z = M R;  beta = -(P^T Q)^{-1} Q^T Z      one reduction for ||R_j||^2 and Q^T Z
 *     P = orth(Z + P beta)                     pivoted Cholesky-QR: dependent or converged
 *                                              directions are dropped, so s <= k shrinks
 * Blocks are row-major n_local x k in the operator's memory space; P and Q use their first s
 * columns (ld = k).
 *
 * Three ways to run it, one algorithm:
 *   - host operands: the loop below, k x k algebra on the host in double (src/smallmat.c);
 *   - device operands, k = 1 on one rank: PCG as CUDA graphs of fused kernels
 *     (pcg_on_device, kernels/solver/pcg_cuda.cu): no host round trip per iteration;
 *   - device operands otherwise: the same block iteration queued without a host round trip
 *     (bcg_on_device): the k x k steps and the convergence test run on the device, the block
 *     keeps k columns and dropped directions are zero columns of P (the width lives on the
 *     device), the host reads the state of iteration it - 2 while it queues iteration it.
 *     Iterations queued after convergence change nothing (their coefficients are zero), so the
 *     iteration count and X are those of the converged iteration. In double the search block
 *     stays implicit, P = W T (the W form, next_block): the multiply and the passes take W, the
 *     k x k steps take T into their products, and the pass P = W T is left out except where W
 *     is ill-conditioned.
 *   A monitor needs every iteration's residuals on the host: with one set on any rank, device
 *   operands take the host loop.
 * Host operands come scaled (gcoo__ksp_bcg, from the driver of solver/ksp.c: columns of B of
 * norm 1); device operands come as the caller gave them (gcoo__ksp_bcg_device), with their own
 * set-up, Jacobi diagonal and true residual. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dist_access.h"
#include "gcoo/blas.h"
#include "params.h"
#include "solver_impl.h"

/* Largest k of the device-resident block iteration: its k x k steps run in one thread block
 * (O(k^3) work there); wider blocks take the host loop. */
#define GCOO_BCG_DEVICE_MAX_K 256

typedef struct bcg {
  gcoo_dist d;
  gcoo_ctx ctx;
  gcoo_dist_op A;
  gcoo_dtype dt;
  gcoo_memspace mem;
  int64_t n, k;
  gcoo_dense R, Z, P, Q, W, dinv; /* n x k blocks (dinv: n x 1, device paths only) */
  gcoo_dense red;                 /* reduction buffer: up to 2 k^2 + k values, in mem */
  gcoo_dense coef;                /* k x k coefficients, in mem */
  double *hred, *hcoef;           /* host copies in double */
  gcoo__run *run;                 /* the solve: tolerances, states, timers */
  double t_blas;                  /* block updates and orthonormalisation */
} bcg;

/* Views of the first s columns of an n x k block, and of a contiguous a x b piece of a buffer. */
static gcoo_dense cols(const gcoo_dense *M, int64_t s) {
  gcoo_dense v = *M;
  v.ncols = s;
  v.owned = 0;
  return v;
}

static gcoo_dense piece(const gcoo_dense *buf, int64_t offset, int64_t a, int64_t b) {
  gcoo_dense v = *buf;
  v.data = (char *)buf->data + (size_t)offset * gcoo_dtype_size(buf->dtype);
  v.nrows = a;
  v.ncols = b;
  v.ld = b > 0 ? b : 1;
  v.owned = 0;
  return v;
}

static gcoo_status sync_time(bcg *s, double t0, double *acc) {
  GCOO_CALL(gcoo_ctx_synchronize(s->ctx));
  *acc += gcoo__wtime() - t0;
  return GCOO_SUCCESS;
}

/* Sum the first `count` values of the reduction buffer over ranks and bring them to the host
 * in double. */
static gcoo_status reduce(bcg *s, int64_t count) {
  double t0 = gcoo__wtime();
  GCOO_CALL(gcoo_dist_allreduce_sum(s->d, s->dt, s->red.data, count, s->mem));
  gcoo_dense all = piece(&s->red, 0, 1, count), host = all;
  void *tmp = NULL;
  if (s->mem == GCOO_MEM_DEVICE) {
    GCOO_CALL(gcoo__malloc_n(&tmp, count, gcoo_dtype_size(s->dt), "reduction copy"));
    host.data = tmp;
    host.mem = GCOO_MEM_HOST;
    gcoo_status st = gcoo_ctx_dense_copy(s->ctx, &host, &all);
    if (st < 0) {
      free(tmp);
      GCOO_CALL(st);
    }
  }
  for (int64_t i = 0; i < count; i++)
    s->hred[i] = s->dt == GCOO_FLOAT64 ? ((double *)host.data)[i] : ((float *)host.data)[i];
  free(tmp);
  s->run->out->t_reduce += gcoo__wtime() - t0;
  return GCOO_SUCCESS;
}

/* Put an a x b host double matrix into the coefficient buffer (in mem, element type dt). */
static gcoo_status upload_coef(bcg *s, const double *h, int64_t a, int64_t b, gcoo_dense *view) {
  *view = piece(&s->coef, 0, a, b);
  size_t es = gcoo_dtype_size(s->dt);
  void *tmp = NULL;
  GCOO_CALL(gcoo__malloc_n(&tmp, a * b, es, "coefficients"));
  for (int64_t i = 0; i < a * b; i++) {
    if (s->dt == GCOO_FLOAT64)
      ((double *)tmp)[i] = h[i];
    else
      ((float *)tmp)[i] = (float)h[i];
  }
  gcoo_dense src = gcoo_dense_wrap(tmp, s->dt, GCOO_ROW_MAJOR, a, b, b > 0 ? b : 1);
  gcoo_status st = gcoo_ctx_dense_copy(s->ctx, view, &src);
  free(tmp);
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}

/* Z = M R: the solver's preconditioner (host loop), or Jacobi / none on the device paths. */
static gcoo_status precondition(bcg *s) {
  if (s->mem == GCOO_MEM_HOST) return gcoo__run_apply_pc(s->run, &s->R, &s->Z);
  double t0 = gcoo__wtime();
  if (s->dinv.data)
    GCOO_CALL(gcoo_blas_dgmm(s->ctx, &s->dinv, &s->R, &s->Z));
  else
    GCOO_CALL(gcoo_ctx_dense_copy(s->ctx, &s->Z, &s->R));
  GCOO_CALL(sync_time(s, t0, &s->run->out->t_pc));
  return GCOO_SUCCESS;
}

/* P = W T, T (k x width) from the pivoted Cholesky of the Gram matrix G = W^T W (k x k, summed
 * over ranks): the new block width (0 when W vanished). */
static gcoo_status orth_from_gram(bcg *s, const double *G, double rank_tol, int64_t *width) {
  int64_t r = 0;
  GCOO_CALL(gcoo__orth_transform(s->k, G, rank_tol, s->hcoef, &r));
  if (r > 0) {
    gcoo_dense T, Pr = cols(&s->P, r);
    GCOO_CALL(upload_coef(s, s->hcoef, s->k, r, &T));
    const double t0 = gcoo__wtime();
    GCOO_CALL(gcoo_blas_gemm(s->ctx, 0, 0, 1.0, &s->W, &T, 0.0, &Pr));
    GCOO_CALL(sync_time(s, t0, &s->t_blas));
  }
  *width = r;
  return GCOO_SUCCESS;
}

/* P = orth(W): the Gram matrix W^T W reduced over ranks, then orth_from_gram. */
static gcoo_status orthonormalise(bcg *s, double rank_tol, int64_t *width) {
  gcoo_dense G = piece(&s->red, 0, s->k, s->k);
  double t0 = gcoo__wtime();
  GCOO_CALL(gcoo_blas_gemm(s->ctx, 1, 0, 1.0, &s->W, &s->W, 0.0, &G));
  GCOO_CALL(sync_time(s, t0, &s->t_blas));
  GCOO_CALL(reduce(s, s->k * s->k));
  GCOO_CALL(orth_from_gram(s, s->hred, rank_tol, width));
  return GCOO_SUCCESS;
}

/* ptq = the Cholesky factor of P^T Q (w x w, from pq) made symmetric first (rounding leaves it
 * slightly asymmetric); 0 when P^T A P is not positive definite: A is not SPD. */
static int factor_ptq(const double *pq, int64_t w, double *ptq) {
  memcpy(ptq, pq, (size_t)(w * w) * sizeof *ptq);
  for (int64_t i = 0; i < w; i++)
    for (int64_t j = 0; j < i; j++)
      ptq[i * w + j] = ptq[j * w + i] = 0.5 * (ptq[i * w + j] + ptq[j * w + i]);
  return gcoo__chol(w, ptq) >= 0;
}

static gcoo_status apply_A(bcg *s, const gcoo_dense *X, gcoo_dense *Y) {
  GCOO_CALL(gcoo__run_apply_A(s->run, X, Y));
  return GCOO_SUCCESS;
}

/* Squared column norms of an n x k block, summed over ranks, into s->hred[0..k). */
static gcoo_status colnorms2(bcg *s, const gcoo_dense *V) {
  gcoo_dense out = piece(&s->red, 0, 1, s->k);
  double t0 = gcoo__wtime();
  GCOO_CALL(gcoo_blas_coldot(s->ctx, V, V, &out));
  GCOO_CALL(sync_time(s, t0, &s->t_blas));
  GCOO_CALL(reduce(s, s->k));
  return GCOO_SUCCESS;
}

/* The residual norms relative to b2 (the squared column norms of B; 1 for the scaled system) to
 * the solve's bookkeeping. Returns the columns still active. */
static int64_t record(bcg *s, int64_t it, const double *r2, const double *b2, double *rel) {
  for (int64_t j = 0; j < s->k; j++)
    rel[j] = b2[j] > 0.0 ? sqrt(fmax(r2[j], 0.0) / b2[j]) : sqrt(fmax(r2[j], 0.0));
  return gcoo__run_check(s->run, it, rel);
}

/* Stop every active column with reason at iteration it. */
static void stop_all(bcg *s, int64_t it, gcoo_ksp_reason reason) {
  for (int64_t j = 0; j < s->k; j++) gcoo__run_stop(s->run, j, it, reason);
}

static void bcg_free(bcg *s) {
  gcoo_dense *blocks[] = {&s->R, &s->Z, &s->P, &s->Q, &s->W, &s->dinv, &s->red, &s->coef};
  for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++)
    if (blocks[i]->data) gcoo_ctx_dense_destroy(s->ctx, blocks[i]);
  free(s->hred);
  free(s->hcoef);
}

/* The workspace of n x k blocks in mem. */
static gcoo_status bcg_alloc(bcg *s) {
  const int64_t k = s->k, n = s->n;
  gcoo_dense *blocks[] = {&s->R, &s->Z, &s->P, &s->Q, &s->W};
  for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++)
    GCOO_CALL(gcoo_ctx_dense_create(s->ctx, blocks[i], s->dt, GCOO_ROW_MAJOR, n, k, s->mem));
  GCOO_CALL(
      gcoo_ctx_dense_create(s->ctx, &s->red, s->dt, GCOO_ROW_MAJOR, 1, 2 * k * k + k, s->mem));
  GCOO_CALL(gcoo_ctx_dense_create(s->ctx, &s->coef, s->dt, GCOO_ROW_MAJOR, k, k, s->mem));
  GCOO_CALL(gcoo__malloc_n((void **)&s->hred, 2 * k * k + k, sizeof(double), "reductions"));
  GCOO_CALL(gcoo__malloc_n((void **)&s->hcoef, k * k, sizeof(double), "coefficients"));
  return GCOO_SUCCESS;
}

static void bcg_init(bcg *s, gcoo__run *r) {
  memset(s, 0, sizeof *s);
  s->run = r;
  s->A = r->ksp->A;
  s->d = r->ksp->d;
  s->ctx = r->ctx;
  s->dt = r->dtype;
  s->mem = r->mem;
  s->n = r->n;
  s->k = r->k;
}

static double rank_tol_of(const bcg *s) {
  return s->run->rank_tol > 0.0 ? s->run->rank_tol : (s->dt == GCOO_FLOAT64 ? 1e-13 : 1e-5);
}

/* R = B - A X, or B when X is zero. */
static gcoo_status initial_residual(bcg *s, const gcoo_dense *B, const gcoo_dense *X) {
  const int64_t k = s->k;
  GCOO_CALL(gcoo_ctx_dense_copy(s->ctx, &s->R, B));
  if (s->run->x_zero) return GCOO_SUCCESS;
  GCOO_CALL(apply_A(s, X, &s->Q));
  gcoo_dense m1;
  double *eye = s->hcoef;
  for (int64_t i = 0; i < k * k; i++) eye[i] = (i / k == i % k) ? -1.0 : 0.0;
  GCOO_CALL(upload_coef(s, eye, k, k, &m1));
  double t0 = gcoo__wtime();
  GCOO_CALL(gcoo_blas_gemm(s->ctx, 0, 0, 1.0, &s->Q, &m1, 1.0, &s->R)); /* R = B - A X */
  GCOO_CALL(sync_time(s, t0, &s->t_blas));
  return GCOO_SUCCESS;
}

/* The block iteration synchronised with the host every iteration: host operands (the driver's
 * scaled system, b2 = 1), or device operands when a monitor asks for every residual (b2 the
 * columns' squared norms). */
static gcoo_status bcg_loop(bcg *s, const gcoo_dense *B, gcoo_dense *X, const double *b2) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo__run *run = s->run;
  const int64_t k = s->k;
  const double rank_tol = rank_tol_of(s);
  double *rel = NULL, *ptq = NULL;
  int64_t width = 0, it = 0;
  GCOO_GOTO(gcoo__malloc_n((void **)&rel, k, sizeof *rel, "norms"));
  GCOO_GOTO(gcoo__malloc_n((void **)&ptq, k * k, sizeof *ptq, "P^T A P"));
  GCOO_GOTO(initial_residual(s, B, X));
  GCOO_GOTO(colnorms2(s, &s->R));
  int64_t active = record(s, 0, s->hred, b2, rel);
  if (active > 0) {
    GCOO_GOTO(precondition(s));
    GCOO_GOTO(gcoo_ctx_dense_copy(s->ctx, &s->W, &s->Z));
    GCOO_GOTO(orthonormalise(s, rank_tol, &width));
  }
  if (run->out->min_block_rank == 0 || width < run->out->min_block_rank)
    run->out->min_block_rank = width > 0 ? width : k;
  while (active > 0 && width > 0 && it < run->maxit) {
    it++;
    if (width < run->out->min_block_rank) run->out->min_block_rank = width;
    gcoo_dense P = cols(&s->P, width), Q = cols(&s->Q, width);
    GCOO_GOTO(apply_A(s, &P, &Q));
    /* one reduction: P^T Q (s x s) and P^T R (s x k) */
    gcoo_dense g1 = piece(&s->red, 0, width, width), g2 = piece(&s->red, width * width, width, k);
    double t0 = gcoo__wtime();
    GCOO_GOTO(gcoo_blas_gemm(s->ctx, 1, 0, 1.0, &P, &Q, 0.0, &g1));
    GCOO_GOTO(gcoo_blas_gemm(s->ctx, 1, 0, 1.0, &P, &s->R, 0.0, &g2));
    GCOO_GOTO(sync_time(s, t0, &s->t_blas));
    GCOO_GOTO(reduce(s, width * width + width * k));
    if (!factor_ptq(s->hred, width, ptq)) {
      stop_all(s, it, GCOO_KSP_DIVERGED_INDEFINITE);
      break;
    }
    double *alpha = s->hred + width * width; /* s x k, solved in place */
    gcoo__chol_solve(width, ptq, k, alpha);
    gcoo_dense al;
    GCOO_GOTO(upload_coef(s, alpha, width, k, &al));
    t0 = gcoo__wtime();
    GCOO_GOTO(gcoo_blas_gemm(s->ctx, 0, 0, 1.0, &P, &al, 1.0, X));
    GCOO_GOTO(gcoo_blas_gemm(s->ctx, 0, 0, -1.0, &Q, &al, 1.0, &s->R));
    GCOO_GOTO(sync_time(s, t0, &s->t_blas));
    /* residuals and Q^T Z in one reduction */
    GCOO_GOTO(precondition(s));
    gcoo_dense nr = piece(&s->red, 0, 1, k), qz = piece(&s->red, k, width, k);
    t0 = gcoo__wtime();
    GCOO_GOTO(gcoo_blas_coldot(s->ctx, &s->R, &s->R, &nr));
    GCOO_GOTO(gcoo_blas_gemm(s->ctx, 1, 0, 1.0, &Q, &s->Z, 0.0, &qz));
    GCOO_GOTO(sync_time(s, t0, &s->t_blas));
    GCOO_GOTO(reduce(s, k + width * k));
    active = record(s, it, s->hred, b2, rel);
    if (active == 0) break;
    /* beta = -(P^T Q)^{-1} Q^T Z;  W = Z + P beta;  P = orth(W) */
    double *beta = s->hred + k;
    gcoo__chol_solve(width, ptq, k, beta);
    for (int64_t i = 0; i < width * k; i++) beta[i] = -beta[i];
    gcoo_dense be;
    GCOO_GOTO(upload_coef(s, beta, width, k, &be));
    GCOO_GOTO(gcoo_ctx_dense_copy(s->ctx, &s->W, &s->Z));
    t0 = gcoo__wtime();
    GCOO_GOTO(gcoo_blas_gemm(s->ctx, 0, 0, 1.0, &P, &be, 1.0, &s->W));
    GCOO_GOTO(sync_time(s, t0, &s->t_blas));
    GCOO_GOTO(orthonormalise(s, rank_tol, &width));
  }
  /* the search block vanished with columns short of their tolerance: no direction is left */
  if (active > 0 && width == 0) stop_all(s, it, GCOO_KSP_DIVERGED_BREAKDOWN);
  run->iterations = it;
done:
  free(rel);
  free(ptq);
  return st;
}

/* The host block iteration in three fused passes over the blocks (gcoo_vec_ops.bcg_*), for no
 * preconditioner or Jacobi (whose D^-1 R is formed inside the passes, never stored) and k <= 64:
 *   gram2      [P^T Q | P^T R]                              reduction 1
 *   update     X += P alpha, R -= Q alpha, [||R||^2 | Q^T Z]  reduction 2, the convergence test
 *   direction  W = Z + P beta, W^T W                        reduction 3, then P = W T
 * the same algebra as bcg_loop, in four passes over n x k blocks an iteration instead of eleven. */
static gcoo_status bcg_loop_fused(bcg *s, const gcoo_dense *B, gcoo_dense *X, const double *b2,
                                  const gcoo_dense *dinv) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo__run *run = s->run;
  const gcoo_vec_ops *vo = &gcoo__vec_host;
  const int64_t k = s->k;
  const double rank_tol = rank_tol_of(s);
  double *rel = NULL, *ptq = NULL, *red = NULL, *zero = NULL;
  int64_t width = 0, it = 0;
  GCOO_GOTO(gcoo__malloc_n((void **)&rel, k, sizeof *rel, "norms"));
  GCOO_GOTO(gcoo__malloc_n((void **)&ptq, k * k, sizeof *ptq, "P^T A P"));
  GCOO_GOTO(gcoo__malloc_n((void **)&red, 2 * k * k + k, sizeof *red, "reductions"));
  GCOO_GOTO(gcoo__calloc((void **)&zero, (size_t)(k * k), sizeof *zero, "coefficients"));
  GCOO_GOTO(initial_residual(s, B, X));
  GCOO_GOTO(colnorms2(s, &s->R));
  int64_t active = record(s, 0, s->hred, b2, rel);
  /* the first direction block W = M R (a direction pass with beta = 0) and its orthonormal P */
  if (active > 0) {
    GCOO_GOTO(vo->bcg_direction(s->ctx, 0, zero, &s->P, &s->R, dinv, &s->W, red));
    GCOO_GOTO(gcoo__run_allreduce(run, red, k * k));
    GCOO_GOTO(orth_from_gram(s, red, rank_tol, &width));
  }
  run->out->min_block_rank = width > 0 ? width : k;
  while (active > 0 && width > 0 && it < run->maxit) {
    it++;
    if (width < run->out->min_block_rank) run->out->min_block_rank = width;
    gcoo_dense P = cols(&s->P, width), Q = cols(&s->Q, width);
    GCOO_GOTO(apply_A(s, &P, &Q));
    double t0 = gcoo__wtime();
    GCOO_GOTO(vo->bcg_gram2(s->ctx, width, &s->P, &s->Q, &s->R, red));
    s->t_blas += gcoo__wtime() - t0;
    GCOO_GOTO(gcoo__run_allreduce(run, red, width * width + width * k));
    if (!factor_ptq(red, width, ptq)) {
      stop_all(s, it, GCOO_KSP_DIVERGED_INDEFINITE);
      break;
    }
    double *alpha = red + width * width; /* s x k, solved in place */
    gcoo__chol_solve(width, ptq, k, alpha);
    memcpy(s->hcoef, alpha, (size_t)(width * k) * sizeof *alpha);
    t0 = gcoo__wtime();
    GCOO_GOTO(vo->bcg_update(s->ctx, width, s->hcoef, &s->P, &s->Q, X, &s->R, dinv, NULL, red));
    s->t_blas += gcoo__wtime() - t0;
    GCOO_GOTO(gcoo__run_allreduce(run, red, k + width * k));
    active = record(s, it, red, b2, rel);
    if (active == 0) break;
    /* beta = -(P^T Q)^{-1} Q^T Z;  W = Z + P beta;  P = orth(W) */
    double *beta = red + k;
    gcoo__chol_solve(width, ptq, k, beta);
    for (int64_t i = 0; i < width * k; i++) beta[i] = -beta[i];
    memcpy(s->hcoef, beta, (size_t)(width * k) * sizeof *beta);
    t0 = gcoo__wtime();
    GCOO_GOTO(vo->bcg_direction(s->ctx, width, s->hcoef, &s->P, &s->R, dinv, &s->W, red));
    s->t_blas += gcoo__wtime() - t0;
    GCOO_GOTO(gcoo__run_allreduce(run, red, k * k));
    GCOO_GOTO(orth_from_gram(s, red, rank_tol, &width));
  }
  if (active > 0 && width == 0) stop_all(s, it, GCOO_KSP_DIVERGED_BREAKDOWN);
  run->iterations = it;
done:
  free(rel);
  free(ptq);
  free(red);
  free(zero);
  return st;
}

gcoo_status gcoo__ksp_bcg(gcoo__run *r, const gcoo_dense *B, gcoo_dense *X) {
  gcoo_status st = GCOO_SUCCESS;
  bcg s;
  double *b2 = NULL;
  bcg_init(&s, r);
  GCOO_GOTO(bcg_alloc(&s));
  GCOO_GOTO(gcoo__malloc_n((void **)&b2, r->k, sizeof *b2, "norms"));
  /* the driver's scaled system has columns of norm 1 up to rounding; relative to their own
   * computed norms, a zero initial guess reads exactly 1 */
  GCOO_GOTO(colnorms2(&s, B));
  memcpy(b2, s.hred, (size_t)r->k * sizeof *b2);
  {
    const gcoo_pc_type pt = r->ksp->pc->type;
    if (r->k <= 64 && (pt == GCOO_PC_NONE || pt == GCOO_PC_JACOBI))
      GCOO_GOTO(bcg_loop_fused(&s, B, X, b2, gcoo__pc_jacobi_dinv(r->ksp->pc)));
    else
      GCOO_GOTO(bcg_loop(&s, B, X, b2));
  }
done:
  if (r->bcg) r->bcg->t_blas += s.t_blas;
  free(b2);
  bcg_free(&s);
  return st;
}

/* ---- device-resident paths ------------------------------------------------------------------ */

/* What the device paths take from the solver's options. */
typedef struct dev_opts {
  double rtol;
  int64_t maxit;
  int jacobi;                 /* Jacobi, else no preconditioner */
  double *history;            /* (maxit + 1) x k residuals, or NULL */
  int64_t *column_iterations; /* k: iteration at which each column met rtol (-1: never) */
  gcoo_bcg_stats *stats;      /* explicit blocks, the product's choice */
} dev_opts;

/* dinv = 1 / diag(A) for this rank's rows, from the local block's device CSR (no host copy of the
 * matrix). A zero or non-finite diagonal makes Jacobi meaningless and a non-positive one makes
 * CG's preconditioner indefinite: refuse it, naming the row. */
static gcoo_status inverse_diagonal_device(bcg *s, int64_t row0) {
  const gcoo_solver_ops *sv;
  int64_t bad = -1;
  double v = 0.0;
  GCOO_CALL(gcoo__ctx_solver(s->ctx, &sv));
  if (s->n > 0) GCOO_CALL(sv->inverse_diagonal(gcoo__dist_op_local(s->A), s->dinv.data, &bad, &v));
  GCOO_CHECK(bad < 0, GCOO_ERR_INVALID_ARG,
             "Jacobi needs a positive diagonal: A(%lld, %lld) = %g (an SPD matrix has a "
             "positive diagonal; use --pc none or a shift)",
             (long long)(row0 + bad), (long long)(row0 + bad), v);
  return GCOO_SUCCESS;
}

/* The product inside the iterations. AUTO picks the local product from the matrix's shape and
 * reuse statistics, which can miss for a given operator and width (3-D Poisson 7-point, 10^6
 * rows, k = 32, float64 on an H200: the tuned GCOO kernel 0.39 ms, the cuSPARSE CSR ALG3 AUTO
 * chose 0.80 ms). A solve makes hundreds of products of one width, so measuring once pays: when
 * the local operator was made with AUTO and chose another kernel, the tuned GCOO operator of the
 * same block is built and both are timed on an n x k block (a warm-up, then the median of 3,
 * synchronised); the faster serves the iterations. Each rank decides for its own block (no
 * collective depends on it). */
static gcoo_status timed_apply(bcg *s, gcoo_op op, const gcoo_dense *X, gcoo_dense *Y,
                               double *sec) {
  double t[3];
  GCOO_CALL(gcoo_op_apply(op, 1.0, X, 0.0, Y)); /* warm-up: plans, kernels loaded */
  GCOO_CALL(gcoo_ctx_synchronize(s->ctx));
  for (int r = 0; r < 3; r++) {
    double t0 = gcoo__wtime();
    GCOO_CALL(gcoo_op_apply(op, 1.0, X, 0.0, Y));
    GCOO_CALL(gcoo_ctx_synchronize(s->ctx));
    t[r] = gcoo__wtime() - t0;
  }
  double lo = fmin(t[0], fmin(t[1], t[2])), hi = fmax(t[0], fmax(t[1], t[2]));
  *sec = t[0] + t[1] + t[2] - lo - hi;
  return GCOO_SUCCESS;
}

static gcoo_status choose_spmm(bcg *s, const gcoo_dense *B, gcoo_bcg_stats *stats,
                               gcoo_op *faster) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_op local = gcoo__dist_op_local(s->A), cand = NULL;
  gcoo_op_info li;
  *faster = NULL;
  if (!local) return GCOO_SUCCESS;
  GCOO_CALL(gcoo_op_get_info(local, &li));
  stats->spmm_alg = li.alg;
  if (local->opts.alg != GCOO_ALG_AUTO || li.alg == GCOO_ALG_GCOO || !local->A_csr ||
      local->opts.reading != GCOO_SPARSE_DENSE || s->n == 0)
    return GCOO_SUCCESS;
  gcoo_op_options oo = local->opts;
  oo.alg = GCOO_ALG_GCOO;
  oo.p = 0;
  oo.ncols_hint = s->k;
  if (gcoo_op_create(&cand, s->ctx, local->A_csr, &oo) < 0) {
    gcoo_op_destroy(&cand); /* no tuned kernel for this block: AUTO's choice stays */
    return GCOO_SUCCESS;
  }
  double t_auto = 0, t_gcoo = 0;
  GCOO_GOTO(timed_apply(s, local, B, &s->Q, &t_auto));
  GCOO_GOTO(timed_apply(s, cand, B, &s->Q, &t_gcoo));
  if (t_gcoo < t_auto) {
    *faster = cand;
    cand = NULL;
    stats->spmm_alg = GCOO_ALG_GCOO;
  }
done:
  gcoo_op_destroy(&cand);
  return st;
}

static gcoo_status apply_A_queued(bcg *s, const gcoo_dense *X, gcoo_dense *Y) {
  GCOO_CALL(gcoo_dist_op_apply(s->A, 1.0, X, 0.0, Y));
  s->run->out->spmm_calls++;
  return GCOO_SUCCESS;
}

/* k = 1 on one rank: PCG in fused kernels replayed as CUDA graphs (kernels/solver/pcg_cuda.cu). B and
 * X may be strided columns of wider blocks: they go through contiguous copies then. */
static gcoo_status pcg_on_device(bcg *s, const dev_opts *o, const gcoo_dense *B, gcoo_dense *X,
                                 int *converged, int64_t *iterations) {
  const gcoo_solver_ops *sv;
  gcoo__pcg_device p;
  GCOO_CALL(gcoo__ctx_solver(s->ctx, &sv));
  memset(&p, 0, sizeof p);
  const int strided = B->ld != 1 || X->ld != 1;
  gcoo_dense Bc = *B, Xc = *X;
  if (strided) { /* R and W are contiguous n x 1 work blocks, free until the true residual */
    Bc = s->R;
    Xc = s->W;
    GCOO_CALL(gcoo_ctx_dense_copy(s->ctx, &Bc, B));
    GCOO_CALL(gcoo_ctx_dense_copy(s->ctx, &Xc, X));
  }
  p.A = gcoo__dist_op_local(s->A);
  p.dtype = s->dt;
  p.n = s->n;
  p.b = Bc.data;
  p.x = Xc.data;
  p.dinv = o->jacobi ? s->dinv.data : NULL;
  p.rtol = o->rtol;
  p.maxit = o->maxit;
  p.history = o->history;
  GCOO_CALL(sv->pcg(s->ctx, &p));
  if (strided) GCOO_CALL(gcoo_ctx_dense_copy(s->ctx, X, &Xc));
  GCOO_CHECK(!p.breakdown, GCOO_ERR_BREAKDOWN,
             "p^T A p <= 0 at iteration %lld: the matrix is not positive definite (is the "
             "operator SPD?)",
             (long long)(p.iterations + 1));
  gcoo_ksp_result *r = s->run->out;
  s->run->res[0] = p.residual;
  r->min_block_rank = 1;
  r->spmm_calls += 1 + p.iterations; /* r = b - A x in the set-up, one per iteration */
  /* a graph's kernels cannot be timed one by one: iteration 2's kernels (plain launches, CUDA
   * events between them; iteration 1 pays for loading the kernels) times the iteration count */
  r->t_spmm += p.t_spmm * (double)p.iterations;
  s->t_blas += (p.t_update + p.t_direction) * (double)p.iterations;
  *converged = p.converged;
  *iterations = p.iterations;
  return GCOO_SUCCESS;
}

static gcoo_status sum_over_ranks(bcg *s, void *buf, int64_t count) {
  if (gcoo_dist_size(s->d) == 1) return GCOO_SUCCESS;
  GCOO_CALL(gcoo_dist_allreduce_sum(s->d, s->dt, buf, count, s->mem));
  return GCOO_SUCCESS;
}

/* The next search block after the ORTH step: P = W T (a GEMM), or in the W form
 * (the solver table's bcg_wform) W itself, with P = W T implicit in the k x k steps (made explicit in
 * place only where W is ill-conditioned): one pass less an iteration. The two blocks then trade
 * buffers, so that s->P is the search block either way. */
static gcoo_status next_block(bcg *s, const gcoo_solver_ops *sv, gcoo__bcg_device *h, int wform,
                              const gcoo_dense *T) {
  if (!wform) return gcoo_blas_gemm(s->ctx, 0, 0, 1.0, &s->W, T, 0.0, &s->P);
  GCOO_CALL(sv->bcg_transform(h, &s->W));
  const gcoo_dense t = s->P;
  s->P = s->W;
  s->W = t;
  return GCOO_SUCCESS;
}

/* The block iteration with device operands: everything queued, nothing waited for but the
 * snapshot of iteration it - 2. */
static gcoo_status bcg_on_device(bcg *s, const dev_opts *o, const gcoo_dense *B, gcoo_dense *X,
                                 double rank_tol, int *converged, int64_t *iterations) {
  gcoo_status st = GCOO_SUCCESS;
  const gcoo_solver_ops *sv;
  gcoo__bcg_device *h = NULL;
  const int64_t k = s->k;
  gcoo_ksp_result *res = s->run->out;
  GCOO_CALL(gcoo__ctx_solver(s->ctx, &sv));
  GCOO_CALL(
      sv->bcg_create(s->ctx, s->dt, s->n, k, o->rtol, rank_tol, o->maxit, o->history != NULL, &h));
  gcoo_dense red = gcoo_dense_wrap(sv->bcg_red(h), s->dt, GCOO_ROW_MAJOR, 1, 2 * k * k + k, 0);
  red.mem = GCOO_MEM_DEVICE;
  gcoo_dense cf[3];
  for (int i = 0; i < 3; i++) {
    cf[i] = gcoo_dense_wrap(sv->bcg_coef(h, i), s->dt, GCOO_ROW_MAJOR, k, k, 0);
    cf[i].mem = GCOO_MEM_DEVICE;
  }
  gcoo_dense g_kk = piece(&red, 0, k, k), g_kk2 = piece(&red, k * k, k, k),
             g_k = piece(&red, 0, 1, k);
  gcoo_dense g_qz = piece(&red, k, k, k);
  const gcoo_dense *dinv = o->jacobi ? &s->dinv : NULL;
  void *rbuf = red.data;
  int done = 0;
  /* the fused passes where they exist and win (the solver table's bcg_fused); GCOO_BCG_FUSED=0 or 1
   * forces the GEMM path or the fused one where it exists, for comparisons */
  const char *fz = gcoo__param_str(GCOO__P_BCG_FUSED);
  const int can = sv->bcg_fused(h);
  const int fused = !strcmp(fz, "0") ? 0 : !strcmp(fz, "1") ? can != 0 : can == 1;
  const int wform = sv->bcg_wform(h);

  /* ||B_j||^2; R = B - A X; W = M R with ||R_j||^2; P = orth(W) */
  GCOO_GOTO(gcoo_blas_coldot(s->ctx, B, B, &g_k));
  GCOO_GOTO(sum_over_ranks(s, rbuf, k));
  GCOO_GOTO(sv->bcg_step(h, GCOO__BCG_STORE_B2));
  GCOO_GOTO(gcoo_ctx_dense_copy(s->ctx, &s->R, B));
  GCOO_GOTO(apply_A_queued(s, X, &s->Q));
  {
    double *eye = s->hcoef;
    gcoo_dense m1;
    for (int64_t i = 0; i < k * k; i++) eye[i] = (i / k == i % k) ? -1.0 : 0.0;
    GCOO_GOTO(upload_coef(s, eye, k, k, &m1));
    GCOO_GOTO(gcoo_blas_gemm(s->ctx, 0, 0, 1.0, &s->Q, &m1, 1.0, &s->R));
  }
  GCOO_GOTO(sv->bcg_precond_norms(h, dinv, &s->R, &s->W));
  GCOO_GOTO(sum_over_ranks(s, rbuf, k));
  GCOO_GOTO(sv->bcg_step(h, GCOO__BCG_CHECK0));
  GCOO_GOTO(gcoo_blas_gemm(s->ctx, 1, 0, 1.0, &s->W, &s->W, 0.0, &g_kk));
  GCOO_GOTO(sum_over_ranks(s, rbuf, k * k));
  GCOO_GOTO(sv->bcg_step(h, GCOO__BCG_ORTH));
  GCOO_GOTO(next_block(s, sv, h, wform, &cf[2]));
  GCOO_GOTO(sv->bcg_post(h, 0));
  GCOO_GOTO(sv->bcg_wait(h, 0, &done));

  const double t_start = gcoo__wtime();
  int64_t it = 0;
  while (!done && it < o->maxit) {
    it++;
    GCOO_GOTO(sv->bcg_mark(h, it, -1));
    GCOO_GOTO(apply_A_queued(s, &s->P, &s->Q));
    GCOO_GOTO(sv->bcg_mark(h, it, GCOO__BCG_SPMM));
    /* alpha = (P^T Q)^{-1} P^T R */
    if (fused) {
      GCOO_GOTO(sv->bcg_gram2(h, &s->P, &s->Q, &s->R));
    } else {
      GCOO_GOTO(gcoo_blas_gemm(s->ctx, 1, 0, 1.0, &s->P, &s->Q, 0.0, &g_kk));
      GCOO_GOTO(gcoo_blas_gemm(s->ctx, 1, 0, 1.0, &s->P, &s->R, 0.0, &g_kk2));
    }
    GCOO_GOTO(sv->bcg_mark(h, it, GCOO__BCG_BLAS));
    GCOO_GOTO(sum_over_ranks(s, rbuf, 2 * k * k));
    GCOO_GOTO(sv->bcg_step(h, GCOO__BCG_ALPHA));
    GCOO_GOTO(sv->bcg_mark(h, it, GCOO__BCG_REDUCE));
    /* X += P alpha;  R -= Q alpha;  W = M R and ||R_j||^2;  Q^T W (fused: one pass) */
    if (fused) {
      GCOO_GOTO(sv->bcg_update(h, &s->P, &s->Q, X, &s->R, dinv, &s->W));
    } else {
      GCOO_GOTO(gcoo_blas_gemm(s->ctx, 0, 0, 1.0, &s->P, &cf[0], 1.0, X));
      GCOO_GOTO(gcoo_blas_gemm(s->ctx, 0, 0, -1.0, &s->Q, &cf[0], 1.0, &s->R));
      GCOO_GOTO(sv->bcg_mark(h, it, GCOO__BCG_BLAS));
      GCOO_GOTO(sv->bcg_precond_norms(h, dinv, &s->R, &s->W));
      GCOO_GOTO(sv->bcg_mark(h, it, GCOO__BCG_PRECOND));
      GCOO_GOTO(gcoo_blas_gemm(s->ctx, 1, 0, 1.0, &s->Q, &s->W, 0.0, &g_qz));
    }
    GCOO_GOTO(sv->bcg_mark(h, it, GCOO__BCG_BLAS));
    /* convergence on the device; beta = -(P^T Q)^{-1} Q^T Z */
    GCOO_GOTO(sum_over_ranks(s, rbuf, k + k * k));
    GCOO_GOTO(sv->bcg_step(h, GCOO__BCG_CHECK));
    GCOO_GOTO(sv->bcg_mark(h, it, GCOO__BCG_REDUCE));
    /* W = Z + P beta (Z is in W);  P = orth(W) */
    if (fused) {
      GCOO_GOTO(sv->bcg_direction(h, &s->P, &s->W));
    } else {
      GCOO_GOTO(gcoo_blas_gemm(s->ctx, 0, 0, 1.0, &s->P, &cf[1], 1.0, &s->W));
      GCOO_GOTO(gcoo_blas_gemm(s->ctx, 1, 0, 1.0, &s->W, &s->W, 0.0, &g_kk));
    }
    GCOO_GOTO(sv->bcg_mark(h, it, GCOO__BCG_BLAS));
    GCOO_GOTO(sum_over_ranks(s, rbuf, k * k));
    GCOO_GOTO(sv->bcg_step(h, GCOO__BCG_ORTH));
    GCOO_GOTO(sv->bcg_mark(h, it, GCOO__BCG_REDUCE));
    GCOO_GOTO(next_block(s, sv, h, wform, &cf[2]));
    GCOO_GOTO(sv->bcg_mark(h, it, GCOO__BCG_BLAS));
    GCOO_GOTO(sv->bcg_post(h, it));
    if (it >= 2) GCOO_GOTO(sv->bcg_wait(h, it - 2, &done));
  }
  {
    gcoo__bcg_outcome out;
    memset(&out, 0, sizeof out);
    out.column_iterations = o->column_iterations;
    out.residual = s->run->res;
    out.history = o->history;
    GCOO_GOTO(sv->bcg_result(h, &out));
    (void)t_start;
    GCOO_CHECK_GOTO(!out.breakdown, GCOO_ERR_BREAKDOWN,
                    "Cholesky pivot of P^T A P is %g at iteration %lld: the matrix is not positive "
                    "definite (is the operator SPD?)",
                    out.bad_pivot, (long long)(out.iterations + 1));
    *converged = out.converged;
    *iterations = out.iterations;
    res->min_block_rank = out.min_rank;
    o->stats->explicit_blocks = out.explicit_blocks;
    res->t_spmm += out.phase_seconds[GCOO__BCG_SPMM];
    res->t_reduce += out.phase_seconds[GCOO__BCG_REDUCE];
    s->t_blas += out.phase_seconds[GCOO__BCG_BLAS];
    res->t_pc += out.phase_seconds[GCOO__BCG_PRECOND];
  }
done:
  sv->bcg_destroy(h);
  return st;
}

/* R = B - A X with the block operations (device operands), and its squared column norms in
 * s->hred. */
static gcoo_status true_residual_device(bcg *s, const gcoo_dense *B, const gcoo_dense *X) {
  const int64_t k = s->k;
  GCOO_CALL(apply_A_queued(s, X, &s->Q));
  GCOO_CALL(gcoo_ctx_dense_copy(s->ctx, &s->R, B));
  gcoo_dense m1 = piece(&s->coef, 0, k, k);
  double *eye = s->hcoef;
  for (int64_t i = 0; i < k * k; i++) eye[i] = (i / k == i % k) ? -1.0 : 0.0;
  GCOO_CALL(upload_coef(s, eye, k, k, &m1));
  GCOO_CALL(gcoo_blas_gemm(s->ctx, 0, 0, 1.0, &s->Q, &m1, 1.0, &s->R));
  GCOO_CALL(colnorms2(s, &s->R));
  return GCOO_SUCCESS;
}

/* X = 0 on the device, from a zero host block (exact: no arithmetic touches NaN poison). */
static gcoo_status zero_device(bcg *s, gcoo_dense *X) {
  void *z = NULL;
  GCOO_CALL(gcoo__calloc(&z, (size_t)(X->nrows > 0 ? X->nrows : 1) * (size_t)X->ncols,
                         gcoo_dtype_size(X->dtype), "zero block"));
  gcoo_dense h = gcoo_dense_wrap(z, X->dtype, GCOO_ROW_MAJOR, X->nrows, X->ncols, 0);
  if (h.ld < 1) h.ld = 1;
  gcoo_status st = gcoo_ctx_dense_copy(s->ctx, X, &h);
  free(z);
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}

gcoo_status gcoo__ksp_bcg_device(gcoo__run *r, const gcoo_dense *B, gcoo_dense *X) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_ksp ksp = r->ksp;
  const int64_t k = r->k;
  bcg s;
  gcoo_bcg_stats own = {0}, *stats = r->bcg ? r->bcg : &own;
  double *b2 = NULL;
  int64_t *colit = NULL;
  bcg_init(&s, r);
  gcoo_status local = GCOO_SUCCESS;
  if (ksp->o.type != GCOO_KSP_CG)
    local = GCOO_ERROR(GCOO_ERR_UNSUPPORTED,
                       "%s on device operands is not available yet: use host operands (the CPU "
                       "backend) or the cg method",
                       gcoo_ksp_type_name(ksp->o.type));
  else if (ksp->pc->type != GCOO_PC_NONE && ksp->pc->type != GCOO_PC_JACOBI)
    local = GCOO_ERROR(GCOO_ERR_UNSUPPORTED,
                       "the %s preconditioner on device operands is not available yet: use host "
                       "operands (the CPU backend), or jacobi or none",
                       gcoo_pc_type_name(ksp->pc->type));
  else if (ksp->o.atol > 0.0)
    local = GCOO_ERROR(GCOO_ERR_UNSUPPORTED,
                       "an absolute tolerance on device operands is not available yet (rtol only)");
  if (local >= 0) local = bcg_alloc(&s);
  if (local >= 0 && ksp->pc->type == GCOO_PC_JACOBI)
    local = gcoo_ctx_dense_create(s.ctx, &s.dinv, s.dt, GCOO_ROW_MAJOR, s.n, 1, s.mem);
  if (local >= 0 && ksp->pc->type == GCOO_PC_JACOBI) {
    int64_t row0 = 0, nl = 0;
    local = gcoo_dist_op_get_row_range(s.A, &row0, &nl);
    if (local >= 0) local = inverse_diagonal_device(&s, row0);
  }
  if (local >= 0) local = gcoo__malloc_n((void **)&b2, k, sizeof *b2, "norms");
  if (local >= 0) local = gcoo__malloc_n((void **)&colit, k, sizeof *colit, "iterations");
  if (local >= 0 && !ksp->o.initial_guess_nonzero) local = zero_device(&s, X);
  GCOO_GOTO(gcoo_dist_agree(s.d, local));
  GCOO_GOTO(gcoo__dist_op_reserve(s.A, k, s.mem));
  for (int64_t j = 0; j < k; j++) colit[j] = -1;
  GCOO_GOTO(colnorms2(&s, B));
  memcpy(b2, s.hred, (size_t)k * sizeof *b2);
  for (int64_t j = 0; j < k; j++)
    GCOO_CHECK_GOTO(isfinite(b2[j]), GCOO_ERR_NOT_FINITE,
                    "column %lld of B has a NaN or an infinity", (long long)j);
  r->out->min_block_rank = k;
  {
    gcoo_op_info li;
    if (gcoo__dist_op_local(s.A) && gcoo_op_get_info(gcoo__dist_op_local(s.A), &li) >= 0)
      stats->spmm_alg = li.alg;
  }
  const double t0 = gcoo__wtime();
  /* Device operands take a device-resident path, unless a monitor wants every iteration's
   * residuals on the host (the host-synchronised loop serves it). Agreed over ranks: the paths
   * differ in their collectives. */
  int device_ok = !ksp->o.monitor && k <= GCOO_BCG_DEVICE_MAX_K &&
                  (!ksp->o.record_history || r->history_cap >= ksp->o.maxit + 1);
  int all_ok = device_ok;
  GCOO_GOTO(GCOO_MPI(MPI_Allreduce(&device_ok, &all_ok, 1, MPI_INT, MPI_MIN, gcoo_dist_comm(s.d))));
  int converged = 0;
  int64_t it = 0;
  if (all_ok) {
    const int pcg = k == 1 && gcoo_dist_size(s.d) == 1 && !gcoo__dist_op_has_halo(s.A) &&
                    gcoo__dist_op_local(s.A);
    dev_opts o = {ksp->o.rtol, ksp->o.maxit, ksp->pc->type == GCOO_PC_JACOBI,
                  r->history,  colit,        stats};
    gcoo_op faster = NULL, own_local = gcoo__dist_op_local(s.A);
    local = pcg ? GCOO_SUCCESS : choose_spmm(&s, B, stats, &faster);
    if (faster) gcoo__dist_op_swap_local(s.A, faster); /* for this solve's products only */
    if (local >= 0)
      local = pcg ? pcg_on_device(&s, &o, B, X, &converged, &it)
                  : bcg_on_device(&s, &o, B, X, rank_tol_of(&s), &converged, &it);
    if (faster) gcoo__dist_op_swap_local(s.A, own_local);
    gcoo_op_destroy(&faster);
    GCOO_GOTO(gcoo_dist_agree(s.d, local));
    if (pcg) colit[0] = converged ? it : -1;
    for (int64_t j = 0; j < k; j++) {
      r->reason[j] = colit[j] >= 0 ? GCOO_KSP_CONVERGED_RTOL : GCOO_KSP_DIVERGED_ITS;
      r->its[j] = colit[j] >= 0 ? colit[j] : it;
    }
    if (r->history) r->history_len = it + 1;
  } else {
    r->tol = NULL;
    double *tol = NULL;
    GCOO_GOTO(gcoo__malloc_n((void **)&tol, k, sizeof *tol, "tolerances"));
    for (int64_t j = 0; j < k; j++) tol[j] = ksp->o.rtol;
    r->tol = tol;
    r->dtol = ksp->o.dtol;
    r->maxit = ksp->o.maxit;
    r->x_zero = !ksp->o.initial_guess_nonzero;
    for (int64_t j = 0; j < k; j++) r->reason[j] = GCOO_KSP_ITERATING;
    st = bcg_loop(&s, B, X, b2);
    free(tol);
    r->tol = NULL;
    GCOO_GOTO(st);
    it = r->iterations;
    for (int64_t j = 0; j < k; j++) gcoo__run_stop(r, j, it, GCOO_KSP_DIVERGED_ITS);
  }
  GCOO_GOTO(true_residual_device(&s, B, X));
  for (int64_t j = 0; j < k; j++) {
    const double rel = b2[j] > 0.0 ? sqrt(fmax(s.hred[j], 0.0) / b2[j]) : 0.0;
    r->out->true_residual[j] = rel;
    r->out->residual[j] = r->res[j];
    r->out->column_reason[j] = b2[j] > 0.0 ? r->reason[j] : GCOO_KSP_CONVERGED_ATOL;
    r->out->column_iterations[j] = r->its[j];
  }
  r->out->t_solve = gcoo__wtime() - t0;
done:
  stats->t_blas += s.t_blas;
  free(b2);
  free(colit);
  bcg_free(&s);
  return st;
}
