// SPDX-License-Identifier: MIT
// kernels/spdm/spdm_faithful.cu: GCOOSpDM as published (Shi et al., ICPADS 2020;
// docs/kernels.md), kept as the baseline the tuned kernel is
// measured against.
//
// In the SPARSE_DENSE frame: block (g, t) computes rows g*p .. g*p+p-1 of Y (the p columns of
// S's group g) for the b = 128 columns t*128 .. of Y, one column per thread. The group's COO
// (row of S = column of A, column of S = row of A, value) is staged through shared memory in
// chunks of b entries; every thread then reads every staged entry (a broadcast), loads
// X(r, j) only when the entry's row r differs from the previous one (entries are ordered by
// row, so the value is reused while the row repeats), and adds v * X(r, j) to the accumulator of
// the entry's column. The published code hard-codes p = 4 accumulators chosen by an if-chain; the
// template below keeps PMAX accumulators and selects with a fully unrolled compare, the same
// instruction pattern, so that p <= 32 also works.
#include <stdint.h>

#include "common/cuda_check.h"
#include "common/gcoo_kernels.h"
#include "spdm_common.cuh"

namespace {

constexpr int kB = 128; // threads per block = entries per staged chunk = columns per block

template <typename T>
struct FaithfulArgs {
  const int64_t *gidx;
  const int32_t *rows, *cols;
  const T *vals;
  DenseOps<T> d; // X, Y, their leading dimensions, alpha, beta
  int64_t m, N, tile0;
  int32_t p;
};

template <typename T, int PMAX>
__global__ void __launch_bounds__(kB) faithful_kernel(const FaithfulArgs<T> a) {
  GCOO_DYNAMIC_SMEM(unsigned char, raw);
  T *sv = reinterpret_cast<T *>(raw);
  int32_t *sr = reinterpret_cast<int32_t *>(raw + kB * sizeof(T));
  int32_t *sc = sr + kB;
  const int tid = threadIdx.x;
  const int64_t g = blockIdx.x;
  const int64_t j = (a.tile0 + blockIdx.y) * (int64_t)kB + tid;
  const bool active = j < a.N;
  const int64_t e0 = a.gidx[g], e1 = a.gidx[g + 1];
  const int64_t row0 = g * a.p; // first row of A (column of S) of the group
  T acc[PMAX];
#pragma unroll
  for (int q = 0; q < PMAX; q++) acc[q] = T(0);
  int32_t prev = -1;
  T x = T(0);
  for (int64_t c = e0; c < e1; c += kB) {
    const int n = (int)(e1 - c < kB ? e1 - c : kB);
    __syncthreads(); // the previous chunk has been read by everyone
    if (tid < n) {
      sv[tid] = a.vals[c + tid];
      sr[tid] = a.rows[c + tid];
      sc[tid] = (int32_t)(a.cols[c + tid] - row0);
    }
    __syncthreads();
    if (active) {
      for (int i = 0; i < n; i++) {
        const int32_t r = sr[i];
        if (r != prev) {
          x = a.d.X[(int64_t)r * a.d.ldx + j];
          prev = r;
        }
        const T v = sv[i];
        const int32_t lc = sc[i];
#pragma unroll
        for (int q = 0; q < PMAX; q++)
          if (lc == q) acc[q] += v * x;
      }
    }
  }
  if (active) {
    const int64_t pg = a.m - row0 < a.p ? a.m - row0 : a.p;
#pragma unroll
    for (int q = 0; q < PMAX; q++) {
      if (q < pg) {
        T *y = a.d.Y + (row0 + q) * a.d.ldy + j;
        *y = a.d.beta != T(0) ? a.d.alpha * acc[q] + a.d.beta * *y : a.d.alpha * acc[q];
      }
    }
  }
}

template <typename T>
gcoo_status launch_faithful(const gcoo_cuda_gcoo *S, double alpha, const void *X, int64_t ldx,
                            double beta, void *Y, int64_t ldy, int64_t N, cudaStream_t stream) {
  void (*k)(const FaithfulArgs<T>) = nullptr;
  if (S->p <= 4)
    k = faithful_kernel<T, 4>;
  else if (S->p <= 8)
    k = faithful_kernel<T, 8>;
  else if (S->p <= 16)
    k = faithful_kernel<T, 16>;
  else
    k = faithful_kernel<T, 32>;
  FaithfulArgs<T> a;
  a.gidx = S->gidx;
  a.rows = S->rows;
  a.cols = S->cols;
  a.vals = static_cast<const T *>(S->values);
  a.d = dense_ops<T>(X, ldx, Y, ldy, alpha, beta);
  a.m = S->ncols;
  a.N = N;
  a.p = S->p;
  const size_t smem = kB * (sizeof(T) + 2 * sizeof(int32_t));
  const int64_t tiles = (N + kB - 1) / kB;
  for (int64_t t0 = 0; t0 < tiles; t0 += 65535) {
    a.tile0 = t0;
    const unsigned ty = (unsigned)(tiles - t0 < 65535 ? tiles - t0 : 65535);
    GCOO_LAUNCH(k, dim3((unsigned)S->ngroups, ty), dim3(kB), smem, stream, a);
    GCOO_CHECK_LAUNCH("the faithful GCOOSpDM kernel");
  }
  return GCOO_SUCCESS;
}

} // namespace

extern "C" gcoo_status gcoo_cuda_spdm_faithful(const gcoo_cuda_gcoo *S, double alpha, const void *X,
                                               int64_t ldx, double beta, void *Y, int64_t ldy,
                                               int64_t N, void *stream) {
  GCOO_CHECK(S != NULL, GCOO_ERR_NULL, "GCOO is NULL");
  GCOO_CHECK(S->p >= 1 && S->p <= 32, GCOO_ERR_UNSUPPORTED,
             "the faithful GCOOSpDM kernel keeps one register accumulator per column of a group: "
             "it supports p <= 32, not p = %d (use GCOO_ALG_GCOO for wider groups)",
             S->p);
  GCOO_CHECK(N >= 0 && N <= INT32_MAX, GCOO_ERR_TOO_LARGE, "N = %lld columns", (long long)N);
  // S = A^T: A has S->ncols rows and S->nrows columns
  return spdm_enter(S->dtype, S->ncols, S->nrows, X, ldx, Y, ldy, N, stream, nullptr,
                    [&](auto z, auto s) {
                      return launch_faithful<decltype(z)>(S, alpha, X, ldx, beta, Y, ldy, N, s);
                    });
}
