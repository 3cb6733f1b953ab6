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
//
// The device code is in phases, one header each: spgemm_state.cuh (shared state, insertion,
// sorting, ranks), spgemm_warp.cuh (the first bin, the warp bins), spgemm_block.cuh (the block
// bins, the global bin), spgemm_plan.cuh (bounds, rooms, bins, the direct recomputation),
// spgemm_layout.cuh (C's layout).
#ifndef GCOO_KERNELS_SPGEMM_KERNELS_CUH
#define GCOO_KERNELS_SPGEMM_KERNELS_CUH

#include "spgemm_block.cuh"
#include "spgemm_layout.cuh"
#include "spgemm_plan.cuh"
#include "spgemm_state.cuh"
#include "spgemm_warp.cuh"

#endif
