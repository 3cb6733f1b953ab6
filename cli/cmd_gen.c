/* SPDX-License-Identifier: MIT */
/* cli/cmd_gen.c: gcoo_dist gen: write a generated sparse matrix (the paper's random matrix,
 * or a 3-D Poisson stencil) to HDF5, each rank generating and writing its own block of rows.
 * Every row is generated from its own stream (or formula), so the file is the same whatever
 * the number of ranks. */
#include <stdlib.h>
#include <string.h>

#include "cmd_files.h"

static cli_option options[] =
    {{"rows", "R", NULL, "random matrix: rows (with --cols, --sparsity, --seed)", NULL, false},
     {"cols", "C", NULL, "random matrix: columns", NULL, false},
     {"sparsity", "S", "0.99", "random matrix: fraction of zeros (each entry independently)", NULL,
      false},
     {"seed", "N", "1", "random matrix: seed", NULL, false},
     CLI_OPT_STENCIL,
     CLI_OPT_GRID("48"),
     CLI_OPT_OUT("output: file.h5[:/group] (parallel) or file.mtx[.gz] (CSR only; gathered on "
                 "rank 0) (required)"),
     CLI_OPT_OVERWRITE,
     {"format", "F", "csr", "csr (written in parallel) or gcoo (written by rank 0)", NULL, false},
     CLI_OPT_P("32", ", and the row blocks ranks generate"),
     CLI_OPT_DTYPE("float32", ""),
     CLI_OPT_JSON,
     CLI_OPT_END};

static gcoo_status generate(int stencil, int64_t grid, int64_t rows, int64_t cols, double sparsity,
                            uint64_t seed, gcoo_dtype dt, gcoo_format f, int32_t p, int64_t r0,
                            int64_t r1, gcoo_sparse *A) {
  if (stencil) return gcoo_sparse_poisson3d_rows(A, dt, f, stencil, grid, r0, r1, p);
  return gcoo_sparse_random_rows(A, dt, f, rows, cols, sparsity, seed, p, r0, r1);
}

static int run(int argc, char **argv, cli_command *cmd) {
  (void)argc;
  (void)argv;
  long long v;
  double sparsity = 0;
  int64_t rows = 0, cols = 0, grid = 0;
  int stencil = 0;
  uint64_t seed = 0;
  const char *out = cli_get(cmd, "out");
  if (!out) {
    if (cli_rank() == 0) cli_error("gcoo_dist gen: --out PATH is required\n");
    return 2;
  }
  if (cli_flag(cmd, "stencil") == cli_flag(cmd, "rows")) {
    if (cli_rank() == 0)
      cli_error("gcoo_dist gen: give either --rows R --cols C or --stencil 7|27\n");
    return 2;
  }
  if (cli_flag(cmd, "stencil")) {
    if (!cli_stencil(cmd, &stencil, &grid)) return 2;
    rows = cols = grid * grid * grid;
  } else {
    if (!cli_flag(cmd, "cols")) {
      if (cli_rank() == 0) cli_error("gcoo_dist gen: --rows needs --cols\n");
      return 2;
    }
    if (!cli_int(cmd, "rows", 0, INT32_MAX, &v)) return 2;
    rows = v;
    if (!cli_int(cmd, "cols", 0, INT32_MAX, &v)) return 2;
    cols = v;
    if (!cli_real(cmd, "sparsity", 0.0, 1.0, &sparsity)) return 2;
    if (!cli_int(cmd, "seed", 0, INT64_MAX, &v)) return 2;
    seed = (uint64_t)v;
  }
  const char *fs = cli_get(cmd, "format");
  if (strcmp(fs, "csr") && strcmp(fs, "gcoo")) {
    if (cli_rank() == 0) cli_error("gcoo_dist gen: --format %s: expected csr or gcoo\n", fs);
    return 2;
  }
  gcoo_dtype dt;
  if (!cli_dtype(cmd, "dtype", &dt)) return 2;
  int32_t p;
  if (!cli_p(cmd, &p)) return 2;
  const int gcoo = !strcmp(fs, "gcoo");
  const int rank = cli_rank(), size = cli_size();
  const cli_file_kind kind = cli_output_kind("gen", "out", out);
  if (kind == CLI_FILE_UNKNOWN) return 2;
  const int out_rc = cli_job_output_check(cmd, out, NULL, NULL);
  if (out_rc) return out_rc;
  if (kind == CLI_FILE_MTX && gcoo) {
    if (rank == 0)
      cli_error("gcoo_dist gen: --format gcoo needs an HDF5 output (.h5); Matrix Market "
                "files hold coordinates only\n");
    return 2;
  }

  /* this rank's rows: whole blocks of p rows, evenly (generated rows cost about the same) */
  double t0 = MPI_Wtime();
  gcoo_partition part;
  int64_t r0 = 0, r1 = 0, nnz = 0;
  gcoo_status st = gcoo_partition_balanced(NULL, (rows + p - 1) / p, size, &part);
  if (st >= 0) {
    r0 = part.begin[rank] * p < rows ? part.begin[rank] * p : rows;
    r1 = part.begin[rank + 1] * p < rows ? part.begin[rank + 1] * p : rows;
    gcoo_partition_free(&part);
  }
  gcoo_sparse A = NULL;
  cli_progress("generating %lld x %lld", (long long)rows, (long long)cols);
  if (st >= 0 && !gcoo)
    st = generate(stencil, grid, rows, cols, sparsity, seed, dt, GCOO_FORMAT_CSR, p, r0, r1, &A);
  else if (st >= 0 && rank == 0) /* no parallel GCOO writer: rank 0 makes the whole matrix */
    st = generate(stencil, grid, rows, cols, sparsity, seed, dt, GCOO_FORMAT_GCOO, p, 0, rows, &A);
  if (st >= 0 && A) {
    gcoo_sparse_info info;
    st = gcoo_sparse_get_info(A, &info);
    nnz = info.nnz;
  }
  st = cli_agree(st);
  if (st < 0) {
    gcoo_sparse_destroy(&A);
    return cli_report("generating", st);
  }
  double t_gen = MPI_Wtime() - t0;
  MPI_Allreduce(MPI_IN_PLACE, &t_gen, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &nnz, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  cli_progress("writing %s", out);
  double t1 = MPI_Wtime();
  if (kind == CLI_FILE_MTX)
    st = cli_write_mtx_csr_rows(MPI_COMM_WORLD, out, rows, cols, A);
  else
#if GCOO_HAVE_HDF5
      if (!gcoo)
    st = gcoo_h5_write_csr_rows(MPI_COMM_WORLD, out, rows, r0, A, cli_write_flags(cmd));
  else if (rank == 0)
    st = gcoo_h5_write_sparse(out, A, cli_write_flags(cmd));
  st = cli_agree(st);
#else
    st = cli_agree(GCOO_ERR_UNSUPPORTED);
#endif
  gcoo_sparse_destroy(&A);
  if (st < 0) return cli_report(out, st);
  double t_write = MPI_Wtime() - t1;
  MPI_Allreduce(MPI_IN_PLACE, &t_write, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  cli_progress_rate("wrote", out, cli_file_mbytes(out), t_write);
  char what[160];
  if (stencil)
    snprintf(what, sizeof what, "3-D Poisson %d-point, %lld^3 grid", stencil, (long long)grid);
  else
    snprintf(what, sizeof what, "random, sparsity %g, seed %llu", sparsity,
             (unsigned long long)seed);
  if (rank == 0) {
    if (cli_flag(cmd, "json")) {
      cli_json j;
      cli_json_begin(&j, stdout);
      cli_json_head(&j, "gen");
      cli_json_str(&j, "dtype", cli_dtype_name(dt));
      cli_json_matrix(&j, "a", what, rows, cols, nnz);
      cli_json_str(&j, "format", fs);
      cli_json_int(&j, "p", p);
      cli_json_str(&j, "out", out);
      cli_json_bool(&j, "out_written", true);
      cli_json_object(&j, "time_s");
      cli_json_real(&j, "generate", t_gen);
      cli_json_real(&j, "write", t_write);
      cli_json_end(&j);
      cli_json_end(&j);
    } else {
      printf("gcoo_dist gen: %s: %lld x %lld, nnz %lld, %s %s -> %s (generate %.3f s, write %.3f s "
             "on %d rank%s)\n",
             what, (long long)rows, (long long)cols, (long long)nnz, cli_dtype_name(dt),
             gcoo ? "GCOO" : "CSR", out, t_gen, t_write, size, size > 1 ? "s" : "");
    }
    fflush(stdout);
  }
  return 0;
}

cli_command cmd_gen =
    {"gen",
     "generate a random sparse matrix like the paper's, or a 3-D Poisson matrix (parallel write)",
     "(--rows R --cols C [--sparsity S] [--seed N] | --stencil 7|27 [--grid n]) --out PATH "
     "[options]",
     "Each rank generates its block of rows (every row from its own random stream, so the file\n"
     "does not depend on the number of ranks) and writes it with parallel HDF5 as a CSR group\n"
     "(anndata/scipy layout). --format gcoo is written by rank 0 alone.\n"
     "Example: mpirun -np 4 gcoo_dist gen --rows 100000 --cols 100000 --sparsity 0.999 --out A.h5",
     options,
     run};
