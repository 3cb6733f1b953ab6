/* SPDX-License-Identifier: MIT */
/* kernels/solver/solver_cuda.h: the CUDA backend's device-resident solver iterations, the entries
 * of its gcoo_solver_ops table (solver_table.c; what each does: gcoo/backend.h). Only the table
 * reaches them from outside kernels/. */
#ifndef GCOO_KERNELS_SOLVER_CUDA_H
#define GCOO_KERNELS_SOLVER_CUDA_H

#include "backend_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The CUDA backend's table (solver_table.c). */
extern const gcoo_solver_ops gcoo__solver_cuda;

/* pcg_cuda.cu */
gcoo_status gcoo__cuda_inverse_diagonal(gcoo_op A, void *dinv, int64_t *bad_row, double *bad_value);
gcoo_status gcoo__cuda_pcg(gcoo_ctx ctx, gcoo__pcg_device *p);
/* bcg_cuda.cu */
gcoo_status gcoo__cuda_bcg_create(gcoo_ctx ctx, gcoo_dtype dt, int64_t n, int64_t k, double rtol,
                                  double rank_tol, int64_t maxit, int history,
                                  gcoo__bcg_device **h);
void gcoo__cuda_bcg_destroy(gcoo__bcg_device *h);
void *gcoo__cuda_bcg_red(gcoo__bcg_device *h);
void *gcoo__cuda_bcg_coef(gcoo__bcg_device *h, int which);
gcoo_status gcoo__cuda_bcg_step(gcoo__bcg_device *h, gcoo__bcg_step step);
int gcoo__cuda_bcg_wform(const gcoo__bcg_device *h);
gcoo_status gcoo__cuda_bcg_transform(gcoo__bcg_device *h, gcoo_dense *W);
gcoo_status gcoo__cuda_bcg_precond_norms(gcoo__bcg_device *h, const gcoo_dense *dinv,
                                         const gcoo_dense *R, gcoo_dense *W);
gcoo_status gcoo__cuda_bcg_mark(gcoo__bcg_device *h, int64_t it, int phase);
gcoo_status gcoo__cuda_bcg_post(gcoo__bcg_device *h, int64_t it);
gcoo_status gcoo__cuda_bcg_wait(gcoo__bcg_device *h, int64_t it, int *done);
gcoo_status gcoo__cuda_bcg_result(gcoo__bcg_device *h, gcoo__bcg_outcome *o);
/* bcg_fused_cuda.cu */
int gcoo__cuda_bcg_fused(const gcoo__bcg_device *h);
gcoo_status gcoo__cuda_bcg_gram2(gcoo__bcg_device *h, const gcoo_dense *P, const gcoo_dense *Q,
                                 const gcoo_dense *R);
gcoo_status gcoo__cuda_bcg_update(gcoo__bcg_device *h, const gcoo_dense *P, const gcoo_dense *Q,
                                  gcoo_dense *X, gcoo_dense *R, const gcoo_dense *dinv,
                                  gcoo_dense *W);
gcoo_status gcoo__cuda_bcg_direction(gcoo__bcg_device *h, const gcoo_dense *P, gcoo_dense *W);

#ifdef __cplusplus
}
#endif
#endif
