// SPDX-License-Identifier: MIT
// tests/gpu/emu/emu_convert_cuda.cpp: kernels/convert/convert_cuda.cu compiled for the CPU emulator (tests/common/cuda_emu.h).
#include "convert/convert_cuda.cu"
