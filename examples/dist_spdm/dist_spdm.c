// SPDX-License-Identifier: MIT
// examples/dist_spdm/dist_spdm.c: gcoo inside an MPI application that owns its communicator and
// its data. The pattern of an iterative solver: a persistent distributed operator built once from
// each rank's own rows, applied several times to vectors that stay partitioned.
//
//   mpirun -np 4 ./dist_spdm [backend] [n nrhs]    backend: cpu | cuda | auto ($GCOO_BACKEND)
//
// 1. The application splits MPI_COMM_WORLD: with 4 or more ranks, two groups (even and odd world
//    ranks) each run their own problem, side by side; with fewer, one group. Ranks are numbered
//    in reverse inside a group, so the example fails if gcoo used MPI_COMM_WORLD's numbering.
// 2. Each rank builds its rows of the 3-D 7-point Laplacian A on an n x n x (n + group) grid in
//    memory (no file) and hands them to gcoo_dist_op_create.
// 3. X is partitioned like the rows of A (GCOO_DIST_X_PARTITIONED): each apply fetches the halo
//    rows it needs from the neighbours. Y1 = A X, then Y2 = A Y1 with the same operator.
// 4. Y1 and Y2 are gathered on the group's rank 0 and checked against the stencil applied by
//    hand to the whole grid. Every world rank returns non-zero if any group failed.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "gcoo/gcoo.h"

// On a failed gcoo call: print which call, the status and gcoo's message, then stop every rank.
// (gcoo's collective calls return the same failure on all ranks of the group, with the failing
// rank named in the message; MPI_Abort keeps the example short.)
#define CHECK(call)                                                                       \
  do {                                                                                    \
    gcoo_status st_ = (call);                                                             \
    if (st_ != GCOO_SUCCESS) {                                                            \
      fprintf(stderr, "dist_spdm: world rank %d: %s failed: %s: %s\n", world_rank, #call, \
              gcoo_status_name(st_), gcoo_last_error());                                  \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                       \
    }                                                                                     \
  } while (0)

static int world_rank;

typedef struct grid {
  int64_t nx, ny, nz, n; // n = nx ny nz unknowns, row i = (iz ny + iy) nx + ix
} grid;

// A value of X that is an exact small integer: every sum below is exact in double.
static double xval(int64_t j, int64_t c) { return (double)((j * 5 + c * 3) % 13 - 6); }

// The rows [r0, r1) of the 3-D Laplacian as CSR with global column indices.
static gcoo_sparse laplacian_rows(grid g, int64_t r0, int64_t r1) {
  int64_t m = r1 - r0, k = 0;
  int64_t *ptr = malloc((size_t)(m + 1) * sizeof *ptr);
  int32_t *col = malloc((size_t)(7 * m + 1) * sizeof *col);
  double *val = malloc((size_t)(7 * m + 1) * sizeof *val);
  if (!ptr || !col || !val) MPI_Abort(MPI_COMM_WORLD, 1);
  const int64_t stride[3] = {1, g.nx, g.nx * g.ny};
  for (int64_t i = r0; i < r1; i++) {
    const int64_t pos[3] = {i % g.nx, (i / g.nx) % g.ny, i / (g.nx * g.ny)};
    const int64_t len[3] = {g.nx, g.ny, g.nz};
    ptr[i - r0] = k;
    // columns in increasing order: -z, -y, -x, centre, +x, +y, +z
    for (int d = 2; d >= 0; d--)
      if (pos[d] > 0) col[k] = (int32_t)(i - stride[d]), val[k++] = -1.0;
    col[k] = (int32_t)i, val[k++] = 6.0;
    for (int d = 0; d < 3; d++)
      if (pos[d] < len[d] - 1) col[k] = (int32_t)(i + stride[d]), val[k++] = -1.0;
  }
  ptr[m] = k;
  gcoo_sparse A = NULL;
  CHECK(gcoo_sparse_create_csr(&A, GCOO_FLOAT64, m, g.n, ptr, col, val, GCOO_DUPLICATES_ERROR));
  free(ptr), free(col), free(val); // gcoo copied them
  return A;
}

// out = A in, by hand, on the whole grid (both n x nrhs row-major).
static void stencil(grid g, int64_t nrhs, const double *in, double *out) {
  const int64_t stride[3] = {1, g.nx, g.nx * g.ny}, len[3] = {g.nx, g.ny, g.nz};
  for (int64_t i = 0; i < g.n; i++) {
    const int64_t pos[3] = {i % g.nx, (i / g.nx) % g.ny, i / (g.nx * g.ny)};
    for (int64_t c = 0; c < nrhs; c++) {
      double y = 6.0 * in[i * nrhs + c];
      for (int d = 0; d < 3; d++) {
        if (pos[d] > 0) y -= in[(i - stride[d]) * nrhs + c];
        if (pos[d] < len[d] - 1) y -= in[(i + stride[d]) * nrhs + c];
      }
      out[i * nrhs + c] = y;
    }
  }
}

static double max_abs_diff(const gcoo_dense *Y, const double *ref) {
  double e = 0;
  for (int64_t i = 0; i < Y->nrows; i++)
    for (int64_t c = 0; c < Y->ncols; c++) {
      double d = fabs(gcoo_dense_get(Y, i, c) - ref[i * Y->ncols + c]);
      if (!(d <= e)) e = isnan(d) ? INFINITY : d; // a NaN (never written) counts as failure
    }
  return e;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int world_size;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  const char *backend = argc > 1 ? argv[1] : NULL;
  int64_t n = argc > 3 ? atoll(argv[2]) : 8, nrhs = argc > 3 ? atoll(argv[3]) : 4;
  if (n < 1 || nrhs < 1) {
    if (world_rank == 0) fprintf(stderr, "usage: dist_spdm [backend] [n nrhs]  (both >= 1)\n");
    MPI_Finalize();
    return 2;
  }

  // 1. the application's own communicator
  int ngroups = world_size >= 4 ? 2 : 1, group = world_rank % ngroups;
  MPI_Comm comm;
  MPI_Comm_split(MPI_COMM_WORLD, group, world_size - world_rank, &comm);
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);

  gcoo_dist d = NULL;
  CHECK(gcoo_dist_create(&d, comm, backend));
  char where[256];
  CHECK(gcoo_ctx_describe(gcoo_dist_ctx(d), where, sizeof where));

  // 2. this rank's rows of A: an even split of the rows (gcoo_partition_balanced would balance
  //    by nonzeros; the Laplacian's rows are nearly equal, so an even split is as good here)
  grid g = {n, n, n + group, 0};
  g.n = g.nx * g.ny * g.nz;
  int64_t r0 = g.n * rank / size, r1 = g.n * (rank + 1) / size;
  gcoo_sparse A = laplacian_rows(g, r0, r1);
  gcoo_dist_op_options opts = GCOO_DIST_OP_OPTIONS_INIT;
  opts.xmode = GCOO_DIST_X_PARTITIONED;
  opts.local.ncols_hint = nrhs;
  gcoo_dist_op op = NULL;
  CHECK(gcoo_dist_op_create(d, A, r0, g.n, &opts, &op));
  CHECK(gcoo_sparse_destroy(&A)); // the operator holds its own copy

  int64_t row0, nrows;
  CHECK(gcoo_dist_op_get_row_range(op, &row0, &nrows));
  if (row0 != r0 || nrows != r1 - r0) {
    fprintf(stderr,
            "dist_spdm: group %d rank %d: operator owns rows [%lld, %lld), gave [%lld, %lld)\n",
            group, rank, (long long)row0, (long long)(row0 + nrows), (long long)r0, (long long)r1);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

  // 3. X partitioned like Y: this rank holds rows [r0, r1) of X, Y1 and Y2
  gcoo_dense X, Y1, Y2;
  CHECK(gcoo_dense_create(&X, GCOO_FLOAT64, GCOO_ROW_MAJOR, nrows, nrhs));
  CHECK(gcoo_dense_create(&Y1, GCOO_FLOAT64, GCOO_ROW_MAJOR, nrows, nrhs));
  CHECK(gcoo_dense_create(&Y2, GCOO_FLOAT64, GCOO_ROW_MAJOR, nrows, nrhs));
  for (int64_t i = 0; i < nrows; i++)
    for (int64_t c = 0; c < nrhs; c++) gcoo_dense_set(&X, i, c, xval(row0 + i, c));
  CHECK(gcoo_dense_fill(&Y1, NAN));
  CHECK(gcoo_dense_fill(&Y2, NAN));
  CHECK(gcoo_dist_op_apply(op, 1.0, &X, 0.0, &Y1));  // Y1 = A X
  CHECK(gcoo_dist_op_apply(op, 1.0, &Y1, 0.0, &Y2)); // Y2 = A Y1 = A^2 X
  CHECK(gcoo_ctx_synchronize(gcoo_dist_ctx(d)));
  gcoo_dist_op_info info;
  CHECK(gcoo_dist_op_get_info(op, &info));

  // 4. gather on the group's rank 0 and check there
  gcoo_dense F1 = {0}, F2 = {0};
  if (rank == 0) {
    CHECK(gcoo_dense_create(&F1, GCOO_FLOAT64, GCOO_ROW_MAJOR, g.n, nrhs));
    CHECK(gcoo_dense_create(&F2, GCOO_FLOAT64, GCOO_ROW_MAJOR, g.n, nrhs));
    CHECK(gcoo_dense_fill(&F1, NAN));
    CHECK(gcoo_dense_fill(&F2, NAN));
  }
  CHECK(gcoo_dist_gather_rows(d, &Y1, 0, &F1));
  CHECK(gcoo_dist_gather_rows(d, &Y2, 0, &F2));

  int failed = 0;
  if (rank == 0) {
    double *x = malloc((size_t)(g.n * nrhs) * sizeof *x),
           *y1 = malloc((size_t)(g.n * nrhs) * sizeof *y1);
    double *y2 = malloc((size_t)(g.n * nrhs) * sizeof *y2);
    if (!x || !y1 || !y2) MPI_Abort(MPI_COMM_WORLD, 1);
    for (int64_t i = 0; i < g.n; i++)
      for (int64_t c = 0; c < nrhs; c++) x[i * nrhs + c] = xval(i, c);
    stencil(g, nrhs, x, y1);
    stencil(g, nrhs, y1, y2);
    double e1 = max_abs_diff(&F1, y1), e2 = max_abs_diff(&F2, y2);
    failed = !(e1 == 0.0 && e2 == 0.0); // integer data: exact in double
    printf("dist_spdm: group %d of %d, %d ranks, %s: %lldx%lldx%lld Laplacian (%lld rows, nnz "
           "%lld, "
           "imbalance %.3f) x %lld columns, X partitioned (rank 0 receives %lld halo rows): "
           "max |AX - stencil| = %g, max |A(AX) - stencil^2| = %g: %s\n",
           group, ngroups, size, where, (long long)g.nx, (long long)g.ny, (long long)g.nz,
           (long long)g.n, (long long)info.nnz_global, info.imbalance, (long long)nrhs,
           (long long)info.halo_rows_recv, e1, e2, failed ? "FAILED" : "OK");
    fflush(stdout);
    free(x), free(y1), free(y2);
    gcoo_dense_destroy(&F1);
    gcoo_dense_destroy(&F2);
  }

  gcoo_dense_destroy(&X);
  gcoo_dense_destroy(&Y1);
  gcoo_dense_destroy(&Y2);
  CHECK(gcoo_dist_op_destroy(&op));
  CHECK(gcoo_dist_destroy(&d));
  MPI_Comm_free(&comm);

  // The application's own use of MPI_COMM_WORLD goes on undisturbed.
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (world_rank == 0) printf("dist_spdm: %s\n", any_failed ? "FAILED" : "OK");
  MPI_Finalize();
  return any_failed ? 1 : 0;
}
