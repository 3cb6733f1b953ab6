/* SPDX-License-Identifier: MIT */
/* tests/solver/t630-amg.c: the AMG preconditioner (gcoo/pc.h GCOO_PC_AMG) on the CPU backend,
 * any rank count. Every solve is judged by the residual recomputed here (||B - A X|| / ||B||
 * <= 10 rtol per column), plus:
 *   - iterations that do not grow with n: CG + AMG on 3-D Poisson 7-point 16^3 .. 48^3 and the
 *     2-D Laplacian 64^2 .. 256^2 (float64, rtol 1e-8): at most 12 (3-D) / 14 (2-D), and the
 *     largest within 3 of the smallest; float32 (rtol 1e-5) on 32^3; 3-D 27-point at 24^3;
 *   - the set-up's pieces against reference products on small problems, gathered on rank 0:
 *     the tentative prolongator reproduces the near-null space exactly (P_t B_c = B, random
 *     B of 2 vectors) with orthonormal columns (P_t^T P_t = I); the Galerkin product computed
 *     across ranks (A P with halo rows, R = P^T sent to the coarse owners, R (A P)) equals
 *     P^T A P formed here by dense loops (relative 1e-13);
 *   - the spectral estimate: rho(D^-1 A) of the 2-D Laplacian (known: 1 + cos(pi / (n + 1)))
 *     within [0.97, 1] of the truth, and the Chebyshev interval it gives;
 *   - the coarse solve: a problem at or below coarse_size is one level, and preonly + AMG
 *     solves it exactly (Cholesky; a nonsymmetric one by LU);
 *   - set-up reuse (a second solve pays no set-up, same iterations) and numeric re-setup
 *     (gcoo_ksp_set_operator(same_pattern = 1) on A + I: the same hierarchy shape and the same
 *     iterations as a full set-up on A + I);
 *   - k = 4 right-hand sides (CGs in lockstep, and block CG) give the solutions of 4 single
 *     solves (relative 1e-6);
 *   - l1-Jacobi, the W-cycle, several sweeps; GMRES, FGMRES and BiCGStab + AMG on a
 *     nonsymmetric convection-diffusion matrix; a user near-null space and coordinates with a
 *     block size (rigid-body modes) on a 2-unknown-per-node problem;
 *   - misuse: bad options are GCOO_ERR_INVALID_ARG naming the field, a near-null space of the
 *     wrong length GCOO_ERR_SHAPE at set-up, an indefinite or negative definite matrix gives CG's
 *     DIVERGED_INDEFINITE (or no convergence), never a hang or a wrong "converged". */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "amg/amg_impl.h"
#include "amg_problems.h"
#include "gcoo_test.h"

static int rank, size;

/* max over columns of ||B_j - (A X)_j|| / ||B_j|| */
static double true_residual(gcoo_dist_op op, const gcoo_dense *B, const gcoo_dense *X) {
  gcoo_dense AX;
  TEST_CALL(gcoo_dense_create(&AX, B->dtype, GCOO_ROW_MAJOR, B->nrows, B->ncols));
  TEST_CALL(gcoo_dist_op_apply(op, 1.0, X, 0.0, &AX));
  const int64_t k = B->ncols;
  double num[64] = {0}, den[64] = {0};
  for (int64_t i = 0; i < B->nrows; i++)
    for (int64_t j = 0; j < k; j++) {
      const double b = gcoo_dense_get(B, i, j), r = b - gcoo_dense_get(&AX, i, j);
      num[j] += r * r;
      den[j] += b * b;
    }
  MPI_Allreduce(MPI_IN_PLACE, num, (int)k, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, den, (int)k, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double worst = 0.0;
  for (int64_t j = 0; j < k; j++) {
    const double rel = sqrt(num[j] / den[j]);
    if (!(rel <= worst)) worst = rel;
  }
  gcoo_dense_destroy(&AX);
  return worst;
}

/* Solve op X = B (random B of k columns, seed 7) with the options string; returns iterations
 * (-1 when not converged) and checks the true residual. X (may be NULL) keeps the solution. */
static int64_t solve(gcoo_dist_op op, const char *opts, int64_t k, double rtol, gcoo_dense *Xout,
                     gcoo_amg_info *info, const char *what) {
  gcoo_dist_op_info oi;
  TEST_CALL(gcoo_dist_op_get_info(op, &oi));
  gcoo_ksp ksp;
  TEST_CALL(gcoo_ksp_create(&ksp, op));
  TEST_CALL(gcoo_ksp_set_from_string(ksp, opts));
  gcoo_ksp_options ko;
  TEST_CALL(gcoo_ksp_get_options(ksp, &ko));
  ko.rtol = rtol;
  TEST_CALL(gcoo_ksp_set_options(ksp, &ko));
  gcoo_dense B, X;
  TEST_CALL(gcoo_dense_create(&B, oi.local.dtype, GCOO_ROW_MAJOR, oi.nrows_local, k));
  TEST_CALL(gcoo_dense_create(&X, oi.local.dtype, GCOO_ROW_MAJOR, oi.nrows_local, k));
  TEST_CALL(gcoo_dense_fill_random_rows(&B, 7, oi.row0));
  TEST_CALL(gcoo_dense_fill(&X, NAN)); /* poisoned */
  gcoo_ksp_result res;
  gcoo_status st = gcoo_ksp_solve(ksp, &B, &X, &res);
  TEST_CHECK(st >= 0, "%s: solve failed: %s", what, gcoo_last_error());
  const double tr = true_residual(op, &B, &X);
  const int64_t its = st == GCOO_SUCCESS ? res.iterations : -1;
  TEST_CHECK(st == GCOO_SUCCESS && res.converged, "%s: not converged (%s after %lld it)", what,
             gcoo_ksp_reason_name(res.reason), (long long)res.iterations);
  TEST_CHECK(tr <= 10 * rtol, "%s: true residual %.3e > 10 x %.1e", what, tr, rtol);
  if (info) {
    gcoo_pc pc;
    TEST_CALL(gcoo_ksp_get_pc(ksp, &pc));
    TEST_CALL(gcoo_pc_get_amg_info(pc, info));
  }
  if (rank == 0) printf("  %-44s %3lld it, true residual %.2e\n", what, (long long)its, tr);
  gcoo_ksp_result_free(&res);
  if (Xout)
    *Xout = X;
  else
    gcoo_dense_destroy(&X);
  gcoo_dense_destroy(&B);
  TEST_CALL(gcoo_ksp_destroy(&ksp));
  return its;
}

/* ---- iterations flat in n ------------------------------------------------------------------- */
static void test_scaling(gcoo_dist d) {
  struct {
    int dim, stencil, n0, n1, n2, n3, cap;
  } fam[2] = {{3, 7, 16, 24, 32, 48, 12}, {2, 5, 64, 128, 256, 0, 14}};
  for (int f = 0; f < 2; f++) {
    int64_t lo = 1 << 30, hi = 0;
    const int ns[4] = {fam[f].n0, fam[f].n1, fam[f].n2, fam[f].n3};
    for (int t = 0; t < 4 && ns[t]; t++) {
      gcoo_dist_op op;
      TEST_CALL(amg_model_op(d, GCOO_FLOAT64, fam[f].dim, fam[f].stencil, ns[t], &op));
      char what[96];
      snprintf(what, sizeof what, "cg+amg %d-D %d-point n = %d", fam[f].dim, fam[f].stencil, ns[t]);
      gcoo_amg_info info;
      const int64_t its = solve(op, "-pc_type amg", 1, 1e-8, NULL, &info, what);
      TEST_CHECK(its >= 1 && its <= fam[f].cap, "%s: %lld iterations (at most %d)", what,
                 (long long)its, fam[f].cap);
      TEST_CHECK(info.levels >= 2 && info.operator_complexity < 2.0,
                 "%s: %d levels, operator complexity %.2f", what, info.levels,
                 info.operator_complexity);
      if (its < lo) lo = its;
      if (its > hi) hi = its;
      TEST_CALL(gcoo_dist_op_destroy(&op));
    }
    TEST_CHECK(hi - lo <= 3, "%d-D: iterations grow with n: %lld .. %lld", fam[f].dim,
               (long long)lo, (long long)hi);
  }
  gcoo_dist_op op;
  TEST_CALL(amg_model_op(d, GCOO_FLOAT32, 3, 7, 32, &op));
  int64_t its = solve(op, "-pc_type amg", 1, 1e-5, NULL, NULL, "cg+amg float32 3-D 32^3");
  TEST_CHECK(its >= 1 && its <= 10, "float32: %lld iterations", (long long)its);
  TEST_CALL(gcoo_dist_op_destroy(&op));
  TEST_CALL(amg_model_op(d, GCOO_FLOAT64, 3, 27, 24, &op));
  its = solve(op, "-pc_type amg", 1, 1e-8, NULL, NULL, "cg+amg 3-D 27-point 24^3");
  TEST_CHECK(its >= 1 && its <= 14, "27-point: %lld iterations", (long long)its);
  TEST_CALL(gcoo_dist_op_destroy(&op));
}

/* ---- the set-up's pieces against dense references ------------------------------------------- */
/* A distributed CSR (rows of each rank, global columns) gathered dense on rank 0 (NULL
 * elsewhere), m x ncols. */
static double *gather_dense(gcoo_dist d, gcoo_sparse slab, int64_t ncols, int64_t *m) {
  gcoo_sparse full = NULL;
  TEST_CALL(gcoo_dist_spgemm_gather(d, slab, 0, &full));
  if (rank != 0) return NULL;
  gcoo_sparse_info fi;
  gcoo_sparse_arrays a;
  TEST_CALL(gcoo_sparse_get_info(full, &fi));
  TEST_CALL(gcoo_sparse_get_arrays(full, &a));
  *m = fi.nrows;
  double *D = calloc((size_t)(fi.nrows * ncols), sizeof *D);
  for (int64_t i = 0; i < fi.nrows; i++)
    for (int64_t e = a.ptr[i]; e < a.ptr[i + 1]; e++)
      D[i * ncols + a.ind[e]] += ((const double *)a.values)[e];
  gcoo_sparse_destroy(&full);
  return D;
}

static void test_setup_pieces(gcoo_dist d) {
  const int64_t n1 = 10, N = n1 * n1 * n1;
  gcoo_dist_op op;
  TEST_CALL(amg_model_op(d, GCOO_FLOAT64, 3, 7, n1, &op));
  amg H;
  memset(&H, 0, sizeof H);
  H.d = d;
  H.ctx = gcoo_dist_ctx(d);
  H.dtype = GCOO_FLOAT64;
  amg_level L;
  memset(&L, 0, sizeof L);
  L.bs = 1;
  L.Aop = op;
  TEST_CALL(gcoo_dist_op_get_row_range(op, &L.row0, &L.n));
  TEST_CALL(gcoo_dist_op_get_local_matrix(op, &L.A));
  int64_t *rb = calloc((size_t)size + 1, sizeof *rb);
  MPI_Allgather(&L.n, 1, MPI_INT64_T, rb + 1, 1, MPI_INT64_T, MPI_COMM_WORLD);
  for (int r = 0; r < size; r++) rb[r + 1] += rb[r];
  L.row_begin = rb;
  gcoo_csr_view v;
  TEST_CALL(gcoo__amg_view(L.A, &v));
  L.diag = calloc((size_t)L.n + 1, sizeof *L.diag);
  for (int64_t i = 0; i < L.n; i++)
    for (int64_t e = v.ptr[i]; e < v.ptr[i + 1]; e++)
      if (v.ind[e] == L.row0 + i) L.diag[i] = ((const double *)v.values)[e];
  /* aggregates, and P_t from a random near-null space of 2 vectors */
  const int b = 2;
  L.agg = malloc((size_t)L.n * sizeof *L.agg);
  double ts;
  TEST_CALL(gcoo__amg_aggregate(&L, 0.0, L.agg, &L.nagg, &ts));
  int64_t *c0 = calloc((size_t)size + 1, sizeof *c0), nc = L.nagg * b;
  MPI_Allgather(&nc, 1, MPI_INT64_T, c0 + 1, 1, MPI_INT64_T, MPI_COMM_WORLD);
  for (int r = 0; r < size; r++) c0[r + 1] += c0[r];
  int64_t aggregated = 0;
  for (int64_t i = 0; i < L.n; i++) aggregated += L.agg[i] >= 0;
  TEST_CHECK(aggregated == L.n, "3-D Poisson: %lld of %lld nodes aggregated", (long long)aggregated,
             (long long)L.n);
  TEST_CHECK(L.nagg > 0 && L.nagg * 4 <= L.n, "%lld aggregates of %lld nodes", (long long)L.nagg,
             (long long)L.n);
  double *B = malloc((size_t)(L.n * b) * sizeof *B),
         *Bc = malloc((size_t)(nc * b + 1) * sizeof *Bc);
  for (int64_t i = 0; i < L.n; i++) {
    B[i * b] = 1.0;
    B[i * b + 1] = sin(0.37 * (double)(L.row0 + i)) + 0.1 * (double)((L.row0 + i) % 7);
  }
  gcoo_sparse Pt, APt, P, R, AP, Ac;
  TEST_CALL(gcoo__amg_tentative(&L, B, b, c0[rank], c0[size], &Pt, Bc));
  /* P_t B_c = B on this rank's rows, and P_t^T P_t = I (gathered) */
  {
    gcoo_csr_view p;
    TEST_CALL(gcoo__amg_view(Pt, &p));
    double worst = 0.0;
    for (int64_t i = 0; i < L.n; i++)
      for (int m = 0; m < b; m++) {
        double s = 0.0;
        for (int64_t e = p.ptr[i]; e < p.ptr[i + 1]; e++) {
          const int64_t c = p.ind[e] - c0[rank]; /* this rank's aggregates' columns */
          s += ((const double *)p.values)[e] * Bc[(c / b) * b * b + (c % b) * b + m];
        }
        worst = fmax(worst, fabs(s - B[i * b + m]) / (1.0 + fabs(B[i * b + m])));
      }
    TEST_CHECK(worst <= 1e-13, "P_t B_c differs from B by %.2e", worst);
    int64_t m;
    double *Pd = gather_dense(d, Pt, c0[size], &m);
    if (rank == 0) {
      double off = 0.0;
      for (int64_t c = 0; c < c0[size]; c++)
        for (int64_t c2 = 0; c2 < c0[size]; c2++) {
          double s = 0.0;
          for (int64_t i = 0; i < N; i++) s += Pd[i * c0[size] + c] * Pd[i * c0[size] + c2];
          off = fmax(off, fabs(s - (c == c2 ? 1.0 : 0.0)));
        }
      TEST_CHECK(off <= 1e-13, "P_t^T P_t differs from I by %.2e", off);
    }
    free(Pd);
  }
  /* the smoothed prolongator and the Galerkin product across ranks */
  TEST_CALL(gcoo__amg_dist_product(&H, op, L.A, L.row0, L.n, Pt, &APt, &(int64_t){0}));
  TEST_CALL(gcoo__amg_smooth_prolongator(APt, Pt, L.diag, 0.6, &P));
  TEST_CALL(gcoo__amg_restriction(&H, P, L.row0, N, c0, &R));
  gcoo_sparse Rc;
  TEST_CALL(gcoo__sparse_clone(R, &Rc));
  gcoo_dist_op Rop;
  gcoo_dist_op_options oo = GCOO_DIST_OP_OPTIONS_INIT;
  oo.xmode = GCOO_DIST_X_PARTITIONED;
  TEST_CALL(gcoo__dist_op_create_rect(d, &Rc, c0[rank], c0[size], rb, &oo, &Rop));
  TEST_CALL(gcoo__amg_dist_product(&H, op, L.A, L.row0, L.n, P, &AP, &(int64_t){0}));
  TEST_CALL(gcoo__amg_dist_product(&H, Rop, R, L.row0, L.n, AP, &Ac, &(int64_t){0}));
  int64_t m;
  double *Ad = gather_dense(d, L.A, N, &m), *Pd = gather_dense(d, P, c0[size], &m);
  double *Rd = gather_dense(d, R, N, &m), *Acd = gather_dense(d, Ac, c0[size], &m);
  double *Ptd = gather_dense(d, Pt, c0[size], &m);
  if (rank == 0) {
    const int64_t n = c0[size];
    /* P = P_t - 0.6 D^-1 A P_t and R = P^T, by dense loops */
    double ep = 0.0, er = 0.0, eg = 0.0, scale = 0.0;
    double *APd = calloc((size_t)(N * n), sizeof *APd);
    for (int64_t i = 0; i < N; i++)
      for (int64_t k = 0; k < N; k++)
        if (Ad[i * N + k] != 0.0)
          for (int64_t c = 0; c < n; c++) APd[i * n + c] += Ad[i * N + k] * Ptd[k * n + c];
    for (int64_t i = 0; i < N; i++)
      for (int64_t c = 0; c < n; c++) {
        const double ref = Ptd[i * n + c] - 0.6 / Ad[i * N + i] * APd[i * n + c];
        ep = fmax(ep, fabs(Pd[i * n + c] - ref));
        er = fmax(er, fabs(Rd[c * N + i] - Pd[i * n + c]));
      }
    memset(APd, 0, (size_t)(N * n) * sizeof *APd);
    for (int64_t i = 0; i < N; i++)
      for (int64_t k = 0; k < N; k++)
        if (Ad[i * N + k] != 0.0)
          for (int64_t c = 0; c < n; c++) APd[i * n + c] += Ad[i * N + k] * Pd[k * n + c];
    for (int64_t c = 0; c < n; c++)
      for (int64_t c2 = 0; c2 < n; c2++) {
        double s = 0.0;
        for (int64_t i = 0; i < N; i++) s += Pd[i * n + c] * APd[i * n + c2];
        eg = fmax(eg, fabs(Acd[c * n + c2] - s));
        scale = fmax(scale, fabs(s));
      }
    TEST_CHECK(ep <= 1e-14, "smoothed P differs from P_t - w D^-1 A P_t by %.2e", ep);
    TEST_CHECK(er == 0.0, "R differs from P^T by %.2e", er);
    TEST_CHECK(eg <= 1e-13 * scale, "R (A P) differs from P^T A P by %.2e (scale %.2e)", eg, scale);
    printf("  set-up pieces (%lld rows, %lld coarse): |P_t B_c - B|, |R - P^T| = 0, "
           "|A_c - P^T A P| = %.1e\n",
           (long long)N, (long long)n, eg);
    free(APd);
  }
  free(Ad), free(Pd), free(Rd), free(Acd), free(Ptd);
  gcoo_sparse_destroy(&Pt), gcoo_sparse_destroy(&APt), gcoo_sparse_destroy(&P);
  gcoo_sparse_destroy(&R), gcoo_sparse_destroy(&AP), gcoo_sparse_destroy(&Ac);
  gcoo_sparse_destroy(&L.A);
  TEST_CALL(gcoo_dist_op_destroy(&Rop));
  free(L.agg), free(L.diag), free(rb), free(c0), free(B), free(Bc);
  TEST_CALL(gcoo_dist_op_destroy(&op));
}

/* ---- spectral estimate, coarse solve ------------------------------------------------------- */
static void test_spectrum_and_coarse(gcoo_dist d) {
  const int64_t n = 32;
  gcoo_dist_op op;
  TEST_CALL(amg_model_op(d, GCOO_FLOAT64, 2, 5, n, &op));
  gcoo_amg_info info;
  solve(op, "-pc_type amg -pc_amg_coarse_size 50", 1, 1e-8, NULL, &info, "cg+amg 2-D 32^2");
  const double exact = 1.0 + cos(3.14159265358979323846 / (double)(n + 1));
  TEST_CHECK(info.level[0].rho >= 0.97 * exact && info.level[0].rho <= exact * (1 + 1e-10),
             "rho(D^-1 A) estimate %.6f, exact %.6f", info.level[0].rho, exact);
  for (int l = 1; l + 1 < info.levels; l++)
    TEST_CHECK(info.level[l].rho > 0.0 && info.level[l].rho <= 2.0 + 1e-12,
               "level %d: rho %.4f outside (0, 2] (D^-1 A of an SPD M-matrix-like level)", l,
               info.level[l].rho);
  TEST_CALL(gcoo_dist_op_destroy(&op));
  /* one level: preonly + AMG is the dense Cholesky solve */
  TEST_CALL(amg_model_op(d, GCOO_FLOAT64, 2, 5, 16, &op));
  solve(op, "-ksp_type preonly -pc_type amg", 2, 1e-12, NULL, &info, "preonly+amg (coarse) 16^2");
  TEST_CHECK(info.levels == 1, "256 rows, coarse size 500: %d levels", info.levels);
  TEST_CALL(gcoo_dist_op_destroy(&op));
}

/* A PARTITIONED operator from this rank's rows of a 5-point matrix (amg_stencil2d_rows). */
static gcoo_dist_op stencil_op(gcoo_dist d, int64_t g, int b, const double v[5]) {
  const int64_t m = g * g * b;
  int64_t r0, r1;
  amg_rows_of(d, m, b, &r0, &r1);
  gcoo_sparse slab;
  TEST_CALL(amg_stencil2d_rows(&slab, GCOO_FLOAT64, g, b, v, r0, r1));
  gcoo_dist_op_options o = GCOO_DIST_OP_OPTIONS_INIT;
  o.xmode = GCOO_DIST_X_PARTITIONED;
  gcoo_dist_op op;
  TEST_CALL(gcoo_dist_op_create(d, slab, r0, m, &o, &op));
  gcoo_sparse_destroy(&slab);
  return op;
}

/* 2-D convection-diffusion: the Laplacian plus upwind convection of strength c in x. */
static gcoo_dist_op convdiff(gcoo_dist d, int64_t n, double c) {
  const double v[5] = {-1.0, -1.0 - c, 4.0 + c, -1.0, -1.0};
  return stencil_op(d, n, 1, v);
}

static void test_nonsymmetric(gcoo_dist d) {
  gcoo_dist_op op = convdiff(d, 64, 2.0);
  const char *methods[3] = {"gmres", "fgmres", "bicgstab"};
  for (int t = 0; t < 3; t++) {
    char opts[96], what[64];
    snprintf(opts, sizeof opts, "-ksp_type %s -pc_type amg", methods[t]);
    snprintf(what, sizeof what, "%s+amg convection-diffusion 64^2", methods[t]);
    const int64_t its = solve(op, opts, 1, 1e-8, NULL, NULL, what);
    TEST_CHECK(its >= 1 && its <= 30, "%s: %lld iterations", what, (long long)its);
  }
  TEST_CALL(gcoo_dist_op_destroy(&op));
  /* small nonsymmetric: one level, LU */
  op = convdiff(d, 12, 3.0);
  gcoo_amg_info info;
  solve(op, "-ksp_type preonly -pc_type amg", 1, 1e-12, NULL, &info, "preonly+amg (LU) 12^2");
  TEST_CALL(gcoo_dist_op_destroy(&op));
}

/* ---- variants: smoothers, cycles, near-null spaces ----------------------------------------- */
static void test_variants(gcoo_dist d) {
  gcoo_dist_op op;
  TEST_CALL(amg_model_op(d, GCOO_FLOAT64, 3, 7, 24, &op));
  const char *v[4] = {"-pc_amg_smoother jacobi -pc_amg_degree 2", "-pc_amg_cycle w",
                      "-pc_amg_degree 4 -pc_amg_sweeps 2", "-pc_amg_theta 0.1"};
  for (int t = 0; t < 4; t++) {
    char opts[128];
    snprintf(opts, sizeof opts, "-pc_type amg %s", v[t]);
    const int64_t its = solve(op, opts, 1, 1e-8, NULL, NULL, v[t]);
    TEST_CHECK(its >= 1 && its <= 25, "%s: %lld iterations", v[t], (long long)its);
  }
  TEST_CALL(gcoo_dist_op_destroy(&op));
  /* two unknowns a node (two Laplacians interleaved): coordinates give 3 rigid-body modes */
  const int64_t g = 40;
  const double lap[5] = {-1.0, -1.0, 4.0, -1.0, -1.0};
  int64_t r0, nloc;
  op = stencil_op(d, g, 2, lap);
  TEST_CALL(gcoo_dist_op_get_row_range(op, &r0, &nloc));
  const int64_t r1 = r0 + nloc;
  gcoo_dense XY;
  TEST_CALL(gcoo_dense_create(&XY, GCOO_FLOAT64, GCOO_ROW_MAJOR, (r1 - r0) / 2, 2));
  for (int64_t v0 = r0 / 2; v0 < r1 / 2; v0++) {
    gcoo_dense_set(&XY, v0 - r0 / 2, 0, (double)(v0 % g) / g);
    gcoo_dense_set(&XY, v0 - r0 / 2, 1, (double)(v0 / g) / g);
  }
  gcoo_ksp ksp;
  TEST_CALL(gcoo_ksp_create(&ksp, op));
  gcoo_pc pc;
  TEST_CALL(gcoo_ksp_get_pc(ksp, &pc));
  TEST_CALL(gcoo_pc_set_type(pc, GCOO_PC_AMG));
  TEST_FAILS(gcoo_pc_set_coordinates(pc, &XY, 3), GCOO_ERR_INVALID_ARG, "block size");
  TEST_CALL(gcoo_pc_set_coordinates(pc, &XY, 2));
  gcoo_dense B, X;
  TEST_CALL(gcoo_dense_create(&B, GCOO_FLOAT64, GCOO_ROW_MAJOR, r1 - r0, 1));
  TEST_CALL(gcoo_dense_create(&X, GCOO_FLOAT64, GCOO_ROW_MAJOR, r1 - r0, 1));
  TEST_CALL(gcoo_dense_fill_random_rows(&B, 3, r0));
  gcoo_ksp_result res;
  TEST_CALL(gcoo_ksp_solve(ksp, &B, &X, &res));
  gcoo_amg_info info;
  TEST_CALL(gcoo_pc_get_amg_info(pc, &info));
  TEST_CHECK(res.converged && res.iterations <= 30 && true_residual(op, &B, &X) <= 1e-7,
             "rigid-body modes: %lld iterations", (long long)res.iterations);
  TEST_CHECK(info.levels >= 2 && info.level[1].rows % 3 == 0,
             "rigid-body modes: level 1 has %lld rows (3 a node)", (long long)info.level[1].rows);
  if (rank == 0)
    printf("  %-44s %3lld it, %d levels, level 1 %lld rows\n", "cg+amg 2 unknowns/node, coords",
           (long long)res.iterations, info.levels, (long long)info.level[1].rows);
  gcoo_ksp_result_free(&res);
  /* a near-null space of the wrong length is refused at set-up */
  gcoo_dense N;
  TEST_CALL(gcoo_dense_create(&N, GCOO_FLOAT64, GCOO_ROW_MAJOR, r1 - r0 + 1, 1));
  TEST_CALL(gcoo_dense_fill(&N, 1.0));
  TEST_CALL(gcoo_pc_set_near_nullspace(pc, &N));
  TEST_FAILS(gcoo_ksp_setup(ksp), GCOO_ERR_SHAPE, "near-null space");
  gcoo_dense_destroy(&N);
  gcoo_dense_destroy(&XY), gcoo_dense_destroy(&B), gcoo_dense_destroy(&X);
  TEST_CALL(gcoo_ksp_destroy(&ksp));
  TEST_CALL(gcoo_dist_op_destroy(&op));
}

/* ---- set-up reuse, numeric re-setup, k right-hand sides -------------------------------------- */
static void test_reuse_and_blocks(gcoo_dist d) {
  const int64_t n = 20, m = n * n * n;
  int64_t r0, r1;
  amg_rows_of(d, m, 1, &r0, &r1);
  gcoo_dist_op A, A1;
  TEST_CALL(amg_model_op(d, GCOO_FLOAT64, 3, 7, n, &A));
  {
    gcoo_sparse slab;
    TEST_CALL(gcoo_sparse_poisson3d_rows(&slab, GCOO_FLOAT64, GCOO_FORMAT_CSR, 7, n, r0, r1, 0));
    gcoo_dist_op_options o = GCOO_DIST_OP_OPTIONS_INIT;
    o.xmode = GCOO_DIST_X_PARTITIONED;
    o.shift = 1.0; /* A + I: the same pattern, other values */
    TEST_CALL(gcoo_dist_op_create(d, slab, r0, m, &o, &A1));
    gcoo_sparse_destroy(&slab);
  }
  gcoo_ksp ksp;
  TEST_CALL(gcoo_ksp_create(&ksp, A));
  TEST_CALL(gcoo_ksp_set_from_string(ksp, "-pc_type amg"));
  gcoo_dense B, X, Xk, Xb;
  TEST_CALL(gcoo_dense_create(&B, GCOO_FLOAT64, GCOO_ROW_MAJOR, r1 - r0, 4));
  TEST_CALL(gcoo_dense_create(&X, GCOO_FLOAT64, GCOO_ROW_MAJOR, r1 - r0, 4));
  TEST_CALL(gcoo_dense_create(&Xk, GCOO_FLOAT64, GCOO_ROW_MAJOR, r1 - r0, 4));
  TEST_CALL(gcoo_dense_create(&Xb, GCOO_FLOAT64, GCOO_ROW_MAJOR, r1 - r0, 4));
  TEST_CALL(gcoo_dense_fill_random_rows(&B, 11, r0));
  gcoo_ksp_result res;
  int64_t its1[4];
  /* four single solves, the first paying the set-up, the others none */
  for (int j = 0; j < 4; j++) {
    gcoo_dense b1, x1;
    TEST_CALL(gcoo_dense_create(&b1, GCOO_FLOAT64, GCOO_ROW_MAJOR, r1 - r0, 1));
    TEST_CALL(gcoo_dense_create(&x1, GCOO_FLOAT64, GCOO_ROW_MAJOR, r1 - r0, 1));
    for (int64_t i = 0; i < r1 - r0; i++) gcoo_dense_set(&b1, i, 0, gcoo_dense_get(&B, i, j));
    TEST_CALL(gcoo_ksp_solve(ksp, &b1, &x1, &res));
    TEST_CHECK(res.converged, "single solve %d", j);
    TEST_CHECK((j == 0) == (res.t_setup > 0.0), "solve %d paid set-up %.3g s", j, res.t_setup);
    its1[j] = res.iterations;
    for (int64_t i = 0; i < r1 - r0; i++) gcoo_dense_set(&X, i, j, gcoo_dense_get(&x1, i, 0));
    gcoo_ksp_result_free(&res);
    gcoo_dense_destroy(&b1), gcoo_dense_destroy(&x1);
  }
  /* k = 4 at once: CGs in lockstep, then block CG */
  for (int blockcg = 0; blockcg < 2; blockcg++) {
    gcoo_dense *Y = blockcg ? &Xb : &Xk;
    TEST_CALL(gcoo_ksp_set_from_string(ksp, blockcg ? "-ksp_cg_block 1" : "-ksp_cg_block 0"));
    TEST_CALL(gcoo_dense_fill(Y, NAN));
    TEST_CALL(gcoo_ksp_solve(ksp, &B, Y, &res));
    TEST_CHECK(res.converged && res.t_setup == 0.0, "k = 4 (block %d): converged %d", blockcg,
               res.converged);
    if (!blockcg)
      for (int j = 0; j < 4; j++)
        TEST_CHECK(res.column_iterations[j] == its1[j], "column %d: %lld iterations, alone %lld", j,
                   (long long)res.column_iterations[j], (long long)its1[j]);
    double num = 0.0, den = 0.0;
    for (int64_t i = 0; i < r1 - r0; i++)
      for (int j = 0; j < 4; j++) {
        const double e = gcoo_dense_get(Y, i, j) - gcoo_dense_get(&X, i, j);
        num += e * e;
        den += gcoo_dense_get(&X, i, j) * gcoo_dense_get(&X, i, j);
      }
    MPI_Allreduce(MPI_IN_PLACE, &num, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &den, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    TEST_CHECK(sqrt(num / den) <= 1e-6, "k = 4 (block %d) vs 4 single solves: %.2e", blockcg,
               sqrt(num / den));
    if (rank == 0)
      printf("  k = 4 %-38s %3lld it, vs single solves %.1e\n",
             blockcg ? "block CG + amg" : "CGs in lockstep + amg", (long long)res.iterations,
             sqrt(num / den));
    gcoo_ksp_result_free(&res);
  }
  /* numeric re-setup on A + I against a full set-up on it */
  gcoo_pc pc;
  gcoo_amg_info i0, i1, i2;
  TEST_CALL(gcoo_ksp_get_pc(ksp, &pc));
  TEST_CALL(gcoo_pc_get_amg_info(pc, &i0));
  TEST_CALL(gcoo_ksp_set_from_string(ksp, "-ksp_cg_block 0"));
  TEST_CALL(gcoo_ksp_set_operator(ksp, A1, 1));
  TEST_CALL(gcoo_ksp_solve(ksp, &B, &Xk, &res));
  const int64_t its_re = res.iterations;
  TEST_CHECK(res.converged && res.t_setup > 0.0 && true_residual(A1, &B, &Xk) <= 1e-7,
             "numeric re-setup: converged %d", res.converged);
  TEST_CALL(gcoo_pc_get_amg_info(pc, &i1));
  gcoo_ksp_result_free(&res);
  gcoo_ksp ksp2;
  TEST_CALL(gcoo_ksp_create(&ksp2, A1));
  TEST_CALL(gcoo_ksp_set_from_string(ksp2, "-pc_type amg -ksp_cg_block 0"));
  TEST_CALL(gcoo_ksp_solve(ksp2, &B, &Xb, &res));
  gcoo_pc pc2;
  TEST_CALL(gcoo_ksp_get_pc(ksp2, &pc2));
  TEST_CALL(gcoo_pc_get_amg_info(pc2, &i2));
  TEST_CHECK(i1.levels == i0.levels && i1.levels == i2.levels &&
                 i1.level[1].rows == i2.level[1].rows && i1.level[1].nnz == i2.level[1].nnz,
             "re-setup hierarchy %d levels (%lld rows), full %d (%lld)", i1.levels,
             (long long)i1.level[1].rows, i2.levels, (long long)i2.level[1].rows);
  TEST_CHECK(its_re == res.iterations, "numeric re-setup %lld iterations, full set-up %lld",
             (long long)its_re, (long long)res.iterations);
  if (rank == 0)
    printf("  %-44s %3lld it (full set-up %lld), set-up %.3f s vs %.3f s\n",
           "numeric re-setup on A + I", (long long)its_re, (long long)res.iterations, i1.t_total,
           i2.t_total);
  gcoo_ksp_result_free(&res);
  TEST_CALL(gcoo_ksp_destroy(&ksp2));
  gcoo_dense_destroy(&B), gcoo_dense_destroy(&X), gcoo_dense_destroy(&Xk), gcoo_dense_destroy(&Xb);
  TEST_CALL(gcoo_ksp_destroy(&ksp));
  TEST_CALL(gcoo_dist_op_destroy(&A));
  TEST_CALL(gcoo_dist_op_destroy(&A1));
}

/* ---- misuse ---------------------------------------------------------------------------------- */
static void test_misuse(gcoo_dist d) {
  gcoo_dist_op op;
  TEST_CALL(amg_model_op(d, GCOO_FLOAT64, 3, 7, 12, &op));
  gcoo_ksp ksp;
  TEST_CALL(gcoo_ksp_create(&ksp, op));
  gcoo_pc pc;
  TEST_CALL(gcoo_ksp_get_pc(ksp, &pc));
  gcoo_amg_options o = GCOO_AMG_OPTIONS_INIT;
  o.theta = 1.5;
  TEST_FAILS(gcoo_pc_set_amg_options(pc, &o), GCOO_ERR_INVALID_ARG, "theta");
  o = (gcoo_amg_options)GCOO_AMG_OPTIONS_INIT;
  o.degree = 9;
  TEST_FAILS(gcoo_pc_set_amg_options(pc, &o), GCOO_ERR_INVALID_ARG, "degree");
  o = (gcoo_amg_options)GCOO_AMG_OPTIONS_INIT;
  o.cheby_lower = 2.0;
  TEST_FAILS(gcoo_pc_set_amg_options(pc, &o), GCOO_ERR_INVALID_ARG, "Chebyshev");
  TEST_FAILS(gcoo_ksp_set_from_string(ksp, "-pc_amg_smoother gauss"), GCOO_ERR_INVALID_ARG,
             "-pc_amg_smoother");
  gcoo_amg_info info;
  TEST_FAILS(gcoo_pc_get_amg_info(pc, &info), GCOO_ERR_INVALID_ARG, "no AMG hierarchy");
  TEST_CALL(gcoo_ksp_destroy(&ksp));
  TEST_CALL(gcoo_dist_op_destroy(&op));
  /* indefinite (shift -3) and negative definite (-A) matrices: CG says so */
  for (int t = 0; t < 2; t++) {
    const int64_t n = 12, m = n * n * n;
    int64_t r0, r1;
    amg_rows_of(d, m, 1, &r0, &r1);
    gcoo_sparse slab, neg = NULL;
    TEST_CALL(gcoo_sparse_poisson3d_rows(&slab, GCOO_FLOAT64, GCOO_FORMAT_CSR, 7, n, r0, r1, 0));
    gcoo_dist_op_options oo = GCOO_DIST_OP_OPTIONS_INIT;
    oo.xmode = GCOO_DIST_X_PARTITIONED;
    if (t == 0) {
      oo.shift = -3.0;
    } else { /* -A: its values negated */
      gcoo_sparse_arrays a;
      gcoo_sparse_info si;
      TEST_CALL(gcoo_sparse_get_arrays(slab, &a));
      TEST_CALL(gcoo_sparse_get_info(slab, &si));
      double *v = malloc((size_t)si.nnz * sizeof *v);
      for (int64_t e = 0; e < si.nnz; e++) v[e] = -((const double *)a.values)[e];
      TEST_CALL(gcoo_sparse_create_csr(&neg, GCOO_FLOAT64, si.nrows, si.ncols, a.ptr, a.ind, v, 0));
      free(v);
    }
    TEST_CALL(gcoo_dist_op_create(d, neg ? neg : slab, r0, m, &oo, &op));
    gcoo_sparse_destroy(&slab), gcoo_sparse_destroy(&neg);
    TEST_CALL(gcoo_ksp_create(&ksp, op));
    TEST_CALL(gcoo_ksp_set_from_string(ksp, "-pc_type amg -ksp_max_it 200"));
    gcoo_dense B, X;
    TEST_CALL(gcoo_dense_create(&B, GCOO_FLOAT64, GCOO_ROW_MAJOR, r1 - r0, 1));
    TEST_CALL(gcoo_dense_create(&X, GCOO_FLOAT64, GCOO_ROW_MAJOR, r1 - r0, 1));
    TEST_CALL(gcoo_dense_fill_random_rows(&B, 5, r0));
    gcoo_ksp_result res;
    gcoo_status st = gcoo_ksp_solve(ksp, &B, &X, &res);
    TEST_CHECK(st == GCOO_INFO_NOT_CONVERGED && res.reason == GCOO_KSP_DIVERGED_INDEFINITE,
               "%s: status %s, reason %s", t ? "negative definite" : "indefinite",
               gcoo_status_name(st), st >= 0 ? gcoo_ksp_reason_name(res.reason) : "-");
    if (rank == 0)
      printf("  %-44s %s after %lld it\n", t ? "cg+amg on -A" : "cg+amg on A - 3 I",
             st >= 0 ? gcoo_ksp_reason_name(res.reason) : gcoo_last_error(),
             (long long)res.iterations);
    if (st >= 0) gcoo_ksp_result_free(&res);
    gcoo_dense_destroy(&B), gcoo_dense_destroy(&X);
    TEST_CALL(gcoo_ksp_destroy(&ksp));
    TEST_CALL(gcoo_dist_op_destroy(&op));
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  gcoo_dist d;
  TEST_CALL(gcoo_dist_create(&d, MPI_COMM_WORLD, "cpu"));
  test_setup_pieces(d);
  test_scaling(d);
  test_spectrum_and_coarse(d);
  test_nonsymmetric(d);
  test_variants(d);
  test_reuse_and_blocks(d);
  test_misuse(d);
  TEST_CALL(gcoo_dist_destroy(&d));
  int failed = gcoo_test_failures;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  gcoo_test_failures = failed;
  const int rc = rank == 0 ? gcoo_test_finish("t630-amg") : (failed ? 1 : 0);
  MPI_Finalize();
  return rc;
}
