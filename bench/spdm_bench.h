/* SPDX-License-Identifier: MIT */
/* bench/spdm_bench.h: what the SpDM benchmark's files share (spdm_bench.c: sections and output;
 * spdm_measure.c: the device, operands, timing and checks; spdm_gen.c: structured inputs;
 * spdm_bench_cuda.cu: a delay kernel). */
#ifndef GCOO_SPDM_BENCH_H
#define GCOO_SPDM_BENCH_H

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <stdio.h>

#include "backend_impl.h"
#include "gcoo/gcoo.h"
#include "gcoo/generate.h"
#include "common/gcoo_kernels.h"

/* The methods measured side by side, in table order. */
typedef enum bench_method {
  M_FAITHFUL = 0, /* GCOOSpDM as published (p = 4, b = 128) */
  M_TUNED,        /* tuned GCOOSpDM, its default variant and p */
  M_CSP_DEFAULT,  /* cuSPARSE ALG_DEFAULT, column-major operands */
  M_CSP_ALG2,     /* cuSPARSE CSR_ALG2, row-major */
  M_CSP_ALG3,     /* cuSPARSE CSR_ALG3, row-major */
  M_SGEMM,        /* cuBLAS FP32 GEMM on the densified A */
  M_TF32,         /* cuBLAS TF32 GEMM */
  M_AUTO,         /* GCOO_ALG_AUTO */
  M_TC,           /* the tensor-core mode as a user runs it: AUTO with math = GCOO_MATH_TF32
                     (float only; not an exact method: never a case's "best", compared with the
                     best FP32 cuSPARSE). Its trial keeps the tensor-core kernel
                     only where it beat AUTO's exact choice (details.tensor_cores says which) */
  M_COUNT
} bench_method;

extern const char *const bench_method_names[M_COUNT];

typedef struct bench_env {
  gcoo_ctx ctx;
  cudaStream_t stream;
  cublasHandle_t blas;
  gcoo_cuda_devinfo dev;
  double copy_gbs;     /* measured device-to-device copy, GB/s counting read + write */
  double sgemm_tflops; /* measured cuBLAS SGEMM rate (FP32 peak for the floor) */
  double t0, budget_s; /* wall clock start and the time budget */
  const char *outdir;
  FILE *csv; /* one row per (case, N) */
  FILE *log; /* everything printed, also to the file */
} bench_env;

/** One measurement. ms < 0: not run (note says why). */
typedef struct bench_result {
  double ms;
  double relerr;
  double bound; /* M_TC: worst |y - ref| over its per-element bound on the sampled rows (<= 1) */
  char note[96];
} bench_result;

/** A case: a matrix and a dense width, with everything measured on it. */
typedef struct bench_case {
  const char *section; /* "random", "real", "real-f64", "large", "large-f64", "structured" */
  gcoo_dtype dtype;    /* of A and the operands */
  char name[96];
  gcoo_sparse A; /* host CSR, float or double */
  int64_t m, k, nnz, N;
  double sparsity; /* random sweep only */
  bench_result r[M_COUNT];
  gcoo_cuda_op_details tuned, autod, tcd; /* what the tuned, AUTO and TF32 operators chose */
  double tuned_setup_ms, auto_setup_ms;
  int best_csp; /* index of the fastest cuSPARSE method, -1 if none ran */
  double floor_ms;
} bench_case;

/* spdm_measure.c */
void bench_printf(bench_env *E, const char *fmt, ...) GCOO_PRINTF(2, 3);
double bench_elapsed(const bench_env *E);
int bench_over_budget(const bench_env *E, double fraction);
gcoo_status bench_env_init(bench_env *E, const char *outdir, double budget_s);
void bench_env_fini(bench_env *E);
/** Measure every method (run[m] != 0) on nc <= 4 cases that share one matrix (cs[i].A) and
 *  differ in N: one operator per method, made once, applied to each case's operands (AUTO and
 *  the tuned kernel: one per case, made with its N as the hint). */
gcoo_status bench_run_case(bench_env *E, bench_case *cs, int nc, const int run[M_COUNT]);
/** --sweep: every tuned variant (0 .. count) at each group width ps[i] on A with N columns:
 *  ms[i * (count + 1) + v] (-1 when it did not run), the launch shapes, the setups. */
gcoo_status bench_sweep(bench_env *E, gcoo_sparse A, int64_t N, const int32_t *ps, int nps,
                        double *ms, gcoo_cuda_tuned_launch *shapes, double *setup_ms);

/* spdm_gen.c: structured inputs (bench-only generators) */
gcoo_status bench_rmat(gcoo_sparse *A, int scale, int edge_factor, uint64_t seed);
gcoo_status bench_block_diagonal(gcoo_sparse *A, gcoo_sparse M, int copies);
gcoo_status bench_kron_dense_block(gcoo_sparse *A, gcoo_sparse M, int b);

/* spdm_bench_cuda.cu */
/** Queue a kernel that spins for about `us` microseconds on the stream, so that the launches
 *  queued behind it are timed back to back, without the host's launch gaps. */
void bench_delay(cudaStream_t s, double us);

#endif
