// SPDX-License-Identifier: MIT
// kernels/convert/convert_common.cuh: what the GPU conversions share: the device-wide primitives
// (CUB's radix sort and scan; std:: algorithms in the CPU-emulated build, so that tests/gpu/t309
// runs the same kernels), the row of every CSR entry, and the GCOO arrays' allocation and the
// layouts' release. Internal to each file that includes it (an anonymous namespace: the emulated
// build links these files beside the real library).
#ifndef GCOO_KERNELS_CONVERT_COMMON_CUH
#define GCOO_KERNELS_CONVERT_COMMON_CUH

#include <stdint.h>
#include <string.h>

#include "common/cuda_check.h"
#include "common/gcoo_kernels.h"
#include "spdm/spdm_common.cuh"

#ifdef GCOO_CUDA_EMULATE
#include <algorithm>
#include <numeric>
#include <vector>
#else
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#endif

namespace {

#ifdef GCOO_CUDA_EMULATE
constexpr int kThreads = 32; // the logic holds for any power of two; fewer host threads
#else
constexpr int kThreads = 256;
#endif

// Stream-ordered free of a temporary (NULL is fine); a failure here is not the caller's error.
inline void free_async(void *p, cudaStream_t s) {
  if (p && cudaFreeAsync(p, s) != cudaSuccess) (void)cudaGetLastError();
}

// ---- device-wide primitives (CUB; std:: in the emulated build) -------------------------------

// Stable sort of (key, value) pairs by the key bits [0, end_bit).
inline gcoo_status sort_pairs(const uint64_t *kin, uint64_t *kout, const int64_t *vin,
                              int64_t *vout, int64_t n, int end_bit, cudaStream_t s) {
  if (n == 0) return GCOO_SUCCESS;
#ifdef GCOO_CUDA_EMULATE
  (void)s;
  std::vector<int64_t> idx((size_t)n);
  std::iota(idx.begin(), idx.end(), 0);
  const uint64_t mask = end_bit >= 64 ? ~0ull : ((1ull << end_bit) - 1);
  std::stable_sort(idx.begin(), idx.end(),
                   [&](int64_t a, int64_t b) { return (kin[a] & mask) < (kin[b] & mask); });
  for (int64_t i = 0; i < n; i++) {
    kout[i] = kin[idx[(size_t)i]];
    vout[i] = vin[idx[(size_t)i]];
  }
  return GCOO_SUCCESS;
#else
  gcoo_status st = GCOO_SUCCESS;
  void *tmp = NULL;
  size_t bytes = 0;
  GCOO_CALL_CUDA(
      cub::DeviceRadixSort::SortPairs(NULL, bytes, kin, kout, vin, vout, n, 0, end_bit, s));
  GCOO_CALL(gcoo__cuda_alloc_async(&tmp, bytes, "radix sort workspace", s));
  GCOO_CALL_CUDA_GOTO(
      cub::DeviceRadixSort::SortPairs(tmp, bytes, kin, kout, vin, vout, n, 0, end_bit, s));
done:
  free_async(tmp, s);
  return st;
#endif
}

// out[i] = in[0] + ... + in[i].
inline gcoo_status inclusive_sum(const int64_t *in, int64_t *out, int64_t n, cudaStream_t s) {
  if (n == 0) return GCOO_SUCCESS;
#ifdef GCOO_CUDA_EMULATE
  (void)s;
  std::partial_sum(in, in + n, out);
  return GCOO_SUCCESS;
#else
  gcoo_status st = GCOO_SUCCESS;
  void *tmp = NULL;
  size_t bytes = 0;
  GCOO_CALL_CUDA(cub::DeviceScan::InclusiveSum(NULL, bytes, in, out, n, s));
  GCOO_CALL(gcoo__cuda_alloc_async(&tmp, bytes, "scan workspace", s));
  GCOO_CALL_CUDA_GOTO(cub::DeviceScan::InclusiveSum(tmp, bytes, in, out, n, s));
done:
  free_async(tmp, s);
  return st;
#endif
}

// Bits needed to hold values 0 .. x (0 for x = 0).
inline int bits_for(int64_t x) {
  int b = 0;
  while (b < 63 && (x >> b) != 0) b++;
  return b;
}

// ---- kernels -----------------------------------------------------------------------------

// Row of every entry: the i with ptr[i] <= e < ptr[i + 1] (binary search; empty rows skipped).
__global__ void expand_rows_kernel(const int64_t *__restrict__ ptr, int64_t m, int64_t nnz,
                                   int32_t *__restrict__ rowidx) {
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < nnz;
       e += (int64_t)gridDim.x * blockDim.x) {
    rowidx[e] = (int32_t)gcoo__segment_of(ptr, m, e);
  }
}

inline size_t esize(gcoo_dtype t) { return t == GCOO_FLOAT64 ? 8 : 4; }

// Allocate the GCOO arrays of S (nnz entries, ng groups).
inline gcoo_status gcoo_alloc(gcoo_cuda_gcoo *S, gcoo_dtype dtype, int64_t nrows, int64_t ncols,
                              int64_t nnz, int32_t p) {
  memset(S, 0, sizeof *S);
  S->dtype = dtype;
  S->nrows = nrows;
  S->ncols = ncols;
  S->nnz = nnz;
  S->p = p;
  S->ngroups = (ncols + p - 1) / p;
  gcoo_status st = GCOO_SUCCESS;
  GCOO_GOTO(gcoo__cuda_alloc(&S->gidx, (size_t)(S->ngroups + 1) * 8, "GCOO gIdxes"));
  GCOO_GOTO(gcoo__cuda_alloc(&S->gnnz, (size_t)(S->ngroups > 0 ? S->ngroups : 1) * 8,
                             "GCOO nnzPerGroup"));
  GCOO_GOTO(gcoo__cuda_alloc(&S->rows, (size_t)nnz * 4, "GCOO rows"));
  GCOO_GOTO(gcoo__cuda_alloc(&S->cols, (size_t)nnz * 4, "GCOO cols"));
  GCOO_GOTO(gcoo__cuda_alloc(&S->values, (size_t)nnz * esize(dtype), "GCOO values"));
done:
  if (st < 0) gcoo_cuda_gcoo_free(S);
  return st;
}

inline gcoo_status check_csr(const gcoo_cuda_csr *A, int32_t p) {
  GCOO_CHECK(A != NULL, GCOO_ERR_NULL, "CSR is NULL");
  GCOO_CHECK(p >= 1, GCOO_ERR_INVALID_ARG, "GCOO group width p = %d must be >= 1", p);
  GCOO_CHECK(A->nrows >= 0 && A->ncols >= 0 && A->nnz >= 0, GCOO_ERR_INVALID_ARG, "negative size");
  GCOO_CHECK(A->nrows <= INT32_MAX && A->ncols <= INT32_MAX, GCOO_ERR_TOO_LARGE,
             "%lld x %lld does not fit 32-bit indices", (long long)A->nrows, (long long)A->ncols);
  return GCOO_SUCCESS;
}

// Free the X-resident layout (accepts a zeroed one) and zero it.
inline void free_resident(gcoo_cuda_xres *X) {
  void *const arrays[] = {X->off, X->perm, X->values, X->cols, X->splits};
  gcoo__cuda_free_each(arrays, 5);
  memset(X, 0, sizeof *X);
}

inline void free_split(gcoo_cuda_split *P) {
  void *const arrays[] = {P->item_begin, P->item_row, P->item_slot, P->long_row,
                          P->long_ptr,   P->work,     P->item_order};
  gcoo__cuda_free_each(arrays, 7);
  memset(P, 0, sizeof *P);
}

} // namespace

#endif
