/* SPDX-License-Identifier: MIT */
/* kernels/backend/copy_staged.h: the CUDA backend's one copy of rows between host and device memory
 * (kernels/backend/copy_staged.c): large copies from or to pageable host memory are staged through
 * pinned chunks filled and emptied by the OpenMP threads, the others go to cudaMemcpy2DAsync. */
#ifndef GCOO_KERNELS_COPY_STAGED_H
#define GCOO_KERNELS_COPY_STAGED_H

#include "common/cuda_check.h"

#ifdef __cplusplus
extern "C" {
#endif

/** nrows rows of rowbytes bytes, from src (row r at src + r * spitch) to dst (dpitch), on stream
 *  s, in whichever direction the pointers say (unified addressing). A copy of at least
 *  gcoo__staged_min_bytes() between pageable host memory and the device is complete when the
 *  call returns (both directions); any other copy is ordered on s as cudaMemcpy2DAsync orders
 *  it. */
gcoo_status gcoo__cuda_copy_rows(void *dst, size_t dpitch, const void *src, size_t spitch,
                                 size_t rowbytes, int64_t nrows, cudaStream_t s);

/** The size from which pageable copies are staged: GCOO_STAGED_COPY_MIN_MB (MiB; 0 = never),
 *  else 256 MiB. Why 256: on the H200 (tests/gpu/t307) staged copies of 72-80 MB ran at
 *  2.2-4.5 GB/s including their pinned chunks' allocation, against 7.4-12.8 GB/s for the
 *  driver's own copy of 36 MB; only gcoo_dist's ~0.9 GB upload ran faster staged (set-up
 *  0.10-0.12 s against 0.20 s unstaged). Read once. */
size_t gcoo__staged_min_bytes(void);

#ifdef __cplusplus
}
#endif

#endif
