/* SPDX-License-Identifier: MIT */
/* kernels/dispatch.c: GCOO_ALG_AUTO's rule and the tuned kernel's group width (see dispatch.h
 * and docs/dispatch.md). Version 1: thresholds from notes/h200-baselines.md (cuSPARSE 12.6 and
 * cuBLAS 13.1 on an H200), to be refitted from bench/run_spdm.sh's "auto vs best" columns. */
#include "dispatch.h"

#include <math.h>
#include <stdio.h>

/* ---- the traffic model of the staged tuned kernel (docs/kernels.md §2) -------------------- */
/* Bandwidth out of L1/L2 that cuSPARSE CSR_ALG2 sustained on random n = 14000 (h200-baselines,
 * "Where the time goes": 110 GB in 12.9 ms ~ 8.5 TB/s): the rate the staged X rows and the
 * entries come in at. */
#define MODEL_L2_BYTES_PER_S 8.0e12
/* Shared memory: 128 B per clock per SM x 132 SMs x 1.98 GHz (H200.md, KINDS.md clock). */
#define MODEL_SMEM_BYTES_PER_S 33.4e12
/* A grid with fewer blocks than this per SM leaves the device underfilled (each block walks its
 * chunks serially; two per SM overlap one's staging with the other's FMAs). */
#define MODEL_BLOCKS_PER_SM 2.0
/* Largest p one block covers in one pass when it keeps two blocks per SM: 32 slots (256
 * threads) x 16 rows of one accumulator pack (spdm_tuned.cu). */
#define MODEL_MAX_P 512

/* ---- AUTO's thresholds ------------------------------------------------------------------- */
/* Dense FP32 GEMM beats sparse when density > sparse rate / dense rate: SGEMM 108 ms vs
 * best cuSPARSE 106.8 ms at n = 14000, sparsity 0.90 (break-even ~0.10 for cuSPARSE; the tuned
 * kernel is expected faster, so a little above). FP64 uses the same (DGEMM and the sparse
 * kernels both halve). */
#define DENSE_MIN_DENSITY 0.12
/* TF32 (only when allowed): 15.5 ms at n = 14000 vs cuSPARSE 12.9 ms at sparsity 0.99 and
 * 25.5 ms at 0.98: break-even density ~0.012 for cuSPARSE, ~0.02 against a faster sparse
 * kernel. */
#define DENSE_TF32_MIN_DENSITY 0.02
/* Below this size a GEMM is launch- and tail-bound (the 4000^3 SGEMM already runs at only
 * 48 TFLOP/s); the sparse kernels' times are ~10-20 us there anyway. */
#define DENSE_MIN_DIM 1024
/* The staged kernel reads each X row of a group once per tile, then every entry from shared
 * memory; with less reuse than this it moves about what cuSPARSE moves and pays the staging
 * on top (the published kernel, reuse ~1, ran at 0.4-0.9x of cuSPARSE). */
#define TUNED_MIN_REUSE 1.25
/* Narrow dense operands waste the 32-column tile (and cuSPARSE switches to SpMV at N = 1). */
#define TUNED_MIN_N 8
/* cuSPARSE CSR_ALG3 beat CSR_ALG2 at N = 32 on 29 of 31 matrices and on every small matrix at
 * N = 128, ALG2 won on large m (stencils, cage11, ct2010, delaunay) and on random n = 14000. */
#define ALG3_MAX_N 32
#define ALG3_MAX_M_TIMES_N (1 << 24)

int32_t gcoo__dispatch_choose_p(const gcoo_dispatch_in *in, double *reuse) {
  if (reuse) *reuse = 0.0;
  if (!in || in->nlog <= 0 || !in->distinct || in->m <= 0) return 0;
  const double es = in->dtype == GCOO_FLOAT64 ? 8.0 : 4.0;
  const int vec = in->dtype == GCOO_FLOAT64 ? 2 : 4;
  const int64_t n = in->n > 0 ? in->n : GCOO_DISPATCH_DEFAULT_N;
  const double sms = in->sm_count > 0 ? in->sm_count : 132;
  double best_t = INFINITY;
  int32_t best_p = 0;
  for (int i = 0; i < in->nlog && i < 31; i++) {
    const int64_t p = (int64_t)1 << i;
    if (p > MODEL_MAX_P) break;
    const double D = in->distinct[i] > 0 ? (double)in->distinct[i] : 1.0;
    /* the launcher's tile: 16-byte packs per thread from N, fewer when p is wide */
    const int64_t npacks = (n + vec - 1) / vec;
    int vpt = npacks > 16 ? 4 : npacks > 8 ? 2 : 1;
    while (vpt > 1 && p > 32 * (16 / vpt)) vpt /= 2;
    const double tn = 8.0 * vpt * vec;
    const double tiles = ceil((double)n / tn);
    const double blocks = ceil((double)in->m / (double)p) * tiles;
    const double l2 = D * tn * es * tiles + (double)in->nnz * 2.0 * es * tiles;
    const double smem = (double)in->nnz * (double)n * es;
    double t = l2 / MODEL_L2_BYTES_PER_S + smem / MODEL_SMEM_BYTES_PER_S;
    const double fill = blocks / (sms * MODEL_BLOCKS_PER_SM);
    if (fill < 1.0) t /= fill;
    if (t < best_t) {
      best_t = t;
      best_p = (int32_t)p;
    }
  }
  if (reuse && best_p > 0) {
    int i = 0;
    while (((int64_t)1 << i) < best_p) i++;
    *reuse = in->distinct[i] > 0 ? (double)in->nnz / (double)in->distinct[i] : 0.0;
  }
  return best_p;
}

void gcoo__dispatch(const gcoo_dispatch_in *in, gcoo_dispatch_out *out) {
  const int64_t n = in->n > 0 ? in->n : GCOO_DISPATCH_DEFAULT_N;
  const double cells = (double)in->m * (double)in->k;
  const double density = cells > 0 ? (double)in->nnz / cells : 0.0;
  int64_t mindim = in->m < in->k ? in->m : in->k;
  if (n < mindim) mindim = n;
  double reuse = 0.0;
  out->p = gcoo__dispatch_choose_p(in, &reuse);
  out->reuse = reuse;
  const int alg3 = n <= ALG3_MAX_N || (double)in->m * (double)n <= (double)ALG3_MAX_M_TIMES_N;
  const gcoo_spdm_alg cusp = alg3 ? GCOO_ALG_CUSPARSE_CSR_ALG3 : GCOO_ALG_CUSPARSE_CSR_ALG2;
  if (in->dense_fits && mindim >= DENSE_MIN_DIM) {
    if (in->dtype == GCOO_FLOAT32 && in->allow_tf32 && density >= DENSE_TF32_MIN_DENSITY) {
      out->alg = GCOO_ALG_DENSE_TF32;
      snprintf(out->why, sizeof out->why, "density %.4g >= %.3g, TF32 allowed: dense TF32 GEMM",
               density, DENSE_TF32_MIN_DENSITY);
      return;
    }
    if (density >= DENSE_MIN_DENSITY) {
      out->alg = GCOO_ALG_DENSE;
      snprintf(out->why, sizeof out->why, "density %.4g >= %.3g: dense %s GEMM", density,
               DENSE_MIN_DENSITY, in->dtype == GCOO_FLOAT64 ? "FP64" : "FP32");
      return;
    }
  }
  if (n < TUNED_MIN_N) {
    /* CSR_ALG2, the row-major algorithm (cuSPARSE falls back to SpMV at N = 1) */
    out->alg = GCOO_ALG_CUSPARSE_CSR_ALG2;
    snprintf(out->why, sizeof out->why, "N = %lld < %d: cuSPARSE CSR_ALG2", (long long)n,
             TUNED_MIN_N);
    return;
  }
  if (out->p > 0 && reuse >= TUNED_MIN_REUSE) {
    out->alg = GCOO_ALG_GCOO;
    snprintf(out->why, sizeof out->why, "reuse %.3g >= %.3g at p = %d: tuned GCOO", reuse,
             TUNED_MIN_REUSE, out->p);
    return;
  }
  out->alg = cusp;
  snprintf(out->why, sizeof out->why, "reuse %.3g < %.3g (p = %d): cuSPARSE %s", reuse,
           TUNED_MIN_REUSE, out->p, alg3 ? "CSR_ALG3" : "CSR_ALG2");
}
