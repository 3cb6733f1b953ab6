/* SPDX-License-Identifier: MIT */
/* tests/gpu/emu/emu_host_csr.h: the emulated kernel tests' (t309, t505) "device" CSR of a host
 * matrix: its own arrays, since device memory is host memory under tests/common/cuda_emu.h. */
#ifndef GCOO_TESTS_EMU_HOST_CSR_H
#define GCOO_TESTS_EMU_HOST_CSR_H

#include "common/gcoo_kernels.h"
#include "gcoo_test.h"

static inline gcoo_cuda_csr emu_host_csr(gcoo_sparse A) {
  gcoo_sparse_info ai;
  gcoo_sparse_arrays a;
  TEST_CALL(gcoo_sparse_get_info(A, &ai));
  TEST_CALL(gcoo_sparse_get_arrays(A, &a));
  gcoo_cuda_csr d = {ai.dtype,         ai.nrows,         ai.ncols,        ai.nnz,
                     (int64_t *)a.ptr, (int32_t *)a.ind, (void *)a.values};
  return d;
}

#endif
