/* SPDX-License-Identifier: MIT */
/* tests/solver/t613-bcg-fused-emulated.c: block CG's fused block-vector passes
 * (kernels/solver/bcg_fused.cuh) on the CPU emulator (tests/common/cuda_emu.h), against a plain CPU
 * reference in double on fresh random inputs. Runs without a GPU (label unit). For float64 and
 * float32, k = 8, 16, 32, n = 0, 1, 37 (a partial tile), 1000 rows, 1, 3, 7 and 40 blocks (more
 * blocks than tiles: blocks without rows), X and R with padded leading dimensions, with and
 * without the Jacobi scaling:
 *   - gram2:     [P^T Q | P^T R];
 *   - update:    X + P alpha, R - Q alpha, W = D^-1 R (exactly the kernel's own R scaled in the
 *                element type), ||R_j||^2 and Q^T W;
 *   - direction: W + P beta and W^T W;
 * update and direction also in their tensor-core form (double, k = 16, 32: tile_mma's fragment
 * indexing, run as scalar FMAs on the emulator; the mma instructions themselves are checked on
 * the GPU by t610's device-vs-host solves).
 * Bounds: ||out - ref|| / ||ref|| <= 1e-12 (float64), 1e-5 (float32), per output. Outputs (W,
 * the reduced sums, the per-block partials) are poisoned with NaN first, and the padding columns
 * of X and R must keep their sentinel. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcoo_test.h"

void gcoo_emu_bcg_fused(int op, int variant, int dbl, int K, int64_t n, int grid, const void *P,
                        int64_t ldp, const void *Q, int64_t ldq, const void *coef, void *X,
                        int64_t ldx, void *R, int64_t ldr, const void *dinv, void *W, int64_t ldw,
                        void *red);

static uint64_t rng_state = 977;
static double urand(void) { /* uniform in [-1, 1) */
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(rng_state >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

#define SENTINEL 12345.0

/* An array of count values of the element type, read and written as double. */
typedef struct arr {
  int dbl;
  size_t count;
  void *p;
} arr;

static arr arr_new(int dbl, size_t count) {
  arr a = {dbl, count, calloc(count ? count : 1, dbl ? sizeof(double) : sizeof(float))};
  return a;
}
static double get(const arr *a, size_t i) {
  return a->dbl ? ((double *)a->p)[i] : (double)((float *)a->p)[i];
}
static void set(arr *a, size_t i, double v) {
  if (a->dbl)
    ((double *)a->p)[i] = v;
  else
    ((float *)a->p)[i] = (float)v;
}
static void fill(arr *a, double v) {
  for (size_t i = 0; i < a->count; i++) set(a, i, v);
}
/* an n x K block with leading dimension ld, random; padding columns SENTINEL */
static void random_block(arr *a, int64_t n, int K, int64_t ld) {
  for (int64_t i = 0; i < n; i++)
    for (int64_t c = 0; c < ld; c++) set(a, (size_t)(i * ld + c), c < K ? urand() : SENTINEL);
}

/* ||out - ref|| / ||ref|| over count values of out (stride ldo, K columns of n rows when
 * rows > 0; else count contiguous) against a double reference; NaN gives +inf. */
static double relerr_block(const arr *out, int64_t ldo, const double *ref, int64_t n, int K) {
  double d = 0, r = 0;
  for (int64_t i = 0; i < n; i++)
    for (int c = 0; c < K; c++) {
      double o = get(out, (size_t)(i * ldo + c)), x = ref[i * K + c];
      d += (o - x) * (o - x);
      r += x * x;
    }
  if (isnan(d)) return INFINITY;
  return r > 0 ? sqrt(d / r) : sqrt(d);
}

static int padding_kept(const arr *a, int64_t n, int K, int64_t ld) {
  for (int64_t i = 0; i < n; i++)
    for (int64_t c = K; c < ld; c++)
      if (get(a, (size_t)(i * ld + c)) != SENTINEL) return 0;
  return 1;
}

/* var: the kernels' variants as gcoo_emu_bcg_fused takes them (gram2 10 * form + stages, update
 * 10 * (W over R's tile) + stages, direction stages; 0 the defaults) */
static void check_case(int dbl, int K, int64_t n, int grid, int jacobi, int mma, const int *var) {
  const double tol = dbl ? 1e-12 : 1e-5;
  char ty[96];
  snprintf(ty, sizeof ty, "%s [variant %d/%d/%d]",
           mma   ? "double (tensor-core form)"
           : dbl ? "double"
                 : "float",
           var[0], var[1], var[2]);
  const int64_t ldp = K, ldq = K, ldx = K + 3, ldr = K + 1, ldw = K;
  const size_t nn = (size_t)(n > 0 ? n : 1);
  arr P = arr_new(dbl, nn * ldp), Q = arr_new(dbl, nn * ldq), X = arr_new(dbl, nn * ldx);
  arr R = arr_new(dbl, nn * ldr), W = arr_new(dbl, nn * ldw), D = arr_new(dbl, nn);
  arr C = arr_new(dbl, (size_t)(K * K)), red = arr_new(dbl, (size_t)(2 * K * K));
  random_block(&P, n, K, ldp);
  random_block(&Q, n, K, ldq);
  random_block(&X, n, K, ldx);
  random_block(&R, n, K, ldr);
  for (int64_t i = 0; i < n; i++) set(&D, (size_t)i, 0.5 + 0.25 * (urand() + 1.0));
  for (int e = 0; e < K * K; e++) set(&C, (size_t)e, urand());
  double *ref = calloc(nn * K, sizeof(double)), *ref2 = calloc(nn * K, sizeof(double));
  double *sums = calloc((size_t)(2 * K * K + K), sizeof(double));
  double *got = calloc((size_t)(2 * K * K + K), sizeof(double));

  /* gram2 */
  fill(&red, NAN);
  gcoo_emu_bcg_fused(0, var[0], dbl, K, n, grid, P.p, ldp, Q.p, ldq, NULL, NULL, 0, R.p, ldr, NULL,
                     NULL, 0, red.p);
  for (int a = 0; a < K; a++)
    for (int b = 0; b < K; b++) {
      double pq = 0, pr = 0;
      for (int64_t i = 0; i < n; i++) {
        pq += get(&P, (size_t)(i * ldp + a)) * get(&Q, (size_t)(i * ldq + b));
        pr += get(&P, (size_t)(i * ldp + a)) * get(&R, (size_t)(i * ldr + b));
      }
      sums[a * K + b] = pq;
      sums[K * K + a * K + b] = pr;
    }
  double e_g = relerr_block(&red, 2 * K * K, sums, 1, 2 * K * K);
  TEST_CHECK(e_g <= tol || (n == 0 && e_g == 0.0),
             "gram2 %s k %d n %lld grid %d: ||[PtQ|PtR] - ref|| / ||ref|| = %.3e (bound %.0e)", ty,
             K, (long long)n, grid, e_g, tol);

  /* update: references from the inputs */
  for (int64_t i = 0; i < n; i++)
    for (int j = 0; j < K; j++) {
      double px = 0, qx = 0;
      for (int l = 0; l < K; l++) {
        px += get(&P, (size_t)(i * ldp + l)) * get(&C, (size_t)(l * K + j));
        qx += get(&Q, (size_t)(i * ldq + l)) * get(&C, (size_t)(l * K + j));
      }
      ref[i * K + j] = get(&X, (size_t)(i * ldx + j)) + px;
      ref2[i * K + j] = get(&R, (size_t)(i * ldr + j)) - qx;
    }
  fill(&W, NAN);
  fill(&red, NAN);
  gcoo_emu_bcg_fused(mma ? 3 : 1, var[1], dbl, K, n, grid, P.p, ldp, Q.p, ldq, C.p, X.p, ldx, R.p,
                     ldr, jacobi ? D.p : NULL, W.p, ldw, red.p);
  double e_x = relerr_block(&X, ldx, ref, n, K), e_r = relerr_block(&R, ldr, ref2, n, K);
  TEST_CHECK(e_x <= tol && e_r <= tol,
             "update %s k %d n %lld grid %d: X %.3e, R %.3e relative (bound %.0e)", ty, K,
             (long long)n, grid, e_x, e_r, tol);
  TEST_CHECK(padding_kept(&X, n, K, ldx) && padding_kept(&R, n, K, ldr),
             "update k %d n %lld: a padding column of X or R was written", K, (long long)n);
  /* W: exactly the element type's dinv * R of the kernel's R; sums from the kernel's R, W */
  int w_exact = 1;
  for (int64_t i = 0; i < n; i++)
    for (int j = 0; j < K; j++) {
      double r = get(&R, (size_t)(i * ldr + j));
      double w = jacobi ? (dbl ? get(&D, (size_t)i) * r
                               : (double)((float)get(&D, (size_t)i) * (float)r))
                        : r;
      if (get(&W, (size_t)(i * ldw + j)) != w) w_exact = 0;
    }
  TEST_CHECK(w_exact, "update %s k %d n %lld grid %d: W != D^-1 R", ty, K, (long long)n, grid);
  for (int j = 0; j < K; j++) {
    double s = 0;
    for (int64_t i = 0; i < n; i++)
      s += get(&R, (size_t)(i * ldr + j)) * get(&R, (size_t)(i * ldr + j));
    sums[j] = s;
  }
  for (int a = 0; a < K; a++)
    for (int b = 0; b < K; b++) {
      double s = 0;
      for (int64_t i = 0; i < n; i++)
        s += get(&Q, (size_t)(i * ldq + a)) * get(&W, (size_t)(i * ldw + b));
      sums[K + a * K + b] = s;
    }
  double e_n = relerr_block(&red, K, sums, 1, K);
  double e_q = 0;
  {
    double d = 0, r = 0;
    for (int e = 0; e < K * K; e++) {
      double o = get(&red, (size_t)(K + e)), x = sums[K + e];
      d += (o - x) * (o - x);
      r += x * x;
    }
    e_q = isnan(d) ? INFINITY : (r > 0 ? sqrt(d / r) : sqrt(d));
  }
  TEST_CHECK(e_n <= tol && e_q <= tol,
             "update %s k %d n %lld grid %d: ||R_j||^2 %.3e, Q^T W %.3e relative (bound %.0e)", ty,
             K, (long long)n, grid, e_n, e_q, tol);

  /* direction: W (the update's output) += P C */
  for (int64_t i = 0; i < n; i++)
    for (int j = 0; j < K; j++) {
      double px = 0;
      for (int l = 0; l < K; l++)
        px += get(&P, (size_t)(i * ldp + l)) * get(&C, (size_t)(l * K + j));
      ref[i * K + j] = get(&W, (size_t)(i * ldw + j)) + px;
    }
  fill(&red, NAN);
  gcoo_emu_bcg_fused(mma ? 4 : 2, var[2], dbl, K, n, grid, P.p, ldp, NULL, 0, C.p, NULL, 0, NULL, 0,
                     NULL, W.p, ldw, red.p);
  double e_w = relerr_block(&W, ldw, ref, n, K);
  for (int a = 0; a < K; a++)
    for (int b = 0; b < K; b++) {
      double s = 0;
      for (int64_t i = 0; i < n; i++)
        s += get(&W, (size_t)(i * ldw + a)) * get(&W, (size_t)(i * ldw + b));
      sums[a * K + b] = s;
    }
  double e_ww = relerr_block(&red, K * K, sums, 1, K * K);
  TEST_CHECK(e_w <= tol && (e_ww <= tol || (n == 0 && e_ww == 0.0)),
             "direction %s k %d n %lld grid %d: W %.3e, W^T W %.3e relative (bound %.0e)", ty, K,
             (long long)n, grid, e_w, e_ww, tol);

  free(ref);
  free(ref2);
  free(sums);
  free(got);
  free(P.p);
  free(Q.p);
  free(X.p);
  free(R.p);
  free(W.p);
  free(D.p);
  free(C.p);
  free(red.p);
}

int main(void) {
  const int ks[] = {8, 16, 32};
  const int64_t ns[] = {0, 1, 37, 1000};
  const int grids[] = {1, 3, 7, 40};
  /* the defaults, then the variants GCOO_BCG_STAGES / GCOO_BCG_GRAM2 select (kernels/
   * bcg_fused_cuda.cu): gram2 as the cp.async pipeline of 2 or 3 stages with element (form 0) or
   * 16-byte copies (form 1), or the register prefetch (form 2); update with 2 or 3 stages, its
   * W tile of its own or over R's (10 + stages); direction with 3 or 4 */
  const int variants[][3] = {{0, 0, 0},  {2, 2, 3},  {13, 3, 4}, {20, 2, 3},
                             {12, 0, 0}, {0, 12, 3}, {0, 13, 0}};
  for (int v = 0; v < 7; v++)
    for (int dbl = 1; dbl >= 0; dbl--)
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 4; b++)
          for (int c = 0; c < 4; c++) {
            if (ns[b] == 1000 && grids[c] == 40 && ks[a] != 8) continue; /* emulator time */
            /* the variants: the cases with several tiles a block (the pipelines' stage rotation)
             * and a partial tile, and n = 1 */
            if (v > 0 && (ns[b] == 0 || grids[c] == 40)) continue;
            check_case(dbl, ks[a], ns[b], grids[c], (a + b + c) % 2 == 0, 0, variants[v]);
            if (dbl && ks[a] >= 16)
              check_case(dbl, ks[a], ns[b], grids[c], (a + b + c) % 2 == 1, 1, variants[v]);
          }
  return gcoo_test_finish("t613-bcg-fused-emulated");
}
