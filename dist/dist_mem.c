/* SPDX-License-Identifier: MIT */
/* dist/dist_mem.c: buffers of dist/ that live where the caller's operands live (host memory, or
 * the rank's GPU through the backend's device operations), and strided row copies between any
 * two of them. */
#include <stdlib.h>
#include <string.h>

#include "dist_impl.h"

/* The device side: the CUDA backend's device operations (gcoo/backend.h), NULL when CUDA is not
 * compiled in. */
static const gcoo_device_ops *device(void) { return gcoo__backend_cuda.device; }

gcoo_status gcoo__dist_alloc(gcoo_memspace mem, size_t bytes, void **p, const char *what) {
  *p = NULL;
  if (mem == GCOO_MEM_HOST) {
    GCOO_CALL(gcoo__malloc(p, bytes, what));
    return GCOO_SUCCESS;
  }
  GCOO_CHECK(device() != NULL, GCOO_ERR_UNSUPPORTED,
             "device memory for %s: CUDA is not compiled in", what);
  GCOO_CALL(device()->alloc(p, bytes, what));
  return GCOO_SUCCESS;
}

void gcoo__dist_free(gcoo_memspace mem, void *p) {
  if (!p) return;
  if (mem == GCOO_MEM_HOST) {
    free(p);
    return;
  }
  if (device()) device()->free(p);
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
  GCOO_CHECK(device() != NULL, GCOO_ERR_UNSUPPORTED, "device copy: CUDA is not compiled in");
  GCOO_CALL(device()->copy_rows(dst, dpitch, src, spitch, rowbytes, nrows, stream));
  return GCOO_SUCCESS;
}
