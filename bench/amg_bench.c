/* SPDX-License-Identifier: MIT */
/* bench/amg_bench.c: time to solution of gcoo's CG with the AMG or the Jacobi preconditioner on
 * the model problems and Matrix Market files of bench/run_amg.sh, CPU backend, one JSON line a
 * run on rank 0. Run under mpirun with OMP_NUM_THREADS=1 (PETSc's setting: a rank a core).
 *
 *   amg_bench PROBLEM PC K [REPS [OPTIONS]]
 *     PROBLEM  poisson7:N | poisson27:N (3-D, N^3 rows) | laplace2d:N (N^2) | FILE.mtx[.gz]
 *     PC       amg | jacobi
 *     K        right-hand sides (block CG for K > 1)
 *     REPS     solves timed (default 1; the fastest counts)
 *     OPTIONS  more solver options (gcoo/ksp.h names, e.g. "-pc_amg_theta 0.05")
 *
 * b is random (seed 7), x0 = 0, rtol 1e-8 on the unpreconditioned residual (PETSc's
 * KSP_NORM_UNPRECONDITIONED). setup = gcoo_ksp_setup (the AMG hierarchy, Jacobi's diagonal),
 * solve = gcoo_ksp_solve, total = setup + solve: the time from the assembled operator to the
 * answer, as PETSc's ksp.setUp() + ksp.solve() is timed beside it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "../tests/solver/amg_problems.h"

static int fail(const char *what) {
  fprintf(stderr, "amg_bench: %s: %s\n", what, gcoo_last_error());
  MPI_Abort(MPI_COMM_WORLD, 1);
  return 1;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 4) {
    if (rank == 0) fprintf(stderr, "usage: amg_bench PROBLEM amg|jacobi K [REPS]\n");
    MPI_Finalize();
    return 2;
  }
  const char *problem = argv[1], *pcname = argv[2];
  const int64_t k = atoll(argv[3]);
  const int reps = argc > 4 ? atoi(argv[4]) : 1;
  const char *extra = argc > 5 ? argv[5] : "";
  gcoo_dist d;
  if (gcoo_dist_create(&d, MPI_COMM_WORLD, "cpu") < 0) return fail("context");
  gcoo_dist_op op = NULL;
  int dim = 0, stencil = 0;
  int64_t n = 0;
  if (!strncmp(problem, "poisson7:", 9)) dim = 3, stencil = 7, n = atoll(problem + 9);
  if (!strncmp(problem, "poisson27:", 10)) dim = 3, stencil = 27, n = atoll(problem + 10);
  if (!strncmp(problem, "laplace2d:", 10)) dim = 2, stencil = 5, n = atoll(problem + 10);
  if (dim) {
    if (amg_model_op(d, GCOO_FLOAT64, dim, stencil, n, &op) < 0) return fail(problem);
  } else {
    gcoo_dist_op_options o = GCOO_DIST_OP_OPTIONS_INIT;
    o.xmode = GCOO_DIST_X_PARTITIONED;
    if (gcoo_dist_op_create_from_file(d, problem, GCOO_FLOAT64, &o, &op) < 0) return fail(problem);
  }
  gcoo_dist_op_info oi;
  if (gcoo_dist_op_get_info(op, &oi) < 0) return fail("info");
  gcoo_dense B, X;
  if (gcoo_dense_create(&B, GCOO_FLOAT64, GCOO_ROW_MAJOR, oi.nrows_local, k) < 0 ||
      gcoo_dense_create(&X, GCOO_FLOAT64, GCOO_ROW_MAJOR, oi.nrows_local, k) < 0 ||
      gcoo_dense_fill_random_rows(&B, 7, oi.row0) < 0)
    return fail("blocks");
  double best_setup = 1e300, best_solve = 1e300, best_total = 1e300;
  gcoo_ksp_result keep;
  memset(&keep, 0, sizeof keep);
  gcoo_amg_info info;
  memset(&info, 0, sizeof info);
  char opts[512];
  snprintf(opts, sizeof opts, "-ksp_type cg -ksp_rtol 1e-8 -ksp_max_it 20000 -pc_type %s %s",
           pcname, extra);
  for (int rep = 0; rep < reps; rep++) {
    gcoo_ksp ksp;
    if (gcoo_ksp_create(&ksp, op) < 0 || gcoo_ksp_set_from_string(ksp, opts) < 0)
      return fail("solver");
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    if (gcoo_ksp_setup(ksp) < 0) return fail("set-up");
    const double t1 = MPI_Wtime();
    gcoo_ksp_result res;
    if (gcoo_ksp_solve(ksp, &B, &X, &res) < 0) return fail("solve");
    const double t2 = MPI_Wtime();
    double t[3] = {t1 - t0, t2 - t1, t2 - t0};
    MPI_Allreduce(MPI_IN_PLACE, t, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (t[2] < best_total) {
      best_setup = t[0], best_solve = t[1], best_total = t[2];
      gcoo_ksp_result_free(&keep);
      keep = res;
      gcoo_pc pc;
      if (!strcmp(pcname, "amg") &&
          (gcoo_ksp_get_pc(ksp, &pc) < 0 || gcoo_pc_get_amg_info(pc, &info) < 0))
        return fail("AMG report");
    } else {
      gcoo_ksp_result_free(&res);
    }
    gcoo_ksp_destroy(&ksp);
  }
  if (rank == 0) {
    double worst = 0.0;
    for (int64_t j = 0; j < k; j++)
      if (keep.true_residual[j] > worst) worst = keep.true_residual[j];
    printf("{\"problem\": \"%s\", \"solver\": \"gcoo-%s\", \"ranks\": %d, \"k\": %lld, "
           "\"rows\": %lld, \"nnz\": %lld, \"iterations\": %lld, \"converged\": %d, "
           "\"relres\": %.3e, \"setup\": %.6f, \"solve\": %.6f, \"total\": %.6f, "
           "\"options\": \"%s\"",
           problem, pcname, size, (long long)k, (long long)oi.m_global, (long long)oi.nnz_global,
           (long long)keep.iterations, keep.converged, worst, best_setup, best_solve, best_total,
           extra);
    if (!strcmp(pcname, "amg")) {
      printf(", \"levels\": %d, \"operator_complexity\": %.4f, \"grid_complexity\": %.4f, "
             "\"setup_phases\": {\"strength\": %.4f, \"aggregate\": %.4f, \"prolongator\": %.4f, "
             "\"galerkin\": %.4f, \"smoother\": %.4f, \"coarse\": %.4f}, \"level_rows\": [",
             info.levels, info.operator_complexity, info.grid_complexity, info.t_strength,
             info.t_aggregate, info.t_prolongator, info.t_galerkin, info.t_smoother, info.t_coarse);
      for (int l = 0; l < info.levels && l < 32; l++)
        printf("%s%lld", l ? ", " : "", (long long)info.level[l].rows);
      printf("], \"spgemm_nnz\": [");
      for (int l = 1; l < info.levels && l < 32; l++)
        printf("%s{\"ap_predicted\": %lld, \"ap\": %lld, \"rap_predicted\": %lld, \"rap\": %lld}",
               l > 1 ? ", " : "", (long long)info.level[l].nnz_predicted_ap,
               (long long)info.level[l].nnz_ap, (long long)info.level[l].nnz_predicted_rap,
               (long long)info.level[l].nnz);
      printf("]");
    }
    printf("}\n");
    fflush(stdout);
  }
  gcoo_ksp_result_free(&keep);
  gcoo_dense_destroy(&B);
  gcoo_dense_destroy(&X);
  gcoo_dist_op_destroy(&op);
  gcoo_dist_destroy(&d);
  MPI_Finalize();
  return 0;
}
