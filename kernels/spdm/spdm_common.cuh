// SPDX-License-Identifier: MIT
// kernels/spdm/spdm_common.cuh: what gcoo's CUDA kernels share: 16-byte packs along the dense
// dimension, guarded loads and stores for tails and unaligned operands, the alpha/beta epilogue,
// the tuned layout's packed entry, and small block-wide helpers written with shared memory and
// barriers only (no warp intrinsics), so that the CPU emulator runs them unchanged.
#ifndef GCOO_SPDM_COMMON_CUH
#define GCOO_SPDM_COMMON_CUH

#include <stdint.h>
#include <string.h>

#include "common/cuda_check.h"
#include "common/cuda_compat.h"
#include "gcoo/types.h"
#include "common/gcoo_kernels.h"

namespace {

/** The dense side of Y = alpha A X + beta Y as every SpDM kernel takes it (X and Y row-major):
 *  one definition, filled by dense_ops() in each launcher. xvec / yvec: the rows allow 16-byte
 *  accesses (aligned base and leading dimension). */
template <typename T>
struct DenseOps {
  const T *X;
  T *Y;
  int64_t ldx, ldy;
  T alpha, beta;
  bool xvec, yvec;
};

template <typename T>
inline DenseOps<T> dense_ops(const void *X, int64_t ldx, void *Y, int64_t ldy, double alpha,
                             double beta) {
  constexpr int64_t vec = 16 / (int64_t)sizeof(T);
  DenseOps<T> d;
  d.X = static_cast<const T *>(X);
  d.Y = static_cast<T *>(Y);
  d.ldx = ldx;
  d.ldy = ldy;
  d.alpha = (T)alpha;
  d.beta = (T)beta;
  d.xvec = ((uintptr_t)X % 16 == 0) && (ldx % vec == 0);
  d.yvec = ((uintptr_t)Y % 16 == 0) && (ldy % vec == 0);
  return d;
}

/** f(T()) with T the element type of `dtype` (double or float): the precision dispatch at the
 *  end of every launcher's entry point. */
template <typename F>
inline gcoo_status by_dtype(gcoo_dtype dtype, F &&f) {
  return dtype == GCOO_FLOAT64 ? f(double()) : f(float());
}

/** 16 bytes of T: 4 floats or 2 doubles, loaded and stored with one 128-bit access. */
template <typename T>
struct alignas(16) Pack {
  static constexpr int N = 16 / (int)sizeof(T);
  T e[N];
};

template <typename T>
struct NativeVec;
template <>
struct NativeVec<float> {
  using type = float4;
};
template <>
struct NativeVec<double> {
  using type = double2;
};

/** X's rows allow the 16-byte path of the direct, batched and row-split kernels: aligned base,
 *  leading dimension and N multiples of the pack. */
template <typename T>
inline bool packed_operand(const void *X, int64_t ldx, int64_t N) {
  constexpr int64_t vec = Pack<T>::N;
  return ((uintptr_t)X % 16 == 0) && (ldx % vec == 0) && (N % vec == 0);
}

template <typename T>
__device__ __forceinline__ Pack<T> pack_zero() {
  Pack<T> r;
#pragma unroll
  for (int i = 0; i < Pack<T>::N; i++) r.e[i] = T(0);
  return r;
}

/** Elements j .. j+N-1 of a read-only row xr in one 16-byte load through the read-only path,
 *  untested: the caller knows xr + j is 16-byte aligned and the pack inside the row. */
template <typename T>
__device__ __forceinline__ Pack<T> load_pack_whole(const T *__restrict__ xr, int64_t j) {
  using V = typename NativeVec<T>::type;
  const V v = __ldg(reinterpret_cast<const V *>(xr + j));
  Pack<T> r;
  memcpy(&r, &v, sizeof r); // a register move, without type punning
  return r;
}

/** Elements j .. j+N-1 of a read-only row xr: one 16-byte load through the read-only path when
 *  `vec` (row start and leading dimension 16-byte aligned) and the pack is inside the row;
 *  element by element otherwise, with zeros past ncols. */
template <typename T>
__device__ __forceinline__ Pack<T> load_pack(const T *__restrict__ xr, int64_t j, int64_t ncols,
                                             bool vec) {
  Pack<T> r;
  if (vec && j + Pack<T>::N <= ncols) {
    r = load_pack_whole(xr, j);
  } else {
#pragma unroll
    for (int i = 0; i < Pack<T>::N; i++) r.e[i] = j + i < ncols ? xr[j + i] : T(0);
  }
  return r;
}

/** y = alpha acc + beta y for elements j .. j+N-1 of row yr (those < ncols). beta == 0: y is not
 *  read, so NaN or garbage in Y is overwritten (the BLAS convention). */
template <typename T>
__device__ __forceinline__ void store_pack(T *__restrict__ yr, int64_t j, int64_t ncols, bool vec,
                                           const Pack<T> &acc, T alpha, T beta) {
  using V = typename NativeVec<T>::type;
  if (vec && j + Pack<T>::N <= ncols) {
    Pack<T> out;
    if (beta != T(0)) {
      const V y = *reinterpret_cast<const V *>(yr + j);
      memcpy(&out, &y, sizeof out);
#pragma unroll
      for (int i = 0; i < Pack<T>::N; i++) out.e[i] = alpha * acc.e[i] + beta * out.e[i];
    } else {
#pragma unroll
      for (int i = 0; i < Pack<T>::N; i++) out.e[i] = alpha * acc.e[i];
    }
    V v;
    memcpy(&v, &out, sizeof v);
    *reinterpret_cast<V *>(yr + j) = v;
  } else {
#pragma unroll
    for (int i = 0; i < Pack<T>::N; i++)
      if (j + i < ncols)
        yr[j + i] = beta != T(0) ? alpha * acc.e[i] + beta * yr[j + i] : alpha * acc.e[i];
  }
}

/** Ask for the line holding p to be brought into L1 (no register, no wait). */
__device__ __forceinline__ void prefetch_l1(const void *p) {
#ifdef GCOO_CUDA_EMULATE
  (void)p;
#else
  asm volatile("prefetch.global.L1 [%0];" ::"l"(p));
#endif
}

/** One entry of the tuned layout: A's value and the index of its column in the group's list of
 *  distinct columns. 8 bytes for float, 16 for double: one load each. */
template <typename T>
struct alignas(2 * sizeof(T)) Entry {
  T v;
  int32_t u;
};

/** Exclusive prefix sum of v over the block (blockDim.x <= 1024, sm holds blockDim.x values);
 *  *total receives the block's sum. Every thread of the block must call it. */
__device__ __forceinline__ int64_t block_exclusive_scan(int64_t v, int64_t *sm, int64_t *total) {
  const int t = threadIdx.x, n = blockDim.x;
  sm[t] = v;
  __syncthreads();
  for (int off = 1; off < n; off <<= 1) {
    const int64_t add = t >= off ? sm[t - off] : 0;
    __syncthreads();
    sm[t] += add;
    __syncthreads();
  }
  const int64_t inclusive = sm[t];
  *total = sm[n - 1];
  __syncthreads(); // sm may be reused right after
  return inclusive - v;
}

/** Sum of v over the block (every thread gets it). */
__device__ __forceinline__ int64_t block_sum(int64_t v, int64_t *sm) {
  int64_t total;
  (void)block_exclusive_scan(v, sm, &total);
  return total;
}

/** ceil(a / b) for positive b. */
inline int64_t div_up(int64_t a, int64_t b) { return (a + b - 1) / b; }

/** Grid size for a grid-stride loop over n items with `threads` per block. */
inline unsigned grid_for(int64_t n, int threads) {
  int64_t b = (n + threads - 1) / threads;
  if (b < 1) b = 1;
  if (b > (1 << 20)) b = 1 << 20;
  return (unsigned)b;
}

/** The dense operands of Y = alpha A X + beta Y (A with k columns, N columns in X and Y), as
 *  every GCOO launcher checks them: X may be NULL only when k = 0. */
inline gcoo_status check_dense_operands(int64_t k, const void *X, int64_t ldx, const void *Y,
                                        int64_t ldy, int64_t N) {
  GCOO_CHECK(Y != NULL && (X != NULL || k == 0), GCOO_ERR_NULL, "X or Y is NULL");
  GCOO_CHECK(ldy >= N && (k == 0 || ldx >= N), GCOO_ERR_INVALID_ARG,
             "leading dimensions ldx = %lld, ldy = %lld below N = %lld", (long long)ldx,
             (long long)ldy, (long long)N);
  return GCOO_SUCCESS;
}

/** The set-up every SpDM launcher's entry point shares (faithful, tuned, X-resident, row-split,
 *  tensor-core), after its own layout checks: the launch record cleared, nothing to do for an
 *  empty A (m rows) or N = 0, the dense operands checked (A has k columns), then
 *  launch(T(), stream) with T the precision of `dtype`. */
template <typename F>
inline gcoo_status spdm_enter(gcoo_dtype dtype, int64_t m, int64_t k, const void *X, int64_t ldx,
                              const void *Y, int64_t ldy, int64_t N, void *stream,
                              gcoo_cuda_tuned_launch *chosen, F &&launch) {
  if (chosen) memset(chosen, 0, sizeof *chosen);
  if (m == 0 || N == 0) return GCOO_SUCCESS;
  GCOO_CALL(check_dense_operands(k, X, ldx, Y, ldy, N));
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  return by_dtype(dtype, [&](auto z) { return launch(z, s); });
}

} // namespace

#endif
