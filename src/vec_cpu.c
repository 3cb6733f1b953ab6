/* SPDX-License-Identifier: MIT */
/* src/vec_cpu.c: the block-vector operations of gcoo_vec_ops on host memory (OpenMP), for every
 * backend: host operands of the solver layer always come here. The loops are in vec_cpu_impl.h;
 * this file holds the row split, the per-thread sums and the dispatch on the element type. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend_impl.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#if defined(__GNUC__)
#define GCOO_VEC_INLINE inline __attribute__((always_inline))
#else
#define GCOO_VEC_INLINE inline
#endif

/* Kernels whose work per element is more than a memory access (block CG's k x k products per
 * row) are compiled for AVX2 and AVX-512F beside the baseline, the CPU's features choosing at load
 * time (GCC's function multi-versioning); the rest are memory-bound and gain nothing from it. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(GCOO_SANITIZE_BUILD)
#define GCOO_VEC_CLONES __attribute__((target_clones("default", "avx2", "avx512f")))
#else
#define GCOO_VEC_CLONES
#endif

/* A pass runs on several threads when it has at least this many elements: below it, waking the
 * threads costs more than the loop (a few microseconds). */
#define VEC_PAR(n, k) ((n) * (k) >= 32768)

/* This thread's rows [*i0, *i1) of n, the same split in every pass; returns the thread number. */
static inline int vec_range(int64_t n, int64_t *i0, int64_t *i1) {
#ifdef _OPENMP
  const int t = omp_get_thread_num(), nt = omp_get_num_threads();
#else
  const int t = 0, nt = 1;
#endif
  *i0 = n * t / nt;
  *i1 = n * (t + 1) / nt;
  return t;
}

/* Per-thread sums of `count` values, each thread's slot on its own cache lines. */
typedef struct vec_partials {
  double stack[512];
  double *sums;
  int64_t count, stride;
  int nthreads;
} vec_partials;

static gcoo_status vec_partials_make(vec_partials *p, int64_t count) {
#ifdef _OPENMP
  p->nthreads = omp_get_max_threads();
#else
  p->nthreads = 1;
#endif
  p->count = count;
  p->stride = (count + 7) / 8 * 8 + 8;
  const int64_t total = p->stride * p->nthreads;
  p->sums = p->stack;
  if (total > (int64_t)(sizeof p->stack / sizeof p->stack[0]))
    GCOO_CALL(gcoo__malloc_n((void **)&p->sums, total, sizeof(double), "per-thread sums"));
  memset(p->sums, 0, (size_t)total * sizeof(double));
  return GCOO_SUCCESS;
}

static inline double *vec_partials_slot(vec_partials *p, int t) { return p->sums + t * p->stride; }

/* out = the slots added in thread order; frees the slots. */
static void vec_partials_sum(vec_partials *p, double *out) {
  for (int64_t q = 0; q < p->count; q++) {
    double s = 0.0;
    for (int t = 0; t < p->nthreads; t++) s += p->sums[t * p->stride + q];
    out[q] = s;
  }
  if (p->sums != p->stack) free(p->sums);
}

#define GCOO_TEMPLATE "vec_cpu_impl.h"
#include "gcoo/template.h"

double gcoo__blue_norm(const double *acc) {
  double asml = acc[0], amed = acc[1], abig = acc[2];
  if (abig > 0.0) {
    /* big values dominate: the mid-range joins them scaled down */
    if (amed > 0.0 || isnan(amed)) abig += (amed * GCOO_BLUE_SBIG) * GCOO_BLUE_SBIG;
    return sqrt(abig) / GCOO_BLUE_SBIG;
  }
  if (asml > 0.0) {
    if (amed > 0.0 || isnan(amed)) {
      /* both: combine the square roots, the smaller relative to the larger */
      const double m = sqrt(amed), s = sqrt(asml) / GCOO_BLUE_SSML;
      const double lo = s > m ? m : s, hi = s > m ? s : m;
      return hi * sqrt(1.0 + (lo / hi) * (lo / hi));
    }
    return sqrt(asml) / GCOO_BLUE_SSML;
  }
  return sqrt(amed);
}

/* ---- the table: checks of element types are the callers' (solver/blockvec.c) -------------- */
static gcoo_status host_fill(gcoo_ctx ctx, gcoo_dense *Y, double v) {
  (void)ctx;
  return GCOO_DISPATCH(Y->dtype, vec_fill, Y, v);
}
static gcoo_status host_axpby(gcoo_ctx ctx, const double *a, const gcoo_dense *X, const double *b,
                              gcoo_dense *Y) {
  (void)ctx;
  return GCOO_DISPATCH(Y->dtype, vec_axpby, a, X, b, Y);
}
static gcoo_status host_dots(gcoo_ctx ctx, int m, const gcoo_dense *const *X,
                             const gcoo_dense *const *Y, double *out) {
  (void)ctx;
  return GCOO_DISPATCH(X[0]->dtype, vec_dots, m, X, Y, out);
}
static gcoo_status host_maxpy(gcoo_ctx ctx, int m, const double *c, const gcoo_dense *const *X,
                              gcoo_dense *Y) {
  (void)ctx;
  return GCOO_DISPATCH(Y->dtype, vec_maxpy, m, c, X, Y);
}
static gcoo_status host_norm_acc(gcoo_ctx ctx, const gcoo_dense *X, double *acc) {
  (void)ctx;
  return GCOO_DISPATCH(X->dtype, vec_norm_acc, X, acc);
}
static gcoo_status host_diag_scale(gcoo_ctx ctx, const gcoo_dense *d, const gcoo_dense *X,
                                   gcoo_dense *Y) {
  (void)ctx;
  return GCOO_DISPATCH(Y->dtype, vec_diag_scale, d, X, Y);
}
static gcoo_status host_cg_update(gcoo_ctx ctx, const double *alpha, const gcoo_dense *P,
                                  const gcoo_dense *Q, gcoo_dense *X, gcoo_dense *R,
                                  const gcoo_dense *dinv, double *out) {
  (void)ctx;
  return GCOO_DISPATCH(R->dtype, vec_cg_update, alpha, P, Q, X, R, dinv, out);
}
static gcoo_status host_cg_direction(gcoo_ctx ctx, const double *beta, const gcoo_dense *dinv,
                                     const gcoo_dense *Z, gcoo_dense *P) {
  (void)ctx;
  return GCOO_DISPATCH(P->dtype, vec_cg_direction, beta, dinv, Z, P);
}
static gcoo_status host_pipecg_update(gcoo_ctx ctx, const double *alpha, const double *beta,
                                      gcoo_dense *const *v, double *out) {
  (void)ctx;
  return GCOO_DISPATCH(v[0]->dtype, vec_pipecg_update, alpha, beta, v, out);
}

static gcoo_status host_bcg_gram2(gcoo_ctx ctx, int64_t s, const gcoo_dense *P, const gcoo_dense *Q,
                                  const gcoo_dense *R, double *out) {
  (void)ctx;
  return GCOO_DISPATCH(R->dtype, vec_bcg_gram2, s, P, Q, R, out);
}
static gcoo_status host_bcg_update(gcoo_ctx ctx, int64_t s, const double *alpha,
                                   const gcoo_dense *P, const gcoo_dense *Q, gcoo_dense *X,
                                   gcoo_dense *R, const gcoo_dense *dinv, gcoo_dense *Z,
                                   double *out) {
  (void)ctx;
  GCOO_CHECK(R->ncols <= 64, GCOO_ERR_INTERNAL, "fused block update of %lld > 64 columns",
             (long long)R->ncols);
  return GCOO_DISPATCH(R->dtype, vec_bcg_update, s, alpha, P, Q, X, R, dinv, Z, out);
}
static gcoo_status host_bcg_direction(gcoo_ctx ctx, int64_t s, const double *beta,
                                      const gcoo_dense *P, const gcoo_dense *Z,
                                      const gcoo_dense *dinv, gcoo_dense *W, double *out) {
  (void)ctx;
  GCOO_CHECK(W->ncols <= 64, GCOO_ERR_INTERNAL, "fused block direction of %lld > 64 columns",
             (long long)W->ncols);
  return GCOO_DISPATCH(W->dtype, vec_bcg_direction, s, beta, P, Z, dinv, W, out);
}
static gcoo_status host_smooth_step(gcoo_ctx ctx, double a, double b, const gcoo_dense *dinv,
                                    const gcoo_dense *S, const gcoo_dense *W, gcoo_dense *R,
                                    gcoo_dense *D, gcoo_dense *X, int x_zero) {
  (void)ctx;
  return GCOO_DISPATCH(S->dtype, vec_smooth_step, a, b, dinv, S, W, R, D, X, x_zero);
}

const gcoo_vec_ops gcoo__vec_host = {
    .fill = host_fill,
    .axpby = host_axpby,
    .dots = host_dots,
    .maxpy = host_maxpy,
    .norm_acc = host_norm_acc,
    .diag_scale = host_diag_scale,
    .cg_update = host_cg_update,
    .cg_direction = host_cg_direction,
    .pipecg_update = host_pipecg_update,
    .bcg_gram2 = host_bcg_gram2,
    .bcg_update = host_bcg_update,
    .bcg_direction = host_bcg_direction,
    .smooth_step = host_smooth_step,
};
