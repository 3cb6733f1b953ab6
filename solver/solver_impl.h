/* SPDX-License-Identifier: MIT */
/* solver/solver_impl.h: the private objects of the solver layer (gcoo/ksp.h, gcoo/pc.h) and the
 * pieces its methods and preconditioners share: the run of one solve (tolerances per column,
 * the convergence bookkeeping, timers), block-vector passes reduced over ranks, and the
 * preconditioner's table of functions. Private to solver/ (and to its tests). */
#ifndef GCOO_SOLVER_IMPL_H
#define GCOO_SOLVER_IMPL_H

#include <stdio.h>

#include <mpi.h>

#include "backend_impl.h"
#include "gcoo/blas.h"
#include "mpi_check.h"
#include "gcoo/ksp.h"
#include "gcoo/solver.h"

#define GCOO_MAGIC_KSP 0x67636f6f6b737021ull /* "gcooksp!" */
#define GCOO_MAGIC_PC 0x67636f6f70637063ull  /* "gcoopcpc" */

/* The largest GMRES restart (the Krylov basis holds restart + 1 blocks of n x k). */
#define GCOO_GMRES_MAX_M 1000

/* ---- preconditioners (pc.c and one file per type) ------------------------------------------- */
typedef struct gcoo_pc_ops {
  const char *name;
  /** Build on A (full set-up, or numeric-only when pc->same_pattern and built before). */
  gcoo_status (*setup)(gcoo_pc pc);
  /** Z = M^{-1} R for this rank's n x k blocks (Z and R distinct). Collective. */
  gcoo_status (*apply)(gcoo_pc pc, const gcoo_dense *R, gcoo_dense *Z);
  /** Free what setup made (pc->data); safe on a preconditioner never set up. */
  void (*destroy)(gcoo_pc pc);
  /** One line ("amg (4 levels)") into buf. */
  void (*describe)(gcoo_pc pc, char *buf, size_t len);
} gcoo_pc_ops;

struct gcoo_pc_s {
  uint64_t magic;
  gcoo_pc_type type;
  const gcoo_pc_ops *ops;
  gcoo_dist_op A;         /* the operator it is built on */
  int built;              /* set up on A */
  int stale;              /* A's values changed since (gcoo_ksp_set_operator): set up again */
  int same_pattern;       /* the next set-up may reuse what depends on A's pattern alone */
  gcoo_amg_options amg;   /* AMG options */
  gcoo_dense nullspace;   /* AMG near-null space (host copy; data NULL: constants) */
  gcoo_dense coords;      /* AMG nodal coordinates (host copy; data NULL: none) */
  int block_size;         /* with coords: unknowns per node */
  gcoo_lu_input lu_input; /* LU: how MUMPS gets the matrix */
  void *data;             /* the type's own state */
  double setup_seconds;   /* of the last set-up */
};

/* The preconditioners' tables: pc_jacobi.c (none, jacobi), pc_amg.c, pc_lu.c. */
extern const gcoo_pc_ops gcoo__pc_none_ops, gcoo__pc_jacobi_ops, gcoo__pc_amg_ops, gcoo__pc_lu_ops;

/** The inverse diagonal of a Jacobi preconditioner (n x 1 in the operator's memory), for methods
 *  that fuse it into their passes; NULL for other types or before set-up. */
const gcoo_dense *gcoo__pc_jacobi_dinv(gcoo_pc pc);

/** The hierarchy report of a built AMG preconditioner (pc_amg.c). */
gcoo_status gcoo__amg_info(gcoo_pc pc, gcoo_amg_info *info);

/** Checks of options structs: GCOO_ERR_INVALID_ARG naming the bad field. */
gcoo_status gcoo__ksp_options_check(const gcoo_ksp_options *o);
gcoo_status gcoo__amg_options_check(const gcoo_amg_options *o);

/** Make and free the preconditioner a solver owns. */
gcoo_status gcoo__pc_create(gcoo_pc *pc);
void gcoo__pc_destroy(gcoo_pc *pc);
/** Set up on A when not set up on it (collective); timed in pc->setup_seconds. */
gcoo_status gcoo__pc_setup(gcoo_pc pc, gcoo_dist_op A);
/** Z = M^{-1} R. Collective. */
gcoo_status gcoo__pc_apply(gcoo_pc pc, const gcoo_dense *R, gcoo_dense *Z);

/* ---- the solver object ---------------------------------------------------------------------- */
struct gcoo_ksp_s {
  uint64_t magic;
  gcoo_dist_op A;
  gcoo_dist d;
  gcoo_ctx ctx;
  gcoo_ksp_options o;
  gcoo_pc pc;
  int setup_done;
  int64_t n;        /* this rank's rows */
  gcoo_dtype dtype; /* the operator's */
  double setup_seconds;
  struct gcoo_bcg_stats *bcg; /* block CG's own figures for gcoo_dist_bcg_solve (or NULL) */
};

/** Block CG's figures that gcoo_ksp_result does not carry (gcoo_bcg_result has them). */
typedef struct gcoo_bcg_stats {
  double t_blas;
  int64_t explicit_blocks;
  gcoo_spdm_alg spmm_alg;
} gcoo_bcg_stats;

/* ---- one solve ------------------------------------------------------------------------------ */
/* What a method sees: the scaled system (each column of B of norm 1, X scaled alike), the
 * tolerance of each column in those units, and where it records what happened. Methods report
 * each column's stop through gcoo__run_check; they stop when no column is active. */
typedef struct gcoo__run {
  gcoo_ksp ksp;
  gcoo_ctx ctx;
  gcoo_memspace mem;
  gcoo_dtype dtype;
  int64_t n, k;
  const double *tol;       /* k: stop column j when its residual norm <= tol[j] (scaled units) */
  double dtol;             /* divergence threshold on the scaled residual norm */
  int64_t maxit;           /* iterations this call may take */
  int64_t it0;             /* iterations taken by earlier calls of this solve (restarts) */
  gcoo_ksp_reason *reason; /* k: ITERATING while active */
  int64_t *its;            /* k: iteration at which the column stopped (counting it0) */
  double *res;             /* k: last residual norm (scaled units = relative residual) */
  double *history;         /* history_cap x k, or NULL */
  int64_t history_cap;     /* rows history holds */
  int64_t history_len;     /* rows of history recorded (iterations + 1) */
  int64_t iterations;      /* iterations this call took */
  int x_zero;              /* X is zero on entry: the initial residual is B, no product needed */
  gcoo_ksp_result *out;    /* timers and counters */
  gcoo_bcg_stats *bcg;     /* block CG's figures (or NULL) */
  double rank_tol;         /* block CG's pivot threshold (0: by dtype) */
} gcoo__run;

/** Record iteration it's residual norms rnorm[k] (scaled) of the active columns: a column whose
 *  norm is <= tol stops converged, one that is NaN or Inf or above dtol stops diverged; history
 *  and the monitor get them. Returns the number of columns still active. */
int64_t gcoo__run_check(gcoo__run *r, int64_t it, const double *rnorm);
/** Stop column j with reason at iteration it (breakdowns, the iteration limit). */
void gcoo__run_stop(gcoo__run *r, int64_t j, int64_t it, gcoo_ksp_reason reason);
/** Active columns. */
int64_t gcoo__run_active(const gcoo__run *r);

/** A method: solve the scaled system B (n x k, column norms 1 or 0) into X (holding the initial
 *  guess) within r->maxit iterations. */
typedef gcoo_status (*gcoo__ksp_method)(gcoo__run *r, const gcoo_dense *B, gcoo_dense *X);
gcoo_status gcoo__ksp_cg(gcoo__run *r, const gcoo_dense *B, gcoo_dense *X);
gcoo_status gcoo__ksp_bcg(gcoo__run *r, const gcoo_dense *B, gcoo_dense *X);
gcoo_status gcoo__ksp_pipecg(gcoo__run *r, const gcoo_dense *B, gcoo_dense *X);
gcoo_status gcoo__ksp_gmres(gcoo__run *r, const gcoo_dense *B, gcoo_dense *X);
gcoo_status gcoo__ksp_fgmres(gcoo__run *r, const gcoo_dense *B, gcoo_dense *X);
gcoo_status gcoo__ksp_bicgstab(gcoo__run *r, const gcoo_dense *B, gcoo_dense *X);
/** CG and block CG on device operands (unscaled B, the device-resident iterations of
 *  kernels/solver/pcg_cuda.cu); computes the true residual itself. */
gcoo_status gcoo__ksp_bcg_device(gcoo__run *r, const gcoo_dense *B, gcoo_dense *X);

/* ---- the pieces methods share (ksp_ops.c) --------------------------------------------------- */
/** Y = A X (timed, counted). Collective. */
gcoo_status gcoo__run_apply_A(gcoo__run *r, const gcoo_dense *X, gcoo_dense *Y);
/** Z = M^{-1} R (timed, counted). Collective. */
gcoo_status gcoo__run_apply_pc(gcoo__run *r, const gcoo_dense *R, gcoo_dense *Z);
/** Sum count doubles over ranks in place (timed). Collective. */
gcoo_status gcoo__run_allreduce(gcoo__run *r, double *buf, int64_t count);
/** A non-blocking sum over ranks: start it, do other work, finish it (pipelined CG). */
typedef struct gcoo__iallreduce {
  MPI_Request req;
  int pending;
} gcoo__iallreduce;
gcoo_status gcoo__run_iallreduce_begin(gcoo__run *r, double *buf, int64_t count,
                                       gcoo__iallreduce *h);
gcoo_status gcoo__run_iallreduce_end(gcoo__run *r, gcoo__iallreduce *h);

/** The vector table serving blocks in mem (host: gcoo__vec_host; device: the backend's), or
 *  GCOO_ERR_UNSUPPORTED naming the method when there is none. */
gcoo_status gcoo__run_vec(const gcoo__run *r, const char *method, const gcoo_vec_ops **ops);
/** A new n x k block (zeroed, first touch by the same threads as every later pass). */
gcoo_status gcoo__block_create(gcoo__run *r, int64_t ncols, gcoo_dense *V);
void gcoo__block_destroy(gcoo__run *r, gcoo_dense *V);
/** Column norms of V, global, overflow- and underflow-free (Blue's sums over ranks). */
gcoo_status gcoo__run_norms(gcoo__run *r, const gcoo_dense *V, double *norms);
/** R = B - A X. */
gcoo_status gcoo__run_residual(gcoo__run *r, const gcoo_dense *B, const gcoo_dense *X,
                               gcoo_dense *R);

/** Solve as gcoo_ksp_solve with a run's figures also for block CG's caller (gcoo_dist_bcg_solve);
 *  bcg may be NULL. */
gcoo_status gcoo__ksp_solve(gcoo_ksp ksp, const gcoo_dense *B, gcoo_dense *X,
                            gcoo_ksp_result *result, gcoo_bcg_stats *bcg, double rank_tol);

#endif
