// SPDX-License-Identifier: MIT
// kernels/common/column_sums.cuh: column sums of an n x k elementwise expression, reproducible: per-block
// partial sums over a contiguous range of rows (threads own columns; rows split among thread rows
// and summed in order), then the blocks' partials summed in a fixed order. One mechanism for the
// column dot products of gcoo/blas.h (kernels/backend/blas_cuda.cu), block CG's Jacobi pass with the
// residual norms (kernels/solver/bcg_kernels.cuh) and the totals of its fused passes
// (kernels/solver/bcg_fused.cuh). Barriers only: runs on the CPU emulator (tests/solver/t612, t613).
#ifndef GCOO_COLUMN_SUMS_CUH
#define GCOO_COLUMN_SUMS_CUH

#include <stdint.h>

#include "cuda_compat.h"

namespace gcoo_colsum {

// partial[block * k + j] = sum of f(i, j) over this block's rows i (f may also write: the Jacobi
// pass stores W there). Dynamic shared memory: blockDim.x doubles.
template <typename F>
__global__ void column_partials(int64_t n, int64_t k, F f, double *partial) {
  GCOO_DYNAMIC_SMEM(double, buf);
  const int64_t rows_per_block = (n + gridDim.x - 1) / gridDim.x;
  const int64_t r0 = blockIdx.x * rows_per_block;
  const int64_t r1 = r0 + rows_per_block < n ? r0 + rows_per_block : n;
  const int cw = (int)(k < (int64_t)blockDim.x ? k : (int64_t)blockDim.x); // columns per pass
  const int nty = blockDim.x / cw;                                         // thread rows
  const int tx = threadIdx.x % cw, ty = threadIdx.x / cw;
  for (int64_t j0 = 0; j0 < k; j0 += cw) {
    const int64_t j = j0 + tx;
    double a = 0.0;
    if (ty < nty && j < k)
      for (int64_t i = r0 + ty; i < r1; i += nty) a += f(i, j);
    buf[threadIdx.x] = a;
    __syncthreads();
    if (ty == 0 && j < k) {
      double s = 0.0;
      for (int t = 0; t < nty; t++) s += buf[t * cw + tx];
      partial[blockIdx.x * k + j] = s;
    }
    __syncthreads();
  }
}

// out[c * ostride] = sum over the nblocks rows of partial (nblocks x count) of column c, in a
// fixed order. Blocks of 256 threads: 32 columns x 8 strided sums, then the 8 in order.
template <typename T>
__global__ void column_totals(const double *partial, int nblocks, int64_t count, T *out,
                              int64_t ostride) {
  __shared__ double buf[256];
  const int o = (int)threadIdx.x % 32, q = (int)threadIdx.x / 32;
  const int64_t c = (int64_t)blockIdx.x * 32 + o;
  double s = 0.0;
  if (c < count)
    for (int b = q; b < nblocks; b += 8) s += partial[(int64_t)b * count + c];
  buf[threadIdx.x] = s;
  __syncthreads();
  if (q == 0 && c < count) {
    double t = 0.0;
    for (int u = 0; u < 8; u++) t += buf[u * 32 + o];
    out[c * ostride] = (T)t;
  }
}

// Blocks of column_totals for count columns.
inline unsigned totals_grid(int64_t count) { return (unsigned)((count + 31) / 32); }

} // namespace gcoo_colsum

#endif
