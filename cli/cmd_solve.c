/* SPDX-License-Identifier: MIT */
/* cli/cmd_solve.c: gcoo_dist solve: block CG (gcoo/solver.h) on the distributed GCOO
 * operator, for k right-hand sides at once or (--separate) one column at a time with the same
 * operator, which is the comparison the block method is judged by. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_files.h"

static cli_option options[] =
    {{"a", "PATH", NULL, "SPD matrix A: .mtx, .mtx.gz or file.h5[:/object]", NULL, false},
     CLI_OPT_STENCIL,
     CLI_OPT_GRID("32"),
     {"shift", "S", "0", "solve with A + S*I (makes a semi-definite matrix definite)", NULL, false},
     {"b", "PATH", NULL,
      "right-hand sides B, m x k: file.h5:/dataset or a Matrix Market array "
      "file.mtx[.gz]",
      NULL, false},
     {"k", "K", "8", "instead of --b: K random right-hand sides", NULL, false},
     {"seed", "S", "7", "seed of the random right-hand sides", NULL, false},
     {"tol", "T", "1e-8", "relative residual per column", NULL, false},
     {"maxit", "M", "10000", "iteration limit", NULL, false},
     {"pc", "P", "jacobi", "preconditioner: jacobi or none", NULL, false},
     {"separate", NULL, NULL, "solve the k columns one after another (k = 1 block CG = PCG)", NULL,
      false},
     CLI_OPT_BACKEND,
     CLI_OPT_SPDM_ALG,
     CLI_OPT_P("0", " (0: the backend's default)"),
     CLI_OPT_DTYPE(NULL, " [default: float64, whatever the file stores: tolerances such as 1e-8 "
                         "need it]"),
     CLI_OPT_OUT("write X: file.h5[:/dataset] (parallel; dataset /X when not named) or "
                 "file.mtx[.gz] (gathered on rank 0)"),
     CLI_OPT_OVERWRITE,
     {"history", NULL, NULL, "with --json: the relative residuals of every iteration", NULL, false},
     CLI_OPT_JSON,
     CLI_OPT_END};

typedef struct solve_job {
  const char *a_path, *b_path, *out, *backend;
  int write_flags; /* GCOO_H5_OVERWRITE with --overwrite */
  int stencil, alg, separate, history, json;
  int64_t grid, k, maxit;
  int32_t p;
  uint64_t seed;
  double shift, tol;
  gcoo_pc_type pc;
  gcoo_dtype dtype;
  char dtype_source[300];
  double last_progress; /* MPI_Wtime of the last iteration line */
  int64_t column;       /* --separate: the column being solved */
  gcoo_dist d;
  gcoo_dist_op op;
  gcoo_dist_op_info info;
  gcoo_dense Bh, Xh, B, X; /* host copies and the operands the solver sees */
  gcoo_bcg_result res;
  int64_t *col_its; /* --separate: iterations per column */
  double t_build, t_solve, t_write;
  gcoo_status solve_status;
} solve_job;

static bool parse(cli_command *cmd, solve_job *j) {
  long long v;
  double r;
  memset(j, 0, sizeof *j);
  cli_job_files(cmd, &j->a_path, &j->b_path, &j->out, &j->write_flags);
  j->separate = cli_flag(cmd, "separate");
  j->history = cli_flag(cmd, "history");
  j->json = cli_flag(cmd, "json");
  if ((j->a_path != NULL) == cli_flag(cmd, "stencil")) {
    if (cli_rank() == 0)
      fprintf(stderr,
              "gcoo_dist solve: give the matrix as exactly one of --a PATH or --stencil 7|27\n");
    return false;
  }
  if (!cli_stencil(cmd, &j->stencil, &j->grid)) return false;
  if (!cli_real(cmd, "shift", -1e300, 1e300, &j->shift)) return false;
  if (!cli_int(cmd, "k", 1, 4096, &v)) return false;
  j->k = v;
  if (!cli_int(cmd, "seed", 0, INT64_MAX, &v)) return false;
  j->seed = (uint64_t)v;
  if (!cli_real(cmd, "tol", 1e-300, 1.0, &r)) return false;
  j->tol = r;
  if (!cli_int(cmd, "maxit", 0, INT64_MAX / 2, &v)) return false;
  j->maxit = v;
  static const char *const pcs[] = {"jacobi", "none"};
  int pc;
  if (!cli_choice(cmd, "pc", pcs, 2, &pc)) return false;
  j->pc = pc == 0 ? GCOO_PC_JACOBI : GCOO_PC_NONE;
  if (!cli_operator_options(cmd, &j->backend, &j->alg, &j->p)) return false;
  /* float64 unless told: a tolerance like 1e-8 is out of float32's reach, whatever the file's
   * values are stored in */
  if (!cli_job_dtype(cmd, NULL, GCOO_FLOAT64, &j->dtype, j->dtype_source, sizeof j->dtype_source))
    return false;
  if (!cli_flag(cmd, "dtype")) snprintf(j->dtype_source, sizeof j->dtype_source, "(default)");
  return cli_job_output_check(cmd, j->out, j->a_path, j->b_path) == 0;
}

/* Shapes before any work: A must be square, B must have A's rows. Rank 0 looks at the files and
 * says what is wrong, once. */
static bool shapes_fit(solve_job *j) {
  int ok = 1;
  if (cli_rank() == 0) {
    int64_t am = 0, an = 0, bm = 0, bn = 0;
    int asp = 1, bsp = 0;
    gcoo_status st = GCOO_SUCCESS;
    if (j->a_path) {
      st = cli_dense_shape(j->a_path, &am, &an, &asp);
      if (st < 0) {
        if (!cli_explain_whole_file("solve", "a", j->a_path, false, st)) cli_fail(j->a_path, st);
        ok = 0;
      } else if (!asp) {
        fprintf(stderr, "gcoo_dist solve: --a %s is a dense matrix; block CG takes a sparse one\n",
                j->a_path);
        ok = 0;
      } else if (am != an) {
        fprintf(stderr,
                "gcoo_dist solve: --a %s is %lld x %lld: block CG solves square (symmetric "
                "positive definite) systems\n",
                j->a_path, (long long)am, (long long)an);
        ok = 0;
      }
    } else {
      am = j->grid * j->grid * j->grid;
    }
    if (ok && j->b_path) {
      st = cli_dense_shape(j->b_path, &bm, &bn, &bsp);
      if (st < 0) {
        if (!cli_explain_whole_file("solve", "b", j->b_path, true, st)) cli_fail(j->b_path, st);
        ok = 0;
      } else if (bsp) {
        fprintf(stderr,
                "gcoo_dist solve: --b %s holds a sparse matrix; the right-hand sides are "
                "a dense 2-D dataset or a Matrix Market array file\n",
                j->b_path);
        ok = 0;
      } else if (bm != am || bn < 1) {
        fprintf(stderr,
                "gcoo_dist solve: --b %s is %lld x %lld, but A has %lld rows: B must be "
                "%lld x k\n",
                j->b_path, (long long)bm, (long long)bn, (long long)am, (long long)am);
        ok = 0;
      }
    }
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return ok;
}

/* The operator, with X partitioned like the rows (what block CG needs). */
static gcoo_status build(solve_job *j) {
  gcoo_dist_op_options o = GCOO_DIST_OP_OPTIONS_INIT;
  o.local.alg = (gcoo_spdm_alg)j->alg;
  o.local.p = j->p;
  o.local.ncols_hint = j->separate ? 1 : j->k;
  o.xmode = GCOO_DIST_X_PARTITIONED;
  o.shift = j->shift;
  double t0 = MPI_Wtime();
  if (j->a_path) {
    cli_progress("reading %s", j->a_path);
    gcoo_status st = gcoo_dist_op_create_from_file(j->d, j->a_path, j->dtype, &o, &j->op);
    if (st < 0) return st;
    cli_progress_rate("read", j->a_path, cli_file_mbytes(j->a_path), MPI_Wtime() - t0);
  } else {
    const int64_t n3 = j->grid * j->grid * j->grid;
    gcoo_partition part;
    gcoo_status st = gcoo_partition_balanced(NULL, n3, cli_size(), &part);
    gcoo_sparse slab = NULL;
    int64_t r0 = 0, r1 = 0;
    if (st >= 0) {
      r0 = part.begin[cli_rank()];
      r1 = part.begin[cli_rank() + 1];
      gcoo_partition_free(&part);
      st = gcoo_sparse_poisson3d_rows(&slab, j->dtype, GCOO_FORMAT_CSR, j->stencil, j->grid, r0, r1,
                                      0);
    }
    st = gcoo_dist_agree(j->d, st);
    if (st < 0) return st;
    st = gcoo_dist_op_create(j->d, slab, r0, n3, &o, &j->op);
    gcoo_sparse_destroy(&slab);
    if (st < 0) return st;
  }
  j->t_build = MPI_Wtime() - t0;
  return gcoo_dist_op_get_info(j->op, &j->info);
}

/* B (read or generated, this rank's rows) and X = 0, on the device when the context has one. */
static gcoo_status operands(solve_job *j) {
  gcoo_status st = GCOO_SUCCESS;
  const int64_t n = j->info.nrows_local, r0 = j->info.row0;
  gcoo_ctx ctx = gcoo_dist_ctx(j->d);
  if (j->b_path) {
    cli_progress("reading %s", j->b_path);
    st = cli_dense_read_rows(gcoo_dist_comm(j->d), j->b_path, j->dtype, r0, n, GCOO_ROW_MAJOR,
                             &j->Bh);
    if (st >= 0 && j->Bh.ncols < 1) st = GCOO_ERR_SHAPE;
    if (st >= 0) j->k = j->Bh.ncols;
  } else {
    st = gcoo_dense_create(&j->Bh, j->dtype, GCOO_ROW_MAJOR, n, j->k);
    if (st >= 0) st = gcoo_dense_fill_random_rows(&j->Bh, j->seed, r0);
  }
  if (st >= 0) st = gcoo_dense_create(&j->Xh, j->dtype, GCOO_ROW_MAJOR, n, j->k);
  st = gcoo_dist_agree(j->d, st);
  if (st < 0) return st;
  if (gcoo_ctx_device(ctx) >= 0) {
    st = gcoo_ctx_dense_create(ctx, &j->B, j->dtype, GCOO_ROW_MAJOR, n, j->k, GCOO_MEM_DEVICE);
    if (st >= 0)
      st = gcoo_ctx_dense_create(ctx, &j->X, j->dtype, GCOO_ROW_MAJOR, n, j->k, GCOO_MEM_DEVICE);
    if (st >= 0) st = gcoo_ctx_dense_copy(ctx, &j->B, &j->Bh);
    if (st >= 0) st = gcoo_ctx_dense_copy(ctx, &j->X, &j->Xh);
  } else {
    j->B = j->Bh;
    j->B.owned = 0;
    j->X = j->Xh;
    j->X.owned = 0;
  }
  return gcoo_dist_agree(j->d, st);
}

/* Column c of a row-major n x k block, as an n x 1 view (leading dimension k). */
static gcoo_dense column(const gcoo_dense *M, int64_t c) {
  gcoo_dense v = *M;
  v.data = (char *)M->data + (size_t)c * gcoo_dtype_size(M->dtype);
  v.ncols = 1;
  v.owned = 0;
  return v;
}

/* Iteration progress (rank 0, interactive runs): the first iteration, then one line a second. */
static void monitor(void *ctx, int64_t it, int64_t k, const double *rel) {
  solve_job *j = ctx;
  const double now = MPI_Wtime();
  if (it == 0 || ((it > 1 || (j->separate && j->column > 0)) && now - j->last_progress < 1.0))
    return;
  double worst = 0.0;
  int64_t done = 0;
  for (int64_t c = 0; c < k; c++) {
    if (rel[c] > worst || isnan(rel[c])) worst = rel[c];
    if (rel[c] <= j->tol) done++;
  }
  if (j->separate)
    cli_progress("column %lld of %lld, iteration %lld: relative residual %.3e",
                 (long long)j->column + 1, (long long)j->k, (long long)it, worst);
  else
    cli_progress("iteration %lld: max relative residual %.3e, %lld of %lld column%s converged",
                 (long long)it, worst, (long long)done, (long long)k, k > 1 ? "s" : "");
  j->last_progress = now;
}

static gcoo_status solve(solve_job *j) {
  gcoo_bcg_options o = GCOO_BCG_OPTIONS_INIT;
  if (cli_interactive() && cli_rank() == 0) {
    o.monitor = monitor;
    o.monitor_ctx = j;
  }
  o.rtol = j->tol;
  o.maxit = j->maxit;
  o.pc = j->pc;
  o.record_history = j->history && !j->separate;
  double t0 = MPI_Wtime();
  if (!j->separate) {
    j->solve_status = gcoo_dist_bcg_solve(j->op, &j->B, &j->X, &o, &j->res);
    j->t_solve = MPI_Wtime() - t0;
    return j->solve_status;
  }
  /* k runs of the same solver with one column each; results summed into res */
  gcoo_bcg_result *r = &j->res;
  memset(r, 0, sizeof *r);
  r->k = j->k;
  r->converged = 1;
  r->column_iterations = calloc((size_t)j->k, sizeof *r->column_iterations);
  r->residual = calloc((size_t)j->k, sizeof *r->residual);
  r->true_residual = calloc((size_t)j->k, sizeof *r->true_residual);
  if (!r->column_iterations || !r->residual || !r->true_residual) return GCOO_ERR_NO_MEMORY;
  r->min_block_rank = 1;
  j->solve_status = GCOO_SUCCESS;
  for (int64_t c = 0; c < j->k; c++) {
    gcoo_dense Bc = column(&j->B, c), Xc = column(&j->X, c);
    j->column = c;
    gcoo_bcg_result one;
    gcoo_status st = gcoo_dist_bcg_solve(j->op, &Bc, &Xc, &o, &one);
    if (st < 0) return st;
    if (st > 0) j->solve_status = st;
    r->column_iterations[c] = one.column_iterations[0] >= 0 ? one.column_iterations[0] : -1;
    r->residual[c] = one.residual[0];
    r->true_residual[c] = one.true_residual[0];
    if (one.iterations > r->iterations) r->iterations = one.iterations;
    r->converged &= one.converged;
    r->t_spmm += one.t_spmm;
    r->t_iterate += one.t_iterate;
    r->t_setup += one.t_setup;
    r->spmm_alg = one.spmm_alg;
    r->t_reduce += one.t_reduce;
    r->t_blas += one.t_blas;
    r->t_precond += one.t_precond;
    r->spmm_calls += one.spmm_calls;
    gcoo_bcg_result_free(&one);
  }
  j->t_solve = MPI_Wtime() - t0;
  r->t_total = j->t_solve;
  return j->solve_status;
}

static gcoo_status write_out(solve_job *j) {
  if (!j->out) return GCOO_SUCCESS;
  gcoo_ctx ctx = gcoo_dist_ctx(j->d);
  double t0 = MPI_Wtime();
  gcoo_status st = GCOO_SUCCESS;
  if (j->X.mem == GCOO_MEM_DEVICE) st = gcoo_ctx_dense_copy(ctx, &j->Xh, &j->X);
  st = gcoo_dist_agree(j->d, st);
  if (st < 0) return st;
  cli_progress("writing %s", j->out);
  if (cli_file_kind_of(j->out) == CLI_FILE_MTX) {
    st = cli_write_mtx_dense_rows(gcoo_dist_comm(j->d), j->out, j->info.m_global, &j->Xh, 0);
  } else {
#if GCOO_HAVE_HDF5
    char target[4096];
    st = gcoo_h5_write_dense_rows_flags(gcoo_dist_comm(j->d),
                                        cli_h5_dataset(j->out, "/X", target, sizeof target),
                                        j->info.m_global, j->info.row0, &j->Xh, j->write_flags);
#else
    st = gcoo_dist_agree(j->d, GCOO_ERR_UNSUPPORTED);
#endif
  }
  j->t_write = MPI_Wtime() - t0;
  if (st >= 0) cli_progress_rate("wrote", j->out, cli_file_mbytes(j->out), j->t_write);
  return st;
}

static double max_over_ranks(solve_job *j, double v) {
  double m = v;
  MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, gcoo_dist_comm(j->d));
  return m;
}

static void report(solve_job *j) {
  gcoo_bcg_result *r = &j->res;
  double worst_true = 0.0;
  int64_t max_its = 0, min_its = INT64_MAX;
  for (int64_t c = 0; c < r->k; c++) {
    if (r->true_residual[c] > worst_true || isnan(r->true_residual[c]))
      worst_true = r->true_residual[c];
    int64_t it = r->column_iterations[c];
    if (it > max_its) max_its = it;
    if (it >= 0 && it < min_its) min_its = it;
  }
  /* per-phase times: the slowest rank's */
  double t_spmm = max_over_ranks(j, r->t_spmm), t_reduce = max_over_ranks(j, r->t_reduce);
  double t_blas = max_over_ranks(j, r->t_blas), t_pc = max_over_ranks(j, r->t_precond);
  double t_solve = max_over_ranks(j, j->t_solve), t_build = max_over_ranks(j, j->t_build);
  double t_iter = max_over_ranks(j, r->t_iterate), t_setup = max_over_ranks(j, r->t_setup);
  int64_t halo = j->info.halo_rows_recv, halo_sum = 0;
  MPI_Allreduce(&halo, &halo_sum, 1, MPI_INT64_T, MPI_SUM, gcoo_dist_comm(j->d));
  char dev[256];
  if (gcoo_ctx_describe(gcoo_dist_ctx(j->d), dev, sizeof dev) < 0) snprintf(dev, sizeof dev, "?");
  if (cli_rank() != 0) return;
  if (j->json) {
    cli_json js;
    cli_json_begin(&js, stdout);
    cli_json_str(&js, "command", "solve");
    cli_json_str(&js, "matrix",
                 j->a_path ? j->a_path : (j->stencil == 7 ? "poisson3d-7" : "poisson3d-27"));
    if (!j->a_path) cli_json_int(&js, "grid", j->grid);
    cli_json_int(&js, "m", j->info.m_global);
    cli_json_int(&js, "nnz", j->info.nnz_global);
    cli_json_real(&js, "shift", j->shift);
    cli_json_int(&js, "ranks", cli_size());
    cli_json_str(&js, "backend", gcoo_ctx_backend(gcoo_dist_ctx(j->d)));
    cli_json_str(&js, "device", dev);
    cli_json_str(&js, "dtype", cli_dtype_name(j->dtype));
    cli_json_str(&js, "dtype_source", j->dtype_source);
    cli_json_str(&js, "alg", gcoo_spdm_alg_name(j->info.local.alg));
    /* the product the iterations used (the solver may measure a faster one at set-up) */
    cli_json_str(&js, "alg_solver",
                 gcoo_spdm_alg_name(r->spmm_alg ? r->spmm_alg : j->info.local.alg));
    cli_json_int(&js, "k", r->k);
    cli_json_str(&js, "mode", j->separate ? "separate" : "block");
    cli_json_str(&js, "pc", j->pc == GCOO_PC_JACOBI ? "jacobi" : "none");
    cli_json_real(&js, "tol", j->tol);
    cli_json_int(&js, "maxit", j->maxit);
    cli_json_bool(&js, "converged", r->converged);
    cli_json_int(&js, "iterations", r->iterations);
    cli_json_int(&js, "spmm_calls", r->spmm_calls);
    cli_json_int(&js, "min_block_rank", r->min_block_rank);
    cli_json_int(&js, "explicit_blocks", r->explicit_blocks);
    cli_json_real(&js, "true_residual_max", worst_true);
    cli_json_array(&js, "column_iterations");
    for (int64_t c = 0; c < r->k; c++) cli_json_int(&js, NULL, r->column_iterations[c]);
    cli_json_end(&js);
    cli_json_array(&js, "true_residual");
    for (int64_t c = 0; c < r->k; c++) cli_json_real(&js, NULL, r->true_residual[c]);
    cli_json_end(&js);
    if (r->history) {
      cli_json_array(&js, "history");
      for (int64_t it = 0; it <= r->iterations; it++) {
        cli_json_array(&js, NULL);
        for (int64_t c = 0; c < r->k; c++) cli_json_real(&js, NULL, r->history[it * r->k + c]);
        cli_json_end(&js);
      }
      cli_json_end(&js);
    }
    cli_json_int(&js, "halo_rows_per_multiply", halo_sum);
    static const char *const phases[] = {"build",  "solve", "setup",   "iterate", "spmm",
                                         "reduce", "blas",  "precond", "write"};
    const double secs[] = {t_build,  t_solve, t_setup, t_iter,    t_spmm,
                           t_reduce, t_blas,  t_pc,    j->t_write};
    cli_json_object(&js, "seconds");
    cli_json_reals(&js, phases, secs, 9);
    cli_json_end(&js);
    cli_json_end(&js);
    return;
  }
  printf("gcoo_dist solve: %s, %lld rows, nnz %lld, shift %g; %d rank(s), %s (%s), %s %s\n",
         j->a_path ? j->a_path : (j->stencil == 7 ? "3-D Poisson 7-point" : "3-D Poisson 27-point"),
         (long long)j->info.m_global, (long long)j->info.nnz_global, j->shift, cli_size(),
         gcoo_ctx_backend(gcoo_dist_ctx(j->d)), dev, cli_dtype_name(j->dtype), j->dtype_source);
  printf("  %s CG, k = %lld, %s preconditioner, tol %g: %s after %lld iteration(s) (columns: "
         "%lld..%lld), "
         "%lld multiplies\n",
         j->separate ? "separate" : "block", (long long)r->k,
         j->pc == GCOO_PC_JACOBI ? "Jacobi" : "no", j->tol,
         r->converged ? "converged" : "NOT converged", (long long)r->iterations,
         (long long)(min_its == INT64_MAX ? -1 : min_its), (long long)max_its,
         (long long)r->spmm_calls);
  printf("  true residual ||B - A X|| / ||B||: max %.3e over the %lld columns\n", worst_true,
         (long long)r->k);
  printf("  time: build %.3f s, solve %.3f s (set-up %.3f, iterations %.3f: SpDM %.3f, "
         "reductions %.3f, block ops %.3f, preconditioner %.3f), write %.3f s; halo %lld rows per "
         "multiply; product %s\n",
         t_build, t_solve, t_setup, t_iter, t_spmm, t_reduce, t_blas, t_pc, j->t_write,
         (long long)halo_sum, gcoo_spdm_alg_name(r->spmm_alg ? r->spmm_alg : j->info.local.alg));
}

static int run(int argc, char **argv, cli_command *cmd) {
  (void)argc;
  (void)argv;
  solve_job j;
  if (!parse(cmd, &j)) return 2;
  if (!shapes_fit(&j)) return 1;
  gcoo_status st = gcoo_dist_create(&j.d, MPI_COMM_WORLD, j.backend);
  if (st < 0) return cli_report("creating the distributed context", st);
  int rc = 0;
  if ((st = build(&j)) < 0) rc = cli_report("building the operator", st);
  if (!rc && (st = operands(&j)) < 0) rc = cli_report("preparing the right-hand sides", st);
  if (!rc && (st = solve(&j)) < 0) rc = cli_report("solving", st);
  if (!rc && (st = write_out(&j)) < 0) rc = cli_report("writing X", st);
  if (!rc) {
    report(&j);
    if (!j.res.converged) {
      if (cli_rank() == 0 && !j.json)
        fprintf(stderr, "gcoo_dist solve: not converged within %lld iterations\n",
                (long long)j.maxit);
      rc = 1;
    }
  }
  gcoo_ctx ctx = gcoo_dist_ctx(j.d);
  if (j.B.mem == GCOO_MEM_DEVICE) gcoo_ctx_dense_destroy(ctx, &j.B);
  if (j.X.mem == GCOO_MEM_DEVICE) gcoo_ctx_dense_destroy(ctx, &j.X);
  gcoo_dense_destroy(&j.Bh);
  gcoo_dense_destroy(&j.Xh);
  gcoo_bcg_result_free(&j.res);
  gcoo_dist_op_destroy(&j.op);
  gcoo_dist_destroy(&j.d);
  return rc;
}

cli_command cmd_solve =
    {"solve",
     "block conjugate gradients on the distributed GCOO operator",
     "(--a PATH | --stencil 7|27 --grid n) [--b B.h5 | --k K] [--tol T] [--maxit M] [--out X.h5]",
     "Solves A X = B for SPD A and k right-hand sides with breakdown-free block CG (one\n"
     "distributed multiply A P per iteration for all k columns, rank-revealing orthonormalisation\n"
     "of the search block, Jacobi preconditioning). Reports iterations, per-column convergence,\n"
     "the true residual ||B - A X|| / ||B|| recomputed at the end and the time per phase.\n"
     "--separate solves the columns one at a time with the same operator (the baseline).",
     options,
     run};
