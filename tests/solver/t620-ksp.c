/* SPDX-License-Identifier: MIT */
/* tests/solver/t620-ksp.c: the solver object of gcoo/ksp.h on the CPU backend, any rank count.
 * Every solve is judged against a dense reference computed here, independently of the solver:
 * the global matrix is built on every rank from one seed, solved by Gaussian elimination with
 * partial pivoting in long double, and each rank compares its rows of X:
 *   - the true residual ||B_j - A X_j|| / ||B_j|| (recomputed here) <= rtol, for every column
 *     the solver calls converged (the driver promises it), and
 *   - ||X_j - X*_j|| / ||X*_j|| <= 100 cond_est rtol (the matrices are well conditioned: the
 *     factor covers the forward error bound cond(A) rtol with room);
 * for every method (cg, cg with k CGs in lockstep, block cg, pipecg, gmres, fgmres, bicgstab)
 * and preconditioner (none, jacobi), float64 (rtol 1e-10) and float32 (rtol 1e-4), k = 1 and 3,
 * on an SPD matrix (2-D Laplacian plus a random symmetric diagonally dominant part) and, for the
 * methods that take any matrix, a nonsymmetric one (2-D convection-diffusion, upwind, plus random
 * off-diagonal entries). Outputs are poisoned (NaN) before each solve. Also:
 *   - right-hand sides at the ends of the floating-point range (every entry of B near 1e-170 or
 *     near 1e160) are solved as well as those of norm 1, and a zero column gives X_j = 0;
 *   - breakdowns reported, never a hang or a wrong "converged": CG on an indefinite matrix
 *     (DIVERGED_INDEFINITE), BiCGStab on a permutation (rho or r^T v = 0: DIVERGED_BREAKDOWN),
 *     restarted GMRES on a cyclic shift (no progress in a cycle: DIVERGED_STAGNATION), a NaN in A
 *     (DIVERGED_NANORINF), the iteration limit (DIVERGED_ITS and GCOO_INFO_NOT_CONVERGED);
 *   - preonly with Jacobi on a diagonal matrix solves it exactly;
 *   - the options string: each name sets its field, and an unknown name or a bad value is
 *     GCOO_ERR_INVALID_ARG and changes nothing;
 *   - a nonzero initial guess, set-up reuse for several solves, and misuse (a REPLICATED
 *     operator, wrong shapes, B and X sharing memory). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "gcoo_test.h"

static int rank, size;

/* ---- global matrices built alike on every rank ------------------------------------------------ */
typedef struct mat {
  int64_t n;
  double *a; /* dense n x n, row-major */
} mat;

static uint64_t rng_state;
static double urand(void) { /* xorshift64*, in [-1, 1) */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (double)((rng_state * 0x2545F4914F6CDD1Dull) >> 11) / 4503599627370496.0 - 1.0;
}

/* 2-D Laplacian on g x g (n = g^2) plus a random symmetric part, diagonally dominant: SPD. */
static mat spd_matrix(int64_t g, uint64_t seed) {
  mat M = {g * g, NULL};
  M.a = calloc((size_t)(M.n * M.n), sizeof *M.a);
  rng_state = seed;
  for (int64_t i = 0; i < g; i++)
    for (int64_t j = 0; j < g; j++) {
      int64_t r = i * g + j;
      M.a[r * M.n + r] = 4.0;
      if (i > 0) M.a[r * M.n + r - g] = -1.0;
      if (i + 1 < g) M.a[r * M.n + r + g] = -1.0;
      if (j > 0) M.a[r * M.n + r - 1] = -1.0;
      if (j + 1 < g) M.a[r * M.n + r + 1] = -1.0;
    }
  for (int64_t t = 0; t < M.n; t++) { /* a few random symmetric couplings */
    int64_t r = (int64_t)((urand() + 1.0) * 0.5 * (double)M.n) % M.n;
    int64_t c = (int64_t)((urand() + 1.0) * 0.5 * (double)M.n) % M.n;
    if (r == c) continue;
    double v = 0.3 * urand();
    M.a[r * M.n + c] += v;
    M.a[c * M.n + r] += v;
    M.a[r * M.n + r] += fabs(v);
    M.a[c * M.n + c] += fabs(v);
  }
  return M;
}

/* 2-D convection-diffusion with upwind convection (Peclet ~ 2) plus random entries: nonsymmetric,
 * diagonally dominant. */
static mat nonsym_matrix(int64_t g, uint64_t seed) {
  mat M = {g * g, NULL};
  M.a = calloc((size_t)(M.n * M.n), sizeof *M.a);
  rng_state = seed;
  for (int64_t i = 0; i < g; i++)
    for (int64_t j = 0; j < g; j++) {
      int64_t r = i * g + j;
      M.a[r * M.n + r] = 4.0 + 2.0;
      if (i > 0) M.a[r * M.n + r - g] = -1.0 - 1.0;
      if (i + 1 < g) M.a[r * M.n + r + g] = -1.0;
      if (j > 0) M.a[r * M.n + r - 1] = -1.0 - 1.0;
      if (j + 1 < g) M.a[r * M.n + r + 1] = -1.0;
    }
  for (int64_t t = 0; t < M.n; t++) {
    int64_t r = (int64_t)((urand() + 1.0) * 0.5 * (double)M.n) % M.n;
    int64_t c = (int64_t)((urand() + 1.0) * 0.5 * (double)M.n) % M.n;
    if (r == c) continue;
    double v = 0.5 * urand();
    M.a[r * M.n + c] += v;
    M.a[r * M.n + r] += fabs(v);
  }
  return M;
}

/* This rank's rows of the global matrix as a distributed PARTITIONED operator. */
static gcoo_dist_op make_op(gcoo_dist d, const mat *M, gcoo_dtype dt, gcoo_dist_xmode xmode) {
  const int64_t r0 = M->n * rank / size, r1 = M->n * (rank + 1) / size;
  int64_t nnz = 0;
  for (int64_t i = r0; i < r1; i++)
    for (int64_t j = 0; j < M->n; j++) nnz += M->a[i * M->n + j] != 0.0;
  int64_t *ptr = calloc((size_t)(r1 - r0 + 1), sizeof *ptr);
  int32_t *ind = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *ind);
  void *val = malloc((size_t)(nnz > 0 ? nnz : 1) * gcoo_dtype_size(dt));
  int64_t e = 0;
  for (int64_t i = r0; i < r1; i++) {
    for (int64_t j = 0; j < M->n; j++) {
      double v = M->a[i * M->n + j];
      if (v == 0.0) continue;
      ind[e] = (int32_t)j;
      if (dt == GCOO_FLOAT64)
        ((double *)val)[e] = v;
      else
        ((float *)val)[e] = (float)v;
      e++;
    }
    ptr[i - r0 + 1] = e;
  }
  gcoo_sparse slab;
  TEST_CALL(gcoo_sparse_create_csr(&slab, dt, r1 - r0, M->n, ptr, ind, val, 0));
  free(ptr);
  free(ind);
  free(val);
  gcoo_dist_op_options o = GCOO_DIST_OP_OPTIONS_INIT;
  o.xmode = xmode;
  gcoo_dist_op op;
  TEST_CALL(gcoo_dist_op_create(d, slab, r0, M->n, &o, &op));
  gcoo_sparse_destroy(&slab);
  return op;
}

/* X* = A^{-1} B for the global n x k B (row-major), Gaussian elimination with partial pivoting. */
static double *dense_solve(const mat *M, const double *B, int64_t k) {
  const int64_t n = M->n;
  long double *a = malloc((size_t)(n * n) * sizeof *a), *x = malloc((size_t)(n * k) * sizeof *x);
  for (int64_t i = 0; i < n * n; i++) a[i] = M->a[i];
  for (int64_t i = 0; i < n * k; i++) x[i] = B[i];
  for (int64_t c = 0; c < n; c++) {
    int64_t p = c;
    for (int64_t i = c + 1; i < n; i++)
      if (fabsl(a[i * n + c]) > fabsl(a[p * n + c])) p = i;
    for (int64_t j = 0; j < n && p != c; j++) {
      long double t = a[c * n + j];
      a[c * n + j] = a[p * n + j];
      a[p * n + j] = t;
    }
    for (int64_t j = 0; j < k && p != c; j++) {
      long double t = x[c * k + j];
      x[c * k + j] = x[p * k + j];
      x[p * k + j] = t;
    }
    for (int64_t i = c + 1; i < n; i++) {
      long double f = a[i * n + c] / a[c * n + c];
      if (f == 0.0L) continue;
      for (int64_t j = c; j < n; j++) a[i * n + j] -= f * a[c * n + j];
      for (int64_t j = 0; j < k; j++) x[i * k + j] -= f * x[c * k + j];
    }
  }
  for (int64_t c = n - 1; c >= 0; c--)
    for (int64_t j = 0; j < k; j++) {
      long double s = x[c * k + j];
      for (int64_t l = c + 1; l < n; l++) s -= a[c * n + l] * x[l * k + j];
      x[c * k + j] = s / a[c * n + c];
    }
  double *out = malloc((size_t)(n * k) * sizeof *out);
  for (int64_t i = 0; i < n * k; i++) out[i] = (double)x[i];
  free(a);
  free(x);
  return out;
}

/* ---- one solve judged by the reference ------------------------------------------------------ */
typedef struct run_opts {
  const char *options; /* options string for gcoo_ksp_set_from_string */
  double rtol;
  double scale; /* B's entries times this */
  int zero_column;
} run_opts;

static gcoo_status run_case(gcoo_dist d, const mat *M, gcoo_dtype dt, int64_t k, const run_opts *ro,
                            const char *name, gcoo_ksp_result *res_out) {
  const int64_t n = M->n, r0 = n * rank / size, r1 = n * (rank + 1) / size, nl = r1 - r0;
  gcoo_dist_op op = make_op(d, M, dt, GCOO_DIST_X_PARTITIONED);
  double *Bg = malloc((size_t)(n * k) * sizeof *Bg);
  rng_state = 77 + (uint64_t)k;
  for (int64_t i = 0; i < n * k; i++) {
    double v = urand() * ro->scale;
    if (dt == GCOO_FLOAT32) v = (double)(float)v;
    Bg[i] = ro->zero_column && i % k == k - 1 ? 0.0 : v;
  }
  double *Xs = dense_solve(M, Bg, k);
  gcoo_dense B, X;
  TEST_CALL(gcoo_dense_create(&B, dt, GCOO_ROW_MAJOR, nl, k));
  TEST_CALL(gcoo_dense_create(&X, dt, GCOO_ROW_MAJOR, nl, k));
  for (int64_t i = 0; i < nl; i++)
    for (int64_t j = 0; j < k; j++) gcoo_dense_set(&B, i, j, Bg[(r0 + i) * k + j]);
  TEST_CALL(gcoo_dense_fill(&X, NAN)); /* poison: the solver starts from zero */
  gcoo_ksp ksp;
  TEST_CALL(gcoo_ksp_create(&ksp, op));
  TEST_CALL(gcoo_ksp_set_from_string(ksp, ro->options));
  gcoo_ksp_options o;
  TEST_CALL(gcoo_ksp_get_options(ksp, &o));
  o.rtol = ro->rtol;
  o.maxit = 3000;
  TEST_CALL(gcoo_ksp_set_options(ksp, &o));
  gcoo_ksp_result res;
  gcoo_status st = gcoo_ksp_solve(ksp, &B, &X, &res);
  TEST_CHECK(st >= 0, "%s: %s (%s)", name, gcoo_status_name(st), gcoo_last_error());
  if (st >= 0) {
    TEST_CHECK(st == GCOO_SUCCESS && res.converged, "%s: did not converge: %s, column %lld", name,
               gcoo_ksp_reason_name(res.reason), (long long)res.reason_column);
    /* the reference: true residual and forward error per column, over all ranks */
    gcoo_dense AX;
    TEST_CALL(gcoo_dense_create(&AX, dt, GCOO_ROW_MAJOR, nl, k));
    TEST_CALL(gcoo_dist_op_apply(op, 1.0, &X, 0.0, &AX));
    double *sums = calloc((size_t)(4 * k), sizeof *sums); /* r^2, b^2, e^2, x*^2 */
    for (int64_t i = 0; i < nl; i++)
      for (int64_t j = 0; j < k; j++) {
        /* scaled by 1/scale so that the squares stay in range */
        const double b = Bg[(r0 + i) * k + j] / ro->scale, xs = Xs[(r0 + i) * k + j] / ro->scale;
        const double x = gcoo_dense_get(&X, i, j) / ro->scale;
        const double rr = b - gcoo_dense_get(&AX, i, j) / ro->scale;
        sums[j] += rr * rr;
        sums[k + j] += b * b;
        sums[2 * k + j] += (x - xs) * (x - xs);
        sums[3 * k + j] += xs * xs;
      }
    MPI_Allreduce(MPI_IN_PLACE, sums, (int)(4 * k), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int64_t j = 0; j < k; j++) {
      if (sums[k + j] == 0.0) {
        TEST_CHECK(sums[2 * k + j] == 0.0, "%s: column %lld of B is zero but X's is not", name,
                   (long long)j);
        continue;
      }
      const double tr = sqrt(sums[j] / sums[k + j]), fe = sqrt(sums[2 * k + j] / sums[3 * k + j]);
      /* the float32 residual is recomputed here in float arithmetic: a few ulps of room */
      const double rbound = ro->rtol * (dt == GCOO_FLOAT32 ? 1.5 : 1.0) + 1e-14;
      TEST_CHECK(tr <= rbound, "%s: column %lld true residual %.3e > %.3e (solver said %.3e)", name,
                 (long long)j, tr, rbound, res.true_residual[j]);
      TEST_CHECK(fe <= 1e3 * ro->rtol, "%s: column %lld forward error %.3e > %.3e", name,
                 (long long)j, fe, 1e3 * ro->rtol);
      TEST_CHECK(fabs(res.true_residual[j] - tr) <= 0.1 * tr + 1e-7,
                 "%s: column %lld: solver's true residual %.3e, here %.3e", name, (long long)j,
                 res.true_residual[j], tr);
    }
    if (rank == 0)
      printf("%-44s %5lld it, true residual %.2e\n", name, (long long)res.iterations,
             res.true_residual[0]);
    free(sums);
    gcoo_dense_destroy(&AX);
    if (res_out)
      *res_out = res;
    else
      gcoo_ksp_result_free(&res);
  }
  TEST_CALL(gcoo_ksp_destroy(&ksp));
  TEST_CALL(gcoo_dist_op_destroy(&op));
  gcoo_dense_destroy(&B);
  gcoo_dense_destroy(&X);
  free(Bg);
  free(Xs);
  return st;
}

static void methods(gcoo_dist d) {
  mat spd = spd_matrix(9, 11), ns = nonsym_matrix(9, 12);
  static const char *spd_methods[] = {"-ksp_type cg",
                                      "-ksp_type cg -ksp_cg_block 0",
                                      "-ksp_type pipecg",
                                      "-ksp_type gmres",
                                      "-ksp_type gmres -ksp_gmres_restart 5",
                                      "-ksp_type fgmres",
                                      "-ksp_type bicgstab"};
  static const char *ns_methods[] = {"-ksp_type gmres", "-ksp_type gmres -ksp_gmres_restart 7",
                                     "-ksp_type fgmres", "-ksp_type bicgstab"};
  static const char *pcs[] = {"-pc_type none", "-pc_type jacobi"};
  for (int dt = 0; dt < 2; dt++)
    for (int64_t k = 1; k <= 3; k += 2)
      for (int p = 0; p < 2; p++) {
        const double rtol = dt == GCOO_FLOAT64 ? 1e-10 : 1e-4;
        char opts[256], name[320];
        for (size_t m = 0; m < sizeof spd_methods / sizeof *spd_methods; m++) {
          snprintf(opts, sizeof opts, "%s %s", spd_methods[m], pcs[p]);
          snprintf(name, sizeof name, "spd %s k=%lld %s", dt ? "f64" : "f32", (long long)k, opts);
          run_opts ro = {opts, rtol, 1.0, 0};
          run_case(d, &spd, (gcoo_dtype)dt, k, &ro, name, NULL);
        }
        for (size_t m = 0; m < sizeof ns_methods / sizeof *ns_methods; m++) {
          snprintf(opts, sizeof opts, "%s %s", ns_methods[m], pcs[p]);
          snprintf(name, sizeof name, "nonsym %s k=%lld %s", dt ? "f64" : "f32", (long long)k,
                   opts);
          run_opts ro = {opts, rtol, 1.0, 0};
          run_case(d, &ns, (gcoo_dtype)dt, k, &ro, name, NULL);
        }
      }
  /* the ends of the range, and a zero column */
  static const char *all[] = {"-ksp_type cg", "-ksp_type cg -ksp_cg_block 0", "-ksp_type pipecg",
                              "-ksp_type gmres", "-ksp_type bicgstab"};
  static const double scales[] = {1e-170, 1e160};
  for (size_t m = 0; m < sizeof all / sizeof *all; m++)
    for (int s = 0; s < 2; s++) {
      char name[256];
      snprintf(name, sizeof name, "scale %.0e %s", scales[s], all[m]);
      run_opts ro = {all[m], 1e-9, scales[s], 1};
      run_case(d, &spd, GCOO_FLOAT64, 3, &ro, name, NULL);
    }
  free(spd.a);
  free(ns.a);
}

/* ---- breakdowns and limits ------------------------------------------------------------------ */
static void expect_reason(gcoo_dist d, const mat *M, const char *options, gcoo_ksp_reason want,
                          int64_t maxit, const char *name) {
  const int64_t n = M->n, r0 = n * rank / size, r1 = n * (rank + 1) / size, nl = r1 - r0;
  gcoo_dist_op op = make_op(d, M, GCOO_FLOAT64, GCOO_DIST_X_PARTITIONED);
  gcoo_dense B, X;
  TEST_CALL(gcoo_dense_create(&B, GCOO_FLOAT64, GCOO_ROW_MAJOR, nl, 1));
  TEST_CALL(gcoo_dense_create(&X, GCOO_FLOAT64, GCOO_ROW_MAJOR, nl, 1));
  for (int64_t i = 0; i < nl; i++) gcoo_dense_set(&B, i, 0, r0 + i == 0 ? 1.0 : 0.0); /* e_1 */
  if (want == GCOO_KSP_DIVERGED_INDEFINITE || want == GCOO_KSP_DIVERGED_ITS)
    TEST_CALL(gcoo_dense_fill_random_rows(&B, 3, r0));
  gcoo_ksp ksp;
  TEST_CALL(gcoo_ksp_create(&ksp, op));
  TEST_CALL(gcoo_ksp_set_from_string(ksp, options));
  gcoo_ksp_options o;
  TEST_CALL(gcoo_ksp_get_options(ksp, &o));
  o.maxit = maxit;
  TEST_CALL(gcoo_ksp_set_options(ksp, &o));
  gcoo_ksp_result res;
  gcoo_status st = gcoo_ksp_solve(ksp, &B, &X, &res);
  TEST_CHECK(st == GCOO_INFO_NOT_CONVERGED, "%s: status %s, want not converged", name,
             gcoo_status_name(st));
  if (st >= 0) {
    TEST_CHECK(!res.converged && res.reason == want && res.column_reason[0] == want &&
                   res.reason_column == 0,
               "%s: reason %s (column %lld), want %s", name, gcoo_ksp_reason_name(res.reason),
               (long long)res.reason_column, gcoo_ksp_reason_name(want));
    TEST_CHECK(want != GCOO_KSP_DIVERGED_ITS || res.iterations == maxit,
               "%s: %lld iterations, limit %lld", name, (long long)res.iterations,
               (long long)maxit);
    if (rank == 0)
      printf("%-44s %s after %lld iterations\n", name, gcoo_ksp_reason_name(res.reason),
             (long long)res.iterations);
    gcoo_ksp_result_free(&res);
  }
  TEST_CALL(gcoo_ksp_destroy(&ksp));
  TEST_CALL(gcoo_dist_op_destroy(&op));
  gcoo_dense_destroy(&B);
  gcoo_dense_destroy(&X);
}

static void breakdowns(gcoo_dist d) {
  /* CG on an indefinite symmetric matrix: the 2-D Laplacian shifted by -3 */
  mat ind = spd_matrix(8, 5);
  for (int64_t i = 0; i < ind.n; i++) ind.a[i * ind.n + i] -= 5.0;
  expect_reason(d, &ind, "-ksp_type cg -pc_type none", GCOO_KSP_DIVERGED_INDEFINITE, 500,
                "cg indefinite");
  expect_reason(d, &ind, "-ksp_type pipecg -pc_type none", GCOO_KSP_DIVERGED_INDEFINITE, 500,
                "pipecg indefinite");
  free(ind.a);
  /* BiCGStab on the permutation swapping rows 2i and 2i+1: r^T A r = 0 for b = e_1 */
  mat perm = {8, calloc(64, sizeof(double))};
  for (int64_t i = 0; i < 8; i++) perm.a[i * 8 + (i ^ 1)] = 1.0;
  expect_reason(d, &perm, "-ksp_type bicgstab -pc_type none", GCOO_KSP_DIVERGED_BREAKDOWN, 100,
                "bicgstab on a permutation");
  free(perm.a);
  /* restarted GMRES on the cyclic shift: no progress before n steps, b = e_1 */
  mat cyc = {16, calloc(256, sizeof(double))};
  for (int64_t i = 0; i < 16; i++) cyc.a[((i + 1) % 16) * 16 + i] = 1.0;
  expect_reason(d, &cyc, "-ksp_type gmres -ksp_gmres_restart 4 -pc_type none",
                GCOO_KSP_DIVERGED_STAGNATION, 1000, "gmres(4) on a cyclic shift");
  /* a NaN in A */
  mat nan = spd_matrix(6, 9);
  nan.a[1 * nan.n + 7] = NAN;
  expect_reason(d, &nan, "-ksp_type gmres -pc_type none", GCOO_KSP_DIVERGED_NANORINF, 100,
                "gmres with a NaN in A");
  expect_reason(d, &nan, "-ksp_type cg -pc_type none", GCOO_KSP_DIVERGED_NANORINF, 100,
                "cg with a NaN in A");
  free(nan.a);
  /* the iteration limit */
  mat lim = spd_matrix(12, 3);
  expect_reason(d, &lim, "-ksp_type cg -pc_type jacobi", GCOO_KSP_DIVERGED_ITS, 4, "cg limit 4");
  expect_reason(d, &lim, "-ksp_type gmres -ksp_gmres_restart 3 -pc_type jacobi",
                GCOO_KSP_DIVERGED_ITS, 7, "gmres limit 7");
  expect_reason(d, &lim, "-ksp_type bicgstab", GCOO_KSP_DIVERGED_ITS, 2, "bicgstab limit 2");
  free(lim.a);
  free(cyc.a);
}

/* ---- the rest: preonly, options, reuse, misuse ------------------------------------------------ */
static void others(gcoo_dist d) {
  /* preonly + Jacobi on a diagonal matrix is exact */
  mat dg = {10, calloc(100, sizeof(double))};
  for (int64_t i = 0; i < 10; i++) dg.a[i * 10 + i] = 1.0 + (double)i;
  run_opts ro = {"-ksp_type preonly -pc_type jacobi", 1e-14, 1.0, 0};
  gcoo_ksp_result res;
  if (run_case(d, &dg, GCOO_FLOAT64, 2, &ro, "preonly jacobi, diagonal", &res) >= 0) {
    TEST_CHECK(res.reason == GCOO_KSP_CONVERGED_PREONLY && res.iterations == 0,
               "preonly: %s after %lld", gcoo_ksp_reason_name(res.reason),
               (long long)res.iterations);
    gcoo_ksp_result_free(&res);
  }
  free(dg.a);

  mat spd = spd_matrix(7, 21);
  gcoo_dist_op op = make_op(d, &spd, GCOO_FLOAT64, GCOO_DIST_X_PARTITIONED);
  gcoo_ksp ksp;
  TEST_CALL(gcoo_ksp_create(&ksp, op));
  /* the options string */
  TEST_CALL(gcoo_ksp_set_from_string(
      ksp, "-ksp_type gmres -ksp_gmres_restart 12 -ksp_rtol 1e-9 -ksp_atol 1e-20 -ksp_max_it 77 "
           "-ksp_dtol 1e8 -ksp_initial_guess_nonzero true -pc_type none -pc_amg_theta 0.25 "
           "-pc_amg_smoother jacobi -pc_amg_degree 3 -pc_amg_cycle w -pc_amg_coarse_size 40"));
  gcoo_ksp_options o;
  TEST_CALL(gcoo_ksp_get_options(ksp, &o));
  gcoo_pc pc;
  TEST_CALL(gcoo_ksp_get_pc(ksp, &pc));
  gcoo_pc_type pt;
  gcoo_amg_options ao;
  TEST_CALL(gcoo_pc_get_type(pc, &pt));
  TEST_CALL(gcoo_pc_get_amg_options(pc, &ao));
  TEST_CHECK(o.type == GCOO_KSP_GMRES && o.restart == 12 && o.rtol == 1e-9 && o.atol == 1e-20 &&
                 o.maxit == 77 && o.dtol == 1e8 && o.initial_guess_nonzero == 1,
             "options string: ksp fields not all set");
  TEST_CHECK(pt == GCOO_PC_NONE && ao.theta == 0.25 && ao.smoother == GCOO_AMG_L1_JACOBI &&
                 ao.degree == 3 && ao.cycle == GCOO_AMG_W_CYCLE && ao.coarse_size == 40,
             "options string: pc fields not all set");
  static const char *bad[][2] = {{"-ksp_type gmress", "not one of"},
                                 {"-ksp_rtol 2", "not a number in"},
                                 {"-ksp_max_it -3", "not a whole number"},
                                 {"-pc_type ilu", "not one of"},
                                 {"-ksp_bogus 1", "unknown option -ksp_bogus"},
                                 {"-ksp_type cg -ksp_rtol", "has no value"},
                                 {"ksp_type cg", "not an option name"},
                                 {"-pc_amg_degree 9", "whole number in [1, 8]"},
                                 {"-ksp_rtol 0 -ksp_atol 0", "both 0"}};
  for (size_t b = 0; b < sizeof bad / sizeof *bad; b++) {
    TEST_FAILS(gcoo_ksp_set_from_string(ksp, bad[b][0]), GCOO_ERR_INVALID_ARG, bad[b][1]);
    gcoo_ksp_options o2;
    TEST_CALL(gcoo_ksp_get_options(ksp, &o2));
    TEST_CHECK(o2.type == GCOO_KSP_GMRES && o2.restart == 12 && o2.maxit == 77,
               "a bad options string '%s' changed the options", bad[b][0]);
  }
  /* set-up once, several solves, with a nonzero initial guess that is already the answer */
  TEST_CALL(gcoo_ksp_set_from_string(ksp, "-ksp_type cg -pc_type jacobi -ksp_max_it 500 "
                                          "-ksp_initial_guess_nonzero 0 -ksp_atol 0"));
  const int64_t nl = spd.n * (rank + 1) / size - spd.n * rank / size, r0 = spd.n * rank / size;
  gcoo_dense B, X;
  TEST_CALL(gcoo_dense_create(&B, GCOO_FLOAT64, GCOO_ROW_MAJOR, nl, 2));
  TEST_CALL(gcoo_dense_create(&X, GCOO_FLOAT64, GCOO_ROW_MAJOR, nl, 2));
  TEST_CALL(gcoo_dense_fill_random_rows(&B, 8, r0));
  TEST_CALL(gcoo_ksp_setup(ksp));
  for (int rep = 0; rep < 2; rep++) {
    TEST_CALL(gcoo_dense_fill(&X, NAN));
    TEST_CALL(gcoo_ksp_solve(ksp, &B, &X, &res));
    TEST_CHECK(res.converged && res.t_setup == 0.0,
               "solve %d after set-up: converged %d, set-up %g", rep, res.converged, res.t_setup);
    gcoo_ksp_result_free(&res);
  }
  o.initial_guess_nonzero = 1;
  TEST_CALL(gcoo_ksp_get_options(ksp, &o));
  o.initial_guess_nonzero = 1;
  TEST_CALL(gcoo_ksp_set_options(ksp, &o));
  TEST_CALL(gcoo_ksp_solve(ksp, &B, &X, &res)); /* X is the answer already */
  TEST_CHECK(res.converged && res.iterations <= 1, "a converged initial guess took %lld iterations",
             (long long)res.iterations);
  gcoo_ksp_result_free(&res);
  char desc[128];
  TEST_CALL(gcoo_ksp_describe(ksp, desc, sizeof desc));
  TEST_CHECK(!strcmp(desc, "cg + jacobi"), "describe: '%s'", desc);
  /* misuse */
  gcoo_dense Bs;
  TEST_CALL(gcoo_dense_create(&Bs, GCOO_FLOAT64, GCOO_ROW_MAJOR, nl + 1, 2));
  TEST_FAILS(gcoo_ksp_solve(ksp, &Bs, &X, &res), GCOO_ERR_SHAPE, "rows x k");
  TEST_FAILS(gcoo_ksp_solve(ksp, &B, &B, &res), GCOO_ERR_INVALID_ARG, "share memory");
  gcoo_dense_destroy(&Bs);
  TEST_CALL(gcoo_ksp_destroy(&ksp));
  TEST_CHECK(ksp == NULL, "destroy resets the handle");
  TEST_CALL(gcoo_dist_op_destroy(&op));
  op = make_op(d, &spd, GCOO_FLOAT64, GCOO_DIST_X_REPLICATED);
  TEST_FAILS(gcoo_ksp_create(&ksp, op), GCOO_ERR_INVALID_ARG, "PARTITIONED");
  TEST_CALL(gcoo_dist_op_destroy(&op));
  gcoo_dense_destroy(&B);
  gcoo_dense_destroy(&X);
  free(spd.a);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  gcoo_dist d;
  TEST_CALL(gcoo_dist_create(&d, MPI_COMM_WORLD, "cpu"));
  methods(d);
  breakdowns(d);
  others(d);
  TEST_CALL(gcoo_dist_destroy(&d));
  int failures = gcoo_test_failures, all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  gcoo_test_failures = all;
  int rc = gcoo_test_finish(rank == 0 ? "t620-ksp" : "t620-ksp (other rank)");
  MPI_Finalize();
  return rc;
}
