/* SPDX-License-Identifier: MIT */
/* kernels/backend/dense_random.cu: the random dense operands of gcoo_dense_fill_random_rows made on the
 * GPU, so that a generated X never exists on the host: gcoo_dist spdm's 4.1M x 32 operand took
 * 0.12 s to make on an H200 node's host and 0.11 s to upload.
 * One thread per row runs that row's own stream with the host's own functions
 * (gcoo__dense_row_rng / gcoo__dense_row_next of src/backend_impl.h, compiled for both sides):
 * integer arithmetic, an exact conversion of 53 bits to double and 2u - 1 (exact as well), then
 * the rounding to the element type that gcoo_dense_set does, so the values are the host's, bit
 * for bit (tests/gpu/t307 compares them). */
#include "common/cuda_check.h"
#include "dense_random.h"

template <typename T>
__global__ void fill_rows(T *data, int64_t ld, int rowmajor, int64_t nrows, int64_t ncols,
                          uint64_t seed, int64_t row0) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nrows) return;
  gcoo_rng r;
  gcoo__dense_row_rng(&r, seed, row0 + i);
  for (int64_t j = 0; j < ncols; j++)
    data[rowmajor ? i * ld + j : j * ld + i] = (T)gcoo__dense_row_next(&r);
}

extern "C" gcoo_status gcoo__cuda_fill_random_rows(cudaStream_t s, gcoo_dense *D, uint64_t seed,
                                                   int64_t row0) {
  if (D->nrows == 0 || D->ncols == 0) return GCOO_SUCCESS;
  const int threads = 256;
  const int64_t blocks = (D->nrows + threads - 1) / threads;
  GCOO_CHECK(blocks <= INT32_MAX, GCOO_ERR_UNSUPPORTED, "%lld rows are too many for one launch",
             (long long)D->nrows);
  const int rowmajor = D->layout == GCOO_ROW_MAJOR;
  if (D->dtype == GCOO_FLOAT64)
    fill_rows<double><<<(unsigned)blocks, threads, 0, s>>>((double *)D->data, D->ld, rowmajor,
                                                           D->nrows, D->ncols, seed, row0);
  else
    fill_rows<float><<<(unsigned)blocks, threads, 0, s>>>((float *)D->data, D->ld, rowmajor,
                                                          D->nrows, D->ncols, seed, row0);
  GCOO_CHECK_LAUNCH("fill_rows");
  return GCOO_SUCCESS;
}
