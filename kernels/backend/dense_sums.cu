/* SPDX-License-Identifier: MIT */
/* kernels/backend/dense_sums.cu: the sums of a device dense matrix (gcoo_ctx_dense_sums) without copying
 * it back: gcoo_dist spdm reports the sum and the absolute sum of Y, and copying its 4.1M x 32
 * product to the host for them took ~0.15 s on an H200 node.
 * One thread per block of GCOO_DENSE_SUM_BLOCK storage vectors runs the host's own loop
 * (gcoo__dense_block_sum_*, src/backend_impl.h, compiled for both sides), so each block's sums
 * are the host's bit for bit; the 16 bytes per block come back and src/blas.c adds them in
 * order, as on the host. The loop is sequential by definition (that is what makes it the
 * host's); 16k threads for a 4.1M-row Y read its 525 MB in a few milliseconds. */
#include "common/cuda_check.h"
#include "dense_sums.h"

static __device__ inline void sum_block(const float *d, int64_t ld, int64_t len, int64_t v0,
                                        int64_t v1, double *part) {
  gcoo__dense_block_sum_f32(d, ld, len, v0, v1, &part[0], &part[1]);
}
static __device__ inline void sum_block(const double *d, int64_t ld, int64_t len, int64_t v0,
                                        int64_t v1, double *part) {
  gcoo__dense_block_sum_f64(d, ld, len, v0, v1, &part[0], &part[1]);
}

template <typename T>
__global__ void block_sums(const T *d, int64_t ld, int64_t len, int64_t nvec, int64_t nb,
                           double *part) {
  const int64_t b = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= nb) return;
  int64_t v0, v1;
  gcoo__dense_sum_block(b, nvec, &v0, &v1);
  sum_block(d, ld, len, v0, v1, &part[2 * b]);
}

extern "C" gcoo_status gcoo__cuda_dense_block_sums(cudaStream_t s, const gcoo_dense *D,
                                                   double *part) {
  int64_t nvec, len;
  const int64_t nb = gcoo__dense_sum_blocks(D, &nvec, &len);
  if (nb == 0 || len == 0) return GCOO_SUCCESS;
  const int threads = 128;
  const int64_t blocks = (nb + threads - 1) / threads;
  GCOO_CHECK(blocks <= INT32_MAX, GCOO_ERR_UNSUPPORTED, "%lld vectors are too many for one launch",
             (long long)nvec);
  gcoo_status st = GCOO_SUCCESS;
  double *dpart = NULL;
  const size_t bytes = (size_t)nb * 2 * sizeof(double);
  GCOO_CALL(gcoo__cuda_alloc_async(&dpart, bytes, "dense block sums", s));
  if (D->dtype == GCOO_FLOAT64)
    block_sums<double>
        <<<(unsigned)blocks, threads, 0, s>>>((const double *)D->data, D->ld, len, nvec, nb, dpart);
  else
    block_sums<float>
        <<<(unsigned)blocks, threads, 0, s>>>((const float *)D->data, D->ld, len, nvec, nb, dpart);
  st = gcoo__cuda_status(cudaGetLastError(), "block_sums", __FILE__, __LINE__, __func__);
  if (st >= 0)
    st = gcoo__cuda_status(cudaMemcpyAsync(part, dpart, bytes, cudaMemcpyDeviceToHost, s),
                           "cudaMemcpyAsync", __FILE__, __LINE__, __func__);
  cudaError_t e = cudaFreeAsync(dpart, s);
  if (st >= 0) st = gcoo__cuda_status(e, "cudaFreeAsync", __FILE__, __LINE__, __func__);
  cudaError_t w = cudaStreamSynchronize(s);
  if (st >= 0) st = gcoo__cuda_status(w, "cudaStreamSynchronize", __FILE__, __LINE__, __func__);
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}
