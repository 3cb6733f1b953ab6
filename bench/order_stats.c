/* SPDX-License-Identifier: MIT */
/* bench/order_stats.c: on the CPU, how much of X a block of consecutive rows could share, in A's
 * row order, the tensor-core window order and reverse Cuthill-McKee (bench/spdm_order.c):
 *
 *   order_stats FILE.mtx[.gz] ...
 *
 * For each matrix and blocks of 8, 16 and 32 rows (the direct kernel's 8 and 32, the tensor-core
 * window's 16): reuse = nnz / (distinct columns summed over the blocks). An exact kernel whose
 * block holds those rows gathers at most nnz / reuse X rows from L2 if its L1 keeps every row the
 * block touches; 1.0 means no two rows of a block share a column. Also the time each order takes
 * to compute here. No GPU needed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spdm_order.h"

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE.mtx[.gz] ...\n", argv[0]);
    return 2;
  }
  static const int heights[] = {8, 16, 32};
  static const bench_order kinds[] = {BENCH_ORDER_NATURAL, BENCH_ORDER_WINDOW, BENCH_ORDER_RCM};
  printf("reuse = nnz / distinct columns summed over blocks of 8 | 16 | 32 consecutive rows\n");
  printf("%-24s %9s %9s | %-20s | %-20s | %-20s | order ms: win rcm\n", "matrix", "rows", "nnz",
         "A's order", "window order", "RCM");
  int rc = 0; /* 1: a file could not be read */
  for (int f = 1; f < argc; f++) {
    gcoo_sparse A = NULL;
    gcoo_sparse_info ai;
    if (gcoo_mtx_read(argv[f], GCOO_FLOAT32, 0, &A) < 0 || gcoo_sparse_get_info(A, &ai) < 0) {
      fprintf(stderr, "%s: %s\n", argv[f], gcoo_last_error());
      rc = 1;
      continue;
    }
    const char *base = strrchr(argv[f], '/');
    char name[64];
    snprintf(name, sizeof name, "%s", base ? base + 1 : argv[f]);
    char *dot = strstr(name, ".mtx");
    if (dot) *dot = '\0';
    int32_t *order = malloc((size_t)(ai.nrows > 0 ? ai.nrows : 1) * sizeof *order);
    printf("%-24.24s %9lld %9lld |", name, (long long)ai.nrows, (long long)ai.nnz);
    double ms[3] = {-1, -1, -1};
    for (int k = 0; k < 3; k++) {
      /* an order that does not apply (RCM of a rectangular matrix) prints as "-" */
      double reuse[3] = {-1, -1, -1};
      const double t0 = gcoo__wtime();
      gcoo_status st = order ? bench_row_order(A, kinds[k], order) : GCOO_ERR_NO_MEMORY;
      ms[k] = 1e3 * (gcoo__wtime() - t0);
      for (int h = 0; h < 3 && st >= 0; h++)
        st = bench_block_reuse(A, order, heights[h], &reuse[h]);
      if (st < 0) {
        fprintf(stderr, "%s, %s order: %s\n", name, bench_order_name(kinds[k]), gcoo_last_error());
        printf(" %5s  %5s  %5s |", "-", "-", "-");
        ms[k] = -1;
      } else {
        printf(" %5.2f  %5.2f  %5.2f |", reuse[0], reuse[1], reuse[2]);
      }
    }
    for (int k = 1; k < 3; k++)
      if (ms[k] >= 0)
        printf(" %6.1f", ms[k]);
      else
        printf(" %6s", "-");
    printf("\n");
    free(order);
    gcoo_sparse_destroy(&A);
  }
  return rc;
}
