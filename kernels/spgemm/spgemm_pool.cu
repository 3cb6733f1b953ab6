// SPDX-License-Identifier: MIT
// kernels/spgemm/spgemm_pool.cu: the context's stream-ordered pool that SpGEMM's temporaries come
// from, how much it keeps between calls, and the device's free memory the product budgets with.
#include <cstring>

#include "backend/backend_cuda_impl.h"
#include "spgemm_common.cuh"

#include "params.h"

// SpGEMM's own stream-ordered pool, one per context (on its device), keeps what a call freed for
// the next call (no cudaMalloc per call); after each call it is trimmed back to pool_keep() bytes:
// an eighth of
// the device's memory (17.6 GiB of an H200), so that the next product of a similar size maps no
// new memory (keeping 256 MiB cost the 2-D Laplacian 1.24x and random 400k x 16 1.12-1.14x on an
// H200: its 1.2 GB buffer and C were mapped afresh by every call), and the rest stays free for
// others. GCOO_SPGEMM_POOL_KEEP_MB=N sets it (0: keep nothing). The pool is gcoo's, not the
// device's default pool: an application's own cudaMallocAsync keeps the release policy it set
// (setting the default pool's threshold would change it for everyone in the process). The context
// owns it: made at its first product, released with it (gcoo__cuda_spgemm_pool_free, from the
// backend's ctx_fini); where it cannot be created, the default pool serves, untouched. Used, like
// everything of a context, by one thread at a time.

// What the pool keeps between calls on a device of total_bytes.
static size_t pool_keep(size_t total_bytes) {
  const int64_t mb = gcoo__param_int(GCOO__P_SPGEMM_POOL_KEEP_MB);
  if (mb >= 0) return (size_t)mb << 20;
  const size_t eighth = total_bytes / 8;
  return eighth > ((size_t)256 << 20) ? eighth : (size_t)256 << 20;
}

void spg_pool_use(gcoo_ctx ctx, spg_mem *m) {
  cuda_ctx_state *c = gcoo__cuda_ctx(ctx);
  if (!c->spgemm_pool_tried) { // the context's first product, on its device (current here)
    c->spgemm_pool_tried = 1;
    cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = ctx->device;
    cudaMemPool_t pool = nullptr;
    if (cudaMemPoolCreate(&pool, &props) == cudaSuccess) {
      uint64_t thr = UINT64_MAX; // released only by spg_pool_trim
      if (cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &thr) == cudaSuccess)
        c->spgemm_pool = pool;
      else
        (void)cudaMemPoolDestroy(pool);
    }
    (void)cudaGetLastError();
  }
  m->pool = c->spgemm_pool;
  m->keep = pool_keep(c->dev.global_bytes);
  m->pooled_max = (int64_t)(m->keep / 4);
}

void spg_pool_trim(const spg_mem *m) {
  cudaStreamSynchronize(m->stream);
  if (m->pool) cudaMemPoolTrimTo(m->pool, m->keep);
  (void)cudaGetLastError();
}

extern "C" void gcoo__cuda_spgemm_pool_free(cuda_ctx_state *c) {
  if (c->spgemm_pool) (void)cudaMemPoolDestroy(c->spgemm_pool); // (deferred while C is held)
  (void)cudaGetLastError();
  c->spgemm_pool = nullptr;
  c->spgemm_pool_tried = 0;
}

extern "C" int64_t gcoo__cuda_free_bytes(void) {
  size_t f = 0, t = 0;
  if (cudaMemGetInfo(&f, &t) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return (int64_t)f;
}
