// SPDX-License-Identifier: MIT
// kernels/solver/bcg_fused.cuh: block CG's passes over its n x k blocks fused into three kernels, for
// k = K in {8, 16, 32} (solver/ksp_bcg.c's device path, launched by kernels/solver/bcg_fused_cuda.cu):
//   gram2      red = [P^T Q | P^T R]                                  reads P, Q, R      (3 passes)
//   update     X += P alpha, R -= Q alpha, W = D^-1 R, red = [||R_j||^2 | Q^T W]
//                                                     reads P, Q, X, R, writes X, R, W   (7 passes)
//   direction  W += P beta, red = W^T W                reads P, W, writes W               (3 passes)
// instead of 2 + 2 GEMM passes, 6 GEMM passes + the Jacobi pass (2) + a GEMM (2), and 3 + 2 GEMM
// passes: 13 passes instead of 19 an iteration. Each block takes a contiguous range of rows in
// tiles of kTile rows: the rows of P (and Q, R, ...) are copied into shared memory
// asynchronously (cp.async) in a pipeline of 3-4 tile buffers, so that two or three tiles are in
// flight while one is computed (the stage counts, gram2's 16-byte copies or a register
// prefetch, the update's W over R's tile are template arguments, which kernels/solver/bcg_fused_cuda.cu
// picks from GCOO_BCG_STAGES, GCOO_BCG_GRAM2, GCOO_BCG_W_IN_R for measurements; unset: the
// defaults); a thread owns column j = t % K of kTile / (256 / K) rows of a tile, with its column
// of the K x K coefficient in registers; the K x K sums are per-block partials in double (each
// thread a fixed set of entries over the tile's rows, in row order), summed over the blocks in a fixed order by column_sums.cuh: reproducible run to run.
// Double at k = 16, 32 does the X, R, W updates and the K x K sums on the FP64 tensor cores
// (tile_mma, gram_mma; GCOO_BCG_MMA=0 keeps the CUDA-core updates). Barriers only (no warp
// shuffles or atomics; mma is the one warp-wide instruction, scalar on the emulator):
// tests/solver/t613 runs these kernels on the CPU emulator (tests/common/cuda_emu.h) against a plain
// CPU reference.
#ifndef GCOO_BCG_FUSED_CUH
#define GCOO_BCG_FUSED_CUH

#include <stdint.h>
#include <string.h>

#include "common/column_sums.cuh"
#include "common/cuda_compat.h"

namespace gcoo_bcg {

constexpr int kFusedThreads = 256; // threads per block of the fused kernels
constexpr int kTile = 32;          // rows per tile
// Row stride of a staged tile: K + 4 values, so that the 4 rows a tensor-core fragment load
// touches fall in different shared-memory banks (K = 32 doubles: rows 8 banks apart).
template <int K>
struct staged {
  static constexpr int S = K + 4;
  static constexpr int VALUES = kTile * S;
};

template <typename T>
struct vec2_of;
template <>
struct vec2_of<double> {
  typedef double2 type;
};
template <>
struct vec2_of<float> {
  typedef float2 type;
};

// Rows [r0, r1) of this block: whole tiles, contiguous, the same count for every block but the
// last ones (r0 >= r1: no rows, the block still writes its zero partials).
__device__ inline void fused_rows(int64_t n, int64_t *r0, int64_t *r1) {
  const int64_t tiles = (n + kTile - 1) / kTile;
  const int64_t per = (tiles + gridDim.x - 1) / gridDim.x;
  *r0 = (int64_t)blockIdx.x * per * kTile;
  *r1 = *r0 + per * kTile < n ? *r0 + per * kTile : n;
}

#if !defined(GCOO_CUDA_EMULATE) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define GCOO_BCG_ASYNC 1
#endif

// One element global -> shared without passing through registers (cp.async, sm_80+): the tile
// loop keeps STAGES - 1 tiles in flight per block whatever the kernel's register count (one
// tile in registers left the update pass at 2.1 TB/s: one block of 8 warps per SM did not have
// enough loads in flight). The emulator copies at once (the barriers are the same).
template <typename T>
__device__ inline void async_copy(T *dst, const T *src) {
#ifdef GCOO_BCG_ASYNC
  const unsigned s = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(s), "l"(src), "n"(sizeof(T))
               : "memory");
#else
  *dst = *src;
#endif
}

// 16 bytes global -> shared (cp.async.cg: L2 only, streaming data), both addresses 16-byte
// aligned: half the copy instructions of async_copy for double, a quarter for float.
__device__ inline void async_copy16(void *dst, const void *src) {
#ifdef GCOO_BCG_ASYNC
  const unsigned s = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(src) : "memory");
#else
  memcpy(dst, src, 16);
#endif
}

// Closes this thread's group of copies (one a tile, empty ones included: the count stays uniform).
__device__ inline void async_commit() {
#ifdef GCOO_BCG_ASYNC
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

// Waits until at most N of this thread's groups are still in flight.
template <int N>
__device__ inline void async_wait() {
#ifdef GCOO_BCG_ASYNC
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

// Issues the copies of a tile of K-column rows [b0, b0 + nt) of M (ld ldm) into a staged tile s
// (row stride staged<K>::S): element e = t + 256 q (row e / K, column e % K), consecutive threads
// on consecutive columns (coalesced). Rows past nt are not copied (no kernel reads them).
template <typename T, int K>
__device__ void stage_tile(const T *__restrict__ M, int64_t ldm, int64_t b0, int nt, T *s) {
#pragma unroll
  for (int q = 0; q < kTile * K / kFusedThreads; q++) {
    const int e = (int)threadIdx.x + kFusedThreads * q, i = e / K, c = e % K;
    if (i < nt) async_copy(s + i * staged<K>::S + c, M + (b0 + i) * ldm + c);
  }
}

// Whether rows of M (ld ldm) start on 16-byte boundaries: stage_tile16 may copy them.
template <typename T>
__device__ inline bool rows_aligned16(const T *M, int64_t ldm) {
  return ((uintptr_t)M % 16 == 0) && (ldm * (int64_t)sizeof(T)) % 16 == 0;
}

// stage_tile in 16-byte pieces (CH = 16 / sizeof(T) consecutive columns a copy; piece e = t +
// 256 q: row e / (K / CH), columns CH (e % (K / CH)) ...), where M's rows are 16-byte aligned
// (vec16; the staged rows are: S * sizeof(T) is a multiple of 16); element copies otherwise.
template <typename T, int K>
__device__ void stage_tile16(const T *__restrict__ M, int64_t ldm, int64_t b0, int nt, T *s,
                             bool vec16) {
  constexpr int CH = 16 / (int)sizeof(T), PR = K / CH, PIECES = kTile * PR;
  static_assert(K % CH == 0 && (staged<K>::S * sizeof(T)) % 16 == 0, "16-byte staged rows");
  if (!vec16) {
    stage_tile<T, K>(M, ldm, b0, nt, s);
    return;
  }
#pragma unroll
  for (int q = 0; q < (PIECES + kFusedThreads - 1) / kFusedThreads; q++) {
    const int e = (int)threadIdx.x + kFusedThreads * q, i = e / PR, c = CH * (e % PR);
    if (e < PIECES && i < nt) async_copy16(s + i * staged<K>::S + c, M + (b0 + i) * ldm + c);
  }
}

// The tile loop of every fused kernel over this block's rows [r0, r1), software-pipelined over
// STAGES shared-memory buffers: issue(b0, nt, s) starts the copies of the tile at b0 into
// buffer s; body(b0, nt, s) computes a tile whose copies are complete. Tile t + STAGES - 1 is
// issued before tile t is computed; the barrier after body() keeps a buffer from being refilled
// while another thread still reads it.
template <int STAGES, typename Issue, typename Body>
__device__ void tile_pipeline(int64_t r0, int64_t r1, Issue issue, Body body) {
  const int64_t tiles = r0 < r1 ? (r1 - r0 + kTile - 1) / kTile : 0;
  auto rows = [&](int64_t t) {
    const int64_t b0 = r0 + t * kTile;
    return r1 - b0 < kTile ? (int)(r1 - b0) : kTile;
  };
  for (int s = 0; s < STAGES - 1; s++) {
    if (s < tiles) issue(r0 + s * kTile, rows(s), s);
    async_commit();
  }
  for (int64_t t = 0; t < tiles; t++) {
    const int64_t tn = t + STAGES - 1;
    if (tn < tiles) issue(r0 + tn * kTile, rows(tn), (int)(tn % STAGES));
    async_commit();
    async_wait<STAGES - 1>(); // tile t's copies (this thread's) are done
    __syncthreads();          // ... and every other thread's
    body(r0 + t * kTile, rows(t), (int)(t % STAGES));
    __syncthreads();
  }
}

// The register-prefetch form of the tile loop (kept for gram2: 337 us against the
// cp.async pipeline's 352-361 at K = 32 double, H200): a tile of K-column rows [b0, b0 + nt) of
// M (ld ldm) in registers, PER values a thread (element e = t + 256 q: row e / K, column e % K;
// rows past nt read as zero), stored into one staged tile.
template <typename T, int K>
struct tile_regs {
  static constexpr int PER = kTile * K / kFusedThreads;
  T v[PER];
  __device__ void load(const T *__restrict__ M, int64_t ldm, int64_t b0, int nt) {
#pragma unroll
    for (int q = 0; q < PER; q++) {
      const int e = (int)threadIdx.x + kFusedThreads * q, i = e / K, c = e % K;
      v[q] = i < nt ? M[(b0 + i) * ldm + c] : (T)0;
    }
  }
  __device__ void store(T *s) const {
#pragma unroll
    for (int q = 0; q < PER; q++) {
      const int e = (int)threadIdx.x + kFusedThreads * q;
      s[(e / K) * staged<K>::S + e % K] = v[q];
    }
  }
};

// The register-prefetch tile loop over rows [r0, r1): load(b0) issues a tile's loads into
// registers, stage() stores the loaded tile into the one staged buffer (between barriers: the
// previous tile's sums are done with it), then the next tile's loads are issued and body(b0,
// nt) computes the staged tile while they are in flight.
template <typename Load, typename Stage, typename Body>
__device__ void tile_prefetch_loop(int64_t r0, int64_t r1, Load load, Stage stage, Body body) {
  if (r0 < r1) load(r0);
  for (int64_t b0 = r0; b0 < r1; b0 += kTile) {
    const int nt = r1 - b0 < kTile ? (int)(r1 - b0) : kTile;
    __syncthreads();
    stage();
    __syncthreads();
    if (b0 + kTile < r1) load(b0 + kTile);
    body(b0, nt);
  }
}

// sum_l row[l] c[l] over the K entries of a staged row (shared memory, pairs at a time; even and
// odd l in two sums: two independent FMA chains).
template <typename T, int K>
__device__ inline T row_times(const T *row, const T (&c)[K]) {
  typedef typename vec2_of<T>::type V;
  const V *r2 = reinterpret_cast<const V *>(row);
  T s0 = (T)0, s1 = (T)0;
#pragma unroll
  for (int l = 0; l < K / 2; l++) {
    const V p = r2[l];
    s0 += p.x * c[2 * l];
    s1 += p.y * c[2 * l + 1];
  }
  return s0 + s1;
}

// This thread's entries of a K x K sum U^T V over rows (U, V: staged tiles), in double.
// K >= 16: EP entries (a0 .. a0 + EP - 1, b) a thread over every row; K = 8: each of the 64
// entries by G = 4 threads over every G-th row, combined in store().
template <typename T, int K>
struct gram_acc {
  static constexpr int E = K * K;
  static constexpr int EP = E >= kFusedThreads ? E / kFusedThreads : 1;
  static constexpr int G = E >= kFusedThreads ? 1 : kFusedThreads / E;
  int a0, b, g;
  double acc[EP];
  __device__ void init() {
    const int t = (int)threadIdx.x;
    if (G == 1) {
      b = t % K;
      a0 = (t / K) * EP;
      g = 0;
    } else {
      b = (t % E) % K;
      a0 = (t % E) / K;
      g = t / E;
    }
#pragma unroll
    for (int m = 0; m < EP; m++) acc[m] = 0.0;
  }
  __device__ void add(const T *U, const T *V, int nt) {
    typedef typename vec2_of<T>::type V2;
    for (int i = g; i < nt; i += G) {
      const double v = (double)V[i * staged<K>::S + b];
      if (EP % 2 == 0) { // a0 is a multiple of EP: pairs are aligned
#pragma unroll
        for (int m = 0; m < EP; m += 2) {
          const V2 u = *reinterpret_cast<const V2 *>(U + i * staged<K>::S + a0 + m);
          acc[m] += (double)u.x * v;
          acc[m + 1] += (double)u.y * v;
        }
      } else {
#pragma unroll
        for (int m = 0; m < EP; m++) acc[m] += (double)U[i * staged<K>::S + a0 + m] * v;
      }
    }
  }
  // out[a * K + b] for every entry; buf: kFusedThreads doubles of shared memory. Every thread.
  __device__ void store(double *out, double *buf) const {
    if (G == 1) {
#pragma unroll
      for (int m = 0; m < EP; m++) out[(a0 + m) * K + b] = acc[m];
      return;
    }
    buf[threadIdx.x] = acc[0];
    __syncthreads();
    if ((int)threadIdx.x < E) {
      double s = 0.0;
      for (int q = 0; q < G; q++) s += buf[q * E + threadIdx.x];
      out[threadIdx.x] = s; // threadIdx.x = a0 * K + b
    }
    __syncthreads();
  }
};

#if !defined(GCOO_CUDA_EMULATE) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define GCOO_BCG_DMMA 1
#endif

#ifdef GCOO_BCG_DMMA
// The same K x K sum U^T V for double on the FP64 tensor cores (mma.sync m8n8k4, IEEE FP64
// fused multiply-adds, the order fixed: reproducible): the K/8 x K/8 blocks of 8 x 8 spread over
// the 8 warps (K = 32: 2 blocks a warp; K = 16: a block for 2 warps, which split the tile's rows
// and are summed in store()). Fragments (PTX ISA, m8n8k4 .f64): lane = 4 g + t; A (8 x 4) holds
// A[g][t] = U[row r + t][col m0 + g], B (4 x 8) B[t][g] = V[row r + t][col n0 + g], the
// accumulator C[g][2 t + v], v = 0, 1. A CUDA-core sum of the same products costs K^2 FMAs a
// row; the tensor cores take them at 4x the rate.
template <int K>
struct gram_mma {
  static constexpr int NB = (K / 8) * (K / 8), NW = kFusedThreads / 32;
  static constexpr int BPW = NB >= NW ? NB / NW : 1; // 8 x 8 blocks a warp
  static constexpr int WPB = NB >= NW ? 1 : NW / NB; // warps a block
  int g, t, wsub, m0[BPW], n0[BPW];
  double c[BPW][2];
  __device__ void init() {
    const int lane = (int)threadIdx.x & 31, w = (int)threadIdx.x >> 5;
    g = lane >> 2;
    t = lane & 3;
    wsub = NB >= NW ? 0 : w / NB;
#pragma unroll
    for (int q = 0; q < BPW; q++) {
      const int blk = NB >= NW ? w * BPW + q : w % NB;
      m0[q] = (blk / (K / 8)) * 8;
      n0[q] = (blk % (K / 8)) * 8;
      c[q][0] = c[q][1] = 0.0;
    }
  }
  __device__ void add(const double *U, const double *V, int nt) {
    for (int r = 4 * wsub; r < nt; r += 4 * WPB) { // warp-uniform: every lane takes each step
      const int row = r + t;
      const bool in = row < nt; // rows past the tile's end count as zero
#pragma unroll
      for (int q = 0; q < BPW; q++) {
        const double a = in ? U[row * staged<K>::S + m0[q] + g] : 0.0;
        const double b = in ? V[row * staged<K>::S + n0[q] + g] : 0.0;
        asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, "
                     "{%0, %1};\n"
                     : "+d"(c[q][0]), "+d"(c[q][1])
                     : "d"(a), "d"(b));
      }
    }
  }
  __device__ void store(double *out, double *buf) {
    if (WPB > 1) {
      // WPB warps a block: the later ones leave their sums in buf (K^2 <= 256 values each), the
      // first adds them in warp order
      for (int u = 1; u < WPB; u++) {
        if (wsub == u) {
          buf[(m0[0] + g) * K + n0[0] + 2 * t] = c[0][0];
          buf[(m0[0] + g) * K + n0[0] + 2 * t + 1] = c[0][1];
        }
        __syncthreads();
        if (wsub == 0) {
          const double *o0 = buf + (m0[0] + g) * K + n0[0] + 2 * t;
          c[0][0] += o0[0];
          c[0][1] += o0[1];
        }
        __syncthreads();
      }
    }
    if (wsub == 0) {
#pragma unroll
      for (int q = 0; q < BPW; q++) {
        out[(m0[q] + g) * K + n0[q] + 2 * t] = c[q][0];
        out[(m0[q] + g) * K + n0[q] + 2 * t + 1] = c[q][1];
      }
    }
  }
};
#endif

// The K x K sum of a kernel: the tensor-core form for double where it is compiled and the sum
// has 8 x 8 blocks for every warp (K >= 16), the CUDA-core form otherwise (float; K = 8; the
// CPU emulator, which runs the same sums in gram_acc).
template <typename T, int K>
struct gram_of {
  typedef gram_acc<T, K> type;
};
#ifdef GCOO_BCG_DMMA
template <>
struct gram_of<double, 16> {
  typedef gram_mma<16> type;
};
template <>
struct gram_of<double, 32> {
  typedef gram_mma<32> type;
};
#endif

// The block updates as FP64 tensor-core products (double, K = 16, 32): out = base + sign A C for
// a staged kTile x K tile A (P or Q), its staged base tile (X, R or W) and the K x K coefficient
// C (alpha or beta). On the CUDA cores each column thread spends K FMAs and K / 2 shared loads a
// row and output (2048 FMAs a row for X and R at K = 32), which bound the update pass on the SM
// side (ncu: 803 us, 2.2 TB/s); mma.sync m8n8k4 takes 256 of those FMAs in one instruction.
// The tile's 32 x K output is (32 / 8) x (K / 8) blocks of 8 x 8 over the 8 warps (K = 32: 2 a
// warp, K = 16: 1), all of a warp's blocks in one column block cb, so the warp's B fragments
// b[s] = C[4 s + t][8 cb + g] (s < K / 4) are loaded once a kernel into registers. Fragments
// (PTX ISA, m8n8k4 .f64; lane = 4 g + t): A[g][t] = A_tile[8 rb + g][4 s + t]; the accumulator
// starts from base[8 rb + g][8 cb + 2 t + v] and ends as the output there (v = 0, 1: two adjacent
// columns of one row a lane). Each output row depends on its own A row only, so rows past the
// tile's end (not copied) give values that are never stored. The products' order is fixed (K / 4
// mma steps in s order): reproducible run to run. Without the tensor cores (the CPU emulator, the
// host pass) the same indexing runs as scalar FMAs, so tests/solver/t613 checks the layout.
template <typename T, int K>
struct update_mma {
  static constexpr bool on = false; // float, K = 8: CUDA-core updates (row_times)
};
template <>
struct update_mma<double, 16> {
  static constexpr bool on = true;
};
template <>
struct update_mma<double, 32> {
  static constexpr bool on = true;
};

template <int K>
struct tile_mma {
  static_assert(K == 16 || K == 32, "tensor-core updates for K = 16, 32");
  static constexpr int NW = kFusedThreads / 32, CB = K / 8, S = staged<K>::S;
  static constexpr int BPW = (kTile / 8) * CB / NW; // 8 x 8 output blocks a warp
  int g, t, col, row[BPW];                          // row[q]: this lane's tile row of block q
  bool vec; // the outputs' rows take 16-byte stores (store_pair)
#ifdef GCOO_BCG_DMMA
  double b[K / 4];
#else
  const double *C;
#endif
  __device__ void init(const double *coef, bool aligned) {
    vec = aligned;
    const int lane = (int)threadIdx.x & 31, w = (int)threadIdx.x >> 5, cb = w % CB;
    g = lane >> 2;
    t = lane & 3;
    col = 8 * cb + 2 * t;
#pragma unroll
    for (int q = 0; q < BPW; q++) row[q] = 8 * (w / CB + (NW / CB) * q) + g;
#ifdef GCOO_BCG_DMMA
#pragma unroll
    for (int s = 0; s < K / 4; s++) b[s] = coef[(4 * s + t) * K + 8 * cb + g];
#else
    C = coef;
#endif
  }
  // c[v] = base[row[q]][col + v] + sign sum_l A[row[q]][l] C[l][col + v]; sign = +-1 negates the
  // A fragment (exact), so R - Q alpha is R + (-Q) alpha with the same roundings.
  __device__ void apply(const double *A, const double *base, int q, double sign,
                        double (&c)[2]) const {
    const double *a = A + row[q] * S;
    c[0] = base[row[q] * S + col];
    c[1] = base[row[q] * S + col + 1];
#ifdef GCOO_BCG_DMMA
#pragma unroll
    for (int s = 0; s < K / 4; s++)
      asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
          : "+d"(c[0]), "+d"(c[1])
          : "d"(sign * a[4 * s + t]), "d"(b[s]));
#else
    for (int v = 0; v < 2; v++)
      for (int l = 0; l < K; l++) c[v] += sign * a[l] * C[l * K + col + v];
#endif
  }
  // out[j] = sum of this lane's partial sums part[v] over the lanes holding column j (t = j % 8
  // / 2, v = j % 2, every g, the warps of column block j / 8), in warp and g order; scratch:
  // 2 * kFusedThreads doubles of shared memory. Every thread.
  __device__ static void column_store(const double (&part)[2], double *out, double *scratch) {
    scratch[2 * threadIdx.x] = part[0];
    scratch[2 * threadIdx.x + 1] = part[1];
    __syncthreads();
    if ((int)threadIdx.x < K) {
      const int j = (int)threadIdx.x, tj = (j % 8) / 2, v = j % 2;
      double s = 0.0;
      for (int w = j / 8; w < NW; w += CB)
        for (int gg = 0; gg < 8; gg++) s += scratch[2 * (32 * w + 4 * gg + tj) + v];
      out[j] = s;
    }
    __syncthreads();
  }
};

// Two adjacent values of one row to global memory: one 16-byte store where aligned.
__device__ inline void store_pair(double *p, const double (&c)[2], bool vec) {
  if (vec) {
    *reinterpret_cast<double2 *>(p) = make_double2(c[0], c[1]);
  } else {
    p[0] = c[0];
    p[1] = c[1];
  }
}
__device__ inline bool pairs_aligned(const void *p, int64_t ld) {
  return ((uintptr_t)p % 16 == 0) && ld % 2 == 0;
}

// out[j] = the sum of v over the 256 / K threads of column j (t % K = j), in thread order.
template <int K>
__device__ void column_store(double v, double *out, double *buf) {
  buf[threadIdx.x] = v;
  __syncthreads();
  if ((int)threadIdx.x < K) {
    double s = 0.0;
    for (int q = 0; q < kFusedThreads / K; q++) s += buf[q * K + threadIdx.x];
    out[threadIdx.x] = s;
  }
  __syncthreads();
}

// Column j of the K x K row-major coefficient matrix C, into registers.
template <typename T, int K>
__device__ void coef_column(const T *C, int j, T (&c)[K]) {
#pragma unroll
  for (int l = 0; l < K; l++) c[l] = C[l * K + j];
}

// How gram2 stages its tiles (GCOO_BCG_GRAM2, read by kernels/solver/bcg_fused_cuda.cu): the cp.async
// pipeline with element copies (the default), the same with 16-byte copies, or the register
// prefetch of one tile (tile_regs).
enum gram2_form { kGram2Async = 0, kGram2Async16 = 1, kGram2Regs = 2 };

// Stages of each kernel's tile pipeline and its dynamic shared memory: gram2 stages P, Q and R
// tiles; update P, Q, X, R tiles and the D^-1 entries, then one W tile for Q^T W; direction P
// and W tiles (W updated in place). The defaults (GRAM2_STAGES, ...) are what the solver runs
// unless GCOO_BCG_STAGES / GCOO_BCG_GRAM2 say otherwise. Double at K = 32 with 3, 3, 4 stages:
// 81, 118 and 72 KiB; with 2 update stages 82 KiB (two blocks an SM instead of one), 72.5 KiB
// with W over R's tile (three blocks an SM: 3 x (72.5 + 2 static + 1 reserved) KiB of the SM's
// 228, not faster), with 3 direction stages 54 KiB, gram2 with 2 stages 54 KiB.
template <typename T, int K>
struct fused_shape {
  static constexpr int V = staged<K>::VALUES;
  // measured on the H200 (Poisson 10^6 rows, bench/results/h200-solver-stages.txt):
  // double K = 32 fastest with gram2 2 stages of 16-byte copies, update 2 (two blocks an SM),
  // direction 3 (1.061x "3,3,4"); double K = 16 with update 2, direction 3
  // (1.013x); float and K = 8 keep "3,3,4" (element copies)
  static constexpr bool D = sizeof(T) == 8;
  static constexpr int GRAM2_STAGES = D && K == 32 ? 2 : 3;
  static constexpr int UPDATE_STAGES = D && K >= 16 ? 2 : 3;
  static constexpr int DIRECTION_STAGES = D && K >= 16 ? 3 : 4;
  static constexpr int GRAM2_FORM = D && K == 32 ? kGram2Async16 : kGram2Async;
  static constexpr int UPDATE_STAGE = 4 * V + kTile;
  // the register-prefetch form stages one tile of each: the bytes of one stage
  static constexpr size_t gram2_bytes(int stages = GRAM2_STAGES) {
    return sizeof(T) * (size_t)stages * 3 * V;
  }
  // w_in_r: W staged over R's tile of the stage (bcg_fused_update's WR), no tile of its own
  static constexpr size_t update_bytes(int stages = UPDATE_STAGES, bool w_in_r = false) {
    return sizeof(T) * ((size_t)stages * UPDATE_STAGE + (w_in_r ? 0 : V));
  }
  static constexpr size_t direction_bytes(int stages = DIRECTION_STAGES) {
    return sizeof(T) * (size_t)stages * 2 * V;
  }
};

// partial: gridDim.x x 2K^2: [P^T Q | P^T R] of this block's rows. FORM: gram2_form; STAGES:
// the pipeline's buffers (the async forms). Dynamic shared memory:
// fused_shape<T, K>::gram2_bytes(FORM == kGram2Regs ? 1 : STAGES).
template <typename T, int K, int FORM = fused_shape<T, K>::GRAM2_FORM,
          int STAGES = fused_shape<T, K>::GRAM2_STAGES>
__global__ void __launch_bounds__(kFusedThreads)
    bcg_fused_gram2(int64_t n, const T *__restrict__ P, int64_t ldp, const T *__restrict__ Q,
                    int64_t ldq, const T *__restrict__ R, int64_t ldr, double *partial) {
  typedef fused_shape<T, K> F;
  GCOO_DYNAMIC_SMEM(T, sm);
  __shared__ double buf[kFusedThreads];
  typename gram_of<T, K>::type pq, pr;
  pq.init();
  pr.init();
  int64_t r0, r1;
  fused_rows(n, &r0, &r1);
  auto sums = [&](const T *st, int nt) {
    pq.add(st, st + F::V, nt);
    pr.add(st, st + 2 * F::V, nt);
  };
  if constexpr (FORM == kGram2Regs) {
    tile_regs<T, K> tp, tq, tr;
    tile_prefetch_loop(
        r0, r1,
        [&](int64_t b0) {
          const int nt = r1 - b0 < kTile ? (int)(r1 - b0) : kTile;
          tp.load(P, ldp, b0, nt);
          tq.load(Q, ldq, b0, nt);
          tr.load(R, ldr, b0, nt);
        },
        [&] {
          tp.store(sm);
          tq.store(sm + F::V);
          tr.store(sm + 2 * F::V);
        },
        [&](int64_t, int nt) { sums(sm, nt); });
  } else {
    const bool vp = rows_aligned16(P, ldp), vq = rows_aligned16(Q, ldq),
               vr = rows_aligned16(R, ldr);
    tile_pipeline<STAGES>(
        r0, r1,
        [&](int64_t b0, int nt, int s) {
          T *st = sm + s * 3 * F::V;
          if constexpr (FORM == kGram2Async16) {
            stage_tile16<T, K>(P, ldp, b0, nt, st, vp);
            stage_tile16<T, K>(Q, ldq, b0, nt, st + F::V, vq);
            stage_tile16<T, K>(R, ldr, b0, nt, st + 2 * F::V, vr);
          } else {
            stage_tile<T, K>(P, ldp, b0, nt, st);
            stage_tile<T, K>(Q, ldq, b0, nt, st + F::V);
            stage_tile<T, K>(R, ldr, b0, nt, st + 2 * F::V);
          }
        },
        [&](int64_t, int nt, int s) { sums(sm + s * 3 * F::V, nt); });
    (void)vp;
    (void)vq;
    (void)vr;
  }
  double *out = partial + (int64_t)blockIdx.x * 2 * K * K;
  pq.store(out, buf);
  pr.store(out + K * K, buf);
}

// X += P alpha, R -= Q alpha, W = D^-1 R (dinv NULL: W = R); partial: gridDim.x x (K + K^2):
// [||R_j||^2 | Q^T W] of this block's rows (R and W after the update). CUDA-core form (TC
// false): a thread updates column j = t % K of rows t / K + (256 / K) u of a tile, with column j
// of alpha in registers; tensor-core form (TC, update_mma<T, K>::on): tile_mma's fragments.
// STAGES: the pipeline's buffers. WR: W is staged (for Q^T W) over the stage's R tile instead of
// a tile of its own: every staged R entry is read only by the thread (lane) that then writes the
// W entry in its place (the CUDA-core form's column thread, the tensor-core form's accumulator
// owner), so no barrier is needed between; saves one tile (GCOO_BCG_W_IN_R=1). Dynamic shared
// memory: fused_shape<T, K>::update_bytes(STAGES, WR).
template <typename T, int K, bool TC = false, int STAGES = fused_shape<T, K>::UPDATE_STAGES,
          bool WR = false>
__global__ void __launch_bounds__(kFusedThreads)
    bcg_fused_update(int64_t n, const T *__restrict__ P, int64_t ldp, const T *__restrict__ Q,
                     int64_t ldq, const T *__restrict__ alpha, T *__restrict__ X, int64_t ldx,
                     T *__restrict__ R, int64_t ldr, const T *__restrict__ dinv, T *__restrict__ W,
                     int64_t ldw, double *partial) {
  typedef fused_shape<T, K> F;
  constexpr int RP = kFusedThreads / K, RPT = kTile / RP, S = staged<K>::S, V = F::V;
  GCOO_DYNAMIC_SMEM(T, sm);
  __shared__ double buf[kFusedThreads];
  static_assert(!TC || update_mma<T, K>::on, "no tensor-core updates for this T, K");
  T *const sW0 = sm + STAGES * F::UPDATE_STAGE; // W's own tile (not WR)
  const int j = (int)threadIdx.x % K, ri = (int)threadIdx.x / K;
  T a[TC ? 1 : K];         // CUDA-core form: column j of alpha
  tile_mma<TC ? K : 16> m; // tensor-core form: its fragments (unused otherwise)
  if constexpr (TC)
    m.init(alpha, pairs_aligned(X, ldx) && pairs_aligned(R, ldr) && pairs_aligned(W, ldw));
  else
    coef_column<T, K>(alpha, j, a);
  double rr = 0.0, rr2[2] = {0.0, 0.0}; // ||R_j||^2 partials: a column j (CUDA cores), two (TC)
  typename gram_of<T, K>::type qw;
  qw.init();
  int64_t r0, r1;
  fused_rows(n, &r0, &r1);
  tile_pipeline<STAGES>(
      r0, r1,
      [&](int64_t b0, int nt, int s) {
        T *st = sm + s * F::UPDATE_STAGE;
        stage_tile<T, K>(P, ldp, b0, nt, st);
        stage_tile<T, K>(Q, ldq, b0, nt, st + V);
        stage_tile<T, K>(X, ldx, b0, nt, st + 2 * V);
        stage_tile<T, K>(R, ldr, b0, nt, st + 3 * V);
        if (dinv && (int)threadIdx.x < nt)
          async_copy(st + 4 * V + threadIdx.x, dinv + b0 + threadIdx.x);
      },
      [&](int64_t b0, int nt, int s) {
        const T *st = sm + s * F::UPDATE_STAGE;
        T *const sW = WR ? sm + s * F::UPDATE_STAGE + 3 * V : sW0;
        if constexpr (TC) {
#pragma unroll
          for (int q = 0; q < m.BPW; q++) {
            const int i = m.row[q];
            double x[2], rn[2], w[2];
            m.apply(st, st + 2 * V, q, 1.0, x);       // X + P alpha
            m.apply(st + V, st + 3 * V, q, -1.0, rn); // R - Q alpha
            if (i < nt) {
              const int64_t row = b0 + i;
              for (int v = 0; v < 2; v++) {
                w[v] = dinv ? st[4 * V + i] * rn[v] : rn[v];
                sW[i * S + m.col + v] = w[v];
                rr2[v] += rn[v] * rn[v];
              }
              store_pair(X + row * ldx + m.col, x, m.vec);
              store_pair(R + row * ldr + m.col, rn, m.vec);
              store_pair(W + row * ldw + m.col, w, m.vec);
            }
          }
        } else {
#pragma unroll
          for (int u = 0; u < RPT; u++) {
            const int i = ri + RP * u;
            if (i < nt) {
              const int64_t row = b0 + i;
              X[row * ldx + j] = st[2 * V + i * S + j] + row_times<T, K>(st + i * S, a);
              const T rn = st[3 * V + i * S + j] - row_times<T, K>(st + V + i * S, a);
              R[row * ldr + j] = rn;
              const T w = dinv ? st[4 * V + i] * rn : rn;
              W[row * ldw + j] = w;
              sW[i * S + j] = w;
              rr += (double)rn * (double)rn;
            }
          }
        }
        __syncthreads();
        qw.add(st + V, sW, nt);
      });
  double *out = partial + (int64_t)blockIdx.x * (K + K * K);
  if constexpr (TC)
    m.column_store(rr2, out, reinterpret_cast<double *>(sm)); // the tiles are done with
  else
    column_store<K>(rr, out, buf);
  qw.store(out + K, buf);
}

// W += P beta; partial: gridDim.x x K^2: W^T W of this block's rows (W after the update, in
// place in its staged tile; each entry read and rewritten by the one thread that owns it). TC:
// the product on the tensor cores (tile_mma), as in bcg_fused_update. STAGES: the pipeline's
// buffers. Dynamic shared memory: fused_shape<T, K>::direction_bytes(STAGES).
template <typename T, int K, bool TC = false, int STAGES = fused_shape<T, K>::DIRECTION_STAGES>
__global__ void __launch_bounds__(kFusedThreads)
    bcg_fused_direction(int64_t n, const T *__restrict__ P, int64_t ldp, const T *__restrict__ beta,
                        T *__restrict__ W, int64_t ldw, double *partial) {
  typedef fused_shape<T, K> F;
  constexpr int RP = kFusedThreads / K, RPT = kTile / RP, S = staged<K>::S, V = F::V;
  GCOO_DYNAMIC_SMEM(T, sm);
  __shared__ double buf[kFusedThreads];
  static_assert(!TC || update_mma<T, K>::on, "no tensor-core updates for this T, K");
  const int j = (int)threadIdx.x % K, ri = (int)threadIdx.x / K;
  T c[TC ? 1 : K];
  tile_mma<TC ? K : 16> m;
  if constexpr (TC)
    m.init(beta, pairs_aligned(W, ldw));
  else
    coef_column<T, K>(beta, j, c);
  typename gram_of<T, K>::type ww;
  ww.init();
  int64_t r0, r1;
  fused_rows(n, &r0, &r1);
  tile_pipeline<STAGES>(
      r0, r1,
      [&](int64_t b0, int nt, int s) {
        T *st = sm + s * 2 * V;
        stage_tile<T, K>(P, ldp, b0, nt, st);
        stage_tile<T, K>(W, ldw, b0, nt, st + V);
      },
      [&](int64_t b0, int nt, int s) {
        const T *sP = sm + s * 2 * V;
        T *sw = sm + s * 2 * V + V;
        if constexpr (TC) {
#pragma unroll
          for (int q = 0; q < m.BPW; q++) {
            const int i = m.row[q];
            double w[2];
            m.apply(sP, sw, q, 1.0, w);
            if (i < nt) {
              store_pair(W + (b0 + i) * ldw + m.col, w, m.vec);
              sw[i * S + m.col] = w[0];
              sw[i * S + m.col + 1] = w[1];
            }
          }
        } else {
#pragma unroll
          for (int u = 0; u < RPT; u++) {
            const int i = ri + RP * u;
            if (i < nt) {
              const T w = sw[i * S + j] + row_times<T, K>(sP + i * S, c);
              W[(b0 + i) * ldw + j] = w;
              sw[i * S +
                 j] = w; // this thread's own entry: no other thread reads it before the barrier
            }
          }
        }
        __syncthreads();
        ww.add(sw, sw, nt);
      });
  ww.store(partial + (int64_t)blockIdx.x * K * K, buf);
}

} // namespace gcoo_bcg

#endif
