/* SPDX-License-Identifier: MIT */
/* cli/cmd_solve.c: gcoo_dist solve: A X = B on the distributed GCOO operator with the solver of
 * gcoo/ksp.h (a Krylov method and a preconditioner), for k right-hand sides at once or
 * (--separate) one column at a time with the same solver, set up once. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_files.h"

static cli_option options[] =
    {{"a", "PATH", NULL, "matrix A (square): .mtx, .mtx.gz or file.h5[:/object]", NULL, false},
     CLI_OPT_STENCIL,
     CLI_OPT_GRID("32"),
     {"shift", "S", "0", "solve with A + S*I (makes a semi-definite matrix definite)", NULL, false},
     {"b", "PATH", NULL,
      "right-hand sides B, m x k: file.h5:/dataset or a Matrix Market array file.mtx[.gz]", NULL,
      false},
     {"k", "K", "8", "instead of --b: K random right-hand sides", NULL, false},
     {"seed", "S", "7", "seed of the random right-hand sides", NULL, false},
     {"save-b", "PATH", NULL, "write the generated right-hand sides there (as --out writes X)",
      NULL, false},
     {"x0", "PATH", NULL, "initial guess X0, m x k (as --b); default: zero", NULL, false},
     {"ksp", "M", "cg",
      "method: cg (SPD; block CG for k > 1), pipecg, gmres, fgmres, bicgstab, preonly", NULL,
      false},
     {"pc", "P", "jacobi",
      "preconditioner: jacobi, none, amg (multigrid: iterations that do not grow with the "
      "problem) or lu (a sparse direct solve; with --ksp preonly the direct path)",
      NULL, false},
     {"restart", "m", "30", "gmres and fgmres: the Krylov space's dimension before a restart", NULL,
      false},
     {"amg-theta", "T", "0", "amg: strength threshold, |a_ij| >= T sqrt(|a_ii a_jj|) (0: all)",
      NULL, false},
     {"amg-smoother", "S", "chebyshev", "amg: smoother, chebyshev (degree 2) or jacobi (l1-Jacobi)",
      NULL, false},
     {"amg-coarse", "N", "500", "amg: the coarsest level has at most N rows (solved directly)",
      NULL, false},
     {"nullspace", "PATH", NULL,
      "amg: near-null space, m x b (file.h5:/dataset or .mtx[.gz]); default: the constants", NULL,
      false},
     {"coords", "PATH", NULL,
      "amg: nodal coordinates, (m / b) x b for --block-size b = 2 or 3: rigid-body modes as the "
      "near-null space (elasticity)",
      NULL, false},
     {"block-size", "b", "1", "amg with --coords: unknowns per node (the coordinates' dimension)",
      NULL, false},
     {"lockstep", NULL, NULL, "cg with k > 1: k CGs in lockstep instead of block CG", NULL, false},
     {"tol", "T", "1e-8", "relative residual ||b - A x|| / ||b|| per column", NULL, false},
     {"atol", "A", "0", "absolute residual ||b - A x||: a column stops below max(T ||b||, A)", NULL,
      false},
     {"maxit", "M", "10000", "iteration limit", NULL, false},
     {"options", "STR", NULL,
      "more solver options as -ksp_... -pc_... names (gcoo/ksp.h), applied after the flags", NULL,
      false},
     {"separate", NULL, NULL, "solve the k columns one after another with the same solver", NULL,
      false},
     {"check", NULL, NULL, "exit 1 unless every column's true residual is within --tol", NULL,
      false},
     CLI_OPT_BACKEND,
     CLI_OPT_SPDM_ALG,
     CLI_OPT_P("0", " (0: the backend's default)"),
     CLI_OPT_DTYPE(NULL, " [default: float64, whatever the file stores: tolerances such as 1e-8 "
                         "need it]"),
     CLI_OPT_OUT("write X: file.h5[:/dataset] (parallel; dataset /X when not named) or "
                 "file.mtx[.gz] (gathered on rank 0); only when every column converged unless "
                 "--out-on-failure"),
     CLI_OPT_OVERWRITE,
     {"out-on-failure", NULL, NULL, "write X with --out even when the solve did not converge", NULL,
      false},
     {"history", NULL, NULL, "with --json: the relative residuals of every iteration", NULL, false},
     CLI_OPT_JSON,
     CLI_OPT_END};

static const char *const ksp_names[] = {"cg", "pipecg", "gmres", "fgmres", "bicgstab", "preonly"};
static const char *const pc_names[] = {"none", "jacobi", "amg", "lu"};

typedef struct solve_job {
  const char *a_path, *b_path, *x0_path, *save_b, *out, *backend, *extra;
  const char *nullspace, *coords; /* AMG's near-null space or coordinates (paths) */
  gcoo_amg_options amg;
  int block_size;
  int write_flags; /* GCOO_H5_OVERWRITE with --overwrite */
  int stencil, alg, separate, history, json, check, lockstep, out_on_failure;
  int64_t grid, k, maxit;
  int32_t p;
  int restart;
  uint64_t seed;
  double shift, tol, atol;
  gcoo_ksp_type ksp_type;
  gcoo_pc_type pc;
  gcoo_dtype dtype;
  char dtype_source[300];
  double last_progress; /* MPI_Wtime of the last iteration line */
  int64_t column;       /* --separate: the column being solved */
  gcoo_dist d;
  gcoo_dist_op op;
  gcoo_dist_op_info info;
  gcoo_ksp ksp;
  gcoo_dense Bh, Xh, B, X; /* host copies and the operands the solver sees */
  gcoo_ksp_result res;
  double t_build, t_solve, t_write;
  int written;
} solve_job;

static bool parse(cli_command *cmd, solve_job *j) {
  long long v;
  double r;
  int c;
  memset(j, 0, sizeof *j);
  cli_job_files(cmd, &j->a_path, &j->b_path, &j->out, &j->write_flags);
  j->x0_path = cli_get(cmd, "x0");
  j->save_b = cli_get(cmd, "save-b");
  j->extra = cli_get(cmd, "options");
  j->separate = cli_flag(cmd, "separate");
  j->history = cli_flag(cmd, "history");
  j->json = cli_flag(cmd, "json");
  j->check = cli_flag(cmd, "check");
  j->lockstep = cli_flag(cmd, "lockstep");
  j->out_on_failure = cli_flag(cmd, "out-on-failure");
  if ((j->a_path != NULL) == cli_flag(cmd, "stencil")) {
    if (cli_rank() == 0)
      cli_error("gcoo_dist solve: give the matrix as exactly one of --a PATH or --stencil 7|27\n");
    return false;
  }
  if (j->save_b && j->b_path) {
    if (cli_rank() == 0)
      cli_error("gcoo_dist solve: --save-b writes generated right-hand sides; with --b %s "
                "there are none to save\n",
                j->b_path);
    return false;
  }
  if (!cli_stencil(cmd, &j->stencil, &j->grid)) return false;
  if (!cli_real(cmd, "shift", -1e300, 1e300, &j->shift)) return false;
  if (!cli_int(cmd, "k", 1, 4096, &v)) return false;
  j->k = v;
  if (!cli_int(cmd, "seed", 0, INT64_MAX, &v)) return false;
  j->seed = (uint64_t)v;
  if (!cli_real(cmd, "tol", 1e-300, 0.999, &r)) return false;
  j->tol = r;
  if (!cli_real(cmd, "atol", 0.0, 1e300, &r)) return false;
  j->atol = r;
  if (!cli_int(cmd, "maxit", 0, INT64_MAX / 2, &v)) return false;
  j->maxit = v;
  if (!cli_int(cmd, "restart", 1, 1000, &v)) return false;
  j->restart = (int)v;
  if (!cli_choice(cmd, "ksp", ksp_names, 6, &c)) return false;
  j->ksp_type = (gcoo_ksp_type)c;
  if (!cli_choice(cmd, "pc", pc_names, 4, &c)) return false;
  j->pc = (gcoo_pc_type)c;
  if (!cli_operator_options(cmd, &j->backend, &j->alg, &j->p)) return false;
  static const char *const smoothers[] = {"chebyshev", "jacobi"};
  j->amg = (gcoo_amg_options)GCOO_AMG_OPTIONS_INIT;
  if (!cli_real(cmd, "amg-theta", 0.0, 0.999, &j->amg.theta)) return false;
  if (!cli_choice(cmd, "amg-smoother", smoothers, 2, &c)) return false;
  j->amg.smoother = c == 0 ? GCOO_AMG_CHEBYSHEV : GCOO_AMG_L1_JACOBI;
  if (!cli_int(cmd, "amg-coarse", 1, 100000, &v)) return false;
  j->amg.coarse_size = v;
  if (!cli_int(cmd, "block-size", 1, 3, &v)) return false;
  j->block_size = (int)v;
  j->nullspace = cli_get(cmd, "nullspace");
  j->coords = cli_get(cmd, "coords");
  if ((j->nullspace || j->coords || cli_flag(cmd, "amg-theta") || cli_flag(cmd, "amg-smoother") ||
       cli_flag(cmd, "amg-coarse")) &&
      j->pc != GCOO_PC_AMG) {
    if (cli_rank() == 0)
      cli_error("gcoo_dist solve: --amg-..., --nullspace and --coords need --pc amg\n");
    return false;
  }
  if ((j->nullspace && j->coords) || (j->coords && j->block_size < 2) ||
      (cli_flag(cmd, "block-size") && !j->coords)) {
    if (cli_rank() == 0)
      cli_error("gcoo_dist solve: give --nullspace, or --coords with --block-size 2 or 3 "
                "(unknowns per node), not both\n");
    return false;
  }
  /* float64 unless told: a tolerance like 1e-8 is out of float32's reach, whatever the file's
   * values are stored in */
  if (!cli_job_dtype(cmd, NULL, GCOO_FLOAT64, &j->dtype, j->dtype_source, sizeof j->dtype_source))
    return false;
  if (!cli_flag(cmd, "dtype")) snprintf(j->dtype_source, sizeof j->dtype_source, "(default)");
  if (cli_job_output_check(cmd, j->out, j->a_path, j->b_path) != 0) return false;
  if (j->out_on_failure && j->out && cli_file_kind_of(j->out) == CLI_FILE_MTX) {
    if (cli_rank() == 0)
      fprintf(stderr,
              "gcoo_dist solve: --out-on-failure marks an X that did not converge with an HDF5 "
              "attribute, which Matrix Market has no place for: write it as file.h5:/X\n");
    return false;
  }
  /* the generated right-hand sides are an output too: they must not destroy an input either */
  if (j->save_b && (cli_job_output_check(cmd, j->save_b, j->a_path, j->x0_path) != 0 ||
                    (j->out && !strcmp(j->out, j->save_b)))) {
    if (cli_rank() == 0 && j->out && !strcmp(j->out, j->save_b))
      cli_error("gcoo_dist solve: --save-b and --out name the same file %s\n", j->out);
    return false;
  }
  return true;
}

/* The shape of a dense operand file against A's m rows (and k when known): true when it fits;
 * the message on rank 0 otherwise. */
static bool dense_file_fits(const char *opt, const char *path, int64_t m, int64_t k) {
  int64_t bm = 0, bn = 0;
  int bsp = 0;
  gcoo_status st = cli_dense_shape(path, &bm, &bn, &bsp);
  if (st < 0) {
    if (!cli_explain_whole_file("solve", opt, path, true, st)) cli_fail(path, st);
    return false;
  }
  if (bsp) {
    cli_error("gcoo_dist solve: --%s %s holds a sparse matrix; it must be a dense 2-D dataset or a "
              "Matrix Market array file\n",
              opt, path);
    return false;
  }
  if (bm != m || bn < 1 || (k > 0 && bn != k)) {
    char cols[32];
    snprintf(cols, sizeof cols, k > 0 ? "%lld" : "k", (long long)k);
    cli_error("gcoo_dist solve: --%s %s is %lld x %lld, but A has %lld rows: %s must be %lld x "
              "%s\n",
              opt, path, (long long)bm, (long long)bn, (long long)m, !strcmp(opt, "b") ? "B" : "X0",
              (long long)m, cols);
    return false;
  }
  return true;
}

/* Shapes before any work: A must be square, B and X0 must have A's rows. Rank 0 looks at the
 * files and says what is wrong, once. */
static bool shapes_fit(solve_job *j) {
  int ok = 1;
  if (cli_rank() == 0) {
    int64_t am = 0, an = 0, bk = 0;
    int asp = 1;
    if (j->a_path) {
      gcoo_status st = cli_dense_shape(j->a_path, &am, &an, &asp);
      if (st < 0) {
        if (!cli_explain_whole_file("solve", "a", j->a_path, false, st)) cli_fail(j->a_path, st);
        ok = 0;
      } else if (!asp) {
        cli_error("gcoo_dist solve: --a %s is a dense matrix; the solvers take a sparse one\n",
                  j->a_path);
        ok = 0;
      } else if (am != an) {
        cli_error("gcoo_dist solve: --a %s is %lld x %lld: A X = B needs a square A\n", j->a_path,
                  (long long)am, (long long)an);
        ok = 0;
      }
    } else {
      am = j->grid * j->grid * j->grid;
    }
    if (ok && j->b_path) {
      int64_t bm = 0;
      int bsp = 0;
      ok = dense_file_fits("b", j->b_path, am, 0);
      if (ok && cli_dense_shape(j->b_path, &bm, &bk, &bsp) < 0) bk = 0;
    }
    if (ok && j->x0_path) ok = dense_file_fits("x0", j->x0_path, am, j->b_path ? bk : j->k);
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return ok;
}

/* The operator, with X partitioned like the rows (what the solvers need). */
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

/* CG and pipelined CG need a symmetric A: (x, A y) = (y, A x) for two random vectors, to the
 * rounding of the products. A visibly nonsymmetric matrix is refused here, naming the methods
 * that take it, rather than left to iterate to a meaningless answer. */
static gcoo_status symmetric_or_refuse(solve_job *j, int *symmetric) {
  const int64_t n = j->info.nrows_local, r0 = j->info.row0;
  gcoo_dense xy, axy;
  gcoo_status st = gcoo_dense_create(&xy, j->dtype, GCOO_ROW_MAJOR, n, 2);
  if (st >= 0) st = gcoo_dense_create(&axy, j->dtype, GCOO_ROW_MAJOR, n, 2);
  if (st >= 0) st = gcoo_dense_fill_random_rows(&xy, 0x5e77ull, r0);
  st = gcoo_dist_agree(j->d, st);
  if (st >= 0) st = gcoo_dist_op_apply(j->op, 1.0, &xy, 0.0, &axy);
  double s[4] = {0, 0, 0, 0}; /* (x, Ay), (y, Ax), |x||Ay| + |y||Ax| parts */
  if (st >= 0) {
    double xx = 0, yy = 0, ax = 0, ay = 0;
    for (int64_t i = 0; i < n; i++) {
      const double x = gcoo_dense_get(&xy, i, 0), y = gcoo_dense_get(&xy, i, 1);
      const double Ax = gcoo_dense_get(&axy, i, 0), Ay = gcoo_dense_get(&axy, i, 1);
      s[0] += x * Ay;
      s[1] += y * Ax;
      xx += x * x;
      yy += y * y;
      ax += Ax * Ax;
      ay += Ay * Ay;
    }
    double parts[6] = {s[0], s[1], xx, yy, ax, ay};
    MPI_Allreduce(MPI_IN_PLACE, parts, 6, MPI_DOUBLE, MPI_SUM, gcoo_dist_comm(j->d));
    s[0] = parts[0];
    s[1] = parts[1];
    s[2] = sqrt(parts[2]) * sqrt(parts[5]) + sqrt(parts[3]) * sqrt(parts[4]);
  }
  if (xy.data) gcoo_dense_destroy(&xy);
  if (axy.data) gcoo_dense_destroy(&axy);
  if (st < 0) return st;
  const double tol = j->dtype == GCOO_FLOAT64 ? 1e-10 : 1e-4;
  *symmetric = fabs(s[0] - s[1]) <= tol * s[2];
  if (!*symmetric && cli_rank() == 0)
    cli_error("gcoo_dist solve: --ksp %s needs a symmetric (positive definite) A, and A is not "
              "symmetric: (x, A y) = %.6e but (y, A x) = %.6e for random x, y. Use --ksp gmres, "
              "fgmres or bicgstab (any square A), or --ksp preonly --pc lu\n",
              ksp_names[j->ksp_type], s[0], s[1]);
  return GCOO_SUCCESS;
}

/* Rows [r0, r0 + n) of a dense operand file, or generated ones, into *D (host). */
static gcoo_status read_block(solve_job *j, const char *path, gcoo_dense *D) {
  cli_progress("reading %s", path);
  gcoo_status st = cli_dense_read_rows(gcoo_dist_comm(j->d), path, j->dtype, j->info.row0,
                                       j->info.nrows_local, GCOO_ROW_MAJOR, D);
  return st;
}

/* B (read or generated, this rank's rows), X0 (read, or zero), on the device when the context has
 * one. */
static gcoo_status operands(solve_job *j) {
  gcoo_status st = GCOO_SUCCESS;
  const int64_t n = j->info.nrows_local, r0 = j->info.row0;
  gcoo_ctx ctx = gcoo_dist_ctx(j->d);
  if (j->b_path) {
    st = read_block(j, j->b_path, &j->Bh);
    if (st >= 0 && j->Bh.ncols < 1) st = GCOO_ERR_SHAPE;
    if (st >= 0) j->k = j->Bh.ncols;
  } else {
    st = gcoo_dense_create(&j->Bh, j->dtype, GCOO_ROW_MAJOR, n, j->k);
    if (st >= 0) st = gcoo_dense_fill_random_rows(&j->Bh, j->seed, r0);
  }
  if (st >= 0 && j->x0_path) {
    st = read_block(j, j->x0_path, &j->Xh);
    if (st >= 0 && j->Xh.ncols != j->k) st = GCOO_ERR_SHAPE;
  } else if (st >= 0) {
    st = gcoo_dense_create(&j->Xh, j->dtype, GCOO_ROW_MAJOR, n, j->k);
  }
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

/* AMG's options, and its near-null space or nodal coordinates read for this rank's rows. */
static gcoo_status amg_inputs(solve_job *j, gcoo_pc pc) {
  gcoo_status st = gcoo_pc_set_amg_options(pc, &j->amg);
  const char *path = j->nullspace ? j->nullspace : j->coords;
  if (st < 0 || !path) return st;
  const int64_t bs = j->coords ? j->block_size : 1;
  gcoo_dense D = {0};
  int ok = 1;
  if (cli_rank() == 0) { /* the file's shape against A's, said once */
    int64_t fm = 0, fn = 0;
    int sparse = 0;
    if (cli_dense_shape(path, &fm, &fn, &sparse) >= 0 && !sparse &&
        (fm != j->info.m_global / bs || (j->coords && fn != bs))) {
      cli_error("gcoo_dist solve: --%s %s is %lld x %lld; %s needs %lld x %s (A has %lld rows)\n",
                j->coords ? "coords" : "nullspace", path, (long long)fm, (long long)fn,
                j->coords ? "the coordinates" : "the near-null space",
                (long long)(j->info.m_global / bs), j->coords ? (bs == 2 ? "2" : "3") : "b",
                (long long)j->info.m_global);
      ok = 0;
    }
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, gcoo_dist_comm(j->d));
  if (!ok) return GCOO_ERR_SHAPE;
  if (j->info.row0 % bs || j->info.nrows_local % bs) {
    cli_error("gcoo_dist solve: rank %d holds rows %lld..%lld, not whole nodes of %lld "
              "unknowns (--block-size)\n",
              cli_rank(), (long long)j->info.row0,
              (long long)(j->info.row0 + j->info.nrows_local - 1), (long long)bs);
    st = GCOO_ERR_SHAPE;
  }
  st = gcoo_dist_agree(j->d, st);
  if (st >= 0) {
    cli_progress("reading %s", path);
    st = cli_dense_read_rows(gcoo_dist_comm(j->d), path, GCOO_FLOAT64, j->info.row0 / bs,
                             j->info.nrows_local / bs, GCOO_ROW_MAJOR, &D);
  }
  if (st >= 0)
    st = j->coords ? gcoo_pc_set_coordinates(pc, &D, j->block_size)
                   : gcoo_pc_set_near_nullspace(pc, &D);
  gcoo_dense_destroy(&D);
  return st;
}

/* The solver with the options of the command line (then --options). */
static gcoo_status make_solver(solve_job *j) {
  gcoo_status st = gcoo_ksp_create(&j->ksp, j->op);
  if (st < 0) return st;
  gcoo_ksp_options o = GCOO_KSP_OPTIONS_INIT;
  o.type = j->ksp_type;
  o.rtol = j->tol;
  o.atol = j->atol;
  o.maxit = j->maxit;
  o.restart = j->restart;
  o.block = !j->lockstep;
  o.initial_guess_nonzero = j->x0_path != NULL;
  o.record_history = j->history && !j->separate;
  if (cli_interactive() && cli_rank() == 0) {
    o.monitor = monitor;
    o.monitor_ctx = j;
  }
  gcoo_pc pc = NULL;
  st = gcoo_ksp_set_options(j->ksp, &o);
  if (st >= 0) st = gcoo_ksp_get_pc(j->ksp, &pc);
  if (st >= 0) st = gcoo_pc_set_type(pc, j->pc);
  if (st >= 0 && j->pc == GCOO_PC_AMG) st = amg_inputs(j, pc);
  if (st >= 0 && j->extra) st = gcoo_ksp_set_from_string(j->ksp, j->extra);
  if (st >= 0) { /* --options may have changed the method or preconditioner */
    st = gcoo_ksp_get_options(j->ksp, &o);
    j->ksp_type = o.type;
    j->tol = o.rtol;
    j->maxit = o.maxit;
    if (st >= 0) st = gcoo_pc_get_type(pc, &j->pc);
  }
  return gcoo_dist_agree(j->d, st);
}

/* Add one column's result into the whole solve's (--separate). */
static gcoo_status add_column(gcoo_ksp_result *r, int64_t c, const gcoo_ksp_result *one) {
  r->column_iterations[c] = one->column_iterations[0];
  r->column_reason[c] = one->column_reason[0];
  r->residual[c] = one->residual[0];
  r->true_residual[c] = one->true_residual[0];
  r->t_setup += one->t_setup;
  r->t_solve += one->t_solve;
  r->t_spmm += one->t_spmm;
  r->t_pc += one->t_pc;
  r->t_reduce += one->t_reduce;
  r->spmm_calls += one->spmm_calls;
  r->pc_calls += one->pc_calls;
  return GCOO_SUCCESS;
}

static gcoo_status solve(solve_job *j) {
  double t0 = MPI_Wtime();
  gcoo_status st = GCOO_SUCCESS;
  if (!j->separate) {
    st = gcoo_ksp_solve(j->ksp, &j->B, &j->X, &j->res);
    j->t_solve = MPI_Wtime() - t0;
    return st;
  }
  /* k solves of one column each with the solver set up once; results gathered into res */
  gcoo_ksp_result *r = &j->res;
  memset(r, 0, sizeof *r);
  r->k = j->k;
  r->column_iterations = calloc((size_t)j->k, sizeof *r->column_iterations);
  r->column_reason = calloc((size_t)j->k, sizeof *r->column_reason);
  r->residual = calloc((size_t)j->k, sizeof *r->residual);
  r->true_residual = calloc((size_t)j->k, sizeof *r->true_residual);
  if (!r->column_iterations || !r->column_reason || !r->residual || !r->true_residual)
    st = GCOO_ERR_NO_MEMORY;
  st = gcoo_dist_agree(j->d, st);
  for (int64_t c = 0; st >= 0 && c < j->k; c++) {
    gcoo_dense Bc = column(&j->B, c), Xc = column(&j->X, c);
    gcoo_ksp_result one;
    j->column = c;
    st = gcoo_ksp_solve(j->ksp, &Bc, &Xc, &one);
    if (st >= 0) {
      add_column(r, c, &one);
      gcoo_ksp_result_free(&one);
    }
  }
  if (st < 0) return st;
  /* the summary as the solver makes it for a block */
  r->converged = 1;
  r->reason_column = -1;
  r->min_block_rank = 1;
  for (int64_t c = 0; c < r->k; c++) {
    if (r->column_iterations[c] > r->iterations) r->iterations = r->column_iterations[c];
    if (r->column_reason[c] <= 0 && r->converged) {
      r->converged = 0;
      r->reason = r->column_reason[c];
      r->reason_column = c;
    }
  }
  if (r->converged) r->reason = r->column_reason[0];
  r->t_total = r->t_setup + r->t_solve;
  j->t_solve = MPI_Wtime() - t0;
  return r->converged ? GCOO_SUCCESS : GCOO_INFO_NOT_CONVERGED;
}

/* A host block of this rank's rows written as the m x k matrix at path (HDF5 in parallel, or
 * Matrix Market gathered on rank 0). */
static gcoo_status write_block(solve_job *j, const char *path, const char *dataset, gcoo_dense *D) {
  if (cli_file_kind_of(path) == CLI_FILE_MTX)
    return cli_write_mtx_dense_rows(gcoo_dist_comm(j->d), path, j->info.m_global, D, 0);
#if GCOO_HAVE_HDF5
  char target[4096];
  return gcoo_h5_write_dense_rows(gcoo_dist_comm(j->d),
                                  cli_h5_dataset(path, dataset, target, sizeof target),
                                  j->info.m_global, j->info.row0, D, j->write_flags);
#else
  (void)dataset;
  (void)D;
  return gcoo_dist_agree(j->d, GCOO_ERR_UNSUPPORTED);
#endif
}

static gcoo_status write_out(solve_job *j) {
  gcoo_status st = GCOO_SUCCESS;
  if (j->save_b) {
    cli_progress("writing %s", j->save_b);
    if ((st = write_block(j, j->save_b, "/B", &j->Bh)) < 0) return st;
  }
  if (!j->out) return GCOO_SUCCESS;
  if (!j->res.converged && !j->out_on_failure) return GCOO_SUCCESS; /* said in the report */
  gcoo_ctx ctx = gcoo_dist_ctx(j->d);
  double t0 = MPI_Wtime();
  if (j->X.mem == GCOO_MEM_DEVICE) st = gcoo_ctx_dense_copy(ctx, &j->Xh, &j->X);
  st = gcoo_dist_agree(j->d, st);
  if (st < 0) return st;
  cli_progress("writing %s", j->out);
  const int flags = j->write_flags;
  if (!j->res.converged) j->write_flags |= GCOO_H5_NOT_CONVERGED; /* --out-on-failure: marked */
  st = write_block(j, j->out, "/X", &j->Xh);
  j->write_flags = flags;
  j->t_write = MPI_Wtime() - t0;
  if (st >= 0) {
    j->written = 1;
    cli_progress_rate("wrote", j->out, cli_file_mbytes(j->out), j->t_write);
  }
  return st;
}

static double max_over_ranks(solve_job *j, double v) {
  double m = v;
  MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, gcoo_dist_comm(j->d));
  return m;
}

/* What the iterations did, in words: "converged (rtol) after 12 iterations (columns 9..12)" or
 * "NOT converged: diverged_its at iteration 10000 (column 3)". */
static void outcome_words(const solve_job *j, char *buf, size_t len) {
  const gcoo_ksp_result *r = &j->res;
  if (r->converged) {
    int64_t lo = INT64_MAX, hi = 0;
    for (int64_t c = 0; c < r->k; c++) {
      if (r->column_iterations[c] < lo) lo = r->column_iterations[c];
      if (r->column_iterations[c] > hi) hi = r->column_iterations[c];
    }
    if (r->k > 1 && lo != hi)
      snprintf(buf, len, "converged (%s) after %lld iteration(s) (columns %lld..%lld)",
               gcoo_ksp_reason_name(r->reason), (long long)r->iterations, (long long)lo,
               (long long)hi);
    else
      snprintf(buf, len, "converged (%s) after %lld iteration(s)", gcoo_ksp_reason_name(r->reason),
               (long long)r->iterations);
    return;
  }
  int64_t bad = 0;
  for (int64_t c = 0; c < r->k; c++) bad += r->column_reason[c] <= 0;
  snprintf(buf, len, "NOT converged: %s at iteration %lld (column %lld%s)",
           gcoo_ksp_reason_name(r->reason), (long long)r->column_iterations[r->reason_column],
           (long long)r->reason_column, bad > 1 ? ", and other columns" : "");
}

/* The hierarchy's report as --json's "amg" object. */
static void amg_json(cli_json *js, const gcoo_amg_info *a) {
  cli_json_object(js, "amg");
  cli_json_int(js, "levels", a->levels);
  cli_json_real(js, "operator_complexity", a->operator_complexity);
  cli_json_real(js, "grid_complexity", a->grid_complexity);
  cli_json_array(js, "level");
  for (int l = 0; l < a->levels && l < 32; l++) {
    const gcoo_amg_level_info *li = &a->level[l];
    cli_json_object(js, NULL);
    cli_json_int(js, "rows", li->rows);
    cli_json_int(js, "nnz", li->nnz);
    cli_json_int(js, "ranks", li->ranks);
    cli_json_real(js, "rho", li->rho);
    if (l > 0) { /* the products that made this level from the finer one */
      cli_json_int(js, "nnz_p", li->nnz_p);
      cli_json_int(js, "nnz_ap_predicted", li->nnz_predicted_ap);
      cli_json_int(js, "nnz_ap", li->nnz_ap);
      cli_json_int(js, "nnz_rap_predicted", li->nnz_predicted_rap);
    }
    cli_json_end(js);
  }
  cli_json_end(js);
  static const char *const phases[] = {"strength", "aggregate", "prolongator", "galerkin",
                                       "smoother", "coarse",    "total"};
  const double secs[] = {a->t_strength, a->t_aggregate, a->t_prolongator, a->t_galerkin,
                         a->t_smoother, a->t_coarse,    a->t_total};
  cli_json_object(js, "time_s");
  cli_json_reals(js, phases, secs, 7);
  cli_json_end(js);
  cli_json_end(js);
}

static void report(solve_job *j) {
  gcoo_ksp_result *r = &j->res;
  double worst_true = 0.0;
  for (int64_t c = 0; c < r->k; c++)
    if (r->true_residual[c] > worst_true || isnan(r->true_residual[c]))
      worst_true = r->true_residual[c];
  /* per-phase times: the slowest rank's */
  double t_spmm = max_over_ranks(j, r->t_spmm), t_reduce = max_over_ranks(j, r->t_reduce);
  double t_pc = max_over_ranks(j, r->t_pc);
  double t_solve = max_over_ranks(j, j->t_solve), t_build = max_over_ranks(j, j->t_build);
  double t_iter = max_over_ranks(j, r->t_solve), t_setup = max_over_ranks(j, r->t_setup);
  double t_blas = max_over_ranks(j, fmax(r->t_solve - r->t_spmm - r->t_reduce - r->t_pc, 0.0));
  int64_t halo = j->info.halo_rows_recv, halo_sum = 0;
  MPI_Allreduce(&halo, &halo_sum, 1, MPI_INT64_T, MPI_SUM, gcoo_dist_comm(j->d));
  char dev[256], desc[256], outcome[256];
  if (gcoo_ctx_describe(gcoo_dist_ctx(j->d), dev, sizeof dev) < 0) snprintf(dev, sizeof dev, "?");
  if (gcoo_ksp_describe(j->ksp, desc, sizeof desc) < 0) snprintf(desc, sizeof desc, "?");
  outcome_words(j, outcome, sizeof outcome);
  gcoo_amg_info amg;
  gcoo_pc pc = NULL;
  const int have_amg = j->pc == GCOO_PC_AMG && gcoo_ksp_get_pc(j->ksp, &pc) >= 0 &&
                       gcoo_pc_get_amg_info(pc, &amg) >= 0;
  char *devices = cli_devices_gather(j->d); /* every rank's "host: device", on rank 0 */
  if (cli_rank() != 0) return;
  const char *mode = j->separate                                              ? "separate"
                     : j->ksp_type == GCOO_KSP_CG && r->k > 1 && !j->lockstep ? "block"
                                                                              : "lockstep";
  if (j->json) {
    cli_json js;
    cli_json_begin(&js, stdout);
    cli_json_head(&js, "solve");
    cli_json_str(&js, "dtype", cli_dtype_name(j->dtype));
    cli_json_str(&js, "dtype_source", j->dtype_source);
    cli_json_run(&js, j->d, devices);
    cli_json_matrix(&js, "a",
                    j->a_path ? j->a_path : (j->stencil == 7 ? "poisson3d-7" : "poisson3d-27"),
                    j->info.m_global, j->info.m_global, j->info.nnz_global);
    if (!j->a_path) cli_json_int(&js, "grid", j->grid);
    cli_json_real(&js, "shift", j->shift);
    cli_json_str(&js, "algorithm", gcoo_spdm_alg_name(j->info.local.alg));
    cli_json_str(&js, "ksp", ksp_names[j->ksp_type]);
    cli_json_str(&js, "pc", pc_names[j->pc]);
    if (j->ksp_type == GCOO_KSP_GMRES || j->ksp_type == GCOO_KSP_FGMRES)
      cli_json_int(&js, "restart", j->restart);
    cli_json_int(&js, "k", r->k);
    cli_json_str(&js, "mode", mode);
    cli_json_real(&js, "tol", j->tol);
    cli_json_real(&js, "atol", j->atol);
    cli_json_int(&js, "maxit", j->maxit);
    cli_json_bool(&js, "converged", r->converged);
    cli_json_str(&js, "reason", gcoo_ksp_reason_name(r->reason));
    cli_json_int(&js, "reason_column", r->reason_column);
    cli_json_int(&js, "iterations", r->iterations);
    cli_json_int(&js, "spmm_calls", r->spmm_calls);
    cli_json_int(&js, "pc_calls", r->pc_calls);
    cli_json_int(&js, "min_block_rank", r->min_block_rank);
    cli_json_real(&js, "true_residual_max", worst_true);
    if (j->out) cli_json_str(&js, "out", j->out);
    cli_json_bool(&js, "out_written", j->written);
    cli_json_array(&js, "column_iterations"); /* -1: the column did not converge */
    for (int64_t c = 0; c < r->k; c++)
      cli_json_int(&js, NULL, r->column_reason[c] > 0 ? r->column_iterations[c] : -1);
    cli_json_end(&js);
    cli_json_array(&js, "column_reasons");
    for (int64_t c = 0; c < r->k; c++)
      cli_json_str(&js, NULL, gcoo_ksp_reason_name(r->column_reason[c]));
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
    if (have_amg) amg_json(&js, &amg);
    /* solve: from the operator to the answer, the solver's set-up (setup) included; blas: the
     * rest of the iterations, the block and vector operations */
    static const char *const phases[] = {"build",  "solve", "setup",   "iterate", "spmm",
                                         "reduce", "blas",  "precond", "write"};
    const double secs[] = {t_build,  t_solve, t_setup, t_iter,    t_spmm,
                           t_reduce, t_blas,  t_pc,    j->t_write};
    cli_json_object(&js, "time_s");
    cli_json_reals(&js, phases, secs, 9);
    cli_json_end(&js);
    cli_json_end(&js);
    free(devices);
    return;
  }
  printf("gcoo_dist solve: %s, %lld rows, nnz %lld, shift %g; %d rank(s), %s (%s), %s %s\n",
         j->a_path ? j->a_path : (j->stencil == 7 ? "3-D Poisson 7-point" : "3-D Poisson 27-point"),
         (long long)j->info.m_global, (long long)j->info.nnz_global, j->shift, cli_size(),
         gcoo_ctx_backend(gcoo_dist_ctx(j->d)), dev, cli_dtype_name(j->dtype), j->dtype_source);
  printf("  %s, k = %lld (%s), tol %g: %s, %lld multiplies\n", desc, (long long)r->k, mode, j->tol,
         outcome, (long long)r->spmm_calls);
  printf("  true residual ||B - A X|| / ||B||: max %.3e over the %lld column%s\n", worst_true,
         (long long)r->k, r->k > 1 ? "s" : "");
  if (have_amg) {
    printf("  AMG: %d levels, rows", amg.levels);
    for (int l = 0; l < amg.levels && l < 32; l++)
      printf("%s%lld", l ? " > " : " ", (long long)amg.level[l].rows);
    printf(", operator complexity %.3f, grid complexity %.3f; set-up %.3f s (strength %.3f, "
           "aggregation %.3f, prolongators %.3f, Galerkin products %.3f, smoothers %.3f, coarsest "
           "%.3f)\n",
           amg.operator_complexity, amg.grid_complexity, amg.t_total, amg.t_strength,
           amg.t_aggregate, amg.t_prolongator, amg.t_galerkin, amg.t_smoother, amg.t_coarse);
  }
  printf("  time: build %.3f s, solve %.3f s (set-up %.3f, iterations %.3f: SpDM %.3f, "
         "reductions %.3f, preconditioner %.3f, vector operations %.3f), write %.3f s; halo %lld "
         "rows per multiply\n",
         t_build, t_solve, t_setup, t_iter, t_spmm, t_reduce, t_pc, t_blas, j->t_write,
         (long long)halo_sum);
  free(devices);
}

static int run(int argc, char **argv, cli_command *cmd) {
  (void)argc;
  (void)argv;
  solve_job j;
  if (!parse(cmd, &j)) return 2;
  if (!shapes_fit(&j)) return 1;
  gcoo_status st = gcoo_dist_create(&j.d, MPI_COMM_WORLD, j.backend);
  if (st < 0) return cli_report("creating the distributed context", st);
  int rc = 0, symmetric = 1;
  if ((st = build(&j)) < 0) rc = cli_report("building the operator", st);
  if (!rc && (st = make_solver(&j)) < 0) rc = cli_report("setting up the solver", st);
  if (!rc && (j.ksp_type == GCOO_KSP_CG || j.ksp_type == GCOO_KSP_PIPECG)) {
    if ((st = symmetric_or_refuse(&j, &symmetric)) < 0)
      rc = cli_report("checking A's symmetry", st);
    else if (!symmetric)
      rc = 1;
  }
  if (!rc && (st = operands(&j)) < 0) rc = cli_report("preparing the right-hand sides", st);
  if (!rc && (st = solve(&j)) < 0) rc = cli_report("solving", st);
  if (!rc && (st = write_out(&j)) < 0) rc = cli_report("writing X", st);
  if (!rc) {
    report(&j);
    double worst = 0.0;
    for (int64_t c = 0; c < j.res.k; c++)
      if (!(j.res.true_residual[c] <= worst)) worst = j.res.true_residual[c];
    if (!j.res.converged) {
      if (cli_rank() == 0 && j.out && !j.written)
        cli_error("gcoo_dist solve: X was not written to %s: the solve did not converge "
                  "(--out-on-failure writes it anyway)\n",
                  j.out);
      rc = 1;
    } else if (j.check && !(worst <= j.tol)) {
      if (cli_rank() == 0)
        cli_error("gcoo_dist solve: --check: true residual %.3e above --tol %g\n", worst, j.tol);
      rc = 1;
    }
  }
  gcoo_ctx ctx = gcoo_dist_ctx(j.d);
  if (j.B.mem == GCOO_MEM_DEVICE) gcoo_ctx_dense_destroy(ctx, &j.B);
  if (j.X.mem == GCOO_MEM_DEVICE) gcoo_ctx_dense_destroy(ctx, &j.X);
  gcoo_dense_destroy(&j.Bh);
  gcoo_dense_destroy(&j.Xh);
  gcoo_ksp_result_free(&j.res);
  gcoo_ksp_destroy(&j.ksp);
  gcoo_dist_op_destroy(&j.op);
  gcoo_dist_destroy(&j.d);
  return rc;
}

cli_command cmd_solve =
    {"solve",
     "A X = B with a Krylov method and a preconditioner on the distributed operator",
     "(--a PATH | --stencil 7|27 --grid n) [--b B.h5 | --k K] [--ksp M] [--pc P] [--tol T] "
     "[--out X.h5] [--pc amg [--amg-theta T] [--amg-smoother S] [--amg-coarse N] "
     "[--nullspace V.h5:/V | --coords XYZ.h5:/XYZ --block-size b]]",
     "Solves A X = B for k right-hand sides at once. Methods (--ksp): cg for symmetric positive\n"
     "definite A (with k > 1 breakdown-free block CG: one distributed multiply per iteration for\n"
     "all k columns), pipecg (pipelined CG: one overlapped reduction an iteration, for many\n"
     "ranks), gmres and fgmres (restarted, any square A), bicgstab (any square A, less memory\n"
     "than GMRES), preonly (one application of the preconditioner). Preconditioners (--pc):\n"
     "jacobi (cheap, enough for well-conditioned problems), none, amg (smoothed aggregation\n"
     "multigrid: choose it for matrices from elliptic PDEs such as diffusion, elasticity or\n"
     "pressure, where Jacobi's iterations grow with the grid and AMG's stay near 10; its set-up\n"
     "costs tens of multiplies, so it pays once Jacobi would need more than about a hundred\n"
     "iterations; --amg-theta, --amg-smoother, --amg-coarse tune it, --nullspace or --coords\n"
     "with --block-size give it the near-null space of elasticity) and lu (a\n"
     "sparse direct solve: with --ksp preonly, the robust path for circuit, power-network and\n"
     "other matrices no iterative method handles). Reports iterations, why each column stopped,\n"
     "the true residual ||B - A X|| / ||B|| recomputed at the end, and the time per phase; a\n"
     "column counts as converged only when its true residual meets --tol. X is written only\n"
     "when every column converged (--out-on-failure: always). Exit status: 0 converged, 1 not\n"
     "converged (or --check failed), 2 usage.",
     options,
     run};
