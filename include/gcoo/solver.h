/* SPDX-License-Identifier: MIT */
/* gcoo/solver.h: block conjugate gradients on the distributed GCOO operator, the first interface
 * of the solver layer, kept as a thin call of the solver object of gcoo/ksp.h (the cg method;
 * new code uses gcoo/ksp.h, which has every method and preconditioner).
 *
 * Solves A X = B for symmetric positive definite A (m x m) and k right-hand sides at once.
 * Method: O'Leary's block CG in the breakdown-free form of Ji and Li (BIT 2017): the search
 * block P is orthonormalised every iteration by a rank-revealing (pivoted) Cholesky-QR, so
 * right-hand sides that converge or become linearly dependent shrink the block instead of
 * making P^T A P singular. One multiply A P per iteration serves all k columns: the operator's
 * cost (reading A, the halo exchange) is paid once for k vectors. Jacobi preconditioning. The
 * block inner products are reduced over ranks (NCCL for device data, MPI for host data). */
#ifndef GCOO_SOLVER_H
#define GCOO_SOLVER_H

#include "gcoo/ksp.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Called after every iteration (iteration 0: the initial residual) on every rank, with the same
 *  arguments there: the k relative residuals ||R_j|| / ||B_j|| (recursive), valid during the
 *  call. For progress reports; it must not call gcoo on the same operator. */
typedef void (*gcoo_bcg_monitor)(void *monitor_ctx, int64_t iteration, int64_t k,
                                 const double *relres);

/** Options of gcoo_bcg_solve: initialise with GCOO_BCG_OPTIONS_INIT, then change fields. */
typedef struct gcoo_bcg_options {
  size_t size;     /**< sizeof(gcoo_bcg_options) */
  double rtol;     /**< stop column j when ||B_j - A X_j|| <= rtol ||B_j|| (recursive residual) */
  int64_t maxit;   /**< iteration limit */
  gcoo_pc_type pc; /**< preconditioner: GCOO_PC_NONE or GCOO_PC_JACOBI (gcoo/pc.h) */
  int record_history;       /**< keep every iteration's relative residuals */
  double rank_tol;          /**< relative pivot below which a direction is dropped; 0: by dtype */
  gcoo_bcg_monitor monitor; /**< optional (NULL: none); see gcoo_bcg_monitor */
  void *monitor_ctx;        /**< passed to monitor */
} gcoo_bcg_options;

/** The defaults: rtol 1e-8, at most 1000 iterations, Jacobi, no history, no monitor. */
#define GCOO_BCG_OPTIONS_INIT \
  { sizeof(gcoo_bcg_options), 1e-8, 1000, GCOO_PC_JACOBI, 0, 0.0, NULL, NULL }

/** What a solve did. Arrays are allocated by the solver; free with gcoo_bcg_result_free. */
typedef struct gcoo_bcg_result {
  int64_t k;                  /**< right-hand sides */
  int64_t iterations;         /**< block iterations performed */
  int converged;              /**< 1 when every column met rtol */
  int64_t *column_iterations; /**< k: iteration at which each column met rtol (-1: never) */
  double *residual;           /**< k: final recursive relative residuals */
  double *true_residual;      /**< k: ||B_j - A X_j|| / ||B_j|| recomputed at the end */
  double *history;            /**< (iterations + 1) x k relative residuals, row-major (or NULL) */
  int64_t min_block_rank;     /**< smallest rank of the search block seen */
  /* time per phase, seconds (this rank; device work synchronised at phase ends) */
  double t_total;          /**< the whole solve */
  double t_spmm;           /**< operator applications (halo exchange included) */
  double t_reduce;         /**< block inner products reduced over ranks */
  double t_blas;           /**< block updates and orthonormalisation */
  double t_precond;        /**< preconditioner */
  int64_t spmm_calls;      /**< operator applications (one per iteration, plus setup) */
  double t_iterate;        /**< seconds in the iterations: set-up and final check excluded */
  double t_setup;          /**< seconds before the first iteration (workspace, inverse diagonal, the
                           product's choice, the initial residual and block) */
  gcoo_spdm_alg spmm_alg;  /**< the local product the iterations used: the operator's, or the
                               faster one the solver measured at set-up (device operands, an
                               AUTO operator, k > 1); GCOO_ALG_AUTO where not recorded */
  int64_t explicit_blocks; /**< device operands in double, k > 1: iterations whose search block
                                was formed explicitly (P = W T) because W was ill-conditioned;
                                the others keep it implicit (docs/solver.md, "the W form") */
} gcoo_bcg_result;

/** Solve A X = B. A must be a square operator made with GCOO_DIST_X_PARTITIONED (X, B and A's
 *  rows partitioned alike); B and X are this rank's rows (n_local x k, row-major, host or device
 *  memory of the operator's context, the operator's element type). X holds the initial guess on
 *  entry (zeros are fine) and the solution on return. Returns GCOO_INFO_NOT_CONVERGED when maxit
 *  was reached. Collective. */
gcoo_status gcoo_dist_bcg_solve(gcoo_dist_op A, const gcoo_dense *B, gcoo_dense *X,
                                const gcoo_bcg_options *opts, gcoo_bcg_result *result);

/** Free the arrays of *result and zero it; result NULL is ignored. */
void gcoo_bcg_result_free(gcoo_bcg_result *result);

#ifdef __cplusplus
}
#endif
#endif
