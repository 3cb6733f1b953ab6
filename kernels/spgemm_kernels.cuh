// SPDX-License-Identifier: MIT
// kernels/spgemm_kernels.cuh: the device side of gcoo's SpGEMM (C++ templates on the element
// type T and the accumulator's shape), and of the GPU predictor that sizes its rooms.
//
// A pass computes a list of rows of C, each into the room reserved for it in the pass's output
// buffer (room[row] entries at off[row]). Rows are binned by the hash table they need:
//   * warp bins: a warp per row, a table of 32 .. 512 slots in shared memory; the row's products
//     are flattened over the warp (lane j takes product j, j + 32, ... of the row, found by a
//     binary search over a warp scan of the lengths of the B rows), so short rows keep all 32
//     lanes busy;
//   * block bins: a block of 128 .. 1024 threads per row, 1024 .. 8192 slots in shared memory;
//   * the global bin: a block per row, its table in global memory (2^b >= 1.5 hi slots).
// Shared tables are sized from the row's room, not from its FLOP bound: a row that inserts more
// distinct columns than its room aborts (its table still has free slots: the margin of the bin
// is the most keys that can arrive after the room is passed) and is listed for recomputation.
// After accumulation only the row's entries are sorted: the occupied slots are compacted (in
// place, by ballot, for a warp; by a shared counter for a block), then ranked by counting
// (z <= 32, in registers) or sorted by a bitonic network over the next power of two >= z.
// Nothing is ever written past a row's room.
#ifndef GCOO_KERNELS_SPGEMM_KERNELS_CUH
#define GCOO_KERNELS_SPGEMM_KERNELS_CUH

#include <climits>
#include <cstdint>

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
};
constexpr uint8_t kSrcNone = 255;

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

// ---- the warp bins ----------------------------------------------------------------------------

// Sort the first z (<= TS) dense entries of a warp's table by column and write them at out+off.
template <typename T, int TS>
__device__ __forceinline__ void warp_sort_write(int32_t *keys, T *vals, int z, int lane,
                                                int32_t *ci, T *cv) {
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
  int P = 64;
  while (P < z) P <<= 1;
  for (int s = z + lane; s < P; s += 32) keys[s] = INT_MAX;
  __syncwarp();
  for (int k = 2; k <= P; k <<= 1)
    for (int j = k >> 1; j > 0; j >>= 1) {
      for (int i = lane; i < P; i += 32) {
        const int ixj = i ^ j;
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
      __syncwarp();
    }
  for (int s = lane; s < z; s += 32) {
    ci[s] = keys[s];
    cv[s] = vals[s];
  }
}

template <typename T, int TS, int WARPS>
__global__ void __launch_bounds__(WARPS * 32)
    warp_rows_kernel(csr_in in, const T *__restrict__ Av, const T *__restrict__ Bv,
                     const int32_t *__restrict__ list, int64_t n, rows_state rs, pass_out<T> out) {
  constexpr int BITS = TS == 32 ? 5 : TS == 64 ? 6 : TS == 128 ? 7 : TS == 256 ? 8 : 9;
  static_assert((1 << BITS) == TS, "table size");
  __shared__ int32_t skeys[WARPS][TS];
  __shared__ T svals[WARPS][TS];
  __shared__ int scnt[WARPS];
  const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
  int32_t *keys = skeys[w];
  T *vals = svals[w];
  for (int64_t t = (int64_t)blockIdx.x * WARPS + w; t < n; t += (int64_t)gridDim.x * WARPS) {
    const int32_t row = list[t];
    const int cap = rs.room[row];
    for (int s = lane; s < TS; s += 32) {
      keys[s] = -1;
      vals[s] = T(0);
    }
    if (lane == 0) scnt[w] = 0;
    __syncwarp();
    bool over = false;
    const int64_t a1 = in.Ap[row + 1];
    for (int64_t ab = in.Ap[row]; ab < a1 && !over; ab += 32) {
      const int64_t a = ab + lane;
      int64_t bs = 0;
      int len = 0;
      T av = T(0);
      if (a < a1) {
        const int32_t k = in.Ai[a];
        av = Av[a];
        bs = in.Bp[k];
        len = (int)(in.Bp[k + 1] - bs);
      }
      int pre = len; // inclusive scan of the lengths
      for (int o = 1; o < 32; o <<= 1) {
        const int y = __shfl_up_sync(kFull, pre, o);
        if (lane >= o) pre += y;
      }
      const int total = __shfl_sync(kFull, pre, 31);
      for (int base = 0; base < total && !over; base += 32) {
        const int q = base + lane;
        int l = 0; // lanes before l have pre <= q
        for (int step = 16; step > 0; step >>= 1)
          if (__shfl_sync(kFull, pre, l + step - 1) <= q) l += step;
        const int spre = __shfl_sync(kFull, pre, l), slen = __shfl_sync(kFull, len, l);
        const int64_t sbs = __shfl_sync(kFull, bs, l);
        const T sav = __shfl_sync(kFull, av, l);
        bool mine = false;
        if (q < total) {
          const int64_t b = sbs + (q - (spre - slen));
          const int r = hash_add(keys, vals, BITS, in.Bi[b], sav * Bv[b]);
          mine = r < 0 || (r > 0 && atomicAdd(&scnt[w], 1) >= cap);
        }
        over = __any_sync(kFull, mine);
      }
    }
    __syncwarp();
    const int z = scnt[w];
    if (over || z > cap) {
      if (lane == 0) {
        rs.z[row] = -1;
        out.ovf_rows[atomicAdd(out.ovf_count, 1ull)] = row;
      }
      __syncwarp();
      continue;
    }
    // compact the occupied slots in place (a chunk is read before any of it is overwritten)
    int pos = 0;
    for (int s0 = 0; s0 < TS; s0 += 32) {
      const int32_t k = keys[s0 + lane];
      const T v = vals[s0 + lane];
      const uint32_t m = __ballot_sync(kFull, k != -1);
      __syncwarp();
      if (k != -1) {
        const int d = pos + __popc(m & ((1u << lane) - 1u));
        keys[d] = k;
        vals[d] = v;
      }
      pos += __popc(m);
      __syncwarp();
    }
    const int64_t off = rs.off[row];
    warp_sort_write<T, TS>(keys, vals, z, lane, out.ci + off, out.cv + off);
    if (lane == 0) {
      rs.z[row] = z;
      rs.src[row] = out.buf_id;
    }
    __syncwarp();
  }
}

// ---- the block bins and the global bin --------------------------------------------------------

// Block-wide bitonic sort of keys/vals[0, P) (P a power of two).
template <typename T>
__device__ void block_bitonic(int32_t *keys, T *vals, int64_t P) {
  for (int64_t k = 2; k <= P; k <<= 1)
    for (int64_t j = k >> 1; j > 0; j >>= 1) {
      for (int64_t i = threadIdx.x; i < P; i += blockDim.x) {
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

// GLOBAL = false: a table of 2^bits slots in dynamic shared memory, abort when the room is
// passed. GLOBAL = true: the row's table in global memory (bits from its FLOP bound, never
// full), its exact size always found; a row larger than its room is listed with its size.
template <typename T, int TPB, bool GLOBAL>
__global__ void __launch_bounds__(TPB)
    block_rows_kernel(csr_in in, const T *__restrict__ Av, const T *__restrict__ Bv,
                      const int32_t *__restrict__ list, int64_t n, int shared_bits, rows_state rs,
                      pass_out<T> out) {
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ int cnt, cnt2, over;
  const int warp = threadIdx.x / 32, nwarps = TPB / 32, l32 = threadIdx.x % 32;
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
    volatile int *vover = &over;
    for (int64_t a = in.Ap[row] + warp; a < in.Ap[row + 1]; a += nwarps) {
      if (!GLOBAL && *vover) break;
      const int32_t k = in.Ai[a];
      const T av = Av[a];
      for (int64_t b = in.Bp[k] + l32; b < in.Bp[k + 1]; b += 32) {
        if (!GLOBAL && *vover) break;
        const int r = hash_add(keys, vals, bits, in.Bi[b], av * Bv[b]);
        if (r > 0) {
          const int c = atomicAdd(&cnt, 1);
          if (!GLOBAL && c >= cap) over = 1;
        } else if (r < 0) {
          over = 1;
        }
      }
    }
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
      for (int64_t s0 = 0; s0 < slots; s0 += TPB) {
        const int64_t s = s0 + threadIdx.x;
        const int32_t k = keys[s];
        const T v = vals[s];
        __syncthreads();
        if (k != -1) {
          const int d = atomicAdd(&cnt2, 1);
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
    {
      int64_t P = 1;
      while (P < z) P <<= 1;
      for (int64_t s = z + threadIdx.x; s < P; s += TPB) keys[s] = INT_MAX;
      __syncthreads();
      block_bitonic(keys, vals, P);
      for (int64_t s = threadIdx.x; s < z; s += TPB) {
        oci[s] = keys[s];
        ocv[s] = vals[s];
      }
    }
    if (threadIdx.x == 0) {
      rs.z[row] = z;
      rs.src[row] = out.buf_id;
    }
    __syncthreads();
  }
}

// ---- the predictor and the plan ---------------------------------------------------------------

constexpr int kClasses = GCOO_PREDICT_CLASSES_COUNT; // by floor(log2 hi(i)), src/predict_classes.h

// A room and a global table size, scanned together.
struct pair64 {
  int64_t room, tab;
};
struct pair64_sum {
  __host__ __device__ pair64 operator()(const pair64 &a, const pair64 &b) const {
    return {a.room + b.room, a.tab + b.tab};
  }
};

struct class_stats {
  unsigned long long rows[kClasses];   // rows with hi > lo
  unsigned long long g[kClasses];      // sum of hi - lo over them
  unsigned long long s_rows[kClasses]; // sampled rows
  unsigned long long s_g[kClasses];    // sum of hi - lo over the sampled rows
  unsigned long long s_dz[kClasses];   // sum of z - lo over the sampled rows
  unsigned int s_umax[kClasses];       // largest (z - lo) / (hi - lo) sampled, fixed point 2^30
  unsigned long long flop, sum_lo, sum_hi;
};

__device__ __forceinline__ int class_of(int32_t hi) { return gcoo__class_of(hi); }

// flop, lo, hi of rows [0, m); class histogram.
__global__ void bounds_kernel(csr_in in, int64_t m, int64_t ncols, rows_state rs, class_stats *cs) {
  __shared__ unsigned long long hr[kClasses], hg[kClasses], sflop, slo, shi;
  if (threadIdx.x < kClasses) hr[threadIdx.x] = hg[threadIdx.x] = 0;
  if (threadIdx.x == 0) sflop = slo = shi = 0;
  __syncthreads();
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long tf = 0, tl = 0, th = 0;
  if (i < m) {
    int64_t f = 0, lo = 0;
    for (int64_t a = in.Ap[i]; a < in.Ap[i + 1]; a++) {
      const int32_t k = in.Ai[a];
      const int64_t len = in.Bp[k + 1] - in.Bp[k];
      f += len;
      lo = len > lo ? len : lo;
    }
    const int64_t hi = f < ncols ? f : ncols;
    rs.hi[i] = (int32_t)(hi < INT_MAX ? hi : INT_MAX);
    rs.lo[i] = (int32_t)lo;
    rs.z[i] = hi == lo ? (int32_t)hi : -1;
    rs.src[i] = kSrcNone;
    if (hi > lo) {
      const int c = class_of((int32_t)hi);
      atomicAdd(&hr[c], 1ull);
      atomicAdd(&hg[c], (unsigned long long)(hi - lo));
    }
    tf = (unsigned long long)f;
    tl = (unsigned long long)lo;
    th = (unsigned long long)hi;
  }
  for (int o = 16; o > 0; o >>= 1) { // warp sums first: one shared atomic per warp
    tf += __shfl_down_sync(kFull, tf, o);
    tl += __shfl_down_sync(kFull, tl, o);
    th += __shfl_down_sync(kFull, th, o);
  }
  if (threadIdx.x % 32 == 0) {
    atomicAdd(&sflop, tf);
    atomicAdd(&slo, tl);
    atomicAdd(&shi, th);
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
  }
}

// Rows of [0, m) with uncertainty whose coin falls under their class's threshold: the sample
// (room = hi, appended to list).
__global__ void select_kernel(int64_t m, uint64_t seed, rows_state rs, const class_stats *cs,
                              int32_t *list, unsigned long long *count) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  const int32_t hi = rs.hi[i], lo = rs.lo[i];
  if (hi <= lo) return;
  const int c = class_of(hi);
  if ((unsigned long long)gcoo__row_coin(seed, i) < gcoo__class_threshold(cs->rows[c])) {
    rs.room[i] = hi;
    list[atomicAdd(count, 1ull)] = (int32_t)i;
  }
}

// Per-class sums over the sampled rows (after their pass).
__global__ void sample_sums_kernel(const int32_t *list, int64_t n, rows_state rs, class_stats *cs) {
  const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  const int32_t i = list[t], hi = rs.hi[i], lo = rs.lo[i], z = rs.z[i];
  const int c = class_of(hi);
  atomicAdd(&cs->s_rows[c], 1ull);
  atomicAdd(&cs->s_g[c], (unsigned long long)(hi - lo));
  atomicAdd(&cs->s_dz[c], (unsigned long long)(z - lo));
  atomicMax(&cs->s_umax[c], gcoo__class_ufix(z, lo, hi));
}

// Rooms of rows [r0, r1) not yet computed (src == kSrcNone) with work: exact where the size is
// known (z >= 0), else lo + ceil(v (hi - lo)); they form the list of the pass.
__global__ void rooms_kernel(int64_t r0, int64_t r1, double safety, rows_state rs,
                             const class_stats *cs, int32_t *list, unsigned long long *count) {
  const int64_t i = r0 + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= r1) return;
  const int32_t hi = rs.hi[i];
  if (hi == 0) {
    rs.z[i] = 0;
    return;
  }
  if (rs.src[i] != kSrcNone) return;
  const int32_t z = rs.z[i];
  int32_t room;
  if (z >= 0) {
    room = z;
  } else {
    const int c = class_of(hi);
    const double u = gcoo__class_fraction(cs->s_g[c], cs->s_dz[c]);
    room = gcoo__class_rows_room(rs.lo[i], hi, gcoo__class_room(u, cs->s_umax[c], safety));
  }
  rs.room[i] = room;
  list[atomicAdd(count, 1ull)] = (int32_t)i;
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
// to *flop (what the overflow cost).
__global__ void reroom_kernel(const int32_t *list, int64_t n, rows_state rs, csr_in in,
                              unsigned long long *flop) {
  const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  const int32_t i = list[t], z = rs.z[i];
  rs.room[i] = z >= 0 ? z : rs.hi[i];
  int64_t f = 0;
  for (int64_t a = in.Ap[i]; a < in.Ap[i + 1]; a++) f += in.Bp[in.Ai[a] + 1] - in.Bp[in.Ai[a]];
  atomicAdd(flop, (unsigned long long)f);
}

// ---- bins -------------------------------------------------------------------------------------

constexpr int kNumBins = 10, kGlobalBin = 9;
// table slots per bin (0: global), threads per row, most keys that can arrive after a row's
// room is passed (so the table still has a free slot)
__host__ __device__ inline int bin_slots(int b) {
  const int t[kNumBins] = {32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 0};
  return t[b];
}
__host__ __device__ inline int bin_threads(int b) {
  const int t[kNumBins] = {32, 32, 32, 32, 32, 128, 256, 512, 1024, 1024};
  return t[b];
}
// The first bin whose table takes the row: never full (room + margin, or hi, plus one free
// slot) and at most 2/3 loaded at the room. `last_shared`: largest shared bin for this type.
__host__ __device__ inline int bin_of(int32_t hi, int32_t room, int last_shared) {
  for (int b = 0; b <= last_shared; b++) {
    const int64_t ts = bin_slots(b), margin = bin_threads(b);
    const int64_t keys = room >= hi ? hi : (room + margin < hi ? room + margin : hi);
    if (ts >= keys + 1 && 2 * ts >= 3 * (int64_t)room) return b;
  }
  return kGlobalBin;
}
__host__ __device__ inline int64_t global_slots(int32_t hi) {
  int bits = 6;
  while (((int64_t)1 << bits) * 2 < 3 * (int64_t)hi) bits++;
  return (int64_t)1 << bits;
}

// Count the first *d_n rows of a list per bin (nmax at most); room and global table size of
// each entry, 0 from *d_n to nmax (for the exclusive scans over nmax + 1 entries).
__global__ void bin_count_kernel(const int32_t *list, const unsigned long long *d_n, int64_t nmax,
                                 rows_state rs, int last_shared, unsigned long long *bin_count,
                                 pair64 *sizes) {
  __shared__ unsigned long long h[kNumBins];
  if (threadIdx.x < kNumBins) h[threadIdx.x] = 0;
  __syncthreads();
  const int64_t n = (int64_t)*d_n;
  const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) {
    const int32_t i = list[t], hi = rs.hi[i], room = rs.room[i];
    const int b = bin_of(hi, room, last_shared);
    atomicAdd(&h[b], 1ull);
    sizes[t] = {room, b == kGlobalBin ? global_slots(hi) : 0};
  } else if (t <= nmax) {
    sizes[t] = {0, 0};
  }
  __syncthreads();
  if (threadIdx.x < kNumBins && h[threadIdx.x]) atomicAdd(&bin_count[threadIdx.x], h[threadIdx.x]);
}

// Scatter rows into their bins (cursor[b] starts at the bin's offset) and their room and table
// offsets into the per-row arrays.
__global__ void bin_scatter_kernel(const int32_t *list, int64_t n, rows_state rs, int last_shared,
                                   unsigned long long *bin_count, const pair64 *offs,
                                   int64_t *tab_off, int32_t *binned) {
  const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  const int32_t i = list[t];
  const int b = bin_of(rs.hi[i], rs.room[i], last_shared);
  unsigned long long start = 0; // the bin's first place: counts of the bins before it
  for (int c = 0; c < b; c++) start += bin_count[c];
  binned[start + atomicAdd(&bin_count[kNumBins + b], 1ull)] = i;
  rs.off[i] = offs[t].room;
  tab_off[i] = offs[t].tab;
}

// The plan's totals next to its counts, so that one copy brings them to the host:
// bin_count[2 kNumBins ..] = (list length, total room, total table slots).
__global__ void plan_summary_kernel(unsigned long long *bin_count, const pair64 *total,
                                    const unsigned long long *d_n) {
  if (threadIdx.x == 0) {
    bin_count[2 * kNumBins] = *d_n;
    bin_count[2 * kNumBins + 1] = (unsigned long long)total->room;
    bin_count[2 * kNumBins + 2] = (unsigned long long)total->tab;
  }
}

// ctr[4] = rowptr[n] (nnz of the batch), next to the counters, for one copy.
__global__ void nnz_to_counter(const int64_t *rowptr, int64_t n, unsigned long long *ctr) {
  if (threadIdx.x == 0) ctr[4] = (unsigned long long)rowptr[n];
}

// ---- layout -----------------------------------------------------------------------------------

// Row sizes of rows [r0, r0 + n) as int64 into cnt[0..n), cnt[n] = 0 (for an exclusive scan).
__global__ void gather_sizes(const int32_t *__restrict__ z, int64_t r0, int64_t n,
                             int64_t *__restrict__ cnt) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) cnt[i] = z[r0 + i];
  if (i == n) cnt[n] = 0;
}

template <typename T>
struct bufs {
  const int32_t *ci[3];
  const T *cv[3];
};

// Lay rows [r0, r0 + n) out as CSR. A block takes kCompactRows consecutive rows and copies their
// entries as one flat range (thread j: entries j, j + blockDim, ...; a binary search in the
// block's row pointers finds an entry's row), so short rows do not leave lanes idle and C is
// written contiguously.
constexpr int kCompactRows = 256;
template <typename T>
__global__ void __launch_bounds__(256)
    compact_rows(int64_t r0, int64_t n, const int64_t *__restrict__ rowptr, rows_state rs,
                 bufs<T> b, int32_t *__restrict__ ci, T *__restrict__ cv) {
  __shared__ int64_t sp[kCompactRows + 1], so[kCompactRows];
  __shared__ uint8_t sid[kCompactRows];
  const int64_t first = (int64_t)blockIdx.x * kCompactRows;
  const int nrows = (int)(n - first < kCompactRows ? n - first : kCompactRows);
  for (int i = threadIdx.x; i <= nrows; i += blockDim.x) sp[i] = rowptr[first + i];
  for (int i = threadIdx.x; i < nrows; i += blockDim.x) {
    so[i] = rs.off[r0 + first + i];
    sid[i] = rs.src[r0 + first + i];
  }
  __syncthreads();
  const int64_t base = sp[0], end = sp[nrows];
  for (int64_t q = base + threadIdx.x; q < end; q += blockDim.x) {
    int lo = 0, hi = nrows - 1; // the largest r with sp[r] <= q
    while (lo < hi) {
      const int mid = (lo + hi + 1) >> 1;
      if (sp[mid] <= q)
        lo = mid;
      else
        hi = mid - 1;
    }
    const int id = sid[lo];
    const int64_t from = so[lo] + (q - sp[lo]);
    const int32_t *si = id == 0 ? b.ci[0] : id == 1 ? b.ci[1] : b.ci[2];
    const T *sv = id == 0 ? b.cv[0] : id == 1 ? b.cv[1] : b.cv[2];
    ci[q] = si[from];
    cv[q] = sv[from];
  }
}

} // namespace gcoo_spg

#endif
