/* SPDX-License-Identifier: MIT */
/* kernels/convert/transfer.c: host matrices to and from their device forms: a host CSR uploaded
 * (gcoo_cuda_csr_upload, large arrays staged through pinned chunks), a device GCOO brought back
 * as a host matrix (gcoo_cuda_gcoo_download), a device CSR freed. */
#include <stdlib.h>
#include <string.h>

#include "backend/copy_staged.h"
#include "common/gcoo_kernels.h"
gcoo_status gcoo_cuda_csr_upload(gcoo_sparse A, gcoo_cuda_csr *d, void *stream) {
  gcoo_sparse_info ai;
  gcoo_sparse_arrays a;
  gcoo_status st = GCOO_SUCCESS;
  cudaStream_t s = (cudaStream_t)stream;
  GCOO_CHECK(d != NULL, GCOO_ERR_NULL, "output is NULL");
  memset(d, 0, sizeof *d);
  GCOO_CALL(gcoo_sparse_get_info(A, &ai));
  GCOO_CHECK(ai.format == GCOO_FORMAT_CSR, GCOO_ERR_INVALID_ARG, "matrix is not CSR");
  GCOO_CALL(gcoo_sparse_get_arrays(A, &a));
  const size_t es = gcoo_dtype_size(ai.dtype);
  d->dtype = ai.dtype;
  d->nrows = ai.nrows;
  d->ncols = ai.ncols;
  d->nnz = ai.nnz;
  GCOO_GOTO(gcoo__cuda_alloc(&d->ptr, (size_t)(ai.nrows + 1) * 8, "CSR row pointer"));
  GCOO_GOTO(gcoo__cuda_alloc(&d->ind, (size_t)ai.nnz * 4, "CSR column indices"));
  GCOO_GOTO(gcoo__cuda_alloc(&d->values, (size_t)ai.nnz * es, "CSR values"));
  /* (one row each: large arrays are staged through pinned chunks, kernels/backend/copy_staged.c) */
  GCOO_GOTO(gcoo__cuda_copy_rows(d->ptr, 8, a.ptr, 8, (size_t)(ai.nrows + 1) * 8, 1, s));
  if (ai.nnz > 0) {
    GCOO_GOTO(gcoo__cuda_copy_rows(d->ind, 4, a.ind, 4, (size_t)ai.nnz * 4, 1, s));
    GCOO_GOTO(gcoo__cuda_copy_rows(d->values, es, a.values, es, (size_t)ai.nnz * es, 1, s));
  }
done:
  if (st < 0) gcoo_cuda_csr_free(d);
  return st;
}

void gcoo_cuda_csr_free(gcoo_cuda_csr *d) {
  if (!d) return;
  void *const arrays[] = {d->ptr, d->ind, d->values};
  gcoo__cuda_free_each(arrays, 3);
  d->ptr = NULL, d->ind = NULL, d->values = NULL;
}

gcoo_status gcoo_cuda_gcoo_download(const gcoo_cuda_gcoo *S, gcoo_sparse *out, void *stream) {
  gcoo_status st = GCOO_SUCCESS;
  cudaStream_t s = (cudaStream_t)stream;
  int64_t *gidx = NULL;
  int32_t *rows = NULL, *cols = NULL;
  void *vals = NULL;
  const size_t es = gcoo_dtype_size(S->dtype);
  GCOO_CHECK(out != NULL, GCOO_ERR_NULL, "output is NULL");
  *out = NULL;
  GCOO_GOTO(gcoo__malloc_n((void **)&gidx, S->ngroups + 1, 8, "gIdxes"));
  GCOO_GOTO(gcoo__malloc_n((void **)&rows, S->nnz, 4, "rows"));
  GCOO_GOTO(gcoo__malloc_n((void **)&cols, S->nnz, 4, "cols"));
  GCOO_GOTO(gcoo__malloc_n(&vals, S->nnz, es, "values"));
  GCOO_CALL_CUDA_GOTO(
      cudaMemcpyAsync(gidx, S->gidx, (size_t)(S->ngroups + 1) * 8, cudaMemcpyDeviceToHost, s));
  if (S->nnz > 0) {
    GCOO_CALL_CUDA_GOTO(
        cudaMemcpyAsync(rows, S->rows, (size_t)S->nnz * 4, cudaMemcpyDeviceToHost, s));
    GCOO_CALL_CUDA_GOTO(
        cudaMemcpyAsync(cols, S->cols, (size_t)S->nnz * 4, cudaMemcpyDeviceToHost, s));
    GCOO_CALL_CUDA_GOTO(
        cudaMemcpyAsync(vals, S->values, (size_t)S->nnz * es, cudaMemcpyDeviceToHost, s));
  }
  GCOO_CALL_CUDA_GOTO(cudaStreamSynchronize(s));
  st = gcoo__sparse_adopt(out, GCOO_FORMAT_GCOO, S->dtype, S->nrows, S->ncols, S->nnz, S->p, NULL,
                          NULL, rows, cols, gidx, vals);
  gidx = NULL, rows = NULL, cols = NULL, vals = NULL; /* adopted (or freed by adopt) */
  GCOO_GOTO(st);
done:
  free(gidx);
  free(rows);
  free(cols);
  free(vals);
  return st;
}
