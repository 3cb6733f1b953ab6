/* SPDX-License-Identifier: MIT */
/* gcoo/pc.h: preconditioners of the solver layer (gcoo/ksp.h): none, Jacobi, smoothed
 * aggregation algebraic multigrid (AMG) and a sparse direct solve (LU through MUMPS).
 *
 * A preconditioner belongs to a solver (gcoo_ksp_get_pc) and is built on the solver's
 * distributed operator by gcoo_ksp_setup: Jacobi inverts the diagonal, AMG builds its hierarchy
 * (strength, aggregation, prolongators, Galerkin products through gcoo's predicted SpGEMM), LU
 * factors the matrix. It is then applied to blocks of k vectors, Z = M^{-1} R. */
#ifndef GCOO_PC_H
#define GCOO_PC_H

#include "gcoo/dist.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A preconditioner: none, the inverse of A's diagonal, AMG, or an exact LU solve. */
typedef enum gcoo_pc_type {
  GCOO_PC_NONE = 0,   /**< M = I */
  GCOO_PC_JACOBI = 1, /**< M = diag(A) */
  GCOO_PC_AMG = 2,    /**< smoothed aggregation AMG, one V-cycle per application */
  GCOO_PC_LU = 3      /**< a sparse direct solve (MUMPS): M = A, exact up to rounding */
} gcoo_pc_type;

/** Name of a preconditioner ("none", "jacobi", "amg", "lu"): a static string, "unknown" outside
 *  the enumeration. */
const char *gcoo_pc_type_name(gcoo_pc_type type);
/** The preconditioner named name (as gcoo_pc_type_name spells it), or -1. */
int gcoo_pc_type_from_name(const char *name);

/** Smoother of the AMG V-cycle. */
typedef enum gcoo_amg_smoother {
  GCOO_AMG_CHEBYSHEV = 0, /**< Chebyshev polynomial in D^{-1} A (bounds from rho(D^{-1} A)) */
  GCOO_AMG_L1_JACOBI = 1 /**< l1-Jacobi: x += D_l1^{-1} (b - A x), D_l1 = diag of row sums |a_ij| */
} gcoo_amg_smoother;

/** Cycle of the AMG preconditioner. */
typedef enum gcoo_amg_cycle {
  GCOO_AMG_V_CYCLE = 1, /**< one coarse correction per level */
  GCOO_AMG_W_CYCLE = 2  /**< two coarse corrections per level */
} gcoo_amg_cycle;

/** Options of smoothed aggregation AMG: initialise with GCOO_AMG_OPTIONS_INIT, then change
 *  fields (the size field lets the struct grow compatibly). */
typedef struct gcoo_amg_options {
  size_t size;                /**< sizeof(gcoo_amg_options), set by the initialiser */
  double theta;               /**< strength threshold: |a_ij| >= theta sqrt(|a_ii a_jj|) */
  gcoo_amg_smoother smoother; /**< pre- and post-smoother */
  int degree;                 /**< Chebyshev degree (1-8), or l1-Jacobi sweeps */
  int pre_sweeps;             /**< smoother applications before the coarse correction */
  int post_sweeps;            /**< and after it */
  gcoo_amg_cycle cycle;       /**< V or W */
  int64_t coarse_size;        /**< stop coarsening at or below this many rows (solved directly) */
  int max_levels;             /**< at most this many levels, the finest included */
  double prolongator_damping; /**< w = damping / rho(D^{-1} A) in P = (I - w D^{-1} A) P_t; 4/3 */
  double cheby_lower;         /**< Chebyshev interval [lower, upper] x rho(D^{-1} A): lower */
  double cheby_upper;         /**< and upper factor (1.1: a little above the estimate) */
  int64_t min_rows_per_rank;  /**< a coarse level with fewer rows per rank moves to fewer ranks */
} gcoo_amg_options;

/** The defaults: theta 0 (every connection strong, as PyAMG and PETSc GAMG default to),
 *  Chebyshev of degree 2, one pre- and one post-sweep, V-cycle, coarsest level at most 500 rows,
 *  at most 25 levels, damping 4/3, Chebyshev on [0.15, 1.1] x rho, coarse levels on fewer ranks
 *  below 2000 rows a rank. (A lower end of 0.15 rather than 0.3 keeps stiff structural matrices
 *  near PETSc GAMG's iterations, bcsstk24 1.14x instead of 1.32x, for one more on 3-D Poisson.) */
#define GCOO_AMG_OPTIONS_INIT                                                              \
  {                                                                                        \
    sizeof(gcoo_amg_options), 0.0, GCOO_AMG_CHEBYSHEV, 2, 1, 1, GCOO_AMG_V_CYCLE, 500, 25, \
        4.0 / 3.0, 0.15, 1.1, 2000                                                         \
  }

/** One level of an AMG hierarchy, for reports. */
typedef struct gcoo_amg_level_info {
  int64_t rows;              /**< rows of the level's operator (global) */
  int64_t nnz;               /**< entries of the level's operator (global) */
  int ranks;                 /**< ranks holding the level */
  int64_t nnz_p;             /**< entries of the prolongator to this level from the next finer */
  int64_t nnz_predicted_ap;  /**< SpGEMM A P: the predictor's nnz (sum over ranks) */
  int64_t nnz_ap;            /**< SpGEMM A P: the exact nnz */
  int64_t nnz_predicted_rap; /**< SpGEMM P^T (A P): the predictor's nnz */
  double rho;                /**< the estimate of rho(D^{-1} A) on this level */
} gcoo_amg_level_info;

/** What an AMG set-up built and what it cost (gcoo_pc_get_amg_info). */
typedef struct gcoo_amg_info {
  int levels;                    /**< levels, the finest included */
  gcoo_amg_level_info level[32]; /**< the first min(levels, 32) levels, finest first */
  double grid_complexity;        /**< sum of rows over levels / rows of the finest */
  double operator_complexity;    /**< sum of nnz over levels / nnz of the finest */
  double t_strength;             /**< seconds: strength of connection */
  double t_aggregate;            /**< aggregation */
  double t_prolongator;          /**< tentative prolongator and its smoothing (A P_t) */
  double t_galerkin;             /**< coarse operators P^T (A P) */
  double t_smoother;             /**< spectral estimates and smoother set-up */
  double t_coarse;               /**< the coarsest level's factorisation */
  double t_total;                /**< the whole set-up */
} gcoo_amg_info;

/** How the LU preconditioner hands the matrix to MUMPS (docs/direct.md). */
typedef enum gcoo_lu_input {
  GCOO_LU_INPUT_AUTO = 0,       /**< central while the matrix has fewer than 2^31 entries */
  GCOO_LU_INPUT_CENTRAL = 1,    /**< gathered on rank 0: MUMPS may permute and scale it by value
                                     (maximum transversal), which the hard unsymmetric matrices
                                     need */
  GCOO_LU_INPUT_DISTRIBUTED = 2 /**< each rank's rows: nothing gathered, for the largest */
} gcoo_lu_input;

/** A preconditioner (opaque), owned by its solver. */
typedef struct gcoo_pc_s *gcoo_pc;

/** Choose the preconditioner (before gcoo_ksp_setup, or after it: the next set-up rebuilds it).
 *  GCOO_ERR_INVALID_ARG for an unknown type. Not collective (all ranks must choose the same). */
gcoo_status gcoo_pc_set_type(gcoo_pc pc, gcoo_pc_type type);
/** The preconditioner's type. Not collective. */
gcoo_status gcoo_pc_get_type(gcoo_pc pc, gcoo_pc_type *type);
/** Set the AMG options (copied; checked at set-up). Not collective. */
gcoo_status gcoo_pc_set_amg_options(gcoo_pc pc, const gcoo_amg_options *opts);
/** The AMG options in force. Not collective. */
gcoo_status gcoo_pc_get_amg_options(gcoo_pc pc, gcoo_amg_options *opts);
/** The near-null space of AMG: this rank's rows of b vectors (n_local x b, row-major host
 *  memory, copied), e.g. the rigid-body modes of an elasticity problem; NULL: the constant
 *  vector (the default). Not collective. */
gcoo_status gcoo_pc_set_near_nullspace(gcoo_pc pc, const gcoo_dense *B);
/** Rigid-body modes from nodal coordinates as the near-null space: this rank's rows of the
 *  coordinates (nodes_local x dim, dim 2 or 3, row-major host memory, copied) for a system whose
 *  unknowns come in blocks of block_size = dim per node (2-D: 3 modes, 3-D: 6 modes). Not
 *  collective. */
gcoo_status gcoo_pc_set_coordinates(gcoo_pc pc, const gcoo_dense *XYZ, int block_size);
/** How LU hands the matrix to MUMPS (takes effect at the next set-up). GCOO_ERR_INVALID_ARG for
 *  a value outside the enumeration. Not collective (every rank must choose the same). */
gcoo_status gcoo_pc_set_lu_input(gcoo_pc pc, gcoo_lu_input input);
/** The hierarchy the last AMG set-up built. GCOO_ERR_INVALID_ARG when the preconditioner is not
 *  AMG or not set up. Not collective (the figures are global). */
gcoo_status gcoo_pc_get_amg_info(gcoo_pc pc, gcoo_amg_info *info);

#ifdef __cplusplus
}
#endif
#endif
