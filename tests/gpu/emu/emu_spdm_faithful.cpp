// SPDX-License-Identifier: MIT
// tests/gpu/emu/emu_spdm_faithful.cpp: kernels/spdm/spdm_faithful.cu compiled for the CPU emulator (tests/common/cuda_emu.h).
#include "spdm/spdm_faithful.cu"
