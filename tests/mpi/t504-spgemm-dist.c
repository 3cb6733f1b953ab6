/* SPDX-License-Identifier: MIT */
/* tests/mpi/t504-spgemm-dist.c: distributed C = A B on the CPU backend at any rank count: every
 * rank's slab and the gathered C against the CPU SpGEMM on rank 0 (same pattern, values within
 * gcoo_test_tolerance), for random products in float and double, a power-law product, more
 * ranks than rows, an empty matrix, 1 x 1, Matrix Market and HDF5 files, and bad input, which
 * must fail on every rank with the same status. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gcoo/dist.h"
#include "spgemm_check.h"

static int rank_ = 0;

/* A and B exist on every rank (same seed); only rank 0's are passed. */
static void check(gcoo_dist d, gcoo_sparse A, gcoo_sparse B, const char *what) {
  gcoo_sparse slab = NULL, C = NULL;
  gcoo_dist_spgemm_info info;
  TEST_CALL(gcoo_dist_spgemm(d, rank_ == 0 ? A : NULL, rank_ == 0 ? B : NULL, NULL, &slab, &info));
  gcoo_sparse_info si, ai, bi;
  TEST_CALL(gcoo_sparse_get_info(slab, &si));
  TEST_CALL(gcoo_sparse_get_info(A, &ai));
  TEST_CALL(gcoo_sparse_get_info(B, &bi));
  TEST_CHECK(si.nrows == info.nrows_local && si.ncols == bi.ncols && si.nnz == info.nnz_local,
             "%s: slab %lld x %lld (%lld entries), info says %lld rows, %lld entries", what,
             (long long)si.nrows, (long long)si.ncols, (long long)si.nnz,
             (long long)info.nrows_local, (long long)info.nnz_local);
  TEST_CHECK(info.m == ai.nrows && info.k == ai.ncols && info.n == bi.ncols, "%s: shape in info",
             what);
  /* this rank's slab against the same rows computed locally */
  {
    gcoo_sparse Ar = NULL, Cr = NULL;
    gcoo_sparse Ac = spgemm_check_csr(A);
    gcoo_sparse_arrays a;
    TEST_CALL(gcoo_sparse_get_arrays(Ac, &a));
    const int64_t r0 = info.row0, nr = info.nrows_local, p0 = a.ptr[r0];
    int64_t *ptr = malloc((size_t)(nr + 1) * sizeof *ptr);
    for (int64_t i = 0; i <= nr; i++) ptr[i] = a.ptr[r0 + i] - p0;
    const size_t es = gcoo_dtype_size(ai.dtype);
    TEST_CALL(gcoo_sparse_create_csr(&Ar, ai.dtype, nr, ai.ncols, ptr, a.ind + p0,
                                     (const char *)a.values + (size_t)p0 * es, 0));
    const double err = spgemm_check(Ar, B, slab, what);
    TEST_CHECK(err <= gcoo_test_tolerance(ai.dtype, ai.ncols),
               "%s: rank %d slab rows %lld..%lld: "
               "relative error %.3e",
               what, rank_, (long long)r0, (long long)(r0 + nr), err);
    free(ptr);
    gcoo_sparse_destroy(&Ar);
    gcoo_sparse_destroy(&Cr);
    gcoo_sparse_destroy(&Ac);
  }
  /* gathered on the last rank, against the whole product */
  const int root = gcoo_dist_size(d) - 1;
  TEST_CALL(gcoo_dist_spgemm_gather(d, slab, root, &C));
  if (rank_ == root) {
    const double err = spgemm_check(A, B, C, what);
    TEST_CHECK(err <= gcoo_test_tolerance(ai.dtype, ai.ncols), "%s: gathered C: error %.3e", what,
               err);
    TEST_CHECK(info.nnz == spgemm_check_nnz(A, B, NULL), "%s: info.nnz %lld", what,
               (long long)info.nnz);
  } else {
    TEST_CHECK(C == NULL, "%s: C on a rank that is not the root", what);
  }
  gcoo_sparse_destroy(&slab);
  gcoo_sparse_destroy(&C);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  gcoo_dist d = NULL;
  TEST_CALL(gcoo_dist_create(&d, MPI_COMM_WORLD, "cpu"));
  rank_ = gcoo_dist_rank(d);
  const int nranks = gcoo_dist_size(d);

  const int64_t shapes[][3] = {{1, 1, 1}, {3, 5, 4}, {400, 300, 350}, {2500, 2000, 2200}};
  const double spars[] = {0.0, 0.3, 0.97, 0.997};
  for (int s = 0; s < 4; s++)
    for (int dt = 0; dt < 2; dt++) {
      gcoo_sparse A = NULL, B = NULL;
      char what[96];
      TEST_CALL(gcoo_sparse_random(&A, (gcoo_dtype)dt, GCOO_FORMAT_CSR, shapes[s][0], shapes[s][1],
                                   spars[s], 700 + s, 0));
      TEST_CALL(gcoo_sparse_random(&B, (gcoo_dtype)dt, GCOO_FORMAT_CSR, shapes[s][1], shapes[s][2],
                                   spars[s], 800 + s, 0));
      snprintf(what, sizeof what, "random %lldx%lldx%lld %s on %d ranks", (long long)shapes[s][0],
               (long long)shapes[s][1], (long long)shapes[s][2], dt ? "double" : "float", nranks);
      check(d, A, B, what);
      gcoo_sparse_destroy(&A);
      gcoo_sparse_destroy(&B);
    }
  {
    gcoo_sparse P = spgemm_check_powerlaw(GCOO_FLOAT64, 6000, 6000, 6, 21);
    gcoo_sparse L = spgemm_check_laplacian(GCOO_FLOAT32, 70, 60);
    check(d, P, P, "powerlaw^2");
    check(d, L, L, "laplacian^2");
    gcoo_sparse_destroy(&P);
    gcoo_sparse_destroy(&L);
  }
  /* empty matrix, and 2 rows for up to 4 ranks */
  {
    gcoo_sparse E = NULL, F = NULL, G = NULL;
    TEST_CALL(gcoo_sparse_create_coo(&E, GCOO_FLOAT64, 5, 6, 0, NULL, NULL, NULL, 0));
    TEST_CALL(gcoo_sparse_create_coo(&F, GCOO_FLOAT64, 6, 3, 0, NULL, NULL, NULL, 0));
    check(d, E, F, "empty");
    const int32_t r[] = {0, 1, 1}, c[] = {1, 0, 2};
    TEST_CALL(gcoo_sparse_create_coo(&G, GCOO_FLOAT64, 2, 3, 3, r, c, NULL, 0));
    gcoo_sparse_destroy(&F);
    TEST_CALL(gcoo_sparse_random(&F, GCOO_FLOAT64, GCOO_FORMAT_CSR, 3, 4, 0.2, 3, 0));
    check(d, G, F, "2 rows");
    gcoo_sparse_destroy(&E);
    gcoo_sparse_destroy(&F);
    gcoo_sparse_destroy(&G);
  }
  /* files: a Matrix Market file (rank 0 reads); an HDF5 CSR file (every rank reads its slab) */
  {
    gcoo_sparse A = NULL, slab = NULL, C = NULL;
    char mtx[256], h5[256];
    snprintf(mtx, sizeof mtx, "t504-%d.mtx", (int)getppid());
    snprintf(h5, sizeof h5, "t504-%d.h5", (int)getppid());
    TEST_CALL(gcoo_sparse_random(&A, GCOO_FLOAT64, GCOO_FORMAT_CSR, 500, 500, 0.99, 31, 0));
    if (rank_ == 0) TEST_CALL(gcoo_mtx_write(mtx, A));
#if GCOO_HAVE_HDF5
    if (rank_ == 0 && !getenv("GCOO_TEST_SKIP_H5")) TEST_CALL(gcoo_h5_write_sparse(h5, A, 0));
#endif
    MPI_Barrier(MPI_COMM_WORLD);
    const char *paths[2] = {mtx, h5};
    const int nfiles = GCOO_HAVE_HDF5 && !getenv("GCOO_TEST_SKIP_H5") ? 2 : 1;
    for (int f = 0; f < nfiles; f++) {
      gcoo_dist_spgemm_info info;
      TEST_CALL(gcoo_dist_spgemm_files(d, paths[f], NULL, GCOO_FLOAT64, NULL, &slab, &info));
      TEST_CALL(gcoo_dist_spgemm_gather(d, slab, 0, &C));
      if (rank_ == 0) {
        const double err = spgemm_check(A, A, C, paths[f]);
        TEST_CHECK(err <= 1e-13, "%s: gathered C: error %.3e", paths[f], err);
      }
      gcoo_sparse_destroy(&slab);
      gcoo_sparse_destroy(&C);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank_ == 0) {
      unlink(mtx);
      unlink(h5);
    }
    gcoo_sparse_destroy(&A);
  }
  /* bad input: the same error on every rank, with rank 0's message */
  {
    gcoo_sparse A = NULL, B = NULL, slab = NULL;
    TEST_CALL(gcoo_sparse_random(&A, GCOO_FLOAT64, GCOO_FORMAT_CSR, 10, 7, 0.5, 1, 0));
    TEST_CALL(gcoo_sparse_random(&B, GCOO_FLOAT64, GCOO_FORMAT_CSR, 8, 9, 0.5, 2, 0));
    gcoo_status st = gcoo_dist_spgemm(d, rank_ == 0 ? A : NULL, rank_ == 0 ? B : NULL, NULL, &slab,
                                      NULL);
    TEST_CHECK(st == GCOO_ERR_SHAPE || (rank_ != 0 && st < 0), "shape mismatch: rank %d got %s",
               rank_, gcoo_status_name(st));
    if (rank_ == 0) TEST_FAILS(st, GCOO_ERR_SHAPE, "inner dimensions");
    TEST_CHECK(slab == NULL, "slab set after a failure");
    st = gcoo_dist_spgemm_files(d, "no-such-file.mtx", NULL, GCOO_FLOAT64, NULL, &slab, NULL);
    TEST_CHECK(st < 0, "a missing file: rank %d got %s", rank_, gcoo_status_name(st));
    gcoo_sparse_destroy(&A);
    gcoo_sparse_destroy(&B);
  }
  TEST_CALL(gcoo_dist_destroy(&d));
  int failures = gcoo_test_failures, total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  gcoo_test_failures = total;
  const int rc = rank_ == 0 ? gcoo_test_finish("t504-spgemm-dist") : (total ? 1 : 0);
  MPI_Finalize();
  return rc;
}
