/* SPDX-License-Identifier: MIT */
/* src/spgemm_rows.h: what the predictor and the CPU SpGEMM share about one row of C = A B:
 * its FLOP and exact bounds (one pass over A), and the open-addressing hash table that counts
 * or accumulates its distinct columns. Private to src/. */
#ifndef GCOO_SPGEMM_ROWS_H
#define GCOO_SPGEMM_ROWS_H

#include <stdlib.h>
#include <string.h>

#include "backend_impl.h"

/* The widest B (columns) whose rows of C a thread accumulates densely (src/spgemm_cpu_impl.h):
 * 12 bytes a column a thread, 48 MB at the limit; wider products hash their rows. */
#define GCOO_SPGEMM_DENSE_MAX_COLS ((int64_t)1 << 22)

/* Fibonacci hashing: multiply by 2^32 / golden ratio and keep the top bits. Consecutive column
 * indices (the common case: banded and mesh rows) land far apart, unlike (col * 107) & mask,
 * which puts columns that differ by a multiple of the table size on one slot. */
static inline uint32_t gcoo__col_hash(int32_t col, int bits) {
  return ((uint32_t)col * 2654435769u) >> (32 - bits);
}

/* log2 of the table for a row that may hold up to `ub` distinct columns: the smallest power of
 * two >= 2 ub (load factor <= 1/2, so a probe sequence is short), at least 16 slots. */
static inline int gcoo__table_bits(int64_t ub) {
  int bits = 4;
  while (bits < 31 && ((int64_t)1 << bits) < 2 * ub) bits++;
  return bits;
}

/* A hash table reused row after row without clearing: a slot holds (stamp << 32) | column and
 * is empty for the current row unless its stamp is the row's. Clearing a table sized for the
 * row's upper bound would cost O(bound) per row, far more than the row's NNZ when C compresses
 * well (bcsstk33^2: bound 4800, NNZ 294); stamps make a row cost O(its FLOP) only. */
typedef struct gcoo_row_table {
  uint64_t *slot;
  int bits_max;
  uint32_t stamp;
} gcoo_row_table;

static inline int gcoo__row_table_init(gcoo_row_table *t, int bits_max) {
  t->bits_max = bits_max;
  t->stamp = 0;
  t->slot = calloc((size_t)1 << bits_max, sizeof *t->slot); /* stamp 0: never a row's */
  return t->slot != NULL;
}

/* The stamp of the next row (clearing the table once every 2^32 - 1 rows). */
static inline uint64_t gcoo__row_table_next(gcoo_row_table *t) {
  if (++t->stamp == 0) {
    memset(t->slot, 0, ((size_t)1 << t->bits_max) * sizeof *t->slot);
    t->stamp = 1;
  }
  return (uint64_t)t->stamp << 32;
}

/* Number of distinct columns of row i of A B, in a table of 2^bits <= 2^bits_max slots. */
static inline int64_t gcoo__row_count(const gcoo_csr_view *A, const gcoo_csr_view *B, int64_t i,
                                      gcoo_row_table *t, int bits) {
  const uint32_t mask = (1u << bits) - 1u;
  const uint64_t tag = gcoo__row_table_next(t);
  uint64_t *slot = t->slot;
  int64_t n = 0;
  for (int64_t a = A->ptr[i]; a < A->ptr[i + 1]; a++) {
    const int32_t k = A->ind[a];
    for (int64_t b = B->ptr[k]; b < B->ptr[k + 1]; b++) {
      const int32_t col = B->ind[b];
      const uint64_t key = tag | (uint32_t)col;
      uint32_t h = gcoo__col_hash(col, bits);
      for (;;) {
        const uint64_t s = slot[h];
        if (s == key) break;
        if ((s >> 32) != (tag >> 32)) {
          slot[h] = key;
          n++;
          break;
        }
        h = (h + 1) & mask;
      }
    }
  }
  return n;
}

/* Per-row FLOP and bounds of C = A B, and their totals. lo/hi may be NULL. */
typedef struct gcoo_row_bounds {
  int64_t flop_total, lo_total, hi_total;
  int64_t flop_max; /* largest flop(i) */
  int64_t hi_max;   /* largest hi(i): sizes hash tables */
} gcoo_row_bounds;

/* One pass over A (reads B's row pointers only): flop(i), lo(i) = max nnz(B row k) and
 * hi(i) = min(flop(i), N). OpenMP over rows. Not collective. */
gcoo_status gcoo__row_flop_bounds(const gcoo_csr_view *A, const gcoo_csr_view *B, int64_t *flop,
                                  int32_t *lo, int32_t *hi, gcoo_row_bounds *tot);

/* CSR views of A and B for C = A B, converting to CSR when needed (*Acsr and *Bcsr then own the
 * copies; destroy them after use). Checks the inner dimensions. */
gcoo_status gcoo__spgemm_operands(gcoo_sparse A, gcoo_sparse B, gcoo_sparse *Acsr,
                                  gcoo_sparse *Bcsr, gcoo_csr_view *va, gcoo_csr_view *vb);

#endif
