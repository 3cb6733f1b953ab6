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

/** Record the printf-style message fmt, prefixed "file:line func: ", as the calling thread's
 *  last error (gcoo_last_error; cut to its buffer) and return st (an error code). Use through
 *  GCOO_ERROR / GCOO_CHECK. */
gcoo_status gcoo__error(gcoo_status st, const char *file, int line, const char *func,
                        const char *fmt, ...) GCOO_PRINTF(5, 6);
/** gcoo__error with a va_list. */
gcoo_status gcoo__verror(gcoo_status st, const char *file, int line, const char *func,
                         const char *fmt, va_list ap);
/** Append " <- file:line" to the thread's last error (GCOO_CALL / GCOO_GOTO do). */
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

/** GCOO_CALL for resource owners: declare `gcoo_status st = GCOO_SUCCESS;`, free everything
 *  after `done:`; a failure of x is stored in st, traced and jumps to done. */
#define GCOO_GOTO(x)                   \
  do {                                 \
    st = (x);                          \
    if (st < 0) {                      \
      gcoo__trace(__FILE__, __LINE__); \
      goto done;                       \
    }                                  \
  } while (0)

/** GCOO_CHECK for resource owners: raise stval into st and jump to done if cond is false. */
#define GCOO_CHECK_GOTO(cond, stval, ...)    \
  do {                                       \
    if (!(cond)) {                           \
      st = GCOO_ERROR((stval), __VA_ARGS__); \
      goto done;                             \
    }                                        \
  } while (0)

/* ---- memory: malloc that raises GCOO_ERR_NO_MEMORY with the size, and overflow-safe sizes ---- */
/** *p = malloc(nbytes) (at least 1 byte, so that NULL means failure); *p NULL and
 *  GCOO_ERR_NO_MEMORY naming what and the size when it fails. */
gcoo_status gcoo__malloc(void **p, size_t nbytes, const char *what);
/** *p = calloc(count, size) (zeroed), as gcoo__malloc; GCOO_ERR_TOO_LARGE on overflow. */
gcoo_status gcoo__calloc(void **p, size_t count, size_t size, const char *what);
/** n * size in bytes, or GCOO_ERR_TOO_LARGE when it would overflow size_t or n < 0. */
gcoo_status gcoo__array_bytes(int64_t n, size_t size, size_t *bytes);
/** ptr = n elements of *ptr's type (gcoo__malloc_n). */
#define GCOO_MALLOC(ptr, n, what) \
  gcoo__malloc_n((void **)&(ptr), (int64_t)(n), sizeof(*(ptr)), (what))
/** *p = n elements of size bytes: GCOO_ERR_TOO_LARGE when n < 0 or n * size overflows,
 *  otherwise as gcoo__malloc. */
gcoo_status gcoo__malloc_n(void **p, int64_t n, size_t size, const char *what);

/* ---- logging: GCOO_DEBUG=WARN|INFO|TRACE, GCOO_DEBUG_FILE=path (%h host, %p pid) -------------
 * Off by default: the library prints nothing unless asked. */
/** How much the library logs (GCOO_DEBUG), from nothing to every step. */
typedef enum gcoo_log_level {
  GCOO_LOG_NONE = 0,
  GCOO_LOG_WARN = 1,
  GCOO_LOG_INFO = 2,
  GCOO_LOG_TRACE = 3
} gcoo_log_level;

/** Write one printf-style line at level for subsystem subsys ("INIT", "IO", ...) to the log
 *  (stderr or GCOO_DEBUG_FILE) when GCOO_DEBUG asks for it. Thread-safe. */
void gcoo__log(gcoo_log_level level, const char *subsys, const char *fmt, ...) GCOO_PRINTF(3, 4);
/** The level GCOO_DEBUG set (read once). */
gcoo_log_level gcoo__log_level(void);
/** gcoo__log, its arguments evaluated only when the level is on. */
#define GCOO_LOG(level, subsys, ...)                                             \
  do {                                                                           \
    if (gcoo__log_level() >= (level)) gcoo__log((level), (subsys), __VA_ARGS__); \
  } while (0)

/** Seconds on a monotonic clock. */
double gcoo__wtime(void);

/* ---- objects' arrays ------------------------------------------------------------------------ */
/** Raw arrays of a GCOO matrix (grouped COO; host or device pointers), as kernels consume it. */
typedef struct gcoo_grouped_view {
  gcoo_dtype dtype;          /**< element type */
  int64_t nrows, ncols, nnz; /**< shape and entries */
  int32_t p;                 /**< group width */
  int64_t ngroups;           /**< ceil(ncols / p) */
  const int64_t *gidx;       /**< ngroups + 1 group offsets */
  const int64_t *gnnz;       /**< ngroups entry counts */
  const int32_t *rows;       /**< nnz row indices */
  const int32_t *cols;       /**< nnz column indices */
  const void *values;        /**< nnz values */
} gcoo_grouped_view;

/** Raw arrays of a CSR (or, read as columns, CSC) matrix. */
typedef struct gcoo_csr_view {
  gcoo_dtype dtype;          /**< element type */
  int64_t nrows, ncols, nnz; /**< shape and entries (CSC read as CSR: transposed) */
  const int64_t *ptr;        /**< nrows + 1 row offsets */
  const int32_t *ind;        /**< nnz column indices */
  const void *values;        /**< nnz values */
} gcoo_csr_view;

/** *v = views of A's arrays (owned by A, valid while it lives; a GCOO matrix).
 *  GCOO_ERR_NULL / GCOO_ERR_INVALID_OBJECT for a bad A, GCOO_ERR_INVALID_ARG for another
 *  format. */
gcoo_status gcoo__sparse_grouped_view(gcoo_sparse A, gcoo_grouped_view *v);
/** The same for a CSR or CSC matrix. */
gcoo_status gcoo__sparse_csr_view(gcoo_sparse A, gcoo_csr_view *v);

/* ---- device copies, streams and events ----------------------------------------------------
 * What the layers above kernels/ (dist/) need of a device, so that they never call a device
 * runtime themselves; they take the table from their context (ctx->ops->device) and device
 * memory from the context's allocator (gcoo_backend_ops.mem_alloc). Calls act on the calling
 * thread's current device (dist/ binds each rank's GPU when it starts). Streams and events are
 * opaque handles (cudaStream_t and cudaEvent_t on CUDA); a NULL stream is the device's default
 * stream. Every call returns a gcoo_status raised through the backend's one error checker
 * (kernels/common/cuda_check.h on CUDA). */
/** A backend's device operations (the CUDA backend's in kernels/backend/device_cuda.c). */
typedef struct gcoo_device_ops {
  /** nrows rows of rowbytes bytes between strided buffers (pitches in bytes), either side on the
   *  host or the device, ordered on stream (returns before a device copy completes). */
  gcoo_status (*copy_rows)(void *dst, size_t dpitch, const void *src, size_t spitch,
                           size_t rowbytes, int64_t nrows, void *stream);
  /** *stream = a new stream, non-blocking with respect to stream 0. */
  gcoo_status (*stream_create)(void **stream);
  /** Destroy a stream of stream_create (its queued work still completes); NULL is ignored. */
  void (*stream_destroy)(void *stream);
  /** Wait until all work queued on stream has finished; its error, if any. */
  gcoo_status (*stream_sync)(void *stream);
  /** *done = 1 when all work queued on stream has finished, else 0 (does not wait). */
  gcoo_status (*stream_query)(void *stream, int *done);
  /** *event = a new event, without timing. */
  gcoo_status (*event_create)(void **event);
  /** Destroy an event of event_create; NULL is ignored. */
  void (*event_destroy)(void *event);
  /** Record event at the current end of stream's queue. */
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

/* ---- block vectors of the solver layer -----------------------------------------------------
 * The passes Krylov methods and smoothers make over n x k row-major blocks of vectors, with one
 * scalar per column (k right-hand sides in lockstep). Scalars and sums are host doubles; sums
 * are this rank's (the solver layer adds them over ranks). Host blocks are served by
 * gcoo__vec_host on every backend; a backend with device memory may serve device blocks with its
 * own table (gcoo_backend_ops.vec). Operands of one call share an element type and a memory
 * space; blocks passed together share their row count and column count k. */
typedef struct gcoo_vec_ops {
  /** Y = v everywhere (first touch of a new block). */
  gcoo_status (*fill)(gcoo_ctx ctx, gcoo_dense *Y, double v);
  /** Y(:, j) = a[j] X(:, j) + b[j] Y(:, j); where every b[j] is 0 Y's old values are not read. */
  gcoo_status (*axpby)(gcoo_ctx ctx, const double *a, const gcoo_dense *X, const double *b,
                       gcoo_dense *Y);
  /** out[p k + j] = X_p(:, j) . Y_p(:, j) for the m pairs (p < m), one pass, in double. */
  gcoo_status (*dots)(gcoo_ctx ctx, int m, const gcoo_dense *const *X, const gcoo_dense *const *Y,
                      double *out);
  /** Y(:, j) += sum_p c[p k + j] X_p(:, j) over the m blocks X_p. */
  gcoo_status (*maxpy)(gcoo_ctx ctx, int m, const double *c, const gcoo_dense *const *X,
                       gcoo_dense *Y);
  /** acc[3 j .. 3 j + 2] = Blue's accumulators of column j (small, mid-range and big values,
   *  scaled so that no square under- or overflows); gcoo__blue_norm makes the 2-norm of them.
   *  They are sums: add them over ranks before combining. */
  gcoo_status (*norm_acc)(gcoo_ctx ctx, const gcoo_dense *X, double *acc);
  /** Y = diag(d) X (d: n x 1); Y may be X. */
  gcoo_status (*diag_scale)(gcoo_ctx ctx, const gcoo_dense *d, const gcoo_dense *X, gcoo_dense *Y);
  /** CG's update in one pass: X += P diag(alpha), R -= Q diag(alpha); out[j] = R_j^T D R_j with
   *  D = diag(dinv) (0 when dinv is NULL) and out[k + j] = R_j^T R_j. One leading dimension. */
  gcoo_status (*cg_update)(gcoo_ctx ctx, const double *alpha, const gcoo_dense *P,
                           const gcoo_dense *Q, gcoo_dense *X, gcoo_dense *R,
                           const gcoo_dense *dinv, double *out);
  /** CG's next direction: P = diag(dinv) Z + P diag(beta), or P = Z + P diag(beta) (dinv NULL). */
  gcoo_status (*cg_direction)(gcoo_ctx ctx, const double *beta, const gcoo_dense *dinv,
                              const gcoo_dense *Z, gcoo_dense *P);
  /** Pipelined CG's recurrences with v = {z, q, s, p, x, r, u, w, n, m}: z = n + b z,
   *  q = m + b q, s = w + b s, p = u + b p, x += a p, r -= a s, u -= a q, w -= a z (a = alpha[j],
   *  b = beta[j] per column), and out = {r^T u, w^T u, r^T r} (3 k values) of the new vectors. */
  gcoo_status (*pipecg_update)(gcoo_ctx ctx, const double *alpha, const double *beta,
                               gcoo_dense *const *v, double *out);
  /* Block CG's passes (k columns, s <= k search directions: P and Q are the first s columns of
   * their n x k blocks; alpha and beta s x k row-major; one leading dimension; k <= 64). */
  /** out = [P^T Q (s x s) | P^T R (s x k)]. */
  gcoo_status (*bcg_gram2)(gcoo_ctx ctx, int64_t s, const gcoo_dense *P, const gcoo_dense *Q,
                           const gcoo_dense *R, double *out);
  /** X += P alpha, R -= Q alpha, Z = diag(dinv) R (dinv NULL: R; Z NULL: not stored), and
   *  out = [||R_j||^2 (k) | Q^T Z (s x k)]. */
  gcoo_status (*bcg_update)(gcoo_ctx ctx, int64_t s, const double *alpha, const gcoo_dense *P,
                            const gcoo_dense *Q, gcoo_dense *X, gcoo_dense *R,
                            const gcoo_dense *dinv, gcoo_dense *Z, double *out);
  /** W = diag(dinv) Z + P beta (dinv NULL: Z + P beta) and out = W^T W (k x k). */
  gcoo_status (*bcg_direction)(gcoo_ctx ctx, int64_t s, const double *beta, const gcoo_dense *P,
                               const gcoo_dense *Z, const gcoo_dense *dinv, gcoo_dense *W,
                               double *out);
  /** One step of a polynomial smoother (Chebyshev, l1-Jacobi; AMG), the same scalars for every
   *  column, W = A D computed before:
   *    W given:   R = S - W, then (D given) D = a D + b diag(dinv) R and X = D (x_zero) or
   *               X += D; with D NULL only the residual update R = S - W;
   *    W NULL:    D = a D + b diag(dinv) S and X = D (x_zero) or X += D (R not touched).
   *  S may be R. Where a is 0, D's old values are not read; where x_zero, neither are X's. */
  gcoo_status (*smooth_step)(gcoo_ctx ctx, double a, double b, const gcoo_dense *dinv,
                             const gcoo_dense *S, const gcoo_dense *W, gcoo_dense *R, gcoo_dense *D,
                             gcoo_dense *X, int x_zero);
} gcoo_vec_ops;

/** The host table (src/vec_cpu.c, OpenMP). */
extern const gcoo_vec_ops gcoo__vec_host;
/** The 2-norm from Blue's three accumulators (gcoo_vec_ops.norm_acc), as LAPACK's dnrm2
 *  combines them: correct from the smallest subnormal to the largest finite values. */
double gcoo__blue_norm(const double *acc);
/* Blue's thresholds and scales for double (LAPACK's la_constants): squares of values in
 * [TSML, TBIG] neither under- nor overflow; values outside are scaled by SSML or SBIG first. */
#define GCOO_BLUE_TSML 0x1p-511
#define GCOO_BLUE_TBIG 0x1p486
#define GCOO_BLUE_SSML 0x1p537
#define GCOO_BLUE_SBIG 0x1p-538

/* ---- device-resident solver iterations ---------------------------------------------------
 * What the solver layer's block CG (solver/ksp_bcg.c) needs of a backend that keeps the whole
 * iteration on a device: for one right-hand side on one rank, PCG with its state on the device
 * (gcoo_solver_ops.pcg); for a block of k, the k x k steps, the preconditioner with the residual
 * norms and the convergence test on the device, the host queueing work and reading a snapshot of
 * the state asynchronously (the bcg_* entries, on a handle of bcg_create). */
/** One PCG solve on the device (gcoo_solver_ops.pcg): inputs, then what it reports. */
typedef struct gcoo__pcg_device {
  gcoo_op A;          /**< in: square local operator of a device context (its device CSR is used) */
  gcoo_dtype dtype;   /**< element type of b, x, dinv */
  int64_t n;          /**< rows */
  const void *b;      /**< in: device, n values */
  void *x;            /**< in: initial guess; out: solution (device) */
  const void *dinv;   /**< in: device inverse diagonal, or NULL (no preconditioner) */
  double rtol;        /**< relative tolerance on ||r|| / ||b|| */
  int64_t maxit;      /**< most iterations */
  double *history;    /**< host, maxit + 1 values, or NULL */
  int64_t iterations; /**< out: iterations made */
  int converged, breakdown;             /**< out: met rtol; p^T A p <= 0 */
  double residual;                      /**< out: final recursive ||r|| / ||b|| */
  double t_spmm, t_update, t_direction; /**< GPU seconds of each kernel in iteration 2 */
  double t_first_batch;     /**< GPU seconds of the first graph_iterations (plain launches) */
  double t_iterate;         /**< wall seconds from the first iteration queued to the last done */
  int64_t graph_iterations; /**< iterations per graph replay */
} gcoo__pcg_device;

/** Block CG's device state (opaque; gcoo_solver_ops.bcg_create). */
typedef struct gcoo__bcg_device gcoo__bcg_device;
/** Block CG's k x k steps (gcoo_solver_ops.bcg_step), each reading the reduction buffer. */
typedef enum gcoo__bcg_step {
  GCOO__BCG_STORE_B2, /**< red[0, k) = ||B_j||^2 kept */
  GCOO__BCG_CHECK0,   /**< red[0, k) = ||R_j||^2: iteration 0 recorded */
  GCOO__BCG_ALPHA,    /**< red = [P^T Q | P^T R] (k x k each): coef 0 = alpha */
  GCOO__BCG_CHECK,    /**< red = [||R_j||^2 (k) | Q^T Z (k x k)]: count, record, coef 1 = beta */
  GCOO__BCG_ORTH      /**< red = W^T W: coef 2 = T (columns past the rank zero) */
} gcoo__bcg_step;
/** The phases an iteration's GPU time is split into (gcoo_solver_ops.bcg_mark). */
enum { GCOO__BCG_SPMM, GCOO__BCG_REDUCE, GCOO__BCG_BLAS, GCOO__BCG_PRECOND, GCOO__BCG_PHASES };
/** What a block CG solve on the device reports (gcoo_solver_ops.bcg_result). */
typedef struct gcoo__bcg_outcome {
  int64_t iterations, *column_iterations; /**< column_iterations, residual: k values (caller's) */
  double *residual, *history;             /**< history: (maxit + 1) x k or NULL */
  int converged, breakdown, min_rank;     /**< met rtol; a pivot failed; smallest block rank */
  double bad_pivot;                       /**< the failed pivot */
  double phase_seconds[GCOO__BCG_PHASES]; /**< GPU time between the phase marks */
  int64_t explicit_blocks;                /**< the W form's iterations with P formed explicitly */
} gcoo__bcg_outcome;

/** A backend's device-resident solver iterations (the CUDA backend's in kernels/solver/). The
 *  blocks P, Q, R, W, X are n x k row-major device blocks (any leading dimension). */
typedef struct gcoo_solver_ops {
  /** dinv = 1 / diag(A) from the square local operator's device CSR (device memory, A's element
   *  type); *bad_row: the first local row whose diagonal is not positive and finite (its value in
   *  *bad_value), -1 if none. Synchronises (set-up). */
  gcoo_status (*inverse_diagonal)(gcoo_op A, void *dinv, int64_t *bad_row, double *bad_value);
  /** PCG for one right-hand side on one rank, every iteration on the device. */
  gcoo_status (*pcg)(gcoo_ctx ctx, gcoo__pcg_device *p);
  /** *h = the device state of a block CG solve of n rows and k columns (history: keep the
   *  residuals of every iteration). */
  gcoo_status (*bcg_create)(gcoo_ctx ctx, gcoo_dtype dt, int64_t n, int64_t k, double rtol,
                            double rank_tol, int64_t maxit, int history, gcoo__bcg_device **h);
  /** Free what bcg_create made; NULL is ignored. */
  void (*bcg_destroy)(gcoo__bcg_device *h);
  /** The reduction buffer (2 k^2 + k values of dt), device memory. */
  void *(*bcg_red)(gcoo__bcg_device *h);
  /** Coefficient matrix `which` (0 alpha, 1 beta, 2 T; k x k row-major, dt), device memory. */
  void *(*bcg_coef)(gcoo__bcg_device *h, int which);
  /** One k x k step on the reduction buffer (queued). */
  gcoo_status (*bcg_step)(gcoo__bcg_device *h, gcoo__bcg_step step);
  /** The W form (1) or the P form (0) of this solve. In the W form the search block P = W T is
   *  not formed: the caller runs the passes on W where it would run them on P (Q' = A W for Q,
   *  [W^T Q' | W^T R] for red, ...), the steps take T into their k x k products (coef 0 and 1
   *  are then W's coefficients T alpha, T beta), and after the ORTH step bcg_transform(W)
   *  replaces W by W T in place where W is ill-conditioned (T = I for the next iteration's
   *  steps), else leaves it. Then W is the next iteration's search block. */
  int (*bcg_wform)(const gcoo__bcg_device *h);
  /** W = W T in place where the ORTH step asked for the explicit search block (W form). */
  gcoo_status (*bcg_transform)(gcoo__bcg_device *h, gcoo_dense *W);
  /** W = diag(dinv) R (dinv NULL: W = R) and red[0, k) = ||R_j||^2, one pass over R. */
  gcoo_status (*bcg_precond_norms)(gcoo__bcg_device *h, const gcoo_dense *dinv, const gcoo_dense *R,
                                   gcoo_dense *W);
  /** Whether the fused block-vector passes below exist for this solve's k and element type: 0
   *  none, 1 there and faster than the GEMM path as measured, 2 there but slower. */
  int (*bcg_fused)(const gcoo__bcg_device *h);
  /** Fused: red = [P^T Q | P^T R]. */
  gcoo_status (*bcg_gram2)(gcoo__bcg_device *h, const gcoo_dense *P, const gcoo_dense *Q,
                           const gcoo_dense *R);
  /** Fused: X += P alpha, R -= Q alpha, W = diag(dinv) R (dinv NULL: R),
   *  red = [||R_j||^2 | Q^T W]. */
  gcoo_status (*bcg_update)(gcoo__bcg_device *h, const gcoo_dense *P, const gcoo_dense *Q,
                            gcoo_dense *X, gcoo_dense *R, const gcoo_dense *dinv, gcoo_dense *W);
  /** Fused: W += P beta, red = W^T W. */
  gcoo_status (*bcg_direction)(gcoo__bcg_device *h, const gcoo_dense *P, gcoo_dense *W);
  /** A phase mark on the device's queue (phase < 0: the start of iteration it). */
  gcoo_status (*bcg_mark)(gcoo__bcg_device *h, int64_t it, int phase);
  /** Queue a snapshot of the state after iteration it. */
  gcoo_status (*bcg_post)(gcoo__bcg_device *h, int64_t it);
  /** Wait for iteration it's snapshot; *done: the device has stopped iterating. */
  gcoo_status (*bcg_wait)(gcoo__bcg_device *h, int64_t it, int *done);
  /** The solve's outcome (synchronises). */
  gcoo_status (*bcg_result)(gcoo__bcg_device *h, gcoo__bcg_outcome *o);
} gcoo_solver_ops;

/* ---- backends ------------------------------------------------------------------------------
 * A context points to one table of functions (libCEED's pattern). The CPU backend lives in
 * src/backend_cpu.c, the CUDA backend in kernels/ (or a stub that reports "not compiled"). */
/** A backend: the table of functions a context calls (one per backend, written once). */
typedef struct gcoo_backend_ops {
  const char *name; /**< "cpu", "cuda" */
  /** 1: op_setup takes op->S alone (GCOO of S, the CPU kernel's own layout); 0: op_setup needs
   *  op->A_csr (src/op.c makes it, with one conversion, when the operator came as GCOO). */
  int setup_from_gcoo;
  /** Bind to the device (device < 0: backend's default) and make handles. */
  gcoo_status (*ctx_init)(gcoo_ctx ctx, int device);
  /** Free what ctx_init made. */
  gcoo_status (*ctx_fini)(gcoo_ctx ctx);
  /** One line about the context (device name, memory) in buf (len bytes, NUL-terminated). */
  gcoo_status (*ctx_describe)(gcoo_ctx ctx, char *buf, size_t len);
  /** Wait for the context's queued work; its error, if any. */
  gcoo_status (*ctx_synchronize)(gcoo_ctx ctx);
  /** op->A_csr (host CSR of A, the SPARSE_DENSE frame) or, with setup_from_gcoo, op->S (host
   *  GCOO of S = A^T) is set: choose the algorithm, build the kernel's layout, upload. The
   *  backend may consume either (free it and set it NULL) once its own layout is built. */
  gcoo_status (*op_setup)(gcoo_op op);
  /** Y = alpha op X + beta Y, operands already checked by src/op.c (gcoo_op_apply). */
  gcoo_status (*op_apply)(gcoo_op op, double alpha, const gcoo_dense *X, double beta,
                          gcoo_dense *Y);
  /** Free what op_setup made (op->backend). */
  gcoo_status (*op_destroy)(gcoo_op op);
  /* Device memory and dense block operations (gcoo/blas.h) on device operands; NULL on
   * backends without device memory. Host operands are served by src/blas.c on any backend. */
  /** *ptr = bytes of device memory (at least 1) on ctx's device, for `what` (named in the error
   *  message): the context's allocator, the one the layers above kernels/ use. */
  gcoo_status (*mem_alloc)(gcoo_ctx ctx, void **ptr, size_t bytes, const char *what);
  /** Free what mem_alloc returned; NULL is ignored. */
  gcoo_status (*mem_free)(gcoo_ctx ctx, void *ptr);
  /** dst = src (same shape/type/layout), either side in host or device memory. */
  gcoo_status (*dense_copy)(gcoo_ctx ctx, gcoo_dense *dst, const gcoo_dense *src);
  /** C = alpha op(A) op(B) + beta C (gcoo_blas_gemm), device operands. */
  gcoo_status (*gemm)(gcoo_ctx ctx, int transA, int transB, double alpha, const gcoo_dense *A,
                      const gcoo_dense *B, double beta, gcoo_dense *C);
  /** C = diag(d) A (gcoo_blas_dgmm), device operands. */
  gcoo_status (*dgmm)(gcoo_ctx ctx, const gcoo_dense *d, const gcoo_dense *A, gcoo_dense *C);
  /** out(j) = A(:, j) . B(:, j) (gcoo_blas_coldot), device operands. */
  gcoo_status (*coldot)(gcoo_ctx ctx, const gcoo_dense *A, const gcoo_dense *B, gcoo_dense *out);
  /** Rows [row0, row0 + D->nrows) of gcoo_dense_fill_random_rows(seed)'s matrix, the same
   *  values, into device D (gcoo_ctx_dense_fill_random_rows). */
  gcoo_status (*fill_random_rows)(gcoo_ctx ctx, gcoo_dense *D, uint64_t seed, int64_t row0);
  /** part[2b], part[2b + 1] = the sum and the sum of absolute values of block b of device D's
   *  storage vectors (gcoo_ctx_dense_sums's order, src/backend_impl.h), into host part; complete
   *  on return. */
  gcoo_status (*dense_block_sums)(gcoo_ctx ctx, const gcoo_dense *D, double *part);
  /** Device memory, copies, streams, events and binding; NULL on backends without a device. */
  const gcoo_device_ops *device;
  /** Block-vector operations on device blocks (solver layer); NULL where the backend has none
   *  (host blocks always go to gcoo__vec_host). */
  const gcoo_vec_ops *vec;
  /** The solver layer's device-resident iterations; NULL where the backend has none. */
  const gcoo_solver_ops *solver;
  /** C = A B for gcoo_spgemm on a context of this backend (host matrices in and out; opts
   *  complete, defaults filled in by gcoo_spgemm); NULL: the host SpGEMM (src/spgemm.c). */
  gcoo_status (*spgemm)(gcoo_ctx ctx, gcoo_sparse A, gcoo_sparse B, const gcoo_spgemm_options *opts,
                        gcoo_sparse *C, gcoo_spgemm_info *info);
  /** The predictor of C = A B on the backend's device (method CLASSES: the estimate of
   *  gcoo_predict with GCOO_PREDICT_CLASSES for the same seed; row_flop and row_nnz always
   *  filled); NULL: the backend has none (the host predictor serves). */
  gcoo_status (*predict)(gcoo_ctx ctx, gcoo_sparse A, gcoo_sparse B,
                         const gcoo_predict_options *opts, gcoo_prediction *pred);
  /** Devices of this backend visible to the process (gcoo_cuda_device_count for CUDA); NULL: 0. */
  int (*device_count)(void);
  /** Begin the backend's start-up for device on a background thread (gcoo_cuda_prestart);
   *  NULL: nothing to begin. */
  void (*prestart)(int device);
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
