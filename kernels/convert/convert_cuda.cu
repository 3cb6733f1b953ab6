// SPDX-License-Identifier: MIT
// kernels/convert/convert_cuda.cu: conversions on the GPU: CSR of A -> GCOO of S = A^T (CUB radix sort),
// dense A -> GCOO (the paper's count / scan / fill), the tuned kernel's layout derived from the
// GCOO, reuse statistics for dispatch, CSR -> dense, and Y = beta Y.
//
// CSR -> GCOO: entry e of row i, column j of A is entry (j, i) of S, in group i / p. Sorting the
// entries by the key (i / p, j) with a STABLE radix sort keeps rows ascending among equal keys
// (CSR order is row-major), which is GCOO's (row of S, column of S) order inside a group; the
// group offsets are A's row pointer sampled every p rows. The sorted keys also mark each group's
// distinct columns (a key differs from its predecessor), which the tuned layout needs.
// No host loops; the CUB calls are wrapped below so that the CPU-emulated build of this file
// (tests/gpu/t309) runs the same kernels with std:: algorithms in their place.
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
void free_async(void *p, cudaStream_t s) {
  if (p && cudaFreeAsync(p, s) != cudaSuccess) (void)cudaGetLastError();
}

// ---- device-wide primitives (CUB; std:: in the emulated build) -------------------------------

// Stable sort of (key, value) pairs by the key bits [0, end_bit).
gcoo_status sort_pairs(const uint64_t *kin, uint64_t *kout, const int64_t *vin, int64_t *vout,
                       int64_t n, int end_bit, cudaStream_t s) {
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
gcoo_status inclusive_sum(const int64_t *in, int64_t *out, int64_t n, cudaStream_t s) {
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
int bits_for(int64_t x) {
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

// key = (row / p) << colbits | column; value = position in CSR order.
__global__ void group_keys_kernel(const int32_t *__restrict__ rowidx,
                                  const int32_t *__restrict__ col, int64_t nnz, int32_t p,
                                  int colbits, uint64_t *__restrict__ keys,
                                  int64_t *__restrict__ vals) {
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < nnz;
       e += (int64_t)gridDim.x * blockDim.x) {
    keys[e] = ((uint64_t)(rowidx[e] / p) << colbits) | (uint64_t)col[e];
    vals[e] = e;
  }
}

// GCOO arrays in sorted order: row of S = column of A (from the key), column of S = row of A.
template <typename T>
__global__ void gather_gcoo_kernel(const uint64_t *__restrict__ keys,
                                   const int64_t *__restrict__ perm, int64_t nnz, uint64_t colmask,
                                   const int32_t *__restrict__ rowidx, const T *__restrict__ vin,
                                   int32_t *__restrict__ srows, int32_t *__restrict__ scols,
                                   T *__restrict__ svals) {
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < nnz;
       e += (int64_t)gridDim.x * blockDim.x) {
    const int64_t src = perm[e];
    srows[e] = (int32_t)(keys[e] & colmask);
    scols[e] = rowidx[src];
    svals[e] = vin[src];
  }
}

// gidx[g] = ptr[min(g p, m)] for g = 0 .. ng; gnnz[g] = gidx[g + 1] - gidx[g].
__global__ void group_offsets_kernel(const int64_t *__restrict__ ptr, int64_t m, int32_t p,
                                     int64_t ng, int64_t *__restrict__ gidx,
                                     int64_t *__restrict__ gnnz) {
  for (int64_t g = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; g <= ng;
       g += (int64_t)gridDim.x * blockDim.x) {
    const int64_t r0 = g * p < m ? g * p : m;
    gidx[g] = ptr[r0];
    if (g < ng) {
      const int64_t r1 = (g + 1) * p < m ? (g + 1) * p : m;
      gnnz[g] = ptr[r1] - ptr[r0];
    }
  }
}

// 1 where a sorted key starts a new run (a new (group, column) pair), else 0.
__global__ void head_flags_kernel(const uint64_t *__restrict__ keys, int64_t nnz,
                                  int64_t *__restrict__ flags) {
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < nnz;
       e += (int64_t)gridDim.x * blockDim.x)
    flags[e] = (e == 0 || keys[e] != keys[e - 1]) ? 1 : 0;
}

// uptr[g] = number of distinct (group, column) pairs before group g = H[gidx[g] - 1].
__global__ void group_lists_kernel(const int64_t *__restrict__ gidx, const int64_t *__restrict__ H,
                                   int64_t ng, int64_t *__restrict__ uptr) {
  for (int64_t g = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; g <= ng;
       g += (int64_t)gridDim.x * blockDim.x)
    uptr[g] = gidx[g] == 0 ? 0 : H[gidx[g] - 1];
}

// The tuned layout: ucols (each group's distinct columns, ascending) and, in CSR order, each
// entry's value with the index of its column in its group's list.
template <typename T>
__global__ void fill_layout_kernel(const uint64_t *__restrict__ keys,
                                   const int64_t *__restrict__ perm, const int64_t *__restrict__ H,
                                   const int64_t *__restrict__ uptr, int64_t nnz, int colbits,
                                   const T *__restrict__ vin, const int32_t *__restrict__ rowidx,
                                   int32_t *__restrict__ ucols, Entry<T> *__restrict__ ent) {
  const uint64_t colmask = (1ull << colbits) - 1;
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < nnz;
       e += (int64_t)gridDim.x * blockDim.x) {
    const uint64_t key = keys[e];
    const int64_t g = (int64_t)(key >> colbits);
    const int64_t d = H[e] - 1; // global index of this entry's (group, column) pair
    if (e == 0 || key != keys[e - 1]) ucols[d] = (int32_t)(key & colmask);
    const int64_t src = perm[e];
    Entry<T> en;
    en.v = vin[src];
    en.u = (int32_t)(d - uptr[g]);
    ent[src + rowidx[src]] = en; // row i's entries start at ptr[i] + i (one sentinel per row)
  }
}

// The sentinel closing row i of the tuned layout: local index INT32_MAX stops every chunk's walk.
template <typename T>
__global__ void row_sentinels_kernel(const int64_t *__restrict__ ptr, int64_t m,
                                     Entry<T> *__restrict__ ent) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < m;
       i += (int64_t)gridDim.x * blockDim.x) {
    Entry<T> en;
    en.v = T(0);
    en.u = INT32_MAX;
    ent[ptr[i + 1] + i] = en;
  }
}

// Longest column list and most entries of any group (for chunk sizes and index-width checks).
__global__ void group_maxima_kernel(const int64_t *__restrict__ uptr,
                                    const int64_t *__restrict__ gidx, int64_t ng,
                                    unsigned long long *__restrict__ out) {
  __shared__ int64_t sm[kThreads];
  int64_t md = 0, mn = 0;
  for (int64_t g = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; g < ng;
       g += (int64_t)gridDim.x * blockDim.x) {
    const int64_t d = uptr[g + 1] - uptr[g], n = gidx[g + 1] - gidx[g];
    md = d > md ? d : md;
    mn = n > mn ? n : mn;
  }
  // block maxima through shared memory, then one atomic per block
  for (int which = 0; which < 2; which++) {
    sm[threadIdx.x] = which == 0 ? md : mn;
    __syncthreads();
    for (int off = blockDim.x / 2; off > 0; off >>= 1) {
      if ((int)threadIdx.x < off && sm[threadIdx.x + off] > sm[threadIdx.x])
        sm[threadIdx.x] = sm[threadIdx.x + off];
      __syncthreads();
    }
    if (threadIdx.x == 0) atomicMax(&out[which], (unsigned long long)sm[0]);
    __syncthreads();
  }
}

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

// ---- host side -----------------------------------------------------------------------------

size_t esize(gcoo_dtype t) { return t == GCOO_FLOAT64 ? 8 : 4; }

// Allocate the GCOO arrays of S (nnz entries, ng groups).
gcoo_status gcoo_alloc(gcoo_cuda_gcoo *S, gcoo_dtype dtype, int64_t nrows, int64_t ncols,
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

gcoo_status check_csr(const gcoo_cuda_csr *A, int32_t p) {
  GCOO_CHECK(A != NULL, GCOO_ERR_NULL, "CSR is NULL");
  GCOO_CHECK(p >= 1, GCOO_ERR_INVALID_ARG, "GCOO group width p = %d must be >= 1", p);
  GCOO_CHECK(A->nrows >= 0 && A->ncols >= 0 && A->nnz >= 0, GCOO_ERR_INVALID_ARG, "negative size");
  GCOO_CHECK(A->nrows <= INT32_MAX && A->ncols <= INT32_MAX, GCOO_ERR_TOO_LARGE,
             "%lld x %lld does not fit 32-bit indices", (long long)A->nrows, (long long)A->ncols);
  return GCOO_SUCCESS;
}

// What sort_into_groups leaves for the gather (and the tuned layout): stream-ordered arrays,
// freed with group_order_free on the same stream.
struct group_order {
  uint64_t *keys;
  int64_t *perm;
  int32_t *rowidx;
  int colbits;
};

void group_order_free(group_order *g, cudaStream_t s) {
  free_async(g->keys, s);
  free_async(g->perm, s);
  free_async(g->rowidx, s);
  g->keys = NULL, g->perm = NULL, g->rowidx = NULL;
}

// The sorted keys and the permutation of A's entries into GCOO order (the common first half of
// the CSR -> GCOO conversion and the tuned layout). *keys, *perm and *rowidx are stream-ordered
// allocations the caller frees with cudaFreeAsync (group_order_free).
gcoo_status sort_into_groups(const gcoo_cuda_csr *A, int32_t p, cudaStream_t s, uint64_t **keys,
                             int64_t **perm, int32_t **rowidx, int *colbits) {
  gcoo_status st = GCOO_SUCCESS;
  const int64_t nnz = A->nnz, m = A->nrows;
  uint64_t *kin = NULL;
  int64_t *vin = NULL;
  *keys = NULL, *perm = NULL, *rowidx = NULL;
  const int64_t ng = (m + p - 1) / p;
  *colbits = bits_for(A->ncols > 0 ? A->ncols - 1 : 0);
  int end_bit = *colbits + bits_for(ng > 0 ? ng - 1 : 0);
  if (end_bit < 1) end_bit = 1;
  GCOO_CHECK(end_bit <= 64, GCOO_ERR_TOO_LARGE, "sort key of %d bits", end_bit);
  GCOO_GOTO(gcoo__cuda_alloc_async(rowidx, (size_t)nnz * 4, "row indices", s));
  GCOO_GOTO(gcoo__cuda_alloc_async(&kin, (size_t)nnz * 8, "sort keys", s));
  GCOO_GOTO(gcoo__cuda_alloc_async(&vin, (size_t)nnz * 8, "sort values", s));
  GCOO_GOTO(gcoo__cuda_alloc_async(keys, (size_t)nnz * 8, "sorted keys", s));
  GCOO_GOTO(gcoo__cuda_alloc_async(perm, (size_t)nnz * 8, "GCOO permutation", s));
  if (nnz > 0) {
    GCOO_LAUNCH(expand_rows_kernel, dim3(grid_for(nnz, kThreads)), dim3(kThreads), 0, s, A->ptr, m,
                nnz, *rowidx);
    GCOO_CHECK_LAUNCH_GOTO("expand_rows_kernel");
    GCOO_LAUNCH(group_keys_kernel, dim3(grid_for(nnz, kThreads)), dim3(kThreads), 0, s,
                (const int32_t *)*rowidx, (const int32_t *)A->ind, nnz, p, *colbits, kin, vin);
    GCOO_CHECK_LAUNCH_GOTO("group_keys_kernel");
    GCOO_GOTO(sort_pairs(kin, *keys, vin, *perm, nnz, end_bit, s));
  }
done:
  free_async(kin, s);
  free_async(vin, s);
  if (st < 0) {
    free_async(*keys, s);
    free_async(*perm, s);
    free_async(*rowidx, s);
    *keys = NULL, *perm = NULL, *rowidx = NULL;
  }
  return st;
}

template <typename T>
gcoo_status gather(const gcoo_cuda_csr *A, const uint64_t *keys, const int64_t *perm,
                   const int32_t *rowidx, int colbits, gcoo_cuda_gcoo *S, cudaStream_t s) {
  if (A->nnz > 0) {
    GCOO_LAUNCH(gather_gcoo_kernel<T>, dim3(grid_for(A->nnz, kThreads)), dim3(kThreads), 0, s, keys,
                perm, A->nnz, (colbits >= 64 ? ~0ull : (1ull << colbits) - 1), rowidx,
                (const T *)A->values, S->rows, S->cols, (T *)S->values);
    GCOO_CHECK_LAUNCH("gather_gcoo_kernel");
  }
  GCOO_LAUNCH(group_offsets_kernel, dim3(grid_for(S->ngroups + 1, kThreads)), dim3(kThreads), 0, s,
              (const int64_t *)A->ptr, A->nrows, S->p, S->ngroups, S->gidx, S->gnnz);
  GCOO_CHECK_LAUNCH("group_offsets_kernel");
  return GCOO_SUCCESS;
}

template <typename T>
gcoo_status build_layout(const gcoo_cuda_csr *A, const uint64_t *keys, const int64_t *perm,
                         const int32_t *rowidx, int colbits, const gcoo_cuda_gcoo *S,
                         gcoo_cuda_tuned *L, cudaStream_t s) {
  gcoo_status st = GCOO_SUCCESS;
  const int64_t nnz = A->nnz, ng = S->ngroups;
  int64_t *flags = NULL, *H = NULL;
  unsigned long long *dmax = NULL, hmax[2] = {0, 0};
  GCOO_GOTO(gcoo__cuda_alloc(&L->uptr, (size_t)(ng + 1) * 8, "tuned layout: group list offsets"));
  GCOO_GOTO(gcoo__cuda_alloc_async(&flags, (size_t)nnz * 8, "run heads", s));
  GCOO_GOTO(gcoo__cuda_alloc_async(&H, (size_t)nnz * 8, "run numbers", s));
  GCOO_GOTO(gcoo__cuda_alloc_async(&dmax, 2 * sizeof *dmax, "group maxima", s));
  if (nnz > 0) {
    GCOO_LAUNCH(head_flags_kernel, dim3(grid_for(nnz, kThreads)), dim3(kThreads), 0, s, keys, nnz,
                flags);
    GCOO_CHECK_LAUNCH_GOTO("head_flags_kernel");
    GCOO_GOTO(inclusive_sum(flags, H, nnz, s));
    GCOO_CALL_CUDA_GOTO(cudaMemcpyAsync(&L->ndistinct, H + nnz - 1, 8, cudaMemcpyDeviceToHost, s));
  } else {
    L->ndistinct = 0;
  }
  GCOO_LAUNCH(group_lists_kernel, dim3(grid_for(ng + 1, kThreads)), dim3(kThreads), 0, s,
              (const int64_t *)S->gidx, (const int64_t *)H, ng, L->uptr);
  GCOO_CHECK_LAUNCH_GOTO("group_lists_kernel");
  GCOO_CALL_CUDA_GOTO(cudaMemsetAsync(dmax, 0, 2 * sizeof *dmax, s));
  GCOO_LAUNCH(group_maxima_kernel, dim3(grid_for(ng, kThreads)), dim3(kThreads), 0, s,
              (const int64_t *)L->uptr, (const int64_t *)S->gidx, ng, dmax);
  GCOO_CHECK_LAUNCH_GOTO("group_maxima_kernel");
  GCOO_CALL_CUDA_GOTO(cudaMemcpyAsync(hmax, dmax, sizeof hmax, cudaMemcpyDeviceToHost, s));
  GCOO_CALL_CUDA_GOTO(cudaStreamSynchronize(s)); // ndistinct and the maxima size what follows
  L->max_distinct = (int64_t)hmax[0];
  L->max_group_nnz = (int64_t)hmax[1];
  GCOO_GOTO(
      gcoo__cuda_alloc(&L->ucols, (size_t)L->ndistinct * 4, "tuned layout: group column lists"));
  /* the entries of row i at ptr[i] + i .. ptr[i + 1] + i - 1, then a sentinel */
  GCOO_GOTO(gcoo__cuda_alloc(&L->entries, (size_t)(nnz + A->nrows) * sizeof(Entry<T>),
                             "tuned layout: entries"));
  if (A->nrows > 0) {
    GCOO_LAUNCH(row_sentinels_kernel<T>, dim3(grid_for(A->nrows, kThreads)), dim3(kThreads), 0, s,
                (const int64_t *)A->ptr, A->nrows, (Entry<T> *)L->entries);
    GCOO_CHECK_LAUNCH_GOTO("row_sentinels_kernel");
  }
  if (nnz > 0) {
    GCOO_LAUNCH(fill_layout_kernel<T>, dim3(grid_for(nnz, kThreads)), dim3(kThreads), 0, s, keys,
                perm, (const int64_t *)H, (const int64_t *)L->uptr, nnz, colbits,
                (const T *)A->values, rowidx, L->ucols, (Entry<T> *)L->entries);
    GCOO_CHECK_LAUNCH_GOTO("fill_layout_kernel");
  }
done:
  free_async(flags, s);
  free_async(H, s);
  free_async(dmax, s);
  return st;
}

// Free the X-resident layout (accepts a zeroed one) and zero it.
void free_resident(gcoo_cuda_xres *X) {
  void *const arrays[] = {X->off, X->perm, X->values, X->cols, X->splits};
  gcoo__cuda_free_each(arrays, 5);
  memset(X, 0, sizeof *X);
}

void free_split(gcoo_cuda_split *P) {
  void *const arrays[] = {P->item_begin, P->item_row, P->item_slot, P->long_row,
                          P->long_ptr,   P->work,     P->item_order};
  gcoo__cuda_free_each(arrays, 7);
  memset(P, 0, sizeof *P);
}

} // namespace

extern "C" void gcoo_cuda_gcoo_free(gcoo_cuda_gcoo *S) {
  if (!S) return;
  void *const arrays[] = {S->gidx, S->gnnz, S->rows, S->cols, S->values};
  gcoo__cuda_free_each(arrays, 5);
  S->gidx = S->gnnz = NULL;
  S->rows = S->cols = NULL;
  S->values = NULL;
}

extern "C" gcoo_status gcoo_cuda_csr_to_gcoo(const gcoo_cuda_csr *A, int32_t p, gcoo_cuda_gcoo *S,
                                             void *stream) {
  GCOO_CALL(check_csr(A, p));
  GCOO_CHECK(S != NULL, GCOO_ERR_NULL, "output GCOO is NULL");
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  gcoo_status st = GCOO_SUCCESS;
  group_order g = {NULL, NULL, NULL, 0};
  GCOO_CALL(gcoo_alloc(S, A->dtype, A->ncols, A->nrows, A->nnz, p));
  GCOO_GOTO(sort_into_groups(A, p, s, &g.keys, &g.perm, &g.rowidx, &g.colbits));
  if (A->dtype == GCOO_FLOAT64)
    GCOO_GOTO(gather<double>(A, g.keys, g.perm, g.rowidx, g.colbits, S, s));
  else
    GCOO_GOTO(gather<float>(A, g.keys, g.perm, g.rowidx, g.colbits, S, s));
done:
  group_order_free(&g, s);
  if (st < 0) gcoo_cuda_gcoo_free(S);
  return st;
}

extern "C" void gcoo_cuda_tuned_free(gcoo_cuda_tuned *L) {
  if (!L) return;
  void *const arrays[] = {L->uptr, L->ucols, L->entries, L->row_order};
  gcoo__cuda_free_each(arrays, 4);
  L->uptr = NULL, L->ucols = NULL, L->entries = NULL, L->row_order = NULL;
  free_resident(&L->xres);
  free_split(&L->split);
}

extern "C" gcoo_status gcoo_cuda_tuned_build(const gcoo_cuda_csr *A, int32_t p, gcoo_cuda_tuned *L,
                                             gcoo_cuda_gcoo *S_keep, void *stream) {
  GCOO_CALL(check_csr(A, p));
  GCOO_CHECK(L != NULL, GCOO_ERR_NULL, "output layout is NULL");
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  gcoo_status st = GCOO_SUCCESS;
  group_order g = {NULL, NULL, NULL, 0};
  gcoo_cuda_gcoo S;
  memset(&S, 0, sizeof S);
  memset(L, 0, sizeof *L);
  L->dtype = A->dtype;
  L->m = A->nrows;
  L->k = A->ncols;
  L->nnz = A->nnz;
  L->p = p;
  L->ngroups = (A->nrows + p - 1) / p;
  L->rowptr = A->ptr;
  L->colind = A->ind;
  L->csr_values = A->values;
  GCOO_GOTO(gcoo_alloc(&S, A->dtype, A->ncols, A->nrows, A->nnz, p));
  GCOO_GOTO(sort_into_groups(A, p, s, &g.keys, &g.perm, &g.rowidx, &g.colbits));
  if (A->dtype == GCOO_FLOAT64) {
    GCOO_GOTO(gather<double>(A, g.keys, g.perm, g.rowidx, g.colbits, &S, s));
    GCOO_GOTO(build_layout<double>(A, g.keys, g.perm, g.rowidx, g.colbits, &S, L, s));
  } else {
    GCOO_GOTO(gather<float>(A, g.keys, g.perm, g.rowidx, g.colbits, &S, s));
    GCOO_GOTO(build_layout<float>(A, g.keys, g.perm, g.rowidx, g.colbits, &S, L, s));
  }
done:
  group_order_free(&g, s);
  if (st < 0) gcoo_cuda_tuned_free(L);
  if (st >= 0 && S_keep) {
    *S_keep = S;
  } else {
    if (st >= 0) (void)cudaStreamSynchronize(s); // S's arrays may still be read by queued work
    gcoo_cuda_gcoo_free(&S);
  }
  return st;
}

namespace {

// ---- the X-resident layout (docs/kernels.md, "The X-resident variant") -------------------

// Sort keys that put long rows first: INT32_MAX - length (a row holds at most k < 2^31 entries).
__global__ void row_length_keys_kernel(const int64_t *__restrict__ ptr, int64_t m,
                                       uint64_t *__restrict__ keys, int64_t *__restrict__ rows) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < m;
       i += (int64_t)gridDim.x * blockDim.x) {
    keys[i] = (uint64_t)(INT32_MAX - (ptr[i + 1] - ptr[i]));
    rows[i] = i;
  }
}

// rows[0 .. m): A's rows, longest first (stable: equal lengths keep A's order). One CUB radix sort
// of 32-bit keys; the X-resident layout and the batched kernel's order both start from it.
gcoo_status rows_by_length(const gcoo_cuda_csr *A, int64_t *rows, cudaStream_t s) {
  const int64_t m = A->nrows;
  if (m == 0) return GCOO_SUCCESS;
  gcoo_status st = GCOO_SUCCESS;
  uint64_t *kin = NULL, *kout = NULL;
  int64_t *rin = NULL;
  GCOO_GOTO(gcoo__cuda_alloc_async(&kin, (size_t)m * 8, "row length keys", s));
  GCOO_GOTO(gcoo__cuda_alloc_async(&kout, (size_t)m * 8, "sorted row length keys", s));
  GCOO_GOTO(gcoo__cuda_alloc_async(&rin, (size_t)m * 8, "row numbers", s));
  GCOO_LAUNCH(row_length_keys_kernel, dim3(grid_for(m, kThreads)), dim3(kThreads), 0, s, A->ptr, m,
              kin, rin);
  GCOO_CHECK_LAUNCH_GOTO("row length keys");
  GCOO_GOTO(sort_pairs(kin, kout, rin, rows, m, 32, s));
done:
  free_async(kin, s);
  free_async(kout, s);
  free_async(rin, s);
  return st;
}

// The schedule of one quarter-warp (8 lanes = 8 rows of a slice; row -1 = none): which entry
// each lane reads at each step. On Hopper a warp's 16-byte shared-memory loads are served a
// quarter-warp at a time, and 8 lanes that read 8 X rows whose indices differ mod 8 hit 8
// different bank groups (the kernel swizzles wider tiles so that this holds for them too): one
// wavefront instead of the 2-3 that random columns cost. A row's entries may be summed in any
// order, so at each step every lane (longest remaining first) takes an entry whose column
// residue mod 8 no other lane took at that step, the residue it has most of. A lane with nothing
// left reads a zero row k + b with a free residue b. On random rows this needs 1-6 % more steps
// than the longest row (a simulation of the rule; König's theorem says the longest row or the
// busiest residue is the least possible). Without `val` (pass 1) only the steps are counted;
// with it (pass 2) the schedule is written down the lanes (stride 32), padded to `width` steps.
template <typename T>
__device__ int quarter_schedule(const int64_t *__restrict__ ptr, const int32_t *__restrict__ ind,
                                const T *__restrict__ vals, int64_t k, const int64_t *rows,
                                T *__restrict__ val, uint16_t *__restrict__ col, int width) {
  int cnt[8][8], next[8][8], rem[8];
  int64_t base[8];
  const int kres = (int)(k & 7);
  for (int r = 0; r < 8; r++) {
    base[r] = rows[r] >= 0 ? ptr[rows[r]] : 0;
    rem[r] = rows[r] >= 0 ? (int)(ptr[rows[r] + 1] - base[r]) : 0;
    for (int b = 0; b < 8; b++) cnt[r][b] = next[r][b] = 0;
    for (int j = 0; j < rem[r]; j++) cnt[r][ind[base[r] + j] & 7]++;
  }
  int steps = 0;
  for (;;) {
    int order[8], n = 0;
    for (int r = 0; r < 8; r++) { // lanes with entries left, most first (insertion sort)
      if (rem[r] == 0) continue;
      int i = n++;
      while (i > 0 && rem[order[i - 1]] < rem[r]) {
        order[i] = order[i - 1];
        i--;
      }
      order[i] = r;
    }
    if (n == 0) break;
    unsigned used = 0;
    int pick[8];
    for (int r = 0; r < 8; r++) pick[r] = -1;
    for (int i = 0; i < n; i++) {
      const int r = order[i];
      int best = -1;
      for (int b = 0; b < 8; b++)
        if (!((used >> b) & 1) && cnt[r][b] > 0 && (best < 0 || cnt[r][b] > cnt[r][best])) best = b;
      if (best < 0) continue; // every residue it has is taken: it waits a step
      pick[r] = best;
      used |= 1u << best;
      cnt[r][best]--;
      rem[r]--;
    }
    if (val) {
      for (int r = 0; r < 8; r++) {
        T v = T(0);
        int64_t u;
        if (pick[r] >= 0) {
          const int b = pick[r];
          int j = next[r][b];
          while ((ind[base[r] + j] & 7) != b) j++;
          next[r][b] = j + 1;
          v = vals[base[r] + j];
          u = ind[base[r] + j];
        } else {
          int b = 0;
          while ((used >> b) & 1) b++;
          used |= 1u << b;
          u = k + ((b - kres) & 7); // the zero row with residue b
        }
        val[32 * (int64_t)steps + r] = v;
        col[32 * (int64_t)steps + r] = (uint16_t)u;
      }
    }
    steps++;
  }
  if (val)
    for (int j = steps; j < width; j++)
      for (int r = 0; r < 8; r++) {
        val[32 * (int64_t)j + r] = T(0);
        col[32 * (int64_t)j + r] = (uint16_t)(k + ((r - kres) & 7));
      }
  return steps;
}

// Pass 1: the steps of every quarter (thread q: lanes 8 (q % 4) .. of slice q / 4).
template <typename T>
__global__ void quarter_steps_kernel(const int64_t *__restrict__ ptr,
                                     const int32_t *__restrict__ ind, int64_t m, int64_t k,
                                     const int64_t *__restrict__ rows, int64_t nquarters,
                                     int32_t *__restrict__ qsteps) {
  for (int64_t q = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; q < nquarters;
       q += (int64_t)gridDim.x * blockDim.x) {
    int64_t r8[8];
    for (int r = 0; r < 8; r++) r8[r] = 8 * q + r < m ? rows[8 * q + r] : -1;
    qsteps[q] = quarter_schedule<T>(ptr, ind, (const T *)nullptr, k, r8, (T *)nullptr, nullptr, 0);
  }
}

// Entries of slice s = 32 x the steps of its slowest quarter.
__global__ void slice_sizes_kernel(const int32_t *__restrict__ qsteps, int64_t nslices,
                                   int64_t *__restrict__ size) {
  for (int64_t sl = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; sl < nslices;
       sl += (int64_t)gridDim.x * blockDim.x) {
    int32_t w = 0;
    for (int q = 0; q < 4; q++) w = qsteps[4 * sl + q] > w ? qsteps[4 * sl + q] : w;
    size[sl] = 32 * (int64_t)w;
  }
}

// Pass 2: every quarter writes its schedule and its lanes' rows; one more thread pads the step
// past the last slice.
template <typename T>
__global__ void fill_resident_kernel(const int64_t *__restrict__ ptr,
                                     const int32_t *__restrict__ ind, const T *__restrict__ vals,
                                     int64_t m, int64_t k, const int64_t *__restrict__ rows,
                                     int64_t nquarters, const int64_t *__restrict__ off,
                                     int32_t *__restrict__ perm, T *__restrict__ val,
                                     uint16_t *__restrict__ col) {
  for (int64_t q = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; q <= nquarters;
       q += (int64_t)gridDim.x * blockDim.x) {
    const int64_t sl = q / 4;
    if (q == nquarters) { // the step past the end (the kernel loads one step ahead)
      for (int r = 0; r < 32; r++) {
        val[off[sl] + r] = T(0);
        col[off[sl] + r] = (uint16_t)(k + ((r - (int)(k & 7)) & 7));
      }
      continue;
    }
    int64_t r8[8];
    for (int r = 0; r < 8; r++) {
      r8[r] = 8 * q + r < m ? rows[8 * q + r] : -1;
      perm[8 * q + r] = (int32_t)r8[r];
    }
    const int64_t lane0 = off[sl] + 8 * (q % 4);
    quarter_schedule<T>(ptr, ind, vals, k, r8, val + lane0, col + lane0,
                        (int)((off[sl + 1] - off[sl]) / 32));
  }
}

// Where the R + 1 split points for R parts start: R = 1 -> 0, 2 -> 2, 4 -> 5, 8 -> 10 (the
// points of the smaller R's come first).
__host__ __device__ inline int split_base(int R) {
  int base = 0;
  for (int r = 1; r < R; r *= 2) base += r + 1;
  return base;
}

// Split points: for R = 1, 2, 4, .., the first slice at or past each of the R equal shares of
// the entries (one thread per point; a binary search over off).
__global__ void resident_splits_kernel(const int64_t *__restrict__ off, int64_t nslices,
                                       int64_t *__restrict__ splits) {
  const int64_t total = off[nslices];
  const int npoints = split_base(2 * GCOO_XRES_MAX_SPLITS);
  for (int t = (int)(blockIdx.x * blockDim.x + threadIdx.x); t < npoints;
       t += (int)(gridDim.x * blockDim.x)) {
    int R = 1;
    while (split_base(2 * R) <= t) R *= 2;
    const int i = t - split_base(R);
    const int64_t target = (int64_t)((double)total * i / R);
    int64_t lo = 0, hi = nslices; // first s with off[s] >= target
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (off[mid] < target)
        lo = mid + 1;
      else
        hi = mid;
    }
    splits[t] = i == R ? nslices : lo;
  }
}

template <typename T>
gcoo_status build_resident(const gcoo_cuda_csr *A, gcoo_cuda_xres *X, cudaStream_t s) {
  gcoo_status st = GCOO_SUCCESS;
  const int64_t m = A->nrows, ns = (m + 31) / 32, nq = 4 * ns;
  int64_t *rout = NULL, *size = NULL;
  int32_t *qsteps = NULL;
  const int npoints = split_base(2 * GCOO_XRES_MAX_SPLITS);
  GCOO_CHECK(A->ncols + 8 <= 65536, GCOO_ERR_TOO_LARGE,
             "the X-resident layout stores columns in 16 bits: k = %lld is too large",
             (long long)A->ncols);
  X->nslices = ns;
  GCOO_GOTO(gcoo__cuda_alloc(&X->off, (size_t)(ns + 1) * 8, "resident layout: slice offsets"));
  GCOO_GOTO(
      gcoo__cuda_alloc(&X->perm, (size_t)(ns > 0 ? 32 * ns : 1) * 4, "resident layout: row order"));
  GCOO_GOTO(gcoo__cuda_alloc(&X->splits, (size_t)npoints * 8, "resident layout: split points"));
  GCOO_CALL_CUDA_GOTO(cudaMemsetAsync(X->off, 0, 8, s));
  if (ns > 0) {
    GCOO_GOTO(gcoo__cuda_alloc_async(&rout, (size_t)m * 8, "rows by length", s));
    GCOO_GOTO(gcoo__cuda_alloc_async(&size, (size_t)ns * 8, "slice sizes", s));
    GCOO_GOTO(gcoo__cuda_alloc_async(&qsteps, (size_t)nq * 4, "quarter-warp steps", s));
    GCOO_GOTO(rows_by_length(A, rout, s));
    GCOO_LAUNCH(quarter_steps_kernel<T>, dim3(grid_for(nq, kThreads)), dim3(kThreads), 0, s, A->ptr,
                A->ind, m, A->ncols, rout, nq, qsteps);
    GCOO_CHECK_LAUNCH_GOTO("quarter-warp schedules (steps)");
    GCOO_LAUNCH(slice_sizes_kernel, dim3(grid_for(ns, kThreads)), dim3(kThreads), 0, s, qsteps, ns,
                size);
    GCOO_CHECK_LAUNCH_GOTO("slice sizes");
    GCOO_GOTO(inclusive_sum(size, X->off + 1, ns, s));
  }
  GCOO_CALL_CUDA_GOTO(cudaMemcpyAsync(&X->nentries, X->off + ns, 8, cudaMemcpyDeviceToHost, s));
  GCOO_CALL_CUDA_GOTO(cudaStreamSynchronize(s));
  GCOO_GOTO(gcoo__cuda_alloc(&X->values, (size_t)(X->nentries + 32) * sizeof(T),
                             "resident layout: values"));
  GCOO_GOTO(gcoo__cuda_alloc(&X->cols, (size_t)(X->nentries + 32) * 2, "resident layout: columns"));
  GCOO_LAUNCH(fill_resident_kernel<T>, dim3(grid_for(nq + 1, kThreads)), dim3(kThreads), 0, s,
              A->ptr, A->ind, static_cast<const T *>(A->values), m, A->ncols, rout, nq, X->off,
              X->perm, static_cast<T *>(X->values), X->cols);
  GCOO_CHECK_LAUNCH_GOTO("resident layout fill");
  GCOO_LAUNCH(resident_splits_kernel, dim3(grid_for(npoints, kThreads)), dim3(kThreads), 0, s,
              X->off, ns, X->splits);
  GCOO_CHECK_LAUNCH_GOTO("resident split points");
done:
  free_async(rout, s);
  free_async(size, s);
  free_async(qsteps, s);
  return st;
}

// ---- the row-split layout (docs/kernels.md, "The row-split variant") ---------------------

// Per row: its items (1, or ceil(length / piece) for a long row), whether it is long, and its
// workspace rows (its items when long, else 0).
__global__ void split_count_kernel(const int64_t *__restrict__ ptr, int64_t m, int32_t piece,
                                   int64_t *__restrict__ items, int64_t *__restrict__ longs,
                                   int64_t *__restrict__ work) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < m;
       i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t len = ptr[i + 1] - ptr[i];
    const int64_t n = len > piece ? (len + piece - 1) / piece : 1;
    items[i] = n;
    longs[i] = len > piece;
    work[i] = len > piece ? n : 0;
  }
}

// Per row, from the inclusive sums of the counts: its items (first entry, row, workspace row)
// and, for a long row, its place in the list of long rows.
__global__ void split_fill_kernel(const int64_t *__restrict__ ptr, int64_t m, int32_t piece,
                                  const int64_t *__restrict__ items,
                                  const int64_t *__restrict__ longs,
                                  const int64_t *__restrict__ work,
                                  int64_t *__restrict__ item_begin, int64_t *__restrict__ item_row,
                                  int64_t *__restrict__ item_slot, int64_t *__restrict__ long_row,
                                  int64_t *__restrict__ long_ptr) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < m;
       i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t len = ptr[i + 1] - ptr[i];
    const int is_long = len > piece;
    const int64_t n = is_long ? (len + piece - 1) / piece : 1;
    const int64_t it0 = items[i] - n, w0 = work[i] - (is_long ? n : 0);
    for (int64_t q = 0; q < n; q++) {
      item_begin[it0 + q] = ptr[i] + q * piece;
      item_row[it0 + q] = i;
      item_slot[it0 + q] = is_long ? w0 + q : -1;
    }
    if (is_long) {
      long_row[longs[i] - 1] = i;
      long_ptr[longs[i] - 1] = w0;
    }
  }
}

gcoo_status build_split(const gcoo_cuda_csr *A, int32_t piece, int64_t ncols_hint,
                        gcoo_cuda_split *P, cudaStream_t s) {
  gcoo_status st = GCOO_SUCCESS;
  const int64_t m = A->nrows;
  const size_t es = gcoo_dtype_size(A->dtype);
  int64_t *cnt = NULL, *items = NULL, *longs = NULL, *work = NULL;
  int64_t tot[3] = {0, 0, 0};
  P->piece = piece;
  if (m > 0) {
    GCOO_GOTO(gcoo__cuda_alloc_async(&cnt, (size_t)m * 24, "row-split counts", s));
    GCOO_GOTO(gcoo__cuda_alloc_async(&items, (size_t)m * 8, "row-split item sums", s));
    GCOO_GOTO(gcoo__cuda_alloc_async(&longs, (size_t)m * 8, "row-split long-row sums", s));
    GCOO_GOTO(gcoo__cuda_alloc_async(&work, (size_t)m * 8, "row-split workspace sums", s));
    GCOO_LAUNCH(split_count_kernel, dim3(grid_for(m, kThreads)), dim3(kThreads), 0, s, A->ptr, m,
                piece, cnt, cnt + m, cnt + 2 * m);
    GCOO_CHECK_LAUNCH_GOTO("row-split counts");
    GCOO_GOTO(inclusive_sum(cnt, items, m, s));
    GCOO_GOTO(inclusive_sum(cnt + m, longs, m, s));
    GCOO_GOTO(inclusive_sum(cnt + 2 * m, work, m, s));
    GCOO_CALL_CUDA_GOTO(cudaMemcpyAsync(&tot[0], items + m - 1, 8, cudaMemcpyDeviceToHost, s));
    GCOO_CALL_CUDA_GOTO(cudaMemcpyAsync(&tot[1], longs + m - 1, 8, cudaMemcpyDeviceToHost, s));
    GCOO_CALL_CUDA_GOTO(cudaMemcpyAsync(&tot[2], work + m - 1, 8, cudaMemcpyDeviceToHost, s));
    GCOO_CALL_CUDA_GOTO(cudaStreamSynchronize(s));
  }
  P->nitems = tot[0];
  P->nlong = tot[1];
  P->nwork = tot[2];
  /* the workspace: ncols_hint rounded up to 128, within [128, 512] and the byte bound */
  {
    int64_t wc = ncols_hint > 0 ? (ncols_hint + 127) / 128 * 128 : 128;
    if (wc > 512) wc = 512;
    while (wc > 128 && P->nwork * wc * (int64_t)es > GCOO_SPLIT_MAX_WORK_BYTES) wc -= 128;
    P->work_cols = wc;
  }
  GCOO_GOTO(gcoo__cuda_alloc(&P->item_begin, (size_t)(P->nitems > 0 ? P->nitems : 1) * 8,
                             "row-split items"));
  GCOO_GOTO(gcoo__cuda_alloc(&P->item_row, (size_t)(P->nitems > 0 ? P->nitems : 1) * 8,
                             "row-split item rows"));
  GCOO_GOTO(gcoo__cuda_alloc(&P->item_slot, (size_t)(P->nitems > 0 ? P->nitems : 1) * 8,
                             "row-split item slots"));
  GCOO_GOTO(gcoo__cuda_alloc(&P->long_row, (size_t)(P->nlong > 0 ? P->nlong : 1) * 8,
                             "row-split long rows"));
  GCOO_GOTO(
      gcoo__cuda_alloc(&P->long_ptr, (size_t)(P->nlong + 1) * 8, "row-split long-row offsets"));
  GCOO_GOTO(gcoo__cuda_alloc(&P->work,
                             (size_t)(P->nwork > 0 ? P->nwork : 1) * (size_t)P->work_cols * es,
                             "row-split workspace"));
  GCOO_CALL_CUDA_GOTO(
      cudaMemcpyAsync(P->long_ptr + P->nlong, &tot[2], 8, cudaMemcpyHostToDevice, s));
  if (m > 0) {
    GCOO_LAUNCH(split_fill_kernel, dim3(grid_for(m, kThreads)), dim3(kThreads), 0, s, A->ptr, m,
                piece, items, longs, work, P->item_begin, P->item_row, P->item_slot, P->long_row,
                P->long_ptr);
    GCOO_CHECK_LAUNCH_GOTO("row-split fill");
  }
  GCOO_CALL_CUDA_GOTO(cudaStreamSynchronize(s)); /* tot[2] is on this stack frame */
done:
  free_async(cnt, s);
  free_async(items, s);
  free_async(longs, s);
  free_async(work, s);
  return st;
}

// Sort keys that put long items first (as row_length_keys_kernel for rows).
__global__ void item_length_keys_kernel(const int64_t *__restrict__ ptr,
                                        const int64_t *__restrict__ item_begin,
                                        const int64_t *__restrict__ item_row, int64_t n,
                                        int32_t piece, uint64_t *__restrict__ keys,
                                        int64_t *__restrict__ items) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t left = ptr[item_row[i] + 1] - item_begin[i];
    keys[i] = (uint64_t)(INT32_MAX - (left < piece ? left : piece));
    items[i] = i;
  }
}

gcoo_status build_split_order(const gcoo_cuda_csr *A, gcoo_cuda_split *P, cudaStream_t s) {
  const int64_t n = P->nitems;
  gcoo_status st = GCOO_SUCCESS;
  uint64_t *kin = NULL, *kout = NULL;
  int64_t *iin = NULL;
  GCOO_GOTO(gcoo__cuda_alloc((void **)&P->item_order, (size_t)(n > 0 ? n : 1) * 8,
                             "row-split items, longest first"));
  if (n == 0) return GCOO_SUCCESS;
  GCOO_GOTO(gcoo__cuda_alloc_async(&kin, (size_t)n * 8, "item length keys", s));
  GCOO_GOTO(gcoo__cuda_alloc_async(&kout, (size_t)n * 8, "sorted item length keys", s));
  GCOO_GOTO(gcoo__cuda_alloc_async(&iin, (size_t)n * 8, "item numbers", s));
  GCOO_LAUNCH(item_length_keys_kernel, dim3(grid_for(n, kThreads)), dim3(kThreads), 0, s, A->ptr,
              P->item_begin, P->item_row, n, P->piece, kin, iin);
  GCOO_CHECK_LAUNCH_GOTO("item length keys");
  GCOO_GOTO(sort_pairs(kin, kout, iin, P->item_order, n, 32, s));
done:
  free_async(kin, s);
  free_async(kout, s);
  free_async(iin, s);
  return st;
}

} // namespace

extern "C" int gcoo_cuda_xres_split_base(int R) { return split_base(R); }

extern "C" int gcoo_cuda_resident_fits(int64_t k, const gcoo_cuda_devinfo *dev) {
  return dev != NULL && k >= 0 &&
         gcoo_cuda_resident_smem(k, 1) <= (int64_t)dev->smem_per_block_optin;
}

extern "C" gcoo_status gcoo_cuda_tuned_build_resident(const gcoo_cuda_csr *A, gcoo_cuda_tuned *L,
                                                      void *stream) {
  GCOO_CHECK(A != NULL && L != NULL, GCOO_ERR_NULL, "CSR or layout is NULL");
  GCOO_CHECK(A->nrows == L->m && A->ncols == L->k && A->nnz == L->nnz && A->dtype == L->dtype,
             GCOO_ERR_INVALID_ARG, "the tuned layout was not built from this CSR");
  if (L->xres.off) return GCOO_SUCCESS;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  gcoo_status st = A->dtype == GCOO_FLOAT64 ? build_resident<double>(A, &L->xres, s)
                                            : build_resident<float>(A, &L->xres, s);
  if (st < 0) free_resident(&L->xres);
  return st;
}

extern "C" gcoo_status gcoo_cuda_tuned_build_order(const gcoo_cuda_csr *A, gcoo_cuda_tuned *L,
                                                   void *stream) {
  GCOO_CHECK(A != NULL && L != NULL, GCOO_ERR_NULL, "CSR or layout is NULL");
  GCOO_CHECK(A->nrows == L->m && A->ncols == L->k && A->nnz == L->nnz && A->dtype == L->dtype,
             GCOO_ERR_INVALID_ARG, "the tuned layout was not built from this CSR");
  if (L->row_order) return GCOO_SUCCESS;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  gcoo_status st = GCOO_SUCCESS;
  GCOO_GOTO(gcoo__cuda_alloc((void **)&L->row_order, (size_t)(A->nrows > 0 ? A->nrows : 1) * 8,
                             "batched kernel: rows longest first"));
  GCOO_GOTO(rows_by_length(A, L->row_order, s));
done:
  if (st < 0) {
    void *const arrays[] = {L->row_order};
    gcoo__cuda_free_each(arrays, 1);
    L->row_order = NULL;
  }
  return st;
}

extern "C" gcoo_status gcoo_cuda_tuned_build_split(const gcoo_cuda_csr *A, int32_t piece,
                                                   int64_t ncols_hint, gcoo_cuda_tuned *L,
                                                   void *stream) {
  GCOO_CHECK(A != NULL && L != NULL, GCOO_ERR_NULL, "CSR or layout is NULL");
  GCOO_CHECK(A->nrows == L->m && A->ncols == L->k && A->nnz == L->nnz && A->dtype == L->dtype,
             GCOO_ERR_INVALID_ARG, "the tuned layout was not built from this CSR");
  GCOO_CHECK(piece >= 0 && piece <= GCOO_SPLIT_MAX_PIECE, GCOO_ERR_INVALID_ARG,
             "row-split piece %d outside 1..%d (0: from the mean row)", piece,
             GCOO_SPLIT_MAX_PIECE);
  if (L->split.item_begin) return GCOO_SUCCESS;
  if (piece == 0) piece = gcoo_cuda_split_piece(A->nrows, A->nnz);
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  gcoo_status st = build_split(A, piece, ncols_hint, &L->split, s);
  if (st < 0) free_split(&L->split);
  return st;
}

extern "C" gcoo_status gcoo_cuda_tuned_build_split_order(const gcoo_cuda_csr *A, gcoo_cuda_tuned *L,
                                                         void *stream) {
  GCOO_CHECK(A != NULL && L != NULL, GCOO_ERR_NULL, "CSR or layout is NULL");
  GCOO_CHECK(L->split.item_begin != NULL, GCOO_ERR_UNSUPPORTED,
             "the row-split layout is not built (gcoo_cuda_tuned_build_split)");
  if (L->split.item_order) return GCOO_SUCCESS;
  gcoo_status st = build_split_order(A, &L->split, static_cast<cudaStream_t>(stream));
  if (st < 0) {
    void *const arrays[] = {L->split.item_order};
    gcoo__cuda_free_each(arrays, 1);
    L->split.item_order = NULL;
    L->split.ordered = 0;
  }
  return st;
}

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
