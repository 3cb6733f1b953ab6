// SPDX-License-Identifier: MIT
// kernels/convert/convert_dense.cu: dense A -> GCOO on the GPU (the paper's count / scan / fill),
// CSR -> dense, Y = beta Y, and the reuse statistics the dispatch rule reads.
#include "convert_common.cuh"

namespace {

// key = column << rowbits | row (sorting by it gives A's entries column by column).
__global__ void column_keys_kernel(const int32_t *__restrict__ rowidx,
                                   const int32_t *__restrict__ col, int64_t nnz, int rowbits,
                                   uint64_t *__restrict__ keys, int64_t *__restrict__ vals) {
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < nnz;
       e += (int64_t)gridDim.x * blockDim.x) {
    keys[e] = ((uint64_t)col[e] << rowbits) | (uint64_t)rowidx[e];
    vals[e] = e;
  }
}

// Count, for each i < nlog, the entries that start a new (column, row >> i) run: the distinct
// (row / 2^i, column) pairs.
__global__ void count_runs_kernel(const uint64_t *__restrict__ keys, int64_t nnz, int rowbits,
                                  int nlog, unsigned long long *__restrict__ out) {
  __shared__ int64_t sm[kThreads];
  const uint64_t rowmask = (1ull << rowbits) - 1;
  int64_t cnt[16];
#pragma unroll
  for (int i = 0; i < 16; i++) cnt[i] = 0;
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < nnz;
       e += (int64_t)gridDim.x * blockDim.x) {
    const uint64_t k = keys[e];
    if (e == 0) {
#pragma unroll
      for (int i = 0; i < 16; i++) cnt[i]++;
      continue;
    }
    const uint64_t kp = keys[e - 1];
    const bool newcol = (k >> rowbits) != (kp >> rowbits);
    const uint64_t r = k & rowmask, rp = kp & rowmask;
#pragma unroll
    for (int i = 0; i < 16; i++) cnt[i] += (newcol || (r >> i) != (rp >> i)) ? 1 : 0;
  }
  for (int i = 0; i < nlog; i++) {
    int64_t c = 0;
#pragma unroll
    for (int q = 0; q < 16; q++)
      if (q == i) c = cnt[q];
    const int64_t total = block_sum(c, sm);
    if (threadIdx.x == 0) atomicAdd(&out[i], (unsigned long long)total);
  }
}

// Dense -> GCOO, pass 1: nonzeros of each group (block per group, threads over columns).
template <typename T>
__global__ void dense_count_kernel(const T *__restrict__ A, int64_t lda, int64_t m, int64_t k,
                                   int32_t p, int64_t *__restrict__ gnnz) {
  __shared__ int64_t sm[kThreads];
  const int64_t g = blockIdx.x;
  const int64_t row0 = g * p;
  const int64_t pg = m - row0 < p ? m - row0 : p;
  int64_t c = 0;
  for (int64_t j = threadIdx.x; j < k; j += blockDim.x)
    for (int64_t r = 0; r < pg; r++) c += A[(row0 + r) * lda + j] != T(0);
  const int64_t total = block_sum(c, sm);
  if (threadIdx.x == 0) gnnz[g] = total;
}

// Dense -> GCOO, pass 2: write each group's entries in (column of A, row of A) order: columns
// in blocks of blockDim; a block scan of the per-column counts places each column's entries.
template <typename T>
__global__ void dense_fill_kernel(const T *__restrict__ A, int64_t lda, int64_t m, int64_t k,
                                  int32_t p, const int64_t *__restrict__ gidx,
                                  int32_t *__restrict__ srows, int32_t *__restrict__ scols,
                                  T *__restrict__ svals) {
  __shared__ int64_t sm[kThreads];
  const int64_t g = blockIdx.x;
  const int64_t row0 = g * p;
  const int64_t pg = m - row0 < p ? m - row0 : p;
  int64_t out = gidx[g];
  for (int64_t jb = 0; jb < k; jb += blockDim.x) {
    const int64_t j = jb + threadIdx.x;
    int64_t c = 0;
    if (j < k)
      for (int64_t r = 0; r < pg; r++) c += A[(row0 + r) * lda + j] != T(0);
    int64_t total;
    int64_t o = out + block_exclusive_scan(c, sm, &total);
    if (j < k)
      for (int64_t r = 0; r < pg; r++) {
        const T v = A[(row0 + r) * lda + j];
        if (v != T(0)) {
          srows[o] = (int32_t)j;
          scols[o] = (int32_t)(row0 + r);
          svals[o] = v;
          o++;
        }
      }
    out += total;
  }
}

template <typename T>
__global__ void scatter_dense_kernel(const int64_t *__restrict__ ptr,
                                     const int32_t *__restrict__ col, const T *__restrict__ val,
                                     int64_t m, int64_t nnz, T *__restrict__ D, int64_t ld) {
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < nnz;
       e += (int64_t)gridDim.x * blockDim.x) {
    D[gcoo__segment_of(ptr, m, e) * ld + col[e]] = val[e];
  }
}

template <typename T>
__global__ void scale_kernel(int64_t m, int64_t n, T beta, T *__restrict__ Y, int64_t ldy) {
  const int64_t total = m * n;
  for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < total;
       t += (int64_t)gridDim.x * blockDim.x) {
    const int64_t i = t / n, j = t % n;
    T *y = Y + i * ldy + j;
    *y = beta == T(0) ? T(0) : beta * *y;
  }
}

} // namespace

extern "C" gcoo_status gcoo_cuda_reuse_stats(const gcoo_cuda_csr *A, int nlog, int64_t *distinct,
                                             void *stream) {
  GCOO_CALL(check_csr(A, 1));
  GCOO_CHECK(distinct != NULL, GCOO_ERR_NULL, "output is NULL");
  GCOO_CHECK(nlog >= 1 && nlog <= 16, GCOO_ERR_INVALID_ARG, "nlog = %d outside 1..16", nlog);
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const int64_t nnz = A->nnz;
  for (int i = 0; i < nlog; i++) distinct[i] = 0;
  if (nnz == 0) return GCOO_SUCCESS;
  gcoo_status st = GCOO_SUCCESS;
  int32_t *rowidx = NULL;
  uint64_t *kin = NULL, *kout = NULL;
  int64_t *vin = NULL, *vout = NULL;
  unsigned long long *cnt = NULL, hc[16] = {0};
  const int rowbits = bits_for(A->nrows > 0 ? A->nrows - 1 : 0);
  int end_bit = rowbits + bits_for(A->ncols > 0 ? A->ncols - 1 : 0);
  if (end_bit < 1) end_bit = 1;
  GCOO_GOTO(gcoo__cuda_alloc_async(&rowidx, (size_t)nnz * 4, "row indices", s));
  GCOO_GOTO(gcoo__cuda_alloc_async(&kin, (size_t)nnz * 8, "sort keys", s));
  GCOO_GOTO(gcoo__cuda_alloc_async(&kout, (size_t)nnz * 8, "sorted keys", s));
  GCOO_GOTO(gcoo__cuda_alloc_async(&vin, (size_t)nnz * 8, "sort values", s));
  GCOO_GOTO(gcoo__cuda_alloc_async(&vout, (size_t)nnz * 8, "sorted values", s));
  GCOO_GOTO(gcoo__cuda_alloc_async(&cnt, sizeof hc, "run counters", s));
  GCOO_CALL_CUDA_GOTO(cudaMemsetAsync(cnt, 0, sizeof hc, s));
  GCOO_LAUNCH(expand_rows_kernel, dim3(grid_for(nnz, kThreads)), dim3(kThreads), 0, s,
              (const int64_t *)A->ptr, A->nrows, nnz, rowidx);
  GCOO_CHECK_LAUNCH_GOTO("expand_rows_kernel");
  GCOO_LAUNCH(column_keys_kernel, dim3(grid_for(nnz, kThreads)), dim3(kThreads), 0, s,
              (const int32_t *)rowidx, (const int32_t *)A->ind, nnz, rowbits, kin, vin);
  GCOO_CHECK_LAUNCH_GOTO("column_keys_kernel");
  GCOO_GOTO(sort_pairs(kin, kout, vin, vout, nnz, end_bit, s));
  GCOO_LAUNCH(count_runs_kernel,
              dim3(grid_for(nnz, kThreads) < 1024 ? grid_for(nnz, kThreads) : 1024), dim3(kThreads),
              0, s, (const uint64_t *)kout, nnz, rowbits, nlog, cnt);
  GCOO_CHECK_LAUNCH_GOTO("count_runs_kernel");
  GCOO_CALL_CUDA_GOTO(cudaMemcpyAsync(hc, cnt, sizeof hc, cudaMemcpyDeviceToHost, s));
  GCOO_CALL_CUDA_GOTO(cudaStreamSynchronize(s));
  for (int i = 0; i < nlog; i++) distinct[i] = (int64_t)hc[i];
done:
  free_async(rowidx, s);
  free_async(kin, s);
  free_async(kout, s);
  free_async(vin, s);
  free_async(vout, s);
  free_async(cnt, s);
  return st;
}

extern "C" gcoo_status gcoo_cuda_dense_to_gcoo(gcoo_dtype dtype, int64_t m, int64_t k,
                                               const void *A, int64_t lda, int32_t p,
                                               gcoo_cuda_gcoo *S, void *stream) {
  GCOO_CHECK(S != NULL, GCOO_ERR_NULL, "output GCOO is NULL");
  memset(S, 0, sizeof *S);
  GCOO_CHECK(p >= 1, GCOO_ERR_INVALID_ARG, "GCOO group width p = %d must be >= 1", p);
  GCOO_CHECK(m >= 0 && k >= 0 && m <= INT32_MAX && k <= INT32_MAX, GCOO_ERR_TOO_LARGE,
             "dense %lld x %lld does not fit 32-bit indices", (long long)m, (long long)k);
  GCOO_CHECK(lda >= k && lda >= 1, GCOO_ERR_INVALID_ARG, "lda = %lld < k = %lld", (long long)lda,
             (long long)k);
  GCOO_CHECK(A != NULL || m == 0 || k == 0, GCOO_ERR_NULL, "dense matrix is NULL");
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  gcoo_status st = GCOO_SUCCESS;
  const int64_t ng = (m + p - 1) / p;
  int64_t *gnnz = NULL, *gidx = NULL, nnz = 0;
  // pass 1: count per group; CUB scan into offsets (gidx[0] = 0); nnz back to the host
  GCOO_GOTO(gcoo__cuda_alloc_async(&gnnz, (size_t)(ng > 0 ? ng : 1) * 8, "group counts", s));
  GCOO_GOTO(gcoo__cuda_alloc_async(&gidx, (size_t)(ng + 1) * 8, "group offsets", s));
  GCOO_CALL_CUDA_GOTO(cudaMemsetAsync(gidx, 0, 8, s));
  if (ng > 0) {
    if (dtype == GCOO_FLOAT64)
      GCOO_LAUNCH(dense_count_kernel<double>, dim3((unsigned)ng), dim3(kThreads), 0, s,
                  (const double *)A, lda, m, k, p, gnnz);
    else
      GCOO_LAUNCH(dense_count_kernel<float>, dim3((unsigned)ng), dim3(kThreads), 0, s,
                  (const float *)A, lda, m, k, p, gnnz);
    GCOO_CHECK_LAUNCH_GOTO("dense_count_kernel");
    GCOO_GOTO(inclusive_sum(gnnz, gidx + 1, ng, s));
  }
  GCOO_CALL_CUDA_GOTO(cudaMemcpyAsync(&nnz, gidx + ng, 8, cudaMemcpyDeviceToHost, s));
  GCOO_CALL_CUDA_GOTO(cudaStreamSynchronize(s));
  // pass 2: allocate by nnz, fill
  GCOO_GOTO(gcoo_alloc(S, dtype, k, m, nnz, p));
  GCOO_CALL_CUDA_GOTO(
      cudaMemcpyAsync(S->gidx, gidx, (size_t)(ng + 1) * 8, cudaMemcpyDeviceToDevice, s));
  if (ng > 0)
    GCOO_CALL_CUDA_GOTO(
        cudaMemcpyAsync(S->gnnz, gnnz, (size_t)ng * 8, cudaMemcpyDeviceToDevice, s));
  if (ng > 0 && nnz > 0) {
    if (dtype == GCOO_FLOAT64)
      GCOO_LAUNCH(dense_fill_kernel<double>, dim3((unsigned)ng), dim3(kThreads), 0, s,
                  (const double *)A, lda, m, k, p, (const int64_t *)S->gidx, S->rows, S->cols,
                  (double *)S->values);
    else
      GCOO_LAUNCH(dense_fill_kernel<float>, dim3((unsigned)ng), dim3(kThreads), 0, s,
                  (const float *)A, lda, m, k, p, (const int64_t *)S->gidx, S->rows, S->cols,
                  (float *)S->values);
    GCOO_CHECK_LAUNCH_GOTO("dense_fill_kernel");
  }
done:
  free_async(gnnz, s);
  free_async(gidx, s);
  if (st < 0) gcoo_cuda_gcoo_free(S);
  return st;
}

extern "C" gcoo_status gcoo_cuda_csr_to_dense(const gcoo_cuda_csr *A, void *D, int64_t ld,
                                              void *stream) {
  GCOO_CALL(check_csr(A, 1));
  GCOO_CHECK(ld >= A->ncols && ld >= 1, GCOO_ERR_INVALID_ARG, "ld = %lld < %lld columns",
             (long long)ld, (long long)A->ncols);
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const size_t es = esize(A->dtype);
  if (A->nrows == 0 || A->ncols == 0) return GCOO_SUCCESS;
  GCOO_CALL_CUDA(
      cudaMemset2DAsync(D, (size_t)ld * es, 0, (size_t)A->ncols * es, (size_t)A->nrows, s));
  if (A->nnz == 0) return GCOO_SUCCESS;
  if (A->dtype == GCOO_FLOAT64)
    GCOO_LAUNCH(scatter_dense_kernel<double>, dim3(grid_for(A->nnz, kThreads)), dim3(kThreads), 0,
                s, (const int64_t *)A->ptr, (const int32_t *)A->ind, (const double *)A->values,
                A->nrows, A->nnz, (double *)D, ld);
  else
    GCOO_LAUNCH(scatter_dense_kernel<float>, dim3(grid_for(A->nnz, kThreads)), dim3(kThreads), 0, s,
                (const int64_t *)A->ptr, (const int32_t *)A->ind, (const float *)A->values,
                A->nrows, A->nnz, (float *)D, ld);
  GCOO_CHECK_LAUNCH("scatter_dense_kernel");
  return GCOO_SUCCESS;
}

extern "C" gcoo_status gcoo_cuda_scale(gcoo_dtype dtype, int64_t m, int64_t n, double beta, void *Y,
                                       int64_t ldy, void *stream) {
  if (m == 0 || n == 0) return GCOO_SUCCESS;
  GCOO_CHECK(Y != NULL, GCOO_ERR_NULL, "Y is NULL");
  GCOO_CHECK(ldy >= n, GCOO_ERR_INVALID_ARG, "ldy = %lld < %lld", (long long)ldy, (long long)n);
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (dtype == GCOO_FLOAT64)
    GCOO_LAUNCH(scale_kernel<double>, dim3(grid_for(m * n, kThreads)), dim3(kThreads), 0, s, m, n,
                (double)beta, (double *)Y, ldy);
  else
    GCOO_LAUNCH(scale_kernel<float>, dim3(grid_for(m * n, kThreads)), dim3(kThreads), 0, s, m, n,
                (float)beta, (float *)Y, ldy);
  GCOO_CHECK_LAUNCH("scale_kernel");
  return GCOO_SUCCESS;
}