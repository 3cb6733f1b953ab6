// SPDX-License-Identifier: MIT
// tests/gpu/emu/emu_convert_cuda.cpp: kernels/convert_cuda.cu compiled for the CPU emulator (kernels/cuda_emu.h).
#include "convert_cuda.cu"
