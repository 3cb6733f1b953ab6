/* SPDX-License-Identifier: MIT */
/* tests/mpi/mpi_test.h: what the distributed tests share: MPI start and finish, checks that
 * abort the whole job instead of leaving ranks waiting, and the row ranges tests give ranks. */
#ifndef GCOO_MPI_TEST_H
#define GCOO_MPI_TEST_H

#include <math.h>
#include <mpi.h>
#include <string.h>

#include "gcoo_test.h"

/** A gcoo call that must succeed on this rank; on failure the whole job stops (a lone exit
 *  would leave the other ranks waiting in a collective until the ctest timeout). */
#define MPI_TEST_CALL(x)                                                                      \
  do {                                                                                        \
    gcoo_status s_ = (x);                                                                     \
    if (s_ < 0) {                                                                             \
      int r_ = 0;                                                                             \
      MPI_Comm_rank(MPI_COMM_WORLD, &r_);                                                     \
      fprintf(stderr, "FAIL rank %d %s:%d: %s returned %s: %s\n", r_, __FILE__, __LINE__, #x, \
              gcoo_status_name(s_), gcoo_last_error());                                       \
      fflush(stderr);                                                                         \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                           \
    }                                                                                         \
  } while (0)

static inline int mpi_test_rank(void) {
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

static inline int mpi_test_size(void) {
  int s;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

/** Every rank returns 1 when any rank counted a failed check. */
static inline int mpi_test_finish(const char *name) {
  int mine = gcoo_test_failures, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (mine) fprintf(stderr, "%s: rank %d: %d check(s) FAILED\n", name, mpi_test_rank(), mine);
  if (!all && mpi_test_rank() == 0)
    printf("%s: all checks passed on %d ranks\n", name, mpi_test_size());
  MPI_Finalize();
  return all ? 1 : 0;
}

/** How tests split m rows (in whole groups of p rows) over the ranks:
 *   SPLIT_EVEN   balanced by rows;
 *   SPLIT_SKEW   rank r gets a share proportional to 2r + 1 (uneven group counts);
 *   SPLIT_LAST   every row on the last rank (all others empty);
 *   SPLIT_FIRST  every row on rank 0. */
enum { SPLIT_EVEN, SPLIT_SKEW, SPLIT_LAST, SPLIT_FIRST, SPLIT_COUNT };
__attribute__((unused)) static const char *split_names[] = {"even", "skew", "last", "first"};

static inline void mpi_test_rows(int split, int64_t m, int64_t p, int64_t *r0, int64_t *r1) {
  const int rank = mpi_test_rank(), size = mpi_test_size();
  const int64_t ng = (m + p - 1) / p;
  int64_t wsum = 0, wbefore = 0;
  for (int r = 0; r < size; r++) {
    int64_t w = split == SPLIT_EVEN   ? 1
                : split == SPLIT_SKEW ? 2 * r + 1
                : split == SPLIT_LAST ? (r == size - 1)
                                      : (r == 0);
    if (r < rank) wbefore += w;
    wsum += w;
  }
  int64_t w = split == SPLIT_EVEN   ? 1
              : split == SPLIT_SKEW ? 2 * rank + 1
              : split == SPLIT_LAST ? (rank == size - 1)
                                    : (rank == 0);
  int64_t g0 = ng * wbefore / wsum, g1 = ng * (wbefore + w) / wsum;
  *r0 = g0 * p < m ? g0 * p : m;
  *r1 = g1 * p < m ? g1 * p : m;
}

/** Rows [r0, r1) of a CSR matrix as a new CSR matrix (rows renumbered from 0). */
static inline gcoo_sparse mpi_test_row_slab(gcoo_sparse A, int64_t r0, int64_t r1) {
  gcoo_sparse csr = NULL, out = NULL;
  gcoo_sparse_info ai;
  gcoo_sparse_arrays a;
  MPI_TEST_CALL(gcoo_sparse_convert(&csr, A, GCOO_FORMAT_CSR, 0));
  MPI_TEST_CALL(gcoo_sparse_get_info(csr, &ai));
  MPI_TEST_CALL(gcoo_sparse_get_arrays(csr, &a));
  int64_t *ptr = malloc(sizeof(int64_t) * (size_t)(r1 - r0 + 1));
  for (int64_t i = r0; i <= r1; i++) ptr[i - r0] = a.ptr[i] - a.ptr[r0];
  size_t es = gcoo_dtype_size(ai.dtype);
  MPI_TEST_CALL(gcoo_sparse_create_csr(&out, ai.dtype, r1 - r0, ai.ncols, ptr, a.ind + a.ptr[r0],
                                       (const char *)a.values + (size_t)a.ptr[r0] * es, 0));
  free(ptr);
  gcoo_sparse_destroy(&csr);
  return out;
}

/** The context tests share (one per test program). */
static gcoo_dist gcoo_test_dist __attribute__((unused));

#endif
