// SPDX-License-Identifier: MIT
// kernels/spgemm_kernels.cuh: the device side of gcoo's SpGEMM (C++ templates on the element
// type T, the threads per row GROUP and the block size TPB).
//
// One group of GROUP threads computes one row of C in a hash table of 2^bits slots (shared
// memory for the bins of short rows, a slice of a global scratch buffer for the longest rows):
// keys are columns (-1 empty), values accumulate with atomicAdd. The table is then sorted
// whole (bitonic, empty slots as INT_MAX last), so its first z slots are the row, by column.
// The row is written only if z fits the room the prediction gave it; otherwise its size is
// recorded and the row is listed for recomputation. Nothing is written past a row's room.
#ifndef GCOO_KERNELS_SPGEMM_KERNELS_CUH
#define GCOO_KERNELS_SPGEMM_KERNELS_CUH

#include <climits>
#include <cstdint>

namespace gcoo_spg {

// Fibonacci hashing (the same as the CPU's): the top `bits` bits of col * 2^32 / phi.
__device__ __forceinline__ uint32_t slot_of(int32_t col, int bits) {
  return ((uint32_t)col * 2654435769u) >> (32 - bits);
}

template <int GROUP>
__device__ __forceinline__ void group_sync() {
  if constexpr (GROUP == 32) __syncwarp();
  else __syncthreads();
}

// Work of one row: where it goes and how much room it has (per list entry).
struct row_job {
  const int32_t *rows;      // global row ids
  const int64_t *out_off;   // offset of the row's room in the output buffer
  const int64_t *out_cap;   // the room, in entries
  const int64_t *tab_off;   // GLOBAL: offset of the row's table in the scratch buffer
  const int8_t *tab_bits;   // GLOBAL: log2 of its size
  int64_t n;                // entries in the list
};

// Where rows' results go and what is recorded about them.
template <typename T>
struct row_out {
  int32_t *ci;              // output buffer (this pass's)
  T *cv;
  int64_t *row_nnz;         // by row: its exact NNZ
  int64_t *src_off;         // by row: where its entries are
  uint8_t *src_buf;         // by row: in which buffer (buf_id)
  uint8_t buf_id;
  int32_t *ovf_rows;        // rows that did not fit (first pass only)
  unsigned long long *ovf_count;
  int32_t *gkeys;           // GLOBAL scratch tables
  T *gvals;
};

template <typename T, int GROUP, int TPB, bool GLOBAL>
__global__ void __launch_bounds__(TPB)
    spgemm_rows_kernel(const int64_t *__restrict__ Ap, const int32_t *__restrict__ Ai,
                       const T *__restrict__ Av, const int64_t *__restrict__ Bp,
                       const int32_t *__restrict__ Bi, const T *__restrict__ Bv, row_job job,
                       int shared_bits, row_out<T> out) {
  constexpr int RPB = TPB / GROUP;  // rows per block
  extern __shared__ __align__(16) unsigned char smem[];
  const int g = threadIdx.x / GROUP, lane = threadIdx.x % GROUP;
  const int64_t t = (int64_t)blockIdx.x * RPB + g;
  if (t >= job.n) return;  // whole groups leave together (GROUP == TPB: the whole block)
  const int bits = GLOBAL ? (int)job.tab_bits[t] : shared_bits;
  const int slots = 1 << bits;
  int32_t *keys;
  T *vals;
  int *cnt;
  if constexpr (GLOBAL) {
    keys = out.gkeys + job.tab_off[t];
    vals = out.gvals + job.tab_off[t];
    cnt = reinterpret_cast<int *>(smem);
  } else {
    vals = reinterpret_cast<T *>(smem) + (size_t)g * slots;
    keys = reinterpret_cast<int32_t *>(smem + (size_t)RPB * slots * sizeof(T)) + (size_t)g * slots;
    cnt = reinterpret_cast<int *>(smem + (size_t)RPB * slots * (sizeof(T) + sizeof(int32_t))) + g;
  }
  const int64_t row = job.rows[t];
  for (int s = lane; s < slots; s += GROUP) {
    keys[s] = -1;
    vals[s] = T(0);
  }
  if (lane == 0) *cnt = 0;
  group_sync<GROUP>();

  // accumulate: the group's warps take entries of row `row` of A, lanes stride a row of B
  const int sub = lane / 32, nsub = GROUP / 32, l32 = lane % 32;
  const uint32_t mask = (uint32_t)slots - 1u;
  for (int64_t a = Ap[row] + sub; a < Ap[row + 1]; a += nsub) {
    const int32_t k = Ai[a];
    const T av = Av[a];
    for (int64_t b = Bp[k] + l32; b < Bp[k + 1]; b += 32) {
      const int32_t col = Bi[b];
      const T v = av * Bv[b];
      uint32_t h = slot_of(col, bits);
      for (;;) {
        const int32_t key = keys[h];
        if (key == col) {
          atomicAdd(&vals[h], v);
          break;
        }
        if (key == -1) {
          const int32_t old = atomicCAS(&keys[h], -1, col);
          if (old == -1) atomicAdd(cnt, 1);
          if (old == -1 || old == col) {
            atomicAdd(&vals[h], v);
            break;
          }
        }
        h = (h + 1) & mask;  // the table has > 2 x (row's FLOP bound) slots: never full
      }
    }
  }
  group_sync<GROUP>();
  const int64_t z = *cnt;

  // sort the whole table by column, empty slots last
  for (int s = lane; s < slots; s += GROUP)
    if (keys[s] == -1) keys[s] = INT_MAX;
  group_sync<GROUP>();
  for (int64_t k = 2; k <= slots; k <<= 1)  // 64-bit: slots may be 2^30
    for (int j = k >> 1; j > 0; j >>= 1) {
      for (int i = lane; i < slots; i += GROUP) {
        const int ixj = i ^ j;
        if (ixj > i) {
          const int32_t ki = keys[i], kj = keys[ixj];
          const bool up = (i & k) == 0;
          if ((ki > kj) == up) {
            keys[i] = kj;
            keys[ixj] = ki;
            const T tv = vals[i];
            vals[i] = vals[ixj];
            vals[ixj] = tv;
          }
        }
      }
      group_sync<GROUP>();
    }

  // write the row if it fits its room, else record it for recomputation
  const int64_t cap = job.out_cap[t], off = job.out_off[t];
  if (z <= cap) {
    for (int64_t s = lane; s < z; s += GROUP) {
      out.ci[off + s] = keys[s];
      out.cv[off + s] = vals[s];
    }
    if (lane == 0) {
      out.row_nnz[row] = z;
      out.src_off[row] = off;
      out.src_buf[row] = out.buf_id;
    }
  } else if (lane == 0) {
    out.row_nnz[row] = z;
    const unsigned long long at = atomicAdd(out.ovf_count, 1ull);
    out.ovf_rows[at] = (int32_t)row;
  }
}

// Row counts of rows [r0, r0 + n) into cnt[0..n) and cnt[n] = 0 (for an exclusive scan).
__global__ void gather_counts(const int64_t *__restrict__ row_nnz, int64_t r0, int64_t n,
                              int64_t *__restrict__ cnt) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) cnt[i] = row_nnz[r0 + i];
  if (i == n) cnt[n] = 0;
}

// Lay rows [r0, r0 + n) out as CSR: a warp per row copies from the buffer the row was written to.
template <typename T>
__global__ void compact_rows(int64_t r0, int64_t n, const int64_t *__restrict__ rowptr,
                             const int64_t *__restrict__ src_off,
                             const uint8_t *__restrict__ src_buf, const int32_t *__restrict__ ci0,
                             const T *__restrict__ cv0, const int32_t *__restrict__ ci1,
                             const T *__restrict__ cv1, int32_t *__restrict__ ci,
                             T *__restrict__ cv) {
  const int64_t w = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (w >= n) return;
  const int64_t z = rowptr[w + 1] - rowptr[w];
  if (z == 0) return;
  const int64_t from = src_off[r0 + w], to = rowptr[w];
  const bool second = src_buf[r0 + w] != 0;
  const int32_t *si = second ? ci1 : ci0;
  const T *sv = second ? cv1 : cv0;
  for (int64_t s = lane; s < z; s += 32) {
    ci[to + s] = si[from + s];
    cv[to + s] = sv[from + s];
  }
}

}  // namespace gcoo_spg

#endif
