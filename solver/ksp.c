/* SPDX-License-Identifier: MIT */
/* solver/ksp.c: the solver object of gcoo/ksp.h and the driver of a solve.
 *
 * A solve (host operands) runs every method on the scaled system: column j of B divided by its
 * norm ||b_j|| (computed without overflow or underflow), X likewise, so that every inner product
 * a method forms is of order one whatever the right-hand side's scale. The method stops each
 * column on its own recursive residual; the driver then recomputes the true residual B - A X and
 * takes a column as converged only when that meets the tolerance too. Where it does not (the
 * recursion drifted), the method is restarted from X for those columns, at most twice; a column
 * still short after that stops as DIVERGED_STAGNATION, never as converged. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dist_access.h"
#include "mpi_check.h"
#include "solver_impl.h"

/* Rows of residual history a solve keeps at most (the first iterations'). */
#define GCOO_KSP_HISTORY_MAX 1000000

/* Restarts of a method for columns whose true residual missed what the recursion promised. */
#define GCOO_KSP_MAX_ATTEMPTS 3

gcoo_status gcoo__ksp_options_check(const gcoo_ksp_options *o) {
  GCOO_CHECK((int)o->type >= GCOO_KSP_CG && o->type <= GCOO_KSP_PREONLY, GCOO_ERR_INVALID_ARG,
             "unknown method %d", (int)o->type);
  GCOO_CHECK(o->rtol >= 0.0 && o->rtol < 1.0 && isfinite(o->rtol), GCOO_ERR_INVALID_ARG,
             "rtol = %g: a relative tolerance is in [0, 1)", o->rtol);
  GCOO_CHECK(o->atol >= 0.0 && isfinite(o->atol), GCOO_ERR_INVALID_ARG,
             "atol = %g must be >= 0 and finite", o->atol);
  GCOO_CHECK(o->rtol > 0.0 || o->atol > 0.0, GCOO_ERR_INVALID_ARG,
             "rtol and atol are both 0: no residual could ever be small enough");
  GCOO_CHECK(o->dtol > 1.0, GCOO_ERR_INVALID_ARG, "dtol = %g must be > 1", o->dtol);
  GCOO_CHECK(o->maxit >= 0, GCOO_ERR_INVALID_ARG, "maxit = %lld must be >= 0", (long long)o->maxit);
  GCOO_CHECK(o->restart >= 1 && o->restart <= 1000, GCOO_ERR_INVALID_ARG,
             "restart = %d: the Krylov space's dimension is 1 .. 1000", o->restart);
  GCOO_CHECK(o->block == 0 || o->block == 1, GCOO_ERR_INVALID_ARG, "block = %d: 0 or 1", o->block);
  GCOO_CHECK(o->cgs_refinement == 0 || o->cgs_refinement == 1, GCOO_ERR_INVALID_ARG,
             "cgs_refinement = %d: 0 (where needed) or 1 (always)", o->cgs_refinement);
  return GCOO_SUCCESS;
}

gcoo_status gcoo_ksp_create(gcoo_ksp *out, gcoo_dist_op A) {
  GCOO_CHECK(out != NULL, GCOO_ERR_NULL, "solver handle is NULL");
  *out = NULL;
  gcoo_dist_op_info info;
  GCOO_CALL(gcoo_dist_op_get_info(A, &info));
  gcoo_dist d = gcoo_dist_op_get_dist(A);
  gcoo_status st = GCOO_SUCCESS;
  if (info.m_global != info.k)
    st = GCOO_ERROR(GCOO_ERR_SHAPE, "a solver needs a square operator, got %lld x %lld",
                    (long long)info.m_global, (long long)info.k);
  else if (info.xmode != GCOO_DIST_X_PARTITIONED)
    st = GCOO_ERROR(GCOO_ERR_INVALID_ARG,
                    "a solver needs an operator made with GCOO_DIST_X_PARTITIONED (X's rows split "
                    "like A's)");
  else if (info.local.reading != GCOO_SPARSE_DENSE)
    st = GCOO_ERROR(GCOO_ERR_INVALID_ARG,
                    "a solver needs an operator in the sparse x dense reading (Y = A X)");
  struct gcoo_ksp_s *ksp = NULL;
  if (st >= 0) st = gcoo__calloc((void **)&ksp, 1, sizeof *ksp, "solver");
  if (st >= 0) st = gcoo__pc_create(&ksp->pc);
  if (st < 0 && ksp) {
    free(ksp);
    ksp = NULL;
  }
  GCOO_CALL(gcoo_dist_agree(d, st));
  ksp->magic = GCOO_MAGIC_KSP;
  ksp->A = A;
  ksp->d = d;
  ksp->ctx = gcoo_dist_ctx(d);
  ksp->o = (gcoo_ksp_options)GCOO_KSP_OPTIONS_INIT;
  ksp->n = info.nrows_local;
  ksp->dtype = info.local.dtype;
  *out = ksp;
  return GCOO_SUCCESS;
}

gcoo_status gcoo_ksp_destroy(gcoo_ksp *ksp) {
  if (!ksp || !*ksp) return GCOO_SUCCESS;
  GCOO_VALID_OBJECT(*ksp, GCOO_MAGIC_KSP, "solver");
  gcoo__pc_destroy(&(*ksp)->pc);
  (*ksp)->magic = GCOO_MAGIC_FREED;
  free(*ksp);
  *ksp = NULL;
  return GCOO_SUCCESS;
}

gcoo_status gcoo_ksp_set_options(gcoo_ksp ksp, const gcoo_ksp_options *opts) {
  GCOO_VALID_OBJECT(ksp, GCOO_MAGIC_KSP, "solver");
  gcoo_ksp_options o = GCOO_KSP_OPTIONS_INIT;
  GCOO_CALL(gcoo__options_read(opts, &o, sizeof o, "GCOO_KSP_OPTIONS_INIT"));
  GCOO_CALL(gcoo__ksp_options_check(&o));
  ksp->o = o;
  return GCOO_SUCCESS;
}

gcoo_status gcoo_ksp_get_options(gcoo_ksp ksp, gcoo_ksp_options *opts) {
  GCOO_VALID_OBJECT(ksp, GCOO_MAGIC_KSP, "solver");
  GCOO_CHECK(opts != NULL, GCOO_ERR_NULL, "options is NULL");
  *opts = ksp->o;
  return GCOO_SUCCESS;
}

gcoo_status gcoo_ksp_set_type(gcoo_ksp ksp, gcoo_ksp_type type) {
  GCOO_VALID_OBJECT(ksp, GCOO_MAGIC_KSP, "solver");
  gcoo_ksp_options o = ksp->o;
  o.type = type;
  GCOO_CALL(gcoo__ksp_options_check(&o));
  ksp->o = o;
  return GCOO_SUCCESS;
}

gcoo_status gcoo_ksp_get_pc(gcoo_ksp ksp, gcoo_pc *pc) {
  GCOO_VALID_OBJECT(ksp, GCOO_MAGIC_KSP, "solver");
  GCOO_CHECK(pc != NULL, GCOO_ERR_NULL, "pc is NULL");
  *pc = ksp->pc;
  return GCOO_SUCCESS;
}

/* Every rank must run the same method with the same preconditioner: the methods' collectives
 * differ. One all-reduce of the choices (min and max) tells. */
static gcoo_status agree_choices(gcoo_ksp ksp, int64_t k) {
  int64_t v[8] = {ksp->o.type, ksp->pc->type, ksp->o.restart, ksp->o.block, k, ksp->o.maxit, 0, 0};
  int64_t mm[16];
  for (int i = 0; i < 8; i++) {
    mm[i] = -v[i];
    mm[8 + i] = v[i];
  }
  GCOO_CALL(
      GCOO_MPI(MPI_Allreduce(MPI_IN_PLACE, mm, 16, MPI_INT64_T, MPI_MAX, gcoo_dist_comm(ksp->d))));
  static const char *what[] = {"method", "preconditioner", "restart", "block", "k", "maxit"};
  for (int i = 0; i < 6; i++)
    GCOO_CHECK(-mm[i] == mm[8 + i], GCOO_ERR_INVALID_ARG,
               "the ranks passed different %s (%lld .. %lld): every rank must solve alike", what[i],
               (long long)-mm[i], (long long)mm[8 + i]);
  return GCOO_SUCCESS;
}

gcoo_status gcoo_ksp_setup(gcoo_ksp ksp) {
  GCOO_VALID_OBJECT(ksp, GCOO_MAGIC_KSP, "solver");
  const double t0 = gcoo__wtime();
  GCOO_CALL(gcoo__pc_setup(ksp->pc, ksp->A));
  ksp->setup_done = 1;
  ksp->setup_seconds = gcoo__wtime() - t0;
  return GCOO_SUCCESS;
}

gcoo_status gcoo_ksp_set_operator(gcoo_ksp ksp, gcoo_dist_op A, int same_pattern) {
  GCOO_VALID_OBJECT(ksp, GCOO_MAGIC_KSP, "solver");
  gcoo_dist_op_info info, old;
  GCOO_CALL(gcoo_dist_op_get_info(A, &info));
  GCOO_CALL(gcoo_dist_op_get_info(ksp->A, &old));
  gcoo_status st = GCOO_SUCCESS;
  if (info.m_global != old.m_global || info.k != old.k || info.nrows_local != old.nrows_local ||
      info.local.dtype != old.local.dtype || info.xmode != old.xmode ||
      gcoo_dist_op_get_dist(A) != ksp->d)
    st = GCOO_ERROR(GCOO_ERR_SHAPE,
                    "the new operator (%lld x %lld, %lld rows here) differs from the solver's "
                    "(%lld x %lld, %lld rows here) in shape, partition, type or context",
                    (long long)info.m_global, (long long)info.k, (long long)info.nrows_local,
                    (long long)old.m_global, (long long)old.k, (long long)old.nrows_local);
  GCOO_CALL(gcoo_dist_agree(ksp->d, st));
  ksp->A = A;
  ksp->setup_done = 0;
  ksp->pc->same_pattern = same_pattern != 0;
  ksp->pc->stale = 1;
  return GCOO_SUCCESS;
}

void gcoo_ksp_result_free(gcoo_ksp_result *r) {
  if (!r) return;
  free(r->column_iterations);
  free(r->column_reason);
  free(r->residual);
  free(r->true_residual);
  free(r->history);
  memset(r, 0, sizeof *r);
}

gcoo_status gcoo_ksp_describe(gcoo_ksp ksp, char *buf, size_t len) {
  GCOO_VALID_OBJECT(ksp, GCOO_MAGIC_KSP, "solver");
  GCOO_CHECK(buf != NULL && len > 0, GCOO_ERR_NULL, "buffer is NULL or empty");
  char pcd[160] = "";
  if (ksp->pc->ops->describe) ksp->pc->ops->describe(ksp->pc, pcd, sizeof pcd);
  const gcoo_ksp_type t = ksp->o.type;
  if (t == GCOO_KSP_GMRES || t == GCOO_KSP_FGMRES)
    snprintf(buf, len, "%s(%d) + %s", gcoo_ksp_type_name(t), ksp->o.restart, pcd);
  else
    snprintf(buf, len, "%s + %s", gcoo_ksp_type_name(t), pcd);
  return GCOO_SUCCESS;
}

/* ---- the solve ------------------------------------------------------------------------------ */

static gcoo_status check_operands(gcoo_ksp ksp, const gcoo_dense *B, const gcoo_dense *X) {
  GCOO_CALL(gcoo_dense_check(B));
  GCOO_CALL(gcoo_dense_check(X));
  GCOO_CHECK(B->nrows == ksp->n && X->nrows == ksp->n && B->ncols == X->ncols && B->ncols >= 1,
             GCOO_ERR_SHAPE,
             "B (%lld x %lld) and X (%lld x %lld) must be this rank's %lld rows x k",
             (long long)B->nrows, (long long)B->ncols, (long long)X->nrows, (long long)X->ncols,
             (long long)ksp->n);
  GCOO_CHECK(B->layout == GCOO_ROW_MAJOR && X->layout == GCOO_ROW_MAJOR, GCOO_ERR_INVALID_ARG,
             "B and X must be row-major (this rank's rows of n x k blocks)");
  GCOO_CHECK(B->dtype == ksp->dtype && X->dtype == ksp->dtype, GCOO_ERR_DTYPE,
             "B is %s and X %s but the operator is %s", B->dtype ? "float64" : "float32",
             X->dtype ? "float64" : "float32", ksp->dtype ? "float64" : "float32");
  GCOO_CHECK(B->mem == X->mem, GCOO_ERR_INVALID_ARG,
             "B and X must be in one memory space (both host or both device)");
  GCOO_CHECK(B->mem == GCOO_MEM_HOST || gcoo_ctx_device(ksp->ctx) >= 0, GCOO_ERR_INVALID_ARG,
             "device operands given to a solver on the %s backend", gcoo_ctx_backend(ksp->ctx));
  GCOO_CHECK(!gcoo__dense_overlap(B, X), GCOO_ERR_INVALID_ARG,
             "B and X share memory: X is written while B is read");
  return GCOO_SUCCESS;
}

static gcoo_status result_alloc(gcoo_ksp_result *r, int64_t k) {
  memset(r, 0, sizeof *r);
  r->k = k;
  r->reason_column = -1;
  GCOO_CALL(gcoo__calloc((void **)&r->column_iterations, (size_t)k, sizeof(int64_t), "result"));
  GCOO_CALL(gcoo__calloc((void **)&r->column_reason, (size_t)k, sizeof(gcoo_ksp_reason), "result"));
  GCOO_CALL(gcoo__calloc((void **)&r->residual, (size_t)k, sizeof(double), "result"));
  GCOO_CALL(gcoo__calloc((void **)&r->true_residual, (size_t)k, sizeof(double), "result"));
  return GCOO_SUCCESS;
}

/* The solve's summary from the columns' reasons. */
static void result_summarise(gcoo_ksp_result *r) {
  r->converged = 1;
  r->reason = r->k > 0 ? r->column_reason[0] : GCOO_KSP_CONVERGED_ATOL;
  r->reason_column = -1;
  r->iterations = 0;
  for (int64_t j = 0; j < r->k; j++) {
    if (r->column_iterations[j] > r->iterations) r->iterations = r->column_iterations[j];
    if (r->column_reason[j] <= 0 && r->converged) {
      r->converged = 0;
      r->reason = r->column_reason[j];
      r->reason_column = j;
    }
  }
  if (r->converged) /* every column converged: the reason of the last to do so */
    for (int64_t j = 0; j < r->k; j++)
      if (r->column_iterations[j] == r->iterations) r->reason = r->column_reason[j];
}

static gcoo__ksp_method method_of(const gcoo_ksp_options *o, int64_t k) {
  switch (o->type) {
    case GCOO_KSP_CG: return k > 1 && o->block ? gcoo__ksp_bcg : gcoo__ksp_cg;
    case GCOO_KSP_PIPECG: return gcoo__ksp_pipecg;
    case GCOO_KSP_GMRES: return gcoo__ksp_gmres;
    case GCOO_KSP_FGMRES: return gcoo__ksp_fgmres;
    case GCOO_KSP_BICGSTAB: return gcoo__ksp_bicgstab;
    default: return NULL; /* preonly: no iteration */
  }
}

/* X = s .* X per column (s[j] = 0 zeroes column j). */
static gcoo_status scale_columns(gcoo__run *r, const gcoo_vec_ops *vo, const double *s,
                                 const gcoo_dense *X, gcoo_dense *Y) {
  double *zero = NULL;
  GCOO_CALL(gcoo__calloc((void **)&zero, (size_t)r->k, sizeof *zero, "coefficients"));
  gcoo_status st = vo->axpby(r->ctx, s, X, zero, Y);
  free(zero);
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}

/* The host solve of the scaled system (see the file comment). The methods' fused passes take
 * blocks of one leading dimension: a strided X (columns of a wider block) is solved in a
 * contiguous copy. */
static gcoo_status solve_host(gcoo_ksp ksp, const gcoo_dense *B, gcoo_dense *Xuser, gcoo__run *r) {
  gcoo_status st = GCOO_SUCCESS;
  const int64_t k = r->k;
  const gcoo_vec_ops *vo = &gcoo__vec_host;
  double *bn = NULL, *inv = NULL, *tol = NULL, *tn = NULL;
  gcoo_dense Bs = {0}, R = {0}, Xc = {0}, *X = Xuser;
  gcoo_ksp_result *res = r->out;
  GCOO_GOTO(gcoo__malloc_n((void **)&bn, 4 * k, sizeof *bn, "column norms"));
  inv = bn + k;
  tol = bn + 2 * k;
  tn = bn + 3 * k;
  GCOO_GOTO(gcoo__run_norms(r, B, bn));
  for (int64_t j = 0; j < k; j++)
    GCOO_CHECK_GOTO(isfinite(bn[j]), GCOO_ERR_NOT_FINITE,
                    "column %lld of B has a NaN or an infinity (or a norm past the largest double)",
                    (long long)j);
  for (int64_t j = 0; j < k; j++) {
    inv[j] = bn[j] > 0.0 ? 1.0 / bn[j] : 0.0;
    /* in units of ||b_j||: the relative tolerance, or the absolute one if larger */
    tol[j] = bn[j] > 0.0 ? fmax(ksp->o.rtol, ksp->o.atol / bn[j]) : INFINITY;
  }
  r->tol = tol;
  r->dtol = ksp->o.dtol;
  GCOO_GOTO(gcoo__dist_op_reserve(ksp->A, k, r->mem));
  GCOO_GOTO(gcoo__block_create(r, k, &Bs));
  GCOO_GOTO(gcoo__block_create(r, k, &R));
  if (Xuser->ld != k) {
    GCOO_GOTO(gcoo__block_create(r, k, &Xc));
    X = &Xc;
  }
  GCOO_GOTO(scale_columns(r, vo, inv, B, &Bs));
  if (ksp->o.initial_guess_nonzero)
    GCOO_GOTO(scale_columns(r, vo, inv, Xuser, X));
  else
    GCOO_GOTO(vo->fill(r->ctx, X, 0.0));
  r->x_zero = !ksp->o.initial_guess_nonzero;
  for (int64_t j = 0; j < k; j++) {
    r->reason[j] = bn[j] > 0.0 ? GCOO_KSP_ITERATING : GCOO_KSP_CONVERGED_ATOL;
    r->res[j] = 0.0;
  }

  const gcoo__ksp_method method = method_of(&ksp->o, k);
  int64_t total = 0;
  const double t0 = gcoo__wtime();
  if (!method) { /* preonly: X = M^{-1} B */
    GCOO_GOTO(gcoo__run_apply_pc(r, &Bs, X));
    for (int64_t j = 0; j < k; j++) gcoo__run_stop(r, j, 0, GCOO_KSP_CONVERGED_PREONLY);
  }
  for (int attempt = 0; method && attempt < GCOO_KSP_MAX_ATTEMPTS; attempt++) {
    if (gcoo__run_active(r) == 0) break;
    r->it0 = total;
    r->maxit = ksp->o.maxit - total;
    r->iterations = 0;
    GCOO_GOTO(method(r, &Bs, X));
    total += r->iterations;
    r->x_zero = 0;
    /* the true residual of the columns the recursion called converged */
    GCOO_GOTO(gcoo__run_residual(r, &Bs, X, &R));
    GCOO_GOTO(gcoo__run_norms(r, &R, tn));
    int again = 0;
    for (int64_t j = 0; j < k; j++)
      if (r->reason[j] > 0 && bn[j] > 0.0 && !(tn[j] <= tol[j]) && total < ksp->o.maxit &&
          attempt + 1 < GCOO_KSP_MAX_ATTEMPTS) {
        r->reason[j] = GCOO_KSP_ITERATING;
        again = 1;
      }
    if (!again) break;
  }
  for (int64_t j = 0; j < k; j++) gcoo__run_stop(r, j, total - r->it0, GCOO_KSP_DIVERGED_ITS);
  /* the verdict rests on the true residual */
  GCOO_GOTO(gcoo__run_residual(r, &Bs, X, &R));
  GCOO_GOTO(gcoo__run_norms(r, &R, tn));
  for (int64_t j = 0; j < k; j++) {
    res->true_residual[j] = bn[j] > 0.0 ? tn[j] : 0.0;
    res->residual[j] = bn[j] > 0.0 ? r->res[j] : 0.0;
    if (r->reason[j] > 0 && bn[j] > 0.0 && !(tn[j] <= tol[j]))
      r->reason[j] = GCOO_KSP_DIVERGED_STAGNATION;
    res->column_reason[j] = r->reason[j];
    res->column_iterations[j] = r->its[j];
  }
  GCOO_GOTO(scale_columns(r, vo, bn, X, Xuser)); /* back to the caller's units */
  res->t_solve = gcoo__wtime() - t0;
done:
  gcoo__block_destroy(r, &Bs);
  gcoo__block_destroy(r, &R);
  gcoo__block_destroy(r, &Xc);
  free(bn);
  return st;
}

gcoo_status gcoo__ksp_solve(gcoo_ksp ksp, const gcoo_dense *B, gcoo_dense *X,
                            gcoo_ksp_result *result, gcoo_bcg_stats *bcg, double rank_tol) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_ksp_result own;
  gcoo__run r;
  memset(&r, 0, sizeof r);
  GCOO_VALID_OBJECT(ksp, GCOO_MAGIC_KSP, "solver");
  gcoo_ksp_result *res = result ? result : &own;
  memset(res, 0, sizeof *res);
  gcoo_status local = check_operands(ksp, B, X);
  GCOO_CALL(gcoo_dist_agree(ksp->d, local));
  const int64_t k = B->ncols;
  GCOO_CALL(agree_choices(ksp, k));
  double t_setup = 0.0;
  if (!ksp->setup_done || !ksp->pc->built || ksp->pc->stale) {
    GCOO_CALL(gcoo_ksp_setup(ksp));
    t_setup = ksp->setup_seconds;
  }
  local = result_alloc(res, k);
  res->t_setup = t_setup;
  r.ksp = ksp;
  r.ctx = ksp->ctx;
  r.mem = B->mem;
  r.dtype = B->dtype;
  r.n = ksp->n;
  r.k = k;
  r.out = res;
  r.bcg = bcg;
  r.rank_tol = rank_tol;
  if (local >= 0)
    local = gcoo__calloc((void **)&r.reason, (size_t)k, sizeof *r.reason, "column states");
  if (local >= 0) local = gcoo__calloc((void **)&r.its, (size_t)k, sizeof *r.its, "columns");
  if (local >= 0) local = gcoo__calloc((void **)&r.res, (size_t)k, sizeof *r.res, "residuals");
  if (local >= 0 && ksp->o.record_history) {
    r.history_cap = ksp->o.maxit < GCOO_KSP_HISTORY_MAX ? ksp->o.maxit + 1 : GCOO_KSP_HISTORY_MAX;
    local = gcoo__calloc((void **)&r.history, (size_t)(r.history_cap * k), sizeof(double),
                         "history");
  }
  GCOO_GOTO(gcoo_dist_agree(ksp->d, local));
  if (B->mem == GCOO_MEM_DEVICE)
    local = gcoo__ksp_bcg_device(&r, B, X);
  else
    local = solve_host(ksp, B, X, &r);
  GCOO_GOTO(gcoo_dist_agree(ksp->d, local));
  result_summarise(res);
  res->min_block_rank = res->min_block_rank ? res->min_block_rank : 1;
  res->t_total = res->t_setup + res->t_solve;
  if (r.history) {
    res->history = r.history;
    r.history = NULL;
  }
  st = res->converged ? GCOO_SUCCESS : GCOO_INFO_NOT_CONVERGED;
done:
  free(r.reason);
  free(r.its);
  free(r.res);
  free(r.history);
  if (st < 0 || res == &own) gcoo_ksp_result_free(res);
  return st;
}

gcoo_status gcoo_ksp_solve(gcoo_ksp ksp, const gcoo_dense *B, gcoo_dense *X,
                           gcoo_ksp_result *result) {
  const gcoo_status st = gcoo__ksp_solve(ksp, B, X, result, NULL, 0.0);
  GCOO_CALL(st);
  return st;
}
