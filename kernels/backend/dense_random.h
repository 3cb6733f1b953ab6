/* SPDX-License-Identifier: MIT */
/* kernels/backend/dense_random.h: gcoo_ctx_dense_fill_random_rows on the GPU (kernels/backend/dense_random.cu),
 * called by the CUDA backend's table with the context's device current. */
#ifndef GCOO_KERNELS_DENSE_RANDOM_H
#define GCOO_KERNELS_DENSE_RANDOM_H

#include <cuda_runtime_api.h>

#include "backend_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Rows [row0, row0 + D->nrows) of gcoo_dense_fill_random_rows(seed)'s matrix into the device
 *  matrix D (either layout, float or double), bit for bit the host's values, on stream s. */
gcoo_status gcoo__cuda_fill_random_rows(cudaStream_t s, gcoo_dense *D, uint64_t seed, int64_t row0);

#ifdef __cplusplus
}
#endif
#endif
