/* SPDX-License-Identifier: MIT */
/* bench/spdm_measure.c: the SpDM benchmark's measuring: the device's two ceilings (a large
 * device-to-device copy, a large SGEMM), the operands of a case (identical values for every
 * method; column-major copies for cuSPARSE ALG_DEFAULT; several rotated copies when they fit in
 * L2), each method through gcoo_op_create / gcoo_op_apply on device operands (cuSPARSE's BSR
 * algorithm through cuSPARSE itself, spdm_bsr.c), timed with CUDA events under the benchmarks'
 * rule (bench_stat.h: a warm-up, then the median of at least 5 per-launch times, launches queued
 * behind a delay kernel), and checked on sampled rows against a double-precision product
 * computed on the host, a method outside bench_tolerance failing the case. Descriptors, buffers,
 * handles and conversions are made outside the timed region (operator set-up, timed apart as
 * each method's set-up, and the warm-up apply). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bench_stat.h"
#include "spdm_bench.h"

const char *const bench_method_names[M_COUNT] = {"faithful", "tuned",   "csp_default", "csp_alg2",
                                                 "csp_alg3", "csp_bsr", "sgemm",       "tf32",
                                                 "auto",     "tc"};

double bench_tolerance(int method, gcoo_dtype dtype) {
  if (method == M_TF32 || method == M_TC) return BENCH_TOL_TF32;
  return dtype == GCOO_FLOAT64 ? BENCH_TOL_DOUBLE : BENCH_TOL_FLOAT;
}

#define CK(x)                                                                                      \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) return GCOO_ERROR(GCOO_ERR_CUDA, "%s: %s", #x, cudaGetErrorString(e_)); \
  } while (0)

/* Largest dense copy of A the dense methods may make (bytes). */
#define BENCH_DENSE_MAX_BYTES (8.0e9)
/* Rows checked against the double-precision product. */
#define BENCH_CHECK_ROWS 24

void bench_printf(bench_env *E, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  fflush(stdout);
  if (E->log) {
    va_start(ap, fmt);
    vfprintf(E->log, fmt, ap);
    va_end(ap);
    fflush(E->log);
  }
}

double bench_elapsed(const bench_env *E) { return gcoo__wtime() - E->t0; }

int bench_over_budget(const bench_env *E, double fraction) {
  return E->budget_s > 0 && bench_elapsed(E) > fraction * E->budget_s;
}

/* ---- the device's ceilings ------------------------------------------------------------------ */
static gcoo_status measure_copy(bench_env *E) {
  const size_t bytes = (size_t)1 << 31;
  void *a = NULL, *b = NULL;
  cudaEvent_t e0, e1;
  CK(cudaMalloc(&a, bytes));
  CK(cudaMalloc(&b, bytes));
  CK(cudaMemsetAsync(a, 0x5a, bytes, E->stream));
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  CK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, E->stream));
  CK(cudaEventRecord(e0, E->stream));
  for (int i = 0; i < 10; i++)
    CK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, E->stream));
  CK(cudaEventRecord(e1, E->stream));
  CK(cudaEventSynchronize(e1));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, e0, e1));
  E->copy_gbs = 2.0 * (double)bytes * 10 / (ms * 1e-3) / 1e9;
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaFree(a);
  cudaFree(b);
  return GCOO_SUCCESS;
}

static gcoo_status measure_sgemm(bench_env *E) {
  const int n = 8192;
  gcoo_dense H;
  float *a = NULL, *c = NULL;
  cudaEvent_t e0, e1;
  GCOO_CALL(gcoo_dense_create(&H, GCOO_FLOAT32, GCOO_ROW_MAJOR, n, n));
  GCOO_CALL(gcoo_dense_fill_random(&H, 99));
  CK(cudaMalloc((void **)&a, (size_t)n * n * 4));
  CK(cudaMalloc((void **)&c, (size_t)n * n * 4));
  CK(cudaMemcpy(a, H.data, (size_t)n * n * 4, cudaMemcpyHostToDevice));
  gcoo_dense_destroy(&H);
  const float one = 1.0f, zero = 0.0f;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  if (cublasSgemm(E->blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, a, n, &zero, c, n) !=
      CUBLAS_STATUS_SUCCESS)
    return GCOO_ERROR(GCOO_ERR_CUBLAS, "SGEMM failed");
  CK(cudaEventRecord(e0, E->stream));
  for (int i = 0; i < 5; i++)
    cublasSgemm(E->blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, a, n, &zero, c, n);
  CK(cudaEventRecord(e1, E->stream));
  CK(cudaEventSynchronize(e1));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, e0, e1));
  E->sgemm_tflops = 2.0 * n * (double)n * n * 5 / (ms * 1e-3) / 1e12;
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaFree(a);
  cudaFree(c);
  return GCOO_SUCCESS;
}

gcoo_status bench_env_init(bench_env *E, const char *outdir, double budget_s) {
  memset(E, 0, sizeof *E);
  E->t0 = gcoo__wtime();
  E->budget_s = budget_s;
  E->outdir = outdir;
  char path[4096];
  snprintf(path, sizeof path, "%s/spdm_bench.log", outdir);
  E->log = fopen(path, "a");
  GCOO_CALL(gcoo_ctx_create(&E->ctx, "cuda"));
  E->stream = (cudaStream_t)gcoo_ctx_stream(E->ctx);
  GCOO_CALL(gcoo_cuda_ctx_devinfo(E->ctx, &E->dev));
  if (cublasCreate(&E->blas) != CUBLAS_STATUS_SUCCESS)
    return GCOO_ERROR(GCOO_ERR_CUBLAS, "cublasCreate");
  cublasSetStream(E->blas, E->stream);
  if (cusparseCreate(&E->sparse) != CUSPARSE_STATUS_SUCCESS)
    return GCOO_ERROR(GCOO_ERR_CUSPARSE, "cusparseCreate");
  cusparseSetStream(E->sparse, E->stream);
  char desc[512];
  GCOO_CALL(gcoo_ctx_describe(E->ctx, desc, sizeof desc));
  bench_printf(E, "device: %s\n", desc);
  GCOO_CALL(measure_copy(E));
  GCOO_CALL(measure_sgemm(E));
  bench_printf(E,
               "ceilings: device-to-device copy %.1f GB/s (read + write), SGEMM 8192^3 %.1f "
               "TFLOP/s (FP32 peak used for the floor)\n",
               E->copy_gbs, E->sgemm_tflops);
  return GCOO_SUCCESS;
}

void bench_env_fini(bench_env *E) {
  if (E->blas) cublasDestroy(E->blas);
  if (E->sparse) cusparseDestroy(E->sparse);
  gcoo_ctx_destroy(&E->ctx);
  if (E->log) fclose(E->log);
  if (E->csv) fclose(E->csv);
}

/* ---- operands ------------------------------------------------------------------------------ */
typedef struct operands {
  int R;               /* rotated copies */
  gcoo_dtype dtype;    /* float or double */
  void *X[8], *Y[8];   /* row-major, ld = N */
  void *Xc[8], *Yc[8]; /* column-major copies, ld = k and m (ALG_DEFAULT) */
  int64_t k, m, N;
} operands;

static void operands_free(operands *o) {
  for (int r = 0; r < 8; r++) {
    cudaFree(o->X[r]);
    cudaFree(o->Y[r]);
    cudaFree(o->Xc[r]);
    cudaFree(o->Yc[r]);
  }
  memset(o, 0, sizeof *o);
}

static gcoo_status operands_make(bench_env *E, const gcoo_dense *Xh, int64_t m, int need_col,
                                 int64_t footprint, operands *o) {
  memset(o, 0, sizeof *o);
  o->k = Xh->nrows;
  o->N = Xh->ncols;
  o->m = m;
  o->dtype = Xh->dtype;
  o->R = 1;
  if ((double)footprint * 2 < (double)E->dev.l2_bytes) {
    o->R = (int)ceil(3.0 * (double)E->dev.l2_bytes / (double)(footprint > 0 ? footprint : 1));
    if (o->R > 8) o->R = 8;
  }
  const size_t es = gcoo_dtype_size(o->dtype);
  const size_t xb = (size_t)(o->k * o->N) * es, yb = (size_t)(m * o->N) * es;
  for (int r = 0; r < o->R; r++) {
    CK(cudaMalloc((void **)&o->X[r], xb ? xb : 4));
    CK(cudaMalloc((void **)&o->Y[r], yb ? yb : 4));
    if (xb) CK(cudaMemcpy(o->X[r], Xh->data, xb, cudaMemcpyHostToDevice));
    if (need_col) {
      CK(cudaMalloc((void **)&o->Xc[r], xb ? xb : 4));
      CK(cudaMalloc((void **)&o->Yc[r], yb ? yb : 4));
      /* Xc (k x N column-major) = transpose of X seen as column-major N x k */
      const float one = 1.0f, zero = 0.0f;
      const double done = 1.0, dzero = 0.0;
      if (xb) CK(cudaMemsetAsync(o->Xc[r], 0, xb, E->stream));
      const cublasStatus_t bs = !xb ? CUBLAS_STATUS_SUCCESS
                                : o->dtype == GCOO_FLOAT64
                                    ? cublasDgeam(E->blas, CUBLAS_OP_T, CUBLAS_OP_N, (int)o->k,
                                                  (int)o->N, &done, o->X[r], (int)o->N, &dzero,
                                                  o->Xc[r], (int)o->k, o->Xc[r], (int)o->k)
                                    : cublasSgeam(E->blas, CUBLAS_OP_T, CUBLAS_OP_N, (int)o->k,
                                                  (int)o->N, &one, o->X[r], (int)o->N, &zero,
                                                  o->Xc[r], (int)o->k, o->Xc[r], (int)o->k);
      if (bs != CUBLAS_STATUS_SUCCESS) return GCOO_ERROR(GCOO_ERR_CUBLAS, "transpose of X failed");
    }
  }
  CK(cudaStreamSynchronize(E->stream));
  return GCOO_SUCCESS;
}

static gcoo_dense dev_dense(void *p, gcoo_dtype dt, gcoo_layout l, int64_t r, int64_t c) {
  gcoo_dense D = gcoo_dense_wrap(p, dt, l, r, c, 0);
  if (D.ld < 1) D.ld = 1;
  D.mem = GCOO_MEM_DEVICE;
  return D;
}

/* ---- checking: sampled rows against a double-precision product on the host ---------------- */
typedef struct checker {
  int nrows;
  gcoo_dtype dtype;
  int64_t rows[BENCH_CHECK_ROWS];
  double *ref;  /* nrows x N */
  double *mag;  /* nrows x N: (|A||X|)_ij, for the tensor-core mode's per-element bound */
  int64_t *len; /* nrows: entries of each sampled row */
  void *got;    /* N */
} checker;

static gcoo_status checker_make(gcoo_sparse A, const gcoo_dense *Xh, checker *ck) {
  gcoo_sparse_info ai;
  gcoo_sparse_arrays a;
  GCOO_CALL(gcoo_sparse_get_info(A, &ai));
  GCOO_CALL(gcoo_sparse_get_arrays(A, &a));
  const int64_t N = Xh->ncols;
  ck->nrows = ai.nrows < BENCH_CHECK_ROWS ? (int)ai.nrows : BENCH_CHECK_ROWS;
  GCOO_CALL(gcoo__calloc((void **)&ck->ref,
                         (size_t)(ck->nrows > 0 ? ck->nrows : 1) * (size_t)(N > 0 ? N : 1), 8,
                         "check rows"));
  GCOO_CALL(gcoo__calloc((void **)&ck->mag,
                         (size_t)(ck->nrows > 0 ? ck->nrows : 1) * (size_t)(N > 0 ? N : 1), 8,
                         "check rows"));
  GCOO_CALL(
      gcoo__calloc((void **)&ck->len, (size_t)(ck->nrows > 0 ? ck->nrows : 1), 8, "check rows"));
  ck->dtype = ai.dtype;
  GCOO_CALL(gcoo__calloc((void **)&ck->got, (size_t)(N > 0 ? N : 1), 8, "check row"));
  const int dbl = ai.dtype == GCOO_FLOAT64;
  const float *x = Xh->data, *v = a.values;
  const double *xd = Xh->data, *vd = a.values;
  for (int s = 0; s < ck->nrows; s++)
    ck->rows[s] = (int64_t)((double)s * (double)ai.nrows / ck->nrows + 0.5) % ai.nrows;
#pragma omp parallel for schedule(dynamic, 1)
  for (int s = 0; s < ck->nrows; s++) {
    const int64_t i = ck->rows[s];
    double *r = ck->ref + (size_t)s * (size_t)N, *g = ck->mag + (size_t)s * (size_t)N;
    ck->len[s] = a.ptr[i + 1] - a.ptr[i];
    for (int64_t e = a.ptr[i]; e < a.ptr[i + 1]; e++)
      for (int64_t j = 0; j < N; j++) {
        const size_t xi = (size_t)a.ind[e] * (size_t)N + (size_t)j;
        const double t = dbl ? vd[e] * xd[xi] : (double)v[e] * (double)x[xi];
        r[j] += t;
        g[j] += fabs(t);
      }
  }
  return GCOO_SUCCESS;
}

static void checker_free(checker *ck) {
  free(ck->ref);
  free(ck->mag);
  free(ck->len);
  free(ck->got);
  memset(ck, 0, sizeof *ck);
}

/* ||Y - ref|| / ||ref|| over the sampled rows of Y (row- or column-major on the device).
 * *bound (optional): the worst |y - ref| / ((2^-10 + (n_i + 4) 2^-23) (|A||X|)_ij + 1e-30), the
 * tensor-core mode's per-element bound (docs/kernels.md, "The tensor-core mode"; alpha = 1, beta =
 * 0 here). */
static double check_rows(const checker *ck, const void *Yv, gcoo_layout l, int64_t m, int64_t N,
                         double *bound) {
  double e = 0, r = 0, worst = 0;
  const size_t es = gcoo_dtype_size(ck->dtype);
  const char *Y = Yv;
  for (int s = 0; s < ck->nrows; s++) {
    const int64_t i = ck->rows[s];
    cudaError_t ce = l == GCOO_ROW_MAJOR
                         ? cudaMemcpy(ck->got, Y + (size_t)i * (size_t)N * es, (size_t)N * es,
                                      cudaMemcpyDeviceToHost)
                         : cudaMemcpy2D(ck->got, es, Y + (size_t)i * es, (size_t)m * es, es,
                                        (size_t)N, cudaMemcpyDeviceToHost);
    if (ce != cudaSuccess) return INFINITY;
    for (int64_t j = 0; j < N; j++) {
      const double g = es == 8 ? ((const double *)ck->got)[j] : ((const float *)ck->got)[j];
      const double f = ck->ref[(size_t)s * (size_t)N + (size_t)j];
      if (isnan(g)) {
        if (bound) *bound = INFINITY;
        return INFINITY;
      }
      e += (g - f) * (g - f);
      r += f * f;
      const double b = (0x1p-10 + (double)(ck->len[s] + 4) * 0x1p-23) *
                           ck->mag[(size_t)s * (size_t)N + (size_t)j] +
                       1e-30;
      if (fabs(g - f) / b > worst) worst = fabs(g - f) / b;
    }
  }
  if (bound) *bound = worst;
  return r > 0 ? sqrt(e / r) : (e == 0 ? 0.0 : INFINITY);
}

/* ---- timing ---------------------------------------------------------------------------------- */
/* One launch of a method on operand copy `slot` (queued on E's stream, not synchronised). */
typedef gcoo_status (*bench_launch)(void *ctx, int slot);

typedef struct op_launch { /* a gcoo operator (gcoo's methods and cuSPARSE's through gcoo) */
  gcoo_op op;
  gcoo_dense *X, *Y;
} op_launch;

static gcoo_status launch_op(void *ctx, int slot) {
  op_launch *l = ctx;
  return gcoo_op_apply(l->op, 1.0, &l->X[slot], 0.0, &l->Y[slot]);
}

typedef struct bsr_launch {
  bench_env *E;
  bench_bsr *B;
} bsr_launch;

static gcoo_status launch_bsr(void *ctx, int slot) {
  bsr_launch *l = ctx;
  return bench_bsr_apply(l->E, l->B, slot);
}

/* Median ms of repeated launches on the rotated operands (bench_stat.h: at least BENCH_MIN_RUNS,
 * about 80 ms in all, at most 60); first_ms sizes the repetitions. */
static double time_launches(bench_env *E, bench_launch f, void *ctx, int R, double first_ms,
                            int *reps_out) {
  enum { MAX_REPS = 60 };
  const int reps = bench_runs(first_ms, 80.0, MAX_REPS);
  cudaEvent_t ev[2 * MAX_REPS];
  double t[MAX_REPS];
  for (int i = 0; i < 2 * reps; i++) cudaEventCreate(&ev[i]);
  if (first_ms < 2.0) bench_delay(E->stream, reps * 30.0 + 200.0);
  int ok = 1;
  for (int r = 0; r < reps && ok; r++) {
    cudaEventRecord(ev[2 * r], E->stream);
    ok = f(ctx, r % R) >= 0;
    cudaEventRecord(ev[2 * r + 1], E->stream);
  }
  double ms = -1;
  if (ok && cudaStreamSynchronize(E->stream) == cudaSuccess) {
    for (int r = 0; r < reps; r++) {
      float x = 0;
      cudaEventElapsedTime(&x, ev[2 * r], ev[2 * r + 1]);
      t[r] = x;
    }
    ms = bench_median(t, reps);
  }
  for (int i = 0; i < 2 * reps; i++) cudaEventDestroy(ev[i]);
  *reps_out = reps;
  return ms;
}

/* One launch timed alone (after the warm-up), to size the repetitions. */
static double time_once(bench_env *E, bench_launch f, void *ctx) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  cudaEventRecord(a, E->stream);
  gcoo_status st = f(ctx, 0);
  cudaEventRecord(b, E->stream);
  float x = -1;
  if (st >= 0 && cudaEventSynchronize(b) == cudaSuccess) cudaEventElapsedTime(&x, a, b);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return st >= 0 ? x : -1;
}

static gcoo_spdm_alg method_alg(bench_method m) {
  switch (m) {
    case M_FAITHFUL: return GCOO_ALG_GCOO_FAITHFUL;
    case M_TUNED: return GCOO_ALG_GCOO;
    case M_CSP_DEFAULT: return GCOO_ALG_CUSPARSE_DEFAULT;
    case M_CSP_ALG2: return GCOO_ALG_CUSPARSE_CSR_ALG2;
    case M_CSP_ALG3: return GCOO_ALG_CUSPARSE_CSR_ALG3;
    case M_SGEMM: return GCOO_ALG_DENSE;
    case M_TF32: return GCOO_ALG_DENSE_TF32;
    case M_TC: return GCOO_ALG_AUTO; /* with math = GCOO_MATH_TF32 */
    default: return GCOO_ALG_AUTO;
  }
}

/* The check against the tolerance: res->fail when the error is outside it. */
static void judge(bench_case *c, bench_method m) {
  bench_result *res = &c->r[m];
  res->fail = !(res->relerr <= bench_tolerance(m, c->dtype));
  if (res->fail)
    snprintf(res->note, sizeof res->note, "FAIL: error %.2e > %.0e", res->relerr,
             bench_tolerance(m, c->dtype));
}

/* After the warm-up and its check: the timing (a first launch alone sizes the repetitions). */
static void time_method(bench_env *E, bench_result *res, bench_launch f, void *ctx, int R) {
  const double first = time_once(E, f, ctx);
  int reps = 0;
  res->ms = first < 0 ? -1 : time_launches(E, f, ctx, R, first, &reps);
}

/* Warm up, check and time one method's operator on one case's operands. */
static void run_method(bench_env *E, bench_case *c, bench_method m, gcoo_op op, operands *o,
                       const checker *ck) {
  bench_result *res = &c->r[m];
  res->ms = -1;
  res->relerr = NAN;
  res->bound = NAN;
  const int col = m == M_CSP_DEFAULT;
  const int csp = m == M_CSP_DEFAULT || m == M_CSP_ALG2 || m == M_CSP_ALG3;
  /* cuSPARSE on operands with no NaN: no defensive clearing of Y (see gcoo_kernels.h) */
  if (csp) gcoo_cuda_op_set_option(op, GCOO_CUDA_OPT_CUSPARSE_NO_CLEAR, 1);
  gcoo_dense X[8], Y[8];
  for (int r = 0; r < o->R; r++) {
    X[r] = col ? dev_dense(o->Xc[r], o->dtype, GCOO_COL_MAJOR, o->k, o->N)
               : dev_dense(o->X[r], o->dtype, GCOO_ROW_MAJOR, o->k, o->N);
    Y[r] = col ? dev_dense(o->Yc[r], o->dtype, GCOO_COL_MAJOR, o->m, o->N)
               : dev_dense(o->Y[r], o->dtype, GCOO_ROW_MAJOR, o->m, o->N);
    cudaMemsetAsync(Y[r].data, 0xff, (size_t)(o->m * o->N) * gcoo_dtype_size(o->dtype),
                    E->stream); /* NaN */
  }
  op_launch l = {op, X, Y};
  /* warm-up (plans, caches) on NaN-poisoned Y with beta = 0, then the check */
  gcoo_status st = launch_op(&l, 0);
  if (st >= 0) st = gcoo_ctx_synchronize(E->ctx);
  if (st < 0) {
    snprintf(res->note, sizeof res->note, "apply: %s", gcoo_status_name(st));
    bench_printf(E, "  %s N=%lld %s: apply failed: %s\n", c->name, (long long)c->N,
                 bench_method_names[m], gcoo_last_error());
    return;
  }
  res->relerr = check_rows(ck, Y[0].data, Y[0].layout, o->m, o->N, &res->bound);
  if (csp && !isfinite(res->relerr)) {
    bench_printf(E,
                 "  %s N=%lld %s: cuSPARSE kept the NaN of Y with beta = 0; clearing Y first "
                 "from now on\n",
                 c->name, (long long)c->N, bench_method_names[m]);
    gcoo_cuda_op_set_option(op, GCOO_CUDA_OPT_CUSPARSE_NO_CLEAR, 0);
    launch_op(&l, 0);
    gcoo_ctx_synchronize(E->ctx);
    res->relerr = check_rows(ck, Y[0].data, Y[0].layout, o->m, o->N, &res->bound);
    snprintf(res->note, sizeof res->note, "cuSPARSE read Y at beta=0");
  }
  judge(c, m);
  time_method(E, res, launch_op, &l, o->R);
  if (m == M_TUNED || m == M_AUTO || m == M_TC) {
    gcoo_cuda_op_details d;
    if (gcoo_cuda_op_get_details(op, &d) >= 0)
      *(m == M_TUNED ? &c->tuned : m == M_AUTO ? &c->autod : &c->tcd) = d;
  }
}

/* cuSPARSE's BSR algorithm on one case: its operator made (set-up timed), warmed up on NaN-poisoned
 * Y, checked, timed; row-major operands, column-major where cuSPARSE refuses those. */
static void run_bsr(bench_env *E, bench_case *c, gcoo_sparse A, operands *o, const checker *ck) {
  bench_result *res = &c->r[M_CSP_BSR];
  res->ms = -1;
  res->relerr = NAN;
  res->bound = NAN;
  bench_bsr B;
  gcoo_status st = bench_bsr_make(E, A, c->bsr_dim, &B);
  gcoo_layout layout = GCOO_ROW_MAJOR;
  for (int r = 0; st >= 0 && r < o->R; r++)
    st = bench_bsr_bind(E, &B, r, o->X[r], o->Y[r], o->N, layout);
  if (st == GCOO_ERR_UNSUPPORTED && o->Xc[0]) { /* column-major operands instead */
    bench_bsr_unbind(&B);
    layout = GCOO_COL_MAJOR;
    st = GCOO_SUCCESS;
    for (int r = 0; st >= 0 && r < o->R; r++)
      st = bench_bsr_bind(E, &B, r, o->Xc[r], o->Yc[r], o->N, layout);
  }
  c->setup_ms[M_CSP_BSR] = B.setup_ms;
  void *Y0 = layout == GCOO_ROW_MAJOR ? o->Y[0] : o->Yc[0];
  for (int r = 0; st >= 0 && r < o->R; r++)
    cudaMemsetAsync(layout == GCOO_ROW_MAJOR ? o->Y[r] : o->Yc[r], 0xff,
                    (size_t)(o->m * o->N) * gcoo_dtype_size(o->dtype), E->stream); /* NaN */
  bsr_launch l = {E, &B};
  if (st >= 0) st = launch_bsr(&l, 0);
  if (st >= 0 && cudaStreamSynchronize(E->stream) != cudaSuccess)
    st = GCOO_ERROR(GCOO_ERR_CUDA, "BSR SpMM");
  if (st < 0) {
    snprintf(res->note, sizeof res->note, "%s", gcoo_status_name(st));
    bench_printf(E, "  %s N=%lld csp_bsr (%d x %d blocks): %s\n", c->name, (long long)c->N,
                 c->bsr_dim, c->bsr_dim, gcoo_last_error());
    bench_bsr_free(&B);
    return;
  }
  res->relerr = check_rows(ck, Y0, layout, o->m, o->N, &res->bound);
  judge(c, M_CSP_BSR);
  time_method(E, res, launch_bsr, &l, o->R);
  if (layout == GCOO_COL_MAJOR && !res->fail)
    snprintf(res->note, sizeof res->note, "column-major operands");
  bench_bsr_free(&B);
}

/* The cases share one matrix and differ in N: the operands of every case are made first, then
 * each method's operator is made once (hint: the middle N) and applied to every case; AUTO's and
 * the tuned kernel's, whose choice depends on the hint, once per case. */
gcoo_status bench_run_case(bench_env *E, bench_case *cs, int nc, const int run[M_COUNT]) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_sparse_info ai;
  GCOO_CALL(gcoo_sparse_get_info(cs[0].A, &ai));
  operands o[4];
  checker ck[4];
  memset(o, 0, sizeof o);
  memset(ck, 0, sizeof ck);
  GCOO_CHECK(nc >= 1 && nc <= 4, GCOO_ERR_INVALID_ARG, "1..4 widths per matrix");
  for (int i = 0; i < nc; i++) {
    bench_case *c = &cs[i];
    c->dtype = ai.dtype;
    c->m = ai.nrows;
    c->k = ai.ncols;
    c->nnz = ai.nnz;
    c->best_csp = -1;
    for (int m = 0; m < M_COUNT; m++) {
      c->r[m].ms = -1;
      c->r[m].relerr = NAN;
      c->r[m].bound = NAN;
      c->r[m].fail = 0;
      c->setup_ms[m] = -1;
      snprintf(c->r[m].note, sizeof c->r[m].note, "-");
    }
  }
  /* cuSPARSE's BSR algorithm where A is made of dense blocks */
  double fill = INFINITY;
  const int bdim = run[M_CSP_BSR] ? bench_bsr_block(cs[0].A, &fill) : 0;
  for (int i = 0; i < nc; i++) {
    cs[i].bsr_dim = bdim;
    cs[i].bsr_fill = fill;
    if (run[M_CSP_BSR] && !bdim)
      snprintf(cs[i].r[M_CSP_BSR].note, sizeof cs[i].r[M_CSP_BSR].note,
               "no dense blocks (fill %.2f)", fill);
  }
  for (int i = 0; i < nc && st >= 0; i++) {
    gcoo_dense Xh;
    GCOO_GOTO(gcoo_dense_create(&Xh, ai.dtype, GCOO_ROW_MAJOR, ai.ncols, cs[i].N));
    st = gcoo_dense_fill_random(&Xh, 4242);
    const int64_t es = (int64_t)gcoo_dtype_size(ai.dtype);
    const int64_t footprint = (ai.ncols + ai.nrows) * cs[i].N * es + ai.nnz * (es + 4);
    const int need_col = run[M_CSP_DEFAULT] || (run[M_CSP_BSR] && bdim);
    if (st >= 0) st = operands_make(E, &Xh, ai.nrows, need_col, footprint, &o[i]);
    if (st >= 0) st = checker_make(cs[i].A, &Xh, &ck[i]);
    gcoo_dense_destroy(&Xh);
    GCOO_GOTO(st);
  }
  const double dense_bytes = (double)ai.nrows * (double)ai.ncols *
                             (double)gcoo_dtype_size(ai.dtype);
  for (int m = 0; m < M_COUNT; m++) {
    if (!run[m]) continue;
    if (m == M_CSP_BSR) {
      for (int i = 0; bdim && i < nc && !bench_over_budget(E, 1.0); i++)
        run_bsr(E, &cs[i], cs[0].A, &o[i], &ck[i]);
      continue;
    }
    if ((m == M_TF32 || m == M_TC) && ai.dtype != GCOO_FLOAT32) {
      for (int i = 0; i < nc; i++) snprintf(cs[i].r[m].note, sizeof cs[i].r[m].note, "float only");
      continue;
    }
    if ((m == M_SGEMM || m == M_TF32) && dense_bytes > BENCH_DENSE_MAX_BYTES) {
      for (int i = 0; i < nc; i++)
        snprintf(cs[i].r[m].note, sizeof cs[i].r[m].note, "dense A %.0f GB", dense_bytes / 1e9);
      continue;
    }
    if (bench_over_budget(E, 1.0)) {
      for (int i = 0; i < nc; i++) snprintf(cs[i].r[m].note, sizeof cs[i].r[m].note, "budget");
      continue;
    }
    /* AUTO (also in the TF32 mode) and the tuned kernel choose from the operator's N hint (their
     * documented contract:
     * docs/dispatch.md), so each case gets its own operator made with its N; the others are
     * made once for every case (hint: the middle N) */
    const int per_case = m == M_AUTO || m == M_TUNED || m == M_TC;
    for (int i0 = 0; i0 < nc; i0 += per_case ? 1 : nc) {
      const int i1 = per_case ? i0 + 1 : nc;
      gcoo_op_options opt = GCOO_OP_OPTIONS_INIT;
      opt.alg = method_alg((bench_method)m);
      opt.ncols_hint = per_case ? cs[i0].N : cs[nc / 2].N;
      if (m == M_FAITHFUL) opt.p = 4;
      if (m == M_TC) opt.math = GCOO_MATH_TF32;
      gcoo_op op = NULL;
      gcoo_status s2 = gcoo_op_create(&op, E->ctx, cs[0].A, &opt);
      if (s2 < 0) {
        bench_printf(E, "  %s %s: setup failed: %s\n", cs[0].name, bench_method_names[m],
                     gcoo_last_error());
        for (int i = i0; i < i1; i++)
          snprintf(cs[i].r[m].note, sizeof cs[i].r[m].note, "setup: %s", gcoo_status_name(s2));
        continue;
      }
      gcoo_op_info info;
      gcoo_op_get_info(op, &info);
      for (int i = i0; i < i1; i++) {
        cs[i].setup_ms[m] = 1e3 * info.setup_seconds;
        if (m == M_TUNED) cs[i].tuned_setup_ms = 1e3 * info.setup_seconds;
        if (m == M_AUTO) cs[i].auto_setup_ms = 1e3 * info.setup_seconds;
        run_method(E, &cs[i], (bench_method)m, op, &o[i], &ck[i]);
      }
      gcoo_op_destroy(&op);
    }
  }
  for (int i = 0; i < nc; i++) {
    bench_case *c = &cs[i];
    /* the peer: the fastest cuSPARSE algorithm within the tolerance, BSR included */
    for (int m = M_CSP_DEFAULT; m <= M_CSP_BSR; m++)
      if (c->r[m].ms > 0 && !c->r[m].fail && (c->best_csp < 0 || c->r[m].ms < c->r[c->best_csp].ms))
        c->best_csp = m;
    /* the floor: max(arithmetic at the SGEMM rate, compulsory bytes at the copy rate) */
    const double flop = 2.0 * (double)c->nnz * (double)c->N;
    const double es = (double)gcoo_dtype_size(ai.dtype);
    const double bytes = (double)c->nnz * (es + 4.0) + (double)(c->m + 1) * 8.0 +
                         (double)(c->k + c->m) * (double)c->N * es;
    const double t_flop = flop / (E->sgemm_tflops * 1e12), t_bytes = bytes / (E->copy_gbs * 1e9);
    c->floor_ms = 1e3 * (t_flop > t_bytes ? t_flop : t_bytes);
  }
done:
  for (int i = 0; i < nc; i++) {
    operands_free(&o[i]);
    checker_free(&ck[i]);
  }
  return st;
}

gcoo_status bench_sweep(bench_env *E, gcoo_sparse A, int64_t N, const int32_t *ps, int nps,
                        double *ms, gcoo_cuda_tuned_launch *shapes, double *setup_ms) {
  gcoo_sparse_info ai;
  GCOO_CALL(gcoo_sparse_get_info(A, &ai));
  const int nv = gcoo_cuda_tuned_variant_count() + 1;
  for (int i = 0; i < nps * nv; i++) ms[i] = -1;
  gcoo_dense Xh;
  GCOO_CALL(gcoo_dense_create(&Xh, ai.dtype, GCOO_ROW_MAJOR, ai.ncols, N));
  GCOO_CALL(gcoo_dense_fill_random(&Xh, 4242));
  operands o;
  const int64_t footprint = (ai.ncols + ai.nrows) * N * 4 + ai.nnz * 8;
  gcoo_status st = operands_make(E, &Xh, ai.nrows, 0, footprint, &o);
  gcoo_dense_destroy(&Xh);
  gcoo_dense X[8], Y[8];
  for (int r = 0; st >= 0 && r < o.R; r++) {
    X[r] = dev_dense(o.X[r], o.dtype, GCOO_ROW_MAJOR, ai.ncols, N);
    Y[r] = dev_dense(o.Y[r], o.dtype, GCOO_ROW_MAJOR, ai.nrows, N);
  }
  for (int i = 0; st >= 0 && i < nps; i++) {
    if (bench_over_budget(E, 1.0)) break;
    gcoo_op op = NULL;
    gcoo_op_options opt = GCOO_OP_OPTIONS_INIT;
    opt.alg = GCOO_ALG_GCOO;
    opt.p = ps[i];
    opt.ncols_hint = N;
    if (gcoo_op_create(&op, E->ctx, A, &opt) < 0) {
      bench_printf(E, "  sweep p=%d: setup failed: %s\n", ps[i], gcoo_last_error());
      continue;
    }
    gcoo_op_info info;
    gcoo_op_get_info(op, &info);
    setup_ms[i] = 1e3 * info.setup_seconds;
    for (int v = 0; v < nv; v++) {
      /* the X-resident variants do not depend on p: timed at the first width only */
      if (i > 0 && gcoo_cuda_tuned_variant_resident(v)) continue;
      if (gcoo_cuda_op_set_option(op, GCOO_CUDA_OPT_TUNED_VARIANT, v) < 0) {
        bench_printf(E, "  sweep p=%d %s: %s\n", ps[i], gcoo_cuda_tuned_variant_name(v),
                     gcoo_last_error());
        continue;
      }
      if (gcoo_op_apply(op, 1.0, &X[0], 0.0, &Y[0]) < 0 || gcoo_ctx_synchronize(E->ctx) < 0) {
        bench_printf(E, "  sweep p=%d %s: %s\n", ps[i], gcoo_cuda_tuned_variant_name(v),
                     gcoo_last_error());
        continue;
      }
      op_launch l = {op, X, Y};
      const double first = time_once(E, launch_op, &l);
      int reps = 0;
      if (first > 0) ms[i * nv + v] = time_launches(E, launch_op, &l, o.R, first, &reps);
      gcoo_cuda_op_details d;
      if (gcoo_cuda_op_get_details(op, &d) >= 0) shapes[i * nv + v] = d.last;
    }
    gcoo_op_destroy(&op);
  }
  operands_free(&o);
  return st;
}
