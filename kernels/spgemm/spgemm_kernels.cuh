// SPDX-License-Identifier: MIT
// kernels/spgemm/spgemm_kernels.cuh: the device side of gcoo's SpGEMM (C++ templates on the element
// type T and the accumulator's shape), and of the GPU predictor that sizes its rooms.
//
// A pass computes a list of rows of C, each into the room reserved for it in the pass's output
// buffer (room[row] entries at off[row]). Rows are binned by the hash table they need:
//   * the first bin (at most 31 products): 8 lanes a row, 4 rows a warp, 32 slots each;
//   * warp bins: a warp per row, a table of 64 .. 512 slots in shared memory; the row's products
//     are flattened over the warp (lane j takes product j, j + 32, ... of the row, found by a
//     binary search over a warp scan of the lengths of the B rows), so short rows keep all 32
//     lanes busy;
//   * block bins: a block of 128 .. 1024 threads per row, 1024 .. 16384 slots in shared memory;
//     the row's products are spread over all threads (a scan of the B rows' lengths, chunk by
//     chunk of its A entries), so a row with a few long B rows does not wait on one warp;
//     a row whose columns span at most the bin's slots (w(i) = last - first possible column + 1)
//     is accumulated densely (slot = column - first): no hash, no sort, its exact size always
//     found, its entries written in column order by a block-wide prefix count;
//   * the global bin: a block per row, its table in global memory (2^b >= 1.5 hi slots).
// Shared tables are sized from the row's room, not from its FLOP bound: a row that inserts more
// distinct columns than its room aborts (its table still has free slots: the margin of the bin
// is the most keys that can arrive after the room is passed) and is listed for recomputation.
// After accumulation only the row's entries are ordered: the occupied slots are compacted (in
// place, by ballot, for a warp; by a shared counter for a block), then ranked by counting
// (z <= 32, in registers; the 64-slot bin's rows) or through buckets of the row's column span
// (bucket_rank_write: no sort); the global bin's tables are sorted by a bitonic network.
// Nothing is ever written past a row's room.
#ifndef GCOO_KERNELS_SPGEMM_KERNELS_CUH
#define GCOO_KERNELS_SPGEMM_KERNELS_CUH

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

// ---- the warp bins ----------------------------------------------------------------------------

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

// The products of one row by a group of G lanes (32 / G groups a warp), flattened over the
// group: the row's A entries G at a time, a group scan of their B rows' lengths, then product q
// of the chunk to lane q mod G (a binary search of the scan finds its A entry), so short B rows
// keep the group's lanes busy; [a0, a1) is the row's A range (empty: no row). f(e, col, v,
// valid) is called by every lane of the warp in every round (valid: the lane has product e of
// its row this round, e counting the row's products from 0), so that f may hold the group's
// ballots; every loop here is uniform over the warp (a group with no row, or done with it, runs
// the remaining rounds with no work), so that the shuffles take the full mask (width G). `over`
// (uniform over the group, set by f) stops the row. Returns the row's number of products when it
// ran to its end (uniform over the group).
template <int G, typename T, typename F>
__device__ __forceinline__ int group_products(const csr_in &in, const T *__restrict__ Av,
                                              const T *__restrict__ Bv, int64_t a0, int64_t a1,
                                              int g, bool &over, F &&f) {
  int done = 0;
  for (int64_t ab = a0; __ballot_sync(kFull, ab < a1 && !over) != 0; ab += G) {
    const int64_t a = ab + g;
    int64_t bs = 0;
    int len = 0;
    T av = T(0);
    if (a < a1 && !over) {
      const int32_t k = in.Ai[a];
      av = Av[a];
      bs = in.Bp[k];
      len = (int)(in.Bp[k + 1] - bs);
    }
    int pre = len; // inclusive scan of the lengths over the group
    for (int o = 1; o < G; o <<= 1) {
      const int y = __shfl_up_sync(kFull, pre, o, G);
      if (g >= o) pre += y;
    }
    const int total = __shfl_sync(kFull, pre, G - 1, G);
    for (int base = 0; __ballot_sync(kFull, base < total && !over) != 0; base += G) {
      const int q = base + g;
      int l = 0; // group lanes before l have pre <= q
      for (int step = G / 2; step > 0; step >>= 1)
        if (__shfl_sync(kFull, pre, l + step - 1, G) <= q) l += step;
      const int spre = __shfl_sync(kFull, pre, l, G), slen = __shfl_sync(kFull, len, l, G);
      const int64_t sbs = __shfl_sync(kFull, bs, l, G);
      const T sav = __shfl_sync(kFull, av, l, G);
      const bool valid = q < total && !over;
      int32_t col = 0;
      T v = T(0);
      if (valid) {
        const int64_t b = sbs + (q - (spre - slen));
        col = in.Bi[b];
        v = sav * Bv[b];
      }
      f(done + q, col, v, valid);
    }
    done += total;
  }
  return done;
}

// The first bin's accumulation, a lane per A entry: lane g of the group takes A entries
// a0 + g, a0 + g + G, ... and walks each one's B row alone, inserting as it goes (no shuffle,
// scan or search a product: the flattened loop spent ~11 instructions a product on them for the
// 2-D Laplacian's 25 products of 5 B rows of 3-5; ncu s5). Its rows have at most 31 keys (hi <=
// 31, or n <= 31), so the 2^BITS >= 32 slots never fill and a row need not stop early. Returns
// the row's number of keys, the same in every lane of the group; `full` (also the group's) is
// the guard of hash_add: a table that did fill, which a right bound never lets happen.
template <int G, int BITS, typename T>
__device__ __forceinline__ int lanes_accumulate(const csr_in &in, const T *__restrict__ Av,
                                                const T *__restrict__ Bv, int64_t a0, int64_t a1,
                                                int g, uint32_t gmask, int32_t *keys, T *vals,
                                                bool &full) {
  int fresh = 0;
  bool lane_full = false;
  for (int64_t a = a0 + g; a < a1; a += G) {
    const int32_t k = in.Ai[a];
    const T av = Av[a];
    const int64_t b1 = in.Bp[k + 1];
    for (int64_t b = in.Bp[k]; b < b1; b++) {
      const int r = hash_add(keys, vals, BITS, in.Bi[b], av * Bv[b]);
      fresh += r > 0;
      lane_full = lane_full || r < 0;
    }
  }
  for (int o = G / 2; o > 0; o >>= 1) fresh += __shfl_xor_sync(kFull, fresh, o, G);
  full = (__ballot_sync(kFull, lane_full) & gmask) != 0;
  return fresh;
}

// Compact a group's occupied slots (keys != -1) to the front of its table, in place (a chunk of
// G slots is read before any of it is overwritten). Every group of the warp calls it (the
// ballots take the full mask), an empty table too.
template <int G, int TS, typename T>
__device__ __forceinline__ void group_compact(int32_t *keys, T *vals, int g, int sub,
                                              uint32_t gmask) {
  int pos = 0;
  for (int s0 = 0; s0 < TS; s0 += G) {
    const int32_t k = keys[s0 + g];
    const T v = vals[s0 + g];
    const uint32_t m = (__ballot_sync(kFull, k != -1) & gmask) >> (G == 32 ? 0 : sub * G);
    __syncwarp();
    if (k != -1) {
      const int d = pos + __popc(m & ((1u << g) - 1u));
      keys[d] = k;
      vals[d] = v;
    }
    pos += __popc(m);
    __syncwarp();
  }
}

// Write a group's z <= 31 compacted entries in column order, ranked by counting: entry j goes
// to the number of smaller keys.
template <int G, typename T>
__device__ __forceinline__ void group_count_write(const int32_t *keys, const T *vals, int z, int g,
                                                  int32_t *ci, T *cv) {
  for (int j = g; j < z; j += G) {
    const int32_t k = keys[j];
    int r = 0;
    for (int e = 0; e < z; e++) r += keys[e] < k;
    ci[r] = k;
    cv[r] = vals[j];
  }
}

// A row of a bin's list: its number and A range (all 0: no row).
struct row_ref {
  int32_t row;
  int64_t a0, a1;
};
__device__ __forceinline__ row_ref fetch_ref(const csr_in &in, int32_t row) {
  return row_ref{row, in.Ap[row], in.Ap[row + 1]};
}
// Entry t of list (of n rows).
__device__ __forceinline__ row_ref fetch_row(const csr_in &in, const int32_t *list, int64_t n,
                                             int64_t t) {
  return t < n ? fetch_ref(in, list[t]) : row_ref{};
}

// The warp bins and the first bin: G lanes a row (a group), 32 / G rows a warp, a table of TS
// slots per group in shared memory. G = 32 for the warp bins; the first bin (rows of at most 31
// products, TS = 32) takes smaller groups (a warp a row left 19 of 32 lanes idle on the 2-D
// Laplacian's 25 products and 13 outputs). The group's shuffles take width G (full mask) and its
// ballots are masked to its lanes; its products are flattened over its lanes (lane j takes
// product j, j + G, ... of the row, found by a binary search over a group scan of the lengths of
// the B rows); a row that passes its room aborts and is listed.
template <typename T, int TS, int G, int WARPS, bool LANES = false>
__global__ void __launch_bounds__(WARPS * 32)
    group_rows_kernel(csr_in in, const T *__restrict__ Av, const T *__restrict__ Bv,
                      const int32_t *__restrict__ list, int64_t n, rows_state rs, pass_out<T> out) {
  constexpr int BITS = TS == 32 ? 5 : TS == 64 ? 6 : TS == 128 ? 7 : TS == 256 ? 8 : 9;
  constexpr int RPW = 32 / G, GROUPS = WARPS * RPW;
  static_assert((1 << BITS) == TS, "table size");
  static_assert(G >= 2 && G <= 32 && 32 % G == 0, "group width");
  static_assert(G == 32 || TS == 32, "groups below a warp rank at most 31 entries by counting");
  static_assert(!LANES || G < 32, "a lane per A entry: the first bin only");
  // Groups below a warp pad their tables by G slots: a group's slot s then sits G banks past the
  // previous group's, so the groups of a warp touching the same slot index (the reset, the
  // compaction, the ranking's broadcast reads) hit different banks (unpadded: 32 / G-way bank
  // conflicts, the same slot of every group in one bank).
  constexpr int PAD = G == 32 ? 0 : G;
  __shared__ int32_t skeys[GROUPS][TS + PAD];
  __shared__ T svals[GROUPS][TS + PAD];
  const int lane = threadIdx.x % 32, sub = lane / G, g = lane % G;
  const int grp = threadIdx.x / G; // the group's table
  const uint32_t gmask = G == 32 ? kFull : ((1u << G) - 1u) << (sub * G);
  int32_t *keys = skeys[grp];
  T *vals = svals[grp];
  const int64_t w0 = (int64_t)blockIdx.x * WARPS + threadIdx.x / 32;
  __shared__ class_sums block_sums; // the sample pass's (out.cs: the same for the whole grid)
  if (out.cs) {
    class_sums_zero(&block_sums);
    __syncthreads();
  }
  // Every loop that holds a shuffle, a ballot or a __syncwarp is uniform over the whole warp
  // (a group past the list, or done with its row, runs the remaining rounds with no work), so
  // that the collectives take the full mask (width G for the groups' shuffles): with a lane
  // mask per group they compiled to the divergent-collective fallback (MATCH.ANY, REDUX.OR,
  // BRA.DIV, WARPSYNC.COLLECTIVE ... ENDCOLLECTIVE: ~15 % of the first bin's instructions on the
  // 2-D Laplacian, ncu s5). The groups' own bits of a ballot are taken by gmask.
  //
  // The first bin (LANES) loads a group's rows ahead: the number of the row after next and the
  // A range of the next one, so that a round starts on registers (list -> Ap -> Ai -> Bp -> Bi
  // is a chain of five global loads at each of its short rows; the room is wanted only at the
  // row's end). The warp bins' rows are long enough to hide it, and the registers it takes
  // cost them spills.
  const int64_t stride = (int64_t)gridDim.x * WARPS * RPW;
  int64_t t0 = w0 * RPW;
  row_ref next{};
  int32_t after = 0;
  if constexpr (LANES) {
    next = fetch_row(in, list, n, t0 + sub);
    after = t0 + sub + stride < n ? list[t0 + sub + stride] : 0;
  }
  for (; t0 < n; t0 += stride) {
    const int64_t t = t0 + sub;
    const bool has = t < n; // uniform over the group: the group has a row this round
    row_ref cur;
    if constexpr (LANES) {
      cur = next;
      next = t + stride < n ? fetch_ref(in, after) : row_ref{};
      after = t + 2 * stride < n ? list[t + 2 * stride] : 0;
    } else {
      cur = fetch_row(in, list, n, t);
    }
    const int32_t row = cur.row;
    const int cap = has ? rs.room[row] : 0;
    const int64_t a0 = cur.a0, a1 = cur.a1; // empty when !has
    for (int s = g; s < TS; s += G) {
      keys[s] = -1;
      vals[s] = T(0);
    }
    __syncwarp();
    bool over = false;
    // the row's distinct keys so far, the same in every lane of the group: a round's new keys
    // are counted by one ballot (a shared atomic per new key serialised the group's lanes on
    // one address: nearly every product of random 400k x 16 makes a new key)
    int z = 0;
    if constexpr (LANES) {
      // The first bin, a lane per A entry (lanes_accumulate): its size is checked against its
      // room at the row's end.
      bool full = false;
      z = lanes_accumulate<G, BITS>(in, Av, Bv, a0, a1, g, gmask, keys, vals, full);
      over = full || z > cap;
    } else {
      group_products<G>(in, Av, Bv, a0, a1, g, over, [&](int, int32_t col, T v, bool valid) {
        const int r = valid ? hash_add(keys, vals, BITS, col, v) : 0;
        z += __popc(__ballot_sync(kFull, r > 0) & gmask);
        // the ballot first, by every lane: behind `over ||` a group already over skipped it
        // while the others' lanes met it (f9f6b57: on the H200 the desynchronised shuffles
        // read other lanes' registers, wild B indices; cuda_emu now aborts on it)
        const bool full = (__ballot_sync(kFull, r < 0) & gmask) != 0;
        over = over || full || z > cap;
      });
    }
    __syncwarp();
    const bool ok = has && !over && z <= cap; // uniform over the group
    if (has && !ok && g == 0) {
      rs.z[row] = -1;
      out.ovf_rows[atomicAdd(out.ovf_count, 1ull)] = row;
    }
    // compact the occupied slots in place (a chunk is read before any of it is overwritten;
    // every group, so that the ballots stay uniform: an empty or aborted table costs its rounds)
    group_compact<G, TS>(keys, vals, g, sub, gmask);
    if (ok) { // uniform over the group (over the warp when G = 32)
      const int64_t off = rs.off[row];
      if constexpr (G == 32) {
        warp_sort_write<T, TS>(keys, vals, z, lane, out.ci + off, out.cv + off, rs.cmin[row],
                               rs.w[row]);
      } else {
        group_count_write<G>(keys, vals, z, g, out.ci + off, out.cv + off);
      }
      if (g == 0) {
        rs.z[row] = z;
        rs.src[row] = out.buf_id;
        if (out.cs) sample_note(&block_sums, rs, row, z);
      }
    }
    __syncwarp(); // the table is reset for the group's next row
  }
  if (out.cs) { // every thread of the block gets here
    __syncthreads();
    class_sums_add(&block_sums, out.cs);
  }
}

// ---- the block bins and the global bin --------------------------------------------------------

// The products of a row, spread over the whole block: its A entries in chunks of CH (<= 256),
// a scan of their B rows' lengths, then product q of the chunk to thread q mod TPB (a binary
// search of the scan finds its A entry), so a row with few A entries and long B rows keeps every
// thread busy. f(column, value, valid) is called by every thread of the block in rounds of TPB
// products (valid: the thread has a product this round), so that f may use warp collectives;
// with `stop` (shared, may be NULL) set, a warp skips the rest.
template <int TPB>
constexpr int chunk_of() {
  return TPB < 256 ? TPB : 256;
}
template <typename T, int TPB>
struct chunk_smem {
  long long pre[chunk_of<TPB>()], bstart[chunk_of<TPB>()];
  T av[chunk_of<TPB>()];
  long long wsum[chunk_of<TPB>() / 32];
};
template <typename T, int TPB, typename F>
__device__ __forceinline__ void block_products(csr_in in, const T *__restrict__ Av,
                                               const T *__restrict__ Bv, int64_t a0, int64_t a1,
                                               chunk_smem<T, TPB> *ch, const volatile int *stop,
                                               F f) {
  constexpr int CH = chunk_of<TPB>(), NW = CH / 32;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const bool loader = threadIdx.x < CH;
  for (int64_t ab = a0; ab < a1; ab += CH) {
    if (stop && *stop) break; // uniform: read between barriers
    long long v = 0;
    if (loader) {
      const int64_t a = ab + threadIdx.x;
      if (a < a1) {
        const int32_t k = in.Ai[a];
        const int64_t b0 = in.Bp[k];
        v = in.Bp[k + 1] - b0;
        ch->bstart[threadIdx.x] = b0;
        ch->av[threadIdx.x] = Av[a];
      }
      for (int o = 1; o < 32; o <<= 1) {
        const long long y = __shfl_up_sync(kFull, v, o);
        if (lane >= o) v += y;
      }
      if (lane == 31) ch->wsum[warp] = v;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      long long acc = 0;
      for (int k = 0; k < NW; k++) {
        const long long c = ch->wsum[k];
        ch->wsum[k] = acc;
        acc += c;
      }
    }
    __syncthreads();
    if (loader) ch->pre[threadIdx.x] = v + ch->wsum[warp]; // inclusive, over the chunk
    __syncthreads();
    const long long total = ch->pre[CH - 1];
    for (long long q0 = 0; q0 < total; q0 += TPB) {        // rounds uniform over the block
      if (stop && __ballot_sync(kFull, *stop) != 0) break; // uniform over the warp
      const long long q = q0 + threadIdx.x;
      const bool valid = q < total;
      int32_t col = 0;
      T v = T(0);
      if (valid) {
        int lo = 0, hi = CH - 1; // the first entry whose inclusive prefix passes q
        while (lo < hi) {
          const int mid = (lo + hi) >> 1;
          if (ch->pre[mid] > q)
            hi = mid;
          else
            lo = mid + 1;
        }
        const long long before = lo ? ch->pre[lo - 1] : 0;
        const int64_t b = ch->bstart[lo] + (q - before);
        col = in.Bi[b];
        v = ch->av[lo] * Bv[b];
      }
      f(col, v, valid);
    }
    __syncthreads(); // the chunk's arrays are rewritten next
  }
}

// Write the occupied slots of a dense accumulator (flag[s] != 0, s < w) in column order at
// oci/ocv (column c0 + s), in rounds of TPB slots: a round's place is the count of occupied slots
// before it (its warps' ballots, summed in shared memory).
template <typename T, int TPB>
__device__ void dense_write(const int32_t *flag, const T *acc, int32_t w, int32_t c0, int32_t *oci,
                            T *ocv, int *swarp) {
  constexpr int NW = TPB / 32;
  const int warp = threadIdx.x / 32, l32 = threadIdx.x % 32;
  int base = 0;
  for (int32_t s0 = 0; s0 < w; s0 += TPB) {
    const int32_t s = s0 + threadIdx.x;
    const bool f = s < w && flag[s] != 0;
    const uint32_t m = __ballot_sync(kFull, f);
    if (l32 == 0) swarp[warp] = __popc(m);
    __syncthreads();
    int before = 0, all = 0;
    for (int k = 0; k < NW; k++) {
      const int c = swarp[k];
      before += k < warp ? c : 0;
      all += c;
    }
    if (f) {
      const int d = base + before + __popc(m & ((1u << l32) - 1u));
      oci[d] = c0 + s;
      ocv[d] = acc[s];
    }
    base += all;
    __syncthreads(); // swarp is rewritten by the next round
  }
}

// GLOBAL = false: a table of 2^bits slots in dynamic shared memory. A row whose column span w
// fits the table is accumulated densely (exact size, never aborts); any other row is hashed and
// aborts when its room is passed. GLOBAL = true: the row's table in global memory (bits from its
// FLOP bound, never full), its exact size always found. A row larger than its room is listed,
// with its size where it is known.
template <typename T, int TPB, bool GLOBAL>
__global__ void __launch_bounds__(TPB)
    block_rows_kernel(csr_in in, const T *__restrict__ Av, const T *__restrict__ Bv,
                      const int32_t *__restrict__ list, int64_t n, int shared_bits, rows_state rs,
                      pass_out<T> out) {
  GCOO_DYNAMIC_SMEM(unsigned char, smem);
  __shared__ int cnt, cnt2, over;
  __shared__ int swarp[TPB / 32];
  __shared__ chunk_smem<T, TPB> ch;
  for (int64_t t = blockIdx.x; t < n; t += gridDim.x) {
    const int32_t row = list[t];
    const int cap = rs.room[row];
    int bits;
    int32_t *keys;
    T *vals;
    if constexpr (GLOBAL) {
      const int64_t h = rs.hi[row];
      bits = 6;
      while (((int64_t)1 << bits) * 2 < 3 * h) bits++;
      keys = out.gkeys + out.tab_off[row];
      vals = out.gvals + out.tab_off[row];
    } else {
      bits = shared_bits;
      vals = reinterpret_cast<T *>(smem);
      keys = reinterpret_cast<int32_t *>(smem + ((size_t)sizeof(T) << bits));
    }
    const int64_t slots = (int64_t)1 << bits;
    const int64_t a0 = in.Ap[row], a1 = in.Ap[row + 1];
    if (!GLOBAL && rs.w[row] <= slots) { // dense: slot = column - c0, keys are flags
      const int32_t w = rs.w[row], c0 = rs.cmin[row];
      for (int32_t s = threadIdx.x; s < w; s += TPB) {
        keys[s] = 0;
        vals[s] = T(0);
      }
      __syncthreads();
      block_products<T, TPB>(in, Av, Bv, a0, a1, &ch, nullptr, [&](int32_t col, T v, bool valid) {
        if (!valid) return;
        const int32_t c = col - c0;
        atomicAdd(&vals[c], v);
        keys[c] = 1;
      });
      __syncthreads();
      int z = 0;
      for (int32_t s0 = 0; s0 < w; s0 += TPB) {
        const int32_t s = s0 + threadIdx.x;
        z += __syncthreads_count(s < w && keys[s] != 0);
      }
      if (z > cap) {
        if (threadIdx.x == 0) {
          rs.z[row] = z;
          out.ovf_rows[atomicAdd(out.ovf_count, 1ull)] = row;
        }
      } else {
        const int64_t off = rs.off[row];
        dense_write<T, TPB>(keys, vals, w, c0, out.ci + off, out.cv + off, swarp);
        if (threadIdx.x == 0) {
          rs.z[row] = z;
          rs.src[row] = out.buf_id;
          sample_note(out.cs, rs, row, z);
        }
      }
      __syncthreads();
      continue;
    }
    for (int64_t s = threadIdx.x; s < slots; s += TPB) {
      keys[s] = -1;
      vals[s] = T(0);
    }
    if (threadIdx.x == 0) {
      cnt = 0;
      cnt2 = 0;
      over = 0;
    }
    __syncthreads();
    // new keys counted with one shared atomic per warp and round (an atomic per new key
    // serialised the block on `cnt`)
    block_products<T, TPB>(in, Av, Bv, a0, a1, &ch, GLOBAL ? nullptr : &over,
                           [&](int32_t col, T v, bool valid) {
                             const int r = valid ? hash_add(keys, vals, bits, col, v) : 0;
                             const uint32_t nm = __ballot_sync(kFull, r > 0);
                             if (nm != 0 && threadIdx.x % 32 == 0) {
                               const int c = atomicAdd(&cnt, __popc(nm));
                               if (!GLOBAL && c + __popc(nm) > cap) over = 1;
                             }
                             if (r < 0) over = 1;
                           });
    __syncthreads();
    const int z = cnt;
    if (over || z > cap) {
      if (threadIdx.x == 0) {
        rs.z[row] = (GLOBAL && !over) ? z : -1;
        out.ovf_rows[atomicAdd(out.ovf_count, 1ull)] = row;
      }
      __syncthreads();
      continue;
    }
    const int64_t off = rs.off[row];
    int32_t *oci = out.ci + off;
    T *ocv = out.cv + off;
    if constexpr (!GLOBAL) {
      // compact in place, in rounds of TPB slots: a round's slots are read before any thread
      // writes, and an entry's new place d counts entries already read, so d < s0 + TPB
      // (one shared atomic per warp and round: the order is the sort's business)
      for (int64_t s0 = 0; s0 < slots; s0 += TPB) {
        const int64_t s = s0 + threadIdx.x;
        const int32_t k = keys[s];
        const T v = vals[s];
        const uint32_t m = __ballot_sync(kFull, k != -1);
        const int l32 = threadIdx.x % 32;
        int base = 0;
        if (l32 == 0 && m != 0) base = atomicAdd(&cnt2, __popc(m));
        base = __shfl_sync(kFull, base, 0);
        __syncthreads();
        if (k != -1) {
          const int d = base + __popc(m & ((1u << l32) - 1u));
          keys[d] = k;
          vals[d] = v;
        }
        __syncthreads();
      }
    } else {
      // global table: the entries go to the room (unsorted), then back to the table's front
      for (int64_t s = threadIdx.x; s < slots; s += TPB) {
        const int32_t k = keys[s];
        if (k != -1) {
          const int d = atomicAdd(&cnt2, 1);
          oci[d] = k;
          ocv[d] = vals[s];
        }
      }
      __syncthreads();
      for (int64_t s = threadIdx.x; s < z; s += TPB) {
        keys[s] = oci[s];
        vals[s] = ocv[s];
      }
      __syncthreads();
    }
    // a shared table's entries ranked through buckets (NB = TPB: S / 8 or S / 16 of its slots),
    // else (the global table, or counters that do not fit) sorted by the bitonic network
    constexpr int J = TPB >= 1024 ? 11 : 6; // z <= 2/3 S, S / TPB = 8 (16 for 16384 slots)
    if (!GLOBAL && bucket_rank_fits<TPB, TPB, J>(z, slots)) {
      bucket_rank_write<T, TPB, TPB, J, false>(keys, vals, z, (int)slots, rs.cmin[row], rs.w[row],
                                               threadIdx.x, oci, ocv, swarp);
    } else {
      int64_t P = 1;
      while (P < z) P <<= 1;
      for (int64_t s = z + threadIdx.x; s < P; s += TPB) keys[s] = INT_MAX;
      __syncthreads();
      bitonic_sort<T>(keys, vals, P, threadIdx.x, TPB);
      for (int64_t s = threadIdx.x; s < z; s += TPB) {
        oci[s] = keys[s];
        ocv[s] = vals[s];
      }
    }
    if (threadIdx.x == 0) {
      rs.z[row] = z;
      rs.src[row] = out.buf_id;
      sample_note(out.cs, rs, row, z);
    }
    __syncthreads();
  }
}

// ---- the predictor and the plan ---------------------------------------------------------------

// Whether a row of FLOP bound hi needs its column span (rs.cmin, rs.w): it is read only by the
// block bins' dense accumulation and bin choice (bin_of tests w only from kFirstBlockBin on) and
// by the bucket ranks (rows of more than 32 entries). A row of hi <= 32 (room <= hi) always fits
// bin 0 or 1 (bin_of: 64 slots >= hi + 1 and >= 3/2 room) and its z <= 32 entries are ranked by
// counting, so its span is never read: bounds_kernel leaves cmin = w = 0 for it.
__host__ __device__ inline bool bound_needs_span(int64_t hi) { return hi > 32; }

// flop, lo, hi and the column span of rows [0, m), G lanes a row (power-law rows do not
// serialise a thread; the host takes fewer lanes when A's rows are short: 8 lanes left 3 of 8
// idle on the 2-D Laplacian's 5 entries a row); class histogram.
template <int G>
__global__ void __launch_bounds__(256)
    bounds_kernel(csr_in in, int64_t m, int64_t ncols, rows_state rs, class_stats *cs) {
  static_assert(G >= 2 && G <= 32 && 32 % G == 0, "lanes a row");
  __shared__ unsigned long long hr[kClasses], hg[kClasses], sflop, slo, shi, smax;
  if (threadIdx.x < kClasses) hr[threadIdx.x] = hg[threadIdx.x] = 0;
  if (threadIdx.x == 0) sflop = slo = shi = smax = 0;
  __syncthreads();
  const int64_t gt = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, i = gt / G;
  const int g = (int)(gt % G);
  if (gt == 0) rs.z[m] = 0; // z has m + 1 entries: the scans of the sizes read one past the end
  int64_t f = 0, lo = 0;
  const int64_t a0 = i < m ? in.Ap[i] : 0, a1 = i < m ? in.Ap[i + 1] : 0;
  for (int64_t a = a0 + g; a < a1; a += G) {
    const int32_t k = in.Ai[a];
    const int64_t len = in.Bp[k + 1] - in.Bp[k];
    f += len;
    lo = len > lo ? len : lo;
  }
  for (int o = G / 2; o > 0; o >>= 1) { // within the row's lanes
    f += __shfl_xor_sync(kFull, f, o);
    lo = max(lo, (int64_t)__shfl_xor_sync(kFull, lo, o));
  }
  // The row's column span (B's rows are sorted): their first and last columns, a fourth
  // dependent load a product, only where it is read (bound_needs_span; 0.175 ms of the 2-D
  // Laplacian's 1.84 ms went to this kernel with the span loaded for every row, ncu s5). A
  // second walk of the row's A entries: they and the B row pointers are in cache from the first.
  int32_t c0 = INT_MAX, c1 = -1;
  if (bound_needs_span(f < ncols ? f : ncols)) // uniform over the row's lanes (f is reduced)
    for (int64_t a = a0 + g; a < a1; a += G) {
      const int32_t k = in.Ai[a];
      const int64_t b0 = in.Bp[k], b1 = in.Bp[k + 1];
      if (b1 > b0) {
        c0 = min(c0, in.Bi[b0]);
        c1 = max(c1, in.Bi[b1 - 1]);
      }
    }
  for (int o = G / 2; o > 0; o >>= 1) {
    c0 = min(c0, __shfl_xor_sync(kFull, c0, o));
    c1 = max(c1, __shfl_xor_sync(kFull, c1, o));
  }
  unsigned long long tf = 0, tl = 0, th = 0, gap = 0;
  int cls = -1; // the row's class when it has uncertainty (one lane a row)
  if (i < m && g == 0) {
    const int64_t hi = f < ncols ? f : ncols;
    rs.hi[i] = (int32_t)(hi < INT_MAX ? hi : INT_MAX);
    rs.lo[i] = (int32_t)lo;
    rs.cmin[i] = c1 >= c0 ? c0 : 0;
    rs.w[i] = c1 >= c0 ? c1 - c0 + 1 : 0;
    rs.z[i] = hi == lo ? (int32_t)hi : -1;
    rs.src[i] = kSrcNone;
    if (hi > lo) {
      cls = class_of((int32_t)hi);
      gap = (unsigned long long)(hi - lo);
    }
    tf = (unsigned long long)f;
    tl = (unsigned long long)lo;
    th = (unsigned long long)hi;
  }
  // the class histogram, one shared atomic per class present in the warp (usually one or two):
  // an atomic a row on the same address serialised the warp's rows
  for (uint32_t todo = __ballot_sync(kFull, cls >= 0); todo;) {
    const int src = __ffs(todo) - 1, c = __shfl_sync(kFull, cls, src);
    const bool in = cls == c;
    const uint32_t peers = __ballot_sync(kFull, in);
    unsigned long long sg = in ? gap : 0;
    for (int o = 16; o > 0; o >>= 1) sg += __shfl_xor_sync(kFull, sg, o);
    if ((int)(threadIdx.x % 32) == src) {
      atomicAdd(&hr[c], (unsigned long long)__popc(peers));
      atomicAdd(&hg[c], sg);
    }
    todo &= ~peers;
  }
  unsigned long long tm = th;
  for (int o = 16; o > 0; o >>= 1) { // warp sums first: one shared atomic per warp
    tf += __shfl_down_sync(kFull, tf, o);
    tl += __shfl_down_sync(kFull, tl, o);
    th += __shfl_down_sync(kFull, th, o);
    const unsigned long long y = __shfl_down_sync(kFull, tm, o);
    tm = y > tm ? y : tm;
  }
  if (threadIdx.x % 32 == 0) {
    atomicAdd(&sflop, tf);
    atomicAdd(&slo, tl);
    atomicAdd(&shi, th);
    atomicMax(&smax, tm);
  }
  __syncthreads();
  if (threadIdx.x < kClasses && hr[threadIdx.x]) {
    atomicAdd(&cs->rows[threadIdx.x], hr[threadIdx.x]);
    atomicAdd(&cs->g[threadIdx.x], hg[threadIdx.x]);
  }
  if (threadIdx.x == 0) {
    atomicAdd(&cs->flop, sflop);
    atomicAdd(&cs->sum_lo, slo);
    atomicAdd(&cs->sum_hi, shi);
    atomicMax(&cs->hi_max, smax);
  }
}

// Whether row i is in the sample (it has uncertainty and its coin falls under its class's
// threshold); then its room is its bound hi (it cannot overflow).
// With bound_max > 0 and sum hi <= bound_max (a small product: bounds_kernel's total, the same
// for every thread), every row of work is in it at its bound: the whole product is computed by
// the sample's pass and cannot overflow (all_at_bound on the host).
__device__ __forceinline__ bool all_at_bound(const class_stats *cs, unsigned long long bound_max) {
  return bound_max > 0 && cs->sum_hi <= bound_max;
}
__device__ __forceinline__ bool sample_room(int64_t i, uint64_t seed, const rows_state &rs,
                                            const class_stats *cs, unsigned long long bound_max) {
  const int32_t hi = rs.hi[i], lo = rs.lo[i];
  if (all_at_bound(cs, bound_max)) {
    if (hi == 0) return false; // z = 0 (bounds_kernel)
    rs.room[i] = hi;
    return true;
  }
  if (hi <= lo) return false;
  const int c = class_of(hi);
  if ((unsigned long long)gcoo__row_coin(seed, i) >= gcoo__class_threshold(cs->rows[c]))
    return false;
  rs.room[i] = hi;
  return true;
}

// The room of row i for the pass over the rows not yet computed: -1 when it takes no part (no
// work: z = 0, or already computed: src != kSrcNone); exact where its size is known (z >= 0),
// else lo + ceil(v (hi - lo)) with its class's v.
// Whether every row of unknown size gets its bound hi as its room: when sum hi is within
// kBoundRoomSlack of the class rooms' total (sum lo + sum_c v_c G_c), bounds cost little more
// memory and no row can overflow (a second plan, pass and scan with two more host waits: 0.1 ms
// of a 0.3-1.3 ms product; adder_dcop_05 and rajat01 have sum hi / nnz of 1.03-1.15). Never with
// safety < 1 (the tests that force overflow). Warp 0 computes it, lane c for class c, reduced in
// a fixed order, so every block of a kernel reaches the same answer; it sets *flag (shared).
constexpr double kBoundRoomSlack = 1.2;
__device__ __forceinline__ void rooms_at_bound(const class_stats *cs, double safety, bool *flag) {
  static_assert(kClasses <= 32, "a lane per class");
  if (threadIdx.x >= 32) return;
  const int c = threadIdx.x;
  double r = 0.0;
  if (c < kClasses && cs->g[c] > 0) {
    const double u = gcoo__class_fraction(cs->s_g[c], cs->s_dz[c]);
    r = gcoo__class_room(u, cs->s_umax[c], safety) * (double)cs->g[c];
  }
  for (int o = 16; o > 0; o >>= 1) r += __shfl_xor_sync(kFull, r, o);
  if (c == 0)
    *flag = safety >= 1.0 && (double)cs->sum_hi <= kBoundRoomSlack * ((double)cs->sum_lo + r);
}

__device__ __forceinline__ int32_t pass_room(int64_t i, double safety, bool at_bound,
                                             const rows_state &rs, const class_stats *cs) {
  const int32_t hi = rs.hi[i];
  if (hi == 0) {
    rs.z[i] = 0;
    return -1;
  }
  if (rs.src[i] != kSrcNone) return -1;
  const int32_t z = rs.z[i];
  int32_t room;
  if (z >= 0) {
    room = z;
  } else if (at_bound) {
    room = hi;
  } else {
    const int c = class_of(hi);
    const double u = gcoo__class_fraction(cs->s_g[c], cs->s_dz[c]);
    room = gcoo__class_rows_room(rs.lo[i], hi, gcoo__class_room(u, cs->s_umax[c], safety));
  }
  rs.room[i] = room;
  return room;
}

// Rooms of rows [r0, r1) (pass_room); they form the list of the pass (batches; the single batch
// takes them in plan_kernel).
__global__ void rooms_kernel(int64_t r0, int64_t r1, double safety, rows_state rs,
                             const class_stats *cs, int32_t *list, unsigned long long *count) {
  __shared__ bool at_bound;
  rooms_at_bound(cs, safety, &at_bound);
  __syncthreads();
  const int64_t i = r0 + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= r1) return;
  if (pass_room(i, safety, at_bound, rs, cs) >= 0) list[atomicAdd(count, 1ull)] = (int32_t)i;
}

// The prediction of every row (for gcoo__predict_cuda): exact where known, else
// llround(lo + u_c (hi - lo)) as the CPU's CLASSES method; and flop(i).
__global__ void predict_rows_kernel(csr_in in, int64_t m, rows_state rs, const class_stats *cs,
                                    int64_t *row_flop, int64_t *row_nnz) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  int64_t f = 0;
  for (int64_t a = in.Ap[i]; a < in.Ap[i + 1]; a++) f += in.Bp[in.Ai[a] + 1] - in.Bp[in.Ai[a]];
  row_flop[i] = f;
  const int32_t z = rs.z[i], hi = rs.hi[i], lo = rs.lo[i];
  if (z >= 0 || hi <= lo) {
    row_nnz[i] = z >= 0 ? z : hi;
    return;
  }
  const int c = class_of(hi);
  const double u = gcoo__class_fraction(cs->s_g[c], cs->s_dz[c]);
  int64_t v = llround(__dadd_rn((double)lo, __dmul_rn(u, (double)(hi - lo))));
  row_nnz[i] = v < lo ? lo : v > hi ? hi : v;
}

// Rooms of listed rows for a recomputation: exact if known, else the bound; their FLOP is added
// to *flop (what the overflow cost). A warp a row (listed rows are few and often long).
__global__ void reroom_kernel(const int32_t *list, int64_t n, rows_state rs, csr_in in,
                              unsigned long long *flop) {
  const int64_t t = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (t >= n) return; // whole warps leave together
  const int32_t i = list[t], z = rs.z[i];
  unsigned long long f = 0;
  for (int64_t a = in.Ap[i] + lane; a < in.Ap[i + 1]; a += 32)
    f += (unsigned long long)(in.Bp[in.Ai[a] + 1] - in.Bp[in.Ai[a]]);
  for (int o = 16; o > 0; o >>= 1) f += __shfl_xor_sync(kFull, f, o);
  if (lane == 0) {
    rs.room[i] = z >= 0 ? z : rs.hi[i];
    atomicAdd(flop, f);
  }
}

// ---- bins -------------------------------------------------------------------------------------

constexpr int kNumBins = 11, kGlobalBin = 10, kFirstBlockBin = 5;
// table slots per bin (0: global), threads per row, most keys that can arrive after a row's
// room is passed (so the table still has a free slot)
__host__ __device__ inline int bin_slots(int b) {
  const int t[kNumBins] = {32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 0};
  return t[b];
}
__host__ __device__ inline int bin_threads(int b) {
  const int t[kNumBins] = {32, 32, 32, 32, 32, 128, 256, 512, 1024, 1024, 1024};
  return t[b];
}
// The first bin whose table takes the row: as a hash table, never full (room + margin, or hi,
// plus one free slot) and at most 2/3 loaded at the room; or, a block bin, as a dense
// accumulator of the row's column span w.
// A row whose FLOP bound passes kWarpMaxHi skips the warp bins (a warp would take 64 products
// a lane or more: such rows set a pass's critical path).
// sampled: the pass is the sample's, whose rooms are the rows' bounds hi, not their sizes (a
// size is usually well below it: the 2-D Laplacian's rows have 13 entries for hi = 25), so the
// 2/3-load rule, meant for a predicted size, is not applied in the first bin: a row of hi <= 31
// takes it (its keys always fit, with a free slot). By that rule the Laplacian's sample took
// the 64-slot bin, a warp a row: 95 us for its 45k rows (ncu, H200), against 11 us in the first
// bin for the sample's smaller rows. The passes over the other rows keep the rule.
// rule.dense_reach (GCOO_SPGEMM_DENSE_REACH, default 1): a row hashed in a block bin whose FLOP
// bound is at least 1.5 times its span goes instead to the first of the next dense_reach bins
// whose slots hold the span, to be accumulated densely there: no hashing, probing or ranking,
// for more slots to clear and scan, which pays where many products fall on each slot. Measured
// on the H200 (reach 1 without the FLOP condition): bcsstk33 A A (5184 products over spans of 1792
// columns, medians; 6689 of 8738 rows move from the hashed 1024-slot bin to the dense 2048-slot
// one) 1.19-1.26x faster; rajat01 0.89-0.93x and wiki-Vote 0.91-0.96x slower: their moved rows have
// FLOP bounds of 0.26 and 0.4-1.2 times their spans, and the condition keeps them hashed.
constexpr int32_t kWarpMaxHi = 2048;
struct bin_rule {
  int last_shared; // the largest shared bin for the element type
  int dense_reach;
};
__host__ __device__ inline int bin_of(int32_t hi, int32_t room, int32_t w, bin_rule rule,
                                      bool sampled = false) {
  for (int b = hi > kWarpMaxHi ? kFirstBlockBin : 0; b <= rule.last_shared; b++) {
    const int64_t ts = bin_slots(b), margin = bin_threads(b);
    const int64_t keys = room >= hi ? hi : (room + margin < hi ? room + margin : hi);
    if (ts >= keys + 1 && (2 * ts >= 3 * (int64_t)room || (sampled && b == 0))) {
      if (b >= kFirstBlockBin && w > ts && 2 * (int64_t)hi >= 3 * (int64_t)w)
        for (int d = b + 1; d <= b + rule.dense_reach && d <= rule.last_shared; d++)
          if (w <= bin_slots(d)) return d;
      return b;
    }
    if (b >= kFirstBlockBin && w <= ts) return b;
  }
  return kGlobalBin;
}
__host__ __device__ inline int64_t global_slots(int32_t hi) {
  int bits = 6;
  while (((int64_t)1 << bits) * 2 < 3 * (int64_t)hi) bits++;
  return (int64_t)1 << bits;
}

// ---- the direct recomputation of overflowed rows (GCOO_SPGEMM_RECOMPUTE=direct) -------------

// The rows a pass listed as past their rooms (*d_n of them, known only on the device), planned
// for their recomputation by the global-table block kernel with no host plan: room = the exact
// size where known, else the bound hi; a place in the recomputation's buffer and a global table
// (global_slots(hi)) taken by atomics on the totals; their FLOP added to *flop. A warp a row
// (listed rows are few and often long) over a fixed grid: launched before the host knows
// whether any row overflowed, so the wait that brings nnz and the overflow count brings these
// totals too (the plan of a second pass and its wait are gone).
// rp (zero on entry): [0] total room, [1] total table slots, [2] the listed rows' sizes as the
// scan of the first pass saw them (-1 for an aborted row; a two's complement sum).
__global__ void __launch_bounds__(256)
    relist_kernel(const int32_t *__restrict__ list, const unsigned long long *d_n, rows_state rs,
                  csr_in in, int64_t *tab_off, unsigned long long *rp, unsigned long long *flop) {
  const int64_t n = (int64_t)*d_n, nw = (int64_t)gridDim.x * (blockDim.x / 32);
  const int lane = threadIdx.x % 32;
  for (int64_t t = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; t < n; t += nw) {
    const int32_t i = list[t], z = rs.z[i], hi = rs.hi[i];
    unsigned long long f = 0;
    for (int64_t a = in.Ap[i] + lane; a < in.Ap[i + 1]; a += 32)
      f += (unsigned long long)(in.Bp[in.Ai[a] + 1] - in.Bp[in.Ai[a]]);
    for (int o = 16; o > 0; o >>= 1) f += __shfl_xor_sync(kFull, f, o);
    if (lane == 0) {
      const int32_t room = z >= 0 ? z : hi;
      rs.room[i] = room;
      rs.off[i] = (int64_t)atomicAdd(&rp[0], (unsigned long long)room);
      tab_off[i] = (int64_t)atomicAdd(&rp[1], (unsigned long long)global_slots(hi));
      atomicAdd(&rp[2], (unsigned long long)(long long)z);
      atomicAdd(flop, f);
    }
  }
}

// The most entries C can have after the direct recomputation: the first scan's total
// (nnz_scanned) less the listed rows' part of it (z_sum, rp[2]) plus their rooms (room_total,
// rp[0]); a recomputed row is at most its room. C is allocated at this bound (an aborted row's
// room is its bound hi), so no further wait is needed before the layout.
__host__ __device__ inline int64_t recompute_cap(int64_t nnz_scanned, unsigned long long room_total,
                                                 unsigned long long z_sum) {
  return nnz_scanned - (int64_t)z_sum + (int64_t)room_total;
}

// Count the warp's rows into cnt[b] (shared) with one atomic per distinct bin in the warp (all
// 32 lanes call it; b < 0: the lane adds nothing). Returns the lane's place among the rows
// counted into b: the atomic's old value plus the lanes before it with the same b. One shared
// atomic a row serialised a block when nearly every row falls into one bin (the 2-D Laplacian).
__device__ __forceinline__ unsigned int warp_count(unsigned int *cnt, int b) {
  const int lane = threadIdx.x % 32;
  const uint32_t peers = __match_any_sync(kFull, b);
  const int leader = __ffs(peers) - 1;
  unsigned int base = 0;
  if (b >= 0 && lane == leader) base = atomicAdd(&cnt[b], (unsigned int)__popc(peers));
  base = __shfl_sync(kFull, base, leader);
  return base + (unsigned int)__popc(peers & ((1u << lane) - 1u));
}

// Plan the first *d_n rows of a list (the grid covers at most nmax): each row's bin, where its
// room starts in the pass's buffer and its global table (if any) starts, counted per bin. The
// places are taken by one atomic per block on the pass's totals (a block's rows get consecutive
// places in list order, the blocks any order: a room only needs to be disjoint from the others).
// With ra.cs set the kernel makes the list itself: thread t takes row t of [0, ra.m), its room
// from pass_room (one launch for the rooms and the plan) or, with ra.sample, from sample_room
// (one launch for the sample's selection and plan), and, when it is in the pass, a place in the
// list (one atomic per block on the list length).
// pc: kNumBins counts, kNumBins cursors (for the scatter), then (list length, total room, total
// table slots), zero on entry.
constexpr int kPlanThreads = 256;
struct rooms_args {
  const class_stats *cs; // NULL: plan the given list
  double safety;
  int64_t m;
  bool sample;   // select the sample (sample_room) instead of the rooms of the rest (pass_room);
                 // with a given list (cs NULL): its rooms are bounds, as the sample's (bin_of)
  uint64_t seed; // the sample's coins
  unsigned long long bound_max; // the sample: every row at its bound when sum hi <= this (> 0)
};
__global__ void __launch_bounds__(kPlanThreads)
    plan_kernel(int32_t *__restrict__ list, const unsigned long long *d_n, rows_state rs,
                bin_rule rule, unsigned long long *pc, int64_t *tab_off, rooms_args ra) {
  constexpr int NW = kPlanThreads / 32;
  __shared__ unsigned int h[kNumBins];
  __shared__ long long wr[NW], wt[NW], wc[NW];
  __shared__ unsigned long long base_r, base_t, base_c;
  const bool make = ra.cs != nullptr;
  const int64_t n = make ? ra.m : (int64_t)*d_n;
  const int64_t t = (int64_t)blockIdx.x * kPlanThreads + threadIdx.x;
  if (t == 0 && !make) pc[2 * kNumBins] = (unsigned long long)n;
  if ((int64_t)blockIdx.x * kPlanThreads >= n) return; // the whole block is past the list
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  __shared__ bool at_bound;
  if (make && !ra.sample) rooms_at_bound(ra.cs, ra.safety, &at_bound);
  // the sample's rooms are bounds (bin_of); not when its pass computes the whole product
  const bool sampled = ra.sample && !(make && all_at_bound(ra.cs, ra.bound_max));
  if (threadIdx.x < kNumBins) h[threadIdx.x] = 0;
  __syncthreads();
  long long room = 0, tab = 0;
  int32_t i = -1;
  if (t < n) {
    if (make)
      i = (ra.sample ? sample_room(t, ra.seed, rs, ra.cs, ra.bound_max)
                     : pass_room(t, ra.safety, at_bound, rs, ra.cs) >= 0)
              ? (int32_t)t
              : -1;
    else
      i = list[t];
  }
  int b = -1;
  if (i >= 0) {
    const int32_t hi = rs.hi[i];
    room = rs.room[i];
    b = bin_of(hi, (int32_t)room, rs.w[i], rule, sampled);
    tab = b == kGlobalBin ? global_slots(hi) : 0;
  }
  (void)warp_count(h, b);
  long long r = room, q = tab, c = i >= 0; // inclusive scans over the warp
  for (int o = 1; o < 32; o <<= 1) {
    const long long y = __shfl_up_sync(kFull, r, o), x = __shfl_up_sync(kFull, q, o),
                    u = __shfl_up_sync(kFull, c, o);
    if (lane >= o) {
      r += y;
      q += x;
      c += u;
    }
  }
  if (lane == 31) {
    wr[warp] = r;
    wt[warp] = q;
    wc[warp] = c;
  }
  __syncthreads();
  if (threadIdx.x == 0) { // warp totals to exclusive prefixes; the block's places
    long long sr = 0, st = 0, sc = 0;
    for (int k = 0; k < NW; k++) {
      const long long a = wr[k], b = wt[k], d = wc[k];
      wr[k] = sr;
      wt[k] = st;
      wc[k] = sc;
      sr += a;
      st += b;
      sc += d;
    }
    base_r = atomicAdd(&pc[2 * kNumBins + 1], (unsigned long long)sr);
    base_t = atomicAdd(&pc[2 * kNumBins + 2], (unsigned long long)st);
    base_c = make ? atomicAdd(&pc[2 * kNumBins], (unsigned long long)sc) : 0;
  }
  __syncthreads();
  if (i >= 0) {
    rs.off[i] = (int64_t)base_r + wr[warp] + (r - room);
    tab_off[i] = (int64_t)base_t + wt[warp] + (q - tab);
    if (make) list[base_c + wc[warp] + (c - 1)] = i;
  }
  if (threadIdx.x < kNumBins && h[threadIdx.x])
    atomicAdd(&pc[threadIdx.x], (unsigned long long)h[threadIdx.x]);
}

// Scatter the planned rows into their bins (cursor[b] starts at the bin's first place). The
// block counts its rows per bin in shared memory (warp_count) and takes its places in each bin
// with one global atomic per bin: one global atomic a row serialised on a single counter when
// nearly every row falls into one bin (1.7 ms of the 2-D Laplacian's 4.6 ms product in ncu). The
// order of rows inside a bin does not matter: each row is computed on its own. `sampled` must
// be what plan_kernel gave bin_of (the sample's pass of a product not computed at its bounds).
__global__ void __launch_bounds__(256)
    bin_scatter_kernel(const int32_t *list, int64_t n, rows_state rs, bin_rule rule, bool sampled,
                       unsigned long long *pc, int32_t *binned) {
  __shared__ unsigned int count[kNumBins];
  __shared__ unsigned long long place[kNumBins];
  static_assert(kNumBins <= 256, "one thread per bin takes the block's places");
  const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x < kNumBins) count[threadIdx.x] = 0;
  __syncthreads();
  int b = -1;
  int32_t i = 0;
  if (t < n) {
    i = list[t];
    b = bin_of(rs.hi[i], rs.room[i], rs.w[i], rule, sampled);
  }
  const unsigned int mine = warp_count(count, b);
  __syncthreads();
  if (threadIdx.x < kNumBins && count[threadIdx.x] != 0) {
    unsigned long long start = 0; // the bin's first place: counts of the bins before it
    for (int c = 0; c < (int)threadIdx.x; c++) start += pc[c];
    place[threadIdx.x] = start + atomicAdd(&pc[kNumBins + threadIdx.x],
                                           (unsigned long long)count[threadIdx.x]);
  }
  __syncthreads();
  if (b >= 0) binned[place[b] + mine] = i;
}

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
