// SPDX-License-Identifier: MIT
// tests/gpu/emu/emu_spdm_split.cpp: kernels/spdm_split.cu compiled for the CPU emulator (kernels/cuda_emu.h).
#include "spdm_split.cu"
