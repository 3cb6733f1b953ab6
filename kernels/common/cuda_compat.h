// SPDX-License-Identifier: MIT
// kernels/common/cuda_compat.h: the few spellings that differ between a real CUDA build of gcoo's
// kernel files and their CPU-emulated build (tests/gpu/t309-kernels-emulated): how a kernel is
// launched and where its dynamic shared memory is. Kernel files include this first.
#ifndef GCOO_CUDA_COMPAT_H
#define GCOO_CUDA_COMPAT_H

#ifdef GCOO_CUDA_EMULATE
#include "cuda_emu.h"
#include "emu_rename.h"
/** Launch a kernel (a function or a pointer to one) on a stream. */
#define GCOO_LAUNCH(kernel, grid, block, smem, stream, ...) \
  ((void)(stream), gcoo_emu::launch((kernel), (grid), (block), (smem), __VA_ARGS__))
/** Pointer of type T* to the block's dynamic shared memory (16-byte aligned). */
#define GCOO_DYNAMIC_SMEM(T, name) T *name = reinterpret_cast<T *>(GCOO_EMU_SMEM())
#else
#include <cuda_runtime.h>
#define GCOO_LAUNCH(kernel, grid, block, smem, stream, ...) \
  (kernel)<<<(grid), (block), (smem), (stream)>>>(__VA_ARGS__)
#define GCOO_DYNAMIC_SMEM(T, name)                            \
  extern __shared__ __align__(16) unsigned char gcoo_smem_[]; \
  T *name = reinterpret_cast<T *>(gcoo_smem_)
#endif

#endif
