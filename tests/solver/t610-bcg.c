/* SPDX-License-Identifier: MIT */
/* tests/solver/t610-bcg.c: block CG on the distributed operator, any rank count; argv[1] is the
 * backend ("cpu", or "cuda" with B and X in device memory: cuBLAS block operations, NCCL sums).
 * Every solve is judged by the residual recomputed here, independently of the solver:
 * ||B - A X||_F,j / ||B_j|| <= 10 * rtol per column (the solver stops on its recursive residual;
 * the factor covers the drift between the two), plus:
 *   - 3-D Poisson (7- and 27-point), k = 1, 4, 16; float64 (rtol 1e-10) and float32 (rtol 1e-4);
 *   - right-hand sides with dependent columns (b1 = b0, b3 = 2 b2) and a zero column: the block
 *     shrinks (min_block_rank < k) and every column still converges;
 *   - a real SPD matrix (bcsstk21 from tests/data, Jacobi), k = 4;
 *   - k = 1 against a plain textbook PCG written here: same iteration count within 2;
 *   - k = 1 on bcsstk21 against the textbook PCG (within 5 % or 3 iterations: rounding on an
 *     ill-conditioned matrix);
 *   - a nonzero initial guess (k = 1 and 4): the set-up's r = b - A x;
 *   - maxit below the iteration count (5, 37: not multiples of the device path's 16-iteration
 *     graphs): GCOO_INFO_NOT_CONVERGED after exactly maxit iterations;
 *   - the history: row `iterations` equals the final residuals, row 0 is 1 for X = 0;
 *   - with "cuda": device operands (graph PCG for k = 1 on one rank, the device-resident block
 *     iteration otherwise) against host operands on the same operator (the host loop): the same
 *     iteration count within 2 (k = 1) or 3 (k > 1, rank drop included), in every variant of
 *     the device path (fused or GEMM; the kernels' stages and forms; the W form, off, and with
 *     the search block made explicit every iteration, k = 8 .. 40), and variant switches that
 *     name no variant refused with GCOO_ERR_INVALID_ARG;
 *   - misuse: a REPLICATED operator, an indefinite matrix (shift -10: Poisson's smallest
 *     eigenvalue is below 10) -> GCOO_ERR_BREAKDOWN or not converged, never a hang. */
#define _POSIX_C_SOURCE 200809L /* setenv (GCOO_ALLOW_SHARED_GPU), strtok_r */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "gcoo_test.h"

static int rank, size;
static int on_device; /* argv[1] == "cuda": B and X live on the rank's GPU during the solve */
static gcoo_ctx dctx;

static void rows_of(int64_t m, int64_t *r0, int64_t *r1) {
  *r0 = m * rank / size;
  *r1 = m * (rank + 1) / size;
}

static gcoo_dist_op poisson(gcoo_dist d, gcoo_dtype dt, int stencil, int64_t n, double shift,
                            gcoo_dist_xmode xmode) {
  int64_t m = n * n * n, r0, r1;
  rows_of(m, &r0, &r1);
  gcoo_sparse slab;
  TEST_CALL(gcoo_sparse_poisson3d_rows(&slab, dt, GCOO_FORMAT_CSR, stencil, n, r0, r1, 0));
  gcoo_dist_op_options o = GCOO_DIST_OP_OPTIONS_INIT;
  o.xmode = xmode;
  o.shift = shift;
  gcoo_dist_op op;
  TEST_CALL(gcoo_dist_op_create(d, slab, r0, m, &o, &op));
  gcoo_sparse_destroy(&slab);
  return op;
}

/* max over columns of ||B_j - (A X)_j|| / ||B_j||, all ranks */
static double true_residual(gcoo_dist_op op, const gcoo_dense *B, const gcoo_dense *X) {
  gcoo_dense AX;
  TEST_CALL(gcoo_dense_create(&AX, B->dtype, GCOO_ROW_MAJOR, B->nrows, B->ncols));
  TEST_CALL(gcoo_dist_op_apply(op, 1.0, X, 0.0, &AX));
  int64_t k = B->ncols;
  double *num = calloc((size_t)k, sizeof *num), *den = calloc((size_t)k, sizeof *den);
  for (int64_t i = 0; i < B->nrows; i++)
    for (int64_t j = 0; j < k; j++) {
      double r = gcoo_dense_get(B, i, j) - gcoo_dense_get(&AX, i, j), b = gcoo_dense_get(B, i, j);
      num[j] += r * r;
      den[j] += b * b;
    }
  MPI_Allreduce(MPI_IN_PLACE, num, (int)k, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, den, (int)k, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double worst = 0.0;
  for (int64_t j = 0; j < k; j++) {
    double rel = den[j] > 0 ? sqrt(num[j] / den[j]) : sqrt(num[j]);
    if (!(rel <= worst)) worst = rel; /* NaN wins */
  }
  free(num);
  free(den);
  gcoo_dense_destroy(&AX);
  return worst;
}

static gcoo_bcg_result solve_case(gcoo_dist_op op, gcoo_dtype dt, int64_t k, double rtol,
                                  int dependent, const char *name) {
  int64_t row0, n;
  TEST_CALL(gcoo_dist_op_get_row_range(op, &row0, &n));
  gcoo_dense B, X;
  TEST_CALL(gcoo_dense_create(&B, dt, GCOO_ROW_MAJOR, n, k));
  TEST_CALL(gcoo_dense_fill_random_rows(&B, 1234 + (uint64_t)k, row0));
  if (dependent && k >= 5)
    for (int64_t i = 0; i < n; i++) {
      gcoo_dense_set(&B, i, 1, gcoo_dense_get(&B, i, 0));
      gcoo_dense_set(&B, i, 3, 2.0 * gcoo_dense_get(&B, i, 2));
      gcoo_dense_set(&B, i, 4, 0.0);
    }
  TEST_CALL(gcoo_dense_create(&X, dt, GCOO_ROW_MAJOR, n, k));
  gcoo_bcg_options o = GCOO_BCG_OPTIONS_INIT;
  o.rtol = rtol;
  o.maxit = 2000;
  gcoo_bcg_result r;
  gcoo_status st;
  if (on_device) { /* device operands: the cuBLAS block operations and NCCL reductions */
    gcoo_dense Bd, Xd;
    TEST_CALL(gcoo_ctx_dense_create(dctx, &Bd, dt, GCOO_ROW_MAJOR, n, k, GCOO_MEM_DEVICE));
    TEST_CALL(gcoo_ctx_dense_create(dctx, &Xd, dt, GCOO_ROW_MAJOR, n, k, GCOO_MEM_DEVICE));
    TEST_CALL(gcoo_ctx_dense_copy(dctx, &Bd, &B));
    TEST_CALL(gcoo_ctx_dense_copy(dctx, &Xd, &X));
    st = gcoo_dist_bcg_solve(op, &Bd, &Xd, &o, &r);
    TEST_CALL(gcoo_ctx_dense_copy(dctx, &X, &Xd));
    TEST_CALL(gcoo_ctx_dense_destroy(dctx, &Bd));
    TEST_CALL(gcoo_ctx_dense_destroy(dctx, &Xd));
  } else {
    st = gcoo_dist_bcg_solve(op, &B, &X, &o, &r);
  }
  TEST_CHECK(st == GCOO_SUCCESS, "%s: status %s (%s)", name, gcoo_status_name(st),
             gcoo_last_error());
  double tr = true_residual(op, &B, &X);
  TEST_CHECK(tr <= 10 * rtol, "%s: true residual %.3e > %.3e after %lld iterations", name, tr,
             10 * rtol, (long long)r.iterations);
  for (int64_t j = 0; j < k; j++)
    TEST_CHECK(r.column_iterations[j] >= 0 && r.residual[j] <= rtol,
               "%s: column %lld did not converge", name, (long long)j);
  if (dependent && k >= 5)
    TEST_CHECK(r.min_block_rank <= k - 2, "%s: block rank %lld, dependent columns were not dropped",
               name, (long long)r.min_block_rank);
  if (rank == 0)
    printf("%s: k %lld, %lld iterations, min block rank %lld, true residual %.2e\n", name,
           (long long)k, (long long)r.iterations, (long long)r.min_block_rank, tr);
  gcoo_dense_destroy(&B);
  gcoo_dense_destroy(&X);
  return r;
}

/* textbook Jacobi-PCG for one column, on the same operator (iteration count reference) */
static int64_t textbook_pcg(gcoo_dist_op op, double rtol) {
  int64_t row0, n;
  TEST_CALL(gcoo_dist_op_get_row_range(op, &row0, &n));
  gcoo_sparse slab;
  TEST_CALL(gcoo_dist_op_get_local_matrix(op, &slab));
  gcoo_sparse_arrays a;
  TEST_CALL(gcoo_sparse_get_arrays(slab, &a));
  gcoo_dense b, x, r, z, p, q;
  gcoo_dense *v[] = {&b, &x, &r, &z, &p, &q};
  for (int i = 0; i < 6; i++)
    TEST_CALL(gcoo_dense_create(v[i], GCOO_FLOAT64, GCOO_ROW_MAJOR, n, 1));
  double *dinv = malloc(sizeof(double) * (size_t)(n + 1));
  for (int64_t i = 0; i < n; i++)
    for (int64_t e = a.ptr[i]; e < a.ptr[i + 1]; e++)
      if (a.ind[e] == row0 + i) dinv[i] = 1.0 / ((const double *)a.values)[e];
  TEST_CALL(gcoo_dense_fill_random_rows(&b, 1234 + 1, row0));
  double *B = b.data, *X = x.data, *R = r.data, *Z = z.data, *P = p.data, *Q = q.data;
  double bb = 0, rz = 0, rr;
  for (int64_t i = 0; i < n; i++) {
    R[i] = B[i];
    Z[i] = dinv[i] * R[i];
    P[i] = Z[i];
    bb += B[i] * B[i];
    rz += R[i] * Z[i];
  }
  MPI_Allreduce(MPI_IN_PLACE, &bb, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &rz, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  int64_t it = 0;
  for (it = 1; it <= 2000; it++) {
    TEST_CALL(gcoo_dist_op_apply(op, 1.0, &p, 0.0, &q));
    double pq = 0;
    for (int64_t i = 0; i < n; i++) pq += P[i] * Q[i];
    MPI_Allreduce(MPI_IN_PLACE, &pq, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double alpha = rz / pq, rz2 = 0;
    rr = 0;
    for (int64_t i = 0; i < n; i++) {
      X[i] += alpha * P[i];
      R[i] -= alpha * Q[i];
      Z[i] = dinv[i] * R[i];
      rr += R[i] * R[i];
      rz2 += R[i] * Z[i];
    }
    double s[2] = {rr, rz2};
    MPI_Allreduce(MPI_IN_PLACE, s, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (sqrt(s[0] / bb) <= rtol) break;
    for (int64_t i = 0; i < n; i++) P[i] = Z[i] + (s[1] / rz) * P[i];
    rz = s[1];
  }
  for (int i = 0; i < 6; i++) gcoo_dense_destroy(v[i]);
  free(dinv);
  gcoo_sparse_destroy(&slab);
  return it;
}

/* One solve with explicit options: B random (seed), X = x0 (random when x0seed > 0, else 0),
 * operands on the device when dev. Returns the status; *tr is the true residual (judged here). */
static gcoo_status run_solve(gcoo_dist_op op, gcoo_dtype dt, int64_t k, const gcoo_bcg_options *o,
                             uint64_t seed, uint64_t x0seed, int dev, gcoo_bcg_result *r,
                             double *tr) {
  int64_t row0, n;
  TEST_CALL(gcoo_dist_op_get_row_range(op, &row0, &n));
  gcoo_dense B, X, X0;
  TEST_CALL(gcoo_dense_create(&B, dt, GCOO_ROW_MAJOR, n, k));
  TEST_CALL(gcoo_dense_fill_random_rows(&B, seed, row0));
  TEST_CALL(gcoo_dense_create(&X, dt, GCOO_ROW_MAJOR, n, k));
  if (x0seed) TEST_CALL(gcoo_dense_fill_random_rows(&X, x0seed, row0));
  TEST_CALL(gcoo_dense_create(&X0, dt, GCOO_ROW_MAJOR, n, k));
  memcpy(X0.data, X.data, (size_t)(n * k) * gcoo_dtype_size(dt));
  gcoo_status st;
  if (dev) {
    gcoo_dense Bd, Xd;
    TEST_CALL(gcoo_ctx_dense_create(dctx, &Bd, dt, GCOO_ROW_MAJOR, n, k, GCOO_MEM_DEVICE));
    TEST_CALL(gcoo_ctx_dense_create(dctx, &Xd, dt, GCOO_ROW_MAJOR, n, k, GCOO_MEM_DEVICE));
    TEST_CALL(gcoo_ctx_dense_copy(dctx, &Bd, &B));
    TEST_CALL(gcoo_ctx_dense_copy(dctx, &Xd, &X));
    st = gcoo_dist_bcg_solve(op, &Bd, &Xd, o, r);
    TEST_CALL(gcoo_ctx_dense_copy(dctx, &X, &Xd));
    TEST_CALL(gcoo_ctx_dense_destroy(dctx, &Bd));
    TEST_CALL(gcoo_ctx_dense_destroy(dctx, &Xd));
  } else {
    st = gcoo_dist_bcg_solve(op, &B, &X, o, r);
  }
  *tr = true_residual(op, &B, &X);
  gcoo_dense_destroy(&B);
  gcoo_dense_destroy(&X);
  gcoo_dense_destroy(&X0);
  return st;
}

/* The checks that do not fit solve_case: initial guesses, maxit, history, device vs host. */
static void more_cases(gcoo_dist d) {
  for (int dt = 0; dt < 2; dt++) {
    const double rtol = dt == GCOO_FLOAT64 ? 1e-10 : 1e-4;
    gcoo_dist_op op = poisson(d, (gcoo_dtype)dt, 7, 12, 0.0, GCOO_DIST_X_PARTITIONED);
    const char *tn = dt ? "f64" : "f32";
    const int64_t ks[] = {1, 4};
    for (int i = 0; i < 2; i++) { /* nonzero initial guess, history */
      gcoo_bcg_options o = GCOO_BCG_OPTIONS_INIT;
      o.rtol = rtol;
      o.maxit = 2000;
      o.record_history = 1;
      gcoo_bcg_result r;
      double tr;
      gcoo_status st = run_solve(op, (gcoo_dtype)dt, ks[i], &o, 77, 99, on_device, &r, &tr);
      TEST_CHECK(st == GCOO_SUCCESS, "x0 %s k %lld: status %s (%s)", tn, (long long)ks[i],
                 gcoo_status_name(st), gcoo_last_error());
      if (st < 0) continue;
      TEST_CHECK(tr <= 10 * rtol, "x0 %s k %lld: true residual %.3e", tn, (long long)ks[i], tr);
      for (int64_t j = 0; j < ks[i]; j++) {
        double last = r.history[r.iterations * ks[i] + j];
        TEST_CHECK(last == r.residual[j] && r.history[j] > rtol,
                   "x0 %s k %lld column %lld: history ends at %.3e, residual %.3e, starts %.3e", tn,
                   (long long)ks[i], (long long)j, last, r.residual[j], r.history[j]);
      }
      gcoo_bcg_result_free(&r);
    }
    const int64_t caps[] = {5, 37};
    for (int i = 0; i < 2; i++) /* stopped by maxit: exactly maxit iterations */
      for (int kk = 0; kk < 2; kk++) {
        gcoo_bcg_options o = GCOO_BCG_OPTIONS_INIT;
        o.rtol = rtol * 1e-3;
        o.maxit = caps[i];
        gcoo_bcg_result r;
        double tr;
        gcoo_status st = run_solve(op, (gcoo_dtype)dt, ks[kk], &o, 78, 0, on_device, &r, &tr);
        TEST_CHECK(st == GCOO_INFO_NOT_CONVERGED && r.iterations == caps[i] && !r.converged,
                   "maxit %lld %s k %lld: status %s, %lld iterations", (long long)caps[i], tn,
                   (long long)ks[kk], gcoo_status_name(st), (long long)r.iterations);
        if (st >= 0) gcoo_bcg_result_free(&r);
      }
    if (on_device) { /* device operands against host operands, same operator */
      /* k = 8, 16, 32 take the fused block passes (kernels/solver/bcg_fused.cuh; double k = 16, 32 with
       * the tensor-core updates); k = 32 more times, with them forced on and off
       * (GCOO_BCG_FUSED), with the CUDA-core updates (GCOO_BCG_MMA=0) and in the kernels'
       * variants (GCOO_BCG_STAGES, GCOO_BCG_GRAM2, GCOO_BCG_W_IN_R, GCOO_BCG_KK_THREADS; k = 8,
       * 16, the CUDA-core form and the GEMM path too), so every path meets the host loop */
      static const struct {
        int64_t k;
        const char *env; /* "NAME=VALUE ..." set for this case (the others unset) */
      } dv[] = {
          {1, ""},
          {8, ""},
          {16, ""},
          {32, ""},
          {32, "GCOO_BCG_FUSED=1"},
          {32, "GCOO_BCG_FUSED=0"},
          {32, "GCOO_BCG_FUSED=1 GCOO_BCG_MMA=0"},
          {32, "GCOO_BCG_FUSED=1 GCOO_BCG_STAGES=3,2,3"},
          {32, "GCOO_BCG_FUSED=1 GCOO_BCG_STAGES=2,2,3 GCOO_BCG_GRAM2=async16"},
          {32, "GCOO_BCG_FUSED=1 GCOO_BCG_GRAM2=regs"},
          {32, "GCOO_BCG_FUSED=1 GCOO_BCG_MMA=0 GCOO_BCG_STAGES=3,2,3 GCOO_BCG_GRAM2=async16"},
          {16, "GCOO_BCG_STAGES=2,2,3 GCOO_BCG_GRAM2=regs"},
          {8, "GCOO_BCG_STAGES=3,2,3 GCOO_BCG_GRAM2=async16"},
          {32, "GCOO_BCG_FUSED=1 GCOO_BCG_STAGES=3,2,3 GCOO_BCG_W_IN_R=1"},
          {16, "GCOO_BCG_W_IN_R=1"},
          {32, "GCOO_BCG_FUSED=1 GCOO_BCG_KK_THREADS=32"},
          {32, "GCOO_BCG_FUSED=0 GCOO_BCG_KK_THREADS=64"},
          {8, "GCOO_BCG_KK_THREADS=128"},
          {32, "GCOO_BCG_KK_THREADS=512 GCOO_BCG_PHASE_MARKS=0"},
          /* the W form (double's default): off; P made explicit every iteration (ratio 1: the
           * in-place W T of bcg_transform each time); the GEMM path; k = 40 (k x k arrays in
           * global memory) */
          {32, "GCOO_BCG_WFORM=0"},
          {32, "GCOO_BCG_WFORM_RATIO=1"},
          {32, "GCOO_BCG_FUSED=0 GCOO_BCG_WFORM_RATIO=1"},
          {16, "GCOO_BCG_WFORM=0"},
          {8, "GCOO_BCG_WFORM_RATIO=0.5"},
          {40, ""},
          {40, "GCOO_BCG_WFORM_RATIO=1"},
      };
      const char *names[] = {"GCOO_BCG_FUSED", "GCOO_BCG_MMA",         "GCOO_BCG_STAGES",
                             "GCOO_BCG_GRAM2", "GCOO_BCG_KK_THREADS",  "GCOO_BCG_W_IN_R",
                             "GCOO_BCG_WFORM", "GCOO_BCG_WFORM_RATIO", "GCOO_BCG_PHASE_MARKS"};
      const int nnames = (int)(sizeof names / sizeof names[0]);
      for (size_t i = 0; i < sizeof dv / sizeof dv[0]; i++) {
        for (int e = 0; e < nnames; e++) TEST_CALL(gcoo_param_set(names[e], NULL));
        char spec[160];
        snprintf(spec, sizeof spec, "%s", dv[i].env);
        for (char *save = NULL, *w = strtok_r(spec, " ", &save); w;
             w = strtok_r(NULL, " ", &save)) {
          char *eq = strchr(w, '=');
          if (!eq) continue;
          *eq = 0;
          TEST_CALL(gcoo_param_set(w, eq + 1)); /* developer parameters: set in any build */
        }
        gcoo_bcg_options o = GCOO_BCG_OPTIONS_INIT;
        o.rtol = rtol;
        o.maxit = 2000;
        gcoo_bcg_result rd, rh;
        double trd, trh;
        gcoo_status sd = run_solve(op, (gcoo_dtype)dt, dv[i].k, &o, 79, 0, 1, &rd, &trd);
        gcoo_status sh = run_solve(op, (gcoo_dtype)dt, dv[i].k, &o, 79, 0, 0, &rh, &trh);
        TEST_CHECK(sd == GCOO_SUCCESS && sh == GCOO_SUCCESS, "device vs host %s k %lld %s: %s, %s",
                   tn, (long long)dv[i].k, dv[i].env, gcoo_status_name(sd), gcoo_status_name(sh));
        if (sd < 0 || sh < 0) continue;
        const int64_t bound = dv[i].k == 1 ? 2 : 3;
        TEST_CHECK(llabs(rd.iterations - rh.iterations) <= bound && trd <= 10 * rtol,
                   "device vs host %s k %lld %s: %lld vs %lld iterations (bound %lld), true "
                   "residual %.3e",
                   tn, (long long)dv[i].k, dv[i].env, (long long)rd.iterations,
                   (long long)rh.iterations, (long long)bound, trd);
        if (rank == 0)
          printf("device vs host %s k %lld %s: %lld vs %lld iterations, true residuals %.2e / "
                 "%.2e\n",
                 tn, (long long)dv[i].k, dv[i].env, (long long)rd.iterations,
                 (long long)rh.iterations, trd, trh);
        gcoo_bcg_result_free(&rd);
        gcoo_bcg_result_free(&rh);
      }
      for (int e = 0; e < nnames; e++) TEST_CALL(gcoo_param_set(names[e], NULL));
      /* a variant switch that names no variant is refused, not ignored */
      static const char *bad[][2] = {{"GCOO_BCG_STAGES", "3,1,4"},
                                     {"GCOO_BCG_WFORM_RATIO", "2"},
                                     {"GCOO_BCG_WFORM", "yes"}};
      for (int b = 0; b < 3; b++) {
        TEST_CALL(gcoo_param_set(bad[b][0], bad[b][1]));
        gcoo_bcg_options o = GCOO_BCG_OPTIONS_INIT;
        o.rtol = rtol;
        o.maxit = 20;
        gcoo_bcg_result rd;
        double trd;
        gcoo_status sd = run_solve(op, (gcoo_dtype)dt, 32, &o, 79, 0, 1, &rd, &trd);
        TEST_CHECK(sd == GCOO_ERR_INVALID_ARG, "%s=%s %s: %s (want %s)", bad[b][0], bad[b][1], tn,
                   gcoo_status_name(sd), gcoo_status_name(GCOO_ERR_INVALID_ARG));
        if (sd >= 0) gcoo_bcg_result_free(&rd);
        TEST_CALL(gcoo_param_set(bad[b][0], NULL));
      }
    }
    TEST_CALL(gcoo_dist_op_destroy(&op));
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *backend = argc > 1 ? argv[1] : "cpu";
  on_device = !strcmp(backend, "cuda");
  int have = gcoo_cuda_device_count() > 0, have_all = have;
  MPI_Allreduce(&have, &have_all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (on_device && !have_all) {
    if (rank == 0) printf("t610-bcg: no GPU, skipped\n");
    MPI_Finalize();
    return GCOO_TEST_SKIP;
  }
  if (on_device) {
    /* more ranks than GPUs on this node (2 ranks on a 1-GPU machine): share them (the
     * host-staged collectives replace NCCL then), as t408 does */
    MPI_Comm node;
    int local_size = 1;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &local_size);
    MPI_Comm_free(&node);
    if (local_size > gcoo_cuda_device_count()) setenv("GCOO_ALLOW_SHARED_GPU", "1", 1);
  }
  gcoo_dist d;
  TEST_CALL(gcoo_dist_create(&d, MPI_COMM_WORLD, backend));
  dctx = gcoo_dist_ctx(d);

  for (int dt = 0; dt < 2; dt++) {
    double rtol = dt == GCOO_FLOAT64 ? 1e-10 : 1e-4;
    gcoo_dist_op op7 = poisson(d, (gcoo_dtype)dt, 7, 12, 0.0, GCOO_DIST_X_PARTITIONED);
    const int64_t ks[] = {1, 4, 16};
    for (size_t i = 0; i < 3; i++) {
      gcoo_bcg_result r = solve_case(op7, (gcoo_dtype)dt, ks[i], rtol, 0,
                                     dt ? "poisson7 f64" : "poisson7 f32");
      gcoo_bcg_result_free(&r);
    }
    gcoo_bcg_result r = solve_case(op7, (gcoo_dtype)dt, 8, rtol, 1, "dependent columns");
    gcoo_bcg_result_free(&r);
    TEST_CALL(gcoo_dist_op_destroy(&op7));
    gcoo_dist_op op27 = poisson(d, (gcoo_dtype)dt, 27, 10, 0.0, GCOO_DIST_X_PARTITIONED);
    r = solve_case(op27, (gcoo_dtype)dt, 4, rtol, 0, "poisson27");
    gcoo_bcg_result_free(&r);
    TEST_CALL(gcoo_dist_op_destroy(&op27));
  }

  /* k = 1 is PCG: compare the iteration count with the textbook loop */
  {
    gcoo_dist_op op = poisson(d, GCOO_FLOAT64, 7, 12, 0.0, GCOO_DIST_X_PARTITIONED);
    int64_t ref = textbook_pcg(op, 1e-10);
    gcoo_bcg_result r = solve_case(op, GCOO_FLOAT64, 1, 1e-10, 0, "k=1 vs textbook PCG");
    TEST_CHECK(llabs(r.iterations - ref) <= 2, "block CG k=1 took %lld iterations, PCG %lld",
               (long long)r.iterations, (long long)ref);
    gcoo_bcg_result_free(&r);
    TEST_CALL(gcoo_dist_op_destroy(&op));
  }

  /* a real SPD matrix */
  {
    gcoo_dist_op_options o = GCOO_DIST_OP_OPTIONS_INIT;
    o.xmode = GCOO_DIST_X_PARTITIONED;
    gcoo_dist_op op;
    TEST_CALL(
        gcoo_dist_op_create_from_file(d, gcoo_test_data("bcsstk21.mtx.gz"), GCOO_FLOAT64, &o, &op));
    gcoo_bcg_result r = solve_case(op, GCOO_FLOAT64, 4, 1e-8, 0, "bcsstk21");
    gcoo_bcg_result_free(&r);
    int64_t ref = textbook_pcg(op, 1e-8);
    r = solve_case(op, GCOO_FLOAT64, 1, 1e-8, 0, "bcsstk21 k=1 vs textbook PCG");
    int64_t bound = ref / 20 > 3 ? ref / 20 : 3;
    TEST_CHECK(llabs(r.iterations - ref) <= bound,
               "bcsstk21: block CG k=1 took %lld iterations, "
               "PCG %lld (bound %lld)",
               (long long)r.iterations, (long long)ref, (long long)bound);
    if (rank == 0)
      printf("bcsstk21 k=1: %lld iterations, textbook PCG %lld\n", (long long)r.iterations,
             (long long)ref);
    gcoo_bcg_result_free(&r);
    TEST_CALL(gcoo_dist_op_destroy(&op));
  }

  more_cases(d);

  /* misuse and indefinite matrices: clean errors on every rank */
  {
    gcoo_dist_op op = poisson(d, GCOO_FLOAT64, 7, 6, 0.0, GCOO_DIST_X_REPLICATED);
    int64_t row0, n;
    TEST_CALL(gcoo_dist_op_get_row_range(op, &row0, &n));
    gcoo_dense B, X;
    TEST_CALL(gcoo_dense_create(&B, GCOO_FLOAT64, GCOO_ROW_MAJOR, n, 2));
    TEST_CALL(gcoo_dense_create(&X, GCOO_FLOAT64, GCOO_ROW_MAJOR, n, 2));
    TEST_CALL(gcoo_dense_fill_random_rows(&B, 5, row0));
    gcoo_bcg_result r;
    TEST_FAILS(gcoo_dist_bcg_solve(op, &B, &X, NULL, &r), GCOO_ERR_INVALID_ARG, "PARTITIONED");
    TEST_CALL(gcoo_dist_op_destroy(&op));
    op = poisson(d, GCOO_FLOAT64, 7, 6, -10.0, GCOO_DIST_X_PARTITIONED);
    gcoo_bcg_options o = GCOO_BCG_OPTIONS_INIT;
    o.pc = GCOO_PC_NONE;
    o.maxit = 200;
    gcoo_status st = gcoo_dist_bcg_solve(op, &B, &X, &o, &r);
    TEST_CHECK(st == GCOO_ERR_BREAKDOWN || st == GCOO_INFO_NOT_CONVERGED,
               "indefinite matrix: status %s", gcoo_status_name(st));
    if (st >= 0) gcoo_bcg_result_free(&r);
    gcoo_dense_destroy(&B);
    gcoo_dense_destroy(&X);
    TEST_CALL(gcoo_dist_op_destroy(&op));
  }

  TEST_CALL(gcoo_dist_destroy(&d));
  int failures = gcoo_test_failures, all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  gcoo_test_failures = all;
  int rc = gcoo_test_finish(rank == 0 ? "t610-bcg" : "t610-bcg (other rank)");
  MPI_Finalize();
  return rc;
}
