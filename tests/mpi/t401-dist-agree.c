/* SPDX-License-Identifier: MIT */
/* tests/mpi/t401-dist-agree.c: gcoo_dist_agree: a failure on one rank (or several) makes every
 * rank return an error, the others GCOO_ERR_REMOTE with the lowest failing rank's message
 * ("rank R: ..."), and nobody hangs (ctest timeout 30 s). Success and information statuses pass
 * through unchanged. */
#include "mpi_test.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = mpi_test_rank(), size = mpi_test_size();
  gcoo_dist d = NULL;
  MPI_TEST_CALL(gcoo_dist_create(&d, MPI_COMM_WORLD, "cpu"));
  TEST_CHECK(gcoo_dist_rank(d) == rank && gcoo_dist_size(d) == size, "rank %d of %d",
             gcoo_dist_rank(d), gcoo_dist_size(d));
  int cmp;
  MPI_Comm_compare(gcoo_dist_comm(d), MPI_COMM_WORLD, &cmp);
  TEST_CHECK(cmp == MPI_CONGRUENT, "the context's communicator is a duplicate (%d)", cmp);

  /* nothing failed */
  TEST_CHECK(gcoo_dist_agree(d, GCOO_SUCCESS) == GCOO_SUCCESS, "success stays success");
  gcoo_status info = rank == 0 ? GCOO_INFO_NOT_CONVERGED : GCOO_SUCCESS;
  TEST_CHECK(gcoo_dist_agree(d, info) == info, "information statuses pass through");

  /* the last rank fails with a real error */
  const int bad = size - 1;
  gcoo_partition part;
  gcoo_status st = rank == bad ? gcoo_partition_balanced(NULL, -5, 2, &part) : GCOO_SUCCESS;
  st = gcoo_dist_agree(d, st);
  char want[64];
  snprintf(want, sizeof want, "rank %d: ", bad);
  if (rank == bad) {
    TEST_FAILS(st, GCOO_ERR_INVALID_ARG, "negative unit count -5");
  } else {
    TEST_FAILS(st, GCOO_ERR_REMOTE, want);
    TEST_CHECK(strstr(gcoo_last_error(), "negative unit count -5") != NULL,
               "the remote message carries the cause: %s", gcoo_last_error());
  }
  /* every odd rank fails with its own error: the lowest one's message is broadcast */
  gcoo_clear_error();
  st = rank % 2 == 1 ? gcoo_partition_balanced(NULL, 3, -rank, &part) : GCOO_SUCCESS;
  st = gcoo_dist_agree(d, st);
  if (size == 1) {
    TEST_CHECK(st == GCOO_SUCCESS, "no odd rank on one rank");
  } else if (rank % 2 == 1) {
    char mine[64];
    snprintf(mine, sizeof mine, "rank count %d", -rank);
    TEST_FAILS(st, GCOO_ERR_INVALID_ARG, mine); /* a failing rank keeps its own message */
  } else {
    TEST_FAILS(st, GCOO_ERR_REMOTE, "rank 1: ");
    TEST_CHECK(strstr(gcoo_last_error(), "rank count -1") != NULL, "message: %s",
               gcoo_last_error());
  }
  /* the context still works after errors */
  TEST_CHECK(gcoo_dist_agree(d, GCOO_SUCCESS) == GCOO_SUCCESS, "agreement after errors");
  TEST_FAILS(gcoo_dist_agree(NULL, GCOO_SUCCESS), GCOO_ERR_NULL, "NULL");
  MPI_TEST_CALL(gcoo_dist_destroy(&d));
  TEST_CHECK(d == NULL, "destroy resets the handle");
  return mpi_test_finish("t401-dist-agree");
}
