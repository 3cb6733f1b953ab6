// SPDX-License-Identifier: MIT
// tests/gpu/emu/emu_spdm_split.cpp: kernels/spdm/spdm_split.cu compiled for the CPU emulator (tests/common/cuda_emu.h).
#include "spdm/spdm_split.cu"
