// SPDX-License-Identifier: MIT
// kernels/spdm/spdm_row_sum.cuh: one row's (or one row piece's) sum A(row, :) X(:, tile) with many X
// loads in flight, for a slot of 8 lanes (docs/kernels.md, "The batched kernel"). Shared by the
// batched kernel (kernels/spdm/spdm_batched.cu) and the row-split kernel's 16-byte path
// (kernels/spdm/spdm_split.cu).
//
// At N = 32 every SpMM kernel on these GPUs waits on the dependent loads (row pointer, columns,
// the X rows they name), not on bandwidth: what matters is how many X rows a lane has in flight.
// The slot takes the entries B at a time: its 8 lanes load them coalesced (B / 8 each), turn the
// columns into X offsets and put both in the slot's shared strip; each lane then issues the X
// loads of all B entries (in groups of 8, a group skipped when the row has no entry in it)
// before the FMAs, while the next batch's entries load. Lane `lane` owns packs lane, lane + 8,
// ... (VPT of them) of a tile of 8 VPT 16-byte packs starting at column col0.
//
// Needs the 16-byte path: X aligned, ldx a multiple of the pack, col0 a multiple of the pack and
// k x ldx / pack < 2^31 (gcoo_cuda_batched_fits), X having at least one row when e1 > e0.
#ifndef GCOO_SPDM_ROW_SUM_CUH
#define GCOO_SPDM_ROW_SUM_CUH

#include <stdint.h>
#include <string.h>

#include "spdm_common.cuh"

namespace {

/** A slot's strip: its batch's X row offsets in 16-byte packs (column x ldx / pack, so that a
 *  lane's address is one add to its own base) and values, read back 4 at a time. */
template <typename T, int B>
struct BatchStrip {
  alignas(16) uint32_t off[B];
  alignas(16) T val[B];
};

/** acc = A(e0 .. e1) X(:, this lane's packs) for one slot (the caller's 8 lanes call it
 *  together, with the same e0, e1 and strip). Terms are added in entry order. */
template <typename T, int B, int VPT>
__device__ __forceinline__ void batched_sum(const int32_t *__restrict__ colind,
                                            const T *__restrict__ vals, int64_t e0, int64_t e1,
                                            const T *__restrict__ X, int64_t ldx, int64_t col0,
                                            int64_t ncols, BatchStrip<T, B> &strip,
                                            Pack<T> (&acc)[VPT]) {
  using P = Pack<T>;
  using V = typename NativeVec<T>::type;
  constexpr int VEC = P::N;
  constexpr int Q = B / 8; // entries a lane loads a batch
  static_assert(B % 8 == 0 && B <= 32, "batches of 8, 16, 24 or 32 entries");
  const int lane = threadIdx.x & 7;
  const unsigned slot_mask = 0xffu << (threadIdx.x & 24);
  const uint32_t ldp = (uint32_t)(ldx / VEC);
  // this lane's pack v of an X row at xlane[v] + offset; a pack past ncols (the tile's last may
  // reach past it) reads the tile's first instead, so that every load is valid and none is
  // predicated (the caller does not store its sums)
  const V *xlane[VPT];
#pragma unroll
  for (int v = 0; v < VPT; v++)
    xlane[v] = reinterpret_cast<const V *>(X + col0) +
               (col0 + (int64_t)(v * 8 + lane) * VEC < ncols ? v * 8 + lane : 0);
  // this lane's entries of the first batch (X row 0, value 0 past the end). Every offset the
  // strip ever holds is a row of X, so the strip is read whole, without tests; entries past the
  // end are loaded (row 0, or a row of the previous batch) but not accumulated, so an Inf in X
  // cannot turn into a NaN through them.
  uint32_t oq[Q];
  T wq[Q];
#pragma unroll
  for (int q = 0; q < Q; q++) {
    const int64_t idx = e0 + q * 8 + lane;
    oq[q] = idx < e1 ? (uint32_t)colind[idx] * ldp : 0u;
    wq[q] = idx < e1 ? vals[idx] : T(0);
  }
#pragma unroll
  for (int v = 0; v < VPT; v++) acc[v] = pack_zero<T>();

  for (int64_t e = e0; e < e1; e += B) {
    const int n = e1 - e < B ? (int)(e1 - e) : B; // the same for the slot's 8 lanes
    __syncwarp(slot_mask);                        // the slot is done reading the previous batch
#pragma unroll
    for (int q = 0; q < Q; q++) {
      strip.off[q * 8 + lane] = oq[q];
      strip.val[q * 8 + lane] = wq[q];
    }
    __syncwarp(slot_mask); // the batch is in the strip
                           // the next batch's entries, in flight with this batch's X loads
#pragma unroll
    for (int q = 0; q < Q; q++) {
      const int64_t idx = e + B + q * 8 + lane;
      if (idx < e1) {
        oq[q] = (uint32_t)colind[idx] * ldp;
        wq[q] = vals[idx];
      }
    }
    P x[B][VPT];
#pragma unroll
    for (int g = 0; g < B; g += 8) {
      if (g >= n) break;
      uint32_t o[8];
      memcpy(o, strip.off + g, sizeof o); // two 16-byte shared loads
#pragma unroll
      for (int j = 0; j < 8; j++)
#pragma unroll
        for (int v = 0; v < VPT; v++) {
          const V q = __ldg(xlane[v] + o[j]);
          memcpy(&x[g + j][v], &q, sizeof q);
        }
    }
#pragma unroll
    for (int g = 0; g < B; g += 8) {
      if (g >= n) break;
      T w[8];
      memcpy(w, strip.val + g, sizeof w);
#pragma unroll
      for (int j = 0; j < 8; j++)
        if (g + j < n) {
#pragma unroll
          for (int v = 0; v < VPT; v++)
#pragma unroll
            for (int i = 0; i < VEC; i++) acc[v].e[i] += w[j] * x[g + j][v].e[i];
        }
    }
  }
}

} // namespace

#endif
