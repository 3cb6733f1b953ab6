// SPDX-License-Identifier: MIT
// tests/gpu/emu/emu_spdm_tc.cpp: kernels/spdm_tc.cu compiled for the CPU emulator (kernels/cuda_emu.h).
#include "spdm_tc.cu"
