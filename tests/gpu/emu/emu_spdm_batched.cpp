// SPDX-License-Identifier: MIT
// tests/gpu/emu/emu_spdm_batched.cpp: kernels/spdm/spdm_batched.cu compiled for the CPU emulator (tests/common/cuda_emu.h).
#include "spdm/spdm_batched.cu"
