/* SPDX-License-Identifier: MIT */
/* tests/mpi/t404-dist-file.c: distributed operators read from files (each rank its slab) give
 * the single-process product. Rank 0 writes one matrix M as Matrix Market (.mtx, .mtx.gz) and
 * HDF5 in CSR, CSC and GCOO layouts; every file is read in both readings (A = M for Y = A X,
 * S = M for C = B S) and both X modes, and each rank's rows of Y are compared with the CPU
 * reference: relative error <= a few ulps * sqrt(k). The file reader's slabs start at whole units
 * (multiples of p, or of the file's GCOO groups). Missing files fail on every rank, naming the
 * file. Needs io/mtx.c and io/h5*.c (helpers "found" and "h5"). CPU backend, or the one named by
 * GCOO_TEST_BACKEND (cuda on the GPU machine). */
#define _POSIX_C_SOURCE 200809L
#include <unistd.h>

#include "mpi_test.h"

static char dir[512];

static const char *path(const char *name) {
  static char buf[1024];
  snprintf(buf, sizeof buf, "%s/%s", dir, name);
  return buf;
}

static void check_file(gcoo_dist d, const char *file, gcoo_sparse M, gcoo_dtype dt,
                       gcoo_reading reading, gcoo_dist_xmode xmode, int32_t p, int32_t want_unit) {
  gcoo_sparse A = NULL;
  if (reading == GCOO_DENSE_SPARSE)
    MPI_TEST_CALL(gcoo_sparse_transpose(&A, M));
  else
    MPI_TEST_CALL(gcoo_sparse_convert(&A, M, GCOO_FORMAT_CSR, 0));
  gcoo_sparse_info ai;
  MPI_TEST_CALL(gcoo_sparse_get_info(A, &ai));
  gcoo_dist_op_options o = GCOO_DIST_OP_OPTIONS_INIT;
  o.local.reading = reading;
  o.local.p = p;
  o.xmode = xmode;
  gcoo_dist_op op = NULL;
  MPI_TEST_CALL(gcoo_dist_op_create_from_file(d, path(file), dt, &o, &op));
  int64_t r0, n;
  MPI_TEST_CALL(gcoo_dist_op_get_row_range(op, &r0, &n));
  if (want_unit > 0)
    TEST_CHECK(r0 % want_unit == 0 || r0 + n == ai.nrows,
               "%s: slab starts at %lld, not on a "
               "unit of %d",
               file, (long long)r0, want_unit);
  const int64_t N = 3, k = ai.ncols, m = ai.nrows;
  gcoo_dense X, Yref, Y;
  MPI_TEST_CALL(gcoo_dense_create(&X, dt, GCOO_ROW_MAJOR, k, N));
  MPI_TEST_CALL(gcoo_dense_fill_random(&X, 9));
  MPI_TEST_CALL(gcoo_dense_create(&Yref, dt, GCOO_ROW_MAJOR, m, N));
  MPI_TEST_CALL(gcoo_spdm_reference(1.0, A, &X, 0.0, &Yref));
  MPI_TEST_CALL(gcoo_dense_create(&Y, dt, GCOO_ROW_MAJOR, n, N));
  MPI_TEST_CALL(gcoo_dense_fill(&Y, NAN));
  gcoo_dense Xa = X, Ya = Y;
  if (xmode == GCOO_DIST_X_PARTITIONED) {
    Xa.data = (char *)X.data + (size_t)(r0 * N) * gcoo_dtype_size(dt);
    Xa.nrows = n;
    Xa.owned = 0;
  }
  if (reading == GCOO_DENSE_SPARSE) {
    Xa = gcoo_dense_wrap(Xa.data, dt, GCOO_COL_MAJOR, N, Xa.nrows, N);
    Ya = gcoo_dense_wrap(Y.data, dt, GCOO_COL_MAJOR, N, n, N);
  }
  MPI_TEST_CALL(gcoo_dist_op_apply(op, 1.0, &Xa, 0.0, &Ya));
  gcoo_dense R = gcoo_dense_wrap((char *)Yref.data + (size_t)(r0 * N) * gcoo_dtype_size(dt), dt,
                                 GCOO_ROW_MAJOR, n, N, N);
  double err = gcoo_test_relerr(&Y, &R), tol = gcoo_test_tolerance(dt, k);
  TEST_CHECK(err <= tol, "%s %s %s %s: rank %d rows [%lld, +%lld): error %.3g > %.3g", file,
             dt ? "f64" : "f32", reading ? "dense-sparse" : "sparse-dense",
             xmode ? "partitioned" : "replicated", mpi_test_rank(), (long long)r0, (long long)n,
             err, tol);
  gcoo_dist_op_destroy(&op);
  gcoo_dense_destroy(&X);
  gcoo_dense_destroy(&Y);
  gcoo_dense_destroy(&Yref);
  gcoo_sparse_destroy(&A);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = mpi_test_rank();
  gcoo_dist d = NULL;
  /* GCOO_TEST_BACKEND=cuda runs the same files through the CUDA backend's set-up (the GPU
   * machine's check of the file-to-device path; bench/gpu_datapath.sh) */
  const char *be = getenv("GCOO_TEST_BACKEND");
  MPI_TEST_CALL(gcoo_dist_create(&d, MPI_COMM_WORLD, be && *be ? be : "cpu"));
  if (rank == 0) {
    const char *t = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/gcoo-t404-%ld", t && *t ? t : "/tmp", (long)getpid());
    char cmd[600];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    if (system(cmd) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  /* a square matrix with empty rows and columns, so slabs and halos are uneven */
  gcoo_sparse M = NULL;
  MPI_TEST_CALL(gcoo_sparse_random(&M, GCOO_FLOAT64, GCOO_FORMAT_CSR, 90, 90, 0.93, 21, 0));
  if (rank == 0) {
    gcoo_sparse C = NULL, G = NULL;
    MPI_TEST_CALL(gcoo_mtx_write(path("M.mtx"), M));
    MPI_TEST_CALL(gcoo_mtx_write(path("M.mtx.gz"), M));
    MPI_TEST_CALL(gcoo_h5_write_sparse(path("M_csr.h5"), M, 0));
    MPI_TEST_CALL(gcoo_sparse_convert(&C, M, GCOO_FORMAT_CSC, 0));
    MPI_TEST_CALL(gcoo_h5_write_sparse(path("M_csc.h5"), C, 0));
    MPI_TEST_CALL(gcoo_sparse_convert(&G, M, GCOO_FORMAT_GCOO, 6));
    MPI_TEST_CALL(gcoo_h5_write_sparse(path("M_gcoo.h5"), G, 0));
    gcoo_sparse_destroy(&C);
    gcoo_sparse_destroy(&G);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  struct {
    const char *file;
    int32_t unit_sd, unit_ds;
  } files[] = {
      {"M.mtx", 4, 4},                         /* scattered from rank 0 in units of p = 4 rows */
      {"M.mtx.gz", 4, 4},  {"M_csr.h5", 4, 4}, /* slabs of rows of A; redistributed for S */
      {"M_csc.h5", 4, 4},                      /* redistributed for A; column slabs of S */
      {"M_gcoo.h5", 4, 6},                     /* whole GCOO groups of 6 columns of S */
  };
  for (size_t f = 0; f < sizeof files / sizeof files[0]; f++)
    for (int dt = 0; dt < 2; dt++)
      for (int rd = 0; rd < 2; rd++)
        for (int xm = 0; xm < 2; xm++)
          check_file(d, files[f].file, M, (gcoo_dtype)dt, (gcoo_reading)rd, (gcoo_dist_xmode)xm,
                     rd == GCOO_DENSE_SPARSE && f == 4 ? 0 : 4,
                     rd == GCOO_DENSE_SPARSE ? files[f].unit_ds : files[f].unit_sd);
  /* real matrices from tests/data (SuiteSparse), read from the Matrix Market file on rank 0
   * and scattered; the reference reads the same file on every rank */
  const char *real[] = {"west0479", "bcsstk21", "lp_ship04l"};
  for (size_t r = 0; r < sizeof real / sizeof real[0]; r++) {
    char name[64];
    snprintf(name, sizeof name, "%s.mtx", real[r]);
    if (access(gcoo_test_data(name), R_OK) != 0) snprintf(name, sizeof name, "%s.mtx.gz", real[r]);
    const char *full = gcoo_test_data(name);
    int present = access(full, R_OK) == 0;
    TEST_CHECK(present, "tests/data lacks %s(.gz)", real[r]);
    if (!present) continue;
    gcoo_sparse R = NULL;
    gcoo_sparse_info ri;
    MPI_TEST_CALL(gcoo_mtx_read(full, GCOO_FLOAT64, 0, &R));
    MPI_TEST_CALL(gcoo_sparse_get_info(R, &ri));
    /* check_file takes names relative to dir: link the data file there */
    if (rank == 0) {
      char link[1100];
      snprintf(link, sizeof link, "%s/%s", dir, name);
      if (symlink(full, link) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int rd = 0; rd < 2; rd++)
      for (int xm = 0; xm < (ri.nrows == ri.ncols ? 2 : 1); xm++)
        check_file(d, name, R, GCOO_FLOAT64, (gcoo_reading)rd, (gcoo_dist_xmode)xm, 8, 8);
    gcoo_sparse_destroy(&R);
  }
  /* a missing file fails on every rank and names the file */
  gcoo_dist_op op = NULL;
  gcoo_status st = gcoo_dist_op_create_from_file(d, path("missing.mtx"), GCOO_FLOAT64, NULL, &op);
  TEST_CHECK(st < 0 && strstr(gcoo_last_error(), "missing.mtx"), "missing .mtx: %s: %s",
             gcoo_status_name(st), gcoo_last_error());
  st = gcoo_dist_op_create_from_file(d, path("missing.h5"), GCOO_FLOAT64, NULL, &op);
  TEST_CHECK(st < 0 && strstr(gcoo_last_error(), "missing.h5"), "missing .h5: %s: %s",
             gcoo_status_name(st), gcoo_last_error());
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  }
  gcoo_sparse_destroy(&M);
  MPI_TEST_CALL(gcoo_dist_destroy(&d));
  return mpi_test_finish("t404-dist-file");
}
