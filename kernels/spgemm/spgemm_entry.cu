// SPDX-License-Identifier: MIT
// kernels/spgemm/spgemm_entry.cu: the CUDA backend's SpGEMM and predictor on host matrices (upload,
// the product or the prediction on the device, download), and the CSR transfers of the gateway.
#include <cstdlib>
#include <cstring>

#include "backend/backend_cuda_impl.h"
#include "spgemm_common.cuh"

extern "C" {

// A host CSR on the device; with_values false uploads the pattern only and zeroes the values
// (the predictor needs only the pattern: a third less to copy).
static gcoo_status upload_csr(const gcoo_csr_view *h, gcoo_cuda_csr *d, cudaStream_t s,
                              bool with_values) {
  gcoo_status st = GCOO_SUCCESS;
  const size_t es = gcoo_dtype_size(h->dtype);
  memset(d, 0, sizeof *d);
  d->dtype = h->dtype;
  d->nrows = h->nrows;
  d->ncols = h->ncols;
  d->nnz = h->nnz;
  GCOO_GOTO(gcoo__cuda_alloc(&d->ptr, (size_t)(h->nrows + 1) * 8, "CSR row pointers"));
  GCOO_GOTO(gcoo__cuda_alloc(&d->ind, (size_t)(h->nnz ? h->nnz : 1) * 4, "CSR column indices"));
  GCOO_GOTO(gcoo__cuda_alloc(&d->values, (size_t)(h->nnz ? h->nnz : 1) * es, "CSR values"));
  SPG_CUDA(cudaMemcpyAsync(d->ptr, h->ptr, (size_t)(h->nrows + 1) * 8, cudaMemcpyHostToDevice, s));
  if (h->nnz) {
    SPG_CUDA(cudaMemcpyAsync(d->ind, h->ind, (size_t)h->nnz * 4, cudaMemcpyHostToDevice, s));
    if (with_values)
      SPG_CUDA(
          cudaMemcpyAsync(d->values, h->values, (size_t)h->nnz * es, cudaMemcpyHostToDevice, s));
    else
      SPG_CUDA(cudaMemsetAsync(d->values, 0, (size_t)h->nnz * es, s));
  }
  SPG_CUDA(cudaStreamSynchronize(s));
done:
  if (st < 0) gcoo_cuda_csr_free(d);
  return st;
}

gcoo_status gcoo__dev_csr_upload(const gcoo_csr_view *h, gcoo_cuda_csr *d, void *stream) {
  return upload_csr(h, d, (cudaStream_t)stream, true);
}

gcoo_status gcoo__dev_csr_download(const gcoo_cuda_csr *d, gcoo_sparse *h, void *stream) {
  gcoo_status st = GCOO_SUCCESS;
  cudaStream_t s = (cudaStream_t)stream;
  const size_t es = gcoo_dtype_size(d->dtype);
  int64_t *ptr = nullptr;
  int32_t *ind = nullptr;
  void *val = nullptr;
  *h = nullptr;
  GCOO_GOTO(gcoo__malloc_n((void **)&ptr, d->nrows + 1, 8, "C row pointers"));
  GCOO_GOTO(gcoo__malloc_n((void **)&ind, d->nnz, 4, "C column indices"));
  GCOO_GOTO(gcoo__malloc_n(&val, d->nnz, es, "C values"));
  if (d->ptr) {
    SPG_CUDA(cudaMemcpyAsync(ptr, d->ptr, (size_t)(d->nrows + 1) * 8, cudaMemcpyDeviceToHost, s));
  } else {
    memset(ptr, 0, (size_t)(d->nrows + 1) * 8);
  }
  if (d->nnz) {
    SPG_CUDA(cudaMemcpyAsync(ind, d->ind, (size_t)d->nnz * 4, cudaMemcpyDeviceToHost, s));
    SPG_CUDA(cudaMemcpyAsync(val, d->values, (size_t)d->nnz * es, cudaMemcpyDeviceToHost, s));
  }
  SPG_CUDA(cudaStreamSynchronize(s));
  st = gcoo__sparse_adopt(h, GCOO_FORMAT_CSR, d->dtype, d->nrows, d->ncols, d->nnz, 0, ptr, ind,
                          nullptr, nullptr, nullptr, val);
  ptr = nullptr;
  ind = nullptr;
  val = nullptr;
done:
  free(ptr);
  free(ind);
  free(val);
  return st;
}

// The library's entry (gcoo_spgemm on a CUDA context): host objects in and out.
gcoo_status gcoo__spgemm_cuda(gcoo_ctx ctx, gcoo_sparse A, gcoo_sparse B,
                              const gcoo_spgemm_options *opts, gcoo_sparse *C,
                              gcoo_spgemm_info *info) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo__cuda_device_guard g = {0, 0};
  gcoo_sparse Ac = nullptr, Bc = nullptr, hC = nullptr;
  gcoo_sparse_info ai, bi;
  gcoo_csr_view va, vb;
  gcoo_cuda_csr dA, dB, dC;
  gcoo_spgemm_info local;
  cudaStream_t s = (cudaStream_t)ctx->stream;
  const double t0 = gcoo__wtime();
  memset(&dA, 0, sizeof dA);
  memset(&dB, 0, sizeof dB);
  memset(&dC, 0, sizeof dC);
  memset(&local, 0, sizeof local);
  *C = nullptr;
  GCOO_GOTO(gcoo__cuda_device_enter(ctx, &g));
  GCOO_GOTO(gcoo_sparse_get_info(A, &ai));
  GCOO_GOTO(gcoo_sparse_get_info(B, &bi));
  GCOO_CHECK_GOTO(ai.ncols == bi.nrows, GCOO_ERR_SHAPE,
                  "C = A B: A is %lld x %lld but B is %lld x %lld (inner dimensions differ)",
                  (long long)ai.nrows, (long long)ai.ncols, (long long)bi.nrows,
                  (long long)bi.ncols);
  GCOO_CHECK_GOTO(ai.dtype == bi.dtype, GCOO_ERR_DTYPE,
                  "C = A B: A is %s, B is %s (convert one with gcoo_sparse_astype)",
                  ai.dtype == GCOO_FLOAT64 ? "double" : "float",
                  bi.dtype == GCOO_FLOAT64 ? "double" : "float");
  if (ai.format != GCOO_FORMAT_CSR) GCOO_GOTO(gcoo_sparse_convert(&Ac, A, GCOO_FORMAT_CSR, 0));
  if (bi.format != GCOO_FORMAT_CSR) GCOO_GOTO(gcoo_sparse_convert(&Bc, B, GCOO_FORMAT_CSR, 0));
  GCOO_GOTO(gcoo__sparse_csr_view(Ac ? Ac : A, &va));
  GCOO_GOTO(gcoo__sparse_csr_view(Bc ? Bc : B, &vb));
  GCOO_GOTO(gcoo__dev_csr_upload(&va, &dA, s));
  GCOO_GOTO(gcoo__dev_csr_upload(&vb, &dB, s));
  if (opts->alg == GCOO_SPGEMM_AUTO || opts->alg == GCOO_SPGEMM_GCOO) {
    GCOO_GOTO(gcoo__cuda_spgemm_gcoo(ctx, &dA, &dB, opts, &dC, &hC, &local));
  } else {
    GCOO_GOTO(
        gcoo__cuda_spgemm_cusparse(ctx, opts->alg, &dA, &dB, opts->chunk_fraction, &dC, &local));
  }
  if (hC) {
    *C = hC;
    hC = nullptr;
  } else {
    GCOO_GOTO(gcoo__dev_csr_download(&dC, C, s));
  }
  local.seconds_total = gcoo__wtime() - t0;
  if (info) *info = local;
done:
  gcoo_cuda_csr_free(&dA);
  gcoo_cuda_csr_free(&dB);
  gcoo_cuda_csr_free(&dC);
  gcoo_sparse_destroy(&hC);
  gcoo_sparse_destroy(&Ac);
  gcoo_sparse_destroy(&Bc);
  gcoo__cuda_device_leave(&g);
  return st;
}

// The predictor on a CUDA context (host operands, host prediction; method CLASSES).
gcoo_status gcoo__predict_cuda(gcoo_ctx ctx, gcoo_sparse A, gcoo_sparse B,
                               const gcoo_predict_options *opts, gcoo_prediction *pred) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo__cuda_device_guard g = {0, 0};
  gcoo_sparse Ac = nullptr, Bc = nullptr, Bt = nullptr;
  gcoo_sparse_info ai, bi;
  gcoo_csr_view va, vb;
  gcoo_cuda_csr dA, dB;
  gcoo_predict_options o = GCOO_PREDICT_OPTIONS_INIT;
  cudaStream_t s = (cudaStream_t)ctx->stream;
  memset(&dA, 0, sizeof dA);
  memset(&dB, 0, sizeof dB);
  if (opts) o = *opts;
  GCOO_GOTO(gcoo__cuda_device_enter(ctx, &g));
  GCOO_GOTO(gcoo_sparse_get_info(A, &ai));
  GCOO_GOTO(gcoo_sparse_get_info(B, &bi));
  GCOO_CHECK_GOTO(ai.ncols == bi.nrows, GCOO_ERR_SHAPE,
                  "C = A B: A is %lld x %lld but B is %lld x %lld (inner dimensions differ)",
                  (long long)ai.nrows, (long long)ai.ncols, (long long)bi.nrows,
                  (long long)bi.ncols);
  if (ai.format != GCOO_FORMAT_CSR) GCOO_GOTO(gcoo_sparse_convert(&Ac, A, GCOO_FORMAT_CSR, 0));
  if (bi.dtype != ai.dtype) { /* only the pattern matters: one element type on the device */
    GCOO_GOTO(gcoo_sparse_astype(&Bt, B, ai.dtype));
    B = Bt;
    GCOO_GOTO(gcoo_sparse_get_info(B, &bi));
  }
  if (bi.format != GCOO_FORMAT_CSR) GCOO_GOTO(gcoo_sparse_convert(&Bc, B, GCOO_FORMAT_CSR, 0));
  GCOO_GOTO(gcoo__sparse_csr_view(Ac ? Ac : A, &va));
  GCOO_GOTO(gcoo__sparse_csr_view(Bc ? Bc : B, &vb));
  GCOO_GOTO(upload_csr(&va, &dA, s, false));
  GCOO_GOTO(upload_csr(&vb, &dB, s, false));
  GCOO_GOTO(gcoo__cuda_predict_gcoo(ctx, &dA, &dB, &o, pred));
done:
  gcoo_cuda_csr_free(&dA);
  gcoo_cuda_csr_free(&dB);
  gcoo_sparse_destroy(&Ac);
  gcoo_sparse_destroy(&Bc);
  gcoo_sparse_destroy(&Bt);
  gcoo__cuda_device_leave(&g);
  return st;
}

} // extern "C"
