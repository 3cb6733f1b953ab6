// SPDX-License-Identifier: MIT
// kernels/spgemm/spgemm_common.cuh: what the CUDA SpGEMM files share: the project's CUDA checker
// (kernels/common/cuda_check.h) under short names, and device allocations, through the one
// allocator, that are counted so that a call can report its peak memory: cudaMalloc or the pool
// for what is handed to the caller, the context's stream-ordered pool for a call's temporaries.
#ifndef GCOO_KERNELS_SPGEMM_COMMON_CUH
#define GCOO_KERNELS_SPGEMM_COMMON_CUH

#include <cuda_runtime.h>

#include "common/cuda_check.h"
#include "spgemm_cuda.h"

#define SPG_CUDA(x) GCOO_CALL_CUDA_GOTO(x)
#define SPG_LAUNCHED(what) GCOO_CHECK_LAUNCH_GOTO(what)

// Device memory owned by one call: live and peak bytes of what it allocated, all of it through
// the one allocator (kernels/common/cuda_check.h).
struct spg_mem {
  int64_t live = 0, peak = 0;
  cudaStream_t stream = nullptr; // for the pool
  cudaMemPool_t pool = nullptr;  // the context's SpGEMM pool (spg_pool_use), else the default
  size_t keep = 0;               // what the pool keeps between calls (spg_pool_trim)
  int64_t pooled_max = 0;        // the largest output taken from the pool (out_mem)
};

// Count an allocation that succeeded in m.
static inline gcoo_status spg_counted(spg_mem *m, gcoo_status st, int64_t bytes) {
  if (st >= 0) {
    m->live += bytes;
    if (m->live > m->peak) m->peak = m->live;
  }
  return st;
}

// What is handed to the caller (cudaMalloc: the caller frees it with cudaFree); none for 0 bytes.
static inline gcoo_status spg_malloc(spg_mem *m, void **p, int64_t bytes) {
  *p = nullptr;
  return bytes <= 0 ? GCOO_SUCCESS
                    : spg_counted(m, gcoo__cuda_alloc(p, (size_t)bytes, "SpGEMM output"), bytes);
}

static inline void spg_free(spg_mem *m, void *p, int64_t bytes) {
  if (!p) return;
  cudaFree(p);
  m->live -= bytes;
}

// Temporaries, stream-ordered (freed in stream order: no device synchronisation): from m->pool
// where set, the device's default pool otherwise; none for 0 bytes.
static inline gcoo_status spg_tmp_malloc(spg_mem *m, void **p, int64_t bytes) {
  *p = nullptr;
  if (bytes <= 0) return GCOO_SUCCESS;
  return spg_counted(m,
                     gcoo__cuda_alloc_at(p, (size_t)bytes, "SpGEMM temporaries", m->stream, 1,
                                         m->pool, __FILE__, __LINE__, __func__),
                     bytes);
}

static inline void spg_tmp_free(spg_mem *m, void *p, int64_t bytes) {
  if (!p) return;
  cudaFreeAsync(p, m->stream);
  m->live -= bytes;
}

// The stream-ordered pool that SpGEMM's temporaries (gcoo's and cuSPARSE's buffers alike) come
// from: the context's own (made at its first product on its device, released with it;
// kernels/spgemm/spgemm_pool.cu says why and how much it keeps), into m with what it keeps and
// the largest output it serves; no pool (the device's default serves, untouched) where it
// cannot be created.
void spg_pool_use(gcoo_ctx ctx, spg_mem *m);
// After a call: wait for m's stream, then trim the pool back to what it keeps between calls.
void spg_pool_trim(const spg_mem *m);

// C's arrays, handed to the caller (who frees them with cudaFree): from the stream-ordered pool
// when they are small (three cudaMalloc took 72-134 us of a 0.33 ms product, on its critical
// path), cudaMalloc'd otherwise (a large C is not kept in the pool after the caller frees it).
// cudaFree takes either; it does not wait for pool memory, and the product has synchronised its
// stream before it returns.
struct out_mem {
  spg_mem *mem;
  bool pooled;
  gcoo_status alloc(void **p, int64_t bytes) const {
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
