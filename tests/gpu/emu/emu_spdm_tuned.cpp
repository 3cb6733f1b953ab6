// SPDX-License-Identifier: MIT
// tests/gpu/emu/emu_spdm_tuned.cpp: kernels/spdm_tuned.cu compiled for the CPU emulator (kernels/cuda_emu.h).
#include "spdm_tuned.cu"
