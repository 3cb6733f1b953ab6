/* SPDX-License-Identifier: MIT */
/* tests/limits/t910-limits-nomem.c: allocations that fail for real. Run under a 1 GiB address
 * space limit (run_limited.sh; skipped when no limit is set), each case asks for 12-16 GiB in a
 * legitimate way: a 40000 x 40000 dense matrix, the row pointers of a 2^31 - 1 row CSR (from
 * Matrix Market, from COO, from the generator), the gIdxes of a GCOO with 2^31 - 1 groups.
 * Every one must return GCOO_ERR_NO_MEMORY with a message saying how much and for what, return
 * no object, and leave the library working: a small product is computed and checked after each. */
#include <math.h>
#include <sys/resource.h>

#include "limits_util.h"

/* Y = A X on a small problem, against the naive loop: the library still works. */
static void still_works(const char *after) {
  gcoo_sparse A = NULL;
  gcoo_dense X, Y, R;
  TEST_CALL(gcoo_sparse_random(&A, GCOO_FLOAT64, GCOO_FORMAT_CSR, 50, 40, 0.8, 5, 0));
  TEST_CALL(gcoo_dense_create(&X, GCOO_FLOAT64, GCOO_ROW_MAJOR, 40, 3));
  TEST_CALL(gcoo_dense_create(&Y, GCOO_FLOAT64, GCOO_ROW_MAJOR, 50, 3));
  TEST_CALL(gcoo_dense_create(&R, GCOO_FLOAT64, GCOO_ROW_MAJOR, 50, 3));
  TEST_CALL(gcoo_dense_fill_random(&X, 9));
  TEST_CALL(gcoo_dense_fill(&Y, NAN));
  gcoo_ctx ctx = NULL;
  TEST_CALL(gcoo_ctx_create(&ctx, "cpu"));
  TEST_CALL(gcoo_spdm(ctx, 1.0, A, &X, 0.0, &Y));
  gcoo_test_naive_spdm(1.0, A, &X, 0.0, &R);
  double err = gcoo_test_relerr(&Y, &R);
  TEST_CHECK(err <= gcoo_test_tolerance(GCOO_FLOAT64, 40), "after %s: relative error %.3g", after,
             err);
  gcoo_ctx_destroy(&ctx);
  gcoo_sparse_destroy(&A);
  gcoo_dense_destroy(&X);
  gcoo_dense_destroy(&Y);
  gcoo_dense_destroy(&R);
}

int main(void) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
      rl.rlim_cur > ((rlim_t)4 << 30)) {
    printf("t910-limits-nomem: skipped: run it under an address space limit of at most 4 GiB "
           "(tests/limits/run_limited.sh 1048576 %s)\n",
           "t910-limits-nomem");
    return GCOO_TEST_SKIP;
  }
  printf("address space limit %.2f GiB\n", (double)rl.rlim_cur / (1 << 30));
  gcoo_dense D;
  gcoo_sparse A = NULL, B = NULL;

  TEST_FAILS(gcoo_dense_create(&D, GCOO_FLOAT64, GCOO_ROW_MAJOR, 40000, 40000), GCOO_ERR_NO_MEMORY,
             "cannot allocate 1600000000 x 8 bytes for dense matrix");
  TEST_CHECK(D.data == NULL && !D.owned, "a failed dense allocation left data");
  still_works("a 12.8 GB dense matrix");

  const char *big = lim_file("big.mtx",
                             "%%MatrixMarket matrix coordinate real general\n"
                             "2147483647 3 2\n1 1 1.0\n2147483647 3 2.0\n",
                             -1);
  TEST_FAILS(gcoo_mtx_read(big, GCOO_FLOAT64, 0, &A), GCOO_ERR_NO_MEMORY,
             "cannot allocate 2147483649 x 8 bytes for row pointers");
  TEST_CHECK(A == NULL, "a failed read returned a matrix");
  TEST_FAILS(gcoo_mtx_read(big, GCOO_FLOAT32, GCOO_DUPLICATES_ERROR, &A), GCOO_ERR_NO_MEMORY,
             "bytes for row counts");
  still_works("a 2^31 - 1 row Matrix Market file");

  int32_t r[] = {0, INT32_MAX - 1}, c[] = {5, 2};
  TEST_CALL(gcoo_sparse_create_coo(&A, GCOO_FLOAT64, LIM_DIM, LIM_DIM, 2, r, c, NULL, 0));
  TEST_FAILS(gcoo_sparse_convert(&B, A, GCOO_FORMAT_CSR, 0), GCOO_ERR_NO_MEMORY,
             "cannot allocate 2147483648 x 8 bytes for rowptr");
  TEST_FAILS(gcoo_sparse_convert(&B, A, GCOO_FORMAT_CSC, 0), GCOO_ERR_NO_MEMORY, "colptr");
  TEST_FAILS(gcoo_sparse_convert(&B, A, GCOO_FORMAT_GCOO, 1), GCOO_ERR_NO_MEMORY, "gIdxes");
  TEST_CHECK(B == NULL, "a failed conversion returned a matrix");
  gcoo_sparse_destroy(&A);
  still_works("conversions of a 2^31 - 1 x 2^31 - 1 matrix");

  TEST_FAILS(gcoo_sparse_random(&A, GCOO_FLOAT32, GCOO_FORMAT_COO, LIM_DIM, 10, 0.999, 1, 0),
             GCOO_ERR_NO_MEMORY, "bytes for row counts");
  TEST_CHECK(A == NULL, "a failed generation returned a matrix");
  still_works("a 2^31 - 1 row random matrix");

  ut_tmpdir_remove();
  return gcoo_test_finish("t910-limits-nomem");
}
