// SPDX-License-Identifier: MIT
// bench/spdm_bench_cuda.cu: a kernel that holds the stream for a while (nvbench's "blocking
// kernel" idea): the timed launches queue up behind it and then run back to back, so per-launch
// CUDA events measure the GPU, not the host's enqueue rate.
#include <cuda_runtime.h>

extern "C" void bench_delay(cudaStream_t s, double us); // declared in spdm_bench.h

namespace {
__global__ void spin_kernel(unsigned long long ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}
} // namespace

extern "C" void bench_delay(cudaStream_t s, double us) {
  if (us <= 0) return;
  spin_kernel<<<1, 1, 0, s>>>((unsigned long long)(us * 1000.0));
  (void)cudaGetLastError(); // a failed delay only costs accuracy; the timed launches check
}
