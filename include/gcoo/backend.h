/* SPDX-License-Identifier: MIT */
/* gcoo/backend.h: the documented backend-author interface of gcoo (not for applications).
 *
 * Error raising and propagation (GCOO_ERROR, GCOO_CHECK, GCOO_CALL, GCOO_GOTO), checked
 * allocation, logging, the raw-array views handed to kernels, the table of backend functions
 * and the device operations, and the float/double template macros (gcoo/template.h).
 * Applications include gcoo/gcoo.h only. The library's own internals (object layouts, handle
 * checks, random numbers, limits) are in src/backend_impl.h, which is not installed. */
#ifndef GCOO_BACKEND_H
#define GCOO_BACKEND_H

#include <stdarg.h>
#include <stdbool.h>

#include "gcoo/ctx.h"
#include "gcoo/dense.h"
#include "gcoo/sparse.h"
#include "gcoo/spdm.h"
#include "gcoo/spgemm.h"
#include "gcoo/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- errors -------------------------------------------------------------------------------
 * gcoo__error records "file:line func: message" as the thread's last error and returns st.
 * gcoo__trace appends " <- file:line" as the error travels back through GCOO_CALL. */
#if defined(__GNUC__)
#define GCOO_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define GCOO_PRINTF(a, b)
#endif

gcoo_status gcoo__error(gcoo_status st, const char *file, int line, const char *func,
                        const char *fmt, ...) GCOO_PRINTF(5, 6);
gcoo_status gcoo__verror(gcoo_status st, const char *file, int line, const char *func,
                         const char *fmt, va_list ap);
void gcoo__trace(const char *file, int line);

/** Raise: return GCOO_ERROR(GCOO_ERR_SHAPE, "X has %lld rows, expected %lld", ...); */
#define GCOO_ERROR(st, ...) gcoo__error((st), __FILE__, __LINE__, __func__, __VA_ARGS__)

/** Always-on check of user input (PETSc's PetscCheck): raise and return if cond is false. */
#define GCOO_CHECK(cond, st, ...)                      \
  do {                                                 \
    if (!(cond)) return GCOO_ERROR((st), __VA_ARGS__); \
  } while (0)

/** Propagate the error of a gcoo call, adding this frame to the traceback. */
#define GCOO_CALL(x)                   \
  do {                                 \
    gcoo_status gcoo_s_ = (x);         \
    if (gcoo_s_ < 0) {                 \
      gcoo__trace(__FILE__, __LINE__); \
      return gcoo_s_;                  \
    }                                  \
  } while (0)

/* Resource owners: declare `gcoo_status st = GCOO_SUCCESS;`, free everything after `done:`. */
#define GCOO_GOTO(x)                   \
  do {                                 \
    st = (x);                          \
    if (st < 0) {                      \
      gcoo__trace(__FILE__, __LINE__); \
      goto done;                       \
    }                                  \
  } while (0)

#define GCOO_CHECK_GOTO(cond, stval, ...)    \
  do {                                       \
    if (!(cond)) {                           \
      st = GCOO_ERROR((stval), __VA_ARGS__); \
      goto done;                             \
    }                                        \
  } while (0)

/* ---- memory: malloc that raises GCOO_ERR_NO_MEMORY with the size, and overflow-safe sizes ---- */
gcoo_status gcoo__malloc(void **p, size_t nbytes, const char *what);
gcoo_status gcoo__calloc(void **p, size_t count, size_t size, const char *what);
/** n * size in bytes, or GCOO_ERR_TOO_LARGE when it would overflow size_t or n < 0. */
gcoo_status gcoo__array_bytes(int64_t n, size_t size, size_t *bytes);
#define GCOO_MALLOC(ptr, n, what) \
  gcoo__malloc_n((void **)&(ptr), (int64_t)(n), sizeof(*(ptr)), (what))
gcoo_status gcoo__malloc_n(void **p, int64_t n, size_t size, const char *what);

/* ---- logging: GCOO_DEBUG=WARN|INFO|TRACE, GCOO_DEBUG_FILE=path (%h host, %p pid) -------------
 * Off by default: the library prints nothing unless asked. */
typedef enum gcoo_log_level {
  GCOO_LOG_NONE = 0,
  GCOO_LOG_WARN = 1,
  GCOO_LOG_INFO = 2,
  GCOO_LOG_TRACE = 3
} gcoo_log_level;

void gcoo__log(gcoo_log_level level, const char *subsys, const char *fmt, ...) GCOO_PRINTF(3, 4);
gcoo_log_level gcoo__log_level(void);
#define GCOO_LOG(level, subsys, ...)                                             \
  do {                                                                           \
    if (gcoo__log_level() >= (level)) gcoo__log((level), (subsys), __VA_ARGS__); \
  } while (0)

/** Seconds on a monotonic clock. */
double gcoo__wtime(void);

/* ---- objects' arrays ------------------------------------------------------------------------ */
/** Raw arrays of a GCOO matrix (host or device pointers), as kernels consume it. */
typedef struct gcoo_gcoo_view {
  gcoo_dtype dtype;
  int64_t nrows, ncols, nnz;
  int32_t p;
  int64_t ngroups;
  const int64_t *gidx; /* ngroups + 1 */
  const int64_t *gnnz; /* ngroups */
  const int32_t *rows; /* nnz */
  const int32_t *cols; /* nnz */
  const void *values;  /* nnz */
} gcoo_gcoo_view;

/** Raw arrays of a CSR (or, read as columns, CSC) matrix. */
typedef struct gcoo_csr_view {
  gcoo_dtype dtype;
  int64_t nrows, ncols, nnz;
  const int64_t *ptr; /* nrows + 1 */
  const int32_t *ind; /* nnz */
  const void *values; /* nnz */
} gcoo_csr_view;

/** Views of an object's arrays (GCOO_ERR_INVALID_ARG if it has another format). */
gcoo_status gcoo__sparse_gcoo_view(gcoo_sparse A, gcoo_gcoo_view *v);
gcoo_status gcoo__sparse_csr_view(gcoo_sparse A, gcoo_csr_view *v);

/* ---- device memory, copies, streams and events ---------------------------------------------
 * What the layers above kernels/ (dist/) need of a device, so that they never call a device
 * runtime themselves. Calls act on the calling thread's current device (dist/ binds each rank's
 * GPU when it starts). Streams and events are opaque handles (cudaStream_t and cudaEvent_t on
 * CUDA); a NULL stream is the device's default stream. Every call returns a gcoo_status raised
 * through the backend's one error checker (kernels/cuda_check.h on CUDA). */
typedef struct gcoo_device_ops {
  /** *ptr = bytes of device memory (at least 1), for `what` (named in the error message). */
  gcoo_status (*alloc)(void **ptr, size_t bytes, const char *what);
  void (*free)(void *ptr); /* NULL is ignored */
  /** nrows rows of rowbytes bytes between strided buffers (pitches in bytes), either side on the
   *  host or the device, ordered on stream (returns before a device copy completes). */
  gcoo_status (*copy_rows)(void *dst, size_t dpitch, const void *src, size_t spitch,
                           size_t rowbytes, int64_t nrows, void *stream);
  gcoo_status (*stream_create)(void **stream); /* non-blocking with respect to stream 0 */
  void (*stream_destroy)(void *stream);
  gcoo_status (*stream_sync)(void *stream);
  /** *done = 1 when all work queued on stream has finished, else 0 (does not wait). */
  gcoo_status (*stream_query)(void *stream, int *done);
  gcoo_status (*event_create)(void **event); /* without timing */
  void (*event_destroy)(void *event);
  gcoo_status (*event_record)(void *event, void *stream);
  /** Work queued on stream after this call waits for event. */
  gcoo_status (*stream_wait_event)(void *stream, void *event);
  /** Make device (an ordinal, 0 .. gcoo_cuda_device_count() - 1) the calling thread's current
   *  device: the runtime calls that follow, the caller's own included, go to it. */
  gcoo_status (*bind)(int device);
  /** The PCI bus id of device ("0000:65:00.0") in buf (len bytes, NUL-terminated, cut to fit):
   *  ranks compare them to find out whether they share a GPU. */
  gcoo_status (*pci_bus_id)(int device, char *buf, size_t len);
} gcoo_device_ops;

/* ---- backends ------------------------------------------------------------------------------
 * A context points to one table of functions (libCEED's pattern). The CPU backend lives in
 * src/backend_cpu.c, the CUDA backend in kernels/ (or a stub that reports "not compiled"). */
typedef struct gcoo_backend_ops {
  const char *name;
  /** 1: op_setup takes op->S alone (GCOO of S, the CPU kernel's own layout); 0: op_setup needs
   *  op->A_csr (src/op.c makes it, with one conversion, when the operator came as GCOO). */
  int setup_from_gcoo;
  /** Bind to the device (device < 0: backend's default) and make handles. */
  gcoo_status (*ctx_init)(gcoo_ctx ctx, int device);
  gcoo_status (*ctx_fini)(gcoo_ctx ctx);
  gcoo_status (*ctx_describe)(gcoo_ctx ctx, char *buf, size_t len);
  gcoo_status (*ctx_synchronize)(gcoo_ctx ctx);
  /** op->A_csr (host CSR of A, the SPARSE_DENSE frame) or, with setup_from_gcoo, op->S (host
   *  GCOO of S = A^T) is set: choose the algorithm, build the kernel's layout, upload. The
   *  backend may consume either (free it and set it NULL) once its own layout is built. */
  gcoo_status (*op_setup)(gcoo_op op);
  gcoo_status (*op_apply)(gcoo_op op, double alpha, const gcoo_dense *X, double beta,
                          gcoo_dense *Y);
  gcoo_status (*op_destroy)(gcoo_op op);
  /* Device memory and dense block operations (gcoo/blas.h) on device operands; NULL on
   * backends without device memory. Host operands are served by src/blas.c on any backend. */
  gcoo_status (*mem_alloc)(gcoo_ctx ctx, void **ptr, size_t bytes);
  gcoo_status (*mem_free)(gcoo_ctx ctx, void *ptr);
  /** dst = src (same shape/type/layout), either side in host or device memory. */
  gcoo_status (*dense_copy)(gcoo_ctx ctx, gcoo_dense *dst, const gcoo_dense *src);
  gcoo_status (*gemm)(gcoo_ctx ctx, int transA, int transB, double alpha, const gcoo_dense *A,
                      const gcoo_dense *B, double beta, gcoo_dense *C);
  gcoo_status (*dgmm)(gcoo_ctx ctx, const gcoo_dense *d, const gcoo_dense *A, gcoo_dense *C);
  gcoo_status (*coldot)(gcoo_ctx ctx, const gcoo_dense *A, const gcoo_dense *B, gcoo_dense *out);
  /** Device memory, copies, streams and events; NULL on backends without a device. */
  const gcoo_device_ops *device;
} gcoo_backend_ops;

/* ---- precision templates in C ----------------------------------------------------------------
 * A file "foo_impl.h" written once in terms of GCOO_T (the element type) and GCOO_FN(name)
 * (name suffixed _f32 or _f64) is included twice by foo.c through GCOO_INSTANTIATE:
 *
 *     #define GCOO_TEMPLATE "spdm_cpu_impl.h"
 *     #include "gcoo/template.h"
 *
 * and foo.c dispatches with GCOO_DISPATCH(dtype, name, args...). */
#define GCOO_FN_(name, sfx) name##_##sfx
#define GCOO_FN2_(name, sfx) GCOO_FN_(name, sfx)
#define GCOO_DISPATCH(dtype, name, ...) \
  ((dtype) == GCOO_FLOAT64 ? name##_f64(__VA_ARGS__) : name##_f32(__VA_ARGS__))

#ifdef __cplusplus
}
#endif
#endif
