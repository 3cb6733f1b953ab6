/* SPDX-License-Identifier: MIT */
/* tests/io/t412-h5-large.c: slabs of more than 2^31 bytes per rank (opt-in: configure with
 * -DGCOO_TEST_LARGE_IO=ON; needs about 4x GCOO_LARGE_BYTES of memory per rank and as much disk
 * in all).
 * Each rank writes GCOO_LARGE_BYTES (default 2.5 GiB) of a dense matrix, and a CSR matrix whose
 * values alone take GCOO_LARGE_BYTES (indices half as much), with the collective writers and reads its part back through the parallel readers, once in rounds of
 * the default size and once with GCOO_H5_CHUNK_BYTES = 8 GiB, so that single MPI-IO requests
 * exceed 2^31 bytes; every element is checked. The values are a closed-form function of the
 * global position, so nothing needs a second copy to compare with. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "io_util.h"

static int rank, size;
static char dir[512];

static double value_at(int64_t i, int64_t j) {
  return (double)((uint64_t)(i * 1315423911ll + j * 2654435761ll) % 1000003u) * 0.25;
}

static int64_t env_bytes(void) {
  const char *e = getenv("GCOO_LARGE_BYTES");
  return e && *e ? strtoll(e, NULL, 10) : (int64_t)5 << 29;
}

static void dense(const char *chunk_write, const char *chunk_read) {
  const int64_t n = 1024, mloc = env_bytes() / (n * 8), row0 = mloc * rank, m = mloc * size;
  char path[1024];
  snprintf(path, sizeof path, "%s/dense.h5:/Y", dir);
  gcoo_dense D, R;
  TEST_CALL(gcoo_dense_create(&D, GCOO_FLOAT64, GCOO_ROW_MAJOR, mloc, n));
  double *d = D.data;
  for (int64_t i = 0; i < mloc; i++)
    for (int64_t j = 0; j < n; j++) d[i * n + j] = value_at(row0 + i, j);
  if (chunk_write)
    TEST_CALL(gcoo_param_set("GCOO_H5_CHUNK_BYTES", chunk_write));
  else
    TEST_CALL(gcoo_param_set("GCOO_H5_CHUNK_BYTES", NULL));
  double t = MPI_Wtime();
  TEST_CALL(gcoo_h5_write_dense_rows(MPI_COMM_WORLD, path, m, row0, &D, 0));
  double tw = MPI_Wtime() - t;
  gcoo_dense_destroy(&D);
  if (chunk_read)
    TEST_CALL(gcoo_param_set("GCOO_H5_CHUNK_BYTES", chunk_read));
  else
    TEST_CALL(gcoo_param_set("GCOO_H5_CHUNK_BYTES", NULL));
  t = MPI_Wtime();
  TEST_CALL(
      gcoo_h5_read_dense_rows(MPI_COMM_WORLD, path, GCOO_FLOAT64, row0, mloc, GCOO_ROW_MAJOR, &R));
  double tr = MPI_Wtime() - t;
  int64_t bad = 0;
  const double *r = R.data;
  for (int64_t i = 0; i < mloc; i++)
    for (int64_t j = 0; j < n; j++) bad += r[i * n + j] != value_at(row0 + i, j);
  TEST_CHECK(bad == 0, "dense: %lld elements differ", (long long)bad);
  gcoo_dense_destroy(&R);
  if (rank == 0)
    printf("dense %lld x %lld (%.2f GiB per rank), rounds %s/%s: write %.1f s, read %.1f s\n",
           (long long)m, (long long)n, (double)(mloc * n * 8) / (1 << 30),
           chunk_write ? chunk_write : "default", chunk_read ? chunk_read : "default", tw, tr);
}

static void sparse(const char *chunk_write, const char *chunk_read) {
  const int64_t k = 64, n = 1 << 20, mloc = env_bytes() / (k * 8), row0 = mloc * rank;
  char path[1024];
  snprintf(path, sizeof path, "%s/csr.h5:/A", dir);
  int64_t nnz = mloc * k, *ptr = malloc(sizeof(int64_t) * (size_t)(mloc + 1));
  int32_t *ind = malloc(sizeof(int32_t) * (size_t)nnz);
  double *val = malloc(sizeof(double) * (size_t)nnz);
  TEST_CHECK(ptr && ind && val, "out of memory for %lld entries", (long long)nnz);
  for (int64_t i = 0; i <= mloc; i++) ptr[i] = i * k;
  for (int64_t i = 0; i < mloc; i++)
    for (int64_t t = 0; t < k; t++) {
      int64_t c = t * (n / k) + (row0 + i) % (n / k);
      ind[i * k + t] = (int32_t)c;
      val[i * k + t] = value_at(row0 + i, c) + 1.0;
    }
  gcoo_sparse S = NULL, B = NULL;
  TEST_CALL(gcoo_sparse_create_csr(&S, GCOO_FLOAT64, mloc, n, ptr, ind, val, 0));
  free(ptr), free(ind), free(val);
  if (chunk_write)
    TEST_CALL(gcoo_param_set("GCOO_H5_CHUNK_BYTES", chunk_write));
  else
    TEST_CALL(gcoo_param_set("GCOO_H5_CHUNK_BYTES", NULL));
  double t = MPI_Wtime();
  TEST_CALL(gcoo_h5_write_csr_rows(MPI_COMM_WORLD, path, mloc * size, row0, S, 0));
  double tw = MPI_Wtime() - t;
  if (chunk_read)
    TEST_CALL(gcoo_param_set("GCOO_H5_CHUNK_BYTES", chunk_read));
  else
    TEST_CALL(gcoo_param_set("GCOO_H5_CHUNK_BYTES", NULL));
  gcoo_h5_sparse_file f = NULL;
  t = MPI_Wtime();
  TEST_CALL(gcoo_h5_sparse_open(MPI_COMM_WORLD, path, &f));
  TEST_CALL(gcoo_h5_sparse_read_slab(f, GCOO_FLOAT64, row0, row0 + mloc, &B));
  double tr = MPI_Wtime() - t;
  TEST_CALL(gcoo_h5_sparse_close(&f));
  TEST_CHECK(io_compare_sparse(B, S, "large CSR slab") == 0, "sparse slab differs");
  gcoo_sparse_destroy(&S);
  gcoo_sparse_destroy(&B);
  if (rank == 0)
    printf("csr %lld x %lld, %lld entries (%.2f GiB per rank), rounds %s/%s: write %.1f s, read "
           "%.1f s\n",
           (long long)(mloc * size), (long long)n, (long long)(nnz * size),
           (double)(nnz * 12) / (1 << 30), chunk_write ? chunk_write : "default",
           chunk_read ? chunk_read : "default", tw, tr);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char base[64];
  snprintf(base, sizeof base, "t412_np%d", size);
  if (rank == 0) snprintf(dir, sizeof dir, "%s", io_make_dir(base));
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  const char *big = "8589934592"; /* 8 GiB: one request per dataset and rank */
  dense(NULL, big);
  dense(big, NULL);
  if (!getenv("GCOO_LARGE_DENSE_ONLY")) {
    sparse(NULL, big);
    sparse(big, NULL);
  }
  int failures = gcoo_test_failures, all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) io_remove_tree(dir);
  int rc = gcoo_test_finish("t412-h5-large");
  MPI_Finalize();
  return rc;
}
