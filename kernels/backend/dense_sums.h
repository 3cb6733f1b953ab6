/* SPDX-License-Identifier: MIT */
/* kernels/backend/dense_sums.h: gcoo_ctx_dense_sums's block sums on the GPU (kernels/backend/dense_sums.cu),
 * called by the CUDA backend's table with the context's device current. */
#ifndef GCOO_KERNELS_DENSE_SUMS_H
#define GCOO_KERNELS_DENSE_SUMS_H

#include <cuda_runtime_api.h>

#include "backend_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

/** part[2b], part[2b + 1] (host) = the sums of block b of device D's storage vectors, in the
 *  order of gcoo__dense_block_sum_* (src/backend_impl.h); on stream s, complete on return. */
gcoo_status gcoo__cuda_dense_block_sums(cudaStream_t s, const gcoo_dense *D, double *part);

#ifdef __cplusplus
}
#endif
#endif
