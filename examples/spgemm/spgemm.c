// SPDX-License-Identifier: MIT
// examples/spgemm/spgemm.c: C = A B with gcoo's SpGEMM, whose output is preallocated from the
// sampled prediction of its size (gcoo/predict.h), in one process.
//
//   ./spgemm [backend] [n]      backend: cpu | cuda | auto (default: $GCOO_BACKEND, else auto)
//
// A = B = the 1-D Laplacian tridiag(-1, 2, -1) of order n; A^2 is pentadiagonal with rows
// (1, -4, 6, -4, 1) inside and (5, -4, 1) / (1, -4, 5) at the ends, nnz(A^2) = 5n - 6.
// The product is checked entry by entry against that hand computation.
//
// Written against the SpGEMM contract gcoo_spgemm(ctx, A, B, options, &C, info) of
// gcoo/spgemm.h; NULL options = defaults (predicted allocation), NULL info = not wanted.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcoo/gcoo.h"
#include "gcoo/spgemm.h"

#define CHECK(call)                                                                \
  do {                                                                             \
    gcoo_status st_ = (call);                                                      \
    if (st_ != GCOO_SUCCESS) {                                                     \
      fprintf(stderr, "spgemm: %s failed: %s: %s\n", #call, gcoo_status_name(st_), \
              gcoo_last_error());                                                  \
      exit(1);                                                                     \
    }                                                                              \
  } while (0)

static gcoo_sparse laplacian_1d(int64_t n) {
  int64_t *ptr = malloc((size_t)(n + 1) * sizeof *ptr), k = 0;
  int32_t *col = malloc((size_t)(3 * n) * sizeof *col);
  double *val = malloc((size_t)(3 * n) * sizeof *val);
  if (!ptr || !col || !val) exit(1);
  for (int64_t i = 0; i < n; i++) {
    ptr[i] = k;
    if (i > 0) col[k] = (int32_t)(i - 1), val[k++] = -1.0;
    col[k] = (int32_t)i, val[k++] = 2.0;
    if (i < n - 1) col[k] = (int32_t)(i + 1), val[k++] = -1.0;
  }
  ptr[n] = k;
  gcoo_sparse A = NULL;
  CHECK(gcoo_sparse_create_csr(&A, GCOO_FLOAT64, n, n, ptr, col, val, GCOO_DUPLICATES_ERROR));
  free(ptr), free(col), free(val);
  return A;
}

// (A^2)(i, j) by hand.
static double square_entry(int64_t n, int64_t i, int64_t j) {
  int64_t d = j - i;
  if (d == 0) return (i == 0 || i == n - 1) ? 5.0 : 6.0;
  if (d == 1 || d == -1) return -4.0;
  if (d == 2 || d == -2) return 1.0;
  return 0.0;
}

int main(int argc, char **argv) {
  const char *backend = argc > 1 ? argv[1] : NULL;
  int64_t n = argc > 2 ? atoll(argv[2]) : 1000;
  if (n < 3) {
    fprintf(stderr, "usage: spgemm [backend] [n]  (n >= 3)\n");
    return 2;
  }
  gcoo_ctx ctx = NULL;
  CHECK(gcoo_ctx_create(&ctx, backend));
  char where[256];
  CHECK(gcoo_ctx_describe(ctx, where, sizeof where));

  gcoo_sparse A = laplacian_1d(n), C = NULL, Ccsr = NULL;
  CHECK(gcoo_spgemm(ctx, A, A, NULL, &C, NULL));

  // Read C back as CSR, whatever format the product came in.
  CHECK(gcoo_sparse_convert(&Ccsr, C, GCOO_FORMAT_CSR, 0));
  gcoo_sparse_info ci;
  gcoo_sparse_arrays ca;
  CHECK(gcoo_sparse_get_info(Ccsr, &ci));
  CHECK(gcoo_sparse_get_arrays(Ccsr, &ca));
  const double *v = ca.values;
  double maxerr = 0;
  int64_t wrong_pattern = 0;
  for (int64_t i = 0; i < ci.nrows; i++)
    for (int64_t e = ca.ptr[i]; e < ca.ptr[i + 1]; e++) {
      double want = square_entry(n, i, ca.ind[e]);
      if (want == 0.0) wrong_pattern++;
      double err = fabs(v[e] - want);
      if (!(err <= maxerr)) maxerr = isnan(err) ? INFINITY : err;
    }
  int ok = ci.nrows == n && ci.ncols == n && ci.nnz == 5 * n - 6 && wrong_pattern == 0 &&
           maxerr == 0.0;
  printf("spgemm: A^2 of the 1-D Laplacian of order %lld on %s: nnz %lld (expected %lld), "
         "entries outside the 5 diagonals %lld, max |C - hand| = %g: %s\n",
         (long long)n, where, (long long)ci.nnz, (long long)(5 * n - 6), (long long)wrong_pattern,
         maxerr, ok ? "OK" : "FAILED");

  CHECK(gcoo_sparse_destroy(&Ccsr));
  CHECK(gcoo_sparse_destroy(&C));
  CHECK(gcoo_sparse_destroy(&A));
  CHECK(gcoo_ctx_destroy(&ctx));
  return ok ? 0 : 1;
}
