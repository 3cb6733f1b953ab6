// SPDX-License-Identifier: MIT
// tests/common/cuda_emu.h: a small CPU emulator for gcoo's own CUDA kernels, so that their indexing,
// tails and barriers run (and are tested) on machines without a GPU.
//
// Only for tests: a kernel source compiled as C++ with -DGCOO_CUDA_EMULATE includes this header
// (through cuda_compat.h) instead of the CUDA runtime. Each thread of a block is a fiber with its
// own stack; the block's fibers share its dynamic shared memory and meet at __syncthreads(), so
// a missing barrier (a fiber reads a chunk another has not staged yet: the 0xff fill shows up as
// NaN), an out-of-range index or an unwritten output shows up as a wrong result (or a sanitizer
// report), not as silence. What it does not model: warps (the emulated kernels use no shuffles
// or votes, except those below), memory ordering beyond the barrier, timing, and true
// concurrency (fibers switch only at barriers, so races the barriers do not order are left to
// compute-sanitizer on the GPU). Warp collectives (shuffles, ballots, __match_any_sync,
// __syncwarp, __syncthreads_count) are modelled by a warp barrier over the mask's lanes: each
// lane posts its value, waits until every live lane of the mask has arrived with the same mask,
// reads, and waits again; so a kernel whose lanes of a mask reach different collectives hangs
// here as it would misbehave on the GPU, and a shuffle or vote whose lanes arrive from
// different source lines (a lane skipped one) is reported and aborts. Runtime calls the kernel files make are mapped to host versions below; device memory is
// host memory.
#ifndef GCOO_CUDA_EMU_H
#define GCOO_CUDA_EMU_H

#ifndef GCOO_CUDA_EMULATE
#error "cuda_emu.h is only for emulated builds (define GCOO_CUDA_EMULATE)"
#endif

#include <driver_types.h>
#include <vector_functions.h>
#include <vector_types.h>

#include <ucontext.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <type_traits>
#include <vector>

namespace gcoo_emu {

struct ThreadState {
  uint3 tid, bid;
  dim3 bdim, gdim;
  unsigned char *smem;
};

// One CUDA thread of the block being run: a fiber (ucontext) with its own stack.
struct Fiber {
  ucontext_t ctx;
  char *stack = nullptr; // from stack_pool(): kept for the whole program
  bool done = false, waiting = false;
  uint32_t wmask = 0; // waiting at a warp barrier over these lanes (0: not)
  ThreadState st;
};

// The block being run: its fibers, the scheduler's context, and the barrier's count.
struct Block {
  ucontext_t main;
  std::vector<Fiber> fibers;
  Fiber *current = nullptr;
  int alive = 0, waiting = 0;
  std::function<void()> body;
  std::vector<uint64_t> post; // a lane's value posted for a warp collective (by thread)
  std::vector<int> site;      // the source line of the lane's warp collective (0: not known)
  std::vector<uint32_t> mma;  // a lane's mma fragments, posted (mma_m16n8k8_tf32)
};

// Most mma n-tiles one emulated mma_m16n8k8_tf32 call takes (a lane posts 4 + 2 of them values).
constexpr int kMmaMaxTiles = 16;

inline thread_local Block *block_ = nullptr;
// The source line of the warp collective being called (set by the macros at the end of the
// collectives' section, read and cleared when the lane posts; fibers switch only at barriers).
inline thread_local int site_ = 0;

// Fiber stacks, allocated once (not zeroed: untouched pages cost nothing) and reused by every
// launch; about 256 KiB each, enough for the kernels also under AddressSanitizer.
constexpr size_t kStackBytes = 256 * 1024;
struct StackPool {
  std::vector<char *> stacks;
  ~StackPool() {
    for (char *p : stacks) std::free(p);
  }
};
inline char *stack_pool(unsigned i) {
  static StackPool pool; // emulated launches come from one host thread (the tests')
  while (pool.stacks.size() <= i)
    pool.stacks.push_back(static_cast<char *>(std::malloc(kStackBytes)));
  return pool.stacks[i];
}
inline thread_local ThreadState *state_ = nullptr;

inline cudaError_t &last_error() {
  static thread_local cudaError_t e = cudaSuccess;
  return e;
}

// __syncthreads(): park this fiber until every live fiber of the block has arrived. A fiber that
// returned from the kernel no longer counts (like an exited thread on sm_70+).
inline void sync_block() {
  Block &b = *block_;
  Fiber *f = b.current;
  f->waiting = true;
  b.waiting++;
  swapcontext(&f->ctx, &b.main);
}

// A warp barrier over the lanes of `mask` (the caller's lane among them): park this fiber until
// every live lane of the mask waits with the same mask (the scheduler opens it).
inline void sync_warp(uint32_t mask) {
  Block &b = *block_;
  Fiber *f = b.current;
  f->wmask = mask | (1u << ((unsigned)(f - b.fibers.data()) % 32));
  swapcontext(&f->ctx, &b.main);
}

// Open the warp barriers whose lanes have all arrived (a lane that returned counts as arrived).
inline bool open_warp_barriers(Block &b) {
  bool opened = false;
  const size_t n = b.fibers.size();
  for (size_t t = 0; t < n; t++) {
    const uint32_t m = b.fibers[t].wmask;
    if (!m) continue;
    const size_t w0 = t - t % 32;
    bool all = true;
    for (unsigned l = 0; l < 32 && all; l++)
      if ((m >> l) & 1u) {
        const size_t u = w0 + l;
        all = u >= n || b.fibers[u].done || b.fibers[u].wmask == m;
      }
    if (!all) continue;
    for (unsigned l = 0; l < 32; l++)
      if (((m >> l) & 1u) && w0 + l < n) b.fibers[w0 + l].wmask = 0;
    opened = true;
  }
  return opened;
}

inline void fiber_entry() {
  Block &b = *block_;
  b.body();
  b.current->done = true;
  b.alive--;
  // returning resumes uc_link, the scheduler
}

// Run kernel(args...) over grid x block with `smem` bytes of dynamic shared memory.
// Blocks run one after another; the threads of a block are fibers on the calling thread,
// scheduled round-robin: each runs until it reaches a barrier or returns; when all live ones
// wait, the barrier opens. Deterministic, and cheap enough for tests. Shared memory starts each
// block filled with 0xff bytes (NaN for floats, -1 for integers), so a read of a slot nobody
// wrote is visible in the results.
template <typename... P, typename... A>
void launch(void (*kernel)(P...), dim3 grid, dim3 block, size_t smem, A &&...args) {
  const unsigned nthreads = block.x * block.y * block.z;
  if (nthreads == 0 || nthreads > 1024 || grid.x == 0 || grid.y == 0 || grid.z == 0 ||
      grid.y > 65535 || grid.z > 65535 || smem > 227 * 1024) {
    last_error() = cudaErrorInvalidConfiguration;
    return;
  }
  std::vector<unsigned char> shared(smem + 16);
  Block b;
  b.fibers.resize(nthreads);
  b.post.assign(nthreads, 0);
  b.site.assign(nthreads, 0);
  b.mma.assign((size_t)nthreads * (4 + 2 * kMmaMaxTiles), 0);
  for (unsigned t = 0; t < nthreads; t++) b.fibers[t].stack = stack_pool(t);
  b.body = [&] { kernel(args...); };
  Block *outer_block = block_;
  ThreadState *outer_state = state_;
  block_ = &b;
  const uint64_t nblocks = (uint64_t)grid.x * grid.y * grid.z;
  for (uint64_t bi = 0; bi < nblocks; bi++) {
    std::fill(shared.begin(), shared.end(), (unsigned char)0xff);
    const uint3 bid = make_uint3((unsigned)(bi % grid.x), (unsigned)((bi / grid.x) % grid.y),
                                 (unsigned)(bi / ((uint64_t)grid.x * grid.y)));
    for (unsigned t = 0; t < nthreads; t++) {
      Fiber &f = b.fibers[t];
      f.done = f.waiting = false;
      f.wmask = 0;
      f.st.tid = make_uint3(t % block.x, (t / block.x) % block.y, t / (block.x * block.y));
      f.st.bid = bid;
      f.st.bdim = block;
      f.st.gdim = grid;
      f.st.smem = shared.data();
      getcontext(&f.ctx);
      f.ctx.uc_stack.ss_sp = f.stack;
      f.ctx.uc_stack.ss_size = kStackBytes;
      f.ctx.uc_link = &b.main;
      makecontext(&f.ctx, fiber_entry, 0);
    }
    b.alive = (int)nthreads;
    b.waiting = 0;
    while (b.alive > 0) {
      bool ran = false;
      for (unsigned t = 0; t < nthreads; t++) {
        Fiber &f = b.fibers[t];
        if (f.done || f.waiting || f.wmask) continue;
        b.current = &f;
        state_ = &f.st;
        ran = true;
        swapcontext(&b.main, &f.ctx);
      }
      if (open_warp_barriers(b)) continue;
      if (!ran && b.alive > 0 && b.waiting < b.alive) { // lanes of a mask at different places
        std::fprintf(stderr, "cuda_emu: warp collective deadlock (a mask's lanes diverged)\n");
        std::abort();
      }
      if (b.alive > 0 && b.waiting >= b.alive) { // everyone left is at the barrier: open it
        for (auto &f : b.fibers) f.waiting = false;
        b.waiting = 0;
      }
    }
  }
  block_ = outer_block;
  state_ = outer_state;
}

} // namespace gcoo_emu

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
#define threadIdx (gcoo_emu::state_->tid)
#define blockIdx (gcoo_emu::state_->bid)
#define blockDim (gcoo_emu::state_->bdim)
#define gridDim (gcoo_emu::state_->gdim)
#define __syncthreads() gcoo_emu::sync_block()
#define GCOO_EMU_SMEM() (gcoo_emu::state_->smem)

template <typename T>
inline T __ldg(const T *p) {
  return *p;
}
inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) {
  return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}
inline unsigned long long atomicMax(unsigned long long *p, unsigned long long v) {
  unsigned long long old = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (old < v &&
         !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  return old;
}
inline int atomicAdd(int *p, int v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
inline unsigned atomicAdd(unsigned *p, unsigned v) {
  return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}
// fibers switch only at barriers: a read-modify-write of a float is not interrupted
inline float atomicAdd(float *p, float v) {
  const float o = *p;
  *p = o + v;
  return o;
}
inline double atomicAdd(double *p, double v) {
  const double o = *p;
  *p = o + v;
  return o;
}
inline int atomicCAS(int *p, int cmp, int v) {
  __atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return cmp;
}
inline unsigned atomicMax(unsigned *p, unsigned v) {
  const unsigned o = *p;
  if (v > o) *p = v;
  return o;
}
inline int __popc(unsigned v) { return __builtin_popcount(v); }
inline int __ffs(unsigned v) { return __builtin_ffs((int)v); }
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline long min(long a, long b) { return a < b ? a : b; }
inline long max(long a, long b) { return a > b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dmul_rn(double a, double b) { return a * b; }

// ---- warp collectives (a warp barrier over the mask's lanes; see the banner) -----------------
namespace gcoo_emu {
inline unsigned self_index() {
  const ThreadState &s = *state_;
  return s.tid.x + s.bdim.x * (s.tid.y + s.bdim.y * s.tid.z);
}
// Post this lane's collective site (site_, then cleared).
inline void post_site() {
  block_->site[self_index()] = site_;
  site_ = 0;
}
// After the first barrier of a shuffle or vote: every live lane of the mask must be at the same
// call (the same source line). The warp barrier alone pairs any collectives of one mask, so a
// lane that skipped one (e.g. behind a short-circuit ||) would silently pair the next one with
// the others' and desynchronise them; on the GPU that reads registers of lanes that are not
// there (garbage indices: f9f6b57's first bin, s5). __syncwarp at different places is legal on
// sm_70+ and is not checked on its own, but a __syncwarp met by a shuffle or vote is reported.
inline void check_sites(uint32_t mask) {
  const Block &b = *block_;
  const unsigned me = self_index(), w0 = me - me % 32;
  const int mine = b.site[me];
  for (unsigned l = 0; l < 32; l++) {
    const unsigned u = w0 + l;
    if (!((mask >> l) & 1u) || u >= b.site.size() || b.fibers[u].done) continue;
    const int other = b.site[u];
    if (mine != 0 && other != 0 && other != mine) {
      std::fprintf(stderr,
                   "cuda_emu: lanes %u and %u of mask 0x%08x are at different warp collectives "
                   "(lines %d and %d): a collective under a condition that is not uniform over "
                   "its mask\n",
                   me % 32, l, mask, mine, other);
      std::abort();
    }
  }
}
// Post v, meet the mask's lanes, return what lane `src` (of this warp) posted.
template <typename V>
V exchange(uint32_t mask, V v, unsigned src) {
  static_assert(sizeof(V) <= 8, "a register");
  Block &b = *block_;
  const unsigned me = self_index(), w0 = me - me % 32;
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof v);
  b.post[me] = bits;
  post_site();
  sync_warp(mask);
  check_sites(mask);
  V r = v;
  if (w0 + src < b.post.size()) std::memcpy(&r, &b.post[w0 + src], sizeof r);
  sync_warp(mask); // nobody posts again before every lane has read
  return r;
}
// The mask's posted predicates (or values equal to this lane's) as a lane mask.
template <typename P>
uint32_t vote(uint32_t mask, P v, bool equal) {
  Block &b = *block_;
  const unsigned me = self_index(), w0 = me - me % 32;
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof v);
  if (!equal) bits = bits != 0;
  b.post[me] = bits;
  post_site();
  sync_warp(mask);
  check_sites(mask);
  uint32_t r = 0;
  for (unsigned l = 0; l < 32; l++)
    if (((mask >> l) & 1u) && w0 + l < b.post.size() && !b.fibers[w0 + l].done &&
        (equal ? b.post[w0 + l] == bits : b.post[w0 + l] != 0))
      r |= 1u << l;
  sync_warp(mask);
  return r;
}
} // namespace gcoo_emu
inline unsigned emu_lane_() { return gcoo_emu::self_index() % 32; }
template <typename V>
V __shfl_sync(unsigned mask, V v, int src, int width = 32) {
  const unsigned l = emu_lane_();
  return gcoo_emu::exchange(mask, v, (l - l % (unsigned)width) + (unsigned)src % (unsigned)width);
}
template <typename V>
V __shfl_up_sync(unsigned mask, V v, unsigned d, int width = 32) {
  const unsigned l = emu_lane_();
  return gcoo_emu::exchange(mask, v, l % (unsigned)width >= d ? l - d : l);
}
template <typename V>
V __shfl_down_sync(unsigned mask, V v, unsigned d, int width = 32) {
  const unsigned l = emu_lane_();
  return gcoo_emu::exchange(mask, v, l % (unsigned)width + d < (unsigned)width ? l + d : l);
}
template <typename V>
V __shfl_xor_sync(unsigned mask, V v, int x, int width = 32) {
  const unsigned l = emu_lane_(), s = l ^ (unsigned)x;
  return gcoo_emu::exchange(mask, v, s / (unsigned)width == l / (unsigned)width ? s : l);
}
inline unsigned __ballot_sync(unsigned mask, int p) { return gcoo_emu::vote(mask, p, false); }
template <typename V>
unsigned __match_any_sync(unsigned mask, V v) {
  return gcoo_emu::vote(mask, v, true);
}
inline void __syncwarp(unsigned mask = 0xffffffffu) {
  gcoo_emu::post_site();
  gcoo_emu::sync_warp(mask);
}
// Each collective notes its source line first (gcoo_emu::check_sites); a macro does not expand
// inside its own expansion, so these call the functions above.
#define GCOO_EMU_AT_ (gcoo_emu::site_ = __LINE__)
#define __shfl_sync(...) (GCOO_EMU_AT_, __shfl_sync(__VA_ARGS__))
#define __shfl_up_sync(...) (GCOO_EMU_AT_, __shfl_up_sync(__VA_ARGS__))
#define __shfl_down_sync(...) (GCOO_EMU_AT_, __shfl_down_sync(__VA_ARGS__))
#define __shfl_xor_sync(...) (GCOO_EMU_AT_, __shfl_xor_sync(__VA_ARGS__))
#define __ballot_sync(...) (GCOO_EMU_AT_, __ballot_sync(__VA_ARGS__))
#define __match_any_sync(...) (GCOO_EMU_AT_, __match_any_sync(__VA_ARGS__))
#define __syncwarp(...) (GCOO_EMU_AT_, __syncwarp(__VA_ARGS__))
// The number of the block's threads with p != 0 (a barrier, twice: post, count, release).
inline int __syncthreads_count(int p) {
  gcoo_emu::Block &b = *gcoo_emu::block_;
  const unsigned me = gcoo_emu::self_index();
  b.post[me] = p != 0;
  gcoo_emu::sync_block();
  int c = 0;
  for (size_t t = 0; t < b.post.size(); t++) c += !b.fibers[t].done && b.post[t] != 0;
  gcoo_emu::sync_block();
  return c;
}

// ---- TF32 rounding (kernels/spdm/spdm_tc.cu): nvcuda::wmma::__float_to_tf32 and the mma's reading -
// __float_to_tf32 rounds to nearest, ties away (cvt.rna.tf32.f32); the mma reads only the TF32
// bits of its inputs (the low 13 mantissa bits ignored), multiplies exactly and adds in FP32
// (the tensor core's own adder order and rounding differ slightly: the error bound of
// docs/kernels.md, "The tensor-core mode" covers both).
namespace nvcuda {
namespace wmma {
inline float tf32_bits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  b &= 0xffffe000u;
  std::memcpy(&v, &b, 4);
  return v;
}
inline float __float_to_tf32(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  if ((b & 0x7f800000u) != 0x7f800000u) b = (b + 0x1000u) & 0xffffe000u; // finite: round
  std::memcpy(&v, &b, 4);
  return v;
}
} // namespace wmma
} // namespace nvcuda

// ---- mma.sync m16n8k8 TF32 (kernels/spdm/spdm_tc.cu): the PTX fragment layout, lane by lane ------
// Lane l = 4 g + t holds A's a0..a3 = (g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4), each
// n-tile's B b0, b1 = (t, g), (t + 4, g) and its accumulator c0..c3 = (g, 2t), (g, 2t + 1),
// (g + 8, 2t), (g + 8, 2t + 1). Every lane posts its fragments, the warp meets, each lane
// computes its own accumulators from the posted ones (TF32 bits only, exact products, FP32
// sums), and the warp meets again before anyone posts the next. All 32 lanes must take part,
// as on the GPU.
namespace gcoo_emu {
inline void mma_m16n8k8_tf32(float *acc, const uint32_t *a, const uint32_t *b, int ntiles) {
  Block &blk = *block_;
  const unsigned me = self_index(), w0 = me - me % 32, lane = me % 32;
  constexpr size_t per = 4 + 2 * kMmaMaxTiles;
  if (ntiles > kMmaMaxTiles || blk.mma.size() < blk.fibers.size() * per) std::abort();
  uint32_t *mine = blk.mma.data() + me * per;
  for (int i = 0; i < 4; i++) mine[i] = a[i];
  for (int i = 0; i < 2 * ntiles; i++) mine[4 + i] = b[i];
  post_site();
  sync_warp(0xffffffffu);
  check_sites(0xffffffffu);
  auto val = [&](unsigned l, int i) {
    float v;
    std::memcpy(&v, blk.mma.data() + (w0 + l) * per + i, 4);
    return nvcuda::wmma::tf32_bits(v);
  };
  const unsigned g = lane / 4, t = lane % 4;
  float out[4 * kMmaMaxTiles];
  for (int j = 0; j < ntiles; j++)
    for (int h = 0; h < 4; h++) {
      const unsigned row = g + 8 * (h / 2), col = 2 * t + h % 2;
      float s = acc[4 * j + h];
      for (unsigned k = 0; k < 8; k++)
        s += val((row % 8) * 4 + k % 4, (int)(row / 8 + 2 * (k / 4))) *
             val(col * 4 + k % 4, 4 + 2 * j + (int)(k / 4));
      out[4 * j + h] = s;
    }
  sync_warp(0xffffffffu); // nobody posts again before every lane has read
  std::memcpy(acc, out, sizeof(float) * 4 * (size_t)ntiles);
}
} // namespace gcoo_emu

// ---- runtime calls used by the kernel files (host memory stands in for device memory) --------
namespace gcoo_emu {
inline cudaError_t GetLastError() {
  cudaError_t e = last_error();
  last_error() = cudaSuccess;
  return e;
}
inline cudaError_t PeekAtLastError() { return last_error(); }
inline const char *GetErrorString(cudaError_t e) {
  return e == cudaSuccess ? "no error" : "emulated error";
}
inline const char *GetErrorName(cudaError_t e) {
  return e == cudaSuccess ? "cudaSuccess" : "cudaErrorEmulated";
}
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
inline cudaError_t Memset2DAsync(void *p, size_t pitch, int v, size_t w, size_t h,
                                 cudaStream_t = 0) {
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
} // namespace gcoo_emu

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
#define cudaOccupancyMaxActiveBlocksPerMultiprocessor \
  gcoo_emu::OccupancyMaxActiveBlocksPerMultiprocessor
#define cudaFuncSetAttribute gcoo_emu::FuncSetAttribute

#endif
