// SPDX-License-Identifier: MIT
// tests/gpu/emu/emu_spdm_faithful.cpp: kernels/spdm_faithful.cu compiled for the CPU emulator (kernels/cuda_emu.h).
#include "spdm_faithful.cu"
