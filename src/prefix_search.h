/* SPDX-License-Identifier: MIT */
/* src/prefix_search.h: the segment of a prefix sum holding a value (the row of a CSR entry), for host
 * and device code. */
#ifndef GCOO_SRC_PREFIX_SEARCH_H
#define GCOO_SRC_PREFIX_SEARCH_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- searching a prefix sum ----------------------------------------------------------------- */
/** The i in [0, n) with off[i] <= x < off[i + 1], for nondecreasing off[0..n] with off[0] <= x <
 *  off[n] (binary search; empty segments are skipped): the row of entry x of a CSR matrix with
 *  row pointer off, or the bucket of x in a prefix sum. Host and device code. */
static inline GCOO_HOST_DEVICE int64_t gcoo__segment_of(const int64_t *off, int64_t n, int64_t x) {
  int64_t lo = 0, hi = n; /* off[lo] <= x < off[hi] */
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (off[mid] <= x)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

#ifdef __cplusplus
}
#endif
#endif
