/* SPDX-License-Identifier: MIT */
/* dist/dist_mem.c: buffers of dist/ that live where the caller's operands live (host memory, or
 * the rank's GPU through the CUDA runtime), and strided row copies between any two of them. */
#include <stdlib.h>
#include <string.h>

#include "dist_impl.h"

#if GCOO_HAVE_CUDA
gcoo_status gcoo__cuda_check(cudaError_t e, const char *file, int line, const char *func,
                             const char *expr) {
  if (e == cudaSuccess) return GCOO_SUCCESS;
  (void)cudaGetLastError(); /* clear a sticky-less error so later calls start clean */
  return gcoo__error(GCOO_ERR_CUDA, file, line, func, "%s failed: %s (%s)", expr,
                     cudaGetErrorString(e), cudaGetErrorName(e));
}
#endif

gcoo_status gcoo__dist_alloc(gcoo_memspace mem, size_t bytes, void **p, const char *what) {
  *p = NULL;
  if (mem == GCOO_MEM_HOST) {
    GCOO_CALL(gcoo__malloc(p, bytes, what));
    return GCOO_SUCCESS;
  }
#if GCOO_HAVE_CUDA
  cudaError_t e = cudaMalloc(p, bytes ? bytes : 1);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    *p = NULL;
    return GCOO_ERROR(e == cudaErrorMemoryAllocation ? GCOO_ERR_NO_MEMORY : GCOO_ERR_CUDA,
                      "cudaMalloc of %zu bytes for %s failed: %s", bytes, what,
                      cudaGetErrorString(e));
  }
  return GCOO_SUCCESS;
#else
  return GCOO_ERROR(GCOO_ERR_UNSUPPORTED, "device memory for %s: CUDA is not compiled in", what);
#endif
}

void gcoo__dist_free(gcoo_memspace mem, void *p) {
  if (!p) return;
  if (mem == GCOO_MEM_HOST) {
    free(p);
    return;
  }
#if GCOO_HAVE_CUDA
  (void)cudaFree(p);
#endif
}

gcoo_status gcoo__dist_copy_rows(void *dst, size_t dpitch, const void *src, size_t spitch,
                                 size_t rowbytes, int64_t nrows, gcoo_memspace dmem,
                                 gcoo_memspace smem, void *stream) {
  if (nrows <= 0 || rowbytes == 0) return GCOO_SUCCESS;
  if (dmem == GCOO_MEM_HOST && smem == GCOO_MEM_HOST) {
    if (dpitch == rowbytes && spitch == rowbytes) {
      memcpy(dst, src, rowbytes * (size_t)nrows);
    } else {
      for (int64_t i = 0; i < nrows; i++)
        memcpy((char *)dst + (size_t)i * dpitch, (const char *)src + (size_t)i * spitch, rowbytes);
    }
    return GCOO_SUCCESS;
  }
#if GCOO_HAVE_CUDA
  /* cudaMemcpyDefault: unified addressing tells the direction from the pointers */
  GCOO_CALL(GCOO_CUDA(cudaMemcpy2DAsync(dst, dpitch, src, spitch, rowbytes, (size_t)nrows,
                                        cudaMemcpyDefault, (cudaStream_t)stream)));
  return GCOO_SUCCESS;
#else
  (void)stream;
  return GCOO_ERROR(GCOO_ERR_UNSUPPORTED, "device copy: CUDA is not compiled in");
#endif
}
