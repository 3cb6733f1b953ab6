/* SPDX-License-Identifier: MIT */
/* bench/spdm_order.h: row orders for the benchmark's "reordered" section (bench/spdm_order.c). */
#ifndef GCOO_SPDM_ORDER_H
#define GCOO_SPDM_ORDER_H

#include "backend_impl.h"
#include "gcoo/gcoo.h"
#include "common/gcoo_kernels.h"

typedef enum bench_order {
  BENCH_ORDER_NATURAL = 0, /* A's own order */
  BENCH_ORDER_WINDOW,      /* the tensor-core mode's windows of 16 rows (kernels/spdm/tc_order.c) */
  BENCH_ORDER_RCM          /* reverse Cuthill-McKee of A + A^T (square A) */
} bench_order;

/** "A", "win", "rcm": the prefix of a reordered case's name. */
const char *bench_order_name(bench_order kind);
/** order[r]: the row of the CSR matrix A placed r-th (m entries, caller's memory). */
gcoo_status bench_row_order(gcoo_sparse A, bench_order kind, int32_t *order);
/** nnz / (distinct columns summed over blocks of `rows` consecutive rows, taken in `order`;
 *  NULL: A's): how often a block's X row could serve two of its entries. */
gcoo_status bench_block_reuse(gcoo_sparse A, const int32_t *order, int rows, double *reuse);

#endif
