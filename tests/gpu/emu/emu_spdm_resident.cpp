// SPDX-License-Identifier: MIT
// tests/gpu/emu/emu_spdm_resident.cpp: kernels/spdm_resident.cu compiled for the CPU emulator (kernels/cuda_emu.h).
#include "spdm_resident.cu"
