/* SPDX-License-Identifier: MIT */
/* kernels/common/cuda_check.h: checked CUDA, cuSPARSE and cuBLAS calls and device allocations.
 *
 * Every failure becomes a gcoo status with a message naming the library's own error (name and
 * text), the failing expression, and the file and line (through gcoo__error):
 *   GCOO_CALL_CUDA(x)      cudaError_t         -> GCOO_ERR_CUDA (allocation: GCOO_ERR_NO_MEMORY)
 *   GCOO_CALL_CUSPARSE(x)  cusparseStatus_t    -> GCOO_ERR_CUSPARSE (NOT_SUPPORTED: UNSUPPORTED,
 *                                                 ALLOC_FAILED: NO_MEMORY)
 *   GCOO_CALL_CUBLAS(x)    cublasStatus_t      -> GCOO_ERR_CUBLAS (same two refinements)
 *   GCOO_CHECK_LAUNCH(w)   cudaGetLastError() after a kernel launch named w
 * Each has a _GOTO form for resource owners (sets `st`, jumps to `done`). A CUDA failure is
 * cleared with cudaGetLastError() so it does not leak into the next check (sticky errors, such as
 * an illegal address, stay: the context is unusable after them, as CUDA defines).
 * Usable from C and C++; the kernel files' CPU-emulated build gets the CUDA part only. */
#ifndef GCOO_CUDA_CHECK_H
#define GCOO_CUDA_CHECK_H

#include <stdarg.h>
#include <stdio.h>

#include "backend_impl.h"

#ifdef GCOO_CUDA_EMULATE
#include "cuda_compat.h"
#else
#include <cuda_runtime_api.h>
#include <cusparse.h>

#include "backend/cublas_lazy.h"
#endif

/* The one formatter of a CUDA runtime failure e: "CUDA error NAME (TEXT) in WHAT", WHAT the
 * printf-style rest, raised as st (GCOO_ERR_CUDA, or the band the failure means to the caller:
 * NO_MEMORY, NO_DEVICE, INVALID_ARG) and cleared from the runtime (sticky errors stay). Through
 * GCOO_CUDA_RAISE, the checked calls below and the allocator. */
static inline gcoo_status gcoo__cuda_raise(gcoo_status st, cudaError_t e, const char *file,
                                           int line, const char *func, const char *fmt, ...)
    GCOO_PRINTF(6, 7);
static inline gcoo_status gcoo__cuda_raise(gcoo_status st, cudaError_t e, const char *file,
                                           int line, const char *func, const char *fmt, ...) {
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  (void)cudaGetLastError();
  return gcoo__error(st, file, line, func, "CUDA error %s (%s) in %s", cudaGetErrorName(e),
                     cudaGetErrorString(e), what);
}
#define GCOO_CUDA_RAISE(st, e, ...) \
  gcoo__cuda_raise((st), (e), __FILE__, __LINE__, __func__, __VA_ARGS__)

static inline gcoo_status gcoo__cuda_status(cudaError_t e, const char *expr, const char *file,
                                            int line, const char *func) {
  if (e == cudaSuccess) return GCOO_SUCCESS;
  return gcoo__cuda_raise(e == cudaErrorMemoryAllocation ? GCOO_ERR_NO_MEMORY : GCOO_ERR_CUDA, e,
                          file, line, func, "%s", expr);
}

/* The two forms of every checked call below: return the failure, or (resource owners) set `st`
 * and jump to `done`. CHECKED is the call's gcoo status (gcoo__cuda_status(...) and the like). */
#define GCOO_CUDA_RETURN_(checked)     \
  do {                                 \
    gcoo_status gcoo_cs_ = (checked);  \
    if (gcoo_cs_ < 0) return gcoo_cs_; \
  } while (0)
#define GCOO_CUDA_GOTO_(checked) \
  do {                           \
    st = (checked);              \
    if (st < 0) goto done;       \
  } while (0)
/* (#x stays in each macro: the message quotes the call as written, before macro expansion) */
#define GCOO_CALL_CUDA(x) \
  GCOO_CUDA_RETURN_(gcoo__cuda_status((x), #x, __FILE__, __LINE__, __func__))
#define GCOO_CALL_CUDA_GOTO(x) \
  GCOO_CUDA_GOTO_(gcoo__cuda_status((x), #x, __FILE__, __LINE__, __func__))

/* After every kernel launch: a bad configuration or a missing kernel image shows up here. */
#define GCOO_LAUNCH_STATUS_(what) \
  gcoo__cuda_status(cudaGetLastError(), "launch of " what, __FILE__, __LINE__, __func__)
#define GCOO_CHECK_LAUNCH(what) GCOO_CUDA_RETURN_(GCOO_LAUNCH_STATUS_(what))
#define GCOO_CHECK_LAUNCH_GOTO(what) GCOO_CUDA_GOTO_(GCOO_LAUNCH_STATUS_(what))

/* The one device allocator of the CUDA backend (at least 1 byte), reporting what it was for, how
 * many bytes, and how much was free: cudaMalloc for arrays an object keeps (async 0);
 * stream-ordered on stream for temporaries (async 1), from pool where one is given (a context's
 * SpGEMM pool, kernels/spgemm/spgemm_pool.cu), else from the device's default pool. The
 * context's mem_alloc, dist/'s device buffers through it, and every array of kernels/ come from
 * here. *p is NULL after a failure. */
static inline gcoo_status gcoo__cuda_alloc_at(void **p, size_t bytes, const char *what,
                                              cudaStream_t stream, int async, cudaMemPool_t pool,
                                              const char *file, int line, const char *func) {
  *p = NULL;
  const size_t n = bytes ? bytes : 1;
#ifdef GCOO_CUDA_EMULATE
  (void)pool; /* the emulator has no pools */
  cudaError_t e = async ? cudaMallocAsync(p, n, stream) : cudaMalloc(p, n);
#else
  cudaError_t e = !async ? cudaMalloc(p, n)
                  : pool ? cudaMallocFromPoolAsync(p, n, pool, stream)
                         : cudaMallocAsync(p, n, stream);
#endif
  if (e == cudaSuccess) return GCOO_SUCCESS;
  (void)cudaGetLastError();
  *p = NULL;
  size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
    (void)cudaGetLastError();
    free_b = total_b = 0;
  }
  return gcoo__cuda_raise(e == cudaErrorMemoryAllocation ? GCOO_ERR_NO_MEMORY : GCOO_ERR_CUDA, e,
                          file, line, func,
                          "the allocation of %zu bytes of device memory for %s (%zu of %zu bytes "
                          "free on the device)",
                          bytes, what, free_b, total_b);
}
#define gcoo__cuda_alloc(p, bytes, what)                                                   \
  gcoo__cuda_alloc_at((void **)(p), (bytes), (what), (cudaStream_t)0, 0, (cudaMemPool_t)0, \
                      __FILE__, __LINE__, __func__)
#define gcoo__cuda_alloc_async(p, bytes, what, stream)                                        \
  gcoo__cuda_alloc_at((void **)(p), (bytes), (what), (stream), 1, (cudaMemPool_t)0, __FILE__, \
                      __LINE__, __func__)

/* Free the n device arrays of a structure being torn down (NULL ones are skipped). A failure
 * there has no one to tell: the error a free may leave is cleared, so that the next checked
 * call does not report it. The caller then clears its pointers (or the whole structure). */
static inline void gcoo__cuda_free_each(void *const *arrays, int n) {
  for (int i = 0; i < n; i++)
    if (arrays[i]) (void)cudaFree(arrays[i]);
  (void)cudaGetLastError();
}

#ifndef GCOO_CUDA_EMULATE
/* A failed cuSPARSE or cuBLAS call: "LIB error NAME (TEXT) in EXPR", with the library's
 * "not supported" as GCOO_ERR_UNSUPPORTED, its allocation failure as GCOO_ERR_NO_MEMORY and
 * anything else as code (GCOO_ERR_CUSPARSE, GCOO_ERR_CUBLAS). */
static inline gcoo_status gcoo__cuda_library_error(gcoo_status code, int not_supported,
                                                   int alloc_failed, const char *lib,
                                                   const char *name, const char *text,
                                                   const char *expr, const char *file, int line,
                                                   const char *func) {
  (void)cudaGetLastError();
  gcoo_status st = not_supported ? GCOO_ERR_UNSUPPORTED : alloc_failed ? GCOO_ERR_NO_MEMORY : code;
  return gcoo__error(st, file, line, func, "%s error %s (%s) in %s", lib, name, text, expr);
}
static inline gcoo_status gcoo__cusparse_status(cusparseStatus_t s, const char *expr,
                                                const char *file, int line, const char *func) {
  if (s == CUSPARSE_STATUS_SUCCESS) return GCOO_SUCCESS;
  return gcoo__cuda_library_error(GCOO_ERR_CUSPARSE, s == CUSPARSE_STATUS_NOT_SUPPORTED,
                                  s == CUSPARSE_STATUS_ALLOC_FAILED, "cuSPARSE",
                                  cusparseGetErrorName(s), cusparseGetErrorString(s), expr, file,
                                  line, func);
}
static inline gcoo_status gcoo__cublas_status(cublasStatus_t s, const char *expr, const char *file,
                                              int line, const char *func) {
  if (s == CUBLAS_STATUS_SUCCESS) return GCOO_SUCCESS;
  /* a status comes from a call through gcoo__cublas, so the library is loaded */
  const int named = gcoo__cublas.GetStatusName && gcoo__cublas.GetStatusString;
  return gcoo__cuda_library_error(GCOO_ERR_CUBLAS, s == CUBLAS_STATUS_NOT_SUPPORTED,
                                  s == CUBLAS_STATUS_ALLOC_FAILED, "cuBLAS",
                                  named ? gcoo__cublas.GetStatusName(s) : "(cuBLAS not loaded)",
                                  named ? gcoo__cublas.GetStatusString(s) : "", expr, file, line,
                                  func);
}
/* A cuSPARSE status kept as GCOO_ERR_CUSPARSE whatever it is (a baseline reporting what cuSPARSE
 * said, INSUFFICIENT_RESOURCES and NOT_SUPPORTED included). */
static inline gcoo_status gcoo__cusparse_raw_status(cusparseStatus_t s, const char *expr,
                                                    const char *file, int line, const char *func) {
  if (s == CUSPARSE_STATUS_SUCCESS) return GCOO_SUCCESS;
  return gcoo__cuda_library_error(GCOO_ERR_CUSPARSE, 0, 0, "cuSPARSE", cusparseGetErrorName(s),
                                  cusparseGetErrorString(s), expr, file, line, func);
}
#define GCOO_CALL_CUSPARSE_RAW_GOTO(x) \
  GCOO_CUDA_GOTO_(gcoo__cusparse_raw_status((x), #x, __FILE__, __LINE__, __func__))
#define GCOO_CALL_CUSPARSE(x) \
  GCOO_CUDA_RETURN_(gcoo__cusparse_status((x), #x, __FILE__, __LINE__, __func__))
#define GCOO_CALL_CUSPARSE_GOTO(x) \
  GCOO_CUDA_GOTO_(gcoo__cusparse_status((x), #x, __FILE__, __LINE__, __func__))
#define GCOO_CALL_CUBLAS(x) \
  GCOO_CUDA_RETURN_(gcoo__cublas_status((x), #x, __FILE__, __LINE__, __func__))
#define GCOO_CALL_CUBLAS_GOTO(x) \
  GCOO_CUDA_GOTO_(gcoo__cublas_status((x), #x, __FILE__, __LINE__, __func__))
#endif

#endif
