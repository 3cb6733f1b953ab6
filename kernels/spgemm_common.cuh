// SPDX-License-Identifier: MIT
// kernels/spgemm_common.cuh: what the CUDA SpGEMM files share: status checks for CUDA and
// cuSPARSE calls (message with the call and the error's name), and device allocations that are
// counted so that a call can report its peak memory.
#ifndef GCOO_KERNELS_SPGEMM_COMMON_CUH
#define GCOO_KERNELS_SPGEMM_COMMON_CUH

#include <cuda_runtime.h>

#include "spgemm_cuda.h"

#define SPG_CUDA(x)                                                                            \
  do {                                                                                         \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                   \
      (void)cudaGetLastError();                                                                \
      st = GCOO_ERROR(e_ == cudaErrorMemoryAllocation ? GCOO_ERR_NO_MEMORY : GCOO_ERR_CUDA,    \
                      "CUDA %s (%s) in %s", cudaGetErrorName(e_), cudaGetErrorString(e_), #x); \
      goto done;                                                                               \
    }                                                                                          \
  } while (0)

// After a kernel launch: a bad configuration is reported here, execution errors at the next sync.
#define SPG_LAUNCHED(what) SPG_CUDA(cudaGetLastError())

// Blocking copy ordered on stream s (a plain cudaMemcpy would not wait for a non-blocking stream).
#define SPG_COPY(dst, src, bytes, kind)                                   \
  do {                                                                    \
    SPG_CUDA(cudaMemcpyAsync((dst), (src), (size_t)(bytes), (kind), s));  \
    SPG_CUDA(cudaStreamSynchronize(s));                                   \
  } while (0)

// Device memory owned by one call: live and peak bytes of what it allocated.
struct spg_mem {
  int64_t live = 0, peak = 0;
};

static inline cudaError_t spg_malloc(spg_mem *m, void **p, int64_t bytes) {
  *p = nullptr;
  if (bytes <= 0) return cudaSuccess;
  cudaError_t e = cudaMalloc(p, (size_t)bytes);
  if (e == cudaSuccess) {
    m->live += bytes;
    if (m->live > m->peak) m->peak = m->live;
  }
  return e;
}

static inline void spg_free(spg_mem *m, void *p, int64_t bytes) {
  if (!p) return;
  cudaFree(p);
  m->live -= bytes;
}

#endif
