// SPDX-License-Identifier: MIT
// kernels/backend/cuda_spin.cu: a kernel that holds a stream for a while (nvbench's "blocking kernel"):
// launches queued behind it then run back to back, so per-launch CUDA events measure the GPU,
// not the host's enqueue rate. AUTO's plan-time trial (kernels/spdm/op_trial.c) and the SpDM
// benchmark (bench/spdm_bench_cuda.cu) time with it.
#include <cuda_runtime.h>

#include "common/gcoo_kernels.h"

namespace {
__global__ void spin_kernel(unsigned long long ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}
} // namespace

extern "C" void gcoo_cuda_spin(void *stream, double us) {
  if (us <= 0) return;
  spin_kernel<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>((unsigned long long)(us * 1000.0));
  (void)cudaGetLastError(); // a failed spin only costs accuracy; the timed launches check
}
