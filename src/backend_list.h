/* SPDX-License-Identifier: MIT */
/* src/backend_list.h: the backends, listed once, and their tables' declarations; the CUDA
 * backend's SpGEMM, predictor and device-resident solver iterations. */
#ifndef GCOO_SRC_BACKEND_LIST_H
#define GCOO_SRC_BACKEND_LIST_H

#include "gcoo/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The backends, written once: X(id, table, compiled, label, how to get it). A backend whose
 * `compiled` is 0 gets its table from src/backend_stubs.c, generated from this list: creating a
 * context on it fails with "the <label> backend is not compiled into this gcoo (<how>)". */
#define GCOO_BACKEND_LIST(X)                          \
  X(cpu, gcoo__backend_cpu, 1, "CPU", "")             \
  X(cuda, gcoo__backend_cuda, GCOO_HAVE_CUDA, "CUDA", \
    "rebuild with a CUDA compiler and -DGCOO_ENABLE_CUDA=ON")
#define GCOO_BACKEND_DECLARE_(id, table, compiled, label, how) extern const gcoo_backend_ops table;
GCOO_BACKEND_LIST(GCOO_BACKEND_DECLARE_)
#undef GCOO_BACKEND_DECLARE_

/** SpGEMM on a CUDA context (kernels/spgemm/spgemm.cu, or src/spgemm_cuda_stub.c when not compiled);
 *  opts is complete (defaults filled in by gcoo_spgemm). */
gcoo_status gcoo__spgemm_cuda(gcoo_ctx ctx, gcoo_sparse A, gcoo_sparse B,
                              const gcoo_spgemm_options *opts, gcoo_sparse *C,
                              gcoo_spgemm_info *info);
/* The GPU predictor (kernels/spgemm/spgemm.cu, method CLASSES: the estimate of gcoo_predict with
 * GCOO_PREDICT_CLASSES for the same seed), row_flop and row_nnz always filled; a build without
 * CUDA reports "not compiled". */
gcoo_status gcoo__predict_cuda(gcoo_ctx ctx, gcoo_sparse A, gcoo_sparse B,
                               const gcoo_predict_options *opts, gcoo_prediction *pred);

/* ---- device-resident solver iterations (kernels/solver/; src/solver_cuda_stub.c) ------
 * The CUDA side of solver/ksp_bcg.c. Single right-hand side on one rank: PCG in fused kernels replayed
 * as CUDA graphs, the state on the device. Block CG: the k x k steps, the preconditioner with the
 * residual norms, and the convergence test on the device; the host only queues work and reads a
 * snapshot of the state asynchronously. */
typedef struct gcoo__pcg_device {
  gcoo_op A; /* in: square local operator of a CUDA context (its device CSR is used) */
  gcoo_dtype dtype;
  int64_t n;
  const void *b;    /* in: device, n values */
  void *x;          /* in: initial guess; out: solution (device) */
  const void *dinv; /* in: device inverse diagonal, or NULL (no preconditioner) */
  double rtol;
  int64_t maxit;
  double *history;    /* host, maxit + 1 values, or NULL */
  int64_t iterations; /* out */
  int converged, breakdown;
  double residual;                      /* final recursive ||r|| / ||b|| */
  double t_spmm, t_update, t_direction; /* GPU seconds of each kernel in iteration 2 */
  double t_first_batch;     /* GPU seconds of the first graph_iterations (plain launches) */
  double t_iterate;         /* wall seconds from the first iteration queued to the last one done */
  int64_t graph_iterations; /* iterations per graph replay */
} gcoo__pcg_device;
gcoo_status gcoo__cuda_pcg(gcoo_ctx ctx, gcoo__pcg_device *p);

/** dinv = 1 / diag(A) from the square local operator's device CSR (device memory, A's element
 *  type); *bad_row: the first local row whose diagonal is not positive and finite (its value in
 *  *bad_value), -1 if none. Synchronises (set-up). */
gcoo_status gcoo__cuda_inverse_diagonal(gcoo_op A, void *dinv, int64_t *bad_row, double *bad_value);

typedef struct gcoo__bcg_device gcoo__bcg_device;
typedef enum gcoo__bcg_step {
  GCOO__BCG_STORE_B2, /* red[0, k) = ||B_j||^2 kept */
  GCOO__BCG_CHECK0,   /* red[0, k) = ||R_j||^2: iteration 0 recorded */
  GCOO__BCG_ALPHA,    /* red = [P^T Q | P^T R] (k x k each): coef 0 = alpha */
  GCOO__BCG_CHECK,    /* red = [||R_j||^2 (k) | Q^T Z (k x k)]: count, record, coef 1 = beta */
  GCOO__BCG_ORTH      /* red = W^T W: coef 2 = T (columns past the rank zero) */
} gcoo__bcg_step;
enum { GCOO__BCG_SPMM, GCOO__BCG_REDUCE, GCOO__BCG_BLAS, GCOO__BCG_PRECOND, GCOO__BCG_PHASES };
typedef struct gcoo__bcg_outcome {
  int64_t iterations, *column_iterations; /* column_iterations, residual: k values (caller's) */
  double *residual, *history;             /* history: (maxit + 1) x k or NULL */
  int converged, breakdown, min_rank;
  double bad_pivot;
  double phase_seconds[GCOO__BCG_PHASES]; /* GPU time between the phase marks */
  int64_t explicit_blocks;                /* the W form's iterations with P formed explicitly */
} gcoo__bcg_outcome;
gcoo_status gcoo__cuda_bcg_create(gcoo_ctx ctx, gcoo_dtype dt, int64_t n, int64_t k, double rtol,
                                  double rank_tol, int64_t maxit, int history,
                                  gcoo__bcg_device **h);
void gcoo__cuda_bcg_destroy(gcoo__bcg_device *h);
/** The reduction buffer (2 k^2 + k values of dt) and coefficient matrix `which` (0 alpha,
 *  1 beta, 2 T; k x k row-major, dt), device memory. */
void *gcoo__cuda_bcg_red(gcoo__bcg_device *h);
void *gcoo__cuda_bcg_coef(gcoo__bcg_device *h, int which);
gcoo_status gcoo__cuda_bcg_step(gcoo__bcg_device *h, gcoo__bcg_step step);
/** The W form (1) or the P form (0) of this solve (GCOO_BCG_WFORM). In the W form the search
 *  block P = W T is not formed: the caller runs the passes on W where it would run them on P (Q'
 *  = A W for Q, [W^T Q' | W^T R] for red, ...), the steps take T into their k x k products
 *  (coef 0 and 1 are then W's coefficients T alpha, T beta), and after the ORTH step
 *  gcoo__cuda_bcg_transform(W) replaces W by W T in place where W is ill-conditioned (T = I for
 *  the next iteration's steps), else leaves it. Then W is the next iteration's search block. */
int gcoo__cuda_bcg_wform(const gcoo__bcg_device *h);
gcoo_status gcoo__cuda_bcg_transform(gcoo__bcg_device *h, gcoo_dense *W);
/** W = diag(dinv) R (dinv NULL: W = R) and red[0, k) = ||R_j||^2, one pass over R. */
gcoo_status gcoo__cuda_bcg_precond_norms(gcoo__bcg_device *h, const gcoo_dense *dinv,
                                         const gcoo_dense *R, gcoo_dense *W);
/** The fused block-vector passes (kernels/solver/bcg_fused.cuh), for k in {8, 16, 32}
 *  (gcoo__cuda_bcg_fused: 0 none for this k, 1 there and faster than the GEMM path as measured,
 *  2 there but slower; the blocks P, Q, R, W, X n x k row-major, any ld):
 *  gram2:     red = [P^T Q | P^T R];
 *  update:    X += P alpha, R -= Q alpha, W = diag(dinv) R (dinv NULL: R), red = [||R_j||^2 | Q^T W];
 *  direction: W += P beta, red = W^T W   (alpha, beta: coefficient matrices 0 and 1). */
int gcoo__cuda_bcg_fused(const gcoo__bcg_device *h);
gcoo_status gcoo__cuda_bcg_gram2(gcoo__bcg_device *h, const gcoo_dense *P, const gcoo_dense *Q,
                                 const gcoo_dense *R);
gcoo_status gcoo__cuda_bcg_update(gcoo__bcg_device *h, const gcoo_dense *P, const gcoo_dense *Q,
                                  gcoo_dense *X, gcoo_dense *R, const gcoo_dense *dinv,
                                  gcoo_dense *W);
gcoo_status gcoo__cuda_bcg_direction(gcoo__bcg_device *h, const gcoo_dense *P, gcoo_dense *W);
/** Phase marks (phase < 0: start of iteration it), a snapshot of the state after iteration it,
 *  and the wait for that snapshot (done: the device has stopped). */
gcoo_status gcoo__cuda_bcg_mark(gcoo__bcg_device *h, int64_t it, int phase);
gcoo_status gcoo__cuda_bcg_post(gcoo__bcg_device *h, int64_t it);
gcoo_status gcoo__cuda_bcg_wait(gcoo__bcg_device *h, int64_t it, int *done);
gcoo_status gcoo__cuda_bcg_result(gcoo__bcg_device *h, gcoo__bcg_outcome *o);

#ifdef __cplusplus
}
#endif
#endif
