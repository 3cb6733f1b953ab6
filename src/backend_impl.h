/* SPDX-License-Identifier: MIT */
/* src/backend_impl.h: the private half of gcoo/backend.h, shared by every layer of the library
 * (src/, kernels/, io/, dist/) and by the tests, never installed: the layouts of the context and
 * operator objects and their handle checks, the backend tables, reproducible random numbers,
 * index limits and small host algebra. Library files include this header; backend.h alone is
 * the interface a backend author sees. */
#ifndef GCOO_BACKEND_IMPL_H
#define GCOO_BACKEND_IMPL_H

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

/** 1 if the elements of two dense matrices in the same memory space share bytes (an output
 *  that overlaps an input), 0 otherwise; empty matrices overlap nothing. */
int gcoo__dense_overlap(const gcoo_dense *a, const gcoo_dense *b);

/** The transpose of a dense matrix as a view of the same buffer (the readings' mapping:
 *  a column-major matrix read as row-major is its transpose). */
static inline gcoo_dense gcoo__dense_transposed(const gcoo_dense *D) {
  gcoo_dense T = *D;
  T.nrows = D->ncols;
  T.ncols = D->nrows;
  T.layout = D->layout == GCOO_ROW_MAJOR ? GCOO_COL_MAJOR : GCOO_ROW_MAJOR;
  T.owned = 0;
  return T;
}

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

/* ---- reproducible random numbers ------------------------------------------------------------
 * SplitMix64 seeding a xoshiro256** stream: the same seed gives the same numbers on every
 * platform, and on the GPU (kernels/backend/dense_random.cu runs these same functions).
 * gcoo__rng_jump-free streams per row/rank come from seeding with (seed, stream id). */
typedef struct gcoo_rng {
  uint64_t s[4];
} gcoo_rng;

static inline GCOO_HOST_DEVICE uint64_t gcoo__splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
/** Seed a generator from (seed, stream): different streams are independent sequences. */
static inline GCOO_HOST_DEVICE void gcoo__rng_seed(gcoo_rng *r, uint64_t seed, uint64_t stream) {
  uint64_t x = seed ^ (stream * 0xd1342543de82ef95ull + 0x2545f4914f6cdd1dull);
  for (int i = 0; i < 4; i++) r->s[i] = gcoo__splitmix64(&x);
}
static inline GCOO_HOST_DEVICE uint64_t gcoo__rng_next(gcoo_rng *r) {
  uint64_t *s = r->s;
  uint64_t t = s[1] << 17, x = s[1] * 5;
  uint64_t result = ((x << 7) | (x >> 57)) * 9;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = (s[3] << 45) | (s[3] >> 19);
  return result;
}
/** Uniform double in [0, 1) with 53 random bits. */
static inline GCOO_HOST_DEVICE double gcoo__rng_uniform(gcoo_rng *r) {
  return (double)(gcoo__rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}
/** Element j of row `row` of the random dense matrices of gcoo_dense_fill_random_rows: row
 *  `row`'s own stream (seed, row), uniform in [-1, 1); the caller rounds it to its element type.
 *  The one definition for the host (src/generate.c) and the GPU (kernels/backend/dense_random.cu). */
static inline GCOO_HOST_DEVICE void gcoo__dense_row_rng(gcoo_rng *r, uint64_t seed, int64_t row) {
  gcoo__rng_seed(r, seed ^ 0x5eed5eed5eed5eedull, (uint64_t)row);
}
static inline GCOO_HOST_DEVICE double gcoo__dense_row_next(gcoo_rng *r) {
  return 2.0 * gcoo__rng_uniform(r) - 1.0;
}
/** gcoo_ctx_dense_sums's order: a dense array's storage vectors (rows of a row-major matrix,
 *  columns of a column-major one) in blocks of GCOO_DENSE_SUM_BLOCK, each block's sum and sum of
 *  absolute values taken vector after vector, element after element, in double; the blocks are
 *  then added in order (src/blas.c). The one definition of a block's sums for the host and the
 *  GPU (kernels/backend/dense_sums.cu), so both give the same bits. */
#define GCOO_DENSE_SUM_BLOCK 256
#define GCOO__DENSE_BLOCK_SUM(T, sfx)                                                      \
  static inline GCOO_HOST_DEVICE void gcoo__dense_block_sum_##sfx(const T *d, int64_t ld,  \
                                                                  int64_t len, int64_t v0, \
                                                                  int64_t v1, double *sum, \
                                                                  double *abs) {           \
    double s = 0.0, a = 0.0;                                                               \
    for (int64_t v = v0; v < v1; v++)                                                      \
      for (int64_t e = 0; e < len; e++) {                                                  \
        const double x = (double)d[v * ld + e];                                            \
        s += x;                                                                            \
        a += x < 0 ? -x : x;                                                               \
      }                                                                                    \
    *sum = s;                                                                              \
    *abs = a;                                                                              \
  }
GCOO__DENSE_BLOCK_SUM(float, f32)
GCOO__DENSE_BLOCK_SUM(double, f64)
#undef GCOO__DENSE_BLOCK_SUM
/** gcoo_ctx_dense_sums's blocks of D: *nvec storage vectors of *len elements, returns the number
 *  of blocks; block b holds vectors [*v0, *v1) (gcoo__dense_sum_block). */
static inline int64_t gcoo__dense_sum_blocks(const gcoo_dense *D, int64_t *nvec, int64_t *len) {
  *nvec = D->layout == GCOO_ROW_MAJOR ? D->nrows : D->ncols;
  *len = D->layout == GCOO_ROW_MAJOR ? D->ncols : D->nrows;
  return (*nvec + GCOO_DENSE_SUM_BLOCK - 1) / GCOO_DENSE_SUM_BLOCK;
}
static inline GCOO_HOST_DEVICE void gcoo__dense_sum_block(int64_t b, int64_t nvec, int64_t *v0,
                                                          int64_t *v1) {
  *v0 = b * GCOO_DENSE_SUM_BLOCK;
  *v1 = *v0 + GCOO_DENSE_SUM_BLOCK < nvec ? *v0 + GCOO_DENSE_SUM_BLOCK : nvec;
}
/** Uniform integer in [0, n), n > 0, without modulo bias (Lemire's method). */
static inline uint64_t gcoo__rng_below(gcoo_rng *r, uint64_t n) {
  uint64_t x = gcoo__rng_next(r);
  __uint128_t m = (__uint128_t)x * n;
  uint64_t l = (uint64_t)m;
  if (l < n) {
    uint64_t t = (0 - n) % n;
    while (l < t) {
      x = gcoo__rng_next(r);
      m = (__uint128_t)x * n;
      l = (uint64_t)m;
    }
  }
  return (uint64_t)(m >> 64);
}

/** Raise GCOO_ERR_INVALID_ARG ("unknown element type N") unless t is float32 or float64. */
#define GCOO_CHECK_DTYPE(t)                                                    \
  GCOO_CHECK((t) == GCOO_FLOAT32 || (t) == GCOO_FLOAT64, GCOO_ERR_INVALID_ARG, \
             "unknown element type %d", (int)(t))

/* ---- searching a prefix sum ----------------------------------------------------------------- */
/** The i in [0, n) with off[i] <= x < off[i + 1], for nondecreasing off[0..n] with off[0] <= x <
 *  off[n] (binary search; empty segments are skipped): the row of entry x of a CSR matrix with
 *  row pointer off, or the bucket of x in a prefix sum. Host and device code. */
static inline GCOO_HOST_DEVICE int64_t gcoo__segment_of(const int64_t *off, int64_t n, int64_t x) {
  int64_t lo = 0, hi = n; /* off[lo] <= x < off[hi] */
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (off[mid] <= x)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/* ---- options and names (src/options.c) ----------------------------------------------------- */
/** The size-versioned options pattern of gcoo_op_options, gcoo_dist_op_options,
 *  gcoo_bcg_options, ...: out (out_size bytes, its first member the size_t size) holds the
 *  defaults; in, when not NULL, is copied over them up to in->size, and out's size becomes
 *  out_size. GCOO_ERR_INVALID_ARG when in->size is below sizeof(size_t) or above out_size
 *  (an uninitialised struct); init names the caller's initialiser macro in that message. */
gcoo_status gcoo__options_read(const void *in, void *out, size_t out_size, const char *init);
/** The number of elements of an array (not a pointer). */
#define GCOO_COUNT_OF(a) (sizeof(a) / sizeof *(a))
/** An enumeration's name from its table of n names: names[i], or "unknown" outside 0..n-1. */
const char *gcoo__name_of(const char *const *names, size_t n, int i);
/** The value whose name is name in the table, or -1 (also for name NULL). */
int gcoo__index_of(const char *const *names, size_t n, const char *name);

/* ---- objects ------------------------------------------------------------------------------ */
#define GCOO_MAGIC_CTX 0x67636f6f63747821ull    /* "gcooctx!" */
#define GCOO_MAGIC_SPARSE 0x67636f6f73707221ull /* "gcoospr!" */
#define GCOO_MAGIC_OP 0x67636f6f6f702121ull     /* "gcooop!!" */
#define GCOO_MAGIC_FREED 0xdeadbeefdeadbeefull

/** Raise GCOO_ERR_NULL / GCOO_ERR_INVALID_OBJECT for a bad handle (GraphBLAS's pattern). */
#define GCOO_VALID_OBJECT(obj, magic_value, what)                                         \
  do {                                                                                    \
    GCOO_CHECK((obj) != NULL, GCOO_ERR_NULL, "%s is NULL", (what));                       \
    GCOO_CHECK((obj)->magic == (magic_value), GCOO_ERR_INVALID_OBJECT,                    \
               "%s is not a valid object (%s)", (what),                                   \
               (obj)->magic == GCOO_MAGIC_FREED ? "already destroyed" : "uninitialised"); \
  } while (0)

/** Make an object that takes ownership of malloc'd arrays (freed with it, or on failure).
 *  No copy, no checks beyond sizes: for callers that built the arrays correctly themselves.
 *  For COO/GCOO ptr is NULL; for CSR/CSC rows/cols are NULL; gidx is only for GCOO. */
gcoo_status gcoo__sparse_adopt(gcoo_sparse *A, gcoo_format format, gcoo_dtype dtype, int64_t nrows,
                               int64_t ncols, int64_t nnz, int32_t p, int64_t *ptr, int32_t *ind,
                               int32_t *rows, int32_t *cols, int64_t *gidx, void *values);

/** The three arrays of a CSR matrix being built, malloc'd by the builder (NULL until then). The
 *  builder ends with gcoo__csr_arrays_adopt on success and gcoo__csr_arrays_free after its
 *  `done:` label, so one cleanup line serves every path. */
typedef struct gcoo__csr_arrays {
  int64_t *ptr; /* nrows + 1 row offsets */
  int32_t *ind; /* nnz column indices */
  void *values; /* nnz values of the matrix's dtype */
} gcoo__csr_arrays;
/** gcoo__sparse_adopt of a's arrays as an nrows x ncols CSR matrix with nnz entries: the
 *  matrix owns them on success, they are freed on failure; a is emptied either way. */
gcoo_status gcoo__csr_arrays_adopt(gcoo__csr_arrays *a, gcoo_sparse *out, gcoo_dtype dtype,
                                   int64_t nrows, int64_t ncols, int64_t nnz);
/** Free what a still holds (nothing after gcoo__csr_arrays_adopt) and empty it. */
void gcoo__csr_arrays_free(gcoo__csr_arrays *a);

/* ---- the operator's two frames (src/convert_frame.c): single passes, in place where possible
 * (docs/readings.md; docs/datapath.md). */
/** A copy in the same format (arrays copied, nothing re-sorted). */
gcoo_status gcoo__sparse_clone(gcoo_sparse A, gcoo_sparse *B);
/** A CSR matrix turned, in place, into the CSC of its transpose (or CSC into CSR): the same
 *  arrays, dimensions swapped. */
gcoo_status gcoo__sparse_flip_compressed(gcoo_sparse A);
/** CSR of A (m x k) -> GCOO of S = A^T (k x m), groups of p rows of A, in place: *A is consumed
 *  (its index array becomes the rows of S, its values are permuted inside each group; one new
 *  array, the columns of S). *A is destroyed on failure too. */
gcoo_status gcoo__csr_to_gcoo_of_transpose(gcoo_sparse *A, int32_t p, gcoo_sparse *S);
/** GCOO of S (k x m) -> CSR of A = S^T (m x k), a new matrix: one counting pass per group. */
gcoo_status gcoo__gcoo_to_csr_of_transpose(gcoo_sparse S, gcoo_sparse *A);
/** Row r of the new CSR *B is row order[r] of the CSR A (order: a permutation of 0 .. m - 1,
 *  checked; entries inside a row unchanged). */
gcoo_status gcoo__csr_rows_permuted(gcoo_sparse A, const int32_t *order, gcoo_sparse *B);
/** A caller's matrix (A for GCOO_SPARSE_DENSE, S for GCOO_DENSE_SPARSE, any format) as an owned
 *  copy in one of an operator's two frames, with at most one conversion: the CSR of A, or the
 *  GCOO of S as given. */
gcoo_status gcoo__sparse_frame_copy(gcoo_sparse A, gcoo_reading reading, gcoo_sparse *out);

/** An operator from a slab already in one of its two frames, taken over (no copy): *A is the
 *  CSR of A (m x k) or the GCOO of S = A^T (k x m, groups of rows of A), whatever the reading
 *  in opts (which only decides how apply reads its operands). *A is NULL afterwards, on
 *  failure too. */
gcoo_status gcoo__op_create_take(gcoo_op *op, gcoo_ctx ctx, gcoo_sparse *A,
                                 const gcoo_op_options *opts);
/** The operator's matrix as a new CSR of A (the SPARSE_DENSE frame), from what it holds. */
gcoo_status gcoo__op_csr(gcoo_op op, gcoo_sparse *A_csr);
/** Rows rows[0..n) (strictly increasing, local to the operator, A frame) as a new n x k CSR,
 *  from what the operator holds on the host; for checks, O(entries of the rows' groups). */
gcoo_status gcoo__op_rows(gcoo_op op, const int64_t *rows, int64_t n, gcoo_sparse *R);

/* ---- small dense algebra on the host (src/smallmat.c), row-major k x k in double ----------- */
/** Cholesky A = L L^T in place (lower triangle; upper zeroed); GCOO_ERR_BREAKDOWN if not SPD. */
gcoo_status gcoo__chol(int64_t n, double *A);
/** Solve L L^T X = B in place, B n x nrhs row-major. */
void gcoo__chol_solve(int64_t n, const double *L, int64_t nrhs, double *B);
/** From a Gram matrix G = W^T W (k x k), a k x rank transform T (row-major, leading dimension
 *  rank) with W T orthonormal, by Cholesky with diagonal pivoting that stops at pivots below
 *  rank_tol * max diag(G): dependent or vanishing columns of W are dropped, not divided by. */
gcoo_status gcoo__orth_transform(int64_t k, const double *G, double rank_tol, double *T,
                                 int64_t *rank);

/* The backends, written once: X(id, table, compiled, label, how to get it). A backend whose
 * `compiled` is 0 gets its table from src/backend_stubs.c, generated from this list: creating a
 * context on it fails with "the <label> backend is not compiled into this gcoo (<how>)". */
#define GCOO_BACKEND_LIST(X)                          \
  X(cpu, gcoo__backend_cpu, 1, "CPU", "")             \
  X(cuda, gcoo__backend_cuda, GCOO_HAVE_CUDA, "CUDA", \
    "rebuild with a CUDA compiler and -DGCOO_ENABLE_CUDA=ON")
#define GCOO_BACKEND_DECLARE_(id, table, compiled, label, how) extern const gcoo_backend_ops table;
GCOO_BACKEND_LIST(GCOO_BACKEND_DECLARE_)
#undef GCOO_BACKEND_DECLARE_

/** SpGEMM on a CUDA context (kernels/spgemm/spgemm.cu, or src/spgemm_cuda_stub.c when not compiled);
 *  opts is complete (defaults filled in by gcoo_spgemm). */
gcoo_status gcoo__spgemm_cuda(gcoo_ctx ctx, gcoo_sparse A, gcoo_sparse B,
                              const gcoo_spgemm_options *opts, gcoo_sparse *C,
                              gcoo_spgemm_info *info);
/* The GPU predictor (kernels/spgemm/spgemm.cu, method CLASSES: the estimate of gcoo_predict with
 * GCOO_PREDICT_CLASSES for the same seed), row_flop and row_nnz always filled; a build without
 * CUDA reports "not compiled". */
gcoo_status gcoo__predict_cuda(gcoo_ctx ctx, gcoo_sparse A, gcoo_sparse B,
                               const gcoo_predict_options *opts, gcoo_prediction *pred);

/* ---- device-resident solver iterations (kernels/solver/; src/solver_cuda_stub.c) ------
 * The CUDA side of solver/ksp_bcg.c. Single right-hand side on one rank: PCG in fused kernels replayed
 * as CUDA graphs, the state on the device. Block CG: the k x k steps, the preconditioner with the
 * residual norms, and the convergence test on the device; the host only queues work and reads a
 * snapshot of the state asynchronously. */
typedef struct gcoo__pcg_device {
  gcoo_op A; /* in: square local operator of a CUDA context (its device CSR is used) */
  gcoo_dtype dtype;
  int64_t n;
  const void *b;    /* in: device, n values */
  void *x;          /* in: initial guess; out: solution (device) */
  const void *dinv; /* in: device inverse diagonal, or NULL (no preconditioner) */
  double rtol;
  int64_t maxit;
  double *history;    /* host, maxit + 1 values, or NULL */
  int64_t iterations; /* out */
  int converged, breakdown;
  double residual;                      /* final recursive ||r|| / ||b|| */
  double t_spmm, t_update, t_direction; /* GPU seconds of each kernel in iteration 2 */
  double t_first_batch;     /* GPU seconds of the first graph_iterations (plain launches) */
  double t_iterate;         /* wall seconds from the first iteration queued to the last one done */
  int64_t graph_iterations; /* iterations per graph replay */
} gcoo__pcg_device;
gcoo_status gcoo__cuda_pcg(gcoo_ctx ctx, gcoo__pcg_device *p);

/** dinv = 1 / diag(A) from the square local operator's device CSR (device memory, A's element
 *  type); *bad_row: the first local row whose diagonal is not positive and finite (its value in
 *  *bad_value), -1 if none. Synchronises (set-up). */
gcoo_status gcoo__cuda_inverse_diagonal(gcoo_op A, void *dinv, int64_t *bad_row, double *bad_value);

typedef struct gcoo__bcg_device gcoo__bcg_device;
typedef enum gcoo__bcg_step {
  GCOO__BCG_STORE_B2, /* red[0, k) = ||B_j||^2 kept */
  GCOO__BCG_CHECK0,   /* red[0, k) = ||R_j||^2: iteration 0 recorded */
  GCOO__BCG_ALPHA,    /* red = [P^T Q | P^T R] (k x k each): coef 0 = alpha */
  GCOO__BCG_CHECK,    /* red = [||R_j||^2 (k) | Q^T Z (k x k)]: count, record, coef 1 = beta */
  GCOO__BCG_ORTH      /* red = W^T W: coef 2 = T (columns past the rank zero) */
} gcoo__bcg_step;
enum { GCOO__BCG_SPMM, GCOO__BCG_REDUCE, GCOO__BCG_BLAS, GCOO__BCG_PRECOND, GCOO__BCG_PHASES };
typedef struct gcoo__bcg_outcome {
  int64_t iterations, *column_iterations; /* column_iterations, residual: k values (caller's) */
  double *residual, *history;             /* history: (maxit + 1) x k or NULL */
  int converged, breakdown, min_rank;
  double bad_pivot;
  double phase_seconds[GCOO__BCG_PHASES]; /* GPU time between the phase marks */
  int64_t explicit_blocks;                /* the W form's iterations with P formed explicitly */
} gcoo__bcg_outcome;
gcoo_status gcoo__cuda_bcg_create(gcoo_ctx ctx, gcoo_dtype dt, int64_t n, int64_t k, double rtol,
                                  double rank_tol, int64_t maxit, int history,
                                  gcoo__bcg_device **h);
void gcoo__cuda_bcg_destroy(gcoo__bcg_device *h);
/** The reduction buffer (2 k^2 + k values of dt) and coefficient matrix `which` (0 alpha,
 *  1 beta, 2 T; k x k row-major, dt), device memory. */
void *gcoo__cuda_bcg_red(gcoo__bcg_device *h);
void *gcoo__cuda_bcg_coef(gcoo__bcg_device *h, int which);
gcoo_status gcoo__cuda_bcg_step(gcoo__bcg_device *h, gcoo__bcg_step step);
/** The W form (1) or the P form (0) of this solve (GCOO_BCG_WFORM). In the W form the search
 *  block P = W T is not formed: the caller runs the passes on W where it would run them on P (Q'
 *  = A W for Q, [W^T Q' | W^T R] for red, ...), the steps take T into their k x k products
 *  (coef 0 and 1 are then W's coefficients T alpha, T beta), and after the ORTH step
 *  gcoo__cuda_bcg_transform(W) replaces W by W T in place where W is ill-conditioned (T = I for
 *  the next iteration's steps), else leaves it. Then W is the next iteration's search block. */
int gcoo__cuda_bcg_wform(const gcoo__bcg_device *h);
gcoo_status gcoo__cuda_bcg_transform(gcoo__bcg_device *h, gcoo_dense *W);
/** W = diag(dinv) R (dinv NULL: W = R) and red[0, k) = ||R_j||^2, one pass over R. */
gcoo_status gcoo__cuda_bcg_precond_norms(gcoo__bcg_device *h, const gcoo_dense *dinv,
                                         const gcoo_dense *R, gcoo_dense *W);
/** The fused block-vector passes (kernels/solver/bcg_fused.cuh), for k in {8, 16, 32}
 *  (gcoo__cuda_bcg_fused: 0 none for this k, 1 there and faster than the GEMM path as measured,
 *  2 there but slower; the blocks P, Q, R, W, X n x k row-major, any ld):
 *  gram2:     red = [P^T Q | P^T R];
 *  update:    X += P alpha, R -= Q alpha, W = diag(dinv) R (dinv NULL: R), red = [||R_j||^2 | Q^T W];
 *  direction: W += P beta, red = W^T W   (alpha, beta: coefficient matrices 0 and 1). */
int gcoo__cuda_bcg_fused(const gcoo__bcg_device *h);
gcoo_status gcoo__cuda_bcg_gram2(gcoo__bcg_device *h, const gcoo_dense *P, const gcoo_dense *Q,
                                 const gcoo_dense *R);
gcoo_status gcoo__cuda_bcg_update(gcoo__bcg_device *h, const gcoo_dense *P, const gcoo_dense *Q,
                                  gcoo_dense *X, gcoo_dense *R, const gcoo_dense *dinv,
                                  gcoo_dense *W);
gcoo_status gcoo__cuda_bcg_direction(gcoo__bcg_device *h, const gcoo_dense *P, gcoo_dense *W);
/** Phase marks (phase < 0: start of iteration it), a snapshot of the state after iteration it,
 *  and the wait for that snapshot (done: the device has stopped). */
gcoo_status gcoo__cuda_bcg_mark(gcoo__bcg_device *h, int64_t it, int phase);
gcoo_status gcoo__cuda_bcg_post(gcoo__bcg_device *h, int64_t it);
gcoo_status gcoo__cuda_bcg_wait(gcoo__bcg_device *h, int64_t it, int *done);
gcoo_status gcoo__cuda_bcg_result(gcoo__bcg_device *h, gcoo__bcg_outcome *o);

struct gcoo_ctx_s {
  uint64_t magic;
  const gcoo_backend_ops *ops;
  int device;    /* CUDA ordinal, -1 on the CPU */
  void *stream;  /* cudaStream_t in use */
  void *backend; /* backend-private state (handles, own stream) */
};

struct gcoo_op_s {
  uint64_t magic;
  gcoo_ctx ctx;
  gcoo_op_options opts;
  gcoo_sparse S;     /* host GCOO of S = A^T (groups of p rows of A), or NULL */
  gcoo_sparse A_csr; /* host CSR of A (the SPARSE_DENSE frame), or NULL; at least one is set */
  gcoo_op_info info;
  void *backend; /* backend-private state (device arrays, descriptors) */
};

/** Check that a dimension fits the int32 index type. */
#define GCOO_CHECK_DIM(n, what)                                                        \
  GCOO_CHECK((n) >= 0 && (n) <= (int64_t)GCOO_INDEX_MAX, GCOO_ERR_TOO_LARGE,           \
             "%s = %lld does not fit a 32-bit index (max %d)", (what), (long long)(n), \
             GCOO_INDEX_MAX)

#ifdef __cplusplus
}
#endif
#endif
