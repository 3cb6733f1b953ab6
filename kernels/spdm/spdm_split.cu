// SPDX-License-Identifier: MIT
// kernels/spdm/spdm_split.cu: the row-split variant of the tuned GCOOSpDM (docs/kernels.md, "The
// row-split variant"), for matrices whose rows differ wildly in length (power-law graphs, circuit
// matrices).
//
// Y (m x N) = alpha A X + beta Y, X and Y row-major. The other tuned variants give a row to one
// slot of 8 lanes: one row of thousands of entries then holds its block (and the tail of the
// grid) back while every other slot has finished. Here the unit of work is an item of the
// row-split layout (gcoo_cuda_split): a whole row of at most `piece` entries, or a piece of a
// longer row. Slot s of block b takes item b * slots + s, so every slot does at most `piece`
// entries and the grid is as long as the items. An item that is a whole row writes its row of Y
// (alpha and beta applied); a piece writes its partial sum to its row of the workspace, and a
// second kernel adds each long row's partials and writes that row of Y. Without atomics the sum
// is the same from run to run.
//
// Thread layout within a slot as in the direct kernel (kernels/spdm/spdm_tuned.cu): lane `lane` owns
// packs lane, lane + 8, ... (VPT of them) of a tile of 8 * VPT packs of columns. Columns run in
// passes of the workspace's width (work_cols); within a pass the grid's y is the tile.
#include <stdint.h>
#include <string.h>

#include "common/cuda_check.h"
#include "common/gcoo_kernels.h"
#include "spdm_row_sum.cuh"
#include "spdm_common.cuh"

namespace {

constexpr int kThreads = 256; // 32 slots of 8 lanes
constexpr int kSlots = kThreads / 8;
// Blocks per SM below which the launcher narrows the tile (as the direct kernel does).
constexpr int64_t kMinBlocksPerSM = 62;

template <typename T>
struct SplitArgs {
  const int64_t *rowptr;
  const int32_t *colind;
  const T *vals;
  const int64_t *item_begin, *item_row, *item_slot;
  const int64_t *item_order; // NULL: the items in row order; else item_order[i] is the i-th
  int64_t nitems, piece;
  const int64_t *long_row, *long_ptr;
  int64_t nlong;
  T *work;
  int64_t work_cols;
  DenseOps<T> d;      // X, Y, their leading dimensions, alpha, beta
  int64_t col0, jend; // this pass: columns [col0, jend)
};

// The element-wise path of an item's sum (X unaligned, or N not a multiple of the pack).
template <typename T, int VPT>
__device__ __forceinline__ void split_item_sum(const SplitArgs<T> &a, int64_t e0, int64_t e1,
                                               int64_t tcol, int lane, Pack<T> (&acc)[VPT]) {
  using P = Pack<T>;
  constexpr int VEC = P::N;
#pragma unroll
  for (int v = 0; v < VPT; v++) acc[v] = pack_zero<T>();
  // Four entries at a time: their indices, values and X rows are all loaded before the FMAs,
  // so that a lane has four independent X loads in flight (one at a time leaves the kernel
  // latency-bound: 0.45-0.85x of cuSPARSE on power-law rows, H200).
  constexpr int U = 4;
  int64_t e = e0;
  for (; e + U <= e1; e += U) {
    T val[U];
    const T *xr[U];
#pragma unroll
    for (int u = 0; u < U; u++) {
      val[u] = a.vals[e + u];
      xr[u] = a.d.X + (int64_t)a.colind[e + u] * a.d.ldx;
    }
#pragma unroll
    for (int v = 0; v < VPT; v++) {
      P x[U];
#pragma unroll
      for (int u = 0; u < U; u++)
        x[u] = load_pack(xr[u], tcol + (int64_t)(v * 8 + lane) * VEC, a.jend, a.d.xvec);
#pragma unroll
      for (int u = 0; u < U; u++)
#pragma unroll
        for (int i = 0; i < VEC; i++) acc[v].e[i] += val[u] * x[u].e[i];
    }
  }
  for (; e < e1; e++) {
    const T val = a.vals[e];
    const T *xr = a.d.X + (int64_t)a.colind[e] * a.d.ldx;
#pragma unroll
    for (int v = 0; v < VPT; v++) {
      const P x = load_pack(xr, tcol + (int64_t)(v * 8 + lane) * VEC, a.jend, a.d.xvec);
#pragma unroll
      for (int i = 0; i < VEC; i++) acc[v].e[i] += val * x.e[i];
    }
  }
}

// Entries a batch of the 16-byte path (batched_sum, kernels/spdm/spdm_row_sum.cuh): 16 at 1 vector a
// lane, 8 at 2 (16 X loads in flight; 16 entries at 2 vectors took 170 registers, one block of
// 256 an SM).
template <int VPT>
struct SplitBatch {
  static constexpr int B = VPT == 1 ? 16 : 8;
};

template <typename T, int VPT, bool BATCHED>
__global__ void __launch_bounds__(kThreads) split_items_kernel(const SplitArgs<T> a) {
  using P = Pack<T>;
  constexpr int VEC = P::N;
  const int slot = threadIdx.x >> 3, lane = threadIdx.x & 7;
  const int64_t pos = (int64_t)blockIdx.x * kSlots + slot;
  if (pos >= a.nitems) return; // no barrier follows
  const int64_t it = a.item_order ? a.item_order[pos] : pos;
  const int64_t row = a.item_row[it];
  const int64_t e0 = a.item_begin[it];
  const int64_t rend = a.rowptr[row + 1];
  const int64_t e1 = e0 + a.piece < rend ? e0 + a.piece : rend;
  const int64_t tcol = a.col0 + (int64_t)blockIdx.y * (8 * VPT * VEC);
  P acc[VPT];
  if (BATCHED) {
    __shared__ BatchStrip<T, SplitBatch<VPT>::B> strips[kSlots];
    batched_sum<T, SplitBatch<VPT>::B, VPT>(a.colind, a.vals, e0, e1, a.d.X, a.d.ldx, tcol, a.jend,
                                            strips[slot], acc);
  } else {
    split_item_sum<T, VPT>(a, e0, e1, tcol, lane, acc);
  }
  const int64_t ws = a.item_slot[it];
  if (ws < 0) {
    T *yr = a.d.Y + row * a.d.ldy;
#pragma unroll
    for (int v = 0; v < VPT; v++) {
      const int64_t j = tcol + (int64_t)(v * 8 + lane) * VEC;
      if (j < a.jend) store_pack(yr, j, a.jend, a.d.yvec, acc[v], a.d.alpha, a.d.beta);
    }
  } else {
    // the workspace row holds this pass's columns from 0 (16-byte aligned: work_cols % 128 == 0)
    T *wr = a.work + ws * a.work_cols;
#pragma unroll
    for (int v = 0; v < VPT; v++) {
      const int64_t jl = tcol - a.col0 + (int64_t)(v * 8 + lane) * VEC;
      if (jl < a.jend - a.col0) store_pack(wr, jl, a.jend - a.col0, true, acc[v], T(1), T(0));
    }
  }
}

// One thread per (long row, pack of this pass): the sum of the row's partials, then alpha, beta.
// The partials are read kReduceBatch at a time into independent sums (combined in a fixed order
// at the end, so the result is still the same from run to run): one at a time, the longest row's
// chain of dependent L2 reads (rajat01: 46 partials, 23 long rows, one block) was the variant's
// critical path at small N (0.0192 ms at N = 32, 0.0406 at N = 512, H200).
constexpr int kReduceBatch = 8;

template <typename T>
__global__ void __launch_bounds__(kThreads) split_reduce_kernel(const SplitArgs<T> a) {
  using P = Pack<T>;
  constexpr int VEC = P::N;
  const int64_t npk = (a.jend - a.col0 + VEC - 1) / VEC;
  const int64_t ncl = a.jend - a.col0;
  for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < a.nlong * npk;
       t += (int64_t)gridDim.x * blockDim.x) {
    const int64_t r = t / npk, jl = (t % npk) * VEC;
    const int64_t w1 = a.long_ptr[r + 1];
    P part[kReduceBatch];
#pragma unroll
    for (int u = 0; u < kReduceBatch; u++) part[u] = pack_zero<T>();
    int64_t w = a.long_ptr[r];
    for (; w + kReduceBatch <= w1; w += kReduceBatch) {
      P x[kReduceBatch];
#pragma unroll
      for (int u = 0; u < kReduceBatch; u++)
        x[u] = load_pack(a.work + (w + u) * a.work_cols, jl, ncl, true);
#pragma unroll
      for (int u = 0; u < kReduceBatch; u++)
#pragma unroll
        for (int i = 0; i < VEC; i++) part[u].e[i] += x[u].e[i];
    }
#pragma unroll
    for (int u = 0; u < kReduceBatch; u++)
      if (w + u < w1) {
        const P x = load_pack(a.work + (w + u) * a.work_cols, jl, ncl, true);
#pragma unroll
        for (int i = 0; i < VEC; i++) part[u].e[i] += x.e[i];
      }
#pragma unroll
    for (int h = kReduceBatch / 2; h > 0; h /= 2)
#pragma unroll
      for (int u = 0; u < h; u++)
#pragma unroll
        for (int i = 0; i < VEC; i++) part[u].e[i] += part[u + h].e[i];
    store_pack(a.d.Y + a.long_row[r] * a.d.ldy, a.col0 + jl, a.jend, a.d.yvec, part[0], a.d.alpha,
               a.d.beta);
  }
}

template <typename T>
using SplitKernel = void (*)(const SplitArgs<T>);

template <typename T, bool BATCHED>
SplitKernel<T> items_kernel_for(int vpt) {
  switch (vpt) {
    case 1: return split_items_kernel<T, 1, BATCHED>;
    case 2: return split_items_kernel<T, 2, BATCHED>;
    case 4: return split_items_kernel<T, 4, BATCHED>;
  }
  return nullptr;
}

inline unsigned reduce_grid(int64_t n) {
  int64_t b = div_up(n, kThreads);
  if (b < 1) b = 1;
  if (b > 65535) b = 65535;
  return (unsigned)b;
}

template <typename T>
gcoo_status launch_split(const gcoo_cuda_tuned *L, int vpt, const gcoo_cuda_devinfo *dev,
                         double alpha, const void *X, int64_t ldx, double beta, void *Y,
                         int64_t ldy, int64_t N, cudaStream_t s, gcoo_cuda_tuned_launch *out) {
  constexpr int VEC = Pack<T>::N;
  const gcoo_cuda_split *P = &L->split;
  const int64_t wc = P->work_cols;
  const int64_t pass_cols = N < wc ? N : wc;
  const int64_t blocks_x = div_up(P->nitems, kSlots);
  if (vpt == 0) {
    // the widest tile (fewest index loads per FMA) that keeps kMinBlocksPerSM blocks per SM
    const int64_t npacks = div_up(pass_cols, VEC);
    vpt = 4;
    while (vpt > 1 && blocks_x * div_up(npacks, 8 * vpt) < kMinBlocksPerSM * (int64_t)dev->sm_count)
      vpt /= 2;
  }
  // the 16-byte path (batched_sum): X aligned, ldx and N multiples of the pack (the passes'
  // widths, work_cols, are multiples of 128), 32-bit X offsets enough
  // at 1 and 2 vectors a lane (at 4, 8 entries' X loads took 174-186 registers)
  const bool batched = vpt <= 2 && packed_operand<T>(X, ldx, N) &&
                       gcoo_cuda_batched_fits(L->k, ldx, (int)sizeof(T));
  SplitKernel<T> k = batched ? items_kernel_for<T, true>(vpt) : items_kernel_for<T, false>(vpt);
  GCOO_CHECK(k != nullptr, GCOO_ERR_INVALID_ARG, "row-split kernel: %d packs a lane (1, 2 or 4)",
             vpt);
  const int64_t tile = 8 * vpt * VEC;
  GCOO_CHECK(blocks_x <= INT32_MAX, GCOO_ERR_TOO_LARGE, "row-split layout: %lld items",
             (long long)P->nitems);
  if (out) {
    memset(out, 0, sizeof *out);
    out->vpt = vpt;
    out->rpt = 1;
    out->threads = kThreads;
    out->passes = (int)div_up(N, wc);
    out->tile_cols = (int)tile;
    out->rowsplit = 1;
    out->piece = P->piece;
    out->batch = !batched ? 0 : vpt == 1 ? SplitBatch<1>::B : SplitBatch<2>::B;
    int occ = 0;
    GCOO_CALL_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, kThreads, 0));
    out->blocks_per_sm = occ;
  }
  SplitArgs<T> a;
  a.rowptr = L->rowptr;
  a.colind = L->colind;
  a.vals = static_cast<const T *>(L->csr_values);
  a.item_begin = P->item_begin;
  a.item_row = P->item_row;
  a.item_slot = P->item_slot;
  a.item_order = P->ordered ? P->item_order : nullptr;
  a.nitems = P->nitems;
  a.piece = P->piece;
  a.long_row = P->long_row;
  a.long_ptr = P->long_ptr;
  a.nlong = P->nlong;
  a.work = static_cast<T *>(P->work);
  a.work_cols = wc;
  a.d = dense_ops<T>(X, ldx, Y, ldy, alpha, beta);
  for (int64_t c0 = 0; c0 < N; c0 += wc) {
    a.col0 = c0;
    a.jend = c0 + wc < N ? c0 + wc : N;
    const int64_t tiles = div_up(a.jend - c0, tile);
    if (P->nitems > 0) {
      GCOO_LAUNCH(k, dim3((unsigned)blocks_x, (unsigned)tiles), dim3(kThreads), 0, s, a);
      GCOO_CHECK_LAUNCH("the row-split GCOOSpDM kernel");
    }
    if (P->nlong > 0) {
      GCOO_LAUNCH(split_reduce_kernel<T>, dim3(reduce_grid(P->nlong * div_up(a.jend - c0, VEC))),
                  dim3(kThreads), 0, s, a);
      GCOO_CHECK_LAUNCH("the row-split GCOOSpDM reduction");
    }
  }
  return GCOO_SUCCESS;
}

} // namespace

extern "C" gcoo_status gcoo_cuda_spdm_split(const gcoo_cuda_tuned *L, int vpt,
                                            const gcoo_cuda_devinfo *dev, double alpha,
                                            const void *X, int64_t ldx, double beta, void *Y,
                                            int64_t ldy, int64_t N, void *stream,
                                            gcoo_cuda_tuned_launch *chosen) {
  GCOO_CHECK(L != NULL && dev != NULL, GCOO_ERR_NULL, "layout or device info is NULL");
  GCOO_CHECK(L->split.item_begin != NULL, GCOO_ERR_UNSUPPORTED,
             "the row-split layout is not built (gcoo_cuda_tuned_build_split)");
  GCOO_CHECK(vpt == 0 || vpt == 1 || vpt == 2 || vpt == 4, GCOO_ERR_INVALID_ARG,
             "row-split kernel: %d packs a lane (0, 1, 2 or 4)", vpt);
  GCOO_CHECK(!L->split.ordered || L->split.item_order != NULL, GCOO_ERR_UNSUPPORTED,
             "the row-split items' order is not built (gcoo_cuda_tuned_build_split_order)");
  return spdm_enter(L->dtype, L->m, L->k, X, ldx, Y, ldy, N, stream, chosen, [&](auto z, auto s) {
    return launch_split<decltype(z)>(L, vpt, dev, alpha, X, ldx, beta, Y, ldy, N, s, chosen);
  });
}
