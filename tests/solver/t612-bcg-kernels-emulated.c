/* SPDX-License-Identifier: MIT */
/* tests/solver/t612-bcg-kernels-emulated.c: block CG's device steps (kernels/solver/bcg_kernels.cuh)
 * on the CPU emulator (tests/common/cuda_emu.h: a block's threads as fibers meeting at barriers),
 * against the host algebra that the host loop of solver/ksp_bcg.c uses (src/smallmat.c), on fresh
 * random inputs. Runs without a GPU (label unit). Checked, float64:
 *   - orth: the pivoted Cholesky-QR transform T and the rank, k = 1, 5, 8 (dependent and zero
 *     columns: rank 5), 33 (more columns than a warp, rank-deficient), against
 *     gcoo__orth_transform (|T - T_ref| <= 1e-12 max|T_ref|, columns past the rank zero) and
 *     W T orthonormal (|| (W T)^T W T - I ||_max <= 1e-10); a zero Gram matrix: rank 0, stop;
 *   - alpha: (P^T Q)^{-1} P^T R on the full and on a leading (rank-dropped) block against
 *     gcoo__chol + gcoo__chol_solve (relative 1e-12), rows past the rank zero; an indefinite
 *     P^T Q is a breakdown;
 *   - the convergence test: iteration count, per-column iterations, done only when every column
 *     is below rtol, beta = -(P^T Q)^{-1} Q^T Z (relative 1e-12) and zero once done;
 *   - the Jacobi pass W = D^-1 R with ||R_j||^2: W exact, norms relative 1e-13, for n = 0, 3,
 *     1000 rows, k = 1, 5, 40, padded leading dimensions, 1, 3 and 7 blocks;
 *   - the W form (P = W T implicit): alpha and beta from [W^T Q' | W^T R] and W^T Q'^T Z with a
 *     random T (columns past the rank zero) against the P form's reference on T^T (.) T, out as
 *     T alpha and T beta (relative 1e-11); with pform set T is ignored; orth's pform: set for
 *     nearly dependent columns (pivot ratio ~1e-10), clear for random ones, always set outside
 *     the W form; the explicit block W = W T in place (exact products order: 1e-13) on several
 *     tiles and blocks, and left alone without pform or once done. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_impl.h" /* gcoo__chol, gcoo__chol_solve, gcoo__orth_transform */
#include "gcoo_test.h"

void gcoo_emu_bcg_threads(int threads);
void gcoo_emu_bcg_orth(int64_t k, const double *G, double rank_tol, double wform_ratio, double *T,
                       int *rank, int *done, int *pform);
void gcoo_emu_bcg_alpha(int64_t k, int r, const double *red, const double *Tm, int pform,
                        double *alpha, int *breakdown);
void gcoo_emu_bcg_transform(int64_t n, int64_t k, double *W, int64_t ldw, const double *Tm,
                            int pform, int done, int grid);
void gcoo_emu_bcg_check(int64_t k, int r, const double *red_alpha, const double *b2,
                        const double *red0, const double *red1, double rtol, const double *Tm,
                        double *beta, int *done, int64_t *it, int64_t *col_its);
void gcoo_emu_precond_norms(int64_t n, int64_t k, const double *R, int64_t ldr, const double *dinv,
                            double *W, int64_t ldw, int nblocks, double *norms);

static uint64_t rng_state = 12345;
static double urand(void) { /* uniform in [-1, 1) */
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(rng_state >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

static double maxabs(const double *a, int64_t n) {
  double m = 0;
  for (int64_t i = 0; i < n; i++) m = fmax(m, fabs(a[i]));
  return m;
}

/* W (n x k) random with columns 1 = 0, 3 = 2 * 2 and 4 = 0 when dependent; G = W^T W. */
static void gram(int64_t n, int64_t k, int dependent, double *W, double *G) {
  for (int64_t i = 0; i < n * k; i++) W[i] = urand();
  if (dependent && k >= 5)
    for (int64_t i = 0; i < n; i++) {
      W[i * k + 1] = W[i * k + 0];
      W[i * k + 3] = 2.0 * W[i * k + 2];
      W[i * k + 4] = 0.0;
    }
  for (int64_t a = 0; a < k; a++)
    for (int64_t b = 0; b < k; b++) {
      double s = 0;
      for (int64_t i = 0; i < n; i++) s += W[i * k + a] * W[i * k + b];
      G[a * k + b] = s;
    }
}

static void check_orth(int64_t k, int dependent, int64_t want_rank) {
  const int64_t n = 3 * k + 7;
  double *W = malloc(sizeof(double) * n * k), *G = malloc(sizeof(double) * k * k);
  double *T = malloc(sizeof(double) * k * k), *Tr = malloc(sizeof(double) * k * k);
  gram(n, k, dependent, W, G);
  for (int64_t i = 0; i < k * k; i++) T[i] = NAN; /* poisoned: every entry must be written */
  int rank = -1, done = -1;
  int64_t rref = -1;
  int pform = -1;
  gcoo_emu_bcg_orth(k, G, 1e-13, 0.0, T, &rank, &done, &pform);
  TEST_CALL(gcoo__orth_transform(k, G, 1e-13, Tr, &rref));
  TEST_CHECK(pform == 1, "orth k %lld outside the W form: pform %d", (long long)k, pform);
  TEST_CHECK(rank == rref && rank == want_rank && done == 0,
             "orth k %lld: rank %d, reference %lld, expected %lld, done %d", (long long)k, rank,
             (long long)rref, (long long)want_rank, done);
  double err = 0, scale = maxabs(Tr, k * rref);
  for (int64_t i = 0; i < k; i++)
    for (int64_t b = 0; b < k; b++) {
      double ref = b < rref ? Tr[i * rref + b] : 0.0;
      double d = fabs(T[i * k + b] - ref);
      if (!(d <= err)) err = d; /* NaN wins */
    }
  TEST_CHECK(err <= 1e-12 * scale, "orth k %lld: |T - T_ref| = %.3e (scale %.3e)", (long long)k,
             err, scale);
  /* W T orthonormal on the kept columns */
  double worst = 0;
  for (int64_t a = 0; a < rank; a++)
    for (int64_t b = 0; b < rank; b++) {
      double s = 0;
      for (int64_t i = 0; i < n; i++) {
        double wa = 0, wb = 0;
        for (int64_t l = 0; l < k; l++) {
          wa += W[i * k + l] * T[l * k + a];
          wb += W[i * k + l] * T[l * k + b];
        }
        s += wa * wb;
      }
      worst = fmax(worst, fabs(s - (a == b ? 1.0 : 0.0)));
    }
  TEST_CHECK(worst <= 1e-10, "orth k %lld: ||(W T)^T W T - I|| = %.3e", (long long)k, worst);
  /* a vanished block: rank 0 and the solve stops */
  memset(G, 0, sizeof(double) * k * k);
  gcoo_emu_bcg_orth(k, G, 1e-13, 1e-6, T, &rank, &done, &pform);
  TEST_CHECK(rank == 0 && done == 1 && maxabs(T, k * k) == 0.0,
             "orth k %lld of a zero Gram matrix: rank %d, done %d", (long long)k, rank, done);
  free(W), free(G), free(T), free(Tr);
}

/* SPD k x k (M^T M + k I) into the first k^2 of red, random P^T R after it. */
static void alpha_inputs(int64_t k, double *red) {
  double *M = malloc(sizeof(double) * k * k);
  for (int64_t i = 0; i < k * k; i++) M[i] = urand();
  for (int64_t a = 0; a < k; a++)
    for (int64_t b = 0; b < k; b++) {
      double s = a == b ? (double)k : 0.0;
      for (int64_t l = 0; l < k; l++) s += M[l * k + a] * M[l * k + b];
      red[a * k + b] = s;
    }
  for (int64_t i = 0; i < k * k; i++) red[k * k + i] = urand();
  free(M);
}

/* Host reference of the leading r x r solve: X (r x k) = PtQ_r^{-1} B_r. */
static void host_solve(int64_t k, int64_t r, const double *PtQ, const double *B, double *X) {
  double *L = malloc(sizeof(double) * (r * r + 1));
  for (int64_t i = 0; i < r; i++)
    for (int64_t j = 0; j < r; j++) L[i * r + j] = 0.5 * (PtQ[i * k + j] + PtQ[j * k + i]);
  TEST_CALL(gcoo__chol(r, L));
  memcpy(X, B, sizeof(double) * r * k);
  gcoo__chol_solve(r, L, k, X);
  free(L);
}

/* max |got - sign ref| over k x k, ref's rows (r x k) past r taken as zero (NaN wins). */
static double err_rows(int64_t k, int64_t r, const double *got, const double *ref, double sign) {
  double err = 0;
  for (int64_t i = 0; i < k; i++)
    for (int64_t c = 0; c < k; c++) {
      double d = fabs(got[i * k + c] - (i < r ? sign * ref[i * k + c] : 0.0));
      if (!(d <= err)) err = d;
    }
  return err;
}

static void check_alpha(int64_t k, int64_t r) {
  double *red = malloc(sizeof(double) * 2 * k * k), *alpha = malloc(sizeof(double) * k * k);
  double *ref = malloc(sizeof(double) * k * k);
  alpha_inputs(k, red);
  for (int64_t i = 0; i < k * k; i++) alpha[i] = NAN;
  int bd = -1;
  gcoo_emu_bcg_alpha(k, (int)r, red, NULL, 0, alpha, &bd);
  host_solve(k, r, red, red + k * k, ref);
  double err = err_rows(k, r, alpha, ref, 1.0), scale = maxabs(ref, r * k);
  TEST_CHECK(bd == 0 && err <= 1e-12 * scale,
             "alpha k %lld rank %lld: breakdown %d, |alpha - ref| = %.3e (scale %.3e)",
             (long long)k, (long long)r, bd, err, scale);
  /* indefinite P^T Q: breakdown, alpha zero */
  red[(r - 1) * k + (r - 1)] = -1e3;
  gcoo_emu_bcg_alpha(k, (int)r, red, NULL, 0, alpha, &bd);
  TEST_CHECK(bd == 1 && maxabs(alpha, k * k) == 0.0,
             "alpha k %lld rank %lld, indefinite: breakdown %d", (long long)k, (long long)r, bd);
  free(red), free(alpha), free(ref);
}

static void check_convergence(int64_t k, int64_t r) {
  const double rtol = 1e-6;
  double *red_a = malloc(sizeof(double) * 2 * k * k), *b2 = malloc(sizeof(double) * k);
  double *red0 = malloc(sizeof(double) * k), *red1 = malloc(sizeof(double) * (k + k * k));
  double *beta = malloc(sizeof(double) * k * k), *ref = malloc(sizeof(double) * k * k);
  int64_t *cols = malloc(sizeof(int64_t) * k);
  alpha_inputs(k, red_a);
  for (int pass = 0; pass < 2; pass++) { /* pass 0: column k-1 still open; pass 1: all below */
    for (int64_t j = 0; j < k; j++) {
      b2[j] = 4.0 + j;
      red0[j] = b2[j] * 0.5;                        /* relative residual 0.71 at iteration 0 */
      red1[j] = b2[j] * (j % 2 ? 1e-14 : 0.25e-12); /* 1e-7 and 5e-7: below rtol */
    }
    if (pass == 0) red1[k - 1] = b2[k - 1] * 1e-10; /* 1e-5: above */
    for (int64_t i = 0; i < k * k; i++) red1[k + i] = urand();
    for (int64_t i = 0; i < k * k; i++) beta[i] = NAN;
    int done = -1;
    int64_t it = -1;
    gcoo_emu_bcg_check(k, (int)r, red_a, b2, red0, red1, rtol, NULL, beta, &done, &it, cols);
    int cols_ok = 1;
    for (int64_t j = 0; j < k; j++) cols_ok &= cols[j] == ((pass == 0 && j == k - 1) ? -1 : 1);
    TEST_CHECK(it == 1 && done == pass && cols_ok,
               "check k %lld pass %d: iteration %lld, done %d, columns %s", (long long)k, pass,
               (long long)it, done, cols_ok ? "right" : "wrong");
    if (pass == 0) {
      host_solve(k, r, red_a, red1 + k, ref);
      double err = err_rows(k, r, beta, ref, -1.0), scale = maxabs(ref, r * k);
      TEST_CHECK(err <= 1e-12 * scale, "check k %lld rank %lld: |beta - ref| = %.3e", (long long)k,
                 (long long)r, err);
    } else {
      TEST_CHECK(maxabs(beta, k * k) == 0.0, "check k %lld: beta not zero once done", (long long)k);
    }
  }
  free(red_a), free(b2), free(red0), free(red1), free(beta), free(ref), free(cols);
}

static void check_precond(int64_t n, int64_t k, int64_t pad, int nblocks, int jacobi) {
  const int64_t ldr = k + pad, ldw = k + 2 * pad;
  double *R = malloc(sizeof(double) * (n * ldr + 1)), *W = malloc(sizeof(double) * (n * ldw + 1));
  double *d = malloc(sizeof(double) * (n + 1)), *norms = malloc(sizeof(double) * k);
  for (int64_t i = 0; i < n * ldr; i++) R[i] = urand();
  for (int64_t i = 0; i < n; i++) d[i] = 1.0 / (2.0 + urand());
  for (int64_t i = 0; i < n * ldw; i++) W[i] = NAN;
  for (int64_t j = 0; j < k; j++) norms[j] = NAN;
  gcoo_emu_precond_norms(n, k, R, ldr, jacobi ? d : NULL, W, ldw, nblocks, norms);
  int64_t wrong = 0;
  double err = 0;
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < k; j++)
      wrong += W[i * ldw + j] != (jacobi ? d[i] * R[i * ldr + j] : R[i * ldr + j]);
  for (int64_t j = 0; j < k; j++) {
    double s = 0;
    for (int64_t i = 0; i < n; i++) s += R[i * ldr + j] * R[i * ldr + j];
    double e = fabs(norms[j] - s) / (s > 0 ? s : 1.0);
    if (!(e <= err)) err = e;
  }
  TEST_CHECK(wrong == 0 && err <= 1e-13,
             "precond n %lld k %lld pad %lld blocks %d jacobi %d: %lld wrong W, norms %.3e",
             (long long)n, (long long)k, (long long)pad, nblocks, jacobi, (long long)wrong, err);
  free(R), free(W), free(d), free(norms);
}

/* T (k x k): I + 0.3 random on the leading r columns, zero columns past r (the W form's T). */
static void random_T(int64_t k, int64_t r, double *T) {
  for (int64_t a = 0; a < k; a++)
    for (int64_t b = 0; b < k; b++)
      T[a * k + b] = b < r ? (a == b ? 1.0 : 0.0) + 0.3 * urand() : 0.0;
}

/* C (k x k) = A^T B (tA) or A B, k x k row-major. */
static void mul(int64_t k, int tA, const double *A, const double *B, double *C) {
  for (int64_t i = 0; i < k; i++)
    for (int64_t j = 0; j < k; j++) {
      double s = 0;
      for (int64_t l = 0; l < k; l++) s += (tA ? A[l * k + i] : A[i * k + l]) * B[l * k + j];
      C[i * k + j] = s;
    }
}

/* |got - T X_r| over k x k, X r x k (rows past r of T X taken as zero in X). */
static double err_TX(int64_t k, int64_t r, const double *T, const double *X, double sign,
                     const double *got, double *scale) {
  double err = 0, sc = 0;
  for (int64_t a = 0; a < k; a++)
    for (int64_t c = 0; c < k; c++) {
      double v = 0;
      for (int64_t i = 0; i < r; i++) v += T[a * k + i] * X[i * k + c];
      v *= sign;
      sc = fmax(sc, fabs(v));
      double d = fabs(got[a * k + c] - v);
      if (!(d <= err)) err = d;
    }
  *scale = sc;
  return err;
}

/* The W form's alpha and beta: red = [M | N] with M = W^T Q' (SPD), N = W^T R; the reference is
 * the P form on P^T Q = T^T M T, P^T R = T^T N, then T alpha. */
static void check_wform(int64_t k, int64_t r) {
  double *red = malloc(sizeof(double) * 2 * k * k), *T = malloc(sizeof(double) * k * k);
  double *pq = malloc(sizeof(double) * 2 * k * k), *tmp = malloc(sizeof(double) * k * k);
  double *alpha = malloc(sizeof(double) * k * k), *ref = malloc(sizeof(double) * k * k);
  alpha_inputs(k, red);
  random_T(k, r, T);
  mul(k, 0, red, T, tmp);                /* M T */
  mul(k, 1, T, tmp, pq);                 /* T^T M T */
  mul(k, 1, T, red + k * k, pq + k * k); /* T^T N */
  for (int64_t i = 0; i < k * k; i++) alpha[i] = NAN;
  int bd = -1;
  gcoo_emu_bcg_alpha(k, (int)r, red, T, 0, alpha, &bd);
  host_solve(k, r, pq, pq + k * k, ref);
  double scale = 0, err = err_TX(k, r, T, ref, 1.0, alpha, &scale);
  TEST_CHECK(bd == 0 && err <= 1e-11 * scale,
             "W form alpha k %lld rank %lld: breakdown %d, |alpha - T ref| = %.3e (scale %.3e)",
             (long long)k, (long long)r, bd, err, scale);
  /* pform: T ignored, the P form on red itself */
  gcoo_emu_bcg_alpha(k, (int)r, red, T, 1, alpha, &bd);
  host_solve(k, r, red, red + k * k, ref);
  double e2 = err_rows(k, r, alpha, ref, 1.0), s2 = maxabs(ref, r * k);
  TEST_CHECK(bd == 0 && e2 <= 1e-12 * s2, "W form alpha k %lld with pform: |alpha - ref| = %.3e",
             (long long)k, e2);
  /* beta = -(P^T Q)^{-1} Q^T Z with Q^T Z = T^T (Q'^T Z), out as T beta */
  double *b2 = malloc(sizeof(double) * k), *red0 = malloc(sizeof(double) * k);
  double *red1 = malloc(sizeof(double) * (k + k * k)), *beta = malloc(sizeof(double) * k * k);
  int64_t *cols = malloc(sizeof(int64_t) * k), it = -1;
  for (int64_t j = 0; j < k; j++) {
    b2[j] = 1.0;
    red0[j] = 0.5;
    red1[j] = 0.25; /* open */
  }
  for (int64_t i = 0; i < k * k; i++) red1[k + i] = urand();
  for (int64_t i = 0; i < k * k; i++) beta[i] = NAN;
  int done = -1;
  gcoo_emu_bcg_check(k, (int)r, red, b2, red0, red1, 1e-6, T, beta, &done, &it, cols);
  mul(k, 1, T, red1 + k, tmp); /* T^T Q'^T Z */
  host_solve(k, r, pq, tmp, ref);
  err = err_TX(k, r, T, ref, -1.0, beta, &scale);
  TEST_CHECK(done == 0 && err <= 1e-11 * scale,
             "W form beta k %lld rank %lld: done %d, |beta - T ref| = %.3e (scale %.3e)",
             (long long)k, (long long)r, done, err, scale);
  free(red), free(T), free(pq), free(tmp), free(alpha), free(ref);
  free(b2), free(red0), free(red1), free(beta), free(cols);
}

/* orth's pform in the W form: nearly dependent columns ask for the explicit P. */
static void check_pform(int64_t k) {
  const int64_t n = 3 * k + 7;
  double *W = malloc(sizeof(double) * n * k), *G = malloc(sizeof(double) * k * k);
  double *T = malloc(sizeof(double) * k * k);
  int rank = -1, done = -1, pform = -1;
  gram(n, k, 0, W, G);
  gcoo_emu_bcg_orth(k, G, 1e-13, 1e-6, T, &rank, &done, &pform);
  TEST_CHECK(rank == k && pform == 0, "W form orth k %lld, random W: rank %d, pform %d",
             (long long)k, rank, pform);
  for (int64_t i = 0; i < n; i++) W[i * k + k - 1] = W[i * k] + 1e-5 * urand();
  for (int64_t a = 0; a < k; a++)
    for (int64_t b = 0; b < k; b++) {
      double s = 0;
      for (int64_t i = 0; i < n; i++) s += W[i * k + a] * W[i * k + b];
      G[a * k + b] = s;
    }
  gcoo_emu_bcg_orth(k, G, 1e-13, 1e-6, T, &rank, &done, &pform);
  TEST_CHECK(rank == k && pform == 1,
             "W form orth k %lld, a column 1e-5 off another: rank %d, pform %d", (long long)k, rank,
             pform);
  free(W), free(G), free(T);
}

/* W = W T in place where pform and not done. */
static void check_transform(int64_t n, int64_t k, int64_t pad, int grid) {
  const int64_t ld = k + pad;
  double *W = malloc(sizeof(double) * (n * ld + 1)), *W0 = malloc(sizeof(double) * (n * ld + 1));
  double *T = malloc(sizeof(double) * k * k);
  for (int64_t i = 0; i < n * ld; i++) W0[i] = urand();
  random_T(k, k > 2 ? k - 1 : k, T);
  for (int mode = 0; mode < 3; mode++) { /* 0: pform, 1: no pform, 2: pform but done */
    memcpy(W, W0, sizeof(double) * n * ld);
    gcoo_emu_bcg_transform(n, k, W, ld, T, mode != 1, mode == 2, grid);
    double err = 0;
    int64_t pads = 0;
    for (int64_t i = 0; i < n; i++) {
      for (int64_t c = 0; c < k; c++) {
        double v = W0[i * ld + c];
        if (mode == 0) {
          v = 0;
          for (int64_t l = 0; l < k; l++) v += W0[i * ld + l] * T[l * k + c];
        }
        double d = fabs(W[i * ld + c] - v);
        if (!(d <= err)) err = d;
      }
      for (int64_t c = k; c < ld; c++) pads += W[i * ld + c] != W0[i * ld + c];
    }
    TEST_CHECK(err <= (mode ? 0.0 : 1e-13 * (double)k) && pads == 0,
               "transform n %lld k %lld pad %lld grid %d mode %d: |W - ref| = %.3e, %lld pads "
               "changed",
               (long long)n, (long long)k, (long long)pad, grid, mode, err, (long long)pads);
  }
  free(W), free(W0), free(T);
}

int main(void) {
  /* the k x k kernels with the block sizes GCOO_BCG_KK_THREADS selects (256 the default; one
   * warp: 32; 512), k below, at and above the shared-memory limit kSmallK = 32 */
  const int threads[] = {256, 128, 64, 32, 512};
  for (int t = 0; t < 5; t++) {
    printf("t612: k x k kernels with %d threads\n", threads[t]);
    gcoo_emu_bcg_threads(threads[t]);
    check_orth(1, 0, 1);
    check_orth(5, 0, 5);
    check_orth(8, 1, 5);
    check_orth(32, 1, 29);
    check_orth(33, 1, 30);
    check_alpha(1, 1);
    check_alpha(6, 6);
    check_alpha(6, 4);
    check_alpha(32, 32);
    check_alpha(40, 37);
    check_convergence(1, 1);
    check_convergence(7, 7);
    check_convergence(9, 6);
    check_convergence(32, 30);
    check_wform(1, 1);
    check_wform(7, 7);
    check_wform(9, 6);
    check_wform(32, 32);
    check_wform(32, 29);
    check_wform(40, 37);
    check_pform(8);
    check_pform(33);
  }
  check_transform(0, 5, 0, 1);
  check_transform(1000, 5, 3, 1);
  check_transform(1000, 32, 0, 3);
  check_transform(300, 40, 2, 2);
  gcoo_emu_bcg_threads(256);
  const int64_t ns[] = {0, 3, 1000}, ks[] = {1, 5, 40};
  const int nbs[] = {1, 3, 7};
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++)
      for (int c = 0; c < 3; c++)
        check_precond(ns[a], ks[b], c == 1 ? 3 : 0, nbs[c], (a + b + c) % 2);
  return gcoo_test_finish("t612-bcg-kernels-emulated");
}
