// SPDX-License-Identifier: MIT
// kernels/spdm/spdm_batched.cu: the batched variant of the tuned GCOOSpDM's direct kernel
// (docs/kernels.md, "The batched kernel"), for narrow products (N = 32 and so) on rows of ordinary
// length.
//
// Y (m x N) = alpha A X + beta Y, X and Y row-major, read from A's CSR. As in the direct kernel
// (kernels/spdm/spdm_tuned.cu) a row belongs to a slot of 8 lanes and lane `lane` owns packs lane,
// lane + 8, ... (VPT of them) of a tile of 8 * VPT 16-byte packs of columns. What differs is how
// many X rows a lane has in flight: the direct kernel issues 8 packs of X loads a lane before
// their FMAs; Sputnik's N = 32 kernel (Gale et al., SC20), 1.2-1.76x faster than cuSPARSE on the
// shared matrices' regular rows, issues 32; here each slot runs batched_sum (kernels/
// spdm_row_sum.cuh): B = 16 or 32 entries' X loads in flight a lane. Optionally the rows run
// longest first (L->row_order), so that the long rows start early and the slots of a warp have
// rows of similar length (fewer idle lanes in a group).
//
// Only the 16-byte path: X aligned, its leading dimension and N multiples of the pack (the
// launcher sends anything else to the direct kernel's element-wise path).
#include <stdint.h>
#include <string.h>

#include "common/cuda_check.h"
#include "common/gcoo_kernels.h"
#include "spdm_row_sum.cuh"
#include "spdm_common.cuh"

namespace {

constexpr int kMaxThreads = 128; // at most 16 slots a block: the static shared strips below

template <typename T>
struct BatchedArgs {
  const int64_t *rowptr;
  const int32_t *colind;
  const T *vals;
  const int64_t *order; // row of A run by slot position r (NULL: A's order)
  // the dense side spelled out, not as a DenseOps<T>: nested, it changed nvcc's code for the
  // direct kernel and ran it 13-20 % slower (kernels/spdm/spdm_tuned.cu, TunedArgs)
  const T *X;
  T *Y;
  int64_t ldx, ldy, m, N, tile0;
  T alpha, beta;
  bool yvec;
};

/* Blocks an SM must hold (the register cap that follows): batches of 8 are the shape where the
 * slots resident, not the loads in flight a slot, set the pace, so at 1 vector they are held to
 * 64 registers (62 float, 64 double, no spills, sm_90: 32 warps an SM, against 18 at the 112
 * registers of batches of 16; measured, docs/kernels.md, "The batched kernel") and at 2 vectors to
 * 102 (96, no spills: 20 warps, against 10 at the 187 of double batches of 16). At 4 vectors the X
 * loads alone take 128 registers: nvcc's count stands, as for the others. */
template <int B, int VPT>
constexpr int batched_min_blocks() {
  return B == 8 && VPT == 1 ? 8 : B == 8 && VPT == 2 ? 5 : 0;
}

template <typename T, int B, int VPT>
__global__ void __launch_bounds__(kMaxThreads, (batched_min_blocks<B, VPT>()))
    batched_kernel(const BatchedArgs<T> a) {
  using P = Pack<T>;
  constexpr int VEC = P::N;
  __shared__ BatchStrip<T, B> strips[kMaxThreads / 8];
  const int tid = threadIdx.x;
  const int slot = tid >> 3, lane = tid & 7;
  const int64_t r = (int64_t)blockIdx.x * (blockDim.x >> 3) + slot;
  if (r >= a.m) return; // the whole slot leaves together: its warp barriers stay matched
  const int64_t row = a.order ? a.order[r] : r;
  const int64_t col0 = (a.tile0 + blockIdx.y) * (int64_t)(8 * VPT * VEC);
  P acc[VPT];
  batched_sum<T, B, VPT>(a.colind, a.vals, a.rowptr[row], a.rowptr[row + 1], a.X, a.ldx, col0, a.N,
                         strips[slot], acc);
  T *yr = a.Y + row * a.ldy;
#pragma unroll
  for (int v = 0; v < VPT; v++) {
    const int64_t j = col0 + (int64_t)(v * 8 + lane) * VEC;
    if (j < a.N) store_pack(yr, j, a.N, a.yvec, acc[v], a.alpha, a.beta);
  }
}

template <typename T>
using BatchedKernel = void (*)(const BatchedArgs<T>);

template <typename T>
BatchedKernel<T> batched_for(int batch, int vpt) {
  if (batch == 8 && vpt == 1) return batched_kernel<T, 8, 1>;
  if (batch == 16 && vpt == 1) return batched_kernel<T, 16, 1>;
  if (batch == 32 && vpt == 1) return batched_kernel<T, 32, 1>;
  if (batch == 8 && vpt == 2) return batched_kernel<T, 8, 2>;
  if (batch == 16 && vpt == 2) return batched_kernel<T, 16, 2>;
  if (batch == 8 && vpt == 4) return batched_kernel<T, 8, 4>;
  return nullptr;
}

template <typename T>
gcoo_status launch_batched(const gcoo_cuda_tuned *L, int batch, int vpt, int ordered,
                           int block_rows, const gcoo_cuda_devinfo *dev, double alpha,
                           const void *X, int64_t ldx, double beta, void *Y, int64_t ldy, int64_t N,
                           cudaStream_t stream, gcoo_cuda_tuned_launch *out) {
  constexpr int VEC = Pack<T>::N;
  BatchedKernel<T> k = batched_for<T>(batch, vpt);
  GCOO_CHECK(k != nullptr, GCOO_ERR_INVALID_ARG,
             "no batched kernel for batches of %d entries at %d vectors a thread", batch, vpt);
  GCOO_CHECK(block_rows >= 1 && block_rows <= kMaxThreads / 8, GCOO_ERR_INVALID_ARG,
             "batched kernel: %d rows a block (1..%d)", block_rows, kMaxThreads / 8);
  GCOO_CHECK(!ordered || L->row_order != NULL, GCOO_ERR_UNSUPPORTED,
             "the batched kernel's row order is not built (gcoo_cuda_tuned_build_order)");
  GCOO_CHECK(packed_operand<T>(X, ldx, N), GCOO_ERR_INVALID_ARG,
             "the batched kernel needs 16-byte X rows and N a multiple of %d", VEC);
  GCOO_CHECK(gcoo_cuda_batched_fits(L->k, ldx, (int)sizeof(T)), GCOO_ERR_TOO_LARGE,
             "the batched kernel addresses X in 32-bit pack offsets: k = %lld rows of leading "
             "dimension %lld are too many",
             (long long)L->k, (long long)ldx);
  const int threads = (int)div_up((int64_t)block_rows * 8, 32) * 32;
  const int64_t slots = threads / 8;
  const int64_t blocks_x = div_up(L->m, slots);
  gcoo_cuda_tuned_launch sh;
  memset(&sh, 0, sizeof sh);
  sh.vpt = vpt;
  sh.rpt = 1;
  sh.threads = threads;
  sh.passes = 1;
  sh.tile_cols = 8 * vpt * VEC;
  sh.block_rows = (int)slots;
  sh.batch = batch;
  sh.ordered = ordered;
  int occ = 0;
  GCOO_CALL_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, threads, 0));
  sh.blocks_per_sm = occ;
  (void)dev;
  if (out) *out = sh;
  if (L->m == 0) return GCOO_SUCCESS;
  BatchedArgs<T> a;
  a.rowptr = L->rowptr;
  a.colind = L->colind;
  a.vals = static_cast<const T *>(L->csr_values);
  a.order = ordered ? L->row_order : NULL;
  const DenseOps<T> d = dense_ops<T>(X, ldx, Y, ldy, alpha, beta);
  a.X = d.X;
  a.Y = d.Y;
  a.ldx = ldx;
  a.ldy = ldy;
  a.alpha = d.alpha;
  a.beta = d.beta;
  a.yvec = d.yvec;
  a.m = L->m;
  a.N = N;
  const int64_t tiles = div_up(N, sh.tile_cols);
  for (int64_t t0 = 0; t0 < tiles; t0 += 65535) {
    a.tile0 = t0;
    const unsigned ty = (unsigned)(tiles - t0 < 65535 ? tiles - t0 : 65535);
    GCOO_LAUNCH(k, dim3((unsigned)blocks_x, ty), dim3((unsigned)threads), 0, stream, a);
    GCOO_CHECK_LAUNCH("the batched GCOOSpDM kernel");
  }
  return GCOO_SUCCESS;
}

} // namespace

extern "C" int gcoo_cuda_batched_fits(int64_t k, int64_t ldx, int elem_size) {
  return k >= 0 && ldx >= 0 && elem_size > 0 && k * (ldx / (16 / elem_size)) < INT32_MAX;
}

extern "C" int gcoo_cuda_batched_supported(int batch, int vpt) {
  return batched_for<float>(batch, vpt) != nullptr;
}

extern "C" gcoo_status gcoo_cuda_spdm_batched(const gcoo_cuda_tuned *L, int batch, int vpt,
                                              int ordered, int block_rows,
                                              const gcoo_cuda_devinfo *dev, double alpha,
                                              const void *X, int64_t ldx, double beta, void *Y,
                                              int64_t ldy, int64_t N, void *stream,
                                              gcoo_cuda_tuned_launch *chosen) {
  GCOO_CHECK(L != NULL && dev != NULL, GCOO_ERR_NULL, "layout or device info is NULL");
  GCOO_CHECK(N >= 0 && N <= INT32_MAX, GCOO_ERR_TOO_LARGE, "N = %lld columns", (long long)N);
  return spdm_enter(L->dtype, L->m, L->k, X, ldx, Y, ldy, N, stream, chosen, [&](auto z, auto s) {
    return launch_batched<decltype(z)>(L, batch, vpt, ordered, block_rows, dev, alpha, X, ldx, beta,
                                       Y, ldy, N, s, chosen);
  });
}
