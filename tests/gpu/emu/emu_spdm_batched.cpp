// SPDX-License-Identifier: MIT
// tests/gpu/emu/emu_spdm_batched.cpp: kernels/spdm_batched.cu compiled for the CPU emulator (kernels/cuda_emu.h).
#include "spdm_batched.cu"
