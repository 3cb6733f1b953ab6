// SPDX-License-Identifier: MIT
// tests/gpu/emu/emu_spdm_resident.cpp: kernels/spdm/spdm_resident.cu compiled for the CPU emulator (tests/common/cuda_emu.h).
#include "spdm/spdm_resident.cu"
