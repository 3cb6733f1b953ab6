/* SPDX-License-Identifier: MIT */
/* solver/amg/amg_impl.h: the private objects of smoothed aggregation AMG (solver/pc_amg.c) and
 * the steps of its set-up and cycle, one file each:
 *
 *   amg_csr.c        host CSR helpers of the set-up (double): transpose, diagonal, the columns
 *                    of a rank's rows made compact against a halo, the predicted SpGEMM
 *   amg_aggregate.c  strength of connection and aggregation (rank-local, deterministic)
 *   amg_prolong.c    near-null space, tentative prolongator (QR per aggregate), its smoothing
 *   amg_galerkin.c   the transpose R = P^T across ranks and the Galerkin product R (A P)
 *   amg_spectral.c   rho(D^-1 A) by Lanczos in the D inner product
 *   amg_coarse.c     the coarsest level: dense Cholesky (LU when not SPD), replicated
 *   amg_cycle.c      the V- and W-cycle with Chebyshev or l1-Jacobi smoothing on n x k blocks
 *
 * The set-up computes in double on the host; the cycle runs in the operator's element type on
 * the library's products (the distributed SpMM of each level's operator, prolongator and
 * restriction) and the block-vector table (gcoo_vec_ops.smooth_step), so that a device backend
 * can serve it. Private to solver/. */
#ifndef GCOO_AMG_IMPL_H
#define GCOO_AMG_IMPL_H

#include "dist_access.h"
#include "gcoo/config.h"
#include "solver_impl.h"

/* One level of the hierarchy. Level 0's operator is the solver's (not owned). */
typedef struct amg_level {
  int64_t n_global, nnz_global; /* rows and entries of the level's operator */
  int64_t row0, n;              /* this rank's rows */
  int64_t *row_begin;           /* size + 1: every rank's first row */
  int bs;                       /* unknowns per node (aggregation works on nodes) */
  int ranks;                    /* ranks holding rows */
  gcoo_sparse A;                /* this rank's rows, global columns, double (set-up) */
  gcoo_dist_op Aop;             /* the operator of the cycle's products */
  int own_op;                   /* Aop made here (levels > 0) */
  double *diag;                 /* n: a_ii */
  gcoo_dense dinv;              /* n x 1, the element type: the smoother's diagonal inverse */
  double rho;                   /* estimate of rho(D^-1 A) */
  /* to the next coarser level */
  int32_t *agg;     /* nodes: this rank's aggregate of each node, -1: none */
  int64_t nagg;     /* aggregates on this rank */
  gcoo_sparse Pt;   /* tentative prolongator: this rank's rows, global coarse columns */
  gcoo_sparse P;    /* smoothed prolongator, the same layout */
  gcoo_sparse Bc;   /* coarse near-null space: the next level's rows (CSR, b columns) */
  gcoo_dist_op Pop; /* X_fine += P X_coarse */
  gcoo_dist_op Rop; /* B_coarse = R Res_fine, R = P^T */
  /* workspace of the cycle, n x kcap in the element type */
  gcoo_dense X, B, Res, D, W;
} amg_level;

/* The coarsest level's direct solve: the matrix gathered on every rank, factored once. */
typedef struct amg_coarse {
  int64_t n;            /* rows (global) */
  double *F;            /* n x n factor, column-major (LAPACK) */
  int *ipiv;            /* LU pivots (NULL: Cholesky) */
  int *counts, *displs; /* per rank rows, for the gathers */
  double *rhs;          /* n x kcap, column-major */
  double *buf;          /* n x kcap row-major gather buffer */
} amg_coarse;

typedef struct amg {
  gcoo_dist d;
  gcoo_ctx ctx;
  gcoo_dtype dtype;
  int nlevels;
  amg_level level[32];
  amg_coarse coarse;
  int64_t kcap; /* columns the workspace holds */
  gcoo_amg_info info;
  int nullspace_dim; /* b: vectors of the near-null space */
} amg;

/** x[0..n) into the n x 1 host block X of the element type, and back. */
static inline void amg_put(const double *x, gcoo_dense *X) {
  if (X->dtype == GCOO_FLOAT64)
    for (int64_t i = 0; i < X->nrows; i++) ((double *)X->data)[i * X->ld] = x[i];
  else
    for (int64_t i = 0; i < X->nrows; i++) ((float *)X->data)[i * X->ld] = (float)x[i];
}
static inline void amg_get(const gcoo_dense *X, double *x) {
  if (X->dtype == GCOO_FLOAT64)
    for (int64_t i = 0; i < X->nrows; i++) x[i] = ((const double *)X->data)[i * X->ld];
  else
    for (int64_t i = 0; i < X->nrows; i++) x[i] = ((const float *)X->data)[i * X->ld];
}

/* ---- amg_csr.c ------------------------------------------------------------------------------ */
/** A new nrows x ncols CSR matrix in double with room for nnz entries (arrays uninitialised). */
gcoo_status gcoo__amg_csr_alloc(gcoo__csr_arrays *a, int64_t nrows, int64_t nnz);
/** The CSR view of a double matrix, values writable (the set-up's own matrices). */
gcoo_status gcoo__amg_view(gcoo_sparse M, gcoo_csr_view *v);
/** C = A^T on one rank, O(nnz), columns sorted. */
gcoo_status gcoo__amg_transpose(gcoo_sparse A, gcoo_sparse *C);
/** M's rows with columns made local to a PARTITIONED operator's X: own columns
 *  [x0, x0 + xn) -> 0 .., halo column g -> xn + its place in halo (sorted). */
gcoo_status gcoo__amg_compact_columns(gcoo_sparse M, int64_t x0, int64_t xn, int64_t nhalo,
                                      const int32_t *halo, gcoo_sparse *C);
/** [top; bottom]: the rows of one matrix over those of another (same columns). */
gcoo_status gcoo__amg_stack_rows(gcoo_sparse top, gcoo_sparse bottom, gcoo_sparse *C);
/** C = A B by the library's SpGEMM on ctx (the CPU's with the sampled predictor's per-row
 *  FLOP); *predicted = the predictor's nnz. */
gcoo_status gcoo__amg_spgemm(gcoo_ctx ctx, gcoo_sparse A, gcoo_sparse B, gcoo_sparse *C,
                             int64_t *predicted);
/** The element type's copy of a double matrix (a clone for double). */
gcoo_status gcoo__amg_as_dtype(gcoo_sparse M, gcoo_dtype dtype, gcoo_sparse *C);

/* ---- amg_aggregate.c ------------------------------------------------------------------------ */
/** Aggregates of this rank's nodes (bs rows each) from the strong connections of the rows'
 *  diagonal block (|a_ij| >= theta sqrt(|a_ii a_jj|), block norms for bs > 1): standard
 *  aggregation (Vanek, Mandel, Brezina) in the nodes' order. agg[node] = aggregate or -1 (no
 *  strong neighbour: left to the smoother). *t_strength: seconds of the strength graph. */
gcoo_status gcoo__amg_aggregate(const amg_level *L, double theta, int32_t *agg, int64_t *nagg,
                                double *t_strength);

/* ---- amg_prolong.c -------------------------------------------------------------------------- */
/** The level-0 near-null space (n x b row-major, double): the caller's vectors, rigid-body
 *  modes from coordinates, or the constant vector. */
gcoo_status gcoo__amg_nullspace(gcoo_pc pc, int64_t n, double **B, int *b);
/** Tentative prolongator from the aggregates and the level's near-null space B (n x b):
 *  per aggregate the QR of its rows of B; Q gives P_t's entries (columns col0 + agg b + m),
 *  R the coarse near-null space rows (into *Bc, nagg b x b row-major). */
gcoo_status gcoo__amg_tentative(const amg_level *L, const double *B, int b, int64_t col0,
                                int64_t ncols, gcoo_sparse *Pt, double *Bc);
/** P = P_t - w D^-1 (A P_t) from A P_t (own rows). */
gcoo_status gcoo__amg_smooth_prolongator(gcoo_sparse APt, gcoo_sparse Pt, const double *diag,
                                         double w, gcoo_sparse *P);

/* ---- amg_galerkin.c ------------------------------------------------------------------------- */
/** A M for this rank's rows of A (global columns) and M distributed like A's X (own rows),
 *  the rows of M its halo needs fetched from their owners. */
gcoo_status gcoo__amg_dist_product(amg *H, gcoo_dist_op Aop, gcoo_sparse A, int64_t x0, int64_t xn,
                                   gcoo_sparse M, gcoo_sparse *C, int64_t *predicted);
/** This rank's rows of R = P^T under the coarse partition cbegin (one rank: a transpose;
 *  more: P's entries sent to the owners of their coarse rows). */
gcoo_status gcoo__amg_restriction(amg *H, gcoo_sparse P, int64_t row0, int64_t n_fine,
                                  const int64_t *cbegin, gcoo_sparse *R);

/* ---- amg_spectral.c ------------------------------------------------------------------------- */
/** rho(D^-1 A) of the level (its Aop and diag): steps of Lanczos in the D inner product. */
gcoo_status gcoo__amg_rho(amg *H, amg_level *L, int steps, double *rho);

/* ---- amg_coarse.c --------------------------------------------------------------------------- */
/** Gather the level's matrix on every rank and factor it. */
gcoo_status gcoo__amg_coarse_setup(amg *H, const amg_level *L);
/** X = A^-1 B for the level's own rows (B, X: n x k blocks). Collective. */
gcoo_status gcoo__amg_coarse_solve(amg *H, const amg_level *L, const gcoo_dense *B, gcoo_dense *X);
void gcoo__amg_coarse_free(amg_coarse *C);

/* ---- amg_cycle.c ---------------------------------------------------------------------------- */
/** Workspace for k columns on every level (grown, never shrunk). Collective. */
gcoo_status gcoo__amg_reserve(amg *H, int64_t k);
/** Z = one cycle applied to R. Collective. */
gcoo_status gcoo__amg_cycle_apply(amg *H, const gcoo_amg_options *o, const gcoo_dense *R,
                                  gcoo_dense *Z);
void gcoo__amg_workspace_free(amg *H);

/* ---- LAPACK (Fortran symbols) ----------------------------------------------------------------
 * AMG needs LAPACK (GCOO_HAVE_LAPACK); without it the set-up refuses before any of these runs
 * (pc_amg.c), and they stand in as stubs so that the files still compile. */
#if GCOO_HAVE_LAPACK
void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info);
void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda,
             double *b, const int *ldb, int *info);
void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
void dgetrs_(const char *trans, const int *n, const int *nrhs, const double *a, const int *lda,
             const int *ipiv, double *b, const int *ldb, int *info);
void dgeqrf_(const int *m, const int *n, double *a, const int *lda, double *tau, double *work,
             const int *lwork, int *info);
void dorgqr_(const int *m, const int *n, const int *k, double *a, const int *lda, const double *tau,
             double *work, const int *lwork, int *info);
void dstev_(const char *jobz, const int *n, double *d, double *e, double *z, const int *ldz,
            double *work, int *info);
#else
#define GCOO_AMG_NO_LAPACK(info) (*(info) = -1000)
#define dpotrf_(uplo, n, a, lda, info) GCOO_AMG_NO_LAPACK(info)
#define dpotrs_(uplo, n, nrhs, a, lda, b, ldb, info) GCOO_AMG_NO_LAPACK(info)
#define dgetrf_(m, n, a, lda, ipiv, info) GCOO_AMG_NO_LAPACK(info)
#define dgetrs_(trans, n, nrhs, a, lda, ipiv, b, ldb, info) GCOO_AMG_NO_LAPACK(info)
#define dgeqrf_(m, n, a, lda, tau, work, lwork, info) GCOO_AMG_NO_LAPACK(info)
#define dorgqr_(m, n, k, a, lda, tau, work, lwork, info) GCOO_AMG_NO_LAPACK(info)
#define dstev_(jobz, n, d, e, z, ldz, work, info) GCOO_AMG_NO_LAPACK(info)
#endif

#endif
