// SPDX-License-Identifier: MIT
// kernels/spgemm/spgemm_state.cuh: what every phase of the SpGEMM's device code shares: the
// per-row state of a product, the predictor's class sums, what a pass reads and writes, the
// hash insertion, the bitonic sort and the ranks that order a row's keys without a sort
// (spgemm_kernels.cuh describes the whole).
#ifndef GCOO_KERNELS_SPGEMM_STATE_CUH
#define GCOO_KERNELS_SPGEMM_STATE_CUH

#include <climits>
#include <cstdint>

#include "common/cuda_compat.h"
#include "predict_classes.h"

namespace gcoo_spg {

constexpr uint32_t kFull = 0xffffffffu;

// Fibonacci hashing (as on the CPU): the top `bits` bits of col * 2^32 / phi.
__device__ __forceinline__ uint32_t slot_of(int32_t col, int bits) {
  return ((uint32_t)col * 2654435769u) >> (32 - bits);
}

// Per-row state of a product (arrays of m entries, device memory).
struct rows_state {
  int32_t *hi;   // min(flop(i), n): no row can be larger
  int32_t *lo;   // max nnz(B row k) over k in row i of A: no row can be smaller
  int32_t *room; // entries reserved for the row in its pass
  int32_t *z;    // exact size once computed; -1 while unknown after an abort
  int64_t *off;  // where its room starts in its pass's buffer
  uint8_t *src;  // which buffer holds it (kSrc*)
  int32_t *cmin; // first column the row can have (min over k of B row k's first column)
  int32_t *w;    // last possible column - cmin + 1 (B's rows are sorted, as gcoo's CSR always is)
};
constexpr uint8_t kSrcNone = 255;

// Per-class counts of the predictor (src/predict_classes.h has the CPU's same arithmetic).
constexpr int kClasses = GCOO_PREDICT_CLASSES_COUNT; // by floor(log2 hi(i)), src/predict_classes.h

struct class_stats {
  unsigned long long rows[kClasses];   // rows with hi > lo
  unsigned long long g[kClasses];      // sum of hi - lo over them
  unsigned long long s_rows[kClasses]; // sampled rows
  unsigned long long s_g[kClasses];    // sum of hi - lo over the sampled rows
  unsigned long long s_dz[kClasses];   // sum of z - lo over the sampled rows
  unsigned int s_umax[kClasses];       // largest (z - lo) / (hi - lo) sampled, fixed point 2^30
  unsigned long long flop, sum_lo, sum_hi;
  unsigned long long hi_max; // the largest hi(i): at most 31 lets the in-place pass take them all
};

__device__ __forceinline__ int class_of(int32_t hi) { return gcoo__class_of(hi); }

// The sample pass's rows add their exact size to their class's sums as they are written (what
// the CPU's CLASSES method sums over its sampled rows; integer sums and a max, so the order of
// the atomics does not change them). S: class_stats (device memory) or class_sums (a block's, in
// shared memory).
template <typename S>
__device__ __forceinline__ void sample_note(S *cs, const rows_state &rs, int32_t row, int32_t z) {
  if (!cs) return;
  const int32_t hi = rs.hi[row], lo = rs.lo[row];
  const int c = class_of(hi);
  atomicAdd(&cs->s_rows[c], 1ull);
  atomicAdd(&cs->s_g[c], (unsigned long long)(hi - lo));
  atomicAdd(&cs->s_dz[c], (unsigned long long)(z - lo));
  atomicMax(&cs->s_umax[c], gcoo__class_ufix(z, lo, hi));
}

// A block's share of the sample's class sums (the warp bins and the first bin, whose blocks
// take many rows): gathered in shared memory and added to the product's once a block. Added
// row by row, every sampled row of one class hit the same four words of device memory: the
// 2-D Laplacian's 45k sampled rows, all of one class, made the sample's pass ~100 us for a
// fiftieth of the main pass's rows (ncu, H200).
struct class_sums {
  unsigned long long s_rows[kClasses], s_g[kClasses], s_dz[kClasses];
  unsigned int s_umax[kClasses];
};
__device__ __forceinline__ void class_sums_zero(class_sums *a) {
  for (int c = threadIdx.x; c < kClasses; c += blockDim.x) {
    a->s_rows[c] = a->s_g[c] = a->s_dz[c] = 0;
    a->s_umax[c] = 0;
  }
}
__device__ __forceinline__ void class_sums_add(const class_sums *a, class_stats *cs) {
  for (int c = threadIdx.x; c < kClasses; c += blockDim.x)
    if (a->s_rows[c] > 0) {
      atomicAdd(&cs->s_rows[c], a->s_rows[c]);
      atomicAdd(&cs->s_g[c], a->s_g[c]);
      atomicAdd(&cs->s_dz[c], a->s_dz[c]);
      atomicMax(&cs->s_umax[c], a->s_umax[c]);
    }
}

// What a pass writes.
template <typename T>
struct pass_out {
  int32_t *ci; // the pass's buffer
  T *cv;
  uint8_t buf_id;
  int32_t *ovf_rows; // rows that did not fit their room
  unsigned long long *ovf_count;
  int32_t *gkeys; // global bin: tables
  T *gvals;
  const int64_t *tab_off; // global bin: table of row i at tab_off[i] (by row)
  class_stats *cs;        // the sample pass: its rows' sizes summed per class (else NULL)
};

struct csr_in {
  const int64_t *Ap;
  const int32_t *Ai;
  const int64_t *Bp;
  const int32_t *Bi;
};

// ---- insertion ------------------------------------------------------------------------------

// Insert (col, v) into a table of 2^bits slots: 1 when this call created the key, 0 when it was
// there, -1 when every slot is taken by other keys (cannot happen within a bin's margin; a
// guard so that a broken bound shows up as an overflowed row, never as a hang).
template <typename T>
__device__ __forceinline__ int hash_add(int32_t *keys, T *vals, int bits, int32_t col, T v) {
  const uint32_t mask = (1u << bits) - 1u;
  uint32_t h = slot_of(col, bits);
  for (uint32_t probe = 0; probe <= mask; probe++) {
    const int32_t key = keys[h];
    if (key == col) {
      atomicAdd(&vals[h], v);
      return 0;
    }
    if (key == -1) {
      const int32_t old = atomicCAS(&keys[h], -1, col);
      if (old == -1 || old == col) {
        atomicAdd(&vals[h], v);
        return old == -1;
      }
    }
    h = (h + 1) & mask;
  }
  return -1;
}

// ---- sorting ---------------------------------------------------------------------------------

// Bitonic sort of keys/vals[0, P) (P a power of two) by the block's `nthreads` threads (tid
// among them): the global bin's tables, and a block bin's whose buckets' counters do not fit.
template <typename T>
__device__ void bitonic_sort(int32_t *keys, T *vals, int64_t P, int tid, int nthreads) {
  for (int64_t k = 2; k <= P; k <<= 1)
    for (int64_t j = k >> 1; j > 0; j >>= 1) {
      for (int64_t i = tid; i < P; i += nthreads) {
        const int64_t ixj = i ^ j;
        if (ixj > i) {
          const int32_t ki = keys[i], kj = keys[ixj];
          if ((ki > kj) == ((i & k) == 0)) {
            keys[i] = kj;
            keys[ixj] = ki;
            const T tv = vals[i];
            vals[i] = vals[ixj];
            vals[ixj] = tv;
          }
        }
      }
      __syncthreads();
    }
}

// ---- ranking a row's keys ------------------------------------------------------------------

// Rank z > 32 distinct keys of a warp's table by counting (the 64-slot bin's rows, and a larger
// bin's whose buckets' counters do not fit; 1.08x faster in geomean than a bitonic network):
// lane l holds entries l, l + 32, ... in registers (K = TS / 32 at
// most), reads every key once from shared memory (a broadcast: no bank conflicts) and counts the
// smaller ones; entry s goes straight to its rank. z x ceil(z / 32) compares a lane.
template <typename T, int TS>
__device__ __forceinline__ void warp_count_write(const int32_t *keys, const T *vals, int z,
                                                 int lane, int32_t *ci, T *cv) {
  constexpr int K = TS / 32;
  int32_t k[K];
  int r[K];
#pragma unroll
  for (int j = 0; j < K; j++) {
    const int s = lane + 32 * j;
    k[j] = s < z ? keys[s] : INT_MAX;
    r[j] = 0;
  }
  for (int e = 0; e < z; e++) {
    const int32_t ke = keys[e];
#pragma unroll
    for (int j = 0; j < K; j++) {
      if (32 * j >= z) break; // uniform: registers past the row's entries are not compared
      r[j] += ke < k[j];
    }
  }
#pragma unroll
  for (int j = 0; j < K; j++) {
    const int s = lane + 32 * j;
    if (s < z) {
      ci[r[j]] = k[j];
      cv[r[j]] = vals[s];
    }
  }
}

// Rank z distinct keys held densely in keys[0, z) (their values in vals[0, z)) by NT threads
// (tid among them: a warp, WARP, synchronised by __syncwarp, or the block) and write them in
// column order at oci/ocv, with no sort: each key goes to one of NB buckets by its column's
// place in the row's span [c0, c0 + w) (bucket b = floor((col - c0) NB / w), monotone in the
// column, so a bucket's keys all precede the next bucket's), a shared counter per bucket gives
// each key its place within its bucket's run, a scan of the counts places the runs, and a key's
// rank is its run's start plus the keys of its run that are smaller. For z keys spread over
// the span that is ~z / NB compares a key, against z for the counting ranks (random 400k x 16:
// ~250 entries a row, whose counting ranks were 81 % of the 512-slot warp bin's instructions,
// and whose block bin spent ~80 % in its bitonic network: ncu source counters, s5). Keys that
// crowd into one bucket cost at most what the counting ranks cost. The NB + 1 counters live in
// the table's last slots, past the z entries (bucket_rank_fits); each thread holds at most J
// keys. Scratch for a block: wsum[NT / 32].
// A barrier over the threads of a warp-wide (WARP) or block-wide group.
template <bool WARP>
__device__ __forceinline__ void group_sync() {
  if constexpr (WARP)
    __syncwarp();
  else
    __syncthreads();
}

template <int NB, int NT, int J>
__device__ __forceinline__ bool bucket_rank_fits(int z, int64_t S) {
  return z + NB + 1 <= S && z <= NT * J;
}
template <typename T, int NB, int NT, int J, bool WARP>
__device__ __forceinline__ void bucket_rank_write(int32_t *keys, const T *vals, int z, int S,
                                                  int32_t c0, int32_t w, int tid, int32_t *oci,
                                                  T *ocv, int *wsum) {
  static_assert(NB % NT == 0 || NT % NB == 0, "buckets and threads");
  static_assert(NB < (1 << 15), "bucket fits the packed word");
  constexpr int PER = NB >= NT ? NB / NT : 1; // counters scanned by a thread
  int32_t *bc = keys + (S - NB - 1);          // NB counters, then their total
  // bucket = (col - c0) mul / 2^32 = floor((col - c0) NB / w) for w > NB, col - c0 otherwise
  const uint32_t mul = w > NB ? (uint32_t)(((unsigned long long)NB << 32) / (unsigned long long)w)
                              : 0u;
  int32_t k[J];
  int pk[J]; // bucket << 16 | place in its run
#pragma unroll
  for (int i = 0; i < J; i++) {
    const int e = tid + NT * i;
    k[i] = e < z ? keys[e] : INT_MAX;
  }
  for (int b = tid; b < NB; b += NT) bc[b] = 0;
  group_sync<WARP>();
#pragma unroll
  for (int i = 0; i < J; i++) {
    pk[i] = 0;
    if (tid + NT * i < z) {
      const int32_t x = k[i] - c0 > 0 ? k[i] - c0 : 0;
      uint32_t b = w > NB ? (uint32_t)(((unsigned long long)(uint32_t)x * mul) >> 32) : (uint32_t)x;
      b = b < (uint32_t)NB ? b : (uint32_t)NB - 1u;
      pk[i] = (int)(b << 16) | atomicAdd(&bc[b], 1);
    }
  }
  group_sync<WARP>();
  { // exclusive scan of the counters: thread tid scans counters tid PER .. tid PER + PER - 1
    int c[PER], sum = 0;
#pragma unroll
    for (int q = 0; q < PER; q++) {
      c[q] = tid * PER + q < NB ? bc[tid * PER + q] : 0;
      sum += c[q];
    }
    const int lane = tid % 32;
    int inc = sum;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const int y = __shfl_up_sync(kFull, inc, o);
      if (lane >= o) inc += y;
    }
    int ex = inc - sum;
    if (!WARP) {
      if (lane == 31) wsum[tid / 32] = inc;
      __syncthreads();
      for (int v = 0; v < tid / 32; v++) ex += wsum[v];
    }
#pragma unroll
    for (int q = 0; q < PER; q++) {
      if (tid * PER + q < NB) bc[tid * PER + q] = ex;
      ex += c[q];
    }
    if (tid == 0) bc[NB] = z;
  }
  group_sync<WARP>();
  // the runs: every key was read into registers before the first write here
#pragma unroll
  for (int i = 0; i < J; i++)
    if (tid + NT * i < z) keys[bc[pk[i] >> 16] + (pk[i] & 0xffff)] = k[i];
  group_sync<WARP>();
#pragma unroll
  for (int i = 0; i < J; i++) {
    const int e = tid + NT * i;
    if (e < z) {
      const int b = pk[i] >> 16, r0 = bc[b], r1 = bc[b + 1];
      int r = r0;
      for (int q = r0; q < r1; q++) r += keys[q] < k[i];
      oci[r] = k[i];
      ocv[r] = vals[e];
    }
  }
}
// Order the first z (<= TS) dense entries of a warp's table by column and write them at ci/cv:
// z <= 32 by counting in registers; more through buckets (tables of 128 slots or more; the
// counting ranks for the 64-slot bin's <= 42 entries, where z x ceil(z / 32) compares are few,
// and where the buckets' counters do not fit). [c0, c0 + w) holds the row's columns.
template <typename T, int TS>
__device__ __forceinline__ void warp_sort_write(int32_t *keys, T *vals, int z, int lane,
                                                int32_t *ci, T *cv, int32_t c0, int32_t w) {
  if (z <= 32) { // rank by counting, in registers
    const int32_t k = lane < z ? keys[lane] : INT_MAX;
    const T v = lane < z ? vals[lane] : T(0);
    int r = 0;
    for (int j = 0; j < z; j++) r += __shfl_sync(kFull, k, j) < k;
    if (lane < z) {
      ci[r] = k;
      cv[r] = v;
    }
    return;
  }
  if constexpr (TS >= 128) {
    constexpr int NB = TS / 8 > 32 ? TS / 8 : 32, J = (2 * TS / 3 + 31) / 32;
    if (bucket_rank_fits<NB, 32, J>(z, TS)) {
      bucket_rank_write<T, NB, 32, J, true>(keys, vals, z, TS, c0, w, lane, ci, cv, nullptr);
      return;
    }
  }
  warp_count_write<T, TS>(keys, vals, z, lane, ci, cv);
}

} // namespace gcoo_spg

#endif
