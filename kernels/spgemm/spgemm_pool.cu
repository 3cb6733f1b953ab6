// SPDX-License-Identifier: MIT
// kernels/spgemm/spgemm_pool.cu: the stream-ordered pool SpGEMM's temporaries come from, how much
// it keeps between calls, and the device's free memory the product budgets with.
#include <cstring>
#include <mutex>

#include "spgemm_common.cuh"

#include "params.h"

// SpGEMM's own stream-ordered pool, one per device, keeps what a call freed for the next call (no
// cudaMalloc per call); after each call it is trimmed back to pool_keep() bytes: an eighth of
// the device's memory (17.6 GiB of an H200), so that the next product of a similar size maps no
// new memory (keeping 256 MiB cost the 2-D Laplacian 1.24x and random 400k x 16 1.12-1.14x on an
// H200: its 1.2 GB buffer and C were mapped afresh by every call), and the rest stays free for
// others. GCOO_SPGEMM_POOL_KEEP_MB=N sets it (0: keep nothing). The pool is gcoo's, not the
// device's default pool: an application's own cudaMallocAsync keeps the release policy it set
// (setting the default pool's threshold would change it for everyone in the process). It lives as
// long as the process, as a cached library handle does; where it cannot be created, the default
// pool serves, untouched.
static size_t device_total_bytes() {
  static size_t total[16];
  int d = 0;
  if (cudaGetDevice(&d) != cudaSuccess || d < 0 || d >= 16) {
    (void)cudaGetLastError();
    return 0;
  }
  if (total[d] == 0) {
    size_t f = 0, t = 0;
    if (cudaMemGetInfo(&f, &t) == cudaSuccess)
      total[d] = t;
    else
      (void)cudaGetLastError();
  }
  return total[d];
}
static size_t pool_keep() {
  const int64_t mb = gcoo__param_int(GCOO__P_SPGEMM_POOL_KEEP_MB);
  if (mb >= 0) return (size_t)mb << 20;
  const size_t eighth = device_total_bytes() / 8;
  return eighth > ((size_t)256 << 20) ? eighth : (size_t)256 << 20;
}
// The current device's pool (created at its first use, never released before the trim), or
// nullptr: the default pool.
cudaMemPool_t spg_pool() {
  static std::mutex lock;
  static cudaMemPool_t pools[16];
  int d = 0;
  if (cudaGetDevice(&d) != cudaSuccess || d < 0 || d >= 16) {
    (void)cudaGetLastError();
    return nullptr;
  }
  std::lock_guard<std::mutex> hold(lock);
  if (!pools[d]) {
    cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = d;
    cudaMemPool_t pool = nullptr;
    if (cudaMemPoolCreate(&pool, &props) == cudaSuccess) {
      uint64_t thr = UINT64_MAX; // released only by spg_pool_trim
      if (cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &thr) == cudaSuccess)
        pools[d] = pool;
      else
        (void)cudaMemPoolDestroy(pool);
    }
  }
  (void)cudaGetLastError();
  return pools[d];
}
void spg_pool_trim(cudaStream_t s, cudaMemPool_t pool) {
  cudaStreamSynchronize(s);
  if (pool) cudaMemPoolTrimTo(pool, pool_keep());
  (void)cudaGetLastError();
}

int64_t spg_pooled_output_bytes() { return (int64_t)(pool_keep() / 4); }

extern "C" int64_t gcoo__cuda_free_bytes(void) {
  size_t f = 0, t = 0;
  if (cudaMemGetInfo(&f, &t) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return (int64_t)f;
}
