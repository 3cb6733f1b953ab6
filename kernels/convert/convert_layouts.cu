// SPDX-License-Identifier: MIT
// kernels/convert/convert_layouts.cu: the tuned kernel's X-resident and row-split layouts, built on
// the GPU from A's CSR, and the row orders its variants take (docs/kernels.md).
#include "convert_common.cuh"

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
