// SPDX-License-Identifier: MIT
// tests/solver/emu/emu_bcg_kernels.cpp: kernels/solver/bcg_kernels.cuh compiled for the CPU emulator
// (tests/common/cuda_emu.h), with C entry points for tests/solver/t612: each runs one of block CG's
// device steps on host arrays (device memory is host memory here) exactly as
// kernels/solver/bcg_cuda.cu launches it (one block of 256 threads; the Jacobi pass on a grid), and
// the fused block-vector passes of kernels/solver/bcg_fused.cuh (tests/solver/t613).
#include <stdlib.h>
#include <string.h>

#include "solver/bcg_fused.cuh"
#include "solver/bcg_kernels.cuh"

using namespace gcoo_bcg;

namespace {

// The device state of one block-CG solve with k columns, in host memory.
struct emu_state {
  bcg_state st;
  bcg_arrays a;
  double *mem;
  emu_state(int64_t k, double rtol, double rank_tol, int rank) {
    memset(&st, 0, sizeof st);
    st.rank = rank;
    st.min_rank = (int)k;
    const int64_t kk = k * k;
    mem = (double *)calloc((size_t)(2 * k + 5 * kk), sizeof(double));
    a.k = k;
    a.rtol = rtol;
    a.rank_tol = rank_tol;
    a.st = &st;
    a.b2 = mem;
    a.rel = a.b2 + k;
    a.L = a.rel + k;
    a.S = a.L + kk;
    a.Lp = a.S + kk;
    a.Rinv = a.Lp + kk;
    a.Y = a.Rinv + kk;
    a.hist = nullptr;
    a.col_its = (int64_t *)malloc(sizeof(int64_t) * (size_t)k);
    for (int64_t j = 0; j < k; j++) a.col_its[j] = -1;
    a.piv = (int *)calloc((size_t)k, sizeof(int));
  }
  ~emu_state() {
    free(mem);
    free(a.col_its);
    free(a.piv);
  }
};

// Threads of the one-block k x k kernels (kernels/solver/bcg_cuda.cu: GCOO_BCG_KK_THREADS, 256 by
// default); gcoo_emu_bcg_threads sets it for the calls that follow.
int kk_threads = 256;

} // namespace

extern "C" void gcoo_emu_bcg_threads(int threads) { kk_threads = threads; }

// T (k x k, columns past the rank zero) and the rank from the Gram matrix G; wform_ratio > 0:
// the W form with that ratio (0: the P form), pform: whether P = W T is to be made explicit.
extern "C" void gcoo_emu_bcg_orth(int64_t k, const double *G, double rank_tol, double wform_ratio,
                                  double *T, int *rank, int *done, int *pform) {
  emu_state e(k, 1e-8, rank_tol, (int)k);
  e.a.wform = wform_ratio > 0.0;
  e.a.wform_ratio = wform_ratio;
  GCOO_LAUNCH(bcg_orth<double>, dim3(1), dim3(kk_threads), 0, 0, e.a, G, T);
  *rank = e.st.rank;
  *done = e.st.done;
  *pform = e.st.pform;
}

// alpha (k x k, rows past r zero) = (PtQ)^{-1} PtR on the leading r x r block; red = [PtQ | PtR].
// Tm (k x k, not NULL): the W form, red = [W^T Q' | W^T R] and alpha out as Tm alpha, unless
// pform (bcg_orth made P explicit: Tm ignored).
extern "C" void gcoo_emu_bcg_alpha(int64_t k, int r, const double *red, const double *Tm, int pform,
                                   double *alpha, int *breakdown) {
  emu_state e(k, 1e-8, 1e-13, r);
  e.a.wform = Tm != nullptr;
  e.st.pform = pform;
  GCOO_LAUNCH(bcg_alpha<double>, dim3(1), dim3(kk_threads), 0, 0, e.a, red, alpha, Tm);
  *breakdown = e.st.breakdown;
}

// The W form's explicit block: W (n x k, ld ldw) = W Tm in place where pform and not done, on
// `grid` blocks.
extern "C" void gcoo_emu_bcg_transform(int64_t n, int64_t k, double *W, int64_t ldw,
                                       const double *Tm, int pform, int done, int grid) {
  emu_state e(k, 1e-8, 1e-13, (int)k);
  e.a.wform = 1;
  e.st.pform = pform;
  e.st.done = done;
  GCOO_LAUNCH(bcg_transform<double>, dim3(grid), dim3(256), 0, 0, e.a, n, W, ldw, Tm);
}

// Iteration 0 and one iteration of the convergence test: red0 = ||R_j||^2 at 0, red1 =
// [||R_j||^2 | Q^T Z] after; b2 = ||B_j||^2; beta out; done, iteration count and column
// iterations out. The factor L comes from an alpha step on PtQ (red_alpha).
// Tm: the W form as in gcoo_emu_bcg_alpha (beta out as Tm beta).
extern "C" void gcoo_emu_bcg_check(int64_t k, int r, const double *red_alpha, const double *b2,
                                   const double *red0, const double *red1, double rtol,
                                   const double *Tm, double *beta, int *done, int64_t *it,
                                   int64_t *col_its) {
  emu_state e(k, rtol, 1e-13, r);
  e.a.wform = Tm != nullptr;
  double *alpha = (double *)calloc((size_t)(k * k), sizeof(double));
  GCOO_LAUNCH(bcg_store_b2<double>, dim3(1), dim3(kk_threads), 0, 0, e.a, b2);
  GCOO_LAUNCH(bcg_check<double>, dim3(1), dim3(kk_threads), 0, 0, e.a, red0, beta, 1, Tm);
  GCOO_LAUNCH(bcg_alpha<double>, dim3(1), dim3(kk_threads), 0, 0, e.a, red_alpha, alpha, Tm);
  GCOO_LAUNCH(bcg_check<double>, dim3(1), dim3(kk_threads), 0, 0, e.a, red1, beta, 0, Tm);
  *done = e.st.done;
  *it = e.st.it;
  for (int64_t j = 0; j < k; j++) col_its[j] = e.a.col_its[j];
  free(alpha);
}

// W = diag(dinv) R (dinv NULL: R) and norms = ||R_j||^2, on nblocks blocks as the solver does.
extern "C" void gcoo_emu_precond_norms(int64_t n, int64_t k, const double *R, int64_t ldr,
                                       const double *dinv, double *W, int64_t ldw, int nblocks,
                                       double *norms) {
  double *partial = (double *)calloc((size_t)(nblocks * k), sizeof(double));
  const precond_norms_op<double> f = {R, ldr, dinv, W, ldw};
  GCOO_LAUNCH(gcoo_colsum::column_partials<precond_norms_op<double>>, dim3(nblocks), dim3(256),
              256 * sizeof(double), 0, n, k, f, partial);
  GCOO_LAUNCH(gcoo_colsum::column_totals<double>, dim3(gcoo_colsum::totals_grid(k)), dim3(256), 0,
              0, (const double *)partial, nblocks, k, norms, (int64_t)1);
  free(partial);
}

namespace {

// One fused pass on `grid` blocks in the variant the solver would launch (variant: op 0 the
// gram2 form and stages, 10 * form + stages; ops 1, 3 10 * (W over R's tile) + stages; ops 2, 4
// the stages; 0: the defaults), then the
// fixed-order sum of the per-block partials into red (the partials poisoned first: every block
// must write all of its own).
template <typename T, int K, int ST>
void gram2_stages(int form, int64_t n, int grid, const T *P, int64_t ldp, const T *Q, int64_t ldq,
                  const T *R, int64_t ldr, double *partial) {
  typedef fused_shape<T, K> F;
  if (form == kGram2Regs)
    GCOO_LAUNCH((bcg_fused_gram2<T, K, kGram2Regs>), dim3(grid), dim3(kFusedThreads),
                F::gram2_bytes(1), 0, n, P, ldp, Q, ldq, R, ldr, partial);
  else if (form == kGram2Async16)
    GCOO_LAUNCH((bcg_fused_gram2<T, K, kGram2Async16, ST>), dim3(grid), dim3(kFusedThreads),
                F::gram2_bytes(ST), 0, n, P, ldp, Q, ldq, R, ldr, partial);
  else
    GCOO_LAUNCH((bcg_fused_gram2<T, K, kGram2Async, ST>), dim3(grid), dim3(kFusedThreads),
                F::gram2_bytes(ST), 0, n, P, ldp, Q, ldq, R, ldr, partial);
}

template <typename T, int K, bool TC, int ST>
void update_stages(bool wr, int64_t n, int grid, const T *P, int64_t ldp, const T *Q, int64_t ldq,
                   const T *coef, T *X, int64_t ldx, T *R, int64_t ldr, const T *dinv, T *W,
                   int64_t ldw, double *partial) {
  typedef fused_shape<T, K> F;
  if (wr)
    GCOO_LAUNCH((bcg_fused_update<T, K, TC, ST, true>), dim3(grid), dim3(kFusedThreads),
                F::update_bytes(ST, true), 0, n, P, ldp, Q, ldq, coef, X, ldx, R, ldr, dinv, W, ldw,
                partial);
  else
    GCOO_LAUNCH((bcg_fused_update<T, K, TC, ST>), dim3(grid), dim3(kFusedThreads),
                F::update_bytes(ST), 0, n, P, ldp, Q, ldq, coef, X, ldx, R, ldr, dinv, W, ldw,
                partial);
}

template <typename T, int K, bool TC, int ST>
void direction_stages(int64_t n, int grid, const T *P, int64_t ldp, const T *coef, T *W,
                      int64_t ldw, double *partial) {
  typedef fused_shape<T, K> F;
  GCOO_LAUNCH((bcg_fused_direction<T, K, TC, ST>), dim3(grid), dim3(kFusedThreads),
              F::direction_bytes(ST), 0, n, P, ldp, coef, W, ldw, partial);
}

template <typename T, int K>
void fused_pass(int op, int variant, int64_t n, int grid, const void *P_, int64_t ldp,
                const void *Q_, int64_t ldq, const void *coef_, void *X_, int64_t ldx, void *R_,
                int64_t ldr, const void *dinv_, void *W_, int64_t ldw, void *red) {
  typedef fused_shape<T, K> F;
  const T *P = (const T *)P_, *Q = (const T *)Q_, *coef = (const T *)coef_,
          *dinv = (const T *)dinv_;
  T *X = (T *)X_, *R = (T *)R_, *W = (T *)W_;
  const int64_t count = op == 0 ? 2 * K * K : op % 2 == 1 ? K + K * K : K * K;
  double *partial = (double *)malloc(sizeof(double) * (size_t)(grid * count));
  memset(partial, 0xff, sizeof(double) * (size_t)(grid * count)); // NaN
  if (op == 0) {
    const int form = variant / 10, st = variant % 10 ? variant % 10 : F::GRAM2_STAGES;
    if (st == 2)
      gram2_stages<T, K, 2>(form, n, grid, P, ldp, Q, ldq, R, ldr, partial);
    else
      gram2_stages<T, K, 3>(form, n, grid, P, ldp, Q, ldq, R, ldr, partial);
  } else if (op == 1 || op == 3) {
    const int st = variant % 10 ? variant % 10 : F::UPDATE_STAGES;
    const bool wr = variant / 10 == 1; // W staged over R's tile
    if (op == 1 && st == 2)
      update_stages<T, K, false, 2>(wr, n, grid, P, ldp, Q, ldq, coef, X, ldx, R, ldr, dinv, W, ldw,
                                    partial);
    else if (op == 1)
      update_stages<T, K, false, 3>(wr, n, grid, P, ldp, Q, ldq, coef, X, ldx, R, ldr, dinv, W, ldw,
                                    partial);
    else if constexpr (update_mma<T, K>::on) { // the tensor-core form's indexing (scalar here)
      if (st == 2)
        update_stages<T, K, true, 2>(wr, n, grid, P, ldp, Q, ldq, coef, X, ldx, R, ldr, dinv, W,
                                     ldw, partial);
      else
        update_stages<T, K, true, 3>(wr, n, grid, P, ldp, Q, ldq, coef, X, ldx, R, ldr, dinv, W,
                                     ldw, partial);
    }
  } else {
    const int st = variant ? variant : F::DIRECTION_STAGES;
    if (op == 2 && st == 3)
      direction_stages<T, K, false, 3>(n, grid, P, ldp, coef, W, ldw, partial);
    else if (op == 2)
      direction_stages<T, K, false, 4>(n, grid, P, ldp, coef, W, ldw, partial);
    else if constexpr (update_mma<T, K>::on) {
      if (st == 3)
        direction_stages<T, K, true, 3>(n, grid, P, ldp, coef, W, ldw, partial);
      else
        direction_stages<T, K, true, 4>(n, grid, P, ldp, coef, W, ldw, partial);
    }
  }
  GCOO_LAUNCH(gcoo_colsum::column_totals<T>, dim3(gcoo_colsum::totals_grid(count)), dim3(256), 0, 0,
              (const double *)partial, grid, count, (T *)red, (int64_t)1);
  free(partial);
}

template <typename T>
void fused_pass_k(int K, int op, int variant, int64_t n, int grid, const void *P, int64_t ldp,
                  const void *Q, int64_t ldq, const void *coef, void *X, int64_t ldx, void *R,
                  int64_t ldr, const void *dinv, void *W, int64_t ldw, void *red) {
  if (K == 8)
    fused_pass<T, 8>(op, variant, n, grid, P, ldp, Q, ldq, coef, X, ldx, R, ldr, dinv, W, ldw, red);
  else if (K == 16)
    fused_pass<T, 16>(op, variant, n, grid, P, ldp, Q, ldq, coef, X, ldx, R, ldr, dinv, W, ldw,
                      red);
  else
    fused_pass<T, 32>(op, variant, n, grid, P, ldp, Q, ldq, coef, X, ldx, R, ldr, dinv, W, ldw,
                      red);
}

} // namespace

// op 0: red = [P^T Q | P^T R]; 1: X += P coef, R -= Q coef, W = diag(dinv) R, red = [||R_j||^2 |
// Q^T W]; 2: W += P coef, red = W^T W; 3, 4: 1, 2 in the tensor-core form (double, K = 16, 32;
// the partials stay NaN elsewhere). variant: the kernel's form as kernels/solver/bcg_fused_cuda.cu picks it
// from GCOO_BCG_STAGES / GCOO_BCG_GRAM2 / GCOO_BCG_W_IN_R: op 0 10 * gram2_form + stages, ops 1,
// 3 10 * w_in_r + stages, ops 2, 4 the stages; 0 for the defaults. Element type double (dbl) or
// float; K in {8, 16, 32}.
extern "C" void gcoo_emu_bcg_fused(int op, int variant, int dbl, int K, int64_t n, int grid,
                                   const void *P, int64_t ldp, const void *Q, int64_t ldq,
                                   const void *coef, void *X, int64_t ldx, void *R, int64_t ldr,
                                   const void *dinv, void *W, int64_t ldw, void *red) {
  if (dbl)
    fused_pass_k<double>(K, op, variant, n, grid, P, ldp, Q, ldq, coef, X, ldx, R, ldr, dinv, W,
                         ldw, red);
  else
    fused_pass_k<float>(K, op, variant, n, grid, P, ldp, Q, ldq, coef, X, ldx, R, ldr, dinv, W, ldw,
                        red);
}
