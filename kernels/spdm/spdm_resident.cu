// SPDX-License-Identifier: MIT
// kernels/spdm/spdm_resident.cu: the X-resident variant of the tuned GCOOSpDM (docs/kernels.md, "The
// X-resident variant").
//
// Y (m x N) = alpha A X + beta Y, X and Y row-major. Where A has little reuse (random matrices:
// a group of 32 rows shares almost no columns), every kernel that walks A once and fetches X per
// entry moves one X value from L2 per FMA (4 B/FMA in float): that is where cuSPARSE and the
// direct kernel sit. This variant turns the product around: a block copies a whole column tile
// of X (all k rows, TN columns) into shared memory ONCE, then streams its share of A past it.
// Per FMA the L2 now delivers 6 bytes (float value + 16-bit column) / TN, and X comes from
// shared memory, where the layout's schedule makes every 16-byte read conflict-free. It needs
// (k + 8) x 16 bytes of shared memory at least: k <= 14 520 on an H200.
//
// A is in the resident layout (gcoo_cuda_xres): rows sorted by length, slices of 32 rows stored
// step by step, so the 32 lanes of a warp walk 32 rows side by side and each step reads 32
// consecutive values and columns (coalesced); a lane's row needs no reduction across lanes (no
// shuffles, so the CPU emulator runs this file too). Within a row the entries are ordered so
// that the 8 lanes of a quarter-warp read X rows with 8 different residues mod 8 at each step;
// padding reads one of the 8 zero rows k .. k+7 appended to the tile.
//
// Shared-memory banks: a quarter-warp's 16-byte reads are conflict-free when their addresses / 16
// differ mod 8. Pack v of X row u sits at u TNP + (v ^ swizzle(u)), swizzle(u) =
// (u >> log2(8 / TNP)) mod TNP, which makes address / 16 mod 8 a bijection of u mod 8 for every
// v and TNP in {1, 2, 4, 8}.
//
// Grid: x = column tiles (adjacent tiles run together and share X's and Y's sectors in L2),
// y = parts of the slices (when there are too few tiles to fill the device). Within a block,
// warp w takes slices w, w + warps, ... of its part; slices are sorted longest first, so this
// deals the work out evenly.
#include <stdint.h>
#include <string.h>

#include "common/cuda_check.h"
#include "common/gcoo_kernels.h"
#include "spdm_common.cuh"

namespace {

#ifdef GCOO_CUDA_EMULATE
constexpr int kMaxThreads = 64; // two warps: fewer host fibers, still several slices per warp
#else
constexpr int kMaxThreads = 1024;
#endif
// 8 packs per thread (32 float accumulators), or 4 of doubles with their wider batch registers,
// need more than the 64 registers 1024 threads leave
template <typename T>
__host__ __device__ constexpr int max_threads(int tnp) {
  return tnp >= 8 || (sizeof(T) == 8 && tnp >= 4) ? kMaxThreads / 2 : kMaxThreads;
}

template <typename T>
struct ResidentArgs {
  const int64_t *off;   // slice offsets
  const int32_t *perm;  // row of each slice lane
  const T *val;         // values, slice-major, step-major, lane-minor
  const uint16_t *col;  // columns (k .. k+7: zero rows)
  const int64_t *split; // R + 1 slice indices for this launch's R
  DenseOps<T> d;        // X, Y, their leading dimensions, alpha, beta
  int64_t k, N, tile0;
};

// Where pack v of X row u sits in the tile (see the banks note above).
template <int TNP>
__device__ __forceinline__ int swizzled(int u, int v) {
  constexpr int shift = TNP == 1 ? 3 : TNP == 2 ? 2 : TNP == 4 ? 1 : 0;
  return u * TNP + (v ^ ((u >> shift) & (TNP - 1)));
}

// Steps whose loads a warp issues together (see the slice loop): 8 where the registers allow
// two batches besides the accumulators within the launch bound (64 registers at 1024 threads,
// 128 at 512), 4 otherwise (ptxas -v: no spills either way).
template <typename T, int TNP>
__host__ __device__ constexpr int batch_steps() {
  return sizeof(T) == 4 && (TNP == 1 || TNP == 8) ? 8 : 4;
}

// acc += v * (X row u of the tile).
template <typename T, int TNP>
__device__ __forceinline__ void step(Pack<T> (&acc)[TNP], T v, const Pack<T> *xs, int u) {
#pragma unroll
  for (int p = 0; p < TNP; p++) {
    const Pack<T> x = xs[swizzled<TNP>(u, p)];
#pragma unroll
    for (int i = 0; i < Pack<T>::N; i++) acc[p].e[i] += v * x.e[i];
  }
}

// Values and columns of steps j .. j + kBatch - 1 of a lane (stride 32).
template <typename T, int kBatch>
__device__ __forceinline__ void load_batch(T (&v)[kBatch], int (&u)[kBatch],
                                           const T *__restrict__ vp,
                                           const uint16_t *__restrict__ cp, int j) {
#pragma unroll
  for (int d = 0; d < kBatch; d++) {
    v[d] = vp[(int64_t)(j + d) * 32];
    u[d] = cp[(int64_t)(j + d) * 32];
  }
}

// TNP: 16-byte packs of X per row of the tile (TN = TNP x 16 / sizeof(T) columns).
template <typename T, int TNP>
__global__ void __launch_bounds__(max_threads<T>(TNP)) resident_kernel(const ResidentArgs<T> a) {
  using P = Pack<T>;
  constexpr int VEC = P::N;
  constexpr int FU = 4; // loads in flight per thread while staging
  GCOO_DYNAMIC_SMEM(P, xs);
  const int tid = threadIdx.x, nthreads = blockDim.x;
  const int64_t col0 = (a.tile0 + blockIdx.x) * (int64_t)(TNP * VEC);

  // the tile: rows 0 .. k-1 of X, columns col0 .. col0 + TN (zeros past N), and zero rows
  // k .. k+7
  const int total = (int)(a.k + GCOO_XRES_ZERO_ROWS) * TNP;
  for (int base = tid; base < total; base += nthreads * FU) {
    P r[FU];
#pragma unroll
    for (int f = 0; f < FU; f++) {
      const int idx = base + f * nthreads;
      const int u = idx / TNP, w = idx % TNP;
      r[f] = idx < total && u < a.k
                 ? load_pack(a.d.X + (int64_t)u * a.d.ldx, col0 + (int64_t)w * VEC, a.N, a.d.xvec)
                 : pack_zero<T>();
    }
#pragma unroll
    for (int f = 0; f < FU; f++) {
      const int idx = base + f * nthreads;
      if (idx < total) xs[swizzled<TNP>(idx / TNP, idx % TNP)] = r[f];
    }
  }
  __syncthreads();

  const int warp = tid >> 5, lane = tid & 31, nwarps = nthreads >> 5;
  const int64_t s1 = a.split[blockIdx.y + 1];
  for (int64_t s = a.split[blockIdx.y] + warp; s < s1; s += nwarps) {
    const int64_t off = a.off[s];
    const int w = (int)((a.off[s + 1] - off) >> 5);
    const T *__restrict__ vp = a.val + off + lane;
    const uint16_t *__restrict__ cp = a.col + off + lane;
    P acc[TNP];
#pragma unroll
    for (int v = 0; v < TNP; v++) acc[v] = pack_zero<T>();
    // Steps go in batches of kBatch, and the next batch's loads are issued before this batch's
    // FMAs, so that a warp keeps 2-4 kBatch loads in flight: with one step of look-ahead, 32
    // warps per SM could not cover the L2 latency (19 ms instead of 12 on random n = 14000,
    // sparsity 0.99; batches of 8 without the overlap: 13.7 ms).
    constexpr int kBatch = batch_steps<T, TNP>();
    int j = 0;
    T bv[kBatch];
    int bu[kBatch];
    if (w >= kBatch) load_batch<T, kBatch>(bv, bu, vp, cp, 0);
    for (; j + kBatch <= w; j += kBatch) {
      T nv[kBatch];
      int nu[kBatch];
      const bool more = j + 2 * kBatch <= w;
      if (more) load_batch<T, kBatch>(nv, nu, vp, cp, j + kBatch);
#pragma unroll
      for (int d = 0; d < kBatch; d++) step<T, TNP>(acc, bv[d], xs, bu[d]);
      if (more) {
#pragma unroll
        for (int d = 0; d < kBatch; d++) {
          bv[d] = nv[d];
          bu[d] = nu[d];
        }
      }
    }
    for (; j < w; j++) step<T, TNP>(acc, vp[(int64_t)j * 32], xs, (int)cp[(int64_t)j * 32]);
    const int32_t row = a.perm[s * 32 + lane];
    if (row >= 0) {
      T *yr = a.d.Y + (int64_t)row * a.d.ldy;
#pragma unroll
      for (int v = 0; v < TNP; v++) {
        const int64_t j = col0 + (int64_t)v * VEC;
        if (j < a.N) store_pack(yr, j, a.N, a.d.yvec, acc[v], a.d.alpha, a.d.beta);
      }
    }
  }
}

template <typename T>
using ResidentKernel = void (*)(const ResidentArgs<T>);

template <typename T>
ResidentKernel<T> resident_for(int tnp) {
  switch (tnp) {
    case 1: return resident_kernel<T, 1>;
    case 2: return resident_kernel<T, 2>;
    case 4: return resident_kernel<T, 4>;
    case 8: return resident_kernel<T, 8>;
  }
  return nullptr;
}

template <typename T>
gcoo_status launch_resident(const gcoo_cuda_tuned *L, int tnp_fixed, const gcoo_cuda_devinfo *dev,
                            double alpha, const void *X, int64_t ldx, double beta, void *Y,
                            int64_t ldy, int64_t N, cudaStream_t stream,
                            gcoo_cuda_tuned_launch *out) {
  constexpr int VEC = Pack<T>::N;
  const gcoo_cuda_xres &R = L->xres;
  // The tile: the widest of 4 packs or fewer (fewest passes over A; 8 packs need 512 threads
  // and ran slower in the sweep) that fits, that N needs, and that leaves at least a tile per two
  // SMs (sweep: 1000 x 0.99 ran best at 2 packs, 125 tiles; 2000-4000 at 4 packs). A forced
  // width that does not fit is narrowed to one that does.
  const int64_t npacks = div_up(N, VEC);
  int tnp = tnp_fixed ? tnp_fixed : 4;
  while (tnp > 1 &&
         ((size_t)gcoo_cuda_resident_smem(L->k, tnp) > dev->smem_per_block_optin ||
          (!tnp_fixed && (tnp / 2 >= npacks || div_up(N, (int64_t)tnp * VEC) < dev->sm_count / 2))))
    tnp /= 2;
  const size_t smem = (size_t)gcoo_cuda_resident_smem(L->k, tnp);
  GCOO_CHECK(smem <= dev->smem_per_block_optin, GCOO_ERR_UNSUPPORTED,
             "the X-resident kernel keeps k + %d = %lld rows x %d bytes of X in shared memory "
             "(%zu bytes); this device allows %zu per block",
             GCOO_XRES_ZERO_ROWS, (long long)(L->k + GCOO_XRES_ZERO_ROWS), tnp * 16, smem,
             dev->smem_per_block_optin);
  ResidentKernel<T> k = resident_for<T>(tnp);
  GCOO_CHECK(k != nullptr, GCOO_ERR_INTERNAL, "no resident kernel for %d packs", tnp);
  if (smem > 48 * 1024)
    GCOO_CALL_CUDA(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));

  // threads: a warp per slice at most; parts: enough blocks for two waves of the device, each
  // part keeping every warp busy with a few slices
  int64_t threads = 32 * R.nslices;
  if (threads > max_threads<T>(tnp)) threads = max_threads<T>(tnp);
  if (threads < 32) threads = 32;
  int occ = 0;
  GCOO_CALL_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, (int)threads, smem));
  if (occ < 1) occ = 1;
  const int64_t tiles = div_up(N, (int64_t)tnp * VEC);
  const int64_t want = 2 * (int64_t)dev->sm_count * occ;
  int parts = 1;
  while (parts < GCOO_XRES_MAX_SPLITS && tiles * parts < want &&
         R.nslices / (2 * parts) >= threads / 32)
    parts *= 2;

  gcoo_cuda_tuned_launch sh;
  memset(&sh, 0, sizeof sh);
  sh.resident = 1;
  sh.vpt = tnp;
  sh.rpt = 1;
  sh.threads = (int)threads;
  sh.passes = 1;
  sh.tile_cols = tnp * VEC;
  sh.smem = smem;
  sh.splits = parts;
  sh.blocks_per_sm = occ;
  if (out) *out = sh;

  ResidentArgs<T> a;
  a.off = R.off;
  a.perm = R.perm;
  a.val = static_cast<const T *>(R.values);
  a.col = R.cols;
  a.split = R.splits + gcoo_cuda_xres_split_base(parts);
  a.d = dense_ops<T>(X, ldx, Y, ldy, alpha, beta);
  a.k = L->k;
  a.N = N;
  const int64_t max_x = 2147483647;
  for (int64_t t0 = 0; t0 < tiles; t0 += max_x) {
    a.tile0 = t0;
    const unsigned tx = (unsigned)(tiles - t0 < max_x ? tiles - t0 : max_x);
    GCOO_LAUNCH(k, dim3(tx, (unsigned)parts), dim3((unsigned)threads), smem, stream, a);
    GCOO_CHECK_LAUNCH("the X-resident GCOOSpDM kernel");
  }
  return GCOO_SUCCESS;
}

} // namespace

extern "C" gcoo_status gcoo_cuda_spdm_resident(const gcoo_cuda_tuned *L, int tnp,
                                               const gcoo_cuda_devinfo *dev, double alpha,
                                               const void *X, int64_t ldx, double beta, void *Y,
                                               int64_t ldy, int64_t N, void *stream,
                                               gcoo_cuda_tuned_launch *chosen) {
  GCOO_CHECK(L != NULL && dev != NULL, GCOO_ERR_NULL, "layout or device info is NULL");
  GCOO_CHECK(tnp == 0 || tnp == 1 || tnp == 2 || tnp == 4 || tnp == 8, GCOO_ERR_INVALID_ARG,
             "resident tile of %d packs (0, 1, 2, 4 or 8)", tnp);
  GCOO_CHECK(L->xres.off != NULL || L->m == 0, GCOO_ERR_UNSUPPORTED,
             "the X-resident layout is not built (gcoo_cuda_tuned_build_resident)");
  return spdm_enter(L->dtype, L->m, L->k, X, ldx, Y, ldy, N, stream, chosen, [&](auto z, auto s) {
    return launch_resident<decltype(z)>(L, tnp, dev, alpha, X, ldx, beta, Y, ldy, N, s, chosen);
  });
}
