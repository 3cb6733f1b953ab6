/* SPDX-License-Identifier: MIT */
/* dist/partition.c: contiguous ranges of major units (rows, or GCOO groups) balanced by entries.
 *
 * The cost of unit i is its entry count plus one (the "+1" stands for the work every row or
 * group costs even when empty: writing its output), so a matrix with empty rows still spreads
 * them. With prefix cost P(b) = (ptr[b] - ptr[0]) + b, the boundary before rank r is the unit
 * b whose P(b) is closest to r * P(n) / nranks, found by binary search: O(nranks log n), no
 * allocation of the n costs, and every rank computes the same split from the same ptr. The
 * largest rank exceeds the ideal share by at most one unit's cost. */
#include <stdlib.h>

#include "backend_impl.h"
#include "gcoo/dist.h"

static inline double prefix(const int64_t *ptr, int64_t b) {
  return ptr ? (double)(ptr[b] - ptr[0]) + (double)b : (double)b;
}

void gcoo_partition_free(gcoo_partition *part) {
  if (!part) return;
  free(part->begin);
  free(part->nnz);
  part->begin = part->nnz = NULL;
  part->nranks = 0;
}

gcoo_status gcoo_partition_balanced(const int64_t *ptr, int64_t n, int nranks,
                                    gcoo_partition *part) {
  gcoo_status st = GCOO_SUCCESS;
  GCOO_CHECK(part != NULL, GCOO_ERR_NULL, "partition is NULL");
  part->begin = part->nnz = NULL;
  part->nranks = 0;
  part->imbalance = 1.0;
  GCOO_CHECK(n >= 0, GCOO_ERR_INVALID_ARG, "negative unit count %lld", (long long)n);
  GCOO_CHECK(nranks >= 1, GCOO_ERR_INVALID_ARG, "rank count %d < 1", nranks);
  if (ptr) {
    for (int64_t i = 0; i < n; i++)
      GCOO_CHECK(ptr[i + 1] >= ptr[i], GCOO_ERR_FORMAT,
                 "offsets decrease at unit %lld (%lld > %lld)", (long long)i, (long long)ptr[i],
                 (long long)ptr[i + 1]);
  }
  GCOO_GOTO(gcoo__calloc((void **)&part->begin, (size_t)nranks + 1, sizeof(int64_t), "partition"));
  GCOO_GOTO(gcoo__calloc((void **)&part->nnz, (size_t)nranks, sizeof(int64_t), "partition"));
  part->nranks = nranks;
  const double total = prefix(ptr, n);
  part->begin[0] = 0;
  part->begin[nranks] = n;
  for (int r = 1; r < nranks; r++) {
    const double target = total * (double)r / (double)nranks;
    /* smallest b in [lo, n] with prefix(b) >= target */
    int64_t lo = part->begin[r - 1], hi = n;
    while (lo < hi) {
      int64_t mid = lo + (hi - lo) / 2;
      if (prefix(ptr, mid) >= target)
        hi = mid;
      else
        lo = mid + 1;
    }
    int64_t b = lo;
    /* the boundary one unit earlier may be closer to the target */
    if (b > part->begin[r - 1] && target - prefix(ptr, b - 1) < prefix(ptr, b) - target) b--;
    part->begin[r] = b;
  }
  int64_t sum = 0, max = 0;
  for (int r = 0; r < nranks; r++) {
    int64_t b = part->begin[r], e = part->begin[r + 1];
    part->nnz[r] = ptr ? ptr[e] - ptr[b] : e - b;
    sum += part->nnz[r];
    if (part->nnz[r] > max) max = part->nnz[r];
  }
  part->imbalance = sum > 0 ? (double)max / ((double)sum / nranks) : 1.0;
done:
  if (st < 0) gcoo_partition_free(part);
  return st;
}
