/* SPDX-License-Identifier: MIT */
/* gcoo/ksp.h: the solver layer: Krylov methods with a preconditioner on a distributed operator,
 * in the spirit of PETSc's KSP and PC.
 *
 * A solver is made on a square distributed operator (gcoo_dist_op made with
 * GCOO_DIST_X_PARTITIONED), given a method, a preconditioner (gcoo/pc.h) and tolerances, set up
 * once (gcoo_ksp_setup: the preconditioner's work: the inverse diagonal, the AMG hierarchy, the
 * LU factors) and applied to as many right-hand sides as needed, k at a time: B and X are this
 * rank's rows of n x k blocks. The methods:
 *
 *   cg        conjugate gradients, symmetric positive definite A and M; with k > 1 block CG
 *             (O'Leary; breakdown-free form of Ji and Li) unless options.block = 0 asks for k
 *             CGs in lockstep (one reduction for all k);
 *   pipecg    pipelined CG (Ghysels and Vanroose 2014): one non-blocking reduction an
 *             iteration, overlapped with the operator and the preconditioner (many ranks);
 *   gmres     restarted GMRES(m) with right preconditioning and classical Gram-Schmidt,
 *             reorthogonalised where one pass lost too much (or always: CGS2), any nonsingular A;
 *   fgmres    flexible GMRES(m): the preconditioner may change between iterations (AMG with
 *             Chebyshev smoothing, inner iterations);
 *   bicgstab  BiCGStab with right preconditioning, any nonsingular A (short recurrences: less
 *             memory than GMRES, two operator applications an iteration);
 *   preonly   X = M^{-1} B, one application of the preconditioner: with pc lu a direct solve.
 *
 * Every method stops a column when ||b - A x|| <= max(rtol ||b||, atol) in the 2-norm of the
 * unpreconditioned residual, and reports why it stopped (gcoo_ksp_reason): converged, the
 * iteration limit, divergence (the residual grew past dtol ||b||), a breakdown (BiCGStab's
 * rho = 0, an indefinite matrix in CG), NaN or Inf in the iterates, GMRES stagnation. Norms are
 * computed without overflow or underflow (scaled sums, as LAPACK's nrm2), and each column is
 * solved scaled by its right-hand side's norm, so that right-hand sides near the limits of the
 * floating-point range (1e-170, 1e160) are solved as well as those of norm 1.
 *
 * Options may also be given as a string of PETSc-like names (gcoo_ksp_set_from_string):
 *   -ksp_type cg|pipecg|gmres|fgmres|bicgstab|preonly   -ksp_rtol R   -ksp_atol A   -ksp_dtol D
 *   -ksp_max_it N   -ksp_gmres_restart M   -ksp_gmres_cgs_refinement_type refine_ifneeded|refine_always
 *   -ksp_cg_block 0|1   -ksp_initial_guess_nonzero 0|1
 *   -pc_type none|jacobi|amg|lu   -pc_amg_theta T   -pc_amg_smoother chebyshev|jacobi
 *   -pc_amg_degree D   -pc_amg_sweeps S   -pc_amg_cycle v|w   -pc_amg_coarse_size N
 *   -pc_amg_max_levels L   -pc_amg_min_rows_per_rank N
 * Collective calls must be entered by every rank of the operator's communicator with the same
 * options; errors are agreed over ranks as in gcoo/dist.h. */
#ifndef GCOO_KSP_H
#define GCOO_KSP_H

#include "gcoo/dist.h"
#include "gcoo/pc.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A Krylov method (see the file comment). */
typedef enum gcoo_ksp_type {
  GCOO_KSP_CG = 0,       /**< conjugate gradients (block CG for k > 1 unless block = 0) */
  GCOO_KSP_PIPECG = 1,   /**< pipelined CG: one overlapped reduction an iteration */
  GCOO_KSP_GMRES = 2,    /**< restarted GMRES(m), right preconditioning, CGS2 */
  GCOO_KSP_FGMRES = 3,   /**< flexible GMRES(m) for preconditioners that vary */
  GCOO_KSP_BICGSTAB = 4, /**< BiCGStab, right preconditioning */
  GCOO_KSP_PREONLY = 5   /**< X = M^{-1} B */
} gcoo_ksp_type;

/** Name of a method ("cg", "pipecg", "gmres", "fgmres", "bicgstab", "preonly"): a static
 *  string, "unknown" outside the enumeration. */
const char *gcoo_ksp_type_name(gcoo_ksp_type type);
/** The method named name (as gcoo_ksp_type_name spells it), or -1. */
int gcoo_ksp_type_from_name(const char *name);

/** Why a column's iteration stopped: > 0 converged, < 0 diverged (PETSc's KSPConvergedReason
 *  in spirit). */
typedef enum gcoo_ksp_reason {
  GCOO_KSP_ITERATING = 0,            /**< not stopped (not seen in results) */
  GCOO_KSP_CONVERGED_RTOL = 1,       /**< ||r|| <= rtol ||b|| */
  GCOO_KSP_CONVERGED_ATOL = 2,       /**< ||r|| <= atol (a zero right-hand side included) */
  GCOO_KSP_CONVERGED_PREONLY = 3,    /**< preonly: the preconditioner was applied once */
  GCOO_KSP_DIVERGED_ITS = -1,        /**< the iteration limit was reached */
  GCOO_KSP_DIVERGED_DTOL = -2,       /**< ||r|| > dtol ||b||: the iteration diverges */
  GCOO_KSP_DIVERGED_BREAKDOWN = -3,  /**< a method's breakdown (BiCGStab rho or omega = 0, a
                                          singular GMRES least-squares problem) */
  GCOO_KSP_DIVERGED_INDEFINITE = -4, /**< CG found p^T A p <= 0 or r^T M r < 0: A or M is not
                                          symmetric positive definite */
  GCOO_KSP_DIVERGED_NANORINF = -5,   /**< NaN or Inf appeared in the iterates */
  GCOO_KSP_DIVERGED_STAGNATION = -6  /**< GMRES: a whole restart cycle without progress */
} gcoo_ksp_reason;

/** Name of a reason ("converged_rtol", "diverged_its", ...): a static string. */
const char *gcoo_ksp_reason_name(gcoo_ksp_reason reason);

/** Called after every iteration (iteration 0: the initial residual) on every rank, with the
 *  same arguments there: the k relative residuals ||r_j|| / ||b_j|| as the method tracks them,
 *  valid during the call. For progress reports; it must not call gcoo on the same solver. */
typedef void (*gcoo_ksp_monitor)(void *monitor_ctx, int64_t iteration, int64_t k,
                                 const double *relres);

/** Options of a solver: initialise with GCOO_KSP_OPTIONS_INIT, then change fields (the size
 *  field lets the struct grow compatibly). */
typedef struct gcoo_ksp_options {
  size_t size;               /**< sizeof(gcoo_ksp_options), set by the initialiser */
  gcoo_ksp_type type;        /**< the method */
  double rtol;               /**< relative tolerance on ||b - A x|| / ||b|| */
  double atol;               /**< absolute tolerance on ||b - A x|| */
  double dtol;               /**< divergence: stop when ||r|| > dtol ||b|| */
  int64_t maxit;             /**< iteration limit (GMRES: inner iterations over all restarts) */
  int restart;               /**< GMRES and FGMRES: the Krylov space's dimension m */
  int cgs_refinement;        /**< GMRES and FGMRES: 0 orthogonalise again where one classical
                                  Gram-Schmidt pass lost too much (DGKS), 1 always (CGS2) */
  int block;                 /**< CG with k > 1: 1 block CG, 0 k CGs in lockstep */
  int initial_guess_nonzero; /**< 1: X holds the initial guess on entry; 0: start from 0 */
  int record_history;        /**< keep every iteration's relative residuals */
  gcoo_ksp_monitor monitor;  /**< optional (NULL: none); see gcoo_ksp_monitor */
  void *monitor_ctx;         /**< passed to monitor */
} gcoo_ksp_options;

/** The defaults: CG, rtol 1e-8, atol 0, dtol 1e10, at most 10000 iterations, restart 30 with
 *  reorthogonalisation where needed, block CG for k > 1, initial guess zero, no history, no
 *  monitor. */
#define GCOO_KSP_OPTIONS_INIT \
  { sizeof(gcoo_ksp_options), GCOO_KSP_CG, 1e-8, 0.0, 1e10, 10000, 30, 0, 1, 0, 0, NULL, NULL }

/** What a solve did. The arrays are allocated by the solver; free with gcoo_ksp_result_free.
 *  The same on every rank. */
typedef struct gcoo_ksp_result {
  int64_t k;                      /**< right-hand sides */
  int64_t iterations;             /**< iterations of the column that took the most (block
                                       iterations for block CG) */
  int converged;                  /**< 1 when every column converged */
  gcoo_ksp_reason reason;         /**< every column's reason when they agree; otherwise the
                                       first column that did not converge */
  int64_t reason_column;          /**< that column, or -1 when every column converged */
  int64_t *column_iterations;     /**< k: the iteration at which each column stopped */
  gcoo_ksp_reason *column_reason; /**< k: why each column stopped */
  double *residual;               /**< k: last relative residual the method tracked */
  double *true_residual;          /**< k: ||B_j - A X_j|| / ||B_j|| recomputed at the end */
  double *history;                /**< (iterations + 1) x k relative residuals (or NULL) */
  int64_t min_block_rank;         /**< block CG: the smallest width of the search block */
  double t_setup;                 /**< seconds of set-up this solve paid (0 when set up before) */
  double t_solve;                 /**< seconds from the start of the iterations to the answer */
  double t_total;                 /**< t_setup + t_solve: the time to solution */
  double t_spmm;                  /**< of t_solve: operator applications (halo included) */
  double t_pc;                    /**< of t_solve: preconditioner applications */
  double t_reduce;                /**< of t_solve: reductions over ranks */
  int64_t spmm_calls;             /**< operator applications */
  int64_t pc_calls;               /**< preconditioner applications */
} gcoo_ksp_result;

/** A solver (opaque). */
typedef struct gcoo_ksp_s *gcoo_ksp;

/** Make a solver on the square PARTITIONED operator A (which must outlive it) with the default
 *  options and the Jacobi preconditioner. *ksp NULL on failure. Collective. */
gcoo_status gcoo_ksp_create(gcoo_ksp *ksp, gcoo_dist_op A);
/** Free the solver and its preconditioner; *ksp becomes NULL (NULL accepted). Collective. */
gcoo_status gcoo_ksp_destroy(gcoo_ksp *ksp);

/** Set the options (copied; checked here: GCOO_ERR_INVALID_ARG names the bad field). Changing
 *  the method after set-up is allowed. Not collective (every rank must pass the same). */
gcoo_status gcoo_ksp_set_options(gcoo_ksp ksp, const gcoo_ksp_options *opts);
/** The options in force. Not collective. */
gcoo_status gcoo_ksp_get_options(gcoo_ksp ksp, gcoo_ksp_options *opts);
/** Set the method alone. Not collective. */
gcoo_status gcoo_ksp_set_type(gcoo_ksp ksp, gcoo_ksp_type type);
/** Set options from a string of PETSc-like names (see the file comment), e.g.
 *  "-ksp_type gmres -ksp_gmres_restart 50 -pc_type amg -pc_amg_theta 0.05". An unknown name or
 *  a bad value is GCOO_ERR_INVALID_ARG naming it, and changes nothing. Not collective (every
 *  rank must pass the same). */
gcoo_status gcoo_ksp_set_from_string(gcoo_ksp ksp, const char *options);
/** The solver's preconditioner (owned by the solver). Not collective. */
gcoo_status gcoo_ksp_get_pc(gcoo_ksp ksp, gcoo_pc *pc);

/** Build the preconditioner on the operator (Jacobi's inverse diagonal, the AMG hierarchy, the
 *  LU factors) and the method's workspace. Called by gcoo_ksp_solve when needed; call it
 *  yourself to time it or to catch its errors apart. Collective. */
gcoo_status gcoo_ksp_setup(gcoo_ksp ksp);

/** Give the solver a new operator of the same size (A's values changed: a time step, a Newton
 *  step). same_pattern = 1 promises the same sparsity pattern, so the next set-up may reuse what
 *  depends on the pattern alone (AMG: aggregates and the tentative prolongator, the products'
 *  patterns; LU: the symbolic factorisation) and recompute only the values. Collective. */
gcoo_status gcoo_ksp_set_operator(gcoo_ksp ksp, gcoo_dist_op A, int same_pattern);

/** Solve A X = B for this rank's rows of B and X (n_local x k row-major, host or device memory
 *  of the operator's context, the operator's element type; X may be B's twin buffer but not B).
 *  X holds the initial guess on entry when options.initial_guess_nonzero, and is otherwise
 *  overwritten. Returns GCOO_SUCCESS when every column converged, GCOO_INFO_NOT_CONVERGED when
 *  some did not (result->reason and column_reason say why; X holds the last iterate), an error
 *  for bad arguments or a failure. result (may be NULL) receives what the solve did. Collective. */
gcoo_status gcoo_ksp_solve(gcoo_ksp ksp, const gcoo_dense *B, gcoo_dense *X,
                           gcoo_ksp_result *result);

/** One line describing the solver ("gmres(30) + amg (4 levels)") into buf. Not collective. */
gcoo_status gcoo_ksp_describe(gcoo_ksp ksp, char *buf, size_t len);

/** Free the arrays of *result and zero it; NULL is ignored. */
void gcoo_ksp_result_free(gcoo_ksp_result *result);

#ifdef __cplusplus
}
#endif
#endif
