// SPDX-License-Identifier: MIT
// kernels/convert/convert_gcoo.cu: CSR of A -> GCOO of S = A^T on the GPU (CUB radix sort), and the
// tuned kernel's layout derived from the GCOO.
//
// CSR -> GCOO: entry e of row i, column j of A is entry (j, i) of S, in group i / p. Sorting the
// entries by the key (i / p, j) with a STABLE radix sort keeps rows ascending among equal keys
// (CSR order is row-major), which is GCOO's (row of S, column of S) order inside a group; the
// group offsets are A's row pointer sampled every p rows. The sorted keys also mark each group's
// distinct columns (a key differs from its predecessor), which the tuned layout needs.
// No host loops; the CUB calls are wrapped below so that the CPU-emulated build of this file
// (tests/gpu/t309) runs the same kernels with std:: algorithms in their place
// (convert_common.cuh).
#include "convert_common.cuh"

namespace {

// ---- kernels -----------------------------------------------------------------------------

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

// ---- host side -----------------------------------------------------------------------------

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
