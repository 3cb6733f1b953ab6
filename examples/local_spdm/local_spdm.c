// SPDX-License-Identifier: MIT
// examples/local_spdm/local_spdm.c: gcoo in one process, no MPI calls: a persistent SpDM operator
// on a 2-D Laplacian, applied in both readings of gcoo/spdm.h to the SAME buffers.
//
//   ./local_spdm [backend] [nx ny nrhs]     backend: cpu | cuda | auto (default: $GCOO_BACKEND, else auto)
//
// 1. Y = A X       (SpMM reading: A sparse, X and Y row-major)
// 2. C = B S       (the paper's reading: S = A^T, B = X^T and C = Y^T column-major; the Laplacian
//                  is symmetric, so S = A and C must equal Y entry for entry)
// Both are checked against the 5-point stencil computed by hand from grid coordinates.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcoo/gcoo.h"

// Stop on the first failed gcoo call, saying which, why (gcoo_last_error) and where.
#define CHECK(call)                                                                    \
  do {                                                                                 \
    gcoo_status st_ = (call);                                                          \
    if (st_ != GCOO_SUCCESS) {                                                         \
      fprintf(stderr, "local_spdm: %s failed: %s: %s\n", #call, gcoo_status_name(st_), \
              gcoo_last_error());                                                      \
      exit(1);                                                                         \
    }                                                                                  \
  } while (0)

// A value of X that is an exact small integer, so every sum is exact in float too.
static float xval(int64_t j, int64_t c) { return (float)((j * 7 + c * 3) % 11 - 5); }

// The 2-D Laplacian (5-point, Dirichlet) on an nx x ny grid, row i = iy * nx + ix, as CSR.
static gcoo_sparse laplacian_2d(int64_t nx, int64_t ny) {
  int64_t n = nx * ny, k = 0;
  int64_t *ptr = malloc((size_t)(n + 1) * sizeof *ptr);
  int32_t *col = malloc((size_t)(5 * n) * sizeof *col);
  float *val = malloc((size_t)(5 * n) * sizeof *val);
  if (!ptr || !col || !val) {
    fprintf(stderr, "local_spdm: out of memory for a %lld-row Laplacian\n", (long long)n);
    exit(1);
  }
  for (int64_t i = 0; i < n; i++) {
    int64_t ix = i % nx, iy = i / nx;
    ptr[i] = k;
    if (iy > 0) col[k] = (int32_t)(i - nx), val[k++] = -1.0f;
    if (ix > 0) col[k] = (int32_t)(i - 1), val[k++] = -1.0f;
    col[k] = (int32_t)i, val[k++] = 4.0f;
    if (ix < nx - 1) col[k] = (int32_t)(i + 1), val[k++] = -1.0f;
    if (iy < ny - 1) col[k] = (int32_t)(i + nx), val[k++] = -1.0f;
  }
  ptr[n] = k;
  gcoo_sparse A = NULL;
  CHECK(gcoo_sparse_create_csr(&A, GCOO_FLOAT32, n, n, ptr, col, val, GCOO_DUPLICATES_ERROR));
  free(ptr), free(col), free(val); // gcoo copied them
  return A;
}

// (A X)(i, c) by hand: 4 x(i) minus the neighbours that exist.
static double stencil(int64_t nx, int64_t ny, int64_t i, int64_t c) {
  int64_t ix = i % nx, iy = i / nx;
  double y = 4.0 * xval(i, c);
  if (iy > 0) y -= xval(i - nx, c);
  if (ix > 0) y -= xval(i - 1, c);
  if (ix < nx - 1) y -= xval(i + 1, c);
  if (iy < ny - 1) y -= xval(i + nx, c);
  return y;
}

int main(int argc, char **argv) {
  const char *backend = argc > 1 ? argv[1] : NULL;
  int64_t nx = argc > 4 ? atoll(argv[2]) : 40, ny = argc > 4 ? atoll(argv[3]) : 30;
  int64_t nrhs = argc > 4 ? atoll(argv[4]) : 8, n = nx * ny;
  if (nx < 1 || ny < 1 || nrhs < 1) {
    fprintf(stderr, "usage: local_spdm [backend] [nx ny nrhs]  (all >= 1)\n");
    return 2;
  }

  gcoo_ctx ctx = NULL;
  CHECK(gcoo_ctx_create(&ctx, backend));
  char where[256];
  CHECK(gcoo_ctx_describe(ctx, where, sizeof where));

  gcoo_sparse A = laplacian_2d(nx, ny);

  // X (n x nrhs, row-major) and Y; Y poisoned with NaN so an entry never written is seen.
  gcoo_dense X, Y;
  CHECK(gcoo_dense_create(&X, GCOO_FLOAT32, GCOO_ROW_MAJOR, n, nrhs));
  CHECK(gcoo_dense_create(&Y, GCOO_FLOAT32, GCOO_ROW_MAJOR, n, nrhs));
  for (int64_t j = 0; j < n; j++)
    for (int64_t c = 0; c < nrhs; c++) gcoo_dense_set(&X, j, c, xval(j, c));

  double maxerr[2] = {0, 0};
  for (int reading = 0; reading < 2; reading++) {
    CHECK(gcoo_dense_fill(&Y, NAN));
    gcoo_op_options opts = GCOO_OP_OPTIONS_INIT;
    opts.ncols_hint = nrhs;
    gcoo_op op = NULL;
    if (reading == 0) {
      // 1. Y = A X
      opts.reading = GCOO_SPARSE_DENSE;
      CHECK(gcoo_op_create(&op, ctx, A, &opts));
      CHECK(gcoo_op_apply(op, 1.0, &X, 0.0, &Y));
    } else {
      // 2. C = B S on the same buffers seen column-major: B = X^T (nrhs x n), C = Y^T.
      gcoo_dense B = gcoo_dense_wrap(X.data, GCOO_FLOAT32, GCOO_COL_MAJOR, nrhs, n, nrhs);
      gcoo_dense C = gcoo_dense_wrap(Y.data, GCOO_FLOAT32, GCOO_COL_MAJOR, nrhs, n, nrhs);
      opts.reading = GCOO_DENSE_SPARSE;
      CHECK(gcoo_op_create(&op, ctx, A, &opts)); // S = A (symmetric)
      CHECK(gcoo_op_apply(op, 1.0, &B, 0.0, &C));
    }
    CHECK(gcoo_ctx_synchronize(ctx));
    gcoo_op_info info;
    CHECK(gcoo_op_get_info(op, &info));
    for (int64_t i = 0; i < n; i++)
      for (int64_t c = 0; c < nrhs; c++) {
        double e = fabs(gcoo_dense_get(&Y, i, c) - stencil(nx, ny, i, c));
        if (!(e <= maxerr[reading])) maxerr[reading] = isnan(e) ? INFINITY : e;
      }
    printf("local_spdm: %s on %s: %s, p = %d, %lld x %lld Laplacian (nnz %lld) x %lld columns: "
           "max |Y - stencil| = %g\n",
           reading == 0 ? "Y = A X (sparse x dense, row-major)"
                        : "C = B S (dense x sparse, column-major)",
           where, gcoo_spdm_alg_name(info.alg), info.p, (long long)n, (long long)n,
           (long long)info.nnz, (long long)nrhs, maxerr[reading]);
    CHECK(gcoo_op_destroy(&op));
  }

  gcoo_dense_destroy(&X);
  gcoo_dense_destroy(&Y);
  CHECK(gcoo_sparse_destroy(&A));
  CHECK(gcoo_ctx_destroy(&ctx));
  // Integers of at most a few tens: every path (float accumulation included) must be exact.
  int ok = maxerr[0] == 0.0 && maxerr[1] == 0.0;
  printf("local_spdm: %s\n", ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
