/* SPDX-License-Identifier: MIT */
/* tests/mpi/t407-dist-move.c: the two ways dist/ moves a sparse matrix between ranks, tested
 * without files: rank 0's matrix scattered in CSR slabs (the Matrix Market path), and entries
 * held anywhere sent to the owners of their rows (the path for file layouts whose major
 * dimension is not rows of A). Each rank's result must equal its rows of the whole matrix bit
 * for bit; units wider than the matrix leave ranks empty. */
#include "dist_impl.h"
#include "mpi_test.h"

static void same_as_rows(gcoo_sparse whole, gcoo_sparse slab, int64_t r0, const char *what) {
  gcoo_sparse_info si, wi;
  gcoo_sparse_arrays sa, wa;
  MPI_TEST_CALL(gcoo_sparse_get_info(slab, &si));
  gcoo_sparse want = mpi_test_row_slab(whole, r0, r0 + si.nrows);
  MPI_TEST_CALL(gcoo_sparse_get_info(want, &wi));
  MPI_TEST_CALL(gcoo_sparse_get_arrays(slab, &sa));
  MPI_TEST_CALL(gcoo_sparse_get_arrays(want, &wa));
  int same = si.format == GCOO_FORMAT_CSR && si.nnz == wi.nnz && si.ncols == wi.ncols &&
             !memcmp(sa.ptr, wa.ptr, sizeof(int64_t) * (size_t)(si.nrows + 1)) &&
             (si.nnz == 0 ||
              (!memcmp(sa.ind, wa.ind, sizeof(int32_t) * (size_t)si.nnz) &&
               !memcmp(sa.values, wa.values, gcoo_dtype_size(si.dtype) * (size_t)si.nnz)));
  TEST_CHECK(same, "%s: rank %d rows [%lld, +%lld): nnz %lld, expected %lld", what, mpi_test_rank(),
             (long long)r0, (long long)si.nrows, (long long)si.nnz, (long long)wi.nnz);
  gcoo_sparse_destroy(&want);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = mpi_test_rank(), size = mpi_test_size();
  gcoo_dist d = NULL;
  MPI_TEST_CALL(gcoo_dist_create(&d, MPI_COMM_WORLD, "cpu"));
  for (int dt = 0; dt < 2; dt++) {
    const int64_t shapes[3][3] = {{83, 61, 4}, {10, 10, 32}, {0, 5, 4}}; /* m, k, p */
    for (int s = 0; s < 3; s++) {
      const int64_t m = shapes[s][0], k = shapes[s][1], p = shapes[s][2];
      gcoo_sparse whole = NULL, slab = NULL;
      MPI_TEST_CALL(
          gcoo_sparse_random(&whole, (gcoo_dtype)dt, GCOO_FORMAT_CSR, m, k, 0.9, 3 + s, 0));
      /* 1. scatter from rank 0 */
      int64_t dims[2] = {-1, -1}, row0 = -1;
      MPI_TEST_CALL(gcoo__dist_scatter_csr(d, rank == 0 ? whole : NULL, (gcoo_dtype)dt, p, dims,
                                           &row0, &slab));
      TEST_CHECK(dims[0] == m && dims[1] == k, "scatter dims %lld x %lld", (long long)dims[0],
                 (long long)dims[1]);
      TEST_CHECK(row0 % p == 0 || row0 == m, "slab starts at row %lld, not a multiple of p = %lld",
                 (long long)row0, (long long)p);
      same_as_rows(whole, slab, row0, "scatter");
      int64_t n = 0, total = 0;
      gcoo_sparse_info si;
      MPI_TEST_CALL(gcoo_sparse_get_info(slab, &si));
      n = si.nrows;
      MPI_Allreduce(&n, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
      TEST_CHECK(total == m, "slabs cover %lld of %lld rows", (long long)total, (long long)m);
      gcoo_sparse_destroy(&slab);

      /* 2. redistribution: rank r starts with every size-th entry (a scatter of entries that
       *    ignores rows), and must end with its rows under a skewed row split */
      gcoo_sparse coo = NULL;
      gcoo_sparse_arrays a;
      gcoo_sparse_info wi;
      MPI_TEST_CALL(gcoo_sparse_convert(&coo, whole, GCOO_FORMAT_COO, 0));
      MPI_TEST_CALL(gcoo_sparse_get_info(coo, &wi));
      MPI_TEST_CALL(gcoo_sparse_get_arrays(coo, &a));
      const size_t es = gcoo_dtype_size((gcoo_dtype)dt);
      int32_t *rr = malloc(sizeof(int32_t) * (size_t)(wi.nnz + 1));
      int32_t *cc = malloc(sizeof(int32_t) * (size_t)(wi.nnz + 1));
      char *vv = malloc(es * (size_t)(wi.nnz + 1));
      int64_t mine = 0;
      for (int64_t e = wi.nnz - 1; e >= 0; e--) /* reversed: arrival order must not matter */
        if (e % size == rank) {
          rr[mine] = a.rows[e];
          cc[mine] = a.cols[e];
          memcpy(vv + (size_t)mine * es, (const char *)a.values + (size_t)e * es, es);
          mine++;
        }
      int64_t *row_begin = malloc(sizeof(int64_t) * (size_t)(size + 1));
      for (int r = 0; r <= size; r++) {
        int64_t r0, r1;
        /* the split mpi_test_rows would give rank r */
        int64_t ng = m, wsum = 0, wb = 0;
        for (int q = 0; q < size; q++) {
          if (q < r) wb += 2 * q + 1;
          wsum += 2 * q + 1;
        }
        r0 = ng * wb / wsum;
        (void)r1;
        row_begin[r] = r0;
      }
      row_begin[size] = m;
      MPI_TEST_CALL(
          gcoo__dist_redistribute(d, row_begin, k, (gcoo_dtype)dt, mine, rr, cc, vv, &slab));
      same_as_rows(whole, slab, row_begin[rank], "redistribute");
      gcoo_sparse_destroy(&slab);
      free(rr);
      free(cc);
      free(vv);
      free(row_begin);
      gcoo_sparse_destroy(&coo);
      gcoo_sparse_destroy(&whole);
    }
  }
  /* a failure on rank 0 (no matrix to scatter) reaches every rank */
  int64_t dims[2], row0;
  gcoo_sparse slab = NULL;
  gcoo_status st = gcoo__dist_scatter_csr(d, NULL, GCOO_FLOAT64, 4, dims, &row0, &slab);
  if (rank == 0)
    TEST_CHECK(st == GCOO_ERR_NULL || st == GCOO_ERR_INVALID_OBJECT, "scatter of nothing: %s",
               gcoo_status_name(st));
  else
    TEST_FAILS(st, GCOO_ERR_REMOTE, "rank 0: ");
  MPI_TEST_CALL(gcoo_dist_destroy(&d));
  return mpi_test_finish("t407-dist-move");
}
