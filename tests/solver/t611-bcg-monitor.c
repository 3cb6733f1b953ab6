/* SPDX-License-Identifier: MIT */
/* tests/solver/t611-bcg-monitor.c: the optional iteration monitor of gcoo_bcg_options (what
 * gcoo_dist solve shows as progress), any rank count, CPU backend:
 *   - called once per iteration, 0 (the initial residual) to result.iterations, in order, on
 *     every rank, with k and exactly the relative residuals the history records;
 *   - options made before the monitor existed (options.size without it) still work and call
 *     nothing; a NULL monitor calls nothing. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "gcoo_test.h"

enum { MAX_CALLS = 4096, K = 3 };

typedef struct seen {
  int64_t calls, next, k;
  double rel[MAX_CALLS][K];
  int in_order;
} seen;

static void monitor(void *ctx, int64_t iteration, int64_t k, const double *relres) {
  seen *s = ctx;
  if (iteration != s->next) s->in_order = 0;
  s->next = iteration + 1;
  s->k = k;
  if (s->calls < MAX_CALLS && k == K) memcpy(s->rel[s->calls], relres, sizeof s->rel[0]);
  s->calls++;
}

static gcoo_status solve(gcoo_dist_op op, const gcoo_bcg_options *o, gcoo_bcg_result *r) {
  int64_t row0, n;
  TEST_CALL(gcoo_dist_op_get_row_range(op, &row0, &n));
  gcoo_dense B, X;
  TEST_CALL(gcoo_dense_create(&B, GCOO_FLOAT64, GCOO_ROW_MAJOR, n, K));
  TEST_CALL(gcoo_dense_create(&X, GCOO_FLOAT64, GCOO_ROW_MAJOR, n, K));
  TEST_CALL(gcoo_dense_fill_random_rows(&B, 99, row0));
  gcoo_status st = gcoo_dist_bcg_solve(op, &B, &X, o, r);
  gcoo_dense_destroy(&B);
  gcoo_dense_destroy(&X);
  return st;
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  gcoo_dist d;
  TEST_CALL(gcoo_dist_create(&d, MPI_COMM_WORLD, "cpu"));
  const int64_t g = 8, m = g * g * g, r0 = m * rank / size, r1 = m * (rank + 1) / size;
  gcoo_sparse slab;
  TEST_CALL(gcoo_sparse_poisson3d_rows(&slab, GCOO_FLOAT64, GCOO_FORMAT_CSR, 7, g, r0, r1, 0));
  gcoo_dist_op_options oo = GCOO_DIST_OP_OPTIONS_INIT;
  oo.xmode = GCOO_DIST_X_PARTITIONED;
  gcoo_dist_op op;
  TEST_CALL(gcoo_dist_op_create(d, slab, r0, m, &oo, &op));
  gcoo_sparse_destroy(&slab);

  /* with a monitor and the history to compare it with */
  seen *s = calloc(1, sizeof *s);
  s->in_order = 1;
  gcoo_bcg_options o = GCOO_BCG_OPTIONS_INIT;
  o.rtol = 1e-10;
  o.record_history = 1;
  o.monitor = monitor;
  o.monitor_ctx = s;
  gcoo_bcg_result r;
  TEST_CALL(solve(op, &o, &r));
  TEST_CHECK(r.iterations > 3, "only %lld iterations", (long long)r.iterations);
  TEST_CHECK(s->calls == r.iterations + 1, "monitor called %lld times for %lld iterations",
             (long long)s->calls, (long long)r.iterations);
  TEST_CHECK(s->in_order, "iterations not reported 0, 1, 2, ... in order");
  TEST_CHECK(s->k == K, "monitor saw k = %lld", (long long)s->k);
  int64_t differ = 0;
  for (int64_t it = 0; it < s->calls && it <= r.iterations && it < MAX_CALLS; it++)
    for (int j = 0; j < K; j++)
      if (s->rel[it][j] != r.history[it * K + j]) differ++;
  TEST_CHECK(differ == 0, "%lld residuals differ from the history", (long long)differ);
  TEST_CHECK(s->rel[0][0] == 1.0, "initial relative residual %g (X0 = 0: 1)", s->rel[0][0]);
  const int64_t its = r.iterations;
  gcoo_bcg_result_free(&r);

  /* options without the monitor fields (made against the older header): nothing is called */
  memset(s, 0, sizeof *s);
  o.size = offsetof(gcoo_bcg_options, monitor);
  TEST_CALL(solve(op, &o, &r));
  TEST_CHECK(s->calls == 0 && r.iterations == its, "old-size options: %lld calls, %lld iterations",
             (long long)s->calls, (long long)r.iterations);
  gcoo_bcg_result_free(&r);
  o.size = sizeof o;
  o.monitor = NULL;
  TEST_CALL(solve(op, &o, &r));
  TEST_CHECK(s->calls == 0, "NULL monitor: %lld calls", (long long)s->calls);
  gcoo_bcg_result_free(&r);

  free(s);
  TEST_CALL(gcoo_dist_op_destroy(&op));
  TEST_CALL(gcoo_dist_destroy(&d));
  int failures = gcoo_test_failures, all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  gcoo_test_failures = all;
  int rc = gcoo_test_finish(rank == 0 ? "t611-bcg-monitor" : "t611-bcg-monitor (other rank)");
  MPI_Finalize();
  return rc;
}
