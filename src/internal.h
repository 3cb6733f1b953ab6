/* SPDX-License-Identifier: MIT */
/* src/internal.h: what every layer of the library shares beside gcoo/backend.h: messages set from
 * elsewhere or cut to fit, the debug-only invariant check, the library's limits and thresholds,
 * the threads of a rank, the log's prefix, and the checks of an element type and a dimension. */
#ifndef GCOO_SRC_INTERNAL_H
#define GCOO_SRC_INTERNAL_H

#include "gcoo/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Set the last error to a message received from elsewhere (another rank), verbatim. */
void gcoo__set_error_text(const char *text);
/** src into dst (len bytes); a text too long keeps its start and, after " [...] ", its end (a
 *  message's reason comes after the paths it names, which may be 4 kB each). */
void gcoo__text_elide(char *dst, size_t len, const char *src);

/** Internal invariant (a bug if false): on in debug builds only, like PetscAssert. */
#ifdef NDEBUG
#define GCOO_ASSERT(cond) ((void)0)
#else
#define GCOO_ASSERT(cond) \
  ((cond) ? (void)0 : (void)GCOO_ERROR(GCOO_ERR_INTERNAL, "assertion failed: %s", #cond))
#endif

/** Work (multiply-adds, elements) below which CPU loops stay on one thread: waking an OpenMP
 *  team costs microseconds, far more on a loaded machine, and dominates small problems. Used in
 *  `#pragma omp parallel ... if(work > GCOO_OMP_MIN_WORK)`. */
#define GCOO_OMP_MIN_WORK 32768

/** Widest dense operand (columns) for which the CPU backend's AUTO picks the CSR kernel over
 *  the GCOO one (src/backend_cpu.c); measured on 3-D Poisson and SuiteSparse matrices. */
#define GCOO_CPU_CSR_MAX_N 64

/** Group width of the faithful kernel (GCOO_ALG_GCOO_FAITHFUL), as published; the others
 *  default to GCOO_DEFAULT_P (gcoo/sparse.h). */
#define GCOO_FAITHFUL_P 4

/** Largest value a row or column index may take (int32). */
#define GCOO_INDEX_MAX INT32_MAX

/** Set this process's OpenMP thread count for a rank sharing its node with ranks_on_node - 1
 *  others (src/threads.c) unless OMP_NUM_THREADS or the application chose one; returns the
 *  count in force. */
int gcoo__rank_threads(int ranks_on_node);

/** Prefix for log lines of a rank ("rank 3 [gpu 1]"); set by dist/. */
void gcoo__log_set_prefix(const char *prefix);

/* Functions of these headers that CUDA code calls too (host and device). */
#ifdef __CUDACC__
#define GCOO_HOST_DEVICE __host__ __device__
#else
#define GCOO_HOST_DEVICE
#endif

/** Raise GCOO_ERR_INVALID_ARG ("unknown element type N") unless t is float32 or float64. */
#define GCOO_CHECK_DTYPE(t)                                                    \
  GCOO_CHECK((t) == GCOO_FLOAT32 || (t) == GCOO_FLOAT64, GCOO_ERR_INVALID_ARG, \
             "unknown element type %d", (int)(t))

/** Check that a dimension fits the int32 index type. */
#define GCOO_CHECK_DIM(n, what)                                                        \
  GCOO_CHECK((n) >= 0 && (n) <= (int64_t)GCOO_INDEX_MAX, GCOO_ERR_TOO_LARGE,           \
             "%s = %lld does not fit a 32-bit index (max %d)", (what), (long long)(n), \
             GCOO_INDEX_MAX)

#ifdef __cplusplus
}
#endif
#endif
