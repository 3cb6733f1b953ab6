/* SPDX-License-Identifier: MIT */
/* kernels/backend/cublas_lazy.h: cuBLAS, opened at its first use instead of at the program's start.
 *
 * libcublas.so pulls in libcublasLt.so (540 MB); the dynamic loader's relocation of the two
 * reads about 280 MB of them before main(): with a cold page cache `gcoo_dist --version` took
 * 1.27 s instead of 0.37 s on the CPU machine, and a cold spdm job 2.58 s instead of 2.33 s on
 * the H200 VM (docs/datapath.md, "Start-up"). Only the dense products (kernels/spdm/spdm_dense.c) and the
 * block operations of gcoo/blas.h (the solver's) call cuBLAS, so libgcoo is not linked with it:
 * the first of those loads the library by its versioned name (libcublas.so.<CUBLAS_VER_MAJOR>,
 * the major version of the headers it was built with) and every call goes through gcoo__cublas.
 * A job that never calls cuBLAS never maps it.
 *
 * The table's fields have the exact types of the header's declarations (typeof, and a check in
 * cublas_lazy.c), so a call through it is checked by the compiler as a direct call would be. The
 * fields are set only when gcoo__cublas_load() succeeded; a handle exists only after that, so
 * code holding a cublasHandle_t may call through the table without looking. */
#ifndef GCOO_CUBLAS_LAZY_H
#define GCOO_CUBLAS_LAZY_H

#include <cublas_v2.h>

#include "backend_impl.h"

#ifdef __cplusplus
#define GCOO_TYPEOF_(x) decltype(x)
extern "C" {
#else
#define GCOO_TYPEOF_(x) __typeof__(x)
#endif

/* C++ sees two cublasGemmEx (cublas_api.h adds an inline one taking a cudaDataType compute type
 * for old code), so its type is written out; cublas_lazy.c checks, in C, that it is the type of
 * the exported function. */
typedef cublasStatus_t gcoo__cublas_gemm_ex_fn(cublasHandle_t, cublasOperation_t, cublasOperation_t,
                                               int, int, int, const void *, const void *,
                                               cudaDataType, int, const void *, cudaDataType, int,
                                               const void *, void *, cudaDataType, int,
                                               cublasComputeType_t, cublasGemmAlgo_t);

/* Every cuBLAS function gcoo calls: X(field, exported symbol, function type). One list for the
 * table's fields, the symbols looked up and the type checks (cublas_v2.h maps cublasCreate and a
 * few others to their _v2 symbols; the list names the symbols). */
#define GCOO_CUBLAS_FUNCTIONS(X)                                           \
  X(Create, cublasCreate_v2, GCOO_TYPEOF_(cublasCreate_v2))                \
  X(Destroy, cublasDestroy_v2, GCOO_TYPEOF_(cublasDestroy_v2))             \
  X(SetStream, cublasSetStream_v2, GCOO_TYPEOF_(cublasSetStream_v2))       \
  X(SetMathMode, cublasSetMathMode, GCOO_TYPEOF_(cublasSetMathMode))       \
  X(GemmEx, cublasGemmEx, gcoo__cublas_gemm_ex_fn)                         \
  X(GemmEx_64, cublasGemmEx_64, GCOO_TYPEOF_(cublasGemmEx_64))             \
  X(Sdgmm, cublasSdgmm, GCOO_TYPEOF_(cublasSdgmm))                         \
  X(Ddgmm, cublasDdgmm, GCOO_TYPEOF_(cublasDdgmm))                         \
  X(GetStatusName, cublasGetStatusName, GCOO_TYPEOF_(cublasGetStatusName)) \
  X(GetStatusString, cublasGetStatusString, GCOO_TYPEOF_(cublasGetStatusString))

typedef struct gcoo__cublas_api {
#define GCOO_CUBLAS_FIELD_(field, symbol, type) type *field;
  GCOO_CUBLAS_FUNCTIONS(GCOO_CUBLAS_FIELD_)
#undef GCOO_CUBLAS_FIELD_
} gcoo__cublas_api;

/** The loaded functions (all NULL until gcoo__cublas_load succeeds). */
extern gcoo__cublas_api gcoo__cublas;

/** Loads cuBLAS once per process (thread-safe; later calls return at once). Fails with
 *  GCOO_ERR_CUBLAS naming the library, the directories tried and the loader's reason when it is
 *  missing or lacks one of the functions; every later call fails the same way. */
gcoo_status gcoo__cublas_load(void);

#ifdef __cplusplus
}
#endif
#endif
