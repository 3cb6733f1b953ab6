/* SPDX-License-Identifier: MIT */
/* kernels/copy_staged.h: the CUDA backend's one copy of rows between host and device memory
 * (kernels/copy_staged.c): large copies from or to pageable host memory are staged through
 * pinned chunks filled and emptied by the OpenMP threads, the others go to cudaMemcpy2DAsync. */
#ifndef GCOO_KERNELS_COPY_STAGED_H
#define GCOO_KERNELS_COPY_STAGED_H

#include "cuda_check.h"

#ifdef __cplusplus
extern "C" {
#endif

/** nrows rows of rowbytes bytes, from src (row r at src + r * spitch) to dst (dpitch), on stream
 *  s, in whichever direction the pointers say (unified addressing). A copy of at least
 *  GCOO__STAGED_MIN_BYTES between pageable host memory and the device is complete when the call
 *  returns (both directions); any other copy is ordered on s as cudaMemcpy2DAsync orders it. */
gcoo_status gcoo__cuda_copy_rows(void *dst, size_t dpitch, const void *src, size_t spitch,
                                 size_t rowbytes, int64_t nrows, cudaStream_t s);

enum { GCOO__STAGED_MIN_BYTES = 32 << 20 };

#ifdef __cplusplus
}
#endif

#endif
