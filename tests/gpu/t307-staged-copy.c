/* SPDX-License-Identifier: MIT */
/* tests/gpu/t307-staged-copy.c: large copies between pageable host memory and the GPU go through
 * pinned chunks (kernels/backend/copy_staged.c) and move every byte: host -> device -> host through
 * gcoo_ctx_dense_copy gives back the source bit for bit, for pitched rows cut into chunks (float,
 * host leading dimensions 11 and 13), one contiguous row that is not a whole number of chunks
 * (double), and column-major columns longer than a chunk (left to cudaMemcpy2DAsync); the device
 * copy is first overwritten with a poison matrix and the host result filled with NaN. And an
 * operator set up from a CSR matrix whose arrays are staged (10M entries) multiplies as the CPU
 * reference does, float and double. And the random dense operands made on the GPU
 * (gcoo_ctx_dense_fill_random_rows, kernels/backend/dense_random.cu) equal the host's
 * gcoo_dense_fill_random_rows bit for bit: both layouts, float and double, rows from an offset;
 * and their sums on the GPU (gcoo_ctx_dense_sums, kernels/backend/dense_sums.cu) the host's bit for bit.
 * Prints each copy's rate. Needs a GPU (exit 77 without). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gcoo_test.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A host matrix of the given leading dimension, filled with value v (NaN for the result). */
static gcoo_dense host_matrix(gcoo_dtype dt, gcoo_layout lay, int64_t r, int64_t c, int64_t ld,
                              double v) {
  const int64_t major = lay == GCOO_ROW_MAJOR ? r : c;
  void *p = malloc((size_t)(major * ld) * gcoo_dtype_size(dt));
  TEST_CHECK(p != NULL, "no memory for %lld x %lld", (long long)r, (long long)c);
  if (!p) exit(1);
  gcoo_dense D = gcoo_dense_wrap(p, dt, lay, r, c, ld);
  for (int64_t i = 0; i < r; i++)
    for (int64_t j = 0; j < c; j++) gcoo_dense_set(&D, i, j, v);
  return D;
}

/* Bytes of the elements (not the padding) of a and b equal. */
static int64_t first_difference(const gcoo_dense *a, const gcoo_dense *b) {
  const size_t es = gcoo_dtype_size(a->dtype);
  const int64_t major = a->layout == GCOO_ROW_MAJOR ? a->nrows : a->ncols;
  const int64_t minor = a->layout == GCOO_ROW_MAJOR ? a->ncols : a->nrows;
  for (int64_t i = 0; i < major; i++)
    if (memcmp((const char *)a->data + (size_t)(i * a->ld) * es,
               (const char *)b->data + (size_t)(i * b->ld) * es, (size_t)minor * es))
      return i;
  return -1;
}

static void round_trip(gcoo_ctx gpu, const char *what, gcoo_dtype dt, gcoo_layout lay, int64_t r,
                       int64_t c, int64_t ld_src, int64_t ld_dst) {
  gcoo_dense src = host_matrix(dt, lay, r, c, ld_src, 0.0), poison, back, dev;
  gcoo_dense_fill_random(&src, 307 + (uint64_t)r);
  poison = host_matrix(dt, lay, r, c, ld_src, -12345.0);
  back = host_matrix(dt, lay, r, c, ld_dst, NAN);
  TEST_CALL(gcoo_ctx_dense_create(gpu, &dev, dt, lay, r, c, GCOO_MEM_DEVICE));
  TEST_CALL(gcoo_ctx_dense_copy(gpu, &dev, &poison));
  TEST_CALL(gcoo_ctx_synchronize(gpu));
  const double bytes = (double)(r * c) * (double)gcoo_dtype_size(dt);
  double t0 = now();
  TEST_CALL(gcoo_ctx_dense_copy(gpu, &dev, &src));
  TEST_CALL(gcoo_ctx_synchronize(gpu));
  double t1 = now();
  TEST_CALL(gcoo_ctx_dense_copy(gpu, &back, &dev)); /* complete when it returns */
  double t2 = now();
  const int64_t bad = first_difference(&src, &back);
  TEST_CHECK(bad < 0, "%s: %s %d of the round trip differs from the source", what,
             lay == GCOO_ROW_MAJOR ? "row" : "column", (int)bad);
  printf("t307 %-44s %7.1f MB: host->device %5.1f GB/s, device->host %5.1f GB/s\n", what,
         bytes / 1e6, bytes / (t1 - t0) / 1e9, bytes / (t2 - t1) / 1e9);
  TEST_CALL(gcoo_ctx_dense_destroy(gpu, &dev));
  free(src.data);
  free(poison.data);
  free(back.data);
}

/* An operator whose CSR upload is staged (4 bytes x 10M indices, 4 or 8 x 10M values). */
static void staged_operator(gcoo_ctx gpu, gcoo_dtype dt) {
  gcoo_sparse A = NULL;
  gcoo_dense X, Y, R;
  TEST_CALL(gcoo_sparse_random(&A, dt, GCOO_FORMAT_CSR, 1000000, 1000, 0.99, 3071, 0));
  TEST_CALL(gcoo_dense_create(&X, dt, GCOO_ROW_MAJOR, 1000, 4));
  TEST_CALL(gcoo_dense_create(&Y, dt, GCOO_ROW_MAJOR, 1000000, 4));
  TEST_CALL(gcoo_dense_create(&R, dt, GCOO_ROW_MAJOR, 1000000, 4));
  TEST_CALL(gcoo_dense_fill_random(&X, 3072));
  TEST_CALL(gcoo_dense_fill_random(&Y, 3073)); /* poison: beta = 0 overwrites it */
  TEST_CALL(gcoo_spdm_reference(1.0, A, &X, 0.0, &R));
  TEST_CALL(gcoo_spdm(gpu, 1.0, A, &X, 0.0, &Y));
  const double err = gcoo_test_relerr(&Y, &R), tol = gcoo_test_tolerance(dt, 1000);
  TEST_CHECK(err <= tol,
             "%s product of a staged 1M x 1000 operator (10M entries): error %.3g > %.3g",
             dt == GCOO_FLOAT64 ? "double" : "float", err, tol);
  gcoo_dense_destroy(&X);
  gcoo_dense_destroy(&Y);
  gcoo_dense_destroy(&R);
  gcoo_sparse_destroy(&A);
}

/* The device's random rows [row0, row0 + r) against the host's, bit for bit. */
static void random_rows(gcoo_ctx gpu, gcoo_dtype dt, gcoo_layout lay, int64_t r, int64_t c,
                        int64_t row0) {
  const int64_t ld = lay == GCOO_ROW_MAJOR ? c : r;
  gcoo_dense host = host_matrix(dt, lay, r, c, ld, 0.0), back = host_matrix(dt, lay, r, c, ld, NAN);
  gcoo_dense dev;
  TEST_CALL(gcoo_dense_fill_random_rows(&host, 77, row0));
  TEST_CALL(gcoo_ctx_dense_create(gpu, &dev, dt, lay, r, c, GCOO_MEM_DEVICE));
  TEST_CALL(gcoo_ctx_dense_fill_random_rows(gpu, &dev, 77, row0));
  TEST_CALL(gcoo_ctx_dense_copy(gpu, &back, &dev));
  const int64_t bad = first_difference(&host, &back);
  TEST_CHECK(bad < 0, "random %s %lld x %lld %s from row %lld: %s %lld differs from the host's",
             dt == GCOO_FLOAT64 ? "double" : "float", (long long)r, (long long)c,
             lay == GCOO_ROW_MAJOR ? "row-major" : "column-major", (long long)row0,
             lay == GCOO_ROW_MAJOR ? "row" : "column", (long long)bad);
  /* the sums of the device matrix (kernels/backend/dense_sums.cu) are the host's bit for bit, and near
   * a plain sum of the elements (a wrong order or block would still agree to ~1e-15, a missed or
   * doubled block would not) */
  double hs[2] = {NAN, NAN}, ds[2] = {NAN, NAN}, ref[2] = {0, 0};
  TEST_CALL(gcoo_ctx_dense_sums(gpu, &host, hs));
  TEST_CALL(gcoo_ctx_dense_sums(gpu, &dev, ds));
  for (int64_t i = 0; i < r; i++)
    for (int64_t j = 0; j < c; j++) {
      const double x = gcoo_dense_get(&host, i, j);
      ref[0] += x, ref[1] += fabs(x);
    }
  TEST_CHECK(memcmp(hs, ds, sizeof hs) == 0,
             "sums %s %lld x %lld: device %.17g %.17g, host %.17g %.17g",
             dt == GCOO_FLOAT64 ? "double" : "float", (long long)r, (long long)c, ds[0], ds[1],
             hs[0], hs[1]);
  TEST_CHECK(fabs(hs[0] - ref[0]) <= 1e-12 * ref[1] && fabs(hs[1] - ref[1]) <= 1e-12 * ref[1],
             "sums %.17g %.17g, plain sums %.17g %.17g", hs[0], hs[1], ref[0], ref[1]);
  /* the host side of the same call is gcoo_dense_fill_random_rows */
  TEST_CALL(gcoo_ctx_dense_fill_random_rows(gpu, &back, 77, row0));
  TEST_CHECK(first_difference(&host, &back) < 0, "host gcoo_ctx_dense_fill_random_rows differs");
  TEST_CALL(gcoo_ctx_dense_destroy(gpu, &dev));
  free(host.data);
  free(back.data);
}

int main(void) {
  /* stage from 32 MiB (the default is 256 MiB, kernels/backend/copy_staged.h), so that these copies of
   * 36-80 MB and the 10M-entry operator go through the pinned chunks */
  TEST_CALL(gcoo_param_set("GCOO_STAGED_COPY_MIN_MB", "32"));
  if (gcoo_cuda_device_count() <= 0) {
    printf("t307-staged-copy: no GPU\n");
    return 77;
  }
  gcoo_ctx gpu = NULL;
  TEST_CALL(gcoo_ctx_create(&gpu, "cuda"));
  /* 2M rows of 36 bytes at pitches 44 and 52: whole rows per 8 MiB chunk, 9 chunks */
  round_trip(gpu, "float 2M x 9 row-major, host ld 11 -> 13", GCOO_FLOAT32, GCOO_ROW_MAJOR, 2000000,
             9, 11, 13);
  /* one row of 80 MB + 8 bytes: contiguous, a partial last chunk */
  round_trip(gpu, "double 1 x 10000001 (one contiguous row)", GCOO_FLOAT64, GCOO_ROW_MAJOR, 1,
             10000001, 10000001, 10000001);
  /* columns of 12 MB, more than a chunk: cudaMemcpy2DAsync */
  round_trip(gpu, "double 1.5M x 3 column-major, ld 1.6M", GCOO_FLOAT64, GCOO_COL_MAJOR, 1500000, 3,
             1600000, 1600000);
  /* below the staging threshold */
  round_trip(gpu, "float 1000 x 32 row-major (not staged)", GCOO_FLOAT32, GCOO_ROW_MAJOR, 1000, 32,
             32, 33);
  random_rows(gpu, GCOO_FLOAT32, GCOO_ROW_MAJOR, 100003, 32, 0);
  random_rows(gpu, GCOO_FLOAT64, GCOO_ROW_MAJOR, 5000, 7, 12345);
  random_rows(gpu, GCOO_FLOAT32, GCOO_COL_MAJOR, 3001, 5, 999);
  random_rows(gpu, GCOO_FLOAT64, GCOO_COL_MAJOR, 700, 3, 0);
  staged_operator(gpu, GCOO_FLOAT32);
  staged_operator(gpu, GCOO_FLOAT64);
  gcoo_ctx_destroy(&gpu);
  return gcoo_test_finish("t307-staged-copy");
}
