// SPDX-License-Identifier: MIT
// kernels/spdm/spdm_tc.cu: the tensor-core mode of GCOOSpDM (opt-in: GCOO_MATH_TF32, float only;
// docs/kernels.md, "The tensor-core mode"): the tile layout built from the tuned layout at p = 16,
// and its kernel.
//
// Y (m x N) = alpha A X + beta Y, X and Y row-major. A "window" is a GCOO group of 16 rows of A;
// its list of distinct columns (the tuned layout's ucols, ascending) is cut into k-tiles of 8
// columns, and each k-tile is stored as a dense 16 x 8 tile of A's values (zeros where a row
// has no entry in that column), in the mma's A-fragment order (GCOO_TC_SLOT), rounded to TF32
// once at setup. The product of a window is then a dense one: for each k-tile, the tile times
// the 8 X rows its columns name (rounded to TF32), accumulated in FP32 by mma.sync m16n8k8
// (TF32 in, FP32 accumulate). This is the row-window condensing of TC-GNN / DTC-SpMM on the
// GCOO group the project already builds; padding costs 16 x 8 - (entries in the tile)
// multiplies. The windows may hold A's rows in another order (kernels/spdm/tc_order.c: rows sharing
// columns in one window, fewer tiles): the layout is then built from the reordered rows and the
// kernel writes each row to its own row of Y through rowmap.
//
// Thread layout: a block is kWarps warps in kWarps / KS teams of KS warps; team g owns window
// blockIdx.x * (kWarps / KS) + g and a tile of BC = 8 NJ columns starting at blockIdx.y * BC
// (NJ mma n-tiles); warp s of a team takes the window's k-tiles s, s + KS, ... (split-K), and
// at the end the team's KS accumulators are added in shared memory in a fixed order (the result
// does not depend on timing). KS = 1 is a window a warp; KS = 4 a window a block, for long or
// unequal windows (a power-law window is otherwise the grid's critical path); AUTO's TF32 trial
// times 1, 2 and 4 (kernels/spdm/op_trial.c, tc_trial), else the launcher estimates it from the
// windows' tile counts. The warps load X and A straight into registers and run independently
// (no barrier in the loop: staging X in shared memory with a barrier a k-tile, as a wmma kernel
// must, left the kernel latency-bound under ncu).
//
// Error (derived in docs/kernels.md, "The tensor-core mode", checked by tests/gpu/t305, t309 and
// the benchmark): A and X rounded to TF32 (relative 2^-11 each, so a product is off by <= 2^-10 +
// 2^-22), products exact in FP32, n_i nonzero terms summed in FP32 (<= 2^-23 each, truncating
// adders included), alpha applied in FP32: per element, with beta = 0,
//   |y - y_exact| <= (2^-10 + (n_i + 4) 2^-23) |alpha| (|A| |X|)_ij   (n_i: entries of row i),
// and 2^-24 |beta y| more for beta != 0.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <type_traits>

#include "common/cuda_check.h"
#include "common/gcoo_kernels.h"
#include "spdm_common.cuh"

#ifndef GCOO_CUDA_EMULATE
#include <mma.h>
#endif

namespace {

namespace wm = nvcuda::wmma; // __float_to_tf32 (cvt.rna.tf32.f32), also emulated

constexpr int kRows = GCOO_TC_ROWS; // rows of a window (the mma's M)
constexpr int kK = GCOO_TC_K;       // columns of a k-tile (the mma's K for TF32)
constexpr int kTile = kRows * kK;   // values of a tile: 4 a lane, in fragment order
constexpr int kWarps = 4;           // warps a block
constexpr int kThreads = 32 * kWarps;
constexpr int kWidestCols = 64; // the launcher's widest tile of Y columns (32, 64 or 128)

struct TcArgs {
  const int64_t *uptr; // window w's distinct columns: ucols[uptr[w] .. uptr[w + 1])
  const int32_t *ucols;
  const int64_t *tile_off; // window w's tiles: tile_off[w] .. tile_off[w + 1]
  const float *tiles;      // 16 x 8 TF32 values each, lane by lane (GCOO_TC_SLOT)
  const int32_t *rowmap;   // the layout's row r is row rowmap[r] of Y (NULL: row r)
  int64_t nwin, m, N;
  DenseOps<float> d; // X, Y, their leading dimensions, alpha, beta
};

__device__ __forceinline__ uint32_t f32_bits(float v) {
  uint32_t u;
  memcpy(&u, &v, sizeof u);
  return u;
}

// acc[j] += A (16 x 8, the fragment a) x B_j (8 x 8, the fragment b[j]) for the NJ n-tiles:
// mma.sync m16n8k8, TF32 inputs, FP32 accumulate (on the CPU emulator: the same fragment
// layout, lane by lane).
template <int NJ>
__device__ __forceinline__ void mma_tiles(float (&acc)[NJ][4], const uint32_t (&a)[4],
                                          const uint32_t (&b)[NJ][2]) {
#ifdef GCOO_CUDA_EMULATE
  gcoo_emu::mma_m16n8k8_tf32(&acc[0][0], a, &b[0][0], NJ);
#else
#pragma unroll
  for (int j = 0; j < NJ; j++)
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(acc[j][0]), "+f"(acc[j][1]), "+f"(acc[j][2]), "+f"(acc[j][3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[j][0]), "r"(b[j][1]));
#endif
}

// Blocks a multiprocessor the registers must allow: 7 at 32 columns (72 registers; 8 spilled
// once the loop had its two builds), 5 at 64 (96 registers, 104 uncapped; 6 would spill), the
// compiler's choice at 128. Against an uncapped build in the same run (H200, one warp a
// window, a cap of 8 and 5 blocks): TSOPF 1.78 -> 1.94x and 1.85 -> 2.00x of the best FP32
// cuSPARSE at N = 128 and 512, cavity19 1.93 -> 2.24x at 512, bcsstk24 2.68 -> 2.43x at 512.
template <int NJ>
constexpr int tc_min_blocks() {
  return NJ == 4 ? 7 : NJ == 8 ? 5 : 1;
}

// A warp computes a window (16 rows) x BC = 8 NJ columns of Y as NJ mma n-tiles of 8 columns.
// Lane (g = lane / 4, t = lane % 4) holds, per n-tile j, the B fragment's column g (rows t and
// t + 4 of the k-tile) and the accumulator's columns 2t, 2t + 1 (rows g, g + 8). The n-tiles'
// columns are interleaved in groups of 4: column n of n-tile j = 4q + e is column
// col0 + 32 q + 4 n + e of Y, so that a lane's B values of n-tiles 4q .. 4q + 3 are 4
// consecutive floats of an X row (a 16-byte load, straight from global memory into registers;
// the 8 lanes of a row read 128 consecutive bytes) and its results 8 consecutive floats of a Y
// row. (Giving a lane NJ consecutive columns instead would make each 16-byte load of the 8 lanes
// span 256 bytes at NJ = 8, every sector half used.) Nothing goes through shared memory
// but the split-K sum at the end.
template <int NJ, int KS>
__global__ void __launch_bounds__(kThreads, tc_min_blocks<NJ>()) tc_kernel(const TcArgs a) {
  static_assert(NJ % 4 == 0, "a lane's X columns are whole 16-byte packs");
  constexpr int BC = 8 * NJ;     // columns of Y a warp computes
  constexpr int kPacks = NJ / 4; // packs of an X row a lane loads
  constexpr int kTeams = kWarps / KS;
  // the split-K partial sums, lane-fastest (no bank conflicts); one float when KS = 1
  __shared__ float part[KS > 1 ? kWarps * 4 * NJ * 32 : 1];
  const int warp = (int)(threadIdx.x >> 5), lane = (int)(threadIdx.x & 31);
  const int team = warp / KS, ks = warp % KS;
  const int g = lane >> 2, t = lane & 3;
  const int64_t win = (int64_t)blockIdx.x * kTeams + team;
  const bool live = win < a.nwin;
  const int64_t col0 = (int64_t)blockIdx.y * BC;
  const int64_t xcol = col0 + 4 * (int64_t)g; // this lane's X columns: xcol + 32 q + (0 .. 3)
  const int64_t t0 = live ? a.tile_off[win] : 0;
  const int64_t ntw = live ? a.tile_off[win + 1] - t0 : 0;    // the window's k-tiles
  const int64_t nt = ntw > ks ? (ntw - ks + KS - 1) / KS : 0; // this warp's: ks, ks + KS, ..
  const int64_t u0 = live ? a.uptr[win] : 0;
  const int64_t ulen = live ? a.uptr[win + 1] - u0 : 0;

  float acc[NJ][4];
#pragma unroll
  for (int j = 0; j < NJ; j++) acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.0f;

  // The X rows of the warp's i-th k-tile this lane needs: the window's columns t and t + 4 of
  // it (-1 past the list: zeros, since the tile's zeros times an X value must stay 0).
  auto cols_of = [&](int64_t i, int64_t &c0, int64_t &c1) {
    const int64_t li = (ks + i * KS) * kK + t;
    c0 = i < nt && li < ulen ? (int64_t)a.ucols[u0 + li] : -1;
    c1 = i < nt && li + 4 < ulen ? (int64_t)a.ucols[u0 + li + 4] : -1;
  };
  // The loop, in two builds: kFull where every 16-byte pack of the block's column tile is inside
  // N and X's rows allow 16-byte loads (no bounds test a pack: ncu on bcsstk33 at N = 512 counted
  // about 260 instructions a warp's k-tile for its 8 mma, the ALU pipe at 55 % of its peak), else
  // load_pack's tested loads (the last column tile, or a misaligned X).
  auto main_loop = [&](auto full_tag) {
    constexpr bool kFull = decltype(full_tag)::value;
    auto load_x = [&](int64_t c, Pack<float>(&x)[kPacks]) {
      if (c < 0) {
#pragma unroll
        for (int p = 0; p < kPacks; p++) x[p] = pack_zero<float>();
        return;
      }
      const float *xr = a.d.X + c * a.d.ldx;
#pragma unroll
      for (int p = 0; p < kPacks; p++) {
        if constexpr (kFull)
          x[p] = load_pack_whole(xr, xcol + 32 * p);
        else
          x[p] = load_pack(xr, xcol + 32 * p, a.N, a.d.xvec);
      }
    };
    auto load_a = [&](int64_t i) {
      return __ldg(reinterpret_cast<const float4 *>(a.tiles + (t0 + ks + i * KS) * kTile) + lane);
    };
    // Software pipeline, two deep: while k-tile i's mma runs, k-tile i + 1's X values and A
    // fragment load into registers and k-tile i + 2's column indices (which name the X rows)
    // too. (Three deep, two stages in registers, measured slower on the H200.)
    Pack<float> xn0[kPacks], xn1[kPacks];
    float4 an = make_float4(0.f, 0.f, 0.f, 0.f);
    int64_t c0, c1;
    cols_of(0, c0, c1);
    if (nt > 0) {
      load_x(c0, xn0);
      load_x(c1, xn1);
      an = load_a(0);
    }
    cols_of(1, c0, c1);
    for (int64_t i = 0; i < nt; i++) {
      const uint32_t af[4] = {f32_bits(an.x), f32_bits(an.y), f32_bits(an.z), f32_bits(an.w)};
      uint32_t bf[NJ][2];
#pragma unroll
      for (int j = 0; j < NJ; j++) {
        bf[j][0] = f32_bits(wm::__float_to_tf32(xn0[j / 4].e[j % 4]));
        bf[j][1] = f32_bits(wm::__float_to_tf32(xn1[j / 4].e[j % 4]));
      }
      if (i + 1 < nt) {
        load_x(c0, xn0);
        load_x(c1, xn1);
        an = load_a(i + 1);
        cols_of(i + 2, c0, c1);
      }
      mma_tiles<NJ>(acc, af, bf);
    }
  };
  if (a.d.xvec && col0 + BC <= a.N)
    main_loop(std::integral_constant<bool, true>{});
  else
    main_loop(std::integral_constant<bool, false>{});
  if (KS > 1) { // the team's partial sums: warps 1 .. KS - 1 of it post theirs
    if (ks > 0)
#pragma unroll
      for (int j = 0; j < NJ; j++)
#pragma unroll
        for (int h = 0; h < 4; h++) part[((warp * NJ + j) * 4 + h) * 32 + lane] = acc[j][h];
    __syncthreads();
    if (ks > 0) return;
    for (int s = 1; s < KS; s++) // in warp order: the result does not depend on timing
#pragma unroll
      for (int j = 0; j < NJ; j++)
#pragma unroll
        for (int h = 0; h < 4; h++) acc[j][h] += part[(((warp + s) * NJ + j) * 4 + h) * 32 + lane];
  }
  // rows g and g + 8 of the window; for each group q of 4 n-tiles, this lane's columns
  // col0 + 32 q + 8 t + (0 .. 7): the accumulators' column 2t of n-tiles 4q .. 4q + 3, then
  // their column 2t + 1
  if (!live) return;
#pragma unroll
  for (int h = 0; h < 2; h++) {
    const int64_t row = win * kRows + g + 8 * h;
    if (row >= a.m) continue;
    const int64_t yrow = a.rowmap ? (int64_t)a.rowmap[row] : row;
    float *yr = a.d.Y + yrow * a.d.ldy;
#pragma unroll
    for (int q = 0; q < kPacks; q++)
#pragma unroll
      for (int c = 0; c < 2; c++) {
        Pack<float> v;
#pragma unroll
        for (int e = 0; e < 4; e++) v.e[e] = acc[4 * q + e][2 * h + c];
        store_pack(yr, col0 + 32 * q + 8 * (int64_t)t + 4 * c, a.N, a.d.yvec, v, a.d.alpha,
                   a.d.beta);
      }
  }
}

// One thread a row of A: its entries into the tiles of its window, rounded to TF32.
__global__ void tc_fill_kernel(const int64_t *__restrict__ rowptr,
                               const Entry<float> *__restrict__ ent,
                               const int64_t *__restrict__ tile_off, float *__restrict__ tiles,
                               int64_t m) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < m;
       i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t base = tile_off[i / kRows];
    const int rr = (int)(i % kRows);
    for (int64_t e = rowptr[i]; e < rowptr[i + 1]; e++) {
      const Entry<float> en = ent[e + i]; // row i's entries start at rowptr[i] + i
      tiles[(base + en.u / kK) * kTile + GCOO_TC_SLOT(rr, en.u % kK)] = wm::__float_to_tf32(en.v);
    }
  }
}

template <int NJ, int KS>
gcoo_status launch_tc(const TcArgs &a, cudaStream_t s) {
  const dim3 grid((unsigned)div_up(a.nwin, kWarps / KS), (unsigned)div_up(a.N, 8 * NJ));
  void (*k)(const TcArgs) = tc_kernel<NJ, KS>;
  GCOO_LAUNCH(k, grid, dim3(kThreads), 0, s, a);
  GCOO_CALL_CUDA(cudaGetLastError());
  return GCOO_SUCCESS;
}

template <int NJ>
gcoo_status launch_tc_ks(const TcArgs &a, int ks, cudaStream_t s) {
  if (ks == 4) return launch_tc<NJ, 4>(a, s);
  if (ks == 2) return launch_tc<NJ, 2>(a, s);
  return launch_tc<NJ, 1>(a, s);
}

/* The warps a window (1, 2 or 4) with the least estimated time, in block-iterations (one k-tile
 * a warp; a block holds its resources until its slowest warp is done): the block iterations
 * summed over the grid, spread over kResidentBlocks a multiprocessor, or the longest block when
 * that is longer (a small grid waits for it). Only the fallback where nothing is timed: it can
 * pick 4 where 1 or 2 run up to 1.4x faster (H200), so AUTO's TF32 trial times the three. */
constexpr int64_t kResidentBlocks = 8;
int choose_ksplit(const gcoo_cuda_tc *T, int64_t col_tiles, int sm_count) {
  int best = 1;
  double best_t = -1;
  for (int i = 0; i < 3; i++) {
    const double spread = (double)T->ks_iters[i] * (double)col_tiles /
                          (double)(kResidentBlocks * (sm_count > 0 ? sm_count : 1));
    const double t = spread > (double)T->ks_longest[i] ? spread : (double)T->ks_longest[i];
    if (best_t < 0 || t < best_t) {
      best_t = t;
      best = 1 << i;
    }
  }
  return best;
}

} // namespace

extern "C" gcoo_status gcoo_cuda_tc_build(const gcoo_cuda_tuned *L, gcoo_cuda_tc *T, void *stream) {
  GCOO_CHECK(L != NULL && T != NULL, GCOO_ERR_NULL, "layout is NULL");
  GCOO_CHECK(L->dtype == GCOO_FLOAT32, GCOO_ERR_UNSUPPORTED,
             "the tensor-core mode (TF32) is for float operators; double stays exact FP64");
  GCOO_CHECK(L->p == GCOO_TC_ROWS, GCOO_ERR_INVALID_ARG,
             "the tensor-core layout needs the tuned layout at p = %d, not %d", GCOO_TC_ROWS, L->p);
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  gcoo_status st = GCOO_SUCCESS;
  memset(T, 0, sizeof *T);
  T->m = L->m;
  T->k = L->k;
  T->nwin = L->ngroups;
  T->uptr = L->uptr;
  T->ucols = L->ucols;
  const size_t nw1 = (size_t)T->nwin + 1;
  int64_t *h = NULL;
  GCOO_GOTO(gcoo__malloc_n((void **)&h, nw1, sizeof *h, "window offsets (host)"));
  GCOO_CALL_CUDA_GOTO(cudaMemcpyAsync(h, L->uptr, nw1 * sizeof *h, cudaMemcpyDeviceToHost, s));
  GCOO_CALL_CUDA_GOTO(cudaStreamSynchronize(s));
  {
    /* the distinct-column counts become tile offsets in place: ceil(count / 8) tiles each */
    int64_t acc = 0, prev = h[0];
    h[0] = 0;
    for (size_t w = 1; w < nw1; w++) {
      const int64_t cur = h[w];
      acc += div_up(cur - prev, kK);
      prev = cur;
      h[w] = acc;
    }
    T->ntiles = acc;
    /* per KS = 1, 2, 4 warps a window: the block iterations (a block runs its longest warp's
     * k-tile count) summed over the blocks, and the longest block (choose_ksplit) */
    for (int i = 0; i < 3; i++) {
      const int ks = 1 << i, teams = kWarps / ks;
      int64_t sum = 0, longest = 0;
      for (int64_t b = 0; b < T->nwin; b += teams) {
        int64_t it = 0;
        for (int64_t w = b; w < b + teams && w < T->nwin; w++) {
          const int64_t n = div_up(h[w + 1] - h[w], ks);
          it = n > it ? n : it;
        }
        sum += it;
        longest = it > longest ? it : longest;
      }
      T->ks_iters[i] = sum;
      T->ks_longest[i] = longest;
    }
  }
  GCOO_GOTO(gcoo__cuda_alloc((void **)&T->tile_off, nw1 * sizeof(int64_t), "tile offsets"));
  GCOO_CALL_CUDA_GOTO(cudaMemcpyAsync(T->tile_off, h, nw1 * sizeof *h, cudaMemcpyHostToDevice, s));
  GCOO_GOTO(gcoo__cuda_alloc((void **)&T->tiles,
                             (size_t)(T->ntiles > 0 ? T->ntiles : 1) * kTile * sizeof(float),
                             "tensor-core tiles of A"));
  GCOO_CALL_CUDA_GOTO(cudaMemsetAsync(T->tiles, 0, (size_t)T->ntiles * kTile * sizeof(float), s));
  if (T->m > 0) {
    GCOO_LAUNCH(tc_fill_kernel, dim3(grid_for(T->m, 256)), dim3(256), 0, s, L->rowptr,
                (const Entry<float> *)L->entries, (const int64_t *)T->tile_off, T->tiles, T->m);
    GCOO_CALL_CUDA_GOTO(cudaGetLastError());
  }
  /* h is read by the queued copy: wait before freeing it */
  GCOO_CALL_CUDA_GOTO(cudaStreamSynchronize(s));
done:
  free(h);
  if (st < 0) gcoo_cuda_tc_free(T);
  return st;
}

extern "C" void gcoo_cuda_tc_free(gcoo_cuda_tc *T) {
  if (!T) return;
  cudaFree(T->tile_off);
  cudaFree(T->tiles);
  cudaFree(T->rowmap);
  (void)cudaGetLastError();
  memset(T, 0, sizeof *T);
}

namespace {

// The launch: the tile width and the warps a window, then the kernel.
gcoo_status launch_tc_product(const gcoo_cuda_tc *T, const gcoo_cuda_devinfo *dev, double alpha,
                              const void *X, int64_t ldx, double beta, void *Y, int64_t ldy,
                              int64_t N, cudaStream_t s, gcoo_cuda_tuned_launch *chosen) {
  GCOO_CHECK(div_up(N, 32) <= 65535, GCOO_ERR_UNSUPPORTED,
             "the tensor-core kernel takes N <= %d columns, not %lld", 65535 * 32, (long long)N);
  GCOO_CHECK(T->force_cols == 0 || T->force_cols == 32 || T->force_cols == 64 ||
                 T->force_cols == 128,
             GCOO_ERR_INVALID_ARG, "tensor-core kernel: tiles of %d columns (32, 64 or 128)",
             T->force_cols);
  const TcArgs a = {T->uptr,  T->ucols,  T->tile_off,
                    T->tiles, T->rowmap, T->nwin,
                    T->m,     N,         dense_ops<float>(X, ldx, Y, ldy, alpha, beta)};
  /* the width: a forced one (the TF32 trial's, a test's, GCOO_TC_COLS), never wider than N
   * needs; else the widest tile (kWidestCols) unless N is narrower or the grid would leave fewer
   * than 4 blocks a multiprocessor: the warps a window for that tile, then the tile again for
   * the grid that gives */
  const int need = N <= 32 ? 32 : N <= 64 ? 64 : 128;
  int cols = T->force_cols > 0 ? (T->force_cols < need ? T->force_cols : need)
             : N <= 32         ? 32
             : N <= 64         ? 64
                               : kWidestCols;
  const int ks = T->force_ksplit > 0 ? T->force_ksplit
                                     : choose_ksplit(T, div_up(N, cols), dev->sm_count);
  GCOO_CHECK(ks == 1 || ks == 2 || ks == 4, GCOO_ERR_INVALID_ARG,
             "tensor-core kernel: %d warps a window (1, 2 or 4)", ks);
  const int64_t bx = div_up(a.nwin, kWarps / ks);
  while (T->force_cols == 0 && cols > 32 && bx * div_up(N, cols) < 4 * (int64_t)dev->sm_count)
    cols /= 2;
  if (cols == 128)
    GCOO_CALL(launch_tc_ks<16>(a, ks, s));
  else if (cols == 64)
    GCOO_CALL(launch_tc_ks<8>(a, ks, s));
  else
    GCOO_CALL(launch_tc_ks<4>(a, ks, s));
  if (chosen) {
    chosen->variant = 0;
    chosen->threads = kThreads;
    chosen->tile_cols = cols;
    chosen->tensor_core = 1;
    chosen->tc_ksplit = ks;
  }
  return GCOO_SUCCESS;
}

} // namespace

extern "C" gcoo_status gcoo_cuda_spdm_tc(const gcoo_cuda_tc *T, const gcoo_cuda_devinfo *dev,
                                         double alpha, const void *X, int64_t ldx, double beta,
                                         void *Y, int64_t ldy, int64_t N, void *stream,
                                         gcoo_cuda_tuned_launch *chosen) {
  GCOO_CHECK(T != NULL && dev != NULL, GCOO_ERR_NULL, "layout or device is NULL");
  GCOO_CHECK(T->nwin == 0 || T->tile_off != NULL, GCOO_ERR_INVALID_ARG,
             "the tensor-core layout is not built (gcoo_cuda_tc_build)");
  /* float only (the layout holds TF32 values): one precision, whatever spdm_enter's z */
  return spdm_enter(GCOO_FLOAT32, T->m, T->k, X, ldx, Y, ldy, N, stream, chosen, [&](auto, auto s) {
    return launch_tc_product(T, dev, alpha, X, ldx, beta, Y, ldy, N, s, chosen);
  });
}
