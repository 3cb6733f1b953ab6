/* SPDX-License-Identifier: MIT */
/* kernels/spdm/dispatch.c: GCOO_ALG_AUTO's rule and the tuned kernel's group width (see dispatch.h
 * and docs/dispatch.md). Each threshold below says what it was fitted to, on one H200: the
 * sweep of every tuned variant and group width (bench/results/h200-spdm-sweep.csv) and the SpDM
 * benchmark's cases (bench/results/h200-spdm-full.csv, h200-spdm.csv). */
#include "dispatch.h"

#include "common/gcoo_kernels.h" /* gcoo_cuda_resident_smem: the X-resident tile's size */

#include <math.h>
#include <stdio.h>

/* ---- the rule -----------------------------------------------------------------------------
 * bench/results/h200-spdm-sweep.csv: every tuned variant x p in {8..512} on 18 inputs
 * (random n = 2000..14000 at sparsity 0.9..0.999, 7/27-point stencils 100^3, R-MAT 2^20,
 * Kronecker 4x4 of cage11, and bcsstk33, cage11, TSOPF, delaunay_n16, ca-CondMat, bcsstk24,
 * add32, cavity19), side by side with cuSPARSE. The optimum sits at p = 32-64 almost
 * everywhere; a traffic model's p = 512 ran 1.4-4.4x slower than the best setting. */

/* Dense FP32 GEMM beats sparse when density > sparse rate / dense rate: SGEMM 108 ms vs
 * best cuSPARSE 106.8 ms at n = 14000, sparsity 0.90 (H200). FP64 uses
 * the same (DGEMM and the sparse kernels both halve). */
#define DENSE_MIN_DENSITY 0.12
/* TF32 (only when allowed): 15.5 ms at n = 14000 vs cuSPARSE 12.9 ms at sparsity 0.99 and
 * 25.5 ms at 0.98: break-even density ~0.012 for cuSPARSE. */
#define DENSE_TF32_MIN_DENSITY 0.02
/* Below this size a GEMM is launch- and tail-bound. */
#define DENSE_MIN_DIM 1024
/* Tuned GCOO against cuSPARSE (sweep, best cuSPARSE algorithm per input):
 *  - structured inputs with reuse >= 1.3 at p = 32 ran 1.27-1.52x faster (stencils 1.36 and
 *    1.31, cage11 1.35, its Kronecker tiling 1.27, delaunay 1.36, bcsstk33 1.51, TSOPF 1.48,
 *    cavity19 1.28);
 *  - random matrices (reuse 1.02-1.16) tied within 3 %, and lost where rows are long
 *    (avg 200 entries, n = 2000-4000: cuSPARSE 1.16-1.37x faster);
 *  - skewed rows (max row / mean row >= 5: R-MAT, ca-CondMat, add32) lost 1.25-6x;
 *  - N = 32 lost (bcsstk24, add32: cuSPARSE CSR_ALG3 1.25-1.6x faster). */
#define TUNED_MIN_REUSE 1.3
#define TUNED_MAX_ROW_SKEW 5.0
#define TUNED_MAX_AVG_ROW 100.0
#define TUNED_MIN_N 33
/* ... except where long rows come with high reuse (H200): Kronecker
 * tilings of FEM matrices with 116-135 entries a row and reuse 11.7-15 at p = 32 ran 1.40-1.69x
 * faster than the best cuSPARSE at N = 512 (kron2:bcsstk33, kron4:cavity19; AUTO's cuSPARSE
 * choice was 0.86-0.94x) and tied at N = 128 (1.02-1.04x); the random matrices behind
 * TUNED_MAX_AVG_ROW had reuse 2-3.3. */
#define TUNED_LONG_ROW_MIN_REUSE 8.0
/* Enough blocks for the device (h200-spdm-full.csv at N = 128 and 512): on small
 * matrices the tuned kernel lost where its grid was a few blocks per SM. Staged (reuse >= 4)
 * with ceil(m / 32) x ceil(N / 128) blocks: 52-274 blocks lost 0.52-0.94x (bcsstk13, fidapex6,
 * cavity19, bcsstk24, bcsstk33 at N = 128), 445-1878 won 1.21-1.48x (the same at N = 512,
 * TSOPF); direct with ceil(m / 32) x ceil(N / 32) blocks: 60 and 240 lost 0.84-0.87x (west0479),
 * 316-1012 won 1.06-1.27x (cryg2500, dwt_2680, bcsstk21, Pd). Thresholds, in blocks per SM: */
#define TUNED_STAGED_MIN_BLOCKS_PER_SM 3
#define TUNED_DIRECT_MIN_BLOCKS_PER_SM 2
/* Very short rows with a wide X (h200-spdm-full.csv, random n = 1000-8000 at
 * sparsity 0.999-0.9995, N = n, 1-4 entries a row): the tuned kernel (its direct variant: 8
 * lanes a row, several rows a block) ran 1.00-1.89x faster than the best cuSPARSE algorithm on
 * all 7 such cases (2000 x 0.9995: 0.0120 ms vs 0.0226; 4000 x 0.9995: 0.0691 vs 0.0790),
 * where cuSPARSE gives each row a warp; at 5-8 entries a row it lost by 4-13 % (1000 x 0.995,
 * 14000 x 0.9995). Reuse does not tell these apart (1.0 for all of them). */
#define TUNED_SHORT_MAX_AVG_ROW 4.0
#define TUNED_SHORT_MIN_N 1000
/* ... and no long row (row skew means little at 1-4 entries a row: a random row of 9 is skew 4.5) */
#define TUNED_SHORT_MAX_ROW 64
/* Staged (X rows through shared memory) against direct, at p = 32: staging won where reuse
 * was >= 6 (bcsstk33 8.2, bcsstk24 10.2, cavity19 8.0, TSOPF 6.2) or rows were skewed
 * (R-MAT, ca-CondMat 34.7, add32 6.7); direct won or tied below reuse 3.3 with even rows
 * (random, stencils 1.4/2.8, cage11 1.4, delaunay 2.1). */
#define STAGED_MIN_REUSE 4.0
#define STAGED_MIN_ROW_SKEW 5.0
/* cuSPARSE CSR_ALG3 beat CSR_ALG2 at N = 32 on 29 of 31 matrices and on every small matrix at
 * N = 128; ALG2 won on large m (stencils, cage11, ct2010, delaunay) and on random n = 14000. */
#define ALG3_MAX_N 32
/* ALG3 up to m N = 2^23 (fitted to the measured ALG2 and ALG3 times of the real matrices and
 * their constructions on an H200): between 2^23 and 2^24 ALG2 won on ct2010 at N = 128 (1.40x)
 * and ca-CondMat at N = 512 (1.22x) and lost 11 % on its 4x4 Kronecker tiling at N = 128; 2^23
 * leaves 3 float cases under 0.9x of the best cuSPARSE where 2^24 left 4 and 2^21 leaves 10. */
#define ALG3_MAX_M_TIMES_N (1 << 23)
/* In double ALG2 wins from a smaller m N (33 real matrices in double at N = 32, 128, 512 on an
 * H200): ALG3 was faster at m N <= 1.4 x 10^6 (by 1.08-2.1x: bcsstk13,
 * cavity19, add32, ca-GrQc, FA; bayer10 and bcsstk33 at 1.1-1.7 x 10^6 within 8 %), ALG2 at every
 * m N >= 2.3 x 10^6 (by 1.14-1.9x), and on the two very skewed matrices (rajat01, row skew 228;
 * wiki-Vote, 61) at every N (by 1.08-1.6x). The skew rule holds only for rows that are short
 * on average and matrices that are not tiny: with row skew >= 50 ALG2 won on rajat01 and wiki-Vote
 * (1.07-1.64x) but lost on kron8:rajat01 at N = 32 (50.6 entries a row: ALG3 1.64x faster) and on
 * bp_1600 (822 rows: ALG3 1.05-1.14x faster); adder_dcop_05 (1813 rows) is within 8 % either way.
 * */
#define ALG3_MAX_M_TIMES_N_F64 (1 << 21)
#define ALG2_MIN_ROW_SKEW_F64 50.0
#define ALG2_SKEW_MAX_AVG_ROW_F64 20.0
#define ALG2_SKEW_MIN_M_F64 2048

/* The X-resident variant (kernels/spdm/spdm_resident.cu; h200-spdm-sweep.csv and h200-spdm-full.csv).
 * Per column tile it stages k rows of X
 * and streams all of A, so it pays where A has many entries per column (nnz / k) and X is wide
 * enough for about a tile per SM (N >= 1000). Measured against the best other kernel
 * (cuSPARSE or tuned) on random matrices:
 *  - an 8-float tile fits (k <= 7256 on an H200): 1.1-1.6x faster from 10 entries a column
 *    (1000 x 0.99 0.0134 ms vs 0.0148; 2000 x 0.9 0.149 vs 0.211; 4000 x 0.95 0.684 vs 1.116
 *    tuned / 0.882 cuSPARSE; 4000 x 0.99 0.211 vs 0.255); 2.2x slower at 2 (2000 x 0.999);
 *  - only a 4-float tile fits (k <= 14520): A is streamed twice as often and X staged per 4
 *    columns, so it needs more: 1.5-1.6x faster at 140 and 400 entries a column (14000 x 0.99
 *    7.78 ms vs 12.35; 8000 x 0.95 5.99 vs 9.01), 1.4-1.6x slower at 8 and 14 (8000 x 0.999,
 *    14000 x 0.999); a fit of time = staging + streaming to the 14000 points puts the break-even
 *    near 28;
 *  - N <= 512 (few tiles: each is cut into parts that stage X again) and the real matrices of
 *    the sweep (bcsstk33, cavity19, bcsstk24, add32 at N = 32-512) lost 1.1-2x.
 * Float only (double halves the tile and nearly doubles the bytes per entry; not measured). */
#define RESIDENT_MIN_N 1000
#define RESIDENT_MIN_COL_NNZ_WIDE 8.0    /* an 8-float tile fits */
#define RESIDENT_MIN_COL_NNZ_NARROW 32.0 /* only a 4-float tile fits */

/* Mean entries a row of A, and the longest row over it (0 when unknown). */
static double avg_row_of(const gcoo_dispatch_in *in) {
  return in->m > 0 ? (double)in->nnz / (double)in->m : 0.0;
}
static double row_skew_of(const gcoo_dispatch_in *in) {
  const double avg_row = avg_row_of(in);
  return in->max_row_nnz > 0 && avg_row > 0 ? (double)in->max_row_nnz / avg_row : 0.0;
}

int gcoo__dispatch_resident(const gcoo_dispatch_in *in) {
  const int64_t n = in->n > 0 ? in->n : GCOO_DISPATCH_DEFAULT_N;
  if (in->dtype != GCOO_FLOAT32 || in->k <= 0 || in->m <= 0 || n < RESIDENT_MIN_N) return 0;
  /* 4-float (one pack) and 8-float (two packs) tiles */
  const int narrow = gcoo_cuda_resident_smem(in->k, 1) <= in->resident_smem;
  const int wide = gcoo_cuda_resident_smem(in->k, 2) <= in->resident_smem;
  if (!narrow) return 0;
  const double col_nnz = (double)in->nnz / (double)in->k;
  return col_nnz >= (wide ? RESIDENT_MIN_COL_NNZ_WIDE : RESIDENT_MIN_COL_NNZ_NARROW) &&
         row_skew_of(in) < TUNED_MAX_ROW_SKEW;
}

/* The row-split variant (kernels/spdm/spdm_split.cu): rows of very unequal length, where one long row
 * holds a whole block of the other variants back (R-MAT 0.13x, rajat01 0.08x of the best
 * cuSPARSE with the staged kernel, h200-spdm-full.txt). With pieces it runs such matrices at
 * 0.45-1.01x of the best cuSPARSE (H200: rajat01, wiki-Vote, ca-CondMat, R-MAT 2^20 and their
 * Kronecker tilings), 5-8x better than without but not faster than cuSPARSE, so the rule does
 * not take it (cuSPARSE serves skewed rows); a forced GCOO_ALG_GCOO without p does, and AUTO's
 * trial times it and keeps it where it is the fastest. Where only a few rows exceed a
 * piece it loses to the other variants (FA, longest row 34 at pieces of 32: 0.53-0.55x against
 * 0.66-0.75x), hence the second condition: the longest row spans at least SPLIT_MIN_PIECES
 * pieces. */
#define SPLIT_MIN_ROW_SKEW 5.0
#define SPLIT_MIN_PIECES 8

int gcoo__dispatch_split(const gcoo_dispatch_in *in) {
  if (in->m <= 0 || in->nnz <= 0) return 0;
  return row_skew_of(in) >= SPLIT_MIN_ROW_SKEW &&
         in->max_row_nnz >= (int64_t)SPLIT_MIN_PIECES * gcoo_cuda_split_piece(in->m, in->nnz);
}

int32_t gcoo__dispatch_choose_p(const gcoo_dispatch_in *in, double *reuse) {
  if (reuse) *reuse = 0.0;
  if (!in || in->nlog <= 5 || !in->distinct || in->m <= 0) return 0;
  const int log2p = 5; /* GCOO_DISPATCH_TUNED_P = 32 */
  if (reuse && in->distinct[log2p] > 0) *reuse = (double)in->nnz / (double)in->distinct[log2p];
  return GCOO_DISPATCH_TUNED_P;
}

int gcoo__dispatch_tuned_direct(double reuse, double row_skew) {
  return !(reuse >= STAGED_MIN_REUSE || row_skew >= STAGED_MIN_ROW_SKEW);
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
  out->resident = 0;
  out->rowsplit = 0;
  const int f64 = in->dtype == GCOO_FLOAT64;
  const int skewed_f64 = row_skew_of(in) >= ALG2_MIN_ROW_SKEW_F64 &&
                         avg_row_of(in) < ALG2_SKEW_MAX_AVG_ROW_F64 && in->m >= ALG2_SKEW_MIN_M_F64;
  const int alg3 = f64 ? (n <= ALG3_MAX_N ||
                          (double)in->m * (double)n <= (double)ALG3_MAX_M_TIMES_N_F64) &&
                             !skewed_f64
                       : n <= ALG3_MAX_N || (double)in->m * (double)n <= (double)ALG3_MAX_M_TIMES_N;
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
  const double avg_row = avg_row_of(in), skew = row_skew_of(in);
  if (gcoo__dispatch_resident(in)) {
    out->alg = GCOO_ALG_GCOO;
    out->resident = 1;
    snprintf(out->why, sizeof out->why,
             "k = %lld: X tiles fit in %lld bytes of shared memory, N = %lld >= %d, %.3g entries a "
             "column, row skew %.3g < %.3g: tuned GCOO, X-resident",
             (long long)in->k, (long long)in->resident_smem, (long long)n, RESIDENT_MIN_N,
             (double)in->nnz / (double)in->k, skew, TUNED_MAX_ROW_SKEW);
    return;
  }
  if (out->p > 0 && n >= TUNED_SHORT_MIN_N && avg_row <= TUNED_SHORT_MAX_AVG_ROW &&
      in->max_row_nnz <= TUNED_SHORT_MAX_ROW) {
    out->alg = GCOO_ALG_GCOO;
    snprintf(out->why, sizeof out->why,
             "%.3g entries a row <= %.3g, the longest %lld <= %d, N = %lld >= %d: tuned GCOO",
             avg_row, TUNED_SHORT_MAX_AVG_ROW, (long long)in->max_row_nnz, TUNED_SHORT_MAX_ROW,
             (long long)n, TUNED_SHORT_MIN_N);
    return;
  }
  const int staged = !gcoo__dispatch_tuned_direct(reuse, skew);
  const double groups = out->p > 0 ? ceil((double)in->m / out->p) : 0.0;
  const double blocks = groups * ceil((double)n / (staged ? 128.0 : 32.0));
  const double min_blocks = (double)(staged ? TUNED_STAGED_MIN_BLOCKS_PER_SM
                                            : TUNED_DIRECT_MIN_BLOCKS_PER_SM) *
                            (double)(in->sm_count > 0 ? in->sm_count : 1);
  if (out->p > 0 && n >= TUNED_MIN_N && reuse >= TUNED_MIN_REUSE && skew < TUNED_MAX_ROW_SKEW &&
      (avg_row <= TUNED_MAX_AVG_ROW || reuse >= TUNED_LONG_ROW_MIN_REUSE) && blocks >= min_blocks) {
    out->alg = GCOO_ALG_GCOO;
    snprintf(out->why, sizeof out->why,
             "reuse %.3g >= %.3g at p = %d, row skew %.3g < %.3g, %.3g entries a row, N = %lld, "
             "%.0f blocks (%s) >= %.0f: tuned GCOO",
             reuse, TUNED_MIN_REUSE, out->p, skew, TUNED_MAX_ROW_SKEW, avg_row, (long long)n,
             blocks, staged ? "staged" : "direct", min_blocks);
    return;
  }
  out->alg = cusp;
  snprintf(out->why, sizeof out->why,
           "reuse %.3g (p = %d), row skew %.3g, %.3g entries a row, N = %lld, %.0f tuned blocks: "
           "cuSPARSE %s",
           reuse, out->p, skew, avg_row, (long long)n, blocks, alg3 ? "CSR_ALG3" : "CSR_ALG2");
}
