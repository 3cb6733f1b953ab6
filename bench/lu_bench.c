/* SPDX-License-Identifier: MIT */
/* bench/lu_bench.c: gcoo's direct solve (preonly + lu through MUMPS) on Matrix Market files, the
 * gcoo half of bench/run_lu.sh (bench/lu_petsc.py is PETSc's half). For each file: the operator
 * is read (not timed), then REPEATS times a solver is made, set up (MUMPS's analysis and
 * factorisation) and applied to one right-hand side; the fastest set-up + solve is reported
 * with its parts, and the true relative residual ||b - A x|| / ||b|| of its answer, recomputed
 * here with the operator (not the solver's own figure). The right-hand side is the one
 * lu_petsc.py builds: b_i = 2 u(i) - 1 with u(i) the top 53 bits of splitmix64(i) / 2^53, so both
 * sides solve the same system. One JSON line per file on rank 0's standard output:
 *   {"solver": "gcoo-mumps", "matrix": NAME, "n": .., "nnz": .., "ranks": .., "setup_s": ..,
 *    "solve_s": .., "total_s": .., "relres": .., "status": "ok"|"GCOO_ERR_...", "error": ".."}
 * With --x-dir DIR the answer goes to DIR/NAME.npR.gcoo-mumps.x (n float64 in row order), for
 * lu_summary.py to recompute every solver's residual the same way.
 * Usage: mpirun -np R lu_bench [--repeats N] [--x-dir DIR] FILE.mtx[.gz]... */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "gcoo/gcoo.h"

/* The right-hand side's entry of global row i (lu_petsc.py computes the same). */
static double rhs_entry(uint64_t i) {
  uint64_t z = i + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return 2.0 * ((double)(z >> 11) * 0x1.0p-53) - 1.0;
}

static const char *base_name(const char *path, char *buf, size_t len) {
  const char *b = strrchr(path, '/');
  snprintf(buf, len, "%s", b ? b + 1 : path);
  char *dot = strstr(buf, ".mtx");
  if (dot) *dot = '\0';
  return buf;
}

/* ||b - A x|| / ||b|| over all ranks. */
static double true_residual(gcoo_dist_op op, const gcoo_dense *B, const gcoo_dense *X) {
  gcoo_dense AX;
  double s[2] = {0.0, 0.0};
  if (gcoo_dense_create(&AX, GCOO_FLOAT64, GCOO_ROW_MAJOR, B->nrows, 1) < 0) return NAN;
  if (gcoo_dist_op_apply(op, 1.0, X, 0.0, &AX) < 0) s[0] = NAN;
  for (int64_t i = 0; i < B->nrows; i++) {
    const double b = ((const double *)B->data)[i], r = b - ((const double *)AX.data)[i];
    s[0] += r * r;
    s[1] += b * b;
  }
  MPI_Allreduce(MPI_IN_PLACE, s, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  gcoo_dense_destroy(&AX);
  return sqrt(s[0] / s[1]);
}

/* A JSON string body: quotes and backslashes escaped, control characters dropped. */
static void json_text(const char *in, char *out, size_t len) {
  size_t w = 0;
  for (; *in && w + 2 < len; in++) {
    if (*in == '"' || *in == '\\') out[w++] = '\\';
    if ((unsigned char)*in >= 0x20) out[w++] = *in;
  }
  out[w] = '\0';
}

/* X's rows, in global order, into DIR/NAME.npR.gcoo-mumps.x. Collective. */
static void write_x(const char *dir, const char *name, int ranks, const gcoo_dense *X,
                    int64_t row0) {
  char path[1024];
  MPI_File f;
  snprintf(path, sizeof path, "%s/%s.np%d.gcoo-mumps.x", dir, name, ranks);
  if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &f) !=
      MPI_SUCCESS)
    return;
  MPI_File_set_size(f, 0);
  MPI_File_write_at_all(f, (MPI_Offset)row0 * 8, X->data, (int)X->nrows, MPI_DOUBLE,
                        MPI_STATUS_IGNORE);
  MPI_File_close(&f);
}

static void one_file(gcoo_dist d, const char *path, int repeats, const char *xdir, int rank,
                     int ranks) {
  char name[256], err[1024] = "";
  gcoo_status st;
  gcoo_dist_op op = NULL;
  gcoo_ksp ksp = NULL;
  gcoo_dense B = {0}, X = {0};
  double best[3] = {INFINITY, INFINITY, INFINITY}, relres = NAN;
  int64_t n = 0, nnz = 0, row0 = 0, nrows = 0;
  base_name(path, name, sizeof name);
  gcoo_dist_op_options o = GCOO_DIST_OP_OPTIONS_INIT;
  o.xmode = GCOO_DIST_X_PARTITIONED;
  st = gcoo_dist_op_create_from_file(d, path, GCOO_FLOAT64, &o, &op);
  if (st >= 0) {
    gcoo_dist_op_info info;
    st = gcoo_dist_op_get_info(op, &info);
    n = info.m_global;
    nnz = info.nnz_global;
    if (st >= 0 && info.m_global != info.k) st = GCOO_ERR_SHAPE; /* not square: skipped */
  }
  if (st >= 0) st = gcoo_dist_op_get_row_range(op, &row0, &nrows);
  if (st >= 0) st = gcoo_dense_create(&B, GCOO_FLOAT64, GCOO_ROW_MAJOR, nrows, 1);
  if (st >= 0) st = gcoo_dense_create(&X, GCOO_FLOAT64, GCOO_ROW_MAJOR, nrows, 1);
  for (int64_t i = 0; st >= 0 && i < nrows; i++)
    ((double *)B.data)[i] = rhs_entry((uint64_t)(row0 + i));
  for (int rep = 0; st >= 0 && rep < repeats; rep++) {
    st = gcoo_ksp_create(&ksp, op);
    if (st >= 0) st = gcoo_ksp_set_from_string(ksp, "-ksp_type preonly -pc_type lu");
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    if (st >= 0) st = gcoo_ksp_setup(ksp);
    MPI_Barrier(MPI_COMM_WORLD);
    const double t1 = MPI_Wtime();
    if (st >= 0) st = gcoo_ksp_solve(ksp, &B, &X, NULL);
    /* every rank takes the slowest rank's times, so that all agree on the best repeat */
    double t[3] = {t1 - t0, MPI_Wtime() - t1, 0.0};
    MPI_Allreduce(MPI_IN_PLACE, t, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    t[2] = t[0] + t[1];
    if (st >= 0 && t[2] < best[2]) {
      memcpy(best, t, sizeof best);
      relres = true_residual(op, &B, &X);
    }
    if (st < 0) json_text(gcoo_last_error(), err, sizeof err);
    gcoo_ksp_destroy(&ksp);
  }
  if (st < 0 && !err[0]) json_text(gcoo_last_error(), err, sizeof err);
  if (st >= 0 && xdir) write_x(xdir, name, ranks, &X, row0);
  if (rank == 0) {
    if (st >= 0)
      printf("{\"solver\": \"gcoo-mumps\", \"matrix\": \"%s\", \"n\": %lld, \"nnz\": %lld, "
             "\"ranks\": %d, \"setup_s\": %.6f, \"solve_s\": %.6f, \"total_s\": %.6f, "
             "\"relres\": %.3e, \"status\": \"ok\"}\n",
             name, (long long)n, (long long)nnz, ranks, best[0], best[1], best[2], relres);
    else
      printf("{\"solver\": \"gcoo-mumps\", \"matrix\": \"%s\", \"n\": %lld, \"nnz\": %lld, "
             "\"ranks\": %d, \"status\": \"%s\", \"error\": \"%s\"}\n",
             name, (long long)n, (long long)nnz, ranks, gcoo_status_name(st), err);
    fflush(stdout);
  }
  gcoo_dense_destroy(&B);
  gcoo_dense_destroy(&X);
  gcoo_dist_op_destroy(&op);
}

int main(int argc, char **argv) {
  int rank, ranks, repeats = 3, first = 1;
  const char *xdir = NULL;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  for (; first + 1 < argc && !strncmp(argv[first], "--", 2); first += 2) {
    if (!strcmp(argv[first], "--repeats"))
      repeats = atoi(argv[first + 1]);
    else if (!strcmp(argv[first], "--x-dir"))
      xdir = argv[first + 1];
    else
      repeats = 0; /* unknown option: the usage below */
  }
  if (first >= argc || repeats < 1) {
    if (rank == 0)
      fprintf(stderr, "usage: lu_bench [--repeats N] [--x-dir DIR] FILE.mtx[.gz]...\n");
    MPI_Finalize();
    return 2;
  }
  gcoo_dist d;
  if (gcoo_dist_create(&d, MPI_COMM_WORLD, "cpu") < 0) {
    if (rank == 0) fprintf(stderr, "lu_bench: %s\n", gcoo_last_error());
    MPI_Finalize();
    return 1;
  }
  for (int a = first; a < argc; a++) one_file(d, argv[a], repeats, xdir, rank, ranks);
  gcoo_dist_destroy(&d);
  MPI_Finalize();
  return 0;
}
