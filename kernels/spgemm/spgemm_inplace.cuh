// SPDX-License-Identifier: MIT
// kernels/spgemm/spgemm_inplace.cuh: the in-place pass of gcoo's SpGEMM, for products whose rows all
// have at most 31 products' worth of distinct columns (hi(i) <= 31: the first bin's rows, e.g.
// the 2-D Laplacian's 25 products and 13 entries a row). It computes C's rows in row order and
// writes each straight to its place in C, so no buffer of rooms is filled and no layout kernel
// copies C a second time (on the Laplacian in double the layout moved its 0.35 GB of C again:
// 314 us of 1.54 ms, ncu s7).
//
// A row's place in C is the sum of the sizes of the rows before it, known only once they are
// computed. The rows are cut into tiles of one block's rows (32: 8 lanes a row, 4 rows a warp,
// as the first bin); a block computes a tile into its shared tables, sums its sizes, and finds
// the sizes of the tiles before it by a decoupled look-back (Merrill and Garland, "Single-pass
// Parallel Prefix Scan with Decoupled Look-back", 2016: what CUB's scans do): each tile
// publishes its own total at once, then the sum of all before it when it knows it; a tile looks
// back over its predecessors' words until it meets such a prefix. Tiles are taken in order from
// a counter, not by blockIdx, so a block only ever waits on tiles that running blocks hold: no
// deadlock whatever order the hardware starts blocks in.
//
// C is allocated before the pass at a capacity (the predictor's total with the safety margin, or
// the bounds' total): a tile whose entries would pass it writes none of them but still publishes
// its sizes, so the pass always ends with C's exact row pointers and nnz; the host then
// allocates exactly nnz and runs it again (the predictor's miss costs one more pass, never a
// wrong C).
#ifndef GCOO_KERNELS_SPGEMM_INPLACE_CUH
#define GCOO_KERNELS_SPGEMM_INPLACE_CUH

#include "spgemm_kernels.cuh"

namespace gcoo_spg {

// A tile's status word: the flag in the top two bits, the value below.
constexpr unsigned long long kTileEmpty = 0, kTileTotal = 1ull << 62, kTilePrefix = 2ull << 62;
constexpr unsigned long long kTileValue = (1ull << 62) - 1;
constexpr int kInplaceWarps = 8, kInplaceLanes = 8;
constexpr int kInplaceRows = kInplaceWarps * (32 / kInplaceLanes); // rows a tile (a block's)

// What the in-place pass reads and writes besides A and B.
template <typename T>
struct inplace_out {
  int64_t *rowptr; // m + 1 entries, all written
  int32_t *ci;     // cap entries
  T *cv;
  int64_t cap;
  unsigned long long *tiles;  // a status word per tile, zeroed before the pass
  unsigned long long *ticket; // the next tile to take, zeroed before the pass
  unsigned long long *full;   // rows whose table filled (a broken bound: an internal error)
};

// The sum of the tiles before `tile` (warp-wide; every lane gets it), `total` being this tile's:
// publishes the tile's total, looks back 32 tiles at a time, then publishes its inclusive sum.
__device__ __forceinline__ unsigned long long tile_prefix(unsigned long long *tiles, int64_t tile,
                                                          unsigned long long total, int lane) {
  volatile unsigned long long *st = tiles;
  if (tile == 0) {
    if (lane == 0) st[0] = kTilePrefix | total;
    return 0;
  }
  if (lane == 0) st[tile] = kTileTotal | total;
  unsigned long long prefix = 0;
  for (int64_t top = tile - 1;; top -= 32) {
    const int64_t at = top - lane; // lane 0 the nearest predecessor
    unsigned long long w;
    do {                      // until every tile of the window has published something
      w = kTilePrefix | 0ull; // before tile 0: a prefix of 0
      if (at >= 0) w = st[at];
    } while (__ballot_sync(kFull, (w & ~kTileValue) == kTileEmpty) != 0);
    const uint32_t done = __ballot_sync(kFull, (w & ~kTileValue) == kTilePrefix);
    const int stop = done ? __ffs(done) - 1 : 31; // the nearest prefix ends the walk
    unsigned long long v = lane <= stop ? (w & kTileValue) : 0;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(kFull, v, o);
    prefix += v;
    if (done) break;
  }
  if (lane == 0) st[tile] = kTilePrefix | (prefix + total);
  return prefix;
}

// C = A B for rows of hi(i) <= 31, in place: a block takes tiles of kInplaceRows consecutive
// rows until none is left; each row is accumulated by 8 lanes as in the first bin
// (lanes_accumulate: a lane per A entry, a 32-slot table), compacted, and after the tile's
// look-back written in column order (ranked by counting) at its place in C.
template <typename T>
__global__ void __launch_bounds__(kInplaceWarps * 32)
    inplace_rows_kernel(csr_in in, const T *__restrict__ Av, const T *__restrict__ Bv, int64_t m,
                        inplace_out<T> out) {
  constexpr int G = kInplaceLanes, TS = 32, BITS = 5, GROUPS = kInplaceRows;
  static_assert(GROUPS <= 32, "a tile's sizes are scanned by one warp");
  constexpr int PAD = G; // as the first bin: the groups of a warp hit different banks
  __shared__ int32_t skeys[GROUPS][TS + PAD];
  __shared__ T svals[GROUPS][TS + PAD];
  __shared__ int32_t row_at[GROUPS]; // the tile's row sizes, then their places in the tile
  __shared__ int64_t tile_s;
  __shared__ unsigned long long prefix_s;
  __shared__ bool write_s;
  const int lane = threadIdx.x % 32, sub = lane / G, g = lane % G, grp = threadIdx.x / G;
  const uint32_t gmask = ((1u << G) - 1u) << (sub * G);
  int32_t *keys = skeys[grp];
  T *vals = svals[grp];
  for (;;) {
    if (threadIdx.x == 0) tile_s = (int64_t)atomicAdd(out.ticket, 1ull);
    __syncthreads();
    const int64_t tile = tile_s;
    if (tile * GROUPS >= m) break; // uniform over the block
    const int64_t row = tile * GROUPS + grp;
    const bool has = row < m; // uniform over the group
    const int64_t a0 = has ? in.Ap[row] : 0, a1 = has ? in.Ap[row + 1] : 0;
    for (int s = g; s < TS; s += G) {
      keys[s] = -1;
      vals[s] = T(0);
    }
    __syncwarp();
    bool full = false;
    const int z = lanes_accumulate<G, BITS>(in, Av, Bv, a0, a1, g, gmask, keys, vals, full);
    if (full && g == 0) atomicAdd(out.full, 1ull);
    __syncwarp();
    group_compact<G, TS>(keys, vals, g, sub, gmask);
    if (g == 0) row_at[grp] = z;
    __syncthreads();
    if (threadIdx.x < 32) { // the tile's sizes scanned, then the look-back
      const int v = lane < GROUPS ? row_at[lane] : 0;
      int incl = v;
      for (int o = 1; o < 32; o <<= 1) {
        const int y = __shfl_up_sync(kFull, incl, o);
        if (lane >= o) incl += y;
      }
      const unsigned long long total = (unsigned long long)__shfl_sync(kFull, incl, 31);
      const unsigned long long prefix = tile_prefix(out.tiles, tile, total, lane);
      if (lane < GROUPS) row_at[lane] = incl - v;
      if (lane == 0) {
        prefix_s = prefix;
        write_s = (int64_t)(prefix + total) <= out.cap;
      }
    }
    __syncthreads();
    if (has) {
      const int64_t at = (int64_t)prefix_s + row_at[grp];
      if (write_s) group_count_write<G>(keys, vals, z, g, out.ci + at, out.cv + at);
      if (g == 0) {
        out.rowptr[row] = at;
        if (row == m - 1) out.rowptr[m] = at + z;
      }
    }
    __syncthreads(); // the tables, row_at and tile_s are the next tile's
  }
}

} // namespace gcoo_spg

#endif
