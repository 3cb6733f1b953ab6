/* SPDX-License-Identifier: MIT */
/* solver/pc_lu.c: a sparse direct solve as a preconditioner (Z = A^{-1} R): the LU factors of
 * the operator by MUMPS, on the operator's ranks.
 *
 * The matrix reaches MUMPS one of two ways (gcoo_pc_set_lu_input, -pc_lu_input central|distributed;
 * by default central while the matrix has fewer than 2^31 entries, MPI's count limit for the
 * gather):
 *   central      the ranks' rows are gathered on rank 0 (ICNTL(18) = 0), which lets MUMPS permute
 *                a large entry onto every diagonal and scale the matrix with its values
 *                (maximum transversal, ICNTL(6) = 7) before ordering. MUMPS refuses that on
 *                distributed input, and the hard unsymmetric matrices pay for its absence in
 *                delayed pivots: two ranks, set-up + solve, bayer10 0.17 s against 18.4 s,
 *                bp_1600 0.004 s against 0.065 s, TSOPF_RS_b39_c30 0.86 s against 1.19 s
 *                (PETSc, which passes distributed input on more than one rank, fails on
 *                bayer10, bp_1600 and west0479 with INFOG(1) = -9); a structurally singular
 *                matrix is named at the analysis. Unless MUMPS has a parallel ordering, its
 *                analysis gathers the graph on rank 0 anyway, so the gather costs the values;
 *   distributed  each rank hands MUMPS its own rows (ICNTL(18) = 3, global 1-based indices):
 *                nothing is gathered, for matrices too large for rank 0.
 * Either way the k right-hand sides stay on the operator's ranks (distributed dense right-hand
 * sides, ICNTL(20) = 10) and so does the solution (ICNTL(21) = 1), which MUMPS leaves in its own
 * distribution (the rows each rank's fronts eliminated): one all-to-all brings every row back to
 * the rank that owns it in the operator, by a plan made at the first solve after a
 * factorisation (the mapping depends on the factors only). Set-up is the analysis (ordering,
 * symbolic factorisation) and the numeric factorisation; after gcoo_ksp_set_operator(...,
 * same_pattern = 1) only the numeric factorisation runs again, on the analysis kept (if the
 * pattern did change after all, the analysis is redone rather than factor a matrix it does not
 * describe). Null pivots are detected (ICNTL(24) = 1): a numerically singular matrix is an
 * error, never a solution made of noise.
 *
 * A double solution is checked: where ||R - A Z|| > 1e-12 ||R|| in some column, one step of
 * iterative refinement follows (Z += (LU)^{-1} (R - A Z)), as MUMPS's ICNTL(10) would do on a
 * centralized solution (it refuses on a distributed one). It recovers what the pivot order lost
 * (fe_4elt2, two ranks: 1.4e-10 -> 1.3e-13; whitaker3 5.5e-10 -> 1.4e-12) for one product and
 * one more solve; it cannot pass the floor of a residual evaluated in double,
 * eps ||A|| ||x|| / ||b|| (adder_dcop_05, bayer10: near 1e-10).
 *
 * Float operators are factored in double precision (dmumps on the values converted): a float
 * LU (smumps) leaves a residual of about cond(A) * 6e-8, which is no answer for the hard
 * matrices a direct solver is for (west0479: cond ~1e12), while double factors give the float
 * system's solution to float's own accuracy; the price is the double-precision factors' memory.
 *
 * MUMPS reports through INFOG(1) and INFOG(2), the same on every rank; they are decoded into a
 * gcoo status and a message that names the problem (a singular matrix, memory, ...), so every
 * rank returns the same error. MUMPS prints nothing unless GCOO_DEBUG=TRACE (then its own
 * diagnostics go to standard output, Fortran unit 6: MUMPS takes unit 0 as "off"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver_impl.h"

#if GCOO_HAVE_MUMPS

#include <dmumps_c.h>

/* MUMPS's arrays by the 1-based numbers its user guide uses */
#define ICNTL(i) icntl[(i)-1]
#define INFO(i) info[(i)-1]
#define INFOG(i) infog[(i)-1]
#define RINFOG(i) rinfog[(i)-1]

enum { JOB_INIT = -1, JOB_END = -2, JOB_ANALYSE = 1, JOB_FACTOR = 2, JOB_SOLVE = 3 };

/* MUMPS's orderings (ICNTL(7)): approximate minimum fill, and METIS (MUMPS's default ordering
 * when it was built without METIS); nested dissection is tried past this many flops. */
#define LU_ORDERING_AMF 2
#define LU_ORDERING_METIS 5
#define LU_NESTED_FLOPS 1e10

/* A double solution whose relative residual exceeds this takes one step of iterative
 * refinement. */
#define LU_REFINE_RTOL 1e-12

/* Factorisations retried with a larger workspace relaxation (ICNTL(14)) when MUMPS's estimate
 * from the analysis proves too small (delayed pivots). */
#define LU_WORKSPACE_RETRIES 3

typedef struct lu {
  DMUMPS_STRUC_C id;
  MPI_Comm comm;   /* MUMPS's own duplicate of the operator's communicator */
  int initialised; /* JOB_INIT done: JOB_END is owed */
  int nranks, rank;
  int64_t n, row0, nrows; /* global order, this rank's first row and row count */
  int64_t *row_begin;     /* nranks + 1: the operator's row partition */
  int64_t nnz;            /* this rank's entries */
  MUMPS_INT *irn, *jcn;   /* their 1-based global rows and columns */
  double *a;              /* their values in double */
  MUMPS_INT *irhs;        /* this rank's rows, 1-based (distributed right-hand sides) */
  double *rhs, *sol;      /* column-major blocks: nrows x k and lsol x k */
  MUMPS_INT *isol;        /* lsol: the rows of sol (MUMPS's distribution) */
  int64_t k_cap;          /* columns rhs and sol hold */
  int64_t lsol;           /* INFO(23): solution rows MUMPS leaves on this rank */
  /* the way back: sol's rows sent to their owners, in owner order */
  int planned;
  int *send_count, *send_displ, *recv_count, *recv_displ; /* nranks each, in rows */
  int64_t *send_from;                                     /* lsol: row of sol sent in position e */
  int64_t *recv_to; /* nrows: local row received in position e */
  double *send_buf, *recv_buf;
  int64_t factorisations; /* numeric factorisations done on the current analysis */
  int64_t refinements;    /* applications that took a refinement step */
  int central;            /* the matrix is handed to MUMPS on rank 0 (ICNTL(18) = 0) */
  int *gcount, *gdispl;   /* central, rank 0: entries of each rank, their offsets */
  MUMPS_INT *girn, *gjcn; /* central, rank 0, more than one rank: all the triplets */
  double *ga;
} lu;

/* ---- MUMPS's reports as gcoo statuses ------------------------------------------------------ */

static const char *phase_name(int job) {
  switch (job) {
    case JOB_INIT: return "initialisation";
    case JOB_ANALYSE: return "analysis";
    case JOB_FACTOR: return "factorisation";
    case JOB_SOLVE: return "solve";
    default: return "termination";
  }
}

/* The status for MUMPS's INFOG(1) < 0 after a call of job (user guide 5.5, "Error
 * diagnostics"); the same on every rank, since INFOG is global. */
static gcoo_status mumps_error(const lu *L, int job) {
  const int e = L->id.INFOG(1), e2 = L->id.INFOG(2);
  const char *ph = phase_name(job);
  const long long n = (long long)L->n;
  switch (e) {
    case -6:
      return GCOO_ERROR(GCOO_ERR_INVALID_ARG,
                        "LU: the matrix is singular: its pattern has structural rank %d of %lld "
                        "(MUMPS %s, INFOG(1) = -6)",
                        e2, n, ph);
    case -10:
      return GCOO_ERROR(GCOO_ERR_INVALID_ARG,
                        "LU: the matrix is singular: MUMPS found a zero pivot after eliminating "
                        "%d of %lld rows (%s, INFOG(1) = -10)",
                        e2, n, ph);
    case -5:
    case -7:
    case -13:
      return GCOO_ERROR(GCOO_ERR_NO_MEMORY,
                        "LU: out of memory: MUMPS could not allocate %.3g entries of workspace in "
                        "the %s (INFOG(1) = %d, INFOG(2) = %d; workspace relaxation ICNTL(14) = "
                        "%d%%)",
                        e2 < 0 ? -1e6 * e2 : (double)e2, ph, e, e2, L->id.ICNTL(14));
    case -8:
    case -9:
    case -11:
    case -12:
    case -14:
    case -15:
    case -17:
    case -20:
      return GCOO_ERROR(GCOO_ERR_NO_MEMORY,
                        "LU: out of memory: MUMPS's workspace estimated by the analysis was too "
                        "small for the %s even with ICNTL(14) = %d%% more (delayed pivots of a "
                        "hard matrix; INFOG(1) = %d, INFOG(2) = %d)",
                        ph, L->id.ICNTL(14), e, e2);
    case -19:
      return GCOO_ERROR(GCOO_ERR_NO_MEMORY,
                        "LU: out of memory: the %s needs more than MUMPS's per-rank memory limit "
                        "ICNTL(23) = %d MB (INFOG(1) = -19, INFOG(2) = %d)",
                        ph, L->id.ICNTL(23), e2);
    case -16:
      return GCOO_ERROR(GCOO_ERR_TOO_LARGE,
                        "LU: MUMPS refused the matrix order %d (INFOG(1) = -16, %s)", e2, ph);
    case -2:
      return GCOO_ERROR(GCOO_ERR_TOO_LARGE,
                        "LU: MUMPS refused the number of entries %d (INFOG(1) = -2, %s)", e2, ph);
    case -23:
      return GCOO_ERROR(GCOO_ERR_MPI, "LU: MUMPS found MPI not initialised (INFOG(1) = -23)");
    default:
      return GCOO_ERROR(GCOO_ERR_INTERNAL,
                        "LU: MUMPS failed in the %s: INFOG(1) = %d, INFOG(2) = %d (see the MUMPS "
                        "user guide, 'Error diagnostics'; GCOO_DEBUG=TRACE shows MUMPS's own "
                        "messages)",
                        ph, e, e2);
  }
}

/* Run a MUMPS phase on every rank (the caller has agreed that all ranks get here). */
static void mumps_run(lu *L, int job) {
  L->id.job = job;
  dmumps_c(&L->id);
  if (L->id.INFOG(1) > 0)
    GCOO_LOG(GCOO_LOG_INFO, "LU", "MUMPS %s warning INFOG(1) = %d, INFOG(2) = %d", phase_name(job),
             L->id.INFOG(1), L->id.INFOG(2));
}

/* mumps_run and its status. */
static gcoo_status mumps_call(lu *L, int job) {
  mumps_run(L, job);
  if (L->id.INFOG(1) < 0) return mumps_error(L, job);
  return GCOO_SUCCESS;
}

/* ---- the matrix -------------------------------------------------------------------------- */

/* Does the CSR slab s hold the entries of the triplets L keeps, in the same order? */
static int same_pattern(const lu *L, const gcoo_sparse_arrays *s, int64_t nnz) {
  if (nnz != L->nnz || !L->irn) return 0;
  for (int64_t i = 0; i < L->nrows; i++)
    for (int64_t e = s->ptr[i]; e < s->ptr[i + 1]; e++)
      if (L->irn[e] != (MUMPS_INT)(L->row0 + i + 1) || L->jcn[e] != (MUMPS_INT)s->ind[e] + 1)
        return 0;
  return 1;
}

/* This rank's rows of A as MUMPS triplets; with compare, *same tells whether the pattern is
 * the one held (then only the values are replaced). */
static gcoo_status read_matrix(gcoo_pc pc, lu *L, int compare, int *same) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_sparse slab = NULL;
  MUMPS_INT *irn = NULL, *jcn = NULL;
  double *a = NULL;
  gcoo_dist_op_info info;
  *same = 0;
  GCOO_GOTO(gcoo_dist_op_get_info(pc->A, &info));
  GCOO_GOTO(gcoo_dist_op_get_local_matrix(pc->A, &slab));
  gcoo_sparse_arrays s;
  GCOO_GOTO(gcoo_sparse_get_arrays(slab, &s));
  const int64_t nnz = L->nrows > 0 ? s.ptr[L->nrows] : 0, cap = nnz > 0 ? nnz : 1;
  *same = compare && same_pattern(L, &s, nnz);
  if (!*same) {
    GCOO_GOTO(gcoo__malloc_n((void **)&irn, cap, sizeof *irn, "LU row indices"));
    GCOO_GOTO(gcoo__malloc_n((void **)&jcn, cap, sizeof *jcn, "LU column indices"));
    GCOO_GOTO(gcoo__malloc_n((void **)&a, cap, sizeof *a, "LU values"));
    for (int64_t i = 0; i < L->nrows; i++)
      for (int64_t e = s.ptr[i]; e < s.ptr[i + 1]; e++) {
        irn[e] = (MUMPS_INT)(L->row0 + i + 1);
        jcn[e] = (MUMPS_INT)s.ind[e] + 1;
      }
  }
  double *v = *same ? L->a : a;
  const int dbl = info.local.dtype == GCOO_FLOAT64;
  for (int64_t e = 0; e < nnz; e++) {
    v[e] = dbl ? ((const double *)s.values)[e] : ((const float *)s.values)[e];
    if (!isfinite(v[e])) {
      int64_t i = gcoo__segment_of(s.ptr, L->nrows, e);
      GCOO_CHECK_GOTO(0, GCOO_ERR_NOT_FINITE,
                      "LU: A(%lld, %lld) = %g: the matrix has a NaN or an infinity",
                      (long long)(L->row0 + i), (long long)s.ind[e], v[e]);
    }
  }
  if (!*same) {
    free(L->irn);
    free(L->jcn);
    free(L->a);
    L->irn = irn;
    L->jcn = jcn;
    L->a = a;
    irn = jcn = NULL;
    a = NULL;
    L->nnz = nnz;
  }
done:
  free(irn);
  free(jcn);
  free(a);
  gcoo_sparse_destroy(&slab);
  return st;
}

/* MUMPS's instance on a duplicate of the operator's communicator, quiet unless GCOO_DEBUG=TRACE,
 * set for distributed input, right-hand sides and solution. */
static gcoo_status mumps_init(gcoo_pc pc, lu *L) {
  gcoo_dist d = gcoo_dist_op_get_dist(pc->A);
  GCOO_CALL(GCOO_MPI(MPI_Comm_dup(gcoo_dist_comm(d), &L->comm)));
  L->id.comm_fortran = (MUMPS_INT)MPI_Comm_c2f(L->comm);
  L->id.par = 1; /* the host rank works too */
  L->id.sym = 0; /* general unsymmetric LU */
  GCOO_CALL(mumps_call(L, JOB_INIT));
  L->initialised = 1;
  const int verbose = gcoo__log_level() >= GCOO_LOG_TRACE;
  L->id.ICNTL(1) = verbose ? 6 : -1; /* error messages */
  L->id.ICNTL(2) = verbose ? 6 : -1; /* diagnostics and warnings */
  L->id.ICNTL(3) = verbose ? 6 : -1; /* global information */
  L->id.ICNTL(4) = verbose ? 2 : 0;  /* printing level */
  L->id.ICNTL(20) = 10;              /* distributed dense right-hand sides */
  L->id.ICNTL(24) = 1;               /* detect null pivots: a singular matrix is an error */
  L->id.ICNTL(21) = 1;               /* distributed solution */
  return GCOO_SUCCESS;
}

/* Analysis on the triplets held (their values too: the column permutation and scaling of
 * ICNTL(6) and ICNTL(8) use them), with one fill-reducing ordering (ICNTL(7)). */
static gcoo_status analyse_with(lu *L, int ordering) {
  L->id.n = (MUMPS_INT)L->n;
  L->id.ICNTL(7) = ordering;
  if (L->central) {
    L->id.ICNTL(18) = 0;
    L->id.nnz = L->nranks == 1 ? L->nnz : (L->rank == 0 ? L->gdispl[L->nranks] : 0);
    L->id.irn = L->nranks == 1 ? L->irn : L->girn;
    L->id.jcn = L->nranks == 1 ? L->jcn : L->gjcn;
    L->id.a = L->nranks == 1 ? L->a : L->ga;
  } else {
    L->id.ICNTL(18) = 3;
    L->id.nnz_loc = L->nnz;
    L->id.irn_loc = L->irn;
    L->id.jcn_loc = L->jcn;
    L->id.a_loc = L->a;
  }
  GCOO_CALL(mumps_call(L, JOB_ANALYSE));
  return GCOO_SUCCESS;
}

/* The analysis, its ordering chosen by MUMPS's own estimate of the factorisation's flops
 * (RINFOG(1)): approximate minimum fill first, whose analysis is quick; when that predicts
 * more than LU_NESTED_FLOPS, nested dissection too (METIS where MUMPS has it, MUMPS's default,
 * PORD, where it has not), kept if it predicts fewer flops. MUMPS's automatic choice (ICNTL(7)
 * = 7) picks PORD here whatever the size, whose analysis dominates small and medium matrices
 * (Pd: 0.08 s against 0.002 s; delaunay_n16 0.68 s against 0.06 s), while nested dissection
 * pays on large fill (cage11: 1.4e11 flops against 3.9e11 with AMF). */
static gcoo_status mumps_analyse(lu *L) {
  GCOO_CALL(analyse_with(L, LU_ORDERING_AMF));
  const double amf = L->id.RINFOG(1);
  if (amf > LU_NESTED_FLOPS) {
    GCOO_CALL(analyse_with(L, LU_ORDERING_METIS));
    const double nd = L->id.RINFOG(1);
    GCOO_LOG(GCOO_LOG_INFO, "LU", "analysis: %.3g flops with AMF, %.3g with ordering %d", amf, nd,
             L->id.INFOG(7));
    if (nd >= amf) GCOO_CALL(analyse_with(L, LU_ORDERING_AMF));
  }
  L->factorisations = 0;
  return GCOO_SUCCESS;
}

static int workspace_too_small(int infog1) {
  return infog1 == -8 || infog1 == -9 || infog1 == -14 || infog1 == -15 || infog1 == -17 ||
         infog1 == -20;
}

/* Numeric factorisation; a workspace estimate that proves too small is retried with twice the
 * relaxation (MUMPS's own advice). */
static gcoo_status mumps_factor(lu *L) {
  if (L->central)
    L->id.a = L->nranks == 1 ? L->a : L->ga;
  else
    L->id.a_loc = L->a;
  mumps_run(L, JOB_FACTOR);
  for (int t = 0; t < LU_WORKSPACE_RETRIES && workspace_too_small(L->id.INFOG(1)); t++) {
    const int before = L->id.ICNTL(14);
    L->id.ICNTL(14) = 2 * (before > 10 ? before : 10);
    GCOO_LOG(GCOO_LOG_INFO, "LU", "MUMPS workspace too small (INFOG(1) = %d): ICNTL(14) %d -> %d",
             L->id.INFOG(1), before, L->id.ICNTL(14));
    mumps_run(L, JOB_FACTOR);
  }
  if (L->id.INFOG(1) < 0) return mumps_error(L, JOB_FACTOR);
  /* null pivots (INFOG(28)): a numerically singular matrix, whose "solution" would be noise */
  GCOO_CHECK(L->id.INFOG(28) == 0, GCOO_ERR_INVALID_ARG,
             "LU: the matrix is singular: MUMPS found %d null pivot%s of %lld (its numerical rank "
             "is at most %lld; INFOG(28))",
             L->id.INFOG(28), L->id.INFOG(28) == 1 ? "" : "s", (long long)L->n,
             (long long)L->n - L->id.INFOG(28));
  L->factorisations++;
  L->lsol = L->id.INFO(23);
  L->planned = 0; /* the solution's distribution follows the new factors */
  L->k_cap = 0;   /* sol's rows may differ: reallocated at the next solve */
  GCOO_LOG(GCOO_LOG_INFO, "LU",
           "MUMPS LU of order %lld: ordering %d, %lld entries in the factors, %.3g flops "
           "(factorisation %lld on this analysis)",
           (long long)L->n, L->id.INFOG(7),
           L->id.INFOG(29) >= 0 ? (long long)L->id.INFOG(29) : -1000000LL * L->id.INFOG(29),
           L->id.RINFOG(3), (long long)L->factorisations);
  return GCOO_SUCCESS;
}

static void lu_free(gcoo_pc pc) {
  lu *L = pc->data;
  if (!L) return;
  if (L->initialised) {
    L->id.job = JOB_END;
    dmumps_c(&L->id);
  }
  if (L->comm != MPI_COMM_NULL) MPI_Comm_free(&L->comm);
  free(L->row_begin);
  free(L->irn);
  free(L->jcn);
  free(L->a);
  free(L->irhs);
  free(L->rhs);
  free(L->sol);
  free(L->isol);
  free(L->send_count);
  free(L->send_from);
  free(L->recv_to);
  free(L->send_buf);
  free(L->recv_buf);
  free(L->gcount);
  free(L->girn);
  free(L->gjcn);
  free(L->ga);
  free(L);
  pc->data = NULL;
}

/* A new instance's partition and arrays of fixed size (rows, the per-rank counts). */
static gcoo_status lu_create(gcoo_pc pc, lu **out) {
  gcoo_status st = GCOO_SUCCESS;
  lu *L = NULL;
  gcoo_dist d = gcoo_dist_op_get_dist(pc->A);
  gcoo_dist_op_info info;
  GCOO_CALL(gcoo_dist_op_get_info(pc->A, &info));
  GCOO_CALL(gcoo__calloc((void **)&L, 1, sizeof *L, "LU"));
  L->comm = MPI_COMM_NULL;
  pc->data = L;
  L->rank = gcoo_dist_rank(d);
  L->nranks = gcoo_dist_size(d);
  L->n = info.m_global;
  GCOO_GOTO(gcoo_dist_op_get_row_range(pc->A, &L->row0, &L->nrows));
  GCOO_CHECK_GOTO(L->n <= INT32_MAX - 1, GCOO_ERR_TOO_LARGE,
                  "LU: order %lld is past MUMPS's 32-bit indices", (long long)L->n);
  GCOO_GOTO(gcoo__calloc((void **)&L->row_begin, (size_t)L->nranks + 1, sizeof(int64_t), "LU"));
  GCOO_GOTO(
      gcoo__calloc((void **)&L->send_count, 4 * (size_t)L->nranks, sizeof(int), "LU exchange"));
  L->send_displ = L->send_count + L->nranks;
  L->recv_count = L->send_count + 2 * L->nranks;
  L->recv_displ = L->send_count + 3 * L->nranks;
  GCOO_GOTO(gcoo__malloc_n((void **)&L->irhs, L->nrows > 0 ? L->nrows : 1, sizeof *L->irhs,
                           "LU right-hand side rows"));
  for (int64_t i = 0; i < L->nrows; i++) L->irhs[i] = (MUMPS_INT)(L->row0 + i + 1);
done:
  *out = L;
  return st;
}

/* Central input: the triplets (with_indices) or the values alone onto rank 0. Collective. */
static gcoo_status gather_matrix(lu *L, gcoo_dist d, int with_indices) {
  gcoo_status st = GCOO_SUCCESS;
  MPI_Comm comm = gcoo_dist_comm(d);
  if (L->nranks == 1) return GCOO_SUCCESS; /* rank 0's own arrays are the matrix */
  if (with_indices) {
    const int mine = (int)L->nnz;
    if (L->rank == 0 && !L->gcount)
      st = gcoo__calloc((void **)&L->gcount, 2 * (size_t)L->nranks + 1, sizeof(int), "LU");
    GCOO_CALL(gcoo_dist_agree(d, st));
    GCOO_CALL(GCOO_MPI(MPI_Gather(&mine, 1, MPI_INT, L->gcount, 1, MPI_INT, 0, comm)));
    int64_t total = 0;
    if (L->rank == 0) { /* total < 2^31: choose_input checked the operator's entries */
      L->gdispl = L->gcount + L->nranks;
      for (int r = 0; r < L->nranks; r++) {
        L->gdispl[r] = (int)total;
        total += L->gcount[r];
      }
      L->gdispl[L->nranks] = (int)total;
      free(L->girn);
      free(L->gjcn);
      free(L->ga);
      L->girn = L->gjcn = NULL;
      L->ga = NULL;
      const int64_t cap = total > 0 ? total : 1;
      st = gcoo__malloc_n((void **)&L->girn, cap, sizeof *L->girn, "LU matrix");
      if (st >= 0) st = gcoo__malloc_n((void **)&L->gjcn, cap, sizeof *L->gjcn, "LU matrix");
      if (st >= 0) st = gcoo__malloc_n((void **)&L->ga, cap, sizeof *L->ga, "LU matrix");
    }
    GCOO_CALL(gcoo_dist_agree(d, st));
    GCOO_CALL(GCOO_MPI(
        MPI_Gatherv(L->irn, mine, MPI_INT, L->girn, L->gcount, L->gdispl, MPI_INT, 0, comm)));
    GCOO_CALL(GCOO_MPI(
        MPI_Gatherv(L->jcn, mine, MPI_INT, L->gjcn, L->gcount, L->gdispl, MPI_INT, 0, comm)));
  }
  GCOO_CALL(GCOO_MPI(MPI_Gatherv(L->a, (int)L->nnz, MPI_DOUBLE, L->ga, L->gcount, L->gdispl,
                                 MPI_DOUBLE, 0, comm)));
  return GCOO_SUCCESS;
}

/* Central or distributed input (see the file comment), the same on every rank. */
static gcoo_status choose_input(gcoo_pc pc, lu *L, gcoo_dist d) {
  gcoo_dist_op_info info;
  gcoo_status st = gcoo_dist_op_get_info(pc->A, &info);
  const int fits = info.nnz_global <= INT32_MAX; /* the gather's counts are MPI ints */
  int central = pc->lu_input == GCOO_LU_INPUT_AUTO ? fits : pc->lu_input == GCOO_LU_INPUT_CENTRAL;
  if (st >= 0 && central && !fits)
    st = GCOO_ERROR(GCOO_ERR_TOO_LARGE,
                    "central LU input: %lld entries are more than one gather on rank 0 can "
                    "take (2^31 - 1); use distributed input (-pc_lu_input distributed)",
                    (long long)info.nnz_global);
  GCOO_CALL(gcoo_dist_agree(d, st));
  GCOO_CALL(GCOO_MPI(MPI_Allreduce(&central, &L->central, 1, MPI_INT, MPI_MIN, gcoo_dist_comm(d))));
  return GCOO_SUCCESS;
}

static gcoo_status lu_setup(gcoo_pc pc) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_dist d = gcoo_dist_op_get_dist(pc->A);
  lu *L = pc->data;
  const int numeric_only = L != NULL && pc->same_pattern;
  if (!L) {
    GCOO_CALL(gcoo_dist_agree(d, lu_create(pc, &L)));
    int64_t r0 = L->row0;
    GCOO_CALL(GCOO_MPI(
        MPI_Allgather(&r0, 1, MPI_INT64_T, L->row_begin, 1, MPI_INT64_T, gcoo_dist_comm(d))));
    L->row_begin[L->nranks] = L->n;
  }
  int same = 0;
  if (st >= 0) st = read_matrix(pc, L, numeric_only, &same);
  GCOO_CALL(gcoo_dist_agree(d, st));
  int analyse = !numeric_only;
  if (!numeric_only) {
    GCOO_CALL(choose_input(pc, L, d));
    GCOO_CALL(gcoo_dist_agree(d, mumps_init(pc, L)));
  } else {
    int all_same = same;
    GCOO_CALL(GCOO_MPI(MPI_Allreduce(&same, &all_same, 1, MPI_INT, MPI_MIN, gcoo_dist_comm(d))));
    if (!all_same)
      GCOO_LOG(GCOO_LOG_INFO, "LU",
               "the operator was given as of the same pattern but its pattern changed: "
               "analysing it again");
    analyse = !all_same;
  }
  if (L->central) GCOO_CALL(gather_matrix(L, d, analyse));
  if (analyse) GCOO_CALL(mumps_analyse(L));
  GCOO_CALL(mumps_factor(L));
  return GCOO_SUCCESS;
}

/* ---- the solve -------------------------------------------------------------------------- */

/* rhs and sol for k columns, and the exchange buffers. */
static gcoo_status reserve(lu *L, int64_t k) {
  if (k <= L->k_cap) return GCOO_SUCCESS;
  free(L->rhs);
  free(L->sol);
  free(L->send_buf);
  free(L->recv_buf);
  L->rhs = L->sol = L->send_buf = L->recv_buf = NULL;
  L->k_cap = 0;
  const int64_t nr = L->nrows > 0 ? L->nrows : 1, ns = L->lsol > 0 ? L->lsol : 1;
  GCOO_CALL(gcoo__malloc_n((void **)&L->rhs, nr * k, sizeof(double), "LU right-hand sides"));
  GCOO_CALL(gcoo__malloc_n((void **)&L->sol, ns * k, sizeof(double), "LU solution"));
  GCOO_CALL(gcoo__malloc_n((void **)&L->send_buf, ns * k, sizeof(double), "LU exchange"));
  GCOO_CALL(gcoo__malloc_n((void **)&L->recv_buf, nr * k, sizeof(double), "LU exchange"));
  free(L->isol);
  L->isol = NULL;
  GCOO_CALL(gcoo__malloc_n((void **)&L->isol, ns, sizeof *L->isol, "LU solution rows"));
  L->k_cap = k;
  return GCOO_SUCCESS;
}

/* The way back from MUMPS's distribution of the solution to the operator's rows: which rows of
 * sol go to which rank (in owner order), and where each received row lands. Built once a
 * factorisation, at its first solve (ISOL_loc is filled by the solve). Collective. */
static gcoo_status plan_exchange(lu *L, gcoo_dist d) {
  MPI_Comm comm = gcoo_dist_comm(d);
  gcoo_status st = GCOO_SUCCESS;
  int64_t *rows_out = NULL, *rows_in = NULL;
  char *seen = NULL;
  const int P = L->nranks;
  memset(L->send_count, 0, 4 * (size_t)P * sizeof(int));
  free(L->send_from);
  free(L->recv_to);
  L->send_from = L->recv_to = NULL;
  st = gcoo__malloc_n((void **)&L->send_from, L->lsol > 0 ? L->lsol : 1, sizeof(int64_t), "LU");
  if (st >= 0) st = gcoo__malloc_n((void **)&rows_out, L->lsol > 0 ? L->lsol : 1, 8, "LU");
  for (int64_t t = 0; st >= 0 && t < L->lsol; t++) {
    const int64_t g = (int64_t)L->isol[t] - 1;
    if (g < 0 || g >= L->n)
      st = GCOO_ERROR(GCOO_ERR_INTERNAL, "LU: MUMPS returned solution row %lld of %lld",
                      (long long)g, (long long)L->n);
    else
      L->send_count[gcoo__segment_of(L->row_begin, P, g)]++;
  }
  GCOO_GOTO(gcoo_dist_agree(d, st));
  for (int r = 1; r < P; r++) L->send_displ[r] = L->send_displ[r - 1] + L->send_count[r - 1];
  int *fill = L->recv_displ; /* scratch until the counts come back */
  memcpy(fill, L->send_displ, (size_t)P * sizeof(int));
  for (int64_t t = 0; t < L->lsol; t++) {
    const int64_t g = (int64_t)L->isol[t] - 1;
    const int e = fill[gcoo__segment_of(L->row_begin, P, g)]++;
    L->send_from[e] = t;
    rows_out[e] = g;
  }
  GCOO_GOTO(GCOO_MPI(MPI_Alltoall(L->send_count, 1, MPI_INT, L->recv_count, 1, MPI_INT, comm)));
  L->recv_displ[0] = 0;
  for (int r = 1; r < P; r++) L->recv_displ[r] = L->recv_displ[r - 1] + L->recv_count[r - 1];
  const int64_t got = (int64_t)L->recv_displ[P - 1] + L->recv_count[P - 1];
  st = got == L->nrows ? GCOO_SUCCESS
                       : GCOO_ERROR(GCOO_ERR_INTERNAL,
                                    "LU: MUMPS's solution holds %lld of this rank's %lld rows",
                                    (long long)got, (long long)L->nrows);
  const int64_t cap = L->nrows > 0 ? L->nrows : 1;
  if (st >= 0) st = gcoo__malloc_n((void **)&rows_in, cap, sizeof *rows_in, "LU");
  if (st >= 0) st = gcoo__malloc_n((void **)&L->recv_to, cap, sizeof *L->recv_to, "LU");
  if (st >= 0) st = gcoo__calloc((void **)&seen, (size_t)cap, 1, "LU");
  GCOO_GOTO(gcoo_dist_agree(d, st));
  GCOO_GOTO(GCOO_MPI(MPI_Alltoallv(rows_out, L->send_count, L->send_displ, MPI_INT64_T, rows_in,
                                   L->recv_count, L->recv_displ, MPI_INT64_T, comm)));
  for (int64_t e = 0; st >= 0 && e < L->nrows; e++) {
    const int64_t i = rows_in[e] - L->row0;
    if (i < 0 || i >= L->nrows || seen[i])
      st = GCOO_ERROR(GCOO_ERR_INTERNAL, "LU: solution row %lld arrived %s", (long long)rows_in[e],
                      i < 0 || i >= L->nrows ? "at the wrong rank" : "twice");
    else
      seen[i] = 1;
    L->recv_to[e] = i;
  }
  GCOO_GOTO(gcoo_dist_agree(d, st));
  L->planned = 1;
done:
  free(rows_out);
  free(rows_in);
  free(seen);
  return st;
}

/* Z = A^{-1} R on host blocks of this rank's rows. Collective. */
static gcoo_status solve_host(gcoo_pc pc, const gcoo_dense *R, gcoo_dense *Z) {
  gcoo_status st = GCOO_SUCCESS;
  lu *L = pc->data;
  gcoo_dist d = gcoo_dist_op_get_dist(pc->A);
  MPI_Comm comm = gcoo_dist_comm(d);
  MPI_Datatype row_type = MPI_DATATYPE_NULL;
  const int64_t k = R->ncols, n = L->nrows;
  const int64_t ldr = n > 0 ? n : 1, lds = L->lsol > 0 ? L->lsol : 1;
  st = k <= INT32_MAX ? reserve(L, k)
                      : GCOO_ERROR(GCOO_ERR_TOO_LARGE, "LU: %lld columns", (long long)k);
  if (st >= 0) { /* this rank's rows of R, column-major in double */
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = 0; j < k; j++)
        L->rhs[j * ldr + i] = R->dtype == GCOO_FLOAT64 ? ((const double *)R->data)[i * R->ld + j]
                                                       : ((const float *)R->data)[i * R->ld + j];
  }
  GCOO_CALL(gcoo_dist_agree(d, st));
  L->id.nrhs = (MUMPS_INT)k;
  L->id.nloc_rhs = (MUMPS_INT)n;
  L->id.lrhs_loc = (MUMPS_INT)ldr;
  L->id.rhs_loc = L->rhs;
  L->id.irhs_loc = L->irhs;
  L->id.lsol_loc = (MUMPS_INT)lds;
  L->id.sol_loc = L->sol;
  L->id.isol_loc = L->isol;
  GCOO_CALL(mumps_call(L, JOB_SOLVE));
  if (!L->planned) GCOO_CALL(plan_exchange(L, d));
  for (int64_t e = 0; e < L->lsol; e++)
    for (int64_t j = 0; j < k; j++) L->send_buf[e * k + j] = L->sol[j * lds + L->send_from[e]];
  GCOO_GOTO(GCOO_MPI(MPI_Type_contiguous((int)k, MPI_DOUBLE, &row_type)));
  GCOO_GOTO(GCOO_MPI(MPI_Type_commit(&row_type)));
  GCOO_GOTO(GCOO_MPI(MPI_Alltoallv(L->send_buf, L->send_count, L->send_displ, row_type, L->recv_buf,
                                   L->recv_count, L->recv_displ, row_type, comm)));
  for (int64_t e = 0; e < n; e++) {
    const double *x = L->recv_buf + e * k;
    const int64_t i = L->recv_to[e];
    if (Z->dtype == GCOO_FLOAT64)
      memcpy((double *)Z->data + i * Z->ld, x, (size_t)k * sizeof *x);
    else
      for (int64_t j = 0; j < k; j++) ((float *)Z->data)[i * Z->ld + j] = (float)x[j];
  }
done:
  if (row_type != MPI_DATATYPE_NULL) MPI_Type_free(&row_type);
  return st;
}

/* One step of iterative refinement on double blocks: E = R - A Z, and when some column's
 * ||E_j|| > LU_REFINE_RTOL ||R_j||, Z += (LU)^{-1} E. Collective. */
static gcoo_status refine(gcoo_pc pc, const gcoo_dense *R, gcoo_dense *Z) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_dist d = gcoo_dist_op_get_dist(pc->A);
  const int64_t n = R->nrows, k = R->ncols;
  gcoo_dense E = {0}, D = {0};
  double *s = NULL; /* k squared norms of E's columns, then k of R's */
  st = gcoo_dense_create(&E, GCOO_FLOAT64, GCOO_ROW_MAJOR, n, k);
  if (st >= 0) st = gcoo_dense_create(&D, GCOO_FLOAT64, GCOO_ROW_MAJOR, n, k);
  if (st >= 0) st = gcoo__calloc((void **)&s, 2 * (size_t)k, sizeof *s, "LU refinement");
  for (int64_t i = 0; st >= 0 && i < n; i++)
    memcpy((double *)E.data + i * E.ld, (const double *)R->data + i * R->ld, (size_t)k * 8);
  GCOO_GOTO(gcoo_dist_agree(d, st));
  GCOO_GOTO(gcoo_dist_op_apply(pc->A, -1.0, Z, 1.0, &E));
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < k; j++) {
      const double e = ((const double *)E.data)[i * E.ld + j];
      const double r = ((const double *)R->data)[i * R->ld + j];
      s[j] += e * e;
      s[k + j] += r * r;
    }
  GCOO_GOTO(GCOO_MPI(
      MPI_Allreduce(MPI_IN_PLACE, s, (int)(2 * k), MPI_DOUBLE, MPI_SUM, gcoo_dist_comm(d))));
  int needed = 0;
  for (int64_t j = 0; j < k; j++)
    needed |= s[j] > LU_REFINE_RTOL * LU_REFINE_RTOL * s[k + j] || !isfinite(s[j]);
  if (needed) {
    GCOO_GOTO(solve_host(pc, &E, &D));
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = 0; j < k; j++)
        ((double *)Z->data)[i * Z->ld + j] += ((const double *)D.data)[i * D.ld + j];
    ((lu *)pc->data)->refinements++;
  }
done:
  gcoo_dense_destroy(&E);
  gcoo_dense_destroy(&D);
  free(s);
  return st;
}

static gcoo_status lu_apply(gcoo_pc pc, const gcoo_dense *R, gcoo_dense *Z) {
  if (R->mem == GCOO_MEM_HOST && Z->mem == GCOO_MEM_HOST) {
    GCOO_CALL(solve_host(pc, R, Z));
    if (R->dtype == GCOO_FLOAT64) GCOO_CALL(refine(pc, R, Z));
    return GCOO_SUCCESS;
  }
  /* device blocks: the factors live on the host, so the block travels there and back */
  gcoo_dist d = gcoo_dist_op_get_dist(pc->A);
  gcoo_ctx ctx = gcoo_dist_ctx(d);
  gcoo_dense Rh = {0}, Zh = {0};
  gcoo_status st = gcoo_dense_create(&Rh, R->dtype, GCOO_ROW_MAJOR, R->nrows, R->ncols);
  if (st >= 0) st = gcoo_dense_create(&Zh, Z->dtype, GCOO_ROW_MAJOR, Z->nrows, Z->ncols);
  if (st >= 0) st = gcoo_ctx_dense_copy(ctx, &Rh, R);
  st = gcoo_dist_agree(d, st);
  if (st >= 0) st = solve_host(pc, &Rh, &Zh);
  if (st >= 0 && R->dtype == GCOO_FLOAT64) st = refine(pc, &Rh, &Zh);
  if (st >= 0) st = gcoo_dist_agree(d, gcoo_ctx_dense_copy(ctx, Z, &Zh));
  gcoo_dense_destroy(&Rh);
  gcoo_dense_destroy(&Zh);
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}

static void lu_destroy(gcoo_pc pc) { lu_free(pc); }

static void lu_describe(gcoo_pc pc, char *buf, size_t len) {
  const lu *L = pc->data;
  if (!L || !pc->built) {
    snprintf(buf, len, "lu (mumps %s)", MUMPS_VERSION);
    return;
  }
  const int f = L->id.INFOG(29);
  snprintf(buf, len,
           "lu (mumps %s, %.3g entries in the factors, %lld factorisation%s of one analysis, "
           "%lld solve%s refined)",
           MUMPS_VERSION, f >= 0 ? (double)f : -1e6 * f, (long long)L->factorisations,
           L->factorisations == 1 ? "" : "s", (long long)L->refinements,
           L->refinements == 1 ? "" : "s");
}

#else /* no MUMPS in this build */

static gcoo_status lu_setup(gcoo_pc pc) {
  (void)pc;
  return GCOO_ERROR(GCOO_ERR_UNSUPPORTED,
                    "the LU preconditioner is not available: gcoo was not compiled with MUMPS "
                    "(install it, e.g. Debian's libmumps-dev, and configure with "
                    "GCOO_ENABLE_MUMPS=ON)");
}

static gcoo_status lu_apply(gcoo_pc pc, const gcoo_dense *R, gcoo_dense *Z) {
  (void)pc;
  (void)R;
  (void)Z;
  return GCOO_ERROR(GCOO_ERR_INTERNAL, "LU applied without factors");
}

static void lu_destroy(gcoo_pc pc) { (void)pc; }

static void lu_describe(gcoo_pc pc, char *buf, size_t len) {
  (void)pc;
  snprintf(buf, len, "lu (not compiled with MUMPS)");
}

#endif

const gcoo_pc_ops gcoo__pc_lu_ops = {"lu", lu_setup, lu_apply, lu_destroy, lu_describe};
