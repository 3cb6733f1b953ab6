/* SPDX-License-Identifier: MIT */
/* dist/dist_mem.c: buffers of dist/ that live where the caller's operands live (host memory, or
 * the rank's GPU through its context: the context's allocator and device operations), and strided
 * row copies between any two of them. */
#include <stdlib.h>
#include <string.h>

#include "dist_impl.h"

gcoo_status gcoo__dist_alloc(gcoo_ctx ctx, gcoo_memspace mem, size_t bytes, void **p,
                             const char *what) {
  *p = NULL;
  if (mem == GCOO_MEM_HOST) {
    GCOO_CALL(gcoo__malloc(p, bytes, what));
    return GCOO_SUCCESS;
  }
  GCOO_CHECK(ctx != NULL && ctx->ops->mem_alloc != NULL, GCOO_ERR_UNSUPPORTED,
             "device memory for %s: the %s backend has no device", what,
             ctx ? ctx->ops->name : "(no context)");
  GCOO_CALL(ctx->ops->mem_alloc(ctx, p, bytes, what));
  return GCOO_SUCCESS;
}

void gcoo__dist_free(gcoo_ctx ctx, gcoo_memspace mem, void *p) {
  if (!p) return;
  if (mem == GCOO_MEM_HOST) {
    free(p);
    return;
  }
  if (ctx && ctx->ops->mem_free) (void)ctx->ops->mem_free(ctx, p); /* nothing to report to */
}

gcoo_status gcoo__dist_copy_rows(gcoo_ctx ctx, void *dst, size_t dpitch, const void *src,
                                 size_t spitch, size_t rowbytes, int64_t nrows, gcoo_memspace dmem,
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
  const gcoo_device_ops *dev = ctx ? ctx->ops->device : NULL;
  GCOO_CHECK(dev != NULL, GCOO_ERR_UNSUPPORTED, "device copy: the %s backend has no device",
             ctx ? ctx->ops->name : "(no context)");
  GCOO_CALL(dev->copy_rows(dst, dpitch, src, spitch, rowbytes, nrows, stream));
  return GCOO_SUCCESS;
}
