// SPDX-License-Identifier: MIT
// kernels/spgemm/spgemm_block.cuh: the block bins and the global bin of gcoo's SpGEMM: a row's
// products spread over a block, accumulated in a shared table (hashed, or dense over the row's
// column span) or a global one, then ranked or sorted (spgemm_kernels.cuh describes the bins).
#ifndef GCOO_KERNELS_SPGEMM_BLOCK_CUH
#define GCOO_KERNELS_SPGEMM_BLOCK_CUH

#include "spgemm_state.cuh"

namespace gcoo_spg {

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

} // namespace gcoo_spg

#endif
