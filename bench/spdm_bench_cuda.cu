// SPDX-License-Identifier: MIT
// bench/spdm_bench_cuda.cu: the benchmark's delay before timed launches: the library's spin
// kernel (kernels/backend/cuda_spin.cu), so that the launches queued behind it run back to back.
#include <cuda_runtime.h>

#include "common/gcoo_kernels.h"

extern "C" void bench_delay(cudaStream_t s, double us); // declared in spdm_bench.h

extern "C" void bench_delay(cudaStream_t s, double us) { gcoo_cuda_spin(s, us); }
