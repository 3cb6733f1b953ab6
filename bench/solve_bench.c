/* SPDX-License-Identifier: MIT */
/* bench/solve_bench.c: gcoo's solver (gcoo/ksp.h) timed as a user meets it: the warm time to
 * solution. The distributed operator is made once (as a PyTorch user makes the CSR tensor once);
 * then each solve makes its solver afresh (gcoo_ksp_create, options, gcoo_ksp_setup: Jacobi's
 * inverse diagonal, the workspace, the device graphs) and solves, so that every solve pays its
 * set-up. The first solve is the warm-up (BENCH_WARMUP_RUNS: the process's first kernels, library
 * handles, memory pools); the time to solution is the median of the --solves timed solves after it
 * (at least BENCH_MIN_RUNS), each the wall time from gcoo_ksp_create to X on the device, with the
 * set-up and the iterations (gcoo_ksp_result: t_setup, t_solve) beside it. This is the timing
 * rule of bench/bench_stat.h, the same that bench/torch_cg.py applies to PyTorch.
 *
 *   mpirun -np R solve_bench (--stencil 7|27 --grid n | --a FILE) [--k K] [--tol T] [--maxit M]
 *                            [--backend gpu|cpu|auto] [--alg NAME] [--lockstep] [--solves S]
 *
 * prints one JSON object on rank 0 with the names of `gcoo_dist solve --json` (a: {source, rows,
 * cols, nnz}, k, iterations, converged, true_residual_max, algorithm, backend, device, dtype;
 * time_s: solve = the time to solution, setup, iterate, spmm, reduce, blas, precond, build = the
 * operator's making, once), the cold first solve under "first" and every timed solve's time under
 * "solve_samples". float64, Jacobi-preconditioned CG (block CG for k > 1 unless --lockstep), B
 * random (seed 7, as the command's), X0 = 0. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_stat.h"
#include "gcoo/gcoo.h"

typedef struct solve_times {
  double wall, setup, iterate, spmm, reduce, precond;
  int64_t iterations;
  int converged;
  double true_residual_max;
} solve_times;

static double max_over_ranks(MPI_Comm comm, double v) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, comm);
  return v;
}

/* One solve with a solver made for it: the wall time from its creation to X. */
static gcoo_status one_solve(gcoo_dist d, gcoo_dist_op op, const gcoo_dense *B, gcoo_dense *X,
                             double tol, int64_t maxit, int lockstep, solve_times *t) {
  gcoo_ctx ctx = gcoo_dist_ctx(d);
  MPI_Comm comm = gcoo_dist_comm(d);
  gcoo_ksp ksp = NULL;
  gcoo_pc pc = NULL;
  gcoo_ksp_result res;
  memset(&res, 0, sizeof res);
  MPI_Barrier(comm);
  const double t0 = MPI_Wtime();
  gcoo_status st = gcoo_ksp_create(&ksp, op);
  gcoo_ksp_options o = GCOO_KSP_OPTIONS_INIT;
  o.type = GCOO_KSP_CG;
  o.rtol = tol;
  o.maxit = maxit;
  o.block = !lockstep;
  if (st >= 0) st = gcoo_ksp_set_options(ksp, &o);
  if (st >= 0) st = gcoo_ksp_get_pc(ksp, &pc);
  if (st >= 0) st = gcoo_pc_set_type(pc, GCOO_PC_JACOBI);
  if (st >= 0) st = gcoo_ksp_setup(ksp);
  const double t1 = MPI_Wtime();
  if (st >= 0) st = gcoo_ksp_solve(ksp, B, X, &res);
  if (st >= 0) st = gcoo_ctx_synchronize(ctx);
  const double t2 = MPI_Wtime();
  if (st >= 0) {
    t->wall = max_over_ranks(comm, t2 - t0);
    /* the set-up: making the solver and gcoo_ksp_setup, and any the solve itself paid */
    t->setup = max_over_ranks(comm, (t1 - t0) + res.t_setup);
    t->iterate = max_over_ranks(comm, res.t_solve);
    t->spmm = max_over_ranks(comm, res.t_spmm);
    t->reduce = max_over_ranks(comm, res.t_reduce);
    t->precond = max_over_ranks(comm, res.t_pc);
    t->iterations = res.iterations;
    t->converged = res.converged;
    t->true_residual_max = 0.0;
    for (int64_t c = 0; c < res.k; c++)
      if (!(res.true_residual[c] <= t->true_residual_max))
        t->true_residual_max = res.true_residual[c];
  }
  gcoo_ksp_result_free(&res);
  gcoo_ksp_destroy(&ksp);
  return st;
}

static int usage(void) {
  fprintf(stderr, "usage: solve_bench (--stencil 7|27 --grid n | --a FILE) [--k K] [--tol T] "
                  "[--maxit M] [--backend gpu|cpu|auto] [--alg NAME] [--lockstep] [--solves S]\n");
  return 2;
}

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *a_path = NULL, *backend = NULL, *alg_name = "auto";
  int stencil = 0, lockstep = 0, solves = BENCH_MIN_RUNS;
  int64_t grid = 0, k = 1, maxit = 20000;
  double tol = 1e-8;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--stencil") && i + 1 < argc)
      stencil = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--grid") && i + 1 < argc)
      grid = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--a") && i + 1 < argc)
      a_path = argv[++i];
    else if (!strcmp(argv[i], "--k") && i + 1 < argc)
      k = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--tol") && i + 1 < argc)
      tol = atof(argv[++i]);
    else if (!strcmp(argv[i], "--maxit") && i + 1 < argc)
      maxit = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--backend") && i + 1 < argc)
      backend = argv[++i];
    else if (!strcmp(argv[i], "--alg") && i + 1 < argc)
      alg_name = argv[++i];
    else if (!strcmp(argv[i], "--lockstep"))
      lockstep = 1;
    else if (!strcmp(argv[i], "--solves") && i + 1 < argc)
      solves = atoi(argv[++i]);
    else {
      if (rank == 0) usage();
      MPI_Finalize();
      return 2;
    }
  }
  const int alg = gcoo_spdm_alg_from_name(alg_name);
  if ((!a_path == !stencil) || (stencil && (stencil != 7 && stencil != 27)) ||
      (stencil && grid < 2) || k < 1 || alg < 0) {
    if (rank == 0) usage();
    MPI_Finalize();
    return 2;
  }
  if (solves < BENCH_MIN_RUNS) solves = BENCH_MIN_RUNS;
  if (backend && !strcmp(backend, "gpu")) backend = "cuda";
  gcoo_dist d = NULL;
  gcoo_dist_op op = NULL;
  gcoo_dist_op_info info;
  gcoo_dense Bh = {0}, B = {0}, X = {0};
  solve_times first, *t = calloc((size_t)solves, sizeof *t);
  double *wall = calloc((size_t)solves, sizeof *wall);
  int rc = 1;
  gcoo_status st = gcoo_dist_create(&d, MPI_COMM_WORLD, backend);
  if (st < 0) goto done;
  gcoo_ctx ctx = gcoo_dist_ctx(d);
  MPI_Comm comm = gcoo_dist_comm(d);
  /* the operator, once; X partitioned like the rows (what the solvers need) */
  gcoo_dist_op_options o = GCOO_DIST_OP_OPTIONS_INIT;
  o.local.alg = (gcoo_spdm_alg)alg;
  o.local.ncols_hint = k;
  o.xmode = GCOO_DIST_X_PARTITIONED;
  const double tb = MPI_Wtime();
  if (a_path) {
    st = gcoo_dist_op_create_from_file(d, a_path, GCOO_FLOAT64, &o, &op);
  } else {
    const int64_t n3 = grid * grid * grid;
    gcoo_partition part;
    gcoo_sparse slab = NULL;
    int64_t r0 = 0, r1 = 0;
    st = gcoo_partition_balanced(NULL, n3, size, &part);
    if (st >= 0) {
      r0 = part.begin[rank];
      r1 = part.begin[rank + 1];
      gcoo_partition_free(&part);
      st = gcoo_sparse_poisson3d_rows(&slab, GCOO_FLOAT64, GCOO_FORMAT_CSR, stencil, (int)grid, r0,
                                      r1, 0);
    }
    st = gcoo_dist_agree(d, st);
    if (st >= 0) st = gcoo_dist_op_create(d, slab, r0, n3, &o, &op);
    gcoo_sparse_destroy(&slab);
  }
  if (st < 0) goto done;
  const double t_build = max_over_ranks(comm, MPI_Wtime() - tb);
  if ((st = gcoo_dist_op_get_info(op, &info)) < 0) goto done;
  /* B random (seed 7, rows of this rank), X; on the device when the context has one */
  const gcoo_memspace mem = gcoo_ctx_device(ctx) >= 0 ? GCOO_MEM_DEVICE : GCOO_MEM_HOST;
  st = gcoo_dense_create(&Bh, GCOO_FLOAT64, GCOO_ROW_MAJOR, info.nrows_local, k);
  if (st >= 0) st = gcoo_dense_fill_random_rows(&Bh, 7, info.row0);
  if (st >= 0)
    st = gcoo_ctx_dense_create(ctx, &B, GCOO_FLOAT64, GCOO_ROW_MAJOR, info.nrows_local, k, mem);
  if (st >= 0)
    st = gcoo_ctx_dense_create(ctx, &X, GCOO_FLOAT64, GCOO_ROW_MAJOR, info.nrows_local, k, mem);
  if (st >= 0) st = gcoo_ctx_dense_copy(ctx, &B, &Bh);
  st = gcoo_dist_agree(d, st);
  if (st < 0) goto done;
  /* the warm-up solve, then the timed ones */
  if ((st = one_solve(d, op, &B, &X, tol, maxit, lockstep, &first)) < 0) goto done;
  for (int s = 0; s < solves; s++) {
    if ((st = one_solve(d, op, &B, &X, tol, maxit, lockstep, &t[s])) < 0) goto done;
    wall[s] = t[s].wall;
  }
  /* the median solve's record */
  double sorted[64];
  const int ns = solves < 64 ? solves : 64;
  memcpy(sorted, wall, (size_t)ns * sizeof *sorted);
  const double med = bench_median(sorted, ns);
  int mi = 0;
  for (int s = 1; s < ns; s++)
    if (fabs(wall[s] - med) < fabs(wall[mi] - med)) mi = s;
  const solve_times *m = &t[mi];
  int converged = first.converged;
  double worst = first.true_residual_max;
  for (int s = 0; s < solves; s++) {
    converged = converged && t[s].converged;
    if (!(t[s].true_residual_max <= worst)) worst = t[s].true_residual_max;
  }
  if (rank == 0) {
    char dev[256];
    if (gcoo_ctx_describe(ctx, dev, sizeof dev) < 0) snprintf(dev, sizeof dev, "?");
    const char *algn = gcoo_spdm_alg_name(info.local.alg);
    printf("{\"command\": \"solve_bench\", \"a\": {\"source\": \"%s\", \"rows\": %lld, "
           "\"cols\": %lld, \"nnz\": %lld}, \"ranks\": %d, \"backend\": \"%s\", \"device\": "
           "\"%s\", \"dtype\": \"float64\", \"algorithm\": \"%s\", \"ksp\": \"cg\", \"pc\": "
           "\"jacobi\", \"k\": %lld, \"mode\": \"%s\", \"tol\": %g, \"converged\": %s, "
           "\"iterations\": %lld, \"true_residual_max\": %.6e, \"solves\": %d, \"statistic\": "
           "\"median of %d solves after a warm-up solve, each with its own solver (set-up "
           "included)\", \"time_s\": {\"build\": %.6f, \"solve\": %.6f, \"setup\": %.6f, "
           "\"iterate\": %.6f, "
           "\"spmm\": %.6f, \"reduce\": %.6f, \"blas\": %.6f, \"precond\": %.6f}, "
           "\"first\": {\"solve\": %.6f, \"setup\": %.6f, \"iterate\": %.6f}, \"solve_samples\": [",
           a_path ? a_path : (stencil == 7 ? "poisson3d-7" : "poisson3d-27"),
           (long long)info.m_global, (long long)info.m_global, (long long)info.nnz_global, size,
           gcoo_ctx_backend(ctx), dev, algn, (long long)k,
           k > 1 && !lockstep ? "block" : "lockstep", tol, converged ? "true" : "false",
           (long long)m->iterations, worst, solves, solves, t_build, m->wall, m->setup, m->iterate,
           m->spmm, m->reduce, fmax(m->iterate - m->spmm - m->reduce - m->precond, 0.0), m->precond,
           first.wall, first.setup, first.iterate);
    for (int s = 0; s < solves; s++) printf("%s%.6f", s ? ", " : "", wall[s]);
    printf("]}\n");
  }
  rc = converged ? 0 : 1;
done:
  if (st < 0 && rank == 0)
    fprintf(stderr, "solve_bench: %s: %s\n", gcoo_status_name(st), gcoo_last_error());
  if (d) {
    gcoo_ctx c = gcoo_dist_ctx(d);
    if (B.data) gcoo_ctx_dense_destroy(c, &B);
    if (X.data) gcoo_ctx_dense_destroy(c, &X);
  }
  if (Bh.data) gcoo_dense_destroy(&Bh);
  gcoo_dist_op_destroy(&op);
  gcoo_dist_destroy(&d);
  free(t);
  free(wall);
  MPI_Finalize();
  return st < 0 ? 1 : rc;
}
