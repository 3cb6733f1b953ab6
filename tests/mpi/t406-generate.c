/* SPDX-License-Identifier: MIT */
/* tests/mpi/t406-generate.c: generated matrices do not depend on who makes them: each rank's
 * slab of rows equals the same rows of the whole matrix made by one call (bit for bit), for the
 * paper's random matrix, both Poisson stencils and random dense rows. Poisson matrices are
 * checked for their defining properties (symmetry, row sums, entry counts). */
#include "mpi_test.h"

static void same_rows(gcoo_sparse whole, gcoo_sparse slab, int64_t r0, const char *what) {
  gcoo_sparse_info si;
  MPI_TEST_CALL(gcoo_sparse_get_info(slab, &si));
  gcoo_sparse want = mpi_test_row_slab(whole, r0, r0 + si.nrows), got = NULL;
  MPI_TEST_CALL(gcoo_sparse_convert(&got, slab, GCOO_FORMAT_CSR, 0));
  gcoo_sparse_info wi, gi;
  gcoo_sparse_arrays wa, ga;
  MPI_TEST_CALL(gcoo_sparse_get_info(want, &wi));
  MPI_TEST_CALL(gcoo_sparse_get_info(got, &gi));
  MPI_TEST_CALL(gcoo_sparse_get_arrays(want, &wa));
  MPI_TEST_CALL(gcoo_sparse_get_arrays(got, &ga));
  int same = wi.nnz == gi.nnz && wi.ncols == gi.ncols && wi.nrows == gi.nrows &&
             !memcmp(wa.ptr, ga.ptr, sizeof(int64_t) * (size_t)(wi.nrows + 1)) &&
             (wi.nnz == 0 ||
              (!memcmp(wa.ind, ga.ind, sizeof(int32_t) * (size_t)wi.nnz) &&
               !memcmp(wa.values, ga.values, gcoo_dtype_size(wi.dtype) * (size_t)wi.nnz)));
  TEST_CHECK(same, "%s: rank %d rows [%lld, +%lld) differ from the whole matrix (nnz %lld vs %lld)",
             what, mpi_test_rank(), (long long)r0, (long long)wi.nrows, (long long)gi.nnz,
             (long long)wi.nnz);
  gcoo_sparse_destroy(&want);
  gcoo_sparse_destroy(&got);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int64_t r0, r1;
  for (int dt = 0; dt < 2; dt++) {
    /* the paper's random matrix, any format, any split */
    const int64_t m = 301, k = 157;
    gcoo_sparse whole = NULL, slab = NULL;
    MPI_TEST_CALL(gcoo_sparse_random(&whole, (gcoo_dtype)dt, GCOO_FORMAT_CSR, m, k, 0.93, 11, 0));
    for (int split = 0; split < SPLIT_COUNT; split++) {
      mpi_test_rows(split, m, 7, &r0, &r1);
      gcoo_format f = (gcoo_format)(split % 4);
      MPI_TEST_CALL(gcoo_sparse_random_rows(&slab, (gcoo_dtype)dt, f, m, k, 0.93, 11, 8, r0, r1));
      same_rows(whole, slab, r0, "random");
      gcoo_sparse_destroy(&slab);
    }
    gcoo_sparse_destroy(&whole);
    TEST_FAILS(gcoo_sparse_random_rows(&slab, GCOO_FLOAT64, GCOO_FORMAT_CSR, 10, 10, 0.5, 1, 0, 4,
                                       11),
               GCOO_ERR_INVALID_ARG, "row range [4, 11)");
    /* Poisson */
    for (int stencil = 7; stencil <= 27; stencil += 20) {
      const int64_t n = 7, N = n * n * n;
      MPI_TEST_CALL(
          gcoo_sparse_poisson3d_rows(&whole, (gcoo_dtype)dt, GCOO_FORMAT_CSR, stencil, n, 0, N, 0));
      gcoo_sparse_info wi;
      gcoo_sparse_arrays wa;
      MPI_TEST_CALL(gcoo_sparse_get_info(whole, &wi));
      MPI_TEST_CALL(gcoo_sparse_get_arrays(whole, &wa));
      /* nnz of the 7-point stencil: 7 N - 6 n^2; of the 27-point: (3n - 2)^3 */
      int64_t want = stencil == 7 ? 7 * N - 6 * n * n : (3 * n - 2) * (3 * n - 2) * (3 * n - 2);
      TEST_CHECK(wi.nnz == want, "%d-point nnz %lld, expected %lld", stencil, (long long)wi.nnz,
                 (long long)want);
      gcoo_sparse T = NULL;
      MPI_TEST_CALL(gcoo_sparse_transpose(&T, whole));
      gcoo_sparse_arrays ta;
      MPI_TEST_CALL(gcoo_sparse_get_arrays(T, &ta));
      TEST_CHECK(!memcmp(ta.ind, wa.ind, sizeof(int32_t) * (size_t)wi.nnz) &&
                     !memcmp(ta.values, wa.values, gcoo_dtype_size(wi.dtype) * (size_t)wi.nnz),
                 "%d-point matrix is symmetric", stencil);
      gcoo_sparse_destroy(&T);
      int64_t interior = (n / 2) * (1 + n + n * n);
      double s = 0;
      for (int64_t q = wa.ptr[interior]; q < wa.ptr[interior + 1]; q++)
        s += dt ? ((const double *)wa.values)[q] : ((const float *)wa.values)[q];
      TEST_CHECK(s == 0.0 && gcoo_poisson3d_row_nnz(stencil, n, interior) == stencil,
                 "interior row sums to %g with %lld entries", s,
                 (long long)gcoo_poisson3d_row_nnz(stencil, n, interior));
      TEST_CHECK(gcoo_poisson3d_row_nnz(stencil, n, 0) == (stencil == 7 ? 4 : 8),
                 "corner row has %lld entries", (long long)gcoo_poisson3d_row_nnz(stencil, n, 0));
      for (int split = 0; split < SPLIT_COUNT; split++) {
        mpi_test_rows(split, N, 5, &r0, &r1);
        MPI_TEST_CALL(gcoo_sparse_poisson3d_rows(&slab, (gcoo_dtype)dt, (gcoo_format)(split % 4),
                                                 stencil, n, r0, r1, 4));
        same_rows(whole, slab, r0, stencil == 7 ? "Poisson 7" : "Poisson 27");
        gcoo_sparse_destroy(&slab);
      }
      gcoo_sparse_destroy(&whole);
    }
    /* random dense rows */
    gcoo_dense W, P;
    MPI_TEST_CALL(gcoo_dense_create(&W, (gcoo_dtype)dt, GCOO_ROW_MAJOR, 40, 6));
    MPI_TEST_CALL(gcoo_dense_fill_random(&W, 5));
    mpi_test_rows(SPLIT_SKEW, 40, 3, &r0, &r1);
    MPI_TEST_CALL(gcoo_dense_create(&P, (gcoo_dtype)dt, GCOO_COL_MAJOR, r1 - r0, 6));
    MPI_TEST_CALL(gcoo_dense_fill_random_rows(&P, 5, r0));
    int same = 1;
    for (int64_t i = r0; i < r1; i++)
      for (int64_t j = 0; j < 6; j++)
        same &= gcoo_dense_get(&P, i - r0, j) == gcoo_dense_get(&W, i, j);
    TEST_CHECK(same, "dense rows [%lld, %lld) differ from the whole matrix", (long long)r0,
               (long long)r1);
    gcoo_dense_destroy(&W);
    gcoo_dense_destroy(&P);
  }
  gcoo_sparse A = NULL;
  TEST_FAILS(gcoo_sparse_poisson3d_rows(&A, GCOO_FLOAT64, GCOO_FORMAT_CSR, 9, 4, 0, 8, 0),
             GCOO_ERR_INVALID_ARG, "stencil 9");
  TEST_FAILS(gcoo_sparse_poisson3d_rows(&A, GCOO_FLOAT64, GCOO_FORMAT_CSR, 7, 2000, 0, 8, 0),
             GCOO_ERR_TOO_LARGE, "1290");
  return mpi_test_finish("t406-generate");
}
