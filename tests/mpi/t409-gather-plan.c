/* SPDX-License-Identifier: MIT */
/* tests/mpi/t409-gather-plan.c: the plan of the device gather (gcoo__gather_plan: which rows
 * each rank sends to and receives from whom, in chunks) executed with MPI point-to-point on host
 * buffers, exactly as the NCCL path executes it with ncclSend/ncclRecv in one group: each posted
 * transfer moves the planned rows, the receiving rank's own slab is a local copy. The result must
 * be bit for bit the matrix a single rank holds, for uneven and empty slabs, roots first / last /
 * all, whole slabs and chunks of 1, 2, 3 and 7 rows. Also checks the plan's bookkeeping (every
 * row received exactly once, sends and receives of each pair in the same chunks) and the chunk
 * size from GCOO_GATHER_CHUNK_MB. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "dist_impl.h"
#include "mpi_test.h"

static double value(int64_t i, int64_t j) { return (double)(i * 1000 + j) + 0.5; }

static void run(int split, int root, int64_t m, int64_t w, int64_t chunk) {
  const int rank = mpi_test_rank(), size = mpi_test_size();
  int64_t r0, r1;
  mpi_test_rows(split, m, 2, &r0, &r1);
  int64_t *rows = malloc(sizeof *rows * (size_t)size), mine = r1 - r0;
  MPI_Allgather(&mine, 1, MPI_INT64_T, rows, 1, MPI_INT64_T, MPI_COMM_WORLD);
  double *slab = malloc(sizeof(double) * (size_t)(mine * w + 1));
  for (int64_t i = 0; i < mine; i++)
    for (int64_t j = 0; j < w; j++) slab[i * w + j] = value(r0 + i, j);
  const int recv = root < 0 || root == rank;
  double *full = malloc(sizeof(double) * (size_t)(m * w + 1));
  for (int64_t t = 0; t < m * w; t++) full[t] = -1.0; /* poison */

  gcoo__gather_xfer *plan = NULL;
  int64_t n = 0;
  MPI_TEST_CALL(gcoo__gather_plan(rank, size, root, rows, chunk, &plan, &n));
  MPI_Request *req = malloc(sizeof *req * (size_t)(n + 1));
  int nreq = 0;
  int64_t received = 0;
  for (int64_t k = 0; k < n; k++) {
    const gcoo__gather_xfer *x = &plan[k];
    TEST_CHECK(x->nrows > 0 && (chunk <= 0 || x->peer == rank || x->nrows <= chunk),
               "plan entry %lld: %lld rows (chunk %lld)", (long long)k, (long long)x->nrows,
               (long long)chunk);
    if (x->peer == rank) { /* own slab: the local copy (a side-stream copy on the GPU) */
      TEST_CHECK(!x->send && x->row == r0 && x->nrows == mine, "own-slab entry %lld rows at %lld",
                 (long long)x->nrows, (long long)x->row);
      memcpy(full + r0 * w, slab, sizeof(double) * (size_t)(mine * w));
      received += x->nrows;
    } else if (x->send) {
      MPI_Isend(slab + x->row * w, (int)(x->nrows * w), MPI_DOUBLE, x->peer, 7, MPI_COMM_WORLD,
                &req[nreq++]);
    } else {
      MPI_Irecv(full + x->row * w, (int)(x->nrows * w), MPI_DOUBLE, x->peer, 7, MPI_COMM_WORLD,
                &req[nreq++]);
      received += x->nrows;
    }
  }
  MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
  TEST_CHECK(received == (recv ? m : 0), "rank %d receives %lld rows of %lld", rank,
             (long long)received, (long long)m);
  if (recv) {
    int bad = 0;
    for (int64_t i = 0; i < m && !bad; i++)
      for (int64_t j = 0; j < w && !bad; j++)
        if (full[i * w + j] != value(i, j)) {
          bad = 1;
          TEST_CHECK(0, "split %s root %d m %lld chunk %lld: (%lld, %lld) = %g, expected %g",
                     split_names[split], root, (long long)m, (long long)chunk, (long long)i,
                     (long long)j, full[i * w + j], value(i, j));
        }
  }
  free(plan);
  free(req);
  free(full);
  free(slab);
  free(rows);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int size = mpi_test_size();
  const int roots[3] = {0, size - 1, -1};
  const int64_t chunks[5] = {0, 1, 2, 3, 7};
  for (int split = 0; split < SPLIT_COUNT; split++)
    for (int ri = 0; ri < 3; ri++)
      for (int c = 0; c < 5; c++) {
        run(split, roots[ri], 29, 3, chunks[c]);
        run(split, roots[ri], 2, 2, chunks[c]); /* more ranks than rows */
        run(split, roots[ri], 0, 2, chunks[c]); /* nothing at all */
      }
  /* bad arguments are errors, not crashes */
  gcoo__gather_xfer *plan = NULL;
  int64_t n = 0, rows[1] = {3};
  TEST_FAILS(gcoo__gather_plan(0, 1, 1, rows, 0, &plan, &n), GCOO_ERR_INVALID_ARG, "root");
  rows[0] = -1;
  TEST_FAILS(gcoo__gather_plan(0, 1, 0, rows, 0, &plan, &n), GCOO_ERR_INVALID_ARG, "-1 rows");
  /* the chunk size option: MiB over the row's bytes, at least one row, 0 = whole slabs */
  TEST_CALL(gcoo_param_set("GCOO_GATHER_CHUNK_MB", "1"));
  TEST_CHECK(gcoo__gather_chunk_rows(1024) == 1024, "1 MiB of 1 KiB rows: %lld",
             (long long)gcoo__gather_chunk_rows(1024));
  TEST_CHECK(gcoo__gather_chunk_rows(4u << 20) == 1, "a row larger than a chunk: %lld",
             (long long)gcoo__gather_chunk_rows(4u << 20));
  TEST_CALL(gcoo_param_set("GCOO_GATHER_CHUNK_MB", "0"));
  TEST_CHECK(gcoo__gather_chunk_rows(1024) == 0, "0: whole slabs");
  TEST_CALL(gcoo_param_set("GCOO_GATHER_CHUNK_MB", NULL));
  TEST_CHECK(gcoo__gather_chunk_rows(1024) == 0, "unset: whole slabs");
  return mpi_test_finish("t409-gather-plan");
}
