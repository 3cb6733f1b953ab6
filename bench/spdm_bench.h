/* SPDX-License-Identifier: MIT */
/* bench/spdm_bench.h: what the SpDM benchmark's files share (spdm_bench.c: sections and output;
 * spdm_measure.c: the device, operands, timing and checks; spdm_bsr.c: cuSPARSE's BSR SpMM;
 * spdm_gen.c: structured inputs; spdm_bench_cuda.cu: a delay kernel; the timing rule:
 * bench_stat.h). */
#ifndef GCOO_SPDM_BENCH_H
#define GCOO_SPDM_BENCH_H

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusparse.h>
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
  M_CSP_BSR,      /* cuSPARSE BSR_ALG1 where A has dense blocks (spdm_bsr.c) */
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

/* The error tolerance that fails a method on a case: ||Y - Y_ref|| / ||Y_ref|| over the sampled
 * rows, against a double-precision product on the host. Exact methods: BENCH_TOL_FLOAT in float,
 * BENCH_TOL_DOUBLE in double; the TF32 methods (cuBLAS TF32, the tensor-core mode):
 * BENCH_TOL_TF32 (the tensor-core mode also meets its per-element bound, docs/kernels.md). A method
 * outside it is "FAIL" on that case: its time counts nowhere and the targets say so. */
#define BENCH_TOL_FLOAT 1e-5
#define BENCH_TOL_DOUBLE 1e-12
#define BENCH_TOL_TF32 5e-3
double bench_tolerance(int method, gcoo_dtype dtype);

/* The largest fill (entries of the blocks over nnz(A)) at which A counts as made of dense blocks
 * and cuSPARSE's BSR algorithm runs (spdm_bsr.c). */
#define BENCH_BSR_MAX_FILL 1.25

typedef struct bench_env {
  gcoo_ctx ctx;
  cudaStream_t stream;
  cublasHandle_t blas;
  cusparseHandle_t sparse; /* for the BSR method (the others go through gcoo's operators) */
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
  int fail;     /* relerr outside bench_tolerance (or not finite): the time counts nowhere */
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
  double setup_ms[M_COUNT]; /* each method's set-up (its operator made from the host CSR; AUTO's
                               trials included; BSR: upload, descriptors, workspace, preprocess) */
  int bsr_dim;              /* the BSR block size (0: no dense blocks, bsr_fill the least fill) */
  double bsr_fill;
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

/* spdm_bsr.c */
typedef struct bench_bsr {
  int bdim;
  int64_t nnzb, mb, kb;
  gcoo_dtype dtype;
  int32_t *rowptr, *colind; /* device */
  void *values;
  cusparseSpMatDescr_t A;
  cusparseDnMatDescr_t X[8], Y[8]; /* one pair per rotated operand copy */
  void *buffer;
  gcoo_layout layout; /* of X and Y: row-major unless cuSPARSE refused it */
  int preprocessed;   /* cusparseSpMM_preprocess ran (optional: skipped where not supported) */
  double setup_ms;
} bench_bsr;
/** The block size at which A counts as made of dense blocks (0: none; *fill: that size's fill, or
 *  the least fill seen). */
int bench_bsr_block(gcoo_sparse A, double *fill);
/** A in BSR with b x b blocks on the device (the host conversion untimed; setup_ms from there). */
gcoo_status bench_bsr_make(bench_env *E, gcoo_sparse A, int b, bench_bsr *B);
/** Descriptors of operand copy `slot` (X: k x N, Y: m x N in layout); slot 0 also makes the
 *  workspace and runs cuSPARSE's preprocessing. GCOO_ERR_UNSUPPORTED when cuSPARSE refuses the
 *  layout. */
gcoo_status bench_bsr_bind(bench_env *E, bench_bsr *B, int slot, void *X, void *Y, int64_t N,
                           gcoo_layout layout);
/** Y[slot] = A X[slot] on E's stream. */
gcoo_status bench_bsr_apply(bench_env *E, bench_bsr *B, int slot);
void bench_bsr_unbind(bench_bsr *B);
void bench_bsr_free(bench_bsr *B);

/* spdm_gen.c: structured inputs (bench-only generators) */
gcoo_status bench_rmat(gcoo_sparse *A, int scale, int edge_factor, uint64_t seed);
gcoo_status bench_block_diagonal(gcoo_sparse *A, gcoo_sparse M, int copies);
gcoo_status bench_kron_dense_block(gcoo_sparse *A, gcoo_sparse M, int b);

/* spdm_bench_cuda.cu */
/** Queue a kernel that spins for about `us` microseconds on the stream, so that the launches
 *  queued behind it are timed back to back, without the host's launch gaps. */
void bench_delay(cudaStream_t s, double us);

#endif
