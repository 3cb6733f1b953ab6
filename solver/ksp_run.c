/* SPDX-License-Identifier: MIT */
/* solver/ksp_run.c: what every method does the same way during one solve: the convergence
 * bookkeeping of each column, the operator and preconditioner applications, reductions over
 * ranks and the block-vector passes with their norms. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "dist_access.h"
#include "mpi_check.h"
#include "solver_impl.h"

int64_t gcoo__run_active(const gcoo__run *r) {
  int64_t a = 0;
  for (int64_t j = 0; j < r->k; j++) a += r->reason[j] == GCOO_KSP_ITERATING;
  return a;
}

void gcoo__run_stop(gcoo__run *r, int64_t j, int64_t it, gcoo_ksp_reason reason) {
  if (r->reason[j] != GCOO_KSP_ITERATING) return;
  r->reason[j] = reason;
  r->its[j] = r->it0 + it;
}

int64_t gcoo__run_check(gcoo__run *r, int64_t it, const double *rnorm) {
  gcoo_ksp_options *o = &r->ksp->o;
  for (int64_t j = 0; j < r->k; j++) {
    if (r->reason[j] != GCOO_KSP_ITERATING) continue;
    const double v = rnorm[j];
    r->res[j] = v;
    if (!isfinite(v))
      gcoo__run_stop(r, j, it, GCOO_KSP_DIVERGED_NANORINF);
    else if (v <= r->tol[j])
      gcoo__run_stop(r, j, it, v <= o->rtol ? GCOO_KSP_CONVERGED_RTOL : GCOO_KSP_CONVERGED_ATOL);
    else if (v > r->dtol)
      gcoo__run_stop(r, j, it, GCOO_KSP_DIVERGED_DTOL);
  }
  const int64_t row = r->it0 + it;
  if (r->history && row < r->history_cap) {
    memcpy(r->history + row * r->k, r->res, (size_t)r->k * sizeof *r->res);
    if (row + 1 > r->history_len) r->history_len = row + 1;
  }
  if (o->monitor) o->monitor(o->monitor_ctx, row, r->k, r->res);
  return gcoo__run_active(r);
}

gcoo_status gcoo__run_apply_A(gcoo__run *r, const gcoo_dense *X, gcoo_dense *Y) {
  const double t0 = gcoo__wtime();
  GCOO_CALL(gcoo__dist_op_apply_checked(r->ksp->A, 1.0, X, 0.0, Y));
  if (r->mem == GCOO_MEM_DEVICE) GCOO_CALL(gcoo_ctx_synchronize(r->ctx));
  r->out->t_spmm += gcoo__wtime() - t0;
  r->out->spmm_calls++;
  return GCOO_SUCCESS;
}

gcoo_status gcoo__run_apply_pc(gcoo__run *r, const gcoo_dense *R, gcoo_dense *Z) {
  const double t0 = gcoo__wtime();
  GCOO_CALL(gcoo__pc_apply(r->ksp->pc, R, Z));
  r->out->t_pc += gcoo__wtime() - t0;
  r->out->pc_calls++;
  return GCOO_SUCCESS;
}

gcoo_status gcoo__run_allreduce(gcoo__run *r, double *buf, int64_t count) {
  if (gcoo_dist_size(r->ksp->d) == 1 || count == 0) return GCOO_SUCCESS;
  const double t0 = gcoo__wtime();
  GCOO_CHECK(count <= INT32_MAX, GCOO_ERR_TOO_LARGE, "a reduction of %lld values",
             (long long)count);
  GCOO_CALL(GCOO_MPI(MPI_Allreduce(MPI_IN_PLACE, buf, (int)count, MPI_DOUBLE, MPI_SUM,
                                   gcoo_dist_comm(r->ksp->d))));
  r->out->t_reduce += gcoo__wtime() - t0;
  return GCOO_SUCCESS;
}

gcoo_status gcoo__run_iallreduce_begin(gcoo__run *r, double *buf, int64_t count,
                                       gcoo__iallreduce *h) {
  h->pending = 0;
  if (gcoo_dist_size(r->ksp->d) == 1 || count == 0) return GCOO_SUCCESS;
  GCOO_CHECK(count <= INT32_MAX, GCOO_ERR_TOO_LARGE, "a reduction of %lld values",
             (long long)count);
  GCOO_CALL(GCOO_MPI(MPI_Iallreduce(MPI_IN_PLACE, buf, (int)count, MPI_DOUBLE, MPI_SUM,
                                    gcoo_dist_comm(r->ksp->d), &h->req)));
  h->pending = 1;
  return GCOO_SUCCESS;
}

gcoo_status gcoo__run_iallreduce_end(gcoo__run *r, gcoo__iallreduce *h) {
  if (!h->pending) return GCOO_SUCCESS;
  const double t0 = gcoo__wtime();
  h->pending = 0;
  GCOO_CALL(GCOO_MPI(MPI_Wait(&h->req, MPI_STATUS_IGNORE)));
  r->out->t_reduce += gcoo__wtime() - t0;
  return GCOO_SUCCESS;
}

gcoo_status gcoo__run_vec(const gcoo__run *r, const char *method, const gcoo_vec_ops **ops) {
  *ops = r->mem == GCOO_MEM_HOST ? &gcoo__vec_host : r->ctx->ops->vec;
  GCOO_CHECK(*ops != NULL, GCOO_ERR_UNSUPPORTED,
             "%s on device operands is not available on the %s backend yet: use host operands "
             "(the CPU backend) or the cg method",
             method, r->ctx->ops->name);
  return GCOO_SUCCESS;
}

gcoo_status gcoo__block_create(gcoo__run *r, int64_t ncols, gcoo_dense *V) {
  memset(V, 0, sizeof *V);
  if (r->mem == GCOO_MEM_HOST) {
    /* placed by the threads that will use it: uninitialised, then filled by the vector pass */
    size_t bytes;
    GCOO_CHECK(ncols == 0 || r->n <= INT64_MAX / ncols, GCOO_ERR_TOO_LARGE, "block %lld x %lld",
               (long long)r->n, (long long)ncols);
    GCOO_CALL(gcoo__array_bytes(r->n * ncols, gcoo_dtype_size(r->dtype), &bytes));
    void *data = NULL;
    GCOO_CALL(gcoo__malloc(&data, bytes ? bytes : 1, "solver workspace"));
    *V = gcoo_dense_wrap(data, r->dtype, GCOO_ROW_MAJOR, r->n, ncols, ncols > 0 ? ncols : 1);
    V->owned = 1;
    GCOO_CALL(gcoo__vec_host.fill(r->ctx, V, 0.0));
    return GCOO_SUCCESS;
  }
  GCOO_CALL(gcoo_ctx_dense_create(r->ctx, V, r->dtype, GCOO_ROW_MAJOR, r->n, ncols, r->mem));
  return GCOO_SUCCESS;
}

void gcoo__block_destroy(gcoo__run *r, gcoo_dense *V) {
  if (V->data) gcoo_ctx_dense_destroy(r->ctx, V);
  memset(V, 0, sizeof *V);
}

gcoo_status gcoo__run_norms(gcoo__run *r, const gcoo_dense *V, double *norms) {
  const gcoo_vec_ops *vo;
  const int64_t k = V->ncols;
  double *acc = NULL;
  GCOO_CALL(gcoo__run_vec(r, "a norm", &vo));
  GCOO_CALL(gcoo__malloc_n((void **)&acc, 3 * k, sizeof *acc, "norm sums"));
  gcoo_status st = vo->norm_acc(r->ctx, V, acc);
  if (st >= 0) st = gcoo__run_allreduce(r, acc, 3 * k);
  if (st >= 0)
    for (int64_t j = 0; j < k; j++) norms[j] = gcoo__blue_norm(acc + 3 * j);
  free(acc);
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}

gcoo_status gcoo__run_residual(gcoo__run *r, const gcoo_dense *B, const gcoo_dense *X,
                               gcoo_dense *R) {
  const gcoo_vec_ops *vo;
  double *one = NULL;
  GCOO_CALL(gcoo__run_vec(r, "the residual", &vo));
  GCOO_CALL(gcoo__run_apply_A(r, X, R));
  GCOO_CALL(gcoo__malloc_n((void **)&one, 2 * r->k, sizeof *one, "coefficients"));
  for (int64_t j = 0; j < r->k; j++) {
    one[j] = 1.0;
    one[r->k + j] = -1.0;
  }
  gcoo_status st = vo->axpby(r->ctx, one, B, one + r->k, R); /* R = B - A X */
  free(one);
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}
