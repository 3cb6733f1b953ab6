// SPDX-License-Identifier: MIT
// kernels/spgemm_common.cuh: what the CUDA SpGEMM files share: the project's CUDA checker
// (kernels/cuda_check.h) under short names, and device allocations that are counted so that a
// call can report its peak memory: plain cudaMalloc for what is handed to the caller, the
// device's stream-ordered pool (cudaMallocAsync) for a call's temporaries.
#ifndef GCOO_KERNELS_SPGEMM_COMMON_CUH
#define GCOO_KERNELS_SPGEMM_COMMON_CUH

#include <cuda_runtime.h>

#include "cuda_check.h"
#include "spgemm_cuda.h"

#define SPG_CUDA(x) GCOO_CALL_CUDA_GOTO(x)
#define SPG_LAUNCHED(what) GCOO_CHECK_LAUNCH_GOTO(what)

// Device memory owned by one call: live and peak bytes of what it allocated.
struct spg_mem {
  int64_t live = 0, peak = 0;
  cudaStream_t stream = nullptr; // for the pool
  cudaMemPool_t pool = nullptr;  // gcoo's own pool (kernels/spgemm.cu), else the device's default
};

// Count an allocation that succeeded (e == cudaSuccess) in m.
static inline cudaError_t spg_counted(spg_mem *m, cudaError_t e, int64_t bytes) {
  if (e == cudaSuccess) {
    m->live += bytes;
    if (m->live > m->peak) m->peak = m->live;
  }
  return e;
}

// What is handed to the caller (plain cudaMalloc: the caller frees it with cudaFree).
static inline cudaError_t spg_malloc(spg_mem *m, void **p, int64_t bytes) {
  *p = nullptr;
  return bytes <= 0 ? cudaSuccess : spg_counted(m, cudaMalloc(p, (size_t)bytes), bytes);
}

static inline void spg_free(spg_mem *m, void *p, int64_t bytes) {
  if (!p) return;
  cudaFree(p);
  m->live -= bytes;
}

// Temporaries from the stream-ordered pool (freed in stream order: no device synchronisation):
// m->pool where set, the device's default pool otherwise.
static inline cudaError_t spg_tmp_malloc(spg_mem *m, void **p, int64_t bytes) {
  *p = nullptr;
  if (bytes <= 0) return cudaSuccess;
  return spg_counted(m,
                     m->pool ? cudaMallocFromPoolAsync(p, (size_t)bytes, m->pool, m->stream)
                             : cudaMallocAsync(p, (size_t)bytes, m->stream),
                     bytes);
}

static inline void spg_tmp_free(spg_mem *m, void *p, int64_t bytes) {
  if (!p) return;
  cudaFreeAsync(p, m->stream);
  m->live -= bytes;
}

#endif
