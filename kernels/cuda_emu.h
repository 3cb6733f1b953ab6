// SPDX-License-Identifier: MIT
// kernels/cuda_emu.h: a small CPU emulator for gcoo's own CUDA kernels, so that their indexing,
// tails and barriers run (and are tested) on machines without a GPU.
//
// Only for tests: a kernel source compiled as C++ with -DGCOO_CUDA_EMULATE includes this header
// (through cuda_compat.h) instead of the CUDA runtime. Each block is run by blockDim.x host
// threads that share the block's dynamic shared memory and meet at __syncthreads() on a real
// barrier, so a missing or misplaced barrier, an out-of-range index or an unwritten output shows
// up as a wrong result (or a sanitizer report), not as silence. What it does not model: warps
// (no shuffles or warp votes are used by the emulated kernels), memory ordering beyond the
// barrier, and timing. Runtime calls the kernel files make are mapped to host versions below;
// device memory is host memory. Blocks run one after another; threads of a block run at once.
#ifndef GCOO_CUDA_EMU_H
#define GCOO_CUDA_EMU_H

#ifndef GCOO_CUDA_EMULATE
#error "cuda_emu.h is only for emulated builds (define GCOO_CUDA_EMULATE)"
#endif

#include <driver_types.h>
#include <vector_functions.h>
#include <vector_types.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

namespace gcoo_emu {

// A barrier whose party count can shrink: a thread that leaves the kernel "drops" out, like an
// exited thread on sm_70+, so barriers after an early return still complete.
class Barrier {
 public:
  explicit Barrier(int n) : count_(n), waiting_(0), generation_(0) {}
  void wait() {
    std::unique_lock<std::mutex> lk(m_);
    const unsigned gen = generation_;
    if (++waiting_ >= count_) {
      release();
      return;
    }
    cv_.wait(lk, [&] { return gen != generation_; });
  }
  void reset(int n) {
    std::unique_lock<std::mutex> lk(m_);
    count_ = n;
    waiting_ = 0;
  }
  void drop() {
    std::unique_lock<std::mutex> lk(m_);
    --count_;
    if (waiting_ > 0 && waiting_ >= count_) release();
  }

 private:
  void release() {
    waiting_ = 0;
    ++generation_;
    cv_.notify_all();
  }
  std::mutex m_;
  std::condition_variable cv_;
  int count_, waiting_;
  unsigned generation_;
};

struct ThreadState {
  uint3 tid, bid;
  dim3 bdim, gdim;
  unsigned char *smem;
  Barrier *bar;
};
inline thread_local ThreadState state;

inline cudaError_t &last_error() {
  static thread_local cudaError_t e = cudaSuccess;
  return e;
}

// Run kernel(args...) over grid x block with `smem` bytes of dynamic shared memory.
// blockDim.x host threads are started once per launch and walk the blocks together: a thread
// that returns from the kernel drops out of the block's barrier, then all meet at a pool barrier
// before the next block starts (so shared memory is never reused while a thread still runs).
// Shared memory starts each block filled with 0xff bytes (NaN for floats, -1 for integers), so
// a read of a slot nobody wrote is visible in the results.
template <typename... P, typename... A>
void launch(void (*kernel)(P...), dim3 grid, dim3 block, size_t smem, A &&...args) {
  const unsigned nthreads = block.x * block.y * block.z;
  if (nthreads == 0 || nthreads > 1024 || grid.x == 0 || grid.y == 0 || grid.z == 0 ||
      grid.y > 65535 || grid.z > 65535 || smem > 227 * 1024) {
    last_error() = cudaErrorInvalidConfiguration;
    return;
  }
  std::vector<unsigned char> shared(smem + 16, (unsigned char)0xff);
  Barrier bar((int)nthreads), pool((int)nthreads);
  const uint64_t nblocks = (uint64_t)grid.x * grid.y * grid.z;
  auto worker = [&](unsigned t) {
    for (uint64_t b = 0; b < nblocks; b++) {
      state.tid = make_uint3(t % block.x, (t / block.x) % block.y, t / (block.x * block.y));
      state.bid = make_uint3((unsigned)(b % grid.x), (unsigned)((b / grid.x) % grid.y),
                             (unsigned)(b / ((uint64_t)grid.x * grid.y)));
      state.bdim = block;
      state.gdim = grid;
      state.smem = shared.data();
      state.bar = &bar;
      kernel(args...);
      bar.drop();
      pool.wait();
      if (t == 0) {
        bar.reset((int)nthreads);
        std::fill(shared.begin(), shared.end(), (unsigned char)0xff);
      }
      pool.wait();
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(nthreads);
  for (unsigned t = 0; t < nthreads; t++) threads.emplace_back(worker, t);
  for (auto &th : threads) th.join();
}

}  // namespace gcoo_emu

// ---- the CUDA language, as far as gcoo's kernels use it ------------------------------------
#undef __global__
#undef __device__
#undef __host__
#undef __forceinline__
#undef __launch_bounds__
#undef __restrict__
#undef __shared__
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __restrict__ __restrict
// Blocks run one after another, so a function-static array is exactly one block's __shared__.
#define __shared__ static
#define threadIdx (gcoo_emu::state.tid)
#define blockIdx (gcoo_emu::state.bid)
#define blockDim (gcoo_emu::state.bdim)
#define gridDim (gcoo_emu::state.gdim)
#define __syncthreads() gcoo_emu::state.bar->wait()
#define GCOO_EMU_SMEM() (gcoo_emu::state.smem)

template <typename T>
inline T __ldg(const T *p) {
  return *p;
}
inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) {
  return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}
inline unsigned long long atomicMax(unsigned long long *p, unsigned long long v) {
  unsigned long long old = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (old < v && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  return old;
}

// ---- runtime calls used by the kernel files (host memory stands in for device memory) --------
namespace gcoo_emu {
inline cudaError_t GetLastError() {
  cudaError_t e = last_error();
  last_error() = cudaSuccess;
  return e;
}
inline cudaError_t PeekAtLastError() { return last_error(); }
inline const char *GetErrorString(cudaError_t e) { return e == cudaSuccess ? "no error" : "emulated error"; }
inline const char *GetErrorName(cudaError_t e) { return e == cudaSuccess ? "cudaSuccess" : "cudaErrorEmulated"; }
inline cudaError_t Malloc(void **p, size_t n) {
  *p = std::malloc(n ? n : 1);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
inline cudaError_t MallocAsync(void **p, size_t n, cudaStream_t) { return Malloc(p, n); }
inline cudaError_t Free(void *p) {
  std::free(p);
  return cudaSuccess;
}
inline cudaError_t FreeAsync(void *p, cudaStream_t) { return Free(p); }
inline cudaError_t MemsetAsync(void *p, int v, size_t n, cudaStream_t = 0) {
  std::memset(p, v, n);
  return cudaSuccess;
}
inline cudaError_t Memset2DAsync(void *p, size_t pitch, int v, size_t w, size_t h, cudaStream_t = 0) {
  for (size_t r = 0; r < h; r++) std::memset((char *)p + r * pitch, v, w);
  return cudaSuccess;
}
inline cudaError_t MemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind, cudaStream_t = 0) {
  std::memmove(d, s, n);
  return cudaSuccess;
}
inline cudaError_t StreamSynchronize(cudaStream_t) { return cudaSuccess; }
inline cudaError_t MemGetInfo(size_t *free_b, size_t *total) {
  *free_b = *total = (size_t)1 << 34;
  return cudaSuccess;
}
template <typename K>
inline cudaError_t OccupancyMaxActiveBlocksPerMultiprocessor(int *n, K, int threads, size_t) {
  *n = threads > 0 ? std::max(1, 1024 / threads) : 0;
  return cudaSuccess;
}
template <typename K>
inline cudaError_t FuncSetAttribute(K, cudaFuncAttribute, int) {
  return cudaSuccess;
}
}  // namespace gcoo_emu

#define cudaGetLastError gcoo_emu::GetLastError
#define cudaPeekAtLastError gcoo_emu::PeekAtLastError
#define cudaGetErrorString gcoo_emu::GetErrorString
#define cudaGetErrorName gcoo_emu::GetErrorName
#define cudaMalloc gcoo_emu::Malloc
#define cudaMallocAsync gcoo_emu::MallocAsync
#define cudaFree gcoo_emu::Free
#define cudaFreeAsync gcoo_emu::FreeAsync
#define cudaMemsetAsync gcoo_emu::MemsetAsync
#define cudaMemset2DAsync gcoo_emu::Memset2DAsync
#define cudaMemcpyAsync gcoo_emu::MemcpyAsync
#define cudaStreamSynchronize gcoo_emu::StreamSynchronize
#define cudaMemGetInfo gcoo_emu::MemGetInfo
#define cudaOccupancyMaxActiveBlocksPerMultiprocessor gcoo_emu::OccupancyMaxActiveBlocksPerMultiprocessor
#define cudaFuncSetAttribute gcoo_emu::FuncSetAttribute

#endif
