/* SPDX-License-Identifier: MIT */
/* src/backend_cuda_stub.c: stands in for the CUDA backend in builds without CUDA, so asking for
 * it gives a clear error instead of a link failure (libCEED's weak-backend pattern). */
#include "backend_impl.h"

static gcoo_status not_compiled(gcoo_ctx ctx, int device) {
  (void)ctx;
  (void)device;
  return GCOO_ERROR(GCOO_ERR_UNSUPPORTED,
                    "the CUDA backend is not compiled into this gcoo (rebuild with a CUDA "
                    "compiler and -DGCOO_ENABLE_CUDA=ON), use the cpu backend");
}

const gcoo_backend_ops gcoo__backend_cuda = {.name = "cuda", .ctx_init = not_compiled};

int gcoo_cuda_device_count(void) { return 0; }
