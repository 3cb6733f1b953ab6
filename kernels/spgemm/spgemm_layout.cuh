// SPDX-License-Identifier: MIT
// kernels/spgemm/spgemm_layout.cuh: C's layout: the rows the passes wrote into their buffers,
// compacted into one CSR in row order.
#ifndef GCOO_KERNELS_SPGEMM_LAYOUT_CUH
#define GCOO_KERNELS_SPGEMM_LAYOUT_CUH

#include "spgemm_state.cuh"

namespace gcoo_spg {

// ---- layout -----------------------------------------------------------------------------------

template <typename T>
struct bufs {
  const int32_t *ci[3];
  const T *cv[3];
};

// Lay rows [r0, r0 + n) out as CSR. A block takes kCompactEntries consecutive entries of C (so
// a long row is spread over many blocks and short rows do not leave lanes idle) and finds the
// rows they belong to once: when they are at most kCompactRows, their pointers go to shared
// memory, every non-empty row that starts inside the block marks its first entry (head), and
// each warp walks its slice of the entries 32 at a time, an entry's row being the last head at
// or before it (a max-scan over the warp, carried from round to round; the slice's first row by
// one binary search). A binary search per entry instead takes the 2-D Laplacian's layout to
// 0.39 ms for 29.2M entries, twice its bytes' time (ncu, H200). With more rows than
// that (empty or one-entry rows) each entry searches rowptr itself. An entry is copied from the
// pass buffer that holds its row; C is written contiguously, 32 consecutive entries a warp.
// Nothing is written when *guard (the pass's overflow count) is not 0: then the sizes are not
// final and C may be smaller than they say. A warp finds the rows of kCompactUnroll rounds and
// loads their entries before it stores any: with one round's loads in flight at a time the
// layout of the 2-D Laplacian ran at 2 TB/s of the H200's 4.3 (ncu s6, 0.356 ms for 29.2M
// entries in double), each warp waiting out an L2 miss per 32 entries.
constexpr int kCompactRows = 1024, kCompactEntries = 4096, kCompactThreads = 256;
constexpr int kCompactUnroll = 4;
static_assert(kCompactEntries / (kCompactThreads / 32) % (32 * kCompactUnroll) == 0,
              "a warp's slice is whole groups of rounds");
static_assert(kCompactRows <= 32767, "a row of the block fits a head (int16)");

// The largest r in [lo, hi] with p[r] <= q (p nondecreasing, p[lo] <= q).
__device__ __forceinline__ int64_t last_le(const int64_t *p, int64_t lo, int64_t hi, int64_t q) {
  while (lo < hi) {
    const int64_t mid = (lo + hi + 1) >> 1;
    if (p[mid] <= q)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

// The entry at position `from` of pass buffer `id`.
template <typename T>
__device__ __forceinline__ void load_entry(const bufs<T> &b, int id, int64_t from, int32_t &col,
                                           T &val) {
  const int32_t *si = id == 0 ? b.ci[0] : id == 1 ? b.ci[1] : b.ci[2];
  const T *sv = id == 0 ? b.cv[0] : id == 1 ? b.cv[1] : b.cv[2];
  col = si[from];
  val = sv[from];
}

template <typename T>
__global__ void __launch_bounds__(kCompactThreads)
    compact_rows(int64_t r0, int64_t n, const int64_t *__restrict__ rowptr, rows_state rs,
                 bufs<T> b, const unsigned long long *guard, int32_t *__restrict__ ci,
                 T *__restrict__ cv) {
  constexpr int kSlice = kCompactEntries / (kCompactThreads / 32); // entries a warp
  __shared__ int64_t sp[kCompactRows + 1], sbase[kCompactRows];    // start; off - start
  __shared__ uint8_t sid[kCompactRows];
  __shared__ int16_t head[kCompactEntries]; // the row (of the block's) starting here, or -1
  __shared__ int64_t first, last;
  if (*guard != 0 || n == 0) return;
  const int64_t total = rowptr[n], q0 = (int64_t)blockIdx.x * kCompactEntries;
  if (q0 >= total) return;
  const int64_t q1 = q0 + kCompactEntries < total ? q0 + kCompactEntries : total;
  if (threadIdx.x == 0) {
    first = last_le(rowptr, 0, n - 1, q0); // the row holding q0 (the last one starting there)
    last = last_le(rowptr, first, n - 1, q1 - 1);
  }
  __syncthreads();
  const int64_t f = first, nrows = last - first + 1;
  if (nrows > kCompactRows) { // uniform over the block
    for (int64_t q = q0 + threadIdx.x; q < q1; q += kCompactThreads) {
      const int64_t r = last_le(rowptr, f, last, q);
      load_entry(b, rs.src[r0 + r], rs.off[r0 + r] + (q - rowptr[r]), ci[q], cv[q]);
    }
    return;
  }
  for (int i = threadIdx.x; i <= nrows; i += kCompactThreads) sp[i] = rowptr[f + i];
  for (int i = threadIdx.x; i < nrows; i += kCompactThreads) {
    sbase[i] = rs.off[r0 + f + i] - rowptr[f + i];
    sid[i] = rs.src[r0 + f + i];
  }
  for (int j = threadIdx.x; j < kCompactEntries; j += kCompactThreads) head[j] = -1;
  __syncthreads();
  for (int i = threadIdx.x; i < nrows; i += kCompactThreads) {
    const int64_t s0 = sp[i]; // < q1: row i <= last starts at or before q1 - 1
    if (s0 >= q0 && sp[i + 1] > s0) head[s0 - q0] = (int16_t)i; // non-empty: one row a start
  }
  __syncthreads();
  const int lane = threadIdx.x % 32;
  const int64_t w0 = q0 + (int64_t)(threadIdx.x / 32) * kSlice;
  const int64_t w1 = w0 + kSlice < q1 ? w0 + kSlice : q1;
  if (w0 >= w1) return;                         // uniform over the warp
  int row = (int)last_le(sp, 0, nrows - 1, w0); // the row holding the slice's first entry
  for (int64_t qb = w0; qb < w1; qb += 32 * kCompactUnroll) { // uniform over the warp
    int hs[kCompactUnroll];
#pragma unroll
    for (int u = 0; u < kCompactUnroll; u++) { // the rows of the rounds' entries
      const int64_t q = qb + 32 * u + lane;
      int h = q < w1 ? head[q - q0] : -1;
      h = h > row ? h : row;
      for (int o = 1; o < 32; o <<= 1) {
        const int y = __shfl_up_sync(kFull, h, o);
        if (lane >= o) h = y > h ? y : h;
      }
      row = __shfl_sync(kFull, h, 31);
      hs[u] = h;
    }
    int32_t col[kCompactUnroll];
    T val[kCompactUnroll];
#pragma unroll
    for (int u = 0; u < kCompactUnroll; u++) { // every load first
      const int64_t q = qb + 32 * u + lane;
      if (q < w1) load_entry(b, sid[hs[u]], sbase[hs[u]] + q, col[u], val[u]);
    }
#pragma unroll
    for (int u = 0; u < kCompactUnroll; u++) {
      const int64_t q = qb + 32 * u + lane;
      if (q < w1) {
        ci[q] = col[u];
        cv[q] = val[u];
      }
    }
  }
}

} // namespace gcoo_spg

#endif
