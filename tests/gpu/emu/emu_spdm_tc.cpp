// SPDX-License-Identifier: MIT
// tests/gpu/emu/emu_spdm_tc.cpp: kernels/spdm/spdm_tc.cu compiled for the CPU emulator (tests/common/cuda_emu.h).
#include "spdm/spdm_tc.cu"
