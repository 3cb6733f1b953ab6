// SPDX-License-Identifier: MIT
// kernels/spgemm/spgemm_warp.cuh: the first bin and the warp bins of gcoo's SpGEMM: a row's
// products flattened over a group of lanes or a warp, accumulated in a shared hash table,
// compacted and ranked (spgemm_kernels.cuh describes the bins).
#ifndef GCOO_KERNELS_SPGEMM_WARP_CUH
#define GCOO_KERNELS_SPGEMM_WARP_CUH

#include "spgemm_state.cuh"

namespace gcoo_spg {

// ---- the warp bins ----------------------------------------------------------------------------

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

} // namespace gcoo_spg

#endif
