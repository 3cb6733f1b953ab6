// SPDX-License-Identifier: MIT
// kernels/spgemm/spgemm_common.cuh: what the CUDA SpGEMM files share: the project's CUDA checker
// (kernels/common/cuda_check.h) under short names, and device allocations that are counted so that a
// call can report its peak memory: plain cudaMalloc or the pool for what is handed to the caller,
// SpGEMM's stream-ordered pool for a call's temporaries.
#ifndef GCOO_KERNELS_SPGEMM_COMMON_CUH
#define GCOO_KERNELS_SPGEMM_COMMON_CUH

#include <cuda_runtime.h>

#include "common/cuda_check.h"
#include "spgemm_cuda.h"

#define SPG_CUDA(x) GCOO_CALL_CUDA_GOTO(x)
#define SPG_LAUNCHED(what) GCOO_CHECK_LAUNCH_GOTO(what)

// Device memory owned by one call: live and peak bytes of what it allocated.
struct spg_mem {
  int64_t live = 0, peak = 0;
  cudaStream_t stream = nullptr; // for the pool
  cudaMemPool_t
      pool = nullptr; // gcoo's own pool (kernels/spgemm/spgemm.cu), else the device's default
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

// The stream-ordered pool that SpGEMM's temporaries (gcoo's and cuSPARSE's buffers alike) come
// from: one per device, gcoo's own (kernels/spgemm/spgemm.cu says why and how much it keeps), nullptr
// where it cannot be created (then the device's default pool serves, untouched).
cudaMemPool_t spg_pool();
// After a call: wait for stream s, then trim the pool back to what it keeps between calls.
void spg_pool_trim(cudaStream_t s, cudaMemPool_t pool);
// The largest output (C's three arrays) taken from the pool: a quarter of what it keeps.
int64_t spg_pooled_output_bytes();

// C's arrays, handed to the caller (who frees them with cudaFree): from the stream-ordered pool
// when they are small (three cudaMalloc took 72-134 us of a 0.33 ms product, on its critical
// path), cudaMalloc'd otherwise (a large C is not kept in the pool after the caller frees it).
// cudaFree takes either; it does not wait for pool memory, and the product has synchronised its
// stream before it returns.
struct out_mem {
  spg_mem *mem;
  bool pooled;
  cudaError_t alloc(void **p, int64_t bytes) const {
    return pooled ? spg_tmp_malloc(mem, p, bytes) : spg_malloc(mem, p, bytes);
  }
  void release(void *p, int64_t bytes) const { // stream-ordered for pool memory
    if (pooled)
      spg_tmp_free(mem, p, bytes);
    else
      spg_free(mem, p, bytes);
  }
};

#endif
