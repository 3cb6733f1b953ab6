// SPDX-License-Identifier: MIT
// tests/gpu/emu/emu_convert.cpp: the conversions of kernels/convert/ compiled for the CPU emulator
// (tests/common/cuda_emu.h), in one translation unit (their shared helpers are internal to it).
#include "convert/convert_dense.cu"
#include "convert/convert_gcoo.cu"
#include "convert/convert_layouts.cu"
