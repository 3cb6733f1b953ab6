// SPDX-License-Identifier: MIT
// tests/gpu/emu/emu_spdm_tuned.cpp: kernels/spdm/spdm_tuned.cu compiled for the CPU emulator (tests/common/cuda_emu.h).
#include "spdm/spdm_tuned.cu"
